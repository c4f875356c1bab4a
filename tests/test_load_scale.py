"""Issue 29: reading a fleet and building its simulator grows linearly with the fleet. Every referenced car brings its
own collision groups (the sample car holds a chassis group and a wheel-query group under the vehicle), so anything
worked out per pair of groups, or of a query group and a shape, grows as the fleet's square: the build holds no
such table (a cheap check of the built simulator), and the soak step runs benchmarks/bench_read.py --load at 10,000
cars with a bound far above its target (a guard against the next quadratic step, not a benchmark).
"""
from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest
from conftest import REPO, run_python
from hypothesis import given
from hypothesis import strategies as st

from physxvehicle_usd.prim_paths import at_and_above, at_or_below
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator

sys.path.insert(0, str(REPO / "benchmarks"))
from fleet import fleet_stage  # noqa: E402

GUARD_CARS = 10_000
GUARD_SECONDS = 10.0  # the target is 5 s on the project's VM; 61 s when the build was quadratic


def _arrays(record) -> dict[str, np.ndarray]:
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)
            if isinstance(getattr(record, f.name), np.ndarray)}


def test_a_fleets_simulator_holds_nothing_per_pair_of_cars(tmp_path):
    n = 120
    description = read_stage(fleet_stage(n, tmp_path))
    sim = Simulator.from_description(description, 1 / 60)
    groups = {name for v in description.vehicles.values() for s in v.collision for name in s.groups}
    assert len(groups) == n  # every car its own chassis group
    assert sim.contact is not None and sim.contact.pairs is not None and sim.queries is not None
    for record in (sim.contact, sim.contact.pairs, sim.queries):
        for name, array in _arrays(record).items():
            assert array.size < n * n / 4, f"{type(record).__name__}.{name} {array.shape}"


prim_paths = st.lists(st.sampled_from(["A", "B", "Car", "Car_1", "Wheel"]), min_size=1, max_size=4).map(
    lambda names: "/" + "/".join(names))


@given(prim_paths, prim_paths)
def test_a_prims_roots_are_found_in_one_pass_over_its_path(path, root):
    """load names each vehicle the reader rejected with the first error on or below it, from one pass over the
    diagnostics that files each error under its prim and the prim's ancestors (a scan per vehicle grew as the
    fleet's square)."""
    assert (root in set(at_and_above(path))) == at_or_below(path, root)


@pytest.mark.soak
def test_ten_thousand_cars_read_and_built_within_the_guard(tmp_path):
    ran = run_python([str(REPO / "benchmarks" / "bench_read.py"), "--sizes", str(GUARD_CARS), "--repeat", "2",
                      "--no-ovphysx", "--load", "--folder", str(tmp_path)], timeout=1800)
    assert ran.returncode == 0, ran.stderr[-2000:]
    header, row = (line.split() for line in ran.stdout.splitlines()[:2])
    assert header[:2] == ["cars", "ours"] and row[0] == str(GUARD_CARS), ran.stdout
    load_s = float(row[6])  # cars, ours s, ms/car, moved, floor s, x floor, load s, ...
    assert load_s <= GUARD_SECONDS, ran.stdout


def test_a_shared_polytope_stacks_as_its_own_copies_do():
    """Polytopes.stack writes one row per distinct polytope and copies it to the rows of the same one (a fleet's cars
    share theirs): the stack is the one that distinct but equal polytopes give, beside a polytope of another size."""
    from physxvehicle_usd.read.collision import box_points, cylinder_points
    from physxvehicle_usd.sim.contact.polytopes import Polytopes, convex_polytope

    box, drum = box_points((1.0, 0.5, 0.25)), cylinder_points(0.3, 0.2, 1)
    shared = convex_polytope(box)
    items = [shared, convex_polytope(drum), shared, shared]
    alike = [convex_polytope(box), convex_polytope(drum), convex_polytope(box), convex_polytope(box)]
    stacked, separate = Polytopes.stack(items), Polytopes.stack(alike)
    for f in dataclasses.fields(stacked):
        a, b = getattr(stacked, f.name), getattr(separate, f.name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), f.name
    assert not np.array_equal(stacked.vertices[0], stacked.vertices[1])


def test_canonical_zeros_keep_their_sign():
    """canonical_value returns a zero as it is (as json_value does), the sign of -0.0 included, alone and in
    sequences."""
    import math

    from physxvehicle_usd.json_values import canonical_value, json_value

    for value in (0.0, -0.0, [0.0, -0.0, 1.5], (-0.0, 2.0)):
        got = canonical_value(value)
        want = [json_value(v) for v in value] if isinstance(value, (list, tuple)) else json_value(value)
        assert got == want
        signs = [math.copysign(1.0, v) for v in (got if isinstance(got, list) else [got])]
        assert signs == [math.copysign(1.0, v) for v in (want if isinstance(want, list) else [want])]
