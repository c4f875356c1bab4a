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


def _load_triangles(lib: ctypes.CDLL | None) -> ctypes.CDLL | None:
    if lib is None or not hasattr(lib, "pvu_polytope_triangles"):
        return None
    lib.pvu_polytope_triangles.argtypes = [ctypes.c_int64] * 5 + [_P] * 22
    lib.pvu_polytope_triangles.restype = ctypes.c_int64
    return lib


_TRIANGLES = _load_triangles(_LIB)

_MAX_LOOP, _MAX_DIRECTIONS = 64, 128  # _narrow_phase.c's MAX_LOOP, MAX_AXES / 3


def polytope_triangles(A, B, limit: np.ndarray, single_sided: np.ndarray, radius: np.ndarray | None):
    """separating_axes.py's `polytope_contacts_numpy` of P pairs of polytopes A (sim/contact/polytopes.py Polytopes,
    every row with faces) against single-sided mesh triangles B (polytopes.triangle_polytopes'), round shapes' radii
    zero or none, where the extension is loaded and covers the call: (made before the front side kept them, pair,
    point, normal, separation) of the contacts, in its order and to the bit; None otherwise."""
    P = len(limit)
    K, F, M, D = A.vertices.shape[1], A.normals.shape[1], A.loops.shape[2], A.axis_edges.shape[1]
    if (_TRIANGLES is None or _FUSED is None or M > _MAX_LOOP or D > _MAX_DIRECTIONS
            or B.vertices.shape != (P, 3, 3) or B.normals.shape != (P, 1, 3) or B.axis_mask.shape != (P, 3)
            or single_sided.shape != (P, 3) or A.vertices.shape[0] != P
            or any(a.dtype != np.float64 for a in (A.vertices, A.normals, A.offsets, B.vertices, B.normals,
                                                    B.offsets, limit, single_sided))
            or any(a.dtype != np.int64 for a in (A.loops, A.loop_counts, A.axis_edges))
            or (radius is not None and (radius.dtype != np.float64 or (radius != 0.0).any()))
            or not A.face_mask.any(axis=1).all()):
        return None
    arrays = [np.ascontiguousarray(a) for a in (A.vertices, A.normals, A.offsets, A.face_mask, A.loops, A.loop_counts,
                                                A.axis_edges, A.axis_mask, B.vertices, B.normals[:, 0],
                                                B.offsets[:, 0], B.axis_mask, limit)]
    radius = None if radius is None else np.ascontiguousarray(radius)
    single_sided = np.ascontiguousarray(single_sided)
    capacity = P * (M + 3 + 3 * max(M, 3))
    pair, point = np.empty(capacity, np.int64), np.empty((capacity, 3))
    normal, separation = np.empty((capacity, 3)), np.empty(capacity)
    made, scratch = np.zeros(1, np.int64), np.empty(2 * P, np.int64)
    count = _TRIANGLES.pvu_polytope_triangles(
        P, K, F, M, D, *(address(a) for a in arrays), None if radius is None else address(radius),
        address(single_sided), address(pair), address(point), address(normal), address(separation), address(made),
        address(scratch), address(scratch[P:]) if P else address(scratch))
    if count < 0:
        return None
    return int(made[0]), pair[:count], point[:count], normal[:count], separation[:count]
