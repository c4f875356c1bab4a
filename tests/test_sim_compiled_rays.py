"""The compiled raycasts against ground planes (sim/_plane_rays.c through sim/compiled_rays.py) against ground.raycast's
numpy loop, the reference: the same float32 arithmetic in the same order, so the two are held to 0 ulps, compared bit
for bit (a -0 against a +0 fails), on random rays against one, two and three planes (level, tilted, facing away),
rays that start on a plane (t = 0, no hit), end on it (t = length, a hit), run parallel to it, or carry NaN. Then
suspension.query_road_geometry's one C call (`road_on_ground`) against its numpy lines, 0 ulps, on those planes and on
grounds of meshes (the benchmarks' obstacles road; a triangle soup of three materials beside a plane): wheels' rays
onto vertices and shared edges, from inside the surface, beyond the meshes' edges, absent wheels, friction tables
and materials each with its own friction, with and without a query filter, on one and two threads.
Where the extension is not built (no C compiler) these tests skip."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from physxvehicle_usd.sim import compiled_rays
from physxvehicle_usd.sim.ground import CULLING_EPSILON, Ground, raycast

pytestmark = pytest.mark.skipif(not compiled_rays.available(), reason="the compiled extension is not built")


def _planes(normals, offsets) -> Ground:
    normals = np.asarray(normals, float)
    normals = normals / np.linalg.norm(normals, axis=1, keepdims=True)
    none = np.zeros((0, 3))
    return Ground(plane_normals=normals, plane_offsets=np.asarray(offsets, float),
                  plane_materials=(None,) * len(normals), tri_v0=none, tri_e1=none, tri_e2=none, tri_normals=none,
                  tri_shape=np.zeros(0, np.int64), mesh_materials=())


GROUNDS = {
    "level": _planes([[0.0, 0.0, 1.0]], [0.0]),
    "level and tilted": _planes([[0.0, 0.0, 1.0], [0.1, -0.2, 1.0]], [0.05, -0.3]),
    "three, one facing away": _planes([[0.0, 0.0, 1.0], [0.3, 0.1, 1.0], [0.0, 0.0, -1.0]], [0.0, 0.02, 5.0]),
}


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _rays(seed: int, V: int = 9, W: int = 4):
    """Origins, directions (3, V, W) and lengths (V, W), float32: random wheels' rays downwards, with some that
    start on the level plane, end on it, run parallel to it or carry NaN."""
    rng = np.random.default_rng(seed)
    origin = (rng.standard_normal((3, V, W)) * [[[2.0]], [[2.0]], [[0.4]]] + [[[0.0]], [[0.0]], [[0.5]]])
    direction = rng.standard_normal((3, V, W)) * 0.2 + [[[0.0]], [[0.0]], [[-1.0]]]
    direction /= np.linalg.norm(direction, axis=0)
    length = rng.uniform(0.1, 1.5, (V, W))
    origin[2, 0, 0] = 0.0  # starts on the level plane
    direction[:, 0, 1] = (0.0, 0.0, -1.0)  # ends on it
    origin[2, 0, 1], length[0, 1] = 0.75, 0.75
    direction[:, 1, 0] = (1.0, 0.0, 0.0)  # parallel to it
    origin[0, 2, 2] = np.nan
    direction[:, 2, 3] = (0.0, 0.0, 1.0)  # away from it
    return origin.astype(np.float32), direction.astype(np.float32), length.astype(np.float32)


@pytest.mark.parametrize("name", sorted(GROUNDS))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_plane_rays_match_numpy_to_the_bit(name, seed):
    ground = GROUNDS[name]
    origin, direction, length = _rays(seed)
    assert compiled_rays.covers(ground, origin, direction, length)
    ours = raycast(ground, origin, direction, length)
    reference = raycast(ground, origin, direction, length, compiled=False)
    for field in ("hit", "normal", "offset", "shape"):
        assert _same_bits(getattr(ours, field), getattr(reference, field)), field
    assert reference.hit.any() and not reference.hit.all()


def test_the_edge_rays_hit_as_physx_does():
    origin, direction, length = _rays(0)
    hits = raycast(GROUNDS["level"], origin, direction, length)
    assert not hits.hit[0, 0]  # t = 0: starting on the plane is no hit
    assert hits.hit[0, 1]  # t = length: a hit
    assert not hits.hit[1, 0] and not hits.hit[2, 2] and not hits.hit[2, 3]  # parallel, NaN, away
    assert hits.shape[1, 0] == -1 and hits.normal[:, 1, 0].tolist() == [0.0, 0.0, 0.0]


def test_float64_rays_stay_with_numpy():
    origin, direction, length = _rays(0)
    assert not compiled_rays.covers(GROUNDS["level"], origin.astype(float), direction, length)


@pytest.fixture(scope="module")
def fleet():
    """Seven sample cars (float32) and their friction tables."""
    from test_sim_row_solver import DT, _cars

    from physxvehicle_usd.read import read_stage
    from physxvehicle_usd.sim import Simulator

    return Simulator.from_description(read_stage(_cars(7)), DT)


@pytest.mark.parametrize("name", sorted(GROUNDS))
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_road_on_planes_matches_numpy_to_the_bit(fleet, name, seed):
    """suspension.query_road_geometry in one C call (compiled_rays.road_on_ground) against its numpy lines, 0 ulps:
    random hubs and suspension directions (with the edge rays of `_rays`), one wheel absent (mask), each friction
    table on each plane."""
    from physxvehicle_usd.sim.ground import friction_matrix
    from physxvehicle_usd.sim.suspension import query_road_geometry

    ground = GROUNDS[name]
    p = copy.copy(fleet.params)
    p.mask = p.mask.copy()
    p.mask[3, 2] = False
    friction = friction_matrix(fleet.batch.friction_tables, ground)
    hub, direction, _ = _rays(seed, p.V, p.W)
    hub = np.ascontiguousarray(hub + direction * p.radius)  # (the rays start at the wheel tops: hub - d radius)
    frame = (None, direction, hub)
    ours = query_road_geometry(p, ground, friction, frame, None)
    reference = query_road_geometry(p, ground, friction, frame, None, compiled=False)
    assert compiled_rays.road_on_ground(p, ground, friction, hub, direction, None, CULLING_EPSILON) is not None
    for field in ("hit", "normal", "offset", "friction", "shape"):
        assert _same_bits(getattr(ours, field), getattr(reference, field)), field
    assert reference.hit.any() and not reference.hit.all() and (reference.friction[reference.hit] > 0).all()
    assert not ours.hit[3, 2]


def test_road_on_ground_leaves_float64_rays_to_numpy(fleet):
    """float64 hubs are not the call's: None (numpy's lines then)."""
    from physxvehicle_usd.sim.ground import friction_matrix

    p = fleet.params
    hub, direction, _ = _rays(0, p.V, p.W)
    level = GROUNDS["level"]
    friction = friction_matrix(fleet.batch.friction_tables, level)
    assert compiled_rays.road_on_ground(p, level, friction, hub, direction, None, CULLING_EPSILON) is not None
    assert compiled_rays.road_on_ground(p, level, friction, hub.astype(float), direction, None, CULLING_EPSILON) is None


# --- the road on meshes --------------------------------------------------------------------------------------------

def _soup_and_plane() -> Ground:
    """300 random triangles of three materials (their own friction each) over a 12 m square, 0.3 m deep, above a
    level plane at z = -0.2 (which a ray through a gap in them meets)."""
    from physxvehicle_usd.sim.triangle_grid import TriangleGrid

    rng = np.random.default_rng(5)
    n = 300
    v0 = rng.uniform(-6.0, 6.0, (n, 3)) * [1.0, 1.0, 0.05]
    e1, e2 = rng.normal(size=(n, 3)) * [1.0, 1.0, 0.1], rng.normal(size=(n, 3)) * [1.0, 1.0, 0.1]
    flip = np.cross(e1, e2)[:, 2] < 0.0  # most face up (single-sided: a ray from above meets them)
    e1[flip], e2[flip] = e2[flip].copy(), e1[flip].copy()
    normal = np.cross(e1, e2)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    return Ground(np.array([[0.0, 0.0, 1.0]]), np.array([0.2]), ("plane",), v0, e1, e2, normal,
                  rng.integers(0, 3, n), ("a", "b", "c"), tri_epsilon=np.full(n, 2.0 ** -22 * 6.0),
                  grid=TriangleGrid.build(v0, e1, e2))


@pytest.fixture(scope="module")
def mesh_grounds(tmp_path_factory):
    """The benchmarks' obstacles road for 9 cars (the bump road and a static box ahead of each: meshes alone), and
    `_soup_and_plane`."""
    import sys
    from pathlib import Path

    from physxvehicle_usd.read import read_stage

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from fleet import fleet_stage

    road = Ground.from_description(read_stage(str(fleet_stage(9, tmp_path_factory.mktemp("road"),
                                                                  road="obstacles"))).ground)
    assert road.grid is not None and len(road.plane_normals) == 0 and len(road.mesh_materials) == 10
    return {"obstacles road": road, "soup and plane": _soup_and_plane()}


def _wheel_rays(ground: Ground, p, seed: int):
    """Hubs and suspension directions (3, V, W) float32 over a mesh ground whose wheel tops (hub - d radius) lie:
    at random above the meshes (tilted a little), straight over vertices and over edges' midpoints (ties between
    neighbours), just below a triangle (the ray starts inside the surface), on the meshes' outer edge and beyond it."""
    rng = np.random.default_rng(seed)
    R = p.V * p.W
    lo, hi = ground.grid.triangle_boxes[:3].min(axis=1), ground.grid.triangle_boxes[3:].max(axis=1)
    top = rng.uniform(lo, hi, (R, 3))
    top[:, 2] = rng.uniform(hi[2] - 0.1, hi[2] + 0.6, R)
    direction = rng.normal(size=(R, 3)) * 0.1 + [0.0, 0.0, -1.0]
    t = rng.integers(0, len(ground.tri_v0), R)
    corner = ground.tri_v0[t] + np.where((np.arange(R) % 2)[:, None] == 1, ground.tri_e1[t], ground.tri_e2[t])
    midpoint = ground.tri_v0[t] + 0.5 * ground.tri_e1[t]
    straight = [0.0, 0.0, -1.0]
    for k in range(0, R - 4, 6):  # every sixth wheel on a vertex, the next on an edge, the next inside the surface
        top[k], direction[k] = corner[k] + [0.0, 0.0, 0.3], straight
        top[k + 1], direction[k + 1] = midpoint[k] + [0.0, 0.0, 0.2], straight
        inside = ground.tri_v0[t[k]] + 0.3 * ground.tri_e1[t[k]] + 0.3 * ground.tri_e2[t[k]]
        top[k + 2], direction[k + 2] = inside - [0.0, 0.0, 1e-3], straight
    top[R - 2] = [lo[0], rng.uniform(lo[1], hi[1]), hi[2] + 0.1]  # on the outer edge of the meshes
    top[R - 1] = [hi[0] + 0.05, rng.uniform(lo[1], hi[1]), hi[2] + 0.1]  # beyond it
    direction[R - 2:] = straight
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    direction = direction.T.reshape(3, p.V, p.W).astype(np.float32)
    hub = (top.T.reshape(3, p.V, p.W) + direction * p.radius).astype(np.float32)
    return np.ascontiguousarray(hub), np.ascontiguousarray(direction)


def _road_params(fleet, ground: Ground, seed: int):
    """The fleet's params with one wheel absent (mask) and each wheel on one of three friction tables, and a friction
    matrix giving every table and every shape of the ground its own friction."""
    rng = np.random.default_rng(seed)
    p = copy.copy(fleet.params)
    p.mask = p.mask.copy()
    p.mask[3, 2] = False
    p.friction_table_id = rng.integers(0, 3, (p.V, p.W))
    friction = rng.uniform(0.3, 1.5, (3, len(ground.materials) + 1))
    return p, friction


def _assert_road_matches_numpy(p, ground, friction, hub, direction, ground_filter=None, threads=1):
    """query_road_geometry compiled against its numpy lines, bit for bit, having run in the one C call; returns the
    road."""
    from physxvehicle_usd.sim.suspension import query_road_geometry

    frame = (None, direction, hub)
    assert compiled_rays.road_on_ground(p, ground, friction, hub, direction, ground_filter, CULLING_EPSILON,
                                        threads) is not None  # (the C call covers it)
    ours = query_road_geometry(p, ground, friction, frame, None, ground_filter, threads)
    reference = query_road_geometry(p, ground, friction, frame, None, ground_filter, compiled=False)
    for field in ("hit", "normal", "offset", "friction", "shape"):
        assert _same_bits(getattr(ours, field), getattr(reference, field)), field
    return reference


@pytest.mark.parametrize("name", ["obstacles road", "soup and plane"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_road_on_meshes_matches_numpy_to_the_bit(fleet, mesh_grounds, name, seed):
    """The road of wheels over meshes in one C call against numpy's lines, 0 ulps: hits, misses, rays from inside
    the surface and beyond the meshes' edge, an absent wheel, each wheel's table's friction of the shape it hit."""
    ground = mesh_grounds[name]
    p, friction = _road_params(fleet, ground, seed)
    hub, direction = _wheel_rays(ground, p, seed)
    road = _assert_road_matches_numpy(p, ground, friction, hub, direction)
    assert road.hit.any() and not road.hit.all() and not road.hit[3, 2]
    # beyond the meshes: nothing, or the plane below them
    assert road.shape[-1, -1] == (0 if len(ground.plane_normals) else -1)
    hit_tables, hit_shapes = p.friction_table_id[road.hit], road.shape[road.hit]
    assert (road.friction[road.hit] == friction[hit_tables, hit_shapes].astype(np.float32)).all()
    assert len(set(zip(hit_tables.tolist(), hit_shapes.tolist()))) > 1  # several (table, shape) frictions met
    assert (road.friction[~road.hit] == 0.0).all()


def test_rays_from_inside_the_road_miss_it(fleet, mesh_grounds):
    """Wheel tops 1 mm under the bump road's upward faces (inside the surface: the ray starts behind the face, and
    nothing faces it below): no wheel hits, in C as in numpy's lines (the same bits); 1 mm above them every wheel
    hits the face it stands over."""
    ground = mesh_grounds["obstacles road"]
    p, friction = _road_params(fleet, ground, 6)
    p.mask = fleet.params.mask
    R = p.V * p.W
    road_faces = np.nonzero((ground.tri_shape == 0) & (ground.tri_normals[:, 2] > 0.5))[0]
    t = np.random.default_rng(6).choice(road_faces, R, replace=False)
    centroid = ground.tri_v0[t] + (ground.tri_e1[t] + ground.tri_e2[t]) / 3.0
    direction = np.ascontiguousarray(np.broadcast_to(np.array([0.0, 0.0, -1.0], np.float32)[:, None, None],
                                                     (3, p.V, p.W)))
    roads = []
    for lift in (-1e-3, 1e-3):
        top = (centroid + [0.0, 0.0, lift]).T.reshape(3, p.V, p.W)
        hub = np.ascontiguousarray((top + direction * p.radius).astype(np.float32))
        roads.append(_assert_road_matches_numpy(p, ground, friction, hub, direction))
    below, above = roads
    assert not below.hit.any() and (below.shape == -1).all()
    assert above.hit[p.mask].all() and (above.shape[p.mask] == 0).all()


@pytest.mark.parametrize("name", ["obstacles road", "soup and plane"])
def test_compiled_road_on_meshes_follows_a_query_filter(fleet, mesh_grounds, name):
    """A ground filter (sim/query_groups.GroundFilter) keeping some wheels from some shapes (those of key 1 from the
    shape most wheels hit): the C call reads it as numpy's lines do (0 ulps)."""
    from physxvehicle_usd.sim.query_groups import GroundFilter

    ground = mesh_grounds[name]
    p, friction = _road_params(fleet, ground, 3)
    hub, direction = _wheel_rays(ground, p, 3)
    unfiltered = _assert_road_matches_numpy(p, ground, friction, hub, direction)
    most = np.bincount(unfiltered.shape[unfiltered.hit]).argmax()
    rng = np.random.default_rng(3)
    allowed = rng.random((3, len(ground.materials))) < 0.7
    allowed[0], allowed[1, most] = True, False
    ground_filter = GroundFilter(rng.integers(0, 3, (p.V, p.W)), allowed)
    filtered = _assert_road_matches_numpy(p, ground, friction, hub, direction, ground_filter)
    key = ground_filter.query_key
    assert (filtered.shape[key == 1] != most).all() and (unfiltered.shape[key == 1] == most).any()
    assert (filtered.shape[key == 0] == unfiltered.shape[key == 0]).all()


@pytest.mark.parametrize("name", sorted(GROUNDS))
def test_compiled_road_on_planes_follows_a_query_filter(fleet, name):
    """The filter on a ground of planes alone (the planes' C loop skipping what a wheel may not hit), 0 ulps."""
    from physxvehicle_usd.sim.ground import friction_matrix
    from physxvehicle_usd.sim.query_groups import GroundFilter

    ground = GROUNDS[name]
    p = fleet.params
    hub, direction, _ = _rays(4, p.V, p.W)
    hub = np.ascontiguousarray(hub + direction * p.radius)
    friction = friction_matrix(fleet.batch.friction_tables, ground)
    allowed = np.ones((2, len(ground.materials)), bool)
    allowed[1, 0] = False  # key 1 may not hit the first plane
    ground_filter = GroundFilter(np.arange(p.V * p.W).reshape(p.V, p.W) % 2, allowed)
    filtered = _assert_road_matches_numpy(p, ground, friction, hub, direction, ground_filter)
    assert (filtered.shape[ground_filter.query_key == 1] != 0).all()


def test_compiled_road_on_meshes_on_two_threads(fleet, mesh_grounds):
    """The meshes' raycast of the road's call on two threads: the same bits as numpy's lines."""
    ground = mesh_grounds["obstacles road"]
    p, friction = _road_params(fleet, ground, 4)
    hub, direction = _wheel_rays(ground, p, 4)
    assert _assert_road_matches_numpy(p, ground, friction, hub, direction, threads=2).hit.any()


def test_road_on_meshes_leaves_nan_rays_to_numpy(fleet, mesh_grounds):
    """A NaN wheel top (a ray box the grid walk does not take): the C call says so (None) and query_road_geometry's
    numpy lines answer, the same as compiled=False."""
    from physxvehicle_usd.sim.suspension import query_road_geometry

    ground = mesh_grounds["obstacles road"]
    p, friction = _road_params(fleet, ground, 5)
    hub, direction = _wheel_rays(ground, p, 5)
    hub[0, 1, 1] = np.nan
    frame = (None, direction, hub)
    with np.errstate(invalid="ignore"):  # (numpy's grid casts the NaN box's cells)
        assert compiled_rays.road_on_ground(p, ground, friction, hub, direction, None, CULLING_EPSILON) is None
        ours = query_road_geometry(p, ground, friction, frame, None)
        reference = query_road_geometry(p, ground, friction, frame, None, compiled=False)
    for field in ("hit", "normal", "offset", "friction", "shape"):
        assert _same_bits(getattr(ours, field), getattr(reference, field)), field
    assert not reference.hit[1, 1] and reference.hit.any()


def _level_square() -> Ground:
    """Two triangles making a level 40 m square at z = 0 (a mesh ground), facing up."""
    from physxvehicle_usd.sim.triangle_grid import TriangleGrid

    v0 = np.array([[-20.0, -20.0, 0.0], [20.0, 20.0, 0.0]])
    e1 = np.array([[40.0, 0.0, 0.0], [-40.0, 0.0, 0.0]])
    e2 = np.array([[40.0, 40.0, 0.0], [-40.0, -40.0, 0.0]])
    normal = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    return Ground(np.zeros((0, 3)), np.zeros(0), (), v0, e1, e2, normal, np.zeros(2, np.int64), ("square",),
                  tri_epsilon=np.full(2, 2.0 ** -22 * 20.0), grid=TriangleGrid.build(v0, e1, e2))


@pytest.mark.parametrize("name", ["level plane", "level square mesh"])
def test_rays_ending_on_the_surface_hit_and_a_float32_step_short_miss(fleet, name):
    """Wheels straight above a level surface whose rays (the wheel top, hub + radius in float32, for travel +
    2 radius) end exactly on it hit (t = length), those a float32 step higher miss, in C as in numpy (0 ulps)."""
    ground = GROUNDS["level"] if name == "level plane" else _level_square()
    p = fleet.params
    friction = np.ones((1, len(ground.materials) + 1))
    radius, length = p.radius, p.travel_distance + np.float32(2.0) * p.radius
    hub_z = (length - radius).astype(np.float32)
    for _ in range(8):  # the hub whose top, hub + radius rounded to float32, is the length exactly
        top = hub_z + radius
        hub_z = np.where(top > length, np.nextafter(hub_z, np.float32(-1.0)),
                         np.where(top < length, np.nextafter(hub_z, np.float32(1.0)), hub_z))
    assert ((hub_z + radius) == length).all()
    higher = np.arange(p.V * p.W).reshape(p.V, p.W) % 2 == 1
    hub_z = np.where(higher, np.nextafter(length, np.float32(2.0)) - radius, hub_z)
    assert ((hub_z + radius)[higher] > length[higher]).all()
    grid = np.meshgrid(np.arange(p.W), np.arange(p.V))
    hub = np.ascontiguousarray(np.stack([grid[0] * 0.7 - 1.0, grid[1] * 0.9 - 2.5, hub_z]).astype(np.float32))
    direction = np.zeros((3, p.V, p.W), np.float32)
    direction[2] = -1.0
    road = _assert_road_matches_numpy(p, ground, friction, hub, direction)
    assert (road.hit == (~higher & p.mask)).all()
