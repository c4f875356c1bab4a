"""The compiled static broad phase and ground raycasts against their numpy twins, the reference, 0 ulps: the shapes'
rotations, box centres, slacks and grown world boxes (sim/_shape_boxes.c through sim/compiled_placement.py:
placement.py's `shape_boxes`, `world_boxes`), the contact broad phase's triangle and polytope pairs
(sim/_static_pairs.c: `static_mesh_pairs_numpy` and `static_candidates`' split, in their order), and the raycast
of planes and meshes in one call (`pvu_ground_rays` in sim/_plane_rays.c: ground.py's `raycast`), on the truck
sample (several shapes a vehicle) and the benchmarks' obstacles road."""
from __future__ import annotations

import dataclasses
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from physxvehicle_usd import simulate
from physxvehicle_usd.sim import compiled_mesh, compiled_placement
from physxvehicle_usd.sim.contact.broad import static_candidates, static_mesh_pairs_numpy
from physxvehicle_usd.sim.contact.placement import shape_boxes, shape_boxes_numpy, world_boxes, world_boxes_numpy
from physxvehicle_usd.sim.ground import Ground, QueryFilter, raycast

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage

pytestmark = pytest.mark.skipif(not (compiled_mesh.available() and compiled_placement.available()),
                                reason="the extension is not built")

SAMPLES = Path(__file__).resolve().parents[1] / "samples"


def _same(a, b) -> None:
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()  # 0 ulps


def _poses(rng: np.random.Generator, V: int, dtype):
    """V poses: unit quaternions, some not quite unit, one the identity and one a half turn; positions near and far
    from the origin."""
    q = rng.normal(size=(4, V))
    q /= np.linalg.norm(q, axis=0)
    q[:, ::3] *= rng.uniform(0.999, 1.001, q[:, ::3].shape[1])
    q[:, 0], q[:, -1] = (1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
    position = rng.uniform(-5.0, 5.0, (3, V)) * rng.choice([1.0, 1e4], V)
    return position.astype(dtype), q.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("sample, V", [("truck/truck.usda", 1), ("truck/truck.usda", 70), ("fleet", 9)])
def test_shape_and_world_boxes_match_numpy(tmp_path, sample, V, dtype):
    path = fleet_stage(9, tmp_path, road="obstacles") if sample == "fleet" else SAMPLES / sample
    model = simulate.load(path, 1.0 / 60.0).simulator.contact
    if V > 1 and model.vehicle.max() == 0:  # the sample's shapes spread over V bodies, several a body
        model = dataclasses.replace(model, vehicle=np.arange(len(model.vehicle)) % V)
    rng = np.random.default_rng(V)
    for _ in range(5):
        position, orientation = _poses(rng, int(model.vehicle.max()) + 1, dtype)
        assert compiled_placement.shape_boxes(model.vehicle, model.box_centre, model.box_half, position,
                                              orientation) is not None  # the C code ran
        for rows in (None, np.sort(rng.choice(len(model.vehicle), max(1, len(model.vehicle) // 2), replace=False))):
            for a, b in zip(shape_boxes(model, position, orientation, rows),
                            shape_boxes_numpy(model, position, orientation, rows)):
                _same(a, b)
        assert compiled_placement._KEPT[True][0].body_centre is model.box_centre  # (kept from the second call)
        grow = rng.uniform(0.0, 0.1, len(model.vehicle))
        for _ in range(3):  # (the calls after the first with the model's arrays' kept addresses)
            for a, b in zip(world_boxes(model, position, orientation, grow),
                            world_boxes_numpy(model, position, orientation, grow)):
                _same(a, b)
            grow[::2] += 0.01  # (changed in place: C reads the kept array as it is now)
        assert compiled_placement._KEPT[False][0].grow is grow  # (the kept addresses were the ones read)


@pytest.mark.parametrize("threads", [1, 3])
def test_static_candidates_pairs_match_numpy_on_the_fleet_obstacles_road(tmp_path, threads):
    """The triangle pairs and the polytope pairs of the compiled broad phase, on one thread and on three (runs of
    shapes joined in order): shapes over the road, around and inside the obstacles (several polytopes' faces a
    shape), some turned, against numpy's triples split and sorted as `static_candidates` does."""
    loaded = simulate.load(fleet_stage(9, tmp_path, road="obstacles"), 1.0 / 60.0)
    model, ground = loaded.simulator.contact, loaded.simulator.ground
    first, H = model.polytope_first, len(model.static_index)
    rng = np.random.default_rng(5)
    obstacle = (model.static_lo + model.static_hi) / 2.0
    faces = triangles = 0
    for draw in range(12):
        V = len(model.vehicle)
        centre = np.where(rng.random((V, 1)) < 0.5, obstacle[rng.integers(0, len(obstacle), V)],
                          np.column_stack([rng.uniform(-2, 20, V), rng.uniform(-4, 16, V), rng.uniform(-0.5, 1, V)]))
        _, orientation = _poses(rng, V, np.float32)
        position = (centre.T - model.box_centre).astype(np.float32)
        got = static_candidates(model, ground, position, orientation, threads=threads)
        lo, hi = world_boxes_numpy(model, position, orientation, model.reach)[3:]
        shape, tri, static = static_mesh_pairs_numpy(model, ground, lo, hi)
        face = static >= first
        key = np.unique(shape[face] * H + (static[face] - first))
        for a, b in zip(got[2] + got[1], (shape[~face], tri[~face], key // H, key % H)):
            _same(a, b)
        faces += len(key)
        triangles += int((~face).sum())
    assert faces > 20 and triangles > 100


@pytest.mark.parametrize("threads", [1, 3])
def test_static_pairs_beyond_the_room_the_last_call_needed_are_all_listed(tmp_path, threads):
    """The compiled pairs are written into room sized by the previous call (on threads, a share of it each): a call
    that needs more (every shape over the whole road) calls again with room for them all."""
    loaded = simulate.load(fleet_stage(9, tmp_path, road="obstacles"), 1.0 / 60.0)
    model, ground = loaded.simulator.contact, loaded.simulator.ground
    bounds = np.concatenate((ground.grid.triangle_boxes[:3].min(axis=1), ground.grid.triangle_boxes[3:].max(axis=1)))
    mesh_boxes = (ground.tri_shape, np.arange(len(ground.mesh_materials)) + model.plane_count >= model.polytope_first,
                  np.zeros((len(ground.mesh_materials), 6)))
    collides = np.ascontiguousarray(model.collides)
    N = len(model.vehicle)
    args = (bounds, mesh_boxes, collides, model.plane_count, model.polytope_first, len(model.static_index), threads)
    small = compiled_mesh.static_pairs(ground.grid, np.zeros((N, 3)), np.full((N, 3), 1e-3), *args)
    whole = compiled_mesh.static_pairs(ground.grid, np.tile(bounds[:3], (N, 1)), np.tile(bounds[3:], (N, 1)), *args)
    assert small is not None and whole is not None
    assert len(small[0][0]) < 100 and len(whole[0][0]) == N * int((ground.tri_shape == 0).sum())
    assert np.array_equal(whole[1][0], np.repeat(np.arange(N), len(model.static_index)))


def _rays(rng: np.random.Generator, ground: Ground, R: int):
    """Rays (3, R) float32 down onto the ground, some slanted, some starting below it or ending short of it."""
    lo_g, hi_g = ground.grid.triangle_boxes[:3].min(axis=1), ground.grid.triangle_boxes[3:].max(axis=1)
    origin = rng.uniform(lo_g - 1.0, hi_g + 1.0, (R, 3))
    origin[:, 2] = rng.uniform(-0.3, 2.0, R)
    direction = np.column_stack([rng.normal(0.0, 0.2, (R, 2)), -np.ones(R)])
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    length = rng.uniform(0.0, 2.5, R)
    return origin.T.astype(np.float32), direction.T.astype(np.float32), length.astype(np.float32)


@pytest.mark.parametrize("planes, threads", [(0, 1), (2, 1), (0, 3)])
@pytest.mark.parametrize("filtered", [False, True])
def test_ground_rays_match_numpy_raycast(tmp_path, planes, filtered, threads):
    """`raycast` of planes and meshes in one C call against its numpy loop (with the mesh queries that loop calls,
    which tests/test_sim_mesh_queries.py holds to numpy), on the obstacles road with no plane and with two (a level
    one at 0.2 m, which the road's bumps rise above, and a tilted one), with and without a query filter, on one
    thread and on three (each ray's result its own)."""
    ground = Ground.from_description(simulate.load(fleet_stage(9, tmp_path, road="obstacles"), 1.0 / 60.0)
                                     .description.ground)
    if planes:
        tilted = np.array([0.1, 0.0, 1.0]) / np.linalg.norm([0.1, 0.0, 1.0])
        ground = dataclasses.replace(ground, plane_normals=np.array([[0.0, 0.0, 1.0], tilted]),
                                     plane_offsets=np.array([-0.2, 0.05]), plane_materials=("a", "b"))
    rng = np.random.default_rng(11 + planes)
    o, d, L = _rays(rng, ground, 3000)
    only = None
    if filtered:
        only = QueryFilter(rng.random((4, len(ground.materials))) < 0.6, rng.integers(0, 4, 3000))
    allowed, key = (None, None) if only is None else (only.allowed, only.key)
    assert compiled_mesh.ground_rays(ground, o, d, L, allowed, key, float(np.finfo(np.float32).eps) ** 2) is not None
    got = raycast(ground, o, d, L, only, threads=threads)
    reference = raycast(ground, o, d, L, only, compiled=False)
    for field in ("hit", "normal", "offset", "shape"):
        _same(getattr(got, field), getattr(reference, field))
    assert reference.hit.sum() > 1000 and (reference.shape >= planes).sum() > (150 if planes else 500)
    if planes:
        assert (reference.shape < planes)[reference.hit].sum() > 100


def test_ground_rays_on_several_python_threads_at_once(tmp_path):
    """sim/shards.py steps a batch's vehicle ranges on threads, each raycasting the one ground with as many rays as
    the others (the C code runs without the GIL): each thread's hits are its own rays', numpy's."""
    ground = Ground.from_description(simulate.load(fleet_stage(9, tmp_path, road="obstacles"), 1.0 / 60.0)
                                     .description.ground)
    rays = [_rays(np.random.default_rng(seed), ground, 2000) for seed in range(4)]
    reference = [raycast(ground, *r, compiled=False) for r in rays]

    def cast(k: int):
        return [raycast(ground, *rays[k]) for _ in range(20)]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(cast, range(4)))
    for got, want in zip(results, reference):
        for hits in got:
            for field in ("hit", "normal", "offset", "shape"):
                _same(getattr(hits, field), getattr(want, field))
