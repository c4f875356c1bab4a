"""Hostile and broken inputs: reading, converting and validating never raise, never print a traceback,
and every finding names the file, the prim and (where there is one) the property.

Small files are authored here from the sample car; the big ones (10 million array entries, 100,000 prims,
deep hierarchies) are generated into a temporary folder rather than committed. The default run takes them a
hundredth (array) and a tenth (prims) as big; the full sizes are soak tests (pytest -m soak).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import hostile_corpus  # noqa: E402
from pxr import Sdf, Usd, Vt

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.validate import validate_file

CAR = SAMPLES / "car" / "car.usda"
WHEEL = "/World/CarParts/Wheel"
FRONT_TIRE = "/World/CarParts/FrontTire"
ENGINE = "/World/CarParts/Engine"
GEARS = "/World/CarParts/Gears"


def _fresh_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "physxvehicle_usd", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def _car_layer_copy(folder: Path, name: str) -> Sdf.Layer:
    layer = Sdf.Layer.FindOrOpen(str(CAR))
    copy = Sdf.Layer.CreateNew(str(folder / name))
    copy.TransferContent(layer)
    return copy


def _author(layer: Sdf.Layer, prim_path: str, name: str, type_name, value) -> None:
    spec = layer.GetPrimAtPath(prim_path)
    attr = spec.properties.get(name) if spec.properties.get(name) is not None else None
    if attr is not None:
        spec.RemoveProperty(attr)
    attr = Sdf.AttributeSpec(spec, name, type_name)
    attr.default = value


# -- value-level hostility: each case yields the finding the reader must report ---------------------------

def _string_for_float(layer):
    _author(layer, ENGINE, P.full_name(P.ENGINE, "peakTorque"), Sdf.ValueTypeNames.String, "very strong")
    return "TYPE", ENGINE, P.full_name(P.ENGINE, "peakTorque")


def _scalar_for_array(layer):
    _author(layer, GEARS, P.full_name(P.GEARS, "ratios"), Sdf.ValueTypeNames.Float, 4.0)
    return "TYPE", GEARS, P.full_name(P.GEARS, "ratios")


def _nan_radius(layer):
    _author(layer, WHEEL, P.full_name(P.WHEEL, "radius"), Sdf.ValueTypeNames.Float, float("nan"))
    return "NONFINITE", WHEEL, P.full_name(P.WHEEL, "radius")


def _inf_spring(layer):
    spec = "/World/CarParts/FrontSuspension"
    _author(layer, spec, P.full_name(P.SUSPENSION, "springStrength"), Sdf.ValueTypeNames.Float, float("inf"))
    return "NONFINITE", spec, P.full_name(P.SUSPENSION, "springStrength")


def _negative_infinite_curve(layer):
    _author(layer, ENGINE, P.full_name(P.ENGINE, "torqueCurve"), Sdf.ValueTypeNames.Float2Array,
            Vt.Vec2fArray([(0.0, 1.0), (float("-inf"), 1.0)]))
    return "NONFINITE", ENGINE, P.full_name(P.ENGINE, "torqueCurve")


def _table_rel_to_nothing(layer):
    rel = layer.GetPrimAtPath(FRONT_TIRE).relationships[P.full_name(P.TIRE, "frictionTable")]
    rel.targetPathList.explicitItems = [Sdf.Path("/World/NoSuchTable")]
    return "V26", FRONT_TIRE, P.full_name(P.TIRE, "frictionTable")


def _table_rel_to_wrong_kind(layer):
    rel = layer.GetPrimAtPath(FRONT_TIRE).relationships[P.full_name(P.TIRE, "frictionTable")]
    rel.targetPathList.explicitItems = [Sdf.Path("/World/GroundPlane")]
    return "V26", FRONT_TIRE, P.full_name(P.TIRE, "frictionTable")


def _wheel_rel_to_vehicle_itself(layer):
    spec = layer.GetPrimAtPath("/World/Car/FrontLeftWheel")
    rel = spec.relationships[P.full_name(P.ATTACHMENT, "wheel")]
    rel.targetPathList.explicitItems = [Sdf.Path("/World/Car")]
    return "V34", "/World/Car/FrontLeftWheel", P.full_name(P.ATTACHMENT, "wheel")


def _drive_rel_cycle(layer):
    # the vehicle's drive is itself, and the drive's engine is the vehicle: a loop of relationships
    car = layer.GetPrimAtPath("/World/Car")
    car.relationships[P.full_name(P.VEHICLE, "drive")].targetPathList.explicitItems = [Sdf.Path("/World/Car")]
    return "V65", "/World/Car", P.full_name(P.VEHICLE, "drive")


def _wrong_token(layer):
    # the context is rejected; as in PhysX the vehicle itself is still read, with the default context
    _author(layer, "/World/PhysicsScene", P.full_name(P.CONTEXT, "verticalAxis"), Sdf.ValueTypeNames.Token, "sideways")
    return "V03", "/World/PhysicsScene", P.full_name(P.CONTEXT, "verticalAxis")


VALUE_CASES = [_string_for_float, _scalar_for_array, _nan_radius, _inf_spring, _negative_infinite_curve,
               _table_rel_to_nothing, _table_rel_to_wrong_kind, _wheel_rel_to_vehicle_itself, _drive_rel_cycle,
               _wrong_token]


@pytest.mark.parametrize("case", VALUE_CASES, ids=[c.__name__.strip("_") for c in VALUE_CASES])
def test_hostile_values_become_findings(case, tmp_path, capfd):
    layer = _car_layer_copy(tmp_path, "hostile.usda")
    code, prim, prop = case(layer)
    layer.Save()
    result = validate_file(str(tmp_path / "hostile.usda"))
    matching = [f for f in result.findings if f.code == code and f.prim == prim and f.property == prop]
    assert matching, [f.line() for f in result.findings]
    assert matching[0].severity.value == "error"
    proc = run_cli(capfd, "validate", tmp_path / "hostile.usda")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert f"{tmp_path / 'hostile.usda'}: error {code} {prim}.{prop}:" in proc.stdout
    assert "Traceback" not in proc.stderr
    convert = run_cli(capfd, "convert", tmp_path / "hostile.usda")
    assert convert.returncode == 1 and "Traceback" not in convert.stderr
    if prim.startswith("/World/Car") or prim.startswith("/World/CarParts"):
        assert "/World/Car" not in json.loads(convert.stdout)["vehicles"]


# -- file-level hostility -------------------------------------------------------------------------------

def _garbage_usdc(folder: Path) -> Path:
    path = folder / "garbage.usdc"
    path.write_bytes(b"PXR-USDC" + os.urandom(4096))
    return path


def _truncated_usdz(folder: Path) -> Path:
    path = folder / "truncated.usdz"
    inner = folder / "inner.usdc"
    Usd.Stage.Open(str(CAR)).Export(str(inner))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.write(inner, "inner.usdc")
    path.write_bytes(path.read_bytes()[:700])
    return path


def _folder_named_usd(folder: Path) -> Path:
    path = folder / "not_a_file.usda"
    path.mkdir()
    return path


# the corpus's unreadable files (garbage, empty, truncated crate file, missing sublayer) and two more
FILE_CASES = [case.author for case in hostile_corpus.file_cases()] + [_garbage_usdc, _truncated_usdz]


@pytest.mark.parametrize("case", FILE_CASES, ids=[c.__name__.strip("_") for c in FILE_CASES])
def test_unreadable_files_exit_2_with_one_line(case, tmp_path, capfd):
    path = case(tmp_path)
    for command in (["validate"], ["convert"], ["schemas"]):
        proc = run_cli(capfd, *command, path)
        assert proc.returncode == 2, (command, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr + proc.stdout
        message = proc.stdout + proc.stderr
        assert path.name in message


def test_a_fresh_process_reports_hostile_input_in_one_line(tmp_path):
    # the tests above run the command line in the test's process; here once as a user runs it
    hostile = tmp_path / "hostile.usda"
    layer = _car_layer_copy(tmp_path, hostile.name)
    code, prim, prop = _nan_radius(layer)
    layer.Save()
    proc = _fresh_cli("validate", hostile)
    assert proc.returncode == 1 and f"{hostile}: error {code} {prim}.{prop}:" in proc.stdout, proc.stdout + proc.stderr
    garbage = hostile_corpus.file_cases()[0].author(tmp_path)  # garbage bytes
    for command in ("validate", "convert", "schemas"):
        proc = _fresh_cli(command, garbage)
        assert proc.returncode == 2 and garbage.name in proc.stdout + proc.stderr, (command, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr + proc.stdout


def test_folder_given_as_file_is_unreadable(tmp_path, capfd):
    path = _folder_named_usd(tmp_path)
    proc = run_cli(capfd, "convert", path)
    assert proc.returncode == 2 and ("folder" in proc.stderr or "directory" in proc.stderr)
    assert "Traceback" not in proc.stderr


def test_missing_reference_is_a_finding_not_a_crash(tmp_path):
    path = tmp_path / "missing_reference.usda"
    path.write_text('#usda 1.0\n(\n    subLayers = [@' + str(CAR) + '@]\n)\n'
                    'over "World" {\n    def Xform "Ghost" (references = @./nowhere.usda@</Car>) {}\n}\n')
    result = validate_file(str(path))
    assert result.status == "findings"
    assert any(f.code == "COMPOSITION" and "nowhere.usda" in f.message for f in result.findings)
    assert result.vehicles == ["/World/Car"]


@pytest.mark.parametrize("points", [100_000, pytest.param(10_000_000, marks=pytest.mark.soak)])
def test_huge_array_is_reported_not_choked_on(tmp_path, points):
    layer = _car_layer_copy(tmp_path, "huge.usda")
    layer.Save()
    stage = Usd.Stage.Open(str(tmp_path / "huge.usda"))
    huge = Vt.Vec2fArray(points)  # (0, 0) points
    stage.GetPrimAtPath(ENGINE).GetAttribute(P.full_name(P.ENGINE, "torqueCurve")).Set(huge)
    stage.GetRootLayer().Export(str(tmp_path / "huge.usdc"))
    description = read_stage(str(tmp_path / "huge.usdc"))
    codes = {(d.code, d.prim) for d in description.diagnostics}
    assert ("V51", ENGINE) in codes


@pytest.mark.parametrize("prims", [10_000, pytest.param(100_000, marks=pytest.mark.soak)])
def test_deep_hierarchy_and_many_prims(tmp_path, prims):
    layer = Sdf.Layer.CreateNew(str(tmp_path / "deep.usdc"))
    with Sdf.ChangeBlock():  # prim specs in the layer: a stage's DefinePrim notifies per prim, 20 times slower
        spec = Sdf.PrimSpec(layer, "Root", Sdf.SpecifierDef)
        for depth in range(400):
            spec = Sdf.PrimSpec(spec, f"L{depth}", Sdf.SpecifierDef)
        spec.typeName = "Xform"
        many = Sdf.PrimSpec(layer, "Many", Sdf.SpecifierDef)
        for group in range(prims // 1000):
            parent = Sdf.PrimSpec(many, f"P{group}", Sdf.SpecifierDef)
            for child in range(1000):
                Sdf.PrimSpec(parent, f"C{child}", Sdf.SpecifierDef)
    layer.Save()
    assert len(list(Usd.Stage.Open(layer).Traverse())) == 1 + 400 + 1 + prims // 1000 + prims
    description = read_stage(str(tmp_path / "deep.usdc"))
    assert description.vehicles == {}
    assert not [d for d in description.diagnostics if d.severity.value == "error"]
