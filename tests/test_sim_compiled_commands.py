"""The command responses of standard drives in C (sim/_commands.c through sim/compiled_commands.py) against
commands.py's numpy code, the reference: the autobox vehicle by vehicle (`_autobox_each`, and `_autobox_whole` over
the batch), the gear command (`gear_command_update`) and the engine's drive flags of update_commands' numpy lines. The
C code does the same float32 sums and quotients in the same order, so the two are held to 0 ulps, compared bit for bit
(a -0 against a +0 fails), on random autobox states: manual and automatic commands, shifts under way and done, timers
about the latency, engine speeds about the up and down ratios, throttle on and off, braked wheels. Where the extension
is not built these tests skip.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
from test_sim_row_solver import DT, _cars

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.vehicle2 import AUTOMATIC_GEAR, NEUTRAL_GEAR
from physxvehicle_usd.sim import Simulator, commands, compiled_commands

pytestmark = pytest.mark.skipif(not compiled_commands.available(), reason="the compiled extension is not built")

V = 24


@pytest.fixture(scope="module")
def fleet() -> Simulator:
    """24 sample cars (float32, standard drives with an autobox)."""
    return Simulator.from_description(read_stage(_cars(V)), DT)


def _random_state(fleet: Simulator, seed: int):
    p, s = fleet.params, copy.deepcopy(fleet.state)
    rng = np.random.default_rng(seed)
    gears = int(p.nb_gears.min())
    s.current_gear = rng.integers(0, gears, V).astype(np.int64)
    s.target_gear = np.where(rng.random(V) < 0.6, s.current_gear, rng.integers(0, gears, V)).astype(np.int64)
    s.target_gear_command = np.where(rng.random(V) < 0.7, AUTOMATIC_GEAR, rng.integers(0, gears + 1, V)).astype(np.int64)
    s.autobox_active_shift = rng.random(V) < 0.5
    s.autobox_time_since_shift = (p.autobox_latency * rng.uniform(0.0, 2.0, V)).astype(np.float32)
    s.autobox_time_since_shift[:3] = (p.autobox_latency[0], np.float32(3.4028235e38), 0.0)
    g = np.clip(s.current_gear, 0, p.autobox_up.shape[1] - 1)
    ratio = np.where(rng.random(V) < 0.5, p.autobox_up[np.arange(V), g], p.autobox_down[np.arange(V), g])
    s.engine_omega = (ratio * p.engine_max_omega * rng.uniform(0.9, 1.1, V)).astype(np.float32)
    s.engine_omega[3] = np.float32(p.autobox_up[3, g[3]]) * p.engine_max_omega[3]  # exactly at a ratio
    s.accelerator = np.where(rng.random(V) < 0.8, rng.random(V), 0.0).astype(np.float32)
    s.accelerator[4] = -0.0
    unbraked = rng.random((V, p.W)) < 0.7
    return p, s, unbraked


def _numpy_commands(p, s, dt, unbraked, whole: bool):
    """update_commands' numpy lines for standard drives on all their wheels: (throttle, drive_applied)."""
    throttle = s.accelerator.copy()
    command = (commands._autobox_whole if whole else commands._autobox_each)(p, s, dt, throttle)
    if p.any_standard_without_autobox:
        command = np.where(p.is_standard & ~p.has_autobox & (command == AUTOMATIC_GEAR), s.target_gear, command)
    commands.gear_command_update(p, s, command)
    engaged = (s.current_gear != NEUTRAL_GEAR) & (p.clutch_strength != 0.0) & (throttle != 0.0)
    return throttle, (~np.zeros_like(unbraked)) & engaged[:, None] & unbraked


def _same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


STATE = ("autobox_active_shift", "autobox_time_since_shift", "current_gear", "target_gear", "gear_switch_time")


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("whole", [False, True])
def test_compiled_commands_match_numpy_to_the_bit(fleet, seed, whole):
    p, s, unbraked = _random_state(fleet, seed)
    assert p.all_standard and p.autobox_on.all()
    ours, theirs = copy.deepcopy(s), copy.deepcopy(s)
    got = compiled_commands.standard_commands(p, ours, DT, unbraked)
    assert got is not None
    throttle, command, drive_applied, drive, starts = got
    if starts:
        commands.gear_command_update(p, ours, command)
    ref_throttle, ref_drive = _numpy_commands(p, theirs, DT, unbraked, whole)
    assert _same_bits(throttle, ref_throttle) and _same_bits(drive_applied, ref_drive)
    assert _same_bits(drive, np.zeros((V, p.W), np.result_type(s.wheel_drive_torque, 0.0)))
    for name in STATE:
        assert _same_bits(getattr(ours, name), getattr(theirs, name)), name
    # (the random states reach each branch: shifts started, timers waiting and reset, throttles cut)
    assert (ref_throttle == 0).any() and ref_drive.any() and not ref_drive.all()


def test_update_commands_runs_the_call_and_a_run_is_numpy_s(fleet):
    """update_commands on the compiled call over a run with gear changes gives what the numpy lines give."""
    p, s, _ = _random_state(fleet, 11)
    ours, theirs = copy.deepcopy(s), copy.deepcopy(s)
    diff_ratio = np.ones((V, p.W), np.float32)
    speed = np.zeros(V, np.float32)
    for _ in range(5):
        cmd = commands.update_commands(p, ours, DT, speed, diff_ratio)
        brake = commands.brake_torques(p, theirs.brake0, theirs.brake1, speed)
        ref_throttle, ref_drive = _numpy_commands(p, theirs, DT, ~(brake != 0.0) & (diff_ratio != 0.0), False)
        assert _same_bits(cmd["throttle"], ref_throttle) and _same_bits(cmd["drive_applied"], ref_drive)
        for name in STATE:
            assert _same_bits(getattr(ours, name), getattr(theirs, name)), name
        ours.engine_omega = theirs.engine_omega = (ours.engine_omega * np.float32(1.3)).astype(np.float32)


def test_other_batches_and_float64_state_are_numpy_s(fleet):
    p, s, unbraked = _random_state(fleet, 0)
    s.autobox_time_since_shift = s.autobox_time_since_shift.astype(np.float64)
    assert compiled_commands.standard_commands(p, s, DT, unbraked) is None
    s.autobox_time_since_shift = s.autobox_time_since_shift.astype(np.float32)
    s.autobox_time_since_shift.flags.writeable = False  # (written in place: a read-only one is numpy's to refuse)
    assert compiled_commands.standard_commands(p, s, DT, unbraked) is None
    assert compiled_commands.standard_commands(p, copy.deepcopy(fleet.state), np.float32(DT), unbraked) is None
