"""The compiled end of a step (sim/_end_step.c through sim/compiled_end_step.py) against its numpy twin
(pipeline.constraint_rows, then rigid_body.end_step_physx with row_solver's `_solve_soft_rows` and `_solve_rows_tgs`).

The C call does the numpy code's arithmetic in its order and precision (float32 state; damping factors and spring
gains formed in double; einsum's sums from +0; numpy's own sin and cos for the pose's rotation), so the two are held
to 0 ulps, compared bit for bit (a -0 against a +0 fails): the velocities and the pose, on random states (random
sticky flags, some vehicles without rows, some with suspension-limit rows, velocities over their limits, vehicles
without the gyroscopic term) and over whole simulated runs (a braked fleet at rest, on a slope, rolling; cars whose
suspension-limit rows act). A vehicle's result does not depend on the thread count.
Where the extension is not built (no C compiler) these tests skip.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
from pxr import Gf, UsdPhysics
from scenarios.regimes import build as build_regimes
from test_sim_row_solver import DT, _cars, _trajectory

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_end_step, pipeline
from physxvehicle_usd.sim.pipeline import StepOptions
from physxvehicle_usd.sim.rigid_body import end_step_physx, end_velocity
from physxvehicle_usd.sim.suspension import RoadGeometry

pytestmark = pytest.mark.skipif(not compiled_end_step.available(), reason="the compiled extension is not built")

BRAKED = {"accelerator": 0.0, "brake0": 1.0}
BODY = ("linear_velocity", "angular_velocity", "body_position", "body_orientation")


@pytest.fixture(scope="module")
def fleet() -> Simulator:
    """Seven sample cars (float32), a second into a braked run: the parameters and substep outputs of the random
    states."""
    sim = Simulator.from_description(read_stage(_cars(7)), DT)
    for _ in range(60):
        sim.step({k: np.full(sim.params.V, v) for k, v in BRAKED.items()})
    return sim


def _random_state(sim: Simulator, seed: int, limits: str):
    """(params, state, road normal, begin position, begin orientation): the fleet's parameters with random damping,
    velocity limits and gyroscopic flags, and a random state after the substeps (sticky flags, rows' directions and
    arms, velocities, a pose that moved from the begin pose); `limits`: which vehicles have a wheel below its
    suspension's full compression (a negative separation: an active limit row), "none", "some" or "all"."""
    rng = np.random.default_rng(seed)
    p, s = copy.copy(sim.params), copy.deepcopy(sim.state)
    V, W = p.V, p.W
    p.linear_damping = rng.choice([0.0, 0.05, 0.5, 70.0], V)  # 70 / s: a factor of 0 over a step
    p.angular_damping = rng.choice([0.0, 0.05, 3.0], V)
    p.max_linear_velocity = rng.choice([np.float32(1e15), np.float32(1.5)], V).astype(np.float32)
    p.max_angular_velocity = rng.choice([np.float32(1e15), np.float32(0.7)], V).astype(np.float32)
    p.gyroscopic = rng.random(V) < 0.7
    p.any_gyroscopic, p.all_gyroscopic = bool(p.gyroscopic.any()), bool(p.gyroscopic.all())
    s.linear_velocity = (rng.standard_normal((3, V)) * 2.0).astype(np.float32)
    s.angular_velocity = (rng.standard_normal((3, V)) * 1.0).astype(np.float32)
    s.linear_velocity[:, 0] = s.angular_velocity[:, 0] = 0.0  # at rest
    s.angular_velocity[:, 1] = -0.0
    q = rng.standard_normal((4, V))
    begin_orientation = (q / np.linalg.norm(q, axis=0)).astype(np.float32)
    turned = begin_orientation + (rng.standard_normal((4, V)) * 0.01).astype(np.float32)
    s.body_orientation = (turned / np.linalg.norm(turned, axis=0)).astype(np.float32)
    begin_position = (rng.standard_normal((3, V)) * 50.0).astype(np.float32)
    s.body_position = begin_position + (rng.standard_normal((3, V)) * 0.02).astype(np.float32)
    s.sticky_lng, s.sticky_lat = rng.random((V, W)) < 0.5, rng.random((V, W)) < 0.5
    s.sticky_lng[2:4], s.sticky_lat[2:4] = False, False  # two vehicles without rows
    s.separation = (rng.random((V, W)) * 0.01).astype(np.float32)
    if limits == "some":  # a limit row in vehicles 0 (at rest), 4 and 5 (the others' rows sticky only, or none)
        s.separation[[0, 4, 5, 5], [1, 0, 2, 3]] = np.float32([-0.02, -0.001, -0.05, -0.003])
    elif limits == "all":  # (one solve group of the whole fleet: the C call solves it into its outputs)
        s.separation[:, 2] = np.float32(-0.01)
    normal = rng.standard_normal((3, V, W))
    normal = (normal / np.linalg.norm(normal, axis=0)).astype(np.float32)
    s.out = dict(s.out)
    for name in ("_lng_dir", "_lat_dir"):
        v = rng.standard_normal((3, V, W))
        s.out[name] = (v / np.linalg.norm(v, axis=0)).astype(np.float32)
    s.out["_app_arm"] = (rng.standard_normal((3, V, W)) * 1.5).astype(np.float32)
    return p, s, normal, begin_position, begin_orientation


def _numpy_end(p, s, normal, begin_position, begin_orientation, kernel_threads, dt=DT):
    """The numpy path: the rows constraint_rows lists, then end_step_physx (its solves in numpy, or in
    compiled_rows' C with kernel_threads)."""
    V, W = p.V, p.W
    road = RoadGeometry(hit=np.ones((V, W), bool), normal=normal, offset=np.zeros((V, W), np.float32),
                        friction=np.ones((V, W), np.float32), shape=np.zeros((V, W), np.int64))
    rows = pipeline.constraint_rows(p, s, road)
    end_step_physx(p, s, begin_position, begin_orientation, rows, dt, None, None, kernel_threads)


def _both_ends(p, s, normal, begin_position, begin_orientation, dt=DT):
    """The compiled end step and numpy's on copies of s: the compiled one's state, after checking the two agree to the
    bit (0 ulps, the sign of zero included)."""
    ours, theirs = copy.deepcopy(s), copy.deepcopy(s)
    compiled_end_step.end_step(p, ours, normal, begin_position, begin_orientation, dt, 1)
    _numpy_end(p, theirs, normal, begin_position, begin_orientation, None, dt)
    for a, b in zip(_bits(ours), _bits(theirs)):
        np.testing.assert_array_equal(a, b)
    return ours


def _bits(s) -> list[np.ndarray]:
    for name in BODY:
        assert getattr(s, name).dtype == np.float32
    return [getattr(s, name).view(np.uint32).copy() for name in BODY]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("limits", ["none", "some", "all"])
def test_the_compiled_end_of_a_step_is_numpy_s_to_the_bit_on_random_states(fleet, seed, limits):
    p, s, normal, begin_position, begin_orientation = _random_state(fleet, seed, limits)
    assert compiled_end_step.covers(p, s, normal)
    before = _bits(s)
    ours, theirs, compiled_rows = copy.deepcopy(s), copy.deepcopy(s), copy.deepcopy(s)
    compiled_end_step.end_step(p, ours, normal, begin_position, begin_orientation, DT, 1)
    _numpy_end(p, theirs, normal, begin_position, begin_orientation, None)
    _numpy_end(p, compiled_rows, normal, begin_position, begin_orientation, 1)
    for a, b, c in zip(_bits(ours), _bits(theirs), _bits(compiled_rows)):
        np.testing.assert_array_equal(a, b)  # 0 ulps, the sign of zero included
        np.testing.assert_array_equal(a, c)
    changed = [not np.array_equal(a, b) for a, b in zip(before, _bits(ours))]
    assert all(changed)  # every part of the state moved


@pytest.mark.parametrize("limits", ["none", "some"])
def test_full_blocks_of_sixteen_soft_vehicles_are_numpy_s_to_the_bit(limits):
    """Forty cars: the soft group fills two blocks of 16 lanes (loaded as vectors) and part of a third."""
    sim = Simulator.from_description(read_stage(_cars(40)), DT)
    for _ in range(5):
        sim.step({k: np.full(sim.params.V, v) for k, v in BRAKED.items()})
    p, s, normal, begin_position, begin_orientation = _random_state(sim, 3, limits)
    ours = _both_ends(p, s, normal, begin_position, begin_orientation)
    assert not np.array_equal(_bits(ours)[0], _bits(s)[0])  # the solve moved the velocities


def test_sticky_dampings_that_differ_within_a_block_are_numpy_s_to_the_bit():
    """Forty cars whose sticky rows' dampings differ from car to car (each lane's spring gain its own): the first
    block's lanes differ, the second's lateral rows have none (-0 in one car, +0 in the others), the rest share one."""
    sim = Simulator.from_description(read_stage(_cars(40)), DT)
    for _ in range(5):
        sim.step({k: np.full(sim.params.V, v) for k, v in BRAKED.items()})
    p, s, normal, begin_position, begin_orientation = _random_state(sim, 5, "none")
    rng = np.random.default_rng(5)
    lng = p.sticky_lng_damping_w.astype(np.float32)
    lat = p.sticky_lat_damping_w.astype(np.float32)
    lng[:18] = rng.uniform(0.0, 2.0 * lng.max(), (18, p.W)).astype(np.float32)
    lat[18:34] = np.float32(0.0)
    lat[20] = np.float32(-0.0)
    p.sticky_lng_damping_w, p.sticky_lat_damping_w = lng, lat
    assert compiled_end_step.covers(p, s, normal)
    ours = _both_ends(p, s, normal, begin_position, begin_orientation)
    assert not np.array_equal(_bits(ours)[0], _bits(s)[0])  # the solve moved the velocities


def test_steps_of_another_dt_set_the_sticky_rows_gains_up_again():
    """The C call takes the sticky rows' c h / (1 + c h) set up once per dt (compiled_end_step's `ratios`): steps of
    one batch with dt, half of it, then dt again are each numpy's with that dt, to the bit."""
    sim = Simulator.from_description(read_stage(_cars(20)), DT)
    for _ in range(5):
        sim.step({k: np.full(sim.params.V, v) for k, v in BRAKED.items()})
    p, s, normal, begin_position, begin_orientation = _random_state(sim, 4, "some")
    results = []
    for dt in (DT, DT / 2, DT):
        results.append(_bits(_both_ends(p, s, normal, begin_position, begin_orientation, dt)))
    assert not np.array_equal(results[0][0], results[1][0])  # the half step's velocities are others
    for a, b in zip(results[0], results[2]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("lane", ["finite", "infinite"])
def test_a_block_without_a_row_other_blocks_sweep_is_numpy_s_to_the_bit(lane):
    """Forty cars, all sticky-only: the second block of 16 (soft vehicles 16 to 31) has no vehicle whose fourth
    wheel's lateral row acts, the other blocks have; numpy's sweep takes that row in every vehicle (with a gain of 0
    where it does not act), so the C call solves that block again with it. With an infinite direction in one of the
    block's rows that does not act, G - 0 * inf is NaN in numpy: the C call's result is NaN there too."""
    sim = Simulator.from_description(read_stage(_cars(40)), DT)
    for _ in range(5):
        sim.step({k: np.full(sim.params.V, v) for k, v in BRAKED.items()})
    p, s, normal, begin_position, begin_orientation = _random_state(sim, 3, "none")
    s.sticky_lng[:] = True
    s.sticky_lat[:] = True
    s.sticky_lng[2:4], s.sticky_lat[2:4] = False, False  # two vehicles without rows: soft vehicle 16 is car 18
    s.sticky_lat[18:34, 3] = False
    if lane == "infinite":
        s.out["_lat_dir"][:, 20, 3] = np.float32(np.inf)
    ours, theirs = copy.deepcopy(s), copy.deepcopy(s)
    with np.errstate(invalid="ignore"):  # (the infinite lane's NaN)
        compiled_end_step.end_step(p, ours, normal, begin_position, begin_orientation, DT, 1)
        _numpy_end(p, theirs, normal, begin_position, begin_orientation, None)
    for a, b in zip(_bits(ours), _bits(theirs)):
        np.testing.assert_array_equal(a, b)  # 0 ulps, the sign of zero included
    assert np.isnan(ours.linear_velocity[:, 20]).all() == (lane == "infinite")
    assert np.isfinite(ours.linear_velocity[:, 19]).all()


@pytest.mark.parametrize("seed", range(6))
def test_the_compiled_velocities_before_the_rows_are_numpy_s_to_the_bit(fleet, seed):
    """compiled_end_step.end_velocity (damping, velocity limits, gyroscopic term: what end_step_physx does with
    contacts before its rows) against rigid_body.end_velocity: 0 ulps."""
    p, s, *_ = _random_state(fleet, seed, "none")
    ours, theirs = copy.deepcopy(s), copy.deepcopy(s)
    assert compiled_end_step.end_velocity(p, ours, DT)
    end_velocity(p, theirs, DT)
    for name in ("linear_velocity", "angular_velocity"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a.dtype == b.dtype == np.float32 and a.shape == b.shape
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))  # 0 ulps, the sign of zero included
        assert not np.array_equal(a.view(np.uint32), getattr(s, name).view(np.uint32))  # (the call changed them)


def test_the_compiled_velocities_leave_float64_states_and_numpy_scalar_steps_to_numpy(fleet):
    p, s, *_ = _random_state(fleet, 0, "none")
    before = s.linear_velocity.copy()
    assert not compiled_end_step.end_velocity(p, s, np.float64(DT))  # (numpy promotes the state to float64 by it)
    s64 = copy.deepcopy(s)
    s64.angular_velocity = s64.angular_velocity.astype(np.float64)
    assert not compiled_end_step.end_velocity(p, s64, DT)
    np.testing.assert_array_equal(s.linear_velocity, before)  # (nothing done)
    np.testing.assert_array_equal(s64.linear_velocity, before)


def test_the_compiled_end_of_a_step_does_not_depend_on_the_thread_count(fleet):
    p, s, normal, begin_position, begin_orientation = _random_state(fleet, 11, "some")
    one, many = copy.deepcopy(s), copy.deepcopy(s)
    compiled_end_step.end_step(p, one, normal, begin_position, begin_orientation, DT, 1)
    compiled_end_step.end_step(p, many, normal, begin_position, begin_orientation, DT, 3)
    for a, b in zip(_bits(one), _bits(many)):
        np.testing.assert_array_equal(a, b)


def test_pgs_float64_and_mixed_iteration_counts_stay_with_numpy(fleet):
    p, s = copy.copy(fleet.params), fleet.state
    normal = np.zeros((3, p.V, p.W), np.float32)
    assert compiled_end_step.covers(p, s, normal)
    assert not compiled_end_step.covers(p, s, normal.astype(np.float64))
    p.pgs = p.pgs.copy()
    p.pgs[0] = True
    assert not compiled_end_step.covers(p, s, normal)
    p = copy.copy(fleet.params)
    p.position_iterations = p.position_iterations.copy()
    p.position_iterations[0] += 1
    assert not compiled_end_step.covers(p, s, normal)
    for name in ("linear_velocity", "separation"):
        s64 = copy.copy(s)
        setattr(s64, name, getattr(s, name).astype(np.float64))
        assert not compiled_end_step.covers(fleet.params, s64, normal)


def _counting(monkeypatch) -> dict:
    """Count the compiled ends of a step (the real ones run), and those with an active suspension-limit row."""
    calls = {"taken": 0, "with limit rows": 0}
    end_step = compiled_end_step.end_step

    def counted(p, s, *args, **kwargs):
        calls["taken"] += 1
        calls["with limit rows"] += bool(((s.separation < 0.0) & p.mask).any())
        return end_step(p, s, *args, **kwargs)

    monkeypatch.setattr(compiled_end_step, "end_step", counted)
    return calls


def _tilted(stage, degrees: float):
    """The scene's gravity turned `degrees` about the cars' lateral axis: the cars stand on a slope."""
    scene = UsdPhysics.Scene(stage.GetPrimAtPath("/World/PhysicsScene"))
    angle = np.radians(degrees)
    scene.CreateGravityDirectionAttr().Set(Gf.Vec3f(float(np.sin(angle)), 0.0, float(-np.cos(angle))))
    return stage


@pytest.mark.parametrize("case", ["braked", "braked on a slope", "rolling"])
def test_fleets_run_alike_with_the_compiled_end_of_a_step_and_numpy(monkeypatch, case):
    stage = _cars(3) if case != "braked on a slope" else _tilted(_cars(3), 12.0)
    description = read_stage(stage)
    controls = {"accelerator": 1.0} if case == "rolling" else BRAKED
    calls = _counting(monkeypatch)
    ours, _ = _trajectory(description, 90, StepOptions(), controls)
    assert calls["taken"] == 90
    theirs, _ = _trajectory(description, 90, StepOptions(compiled_rows=False), controls)  # numpy's rows
    assert calls["taken"] == 90  # numpy's run made no compiled call
    np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))  # 0 ulps, every step
    travelled = np.abs(ours[-1][:9] - ours[0][:9]).max()
    assert travelled > 1.0 if case == "rolling" else travelled < 0.05  # the brakes hold, on the slope too
    threads, _ = _trajectory(description, 90, StepOptions(kernel_threads=2), controls)
    np.testing.assert_array_equal(threads.view(np.uint32), theirs.view(np.uint32))


@pytest.mark.parametrize("units", ["m", "cm_g"])
def test_cars_with_suspension_limit_rows_run_alike_with_the_compiled_end_of_a_step_and_numpy(tmp_path, monkeypatch,
                                                                                           units):
    """The regimes' cars (tests/scenarios/regimes.py): one rolling 0.15 m below full compression, one dropped 1.5 m:
    their limit rows act in the first steps and on landing."""
    description = read_stage(str(build_regimes(tmp_path)[units]))
    calls = _counting(monkeypatch)
    ours, _ = _trajectory(description, 90, StepOptions(), {"accelerator": 1.0})
    assert calls["taken"] == 90 and calls["with limit rows"] > 0
    theirs, _ = _trajectory(description, 90, StepOptions(compiled_rows=False), {"accelerator": 1.0})
    np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))


def _rows_wheel_by_wheel(p, s, normal, also=None) -> dict:
    """pipeline.constraint_rows spelled out row by row: per vehicle with an active row (or in `also`), constraint by
    constraint of 4 wheels, the longitudinal, lateral, then limit rows of its wheels."""
    mask, out = p.mask, s.out
    limit = (s.separation < 0.0) & mask
    listed = (((s.sticky_lng | s.sticky_lat) & mask) | limit).any(axis=1)
    vehicles = np.nonzero(listed if also is None else listed | also)[0]
    fields = {name: [] for name in ("linear", "arm", "damping", "active", "hard", "separation")}
    for v in vehicles:
        rows = {name: [] for name in fields}
        for first in range(0, p.W, 4):
            for kind in range(3):
                for w in range(first, min(first + 4, p.W)):
                    direction = (out["_lng_dir"], out["_lat_dir"], normal)[kind][:, v, w]
                    rows["linear"].append(direction.astype(np.result_type(out["_lng_dir"], normal)))
                    rows["arm"].append(out["_app_arm"][:, v, w])
                    rows["damping"].append(np.float64((p.sticky_lng_damping_w, p.sticky_lat_damping_w)[kind][v, w]
                                                      if kind < 2 else 0.0))
                    rows["active"].append((s.sticky_lng, s.sticky_lat, limit)[kind][v, w] & (mask[v, w] or kind == 2))
                    rows["hard"].append(kind == 2)
                    rows["separation"].append(np.float64(s.separation[v, w] if kind == 2 else 0.0))
        for name, values in rows.items():
            fields[name].append(np.stack(values, axis=-1))
    return {"vehicles": vehicles, **{name: np.stack(values, axis=-2) for name, values in fields.items()}}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("also", [None, "some"])
def test_constraint_rows_are_the_rows_wheel_by_wheel(fleet, seed, also):
    """pipeline.constraint_rows' arrays (dtypes, shapes, bits) against the rows listed one by one."""
    p, s, normal, *_ = _random_state(fleet, seed, "some")
    extra = None if also is None else np.arange(p.V) == 2  # (vehicle 2 has no row of its own)
    road = RoadGeometry(hit=np.ones((p.V, p.W), bool), normal=normal, offset=np.zeros((p.V, p.W), np.float32),
                        friction=np.ones((p.V, p.W), np.float32), shape=np.zeros((p.V, p.W), np.int64))
    rows = pipeline.constraint_rows(p, s, road, extra)
    expected = _rows_wheel_by_wheel(p, s, normal, extra)
    assert (2 in rows.vehicles) == (also is not None) and 3 not in rows.vehicles
    for name, value in expected.items():
        ours = getattr(rows, name)
        assert ours.dtype == value.dtype and ours.shape == value.shape, name
        np.testing.assert_array_equal(ours.view(np.uint8), value.view(np.uint8), err_msg=name)  # 0 ulps


def test_constraint_rows_order_more_than_four_wheels_constraint_by_constraint():
    """Six wheels: the first constraint's 4 wheels' three kinds, then the last 2 wheels' (kind k's wheel w stacked at
    6 k + w)."""
    lng, lat, lim = 0, 6, 12
    assert pipeline._row_order(6).tolist() == [lng + 0, lng + 1, lng + 2, lng + 3, lat + 0, lat + 1, lat + 2, lat + 3,
                                                lim + 0, lim + 1, lim + 2, lim + 3, lng + 4, lng + 5, lat + 4, lat + 5,
                                                lim + 4, lim + 5]
    assert pipeline._row_order(4) is None
    assert pipeline._hard_rows(6).tolist() == [8, 9, 10, 11, 16, 17]
