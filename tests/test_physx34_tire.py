"""PxVehicleTireData semantics (seed 000): defaults, reciprocals, the friction-vs-slip graph, validity, and the
values a tire authored in USD gets, worked out here from the authored numbers."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from stage_factory import build_vehicle

from physxvehicle_usd import properties as P
from physxvehicle_usd.runtime import physx34_from_description
from physxvehicle_usd.runtime.physx34_tire import TireData, tire_friction_multiplier

# A graph shaped as the seed describes a typical one: more friction at the peak slip, less past the end.
GRAPH = ((0.0, 0.8), (0.1, 1.0), (1.0, 0.6))


def test_defaults_are_physx_34_defaults():
    tire = TireData()
    assert tire.lat_stiff_x == 2.0
    assert tire.lat_stiff_y == pytest.approx(0.3125 * 180 / math.pi)  # 17.9 per radian
    assert tire.longitudinal_stiffness_per_unit_gravity == 1000.0
    assert tire.camber_stiffness_per_unit_gravity == pytest.approx(0.1 * 180 / math.pi)
    assert tire.friction_vs_slip_graph == ((0.0, 1.0), (0.1, 1.0), (1.0, 1.0))
    assert tire.type == 0
    assert tire.is_valid(), tire.validation_errors()


def test_cached_reciprocals_as_the_seed_lists_them():
    tire = TireData(friction_vs_slip_graph=GRAPH, longitudinal_stiffness_per_unit_gravity=500.0)
    assert tire.recip_longitudinal_stiffness_per_unit_gravity == pytest.approx(1 / 500)
    assert tire.friction_vs_slip_graph_recip_x1_minus_x0 == pytest.approx(1 / 0.1)
    assert tire.friction_vs_slip_graph_recip_x2_minus_x1 == pytest.approx(1 / 0.9)


def test_reciprocals_update_when_values_change():
    tire = TireData(friction_vs_slip_graph=GRAPH)
    changed = tire.replace(friction_vs_slip_graph=((0.0, 0.8), (0.2, 1.0), (0.7, 0.6)),
                           longitudinal_stiffness_per_unit_gravity=250.0)
    assert changed.friction_vs_slip_graph_recip_x1_minus_x0 == pytest.approx(5.0)
    assert changed.friction_vs_slip_graph_recip_x2_minus_x1 == pytest.approx(2.0)
    assert changed.recip_longitudinal_stiffness_per_unit_gravity == pytest.approx(0.004)
    with pytest.raises(ValidationError, match="derived"):
        TireData(friction_vs_slip_graph_recip_x1_minus_x0=3.0)
    with pytest.raises(ValidationError):
        tire.lat_stiff_x = 1.0


def test_json_round_trip_and_schema_units():
    tire = TireData(lat_stiff_x=1.5, lat_stiff_y=20.0, friction_vs_slip_graph=GRAPH, type=3)
    assert TireData.model_validate_json(tire.model_dump_json()) == tire
    props = TireData.model_json_schema(mode="serialization")["properties"]
    assert props["camber_stiffness_per_unit_gravity"]["unit"] == "kg/rad"
    assert props["lat_stiff_y"]["unit"] == "1/rad"
    assert props["friction_vs_slip_graph"]["maxItems"] == 3


@pytest.mark.parametrize("bad_type", [-1, 2**32])
def test_tire_type_is_a_pxu32(bad_type):
    with pytest.raises(ValidationError):
        TireData(type=bad_type)
    assert TireData(type=2**32 - 1).type == 2**32 - 1


def test_graph_must_have_three_points():
    with pytest.raises(ValidationError):
        TireData(friction_vs_slip_graph=((0.0, 1.0), (0.1, 1.0)))


# Friction multiplier -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "slip, expected",
    [
        (0.0, 0.8),  # friction at zero slip
        (0.05, 0.9),  # half-way to the peak
        (0.1, 1.0),  # the peak
        (0.55, 0.8),  # half-way down
        (1.0, 0.6),  # the end point
        (4.0, 0.6),  # flat beyond the end point
        (-0.05, 0.9),  # the sign of the slip does not matter
        (-7.0, 0.6),
    ],
)
def test_friction_multiplier_follows_the_three_point_graph(slip, expected):
    tire = TireData(friction_vs_slip_graph=GRAPH)
    assert tire.friction_multiplier(slip) == pytest.approx(expected)
    assert isinstance(tire.friction_multiplier(slip), float)


def test_friction_multiplier_on_arrays():
    tire = TireData(friction_vs_slip_graph=GRAPH)
    np.testing.assert_allclose(tire_friction_multiplier(tire, np.array([[0.0, 0.05], [-0.55, 9.0]])),
                               [[0.8, 0.9], [0.8, 0.6]])


@settings(max_examples=200, deadline=None)
@given(
    st.floats(0.01, 1.0), st.floats(0.01, 5.0), st.floats(0.1, 2.0), st.floats(0.1, 2.0), st.floats(0.0, 2.0),
    st.floats(-20.0, 20.0, allow_nan=False),
)
def test_friction_multiplier_is_even_bounded_and_flat_past_the_end(x1, dx, y0, y1, y2, slip):
    tire = TireData(friction_vs_slip_graph=((0.0, y0), (x1, y1), (x1 + dx, y2)))
    mu = tire.friction_multiplier(slip)
    assert mu == tire.friction_multiplier(-slip)
    assert min(y0, y1, y2) - 1e-9 <= mu <= max(y0, y1, y2) + 1e-9
    if abs(slip) >= x1 + dx:
        assert mu == y2


# Validity -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "changes, fragment",
    [
        ({"lat_stiff_x": 0.0}, "lat_stiff_x must be greater than zero"),
        ({"lat_stiff_y": -1.0}, "lat_stiff_y must be greater than zero"),
        ({"longitudinal_stiffness_per_unit_gravity": 0.0}, "longitudinal_stiffness_per_unit_gravity"),
        ({"camber_stiffness_per_unit_gravity": -0.1}, "camber_stiffness_per_unit_gravity"),
        ({"friction_vs_slip_graph": ((0.05, 1.0), (0.1, 1.0), (1.0, 1.0))}, "[0] x must be zero"),
        ({"friction_vs_slip_graph": ((0.0, 0.0), (0.1, 1.0), (1.0, 1.0))}, "[0] y (friction at zero slip)"),
        ({"friction_vs_slip_graph": ((0.0, 1.0), (0.0, 1.0), (1.0, 1.0))}, "[1] x (slip of maximum friction)"),
        ({"friction_vs_slip_graph": ((0.0, 1.0), (0.1, 0.9), (1.0, 0.8))}, "[1] y (maximum friction, 0.9)"),
        ({"friction_vs_slip_graph": ((0.0, 1.0), (0.5, 1.0), (0.5, 1.0))}, "[2] x (0.5) must be greater"),
        ({"friction_vs_slip_graph": ((0.0, 1.0), (0.1, 1.0), (1.0, 1.2))}, "[2] y (1.2) must be less than"),
        ({"friction_vs_slip_graph": ((0.0, 1.0), (0.1, 1.0), (1.0, -0.1))}, "[2] y must be greater than or equal"),
    ],
)
def test_each_physx_rule_is_reported(changes, fragment):
    tire = TireData().replace(**changes)
    errors = tire.validation_errors()
    assert not tire.is_valid()
    assert any(fragment in e for e in errors), errors


def test_zero_camber_stiffness_is_valid():
    assert TireData(camber_stiffness_per_unit_gravity=0.0).is_valid()


def test_stiffnesses_scale_with_gravity():
    tire = TireData(longitudinal_stiffness_per_unit_gravity=500.0, camber_stiffness_per_unit_gravity=2.0)
    assert tire.longitudinal_stiffness(9.81) == pytest.approx(4905.0)
    assert tire.camber_stiffness(9.81) == pytest.approx(19.62)


# From authored USD ------------------------------------------------------------------------------------------------
# A tire authored in stage units, and what PhysX 3.4 makes of it (seed 000; the generator's rules in
# ../shared/spec/vehicle_attributes.csv): mLatStiffX is the graph's x; mLatStiffY is the lateral stiffness per unit
# rest load, graph y / restLoad (restLoad unauthored: sprungMass * |g|); the per-unit-gravity stiffnesses are the
# stiffnesses over the scene's |g| in stage units (unauthored: 9.81 m/s^2); the 3-point graph is copied.
AUTHORED_GRAPH = ((0.0, 0.8), (0.15, 1.1), (0.9, 0.7))
LATERAL = (1.5, 60000.0)  # (normalized load, force per unit slip)
LONGITUDINAL, CAMBER, REST_LOAD, SPRUNG_MASS = 30000.0, 1200.0, 4000.0, 450.0


def _authored_tires(meters_per_unit: float, gravity_m_s2: float | None, rest_load: bool) -> list[TireData]:
    car = build_vehicle(meters_per_unit, gravity_magnitude=gravity_m_s2)
    tire = car.parts["Tire"]
    car.set(tire, P.TIRE, "lateralStiffnessGraph", LATERAL)
    car.set(tire, P.TIRE, "longitudinalStiffness", LONGITUDINAL)
    car.set(tire, P.TIRE, "camberStiffness", CAMBER)
    car.set(tire, P.TIRE, "frictionVsSlipGraph", list(AUTHORED_GRAPH))
    if rest_load:
        car.set(tire, P.TIRE, "restLoad", REST_LOAD)
    else:
        car.set(car.parts["Suspension"], P.SUSPENSION, "sprungMass", SPRUNG_MASS)
    description = car.read().to_json()
    vehicle = physx34_from_description(description).vehicles[car.vehicle]
    assert len(vehicle.wheels) == 4
    return [wheel.tire for wheel in vehicle.wheels]


@pytest.mark.parametrize("meters_per_unit, gravity_m_s2, rest_load", [
    (1.0, None, True), (0.01, None, True), (1.0, 3.71, True), (1.0, None, False), (0.01, 3.71, False)])
def test_authored_tire_becomes_the_physx_34_values(meters_per_unit, gravity_m_s2, rest_load):
    g = (9.81 if gravity_m_s2 is None else gravity_m_s2) / meters_per_unit  # |g| in stage units
    load = REST_LOAD if rest_load else SPRUNG_MASS * g
    for tire in _authored_tires(meters_per_unit, gravity_m_s2, rest_load):
        assert tire.lat_stiff_x == pytest.approx(1.5)
        assert tire.lat_stiff_y == pytest.approx(60000.0 / load, rel=1e-6)
        assert tire.longitudinal_stiffness_per_unit_gravity == pytest.approx(30000.0 / g, rel=1e-6)
        assert tire.camber_stiffness_per_unit_gravity == pytest.approx(1200.0 / g, rel=1e-6)
        assert np.asarray(tire.friction_vs_slip_graph) == pytest.approx(np.asarray(AUTHORED_GRAPH), rel=1e-6)
        assert tire.recip_longitudinal_stiffness_per_unit_gravity == pytest.approx(g / 30000.0, rel=1e-6)
        assert tire.friction_vs_slip_graph_recip_x1_minus_x0 == pytest.approx(1 / 0.15, rel=1e-6)
        assert tire.friction_vs_slip_graph_recip_x2_minus_x1 == pytest.approx(1 / 0.75, rel=1e-6)
        assert tire.type == 0  # no friction table: the built-in default
        # Back to the authored stiffnesses through |g|, and the graph between and past its points.
        assert tire.longitudinal_stiffness(g) == pytest.approx(30000.0, rel=1e-6)
        assert tire.camber_stiffness(g) == pytest.approx(1200.0, rel=1e-6)
        assert tire.friction_multiplier(0.075) == pytest.approx(0.8 + 0.5 * (1.1 - 0.8), rel=1e-6)
        assert tire.friction_multiplier(-0.525) == pytest.approx(1.1 + 0.5 * (0.7 - 1.1), rel=1e-6)
        assert tire.friction_multiplier(3.0) == pytest.approx(0.7, rel=1e-6)
        assert tire.is_valid(), tire.validation_errors()


def test_deprecated_per_unit_gravity_attributes_are_the_physx_34_fields():
    # Unauthored lateralStiffnessGraph (0, 0), longitudinalStiffness (0) and camberStiffness (-1) select the
    # deprecated attributes, which are PhysX 3.4's own fields: latStiffY is per rest load, the others per unit |g|.
    car = build_vehicle(0.01)
    tire = car.parts["Tire"]
    for base, value in (("latStiffX", 1.5), ("latStiffY", 15.0), ("longitudinalStiffnessPerUnitGravity", 3000.0),
                        ("camberStiffnessPerUnitGravity", 120.0), ("restLoad", REST_LOAD)):
        car.set(tire, P.TIRE, base, value)
    vehicle = physx34_from_description(car.read().to_json()).vehicles[car.vehicle]
    for wheel in vehicle.wheels:
        assert (wheel.tire.lat_stiff_x, wheel.tire.lat_stiff_y) == pytest.approx((1.5, 15.0), rel=1e-6)
        assert wheel.tire.longitudinal_stiffness_per_unit_gravity == pytest.approx(3000.0, rel=1e-6)
        assert wheel.tire.camber_stiffness_per_unit_gravity == pytest.approx(120.0, rel=1e-6)
        assert wheel.rest_load == pytest.approx(REST_LOAD)
        assert wheel.tire.friction_vs_slip_graph == ((0.0, 1.0), (0.1, 1.0), (1.0, 1.0))  # unauthored: the default
