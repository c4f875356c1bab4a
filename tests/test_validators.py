"""Inside the validators users run: NVIDIA's (usd-validation-nvidia, `nvidia_usd_validate`) with our rules and
repairs, USD's UsdValidation fixers, and the runtime profiles of `validate --profile`."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, run_cli, run_python
from pxr import Sdf, Usd, UsdValidation

from physxvehicle_usd.diagnostics import Severity
from physxvehicle_usd.read.components import DEFAULT_CONTEXT
from physxvehicle_usd.read.readings import READING_CODE
from physxvehicle_usd.validate import validate_file, validate_paths

sys.path.insert(0, str(REPO / "benchmarks"))
from bench_validators import entry_point_site  # noqa: E402

CAR = SAMPLES / "car" / "car.usda"
DRIVE_CYCLE = SAMPLES / "car" / "drive_cycle.usda"


@pytest.fixture(scope="module")
def no_scene(tmp_path_factory) -> Path:
    """The sample car without its PhysicsScene (and so without its vehicle context)."""
    path = tmp_path_factory.mktemp("no_scene") / "car.usda"
    stage = Usd.Stage.Open(str(CAR))
    stage.RemovePrim("/World/PhysicsScene")
    stage.Export(str(path))
    return path


def _by_code(findings) -> dict[str, list]:
    found: dict[str, list] = {}
    for f in findings:
        found.setdefault(f.code, []).append(f)
    return found


# --- profiles -----------------------------------------------------------------------------------------------------

def test_omniverse_profile_says_what_kit_does_without_a_scene_instead_of_a06(no_scene):
    default = _by_code(validate_file(str(no_scene)).findings)
    kit = _by_code(validate_file(str(no_scene), profiles=["omniverse"]).findings)
    assert "A06" in default and "KIT01" not in default
    assert "A06" not in kit, "KIT01 supersedes A06: said once"
    [finding] = kit["KIT01"]
    assert finding.severity == Severity.WARNING and finding.prim == "/"
    for says in ("temporary PhysicsScene", "9.81", "60 steps per second", "GPU dynamics",
                 f"vertical axis +{DEFAULT_CONTEXT['verticalAxis'][3:]}", "Z-up"):
        assert says in finding.message, finding.message
    assert {c: len(f) for c, f in kit.items() if c != "KIT01"} == {c: len(f) for c, f in default.items() if c != "A06"}


def test_isaac_lab_profile_warns_each_vehicle_and_the_lost_context():
    found = _by_code(validate_file(str(CAR), profiles=["isaac-lab"]).findings)
    [gpu] = found["ISAAC01"]
    assert gpu.prim == "/World/Car" and gpu.severity == Severity.WARNING
    assert "direct-GPU API" in gpu.message and "device='cpu'" in gpu.message
    [scene] = found["ISAAC02"]
    assert "/World/PhysicsScene" in scene.message and "sim.cfg.physics_prim_path" in scene.message
    assert not validate_file(str(CAR)).findings, "the profile's findings are the profile's alone"


def test_ovphysx_profile_puts_each_reading_difference_at_its_attribute_instead_of_a08():
    default = _by_code(validate_file(str(DRIVE_CYCLE)).findings)
    ovphysx = _by_code(validate_file(str(DRIVE_CYCLE), profiles=["ovphysx"]).findings)
    assert list(default) == ["A08"] and "A08" not in ovphysx
    sites = sorted(f.property for f in ovphysx[READING_CODE])
    assert sites == ["physxVehicleController:accelerator", "physxVehicleController:brake0",
                     "physxVehicleController:steer"]
    for finding in ovphysx[READING_CODE]:
        assert finding.severity == Severity.WARNING and finding.prim == "/World/Car"
        assert finding.property.split(":")[1] in default["A08"][0].message  # the summary named every one of them


def test_profile_option_repeated_or_comma_separated_and_unknown_names(capfd, no_scene):
    one = run_cli(capfd, "validate", "--format", "json", "--profile", "isaac-lab,omniverse", no_scene)
    two = run_cli(capfd, "validate", "--format", "json", "--profile", "omniverse", "--profile", "isaac-lab",
                  "--profile", "omniverse", no_scene)
    codes = sorted(f["code"] for f in json.loads(one.stdout)["findings"])
    assert codes == sorted(f["code"] for f in json.loads(two.stdout)["findings"])
    assert {"KIT01", "ISAAC01", "ISAAC02"} <= set(codes) and "A06" not in codes
    bad = run_cli(capfd, "validate", "--profile", "isaac-sim", CAR)
    assert bad.returncode == 2 and "unknown profile 'isaac-sim'" in bad.stderr and "isaac-lab" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_unknown_profile_is_refused_before_any_file_is_read(tmp_path):
    from physxvehicle_usd.errors import InputError

    with pytest.raises(InputError, match="unknown profile"):
        validate_paths([str(tmp_path / "missing.usda")], profiles=["kit"])


# --- usd-validation-nvidia ----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def nvidia():
    """The validator, with our plugin started as its entry point would (in an installed package it already is)."""
    nv = pytest.importorskip("usd_validation_nvidia")
    from physxvehicle_usd.validate import nvidia_rules

    nvidia_rules.NvidiaPlugin().on_startup()
    return nv


def _ours(nv, asset):
    from physxvehicle_usd.validate import nvidia_rules

    engine = nv.ValidationEngine(init_rules=False)
    for rule in nv.CategoryRuleRegistry().get_rules(nvidia_rules.CATEGORY):
        engine.enable_rule(rule)
    return list(engine.validate(str(asset)).issues())


def test_nvidia_rules_are_our_checks_in_one_category(nvidia):
    from physxvehicle_usd.validate import nvidia_rules
    from physxvehicle_usd.validate.checks import ASSET_CHECKS

    names = [rule.__name__ for rule in nvidia.CategoryRuleRegistry().get_rules(nvidia_rules.CATEGORY)]
    assert names == [nvidia_rules.READER_RULE] + [nvidia_rules._rule_name(check) for check in ASSET_CHECKS]
    assert "PhysxVehicleWheelCollisionSetupChecker" in names
    assert nvidia.CategoryRuleRegistry().find_rule("PhysxVehicleSceneChecker").GetDescription().startswith("A06")


def test_nvidia_engine_reports_our_findings_and_none_on_a_clean_car(nvidia, no_scene):
    from physxvehicle_usd.validate import nvidia_rules

    ours = validate_file(str(no_scene)).findings
    issues = _ours(nvidia, no_scene)
    assert sorted((i.code, i.message) for i in issues) == sorted((f.code, f"{f.code}: {f.message}") for f in ours)
    by_code = {i.code: i for i in issues}
    assert by_code["A06"].severity == nvidia.IssueSeverity.WARNING
    assert by_code["A06"].rule.__name__ == "PhysxVehicleSceneChecker"
    assert by_code["V07"].rule.__name__ == nvidia_rules.READER_RULE and by_code["V07"].at.path == "/World/Car"
    errors = [f.code for f in ours if f.severity == Severity.ERROR]
    assert errors and all(by_code[code].severity == nvidia.IssueSeverity.FAILURE for code in errors)
    assert _ours(nvidia, CAR) == []


@pytest.mark.soak  # a fresh interpreter, about 1.5 s of CPU: tests/test_packaging.py loads our rules through the
                  # entry point in the default run
def test_nvidia_usd_validate_finds_our_rules_through_the_entry_point_and_fixes_with_our_repairs(tmp_path, no_scene):
    """`nvidia_usd_validate --fix` as a user runs it: our findings in its JSON report, our repairs applied to the file
    (a physics scene, its vehicle context, the sprung masses PhysX can then compute), which then validates clean."""
    pytest.importorskip("usd_validation_nvidia")
    pytest.importorskip("tomllib")  # Python 3.11 on
    # the entry point as pip would install it, from pyproject.toml (a checkout that is not installed has none)
    site = entry_point_site(tmp_path / "site")
    asset = tmp_path / "car.usda"
    asset.write_bytes(no_scene.read_bytes())
    before = {f.code for f in validate_file(str(asset)).findings}
    assert before == {"A06", "V07", "V142"}, before
    report = tmp_path / "report.json"
    ran = run_python(["-m", "usd_validation_nvidia", "--category", "PhysX Vehicles", "--fix", "--json-output",
                      str(report), str(asset)], env={"PYTHONPATH": f"{REPO}:{site}"}, timeout=120)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    issues = {issue["message"].split(":")[0]: issue for rule in json.loads(report.read_text())["rules"]
              for issue in rule["issues"]}
    assert set(issues) == before
    assert issues["V07"]["at"] == {"type": "PRIM", "path": "/World/Car"}
    assert issues["A06"]["rule"]["name"] == "PhysxVehicleSceneChecker"
    assert issues["A06"]["suggestion"]["message"].startswith("define the PhysicsScene")
    assert "FixStatus.SUCCESS" in ran.stdout and "FixStatus.FAILURE" not in ran.stdout
    assert validate_file(str(asset)).findings == []


def test_nvidia_issue_fixer_applies_our_repairs_in_the_layer_it_chooses(nvidia, tmp_path, no_scene):
    asset = tmp_path / "car.usda"
    asset.write_bytes(no_scene.read_bytes())
    issues = _ours(nvidia, asset)
    assert all(issue.suggestion is not None for issue in issues)
    fixer = nvidia.IssueFixer(str(asset))
    assert [r.status for r in fixer.fix(issues)] == [nvidia.FixStatus.SUCCESS] * len(issues)
    fixer.save()
    assert validate_file(str(asset)).findings == []


# --- UsdValidation ------------------------------------------------------------------------------------------------

def test_usd_validation_validators_stay_registered_and_their_fixer_applies_our_repairs(tmp_path, no_scene):
    from physxvehicle_usd.validate import usd_validation

    asset = tmp_path / "car.usda"
    asset.write_bytes(no_scene.read_bytes())
    stage = Usd.Stage.Open(str(asset))
    errors = UsdValidation.ValidationContext(usd_validation.validators()).Validate(stage)
    assert {e.GetName() for e in errors} == {"A06", "V07", "V142"}
    registry = UsdValidation.ValidationRegistry()
    assert all(registry.HasValidator(name) for name in [usd_validation.STAGE_VALIDATOR, *usd_validation.PRIM_VALIDATORS])
    # the repairs go to a layer of their own over the asset, as `physxvehicle-usd fix` writes them (UsdValidation
    # saves the edit target's layer once a fixer has applied a fix)
    repairs = Sdf.Layer.CreateNew(str(tmp_path / "repairs.usda"))
    stage.GetRootLayer().subLayerPaths.insert(0, repairs.identifier)
    target = Usd.EditTarget(repairs)
    for error in errors:
        [fixer] = error.GetFixers()
        assert fixer.name == usd_validation.FIXER and fixer.CanApplyFix(error, target)
        assert fixer.ApplyFix(error, target)
    assert not UsdValidation.ValidationContext(usd_validation.validators()).Validate(stage)
    assert "def PhysicsScene" in (tmp_path / "repairs.usda").read_text()
    assert asset.read_bytes() == no_scene.read_bytes()
    clean = UsdValidation.ValidationContext(usd_validation.validators()).Validate(Usd.Stage.Open(str(CAR)))
    assert not clean


def test_a_profile_finding_carries_the_repair_of_the_finding_it_supersedes(no_scene):
    default = {f.code: f for f in validate_file(str(no_scene)).findings}
    [kit] = [f for f in validate_file(str(no_scene), profiles=["omniverse"]).findings if f.code == "KIT01"]
    assert kit.fix is not None and kit.fix == default["A06"].fix
