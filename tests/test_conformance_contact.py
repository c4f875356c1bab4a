"""Contacts of the vehicle's own shapes with the static world against real PhysX (ovphysx 0.7, CPU), with the machinery
of tests/test_conformance_ovphysx.py (scenarios: tests/scenarios/contact.py): the sample car into a ridge between its
wheel tracks at 3, 6 and 10 m/s, into a curb across the track at 4 m/s, dropped upside down onto its chassis, with
collision cylinders on its wheels touching the ground or filtered from it (full throttle from rest), and with a
convex-hull chassis scraping over a triangle-mesh hump at 6 m/s, with a capsule chassis into a ridge, a sphere chassis
onto a box's edge, and dropped with a chassis of restitution 1 faster and slower than the scene's bounce threshold; in
metres and kilograms and in centimetres and grams.
The cars but the driven ones roll in with the accelerator at 0.

Figures (the worst deviation relative to the run's peak, test_conformance_ovphysx.figures' metric) for chassis speed,
angular speed and final position over the whole run; the table also gives, per scenario, the step of the first
contact (`_first_contact`: the first step whose velocity change is no free motion, in either simulator) and the
chassis speeds one step after it (the driven cars: at 1.5 s). Every figure must be <= LIMIT (2 %) to pass; the
scenarios that do not yet are marked xfail (strict) with what they measure, so that a change that brings them within
the gate shows.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from scenarios import contact
from test_conformance_ovphysx import DT, LIMIT, RUN, Scenario, Stage, physx_run, run_sim, worst_relative

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

STEPS = 150  # 2.5 s: every car has met its obstacle (or the ground) and come to rest
DRIVEN_AT = 90  # 1.5 s
START_STEPS = 3  # steps whose speed changes are the car's start, not a contact
VARIANT = "float32, numpy"
UNITS = ("m", "cm_g")


def _stage(folder, units: str) -> Stage:
    path = contact.obstacles(folder / f"obstacles_{units}.usda", units)
    return Stage(path, STEPS, [Scenario(f"{name} ({units})", f"/World/{name}",
                                        {f"/World/{name}": {"accelerator": contact.ACCELERATOR.get(name, 0.0)}})
                               for name in contact.CARS])


def _first_contact(name: str, velocity: np.ndarray, metres: float) -> int:
    """The first step whose velocity change is no free motion: for the drop, the fall slowed by more than half of
    gravity's change in one step; for the others, the speed along the road changed by more than 5 % of the start
    speed (at least 0.05 m/s) in one step (-1: none). Driven cars (contact.ACCELERATOR) touch from the start."""
    if name in contact.ACCELERATOR:
        return 1
    change = np.diff(velocity, axis=0)
    if name in contact.DROPS:
        jumps = np.nonzero(change[:, 2] * metres > -0.5 * 9.81 * DT)[0]
    else:  # after the first steps, whose drivetrain start (the clutch taking up at rest) jolts the speed too
        jumps = np.nonzero(np.abs(change[:, 0]) > 0.05 * max(abs(velocity[0, 0]), 1.0 / metres))[0]
        jumps = jumps[jumps >= START_STEPS]
    return int(jumps[0]) + 1 if jumps.size else -1


def _figures(scenario: Scenario, mine: dict, ref: dict, metres: float) -> dict[str, float]:
    body, rbody = mine["bodies"][scenario.vehicle], ref["bodies"][scenario.vehicle]
    norm = lambda b, k: np.linalg.norm(np.asarray(b[k], float), axis=1)  # noqa: E731
    speed, rspeed = norm(body, "linearVelocity"), norm(rbody, "linearVelocity")
    path = max(float(np.linalg.norm(np.diff(np.asarray(rbody["position"], float), axis=0), axis=1).sum()), 1.0 / metres)
    name = scenario.vehicle.rsplit("/", 1)[-1]
    first = [_first_contact(name, np.asarray(b["linearVelocity"], float), metres) for b in (body, rbody)]
    return {"speed": worst_relative(speed, rspeed),
            "ang.speed": worst_relative(norm(body, "angularVelocity"), norm(rbody, "angularVelocity")),
            "final pos": float(np.linalg.norm(np.asarray(body["position"][-1], float)
                                              - np.asarray(rbody["position"][-1], float)) / path),
            "contact step": first, "after": (float(speed[_after(name, first[1])]) * metres,
                                             float(rspeed[_after(name, first[1])]) * metres)}


def _after(name: str, first: int) -> int:
    """The step whose speeds the table compares: one after the first contact; for a driven car, 1.5 s into the run
    (how far dragging wheel shapes held it back)."""
    return DRIVEN_AT if name in contact.ACCELERATOR else min(first + 1, STEPS - 1)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, dict[str, float]]:
    folder = tmp_path_factory.mktemp("contact")
    stages = {units: _stage(folder, units) for units in UNITS}
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = {units: pool.submit(physx_run, stage) for units, stage in stages.items()}
        ours = {units: run_sim(stage, RUN[VARIANT]) for units, stage in stages.items()}
        refs = {units: run.result() for units, run in pending.items()}
    rows = {}
    for units, stage in stages.items():
        metres = 0.01 if units == "cm_g" else 1.0
        for scenario in stage.scenarios:
            rows[scenario.name] = _figures(scenario, ours[units], refs[units], metres)
    print(f"\n{VARIANT} vs ovphysx, contact scenarios: worst error relative to the run's peak; first contact step "
          "(ours, PhysX); chassis speed one step after it, driven cars at 1.5 s (ours, PhysX) [m/s]")
    for name, f in rows.items():
        print(f"{name:20s} speed {100 * f['speed']:8.3f}%  ang.speed {100 * f['ang.speed']:8.3f}%  final pos "
              f"{100 * f['final pos']:8.3f}%  contact step {f['contact step']}  after {f['after'][0]:.3f} / "
              f"{f['after'][1]:.3f}")
    return rows


NAMES = [f"{name} ({units})" for units in UNITS for name in contact.CARS]


# The convex hull scraping the mesh hump: 3.2 % speed, 0.7 % final position, the first contact in the same step
# (42) and the same speed one step after it (1.380 m/s). PCM's convex-triangle contacts (sim/contact.py): the hull's
# underside meets the ramp's crest with the ramp's normal (a face within 45 degrees of facing the triangle), points
# on the triangle, which the speculative contact strikes as the hull slides on (ovphysx's contact report: the same
# points, normals and separations at step 27); before that 8.4 % speed, 11.8 % final position, no first contact.
# What is left: PCM's manifold kept across steps and its deferred contacts, not reproduced.
HULL_OUT = pytest.mark.xfail(strict=True, reason="convex hull on a triangle mesh: PhysX's PCM mesh contacts")
# The car pivoting on its chassis edge and rolling back onto its wheels: 4.4 % (3.6 % in cm) speed, 0.27 % final
# position (4.2 % before its two edge corners came in PhysX's box-plane order, 4.7 % before friction anchors were kept
# across steps); PCM's manifold kept across steps is not reproduced.
ROLL_OUT = pytest.mark.xfail(strict=True, reason="rolling on the chassis edge: PCM's edge manifold")


def _marked(names, marks: dict) -> list:
    return [pytest.param(n, marks=[m for key, m in marks.items() if n.startswith(key)]) for n in names]


# The sphere falling onto a box's edge: the contact's normal runs from the edge to the centre, (-0.19, 0, 0.98) as
# PhysX's sphere-box contact has it, but the glance leaves it -0.07 m/s sideways against PhysX's -0.24 (7.4 % speed,
# 0.65 % final position). With both materials frictionless the two runs agree to 1 mm/s for the 8 steps after the
# impact: the contact is PhysX's, its friction is not (the first point is 2.3 cm apart, speculative; its friction
# anchor is there).
SPHERE_EDGE_OUT = pytest.mark.xfail(strict=True, reason="sphere glancing off a box's edge: the speculative point's "
                                                        "friction")
# The bounce itself is PhysX's (1.433 against 1.453 m/s up, restitution 0.5 of 2.8 m/s; the second landing, at 0.85
# m/s, below the 2 m/s threshold in both), but the flat landing's sideways kick differs (0.055 against -0.103 m/s,
# the symmetric impact's contact order, as in Drop), and the car lands on a corner differently: 12 % speed, 4.8 %
# final position over the run.
BOUNCE_OUT = pytest.mark.xfail(strict=True, reason="bounced car: the symmetric landing's sideways kick")


@pytest.mark.parametrize("name", _marked(NAMES, {"HullOnHump": HULL_OUT, "Rollover": ROLL_OUT,
                                                 "SphereOnEdge": SPHERE_EDGE_OUT,
                                                 "Bounce (": BOUNCE_OUT}))
def test_chassis_speed_and_final_position_match_physx(results, name):
    got = results[name]
    bad = {k: round(100 * got[k], 3) for k in ("speed", "final pos") if not got[k] <= LIMIT}
    assert not bad, f"{name}: over {100 * LIMIT:g}% (in %): {bad}"


# The angular speed after an impact is not within the gate yet but in the curb runs: a symmetric impact's roll and yaw
# come from how the solver spreads the impulse over the contact points and the patch's two friction anchors. Boxes
# now make PhysX's points in PhysX's order (sim/pcm_box.py; ovphysx's contact report at the ridge's, curb's and drop's
# impact gives the same points, order, separations and anchors, and normal forces within 0.2-3 %), which brought the
# curb in cm from 17.5 % to 0.8 % and Ridge10 from 62 % to 47 %, the drop from 47 % to 45 %; what is left is in the
# friction rows: at the impact ovphysx reports the same total friction force but spread otherwise over the two
# anchors (Ridge10: 19.5 and 10.4 kN vertical, ours 12.5 and 16.9 kN; the drop: twice our sideways friction).
# The solve itself is PhysX's as its source has it: tools/tgs_patch_solve.py re-solves our rows of an impact step with
# a line-by-line transcription of DyTGSContactPrep.cpp and gets our impulses to 0.1 N (Ridge10, Drop, Curb, Ridge3).
# The two runs part within the impact step's position iterations: after Ridge10's, position, pitch and yaw agree to
# 1e-5 (m, rad) but the car has rolled 7.5e-4 rad against PhysX's 1.9e-4, from the same contact rows.
ANGULAR_OUT = pytest.mark.xfail(strict=True, reason="roll and yaw after a symmetric impact: the impact step's roll")


@pytest.mark.parametrize("name", [pytest.param(n, marks=[] if n.startswith("Curb") else [ANGULAR_OUT]) for n in NAMES])
def test_angular_speed_matches_physx(results, name):
    assert results[name]["ang.speed"] <= LIMIT, round(100 * results[name]["ang.speed"], 3)


@pytest.mark.parametrize("name", NAMES)
def test_first_contact_is_the_same_step(results, name):
    ours, physx = results[name]["contact step"]
    assert abs(ours - physx) <= 1, (ours, physx)
