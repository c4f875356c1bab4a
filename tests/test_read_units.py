"""Stage units: every default the parser substitutes is scaled by the unit of its dimension, nothing else is.

The expectations come from the property table (`properties.TABLE_ROWS`: SI default x the stage scale of the
row's dimension) and are cross-checked against the resolved_default / scale columns of the spec CSV, so a
wrong row in either shows up here. The factory car is the same physical car in every unit system, so
`to_json(si=True)` of any of them must equal the metre car.
"""
from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path

import pytest
from stage_factory import MASS_KG, add_vehicle, build_vehicle

from physxvehicle_usd import properties as P
from physxvehicle_usd.description import Source
from physxvehicle_usd.outputs.convert import description_to_json_text
from physxvehicle_usd.units import LENGTH, MASS, MASS_LENGTH2, NONE, StageUnits

SPEC_CSV = Path(__file__).resolve().parent / "data" / "spec" / "vehicle_attributes.csv"

# (metersPerUnit, kilogramsPerUnit); None = not authored (USD's fallback metersPerUnit is 0.01).
UNIT_SYSTEMS = {
    "metre-kg": (1.0, 1.0),
    "centimetre": (0.01, 1.0),
    "millimetre": (0.001, 1.0),
    "gram": (1.0, 0.001),
    "inch-pound": (0.0254, 0.45359237),
    "no-metersPerUnit": (None, 1.0),
}

# Where each schema's values end up in a vehicle description (standard car; DriveBasic on a second car).
BLOCKS = {
    P.VEHICLE: lambda car, basic: car.vehicle,
    P.ENGINE: lambda car, basic: car.drive.engine,
    P.GEARS: lambda car, basic: car.drive.gears,
    P.CLUTCH: lambda car, basic: car.drive.clutch,
    P.AUTOBOX: lambda car, basic: car.drive.autoGearBox,
    P.DRIVE_BASIC: lambda car, basic: basic.drive.basic,
    P.TIRE: lambda car, basic: car.wheels[0].tire,
    P.CONTROLLER: lambda car, basic: car.controller,
}
PER_GEAR = {(P.AUTOBOX, "upRatios"), (P.AUTOBOX, "downRatios")}
# Deprecated rows whose default lands in a replacement property (and how it is derived there).
REPLACED = {
    (P.VEHICLE, "minLongitudinalSlipDenominator"): "minPassiveLongitudinalSlipDenominator",
}


def _csv_rows() -> dict[tuple[str, str], dict]:
    with SPEC_CSV.open(newline="") as handle:
        return {(r["schema"], r["property"].rsplit(":", 1)[-1]): r for r in csv.DictReader(handle)}


CSV_SCALE = {"none": NONE, "length": LENGTH, "mass": MASS, "kgms": MASS_LENGTH2}


@pytest.fixture(scope="module", params=list(UNIT_SYSTEMS), ids=list(UNIT_SYSTEMS))
def unit_case(request):
    mpu, kpu = UNIT_SYSTEMS[request.param]
    car = build_vehicle(mpu, kpu, autobox=True)
    add_vehicle(car, drive="basic", name="Basic")
    description = car.read()
    return car, description


def _scalar_default_rows():
    """Table rows with a numeric scalar default that the reader substitutes into a block."""
    for row in P.TABLE_ROWS:
        if row.schema not in BLOCKS or isinstance(row.default, (tuple, str, bool)) or row.default is None:
            continue
        if row.key in PER_GEAR:
            continue  # one default per forward gear but the last: checked in test_named_examples_of_the_unit_rules
        yield row


def test_the_expectations_agree_with_the_spec_csv():
    """Each scalar default of the table is the CSV's resolved_default, scaled by the CSV's scale column."""
    rows = _csv_rows()
    checked = 0
    for row in _scalar_default_rows():
        spec = rows[row.key]
        number = re.match(r"\s*(-?\d+(?:\.\d+)?)", spec["resolved_default"])
        assert number, f"{row.key}: the CSV gives no number ({spec['resolved_default']!r})"
        assert float(number.group(1)) == pytest.approx(row.default), row.key
        scale = spec["scale"].split(" ")[0]
        if row.default != 0:
            assert CSV_SCALE[scale] == row.dim, f"{row.key}: CSV scale {spec['scale']!r}, table dim {row.dim}"
        checked += 1
    assert checked >= 20


def test_every_unauthored_default_is_the_si_default_in_stage_units(unit_case):
    car_stage, description = unit_case
    units = description.units
    car, basic = description.vehicles["/World/Car"], description.vehicles["/World/Basic"]
    checked = []
    for row in _scalar_default_rows():
        block = BLOCKS[row.schema](car, basic)
        base = REPLACED.get(row.key, row.base)
        if row.deprecated_by and row.key not in REPLACED:
            continue  # checked through their replacements below
        expected = row.default * units.si_to_stage(row.dim)
        assert block[base] == pytest.approx(expected, rel=1e-6), (row.key, units)
        assert block.source(base) == Source.DEFAULT, row.key
        checked.append(row.key)
    assert (P.ENGINE, "peakTorque") in checked and (P.VEHICLE, "lateralStickyTireThresholdSpeed") in checked


def test_named_examples_of_the_unit_rules(unit_case):
    _, description = unit_case
    units = description.units
    length, mass = units.length_scale, units.mass_scale
    kgms = length ** 2 * mass
    car, basic = description.vehicles["/World/Car"], description.vehicles["/World/Basic"]
    g = description.scenes["/World/PhysicsScene"].settings
    assert g["gravityMagnitude"] == pytest.approx(9.81 / units.meters_per_unit)
    assert g.source("gravityMagnitude") == Source.DEFAULT
    assert car.drive.engine["peakTorque"] == pytest.approx(500 * kgms)
    assert car.drive.engine["moi"] == pytest.approx(1.0 * kgms)
    assert car.drive.clutch["strength"] == pytest.approx(10.0 * kgms)
    assert basic.drive.basic["peakTorque"] == pytest.approx(1000 * kgms)
    assert car.vehicle["longitudinalStickyTireThresholdSpeed"] == pytest.approx(0.2 * length)
    assert car.vehicle["subStepThresholdLongitudinalSpeed"] == pytest.approx(5.0 * length)
    assert car.vehicle["minPassiveLongitudinalSlipDenominator"] == pytest.approx(4.0 * length)
    # unit-free defaults and schema fallbacks are never scaled
    assert car.vehicle["lowForwardSpeedSubStepCount"] == 3
    assert car.drive.gears["switchTime"] == pytest.approx(0.5)
    assert car.drive.autoGearBox["upRatios"] == pytest.approx([0.65] * 4)   # 5 forward gears by default
    assert car.drive.autoGearBox["downRatios"] == pytest.approx([0.5] * 4)
    assert car.drive.engine["maxRotationSpeed"] == pytest.approx(600.0)
    assert car.vehicle["longitudinalStickyTireDamping"] == pytest.approx(200.0)
    for wheel in car.wheels:
        tire = wheel.tire
        # longitudinalStiffness 0 -> 500 kg x massScale x g (g in stage lengths)
        assert tire["longitudinalStiffness"] == pytest.approx(500 * mass * 9.81 * length, rel=1e-5)
        assert tire.source("longitudinalStiffness") == Source.DEFAULT
        assert tire["camberStiffness"] == 0.0
        # lateralStiffnessGraph (0, 0) -> (latStiffX 2, latStiffY 17.095 x rest load)
        x, y = tire["lateralStiffnessGraph"]
        assert x == pytest.approx(2.0) and y == pytest.approx(17.095 * tire["restLoad"], rel=1e-6)
        assert tire["restLoad"] == pytest.approx(wheel.suspension["sprungMass"] * 9.81 * length, rel=1e-5)
    assert sum(w.suspension["sprungMass"] for w in car.wheels) == pytest.approx(MASS_KG * mass, rel=1e-5)


def test_authored_values_are_taken_as_they_are():
    """Scales apply to substituted defaults only: an authored 500 stays 500 in any unit system."""
    for mpu in (1.0, 0.01):
        car = build_vehicle(mpu, values={(P.ENGINE, "peakTorque"): 500.0, (P.VEHICLE, "subStepThresholdLongitudinalSpeed"): 5.0})
        vehicle = car.read().vehicles["/World/Car"]
        assert vehicle.drive.engine["peakTorque"] == 500.0
        assert vehicle.drive.engine.source("peakTorque") == Source.AUTHORED
        assert vehicle.vehicle["subStepThresholdLongitudinalSpeed"] == 5.0


def test_an_explicit_sentinel_resolves_like_an_unauthored_value():
    car = build_vehicle(0.01, values={(P.ENGINE, "peakTorque"): -1.0, (P.VEHICLE, "lateralStickyTireThresholdSpeed"): -1.0,
                                      (P.TIRE, "longitudinalStiffness"): 0.0})
    vehicle = car.read().vehicles["/World/Car"]
    assert vehicle.drive.engine["peakTorque"] == pytest.approx(500 * 100 ** 2)
    assert vehicle.vehicle["lateralStickyTireThresholdSpeed"] == pytest.approx(20.0)
    assert vehicle.wheels[0].tire["longitudinalStiffness"] == pytest.approx(500 * 981.0, rel=1e-5)


def _numbers_close(a, b, where=""):
    """Recursive comparison of JSON values with float32 tolerance; returns the first difference or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{where}: keys {sorted(set(a) ^ set(b))}"
        for key in a:
            found = _numbers_close(a[key], b[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: lengths {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            found = _numbers_close(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return None if math.isclose(a, b, rel_tol=2e-5, abs_tol=1e-6) else f"{where}: {a} != {b}"
    return None if a == b else f"{where}: {a!r} != {b!r}"


def _comparable(data: dict) -> dict:
    data = dict(data)
    data["stage"] = {k: v for k, v in data["stage"].items() if k not in ("file", "convertedFrom")}
    return data


@pytest.fixture(scope="module")
def metre_json():
    car = build_vehicle(1.0, 1.0, autobox=True)
    add_vehicle(car, drive="basic", name="Basic")
    return _comparable(car.read().to_json())


def test_si_output_of_convert_gives_back_the_metre_values(unit_case, metre_json):
    _, description = unit_case
    si = json.loads(description_to_json_text(description, si=True))
    assert si["stage"]["metersPerUnit"] == 1.0 and si["stage"]["kilogramsPerUnit"] == 1.0
    assert si["stage"]["convertedFrom"]["metersPerUnit"] == pytest.approx(description.stage.metersPerUnit)
    difference = _numbers_close(_comparable(si), metre_json)
    assert difference is None, difference


def test_si_output_of_the_centimetre_sample_is_the_metre_sample(repo):
    from physxvehicle_usd.read import read_stage

    metres = _comparable(read_stage(str(repo / "samples/car/car.usda")).to_json())
    centimetres = _comparable(read_stage(str(repo / "samples/car_cm/car_cm.usda")).to_json(si=True))
    difference = _numbers_close(centimetres, metres)
    assert difference is None, difference


def test_unauthored_meters_per_unit_is_usd_fallback():
    car = build_vehicle(None, 1.0)
    description = car.read()
    assert description.stage.metersPerUnit == 0.01
    assert StageUnits.of(car.stage).length_scale == pytest.approx(100.0)
    assert description.vehicles["/World/Car"].drive.engine["peakTorque"] == pytest.approx(500 * 100 ** 2)


def test_schema_fallbacks_are_never_scaled(unit_case):
    """Every value that resolves to the schema's fallback is that fallback, whatever the units."""
    _, description = unit_case
    vehicle = description.vehicles["/World/Car"]
    blocks = [vehicle.vehicle, vehicle.controller, vehicle.drive.engine, vehicle.steering, *vehicle.brakes.values()]
    blocks += [b for w in vehicle.wheels for b in (w.attachment, w.tire, w.suspension, w.wheel)]
    checked = 0
    for block in blocks:
        for base, item in block.public().items():
            if item.source != Source.FALLBACK or not P.is_schema_property(block.schema_name, base):
                continue
            fallback = P.schema_fallback(block.schema_name, base)
            if fallback is None:
                continue
            expected = tuple(fallback) if hasattr(fallback, "__len__") and not isinstance(fallback, str) else fallback
            if hasattr(fallback, "GetReal"):
                expected = (fallback.GetReal(), *fallback.GetImaginary())
            value = tuple(item.value) if isinstance(item.value, (list, tuple)) else item.value
            assert value == pytest.approx(expected), (block.schema_name, base)
            checked += 1
    assert checked >= 15
