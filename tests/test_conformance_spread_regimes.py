"""The regimes where PhysX's own spread is the yardstick (ovphysx 0.7, CPU): each stage run in ovphysx at its place and
again with the whole world moved 7.3, 30 and -13.1 m along X (tests/scenarios/places.py), so that only PhysX's own
float32 rounding separates those runs. Each figure of ours against PhysX at the original place (the metric of
test_conformance_ovphysx.py) must be within LIMIT (2 %) or within SPREAD_FACTOR times the largest figure of PhysX
moved against PhysX in place, measured in the same test run.

Stages (tests/scenarios/spread_regimes.py, tests/scenarios/roads.py):
  landing       the sample car dropped 0.46 m (meeting the plane at 3 m/s) while moving forward at 4 m/s, and beside it
                the same car with collision cylinders on its wheels;
  landing high  the sample car with wheel collision cylinders, alone, dropped 1 m (meeting the plane at 4.4 m/s) while
                moving at 4 m/s along +x, again turned a quarter, moving along +y, and again along +x pitched 4
                degrees nose down (its front wheels' cylinders meet the plane six steps before the rear ones');
  ramp          the sample car at 5 m/s into a triangle-mesh ramp between its wheel tracks, 35 degrees up to a 0.7 m
                ridge: the chassis box strikes the ramp's foot and slides up it until it stops;
  basic alone   the sample car with a basic (direct) drive, alone: full throttle for 2.5 s, then half throttle, the
                handbrake (rear axle) and steer 0.5;
  bumps, rest   the bump road's two cars (raycast, sweep) launched from rest at 0.8 throttle in first gear;
  preset fleet  the mixed fleet (standard, basic drive on the rear axle, tank, wheel controllers) with the presets'
                own sub-step counts, under which the direct-drive wheels chatter after the launch.

The ramp. The box's front lower edge meets the ramp's side edges (the mesh's boundary, y = +-0.45 m). PhysX's PCM
meets a convex and a triangle along an edge pair where it overlaps strictly less than the triangle's normal (less
FLOAT_EPS), and then takes the convex's face most opposed to that axis as the reference and its normal as the contact
normal (GuPCMTriangleContactGen.cpp, generateTriangleFullContactManifold; the edge axes are those of the triangle's
active edges, GuEdgeList.cpp). After the strike, with the box rolled by 1e-5 rad, the edge axis beats the ramp's normal
by 2.3e-6 m, and PhysX's contacts take the box's bottom face normal (vertical): the box slides up the ramp without
friction's brake, where ours kept the ramp's normal and braked (its speed 0.67 m/s at 0.5 s against PhysX's 1.24).
Ours stopped 0.096 m short of PhysX in place (1.507 m; PhysX 1.603, moved 1.578 / 1.527 / 1.578). sim/contact/ now
makes that choice (`_pcm_triangle_axes`, ground.active_edges); the step-27 to step-29 normals are PhysX's to 1e-4.
Later the edge and the face part by 2e-7 m, below float32's rounding of coordinates a few metres out: there PhysX's
places part, and ours takes the triangle's face (an edge must beat it by that rounding). Figures, ours against PhysX
in place before / after, PhysX moved: speed 11.4 / 8.2 / 14.7 %, angular speed 55.0 / 19.3 / 49.2 %, jounce 27.6 /
25.3 / 22.3 %, final position 6.37 / 5.87 / 5.09 %; final x 1.507 / 1.515 m, PhysX 1.603 in place, 1.527-1.578 moved.

The landings on wheel cylinders. A symmetric car landing on its four wheel cylinders yaws in PhysX: the solver meets
the four cylinder-plane pairs one after the other, and the ones met first take more of the strike and of the friction
that brakes the car. PhysX meets a body's pairs in the order they were made, those made in one step along x (landing
flat heading +x the rear wheels first, -x the front wheels, +y the left wheels; nose down the front wheels' pairs,
made earlier, first); ours met them in the shapes' row order
(front left, front right, rear left, rear right) and yawed at -0.025 rad/s after the 1 m landing where PhysX yaws at
-0.029 heading +x and -0.070 heading +y, the same at every place heading +y (angular speed over the run 25.6 % and
28.3 % from PhysX; PhysX moved 0.05 % heading +y). sim/contact.py now orders a vehicle's plane pairs so
(`_plane_pair_order`: the last step's pairs in their order, then the new ones by the low x of their shapes' boxes):
0.011 % and 0.010 %, the first landing step's normal forces PhysX's to 1e-4.
Heading +x the two rear wheels' boxes begin at the same x, and PhysX moved -13.1 m meets the right one first (yaw
-0.070, 67 % apart in angular speed): its sort's history, not modelled. The 0.46 m landing on wheel cylinders beside
the car without them (chaotic in PhysX itself: moved 7.3 and 30 m it turns the other way, 89.5 % apart in angular
speed) was an expected failure at 2.01 % in speed against PhysX in place (PhysX moved 0.93 %); ours now follows PhysX
moved 7.3 m and is 0.93 % from PhysX in place. Searching for a regime where PhysX yaws and ours does not (the sample
car, truck, car_cm, basic car and tank samples, the presets and NVIDIA's factory car, dropped 0.46 to 3 m at 4 m/s,
raycasts and sweeps, TGS and PGS, on the plane and a flat triangle mesh; the chassis box lowered to meet the ground),
every car without wheel cylinders lands as PhysX does (within 0.02 % in angular speed), the chassis box striking the
ground included.

The others. The landing on the plane stays symmetric in PhysX as in ours (PhysX moved 0.001 %, ours 0.004 % in angular
speed; likewise dropped 1.0 and 1.5 m, with and without throttle, and with sweeps). The bump road from rest: PhysX in
place is the odd one out; its sweeping car's rear left jounce drops 12.7 mm for one step at step 225 (the wheel's
centre line on an edge of the flat road's mesh, x = 16.9 m), which no moved run does: ours and PhysX moved are 6.90 %
from it in jounce and 51.9 % in angular speed, and within 1 mm of each other (moved runs among themselves: 0.8 mm).
The lone basic drive's handbrake turn: 1.32 % in angular speed, PhysX moved 1.15 %. The basic_car preset brought to
rest: PhysX puts the body to sleep (every velocity exactly 0 from step 253, at every place), and so does ours now
(sim/sleep.py; test_a_car_brought_to_rest_sleeps_as_in_physx). The presets' fleet: the direct-drive wheels chatter alike
(basic drive's wheel speeds 35.8 %, PhysX moved 34.6 %).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from scenarios import roads, spread_regimes
from scenarios.places import PLACES_M, SPREAD_FACTOR, runs_at_places, spread_gate
from test_conformance_ovphysx import (
    DEFAULT,
    DT,
    LIMIT,
    MIN_PATH,
    RUN,
    Scenario,
    Stage,
    _schedule,
    _stage_meters,
    figures,
    physx_run,
    run_sim,
    table,
)

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

REST_STEPS = 40  # the basic preset's last steps, at rest
SETTLE_S = 0.5  # the launches' wheel speeds are compared from here on (test_conformance_roads.py's window)


def _stages(folder) -> dict[str, tuple[Stage, float]]:
    """{stage name: (stage, seconds before its wheel speeds count)}."""
    paths = spread_regimes.build(folder)
    car, basic = "/World/Car", "/World/Basic"
    basic_steps, bump_steps, fleet_steps = 300, 240, 240
    s = lambda steps, before, after, at: _schedule(steps, before, after, at)  # noqa: E731
    ramp = [min(1.0, i * DT) for i in range(fleet_steps)]
    raw = "/World/Raw/{}".format
    return {
        "landing": (Stage(paths["landing"], 120, [
            Scenario("landing while rolling", car, {car: {"accelerator": 0.0}}),
            Scenario("landing on wheel cylinders", spread_regimes.CYLINDER_CAR,
                     {spread_regimes.CYLINDER_CAR: {"accelerator": 0.0}})]), 0.0),
        **{f"landing high {how}": (Stage(paths[f"landing high {how}"], 120, [
            Scenario(f"landing on wheel cylinders from 1 m, {how}", car, {car: {"accelerator": 0.0}})]), 0.0)
           for how in ("along x", "along y", "nose down")},
        "ramp": (Stage(paths["ramp"], 180, [Scenario("box into a mesh ramp", car, {car: {"accelerator": 0.0}})]), 0.0),
        "basic alone": (Stage(paths["basic"], basic_steps, [Scenario("basic drive, handbrake turn", car, {car: {
            "accelerator": s(basic_steps, 1.0, 0.5, 2.5), "brake1": s(basic_steps, 0.0, 1.0, 2.5),
            "steer": s(basic_steps, 0.0, 0.5, 2.5)}})]), SETTLE_S),
        "basic preset": (Stage(paths["basic preset"], basic_steps, [Scenario("basic preset, handbrake to rest", basic, {
            basic: {"accelerator": s(basic_steps, 1.0, 0.0, 2.5), "brake1": s(basic_steps, 0.0, 1.0, 2.5),
                    "steer": s(basic_steps, 0.0, 0.5, 2.5)}})]), SETTLE_S),
        "bumps, rest": (Stage(roads.bump_road(folder / "bump_road_rest.usda", start_speed=0.0), bump_steps, [
            Scenario(f"bumps from rest, {query}", f"/World/{name}",
                     {f"/World/{name}": {"accelerator": 0.8, "targetGear": 1}})
            for name, query in roads.QUERY_TYPES.items()]), SETTLE_S),
        "preset fleet": (Stage(roads.mixed_fleet(folder / "preset_fleet.usda", sub_steps=None), fleet_steps, [
            Scenario("preset fleet, standard drive", "/World/Standard",
                     {"/World/Standard": {"accelerator": ramp, "steer": s(fleet_steps, 0.0, 0.3, 2.5)}}),
            Scenario("preset fleet, basic drive (rear)", "/World/Basic",
                     {"/World/Basic": {"accelerator": ramp, "steer": s(fleet_steps, 0.0, 0.2, 2.5)}}),
            Scenario("preset fleet, tank", "/World/Tank",
                     {"/World/Tank": {"accelerator": 1.0, "thrust0": 1.0, "thrust1": s(fleet_steps, 1.0, 0.5, 2.0)}}),
            Scenario("preset fleet, wheel controllers", "/World/Raw", {
                raw("LeftWheel1"): {"steerAngle": s(fleet_steps, 0.0, 0.2, 2.5)},
                raw("RightWheel1"): {"steerAngle": s(fleet_steps, 0.0, 0.2, 2.5)},
                raw("LeftWheel2"): {"driveTorque": s(fleet_steps, 300.0, 0.0, 3.0),
                                    "brakeTorque": s(fleet_steps, 0.0, 400.0, 3.0)},
                raw("RightWheel2"): {"driveTorque": s(fleet_steps, 300.0, 0.0, 3.0),
                                     "brakeTorque": s(fleet_steps, 0.0, 400.0, 3.0)}})]), SETTLE_S),
    }


@dataclass
class Results:
    ours: dict[str, dict[str, float]]  # {scenario: figures of ours against PhysX in place}
    spread: dict[str, dict[str, float]]  # {scenario: the largest figures of PhysX moved against PhysX in place}
    x: dict[str, tuple[np.ndarray, list[np.ndarray], np.ndarray]]  # {scenario: (PhysX in place, moved, ours) x [m]}
    last_rates: dict[str, tuple[float, float]]  # {scenario: (PhysX's, ours) largest |w| over the last REST_STEPS}
    yaw: dict[str, tuple[float, list[float], float]]  # {scenario: yaw rate [rad/s] at PhysX in place's peak: (it, moved, ours)}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Results:
    folder = tmp_path_factory.mktemp("spread_regimes")
    ours: dict[str, dict[str, float]] = {}
    spread: dict[str, dict[str, float]] = {}
    xs: dict[str, tuple[np.ndarray, list[np.ndarray], np.ndarray]] = {}
    last_rates: dict[str, tuple[float, float]] = {}
    yaw: dict[str, tuple[float, list[float], float]] = {}
    for stage, settle_s in _stages(folder).values():
        original, moved = runs_at_places(stage, folder, physx_run)
        mine = run_sim(stage, RUN[DEFAULT])
        min_path = MIN_PATH / _stage_meters(stage.path)
        settle = int(round(settle_s / DT))
        for scenario in stage.scenarios:
            ours[scenario.name] = figures(scenario, mine, original, settle, min_path)
            by_place = [figures(scenario, trace, original, settle, min_path) for trace in moved.values()]
            spread[scenario.name] = {k: max(f[k] for f in by_place) for k in ours[scenario.name]}
            x = lambda trace: np.asarray(trace["bodies"][scenario.vehicle]["position"], float)[:, 0]  # noqa: E731
            xs[scenario.name] = (x(original), [x(t) for t in moved.values()], x(mine))
            rate = lambda trace: float(np.linalg.norm(  # noqa: E731
                np.asarray(trace["bodies"][scenario.vehicle]["angularVelocity"])[-REST_STEPS:], axis=1).max())
            last_rates[scenario.name] = (rate(original), rate(mine))
            in_place, *at_places, our_yaw = (np.asarray(trace["bodies"][scenario.vehicle]["angularVelocity"], float)[:, 2]
                                             for trace in (original, *moved.values(), mine))
            peak = int(np.abs(in_place).argmax())
            yaw[scenario.name] = (in_place[peak], [m[peak] for m in at_places], our_yaw[peak])
    print(f"\n{DEFAULT} vs ovphysx in place: worst error relative to the run's peak; final position relative to the "
          "path length\n" + table(ours))
    print(f"\nPhysX moved {PLACES_M} m along X vs PhysX in place, the largest of the three\n" + table(spread))
    print("\nfinal x [m], PhysX in place / moved / ours: " + "; ".join(
        f"{name} {a[-1]:.3f} / {' '.join(f'{m[-1]:.3f}' for m in moved)} / {b[-1]:.3f}"
        for name, (a, moved, b) in xs.items()))
    return Results(ours, spread, xs, last_rates, yaw)


LANDING_HIGH = [f"landing on wheel cylinders from 1 m, {how}" for how in ("along x", "along y", "nose down")]
SCENARIOS = ["landing while rolling", "landing on wheel cylinders", *LANDING_HIGH, "box into a mesh ramp", "basic drive, handbrake turn",
             "basic preset, handbrake to rest",
             "bumps from rest, raycast", "bumps from rest, sweep", "preset fleet, standard drive",
             "preset fleet, basic drive (rear)", "preset fleet, tank", "preset fleet, wheel controllers"]


CHAOTIC: dict[str, str] = {}  # {scenario: why it is an expected failure, measured}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=CHAOTIC[n]))
                                  if n in CHAOTIC else n for n in SCENARIOS])
def test_ours_is_within_physx_own_spread(results, name):
    got, own = results.ours[name], results.spread[name]
    assert {"speed", "ang.speed", "wheels", "jounce", "final pos"} <= set(got)
    gate = {k: spread_gate(own[k], LIMIT) for k in got}
    bad = {k: f"{100 * got[k]:.3f} % > {100 * gate[k]:.3f} %" for k in got if not got[k] <= gate[k]}
    assert not bad, f"{name}: over max(2 %, {SPREAD_FACTOR} x PhysX's own spread): {bad}"


def test_the_landing_on_wheel_cylinders_yaws_as_physx_does(results):
    """The car landing on its wheel cylinders picks up a yaw rate from the order the solver meets the four
    cylinder-plane pairs in (the pairs met first take more of the strike and of the friction that brakes the car);
    PhysX meets them in the order they were made, those made in one step along x, and so does ours (sim/contact.py
    `_plane_pair_order`). Heading +y its left wheels' pairs come first, the same at every place (in the shapes' row
    order, front wheels first, ours yawed at -0.025 rad/s against PhysX's -0.070). Heading +x the rear wheels' pairs
    come first, and ours yaws as PhysX in place does (-0.0287 rad/s; in row order -0.0249); there the two rear
    wheels' boxes begin at the same x, and PhysX moved -13.1 m meets the right one first (-0.070), which is not
    modelled."""
    along_x, along_y = LANDING_HIGH[0], LANDING_HIGH[1]
    physx, moved, ours = results.yaw[along_y]
    assert abs(physx) > 0.01, f"PhysX no longer yaws in the landing ({physx:.4f} rad/s)"
    assert all(abs(m - physx) <= 0.02 * abs(physx) for m in moved), f"PhysX's places part: {physx:.4f} vs {moved}"
    assert abs(ours - physx) <= 0.02 * abs(physx), f"heading +y: ours yaws at {ours:.4f} rad/s, PhysX at {physx:.4f}"
    physx, moved, ours = results.yaw[along_x]
    assert abs(ours - physx) <= 0.02 * abs(physx), f"heading +x: ours yaws at {ours:.4f} rad/s, PhysX at {physx:.4f}"
    # nose down the front wheels' pairs, made first, stay first (in x order the rear ones went first: 4 % apart in
    # angular speed, the roll after the rear wheels' strike turned the other way)
    physx, moved, ours = results.yaw[LANDING_HIGH[2]]
    assert abs(ours - physx) <= 0.02 * abs(physx), f"nose down: ours yaws at {ours:.4f} rad/s, PhysX at {physx:.4f}"


def test_the_ramp_stops_the_car_in_physx(results):
    """The ramp run tests the chassis against the mesh only if the car meets the ramp and stops on it."""
    in_place, moved, _ = results.x["box into a mesh ramp"]
    ramp_foot = spread_regimes.RAMP_START_M - 2.04  # the car's origin where its chassis front reaches the ramp
    assert all(ramp_foot < x[-1] < ramp_foot + 1.5 for x in (in_place, *moved)), (in_place[-1], [m[-1] for m in moved])


SLIDE_STEPS = 31  # the ramp run up to the step after the strike's slide (0.5 s), where PhysX's places still agree


def test_the_box_slides_up_the_ramp_as_physx_does_until_its_places_part(results):
    """Through the strike and the slide up the ramp on the box's face normal (steps 26-31) PhysX at every place takes
    the same path, and so does ours (it kept the ramp's normal and braked before: 27 mm behind at step 31)."""
    in_place, moved, ours = results.x["box into a mesh ramp"]
    in_place, moved, ours = in_place[:SLIDE_STEPS], np.stack(moved)[:, :SLIDE_STEPS], ours[:SLIDE_STEPS]
    assert np.abs(moved - in_place).max() < 1e-3  # the premise: PhysX's places have not parted
    assert np.abs(ours - in_place).max() < 1e-3, f"{1000 * np.abs(ours - in_place).max():.1f} mm from PhysX"


def test_a_car_brought_to_rest_sleeps_as_in_physx(results):
    """PhysX puts the basic preset to sleep once it has come to rest (every velocity exactly 0 from step 253, at every
    place); so does ours (sim/sleep.py; it rocked on at 5.3 mrad/s in pitch without sleeping, 1.67 % of the run's
    peak angular speed, where PhysX's own spread is 0)."""
    physx, ours = results.last_rates["basic preset, handbrake to rest"]
    assert physx == 0.0, "PhysX's car no longer sleeps at the end of the run"
    assert ours == 0.0, f"ours turns at {1000 * ours:.2f} mrad/s at the end of the run, PhysX's sleeps"
