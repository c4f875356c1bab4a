"""Suspension queries that meet other vehicles (sim/vehicle_queries.py): the exact ray and sweep tests against a box
and a capsule, the query filter by collision groups, and two sample cars, one standing on the other
(tests/scenarios/vehicle_queries.py): it rests on the roof, rolls with it, and falls through it once its query group
filters the other car's chassis. The motion is checked against PhysX in tests/test_conformance_vehicle_queries.py."""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Usd
from scenarios import vehicle_queries as scenario

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled
from physxvehicle_usd.sim.contact.polytopes import polytope
from physxvehicle_usd.sim.pipeline import StepOptions, wheel_frame
from physxvehicle_usd.sim.suspension import steered_wheel_offset
from physxvehicle_usd.sim.vecmath import quat_to_mat
from physxvehicle_usd.sim.vehicle_queries import candidates, ray_capsules, ray_polytopes, sweep_shapes
from physxvehicle_usd.sim.wheel_sweep import SweptWheels

DT = 1.0 / 60.0
STEPS = 6

_CUBE = polytope(np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-1.0, 1.0) for z in (-1.0, 1.0)]))


def _cube_rows(k: int):
    return (np.repeat(_CUBE.normals[None], k, 0), np.repeat(_CUBE.offsets[None], k, 0),
            np.ones((k, len(_CUBE.normals)), bool))


def test_a_ray_enters_a_box_through_the_face_it_meets_and_starts_inside_at_zero():
    o = np.array([[0.2, 0.3, 5.0], [0.0, 0.0, 0.0], [3.0, 0.0, 5.0]])
    d = np.array([[0.0, 0.0, -1.0]] * 3)
    t, n = ray_polytopes(o, d, *_cube_rows(3))
    assert t[0] == pytest.approx(4.0) and n[0] == pytest.approx([0.0, 0.0, 1.0])
    assert t[1] == 0.0  # inside: PhysX's hit at distance 0 (no road)
    assert t[2] == np.inf


def test_a_ray_meets_a_sphere_and_a_capsule_where_their_surfaces_are():
    o = np.array([[0.0, 0.0, 5.0], [1.0, 0.3, 5.0], [4.0, 0.0, 5.0]])
    d = np.array([[0.0, 0.0, -1.0]] * 3)
    a = np.zeros((3, 3))
    b = np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    t, n = ray_capsules(o, d, a, b, np.full(3, 0.5))
    assert t[0] == pytest.approx(4.5) and n[0] == pytest.approx([0.0, 0.0, 1.0])
    assert t[1] == pytest.approx(5.0 - np.sqrt(0.25 - 0.09))  # the capsule's side, off its axis
    assert n[1] == pytest.approx([0.0, 0.3 / 0.5, 0.4 / 0.5])
    assert t[2] == np.inf


def test_a_wheel_hull_swept_down_meets_a_box_top_after_the_gap():
    radius, gap = 0.35, 0.2
    wheels = SweptWheels(centre=np.array([[0.0, 0.0, 1.0 + radius + gap]]), lateral=np.array([[0.0, 1.0, 0.0]]),
                         axis0=np.array([[1.0, 0.0, 0.0]]), axis1=np.array([[0.0, 0.0, 1.0]]),
                         radius=np.array([radius]), half_width=np.array([0.15]),
                         direction=np.array([[0.0, 0.0, -1.0]]), distance=np.array([1.0]))
    normals, offsets, mask = _cube_rows(1)
    edges = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]])
    t, n, offset, _ = sweep_shapes(wheels, _CUBE.vertices[None], normals, mask, edges, np.ones((1, 3), bool),
                                   np.zeros(1))
    lowest = radius * -np.sin(2.0 * np.pi / 30 * np.arange(30)).min()  # the 30-gon's lowest corner (not on the axis)
    assert t[0] == pytest.approx(gap + radius - lowest, abs=1e-6)  # (the corners in float32, as omni.physx)
    assert n[0] == pytest.approx([0.0, 0.0, 1.0]) and offset[0] == pytest.approx(-1.0)


def test_a_wheel_hull_swept_down_onto_a_sphere_meets_its_top():
    radius, gap, ball = 0.35, 0.2, 0.5
    wheels = SweptWheels(centre=np.array([[0.0, 0.0, ball + radius + gap]]), lateral=np.array([[0.0, 1.0, 0.0]]),
                         axis0=np.array([[1.0, 0.0, 0.0]]), axis1=np.array([[0.0, 0.0, 1.0]]),
                         radius=np.array([radius]), half_width=np.array([0.15]),
                         direction=np.array([[0.0, 0.0, -1.0]]), distance=np.array([1.0]))
    t, n, offset, _ = sweep_shapes(wheels, np.zeros((1, 1, 3)), np.zeros((1, 0, 3)), np.zeros((1, 0), bool),
                                   np.zeros((1, 0, 3)), np.zeros((1, 0), bool), np.array([ball]))
    lowest = radius * -np.sin(2.0 * np.pi / 30 * np.arange(30)).min()  # the hull's flat bottom over the sphere's top
    assert t[0] == pytest.approx(gap + radius - lowest, abs=1e-6)
    assert n[0] == pytest.approx([0.0, 0.0, 1.0]) and offset[0] == pytest.approx(-ball)


def _sim(scenarios: dict[str, float], filtered: bool = False) -> Simulator:
    layer = scenario.layer(scenarios, filtered=filtered)
    return Simulator.from_description(read_stage(Usd.Stage.Open(layer)), DT)


@pytest.fixture(scope="module")
def carried() -> Simulator:
    sim = _sim({"Carried2": 2.0})
    for _ in range(STEPS):
        sim.step()
    return sim


def test_a_car_standing_on_another_takes_its_roof_as_the_road(carried):
    a = carried.params.paths.index(scenario.cars("Carried2")[0])
    s = carried.state
    assert s.jounce[a].min() > 0.1  # resting on the roof: its queries reach no ground
    assert np.asarray(carried.telemetry()["wheels"]["isOnGround"])[a].all()


def test_a_car_carried_by_another_rolls_with_it(carried):
    """vehicle2 takes the roof's velocity off the tire's: the wheels of the car on top barely slip."""
    a, b = (carried.params.paths.index(car) for car in scenario.cars("Carried2"))
    slip = np.abs(np.asarray(carried.telemetry()["wheels"]["tireLongitudinalSlip"]))
    assert slip[a].max() <= slip[b].max() + 1e-3


def test_the_compiled_kernel_takes_the_roof_velocity_off_as_numpy_does(carried):
    layer = scenario.layer({"Carried2": 2.0})
    sim = Simulator.from_description(read_stage(Usd.Stage.Open(layer)), DT, options=StepOptions(compiled=False))
    for _ in range(STEPS):
        sim.step()
    assert compiled.covers(carried.params)
    # to the last bits, not to the bit: the kernel's own float atan (_substeps.c atan_f) and numpy's np.arctan,
    # whose float32 loop depends on the CPU (AVX-512 machines take SVML's), differ in an ulp of some lateral slips
    for name in ("body_position", "linear_velocity", "angular_velocity", "rotation_speed", "jounce"):
        ours, theirs = getattr(sim.state, name), getattr(carried.state, name)
        scale = float(np.abs(ours).max())
        assert np.abs(ours - theirs).max() <= 1e-5 * scale, (name, np.abs(ours - theirs).max(), scale)


def test_a_sharded_simulator_steps_a_car_on_another_as_one_range():
    layer = scenario.layer({"Stacked": 0.0})
    sim = Simulator.from_description(read_stage(Usd.Stage.Open(layer)), DT, threads=2,
                                     options=StepOptions(compiled=False))
    assert sim.threads == 2
    for _ in range(3):
        sim.step()
    a = sim.params.paths.index(scenario.cars("Stacked")[0])
    assert np.asarray(sim.telemetry()["wheels"]["isOnGround"])[a].all()


def test_a_query_group_that_filters_the_other_chassis_sees_through_it():
    sim = _sim({"Stacked": 0.0}, filtered=True)
    a = sim.params.paths.index(scenario.cars("Stacked")[0])
    sim.step()
    assert not np.asarray(sim.telemetry()["wheels"]["isOnGround"])[a].any()


def test_cars_apart_reach_no_exact_test():
    sim = _sim({"Stacked": 0.0})
    p, s = sim.params, sim.state
    frame = lambda: wheel_frame(p, quat_to_mat(s.body_orientation), s.body_position,  # noqa: E731
                                steered_wheel_offset(p, np.zeros((p.V, p.W), p.dtype)))
    (v, _, _), _ = candidates(sim.queries, sim.contact, p, frame(), p.travel_distance + 2.0 * p.radius,
                              s.body_position, s.body_orientation)
    assert v.size == 4  # stacked: each of the top car's wheels over the roof
    s.body_position[0, sim.params.paths.index(scenario.cars("Stacked")[0])] += 10.0  # the two cars 10 m apart
    (v, _, _), _ = candidates(sim.queries, sim.contact, p, frame(), p.travel_distance + 2.0 * p.radius,
                              s.body_position, s.body_orientation)
    assert v.size == 0
