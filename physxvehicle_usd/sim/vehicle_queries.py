"""Suspension queries that see vehicles: a wheel's raycast or sweep (sim/ground.py's, against the static ground) also
meets the collision shapes of the batch's other vehicles, and its own vehicle's, at the step's begin pose, wheel shapes
where the last vehicle update left their wheels (ContactModel `posed`; pipeline._other_vehicles; before the first
update, where the stage put them), as PxVehiclePhysXRoadGeometryQueryUpdate's scene query does.

Which shapes: omni.physx queries the scene for static and dynamic shapes with a pre-filter of its own
(VehicleGenerator.cpp, VehicleQueryFilterCallback): the query carries the wheel attachment's collisionGroup, a shape
its own collision group, and the shape is skipped only where both have a group and the two groups filter each other
(collision_filter.GroupFilter.meets; sim/query_groups.py; the static ground's queries share it). There is no test of the
actor: a vehicle's own shapes are kept out by its groups alone (the sample car's WheelQueryGroup filters its
ChassisGroup). Where they are not (validate's A10), the query meets them as another vehicle's: a raycast that starts
inside the own chassis hits it at distance 0, no road at all, and the car sinks onto its chassis; one that meets its
own wheel's cylinder puts the wheel at maximum compression, and the next, starting on that cylinder's top, finds no
road (tests/test_conformance_own_queries.py, as PhysX). Which (wheel, own shape) pairs the groups let through is worked
out once (`VehicleQueries.own`): none in a fleet whose groups keep every vehicle's queries from its own shapes, which
then pays nothing for them. A sharded Simulator steps its ranges apart (their queries meet the ground alone) only
while `still_quiet` holds and no query meets its own vehicle.

What a hit gives (PxVehicleRoadGeometryState): the plane through the hit point with the hit's normal, the friction of
the tire's table for the other shape's material, and the hit actor's velocity at the hit point
(PxRigidBodyExt::getVelocityAtPos), which the tire model takes off the wheel's own velocity at its contact point
(PxVehicleTireSlipSpeedsUpdate; the numpy substeps and the compiled kernel alike): a wheel standing on a moving car
rolls with it. The other bodies' velocities are those the step began with (the poses the queries use); for a sweep
the hit point is taken where the hull's centre meets the hit plane (PhysX's contact point lies within the wheel's
radius of it: the hit body's turn rate times that apart).

Geometry: a ray meets a polytope (box, convex hull) where it enters its faces' slab; it meets a sphere or capsule (a
core point or segment with its radius) and a cylinder (PhysX's exact one, PxConvexCoreGeometry) exactly, a ray that
starts on a cylinder's surface, within float32 rounding, counting as inside it. A ray that starts inside a shape hits it
at distance 0, and PhysX reports no road for such a query (the closest hit wins, and vehicle2 drops a hit at 0). A sweep
meets a polytope at the time of impact found by separating axes (sim/ground.py's method for triangles, with the other
shape's faces and edges); a sweep that starts inside is moved out along the separating direction and swept back against
that shape alone, as against the ground. Against a sphere or capsule a sweep tests the same axes with the shape's core
grown by its radius, plus the axis from the wheel's centre to the core: an early estimate where the hull's corner meets
the round surface, not PhysX's GJK. A sweep meets a cylinder's 30-corner hull, not PhysX's exact cylinder. Not modelled:
PhysX sweeps a hull against an exact cylinder by GJK alone, with no separating direction for a start inside
(GuSweepTests, sweepConvex_ConvexCoreGeom): a hull that starts inside a cylinder (its own wheel's) hits it at distance 0
with the normal of GJK's first support points and a point of its final simplex, which vehicle2 takes as a hit from
outside; ours is moved out and swept back as against a polytope.

Cost (`candidates`): one sort and sweep of boxes (contact/broad.py's `sweep_overlaps`), each vehicle's box around its
wheels' queries against every shape's world box (placement.shape_boxes); only the (wheel, shape) pairs whose boxes
overlap reach the exact tests. As the contacts' broad phase does, boxes grown by broad.QUIET_MARGIN contact offsets that
meet no other vehicle's let the following steps skip the sweep until some body has moved by that margin against the
others (motion.Motion.within, with the reach of the wheels' queries): a fleet apart pays a motion bound per
step. (Assumed: steering alone moves a wheel's query by less than the margin plus its box's growth across.) The
(wheel, own shape) pairs of `VehicleQueries.own` reach the exact tests every step, with no box test.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from typing import Sequence

import numpy as np

from ..collision_filter import GroupFilter
from ..description import StageDescription
from . import vecmath as vm
from .contact.broad import QUIET_MARGIN, sweep_overlaps
from .contact.model import ContactModel
from .contact.placement import cylinder_world_ends, placed_vertices, shape_reach, step_boxes
from .contact.polytopes import world_polytopes
from .motion import Motion
from .query_groups import wheel_query_groups
from .round_rays import capsule_entry
from .wheel_sweep import HULL_EDGES, HULL_SIDES, SweptWheels


@dataclass(frozen=True)
class VehicleQueries:
    """What the queries need beside the contact model: per wheel (V, W) its query group and per shape row (N,) the
    group that filters it (ids of `rule`, which decides whether a query may hit a shape: pair by pair, in arrays, as
    a table over every query group and shape row would grow as a fleet's square), per (friction table, shape row)
    the tire friction on it, and the (wheel, shape row) pairs of the wheels' own vehicles' shapes that their groups
    let through (`own`)."""

    query_group: np.ndarray  # (V, W) GroupFilter ids
    shape_group: np.ndarray  # (N,) GroupFilter ids
    rule: GroupFilter
    friction: np.ndarray  # (T, N)
    # (v, w, row): each wheel query and each shape of its own vehicle that the groups do not filter from it (worked
    # out once: none in a fleet whose groups keep every vehicle's queries from its own shapes, as the samples' do)
    own: tuple[np.ndarray, np.ndarray, np.ndarray]
    quiet: dict = field(default_factory=dict, repr=False, compare=False)  # the last quiet broad phase's pose

    @classmethod
    def build(cls, model: ContactModel | None, description: StageDescription, rule: GroupFilter, paths: Sequence[str],
              wheel_paths: Sequence[Sequence[str]], W: int, tables: Sequence) -> "VehicleQueries | None":
        """None where there is no shape to meet: fewer than two vehicles with shapes, and no query let through to
        its own vehicle's shapes. rule: the description's collision groups'."""
        if model is None:
            return None
        shapes = [s for path in paths for s in (description.vehicles[path].collision if path in description.vehicles
                                                else [])]
        query_groups, query_key = wheel_query_groups(description, paths, wheel_paths, W)
        query_group, shape_group = rule.ids(query_groups)[query_key], rule.first(s.groups for s in shapes)
        own = own_queries(model.vehicle, rule, query_group, shape_group, np.array([len(w) for w in wheel_paths]))
        if model.pairs is None and not own[0].size:
            return None
        friction = np.array([[table.friction_for(s.material) for s in shapes] for table in tables], float) \
            if tables else np.ones((1, len(shapes)))
        return cls(query_group, shape_group, rule, friction, own)

    def meets(self, v: np.ndarray, w: np.ndarray, row: np.ndarray) -> np.ndarray:
        """Whether the queries of wheels (v, w) may hit shape rows `row` (arrays of one shape)."""
        return self.rule.meets(self.query_group[v, w], self.shape_group[row])

    @property
    def meets_own(self) -> bool:
        """Whether some wheel's query meets a shape of its own vehicle (then no step skips the queries)."""
        return bool(self.own[0].size)


def own_queries(vehicle: np.ndarray, rule: GroupFilter, query_group: np.ndarray, shape_group: np.ndarray,
                wheels: np.ndarray):
    """(v, w, row) of every wheel query (v, w) and shape row of its own vehicle that the query's group lets through
    (vehicle: each shape row's vehicle (N,); query_group: (V, W) and shape_group: (N,), ids of `rule`; wheels: each
    vehicle's wheel count)."""
    W = query_group.shape[1]
    v = np.repeat(vehicle, W)
    w = np.tile(np.arange(W), len(vehicle))
    row = np.repeat(np.arange(len(vehicle)), W)
    keep = w < wheels[v]
    v, w, row = v[keep], w[keep], row[keep]
    keep = rule.meets(query_group[v, w], shape_group[row])
    return v[keep], w[keep], row[keep]


@dataclass
class VehicleHits:
    """The wheels whose query met another vehicle's shape before (or instead of) the ground, K of them."""

    wheels: tuple[np.ndarray, np.ndarray]  # (v, w) of the wheels concerned
    hit: np.ndarray  # (K,) False: the query started inside that shape (no road at all)
    normal: np.ndarray  # (K, 3)
    offset: np.ndarray  # (K,)
    row: np.ndarray  # (K,) the shape row met
    velocity: np.ndarray  # (K, 3) the other body's velocity at the hit point


def query_boxes(p, frame: tuple, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each wheel's query box (V, W, 3) lo, hi: from the wheel top at maximum compression to the bottom at maximum
    droop, grown by the wheel's radius and half-width across (what a sweep's hull can reach)."""
    lo, hi = query_extents(p, frame, length)
    return np.moveaxis(lo, 0, -1).astype(float), np.moveaxis(hi, 0, -1).astype(float)


def query_extents(p, frame: tuple, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`query_boxes` component first, (3, V, W) lo, hi, in the wheel frame's precision (float32 values convert to
    float64 exactly: the broad phase takes its extremes before converting, the same numbers)."""
    d_w, hub = frame[1], frame[2]
    top = hub - d_w * p.radius
    end = top + d_w * length
    grow = (np.maximum(p.radius, p.half_width) + 1e-6)[None]
    return np.minimum(top, end) - grow, np.maximum(top, end) + grow


def still_quiet(queries: VehicleQueries, motion: Motion) -> bool:
    """Whether the last broad phase found every query clear of the other vehicles by the margin and no body has
    moved by it since the poses it was at (then no query can meet another vehicle); motion: the step's."""
    return motion.within(queries.quiet)


def candidates(queries: VehicleQueries, model: ContactModel, p, frame: tuple, length: np.ndarray,
               position: np.ndarray, orientation: np.ndarray, motion: Motion | None = None):
    """(v, w, row) of every wheel query whose box meets another vehicle's shape's world box, where the query's
    filter lets that shape through, and of every query and shape of its own vehicle that the filter lets through
    (`VehicleQueries.own`: no box test, the shape rides with the query); and the shapes' rotations (3, 3, N)."""
    motion = Motion(position, orientation) if motion is None else motion
    others, R = _other_candidates(queries, model, p, frame, length, position, orientation, motion)
    if not queries.meets_own:
        return others, R
    if R is None:
        R = step_boxes(model, motion).R
    return tuple(np.concatenate([a, b]) for a, b in zip(others, queries.own)), R


def _other_candidates(queries: VehicleQueries, model: ContactModel, p, frame: tuple, length: np.ndarray,
                      position: np.ndarray, orientation: np.ndarray, motion: Motion):
    """`candidates` among the other vehicles' shapes (the rotations None where the broad phase was skipped)."""
    none = np.zeros(0, np.int64)
    if model.pairs is None or still_quiet(queries, motion):
        return (none, none, none), None
    quiet = queries.quiet
    lo_w, hi_w = query_extents(p, frame, length)  # (3, V, W)
    mask = p.mask
    every = bool(mask.all())  # (every wheel queries, the usual batch: no mask to apply)
    # (V, 3): wheel by wheel (numpy reduces a short last axis slowly; the extremes are the same in any order)
    lo_v = reduce(np.minimum, (lo_w if every else np.where(mask, lo_w, np.inf)).transpose(2, 0, 1)).T.astype(float)
    hi_v = reduce(np.maximum, (hi_w if every else np.where(mask, hi_w, -np.inf)).transpose(2, 0, 1)).T.astype(float)
    boxes = step_boxes(model, motion)  # (the step's: the other broad phases of the step take the same)
    R, centre = boxes.R, boxes.centres()
    half = boxes.turned_half(model) + boxes.slack[:, None]
    lo = np.concatenate([lo_v, centre - half])
    hi = np.concatenate([hi_v, centre + half])
    margin = QUIET_MARGIN * float(model.pairs.contact_offset.max())
    a, b = sweep_overlaps(lo - margin, hi + margin, boxes.spread_axes() if len(centre) > 1 else np.arange(3))
    V = p.V
    query, row = np.where(a < V, a, b), np.where(a < V, b, a) - V
    keep = ((a < V) != (b < V))
    query, row = query[keep], row[keep]
    near = model.vehicle[row] != query
    for key in ("position", "orientation", "margin", "reach"):
        quiet.pop(key, None)
    if not near.any():  # no query within the margin of another vehicle's shape: none until a body moves by it
        quiet.update(zip(("position", "orientation"), motion.reference()), margin=margin,
                     reach=_reach(model, lo_w, hi_w, mask, position))
        return (none, none, none), R
    keep = near & ((lo[query] <= hi[row + V]) & (lo[row + V] <= hi[query])).all(axis=1)
    query, row = query[keep], row[keep]
    if not query.size:
        return (none, none, none), R
    # per wheel of those vehicles
    W = p.W
    lo_w, hi_w = np.moveaxis(lo_w, 0, -1).astype(float), np.moveaxis(hi_w, 0, -1).astype(float)  # (V, W, 3)
    v = np.repeat(query, W)
    w = np.tile(np.arange(W), len(query))
    row = np.repeat(row, W)
    keep = mask[v, w] & ((lo_w[v, w] <= hi[row + V]) & (lo[row + V] <= hi_w[v, w])).all(axis=1)
    v, w, row = v[keep], w[keep], row[keep]
    keep = queries.meets(v, w, row)
    return (v[keep], w[keep], row[keep]), R


def _reach(model: ContactModel, lo_w: np.ndarray, hi_w: np.ndarray, mask: np.ndarray, position: np.ndarray):
    """Per vehicle (V,): how far from its body position its shapes and its wheels' query boxes ((3, V, W) lo_w,
    hi_w, `query_extents`) reach (what a turn sweeps, for motion.Motion.within), plus the query boxes' growth across
    (a steered wheel's hull turns within it)."""
    reach = shape_reach(model, position.shape[1])
    x = position.astype(float)[:, :, None]
    corner = np.maximum(np.abs(lo_w.astype(float) - x), np.abs(hi_w.astype(float) - x))
    square = corner * corner
    length = np.sqrt(square[0] + square[1] + square[2])  # (np.linalg.norm's sum, in its order: the same bits)
    # the farthest wheel, wheel by wheel (a short last axis reduces slowly; the same maximum)
    wheels = reduce(np.maximum, (length if mask.all() else np.where(mask, length, 0.0)).T)
    return np.maximum(reach, wheels)


def _cores(model: ContactModel, rows: np.ndarray, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A round shape's core segment (a, b, (K, 3) each; a == b for a sphere) and radius (K,)."""
    a = vertices[rows, 0]
    far = np.argmax(((vertices[rows] - a[:, None]) ** 2).sum(axis=2), axis=1)
    b = vertices[rows, far]
    return a, b, model.radius[rows]


def ray_polytopes(o: np.ndarray, d: np.ndarray, normals: np.ndarray, offsets: np.ndarray, face_mask: np.ndarray):
    """Rays o + t d (K, 3) against convex polytopes (faces n . x = offset, outward, (K, F)): entry distance t (inf:
    a miss; 0: the ray starts inside) and the entry face's normal (K, 3)."""
    along = np.einsum("kfj,kj->kf", normals, d)
    gap = offsets - np.einsum("kfj,kj->kf", normals, o)  # > 0: the origin is inside this face's plane
    entering = face_mask & (along < 0.0)
    leaving = face_mask & (along > 0.0)
    t_face = gap / np.where(along != 0.0, along, 1.0)
    t_in = np.where(entering, t_face, -np.inf)
    t_out = np.where(leaving, t_face, np.inf)
    parallel_out = (face_mask & (along == 0.0) & (gap < 0.0)).any(axis=1)
    k = np.argmax(t_in, axis=1)
    rows = np.arange(len(o))
    enter, leave = t_in[rows, k], t_out.min(axis=1)
    ok = ~parallel_out & (enter <= leave) & (leave >= 0.0)
    inside = ok & (enter <= 0.0)
    t = np.where(ok, np.maximum(enter, 0.0), np.inf)
    normal = np.where(inside[:, None], -d, normals[rows, k])
    return t, normal


def ray_capsules(o: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray, radius: np.ndarray):
    """Rays o + t d (K, 3, d unit) against capsules (segment a-b, radius; a sphere where a == b): entry distance t
    (inf: a miss; 0: the ray starts inside) and the outward normal at the entry (K, 3)."""
    axis = b - a
    length = np.linalg.norm(axis, axis=1)
    u = axis / np.where(length > 0.0, length, 1.0)[:, None]
    t = capsule_entry(d, a, b, radius, o, unit=True)
    t = np.where(t < 0.0, np.inf, t)  # behind the origin (a start inside is caught below)
    inside = _segment_distance(o, a, u, length) <= radius
    t = np.where(inside, 0.0, t)
    point = o + d * np.where(np.isfinite(t), t, 0.0)[:, None]
    s = np.clip(((point - a) * u).sum(axis=1), 0.0, length)
    out = point - (a + u * s[:, None])
    size = np.linalg.norm(out, axis=1)
    normal = np.where((size > 0.0)[:, None] & ~inside[:, None], out / np.where(size > 0.0, size, 1.0)[:, None], -d)
    return t, normal


def ray_cylinders(o: np.ndarray, d: np.ndarray, a: np.ndarray, b: np.ndarray, radius: np.ndarray):
    """Rays o + t d (K, 3, d unit) against solid cylinders (cap centres a, b, radius), as PhysX's exact cylinder
    (PxConvexCoreGeometry, omni.physx's for a UsdGeom.Cylinder): entry distance t (inf: a miss; 0: the ray starts
    inside, or on the surface within float32 rounding of the coordinates, as a wheel's query does on its own wheel's
    cylinder at maximum compression) and the outward normal at the entry (K, 3)."""
    axis = b - a
    length = np.linalg.norm(axis, axis=1)
    u = axis / np.where(length > 0.0, length, 1.0)[:, None]
    m = o - a
    s_o, s_d = (m * u).sum(axis=1), (d * u).sum(axis=1)
    # along the axis: between the caps
    moving = s_d != 0.0
    safe = np.where(moving, s_d, 1.0)
    t0, t1 = -s_o / safe, (length - s_o) / safe
    cap_in = np.where(moving, np.minimum(t0, t1), np.where((s_o >= 0.0) & (s_o <= length), -np.inf, np.inf))
    cap_out = np.where(moving, np.maximum(t0, t1), np.where((s_o >= 0.0) & (s_o <= length), np.inf, -np.inf))
    # across it: within the radius
    mp, dp = m - s_o[:, None] * u, d - s_d[:, None] * u
    A, B, C = (dp * dp).sum(axis=1), (mp * dp).sum(axis=1), (mp * mp).sum(axis=1) - radius ** 2
    disc = B * B - A * C
    root = np.sqrt(np.maximum(disc, 0.0))
    across = A > 0.0
    safe_a = np.where(across, A, 1.0)
    side_in = np.where(across, np.where(disc >= 0.0, (-B - root) / safe_a, np.inf), np.where(C <= 0.0, -np.inf, np.inf))
    side_out = np.where(across, np.where(disc >= 0.0, (-B + root) / safe_a, -np.inf),
                        np.where(C <= 0.0, np.inf, -np.inf))
    enter, leave = np.maximum(cap_in, side_in), np.minimum(cap_out, side_out)
    ok = (enter <= leave) & (leave >= 0.0)
    # how far outside the origin is (< 0: inside), against float32 rounding of the coordinates
    outside = np.maximum(np.sqrt(np.maximum((mp * mp).sum(axis=1), 0.0)) - radius, np.maximum(-s_o, s_o - length))
    rounding = 4.0 * np.finfo(np.float32).eps * (np.abs(o).max(axis=1) + radius + length)
    inside = outside <= rounding
    t = np.where(inside, 0.0, np.where(ok & (enter >= 0.0), enter, np.inf))
    point = o + d * np.where(np.isfinite(t), t, 0.0)[:, None]
    on_cap = cap_in >= side_in
    radial = (point - a) - ((point - a) * u).sum(axis=1, keepdims=True) * u
    size = np.linalg.norm(radial, axis=1)
    normal = np.where(on_cap[:, None], -np.sign(s_d)[:, None] * u, radial / np.where(size > 0.0, size, 1.0)[:, None])
    return t, np.where(inside[:, None], -d, normal)


def _segment_distance(x: np.ndarray, a: np.ndarray, u: np.ndarray, length: np.ndarray) -> np.ndarray:
    s = np.clip(((x - a) * u).sum(axis=1), 0.0, length)
    return np.linalg.norm(x - (a + u * s[:, None]), axis=1)


def sweep_shapes(wheels: SweptWheels, verts: np.ndarray, normals: np.ndarray, face_mask: np.ndarray,
                 edges: np.ndarray, edge_mask: np.ndarray, radius: np.ndarray):
    """Each wheel hull swept against one convex shape (K rows): its world vertices (K, M, 3), outward face normals
    (K, F, 3) with face_mask, edge directions (K, D, 3) with edge_mask, and radius (K,) (0: a polytope; > 0: the
    vertices are a round shape's core). Returns t (inf: no contact; < 0: the hull starts inside, minus the depth),
    the contact normal against the motion, the offset of the plane through the contact and the separating
    direction of a start inside (each (K, ...))."""
    K = len(radius)
    c, w, D = wheels.centre, wheels.direction, wheels.distance
    a0, a1, lat = wheels.axis0, wheels.axis1, wheels.lateral
    sides = HULL_SIDES[None, :, :1] * a0[:, None] + HULL_SIDES[None, :, 1:] * a1[:, None]
    ring_edges = HULL_EDGES[None, :, :1] * a0[:, None] + HULL_EDGES[None, :, 1:] * a1[:, None]
    hull_edges = np.concatenate([lat[:, None], ring_edges], axis=1)
    crossed = np.cross(hull_edges[:, :, None], edges[:, None]).reshape(K, -1, 3)
    crossed_ok = np.broadcast_to(edge_mask[:, None], (K, hull_edges.shape[1], edges.shape[1])).reshape(K, -1)
    nearest = verts.mean(axis=1) - c  # a round shape: the axis from the hull's centre towards its core
    axes = np.concatenate([normals, sides, lat[:, None], crossed, nearest[:, None]], axis=1)
    usable = np.concatenate([face_mask, np.ones((K, sides.shape[1] + 1), bool), crossed_ok,
                             (radius > 0.0)[:, None]], axis=1)
    length = np.linalg.norm(axes, axis=2)
    usable &= length > 1e-9
    axes = axes / np.where(usable, length, 1.0)[..., None]
    centre = np.einsum("kaj,kj->ka", axes, c)
    reach = wheels.support(axes)
    proj = np.einsum("kaj,kvj->kav", axes, verts)
    tmin, tmax = proj.min(axis=2) - radius[:, None], proj.max(axis=2) + radius[:, None]
    lo_c, hi_c = centre - reach, centre + reach
    speed = np.einsum("kaj,kj->ka", axes, w)
    moving = np.abs(speed) > 1e-12
    safe = np.where(moving, speed, 1.0)
    toward = speed > 0.0
    enter = np.where(toward, tmin - hi_c, tmax - lo_c) / safe
    leave = np.where(toward, tmax - lo_c, tmin - hi_c) / safe
    apart = (hi_c < tmin) | (lo_c > tmax)
    enter = np.where(moving, enter, np.where(apart, np.inf, -np.inf))
    leave = np.where(moving, leave, np.where(apart, -np.inf, np.inf))
    enter = np.where(usable, enter, -np.inf)
    leave = np.where(usable, leave, np.inf)
    k = np.argmax(enter, axis=1)
    rows = np.arange(K)
    toi, exit_ = enter[rows, k], leave.min(axis=1)
    ok = (toi <= exit_) & (toi <= D) & (exit_ >= 0.0)
    normal = axes[rows, k] * np.where(toward[rows, k], -1.0, 1.0)[:, None]
    offset = -(np.einsum("kvj,kj->kv", verts, normal).max(axis=1) + radius)
    over_hi, over_lo = hi_c - tmin, tmax - lo_c
    depth = np.where(usable, np.minimum(over_hi, over_lo), np.inf)
    m = np.argmin(depth, axis=1)
    mtd = axes[rows, m] * np.where(over_lo[rows, m] < over_hi[rows, m], 1.0, -1.0)[:, None]
    t = np.where(ok, np.where(toi < 0.0, -depth[rows, m], toi), np.inf)
    return t, normal, offset, mtd


def _cylinder_ends(model: ContactModel, rows: np.ndarray, R_all: np.ndarray, position: np.ndarray):
    """The world cap centres (a, b, (K, 3) each) and radius (K,) of cylinder rows `rows`."""
    ends = cylinder_world_ends(model, rows, np.moveaxis(R_all[:, :, rows], 2, 0), position)
    return ends[:, 0], ends[:, 1], model.cylinder_radius[rows]


def _shape_geometry(model: ContactModel, rows: np.ndarray, R_all: np.ndarray, position: np.ndarray):
    """World vertices, face normals, offsets, face mask, edge directions, edge mask and radius of shape rows `rows`."""
    R, vertices = placed_vertices(model, np.unique(rows), R_all, position)
    P = world_polytopes(model.shapes, rows, vertices, R)
    e = P.axis_edges
    verts = P.vertices
    dirs = np.take_along_axis(verts, e[:, :, 1:2].repeat(3, axis=2), 1) - np.take_along_axis(
        verts, e[:, :, :1].repeat(3, axis=2), 1)
    size = np.linalg.norm(dirs, axis=2)
    edge_mask = P.axis_mask & (size > 0.0)
    dirs = dirs / np.where(edge_mask, size, 1.0)[..., None]
    radius = model.radius[rows] if model.radius is not None else np.zeros(len(rows))
    return verts, P.normals, P.offsets, P.face_mask, dirs, edge_mask, radius, vertices


def see_other_vehicles(queries: VehicleQueries, model: ContactModel, p, frame: tuple, road_hits, length: np.ndarray,
                       steer: np.ndarray, position: np.ndarray, orientation: np.ndarray, linear_velocity: np.ndarray,
                       angular_velocity: np.ndarray, motion: Motion | None = None) -> VehicleHits | None:
    """The wheels whose query meets another vehicle's shape before the ground's hit (road_hits: the ground's RayHits,
    (V, W)); None when none does. length: the raycasts' lengths (V, W); steer: the wheels' steer angles (V, W);
    motion: the step's `Motion` of these poses."""
    (v, w, row), R_all = candidates(queries, model, p, frame, length, position, orientation, motion)
    if not v.size:
        return None
    swept_wheels = swept_queries(p, frame, steer)
    d_w, hub = frame[1], frame[2]
    d = d_w[:, v, w].T.astype(float)
    sweeping = np.zeros(len(v), bool) if swept_wheels is None else swept_wheels.mask[v, w]
    verts, normals, offsets, face_mask, dirs, edge_mask, radius, placed = _shape_geometry(model, row, R_all,
                                                                                          position.astype(float))
    t = np.full(len(v), np.inf)
    normal = np.zeros((len(v), 3))
    offset = np.zeros(len(v))
    ray = np.nonzero(~sweeping)[0]
    if ray.size:
        o = (hub - d_w * p.radius)[:, v[ray], w[ray]].T.astype(float)
        round_ = radius[ray] > 0.0
        t_r, n_r = ray_polytopes(o, d[ray], normals[ray], offsets[ray], face_mask[ray])
        if round_.any():
            a, b, r = _cores(model, row[ray][round_], placed)
            t_c, n_c = ray_capsules(o[round_], d[ray][round_], a, b, r)
            t_r[round_], n_r[round_] = t_c, n_c
        exact = np.isin(row[ray], model.cylinders)  # PhysX's exact cylinder, not its hull
        if exact.any():
            a, b, r = _cylinder_ends(model, row[ray][exact], R_all, position.astype(float))
            t_r[exact], n_r[exact] = ray_cylinders(o[exact], d[ray][exact], a, b, r)
        within = t_r <= length[v[ray], w[ray]]
        t[ray] = np.where(within, t_r, np.inf)
        normal[ray] = n_r
        offset[ray] = -((o + d[ray] * np.where(np.isfinite(t_r), t_r, 0.0)[:, None]) * n_r).sum(axis=1)
    swept = np.nonzero(sweeping)[0]
    if swept.size:
        wheels = swept_wheels.of(v[swept], w[swept])
        t_s, n_s, off_s, mtd = sweep_shapes(wheels, verts[swept], normals[swept], face_mask[swept], dirs[swept],
                                            edge_mask[swept], radius[swept])
        inside = np.nonzero(np.isfinite(t_s) & (t_s < 0.0))[0]
        if inside.size:  # out along the separating direction, then back against that shape alone (as on the ground)
            step = np.maximum(wheels.radius[inside], -t_s[inside])
            back = wheels.moved(inside, wheels.centre[inside] + mtd[inside] * (1.01 * step)[:, None], -mtd[inside],
                                1.02 * step)
            k = swept[inside]
            t2, n2, off2, _ = sweep_shapes(back, verts[k], normals[k], face_mask[k], dirs[k], edge_mask[k], radius[k])
            clean = np.isfinite(t2) & (t2 > 0.0)
            t_s[inside] = np.where(clean, -1.0, np.inf)
            n_s[inside], off_s[inside] = n2, off2
        t[swept], normal[swept], offset[swept] = t_s, n_s, off_s
    # the ground's hit along the same query, to keep the closer of the two
    ground_t = _ground_distance(p, road_hits, v, w, hub, d_w, sweeping, swept_wheels)
    closer = np.isfinite(t) & (t < ground_t)
    if not closer.any():
        return None
    # the closest shape per wheel (of equals, the lowest row)
    order = np.lexsort((row, t, w, v))
    order = order[closer[order]]
    first = np.r_[True, (v[order][1:] != v[order][:-1]) | (w[order][1:] != w[order][:-1])]
    pick = order[first]
    v, w, row, t, normal, offset = v[pick], w[pick], row[pick], t[pick], normal[pick], offset[pick]
    # the hit point: along the ray, or (a sweep) the hull centre's foot on the hit plane
    start = np.where(sweeping[pick][:, None], hub[:, v, w].T, (hub - d_w * p.radius)[:, v, w].T).astype(float)
    along = start + d_w[:, v, w].T * np.maximum(t, 0.0)[:, None]
    point = along - ((along * normal).sum(axis=1) + offset)[:, None] * normal
    other = model.vehicle[row]
    arm = point - position[:, other].T
    velocity = linear_velocity[:, other].T + np.cross(angular_velocity[:, other].T, arm)
    # a ray that starts inside the shape hits it at 0: no road (a sweep's start inside was swept again above)
    return VehicleHits((v, w), sweeping[pick] | (t > 0.0), normal, offset, row, velocity)


def _ground_distance(p, hits, v, w, hub, d_w, sweeping, swept_wheels) -> np.ndarray:
    """How far along its query each wheel (v, w) met the ground (inf: not at all; -1: a sweep that started inside),
    from the ground's hit plane: a ray's distance to it, a hull's travel until its lowest point along the normal
    touches it."""
    n = hits.normal[:, v, w].T.astype(float)
    off = hits.offset[v, w].astype(float)
    d = d_w[:, v, w].T.astype(float)
    along = (n * d).sum(axis=1)
    safe = np.where(along < 0.0, -along, 1.0)
    top = (hub - d_w * p.radius)[:, v, w].T.astype(float)
    t = ((top * n).sum(axis=1) + off) / safe
    if sweeping.any():
        k = np.nonzero(sweeping)[0]
        wheels = swept_wheels.of(v[k], w[k])
        low = (wheels.centre * n[k]).sum(axis=1) + off[k] - wheels.support(-n[k][:, None])[:, 0]
        t[k] = np.where(low <= 0.0, -1.0, low / safe[k])
    return np.where(hits.hit[v, w], t, np.inf)


@dataclass
class SweptQueries:
    """The sweeps' hulls of a batch (which wheels sweep, and a SweptWheels for any of them)."""

    mask: np.ndarray  # (V, W)
    centre: np.ndarray  # (3, V, W)
    axes: tuple  # lateral, axis0, axis1: (3, V, W) each, world
    radius: np.ndarray
    half_width: np.ndarray
    direction: np.ndarray  # (3, V, W)
    distance: np.ndarray

    def of(self, v: np.ndarray, w: np.ndarray) -> SweptWheels:
        pick = lambda a: a[:, v, w].T.astype(float)  # noqa: E731
        return SweptWheels(pick(self.centre), *(pick(a) for a in self.axes), self.radius[v, w].astype(float),
                           self.half_width[v, w].astype(float), pick(self.direction),
                           self.distance[v, w].astype(float))


def apply(road, found: VehicleHits | None, queries: VehicleQueries, p):
    """The road geometry with the wheels of `found` on the other vehicles' shapes, and the road's velocity (3, V, W)
    (None: no wheel stands on another vehicle)."""
    if found is None:
        return road, None
    v, w = found.wheels
    f = p.dtype
    road.hit[v, w] = found.hit & p.mask[v, w]
    road.normal[:, v, w] = found.normal.T.astype(f)
    road.offset[v, w] = found.offset.astype(f)
    table = np.broadcast_to(p.friction_table_id, (p.V, p.W))[v, w]
    mu = queries.friction[np.minimum(table, len(queries.friction) - 1), found.row]
    road.friction[v, w] = np.where(road.hit[v, w], mu, 0.0).astype(f)
    road.shape[v, w] = -1  # no ground shape
    velocity = np.zeros((3, p.V, p.W), f)
    velocity[:, v, w] = np.where(road.hit[v, w][:, None], found.velocity, 0.0).T.astype(f)
    return road, velocity


def swept_queries(p, frame: tuple, steer: np.ndarray) -> SweptQueries | None:
    """The hulls of the wheels that sweep (None: every wheel raycasts)."""
    if not p.any_sweep:
        return None
    from ..runtime.vehicle2 import QUERY_SWEEP
    from .suspension import hull_axes  # (suspension's module uses this one's neighbours: imported when needed)

    R = frame[0]
    world = tuple(vm.matvec(R, a) for a in hull_axes(p, steer))
    return SweptQueries((p.query_type == QUERY_SWEEP)[:, None] & p.mask, frame[2], world, p.radius, p.half_width,
                        frame[1], p.travel_distance)
