"""Numerical safety of the numpy core: faulted vehicles are flagged and frozen, the others carry on untouched;
the same inputs give bit-identical traces."""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Sdf
from stage_factory import add_copies, car_spec, preset_stage, translate

from physxvehicle_usd import properties as P
from physxvehicle_usd.description import StageDescription
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import GuardOptions, Simulator

DT = 1.0 / 60.0
PATHS = ("/World/CarA", "/World/CarB", "/World/CarC")


def three_cars(max_angular_velocity_deg: float | None = None) -> StageDescription:
    """The preset car at /World/CarA and two copies of it by reference, 4 m apart side by side; optionally with a
    PhysX angular velocity limit other than omni.physx's 100 rad/s."""
    stage = preset_stage(car_spec(name="CarA"))
    if max_angular_velocity_deg is not None:
        car = stage.GetPrimAtPath(PATHS[0])
        car.AddAppliedSchema("PhysxRigidBodyAPI")
        car.CreateAttribute(P.physx_rigid_body_attribute("maxAngularVelocity"), Sdf.ValueTypeNames.Float).Set(
            max_angular_velocity_deg)
    for i, path in enumerate(add_copies(stage, PATHS[0], PATHS[1:]), start=1):
        translate(stage, path, (4.0 * i, 0.0, 0.0))
    return read_stage(stage)


def drive(sim: Simulator, steps: int) -> None:
    for _ in range(steps):
        sim.step({"accelerator": np.ones(3), "steer": np.full(3, 0.2)})


@pytest.mark.parametrize("threads", [1, 3])
def test_a_nan_vehicle_is_frozen_and_the_others_are_bit_identical_to_a_clean_run(threads):
    clean = Simulator.from_description(three_cars(), DT, threads=1)
    faulty = Simulator.from_description(three_cars(), DT, threads=threads)  # 3: each car stepped in its own thread
    drive(clean, 30)
    drive(faulty, 30)
    faulty.state.angular_velocity[:, 1] = np.nan
    drive(clean, 40)
    drive(faulty, 40)
    assert faulty.faulted.tolist() == [False, True, False]
    assert faulty.fault_reasons == {"/World/CarB": "non-finite state"}
    keep = [0, 2]
    for name in ("body_position", "linear_velocity", "angular_velocity"):  # (3, V)
        assert np.array_equal(getattr(clean.state, name)[:, keep], getattr(faulty.state, name)[:, keep]), name
    for name in ("rotation_speed", "jounce", "engine_omega"):  # (V, W) and (V,)
        assert np.array_equal(getattr(clean.state, name)[keep], getattr(faulty.state, name)[keep]), name
    t = faulty.telemetry()
    assert all(np.isfinite(v).all() for group in t.values() for v in group.values() if v.dtype.kind == "f")


def test_a_vehicle_frozen_on_the_first_step_reports_finite_telemetry():
    """The guard keeps a frozen vehicle's last outputs; on the first step there are none, and its slips and forces
    were NaN in telemetry."""
    sim = Simulator.from_description(three_cars(), DT)
    sim.state.angular_velocity[:, 1] = np.nan
    drive(sim, 1)
    assert sim.faulted.tolist() == [False, True, False]
    t = sim.telemetry()
    for group in t.values():
        for name, value in group.items():
            if value.dtype.kind == "f":
                assert np.isfinite(value).all(), name
    assert np.array_equal(t["wheels"]["tireLongitudinalSlip"][1], np.zeros(4))


def test_a_frozen_vehicle_stays_put_at_rest():
    sim = Simulator.from_description(three_cars(), DT)
    drive(sim, 30)
    sim.state.rotation_speed[2, 0] = np.inf
    drive(sim, 1)
    frozen_at = sim.telemetry()["bodies"]["position"][2].copy()
    drive(sim, 20)
    t = sim.telemetry()
    assert np.array_equal(t["bodies"]["position"][2], frozen_at)
    assert np.array_equal(t["bodies"]["linearVelocity"][2], np.zeros(3))
    assert np.linalg.norm(t["bodies"]["linearVelocity"][0]) > 1.0  # the healthy cars still drive


@pytest.mark.parametrize("field, value, reason", [
    ("linear_velocity", 5000.0, "chassis speed"),
    ("angular_velocity", 500.0, "chassis angular speed"),
])
def test_a_runaway_vehicle_is_flagged_with_its_reason(field, value, reason):
    # PhysX's own angular velocity limit (100 rad/s unless authored) would take 500 rad/s back before the guard sees it
    sim = Simulator.from_description(three_cars(max_angular_velocity_deg=1e6), DT)
    drive(sim, 10)
    getattr(sim.state, field)[0, 0] = value
    drive(sim, 1)
    assert sim.faulted.tolist() == [True, False, False]
    assert sim.fault_reasons == {"/World/CarA": reason}


def test_a_runaway_wheel_is_flagged():
    description = three_cars()
    engine, gears = description.vehicles[PATHS[0]].drive.engine, description.vehicles[PATHS[0]].drive.gears
    # half the wheel speed first gear gives at the engine's top speed: full throttle passes it within 2 s
    limit = 0.5 * engine["maxRotationSpeed"] / (gears["ratios"][1] * gears["ratioScale"])
    sim = Simulator.from_description(description, DT, guard=GuardOptions(max_wheel_speed=limit))
    drive(sim, 120)
    assert sim.faulted.all()
    assert set(sim.fault_reasons.values()) == {"wheel speed"}


def test_without_the_guard_nothing_is_flagged_and_nan_spreads_only_in_its_vehicle():
    sim = Simulator.from_description(three_cars(), DT, guard=GuardOptions(enabled=False))
    drive(sim, 10)
    sim.state.linear_velocity[:, 1] = np.nan
    with np.errstate(all="ignore"):
        drive(sim, 5)
    assert sim.fault_reasons == {}
    assert np.isnan(sim.state.body_position[:, 1]).all()
    assert np.isfinite(sim.state.body_position[:, [0, 2]]).all()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_same_inputs_give_bit_identical_traces(dtype):
    def trace():
        sim = Simulator.from_description(three_cars(), DT, dtype=dtype)
        sim.set_controls({"accelerator": np.array([1.0, 0.5, 0.0]), "brake0": np.array([0.0, 0.0, 0.3]),
                          "steer": np.array([0.3, -0.2, 0.0])})
        return sim.run(90)

    first, second = trace(), trace()
    for kind in ("vehicles", "wheels", "bodies"):
        for path, values in first[kind].items():
            for name, series in values.items():
                assert np.array_equal(np.asarray(series), np.asarray(second[kind][path][name])), (kind, path, name)


def test_the_guards_quick_test_never_passes_a_state_that_its_vehicle_by_vehicle_test_faults():
    """The step skips the guard's per-vehicle checks where its whole-batch test says every vehicle is healthy: that
    test must be sufficient. States around each limit and with non-finite or huge values: wherever the quick test
    passes, the per-vehicle test finds no fault; and it passes the ordinary states of a run."""
    sim = Simulator.from_description(three_cars(), DT)
    drive(sim, 20)
    guard, s = sim.guard, sim.state
    assert guard._surely_healthy(s) and (guard.faults(s) == -1).all()
    rng = np.random.default_rng(7)
    limits = {"linear_velocity": guard.options.max_speed * float(sim.params.length_scale.min()),
              "angular_velocity": guard.options.max_angular_speed, "rotation_speed": guard.options.max_wheel_speed}
    passed = failed = 0
    for trial in range(300):
        sim.step()
        name = list(limits)[trial % 3]
        value = getattr(s, name)
        scale = limits[name] * rng.uniform(0.3, 1.2)
        value[...] = (rng.uniform(-1.0, 1.0, value.shape) * scale).astype(value.dtype)
        if trial % 25 == 0:
            value.flat[rng.integers(value.size)] = [np.nan, np.inf, 3e38][trial % 3]
        healthy = guard._surely_healthy(s)
        assert not healthy or (guard.faults(s) == -1).all(), (trial, name)
        passed += healthy
        failed += (guard.faults(s) >= 0).any()
        sim.guard.reasons.clear()
        s.faulted[:] = False
        sim.reset_vehicles(np.ones(3, bool))
    assert passed > 20 and failed > 20  # both sides of the limits were tried


def test_the_guards_quick_test_decides_as_the_maxima_of_the_whole_batch_did():
    """The quick test takes each checked array's largest |value| in one reduce (np.maximum.reduceat): on states around
    each limit, with non-finite and huge values, it says what comparing the whole batch's maxima with 1e30 and each
    velocity's maxima with its limit said."""
    sim = Simulator.from_description(three_cars(), DT)
    drive(sim, 20)
    guard, s, o = sim.guard, sim.state, sim.guard.options
    bounds = {"linear_velocity": float(np.min(o.max_speed * sim.params.length_scale)) / 1.75,
              "angular_velocity": o.max_angular_speed / 1.75, "rotation_speed": o.max_wheel_speed}
    rng = np.random.default_rng(11)
    verdicts = set()
    for trial in range(120):
        name = list(bounds)[trial % 3]
        value = getattr(s, name)
        value[...] = (rng.uniform(-1.0, 1.0, value.shape) * bounds[name] * rng.uniform(0.9, 1.1)).astype(value.dtype)
        if trial % 10 == 0:
            value.flat[rng.integers(value.size)] = [np.nan, np.inf, 3e38, -1e31][trial // 10 % 4]
        values = [np.abs(getattr(s, checked)) for checked in ("body_position", "body_orientation", "linear_velocity",
                                                               "angular_velocity", "engine_omega", "rotation_speed")]
        whole = np.concatenate(values, axis=None)
        expected = bool(whole.max() <= 1e30) and all(np.abs(getattr(s, k)).max() <= b for k, b in bounds.items())
        assert guard._surely_healthy(s) == expected, trial
        verdicts.add(expected)
        value[...] = 0.0
    assert verdicts == {True, False}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_compiled_quick_test_is_numpy_s(dtype):
    """guard's quick test in C (sim/_guard.c pvu_all_within) against numpy's (the arrays' magnitudes concatenated,
    np.maximum.reduceat <= the bounds in the arrays' type): values at, just above and just below each bound (as
    float32 rounds it), -0, NaN and inf in turn; a float64 array among float32 ones, and an empty one, are numpy's
    (-1)."""
    from physxvehicle_usd.sim import guard

    if guard._ALL_WITHIN is None:
        pytest.skip("the compiled extension is not built")
    rng = np.random.default_rng(3)
    bounds = np.array([1e30, 1000.0 / 1.75, 200.0 / 1.75, 1e4], dtype)
    wide = bounds.astype(np.float64)
    arrays = [(rng.standard_normal(shape) * 10).astype(dtype) for shape in ((3, 5), (4, 5), (5,), (5, 4))]
    edges = [None, bounds[1], np.nextafter(bounds[1], dtype(np.inf)), np.nextafter(bounds[1], dtype(0)),
             -bounds[2], -np.nextafter(bounds[2], dtype(np.inf)), -0.0, np.nan, np.inf]
    decisions = set()
    for k, edge in enumerate(edges):
        case = [a.copy() for a in arrays]
        if edge is not None:
            case[1 + k % 2].flat[k % 5] = edge
        starts = np.cumsum([0] + [a.size for a in case[:-1]])
        values = np.abs(np.concatenate(case, axis=None))
        numpy_says = bool((np.maximum.reduceat(values, starts) <= bounds).all())
        ours = guard._ALL_WITHIN(case, wide.ctypes.data, dtype == np.float64)
        assert ours == int(numpy_says), edge
        decisions.add(numpy_says)
    assert decisions == {True, False}
    other = np.float64 if dtype == np.float32 else np.float32
    assert guard._ALL_WITHIN([arrays[0].astype(other)] + arrays[1:], wide.ctypes.data, dtype == np.float64) == -1
    assert guard._ALL_WITHIN([arrays[0][:0]] + arrays[1:], wide.ctypes.data, dtype == np.float64) == -1
