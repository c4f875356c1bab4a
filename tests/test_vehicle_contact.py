"""Contacts between vehicles (sim/contact/pairs.py), on pairs of sample cars a few centimetres apart
(tests/scenarios/vehicle_contact.py): a rear-end collision shares the momentum, a head-on one of equal cars keeps its
symmetry, cars whose groups filter each other pass through; the broad phase, the colouring and the islands. The
motion is checked against PhysX in tests/test_conformance_vehicle_contact.py."""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Sdf, Usd, UsdGeom, UsdPhysics
from scenarios import vehicle_contact as scenario

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_sweep
from physxvehicle_usd.sim.contact import pairs as vehicle_contact
from physxvehicle_usd.sim.contact.broad import candidate_pairs, sweep_overlaps, sweep_overlaps_numpy
from physxvehicle_usd.sim.contact.patches import _colours, _kept_patches, grow_patches
from physxvehicle_usd.sim.pipeline import StepOptions
from physxvehicle_usd.sim.row_solver import _islands

DT = 1.0 / 60.0
STEPS = 12
GAP = 0.05  # the chassis boxes' gap at the start [m]: they meet in the first steps
PAIRS = {"RearEnd4": ("rear", 4.0), "HeadOn6": ("head", 6.0)}


def _run(filtered: bool) -> tuple[Simulator, dict]:
    description = read_stage(Usd.Stage.Open(scenario.layer(PAIRS, gap=GAP, filtered=filtered)))
    sim = Simulator.from_description(description, DT)
    kept = []  # the friction patches between the cars after each step
    for _ in range(STEPS):
        sim.step()
        kept.append(sim.state.pair_friction)
    return sim, {**sim.telemetry()["bodies"], "pair_friction": kept}


@pytest.fixture(scope="module")
def touching() -> tuple[Simulator, dict]:
    return _run(filtered=False)


@pytest.fixture(scope="module")
def passing() -> tuple[Simulator, dict]:
    return _run(filtered=True)


def _of(sim: Simulator, bodies: dict, path: str, key: str) -> np.ndarray:
    return np.asarray(bodies[key][sim.params.paths.index(path)], float)


def test_a_rear_end_collision_pushes_the_standing_car_and_they_go_on_together(touching, passing):
    sim, bodies = touching
    a, b = scenario.cars("RearEnd4")
    va, vb = (_of(sim, bodies, car, "linearVelocity")[0] for car in (a, b))
    alone = _of(*passing, a, "linearVelocity")[0]  # A coasting alone over the same steps (B filtered)
    assert vb > 0.3 * alone and va < 0.7 * alone  # B pushed, A held back
    assert va == pytest.approx(vb, abs=0.05 * alone)  # no restitution: they go on together
    # momentum: the two about as much as A alone (each car's own drag differs with its speed)
    assert va + vb == pytest.approx(alone, rel=0.15)
    assert _of(sim, bodies, a, "position")[0] + scenario.CHASSIS_FRONT <= (
        _of(sim, bodies, b, "position")[0] - scenario.CHASSIS_BACK + 0.02)  # A's nose not through B's tail


def test_a_head_on_collision_of_equal_cars_stops_both_and_keeps_its_symmetry(touching, passing):
    sim, bodies = touching
    a, b = scenario.cars("HeadOn6")
    va, vb = (_of(sim, bodies, car, "linearVelocity") for car in (a, b))
    wa, wb = (_of(sim, bodies, car, "angularVelocity") for car in (a, b))
    assert abs(va[0]) < 0.05 * abs(_of(*passing, a, "linearVelocity")[0])
    # B is A turned half a turn about the vertical through the meeting point: (x, y) and the roll and pitch rates
    # change sign, the height, vertical speed and yaw rate do not
    turn = np.array([-1.0, -1.0, 1.0])
    assert np.allclose(vb, turn * va, atol=2e-3)
    assert np.allclose(wb, turn * wa, atol=2e-3)
    xa, xb = (_of(sim, bodies, car, "position") for car in (a, b))
    middle = scenario.CHASSIS_FRONT + GAP / 2
    assert xb[0] - middle == pytest.approx(middle - xa[0], abs=2e-3)
    assert xb[2] == pytest.approx(xa[2], abs=2e-3)


def test_the_telemetry_gives_each_car_the_points_and_the_normal_towards_it(touching):
    sim, bodies = touching
    a, b = scenario.cars("RearEnd4")
    for car, sign in ((a, -1.0), (b, 1.0)):  # A is pushed back (-x), B forward
        count = int(_of(sim, bodies, car, "contactCount"))
        assert count > 0
        normals = _of(sim, bodies, car, "contactNormals")[:count]
        assert (sign * normals[:, 0] > 0.99).all()
        assert (_of(sim, bodies, car, "contactImpulses")[:count] >= 0.0).all()
        assert _of(sim, bodies, car, "contactImpulses")[:count].sum() > 0.0
    points_a = _of(sim, bodies, a, "contactPoints")[:int(_of(sim, bodies, a, "contactCount"))]
    assert np.allclose(points_a[:, 0], _of(sim, bodies, a, "position")[0] + scenario.CHASSIS_FRONT, atol=0.05)


def test_two_chassis_boxes_meet_as_physx_s_box_box_test_makes_them():
    # nose to nose, 2 cm into each other: the points lie on body 0's box (the later car, PCM's second shape), in the
    # orders ovphysx reports at the impacts: level (the earlier car's face the reference, the first of equal overlaps),
    # as at the 8 m/s head-on's: left top, left bottom, right bottom, right top; with the earlier car pitched nose down
    # (the later car's face the reference), as at the rear-end's: right top, left top, right bottom, left bottom
    generate = vehicle_contact.generate

    description = read_stage(Usd.Stage.Open(scenario.layer({"HeadOn6": ("head", 6.0)}, gap=-0.02)))
    sim = Simulator.from_description(description, DT)
    nose = scenario.CHASSIS_FRONT - 0.02  # B's nose
    for pitch, order in ((0.0, [(-0.9, 1.3), (-0.9, 0.3), (0.9, 0.3), (0.9, 1.3)]),
                         (0.02, [(0.9, 1.259), (-0.9, 1.259), (0.9, 0.3), (-0.9, 0.3)])):
        sim.reset_vehicles([0], position=(0.0, 0.0, scenario.SPAWN_HEIGHT_M),
                           orientation=(0.0, np.sin(pitch / 2), 0.0, np.cos(pitch / 2)))
        contacts = generate(sim.contact, sim.state.body_position.astype(float),
                            sim.state.body_orientation.astype(float))
        assert (sim.contact.vehicle[contacts.shape] == 1).all() and (sim.contact.vehicle[contacts.static] == 0).all()
        assert np.allclose(contacts.normal, [1.0, 0.0, 0.0], atol=1e-6)
        assert np.allclose(contacts.point, [(nose, y, z) for y, z in order], atol=1e-3)


def test_cars_whose_groups_filter_each_other_pass_through(passing):
    sim, bodies = passing
    a, b = scenario.cars("HeadOn6")
    assert sim.contact.pairs is not None  # RearEnd4's cars, and either pair's with the other's, still may touch
    assert (_of(sim, bodies, a, "contactCount") == 0) and (_of(sim, bodies, b, "contactCount") == 0)
    assert _of(sim, bodies, a, "position")[0] + scenario.CHASSIS_FRONT > (
        _of(sim, bodies, b, "position")[0] - scenario.CHASSIS_FRONT + 1.0)  # noses a metre past each other


def test_the_broad_phase_finds_no_pair_when_the_cars_are_apart(touching):
    sim, _ = touching
    p = sim.params
    position = np.zeros((3, p.V))
    position[1] = 50.0 * np.arange(p.V)  # every car in a lane of its own
    orientation = np.zeros((4, p.V))
    orientation[0] = 1.0
    (a, b), _ = candidate_pairs(sim.contact, position, orientation)
    assert a.size == 0 and b.size == 0
    position[1] = 0.0
    position[0] = 4.5 * np.arange(p.V)  # nose to tail 0.1 m apart: beyond the contact distance (0.04 m)
    assert candidate_pairs(sim.contact, position, orientation)[0][0].size == 0
    position[0] = 4.42 * np.arange(p.V)  # 0.02 m apart: each car with the next
    (a, b), _ = candidate_pairs(sim.contact, position, orientation)
    assert sorted(zip(sim.contact.vehicle[a].tolist(), sim.contact.vehicle[b].tolist())) == [
        (v + 1, v) for v in range(p.V - 1)]  # body 0 the later vehicle, as PhysX orders two dynamic bodies


@pytest.mark.parametrize("seed", range(3))
def test_no_vehicle_is_twice_in_one_colour_and_a_queue_takes_few_colours(seed):
    rng = np.random.default_rng(seed)
    body0 = rng.integers(0, 40, 200)
    body1 = (body0 + rng.integers(1, 40, 200)) % 40
    colour = _colours(body0, body1)
    assert (colour >= 0).all()
    for c in np.unique(colour):
        members = np.concatenate([body0[colour == c], body1[colour == c]])
        assert len(np.unique(members)) == len(members)
    queue = np.arange(999)
    assert _colours(queue, queue + 1).max() + 1 <= 4


def test_islands_join_the_bodies_pairs_connect():
    label = _islands(7, np.array([5, 0, 2]), np.array([6, 1, 5]))
    assert label.tolist() == [0, 0, 2, 3, 4, 2, 2]


def test_a_step_where_cars_of_two_ranges_touch_is_stepped_whole():
    description = read_stage(Usd.Stage.Open(scenario.layer({"HeadOn6": PAIRS["HeadOn6"]}, gap=GAP)))
    sims = [Simulator.from_description(description, DT, threads=threads, options=StepOptions(compiled=False))
            for threads in (1, 2)]
    assert sims[1].threads == 2  # A and B in ranges of their own
    for _ in range(4):
        for sim in sims:
            sim.step()
    whole, split = (sim.telemetry()["bodies"] for sim in sims)
    assert whole["contactCount"].min() > 0
    for name in ("position", "linearVelocity", "angularVelocity", "contactImpulses"):
        assert np.array_equal(whole[name], split[name]), name


def test_a_quiet_broad_phase_is_skipped_until_a_car_could_have_come_near():
    description = read_stage(Usd.Stage.Open(scenario.layer({"RearEnd4": PAIRS["RearEnd4"]}, gap=1.0)))
    model = Simulator.from_description(description, DT).contact
    assert model.pairs.quiet["position"] is not None  # (the build's reference, at the stage's pose: sim/broad_start.py)
    for key in ("position", "orientation", "margin"):  # dropped, so that the first call below sweeps
        del model.pairs.quiet[key]
    swept = []
    position = np.zeros((3, 2))
    position[0, 1] = scenario.CHASSIS_FRONT + scenario.CHASSIS_BACK + 1.0  # B's tail 1 m ahead of A's nose
    orientation = np.repeat([[1.0], [0.0], [0.0], [0.0]], 2, axis=1)
    for forward in (0.0, 0.1, 0.98):  # A's nose 1, 0.9, 0.02 m from B's tail
        moved = position.copy()
        moved[0, 0] = forward
        pose = model.pairs.quiet.get("position")
        (a, b), _ = candidate_pairs(model, moved, orientation)
        swept.append(pose is None or model.pairs.quiet.get("position") is not pose)
        assert a.size == (1 if forward > 0.9 else 0), forward
    assert swept == [True, False, True]  # 0.1 m is within the margin (0.2 m): nothing could have come near
    # both cars 5 m on, together: their relative motion is A's 0.98 m and nothing more, so the broad phase sweeps
    # once for A's approach and then stays quiet however far the pair drives side by side
    for ahead in (0.0, 5.0, 50.0):
        moved = position.copy()
        moved[0] += ahead
        moved[0, 0] = ahead + 0.5  # A's nose 0.5 m from B's tail
        pose = model.pairs.quiet.get("position")
        (a, b), _ = candidate_pairs(model, moved, orientation)
        assert a.size == 0
        swept.append(pose is None or model.pairs.quiet.get("position") is not pose)
    assert swept[3:] == [True, False, False]


@pytest.mark.parametrize("holder, named", [("/ChassisCollision", ""), ("/ChassisCollision", "/ChassisCollision"),
                                           ("", ""), ("", "/ChassisCollision")])
def test_a_shape_or_body_naming_the_other_car_or_its_shape_with_filtered_pairs_is_kept_from_it(holder, named):
    layer = scenario.layer({"HeadOn6": PAIRS["HeadOn6"]}, gap=0.0)
    stage = Usd.Stage.Open(layer)
    a, b = scenario.cars("HeadOn6")
    api = UsdPhysics.FilteredPairsAPI.Apply(stage.GetPrimAtPath(a + holder))
    api.CreateFilteredPairsRel().SetTargets([Sdf.Path(b + named)])
    sim = Simulator.from_description(read_stage(stage), DT)
    model, s = sim.contact, sim.state
    both = Simulator.from_description(read_stage(Usd.Stage.Open(scenario.layer({"HeadOn6": PAIRS["HeadOn6"]},
                                                                               gap=0.0))), DT).contact
    assert candidate_pairs(both, s.body_position, s.body_orientation)[0][0].size == 1  # nose to nose
    assert candidate_pairs(model, s.body_position, s.body_orientation)[0][0].size == 0


def _bumpers(gap: float, radii: dict[str, float], half_height: float | dict[str, float] = 0.0):
    """The head-on pair `gap` apart with a sphere (or a capsule across the car, half_height > 0, per car or for all)
    of radius radii[car] 0.3 m ahead of the named cars' noses, 0.3 m up: the simulator and the cars' contacts at the
    start."""

    stage = Usd.Stage.Open(scenario.layer({"HeadOn6": PAIRS["HeadOn6"]}, gap=gap))
    for car, r in radii.items():
        hh = half_height.get(car, 0.0) if isinstance(half_height, dict) else half_height
        if hh > 0.0:
            bumper = UsdGeom.Capsule.Define(stage, f"{car}/Bumper")
            bumper.CreateAxisAttr("Y")
            bumper.CreateHeightAttr(2.0 * hh)
        else:
            bumper = UsdGeom.Sphere.Define(stage, f"{car}/Bumper")
        bumper.CreateRadiusAttr(r)
        bumper.AddTranslateOp().Set((scenario.CHASSIS_FRONT + 0.3, 0.0, 0.3))
        UsdPhysics.CollisionAPI.Apply(bumper.GetPrim())
    description = read_stage(stage)
    assert not [d for d in description.diagnostics if d.code == "CONTACT_SHAPE"]  # both radii are applied
    sim = Simulator.from_description(description, DT)
    contacts = vehicle_contact.generate(sim.contact, sim.state.body_position, sim.state.body_orientation)
    return sim, contacts


def test_two_spheres_of_two_cars_meet_with_both_radii_on_the_later_car_s_sphere():
    a, b = scenario.cars("HeadOn6")  # b: later in path order, body 0
    sim, contacts = _bumpers(1.0, {a: 0.25, b: 0.25})
    # centres 2.34 and 3.04 - 0.3 = 2.74 along x: 0.4 apart, 0.1 deep; PCM's sphere-sphere point is on its second
    # sphere (body 0's: the earlier car's shape is the first), the normal towards body 0 (+x)
    assert len(contacts) == 1
    assert contacts.separation[0] == pytest.approx(-0.1, abs=2e-3)
    assert contacts.normal[0] == pytest.approx([1.0, 0.0, 0.0], abs=1e-3)
    assert contacts.point[0][0] == pytest.approx(2.74 - 0.25, abs=2e-3)
    assert sim.params.paths[sim.contact.vehicle[contacts.shape[0]]] == b


@pytest.mark.parametrize("on", [0, 1])
def test_a_sphere_meets_the_other_car_s_box_with_its_radius_and_its_point_on_the_box(on):
    cars = scenario.cars("HeadOn6")
    sim, contacts = _bumpers(0.5, {cars[on]: 0.25})
    # the sphere's front 2.04 + 0.55 = 2.59 ahead of its car's origin, the other's nose 2.04 + 0.5: 5 cm deep, the point
    # on the box (PCM's sphere-box), the normal towards body 0 (the later car, b: +x)
    assert len(contacts) == 1
    assert contacts.separation[0] == pytest.approx(-0.05, abs=2e-3)
    assert contacts.normal[0] == pytest.approx([1.0, 0.0, 0.0], abs=1e-3)
    nose = scenario.CHASSIS_FRONT + 0.5 if on == 0 else scenario.CHASSIS_FRONT
    assert contacts.point[0][0] == pytest.approx(nose, abs=2e-3)


def test_two_parallel_capsules_of_two_cars_meet_at_their_ends_projections():
    a, b = scenario.cars("HeadOn6")
    sim, contacts = _bumpers(1.0, {a: 0.25, b: 0.25}, half_height=0.5)
    # across both cars, 0.4 apart: each end of either segment projects onto the other (PCM's parallel case), two
    # distinct points once reduced (a point made twice counts once), 0.1 deep, on the first capsule (the earlier car's)
    assert len(contacts) >= 2
    assert np.allclose(contacts.separation, -0.1, atol=2e-3)
    assert np.allclose(contacts.normal, [1.0, 0.0, 0.0], atol=1e-3)
    assert np.allclose(contacts.point[:, 0], 2.34 + 0.25, atol=2e-3)
    assert sorted(np.round(contacts.point[:, 1], 3).tolist())[:: len(contacts) - 1] == [-0.5, 0.5]


def test_friction_patches_between_cars_keep_their_anchors_on_both_bodies_while_they_hold(touching, passing):
    sim, bodies = touching
    steps = bodies["pair_friction"]
    assert all(p is None for p in passing[1]["pair_friction"])  # filtered cars make none
    held = 0
    for before, after in zip(steps, steps[1:]):
        if before is None or after is None:
            continue
        for k in np.nonzero(~before.broken & (before.anchor_count == 2))[0]:
            same = np.nonzero((after.vehicle == before.vehicle[k]) & (after.shape == before.shape[k])
                              & (after.static == before.static[k]))[0]
            # kept where it was made, in each body's frame (growPatches adds none to two anchors), unless the
            # bodies closed along the normal by the correlation distance since (the head-on's impact) or turned
            held += any(np.array_equal(after.body_anchor[j], before.body_anchor[k])
                        and np.array_equal(after.other_anchor[j], before.other_anchor[k]) for j in same)
    assert held >= 2
    # a kept anchor's two ends: on body 0 and on body 1, each in its own frame, apart by the motion since it was made
    last = steps[-1]
    assert np.abs(last.body_anchor - last.other_anchor).max() > 1.0  # the two bodies' frames differ by metres


def test_a_pair_patch_is_not_kept_once_the_bodies_turned_or_its_anchors_separated_along_the_normal(touching):
    sim, bodies = touching
    patches = next(p for p in bodies["pair_friction"] if p is not None)
    model, V = sim.contact, sim.params.V
    rotation, position = np.tile(np.eye(3), (V, 1, 1)), np.zeros((V, 3))
    # the anchors as if made at these poses: body 1's where body 0's is
    patches = patches.subset(np.arange(1))  # one patch: its bodies are moved below
    patches.broken[:] = False
    patches.other_anchor = patches.body_anchor.copy()
    patches.other_normal = patches.body_normal.copy()
    scale = np.ones(V)
    kept, _ = _kept_patches(patches, model, rotation, position, scale, between=True)
    assert len(kept) == len(patches)
    other = model.vehicle[patches.static[0]]
    for moved, turned in ((0.03, 0.0), (0.02, 0.0), (0.0, 0.05), (0.0, 0.04)):
        shifted_r, shifted_p = rotation.copy(), position.copy()
        shifted_p[other] = moved * patches.body_normal[0]  # body 1 moved along the normal
        c, s_ = np.cos(turned), np.sin(turned)  # body 1 turned about an axis square to the normal
        axis = np.cross(patches.body_normal[0], [0.0, 0.0, 1.0] if abs(patches.body_normal[0][2]) < 0.9 else [1, 0, 0])
        axis /= np.linalg.norm(axis)
        K = np.cross(np.eye(3), axis)
        shifted_r[other] = np.eye(3) + s_ * K + (1 - c) * K @ K
        kept, _ = _kept_patches(patches, model, shifted_r, shifted_p, scale, between=True)
        # the correlation distance 0.025 m, PXC_SAME_NORMAL 0.999 (2.56 degrees); a turn moves the anchors too
        expected = moved < 0.025 and turned < 0.0447
        assert (len(kept) == len(patches)) == expected or turned > 0.0, (moved, turned)
        if turned == 0.05:
            assert len(kept) == 0


def test_growing_a_patch_takes_near_points_spreading_its_anchors_and_keeps_what_it_held():
    point = np.array([[0.0, 0, 0], [1.0, 0, 0], [0.2, 0, 0], [3.0, 0, 0], [9.0, 0, 0]])
    separation = np.array([0.5, 0.0, 0.0, 0.0, 0.5])  # the first and the last too far apart to anchor
    first, count, threshold = np.array([0, 0]), np.array([5, 5]), np.array([0.1, 0.1])
    anchors, held = np.array([0, 1]), np.array([[0.0, 0, 0], [7.0, 0, 0]])
    made, world = grow_patches(point, separation, first, count, anchors, held, threshold)
    assert made.tolist() == [2, 2]
    # a fresh patch: point 1, then point 2; point 3 replaces the anchor it lies nearer to (1), being farther from
    # the other (0.2) than the two are apart
    assert world[0].tolist() == [[3.0, 0, 0], [0.2, 0, 0]]
    assert world[1, 1].tolist() == [0.2, 0, 0]  # one held at 7: the near point farthest from it joins it


def test_a_reset_ends_the_friction_patches_between_the_car_and_any_other():
    description = read_stage(Usd.Stage.Open(scenario.layer({"RearEnd4": ("rear", 4.0)}, gap=GAP)))
    sim = Simulator.from_description(description, DT)
    for _ in range(3):
        sim.step()
    assert sim.state.pair_friction is not None and len(sim.state.pair_friction) == 1
    sim.reset_vehicles([sim.params.paths.index(scenario.cars("RearEnd4")[0])])  # A: body 1 of the pair
    assert len(sim.state.pair_friction) == 0


@pytest.mark.parametrize("capsule_on", [0, 1])
def test_a_sphere_and_a_capsule_of_two_cars_meet_on_the_sphere_s_surface(capsule_on):
    cars = scenario.cars("HeadOn6")
    sim, contacts = _bumpers(1.0, {cars[0]: 0.25, cars[1]: 0.25}, {cars[capsule_on]: 0.5})
    # PCM's sphere-capsule test takes the sphere first, whichever car it is on: its point on the sphere
    assert len(contacts) == 1
    assert contacts.separation[0] == pytest.approx(-0.1, abs=2e-3)
    assert contacts.normal[0] == pytest.approx([1.0, 0.0, 0.0], abs=1e-3)
    assert contacts.point[0][0] == pytest.approx(2.49 if capsule_on == 0 else 2.59, abs=2e-3)


def test_two_boxes_keep_their_manifold_while_they_move_little_and_its_normal_turns_with_body_0():

    description = read_stage(Usd.Stage.Open(scenario.layer({"RearEnd4": ("rear", 4.0)}, gap=GAP)))
    sim = Simulator.from_description(description, DT)
    for _ in range(3):
        sim.step()
    kept = sim.state.pair_manifolds
    assert kept is not None and len(kept) == 1 and kept.count[0] == 4
    model, scale = sim.contact, sim.params.length_scale
    position, orientation = sim.state.body_position.copy(), sim.state.body_orientation.copy()
    body0 = sim.params.paths.index(scenario.cars("RearEnd4")[1])  # B: later in path order

    def contacts(turn: float, keep=kept):  # body 0 pitched by `turn` about its centre of mass
        q = orientation.copy()
        half = np.array([np.cos(turn / 2), 0.0, np.sin(turn / 2), 0.0])  # about y, (w, x, y, z)
        w1, v1 = half[0], half[1:]
        w2, v2 = q[0, body0], q[1:, body0]
        q[:, body0] = np.r_[w1 * w2 - v1 @ v2, w1 * v2 + w2 * v1 + np.cross(v1, v2)]
        return vehicle_contact.generate(model, position, q, keep, scale)

    held = contacts(0.0)  # kept: the points made at an earlier step, re-measured
    assert len(held) == 4 and np.array_equal(held.manifolds.relative, kept.relative)
    assert np.allclose(held.normal, contacts(0.0, None).normal, atol=1e-3)  # (made anew: much the same)
    # a small pitch of body 0: the kept normal turns with it (PCM keeps it in body 0's box frame)
    small = contacts(2e-3)
    assert np.array_equal(small.manifolds.relative, kept.relative)
    assert small.normal[0] @ held.normal[0] == pytest.approx(np.cos(2e-3), abs=1e-7)
    # a pitch past invalidate_BoxConvex's quaternion threshold for four points (0.9999: 1.6 degrees): made anew
    large = contacts(0.05)
    assert not np.allclose(large.manifolds.orientation0, kept.orientation0)
    assert np.allclose(large.normal, contacts(0.05, None).normal)


@pytest.mark.parametrize("seed", range(6))
def test_the_sweep_in_strips_finds_each_pair_of_a_strip_once_in_order(seed):
    # boxes of a spread of sizes, many in two strips: every pair that overlaps along the sweep axis and shares a strip
    # across, each once; where some box lies in two strips, sorted by (a, b), a < b (the order np.unique gave)
    rng = np.random.default_rng(seed)
    N = 300
    centre = rng.uniform(-20.0, 20.0, (N, 3))
    half = rng.uniform(0.1, 2.0, (N, 3))
    lo, hi = centre - half, centre + half
    axes = np.array([0, 1, 2])
    a, b = sweep_overlaps(lo, hi, axes)  # (compiled where the extension is built)
    width = float((hi[:, 1] - lo[:, 1]).max())
    base = float(lo[:, 1].min())
    first, last = np.floor((lo[:, 1] - base) / width), np.floor((hi[:, 1] - base) / width)
    i, j = np.triu_indices(N, 1)
    shared = np.maximum(first[i], first[j]) <= np.minimum(last[i], last[j])
    meet = (lo[i, 0] <= hi[j, 0]) & (lo[j, 0] <= hi[i, 0]) & shared
    expected = set(zip(i[meet].tolist(), j[meet].tolist()))
    found = list(zip(np.minimum(a, b).tolist(), np.maximum(a, b).tolist()))
    assert len(found) == len(set(found)) and set(found) == expected
    assert (last > first).any() and found == sorted(found) and (a < b).all()


@pytest.mark.skipif(not compiled_sweep.available(), reason="the compiled extension is not built")
@pytest.mark.parametrize("seed", range(4))
def test_the_compiled_sweep_gives_numpys_pairs_in_numpys_order(seed):
    # 0 ulps: the same integer pairs in the same order, for boxes of many sizes, ties of the sort keys (whole-number
    # centres), boxes flat across (no strip of width) and every choice of axes; a NaN left to numpy
    rng = np.random.default_rng(seed)
    for trial in range(60):
        N = int(rng.integers(1, 500))
        centre = rng.uniform(-50.0, 50.0, (N, 3))
        half = rng.uniform(0.01, 4.0, (N, 3))
        if trial % 3 == 0:
            centre = np.round(centre)
        if trial % 5 == 0:
            half[:, 1] = 0.0
        lo, hi = centre - half, centre + half
        axes = rng.permutation(3)
        compiled = compiled_sweep.sweep_overlaps(lo, hi, int(axes[0]), int(axes[1]))
        numpy = sweep_overlaps_numpy(lo, hi, axes)
        assert np.array_equal(compiled[0], numpy[0]) and np.array_equal(compiled[1], numpy[1])
    lo[0, 0] = np.nan
    assert compiled_sweep.sweep_overlaps(lo, hi, 0, 1) is None
