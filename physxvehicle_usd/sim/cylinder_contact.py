"""Exact cylinders (the vehicles' UsdGeom.Cylinder colliders, PhysX's convex cores) against the triangles of static
meshes, as PhysX's convex-core mesh contact (GuContactConvexCoreMesh.cpp, Gu::generateContacts) makes them, and
against boxes, convex hulls, spheres, capsules and cylinders (static ones and other vehicles' shapes) as its
convex-core convex contact (GuContactConvexCoreConvex.cpp) makes them (`cylinder_convexes`: the same GJK, EPA and
faces, a box as PhysX's box core, a hull as its points core like a triangle, a sphere or capsule as its point or
segment core with the radius its margin, a cylinder as its core, both poses less their midpoint, the pair in PhysX's
order; one patch a pair).

Per triangle the midphase finds near the cylinder:
  closest   the separating axis (from the triangle towards the cylinder), the distance and a witness point on each,
            from PhysX's reference GJK (`gjk_distance`: support points welded within 1 % of each shape's largest
            dimension, stopping within 1 % of that), or, where GJK finds them nearer than its tolerance, its EPA
            (`epa_depth`). The triangle is inflated by a margin of 1e-4 of the cylinder's smallest half extent plus
            the contact distance, as PhysX inflates it. Off the triangle's face the axis tilts with the cylinder's
            rim (a neighbour's edge met beside the face the cylinder stands on). A pair farther than the contact
            distance, or whose axis turns against the triangle's front, makes nothing;
  faces     the cylinder's face towards the triangle (-axis): its side's line where the axis is within 8 degrees of
            square to the cylinder's axis (two points), its cap's rim within 8 degrees of it (four, the first towards
            the witness), else none; the triangle's towards the cylinder (+axis): its three corners where the axis
            is within 8 degrees of its normal, an edge within 8 degrees of that edge's normal in the axis's plane;
  clipped   a face of two points against one of two: where the segments overlap (parallel only, else one point);
            otherwise the polygon of the two-point face (or the faces' bounding rectangle about the axis) clipped
            by the prisms of the faces of three or more points, with the witnesses' midpoint added; each point
            then placed halfway between the two faces' planes (along the axis), its separation their distance; the
            deepest first, then at most three more (the farthest from it, the farthest on either side of their line).
            Where either face is missing: the witnesses' midpoint alone.
Every point is kept: PhysX drops one only where its normal is more than 8 degrees from the triangle's, it lies on the
triangle's rim and the mesh's adjacency (if the cooking built it) shows a neighbour hiding it; not modelled (a road
whose slope changes by less than 8 degrees never asks). The points of all the pair's triangles are gathered into patches by normal (within
PXC_SAME_NORMAL of a patch's first), at most four per patch: each new point enters behind the deeper ones and the
patch keeps the deepest, the farthest from it and the farthest on either side of their line. Nothing is kept from
step to step (no PCM cache for convex cores).

GJK and EPA run here in float32, operation by operation as PhysX's reference GJK / EPA (GuRefGjkEpa.h, called by
Gu::generateContacts in GuConvexSupport.h) rounds them (PxVec3, PxQuat; SSE, no fused multiply-add), the cylinder's
support through its core's pose (its +x the axis, turned with the wheel about its axle: core_turn), and that is what
tilts a resting patch's normal off the face's. The normal is GJK's axis, the Minkowski point nearest the origin made
unit; that point is the difference of a cylinder support point and triangle corners tens of metres away (a float32
step of 2-4 um at 30 m) over a gap of 0.2 mm, so its sideways components are a few such steps: a few mrad (on
WheelsRolling's flat road PhysX's median 2.5 mrad, 90 % under 10.5, at the origin too; here, over the car's run at
y = -400, median 2.9, 90 % under 12.3, rms along the car 7.1 against PhysX's 6.6, 2 % over 0.1 rad against 1.8 %).
Where and which way a patch tilts is rounding's: a float32 step of the pose or the wheel's angle changes it among a
handful of values 0.6 mrad or more apart; given PhysX's pose, WheelsRolling's step-1 normals of all eight patches are
PhysX's within 0.01 mrad (tests/test_cylinder_contact.py). A tilt against the motion loads the patch
(tests/test_conformance_contact.py CYLINDER_LOAD_OUT). The frame is the world's, PhysX's the mesh's: the same where
the mesh prim is not moved (a rotated mesh also starts PhysX's searches along other axes: the boxes' centres and the
basis are the mesh's). Triangles are met in index order (PhysX: its midphase's). Pure Python pair by pair (a pair no
separating axis keeps apart costs GJK, EPA where touching, and the clipping), on numpy float32 scalars: the wheel
scenarios of tests/test_conformance_contact.py ran 27 s with them, 21 s with GJK / EPA in Python floats.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import vecmath as vm

_FACE, _SIDE = 0.99, 0.14  # ~cos 8 and cos 82 degrees: a face (cap, triangle) or the side's line meets the axis
_SAME_NORMAL = 0.999  # PXC_SAME_NORMAL
_CULL = 1e-5  # an axis this far (cosine) against the triangle's normal makes no contact
_MARGIN = 1e-4  # the triangle's margin, of the cylinder's smallest half extent plus the contact distance
_EPS = 1e-5  # PhysX's clipping and face-building tolerances (its float32 eps)
_FLT_EPSILON = 1.1920929e-07
_FLT_MAX = 3.4028235e38
_F = np.float32


def cylinder_triangles(centre: np.ndarray, axis: np.ndarray, half: np.ndarray, radius: np.ndarray,
                       triangles: np.ndarray, limit: np.ndarray, group: np.ndarray, turn: np.ndarray | None = None):
    """Contacts of exact cylinders with triangles, pair by pair: cylinder centres (P, 3), unit axes (P, 3; PhysX's
    core +x: towards the cap that comes first in the cylinder's ends), half heights and radii (P,); triangles (P, 3, 3)
    counter-clockwise about their front normals; the contact distances (P,); group (P,): pairs of one group (a
    cylinder and one mesh) gather their points into patches together, in the order given; turn (P, 4): the cores'
    float32 quaternions (core_turn; None: each axis's shortest arc).
    Returns (pair (C,), point (C, 3), normal (C, 3), separation (C,)), patch after patch, group after group."""
    P = len(centre)
    if not P:
        return np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)
    v0, v1, v2 = triangles[:, 0], triangles[:, 1], triangles[:, 2]
    tn = np.cross(v1 - v0, v2 - v0)
    tn /= np.linalg.norm(tn, axis=1, keepdims=True)
    margin = _MARGIN * (np.minimum(half, radius) + limit)
    dist, n, w0, w1 = np.full(P, np.inf), tn.copy(), np.zeros((P, 3)), np.zeros((P, 3))
    for p in np.nonzero(_near(centre, axis, half, radius, triangles, tn, limit + margin))[0]:
        q = None if turn is None else turn[p]
        found = gjk_distance(centre[p], axis[p], half[p], radius[p], triangles[p], limit[p] + margin[p], q)
        if found[0] < _FLT_EPSILON:  # touching: EPA's depth (none where its polytope cannot be built)
            found = epa_depth(centre[p], axis[p], half[p], radius[p], triangles[p], q) or (np.inf, None, None, None)
        dist[p] = found[0]
        if found[1] is not None:
            w0[p], w1[p], n[p] = found[1:]
    dist = dist - margin
    w1 = w1 + margin[:, None] * n
    made = (dist <= limit) & (np.einsum("pj,pj->p", tn, n) >= -_CULL)
    out_pair, out_point, out_normal, out_sep = [], [], [], []
    patches: list[list] = []  # of the current group: [normal, points [(point, separation, pair)]]
    current = None
    for p in range(P):
        if group[p] != current:
            _flush(patches, out_pair, out_point, out_normal, out_sep)
            patches, current = [], group[p]
        if not made[p]:
            continue
        points, seps = _patch(_cylinder_face(centre[p], axis[p], half[p], radius[p], -n[p], w0[p]),
                              _points_face(triangles[p], n[p], margin[p]), w0[p], w1[p], n[p])
        for q, s in zip(points, seps):
            _add(patches, n[p], q, s, p)
    _flush(patches, out_pair, out_point, out_normal, out_sep)
    if not out_pair:
        return np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)
    return np.array(out_pair), np.array(out_point), np.array(out_normal), np.array(out_sep)


def cylinder_convexes(centre: np.ndarray, axis: np.ndarray, half: np.ndarray, radius: np.ndarray, others: list,
                      limit: np.ndarray, turn: np.ndarray | None = None):
    """Contacts of exact cylinders with boxes, convex hulls, spheres, capsules and cylinders (static, or other
    vehicles'), pair by pair, as PhysX's convex-core contacts against a convex (contactConvexCoreConvex:
    Gu::generateContacts, the poses shifted by their midpoint): the cylinders as in `cylinder_triangles`, `others`
    (P,) BoxCores, PointsCores, RoundCores or CylinderCores, the contact distances (P,); the normals from the other
    shape towards the cylinder. A round's core is met within the contact distance grown by its radius, its witness and
    its face then pushed out by the radius. Each pair makes one patch of at most four points, in the order the patch
    gives them (deepest first). Returns (pair (C,), point (C, 3), normal (C, 3), separation (C,)), pair after pair."""
    out_pair, out_point, out_normal, out_sep = [], [], [], []
    for p, other in enumerate(others):
        q = None if turn is None else turn[p]
        margin = other.radius if isinstance(other, RoundCore) else 0.0
        found = gjk_distance(centre[p], axis[p], half[p], radius[p], other, limit[p] + margin, q)
        if found[0] < _FLT_EPSILON:
            found = epa_depth(centre[p], axis[p], half[p], radius[p], other, q) or (np.inf, None, None, None)
        if not found[0] <= limit[p] + margin or found[1] is None:
            continue
        w0, w1, n = found[1:]
        w1 = w1 + n * margin
        cylinder_face = _cylinder_face(centre[p], axis[p], half[p], radius[p], -n, w0)
        if isinstance(other, CylinderCore):
            other_face = _cylinder_face(other.centre, other.axis, other.half, other.radius, n, w1)
        else:
            other_face = (_box_face(other, n) if isinstance(other, BoxCore) else _segment_face(other, n)
                          if isinstance(other, RoundCore) else _points_face(other.points, n, 0.0))
        if _other_first(other):
            points, seps = _patch(other_face, cylinder_face, w1, w0, -n)
        else:
            points, seps = _patch(cylinder_face, other_face, w0, w1, n)
        for point, separation in zip(points, seps):  # into the contact buffer as made
            out_pair.append(p)
            out_point.append(point)
            out_normal.append(n)
            out_sep.append(separation)
    if not out_pair:
        return np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0)
    return np.array(out_pair), np.array(out_point), np.array(out_normal), np.array(out_sep)


def _near(centre, axis, half, radius, triangles, tn, reach) -> np.ndarray:
    """(P,) bool: the pairs no separating axis (the triangle's normal, either way, and its sides' outward normals in
    its plane) shows farther apart than `reach`: GJK would find the others farther too."""
    def gap(direction, offset):  # the cylinder's lowest extent along `direction` beyond the plane at `offset`
        along = np.abs(np.einsum("pj,pj->p", direction, axis))
        extent = half * along + radius * np.sqrt(np.maximum(1.0 - along ** 2, 0.0))
        return np.einsum("pj,pj->p", direction, centre) - extent - offset
    near = gap(tn, np.einsum("pj,pj->p", tn, triangles[:, 0])) <= reach
    near &= gap(-tn, -np.einsum("pj,pj->p", tn, triangles[:, 0])) <= reach
    for i in range(3):
        a, b = triangles[:, i], triangles[:, (i + 1) % 3]
        out = np.cross(b - a, tn)
        out /= np.linalg.norm(out, axis=1, keepdims=True)
        near &= gap(out, np.einsum("pj,pj->p", out, a)) <= reach
    return near


# ------------------------------------------------------------------------------------------------ PhysX's GJK

class _V:
    """A 3-vector of float32 scalars, each operation rounded as PhysX's PxVec3 rounds it (SSE, no fused multiply-add):
    PhysX's reference GJK and EPA run in float, and their axis is the float rounding of a point near the origin
    (cylinder_triangles' docstring). Scalars, not numpy arrays: GJK and EPA make many small steps."""

    __slots__ = ("x", "y", "z")

    def __init__(self, x, y, z) -> None:
        self.x, self.y, self.z = _F(x), _F(y), _F(z)

    @classmethod
    def of(cls, a) -> "_V":
        return cls(a[0], a[1], a[2])

    def __add__(self, o: "_V") -> "_V":
        return _V(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o: "_V") -> "_V":
        return _V(self.x - o.x, self.y - o.y, self.z - o.z)

    def __neg__(self) -> "_V":
        return _V(-self.x, -self.y, -self.z)

    def __mul__(self, k) -> "_V":
        k = _F(k)
        return _V(self.x * k, self.y * k, self.z * k)

    def __truediv__(self, k) -> "_V":  # PxVec3's: by the reciprocal
        return self * (_F(1.0) / _F(k))

    def __matmul__(self, o: "_V"):
        return self.x * o.x + self.y * o.y + self.z * o.z

    def cross(self, o: "_V") -> "_V":
        return _V(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)

    def norm(self):
        return np.sqrt(self @ self)

    def unit(self) -> "_V":  # getNormalized: by the reciprocal square root, zero stays zero
        m = self @ self
        return self * (_F(1.0) / np.sqrt(m)) if m > 0.0 else _V(0.0, 0.0, 0.0)

    def array(self) -> np.ndarray:
        return np.array([self.x, self.y, self.z], np.float64)


_ZERO = _V(0.0, 0.0, 0.0)


class _Turn:
    """A float32 unit quaternion (x, y, z, w) turning vectors as PxQuat::rotate / rotateInv do."""

    def __init__(self, q) -> None:
        self.x, self.y, self.z, self.w = (_F(c) for c in q)

    def rotate(self, v: _V, inverse: bool = False) -> _V:
        vx, vy, vz = _F(2.0) * v.x, _F(2.0) * v.y, _F(2.0) * v.z
        w2 = self.w * self.w - _F(0.5)
        dot2 = self.x * vx + self.y * vy + self.z * vz
        s = -self.w if inverse else self.w
        return _V(vx * w2 + (self.y * vz - self.z * vy) * s + self.x * dot2,
                  vy * w2 + (self.z * vx - self.x * vz) * s + self.y * dot2,
                  vz * w2 + (self.x * vy - self.y * vx) * s + self.z * dot2)

    def world_axes(self) -> tuple[_V, _V, _V]:
        """The world's x, y and z axes in the turned frame (getInvBasisVector0-2)."""
        x, y, z, w = self.x, self.y, self.z, self.w
        x2, y2, z2, w2 = x * _F(2.0), y * _F(2.0), z * _F(2.0), w * _F(2.0)
        return (_V((w * w2) - _F(1.0) + x * x2, (-z * w2) + y * x2, (y * w2) + z * x2),
                _V((z * w2) + x * y2, (w * w2) - _F(1.0) + y * y2, (-x * w2) + z * y2),
                _V((-y * w2) + x * z2, (x * w2) + y * z2, (w * w2) - _F(1.0) + z * z2))


_IDENTITY = _Turn((0.0, 0.0, 0.0, 1.0))


def core_turn(axis: np.ndarray, frame: np.ndarray | None = None) -> np.ndarray:
    """(P, 4) float32 quaternions (x, y, z, w) of cylinder cores: the shortest arc turning the core's +x onto `axis`
    (P, 3, any length; about +z by 90 degrees for +y: (0, 0, 0.70710677, 0.70710677), PhysX's for a Y cylinder),
    after which `frame` (P, 3, 3; None: none) turns it, `axis` then being in that frame. PhysX's core frame turns
    with the wheel about its axle, and the core's support along the axis (a point of the cap's rim, the core's +y) and
    so which support points GJK welds turn with it: a cylinder's patch on a triangle's edge beside it 10.8 or 12.0 mm
    away at one angle or another (WheelsOverBump's rear left cylinder, step 9; the contact distance 11.8 mm)."""
    axis = np.asarray(axis, np.float64)
    axis = axis / np.linalg.norm(axis, axis=1, keepdims=True)
    q = np.concatenate([np.cross([1.0, 0.0, 0.0], axis), 1.0 + axis[:, :1]], axis=1)
    q[q[:, 3] < 1e-9] = [0.0, 0.0, 1.0, 0.0]  # along -x: half a turn about +z
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    if frame is not None:
        f = matrix_turn(np.asarray(frame, np.float64))
        (fx, fy, fz, fw), (x, y, z, w) = f.T, q.T
        q = np.stack([fw * x + w * fx + fy * z - y * fz, fw * y + w * fy + fz * x - z * fx,
                      fw * z + w * fz + fx * y - x * fy, fw * w - fx * x - fy * y - fz * z], axis=1)
    return q.astype(np.float32)


def matrix_turn(R: np.ndarray) -> np.ndarray:
    """(P, 4) unit quaternions (x, y, z, w) of rotation matrices (P, 3, 3), from their largest of 1 + trace and
    1 + 2 R_ii - trace (Shepperd's)."""
    trace = np.einsum("pii->p", R)
    big = np.stack([1.0 + 2.0 * R[:, 0, 0] - trace, 1.0 + 2.0 * R[:, 1, 1] - trace, 1.0 + 2.0 * R[:, 2, 2] - trace,
                    1.0 + trace], axis=1)
    k = np.argmax(big, axis=1)
    s = np.sqrt(np.maximum(big[np.arange(len(R)), k], 1e-300))  # 2 |that component|
    up = np.stack([R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0], R[:, 1, 0] - R[:, 0, 1]], axis=1)  # 4 w (x, y, z)
    pair = np.stack([R[:, 0, 1] + R[:, 1, 0], R[:, 0, 2] + R[:, 2, 0], R[:, 1, 2] + R[:, 2, 1]], axis=1)
    q = np.empty((len(R), 4))
    for i in range(len(R)):
        if k[i] == 3:
            q[i] = [up[i, 0] / s[i], up[i, 1] / s[i], up[i, 2] / s[i], s[i] / 2.0]
            q[i, :3] /= 2.0
        else:
            a = k[i]
            b, c = (a + 1) % 3, (a + 2) % 3
            q[i, a] = s[i] / 2.0
            q[i, b] = pair[i, min(a, b) + max(a, b) - 1] / (2.0 * s[i])
            q[i, c] = pair[i, min(a, c) + max(a, c) - 1] / (2.0 * s[i])
            q[i, 3] = up[i, a] / (2.0 * s[i])
    return q / np.linalg.norm(q, axis=1, keepdims=True)


class _Shape:
    """One shape as PhysX's reference GJK holds it: its support map (world, from its pose), its accuracy (1 % of its
    local bounds' largest dimension, at least FLT_EPSILON) and the centre of its world bounds; its support points
    welded: a new one within the accuracy of one already found is that one (32 at most, then the nearest)."""

    def __init__(self, local, position: _V, turn: _Turn) -> None:
        self.local, self.position, self.turn, self.points = local, position, turn, []
        X, Y, Z = _V(1.0, 0.0, 0.0), _V(0.0, 1.0, 0.0), _V(0.0, 0.0, 1.0)
        size = _V(local(X).x - local(-X).x, local(Y).y - local(-Y).y, local(Z).z - local(-Z).z)
        self.accuracy = max(max(size.x, size.y, size.z) * _F(0.01), _F(_FLT_EPSILON))
        X, Y, Z = turn.world_axes()
        place = self.place
        lo = _V(place(local(-X)).x, place(local(-Y)).y, place(local(-Z)).z)
        hi = _V(place(local(X)).x, place(local(Y)).y, place(local(Z)).z)
        self.centre = (lo + hi) * 0.5

    def place(self, v: _V) -> _V:
        return self.turn.rotate(v) + self.position

    def index(self, direction: _V) -> int:
        v = self.place(self.local(self.turn.rotate(direction, inverse=True)))
        nearest, near = None, _F(_FLT_MAX)
        for i in range(len(self.points) - 1, -1, -1):
            e = self.points[i] - v
            e = e @ e
            if e < self.accuracy * self.accuracy:
                return i
            if near > e:
                nearest, near = i, e
        if len(self.points) == 32:
            return nearest
        self.points.append(v)
        return len(self.points) - 1


def _cylinder_local(half, radius):
    """PhysX's cylinder core's support map in its own frame (its axis +x); the direction normalized first."""
    h, r = _F(_F(2.0 * half) * _F(0.5)), _F(radius)

    def support(direction: _V) -> _V:
        d = direction.unit()
        x = h if d.x >= 0.0 else -h
        if abs(d.y) < _F(1e-5) and abs(d.z) < _F(1e-5):  # along the axis: a point of the cap's rim
            return _V(x, r, 0.0)
        return _V(x, 0.0, 0.0) + _V(0.0, d.y, d.z).unit() * r
    return support


def _points_local(points):
    """A point set's support map (PhysX's points core: a triangle, a convex hull's vertices): the first of the
    points farthest along the direction."""
    corners = [_V.of(v) for v in np.asarray(points, np.float32)]

    def support(direction: _V) -> _V:
        if direction.norm() < _FLT_EPSILON:
            return _ZERO
        best, at = _F(-_FLT_MAX), corners[0]
        for v in corners:  # the first of equals
            if v @ direction > best:
                best, at = v @ direction, v
        return at
    return support


def _box_local(half):
    """PhysX's box core's support map in its own frame (its extents twice the half extents; PxSign: + at 0)."""
    e = [_F(_F(2.0 * h) * _F(0.5)) for h in half]

    def support(direction: _V) -> _V:
        return _V(e[0] if direction.x >= 0.0 else -e[0], e[1] if direction.y >= 0.0 else -e[1],
                  e[2] if direction.z >= 0.0 else -e[2])
    return support


# The other shape of a pair with a cylinder, where it stands this step (static, or another vehicle's), as PhysX's
# convex-core contacts hold it

class BoxCore(NamedTuple):
    """A box: its centre (3,), float32 quaternion (x, y, z, w) and half extents (3,) (its core's extents are twice
    those, its margin 0)."""
    centre: np.ndarray
    turn: np.ndarray
    half: np.ndarray


class PointsCore(NamedTuple):
    """A convex hull (a points core, margin 0): its vertices (K, 3), world."""
    points: np.ndarray


class RoundCore(NamedTuple):
    """A sphere or capsule: a point core (a sphere) or a segment core along its +x (a capsule, its length `2 half`),
    its margin the radius; centre (3,), float32 quaternion (x, y, z, w)."""
    centre: np.ndarray
    turn: np.ndarray
    half: float
    radius: float


class CylinderCore(NamedTuple):
    """Another exact cylinder: centre (3,), unit axis (3,), half height, radius, its core's float32 quaternion
    (core_turn's); `first`: whether PhysX takes it as the pair's first shape (two cores: by the bodies' order)."""
    centre: np.ndarray
    axis: np.ndarray
    half: float
    radius: float
    turn: np.ndarray
    first: bool


def _segment_local(half):
    """PhysX's segment core's support map (a point core's where its length is 0): the end along the direction."""
    h = _F(_F(2.0 * half) * _F(0.5))

    def support(direction: _V) -> _V:
        return _V(h if direction.x >= 0.0 else -h, 0.0, 0.0)
    return support


def _simplex_closest(verts: list) -> tuple[list, "_V"]:
    """The sub-simplex of `verts` ([point, weight, a, b], the newest last) nearest the origin, with its weights, and
    that nearest point (the reference GJK's case analysis: each vertex, edge and face with the newest vertex)."""
    verts = [[v[0], 0.0, v[2], v[3]] for v in verts]
    n = len(verts)

    def pair(i, j, si):
        return [[verts[i][0], si, verts[i][2], verts[i][3]], [verts[j][0], 1.0 - si, verts[j][2], verts[j][3]]]

    def triple(i, j, k, si, sj):
        return [[verts[i][0], si, verts[i][2], verts[i][3]], [verts[j][0], sj, verts[j][2], verts[j][3]],
                [verts[k][0], 1.0 - si - sj, verts[k][2], verts[k][3]]]

    out = verts
    if n == 1:
        out = [[verts[0][0], 1.0, verts[0][2], verts[0][3]]]
    elif n == 2:
        a, b = verts[0][0], verts[1][0]
        ba = a - b
        sba = (ba @ -b)
        out = [[b, 1.0, verts[1][2], verts[1][3]]] if sba <= 0 else pair(0, 1, sba / (ba @ ba))
    elif n == 3:
        a, b, c = (v[0] for v in verts)
        ca, cb = a - c, b - c
        sca, scb = (ca @ -c), (cb @ -c)
        if sca <= 0 and scb <= 0:
            out = [[c, 1.0, verts[2][2], verts[2][3]]]
        else:
            abc = (b - a).cross(c - a)
            iabc = 1.0 / (abc @ abc)
            pabc = abc * (abc @ a) * iabc
            tca = (abc @ (c - pabc).cross(a - pabc))
            tbc = (abc @ (b - pabc).cross(c - pabc))
            if sca > 0 and tca <= 0:
                out = pair(0, 2, sca / (ca @ ca))
            elif scb > 0 and tbc <= 0:
                out = pair(1, 2, scb / (cb @ cb))
            else:
                out = triple(0, 1, 2, tbc * iabc, tca * iabc)
                if (abc @ a) > 0:
                    out[0], out[1] = out[1], out[0]
    elif n == 4:
        a, b, c, d = (v[0] for v in verts)
        da, db, dc = a - d, b - d, c - d
        sda, sdb, sdc = (da @ -d), (db @ -d), (dc @ -d)
        if sda <= 0 and sdb <= 0 and sdc <= 0:
            out = [[d, 1.0, verts[3][2], verts[3][3]]]
        else:
            def plane(u, w):
                m = (u - d).cross(w - d)
                im = 1.0 / (m @ m)
                return m, im, m * (m @ d) * im
            dab, idab, pdab = plane(a, b)
            dbc, idbc, pdbc = plane(b, c)
            dca, idca, pdca = plane(c, a)
            tda = (dab @ (d - pdab).cross(a - pdab))
            tad = (dca @ (a - pdca).cross(d - pdca))
            tdb = (dbc @ (d - pdbc).cross(b - pdbc))
            tbd = (dab @ (b - pdab).cross(d - pdab))
            tcd = (dbc @ (c - pdbc).cross(d - pdbc))
            tdc = (dca @ (d - pdca).cross(c - pdca))
            abc = (b - a).cross(c - a)
            if sda > 0 and tda <= 0 and tad <= 0:
                out = pair(0, 3, sda / (da @ da))
            elif sdb > 0 and tdb <= 0 and tbd <= 0:
                out = pair(1, 3, sdb / (db @ db))
            elif sdc > 0 and tdc <= 0 and tcd <= 0:
                out = pair(2, 3, sdc / (dc @ dc))
            elif tda > 0 and tbd > 0 and (dab @ d) < 0 and (abc @ dab) > 0:
                out = triple(0, 1, 3, tbd * idab, tda * idab)
            elif tdb > 0 and tcd > 0 and (dbc @ d) < 0 and (abc @ dbc) > 0:
                out = triple(1, 2, 3, tcd * idbc, tdb * idbc)
            elif tdc > 0 and tad > 0 and (dca @ d) < 0 and (abc @ dca) > 0:
                sa, sc = tdc * idca, tad * idca  # a, d, c
                out = [[a, sa, verts[0][2], verts[0][3]], [d, 1.0 - sa - sc, verts[3][2], verts[3][3]],
                       [c, sc, verts[2][2], verts[2][3]]]
            # else: the origin inside: every weight 0
    closest = sum((v[0] * v[1] for v in out), _ZERO)
    return out, closest


def gjk_distance(centre, axis, half, radius, other, limit, turn=None):
    """PhysX's reference GJK distance between a cylinder and `other` (a triangle (3, 3) or a core), in float32:
    (distance, witness on the cylinder, witness on the other, axis from the other towards the cylinder); distance 0
    where they are nearer than its tolerance (1 % of the shapes' accuracy: EPA's case), inf where farther than
    `limit`. turn: the core's float32 quaternion (x, y, z, w; core_turn's by default)."""
    A, B, direction, shift, swapped = _shapes(centre, axis, half, radius, other, turn)
    tolerance = _F(0.01) * min(A.accuracy, B.accuracy)
    length = direction.norm()
    direction = direction / length if length >= _FLT_EPSILON else _V(1.0, 0.0, 0.0)
    simplex: list = []
    best = np.inf
    iteration = 0

    def add(direction):
        nonlocal iteration
        iteration += 1
        if iteration > 100:
            return np.inf
        a, b = A.index(direction), B.index(-direction)
        if any(v[2] == a and v[3] == b for v in simplex):
            return np.inf
        p = A.points[a] - B.points[b]
        simplex.append([p, 0.0, a, b])
        return (p @ -direction)

    add(direction)
    nearest = None
    while True:
        reduced, closest = _simplex_closest(simplex)
        if closest.norm() < best - _FLT_EPSILON:
            best, nearest = (closest.norm()), closest
            simplex[:] = reduced
        else:
            simplex.pop()
        if best < tolerance:
            return 0.0, None, None, None
        direction = -nearest / best
        proj = add(direction)
        if proj >= best - tolerance:  # (a point just added weighs nothing)
            wa = sum((A.points[v[2]] * v[1] for v in simplex), _ZERO)
            wb = sum((B.points[v[3]] * v[1] for v in simplex), _ZERO)
            return _cylinder_first(best, wa.array() + shift, wb.array() + shift, (-direction).array(), swapped)
        if proj > limit:
            return np.inf, None, None, None


def _shapes(centre, axis, half, radius, other, turn=None):
    """The cylinder (at `centre`, rounded to float32, turned by `turn`) and `other` as fresh _Shapes, the direction
    from the first's world box's centre to the second's, each in float32 as PhysX finds them, the shift (3,) their
    frame has from the world's, and whether PhysX's pair takes the other shape first (`_other_first`). A triangle
    (3, 3): its corners' float32 at the origin unturned (the mesh's frame is the world's; no shift); a core: both
    poses less their midpoint (contactConvexCoreConvex's shift)."""
    turn = _Turn(core_turn(np.asarray(axis, np.float64)[None])[0] if turn is None else turn)
    position = _V.of(np.asarray(centre, np.float32))
    cylinder = _cylinder_local(half, radius)
    if not isinstance(other, (BoxCore, PointsCore, RoundCore, CylinderCore)):  # a triangle
        A = _Shape(cylinder, position, turn)
        B = _Shape(_points_local(other), _ZERO, _IDENTITY)
        return A, B, B.centre - A.centre, np.zeros(3), False
    origin, local, other_turn = _core_pose(other)
    at = _V.of(np.asarray(origin, np.float32))
    shift = (position + at) * 0.5
    mine, its = _Shape(cylinder, position - shift, turn), _Shape(local, at - shift, other_turn)
    first = _other_first(other)
    A, B = (its, mine) if first else (mine, its)
    return A, B, B.centre - A.centre, shift.array(), first


def _core_pose(other):
    """A core's position (its pose's: a hull's the centroid of its vertices), its support map in its own frame and
    its turn."""
    if isinstance(other, BoxCore):
        return other.centre, _box_local(other.half), _Turn(other.turn)
    if isinstance(other, RoundCore):
        return other.centre, _segment_local(other.half), _Turn(other.turn)
    if isinstance(other, CylinderCore):
        return other.centre, _cylinder_local(other.half, other.radius), _Turn(other.turn)
    origin = other.points.mean(axis=0)
    return origin, _points_local(other.points - origin), _IDENTITY


def _other_first(other) -> bool:
    """Whether PhysX's pair takes `other` first: a box, sphere or capsule (a geometry type below the convex core's),
    another cylinder where its body comes first; a convex hull and a triangle come after the cylinder."""
    return isinstance(other, (BoxCore, RoundCore)) or (isinstance(other, CylinderCore) and other.first)


def _cylinder_first(distance, w0, w1, axis, swapped: bool) -> tuple:
    """GJK's or EPA's answer for PhysX's pair order, as (distance, witness on the cylinder, witness on the other,
    axis from the other towards the cylinder)."""
    return (distance, w1, w0, -axis) if swapped else (distance, w0, w1, axis)


def _basis32(d: _V) -> tuple[_V, _V]:
    """PxComputeBasisVectors in float32 (as _basis)."""
    if abs(d.y) <= _F(0.9999):
        right = _V(d.z, 0.0, -d.x)
        right = right / right.norm()
        return right, _V(d.y * right.z, d.z * right.x - d.x * right.z, -d.y * right.x)
    up = _V(0.0, d.z, -d.y)
    return _V(1.0, 0.0, 0.0), up / up.norm()


def epa_depth(centre, axis, half, radius, other, turn=None):
    """PhysX's reference EPA between a cylinder and `other` (gjk_distance's) that GJK found touching: (signed
    distance, witness on the cylinder, witness on the other, axis from the other towards the cylinder), or None where
    its polytope cannot be built. Its polytope grows from six support points about the line between the shapes' box
    centres; each step expands the face nearest the origin by the support point along its normal (faces that point
    sees, within 1 % of the accuracy, replaced by a fan from their horizon); it stops when a new point lies within
    that tolerance of the face or repeats one held, and answers with the face whose direction found the smallest
    support (its witnesses from the origin's projection onto it)."""
    A, B, direction, shift, swapped = _shapes(centre, axis, half, radius, other, turn)
    tolerance = _F(0.01) * min(A.accuracy, B.accuracy)
    length = direction.norm()
    direction = direction / length if length >= _FLT_EPSILON else _V(1.0, 0.0, 0.0)
    verts: list[tuple[int, int]] = []
    faces: list[tuple[_V, float, tuple]] = []
    state = {"proj": -np.inf, "closest": None, "best": None}

    def point(i):
        return A.points[verts[i][0]] - B.points[verts[i][1]]

    def plane(i0, i1, i2):
        a, b, c = point(i0), point(i1), point(i2)
        abc = (b - a).cross(c - a) + (c - b).cross(a - b) + (a - c).cross(b - c)
        length = abc.norm()
        if length < _FLT_EPSILON:
            return None
        n = abc / length
        return n, (n @ -a), (i0, i1, i2)

    def add(d):
        if len(verts) > 31:
            return np.inf
        a, b = A.index(d), B.index(-d)
        p = A.points[a] - B.points[b]
        proj = (p @ -d)
        if proj > state["proj"]:
            state["proj"], state["best"] = proj, state["closest"]
        if (a, b) in verts:
            return np.inf
        verts.append((a, b))
        if len(verts) < 3:
            return 0.0
        if len(verts) == 3:
            f0, f1 = plane(0, 1, 2), plane(1, 0, 2)
            if f0 is None or f1 is None:
                return np.inf
            faces.extend([f0, f1])
            return 0.0
        edges: list[tuple[int, int]] = []
        for i in range(len(faces) - 1, -1, -1):
            n, d, v = faces[i]
            if (n @ p) + d > tolerance:
                for j in range(3):
                    e = (v[j], v[(j + 1) % 3])
                    for k in range(len(edges) - 1, -1, -1):
                        if edges[k] == (e[1], e[0]):
                            edges[k] = edges[-1]
                            edges.pop()
                            break
                    else:
                        edges.append(e)
                faces[i] = faces[-1]
                faces.pop()
        if not edges or len(faces) > 60 - len(edges):  # PhysX's 60 faces
            return np.inf
        for e in edges:
            f = plane(e[0], e[1], len(verts) - 1)
            if f is None:
                return np.inf
            faces.append(f)
        return proj

    right, up = _basis32(direction)
    add(direction)
    add(-direction)
    add(right)
    for d in (-right, up, -up):
        if len(verts) < 3:
            add(d)
    state["proj"] = -np.inf
    if not faces:
        return None
    while True:
        k = max(range(len(faces)), key=lambda i: (faces[i][1], -i))  # the first of the largest offsets
        state["closest"] = faces[k]
        if len(faces) == 2:
            state["best"] = faces[k]
        n, d, _ = faces[k]
        if add(n) >= d - tolerance:
            break
    n, d, (i0, i1, i2) = state["best"]
    a, b, c = point(i0), point(i1), point(i2)
    abc = (b - a).cross(c - a)
    iabc = 1.0 / (abc @ abc)
    pabc = abc * (abc @ a) * iabc
    w = [(abc @ (b - pabc).cross(c - pabc)) * iabc, (abc @ (c - pabc).cross(a - pabc)) * iabc,
         (abc @ (a - pabc).cross(b - pabc)) * iabc]
    ia = [verts[i][0] for i in (i0, i1, i2)]
    ib = [verts[i][1] for i in (i0, i1, i2)]
    wa = sum((A.points[i] * s for i, s in zip(ia, w)), _ZERO)
    wb = sum((B.points[i] * s for i, s in zip(ib, w)), _ZERO)
    return _cylinder_first(d, wa.array() + shift, wb.array() + shift, (-n).array(), swapped)


# ------------------------------------------------------------------------------------------------ one pair's points

def _cylinder_face(centre, axis, half, radius, direction, ref):
    """The cylinder's face towards `direction` (unit): (face normal, points) or (None, [])."""
    x = float(direction @ axis)
    if abs(x) > _FACE and radius > 0.0:
        s = 1.0 if x > 0.0 else -1.0
        normal = s * axis
        cap = centre + s * half * axis
        towards = ref - cap
        towards = towards - (towards @ axis) * axis
        length = np.linalg.norm(towards)
        if length < _FLT_EPSILON:  # no direction to turn the rim to: any
            towards = np.cross(axis, [1.0, 0.0, 0.0] if abs(axis[0]) < 0.9 else [0.0, 1.0, 0.0])
            length = np.linalg.norm(towards)
        e1 = towards / length
        e2 = np.cross(axis, e1)  # the rim's points counter-clockwise about the core's +x
        return normal, [cap + radius * e1, cap + radius * e2, cap - radius * e1, cap - radius * e2]
    if abs(x) < _SIDE and half > 0.0:
        dr = direction - x * axis
        dr = dr / np.linalg.norm(dr)
        return dr, [centre + half * axis + radius * dr, centre - half * axis + radius * dr]
    return None, []


def _points_face(triangle, direction, margin):
    """A point set's face towards `direction` (unit), PhysX's points core's (a triangle's, a convex hull's): the plane
    of the three points farthest along it where within 8 degrees of it, else the line of two of them; every point
    within 1e-4 of that plane, reduced to four. (face normal, points) or (None, []), pushed out by the margin."""
    dots = triangle @ direction
    order = np.argsort(-dots, kind="stable")
    p0, p1, p2 = triangle[order[0]], triangle[order[1]], triangle[order[2]]
    n0 = np.cross(p1 - p0, p2 - p0)
    n0 = n0 / np.linalg.norm(n0)
    if direction @ n0 > _FACE:
        normal = n0
    elif direction @ n0 < -_FACE:
        normal = -n0
    else:
        normal = None
        for e in (p1 - p0, p2 - p0):
            m = np.cross(np.cross(e, direction), e)
            m = m / max(np.linalg.norm(m), 1e-300)
            if direction @ m > _FACE:
                normal = m
                break
        if normal is None:
            return None, []
    top = normal @ p0
    points: list[np.ndarray] = []
    for p in triangle:
        if abs(normal @ p - top) < 1e-4:
            new = [p] + points
            for j in range(len(points)):  # the one deepest along the direction first
                if new[0] @ direction < new[j + 1] @ direction:
                    new[0], new[j + 1] = new[j + 1], new[0]
            points = [new[k] for k in reduce_polygon(np.array(new), direction)]
    if len(points) < 2:
        return None, []
    return normal, [p + normal * margin for p in points]


def _turn_matrix(turn) -> np.ndarray:
    """(3, 3) the rotation of a float32 quaternion (x, y, z, w), in double."""
    x, y, z, w = (float(c) for c in turn)
    return vm.quat_to_mat(np.array([w, x, y, z])[:, None])[:, :, 0]


def _box_face(box: BoxCore, direction):
    """The box's face towards `direction` (unit, world): (face normal, points) or (None, []) as PhysX's box core
    gives it: the face whose axis is within 8 degrees of the direction (four corners), else the edge along an axis
    within 8 degrees of square to it (two corners, the normal the direction's part across that axis), else none."""
    R = _turn_matrix(box.turn)
    d = R.T @ direction
    d = d / np.linalg.norm(d)
    e = np.asarray(box.half, np.float64)
    for a0 in range(3):
        a1, a2 = (a0 + 1) % 3, (a0 + 2) % 3
        sign = lambda a: 1.0 if d[a] >= 0.0 else -1.0  # noqa: E731  (PxSign)
        if abs(d[a0]) > _FACE and (e[a1] > _FLT_EPSILON or e[a2] > _FLT_EPSILON):
            normal = np.zeros(3)
            normal[a0] = sign(a0)
            points = []
            for u, v in ((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)):
                p = np.zeros(3)
                p[a0], p[a1], p[a2] = sign(a0) * e[a0], u * e[a1], v * e[a2]
                points.append(p)
        elif (abs(d[a0]) < _SIDE and e[a0] > _FLT_EPSILON and (abs(d[a1]) < _FACE or e[a2] < _FLT_EPSILON)
              and (abs(d[a2]) < _FACE or e[a1] < _FLT_EPSILON)):
            normal = np.zeros(3)
            normal[a1], normal[a2] = d[a1], d[a2]
            normal /= np.linalg.norm(normal)
            points = []
            for u in (1.0, -1.0):
                p = np.zeros(3)
                p[a0], p[a1], p[a2] = u * e[a0], sign(a1) * e[a1], sign(a2) * e[a2]
                points.append(p)
        else:
            continue
        return R @ normal, [R @ p + box.centre for p in points]
    return None, []


def _segment_face(core: RoundCore, direction):
    """A capsule's face towards `direction` (unit, world), PhysX's segment core's: the segment where the direction is
    within 8 degrees of square to it, its normal the direction's part across it, the ends pushed out along it by the
    radius; (None, []) otherwise and for a sphere (a point core has none)."""
    if core.half <= 0.0:
        return None, []
    R = _turn_matrix(core.turn)
    d = R.T @ direction
    d = d / np.linalg.norm(d)
    if abs(d[0]) >= _SIDE:
        return None, []
    normal = R @ (np.array([0.0, d[1], d[2]]) / np.hypot(d[1], d[2]))
    return normal, [core.centre + R[:, 0] * (s * core.half) + normal * core.radius for s in (1.0, -1.0)]


def reduce_polygon(points: np.ndarray, normal: np.ndarray) -> list[int]:
    """PhysX's reduction of a patch to four points, the first kept: it, the farthest from it, and the farthest on
    either side of their line (about `normal`)."""
    p0 = points[0]
    far = -np.inf
    i1 = None
    for j, p in enumerate(points):
        dd = float((p - p0) @ (p - p0))
        if dd > far + _FLT_EPSILON:
            far, i1 = dd, j
    if i1 == 0:
        return [0]
    n01 = np.cross(normal, points[i1] - p0)
    low = high = 0.0
    i2 = i3 = None
    for j, p in enumerate(points):
        s = float(n01 @ (p - p0))
        if s < low - _FLT_EPSILON:
            i2, low = j, s
        if s > high + _FLT_EPSILON:
            i3, high = j, s
    out = [0, i1]
    if i2 is not None and i2 not in out:
        out.append(i2)
    if i3 is not None and i3 not in out:
        out.append(i3)
    return out


def _prism_planes(points, axis):
    """The planes (inward normal, offset: n . x + d >= 0 inside) of the prism along `axis` about a face's points
    (three or more)."""
    planes = []
    if len(points) < 3:
        return planes
    for i, s in enumerate(points):
        for j in range(i + 1, len(points)):
            nrm = np.cross(points[j] - s, axis)
            length = np.linalg.norm(nrm)
            if length < _EPS:
                continue
            nrm = nrm / length
            side = [float((points[k] - s) @ nrm) for k in range(len(points)) if k not in (i, j)]
            pos = sum(v > _EPS for v in side)
            if pos and pos < len(side):
                continue
            if pos:
                nrm = -nrm
            planes.append((-nrm, float(nrm @ s)))
    return planes


def _clip_loop(points, plane):
    nrm, off = plane
    dist = [float(nrm @ p + off) for p in points]
    out = []
    for i in range(len(points)):
        j = (i + 1) % len(points)
        d0, d1, p0, p1 = dist[i], dist[j], points[i], points[j]
        if d0 > -_EPS:
            out.append(p0)
            if d1 < -_EPS and d0 - d1 > _EPS:
                out.append(p0 + (p1 - p0) * (d0 / (d0 - d1)))
        elif d1 > -_EPS and d1 - d0 > _EPS:
            out.append(p0 + (p1 - p0) * (d0 / (d0 - d1)))
    return out


def _basis(direction):
    """PxComputeBasisVectors."""
    if abs(direction[1]) <= 0.9999:
        right = np.array([direction[2], 0.0, -direction[0]])
        right /= np.linalg.norm(right)
        up = np.array([direction[1] * right[2], direction[2] * right[0] - direction[0] * right[2],
                       -direction[1] * right[0]])
    else:
        right, up = np.array([1.0, 0.0, 0.0]), np.array([0.0, direction[2], -direction[1]])
    return right, up


def _patch(first_face, second_face, w0, w1, n):
    """One pair's points and separations (Gu::generateContacts' patch, its FaceClipper) between PhysX's first shape
    of the pair and its second: each one's face towards the other ((face normal, points) or (None, [])), its witness
    point, and the axis n from the second towards the first."""
    (normal0, face0), (normal1, face1) = first_face, second_face
    if len(face0) < 2 or len(face1) < 2:
        return [(w0 + w1) / 2], [float(n @ (w0 - w1))]
    if len(face0) == 2 and len(face1) == 2:
        return _two_by_two(face0, face1, n, w0, w1)
    planes = _prism_planes(face0, n) + _prism_planes(face1, n)
    if len(face0) == 2:
        poly = list(face0)
    elif len(face1) == 2:
        poly = list(face1)
    else:
        X, Y = _basis(n)
        every = np.array(face0 + face1)
        xs, ys = every @ X, every @ Y
        ref = (w0 + w1) / 2
        rx, ry = ref @ X, ref @ Y
        poly = [ref + X * (x - rx) + Y * (y - ry) for x, y in
                ((xs.min(), ys.min()), (xs.max(), ys.min()), (xs.max(), ys.max()), (xs.min(), ys.max()))]
    for plane in planes:
        poly = _clip_loop(poly, plane)
    poly.append((w0 + w1) / 2)
    d0, d1 = float(normal0 @ face0[0]), float(normal1 @ face1[0])
    placed, seps = [], []
    for p in poly:
        q0 = p - n * (float(normal0 @ p) - d0) / float(n @ normal0)
        q1 = p - n * (float(normal1 @ p) - d1) / float(n @ normal1)
        placed.append((q0 + q1) / 2)
        seps.append(float(n @ (q0 - q1)))
    k = int(np.argmin(seps))  # the first of the deepest
    placed[0], placed[k] = placed[k], placed[0]
    seps[0], seps[k] = seps[k], seps[0]
    keep = reduce_polygon(np.array(placed), n)
    return [placed[i] for i in keep], [seps[i] for i in keep]


def _two_by_two(face0, face1, n, w0, w1):
    """Two segments (the cylinder's side line and a triangle's edge): where each end projects onto the other,
    parallel only; else the witnesses' midpoint."""
    a, b = face0
    c, d = face1
    if abs(float(np.cross(b - a, d - c) @ n)) > _EPS:
        return [(w0 + w1) / 2], [float(n @ (w0 - w1))]
    points, seps = [], []
    for p, (s, e), sign in ((a, (c, d), 1.0), (b, (c, d), 1.0), (c, (a, b), -1.0), (d, (a, b), -1.0)):
        if (p - s) @ (e - s) > -_EPS and (p - e) @ (s - e) > -_EPS:
            q = s + (e - s) * float((e - s) @ (p - s)) / float((e - s) @ (e - s))
            points.append((p + q) / 2)
            seps.append(sign * float(n @ (p - q)))
    i = len(points) - 1
    while i >= 0:  # merge coincident points, the deeper kept
        for j in range(i - 1, -1, -1):
            if float((points[i] - points[j]) @ (points[i] - points[j])) < 1e-6:
                if seps[i] < seps[j]:
                    points[j], seps[j] = points[i], seps[i]
                points[i], seps[i] = points[-1], seps[-1]
                points.pop()
                seps.pop()
                break
        i -= 1
    return points, seps


def _add(patches: list, normal, point, separation, pair) -> None:
    """PhysX's Gu::Contact::addPoint: into the first patch whose normal agrees, else a new patch (PhysX keeps 16
    patches a pair, more than a wheel's cylinder meets)."""
    for patch in patches:
        if float(patch[0] @ normal) >= _SAME_NORMAL:
            points = [(point, separation, pair)] + patch[1]
            for i in range(len(patch[1])):  # the new point moves behind the deeper ones
                if points[i][1] > points[i + 1][1]:
                    points[i], points[i + 1] = points[i + 1], points[i]
                else:
                    break
            keep = reduce_polygon(np.array([p[0] for p in points]), patch[0])
            patch[1] = [points[i] for i in keep]
            return
    patches.append([normal, [(point, separation, pair)]])


def _flush(patches, out_pair, out_point, out_normal, out_sep) -> None:
    for normal, points in patches:
        for point, separation, pair in points:
            out_pair.append(pair)
            out_point.append(point)
            out_normal.append(normal)
            out_sep.append(separation)
