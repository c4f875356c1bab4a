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
  capsule - box or convex  the segment clipped by the hull's face nearest along the separating axis (two points), or
                      the nearest points of the segment and the face's rim, or of the segment and an edge (one), on
                      the capsule's surface (PCM's capsule-box and capsule-convex full manifold: its face clipping);
                      this is contact.polytope_contacts with the static core as the round shape;
  round - round       PhysX's sphere-sphere, sphere-capsule and capsule-capsule: one point along the line of the
                      cores' nearest points, on the static's surface where it is a sphere (sphere-sphere: shape 1's;
                      sphere-capsule: the sphere's), else on the vehicle's (capsule-capsule: shape 0's); two capsules
                      parallel within 0.9998 make a point for each segment end whose projection falls on the other
                      segment (up to four).
The vehicle's shape is taken as shape 0 where both are of one type (PhysX orders such pairs by its own shape
order, which the description does not know): that decides only which surface the point lies on.
A vehicle's cylinder meets a static sphere or capsule as its 30-corner hull (PhysX collides the exact cylinder,
PxConvexCoreGeometry, with its convex-core contacts); wheel shapes meet them where `ContactModel.posed` put them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..description import GroundDescription
from .ground import placed_core, segment_points

if TYPE_CHECKING:
    from .contact import ContactModel, Contacts, Polytopes

_PARALLEL = 0.9998  # PCM's capsule-capsule: segments this parallel (|cos|) make a point per end
_SEGMENT_EPS = 1e-6  # a segment shorter (squared) is a point (PCM's capsule-capsule eps)
_SAME_POINT_SQ = 1e-6  # PCM's parallel capsules: an end this near (squared) the other segment makes no point


@dataclass(frozen=True)
class StaticRounds:
    """The static spheres and capsules: world cores (S, 2, 3) (a sphere's centre twice), radii (S,), each one's
    column among the model's static shapes (`Ground.materials` order), and their world boxes."""

    ends: np.ndarray
    radius: np.ndarray
    column: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    cores: "Polytopes"  # the cores as contact.polytope_contacts' round shapes (world)

    @classmethod
    def of(cls, rounds: Sequence[GroundDescription], first_column: int) -> "StaticRounds":
        from .contact import Polytopes, core

        ends = np.array([placed_core(g) for g in rounds]).reshape(-1, 2, 3)
        radius = np.array([float(g.radius) for g in rounds])
        cores = Polytopes.stack([core(e[:1] if g.kind == "sphere" else e) for g, e in zip(rounds, ends)])
        return cls(ends, radius, first_column + np.arange(len(rounds)), ends.min(axis=1) - radius[:, None],
                   ends.max(axis=1) + radius[:, None], cores)

    @property
    def spheres(self) -> np.ndarray:
        return (self.ends[:, 0] == self.ends[:, 1]).all(axis=1)


def candidates(model: "ContactModel", position: np.ndarray, orientation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(shape rows, static round index) of the pairs whose world boxes, grown by the contact distance, overlap and
    whose groups let them touch."""
    from .contact import shape_boxes, turned_half

    rounds = model.static_rounds
    R, centre, slack = shape_boxes(model, position, orientation)
    half = turned_half(model, R) + (model.reach + slack)[:, None]
    centre = np.stack(centre, axis=1)
    lo, hi = centre - half, centre + half
    near = ((lo[:, None] <= rounds.hi[None]) & (hi[:, None] >= rounds.lo[None])).all(axis=2)
    near &= model.collides[:, rounds.column]
    return np.nonzero(near)


def contacts(model: "ContactModel", shape: np.ndarray, k: np.ndarray, vertices: np.ndarray,
             R: np.ndarray) -> "Contacts":
    """The contacts of vehicle shape rows `shape` with static rounds `k` (pairs), from the shapes' world vertices
    (N, K, 3) and rotations (N, 3, 3) (contact.placed_vertices)."""
    from .contact import Contacts, _rows, _world_polytopes, polytope_contacts

    rounds = model.static_rounds
    column = rounds.column[k]
    limit = model.contact_distance[shape, column]
    own_radius = np.zeros(len(shape)) if model.radius is None else model.radius[shape]
    round_own = own_radius > 0.0
    parts = []
    hull = np.nonzero(~round_own)[0]
    if hull.size:  # the static core is polytope_contacts' round shape A, the vehicle's hull B
        A = _rows(rounds.cores, k[hull])
        B = _world_polytopes(model.shapes, shape[hull], vertices, R)
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


def _round_round(model: "ContactModel", shape: np.ndarray, k: np.ndarray, vertices: np.ndarray,
                 limit: np.ndarray) -> "Contacts":
    """A vehicle's sphere or capsule (shape 0) against a static sphere or capsule (shape 1)."""
    from .contact import Contacts, _segments_closest

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
    p0, p1 = _segments_closest(a0, d0, a1, d1)
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
