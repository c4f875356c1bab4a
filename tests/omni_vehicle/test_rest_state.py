"""NVIDIA's test_set_to_rest_state: a car driven for 1 s, put back where it started and set to rest (omni.physx's
set_vehicle_to_rest_state; ours: Simulator.reset_vehicles), stays there for 1 s more. Basic drive, and standard drive
in first gear. Ours only: ovphysx 0.7 can neither move a body nor reset a vehicle during a run."""
from __future__ import annotations

import numpy as np
import pytest
from factory import BASIC, STANDARD, Options
from harness import DT, Entry, Fleet

from physxvehicle_usd import simulate

STEPS = int(round(1.0 / DT))


@pytest.mark.parametrize("drive", [BASIC, STANDARD])
def test_set_to_rest_state(drive):
    stage, cars = Fleet([Entry("Car", Options(drive=drive))], 1.0).build("prim")
    loaded = simulate.load(stage, DT)
    sim = loaded.simulator
    first = sim.telemetry()["bodies"]
    start_position, start_orientation = first["position"][0].copy(), first["orientation"][0].copy()
    sim.set_controls({"accelerator": 1.0, **({"targetGear": 1} if drive == STANDARD else {})})
    for _ in range(STEPS):
        sim.step()
    assert sim.telemetry()["bodies"]["position"][0][2] - start_position[2] > 0.3  # it moved (Z forward)
    sim.reset_vehicles([0], position=start_position, orientation=start_orientation)
    sim.set_controls({"accelerator": 0.0})
    for _ in range(STEPS):
        sim.step()
    end = sim.telemetry()["bodies"]
    assert abs(end["position"][0][2] - start_position[2]) < 0.005
    assert np.linalg.norm(end["linearVelocity"][0]) < 0.007
