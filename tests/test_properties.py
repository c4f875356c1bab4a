"""The property table (physxvehicle_usd/properties.py) against the registered schema and the spec CSV.

Every vehicle schema property has exactly one row and every row names a schema property; where the CSV
(shared/spec/vehicle_attributes.csv) states a fallback, sentinel, default, scale, dimension or deprecation,
the row agrees with it. The CSV paraphrases the PhysX sources, and the sources win: the disagreements
below were checked against them and are kept on purpose.

Known disagreements (CSV vs table), each deliberate:
- PhysxVehicleControllerAPI targetGear: the CSV lists 255 as its sentinel; in the table 255 is an accepted
  special value of the range (automatic shifting), not a "use the default" sentinel - the value stays 255.
- PhysxVehicleWheelAPI maxBrakeTorque / maxHandBrakeTorque / maxSteerAngle / toeAngle and
  PhysxVehicleSuspensionAPI camberAt*: the CSV's resolved default is 0 ("no value -> 0"); the table gives no
  default because these deprecated values are only consulted when authored, and the reader uses 0 for the
  per-wheel multiplier / graph of a wheel that does not author them (read/vehicle.py).
- PhysxVehicleTireAPI longitudinalStiffness (4905) / camberStiffness (0) and PhysxVehicleAPI
  minPassiveLongitudinalSlipDenominator (4.0): the CSV gives the value the sentinel finally resolves to; the
  table carries those defaults on the deprecated rows they come from (longitudinalStiffnessPerUnitGravity 500
  x g, camberStiffnessPerUnitGravity 0 x g, minLongitudinalSlipDenominator 4.0).
"""
from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import pytest
from pxr import Usd

from physxvehicle_usd import properties as P
from physxvehicle_usd.units import LENGTH, MASS, MASS_LENGTH2, NONE, Dim

SPEC_CSV = Path(__file__).resolve().parent / "data" / "spec" / "vehicle_attributes.csv"

DERIVED_DEFAULTS = {(P.TIRE, "longitudinalStiffness"), (P.TIRE, "camberStiffness"),
                    (P.VEHICLE, "minPassiveLongitudinalSlipDenominator")}
NO_VALUE_MEANS_ZERO = {(P.WHEEL, "maxBrakeTorque"), (P.WHEEL, "maxHandBrakeTorque"), (P.WHEEL, "maxSteerAngle"),
                       (P.WHEEL, "toeAngle"), (P.SUSPENSION, "camberAtRest"), (P.SUSPENSION, "camberAtMaxCompression"),
                       (P.SUSPENSION, "camberAtMaxDroop")}
SPECIAL_VALUE_NOT_SENTINEL = {(P.CONTROLLER, "targetGear")}
PER_GEAR = {(P.AUTOBOX, "upRatios"), (P.AUTOBOX, "downRatios")}


def _csv_rows() -> list[dict]:
    with SPEC_CSV.open(newline="") as handle:
        return list(csv.DictReader(handle))


def _key(row: dict) -> tuple[str, str]:
    return row["schema"], row["property"].rsplit(":", 1)[-1]


# -- table vs registered schema --------------------------------------------------------------------------

def test_every_schema_property_has_exactly_one_row_and_every_row_is_a_schema_property():
    rows_by_name: dict[str, list[tuple[str, str]]] = {}
    for row in P.TABLE_ROWS:
        assert P.is_schema_property(row.schema, row.base), f"{row.key} is not a property of the registered schema"
        rows_by_name.setdefault(P.full_name(row.schema, row.base), []).append(row.key)
    duplicated = {name: keys for name, keys in rows_by_name.items() if len(keys) > 1}
    assert not duplicated
    for schema in P.ALL_SCHEMAS:
        for base in P.schema_property_bases(schema):
            # TankDifferential/TankController inherit the MultiWheelDifferential/Controller properties: the
            # attribute (its full name) is the same, so one row covers both
            assert P.full_name(schema, base) in rows_by_name, f"no row for {schema} {base}"


def test_the_table_covers_every_vehicle_schema_the_registry_knows():
    registry = Usd.SchemaRegistry()
    for schema in {row["schema"] for row in _csv_rows()}:
        assert registry.FindAppliedAPIPrimDefinition(schema) or registry.FindConcretePrimDefinition(schema), schema
        assert schema in P.ALL_SCHEMAS


def test_the_table_has_the_127_declared_properties_of_the_spec():
    names = {P.full_name(r.schema, r.base) for r in P.TABLE_ROWS}
    assert len(names) == 127
    spec = {row["property"] for row in _csv_rows()}   # multiple-apply names carry __INSTANCE_NAME__ there too
    assert names == spec


def test_full_name_fills_the_instance_of_multiple_apply_schemas():
    assert P.full_name(P.BRAKES, "maxBrakeTorque", "brakes1") == "physxVehicleBrakes:brakes1:maxBrakeTorque"
    assert P.full_name(P.NCR, "commandValues", "drive") == "physxVehicleNCR:drive:commandValues"
    assert P.full_name(P.ENGINE, "peakTorque") == "physxVehicleEngine:peakTorque"


# -- table vs spec CSV ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def spec_rows() -> list[dict]:
    rows = _csv_rows()
    assert len(rows) == 127
    return rows


def _number(text: str):
    match = re.match(r"\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\b", text)
    return float(match.group(1)) if match else None


def _csv_value(text: str):
    text = text.strip()
    if text in ("none", "-", ""):
        return None
    if text in ("True", "False"):
        return text == "True"
    if text.startswith("("):
        return tuple(float(x) for x in text.strip("()").split(","))
    number = _number(text)
    return number if number is not None and re.fullmatch(r"-?[\d.e-]+", text) else text


def _plain(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if hasattr(value, "GetReal"):   # Gf quaternions: (w, x, y, z)
        return (float(value.GetReal()), *(float(v) for v in value.GetImaginary()))
    if hasattr(value, "__len__"):
        return tuple(float(v) for v in value)
    return float(value)


def test_schema_fallbacks_are_the_csv_fallbacks(spec_rows):
    checked = 0
    for row in spec_rows:
        if row["kind"] != "attribute":
            continue
        expected = _csv_value(row["fallback"])
        actual = _plain(P.schema_fallback(*_key(row)))
        if isinstance(expected, tuple):
            assert actual == pytest.approx(expected), _key(row)
        elif isinstance(expected, float):
            assert actual == pytest.approx(expected), _key(row)
        else:
            assert actual == expected, (_key(row), actual, expected)
        checked += 1
    assert checked > 100


def test_sentinels_are_the_csv_sentinels(spec_rows):
    for row in spec_rows:
        key = _key(row)
        prop = P.prop(*key)
        text = row["sentinel"]
        leading = re.match(r"\s*(\(.*?\)|-?\d+(?:\.\d+)?|undefined)\s*(->|=)", text)
        if key in SPECIAL_VALUE_NOT_SENTINEL:
            assert prop.sentinel is None and 255 in prop.range.sentinels
            continue
        if leading is None:
            assert prop.sentinel is None, f"{key}: table sentinel {prop.sentinel!r}, CSV {text!r}"
            continue
        value = leading.group(1)
        if value == "undefined":
            assert prop.sentinel == "undefined", key
        elif value.startswith("("):
            assert tuple(prop.sentinel) == pytest.approx(tuple(float(x) for x in value.strip("()").split(","))), key
        else:
            assert prop.sentinel == pytest.approx(float(value)), f"{key}: table {prop.sentinel!r}, CSV {text!r}"


def test_defaults_are_the_csv_resolved_defaults(spec_rows):
    checked = 0
    for row in spec_rows:
        key = _key(row)
        prop = P.prop(*key)
        expected = _number(row["resolved_default"])
        if expected is None or isinstance(prop.default, (tuple, str)) or key in PER_GEAR:
            continue   # lists and per-gear defaults: test_list_defaults_are_the_csv_resolved_defaults
        if key in DERIVED_DEFAULTS or key in NO_VALUE_MEANS_ZERO:
            assert prop.default is None, f"{key}: a documented disagreement has changed; update this test"
            continue
        actual = prop.default if prop.default is not None else _plain(P.schema_fallback(*key))
        assert actual == pytest.approx(expected), f"{key}: table {actual!r}, CSV {row['resolved_default']!r}"
        checked += 1
    assert checked > 40


def test_list_defaults_are_the_csv_resolved_defaults(spec_rows):
    by_key = {_key(r): r for r in spec_rows}
    assert list(P.prop(P.GEARS, "ratios").default) == [-4.0, 4.0, 2.0, 1.5, 1.1, 1.0]
    assert "[-4.0, 4.0, 2.0, 1.5, 1.1, 1.0]" in by_key[(P.GEARS, "ratios")]["resolved_default"]
    assert [list(p) for p in P.prop(P.ENGINE, "torqueCurve").default] == [[0.0, 0.8], [0.33, 1.0], [1.0, 0.8]]
    assert [list(p) for p in P.prop(P.TIRE, "frictionVsSlipGraph").default] == [[0.0, 1.0], [0.1, 1.0], [1.0, 1.0]]
    assert "0.65" in by_key[(P.AUTOBOX, "upRatios")]["resolved_default"] and P.prop(P.AUTOBOX, "upRatios").default == 0.65
    assert "0.5" in by_key[(P.AUTOBOX, "downRatios")]["resolved_default"] and P.prop(P.AUTOBOX, "downRatios").default == 0.5


CSV_SCALE = {"none": NONE, "length": LENGTH, "mass": MASS, "kgms": MASS_LENGTH2}


def test_default_scales_are_the_csv_scales(spec_rows):
    for row in spec_rows:
        key = _key(row)
        prop = P.prop(*key)
        if not isinstance(prop.default, (int, float)) or isinstance(prop.default, bool) or prop.default == 0:
            continue
        assert CSV_SCALE[row["scale"].split(" ")[0]] == prop.dim, f"{key}: CSV scale {row['scale']!r}, dim {prop.dim}"


def _csv_dimension(text: str) -> Dim | None:
    """'kg*m^2/s^2 (N*m)' -> Dim(2, 1); None for unitless, indices, tokens and per-component units."""
    text = text.split(" (")[0].strip()
    if not text or text == "-" or ":" in text or not re.fullmatch(r"[a-z0-9*/^]+", text):
        return None
    length = mass = 0
    for i, part in enumerate(text.split("/")):
        sign = 1 if i == 0 else -1
        for factor in part.split("*"):
            base, _, exponent = factor.partition("^")
            power = int(exponent or 1)
            if base == "m":
                length += sign * power
            elif base == "kg":
                mass += sign * power
            elif base not in ("s", "rad", "1"):
                return None
    return Dim(length, mass)


def test_dimensions_are_the_csv_dimensions(spec_rows):
    checked = 0
    for row in spec_rows:
        key = _key(row)
        expected = _csv_dimension(row["dimension"])
        if expected is None:
            continue
        assert P.prop(*key).dim == expected, f"{key}: CSV {row['dimension']!r}, table {P.prop(*key).dim}"
        checked += 1
    assert checked > 50


def test_graph_component_dimensions():
    assert P.prop(P.TIRE, "lateralStiffnessGraph").component_dims == (NONE, P.MASS_LENGTH)
    assert P.prop(P.NCR, "speedResponses").component_dims == (LENGTH, NONE)
    for base in ("suspensionForceAppPoint", "tireForceAppPoint"):
        assert P.prop(P.COMPLIANCE, base).component_dims == (NONE, LENGTH, LENGTH, LENGTH)


def test_deprecated_rows_are_the_csv_deprecated_properties(spec_rows):
    for row in spec_rows:
        prop = P.prop(*_key(row))
        assert bool(prop.deprecated_by) == row["deprecated"].startswith("yes"), _key(row)


def test_ranges_follow_check_param_in_range():
    assert P.NON_NEGATIVE.accepts(0.0) and not P.NON_NEGATIVE.accepts(-1e-9) and not P.NON_NEGATIVE.accepts(P.FLT_MAX)
    assert not P.POSITIVE.accepts(0.0) and P.POSITIVE.accepts(P.FLT_MIN)
    assert P.UNIT_INTERVAL.accepts(1.0) and not P.UNIT_INTERVAL.accepts(1.001)
    assert not P.NON_NEGATIVE.accepts(math.nan)
    assert P.prop(P.ENGINE, "peakTorque").range.accepts(-1.0) and not P.prop(P.ENGINE, "peakTorque").range.accepts(-2.0)
    assert P.prop(P.WHEEL, "toeAngle").range.accepts(-math.pi / 2) and not P.prop(P.WHEEL, "toeAngle").range.accepts(math.pi / 2)


def test_every_range_has_a_code_of_the_spec():
    rules = (Path(__file__).resolve().parent / "data" / "spec" / "vehicle_parse_rules.md").read_text()
    for row in P.TABLE_ROWS:
        if row.range is not None:
            assert row.range_code and f"- {row.range_code} " in rules, row.key
