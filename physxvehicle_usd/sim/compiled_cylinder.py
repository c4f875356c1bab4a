"""The closest features of exact cylinders and mesh triangles, compiled (sim/_cylinder_triangles.c, in the extension
sim/extension.py opens): PhysX's reference GJK and EPA between a wheel's cylinder core and a triangle, as
sim/contact/gjk_epa.py `gjk_distance` and `epa_depth` compute them in float32 (numpy float32 scalars, an operation at
a time), the same operations in the same order on C floats: the same bits. The numpy code stays the reference
(tests/test_sim_cylinder_compiled.py holds the two to each other, to the bit)."""
from __future__ import annotations

import ctypes

import numpy as np

from .extension import address, open_extension

_P = ctypes.c_void_p


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_cylinder_triangles_closest")  # (an extension built before it: numpy runs)
    if lib is None:
        return None
    lib.pvu_cylinder_triangles_closest.argtypes = [ctypes.c_int64] + [_P] * 14
    lib.pvu_cylinder_triangles_closest.restype = ctypes.c_int
    return lib


_LIB = _load()


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
