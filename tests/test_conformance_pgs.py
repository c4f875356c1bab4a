"""PhysX's PGS solver, where a scene asks it (physxScene:solverType = "PGS"), against real PhysX (ovphysx 0.7, CPU):
the scenario stages of the other conformance files copied with their scenes set to PGS (tests/scenarios/solver.py),
our side solved by sim/row_solver.py `_solve_rows_pgs`, figures by their machinery.

- Driving on flat ground (the fleet of test_conformance_ovphysx.py, its braking, steady-turn and handbrake-turn cars):
  the sticky-tire rows at the braking car's stop are where PGS and TGS differ (PGS keeps them in its velocity
  iteration); metric as there: every quantity over the whole run, the launch included, but the wheel speeds (not
  chassis quantities), from 1.5 s on. The braking car's chassis angular speed is not within 2 %: the launch's
  chatter makes ours differ from PhysX's by 2.7 mrad/s at step 4, 0.08 s, where the front wheels part left from right
  (float32; 4.4 at 0.22 s float64), 4.7 % (7.7 %) of the run's peak, as under TGS; PhysX against its own copy (30 m
  aside, the same inputs, the same run: `test_physx_against_its_own_copy_is_over_the_gate_too`) differs by 1.6
  mrad/s, 2.8 %, over the gate too but 1.7 times less than ours (float64 2.8 times; under TGS ours is 0.9 times
  PhysX's own spread in float32, 1.6 to 1.7 in float64), a factor not explained; PhysX's PGS run with the whole
  world moved along X spreads 5.3 % from it in place, and ours is held to 1.5 times that. From 1.5 s on the braking car's
  angular speed differs by 0.08 % (float64 0.29 %) of the peak over those steps.
- The suspension limit (test_conformance_regimes.py's Low and Drop, both units): PGS has no bias cap and no
  sub-steps; a hard row drives the whole separation / dt into the velocity of its position iterations.
- Contacts (tests/scenarios/contact.py: Ridge6, Curb, Drop, Rollover, both units; test_conformance_contact.py's
  figures: speed, angular speed and final position over the whole run, the step of the first contact).
- Contacts between vehicles (tests/scenarios/vehicle_contact.py: the rear-end and the two head-on pairs, both units;
  test_conformance_vehicle_contact.py's figures).

ovphysx honours the token: its own PGS and TGS runs of the low car differ by far more than ours differs from its PGS
run (`test_physx_solves_the_scene_with_the_solver_it_asks`). Every figure must be <= LIMIT (2 %), or, where PhysX's
own rounding carries it farther (the braking car's launch, the dropped car at rest on its roof), within max(LIMIT, 1.5 x
PhysX's own spread with the whole world moved along X: tests/scenarios/places.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from scenarios import contact
from scenarios import vehicle_contact as pairs
from scenarios.places import self_spread, spread_gate
from scenarios.regimes import VEHICLES, build
from scenarios.solver import with_solver
from test_conformance_contact import STEPS as CONTACT_STEPS
from test_conformance_contact import _figures as contact_figures
from test_conformance_contact import figure_table, own_spread_table
from test_conformance_ovphysx import (
    ANGULAR,
    DEFAULT,
    LIMIT,
    MIN_PATH,
    SETTLE_S,
    STAGES,
    VARIANTS,
    Scenario,
    Stage,
    _stage_meters,
    angular_over_the_run,
    figures,
    over_limit,
    physx_against_copies,
    physx_run,
    run_beside_physx,
    run_sim,
    table,
    variant_cases,
    worst_relative,
)
from test_conformance_vehicle_contact import SIDES
from test_conformance_vehicle_contact import STEPS as PAIR_STEPS
from test_conformance_vehicle_contact import _figures as pair_figures

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import compiled

# about 40 s of ovphysx runs: soak, as the README test command has a 3-minute budget
pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

DT = 1.0 / 60.0
DRIVING = ("braking from speed", "steady turn", "handbrake turn")
REGIME_STEPS = 180
REGIME_NAMES = {"Low": "below full compression", "Drop": "1.5 m drop"}
CONTACT_CARS = ("Ridge6", "Curb", "Drop", "Rollover")
UNITS = ("m", "cm_g")
VARIANT_NAMES = (DEFAULT, "float64, numpy")
COMPARED = {name: VARIANTS[name] for name in VARIANT_NAMES if compiled.available() or not VARIANTS[name].compiled}


@dataclass
class Results:
    figures: dict[str, dict[str, dict[str, float]]]  # {variant: {scenario: figures}}
    physx_pgs_vs_tgs: float  # PhysX's PGS run of the low car against its TGS run: worst speed difference (relative)
    ours_vs_physx: float  # ours (float64) against PhysX's PGS run, the same measure


def _driving(folder) -> Stage:
    fleet = STAGES[0]
    scenarios = [sc for sc in fleet.scenarios if sc.name in DRIVING]
    path = with_solver(fleet.path, folder / "fleet_pgs.usda", "PGS", keep=[sc.vehicle for sc in scenarios],
                       vehicles=read_stage(fleet.path).vehicles)
    return Stage(path, fleet.steps, scenarios)


def _regimes(folder, solver: str) -> dict[str, Stage]:
    return {units: Stage(with_solver(path, folder / f"regimes_{units}_{solver}.usda", solver), REGIME_STEPS,
                         [Scenario(f"{REGIME_NAMES[v]} ({units})", f"/World/{v}", {f"/World/{v}": {"accelerator": 1.0}})
                          for v in VEHICLES])
            for units, path in build(folder).items()}


def _speed(trace: dict, vehicle: str) -> np.ndarray:
    return np.linalg.norm(np.asarray(trace["bodies"][vehicle]["linearVelocity"], float), axis=1)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Results:
    folder = tmp_path_factory.mktemp("pgs")
    stages = {"driving": _driving(folder), **_regimes(folder, "PGS"), "m TGS": _regimes(folder, "TGS")["m"]}
    mine, refs = run_beside_physx(stages, lambda stage: {name: run_sim(stage, variant)
                                                         for name, variant in COMPARED.items()})
    rows: dict[str, dict[str, dict[str, float]]] = {name: {} for name in COMPARED}
    for key, stage in stages.items():
        if key.endswith("TGS"):
            continue
        settle = int(round(SETTLE_S / DT)) if key == "driving" else 0  # the fleet's wheels' launch chatter, as there
        for name in COMPARED:
            for scenario in stage.scenarios:
                rows[name][scenario.name] = figures(scenario, mine[key][name], refs[key], settle,
                                                    MIN_PATH / _stage_meters(stage.path))
    for name in COMPARED:
        print(f"\n{name} vs ovphysx, PGS scenes: worst error relative to the run's peak, over the whole run (driving: "
              f"wheel speeds after {SETTLE_S} s); final position relative to the path length\n" + table(rows[name]))
    low = "/World/Low"
    physx_pgs_vs_tgs = worst_relative(_speed(refs["m TGS"], low), _speed(refs["m"], low))
    ours = worst_relative(_speed(mine["m"]["float64, numpy"], low), _speed(refs["m"], low))
    print(f"low car (m): PhysX's PGS run against its TGS run {100 * physx_pgs_vs_tgs:.3f} % speed; ours against "
          f"PhysX's PGS run {100 * ours:.4f} %")
    return Results(rows, physx_pgs_vs_tgs, ours)


def test_physx_solves_the_scene_with_the_solver_it_asks(results):
    """ovphysx reads physxScene:solverType: its PGS run of the low car is not its TGS run (the limit rows lift the car
    with their whole separation / dt under PGS), and ours follows the PGS run."""
    assert results.physx_pgs_vs_tgs > 0.01
    assert results.ours_vs_physx < 0.1 * results.physx_pgs_vs_tgs


DRIVING_AND_REGIMES = [*DRIVING, *(f"{REGIME_NAMES[v]} ({u})" for u in UNITS for v in VEHICLES)]


@pytest.mark.parametrize("name, variant", list(variant_cases(DRIVING_AND_REGIMES, VARIANT_NAMES)))
def test_driving_and_the_suspension_limit_match_physx(results, name, variant):
    got = results.figures[variant][name]
    assert {"speed", ANGULAR, "wheels", "jounce", "final pos"} <= set(got)
    bad = over_limit({k: v for k, v in got.items() if k != ANGULAR})
    assert not bad, f"{name} ({variant}): over {100 * LIMIT:g}% (in %): {bad}"


# The braking car's angular speed over the launch is held to PhysX's own spread: max(LIMIT, SPREAD_FACTOR x PhysX's
# PGS run with the whole world moved 7.3, 30, -13.1 m along X against it in place, own_spread): PhysX moved 5.3 %,
# ours 4.7 / 7.7 % (float32 / float64; 2.7 mrad/s at 0.08 s / 4.4 at 0.22 s), both within.
LAUNCH = "braking from speed"


@pytest.fixture(scope="module")
def own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    """PhysX's own spread (tests/scenarios/places.py; recorded runs): the PGS driving stage, and the PGS contact
    stages (by test_conformance_contact's figures)."""
    folder = tmp_path_factory.mktemp("pgs_places")
    driving, settle = _driving(folder), int(round(SETTLE_S / DT))
    spread = self_spread(driving, folder, physx_run, lambda sc, moved, original: figures(
        sc, moved, original, settle, MIN_PATH / _stage_meters(driving.path)))
    spread.update(own_spread_table(_contact_stages(folder), folder, contact_figures, "PGS contact scenarios"))
    return spread


def _own_gate(request, name: str, figure: str) -> float:
    return spread_gate(request.getfixturevalue("own_spread")[name][figure], LIMIT)


@pytest.mark.parametrize("name, variant", list(variant_cases(DRIVING_AND_REGIMES, VARIANT_NAMES)))
def test_driving_and_the_suspension_limit_angular_speed_matches_physx(request, results, name, variant):
    got = results.figures[variant][name][ANGULAR]
    gate = _own_gate(request, name, ANGULAR) if name == LAUNCH else LIMIT
    assert got <= gate, f"{name} ({variant}): chassis angular speed over the whole run {100 * got:.3f} % over " \
                        f"{100 * gate:.3f} %"


def test_physx_against_its_own_copy_is_over_the_gate_too(tmp_path):
    """What LAUNCH's gate rests on: PhysX's PGS run of the braking car against its copy differs over the launch by more
    than LIMIT in the chassis angular speed."""
    spread = physx_against_copies(_driving(tmp_path), ["braking from speed"], tmp_path,
                                  angular_over_the_run(int(round(SETTLE_S / DT))))
    print(f"\nPhysX (PGS) against its own copy, chassis angular speed over the whole run: {spread}")
    assert spread["braking from speed"] > LIMIT


# ------------------------------------------------------------------------------------------- contacts


def _contact_stages(folder) -> dict[str, Stage]:
    """The contact scenarios CONTACT_CARS in PGS scenes, a stage per units."""
    cars = [f"/World/{name}" for name in contact.CARS]
    stages = {}
    for units in UNITS:
        path = with_solver(contact.obstacles(folder / f"obstacles_{units}.usda", units),
                           folder / f"obstacles_{units}_pgs.usda", "PGS", keep=[f"/World/{n}" for n in CONTACT_CARS],
                           vehicles=cars)
        stages[units] = Stage(path, CONTACT_STEPS, [
            Scenario(f"{name} ({units})", f"/World/{name}",
                     {f"/World/{name}": {"accelerator": contact.ACCELERATOR.get(name, 0.0)}}) for name in CONTACT_CARS])
    return stages


@pytest.fixture(scope="module")
def contacts(tmp_path_factory) -> dict[str, dict[str, Any]]:
    return figure_table(_contact_stages(tmp_path_factory.mktemp("pgs_contact")), contact_figures, "PGS scenes, contact "
                        "scenarios: worst error relative to the run's peak; first contact step (ours, PhysX); chassis "
                        "speed one step after it (ours, PhysX) [m/s]")


CONTACT_NAMES = [f"{name} ({units})" for units in UNITS for name in CONTACT_CARS]


@pytest.mark.parametrize("name", CONTACT_NAMES)
def test_contact_speed_and_final_position_match_physx(contacts, name):
    got = contacts[name]
    bad = {k: round(100 * got[k], 3) for k in ("speed", "final pos") if not got[k] <= LIMIT}
    assert not bad, f"{name}: over {100 * LIMIT:g}% (in %): {bad}"


# What PhysX's own rounding carries over the gate, per run (m / cm_g): held to PhysX's own spread with the world moved
# (own_spread): PhysX moved 242 / 160 %, ours 100 / 100 %, within.
ANGULAR_OUT = {
    "Drop": "dropped flat on the roof: PhysX's PGS leaves float32 jitter of at most 8e-6 rad/s at rest, ours 2e-11, "
            "which is all the run's peak: 100 / 100 %; PhysX against its copy: 242 / 73 %",
    # (the roll-over on the chassis edge, 3.2 / 3.5 % while its points were made anew every step where PhysX's stayed
    # where step 2 made them, is within the gate since the static pairs keep PCM's manifolds: 0.016 / 0.013 %)
}


@pytest.mark.parametrize("name", CONTACT_NAMES)
def test_contact_angular_speed_matches_physx(request, contacts, name):
    got = contacts[name]["ang.speed"]
    gate = _own_gate(request, name, "ang.speed") if name.rsplit(" (", 1)[0] in ANGULAR_OUT else LIMIT
    assert got <= gate, f"{100 * got:.3f} % over {100 * gate:.3f} %"


def test_physx_against_its_copy_at_rest_on_the_roof_is_as_far_apart(contacts, tmp_path):
    """What ANGULAR_OUT's Drop rests on: PhysX's PGS run of the dropped car against its copy 30 m aside (the same run)
    lands at the same step with the same speed, and at rest on the roof its float32 jitter alone is as far from its
    copy's as ours (no jitter) is from it: over the gate in both units."""
    spread = {}
    for units, stage in _contact_stages(tmp_path).items():
        metres = 0.01 if units == "cm_g" else 1.0
        spread.update(physx_against_copies(stage, [f"Drop ({units})"], tmp_path,
                                           lambda sc, copy, ref: contact_figures(sc, copy, ref, metres)))
    print("\nPhysX (PGS) against its copy 30 m aside, Drop: " + "; ".join(
        f"{name} speed {100 * f['speed']:.3f} %, ang.speed {100 * f['ang.speed']:.1f} %, final pos "
        f"{100 * f['final pos']:.4f} %, contact step (copy, original) {f['contact step']}" for name, f in spread.items()))
    for name, f in spread.items():
        copy, original = f["contact step"]
        assert copy == original and f["speed"] <= LIMIT and f["final pos"] <= LIMIT, (name, f)
        assert f["ang.speed"] > LIMIT and f["ang.speed"] >= 0.4 * contacts[name]["ang.speed"], (name, f)


@pytest.mark.parametrize("name", CONTACT_NAMES)
def test_first_contact_is_the_same_step(contacts, name):
    ours, physx = contacts[name]["contact step"]
    assert abs(ours - physx) <= 1, (ours, physx)


# ------------------------------------------------------------------------------------------- contacts between vehicles


@pytest.fixture(scope="module")
def vehicle_pairs(tmp_path_factory) -> dict[str, dict[str, Any]]:
    folder = tmp_path_factory.mktemp("pgs_pairs")
    stages = {units: Stage(with_solver(pairs.export(folder / f"pairs_{units}.usda", units),
                                       folder / f"pairs_{units}_pgs.usda", "PGS"), PAIR_STEPS,
                           [Scenario(f"{name} {side} ({units})", car, {car: {"accelerator": accelerator}})
                            for name in pairs.SCENARIOS
                            for side, car, accelerator in zip(SIDES, pairs.cars(name), pairs.accelerators(name))])
              for units in UNITS}
    return figure_table(stages, lambda sc, mine, ref, metres: pair_figures(sc.vehicle, mine, ref, metres),
                        "PGS scenes, contacts between vehicles: worst error relative to the run's peak; first contact "
                        "step (ours, PhysX); velocity along the road one step after PhysX's first contact (ours, "
                        "PhysX) [m/s]")


PAIR_NAMES = [f"{name} {side} ({units})" for units in UNITS for name in pairs.SCENARIOS for side in SIDES]
# (The head-on at 8 m/s, 73.8 % off in angular speed while two boxes met as polytopes, is within the gate since they
# meet as PhysX's box-box test makes them, points in its order (sim/contact/pairs.py): 0.12 / 0.22 %.)
PAIR_ANGULAR_OUT: dict[str, str] = {}


@pytest.mark.parametrize("name", PAIR_NAMES)
def test_vehicle_pair_speed_and_final_position_match_physx(vehicle_pairs, name):
    got = vehicle_pairs[name]
    bad = {k: round(100 * got[k], 3) for k in ("speed", "final pos") if not got[k] <= LIMIT}
    assert not bad, f"{name}: over {100 * LIMIT:g}% (in %): {bad}"


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=PAIR_ANGULAR_OUT[n])]
                                               if n in PAIR_ANGULAR_OUT else []) for n in PAIR_NAMES])
def test_vehicle_pair_angular_speed_matches_physx(vehicle_pairs, name):
    assert vehicle_pairs[name]["ang.speed"] <= LIMIT, round(100 * vehicle_pairs[name]["ang.speed"], 3)
