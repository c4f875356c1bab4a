"""The suspension queries' pre-filter by collision groups against the static ground (sim/query_groups.py): a ray or
a swept wheel hull whose query group filters a static box, sphere or plane passes through it, one whose group filters
nothing meets it; and the sample car rolling over a static step in a group its queries filter does not rise
(tests/scenarios/static_queries.py; against PhysX in tests/test_conformance_vehicle_queries.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pxr import Usd, UsdGeom, UsdPhysics
from scenarios import static_queries as scenario

from physxvehicle_usd.collision_filter import GroupFilter
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.ground import Ground, QueryFilter, raycast
from physxvehicle_usd.sim.query_groups import prefilter
from physxvehicle_usd.sim.wheel_sweep import SweptWheels, sweep

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "car" / "car.usda"
XS = (0.0, 5.0, 10.0)  # over the box, over the sphere, over the plane alone


@pytest.fixture(scope="module")
def grouped():
    """A plane at z = 0 in /World/Floor, a box and a sphere topping at z = 1 in /World/Obstacles; /World/Query filters
    the obstacles. The ground, and the pre-filter of a query in /World/Query (row 0) and of one in no group (row 1)."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.Scene.Define(stage, "/World/PhysicsScene")
    plane = UsdGeom.Plane.Define(stage, "/World/Plane")
    plane.CreateAxisAttr("Z")
    box = UsdGeom.Cube.Define(stage, "/World/Box")
    box.CreateSizeAttr(2.0)
    ball = UsdGeom.Sphere.Define(stage, "/World/Ball")
    ball.CreateRadiusAttr(0.5)
    ball.AddTranslateOp().Set((XS[1], 0.0, 0.5))
    for prim in (plane, box, ball):
        UsdPhysics.CollisionAPI.Apply(prim.GetPrim())
    groups = {}
    for name, members in (("Floor", [plane]), ("Obstacles", [box, ball]), ("Query", [])):
        groups[name] = UsdPhysics.CollisionGroup.Define(stage, f"/World/{name}")
        for member in members:
            groups[name].GetCollidersCollectionAPI().GetIncludesRel().AddTarget(member.GetPath())
    groups["Query"].CreateFilteredGroupsRel().AddTarget("/World/Obstacles")
    description = read_stage(stage)
    ground = Ground.from_description(description.ground)
    allowed = prefilter(GroupFilter.of(description.collisionGroups), ["/World/Query", None], ground.groups)
    return ground, allowed


def _heights(hits) -> np.ndarray:
    """The hit planes' heights over x (their normals are +Z); nan where no hit."""
    return np.where(hits.hit, -hits.offset / np.where(hits.hit, hits.normal[2], 1.0), np.nan)


@pytest.mark.parametrize("key, expected", [(0, (0.0, 0.0, 0.0)), (1, (1.0, 1.0, 0.0))])
def test_a_ray_passes_through_the_static_shapes_its_group_filters(grouped, key, expected):
    ground, allowed = grouped
    origin = np.array([XS, [0.0] * 3, [3.0] * 3])
    down = np.array([[0.0] * 3, [0.0] * 3, [-1.0] * 3])
    hits = raycast(ground, origin, down, np.full(3, 5.0), QueryFilter(allowed, np.full(3, key)))
    assert _heights(hits) == pytest.approx(expected, abs=1e-6)
    assert (hits.shape == 0).tolist() == [h == 0.0 for h in expected]  # the plane is shape 0


@pytest.mark.parametrize("key, expected", [(0, (0.0, 0.0, 0.0)), (1, (1.0, 1.0, 0.0))])
def test_a_swept_wheel_passes_through_the_static_shapes_its_group_filters(grouped, key, expected):
    ground, allowed = grouped
    n = len(XS)
    wheels = SweptWheels(centre=np.array([[x, 0.0, 2.0] for x in XS]), lateral=np.tile([0.0, 1.0, 0.0], (n, 1)),
                         axis0=np.tile([1.0, 0.0, 0.0], (n, 1)), axis1=np.tile([0.0, 0.0, 1.0], (n, 1)),
                         radius=np.full(n, 0.35), half_width=np.full(n, 0.1),
                         direction=np.tile([0.0, 0.0, -1.0], (n, 1)), distance=np.full(n, 3.0))
    hits = sweep(ground, wheels, QueryFilter(allowed, np.full(n, key)))
    assert _heights(hits) == pytest.approx(expected, abs=1e-5)  # (the hull's corner on the sphere, in float32)


def test_a_plane_in_a_filtered_group_is_no_road(grouped):
    ground, _ = grouped
    allowed = np.array([[False, True, True]])  # a query whose group filters the plane's
    hits = raycast(ground, np.array([[XS[2]], [0.0], [3.0]]), np.array([[0.0], [0.0], [-1.0]]), np.array([5.0]),
                   QueryFilter(allowed, np.zeros(1, np.int64)))
    assert not hits.hit[0] and hits.shape[0] == -1


def test_the_sample_car_alone_has_no_ground_filter():
    """Its WheelQueryGroup filters its own chassis only: the ground queries run unfiltered, at no extra cost."""
    assert Simulator.from_description(read_stage(Usd.Stage.Open(str(SAMPLE))), 1 / 60).ground_filter is None


@pytest.mark.parametrize("threads", [1, 2])
def test_a_car_over_a_step_its_queries_filter_stays_on_the_plane(threads):
    names = ("Open", "Filtered", "OpenSweep", "FilteredSweep")
    sim = Simulator.from_description(read_stage(Usd.Stage.Open(scenario.layer(names))), 1 / 60, threads=threads)
    start = sim.state.body_position[2].copy()
    for _ in range(30):  # 0.5 s: the front wheels 1.5 m on, over the step's edge by 1 m
        sim.step()
    rise = dict(zip(sim.params.paths, sim.state.body_position[2] - start))
    for name in names:
        if name.startswith(scenario.FILTERED):
            assert abs(rise[scenario.car(name)]) < 2e-3, name
        else:
            assert rise[scenario.car(name)] > 0.3 * scenario.STEP_HEIGHT_M, name


def test_a_car_without_collision_shapes_falls_through_a_plane_its_queries_filter():
    # the colliders' groups were read only where the vehicles had shapes (or the stage a static convex): a plane
    # filtered from the wheels' query group stayed their road. ovphysx: the car falls through it, its body at
    # z = -0.7171 after 30 steps; here -0.7171 too
    from pxr import Sdf

    stage = Usd.Stage.Open(str(SAMPLE))
    stage.GetPrimAtPath("/World/Car/ChassisCollision").SetActive(False)
    floor = UsdPhysics.CollisionGroup.Define(stage, "/World/Floor")
    floor.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([Sdf.Path("/World/GroundPlane")])
    floor.CreateFilteredGroupsRel().SetTargets([Sdf.Path("/World/Car/WheelQueryGroup")])
    description = read_stage(stage)
    assert not description.vehicles["/World/Car"].collision
    assert [g.groups for g in description.ground] == [["/World/Floor"]]
    sim = Simulator.from_description(description, 1.0 / 60.0)
    for _ in range(30):
        sim.step()
    assert sim.state.body_position[2, 0] == pytest.approx(-0.7171, abs=1e-3)
