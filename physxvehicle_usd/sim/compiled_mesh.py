"""The compiled mesh queries (sim/_mesh_queries.c, in the extension sim/compiled.py loads): the triangle grid's
candidate pairs and the closest-hit raycast against the ground's triangles, and the calls that run them.

`TriangleGrid.pairs`, ground.py's `box_pairs` and `mesh_hits` call here when the extension is loaded and the grid is
float64 (as `Ground.from_description` builds it) and the queries float32 or float64; otherwise, or where a query's
box is one the nested loops of the C code do not reproduce (a NaN, an inverted box), their numpy twins run
(`TriangleGrid.numpy_pairs`, `box_pairs_numpy`, `mesh_hits_numpy`), which stay the reference:
tests/test_sim_mesh_queries.py holds the two to each other, to the bit and the pair order.
"""
from __future__ import annotations

import ctypes
import operator
import threading
import weakref

import numpy as np

from .extension import addresses, check_struct_size, open_extension, words_type, write_addresses

_P = ctypes.c_void_p
_I64, _F64 = ctypes.c_int64, ctypes.c_double
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class _MeshGrid(ctypes.Structure):
    """Mirror of `MeshGrid` in _mesh_queries.c (the loader compares its size with the extension's)."""

    _fields_ = ([(name, _I64) for name in "axis0 axis1 up size0 size1 triangle_count blocks1".split()]
                + [(name, _F64) for name in "origin0 origin1 cell".split()]
                + [(name, _P) for name in "reach cells entries triangles blocks tall".split()])


class _MeshRays(ctypes.Structure):
    """Mirror of `MeshRays` in _mesh_queries.c."""

    _fields_ = ([("R", _I64)]
                + [(name, _P) for name in "lo hi origin direction length epsilon normals tri_shape".split()]
                + [("plane_count", _I64), ("allowed", _P), ("key", _P), ("shape_count", _I64),
                   ("culling_epsilon", _F64), ("single", _I64)]
                + [(name, _P) for name in "best_t best_n best_shape".split()] + [("threads", _I64)])


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_ground_rays")  # (an extension built before these queries: numpy runs them)
    if lib is None:
        return None
    for name, mirror in (("pvu_mesh_grid_size", _MeshGrid), ("pvu_mesh_rays_size", _MeshRays)):
        check_struct_size(lib, name, mirror, "compiled_mesh.py")
    grid = ctypes.POINTER(_MeshGrid)
    lib.pvu_mesh_pairs.argtypes = [grid, _I64, _P, _P, ctypes.c_int, _P, _I64, _P, _P, _I64, _P, _P]
    lib.pvu_mesh_pairs.restype = _I64
    lib.pvu_mesh_raycast.argtypes = [grid, ctypes.POINTER(_MeshRays), _P]
    lib.pvu_mesh_raycast.restype = _I64
    lib.pvu_mesh_entries.argtypes = [_I64, _I64, _P, _P, _P, _P, _P]
    lib.pvu_mesh_entries.restype = None
    lib.pvu_static_pairs.argtypes = [grid, _I64, _P, _P, _P, _P, _I64, _P, _P, _P] + [_I64] * 5 + [_P] * 5 + [_I64]
    lib.pvu_static_pairs.restype = _I64
    lib.pvu_static_pairs_words.argtypes = [_P]
    lib.pvu_static_pairs_words.restype = _I64
    lib.pvu_ground_rays.argtypes = [grid, ctypes.POINTER(_MeshRays), _I64] + [_P] * 8
    lib.pvu_ground_rays.restype = _I64
    return lib


_LIB = _load()


def available() -> bool:
    """Whether the extension with the compiled mesh queries is built and loaded."""
    return _LIB is not None


def _covers(grid) -> bool:
    """Whether the C code reproduces numpy's arithmetic on this grid: its arrays float64 (numpy then promotes the
    queries to float64 wherever they meet it) and of the layout `TriangleGrid.build` makes."""
    if _LIB is None:
        return False
    T, cells = grid.triangle_boxes.shape[1], grid.size[0] * grid.size[1]
    return (T < 2 ** 31 and grid.triangle_boxes.dtype == np.float64 and grid.origin.dtype == np.float64
            and grid.cell_low.dtype == np.float64 and grid.cell_high.dtype == np.float64
            and grid.triangle_columns.dtype == np.float64 and grid.first_cell.dtype == np.int64
            and grid.starts.dtype == np.int64 and grid.triangles.dtype == np.int64
            and grid.triangle_boxes.shape == (6, T) and grid.triangle_columns.shape == (9, T)
            and grid.first_cell.shape == (T, 2) and grid.starts.shape == (cells + 1,)
            and grid.cell_low.shape == grid.cell_high.shape == (cells,) and grid.origin.shape == (2,))


def _boxes(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The query boxes as float64 (Q, 3), exactly (None: a dtype numpy would not promote to float64 that way)."""
    if lo.dtype not in _FLOATS or hi.dtype not in _FLOATS or lo.ndim != 2 or lo.shape[1] != 3 or hi.shape != lo.shape:
        return None
    return np.ascontiguousarray(lo, dtype=np.float64), np.ascontiguousarray(hi, dtype=np.float64)


def _aligned(shape: tuple[int, int], dtype=np.float64) -> np.ndarray:
    """An empty array whose rows start on 64-byte boundaries (a cache line) where a row's bytes divide 64 or are a
    multiple of it."""
    itemsize = np.dtype(dtype).itemsize
    count = shape[0] * shape[1]
    raw = np.empty(count + 64 // itemsize, dtype)
    start = (-raw.ctypes.data % 64) // itemsize
    return raw[start:start + count].reshape(shape)


BLOCK_SHIFT = 3  # _mesh_queries.c's blocks: 8 x 8 cells
# _mesh_queries.c's CellEntry (8 four-byte words): the triangle's box rounded outwards to float32 (6), its index, and
# whether the entry's cell is in the first row (bit 0) and the first column (bit 1) of the triangle's range
_ENTRY_WORDS = 8


def _outwards(box: np.ndarray, down: bool) -> np.ndarray:
    """float64 box coordinates as float32 no greater (down) or no less than them."""
    rounded = box.astype(np.float32)
    stepped = np.nextafter(rounded, np.float32(-np.inf if down else np.inf))
    return np.where(rounded > box if down else rounded < box, stepped, rounded)


def _layout(grid) -> tuple[np.ndarray, ...]:
    """The grid's records as _mesh_queries.c reads them: the cells' reach (CellReach: low, high rounded outwards to
    float32), cells (GridCell: low, high, start, end), entries (CellEntry), triangles (Triangle: box, v0, e1, e2, 128
    bytes each), blocks (Block: low, high), each block's cells by their height (TallCell)."""
    T, (size0, size1) = grid.triangle_boxes.shape[1], grid.size
    cells = _aligned((size0 * size1, 4))
    cells[:, 0], cells[:, 1] = grid.cell_low, grid.cell_high
    cells[:, 2:].view(np.int64)[:] = np.column_stack((grid.starts[:-1], grid.starts[1:]))
    reach = np.column_stack((_outwards(grid.cell_low, down=True), _outwards(grid.cell_high, down=False)))
    listed = np.ascontiguousarray(grid.triangles)
    box32 = np.empty((T, _ENTRY_WORDS), np.float32)  # each triangle's entry but for the first-cell bits
    box32[:, :3] = _outwards(grid.triangle_boxes[:3].T, down=True)
    box32[:, 3:6] = _outwards(grid.triangle_boxes[3:].T, down=False)
    box32[:, 6:].view(np.int32)[:, 0] = np.arange(T, dtype=np.int32)
    box32[:, 7] = 0.0
    entries = np.empty((len(listed), _ENTRY_WORDS), np.float32)
    starts, first = np.ascontiguousarray(grid.starts), np.ascontiguousarray(grid.first_cell)
    _LIB.pvu_mesh_entries(size0, size1, starts.ctypes.data, listed.ctypes.data, box32.ctypes.data, first.ctypes.data,
                          entries.ctypes.data)
    triangles = _aligned((T, 16))
    triangles[:, :6] = grid.triangle_boxes.T
    triangles[:, 6:15] = grid.triangle_columns.T
    triangles[:, 15] = 0.0
    blocks0, blocks1 = -(-size0 >> BLOCK_SHIFT), -(-size1 >> BLOCK_SHIFT)
    pad = ((0, (blocks0 << BLOCK_SHIFT) - size0), (0, (blocks1 << BLOCK_SHIFT) - size1))
    block_shape = (blocks0, 1 << BLOCK_SHIFT, blocks1, 1 << BLOCK_SHIFT)
    low = np.pad(grid.cell_low.reshape(size0, size1), pad, constant_values=np.inf).reshape(block_shape)
    high = np.pad(grid.cell_high.reshape(size0, size1), pad, constant_values=-np.inf).reshape(block_shape)
    blocks = np.column_stack((low.min(axis=(1, 3)).ravel(), high.max(axis=(1, 3)).ravel()))
    # each block's cells, the highest first (TallCell: high rounded upwards to float32, cell; padding: -inf, 0)
    cell = np.pad(np.arange(size0 * size1).reshape(size0, size1), pad).reshape(block_shape)
    up32 = np.pad(reach[:, 1].reshape(size0, size1), pad, constant_values=-np.inf).reshape(block_shape)
    cell, up32 = (a.transpose(0, 2, 1, 3).reshape(blocks0 * blocks1, -1) for a in (cell, up32))
    order = np.argsort(-up32, axis=1, kind="stable")
    tall = np.empty((blocks0 * blocks1, 2 << (2 * BLOCK_SHIFT)), np.float32)
    tall[:, 0::2] = np.take_along_axis(up32, order, axis=1)
    tall[:, 1::2].view(np.int32)[:] = np.take_along_axis(cell, order, axis=1)
    return reach, cells, entries, triangles, blocks, tall


# by id(grid): the grid (a weak reference), its struct, the arrays it points into, and the room the grid's last pair
# queries needed (by overlap and mesh boxes given)
_grid_structs: dict[int, tuple[weakref.ref, _MeshGrid, tuple, dict]] = {}


def _grid_struct(grid) -> tuple[_MeshGrid, dict] | None:
    """The grid's struct and its pair queries' room, made once per grid (a grid is frozen; `prepare`) and kept while
    the grid lives; None where the C code does not cover the grid (`_covers`)."""
    cached = _grid_structs.get(id(grid))
    if cached is not None and cached[0]() is grid:
        return cached[1], cached[3]
    if not _covers(grid):
        return None
    arrays = _layout(grid)
    up = 3 - grid.axes[0] - grid.axes[1]
    g = _MeshGrid(grid.axes[0], grid.axes[1], up, grid.size[0], grid.size[1], grid.triangle_boxes.shape[1],
                  -(-grid.size[1] >> BLOCK_SHIFT), float(grid.origin[0]), float(grid.origin[1]), float(grid.cell),
                  *(a.ctypes.data for a in arrays))
    key = id(grid)
    rooms: dict[tuple, int] = {}
    _grid_structs[key] = (weakref.ref(grid, lambda _, key=key: _grid_structs.pop(key, None)), g, arrays, rooms)
    return g, rooms


def prepare(grid) -> None:
    """Lay out the grid's records for the C code now (where it covers the grid), not at its first query: a road of a
    hundred thousand triangles takes a tenth of a second, which belongs to loading the ground, not to a step."""
    _grid_struct(grid)


def grid_pairs(grid, lo: np.ndarray, hi: np.ndarray, overlap: bool,
               mesh_boxes: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """`TriangleGrid.numpy_pairs` of the query boxes lo, hi (Q, 3) (overlap False), or those pairs whose boxes overlap
    the triangle's (`box_pairs_numpy`, overlap True), the same pairs in the same order; None where the C code does not
    cover the grid or the queries (the caller runs numpy). mesh_boxes: (each triangle's mesh (T,), whether a mesh's
    triangles overlap by the mesh's box (M,) bool, those boxes (M, 6): low corner, high corner), or None."""
    struct = _grid_struct(grid)
    boxes = None if struct is None else _boxes(lo, hi)
    if boxes is None:
        return None
    if mesh_boxes is not None:
        tri_shape, mesh_boxed, mesh_box = mesh_boxes
        mesh_boxes = (np.ascontiguousarray(tri_shape, dtype=np.int64), np.ascontiguousarray(mesh_boxed, dtype=bool),
                      np.ascontiguousarray(mesh_box, dtype=np.float64))
        if (mesh_box.dtype not in _FLOATS or mesh_boxes[2].shape != (len(mesh_boxed), 6)
                or mesh_boxes[0].shape != (grid.triangle_boxes.shape[1],)):
            return None
    extra = (None, 0, None, None) if mesh_boxes is None else (
        mesh_boxes[0].ctypes.data, len(mesh_boxes[1]), mesh_boxes[1].ctypes.data, mesh_boxes[2].ctypes.data)
    lo, hi = boxes
    g, rooms = struct
    key = (bool(overlap), mesh_boxes is None)
    room = rooms.get(key, 4 * len(lo) + 1024)
    for _ in range(2):  # the room the last call needed; then, where that is short, the room this one needs
        query, tri = np.empty(room, np.int64), np.empty(room, np.int64)
        n = _LIB.pvu_mesh_pairs(ctypes.byref(g), len(lo), lo.ctypes.data, hi.ctypes.data, int(overlap), *extra, room,
                                query.ctypes.data, tri.ctypes.data)
        if n < 0:
            return None
        if n <= room:
            break
        room = n
    rooms[key] = max(n + n // 4, 1024)
    return query[:n], tri[:n]


def _filter_covered(allowed: np.ndarray, key: np.ndarray, tri_shape: np.ndarray, plane_count: int) -> bool:
    """Whether the C code reads the filter as numpy does: numpy's indexing would wrap a negative key, reject one out of
    range, and take an integer `allowed` for indices, not a mask."""
    if allowed.dtype != bool or allowed.ndim != 2 or key.dtype.kind not in "iu":
        return False
    if len(key) and (key.min() < 0 or key.max() >= allowed.shape[0]):
        return False
    return allowed.shape[1] >= plane_count + (int(tri_shape.max()) + 1 if len(tri_shape) else 0)


def mesh_hits(grid, lo: np.ndarray, hi: np.ndarray, origin: np.ndarray, direction: np.ndarray, length: np.ndarray,
              epsilon: np.ndarray | None, normals: np.ndarray, tri_shape: np.ndarray, plane_count: int,
              allowed: np.ndarray | None, key: np.ndarray | None, culling_epsilon: float, best_t: np.ndarray,
              best_n: np.ndarray, best_shape: np.ndarray) -> bool:
    """`mesh_hits_numpy` for rays origin, direction (3, R), length (R,) whose segments' boxes are lo, hi (R, 3):
    best_t (R,), best_n (3, R) (both float32 or both float64) and best_shape (R,) int64 lowered in place to each ray's
    closest hit among the triangles it may hit (allowed[key[ray], plane_count + tri_shape[triangle]]; allowed None:
    all). Returns False, having written nothing, where the C code does not cover the call (the caller runs numpy)."""
    R, T = len(length), grid.triangle_boxes.shape[1]
    struct = _grid_struct(grid)
    boxes = None if struct is None else _boxes(lo, hi)
    if (boxes is None or boxes[0].shape != (R, 3) or origin.shape != (3, R) or direction.shape != (3, R)
            or tri_shape.shape != (T,) or normals.shape != (T, 3) or (epsilon is not None and epsilon.shape != (T,))
            or best_t.dtype not in _FLOATS
            or best_n.dtype != best_t.dtype or best_shape.dtype != np.int64
            or not all(a.flags.c_contiguous for a in (best_t, best_n, best_shape))
            or best_t.shape != (R,) or best_n.shape != (3, R) or best_shape.shape != (R,)
            or any(a.dtype not in _FLOATS for a in (origin, direction, length))
            or (epsilon is not None and epsilon.dtype != np.float64) or normals.dtype not in _FLOATS):
        return False
    if allowed is not None and not _filter_covered(allowed, key, tri_shape, plane_count):
        return False
    lo, hi = boxes
    arrays = [lo, hi] + [np.ascontiguousarray(a, dtype=np.float64) for a in (origin, direction, length)]
    arrays += [None if epsilon is None else np.ascontiguousarray(epsilon),
               np.ascontiguousarray(normals, dtype=np.float64), np.ascontiguousarray(tri_shape, dtype=np.int64)]
    if allowed is not None:
        arrays += [np.ascontiguousarray(allowed, dtype=bool).view(np.uint8), np.ascontiguousarray(key, dtype=np.int64)]
    else:
        arrays += [None, None]
    pointers = [None if a is None else a.ctypes.data for a in arrays]
    m = _MeshRays(R, *pointers[:8], plane_count, pointers[8], pointers[9],
                  0 if allowed is None else allowed.shape[1], culling_epsilon, int(best_t.dtype == np.float32),
                  best_t.ctypes.data, best_n.ctypes.data, best_shape.ctypes.data)
    g, _ = struct
    first_cell = np.empty(6 * R, np.int64)  # (the C code's room for each ray's cells and closest hit)
    return _LIB.pvu_mesh_raycast(ctypes.byref(g), ctypes.byref(m), first_cell.ctypes.data) == 0


class _StaticWords:
    """`pvu_static_pairs_words`' words (the grid's and the model's written once; `at`: their address)."""

    def __init__(self, first: list[int]):
        self.words = words_type(18)(*first)
        self.at = ctypes.addressof(self.words)


def _static_model(rooms: dict, g: _MeshGrid, bounds: np.ndarray, mesh_boxes: tuple, collides: np.ndarray):
    """What `static_pairs` hands over of the model's arrays (bounds, mesh_boxes, collides), checked and their addresses
    taken once while they are the same arrays (kept in the grid's `rooms`, per model): (the arguments as
    `pvu_static_pairs_words`' words, the hull count they point at); None where the C code
    does not cover them. The arrays are C-contiguous (checked), so C reads them as they are at each call."""
    models = rooms.setdefault("static_models", {})  # (by the collision filter's id: a model each, shards side by side)
    kept = models.get(id(collides))
    sources = (bounds, *mesh_boxes, collides)
    if kept is not None and all(map(operator.is_, kept[0], sources)):
        return kept[1]
    tri_shape, mesh_boxed, mesh_box = mesh_boxes
    if (collides.dtype != bool or not collides.flags.c_contiguous
            or tri_shape.dtype != np.int64 or mesh_boxed.dtype != bool or mesh_box.dtype != np.float64
            or bounds.dtype != np.float64 or not bounds.flags.c_contiguous
            or not (tri_shape.flags.c_contiguous and mesh_boxed.flags.c_contiguous and mesh_box.flags.c_contiguous)
            or mesh_box.shape != (len(mesh_boxed), 6) or tri_shape.shape != (g.triangle_count,)):
        return None
    hull_count = ctypes.c_int64()
    bounds_at, tri_shape_at, mesh_boxed_at, mesh_box_at, collides_at = addresses(
        (bounds, tri_shape, mesh_boxed, mesh_box, collides))
    words = _StaticWords([ctypes.addressof(g)] + [0] * 9 + [bounds_at, tri_shape_at, len(mesh_boxed), mesh_boxed_at,
                                                              mesh_box_at, collides_at, collides.shape[1],
                                                              ctypes.addressof(hull_count)])
    model = (words, hull_count)
    if len(models) >= 64:  # (models come and go: the arrays of those gone are let go now and then)
        models.clear()
    models[id(collides)] = (sources, model)
    return model


def static_pairs(grid, lo: np.ndarray, hi: np.ndarray, bounds: np.ndarray,
                 mesh_boxes: tuple[np.ndarray, np.ndarray, np.ndarray], collides: np.ndarray, plane_count: int,
                 polytope_first: int, polytope_count: int, threads: int = 1):
    """broad.py's static pairs of the shapes' world boxes lo, hi (N, 3) float64 with the grid's triangles: ((shape,
    triangle) of the meshes' triangles, (shape, polytope) of the static polytopes, each once, by shape then polytope),
    those of `static_mesh_pairs_numpy` and of `static_candidates`' split of its triples, in their order; None where
    the C code does not cover the call (the caller runs numpy). bounds (6,): the triangles' box, low corner then high;
    mesh_boxes: `grid_pairs`'; collides (N, columns) bool; threads: OpenMP threads (the same pairs for any count).
    `StaticPairs` of the same arguments, kept, asks them with less."""
    prepared = StaticPairs.of(grid, bounds, mesh_boxes, collides, plane_count, polytope_first, polytope_count)
    return None if prepared is None else prepared(lo, hi, threads)


class StaticPairs:
    """`static_pairs` of one grid and one model's arrays (bounds, mesh_boxes, collides and the column counts),
    prepared (`of`: the struct and the model's words found once): a step's call hands over the boxes alone."""

    __slots__ = ("words", "hull_count", "rooms", "settings", "N", "arrays")

    def __init__(self, model: tuple, rooms: dict, settings: tuple, N: int, arrays: tuple):
        (self.words, self.hull_count), self.rooms, self.settings, self.N = model, rooms, settings, N
        self.arrays = arrays  # (the model's, held while C reads them)

    @classmethod
    def of(cls, grid, bounds: np.ndarray, mesh_boxes: tuple, collides: np.ndarray, plane_count: int,
           polytope_first: int, polytope_count: int) -> "StaticPairs | None":
        """The prepared call (None where the C code does not cover the grid or the model's arrays)."""
        struct = _grid_struct(grid)
        if struct is None:
            return None
        g, rooms = struct
        model = _static_model(rooms, g, bounds, mesh_boxes, collides)
        return None if model is None else cls(model, rooms, (plane_count, polytope_first, polytope_count),
                                              collides.shape[0], (bounds, mesh_boxes, collides))

    @property
    def room(self) -> int:
        """The room (pairs) the next call starts with: what the last one needed, with a margin."""
        return self.rooms.get("static", 4 * self.N + 1024)

    def __call__(self, lo: np.ndarray, hi: np.ndarray, threads: int = 1):
        """`static_pairs` of the boxes lo, hi (N, 3) float64 on `threads` threads (None: not covered)."""
        N = self.N
        if (lo.dtype != np.float64 or hi.dtype != np.float64 or lo.shape != (N, 3) or hi.shape != (N, 3)
                or not (lo.flags.c_contiguous and hi.flags.c_contiguous)):
            return None
        rooms, words, hull_count = self.rooms, self.words, self.hull_count
        room = self.room
        w = words.words
        w[1] = N
        for _ in range(2):  # the room the last call needed; then, where that is short, the room this one needs
            out = np.empty((4, room), np.int64)
            write_addresses((lo, hi, out), words.at + 16)
            w[5:10] = (room, *self.settings, threads)
            n = _LIB.pvu_static_pairs_words(words.at)
            if n < 0:
                return None
            if hull_count.value >= 0:
                break
            room = n
        h = hull_count.value
        if h < 0:
            return None
        # (on threads, each a share of the room: kept as large as it was, so that a share a run filled stays large
        # enough)
        rooms["static"] = max(n + n // 4, h + h // 4, 1024, room if threads > 1 else 0)
        return (out[0, :n], out[1, :n]), (out[2, :h], out[3, :h])


# by id(ground): the ground (a weak reference) and what `ground_rays` hands the C code of it: None where it does not
# cover the ground; else the arrays, their addresses, the grid's struct, and by ray count and thread the rays' struct
# and room
_grounds: dict[int, tuple[weakref.ref, dict | None]] = {}


def _ground_entry(ground) -> dict | None:
    cached = _grounds.get(id(ground))
    if cached is not None and cached[0]() is ground:
        return cached[1]
    entry = None
    struct = None if ground.grid is None or ground.round_ends is not None else _grid_struct(ground.grid)
    T = ground.grid.triangle_boxes.shape[1] if ground.grid is not None else 0
    epsilon, P = ground.tri_epsilon, len(ground.plane_normals)
    if (struct is not None and ground.tri_normals.shape == (T, 3) and ground.tri_normals.dtype in _FLOATS
            and ground.tri_shape.shape == (T,) and ground.tri_shape.dtype.kind in "iu"
            and (epsilon is None or (epsilon.shape == (T,) and epsilon.dtype == np.float64))
            and ground.plane_normals.shape == (P, 3) and ground.plane_offsets.shape == (P,)
            and ground.plane_normals.dtype == np.float64 and ground.plane_offsets.dtype == np.float64):
        arrays = (np.ascontiguousarray(ground.plane_normals), np.ascontiguousarray(ground.plane_offsets),
                  None if epsilon is None else np.ascontiguousarray(epsilon),
                  np.ascontiguousarray(ground.tri_normals, dtype=np.float64),
                  np.ascontiguousarray(ground.tri_shape, dtype=np.int64))
        entry = {"grid": ctypes.byref(struct[0]), "struct": struct[0], "arrays": arrays, "planes": P, "by_rays": {},
                 "columns": P + (int(arrays[4].max()) + 1 if T else 0),
                 "addresses": [None if a is None else a.ctypes.data for a in arrays]}
    key = id(ground)
    _grounds[key] = (weakref.ref(ground, lambda _, key=key: _grounds.pop(key, None)), entry)
    return entry


def ground_rays(ground, o: np.ndarray, d: np.ndarray, L: np.ndarray, allowed: np.ndarray | None,
                key: np.ndarray | None, culling_epsilon: float, threads: int = 1):
    """ground.py `raycast` of rays o, d (3, R), lengths L (R,), all float32, on a ground of planes and meshes (no
    sphere or capsule), with the filter allowed, key (None: none) and triangles whose determinant is below
    culling_epsilon culled, on `threads` OpenMP threads (the same bits for any count): (hit (R,), normal (3, R)
    float32, offset (R,) float32, shape (R,)), the same bits; None where the C code does not cover the call (the
    caller runs numpy)."""
    entry = _ground_entry(ground)
    R = len(L)
    if (entry is None or o.dtype != np.float32 or d.dtype != np.float32 or L.dtype != np.float32
            or o.shape != (3, R) or d.shape != (3, R) or L.shape != (R,)):
        return None
    if allowed is not None:
        read = filter_arrays(allowed, key, entry["columns"]) if key.shape == (R,) else None
        if read is None:
            return None
        allowed, key = read
    # by ray count and thread: the rays' struct and room (sim/shards.py steps a batch's ranges on threads, each a call
    # of its own on the one ground, which the C code runs without the GIL)
    rays = entry["by_rays"].get((R, threading.get_ident()))
    if rays is None:
        best_t, scratch = np.empty(R, np.float32), np.empty(19 * R, np.int64)
        normals, offsets, epsilon, tri_normals, tri_shape = entry["addresses"]
        m = _MeshRays(R, None, None, None, None, None, epsilon, tri_normals, tri_shape, entry["planes"], None, None, 0,
                      culling_epsilon, 1, best_t.ctypes.data, None, None)
        rays = entry["by_rays"][R, threading.get_ident()] = [m, ctypes.byref(m), best_t, scratch, scratch.ctypes.data,
                                                             None]
    m, m_ref, _, _, scratch_at, last = rays
    # the struct's settings written where they differ from its last call's (most steps ask the same: no filter)
    settings = (culling_epsilon, threads, allowed is None)
    if last != settings:
        m.culling_epsilon, m.threads = culling_epsilon, threads
        if allowed is None:
            m.allowed = m.key = None
            m.shape_count = 0
        rays[5] = settings
    block = np.empty(4 * R, np.float32)  # the normals (3, R) and offsets (R,)
    hit, shape = np.empty(R, bool), np.empty(R, np.int64)
    o, d, L = np.ascontiguousarray(o), np.ascontiguousarray(d), np.ascontiguousarray(L)
    at, o_at, d_at, L_at, hit_at, shape_at = addresses((block, o, d, L, hit, shape))
    m.best_n, m.best_shape = at, shape_at
    if allowed is not None:
        m.allowed, m.key = addresses((allowed, key))
        m.shape_count = allowed.shape[1]
    normals, offsets = entry["addresses"][:2]
    if R and _LIB.pvu_ground_rays(entry["grid"], m_ref, entry["planes"], normals, offsets, o_at, d_at,
                                  L_at, hit_at, at + 12 * R, scratch_at) < 0:
        return None
    return hit, block[:3 * R].reshape(3, R), block[3 * R:], shape


def filter_arrays(allowed: np.ndarray, key: np.ndarray, columns: int) -> tuple[np.ndarray, np.ndarray] | None:
    """A query filter (allowed (keys, shapes) bool, key (R,) integer) as the C code reads it: (allowed as uint8, key
    as int64, both C-contiguous: views where they are so already); None where numpy reads it otherwise (numpy's
    indexing would wrap a negative key, reject one out of range, or read fewer than `columns` shapes' columns)."""
    if (allowed.dtype != bool or allowed.ndim != 2 or key.dtype.kind not in "iu" or key.ndim != 1
            or allowed.shape[1] < columns or (len(key) and (key.min() < 0 or key.max() >= allowed.shape[0]))):
        return None
    return np.ascontiguousarray(allowed).view(np.uint8), np.ascontiguousarray(key, dtype=np.int64)


def shape_columns(ground) -> int | None:
    """The shapes a ray may hit on this ground as `ground_rays` covers it (planes, then meshes: the friction
    matrix's and a filter's columns it reads); None where it does not cover the ground."""
    entry = _ground_entry(ground)
    return None if entry is None else entry["columns"]


class RoadRays:
    """A rays' struct for a C caller of `pvu_ground_rays` (sim/compiled_rays.py's road, which runs the raycast of R
    float32 rays from its own C call, every step the same struct): the ground's grid and meshes, the filter, the
    culling epsilon and the threads set once; the rays, the outputs and the boxes set by the C caller. `grid`, `rays`:
    the two structs' addresses; the struct keeps the arrays it points into alive (and best_t's room)."""

    def __init__(self, entry: dict, R: int, query_filter: tuple[np.ndarray, np.ndarray] | None,
                 culling_epsilon: float, threads: int):
        self.best_t = np.empty(R, np.float32)
        self.entry, self.filter = entry, query_filter
        _, _, epsilon, tri_normals, tri_shape = entry["addresses"]  # (the planes: the C caller's own)
        allowed, key = (None, None) if query_filter is None else addresses(query_filter)
        self.struct = _MeshRays(R, None, None, None, None, None, epsilon, tri_normals, tri_shape, entry["planes"],
                                allowed, key, 0 if query_filter is None else query_filter[0].shape[1],
                                culling_epsilon, 1, self.best_t.ctypes.data, None, None, threads)
        self.grid, self.rays = ctypes.addressof(entry["struct"]), ctypes.addressof(self.struct)


def road_rays(ground, R: int, query_filter: tuple[np.ndarray, np.ndarray] | None, culling_epsilon: float,
              threads: int) -> RoadRays | None:
    """`RoadRays` for R rays on this ground with this filter (as `filter_arrays` gives it; None: none); None where the
    C code does not cover the ground (a sphere or capsule in it, no meshes, or arrays of other types)."""
    entry = _ground_entry(ground)
    return None if entry is None or R <= 0 else RoadRays(entry, R, query_filter, culling_epsilon, threads)
