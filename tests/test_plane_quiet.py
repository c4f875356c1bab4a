"""The plane broad phase's quiet (sim/contact/broad.py `_plane_candidates`): on a ground of planes alone, a vehicle
whose shapes were clear of every plane skips the box test until it has moved or turned by its clearance. Skipping must
never change what the broad phase finds: the candidates of a run of moves, each step's against a fresh test."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pxr import Usd
from scenarios import vehicle_contact as scenario

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim import vecmath as vm
from physxvehicle_usd.sim.contact.broad import quiet_above_planes, static_candidates
from physxvehicle_usd.sim.motion import Motion

DT = 1.0 / 60.0
FLEET = Path(__file__).resolve().parent / "scenarios" / "fleet.usda"


@pytest.fixture(scope="module")
def fleet() -> Simulator:
    """Four sample cars (two lanes of two) on the ground plane, with their chassis boxes and bumpers."""
    layer = scenario.layer({"RearEnd4": ("rear", 4.0), "Sphere4": ("sphere", 4.0)})
    sim = Simulator.from_description(read_stage(Usd.Stage.Open(layer)), DT)
    assert sim.contact.static_shapes is None and sim.ground.grid is None and sim.contact.static_rounds is None
    assert sim.params.V == 4
    return sim


def _fresh(sim: Simulator, position: np.ndarray, orientation: np.ndarray):
    """The broad phase without the quiet: every box tested."""
    held = sim.contact.cache.pop("planes_quiet", None)
    try:
        return static_candidates(sim.contact, sim.ground, position, orientation)
    finally:
        sim.contact.cache.pop("planes_quiet", None)
        if held is not None:
            sim.contact.cache["planes_quiet"] = held


# per step and vehicle: a move (x, y, z in metres) and a turn (axis, angle in radians); the chassis starts 0.30 m
# above the plane, so that a run of downward moves brings it within the contact distance and beyond
_moves = st.lists(st.tuples(
    st.tuples(st.floats(-0.6, 0.6), st.floats(-0.6, 0.6), st.floats(-0.15, 0.1)),
    st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3), st.floats(0.0, 0.12)), min_size=4, max_size=4)


@settings(max_examples=40, deadline=None)
@given(st.lists(_moves, min_size=2, max_size=8))
def test_skipping_the_quiet_vehicles_finds_what_testing_every_box_finds(fleet, steps):
    sim = fleet
    sim.contact.cache.pop("planes_quiet", None)
    position = sim.state.body_position.astype(float).copy()
    orientation = sim.state.body_orientation.astype(float).copy()
    for step in [[((0.0, 0.0, 0.0), (0.0, 0.0, 1.0), 0.0)] * 4] + steps:
        for v, (move, axis, angle) in enumerate(step):
            position[:, v] += move
            axis = np.asarray(axis) / max(np.linalg.norm(axis), 1e-9)
            turn = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
            orientation[:, v] = vm.quat_mul(turn[:, None], orientation[:, v, None])[:, 0]
        pose = position.astype(np.float32), orientation.astype(np.float32)  # as the state holds them
        planes, _, _, R = static_candidates(sim.contact, sim.ground, *pose)
        planes_all, _, _, R_all = _fresh(sim, *pose)
        for rows, rows_all in zip(planes, planes_all):
            assert np.array_equal(rows, rows_all)
            if rows.size:  # the rotations of what was found (R is None where nothing was tested)
                assert np.array_equal(R[:, :, rows], R_all[:, :, rows])


def test_a_still_fleet_tests_no_box_and_a_dropped_car_is_tested_alone(fleet):
    sim = fleet
    sim.contact.cache.pop("planes_quiet", None)
    position, orientation = sim.state.body_position.copy(), sim.state.body_orientation.copy()
    planes, _, _, R = static_candidates(sim.contact, sim.ground, position, orientation)
    assert R is not None and not any(rows.size for rows in planes)  # the first step tests every box
    planes, _, _, R = static_candidates(sim.contact, sim.ground, position, orientation)
    assert R is None and not any(rows.size for rows in planes)  # then nothing moved: no box tested
    position[2, 1] -= 0.29  # car 1's chassis within the contact distance (0.30 m above the plane)
    planes, _, _, R = static_candidates(sim.contact, sim.ground, position, orientation)
    tested = np.nonzero(~np.isnan(R[0, 0]))[0]
    assert set(sim.contact.vehicle[tested]) == {1}
    assert planes[0].size and set(sim.contact.vehicle[planes[0]]) == {1}


def test_the_three_quiet_broad_phases_of_a_fleet_apart_share_one_reference_pose():
    """After a step of the conformance fleet (ten cars far apart on the plane), the planes', the vehicle pairs' and
    the suspension queries' broad phases all found them quiet at the step's begin pose, and keep the same arrays
    (sim/motion.py: their motion is measured once a step)."""
    sim = Simulator.from_description(read_stage(Usd.Stage.Open(str(FLEET))), DT)
    begin = sim.state.body_position.copy()
    sim.step()
    planes, pairs, queries = sim.contact.cache["planes_quiet"], sim.contact.pairs.quiet, sim.queries.quiet
    assert planes["position"] is pairs["position"] is queries["position"]
    assert planes["orientation"] is pairs["orientation"] is queries["orientation"]
    assert np.array_equal(pairs["position"], begin)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.tuples(st.floats(-50.0, 50.0), st.floats(-50.0, 50.0), st.floats(-5.0, 5.0)),
                          st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3), st.floats(0.0, 3.1)),
                min_size=1, max_size=6))
def test_the_fleets_motion_bounds_hold_every_bodys_motion(bodies):
    """Motion.bounds, what a quiet broad phase asks first (a fleet within it measures no body alone): the largest
    change along each axis, the bound of any body's change less the common shift, and the largest turn are at least
    each body's own (Motion.since, Motion.relative_shift), from float32 poses as the state holds them."""
    rng = np.random.default_rng(len(bodies))
    V = len(bodies)
    ref_position = rng.uniform(-400.0, 400.0, (3, V))
    ref_orientation = rng.normal(size=(4, V))
    ref_orientation /= np.linalg.norm(ref_orientation, axis=0)
    position, orientation = ref_position.copy(), ref_orientation.copy()
    for v, (move, axis, angle) in enumerate(bodies):
        position[:, v] += move
        axis = np.asarray(axis) / max(np.linalg.norm(axis), 1e-9)
        turn = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
        orientation[:, v] = vm.quat_mul(turn[:, None], orientation[:, v, None])[:, 0]
    motion = Motion(position.astype(np.float32), orientation.astype(np.float32))
    ref = ref_position.astype(np.float32).astype(float), ref_orientation.astype(np.float32).astype(float)
    bounds = motion.bounds(*ref)
    change, turn = motion.since(*ref)
    assert np.all(np.abs(change) <= np.asarray(bounds.along)[:, None])
    assert motion.relative_shift(*ref).max() <= bounds.relative
    assert turn.max() <= bounds.turn + 1e-12  # (math.acos and numpy's arccos may round apart by an ulp)
    angles = np.array([angle for _, _, angle in bodies])
    assert np.all(turn >= angles - 1e-5)  # and the turns bound the turns made


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("V", [1, 3, 1000])
def test_motion_bounds_of_one_body_in_python_floats_and_of_several_are_the_numpy_form(V, dtype):
    """Motion.bounds of a single body is taken in Python floats, of more in one compiled pass (sim/_motion.c) where
    the extension is built, else with numpy: each the float64 differences and products of the numpy form (written
    out here), to the bit (0 ulps; a zero's sign aside); a NaN pose gives bounds no phase is quiet within."""
    rng = np.random.default_rng(V)
    position = rng.uniform(-400.0, 400.0, (3, V)).astype(dtype)
    orientation = rng.normal(size=(4, V))
    orientation = (orientation / np.linalg.norm(orientation, axis=0)).astype(dtype)
    ref_position = (position + rng.normal(0.0, 0.3, (3, V))).astype(float)
    ref_orientation = (orientation + rng.normal(0.0, 0.01, (4, V))).astype(float)
    bounds = Motion(position, orientation).bounds(ref_position, ref_orientation)
    change = position - ref_position
    hi, lo = change.max(axis=1), change.min(axis=1)
    assert bounds.along == tuple(np.maximum(hi, -lo).tolist())
    assert bounds.relative == 0.5 * math.dist(hi.tolist(), lo.tolist())
    cosine = np.abs(sum(orientation[c].astype(float) * ref_orientation[c] for c in range(4))).min()
    assert bounds.turn == vm.turn_from_cosine(float(cosine))
    position[1, V - 1] = np.nan
    broken = Motion(position, orientation).bounds(ref_position, ref_orientation)
    assert not broken.relative < 1e30 and not all(a < 1e30 for a in broken.along)


@pytest.fixture(scope="module")
def lone_car() -> Simulator:
    """The sample car alone on its ground plane, with its chassis box: the planes' quiet test in Python floats."""
    from scenarios.regimes import UNITS, _sample

    sim = Simulator.from_description(read_stage(Usd.Stage.Open(_sample(UNITS["m"]))), DT)
    assert sim.params.V == 1 and sim.contact.static_shapes is None and sim.ground.grid is None
    return sim


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.tuples(st.floats(-0.6, 0.6), st.floats(-0.6, 0.6), st.floats(-0.3, 0.1)),
                          st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3), st.floats(0.0, 0.3)),
                min_size=1, max_size=8))
def test_a_lone_car_is_quiet_above_the_planes_only_where_its_boxes_are_clear(lone_car, steps):
    # the pipeline's first question (broad.quiet_above_planes, the lone body's bounds in Python floats) answers yes
    # only where the broad phase itself would test no box, and a box tested afresh finds no plane near
    sim = lone_car
    sim.contact.cache.pop("planes_quiet", None)
    position = sim.state.body_position.astype(float).copy()
    orientation = sim.state.body_orientation.astype(float).copy()
    static_candidates(sim.contact, sim.ground, position.astype(np.float32), orientation.astype(np.float32))
    for move, axis, angle in steps:
        position[:, 0] += move
        axis = np.asarray(axis) / max(np.linalg.norm(axis), 1e-9)
        turn = np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])
        orientation[:, 0] = vm.quat_mul(turn[:, None], orientation[:, 0, None])[:, 0]
        pose = position.astype(np.float32), orientation.astype(np.float32)
        quiet = quiet_above_planes(sim.contact, sim.ground, Motion(*pose))
        planes_all, _, _, _ = _fresh(sim, *pose)
        planes, _, _, R = static_candidates(sim.contact, sim.ground, *pose)
        assert quiet == (R is None)  # the same answer as the broad phase's own
        if quiet:
            assert not any(rows.size for rows in planes_all)


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.floats(-50.0, 50.0), st.floats(-50.0, 50.0), st.floats(-0.5, 3.0)),
       st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4).filter(lambda q: sum(v * v for v in q) > 1e-3))
def test_a_lone_cars_first_test_in_python_floats_keeps_numpys_clearance_to_the_bit(lone_car, xyz, q):
    # the first test of a lone body and shape is taken in Python floats (broad._lone_clearance): the clearance it
    # keeps is the one the arrays give (shape_boxes, then each plane's lowest box point, as broad._near_planes takes
    # it, less the rounding margin), to the bit; where the box comes near a plane, the arrays decide and find it
    from physxvehicle_usd.sim.contact.placement import shape_boxes

    sim = lone_car
    model, ground = sim.contact, sim.ground
    position = np.array(xyz, np.float32)[:, None]
    orientation = (np.array(q) / np.linalg.norm(q)).astype(np.float32)[:, None]
    R, centre, slack = shape_boxes(model, position, orientation)
    h = model.box_half
    clearance = np.full(1, np.inf)
    for k in range(len(ground.plane_normals)):
        n, d = [float(v) for v in ground.plane_normals[k]], float(ground.plane_offsets[k])
        turned = [R[0, j] * n[0] + R[1, j] * n[1] + R[2, j] * n[2] for j in range(3)]
        lowest = (centre[0] * n[0] + centre[1] * n[1] + centre[2] * n[2] + d
                  - (np.abs(turned[0]) * h[0] + np.abs(turned[1]) * h[1] + np.abs(turned[2]) * h[2]))
        clearance = np.minimum(clearance, lowest - slack - model.plane_limit[k])
    near = bool((clearance < 0.0).any())
    clearance -= 1e-9 * (1.0 + np.abs(position).sum(axis=0))
    model.cache.pop("planes_quiet", None)
    planes, _, _, R_found = static_candidates(model, ground, position, orientation)
    assert any(rows.size for rows in planes) == near
    if not near:  # (near a plane, the arrays' own)
        assert R_found.tobytes() == R.tobytes() and R_found.shape == R.shape
    kept = model.cache["planes_quiet"]
    assert kept["clearance"].tobytes() == clearance.tobytes()
    assert kept["clearance_min"] == float(clearance[0])


def test_a_still_lone_car_is_quiet_and_one_brought_down_to_the_plane_is_not(lone_car):
    sim = lone_car
    sim.contact.cache.pop("planes_quiet", None)
    position, orientation = sim.state.body_position.copy(), sim.state.body_orientation.copy()
    assert not quiet_above_planes(sim.contact, sim.ground, Motion(position, orientation))  # no reference pose yet
    static_candidates(sim.contact, sim.ground, position, orientation)
    assert quiet_above_planes(sim.contact, sim.ground, Motion(position, orientation))
    low = position.copy()
    low[2] -= float(sim.contact.cache["planes_quiet"]["clearance_min"]) + 0.01
    assert not quiet_above_planes(sim.contact, sim.ground, Motion(low, orientation))
    nan = position.copy()
    nan[0] = np.nan
    assert not quiet_above_planes(sim.contact, sim.ground, Motion(nan, orientation))


def test_the_compiled_pass_checks_each_pose_it_is_given_and_measures_what_numpy_does():
    """Motion's compiled pass checks a step's pose once and keeps a reference pose's checked arguments while the
    phases keep it (sim/motion.py): a kept reference met again by new poses, references made and dropped in turn,
    float32 or float64, and a pose it cannot read (not contiguous) all give numpy's bounds, to the bit (0 ulps)."""
    rng = np.random.default_rng(7)

    def numpy_bounds(position, orientation, ref_position, ref_orientation):
        change = position - ref_position
        hi, lo = change.max(axis=1), change.min(axis=1)
        cosine = float(np.abs((orientation * ref_orientation).sum(axis=0)).min())
        return (tuple(np.maximum(hi, -lo).tolist()), 0.5 * math.dist(hi.tolist(), lo.tolist()),
                vm.turn_from_cosine(cosine))

    def pose(V):
        orientation = rng.normal(size=(4, V))
        return (rng.uniform(-50.0, 50.0, (3, V)).astype(np.float32),
                (orientation / np.linalg.norm(orientation, axis=0)).astype(np.float32))

    ref_position, ref_orientation = (a.astype(float) for a in pose(5))
    for position, orientation in (pose(5), pose(5)):  # the same reference, asked by two steps' poses
        assert tuple(Motion(position, orientation).bounds(ref_position, ref_orientation)) == numpy_bounds(
            position, orientation, ref_position, ref_orientation)
    wide = np.zeros((3, 10), np.float32)
    wide[:, ::2] = pose(5)[0]
    strided = wide[:, ::2]  # (not contiguous: numpy measures)
    assert not strided.flags.c_contiguous
    assert tuple(Motion(strided, orientation).bounds(ref_position, ref_orientation)) == numpy_bounds(
        strided, orientation, ref_position, ref_orientation)
    position, orientation = (a.astype(float) for a in pose(5))  # a float64 pose against the kept reference
    assert tuple(Motion(position, orientation).bounds(ref_position, ref_orientation)) == numpy_bounds(
        position, orientation, ref_position, ref_orientation)
    position, orientation = pose(5)
    for k in range(12):  # references made and dropped in turn (a new one may take a dropped one's id), some of
        # float32 values (read as float32 copies), some not (read as they are)
        ref_position, ref_orientation = (a.astype(float) + (1e-9 if k % 2 else 0.0) for a in pose(5))
        assert tuple(Motion(position, orientation).bounds(ref_position, ref_orientation)) == numpy_bounds(
            position, orientation, ref_position, ref_orientation)
        del ref_position, ref_orientation
