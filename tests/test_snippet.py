"""PhysX vehicle snippet files <-> descriptions <-> USD: the sample car as snippet JSON, and round trips.

The fixture in tests/data/snippet_car is written for these tests in the snippet format (Z up, X forward,
centimetres). PhysX's own sample files are read from the mirror when it is there (never copied).
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from conftest import run_cli, stage_over_sample
from pxr import UsdPhysics

from physxvehicle_usd.author.snippet import (
    description_from_snippet,
    import_snippet,
    read_snippet_files,
    stage_from_snippet,
)
from physxvehicle_usd.cli import main
from physxvehicle_usd.description import StageDescription
from physxvehicle_usd.errors import InputError
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.snippet import (
    BASE_FILE,
    CODE_SECTION,
    DIRECT_DRIVE_FILE,
    ENGINE_DRIVE_FILE,
    SnippetFormatError,
    snippet_folder_names,
    snippet_from_description,
)
from physxvehicle_usd.runtime.vehicle2 import build_vehicle_params

REPO = Path(__file__).resolve().parent.parent
CAR = REPO / "samples" / "car" / "car.usda"
CAR_CM = REPO / "samples" / "car_cm" / "car_cm.usda"
FIXTURE = REPO / "tests" / "data" / "snippet_car"
# What USD cannot carry from PhysX's sample files (the snippets' reader ignores the first one anyway).


def assert_same(a, b, where="", rel=1e-6):
    """Equal structure, numbers equal at float32 precision (USD stores floats)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: keys {sorted(a)} != {sorted(b) if isinstance(b, dict) else b}"
        for k in a:
            assert_same(a[k], b[k], f"{where}.{k}", rel)
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{where}: {a} != {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]", rel)
    elif isinstance(a, bool) or isinstance(a, str):
        assert a == b, f"{where}: {a!r} != {b!r}"
    else:
        assert math.isclose(a, b, rel_tol=rel, abs_tol=1e-9), f"{where}: {a} != {b}"


@pytest.fixture(scope="module")
def car() -> StageDescription:
    return read_stage(CAR)


@pytest.fixture(scope="module")
def car_files(car) -> dict:
    return snippet_from_description(car, "/World/Car").files


def test_the_sample_car_becomes_base_and_engine_drive_files(car_files):
    assert sorted(car_files) == [BASE_FILE, ENGINE_DRIVE_FILE]


def test_sample_car_gears_include_neutral_and_the_engine_curve_is_kept(car_files):
    engine_drive = car_files[ENGINE_DRIVE_FILE]
    assert engine_drive["GearboxParams"] == {"NeutralGear": 1, "Ratios": [-4.0, 0.0, 4.0, 2.0, 1.5, 1.1, 1.0],
                                             "FinalRatio": 4.0, "SwitchTime": 0.5}
    assert engine_drive["EngineParams"]["TorqueCurve"] == [[0.0, 0.8], [0.33, 1.0], [1.0, 0.8]]
    assert engine_drive["EngineParams"]["PeakTorque"] == 500.0
    assert engine_drive["EngineParams"]["MaxOmega"] == 600.0
    assert engine_drive["ClutchCommandResponseParams"]["MaxResponse"] == 10.0
    # USD's four up ratios (first .. fourth gear) land on PhysX gears 2..5; down ratios on gears 3..6.
    assert engine_drive["AutoboxParams"]["UpRatios"] == [0.0, 0.0, 0.65, 0.65, 0.65, 0.65, 0.0]
    assert engine_drive["AutoboxParams"]["DownRatios"] == [0.0, 0.0, 0.0, 0.5, 0.5, 0.5, 0.5]
    assert engine_drive["MultiWheelDifferentialParams"]["TorqueRatios"] == [0.25] * 4


def test_sample_car_frame_wheels_suspension_and_sprung_masses(car_files, car):
    base = car_files[BASE_FILE]
    # Z up, X forward: lateral = up x forward = +Y (PxVehicleAxes: 0 +X, 2 +Y, 4 +Z).
    assert base["Frame"] == {"LngAxis": 0, "LatAxis": 2, "VrtAxis": 4}
    assert base["Scale"] == {"Scale": 1.0}
    assert base["AxleDescription"] == [{"WheelIds": [0, 1]}, {"WheelIds": [2, 3]}]
    assert base["RigidBodyParams"] == {"Mass": 1800.0, "MOI": [670.0, 2860.0, 3050.0]}
    assert [w["Radius"] for w in base["WheelParams"]] == [0.343] * 4
    assert [w["HalfWidth"] for w in base["WheelParams"]] == [0.1575] * 4
    assert [s["Stiffness"] for s in base["SuspensionForceParams"]] == [32000.0, 32000.0, 25500.0, 25500.0]
    sprung = [s["SprungMass"] for s in base["SuspensionForceParams"]]
    described = [w.suspension["sprungMass"] for w in sorted(car.vehicles["/World/Car"].wheels, key=lambda w: w.index)]
    assert sprung == pytest.approx(described, rel=1e-7)  # the file holds them at float32 precision
    assert sum(sprung) == pytest.approx(1800.0, rel=1e-5)
    assert sprung[0] > sprung[2]  # the centre of mass is nearer the front axle
    assert base["SuspensionParams"][0]["SuspensionAttachment"] == {"Pos": [1.27, 0.8, -0.14], "Quat": [0.0, 0.0, 0.0, 1.0]}
    assert base["TireForceParams"][0]["RestLoad"] == pytest.approx(sprung[0] * 9.81, rel=1e-6)
    assert base["AckermannParams"] == {"WheelIds": [1, 0], "WheelBase": 2.86, "TrackWidth": 1.6, "Strength": 1.0}
    assert base["HandbrakeCommandResponseParams"]["WheelResponseMultipliers"] == [0.0, 0.0, 1.0, 1.0]


def test_centimetre_car_gives_the_same_vehicle_at_scale_100(car_files):
    cm = snippet_from_description(read_stage(CAR_CM), "/World/Car").files
    assert cm[BASE_FILE]["Scale"] == {"Scale": 100.0}
    assert cm[BASE_FILE]["WheelParams"][0]["Radius"] == pytest.approx(34.3, rel=1e-6)
    assert cm[BASE_FILE]["WheelParams"][0]["MOI"] == pytest.approx(1.17e4, rel=1e-6)
    assert cm[BASE_FILE]["SuspensionForceParams"][0]["Stiffness"] == 32000.0  # N/m = kg/s^2: no length in it
    assert cm[BASE_FILE]["RigidBodyParams"]["Mass"] == 1800.0
    assert cm[ENGINE_DRIVE_FILE]["EngineParams"]["PeakTorque"] == pytest.approx(500.0e4, rel=1e-6)
    assert cm[ENGINE_DRIVE_FILE]["GearboxParams"] == car_files[ENGINE_DRIVE_FILE]["GearboxParams"]


def test_kilograms_per_unit_is_folded_into_the_masses(tmp_path):
    grams = stage_over_sample(tmp_path / "grams.usda", lambda stage: UsdPhysics.SetStageKilogramsPerUnit(stage, 0.001))
    files = snippet_from_description(read_stage(grams), "/World/Car").files
    # The same numbers read as grams are a thousandth of the kilograms the format holds.
    assert files[BASE_FILE]["RigidBodyParams"]["Mass"] == pytest.approx(1.8)
    assert files[ENGINE_DRIVE_FILE]["EngineParams"]["PeakTorque"] == pytest.approx(0.5)


@pytest.mark.parametrize("drive", ["engine", "direct"])
def test_snippet_to_usd_to_snippet_gives_the_fixture_back(drive):
    files = read_snippet_files(FIXTURE, drive)
    imported = stage_from_snippet(FIXTURE, units="cm", drive=drive)
    description = read_stage(imported.stage)
    assert [d for d in description.diagnostics if d.severity.value != "info"] == []
    again = snippet_from_description(description, imported.vehicle_path).files
    assert sorted(again) == sorted(files)
    # PhysX's files set these in code; the export writes what the import gave the vehicle: Omni's defaults
    code = again[BASE_FILE].pop(CODE_SECTION)
    assert code["Vehicle"]["lowForwardSpeedSubStepCount"] == 3 and code["Vehicle"]["highForwardSpeedSubStepCount"] == 1
    assert any(CODE_SECTION in note for note in imported.notes)
    for name in files:
        assert_same(files[name], again[name], name)


def test_metre_import_of_the_centimetre_fixture_scales_lengths_not_masses():
    imported = stage_from_snippet(FIXTURE, units="m")
    files = snippet_from_description(read_stage(imported.stage), imported.vehicle_path).files
    base, engine = files[BASE_FILE], files[ENGINE_DRIVE_FILE]
    assert base["Scale"] == {"Scale": 1.0}
    assert base["WheelParams"][0]["Radius"] == pytest.approx(0.33)
    assert base["WheelParams"][0]["MOI"] == pytest.approx(1.0)
    assert base["WheelParams"][0]["Mass"] == 18.0
    assert base["SuspensionForceParams"][0]["Stiffness"] == 30000.0
    assert base["TireForceParams"][0]["RestLoad"] == pytest.approx(3924.0)
    assert base["BrakeCommandResponseParams"]["NonLinearResponse"][0]["ResponseCurve"][1] == pytest.approx([20.0, 0.625])
    assert engine["EngineParams"]["PeakTorque"] == pytest.approx(400.0)


def test_imported_fixture_stage_places_the_car_on_the_ground_at_rest():
    imported = stage_from_snippet(FIXTURE, units="m")
    vehicle = read_stage(imported.stage).to_json()["vehicles"][imported.vehicle_path]
    height = vehicle["rigidBody"]["position"][2]
    # front: jounce 400*9.81/30000 = 0.1308 of 0.2 travel; wheel centre at -0.12 - (0.2 - 0.1308); radius 0.33
    assert height == pytest.approx(0.33 + 0.12 + 0.2 - 400 * 9.81 / 30000, rel=1e-5)
    assert vehicle["context"]["verticalAxis"] == "posZ" and vehicle["context"]["longitudinalAxis"] == "posX"
    assert vehicle["ackermannSteering"]["wheel0"] == 1  # the wheel on the negative lateral side (-Y)
    assert vehicle["drive"]["type"] == "standard"


def test_usd_to_snippet_to_usd_keeps_what_the_format_carries(tmp_path, car, car_files):
    folder = tmp_path / "Car"
    folder.mkdir()
    for name, data in car_files.items():
        (folder / name).write_text(json.dumps(data))
    output = tmp_path / "car_again.usda"
    result = import_snippet(folder, output)
    again = read_stage(output)
    assert [d for d in again.diagnostics if d.severity.value == "error"] == []
    original = car.to_json()["vehicles"]["/World/Car"]
    copy = again.to_json()["vehicles"][result.vehicle_path]
    assert_same(copy["rigidBody"]["mass"], original["rigidBody"]["mass"])
    assert_same(copy["rigidBody"]["diagonalInertia"], original["rigidBody"]["diagonalInertia"])
    for key in ("engine", "gears", "clutch", "autoGearBox"):
        assert_same(copy["drive"][key], original["drive"][key], key)
    assert_same(copy["ackermannSteering"], original["ackermannSteering"], "ackermann")
    for w_copy, w_orig in zip(copy["wheels"], original["wheels"], strict=True):
        for block, keys in (("wheel", ("radius", "width", "mass", "moi", "dampingRate")),
                            ("suspension", ("springStrength", "springDamperRate", "travelDistance", "sprungMass")),
                            ("tire", ("lateralStiffnessGraph", "longitudinalStiffness", "camberStiffness",
                                      "frictionVsSlipGraph", "restLoad")),
                            ("attachment", ("suspensionFramePosition", "suspensionTravelDirection")),
                            ("compliance", ("suspensionForceAppPoint", "tireForceAppPoint"))):
            for key in keys:
                assert_same(w_copy[block][key], w_orig[block][key], f"wheel {w_orig['index']} {block}.{key}")
    # Brakes are written per wheel; what PhysX gets (max torque x multiplier per wheel) is the same.
    params_copy = build_vehicle_params(again, result.vehicle_path)
    params_orig = build_vehicle_params(car, "/World/Car")
    for k in (0, 1):
        assert params_copy.brakes[k].max_response == params_orig.brakes[k].max_response
        assert params_copy.brakes[k].wheel_multipliers == params_orig.brakes[k].wheel_multipliers
    assert_same(snippet_from_description(again, result.vehicle_path).files, car_files, "files")


def test_direct_drive_throttle_becomes_basic_drive_with_differential_and_response():
    imported = description_from_snippet(read_snippet_files(FIXTURE, "direct"), meters_per_unit=0.01)
    vehicle = imported.description.vehicles["/World/Vehicle"]
    assert vehicle.drive.type == "basic"
    assert vehicle.drive.basic["peakTorque"] == 8.0e6
    assert vehicle.multiWheelDifferential["torqueRatios"] == [0.0, 0.0, 1.0, 1.0]
    response = vehicle.nonlinearCommandResponses["drive"]
    assert response["commandValues"] == [0.5, 1.0]
    assert response["speedResponsesPerCommandValue"] == [0, 3]


def test_throttle_multipliers_above_one_move_into_the_peak_torque():
    files = read_snippet_files(FIXTURE, "direct")
    files[DIRECT_DRIVE_FILE]["ThrottleCommandResponseParams"]["WheelResponseMultipliers"] = [0.0, 0.0, 2.0, 1.0]
    imported = description_from_snippet(files, meters_per_unit=0.01)
    vehicle = imported.description.vehicles["/World/Vehicle"]
    assert vehicle.drive.basic["peakTorque"] == 16.0e6
    assert vehicle.multiWheelDifferential["torqueRatios"] == [0.0, 0.0, 1.0, 0.5]
    assert any("peak torque" in note for note in imported.notes)


def test_steer_multipliers_that_do_not_fit_ackermann_give_plain_steering():
    files = read_snippet_files(FIXTURE)
    files[BASE_FILE]["SteerCommandResponseParams"]["WheelResponseMultipliers"] = [1.0, 1.0, -0.25, -0.25]
    imported = description_from_snippet(files, meters_per_unit=0.01)
    vehicle = imported.description.vehicles["/World/Vehicle"]
    assert vehicle.ackermannSteering is None
    assert vehicle.steering["angleMultipliers"] == [1.0, 1.0, -0.25, -0.25]
    assert any("AckermannParams not imported" in note for note in imported.notes)


@pytest.mark.parametrize("edit, message", [
    (lambda f: f[BASE_FILE].pop("WheelParams"), "WheelParams: missing"),
    (lambda f: f[BASE_FILE]["Frame"].update(LatAxis=3), "not vertical x longitudinal"),
    (lambda f: f[BASE_FILE]["SuspensionForceParams"][1].update(WheelId=0), "distinct wheel id"),
    (lambda f: f[BASE_FILE]["TireForceParams"][0].update(FrictionVsSlip=[[0, 1]]), "exactly 3"),
    (lambda f: f[BASE_FILE]["WheelParams"][0].update(Radius="big"), "finite number"),
    (lambda f: f[ENGINE_DRIVE_FILE]["GearboxParams"].update(NeutralGear=2), "NeutralGear must be 1"),
])
def test_malformed_snippet_files_are_reported_by_file_and_key(edit, message):
    files = read_snippet_files(FIXTURE)
    edit(files)
    with pytest.raises(SnippetFormatError, match=message):
        description_from_snippet(files)


def test_a_folder_without_the_files_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="Base.json is missing"):
        read_snippet_files(tmp_path)
    (tmp_path / BASE_FILE).write_text("{not json")
    shutil.copy(FIXTURE / DIRECT_DRIVE_FILE, tmp_path / DIRECT_DRIVE_FILE)
    with pytest.raises(InputError, match="is not JSON"):
        read_snippet_files(tmp_path)


def test_folder_names_are_prim_names_unless_they_repeat():
    assert snippet_folder_names(["/World/Car", "/World/Truck"]) == {"/World/Car": "Car", "/World/Truck": "Truck"}
    assert snippet_folder_names(["/A/Car", "/B/Car"]) == {"/A/Car": "A_Car", "/B/Car": "B_Car"}


def test_cli_import_snippet_writes_a_stage_that_reads_clean(tmp_path, capsys):
    output = tmp_path / "out" / "car.usda"
    main(["import-snippet", str(FIXTURE), "-o", str(output), "--units", "cm", "--drive", "direct"])
    captured = capsys.readouterr()
    assert "/World/snippet_car" in captured.out
    description = read_stage(output)
    assert description.stage.metersPerUnit == pytest.approx(0.01)
    assert [d for d in description.diagnostics if d.severity.value != "info"] == []
    assert description.vehicles["/World/snippet_car"].drive.type == "basic"
    assert [p.name for p in output.parent.iterdir()] == ["car.usda"]  # no temporary file left behind


def test_cli_import_snippet_bad_folder_exits_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as done:
        main(["import-snippet", str(tmp_path), "-o", str(tmp_path / "x.usda")])
    assert done.value.code == 2
    assert "Base.json is missing" in capsys.readouterr().err
    assert not (tmp_path / "x.usda").exists()


@pytest.mark.parametrize("sample, vehicle", [("car", "Car"), ("truck", "Truck"), ("basic_car", "BasicCar")])
def test_snippet_round_trip_of_a_sample_drives_the_same(tmp_path, capfd, sample, vehicle):
    """convert --target physx-snippet, then import-snippet: the same drive, to the centimetre (the sample car once
    drove 7.43 m against 8.71 m and warned DT_LIMIT: the sub-step counts the snippets set in code were lost; the
    truck's tires got the snippets' friction 1.0 for its 0.75)."""
    stage = REPO / "samples" / sample / f"{sample}.usda"

    def drive(path) -> tuple[dict, str]:
        ran = run_cli(capfd, "simulate", path, "--steps", 120, "--dt", 1 / 60, "--control", "accelerator=1",
                      "--format", "json")
        assert ran.returncode == 0, ran.stderr
        return json.loads(ran.stdout.splitlines()[-1])["results"][f"/World/{vehicle}"], ran.stderr

    ran = run_cli(capfd, "convert", stage, "--target", "physx-snippet", "-o", tmp_path / "snippet")
    assert ran.returncode == 0, ran.stderr
    assert "pose is not part of the format" in ran.stderr  # what the format cannot carry is said
    ran = run_cli(capfd, "import-snippet", tmp_path / "snippet" / vehicle, "-o", tmp_path / "again.usda")
    assert ran.returncode == 0, ran.stderr
    original, _ = drive(stage)
    again, warnings = drive(tmp_path / "again.usda")
    assert "DT_LIMIT" not in warnings
    assert original["distance_m"] > 2.0
    # to the centimetre the text summary prints: the pose is not in the format, and the import puts the vehicle at
    # rest (the sample car 0.4 mm lower than the sample authors it)
    assert again["distance_m"] == pytest.approx(original["distance_m"], abs=5e-3)
    assert again["forward_speed_ms"] == pytest.approx(original["forward_speed_ms"], abs=5e-3)
    assert again["gear"] == original["gear"]
