"""Issue 17, "every problem said, once, truthfully": each case here was silent, wrong or unclear before.

Every test authors a real stage (usd-core, in memory or in tmp_path), reads, validates, converts or simulates it
for real, and checks what the user is told: the code, the prim and property named, the severity, the exit code.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import run_cli
from pxr import Gf, Sdf, UsdPhysics
from stage_factory import add_vehicle, build_vehicle, new_stage

from physxvehicle_usd import properties as P
from physxvehicle_usd.cli import EXIT_FINDINGS, EXIT_USAGE
from physxvehicle_usd.diagnostics import Severity
from physxvehicle_usd.outputs.convert import description_to_json_text

CAR = "/World/Car"


def _errors(description, prim: str | None = None) -> list:
    return [d for d in description.diagnostics if d.severity == Severity.ERROR and (prim is None or d.prim == prim)]


def _codes(description, prim: str | None = None) -> set[tuple[str, str | None]]:
    return {(d.code, d.property) for d in _errors(description, prim)}


def cli(capfd, *args: str) -> tuple[int, str, str]:
    """conftest.run_cli as (exit code, stdout, stderr)."""
    ran = run_cli(capfd, *args)
    return ran.returncode, ran.stdout, ran.stderr


def _strict_json(text: str):
    """JSON as RFC 8259 has it: NaN and Infinity are not tokens of the language."""
    def refuse(token):
        raise AssertionError(f"{token} in JSON")
    return json.loads(text, parse_constant=refuse)


# -- rigid-body mass properties -------------------------------------------------------------------------

@pytest.mark.parametrize("value, code", [(math.nan, "NONFINITE"), (-math.inf, "NONFINITE"), (math.inf, "NONFINITE"),
                                         (-1800.0, "MASS_RANGE")])
def test_unusable_mass_is_an_error_naming_the_property_and_rejects_only_that_vehicle(value, code):
    car = new_stage()
    add_vehicle(car, name="Good")
    add_vehicle(car, name="Car")
    UsdPhysics.MassAPI(car.prim(CAR)).GetMassAttr().Set(value)
    description = car.read()
    assert (code, "physics:mass") in _codes(description, CAR)
    assert CAR not in description.vehicles
    assert "/World/Good" in description.vehicles
    assert not _errors(description, "/World/Good")


def test_mass_authored_as_a_string_is_a_type_error():
    car = build_vehicle()
    spec = car.stage.GetRootLayer().GetPrimAtPath(CAR)
    del spec.properties["physics:mass"]
    Sdf.AttributeSpec(spec, "physics:mass", Sdf.ValueTypeNames.String).default = "heavy"
    description = car.read()
    assert ("TYPE", "physics:mass") in _codes(description, CAR)
    assert CAR not in description.vehicles


def test_nan_in_diagonal_inertia_is_an_error():
    car = build_vehicle()
    UsdPhysics.MassAPI(car.prim(CAR)).GetDiagonalInertiaAttr().Set(Gf.Vec3f(math.nan, 2500.0, 2700.0))
    description = car.read()
    assert ("NONFINITE", "physics:diagonalInertia") in _codes(description, CAR)
    assert CAR not in description.vehicles


def test_unset_sentinels_of_mass_api_are_not_findings():
    """0 mass, the (-inf, -inf, -inf) centre of mass and the zero principal axes mean "not set" in UsdPhysics."""
    car = build_vehicle()
    mass = UsdPhysics.MassAPI(car.prim(CAR))
    mass.GetCenterOfMassAttr().Set(Gf.Vec3f(-math.inf, -math.inf, -math.inf))
    mass.GetPrincipalAxesAttr().Set(Gf.Quatf(0, 0, 0, 0))
    description = car.read()
    assert not {c for c, _ in _codes(description, CAR)} & {"NONFINITE", "MASS_RANGE", "MASS", "TYPE"}
    assert CAR in description.vehicles


# -- stage metadata -------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [0.0, -1.0, math.nan, math.inf])
@pytest.mark.parametrize("key", ["metersPerUnit", "kilogramsPerUnit"])
def test_stage_units_that_are_no_unit_are_errors_and_replaced_by_the_fallback(key, value):
    car = build_vehicle()
    car.stage.SetMetadata(key, value)
    description = car.read()
    found = [d for d in _errors(description, "/") if d.code == "STAGE_UNITS"]
    assert [d.property for d in found] == [key]
    assert repr(value) in found[0].message
    fallback = 0.01 if key == "metersPerUnit" else 1.0
    assert getattr(description.stage, key) == fallback
    assert f"{fallback:g}" in found[0].message
    _strict_json(description_to_json_text(description))


def test_invalid_up_axis_token_is_an_error():
    car = build_vehicle()
    car.stage.SetMetadata("upAxis", "W")
    description = car.read()
    assert ("STAGE_UP_AXIS", "upAxis") in _codes(description, "/")
    assert description.stage.upAxis == "Y"


@pytest.mark.parametrize("attribute, value", [("GravityMagnitude", math.nan), ("GravityMagnitude", math.inf),
                                              ("GravityDirection", Gf.Vec3f(math.nan, 0, -1))])
def test_unusable_gravity_is_said_with_the_default_used(attribute, value):
    car = build_vehicle()
    getattr(UsdPhysics.Scene(car.prim(car.scene)), f"Get{attribute}Attr")().Set(value)
    description = car.read()
    name = "physics:" + attribute[0].lower() + attribute[1:]
    assert ("GRAVITY", name) in _codes(description, car.scene)
    gravity = description.scenes[car.scene].settings
    assert all(math.isfinite(c) for c in gravity["gravityDirection"]) and math.isfinite(gravity["gravityMagnitude"])


def test_gravity_sentinels_are_not_findings():
    car = build_vehicle()
    scene = UsdPhysics.Scene(car.prim(car.scene))
    scene.GetGravityMagnitudeAttr().Set(-math.inf)
    scene.GetGravityDirectionAttr().Set(Gf.Vec3f(0, 0, 0))
    assert not [d for d in car.read().diagnostics if d.code == "GRAVITY"]


def test_zero_quaternion_orientation_is_said():
    from pxr import UsdGeom

    car = build_vehicle()
    UsdGeom.Xformable(car.prim(CAR)).AddOrientOp().Set(Gf.Quatf(0, 0, 0, 0))
    description = car.read()
    found = [d for d in description.diagnostics if d.code == "ORIENT_ZERO"]
    assert [(d.prim, d.property, d.severity) for d in found] == [(CAR, "xformOp:orient", Severity.WARNING)]
    assert "identity" in found[0].message


# -- convert's JSON is JSON -----------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["mass", "metersPerUnit", "kilogramsPerUnit"])
def test_convert_prints_strict_json_with_no_numbers_as_strings_when_values_are_infinite(capfd, tmp_path, where):
    car = new_stage()
    add_vehicle(car, name="Good")
    add_vehicle(car, name="Car")
    if where == "mass":
        UsdPhysics.MassAPI(car.prim(CAR)).GetMassAttr().Set(math.inf)
    else:
        car.stage.SetMetadata(where, math.nan)
    path = tmp_path / "car.usda"
    car.stage.GetRootLayer().Export(str(path))
    code, out, _err = cli(capfd, "convert", str(path))
    assert code == EXIT_FINDINGS
    data = _strict_json(out)

    def strings(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key not in ("diagnostics", "file"):
                    yield from strings(value)
        elif isinstance(node, list):
            for value in node:
                yield from strings(value)
        elif isinstance(node, str):
            yield node
    assert not {s for s in strings(data)} & {"inf", "-inf", "nan"}
    said = [d for d in data["diagnostics"] if d["severity"] == "error"]
    assert said, "the non-finite value is a diagnostic"
    if where == "mass":
        assert CAR not in data["vehicles"] and "/World/Good" in data["vehicles"]


# -- wheels, brakes and relationships -------------------------------------------------------------------

@pytest.mark.parametrize("base", ["radius", "moi"])
def test_a_wheel_of_zero_radius_or_inertia_is_an_error(base):
    car = new_stage()
    add_vehicle(car, name="Good", shared=False)
    add_vehicle(car, name="Car")
    name = car.set(car.parts["Wheel"], P.WHEEL, base, 0.0)
    description = car.read()
    assert ("WHEEL_ZERO", name) in _codes(description, car.parts["Wheel"])
    assert CAR not in description.vehicles and "/World/Good" in description.vehicles


def test_repeated_brake_wheel_indices_are_said_with_what_they_do():
    car = build_vehicle()
    name = car.set(CAR, P.BRAKES, "wheels", [0, 0, 0, 0], instance="brakes0")
    car.set(CAR, P.BRAKES, "torqueMultipliers", [1.0, 1.0, 1.0, 1.0], instance="brakes0")
    description = car.read()
    found = [d for d in description.diagnostics if d.code == "WHEEL_DUPLICATE"]
    assert [(d.prim, d.property, d.severity) for d in found] == [(CAR, name, Severity.WARNING)]
    assert "wheels 1, 2, 3 get none" in found[0].message


def test_a_string_attribute_where_the_friction_table_relationship_belongs_is_a_type_error():
    car = new_stage()
    add_vehicle(car, name="Good", shared=False)
    add_vehicle(car, name="Car")
    tire = car.parts["Tire"]
    name = P.full_name(P.TIRE, "frictionTable")
    car.prim(tire).CreateAttribute(name, Sdf.ValueTypeNames.String).Set("/World/Table")
    description = car.read()
    assert ("TYPE", name) in _codes(description, tire)
    assert CAR not in description.vehicles and "/World/Good" in description.vehicles


# -- validate on folders without USD files --------------------------------------------------------------

@pytest.mark.parametrize("content", [None, "notes.txt"])
def test_validate_on_a_folder_without_usd_files_exits_2_naming_it(capfd, tmp_path, content):
    folder = tmp_path / "assets"
    folder.mkdir()
    if content:
        (folder / content).write_text("not a stage\n")
    code, out, _err = cli(capfd, "validate", str(folder))
    assert code == EXIT_USAGE
    assert f"{folder}: no USD files" in out


# -- simulate: a vehicle the numerical guard froze ------------------------------------------------------

def test_simulate_says_which_vehicle_the_guard_froze_why_and_when_and_exits_1(capfd, tmp_path):
    from stage_factory import car_spec, preset_stage, set_velocity, translate

    stage = preset_stage(car_spec(name="Fast"), car_spec(name="Calm"))
    translate(stage, "/World/Calm", (5.0, 0.0, 0.0))
    set_velocity(stage, "/World/Fast", (0.0, 0.0, 5000.0))  # beyond the guard's 1000 m/s
    path = tmp_path / "cars.usda"
    stage.GetRootLayer().Export(str(path))
    code, out, err = cli(capfd, "simulate", str(path), "--steps", "5", "--dt", "0.01")
    assert code == EXIT_FINDINGS
    lines = [line for line in err.splitlines() if "frozen" in line]
    assert lines == [("error: /World/Fast was frozen by the numerical guard at step 1 of 5 (chassis speed); its "
                      "results from then on are its last good state, at rest")]
    assert "/World/Fast: " in out and "(frozen at step 1: chassis speed)" in out
    assert "/World/Calm" not in err


# -- every independent problem of a vehicle in one run --------------------------------------------------

def test_three_independent_errors_of_one_vehicle_are_all_reported_in_one_read():
    car = new_stage()
    add_vehicle(car, name="Good", shared=False)
    add_vehicle(car, name="Car")
    torque = car.set(car.parts["Engine"], P.ENGINE, "peakTorque", -50.0)
    radius = car.set(car.parts["Wheel"], P.WHEEL, "radius", 0.0)
    ratios = car.set(CAR, P.MULTI_DIFF, "torqueRatios", [0.5, 0.25, 0.25])
    description = car.read()
    errors = [(d.prim, d.property) for d in _errors(description)]
    assert sorted(errors) == sorted([(car.parts["Engine"], torque), (car.parts["Wheel"], radius), (CAR, ratios)])
    assert CAR not in description.vehicles and "/World/Good" in description.vehicles


def test_a_broken_drive_brings_no_follow_on_errors_from_the_systems_that_need_it():
    car = build_vehicle()
    drive = P.full_name(P.VEHICLE, "drive")
    car.prim(CAR).GetRelationship(drive).SetTargets([Sdf.Path("/World/Nowhere")])
    description = car.read()
    assert [(d.code, d.property) for d in _errors(description)] == [("V65", drive)]


def test_invalid_gears_bring_no_follow_on_findings_from_the_autobox():
    car = build_vehicle(autobox=True)
    name = car.set(car.parts["Gears"], P.GEARS, "ratioScale", -1.0)
    description = car.read()
    assert [(d.prim, d.property) for d in _errors(description)] == [(car.parts["Gears"], name)]
    assert not [d for d in description.diagnostics if d.prim == car.parts.get("AutoGearBox")]


# -- one problem, one finding ---------------------------------------------------------------------------

def test_a_context_on_a_prim_that_is_no_scene_is_one_error_not_three():
    from pxr import UsdGeom

    car = build_vehicle()
    prim = UsdGeom.Xform.Define(car.stage, "/World/NotAScene").GetPrim()
    prim.ApplyAPI(P.CONTEXT)  # its axes left undefined
    description = car.read()
    assert [d.code for d in description.diagnostics if d.prim == "/World/NotAScene"] == ["V01"]


def _stage_with_a_broken_reference(tmp_path):
    car = new_stage()
    add_vehicle(car, name="Good", shared=False)
    car.stage.DefinePrim("/World/Wheel", "Xform").GetReferences().AddReference("./missing_wheel.usda", "/Wheel")
    path = tmp_path / "stage.usda"
    car.stage.GetRootLayer().Export(str(path))
    return path


def test_a_broken_reference_is_one_finding_with_one_severity_in_validate_and_convert(capfd, tmp_path):
    import re

    from physxvehicle_usd.read import read_stage
    from physxvehicle_usd.validate import validate_file

    path = _stage_with_a_broken_reference(tmp_path)
    validated = [f for f in validate_file(str(path)).findings if "missing_wheel.usda" in f.message]
    converted = [d for d in read_stage(str(path)).diagnostics if "missing_wheel.usda" in d.message]
    assert len(validated) == 1 and len(converted) == 1
    assert (validated[0].severity, validated[0].code, validated[0].message) == \
        (converted[0].severity, converted[0].code, converted[0].message) == \
        (Severity.ERROR, "COMPOSITION", converted[0].message)
    assert not converted[0].message.startswith("In <")
    for args in (("validate", str(path)), ("convert", "--format", "text", str(path))):
        code, out, err = cli(capfd, *args)
        assert code == EXIT_FINDINGS
        assert not re.search(r"0x[0-9a-fA-F]{6,}", out + err), "a memory address in the output"
        assert (out + err).count("missing_wheel.usda@ for reference") == 1


def test_every_finding_has_one_severity_in_validate_and_in_convert(tmp_path):
    from physxvehicle_usd.read import read_stage
    from physxvehicle_usd.validate import validate_file

    car = new_stage()
    add_vehicle(car, name="Car")
    car.set(car.parts["Wheel"], P.WHEEL, "radius", 0.0)
    car.stage.DefinePrim("/World/Wheel", "Xform").GetReferences().AddReference("./missing_wheel.usda", "/Wheel")
    path = tmp_path / "stage.usda"
    car.stage.GetRootLayer().Export(str(path))
    def key(d):
        return d.code, d.prim, d.property, d.message
    validated = {key(f): f.severity for f in validate_file(str(path)).findings}
    converted = {key(d): d.severity for d in read_stage(str(path)).diagnostics}
    assert set(converted) <= set(validated)
    assert {k: validated[k] for k in converted} == converted


# -- "no simulable vehicle" says which case it is -------------------------------------------------------

def _two_rejected_cars(tmp_path):
    car = new_stage()
    for name in ("Car", "Van"):
        add_vehicle(car, name=name, shared=False)
        car.set(f"/World/{name}/Wheel0", P.WHEEL, "radius", -1.0)
    path = tmp_path / "rejected.usda"
    car.stage.GetRootLayer().Export(str(path))
    return path


def test_no_simulable_vehicle_names_the_vehicles_that_were_all_rejected(capfd, tmp_path):
    code, _out, err = cli(capfd, "simulate", str(_two_rejected_cars(tmp_path)), "--steps", "2", "--dt", "0.01")
    assert code == EXIT_FINDINGS
    last = err.strip().splitlines()[-1]
    assert "no simulable vehicle: the stage has 2 vehicle(s) and every one was left out" in last
    assert "/World/Car, /World/Van" in last


def test_no_simulable_vehicle_says_a_payload_could_not_be_opened(capfd, tmp_path):
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.CreateNew(str(tmp_path / "scene.usda"))
    UsdGeom.Xform.Define(stage, "/World")
    stage.DefinePrim("/World/Car", "Xform").GetPayloads().AddPayload("./car_payload.usda", "/Car")
    stage.Save()
    code, _out, err = cli(capfd, "simulate", str(tmp_path / "scene.usda"), "--steps", "2", "--dt", "0.01")
    assert code == EXIT_FINDINGS
    last = err.strip().splitlines()[-1]
    assert "no prim with PhysxVehicleAPI, and 1 reference(s) or payload(s) could not be opened" in last
    assert "car_payload.usda" in last


def test_no_vehicle_at_all_is_said_as_such(capfd, tmp_path):
    from pxr import Usd, UsdGeom

    stage = Usd.Stage.CreateNew(str(tmp_path / "empty.usda"))
    UsdGeom.Xform.Define(stage, "/World")
    stage.Save()
    code, _out, err = cli(capfd, "simulate", str(tmp_path / "empty.usda"), "--steps", "2", "--dt", "0.01")
    assert code == EXIT_FINDINGS
    assert err.strip().splitlines()[-1].endswith("no simulable vehicle: no prim with PhysxVehicleAPI")


@pytest.mark.parametrize("target", ["physx34", "physx-snippet"])
def test_convert_to_a_physx_target_says_why_when_every_vehicle_is_rejected(capfd, tmp_path, target):
    path = _two_rejected_cars(tmp_path)
    extra = ["-o", str(tmp_path / "out")] if target == "physx-snippet" else []
    code, _out, err = cli(capfd, "convert", "--target", target, str(path), *extra)
    assert code == EXIT_FINDINGS
    assert "error V14 /World/Car/Wheel0.physxVehicleWheel:radius" in err
    assert "no vehicle to convert: the stage has 2 vehicle(s) and every one was left out" in err


# -- internal errors become one clean line --------------------------------------------------------------

SNIPPET = Path(__file__).resolve().parent / "data" / "snippet_car"


def _snippet_copy(tmp_path, name: str, edit) -> Path:
    """The fixture snippet folder with one file changed: `edit` takes its text (str) or its data (dict)."""
    import shutil

    folder = tmp_path / "snippet"
    shutil.copytree(SNIPPET, folder)
    path = folder / name
    text = path.read_text()
    try:
        changed = edit(text)
    except TypeError:
        changed = json.dumps(edit(json.loads(text)))
    path.write_text(changed)
    return folder


def _one_clean_error_line(code: int, err: str, *words: str) -> None:
    assert code == EXIT_USAGE
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and "internal error" not in err
    for word in words:
        assert word in lines[0]


@pytest.mark.parametrize("text, words", [
    ("[" * 100000 + "]" * 100000, ("Base.json", "nested too deeply")),
    ('{"x": ' + "9" * 5000 + "}", ("Base.json", "cannot be read")),
])
def test_import_snippet_refuses_unreadable_json_in_one_line(capfd, tmp_path, text, words):
    folder = _snippet_copy(tmp_path, "Base.json", lambda _: text)
    code, _out, err = cli(capfd, "import-snippet", str(folder), "-o", str(tmp_path / "car.usda"))
    _one_clean_error_line(code, err, *words)
    assert not (tmp_path / "car.usda").exists()


def test_import_snippet_refuses_an_empty_torque_curve_rather_than_write_what_validate_rejects(capfd, tmp_path):
    def empty_curve(data: dict) -> dict:
        data["EngineParams"]["TorqueCurve"] = []
        return data
    folder = _snippet_copy(tmp_path, "EngineDrive.json", empty_curve)
    code, _out, err = cli(capfd, "import-snippet", str(folder), "-o", str(tmp_path / "car.usda"))
    _one_clean_error_line(code, err, "EngineDrive.json", "TorqueCurve", "at least one")


def test_import_snippet_refuses_multipliers_it_would_cut(capfd, tmp_path):
    def many(data: dict) -> dict:
        data["BrakeCommandResponseParams"]["WheelResponseMultipliers"] += [1.0] * 1000
        return data
    folder = _snippet_copy(tmp_path, "Base.json", many)
    code, _out, err = cli(capfd, "import-snippet", str(folder), "-o", str(tmp_path / "car.usda"))
    _one_clean_error_line(code, err, "Base.json", "WheelResponseMultipliers")


def test_new_refuses_usdz_in_one_line(capfd, tmp_path):
    code, _out, err = cli(capfd, "new", "car", str(tmp_path / "x.usdz"))
    _one_clean_error_line(code, err, "x.usdz", ".usda")


@pytest.mark.parametrize("command", [["new", "car"], ["convert", str(SNIPPET.parent.parent.parent / "samples/car/car.usda"),
                                                       "-o"]])
def test_an_output_under_a_file_is_one_clean_line(capfd, tmp_path, command):
    (tmp_path / "afile").write_text("")
    code, _out, err = cli(capfd, *command, str(tmp_path / "afile" / "x.usda"))
    _one_clean_error_line(code, err, "afile is a file, not a folder")


def test_meters_per_unit_zero_is_no_internal_error_anywhere(capfd, tmp_path):
    from stage_factory import car_spec, preset_stage

    stage = preset_stage(car_spec(name="Car"))
    stage.SetMetadata("metersPerUnit", 0.0)
    path = tmp_path / "zero.usda"
    stage.GetRootLayer().Export(str(path))
    for args in (["validate", str(path)], ["convert", str(path)], ["inspect", str(path)],
                 ["simulate", str(path), "--steps", "2", "--dt", "0.01"]):
        _code, out, err = cli(capfd, *args)
        assert "internal error" not in err and "ZeroDivisionError" not in out + err, args
        assert "metersPerUnit 0.0 is not a finite positive number" in " ".join((out + err).split()), args


# -- wheel collision shapes that touch the ground -------------------------------------------------------

def test_a_wheel_shape_whose_groups_let_it_touch_the_ground_is_a_finding(tmp_path):
    from pxr import Usd

    from physxvehicle_usd.validate import validate_file

    sample = SNIPPET.parent.parent.parent / "samples" / "basic_car" / "basic_car.usda"
    clean = [f for f in validate_file(str(sample)).findings if f.code in ("A03", "A07")]
    assert clean == []
    stage = Usd.Stage.Open(str(sample))
    # the ground's group no longer filters the wheels' group (and the wheels' group never listed the ground's)
    stage.GetPrimAtPath("/World/GroundSurfaceCollisionGroup").GetRelationship("physics:filteredGroups").SetTargets(
        [Sdf.Path("/World/GroundSurfaceCollisionGroup")])
    path = tmp_path / "touching.usda"
    stage.GetRootLayer().Export(str(path))
    found = [f for f in validate_file(str(path)).findings if f.code == "A07"]
    assert sorted(f.prim for f in found) == sorted(f"/World/BasicCar/{w}/Collision" for w in
                                                   ("LeftWheel1", "RightWheel1", "LeftWheel2", "RightWheel2"))
    assert all(f.severity == Severity.WARNING and "/World/VehicleWheelCollisionGroup" in f.message for f in found)


def test_an_inverted_filter_that_lists_only_the_chassis_keeps_the_wheels_off_the_ground(tmp_path):
    from pxr import Usd

    from physxvehicle_usd.validate import validate_file

    sample = SNIPPET.parent.parent.parent / "samples" / "basic_car" / "basic_car.usda"
    stage = Usd.Stage.Open(str(sample))
    stage.GetPrimAtPath("/World/GroundSurfaceCollisionGroup").GetRelationship("physics:filteredGroups").SetTargets(
        [Sdf.Path("/World/GroundSurfaceCollisionGroup")])
    wheels = UsdPhysics.CollisionGroup(stage.GetPrimAtPath("/World/VehicleWheelCollisionGroup"))
    wheels.GetFilteredGroupsRel().SetTargets([Sdf.Path("/World/VehicleGroundQueryGroup")])
    wheels.CreateInvertFilteredGroupsAttr(True)  # touch only the ground query group
    path = tmp_path / "inverted.usda"
    stage.GetRootLayer().Export(str(path))
    assert [f for f in validate_file(str(path)).findings if f.code in ("A03", "A07")] == []
