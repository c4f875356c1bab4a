"""What a step keeps from one step to the next (sim/memo.py): the steered geometry, the steer angles and the
differential state of a batch are the last step's arrays again only where they would be computed the same, to the
bit (0 ulps: compared as bytes, so a -0 against a +0 fails), and are made anew where the steer command or a
parameter they read changes."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from test_sim_row_solver import DT, _cars

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, commands, memo, pipeline
from physxvehicle_usd.sim.drivetrain import _differential_state, differential_state
from physxvehicle_usd.sim.memo import Blocks, LastValue, SameInputs
from physxvehicle_usd.sim.suspension import steered_axle, steered_wheel_offset, update_compliance
from physxvehicle_usd.sim.tire import wheel_axes_body


@pytest.fixture(scope="module")
def sim() -> Simulator:
    """Three sample cars (float32)."""
    return Simulator.from_description(read_stage(_cars(3)), DT)


def _same_bits(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _fresh_geometry(p, steer, comp):
    return (steered_wheel_offset(p, steer), steered_axle(p, steer),
            wheel_axes_body(p, steer, comp.toe, comp.camber))


def test_steered_geometry_is_kept_while_the_steer_holds_and_made_anew_when_it_changes(sim):
    p = sim.params
    comp = update_compliance(p, sim.state.jounce)
    assert p.compliance_const
    steers = [np.zeros((p.V, p.W), np.float32), np.zeros((p.V, p.W), np.float32),
              np.full((p.V, p.W), 0.3, np.float32), np.full((p.V, p.W), -0.0, np.float32),
              np.zeros((p.V, p.W), np.float32)]
    previous = None
    for k, steer in enumerate(steers):
        offset, _, axes = pipeline.steered_geometry(p, steer, comp)
        fresh_offset, _, fresh_axes = _fresh_geometry(p, steer, comp)
        assert _same_bits(offset, fresh_offset)
        assert _same_bits(axes[0], fresh_axes[0]) and _same_bits(axes[1], fresh_axes[1])
        if k == 1:  # the same steer as the step before: the same arrays
            assert axes is previous
        if k in (2, 3):  # another steer (-0 is another bit pattern than +0): made anew
            assert axes is not previous
        previous = axes


def test_a_replaced_parameter_makes_the_steered_geometry_anew(sim):
    p = copy.copy(sim.params)
    comp = update_compliance(p, sim.state.jounce)
    steer = np.full((p.V, p.W), 0.2, np.float32)
    before, _, _ = pipeline.steered_geometry(p, steer, comp)
    p.wheel_attachment_position = p.wheel_attachment_position + np.float32(0.25)
    after, _, _ = pipeline.steered_geometry(p, steer, comp)
    assert after is not before
    assert _same_bits(after, steered_wheel_offset(p, steer))
    assert not _same_bits(after, before)


def test_steer_angles_follow_the_steer_command_to_the_bit(sim):
    p = sim.params
    assert not p.has_nonlinear
    speed = np.zeros(p.V, np.float32)
    for value in (0.0, 0.0, 0.5, -0.5, -0.0, 0.5):
        steer = np.full(p.V, value, np.float32)
        assert _same_bits(commands.steer_angles(p, steer, speed), commands._steer_angles(p, steer, speed))


def test_brake_torques_follow_the_brake_commands_to_the_bit(sim):
    p = sim.params
    speed = np.zeros(p.V, np.float32)
    for b0, b1 in ((0.0, 0.0), (0.0, 0.0), (1.0, 0.0), (1.0, 0.5), (-0.0, 0.5)):
        brake0, brake1 = np.full(p.V, b0, np.float32), np.full(p.V, b1, np.float32)
        assert _same_bits(commands.brake_torques(p, brake0, brake1, speed),
                          commands._brake_torques(p, brake0, brake1, speed))


def test_differential_state_is_computed_once_per_batch_and_again_for_new_ratios(sim):
    p, s = copy.copy(sim.params), sim.state
    first, second = differential_state(p, s), differential_state(p, s)
    assert second is first
    fresh = _differential_state(p, s)
    for name in ("torque_ratio", "ave_ratio", "connected"):
        assert _same_bits(getattr(first, name), getattr(fresh, name))
    p.diff_ave_ratios = p.diff_ave_ratios * np.float32(0.5)
    third = differential_state(p, s)
    assert third is not first
    assert _same_bits(third.ave_ratio, _differential_state(p, s).ave_ratio)


def test_last_value_keys_and_sources():
    class Batch:  # (any object with the named attributes: LastValue reads nothing else)
        pass

    batch, calls = Batch(), []
    batch.table = np.arange(3.0)
    kept = LastValue("table")

    def compute(key):
        calls.append(key)
        return batch.table * key

    assert _same_bits(kept.get(batch, 2, lambda: compute(2)), np.arange(3.0) * 2)
    assert kept.get(batch, 2, lambda: compute(2)) is kept.get(batch, 2, lambda: compute(2))
    assert calls == [2]
    kept.get(batch, 3, lambda: compute(3))
    batch.table = np.arange(3.0)  # equal values, another array: computed again
    kept.get(batch, 3, lambda: compute(3))
    assert calls == [2, 3, 3]


def test_same_inputs_takes_the_last_value_of_the_very_same_arrays():
    class Batch:
        pass

    batch, calls = Batch(), []
    kept = SameInputs()
    brake, ratio = np.array([0.0, 2.0, -0.0]), np.array([1.0, 0.0, 1.0])

    def flags(brake, ratio):
        calls.append(1)
        return brake != 0.0, ratio != 0.0

    first = kept.get(batch, (brake, ratio), flags)
    assert kept.get(batch, (brake, ratio), flags) is first and len(calls) == 1
    assert first[0].tolist() == [False, True, False] and not first[0].flags.writeable  # (read-only: a write raises)
    again = kept.get(batch, (brake.copy(), ratio), flags)  # equal values, another array: computed again
    assert again is not first and len(calls) == 2 and _same_bits(again[0], first[0])


def test_brake_flags_match_the_numpy_lines(sim):
    """update_commands' brake flags kept by SameInputs: brake != 0 and the unbraked wheels on the differential, those
    of the numpy lines they replace ((~applied) & engaged & ratio != 0 with every vehicle engaged)."""
    p, s = sim.params, sim.state
    diff = differential_state(p, s)
    for b0 in (0.0, 0.5, 0.0):
        brake = commands.brake_torques(p, np.full(p.V, b0, np.float32), np.zeros(p.V, np.float32), np.zeros(p.V))
        applied, unbraked = commands._BRAKE_FLAGS.get(p, (brake, diff.torque_ratio), commands._brake_flags)
        assert _same_bits(applied, brake != 0.0)
        assert _same_bits(unbraked, (~(brake != 0.0)) & np.ones((p.V, 1), bool) & (diff.torque_ratio != 0.0))


def test_a_run_that_steers_matches_one_that_keeps_nothing():
    """A run that holds a steer, changes it and holds it again, then brakes, against the same run where every step's parameters
    are new arrays of the same values (nothing kept is taken again, every input is copied to the kernel anew): the
    same states, to the bit."""
    description = read_stage(_cars(2))
    runs = []
    for keeps in (True, False):
        run = Simulator.from_description(description, DT)
        p = run.params
        for k in range(40):
            if not keeps:
                for name in ("attachment_position", "diff_ave_ratios", "response_max", "toe_const"):
                    setattr(p, name, getattr(p, name).copy())
            steer = 0.0 if k < 10 else (0.4 if k < 25 else -0.2)
            brake = 0.0 if k < 30 else 0.6
            run.step({"accelerator": np.full(p.V, 0.8), "steer": np.full(p.V, steer), "brake0": np.full(p.V, brake)})
        runs.append(run.state)
    for name in ("body_position", "body_orientation", "linear_velocity", "angular_velocity", "jounce",
                 "rotation_speed", "engine_omega"):
        assert _same_bits(getattr(runs[0], name), getattr(runs[1], name)), name


def test_a_parameter_assigned_anew_counts_as_replaced():
    """SimParams counts the assignments to its attributes (`edits`), and LastValue keeps a value while that count holds:
    an assignment of any parameter, even of the same array or of one the value does not read, makes it anew (the safe
    side); reading never counts."""
    p = copy.copy(Simulator.from_description(read_stage(_cars(1)), DT).params)
    kept, calls = LastValue("response_max"), []

    def compute():
        calls.append(1)
        return p.response_max * 2.0

    first = kept.get(p, None, compute)
    assert kept.get(p, None, compute) is first and len(calls) == 1
    edits = p.edits
    _ = p.wheel_attachment_position, p.response_max  # (reads)
    assert p.edits == edits and "edits" not in vars(p)  # (not among the parameters)
    p.toe_const = p.toe_const  # (the same array again: still counted)
    assert p.edits == edits + 1
    assert kept.get(p, None, compute) is not first and len(calls) == 2
    del p.toe_const
    assert p.edits == edits + 2


@pytest.mark.parametrize("compiled", [True, False])
def test_a_kept_block_is_taken_again_only_where_no_one_else_holds_it(compiled, monkeypatch):
    """memo.Blocks: a block whose arrays (or views of them) someone holds is never spare; let go, it is. The counts read
    in C (sim/_kept_blocks.c) and in Python alike."""
    if compiled and memo._SPARE_BLOCK is None:
        pytest.skip("the extension is not built")
    if not compiled:
        monkeypatch.setattr(memo, "_SPARE_BLOCK", None)
    blocks = Blocks(2)
    raw = np.zeros(64, np.uint8)
    arrays = (raw[:16].view(np.float32), raw[16:32].view(np.int32))
    kept = blocks.keep(raw, arrays)
    del raw
    assert blocks.spare() is kept
    held = kept[1][0]  # the caller's reference to an array
    assert blocks.spare() is None
    del held
    view = kept[1][1][1:]  # a view of one (its base is the block's bytes)
    assert blocks.spare() is None
    del view
    assert blocks.spare() is kept
    other = blocks.keep(np.zeros(8, np.uint8)[:], ())
    third = blocks.keep(np.zeros(8, np.uint8), ())  # (two kept: the first let go)
    assert blocks.blocks == [other, third]


def test_a_step_never_writes_into_the_arrays_a_caller_holds_from_an_earlier_step():
    """The compiled step writes into a block of a step before where no one holds its arrays (sim/memo.py Blocks): the
    state's arrays, the outputs and the commands' a caller holds stay as they were, while a run whose arrays no one
    holds takes the same two blocks step after step."""
    sim = Simulator.from_description(read_stage(_cars(2)), DT)
    controls = {"accelerator": np.full(sim.params.V, 0.8), "steer": np.full(sim.params.V, 0.2)}
    for _ in range(3):
        sim.step(controls)
    held = {name: getattr(sim.state, name) for name in ("body_position", "jounce", "rotation_speed", "engine_omega")}
    held_out = sim.state.out["tireForce"]
    wheel_view = sim.state.rotation_speed[:, 1:]
    before = {name: value.copy() for name, value in held.items()}
    before_out, before_view = held_out.copy(), wheel_view.copy()
    for _ in range(6):
        sim.step(controls)
    for name, value in held.items():
        assert getattr(sim.state, name) is not value and _same_bits(value, before[name]), name
    assert _same_bits(held_out, before_out) and _same_bits(wheel_view, before_view)
    del held, held_out, wheel_view
    for _ in range(2):
        sim.step(controls)
    bases = set()
    for _ in range(6):
        sim.step(controls)
        bases.add(id(sim.state.jounce.base))
    assert len(bases) == 2  # (nothing held: the two blocks in turn)
