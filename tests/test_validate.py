"""`physxvehicle-usd validate`: asset checks, report formats, exit codes, parallel runs, UsdValidation."""
from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import SAMPLES, Ran, run_cli
from pxr import Usd, UsdGeom, UsdPhysics, UsdValidation
from stage_factory import set_property

from physxvehicle_usd import properties as P
from physxvehicle_usd.diagnostics import Severity
from physxvehicle_usd.validate import validate_file, validate_paths
from physxvehicle_usd.validate.report import exit_code

CAR = SAMPLES / "car" / "car.usda"


def _cli(capfd, *args: str) -> Ran:
    """`physxvehicle-usd validate ARGS` in this process (tests/test_hostile.py runs it once in a fresh one)."""
    return run_cli(capfd, "validate", *args)


def _car_copy(folder: Path, name: str = "car.usda") -> Path:
    """A flattened copy of the sample car that tests can break without touching the sample."""
    path = folder / name
    Usd.Stage.Open(str(CAR)).Export(str(path))
    return path


def _edit(path: Path, change) -> Path:
    stage = Usd.Stage.Open(str(path))
    change(stage)
    stage.GetRootLayer().Save()
    return path


def _codes(path: Path) -> dict[str, list]:
    result = validate_file(str(path))
    codes: dict[str, list] = {}
    for f in result.findings:
        codes.setdefault(f.code, []).append(f)
    return codes


def test_sample_car_is_clean(tmp_path):
    result = validate_file(str(CAR))
    assert result.status == "ok", [f.line() for f in result.findings]
    assert result.vehicles == ["/World/Car"]


def test_wheels_without_drive_are_flagged(tmp_path):
    def remove_drive(stage):
        car = stage.GetPrimAtPath("/World/Car")
        car.GetRelationship(P.full_name(P.VEHICLE, "drive")).ClearTargets(True)
        for schema in (P.CONTROLLER, P.STEERING, P.ACKERMANN, P.MULTI_DIFF):
            car.RemoveAPI(schema)
        for instance in ("brakes0", "brakes1"):
            car.RemoveAPI(P.BRAKES, instance)
    codes = _codes(_edit(_car_copy(tmp_path), remove_drive))
    (finding,) = codes["A01"]
    assert finding.prim == "/World/Car" and finding.property == P.full_name(P.VEHICLE, "drive")


def test_unreferenced_component_is_flagged(tmp_path):
    def add_orphan(stage):
        stage.DefinePrim("/World/CarParts/SpareTire").ApplyAPI(P.TIRE)
    codes = _codes(_edit(_car_copy(tmp_path), add_orphan))
    assert [f.prim for f in codes["A02"]] == ["/World/CarParts/SpareTire"]


def test_wheel_shape_outside_any_collision_group_is_flagged(tmp_path):
    def add_shape(stage):
        shape = UsdGeom.Cylinder.Define(stage, "/World/Car/FrontLeftWheel/Shape")
        UsdPhysics.CollisionAPI.Apply(shape.GetPrim())
    codes = _codes(_edit(_car_copy(tmp_path), add_shape))
    assert [f.prim for f in codes["A03"]] == ["/World/Car/FrontLeftWheel/Shape"]


def test_wheel_group_check_filters_with_the_membership_the_reader_worked_out(tmp_path):
    """A07 from the collider -> groups map the reader leaves on the description (not written to JSON), the same
    findings as when the check walks the stage's groups itself."""
    from physxvehicle_usd.read import read_stage
    from physxvehicle_usd.validate.checks import check_wheel_collision_setup

    def add_grouped_shape(stage):
        shape = UsdGeom.Cylinder.Define(stage, "/World/Car/FrontLeftWheel/Shape")
        UsdPhysics.CollisionAPI.Apply(shape.GetPrim())
        group = UsdPhysics.CollisionGroup.Define(stage, "/World/WheelGroup")
        group.GetCollidersCollectionAPI().CreateIncludesRel().AddTarget(shape.GetPath())
    path = _edit(_car_copy(tmp_path), add_grouped_shape)
    stage = Usd.Stage.Open(str(path))
    description = read_stage(stage)
    assert description.colliderGroups["/World/Car/FrontLeftWheel/Shape"] == ["/World/WheelGroup"]
    assert "colliderGroups" not in description.to_json()
    found = list(check_wheel_collision_setup(stage, description))
    assert [(f.code, f.prim) for f in found] == [("A07", "/World/Car/FrontLeftWheel/Shape")]
    description.colliderGroups = None  # as where the reader had no collider to work it out for
    assert list(check_wheel_collision_setup(stage, description)) == found


def test_ground_without_material_and_stage_without_ground(tmp_path):
    def unbind(stage):
        stage.GetPrimAtPath("/World/GroundPlane").GetRelationship("material:binding:physics").ClearTargets(True)
    codes = _codes(_edit(_car_copy(tmp_path, "a.usda"), unbind))
    assert [(f.prim, f.property) for f in codes["A05"]] == [("/World/GroundPlane", "material:binding:physics")]

    def no_ground(stage):
        stage.RemovePrim("/World/GroundPlane")
    codes = _codes(_edit(_car_copy(tmp_path, "b.usda"), no_ground))
    assert len(codes["A04"]) == 1


def test_vehicle_without_physics_scene_is_a_warning_saying_what_will_happen(tmp_path):
    # omni.physx creates a default scene on load (and `simulate` simulates the car): not an error
    path = _edit(_car_copy(tmp_path), lambda stage: stage.RemovePrim("/World/PhysicsScene"))
    result = validate_file(str(path))
    found = [f for f in result.findings if f.code == "A06"]
    assert [f.severity for f in found] == [Severity.WARNING]
    assert "default scene" in found[0].message and "simulate" in found[0].message
    assert exit_code([result], strict=True) == 1


def test_parser_rule_names_prim_and_property_and_fails(tmp_path, capfd):
    def bad_radius(stage):
        stage.GetPrimAtPath("/World/CarParts/Wheel").GetAttribute(P.full_name(P.WHEEL, "radius")).Set(-1.0)
    path = _edit(_car_copy(tmp_path), bad_radius)
    proc = _cli(capfd, str(path))
    assert proc.returncode == 1
    assert f"{path}: error V14 /World/CarParts/Wheel.{P.full_name(P.WHEEL, 'radius')}:" in proc.stdout
    assert "Traceback" not in proc.stderr


@pytest.fixture()
def mixed_folder(tmp_path) -> Path:
    folder = tmp_path / "assets"
    (folder / "nested").mkdir(parents=True)
    shutil.copy(CAR, folder / "car.usda")
    _car_copy(folder / "nested", "flat.usda")
    broken = _car_copy(folder / "nested", "broken.usda")
    _edit(broken, lambda s: s.GetPrimAtPath("/World/Car").GetAttribute(P.full_name(P.VEHICLE, "lowForwardSpeedSubStepCount")).Set(0))
    (folder / "garbage.usda").write_bytes(b"\x00\xffnot usd at all")
    usdc = folder / "truncated.usdc"
    Usd.Stage.Open(str(CAR)).Export(str(usdc))
    usdc.write_bytes(usdc.read_bytes()[:200])
    (folder / "missing_sublayer.usda").write_text('#usda 1.0\n(\n    subLayers = [@does_not_exist.usda@]\n)\n')
    (folder / "notes.txt").write_text("not a USD file, not picked up")
    return folder


def test_mixed_folder_exit_code_and_every_file_reported(mixed_folder, capfd):
    proc = _cli(capfd, str(mixed_folder))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    for name in ("garbage.usda", "truncated.usdc", "missing_sublayer.usda"):
        assert re.search(rf"{re.escape(name)}: error UNREADABLE /: .+", proc.stdout), proc.stdout
    assert "broken.usda: error V74 /World/Car.physxVehicle:lowForwardSpeedSubStepCount" in proc.stdout
    assert "notes.txt" not in proc.stdout
    assert proc.stdout.strip().splitlines()[-1].startswith("6 files, 3 vehicles: ")
    assert "Traceback" not in proc.stderr + proc.stdout


def test_json_report_parses_back(mixed_folder, capfd):
    proc = _cli(capfd, str(mixed_folder), "--format", "json")
    report = json.loads(proc.stdout)
    statuses = {Path(f["file"]).name: f["status"] for f in report["files"]}
    assert statuses == {"car.usda": "ok", "flat.usda": "ok", "broken.usda": "findings", "garbage.usda": "unreadable",
                        "truncated.usdc": "unreadable", "missing_sublayer.usda": "unreadable"}
    assert all(set(f) >= {"file", "severity", "code", "prim", "property", "message"} for f in report["findings"])
    assert report["summary"]["unreadable"] == 3


def test_junit_report_parses_back(mixed_folder, capfd):
    proc = _cli(capfd, str(mixed_folder), "--format", "junit")
    root = ET.fromstring(proc.stdout)
    suites = {Path(s.get("name")).name: s for s in root.iter("testsuite")}
    broken = suites["broken.usda"]
    vehicle_case = next(c for c in broken.iter("testcase") if c.get("name") == "/World/Car")
    assert [f.get("type") for f in vehicle_case.iter("failure")] == ["V74"]
    assert suites["garbage.usda"].find("testcase/error") is not None
    assert suites["car.usda"].get("failures") == "0"


def test_github_annotations(mixed_folder, capfd):
    proc = _cli(capfd, str(mixed_folder), "--format", "github")
    lines = proc.stdout.strip().splitlines()
    annotations = [line for line in lines if line.startswith("::")]
    assert any(re.match(r"::error file=.*broken\.usda,title=V74 /World/Car\.physxVehicle%3AlowForwardSpeedSubStepCount::", a)
               for a in annotations), annotations
    assert sum(a.startswith("::error") and "UNREADABLE" in a for a in annotations) == 3


def test_strict_fails_on_warnings(tmp_path, capfd):
    path = _edit(_car_copy(tmp_path), lambda s: s.DefinePrim("/World/CarParts/Spare").ApplyAPI(P.WHEEL))
    assert _cli(capfd, str(path)).returncode == 0
    assert _cli(capfd, str(path), "--strict").returncode == 1


def test_parallel_agrees_with_serial(mixed_folder):
    serial = validate_paths([str(mixed_folder)], jobs=1)
    parallel = validate_paths([str(mixed_folder)], jobs=2)
    assert [(r.file, r.status, [f.line() for f in r.findings]) for r in serial] == \
           [(r.file, r.status, [f.line() for f in r.findings]) for r in parallel]


def test_report_written_atomically_to_file(mixed_folder, tmp_path, capfd):
    out = tmp_path / "report.xml"
    proc = _cli(capfd, str(mixed_folder), "--format", "junit", "-o", str(out))
    assert proc.returncode == 2 and proc.stdout == ""
    ET.parse(out)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".report.xml.")]


def test_usage_errors_exit_2(capfd):
    assert _cli(capfd).returncode == 2
    assert _cli(capfd, "--format", "yaml", str(CAR)).returncode == 2


def test_usd_validation_context_runs_our_validators(tmp_path):
    from physxvehicle_usd.validate import usd_validation

    path = _edit(_car_copy(tmp_path), lambda s: s.GetPrimAtPath("/World/Car").GetAttribute(
        P.full_name(P.VEHICLE, "lowForwardSpeedSubStepCount")).Set(0))
    stage = Usd.Stage.Open(str(path))
    errors = UsdValidation.ValidationContext(usd_validation.validators()).Validate(stage)
    named = {e.GetName(): e for e in errors}
    assert named["V74"].GetType() == UsdValidation.ValidationErrorType.Error
    (site,) = named["V74"].GetSites()
    assert site.GetProperty().GetPath() == "/World/Car.physxVehicle:lowForwardSpeedSubStepCount"

    prim_level = UsdValidation.ValidationContext(usd_validation.validators(prim_level=True)).Validate(stage)
    assert "V74" in {e.GetName() for e in prim_level}
    registry = UsdValidation.ValidationRegistry()
    assert registry.HasValidator(usd_validation.STAGE_VALIDATOR)
    clean = UsdValidation.ValidationContext(usd_validation.validators()).Validate(Usd.Stage.Open(str(CAR)))
    assert not [e for e in clean if e.GetType() == UsdValidation.ValidationErrorType.Error]


def test_every_sample_validates_clean_even_strictly(capfd):
    """Every sample but the drive cycle, which warns that ovphysx will not drive it (A08, its only finding)."""
    samples = sorted(str(p) for p in SAMPLES.glob("*/*.usda") if p.name != "drive_cycle.usda")
    proc = _cli(capfd, *samples, "--strict")
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.strip().endswith("0 errors, 0 warnings, 0 unreadable")
    assert [f.code for f in validate_file(str(SAMPLES / "car" / "drive_cycle.usda")).findings] == ["A08"]


_OVPHYSX = __import__("importlib").util.find_spec("ovphysx")
OVPHYSX_SAMPLE = Path(_OVPHYSX.origin if _OVPHYSX else ".").parent / "samples" / "data" / "vehicle_read_write.usda"


@pytest.mark.skipif(not OVPHYSX_SAMPLE.is_file(), reason="ovphysx (the test extra) is not installed")
def test_nvidia_sample_warns_that_ovphysx_rides_it_higher():
    """NVIDIA's sample authors referenceFrameIsCenterOfMass = False with the centre of mass 0.25 below the prim
    origin (Y up): ovphysx takes the frames as centre-of-mass relative, so each car rides 0.25 higher there."""
    found = _codes(OVPHYSX_SAMPLE)
    assert sorted(f.prim for f in found["A08"]) == ["/World/Basic", "/World/Raw", "/World/Standard", "/World/Tank"]
    for finding in found["A08"]:
        assert finding.severity == Severity.WARNING
        assert "referenceFrameIsCenterOfMass = False" in finding.message
        assert "(0, -0.25, 0)" in finding.message and "rides 0.25 higher" in finding.message
        assert "simulate --as ovphysx" in finding.message


def test_portability_warning_says_each_way_the_readings_differ(tmp_path):
    """A centre of mass off the origin, a nonlinear steer response and a controller with time samples: one A08
    on the vehicle naming all three; none where the two readings agree."""
    def diverge(stage):
        car = stage.GetPrimAtPath("/World/Car")
        UsdPhysics.MassAPI(car).GetCenterOfMassAttr().Set((0.0, 0.0, 0.1))
        car.ApplyAPI(P.NCR, "steer")
        for base, value in (("commandValues", [1.0]), ("speedResponsesPerCommandValue", [0]),
                            ("speedResponses", [(0.0, 1.0), (30.0, 0.2)])):
            set_property(car, P.NCR, base, value, "steer")
        car.GetAttribute(P.full_name(P.CONTROLLER, "accelerator")).Set(0.5, 12.0)
    found = _codes(_edit(_car_copy(tmp_path), diverge))
    [finding] = found["A08"]
    assert finding.prim == "/World/Car" and finding.severity == Severity.WARNING
    for says in ("(1) ovphysx ignores the custom data", "rides 0.1 lower", "(2) ovphysx applies no nonlinear",
                 "(3) ovphysx reads the controller attributes once", "physxVehicleController:accelerator (1)"):
        assert says in finding.message, finding.message
    assert "A08" not in _codes(_car_copy(tmp_path, "clean.usda"))
