"""The compiled raycasts against ground planes (sim/_plane_rays.c through sim/compiled_rays.py) against ground.raycast's
numpy loop, the reference: the same float32 arithmetic in the same order, so the two are held to 0 ulps, compared bit
for bit (a -0 against a +0 fails), on random rays against one, two and three planes (level, tilted, facing away),
rays that start on a plane (t = 0, no hit), end on it (t = length, a hit), run parallel to it, or carry NaN.
Where the extension is not built (no C compiler) these tests skip."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from physxvehicle_usd.sim import compiled_rays
from physxvehicle_usd.sim.ground import Ground, raycast

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
    """suspension.query_road_geometry in one C call (compiled_rays.road_on_planes) against its numpy lines, 0 ulps:
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
    assert compiled_rays.road_on_planes(p, ground, friction, hub, direction) is not None  # (the C call ran)
    for field in ("hit", "normal", "offset", "friction", "shape"):
        assert _same_bits(getattr(ours, field), getattr(reference, field)), field
    assert reference.hit.any() and not reference.hit.all() and (reference.friction[reference.hit] > 0).all()
    assert not ours.hit[3, 2]


def test_road_on_planes_leaves_float64_rays_to_numpy(fleet):
    """float64 hubs are not the call's: None (numpy's lines then)."""
    from physxvehicle_usd.sim.ground import friction_matrix

    p = fleet.params
    hub, direction, _ = _rays(0, p.V, p.W)
    level = GROUNDS["level"]
    friction = friction_matrix(fleet.batch.friction_tables, level)
    assert compiled_rays.road_on_planes(p, level, friction, hub, direction) is not None
    assert compiled_rays.road_on_planes(p, level, friction, hub.astype(float), direction) is None
