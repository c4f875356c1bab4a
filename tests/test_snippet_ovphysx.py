"""A vehicle imported from snippet files drives in real PhysX (ovphysx): one second of full throttle."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from physxvehicle_usd.author.snippet import import_snippet
from physxvehicle_usd.oracle import run_ovphysx

pytestmark = pytest.mark.ovphysx

FIXTURE = Path(__file__).resolve().parent / "data" / "snippet_car"
DT = 1.0 / 60.0
STEPS = 60  # one second
AUTOMATIC = 255


def test_imported_snippet_car_accelerates_forward_in_ovphysx(tmp_path):
    usd = tmp_path / "snippet_car.usda"
    result = import_snippet(FIXTURE, usd, units="cm")
    trace = run_ovphysx(usd, STEPS, DT, controls={result.vehicle_path: {"accelerator": 1.0, "targetGear": AUTOMATIC}})
    assert list(trace["vehicles"]) == [result.vehicle_path]
    assert not [line for line in trace["log"] if line.startswith("[Error]")]
    position = trace["bodies"][result.vehicle_path]["position"] * 0.01  # cm -> m
    moved = position[-1] - position[0]
    # The fixture's frame: X forward, Z up.
    assert moved[0] > 1.0, f"moved {moved} m in one second"
    assert abs(moved[1]) < 0.1 * moved[0]
    assert abs(moved[2]) < 0.05  # it started at rest height and stays on its wheels
    on_ground = np.array([w["isOnGround"][-1] for w in trace["wheels"].values()])
    assert on_ground.all()
