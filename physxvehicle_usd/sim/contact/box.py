"""PhysX's persistent-contact-manifold (PCM, omni.physx's default) contact points for boxes: which points box-box and
box-plane contacts make and in what order, since the solver's Gauss-Seidel sweep meets them in that order and a
symmetric impact's roll and yaw follow from it.

box-plane (GuPCMContactPlaneBox): the box's corners closer to the plane than the contact distance, in the order
    (+x +y +z), (+x +y -z), (+x -y +z), ..., (-x -y -z) of the box's own axes, each put on the plane; more than four
    reduced by clustering (deepest, farthest from it, farthest either side of their line, then each other point
    replacing the chosen point nearest it where deeper).
box-box (GuPCMContactBoxBox): separating axes (the six face axes and the nine edge-edge axes, these only to reject);
    the face axis of least overlap (the first of equals, the vehicle's box before the static one) gives the
    reference face, the other box's face most opposed to it is the incident face; the points, in this order: the
    incident face's corners inside the reference face, the reference face's corners inside the incident face, the
    incident edges' crossings of the reference face's sides. Each lies on the static box (the incident face's point
    when the vehicle's box is the reference, else the incident point put on the static face). More than four are
    reduced as PhysX reduces a convex manifold.
A pair whose face clipping makes no point (PhysX then runs GJK/EPA for one point) is left to the general polytope
contacts (separating_axes.py), as are boxes against meshes.

A box is recognised from its points: the eight corners box_corners.box_points makes (the reader's), turned and moved.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...box_corners import box_points
from .. import compiled_narrow_phase

CORNER_SIGNS = box_points(np.ones(3))  # the order the reader makes a box's corners in (box_corners.py)

PLANE_ORDER = np.arange(len(CORNER_SIGNS))[::-1]  # PhysX's box-plane corner order: (+,+,+), (+,+,-), ... (-,-,-)

_U_EPS = 1e-6  # PhysX pads the rotation's absolute values by this in its separating-axis tests

_EXTENT_SLACK = 1.0001  # the reference face's sides grown by this when testing which points lie on it

_PARALLEL = 1e-6  # an incident edge component below this is parallel to the reference box's side

_FLOAT_EPS = float(np.finfo(np.float32).eps)  # FEps: how far behind the reference face an edge crossing may start


@dataclass(frozen=True)
class Boxes:
    """Which polytope rows are boxes, and their frames: centre (N, 3), axes (N, 3, 3) (row k: the box's unit k axis),
    half extents (N, 3) (zeros where `mask` is false)."""

    mask: np.ndarray
    centre: np.ndarray
    axes: np.ndarray
    half: np.ndarray

    @classmethod
    def of(cls, corners: list[np.ndarray]) -> "Boxes":
        N = len(corners)
        mask, centre, axes, half = np.zeros(N, bool), np.zeros((N, 3)), np.zeros((N, 3, 3)), np.zeros((N, 3))
        frames: dict[bytes, tuple | None] = {}  # once per distinct shape: a fleet of copies has a few
        for r, points in enumerate(corners):
            key = np.ascontiguousarray(points).tobytes()
            frame = frames[key] if key in frames else frames.setdefault(key, box_frame(points))
            if frame is not None:
                mask[r] = True
                centre[r], axes[r], half[r] = frame
        return cls(mask, centre, axes, half)

    def rows(self, rows: np.ndarray) -> "Boxes":
        return Boxes(self.mask[rows], self.centre[rows], self.axes[rows], self.half[rows])


def box_frame(points: np.ndarray, tolerance: float = 1e-6):
    """(centre, axes (rows, a rotation), half extents) of `points` when they are box_points' eight corners of a box,
    turned and moved (in that order); None otherwise."""
    points = np.asarray(points, dtype=float)
    if points.shape != CORNER_SIGNS.shape:
        return None
    centre = points.mean(axis=0)
    spans = (points[[4, 2, 1]] - points[0]) / 2  # x, y, z
    half = np.sqrt((spans * spans).sum(axis=1))
    scale = max(float(np.abs(points).max()), 1e-12)
    if not (half > tolerance * scale).all():
        return None
    axes = spans / half[:, None]
    square = float(np.abs(axes @ axes.T - np.eye(3)).max()) <= 1e-6
    (ax, ay, az), (bx, by, bz) = axes[0], axes[1]
    # a box's frame is a rotation, not a mirror: x cross y along z
    right_handed = float((ay * bz - az * by) * axes[2, 0] + (az * bx - ax * bz) * axes[2, 1]
                         + (ax * by - ay * bx) * axes[2, 2]) > 0.0
    if not (square and right_handed):
        return None
    if float(np.abs(centre + (CORNER_SIGNS * half) @ axes - points).max()) > tolerance * scale * 10:
        return None
    return centre, axes, half


def box_box(ca: np.ndarray, Ra: np.ndarray, ea: np.ndarray, cb: np.ndarray, Rb: np.ndarray, eb: np.ndarray,
            distance: np.ndarray):
    """`box_box_numpy`, compiled (sim/compiled_narrow_phase.py) where the extension is loaded and covers the call: the
    same bits."""
    compiled = compiled_narrow_phase.box_box(ca, Ra, ea, cb, Rb, eb, distance)
    return compiled if compiled is not None else box_box_numpy(ca, Ra, ea, cb, Rb, eb, distance)


def box_box_numpy(ca: np.ndarray, Ra: np.ndarray, ea: np.ndarray, cb: np.ndarray, Rb: np.ndarray, eb: np.ndarray,
                  distance: np.ndarray):
    """PCM's box-box contacts of P pairs: box A (the vehicle's: centre (P, 3), axes Ra (P, 3, 3) as rows, half
    extents (P, 3)) against box B (static), within contact `distance` (P,). Returns (made (P,) bool: the face clipping
    made points, points (P, 16, 3) world on B, separations (P, 16), valid (P, 16), normal (P, 3) from B towards A),
    points in PhysX's order, at most four valid per pair."""
    # numpy's einsum adds three products in an order that follows its operands' memory layout (sim/_narrow_phase.c
    # does what it does for C-ordered arrays): the same sums whatever the caller's layout
    ca, Ra, ea, cb, Rb, eb, distance = (np.ascontiguousarray(a) for a in (ca, Ra, ea, cb, Rb, eb, distance))
    P = len(ca)
    A, B = np.swapaxes(Ra, 1, 2), np.swapaxes(Rb, 1, 2)  # columns: the axes
    C = np.einsum("pji,pjk->pik", A, B)  # B's axes in A's frame (columns)
    t = np.einsum("pji,pj->pi", A, cb - ca)  # B's centre in A's frame
    abs_c = np.abs(C) + _U_EPS  # |B's axis j in A| (column j)
    abs_a = np.abs(np.swapaxes(C, 1, 2)) + _U_EPS  # |A's axis i in B| (column i)
    sign = np.concatenate([t, np.einsum("pi,pij->pj", t, C)], axis=1)  # (P, 6)
    rb = np.einsum("pmi,pm->pi", abs_a, eb)
    ra = np.einsum("pkj,pk->pj", abs_c, ea)
    overlap = np.concatenate([ea + rb, ra + eb], axis=1) - np.abs(sign) + distance[:, None]
    apart = (overlap < 0.0).any(axis=1)
    for i in range(3):  # the edge-edge axes reject only
        i1, i2 = [k for k in range(3) if k != i]
        for j in range(3):
            j1, j2 = [k for k in range(3) if k != j]
            L = np.zeros((P, 3))  # e_i x c_j: component i+1 is -c_(i+2), component i+2 is c_(i+1)
            L[:, (i + 1) % 3] = -C[:, (i + 2) % 3, j]
            L[:, (i + 2) % 3] = C[:, (i + 1) % 3, j]
            r_a = ea[:, i1] * abs_c[:, i2, j] + ea[:, i2] * abs_c[:, i1, j]
            r_b = eb[:, j1] * abs_a[:, j2, i] + eb[:, j2] * abs_a[:, j1, i]
            apart |= np.abs(np.einsum("pk,pk->p", t, L)) > r_a + r_b + distance
    feature = overlap.argmin(axis=1)
    rows = np.arange(P)
    s = sign[rows, feature]
    on_b = feature >= 3
    k = feature % 3
    ref_c = np.where(on_b[:, None], cb, ca)
    ref_R = np.where(on_b[:, None, None], Rb, Ra)  # rows: axes
    ref_e = np.where(on_b[:, None], eb, ea)
    inc_c = np.where(on_b[:, None], ca, cb)
    inc_R = np.where(on_b[:, None, None], Ra, Rb)
    inc_e = np.where(on_b[:, None], ea, eb)
    axis = ref_R[rows, k]  # the reference axis
    # the normal from B towards A (the reference axis, turned to A's side); the clipping frame's z points into the
    # reference box from its face that meets the other
    normal = np.where((s <= 0.0)[:, None], axis, -axis)
    z = np.where(on_b[:, None], -normal, normal)
    face = ref_c - z * ref_e[rows, k][:, None]
    x_axis, y_axis, ex, ey = _clip_frame(ref_R, ref_e, k, z)
    frame = np.stack([x_axis, y_axis, z], axis=1)  # rows
    inc_axes = np.einsum("pij,pkj->pki", frame, inc_R)  # the incident box's axes in the clipping frame (rows)
    inc_centre = np.einsum("pij,pj->pi", frame, inc_c - face)
    pts, inc_normal = _incident_polygon(inc_centre, inc_axes, inc_e)
    local, sep, valid = _calculate_contacts(ex, ey, pts, inc_normal, distance)
    world_local = np.where(on_b[:, None, None], local * np.array([1.0, 1.0, 0.0]), local)  # on B's surface
    points = face[:, None, :] + np.einsum("pqi,pij->pqj", world_local, frame)
    valid &= ~apart[:, None]
    made = valid.any(axis=1)
    _reduce_batch(points, sep, valid, normal)
    return made, points, sep, valid, normal


def _clip_frame(ref_R, ref_e, k, z):
    """The reference face's in-plane axes (x, y) and half sides, as PhysX orders them per face: x the box's z axis
    (faces on x), x axis (on y or z); y the remaining axis, signed so that (x, y, z) is right-handed."""
    rows = np.arange(len(k))
    first = np.where(k == 0, 2, 0)
    second = np.where(k == 1, 2, 1)
    x_axis = ref_R[rows, first]
    y_axis = ref_R[rows, second]
    # PhysX flips x (faces on x) or y (faces on y, z) to keep the frame right-handed
    flip = np.einsum("pj,pj->p", np.cross(x_axis, y_axis), z) < 0.0
    flip_x = flip & (k == 0)
    x_axis = np.where(flip_x[:, None], -x_axis, x_axis)
    y_axis = np.where((flip & ~flip_x)[:, None], -y_axis, y_axis)
    return x_axis, y_axis, ref_e[rows, first], ref_e[rows, second]


def _incident_polygon(centre, axes, half):
    """The incident box's face most opposed to the reference normal (the clipping frame's z, pointing into the
    reference box: the face whose outward normal has the largest z): its four corners in PhysX's order and its
    outward normal, in the clipping frame."""
    P = len(centre)
    rows = np.arange(P)
    d = -axes[:, :, 2]  # each incident axis . (0, 0, -1)
    a = np.abs(d)
    k = np.where((a[:, 0] >= a[:, 1]) & (a[:, 0] >= a[:, 2]), 0, np.where(a[:, 1] >= a[:, 2], 1, 2))
    positive = d[rows, k] > 0.0
    u = axes[rows, k]
    face_normal = np.where(positive[:, None], -u, u)
    e_k = np.where(positive, -half[rows, k], half[rows, k])
    first = np.where(k == 0, 1, 0)
    second = np.where(k == 2, 1, 2)
    r_f = axes[rows, first] * half[rows, first][:, None]
    r_s = axes[rows, second] * half[rows, second][:, None]
    base = centre + u * e_k[:, None]
    pts = np.stack([base + r_f + r_s, base + r_f - r_s, base - r_f - r_s, base - r_f + r_s], axis=1)
    return pts, face_normal


def _calculate_contacts(ex, ey, pts, inc_normal, distance):
    """PCM's clipping of the incident quad `pts` (P, 4, 3) by the reference rectangle (half sides ex, ey) at z = 0:
    points (P, 16, 3) on the incident face, separations (-z), valid (P, 16), in PhysX's order."""
    P = len(pts)
    ex, ey = ex * _EXTENT_SLACK, ey * _EXTENT_SLACK
    out = np.zeros((P, 16, 3))
    sep = np.zeros((P, 16))
    valid = np.zeros((P, 16), bool)
    count = np.zeros(P, np.int64)
    rows = np.arange(P)

    def add(ok, point, pen):
        slot = np.minimum(count, 15)
        out[rows[ok], slot[ok]] = point[ok]
        sep[rows[ok], slot[ok]] = pen[ok]
        valid[rows[ok], slot[ok]] = True
        count[ok] += 1

    z = -pts[:, :, 2]
    penetrating = distance[:, None] > z
    area = penetrating & (np.abs(pts[:, :, 0]) <= ex[:, None]) & (np.abs(pts[:, :, 1]) <= ey[:, None])
    for i in range(4):
        add(area[:, i], pts[:, i], z[:, i])
    more = count < 4
    lo, hi = pts.min(axis=1), pts.max(axis=1)
    denom = inc_normal[:, 2]
    for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        q = np.stack([sx * ex, sy * ey, np.zeros(P)], axis=1)
        inside = more & _contains(pts, q, lo, hi)
        t = np.einsum("pj,pj->p", inc_normal, pts[:, 0] - q) / np.where(denom != 0.0, denom, 1.0)
        point = q.copy()
        point[:, 2] = t
        add(inside & (distance > -t), point, -t)
    box_hi = np.stack([ex, ey, np.full(P, np.inf)], axis=1)
    box_lo = np.stack([-ex, -ey, -(distance + _FLOAT_EPS)], axis=1)
    for start, end in ((0, 3), (1, 0), (2, 1), (3, 2)):
        con0, con1 = area[:, start], area[:, end]
        todo = more & (penetrating[:, start] | penetrating[:, end]) & ~(con0 & con1)
        p0, d = pts[:, start], pts[:, end] - pts[:, start]
        hit, tmin, tmax = _segment_box(p0, d, box_lo, box_hi)
        hit &= todo
        for ok, tt in ((hit & ~con0, tmin), (hit & ~con1, tmax)):
            point = p0 + tt[:, None] * d
            add(ok, point, -point[:, 2])
    return out, sep, valid


def _contains(pts, q, lo, hi):
    """q (P, 3) inside the quad pts (P, 4, 3) seen along z (crossing number, a corner counting as inside)."""
    outside = (q[:, 0] < lo[:, 0]) | (q[:, 0] > hi[:, 0]) | (q[:, 1] < lo[:, 1]) | (q[:, 1] > hi[:, 1])
    inside = np.zeros(len(q), bool)
    corner = np.zeros(len(q), bool)
    for i, j in ((0, 3), (1, 0), (2, 1), (3, 2)):
        pi, pj = pts[:, i], pts[:, j]
        corner |= ((q[:, 0] == pj[:, 0]) & (q[:, 1] == pj[:, 1])) | ((q[:, 0] == pi[:, 0]) & (q[:, 1] == pi[:, 1]))
        straddle = (pj[:, 1] > q[:, 1]) != (pi[:, 1] > q[:, 1])
        dy = np.where(straddle, pi[:, 1] - pj[:, 1], 1.0)
        x_at = pj[:, 0] + (q[:, 1] - pj[:, 1]) * (pi[:, 0] - pj[:, 0]) / dy
        inside ^= straddle & (q[:, 0] < x_at)
    return ~outside & (corner | inside)


def _segment_box(p0, d, lo, hi):
    """Whether the segment p0 + t d, t in [0, 1], meets the box [lo, hi], and its entry and exit t."""
    parallel = np.abs(d) < _PARALLEL
    out_of_range = (p0 > hi) | (lo > p0)
    blocked = (parallel & out_of_range).any(axis=1)
    safe = np.where(parallel, 1.0, d)
    with np.errstate(invalid="ignore", over="ignore"):
        t1 = np.where(parallel, 0.0, (lo - p0) / safe)
        t2 = np.where(parallel, np.inf, (hi - p0) / safe)
    tmin = np.maximum(np.minimum(t1, t2).max(axis=1), 0.0)
    tmax = np.minimum(np.maximum(t1, t2).min(axis=1), 1.0)
    return ~blocked & ~((tmin > tmax) | (tmin > 1.0)), tmin, tmax


def _reduce_batch(points, sep, valid, normal) -> None:
    """At most four of each pair's valid points (P, Q), in place: as PhysX reduces a convex manifold, the chosen
    first, in the order chosen (`_choose_four`). The post-pass that swaps points farther than 2 % of the tolerance
    length for nearer ones (when the deepest is nearer and another farther) is not reproduced."""
    for p in np.nonzero(valid.sum(axis=1) > 4)[0]:
        idx = np.nonzero(valid[p])[0]
        chosen = idx[_choose_four(points[p, idx], sep[p, idx], normal[p])]
        points[p, :4], sep[p, :4] = points[p, chosen], sep[p, chosen]
        valid[p] = False
        valid[p, :4] = True


def _choose_four(pts, sep, normal):
    """PersistentContactManifold's reduceBatchContacts choice (indices into pts, in the order chosen)."""
    n = len(pts)
    candidates = list(range(n))
    deepest = int(np.argmin(sep))  # the first of equals
    chosen = [deepest]
    candidates[candidates.index(deepest)] = candidates[-1]
    candidates.pop()
    d = [float((pts[c] - pts[deepest]) @ (pts[c] - pts[deepest])) for c in candidates]
    at = int(np.argmax(d))
    chosen.append(candidates[at])
    candidates[at] = candidates[-1]
    candidates.pop()
    line = np.cross(pts[chosen[1]] - pts[deepest], normal)
    length = float(np.linalg.norm(line))
    line = line / length if length > 0.0 else normal
    d = [float((pts[c] - pts[deepest]) @ line) for c in candidates]
    hi_at, lo_at = int(np.argmax(d)), int(np.argmin(d))
    high, low = d[hi_at], d[lo_at]
    chosen.append(candidates[hi_at])
    last = candidates[-1]
    candidates[hi_at] = last
    candidates.pop()
    if lo_at == len(candidates):
        lo_at = hi_at
    if high * low > 0.0:
        d = [float((pts[c] - pts[deepest]) @ line) for c in candidates]
        lo_at = int(np.argmax(d))
    chosen.append(candidates[lo_at])
    return np.array(chosen)
