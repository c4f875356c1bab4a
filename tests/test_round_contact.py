"""Static spheres and capsules: the reader's description of them, the vehicle shapes' contacts with them
(sim/contact/round_shapes.py) and the suspension's raycasts and sweeps against them (sim/ground.py, sim/wheel_sweep.py),
against hand-worked cases. Their motion against PhysX: tests/test_conformance_contact.py (Boulder, Log, LogSwept,
SphereOnLog)."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from physxvehicle_usd.description import GroundDescription, collision_offsets
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.contact.world import generate
from physxvehicle_usd.sim.ground import Ground, raycast
from physxvehicle_usd.sim.wheel_sweep import SweptWheels, sweep
from physxvehicle_usd.write import write_stage

CAR = SAMPLES / "car" / "car.usda"
DT = 1.0 / 60.0
# the sample car's chassis box in its prim's frame, and the car's origin at the spawn pose
CHASSIS = ((-2.36, 2.04), (-0.9, 0.9), (-0.25, 0.75))
ORIGIN_Z = 0.55


def _ground(kind: str, centre, radius: float, half_height: float = 0.0, axis: str = "Y") -> GroundDescription:
    """A static sphere or capsule (along `axis`) at `centre` (world), as the reader describes one."""
    transform = np.eye(4)
    transform[3, :3] = centre
    end = np.zeros(3)
    end["XYZ".index(axis)] = half_height
    points = [[0.0, 0.0, 0.0]] if kind == "sphere" else [(0.0 - end).tolist(), end.tolist()]
    return GroundDescription(path=f"/World/{kind}", kind=kind, transform=transform.tolist(), points=points,
                             radius=radius, offsets=collision_offsets(0.02, 0.0))


def _car_beside(*statics: GroundDescription, chassis: str = "box") -> Simulator:
    """The sample car on its ground with the static shapes added; its chassis the box, or a sphere (radius 0.4) or a
    capsule along Y (radius 0.3, ends 1 m apart) about the box's centre."""
    stage = Usd.Stage.Open(str(CAR))
    if chassis != "box":
        stage.GetPrimAtPath("/World/Car/ChassisCollision").SetActive(False)
        shape = (UsdGeom.Sphere if chassis == "sphere" else UsdGeom.Capsule).Define(stage, "/World/Car/Round")
        shape.CreateRadiusAttr(0.4 if chassis == "sphere" else 0.3)
        if chassis == "capsule":
            shape.CreateHeightAttr(1.0)
            shape.CreateAxisAttr(UsdGeom.Tokens.y)
        shape.AddTranslateOp().Set(Gf.Vec3d(-0.16, 0.0, 0.25))
        UsdPhysics.CollisionAPI.Apply(shape.GetPrim())
        group = UsdPhysics.CollisionGroup(stage.GetPrimAtPath("/World/Car/ChassisGroup"))
        group.GetCollidersCollectionAPI().GetIncludesRel().SetTargets([shape.GetPath()])
    description = read_stage(stage)
    description.ground.extend(statics)
    return Simulator.from_description(description, DT)


def _at_rest(sim: Simulator) -> tuple[np.ndarray, np.ndarray]:
    return sim.state.body_position.astype(float), sim.state.body_orientation.astype(float)


def test_the_reader_describes_a_static_capsule_by_its_segment_radius_offsets_and_groups():
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.Scene.Define(stage, "/World/Scene")
    capsule = UsdGeom.Capsule.Define(stage, "/World/Log")
    capsule.CreateRadiusAttr(0.1)
    capsule.CreateHeightAttr(2.0)
    capsule.CreateAxisAttr(UsdGeom.Tokens.y)
    capsule.AddTranslateOp().Set(Gf.Vec3d(3.0, 0.0, 0.2))
    capsule.AddScaleOp().Set(Gf.Vec3f(2.0, 1.5, 1.0))  # the radius takes the larger scale across the axis
    prim = capsule.GetPrim()
    UsdPhysics.CollisionAPI.Apply(prim)
    prim.AddAppliedSchema("PhysxCollisionAPI")
    prim.CreateAttribute("physxCollision:contactOffset", Sdf.ValueTypeNames.Float).Set(0.05)
    prim.CreateAttribute("physxCollision:restOffset", Sdf.ValueTypeNames.Float).Set(0.01)
    group = UsdPhysics.CollisionGroup.Define(stage, "/World/Logs")
    group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([prim.GetPath()])
    UsdGeom.Sphere.Define(stage, "/World/Boulder").GetPrim().ApplyAPI(UsdPhysics.CollisionAPI)
    description = read_stage(stage)
    boulder, log = sorted((g for g in description.ground if g.kind in ("sphere", "capsule")), key=lambda g: g.path)
    assert log.kind == "capsule" and log.radius == pytest.approx(0.2) and log.groups == ["/World/Logs"]
    assert (log.contactOffset, log.restOffset) == pytest.approx((0.05, 0.01))
    ground = Ground.from_description([log])  # the segment in the world: 1.5 m each way along Y, at the prim
    assert np.allclose(ground.round_ends[0], [[3.0, -1.5, 0.2], [3.0, 1.5, 0.2]])
    assert boulder.kind == "sphere" and boulder.points == [[0.0, 0.0, 0.0]] and boulder.radius == pytest.approx(1.0)
    assert not [d for d in description.diagnostics if d.code == "CONTACT_SHAPE"]
    # written back (write_stage) and read again: the same core, radius and transform
    again = {g.path: g for g in read_stage(write_stage(description)).ground}
    for shape in (log, boulder):
        got = again[shape.path]
        assert got.kind == shape.kind and np.allclose(got.points, shape.points)
        assert got.radius == pytest.approx(shape.radius) and np.allclose(got.transform, shape.transform)


def test_a_box_meets_a_static_sphere_at_the_box_s_nearest_point():
    # the chassis nose (x 2.04) 1 cm into a sphere of radius 0.4 level with the box's middle (z 0.25 above the origin)
    sphere = _ground("sphere", (2.04 + 0.39, 0.0, ORIGIN_Z + 0.25), 0.4)
    sim = _car_beside(sphere)
    contacts = generate(sim.contact, sim.ground, *_at_rest(sim))
    assert len(contacts) == 1 and contacts.static[0] == len(sim.ground.materials) - 1
    assert contacts.separation[0] == pytest.approx(-0.01, abs=1e-6)
    assert np.allclose(contacts.normal[0], [-1.0, 0.0, 0.0], atol=1e-6)  # from the sphere towards the car
    assert np.allclose(contacts.point[0], [2.04, 0.0, ORIGIN_Z + 0.25], atol=1e-5)  # PCM's sphere-box: on the box


def test_a_box_over_a_static_capsule_touches_where_the_box_face_clips_its_segment():
    # a capsule along Y (ends 3 m apart) 2 cm under the chassis's underside: the face clips the segment at y +-0.9
    bottom = ORIGIN_Z + CHASSIS[2][0]
    log = _ground("capsule", (0.0, 0.0, bottom - 0.12 - 0.02), 0.12, half_height=1.5)
    sim = _car_beside(log)
    contacts = generate(sim.contact, sim.ground, *_at_rest(sim))
    assert len(contacts) == 2 and np.allclose(contacts.separation, 0.02, atol=1e-6)
    assert np.allclose(contacts.normal, [0.0, 0.0, 1.0], atol=1e-6)
    assert np.allclose(sorted(contacts.point[:, 1]), [-0.9, 0.9], atol=1e-5)
    assert np.allclose(contacts.point[:, 2], bottom - 0.02, atol=1e-5)  # on the capsule's top (PCM: the round side)
    far = _car_beside(_ground("capsule", (0.0, 0.0, bottom - 0.12 - 0.05), 0.12, half_height=1.5))
    assert len(generate(far.contact, far.ground, *_at_rest(far))) == 0  # 5 cm: beyond 0.02 + 0.02


def test_round_chassis_against_static_rounds_one_point_each_and_parallel_capsules_a_point_per_end():
    centre = np.array([-0.16, 0.0, ORIGIN_Z + 0.25])
    # the sphere chassis (radius 0.4) 3 cm into a static sphere of radius 0.2 beside it (along +x)
    sim = _car_beside(_ground("sphere", centre + [0.57, 0.0, 0.0], 0.2), chassis="sphere")
    contacts = generate(sim.contact, sim.ground, *_at_rest(sim))
    assert len(contacts) == 1 and contacts.separation[0] == pytest.approx(-0.03, abs=1e-6)
    assert np.allclose(contacts.normal[0], [-1.0, 0.0, 0.0], atol=1e-6)
    assert np.allclose(contacts.point[0], centre + [0.37, 0.0, 0.0], atol=1e-6)  # on the static sphere (shape 1)
    # the sphere chassis on a static capsule across under it: one point, on the sphere
    sim = _car_beside(_ground("capsule", centre - [0.0, 0.0, 0.55], 0.2, half_height=1.0), chassis="sphere")
    contacts = generate(sim.contact, sim.ground, *_at_rest(sim))
    assert len(contacts) == 1 and contacts.separation[0] == pytest.approx(-0.05, abs=1e-6)
    assert np.allclose(contacts.normal[0], [0.0, 0.0, 1.0], atol=1e-6)
    assert np.allclose(contacts.point[0], centre - [0.0, 0.0, 0.4], atol=1e-6)
    # the capsule chassis (along Y, ends at y +-0.5) 1 cm above a longer parallel static capsule: PCM's parallel
    # capsules make a point for each end over the other segment (the chassis's two ends), on the chassis
    sim = _car_beside(_ground("capsule", centre - [0.0, 0.0, 0.51], 0.2, half_height=1.0), chassis="capsule")
    contacts = generate(sim.contact, sim.ground, *_at_rest(sim))
    assert len(contacts) == 2 and np.allclose(contacts.separation, 0.01, atol=1e-6)
    assert np.allclose(sorted(contacts.point[:, 1]), [-0.5, 0.5], atol=1e-6)
    assert np.allclose(contacts.point[:, 2], centre[2] - 0.3, atol=1e-6)
    assert np.allclose(contacts.normal, [0.0, 0.0, 1.0], atol=1e-6)


def test_a_ray_enters_a_capsule_through_its_side_or_its_end_and_misses_from_inside():
    ground = Ground.from_description([_ground("capsule", (0.0, 0.0, 0.1), 0.1, half_height=1.0)])
    origin = np.array([[0.0, 0.05, 0.0], [0.0, 1.5, 0.1], [0.0, 0.0, 0.1]]).T  # above, off the end, inside
    direction = np.array([[0.0, 0.0, -1.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]]).T
    origin[2, 0] = 1.0
    hits = raycast(ground, origin, direction, np.full(3, 2.0))
    assert hits.hit.tolist() == [True, True, False]
    # from above at y 0.05: the top of the side, z 0.2, normal up; along the axis: the end cap's pole, y 1.1
    assert np.allclose(hits.normal[:, 0], [0.0, 0.0, 1.0]) and hits.offset[0] == pytest.approx(-0.2)
    assert np.allclose(hits.normal[:, 1], [0.0, 1.0, 0.0], atol=1e-6)
    assert hits.offset[1] == pytest.approx(-1.1) and hits.shape[0] == 0


def test_a_wheel_hull_swept_down_onto_a_parallel_capsule_meets_it_with_its_flat_underside():
    # the hull's axis along Y like the capsule's; its polygon's corners at 12 degree steps from +X towards -Z: the
    # lowest face is the one between the corners at 264 and 276 degrees, R cos 6 degrees below the centre
    radius, half_width, r = 0.343, 0.1575, 0.12
    wheels = SweptWheels(np.array([[0.0, 0.0, 1.0]]), np.array([[0.0, 1.0, 0.0]]), np.array([[1.0, 0.0, 0.0]]),
                         np.array([[0.0, 0.0, 1.0]]), np.array([radius]), np.array([half_width]),
                         np.array([[0.0, 0.0, -1.0]]), np.array([1.0]))
    ground = Ground.from_description([_ground("capsule", (0.0, 0.0, r), r, half_height=1.5)])
    hits = sweep(ground, wheels)
    assert hits.hit[0] and np.allclose(hits.normal[:, 0], [0.0, 0.0, 1.0], atol=1e-6)  # (single-precision corners)
    assert hits.offset[0] == pytest.approx(-2 * r, abs=1e-6)  # the plane through the capsule's top
    from physxvehicle_usd.sim.wheel_sweep import sweep_rounds

    toi = sweep_rounds(ground, wheels).t[0]
    assert toi == pytest.approx(1.0 - radius * np.cos(np.pi / 30) - 2 * r, abs=1e-6)
    # a hull starting 1 cm into the capsule's top is moved out along the least overlap (up) and swept back onto it
    sunk = SweptWheels(np.array([[0.0, 0.0, 2 * r + radius * np.cos(np.pi / 30) - 0.01]]), *(getattr(wheels, f) for f in (
        "lateral", "axis0", "axis1", "radius", "half_width", "direction", "distance")))
    assert sweep_rounds(ground, sunk).t[0] == pytest.approx(-0.01, abs=1e-6)
    again = sweep(ground, sunk)
    assert again.hit[0] and np.allclose(again.normal[:, 0], [0.0, 0.0, 1.0], atol=1e-6)
    assert again.offset[0] == pytest.approx(-2 * r, abs=1e-6)
    # a wheel beside the capsule's end misses it
    aside = SweptWheels(np.array([[0.0, 2.0, 1.0]]), *(getattr(wheels, f) for f in (
        "lateral", "axis0", "axis1", "radius", "half_width", "direction", "distance")))
    assert not sweep(ground, aside).hit[0]


def test_a_log_by_the_chassis_nose_edge_touches_once_within_reach_of_the_box_rounded_by_its_margin():
    # PCM gates a capsule-box pair by the distance from the box rounded by its margin (0.15 of its least half extent,
    # 0.075 m for the chassis): a log 1.9 cm from the nose's bottom edge (true distance) but 4.5 cm from the rounded
    # box is beyond the 0.04 m contact distance; 0.3 mm into the edge (2.3 cm from the rounded box) it touches, with
    # the true normal and separation, at both ends of its segment (as ovphysx reports LogStrike's strike)
    edge = np.array([CHASSIS[0][1], 0.0, ORIGIN_Z + CHASSIS[2][0]])
    far = _car_beside(_ground("capsule", edge + [0.13, 0.0, -0.05], 0.12, half_height=0.5))
    assert len(generate(far.contact, far.ground, *_at_rest(far))) == 0
    near = _car_beside(_ground("capsule", edge + [0.11, 0.0, -0.04], 0.12, half_height=0.5))
    contacts = generate(near.contact, near.ground, *_at_rest(near))
    distance = np.hypot(0.11, 0.04)
    assert len(contacts) == 2 and np.allclose(contacts.separation, distance - 0.12, atol=1e-6)
    assert np.allclose(contacts.normal, [-0.11 / distance, 0.0, 0.04 / distance], atol=1e-6)
    assert np.allclose(contacts.point[:, 1], [-0.5, 0.5], atol=1e-6)  # PCM's capsule: its - end first


def test_the_sorted_box_broad_phase_finds_every_overlapping_pair():
    from physxvehicle_usd.sim.ground import box_overlaps

    rng = np.random.default_rng(0)
    lo = rng.uniform(-10, 10, (60, 3))
    hi = lo + rng.uniform(0.1, 3.0, (60, 3))
    q_lo = rng.uniform(-10, 10, (200, 3))
    q_hi = q_lo + rng.uniform(0.0, 2.0, (200, 3))
    query, box = box_overlaps(q_lo, q_hi, lo, hi)
    brute = np.nonzero(((q_lo[:, None] <= hi[None]) & (q_hi[:, None] >= lo[None])).all(axis=2))
    assert sorted(zip(query.tolist(), box.tolist())) == sorted(zip(*(b.tolist() for b in brute)))
    assert len(query) > 0


def test_a_box_on_a_static_log_keeps_its_points_till_it_has_moved_three_quarters_of_a_margin():
    # pcmContactCapsuleBox with the log as shape 0: the margin is the lesser of the chassis box's (0.075 m) and the
    # log's radius; a fresh two-point manifold (three with GJK's point) is made anew once the log has moved 0.75
    # margins (56 mm) in the box's frame. Kept, the points stay on the log's surface, the normal the one they were made
    # with, the separations re-measured along it (made anew 4 mm lower, the normal would tilt by 2 degrees)
    # (the car at rest is level: its orientation the identity)
    edge = np.array([CHASSIS[0][1], 0.0, ORIGIN_Z + CHASSIS[2][0]])
    sim = _car_beside(_ground("capsule", edge + [0.11, 0.0, -0.04], 0.12, half_height=0.5))
    L = sim.params.length_scale
    position, orientation = _at_rest(sim)
    made = generate(sim.contact, sim.ground, position, orientation, None, L)
    assert len(made) == 2
    lowered = position.copy()
    lowered[2] -= 0.004
    kept = generate(sim.contact, sim.ground, lowered, orientation, made.manifolds, L)
    assert np.array_equal(kept.normal, made.normal) and np.allclose(kept.point, made.point, atol=1e-12)
    assert np.allclose(kept.separation, made.separation - 0.004 * made.normal[:, 2], atol=1e-9)
    # turned half a degree about Z (a quaternion dot over 0.9997): kept, the normal turns with the box (PCM keeps it
    # in the box's frame), the points on the log's surface along it from its segment's ends
    half = np.radians(0.5) / 2
    turned = generate(sim.contact, sim.ground, position, np.array([[np.cos(half)], [0.0], [0.0], [np.sin(half)]]),
                      made.manifolds, L)
    c, s = np.cos(2 * half), np.sin(2 * half)
    assert np.allclose(turned.normal, made.normal @ np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]]), atol=1e-12)
    on_core = turned.point - 0.12 * turned.normal
    assert np.allclose(on_core, edge + [[0.11, -0.5, -0.04], [0.11, 0.5, -0.04]], atol=1e-9)
    ahead = position.copy()
    ahead[0] += 0.06  # 60 mm towards the log: made anew, the normal from the edge to the log's core
    again = generate(sim.contact, sim.ground, ahead, orientation, made.manifolds, L)
    assert np.allclose(again.normal, [-0.05 / np.hypot(0.05, 0.04), 0.0, 0.04 / np.hypot(0.05, 0.04)], atol=1e-6)
