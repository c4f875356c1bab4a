"""NVIDIA's vehicle tests whose subject is reading a stage: what is created from it, the defaults, the findings (the
messages omni.physx logs, which our reader reports as diagnostics). Our reader only: ovphysx is asked only where a test
steps the simulation (the behaviour modules)."""
from __future__ import annotations

import numpy as np
import pytest
from factory import BASIC, STANDARD, Options, cars_scenario
from pxr import UsdPhysics
from stage_factory import set_property

from physxvehicle_usd import properties as P
from physxvehicle_usd.diagnostics import Severity
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.read.wheels import compute_sprung_masses
from physxvehicle_usd.simulate import load

DT = 1.0 / 60.0


def _one(options: Options):
    stage, cars = cars_scenario(1, options=options)
    return stage, cars[0]


def _codes(description, severity=None) -> list[str]:
    return [d.code for d in description.diagnostics if severity is None or d.severity == severity]


def test_wheel_collision_shape_option():
    """With wheel shapes: one dynamic body with a box and four cylinders, one static plane; without: the box only.
    Either way the vehicle is created (here: read, and built by the simulator)."""
    for wheel_shapes, cylinders in ((True, 4), (False, 0)):
        stage, car = _one(Options(drive=STANDARD, wheel_shapes=wheel_shapes))
        description = read_stage(stage)
        shapes = description.vehicles[car.path].collision
        types = [stage.GetPrimAtPath(s.path).GetTypeName() for s in shapes]
        assert types.count("Cube") == 1 and types.count("Cylinder") == cylinders and len(types) == 1 + cylinders
        assert sorted(s.wheel for s in shapes if s.wheel) == (sorted(car.wheels) if wheel_shapes else [])
        assert [g.kind for g in description.ground] == ["plane"]
        assert load(stage, DT).paths == (car.path,)


def test_wheel_deeper_hierarchy():
    """Wheel attachments need not be children of the vehicle prim (here grandchildren, under <vehicle>/Wheels)."""
    stage, car = _one(Options(drive=STANDARD, grandchildren=True))
    assert all(w.startswith(f"{car.path}/Wheels/") for w in car.wheels)
    vehicle = read_stage(stage).vehicles[car.path]
    assert sorted(w.path for w in vehicle.wheels) == sorted(car.wheels)
    assert load(stage, DT).paths == (car.path,)


def test_vehicle_without_controller():
    """A vehicle without PhysxVehicleControllerAPI (or wheel controllers) is valid and is created."""
    stage, car = _one(Options(drive=STANDARD, omit_controllers=True))
    description = read_stage(stage)
    assert description.vehicles[car.path].controller is None
    assert not _codes(description, Severity.ERROR)
    assert load(stage, DT).paths == (car.path,)


def test_compute_sprung_masses():
    """1600 kg over four wheels at (+-1, 0, +-2) about the centre of mass, Y up: 400 kg each, to 0.01 kg."""
    positions = np.array([(1.0, 0.0, 2.0), (-1.0, 0.0, 2.0), (1.0, 0.0, -2.0), (-1.0, 0.0, -2.0)])
    masses = compute_sprung_masses(positions, 1600.0, 1)
    assert masses == pytest.approx([400.0] * 4, abs=0.01)


def test_automatic_without_auto_gear_box():
    """targetGear automatic without an automatic gear box: omni.physx logs an error ("transmission set to automatic
    but no auto gear box was defined"); our reader finds it (V137). The driving half is in test_vehicle_setups.py."""
    stage, car = _one(Options(drive=STANDARD, autobox=False, wheel_shapes=False))
    set_property(stage.GetPrimAtPath(car.path), P.CONTROLLER, "targetGear", 255)
    finding = [d for d in read_stage(stage).diagnostics if d.code == "V137"]
    assert len(finding) == 1 and finding[0].prim == car.path
    set_property(stage.GetPrimAtPath(car.path), P.CONTROLLER, "targetGear", 0)
    assert "V137" not in _codes(read_stage(stage))


@pytest.mark.parametrize("case", ["no scene", "no vehicle context"])
def test_no_vehiclecontext_or_no_scene(case):
    """No physics scene, or one without PhysxVehicleContextAPI: omni.physx logs that default values are used and
    still creates the vehicle; our reader says the same (V07) and the vehicle is still read and simulated."""
    stage, car = _one(Options(drive=BASIC, wheel_shapes=False))
    scene = "/World/PhysicsScene"
    if case == "no scene":
        stage.RemovePrim(scene)
    else:
        stage.GetPrimAtPath(scene).RemoveAPI(P.CONTEXT)
    description = read_stage(stage)
    assert "V07" in _codes(description, Severity.WARNING)
    assert car.path in description.vehicles
    assert load(stage, DT).paths == (car.path,)


@pytest.mark.parametrize("case", ["rigidBodyEnabled false", "kinematicEnabled true"])
def test_invalid_rigidbody_setup(case):
    """A disabled or kinematic body under an enabled vehicle: omni.physx logs an error and creates no vehicle
    controller; our reader reports an error on the vehicle (V71, V72) and leaves the vehicle out."""
    stage, car = _one(Options(drive=BASIC, wheel_shapes=False))
    body = UsdPhysics.RigidBodyAPI(stage.GetPrimAtPath(car.path))
    if case == "rigidBodyEnabled false":
        body.CreateRigidBodyEnabledAttr(False)
        code = "V71"
    else:
        body.CreateKinematicEnabledAttr(True)
        code = "V72"
    description = read_stage(stage)
    errors = [d for d in description.diagnostics if d.severity == Severity.ERROR]
    assert [d.code for d in errors] == [code] and errors[0].prim == car.path
    assert car.path not in description.vehicles


def test_suspension_user_defined_sprung_mass():
    """Authored sprung masses need not add up to the body's mass, and no finding says otherwise: the rear pair at a
    quarter of the mass each, the front wheels removed. (The simulation half is in test_vehicle_setups.py.)"""
    stage, car = _one(Options(drive="none", shared=False))
    for index, wheel in ((0, car.wheels[2]), (1, car.wheels[3])):
        prim = stage.GetPrimAtPath(wheel)
        set_property(prim, P.SUSPENSION, "sprungMass", 1800.0 / 4)
        set_property(prim, P.ATTACHMENT, "index", index)
    for wheel in car.wheels[:2]:
        stage.RemovePrim(wheel)
    description = read_stage(stage)
    assert not _codes(description, Severity.ERROR) and not _codes(description, Severity.WARNING)
    masses = [w.suspension["sprungMass"] for w in description.vehicles[car.path].wheels]
    assert masses == [450.0, 450.0]

