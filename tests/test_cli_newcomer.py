"""The command line as a newcomer meets it (issue 30): the scene's step when no --dt is given, --control checked
against the vehicle and the property table, nothing written when an argument is wrong, every file written said."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli, stage_over_sample
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
