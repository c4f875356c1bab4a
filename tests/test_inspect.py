"""`inspect`: every resolved value with its unit in stage units and its provenance."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from physxvehicle_usd import properties as P
from physxvehicle_usd.author import author_vehicle, preset_spec
from physxvehicle_usd.cli import main
from physxvehicle_usd.errors import InputError
from physxvehicle_usd.outputs.inspect_table import inspect_json, inspect_rows, render_text
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.units import LENGTH, MASS, MASS_LENGTH, MASS_LENGTH2, StageUnits, stage_unit, unit_dim

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
CAR_CM = SAMPLES / "car_cm" / "car_cm.usda"


def _row(rows, component_start, prop):
    return next(r for r in rows if r.component.startswith(component_start) and r.property == prop)


@pytest.mark.parametrize("unit, dim", [("m", LENGTH), ("N*m", MASS_LENGTH2), ("N/m", MASS), ("N*s/m", MASS),
                                       ("N/rad", MASS_LENGTH), ("kg*m^2/s", MASS_LENGTH2), ("rad/s", (0, 0)),
                                       ("m/s", LENGTH), ("1", (0, 0)), ("quat", (0, 0))])
def test_unit_dimensions(unit, dim):
    assert tuple(unit_dim(unit)) == tuple(dim)


def test_units_restated_in_stage_units():
    cm, inch, metre = StageUnits(0.01, 1.0), StageUnits(0.0254, 1.0), StageUnits(1.0, 1.0)
    assert stage_unit("m", cm) == "cm"
    assert stage_unit("N*m", cm) == "kg*cm^2/s^2"
    assert stage_unit("N", inch) == "kg*in/s^2"
    assert stage_unit("(1, N)", cm) == "(1, kg*cm/s^2)"
    assert stage_unit("N*m", metre) == "N*m"
    assert stage_unit("rad/s", cm) == "rad/s"
    assert stage_unit("m", StageUnits(0.5, 1.0)) == "(0.5 m)"


def test_centimetre_sample_rows_carry_stage_units_and_provenance():
    rows = inspect_rows(read_stage(CAR_CM))
    assert _row(rows, "wheel 0", "radius").unit == "cm"
    assert _row(rows, "wheel 0", "radius").value == pytest.approx(34.3)
    assert _row(rows, "brakes0", "maxBrakeTorque").unit == "kg*cm^2/s^2"
    peak = _row(rows, "engine", "peakTorque")
    assert (peak.source, peak.value) == ("default", pytest.approx(5.0e6))  # 500 N*m, scaled to the stage
    assert _row(rows, "wheel 0", "sprungMass").source == "computed"
    assert _row(rows, "controller", "accelerator").source == "fallback"
    assert _row(rows, "rigidBody", "position").unit == "cm"
    assert _row(rows, "engine", "peakTorque").attribute == P.full_name(P.ENGINE, "peakTorque")
    assert _row(rows, "brakes1", "wheels").attribute == P.full_name(P.BRAKES, "wheels", "brakes1")


def test_shared_wheel_components_are_listed_once():
    rows = inspect_rows(read_stage(CAR_CM), "/World/Car")
    repeat = [r for r in rows if r.component.startswith("wheel 1") and r.component.endswith(" wheel")]
    assert len(repeat) == 1 and repeat[0].same_as.startswith("wheel 0")


def test_deprecated_values_are_marked(tmp_path):
    stage = author_vehicle(preset_spec("car"))
    suspension = stage.GetPrimAtPath("/World/CarParts/Suspension1")
    travel = suspension.GetAttribute(P.full_name(P.SUSPENSION, "travelDistance"))
    travel.Clear()
    suspension.CreateAttribute(P.full_name(P.SUSPENSION, "maxCompression"), travel.GetTypeName()).Set(0.175)
    suspension.CreateAttribute(P.full_name(P.SUSPENSION, "maxDroop"), travel.GetTypeName()).Set(0.175)
    rows = inspect_rows(read_stage(stage), "/World/Car")
    assert _row(rows, "wheel 0", "travelDistance").source == "deprecated"


def test_unknown_vehicle_is_an_input_error():
    with pytest.raises(InputError, match="no vehicle at /World/Nope"):
        inspect_rows(read_stage(CAR_CM), "/World/Nope")


def test_text_output_names_units_and_sources():
    console = Console(file=io.StringIO(), width=160)  # a file, as in a pipe: plain text
    render_text(read_stage(CAR_CM), "/World/Car", console=console)
    text = console.file.getvalue()
    assert "\x1b[" not in text
    assert "lengths in cm" in text
    assert "kg*cm^2/s^2" in text
    for source in ("authored", "default", "fallback", "computed"):
        assert source in text
    assert "not authored" in text


def test_a_terminal_gets_values_styled_by_provenance():
    console = Console(file=io.StringIO(), width=300, force_terminal=True, color_system="standard")
    render_text(read_stage(CAR_CM), "/World/Car", console=console)
    lines = console.file.getvalue().splitlines()
    clutch = next(line for line in lines if "strength" in line and "default" in line)
    assert "\x1b[33m" in clutch  # yellow: a parser default
    assert "\x1b[" not in next(line for line in lines if line.rstrip().endswith("authored"))


def test_json_output_has_rows_with_unit_and_source(capsys):
    main(["inspect", str(CAR_CM), "--format", "json", "--vehicle", "/World/Car"])
    data = json.loads(capsys.readouterr().out)
    assert data["stage"]["lengthUnit"] == "cm"
    assert data["vehicles"] == ["/World/Car"]
    rows = {(r["component"], r["property"]): r for r in data["rows"]}
    assert rows[("clutch", "strength")]["unit"] == "kg*cm^2/s"
    assert rows[("clutch", "strength")]["source"] == "default"
    assert all(r["scope"] == "/World/Car" for r in data["rows"])
    assert inspect_json(read_stage(CAR_CM))["diagnostics"] == []


def test_cli_inspect_bad_vehicle_and_missing_file_exit_2(tmp_path, capsys):
    for argv in (["inspect", str(CAR_CM), "--vehicle", "/World/Nope"], ["inspect", str(tmp_path / "none.usda")]):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 2
        assert "error:" in capsys.readouterr().err


def test_every_unit_string_agrees_with_its_declared_dimension():
    """The table states a dimension (for scaling) and an SI unit (for display): they must say the same."""
    for prop in P.TABLE_ROWS + P.DERIVED_ROWS:
        parts = prop.unit[1:-1].split(",") if prop.unit.startswith("(") else None
        if parts and prop.component_dims:
            assert tuple(unit_dim(p.strip()) for p in parts) == prop.component_dims, prop.key
        elif parts:
            assert all(unit_dim(p.strip()) == prop.dim for p in parts), prop.key
        elif prop.unit not in ("", "quat"):
            assert unit_dim(prop.unit) == prop.dim, prop.key


LONG_NAME = "AVehicleWhoseNameIsLongerThanAnyTerminalWouldShowWithoutCuttingIt_" + "x" * 30


@pytest.fixture(scope="module")
def long_named_car(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("long") / "long.usda"
    main(["new", "car", str(out), "--name", LONG_NAME])
    return out


def test_inspect_in_a_pipe_cuts_no_name(long_named_car, capfd):
    capfd.readouterr()
    main(["inspect", str(long_named_car)])
    out = capfd.readouterr().out
    assert "…" not in out
    lines = out.splitlines()
    assert any(line.startswith(f"/World/{LONG_NAME}") for line in lines)  # the vehicle's table, titled whole
    assert any("/World/VehicleGroundQueryGroup" in line for line in lines)  # a value, on one line
    assert any("minPassiveLongitudinalSlipDenominator" in line for line in lines)  # a property, not folded


def test_schemas_in_a_pipe_cuts_no_name_and_has_json(long_named_car, capfd):
    capfd.readouterr()
    main(["schemas", str(long_named_car)])
    out = capfd.readouterr().out
    assert "…" not in out
    assert any(f"/World/{LONG_NAME}/LeftWheel1" in line for line in out.splitlines())
    assert any("physxVehicleTire:lateralStiffnessGraph" in line for line in out.splitlines())
    main(["schemas", str(long_named_car), "--format", "json"])
    usages = {u["path"]: u for u in json.loads(capfd.readouterr().out)}
    car = usages[f"/World/{LONG_NAME}"]
    assert "PhysxVehicleAPI" in car["schemas"] and car["type"] == "Xform"
    assert "physxVehicle:highForwardSpeedSubStepCount" in car["authored"]


def test_a_terminal_of_100_columns_gets_every_line_within_it():
    import re

    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="standard")
    render_text(read_stage(CAR_CM), None, console=console)
    lines = re.sub(r"\x1b\[[0-9;]*m", "", console.file.getvalue()).splitlines()
    assert max(map(len, lines)) <= 100  # once 134 columns, wrapped by the terminal into a mess
    assert any(line.rstrip().endswith("minPassiveLongitudinalSlipDenominator") or
               "minPassiveLongitudinalSlipDenominator " in line for line in lines)  # the property names stay whole
    wide = Console(file=io.StringIO(), width=300, force_terminal=True, color_system="standard")
    render_text(read_stage(CAR_CM), None, console=wide)
    unfolded = re.sub(r"\x1b\[[0-9;]*m", "", wide.file.getvalue()).splitlines()
    assert max(map(len, unfolded)) > 100 and len(unfolded) < len(lines)  # folded cells, not cut ones
    folded_text = " ".join(lines)
    for value in ("default", "computed", "kg*cm^2/s^2"):
        assert value in folded_text
    assert "\x1b[33m" in console.file.getvalue()  # still styled by provenance
