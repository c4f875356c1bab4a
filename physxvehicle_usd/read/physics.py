"""What the vehicle reader needs from UsdPhysics: scenes, rigid bodies and their mass properties,
static ground colliders and physics materials. All of it comes from pxr's own UsdPhysics parsing
(`LoadUsdPhysicsFromRange`) and `RigidBodyAPI.ComputeMassProperties`, not from hand-written traversal.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

import numpy as np
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..description import (
    Block,
    CollisionGroupDescription,
    GroundDescription,
    MaterialDescription,
    ShapeDescription,
    Source,
)
from ..diagnostics import DiagnosticSink
from ..properties import RIGID_BODY, SCENE
from ..units import StageUnits
from .collision import (
    CopyRoots,
    SceneTolerances,
    SharedCopy,
    collider_material,
    filtered_targets,
    groups_of,
    read_collision_groups,
    shape_offsets,
    static_shape,
    vehicle_shape,
)
from .contact_inputs import check_collider, check_groups, check_material
from .values import ComponentReader


@dataclass
class PhysicsInfo:
    scenes: dict[str, object] = field(default_factory=dict)          # path -> SceneDesc
    bodies: dict[str, object] = field(default_factory=dict)          # path -> RigidBodyDesc
    materials: dict[str, MaterialDescription] = field(default_factory=dict)
    ground: list[GroundDescription] = field(default_factory=list)
    shapes: dict[str, list[ShapeDescription]] = field(default_factory=dict)  # rigid body path -> its shapes
    groups: dict[str, CollisionGroupDescription] = field(default_factory=dict)
    member_of: dict[str, list[str]] | None = None  # collider path -> its groups, sorted (None: not worked out)


def _load(stage: Usd.Stage, include: Sequence[str] = ("/",), exclude: Sequence[str] = ()) -> dict:
    """UsdPhysics' parse of the subtrees at `include`, less those at `exclude`."""
    loader = getattr(UsdPhysics, "UsdPhysicsLoadStageFromPrimRange", None)
    include, exclude = list(include), list(exclude)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        if loader is not None:
            try:
                return loader(stage, include, exclude)
            except TypeError:
                pass
        return UsdPhysics.LoadUsdPhysicsFromRange(stage, include, exclude)


def load_bodies(stage: Usd.Stage, paths: Sequence[str]) -> dict[str, object]:
    """The rigid-body descriptions of the bodies at `paths`, as the whole stage's parse reports them: UsdPhysics
    describes each body from its own prim (transform, velocities, flags, simulation owners)."""
    bodies = {}
    try:
        parsed = _load(stage, paths)
    except Exception:  # noqa: BLE001 - as the whole stage's parse failing: the bodies have no description
        return bodies
    for kind, (found, descs) in parsed.items():
        if str(kind).rsplit(".", 1)[-1] == "RigidBody":
            bodies.update((str(path), desc) for path, desc in zip(found, descs))
    return bodies


def _matrix(m: Gf.Matrix4d) -> list[list[float]]:
    return [[float(m[r][c]) for c in range(4)] for r in range(4)]


_SHAPES = ("CubeShape", "SphereShape", "CapsuleShape", "CylinderShape", "MeshShape", "ConeShape", "PlaneShape")


def load_physics(stage: Usd.Stage, sink: DiagnosticSink, exclude: Sequence[str] = (),
                 units: StageUnits | None = None, copies: CopyRoots | None = None,
                 shared_copy: SharedCopy | None = None) -> PhysicsInfo:
    """exclude: subtrees left out of the parse (read/copies.py: copies of an asset whose subtree holds nothing of
    this but the vehicle's own body). units: the stage's, for the colliders' default offsets. copies, shared_copy:
    where the copies of an asset lie, whose collision groups are their first copy's moved (read_collision_groups)."""
    units = units or StageUnits(1.0, 1.0)
    info = PhysicsInfo()
    # the collision groups are read here (collision_groups), and left out of UsdPhysics' parse, which matches every
    # collider against every group: its time grew as their product, 9 s of a 10,000-car fleet's read where every
    # car brings its own groups (a group with prims below it stays in: they may be colliders)
    found_groups = read_collision_groups(stage, copies, shared_copy)
    groups, members = found_groups.groups, found_groups.members
    unparsed = found_groups.childless
    try:
        parsed = _load(stage, exclude=[*exclude, *unparsed])
    except Exception as exc:  # noqa: BLE001 - report, read vehicles without physics descriptions
        sink.error("PHYSICS", "/", f"UsdPhysics could not parse the stage: {exc}")
        return info
    xform_cache = UsdGeom.XformCache()
    scene = _scene_tolerances(stage, parsed, units)
    for kind, (paths, descs) in parsed.items():
        name = str(kind).rsplit(".", 1)[-1]
        for path, desc in zip(paths, descs):
            key = str(path)
            if name == "Scene":
                info.scenes[key] = desc
            elif name == "RigidBody":
                info.bodies[key] = desc
            elif name == "RigidBodyMaterial":
                if not check_material(stage.GetPrimAtPath(path), sink):
                    continue
                info.materials[key] = material(stage.GetPrimAtPath(path), desc, sink, units)
            elif name in _SHAPES and not desc.collisionEnabled:
                continue
            elif name in _SHAPES and name != "PlaneShape" and not check_collider(prim := stage.GetPrimAtPath(path),
                                                                                 desc, name, sink):
                continue
            elif name in _SHAPES and (body := str(desc.rigidBody)):
                shape = vehicle_shape(stage, desc, units, sink, scene, prim) if name != "PlaneShape" else None
                if shape is not None:
                    info.shapes.setdefault(body, []).append(shape)
            elif name in _SHAPES and not (name == "PlaneShape" or (name == "MeshShape" and str(desc.approximation)
                                                                   in ("none", "meshSimplification"))):
                transform = _matrix(xform_cache.GetLocalToWorldTransform(stage.GetPrimAtPath(path)))
                shape = static_shape(stage, desc, transform, units, sink, scene)
                if shape is not None:
                    info.ground.append(shape)
            elif name in ("PlaneShape", "MeshShape"):
                prim = stage.GetPrimAtPath(path)
                ground = GroundDescription(path=key, kind="plane" if name == "PlaneShape" else "mesh",
                                           transform=_matrix(xform_cache.GetLocalToWorldTransform(prim)),
                                           material=collider_material(desc), filtered=filtered_targets(desc))
                extents = None
                if name == "PlaneShape":
                    ground.axis = str(desc.axis).rsplit(".", 1)[-1]
                else:
                    mesh = UsdGeom.Mesh(prim)
                    # (through numpy: a road of 100,000 points is read in milliseconds, not seconds; the same floats)
                    ground.points = np.asarray(mesh.GetPointsAttr().Get() or [], np.float64).reshape(-1, 3).tolist()
                    ground.faceVertexIndices = np.asarray(mesh.GetFaceVertexIndicesAttr().Get() or [],
                                                          np.int64).tolist()
                    ground.faceVertexCounts = np.asarray(mesh.GetFaceVertexCountsAttr().Get() or [], np.int64).tolist()
                    scale = np.linalg.norm(np.asarray(ground.transform, float)[:3, :3], axis=1)
                    points = np.asarray(ground.points, float).reshape(-1, 3) * scale
                    extents = np.ptp(points, axis=0) if len(points) else np.zeros(3)
                ground.offsets = shape_offsets(prim, units, sink, extents, scene)
                info.ground.append(ground)
    for collider in [*info.ground, *(s for shapes in info.shapes.values() for s in shapes)]:
        if collider.material is not None and collider.material not in info.materials:
            sink.warning("MATERIAL_BINDING", collider.path, f"bound to {collider.material}, which is no usable "
                         "physics material: it collides with omni.physx's default material", "material:binding:physics")
            collider.material = None
    # every collider's groups, wherever the stage has a group: the contacts filter with them, and so do the wheels'
    # suspension queries against the ground (a plane in a group the wheels' query group filters is not their road,
    # even for a vehicle without collision shapes)
    if groups:
        info.groups = groups
        check_groups(stage, info.groups, sink, found_groups.moved)
        info.member_of = groups_of(members)
        colliders = [*info.ground, *(s for shapes in info.shapes.values() for s in shapes)]
        for collider in colliders:  # one list per collider, in groups_of's order (UsdPhysics' has another)
            collider.groups = list(info.member_of.get(collider.path, ()))
        for collider in colliders:
            if len(collider.groups) > 1:
                sink.warning("COLLISION_GROUP", collider.path, f"in {len(collider.groups)} collision groups "
                             f"({', '.join(collider.groups)}): omni.physx filters a collider by one group only, the "
                             f"first in path order ({collider.groups[0]}), and warns")
    return info


def material(prim: Usd.Prim, desc, sink: DiagnosticSink, units: StageUnits) -> MaterialDescription:
    """A physics material's P.MATERIAL block: friction and restitution as UsdPhysics reads them (its schema's
    fallback where unauthored), the combine modes as omni.physx reads PhysxMaterialAPI (usdLoad/Material.cpp: only
    where the API is applied; an unknown token keeps "average"), each said where it is not the stage's."""
    block = Block(P.MATERIAL, str(prim.GetPath()))
    for row in P.MATERIAL_VALUE_ROWS:
        attr = prim.GetAttribute(P.full_name("PhysicsMaterialAPI", row.base))
        block.set(row.base, float(getattr(desc, row.base)),
                  Source.AUTHORED if attr and attr.HasAuthoredValue() else Source.FALLBACK)
    _physx_api_settings(prim, block, sink, units, "PhysxMaterialAPI", P.PHYSX_MATERIAL, P.PHYSX_MATERIAL_ROWS,
                        P.physx_material_attribute, "MATERIAL_API")
    return MaterialDescription(str(prim.GetPath()), block)


TIME_STEPS_PER_SECOND = P.physx_scene_attribute("timeStepsPerSecond")
DEFAULT_TIME_STEPS_PER_SECOND = P.prop(P.SCENE, "timeStepsPerSecond").default  # omni.physx's, where none is authored


def _scene_tolerances(stage: Usd.Stage, parsed: dict, units: StageUnits) -> SceneTolerances:
    """The first physics scene's step and gravity magnitude as omni.physx reads them (60 steps per second and
    9.81 m/s^2 when unauthored), for the shapes' computed contact offsets."""
    for kind, (paths, descs) in parsed.items():
        if str(kind).rsplit(".", 1)[-1] != "Scene" or not len(paths):
            continue
        prim = stage.GetPrimAtPath(paths[0])
        attr = prim.GetAttribute(TIME_STEPS_PER_SECOND)
        steps = attr.Get() if attr and attr.HasAuthoredValue() else None
        gravity = float(descs[0].gravityMagnitude)
        if not UsdPhysics.Scene(prim).GetGravityMagnitudeAttr().HasAuthoredValue() or not math.isfinite(gravity) \
                or gravity < 0.0:
            gravity = units.default_gravity
        return SceneTolerances.of(float(steps) if isinstance(steps, (int, float)) and steps >= 1 else
                                  DEFAULT_TIME_STEPS_PER_SECOND, gravity)
    return SceneTolerances.of(DEFAULT_TIME_STEPS_PER_SECOND, units.default_gravity)


def gravity_block(scene_path: str | None, desc, units: StageUnits, prim: Usd.Prim | None = None,
                  sink: DiagnosticSink | None = None) -> Block:
    """Scene gravity as omni.physx resolves it: unauthored direction = -up axis, magnitude = 9.81 m/s^2 in stage units.

    UsdPhysics already fills the defaults into its scene description, so whether a value is the stage's own
    (provenance "authored") is asked of the scene prim. An authored value that cannot be used (NaN, +inf, a
    negative magnitude) is replaced by the default, and said to `sink`; the (0, 0, 0) direction and the -inf
    magnitude are the schema's own "use the default"."""
    block = Block(schema_name=SCENE, path=scene_path)
    direction = tuple(desc.gravityDirection) if desc is not None else (0.0, 0.0, 0.0)
    magnitude = float(desc.gravityMagnitude) if desc is not None else -math.inf
    if prim is not None:
        scene = UsdPhysics.Scene(prim)
        if not scene.GetGravityDirectionAttr().HasAuthoredValue():
            direction = (0.0, 0.0, 0.0)
        if not scene.GetGravityMagnitudeAttr().HasAuthoredValue():
            magnitude = -math.inf
    if direction == (0.0, 0.0, 0.0) or not all(math.isfinite(c) for c in direction):
        if sink is not None and direction != (0.0, 0.0, 0.0):
            sink.error("GRAVITY", scene_path, f"gravity direction {direction!r} is not finite; the default (down the "
                       "stage's up axis) is used", "physics:gravityDirection")
        block.set("gravityDirection", None, Source.DEFAULT)  # filled with -up by the caller
    else:
        norm = math.sqrt(sum(c * c for c in direction))
        block.set("gravityDirection", tuple(c / norm for c in direction), Source.AUTHORED)
    if not math.isfinite(magnitude) or magnitude < 0:
        if sink is not None and magnitude != -math.inf:
            sink.error("GRAVITY", scene_path, f"gravity magnitude {magnitude!r} is not a finite, non-negative number; "
                       f"the default {units.default_gravity:g} (9.81 m/s^2 in stage lengths) is used",
                       "physics:gravityMagnitude")
        block.set("gravityMagnitude", units.default_gravity, Source.DEFAULT)
    else:
        block.set("gravityMagnitude", magnitude, Source.AUTHORED)
    return block


def shape_mass_information(prim: Usd.Prim) -> UsdPhysics.RigidBodyAPI.MassInformation:
    """Volume and unit-density inertia of a collider for ComputeMassProperties (simple shapes; others by bounds)."""
    info = UsdPhysics.RigidBodyAPI.MassInformation()
    info.localPos = Gf.Vec3f(0, 0, 0)
    info.localRot = Gf.Quatf(1, 0, 0, 0)
    info.centerOfMass = Gf.Vec3f(0, 0, 0)
    extent = None
    if prim.IsA(UsdGeom.Cube):
        size = UsdGeom.Cube(prim).GetSizeAttr().Get() or 2.0
        extent = (size, size, size)
    elif prim.IsA(UsdGeom.Sphere):
        r = UsdGeom.Sphere(prim).GetRadiusAttr().Get() or 1.0
        volume = 4.0 / 3.0 * math.pi * r ** 3
        i = 0.4 * volume * r * r
        info.volume = volume
        info.inertia = Gf.Matrix3f(i, 0, 0, 0, i, 0, 0, 0, i)
        return info
    elif prim.IsA(UsdGeom.Boundable):
        bound = UsdGeom.Boundable(prim).ComputeLocalBound(Usd.TimeCode.Default(), UsdGeom.Tokens.default_)
        box = bound.ComputeAlignedRange()
        if not box.IsEmpty():
            size = box.GetSize()
            extent = (size[0], size[1], size[2])
            info.centerOfMass = Gf.Vec3f(box.GetMidpoint())
    if extent is None:
        info.volume = 0.0
        info.inertia = Gf.Matrix3f(0.0)
        return info
    x, y, z = extent
    volume = x * y * z
    info.volume = volume
    info.inertia = Gf.Matrix3f(volume * (y * y + z * z) / 12, 0, 0, 0, volume * (x * x + z * z) / 12, 0, 0, 0,
                               volume * (x * x + y * y) / 12)
    return info


def body_pose(position: Gf.Vec3f, rotation: Gf.Quatf) -> tuple[tuple, tuple]:
    """A rigid body's world position and orientation (w, x, y, z) as the rigid-body block holds them."""
    return tuple(position[:]), (float(rotation.GetReal()), *rotation.GetImaginary()[:])


def transform_pose(transform: Gf.Transform) -> tuple[tuple, tuple]:
    """body_pose from a prim's world transform, as UsdPhysics derives a body's (_GetRigidBodyTransformation: the
    GfTransform of its local-to-world matrix, translation and rotation in single precision)."""
    return body_pose(Gf.Vec3f(transform.GetTranslation()), Gf.Quatf(transform.GetRotation().GetQuat()))


def rigid_body_block(prim: Usd.Prim, desc, sink: DiagnosticSink, units: StageUnits) -> Block:
    """Mass, centre of mass, inertia and principal axes (UsdPhysics' computation), the body's world pose, and
    the PhysX actor settings of PhysxRigidBodyAPI (damping, velocity limits, solver iterations, ...)."""
    block = Block(schema_name=RIGID_BODY, path=str(prim.GetPath()))
    api = UsdPhysics.RigidBodyAPI(prim)
    mass_api = UsdPhysics.MassAPI(prim)
    authored = prim.HasAPI(UsdPhysics.MassAPI) and all(
        a.HasAuthoredValue() for a in (mass_api.GetMassAttr(), mass_api.GetCenterOfMassAttr(), mass_api.GetDiagonalInertiaAttr()))
    said = _check_mass_attributes(prim, sink)
    try:
        mass, inertia, com, axes = api.ComputeMassProperties(shape_mass_information)
    except Exception as exc:  # noqa: BLE001
        sink.error("MASS", str(prim.GetPath()), f"mass properties could not be computed: {exc}")
        mass, inertia, com, axes = 0.0, Gf.Vec3f(0), Gf.Vec3f(0), Gf.Quatf(1)
    computed = (float(mass), *inertia[:], *com[:], float(axes.GetReal()), *axes.GetImaginary()[:])
    if not said and not all(math.isfinite(c) for c in computed):
        sink.error("MASS", str(prim.GetPath()), f"the computed mass properties are not finite (mass {float(mass)!r}, "
                   f"inertia {tuple(inertia[:])!r}, centre of mass {tuple(com[:])!r}): a collider or a MassAPI below the "
                   "vehicle authors a non-finite value; the vehicle is left out")
    source = Source.AUTHORED if authored else Source.COMPUTED
    # Gf vectors are read by slicing (a list of floats): iterating one costs ~14 us through Python's old
    # sequence protocol, and a reader of 10,000 vehicles does this 60,000 times.
    block.set("mass", float(mass), source)
    block.set("centerOfMass", tuple(com[:]), source)
    block.set("diagonalInertia", tuple(inertia[:]), source)
    im = axes.GetImaginary()
    block.set("principalAxes", (float(axes.GetReal()), *im[:]), source)
    if desc is not None:
        position, orientation = body_pose(desc.position, desc.rotation)
        block.set("position", position, Source.AUTHORED)
        block.set("orientation", orientation, Source.AUTHORED)
        block.set("scale", tuple(desc.scale[:]), Source.AUTHORED)
        block.set("linearVelocity", tuple(desc.linearVelocity[:]), Source.AUTHORED)
        block.set("angularVelocity", tuple(desc.angularVelocity[:]), Source.AUTHORED)
    _physx_actor_settings(prim, block, sink, units)
    return block


# MassAPI attributes on the vehicle body: (name, arity, lowest accepted component, the schema's "not set" value).
# A negative or non-finite value has no meaning; UsdPhysics would treat it as unset (mass and density not > 0) or
# carry it into the body (+inf mass, a NaN inertia), so it is an error here, named with its property, and the
# vehicle is left out rather than simulated with a replacement the author never chose.
_MASS_ATTRIBUTES = (("physics:mass", 1, 0.0, None), ("physics:density", 1, 0.0, None),
                    ("physics:diagonalInertia", 3, 0.0, None), ("physics:centerOfMass", 3, None, (-math.inf,) * 3),
                    ("physics:principalAxes", 4, None, (0.0,) * 4))


def _check_mass_attributes(prim: Usd.Prim, sink: DiagnosticSink) -> bool:
    """Report the vehicle body's unusable MassAPI values; True when any was reported."""
    path, authored = ComponentReader.prim_info(prim)
    start = len(sink.items)
    for name, arity, lowest, unset in _MASS_ATTRIBUTES:
        if name not in authored:
            continue
        try:
            value = prim.GetAttribute(name).Get()
        except Exception as exc:  # noqa: BLE001 - a malformed value is the asset's problem
            sink.error("VALUE", path, f"value cannot be read: {exc}; the vehicle is left out", name)
            continue
        if value is None:
            continue
        if isinstance(value, (Gf.Quatf, Gf.Quatd, Gf.Quath)):
            components = (float(value.GetReal()), *value.GetImaginary()[:])
        elif arity == 1 and isinstance(value, (int, float)) and not isinstance(value, bool):
            components = (float(value),)
        elif arity > 1 and not isinstance(value, (str, bool)) and hasattr(value, "__len__") and len(value) == arity:
            components = tuple(float(c) for c in value[:])
        else:
            sink.error("TYPE", path, f"authored value {value!r:.60} does not have the schema's type; the vehicle is "
                       "left out", name)
            continue
        if unset is not None and components == unset:
            continue
        shown = components[0] if arity == 1 else components
        if not all(math.isfinite(c) for c in components):
            sink.error("NONFINITE", path, f"value {shown!r} is not finite; the vehicle is left out", name)
        elif lowest is not None and any(c < lowest for c in components):
            sink.error("MASS_RANGE", path, f"value {shown!r} is negative; UsdPhysics would ignore it and compute the "
                       "mass from the colliders' density (1000 kg/m^3 by default); the vehicle is left out", name)
    return len(sink.items) > start


@lru_cache(maxsize=None)
def _row_fallback(row: P.Prop, meters_per_unit: float, kilograms_per_unit: float):
    return P.si_to_stage(row, row.default, StageUnits(meters_per_unit, kilograms_per_unit))


def _physx_api_settings(prim: Usd.Prim, block: Block, sink: DiagnosticSink, units: StageUnits, api: str,
                        namespace: str, rows, attribute, api_code: str) -> bool:
    """The values of one of NVIDIA's applied APIs (rows of the property table) as omni.physx reads them into `block`;
    whether the API is applied.

    A value omni.physx changes (clamped into its range, an infinity to the bound, NaN to the upper bound, as its
    attribute helper does) or ignores (the API not applied, a wrong type) is reported with what is used instead."""
    path = str(prim.GetPath())
    # the type info lists API schemas whether or not their schema is registered (NVIDIA's need not be here)
    applied = api in prim.GetPrimTypeInfo().GetAppliedAPISchemas()
    # one look at what the prim authors in the namespace, not an attribute look-up per row (a fleet reads this per car)
    authored = {a.GetName(): a for a in prim.GetAuthoredPropertiesInNamespace(namespace)
                if isinstance(a, Usd.Attribute) and a.HasAuthoredValue()}
    for row in rows:
        name = attribute(row.base)
        fallback = _row_fallback(row, units.meters_per_unit, units.kilograms_per_unit)
        attr = authored.get(name)
        if attr is None:
            block.set(row.base, fallback, Source.DEFAULT)
            continue
        value = attr.Get()
        if not applied:
            sink.warning(api_code, path, f"authored without {api} applied: omni.physx ignores it and uses "
                         f"{fallback!r}", name)
            block.set(row.base, fallback, Source.DEFAULT)
            continue
        expected = type(row.default)
        if expected is str:  # a token: one of the row's, else omni.physx keeps its default
            if str(value) in row.tokens:
                block.set(row.base, str(value), Source.AUTHORED)
            else:
                sink.warning(row.range_code, path, f"{value!r} is not one of {', '.join(row.tokens)}; omni.physx "
                             f"uses {fallback!r}", name)
                block.set(row.base, fallback, Source.DEFAULT)
            continue
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if (expected is bool and not isinstance(value, bool)) or (expected is not bool and not numeric) or (
                expected is int and not float(value).is_integer()):
            sink.warning("TYPE", path, f"expected a {expected.__name__}, got {value!r}; omni.physx uses {fallback!r}",
                         name)
            block.set(row.base, fallback, Source.DEFAULT)
            continue
        if expected is bool:
            block.set(row.base, bool(value), Source.AUTHORED)
            continue
        if row.base == "maxAngularVelocity":
            value = math.radians(value)
        lo, hi = row.range.lo, row.range.hi
        used = lo if value < lo else (value if value <= hi else hi)  # NaN compares false: the upper bound
        if used != value or math.isnan(value):
            sink.warning(row.range_code, path, f"{attr.Get()!r} is outside [{lo:g}, {hi:g}]; omni.physx clamps it to "
                         f"{used!r}", name)
            block.set(row.base, expected(used), Source.DEFAULT)
        else:
            block.set(row.base, expected(value), Source.AUTHORED)
    return applied


def physx_scene_settings(prim: Usd.Prim | None, block: Block, sink: DiagnosticSink, units: StageUnits) -> None:
    """PhysxSceneAPI's contact thresholds and solver as omni.physx hands them to the scene (see the property table's
    rows); the
    defaults where there is no scene prim."""
    if prim is None or not prim.IsValid():
        for row in P.PHYSX_SCENE_ROWS:
            block.set(row.base, _row_fallback(row, units.meters_per_unit, units.kilograms_per_unit), Source.DEFAULT)
        return
    _physx_api_settings(prim, block, sink, units, "PhysxSceneAPI", P.PHYSX_SCENE, P.PHYSX_SCENE_ROWS,
                        P.physx_scene_attribute, "SCENE_API")


def _physx_actor_settings(prim: Usd.Prim, block: Block, sink: DiagnosticSink, units: StageUnits) -> None:
    """PhysxRigidBodyAPI's values as omni.physx hands them to the actor (see the property table's rows)."""
    applied = _physx_api_settings(prim, block, sink, units, "PhysxRigidBodyAPI", P.PHYSX_RIGID_BODY,
                                  P.PHYSX_RIGID_BODY_ROWS, P.physx_rigid_body_attribute, "RB_API")
    if applied and not block["disableGravity"]:
        sink.warning("RB_GRAVITY", str(prim.GetPath()), "vehicle rigid bodies need gravity disabled (vehicle2 applies it); omni.physx "
                     "disables it on this actor and warns", P.physx_rigid_body_attribute("disableGravity"))
