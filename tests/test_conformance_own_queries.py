"""Suspension queries that meet their own vehicle's shapes, against real PhysX (ovphysx, CPU), with the machinery of
tests/test_conformance_ovphysx.py (scenarios: tests/scenarios/own_queries.py): the sample car at rest with its
chassis box in no collision group (Chassis: every raycast starts inside it, no road, the car sinks onto the box),
with an unfiltered collision cylinder on every wheel (Wheels: each raycast meets its own wheel's cylinder, the
suspension's limit throws the car up, and on the next step the query starts on the cylinder's top: no road, and so
on), and the sample as it is (Filtered, the control); each with raycasts and (Chassis, Wheels) sweeps, in metres and
kilograms and in centimetres and grams.

Figures per car: the worst deviation of the body's height above its spawn height over the run relative to the run's
peak; the worst deviation of its wheels' jounce over the run, and over the first EARLY steps, relative to the peak;
the body's final height (ours / PhysX). Every deviation must be <= LIMIT (2 %); those that are not yet are xfail
(strict) with what they measure.
"""
from __future__ import annotations

import numpy as np
import pytest
from scenarios import own_queries as scenario
from test_conformance_contact import UNITS, figure_table
from test_conformance_ovphysx import LIMIT, Scenario, Stage, gated_cases, worst_relative

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

STEPS = 60  # 1 s
EARLY = 6  # the first steps, before the sweeps' chaos (a hull that starts inside its own chassis or wheel)


def _stage(folder, units: str) -> Stage:
    path = scenario.export(folder / f"own_queries_{units}.usda", units)
    return Stage(path, STEPS, [Scenario(f"{name} ({units})", scenario.car(name),
                                        {scenario.car(name): {"accelerator": 0.0}}) for name in scenario.SCENARIOS])


def _figures(name: str, mine: dict, ref: dict, metres: float) -> dict:
    spawn = scenario.SPAWN_HEIGHT_M / metres
    height = np.asarray(mine["bodies"][name]["position"], float)[:, 2] - spawn
    rheight = np.asarray(ref["bodies"][name]["position"], float)[:, 2] - spawn
    wheels = [w for w in ref["wheels"] if w.startswith(name + "/")]
    jounce = np.array([mine["wheels"][w]["suspensionJounce"] for w in wheels], float).T
    rjounce = np.array([ref["wheels"][w]["suspensionJounce"] for w in wheels], float).T
    return {"height": worst_relative(height, rheight), "jounce": worst_relative(jounce, rjounce),
            "early jounce": worst_relative(jounce[:EARLY], rjounce[:EARLY]),
            "final height": (float(height[-1] + spawn) * metres, float(rheight[-1] + spawn) * metres)}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("own_queries")
    return figure_table({units: _stage(folder, units) for units in UNITS},
                        lambda sc, ours, ref, metres: _figures(sc.vehicle, ours, ref, metres),
                        "suspension queries and the vehicle's own shapes: worst error relative to the run's peak; "
                        f"jounce over the first {EARLY} steps; the body's final height (ours / PhysX) [m]",
                        lambda f: f"height {100 * f['height']:8.3f}%  jounce {100 * f['jounce']:8.3f}%  "
                                  f"early jounce {100 * f['early jounce']:8.3f}%  final height "
                                  f"{f['final height'][0]:.4f} / {f['final height'][1]:.4f}")


NAMES = [f"{name} ({units})" for units in UNITS for name in scenario.SCENARIOS]
# name -> {figure: why it is not within the gate yet}
OUT: dict[str, dict[str, str]] = {}
_CHASSIS_SWEEP = ("every sweep starts inside the chassis box and is swept again from outside it, against the box "
                  "alone: the first 6 steps agree (jounce 0.23 % in m, 0.00 % in cm+g); then each step's suspension "
                  "limit throws the car up by a different amount, and it bounces apart from PhysX's (final height "
                  "3.38 / 0.78 m in m, 0.52 / 0.51 m in cm+g)")
_WHEELS_SWEEP = ("the hull starts inside its own wheel's cylinder. PhysX sweeps a convex mesh against an exact "
                 "cylinder (PxConvexCoreGeometry) by GJK alone (GuSweepTests sweepConvex_ConvexCoreGeom, no MTD): a "
                 "start inside is a hit at distance 0, its normal from GJK's first support points (downward here), "
                 "which vehicle2 takes as a hit from outside: zero jounce, on the ground, from the first step. Ours "
                 "moves out along the separating direction and sweeps back (a side plane: the full travel). The "
                 "plane's offset comes from GJK's final simplex: not modelled")
_WHEELS_JOUNCE = ("the wheels flip between the full travel (the query meets its own cylinder's top) and no road (it "
                  "starts on that top) at the same steps as PhysX's, 54 steps in m and 19 in cm+g; each flip throws "
                  "the car up by a little more or less than PhysX's (cm+g: 60.77 / 60.73 cm after step 1), and once "
                  "the drooping wheels meet the cylinders part-way their jounces part (11.5 % in m, at step 55)")
for units in ("m", "cm_g"):
    OUT[f"ChassisSweep ({units})"] = {"height": _CHASSIS_SWEEP, "jounce": _CHASSIS_SWEEP}
    OUT[f"WheelsSweep ({units})"] = {"height": _WHEELS_SWEEP, "jounce": _WHEELS_SWEEP, "early jounce": _WHEELS_SWEEP}
    OUT[f"Wheels ({units})"] = {"jounce": _WHEELS_JOUNCE}


def _cases(figure: str) -> list:
    return gated_cases(NAMES, OUT, figure)


@pytest.mark.parametrize("name", _cases("height"))
def test_body_height_matches_physx(results, name):
    assert results[name]["height"] <= LIMIT, round(100 * results[name]["height"], 3)


@pytest.mark.parametrize("name", _cases("jounce"))
def test_jounce_matches_physx(results, name):
    assert results[name]["jounce"] <= LIMIT, round(100 * results[name]["jounce"], 3)


@pytest.mark.parametrize("name", _cases("early jounce"))
def test_first_steps_jounce_matches_physx(results, name):
    assert results[name]["early jounce"] <= LIMIT, round(100 * results[name]["early jounce"], 3)


@pytest.mark.parametrize("units", UNITS)
def test_a_car_whose_queries_start_inside_its_chassis_sinks_onto_it(results, units):
    """PhysX: no road for any wheel; the chassis box (its bottom 0.25 m below the body origin) ends on the ground."""
    ours, physx = results[f"{scenario.CHASSIS} ({units})"]["final height"]
    assert abs(physx - 0.25) < 2e-3 and abs(ours - physx) < 1e-3, (ours, physx)


def test_zz_print(results, tmp_path):
    from test_conformance_contact import own_spread_table
    q = ("height", "jounce", "early jounce")
    spread = own_spread_table({u: _stage(tmp_path, u) for u in UNITS}, tmp_path,
                              lambda sc, a, b, m: _figures(sc.vehicle, a, b, m), "own queries", q)
    for name, f in spread.items():
        print(name, "  ".join(f"{k} ours {100*results[name][k]:.3f} own {100*f[k]:.3f}" for k in q),
              results[name]["final height"])
