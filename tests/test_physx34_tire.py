"""PxVehicleTireData semantics (seed 000): defaults, reciprocals, the friction-vs-slip graph, validity."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

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
