"""vehicle2 parameter builder and batched form."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from physxvehicle_usd.runtime.vehicle2 import (AUTOMATIC_GEAR, DRIVE_BASIC, DRIVE_NONE, DRIVE_STANDARD, NEUTRAL_GEAR,
                                               RESPONSE_BRAKE0, RESPONSE_BRAKE1, RESPONSE_DRIVE, RESPONSE_STEER,
                                               VehicleParamsError, batch, build_vehicle_params)
from physxvehicle_usd.sim.presets import G, car_description

CAR = "/World/Car"


def test_gear_ratio_layout_is_reverse_neutral_forwards_with_ratio_scale_as_final_ratio():
    p = build_vehicle_params(car_description("standard"), CAR)
    assert p.gearbox.ratios == (-4.0, 0.0, 4.0, 2.0, 1.5, 1.1, 1.0)
    assert p.gearbox.nb_ratios == 7
    assert p.gearbox.neutral_gear == NEUTRAL_GEAR == 1
    assert p.gearbox.final_ratio == 4.0
    assert p.initial_gear == 2  # first forward gear
    assert p.controls.target_gear == AUTOMATIC_GEAR


def test_autobox_ratios_map_onto_physx_gear_indices():
    d = car_description("standard")
    d["vehicles"][CAR]["drive"]["autoGearBox"] = {"upRatios": [0.61, 0.62, 0.63, 0.64], "downRatios": [0.51, 0.52, 0.53, 0.54], "latency": 1.5}
    p = build_vehicle_params(d, CAR)
    assert p.autobox.up_ratios == (0.0, 0.0, 0.61, 0.62, 0.63, 0.64, 0.0)  # first .. second-highest gear
    assert p.autobox.down_ratios == (0.0, 0.0, 0.0, 0.51, 0.52, 0.53, 0.54)  # second .. highest gear
    assert p.autobox.latency == 1.5


def test_manual_initial_target_gear_is_applied_at_creation():
    d = car_description("standard", controller={"targetGear": -1})
    p = build_vehicle_params(d, CAR)
    assert p.controls.target_gear == 0 and p.initial_gear == 0  # PhysX reverse


def test_attachment_frames_move_into_the_centre_of_mass_frame():
    d = car_description("standard")
    v = d["vehicles"][CAR]
    v["rigidBody"]["centerOfMass"] = [0.0, 0.1, 0.2]
    half = np.sqrt(0.5)
    v["rigidBody"]["principalAxes"] = [half, 0.0, half, 0.0]  # 90 degrees about +Y
    p = build_vehicle_params(d, CAR)
    s = p.wheels[0].suspension
    # prim frame (-0.8, -0.3, 1.4) minus the CoM (0, 0.1, 0.2), rotated by -90 degrees about Y: (x, y, z) -> (-z, y, x)
    np.testing.assert_allclose(s.attachment_position, (-1.2, -0.4, -0.8), atol=1e-12)
    np.testing.assert_allclose(s.travel_direction, (0.0, -1.0, 0.0), atol=1e-12)
    np.testing.assert_allclose(s.attachment_orientation, (half, 0.0, -half, 0.0), atol=1e-12)
    v["vehicle"]["referenceFrameIsCenterOfMass"] = True
    p = build_vehicle_params(d, CAR)
    assert p.wheels[0].suspension.attachment_position == (-0.8, -0.3, 1.4)


def test_symmetric_car_carries_a_quarter_of_the_mass_per_wheel():
    p = build_vehicle_params(car_description("standard", mass=2000.0), CAR)
    assert [w.suspension_force.sprung_mass for w in p.wheels] == [500.0] * 4
    assert [w.tire.rest_load for w in p.wheels] == pytest.approx([500.0 * G] * 4)


def test_brake_and_steer_systems():
    p = build_vehicle_params(car_description("standard"), CAR)
    assert p.brakes[0].wheel_multipliers == (1.0, 1.0, 1.0, 1.0)  # empty wheel list = every wheel
    assert p.brakes[1].wheel_multipliers == (0.0, 0.0, 1.0, 1.0)
    assert p.steer.wheel_multipliers == (1.0, 1.0, 0.0, 0.0)  # Ackermann: its two wheels only
    assert p.ackermann.wheel_ids == (0, 1)
    d = car_description("standard")
    d["vehicles"][CAR]["ackermannSteering"] = None
    d["vehicles"][CAR]["brakes"] = {"brakes1": {"wheels": [1], "maxBrakeTorque": 10.0, "torqueMultipliers": [0.5]}}
    p = build_vehicle_params(d, CAR)
    assert p.steer.max_response == 0.0 and p.ackermann is None
    assert p.brakes[0].max_response == 0.0  # missing system: its command brakes nothing
    assert p.brakes[1].wheel_multipliers == (0.0, 0.5, 0.0, 0.0)


def test_nonlinear_table_is_split_per_command_value():
    d = car_description("basic")
    d["vehicles"][CAR]["nonlinearCommandResponses"] = {
        "drive": {"commandValues": [0.0, 1.0], "speedResponsesPerCommandValue": [0, 2],
                  "speedResponses": [[0.0, 0.2], [10.0, 0.4], [0.0, 1.0]]}}
    p = build_vehicle_params(d, CAR)
    assert p.throttle.nonlinear.command_values == (0.0, 1.0)
    assert p.throttle.nonlinear.curves == (((0.0, 0.2), (10.0, 0.4)), ((0.0, 1.0),))
    assert p.throttle.wheel_multipliers == (0.0, 0.0, 0.5, 0.5)


def test_unknown_vehicle_and_bad_travel_are_clear_errors():
    with pytest.raises(VehicleParamsError, match="no vehicle"):
        build_vehicle_params(car_description(), "/World/Nope")
    d = car_description()
    d["vehicles"][CAR]["wheels"][2]["suspension"]["travelDistance"] = 0.0
    with pytest.raises(VehicleParamsError, match="travelDistance"):
        build_vehicle_params(d, CAR)


def _three_wheeler() -> dict:
    d = car_description("basic", path="/World/Trike")
    v = d["vehicles"]["/World/Trike"]
    v["wheels"] = v["wheels"][:3]
    v["brakes"]["brakes1"]["wheels"] = [2]
    v["multiWheelDifferential"] = {"wheels": [2], "torqueRatios": [1.0], "averageWheelSpeedRatios": [1.0]}
    return d


def test_batched_form_equals_the_per_vehicle_form():
    params = [build_vehicle_params(car_description("standard"), CAR),
              build_vehicle_params(_three_wheeler(), "/World/Trike"),
              build_vehicle_params(car_description("none", path="/World/Raw"), "/World/Raw")]
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
    d = read.read_stage(sample).to_json()
    p = build_vehicle_params(d, "/World/Car")
    assert p.frame.lng_axis == (1.0, 0.0, 0.0) and p.frame.vrt_axis == (0.0, 0.0, 1.0)
    assert p.frame.lat_axis == (0.0, 1.0, 0.0)  # up x forward
    assert p.context.low_speed_substeps == 8 and p.context.high_speed_substeps == 4
    assert sum(w.suspension_force.sprung_mass for w in p.wheels) == pytest.approx(p.rigid_body.mass, rel=1e-6)
