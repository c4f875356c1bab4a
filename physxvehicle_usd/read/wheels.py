"""A vehicle's wheels as the PhysX USD parser reads them: the wheel attachments, sprung masses (parse rules 5.3)
and the per-wheel resolution of rest loads, stiffness, travel and compliance, with their deprecated forms.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..description import Block, Source, VehicleDescription, WheelDescription
from ..properties import FLT_EPSILON
from . import components as C
from . import pxr_unchecked as U
from .context import MAX_WHEELS, VehicleParse, resolve_component
from .values import ComponentReader

# -- geometry helpers -----------------------------------------------------------------------------------
# Gf objects iterate through Python's old sequence protocol (tuple(Gf.Vec3d) costs ~14 us, a slice ~0.5 us):
# they are read by slicing and passed whole, never unpacked with * or iterated.

def _quat(q) -> Gf.Quatd:
    return Gf.Quatd(q[0], Gf.Vec3d(q[1], q[2], q[3]))


def _rotate(q: Gf.Quatd, vector) -> tuple:
    v = vector if isinstance(vector, Gf.Vec3d) else Gf.Vec3d(*vector)
    return tuple(Gf.Rotation(q).TransformDir(v)[:])


class WorldFrame(NamedTuple):
    """A vehicle prim's world transform, as the parse checks it (V69, V70) and scales by it."""

    transform: Gf.Transform
    scale: tuple[float, float, float]
    collapsed: bool   # an axis of zero scale: no vehicle (V69)
    sheared: bool     # a non-uniform scale along rotated axes (V70)


def world_frame(prim: Usd.Prim, xforms: UsdGeom.XformCache) -> WorldFrame:
    matrix = xforms.GetLocalToWorldTransform(prim)
    transform = Gf.Transform(matrix)
    scale = tuple(transform.GetScale()[:])
    # Gf.Transform reports a collapsed axis as 1e-10, not 0: a singular matrix is the zero scale.
    collapsed = any(c == 0.0 for c in scale) or matrix.GetDeterminant3() == 0.0
    sheared = not collapsed and not is_uniform(scale) and not is_identity(transform.GetPivotOrientation())
    return WorldFrame(transform, scale, collapsed, sheared)


def zero_orientations(prim: Usd.Prim) -> list[str]:
    """The prim's authored xformOp:orient attributes holding the zero quaternion (no rotation at all: USD reads it
    as the identity, silently)."""
    names = [n for n in ComponentReader.prim_info(prim)[1] if n.startswith("xformOp:orient")]
    out = []
    for name in sorted(names):
        value = prim.GetAttribute(name).Get()
        if value is not None and hasattr(value, "GetReal") and value.GetReal() == 0 and not any(value.GetImaginary()[:]):
            out.append(name)
    return out


def is_identity(rotation: Gf.Rotation) -> bool:
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
class Attachment:
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


def attachment_collision_shapes(attachment: Usd.Prim) -> list[Usd.Prim]:
    """The attachment and its descendants that carry PhysicsCollisionAPI, in traversal order."""
    predicate = Usd.TraverseInstanceProxies()
    if not U.get_filtered_children(attachment, predicate):
        # A leaf (the usual wheel): the range would hold the attachment alone (it passed this predicate when
        # the vehicle's traversal found it), and a range costs several times a children query.
        return [attachment] if U.has_api(attachment, UsdPhysics.CollisionAPI) else []
    return [p for p in Usd.PrimRange(attachment, predicate) if U.has_api(p, UsdPhysics.CollisionAPI)]


def parse_attachment(v: VehicleParse, prim: Usd.Prim, counter: int) -> Attachment:
    ctx = v.ctx
    r = ComponentReader(prim, P.ATTACHMENT, ctx.sink, ctx.units)
    block = r.new_block()
    for name in zero_orientations(prim):
        v.warning("ORIENT_ZERO", "the zero quaternion (0, 0, 0, 0) is no rotation; USD reads it as the identity "
                  "rotation", name, r.path)
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
        shapes = attachment_collision_shapes(prim)
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
    return Attachment(prim, resolved_index, explicit, block, wheel, tire, suspension, compliance, controller,
                       direction.value, position.value, centre.value, offsets)


# -- per-wheel resolution (sprung masses, rest loads, stiffness, travel, compliance) -------------------

def resolve_wheels(v: VehicleParse, d: VehicleDescription, attachments: list[Attachment], ref_com: bool,
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


def _deprecated_compliance(a: Attachment, attachment: Block, susp: Block, travel: float, droop: float, ref_com: bool,
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
