"""The narrow phases of the static contacts, compiled (sim/_narrow_phase.c, in the extension sim/extension.py opens):
what they cover, and the calls.

PCM's box-box contacts (sim/contact/box.py `box_box_numpy`) cost some two hundred numpy calls a call on (P, 16, 3)
temporaries; the C loop does the same float64 arithmetic in the same order, pair by pair. The numpy code stays the
reference (tests/test_sim_narrow_phase_compiled.py holds the two to each other, to the bit).

Two of numpy's sums are its build's and its BLAS's, not numpy's code's: an einsum over a contiguous axis of three
adds (p0 + p2) + p1 (two lanes), and `a @ b` of two 3-vectors is its BLAS's ddot (OpenBLAS with FMA: fused, left to
right). Both are probed once, here; where numpy sums otherwise, the compiled box-box covers nothing.
"""
from __future__ import annotations

import ctypes
from fractions import Fraction

import numpy as np

from .extension import address, open_extension

_P = ctypes.c_void_p

SLOTS = 16  # the points a box-box pair can make before reduction (box.py's `_calculate_contacts`)


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_box_box")  # (an extension built before it: numpy makes the contacts)
    if lib is None:
        return None
    lib.pvu_box_box.argtypes = [ctypes.c_int64] + [_P] * 7 + [ctypes.c_int64] + [_P] * 5
    lib.pvu_box_box.restype = ctypes.c_int
    return lib


def _blas_dot_fused() -> bool | None:
    """How numpy's BLAS sums a @ b of two 3-vectors, as _narrow_phase.c's `blas_dot3` can: each product added fused
    (True) or rounded first (False), left to right; None: neither (and numpy's einsum does not add three contiguous
    products as `sum3_lanes` does)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 64, 3))
    p = a * b
    if not np.array_equal(np.einsum("pk,pk->p", a, b), (p[:, 0] + p[:, 2]) + p[:, 1]):
        return None
    numpy = [float(x @ y) for x, y in zip(a, b)]

    def fused(x, y):  # each step rounded once, as fma
        s = x[0] * y[0]
        for k in (1, 2):
            s = float(Fraction(x[k]) * Fraction(y[k]) + Fraction(s))
        return s

    if numpy == [fused(x, y) for x, y in zip(a, b)]:
        return True
    if numpy == [float((x[0] * y[0] + x[1] * y[1]) + x[2] * y[2]) for x, y in zip(a, b)]:
        return False
    return None


_LIB = _load()
_FUSED = _blas_dot_fused() if _LIB is not None else None


def available() -> bool:
    """Whether the extension with the compiled narrow phases is built and loaded, and numpy sums as it can."""
    return _LIB is not None and _FUSED is not None


def box_box(ca: np.ndarray, Ra: np.ndarray, ea: np.ndarray, cb: np.ndarray, Rb: np.ndarray, eb: np.ndarray,
            distance: np.ndarray):
    """box.py's `box_box_numpy` (the same arguments, the same returns, the same bits) where the extension is loaded
    and the call is covered (float64 boxes of P pairs: centres and half extents (P, 3), axes (P, 3, 3), distances
    (P,)); None otherwise."""
    P = len(ca)
    arrays = (ca, Ra, ea, cb, Rb, eb, distance)
    shapes = ((P, 3), (P, 3, 3), (P, 3), (P, 3), (P, 3, 3), (P, 3), (P,))
    if _LIB is None or _FUSED is None or any(a.dtype != np.float64 or a.shape != s for a, s in zip(arrays, shapes)):
        return None
    ca, Ra, ea, cb, Rb, eb, distance = (np.ascontiguousarray(a) for a in arrays)
    made, valid = np.empty(P, bool), np.empty((P, SLOTS), bool)
    points, separation, normal = np.empty((P, SLOTS, 3)), np.empty((P, SLOTS)), np.empty((P, 3))
    if P:
        _LIB.pvu_box_box(P, address(ca), address(Ra), address(ea), address(cb), address(Rb), address(eb),
                         address(distance), int(_FUSED), address(made), address(points), address(separation), address(valid),
                         address(normal))
    return made, points, separation, valid, normal
