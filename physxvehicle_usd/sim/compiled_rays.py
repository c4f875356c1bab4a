"""The suspension raycasts against a ground of planes alone, compiled (sim/_plane_rays.c, in the extension
sim/compiled.py loads): what it covers, and the call.

ground.raycast's plane loop costs some twenty numpy calls a plane for a handful of rays; the C loop does the same
float32 arithmetic in the same order, ray by ray. The numpy loop stays the reference (tests/test_sim_compiled_rays.py
holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import operator
from typing import TYPE_CHECKING

import numpy as np

from .extension import Kinds, address, addresses, check_struct_size, kind_addresses, open_extension
from .memo import LastValue

if TYPE_CHECKING:
    from .state import SimParams

_P = ctypes.c_void_p


class _RoadPlanes(ctypes.Structure):
    """Mirror of `RoadPlanes` in _plane_rays.c (the loader compares its size with the extension's)."""

    _fields_ = ([(name, ctypes.c_int64) for name in ("R", "P", "S")]
                + [(name, _P) for name in "normals offsets friction radius travel mask table hub direction "
                                          "block".split()]
                + [("at", ctypes.c_int64 * 5)])


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_plane_rays")  # (an extension built before it: numpy casts the rays)
    if lib is None:
        return None
    lib.pvu_plane_rays.argtypes = [ctypes.c_int64, ctypes.c_int64] + [_P] * 9
    lib.pvu_plane_rays.restype = ctypes.c_int
    if hasattr(lib, "pvu_road_planes"):  # (an extension built before it: the road from plane_rays' hits)
        check_struct_size(lib, "pvu_road_planes_size", _RoadPlanes, "compiled_rays.py")
        lib.pvu_road_planes.argtypes = [ctypes.POINTER(_RoadPlanes)]
        lib.pvu_road_planes.restype = ctypes.c_int
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


# the batch's parameters `road_on_planes` reads, by the dtype the C code takes them in
_ROAD_PARAMS = (("radius", np.float32), ("travel_distance", np.float32), ("mask", np.bool_),
                ("friction_table_id", np.int64))
_road_params = operator.attrgetter(*(name for name, _ in _ROAD_PARAMS))
# the outputs of a call, in RoadGeometry's order: hit, normal, offset, friction, shape
_ROAD_FIELDS = ("hit", "normal", "offset", "friction", "shape")
_road = operator.itemgetter(*_ROAD_FIELDS)
_RAY_KINDS = Kinds((np.float32, np.float32))


class _RoadLayout:
    """One SimParams' part of `road_on_planes`, set up once per ground and friction matrix: whether the call covers
    them, the struct with the sizes and the parameters', planes' and frictions' addresses filled in, and the structured
    type of a call's block (each output's place in it)."""

    def __init__(self, p: SimParams, ground, friction: np.ndarray):
        self.ground, self.friction = ground, friction  # (what it was made for: kept alive, their ids its key)
        sources = _road_params(p)
        normals, offsets = ground.plane_normals, ground.plane_offsets
        R, P = p.V * p.W, normals.shape[0]
        self.covered = (_LIB is not None and hasattr(_LIB, "pvu_road_planes") and R > 0 and not p.any_sweep
                        and ground.grid is None and ground.round_ends is None
                        and normals.dtype == np.float64 and offsets.dtype == np.float64
                        and normals.flags.c_contiguous and offsets.flags.c_contiguous
                        and friction.dtype == np.float64 and friction.ndim == 2 and friction.flags.c_contiguous
                        and friction.shape[1] >= max(P, 1)
                        and all(value.dtype == dtype and value.flags.c_contiguous and value.shape == (p.V, p.W)
                                for (_, dtype), value in zip(_ROAD_PARAMS, sources)))
        # (numpy's friction[table, shape] raises on a table outside the matrix: numpy's path says so)
        self.covered = self.covered and bool(((sources[3] >= 0) & (sources[3] < friction.shape[0])).all())
        if not self.covered:
            return
        self.keep = (normals, offsets, friction) + sources  # what the struct points into
        c = self.call = _RoadPlanes()
        c.R, c.P, c.S = R, P, friction.shape[1]
        c.normals, c.offsets, c.friction, c.radius, c.travel, c.mask, c.table = addresses(self.keep)
        self.block = np.dtype([("shape", np.int64, (p.V, p.W)), ("normal", np.float32, (3, p.V, p.W)),
                               ("offset", np.float32, (p.V, p.W)), ("friction", np.float32, (p.V, p.W)),
                               ("hit", np.bool_, (p.V, p.W))], align=True)
        c.at[:] = [self.block.fields[name][1] for name in _ROAD_FIELDS]  # (where each output lies in a block)


# the batch's `_RoadLayout`, made again where one of the parameters it reads was replaced since (sim/memo.py)
_ROAD_LAYOUTS = LastValue(*(name for name, _ in _ROAD_PARAMS), "any_sweep")


def road_on_planes(p: SimParams, ground, friction: np.ndarray, hub: np.ndarray, direction: np.ndarray):
    """suspension.query_road_geometry's road (hit & mask, normal, offset, friction rounded to float32, shape; views of
    one new block) of the wheels' rays from their hubs at maximum compression along their suspension directions
    (3, V, W float32 each), unfiltered, in one C call; None where the call does not cover the batch, ground, friction
    matrix or rays (numpy's then)."""
    if _LIB is None:
        return None
    # (by the ground's and the matrix's ids: the layout keeps both alive, so no other object takes either id)
    layout = _ROAD_LAYOUTS.get(p, (id(ground), id(friction)), lambda: _RoadLayout(p, ground, friction))
    # (the rays' addresses where float32 and C-contiguous, in one C call)
    rays = kind_addresses((hub, direction), _RAY_KINDS) if layout.covered else None
    if rays is None or not hub.shape == direction.shape == (3, p.V, p.W):
        return None
    raw = np.empty(layout.block.itemsize, np.uint8)  # (a byte buffer: its address at once)
    block = np.ndarray((), layout.block, raw)
    c = layout.call
    c.hub, c.direction = rays
    c.block = address(raw)
    _LIB.pvu_road_planes(c)
    return _road(block)

