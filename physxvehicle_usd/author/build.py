"""Author a described vehicle into a USD stage: write.py for the vehicle schemas, pxr for the rest.

write.py authors everything the stage description holds. What it does not hold is authored here, as
the vehicle wizard does: a guide box collider for the chassis, a guide cylinder collider per wheel,
the four collision groups that keep wheel shapes off the ground surface and the suspension queries off
the vehicle itself, the wheel attachments' rest poses, and PhysX rigid-body settings (the vehicle applies
gravity itself; a sleeping body would stop the vehicle update).
"""
from __future__ import annotations

import os

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..read.collision import CONTACT_OFFSET, PHYSX_COLLISION_API, REST_OFFSET
from ..stage.io import export_layer_atomic
from ..write import write_stage
from .describe import COLLISION_FILTERS, COLLISION_GROUPS, GROUND, WORLD, Geometry, describe_vehicle, parts_path
from .spec import VehicleSpec

# NVIDIA's PhysX schemas (not vehicle schemas, so not in our property table); authored by name because
# they are not registered in a process that runs our vehicle plugin.
PHYSX_RIGID_BODY_API = "PhysxRigidBodyAPI"


def _set(prim: Usd.Prim, name: str, type_name: Sdf.ValueTypeName, value) -> None:
    attr = prim.GetAttribute(name) or prim.CreateAttribute(name, type_name, custom=False)
    attr.Set(value)


def _physx_collision(prim: Usd.Prim, contact_offset: float) -> None:
    UsdPhysics.CollisionAPI.Apply(prim)
    prim.AddAppliedSchema(PHYSX_COLLISION_API)
    _set(prim, REST_OFFSET, Sdf.ValueTypeNames.Float, 0.0)
    _set(prim, CONTACT_OFFSET, Sdf.ValueTypeNames.Float, contact_offset)


def _collision_groups(stage: Usd.Stage, members: dict[str, list[str]]) -> None:
    for role, path in COLLISION_GROUPS.items():
        group = UsdPhysics.CollisionGroup.Define(stage, path)
        group.CreateFilteredGroupsRel().SetTargets([Sdf.Path(COLLISION_GROUPS[r]) for r in COLLISION_FILTERS[role]])
        if members.get(role):
            group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([Sdf.Path(p) for p in members[role]])


def _geometry(stage: Usd.Stage, g: Geometry) -> None:
    vehicle = stage.GetPrimAtPath(g.vehicle_path)
    vehicle.AddAppliedSchema(PHYSX_RIGID_BODY_API)
    _set(vehicle, P.physx_rigid_body_attribute("disableGravity"), Sdf.ValueTypeNames.Bool, True)
    _set(vehicle, P.physx_rigid_body_attribute("sleepThreshold"), Sdf.ValueTypeNames.Float, g.sleep_threshold)
    _set(vehicle, P.physx_rigid_body_attribute("stabilizationThreshold"), Sdf.ValueTypeNames.Float, g.stabilization_threshold)

    chassis = UsdGeom.Cube.Define(stage, f"{g.vehicle_path}/ChassisCollision")
    chassis.CreateSizeAttr(1.0)
    chassis.CreatePurposeAttr(UsdGeom.Tokens.guide)
    chassis.AddTranslateOp(UsdGeom.XformOp.PrecisionFloat).Set(Gf.Vec3f(*g.chassis_centre))
    chassis.AddScaleOp(UsdGeom.XformOp.PrecisionFloat).Set(Gf.Vec3f(*g.chassis_size))
    _physx_collision(chassis.GetPrim(), g.contact_offset)

    wheel_colliders = []
    for path, centre in g.wheel_centres.items():
        attachment = UsdGeom.Xformable(stage.GetPrimAtPath(path))
        if not attachment.GetOrderedXformOps():
            attachment.AddTranslateOp(UsdGeom.XformOp.PrecisionFloat).Set(Gf.Vec3f(*centre))
        cylinder = UsdGeom.Cylinder.Define(stage, f"{path}/Collision")
        cylinder.CreatePurposeAttr(UsdGeom.Tokens.guide)
        cylinder.CreateAxisAttr(g.lateral_axis)
        cylinder.CreateHeightAttr(g.wheel_width)
        cylinder.CreateRadiusAttr(g.wheel_radius)
        cylinder.CreateExtentAttr(UsdGeom.Cylinder.ComputeExtentFromPlugins(cylinder, Usd.TimeCode.Default()))
        _physx_collision(cylinder.GetPrim(), g.contact_offset)
        wheel_colliders.append(str(cylinder.GetPath()))

    _collision_groups(stage, {"chassis": [str(chassis.GetPath())], "wheel": wheel_colliders,
                              "groundSurface": [GROUND]})


def _explicit_controls(stage: Usd.Stage, description) -> None:
    """Author every control value even where it equals the schema fallback: PhysX consults the deprecated
    controller attributes (brake, handbrake, steerLeft, steerRight) when the new ones are unauthored."""
    for vehicle in description.vehicles.values():
        prim = stage.GetPrimAtPath(vehicle.path)
        for block in (vehicle.controller, vehicle.tankController):
            if block is None:
                continue
            for base, item in block.public().items():
                prim.GetAttribute(P.full_name(block.schema_name, base)).Set(item.value)
        for wheel in vehicle.wheels:
            if wheel.wheelController is not None:
                attachment = stage.GetPrimAtPath(wheel.path)
                for base, item in wheel.wheelController.public().items():
                    attachment.GetAttribute(P.full_name(P.WHEEL_CONTROLLER, base)).Set(item.value)


def author_vehicle(spec: VehicleSpec, units: str = "m", up: str = "Z", stage: Usd.Stage | None = None) -> Usd.Stage:
    """A stage (new, in memory, unless one is given) holding the scene, ground and the vehicle of `spec`."""
    description, geometry = describe_vehicle(spec, units, up)
    if stage is None:
        stage = Usd.Stage.CreateInMemory()
    world = UsdGeom.Xform.Define(stage, WORLD)
    stage.SetDefaultPrim(world.GetPrim())
    UsdGeom.Scope.Define(stage, parts_path(spec))  # shared components live here
    write_stage(description, stage)
    _explicit_controls(stage, description)
    _geometry(stage, geometry)
    return stage


def save_vehicle(spec: VehicleSpec, path: str | os.PathLike, units: str = "m", up: str = "Z",
                 command: str | None = None) -> Usd.Stage:
    """Author `spec` and write it to `path` atomically (format from the extension)."""
    stage = author_vehicle(spec, units, up)
    layer = stage.GetRootLayer()
    doc = spec.doc
    if command:
        doc += f"\nGenerated by `{command}`; regenerate rather than edit by hand."
    layer.documentation = doc.strip()
    export_layer_atomic(layer, path)
    return stage
