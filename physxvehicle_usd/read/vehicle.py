"""Parsing one vehicle prim into a VehicleDescription, as the PhysX USD parser does.

Order of work follows the parser (shared/spec/vehicle_parse_rules.md 1.7): pre-checks, drive, vehicle
attributes, wheel attachments, cross-wheel rules, then differential, brakes, steering and controllers.
Errors are collected; a vehicle with any error is reported and left out of the description.
Everything the parser migrates from deprecated attributes, or derives (sprung masses, rest loads,
stiffness from per-unit-gravity values, travel distance from maxCompression/maxDroop), is resolved here,
so the description needs no further knowledge of sentinels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

import numpy as np
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..description import Block, DriveDescription, Source, VehicleDescription, WheelDescription
from ..diagnostics import DiagnosticSink, Severity
from ..properties import FLT_EPSILON
from ..units import StageUnits
from . import components as C
from . import pxr_unchecked as U
from .physics import PhysicsInfo, rigid_body_block
from .values import ComponentReader, authored_targets

MAX_WHEELS = 20
# Errors the parser logs while still creating the vehicle ("E~" in the parse rules): torque curve truncated to
# 8 points, sub-step count clamped to 255, sprung masses that fall back to mass / wheel count.
LOGGED_ONLY = frozenset({"V51", "V75", "V142"})
MAX_SUBSTEPS = 255
REFERENCE_FRAME_KEY = "physxVehicle:referenceFrameIsCenterOfMass"


@dataclass
class ReadContext:
    """What one read pass shares between vehicles: the stage, diagnostics, units and a component cache."""

    stage: Usd.Stage
    sink: DiagnosticSink
    units: StageUnits
    physics: PhysicsInfo
    contexts: dict[str, Block]                     # scene path -> parsed vehicle context
    gravity: dict[str, Block]                      # scene path -> gravity block
    cache: dict[tuple[str, Usd.Prim], Block | None] = field(default_factory=dict)
    xforms: UsdGeom.XformCache = field(default_factory=UsdGeom.XformCache)

    def component(self, kind: str, prim: Usd.Prim, parse: Callable[[], Block | None]) -> Block | None:
        """Shared components are parsed once per prim for the whole pass (a Usd.Prim compares by its
        composed prim and instance-proxy path, so equal keys are the same prim of the stage)."""
        key = (kind, prim)
        if key not in self.cache:
            self.cache[key] = parse()
        return self.cache[key]


class _Vehicle:
    """Per-vehicle parse state: collects errors so that every problem is reported, not only the first."""

    def __init__(self, prim: Usd.Prim, ctx: ReadContext):
        self.prim, self.ctx, self.path = prim, ctx, str(prim.GetPath())
        self.start = len(ctx.sink.items)
        self.valid = True

    def rejecting_errors(self) -> int:
        """Errors reported since this vehicle's parse began, other than the ones the parser only logs."""
        return sum(1 for d in self.ctx.sink.items[self.start:]
                   if d.severity == Severity.ERROR and d.code not in LOGGED_ONLY)

    def error(self, code: str, message: str, prop: str | None = None, prim: str | None = None) -> None:
        self.ctx.sink.error(code, prim or self.path, message, prop)
        self.valid = False

    def warning(self, code: str, message: str, prop: str | None = None, prim: str | None = None) -> None:
        self.ctx.sink.warning(code, prim or self.path, message, prop)

    def fail_if_none(self, block):
        if block is None:
            self.valid = False
        return block


# -- component resolution: relationship OR API on the owner (parse rules 1.3) ---------------------------

def resolve_component(v: _Vehicle, owner: Usd.Prim, owner_schema: str, rel_base: str, api: str,
                      optional: bool = False, code: str = "V34") -> Usd.Prim | None:
    """code: V34 for a wheel attachment's wheel/tire/suspension, V64 for a standard drive's components."""
    rel_name = P.full_name(owner_schema, rel_base)
    owner_path = ComponentReader.prim_info(owner)[0]
    targets, _ = authored_targets(owner, rel_name)
    if len(targets) > 1:
        v.error(code, f"{rel_base} relationship has {len(targets)} targets; one is allowed", rel_name, owner_path)
        return None
    if targets:
        if U.has_api(owner, api):
            v.warning(code, f"{rel_base} is both referenced and applied; the relationship wins and the applied {api} "
                      "is ignored", rel_name, owner_path)
        target = v.ctx.stage.GetPrimAtPath(targets[0])
        if not target:
            v.error(code, f"{rel_base} target {targets[0]} does not exist", rel_name, owner_path)
            return None
        if not U.has_api(target, api):
            v.error(code, f"{rel_base} target {targets[0]} does not have {api} applied", rel_name, owner_path)
            return None
        return target
    if U.has_api(owner, api):
        return owner
    if not optional:
        v.warning(code, f"needs either a {rel_base} relationship or {api} applied to this prim", rel_name, owner_path)
        v.valid = False
    return None


# -- geometry helpers -----------------------------------------------------------------------------------
# Gf objects iterate through Python's old sequence protocol (tuple(Gf.Vec3d) costs ~14 us, a slice ~0.5 us):
# they are read by slicing and passed whole, never unpacked with * or iterated.

def _quat(q) -> Gf.Quatd:
    return Gf.Quatd(q[0], Gf.Vec3d(q[1], q[2], q[3]))


def _rotate(q: Gf.Quatd, vector) -> tuple:
    v = vector if isinstance(vector, Gf.Vec3d) else Gf.Vec3d(*vector)
    return tuple(Gf.Rotation(q).TransformDir(v)[:])


def world_scale(matrix: Gf.Matrix4d) -> tuple[float, float, float]:
    return tuple(Gf.Transform(matrix).GetScale()[:])


def _is_identity(rotation: Gf.Rotation) -> bool:
    return abs(rotation.GetAngle()) < 1e-6


def is_uniform(scale) -> bool:
    lo, hi = min(scale), max(scale)
    return (lo > 0) == (hi > 0) and (hi - lo) <= 1e-5 * abs(lo)


# -- sprung masses (PxVehicleComputeSprungMasses, parse rules 5.3) --------------------------------------

def compute_sprung_masses(positions: np.ndarray, mass: float, vertical: int) -> np.ndarray | None:
    """Sprung mass per wheel such that the masses balance about the centre of mass; None when ill-conditioned."""
    n = len(positions)
    if n < 1 or n > MAX_WHEELS or mass <= 0:
        return None
    if n == 1:
        return np.array([mass])
    a_axis, b_axis = (vertical + 1) % 3, (vertical + 2) % 3
    a, b = positions[:, a_axis], positions[:, b_axis]
    if n == 2:
        x0 = np.array([a[0], b[0]])
        x1 = np.array([a[1], b[1]])
        w = x1 - x0
        length = np.linalg.norm(w)
        if length == 0:
            return None
        w = w / length
        t = w.dot(-x0)
        foot = x0 + t * w
        r0, r1 = (x0 - foot).dot(w), (x1 - foot).dot(w)
        if abs(r0 - r1) <= 1e-6:
            return None
        m0 = mass * r1 / (r1 - r0)
        return np.array([m0, mass - m0])
    if n == 3:
        matrix = np.array([a, b, np.ones(3)])
        if abs(np.linalg.det(matrix)) <= 1e-6:
            return None
        return np.linalg.solve(matrix, np.array([0.0, 0.0, mass]))
    size = n + 3
    system = np.zeros((size, size))
    rhs = np.zeros(size)
    system[:n, :n] = 2.0 * np.eye(n)
    system[:n, n] = -a
    system[:n, n + 1] = -b
    system[:n, n + 2] = -1.0
    rhs[:n] = 2.0 * mass / n
    system[n, :n] = a
    system[n + 1, :n] = b
    system[n + 2, :n] = 1.0
    rhs[n + 2] = mass
    if abs(np.linalg.det(system)) <= 1e-6:
        return None
    return np.linalg.solve(system, rhs)[:n]


@lru_cache(maxsize=1024)
def _shared_sprung_masses(positions: tuple, mass: float, vertical: int) -> tuple | None:
    """compute_sprung_masses, remembered by its inputs: the copies of one asset in a fleet share them, and each
    solve costs several small numpy calls."""
    masses = compute_sprung_masses(np.array(positions), mass, vertical)
    return None if masses is None else tuple(masses.tolist())


AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}


# -- wheel attachments ----------------------------------------------------------------------------------

@dataclass
class _Attachment:
    prim: Usd.Prim
    index: int
    explicit_index: bool
    block: Block
    wheel: Block | None
    tire: Block | None
    suspension: Block | None
    compliance: Block | None          # authored SuspensionComplianceAPI, if any
    wheel_controller: Block | None
    direction: tuple | None
    position: tuple | None            # suspension frame position, authored frame (unscaled)
    wheel_centre: tuple | None        # deprecated wheelCenterOfMassOffset, authored frame (unscaled)
    force_offsets: dict[str, tuple]   # deprecated app point offsets by base name


def _collision_shapes(attachment: Usd.Prim) -> list[Usd.Prim]:
    """The attachment and its descendants that carry PhysicsCollisionAPI, in traversal order."""
    predicate = Usd.TraverseInstanceProxies()
    if not U.get_filtered_children(attachment, predicate):
        # A leaf (the usual wheel): the range would hold the attachment alone (it passed this predicate when
        # the vehicle's traversal found it), and a range costs several times a children query.
        return [attachment] if U.has_api(attachment, UsdPhysics.CollisionAPI) else []
    return [p for p in Usd.PrimRange(attachment, predicate) if U.has_api(p, UsdPhysics.CollisionAPI)]


def parse_attachment(v: _Vehicle, prim: Usd.Prim, counter: int) -> _Attachment:
    ctx = v.ctx
    r = ComponentReader(prim, P.ATTACHMENT, ctx.sink, ctx.units)
    block = r.new_block()
    raw_index = r.raw("index")
    index = raw_index.value if raw_index.has_value else -1
    if not P.prop(P.ATTACHMENT, "index").range.accepts(index):
        v.error("V38", f"index {index} is outside [-1, 20)", r.name("index"), r.path)
    explicit = index != -1
    resolved_index = index if explicit else counter

    def component(rel_base, api, kind, parse):
        target = resolve_component(v, prim, P.ATTACHMENT, rel_base, api)
        if target is None:
            return None
        return v.fail_if_none(ctx.component(kind, target, lambda: parse(target, ctx.sink, ctx.units)))

    wheel = component("wheel", P.WHEEL, "wheel", C.parse_wheel)
    tire = component("tire", P.TIRE, "tire", C.parse_tire)
    suspension = component("suspension", P.SUSPENSION, "suspension", C.parse_suspension)

    direction = r.raw("suspensionTravelDirection")
    if not direction.has_value:
        v.error("V35", "suspensionTravelDirection needs a value", r.name("suspensionTravelDirection"), r.path)
    position = r.raw("suspensionFramePosition")
    centre = r.raw("wheelCenterOfMassOffset")
    if not position.has_value:
        if centre.has_value:
            r.deprecated_warning("wheelCenterOfMassOffset", r.name("suspensionFramePosition"))
        else:
            v.error("V36", "neither suspensionFramePosition nor the deprecated wheelCenterOfMassOffset has a value",
                    r.name("suspensionFramePosition"), r.path)
    offsets = {}
    for base in ("suspensionForceAppPointOffset", "tireForceAppPointOffset"):
        raw = r.raw(base)
        if raw.has_value:
            r.deprecated_warning(base, P.prop(P.ATTACHMENT, base).deprecated_by)
            offsets[base] = raw.value
    driven = r.raw("driven")
    if driven.has_value:
        r.deprecated_warning("driven", P.MULTI_DIFF)
    block.set("_driven", bool(driven.value) if driven.has_value else False,
              Source.DEPRECATED if driven.has_value else Source.DEFAULT)
    for base in ("suspensionFrameOrientation", "wheelFramePosition", "wheelFrameOrientation"):
        raw = r.raw(base)
        block.set(base, raw.value, raw.source)
    targets, _ = r.targets("collisionGroup")
    group = None
    if len(targets) > 1:
        v.error("V39", "collisionGroup may have one target only", r.name("collisionGroup"), r.path)
    elif targets:
        target = ctx.stage.GetPrimAtPath(targets[0])
        if not target or not target.IsA(UsdPhysics.CollisionGroup):
            v.error("V39", f"collisionGroup target {targets[0]} is not a PhysicsCollisionGroup", r.name("collisionGroup"), r.path)
        else:
            group = targets[0]
    block.set("collisionGroup", group, Source.AUTHORED if targets else Source.FALLBACK)
    if U.is_a(prim, UsdGeom.Xformable):
        shapes = _collision_shapes(prim)
        if len(shapes) > 1:
            v.error("V41", f"{len(shapes)} collision shapes; the attachment or one direct child may carry "
                    "PhysicsCollisionAPI", prim=r.path)
        elif shapes and shapes[0] != prim and shapes[0].GetParent() != prim:
            v.error("V40", f"wheel collision shape {shapes[0].GetPath()} must be the attachment or a direct child",
                    prim=r.path)
    compliance = None
    if U.has_api(prim, P.COMPLIANCE):
        compliance = v.fail_if_none(C.parse_compliance(prim, ctx.sink, ctx.units))
    controller = None
    if U.has_api(prim, P.WHEEL_CONTROLLER):
        controller = v.fail_if_none(C.parse_wheel_controller(prim, ctx.sink, ctx.units))
    return _Attachment(prim, resolved_index, explicit, block, wheel, tire, suspension, compliance, controller,
                       direction.value, position.value, centre.value, offsets)


# -- the vehicle ----------------------------------------------------------------------------------------

def _vehicle_attributes(v: _Vehicle) -> Block:
    ctx = v.ctx
    r = ComponentReader(v.prim, P.VEHICLE, ctx.sink, ctx.units)
    block = Block(schema_name=P.VEHICLE, path=v.path)
    ok = True
    for base in ("vehicleEnabled", "limitSuspensionExpansionVelocity"):
        raw = r.raw(base)
        block.set(base, bool(raw.value), raw.source)
    query = r.raw("suspensionLineQueryType")
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


def _drive(v: _Vehicle) -> DriveDescription | None:
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
        if autobox is not None:
            count = len(drive.gears["ratios"]) if drive.gears is not None else 0
            drive.autoGearBox = v.fail_if_none(ctx.component(
                "autobox", autobox, lambda: C.parse_autobox(autobox, ctx.sink, ctx.units, count)))
        return drive
    drive = DriveDescription(type="basic", path=path)
    drive.basic = v.fail_if_none(ctx.component("driveBasic", owner, lambda: C.parse_drive_basic(owner, ctx.sink, ctx.units)))
    return drive


def _scene_of(v: _Vehicle, body_desc) -> str | None:
    owners = [str(p) for p in body_desc.simulationOwners] if body_desc is not None else []
    scenes = list(v.ctx.physics.scenes)
    for owner in owners:
        if owner in v.ctx.physics.scenes:
            return owner
    return scenes[0] if scenes else None


def parse_vehicle(prim: Usd.Prim, ctx: ReadContext) -> VehicleDescription | None:
    v = _Vehicle(prim, ctx)
    # 1. pre-checks (fatal)
    if not prim.HasAPI(UsdPhysics.RigidBodyAPI):
        v.error("V67", "a vehicle prim needs PhysicsRigidBodyAPI")
        return _rejected(v)
    if not prim.IsA(UsdGeom.Xformable):
        v.error("V68", "a vehicle prim must be xformable")
        return _rejected(v)
    matrix = ctx.xforms.GetLocalToWorldTransform(prim)
    scale = world_scale(matrix)
    # Gf.Transform reports a collapsed axis as 1e-10, not 0: a singular matrix is the zero scale.
    if any(c == 0.0 for c in scale) or matrix.GetDeterminant3() == 0.0:
        v.error("V69", f"world scale {scale} has a zero component")
        return _rejected(v)
    if not is_uniform(scale) and not _is_identity(Gf.Transform(matrix).GetPivotOrientation()):
        v.warning("V70", f"non-uniform world scale {scale} with a rotated scale orientation (a sheared transform); "
                  "PhysX uses the scale along the vehicle's own axes")
    body_desc = ctx.physics.bodies.get(v.path)
    # 2. drive
    drive = _drive(v)
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
    gravity = ctx.gravity.get(scene) if scene else None
    g = gravity["gravityMagnitude"] if gravity is not None else ctx.units.default_gravity

    # 4. wheel attachments
    attachments: list[_Attachment] = []
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
        _resolve_wheels(v, description, attachments, ref_com, scale, g)
    # 6. differential -> brakes -> steering -> controllers, each only while the vehicle is still valid
    for stage in (_differential, _brakes, _steering, _controllers):
        if not v.valid:
            break
        stage(v, description, attachments)
    if not v.valid or v.rejecting_errors():
        return _rejected(v)
    return description


def _rejected(v: _Vehicle) -> None:
    v.ctx.sink.info("REJECTED", v.path, "vehicle left out of the description because of the errors above")
    return None


# -- per-wheel resolution (sprung masses, rest loads, stiffness, travel, compliance) -------------------

def _resolve_wheels(v: _Vehicle, d: VehicleDescription, attachments: list[_Attachment], ref_com: bool,
                    scale: tuple, g: float) -> None:
    rb = d.rigidBody
    com_rot = _quat(rb["principalAxes"])
    com_pos = Gf.Vec3d(*[c * s for c, s in zip(rb["centerOfMass"], scale)])
    com_inv = com_rot.GetInverse()

    def to_com_point(p):
        scaled = Gf.Vec3d(*[c * s for c, s in zip(p, scale)])
        return scaled if ref_com else Gf.Vec3d(*_rotate(com_inv, scaled - com_pos))

    def to_com_dir(d_):
        return Gf.Vec3d(*d_) if ref_com else Gf.Vec3d(*_rotate(com_inv, d_))

    mass_points = tuple(tuple(to_com_point(a.position if a.position is not None else a.wheel_centre)[:])
                        for a in attachments)
    vertical = AXIS_INDEX[d.context["verticalAxis"][-1]]
    user_sprung = all(a.suspension["sprungMass"] > 0 for a in attachments)
    if user_sprung:
        sprung = np.array([a.suspension["sprungMass"] for a in attachments])
        sprung_source = Source.AUTHORED
    else:
        sprung = _shared_sprung_masses(mass_points, rb["mass"], vertical)
        sprung_source = Source.COMPUTED
        if sprung is None:
            v.ctx.sink.error("V142", v.path, "sprung masses cannot be computed from the wheel positions (ill-conditioned);"
                             " PhysX uses mass / wheel count for every wheel")
            sprung = np.full(len(attachments), rb["mass"] / max(len(attachments), 1))
            v.valid = True  # V142 is logged as an error but the vehicle is still created

    uniform = is_uniform(scale)
    for a, m in zip(attachments, sprung):
        m = float(m)
        susp_in, tire_in = a.suspension, a.tire
        k = susp_in["springStrength"]
        suspension = Block(schema_name=P.SUSPENSION, path=susp_in.path)
        suspension.copy_from(susp_in, "springStrength", "springDamperRate")
        suspension.set("sprungMass", m, sprung_source)
        if "travelDistance" in susp_in:
            travel = susp_in["travelDistance"]
            suspension.copy_from(susp_in, "travelDistance")
            droop = min(m * g / k if k > 0 else travel, travel)
            compression = None
        else:
            raw_droop = susp_in["_maxDroop"]
            droop = raw_droop if raw_droop >= 0 else (m * g / k if k > 0 else 0.0)
            compression = susp_in["_maxCompression"]
            travel = compression + droop
            suspension.set("travelDistance", travel, Source.DEPRECATED)

        tire = Block(schema_name=P.TIRE, path=tire_in.path)
        if tire_in["restLoad"] > 0:
            rest_load = tire_in["restLoad"]
            tire.copy_from(tire_in, "restLoad")
        else:
            rest_load = m * g
            tire.set("restLoad", rest_load, Source.COMPUTED)
        # On the deprecated paths the provenance says whether a deprecated attribute was authored ("deprecated")
        # or the value comes from the parser's defaults alone ("default").
        if "lateralStiffnessGraph" in tire_in:
            tire.copy_from(tire_in, "lateralStiffnessGraph")
        else:
            tire.set("lateralStiffnessGraph", (tire_in["_latStiffX"], tire_in["_latStiffY"] * rest_load),
                     _migrated(tire_in, "_latStiffX", "_latStiffY"))
        if "longitudinalStiffness" in tire_in:
            tire.copy_from(tire_in, "longitudinalStiffness")
        else:
            tire.set("longitudinalStiffness", tire_in["_longitudinalStiffnessPerUnitGravity"] * g,
                     _migrated(tire_in, "_longitudinalStiffnessPerUnitGravity"))
        if "camberStiffness" in tire_in:
            tire.copy_from(tire_in, "camberStiffness")
        else:
            tire.set("camberStiffness", tire_in["_camberStiffnessPerUnitGravity"] * g,
                     _migrated(tire_in, "_camberStiffnessPerUnitGravity"))
        tire.copy_from(tire_in, "frictionVsSlipGraph", "frictionTable")

        attachment = Block(schema_name=P.ATTACHMENT, path=a.block.path)
        attachment.set("suspensionTravelDirection", tuple(a.direction), Source.AUTHORED)
        if a.position is not None:
            attachment.set("suspensionFramePosition", tuple(a.position), Source.AUTHORED)
        else:
            # The deprecated offset is the wheel centre at rest; the suspension frame sits up the travel direction.
            back = (travel - droop) if "travelDistance" in susp_in else compression
            point = [c * s - dc * back for c, s, dc in zip(a.wheel_centre, scale, a.direction)]
            attachment.set("suspensionFramePosition", tuple(p / s for p, s in zip(point, scale)), Source.DEPRECATED)
        attachment.copy_from(a.block, "suspensionFrameOrientation", "wheelFramePosition", "wheelFrameOrientation",
                             "collisionGroup")
        if not uniform and tuple(attachment["suspensionFrameOrientation"]) != (1.0, 0.0, 0.0, 0.0):
            v.warning("V42", "a non-identity suspensionFrameOrientation with a non-uniform vehicle scale; PhysX rejects "
                      "the vehicle", P.full_name(P.ATTACHMENT, "suspensionFrameOrientation"), str(a.prim.GetPath()))
            v.valid = False

        compliance = a.compliance if a.compliance is not None else _deprecated_compliance(
            a, attachment, susp_in, travel, droop, ref_com, scale, to_com_point, to_com_dir, com_inv)
        wheel = Block(schema_name=P.WHEEL, path=a.wheel.path,
                      values={k_: val for k_, val in a.wheel.values.items() if k_ in ("radius", "width", "mass", "moi", "dampingRate")})
        d.wheels.append(WheelDescription(path=a.block.path, index=a.index, attachment=attachment, wheel=wheel,
                                         tire=tire, suspension=suspension, compliance=compliance,
                                         wheelController=a.wheel_controller))
    d.wheels.sort(key=lambda w: w.index)


def _migrated(block: Block, *bases: str) -> Source:
    return Source.DEPRECATED if any(block.source(b) == Source.DEPRECATED for b in bases) else Source.DEFAULT


def _deprecated_compliance(a: _Attachment, attachment: Block, susp: Block, travel: float, droop: float, ref_com: bool,
                           scale, to_com_point, to_com_dir, com_inv) -> Block:
    """Compliance graphs the parser derives for a wheel without SuspensionComplianceAPI (parse rules 4.3, 4.5, 4.6)."""
    block = Block(schema_name=P.COMPLIANCE, path=str(a.prim.GetPath()))
    toe = a.wheel.get("toeAngle")
    block.set("wheelToeAngle", [(0.0, toe)] if toe is not None else [], Source.DEPRECATED if toe is not None else Source.DEFAULT)
    cambers = [susp.get("_camberAtRest"), susp.get("_camberAtMaxCompression"), susp.get("_camberAtMaxDroop")]
    if any(c is not None for c in cambers):
        rest, comp, dr = (c if c is not None else 0.0 for c in cambers)
        rest_jounce = min(max(droop / travel if travel > 0 else 0.0, FLT_EPSILON), 1.0 - FLT_EPSILON)
        graph = [(0.0, dr), (rest_jounce, rest), (1.0, comp)] if not (rest == comp == dr) else [(rest_jounce, rest)]
        block.set("wheelCamberAngle", graph, Source.DEPRECATED)
    else:
        block.set("wheelCamberAngle", [], Source.DEFAULT)
    attach_com = to_com_point(attachment["suspensionFramePosition"])
    susp_rot = _quat(attachment["suspensionFrameOrientation"])
    if not ref_com:
        susp_rot = com_inv * susp_rot
    direction = to_com_dir(a.direction)
    estimated = Gf.Vec3d(*_rotate(susp_rot.GetInverse(), direction)) * (travel - droop)
    for base, old in (("suspensionForceAppPoint", "suspensionForceAppPointOffset"), ("tireForceAppPoint", "tireForceAppPointOffset")):
        if old in a.force_offsets:
            offset = to_com_point(a.force_offsets[old]) - attach_com
            point = tuple(c / s for c, s in zip(offset[:], scale))
            block.set(base, [(0.0, *point)], Source.DEPRECATED)
        else:
            point = tuple(c / s for c, s in zip(estimated[:], scale))
            block.set(base, [(0.0, *point)], Source.COMPUTED)
    return block


# -- differential, brakes, steering, controllers (only while valid) ------------------------------------

def _check_wheel_list(v: _Vehicle, wheels: list[int], n: int, negative: str, out_of_range: str, prop: str) -> bool:
    """A list of wheel indices as the parser checks it; the two failures carry their own rule codes."""
    if any(w < 0 for w in wheels):
        v.error(negative, "wheel indices must not be negative", prop)
        return False
    if len(wheels) > n or any(w >= n for w in wheels):
        v.error(out_of_range, f"wheel indices {wheels} do not fit the vehicle's {n} wheels", prop)
        return False
    return True


def _differential(v: _Vehicle, d: VehicleDescription, attachments: list[_Attachment]) -> None:
    ctx, prim, n = v.ctx, v.prim, len(attachments)
    has_tank, has_multi = prim.HasAPI(P.TANK_DIFF), prim.HasAPI(P.MULTI_DIFF)
    if (has_tank or has_multi) and d.drive is None:
        v.error("V95", "a differential needs a drive")
        return
    if has_multi or has_tank:
        r = ComponentReader(prim, P.MULTI_DIFF, ctx.sink, ctx.units)
        block = Block(schema_name=P.MULTI_DIFF, path=v.path)
        wheels_raw = r.raw("wheels")
        wheels = list(wheels_raw.value or [])
        _check_wheel_list(v, wheels, n, "V92", "V96", r.name("wheels"))
        block.set("wheels", wheels, wheels_raw.source)
        for base, code_range, lo in (("torqueRatios", "V94", -1.0), ("averageWheelSpeedRatios", "V94", 0.0)):
            raw = r.raw(base)
            values = list(raw.value or [])
            if values and len(values) != len(wheels):
                v.error("V93", f"{len(values)} entries for {len(wheels)} wheels", r.name(base))
            if any(not lo <= x < 1.0 + FLT_EPSILON for x in values):
                v.error(code_range, f"entries must lie in [{lo:g}, 1]", r.name(base))
            if values:
                block.set(base, values, raw.source)
            else:
                block.set(base, [1.0 / len(wheels)] * len(wheels) if wheels else [], Source.DEFAULT)
        d.multiWheelDifferential = block
    if has_tank:
        r = ComponentReader(prim, P.TANK_DIFF, ctx.sink, ctx.units)
        block = Block(schema_name=P.TANK_DIFF, path=v.path)
        values = {}
        for base in ("numberOfWheelsPerTrack", "thrustIndexPerTrack", "trackToWheelIndices", "wheelIndicesInTrackOrder"):
            raw = r.raw(base)
            values[base] = list(raw.value or [])
            block.set(base, values[base], raw.source)
        per_track, thrust, starts, order = (values[k] for k in ("numberOfWheelsPerTrack", "thrustIndexPerTrack",
                                                                "trackToWheelIndices", "wheelIndicesInTrackOrder"))
        tracks = len(per_track)
        if tracks > MAX_WHEELS or any(c < 0 for c in per_track):
            v.error("V97", "at most 20 tracks, each with a non-negative wheel count", r.name("numberOfWheelsPerTrack"))
        if len(thrust) != tracks or any(t not in (0, 1) for t in thrust):
            v.error("V98", "one thrust index (0 or 1) per track", r.name("thrustIndexPerTrack"))
        if len(order) > MAX_WHEELS:
            v.error("V99", "at most 20 wheel indices", r.name("wheelIndicesInTrackOrder"))
        if len(starts) != tracks:
            v.error("V103", "one start index per track", r.name("trackToWheelIndices"))
        else:
            used: set[int] = set()
            for i in range(tracks):
                if starts[i] < 0 or (i > 0 and starts[i] < starts[i - 1] + per_track[i - 1]):
                    v.error("V100", "track start indices must not overlap", r.name("trackToWheelIndices"))
                    break
                if starts[i] + per_track[i] > len(order):
                    v.error("V101", f"track {i} runs past the end of wheelIndicesInTrackOrder", r.name("trackToWheelIndices"))
                    break
                for w in order[starts[i]:starts[i] + per_track[i]]:
                    if w < 0 or w in used:
                        v.error("V102", f"wheel {w} is negative or in two tracks", r.name("wheelIndicesInTrackOrder"))
                    elif w >= n:
                        v.error("V104", f"wheel {w} does not exist ({n} wheels)", r.name("wheelIndicesInTrackOrder"))
                    used.add(w)
        d.tankDifferential = block
    if not (has_multi or has_tank) and d.drive is not None:
        driven = [a.index for a in attachments if a.block["_driven"]]
        block = Block(schema_name=P.MULTI_DIFF, path=v.path)
        block.set("wheels", sorted(driven), Source.DEPRECATED)
        # Basic drive: each driven wheel gets the full torque; standard drive: an equal split.
        share = 1.0 if d.drive.type == "basic" else (1.0 / len(driven) if driven else 0.0)
        block.set("torqueRatios", [share] * len(driven), Source.DEPRECATED)
        block.set("averageWheelSpeedRatios", [1.0 / len(driven)] * len(driven) if driven else [], Source.DEPRECATED)
        if driven:
            v.warning("V37", "driven wheels come from the deprecated physxVehicleWheelAttachment:driven; apply "
                      "PhysxVehicleMultiWheelDifferentialAPI instead")
        d.multiWheelDifferential = block


def _per_wheel(wheels: list[int], multipliers: list[float], n: int) -> tuple[list[int], list[float]]:
    """Empty wheel list = all wheels; empty multipliers = 1 each (parse rules 5.5)."""
    if not wheels:
        return list(range(n)), [1.0] * n
    return wheels, multipliers if multipliers else [1.0] * len(wheels)


def _wheel_system(v: _Vehicle, r: ComponentReader, block: Block, n: int, max_base: str, mult_base: str,
                  codes: tuple[str, str, str]) -> tuple[float, list[float]]:
    """What brakes and steering share: a wheel list with per-wheel multipliers under one maximum.

    Checks the list as the parser does (codes: negative index, index out of range, multiplier count),
    stores the block with the parser's fill-ins, and returns the maximum and the authored multipliers."""
    wheels_raw, mult_raw, maximum = r.raw("wheels"), r.raw(mult_base), r.raw(max_base)
    wheels, mults = list(wheels_raw.value or []), list(mult_raw.value or [])
    negative, out_of_range, mismatch = codes
    _check_wheel_list(v, wheels, n, negative, out_of_range, r.name("wheels"))
    if mults and len(mults) != len(wheels):
        v.error(mismatch, f"{len(mults)} multipliers for {len(wheels)} wheels", r.name(mult_base))
    all_wheels, all_mults = _per_wheel(wheels, mults, n)
    block.set("wheels", all_wheels, wheels_raw.source if wheels else Source.DEFAULT)
    block.set(max_base, maximum.value, maximum.source)
    block.set(mult_base, all_mults, mult_raw.source if mults else Source.DEFAULT)
    return maximum.value, mults


def _brakes(v: _Vehicle, d: VehicleDescription, attachments: list[_Attachment]) -> None:
    ctx, prim, n = v.ctx, v.prim, len(attachments)
    instances = [i for i in P.MULTIPLE_APPLY[P.BRAKES] if prim.HasAPI(P.BRAKES, i)]
    if prim.HasAPI(P.BRAKES) and not instances:
        v.error("V105", "PhysxVehicleBrakesAPI is applied but with neither instance brakes0 nor brakes1")
        return
    if instances and d.drive is None:
        v.error("V110", "brakes need a drive")
        return
    for instance in instances:
        r = ComponentReader(prim, P.BRAKES, ctx.sink, ctx.units, instance=instance)
        block = Block(schema_name=P.BRAKES, path=v.path)
        torque, mults = _wheel_system(v, r, block, n, "maxBrakeTorque", "torqueMultipliers", ("V107", "V110", "V108"))
        if any(m < 0 for m in mults):
            v.error("V109", "multipliers must not be negative", r.name("torqueMultipliers"))
        if not r.check_range("maxBrakeTorque", torque):
            v.valid = False
        d.brakes[instance] = block
        if prim.HasAPI(P.NCR, instance):
            ncr = C.parse_ncr(prim, instance, ctx.sink, ctx.units)
            if v.fail_if_none(ncr) is not None:
                d.nonlinearCommandResponses[instance] = ncr
    if not instances and d.drive is not None:
        # Deprecated setup: the wheels' maxBrakeTorque/maxHandBrakeTorque become per-wheel multipliers of
        # two braking systems with a maximum response of 1.
        by_index = sorted(attachments, key=lambda a: a.index)
        for instance, base in (("brakes0", "maxBrakeTorque"), ("brakes1", "maxHandBrakeTorque")):
            block = Block(schema_name=P.BRAKES, path=v.path)
            block.set("wheels", list(range(n)), Source.DEPRECATED)
            block.set("maxBrakeTorque", 1.0, Source.DEPRECATED)
            block.set("torqueMultipliers", [float(a.wheel.get(base) or 0.0) for a in by_index], Source.DEPRECATED)
            d.brakes[instance] = block


def _steering(v: _Vehicle, d: VehicleDescription, attachments: list[_Attachment]) -> None:
    ctx, prim, n = v.ctx, v.prim, len(attachments)
    has_basic, has_ackermann = prim.HasAPI(P.STEERING), prim.HasAPI(P.ACKERMANN)
    if (has_basic or has_ackermann) and d.drive is None:
        v.error("V118", "steering needs a drive")
        return
    if has_basic and has_ackermann:
        v.warning("V111", "both PhysxVehicleSteeringAPI and PhysxVehicleAckermannSteeringAPI are applied; PhysX uses "
                  "the plain steering and ignores the Ackermann steering")
    if has_basic:
        r = ComponentReader(prim, P.STEERING, ctx.sink, ctx.units)
        block = Block(schema_name=P.STEERING, path=v.path)
        angle, mults = _wheel_system(v, r, block, n, "maxSteerAngle", "angleMultipliers", ("V112", "V118", "V113"))
        if any(abs(angle * m) > math.pi for m in mults):
            v.error("V114", "maxSteerAngle x multiplier must stay within [-pi, pi]", r.name("angleMultipliers"))
        d.steering = block
    elif has_ackermann:
        r = ComponentReader(prim, P.ACKERMANN, ctx.sink, ctx.units)
        block = Block(schema_name=P.ACKERMANN, path=v.path)
        for base in ("wheel0", "wheel1"):
            raw = r.raw(base)
            if not raw.has_value or raw.value < 0:
                v.error("V115", f"{base} needs a non-negative wheel index", r.name(base))
            elif raw.value >= n:
                v.error("V118", f"{base} = {raw.value} but the vehicle has {n} wheels", r.name(base))
            block.set(base, raw.value, raw.source)
        if block["wheel0"] is not None and block["wheel0"] == block["wheel1"]:
            v.error("V115", "wheel0 and wheel1 must differ", r.name("wheel1"))
        for base in ("wheelBase", "trackWidth"):
            if not r.copy(block, base, code="V116"):
                v.valid = False
        if not r.copy(block, "strength"):
            v.valid = False
        r.copy(block, "maxSteerAngle")
        d.ackermannSteering = block
    elif d.drive is not None:
        by_index = sorted(attachments, key=lambda a: a.index)
        block = Block(schema_name=P.STEERING, path=v.path)
        block.set("wheels", list(range(n)), Source.DEPRECATED)
        block.set("maxSteerAngle", 1.0, Source.DEPRECATED)
        block.set("angleMultipliers", [float(a.wheel.get("maxSteerAngle") or 0.0) for a in by_index], Source.DEPRECATED)
        d.steering = block
    if (has_basic or has_ackermann) and prim.HasAPI(P.NCR, "steer"):
        ncr = C.parse_ncr(prim, "steer", ctx.sink, ctx.units)
        if v.fail_if_none(ncr) is not None:
            d.nonlinearCommandResponses["steer"] = ncr


def _controllers(v: _Vehicle, d: VehicleDescription, attachments: list[_Attachment]) -> None:
    ctx, prim = v.ctx, v.prim
    if d.drive is not None and d.drive.type == "basic" and d.drive.basic is not None:
        drive_prim = ctx.stage.GetPrimAtPath(d.drive.path)
        if drive_prim.HasAPI(P.NCR, "drive"):
            ncr = C.parse_ncr(drive_prim, "drive", ctx.sink, ctx.units)
            if v.fail_if_none(ncr) is not None:
                d.nonlinearCommandResponses["drive"] = ncr
    if not prim.HasAPI(P.CONTROLLER):
        return
    if any(a.wheel_controller is not None for a in attachments):
        v.error("V129", "PhysxVehicleControllerAPI together with wheel controllers on the wheels")
    if d.drive is None:
        v.error("V130", "PhysxVehicleControllerAPI needs a drive")
        return
    r = ComponentReader(prim, P.CONTROLLER, ctx.sink, ctx.units)
    block = Block(schema_name=P.CONTROLLER, path=v.path)
    for base in ("accelerator", "brake0", "brake1", "steer", "targetGear"):
        if not r.copy(block, base):
            v.valid = False
    deprecated = {}
    for base in ("brake", "handbrake", "steerLeft", "steerRight"):
        raw = r.raw(base)
        if raw.authored and raw.has_value:
            r.deprecated_warning(base, P.prop(P.CONTROLLER, base).deprecated_by)
            if not r.check_range(base, raw.value):
                v.valid = False
            deprecated[base] = raw.value
    if all(b.source("maxBrakeTorque") == Source.DEPRECATED for b in d.brakes.values()) and d.brakes:
        block.set("brake0", deprecated.get("brake", 0.0), Source.DEPRECATED)
        block.set("brake1", deprecated.get("handbrake", 0.0), Source.DEPRECATED)
    if d.steering is not None and d.steering.source("maxSteerAngle") == Source.DEPRECATED:
        block.set("steer", deprecated.get("steerLeft", 0.0) - deprecated.get("steerRight", 0.0), Source.DEPRECATED)
    if block.get("targetGear") == 255 and d.drive.type == "standard" and d.drive.autoGearBox is None:
        v.warning("V137", "targetGear 255 asks for automatic shifting but the drive has no PhysxVehicleAutoGearBoxAPI",
                  r.name("targetGear"))
    d.controller = block
    if prim.HasAPI(P.TANK_CONTROLLER):
        tr = ComponentReader(prim, P.TANK_CONTROLLER, ctx.sink, ctx.units)
        if d.drive.type != "standard":
            v.error("V134", "PhysxVehicleTankControllerAPI needs a standard drive")
        if d.tankDifferential is None:
            v.error("V135", "PhysxVehicleTankControllerAPI needs PhysxVehicleTankDifferentialAPI")
        tank = Block(schema_name=P.TANK_CONTROLLER, path=v.path)
        for base in ("thrust0", "thrust1"):
            if not tr.copy(tank, base):
                v.valid = False
        d.tankController = tank
