"""The command line as a newcomer meets it (issue 30): the scene's step when no --dt is given, --control checked
against the vehicle and the property table, nothing written when an argument is wrong, every file written said."""
from __future__ import annotations

import json

import pytest
from conftest import SAMPLES, run_cli, run_cli_on_terminal, stage_over_sample
from pxr import Sdf

from physxvehicle_usd import properties as P

CAR = SAMPLES / "car" / "car.usda"
SCENE = "/World/PhysicsScene"


def _summary(ran) -> dict:
    return json.loads(ran.stdout.splitlines()[-1])


def _scene_rate(rate: int):
    def author(stage):
        scene = stage.OverridePrim(SCENE)
        scene.AddAppliedSchema("PhysxSceneAPI")
        scene.CreateAttribute(P.physx_scene_attribute("timeStepsPerSecond"), Sdf.ValueTypeNames.UInt).Set(rate)
    return author


def test_simulate_without_dt_takes_the_scene_step_and_says_so(tmp_path, capfd):
    stage = stage_over_sample(tmp_path / "fast.usda", _scene_rate(120))
    ran = run_cli(capfd, "simulate", stage, "--steps", 12, "--format", "json")
    assert ran.returncode == 0, ran.stderr
    summary = _summary(ran)
    assert summary["dt"] == pytest.approx(1 / 120)
    assert summary["dt_from"] == f"the step of {SCENE} (physxScene:timeStepsPerSecond 120)"
    text = run_cli(capfd, "simulate", stage, "--steps", 12)
    assert "12 steps of 0.00833333 s (0.10 s), the step of /World/PhysicsScene" in text.stdout.splitlines()[-1]
    given = run_cli(capfd, "simulate", stage, "--steps", 12, "--dt", 0.01, "--format", "json")
    assert (_summary(given)["dt"], _summary(given)["dt_from"]) == (0.01, "given")


def test_an_unauthored_rate_is_omni_physx_60(capfd):
    summary = _summary(run_cli(capfd, "simulate", CAR, "--steps", 3, "--format", "json"))
    assert summary["dt"] == pytest.approx(1 / 60)
    assert "not authored: omni.physx's 60" in summary["dt_from"]


@pytest.mark.parametrize("sample, control, vehicle, kind", [
    ("tank", "driveTorque=10", "/World/Tank", "a tank"),
    ("robot_base", "accelerator=1", "/World/RobotBase", "a vehicle without a drive"),
    ("car", "thrust0=1", "/World/Car", "a vehicle with a drive"),
    ("car", "driveTorque=100", "/World/Car", "a vehicle with a drive"),
])
def test_a_control_the_vehicle_has_no_use_for_is_refused(capfd, sample, control, vehicle, kind):
    ran = run_cli(capfd, "simulate", SAMPLES / sample / f"{sample}.usda", "--steps", 2, "--control", control)
    assert ran.returncode == 2 and ran.stdout == ""
    name = control.split("=")[0]
    assert f"--control {name}: {vehicle} is {kind}" in ran.stderr and "it takes " in ran.stderr


def test_a_tank_given_only_the_accelerator_is_told_it_will_not_move(capfd):
    ran = run_cli(capfd, "simulate", SAMPLES / "tank" / "tank.usda", "--steps", 2, "--control", "accelerator=1")
    assert ran.returncode == 0
    assert "/World/Tank: a tank moves with the accelerator and its thrusts; thrust0 and thrust1 stay 0" in ran.stderr


@pytest.mark.parametrize("control", ["accelerator=5", "accelerator=0:1.5", "brake0=-1"])
def test_control_values_get_the_range_and_message_of_authored_ones(tmp_path, capfd, control):
    ran = run_cli(capfd, "simulate", CAR, "--steps", 2, "--control", control)
    assert ran.returncode == 2 and ran.stdout == ""
    name, _, values = control.partition("=")
    bad = values.split(":")[-1]
    stage = stage_over_sample(tmp_path / "authored.usda", lambda s: s.OverridePrim("/World/Car").CreateAttribute(
        P.full_name(P.CONTROLLER, name), Sdf.ValueTypeNames.Float).Set(float(bad)))
    authored = run_cli(capfd, "validate", stage)
    message = f"value {float(bad):g} is outside the accepted range [0, 1]"
    assert "V131" in authored.stdout and message in authored.stdout
    assert f"--control {control}: {message} (V131, as for physxVehicleController:{name} authored" in ran.stderr


def test_the_unit_interval_reads_as_closed():
    # PhysX accepts [0, 1 + FLT_EPSILON): 1 is valid, and the text must not say "[0, 1)"
    row = P.prop(P.CONTROLLER, "accelerator")
    assert row.range.accepts(1.0) and row.range.describe() == "[0, 1]"
    assert P.prop(P.CONTROLLER, "steer").range.describe() == "[-1, 1]"
    assert P.prop(P.CONTROLLER, "targetGear").range.describe() == "[-1, 31) or 255"  # 31 itself is refused


def test_the_readme_example_pasted_with_its_brackets_writes_nothing(tmp_path, capfd, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pasted = ["simulate", CAR, "--steps", 5, "--trace", "run.json", "--plot", "run.png", "--record", "run.usda",
              "[--vehicle", "/World/Car", "...]", "[--format", "json]"]
    ran = run_cli(capfd, *pasted)
    assert ran.returncode == 2 and ran.stdout == ""
    assert "[--vehicle: no such file or folder" in ran.stderr and "[brackets] in an example" in ran.stderr
    assert "nothing was written" in ran.stderr
    assert list(tmp_path.iterdir()) == []  # once: folders run.json/, run.png/, run.usda/
    fixed = run_cli(capfd, *pasted[:10], "--vehicle", "/World/Car", "--format", "json")
    assert fixed.returncode == 0, fixed.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json", "run.png", "run.usda"]
    assert all(p.is_file() for p in tmp_path.iterdir())


@pytest.mark.parametrize("bad, message", [
    (("--record", "run.txt"), "the record must be a .usda"),
    (("--plot", "run.xyz"), "xyz"),
    (("--control", "accelerator=2"), "V131"),
    (("--control", "thrust0=1"), "has no use for it"),
    (("--vehicle", "/World/Nope"), "no vehicle at /World/Nope"),
])
def test_a_bad_argument_leaves_no_output_behind(tmp_path, capfd, bad, message):
    out = tmp_path / "out"
    ran = run_cli(capfd, "simulate", CAR, "--steps", 3, "--trace", out / "t.json", "--plot", out / "p.png", *bad)
    assert ran.returncode == 2 and message in ran.stderr
    assert not out.exists()


def test_a_long_simulate_draws_a_bar_on_a_terminal(capfd, monkeypatch):
    from physxvehicle_usd.commands import common

    monkeypatch.setattr(common, "PROGRESS_AFTER_S", 0.0)  # the sample's run is shorter than a second
    ran, drawn = run_cli_on_terminal(capfd, monkeypatch, "simulate", CAR, "--steps", 40, "--format", "json")
    assert ran.returncode == 0 and json.loads(ran.stdout)["steps"] == 40  # stdout: the summary alone
    assert "40/40" in drawn
    piped = run_cli(capfd, "simulate", CAR, "--steps", 40)  # stderr no terminal: no bar
    assert "40/40" not in piped.stderr


def test_every_command_that_writes_says_what_and_the_folders_it_made(tmp_path, capfd):
    out = tmp_path / "a" / "b"
    said = {
        "new": run_cli(capfd, "new", "car", out / "new.usda"),
        "convert": run_cli(capfd, "convert", CAR, "-o", tmp_path / "c" / "car.json"),
        "snippet": run_cli(capfd, "convert", CAR, "--target", "physx-snippet", "-o", tmp_path / "s"),
        "json-schema": run_cli(capfd, "json-schema", "-o", tmp_path / "schema.json"),
        "validate": run_cli(capfd, "validate", CAR, "-o", tmp_path / "v" / "report.txt"),
        "simulate": run_cli(capfd, "simulate", CAR, "--steps", 3, "--trace", tmp_path / "t" / "trace.json"),
    }
    said["import-snippet"] = run_cli(capfd, "import-snippet", tmp_path / "s" / "Car", "-o", tmp_path / "i" / "car.usda")
    assert {name: ran.returncode for name, ran in said.items()} == dict.fromkeys(said, 0)
    assert f"wrote {out / 'new.usda'}: car /World/Car" in said["new"].stdout
    assert f"(made the folders {tmp_path / 'a'}/, {out}/)" in said["new"].stdout
    assert f"wrote {tmp_path / 'c' / 'car.json'} (made the folder {tmp_path / 'c'}/)" in said["convert"].stderr
    s = tmp_path / "s" / "Car"
    assert f"wrote {s / 'Base.json'}, {s / 'EngineDrive.json'} (made the folders" in said["snippet"].stderr
    assert f"wrote {tmp_path / 'schema.json'}" in said["json-schema"].stderr
    assert f"wrote {tmp_path / 'v' / 'report.txt'} (the report)" in said["validate"].stderr
    assert f"wrote {tmp_path / 't' / 'trace.json'} (trace) (made the folder" in said["simulate"].stderr
    assert f"wrote {tmp_path / 'i' / 'car.usda'}: vehicle /World/Car (made the folder" in said["import-snippet"].stdout


@pytest.mark.parametrize("only", ["XYZ", "V07,XYZ", "V131"])
def test_fix_only_refuses_a_code_it_has_no_repair_for(tmp_path, capfd, only):
    ran = run_cli(capfd, "fix", CAR, "--only", only, "-o", tmp_path / "fixed.usda")
    assert ran.returncode == 2 and ran.stdout == ""
    assert f"fix has no repair for {only.split(',')[-1]}; the codes it repairs: A03, A06" in ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_new_says_it_makes_the_folders(tmp_path, capfd):
    ran = run_cli(capfd, "new", "car", tmp_path / "no" / "such" / "car.usda")
    assert ran.returncode == 0
    assert ran.stdout.strip().endswith(f"(made the folders {tmp_path / 'no'}/, {tmp_path / 'no' / 'such'}/)")
    again = run_cli(capfd, "new", "car", tmp_path / "no" / "such" / "truck.usda")
    assert "made the folder" not in again.stdout


def test_one_word_for_neutral_in_the_text_and_the_plot(tmp_path, capfd):
    import matplotlib.pyplot as plt

    from physxvehicle_usd import simulate
    from physxvehicle_usd.outputs.sim_plot import simulation_figure

    ran = run_cli(capfd, "simulate", CAR, "--steps", 3, "--control", "targetGear=0")
    assert ran.stdout.splitlines()[0].endswith("at the end, gear neutral")
    result = simulate.run(CAR, 3, outputs=("plot",), controls={"targetGear": 0})
    figure = simulation_figure(result)
    try:
        labels = [t.get_text() for t in figure.axes[2].get_yticklabels()]
    finally:
        plt.close(figure)
    assert "neutral" in labels and "N" not in labels


def test_a_quantity_that_does_not_move_is_a_flat_line():
    import matplotlib.pyplot as plt
    import numpy as np

    from physxvehicle_usd import simulate
    from physxvehicle_usd.outputs.sim_plot import simulation_figure

    parked = simulate.run(CAR, 30, outputs=("plot",))  # the sample car at rest: its speed is 1e-5 km/h of noise
    figure = simulation_figure(parked)
    try:
        speed = figure.axes[0]
        drawn = speed.get_lines()[0].get_ydata()
        assert np.ptp(drawn) < 1e-3
        low, high = speed.get_ylim()
        assert high - low >= 1.0  # km/h: a flat line, not the noise stretched over the panel
        driven = simulation_figure(simulate.run(CAR, 30, outputs=("plot",), controls={"accelerator": 1.0}))
        try:
            low, high = driven.axes[0].get_ylim()
            assert high - low > 1.0 and high > np.max(driven.axes[0].get_lines()[0].get_ydata())  # autoscaled
        finally:
            plt.close(driven)
    finally:
        plt.close(figure)


def test_generate_schema_without_jinja2_says_so_in_one_line(tmp_path):
    from conftest import REPO, run_python

    hidden = tmp_path / "no_jinja2" / "jinja2"  # an interpreter where `import jinja2` fails, as without the package
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError(\"No module named 'jinja2'\")\n")
    ran = run_python([str(REPO / "tools" / "generate_schema.py"), "--out", str(tmp_path / "out")],
                     env={"PYTHONPATH": str(hidden.parent)})
    assert ran.returncode == 1
    assert ran.stderr.strip() == ("tools/generate_schema.py: usd-core's usdGenSchema needs the Python package jinja2, "
                                  "which is not installed here: pip install jinja2 (the dev extra has it: pip install "
                                  "-e '.[dev]')")
    assert not (tmp_path / "out").exists()


def test_the_control_help_names_what_each_kind_of_vehicle_takes(capfd):
    from physxvehicle_usd.simulate.control_specs import DRIVE, TANK, WHEELS, taken_controls

    text = " ".join(run_cli(capfd, "simulate", "--help").stdout.split())
    for kind, words in ((DRIVE, "A vehicle with a drive takes"), (TANK, "a tank"), (WHEELS, "one without a drive")):
        assert f"{words} {', '.join(taken_controls(kind))}" in text


def test_fix_says_the_folder_it_made(tmp_path, capfd):
    # the scene without its vehicle context: V07, a repair to write
    stage = stage_over_sample(tmp_path / "bare.usda", lambda s: s.GetPrimAtPath(SCENE).RemoveAppliedSchema(
        "PhysxVehicleContextAPI"))
    ran = run_cli(capfd, "fix", stage, "-o", tmp_path / "out" / "fixed.usda")
    assert ran.returncode == 0, ran.stderr
    assert f"wrote {tmp_path / 'out' / 'fixed.usda'}" in ran.stdout
    assert ran.stderr.strip().endswith(f"made the folder {tmp_path / 'out'}/")
