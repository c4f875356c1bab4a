"""Contact generation (sim/contact/) on the sample car: hulls, the broad phase, the manifold's four points, and the
solver rows' friction anchors. The motion these make is checked against PhysX in tests/test_conformance_contact.py."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import SAMPLES

from physxvehicle_usd.box_corners import box_points
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact.box import box_box, box_frame
from physxvehicle_usd.sim.contact.broad import static_candidates
from physxvehicle_usd.sim.contact.patches import patch_rows
from physxvehicle_usd.sim.contact.polytopes import Polytopes, convex_polytope, polytope
from physxvehicle_usd.sim.contact.records import Contacts
from physxvehicle_usd.sim.contact.reduction import MAX_POINTS, reduce_contacts
from physxvehicle_usd.sim.contact.separating_axes import polytope_contacts
from physxvehicle_usd.sim.contact.world import generate

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
    planes, hulls, triangles, _ = static_candidates(car.contact, car.ground, *_pose(car))
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
    kept = reduce_contacts(c)
    assert len(kept) == MAX_POINTS and set(kept.patch) == {0}
    assert -0.005 in kept.separation
    spread = np.linalg.norm(kept.point[:, None, :2] - kept.point[None, :, :2], axis=2).max()
    assert spread == pytest.approx(0.7, rel=1e-3)  # two opposite corners of the ring


def test_two_normals_of_one_pair_make_two_patches_each_in_one_piece():
    normals = np.array([[0, 0, 1.0], [0, 1.0, 0], [0, 0, 1.0], [0, 1.0, 0]])
    c = Contacts(np.zeros(4, np.int64), np.zeros(4, np.int64), np.arange(12, dtype=float).reshape(4, 3), normals,
                 np.zeros(4))
    kept = reduce_contacts(c)
    assert list(kept.patch) == [0, 0, 1, 1]
    assert (kept.normal[:2] == [0, 0, 1.0]).all() and (kept.normal[2:] == [0, 1.0, 0]).all()


def test_a_point_made_twice_in_one_patch_counts_once():
    points = np.array([[0, 0, 0.0], [1, 0, 0], [0, 0, 0], [0, 1, 0]])
    c = Contacts(np.zeros(4, np.int64), np.zeros(4, np.int64), points, np.tile([0, 0, 1.0], (4, 1)), np.zeros(4))
    kept = reduce_contacts(c)
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
    zero = np.zeros(1, np.int64)
    return polytope_contacts(A, B, zero, zero, np.array([0.04]), single_sided=normal[None]), normal


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
    assert rows.point_active[0, 0].sum() == 4 and rows.anchor_active[0, 0].all()
    a, b = rows.anchor_arm[:, 0, 0, 0], rows.anchor_arm[:, 0, 0, 1]
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


def test_contact_offsets_count_only_under_physx_collision_api():
    # usdLoad/Collision.cpp reads them through PhysxSchemaPhysxCollisionAPI, which is false on a prim without the API
    # (ovphysx: a contact offset authored without it changed nothing): ignored there, and said
    from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

    from physxvehicle_usd.read.collision import CONTACT_OFFSET

    stage = Usd.Stage.Open(str(CAR))
    for name in ("Bare", "Applied"):
        cube = UsdGeom.Cube.Define(stage, f"/World/{name}")
        cube.AddTranslateOp().Set(Gf.Vec3d(10.0, 0.0, 1.0))
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
        cube.GetPrim().CreateAttribute(CONTACT_OFFSET, Sdf.ValueTypeNames.Float).Set(0.1)
    stage.GetPrimAtPath("/World/Applied").AddAppliedSchema("PhysxCollisionAPI")
    description = read_stage(stage)
    ground = {g.path: g for g in description.ground}
    assert ground["/World/Applied"].contactOffset == pytest.approx(0.1)
    assert ground["/World/Bare"].contactOffset == pytest.approx(0.04)  # 0.02 of its 2 m sides
    said = [(d.code, d.prim, d.property) for d in description.diagnostics if d.code == "CONTACT_OFFSET"]
    assert said == [("CONTACT_OFFSET", "/World/Bare", CONTACT_OFFSET)]


def test_a_car_on_its_roof_keeps_its_friction_anchors_from_step_to_step_and_a_reset_ends_them():
    # the chassis box's roof is 0.75 m above the car's origin: upside down at 0.745 m it rests 5 mm into the ground
    sim = Simulator.from_description(read_stage(CAR), DT)
    sim.reset_vehicles([0], position=(0.0, 0.0, 0.745), orientation=(1.0, 0.0, 0.0, 0.0))
    anchors = []
    for _ in range(6):
        sim.step()
        patches = sim.state.friction
        assert patches is not None and len(patches) == 1 and patches.anchor_count[0] == 2
        anchors.append((patches.other_anchor[0].copy(), bool(patches.broken[0])))
    # held (not slid) patches keep their anchors where they were made: in the world, on the ground
    held = [k for k in range(1, 6) if not anchors[k - 1][1]]
    assert held and all(np.array_equal(anchors[k][0], anchors[k - 1][0]) for k in held)
    assert np.linalg.norm(anchors[-1][0][0] - anchors[-1][0][1]) == pytest.approx(np.hypot(4.4, 1.8), rel=1e-3)
    # the chassis box's manifold against the ground plane, kept beside them (sim/contact/persistence.py)
    assert len(sim.state.manifolds) == 1 and len(sim.state.manifolds.points) == 4
    sim.reset_vehicles([0])
    assert sim.state.friction is None or len(sim.state.friction) == 0
    assert len(sim.state.manifolds) == 0 and len(sim.state.manifolds.points) == 0


def test_a_patch_that_took_no_normal_impulse_breaks_and_is_made_anew_where_the_car_lands():
    # upside down with its roof 1 cm above the ground: two steps of speculative contacts that the fall does not reach
    # (no impulse), then the landing. PhysX's friction rows always ask for some friction, which a zero limit clamps:
    # the airborne patches break, and the landing's anchors are made from its own contacts (ovphysx: the NoBounce drop)
    sim = Simulator.from_description(read_stage(CAR), DT)
    sim.reset_vehicles([0], position=(0.0, 0.0, 0.76), orientation=(1.0, 0.0, 0.0, 0.0))
    states = []
    for _ in range(3):
        sim.step()
        states.append((float(sim.telemetry()["bodies"]["contactImpulses"][0].sum()), bool(sim.state.friction.broken[0]),
                       sim.state.friction.body_anchor[0].copy()))
    assert [impulse > 0.0 for impulse, _, _ in states] == [False, False, True]
    assert [broken for _, broken, _ in states] == [True, True, False]
    assert not np.allclose(states[2][2], states[1][2])  # the landing's anchors are its own


def test_friction_patches_cut_into_ranges_of_vehicles_join_back_to_the_batch_s():
    from physxvehicle_usd.sim.contact.records import FrictionPatches

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


def test_contact_manifolds_cut_into_ranges_of_vehicles_join_back_to_the_batch_s():
    from physxvehicle_usd.sim.contact.records import ManifoldPairs, ManifoldPoints, Manifolds

    rng = np.random.default_rng(1)
    pairs = ManifoldPairs(np.array([0, 1, 3]), np.zeros(3, np.int64), np.arange(3), rng.normal(size=(3, 3)),
                          rng.normal(size=(3, 4)))
    points = ManifoldPoints(np.array([0, 0, 1, 3, 3]), np.zeros(5, np.int64), np.array([0, 0, 1, 2, 2]),
                            *(rng.normal(size=(5, 3)) for _ in range(3)))
    whole = Manifolds(pairs, points)
    ranges = [slice(0, 2), slice(2, 3), slice(3, 4)]
    parts = [whole.of_vehicles(r) for r in ranges]
    assert [len(part) for part in parts] == [2, 0, 1] and list(parts[2].points.vehicle) == [0, 0]
    joined = Manifolds.join(parts, [r.start for r in ranges])
    for got, want in ((joined.pairs, pairs), (joined.points, points)):
        assert all(np.array_equal(getattr(got, name), getattr(want, name)) for name in vars(want))
    assert len(whole.without(np.array([0, 3]))) == 1 and list(whole.without(np.array([0, 3])).points.vehicle) == [1]


def test_a_chassis_on_the_ground_keeps_its_points_until_it_has_moved_a_fifth_of_its_margin(car):
    # PCM's box-plane manifold (GuPCMContactPlaneBox): the chassis box's margin is 0.15 x its smallest half extent
    # (0.5 m), 0.075 m; its points are kept, re-measured, while it has moved less than 0.2 margins (15 mm) along an
    # axis and turned less than about a degree, and made anew after
    L = car.params.length_scale
    position, orientation = _pose(car, lower=0.28)  # 0.02 above the ground
    made = generate(car.contact, car.ground, position, orientation, None, L)
    assert len(made) == 4 and len(made.manifolds) == 1 and np.allclose(made.separation, 0.02, atol=1e-6)

    def moved(dx: float, dz: float, roll: float = 0.0):
        p, q = _pose(car, lower=0.28 - dz, roll=roll)
        p[0] += dx
        return generate(car.contact, car.ground, p, q, made.manifolds, L)

    kept = moved(0.012, -0.005)
    assert np.array_equal(kept.point, made.point) and np.allclose(kept.separation, 0.015, atol=1e-6)
    again = moved(0.018, -0.005)  # farther than 15 mm: the corners where the box is now
    assert np.allclose(again.point[:, 0] - made.point[:, 0], 0.018) and np.allclose(again.separation, 0.015, atol=1e-6)
    turned = moved(0.0, 0.0, roll=np.radians(1.5))  # a quaternion dot under 0.99996: made anew, two corners left
    assert len(turned) == 2 and len(moved(0.0, 0.0, roll=np.radians(0.5))) == 4
    assert len(generate(car.contact, car.ground, position, orientation)) == 4  # no length scale: made anew, kept none


def test_a_patch_on_a_mesh_keeps_six_points_whole_elsewhere_four():
    # PCM's multi-manifold keeps up to six points in a mesh patch (GU_SINGLE_MANIFOLD_CACHE_SIZE): a box lying across
    # two triangles keeps its four corners and the two crossings of their shared edge
    points = np.array([[0, 0, 0.0], [2, 0, 0], [2, 1, 0], [0, 1, 0], [0.5, 0, 0], [1.5, 1, 0]])
    c = Contacts(np.zeros(6, np.int64), np.zeros(6, np.int64), points, np.tile([0, 0, 1.0], (6, 1)), np.zeros(6))
    assert len(reduce_contacts(c, np.full(6, 6))) == 6 and len(reduce_contacts(c)) == MAX_POINTS


def test_a_box_on_two_triangles_meets_them_in_pcm_s_order():
    # a unit box 0.01 above a square of two triangles whose shared edge cuts off the box's (+x, -y) bottom corner.
    # PCM (GuPCMTriangleContactGen.cpp, gPCMBoxPolygonData) clips the box's bottom face by each triangle: the face's
    # corners inside the triangle, in its loop's order (from the (-, -, -) corner, counter-clockwise seen from below),
    # then the crossings, the triangle's edges outer, each loop from its closing edge; the second triangle's crossings
    # are the first's again. ovphysx meets RolloverSlope's side face on its slope in this order, and the order decides
    # which points growPatches takes for the friction anchors, and in which order the solver meets them
    box = convex_polytope(box_points([1.0, 1.0, 1.0]) + [0.0, 0.0, 1.01])
    square = np.array([[-5.0, -7.0, 0.0], [5.0, -7.0, 0.0], [5.0, 4.0, 0.0], [-5.0, 4.0, 0.0]])
    triangles = square[[[0, 1, 2], [0, 2, 3]]]
    edges = np.array([[[0, 1], [1, 2], [0, 2]]] * 2)
    B = Polytopes(triangles, np.tile([0.0, 0.0, 1.0], (2, 1, 1)), np.zeros((2, 1)), np.ones((2, 1), bool),
                  np.tile(np.arange(3), (2, 1, 1)), np.full((2, 1), 3), edges, np.ones((2, 3), bool), edges,
                  np.ones((2, 3), bool))
    zero = np.zeros(2, np.int64)
    made = polytope_contacts(Polytopes.stack([box, box]), B, zero, zero, np.full(2, 0.04),
                             single_sided=np.tile([0.0, 0.0, 1.0], (2, 1)))
    contacts = reduce_contacts(made, np.full(len(made), 6))
    crossing = 6.0 / 1.1 - 5.0  # where the shared edge crosses y = -1
    assert np.allclose(contacts.point, [[1, -1, 0], [crossing, -1, 0], [1, -0.4, 0], [-1, -1, 0], [-1, 1, 0],
                                        [1, 1, 0]])
    assert np.allclose(contacts.separation, 0.01)


def _box_edge_on_a_ramp(roll: float, active: list[bool]) -> Contacts:
    """The sample chassis box (4.4 x 1.8 x 1 m), rolled by `roll` about X, its front lower edge 1e-5 m above a 35
    degree ramp triangle (0.9 m wide, its side edge at y = -0.45 the mesh's boundary), edges (v0 v1, v1 v2, v2 v0)
    active as `active`."""
    half, run = 0.45, 0.7 / np.tan(np.radians(35.0))
    triangle = np.array([[3.0, -half, 0.0], [3.0 + run, -half, 0.7], [3.0 + run, half, 0.7]])
    normal = np.cross(triangle[1] - triangle[0], triangle[2] - triangle[0])
    normal /= np.linalg.norm(normal)
    c, s = np.cos(roll), np.sin(roll)
    turn = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    edge_at = np.array([3.42, 0.0, 0.42 * np.tan(np.radians(35.0))]) + 1e-5 * normal
    box = convex_polytope((box_points([2.2, 0.9, 0.5]) - [2.2, 0.0, -0.5]) @ turn.T + edge_at)
    edges = np.array([[[0, 1], [1, 2], [0, 2]]])
    B = Polytopes(triangle[None], normal[None, None], (normal @ triangle[0])[None, None], np.ones((1, 1), bool),
                  np.arange(3)[None, None], np.full((1, 1), 3), edges, np.ones((1, 3), bool), edges, np.array([active]))
    zero = np.zeros(1, np.int64)
    return polytope_contacts(Polytopes.stack([box]), B, zero, zero, np.array([0.04]), single_sided=normal[None])


@pytest.mark.parametrize("roll", [1e-5, -1e-5, 1e-4])
def test_a_box_edge_across_a_ramp_s_boundary_meets_it_along_the_box_s_face(roll):
    # PCM (GuPCMTriangleContactGen.cpp): the edge pair of the box's front lower edge and the ramp's active side edge
    # overlaps less than the ramp's normal once the box rolls, and then the box's face most opposed to that axis (its
    # underside) gives the normal: ovphysx's ramp run after the strike. Along the ramp's normal, the box brakes on it
    rolled = _box_edge_on_a_ramp(roll, [True, True, False])
    assert len(rolled) == 2 and np.allclose(rolled.normal, [0.0, np.sin(-roll), np.cos(roll)], atol=1e-9)
    # an inactive edge (inside a flat or concave part of the mesh) makes no axis; nor does a box that has not rolled
    for contacts in (_box_edge_on_a_ramp(roll, [False, False, False]), _box_edge_on_a_ramp(0.0, [True, True, False])):
        assert len(contacts) == 2 and np.allclose(contacts.normal, [-np.sin(np.radians(35.0)), 0.0,
                                                                    np.cos(np.radians(35.0))])


def _car_with_wheel_cylinders(radius: float):
    """The sample car with a collision cylinder of `radius` on every wheel, kept from its suspension queries (the
    group the wheel queries use filters it)."""
    from pxr import Sdf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(CAR))
    group = UsdPhysics.CollisionGroup.Define(stage, "/World/Car/WheelShapeGroup")
    group.CreateFilteredGroupsRel().SetTargets([Sdf.Path("/World/Car/WheelQueryGroup")])
    members = []
    for wheel in ("FrontLeftWheel", "FrontRightWheel", "RearLeftWheel", "RearRightWheel"):
        cylinder = UsdGeom.Cylinder.Define(stage, f"/World/Car/{wheel}/Collision")
        cylinder.CreateRadiusAttr(radius)
        cylinder.CreateHeightAttr(0.315)
        cylinder.CreateAxisAttr(UsdGeom.Tokens.y)
        UsdPhysics.CollisionAPI.Apply(cylinder.GetPrim())
        members.append(cylinder.GetPath())
    group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets(members)
    return Simulator.from_description(read_stage(stage), DT)


def test_a_box_that_follows_a_wheel_keeps_no_manifold():
    # omni.physx moves a wheel's shape every step: its contacts are made anew (sim/contact/persistence.py), even on the
    # model posed at the wheels' poses, whose rows follow nothing
    from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

    from physxvehicle_usd.sim.contact.model import persistent_rows

    stage = Usd.Stage.Open(str(CAR))
    group = UsdPhysics.CollisionGroup.Define(stage, "/World/Car/WheelShapeGroup")
    group.CreateFilteredGroupsRel().SetTargets([Sdf.Path("/World/Car/WheelQueryGroup")])
    members = []
    for wheel in ("FrontLeftWheel", "FrontRightWheel", "RearLeftWheel", "RearRightWheel"):
        cube = UsdGeom.Cube.Define(stage, f"/World/Car/{wheel}/Collision")
        cube.CreateSizeAttr(1.0)
        cube.AddScaleOp().Set(Gf.Vec3f(0.69, 0.3, 0.69))  # as low as the tyre
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
        members.append(cube.GetPath())
    group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets(members)
    sim = Simulator.from_description(read_stage(stage), DT)
    wheel_rows = sim.contact.following
    assert len(wheel_rows) == 4
    sim.step()
    assert len(sim.state.contacts.points) and set(sim.state.contacts.points.shape) <= set(wheel_rows)
    assert not persistent_rows(sim.contact)[wheel_rows].any()
    assert sim.state.manifolds is None or not np.isin(sim.state.manifolds.pairs.shape, wheel_rows).any()


def test_a_wheel_shape_wider_than_its_tyre_lifts_the_car_to_full_droop_as_in_physx():
    # omni.physx moves a wheel's collision shape with the wheel every step (PxVehicleWriteWheelLocalPoseToPhysXWheelShape,
    # before the scene's narrow phase): a cylinder 3 cm wider than the tyre always reaches 3 cm into the ground, so
    # each step's contact pushes the body up and the suspension lets the wheel follow, until the suspension is at
    # full droop. ovphysx 0.7 lifts the sample car so from 0.55 to 0.733 m in 0.13 s; fixed in the body the shapes
    # would hold it at 0.578 m.
    from physxvehicle_usd.sim.wheel import wheel_local_pose

    sim = _car_with_wheel_cylinders(0.373)
    assert list(sim.contact.wheel) == [-1, 0, 1, 2, 3]  # the chassis box, then a cylinder per wheel (batch order)
    for _ in range(10):
        sim.step()
    assert sim.state.body_position[2, 0] > 0.72
    # and the cylinders are where the wheels are: on the ground, not lifted with the body
    p, s = sim.params, sim.state
    posed = sim.contact.posed(*wheel_local_pose(p, s, np.zeros((1, 4)), 0.0, 0.0))
    R = vm.quat_to_mat(s.body_orientation.astype(float))[:, :, 0]
    lowest = (posed.shapes.vertices[1:] @ R.T + s.body_position[:, 0].astype(float))[..., 2].min(axis=1)
    assert np.all(np.abs(lowest) < 0.005), lowest


def _dropped_car(bounce_threshold: float | None, applied: bool = True):
    """The sample car upside down, its roof 0.45 m above a ground of restitution 1 (0.5 combined with the chassis's
    default material): it meets the ground at 2.8 m/s. bounce_threshold: the scene's physxScene:bounceThreshold."""
    from pxr import Gf, Sdf, Usd

    stage = Usd.Stage.Open(str(CAR))
    stage.GetPrimAtPath("/World/Asphalt").GetAttribute("physics:restitution").Set(1.0)
    car = stage.GetPrimAtPath("/World/Car")
    car.GetAttribute("xformOp:translate").Set(Gf.Vec3d(0.0, 0.0, 1.2))
    car.GetAttribute("xformOp:orient").Set(Gf.Quatf(0.0, 1.0, 0.0, 0.0))
    if bounce_threshold is not None:
        scene = stage.GetPrimAtPath("/World/PhysicsScene")
        if applied:
            scene.AddAppliedSchema("PhysxSceneAPI")
        scene.CreateAttribute("physxScene:bounceThreshold", Sdf.ValueTypeNames.Float).Set(bounce_threshold)
    return stage


def test_the_scene_s_contact_thresholds_are_read_as_omni_physx_reads_them():
    from physxvehicle_usd import properties as P
    from physxvehicle_usd.description import Source

    def scene(stage):
        d = read_stage(stage)
        return d.scenes["/World/PhysicsScene"].settings, [(x.code, x.property) for x in d.diagnostics]

    block, _ = scene(_dropped_car(None))
    assert block.source("bounceThreshold") == Source.DEFAULT and block["frictionOffsetThreshold"] == 0.04
    block, _ = scene(_dropped_car(5.0))
    assert block["bounceThreshold"] == 5.0 and block.source("bounceThreshold") == Source.AUTHORED
    block, said = scene(_dropped_car(0.0))  # below omni.physx's 1e-6: clamped, and said
    assert block["bounceThreshold"] == 1e-6 and ("SCENE_RANGE", P.physx_scene_attribute("bounceThreshold")) in said
    block, said = scene(_dropped_car(5.0, applied=False))  # without PhysxSceneAPI omni.physx does not read it
    assert block["bounceThreshold"] == 1e-6 and ("SCENE_API", P.physx_scene_attribute("bounceThreshold")) in said


def test_a_car_bounces_only_off_contacts_faster_than_the_bounce_threshold():
    def rebound(stage) -> float:
        sim = Simulator.from_description(read_stage(stage), DT)
        speeds = []
        for _ in range(18):  # it lands in step 18
            sim.step()
            speeds.append(float(sim.state.linear_velocity[2, 0]))
        assert min(speeds) < -2.7
        return speeds[-1]

    assert rebound(_dropped_car(None)) == pytest.approx(0.5 * 2.78, rel=0.05)  # restitution 0.5 of 2.8 m/s
    assert abs(rebound(_dropped_car(5.0))) < 0.05  # a threshold above the impact speed: no bounce


def _car_in_shed():
    """The sample car on its stage (opened anew) inside a static box, the shed, 10 cm from every face of the chassis
    box, and the shed's prim."""
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(CAR))
    cube = UsdGeom.Cube.Define(stage, "/World/Shed")
    cube.CreateSizeAttr(1.0)
    cube.AddTranslateOp().Set(Gf.Vec3d(-0.16, 0.0, 1.1))
    cube.AddScaleOp().Set(Gf.Vec3f(6.0, 4.0, 1.8))
    UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    return stage, cube.GetPrim()


def test_a_chassis_wholly_inside_a_static_box_is_pushed_out_along_the_least_penetration():
    # PhysX's convex contacts (PCM: GJK, then EPA when the shapes overlap) push a shape that lies wholly inside a
    # static box out along the axis of least penetration. The chassis box (world z 0.30 .. 1.30, x -2.36 .. 2.04,
    # y -0.9 .. 0.9) inside a box spanning z 0.20 .. 2.0, 10 cm from every face: out through the box's underside,
    # 1.10 m, is the least. (Touching no face, the pair was found by no face's box before.)
    stage, _ = _car_in_shed()
    sim = Simulator.from_description(read_stage(stage), DT)
    contacts = generate(sim.contact, sim.ground, *_pose(sim))
    assert len(contacts) == 4 and (contacts.static == 1).all()  # the static shapes: the ground plane, then the shed
    assert np.allclose(contacts.normal, [0.0, 0.0, -1.0])
    assert np.allclose(contacts.separation, -1.10, atol=1e-5)


@pytest.mark.parametrize("holder, target", [("/World/Shed", "/World/Car"), ("/World/Shed", "/World/Car/ChassisCollision"),
                                            ("/World/Car", "/World/Shed")])
def test_filtered_pairs_on_a_static_collider_or_on_the_vehicle_s_body_keep_them_apart(holder, target):
    # PhysX filters the pair of actors (or of a shape and an actor) that FilteredPairsAPI names, from either side:
    # the static box naming the car's body or its chassis shape, or the car's body naming the box. Unfiltered, the
    # chassis inside the box touches it at four points (the test above).
    from pxr import Sdf, UsdPhysics

    stage, _ = _car_in_shed()
    UsdPhysics.FilteredPairsAPI.Apply(stage.GetPrimAtPath(holder)).CreateFilteredPairsRel().SetTargets([
        Sdf.Path(target)])
    sim = Simulator.from_description(read_stage(stage), DT)
    assert not sim.contact.collides[:, 1].any() and sim.contact.collides[:, 0].all()  # the shed; the ground plane
    assert len(generate(sim.contact, sim.ground, *_pose(sim))) == 0


@pytest.mark.parametrize("holder, target", [("/World/Shed", "/World"), ("/World/Car", "/World")])
def test_a_filtered_pairs_target_that_is_neither_collider_nor_body_filters_nothing(holder, target):
    # omni.physx resolves each FilteredPairsAPI target to the physics object at its path (a shape, or an actor's
    # shapes: InternalFilteredPairs.cpp collectFilteredObjects); /World, above both, holds none, so the chassis inside
    # the shed still touches it (the test above names the objects themselves)
    from pxr import Sdf, UsdPhysics

    stage, _ = _car_in_shed()
    UsdPhysics.FilteredPairsAPI.Apply(stage.GetPrimAtPath(holder)).CreateFilteredPairsRel().SetTargets([
        Sdf.Path(target)])
    sim = Simulator.from_description(read_stage(stage), DT)
    assert sim.contact.collides.all()
    assert len(generate(sim.contact, sim.ground, *_pose(sim))) == 4


def test_a_chassis_on_a_static_box_keeps_its_points_by_the_box_rules_on_ground_with_no_plane():
    # PCM's box-box manifold (invalidate_BoxConvex): holding four points, made anew once moved 0.375 margins (the
    # lesser of the chassis box's, 0.075 m, and the slab's: 28 mm) along an axis; the ground here has no plane
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(CAR))
    stage.GetPrimAtPath("/World/GroundPlane").SetActive(False)
    slab = UsdGeom.Cube.Define(stage, "/World/Slab")  # its top 0.28 m up, 2 cm under the chassis box
    slab.CreateSizeAttr(1.0)
    slab.AddTranslateOp().Set(Gf.Vec3d(0.0, 0.0, -0.36))
    slab.AddScaleOp().Set(Gf.Vec3f(8.0, 4.0, 1.28))
    UsdPhysics.CollisionAPI.Apply(slab.GetPrim())
    sim = Simulator.from_description(read_stage(stage), DT)
    L = sim.params.length_scale
    position, orientation = _pose(sim)
    made = generate(sim.contact, sim.ground, position, orientation, None, L)
    assert len(made) == 4 and np.allclose(made.separation, 0.02, atol=1e-5)
    for dx, same in ((0.02, True), (0.035, False)):
        shifted = position.copy()
        shifted[0] += dx
        again = generate(sim.contact, sim.ground, shifted, orientation, made.manifolds, L)
        assert len(again) == 4 and np.array_equal(again.point, made.point) == same


def test_a_collider_in_two_groups_is_filtered_by_the_first_and_said():
    # omni.physx gives a collider one collision group, the first in path order (getCollisionGroup, with a warning):
    # the chassis is in its own /World/Car/ChassisGroup and in /World/Extra, which filters the shed's; PhysX keeps the
    # first and the chassis still meets the shed (tests/test_conformance_contact.py checks the order against ovphysx)
    from pxr import Sdf, UsdPhysics

    from physxvehicle_usd.collision_filter import GroupFilter

    stage, shed = _car_in_shed()
    sheds = UsdPhysics.CollisionGroup.Define(stage, "/World/Sheds")
    sheds.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([shed.GetPath()])
    extra = UsdPhysics.CollisionGroup.Define(stage, "/World/Extra")
    extra.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([Sdf.Path("/World/Car/ChassisCollision")])
    extra.CreateFilteredGroupsRel().SetTargets([sheds.GetPath()])
    description = read_stage(stage)
    chassis = description.vehicles["/World/Car"].collision[0]
    assert chassis.groups == ["/World/Car/ChassisGroup", "/World/Extra"]
    said = [d for d in description.diagnostics if d.code == "COLLISION_GROUP"]
    assert [d.prim for d in said] == [chassis.path] and "/World/Car/ChassisGroup" in said[0].message
    rule = GroupFilter.of(description.collisionGroups)
    assert rule.colliders_touch(chassis.groups, ["/World/Sheds"])
    assert not rule.colliders_touch(["/World/Extra"], ["/World/Sheds"])
    sim = Simulator.from_description(description, DT)
    assert len(generate(sim.contact, sim.ground, *_pose(sim))) == 4


def _round_chassis(kind: str):
    """The sample car with its chassis box replaced by a sphere (radius 0.4) or a capsule along X (radius 0.3, 3 m
    between its ends' centres), its core 0.25 m above the car's origin (0.80 m above the ground at the spawn pose),
    and a static box 1 x 1 x 0.6 m with its top at 0.3 m, from x = 0.2 to 1.2."""
    from pxr import Gf, Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.Open(str(CAR))
    stage.GetPrimAtPath("/World/Car/ChassisCollision").SetActive(False)
    if kind == "sphere":
        shape = UsdGeom.Sphere.Define(stage, "/World/Car/Round")
        shape.CreateRadiusAttr(0.4)
    else:
        shape = UsdGeom.Capsule.Define(stage, "/World/Car/Round")
        shape.CreateRadiusAttr(0.3)
        shape.CreateHeightAttr(3.0)
        shape.CreateAxisAttr(UsdGeom.Tokens.x)
    shape.AddTranslateOp().Set(Gf.Vec3d(0.0, 0.0, 0.25))
    UsdPhysics.CollisionAPI.Apply(shape.GetPrim())
    group = UsdPhysics.CollisionGroup(stage.GetPrimAtPath("/World/Car/ChassisGroup"))
    group.GetCollidersCollectionAPI().GetIncludesRel().SetTargets([shape.GetPath()])
    cube = UsdGeom.Cube.Define(stage, "/World/Block")
    cube.CreateSizeAttr(1.0)
    cube.AddTranslateOp().Set(Gf.Vec3d(0.7, 0.0, 0.0))
    cube.AddScaleOp().Set(Gf.Vec3f(1.0, 1.0, 0.6))
    UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    description = read_stage(stage)
    assert not [d for d in description.diagnostics if d.code == "CONTACT_SHAPE"]
    return Simulator.from_description(description, DT)


def test_a_sphere_touches_a_plane_at_one_point_and_a_box_s_edge_at_its_nearest_point():
    sim = _round_chassis("sphere")
    position, orientation = _pose(sim, lower=0.45)  # its bottom 5 cm into the ground
    contacts = generate(sim.contact, sim.ground, position, orientation)
    plane = contacts.static == 0
    assert plane.sum() == 1 and contacts.separation[plane] == pytest.approx([-0.05], abs=1e-6)
    assert contacts.point[plane, 2] == pytest.approx([-0.05], abs=1e-6)  # on the sphere, as ovphysx reports it
    # the box: the sphere's centre (x 0, z 0.5 at lower 0.3) beside its top face, over neither face: the nearest
    # point of the box is its edge at (0.2, 0.3), 0.283 m away, so 0.117 m into the sphere, pushing along the diagonal
    contacts = generate(sim.contact, sim.ground, *_pose(sim, lower=0.3))
    assert len(contacts) == 1 and contacts.static[0] == 1
    assert contacts.separation[0] == pytest.approx(np.hypot(0.2, 0.2) - 0.4, abs=1e-5)
    assert np.allclose(contacts.normal[0], [-np.sqrt(0.5), 0.0, np.sqrt(0.5)], atol=1e-5)
    # at the box's edge, where PhysX's sphere-box contact puts it, not on the sphere (0.117 m up the normal)
    assert np.allclose(contacts.point[0, [0, 2]], [0.2, 0.3], atol=1e-5)


def test_a_capsule_lying_on_a_plane_or_a_box_touches_at_two_points():
    sim = _round_chassis("capsule")
    contacts = generate(sim.contact, sim.ground, *_pose(sim, lower=0.5))  # its underside just on the ground
    plane = contacts.static == 0
    assert plane.sum() == 2 and np.allclose(contacts.separation[plane], 0.0, atol=1e-6)
    assert np.allclose(sorted(contacts.point[plane, 0] - sim.state.body_position[0, 0]), [-1.5, 1.5], atol=1e-5)
    contacts = generate(sim.contact, sim.ground, *_pose(sim, lower=0.4))  # 0.2 into the box's top, clipped by it
    assert len(contacts) == 2 and (contacts.static == 1).all()
    assert np.allclose(contacts.separation, -0.2, atol=1e-6)
    assert np.allclose(sorted(contacts.point[:, 0]), [0.2, 1.2], atol=1e-5)


def test_a_capsule_on_a_box_keeps_its_points_on_its_core_and_reports_them_where_it_has_moved():
    # pcmContactCapsuleBox: the margin is the lesser of the box's (0.15 x 0.3 m) and the radius, 0.045 m; holding
    # two points it is made anew once moved 0.75 margins (34 mm). Kept, a point moves with the capsule (on its surface
    # over its core's point), its separation re-measured; the plane's contacts are made anew every step
    sim = _round_chassis("capsule")
    L = sim.params.length_scale
    position, orientation = _pose(sim, lower=0.4)
    made = generate(sim.contact, sim.ground, position, orientation, None, L)
    on_box = made.static == 1
    shifted = position.copy()
    shifted[0] += 0.02
    shifted[2] += 0.01
    kept = generate(sim.contact, sim.ground, shifted, orientation, made.manifolds, L)
    assert np.allclose(kept.point - made.point[on_box], [0.02, 0.0, 0.01], atol=1e-9)
    assert np.allclose(kept.separation, -0.19, atol=1e-6)
    shifted[0] += 0.02  # 40 mm: made anew, clipped by the box's top again
    again = generate(sim.contact, sim.ground, shifted, orientation, made.manifolds, L)
    assert np.allclose(sorted(again.point[:, 0]), [0.2, 1.2], atol=1e-5)


def test_a_wheel_cylinder_meets_the_ground_as_an_exact_cylinder_along_its_lowest_line():
    # PhysX's convex-core cylinder (omni.physx's default for UsdGeom.Cylinder): its axis level with the ground, two
    # points at the ends of its lowest line, each as deep as the axle is low, whatever the wheel's angle (the 30-corner
    # hull would touch with a corner or a face, up to 1.9 mm apart)
    from physxvehicle_usd.sim.wheel import wheel_local_pose

    sim = _car_with_wheel_cylinders(0.343)
    p, s = sim.params, sim.state
    s.jounce_specified[:] = True
    s.jounce[:] = p.travel_distance / 2
    for angle in (0.0, 0.1):
        s.rotation_angle[:] = angle
        posed = sim.contact.posed(*wheel_local_pose(p, s, np.zeros((1, 4)), 0.0, 0.0))
        position, orientation = _pose(sim, lower=0.05)
        contacts = generate(posed, sim.ground, position, orientation)
        wheels = contacts.shape > 0
        assert wheels.sum() == 8 and np.allclose(np.bincount(contacts.shape[wheels]), [0, 2, 2, 2, 2])
        axle = (posed.cylinder_ends[1:, :, 2].mean(axis=1) + position[2, 0])  # level body: the axles' heights
        expected = np.repeat(axle - 0.343, 2)
        assert np.allclose(contacts.separation[wheels], expected, atol=1e-6)
        assert np.allclose(contacts.point[wheels, 2], expected / 2, atol=1e-6)  # halfway down to the ground


def test_the_solver_rows_have_a_field_per_patch_parameter():
    """patch_rows and pair_rows write each of declare.PATCH_PARAMS under its declared name: the typed rows must have
    that field, (rows, slots) per patch."""
    from dataclasses import fields

    from physxvehicle_usd.sim.declare import PATCH_PARAMS
    from physxvehicle_usd.sim.solver_rows import PairRows, PatchRows

    for rows in (PatchRows, PairRows):
        assert set(PATCH_PARAMS) <= {f.name for f in fields(rows)}, rows.__name__
