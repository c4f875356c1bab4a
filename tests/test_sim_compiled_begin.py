"""The compiled begin of a step (sim/_step_begin.c through sim/compiled_begin.py) against pipeline.step's numpy lines:
the begin pose's copies, vecmath.quat_to_mat, the forward speed, context.substep_counts, the substep length and
pipeline.wheel_frame.

The C code does numpy's float32 arithmetic in its order (quat_to_mat's products and sums, einsum's sums from +0, dot's
left to right, the substep length divided in double and rounded once), so the two are held to 0 ulps, compared bit for
bit (a -0 against a +0 fails), on random states (speeds about the substep threshold, quaternions with zero and
negative-zero components) and over whole runs of cars. Where the extension is not built these tests skip.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
from test_sim_row_solver import DT, _cars, _trajectory

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled, compiled_begin, pipeline
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.context import substep_counts
from physxvehicle_usd.sim.pipeline import StepOptions

pytestmark = pytest.mark.skipif(not compiled_begin.available(), reason="the compiled extension is not built")


@pytest.fixture(scope="module")
def fleet() -> Simulator:
    """Seven sample cars (float32)."""
    return Simulator.from_description(read_stage(_cars(7)), DT)


def _random_state(fleet: Simulator, seed: int):
    """The fleet's parameters and a random body state: orientations anywhere (one with zero components, one with
    negative zeros), velocities about the substep threshold speed along the body's forward axis and across it."""
    p, s = fleet.params, copy.deepcopy(fleet.state)
    V = p.V
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((4, V))
    q[:, 0] = (1.0, 0.0, 0.0, 0.0)
    q[:, 1] = (-0.0, 0.0, -0.0, 1.0)
    s.body_orientation = (q / np.linalg.norm(q, axis=0)).astype(np.float32)
    s.body_position = (rng.standard_normal((3, V)) * 100.0).astype(np.float32)
    R = vm.quat_to_mat(s.body_orientation)
    forward = vm.matvec(R, p.lng_axis)
    speed = p.substep_threshold_speed * rng.uniform(0.5, 1.5, V).astype(np.float32) * rng.choice([-1, 1], V)
    s.linear_velocity = (forward * speed + rng.standard_normal((3, V)) * 0.5).astype(np.float32)
    return p, s


def _numpy_begin(p, s, dt):
    R = vm.quat_to_mat(s.body_orientation)
    forward_speed = vm.dot(s.linear_velocity, vm.matvec(R, p.lng_axis))
    n_sub = substep_counts(p, forward_speed)
    return (s.body_position.copy(), s.body_orientation.copy(), R, forward_speed, n_sub, (dt / n_sub).astype(p.dtype))


def _same_bits(ours: np.ndarray, theirs: np.ndarray) -> None:
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_array_equal(ours.view(np.uint8), theirs.view(np.uint8))  # 0 ulps, the sign of zero included


@pytest.mark.parametrize("seed", range(8))
def test_the_compiled_begin_is_numpy_s_to_the_bit_on_random_states(fleet, seed):
    p, s = _random_state(fleet, seed)
    assert compiled.covers(p) and compiled_begin.covers(p, s)
    begun = compiled_begin.begin(p, s, DT)
    theirs = _numpy_begin(p, s, DT)
    for ours, expected in zip((*begun[:2], compiled_begin.rotation(p, begun), *begun[2:5]), theirs):
        _same_bits(ours, expected)
    assert len(set(begun[3].tolist())) == 2  # both substep counts taken
    offset = pipeline.steered_wheel_offset(p, rng_steer(seed, p))
    frame = compiled_begin.wheel_frame(p, begun, offset)
    for ours, expected in zip(frame, pipeline.wheel_frame(p, theirs[2], s.body_position, offset)):
        _same_bits(ours, expected)


def rng_steer(seed: int, p) -> np.ndarray:
    """Steer angles (V, W) of the front wheels, random."""
    return np.random.default_rng(seed + 100).uniform(-0.5, 0.5, (p.V, p.W)).astype(np.float32)


def test_the_begin_pose_is_a_copy(fleet):
    p, s = _random_state(fleet, 3)
    begun = compiled_begin.begin(p, s, DT)
    s.body_position[:] = 0.0
    s.body_orientation[:] = 0.0
    assert np.all(begun[0] != 0.0) and np.any(begun[1] != 0.0)


def test_a_float64_state_leaves_the_begin_to_numpy(fleet):
    p, s = _random_state(fleet, 5)
    s.linear_velocity = s.linear_velocity.astype(np.float64)
    assert not compiled_begin.covers(p, s) and compiled_begin.begin(p, s, DT) is None


def test_offsets_not_float32_leave_the_frame_to_numpy(fleet):
    p, s = _random_state(fleet, 4)
    begun = compiled_begin.begin(p, s, DT)
    offset = pipeline.steered_wheel_offset(p, rng_steer(4, p))
    assert compiled_begin.wheel_frame(p, begun, offset.astype(np.float64)) is None


@pytest.mark.parametrize("controls", [{"accelerator": 1.0}, {"accelerator": 0.0, "brake0": 1.0},
                                      {"accelerator": 0.6, "steer": 0.4}])
def test_cars_run_alike_with_the_compiled_begin_and_numpy(monkeypatch, controls):
    description = read_stage(_cars(3))
    calls = {"taken": 0}
    begin = compiled_begin.begin

    def counted(*args):
        calls["taken"] += 1
        return begin(*args)

    monkeypatch.setattr(compiled_begin, "begin", counted)
    ours, _ = _trajectory(description, 90, StepOptions(), controls)
    assert calls["taken"] == 90
    monkeypatch.setattr(compiled_begin, "begin", lambda p, s, dt, quiet=None: None)  # (not covered: numpy's lines)
    theirs, _ = _trajectory(description, 90, StepOptions(), controls)
    assert calls["taken"] == 90  # numpy's run made no compiled begin
    np.testing.assert_array_equal(ours.view(np.uint32), theirs.view(np.uint32))  # 0 ulps, every step
    assert np.abs(ours[-1] - ours[0]).max() > 0.0
