"""Suspension queries that meet their own vehicle's shapes (sim/vehicle_queries.py, `VehicleQueries.own`), and the
validate rule that warns of them (A10): the sample car with its chassis in no group, with an unfiltered cylinder on
every wheel, and as it is (tests/scenarios/own_queries.py), a few steps in memory. The motion is checked against
PhysX in tests/test_conformance_own_queries.py."""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Usd
from scenarios import own_queries as scenario

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled
from physxvehicle_usd.sim.pipeline import StepOptions
from physxvehicle_usd.sim.vehicle_queries import ray_cylinders
from physxvehicle_usd.validate import validate_stage

DT = 1.0 / 60.0
NAMES = (scenario.FILTERED, scenario.CHASSIS, scenario.WHEEL_SHAPES)


@pytest.fixture(scope="module")
def stage() -> Usd.Stage:
    return Usd.Stage.Open(scenario.layer(NAMES))


@pytest.fixture(scope="module")
def description(stage):
    return read_stage(stage)


def _sim(description, name: str, **options) -> Simulator:
    return Simulator.from_description(description, DT, [scenario.car(name)], options=StepOptions(**options))


def test_own_shapes_join_the_queries_only_where_the_groups_let_them(description):
    assert _sim(description, scenario.FILTERED).queries is None  # one car, its queries filtered from its chassis
    chassis = _sim(description, scenario.CHASSIS)
    v, w, row = chassis.queries.own
    assert chassis.queries.meets_own and sorted(w) == [0, 1, 2, 3] and set(row) == {0} and not v.any()
    wheels = _sim(description, scenario.WHEEL_SHAPES)
    assert len(wheels.queries.own[0]) == 16  # every wheel's query against each of the four cylinders


def test_queries_that_start_inside_the_own_chassis_find_no_road(description):
    sim = _sim(description, scenario.CHASSIS)
    z = float(sim.state.body_position[2, 0])
    for _ in range(3):
        sim.step()
    assert not np.asarray(sim.telemetry()["wheels"]["isOnGround"]).any()
    assert float(sim.state.body_position[2, 0]) < z - 0.01  # falling


def test_the_compiled_kernel_meets_the_own_wheels_as_numpy_does(description):
    """The queries run before the substeps, for both: the two runs agree bit for bit."""
    runs = [_sim(description, scenario.WHEEL_SHAPES, compiled=flag) for flag in (True, False)]
    assert compiled.covers(runs[0].params) and runs[0].options.compiled and not runs[1].options.compiled
    for _ in range(3):
        for sim in runs:
            sim.step()
    # the query meets the wheel's own cylinder: the full travel, then (on its top) no road, then the full travel
    assert runs[0].state.jounce == pytest.approx(np.full((1, 4), 0.22), abs=1e-6)
    for name in ("body_position", "linear_velocity", "jounce"):
        assert np.array_equal(getattr(runs[0].state, name), getattr(runs[1].state, name)), name


def test_a_ray_meets_a_cylinder_exactly_and_starts_on_its_surface_at_zero():
    o = np.array([[0.0, 0.0, 2.0], [0.0, 0.0, 0.5], [0.0, 0.2, 2.0], [5.0, 0.0, 0.0]])
    d = np.array([[0.0, 0.0, -1.0]] * 4)
    a, b = np.tile([0.0, -0.15, 0.0], (4, 1)), np.tile([0.0, 0.15, 0.0], (4, 1))  # axis along y, radius 0.5
    t, n = ray_cylinders(o, d, a, b, np.full(4, 0.5))
    assert t[0] == pytest.approx(1.5) and n[0] == pytest.approx([0.0, 0.0, 1.0])
    assert t[1] == 0.0  # on the top: PhysX's hit at distance 0 (no road)
    assert t[2] == np.inf  # beside the cap
    assert t[3] == np.inf
    t, n = ray_cylinders(np.array([[0.0, -1.0, 0.0]]), np.array([[0.0, 1.0, 0.0]]), a[:1], b[:1], np.full(1, 0.5))
    assert t[0] == pytest.approx(0.85) and n[0] == pytest.approx([0.0, -1.0, 0.0])  # through a cap


def test_validate_warns_of_own_shapes_the_queries_meet(stage):
    found = [f for f in validate_stage(stage)[0] if f.code == "A10"]
    assert sorted(f.prim for f in found) == sorted(
        [f"{scenario.car(scenario.CHASSIS)}/ChassisCollision"]
        + [f"{scenario.car(scenario.WHEEL_SHAPES)}/{wheel}/Collision" for wheel in scenario.WHEELS])
    chassis = next(f for f in found if "ChassisCollision" in f.prim)
    assert "every wheel (query group /World/ChassisCar/WheelQueryGroup)" in chassis.message
    assert "physxVehicleWheelAttachment:collisionGroup" in chassis.message and chassis.severity.value == "warning"


def test_a_sharded_simulator_steps_a_car_meeting_its_own_chassis_as_one_range(description):
    """The ranges' queries meet the ground alone: the batch steps whole while a query meets its own vehicle."""
    sim = Simulator.from_description(description, DT, [scenario.car(scenario.FILTERED), scenario.car(scenario.CHASSIS)],
                                     threads=2, options=StepOptions(compiled=False))
    assert sim.threads == 2
    for _ in range(3):  # (after the first step the two cars, 10 m apart, are quiet: no query meets the other)
        sim.step()
        assert np.asarray(sim.telemetry()["wheels"]["isOnGround"]).tolist() == [[True] * 4, [False] * 4]
