"""Numpy vehicle2 core: subsystem equations against hand-computed values, and whole-car behaviour."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from conftest import needs_kernel
from stage_factory import author, car_spec, preset_spec, preset_stage, set_velocity, target_of, translate

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.vehicle2 import build_vehicle_params
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.batch import batch
from physxvehicle_usd.sim.commands import normalised_response, steer_angles
from physxvehicle_usd.sim.drivetrain import engine_damping_rate, engine_drive_torque, gear_ratio
from physxvehicle_usd.sim.pipeline import StepOptions
from physxvehicle_usd.sim.rigid_body import integrate_position
from physxvehicle_usd.sim.state import SimParams
from physxvehicle_usd.sim.tire import tire_force_model
from physxvehicle_usd.sim.wheel import direct_drive_update

CAR = "/World/Car"
DT = 1.0 / 60.0


def car(drive="standard"):
    """The preset car with this drive, authored Y up (+Z forward, +X lateral) and read back."""
    return read_stage(preset_stage(car_spec(drive)))


def params_of(description, path=CAR, dtype=np.float64) -> SimParams:
    return SimParams.from_batch(batch([build_vehicle_params(description, path)]), dtype)


def gravity(description) -> float:
    return description.scenes[description.vehicles[CAR].scene].settings["gravityMagnitude"]


def run(description, steps, controls=None):
    sim = Simulator.from_description(description, DT)
    if controls:
        sim.set_controls(controls)
    return run_on(sim, steps)


def run_on(sim, steps):
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
    description = car("standard")
    p = params_of(description)
    drive = description.vehicles[CAR].drive
    engine, gears = drive.engine, drive.gears
    peak, top = engine["peakTorque"], engine["maxRotationSpeed"]
    (x0, y0), (x1, y1) = engine["torqueCurve"][:2]
    # the peak torque times the curve's value at each of its points (normalised speed x top speed), the mean halfway
    points = [(x * top, peak * y) for x, y in engine["torqueCurve"]] + [(0.5 * (x0 + x1) * top, peak * 0.5 * (y0 + y1))]
    for omega, expected in points:
        assert engine_drive_torque(p, np.array([omega]), np.array([1.0]))[0] == pytest.approx(expected)
    quarter = (x0 + 0.25 * (x1 - x0)) * top  # half throttle a quarter of the way along the first segment
    expected = 0.5 * peak * (y0 + 0.25 * (y1 - y0))
    assert engine_drive_torque(p, np.array([quarter]), np.array([0.5]))[0] == pytest.approx(expected)
    # in gear: engaged + (full - engaged) * throttle; in neutral the disengaged rate
    engaged, full = engine["dampingRateZeroThrottleClutchEngaged"], engine["dampingRateFullThrottle"]
    assert engine_damping_rate(p, np.array([2]), np.array([0.5]))[0] == pytest.approx(engaged + (full - engaged) * 0.5)
    assert engine_damping_rate(p, np.array([1]), np.array([0.0]))[0] == pytest.approx(
        engine["dampingRateZeroThrottleClutchDisengaged"])
    # PhysX gear 0 is reverse, 1 neutral, 2 the first forward gear; the ratio scale is the final drive ratio
    reverse, first = gears["ratios"][:2]
    assert gear_ratio(p, np.array([2]))[0] == pytest.approx(first * gears["ratioScale"])
    assert gear_ratio(p, np.array([0]))[0] == pytest.approx(reverse * gears["ratioScale"]) and reverse < 0.0
    assert gear_ratio(p, np.array([1]))[0] == 0.0


def test_nonlinear_command_response():
    stage = preset_stage(car_spec("basic"))
    drive = target_of(stage, CAR, P.VEHICLE, "drive")  # the basic drive's prim carries its response
    stage.GetPrimAtPath(drive).ApplyAPI(P.NCR, "drive")
    author(stage, drive, P.NCR, "commandValues", [0.5, 1.0], "drive")
    author(stage, drive, P.NCR, "speedResponsesPerCommandValue", [0, 2], "drive")
    author(stage, drive, P.NCR, "speedResponses", [(0.0, 0.2), (10.0, 0.4), (0.0, 1.0), (20.0, 0.5)], "drive")
    p = params_of(read_stage(stage))
    from physxvehicle_usd.runtime.vehicle2 import RESPONSE_DRIVE
    z = lambda c, s: normalised_response(p, RESPONSE_DRIVE, np.array([c]), np.array([s]))[0]  # noqa: E731
    assert z(0.5, 5.0) == pytest.approx(0.3)
    assert z(0.1, 5.0) == pytest.approx(0.3)  # below the first command value: the first curve, not 0
    assert z(1.0, 10.0) == pytest.approx(0.75)
    assert z(0.75, 10.0) == pytest.approx(0.5 * (0.4 + 0.75))
    assert z(0.5, -3.0) == pytest.approx(0.2)  # reverse speeds use the lowest-speed entry


def test_ackermann_gives_the_inner_wheel_the_full_angle():
    description = car("standard")
    p = params_of(description)
    ackermann = description.vehicles[CAR].ackermannSteering
    outer, inner = ackermann["wheel0"], ackermann["wheel1"]
    lateral = {w.index: w.attachment["suspensionFramePosition"][0] for w in description.vehicles[CAR].wheels}  # +X
    assert lateral[outer] < 0.0 < lateral[inner]  # wheel0 on the negative lateral side: outside for a positive turn
    angles = steer_angles(p, np.array([0.5]), np.array([0.0]))[0]
    psi_in = 0.5 * ackermann["maxSteerAngle"]
    base, track = ackermann["wheelBase"], ackermann["trackWidth"]
    perfect = math.atan(base / (track + base / math.tan(psi_in)))
    assert angles[outer] == pytest.approx(perfect)
    assert angles[inner] == pytest.approx(psi_in)
    assert [a for i, a in enumerate(angles) if i not in (outer, inner)] == [0.0, 0.0]
    left = steer_angles(p, np.array([-0.5]), np.array([0.0]))[0]
    assert left[outer] == pytest.approx(-psi_in) and left[inner] == pytest.approx(-perfect)


# --- tire and wheel ----------------------------------------------------------------------------


def test_tire_force_small_slip_is_linear_and_large_slip_saturates_on_the_friction_circle():
    description = car("standard")
    tire = description.vehicles[CAR].wheels[0].tire
    p = params_of(description)
    shape = (1, 4)
    load = np.full(shape, p.rest_load[0, 0])
    mu = np.ones(shape)
    zero = np.zeros(shape)
    f_lng, f_lat = tire_force_model(p, np.full(shape, 1e-3), zero, zero, load, mu)
    assert f_lng[0, 0] == pytest.approx(tire["longitudinalStiffness"] * 1e-3, rel=1e-3) and f_lat[0, 0] == 0.0
    alpha = 1e-3
    f_lng, f_lat = tire_force_model(p, zero, np.full(shape, alpha), zero, load, mu)
    x, y = tire["lateralStiffnessGraph"]
    s = 3.0 / x  # F_z/N_rest = 1
    c_alpha = y * min(1.0, s - s**2 * 0.33333 + s**3 * 0.037037)
    k = c_alpha * math.tan(alpha) / load[0, 0]  # pure lateral slip: F_lat = -S1(K) mu F_z
    assert f_lat[0, 0] == pytest.approx(-(k - 0.33333 * k * k + 0.037037 * k**3) * load[0, 0], rel=1e-12)
    assert f_lat[0, 0] == pytest.approx(-c_alpha * math.tan(alpha), rel=1e-2)
    f_lng, f_lat = tire_force_model(p, np.full(shape, 0.8), np.full(shape, 0.3), zero, load, mu)
    assert math.hypot(f_lng[0, 0], f_lat[0, 0]) == pytest.approx(load[0, 0], rel=1e-9)
    assert tire_force_model(p, np.full(shape, 5e-6), zero, zero, load, mu)[0][0, 0] == 0.0  # dead zone


def test_direct_drive_wheel_update_and_brake_lock():
    description = car("basic")
    wheel = description.vehicles[CAR].wheels[0].wheel
    p = params_of(description)
    one = np.ones((1, 4))
    new = direct_drive_update(p, 10.0 * one, 0.0 * one, 100.0 * one, 0.0 * one, one < 0, 0.01)
    k = 0.01 / wheel["moi"]
    assert new[0, 0] == pytest.approx((10.0 + k * 100.0) / (1.0 + wheel["dampingRate"] * k))
    locked = direct_drive_update(p, 0.1 * one, 0.0 * one, 0.0 * one, 1000.0 * one, one > 0, 0.01)
    assert (locked == 0.0).all()


# --- whole car --------------------------------------------------------------------------------


def test_the_pose_moves_after_each_tgs_position_iteration_in_the_state_s_precision():
    """rigid_body.integrate_position, as PhysX's TGS (DyTGSDynamics.cpp integrateCoreStep; 16 position iterations
    here): a body creeping at -8.2e-5 m/s 5.4 m from the origin stays put in float32 (each iteration's move, 8.5e-8 m,
    is under half of float32's step there, 2.4e-7 m), as ovphysx's standing car of the Push2 scenario does; under PGS
    (one move of v dt, 1.4e-6 m) it moves three steps; at 2 m/s it moves v dt to within the rounding of 16 adds."""
    p = params_of(car("standard"), dtype=np.float32)
    assert p.position_iterations[0] == 16 and not p.pgs[0]
    begin = np.array([[5.4], [0.45], [0.0]], np.float32)
    creeping = np.array([[-8.2e-5], [0.0], [0.0]], np.float32)
    np.testing.assert_array_equal(integrate_position(p, begin, creeping, DT), begin)
    pgs = integrate_position(SimParams(**{**vars(p), "pgs": np.array([True])}), begin, creeping, DT)
    assert pgs[0, 0] == np.float32(5.4) - 3 * np.spacing(np.float32(5.4))
    driving = integrate_position(p, begin, np.array([[2.0], [0.0], [0.0]], np.float32), DT)
    assert driving.dtype == np.float32
    assert float(driving[0, 0]) == pytest.approx(5.4 + 2.0 * DT, abs=16 * float(np.spacing(np.float32(5.4))))


@pytest.mark.parametrize("drive", ["standard", "basic", "none"])
def test_car_at_rest_stays_at_rest_with_suspension_balancing_gravity(drive):
    description = car(drive)
    sim = run(description, 60)
    settled = sim.telemetry()["bodies"]["position"][0]
    run_on(sim, 30)
    t = sim.telemetry()
    vehicle, g = description.vehicles[CAR], gravity(description)
    wheels = sorted(vehicle.wheels, key=lambda w: w.index)
    jounce = [w.suspension["sprungMass"] * g / w.suspension["springStrength"] for w in wheels]
    np.testing.assert_allclose(t["wheels"]["suspensionJounce"][0], jounce, atol=1e-6)
    # the pose stays put: float32, as PhysX's TGS moves it (rigid_body.integrate_position), a velocity of a few
    # 1e-6 m/s (what is left of gravity's 0.16 m/s a step against the springs) moves it less than half a rounding
    # step per position iteration
    np.testing.assert_array_equal(t["bodies"]["position"][0], settled)
    assert np.abs(t["bodies"]["linearVelocity"][0]).max() < 5e-6
    total = t["wheels"]["suspensionForce"][0].sum(axis=0)
    np.testing.assert_allclose(total, (0.0, vehicle.rigidBody["mass"] * g, 0.0), rtol=1e-6, atol=1e-6)
    assert t["wheels"]["isOnGround"].all()
    table = description.tireFrictionTables[wheels[0].tire["frictionTable"]]  # the ground material's entry
    friction = table["frictionValues"][table["groundMaterials"].index(description.ground[0].material)]
    assert friction != table["defaultFrictionValue"]
    assert t["wheels"]["tireFriction"][0] == pytest.approx([friction] * 4)


def test_full_throttle_accelerates_forward_and_shifts_up():
    description = car("standard")
    sim = run(description, 240, {"accelerator": 1.0})
    t = sim.telemetry()
    v = t["bodies"]["linearVelocity"][0]
    assert v[2] > 0.0 and abs(v[0]) < 0.01  # forward is +Z
    assert t["vehicles"]["engineRotationSpeed"][0] > 100.0
    assert t["bodies"]["position"][0][2] > 10.0
    gears = []
    for _ in range(120):
        sim.step()
        gears.append(int(sim.telemetry()["vehicles"]["currentGear"][0]))
    assert max(gears) >= 3 and 0 in gears  # shifts pass through neutral
    # faster than the engine at its top speed can drive the wheels in first gear
    vehicle = description.vehicles[CAR]
    engine, gearbox = vehicle.drive.engine, vehicle.drive.gears
    first_gear_top = engine["maxRotationSpeed"] / (gearbox["ratios"][1] * gearbox["ratioScale"]) * vehicle.wheels[0].wheel["radius"]
    assert sim.telemetry()["bodies"]["linearVelocity"][0][2] > first_gear_top


@pytest.mark.parametrize("drive", ["basic", "none"])
def test_basic_and_wheel_controller_drives_accelerate(drive):
    # the wheel controllers get the torques the basic drive gives its driven wheels at full throttle
    basic = car("basic").vehicles[CAR]
    differential = basic.multiWheelDifferential
    torques = [0.0] * len(basic.wheels)
    for wheel, ratio in zip(differential["wheels"], differential["torqueRatios"]):
        torques[wheel] = basic.drive.basic["peakTorque"] * ratio
    controls = {"accelerator": 1.0} if drive == "basic" else {"driveTorque": [torques]}
    description = car(drive)
    t = run(description, 120, controls).telemetry()
    v = t["bodies"]["linearVelocity"][0][2]
    # the drive torque at the wheel radius on the car's mass for 2 s; wheel inertia and slip take a little off
    vehicle = description.vehicles[CAR]
    ideal = sum(torques) / vehicle.wheels[0].wheel["radius"] / vehicle.rigidBody["mass"] * 120 * DT
    assert 0.9 * ideal < v < ideal


def test_braking_decelerates_and_locks_to_rest():
    stage = preset_stage(car_spec("standard"))
    set_velocity(stage, CAR, (0.0, 0.0, 15.0))
    sim = run(read_stage(stage), 30, {"brake0": 1.0})
    v1 = sim.telemetry()["bodies"]["linearVelocity"][0][2]
    assert v1 < 13.0
    for _ in range(240):
        sim.step()
    t = sim.telemetry()
    assert abs(t["bodies"]["linearVelocity"][0][2]) < 0.05
    assert np.abs(t["wheels"]["rotationSpeed"][0]).max() < 0.2


def test_positive_steer_turns_toward_the_positive_lateral_axis():
    stage = preset_stage(car_spec("basic"))
    set_velocity(stage, CAR, (0.0, 0.0, 10.0))
    sim = run(read_stage(stage), 60, {"steer": 0.5, "accelerator": 0.3})
    t = sim.telemetry()
    assert t["bodies"]["angularVelocity"][0][1] > 0.1  # yaw about +Y (up)
    assert t["bodies"]["position"][0][0] > 0.1  # drifted toward +X (lateral = up x forward)
    assert t["wheels"]["wheelSteerAngle"][0][1] > 0.0


TANK = "/World/Tank"


def tank_stage():
    """The tank preset in first gear without its automatic gearbox, full throttle, thrust0 forward, thrust1 back."""
    stage = preset_stage(preset_spec("tank"))
    drive = target_of(stage, TANK, P.VEHICLE, "drive")
    stage.GetPrimAtPath(drive).GetRelationship(P.full_name(P.DRIVE_STANDARD, "autoGearBox")).ClearTargets(True)
    author(stage, TANK, P.CONTROLLER, "targetGear", 1)
    author(stage, TANK, P.CONTROLLER, "accelerator", 1.0)
    author(stage, TANK, P.TANK_CONTROLLER, "thrust0", 1.0)
    author(stage, TANK, P.TANK_CONTROLLER, "thrust1", -1.0)
    return stage


def test_tank_opposite_thrusts_pivot_in_place_with_tracks_locked_together():
    description = read_stage(tank_stage())
    tank = description.vehicles[TANK]
    assert tank.drive.autoGearBox is None
    differential = tank.tankDifferential
    order = differential["wheelIndicesInTrackOrder"]
    tracks = [order[start:start + count] for start, count in
              zip(differential["trackToWheelIndices"], differential["numberOfWheelsPerTrack"])]
    assert differential["thrustIndexPerTrack"] == [0, 1] and sorted(order) == list(range(len(tank.wheels)))
    sim = run(description, 90)
    t = sim.telemetry()
    w = t["wheels"]["rotationSpeed"][0]
    for track in tracks:  # one speed per track
        np.testing.assert_allclose(w[track], w[track[0]], rtol=0.0, atol=1e-9)
    assert w[tracks[0][0]] > 1.0 and w[tracks[1][0]] < -1.0
    assert abs(t["bodies"]["angularVelocity"][0][1]) > 0.2
    assert np.linalg.norm(t["bodies"]["linearVelocity"][0]) < 0.5


def three_drives():
    """Cars A (standard drive, 5 m to the side), B (basic drive, rolling at 8 m/s) and C (wheel controllers, 5 m to
    the other side: apart, their chassis would collide)."""
    stage = preset_stage(car_spec("standard", "A"), car_spec("basic", "B"), car_spec("none", "C"))
    translate(stage, "/World/A", (5.0, 0.0, 0.0))
    translate(stage, "/World/C", (-5.0, 0.0, 0.0))
    set_velocity(stage, "/World/B", (0.0, 0.0, 8.0))
    return stage


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_kernel)])
def test_mixed_batch_matches_vehicles_simulated_alone(compiled):
    # both paths: a vehicle's arithmetic does not depend on its place in the batch (in the compiled kernel: its
    # lane of the vectorised loop, or the loop's scalar remainder)
    options = StepOptions(compiled=compiled)
    description = read_stage(three_drives())
    controls = {"/World/A": {"accelerator": 1.0, "steer": 0.3}, "/World/B": {"brake0": 0.5}, "/World/C": {"steerAngle": [[0.1, 0.1, 0, 0]]}}
    together = Simulator.from_description(description, DT, options=options)
    V = 3
    together.set_controls({"accelerator": [1.0, 0.0, 0.0], "steer": [0.3, 0.0, 0.0], "brake0": [0.0, 0.5, 0.0],
                           "steerAngle": [[0, 0, 0, 0], [0, 0, 0, 0], [0.1, 0.1, 0, 0]]})
    alone = [Simulator.from_description(description, DT, [path], options=options) for path in controls]
    for sim, path in zip(alone, controls):
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
    sim = Simulator.from_description(read_stage(three_drives()), DT, dtype=dtype)
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
    description = read_stage(Path(__file__).parent / "scenarios" / "fleet.usda")
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


def _regimes(tmp_path, units: str, threads: int = 1) -> Simulator:
    """tests/scenarios/regimes.py: /World/Low starts with its wheels 0.15 m below full compression, /World/Drop
    1.5 m above its rest height."""
    from scenarios.regimes import build

    return Simulator.from_description(read_stage(build(tmp_path)[units]), DT, threads=threads)


@pytest.mark.parametrize("units, lift, scale", [("m", 0.148, 1.0), ("cm_g", 0.75, 100.0)])
def test_a_car_below_full_compression_is_lifted_in_position_and_keeps_no_speed_from_it(tmp_path, units, lift, scale):
    """PhysX's TGS solver resolves the limit rows' error in its position iterations (16 here: 1 - 0.75^16 of it,
    0.148 of 0.1495 m in metres; capped at 0.75 stage units per step, so 0.75 cm in centimetres) and drops the
    velocity that did it. ovphysx: 0.14799 m and 0.7499 cm, leaving at 0.072 m/s and 7.1 cm/s upwards; keeping
    the velocity, the car used to leave at 8.97 m/s."""
    sim = _regimes(tmp_path, units)
    low = sim.params.paths.index("/World/Low")
    before = sim.telemetry()["bodies"]["position"][low].copy()
    sim.step({"accelerator": np.ones(sim.params.V)})
    after = sim.telemetry()["bodies"]
    assert after["position"][low][2] - before[2] == pytest.approx(lift, abs=0.001 * scale)
    assert 0.0 < after["linearVelocity"][low][2] < 0.1 * scale


def test_threads_agree_bit_for_bit_past_full_compression(tmp_path):
    """The limit rows are solved row by row over the vehicles of a range; one vehicle per thread must give what
    the whole batch gives (the low car from the first step, the dropped one from its touchdown near step 32)."""
    sims = {threads: _regimes(tmp_path, "m", threads) for threads in (1, 2)}
    deepest = 0.0  # per vehicle, the greatest jounce of its wheels over the run
    for _ in range(40):
        for sim in sims.values():
            sim.step({"accelerator": np.ones(sim.params.V)})
        deepest = np.maximum(deepest, np.max(sims[1].telemetry()["wheels"]["suspensionJounce"], axis=1))
    assert sims[2].threads == 2
    assert deepest == pytest.approx([0.22, 0.22])  # both cars reached full compression (travel 0.22 m)
    whole, split = sims[1].telemetry(), sims[2].telemetry()
    for kind, values in whole.items():
        for name, value in values.items():
            assert np.array_equal(value, split[kind][name]), (kind, name)


def test_run_returns_the_trace_layout():
    description = car("basic")
    sim = Simulator.from_description(description, DT)
    trace = sim.run(3, controls={"accelerator": 1.0})
    assert trace["dt"] == DT and trace["steps"] == 3
    assert len(trace["vehicles"][CAR]["engineRotationSpeed"]) == 3
    assert len(trace["bodies"][CAR]["position"][0]) == 3 and len(trace["bodies"][CAR]["orientation"][0]) == 4
    wheels = {w.index: w.path for w in description.vehicles[CAR].wheels}
    assert set(trace["wheels"]) == set(wheels.values()) and len(wheels) == 4
    driven = wheels[description.vehicles[CAR].multiWheelDifferential["wheels"][0]]
    assert trace["wheels"][driven]["rotationSpeed"][-1] > 0.0
    with pytest.raises(KeyError, match="unknown control"):
        sim.set_controls({"throttle": 1.0})


def test_chassis_positions_are_the_telemetry_positions():
    description = car("standard")
    sim = run(description, 30, {"accelerator": 1.0, "steer": 0.3})
    start = Simulator.from_description(description, DT).chassis_positions()
    assert np.array_equal(sim.chassis_positions(), sim.telemetry()["bodies"]["position"])
    assert np.linalg.norm(sim.chassis_positions() - start) > 0.1  # it drove: the positions are the current ones


def test_any_wheels_is_the_written_or_of_the_wheels():
    """vecmath.any_wheels takes flags of a few wheels in one reduce and more in a loop over the wheel axis: either is
    the or of the wheels, a bool array of the leading shape; integer flags keep their type."""
    rng = np.random.default_rng(5)
    for shape in ((1, 4), (3, 4), (2, 5, 4), (1, 1), (16, 4), (300, 4), (3, 300, 4)):
        x = rng.random(shape) < 0.2
        written = x[..., 0].copy()
        for w in range(1, shape[-1]):
            written = written | x[..., w]
        got = vm.any_wheels(x)
        assert got.dtype == np.bool_ and got.shape == shape[:-1] and (got == written).all()
    flags = (rng.random((2, 4)) < 0.5).astype(np.int32)
    assert vm.any_wheels(flags).dtype == np.int32


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quaternion_products_are_their_written_sums_bit_for_bit(dtype):
    """vecmath's quaternion helpers gather their terms (a few quaternions) or write each component's last operation
    into the result (many): the Hamilton product, the conjugate, the rotation matrix and the closed-form rotation are
    still the written arithmetic, bit for bit, broadcasting (4, 1) against (4, V) and for one quaternion (4,)."""
    rng = np.random.default_rng(3)
    for a_shape, b_shape in (((4, 7), (4, 7)), ((4, 1), (4, 7)), ((4,), (4,)), ((4, 300), (4, 300)), ((4, 1), (4, 300))):
        a, b = rng.normal(size=a_shape).astype(dtype), rng.normal(size=b_shape).astype(np.float32)
        a.flat[0] = -0.0
        aw, ax, ay, az = a
        bw, bx, by, bz = b
        written = np.stack((aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw))
        product = vm.quat_mul(a, b)
        assert product.dtype == written.dtype and product.tobytes() == written.tobytes()
        conj = vm.quat_conj(a)
        assert conj.tobytes() == np.stack((a[0], -a[1], -a[2], -a[3])).tobytes()
        x2, y2, z2 = ax + ax, ay + ay, az + az
        matrix = np.stack((1 - (ay * y2 + az * z2), ax * y2 - aw * z2, az * x2 + aw * y2,
                           ax * y2 + aw * z2, 1 - (az * z2 + ax * x2), ay * z2 - aw * x2,
                           az * x2 - aw * y2, ay * z2 + aw * x2, 1 - (ax * x2 + ay * y2))).reshape((3, 3) + a.shape[1:])
        assert vm.quat_to_mat(a).tobytes() == matrix.astype(dtype).tobytes()
    q, w = rng.normal(size=(4, 5)).astype(dtype), rng.normal(size=(3, 5)).astype(dtype)
    speed = vm.norm(w)
    half = 0.5 * speed * DT
    s = np.where(speed > 0.0, np.sin(half) / np.where(speed > 0.0, speed, 1.0), 0.0)
    dq = np.stack((np.cos(half), w[0] * s, w[1] * s, w[2] * s))
    assert vm.quat_integrate_exact(q, w, DT).tobytes() == vm.quat_normalize(vm.quat_mul(dq, q)).tobytes()
