"""The compiled narrow phases (sim/_narrow_phase.c through sim/compiled_narrow_phase.py) against their numpy twins, the
reference: PCM's box-box contacts (sim/contact/box.py `box_box_numpy`) do the same float64 arithmetic in the same
order in C, so the two are held to 0 ulps, compared bit for bit (a -0 against a +0 fails), every slot of every
returned array (valid or not); of non-finite inputs, NaN in the same places (their sign and payload aside). On random pairs of boxes (touching, separated, edge-on, deep, aligned with ties, one
turned on the other so that more than four points are reduced) and on real runs: benchmarks/fleet.py's obstacles road
(each car's chassis against the box ahead of it) and the sample car driven into a box, straight and turned, step
after step, their contacts made anew and the runs' states with PCM's persistent manifolds.
Where the extension is not built (no C compiler) these tests skip."""
from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest
from conftest import SAMPLES

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_narrow_phase
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact.box import box_box, box_box_numpy
from physxvehicle_usd.sim.contact.world import generate

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


def _contacts_both_ways(monkeypatch, sim: Simulator) -> int:
    """The contacts made anew at the simulator's poses with the compiled box-box and with numpy's, the same bits;
    how many lie on static boxes."""
    position, orientation = sim.state.body_position.astype(float), sim.state.body_orientation.astype(float)
    compiled = generate(sim.contact, sim.ground, position, orientation)
    with monkeypatch.context() as m:
        m.setattr(compiled_narrow_phase, "_LIB", None)
        reference = generate(sim.contact, sim.ground, position, orientation)
    for field in ("shape", "static", "point", "normal", "separation"):
        assert _same_bits(getattr(compiled, field), getattr(reference, field)), field
    return int((compiled.static >= sim.contact.polytope_first).sum()) if len(compiled) else 0


def _run_states(monkeypatch, make, steps: int, compiled: bool) -> dict[str, np.ndarray]:
    sim = make()
    with monkeypatch.context() as m:
        if not compiled:
            m.setattr(compiled_narrow_phase, "_LIB", None)
        for _ in range(steps):
            sim.step({"accelerator": 1.0})
    return {f.name: getattr(sim.state, f.name) for f in fields(sim.state)
            if isinstance(getattr(sim.state, f.name), np.ndarray)}  # every state array (poses, velocities, wheels)


def _assert_run(monkeypatch, make, steps: int, first_touch: int) -> None:
    """Contacts made anew step after step, then whole runs with persistent manifolds, compiled against numpy."""
    sim = make()
    assert sim.contact.boxes.mask.any() and sim.contact.static_boxes.mask.any()  # box against box: box_box's pairs
    on_boxes = 0
    for k in range(steps):
        sim.step({"accelerator": 1.0})
        if k >= first_touch:
            on_boxes += _contacts_both_ways(monkeypatch, sim)
    assert on_boxes > 0  # the chassis met its box
    ours, theirs = _run_states(monkeypatch, make, steps, True), _run_states(monkeypatch, make, steps, False)
    assert "body_position" in ours and ours.keys() == theirs.keys()
    for name in ours:
        assert _same_bits(ours[name], theirs[name]), name


def test_the_obstacles_fleet_makes_the_same_contacts_and_runs_compiled(monkeypatch, tmp_path):
    description = read_stage(str(fleet_stage(4, tmp_path, road="obstacles")))
    _assert_run(monkeypatch, lambda: Simulator.from_description(description, DT), steps=45, first_touch=25)


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
    _assert_run(monkeypatch, lambda: Simulator.from_description(description, DT), steps=60, first_touch=0)
