"""Suspension queries that meet another vehicle, against real PhysX (ovphysx, CPU), with the machinery of
tests/test_conformance_ovphysx.py (scenarios: tests/scenarios/vehicle_queries.py): a sample car standing on another's
chassis box, both at rest (Stacked) and both rolling at 2 m/s (Carried2), and a car whose front wheels roll up a
wedge that is the other car's chassis collider (Ramp6, at 6 m/s), each with raycasts and with sweeps, in metres and
kilograms and in centimetres and grams.

Figures per car (test_conformance_contact's: the worst deviation over the run relative to the run's peak, for chassis
speed and angular speed; the final position's distance relative to the path, at least 1 m) and, for the car on top,
the worst deviation of its wheels' jounce relative to its peak (the queries meet the roof: a jounce; they do not:
none, and the car falls). Every figure must be <= LIMIT (2 %) to pass; those that do not yet are xfail (strict) with
what they measure.
"""
from __future__ import annotations

import numpy as np
import pytest
from scenarios import vehicle_queries as scenario
from test_conformance_contact import UNITS, figure_table
from test_conformance_ovphysx import LIMIT, Scenario, Stage, gated_cases, worst_relative

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

STEPS = 120  # 2 s
SIDES = ("A", "B")


def _stage(folder, units: str) -> Stage:
    path = scenario.export(folder / f"vehicle_queries_{units}.usda", units)
    return Stage(path, STEPS, [Scenario(f"{name} {side} ({units})", car, {car: {"accelerator": 0.0}})
                               for name in scenario.SCENARIOS for side, car in zip(SIDES, scenario.cars(name))])


def _figures(name: str, mine: dict, ref: dict, metres: float) -> dict:
    body, rbody = mine["bodies"][name], ref["bodies"][name]
    norm = lambda b, k: np.linalg.norm(np.asarray(b[k], float), axis=1)  # noqa: E731
    position, rposition = np.asarray(body["position"], float), np.asarray(rbody["position"], float)
    path = max(float(np.linalg.norm(np.diff(rposition, axis=0), axis=1).sum()), 1.0 / metres)
    wheels = [w for w in ref["wheels"] if w.startswith(name + "/")]
    jounce = np.array([mine["wheels"][w]["suspensionJounce"] for w in wheels], float).T
    rjounce = np.array([ref["wheels"][w]["suspensionJounce"] for w in wheels], float).T
    return {"speed": worst_relative(norm(body, "linearVelocity"), norm(rbody, "linearVelocity")),
            "ang.speed": worst_relative(norm(body, "angularVelocity"), norm(rbody, "angularVelocity")),
            "final pos": float(np.linalg.norm(position[-1] - rposition[-1]) / path),
            "jounce": worst_relative(jounce, rjounce),
            "mean jounce": (float(jounce.mean()) * metres, float(rjounce.mean()) * metres),
            "rise": (float(position[-1, 2] - position[0, 2]) * metres, float(rposition[-1, 2] - rposition[0, 2]) * metres)}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("vehicle_queries")
    return figure_table({units: _stage(folder, units) for units in UNITS},
                        lambda sc, ours, ref, metres: _figures(sc.vehicle, ours, ref, metres),
                        "suspension queries on another vehicle: worst error relative to the run's peak; mean jounce "
                        "over the run and wheels (ours / PhysX) [m]",
                        lambda f: f"speed {100 * f['speed']:8.3f}%  ang.speed {100 * f['ang.speed']:8.3f}%  final pos "
                                  f"{100 * f['final pos']:8.3f}%  jounce {100 * f['jounce']:8.3f}%  mean jounce "
                                  f"{f['mean jounce'][0]:.4f} / {f['mean jounce'][1]:.4f}")


NAMES = [f"{name} {side} ({units})" for units in UNITS for name in scenario.SCENARIOS for side in SIDES]
# name -> {figure: why it is not within the gate yet}
OUT: dict[str, dict[str, str]] = {}


def _cases(figure: str) -> list:
    return gated_cases(NAMES, OUT, figure)


@pytest.mark.parametrize("name", _cases("speed"))
def test_chassis_speed_matches_physx(results, name):
    assert results[name]["speed"] <= LIMIT, round(100 * results[name]["speed"], 3)


@pytest.mark.parametrize("name", _cases("ang.speed"))
def test_angular_speed_matches_physx(results, name):
    assert results[name]["ang.speed"] <= LIMIT, round(100 * results[name]["ang.speed"], 3)


@pytest.mark.parametrize("name", _cases("final pos"))
def test_final_position_matches_physx(results, name):
    assert results[name]["final pos"] <= LIMIT, round(100 * results[name]["final pos"], 3)


@pytest.mark.parametrize("name", _cases("jounce"))
def test_jounce_matches_physx(results, name):
    assert results[name]["jounce"] <= LIMIT, round(100 * results[name]["jounce"], 3)


def test_the_car_on_top_stands_on_the_other(results):
    """PhysX's queries meet the other car's roof: the car on top keeps a jounce about the sample's rest jounce."""
    for units in UNITS:
        ours, physx = results[f"Stacked A ({units})"]["mean jounce"]
        assert physx > 0.05 and ours > 0.05, (ours, physx)


@pytest.mark.parametrize("name", [f"Ramp6{query} A ({units})" for units in UNITS for query in ("", "Sweep")])
def test_the_car_climbs_the_wedge(results, name):
    """Its front wheels on the wedge's level top (0.3 m up) at the end: the body has risen by about half that."""
    ours, physx = results[name]["rise"]
    assert physx > 0.1 and abs(ours - physx) < 0.01, (ours, physx)
