"""A vehicle whose physxVehicle:vehicleEnabled is false (sim/disabled.py): omni.physx skips its vehicle update, so its
actor is a plain rigid body with the gravity omni.physx turns off on vehicle actors: it keeps its velocity, whatever its
controls, until a contact stops it, and its wheels report nothing.

Stage: the sample car, disabled, 0.35 m higher than it rests, thrown at (4, 0.5, -1.5) m/s under full throttle and
steer: its chassis box meets the ground after about 20 steps and slides on. ovphysx (0.7, CPU) moves it the same way."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, Usd
from test_conformance_ovphysx import DT, LIMIT, worst_relative

from physxvehicle_usd import oracle
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.pipeline import StepOptions

CAR = "/World/Car"
STEPS = 60
VELOCITY = (4.0, 0.5, -1.5)
CONTROLS = {"accelerator": 1.0, "steer": 1.0}


def _thrown_car(folder, enabled: bool = False):
    stage = Usd.Stage.Open(str(SAMPLES / "car" / "car.usda"))
    car = stage.GetPrimAtPath(CAR)
    car.GetAttribute("xformOp:translate").Set(Gf.Vec3f(0.0, 0.0, 0.9))
    car.GetAttribute("physics:velocity").Set(Gf.Vec3f(*VELOCITY))
    car.GetAttribute("physxVehicle:vehicleEnabled").Set(enabled)
    path = folder / f"thrown_{'enabled' if enabled else 'disabled'}.usda"
    stage.Export(str(path))
    return path


def _ours(path, compiled: bool = True) -> tuple[dict[str, np.ndarray], list[dict]]:
    sim = Simulator.from_description(read_stage(str(path)), DT, options=StepOptions(compiled=compiled))
    bodies: dict[str, list] = {"position": [], "linearVelocity": []}
    wheels = []
    for _ in range(STEPS):
        sim.step(CONTROLS)
        t = sim.telemetry()
        for key, rows in bodies.items():
            rows.append(t["bodies"][key][0].astype(float))
        wheels.append(t["wheels"])
    return {key: np.array(value) for key, value in bodies.items()}, wheels


def test_a_disabled_vehicle_keeps_its_velocity_until_its_chassis_meets_the_ground(tmp_path):
    bodies, wheels = _ours(_thrown_car(tmp_path))
    velocity = bodies["linearVelocity"]
    # in the air: no gravity, no tire or suspension force, whatever the throttle and steer
    assert np.array_equal(velocity[:15], np.tile(np.float32(VELOCITY), (15, 1)))
    # the chassis box lands: the contact takes the downward speed; friction slows the slide
    assert abs(velocity[-1, 2]) < 1e-3 and 0.5 < velocity[-1, 0] < VELOCITY[0] - 0.5
    for t in wheels:
        for key in ("suspensionJounce", "suspensionForce", "tireForce", "rotationSpeed", "wheelSteerAngle"):
            assert not np.any(t[key]), key
        assert not t["isOnGround"].any()
    # the enabled car falls under the gravity its vehicle update applies, and its tires take the steer
    enabled, enabled_wheels = _ours(_thrown_car(tmp_path, enabled=True))
    assert enabled["linearVelocity"][0, 2] < VELOCITY[2] - 0.1
    assert np.any(enabled_wheels[-1]["wheelSteerAngle"])


def test_the_kernel_and_the_numpy_substeps_leave_a_disabled_vehicle_alike(tmp_path):
    path = _thrown_car(tmp_path)
    kernel, _ = _ours(path)
    numpy, _ = _ours(path, compiled=False)
    for key in kernel:
        np.testing.assert_allclose(kernel[key], numpy[key], atol=1e-6)


def test_a_command_does_not_wake_a_disabled_vehicle_that_sleeps(tmp_path):
    """At rest in the air (nothing moves it) its actor falls asleep as any body does; vehicle2's wake-up on a throttle
    is part of the vehicle update, which a disabled vehicle does not have."""
    stage = Usd.Stage.Open(str(SAMPLES / "car" / "car.usda"))
    car = stage.GetPrimAtPath(CAR)
    car.GetAttribute("xformOp:translate").Set(Gf.Vec3f(0.0, 0.0, 0.9))
    car.GetAttribute("physxRigidBody:sleepThreshold").Set(0.005)
    car.GetAttribute("physxVehicle:vehicleEnabled").Set(False)
    sim = Simulator.from_description(read_stage(stage), DT)
    for _ in range(40):  # the wake counter runs out in 0.4 s
        sim.step()
    assert sim.state.asleep[0]
    pose = sim.chassis_positions().copy()
    for _ in range(10):
        sim.step(CONTROLS)
    assert sim.state.asleep[0]
    assert np.array_equal(sim.chassis_positions(), pose)


@pytest.mark.ovphysx
@pytest.mark.soak
def test_a_disabled_vehicle_moves_as_in_physx(tmp_path):
    path = _thrown_car(tmp_path)
    ours, _ = _ours(path)
    run = oracle.run_ovphysx(path, STEPS, DT, controls={CAR: {k: [v] * STEPS for k, v in CONTROLS.items()}},
                             telemetry={"bodies": ["position", "linearVelocity"], "vehicles": [], "wheels": []})
    for key in ("position", "linearVelocity"):
        physx = np.asarray(run["bodies"][CAR][key], float)
        assert worst_relative(ours[key], physx) <= LIMIT, key
