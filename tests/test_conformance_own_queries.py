"""Suspension queries that meet their own vehicle's shapes, against real PhysX (ovphysx, CPU), with the machinery of
tests/test_conformance_ovphysx.py (scenarios: tests/scenarios/own_queries.py): the sample car at rest with its
chassis box in no collision group (Chassis: every raycast starts inside it, no road, the car sinks onto the box),
with an unfiltered collision cylinder on every wheel (Wheels: each raycast meets its own wheel's cylinder, the
suspension's limit throws the car up, and on the next step the query starts on the cylinder's top: no road, and so
on), and the sample as it is (Filtered, the control); each with raycasts and (Chassis, Wheels) sweeps, in metres and
kilograms and in centimetres and grams.

Figures per car: the worst deviation of the body's height above its spawn height over the run relative to the run's
peak; the worst deviation of its wheels' jounce over the run, and over the first EARLY steps, relative to the peak;
the body's final height (ours / PhysX). Every deviation must be <= LIMIT (2 %), or, for the queries that start inside
a shape (SPREAD_GATED), within max(LIMIT, 1.5 x PhysX's own spread with the whole world moved along X); those that are
not yet are xfail (strict) with both figures.
"""
from __future__ import annotations

import numpy as np
import pytest
from scenarios import own_queries as scenario
from test_conformance_contact import UNITS, figure_table, held_to, own_spread_table, within
from test_conformance_ovphysx import Scenario, Stage, worst_relative

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

STEPS = 60  # 1 s
EARLY = 6  # the first steps, before the sweeps' chaos (a hull that starts inside its own chassis or wheel)
FIGURES = ("height", "jounce", "early jounce")


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
# The figures of the scenarios below are held to max(LIMIT, 1.5 x PhysX's own spread with the whole world moved along
# X: tests/scenarios/places.py), as PhysX's own runs part where a query starts inside a shape; the reasons say why ours
# parts from PhysX. Measured (float32, numpy; ovphysx 0.7), ours against PhysX in place / PhysX moved against itself:
# ChassisSweep jounce 100 / 100 % (m and cm), WheelsSweep in m jounce and early jounce 100 / 100 %: within; the rest is
# over it (OUT, strictly). WheelsSweep in m height was within too (310 / 705 %) until the wheels' cylinders met the
# plane in PhysX's pair order (sim/contact/patches.py _plane_pair_order): 1266 %.
_CHASSIS_SWEEP = ("every sweep starts inside the chassis box and is swept again from outside it, against the box "
                  "alone: the first 6 steps agree (jounce 0.23 % in m, 0.00 % in cm+g); then each step's suspension "
                  "limit throws the car up by a different amount, and it bounces apart from PhysX's (final height "
                  "3.47 / 0.78 m in m, 0.504 / 0.507 m in cm+g)")
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
SPREAD_GATED = {"ChassisSweep": ("height", "jounce"), "WheelsSweep": ("height", "jounce", "early jounce"),
                "Wheels": ("jounce",)}
OUT: dict[tuple[str, str], str] = {  # (name, figure) -> ours / PhysX's own spread, why: over the spread gate
    ("ChassisSweep (m)", "height"): "397 %, PhysX moved 94 %: "
                                    + _CHASSIS_SWEEP,
    ("ChassisSweep (cm_g)", "height"): "135 %, PhysX moved 65 %: " + _CHASSIS_SWEEP,
    ("WheelsSweep (m)", "height"): "1266 % (final height 11.0 m against PhysX's 0.61 m), PhysX moved 705 % (gate "
                                   "1057 %): both throw the car up where the sweeps start inside the cylinders; "
                                   + _WHEELS_SWEEP,
    ("WheelsSweep (cm_g)", "height"): "56.5 %, PhysX moved 7.8 %: " + _WHEELS_SWEEP,
    ("WheelsSweep (cm_g)", "jounce"): "ours the full travel where PhysX's jounce is 0 at every place (PhysX moved "
                                      "0.000 %): " + _WHEELS_SWEEP,
    ("WheelsSweep (cm_g)", "early jounce"): "as its jounce over the run (PhysX moved 0.000 %): " + _WHEELS_SWEEP,
    ("Wheels (m)", "jounce"): "11.5 %, PhysX moved 0.07 %: " + _WHEELS_JOUNCE,
    ("Wheels (cm_g)", "jounce"): "100 %, PhysX moved 0.02 %: " + _WHEELS_JOUNCE,
}


@pytest.fixture(scope="module")
def own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    """PhysX's own spread with the world moved (test_conformance_contact.own_spread_table), for SPREAD_GATED."""
    folder = tmp_path_factory.mktemp("own_queries_places")
    return own_spread_table({units: _stage(folder, units) for units in UNITS}, folder,
                            lambda sc, moved, original, metres: _figures(sc.vehicle, moved, original, metres),
                            "suspension queries and the vehicle's own shapes", FIGURES)


def _cases(figure: str) -> list:
    return [pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=OUT[n, figure])] if (n, figure) in OUT else [])
            for n in NAMES]


def _gate(request, results, name: str, figure: str) -> None:
    got, gate = results[name][figure], held_to(request, "own_spread", SPREAD_GATED, name, figure)
    assert got <= gate, within(got, gate)


@pytest.mark.parametrize("name", _cases("height"))
def test_body_height_matches_physx(request, results, name):
    _gate(request, results, name, "height")


@pytest.mark.parametrize("name", _cases("jounce"))
def test_jounce_matches_physx(request, results, name):
    _gate(request, results, name, "jounce")


@pytest.mark.parametrize("name", _cases("early jounce"))
def test_first_steps_jounce_matches_physx(request, results, name):
    _gate(request, results, name, "early jounce")


@pytest.mark.parametrize("units", UNITS)
def test_a_car_whose_queries_start_inside_its_chassis_sinks_onto_it(results, units):
    """PhysX: no road for any wheel; the chassis box (its bottom 0.25 m below the body origin) ends on the ground."""
    ours, physx = results[f"{scenario.CHASSIS} ({units})"]["final height"]
    assert abs(physx - 0.25) < 2e-3 and abs(ours - physx) < 1e-3, (ours, physx)

