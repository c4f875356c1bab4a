"""The planes' quiet question answered in the compiled begin of a step (sim/_step_begin.c with contact/broad.py
`begin_check`): handed the planes' quiet reference, the begin takes the fleet's motion since it (sim/_motion.c's
reductions) and decides broad.quiet_above_planes' inequality in the same call. It must be the same decision as the
Python form's (kept as the reference) for a lone car and a fleet, over one plane and several, for NaN poses, and for a
car brought towards a plane until the test fails; the reductions it hands a fleet's Motion must be the bounds Motion
measures itself (0 ulps); and whole runs with and without it are the same to the bit."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pxr import Usd, UsdGeom, UsdPhysics
from scenarios import vehicle_contact as scenario

from physxvehicle_usd import simulate
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_begin
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact.broad import begin_check, quiet_above_planes, static_candidates
from physxvehicle_usd.sim.motion import Motion

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage

pytestmark = pytest.mark.skipif(not compiled_begin.available(), reason="the compiled extension is not built")

DT = 1.0 / 60.0
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "car" / "car.usda"


def _lone_car(wall: bool = False) -> Simulator:
    """The sample car alone on its ground plane; with `wall`, a second plane: a wall facing +x, 6 m behind it."""
    stage = Usd.Stage.Open(str(SAMPLE))
    if wall:
        plane = UsdGeom.Plane.Define(stage, "/World/Wall")
        plane.CreateAxisAttr("X")
        plane.AddTranslateOp().Set((-6.0, 0.0, 0.0))
        UsdPhysics.CollisionAPI.Apply(plane.GetPrim())
    sim = Simulator.from_description(read_stage(stage), DT)
    assert sim.params.V == 1 and sim.contact.static_shapes is None and sim.ground.grid is None
    assert len(sim.ground.plane_normals) == (2 if wall else 1)
    return sim


def _fleet() -> Simulator:
    """Four sample cars (two lanes of two) on the ground plane, with their chassis boxes and bumpers."""
    layer = scenario.layer({"RearEnd4": ("rear", 4.0), "Sphere4": ("sphere", 4.0)})
    sim = Simulator.from_description(read_stage(Usd.Stage.Open(layer)), DT)
    assert sim.params.V == 4 and sim.contact.static_shapes is None and sim.ground.grid is None
    return sim


def _answers(sim: Simulator, position: np.ndarray, orientation: np.ndarray) -> tuple[bool, bool, list | None]:
    """At the pose (float64 (3, V), (4, V), held as float32 as the state holds it): the compiled begin's answer, the
    Python form's, and the begin's reductions."""
    s, model, ground = sim.state, sim.contact, sim.ground
    s.body_position, s.body_orientation = position.astype(np.float32), orientation.astype(np.float32)
    begun = compiled_begin.begin(sim.params, s, DT, begin_check(model, ground, sim.params.V))
    python = quiet_above_planes(model, ground, Motion(s.body_position, s.body_orientation))
    handed = model.cache["planes_quiet"].get("begin")  # (begin_check's: the PlanesQuiet the begin measured into)
    return compiled_begin.planes_quiet(begun), python, compiled_begin.motion_reductions(handed[2])


def _turned(orientation: np.ndarray, v: int, axis, angle: float) -> None:
    axis = np.asarray(axis) / max(np.linalg.norm(axis), 1e-9)
    turn = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
    orientation[:, v] = vm.quat_mul(turn[:, None], orientation[:, v, None])[:, 0]


_step = st.tuples(st.tuples(st.floats(-0.6, 0.6), st.floats(-0.6, 0.6), st.floats(-0.3, 0.1)),
                  st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3), st.floats(0.0, 0.3))


@pytest.mark.parametrize("wall", [False, True])
@settings(max_examples=40, deadline=None)
@given(steps=st.lists(st.lists(_step, min_size=1, max_size=4), min_size=1, max_size=8))
def test_the_begin_decides_as_quiet_above_planes(wall, steps):
    """Random moves and turns of a lone car (over one plane and two) and of a fleet of four: at each pose the begin's
    answer is quiet_above_planes', and its reductions give a fleet's Motion the bounds it measures itself; then the
    broad phase runs, refreshing the reference where it tests a box (the begin's copy of it made again)."""
    for sim in (_lone_car(wall), _fleet()) if not wall else (_lone_car(wall),):
        model, ground, V = sim.contact, sim.ground, sim.params.V
        position = sim.state.body_position.astype(float)
        orientation = sim.state.body_orientation.astype(float)
        assert begin_check(model, ground, V) is not None  # (kept since the build: sim/broad_start.py)
        static_candidates(model, ground, position.astype(np.float32), orientation.astype(np.float32))
        quiet_steps = 0
        for step in steps:
            for v, (move, axis, angle) in enumerate(step[:V]):
                position[:, v] += move
                _turned(orientation, v, axis, angle)
            ours, python, reductions = _answers(sim, position, orientation)
            assert ours == python
            quiet_steps += ours
            if V > 1 and reductions is not None:
                reference = model.cache["planes_quiet"]["position"], model.cache["planes_quiet"]["orientation"]
                given_bounds = Motion(sim.state.body_position, sim.state.body_orientation)
                given_bounds.measured(*reference, reductions)
                measured = Motion(sim.state.body_position, sim.state.body_orientation).bounds(*reference)
                assert given_bounds.bounds(*reference) == measured  # (the same compiled pass: 0 ulps)
            static_candidates(model, ground, sim.state.body_position, sim.state.body_orientation)


@pytest.mark.parametrize("wall", [False, True])
def test_a_car_brought_towards_a_plane_is_quiet_until_the_python_form_says_otherwise(wall):
    """The lone car lowered towards the floor (or backed towards the wall) a centimetre a step, with no broad phase
    run between (the reference stays): the begin says quiet exactly while quiet_above_planes does, then both say no;
    and so at every float32 coordinate around the last quiet one (found by bisection); a NaN pose is never quiet and
    gives no reductions."""
    sim = _lone_car(wall)
    model, ground = sim.contact, sim.ground
    position = sim.state.body_position.astype(float)
    orientation = sim.state.body_orientation.astype(float)
    static_candidates(model, ground, position.astype(np.float32), orientation.astype(np.float32))
    axis = 0 if wall else 2
    answers = []
    for k in range(600):
        moved = position.copy()
        moved[axis, 0] -= 0.01 * k
        ours, python, reductions = _answers(sim, moved, orientation)
        assert ours == python and reductions is not None
        answers.append(ours)
        if not ours:
            break
    assert answers[0] and not answers[-1] and len(answers) > 5
    # the edge: the float32 coordinates around where the Python form stops saying quiet, one by one
    quiet_at, loud_at = float(position[axis, 0] - 0.01 * (len(answers) - 2)), float(position[axis, 0] - 0.01 * k)
    for _ in range(60):
        middle = np.float32(0.5 * (quiet_at + loud_at))
        moved = position.copy()
        moved[axis, 0] = middle
        if _answers(sim, moved, orientation)[1]:
            quiet_at = float(middle)
        else:
            loud_at = float(middle)
    edge = []
    value = np.float32(quiet_at)
    for _ in range(8):
        value = np.nextafter(value, np.float32(np.inf))
    for _ in range(16):
        moved = position.copy()
        moved[axis, 0] = value
        ours, python, _ = _answers(sim, moved, orientation)
        assert ours == python
        edge.append(python)
        value = np.nextafter(value, np.float32(-np.inf))
    assert edge[0] and not edge[-1]
    broken = position.copy()
    broken[1, 0] = np.nan
    assert _answers(sim, broken, orientation) == (False, False, None)
    assert _answers(sim, position, orientation)[:2] == (True, True)  # (the reference was kept throughout)


def test_no_reference_is_handed_over_where_the_python_form_would_not_ask():
    """begin_check hands no reference where quiet_above_planes would not use one: before the broad phase has kept
    one (the build's dropped here), for another vehicle count, or for a ground that is not the one the reference was
    taken on."""
    sim = _lone_car()
    model, ground = sim.contact, sim.ground
    assert begin_check(model, ground, 1) is not None  # (kept since the build: sim/broad_start.py)
    del model.cache["planes_quiet"]
    assert begin_check(model, ground, 1) is None
    static_candidates(model, ground, sim.state.body_position, sim.state.body_orientation)
    assert begin_check(model, ground, 1) is not None
    assert begin_check(model, ground, 2) is None
    assert begin_check(model, _lone_car().ground, 1) is None


def _trajectory(sim: Simulator, steps: int, controls: dict) -> np.ndarray:
    s = sim.state
    out = []
    for _ in range(steps):
        sim.step(controls)
        out.append(np.concatenate([s.body_position.ravel(), s.body_orientation.ravel(), s.linear_velocity.ravel(),
                                   s.angular_velocity.ravel()]))
    return np.array(out)


def _benchmark_fleet(tmp_path: Path) -> Simulator:
    """The benchmark's fleet of 12 cars on the plane, compiled, with its vehicle pairs and queries (their quiet broad
    phases share the planes' reference pose)."""
    sim = simulate.load(fleet_stage(12, tmp_path, road="plane"), DT).simulator
    assert sim.options.compiled and sim.contact.pairs is not None and sim.queries is not None
    return sim


@pytest.mark.parametrize("vehicles", ["lone car", "four cars", "benchmark fleet"])
def test_runs_with_the_begins_answer_are_the_python_forms_to_the_bit(monkeypatch, tmp_path, vehicles):
    """Whole runs (full throttle with a steer; the benchmark fleet's pairs and queries taking the begin's reductions
    for the shared reference) with the begin answering and with the question left to quiet_above_planes: the same
    trajectories, 0 ulps; the begin found the planes quiet on most steps."""
    make = {"lone car": _lone_car, "four cars": _fleet, "benchmark fleet": lambda: _benchmark_fleet(tmp_path)}[vehicles]
    begin = compiled_begin.begin
    quiet = {"steps": 0}

    def counted(p, s, dt, planes=None):
        begun = begin(p, s, dt, planes)
        quiet["steps"] += begun is not None and compiled_begin.planes_quiet(begun)
        return begun

    controls = {"accelerator": 1.0, "steer": 0.3}
    monkeypatch.setattr(compiled_begin, "begin", counted)
    ours = _trajectory(make(), 90, controls)
    assert quiet["steps"] > 45
    monkeypatch.setattr(compiled_begin, "begin", lambda p, s, dt, planes=None: begin(p, s, dt))
    theirs = _trajectory(make(), 90, controls)
    np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))
    assert np.abs(ours[-1] - ours[0]).max() > 1.0


def test_a_reference_of_values_no_float32_holds_is_read_as_float64():
    """A reference pose whose values are not all float32's (a reference is taken from the float32 state, so this is
    the begin's fallback: it reads the float64 arrays, not float32 copies) gives the same answers and bounds: the
    fleet a hair off its reference, then lowered until the Python form says no."""
    sim = _fleet()
    model, ground, V = sim.contact, sim.ground, sim.params.V
    position = sim.state.body_position.astype(float)
    orientation = sim.state.body_orientation.astype(float)
    static_candidates(model, ground, position.astype(np.float32), orientation.astype(np.float32))
    quiet = model.cache["planes_quiet"]
    quiet["position"], quiet["orientation"] = quiet["position"] + 1e-9, quiet["orientation"] * (1.0 - 1e-12)
    quiet.pop("begin", None)
    assert begin_check(model, ground, V) is not None and not quiet["begin"][2].reference_single
    answers = []
    for k in range(60):
        moved = position.copy()
        moved[2, 1] -= 0.01 * k
        ours, python, reductions = _answers(sim, moved, orientation)
        assert ours == python and reductions is not None
        given_bounds = Motion(sim.state.body_position, sim.state.body_orientation)
        given_bounds.measured(quiet["position"], quiet["orientation"], reductions)
        measured = Motion(sim.state.body_position, sim.state.body_orientation)
        assert given_bounds.bounds(quiet["position"], quiet["orientation"]) == measured.bounds(
            quiet["position"], quiet["orientation"])
        answers.append(ours)
    assert answers[0] and not answers[-1]
