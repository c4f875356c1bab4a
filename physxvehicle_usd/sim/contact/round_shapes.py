"""Contacts of the vehicles' shapes with static spheres and capsules, as PhysX's PCM contact functions make them.

A static sphere or capsule is its core (a point, a segment: `Ground.round_ends`) and a radius. PhysX orders a pair
by geometry type (sphere, plane, capsule, box, convex core, convex mesh, ...), so the round static shape is shape 0
against a vehicle's box or convex hull, and the contact normal it reports points from the hull towards the round
shape; here, as for every static shape, the normal points from the static shape towards the vehicle's. What is made,
per pair nearer than its contact distance:
  sphere - box        one point, the box's point nearest the sphere's centre (the centre inside the box: pushed out
                      through the nearest face), on the box's surface (PCM's sphere-box);
  sphere - convex     one point, the nearest points of the hull and the centre, on the sphere's surface (PCM's
                      sphere-convex: GJK's closest points);
  capsule - box or convex  PCM's capsule-box and capsule-convex full manifold (`_capsule_manifold`): from the
                      nearest points of the segment and the hull (the normal n), each segment end within reach moved
                      along -n onto the hull's face through the nearest point most facing n and landing on it, else
                      the segment's crossings over that face's edges, else the nearest points' one point; on the
                      capsule's surface. A box's pair starts only once the segment is within reach of the box rounded
                      by PCM's margin (0.15 of its least half extent): near an edge, later than the true distance says
                      (LogStrike: ovphysx's first contact brackets the rounded distance to 1.5 mm; a hull's own PCM margin
                      is not applied: its true distance gates it). PCM keeps a manifold's points across steps, and
                      so does sim/contact/persistence.py (`generate` with the length scales) for a box's or a hull's
                      pair with a static capsule. Spheres, and segments touching a hull, take the separating axes
                      (separating_axes.polytope_contacts with the core as the round shape);
  round - round       PhysX's sphere-sphere, sphere-capsule and capsule-capsule: one point along the line of the
                      cores' nearest points, on the static's surface where it is a sphere (sphere-sphere: shape 1's;
                      sphere-capsule: the sphere's), else on the vehicle's (capsule-capsule: shape 0's); two capsules
                      parallel within 0.9998 make a point for each segment end whose projection falls on the other
                      segment (up to four).
The vehicle's shape is taken as shape 0 where both are of one type (PhysX orders such pairs by its own shape
order, which the description does not know): that decides only which surface the point lies on.
A vehicle's exact cylinder meets them in sim/contact/cylinder_faces.py (`cylinder_convexes`: PhysX's convex-core
contacts); wheel shapes meet them where `ContactModel.posed` put them.
"""
from __future__ import annotations

import numpy as np

from ..ground import box_overlaps
from ..round_rays import segment_points
from .box import Boxes
from .geometry import segments_closest
from .model import ContactModel
from .placement import shape_boxes, turned_half
from .polytopes import Polytopes, polytope_rows, world_polytopes
from .records import Contacts
from .separating_axes import polytope_contacts


def sphere_points_on_boxes(model: ContactModel, made: Contacts, hull: np.ndarray,
                            boxes: Boxes | None = None) -> Contacts:
    """The contacts `made` of shapes with the static polytopes `hull` (per pair; or with the shape rows `hull` of
    another vehicle, `boxes` the model's `boxes`), a sphere's against a box moved from
    the sphere's surface to the box's nearest point (along the normal by the separation): PhysX's sphere-box contact
    (GuPCMContactSphereBox.cpp) reports the point on the box, where its other round pairs (sphere or capsule against a
    convex hull, a mesh or a plane, capsule against a box) report the point on the round surface. Only a speculative or
    penetrating contact moves; its friction anchor, and so the torque of its friction, moves with it."""
    boxes = model.static_boxes if boxes is None else boxes
    if model.radius is None or boxes is None or not len(made):
        return made
    sphere = (model.radius[made.shape] > 0.0) & (model.shapes.loop_counts[made.shape, 0] == 1)
    moved = sphere & boxes.mask[hull[made.pair]]
    if moved.any():
        made.point = np.where(moved[:, None], made.point - made.separation[:, None] * made.normal, made.point)
    return made


_PARALLEL = 0.9998  # PCM's capsule-capsule: segments this parallel (|cos|) make a point per end

_SEGMENT_EPS = 1e-6  # a segment shorter (squared) is a point (PCM's capsule-capsule eps)

_SAME_POINT_SQ = 1e-6  # PCM's parallel capsules: an end this near (squared) the other segment makes no point


def candidates(model: "ContactModel", position: np.ndarray, orientation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shape rows, static round index) of the pairs whose world boxes, grown by the contact distance, overlap and
    whose groups let them touch."""

    rounds = model.static_rounds
    R, centre, slack = shape_boxes(model, position, orientation)
    half = turned_half(model, R) + (model.reach + slack)[:, None]
    centre = np.stack(centre, axis=1)
    lo, hi = centre - half, centre + half
    shape, k = box_overlaps(lo, hi, rounds.lo, rounds.hi)
    keep = model.collides[shape, rounds.column[k]]
    order = np.lexsort((k[keep], shape[keep]))  # by shape, then obstacle
    return shape[keep][order], k[keep][order]


def contacts(model: "ContactModel", shape: np.ndarray, k: np.ndarray, vertices: np.ndarray,
             R: np.ndarray) -> "Contacts":
    """The contacts of vehicle shape rows `shape` with static rounds `k` (pairs), from the shapes' world vertices
    (N, K, 3) and rotations (N, 3, 3) (placement.placed_vertices)."""

    rounds = model.static_rounds
    column = rounds.column[k]
    limit = model.contact_distance[shape, column]
    own_radius = np.zeros(len(shape)) if model.radius is None else model.radius[shape]
    round_own = own_radius > 0.0
    parts = []
    hull = np.nonzero(~round_own)[0]
    if hull.size:
        B = world_polytopes(model.shapes, shape[hull], vertices, R)
        boxes = model.boxes.rows(shape[hull])
        core, margin = _box_cores(boxes, np.einsum("pkj,pij->pki", boxes.axes, R[shape[hull]]), B)
        made, sat = _capsule_manifold(rounds.ends[k[hull]], rounds.radius[k[hull]], ~rounds.spheres[k[hull]], B,
                                      core, margin, limit[hull])
        made.shape, made.static = shape[hull][made.pair], column[hull][made.pair]
        parts.append(made)
        hull = hull[sat]
    if hull.size:  # the static core is polytope_contacts' round shape A, the vehicle's hull B
        A = polytope_rows(rounds.cores, k[hull])
        B = world_polytopes(model.shapes, shape[hull], vertices, R)
        made = polytope_contacts(A, B, shape[hull], column[hull], limit[hull], single_sided=None,
                                 radius=rounds.radius[k[hull]])
        # its normal from the vehicle's hull towards the static core (PhysX's, the round shape being shape 0); its
        # point on the round surface (capsule-box, capsule-convex, sphere-convex), but on the box for sphere-box
        if len(made):
            on_box = rounds.spheres[k[hull][made.pair]] & model.boxes.mask[made.shape]
            made.point = np.where(on_box[:, None], made.point - made.separation[:, None] * made.normal, made.point)
            made.normal = -made.normal
            parts.append(made)
    both = np.nonzero(round_own)[0]
    if both.size:
        parts.append(_round_round(model, shape[both], k[both], vertices, limit[both]))
    parts = [p for p in parts if len(p)]
    if not parts:
        return Contacts.empty()
    return Contacts(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("shape", "static", "point", "normal",
                                                                                  "separation")))


def _inside_faces(point: np.ndarray, B: "Polytopes", rows: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Whether points (Q, 3), projected along their face's normal, lie in faces `faces` of B's rows `rows`."""
    loop = B.vertices[rows[:, None], B.loops[rows, faces]]  # (Q, M, 3)
    count = B.loop_counts[rows, faces]
    M = loop.shape[1]
    following = np.where((np.arange(M)[None] >= count[:, None] - 1)[..., None], loop[:, :1], np.roll(loop, -1, 1))
    normal = B.normals[rows, faces]
    side = np.einsum("qj,qmj->qm", normal, np.cross(following - loop, point[:, None] - loop))
    eps = 1e-7 * (1.0 + np.abs(loop).max(axis=(1, 2)))[:, None]
    return ((side >= -eps) | (np.arange(M)[None] >= count[:, None])).all(axis=1)


_EE_SLACK = 0.005  # PCM's edge contacts: the crossing may lie this far (of the edge's length) beyond its ends

_WITNESS = 1e-3  # faces whose planes pass this near (of the hull's size) the nearest point compete as reference

_BOX_MARGIN = 0.15  # PCM's box margin: this much of the box's least half extent (BOX_MARGIN_RATIO)


def _box_cores(boxes: "Boxes", axes: np.ndarray, B: "Polytopes"):
    """The cores PCM's gate measures from (B's rows as they are but for boxes: each box shrunk by its margin on every
    side, a box rounded by the margin standing for it) and the margins (0: not a box); axes: the boxes' world axes
    (P, 3, 3), row k the k axis."""

    margin = np.where(boxes.mask, _BOX_MARGIN * boxes.half.min(axis=1), 0.0)
    if not boxes.mask.any():
        return B, margin
    centre = B.vertices[:, :8].mean(axis=1)
    local = np.einsum("pvj,pkj->pvk", B.vertices - centre[:, None], axes)
    shrunk = np.sign(local) * np.maximum(np.abs(local) - margin[:, None, None], 0.0)
    vertices = np.where(boxes.mask[:, None, None], centre[:, None] + np.einsum("pvk,pkj->pvj", shrunk, axes),
                        B.vertices)
    offsets = np.where(B.face_mask, B.offsets - margin[:, None], B.offsets)
    return Polytopes(vertices, B.normals, offsets, B.face_mask, B.loops, B.loop_counts, B.edges, B.edge_mask,
                     B.axis_edges, B.axis_mask), margin


def _nearest(a: np.ndarray, b: np.ndarray, B: "Polytopes") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distance of segments a b from polytopes B outside them, and the nearest points (on the segment, on B): a
    segment end and its foot on a face, or the segment and an edge."""

    P, F = len(a), B.normals.shape[1]
    rows = np.arange(P)
    best_d = np.full(P, np.inf)
    core_pt, hull_pt = np.zeros((P, 3)), np.zeros((P, 3))
    for p in (a, b):
        height = np.where(B.face_mask, np.einsum("pfj,pj->pf", B.normals, p) - B.offsets, -np.inf)
        foot = p[:, None] - np.where(np.isfinite(height), height, 0.0)[..., None] * B.normals
        pr, pf = np.nonzero(height >= 0.0)
        over = np.zeros((P, F), bool)
        over[pr, pf] = _inside_faces(foot[pr, pf], B, pr, pf)
        d = np.where(over, height, np.inf)
        f = d.argmin(axis=1)
        better = d[rows, f] < best_d
        best_d = np.where(better, d[rows, f], best_d)
        core_pt = np.where(better[:, None], p, core_pt)
        hull_pt = np.where(better[:, None], foot[rows, f], hull_pt)
    e0 = B.vertices[rows[:, None], B.edges[:, :, 0]]
    e1 = B.vertices[rows[:, None], B.edges[:, :, 1]]
    on_core, on_edge = segments_closest(a[:, None], (b - a)[:, None], e0, e1 - e0)
    d = np.where(B.edge_mask, np.linalg.norm(on_core - on_edge, axis=2), np.inf)
    k = d.argmin(axis=1)
    better = d[rows, k] < best_d
    best_d = np.where(better, d[rows, k], best_d)
    core_pt = np.where(better[:, None], on_core[rows, k], core_pt)
    hull_pt = np.where(better[:, None], on_edge[rows, k], hull_pt)
    return best_d, core_pt, hull_pt


def _capsule_manifold(ends: np.ndarray, radius: np.ndarray, capsule: np.ndarray, B: "Polytopes", core: "Polytopes",
                      margin: np.ndarray, limit: np.ndarray) -> "tuple[Contacts, np.ndarray]":
    """PCM's capsule-box and capsule-convex full manifold for static capsules (ends (P, 2, 3), radius) against the
    vehicle's hulls B (world): from the nearest points of the segment and the hull's core (`core`: a box shrunk by
    its `margin`, which PCM's GJK rounds it by: near an edge the box is that much rounder; the normal n from the core
    towards the segment, the distance less the margin), the hull's face through that point most facing n is the
    reference; each segment end
    within reach, moved along -n onto that face's plane and landing inside the face, is a point (separated by how far
    it moved, less the radius); under two such points, the segment's crossings of the planes through each of the
    face's edges along n, over the edge, are points too; none at all: the nearest points' one. The points on the
    capsule's surface, the normal -n (from the static capsule towards the vehicle). Returns the contacts (`pair`:
    the row of the pair among these) and which pairs it left to the separating-axis test (spheres, and segments
    touching or inside the hull)."""

    a, b = ends[:, 0], ends[:, 1]
    best_d, core_pt, hull_pt = _nearest(a, b, B)
    rounded = np.where(margin > 0.0, _nearest(a, b, core)[0] - margin, best_d)
    scale = np.ptp(B.vertices, axis=1).max(axis=1)
    apart = best_d > 1e-6 * (1.0 + scale)
    reach = radius + limit
    sat = ~capsule | ~apart  # spheres, and cores touching the hull: the separating-axis test
    use = np.nonzero(~sat & (rounded - radius < limit))[0]
    empty = Contacts(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0),
                     np.zeros(0, np.int64))
    if not use.size:
        return empty, sat
    n = (core_pt[use] - hull_pt[use]) / best_d[use, None]
    # the reference face: of the faces through the nearest hull point (within the witness tolerance: the margin,
    # PCM's clamped to 1-5 cm in metres), the one facing n most
    witness = hull_pt[use]
    tolerance = np.maximum(margin[use], _WITNESS * scale[use])[:, None]
    signed = np.einsum("pfj,pj->pf", B.normals[use], witness) - B.offsets[use]
    dist = np.where(B.face_mask[use] & (signed >= -tolerance), np.abs(signed), np.inf)
    near = dist < dist.min(axis=1, keepdims=True) + tolerance
    facing = np.where(near, np.einsum("pfj,pj->pf", B.normals[use], n), -np.inf)
    ref = facing.argmax(axis=1)
    n_ref, d_ref = B.normals[use, ref], B.offsets[use, ref]
    along = np.einsum("pj,pj->p", n_ref, n)
    inverse = np.where(along > 0.0, 1.0 / np.where(along > 0.0, along, 1.0), 0.0)
    points, pairs, seps = [], [], []
    made = np.zeros(len(use), np.int64)
    for p in (a[use], b[use]):  # PCM's capsule (CapsuleV): its - end first (the order ovphysx reports for LogStrike)
        t = (np.einsum("pj,pj->p", n_ref, p) - d_ref) * inverse
        proj = p - t[:, None] * n
        ok = (t <= reach[use]) & _inside_faces(proj, B, use, ref)
        points.append(p[ok])
        pairs.append(np.nonzero(ok)[0])
        seps.append(t[ok])
        made += ok
    few = np.nonzero(made < 2)[0]
    if few.size:  # the segment's crossings of the planes through the reference face's edges along n
        loop = B.vertices[use[few, None], B.loops[use[few], ref[few]]]
        count = B.loop_counts[use[few], ref[few]]
        M = loop.shape[1]
        previous = np.where((np.arange(M)[None] == 0)[..., None], loop[np.arange(len(few)), count - 1][:, None],
                            np.roll(loop, 1, axis=1))
        nn = n[few][:, None]
        p, q = a[use[few]][:, None], b[use[few]][:, None]
        edge = previous - loop
        across = np.cross(edge, nn)
        sp = np.einsum("pmj,pmj->pm", across, p - loop)
        sq = np.einsum("pmj,pmj->pm", across, q - loop)
        pq = q - p
        npq = np.einsum("pmj,pmj->pm", across, np.broadcast_to(pq, across.shape))
        crossing = (sp * sq <= 0.0) & (npq != 0.0) & (np.arange(M)[None] < count[:, None])
        at = p - sp[..., None] / np.where(npq != 0.0, npq, 1.0)[..., None] * pq
        per = np.cross(np.broadcast_to(nn, edge.shape), np.broadcast_to(pq, edge.shape))
        tv = np.einsum("pmj,pmj->pm", per, at - loop) / np.where(
            np.abs(np.einsum("pmj,pmj->pm", per, edge)) > 1e-30, np.einsum("pmj,pmj->pm", per, edge), 1e-30)
        crossing &= (tv >= -_EE_SLACK) & (tv <= 1.0 + _EE_SLACK)
        gap = np.einsum("pmj,pmj->pm", (at - loop) - tv[..., None] * edge, np.broadcast_to(nn, edge.shape))
        crossing &= gap <= reach[use[few]][:, None]
        pr, m = np.nonzero(crossing)
        points.append(at[pr, m])
        pairs.append(few[pr])
        seps.append(gap[pr, m])
        made[few] += np.bincount(pr, minlength=len(few))
    none = np.nonzero(made == 0)[0]  # the nearest points' contact (GJK's), kept where the manifold made none
    points.append(core_pt[use[none]])
    pairs.append(none)
    seps.append(best_d[use[none]])
    point, pair, sep = np.concatenate(points), np.concatenate(pairs), np.concatenate(seps)
    order = np.argsort(pair, kind="stable")
    point, pair, sep = point[order], pair[order], sep[order]
    r = radius[use[pair]]
    sep = sep - r
    keep = sep <= limit[use[pair]]
    normal = n[pair]
    out = Contacts(np.zeros(int(keep.sum()), np.int64), np.zeros(int(keep.sum()), np.int64),
                   (point - r[:, None] * normal)[keep], -normal[keep], sep[keep], use[pair][keep])
    return out, sat


def _round_round(model: "ContactModel", shape: np.ndarray, k: np.ndarray, vertices: np.ndarray,
                 limit: np.ndarray) -> "Contacts":
    """A vehicle's sphere or capsule (shape 0) against a static sphere or capsule (shape 1)."""

    rounds = model.static_rounds
    P = model.shapes
    a0 = vertices[shape, P.loops[shape, 0, 0]]
    b0 = vertices[shape, P.loops[shape, 0, min(1, P.loops.shape[2] - 1)]]
    a1, b1 = rounds.ends[k, 0], rounds.ends[k, 1]
    r0, r1 = model.radius[shape], rounds.radius[k]
    reach = r0 + r1 + limit
    column = rounds.column[k]
    sphere0 = P.loop_counts[shape, 0] == 1
    sphere1 = rounds.spheres[k]
    out_shape, out_static, out_point, out_normal, out_sep = [], [], [], [], []

    def add(rows, p0, p1, on_static):
        """Points of pairs `rows` from the cores' points p0 (vehicle) and p1 (static): normal from p1 to p0."""
        v = p0 - p1
        dist = np.linalg.norm(v, axis=1)
        keep = dist < reach[rows]
        d0 = np.where(P.loop_counts[shape[rows], 0] == 2, (b0 - a0)[rows], 0.0)
        fallback = np.where((np.linalg.norm(d0, axis=1) > 0.0)[:, None], d0, [[1.0, 0.0, 0.0]])
        fallback /= np.linalg.norm(fallback, axis=1, keepdims=True)
        normal = np.where((dist > 1e-5)[:, None], v / np.maximum(dist, 1e-30)[:, None], fallback)
        point = np.where(on_static[:, None], p1 + r1[rows, None] * normal, p0 - r0[rows, None] * normal)
        out_shape.append(shape[rows][keep])
        out_static.append(column[rows][keep])
        out_point.append(point[keep])
        out_normal.append(normal[keep])
        out_sep.append((dist - r0[rows] - r1[rows])[keep])

    d0, d1 = b0 - a0, b1 - a1
    l0, l1 = (d0 * d0).sum(1), (d1 * d1).sum(1)
    u0 = d0 / np.sqrt(np.where(l0 > _SEGMENT_EPS, l0, 1.0))[:, None]
    u1 = d1 / np.sqrt(np.where(l1 > _SEGMENT_EPS, l1, 1.0))[:, None]
    parallel = ~sphere0 & ~sphere1 & (l0 > _SEGMENT_EPS) & (l1 > _SEGMENT_EPS) & (
        np.abs((u0 * u1).sum(1)) > _PARALLEL)
    p0, p1 = segments_closest(a0, d0, a1, d1)
    near = ((p0 - p1) ** 2).sum(1) <= reach ** 2
    made_parallel = np.zeros(len(shape), bool)
    rows = np.nonzero(parallel & near)[0]
    if rows.size:  # an end of either segment over the other: a point each (PhysX's order: the static's ends on the
        # vehicle's segment, then the vehicle's on the static's; each segment from its + end)
        counted = np.zeros(len(rows), np.int64)
        for end in (b1, a1):
            on = segment_points(a0[rows], b0[rows], end[rows])
            inside = _projects_inside(a0[rows], b0[rows], end[rows])
            ok = inside & (((on - end[rows]) ** 2).sum(1) > _SAME_POINT_SQ)
            if ok.any():
                add(rows[ok], on[ok], end[rows][ok], np.zeros(int(ok.sum()), bool))
                counted += ok & (((on - end[rows]) ** 2).sum(1) < reach[rows] ** 2)
        for end in (b0, a0):
            on = segment_points(a1[rows], b1[rows], end[rows])
            inside = _projects_inside(a1[rows], b1[rows], end[rows])
            ok = inside & (((on - end[rows]) ** 2).sum(1) > _SAME_POINT_SQ)
            if ok.any():
                add(rows[ok], end[rows][ok], on[ok], np.zeros(int(ok.sum()), bool))
                counted += ok & (((on - end[rows]) ** 2).sum(1) < reach[rows] ** 2)
        made_parallel[rows] = counted > 0
    rest = np.nonzero(near & ~made_parallel)[0]
    if rest.size:
        # the point on the static's surface where it is a sphere: sphere-sphere puts it on shape 1's, sphere-capsule
        # on the sphere's (shape 0); else (capsule-capsule, the vehicle's sphere on a capsule) on the vehicle's
        add(rest, p0[rest], p1[rest], sphere1[rest])
    if not out_shape:
        return Contacts.empty()
    return Contacts(*(np.concatenate(x) for x in (out_shape, out_static, out_point, out_normal, out_sep)))


def _projects_inside(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Whether points p project onto segments a b (their parameter within [0, 1])."""
    ab = b - a
    t = ((p - a) * ab).sum(1) / np.maximum((ab * ab).sum(1), 1e-30)
    return (t >= 0.0) & (t <= 1.0)
