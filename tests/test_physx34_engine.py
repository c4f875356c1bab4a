"""PxVehicleEngineData semantics (seed 002) and its PxFixedSizeLookupTable torque curve."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from physxvehicle_usd.runtime.physx34_engine import (
    MAX_TORQUE_CURVE_POINTS,
    EngineData,
    TorqueCurve,
    engine_damping_rate,
)

SEED_CURVE = ((0.0, 0.8), (0.33, 1.0), (1.0, 0.8))  # seed 003's default torque curve, PhysX 3.4's default too


# Defaults and limits ------------------------------------------------------------------------------------------------
def test_defaults_are_physx_34_defaults():
    engine = EngineData()
    assert engine.torque_curve.points == SEED_CURVE
    assert (engine.moi, engine.peak_torque, engine.max_omega) == (1.0, 500.0, 600.0)
    assert engine.damping_rate_full_throttle == 0.15
    assert engine.damping_rate_zero_throttle_clutch_engaged == 2.0
    assert engine.damping_rate_zero_throttle_clutch_disengaged == 0.35
    assert engine.is_valid(), engine.validation_errors()


def test_torque_curve_holds_at_most_eight_points():
    assert MAX_TORQUE_CURVE_POINTS == 8
    eight = [(i / 7, 1.0) for i in range(8)]
    assert len(TorqueCurve(points=eight).points) == 8
    with pytest.raises(ValidationError, match="at most 8 points; got 9"):
        TorqueCurve(points=eight + [(1.5, 1.0)])
    with pytest.raises(ValueError, match="full"):
        TorqueCurve(points=eight).add_pair(2.0, 0.5)
    assert TorqueCurve(points=SEED_CURVE).add_pair(1.2, 0.1).points[-1] == (1.2, 0.1)


def test_engine_accepts_a_bare_point_list_and_numpy_arrays_as_curve():
    assert EngineData(torque_curve=[[0, 1], [1, 0.5]]).torque_curve.points == ((0.0, 1.0), (1.0, 0.5))
    assert EngineData(torque_curve=np.array(SEED_CURVE)).torque_curve.points == SEED_CURVE


# Reciprocals --------------------------------------------------------------------------------------------------------
def test_reciprocals_follow_the_values_they_cache():
    engine = EngineData()
    assert engine.recip_moi == 1.0
    assert engine.recip_max_omega == pytest.approx(1 / 600)
    changed = engine.replace(moi=4.0, max_omega=800.0)
    assert changed.recip_moi == 0.25
    assert changed.recip_max_omega == pytest.approx(1 / 800)
    assert engine.recip_moi == 1.0  # the original is untouched


def test_reciprocals_cannot_be_set_by_hand_nor_values_mutated():
    with pytest.raises(ValidationError, match="recip_moi is derived"):
        EngineData(moi=2.0, recip_moi=1.0)
    engine = EngineData()
    with pytest.raises(ValidationError):
        engine.moi = 3.0
    with pytest.raises((AttributeError, ValidationError)):
        engine.recip_moi = 3.0


def test_json_round_trip_keeps_values_and_reciprocals():
    engine = EngineData(moi=0.8, peak_torque=750.0, max_omega=700.0, torque_curve=SEED_CURVE)
    dumped = engine.model_dump(mode="json")
    assert dumped["recip_max_omega"] == pytest.approx(1 / 700)
    assert EngineData.model_validate(dumped) == engine
    assert EngineData.model_validate_json(engine.model_dump_json()) == engine


def test_zero_moi_gives_an_infinite_reciprocal_not_an_exception():
    engine = EngineData(moi=0.0)
    assert engine.recip_moi == math.inf
    assert EngineData.model_validate_json(engine.model_dump_json()) == engine


def test_json_schema_documents_units():
    schema = EngineData.model_json_schema(mode="serialization")
    props = schema["properties"]
    assert props["moi"]["unit"] == "kg*m^2"
    assert props["max_omega"]["unit"] == "rad/s"
    assert props["damping_rate_full_throttle"]["unit"] == "kg*m^2/s"
    assert "recip_moi" in props and props["recip_moi"].get("readOnly") is True
    assert schema["$defs"]["TorqueCurve"]["properties"]["points"]["maxItems"] == 8


# Lookup -------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "x, expected",
    [
        (-0.5, 0.8),  # below the first x: the first y
        (0.0, 0.8),
        (0.165, 0.9),  # half-way up the first segment
        (0.33, 1.0),
        (0.665, 0.9),  # half-way down the second
        (1.0, 0.8),  # the last x: the last y
        (3.0, 0.8),  # beyond: the last y
    ],
)
def test_torque_curve_lookup_clamps_and_interpolates(x, expected):
    curve = TorqueCurve(points=SEED_CURVE)
    assert curve.evaluate(x) == pytest.approx(expected)
    assert curve.evaluate_array([x])[0] == pytest.approx(expected)


def test_lookup_edge_cases_as_physx():
    assert TorqueCurve().evaluate(0.5) == 0.0  # no points (PhysX asserts and returns 0)
    single = TorqueCurve(points=[(0.5, 0.7)])
    assert [single.evaluate(x) for x in (-1.0, 0.5, 2.0)] == [0.7, 0.7, 0.7]
    step = TorqueCurve(points=[(0.0, 0.0), (0.5, 1.0), (0.5, 2.0), (1.0, 3.0)])
    assert step.evaluate(0.5) == 2.0  # equal x: the empty interval is skipped, the later point's y applies
    assert step.evaluate(0.25) == 0.5
    assert step.evaluate(0.75) == 2.5
    assert TorqueCurve(points=SEED_CURVE).evaluate(float("nan")) == 0.8  # every comparison fails: the last y
    np.testing.assert_array_equal(step.evaluate_array([0.5, 0.25, 0.75, np.nan]), [2.0, 0.5, 2.5, 3.0])


sorted_curves = st.lists(
    st.tuples(
        st.floats(-10, 10, allow_nan=False, allow_subnormal=False),
        st.floats(-10, 10, allow_nan=False, allow_subnormal=False),
    ),
    min_size=1,
    max_size=8,
).map(lambda pts: tuple(sorted(pts, key=lambda p: p[0])))
xs = st.floats(-20, 20, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(sorted_curves, st.lists(xs, min_size=1, max_size=20))
def test_vectorized_lookup_matches_the_scalar_loop(points, x_values):
    curve = TorqueCurve(points=points)
    expected = [curve.evaluate(x) for x in x_values]
    np.testing.assert_allclose(curve.evaluate_array(x_values), expected, rtol=1e-12, atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(sorted_curves, xs)
def test_lookup_clamps_outside_and_stays_within_the_y_range(points, x):
    curve = TorqueCurve(points=points)
    y = curve.evaluate(x)
    if x < points[0][0]:
        assert y == points[0][1]
    if x >= points[-1][0]:
        assert y == points[-1][1]
    ys = [p[1] for p in points]
    assert min(ys) - 1e-9 <= y <= max(ys) + 1e-9


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 1, allow_subnormal=False), min_size=1, max_size=8, unique=True),
    st.lists(st.floats(0, 2, allow_subnormal=False), min_size=1, max_size=8),
    st.lists(st.floats(-1, 2, allow_nan=False), min_size=2, max_size=30),
)
def test_lookup_of_a_rising_curve_rises(x_points, y_points, x_values):
    n = min(len(x_points), len(y_points))
    points = tuple(zip(sorted(x_points)[:n], sorted(y_points)[:n]))
    curve = TorqueCurve(points=points)
    ys = curve.evaluate_array(sorted(x_values))
    assert np.all(np.diff(ys) >= -1e-12)


# Validity -----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "changes, fragment",
    [
        ({"torque_curve": []}, "at least one point"),
        ({"torque_curve": [(0.5, 1.0), (0.2, 0.8)]}, "must not decrease"),
        ({"moi": 0.0}, "moi must be greater than zero"),
        ({"moi": -1.0}, "moi must be greater than zero"),
        ({"peak_torque": 0.0}, "peak_torque must be greater than zero"),
        ({"max_omega": -600.0}, "max_omega must be greater than zero"),
        ({"max_omega": float("nan")}, "max_omega must be greater than zero"),
        ({"damping_rate_full_throttle": 0.0}, "damping_rate_full_throttle must be greater than zero"),
        ({"damping_rate_zero_throttle_clutch_engaged": -2.0}, "damping_rate_zero_throttle_clutch_engaged"),
        ({"damping_rate_zero_throttle_clutch_disengaged": 0.0}, "damping_rate_zero_throttle_clutch_disengaged"),
        ({"max_omega": math.inf}, "recip_max_omega must be greater than zero"),
    ],
)
def test_each_physx_rule_is_reported(changes, fragment):
    engine = EngineData().replace(**changes)
    errors = engine.validation_errors()
    assert not engine.is_valid()
    assert any(fragment in e for e in errors), errors


def test_several_violations_are_all_listed():
    errors = EngineData(peak_torque=-1.0, max_omega=0.0, moi=0.0).validation_errors()
    assert len(errors) == 3


# Damping and drive torque ------------------------------------------------------------------------------------------
def test_damping_rate_at_the_ends_and_in_between():
    engine = EngineData()  # full 0.15, engaged 2.0, disengaged 0.35
    assert engine.damping_rate(1.0, clutch_engaged=True) == pytest.approx(0.15)
    assert engine.damping_rate(1.0, clutch_engaged=False) == pytest.approx(0.15)
    assert engine.damping_rate(0.0, clutch_engaged=True) == pytest.approx(2.0)
    assert engine.damping_rate(0.0, clutch_engaged=False) == pytest.approx(0.35)
    assert engine.damping_rate(0.5, clutch_engaged=True) == pytest.approx(2.0 + (0.15 - 2.0) * 0.5)
    assert engine.damping_rate(0.25, clutch_engaged=False) == pytest.approx(0.35 + (0.15 - 0.35) * 0.25)


def test_damping_rate_works_on_arrays():
    engine = EngineData()
    rates = engine_damping_rate(engine, np.array([0.0, 0.0, 1.0, 0.5]), np.array([True, False, False, True]))
    np.testing.assert_allclose(rates, [2.0, 0.35, 0.15, 1.075])


def test_drive_torque_is_accelerator_times_peak_times_curve():
    engine = EngineData()
    assert engine.drive_torque(omega=0.165 * 600, accelerator=0.5) == pytest.approx(0.5 * 500 * 0.9)
    assert engine.drive_torque(omega=1200.0, accelerator=1.0) == pytest.approx(500 * 0.8)  # clamped beyond max_omega
    np.testing.assert_allclose(engine.drive_torque(np.array([0.0, 198.0]), 1.0), [400.0, 500.0])
