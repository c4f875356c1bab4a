"""The wheel-hull sweeps (sim/ground.py `sweep`) against static spheres and capsules.

The hull H (omni.physx's prism over a regular polygon, wheel_sweep.HULL_POINTS corners a side) moving by t w meets the
capsule C (a segment a b, radius r; a sphere: a = b) first at the least t >= 0 with t w in K = Q + B(r), where
Q = segment - H is the convex polytope with vertices a - h, b - h (h a hull corner) and B(r) the ball: the ray from
the origin along w entering the rounded polytope K. K's boundary is made of
  - round pieces: capsules of radius r about Q's edges, which lie among the hull's edges moved to a and to b and the
    segment moved to each hull corner;
  - flat pieces: Q's faces moved out by r along their normals, which lie among the hull's faces (reflected) moved
    to a or b (or swept along the segment where the face is parallel to it) and the parallelograms of a hull edge
    and the segment.
Each candidate piece lies in K (it is made of points of Q moved by at most r), and the pieces of K's boundary are
among them, so the ray's first hit over all candidates is its entry into K: exact, without GJK, for any turn of the
hull against the segment. The contact normal is the normal of the piece entered (pointing from the capsule towards
the hull, as PhysX's sweep reports it); the hit plane passes through the capsule's extreme point along it.

A hull that starts inside (the origin in K) is moved out as for a triangle (wheel_sweep.sweep): along the direction of
K's nearest boundary point, the minimum translational distance, which is a face normal of Q (the hull's face normals,
the hull's edges crossed with the segment) where the hull overlaps the segment itself, else the direction from Q's
nearest point (the hull's and the segment's nearest points) and r less that distance deep.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .ground import (
    Ground,
    QueryFilter,
    RayHits,
    box_overlaps,
    box_pairs,
    passes_filter,
    round_boxes,
)
from .round_rays import capsule_entry, segment_points

# omni.physx sweeps a wheel as the convex hull of two regular polygons of HULL_POINTS corners, one on each side of
# the wheel (PhysXSetup::getVehicleWheelCylinderConvexMesh in Setup.cpp, built by createCylinderConvexMesh): a unit
# shape along the frame's lateral coordinate axis, scaled to the wheel's radius and half-width at every query
# (PxVehiclePhysXRoadGeometryQueryUpdate). Its flat sides, not a round tread, meet the road.
HULL_POINTS = 30


def _hull_corners() -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of the corner angles i 2 pi / HULL_POINTS, rounded to single precision as omni.physx makes them."""
    step = np.float32(2.0) * np.float32(np.pi) / np.float32(HULL_POINTS)
    theta = step * np.arange(HULL_POINTS, dtype=np.float32)
    return np.cos(theta).astype(float), np.sin(theta).astype(float)


HULL_COS, HULL_SIN = _hull_corners()

_HALF = HULL_POINTS // 2  # corner i + HALF is corner i mirrored: half the side normals and edge directions suffice

# unit side-face normals and cap-edge directions of the polygon, as (cos, sin) weights of the two in-plane axes
HULL_SIDES = np.stack([HULL_COS[:_HALF] + HULL_COS[1:_HALF + 1], HULL_SIN[:_HALF] + HULL_SIN[1:_HALF + 1]], axis=1)

HULL_SIDES /= np.linalg.norm(HULL_SIDES, axis=1, keepdims=True)

HULL_EDGES = np.stack([-HULL_SIDES[:, 1], HULL_SIDES[:, 0]], axis=1)


@dataclass
class SweptWheels:
    """Wheel hulls to sweep, row-major: start centres, the wheel's lateral axis and the two coordinate axes of the
    polygon's plane (the hull's axes rotated into the world), radius, half-width, direction and length of the sweep."""

    centre: np.ndarray  # (N, 3)
    lateral: np.ndarray  # (N, 3) unit
    axis0: np.ndarray  # (N, 3) unit: corner i sits at radius (cos(i 2 pi / n) axis0 + sin(i 2 pi / n) axis1)
    axis1: np.ndarray  # (N, 3) unit
    radius: np.ndarray  # (N,)
    half_width: np.ndarray  # (N,)
    direction: np.ndarray  # (N, 3) unit
    distance: np.ndarray  # (N,)

    def support(self, axes: np.ndarray, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """max over the hull of x . a, minus its centre's, for axes (K, ..., 3) of the wheels `rows` (K)."""
        extra = (slice(None),) + (None,) * (axes.ndim - 2)
        lat = np.abs(np.einsum("k...j,kj->k...", axes, self.lateral[rows]))
        a0 = np.einsum("k...j,kj->k...", axes, self.axis0[rows])
        a1 = np.einsum("k...j,kj->k...", axes, self.axis1[rows])
        ring = (a0[..., None] * HULL_COS + a1[..., None] * HULL_SIN).max(axis=-1)
        return self.half_width[rows][extra] * lat + self.radius[rows][extra] * ring

    def swept_box(self) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) (N, 3): a box around each hull over its whole sweep, from its start to its end."""
        ext = (self.half_width[:, None] * np.abs(self.lateral)
               + self.radius[:, None] * np.sqrt(self.axis0 ** 2 + self.axis1 ** 2)) + 1e-6
        end = self.centre + self.direction * self.distance[:, None]
        return np.minimum(self.centre, end) - ext, np.maximum(self.centre, end) + ext

    def moved(self, rows: np.ndarray, centre: np.ndarray, direction: np.ndarray, distance: np.ndarray) -> "SweptWheels":
        return SweptWheels(centre, self.lateral[rows], self.axis0[rows], self.axis1[rows], self.radius[rows],
                           self.half_width[rows], direction, distance)


@dataclass
class _TriangleHits:
    """The earliest triangle contact of every wheel (t = inf: none; t < 0: the hull starts inside a triangle)."""

    t: np.ndarray  # (N,) distance along the sweep; for a start inside: minus the depth along `mtd`
    normal: np.ndarray  # (N, 3) contact normal, against the sweep direction
    offset: np.ndarray  # (N,) plane through the contact point: n . x + offset = 0
    shape: np.ndarray  # (N,) index into Ground.materials
    mtd: np.ndarray  # (N, 3) for a start inside: the direction that separates the hull from its triangle soonest


def _sweep_triangles(ground: Ground, wheels: SweptWheels, only_shape: np.ndarray | None = None,
                     only: QueryFilter | None = None) -> _TriangleHits:
    """Time of impact of each hull against every triangle it can reach, by separating axes.

    The hull moving along w meets a triangle first where the ray t w enters their Minkowski difference, a convex
    polytope whose faces are normal to a face of either shape or to an edge of one crossed with an edge of the other.
    On each such axis the two projected intervals overlap for t in [enter, exit]; the shapes touch from the largest
    enter on, if that comes before the smallest exit. The axis of the largest enter is the contact normal, which is
    what PhysX's GJK raycast returns (the normal of the difference's face the ray enters through). Triangles facing
    away from the sweep (normal . w >= 0) are culled, as PhysX culls single-sided mesh triangles in sweeps."""
    N = wheels.radius.shape[0]
    out = _TriangleHits(np.full(N, np.inf), np.zeros((N, 3)), np.zeros(N), np.full(N, -1), np.zeros((N, 3)))
    # broad phase: the box around the hull's start and end; triangles facing away from the sweep are culled
    c, w, D = wheels.centre, wheels.direction, wheels.distance
    wi, ti = box_pairs(ground, *wheels.swept_box())
    keep = (ground.tri_normals[ti] * w[wi]).sum(axis=1) < 0.0
    if only is not None:
        keep &= only.passes(wi, ground.plane_normals.shape[0] + ground.tri_shape[ti])
    if only_shape is not None:
        keep &= ground.plane_normals.shape[0] + ground.tri_shape[ti] == only_shape[wi]
    wi, ti = wi[keep], ti[keep]
    if not wi.size:
        return out
    # the separating axes of every pair (K, A, 3): the triangle's normal, the polygon's side normals and the wheel's
    # lateral axis, and every hull edge direction (lateral, polygon edges) crossed with every triangle edge
    v0 = ground.tri_v0[ti]
    verts = np.stack([v0, v0 + ground.tri_e1[ti], v0 + ground.tri_e2[ti]], axis=1)  # (K, 3, 3)
    tri_edges = np.stack([ground.tri_e1[ti], ground.tri_e2[ti] - ground.tri_e1[ti], ground.tri_e2[ti]], axis=1)
    tri_edges /= np.linalg.norm(tri_edges, axis=2, keepdims=True)
    a0, a1, lat = wheels.axis0[wi], wheels.axis1[wi], wheels.lateral[wi]
    sides = HULL_SIDES[None, :, :1] * a0[:, None] + HULL_SIDES[None, :, 1:] * a1[:, None]  # (K, HALF, 3)
    ring_edges = HULL_EDGES[None, :, :1] * a0[:, None] + HULL_EDGES[None, :, 1:] * a1[:, None]
    hull_edges = np.concatenate([lat[:, None], ring_edges], axis=1)
    crossed = np.cross(hull_edges[:, :, None], tri_edges[:, None]).reshape(len(wi), -1, 3)
    axes = np.concatenate([ground.tri_normals[ti][:, None], sides, lat[:, None], crossed], axis=1)
    length = np.linalg.norm(axes, axis=2)
    usable = length > 1e-9  # parallel edges give no axis
    axes = axes / np.where(usable, length, 1.0)[..., None]
    centre = np.einsum("kaj,kj->ka", axes, c[wi])
    reach = wheels.support(axes, wi)
    proj = np.einsum("kaj,kvj->kav", axes, verts)
    tmin, tmax = proj.min(axis=2), proj.max(axis=2)
    lo_c, hi_c = centre - reach, centre + reach
    speed = np.einsum("kaj,kj->ka", axes, w[wi])
    moving = np.abs(speed) > 1e-12
    safe = np.where(moving, speed, 1.0)
    toward = speed > 0.0
    enter = np.where(toward, tmin - hi_c, tmax - lo_c) / safe
    leave = np.where(toward, tmax - lo_c, tmin - hi_c) / safe
    apart = (hi_c < tmin) | (lo_c > tmax)  # separated on an axis the motion does not change
    enter = np.where(moving, enter, np.where(apart, np.inf, -np.inf))
    leave = np.where(moving, leave, np.where(apart, -np.inf, np.inf))
    enter = np.where(usable, enter, -np.inf)
    leave = np.where(usable, leave, np.inf)
    k = np.argmax(enter, axis=1)
    rows = np.arange(len(wi))
    toi, exit_ = enter[rows, k], leave.min(axis=1)
    ok = (toi <= exit_) & (toi <= D[wi]) & (exit_ >= 0.0)
    # contact normal: the entering axis turned against the motion; the plane touches the triangle's extreme point
    normal = axes[rows, k] * np.where(toward[rows, k], -1.0, 1.0)[:, None]
    offset = -np.einsum("kvj,kj->kv", verts, normal).max(axis=1)
    # started inside (toi < 0): the axis of least overlap separates the pair soonest; its depth orders the pairs
    over_hi, over_lo = hi_c - tmin, tmax - lo_c  # overlap when the hull leaves along -axis / +axis
    depth = np.where(usable, np.minimum(over_hi, over_lo), np.inf)
    m = np.argmin(depth, axis=1)
    mtd = axes[rows, m] * np.where(over_lo[rows, m] < over_hi[rows, m], 1.0, -1.0)[:, None]
    t = np.where(ok, np.where(toi < 0.0, -depth[rows, m], toi), np.inf)
    # the earliest pair of each wheel (the deepest when it starts inside; of equals, the lowest triangle index)
    order = np.lexsort((ti, t, wi))
    wi, t = wi[order], t[order]
    first = np.r_[True, wi[1:] != wi[:-1]]
    best = order[first]
    got = np.isfinite(t[first])
    rows_w = wi[first][got]
    best = best[got]
    out.t[rows_w] = t[first][got]
    out.normal[rows_w] = normal[best]
    out.offset[rows_w] = offset[best]
    out.shape[rows_w] = ground.plane_normals.shape[0] + ground.tri_shape[ti[best]]
    out.mtd[rows_w] = mtd[best]
    return out


def _sweep_shapes(ground: Ground, wheels: SweptWheels, only_shape: np.ndarray | None = None,
                  only: QueryFilter | None = None) -> _TriangleHits:
    """The earliest contact of each hull with the triangles and the static spheres and capsules
    (sim/wheel_sweep.py) that `only` lets it meet; of equally early ones, the triangle's."""
    hits = _sweep_triangles(ground, wheels, only_shape, only)
    if ground.round_ends is None:
        return hits

    rounds = sweep_rounds(ground, wheels, only_shape, only)
    sooner = rounds.t < hits.t
    for name in ("t", "normal", "offset", "shape", "mtd"):
        getattr(hits, name)[sooner] = getattr(rounds, name)[sooner]
    return hits


def sweep(ground: Ground, wheels: SweptWheels, only: QueryFilter | None = None) -> RayHits:
    """The road plane of each wheel hull swept from maximum compression along its suspension (PxScene::sweep with
    eMTD, then PxVehiclePhysXRoadGeometryQueryUpdate's use of the hit), component-first like `raycast`; only: which
    shapes each wheel may meet (None: all).

    The closest contact gives the plane through its contact point with its normal. A hull that starts inside a
    triangle, sphere or capsule is moved out along the separating direction by 1.01 max(radius, depth), swept back
    against that mesh (sphere, capsule) alone, and the plane of that contact is used (none when it starts inside
    again). A plane is a half-space: the hull hits it when its lowest corner is below the plane at the start or at the
    end of the sweep, and then the plane itself is the hit plane."""
    N = wheels.radius.shape[0]
    best_t = np.full(N, np.inf)
    best_n = np.zeros((N, 3))
    best_d = np.zeros(N)
    best_shape = np.full(N, -1)
    for k in range(ground.plane_normals.shape[0]):
        n, d = ground.plane_normals[k], float(ground.plane_offsets[k])
        low = wheels.centre @ n + d - wheels.support(np.broadcast_to(-n, (N, 1, 3)))[:, 0]
        along = wheels.direction @ n
        toi = np.where(low <= 0.0, low, low / np.where(along < 0.0, -along, 1.0))
        hits = (low <= 0.0) | ((along < 0.0) & (toi <= wheels.distance))
        better = hits & (toi < best_t) & passes_filter(only, slice(None), k)
        best_t = np.where(better, toi, best_t)
        best_n = np.where(better[:, None], n, best_n)
        best_d = np.where(better, d, best_d)
        best_shape = np.where(better, k, best_shape)
    tri = _sweep_shapes(ground, wheels, only=only)
    inside = np.nonzero(np.isfinite(tri.t) & (tri.t < 0.0) & (tri.t < best_t))[0]
    if inside.size:
        # PxVehiclePhysXRoadGeometryQueryUpdate: out along the separating direction, then back against that mesh
        step = np.maximum(wheels.radius[inside], -tri.t[inside])
        out_there = wheels.centre[inside] + tri.mtd[inside] * (1.01 * step)[:, None]
        again = _sweep_shapes(ground, wheels.moved(inside, out_there, -tri.mtd[inside], 1.02 * step),
                              only_shape=tri.shape[inside])
        clean = np.isfinite(again.t) & (again.t > 0.0)
        tri.t[inside] = np.where(clean, -1.0, np.inf)  # a start inside comes before any contact along the sweep
        tri.normal[inside], tri.offset[inside] = again.normal, again.offset
        tri.shape[inside] = np.where(clean, tri.shape[inside], -1)
    better = np.isfinite(tri.t) & (tri.t < best_t)
    best_t = np.where(better, tri.t, best_t)
    best_n = np.where(better[:, None], tri.normal, best_n)
    best_d = np.where(better, tri.offset, best_d)
    best_shape = np.where(better, tri.shape, best_shape)
    hit = np.isfinite(best_t)
    return RayHits(hit, np.ascontiguousarray(best_n.T), best_d, np.where(hit, best_shape, -1))


_TINY = 1e-12


def _hull(wheels: "SweptWheels", rows: np.ndarray):
    """The hulls of wheels `rows` at their start: corners (K, 2n, 3) (one side's ring, then the other's), edges as
    corner index pairs (E, 2), faces as corner loops (F, n) (padded by repeating the last corner) with their counts
    and outward normals (K, F, 3)."""

    n = HULL_POINTS
    c, lat, a0, a1 = wheels.centre[rows], wheels.lateral[rows], wheels.axis0[rows], wheels.axis1[rows]
    r, hw = wheels.radius[rows], wheels.half_width[rows]
    ring = r[:, None, None] * (HULL_COS[None, :, None] * a0[:, None] + HULL_SIN[None, :, None] * a1[:, None])
    side = (hw[:, None] * lat)[:, None]
    corners = np.concatenate([c[:, None] + ring - side, c[:, None] + ring + side], axis=1)
    i = np.arange(n)
    j = (i + 1) % n
    edges = np.concatenate([np.stack([i, j], 1), np.stack([i + n, j + n], 1), np.stack([i, i + n], 1)])
    quads = np.stack([i, j, j + n, i + n], 1)
    loops = np.concatenate([np.concatenate([quads, np.repeat(quads[:, -1:], n - 4, 1)], 1),
                            i[::-1][None], (i + n)[None]])
    counts = np.r_[np.full(n, 4), n, n]
    mid = (corners[:, quads[:, 0]] + corners[:, quads[:, 1]]) / 2 - c[:, None]
    mid = mid - (mid * lat[:, None]).sum(2, keepdims=True) * lat[:, None]
    normals = np.concatenate([mid / np.linalg.norm(mid, axis=2, keepdims=True), -lat[:, None], lat[:, None]], axis=1)
    return corners, edges, loops, counts, normals


def _segment_distance(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distance of the origin from segments p q (K, S, 3), and their nearest points."""
    d = q - p
    s = np.clip((-p * d).sum(2) / np.maximum((d * d).sum(2), _TINY), 0.0, 1.0)
    nearest = p + s[..., None] * d
    return np.linalg.norm(nearest, axis=2), nearest


def _in_face(y: np.ndarray, v: np.ndarray, loop: np.ndarray, count: np.ndarray, normal: np.ndarray,
             s_max: np.ndarray) -> np.ndarray:
    """Whether y + s v lies in the face (corners `loop` (K, F, M, 3), `count` real ones, outward `normal` (K, F, 3))
    for some s in [0, s_max]: the face's sides bound s from both ends. y (K, F, 3), v (K, 3), s_max (K, F)."""
    M = loop.shape[2]
    following = np.where((np.arange(M) >= count[:, None] - 1)[None, :, :, None], loop[:, :, :1],
                         np.roll(loop, -1, axis=2))
    out = np.cross(following - loop, normal[:, :, None])  # in-plane, across each side
    inward = ((loop.mean(axis=2)[:, :, None] - loop) * out).sum(3)
    out = np.where((inward > 0.0)[..., None], -out, out)  # outward: away from the corners' mean
    real = np.arange(M)[None, None] < count[None, :, None]
    base = ((y[:, :, None] - loop) * out).sum(3)  # + s (v . out) <= 0 on every side
    slope = (v[:, None, None] * out).sum(3)
    eps = 1e-9 * (1.0 + np.abs(base))
    lo = np.where(real & (slope < -_TINY), -base / np.where(slope < -_TINY, slope, -1.0), -np.inf).max(axis=2)
    hi = np.where(real & (slope > _TINY), -base / np.where(slope > _TINY, slope, 1.0), np.inf).min(axis=2)
    flat = real & (np.abs(slope) <= _TINY)
    fixed = np.where(flat, base <= eps, True).all(axis=2)
    lo, hi = np.maximum(lo, 0.0), np.minimum(hi, s_max)
    return fixed & (lo <= hi + 1e-9)


def sweep_rounds(ground: "Ground", wheels: "SweptWheels", only_shape: np.ndarray | None = None,
                 only: "QueryFilter | None" = None) -> "_TriangleHits":
    """The earliest sphere or capsule contact of every wheel hull swept along its direction (wheel_sweep._TriangleHits:
    t < 0 where it starts inside, minus the depth along `mtd`), of the shapes `only` lets it meet (None: all)."""

    N = wheels.radius.shape[0]
    out = _TriangleHits(np.full(N, np.inf), np.zeros((N, 3)), np.zeros(N), np.full(N, -1), np.zeros((N, 3)))
    w, D = wheels.direction, wheels.distance
    wi, k = box_overlaps(*wheels.swept_box(), *round_boxes(ground))
    if only_shape is not None:
        keep = ground.round_first + k == only_shape[wi]
        wi, k = wi[keep], k[keep]
    if only is not None:
        keep = only.passes(wi, ground.round_first + k)
        wi, k = wi[keep], k[keep]
    if not wi.size:
        return out
    corners, edges, loops, counts, normals = _hull(wheels, wi)
    a, b, r = ground.round_ends[k, 0], ground.round_ends[k, 1], ground.round_radius[k]
    v = b - a
    ww = w[wi]
    K = len(wi)
    # round pieces: the hull's edges at a and at b (reflected), the segment at each corner
    ends = [(a[:, None] - corners[:, edges[:, 0]], a[:, None] - corners[:, edges[:, 1]]),
            (b[:, None] - corners[:, edges[:, 0]], b[:, None] - corners[:, edges[:, 1]]),
            (a[:, None] - corners, b[:, None] - corners)]
    p = np.concatenate([e[0] for e in ends], axis=1)
    q = np.concatenate([e[1] for e in ends], axis=1)
    # rays from the origin along w into the capsules of the pieces (a start inside: sweep_shapes's depth)
    t_round = capsule_entry(ww[:, None], p, q, r[:, None], unit=True, tiny=_TINY)
    best_round = t_round.argmin(axis=1)
    rows = np.arange(K)
    # flat pieces (1): a hull face, reflected, at a (swept along the segment where parallel to it) and at b, its
    # outward normal in K minus the face's; (2): the parallelogram of a hull edge and the segment, either side out
    face_loops = corners[:, loops]  # (K, F, M, 3)
    f0 = face_loops[:, :, 0]
    parallel = np.abs((normals * v[:, None]).sum(2)) <= 1e-9 * (1.0 + np.linalg.norm(v, axis=1))[:, None]
    e = corners[:, edges[:, 1]] - corners[:, edges[:, 0]]  # (K, E, 3)
    cross = np.cross(np.broadcast_to(v[:, None], e.shape), e)
    size = np.linalg.norm(cross, axis=2)
    usable = size > 1e-9 * (1.0 + np.linalg.norm(v, axis=1)[:, None] * np.linalg.norm(e, axis=2))
    unit = cross / np.where(usable, size, 1.0)[..., None]
    corner0 = a[:, None] - corners[:, edges[:, 0]]  # the parallelogram: corner0 + s v - l e
    vv, ee, ve = (v * v).sum(1)[:, None], (e * e).sum(2), (v[:, None] * e).sum(2)
    det = vv * ee - ve * ve
    solvable = usable & (det > _TINY * np.maximum(vv * ee, _TINY))

    def on_face(at, s_max, x):
        """Whether x (K, F, 3) lies on the reflected faces at `at` (swept by s v, s in [0, s_max])."""
        # x = at + s v - f  =>  f = at - x + s v
        return _in_face(at[:, None] - x, v, face_loops, counts, normals, s_max)

    def on_parallelogram(x):
        rel = x - corner0  # = s v - l e (v and e span the piece's plane: least squares)
        rv, re = (rel * v[:, None]).sum(2), (rel * e).sum(2)
        s = (rv * ee - re * ve) / np.where(solvable, det, 1.0)
        lam = (rv * ve - re * vv) / np.where(solvable, det, 1.0)
        tol = 1e-9
        return solvable & (s >= -tol) & (s <= 1 + tol) & (lam >= -tol) & (lam <= 1 + tol)

    flat = [(a, np.where(parallel, 1.0, 0.0), -normals), (b, np.zeros(parallel.shape), -normals),
            (None, None, unit), (None, None, -unit)]
    t_flat, n_flat, gap_flat, side_flat = [], [], [], []
    for at, s_max, m in flat:
        plane = (m * (at[:, None] - f0)).sum(2) if at is not None else (m * corner0).sum(2)  # m . x on Q's face
        speed = (m * ww[:, None]).sum(2)
        offset = plane + r[:, None]
        t = np.where((speed < -_TINY) & (offset < 0.0), offset / np.where(speed < -_TINY, speed, -1.0), np.inf)
        hit = np.where(np.isfinite(t), t, 0.0)[..., None] * ww[:, None] - r[:, None, None] * m  # on Q's face
        foot = plane[..., None] * m  # the origin's projection onto Q's face plane
        if at is not None:
            t_flat.append(np.where(on_face(at, s_max, hit) & np.isfinite(t), t, np.inf))
            gap_flat.append(np.where(on_face(at, s_max, foot), np.abs(plane), np.inf))
        else:
            t_flat.append(np.where(on_parallelogram(hit) & np.isfinite(t), t, np.inf))
            gap_flat.append(np.where(on_parallelogram(foot), np.abs(plane), np.inf))
        n_flat.append(m)
        side_flat.append(np.where(plane <= 0.0, 1.0, -1.0))  # the origin's side of Q's face: outward, inward
    t_flat, n_flat = np.concatenate(t_flat, axis=1), np.concatenate(n_flat, axis=1)
    best_flat = t_flat.argmin(axis=1)
    toi_round, toi_flat = t_round[rows, best_round], t_flat[rows, best_flat]
    toi = np.minimum(toi_round, toi_flat)
    # the normal of the piece entered: a round piece's from its segment to the entry point, a flat one's own
    x = np.where(np.isfinite(toi), toi, 0.0)[:, None] * ww
    on = segment_points(p[rows, best_round], q[rows, best_round], x)
    round_normal = (x - on) / np.maximum(np.linalg.norm(x - on, axis=1), _TINY)[:, None]
    normal = np.where((toi_round <= toi_flat)[:, None], round_normal, n_flat[rows, best_flat])
    # started inside: K's nearest boundary point. The origin in Q: the face of Q nearest it (its normals among the
    # hull's reflected face normals and the hull edges crossed with the segment); else r less Q's distance deep,
    # along the line from Q's nearest point (on an edge or a face of Q)
    distance, nearest = _segment_distance(p, q)
    gap_faces = np.concatenate(gap_flat, axis=1)
    face_nearest = gap_faces.argmin(axis=1)
    gap_face = gap_faces[rows, face_nearest]
    edge_nearest = distance.argmin(axis=1)
    gap_edge = distance[rows, edge_nearest]
    gap = np.minimum(gap_edge, gap_face)
    side = np.concatenate(side_flat, axis=1)[rows, face_nearest]
    from_q = np.where((gap_face < gap_edge)[:, None], side[:, None] * n_flat[rows, face_nearest],
                      -nearest[rows, edge_nearest] / np.maximum(gap_edge, _TINY)[:, None])
    axes = np.concatenate([-normals, unit, -unit], axis=1)
    axes_ok = np.concatenate([np.ones(normals.shape[:2], bool), usable, usable], axis=1)
    support_hull = np.einsum("kaj,kcj->kac", axes, corners).min(axis=2)  # min over corners of axis . h
    support_q = np.maximum((axes * a[:, None]).sum(2), (axes * b[:, None]).sum(2)) - support_hull
    support_q = np.where(axes_ok, support_q, np.inf)
    in_q = (support_q >= 0.0).all(axis=1)
    least = support_q.argmin(axis=1)
    inside = in_q | (gap < r)
    mtd = np.where(in_q[:, None], axes[rows, least], from_q)
    depth = np.where(in_q, support_q[rows, least] + r, r - gap)
    ok = inside | (np.isfinite(toi) & (toi <= D[wi]))
    t = np.where(inside, -depth, toi)
    offset = -(np.maximum((normal * a).sum(1), (normal * b).sum(1)) + r)
    t = np.where(ok, t, np.inf)
    order = np.lexsort((k, t, wi))
    wi_sorted = wi[order]
    first = np.r_[True, wi_sorted[1:] != wi_sorted[:-1]]
    best = order[first]
    got = np.isfinite(t[best])
    best = best[got]
    rows_w = wi[best]
    out.t[rows_w] = t[best]
    out.normal[rows_w] = normal[best]
    out.offset[rows_w] = offset[best]
    out.shape[rows_w] = ground.round_first + k[best]
    out.mtd[rows_w] = mtd[best]
    return out
