"""Exact cylinders against mesh triangles (sim/contact/cylinder_faces.py `cylinder_triangles`), compiled, in the
extension sim/extension.py opens: its closest stage (sim/_cylinder_triangles.c: PhysX's reference GJK and EPA between
a wheel's cylinder core and a triangle, as sim/contact/gjk_epa.py `gjk_distance` and `epa_depth` compute them in
float32, numpy float32 scalars an operation at a time: the same operations in the same order on C floats) and its
points (sim/_cylinder_faces.c: the faces, their clipping and the patches, the Python code's float64 arithmetic in its
order). The same bits; the Python code stays the reference (tests/test_sim_cylinder_compiled.py holds the two to each
other, to the bit).

The faces' a @ b of two 3-vectors is numpy's BLAS's ddot, a (K, 3) @ (3,) its gemv: both probed once here (OpenBLAS
with FMA: ddot fused, left to right, from +0; gemv's rows the middle product first, then the others fused); where
numpy's BLAS adds otherwise the points stay with the Python code."""
from __future__ import annotations

import ctypes
from fractions import Fraction

import numpy as np

from .extension import address, open_extension

_P = ctypes.c_void_p


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_cylinder_triangles_closest")  # (an extension built before it: numpy runs)
    if lib is None:
        return None
    lib.pvu_cylinder_triangles_closest.argtypes = [ctypes.c_int64] + [_P] * 14
    lib.pvu_cylinder_triangles_closest.restype = ctypes.c_int
    if hasattr(lib, "pvu_cylinder_triangles_points"):
        lib.pvu_cylinder_triangles_points.argtypes = [ctypes.c_int64] + [_P] * 15
        lib.pvu_cylinder_triangles_points.restype = ctypes.c_int64
    return lib


def _blas_dot_fused() -> bool:
    """Whether numpy's a @ b of two 3-vectors adds each product fused, left to right, from +0, as _cylinder_faces.c's
    `ddot` does (-0 products add to +0)."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 64, 3))
    numpy = [float(x @ y) for x, y in zip(a, b)]

    def fused(x, y):  # each step rounded once, as fma
        s = Fraction(0)
        for k in range(3):
            s = Fraction(float(Fraction(x[k]) * Fraction(y[k]) + s))
        return float(s)

    zero = np.array([-0.0, -0.0, -0.0]) @ np.ones(3)
    return numpy == [fused(x, y) for x, y in zip(a, b)] and not np.signbit(zero)


def _blas_gemv_fused() -> bool:
    """Whether numpy's (K, 3) @ (3,) adds each row's products as _cylinder_faces.c's `gemv_row` does: the middle one
    first, then the first and the last, each fused."""
    rng = np.random.default_rng(1)
    rows, b = rng.standard_normal((7, 3)) * 100.0, rng.standard_normal(3)

    def fma(x, y, z):
        return float(Fraction(x) * Fraction(y) + Fraction(z))

    numpy = [float(v) for v in rows @ b]
    return numpy == [fma(r[2], b[2], fma(r[0], b[0], r[1] * b[1])) for r in rows]


_LIB = _load()
_FUSED = _LIB is not None and _blas_dot_fused() and _blas_gemv_fused()


def available() -> bool:
    """Whether the extension with the compiled cylinder-triangle GJK and EPA is built and loaded."""
    return _LIB is not None


def cylinder_triangles_closest(rows: np.ndarray, centre: np.ndarray, half: np.ndarray, radius: np.ndarray,
                               turn: np.ndarray, triangles: np.ndarray, limit: np.ndarray, distance: np.ndarray,
                               w0: np.ndarray, w1: np.ndarray, normal: np.ndarray) -> bool:
    """For each pair of `rows` (indices into the P pairs of cylinder_faces.py `cylinder_triangles`: centres (P, 3),
    half heights and radii (P,), float32 core turns (P, 4), triangles (P, 3, 3), GJK's bounds `limit` (P,)): the
    answer of `gjk_distance` (and `epa_depth` where GJK finds the pair touching) written at its row into distance
    (P,), w0, w1 and normal (P, 3) where one is found, as the Python loop writes them. Whether it ran (False: the
    extension is not loaded, the arrays are not of its types, or a pair needs the Python code; nothing written)."""
    P = len(centre)
    arrays = (centre, half, radius, triangles, limit)
    shapes = ((P, 3), (P,), (P,), (P, 3, 3), (P,))
    if _LIB is None or any(a.dtype != np.float64 or a.shape != s for a, s in zip(arrays, shapes)):
        return False
    if turn.dtype != np.float32 or turn.shape != (P, 4):
        return False
    outputs = (distance, w0, w1, normal)
    if any(a.dtype != np.float64 or not a.flags.c_contiguous or not a.flags.writeable for a in outputs):
        return False
    centre, half, radius, turn, triangles, limit = (np.ascontiguousarray(a) for a in (centre, half, radius, turn,
                                                                                       triangles, limit))
    rows = np.ascontiguousarray(rows, np.int64)
    R = len(rows)
    if not R:
        return True
    scratch_distance, scratch_vectors, scratch_state = np.empty(R), np.empty((R, 9)), np.empty(R, np.int8)
    status = _LIB.pvu_cylinder_triangles_closest(
        R, address(rows), address(centre), address(half), address(radius), address(turn), address(triangles),
        address(limit), address(distance), address(w0), address(w1), address(normal), address(scratch_distance),
        address(scratch_vectors), address(scratch_state))
    return status == 0


def cylinder_triangles_points(centre: np.ndarray, axis: np.ndarray, half: np.ndarray, radius: np.ndarray,
                              triangles: np.ndarray, made: np.ndarray, normal: np.ndarray, w0: np.ndarray,
                              w1: np.ndarray, margin: np.ndarray, group: np.ndarray):
    """`cylinder_triangles`' points of its P pairs (its arguments, and its closest stage's: the pairs `made`, their
    axes `normal`, witnesses w0 and w1 (the triangle's pushed out by its `margin`)): (pair, point, normal,
    separation) as the Python code returns them, to the bit; None where the extension is not loaded or numpy's BLAS
    adds otherwise, the arrays are not of its types, or a pair needs the Python code (a NaN it sorts)."""
    P = len(centre)
    floats = (centre, axis, half, radius, triangles, normal, w0, w1, margin)
    shapes = ((P, 3), (P, 3), (P,), (P,), (P, 3, 3), (P, 3), (P, 3), (P, 3), (P,))
    if not _FUSED or not hasattr(_LIB, "pvu_cylinder_triangles_points"):
        return None
    if any(a.dtype != np.float64 or a.shape != s for a, s in zip(floats, shapes)):
        return None
    if made.dtype != np.bool_ or made.shape != (P,) or group.dtype != np.int64 or group.shape != (P,):
        return None
    centre, axis, half, radius, triangles, normal, w0, w1, margin, made, group = (
        np.ascontiguousarray(a) for a in (*floats, made, group))
    pair, point = np.empty(4 * P, np.int64), np.empty((4 * P, 3))
    out_normal, separation = np.empty((4 * P, 3)), np.empty(4 * P)
    count = _LIB.pvu_cylinder_triangles_points(
        P, address(centre), address(axis), address(half), address(radius), address(triangles), address(made),
        address(normal), address(w0), address(w1), address(margin), address(group), address(pair),
        address(point), address(out_normal), address(separation))
    if count < 0:
        return None
    return pair[:count], point[:count], out_normal[:count], separation[:count]
