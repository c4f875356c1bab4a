"""The compiled mesh queries (sim/_mesh_queries.c through sim/compiled_mesh.py) against their numpy twins, the
reference: the triangle grid's pairs (`TriangleGrid.pairs`), the broad phase's (`box_pairs`) and the closest-hit
raycast (`mesh_hits`) give the same pairs in the same order and the same hits to the bit (0 ulps), on triangle soups
of several sizes (so several cell sizes), on a wall (other grid axes), on the benchmarks' bump road with its box
obstacles, and far from the origin with boxes that touch a triangle's within a float32 step (the C walk screens by
float32 boxes rounded outwards), with float32 and float64 queries, with and without a query filter."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from physxvehicle_usd import simulate
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import compiled_mesh
from physxvehicle_usd.sim.contact.broad import static_mesh_pairs, static_mesh_pairs_numpy
from physxvehicle_usd.sim.ground import (
    Ground,
    QueryFilter,
    box_pairs,
    box_pairs_numpy,
    mesh_hits,
    mesh_hits_numpy,
    raycast,
)
from physxvehicle_usd.sim.triangle_grid import TriangleGrid

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage  # noqa: E402

pytestmark = pytest.mark.skipif(not compiled_mesh.available(), reason="the extension is not built")

FLOATS = [np.float32, np.float64]


def _soup(seed: int, n: int, scale: float, wall: bool = False, duplicates: int = 0) -> Ground:
    """n random triangles of about `scale` metres over a 20 m square (on a wall: standing in x, z), a plane first
    (the meshes' shapes start at 1) and three meshes; the last `duplicates` triangles repeat earlier ones (equally
    close hits: the lowest index wins)."""
    rng = np.random.default_rng(seed)
    v0 = rng.uniform(-10.0, 10.0, (n, 3)) * np.array([1.0, 0.1, 1.0] if wall else [1.0, 1.0, 0.1])
    size = scale * rng.uniform(0.2, 1.8, (n, 1))  # uneven sizes
    e1, e2 = rng.normal(size=(n, 3)) * size, rng.normal(size=(n, 3)) * size
    if duplicates:
        copy = rng.integers(0, n - duplicates, duplicates)
        v0[-duplicates:], e1[-duplicates:], e2[-duplicates:] = v0[copy], e1[copy], e2[copy]
    normal = np.cross(e1, e2)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    return Ground(np.array([[0.0, 0.0, 1.0]]), np.array([5.0]), (None,), v0, e1, e2, normal,
                  rng.integers(0, 3, n), ("a", "b", "c"), tri_epsilon=np.full(n, 2.0 ** -22 * 10.0),
                  grid=TriangleGrid.build(v0, e1, e2))


def _fleet_ground(folder: Path) -> Ground:
    """The ground of benchmarks/fleet.py's obstacles road for 9 cars: the bump road and a box ahead of every car."""
    ground = Ground.from_description(read_stage(str(fleet_stage(9, folder, road="obstacles"))).ground)
    assert len(ground.mesh_materials) == 10 and ground.grid is not None
    return ground


def _boxes(rng: np.random.Generator, ground: Ground, n: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    """Query boxes over and around the ground's box: points, flat boxes, boxes of several cells, boxes partly or
    wholly outside the grid, a box over everything, boxes reaching to infinity."""
    lo_g, hi_g = ground.grid.triangle_boxes[:3].min(axis=1), ground.grid.triangle_boxes[3:].max(axis=1)
    span = hi_g - lo_g
    centre = rng.uniform(lo_g - 0.2 * span, hi_g + 0.2 * span, (n, 3))
    half = rng.uniform(0.0, 0.05, (n, 3)) * span * rng.choice([0.0, 1.0, 10.0], (n, 1))  # points among them
    half[rng.random(n) < 0.1, rng.integers(0, 3)] = 0.0  # flat along an axis
    lo, hi = centre - half, centre + half
    lo[0], hi[0] = lo_g - 1.0, hi_g + 1.0
    lo[1], hi[1] = [-np.inf] * 3, [np.inf] * 3
    lo[2, 0] = -np.inf
    lo[3], hi[3] = hi_g + 1.0, hi_g + 2.0  # beyond the grid's far corner
    return lo.astype(dtype), hi.astype(dtype)


def _assert_same_pairs(compiled: tuple[np.ndarray, np.ndarray], numpy: tuple[np.ndarray, np.ndarray]) -> int:
    for a, b in zip(compiled, numpy):
        assert a.dtype == b.dtype == np.int64 and np.array_equal(a, b)  # the same pairs, in the same order
    return len(compiled[0])


def _assert_pairs(ground: Ground, lo: np.ndarray, hi: np.ndarray) -> int:
    assert compiled_mesh.grid_pairs(ground.grid, lo, hi, overlap=False) is not None  # the C code ran
    candidates = _assert_same_pairs(ground.grid.pairs(lo, hi), ground.grid.numpy_pairs(lo, hi))
    overlapping = _assert_same_pairs(box_pairs(ground, lo, hi), box_pairs_numpy(ground, lo, hi))
    assert candidates >= overlapping
    return overlapping


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("scale, wall", [(0.05, False), (0.5, False), (3.0, False), (0.5, True)])
def test_grid_and_box_pairs_match_numpy_on_random_triangles(scale, wall, dtype):
    ground = _soup(11, 1500, scale, wall)
    assert ground.grid.axes == ((0, 2) if wall else (0, 1))
    rng = np.random.default_rng(5)
    assert _assert_pairs(ground, *_boxes(rng, ground, 2000, dtype)) > 1000


def test_pairs_of_a_grid_of_one_cell_and_of_no_queries_match_numpy():
    ground = _soup(2, 300, 1.0)
    grid = ground.grid
    T = len(ground.tri_v0)
    one = dataclasses.replace(grid, origin=np.full(2, -1e30), cell=1e31, size=(1, 1), starts=np.array([0, T]),
                              triangles=np.arange(T), first_cell=np.zeros((T, 2), np.int64),
                              cell_low=grid.triangle_boxes[2].min(keepdims=True),
                              cell_high=grid.triangle_boxes[5].max(keepdims=True))
    rng = np.random.default_rng(1)
    assert _assert_pairs(dataclasses.replace(ground, grid=one), *_boxes(rng, ground, 300, np.float64)) > 100
    assert _assert_pairs(ground, np.zeros((0, 3)), np.zeros((0, 3))) == 0


def test_pairs_beyond_the_room_the_last_call_needed_are_all_listed():
    """The compiled pairs are written into room sized by the grid's previous call: a call that needs more calls
    again with room for all of them."""
    ground = _soup(4, 3000, 0.5)
    assert _assert_pairs(ground, np.zeros((1, 3)), np.full((1, 3), 0.01)) < 100  # room then: 1,024 pairs
    lo, hi = np.full((3, 3), -20.0), np.full((3, 3), 20.0)  # every triangle, three times
    assert _assert_pairs(ground, lo, hi) == 3 * 3000


def test_queries_the_c_code_leaves_to_numpy():
    """A NaN coordinate, a box inverted by more than a cell, a mesh without a box: numpy's result is not the nested
    loops', so the compiled call declines (and the dispatchers run numpy)."""
    ground = _soup(3, 200, 1.0)
    lo, hi = np.zeros((2, 3)), np.ones((2, 3))
    nan_lo = lo.copy()
    nan_lo[1, 0] = np.nan
    assert compiled_mesh.grid_pairs(ground.grid, nan_lo, hi, overlap=True) is None
    inverted_hi = hi.copy()
    inverted_hi[0, :2] = -5.0
    assert compiled_mesh.grid_pairs(ground.grid, lo, inverted_hi, overlap=False) is None
    assert compiled_mesh.grid_pairs(ground.grid, lo, hi, overlap=False) is not None
    # a triangle of a mesh past the mesh boxes given (the soup's three meshes, two boxes): numpy's index error
    two = (ground.tri_shape, np.zeros(2, bool), np.zeros((2, 6)))
    assert compiled_mesh.grid_pairs(ground.grid, lo, hi, overlap=True, mesh_boxes=two) is None
    three = (ground.tri_shape, np.zeros(3, bool), np.zeros((3, 6)))
    assert compiled_mesh.grid_pairs(ground.grid, lo, hi, overlap=True, mesh_boxes=three) is not None


def _rays(rng: np.random.Generator, ground: Ground, n: int, dtype):
    """Rays (3, R) over the ground: random ones, straight down onto vertices and onto edges' midpoints (shared edges:
    ties between neighbours), along a triangle's edge (parallel to its face), and lengths that end short of, at and
    beyond the triangles."""
    lo_g, hi_g = ground.grid.triangle_boxes[:3].min(axis=1), ground.grid.triangle_boxes[3:].max(axis=1)
    up = 3 - sum(ground.grid.axes)
    down = np.zeros(3)
    down[up] = -1.0
    origin = rng.uniform(lo_g - 1.0, hi_g + 1.0, (n, 3))
    direction = rng.normal(size=(n, 3))
    direction[:, up] = -np.abs(direction[:, up]) - 0.3
    k = n // 4  # onto vertices
    t = rng.integers(0, len(ground.tri_v0), k)
    corner = rng.integers(0, 3, k)
    vertex = ground.tri_v0[t] + np.where(corner[:, None] == 1, ground.tri_e1[t], 0.0) \
        + np.where(corner[:, None] == 2, ground.tri_e2[t], 0.0)
    origin[:k], direction[:k] = vertex - down * rng.uniform(0.1, 1.0, (k, 1)), down
    t = rng.integers(0, len(ground.tri_v0), k)  # onto edges' midpoints
    origin[k:2 * k], direction[k:2 * k] = ground.tri_v0[t] + 0.5 * ground.tri_e1[t] - down * 0.5, down
    t = rng.integers(0, len(ground.tri_v0), k // 4)  # along an edge: parallel to the face
    origin[2 * k:2 * k + len(t)] = ground.tri_v0[t] - 0.5 * ground.tri_e1[t]
    direction[2 * k:2 * k + len(t)] = ground.tri_e1[t]
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    length = rng.uniform(0.0, 1.0, n) * np.linalg.norm(hi_g - lo_g) * rng.choice([0.05, 1.0], n)
    return origin.T.astype(dtype), direction.T.astype(dtype), length.astype(dtype)


def _assert_same_hits(ground: Ground, origin, direction, length, only: QueryFilter | None) -> int:
    """mesh_hits against mesh_hits_numpy from the same start (some rays with a closer hit already), bit for bit;
    returns how many rays the mesh hit."""
    R = len(length)
    rng = np.random.default_rng(R)
    dtype = np.result_type(origin.dtype, direction.dtype, np.float32)
    start_t = np.where(rng.random(R) < 0.2, rng.uniform(0.0, 1.0, R), np.inf).astype(dtype)
    results = []
    for run in (mesh_hits, mesh_hits_numpy):
        best_t, best_n, best_shape = start_t.copy(), np.full((3, R), 7.0, dtype), np.full(R, -1)
        run(ground, origin, direction, length, best_t, best_n, best_shape, only)
        results.append((best_t, best_n, best_shape))
    for a, b in zip(*results):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()  # 0 ulps
    return int((results[1][2] >= 0).sum())


def _filter(rng: np.random.Generator, ground: Ground, R: int) -> QueryFilter:
    allowed = rng.random((4, len(ground.materials))) < 0.6
    return QueryFilter(allowed, rng.integers(0, 4, R))


def _every_ray_is_compiled(ground: Ground, origin, direction, length, only: QueryFilter | None) -> bool:
    R = len(length)
    end = origin + direction * length
    return compiled_mesh.mesh_hits(ground.grid, np.minimum(origin, end).T, np.maximum(origin, end).T, origin,
                                   direction, length, ground.tri_epsilon, ground.tri_normals, ground.tri_shape,
                                   len(ground.plane_normals), None if only is None else only.allowed,
                                   None if only is None else only.key, 2.0 ** -46, np.full(R, np.inf, origin.dtype),
                                   np.zeros((3, R), origin.dtype), np.full(R, -1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("filtered", [False, True])
@pytest.mark.parametrize("scale, wall", [(0.1, False), (1.0, False), (1.0, True)])
def test_mesh_hits_match_numpy_on_random_rays(scale, wall, filtered, dtype):
    ground = _soup(17, 1200, scale, wall, duplicates=300)
    rng = np.random.default_rng(23)
    rays = _rays(rng, ground, 3000, dtype)
    only = _filter(rng, ground, 3000) if filtered else None
    assert _every_ray_is_compiled(ground, *rays, only)
    assert _assert_same_hits(ground, *rays, only) > 150


def test_ground_rays_follow_the_filter_from_call_to_call():
    """compiled_mesh.ground_rays keeps a struct per ray count and writes its filter and settings only where they differ
    from its last call's: the same rays filtered, then not, then filtered again (one struct) hit as numpy's raycast
    each time, to the bit (0 ulps)."""
    ground = _soup(41, 600, 0.5)
    rng = np.random.default_rng(43)
    origin, direction, length = _rays(rng, ground, 500, np.float32)
    only = _filter(rng, ground, 500)
    assert compiled_mesh.ground_rays(ground, origin, direction, length, None, None, 2.0 ** -46) is not None
    hits = []
    for query in (only, None, None, only, None):
        got = raycast(ground, origin, direction, length, query, compiled=True)
        reference = raycast(ground, origin, direction, length, query, compiled=False)
        for name in ("hit", "normal", "offset", "shape"):
            assert getattr(got, name).tobytes() == getattr(reference, name).tobytes()
        hits.append(int(reference.hit.sum()))
    assert hits[0] < hits[1] and hits[1] > 100  # (the filter keeps some rays from the triangles)


def test_mesh_hits_without_epsilons_match_numpy():
    ground = dataclasses.replace(_soup(29, 800, 0.5, duplicates=100), tri_epsilon=None)
    rays = _rays(np.random.default_rng(31), ground, 2000, np.float32)
    assert _assert_same_hits(ground, *rays, None) > 150


@pytest.mark.parametrize("dtype", FLOATS)
def test_mesh_queries_match_numpy_on_the_fleet_obstacles_road(tmp_path, dtype):
    """The benchmarks' bump road (two triangles a cell, shared edges and diagonals: ties) with a box ahead of each
    car: wheels' rays straight down, some onto the boxes; chassis-sized boxes; a filter per wheel."""
    ground = _fleet_ground(tmp_path)
    rng = np.random.default_rng(41)
    rays = _rays(rng, ground, 4000, dtype)
    assert _assert_same_hits(ground, *rays, None) > 1000
    assert _assert_same_hits(ground, *rays, _filter(rng, ground, 4000)) > 500
    centre = np.column_stack([rng.uniform(-2.0, 20.0, 500), rng.uniform(-4.0, 16.0, 500), rng.uniform(0.0, 1.0, 500)])
    half = np.array([2.3, 1.0, 0.8]) * rng.uniform(0.5, 1.5, (500, 1))
    assert _assert_pairs(ground, (centre - half).astype(dtype), (centre + half).astype(dtype)) > 1000


@pytest.mark.parametrize("dtype", FLOATS)
def test_static_mesh_pairs_match_numpy_on_the_fleet_obstacles_road(tmp_path, dtype):
    """The contact broad phase's (shape, triangle) pairs: a mesh triangle by its own box, a static box's face by the
    box's, and the collision filter; the shapes' boxes over the road, around and inside the obstacles."""
    loaded = simulate.load(fleet_stage(9, tmp_path, road="obstacles"), 1.0 / 60.0)
    model, ground = loaded.simulator.contact, loaded.simulator.ground
    assert model is not None and model.static_lo is not None  # the obstacles are static polytopes
    N = model.collides.shape[0]
    rng = np.random.default_rng(43)
    obstacle = (model.static_lo + model.static_hi) / 2.0
    faces = triangles = 0
    for _ in range(10):  # N boxes a draw, one per shape
        centre = np.where(rng.random((N, 1)) < 0.5, obstacle[rng.integers(0, len(obstacle), N)],
                          np.column_stack([rng.uniform(-2, 20, N), rng.uniform(-4, 16, N), rng.uniform(0, 1, N)]))
        half = rng.uniform(0.0, 1.5, (N, 3)) * rng.choice([0.1, 1.0], (N, 1))
        lo, hi = (centre - half).astype(dtype), (centre + half).astype(dtype)
        compiled = static_mesh_pairs(model, ground, lo, hi)
        reference = static_mesh_pairs_numpy(model, ground, lo, hi)
        for a, b in zip(compiled, reference):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        faces += int((reference[2] >= model.polytope_first).sum())
        triangles += int((reference[2] < model.polytope_first).sum())
    assert faces > 100 and triangles > 300


@pytest.mark.parametrize("dtype", FLOATS)
def test_boxes_that_touch_a_triangle_within_a_float32_step_match_numpy(dtype):
    """The C walk screens cells and triangles by their reach and boxes rounded outwards to float32 before the exact
    float64 test: far from the origin (a float32 step of about 8 mm at 100 km) query boxes that end exactly on a
    triangle's box, or a float64 step short of it or past it, along each axis, give numpy's pairs and hits."""
    ground = _soup(7, 400, 0.5)
    shift = np.array([1.0e5, -1.0e5, 3.0e4])
    ground = dataclasses.replace(ground, tri_v0=ground.tri_v0 + shift,
                                 grid=TriangleGrid.build(ground.tri_v0 + shift, ground.tri_e1, ground.tri_e2))
    lo_t, hi_t = ground.grid.triangle_boxes[:3].T, ground.grid.triangle_boxes[3:].T
    rng = np.random.default_rng(3)
    t = rng.integers(0, len(lo_t), 600)
    axis = rng.integers(0, 3, 600)
    nudge = rng.choice([-1.0, 0.0, 1.0], 600)
    lo, hi = lo_t[t] - 0.05, hi_t[t] + 0.05
    rows = np.arange(600)
    below = rng.random(600) < 0.5  # a box ending on the triangle's low side, or starting on its high side
    edge = np.where(below, lo_t[t, axis], hi_t[t, axis])
    edge = edge + nudge * np.spacing(edge)
    hi[rows[below], axis[below]] = edge[below]
    lo[rows[below], axis[below]] = edge[below] - 0.3
    lo[rows[~below], axis[~below]] = edge[~below]
    hi[rows[~below], axis[~below]] = edge[~below] + 0.3
    assert _assert_pairs(ground, lo.astype(dtype), hi.astype(dtype)) > 300
    down = np.zeros((3, 600))
    down[2] = -1.0
    centre = 0.5 * (lo_t[t] + hi_t[t])
    origin = centre.T.copy()
    origin[2] = hi_t[t, 2] + 0.2
    length = origin[2] - np.where(below, lo_t[t, 2], hi_t[t, 2]) + nudge * np.spacing(origin[2])
    assert _assert_same_hits(ground, origin.astype(dtype), down.astype(dtype), length.astype(dtype), None) > 100
