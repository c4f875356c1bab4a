"""The simulator against real PhysX (ovphysx 0.7) off the flat plane and across drive types, with the machinery of
tests/test_conformance_ovphysx.py (controls, recording, figures, variants).

Stages (tests/scenarios/roads.py, authored into a temporary folder):
  bump road    the sample car twice on triangle-mesh lanes with skewed bumps of 4 and 5 cm, one querying the road
               with raycasts, one with sweeps of the wheel hull; they start rolling at 6 m/s and drive on at 0.8
               throttle in first gear, over both bumps, for 3.5 s.
  mixed fleet  the car preset (standard drive), the basic-drive car driven on its rear axle (undriven front wheels),
               the tank preset and the car without a drive (wheel controllers), stepped together from rest.

Figures as in test_conformance_ovphysx.py (the worst deviation relative to the run's peak), over the whole run for
chassis speed, angular speed, engine speed, jounce and final position; wheel speeds after SETTLE_S, which covers the
launch of the fleet's direct-drive wheels (on the bump road nothing launches). Every figure must be <= LIMIT (2 %).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from scenarios import roads
from test_conformance_ovphysx import (
    COLUMNS,
    DT,
    LIMIT,
    MIN_PATH,
    RECORDED,
    RUN,
    VARIANTS,
    Scenario,
    Stage,
    _control_arrays,
    _schedule,
    figures,
    over_limit,
    run_beside_physx,
    run_sim,
    table,
    variant_cases,
)

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.pipeline import StepOptions

# in the soak run (CI runs it after the README's test command, which must stay within 3 minutes on 2 cores)
pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

BUMP_STEPS = 210  # 3.5 s: both bumps are behind the rear wheels after 2.6 s
FLEET_STEPS = 240  # 4 s
SETTLE_S = 0.5


def _bump_road(folder) -> Stage:
    path = roads.bump_road(folder / "bump_road.usda")
    return Stage(path, BUMP_STEPS, [
        Scenario(f"bumps, {query}", f"/World/{name}", {f"/World/{name}": {"accelerator": 0.8, "targetGear": 1}})
        for name, query in roads.QUERY_TYPES.items()])


def _mixed_fleet(folder) -> Stage:
    s = lambda before, after, at: _schedule(FLEET_STEPS, before, after, at)  # noqa: E731
    ramp = [min(1.0, i * DT) for i in range(FLEET_STEPS)]  # full throttle after 1 s
    raw = "/World/Raw/{}".format
    return Stage(roads.mixed_fleet(folder / "mixed_fleet.usda"), FLEET_STEPS, [
        Scenario("fleet, standard drive", "/World/Standard",
                 {"/World/Standard": {"accelerator": ramp, "steer": s(0.0, 0.3, 2.5)}}),
        Scenario("fleet, basic drive (rear)", "/World/Basic",
                 {"/World/Basic": {"accelerator": ramp, "steer": s(0.0, 0.2, 2.5)}}),
        Scenario("fleet, tank", "/World/Tank",
                 {"/World/Tank": {"accelerator": 1.0, "thrust0": 1.0, "thrust1": s(1.0, 0.5, 2.0)}}),
        Scenario("fleet, wheel controllers", "/World/Raw", {
            raw("LeftWheel1"): {"steerAngle": s(0.0, 0.2, 2.5)}, raw("RightWheel1"): {"steerAngle": s(0.0, 0.2, 2.5)},
            raw("LeftWheel2"): {"driveTorque": s(300.0, 0.0, 3.0), "brakeTorque": s(0.0, 400.0, 3.0)},
            raw("RightWheel2"): {"driveTorque": s(300.0, 0.0, 3.0), "brakeTorque": s(0.0, 400.0, 3.0)}}),
    ])


def road_figures(scenario: Scenario, mine: dict, ref: dict) -> dict[str, float]:
    """test_conformance_ovphysx.figures with wheel speeds after SETTLE_S."""
    return figures(scenario, mine, ref, int(round(SETTLE_S / DT)), MIN_PATH)


@dataclass
class Results:
    figures: dict[str, dict[str, dict[str, float]]]  # {variant: {scenario: figures}}
    stages: dict[str, Stage]
    ours: dict[str, dict[str, dict]]  # {stage: {variant: trace}}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Results:
    folder = tmp_path_factory.mktemp("roads")
    stages = {"bump road": _bump_road(folder), "mixed fleet": _mixed_fleet(folder)}
    ours, refs = run_beside_physx(stages, lambda stage: {name: run_sim(stage, v) for name, v in RUN.items()})
    rows: dict[str, dict[str, dict[str, float]]] = {name: {} for name in RUN}
    for key, stage in stages.items():
        for name in RUN:
            for scenario in stage.scenarios:
                rows[name][scenario.name] = road_figures(scenario, ours[key][name], refs[key])
    for name in RUN:
        print(f"\n{name} vs ovphysx: worst error relative to the run's peak (wheel speeds after {SETTLE_S} s); "
              "final position relative to the path length\n" + table(rows[name]))
    return Results(rows, stages, ours)


SCENARIOS = ["bumps, raycast", "bumps, sweep", "fleet, standard drive", "fleet, basic drive (rear)", "fleet, tank",
             "fleet, wheel controllers"]


@pytest.mark.parametrize("name, variant", list(variant_cases(SCENARIOS, VARIANTS)))
def test_scenario_matches_physx(results, name, variant):
    got = results.figures[variant][name]
    engineless = ("fleet, basic drive (rear)", "fleet, wheel controllers")
    expected = set(COLUMNS) - ({"engine"} if name in engineless else set())
    assert expected <= set(got), (name, variant)
    bad = over_limit(got)
    assert not bad, f"{name} ({variant}): over {100 * LIMIT:g}% (in %): {bad}"


@pytest.mark.parametrize("variant", list(RUN))
def test_a_fleet_vehicle_steps_alone_as_in_the_fleet(results, variant):
    """No value of one vehicle leaks into another's in a batch of every drive type: the basic-drive car alone gives the
    trace it gives among the others, bit for bit in single precision. (A numpy batch with the tank has 8 wheels a
    vehicle; in double precision numpy then rounds a few body rates differently, by one unit in the last place.)"""
    stage = results.stages["mixed fleet"]
    basic = "/World/Basic"
    sim = Simulator.from_description(read_stage(stage.path), DT, [basic], dtype=VARIANTS[variant].dtype,
                                     options=StepOptions(compiled=VARIANTS[variant].compiled))
    assert list(sim.params.paths) == [basic]
    trace = {kind: {k: [] for k in RECORDED[kind]} for kind in ("bodies", "wheels")}
    for i in range(stage.steps):
        sim.step(_control_arrays(sim, stage, i))
        telemetry = sim.telemetry()
        for kind in trace:
            for k in trace[kind]:
                trace[kind][k].append(np.array(telemetry[kind][k]))
    together = results.ours["mixed fleet"][variant]
    rtol = 0.0 if VARIANTS[variant].dtype == np.float32 else 1e-13
    for k, values in trace["bodies"].items():
        np.testing.assert_allclose(np.stack(values)[:, 0], together["bodies"][basic][k], rtol=rtol, atol=0.0, err_msg=k)
    for w, wheel in enumerate(sim.params.wheel_paths[0]):
        for k, values in trace["wheels"].items():
            np.testing.assert_allclose(np.stack(values)[:, 0, w], together["wheels"][wheel][k], rtol=rtol, atol=0.0,
                                       err_msg=f"{wheel} {k}")


# ------------------------------------------------------------------------------------------- the swept hull itself

def _probe_stage(folder, poses) -> tuple:
    """A bump lane and a UsdGeom.Cylinder (the sample car's wheel) at every pose (centre, rotation matrix, hull
    axis): ovphysx sweeps a cylinder prim as the same 30-corner hull it sweeps for a wheel."""
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.CreateNew(str(folder / "probes.usda"))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.Scene.Define(stage, "/World/PhysicsScene")
    lane = UsdGeom.Mesh.Define(stage, "/World/Lane")
    points, indices, counts = roads.lane_mesh(0.0)
    lane.CreatePointsAttr([Gf.Vec3f(*p) for p in points])
    lane.CreateFaceVertexIndicesAttr(indices)
    lane.CreateFaceVertexCountsAttr(counts)
    UsdPhysics.CollisionAPI.Apply(lane.GetPrim())
    UsdPhysics.MeshCollisionAPI.Apply(lane.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.none)
    for k, (centre, rotation, axis) in enumerate(poses):
        cylinder = UsdGeom.Cylinder.Define(stage, f"/World/Probe{k}")
        cylinder.CreateAxisAttr("XYZ"[axis])
        cylinder.CreateRadiusAttr(PROBE_RADIUS)
        cylinder.CreateHeightAttr(2.0 * PROBE_HALF_WIDTH)
        matrix = Gf.Matrix4d(Gf.Matrix3d(*rotation.T.ravel().tolist()), Gf.Vec3d(*centre.tolist()))
        UsdGeom.Xformable(cylinder).AddTransformOp().Set(matrix)  # USD rows: the rotation transposed
    stage.GetRootLayer().Save()
    return folder / "probes.usda"


PROBE_RADIUS, PROBE_HALF_WIDTH, PROBE_TRAVEL = 0.343, 0.1575, 0.22  # the sample car's wheel and suspension


def _rotation(yaw: float, pitch: float, roll: float, axis: int) -> np.ndarray:
    """World rotation of a probe whose hull axis `axis` (the cylinder's) lies across the lane (along Y), its other
    two axes as a vehicle frame with that lateral axis has them, before the yaw (about Z), pitch (about Y) and roll
    (about X): X lateral as in a Y-up, Z-forward stage (then a corner of the hull points down), Y as in Z up and X
    forward, Z as in Y up and X forward (a flat face down)."""
    cz, sz, cy, sy, cx, sx = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    turn = (np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1.0]]) @ np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
            @ np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]))
    # columns: where the hull's X, Y and Z go (the hull's axis across the lane, the vehicle's up axis up)
    to_lane = {0: np.array([[0, 0, 1.0], [1, 0, 0], [0, 1, 0]]), 1: np.eye(3),
               2: np.array([[1.0, 0, 0], [0, 0, -1], [0, 1, 0]])}[axis]
    return turn @ to_lane


def test_the_swept_hull_finds_the_plane_physx_finds(tmp_path):
    """ground.sweep against ovphysx's own sweeps of the same hull at poses over a bump lane: the flat road, slopes,
    edges and crests, pitched, rolled and turned, with the hull's axis along each coordinate axis (omni.physx places
    the corners by the axis: a flat face or a corner at the bottom). PhysX's sweep stops ~0.2 mm short of contact
    (its GJK's tolerance), which moves the contact point along the plane, not the plane.

    The last poses start a centimetre inside the flat road. A vehicle's query then moves the hull out along the
    separating direction (here up) by 1.01 radius and sweeps it back over 1.02 radius; ovphysx's scene sweep has no
    such step, so PhysX is asked for that second sweep directly."""
    from physxvehicle_usd import oracle
    from physxvehicle_usd.read import read_stage as read
    from physxvehicle_usd.sim.ground import Ground
    from physxvehicle_usd.sim.wheel_sweep import HULL_POINTS, SweptWheels, sweep

    rng = np.random.default_rng(7)
    poses, starts, lengths = [], [], []
    for k in range(90):
        centre, length, _, _ = roads.BUMPS[k % 2]
        x = centre + rng.uniform(-0.8, 0.8) * length
        y = rng.choice([-0.8, 0.8]) + rng.uniform(-0.1, 0.1)
        start = np.array([x + roads.SKEW * y, y, PROBE_RADIUS + 0.12])
        poses.append((start, _rotation(*rng.uniform(-0.05, 0.05, 3), axis=k % 3), k % 3))
        starts.append(start)
        lengths.append(PROBE_TRAVEL)
    face = PROBE_RADIUS * np.cos(np.pi / HULL_POINTS)  # how far the hull reaches down: a corner (X axis) or a face
    bottom = {0: PROBE_RADIUS, 1: face, 2: face}
    # Between the bumps, a centimetre deep, turned a little: exactly square to the lane, PhysX's GJK misses it with
    # the Z-axis hull (a face parallel to the road's triangles, in all three directions).
    for k in range(6):
        start = np.array([8.0 + 0.3 * k, 0.8, bottom[k % 3] - 0.01])
        poses.append((start + np.array([0.0, 0.0, 1.01 * PROBE_RADIUS]), _rotation(0.02, 0.0, 0.0, axis=k % 3), k % 3))
        starts.append(start)
        lengths.append(1.02 * PROBE_RADIUS)
    usd = _probe_stage(tmp_path, poses)
    down = np.array([0.0, 0.0, -1.0])
    physx = oracle.sweep_ovphysx(usd, [(f"/World/Probe{k}", down, lengths[k]) for k in range(len(poses))])
    n = len(poses)
    hull = np.stack([rotation for _, rotation, _ in poses])
    axes = np.array([[axis, *(i for i in range(3) if i != axis)] for _, _, axis in poses])
    column = lambda j: hull[np.arange(n), :, axes[:, j]]  # noqa: E731  the hull's j-th axis in the world
    ours = sweep(Ground.from_description(read(usd).ground), SweptWheels(
        np.stack(starts), column(0), column(1), column(2), np.full(n, PROBE_RADIUS), np.full(n, PROBE_HALF_WIDTH),
        np.tile(down, (n, 1)), np.full(n, PROBE_TRAVEL)))
    assert all(hit is not None for hit in physx) and ours.hit.all()
    normals = np.stack([hit["normal"] for hit in physx])
    offsets = -np.einsum("kj,kj->k", normals, np.stack([hit["position"] for hit in physx]))
    # Compare the two planes where the suspension uses them: their heights on the line the hull's centre sweeps
    # along. Where the hull's flat bottom lands on a triangle tilted almost alike (within a few thousandths), which of
    # the two faces gives the normal is a coin toss to PhysX's GJK; both planes touch at the contact, a few
    # centimetres from that line, so they still agree on it to well under a tenth of a millimetre.
    centres = np.stack(starts)
    level = lambda n_, d_: -(n_[:, 0] * centres[:, 0] + n_[:, 1] * centres[:, 1] + d_) / n_[:, 2]  # noqa: E731
    apart = np.abs(level(normals, offsets) - level(ours.normal.T, ours.offset))
    tilt = np.abs(normals - ours.normal.T).max(axis=1)
    print(f"\nswept hull vs PhysX at {n} poses: planes within {apart.max():.1e} m under the hull's centre, normals "
          f"within {tilt.max():.1e} ({int((tilt > 1e-5).sum())} differ by over 1e-5)")
    assert (np.abs(normals[:, 2]) < 0.999).sum() > n // 4  # the poses do meet slopes, not only flat road
    assert apart.max() < 2e-4 and tilt.max() < 5e-3
