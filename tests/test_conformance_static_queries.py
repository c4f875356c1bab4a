"""The suspension queries' pre-filter against the static ground, against real PhysX (ovphysx, CPU), with the machinery
of tests/test_conformance_ovphysx.py (scenarios: tests/scenarios/static_queries.py): the sample car rolling at 4 m/s
over a static box step 0.1 m high, its queries meeting the step (Open) or filtering its group (Filtered: PhysX's
wheels pass through it), with raycasts and with sweeps, in metres and kilograms and in centimetres and grams.

Figures per car: the worst deviation of its wheels' jounce relative to the run's peak, the final position's distance
relative to the path, and the body's rise over the run (ours / PhysX). Every deviation must be <= LIMIT (2 %).
"""
from __future__ import annotations

import numpy as np
import pytest
from scenarios import static_queries as scenario
from test_conformance_contact import UNITS, figure_table
from test_conformance_ovphysx import LIMIT, Scenario, Stage, worst_relative

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

STEPS = 60  # 1 s: the front wheels 4 m on, 3.5 m over the step; the rear wheels short of it


def _stage(folder, units: str) -> Stage:
    path = scenario.export(folder / f"static_queries_{units}.usda", units)
    return Stage(path, STEPS, [Scenario(f"{name} ({units})", scenario.car(name), {scenario.car(name): {"accelerator": 0.0}})
                               for name in scenario.SCENARIOS])


def _figures(name: str, mine: dict, ref: dict, metres: float) -> dict:
    body, rbody = mine["bodies"][name], ref["bodies"][name]
    position, rposition = np.asarray(body["position"], float), np.asarray(rbody["position"], float)
    path = max(float(np.linalg.norm(np.diff(rposition, axis=0), axis=1).sum()), 1.0 / metres)
    wheels = [w for w in ref["wheels"] if w.startswith(name + "/")]
    jounce = np.array([mine["wheels"][w]["suspensionJounce"] for w in wheels], float).T
    rjounce = np.array([ref["wheels"][w]["suspensionJounce"] for w in wheels], float).T
    return {"final pos": float(np.linalg.norm(position[-1] - rposition[-1]) / path),
            "jounce": worst_relative(jounce, rjounce),
            "jounce range": (float(np.ptp(jounce[:, :2])) * metres, float(np.ptp(rjounce[:, :2])) * metres),
            "rise": (float(position[-1, 2] - position[0, 2]) * metres,
                     float(rposition[-1, 2] - rposition[0, 2]) * metres)}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("static_queries")
    return figure_table({units: _stage(folder, units) for units in UNITS},
                        lambda sc, ours, ref, metres: _figures(sc.vehicle, ours, ref, metres),
                        "a car over a static step its queries meet or filter: worst error relative to the run's peak; "
                        "front jounce range and body rise over the run (ours / PhysX) [m]",
                        lambda f: f"final pos {100 * f['final pos']:8.3f}%  jounce {100 * f['jounce']:8.3f}%  "
                                  f"jounce range {f['jounce range'][0]:.4f} / {f['jounce range'][1]:.4f}  "
                                  f"rise {f['rise'][0]:.4f} / {f['rise'][1]:.4f}")


NAMES = [f"{name} ({units})" for units in UNITS for name in scenario.SCENARIOS]


@pytest.mark.parametrize("name", NAMES)
def test_final_position_matches_physx(results, name):
    assert results[name]["final pos"] <= LIMIT, round(100 * results[name]["final pos"], 3)


@pytest.mark.parametrize("name", NAMES)
def test_jounce_matches_physx(results, name):
    assert results[name]["jounce"] <= LIMIT, round(100 * results[name]["jounce"], 3)


@pytest.mark.parametrize("name", NAMES)
def test_the_car_rises_onto_the_step_unless_its_queries_filter_it(results, name):
    """PhysX: a filtered step is no road (the body stays at its height); an open one lifts the body by about it."""
    ours, physx = results[name]["rise"]
    if name.startswith(scenario.FILTERED):
        assert abs(physx) < 2e-3 and abs(ours) < 2e-3, (ours, physx)
    else:
        assert physx > 0.03 and abs(ours - physx) < 0.01, (ours, physx)
