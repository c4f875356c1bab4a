"""StageDescription -> prims: authoring vehicles back into USD.

Writes to the stage's current edit target, in the stage's units (descriptions already hold stage units),
sparsely: a value is authored only when reading the prim back would not give it anyway, i.e. values that
were authored, migrated from deprecated attributes, or differ from the schema fallback. Computed values
(auto sprung masses, rest loads) are left for the reader to compute again. Deprecated attributes are never
written: migrated values go to their replacements. Components keep the prims they were read from, so
components shared by relationship stay shared (`shared=False` puts every component on its owning prim).

`read_stage(write_stage(d)) == d` (values; provenance may turn "deprecated" into "authored").
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade

from . import properties as P
from .description import Block, Source, StageDescription, VehicleDescription
from .read.context import REFERENCE_FRAME_KEY
from .stage.values import usd_value
from .units import StageUnits

_WRITE_SOURCES = (Source.AUTHORED, Source.DEPRECATED)


def _values_equal(a: Any, b: Any) -> bool:
    """Exactly equal (lists and tuples alike): a value within a tolerance of the fallback, or of a shared
    component's, would read back as that one and break read(write(d)) == d (an accelerator of 6e-8 did)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_values_equal(x, y) for x, y in zip(a, b))
    return a == b


class _Writer:
    def __init__(self, stage: Usd.Stage, shared: bool):
        self.stage, self.shared = stage, shared
        self.written: dict[tuple[str, str], dict] = {}   # (kind, prim path) -> the values written there

    def prim(self, path: str, type_name: str = "Scope") -> Usd.Prim:
        prim = self.stage.GetPrimAtPath(path)
        if not prim:
            prim = self.stage.DefinePrim(path, type_name)
        return prim

    def apply(self, prim: Usd.Prim, schema: str, instance: str | None = None) -> None:
        if instance is None:
            if not prim.HasAPI(schema):
                prim.ApplyAPI(schema)
        elif not prim.HasAPI(schema, instance):
            prim.ApplyAPI(schema, instance)

    def set_attr(self, prim: Usd.Prim, schema: str, base: str, value: Any, instance: str | None = None,
                 force: bool = False) -> None:
        name = P.full_name(schema, base, instance)
        definition = prim.GetPrimDefinition().GetAttributeDefinition(name)
        if not definition:
            return
        fallback = definition.GetFallbackValue()
        if not force and fallback is not None and _values_equal(plain_value(fallback), value):
            return
        attr = prim.GetAttribute(name) or prim.CreateAttribute(name, definition.GetTypeName(), custom=False)
        attr.Set(usd_value(definition.GetTypeName(), value))

    def set_rel(self, prim: Usd.Prim, schema: str, base: str, targets: list[str]) -> None:
        rel = prim.CreateRelationship(P.full_name(schema, base), custom=False)
        rel.SetTargets([Sdf.Path(t) for t in targets])

    def block(self, prim: Usd.Prim, block: Block, instance: str | None = None, only: tuple | None = None,
              force: tuple = ()) -> None:
        """Author a block's values on a prim that has its schema applied."""
        self.apply(prim, block.schema_name, instance)
        for base, item in block.public().items():
            if only is not None and base not in only:
                continue
            if not P.is_schema_property(block.schema_name, base) or P.prop(block.schema_name, base).deprecated_by:
                continue
            if item.source in _WRITE_SOURCES or base in force:
                self.set_attr(prim, block.schema_name, base, item.value, instance, force=base in force)
                self._through_deprecated(prim, block.schema_name, base, item.value, instance)

    def _through_deprecated(self, prim: Usd.Prim, schema: str, base: str, value: Any, instance: str | None) -> None:
        """A value that is its property's sentinel came from the deprecated properties the sentinel defers to (the
        parser reads them then): written alone it would read back as their fallback. Those properties are written
        with their zero, which resolves to that value again (a zero minLongitudinalSlipDenominator for a zero
        minPassiveLongitudinalSlipDenominator, zero latStiffX and latStiffY for a (0, 0) lateralStiffnessGraph)."""
        row = P.prop(schema, base)
        if row.sentinel is None or not _values_equal(row.sentinel, value):
            return
        for old in P.TABLE_ROWS:
            if old.schema == schema and old.deprecated_by == base and old.range is not None and old.range.lo <= 0.0:
                self.set_attr(prim, schema, old.base, 0.0, instance, force=True)

    def component(self, owner: Usd.Prim, owner_schema: str, rel_base: str, block: Block | None, kind: str) -> str | None:
        """A component on its own prim (shared, via relationship) or on the owner; returns the prim written to.

        A shared prim holds one set of values; when a later user resolved different ones (values the parser
        derives per wheel, such as a deprecated lateral stiffness x that wheel's rest load), that user gets
        the component on its own prim instead, so reading back gives every wheel its own values."""
        if block is None:
            return None
        owner_path = str(owner.GetPath())
        target_path = block.path if self.shared and block.path and block.path != owner_path else owner_path
        values = {base: item.value for base, item in block.public().items()}
        written = self.written.get((kind, target_path))
        if written is not None and target_path != owner_path and not _values_equal(written, values):
            target_path = owner_path
            written = self.written.get((kind, target_path))
        if written is None:
            self.written[(kind, target_path)] = values
            self.write_component(self.prim(target_path), block)
        if target_path != owner_path:
            self.set_rel(owner, owner_schema, rel_base, [target_path])
        return target_path

    def write_component(self, prim: Usd.Prim, block: Block) -> None:
        self.block(prim, block)


def plain_value(value: Any) -> Any:
    if isinstance(value, (Gf.Quatf, Gf.Quatd)):
        im = value.GetImaginary()
        return (value.GetReal(), im[0], im[1], im[2])
    if hasattr(value, "__len__") and not isinstance(value, str):
        return [plain_value(v) for v in value]
    return value


def write_vehicle(stage: Usd.Stage, vehicle: VehicleDescription, shared: bool = True) -> Usd.Prim:
    """Author one vehicle (rigid body, wheels, drive, controls) at vehicle.path."""
    w = _Writer(stage, shared)
    return _write_vehicle(w, vehicle)


def _write_vehicle(w: _Writer, v: VehicleDescription) -> Usd.Prim:
    stage = w.stage
    prim = w.prim(v.path, "Xform")
    rb = v.rigidBody
    xform = UsdGeom.Xformable(prim)
    if not xform.GetOrderedXformOps():
        xform.AddTranslateOp().Set(Gf.Vec3d(*rb.get("position", (0.0, 0.0, 0.0))))
        q = rb.get("orientation", (1.0, 0.0, 0.0, 0.0))
        xform.AddOrientOp().Set(Gf.Quatf(q[0], Gf.Vec3f(*q[1:])))
        scale = rb.get("scale", (1.0, 1.0, 1.0))
        if tuple(scale) != (1.0, 1.0, 1.0):
            xform.AddScaleOp().Set(Gf.Vec3f(*scale))
    UsdPhysics.RigidBodyAPI.Apply(prim)
    mass = UsdPhysics.MassAPI.Apply(prim)
    mass.CreateMassAttr(rb["mass"])
    mass.CreateCenterOfMassAttr(Gf.Vec3f(*rb["centerOfMass"]))
    mass.CreateDiagonalInertiaAttr(Gf.Vec3f(*rb["diagonalInertia"]))
    axes = rb["principalAxes"]
    mass.CreatePrincipalAxesAttr(Gf.Quatf(axes[0], Gf.Vec3f(*axes[1:])))
    body = UsdPhysics.RigidBodyAPI(prim)
    if any(rb.get("linearVelocity", (0, 0, 0))):
        body.CreateVelocityAttr(Gf.Vec3f(*rb["linearVelocity"]))
    if any(rb.get("angularVelocity", (0, 0, 0))):
        body.CreateAngularVelocityAttr(Gf.Vec3f(*rb["angularVelocity"]))

    _write_physx_api_settings(prim, rb, "PhysxRigidBodyAPI", P.PHYSX_RIGID_BODY_ROWS, P.physx_rigid_body_attribute)
    w.block(prim, v.vehicle)
    ref = v.vehicle.values.get("referenceFrameIsCenterOfMass")
    if ref is not None and ref.source == Source.AUTHORED or (ref is not None and ref.value is False):
        prim.SetCustomDataByKey(REFERENCE_FRAME_KEY, bool(ref.value))

    if v.drive is not None:
        drive_owner = prim if (not w.shared or v.drive.path == v.path) else w.prim(v.drive.path)
        if drive_owner != prim:
            w.set_rel(prim, P.VEHICLE, "drive", [v.drive.path])
        if v.drive.type == "basic":
            w.block(drive_owner, v.drive.basic)
            if "drive" in v.nonlinearCommandResponses:
                w.block(drive_owner, v.nonlinearCommandResponses["drive"], instance="drive", force=_NCR_BASES)
        else:
            w.apply(drive_owner, P.DRIVE_STANDARD)
            for rel_base, block, kind in (("engine", v.drive.engine, "engine"), ("gears", v.drive.gears, "gears"),
                                          ("clutch", v.drive.clutch, "clutch"), ("autoGearBox", v.drive.autoGearBox, "autobox")):
                w.component(drive_owner, P.DRIVE_STANDARD, rel_base, block, kind)
    for instance, block in sorted(v.brakes.items()):
        w.block(prim, block, instance=instance, force=("wheels", "torqueMultipliers", "maxBrakeTorque"))
        if instance in v.nonlinearCommandResponses:
            w.block(prim, v.nonlinearCommandResponses[instance], instance=instance, force=_NCR_BASES)
    steering = v.steering or v.ackermannSteering
    if steering is not None:
        w.block(prim, steering, force=tuple(steering.public()))
        if "steer" in v.nonlinearCommandResponses:
            w.block(prim, v.nonlinearCommandResponses["steer"], instance="steer", force=_NCR_BASES)
    if v.multiWheelDifferential is not None and (v.tankDifferential is None):
        diff = v.multiWheelDifferential
        if diff["wheels"] or any(item.source != Source.DEPRECATED for item in diff.public().values()):
            w.block(prim, diff, force=("wheels", "torqueRatios", "averageWheelSpeedRatios"))
    if v.tankDifferential is not None:
        w.block(prim, v.tankDifferential, force=tuple(v.tankDifferential.public()))
        if v.multiWheelDifferential is not None:
            w.block(prim, v.multiWheelDifferential, force=("wheels", "torqueRatios", "averageWheelSpeedRatios"))
    if v.controller is not None:
        w.block(prim, v.controller, force=("targetGear",) if v.controller["targetGear"] != 255 else ())
    if v.tankController is not None:
        w.block(prim, v.tankController)

    for wheel in v.wheels:
        attachment = w.prim(wheel.path, "Xform")
        w.block(attachment, wheel.attachment, force=("suspensionTravelDirection", "suspensionFramePosition"))
        w.set_attr(attachment, P.ATTACHMENT, "index", wheel.index, force=True)
        group = wheel.attachment["collisionGroup"]
        if group:
            if not stage.GetPrimAtPath(group):
                UsdPhysics.CollisionGroup.Define(stage, group)  # the description keeps the link, not the filtering
            w.set_rel(attachment, P.ATTACHMENT, "collisionGroup", [group])
        w.component(attachment, P.ATTACHMENT, "wheel", wheel.wheel, "wheel")
        tire_prim = w.component(attachment, P.ATTACHMENT, "tire", _tire_to_write(wheel.tire), "tire")
        table = wheel.tire["frictionTable"]
        if table:
            w.set_rel(stage.GetPrimAtPath(tire_prim), P.TIRE, "frictionTable", [table])
        w.component(attachment, P.ATTACHMENT, "suspension", _suspension_to_write(wheel.suspension), "suspension")
        if _compliance_needed(wheel):
            w.block(attachment, wheel.compliance, force=tuple(wheel.compliance.public()))
        if wheel.wheelController is not None:
            w.block(attachment, wheel.wheelController)
    return prim


_NCR_BASES = ("commandValues", "speedResponsesPerCommandValue", "speedResponses")


_PHYSX_API_TYPES = {bool: Sdf.ValueTypeNames.Bool, int: Sdf.ValueTypeNames.Int, float: Sdf.ValueTypeNames.Float,
                    str: Sdf.ValueTypeNames.Token}


def _write_physx_api_settings(prim: Usd.Prim, block: Block, api: str, rows: tuple[P.Prop, ...], attribute) -> None:
    """An API of NVIDIA's schema (applied and authored by name) whose rows the reader resolves into `block`
    (PhysxRigidBodyAPI, PhysxSceneAPI, PhysxMaterialAPI): the values that were authored or that omni.physx changed from what was
    authored (a clamp), so reading them back gives them again."""
    units = StageUnits.of(prim.GetStage())
    settings = {row: block.values.get(row.base) for row in rows}
    written = {row: item for row, item in settings.items() if item is not None and (
        item.source != Source.DEFAULT or item.value != P.si_to_stage(row, row.default, units))}
    if not written:
        return
    if api not in prim.GetPrimTypeInfo().GetAppliedAPISchemas():
        prim.AddAppliedSchema(api)
    for row, item in written.items():
        value = item.value
        if row.base == "maxAngularVelocity":  # authored in deg/s, resolved in rad/s
            value = math.degrees(value)
        name = attribute(row.base)
        attr = prim.GetAttribute(name) or prim.CreateAttribute(name, _PHYSX_API_TYPES[type(row.default)], custom=False)
        attr.Set(value)


def _tire_to_write(tire: Block) -> Block:
    """Rest loads computed from sprung masses are left out; everything else the tire says is authored."""
    out = Block(schema_name=P.TIRE, path=tire.path)
    for base, item in tire.public().items():
        if base == "restLoad" and item.source == Source.COMPUTED:
            continue
        if base == "frictionTable":
            continue
        out.set(base, item.value, Source.AUTHORED if item.source != Source.FALLBACK else item.source)
    return out


def _suspension_to_write(suspension: Block) -> Block:
    out = Block(schema_name=P.SUSPENSION, path=suspension.path)
    for base, item in suspension.public().items():
        if base == "sprungMass" and item.source == Source.COMPUTED:
            continue
        out.set(base, item.value, Source.AUTHORED if item.source == Source.DEPRECATED else item.source)
    return out


def _compliance_needed(wheel) -> bool:
    """The compliance API is written when it was authored or when its graphs came from deprecated attributes;
    estimated force application points (computed) are recomputed by the reader and need no API."""
    sources = {item.source for item in wheel.compliance.public().values()}
    return bool(sources & {Source.AUTHORED, Source.DEPRECATED}) or wheel.suspension.source("travelDistance") == Source.DEPRECATED


def write_stage(description: StageDescription, stage: Usd.Stage | None = None, shared: bool = True) -> Usd.Stage:
    """Author a whole description (scenes, materials, friction tables, ground, vehicles) into a stage."""
    if stage is None:
        stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageMetersPerUnit(stage, description.stage.metersPerUnit)
    UsdPhysics.SetStageKilogramsPerUnit(stage, description.stage.kilogramsPerUnit)
    UsdGeom.SetStageUpAxis(stage, description.stage.upAxis)
    w = _Writer(stage, shared)
    for path, scene in sorted(description.scenes.items()):
        usd_scene = UsdPhysics.Scene.Define(stage, path)
        if scene.settings.source("gravityDirection") == Source.AUTHORED:
            usd_scene.CreateGravityDirectionAttr(Gf.Vec3f(*scene.settings["gravityDirection"]))
        if scene.settings.source("gravityMagnitude") == Source.AUTHORED:
            usd_scene.CreateGravityMagnitudeAttr(scene.settings["gravityMagnitude"])
        _write_physx_api_settings(usd_scene.GetPrim(), scene.settings, "PhysxSceneAPI", P.PHYSX_SCENE_ROWS,
                                  P.physx_scene_attribute)
        if scene.context is not None:
            w.block(usd_scene.GetPrim(), scene.context, force=("verticalAxis", "longitudinalAxis", "updateMode"))
    for path, material in sorted(description.materials.items()):
        usd_material = UsdShade.Material.Define(stage, path)
        api = UsdPhysics.MaterialAPI.Apply(usd_material.GetPrim())
        api.CreateStaticFrictionAttr(material.staticFriction)
        api.CreateDynamicFrictionAttr(material.dynamicFriction)
        api.CreateRestitutionAttr(material.restitution)
        _write_physx_api_settings(usd_material.GetPrim(), material.settings, "PhysxMaterialAPI", P.PHYSX_MATERIAL_ROWS,
                                  P.physx_material_attribute)
    for path, table in sorted(description.tireFrictionTables.items()):
        prim = w.prim(path, P.TABLE)
        w.set_rel(prim, P.TABLE, "groundMaterials", list(table["groundMaterials"]))
        w.set_attr(prim, P.TABLE, "frictionValues", list(table["frictionValues"]), force=True)
        w.set_attr(prim, P.TABLE, "defaultFrictionValue", table["defaultFrictionValue"])
    for ground in description.ground:
        cylinder = ground.kind == "convex" and ground.cylinderEnds is not None
        prim = stage.DefinePrim(ground.path, "Cylinder" if cylinder else _GROUND_TYPES.get(ground.kind, "Mesh"))
        if ground.kind == "plane":
            UsdGeom.Plane(prim).CreateAxisAttr(ground.axis or "Z")
        elif ground.kind in ("sphere", "capsule") or cylinder:
            _write_round(prim, ground)
        else:
            mesh = UsdGeom.Mesh(prim)
            mesh.CreatePointsAttr([Gf.Vec3f(*p) for p in ground.points or []])
            mesh.CreateFaceVertexIndicesAttr(ground.faceVertexIndices or [])
            mesh.CreateFaceVertexCountsAttr(ground.faceVertexCounts or [])
            if ground.kind == "convex":  # the hull of its points (a box or a hull as read: its corners)
                UsdPhysics.MeshCollisionAPI.Apply(prim).CreateApproximationAttr(UsdPhysics.Tokens.convexHull)
        UsdGeom.Xformable(prim).AddTransformOp().Set(Gf.Matrix4d(ground.transform))
        UsdPhysics.CollisionAPI.Apply(prim)
        if ground.material:
            UsdShade.MaterialBindingAPI.Apply(prim).Bind(
                UsdShade.Material(stage.GetPrimAtPath(ground.material)), UsdShade.Tokens.weakerThanDescendants, "physics")
    for path, vehicle in sorted(description.vehicles.items()):
        _write_vehicle(w, vehicle)
    return stage


_GROUND_TYPES = {"plane": "Plane", "sphere": "Sphere", "capsule": "Capsule"}


def _write_round(prim: Usd.Prim, ground) -> None:
    """A static sphere, capsule or cylinder: its core (centre at the origin, segment (a cylinder's cap centres) along
    a coordinate axis) and its radius unscaled by the transform's scale, as UsdPhysics scales it when read back (the
    largest scale across the axis)."""
    scale = np.linalg.norm(np.asarray(ground.transform, float)[:3, :3], axis=1)
    if ground.kind == "sphere":
        UsdGeom.Sphere(prim).CreateRadiusAttr(float(ground.radius) / float(scale.max()))
        return
    cylinder = ground.kind == "convex"
    points = np.asarray(ground.cylinderEnds if cylinder else ground.points, float).reshape(-1, 3)
    axis = int(np.abs(points[1] - points[0]).argmax())
    shape = UsdGeom.Cylinder(prim) if cylinder else UsdGeom.Capsule(prim)
    shape.CreateAxisAttr("XYZ"[axis])
    shape.CreateHeightAttr(float(np.abs(points[1] - points[0])[axis]))
    shape.CreateRadiusAttr(float(ground.radius) / float(np.delete(scale, axis).max()))
