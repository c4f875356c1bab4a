"""Parsing one vehicle prim into a VehicleDescription, as the PhysX USD parser does.

Order of work follows the parser (shared/spec/vehicle_parse_rules.md 1.7): pre-checks, drive, vehicle
attributes, wheel attachments, cross-wheel rules, then differential, brakes, steering and controllers.
Errors are collected; a vehicle with any error is reported and left out of the description.
Everything the parser migrates from deprecated attributes, or derives (sprung masses, rest loads,
stiffness from per-unit-gravity values, travel distance from maxCompression/maxDroop), is resolved here,
so the description needs no further knowledge of sentinels.
"""
from __future__ import annotations

from pxr import Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..description import Block, DriveDescription, Source, VehicleDescription
from . import components as C
from . import pxr_unchecked as U
from .context import (
    MAX_SUBSTEPS,
    MAX_WHEELS,
    REFERENCE_FRAME_KEY,
    ReadContext,
    VehicleParse,
    resolve_component,
)
from .physics import rigid_body_block
from .systems import read_brakes, read_controllers, read_differential, read_steering, report_ignored_responses
from .values import ComponentReader, authored_targets
from .wheels import (
    Attachment,
    parse_attachment,
    resolve_wheels,
    world_frame,
    zero_orientations,
)


def _vehicle_attributes(v: VehicleParse) -> Block:
    ctx = v.ctx
    r = ComponentReader(v.prim, P.VEHICLE, ctx.sink, ctx.units)
    block = Block(schema_name=P.VEHICLE, path=v.path)
    ok = True
    for base in ("vehicleEnabled", "limitSuspensionExpansionVelocity"):
        raw = r.raw(base)
        block.set(base, bool(raw.value), raw.source)
    query = r.raw("suspensionLineQueryType")
    if query.value not in ("raycast", "sweep"):
        ctx.sink.warning("QUERY_TOKEN", v.path, f"suspension line query {query.value!r} is not a known token; PhysX "
                         "treats it as raycast", r.name("suspensionLineQueryType"))
    block.set("suspensionLineQueryType", "sweep" if query.value == "sweep" else "raycast", query.source)
    ok &= r.with_default(block, "subStepThresholdLongitudinalSpeed")
    for base in ("lowForwardSpeedSubStepCount", "highForwardSpeedSubStepCount"):
        ok &= r.with_default(block, base)
        if block[base] > MAX_SUBSTEPS:
            ctx.sink.error("V75", v.path, f"{block[base]} sub-steps; PhysX clamps to {MAX_SUBSTEPS}", r.name(base))
            block.set(base, MAX_SUBSTEPS, block.source(base))
    passive = r.raw("minPassiveLongitudinalSlipDenominator")
    if passive.has_value and passive.value != 0.0:
        block.set("minPassiveLongitudinalSlipDenominator", passive.value, passive.source)
        ok &= r.check_range("minPassiveLongitudinalSlipDenominator", passive.value)
    else:
        v.warning("V76", "minPassiveLongitudinalSlipDenominator is 0: the deprecated minLongitudinalSlipDenominator is "
                  "used; author minPassiveLongitudinalSlipDenominator instead", r.name("minPassiveLongitudinalSlipDenominator"))
        old = r.raw("minLongitudinalSlipDenominator")
        if old.authored:
            r.deprecated_warning("minLongitudinalSlipDenominator", r.name("minPassiveLongitudinalSlipDenominator"))
        value = old.value if old.has_value else r.default("minLongitudinalSlipDenominator")
        ok &= r.check_range("minLongitudinalSlipDenominator", value)
        block.set("minPassiveLongitudinalSlipDenominator", value, Source.DEPRECATED if old.has_value else Source.DEFAULT)
    for base in ("minActiveLongitudinalSlipDenominator", "minLateralSlipDenominator",
                 "longitudinalStickyTireThresholdSpeed", "lateralStickyTireThresholdSpeed"):
        ok &= r.with_default(block, base)
    for base in ("longitudinalStickyTireThresholdTime", "longitudinalStickyTireDamping", "lateralStickyTireDamping"):
        ok &= r.copy(block, base)
    # The parser loads the lateral threshold time from the longitudinal attribute (parse rules 4.4); we do the
    # same so that an asset means here what it means in Omniverse, and say so when the two differ.
    # (.get: an unreadable longitudinal time was reported and leaves no value; the vehicle is rejected anyway)
    lateral_time = r.raw("lateralStickyTireThresholdTime")
    longitudinal_time = block.get("longitudinalStickyTireThresholdTime")
    block.set("lateralStickyTireThresholdTime", longitudinal_time, Source.COMPUTED)
    if lateral_time.authored and lateral_time.value != longitudinal_time:
        v.warning("QUIRK_LATERAL_STICKY_TIME", "PhysX loads the lateral sticky-tire threshold time from "
                  "longitudinalStickyTireThresholdTime; the authored lateral value is ignored",
                  r.name("lateralStickyTireThresholdTime"))
    if not ok:
        v.valid = False
    return block


def _drive(v: VehicleParse) -> DriveDescription | None:
    ctx, prim = v.ctx, v.prim
    rel_name = P.full_name(P.VEHICLE, "drive")
    targets, _ = authored_targets(prim, rel_name)
    if len(targets) > 1:
        v.error("V65", f"drive relationship has {len(targets)} targets; one is allowed", rel_name)
        return None
    if targets:
        owner = ctx.stage.GetPrimAtPath(targets[0])
        if not owner:
            v.error("V65", f"drive target {targets[0]} does not exist", rel_name)
            return None
        if not (owner.HasAPI(P.DRIVE_STANDARD) or owner.HasAPI(P.DRIVE_BASIC)):
            v.error("V65", f"drive target {targets[0]} has neither PhysxVehicleDriveStandardAPI nor "
                    "PhysxVehicleDriveBasicAPI", rel_name)
            return None
        if owner != prim and (prim.HasAPI(P.DRIVE_STANDARD) or prim.HasAPI(P.DRIVE_BASIC)):
            v.warning("DRIVE_IGNORED", "a drive API applied to the vehicle prim is ignored because the drive "
                      "relationship names another prim (PhysX ignores it silently)", rel_name)
    else:
        if prim.HasAPI(P.DRIVE_STANDARD) and prim.HasAPI(P.DRIVE_BASIC):
            v.error("V65", "both PhysxVehicleDriveStandardAPI and PhysxVehicleDriveBasicAPI are applied")
            return None
        if not (prim.HasAPI(P.DRIVE_STANDARD) or prim.HasAPI(P.DRIVE_BASIC)):
            return None
        owner = prim
    path = str(owner.GetPath())
    if owner.HasAPI(P.DRIVE_STANDARD):
        drive = DriveDescription(type="standard", path=path)
        engine = resolve_component(v, owner, P.DRIVE_STANDARD, "engine", P.ENGINE, code="V64")
        gears = resolve_component(v, owner, P.DRIVE_STANDARD, "gears", P.GEARS, code="V64")
        clutch = resolve_component(v, owner, P.DRIVE_STANDARD, "clutch", P.CLUTCH, code="V64")
        autobox = resolve_component(v, owner, P.DRIVE_STANDARD, "autoGearBox", P.AUTOBOX, optional=True, code="V64")
        if engine is not None:
            drive.engine = v.fail_if_none(ctx.component("engine", engine, lambda: C.parse_engine(engine, ctx.sink, ctx.units)))
        if gears is not None:
            drive.gears = v.fail_if_none(ctx.component("gears", gears, lambda: C.parse_gears(gears, ctx.sink, ctx.units)))
        if clutch is not None:
            drive.clutch = v.fail_if_none(ctx.component("clutch", clutch, lambda: C.parse_clutch(clutch, ctx.sink, ctx.units)))
        # the autobox is checked against the gear count: not read when the gears are invalid (reported already;
        # its findings would only follow from that)
        if autobox is not None and (drive.gears is not None or gears is None):
            count = len(drive.gears["ratios"]) if drive.gears is not None else 0
            drive.autoGearBox = v.fail_if_none(ctx.component(
                "autobox", autobox, lambda: C.parse_autobox(autobox, ctx.sink, ctx.units, count)))
        return drive
    drive = DriveDescription(type="basic", path=path)
    drive.basic = v.fail_if_none(ctx.component("driveBasic", owner, lambda: C.parse_drive_basic(owner, ctx.sink, ctx.units)))
    return drive


def _scene_of(v: VehicleParse, body_desc) -> str | None:
    owners = [str(p) for p in body_desc.simulationOwners] if body_desc is not None else []
    scenes = list(v.ctx.physics.scenes)
    for owner in owners:
        if owner in v.ctx.physics.scenes:
            return owner
    return scenes[0] if scenes else None


def parse_vehicle(prim: Usd.Prim, ctx: ReadContext) -> VehicleDescription | None:
    v = VehicleParse(prim, ctx)
    # 1. pre-checks (fatal)
    if not prim.HasAPI(UsdPhysics.RigidBodyAPI):
        v.error("V67", "a vehicle prim needs PhysicsRigidBodyAPI")
        return _rejected(v)
    if not prim.IsA(UsdGeom.Xformable):
        v.error("V68", "a vehicle prim must be xformable")
        return _rejected(v)
    for name in zero_orientations(prim):
        v.warning("ORIENT_ZERO", "the zero quaternion (0, 0, 0, 0) is no rotation; USD reads it as the identity "
                  "rotation", name)
    frame = world_frame(prim, ctx.xforms)
    scale = frame.scale
    if frame.collapsed:
        v.error("V69", f"world scale {scale} has a zero component")
        return _rejected(v)
    if frame.sheared:
        v.warning("V70", f"non-uniform world scale {scale} with a rotated scale orientation (a sheared transform); "
                  "PhysX uses the scale along the vehicle's own axes")
    body_desc = ctx.body(v.path)
    # 2. drive
    errors_before_drive = v.rejecting_errors()
    drive = _drive(v)
    drive_broken = drive is None and v.rejecting_errors() > errors_before_drive
    # 3. vehicle attributes, reference frame, rigid body state
    vehicle = _vehicle_attributes(v)
    ref = prim.GetCustomDataByKey(REFERENCE_FRAME_KEY)
    if ref is None:
        v.warning("V81", f"custom data {REFERENCE_FRAME_KEY} is missing; PhysX assumes True (positions relative to "
                  "the centre of mass); author False to use the vehicle prim's frame")
        ref_com = True
        vehicle.set("referenceFrameIsCenterOfMass", True, Source.DEFAULT)
    else:
        ref_com = bool(ref)
        if ref_com:
            v.warning("V81", f"{REFERENCE_FRAME_KEY} = True is deprecated; author positions in the vehicle prim's frame")
        vehicle.set("referenceFrameIsCenterOfMass", ref_com, Source.AUTHORED)
    if body_desc is not None:
        if not body_desc.rigidBodyEnabled:
            v.error("V71", "the vehicle's rigid body is disabled (physics:rigidBodyEnabled = false)")
        if body_desc.kinematicBody and vehicle["vehicleEnabled"]:
            v.error("V72", "the vehicle's rigid body is kinematic while the vehicle is enabled")
    rigid_body = rigid_body_block(prim, body_desc, ctx.sink, ctx.units)
    if "scale" not in rigid_body:
        rigid_body.set("scale", scale, Source.COMPUTED)
    scene = _scene_of(v, body_desc)
    context = ctx.contexts.get(scene) if scene else None
    if context is None:
        # PhysX logs this as an error but still creates the vehicle with these defaults: a warning here.
        v.warning("V07", "the vehicle's physics scene has no valid PhysxVehicleContextAPI; PhysX logs an error and "
                  "uses velocityChange, +Y up, +Z forward")
        context = C.default_context_block(scene)
    gravity = ctx.scene_settings.get(scene) if scene else None
    g = gravity["gravityMagnitude"] if gravity is not None else ctx.units.default_gravity

    # 4. wheel attachments
    attachments: list[Attachment] = []
    counter = 0
    for child in Usd.PrimRange(prim, Usd.TraverseInstanceProxies()):
        if child == prim or not U.has_api(child, P.ATTACHMENT):
            continue
        if counter >= MAX_WHEELS:
            v.error("V82", f"more than {MAX_WHEELS} wheel attachments; this one is not parsed", prim=str(child.GetPath()))
            counter += 1
            continue
        attachments.append(parse_attachment(v, child, counter))
        counter += 1
    n = len(attachments)
    # 5. all-or-none rules and index coverage
    if n == 0:
        v.error("V83", "the vehicle has no wheel attachments")
    explicit = [a for a in attachments if a.explicit_index]
    seen: dict[int, str] = {}
    for a in explicit:
        if a.index in seen:
            v.error("V84", f"index {a.index} is also used by {seen[a.index]}", P.full_name(P.ATTACHMENT, "index"),
                    str(a.prim.GetPath()))
        seen[a.index] = a.block.path
    if explicit and sorted(seen) != list(range(n)):
        v.error("V85", f"explicit wheel indices {sorted(seen)} must be exactly 0..{n - 1} (do not mix -1 with explicit "
                "indices)", P.full_name(P.ATTACHMENT, "index"))
    complete = [a for a in attachments if a.wheel and a.tire and a.suspension]
    if len(complete) == n:
        def count(pred):
            return sum(1 for a in attachments if pred(a))
        all_or_none = (
            ("V86", "sprungMass", lambda a: a.suspension["sprungMass"] > 0, P.full_name(P.SUSPENSION, "sprungMass")),
            ("V87", "maxDroop", lambda a: "travelDistance" in a.suspension or a.suspension.get("_maxDroop", -1) >= 0,
             P.full_name(P.SUSPENSION, "maxDroop")),
            ("V88", "restLoad", lambda a: a.tire["restLoad"] > 0, P.full_name(P.TIRE, "restLoad")),
            ("V89", "lateralStiffnessGraph", lambda a: "lateralStiffnessGraph" in a.tire,
             P.full_name(P.TIRE, "lateralStiffnessGraph")),
        )
        for code, what, pred, prop in all_or_none:
            if count(pred) not in (0, n):
                v.error(code, f"{what} must be set on all wheels or on none ({count(pred)} of {n})", prop)
    if drive is not None:
        for a in attachments:
            if a.wheel_controller is not None:
                v.error("V90", "PhysxVehicleWheelControllerAPI on a wheel of a vehicle that has a drive",
                        prim=str(a.prim.GetPath()))
    description = VehicleDescription(path=v.path, vehicle=vehicle, context=context, rigidBody=rigid_body,
                                     scene=scene, drive=drive)
    if v.valid and v.rejecting_errors() == 0:
        resolve_wheels(v, description, attachments, ref_com, scale, g)
    # 6. differential -> brakes -> steering -> controllers (and the responses none of them reads). The parser stops at its first error; these are read
    # after an error elsewhere too, so that one run reports every independent problem of the vehicle. They are
    # skipped only where every finding would follow from an error already reported: a broken drive (each system
    # would say it "needs a drive") or no wheels at all (every wheel index would be "out of range").
    if not drive_broken and n > 0:
        for stage in (read_differential, read_brakes, read_steering, read_controllers, report_ignored_responses):
            stage(v, description, attachments)
    if not v.valid or v.rejecting_errors():
        return _rejected(v)
    return description


def _rejected(v: VehicleParse) -> None:
    v.ctx.sink.info("REJECTED", v.path, "vehicle left out of the description because of the errors above")
    return None
