"""The scene's authored contact thresholds (PhysxSceneAPI's physxScene:frictionOffsetThreshold and bounceThreshold, read
through the property table) change a contact's outcome in the simulator as they do in real PhysX (ovphysx 0.7, CPU).

- frictionOffsetThreshold: the sample car dropped upside down while sliding at 4 m/s. Its roof's contacts are made a
  step before they close, a little apart; at omni.physx's default threshold (0.04 m) they anchor the patch's friction,
  which takes half the car's speed at the landing; at 0 they do not, and the car slides on, slowed by friction only
  once it rests on the ground.
- bounceThreshold: the same car dropped (not sliding) onto a ground of restitution 1: it meets it at 2.8 m/s and
  bounces at the default threshold (1e-6 m/s); a threshold of 5 m/s keeps it from bouncing.

Each stage runs once in each simulator; the chassis' velocity must follow PhysX's within the suites' LIMIT (2 % of its
peak) with and without the authored value, and the authored value must change it by far more than that."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, Sdf, Usd
from test_conformance_ovphysx import DT, LIMIT, worst_relative

from physxvehicle_usd import oracle
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator

pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

STEPS = 40  # the car lands in step 17 and has slid or bounced for 23 more
CAR = "/World/Car"


def _dropped_car(folder, name: str, slide: float, restitution: float | None, threshold: tuple[str, float] | None):
    """The sample car upside down, its roof 0.45 m above the ground, sliding along x at `slide` m/s; the ground's
    restitution where given; the scene's PhysxSceneAPI `threshold` (name, value) where given."""
    stage = Usd.Stage.Open(str(SAMPLES / "car" / "car.usda"))
    car = stage.GetPrimAtPath(CAR)
    car.GetAttribute("xformOp:translate").Set(Gf.Vec3d(0.0, 0.0, 1.2))
    car.GetAttribute("xformOp:orient").Set(Gf.Quatf(0.0, 1.0, 0.0, 0.0))
    car.GetAttribute("physics:velocity").Set(Gf.Vec3f(slide, 0.0, 0.0))
    if restitution is not None:
        stage.GetPrimAtPath("/World/Asphalt").GetAttribute("physics:restitution").Set(restitution)
    if threshold is not None:
        scene = stage.GetPrimAtPath("/World/PhysicsScene")
        scene.AddAppliedSchema("PhysxSceneAPI")
        scene.CreateAttribute(f"physxScene:{threshold[0]}", Sdf.ValueTypeNames.Float).Set(threshold[1])
    path = folder / f"{name}.usda"
    stage.Export(str(path))
    return path


def _ours(path) -> np.ndarray:
    sim = Simulator.from_description(read_stage(path), DT)
    velocity = []
    for _ in range(STEPS):
        sim.step()
        velocity.append(sim.state.linear_velocity[:, 0].astype(float))
    return np.array(velocity)


def _physx(path) -> np.ndarray:
    run = oracle.run_ovphysx(path, STEPS, DT, telemetry={"bodies": ["linearVelocity"], "vehicles": [], "wheels": []})
    return np.asarray(run["bodies"][CAR]["linearVelocity"], float)


CASES = {  # name -> (slide, restitution, authored threshold, the velocity component it changes)
    "frictionOffsetThreshold": (4.0, None, ("frictionOffsetThreshold", 0.0), 0),
    "bounceThreshold": (0.0, 1.0, ("bounceThreshold", 5.0), 2),
}


@pytest.mark.parametrize("name", list(CASES))
def test_an_authored_scene_threshold_changes_the_outcome_as_in_physx(tmp_path, name):
    slide, restitution, threshold, axis = CASES[name]
    runs = {}
    for label, authored in (("default", None), ("authored", threshold)):
        path = _dropped_car(tmp_path, f"{name}_{label}", slide, restitution, authored)
        runs[label] = (_ours(path), _physx(path))
    for label, (ours, physx) in runs.items():
        assert worst_relative(ours[:, axis], physx[:, axis]) <= LIMIT, label
    (ours_default, physx_default), (ours_authored, physx_authored) = runs["default"], runs["authored"]
    ours_change = ours_authored[:, axis] - ours_default[:, axis]
    physx_change = physx_authored[:, axis] - physx_default[:, axis]
    peak = np.abs(physx_default[:, axis]).max()
    assert np.abs(physx_change).max() > 0.25 * peak  # the authored value matters ...
    assert np.abs(ours_change - physx_change).max() <= 2 * LIMIT * peak  # ... the same way in both
