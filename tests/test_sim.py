"""Numpy vehicle2 core: subsystem equations against hand-computed values, and whole-car behaviour."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from conftest import needs_kernel
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.vehicle2 import batch, build_vehicle_params
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.commands import normalised_response, steer_angles
from physxvehicle_usd.sim.drivetrain import engine_damping_rate, engine_drive_torque, gear_ratio
from physxvehicle_usd.sim.pipeline import StepOptions
from physxvehicle_usd.sim.presets import G, car_description, merge_descriptions
from physxvehicle_usd.sim.state import SimParams
from physxvehicle_usd.sim.tire import tire_force_model
from physxvehicle_usd.sim.wheel import direct_drive_update

CAR = "/World/Car"
DT = 1.0 / 60.0


def params_of(description, path=CAR) -> SimParams:
    return SimParams.from_batch(batch([build_vehicle_params(description, path)]))


def run(description, steps, controls=None, path=CAR):
    sim = Simulator.from_description(description, DT)
    if controls:
        sim.set_controls(controls)
    for _ in range(steps):
        sim.step()
    return sim


# --- tables and commands -----------------------------------------------------------------------


def test_lookup_table_clamps_and_interpolates():
    pts = np.array([[[0.0, 0.8], [0.33, 1.0], [1.0, 0.8], [0.0, 0.0]]])
    count = np.array([3])
    for x, y in ((-1.0, 0.8), (0.0, 0.8), (0.165, 0.9), (0.33, 1.0), (0.665, 0.9), (1.0, 0.8), (7.0, 0.8)):
        assert vm.lookup(pts, count, np.array([x]))[0] == pytest.approx(y)
    assert vm.lookup(pts, np.array([1]), np.array([0.5]))[0] == 0.8
    assert vm.lookup(pts, np.array([0]), np.array([0.5]))[0] == 0.0


def test_engine_torque_at_curve_points_and_damping():
    p = params_of(car_description("standard"))
    # peak 1000 N m at normalised speed 0.33 (max 600 rad/s); 0.8 of peak at 0 and 600
    for omega, expected in ((0.33 * 600.0, 1000.0), (0.0, 800.0), (600.0, 800.0), (0.165 * 600.0, 900.0)):
        assert engine_drive_torque(p, np.array([omega]), np.array([1.0]))[0] == pytest.approx(expected)
    assert engine_drive_torque(p, np.array([100.0]), np.array([0.5]))[0] == pytest.approx(0.5 * 1000.0 * (0.8 + 0.2 * 100.0 / 198.0))
    # in gear: engaged + (full - engaged) * throttle; in neutral the disengaged rate
    assert engine_damping_rate(p, np.array([2]), np.array([0.5]))[0] == pytest.approx(2.0 + (0.15 - 2.0) * 0.5)
    assert engine_damping_rate(p, np.array([1]), np.array([0.0]))[0] == pytest.approx(0.35)
    assert gear_ratio(p, np.array([2]))[0] == 16.0 and gear_ratio(p, np.array([0]))[0] == -16.0
    assert gear_ratio(p, np.array([1]))[0] == 0.0


def test_nonlinear_command_response():
    d = car_description("basic")
    d["vehicles"][CAR]["nonlinearCommandResponses"] = {
        "drive": {"commandValues": [0.5, 1.0], "speedResponsesPerCommandValue": [0, 2],
                  "speedResponses": [[0.0, 0.2], [10.0, 0.4], [0.0, 1.0], [20.0, 0.5]]}}
    p = params_of(d)
    from physxvehicle_usd.runtime.vehicle2 import RESPONSE_DRIVE
    z = lambda c, s: normalised_response(p, RESPONSE_DRIVE, np.array([c]), np.array([s]))[0]  # noqa: E731
    assert z(0.5, 5.0) == pytest.approx(0.3)
    assert z(0.1, 5.0) == pytest.approx(0.3)  # below the first command value: the first curve, not 0
    assert z(1.0, 10.0) == pytest.approx(0.75)
    assert z(0.75, 10.0) == pytest.approx(0.5 * (0.4 + 0.75))
    assert z(0.5, -3.0) == pytest.approx(0.2)  # reverse speeds use the lowest-speed entry


def test_ackermann_gives_the_inner_wheel_the_full_angle():
    p = params_of(car_description("standard"))
    angles = steer_angles(p, np.array([0.5]), np.array([0.0]))[0]
    psi_in = 0.5 * 0.554264
    perfect = math.atan(2.8 / (1.6 + 2.8 / math.tan(psi_in)))
    assert angles[0] == pytest.approx(perfect)  # wheel0 (negative lateral side) is outside for a positive turn
    assert angles[1] == pytest.approx(psi_in)
    assert angles[2] == angles[3] == 0.0
    left = steer_angles(p, np.array([-0.5]), np.array([0.0]))[0]
    assert left[0] == pytest.approx(-psi_in) and left[1] == pytest.approx(-perfect)


# --- tire and wheel ----------------------------------------------------------------------------


def test_tire_force_small_slip_is_linear_and_large_slip_saturates_on_the_friction_circle():
    p = params_of(car_description("standard"))
    shape = (1, 4)
    load = np.full(shape, p.rest_load[0, 0])
    mu = np.ones(shape)
    zero = np.zeros(shape)
    f_lng, f_lat = tire_force_model(p, np.full(shape, 1e-3), zero, zero, load, mu)
    assert f_lng[0, 0] == pytest.approx(5000.0 * 1e-3, rel=1e-3) and f_lat[0, 0] == 0.0
    alpha = 1e-3
    f_lng, f_lat = tire_force_model(p, zero, np.full(shape, alpha), zero, load, mu)
    c_alpha = p.lat_stiff_y[0, 0] * min(1.0, 1.5 - 1.5**2 * 0.33333 + 1.5**3 * 0.037037)  # F_z/N_rest = 1, X = 2
    k = c_alpha * math.tan(alpha) / load[0, 0]  # pure lateral slip: F_lat = -S1(K) mu F_z
    assert f_lat[0, 0] == pytest.approx(-(k - 0.33333 * k * k + 0.037037 * k**3) * load[0, 0], rel=1e-12)
    assert f_lat[0, 0] == pytest.approx(-c_alpha * math.tan(alpha), rel=1e-2)
    f_lng, f_lat = tire_force_model(p, np.full(shape, 0.8), np.full(shape, 0.3), zero, load, mu)
    assert math.hypot(f_lng[0, 0], f_lat[0, 0]) == pytest.approx(load[0, 0], rel=1e-9)
    assert tire_force_model(p, np.full(shape, 5e-6), zero, zero, load, mu)[0][0, 0] == 0.0  # dead zone


def test_direct_drive_wheel_update_and_brake_lock():
    p = params_of(car_description("basic"))
    one = np.ones((1, 4))
    new = direct_drive_update(p, 10.0 * one, 0.0 * one, 100.0 * one, 0.0 * one, one < 0, 0.01)
    k = 0.01 / 1.225
    assert new[0, 0] == pytest.approx((10.0 + k * 100.0) / (1.0 + 0.25 * k))
    locked = direct_drive_update(p, 0.1 * one, 0.0 * one, 0.0 * one, 1000.0 * one, one > 0, 0.01)
    assert (locked == 0.0).all()


# --- whole car --------------------------------------------------------------------------------


@pytest.mark.parametrize("drive", ["standard", "basic", "none"])
def test_car_at_rest_stays_at_rest_with_suspension_balancing_gravity(drive):
    sim = run(car_description(drive), 90)
    t = sim.telemetry()
    jounce = 450.0 * G / 45000.0
    np.testing.assert_allclose(t["wheels"]["suspensionJounce"][0], jounce, atol=1e-6)
    assert np.abs(t["bodies"]["linearVelocity"][0]).max() < 1e-6
    total = t["wheels"]["suspensionForce"][0].sum(axis=0)
    np.testing.assert_allclose(total, (0.0, 1800.0 * G, 0.0), rtol=1e-6, atol=1e-6)
    assert t["wheels"]["isOnGround"].all()
    assert t["wheels"]["tireFriction"][0] == pytest.approx([1.0] * 4)  # asphalt entry of the table


def test_full_throttle_accelerates_forward_and_shifts_up():
    sim = run(car_description("standard"), 240, {"accelerator": 1.0})
    t = sim.telemetry()
    v = t["bodies"]["linearVelocity"][0]
    assert v[2] > 10.0 and abs(v[0]) < 0.01  # forward is +Z
    assert t["vehicles"]["engineRotationSpeed"][0] > 100.0
    assert t["bodies"]["position"][0][2] > 10.0
    gears = []
    for _ in range(120):
        sim.step()
        gears.append(int(sim.telemetry()["vehicles"]["currentGear"][0]))
    assert max(gears) >= 3 and 0 in gears  # shifts pass through neutral


@pytest.mark.parametrize("drive", ["basic", "none"])
def test_basic_and_wheel_controller_drives_accelerate(drive):
    controls = {"accelerator": 1.0} if drive == "basic" else {"driveTorque": [[0.0, 0.0, 500.0, 500.0]]}
    t = run(car_description(drive), 120, controls).telemetry()
    v = t["bodies"]["linearVelocity"][0][2]
    # 1000 N m over two rear wheels (r = 0.35) on 1800 kg + wheel inertia: a bit under 1.59 m/s^2
    assert 2.5 < v < 2 * 1000.0 / 0.35 / 1800.0 * 2.0


def test_braking_decelerates_and_locks_to_rest():
    sim = run(car_description("standard", speed=15.0), 30, {"brake0": 1.0})
    v1 = sim.telemetry()["bodies"]["linearVelocity"][0][2]
    assert v1 < 13.0
    for _ in range(240):
        sim.step()
    t = sim.telemetry()
    assert abs(t["bodies"]["linearVelocity"][0][2]) < 0.05
    assert np.abs(t["wheels"]["rotationSpeed"][0]).max() < 0.2


def test_positive_steer_turns_toward_the_positive_lateral_axis():
    sim = run(car_description("basic", speed=10.0), 60, {"steer": 0.5, "accelerator": 0.3})
    t = sim.telemetry()
    assert t["bodies"]["angularVelocity"][0][1] > 0.1  # yaw about +Y (up)
    assert t["bodies"]["position"][0][0] > 0.1  # drifted toward +X (lateral = up x forward)
    assert t["wheels"]["wheelSteerAngle"][0][1] > 0.0


def tank_description():
    d = car_description("standard", path="/World/Tank", autobox=False, controller={"targetGear": 1, "accelerator": 1.0})
    v = d["vehicles"]["/World/Tank"]
    v["multiWheelDifferential"] = {"wheels": [0, 1, 2, 3], "torqueRatios": [0.25] * 4, "averageWheelSpeedRatios": [0.25] * 4}
    v["tankDifferential"] = {"numberOfWheelsPerTrack": [2, 2], "thrustIndexPerTrack": [0, 1],
                             "trackToWheelIndices": [0, 2], "wheelIndicesInTrackOrder": [0, 2, 1, 3]}
    v["tankController"] = {"thrust0": 1.0, "thrust1": -1.0}
    v["ackermannSteering"] = None
    return d


def test_tank_opposite_thrusts_pivot_in_place_with_tracks_locked_together():
    sim = run(tank_description(), 90, path="/World/Tank")
    t = sim.telemetry()
    w = t["wheels"]["rotationSpeed"][0]
    assert w[0] == pytest.approx(w[2], abs=1e-9) and w[1] == pytest.approx(w[3], abs=1e-9)  # one speed per track
    assert w[0] > 1.0 and w[1] < -1.0
    assert abs(t["bodies"]["angularVelocity"][0][1]) > 0.2
    assert np.linalg.norm(t["bodies"]["linearVelocity"][0]) < 0.5


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_kernel)])
def test_mixed_batch_matches_vehicles_simulated_alone(compiled):
    # both paths: a vehicle's arithmetic does not depend on its place in the batch (in the compiled kernel: its
    # lane of the vectorised loop, or the loop's scalar remainder)
    options = StepOptions(compiled=compiled)
    descs = [car_description("standard", path="/World/A"), car_description("basic", path="/World/B", speed=8.0),
             car_description("none", path="/World/C")]
    descs[0]["vehicles"]["/World/A"]["rigidBody"]["position"][0] = 5.0
    controls = {"/World/A": {"accelerator": 1.0, "steer": 0.3}, "/World/B": {"brake0": 0.5}, "/World/C": {"steerAngle": [[0.1, 0.1, 0, 0]]}}
    together = Simulator.from_description(merge_descriptions(*descs), DT, options=options)
    V = 3
    together.set_controls({"accelerator": [1.0, 0.0, 0.0], "steer": [0.3, 0.0, 0.0], "brake0": [0.0, 0.5, 0.0],
                           "steerAngle": [[0, 0, 0, 0], [0, 0, 0, 0], [0.1, 0.1, 0, 0]]})
    alone = [Simulator.from_description(d, DT, options=options) for d in descs]
    for sim, path in zip(alone, ("/World/A", "/World/B", "/World/C")):
        sim.set_controls(controls[path])
    for _ in range(60):
        together.step()
        for sim in alone:
            sim.step()
    tt = together.telemetry()
    for i, sim in enumerate(alone):
        ta = sim.telemetry()
        np.testing.assert_allclose(tt["bodies"]["linearVelocity"][i], ta["bodies"]["linearVelocity"][0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(tt["wheels"]["rotationSpeed"][i], ta["wheels"]["rotationSpeed"][0], rtol=1e-9, atol=1e-9)
    assert V == len(together.batch.paths)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_controls_and_steps_keep_the_batch_precision(dtype):
    # a float64 control array (targetGear's direct-drive sign once was) must not turn a float32 batch's wheels float64
    cars = [car_description("standard", path="/World/A"), car_description("basic", path="/World/B"),
            car_description("none", path="/World/C")]
    sim = Simulator.from_description(merge_descriptions(*cars), DT, dtype=dtype)
    sim.step({"accelerator": 1.0, "targetGear": [1, 1, 0], "steer": 0.2, "brake0": 0.1, "thrust0": 0.5,
              "driveTorque": 10.0, "brakeTorque": 1.0, "steerAngle": 0.1})
    floats = {name: value.dtype for name, value in vars(sim.state).items()
              if isinstance(value, np.ndarray) and value.dtype.kind == "f"}
    floats.update({f"out {name}": value.dtype for name, value in sim.state.out.items() if value.dtype.kind == "f"})
    assert set(floats.values()) == {np.dtype(dtype)}, {k: v for k, v in floats.items() if v != dtype}


# A launch, a steer from 2/5 of the run, the accelerator lifted from 3/5, braking over the last fifteenth. A numpy
# step costs the same for a range of vehicles as for the batch, so four ranges cost four steps: the default run
# takes 45 steps (steer from 18, lift from 27, brake from 42), the soak run the full 150 (60, 90, 140).
@pytest.mark.parametrize("steps", [45, pytest.param(150, marks=pytest.mark.soak)])
def test_stepping_vehicle_ranges_in_threads_gives_bit_identical_results(steps):
    # the conformance fleet: standard, automatic, tank, basic-drive and wheel-controller vehicles in one batch
    description = read_stage(Path(__file__).parent / "scenarios" / "fleet.usda").to_json()
    sims = {threads: Simulator.from_description(description, DT, threads=threads) for threads in (1, 2, 4)}
    assert sims[4].threads == 4
    V = sims[1].params.V
    steer_from, lift_from, brake_from = 2 * steps // 5, 3 * steps // 5, steps - steps // 15
    for i in range(steps):
        controls = {"accelerator": np.full(V, 1.0 if i < lift_from else 0.1),
                    "steer": np.full(V, 0.4 if i >= steer_from else 0.0),
                    "brake0": np.full(V, 1.0 if i >= brake_from else 0.0),
                    "thrust0": np.ones(V), "thrust1": -np.ones(V)}
        for sim in sims.values():
            sim.step(controls)
    whole = sims[1].telemetry()
    assert np.linalg.norm(whole["bodies"]["linearVelocity"], axis=1).max() > 1.0
    for threads in (2, 4):
        split = sims[threads].telemetry()
        for kind, values in whole.items():
            for name, value in values.items():
                assert np.array_equal(value, split[kind][name]), (threads, kind, name)


def test_run_returns_the_trace_layout():
    sim = Simulator.from_description(car_description("basic"), DT)
    trace = sim.run(3, controls={"accelerator": 1.0})
    assert trace["dt"] == DT and trace["steps"] == 3
    assert len(trace["vehicles"][CAR]["engineRotationSpeed"]) == 3
    assert len(trace["bodies"][CAR]["position"][0]) == 3 and len(trace["bodies"][CAR]["orientation"][0]) == 4
    assert set(trace["wheels"]) == {f"{CAR}/{n}" for n in ("FrontLeft", "FrontRight", "RearLeft", "RearRight")}
    assert trace["wheels"][f"{CAR}/RearLeft"]["rotationSpeed"][-1] > 0.0
    with pytest.raises(KeyError, match="unknown control"):
        sim.set_controls({"throttle": 1.0})


def test_chassis_positions_are_the_telemetry_positions():
    sim = run(car_description("standard"), 30, {"accelerator": 1.0, "steer": 0.3})
    start = Simulator.from_description(car_description("standard"), DT).chassis_positions()
    assert np.array_equal(sim.chassis_positions(), sim.telemetry()["bodies"]["position"])
    assert np.linalg.norm(sim.chassis_positions() - start) > 0.1  # it drove: the positions are the current ones
