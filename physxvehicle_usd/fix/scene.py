"""Repairs of the physics scene: a scene where there is none (A06) and a vehicle context where the scene has no
valid one (V07).

A missing context is what an asset made with the Vehicle Wizard shows when its vehicle is taken into another
stage (a reinforcement-learning environment makes its own scene): PhysX then uses +Y up and +Z forward, and on a
Z-up stage the wheels all lie on one line in that frame, so the sprung masses cannot be computed either (V142).
The context's vertical axis is the stage's up axis; its longitudinal axis is the way the vehicle's steered wheels
lie from the others. Where that cannot be told (no steering, a layout that points no clear way, vehicles of one
scene pointing different ways, a vehicle whose suspension does not travel down the stage's up axis) the finding
has no repair.
"""
from __future__ import annotations

import math

import numpy as np
from pxr import Sdf, Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..description import StageDescription, VehicleDescription
from ..read.components import AXIS_TOKENS
from ..repairs import Edit, Repair
from ..units import StageUnits
from .edits import apply_api, set_attribute, set_schema_attribute

SCENE_NAME = "PhysicsScene"
_AXIS = "XYZ"
# A direction "points along an axis" when that axis' component is this many times any other's.
_CLEAR = 2.0


def new_scene_path(stage: Usd.Stage) -> str:
    """Where a repair defines the physics scene: beside the default prim's children (/World/PhysicsScene, as the
    Vehicle Wizard puts it), else at the root; a free name."""
    default = stage.GetDefaultPrim()
    parent = default.GetPath() if default else Sdf.Path.absoluteRootPath
    path, n = parent.AppendChild(SCENE_NAME), 1
    while stage.GetPrimAtPath(path):
        path, n = parent.AppendChild(f"{SCENE_NAME}{n}"), n + 1
    return str(path)


def _up_token(description: StageDescription) -> str:
    return "pos" + description.stage.upAxis


def _unit(token: str) -> np.ndarray:
    vector = np.zeros(3)
    vector[_AXIS.index(token[-1])] = 1.0 if token.startswith("pos") else -1.0
    return vector


def define_scene_edits(stage: Usd.Stage, description: StageDescription, path: str) -> list[Edit]:
    """A PhysicsScene with the gravity omni.physx gives a stage that has none: 9.81 m/s^2 down the up axis, in stage
    lengths (authored, so that every reader of the asset takes the same)."""
    units = StageUnits(description.stage.metersPerUnit, description.stage.kilogramsPerUnit)
    down = tuple(0.0 - float(c) for c in _unit(_up_token(description)))
    why = "omni.physx's default scene, written down"
    return [
        Edit(op="define_prim", prim=path, type_name="PhysicsScene",
             why="the stage has vehicles but no PhysicsScene; this is the scene omni.physx would make when it loads it"),
        set_attribute(path, UsdPhysics.Tokens.physicsGravityDirection, Sdf.ValueTypeNames.Vector3f, down,
                      f"down the stage's up axis ({description.stage.upAxis}): {why}"),
        set_attribute(path, UsdPhysics.Tokens.physicsGravityMagnitude, Sdf.ValueTypeNames.Float,
                      units.default_gravity, f"9.81 m/s^2 in stage lengths: {why}"),
    ]


def scene_repair(stage: Usd.Stage, description: StageDescription) -> Repair:
    path = new_scene_path(stage)
    return Repair(summary=f"define the PhysicsScene {path}: gravity 9.81 m/s^2 down the stage's up axis "
                          f"({description.stage.upAxis}), as omni.physx assumes for a stage without one",
                  edits=tuple(define_scene_edits(stage, description, path)))


def _steered(vehicle: VehicleDescription) -> set[int]:
    """The indices of the wheels the vehicle steers."""
    if vehicle.steering is not None:
        block = vehicle.steering
        angle = block.get("maxSteerAngle") or 0.0
        return {w for w, m in zip(block.get("wheels") or [], block.get("angleMultipliers") or []) if angle * m != 0}
    if vehicle.ackermannSteering is not None:
        return {vehicle.ackermannSteering["wheel0"], vehicle.ackermannSteering["wheel1"]}
    return set()


def forward_axis(vehicle: VehicleDescription, up: str) -> tuple[str | None, str]:
    """(the longitudinal axis token, how it was told) or (None, why it cannot be told), in the vehicle's frame."""
    wheels = vehicle.wheels
    vertical = _unit(up)
    for wheel in wheels:
        direction = np.asarray(wheel.attachment["suspensionTravelDirection"], dtype=float)
        norm = np.linalg.norm(direction)
        if not norm or float(direction @ vertical) / norm > -0.9:
            return None, (f"the suspension of {wheel.path} does not travel down the stage's up axis "
                          f"({up}): which way is up for this vehicle is not the stage's")
    steered = _steered(vehicle)
    front = [w for w in wheels if w.index in steered]
    rest = [w for w in wheels if w.index not in steered]
    if not front or not rest:
        return None, ("it steers no wheel" if not front else "it steers every wheel") + \
            ": which way is its front cannot be told from its wheels"
    mean = lambda ws: np.mean([np.asarray(w.attachment["suspensionFramePosition"], dtype=float) for w in ws], axis=0)  # noqa: E731
    ahead = mean(front) - mean(rest)
    ahead -= (ahead @ vertical) * vertical
    order = np.argsort(-np.abs(ahead))
    major, minor = abs(ahead[order[0]]), abs(ahead[order[1]])
    if not major or major < _CLEAR * minor:
        return None, "its steered wheels lie from the others along no single axis"
    token = ("pos" if ahead[order[0]] > 0 else "neg") + _AXIS[order[0]]
    return token, f"its steered wheels lie {token} of the others"


def _vertical_is_world_up(stage: Usd.Stage, vehicle: VehicleDescription, up: str) -> bool:
    """Whether the vehicle prim's frame keeps the stage's up axis up (the context's axes are in its frame)."""
    prim = stage.GetPrimAtPath(vehicle.path)
    if not prim:
        return False
    matrix = UsdGeom.XformCache().GetLocalToWorldTransform(prim)
    turned = np.asarray(matrix.TransformDir(tuple(_unit(up)))[:], dtype=float)
    norm = np.linalg.norm(turned)
    return bool(norm) and float(turned @ _unit(up)) / norm > math.cos(math.radians(10))


def context_repair(stage: Usd.Stage, description: StageDescription, vehicles: list[str],
                   scene: str | None) -> tuple[Repair | None, str]:
    """The repair that gives `scene` (None: the stage has none; it is defined) a vehicle context fit for all of
    `vehicles` (the ones it simulates), or (None, why there is no unambiguous one)."""
    up = _up_token(description)
    if up not in AXIS_TOKENS:
        return None, f"the stage's up axis {description.stage.upAxis!r} is no axis"
    axes: dict[str, str] = {}
    for path in vehicles:
        vehicle = description.vehicles[path]
        if not _vertical_is_world_up(stage, vehicle, up):
            return None, f"{path} is turned so that its own up is not the stage's up axis"
        token, how = forward_axis(vehicle, up)
        if token is None:
            return None, f"{path}: {how}"
        axes[path] = token
    if len(set(axes.values())) > 1:
        return None, "the scene's vehicles point different ways: " + ", ".join(f"{p} {t}" for p, t in axes.items())
    forward = next(iter(axes.values()))
    how = forward_axis(description.vehicles[vehicles[0]], up)[1]
    edits: list[Edit] = []
    if scene is None:
        scene = new_scene_path(stage)
        edits += define_scene_edits(stage, description, scene)
    why_up = f"the stage's upAxis is {description.stage.upAxis}"
    edits += [
        apply_api(scene, P.CONTEXT, "PhysX needs a vehicle context on the vehicles' scene; without it it logs an error "
                  "and uses +Y up, +Z forward"),
        set_schema_attribute(scene, P.CONTEXT, "verticalAxis", up, why_up),
        set_schema_attribute(scene, P.CONTEXT, "longitudinalAxis", forward,
                             f"{how} ({', '.join(vehicles)})"),
    ]
    summary = (f"give {scene} a PhysxVehicleContextAPI: vertical axis {up} ({why_up}), longitudinal axis {forward} "
               f"({how})")
    return Repair(summary=summary, edits=tuple(edits)), ""
