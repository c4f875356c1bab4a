"""PhysxRigidBodyAPI on the vehicle prim: read per vehicle as omni.physx reads it (PhysicsBody.cpp), and simulated.

omni.physx reads the attributes only where the API is applied, clamps an authored value into its range
(infinities to the bounds, NaN to the upper bound), takes maxAngularVelocity in deg/s, and defaults to its own
values (maxAngularVelocity 100 rad/s). Every value it changes or ignores is reported."""
from __future__ import annotations

import math

import numpy as np
import pytest
from pxr import Sdf, UsdPhysics
from stage_factory import build_vehicle

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.write import write_stage

SETTINGS = {"linearDamping": Sdf.ValueTypeNames.Float, "angularDamping": Sdf.ValueTypeNames.Float,
            "maxLinearVelocity": Sdf.ValueTypeNames.Float, "maxAngularVelocity": Sdf.ValueTypeNames.Float,
            "solverPositionIterationCount": Sdf.ValueTypeNames.Int, "solverVelocityIterationCount": Sdf.ValueTypeNames.Int,
            "enableGyroscopicForces": Sdf.ValueTypeNames.Bool, "disableGravity": Sdf.ValueTypeNames.Bool,
            "sleepThreshold": Sdf.ValueTypeNames.Float}


def _car(apply: bool = True, meters_per_unit: float = 1.0, **values):
    car = build_vehicle(meters_per_unit=meters_per_unit)
    prim = car.prim(car.vehicle)
    if apply:
        prim.AddAppliedSchema("PhysxRigidBodyAPI")
    for base, value in values.items():
        prim.CreateAttribute(P.physx_rigid_body_attribute(base), SETTINGS[base]).Set(value)
    return car


def _read(car):
    description = car.read()
    return description, description.vehicles[car.vehicle].rigidBody


def test_unauthored_settings_are_omni_physx_defaults():
    _, rb = _read(_car(disableGravity=True))
    assert {row.base: rb[row.base] for row in P.PHYSX_RIGID_BODY_ROWS} == {
        "linearDamping": 0.0, "angularDamping": 0.05, "maxLinearVelocity": P.SQRT_FLT_MAX, "maxAngularVelocity": 100.0,
        "solverPositionIterationCount": 16, "solverVelocityIterationCount": 1, "enableGyroscopicForces": True,
        "maxDepenetrationVelocity": 3.0, "sleepThreshold": pytest.approx(0.005), "disableGravity": True}
    assert rb.source("linearDamping").value == "default"
    # omni.physx's 5e-5 times the tolerance speed (10 m/s, in stage units) squared
    _, rb_cm = _read(_car(meters_per_unit=0.01, disableGravity=True))
    assert rb_cm["sleepThreshold"] == pytest.approx(50.0)


def test_authored_settings_are_read_and_angles_turned_into_radians():
    _, rb = _read(_car(linearDamping=0.25, angularDamping=1.5, maxLinearVelocity=12.0, maxAngularVelocity=90.0,
                       solverPositionIterationCount=4, solverVelocityIterationCount=3, enableGyroscopicForces=False,
                       disableGravity=True))
    assert rb["linearDamping"] == 0.25 and rb["angularDamping"] == 1.5 and rb["maxLinearVelocity"] == 12.0
    assert rb["maxAngularVelocity"] == pytest.approx(math.pi / 2)
    assert rb["solverPositionIterationCount"] == 4 and rb["solverVelocityIterationCount"] == 3
    assert rb["enableGyroscopicForces"] is False
    assert rb.source("angularDamping").value == "authored"


def test_out_of_range_values_are_clamped_as_omni_physx_does_and_reported():
    description, rb = _read(_car(linearDamping=-1.0, maxLinearVelocity=float("inf"), solverPositionIterationCount=300,
                                 solverVelocityIterationCount=-2, angularDamping=float("nan"), disableGravity=True))
    assert rb["linearDamping"] == 0.0
    assert rb["maxLinearVelocity"] == P.SQRT_FLT_MAX
    assert rb["solverPositionIterationCount"] == 255
    assert rb["solverVelocityIterationCount"] == 0  # 0 is allowed: the velocity iterations may be skipped
    assert rb["angularDamping"] == P.FLT_MAX  # NaN fails both comparisons: the upper bound
    reported = {d.property for d in description.diagnostics if d.code == "RB_RANGE"}
    assert reported == {P.physx_rigid_body_attribute(b) for b in
                        ("linearDamping", "maxLinearVelocity", "solverPositionIterationCount",
                         "solverVelocityIterationCount", "angularDamping")}


def test_settings_without_the_api_are_ignored_and_said():
    description, rb = _read(_car(apply=False, linearDamping=3.0))
    assert rb["linearDamping"] == 0.0
    assert [d.code for d in description.diagnostics if d.property == P.physx_rigid_body_attribute("linearDamping")] == ["RB_API"]


def test_gravity_left_on_is_reported():
    description, _ = _read(_car(disableGravity=False))
    assert [d.code for d in description.diagnostics if d.code.startswith("RB")] == ["RB_GRAVITY"]


def test_settings_survive_a_write_and_read():
    first, _ = _read(_car(linearDamping=0.25, maxAngularVelocity=90.0, solverPositionIterationCount=300,
                          disableGravity=True))
    again = read_stage(write_stage(first))
    path = next(iter(first.vehicles))
    for row in P.PHYSX_RIGID_BODY_ROWS:
        assert again.vehicles[path].rigidBody[row.base] == pytest.approx(first.vehicles[path].rigidBody[row.base])


def test_each_vehicle_is_damped_and_limited_by_its_own_settings():
    """Two cars moving at 20 m/s, one with damping and a 10 m/s limit: the limit holds exactly for one only."""
    plain = _car(disableGravity=True)
    limited = _car(disableGravity=True, linearDamping=0.5, maxLinearVelocity=10.0)
    speeds = []
    for car in (plain, limited):
        UsdPhysics.RigidBodyAPI(car.prim(car.vehicle)).CreateVelocityAttr((20.0, 0.0, 0.0))
        description = car.read()
        sim = Simulator.from_description(description, 1 / 60)
        sim.step()
        speeds.append(float(np.linalg.norm(sim.telemetry()["bodies"]["linearVelocity"][0])))
    assert speeds[0] > 19.0
    assert speeds[1] == pytest.approx(10.0, rel=1e-6)
