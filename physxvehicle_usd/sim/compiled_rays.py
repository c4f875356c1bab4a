"""The suspension raycasts against a ground of planes alone, compiled (sim/_plane_rays.c, in the extension
sim/compiled.py loads): what it covers, and the call.

ground.raycast's plane loop costs some twenty numpy calls a plane for a handful of rays; the C loop does the same
float32 arithmetic in the same order, ray by ray. The numpy loop stays the reference (tests/test_sim_compiled_rays.py
holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes

import numpy as np

from .extension import address, open_extension

_P = ctypes.c_void_p


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_plane_rays")  # (an extension built before it: numpy casts the rays)
    if lib is None:
        return None
    lib.pvu_plane_rays.argtypes = [ctypes.c_int64, ctypes.c_int64] + [_P] * 9
    lib.pvu_plane_rays.restype = ctypes.c_int
    return lib


_LIB = _load()


def available() -> bool:
    """Whether the extension with the compiled plane raycasts is built and loaded."""
    return _LIB is not None


def covers(ground, origin: np.ndarray, direction: np.ndarray, length: np.ndarray) -> bool:
    """Whether the compiled raycasts implement these: a ground of planes alone (float64 normals and offsets), float32
    rays and lengths (the numpy loop's precision is then float32)."""
    return (_LIB is not None and ground.grid is None and ground.round_ends is None
            and origin.dtype == np.float32 and direction.dtype == np.float32 and length.dtype == np.float32
            and ground.plane_normals.dtype == np.float64 and ground.plane_offsets.dtype == np.float64)



def plane_rays(ground, o: np.ndarray, d: np.ndarray, L: np.ndarray):
    """(hit (R,) bool, normal (3, R) float32, offset (R,) float32, shape (R,) int64) of rays o, d (3, R), lengths L
    (R,), where `covers`: ground.raycast's, without a filter."""
    R = L.shape[0]
    normals = np.ascontiguousarray(ground.plane_normals)
    offsets = np.ascontiguousarray(ground.plane_offsets)
    o, d, L = np.ascontiguousarray(o), np.ascontiguousarray(d), np.ascontiguousarray(L)
    block = np.empty(4 * R, np.float32)  # the normals (3, R) and offsets (R,)
    hit, shape = np.empty(R, bool), np.empty(R, np.int64)
    if R:
        at = address(block)
        _LIB.pvu_plane_rays(R, normals.shape[0], address(normals), address(offsets), address(o), address(d),
                            address(L), address(hit), at, at + 4 * 3 * R, address(shape))
    return hit, block[:3 * R].reshape(3, R), block[3 * R:], shape
