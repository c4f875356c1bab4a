"""The quiet broad phases' references taken when the simulator is built (sim/broad_start.py): kept for the planes,
the vehicle pairs and the wheels' queries at the built pose, one reference shared by the three; a fleet's first step
then finds them quiet and keeps them; where cars start near each other, no pairs' reference is kept and the first
step meets the pair; and whole runs with the build's references and with none (dropped after the build, as before
they were taken there) are the same to the bit."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pxr import Usd
from scenarios import vehicle_contact as scenario

from physxvehicle_usd import simulate
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_begin

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage

DT = 1.0 / 60.0


def _fleet(tmp_path: Path) -> Simulator:
    """The benchmark's fleet of 12 cars on the ground plane, apart, with vehicle pairs and queries."""
    sim = simulate.load(fleet_stage(12, tmp_path, road="plane"), DT).simulator
    assert sim.contact.pairs is not None and sim.queries is not None and sim.ground.grid is None
    return sim


def _references(sim: Simulator) -> tuple:
    """The planes', the pairs' and the queries' kept reference positions (None where none is kept)."""
    return (sim.contact.cache.get("planes_quiet", {}).get("position"), sim.contact.pairs.quiet.get("position"),
            sim.queries.quiet.get("position"))


def _drop_references(sim: Simulator) -> None:
    """The state of a model before any broad phase has run: no reference kept."""
    sim.contact.cache.pop("planes_quiet", None)
    for quiet in (sim.contact.pairs.quiet, sim.queries.quiet):
        for key in ("position", "orientation", "margin", "reach"):
            quiet.pop(key, None)


def _run(sim: Simulator, steps: int) -> np.ndarray:
    s, out = sim.state, []
    for k in range(steps):
        sim.step({"accelerator": 1.0, "steer": 0.3 if k > 5 else 0.0})
        out.append(np.concatenate([s.body_position.ravel(), s.body_orientation.ravel(), s.linear_velocity.ravel(),
                                   s.angular_velocity.ravel()]))
    return np.array(out)


def test_the_build_keeps_one_reference_for_the_three_quiet_phases_and_the_first_step_keeps_it(tmp_path):
    sim = _fleet(tmp_path)
    planes, pairs, queries = _references(sim)
    assert planes is not None and planes is pairs is queries  # (one reference: the begin's measure serves all three)
    assert np.array_equal(planes, sim.state.body_position.astype(float))
    begin = sim.contact.cache["planes_quiet"].get("begin")  # (the compiled begin's copy of it, where built)
    assert begin is None if not compiled_begin.available() else begin[0] == sim.params.V
    sim.step({"accelerator": 1.0})
    assert all(kept is planes for kept in _references(sim))  # quiet: no broad phase ran to refresh them
    assert sim.contact.cache["planes_quiet"].get("begin") is begin


def test_runs_with_the_builds_references_and_without_are_the_same_to_the_bit(tmp_path):
    sims = [_fleet(tmp_path), _fleet(tmp_path)]
    _drop_references(sims[1])
    assert _references(sims[1]) == (None, None, None)
    with_kept, without = (_run(sim, 40) for sim in sims)
    assert np.array_equal(with_kept, without)
    assert _references(sims[1])[0] is not None  # (the first step of the other took them)


@pytest.mark.parametrize("gap", [0.05, 0.15, 1.0])
def test_cars_built_near_each_other_keep_no_pairs_reference_and_meet_at_once(gap):
    """Two cars 5 cm, 15 cm and 1 m apart: within the pairs' quiet margin (10 contact offsets, 0.2 m) no pairs'
    reference is kept at the build, beyond it one is; the first steps are the same with the build's references as with
    none, and the closest pair touches."""
    description = read_stage(Usd.Stage.Open(scenario.layer({"RearEnd4": ("rear", 4.0)}, gap=gap)))
    sims = [Simulator.from_description(description, DT) for _ in range(2)]
    assert sims[0].contact.pairs.quiet["margin"] if gap > 0.2 else "position" not in sims[0].contact.pairs.quiet
    _drop_references(sims[1])
    runs = [_run(sim, 12) for sim in sims]
    assert np.array_equal(*runs)
    if gap < 0.1:
        assert sims[0].telemetry()["bodies"]["contactCount"].min() > 0
