"""Contact generation (sim/contact.py) on the sample car: hulls, the broad phase, the manifold's four points, and the
solver rows' friction anchors. The motion these make is checked against PhysX in tests/test_conformance_contact.py."""
from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import SAMPLES

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.read.collision import box_points
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact import (
    MAX_POINTS,
    Contacts,
    Polytopes,
    _candidates,
    _polytope_contacts,
    _reduce,
    generate,
    patch_rows,
    polytope,
)
from physxvehicle_usd.sim.pcm_box import box_box, box_frame

CAR = SAMPLES / "car" / "car.usda"
DT = 1.0 / 60.0


@pytest.fixture(scope="module")
def car() -> Simulator:
    return Simulator.from_description(read_stage(CAR), DT)


def _prism(corners: int, radius: float = 0.35, width: float = 0.25) -> np.ndarray:
    angle = np.arange(corners) * 2.0 * np.pi / corners
    ring = np.stack([np.zeros(corners), radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return np.concatenate([ring + [width / 2, 0.0, 0.0], ring - [width / 2, 0.0, 0.0]])


def _faces_by_brute_force(points: np.ndarray, eps: float) -> set[tuple[int, ...]]:
    """Every plane through three points with all points on one side, as the set of the points on it."""
    faces = set()
    for i, j, k in itertools.combinations(range(len(points)), 3):
        normal = np.cross(points[j] - points[i], points[k] - points[i])
        if np.linalg.norm(normal) < 1e-9:
            continue
        side = (points - points[i]) @ (normal / np.linalg.norm(normal))
        if (side <= eps).all() or (side >= -eps).all():
            faces.add(tuple(np.nonzero(np.abs(side) <= eps)[0]))
    return faces


def test_a_wheel_prism_has_its_two_caps_and_a_side_face_per_edge():
    hull = polytope(_prism(30))
    assert len(hull.normals) == 32 and len(hull.edges) == 90
    assert sorted(hull.loop_counts)[-2:] == [30, 30] and (np.sort(hull.loop_counts)[:-2] == 4).all()
    assert np.allclose(hull.vertices @ hull.normals.T - hull.offsets, np.minimum(hull.vertices @ hull.normals.T
                                                                                  - hull.offsets, 0.0))


@pytest.mark.parametrize("seed", range(3))
def test_the_hull_has_the_faces_every_three_points_would_give(seed):
    points = np.random.default_rng(seed).normal(size=(14, 3))
    hull = polytope(points)
    eps = 1e-6 * np.abs(hull.vertices).max()
    got = {tuple(np.sort(np.nonzero(np.abs(hull.vertices @ n - d) <= eps)[0])) for n, d in zip(hull.normals,
                                                                                              hull.offsets)}
    assert got == _faces_by_brute_force(hull.vertices, eps)


def test_points_without_volume_are_refused():
    with pytest.raises(ValueError, match="no volume"):
        polytope(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], float))


def _pose(sim: Simulator, lower: float = 0.0, roll: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    position = sim.state.body_position.astype(float).copy()
    position[2] -= lower
    orientation = vm.quat_mul(sim.state.body_orientation.astype(float),
                              np.array([np.cos(roll / 2), np.sin(roll / 2), 0.0, 0.0])[:, None])
    return position, orientation


def test_a_car_on_its_wheels_leaves_the_broad_phase_with_nothing(car):
    planes, hulls, triangles, _ = _candidates(car.contact, car.ground, *_pose(car))
    assert all(rows.size == 0 for rows in planes) and hulls[0].size == 0 and triangles[0].size == 0
    assert len(generate(car.contact, car.ground, *_pose(car))) == 0


def test_a_chassis_within_the_contact_distance_touches_at_its_four_bottom_corners(car):
    # the chassis box's underside is 0.30 m above the ground at the spawn pose; contact distance 0.02 + 0.02 m
    contacts = generate(car.contact, car.ground, *_pose(car, lower=0.28))
    assert len(contacts) == 4 and set(contacts.patch) == {0}
    assert np.allclose(contacts.separation, 0.02, atol=1e-6)
    assert np.allclose(contacts.normal, [0.0, 0.0, 1.0])
    assert np.allclose(sorted(contacts.point[:, 0]), [-2.36, -2.36, 2.04, 2.04], atol=1e-6)
    assert len(generate(car.contact, car.ground, *_pose(car, lower=0.265))) == 4  # 0.035 away
    assert len(generate(car.contact, car.ground, *_pose(car, lower=0.255))) == 0  # 0.045 away
    sunk = generate(car.contact, car.ground, *_pose(car, lower=0.31))
    assert len(sunk) == 4 and np.allclose(sunk.separation, -0.01, atol=1e-6)
    # in PhysX's box-plane order (GuPCMContactPlaneBox): (+x +y), (+x -y), (-x +y), (-x -y) of the box's own axes
    signs = np.sign(contacts.point[:, :2] - contacts.point[:, :2].mean(axis=0))
    assert signs.tolist() == [[1, 1], [1, -1], [-1, 1], [-1, -1]]


def test_a_box_on_a_static_box_touches_at_its_four_bottom_corners_in_physx_order():
    # GuPCMContactBoxBox: the static box's top face is the reference (least overlap, the larger box's padding
    # aside), the vehicle box's underside the incident face; points on the static face, in the incident quad's order
    identity = np.eye(3)[None]
    made, point, separation, valid, normal = box_box(
        np.array([[0.0, 0.0, 1.99]]), identity, np.ones((1, 3)), np.zeros((1, 3)), identity,
        np.array([[2.0, 2.0, 1.0]]), np.array([0.04]))
    assert made[0] and valid[0].sum() == 4 and valid[0, :4].all()
    assert np.allclose(normal[0], [0.0, 0.0, 1.0]) and np.allclose(separation[0, :4], -0.01)
    assert np.allclose(point[0, :4], [[1, 1, 1], [1, -1, 1], [-1, -1, 1], [-1, 1, 1]])
    # 0.05 apart, beyond the contact distance: nothing
    assert not box_box(np.array([[0.0, 0.0, 2.05]]), identity, np.ones((1, 3)), np.zeros((1, 3)), identity,
                       np.array([[2.0, 2.0, 1.0]]), np.array([0.04]))[3].any()


def test_box_corners_are_recognised_turned_and_moved_and_other_points_are_not():
    turn = vm.quat_to_mat(np.array([[np.cos(0.3)], [0.0], [np.sin(0.3)], [0.0]]))[:, :, 0]
    corners = box_points([1.0, 2.0, 3.0]) @ turn.T + [5.0, 6.0, 7.0]
    centre, axes, half = box_frame(corners)
    assert np.allclose(centre, [5, 6, 7]) and np.allclose(half, [1, 2, 3]) and np.allclose(axes, turn.T)
    assert box_frame(corners[::-1]) is None and box_frame(_prism(4)) is None


def test_a_rolled_chassis_touches_with_its_lower_edge_only(car):
    # rolled 0.5 rad about the forward axis and lowered until the lower long edge nears the ground
    position, orientation = _pose(car, roll=0.5)
    centre, half_height, half_width = 0.25, 0.5, 0.9  # the box centre above the body origin, its half extents
    lowest = position[2, 0] + centre * np.cos(0.5) - half_height * np.cos(0.5) - half_width * np.sin(0.5)
    position[2] -= lowest - 0.01
    contacts = generate(car.contact, car.ground, position, orientation)
    assert len(contacts) == 2
    assert np.allclose(contacts.separation, 0.01, atol=1e-6)


def test_a_patch_of_more_than_four_points_keeps_the_deepest_and_the_widest(car):
    # the wheel prism of 30 corners lying on its cap: 30 points within the contact distance, four kept
    ring = _prism(30)[:30, 1:]
    depth = np.linspace(0.0, 0.01, 30)
    depth[7] = -0.005  # the deepest
    c = Contacts(np.zeros(30, np.int64), np.zeros(30, np.int64), np.c_[ring, depth], np.tile([0, 0, 1.0], (30, 1)),
                 depth)
    kept = _reduce(c)
    assert len(kept) == MAX_POINTS and set(kept.patch) == {0}
    assert -0.005 in kept.separation
    spread = np.linalg.norm(kept.point[:, None, :2] - kept.point[None, :, :2], axis=2).max()
    assert spread == pytest.approx(0.7, rel=1e-3)  # two opposite corners of the ring


def test_two_normals_of_one_pair_make_two_patches_each_in_one_piece():
    normals = np.array([[0, 0, 1.0], [0, 1.0, 0], [0, 0, 1.0], [0, 1.0, 0]])
    c = Contacts(np.zeros(4, np.int64), np.zeros(4, np.int64), np.arange(12, dtype=float).reshape(4, 3), normals,
                 np.zeros(4))
    kept = _reduce(c)
    assert list(kept.patch) == [0, 0, 1, 1]
    assert (kept.normal[:2] == [0, 0, 1.0]).all() and (kept.normal[2:] == [0, 1.0, 0]).all()


def test_a_point_made_twice_in_one_patch_counts_once():
    points = np.array([[0, 0, 0.0], [1, 0, 0], [0, 0, 0], [0, 1, 0]])
    c = Contacts(np.zeros(4, np.int64), np.zeros(4, np.int64), points, np.tile([0, 0, 1.0], (4, 1)), np.zeros(4))
    kept = _reduce(c)
    assert len(kept) == 3 and kept.point.tolist() == [[0, 0, 0], [1, 0, 0], [0, 1, 0]]


def _ramp_contacts(drop: float):
    """A unit cube 0.02 above a ramp's crest (the ramp rising along x to z = 0 at x = 0, `drop` over 1.5 m); its
    contacts with the ramp's triangle."""
    box = box_points([1.0, 1.0, 1.0]) + [0.0, 0.0, 1.02]
    A = Polytopes.stack([polytope(box)])
    tri = np.array([[-1.5, -0.5, -drop], [0.0, -0.5, 0.0], [0.0, 0.5, 0.0]])
    normal = np.cross(tri[1] - tri[0], tri[2] - tri[0])
    normal /= np.linalg.norm(normal)
    B = Polytopes(tri[None], normal[None, None], np.array([[normal @ tri[0]]]), np.ones((1, 1), bool),
                  np.arange(3)[None, None], np.full((1, 1), 3), np.array([[[0, 1], [1, 2], [0, 2]]]),
                  np.ones((1, 3), bool), np.array([[[0, 1], [1, 2], [0, 2]]]), np.ones((1, 3), bool))
    model = SimpleNamespace(contact_distance=np.array([[0.04]]))
    zero = np.zeros(1, np.int64)
    return _polytope_contacts(A, B, zero, zero, model, single_sided=normal[None]), normal


def test_a_hull_face_facing_a_ramp_s_crest_meets_it_along_the_ramp_s_normal():
    # PCM's convex-triangle rule (GuPCMTriangleContactGen): the cube's underside is the separating axis (0.02), but
    # it lies within 45 degrees of facing the ramp (24 degrees), so the ramp is the reference: its crest vertices,
    # on the ramp, separated by 0.02 times the cosine between the normals
    contacts, normal = _ramp_contacts(0.675)
    assert normal[2] > 0.9 and len(contacts) == 2 and np.allclose(contacts.normal, normal)
    assert np.allclose(sorted(contacts.point.tolist()), [[0, -0.5, 0], [0, 0.5, 0]])
    assert np.allclose(contacts.separation, 0.02 * normal[2])
    # a ramp 60 degrees steep: the cube's underside keeps the normal, and the separation of 0.02
    steep, normal = _ramp_contacts(1.5 * np.sqrt(3.0))
    assert normal[2] < 0.51 and len(steep) == 2 and np.allclose(steep.normal, [0, 0, 1])
    assert np.allclose(steep.separation, 0.02)


def test_a_resting_chassis_anchors_its_friction_at_two_opposite_corners(car):
    position, orientation = _pose(car, lower=0.29)
    contacts = generate(car.contact, car.ground, position, orientation)
    rows = patch_rows(car.contact, contacts, np.array([0]), position, orientation, car.params.length_scale)
    assert rows["point_active"][0, 0].sum() == 4 and rows["anchor_active"][0, 0].all()
    a, b = rows["anchor_arm"][:, 0, 0, 0], rows["anchor_arm"][:, 0, 0, 1]
    assert np.linalg.norm(a - b) == pytest.approx(np.hypot(4.4, 1.8), rel=1e-6)  # a diagonal: the farthest pair


def test_unauthored_contact_offsets_are_omni_physx_s():
    # usdLoad/Collision.cpp, usdInterface/UsdInterface.cpp: a plane 0.02 m; another shape 0.02 of its box's smallest
    # side, at least 2 g dt^2 at the scene's 60 steps per second (here 2 * 9.81 / 3600 = 0.00545 m)
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(CAR))
    for name, size in (("Ridge", (0.4, 0.6, 0.7)), ("Plate", (2.0, 2.0, 0.1))):
        cube = UsdGeom.Cube.Define(stage, f"/World/{name}")
        cube.CreateSizeAttr(1.0)
        cube.AddTranslateOp().Set(Gf.Vec3d(10.0, 0.0, 1.0))
        cube.AddScaleOp().Set(Gf.Vec3f(*size))
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    ground = {g.path: g for g in read_stage(stage).ground}
    assert ground["/World/GroundPlane"].contactOffset == pytest.approx(0.02)
    assert ground["/World/Ridge"].contactOffset == pytest.approx(0.008)
    assert ground["/World/Plate"].contactOffset == pytest.approx(2 * 9.81 / 3600, rel=1e-6)
    chassis = read_stage(stage).vehicles["/World/Car"].collision[0]
    assert chassis.contactOffset == pytest.approx(0.02) and chassis.restOffset == 0.0  # its box: 4.4 x 1.8 x 1


def test_a_car_on_its_roof_keeps_its_friction_anchors_from_step_to_step_and_a_reset_ends_them():
    # the chassis box's roof is 0.75 m above the car's origin: upside down at 0.745 m it rests 5 mm into the ground
    sim = Simulator.from_description(read_stage(CAR), DT)
    sim.reset_vehicles([0], position=(0.0, 0.0, 0.745), orientation=(1.0, 0.0, 0.0, 0.0))
    anchors = []
    for _ in range(6):
        sim.step()
        patches = sim.state.friction
        assert patches is not None and len(patches) == 1 and patches.anchor_count[0] == 2
        anchors.append((patches.world_anchor[0].copy(), bool(patches.broken[0])))
    # held (not slid) patches keep their anchors where they were made: in the world, on the ground
    held = [k for k in range(1, 6) if not anchors[k - 1][1]]
    assert held and all(np.array_equal(anchors[k][0], anchors[k - 1][0]) for k in held)
    assert np.linalg.norm(anchors[-1][0][0] - anchors[-1][0][1]) == pytest.approx(np.hypot(4.4, 1.8), rel=1e-3)
    sim.reset_vehicles([0])
    assert sim.state.friction is None or len(sim.state.friction) == 0


def test_friction_patches_cut_into_ranges_of_vehicles_join_back_to_the_batch_s():
    from physxvehicle_usd.sim.contact import FrictionPatches

    P = 5
    rng = np.random.default_rng(0)
    whole = FrictionPatches(np.array([0, 1, 1, 3, 4]), np.zeros(P, np.int64), np.arange(P), rng.normal(size=(P, 3)),
                            rng.normal(size=(P, 3)), np.full(P, 2), rng.normal(size=(P, 2, 3)),
                            rng.normal(size=(P, 2, 3)), np.zeros(P, bool))
    ranges = [slice(0, 2), slice(2, 4), slice(4, 5)]
    parts = [whole.of_vehicles(r) for r in ranges]
    assert [list(part.vehicle) for part in parts] == [[0, 1, 1], [1], [0]]
    joined = FrictionPatches.join(parts, [r.start for r in ranges])
    assert all(np.array_equal(getattr(joined, name), getattr(whole, name)) for name in vars(whole))
