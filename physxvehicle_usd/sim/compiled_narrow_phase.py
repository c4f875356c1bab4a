"""The narrow phases of the static contacts, compiled (sim/_narrow_phase.c, in the extension sim/extension.py opens):
what they cover, and the calls.

PCM's box-box contacts (sim/contact/box.py `box_box_numpy`) and a vehicle's polytope against mesh triangles
(sim/contact/separating_axes.py `polytope_contacts_numpy`) cost hundreds of numpy calls a call on padded
temporaries; the C loops do the same float64 arithmetic in the same order, pair by pair. The numpy code stays the
reference (tests/test_sim_narrow_phase_compiled.py holds the two to each other, to the bit).

Two of numpy's sums are its build's and its BLAS's, not numpy's code's: an einsum over a contiguous axis of three
adds (p0 + p2) + p1 (two lanes), and `a @ b` of two 3-vectors is its BLAS's ddot (OpenBLAS with FMA: fused, left to
right). Both are probed once, here; where numpy sums otherwise, the compiled narrow phases cover nothing.
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


def _load_polytopes(lib: ctypes.CDLL | None) -> ctypes.CDLL | None:
    if lib is None or not hasattr(lib, "pvu_polytope_contacts"):
        return None
    lib.pvu_polytope_contacts.argtypes = [ctypes.c_int64] + [_P] * 33
    lib.pvu_polytope_contacts.restype = ctypes.c_int64
    return lib


_POLYTOPES = _load_polytopes(_LIB)

_MAX_LOOP = 64  # _polytope_contacts.c's MAX_LOOP
_ROWS = ("vertices", "normals", "offsets", "face_mask", "loops", "loop_counts", "axis_edges", "axis_mask", "edges",
         "edge_mask")
_TYPES = (np.float64,) * 3 + (np.bool_,) + (np.int64,) * 3 + (np.bool_, np.int64, np.bool_)


def _rows(X, P: int) -> list[np.ndarray] | None:
    """A Polytopes' arrays as the C code reads them (None: not of its types, or not P rows)."""
    arrays = [getattr(X, name) for name in _ROWS]
    if any(a.dtype != t or a.shape[0] != P for a, t in zip(arrays, _TYPES)):
        return None
    return [np.ascontiguousarray(a) for a in arrays]


def polytope_contacts(A, B, limit: np.ndarray, single_sided: np.ndarray | None, radius: np.ndarray | None):
    """separating_axes.py's `polytope_contacts_numpy` of P pairs of polytopes A (sim/contact/polytopes.py
    Polytopes, the vehicle's, every row with faces) against B (static polytopes, or single-sided mesh triangles where
    single_sided is given), round shapes' radii zero or none, B's reference face preferred (not first_faces), where
    the extension is loaded and covers the call: (made before a triangle's front side kept them, pair, point, normal,
    separation) of the contacts, in its order and to the bit; None otherwise."""
    P = len(limit)
    if _POLYTOPES is None or _FUSED is None or limit.dtype != np.float64:
        return None
    if A.loops.shape[2] > _MAX_LOOP or B.loops.shape[2] > _MAX_LOOP:
        return None
    if single_sided is not None and (single_sided.dtype != np.float64 or single_sided.shape != (P, 3)):
        return None
    if radius is not None and (radius.dtype != np.float64 or (radius != 0.0).any()):
        return None
    a_rows, b_rows = _rows(A, P), _rows(B, P)
    if a_rows is None or b_rows is None or not A.face_mask.any(axis=1).all():
        return None
    sizes = [np.array([X.vertices.shape[1], X.normals.shape[1], X.loops.shape[2], X.axis_edges.shape[1],
                       X.edges.shape[1]], np.int64) for X in (A, B)]
    limit = np.ascontiguousarray(limit)
    radius = None if radius is None else np.ascontiguousarray(radius)
    single_sided = None if single_sided is None else np.ascontiguousarray(single_sided)
    Ma, Mb = A.loops.shape[2], B.loops.shape[2]
    capacity = P * (Ma + Mb + Ma * Mb + 1)
    pair, point = np.empty(capacity, np.int64), np.empty((capacity, 3))
    normal, separation = np.empty((capacity, 3)), np.empty(capacity)
    made, scratch = np.zeros(1, np.int64), np.empty(3 * max(P, 1), np.int64)
    at = address(scratch)
    count = _POLYTOPES.pvu_polytope_contacts(
        P, address(sizes[0]), *(address(a) for a in a_rows), address(sizes[1]), *(address(b) for b in b_rows),
        address(limit), None if radius is None else address(radius),
        None if single_sided is None else address(single_sided), address(pair), address(point), address(normal),
        address(separation), address(made), at, at + 8 * P, at + 16 * P)
    if count < 0:
        return None
    return int(made[0]), pair[:count], point[:count], normal[:count], separation[:count]
