"""The compiled closest features of exact cylinders and mesh triangles (sim/_cylinder_triangles.c through
sim/compiled_cylinder.py) against their numpy twin, the reference (sim/contact/cylinder_faces.py
`closest_features_numpy`: gjk_epa.py's GJK and EPA on numpy float32 scalars): the same float32 operations in the same
order, held to 0 ulps, compared bit for bit (a -0 against a +0 fails): GJK's or EPA's distance, both witnesses and
the axis of every pair, and `cylinder_triangles`' contacts with either.
Random cases: wheel-sized cylinders at a few hundred metres from the origin over road-sized and small triangles,
touching, separated (within the contact distance and beyond), deep, on a triangle's edge or corner, standing on a cap,
and degenerate triangles (slivers, a point); a real run: the contact stage's cars with wheel cylinders on mesh roads
(tests/scenarios/contact.py WHEELS_ON_ROAD), step after step, their states compared.
Where the extension is not built (no C compiler) these tests skip."""
from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from scenarios import contact

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_cylinder
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact.cylinder_faces import closest_features_numpy, cylinder_triangles
from physxvehicle_usd.sim.contact.gjk_epa import core_turn

pytestmark = pytest.mark.skipif(not compiled_cylinder.available(), reason="the extension is not built")


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _turns(rng: np.random.Generator, n: int) -> np.ndarray:
    """n random rotations (n, 3, 3)."""
    q = rng.standard_normal((4, n))
    return np.moveaxis(vm.quat_to_mat(q / np.linalg.norm(q, axis=0)), 2, 0)


def _pairs(seed: int, kind: str, P: int = 300):
    """P cylinder-triangle pairs of a kind: centres, unit axes, half heights, radii, triangles (counter-clockwise
    about their front normals), contact distances and the cores' turns (a wheel's: turned about its axle)."""
    rng = np.random.default_rng(seed)
    half, radius = rng.uniform(0.08, 0.25, P), rng.uniform(0.25, 0.5, P)
    frame = _turns(rng, P)
    if kind == "cap":  # standing on a cap: the axis along the triangle's normal, or nearly
        axis = np.array([0.0, 0.0, 1.0]) + rng.normal(0.0, 0.02, (P, 3)) * (rng.random((P, 1)) < 0.5)
    else:  # a wheel's axle: level, or tilted a little
        angle = rng.uniform(0.0, 2 * np.pi, P)
        axis = np.stack([np.cos(angle), np.sin(angle), rng.normal(0.0, 0.05, P)], 1)
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    local = np.einsum("pji,pj->pi", frame, axis)  # the axis in the wheel's frame
    turn = core_turn(local, frame)
    up = np.array([0.0, 0.0, 1.0]) + rng.normal(0.0, 0.03, (P, 3)) * (rng.random((P, 1)) < 0.5)
    up /= np.linalg.norm(up, axis=1, keepdims=True)
    centre = rng.uniform(-400.0, 400.0, (P, 3)) * np.array([1.0, 1.0, 0.01])
    along = np.abs(np.einsum("pj,pj->p", up, axis))
    extent = half * along + radius * np.sqrt(np.maximum(1.0 - along ** 2, 0.0))
    limit = rng.uniform(0.005, 0.02, P)
    gap = {"touching": -rng.uniform(0.0, 0.01, P), "separated": rng.uniform(0.0, 0.03, P),
           "deep": -rng.uniform(0.05, 0.3, P), "edge": rng.uniform(-0.01, 0.01, P),
           "cap": rng.uniform(-0.02, 0.01, P), "degenerate": rng.uniform(-0.02, 0.01, P)}[kind]
    foot = centre - up * (extent + gap)[:, None]  # on the triangle's plane under the cylinder
    side = np.cross(up, rng.standard_normal((P, 3)))
    side /= np.linalg.norm(side, axis=1, keepdims=True)
    other = np.cross(up, side)
    size = np.where(rng.random(P) < 0.5, rng.uniform(5.0, 40.0, P), rng.uniform(0.2, 1.0, P))[:, None]
    corners = np.stack([side, -0.5 * side + 0.866 * other, -0.5 * side - 0.866 * other], 1)  # counter-clockwise
    if kind == "edge":  # the foot near an edge or a corner
        shift = np.where(rng.random(P) < 0.5, 0.5, 1.0)[:, None] + rng.normal(0.0, 0.02, (P, 1))
        offset = -corners[:, 0] * shift * size
    else:
        offset = rng.uniform(-0.3, 0.3, (P, 1)) * size * side
    triangles = foot[:, None] + offset[:, None] + corners * size[:, :, None]
    if kind == "degenerate":  # slivers and a point
        triangles[::3, 2] = triangles[::3, 1] + 1e-7 * side[::3]
        triangles[1::7] = triangles[1::7, :1]
    return centre, axis, half, radius, triangles, limit, turn


KINDS = ["touching", "separated", "deep", "edge", "cap", "degenerate"]


def _closest_both_ways(centre, axis, half, radius, triangles, reach, turn):
    """The closest features of every pair, compiled and by numpy."""
    P, rows = len(centre), np.arange(len(centre))
    out = []
    for compiled in (True, False):
        dist, w0, w1, n = np.full(P, np.inf), np.zeros((P, 3)), np.zeros((P, 3)), np.zeros((P, 3))
        if compiled:
            assert compiled_cylinder.cylinder_triangles_closest(rows, centre, half, radius, turn, triangles, reach,
                                                                dist, w0, w1, n)
        else:
            closest_features_numpy(rows, centre, axis, half, radius, triangles, reach, turn, dist, w0, w1, n)
        out.append((dist, w0, w1, n))
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_gjk_epa_match_numpy_to_the_bit(kind, seed):
    centre, axis, half, radius, triangles, limit, turn = _pairs(seed, kind)
    reach = limit + 1e-4 * (np.minimum(half, radius) + limit)
    ours, theirs = _closest_both_ways(centre, axis, half, radius, triangles, reach, turn)
    for name, a, b in zip(("distance", "w0", "w1", "normal"), ours, theirs):
        assert _same_bits(a, b), name
    dist = theirs[0]
    if kind == "deep":  # EPA's depths
        assert (dist < 0.0).sum() > 100
    elif kind == "separated":  # GJK's distances, and pairs beyond their reach
        assert ((dist > 0.0) & np.isfinite(dist)).sum() > 50 and np.isinf(dist).sum() > 10
    elif kind != "degenerate":
        assert np.isfinite(dist).sum() > 100


def _grouped(kind: str):
    """cylinder_triangles' arguments: each fourth pair's cylinder over four triangles, one group."""
    centre, axis, half, radius, triangles, limit, turn = _pairs(7, kind, P=240)
    keep = np.repeat(np.arange(0, 240, 4), 4)
    return centre[keep], axis[keep], half[keep], radius[keep], triangles, limit[keep], keep // 4, turn[keep]


@pytest.mark.parametrize("kind", KINDS)
def test_cylinder_triangles_make_the_same_contacts_compiled(kind, monkeypatch):
    # a cylinder meets four triangles of a group, their points gathered into patches: all compiled, the points by
    # the Python code (numpy's BLAS taken to add otherwise), all by the Python code
    args = _grouped(kind)
    # (the degenerate kind's zero-area triangles: their normal divides 0 by 0; a Ground never holds one)
    with monkeypatch.context() as m, np.errstate(invalid="ignore"):
        ours = cylinder_triangles(*args)
        m.setattr(compiled_cylinder, "_FUSED", False)
        points_in_python = cylinder_triangles(*args)
        m.setattr(compiled_cylinder, "_LIB", None)
        theirs = cylinder_triangles(*args)
    for a, b, c in zip(ours, points_in_python, theirs):
        assert _same_bits(a, c) and _same_bits(b, c)
    assert len(theirs[0]) > 20 or kind == "separated"


@pytest.mark.parametrize("kind", KINDS)
def test_compiled_points_cover_every_kind(kind):
    # the compiled points answer (not None) on every kind, the faces' rectangle (a cap on a triangle) included
    centre, axis, half, radius, triangles, limit, group, turn = _grouped(kind)
    P = len(centre)
    v0, v1, v2 = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    with np.errstate(invalid="ignore"):
        tn = np.cross(v1 - v0, v2 - v0)
        tn /= np.linalg.norm(tn, axis=1, keepdims=True)
    margin = 1e-4 * (np.minimum(half, radius) + limit)
    dist, n, w0, w1 = np.full(P, np.inf), tn.copy(), np.zeros((P, 3)), np.zeros((P, 3))
    closest_features_numpy(np.arange(P), centre, axis, half, radius, triangles, limit + margin, turn, dist, w0, w1, n)
    made = (dist - margin <= limit) & (np.einsum("pj,pj->p", tn, n) >= -1e-5)
    points = compiled_cylinder.cylinder_triangles_points(centre, axis, half, radius, triangles, made, n,
                                                         w0, w1 + margin[:, None] * n, margin, group)
    assert points is not None and (len(points[0]) > 0) == made.any()


def _wheels_on_roads(tmp_path):
    """The contact stage's cars with wheel cylinders on mesh roads, each as the conformance runs drive it."""
    description = read_stage(contact.obstacles(tmp_path / "obstacles_m.usda", "m"))
    sim = Simulator.from_description(description, 1.0 / 60.0, [f"/World/{name}" for name in contact.WHEELS_ON_ROAD])
    accelerator = np.array([contact.ACCELERATOR.get(path.rsplit("/", 1)[1], 0.0) for path in sim.params.paths])
    return sim, {"accelerator": accelerator}


def test_cars_on_mesh_roads_make_the_same_contacts_and_run_compiled(monkeypatch, tmp_path):
    # whole runs, compiled against the Python code: every step's solved contacts (the wheels' cylinders on the roads)
    # and the final states, the same bits
    steps = 40
    runs = []
    for compiled in (True, False):
        sim, controls = _wheels_on_roads(tmp_path)
        solved = []
        with monkeypatch.context() as m:
            if not compiled:
                m.setattr(compiled_cylinder, "_LIB", None)
            for _ in range(steps):
                sim.step(controls)
                bodies = sim.telemetry()["bodies"]
                solved.append([bodies[key].copy() for key in ("contactCount", "contactPoints", "contactNormals")])
        state = {f.name: getattr(sim.state, f.name) for f in fields(sim.state)
                 if isinstance(getattr(sim.state, f.name), np.ndarray)}
        runs.append((solved, state))
    (solved, ours), (solved_numpy, theirs) = runs
    assert sum(int(step[0].sum()) for step in solved) > 200  # the wheels' cylinders met the roads
    for step, step_numpy in zip(solved, solved_numpy):
        assert all(_same_bits(a, b) for a, b in zip(step, step_numpy))
    assert "body_position" in ours and ours.keys() == theirs.keys()
    for name in ours:
        assert _same_bits(ours[name], theirs[name]), name


def test_cylinder_triangles_on_non_finite_pairs_as_numpy(monkeypatch):
    # NaN and infinite centres and corners among finite pairs: the same bits where the Python code answers (the
    # compiled code hands it the pairs it cannot answer as it does), the same error where it fails
    centre, axis, half, radius, triangles, limit, group, turn = _grouped("touching")
    centre, triangles = centre.copy(), triangles.copy()
    centre[5, 2] = np.nan
    triangles[9, 1, 0] = np.inf
    triangles[17, 2] = np.nan
    args = (centre, axis, half, radius, triangles, limit, group, turn)
    answers = []
    for compiled in (True, False):
        with monkeypatch.context() as m, np.errstate(invalid="ignore"):
            if not compiled:
                m.setattr(compiled_cylinder, "_LIB", None)
            try:
                answers.append(cylinder_triangles(*args))
            except (TypeError, IndexError, ValueError) as error:
                answers.append(type(error))
    ours, theirs = answers
    if isinstance(theirs, type):
        assert ours is theirs
    else:
        assert all(_same_bits(a, b) for a, b in zip(ours, theirs)) and len(theirs[0]) > 20
