"""Deprecated attributes: each one is migrated into its replacement as the PhysX USD parser does
(shared/spec/vehicle_parse_rules.md section 4), with a DEPRECATED warning naming the prim and the
deprecated attribute, and provenance "deprecated" on the migrated value."""
from __future__ import annotations

import pytest
from stage_factory import build_vehicle

from physxvehicle_usd import properties as P
from physxvehicle_usd.description import Source
from physxvehicle_usd.diagnostics import Severity
from physxvehicle_usd.properties import FLT_EPSILON

G = 9.81


def deprecated_warning(description, prim: str, schema: str, base: str):
    name = P.full_name(schema, base)
    found = [d for d in description.diagnostics
             if d.code == "DEPRECATED" and d.prim == prim and d.property == name]
    assert found, f"no DEPRECATED warning for {prim}.{name}: {[d.line() for d in description.diagnostics]}"
    assert all(d.severity == Severity.WARNING for d in found)
    return found[0]


def only_vehicle(description):
    errors = [d.line() for d in description.diagnostics if d.severity == Severity.ERROR]
    assert not errors, errors
    assert list(description.vehicles) == ["/World/Car"]
    return description.vehicles["/World/Car"]


# -- tire ---------------------------------------------------------------------------------------------

def test_lat_stiff_x_and_y_become_the_lateral_stiffness_graph():
    car = build_vehicle()
    tire = car.parts["Tire"]
    car.set(tire, P.TIRE, "latStiffX", 3.0)
    car.set(tire, P.TIRE, "latStiffY", 20.0)
    d = car.read()
    vehicle = only_vehicle(d)
    for wheel in vehicle.wheels:
        x, y = wheel.tire["lateralStiffnessGraph"]
        assert x == pytest.approx(3.0)
        assert y == pytest.approx(20.0 * wheel.tire["restLoad"])   # latStiffY is per unit rest load
        assert wheel.tire.source("lateralStiffnessGraph") == Source.DEPRECATED
    deprecated_warning(d, tire, P.TIRE, "latStiffX")
    deprecated_warning(d, tire, P.TIRE, "latStiffY")


def test_lat_stiff_y_scales_with_a_user_rest_load():
    car = build_vehicle()
    car.set(car.parts["Tire"], P.TIRE, "latStiffY", 10.0)
    car.set(car.parts["Tire"], P.TIRE, "restLoad", 4000.0)
    wheel = only_vehicle(car.read()).wheels[0]
    assert wheel.tire["lateralStiffnessGraph"][1] == pytest.approx(40000.0)


@pytest.mark.parametrize("mpu, kpu", [(1.0, 1.0), (0.01, 1.0), (1.0, 0.001)])
def test_longitudinal_stiffness_per_unit_gravity_is_multiplied_by_g(mpu, kpu):
    car = build_vehicle(mpu, kpu)
    car.set(car.parts["Tire"], P.TIRE, "longitudinalStiffnessPerUnitGravity", 400.0)   # authored: not unit-scaled
    d = car.read()
    tire = only_vehicle(d).wheels[0].tire
    assert tire["longitudinalStiffness"] == pytest.approx(400.0 * G / mpu, rel=1e-5)
    assert tire.source("longitudinalStiffness") == Source.DEPRECATED
    deprecated_warning(d, car.parts["Tire"], P.TIRE, "longitudinalStiffnessPerUnitGravity")


def test_camber_stiffness_per_unit_gravity_is_multiplied_by_g():
    car = build_vehicle()
    car.set(car.parts["Tire"], P.TIRE, "camberStiffnessPerUnitGravity", 30.0)
    d = car.read()
    tire = only_vehicle(d).wheels[0].tire
    assert tire["camberStiffness"] == pytest.approx(30.0 * G, rel=1e-6)
    assert tire.source("camberStiffness") == Source.DEPRECATED
    deprecated_warning(d, car.parts["Tire"], P.TIRE, "camberStiffnessPerUnitGravity")


def test_new_tire_attributes_win_over_deprecated_ones():
    car = build_vehicle()
    tire = car.parts["Tire"]
    car.set(tire, P.TIRE, "lateralStiffnessGraph", (2.5, 60000.0))
    car.set(tire, P.TIRE, "latStiffY", 99.0)
    car.set(tire, P.TIRE, "longitudinalStiffness", 5000.0)
    car.set(tire, P.TIRE, "longitudinalStiffnessPerUnitGravity", 1.0)
    d = car.read()
    block = only_vehicle(d).wheels[0].tire
    assert tuple(block["lateralStiffnessGraph"]) == pytest.approx((2.5, 60000.0))
    assert block["longitudinalStiffness"] == 5000.0
    assert block.source("longitudinalStiffness") == Source.AUTHORED
    assert not [x for x in d.diagnostics if x.property == P.full_name(P.TIRE, "latStiffY")]


# -- suspension -----------------------------------------------------------------------------------------

def _deprecated_suspension(car, compression: float, droop: float):
    suspension = car.parts["Suspension"]
    car.clear(suspension, P.SUSPENSION, "travelDistance")
    car.set(suspension, P.SUSPENSION, "maxCompression", compression)
    car.set(suspension, P.SUSPENSION, "maxDroop", droop)
    return suspension


def test_max_compression_and_max_droop_become_the_travel_distance():
    car = build_vehicle()
    suspension = _deprecated_suspension(car, 0.15, 0.07)
    d = car.read()
    for wheel in only_vehicle(d).wheels:
        assert wheel.suspension["travelDistance"] == pytest.approx(0.22)
        assert wheel.suspension.source("travelDistance") == Source.DEPRECATED
    deprecated_warning(d, suspension, P.SUSPENSION, "maxCompression")
    deprecated_warning(d, suspension, P.SUSPENSION, "maxDroop")


def test_negative_max_droop_means_the_static_sag():
    car = build_vehicle()
    _deprecated_suspension(car, 0.15, -1.0)
    for wheel in only_vehicle(car.read()).wheels:
        k, m = wheel.suspension["springStrength"], wheel.suspension["sprungMass"]
        assert wheel.suspension["travelDistance"] == pytest.approx(0.15 + m * G / k, rel=1e-6)


def test_camber_at_rest_compression_droop_become_a_camber_graph():
    car = build_vehicle()
    suspension = _deprecated_suspension(car, 0.1, 0.05)
    car.set(suspension, P.SUSPENSION, "camberAtRest", 0.01)
    car.set(suspension, P.SUSPENSION, "camberAtMaxCompression", 0.03)
    car.set(suspension, P.SUSPENSION, "camberAtMaxDroop", -0.02)
    d = car.read()
    for wheel in only_vehicle(d).wheels:
        graph = wheel.compliance["wheelCamberAngle"]
        rest_jounce = 0.05 / 0.15
        assert [tuple(p) for p in graph] == [pytest.approx((0.0, -0.02)), pytest.approx((rest_jounce, 0.01)),
                                             pytest.approx((1.0, 0.03))]
        assert wheel.compliance.source("wheelCamberAngle") == Source.DEPRECATED
    for base in ("camberAtRest", "camberAtMaxCompression", "camberAtMaxDroop"):
        deprecated_warning(d, suspension, P.SUSPENSION, base)


def test_equal_cambers_give_one_point_at_the_rest_jounce_of_the_travel_distance():
    car = build_vehicle()
    suspension = car.parts["Suspension"]
    car.set(suspension, P.SUSPENSION, "camberAtRest", 0.02)   # the others default to 0 -> not all equal
    car.set(suspension, P.SUSPENSION, "camberAtMaxCompression", 0.02)
    car.set(suspension, P.SUSPENSION, "camberAtMaxDroop", 0.02)
    wheel = only_vehicle(car.read()).wheels[0]
    travel, k, m = wheel.suspension["travelDistance"], wheel.suspension["springStrength"], wheel.suspension["sprungMass"]
    droop = min(m * G / k, travel)
    rest_jounce = min(max(droop / travel, FLT_EPSILON), 1 - FLT_EPSILON)
    assert [tuple(p) for p in wheel.compliance["wheelCamberAngle"]] == [pytest.approx((rest_jounce, 0.02))]


# -- wheel --------------------------------------------------------------------------------------------

def test_toe_angle_becomes_a_one_point_toe_graph():
    car = build_vehicle()
    car.set(car.parts["Wheel"], P.WHEEL, "toeAngle", 0.015)
    d = car.read()
    wheel = only_vehicle(d).wheels[0]
    assert [tuple(p) for p in wheel.compliance["wheelToeAngle"]] == [pytest.approx((0.0, 0.015))]
    assert wheel.compliance.source("wheelToeAngle") == Source.DEPRECATED
    deprecated_warning(d, car.parts["Wheel"], P.WHEEL, "toeAngle")


def test_wheel_brake_torques_become_two_braking_systems():
    car = build_vehicle(controls=False, shared=False)
    for i, wheel in enumerate(car.wheels):
        car.set(wheel, P.WHEEL, "maxBrakeTorque", 1000.0 + i)
        if i >= 2:
            car.set(wheel, P.WHEEL, "maxHandBrakeTorque", 3000.0)
    d = car.read()
    vehicle = only_vehicle(d)
    brakes0, brakes1 = vehicle.brakes["brakes0"], vehicle.brakes["brakes1"]
    assert brakes0["maxBrakeTorque"] == 1.0 and brakes1["maxBrakeTorque"] == 1.0
    assert brakes0["torqueMultipliers"] == pytest.approx([1000.0, 1001.0, 1002.0, 1003.0])
    assert brakes1["torqueMultipliers"] == pytest.approx([0.0, 0.0, 3000.0, 3000.0])
    assert brakes0.source("torqueMultipliers") == Source.DEPRECATED
    deprecated_warning(d, car.wheels[0], P.WHEEL, "maxBrakeTorque")
    deprecated_warning(d, car.wheels[3], P.WHEEL, "maxHandBrakeTorque")


def test_wheel_max_steer_angle_becomes_steering_multipliers():
    car = build_vehicle(controls=False, shared=False)
    car.set(car.wheels[0], P.WHEEL, "maxSteerAngle", 0.6)
    car.set(car.wheels[1], P.WHEEL, "maxSteerAngle", 0.5)
    d = car.read()
    steering = only_vehicle(d).steering
    assert steering["maxSteerAngle"] == 1.0
    assert steering["angleMultipliers"] == pytest.approx([0.6, 0.5, 0.0, 0.0])
    assert steering.source("angleMultipliers") == Source.DEPRECATED
    deprecated_warning(d, car.wheels[0], P.WHEEL, "maxSteerAngle")


def test_brakes_api_makes_the_wheel_brake_torques_ignored():
    car = build_vehicle()   # brakes0/brakes1 applied
    car.set(car.parts["Wheel"], P.WHEEL, "maxBrakeTorque", 1234.0)
    vehicle = only_vehicle(car.read())
    assert vehicle.brakes["brakes0"]["maxBrakeTorque"] == 3600.0
    assert vehicle.brakes["brakes0"]["torqueMultipliers"] == [1.0] * 4


# -- controller ---------------------------------------------------------------------------------------

def test_controller_brake_handbrake_steer_left_right_in_the_deprecated_setup():
    car = build_vehicle(controls=False)
    car.prim(car.vehicle).ApplyAPI(P.CONTROLLER)
    values = {"brake": 0.3, "handbrake": 1.0, "steerLeft": 0.25, "steerRight": 0.75}
    for base, value in values.items():
        car.set(car.vehicle, P.CONTROLLER, base, value)
    car.set(car.vehicle, P.CONTROLLER, "brake0", 0.9)   # ignored in the deprecated setup
    d = car.read()
    controller = only_vehicle(d).controller
    assert controller["brake0"] == pytest.approx(0.3)
    assert controller["brake1"] == pytest.approx(1.0)
    assert controller["steer"] == pytest.approx(-0.5)
    for base in ("brake0", "brake1", "steer"):
        assert controller.source(base) == Source.DEPRECATED
    for base in values:
        deprecated_warning(d, car.vehicle, P.CONTROLLER, base)


def test_controller_deprecated_values_are_ignored_with_brakes_and_steering_apis():
    car = build_vehicle()
    car.set(car.vehicle, P.CONTROLLER, "brake", 0.3)
    car.set(car.vehicle, P.CONTROLLER, "brake0", 0.6)
    d = car.read()
    controller = only_vehicle(d).controller
    assert controller["brake0"] == pytest.approx(0.6)
    deprecated_warning(d, car.vehicle, P.CONTROLLER, "brake")   # still warned about: it is authored


# -- context ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("up, forward, vertical, longitudinal", [
    ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0), "posZ", "posX"),
    ((0.1, -0.9, 0.2), (0.0, 0.3, -0.95), "negY", "negZ"),
    ((1.0, 1.0, 0.0), (0.0, 1.0, 1.0), "posX", "posZ"),   # ties: X beats Y/Z, Z beats Y
])
def test_up_and_forward_axis_become_axis_tokens(up, forward, vertical, longitudinal):
    car = build_vehicle()
    scene = car.scene
    car.clear(scene, P.CONTEXT, "verticalAxis")
    car.clear(scene, P.CONTEXT, "longitudinalAxis")
    car.set(scene, P.CONTEXT, "upAxis", up)
    car.set(scene, P.CONTEXT, "forwardAxis", forward)
    d = car.read()
    context = d.scenes[scene].context
    assert context["verticalAxis"] == vertical and context["longitudinalAxis"] == longitudinal
    assert context.source("verticalAxis") == Source.DEPRECATED
    deprecated_warning(d, scene, P.CONTEXT, "upAxis")
    deprecated_warning(d, scene, P.CONTEXT, "forwardAxis")


# -- wheel attachment ---------------------------------------------------------------------------------

def test_driven_becomes_a_multi_wheel_differential():
    for drive, share in (("standard", 0.5), ("basic", 1.0)):
        car = build_vehicle(drive=drive, controls=False)
        car.set(car.wheels[2], P.ATTACHMENT, "driven", True)
        car.set(car.wheels[3], P.ATTACHMENT, "driven", True)
        d = car.read()
        diff = only_vehicle(d).multiWheelDifferential
        assert diff["wheels"] == [2, 3]
        assert diff["torqueRatios"] == pytest.approx([share, share])
        assert diff["averageWheelSpeedRatios"] == pytest.approx([0.5, 0.5])
        assert diff.source("wheels") == Source.DEPRECATED
        deprecated_warning(d, car.wheels[2], P.ATTACHMENT, "driven")


def test_wheel_center_of_mass_offset_becomes_the_suspension_frame_position():
    car = build_vehicle()
    wheel_path = car.wheels[0]
    car.clear(wheel_path, P.ATTACHMENT, "suspensionFramePosition")
    car.set(wheel_path, P.ATTACHMENT, "wheelCenterOfMassOffset", (1.3, 0.8, -0.4))
    d = car.read()
    wheel = only_vehicle(d).wheels[0]
    travel, k, m = wheel.suspension["travelDistance"], wheel.suspension["springStrength"], wheel.suspension["sprungMass"]
    droop = min(m * G / k, travel)
    # the wheel centre at rest sits (travel - droop) down the travel direction (0, 0, -1) from the frame
    assert tuple(wheel.attachment["suspensionFramePosition"]) == pytest.approx((1.3, 0.8, -0.4 + (travel - droop)), rel=1e-5)
    assert wheel.attachment.source("suspensionFramePosition") == Source.DEPRECATED
    deprecated_warning(d, wheel_path, P.ATTACHMENT, "wheelCenterOfMassOffset")


def test_force_app_point_offsets_become_compliance_points():
    car = build_vehicle()
    wheel_path = car.wheels[1]   # suspension frame at (1.3, -0.8, -0.3)
    car.set(wheel_path, P.ATTACHMENT, "suspensionForceAppPointOffset", (1.3, -0.8, -0.35))
    car.set(wheel_path, P.ATTACHMENT, "tireForceAppPointOffset", (1.2, -0.8, -0.6))
    d = car.read()
    wheel = only_vehicle(d).wheels[1]
    assert [tuple(p) for p in wheel.compliance["suspensionForceAppPoint"]] == [pytest.approx((0.0, 0.0, 0.0, -0.05), abs=1e-6)]
    assert [tuple(p) for p in wheel.compliance["tireForceAppPoint"]] == [pytest.approx((0.0, -0.1, 0.0, -0.3), abs=1e-6)]
    assert wheel.compliance.source("tireForceAppPoint") == Source.DEPRECATED
    deprecated_warning(d, wheel_path, P.ATTACHMENT, "suspensionForceAppPointOffset")
    deprecated_warning(d, wheel_path, P.ATTACHMENT, "tireForceAppPointOffset")


# -- vehicle ------------------------------------------------------------------------------------------

def test_min_longitudinal_slip_denominator_becomes_the_passive_one():
    car = build_vehicle(0.01)
    car.set(car.vehicle, P.VEHICLE, "minLongitudinalSlipDenominator", 250.0)
    d = car.read()
    vehicle = only_vehicle(d).vehicle
    assert vehicle["minPassiveLongitudinalSlipDenominator"] == 250.0   # authored: taken as it is
    assert vehicle.source("minPassiveLongitudinalSlipDenominator") == Source.DEPRECATED
    deprecated_warning(d, car.vehicle, P.VEHICLE, "minLongitudinalSlipDenominator")


def test_every_deprecated_row_of_the_table_is_covered_here():
    """A new deprecated row in the property table needs a test in this file."""
    covered = {
        (P.CONTEXT, "upAxis"), (P.CONTEXT, "forwardAxis"),
        (P.WHEEL, "maxBrakeTorque"), (P.WHEEL, "maxHandBrakeTorque"), (P.WHEEL, "maxSteerAngle"), (P.WHEEL, "toeAngle"),
        (P.TIRE, "latStiffX"), (P.TIRE, "latStiffY"), (P.TIRE, "longitudinalStiffnessPerUnitGravity"),
        (P.TIRE, "camberStiffnessPerUnitGravity"),
        (P.SUSPENSION, "maxCompression"), (P.SUSPENSION, "maxDroop"), (P.SUSPENSION, "camberAtRest"),
        (P.SUSPENSION, "camberAtMaxCompression"), (P.SUSPENSION, "camberAtMaxDroop"),
        (P.ATTACHMENT, "wheelCenterOfMassOffset"), (P.ATTACHMENT, "suspensionForceAppPointOffset"),
        (P.ATTACHMENT, "tireForceAppPointOffset"), (P.ATTACHMENT, "driven"),
        (P.VEHICLE, "minLongitudinalSlipDenominator"),
        (P.CONTROLLER, "brake"), (P.CONTROLLER, "handbrake"), (P.CONTROLLER, "steerLeft"), (P.CONTROLLER, "steerRight"),
    }
    deprecated = {row.key for row in P.TABLE_ROWS if row.deprecated_by}
    assert deprecated == covered
