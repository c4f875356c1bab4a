"""NVIDIA's test_target_gear: a driver that shifts up by hand (target gear + 1, throttle off, when the engine turns
above 3000 rpm and no shift is under way; throttle on again when the shift is done), gear switch time 0.05 s, for 80
steps: the car ends in fifth gear and has not strayed sideways or up.

Ours runs the driver in the loop. ovphysx takes controls fixed in advance, so it replays the throttle and target gears
our driver chose, step by step; its own gears and drift are then checked the same way."""
from __future__ import annotations

import math

import numpy as np
import pytest
from factory import STANDARD, Options
from harness import DT, Entry, Fleet

from physxvehicle_usd import properties as P
from physxvehicle_usd import simulate

STEPS, TOP = 80, 5


def _fleet(controls=None) -> Fleet:
    """One factory car (its gears on the shared /World/Gears prim, whose switch time the callers set to 0.05 s)."""
    return Fleet([Entry("Car", Options(drive=STANDARD), controls=controls or {"accelerator": 1.0, "targetGear": 1})],
                 STEPS * DT)


@pytest.fixture(scope="module")
def driven():
    """Our run with the driver in the loop: (final gear, displacement, the throttle and target gear per step)."""
    fleet = _fleet()
    stage, cars = fleet.build("prim")
    stage.GetPrimAtPath("/World/Gears").GetAttribute(P.full_name(P.GEARS, "switchTime")).Set(0.05)
    loaded = simulate.load(stage, DT)
    sim = loaded.simulator
    start = sim.telemetry()["bodies"]["position"][0].copy()
    target, throttle, shifting = 1, 1.0, False
    schedule = []
    for _ in range(STEPS):
        drive = sim.telemetry()["vehicles"]
        rpm = 60.0 * float(drive["engineRotationSpeed"][0]) / (2.0 * math.pi)
        same = int(drive["targetGear"][0]) == int(drive["currentGear"][0])
        if not shifting and rpm > 3000 and same and target < TOP:
            target, throttle, shifting = target + 1, 0.0, True
        elif shifting and same:
            throttle, shifting = 1.0, False
        schedule.append((throttle, target))
        sim.set_controls({"accelerator": throttle, "targetGear": target})
        sim.step()
    end = sim.telemetry()
    return int(end["vehicles"]["currentGear"][0]), end["bodies"]["position"][0] - start, schedule


def test_target_gear(driven):
    gear, moved, _ = driven
    assert gear == TOP
    assert abs(moved[0]) < 0.001 and abs(moved[1]) < 0.001  # X side, Y up: it did not explode


@pytest.mark.nvidia("test_target_gear")
@pytest.mark.ovphysx
@pytest.mark.soak
def test_target_gear_replayed_in_ovphysx(driven, tmp_path):
    _, _, schedule = driven
    controls = {"accelerator": [(i * DT, a) for i, (a, _) in enumerate(schedule)],
                "targetGear": [(i * DT, g) for i, (_, g) in enumerate(schedule)]}
    fleet = _fleet(controls)
    original = fleet.build

    def build(frame="prim"):
        stage, cars = original(frame)
        stage.GetPrimAtPath("/World/Gears").GetAttribute(P.full_name(P.GEARS, "switchTime")).Set(0.05)
        return stage, cars
    fleet.build = build
    v = fleet.run_physx(tmp_path)["Car"]
    assert int(np.asarray(v.vehicle["currentGear"])[-1]) == TOP
    assert abs(v.side(STEPS * DT)) < 0.001 and abs(v.up(STEPS * DT)) < 0.001
