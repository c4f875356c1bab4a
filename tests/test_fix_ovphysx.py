"""The issue's case in real PhysX: a Vehicle Wizard car whose stage lost its vehicle context (a reinforcement-learning
environment makes its own scene) makes ovphysx log errors and drive the car sideways; `physxvehicle-usd fix` gives a
layer that ovphysx loads without a complaint about the vehicle, and the car drives there as our simulator predicts.
Two ovphysx runs of a few seconds each: a soak test."""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from conftest import two_at_a_time
from test_fix import _without_context, _wizard_car
from test_samples_ovphysx import POPULATION_ARTEFACTS

from physxvehicle_usd import simulate
from physxvehicle_usd.fix import fix_file
from physxvehicle_usd.oracle import run_ovphysx

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

VEHICLE = "/World/Car"
DT, STEPS = 1.0 / 60.0, 120  # two seconds of full throttle from rest
CONTROLS = {"accelerator": 1.0, "targetGear": 255}
FORWARD = np.array([1.0, 0.0, 0.0])  # the Wizard's +X on a Z-up stage


def _complaints(log: list[str]) -> list[str]:
    """What ovphysx says about the vehicle (its USD parser and vehicle code), less the controller attributes its
    stage population makes look authored in every asset."""
    return [line for line in log if ("PhysX Vehicle" in line or "Usd Physics" in line)
            and not any(artefact in line for artefact in POPULATION_ARTEFACTS)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("wizard")
    broken = _without_context(_wizard_car(folder))
    fixed = fix_file(str(broken)).output
    controls = {VEHICLE: {name: np.full(STEPS, value) for name, value in CONTROLS.items()}}
    traces = two_at_a_time({name: partial(run_ovphysx, path, STEPS, DT, controls=controls,
                                          telemetry={"bodies": ["position"]})
                            for name, path in (("broken", broken), ("fixed", fixed))})
    traces["ours"] = simulate.run(fixed, STEPS, DT, controls=CONTROLS).trace
    return traces


def test_before_the_fix_ovphysx_logs_the_missing_context_and_the_failed_sprung_masses(runs):
    said = "\n".join(_complaints(runs["broken"]["log"]))
    assert "no matching physics scene prim with PhysxVehicleContextAPI" in said
    assert "sprung mass computation failed" in said


def test_after_the_fix_ovphysx_says_nothing_about_the_vehicle(runs):
    assert _complaints(runs["fixed"]["log"]) == []


def test_the_fixed_car_drives_forward_in_ovphysx_as_our_simulator_predicts(runs):
    start = runs["fixed"]["bodies"][VEHICLE]["position"][0]
    theirs = runs["fixed"]["bodies"][VEHICLE]["position"][-1] - start
    ours = np.asarray(runs["ours"]["bodies"][VEHICLE]["position"][-1]) - np.asarray(
        runs["ours"]["bodies"][VEHICLE]["position"][0])
    along = float(theirs @ FORWARD)
    assert along > 3.0 and abs(theirs[1]) < 0.05  # forward, not sideways as the broken car went
    assert along == pytest.approx(float(ours @ FORWARD), rel=0.05)
    broken = runs["broken"]["bodies"][VEHICLE]["position"]
    moved = broken[-1] - broken[0]
    assert abs(moved[1]) > 3 * abs(moved[0])  # the broken car went sideways (+Z "forward" in the default context)
