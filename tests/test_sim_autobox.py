"""The autobox vehicle by vehicle (commands._autobox_each, which a batch of a few vehicles takes) against the whole-batch
form (commands._autobox_whole, the reference): the same gear commands, throttles, shift timers and flags, to the bit
(0 ulps, compared as bytes), on random states that reach every branch: manual gears, shifts under way with and without
an active shift, first gear from neutral and reverse, timers below and above the latency, engine speeds above the up
ratio, below the down ratio and between, in top and first gear, and a NaN engine speed."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from test_sim_row_solver import DT, _cars

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.vehicle2 import NEUTRAL_GEAR
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.commands import AUTOMATIC_GEAR, _autobox_each, _autobox_whole

AUTOBOX_STATE = ("target_gear_command", "current_gear", "target_gear", "autobox_time_since_shift",
                 "autobox_active_shift", "engine_omega")


@pytest.fixture(scope="module")
def sim() -> Simulator:
    """Eight sample cars (float32, an autobox each)."""
    return Simulator.from_description(read_stage(_cars(8)), DT)


def _random_state(sim: Simulator, seed: int):
    rng = np.random.default_rng(seed)
    p, s = sim.params, copy.deepcopy(sim.state)
    V = p.V
    top = int(p.nb_gears.max()) - 1
    s.target_gear_command = np.where(rng.random(V) < 0.25, rng.integers(0, top + 1, V), AUTOMATIC_GEAR)
    s.current_gear = rng.integers(0, top + 1, V)
    s.target_gear = np.where(rng.random(V) < 0.3, rng.integers(0, top + 1, V), s.current_gear)
    s.current_gear[:2] = NEUTRAL_GEAR - 1, NEUTRAL_GEAR  # reverse, neutral
    s.target_gear[:2] = s.current_gear[:2]
    s.autobox_time_since_shift = rng.choice([0.0, 0.5, 1.9, 2.0, 2.1, 5.0, np.finfo(np.float32).max],
                                            V).astype(np.float32) * (p.autobox_latency / 2.0).astype(np.float32)
    s.autobox_active_shift = rng.random(V) < 0.5
    rows = np.arange(V)
    g = np.clip(s.current_gear, 0, p.autobox_up.shape[1] - 1)
    ratio = np.where(rng.random(V) < 0.5, p.autobox_up[rows, g] * 1.01, p.autobox_down[rows, g] * 0.99)
    ratio = np.where(rng.random(V) < 0.3, 0.5 * (p.autobox_up[rows, g] + p.autobox_down[rows, g]), ratio)
    s.engine_omega = (ratio * p.engine_max_omega).astype(np.float32)
    s.engine_omega[-1] = np.nan
    return p, s


@pytest.mark.parametrize("seed", range(12))
def test_vehicle_by_vehicle_matches_the_whole_batch_to_the_bit(sim, seed):
    p, s = _random_state(sim, seed)
    each, whole = copy.deepcopy(s), copy.deepcopy(s)
    throttle = np.linspace(0.2, 1.0, p.V).astype(np.float32)
    throttle_each, throttle_whole = throttle.copy(), throttle.copy()
    command_each = _autobox_each(p, each, DT, throttle_each)
    command_whole = _autobox_whole(p, whole, DT, throttle_whole)
    assert command_each.dtype == command_whole.dtype and command_each.tobytes() == command_whole.tobytes()
    assert throttle_each.tobytes() == throttle_whole.tobytes()
    for name in AUTOBOX_STATE:
        a, b = getattr(each, name), getattr(whole, name)
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), name


def test_the_random_states_reach_the_shifts(sim):
    """Across the seeds: some vehicles shift up, some down, some start first gear, some wait, some are manual."""
    seen = set()
    for seed in range(12):
        p, s = _random_state(sim, seed)
        before = s.current_gear.copy()
        command = _autobox_whole(p, s, DT, np.ones(p.V, np.float32))
        manual = s.target_gear_command != AUTOMATIC_GEAR
        seen |= {"up" for v in range(p.V) if not manual[v] and command[v] == before[v] + 1 and before[v] > NEUTRAL_GEAR}
        seen |= {"down" for v in range(p.V) if not manual[v] and command[v] == before[v] - 1}
        seen |= {"first" for v in range(p.V) if not manual[v] and before[v] <= NEUTRAL_GEAR and command[v] == NEUTRAL_GEAR + 1}
        seen |= {"manual"} if manual.any() else set()
    assert seen == {"up", "down", "first", "manual"}
