"""vehicle2 parameter builder and batched form."""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Gf, UsdPhysics
from stage_factory import author, car_spec, preset_stage, target_of

from physxvehicle_usd import properties as P
from physxvehicle_usd.description import Source, StageDescription
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.read.context import REFERENCE_FRAME_KEY
from physxvehicle_usd.runtime.vehicle2 import (
    AUTOMATIC_GEAR,
    DRIVE_BASIC,
    DRIVE_NONE,
    DRIVE_STANDARD,
    NEUTRAL_GEAR,
    RESPONSE_BRAKE0,
    RESPONSE_BRAKE1,
    RESPONSE_DRIVE,
    RESPONSE_STEER,
    VehicleParamsError,
    build_vehicle_params,
)
from physxvehicle_usd.sim.batch import batch

CAR = "/World/Car"


def car(drive: str = "standard") -> StageDescription:
    """The preset car with this drive, authored Y up (+Z forward, +X lateral) and read back."""
    return read_stage(preset_stage(car_spec(drive)))


def test_gear_ratio_layout_is_reverse_neutral_forwards_with_ratio_scale_as_final_ratio():
    description = car("standard")
    gears = description.vehicles[CAR].drive.gears
    reverse, *forwards = gears["ratios"]
    p = build_vehicle_params(description, CAR)
    assert p.gearbox.ratios == pytest.approx((reverse, 0.0, *forwards), rel=1e-7)  # float32 attributes
    assert p.gearbox.nb_ratios == len(forwards) + 2
    assert p.gearbox.neutral_gear == NEUTRAL_GEAR == 1
    assert p.gearbox.final_ratio == gears["ratioScale"]
    assert p.initial_gear == 2  # first forward gear
    assert description.vehicles[CAR].controller["targetGear"] == AUTOMATIC_GEAR
    assert p.controls.target_gear == AUTOMATIC_GEAR


def test_autobox_ratios_map_onto_physx_gear_indices():
    stage = preset_stage(car_spec("standard"))
    autobox = target_of(stage, target_of(stage, CAR, P.VEHICLE, "drive"), P.DRIVE_STANDARD, "autoGearBox")
    author(stage, autobox, P.AUTOBOX, "upRatios", [0.61, 0.62, 0.63, 0.64])  # the car's five forward gears
    author(stage, autobox, P.AUTOBOX, "downRatios", [0.51, 0.52, 0.53, 0.54])
    author(stage, autobox, P.AUTOBOX, "latency", 1.5)
    p = build_vehicle_params(read_stage(stage), CAR)
    assert p.autobox.up_ratios == pytest.approx((0.0, 0.0, 0.61, 0.62, 0.63, 0.64, 0.0))  # first .. second-highest gear
    assert p.autobox.down_ratios == pytest.approx((0.0, 0.0, 0.0, 0.51, 0.52, 0.53, 0.54))  # second .. highest gear
    assert p.autobox.latency == 1.5


def test_manual_initial_target_gear_is_applied_at_creation():
    stage = preset_stage(car_spec("standard"))
    author(stage, CAR, P.CONTROLLER, "targetGear", -1)
    p = build_vehicle_params(read_stage(stage), CAR)
    assert p.controls.target_gear == 0 and p.initial_gear == 0  # PhysX reverse


def test_attachment_frames_move_into_the_centre_of_mass_frame():
    stage = preset_stage(car_spec("standard"))
    mass = UsdPhysics.MassAPI(stage.GetPrimAtPath(CAR))
    mass.GetCenterOfMassAttr().Set(Gf.Vec3f(0.0, 0.1, 0.2))
    half = np.sqrt(0.5)
    mass.GetPrincipalAxesAttr().Set(Gf.Quatf(half, 0.0, half, 0.0))  # 90 degrees about +Y
    description = read_stage(stage)
    body = description.vehicles[CAR].rigidBody
    wheel = next(w for w in description.vehicles[CAR].wheels if w.index == 0)
    x, y, z = np.subtract(wheel.attachment["suspensionFramePosition"], body["centerOfMass"])
    p = build_vehicle_params(description, CAR)
    s = p.wheels[0].suspension
    # prim frame minus the CoM, rotated by -90 degrees about Y: (x, y, z) -> (-z, y, x); float32 attributes
    np.testing.assert_allclose(s.attachment_position, (-z, y, x), atol=1e-6)
    np.testing.assert_allclose(s.travel_direction, (0.0, -1.0, 0.0), atol=1e-6)
    np.testing.assert_allclose(s.attachment_orientation, (half, 0.0, -half, 0.0), atol=1e-6)
    stage.GetPrimAtPath(CAR).SetCustomDataByKey(REFERENCE_FRAME_KEY, True)
    p = build_vehicle_params(read_stage(stage), CAR)
    np.testing.assert_allclose(p.wheels[0].suspension.attachment_position, wheel.attachment["suspensionFramePosition"],
                               atol=1e-6)


def test_symmetric_car_carries_a_quarter_of_the_mass_per_wheel():
    stage = preset_stage(car_spec("standard"))
    UsdPhysics.MassAPI(stage.GetPrimAtPath(CAR)).GetMassAttr().Set(2000.0)
    p = build_vehicle_params(read_stage(stage), CAR)
    g = float(np.linalg.norm(p.context.gravity))
    assert [w.suspension_force.sprung_mass for w in p.wheels] == pytest.approx([500.0] * 4, rel=1e-12)
    assert [w.tire.rest_load for w in p.wheels] == pytest.approx([500.0 * g] * 4)


def test_brake_and_steer_systems():
    stage = preset_stage(car_spec("standard"))
    author(stage, CAR, P.BRAKES, "wheels", [], "brakes0")
    author(stage, CAR, P.BRAKES, "torqueMultipliers", [], "brakes0")
    description = read_stage(stage)
    p = build_vehicle_params(description, CAR)
    assert p.brakes[0].wheel_multipliers == (1.0, 1.0, 1.0, 1.0)  # empty wheel list = every wheel
    assert p.brakes[1].wheel_multipliers == (0.0, 0.0, 1.0, 1.0)
    ackermann = description.vehicles[CAR].ackermannSteering
    assert p.steer.wheel_multipliers == (1.0, 1.0, 0.0, 0.0)  # Ackermann: its two wheels only
    assert p.ackermann.wheel_ids == (ackermann["wheel0"], ackermann["wheel1"])
    prim = stage.GetPrimAtPath(CAR)
    prim.RemoveAPI(P.ACKERMANN)
    prim.RemoveAPI(P.BRAKES, "brakes0")
    author(stage, CAR, P.BRAKES, "wheels", [1], "brakes1")
    author(stage, CAR, P.BRAKES, "maxBrakeTorque", 10.0, "brakes1")
    author(stage, CAR, P.BRAKES, "torqueMultipliers", [0.5], "brakes1")
    p = build_vehicle_params(read_stage(stage), CAR)
    assert p.ackermann is None
    # the reader's deprecated fallback (the wheels' own steer angles, unauthored: 0) steers nothing
    assert [p.steer.max_response * m for m in p.steer.wheel_multipliers] == [0.0] * 4
    assert p.brakes[0].max_response == 0.0  # missing system: its command brakes nothing
    assert p.brakes[1].wheel_multipliers == (0.0, 0.5, 0.0, 0.0)


def test_nonlinear_table_is_split_per_command_value():
    stage = preset_stage(car_spec("basic"))
    drive = target_of(stage, CAR, P.VEHICLE, "drive")  # the basic drive's prim carries its response
    stage.GetPrimAtPath(drive).ApplyAPI(P.NCR, "drive")
    author(stage, drive, P.NCR, "commandValues", [0.0, 1.0], "drive")
    author(stage, drive, P.NCR, "speedResponsesPerCommandValue", [0, 2], "drive")
    # binary fractions: the float attributes hold them exactly
    author(stage, drive, P.NCR, "speedResponses", [(0.0, 0.25), (10.0, 0.5), (0.0, 1.0)], "drive")
    description = read_stage(stage)
    p = build_vehicle_params(description, CAR)
    assert p.throttle.nonlinear.command_values == (0.0, 1.0)
    assert p.throttle.nonlinear.curves == (((0.0, 0.25), (10.0, 0.5)), ((0.0, 1.0),))
    differential = description.vehicles[CAR].multiWheelDifferential
    ratios = dict(zip(differential["wheels"], differential["torqueRatios"]))
    assert p.throttle.wheel_multipliers == tuple(ratios.get(i, 0.0) for i in range(4))


def test_unknown_vehicle_and_bad_travel_are_clear_errors():
    stage = preset_stage(car_spec("standard"))
    with pytest.raises(VehicleParamsError, match="no vehicle"):
        build_vehicle_params(read_stage(stage), "/World/Nope")
    # authored: the reader names the attribute and leaves the vehicle out, which the builder reports
    suspension = read_stage(stage).vehicles[CAR].wheels[2].suspension
    author(stage, suspension.path, P.SUSPENSION, "travelDistance", 0.0)
    description = read_stage(stage)
    assert any(d.code == "V29" and d.prim == suspension.path and "travelDistance" in d.property
               for d in description.diagnostics)
    with pytest.raises(VehicleParamsError, match="no vehicle"):
        build_vehicle_params(description, CAR)
    # records made without the reader (describe_vehicle, snippet import) meet the builder's own check
    description = car("standard")
    description.vehicles[CAR].wheels[2].suspension.set("travelDistance", 0.0, Source.AUTHORED)
    with pytest.raises(VehicleParamsError, match="travelDistance"):
        build_vehicle_params(description, CAR)


def _three_wheeler() -> StageDescription:
    """The basic car without its wheel of index 3; the handbrake on the one rear wheel left."""
    stage = preset_stage(car_spec("basic", "Trike"))
    trike = "/World/Trike"
    wheels = {w.index: w.path for w in read_stage(stage).vehicles[trike].wheels}
    stage.RemovePrim(wheels[3])
    author(stage, trike, P.BRAKES, "wheels", [], "brakes0")
    author(stage, trike, P.BRAKES, "torqueMultipliers", [], "brakes0")
    author(stage, trike, P.BRAKES, "wheels", [2], "brakes1")
    author(stage, trike, P.BRAKES, "torqueMultipliers", [1.0], "brakes1")
    return read_stage(stage)


def test_batched_form_equals_the_per_vehicle_form():
    params = [build_vehicle_params(car("standard"), CAR),
              build_vehicle_params(_three_wheeler(), "/World/Trike"),
              build_vehicle_params(read_stage(preset_stage(car_spec("none", "Raw"))), "/World/Raw")]
    b = batch(params)
    assert b.nb_vehicles == 3 and b.max_wheels == 4
    assert b.wheel_mask.tolist() == [[True] * 4, [True, True, True, False], [True] * 4]
    assert b.drive_type.tolist() == [DRIVE_STANDARD, DRIVE_BASIC, DRIVE_NONE]
    for i, p in enumerate(params):
        assert b.mass[i] == p.rigid_body.mass
        np.testing.assert_array_equal(b.lng_axis[i], p.frame.lng_axis)
        np.testing.assert_array_equal(b.gravity[i], p.context.gravity)
        for w, wp in enumerate(p.wheels):
            assert b.radius[i, w] == wp.wheel.radius
            np.testing.assert_array_equal(b.attachment_position[i, w], wp.suspension.attachment_position)
            assert b.sprung_mass[i, w] == wp.suspension_force.sprung_mass
            assert b.lat_stiff_y[i, w] == wp.tire.lat_stiff_y
            assert b.response_multipliers[i, RESPONSE_BRAKE0, w] == p.brakes[0].wheel_multipliers[w]
            assert b.response_multipliers[i, RESPONSE_BRAKE1, w] == p.brakes[1].wheel_multipliers[w]
            assert b.response_multipliers[i, RESPONSE_STEER, w] == p.steer.wheel_multipliers[w]
            if p.throttle:
                assert b.response_multipliers[i, RESPONSE_DRIVE, w] == p.throttle.wheel_multipliers[w]
        if p.gearbox:
            np.testing.assert_array_equal(b.gear_ratios[i, : p.gearbox.nb_ratios], p.gearbox.ratios)
            assert b.nb_gears[i] == p.gearbox.nb_ratios
    assert b.sprung_mass[1, 3] == 0.0  # padding stays zero
    assert b.wheel_paths[1] == tuple(w.path for w in params[1].wheels)
    with pytest.raises(ValueError):
        b.mass[0] = 1.0  # read-only


def test_batch_of_the_sample_car_read_from_usd():
    from pathlib import Path

    from physxvehicle_usd import read
    sample = Path(__file__).resolve().parents[1] / "samples" / "car" / "car.usda"
    p = build_vehicle_params(read.read_stage(sample), "/World/Car")
    assert p.frame.lng_axis == (1.0, 0.0, 0.0) and p.frame.vrt_axis == (0.0, 0.0, 1.0)
    assert p.frame.lat_axis == (0.0, 1.0, 0.0)  # up x forward
    assert p.context.low_speed_substeps == 8 and p.context.high_speed_substeps == 4
    assert sum(w.suspension_force.sprung_mass for w in p.wheels) == pytest.approx(p.rigid_body.mass, rel=1e-6)


def test_an_authored_angular_velocity_in_degrees_starts_the_body_in_radians():
    # physics:angularVelocity is in degrees per second (UsdPhysics); PhysX's actor takes radians per second
    from physxvehicle_usd.sim import Simulator

    stage = preset_stage(car_spec())
    UsdPhysics.RigidBodyAPI(stage.GetPrimAtPath(CAR)).CreateAngularVelocityAttr(Gf.Vec3f(90.0, 0.0, -45.0))
    sim = Simulator.from_description(read_stage(stage), 1.0 / 60.0)
    assert np.allclose(sim.state.angular_velocity[:, 0], [np.pi / 2, 0.0, -np.pi / 4], rtol=1e-6)
