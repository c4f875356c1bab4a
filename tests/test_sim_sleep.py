"""PhysX's body sleeping for the vehicles' actors (sim/sleep.py): a car at rest with no command sleeps once its wake
counter has run out, is held there (every velocity exactly 0, its pose unchanged), and wakes on a command; a car whose
physxRigidBody:sleepThreshold is 0 never sleeps. Stages: the basic_car preset, authored by our own authoring API."""
from __future__ import annotations

import numpy as np
import pytest
from stage_factory import car_spec, preset_stage, translate
from test_sim_row_solver import _cars

from physxvehicle_usd import properties as P
from physxvehicle_usd.author import author_vehicle, preset_spec
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.sleep import WAKE_COUNTER_RESET_S
from physxvehicle_usd.sim.state import VEHICLE_ARRAYS, vehicle_axis

DT = 1.0 / 60.0
SETTLE_STEPS = 240  # the preset drops onto its suspension and settles; it sleeps well within this


def _preset(sleep_threshold: float | None = None, preset: str = "basic_car", **changes) -> Simulator:
    stage = author_vehicle(preset_spec(preset, name="Basic", **changes))
    if sleep_threshold is not None:
        stage.GetPrimAtPath("/World/Basic").GetAttribute(P.physx_rigid_body_attribute("sleepThreshold")).Set(
            sleep_threshold)
    return Simulator.from_description(read_stage(stage), DT)


def _speeds(sim: Simulator) -> tuple[float, float]:
    bodies = sim.telemetry()["bodies"]
    return float(np.linalg.norm(bodies["linearVelocity"][0])), float(np.linalg.norm(bodies["angularVelocity"][0]))


def test_a_car_at_rest_sleeps_when_its_wake_counter_runs_out_and_wakes_on_throttle():
    sim = _preset()
    assert sim.params.sleep_threshold[0] == pytest.approx(0.005)  # the preset's (the wizard's) threshold
    asleep_at = None
    for k in range(SETTLE_STEPS):
        sim.step()
        if sim.state.asleep[0]:
            asleep_at = k
            break
    # it cannot sleep before the counter has run down from its reset value (0.4 s, 24 steps)
    assert asleep_at is not None and asleep_at + 1 >= round(WAKE_COUNTER_RESET_S / DT)
    pose = sim.chassis_positions().copy()
    for _ in range(30):
        sim.step()
        assert _speeds(sim) == (0.0, 0.0)  # held: every velocity exactly 0
        assert np.array_equal(sim.chassis_positions(), pose)
        assert not sim.telemetry()["wheels"]["rotationSpeed"].any()
    sim.step({"accelerator": 0.5})
    assert not sim.state.asleep[0] and sim.state.wake_counter[0] > 0.0
    for _ in range(20):
        sim.step()
    assert sim.chassis_positions()[0, 0] > pose[0, 0] + 0.01  # it drives off
    assert _speeds(sim)[0] > 0.1


def test_a_new_steer_command_wakes_a_sleeping_car_and_an_unchanged_one_does_not():
    sim = _preset()
    for _ in range(SETTLE_STEPS):
        sim.step()
    assert sim.state.asleep[0]
    sim.step({"steer": 0.0})  # the command it already had
    assert sim.state.asleep[0]
    sim.step({"steer": 0.3})
    assert not sim.state.asleep[0]


def test_a_sleep_threshold_of_zero_keeps_the_car_awake():
    sim = _preset(sleep_threshold=0.0)
    for _ in range(SETTLE_STEPS):
        sim.step()
        # any energy is at or above a threshold of 0: the counter goes back up each time it enters the window
        assert not sim.state.asleep[0] and sim.state.wake_counter[0] >= 0.5 * WAKE_COUNTER_RESET_S - DT


def test_a_vehicle_without_a_drive_wakes_on_a_wheel_drive_torque_not_on_the_accelerator():
    """omni.physx's wheel-controlled vehicles wake on a wheel's drive torque or a new wheel steer angle (their
    accelerator drives nothing)."""
    sim = _preset(preset="car", drive="none")
    for _ in range(SETTLE_STEPS):
        sim.step()
    assert sim.state.asleep[0]
    sim.step({"accelerator": 1.0})
    assert sim.state.asleep[0]
    sim.step({"driveTorque": [[200.0, 200.0, 0.0, 0.0]]})
    assert not sim.state.asleep[0]
    for _ in range(20):
        sim.step()
    assert _speeds(sim)[0] > 0.1


def test_a_moving_vehicle_that_runs_into_a_sleeping_one_wakes_it():
    """The island manager wakes a sleeping body that an awake one touches: the car hit from behind is pushed on."""
    stage = preset_stage(car_spec("basic", name="Parked"), car_spec("basic", name="Mover"))
    translate(stage, "/World/Mover", (0.0, 0.0, -6.0))  # behind the parked car (+Z forward)
    sim = Simulator.from_description(read_stage(stage), DT)
    for _ in range(SETTLE_STEPS):
        sim.step()
    assert sim.state.asleep.all()
    parked, mover = (sim.params.paths.index(f"/World/{name}") for name in ("Parked", "Mover"))
    start = sim.chassis_positions()[parked].copy()
    sim.step({"accelerator": np.where(np.arange(2) == mover, 1.0, 0.0)})
    assert sim.state.asleep[parked] and not sim.state.asleep[mover]
    woke_at = None
    for k in range(240):
        sim.step()
        if woke_at is None and not sim.state.asleep[parked]:
            woke_at = k
            between = sim.state.contacts.between if sim.state.contacts is not None else None
            assert between is not None and len(between), "woken without a touch"
    assert woke_at is not None, "the parked car slept through the hit"
    assert sim.chassis_positions()[parked, 2] > start[2] + 0.1  # pushed forward


def test_sleepers_are_held_alike_whether_consecutive_or_not():
    """Four cars asleep: all of them (consecutive, held through a slice), then all but the second, which a throttle
    wakes (held through their indices); each step leaves every sleeper's state as it was, bit for bit."""
    stage = _cars(4)
    for prim in ["/World/Car"] + [f"/World/Car{k}" for k in range(1, 4)]:
        stage.GetPrimAtPath(prim).GetAttribute(P.physx_rigid_body_attribute("sleepThreshold")).Set(0.005)
    sim = Simulator.from_description(read_stage(stage), DT)
    braked = {"accelerator": np.zeros(4), "brake0": np.ones(4)}
    for _ in range(SETTLE_STEPS):
        sim.step(braked)
    assert sim.state.asleep.all()
    for woken in (None, 1):
        commands = {k: v.copy() for k, v in braked.items()}
        if woken is not None:
            commands["accelerator"][woken] = 1.0
        sleepers = [v for v in range(4) if v != woken]
        before = {name: np.take(getattr(sim.state, name), sleepers, axis=vehicle_axis(name)).copy()
                  for name in VEHICLE_ARRAYS if isinstance(getattr(sim.state, name), np.ndarray)}
        sim.step(commands)
        assert sim.state.asleep[sleepers].all() and (woken is None or not sim.state.asleep[woken])
        for name, value in before.items():
            after = np.take(getattr(sim.state, name), sleepers, axis=vehicle_axis(name))
            np.testing.assert_array_equal(after.view(np.uint8), value.view(np.uint8), err_msg=name)
    assert sim.chassis_positions()[1, 0] != sim.chassis_positions()[0, 0]  # the woken car moved
