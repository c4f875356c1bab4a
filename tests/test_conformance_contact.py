"""Contacts of the vehicle's own shapes with the static world against real PhysX (ovphysx 0.7, CPU), with the machinery
of tests/test_conformance_ovphysx.py (scenarios: tests/scenarios/contact.py): the sample car into a ridge between its
wheel tracks at 3, 6 and 10 m/s, into a curb across the track at 4 m/s, dropped upside down onto its chassis, with
collision cylinders on its wheels touching the ground or filtered from it (full throttle from rest), and with a
convex-hull chassis scraping over a triangle-mesh hump at 6 m/s, with a capsule chassis into a ridge, a sphere chassis
onto a box's edge, dropped with a chassis of restitution 1 faster and slower than the scene's bounce threshold,
rolling over its chassis edge on a triangle-mesh slope, into a static sphere (Boulder), over a static capsule lying
across the road with raycasts and with sweeps (Log, LogSwept), into a thick log with its chassis nose (LogStrike), and
with a sphere chassis dropped onto a static capsule (SphereOnLog); in metres and kilograms and in centimetres and grams.
On a stage of their own, wheel cylinders rolled into curbs and logs: a box's edge, a convex hull's sloping face, a
static capsule and a static sphere (CURB_OUT).
The cars but the driven ones roll in with the accelerator at 0. Three more
run on triangle-mesh roads with wheel cylinders (flat and over a bump driven, over the bump rolled in: WHOLE_RUN_CHAOS;
the flat road rolled in: CYLINDER_LOAD_OUT).

Figures (the worst deviation relative to the run's peak, test_conformance_ovphysx.figures' metric) for chassis speed,
angular speed and final position over the whole run; the table also gives, per scenario, the step of the first
contact (`_first_contact`: the first step whose velocity change is no free motion, in either simulator) and the
chassis speeds one step after it (the driven cars: at 1.5 s). Every figure must be <= LIMIT (2 %) to pass, or, where
PhysX's own rounding carries it as far (SPREAD_GATED, CURB_OUT), within max(LIMIT, 1.5 x PhysX's own spread): the
stage run again in ovphysx with the whole world moved 7.3, 30 and -13.1 m along X (tests/scenarios/places.py;
recorded runs). The figures outside that are strict xfails that give both figures (SPREAD_OUT, CURB_SPREAD_OUT).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
from pxr import Usd
from scenarios import contact
from scenarios.places import PLACES_M, SPREAD_FACTOR, self_spread, spread_gate
from test_conformance_ovphysx import (
    DT,
    LIMIT,
    RUN,
    Scenario,
    Stage,
    physx_against_copies,
    physx_run,
    run_beside_physx,
    run_sim,
    worst_relative,
)

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
    return figure_table(stages, _figures, "contact scenarios: worst error relative to the run's peak; first contact "
                        "step (ours, PhysX); chassis speed one step after it, driven cars at 1.5 s (ours, PhysX) [m/s]")


def _contact_row(f: dict) -> str:
    return (f"speed {100 * f['speed']:8.3f}%  ang.speed {100 * f['ang.speed']:8.3f}%  final pos "
            f"{100 * f['final pos']:8.3f}%  contact step {f['contact step']}  after {f['after'][0]:.3f} / "
            f"{f['after'][1]:.3f}")


def figure_table(stages: dict[str, Stage], figures: Callable[[Scenario, dict, dict, float], dict],
                 heading: str, row: Callable[[dict], str] = _contact_row) -> dict[str, dict]:
    """Each scenario's figures (`figures(scenario, ours, PhysX's, metres per stage unit)`) from both simulators' runs
    of the stages (one per UNITS), printed as a table under `heading`, a line per scenario (`row(figures)`)."""
    ours, refs = run_beside_physx(stages, lambda stage: run_sim(stage, RUN[VARIANT]))
    rows = {}
    for units, stage in stages.items():
        metres = 0.01 if units == "cm_g" else 1.0
        for scenario in stage.scenarios:
            rows[scenario.name] = figures(scenario, ours[units], refs[units], metres)
    print(f"\n{VARIANT} vs ovphysx, {heading}")
    width = max(len(name) for name in rows) + 1
    for name, f in rows.items():
        print(f"{name:{width}s} {row(f)}")
    return rows


NAMES = [f"{name} ({units})" for units in UNITS for name in contact.CARS]
FIGURES = ("speed", "ang.speed", "final pos")


def own_spread_table(stages: dict[str, Stage], folder, figures: Callable[[Scenario, dict, dict, float], dict],
                     heading: str, quantities: tuple[str, ...] = FIGURES) -> dict[str, dict[str, float]]:
    """PhysX's own spread per scenario and figure (`quantities`): each units' stage run again with the whole world
    moved along X (tests/scenarios/places.py), the largest `figures(scenario, moved run, run in place, metres per
    unit)` over the places; printed under `heading`. The moved runs are recorded as every PhysX run is."""
    spread: dict[str, dict[str, float]] = {}
    for units, stage in stages.items():
        metres = 0.01 if units == "cm_g" else 1.0
        spread.update(self_spread(stage, folder, physx_run, lambda sc, moved, original, metres=metres: {
            k: v for k, v in figures(sc, moved, original, metres).items() if k in quantities}))
    print(f"\nPhysX moved {PLACES_M} m along X against PhysX in place, {heading}: the largest over the places")
    width = max(len(name) for name in spread) + 1
    for name, f in spread.items():
        print(f"{name:{width}s} " + "  ".join(f"{k} {100 * f[k]:8.3f}%" for k in quantities))
    return spread


@pytest.fixture(scope="module")
def own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    """PhysX's own spread on the contact stages (own_spread_table), for the figures gated by it (SPREAD_GATED)."""
    folder = tmp_path_factory.mktemp("contact_places")
    return own_spread_table({units: _stage(folder, units) for units in UNITS}, folder, _figures, "contact scenarios")


# The convex hull scraping the mesh hump is within the gate since PCM's manifolds keep their points from step to step
# (sim/contact/persistence.py): PhysX re-measures the crest's points on every other step (the hull moves 9.5 mm a step,
# the mesh manifold is made anew after 10 mm), which struck the crest a second time at step 74 where ours, made anew
# every step, struck at 76: 3.2 % speed, 29.6 % angular speed, 0.7 % final position before, 0.001 / 0.04 / 0.000 % now.
# The roll-over on flat ground likewise (the chassis box's plane manifold, kept while it turns less than a degree):
# 0.6 / 1.1 % speed and 1.6 / 2.7 % angular speed before (m / cm+g), 0.04 / 0.02 % and 0.09 / 0.03 % now.
# The capsule into the ridge too (its manifold's point, kept on the capsule's core, is reported where the capsule has
# rolled, with the normal it was made with; made anew each step the point sat on the ridge's edge and the friction
# patch slid a step early in centimetres): 8.2 % angular speed in cm+g before, 0.7 % now (0.9 % in m).


# (Rolling over the chassis edge, the sphere glancing off a box's edge and the bounced car, 4.4 %, 7.4 % and 13.8 %
# off in speed before, are within the gate since friction rows take their anchor error unscaled, as PhysX 5.8 does:
# 0.6-1.1 %, 0.4 % and 0.05 %. The sphere's angular speed, 4.2 % off while its first, speculative contact sat on the
# sphere 2.4 cm from the box's edge, is within 0.01 % (speed 0.002 %) since a sphere's point against a box is on the
# box, as PhysX's sphere-box contact puts it: the friction of that contact turned the sphere about another arm.)


# The wheel cylinders on a triangle-mesh road (sim/contact/cylinder_faces.py): PhysX itself is chaotic there over the
# whole run, in speed and position too. Each cylinder meets the edges between the road's triangles with PhysX's
# speculative contacts on a neighbour's edge (its normal tilted by the rim, 0.3-1 mm away, kept: adjacency does not hide
# an edge within 8 degrees of the face), which kick the car up as it rolls over them, and rests on the faces with EPA's
# normals, which float32 tilts by up to 0.2 degrees 340 m from the origin: the car rides up on its cylinders (the
# suspension 1-10 cm less compressed) by an amount each run's rounding decides: every figure is held to PhysX's own
# spread with the world moved (SPREAD_GATED).
WHOLE_RUN_CHAOS = {  # ranges: over runs with three and four such cars (each changes the others' rounding)
    "WheelsOnMesh": "driven, wheel cylinders on a flat two-triangle mesh road: ours 31 / 54 % speed, 98 / 57 % "
                    "angular speed, 12 / 23 % final position (m / cm; with GJK / EPA in double before: 12-20 / 27-90 "
                    "%, 69-97 / 81-96 %, 2.2-5.5 / 7.5-40 %); PhysX against its copy: 17-53 / 6-74 %, 79-165 / 67-196 "
                    "%, 5.7-15 / 0.3-23 %; the 30-corner hulls before: 33 / 10 %, 113 / 79 %, 8.4 / 3.2 %",
    "WheelsOnBump": "driven, wheel cylinders over a mesh bump's edges: ours 20 / 25 %, 71 / 83 %, 12 / 12 % (GJK / "
                    "EPA in double before: 18-36 / 15-30 %, 69-113 / 90-96 %, 0.7-23 / 2.7-18 %); PhysX against its "
                    "copy: 29-34 / 24-28 %, 84-91 / 63-90 %, 17-24 / 11-14 %; the hulls before: 14 / 40 %, 123 / 107 "
                    "%, 3.1 / 21 %",
    "WheelsOverBump": "rolled at 8 m/s onto a mesh bump, wheel cylinders dragging: ours 5.6 / 1.4 %, 53 / 26 %, 9.0 / "
                      "2.3 % (GJK / EPA in double before: 2.9-4.6 / 0.5-1.7 %, 53-58 / 5-15 %, 3.8-7.3 / 0.6-2.8 %), "
                      "the first contact at step 8 as PhysX's (the rear left cylinder's patch on the diagonal edge "
                      "beside it, 10.8 mm away, normal tilted 0.41 rad), the front cylinders' strike on the bump's "
                      "first edge (step 17) 12 / 11 kN on the slope's normal in double against PhysX's 14 / 7 kN; "
                      "PhysX against its copy: 0.9-7.1 / 2.0-8.9 %, 7-155 / 51-87 %, 1.2-7.8 / 3.4-20 % (its copy's "
                      "first contact at step 15 in some runs); the hulls before: 7.8 / 7.7 %, 84 / 86 %, 5.2 / 4.9 %, "
                      "the first contact at step 15",
}


# ... and rolled in on the flat road, where a cylinder meets the diagonal edge only in the last steps, PhysX's copy 30 m
# aside stays within 0.9 % in speed and position, but PhysX at another place does not (its final position 1.4 % off
# at the median, over 2 % at a third of the places): its cylinder patches' normals tilt off the flat road by a few
# mrad, the float32 rounding of its reference GJK's axis (sim/contact/cylinder_faces.py, which now rounds as PhysX
# does), and a patch tilted backwards stops the approach the car's speed makes along it. Ours tilts by the same
# rounding, but which patch tilts which way is each run's rounding, ours and PhysX's parting from step 2 on; over many
# places every distribution agrees and ours against PhysX spreads as PhysX against itself: held to PhysX's own spread
# (SPREAD_GATED; the final position in m is over it: SPREAD_OUT). The stage changes PhysX's rounding too: it batches
# the constraints of different bodies four at a time into SIMD rows (a batch header of stride 4: DyTGSDynamics.cpp,
# DyTGSContactPrepBlock.cpp) and solves a batch of 1 to 3 one at a time (DyTGSContactPrep.cpp), as ours solves every
# vehicle: a car's run changes once 3 others share its solve.
CYLINDER_LOAD_OUT = {
    "WheelsRolling": "rolled at 8 m/s on the flat two-triangle road, wheel cylinders dragging; at steps 95-114 "
                     "(4.7-4.95 m, 0.3-0.9 m/s) the front right cylinder's outer rim reaches the triangles' diagonal: "
                     "ours 2.4 / 1.8 % speed, 98 / 79 % angular speed, 2.8 / 4.6 % final position (m / cm; with GJK / "
                     "EPA in double before: 2.6-4.1 / 3.1-3.6 %, 85-99 / 85-87 %, 6.7-7.7 / 8.3-10.0 %; in float32 "
                     "with the core not turned with the wheel: 1.5 / 0.6 %, 99 / 105 %, 0.4 / 1.5 %), PhysX against "
                     "its copy 0.4-0.9 / 0.8-1.1 %, 77-84 / 77-112 %, 0.6 / 0.3-0.9 %. The contacts match PhysX's at "
                     "step 1 (three a cylinder, the same points and separations to 0.1 mm), their normals too: PhysX "
                     "tilts a patch's normal off the road's (median 2.5 mrad, 90 % under 10.5, rms 6.6 along the car, "
                     "1.8 % over 0.1 rad; at the origin too) by the float32 rounding of GJK's point nearest the "
                     "origin, a cylinder support point less triangle corners tens of metres away over a 0.2 mm gap; "
                     "ours, in float32 too, its step-1 normals PhysX's within 0.01 mrad, over the run 2.9 mrad, 12.3, "
                     "7.1, 2.0 % (in double before: none). The tilts over 0.1 rad are the diagonal's: a point on the "
                     "rim beside the flat ones, most of its load at 20-45 degrees (92 / 84 %; 4-17 kN for a step), "
                     "about 10 steps a run, in both (98 runs: 971 / 1028 such points, 9.0 / 10.2 kN s). A normal "
                     "tilted backwards turns the forward speed into an approach (6 m/s x 10 mrad = 60 mm/s) that the "
                     "patch stops: PhysX's patches tilted back by over 3 mrad take 974 N on average, those tilted "
                     "forwards 186 N, the flat ones 451 N. Chaos, not a bias: the car alone (m) heading +x at 80 "
                     "places (x -620 to 820 m, y -870 to 905 m) and at 18 more places and headings goes 5.14 m in "
                     "PhysX, 5.12 in ours (sd 0.074 / 0.083 m; ours 0.014 +- 0.010 m shorter at the same place; in cm "
                     "at 20 places 5.11 / 5.08 m, 0.030 +- 0.023), and every distribution measured over the runs "
                     "agrees: the cylinders' load (4.36 / 4.47 kN s a run, sd 0.59 / 0.67), friction over load while "
                     "sliding off the diagonal (0.650 / 0.650), points a patch (3.07 / 3.07), separations (10 / 50 / "
                     "90 %: -0.20 / 0.07 / 0.28 mm, ours -0.22 / 0.07 / 0.28), the share of points tilted forwards and "
                     "backwards and the load they take, rise (17.5 / 18.1 mm), pitch (5.6 / 5.6 mrad), peak angular "
                     "speed (67 / 65 mrad/s); in both the travel falls as the cylinders' load rises. Ours against "
                     "PhysX at the same place spreads as PhysX does against itself at another place (m, the 80 grid "
                     "places' 6320 pairs): speed median 1.16 % (over 2 % at 19 % of the places) against 1.19 % (16 %), "
                     "final position 1.36 % (33 %) against 1.39 % (34 %). PhysX's own run changes with the stage (see "
                     "above): this car goes 5.103 m alone and beside 1 or 2 others, 5.091 beside 3, 5.055 on this "
                     "stage (ours 5.193); ours against PhysX alone: 0.70 % speed, 73 % angular speed, 1.82 % final "
                     "position; PhysX alone against PhysX here: 1.73 / 97 / 0.99 %. Not the solve order: PhysX's "
                     "step-1 split over the front cylinders (FR / FL) changes with the place (1242 / 0 N at y = -400, "
                     "310 / 2188 at -200, 75 / 1059 at 0) while the order it reports the patches in stays FR FL RL RR "
                     "along y",
}


# WheelsRolling's places for PhysX against itself (test_physx_at_other_places_spreads_as_far_as_ours_where_wheels_roll)
ROLLING_PLACES_M = (-560.0, -320.0, -150.0, 100.0, 250.0, 430.0, 700.0)


def test_physx_at_other_places_spreads_as_far_as_ours_where_wheels_roll(tmp_path):
    """What CYLINDER_LOAD_OUT rests on: WheelsRolling and its road copied to ROLLING_PLACES_M along X, the other cars
    removed, in one ovphysx run: PhysX at some other place is farther than the gate from PhysX at the original place
    in final position, and ours is no farther from it than PhysX's farthest place, in speed and in final position."""
    from scenarios.copies import as_original, placed_path, with_placements
    from test_conformance_ovphysx import RECORDED

    from physxvehicle_usd import oracle

    car, road = "/World/WheelsRolling", contact.obstacle_path("WheelsRolling")
    source = contact.obstacles(tmp_path / "obstacles_m.usda", "m")
    others = [f"/World/{name}" for name in contact.CARS if name != "WheelsRolling"]
    placed = with_placements(source, tmp_path / "placed.usda", car, ROLLING_PLACES_M, others, [road])
    alone = with_placements(source, tmp_path / "alone.usda", car, (), others, [road])
    ref = oracle.run_ovphysx(placed, STEPS, DT, controls={}, telemetry=RECORDED)
    ours = run_sim(Stage(alone, STEPS, [Scenario("WheelsRolling", car, {car: {"accelerator": 0.0}})]), RUN[VARIANT])
    scenario = Scenario("WheelsRolling", car, {})
    physx = [_figures(scenario, as_original(ref, car, 1.0, placed_path(car, k), offset), ref, 1.0)
             for k, offset in enumerate(ROLLING_PLACES_M)]
    mine = _figures(scenario, ours, ref, 1.0)
    print("\nWheelsRolling: PhysX at", ROLLING_PLACES_M, "against PhysX at the original place, final position [%]:",
          [round(100 * f["final pos"], 2) for f in physx], "speed [%]:", [round(100 * f["speed"], 2) for f in physx],
          "; ours:", round(100 * mine["final pos"], 2), round(100 * mine["speed"], 2))
    assert max(f["final pos"] for f in physx) > LIMIT
    for figure in ("speed", "final pos"):
        assert mine[figure] <= max(f[figure] for f in physx), figure


# The angular speed after an impact: the ridges', curb's and bounce's impacts are PhysX's since friction rows take their
# anchor error unscaled, as PhysX 5.8 does (frictionBiasScale = invDt; 5.6.1 scaled it by min(0.8, biasCoefficient));
# before, the same contact points, normal forces and total friction left the two anchors' friction spread otherwise and
# the car rolled the other way (Ridge10 47 %, now 0.2 %). What is left, per run (m / cm_g), is as far from PhysX as
# PhysX is from itself: each reason gives "PhysX against its copy", the car and its obstacle copied 30 m aside in the
# same ovphysx run with the same inputs (test_physx_against_its_copy_spreads_about_as_far_as_ours; Ridge6's copy, the
# control, 0.26 / 0.35 %):
# - the driven cars: the launch from rest, whose chattering wheels (tests/test_conformance_ovphysx.py's SETTLE_S) make a
#   1-ulp left/right difference chaotic: PhysX's wheel speeds differ left to right in the 7th digit after the first
#   step, and its yaw is 5 mrad/s at step 5, bit for bit the same with the wheel shapes deactivated and the car 10 m
#   elsewhere. The rounding is in its engine drivetrain's coupled solve: the fleet's engine-driven cars all show it,
#   its direct-drive cars (raw wheel torques, basic drive) keep left and right equal to the bit and no yaw at all, as
#   ours do throughout; ours tracks PhysX after 1.5 s;
# - Drop, NoBounce: the car resting on its roof 40 or 200 m from the origin, where a float32 position steps by 4e-6 or
#   1.5e-5 m, a friction anchor's error by as much: both simulators settle in a jitter of their own;
# - RolloverSlope, LogStrike: a tip-over on an edge and a nose settling on a round log, which PhysX's own rounding moves
#   as far.
# Each is held to PhysX's own spread with the world moved (SPREAD_GATED): within it, but LogStrike in m (SPREAD_OUT).
ANGULAR_OUT = {
    "Drop": "dropped flat on the roof: rates under 1 mrad/s after the landing against a 0.026 rad/s peak, 2.0 / 2.9 %; "
            "PhysX against its copy: 2.5 / 4.6 % (the same landing step and speed). The landing matches to 0.1 N; at "
            "rest PhysX's two friction anchors pull against each other (+-200 N, ours +-10 N), as anchor errors of a "
            "few float32 steps 40 m from the origin would",
    "WheelsTouching": "wheel cylinders dragging, full throttle from rest: 57 / 43 % of the run's peak (m: 5.9 mrad/s, "
                      "the pitch at step 130; cm: 9.4 mrad/s, PhysX's launch yaw at step 10), all in the yaw of the "
                      "launch: over 2 % from step 4 to 26 (PhysX's copy: 4 to 25), after 1.5 s under 1.6 / 0.9 % "
                      "(its copy 1.1 / 1.0 %); PhysX against its copy: 55 / 32 %. At step 4, where everyone's "
                      "chattering wheels part left from right, the yaw rates are ours -4.4, PhysX +4.7, its copy "
                      "-0.7 mrad/s. The cylinders' contacts are PhysX's: 8 points, two per cylinder at the ends of its "
                      "lowest line, within 0.1 mm every step; the first step's normal forces PhysX's to 0.1 N (its "
                      "copy's cylinders 3 N apart), after which how a cylinder's two points share its load is "
                      "rounding's (step 9, rear cylinders: ours 285 / 186 N, PhysX 183 / 255, its copy 159 / 248); "
                      "the order PhysX reports the cylinders in changes with the car's place",
    "WheelsFiltered": "driven, wheel shapes filtered: the launch's pitch and yaw against a 0.037 rad/s peak (the pitch "
                      "at step 130), 7.2 / 10.9 %, over 2 % from step 5 to 25 (from 1.5 s on 0.01 %); PhysX against "
                      "its copy: 7.2 / 8.7 %. At step 9 the pitch rates are ours -16.3, PhysX -19.0, its copy -16.4 "
                      "mrad/s; PhysX's yaw reaches 3.8 mrad/s (its copy's the other way), ours none",
    "NoBounce": "dropped below the bounce threshold: rates under 1 mrad/s at rest against a 0.0065 rad/s peak, "
                "6.4 / 12.4 %: float32 noise of a pose 200 m from the origin (at the origin: 0.04 / 3.0 %); PhysX "
                "against its copy: 9.5 / 13.4 %",
    "LogStrike": "the chassis nose into a log (PCM capsule-box): the strike is PhysX's (points, normals, impulses; "
                 "the manifold kept as PhysX keeps it, sim/contact/persistence.py); left: the nose settling on the log with "
                 "sliding friction on two points at about zero separation (steps 27-32, up to 4 mrad/s against a "
                 "0.085 rad/s peak), 3.1 / 3.8 %, which float32 rounding decides, in PhysX too. PhysX's step 27 is "
                 "ours with the kept anchors' 3e-6 m sideways drift set to 0 (to 1e-5 m/s; else 1.7e-4), as a "
                 "float32 sum in world coordinates rounds it 320 m out (a 3e-5 m grid). With the car at the origin "
                 "step 27 matches as it is, and step 28 turns on a contact that the step before closed: its "
                 "separation, -1.4e-8 m here and +6.6e-7 m in PhysX, picks the penetrating (0.5/h) or the "
                 "speculative (1/h) bias for the whole step (at +1e-7 m ours is PhysX's step 28 to 4e-5 rad/s); at "
                 "the origin 2.8 / 2.5 %. PhysX against its copy: 1.7 / 5.3 % (the log copied with the car; 0.7-3.9 "
                 "/ 0.1-5.3 % over other placements)",
}


# A figure that rounding carries to either side of the gate (a merge elsewhere moves it): held to PhysX's own spread
ANGULAR_EITHER_SIDE = {
    "RolloverSlope": "tipping over the side-roof edge onto the roof (steps 86-90, the edge lifting off the "
                     "slope): m / cm 2.2 / 1.7 % on its helper's branch, 1.3 / 3.3 % merged with main's other contact "
                     "work; PhysX against its copy: 0.9 / 0.8 % in this file's run, 1.1 / 3.1 % with one car fewer "
                     "in it. The first strike and the roof landing match PhysX (its contact order, anchors and "
                     "forces); in the tip-over PhysX's own normal force on the edge at a step ranges over 0.7-4.3 kN "
                     "when the car starts 1-3 mm further along the slope",
}


# The figures held to PhysX's own spread instead of LIMIT (issue 32's rule: max(LIMIT, SPREAD_FACTOR x PhysX moved
# against PhysX in place, own_spread)): those whose reasons above show PhysX's own rounding carrying them as far, the
# whole-run chaos of wheel cylinders on a mesh road in every figure, the settling and tip-overs in angular speed.
SPREAD_GATED = {**{name: FIGURES for name in (*WHOLE_RUN_CHAOS, *CYLINDER_LOAD_OUT)},
                **{name: ("ang.speed",) for name in (*ANGULAR_OUT, *ANGULAR_EITHER_SIDE)}}
# ... and those outside even that, strictly, (name, figure) -> ours against PhysX in place and PhysX's own spread, as
# measured (float32, numpy; ovphysx 0.7 moved 7.3, 30, -13.1 m along X):
SPREAD_OUT = {
    ("WheelsRolling (m)", "final pos"): "2.82 % (5.19 m travelled against PhysX's 5.06), PhysX moved 1.33 %: over "
                                        "max(2 %, 1.5 x 1.33 %); cm 4.55 % against 3.78 % is within (see "
                                        "CYLINDER_LOAD_OUT: over 80 places ours spreads from PhysX as PhysX does "
                                        "from itself)",
    ("LogStrike (m)", "ang.speed"): "3.13 %, PhysX moved 1.66 % (gate 2.49 %): the nose settling on the log (see "
                                    "ANGULAR_OUT); cm 3.97 % against 5.35 % is within",
}


def held_to(request, spread_fixture: str, gated: dict[str, tuple], name: str, figure: str) -> float:
    """The gate of `figure` of `name` ("Scenario (units)"): spread_gate of PhysX's own spread (the module fixture
    `spread_fixture`, run only where needed) where `gated` lists the scenario's figure, else LIMIT."""
    if figure not in gated.get(name.rsplit(" (", 1)[0], ()):
        return LIMIT
    return spread_gate(request.getfixturevalue(spread_fixture)[name][figure], LIMIT)


def spread_cases(names: list[str], figures: tuple[str, ...], out: dict[tuple[str, str], str]) -> list:
    """(name, figure) test parameters, each that `out` lists a strict xfail with its figures."""
    return [pytest.param(name, figure, marks=[pytest.mark.xfail(strict=True, reason=out[name, figure])]
                         if (name, figure) in out else []) for name in names for figure in figures]


def within(got: float, gate: float) -> str:
    return f"{100 * got:.3f} % over {100 * gate:.3f} % (max({100 * LIMIT:g} %, {SPREAD_FACTOR} x PhysX's own spread))"


@pytest.mark.parametrize("name, figure", spread_cases(NAMES, ("speed", "final pos"), SPREAD_OUT))
def test_chassis_speed_and_final_position_match_physx(request, results, name, figure):
    got, gate = results[name][figure], held_to(request, "own_spread", SPREAD_GATED, name, figure)
    assert got <= gate, within(got, gate)


@pytest.mark.parametrize("name, figure", spread_cases(NAMES, ("ang.speed",), SPREAD_OUT))
def test_angular_speed_matches_physx(request, results, name, figure):
    got, gate = results[name][figure], held_to(request, "own_spread", SPREAD_GATED, name, figure)
    assert got <= gate, within(got, gate)


def physx_spread(folder, names: list[str]) -> dict[str, dict]:
    """PhysX against itself for the cars `names` (tests/scenarios/copies.py): each car's figures against its copy 30 m
    aside, its obstacle copied with it, in one more ovphysx run per units (the copy's first contact step, then the
    original's; the copy's and the original's speed after it). The figures depend on the other cars in the run too (the
    same car's rounding differs as they do): Drop's 2.05 % is 2.48 % with Ridge6 in the run."""
    rows: dict[str, dict] = {}
    for units in UNITS:
        stage = _stage(folder, units)
        metres = 0.01 if units == "cm_g" else 1.0
        on_stage = Usd.Stage.Open(str(stage.path))
        obstacles = [contact.obstacle_path(n) for n in names if on_stage.GetPrimAtPath(contact.obstacle_path(n))]
        rows.update(physx_against_copies(stage, [f"{n} ({units})" for n in names], folder,
                                         lambda sc, copy, ref: _figures(sc, copy, ref, metres), obstacles))
    print("\nPhysX against its copy 30 m aside (the same inputs, the same ovphysx run): worst difference relative to "
          "the run's peak; first contact step (copy, original); speed after it (copy, original) [m/s]")
    width = max(len(name) for name in rows) + 1
    for name, f in rows.items():
        print(f"{name:{width}s} {_contact_row(f)}")
    return rows


SPREAD_CONTROL = "Ridge6"  # within the gate against PhysX, and PhysX within it against itself: the copies are faithful


def test_physx_against_its_copy_spreads_about_as_far_as_ours(results, tmp_path):
    """What ANGULAR_OUT and ANGULAR_EITHER_SIDE rest on: PhysX itself, each of those cars against its copy 30 m aside
    (its obstacle copied with it), meets every contact at the same step and agrees in speed and final position, but its
    angular speed spreads: ANGULAR_OUT's over the gate in one units at least and by at least 40 % of how far ours is
    from PhysX in each; ANGULAR_EITHER_SIDE's (measured 0.8-3.1 % as other cars share the run, ours 1.3-3.3 %) by at
    least a fifth of ours; WHOLE_RUN_CHAOS's over the gate in speed or final position too (in one units at least).
    Ridge6, within the gate, is within it against its copy too: the copies are faithful; so are CYLINDER_LOAD_OUT's
    in speed and final position, 30 m aside (PhysX at other places spreads as far as ours is from it: its reason)."""
    spread = physx_spread(tmp_path, [*ANGULAR_OUT, *ANGULAR_EITHER_SIDE, *WHOLE_RUN_CHAOS, *CYLINDER_LOAD_OUT,
                                     SPREAD_CONTROL])
    for name in WHOLE_RUN_CHAOS:  # chaotic in speed or position too, in one units at least
        assert max(spread[f"{name} ({units})"][k] for units in UNITS for k in ("speed", "final pos")) > LIMIT, name
    for name, row in spread.items():
        if name.rsplit(" (", 1)[0] in WHOLE_RUN_CHAOS:
            continue
        copy, original = row["contact step"]
        assert copy == original, (name, row["contact step"])
        assert row["speed"] <= LIMIT and row["final pos"] <= LIMIT, (name, row)
    assert all(spread[f"{SPREAD_CONTROL} ({units})"]["ang.speed"] <= LIMIT for units in UNITS)
    for names, share in ((ANGULAR_OUT, 0.4), (ANGULAR_EITHER_SIDE, 0.2)):
        for name in names:
            own = {units: spread[f"{name} ({units})"]["ang.speed"] for units in UNITS}
            assert names is ANGULAR_EITHER_SIDE or max(own.values()) > LIMIT, (name, own)
            for units in UNITS:
                assert own[units] >= share * results[f"{name} ({units})"]["ang.speed"], (name, units, own[units])


@pytest.mark.parametrize("name", NAMES)
def test_first_contact_is_the_same_step(results, name):
    ours, physx = results[name]["contact step"]
    assert abs(ours - physx) <= 1, (ours, physx)


def test_filtered_pairs_let_the_car_through_the_ridge_in_physx_and_here(tmp_path):
    # FilteredPairsAPI from either side, on a body: Ridge10's obstacle naming the car's body, Ridge6's body naming its
    # obstacle. Both cars then roll through their ridges (unfiltered, Ridge6 meets its ridge at step 12 and Ridge10
    # at step 7, both stopping); 40 steps, the same positions and speeds in both simulators.
    from pxr import Sdf, Usd, UsdPhysics

    stage = Usd.Stage.Open(str(contact.obstacles(tmp_path / "obstacles.usda")))
    for holder, target in (("/World/Ridge10Obstacle", "/World/Ridge10"), ("/World/Ridge6", "/World/Ridge6Obstacle")):
        UsdPhysics.FilteredPairsAPI.Apply(stage.GetPrimAtPath(holder)).CreateFilteredPairsRel().SetTargets(
            [Sdf.Path(target)])
    stage.GetRootLayer().Export(str(tmp_path / "filtered.usda"))
    cars = ("/World/Ridge10", "/World/Ridge6")
    filtered = Stage(tmp_path / "filtered.usda", 40, [Scenario(car, car, {car: {"accelerator": 0.0}}) for car in cars])
    mine, ref = run_beside_physx({"filtered": filtered}, lambda s: run_sim(s, RUN[VARIANT]))
    for car in cars:
        ours, physx = mine["filtered"]["bodies"][car], ref["filtered"]["bodies"][car]
        (x, _, _), (half, _, _) = contact.CARS[car.rsplit("/", 1)[-1]][2]
        assert physx["position"][-1][0] + contact.CHASSIS_FRONT > x + half  # its nose past the ridge's far face
        np.testing.assert_allclose(ours["position"][-1], physx["position"][-1], atol=1e-3)
        np.testing.assert_allclose(ours["linearVelocity"][-1], physx["linearVelocity"][-1], atol=1e-3)


@pytest.mark.parametrize("extra, passes", [("/World/Extra", True), ("/World/ZExtra", False)])
def test_a_chassis_in_two_groups_is_filtered_by_the_first_in_path_order_in_physx_and_here(tmp_path, extra, passes):
    # omni.physx filters a collider by one group (usdLoad/CollisionGroup.cpp getCollisionGroup), the first in path
    # order: Ridge6's chassis, in its /World/Ridge6/ChassisGroup and in a group that filters its ridge's, rolls
    # through the ridge when that group's path comes first (/World/Extra) and strikes it at step 12 when it comes
    # after (/World/ZExtra)
    from pxr import Sdf, Usd, UsdPhysics

    stage = Usd.Stage.Open(str(contact.obstacles(tmp_path / "obstacles.usda")))
    ridges = UsdPhysics.CollisionGroup.Define(stage, "/World/Ridges")
    ridges.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([Sdf.Path("/World/Ridge6Obstacle")])
    group = UsdPhysics.CollisionGroup.Define(stage, extra)
    group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([Sdf.Path("/World/Ridge6/ChassisCollision")])
    # ... and, as the chassis group does, the car's wheel queries' group: PhysX's wheel raycasts would otherwise hit
    # the car's own chassis from inside it (no road under any wheel), which this simulator does not model
    group.CreateFilteredGroupsRel().SetTargets([ridges.GetPath(), Sdf.Path("/World/Ridge6/WheelQueryGroup")])
    stage.GetRootLayer().Export(str(tmp_path / "two_groups.usda"))
    car = "/World/Ridge6"
    two = Stage(tmp_path / "two_groups.usda", 40, [Scenario(car, car, {car: {"accelerator": 0.0}})])
    mine, ref = run_beside_physx({"two": two}, lambda s: run_sim(s, RUN[VARIANT]))
    ours, physx = mine["two"]["bodies"][car], ref["two"]["bodies"][car]
    (x, _, _), (half, _, _) = contact.CARS["Ridge6"][2]
    assert (physx["position"][-1][0] + contact.CHASSIS_FRONT > x + half) == passes  # its nose beyond the far face
    np.testing.assert_allclose(ours["position"][-1], physx["position"][-1], atol=1e-3)
    np.testing.assert_allclose(ours["linearVelocity"][-1], physx["linearVelocity"][-1], atol=1e-3)


# Wheel cylinders against curbs and logs (contact.curbs): the exact cylinder against a box (PhysX's box core, the
# box the pair's first shape), a convex hull (its points core, after the cylinder), a capsule and a sphere (its
# segment and point cores, first, the radius their margin) and a static cylinder (two cores):
# sim/contact/cylinder_faces.py `cylinder_convexes`. The Bollard's chassis box strikes a static upright cylinder
# off-centre (the static exact cylinder against the box): 0.01 % speed, 0.17 / 0.14 % angular speed, 0.004 / 0.007 %
# final position. As their 30-corner hulls before, CylinderCurb was 3.9 % off in speed and 41 % in angular speed (the
# strike's pitch rate 0.29 rad/s against PhysX's 0.12). Now the strike's contacts are PhysX's: on CylinderCurb's box
# edge (the car alone), two points a front cylinder, the right one's within 3 um and 0.02 mrad of PhysX's, the left
# one's normal 7.6 mrad off (EPA's on a round core: PhysX's own two cylinders' normals differ by 3.4 mrad), their
# normal forces 57 / 39 / 152 / 12 kN against 54 / 36 / 160 / 7 kN. Speed and final position are within the gate
# (but the pipe's); what is left is the angular
# speed of the strike, how the points of a patch share it, which rounding decides in PhysX too: each car against its
# copy 30 m aside in the same ovphysx run (m / cm) spreads over 10.5 / 12.9 % (CylinderCurb), 56 / 17 %
# (CylinderStop), 4.9 / 15.5 % (CylinderWedge), 16 / 2.3 % (CylinderLog), 2.4 / 3.0 % (CylinderStone), and the cars
# sharing the run move PhysX's own figures as far (CylinderCurb's speed after the strike 0.632 m/s with the logs in
# the run, 0.560 without). On the wedge's sloping face PhysX's patches are three points, the side line's two and the
# witnesses' midpoint, all at -23.4 mm, and which comes first (the solver's first, which takes most of the strike) is
# the float32 rounding of equal separations: in one run its second cylinder's patch starts at the midpoint (132 of
# its 145 kN), ours at the side line's end (54 of 68 kN); ours clips the faces in double.
CURB_NAMES = [f"{name} ({units})" for units in UNITS for name in contact.CURBS]
CURB_OUT = {  # (name, figure) -> why PhysX's own rounding carries it: held to PhysX's own spread (SPREAD_GATED)
    ("CylinderCurb", "ang.speed"): "the strike on the box's edge, 19 / 12 % (PhysX against its copy: 10.5 / 12.9 %)",
    ("CylinderStop", "ang.speed"): "a 0.6 m/s strike on a 0.12 m box's edge, 28 / 5.0 % of a small peak (PhysX "
                                   "against its copy: 56 / 17 %)",
    ("CylinderWedge", "ang.speed"): "the strike on the hull's 45-degree face, 28 / 3.8 % (PhysX against its copy: "
                                    "4.9 / 15.5 %): its patches' first points (see above)",
    ("CylinderLog", "ang.speed"): "over the log, 2.2 / 3.0 % (PhysX against its copy: 16 / 2.3 %)",
    ("CylinderStone", "ang.speed"): "the right wheels over the stone, 2.9 / 3.9 % (PhysX against its copy: 2.4 / 3.0 %)",
    ("CylinderPipe", "ang.speed"): "two exact cylinders (the wheels' and the static pipe's): 29 / 24 % (PhysX "
                                   "against its copy: 3.8 / 2.2 %). PhysX's reference GJK on two round cores stops on "
                                   "one of a few welded support-point outcomes, the strike's normals 0.788-0.808 "
                                   "along the road (up to 25 mrad apart): PhysX's left wheel takes one, its right "
                                   "another, ours the same two the other way round (each within 1e-6 of PhysX's when "
                                   "the pipe's core is turned about its axis: which outcome a wheel gets is its "
                                   "float32 pose's rounding)",
    ("CylinderPipe", "speed"): "3.5 / 1.0 % (PhysX against its copy: 1.0 / 0.07 %): see its angular speed",
}
CURB_SPREAD_GATED = {name: tuple(f for n, f in CURB_OUT if n == name) for name, _ in CURB_OUT}
# Outside max(LIMIT, SPREAD_FACTOR x PhysX's own spread) (curb_own_spread), strictly: ours against PhysX in place,
# PhysX moved 7.3, 30, -13.1 m along X against itself, as measured (float32, numpy; ovphysx 0.7)
CURB_SPREAD_OUT = {
    ("CylinderCurb (m)", "ang.speed"): "19.2 %, PhysX moved 10.9 % (gate 16.4 %): the strike on the box's edge; "
                                       "cm 12.4 % against 17.3 % is within",
    ("CylinderPipe (m)", "ang.speed"): "29.3 %, PhysX moved 2.9 % (gate 4.3 %): the welded GJK outcomes of two "
                                       "round cores taken the other way round (CURB_OUT)",
    ("CylinderPipe (cm_g)", "ang.speed"): "24.5 %, PhysX moved 4.0 % (gate 5.9 %): as in m",
    ("CylinderPipe (m)", "speed"): "3.54 %, PhysX moved 0.12 % (gate 2 %): the strike's angular speed's; cm 1.05 % "
                                   "is within",
}


def _curb_cases() -> list:
    return spread_cases(CURB_NAMES, FIGURES, CURB_SPREAD_OUT)


def _curb_stage(folder, units: str) -> Stage:
    return Stage(contact.curbs(folder / f"curbs_{units}.usda", units), STEPS,
                 [Scenario(f"{name} ({units})", f"/World/{name}", {f"/World/{name}": {"accelerator": 0.0}})
                  for name in contact.CURBS])


@pytest.fixture(scope="module")
def curb_results(tmp_path_factory) -> dict[str, dict[str, float]]:
    folder = tmp_path_factory.mktemp("curbs")
    return figure_table({units: _curb_stage(folder, units) for units in UNITS}, _figures,
                        "wheel cylinders against curbs: worst error relative to the run's peak; first contact step "
                        "(ours, PhysX); chassis speed one step after it (ours, PhysX) [m/s]")


@pytest.fixture(scope="module")
def curb_own_spread(tmp_path_factory) -> dict[str, dict[str, float]]:
    """PhysX's own spread on the curb stages (own_spread_table), for the figures CURB_OUT lists."""
    folder = tmp_path_factory.mktemp("curb_places")
    return own_spread_table({units: _curb_stage(folder, units) for units in UNITS}, folder, _figures, "curbs")


def test_physx_against_its_copy_spreads_over_the_gate_where_the_curbs_are_marked(tmp_path):
    """What CURB_OUT rests on: each curb car against its copy 30 m aside (its curb copied with it) in one ovphysx run
    meets the curb at the same step and ends where it does, but spreads over the gate, in one units at least, in each
    angular speed CURB_OUT lists (their gate is PhysX's own spread with the world moved, curb_own_spread)."""
    spread = {}
    for units in UNITS:
        stage, metres = _curb_stage(tmp_path, units), (0.01 if units == "cm_g" else 1.0)
        spread.update(physx_against_copies(stage, [sc.name for sc in stage.scenarios], tmp_path,
                                           lambda sc, copy, ref: _figures(sc, copy, ref, metres),
                                           [contact.obstacle_path(name) for name in contact.CURBS]))
    print("\nPhysX against its copy 30 m aside, wheel cylinders against curbs")
    for name, row in spread.items():
        print(f"{name:22s} {_contact_row(row)}")
        copy, original = row["contact step"]
        assert abs(copy - original) <= 1 and row["final pos"] <= LIMIT, (name, row)
    for name, figure in CURB_OUT:
        if figure == "ang.speed":
            assert max(spread[f"{name} ({units})"][figure] for units in UNITS) > LIMIT, (name, figure)


@pytest.mark.parametrize("name, figure", _curb_cases())
def test_wheel_cylinders_meet_curbs_as_in_physx(request, curb_results, name, figure):
    got, gate = curb_results[name][figure], held_to(request, "curb_own_spread", CURB_SPREAD_GATED, name, figure)
    assert got <= gate, within(got, gate)


@pytest.mark.parametrize("name", CURB_NAMES)
def test_wheel_cylinders_meet_the_curb_at_physxs_step(curb_results, name):
    ours, physx = curb_results[name]["contact step"]
    assert physx > START_STEPS and abs(ours - physx) <= 1, (ours, physx)


