"""The default run's share of the PhysX conformance suite: contact, checked on every change.

The conformance files that run PhysX over every scenario are soak tests (their side of ours steps many stages in
several variants). This file keeps the contact code under the gate in the default run: a few cars of
tests/test_conformance_contact.py's obstacle stage (metres), each meeting a different kind of shape — a box ridge, a
curb across the road, a convex hull on a triangle-mesh hump, a static capsule met by raycasts and by sweeps — and two
pairs of tests/test_conformance_vehicle_contact.py's cars meeting each other (a rear-end at 4 m/s, a head-on at 8 m/s
each), stepped by ours against PhysX's run of the whole stage. PhysX's side is its recorded run (tests/data/physx_records): the stage
is the soak file's own, so the record is the one the soak step checks against PhysX. Ours steps a copy of the stage
with the other cars removed (they are 20 m apart and never meet, and each vehicle's arithmetic is its own), which
makes the same figures in a fifth of the time.
"""
from __future__ import annotations

import pytest
import test_conformance_vehicle_contact as between
from scenarios import vehicle_contact
from scenarios.copies import with_placements
from test_conformance_contact import VARIANT, _figures, _stage
from test_conformance_ovphysx import LIMIT, RUN, Stage, physx_run, run_sim

pytestmark = pytest.mark.ovphysx

CARS = ("Ridge6", "Curb", "HullOnHump", "Log", "LogSwept")
PAIRS = ("RearEnd4", "HeadOn8")
NAMES = list(CARS) + [car.rsplit("/", 1)[-1] for pair in PAIRS for car in vehicle_contact.cars(pair)]


def _few(whole: Stage, keep: set[str], out) -> tuple[Stage, Stage]:
    """(the whole stage, ours: a copy of it with only the vehicles `keep`)."""
    scenarios = [s for s in whole.scenarios if s.vehicle in keep]
    others = [s.vehicle for s in whole.scenarios if s.vehicle not in keep]
    return whole, Stage(with_placements(whole.path, out, "", (), others), whole.steps, scenarios)


@pytest.fixture(scope="module")
def figures(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("quick")
    static = _few(_stage(folder, "m"), {f"/World/{name}" for name in CARS}, folder / "static.usda")
    pairs = _few(between._stage(folder, "m"), {car for pair in PAIRS for car in vehicle_contact.cars(pair)},
                 folder / "pairs.usda")
    out = {}
    for (whole, few), figures_of in ((static, lambda s, mine, ref: _figures(s, mine, ref, 1.0)),
                                     (pairs, lambda s, mine, ref: between._figures(s.vehicle, mine, ref, 1.0))):
        ours, ref = run_sim(few, RUN[VARIANT]), physx_run(whole)
        out.update({s.vehicle.rsplit("/", 1)[-1]: figures_of(s, ours, ref) for s in few.scenarios})
    return out


def test_every_car_ran(figures):
    assert sorted(figures) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("figure", ["speed", "ang.speed", "final pos"])
def test_contact_matches_physx(figures, name, figure):
    got = figures[name][figure]
    assert got <= LIMIT, f"{name}: {figure} {100 * got:.3f} % over {100 * LIMIT:g} %"


@pytest.mark.parametrize("name", NAMES)
def test_first_contact_is_physxs_step(figures, name):
    ours, physx = figures[name]["contact step"]
    assert ours == physx > 0
