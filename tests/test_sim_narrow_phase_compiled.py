"""The compiled narrow phases (sim/_narrow_phase.c, sim/_polytope_contacts.c through sim/compiled_narrow_phase.py)
against their numpy twins, the reference: PCM's box-box contacts (sim/contact/box.py `box_box_numpy`) and the
polytope contacts (sim/contact/separating_axes.py `polytope_contacts_numpy`) do the same float64 arithmetic in the
same order in C, so the two are held to 0 ulps, compared bit for bit (a -0 against a +0 fails): every slot of
box-box's returned arrays (valid or not), every contact of the polytopes' in the same order; of non-finite inputs,
NaN in the same places (their sign and payload aside).
Random cases: pairs of boxes touching, separated, deep, aligned with ties, one turned on the other (more than four
points, reduced) and edge-on; boxes, hulls and wheel prisms against mesh triangles (turned, tilted, level, some facing
away, some edges inactive) and against static boxes and hulls (B's faces, A's and edge-edge points). Real runs, step
after step, their contacts made anew, and the runs' states with PCM's persistent manifolds: benchmarks/fleet.py's
obstacles road (each car's chassis against the box ahead of it), the sample car driven into a box, straight and
turned, and the bump road's fleet dropped on its roofs.
Where the extension is not built (no C compiler) these tests skip."""
from __future__ import annotations

import sys
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES

from physxvehicle_usd.box_corners import box_points
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_narrow_phase
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact.box import box_box, box_box_numpy
from physxvehicle_usd.sim.contact.polytopes import Polytopes, convex_polytope, polytope, triangle_polytopes
from physxvehicle_usd.sim.contact.separating_axes import polytope_contacts, polytope_contacts_numpy
from physxvehicle_usd.sim.contact.world import generate
from physxvehicle_usd.sim.ground import Ground

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage

pytestmark = pytest.mark.skipif(not compiled_narrow_phase.available(), reason="the extension is not built")

DT = 1.0 / 60.0


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _turns(rng: np.random.Generator, n: int) -> np.ndarray:
    """n random rotations (n, 3, 3), rows the axes."""
    q = rng.standard_normal((4, n))
    return np.moveaxis(vm.quat_to_mat(q / np.linalg.norm(q, axis=0)), 2, 0).transpose(0, 2, 1)


def _about_z(angle: np.ndarray) -> np.ndarray:
    c, s, zero, one = np.cos(angle), np.sin(angle), np.zeros_like(angle), np.ones_like(angle)
    return np.stack([np.stack([c, s, zero], 1), np.stack([-s, c, zero], 1), np.stack([zero, zero, one], 1)], 1)


def _support(direction: np.ndarray, R: np.ndarray, half: np.ndarray) -> np.ndarray:
    """How far boxes (axes R as rows, half extents) reach along unit directions (P, 3) from their centres."""
    return (np.abs(np.einsum("pj,pkj->pk", direction, R)) * half).sum(1)


def _pairs(seed: int, kind: str, P: int = 400):
    """P pairs of boxes (A: the vehicle's, B: static) of a kind, and their contact distances."""
    rng = np.random.default_rng(seed)
    ea, eb = rng.uniform(0.2, 2.0, (P, 3)), rng.uniform(0.2, 2.0, (P, 3))
    Ra, Rb = _turns(rng, P), _turns(rng, P)
    distance = rng.uniform(0.0, 0.05, P)
    direction = rng.standard_normal((P, 3))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    reach = _support(direction, Ra, ea) + _support(direction, Rb, eb)  # the boxes' extents along the direction
    if kind == "touching":  # a little into each other along a random direction
        gap = -rng.uniform(0.0, 0.15, P) * reach
    elif kind == "separated":
        gap = rng.uniform(0.06, 1.0, P)
    elif kind == "deep":
        gap = -rng.uniform(0.2, 0.8, P) * reach
    else:  # aligned: the same axes or a quarter turn, face to face (ties between face axes, -0 components)
        Rb = np.where(rng.random(P)[:, None, None] < 0.5, Ra, Ra[:, [1, 0, 2]] * np.array([[1.0], [-1.0], [1.0]]))
        if kind == "stacked":  # one turned on the other about their common axis: up to eight points, reduced
            Rb = np.einsum("pij,pjk->pik", _about_z(rng.uniform(0.0, np.pi / 2, P)), Ra)
        direction = Ra[:, 2] * np.where(rng.random(P) < 0.5, 1.0, -1.0)[:, None]
        reach = ea[:, 2] + _support(direction, Rb, eb)
        gap = rng.choice([-0.01, 0.0, 0.01, 0.04], P) * rng.choice([1.0, 0.5], P)
        if kind == "edge-on":  # B turned 45 degrees about A's x: its edge against A's face
            Rb = np.einsum("ij,pjk->pik", np.array([[1.0, 0, 0], [0, np.sqrt(0.5), np.sqrt(0.5)],
                                                     [0, -np.sqrt(0.5), np.sqrt(0.5)]]), Ra)
            reach = ea[:, 2] + _support(direction, Rb, eb)
    ca = rng.uniform(-5.0, 5.0, (P, 3))
    cb = ca - direction * (reach + gap)[:, None]
    return ca, Ra, ea, cb, Rb, eb, distance


KINDS = ["touching", "separated", "deep", "aligned", "stacked", "edge-on"]


def _assert_same(args) -> tuple[np.ndarray, ...]:
    compiled = compiled_narrow_phase.box_box(*args)
    assert compiled is not None  # the C code ran
    reference = box_box_numpy(*args)
    names = ("made", "points", "separations", "valid", "normal")
    for name, ours, theirs in zip(names, compiled, reference):
        assert _same_bits(ours, theirs), name
    return reference


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_box_box_matches_numpy_to_the_bit(kind, seed):
    made, _, _, valid, _ = _assert_same(_pairs(seed, kind))
    count = valid.sum(1)
    if kind == "separated":
        assert not made.any()
    else:  # the cases are what they say: pairs that make points (four after a reduction where stacked) and some not
        assert made.sum() > 50 and (count <= 4).all()
        if kind in ("stacked", "aligned"):
            assert (count == 4).sum() > 50


def test_compiled_box_box_matches_numpy_on_degenerate_and_non_finite_boxes():
    # flat boxes, a mirrored frame, NaN and infinite centres, axes and distances: the same bits, a NaN's sign and
    # payload aside (the two NaN in the same places)
    args = [a.copy() for a in _pairs(5, "stacked", P=40)]
    ca, Ra, ea, cb, Rb, eb, distance = args
    ca[0, 1], cb[1, 2], Ra[5] = np.nan, np.inf, np.nan
    ea[2], eb[3, 0], distance[4] = 0.0, 0.0, np.nan
    Rb[6, 0] = -Rb[6, 0]
    compiled = compiled_narrow_phase.box_box(*args)
    with np.errstate(invalid="ignore"):
        reference = box_box_numpy(*args)
    assert np.isnan(reference[1]).any() and reference[0].any()  # NaN points, and pairs that still make points
    for ours, theirs in zip(compiled, reference):
        nan = np.isnan(theirs) if theirs.dtype == np.float64 else np.zeros(theirs.shape, bool)
        assert np.array_equal(np.isnan(ours) if ours.dtype == np.float64 else nan, nan)
        assert _same_bits(np.where(nan, 0.0, ours).astype(ours.dtype), np.where(nan, 0.0, theirs).astype(theirs.dtype))


def test_compiled_box_box_covers_only_float64_pairs_of_its_shapes_and_box_box_chooses_it():
    args = _pairs(3, "touching", P=20)
    assert compiled_narrow_phase.box_box(*(a.astype(np.float32) for a in args)) is None
    assert compiled_narrow_phase.box_box(*args[:6], args[6][:5]) is None  # distances of another count
    for ours, theirs in zip(box_box(*args), box_box_numpy(*args)):
        assert _same_bits(ours, theirs)
    empty = compiled_narrow_phase.box_box(*(a[:0] for a in args))
    assert empty is not None and [a.shape for a in empty] == [(0,), (0, 16, 3), (0, 16), (0, 16), (0, 3)]


def _numpy_only(m: pytest.MonkeyPatch) -> None:
    """The narrow phases' numpy code chosen, as where the extension is not built."""
    m.setattr(compiled_narrow_phase, "_LIB", None)
    m.setattr(compiled_narrow_phase, "_POLYTOPES", None)


def _contacts_both_ways(monkeypatch, sim: Simulator) -> tuple[int, int]:
    """The contacts made anew at the simulator's poses with the compiled narrow phases and with numpy's, the same
    bits; how many lie on static boxes and on mesh triangles."""
    position, orientation = sim.state.body_position.astype(float), sim.state.body_orientation.astype(float)
    compiled = generate(sim.contact, sim.ground, position, orientation)
    with monkeypatch.context() as m:
        _numpy_only(m)
        reference = generate(sim.contact, sim.ground, position, orientation)
    for field in ("shape", "static", "point", "normal", "separation"):
        assert _same_bits(getattr(compiled, field), getattr(reference, field)), field
    model = sim.contact
    on_mesh = (compiled.static >= model.plane_count) & (compiled.static < model.polytope_first)
    return int((compiled.static >= model.polytope_first).sum()), int(on_mesh.sum())


def _run_states(monkeypatch, make, steps: int, compiled: bool) -> dict[str, np.ndarray]:
    sim = make()
    with monkeypatch.context() as m:
        if not compiled:
            _numpy_only(m)
        for _ in range(steps):
            sim.step({"accelerator": 1.0})
    return {f.name: getattr(sim.state, f.name) for f in fields(sim.state)
            if isinstance(getattr(sim.state, f.name), np.ndarray)}  # every state array (poses, velocities, wheels)


def _assert_run(monkeypatch, make, steps: int, first_touch: int) -> tuple[int, int]:
    """Contacts made anew step after step, then whole runs with persistent manifolds, compiled against numpy; how
    many contacts were made on static boxes and on mesh triangles."""
    sim = make()
    on_boxes = on_mesh = 0
    for k in range(steps):
        sim.step({"accelerator": 1.0})
        if k >= first_touch:
            boxes, mesh = _contacts_both_ways(monkeypatch, sim)
            on_boxes, on_mesh = on_boxes + boxes, on_mesh + mesh
    ours, theirs = _run_states(monkeypatch, make, steps, True), _run_states(monkeypatch, make, steps, False)
    assert "body_position" in ours and ours.keys() == theirs.keys()
    for name in ours:
        assert _same_bits(ours[name], theirs[name]), name
    return on_boxes, on_mesh


def _box_on_box(sim: Simulator) -> Simulator:
    assert sim.contact.boxes.mask.any() and sim.contact.static_boxes.mask.any()  # box against box: box_box's pairs
    return sim


def test_the_obstacles_fleet_makes_the_same_contacts_and_runs_compiled(monkeypatch, tmp_path):
    description = read_stage(str(fleet_stage(4, tmp_path, road="obstacles")))
    on_boxes, _ = _assert_run(monkeypatch, lambda: _box_on_box(Simulator.from_description(description, DT)),
                              steps=45, first_touch=25)
    assert on_boxes > 0  # the chassis met its box


@pytest.mark.parametrize("turn", [0.0, 0.5])
def test_the_sample_car_driven_into_a_box_makes_the_same_contacts_and_runs_compiled(monkeypatch, turn):
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(SAMPLES / "car" / "car.usda"))
    cube = UsdGeom.Cube.Define(stage, "/World/Wall")
    cube.CreateSizeAttr(1.0)
    cube.AddTranslateOp().Set(Gf.Vec3d(3.2, 0.0, 0.6))
    cube.AddRotateXYZOp().Set(Gf.Vec3f(0.0, 10.0 * turn, 57.29578 * turn))  # turned: an edge or corner first
    cube.AddScaleOp().Set(Gf.Vec3f(0.6, 3.0, 0.8))
    UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    description = read_stage(stage)
    on_boxes, _ = _assert_run(monkeypatch, lambda: _box_on_box(Simulator.from_description(description, DT)),
                              steps=60, first_touch=0)
    assert on_boxes > 0  # the chassis met the box


def test_cars_dropped_on_their_roofs_onto_the_bump_road_make_the_same_contacts_and_run_compiled(monkeypatch, tmp_path):
    # benchmarks/fleet.py's triangle-mesh road: each chassis box lands upside down on the mesh's triangles
    description = read_stage(str(fleet_stage(2, tmp_path, road="bumps")))

    def upside_down() -> Simulator:
        sim = Simulator.from_description(description, DT)
        x, y = sim.state.body_position[:2].astype(float)
        for v in range(2):
            sim.reset_vehicles([v], position=(x[v], y[v], 0.95), orientation=(0.0, 1.0, 0.0, 0.0))
        return sim

    _, on_mesh = _assert_run(monkeypatch, upside_down, steps=30, first_touch=0)
    assert on_mesh > 0  # the roofs met the road


def _wheel_prism(corners: int = 30, radius: float = 0.35, width: float = 0.25) -> np.ndarray:
    angle = np.arange(corners) * 2.0 * np.pi / corners
    ring = np.stack([np.zeros(corners), radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return np.concatenate([ring + [width / 2, 0.0, 0.0], ring - [width / 2, 0.0, 0.0]])


# the vehicles' polytopes: a chassis box (PCM's box loops), a random hull, a wheel's 30-sided prism (loops of 30)
SHAPES = (convex_polytope(box_points([2.2, 0.9, 0.5])), polytope(np.random.default_rng(7).normal(size=(14, 3))),
          polytope(_wheel_prism()))


def _polytopes_on_triangles(seed: int, kind: str, P: int = 300):
    """P pairs of a turned and moved vehicle polytope (A) and a mesh triangle near it (B), with its single-sided
    normal, contact distances and, every other seed, zero radii (a model with round shapes elsewhere)."""
    rng = np.random.default_rng(seed)
    which = rng.integers(0, len(SHAPES), P)
    stacked = Polytopes.stack([SHAPES[k] for k in which])
    R = _turns(rng, P).transpose(0, 2, 1) if kind != "level" else np.broadcast_to(np.eye(3), (P, 3, 3)).copy()
    x = rng.uniform(-20.0, 20.0, (P, 3))
    vertices = np.einsum("pij,pkj->pki", R, stacked.vertices) + x[:, None, :]
    normals = np.einsum("pij,pfj->pfi", R, stacked.normals)
    offsets = np.where(stacked.face_mask, np.einsum("pfj,pfj->pf", normals, np.take_along_axis(
        vertices, stacked.loops[:, :, :1], 1)), -np.inf)
    A = Polytopes(vertices, normals, offsets, stacked.face_mask, stacked.loops, stacked.loop_counts, stacked.edges,
                  stacked.edge_mask, stacked.axis_edges, stacked.axis_mask)
    # a triangle about a point of the polytope's surface: a vertex, or the middle of a face, moved in or out a little
    face = np.array([rng.choice(np.nonzero(m)[0]) for m in stacked.face_mask])
    rows = np.arange(P)
    on_face = vertices[rows[:, None], A.loops[rows, face]].mean(axis=1)
    corner = vertices[rows, rng.integers(0, 8, P)]
    at = np.where((rng.random(P) < 0.5)[:, None], on_face, corner)
    up = normals[rows, face] if kind != "tilted" else rng.standard_normal((P, 3))
    up = up / np.linalg.norm(up, axis=1, keepdims=True)
    at = at + up * rng.uniform(-0.1, 0.05, (P, 1))
    side = np.cross(up, rng.standard_normal((P, 3)))
    side /= np.linalg.norm(side, axis=1, keepdims=True)
    size = rng.uniform(0.3, 3.0, (P, 1))
    v0 = at - size * side + rng.normal(scale=0.2, size=(P, 3)) * (kind == "tilted")
    e1 = 2.0 * size * side
    e2 = size * np.cross(up, side) * 1.5 + size * side
    if kind == "level":  # level triangles under level shapes: ties between faces, zero components
        v0, e1, e2 = np.round(v0, 1), np.round(e1, 1), np.round(e2, 1)
    normal = np.cross(e1, e2)
    flip = rng.random(P) < 0.15  # some face away: their back side makes no contact
    e1, e2 = np.where(flip[:, None], e2, e1), np.where(flip[:, None], e1, e2)
    normal = np.where(flip[:, None], -normal, normal)
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    ground = Ground(np.zeros((0, 3)), np.zeros(0), (), v0, e1, e2, normal, np.zeros(P, np.int64), (None,),
                    tri_active=rng.random((P, 3)) < 0.8)
    B = triangle_polytopes(ground, np.arange(P))
    limit = rng.uniform(0.0, 0.05, P)
    radius = np.zeros(P) if seed % 2 else None
    return A, B, np.arange(P) * 2, np.arange(P) % 5, limit, ground.tri_normals, radius


def _compiled_polytope_contacts_are_numpy_s(A, B, shape, static, limit, single_sided, radius):
    """Asserts that the C code ran for these pairs and made numpy's contacts to the bit; numpy's contacts."""
    assert compiled_narrow_phase.polytope_contacts(A, B, limit, single_sided, radius) is not None  # the C code ran
    ours = polytope_contacts(A, B, shape, static, limit, single_sided, radius=radius)
    theirs = polytope_contacts_numpy(A, B, shape, static, limit, single_sided, radius=radius)
    for field in ("shape", "static", "point", "normal", "separation", "pair"):
        assert _same_bits(getattr(ours, field), getattr(theirs, field)), field
    return theirs


@pytest.mark.parametrize("kind", ["turned", "tilted", "level"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_compiled_polytope_triangle_contacts_match_numpy_to_the_bit(kind, seed):
    A, B, shape, static, limit, single_sided, radius = _polytopes_on_triangles(seed, kind)
    theirs = _compiled_polytope_contacts_are_numpy_s(A, B, shape, static, limit, single_sided, radius)
    # the cases are what they say: many pairs touch, with the triangle's face and with the polytope's as reference
    assert len(np.unique(theirs.pair)) > 40
    along_triangle = np.einsum("cj,cj->c", theirs.normal, single_sided[theirs.pair]) > 1.0 - 1e-12
    assert along_triangle.any() and (~along_triangle).any() if kind != "level" else along_triangle.any()


def test_compiled_polytope_triangle_contacts_cover_what_they_implement():
    A, B, shape, static, limit, single_sided, _ = _polytopes_on_triangles(3, "turned", P=20)
    assert compiled_narrow_phase.polytope_contacts(A, B, limit, single_sided, np.full(20, 0.1)) is None  # round
    assert compiled_narrow_phase.polytope_contacts(A, B, limit.astype(np.float32), single_sided, None) is None
    empty = polytope_contacts(A, B, shape, static, limit, single_sided)  # the same as numpy's where nothing touches
    shift = np.array([0.0, 0.0, 100.0])  # the triangles moved far away
    far = replace(B, vertices=B.vertices + shift, offsets=B.offsets + B.normals @ shift)
    nothing = polytope_contacts(A, far, shape, static, limit, single_sided)
    assert len(empty) and len(nothing) == 0 and nothing.pair is None


# the static polytopes: boxes (as a static box collider's hull) and a random hull
STATIC_SHAPES = (polytope(box_points([0.3, 0.6, 0.7])), polytope(box_points([3.0, 3.0, 0.2])),
                 polytope(np.random.default_rng(8).normal(size=(12, 3)) * [1.0, 0.5, 0.7]))


def _polytopes_on_polytopes(seed: int, P: int = 300):
    """P pairs of a turned and moved vehicle polytope (A) and a static polytope (B) placed against it along a random
    direction, a little into it or short of it, with contact distances and, every other seed, zero radii."""
    rng = np.random.default_rng(seed)
    A, *_ = _polytopes_on_triangles(seed, "turned", P)
    which = rng.integers(0, len(STATIC_SHAPES), P)
    stacked = Polytopes.stack([STATIC_SHAPES[k] for k in which])
    R = _turns(rng, P).transpose(0, 2, 1)
    rows = np.arange(P)
    face = np.array([rng.choice(np.nonzero(m)[0]) for m in A.face_mask])
    at = np.where((rng.random(P) < 0.5)[:, None], A.vertices[rows[:, None], A.loops[rows, face]].mean(axis=1),
                  A.vertices[rows, rng.integers(0, 8, P)])
    away = rng.standard_normal((P, 3))
    away /= np.linalg.norm(away, axis=1, keepdims=True)
    turned = np.einsum("pij,pkj->pki", R, stacked.vertices)
    reach = (turned * -away[:, None, :]).sum(2).max(1)  # how far B reaches back along -away from its origin
    x = at + away * (reach + rng.uniform(-0.1, 0.05, P))[:, None]
    normals = np.einsum("pij,pfj->pfi", R, stacked.normals)
    B = Polytopes(turned + x[:, None, :], normals, stacked.offsets + np.einsum("pfj,pj->pf", normals, x),
                  stacked.face_mask, stacked.loops, stacked.loop_counts, stacked.edges, stacked.edge_mask,
                  stacked.axis_edges, stacked.axis_mask)
    limit = rng.uniform(0.0, 0.05, P)
    return A, B, np.arange(P) * 3, np.arange(P) % 7, limit, None, np.zeros(P) if seed % 2 else None


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_compiled_polytope_contacts_against_static_polytopes_match_numpy_to_the_bit(seed):
    A, B, shape, static, limit, _, radius = _polytopes_on_polytopes(seed)
    theirs = _compiled_polytope_contacts_are_numpy_s(A, B, shape, static, limit, None, radius)
    # the cases are what they say: many pairs touch, on B's faces, on A's and edge to edge
    assert len(np.unique(theirs.pair)) > 40
    along_b = np.abs(np.einsum("cj,cfj->cf", theirs.normal, B.normals[theirs.pair])).max(1) > 1.0 - 1e-12
    along_a = np.abs(np.einsum("cj,cfj->cf", theirs.normal, A.normals[theirs.pair])).max(1) > 1.0 - 1e-12
    assert along_b.any() and (along_a & ~along_b).any() and (~along_a & ~along_b).any()


@pytest.mark.parametrize("static", ["triangles", "polytopes"])
def test_compiled_polytope_contacts_match_numpy_on_non_finite_pairs(static):
    # NaN and infinite vertices, a NaN normal, NaN and infinite contact distances among finite pairs: the same
    # contacts, NaN in the same places (their sign and payload aside)
    A, B, shape, statics, limit, single_sided, radius = (_polytopes_on_triangles(0, "turned", 60)
                                                         if static == "triangles" else _polytopes_on_polytopes(0, 60))
    vertices, normals, static_vertices = A.vertices.copy(), A.normals.copy(), B.vertices.copy()
    vertices[3, 2, 1], vertices[5], normals[13, 0], static_vertices[7, 1, 0] = np.nan, np.inf, np.nan, np.nan
    limit = limit.copy()
    limit[9], limit[11] = np.nan, np.inf
    A, B = replace(A, vertices=vertices, normals=normals), replace(B, vertices=static_vertices)
    assert compiled_narrow_phase.polytope_contacts(A, B, limit, single_sided, radius) is not None
    with np.errstate(invalid="ignore", over="ignore"):
        ours = polytope_contacts(A, B, shape, statics, limit, single_sided, radius=radius)
        theirs = polytope_contacts_numpy(A, B, shape, statics, limit, single_sided, radius=radius)
    assert len(theirs) > 20
    for field in ("shape", "static", "point", "normal", "separation", "pair"):
        a, b = getattr(ours, field), getattr(theirs, field)
        nan = np.isnan(b) if b.dtype == np.float64 else np.zeros(b.shape, bool)
        assert np.array_equal(np.isnan(a) if a.dtype == np.float64 else nan, nan), field
        assert _same_bits(np.where(nan, 0, a).astype(a.dtype), np.where(nan, 0, b).astype(b.dtype)), field
