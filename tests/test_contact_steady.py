"""The steady step of sim/contact/steady.py (one compiled call, sim/_steady_contacts.c, for a step whose candidate
pairs all keep their points, as the last step's did) against the step's own path (sim/contact/world.py `generate`
without it: the broad phase, the persistence match, the refresh and the reduction one call at a time): the same
contacts and the same manifolds to keep, to the bit (0 ulps: dtype, shape and bytes), at every step of the
benchmarks' obstacles fleet driven into its boxes, at the step's poses and at poses moved a little (some steady,
some not)."""
from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_bookkeeping
from physxvehicle_usd.sim.contact import steady
from physxvehicle_usd.sim.contact.world import generate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage  # noqa: E402

pytestmark = pytest.mark.skipif(not compiled_bookkeeping.available(), reason="the extension is not built")


def _same(a, b) -> bool:
    """Equal to the bit: dtype, shape and bytes (0 ulps; -0 is not 0)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _same_step(a, b) -> bool:
    """Two steps' contacts and their manifolds, to the bit."""
    if not all(_same(getattr(a, name), getattr(b, name)) for name in ("shape", "static", "point", "normal",
                                                                        "separation", "patch")):
        return False
    if (a.manifolds is None) != (b.manifolds is None):
        return False
    return a.manifolds is None or all(_same(getattr(x, f.name), getattr(y, f.name))
                                      for x, y in ((a.manifolds.pairs, b.manifolds.pairs),
                                                   (a.manifolds.points, b.manifolds.points))
                                      for f in fields(y))


@pytest.mark.parametrize("cars", [1, 3])
def test_the_steady_call_makes_the_steps_own_contacts_and_manifolds_to_the_bit(tmp_path, cars):
    sim = Simulator.from_description(read_stage(str(fleet_stage(cars, tmp_path, road="obstacles"))), 1.0 / 60.0)
    model, ground, length_scale = sim.contact, sim.ground, sim.params.length_scale
    rng = np.random.default_rng(11)
    steady_steps = other_steps = 0
    for _ in range(120):
        position, orientation = sim.state.body_position.copy(), sim.state.body_orientation.copy()
        for shift in (0.0, 0.0, 1e-4, 3e-2):  # (the step's poses twice: the second finds the call prepared)
            moved = position + rng.normal(scale=shift, size=position.shape).astype(position.dtype)
            kept = model.cache.get("steady_contacts")
            fused = steady.contacts(model, ground, moved, orientation, sim.state.manifolds, length_scale, 1)
            model.cache["steady_contacts"] = None  # (the step's own path, one call at a time)
            own = generate(model, ground, moved, orientation, sim.state.manifolds, length_scale)
            if fused is not None:
                assert _same_step(fused, own)
                steady_steps += 1
                model.cache["steady_contacts"] = kept
            else:
                other_steps += kept is not None  # (prepared, but not steady: the call handed the step back)
        sim.step({"accelerator": 1.0})
    assert steady_steps > 50 and other_steps > 10


def test_the_first_contacts_tables_are_made_with_the_simulator_and_kept_by_its_steps(tmp_path):
    """The contact tables a fleet's first contact would make (world.py `prepare_tables`: the patch points' table,
    the kept points' reduction, the compiled refresh's and record's tables, the static pairs' call) are in the model's
    cache once the simulator is built, and its steps, into the boxes, use those very tables (none made again)."""
    sim = Simulator.from_description(read_stage(str(fleet_stage(2, tmp_path, road="obstacles"))), 1.0 / 60.0)
    names = ("patch_point_table", "kept_reduction", "compiled_refresh", "compiled_record", "static_pairs")
    built = {name: sim.contact.cache.get(name) for name in names}
    assert all(table is not None for table in built.values())
    for _ in range(60):
        sim.step({"accelerator": 1.0})
    assert sim.state.manifolds is not None and len(sim.state.manifolds)  # (the cars met their boxes)
    assert all(sim.contact.cache.get(name) is built[name] for name in names)
