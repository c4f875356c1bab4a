"""`physxvehicle-usd convert`: deterministic JSON with sorted keys that validates against ConvertOutput,
--provenance, --units si, --format text, -o written atomically, and the exit codes (0 clean, 1 errors in
the stage, 2 unreadable input with a one-line message naming the file and no traceback)."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from conftest import run_python
from stage_factory import add_vehicle, new_stage

from physxvehicle_usd import properties as P
from physxvehicle_usd.cli import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, main
from physxvehicle_usd.description import Source
from physxvehicle_usd.outputs.convert import ConvertOutput

REPO = Path(__file__).resolve().parent.parent
CAR = str(REPO / "samples/car/car.usda")
CAR_CM = str(REPO / "samples/car_cm/car_cm.usda")


def convert(capsys, *args: str) -> tuple[int, str, str]:
    """Run the CLI in this process; returns (exit code, stdout, stderr)."""
    try:
        main(["convert", *args])
        code = EXIT_OK
    except SystemExit as done:
        code = done.code
    out, err = capsys.readouterr()
    return code, out, err


def _walk_blocks(data: dict):
    """Every component block of the convert JSON (scene settings, vehicle blocks, wheel blocks, tables)."""
    for scene in data["scenes"].values():
        yield {k: v for k, v in scene.items() if k != "context"}
        if scene["context"]:
            yield scene["context"]
    for vehicle in data["vehicles"].values():
        for key in ("vehicle", "context", "rigidBody", "controller", "steering", "ackermannSteering",
                    "multiWheelDifferential", "tankDifferential", "tankController"):
            if vehicle[key]:
                yield vehicle[key]
        yield from (b for b in vehicle["brakes"].values())
        yield from (b for b in vehicle["nonlinearCommandResponses"].values())
        drive = vehicle["drive"]
        if drive and drive["type"] == "standard":
            yield from (drive[k] for k in ("engine", "gears", "clutch", "autoGearBox") if drive[k])
        elif drive:
            yield {k: v for k, v in drive.items() if k not in ("type", "path")}
        for wheel in vehicle["wheels"]:
            yield from (wheel[k] for k in ("attachment", "wheel", "tire", "suspension", "compliance", "wheelController")
                        if wheel[k])
    yield from data["tireFrictionTables"].values()


@pytest.fixture
def broken_stage(tmp_path) -> str:
    """A file with one valid vehicle and one whose wheel radius is negative."""
    car = new_stage()
    add_vehicle(car, name="Good", shared=False)
    add_vehicle(car, name="Broken")
    car.set(car.parts["Wheel"], P.WHEEL, "radius", -1.0)
    path = tmp_path / "broken.usda"
    car.stage.GetRootLayer().Export(str(path))
    return str(path)


def test_json_is_deterministic_sorted_and_valid(capsys, tmp_path):
    code, first, _ = convert(capsys, CAR)
    assert code == EXIT_OK
    _, second, _ = convert(capsys, CAR)
    assert first == second
    data = json.loads(first)
    assert first == json.dumps(data, sort_keys=True, indent=2) + "\n"   # sorted keys, one canonical layout
    ConvertOutput.model_validate(data)
    assert list(data["vehicles"]) == ["/World/Car"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    convert(capsys, CAR, "-o", str(a), "--provenance")
    convert(capsys, CAR, "-o", str(b), "--provenance")
    assert a.read_bytes() == b.read_bytes()


def test_floats_print_as_authored_and_zeros_keep_their_sign(capsys, tmp_path):
    """float32 values print as their shortest decimal, however often they repeat; -0.0 and 0.0 stay apart."""
    car = new_stage()
    for name, steer in (("A", 0.0), ("B", -0.0), ("C", 0.0)):
        add_vehicle(car, name=name, shared=False, values={(P.CONTROLLER, "steer"): steer, (P.CONTROLLER, "accelerator"): 0.15})
    path = tmp_path / "zeros.usda"
    car.stage.GetRootLayer().Export(str(path))
    code, out, err = convert(capsys, str(path))
    assert code == EXIT_OK, err
    controllers = {p: v["controller"] for p, v in json.loads(out)["vehicles"].items()}
    assert [math.copysign(1.0, c["steer"]) for c in controllers.values()] == [1.0, -1.0, 1.0]
    assert {c["accelerator"] for c in controllers.values()} == {0.15}
    assert '"accelerator": 0.15,' in out


@pytest.mark.parametrize("args", [(), ("--provenance",), ("--units", "si"), ("--provenance", "--units", "si")])
def test_every_form_validates_against_the_schema(capsys, args):
    for sample in (CAR, CAR_CM):
        code, out, _ = convert(capsys, sample, *args)
        assert code == EXIT_OK
        ConvertOutput.model_validate(json.loads(out))


def test_provenance_wraps_every_value(capsys):
    _, out, _ = convert(capsys, CAR, "--provenance")
    data = json.loads(out)
    sources = {s.value for s in Source}
    seen = set()
    for block in _walk_blocks(data):
        for base, item in block.items():
            assert set(item) == {"value", "source"}, (base, item)
            assert item["source"] in sources
            seen.add(item["source"])
    assert {"authored", "computed", "default", "fallback"} <= seen
    wheel = data["vehicles"]["/World/Car"]["wheels"][0]
    assert wheel["tire"]["restLoad"]["source"] == "computed"
    assert wheel["wheel"]["radius"] == {"value": 0.343, "source": "authored"}


def test_units_si_gives_the_metre_values(capsys):
    _, metres, _ = convert(capsys, CAR)
    _, centimetres_si, _ = convert(capsys, CAR_CM, "--units", "si")
    m, cm = json.loads(metres), json.loads(centimetres_si)
    assert cm["stage"]["metersPerUnit"] == 1.0 and cm["stage"]["convertedFrom"] == {"metersPerUnit": 0.01,
                                                                                   "kilogramsPerUnit": 1.0}
    car_m, car_cm = m["vehicles"]["/World/Car"], cm["vehicles"]["/World/Car"]
    assert car_cm["wheels"][0]["wheel"]["radius"] == pytest.approx(car_m["wheels"][0]["wheel"]["radius"])
    assert car_cm["wheels"][0]["tire"]["restLoad"] == pytest.approx(car_m["wheels"][0]["tire"]["restLoad"], rel=1e-5)
    assert car_cm["drive"]["engine"]["peakTorque"] == pytest.approx(car_m["drive"]["engine"]["peakTorque"], rel=1e-5)
    assert car_cm["wheels"][0]["attachment"]["suspensionFramePosition"] == pytest.approx(
        car_m["wheels"][0]["attachment"]["suspensionFramePosition"], rel=1e-5)
    assert cm["scenes"]["/World/PhysicsScene"]["gravityMagnitude"] == pytest.approx(9.81, rel=1e-5)
    _, in_stage_units, _ = convert(capsys, CAR_CM)
    assert json.loads(in_stage_units)["vehicles"]["/World/Car"]["wheels"][0]["wheel"]["radius"] == pytest.approx(34.3)


def test_text_format_lists_values_with_their_sources_and_the_diagnostics(capsys, broken_stage):
    code, out, _ = convert(capsys, CAR, "--format", "text")
    assert code == EXIT_OK
    lines = out.splitlines()
    assert lines[0].startswith("stage ") and "metersPerUnit 1.0" in lines[0]
    assert "/World/Car.wheels[0].wheel.radius = 0.343 (authored)" in lines
    assert any(line.startswith("/World/Car.wheels[3].tire.restLoad = ") and line.endswith("(computed)") for line in lines)
    code, out, _ = convert(capsys, broken_stage, "--format", "text")
    assert code == EXIT_FINDINGS
    assert any(line.startswith("error V14 /World/BrokenParts/Wheel.physxVehicleWheel:radius:") for line in out.splitlines())


def test_output_file_is_written_atomically(capsys, tmp_path):
    target = tmp_path / "out" / "car.json"
    code, out, _ = convert(capsys, CAR, "-o", str(target))
    assert code == EXIT_OK and out == ""
    _, expected, _ = convert(capsys, CAR)
    assert target.read_text() == expected
    target.write_text("x" * 10_000_000)  # a longer old file is replaced, not overwritten in place
    convert(capsys, CAR, "-o", str(target))
    assert target.read_text() == expected
    assert sorted(os.listdir(target.parent)) == ["car.json"]   # no temporary file left behind


def test_errors_give_exit_1_and_still_the_output(capsys, broken_stage):
    code, out, _ = convert(capsys, broken_stage)
    assert code == EXIT_FINDINGS
    data = json.loads(out)
    assert list(data["vehicles"]) == ["/World/Good"]
    assert any(d["code"] == "V14" and d["severity"] == "error" for d in data["diagnostics"])


@pytest.mark.parametrize("kind", ["missing", "garbage", "wrong-extension", "empty-usda"])
def test_unreadable_input_gives_exit_2_and_one_line_naming_the_file(capsys, tmp_path, kind):
    path = tmp_path / {"missing": "nothing.usda", "garbage": "garbage.usda", "folder": "folder.usda",
                       "wrong-extension": "car.json", "empty-usda": "empty.usdc"}[kind]
    if kind == "garbage":
        path.write_text("#usda 1.0\ndef Xform \"World\" {\n  float x = [[[\n")
    elif kind == "folder":
        path.mkdir()
    elif kind == "wrong-extension":
        path.write_text("{}")
    elif kind == "empty-usda":
        path.write_bytes(b"")
    code, out, err = convert(capsys, str(path))
    assert code == EXIT_USAGE
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0] and "Traceback" not in err


def test_a_folder_is_a_usage_error_naming_it(capsys, tmp_path):
    """click rejects a folder before the command runs: its usage message, exit 2, no traceback."""
    path = tmp_path / "folder.usda"
    path.mkdir()
    code, out, err = convert(capsys, str(path))
    assert code == EXIT_USAGE and out == ""
    assert any(line.startswith("Error:") and str(path) in line for line in err.splitlines())
    assert "Traceback" not in err


def test_a_garbage_file_in_a_fresh_process_prints_no_traceback(tmp_path):
    path = tmp_path / "garbage.usda"
    path.write_bytes(b"\x00\x01 this is not USD")
    done = run_python(["-m", "physxvehicle_usd", "convert", str(path)], timeout=120)
    assert done.returncode == EXIT_USAGE
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and str(path) in done.stderr
    assert "Traceback" not in done.stderr


def test_published_json_schema_is_current():
    """docs/convert.schema.json is what `physxvehicle-usd json-schema` prints (regenerate it when the output changes)."""
    from pathlib import Path

    from physxvehicle_usd.outputs.convert import convert_json_schema

    published = json.loads((Path(__file__).resolve().parent.parent / "docs" / "convert.schema.json").read_text())
    assert published == convert_json_schema(), "run: physxvehicle-usd json-schema -o docs/convert.schema.json"


_OVPHYSX = __import__("importlib").util.find_spec("ovphysx")
OVPHYSX_SAMPLE = Path(_OVPHYSX.origin if _OVPHYSX else ".").parent / "samples" / "data" / "vehicle_read_write.usda"


@pytest.mark.skipif(not OVPHYSX_SAMPLE.is_file(), reason="ovphysx (the test extra) is not installed")
def test_as_ovphysx_gives_ovphysx_reading_and_says_every_change(capsys):
    """NVIDIA's sample: Omniverse honours referenceFrameIsCenterOfMass = False; ovphysx reads the frames as
    centre-of-mass relative. --as ovphysx converts what ovphysx will simulate and lists what it changed."""
    code, out, _ = convert(capsys, str(OVPHYSX_SAMPLE), "--as", "ovphysx", "--provenance")
    assert code == EXIT_OK
    data = json.loads(out)
    ConvertOutput.model_validate(data)
    assert sorted(data["vehicles"]) == ["/World/Basic", "/World/Raw", "/World/Standard", "/World/Tank"]
    for path, vehicle in data["vehicles"].items():
        assert vehicle["vehicle"]["referenceFrameIsCenterOfMass"] == {"value": True, "source": "computed"}, path
    said = sorted(d["prim"] for d in data["diagnostics"] if d["code"] == "OVPHYSX_READING")
    assert said == sorted(data["vehicles"])
    _, out, _ = convert(capsys, str(OVPHYSX_SAMPLE))  # the default reading: Omniverse's, as authored
    default = json.loads(out)
    assert all(v["vehicle"]["referenceFrameIsCenterOfMass"] is False for v in default["vehicles"].values())
    assert not any(d["code"] == "OVPHYSX_READING" for d in default["diagnostics"])
    code, _, err = convert(capsys, str(OVPHYSX_SAMPLE), "--as", "physx")
    assert code == EXIT_USAGE and "'physx' is not one of 'omniverse', 'ovphysx'" in err
