"""GJK distance and EPA depth between PhysX's convex cores (GuGJK.h, GuEPA.cpp as the convex-core contact code calls
them), in float32 as PhysX computes them: an exact cylinder against a box core, a set of points (a hull, a triangle),
a point or segment core with its radius, or another cylinder (`gjk_distance`, `epa_depth`). `core_turn` and
`matrix_turn` give a core's turn as PhysX's quaternion, which its support mappings rotate by. The faces these axes
select are clipped in cylinder_faces.py."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .geometry import FLOAT32, FLT_EPSILON, FLT_MAX


class _V:
    """A 3-vector of float32 scalars, each operation rounded as PhysX's PxVec3 rounds it (SSE, no fused multiply-add):
    PhysX's reference GJK and EPA run in float, and their axis is the float rounding of a point near the origin
    (cylinder_triangles' docstring). Scalars, not numpy arrays: GJK and EPA make many small steps."""

    __slots__ = ("x", "y", "z")

    def __init__(self, x, y, z) -> None:
        self.x, self.y, self.z = FLOAT32(x), FLOAT32(y), FLOAT32(z)

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
        k = FLOAT32(k)
        return _V(self.x * k, self.y * k, self.z * k)

    def __truediv__(self, k) -> "_V":  # PxVec3's: by the reciprocal
        return self * (FLOAT32(1.0) / FLOAT32(k))

    def __matmul__(self, o: "_V"):
        return self.x * o.x + self.y * o.y + self.z * o.z

    def cross(self, o: "_V") -> "_V":
        return _V(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)

    def norm(self):
        return np.sqrt(self @ self)

    def unit(self) -> "_V":  # getNormalized: by the reciprocal square root, zero stays zero
        m = self @ self
        return self * (FLOAT32(1.0) / np.sqrt(m)) if m > 0.0 else _V(0.0, 0.0, 0.0)

    def array(self) -> np.ndarray:
        return np.array([self.x, self.y, self.z], np.float64)


_ZERO = _V(0.0, 0.0, 0.0)


class _Turn:
    """A float32 unit quaternion (x, y, z, w) turning vectors as PxQuat::rotate / rotateInv do."""

    def __init__(self, q) -> None:
        self.x, self.y, self.z, self.w = (FLOAT32(c) for c in q)

    def rotate(self, v: _V, inverse: bool = False) -> _V:
        vx, vy, vz = FLOAT32(2.0) * v.x, FLOAT32(2.0) * v.y, FLOAT32(2.0) * v.z
        w2 = self.w * self.w - FLOAT32(0.5)
        dot2 = self.x * vx + self.y * vy + self.z * vz
        s = -self.w if inverse else self.w
        return _V(vx * w2 + (self.y * vz - self.z * vy) * s + self.x * dot2,
                  vy * w2 + (self.z * vx - self.x * vz) * s + self.y * dot2,
                  vz * w2 + (self.x * vy - self.y * vx) * s + self.z * dot2)

    def world_axes(self) -> tuple[_V, _V, _V]:
        """The world's x, y and z axes in the turned frame (getInvBasisVector0-2)."""
        x, y, z, w = self.x, self.y, self.z, self.w
        x2, y2, z2, w2 = x * FLOAT32(2.0), y * FLOAT32(2.0), z * FLOAT32(2.0), w * FLOAT32(2.0)
        return (_V((w * w2) - FLOAT32(1.0) + x * x2, (-z * w2) + y * x2, (y * w2) + z * x2),
                _V((z * w2) + x * y2, (w * w2) - FLOAT32(1.0) + y * y2, (-x * w2) + z * y2),
                _V((-y * w2) + x * z2, (x * w2) + y * z2, (w * w2) - FLOAT32(1.0) + z * z2))


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
        self.accuracy = max(max(size.x, size.y, size.z) * FLOAT32(0.01), FLOAT32(FLT_EPSILON))
        X, Y, Z = turn.world_axes()
        place = self.place
        lo = _V(place(local(-X)).x, place(local(-Y)).y, place(local(-Z)).z)
        hi = _V(place(local(X)).x, place(local(Y)).y, place(local(Z)).z)
        self.centre = (lo + hi) * 0.5

    def place(self, v: _V) -> _V:
        return self.turn.rotate(v) + self.position

    def index(self, direction: _V) -> int:
        v = self.place(self.local(self.turn.rotate(direction, inverse=True)))
        nearest, near = None, FLOAT32(FLT_MAX)
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
    h, r = FLOAT32(FLOAT32(2.0 * half) * FLOAT32(0.5)), FLOAT32(radius)

    def support(direction: _V) -> _V:
        d = direction.unit()
        x = h if d.x >= 0.0 else -h
        if abs(d.y) < FLOAT32(1e-5) and abs(d.z) < FLOAT32(1e-5):  # along the axis: a point of the cap's rim
            return _V(x, r, 0.0)
        return _V(x, 0.0, 0.0) + _V(0.0, d.y, d.z).unit() * r
    return support


def _points_local(points):
    """A point set's support map (PhysX's points core: a triangle, a convex hull's vertices): the first of the
    points farthest along the direction."""
    corners = [_V.of(v) for v in np.asarray(points, np.float32)]

    def support(direction: _V) -> _V:
        if direction.norm() < FLT_EPSILON:
            return _ZERO
        best, at = FLOAT32(-FLT_MAX), corners[0]
        for v in corners:  # the first of equals
            if v @ direction > best:
                best, at = v @ direction, v
        return at
    return support


def _box_local(half):
    """PhysX's box core's support map in its own frame (its extents twice the half extents; PxSign: + at 0)."""
    e = [FLOAT32(FLOAT32(2.0 * h) * FLOAT32(0.5)) for h in half]

    def support(direction: _V) -> _V:
        return _V(e[0] if direction.x >= 0.0 else -e[0], e[1] if direction.y >= 0.0 else -e[1],
                  e[2] if direction.z >= 0.0 else -e[2])
    return support


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
    h = FLOAT32(FLOAT32(2.0 * half) * FLOAT32(0.5))

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
    tolerance = FLOAT32(0.01) * min(A.accuracy, B.accuracy)
    length = direction.norm()
    direction = direction / length if length >= FLT_EPSILON else _V(1.0, 0.0, 0.0)
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
        if closest.norm() < best - FLT_EPSILON:
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
    frame has from the world's, and whether PhysX's pair takes the other shape first (`other_first`). A triangle
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
    first = other_first(other)
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


def other_first(other) -> bool:
    """Whether PhysX's pair takes `other` first: a box, sphere or capsule (a geometry type below the convex core's),
    another cylinder where its body comes first; a convex hull and a triangle come after the cylinder."""
    return isinstance(other, (BoxCore, RoundCore)) or (isinstance(other, CylinderCore) and other.first)


def _cylinder_first(distance, w0, w1, axis, swapped: bool) -> tuple:
    """GJK's or EPA's answer for PhysX's pair order, as (distance, witness on the cylinder, witness on the other,
    axis from the other towards the cylinder)."""
    return (distance, w1, w0, -axis) if swapped else (distance, w0, w1, axis)


def _basis32(d: _V) -> tuple[_V, _V]:
    """PxComputeBasisVectors in float32 (as _basis)."""
    if abs(d.y) <= FLOAT32(0.9999):
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
    tolerance = FLOAT32(0.01) * min(A.accuracy, B.accuracy)
    length = direction.norm()
    direction = direction / length if length >= FLT_EPSILON else _V(1.0, 0.0, 0.0)
    verts: list[tuple[int, int]] = []
    faces: list[tuple[_V, float, tuple]] = []
    state = {"proj": -np.inf, "closest": None, "best": None}

    def point(i):
        return A.points[verts[i][0]] - B.points[verts[i][1]]

    def plane(i0, i1, i2):
        a, b, c = point(i0), point(i1), point(i2)
        abc = (b - a).cross(c - a) + (c - b).cross(a - b) + (a - c).cross(b - c)
        length = abc.norm()
        if length < FLT_EPSILON:
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
