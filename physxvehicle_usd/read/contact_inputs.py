"""The values a collider, its mesh, its physics material and its collision group author, checked before anything is
built from them, as the vehicle's own values are (read/values.py): every value PhysX could not use is said with a
rule code naming its prim and property, and what the reader does instead (the collider or material left out).

UsdPhysics' parse quietly mends some of these (a negative size or radius becomes its magnitude, a zero scale 1e-10)
and passes the rest on (NaN sizes, indices past the points); PhysX then cooks nothing, or collides a shape the author
never drew. So the authored attributes are asked here, not UsdPhysics' descriptions.

Codes: CONTACT_MESH (a mesh's points, indices or face counts), CONTACT_HULL (a convex approximation's points that
span no volume), CONTACT_SIZE (a cube's size, a sphere's, capsule's or cylinder's radius or height), CONTACT_XFORM (a
collider's transform: a non-finite or zero-scale transform op on it or above it), MATERIAL_RANGE (a material's
friction or restitution), COMBINE_MODE (a combine mode token), MATERIAL_API (a PhysxMaterialAPI value authored without
the API), COLLISION_GROUP (a filtered group that is no collision group), CONTACT_AXIS (a capsule's or cylinder's axis
token), TYPE (a group's invertFilteredGroups that is no bool).
"""
from __future__ import annotations

import math
from typing import Iterator

import numpy as np
from pxr import Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..diagnostics import DiagnosticSink
from . import pxr_unchecked as U

Problem = tuple[str, str, str]  # (code, property, what is wrong)

# the size attributes of UsdGeom's simple shapes, by UsdPhysics shape kind: PhysX needs each finite and above zero
# (a capsule's height may be 0: PxCapsuleGeometry takes a half height of 0, a sphere)
_SIZES = {"CubeShape": (("size", 0.0),), "SphereShape": (("radius", 0.0),),
          "CapsuleShape": (("radius", 0.0), ("height", None)), "CylinderShape": (("radius", 0.0), ("height", 0.0))}
_CONVEX = ("convexHull", "convexDecomposition", "boundingCube", "boundingSphere", "sphereFill")
# the approximations omni.physx knows (usdLoad/Collision.cpp); any other token makes no shape, and it logs an error
_APPROXIMATIONS = ("none", "meshSimplification", "sdf", *_CONVEX)
_AXES = ("X", "Y", "Z")
# a hull's points span a volume when their spread along the thinnest direction is above this share of the widest
_FLAT = 1e-6


def _value(prim: Usd.Prim, name: str):
    attr = U.get_attribute(prim, name)  # unbound (read/pxr_unchecked.py): asked of every collider and group
    return U.get_value(attr) if attr and _has_authored_value(attr) else None


_has_authored_value = Usd.Attribute.HasAuthoredValue


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def size_problems(prim: Usd.Prim, kind: str) -> Iterator[Problem]:
    """A simple shape's authored size, radius or height that is not finite or not above zero."""
    for name, above in _SIZES.get(kind, ()):
        value = _value(prim, name)
        if value is None:
            continue
        if not _number(value) or not math.isfinite(value):
            yield "CONTACT_SIZE", name, f"{value!r} is not a finite number"
        elif above is not None and value <= above:
            mended = f" (UsdPhysics would take {abs(value)!r})" if value < 0 else ""
            yield "CONTACT_SIZE", name, f"{value!r} is not above 0{mended}"
        elif above is None and value < 0:
            yield "CONTACT_SIZE", name, f"{value!r} is negative (UsdPhysics would take {abs(value)!r})"


def transform_problems(prim: Usd.Prim, mirrors: bool) -> Iterator[tuple[Usd.Prim, str, str]]:
    """(prim, property, what is wrong) of the first transform op, on the collider or a prim above it, that is not
    finite or scales an axis by zero (a shape of no size), or for a shape that does not mirror (`mirrors` False: a
    box, sphere, capsule or cylinder; PhysX mirrors a mesh by its mesh scale) by less than zero."""
    while prim and not prim.IsPseudoRoot():
        xformable = UsdGeom.Xformable(prim)
        for op in xformable.GetOrderedXformOps() if xformable else ():
            value = op.Get()
            if value is None:
                continue
            components = np.array([float(value)]) if _number(value) else np.asarray(value, dtype=float).ravel()
            if not np.isfinite(components).all():
                yield prim, op.GetAttr().GetName(), f"{_shown(value)} is not finite"
                return
            bad = (components == 0.0) if mirrors else (components <= 0.0)
            if op.GetOpType() == UsdGeom.XformOp.TypeScale and bad.any():
                needed = "non-zero scale on every axis of a mesh" if mirrors else \
                    "positive scale on every axis of a box, sphere, capsule or cylinder"
                yield prim, op.GetAttr().GetName(), f"scale {_shown(value)} has a component at " \
                    f"{'' if mirrors else 'or below '}0: PhysX needs a {needed}"
                return
        prim = prim.GetParent()


def _shown(value) -> str:
    return repr(tuple(float(c) for c in value)) if hasattr(value, "__len__") else repr(value)


def _array(prim: Usd.Prim, name: str, dtype, width: int) -> tuple[np.ndarray | None, Problem | None]:
    """A mesh's array attribute as numbers (empty where unauthored), or the problem that it is not such an array."""
    value = prim.GetAttribute(name).Get() if prim.GetAttribute(name) else None
    if value is None:
        return np.zeros((0, width) if width > 1 else 0, dtype), None
    kind = "points" if width > 1 else "integers"
    try:
        array = np.asarray(value)
        if array.dtype.kind not in ("f" if width > 1 else "iu") or array.size % width:
            raise TypeError(kind)
        return array.astype(dtype).reshape(-1, width) if width > 1 else array.astype(dtype).reshape(-1), None
    except (TypeError, ValueError):
        return None, ("CONTACT_MESH", name, f"{_shown_value(value)} is not an array of {kind}")


def _shown_value(value) -> str:
    return f"{value!r:.60}"


def mesh_problems(prim: Usd.Prim, convex: bool) -> Iterator[Problem]:
    """A mesh collider's points, face vertex indices and counts that PhysX could not cook: not arrays of numbers,
    points not finite, an index outside the points, a negative count or a face of fewer than three vertices, counts
    that do not add up to the indices; a convex approximation's points too few, or spanning no volume."""
    points, problem = _array(prim, "points", float, 3)
    indices, problem_i = _array(prim, "faceVertexIndices", np.int64, 1)
    counts, problem_c = _array(prim, "faceVertexCounts", np.int64, 1)
    typed = [p for p in (problem, problem_i, problem_c) if p is not None]
    if typed:
        yield from typed
        return
    bad = ~np.isfinite(points).all(axis=1)
    if bad.any():
        yield "CONTACT_MESH", "points", f"{int(bad.sum())} of {len(points)} points are not finite (the first: point " \
            f"{int(np.argmax(bad))}, {tuple(points[int(np.argmax(bad))])})"
        return
    outside = (indices < 0) | (indices >= len(points))
    if outside.any():
        k = int(np.argmax(outside))
        yield "CONTACT_MESH", "faceVertexIndices", f"{int(outside.sum())} indices are outside the {len(points)} " \
            f"points (the first: index {int(indices[k])} at {k})"
    if (counts < 0).any():
        yield "CONTACT_MESH", "faceVertexCounts", f"a negative face count ({int(counts.min())})"
    elif (counts < 3).any():
        yield "CONTACT_MESH", "faceVertexCounts", f"{int((counts < 3).sum())} faces have fewer than 3 vertices"
    elif int(counts.sum()) != len(indices):
        yield "CONTACT_MESH", "faceVertexCounts", f"the face counts add up to {int(counts.sum())} vertices, but " \
            f"there are {len(indices)} face vertex indices"
    if convex:
        if len(points) < 4:
            yield "CONTACT_HULL", "points", f"{len(points)} points: a convex hull needs at least 4 not in one plane"
        elif _flat(points):
            yield "CONTACT_HULL", "points", f"the {len(points)} points lie in a plane (or on a line): their convex " \
                "hull has no volume"
    elif not len(points) or not len(counts):
        yield "CONTACT_MESH", "points" if not len(points) else "faceVertexCounts", "the triangle mesh has no " \
            + ("points" if not len(points) else "faces")


def _flat(points: np.ndarray) -> bool:
    spread = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
    return not spread[0] > 0.0 or spread[2] <= _FLAT * spread[0]


def _placed(desc, mirrors: bool) -> bool:
    """Whether UsdPhysics' placement of a collider is finite with a positive scale (a mesh's: non-zero; UsdPhysics
    makes a zero scale 1e-10): most colliders are, and their transform ops need no look."""
    scale = desc.localScale[:]
    rotation = desc.localRot
    pose = (*desc.localPos[:], *scale, rotation.GetReal(), *rotation.GetImaginary()[:])
    # all finite, then the smallest (absolute) scale: a NaN has been refused by then
    return all(map(math.isfinite, pose)) and min(map(abs, scale) if mirrors else scale) > 1e-9


def check_collider(prim: Usd.Prim, desc, kind: str, sink: DiagnosticSink) -> bool:
    """Say every unusable value of one collider (desc: UsdPhysics' shape description of it; an error each: the
    collider is left out of the contacts, as PhysX would make no shape of it); whether it is usable."""
    path = str(prim.GetPath())
    approximation = str(desc.approximation) if kind == "MeshShape" else None
    problems = [(path, code, name, message) for code, name, message in size_problems(prim, kind)]
    if kind == "MeshShape" and approximation not in _APPROXIMATIONS:
        problems.append((path, "CONTACT_MESH", UsdPhysics.Tokens.physicsApproximation, f"{approximation!r} is none of "
                         f"omni.physx's approximations ({', '.join(_APPROXIMATIONS)}): it makes no shape of the mesh"))
    elif kind == "MeshShape":
        problems += [(path, code, name, message)
                     for code, name, message in mesh_problems(prim, approximation in _CONVEX)]
    axis = _value(prim, "axis") if kind in ("CapsuleShape", "CylinderShape", "ConeShape") else None
    if axis is not None and str(axis) not in _AXES:
        sink.warning("CONTACT_AXIS", path, f"{axis!r} is not X, Y or Z: UsdPhysics (and so omni.physx) takes X",
                     "axis")
    mirrors = kind == "MeshShape"
    if not _placed(desc, mirrors):
        # where none of the ops says why (a mirroring matrix op, ...), UsdPhysics' placement does
        scaled = "0" if mirrors else "0 or less"
        placement = list(transform_problems(prim, mirrors)) or [
            (prim, None, f"UsdPhysics places it at {tuple(desc.localPos)} with scale {tuple(desc.localScale)}: not "
                         f"finite, or an axis scaled by {scaled}")]
        for owner, name, message in placement:
            above = "" if owner == prim else f" (above the collider {path})"
            problems.append((str(owner.GetPath()), "CONTACT_XFORM", name, message + above))
    for where, code, name, message in problems:
        sink.error(code, where, f"{message}; the collider {'' if where == path else path + ' '}is left out of the "
                   "contacts", name)
    return not problems


def check_material(prim: Usd.Prim, sink: DiagnosticSink) -> bool:
    """Say a material's friction or restitution outside its P.MATERIAL row's range (PxMaterial: friction in
    [0, FLT_MAX), restitution at most 1, a negative one being PhysX's compliant-contact stiffness, which the simulator
    does not model) or a negative or non-finite density: errors, and the material is left out (its colliders take
    omni.physx's default material, as the message says); whether it is usable."""
    path, usable = str(prim.GetPath()), True
    for name, accepted in _MATERIAL_RANGES:
        value = _value(prim, name)
        if value is None:
            continue
        if not _number(value) or not math.isfinite(value) or not accepted.accepts(value):
            sink.error("MATERIAL_RANGE", path, f"{value!r} is not a finite number in {accepted.describe()}; the "
                       "material is left out: the colliders bound to it take omni.physx's default material", name)
            usable = False
    return usable


_MATERIAL_RANGES = (*((P.full_name("PhysicsMaterialAPI", row.base), row.range) for row in P.MATERIAL_VALUE_ROWS),
                    ("physics:density", P.NON_NEGATIVE))


def check_groups(stage: Usd.Stage, groups: dict, sink: DiagnosticSink, moved: dict[str, str] | None = None) -> None:
    """Say a collision group's filtered group that is no PhysicsCollisionGroup (PhysX filters with groups only: the
    target filters nothing), and an invertFilteredGroups that is no bool (omni.physx reads no bool from it: not
    inverted).

    moved: a group moved from a copy's (read/collision.py: the same composed group at another copy's root) -> that
    group's path; a moved group whose source was checked here and said nothing says nothing either (its value is the
    source's, its targets the source's moved to it, or the same groups outside the copies)."""
    quiet: set[str] = set()  # the groups checked that said nothing
    for path, group in groups.items():
        source = moved.get(path) if moved else None
        if source is not None and source in quiet:
            continue
        said = False
        inverted = _value(stage.GetPrimAtPath(path), UsdPhysics.Tokens.physicsInvertFilteredGroups)
        if inverted is not None and not isinstance(inverted, bool):
            sink.warning("TYPE", path, f"{_shown_value(inverted)} is not a bool: omni.physx reads the group as not "
                         "inverted", UsdPhysics.Tokens.physicsInvertFilteredGroups)
            said = True
        for target in group.filtered:
            if target in groups:  # a collision group the stage's traversal found: nothing to say
                continue
            prim = stage.GetPrimAtPath(target)
            if not prim:
                sink.warning("COLLISION_GROUP", path, f"filters {target}, which is not on the stage: it filters "
                             "nothing", UsdPhysics.Tokens.physicsFilteredGroups)
                said = True
            elif not prim.IsA(UsdPhysics.CollisionGroup):
                sink.warning("COLLISION_GROUP", path, f"filters {target}, which is no PhysicsCollisionGroup: it "
                             "filters nothing", UsdPhysics.Tokens.physicsFilteredGroups)
                said = True
        if not said:
            quiet.add(path)
