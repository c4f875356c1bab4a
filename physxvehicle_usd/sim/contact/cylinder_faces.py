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

GJK and EPA (gjk_epa.py) run in float32, operation by operation as PhysX's reference GJK / EPA (GuRefGjkEpa.h, called by
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
basis are the mesh's). Triangles are met in index order (PhysX: its midphase's). The Python code goes pair by pair
(a pair no separating axis keeps apart costs GJK, EPA where touching, and the clipping), on numpy float32 scalars;
where the extension is built, `cylinder_triangles` runs its compiled twin (sim/compiled_cylinder.py: GJK and EPA in
sim/_cylinder_triangles.c, the faces and patches in sim/_cylinder_faces.c), the same bits: the contact stage of
tests/test_conformance_contact.py (23 cars, 120 steps) ran 34 s with the Python code, 12 s with the C.
"""
from __future__ import annotations

import numpy as np

from .. import compiled_cylinder
from .. import vecmath as vm
from .geometry import FLT_EPSILON, SAME_NORMAL
from .gjk_epa import BoxCore, CylinderCore, RoundCore, epa_depth, gjk_distance, other_first

_FACE, HULL_SIDES = 0.99, 0.14  # ~cos 8 and cos 82 degrees: a face (cap, triangle) or the side's line meets the axis

_CULL = 1e-5  # an axis this far (cosine) against the triangle's normal makes no contact

_MARGIN = 1e-4  # the triangle's margin, of the cylinder's smallest half extent plus the contact distance

_EPS = 1e-5  # PhysX's clipping and face-building tolerances (its float32 eps)


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
    reach = limit + margin
    near = np.nonzero(_near(centre, axis, half, radius, triangles, tn, reach))[0]
    if turn is None or not compiled_cylinder.cylinder_triangles_closest(near, centre, half, radius, turn, triangles,
                                                                        reach, dist, w0, w1, n):
        closest_features_numpy(near, centre, axis, half, radius, triangles, reach, turn, dist, w0, w1, n)
    dist = dist - margin
    w1 = w1 + margin[:, None] * n
    made = (dist <= limit) & (np.einsum("pj,pj->p", tn, n) >= -_CULL)
    compiled = compiled_cylinder.cylinder_triangles_points(centre, axis, half, radius, triangles, made, n, w0, w1,
                                                           margin, np.asarray(group))
    if compiled is not None:  # (sim/_cylinder_faces.c: the loop below, to the bit)
        return compiled
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


def closest_features_numpy(rows: np.ndarray, centre: np.ndarray, axis: np.ndarray, half: np.ndarray,
                           radius: np.ndarray, triangles: np.ndarray, reach: np.ndarray, turn: np.ndarray | None,
                           dist: np.ndarray, w0: np.ndarray, w1: np.ndarray, n: np.ndarray) -> None:
    """`cylinder_triangles`' closest stage for the pairs `rows` (its arguments; GJK bounded by `reach` (P,)): GJK's
    distance, or EPA's depth where GJK finds them touching, written at the pair's row into dist (P,) with the
    witnesses w0 (on the cylinder), w1 (on the triangle) and the axis n (P, 3) where found; the reference of
    sim/_cylinder_triangles.c (sim/compiled_cylinder.py), which does the same to the bit."""
    for p in rows:
        q = None if turn is None else turn[p]
        found = gjk_distance(centre[p], axis[p], half[p], radius[p], triangles[p], reach[p], q)
        if found[0] < FLT_EPSILON:  # touching: EPA's depth (none where its polytope cannot be built)
            found = epa_depth(centre[p], axis[p], half[p], radius[p], triangles[p], q) or (np.inf, None, None, None)
        dist[p] = found[0]
        if found[1] is not None:
            w0[p], w1[p], n[p] = found[1:]


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
        if found[0] < FLT_EPSILON:
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
        if other_first(other):
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
        if length < FLT_EPSILON:  # no direction to turn the rim to: any
            towards = np.cross(axis, [1.0, 0.0, 0.0] if abs(axis[0]) < 0.9 else [0.0, 1.0, 0.0])
            length = np.linalg.norm(towards)
        e1 = towards / length
        e2 = np.cross(axis, e1)  # the rim's points counter-clockwise about the core's +x
        return normal, [cap + radius * e1, cap + radius * e2, cap - radius * e1, cap - radius * e2]
    if abs(x) < HULL_SIDES and half > 0.0:
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
        if abs(d[a0]) > _FACE and (e[a1] > FLT_EPSILON or e[a2] > FLT_EPSILON):
            normal = np.zeros(3)
            normal[a0] = sign(a0)
            points = []
            for u, v in ((1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)):
                p = np.zeros(3)
                p[a0], p[a1], p[a2] = sign(a0) * e[a0], u * e[a1], v * e[a2]
                points.append(p)
        elif (abs(d[a0]) < HULL_SIDES and e[a0] > FLT_EPSILON and (abs(d[a1]) < _FACE or e[a2] < FLT_EPSILON)
              and (abs(d[a2]) < _FACE or e[a1] < FLT_EPSILON)):
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
    if abs(d[0]) >= HULL_SIDES:
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
        if dd > far + FLT_EPSILON:
            far, i1 = dd, j
    if i1 == 0:
        return [0]
    n01 = np.cross(normal, points[i1] - p0)
    low = high = 0.0
    i2 = i3 = None
    for j, p in enumerate(points):
        s = float(n01 @ (p - p0))
        if s < low - FLT_EPSILON:
            i2, low = j, s
        if s > high + FLT_EPSILON:
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
        if float(patch[0] @ normal) >= SAME_NORMAL:
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
