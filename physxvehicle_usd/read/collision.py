"""Collision shapes, their offsets and materials, and collision-group filtering, as omni.physx builds them from
UsdPhysics' parse (`LoadUsdPhysicsFromRange`'s shape descriptions).

A vehicle's own shapes (those whose rigid body is the vehicle's) become `ShapeDescription`s in the vehicle prim's
frame; static shapes become `GroundDescription`s. PhysX meets every shape the simulator collides as a convex polytope
or a plane: a cube is its 8 corners, a cylinder the prism over a regular polygon of CYLINDER_CORNERS corners that
omni.physx cooks for it (the hull its wheel sweeps use too; with omni.physx's approximateCylinders setting off, its
default, PhysX collides an exact cylinder), a mesh with a convex-hull approximation the hull of its points. Spheres
and capsules, the vehicle's and static ones, are read as their cores (a centre, a segment's ends) and radius
(sim/contact/ collides them); cones are said to be not collided.

Filtering: each collider's collision groups are read in omni.physx's order (`groups_of`; the first filters it, as
collision_filter.py applies PhysX's group filtering), and its FilteredPairsAPI targets kept: a vehicle body's join
each of its shapes' (read/__init__.py), a static collider's are kept on its GroundDescription.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np
from pxr import Usd, UsdPhysics

from .. import properties as P
from ..box_corners import box_points
from ..description import Block, CollisionGroupDescription, GroundDescription, Resolved, ShapeDescription, Source
from ..diagnostics import DiagnosticSink
from ..prim_paths import at_or_below
from ..sim import vecmath as vm
from ..units import StageUnits
from . import pxr_unchecked as U

# The offsets omni.physx gives a PxShape when physxCollision:contactOffset is unauthored or -inf (usdLoad/Collision.cpp
# setToDefault, usdInterface/UsdInterface.cpp): a plane its row's default (0.02 m); any other shape 0.02 of its local
# box's smallest side, but at least 2 g dt^2 (the scene's gravity magnitude, at least 1, and its
# physxScene:timeStepsPerSecond step), plus its rest offset where that is positive. Rest offset: its row's default.
_CONTACT_ROW = P.prop(P.COLLISION, "contactOffset")
_REST_ROW = P.prop(P.COLLISION, "restOffset")
CONTACT_OFFSET_PER_SIDE = 0.02
INVALID_OFFSETS_MARGIN = 1e-3  # omni.physx: a contact offset not above the rest offset becomes their sum plus this


@dataclass(frozen=True)
class SceneTolerances:
    """What a shape's computed contact offset depends on in its scene: 2 g dt^2, in stage units."""

    lower_bound: float

    @classmethod
    def of(cls, time_steps_per_second: float, gravity: float) -> "SceneTolerances":
        dt = 1.0 / time_steps_per_second
        return cls(2.0 * dt * dt * max(gravity, 1.0))


PHYSX_COLLISION_API = "PhysxCollisionAPI"  # NVIDIA's schema, read by name: omni.physx reads the offsets only under it
CONTACT_OFFSET = "physxCollision:contactOffset"
REST_OFFSET = "physxCollision:restOffset"
_COLLISION_NAMESPACE = CONTACT_OFFSET.split(":")[0]
CYLINDER_CORNERS = 30  # omni.physx's cylinder hull (PhysXSetup createCylinderConvexMesh), as its wheel sweeps
_AXIS = {"X": 0, "Y": 1, "Z": 2}


def _kind(desc) -> str:
    return str(desc.type).rsplit(".", 1)[-1]


def _axis(desc) -> int:
    """The coordinate axis (0, 1, 2) of a capsule's or cylinder's shape description."""
    return _AXIS[str(desc.axis).rsplit(".", 1)[-1]]


@lru_cache(maxsize=4096)
def cylinder_points(radius: float, half_height: float, axis: int) -> np.ndarray:
    """The corners of omni.physx's cylinder hull: a regular polygon of CYLINDER_CORNERS corners at each end, corner i
    at angle i 2 pi / n from the first of the two other axes (in single precision, as omni.physx makes them).
    Cached, read-only: a vehicle's wheels share one (and a fleet's reader meets the same few)."""
    step = np.float32(2.0) * np.float32(np.pi) / np.float32(CYLINDER_CORNERS)
    theta = step * np.arange(CYLINDER_CORNERS, dtype=np.float32)
    a1, a2 = (i for i in range(3) if i != axis)
    ring = np.zeros((CYLINDER_CORNERS, 3))
    ring[:, a1] = radius * np.cos(theta).astype(float)
    ring[:, a2] = radius * np.sin(theta).astype(float)
    ends = []
    for side in (-1.0, 1.0):
        end = ring.copy()
        end[:, axis] = side * half_height
        ends.append(end)
    return _read_only(np.concatenate(ends))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _quat_matrix(q) -> np.ndarray:
    return _rotation(float(q.GetReal()), *q.GetImaginary()[:])


@lru_cache(maxsize=4096)
def _rotation(w: float, x: float, y: float, z: float) -> np.ndarray:
    """The rotation matrix of a unit quaternion (the simulator's formula, vecmath.quat_to_mat); cached, read-only: most
    shapes are unturned or turned alike."""
    return _read_only(vm.quat_to_mat(np.array([[w], [x], [y], [z]]))[:, :, 0].copy())


_authored_in_namespace = Usd.Prim.GetAuthoredPropertiesInNamespace  # unbound: see read/pxr_unchecked.py


def shape_offsets(prim: Usd.Prim, units: StageUnits, sink: DiagnosticSink, extents: np.ndarray | None,
                  scene: SceneTolerances) -> Block:
    """The P.COLLISION block of a collider: its contact and rest offsets as omni.physx gives them to PhysX (stage
    units), each with its provenance (a derived contact offset is "computed"). extents: the sides of the shape's box
    in its own frame, scaled (None: a plane)."""
    authored = []
    # one namespace query rather than a look-up per attribute (the reader does this for every collider)
    named = {a.GetName(): a for a in _authored_in_namespace(prim, _COLLISION_NAMESPACE)
             if isinstance(a, Usd.Attribute)} if prim else {}
    if not named:  # most colliders author neither offset: the defaults, worked out once per units and side
        rest, contact = _default_offsets(units)
        if extents is not None:
            contact = max(scene.lower_bound, CONTACT_OFFSET_PER_SIDE * float(extents.min())) + max(rest, 0.0)
        return Block(P.COLLISION, None, {"restOffset": Resolved(rest, Source.DEFAULT), "contactOffset": Resolved(
            contact, Source.DEFAULT if extents is None else Source.COMPUTED)})
    applied = PHYSX_COLLISION_API in prim.GetPrimTypeInfo().GetAppliedAPISchemas()
    for name in (CONTACT_OFFSET, REST_OFFSET):
        attr = named.get(name)
        value = attr.Get() if attr is not None and attr.HasAuthoredValue() else None
        if value is not None and not applied:  # usdLoad/Collision.cpp reads them through the API's schema object
            sink.warning("CONTACT_OFFSET", str(prim.GetPath()), f"authored without {PHYSX_COLLISION_API} applied: "
                         "omni.physx ignores it and uses the default", name)
            value = None
        if value is not None and not (isinstance(value, (int, float)) and (math.isfinite(value) or value == -math.inf)):
            sink.warning("CONTACT_OFFSET", str(prim.GetPath()), f"{value!r} is not a finite number; the default is "
                         "used", name)
            value = None
        authored.append(None if value is None or value == _CONTACT_ROW.sentinel else float(value))
    contact, rest = authored
    if contact is not None and contact < 0.0:
        contact = None  # omni.physx reads only 0 and above
    if contact is not None and rest is not None and rest >= contact:
        sink.warning("CONTACT_OFFSET", str(prim.GetPath()), f"rest offset {rest:g} is not below the contact offset "
                     f"{contact:g}; omni.physx then uses the contact offset alone, with rest offset 0", REST_OFFSET)
        rest = None
    block = Block(P.COLLISION, None)  # the record holding it names the collider (a fleet's copies share it)
    if rest is None:
        rest = P.si_to_stage(_REST_ROW, _REST_ROW.default, units)
        block.set("restOffset", rest, Source.DEFAULT)
    else:
        block.set("restOffset", rest, Source.AUTHORED)
    if contact is None and extents is None:
        block.set("contactOffset", P.si_to_stage(_CONTACT_ROW, _CONTACT_ROW.default, units), Source.DEFAULT)
    elif contact is None:
        block.set("contactOffset", max(scene.lower_bound, CONTACT_OFFSET_PER_SIDE * float(extents.min()))
                  + max(rest, 0.0), Source.COMPUTED)
    elif contact <= rest:
        block.set("contactOffset", contact + rest + INVALID_OFFSETS_MARGIN, Source.COMPUTED)
    else:
        block.set("contactOffset", contact, Source.AUTHORED)
    return block


@lru_cache(maxsize=64)
def _default_offsets(units: StageUnits) -> tuple[float, float]:
    """(rest offset, a plane's contact offset) in stage units, where none is authored: their rows' defaults."""
    return P.si_to_stage(_REST_ROW, _REST_ROW.default, units), P.si_to_stage(_CONTACT_ROW, _CONTACT_ROW.default, units)


def collider_material(desc) -> str | None:
    """The physics material a collider's description binds (None: none)."""
    return str(desc.materials[0]) if len(desc.materials) and str(desc.materials[0]) else None


def filtered_targets(desc) -> list[str]:
    """The prims a collider's (or a rigid body's) FilteredPairsAPI keeps it from: shapes, or bodies (every shape
    under one)."""
    return [str(f) for f in desc.filteredCollisions]


def _local_points(stage: Usd.Stage, kind: str, desc) -> np.ndarray | None:
    """A convex shape's points in its own frame with its scale (UsdPhysics' sizes are scaled already)."""
    if kind == "CubeShape":
        return box_points(desc.halfExtents[:])  # sliced: iterating a Gf vector is slow
    if kind == "CylinderShape":
        return cylinder_points(float(desc.radius), float(desc.halfHeight), _axis(desc))
    if kind == "MeshShape" and str(desc.approximation) in ("convexHull", "convexDecomposition", "boundingCube"):
        from pxr import UsdGeom

        points = np.asarray(UsdGeom.Mesh(stage.GetPrimAtPath(desc.primPath)).GetPointsAttr().Get() or [], dtype=float)
        if str(desc.approximation) == "boundingCube" and len(points):
            lo, hi = points.min(axis=0), points.max(axis=0)
            points = box_points((hi - lo) / 2) + (hi + lo) / 2
        return points.reshape(-1, 3) * np.asarray(desc.meshScale, dtype=float)
    return None


def _extents(kind: str, desc, points: np.ndarray | None) -> np.ndarray:
    """The sides of a shape's box in its own frame, scaled, as PhysX bounds its geometry."""
    if points is not None and len(points):
        return np.ptp(points, axis=0)
    radius = float(getattr(desc, "radius", 0.0))
    if kind == "CapsuleShape":
        return np.array([2.0 * radius, 2.0 * radius, 2.0 * (float(desc.halfHeight) + radius)])
    return np.full(3, 2.0 * radius)


def vehicle_shape(stage: Usd.Stage, desc, units: StageUnits, sink: DiagnosticSink,
                  scene: SceneTolerances, prim: Usd.Prim | None = None) -> ShapeDescription | None:
    """A shape of a vehicle's body in the vehicle prim's frame (None: a kind no contact is made for, said).
    prim: the collider's (its path's prim when not given)."""
    kind = _kind(desc)
    path = str(desc.primPath)
    if prim is None:
        prim = stage.GetPrimAtPath(path)
    # groups: load_physics fills them in, in omni.physx's order (groups_of)
    common = dict(material=collider_material(desc),
                  filtered=filtered_targets(desc))
    if kind in ("CubeShape", "CylinderShape"):  # a fleet's copies of one car meet the same few: worked out once each
        sizes = tuple(desc.halfExtents[:]) if kind == "CubeShape" else \
            (float(desc.radius), float(desc.halfHeight), _axis(desc))
        points, extents, cylinder = _placed_convex(kind, sizes, tuple(desc.localPos[:]), float(desc.localRot.GetReal()),
                                                   tuple(desc.localRot.GetImaginary()[:]))
        offsets = shape_offsets(prim, units, sink, extents, scene)
        if cylinder is not None:
            cylinder = dict(radius=cylinder[0], cylinderEnds=[list(cylinder[1]), list(cylinder[2])])
        return ShapeDescription(path, "convex", [list(p) for p in points], offsets=offsets, **(cylinder or {}),
                                **common)
    rotation = _quat_matrix(desc.localRot)
    origin = np.asarray(desc.localPos, dtype=float)
    points = _local_points(stage, kind, desc)
    offsets = shape_offsets(prim, units, sink, _extents(kind, desc, points), scene)
    if points is not None and len(points) >= 4:
        return ShapeDescription(path, "convex", (points @ rotation.T + origin).tolist(), offsets=offsets, **common)
    if kind == "SphereShape":
        return ShapeDescription(path, "sphere", [origin.tolist()], radius=float(desc.radius), offsets=offsets,
                                **common)
    if kind == "CapsuleShape":
        axis = rotation[:, _axis(desc)] * float(desc.halfHeight)
        return ShapeDescription(path, "capsule", [(origin - axis).tolist(), (origin + axis).tolist()],
                                radius=float(desc.radius), offsets=offsets, **common)
    sink.warning("CONTACT_SHAPE", path, f"a {kind} on a vehicle's body is not collided by the simulator (boxes, "
                 "cylinders, convex-hull meshes, spheres and capsules are)")
    return None


@lru_cache(maxsize=4096)
def _placed_convex(kind: str, sizes: tuple, position: tuple, real: float, imaginary: tuple) -> tuple:
    """A box's or cylinder's points in its body's frame (as tuples), the sides of its own box (read-only), and for a
    cylinder (radius, one cap centre, the other) in that frame, else None. sizes: a box's half extents, a cylinder's
    (radius, half height, axis); position, real, imaginary: its pose in the body's frame. Cached: a fleet's copies of
    one car give the same few; the callers make fresh lists of the points."""
    if kind == "CubeShape":
        local = box_points(sizes)
    else:
        local = cylinder_points(*sizes)
    rotation = _rotation(real, *imaginary)
    origin = np.asarray(position, dtype=float)
    points = tuple(map(tuple, (local @ rotation.T + origin).tolist()))
    cylinder = None
    if kind == "CylinderShape":  # the exact cylinder omni.physx gives PhysX (PxConvexCoreGeometry) by default
        radius, half_height, axis_index = sizes
        axis = rotation[:, axis_index] * half_height
        cylinder = (radius, tuple((origin - axis).tolist()), tuple((origin + axis).tolist()))
    return points, _read_only(np.ptp(local, axis=0)), cylinder


def static_shape(stage: Usd.Stage, desc, transform: list[list[float]], units: StageUnits, sink: DiagnosticSink,
                 scene: SceneTolerances) -> GroundDescription | None:
    """A static collider other than a plane or a triangle mesh: its points in its prim's frame (unscaled: the
    transform carries the scale); a sphere or capsule as its core (centre, segment ends) and its radius as UsdPhysics
    scales it (PhysX's round shapes carry no scale)."""
    kind = _kind(desc)
    path = str(desc.primPath)
    prim = stage.GetPrimAtPath(path)
    scale = np.asarray(desc.localScale, dtype=float)
    # UsdPhysics scaled the sizes (a mesh's points by its meshScale, the same world scale); the transform scales again
    unscale = np.where(scale != 0.0, scale, 1.0)
    common = dict(path=path, transform=transform, material=collider_material(desc), filtered=filtered_targets(desc))
    if kind in ("SphereShape", "CapsuleShape"):
        offsets = shape_offsets(prim, units, sink, _extents(kind, desc, None), scene)
        core = [[0.0, 0.0, 0.0]]
        if kind == "CapsuleShape":
            end = _core_end(desc, unscale)
            core = [(0.0 - end).tolist(), end.tolist()]
        return GroundDescription(kind="sphere" if kind == "SphereShape" else "capsule", points=core,
                                 radius=float(desc.radius), offsets=offsets, **common)
    points = _local_points(stage, kind, desc)
    if points is None or len(points) < 4:
        sink.warning("CONTACT_SHAPE", path, f"a static {kind} is not collided by the simulator (planes, triangle "
                     "meshes, boxes, cylinders, convex-hull meshes, spheres and capsules are)")
        return None
    offsets = shape_offsets(prim, units, sink, _extents(kind, desc, points), scene)
    cylinder = {}
    if kind == "CylinderShape":  # the exact cylinder omni.physx gives PhysX (PxConvexCoreGeometry) by default
        end = _core_end(desc, unscale)
        cylinder = dict(radius=float(desc.radius), cylinderEnds=[(0.0 - end).tolist(), end.tolist()])
    return GroundDescription(kind="convex", points=(points / unscale).tolist(), offsets=offsets, **cylinder,
                             **common)


def _core_end(desc, unscale: np.ndarray) -> np.ndarray:
    """The +axis end of a static capsule's segment or a cylinder's cap centre in its prim's frame, unscaled (the
    transform scales it; `unscale`: the scale UsdPhysics applied, 1 where 0)."""
    axis, end = _axis(desc), np.zeros(3)
    end[axis] = float(desc.halfHeight) / unscale[axis]
    return end


# a prim path -> (the root of the copy of an asset it lies in, the root of that asset's first copy, of its second):
# read/copies.py Fleet.copy_roots; None where it lies in no copy that shares
CopyRoots = Callable[[str], "tuple[str, str, str] | None"]


# the root of a third or further copy of an asset whose copies share (read/copies.py Fleet.shared_copy) -> the roots of
# its first and second copies; None for any other prim path
SharedCopy = Callable[[str], "tuple[str, str] | None"]


@dataclass
class CollisionGroups:
    """The stage's collision groups as `read_collision_groups` finds them, each dict in traversal order."""

    groups: dict[str, CollisionGroupDescription]
    members: dict[str, set[str]]  # each group's colliders
    moved: dict[str, str]  # a group moved from a first copy's (the same composed group) -> that group's path
    childless: list[str]  # the groups without child prims, in the order of `groups`


def collision_groups(stage: Usd.Stage, copies: CopyRoots | None = None) -> tuple[
        dict[str, CollisionGroupDescription], dict[str, set[str]]]:
    """Every PhysicsCollisionGroup (what it filters, whether inverted) and the colliders of each
    (read_collision_groups)."""
    found = read_collision_groups(stage, copies)
    return found.groups, found.members


def read_collision_groups(stage: Usd.Stage, copies: CopyRoots | None = None,
                          shared_copy: SharedCopy | None = None) -> CollisionGroups:
    """Every PhysicsCollisionGroup (what it filters, whether inverted), the colliders of each, and which have child
    prims.

    copies: a group in a copy of an asset is its first copy's group moved to the copy (`_CopiedGroups`), as USD
    composes the same group at every copy; the second copy's is worked out in full and must be the moved one.
    shared_copy: where every group of a first copy moves and the second copy's groups are those moved, a further
    copy's subtree is not traversed: its groups are the first copy's moved, in their order."""
    groups: dict[str, CollisionGroupDescription] = {}
    members: dict[str, set[str]] = {}
    moved: dict[str, str] = {}
    childless: list[str] = []
    copied = _CopiedGroups()
    # whether a type name is a collision group's, asked of IsA once per type name (a typed schema's IsA depends on
    # the prim's type alone): IsA on every prim of a 10,000-car stage costs six times its type name
    is_group: dict[str, bool] = {}
    all_children = Usd.Prim.GetAllChildren  # unbound (read/pxr_unchecked.py): prims the traversal gave
    # instance proxies too: a referenced asset made instanceable keeps its groups, and PhysX filters with them
    iterator = iter(Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies()))
    for prim in iterator:
        type_name = U.get_type_name(prim)
        known = is_group.get(type_name)
        if known is None:
            known = is_group[type_name] = bool(prim.IsA(UsdPhysics.CollisionGroup))
        path = str(U.get_path(prim)) if known or shared_copy is not None else None
        if known:
            roots = copies(path) if copies is not None else None
            if roots is None or not copied.move(path, roots, groups, members, moved, childless):
                collection = UsdPhysics.CollisionGroup(prim).GetCollidersCollectionAPI()
                query = collection.ComputeMembershipQuery()
                members[path] = {str(p) for p in Usd.ComputeIncludedPathsFromCollection(query, stage)}
                # the schema's attribute and relationship, asked of the prim by name (unbound: thousands in a fleet)
                inverted = U.get_value(U.get_attribute(prim, _INVERTED))  # no bool (said: contact_inputs): not inverted
                groups[path] = CollisionGroupDescription(
                    path, sorted(map(str, U.get_targets(U.get_relationship(prim, _FILTERED)))),
                    inverted if isinstance(inverted, bool) else False)
                leaf = not all_children(prim)
                if leaf:
                    childless.append(path)
                if roots is not None:
                    copied.note(collection, path, roots, groups[path], members[path], leaf)
        if shared_copy is not None:
            first_and_second = shared_copy(path)
            if first_and_second is not None and copied.move_below(path, *first_and_second, groups, members, moved,
                                                                  childless):
                iterator.PruneChildren()
    return CollisionGroups(groups, members, moved, childless)


class _CopiedGroups:
    """The collision groups of the first copy of an asset, relative to its root, and whether the second copy's are
    them moved to its root (then every further copy's are moved too, without asking USD: a collection's membership
    query costs ~20 us, and a fleet of 10,000 cars holds 20,000 groups).

    A first copy's group is moved only where its collection names nothing outside the copy: no membership
    expression, no include-root, every member at or below the copy's root (a filtered group outside it, a stage's
    shared group, stays as it is)."""

    def __init__(self) -> None:
        # a first copy's group path -> [verified by the second copy (None: not yet), members' tails below the root,
        # filtered groups as (below the root, tail or path), inverted, whether it has no child prims]
        self.known: dict[str, list] = {}
        # a first or second copy's root -> the tails of its groups below the root, in traversal order
        self.below: dict[str, list[str]] = {}
        self.unmoved: set[str] = set()  # first copies' roots with a group that is not moved

    def move(self, path: str, roots: tuple[str, str, str], groups: dict, members: dict, moved: dict,
             childless: list) -> bool:
        """Whether the group at `path` was moved from its first copy's (into `groups`, `members`, `moved` and
        `childless`)."""
        root, first, second = roots
        if root == first or root == second:
            return False
        source = first + path[len(root):]
        entry = self.known.get(source)
        if entry is None or entry[0] is not True:
            return False
        members[path], groups[path] = self._moved(entry, root, path)
        moved[path] = source
        if entry[4]:
            childless.append(path)
        return True

    def move_below(self, root: str, first: str, second: str, groups: dict, members: dict, moved: dict,
                   childless: list) -> bool:
        """Whether the groups below a further copy's root were all moved from its first copy's, in their order: where
        the first copy's all move, the second copy's were verified the moved ones, and the two have the same."""
        tails = self.below.get(first, [])
        if first in self.unmoved or self.below.get(second, []) != tails or any(
                self.known[first + tail][0] is not True for tail in tails):
            return False
        for tail in tails:
            self.move(root + tail, (root, first, second), groups, members, moved, childless)
        return True

    def note(self, collection: Usd.CollectionAPI, path: str, roots: tuple[str, str, str],
             group: CollisionGroupDescription, found: set[str], childless: bool) -> None:
        """A group worked out in full: a first copy's is kept relative to its root, a second copy's checks it."""
        root, first, second = roots
        if path != root and root in (first, second):
            self.below.setdefault(root, []).append(path[len(root):])
        if root == first:
            expression = collection.GetMembershipExpressionAttr()
            if (expression and expression.HasAuthoredValue()) or collection.GetIncludeRootAttr().Get() \
                    or not all(at_or_below(m, root) for m in found):
                self.unmoved.add(root)
                return
            size = len(root)
            filtered = [(True, t[size:]) if at_or_below(t, root) else (False, t) for t in group.filtered]
            self.known[path] = [None, [m[size:] for m in found], filtered, group.inverted, childless]
        elif root == second:
            entry = self.known.get(first + path[len(root):])
            if entry is not None and entry[0] is None:
                moved_members, moved_group = self._moved(entry, root, path)
                entry[0] = moved_members == found and moved_group == group and entry[4] == childless

    @staticmethod
    def _moved(entry: list, root: str, path: str) -> tuple[set[str], CollisionGroupDescription]:
        _, tails, filtered, inverted, _ = entry
        return {root + t for t in tails}, CollisionGroupDescription(
            path, sorted([root + t if below else t for below, t in filtered]), inverted)


_INVERTED = UsdPhysics.Tokens.physicsInvertFilteredGroups
_FILTERED = UsdPhysics.Tokens.physicsFilteredGroups


def groups_of(members: dict[str, set[str]]) -> dict[str, list[str]]:
    """collider path -> the groups it is in, in path order (Sdf.Path's), in which omni.physx lists them: it filters a
    collider by the first only (seen in ovphysx: a chassis in /World/Extra and /World/Ridge6/ChassisGroup is
    filtered by /World/Extra's filters alone; one pass over the groups, not one per collider: a fleet has thousands
    of both)."""
    member_of: dict[str, list[str]] = {}
    # a prim name holds no character below "/" (letters, digits, "_" and other identifier characters): the paths' own
    # string order is Sdf.Path's, element by element, a path before those below it (an Sdf.Path of each and their
    # comparisons cost five times as much; a fleet has thousands of groups)
    for name in sorted(members):
        for member in members[name]:
            member_of.setdefault(member, []).append(name)
    return member_of
