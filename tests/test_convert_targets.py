"""`convert --target physx34 | physx-snippet`: what the command writes, and how it refuses."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from pxr import Usd, UsdGeom

from physxvehicle_usd.cli import main
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.physx34_convert import physx34_from_description
from physxvehicle_usd.runtime.snippet import BASE_FILE, ENGINE_DRIVE_FILE, snippet_from_description

REPO = Path(__file__).resolve().parent.parent
CAR = REPO / "samples" / "car" / "car.usda"
CAR_CM = REPO / "samples" / "car_cm" / "car_cm.usda"


def _run(argv: list[str]) -> int:
    try:
        main(argv)
    except SystemExit as done:
        return int(done.code or 0)
    return 0


def test_physx34_target_prints_the_structs_as_sorted_json(capsys):
    assert _run(["convert", str(CAR), "--target", "physx34"]) == 0
    text = capsys.readouterr().out
    expected = physx34_from_description(read_stage(CAR).to_json()).model_dump(mode="json")
    assert json.loads(text) == expected
    assert text == json.dumps(expected, sort_keys=True, indent=2) + "\n"
    assert json.loads(text)["vehicles"]["/World/Car"]["engine"]["peak_torque"] == 500.0


def test_physx34_target_is_deterministic_and_written_atomically(tmp_path):
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert _run(["convert", str(CAR), "--target", "physx34", "-o", str(first)]) == 0
    assert _run(["convert", str(CAR), "--target", "physx34", "-o", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.json"]


def test_physx34_target_in_si_units_matches_the_metre_car(capsys):
    assert _run(["convert", str(CAR_CM), "--target", "physx34", "--units", "si"]) == 0
    cm = json.loads(capsys.readouterr().out)
    assert _run(["convert", str(CAR), "--target", "physx34"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert cm["vehicles"]["/World/Car"]["engine"]["peak_torque"] == pytest.approx(m["vehicles"]["/World/Car"]["engine"]["peak_torque"])


def test_physx34_conversion_failure_is_a_message_and_exit_2(tmp_path, capsys):
    weightless = tmp_path / "weightless.usda"
    weightless.write_text(CAR.read_text().replace("float physics:gravityMagnitude = 9.81", "float physics:gravityMagnitude = 0"))
    assert _run(["convert", str(weightless), "--target", "physx34", "-o", str(tmp_path / "out.json")]) == 2
    err = capsys.readouterr().err
    assert "cannot convert to the PhysX 3.4 structs" in err and "gravity magnitude" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out.json").exists()


def test_snippet_target_writes_a_folder_per_vehicle(tmp_path, capsys):
    out = tmp_path / "snippets"
    assert _run(["convert", str(CAR), "--target", "physx-snippet", "-o", str(out)]) == 0
    assert sorted(p.name for p in (out / "Car").iterdir()) == [BASE_FILE, ENGINE_DRIVE_FILE]
    expected = snippet_from_description(read_stage(CAR), "/World/Car").files
    for name, data in expected.items():
        assert json.loads((out / "Car" / name).read_text()) == data
    assert "note: /World/Car" in capsys.readouterr().err


def test_snippet_target_si_units_turn_the_centimetre_car_into_scale_1(tmp_path):
    out = tmp_path / "snippets"
    assert _run(["convert", str(CAR_CM), "--target", "physx-snippet", "--units", "si", "-o", str(out)]) == 0
    base = json.loads((out / "Car" / BASE_FILE).read_text())
    assert base["Scale"] == {"Scale": 1.0}
    assert base["WheelParams"][0]["Radius"] == pytest.approx(0.343, rel=1e-6)


def test_snippet_target_needs_an_output_folder_and_a_vehicle(tmp_path, capsys):
    assert _run(["convert", str(CAR), "--target", "physx-snippet"]) == 2
    assert "-o DIR" in capsys.readouterr().err
    empty = tmp_path / "empty.usda"
    stage = Usd.Stage.CreateNew(str(empty))
    UsdGeom.Xform.Define(stage, "/World")
    stage.GetRootLayer().Save()
    assert _run(["convert", str(empty), "--target", "physx-snippet", "-o", str(tmp_path / "out")]) == 2
    assert "no vehicle to convert" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_description_only_options_are_refused_for_other_targets(capsys):
    assert _run(["convert", str(CAR), "--target", "physx34", "--format", "text"]) == 2
    assert "--format text and --provenance" in capsys.readouterr().err


def test_default_target_is_still_the_description(capsys):
    assert _run(["convert", str(CAR)]) == 0
    assert "/World/Car" in json.loads(capsys.readouterr().out)["vehicles"]
