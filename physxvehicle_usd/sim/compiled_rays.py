"""The suspension raycasts, compiled (sim/_plane_rays.c, in the extension sim/compiled.py loads): against a ground of
planes alone (`plane_rays`), and the whole road query of suspension.query_road_geometry on a ground of planes and
meshes (`road_on_ground`, the meshes through sim/compiled_mesh.py's raycast): what each covers, and the call.

ground.raycast's plane loop costs some twenty numpy calls a plane for a handful of rays; the C loop does the same
float32 arithmetic in the same order, ray by ray. The road's call does in one C call, with its struct kept from step
to step, what the numpy lines around the raycast do (the rays from the hubs, the mask, the friction look-up). The
numpy lines stay the reference (tests/test_sim_compiled_rays.py holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import operator
from typing import TYPE_CHECKING

import numpy as np

from . import compiled_mesh
from .extension import Kinds, address, addresses, check_struct_size, open_extension, write_kind_addresses
from .memo import LastValue

if TYPE_CHECKING:
    from .state import SimParams

_P = ctypes.c_void_p


class _RoadGround(ctypes.Structure):
    """Mirror of `RoadGround` in _plane_rays.c (the loader compares its size with the extension's)."""

    _fields_ = ([(name, ctypes.c_int64) for name in ("R", "P", "S")]
                + [(name, _P) for name in "normals offsets friction radius travel mask table hub direction "
                                          "block".split()]
                + [("at", ctypes.c_int64 * 5), ("allowed", _P), ("key", _P), ("shape_count", ctypes.c_int64)]
                + [(name, _P) for name in "grid rays origin length scratch".split()])


# (`road_on_ground` writes the hub's, the direction's and the block's addresses as three words from the hub's field)
assert _RoadGround.direction.offset == _RoadGround.hub.offset + 8 == _RoadGround.block.offset - 8


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_plane_rays")  # (an extension built before it: numpy casts the rays)
    if lib is None:
        return None
    lib.pvu_plane_rays.argtypes = [ctypes.c_int64, ctypes.c_int64] + [_P] * 9
    lib.pvu_plane_rays.restype = ctypes.c_int
    if hasattr(lib, "pvu_road_ground"):  # (an extension built before it: the road from the rays' hits)
        check_struct_size(lib, "pvu_road_ground_size", _RoadGround, "compiled_rays.py")
        lib.pvu_road_ground.argtypes = [_P]  # (the struct's address: `_RoadLayout.at`)
        lib.pvu_road_ground.restype = ctypes.c_int
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


# the batch's parameters `road_on_ground` reads, by the dtype the C code takes them in
_ROAD_PARAMS = (("radius", np.float32), ("travel_distance", np.float32), ("mask", np.bool_),
                ("friction_table_id", np.int64))
_road_params = operator.attrgetter(*(name for name, _ in _ROAD_PARAMS))
# the outputs of a call, in RoadGeometry's order: hit, normal, offset, friction, shape
_ROAD_FIELDS = ("hit", "normal", "offset", "friction", "shape")
_road = operator.itemgetter(*_ROAD_FIELDS)
_RAY_KINDS = Kinds((np.float32, np.float32, np.bool_), writable=(2,))  # hub, direction, the outputs' block


def _plane_arrays(ground) -> tuple[np.ndarray, np.ndarray] | None:
    """The ground's planes as the C code reads them (float64, C-contiguous); None where they are not."""
    normals, offsets = ground.plane_normals, ground.plane_offsets
    if (normals.dtype != np.float64 or offsets.dtype != np.float64 or not normals.flags.c_contiguous
            or not offsets.flags.c_contiguous or normals.shape != (len(offsets), 3)):
        return None
    return normals, offsets


class _RoadLayout:
    """One SimParams' part of `road_on_ground`, set up once per ground, friction matrix, filter, culling epsilon and
    thread count: whether the call covers them, the struct with the sizes and the parameters', ground's, frictions'
    and filter's addresses filled in (on a ground with meshes, the mesh raycast's struct and the rays' room too), and
    the structured type of a call's block (each output's place in it)."""

    def __init__(self, p: SimParams, ground, friction: np.ndarray, ground_filter, culling_epsilon: float,
                 threads: int):
        # (what it was made for: kept alive, their ids its key)
        self.ground, self.friction, self.ground_filter = ground, friction, ground_filter
        self.covered = False
        sources = _road_params(p)
        R, planes = p.V * p.W, _plane_arrays(ground)
        # the ground's shapes the rays may hit: its planes, then (where the C raycast covers it) its meshes' shapes
        columns = (None if planes is None or ground.round_ends is not None or _LIB is None
                   or not hasattr(_LIB, "pvu_road_ground") or R <= 0 or p.any_sweep
                   else len(planes[1]) if ground.grid is None else compiled_mesh.shape_columns(ground))
        if (columns is None or friction.dtype != np.float64 or friction.ndim != 2 or not friction.flags.c_contiguous
                or friction.shape[1] < max(columns, 1)
                or not all(value.dtype == dtype and value.flags.c_contiguous and value.shape == (p.V, p.W)
                           for (_, dtype), value in zip(_ROAD_PARAMS, sources))):
            return
        # (numpy's friction[table, shape] raises on a table outside the matrix: numpy's path says so)
        if not ((sources[3] >= 0) & (sources[3] < friction.shape[0])).all():
            return
        read = None if ground_filter is None else compiled_mesh.filter_arrays(
            ground_filter.allowed, ground_filter.query_key.reshape(-1), columns)
        if ground_filter is not None and (read is None or read[1].shape != (R,)):
            return
        meshes = None if ground.grid is None else compiled_mesh.road_rays(ground, R, read, culling_epsilon, threads)
        if ground.grid is not None and meshes is None:
            return
        self.covered = True
        # what the struct points into
        self.keep = planes + (friction,) + sources + (() if read is None else read)
        c = self.call = _RoadGround()
        c.R, c.P, c.S = R, len(planes[1]), friction.shape[1]
        c.normals, c.offsets, c.friction, c.radius, c.travel, c.mask, c.table = addresses(self.keep[:7], True)
        if read is not None:
            c.allowed, c.key = addresses(read)
            c.shape_count = read[0].shape[1]
        if meshes is not None:
            self.meshes, self.rays = meshes, np.empty(4 * R, np.float32)  # (the origins (3, R), then the lengths)
            self.scratch = np.empty(19 * R, np.int64)
            c.grid, c.rays = meshes.grid, meshes.rays
            c.origin, c.scratch = addresses((self.rays, self.scratch))
            c.length = c.origin + 4 * 3 * R
        self.block = np.dtype([("shape", np.int64, (p.V, p.W)), ("normal", np.float32, (3, p.V, p.W)),
                               ("offset", np.float32, (p.V, p.W)), ("friction", np.float32, (p.V, p.W)),
                               ("hit", np.bool_, (p.V, p.W))], align=True)
        c.at[:] = [self.block.fields[name][1] for name in _ROAD_FIELDS]  # (where each output lies in a block)
        self.at, self.rays_shape = ctypes.addressof(c), (3, p.V, p.W)
        self.rays_at = self.at + _RoadGround.hub.offset  # (hub, direction and block, side by side)


# the batch's `_RoadLayout`, made again where one of the parameters it reads was replaced since (sim/memo.py)
_ROAD_LAYOUTS = LastValue(*(name for name, _ in _ROAD_PARAMS), "any_sweep")


def road_on_ground(p: SimParams, ground, friction: np.ndarray, hub: np.ndarray, direction: np.ndarray,
                   ground_filter, culling_epsilon: float, threads: int = 1):
    """suspension.query_road_geometry's road (hit & mask, normal, offset, friction rounded to float32, shape; views of
    one new block) of the wheels' rays from their hubs at maximum compression along their suspension directions
    (3, V, W float32 each), on a ground of planes and meshes (no sphere or capsule), filtered by ground_filter
    (sim/query_groups.GroundFilter; None: unfiltered), triangles whose determinant is below culling_epsilon culled,
    on `threads` threads where there are meshes (the same bits for any count), in one C call; None where the call
    does not cover the batch, ground, friction matrix, filter or rays (numpy's then)."""
    if _LIB is None:
        return None
    # (by the ground's, the matrix's and the filter's ids: the layout keeps them alive, so no other object takes one)
    layout = _ROAD_LAYOUTS.get(p, (id(ground), id(friction), id(ground_filter), culling_epsilon, threads),
                               lambda: _RoadLayout(p, ground, friction, ground_filter, culling_epsilon, threads))
    if not layout.covered or not hub.shape == direction.shape == layout.rays_shape:
        return None
    raw = np.empty(layout.block.itemsize, np.bool_)  # (a byte buffer: its address at once)
    # (the rays' and the block's addresses written into the struct where the rays are float32 and C-contiguous, in
    # one C call: its hub, direction and block lie side by side)
    if not write_kind_addresses((hub, direction, raw), _RAY_KINDS, layout.rays_at) or _LIB.pvu_road_ground(
            layout.at) < 0:
        return None
    return _road(np.ndarray((), layout.block, raw))
