"""Contacts between vehicles against real PhysX (ovphysx, CPU), with the machinery of tests/test_conformance_ovphysx.py
(scenarios: tests/scenarios/vehicle_contact.py): a sample car rolling at 4 m/s into a standing one (rear-end), and two
rolling towards each other nose to nose at 3 and at 8 m/s each (head-on), the boxes 1 m apart at the start, the
accelerators at 0; and one rolling at 2 m/s into a standing one with its accelerator held, pushing it for the rest of
the run (push); a rear-end at 4 m/s where the rolling car carries a sphere or a capsule on its nose (a round shape of
the earlier car against the later car's box); in metres and kilograms and in centimetres and grams.

Figures per car (test_conformance_contact's: the worst deviation over the run relative to the run's peak, for chassis
speed and angular speed; the final position's distance relative to the path, at least 1 m), the step of the first
contact (the first step whose speed along the road changes by more than 5 % of the start speed, at least 0.05 m/s,
after the first START_STEPS), and each car's velocity along the road one step after it. Every figure must be <= LIMIT
(2 %) to pass, or, where PhysX's own rounding carries it as far (OUT, CYLINDER_OUT), within max(LIMIT, 1.5 x PhysX's
own spread with the whole world moved along X: tests/scenarios/places.py).
"""
from __future__ import annotations

import numpy as np
import pytest
from scenarios import vehicle_contact as scenario
from test_conformance_contact import UNITS, figure_table, held_to, own_spread_table, within
from test_conformance_ovphysx import LIMIT, Scenario, Stage, physx_against_copies, worst_relative

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

STEPS = 150  # 2.5 s: every pair has met and come (nearly) to rest
START_STEPS = 3  # steps whose speed changes are the car's start (the clutch taking up), not a contact
SIDES = ("A", "B")


def _stage(folder, units: str, scenarios: dict = scenario.SCENARIOS, stem: str = "vehicle_contact") -> Stage:
    path = folder / f"{stem}_{units}.usda"
    scenario.layer(scenarios, units).Export(str(path))
    return Stage(path, STEPS, [Scenario(f"{name} {side} ({units})", car, {car: {"accelerator": accelerator}})
                               for name in scenarios
                               for side, car, accelerator in zip(SIDES, scenario.cars(name),
                                                                 scenario.accelerators(name))])


def _first_contact(vx: np.ndarray, metres: float) -> int:
    change = np.abs(np.diff(vx))
    jumps = np.nonzero(change > 0.05 * max(abs(vx[0]), 1.0 / metres))[0]
    jumps = jumps[jumps >= START_STEPS]
    return int(jumps[0]) + 1 if jumps.size else -1


def _figures(name: str, mine: dict, ref: dict, metres: float) -> dict:
    body, rbody = mine["bodies"][name], ref["bodies"][name]
    norm = lambda b, k: np.linalg.norm(np.asarray(b[k], float), axis=1)  # noqa: E731
    position, rposition = np.asarray(body["position"], float), np.asarray(rbody["position"], float)
    path = max(float(np.linalg.norm(np.diff(rposition, axis=0), axis=1).sum()), 1.0 / metres)
    vx, rvx = np.asarray(body["linearVelocity"], float)[:, 0], np.asarray(rbody["linearVelocity"], float)[:, 0]
    first = (_first_contact(vx, metres), _first_contact(rvx, metres))
    after = min(max(first[1], 0) + 1, STEPS - 1)
    return {"speed": worst_relative(norm(body, "linearVelocity"), norm(rbody, "linearVelocity")),
            "ang.speed": worst_relative(norm(body, "angularVelocity"), norm(rbody, "angularVelocity")),
            "final pos": float(np.linalg.norm(position[-1] - rposition[-1]) / path),
            "contact step": first, "after": (float(vx[after]) * metres, float(rvx[after]) * metres)}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("vehicle_contact")
    stages = {units: _stage(folder, units) for units in UNITS}
    return figure_table(stages, lambda sc, mine, ref, metres: _figures(sc.vehicle, mine, ref, metres),
                        "contacts between vehicles: worst error relative to the run's peak; first contact step (ours, "
                        "PhysX); velocity along the road one step after PhysX's first contact (ours, PhysX) [m/s]")


NAMES = [f"{name} {side} ({units})" for units in UNITS for name in scenario.SCENARIOS for side in SIDES]
# name -> {figure: why it is not within the gate yet}
OUT: dict[str, dict[str, str]] = {
    # (the rear-end's pushed car, 2.5 % off in pitch and yaw at the impact, is within the gate since friction rows take
    # their anchor error unscaled, as PhysX 5.8 does: 0.3-0.6 %. The head-on at 8 m/s, 11.5 % off in angular speed
    # while two boxes met as polytopes (PhysX left both cars a yaw rate of 0.0036 rad/s at the impact, ours none), is
    # within it since they meet as PhysX's box-box test makes them, points in its order: 0.9-1.1 %.)
    # Push2: the pushing car's nose tilts until, at step 48, the upper corners of the boxes' faces, 0.1 mm apart, begin
    # to bear; how hard (PhysX 298 / 151 N) follows from the relative pitch the impact at step 41 left, about ten
    # times the pitch rate's error there. It was 3.9 / 24 % (m) while the standing car crept 44 um in float32 (one
    # move of v dt a step; PhysX's 16 moves of v dt / 16 leave it put: rigid_body.integrate_position); now 0.3 / 1.6 %
    # (m), 1.8 % for A in cm. What is left in cm: the pusher arrives 9 um behind PhysX's (its launch's speed agrees
    # to 2e-5 m/s), the impact's pitch rate is 0.02 mrad/s off, step 48's 0.6 mrad/s. PhysX against itself, the pair
    # moved 5 or 40 m sideways in the same run: 5.2 / 5.7 % for B in cm (1.6 / 2.1 % in m); 30 m along the road: 20 %.
    "Push2 B (cm_g)": {"ang.speed": "the push's pitch wobble (peak 5 mrad/s): 11.5 % (6.4 % on an AMD EPYC VM with the "
                                    "same code, 2026-12-05), all at step 48, where the boxes' "
                                    "upper corners begin to bear: the pusher arrives 9 um behind PhysX's (a launch "
                                    "speed 2e-5 m/s off); PhysX against itself moved 5-40 m sideways: 5-6 %, "
                                    "against its copy 30 m aside in one run: 26 / 14 % (m / cm)"},
}




def spread_gated(out: dict[str, dict[str, str]]) -> dict[str, tuple]:
    """`out`'s figures, by scenario and car without units: held to PhysX's own spread (test_conformance_contact's
    held_to), in both units."""
    return {name.rsplit(" (", 1)[0]: tuple(figures) for name, figures in out.items()}


def _own_spread(folder, scenarios: dict, stem: str) -> dict[str, dict[str, float]]:
    """PhysX's own spread, the whole world moved along X (test_conformance_contact.own_spread_table)."""
    return own_spread_table({units: _stage(folder, units, scenarios, stem) for units in UNITS}, folder,
                            lambda sc, moved, original, metres: _figures(sc.vehicle, moved, original, metres),
                            stem.replace("_", " "))


@pytest.fixture(scope="module")
def own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    return _own_spread(tmp_path_factory.mktemp("vehicle_contact_places"), scenario.SCENARIOS, "vehicle_contact")


# OUT's figures are within max(LIMIT, 1.5 x PhysX's own spread with the world moved): Push2 B's angular speed 7.5 % in
# cm (1.2 % in m) against PhysX moved 17.2 % (20.2 % in m), float32, numpy, ovphysx 0.7.
SPREAD_GATED = spread_gated(OUT)


def _gate(request, results, name: str, figure: str) -> None:
    got, gate = results[name][figure], held_to(request, "own_spread", SPREAD_GATED, name, figure)
    assert got <= gate, within(got, gate)


@pytest.mark.parametrize("name", NAMES)
def test_chassis_speed_matches_physx(request, results, name):
    _gate(request, results, name, "speed")


@pytest.mark.parametrize("name", NAMES)
def test_angular_speed_matches_physx(request, results, name):
    _gate(request, results, name, "ang.speed")


@pytest.mark.parametrize("name", NAMES)
def test_final_position_matches_physx(request, results, name):
    _gate(request, results, name, "final pos")


@pytest.mark.parametrize("name", NAMES)
def test_first_contact_is_the_same_step(results, name):
    ours, physx = results[name]["contact step"]
    assert physx > 0 and abs(ours - physx) <= 1, (ours, physx)


# A car's box into another car's wheel cylinder (scenario.CYLINDER_SCENARIOS, on a stage of their own): B's front
# left cylinder, 5.75 cm out of its box, is body 0's shape, and PhysX's pair takes A's box first
# (sim/contact/cylinder_faces.py `cylinder_convexes`): the cap's rim makes four points on A's nose, then B's box meets
# it. Both cars' speeds, B's angular speed and both final positions are within the gate at 4 and 6 m/s; at 4 m/s A's
# angular speed too (1.8 %, PhysX against its copy 1.7 %).
CYLINDER_NAMES = [f"{name} {side} ({units})" for units in UNITS for name in scenario.CYLINDER_SCENARIOS
                  for side in SIDES]
CYLINDER_OUT = {  # name -> {figure: why}: held to PhysX's own spread (CYLINDER_SPREAD_GATED)
    name: {"ang.speed": "A's roll rate in the step after the strike, -0.051 rad/s against PhysX's -0.075 (of a "
                        "0.31 rad/s peak): 8.6 % in m; in cm 8.6 % on the machine that measured it first, 1.6 % on "
                        "another; PhysX against its copy 30 m aside: 8.6 %"}
    for name in ("TBone6 A (m)", "TBone6 A (cm_g)")}
# Within max(LIMIT, 1.5 x PhysX's own spread with the world moved): ours 8.65 / 1.56 % (m / cm), PhysX moved 8.57 /
# 8.60 %, float32, numpy, ovphysx 0.7.
CYLINDER_SPREAD_GATED = spread_gated(CYLINDER_OUT)


@pytest.fixture(scope="module")
def cylinder_own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    return _own_spread(tmp_path_factory.mktemp("vehicle_cylinders_places"), scenario.CYLINDER_SCENARIOS,
                       "vehicle_cylinders")


@pytest.fixture(scope="module")
def cylinder_results(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("vehicle_cylinders")
    stages = {units: _stage(folder, units, scenario.CYLINDER_SCENARIOS, "vehicle_cylinders") for units in UNITS}
    return figure_table(stages, lambda sc, mine, ref, metres: _figures(sc.vehicle, mine, ref, metres),
                        "a car into another's wheel cylinder: worst error relative to the run's peak; first contact "
                        "step (ours, PhysX); velocity along the road one step after PhysX's first contact (ours, "
                        "PhysX) [m/s]")


@pytest.mark.parametrize("name, figure", [(name, figure) for figure in ("speed", "ang.speed", "final pos")
                                          for name in CYLINDER_NAMES])
def test_a_car_into_another_cars_wheel_cylinder_moves_both_as_in_physx(request, cylinder_results, name, figure):
    got, gate = cylinder_results[name][figure], held_to(request, "cylinder_own_spread", CYLINDER_SPREAD_GATED, name,
                                                         figure)
    assert got <= gate, within(got, gate)


@pytest.mark.parametrize("scenarios, out", [(scenario.SCENARIOS, OUT), (scenario.CYLINDER_SCENARIOS, CYLINDER_OUT)],
                         ids=["pairs", "wheel cylinders"])
def test_physx_against_its_copy_spreads_as_far_where_the_pairs_are_marked(tmp_path, scenarios, out):
    """What OUT and CYLINDER_OUT rest on: each pair copied 30 m aside in one ovphysx run meets at the same step and
    ends where it does, but the marked figures spread over the gate (in one units at least)."""
    spread = {}
    for units in UNITS:
        stage, metres = _stage(tmp_path, units, scenarios, "copies"), (0.01 if units == "cm_g" else 1.0)
        spread.update(physx_against_copies(stage, [sc.name for sc in stage.scenarios], tmp_path,
                                           lambda sc, copy, ref: _figures(sc.vehicle, copy, ref, metres)))
    print()
    for name, row in spread.items():
        print(f"PhysX against its copy: {name:22s} speed {100 * row['speed']:7.3f} %  ang.speed "
              f"{100 * row['ang.speed']:7.3f} %  final pos {100 * row['final pos']:7.3f} %")
        copy, original = row["contact step"]
        assert copy == original and row["final pos"] <= LIMIT, (name, row)
    for name, figures in out.items():
        for figure in figures:
            base = name.rsplit(" (", 1)[0]
            assert max(spread[f"{base} ({units})"][figure] for units in UNITS) > LIMIT, (name, figure)

