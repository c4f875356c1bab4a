"""Contacts of the vehicles' own collision shapes with the static world, as PhysX generates them for its solver.

Every vehicle shape the simulator collides is a convex polytope (read/collision.py: boxes, 30-corner cylinder hulls,
convex-hull meshes) or a sphere or capsule (a core, its centre or segment, with a radius), met against planes, static
convex polytopes (boxes, hulls) and the triangles of static meshes here, and against static spheres and capsules in
sim/round_contact.py (the static round shapes come last among the static columns). omni.physx gives PhysX a UsdGeom.Cylinder as the
exact cylinder (PxConvexCoreGeometry; its approximateCylinders setting is off by default): against a plane, a
mesh's triangles, every static convex (boxes, hulls, spheres, capsules) and other vehicles' shapes it is met
exactly (`_cylinder_plane`, sim/cylinder_contact.py, sim/vehicle_contact.py); its hull serves the broad phases and
the suspension queries.
`ContactModel` holds the shapes as padded arrays, one row per vehicle shape (its vehicle, points, faces, edges,
offsets, material) and one per static polytope; `generate` finds each step's contacts from the pose the step begins
with (PhysX's narrow phase runs before its solver, on the poses the vehicle update left unchanged). A shape under a
wheel attachment follows its wheel, as omni.physx moves it (PxVehicleWriteWheelLocalPoseToPhysXWheelShape, at the end
of the vehicle update, before the scene's narrow phase): `ContactModel.posed` puts it at the wheel's local pose of the
step (suspension, steer, compliance, rotation about the axle).

What is made, per pair of shapes whose distance is below the sum of their contact offsets (PhysX's contact distance):
  boxes       a box against a plane or a static box: PhysX PCM's points in PhysX's order (sim/pcm_box.py; checked
              against the contacts ovphysx reports for the ridge, curb and drop runs: the same points, order and
              separations);
  plane       every vertex of the polytope closer to the plane than the contact distance;
  polytope    separating axes (the faces of either shape, and the cross products of their edges); on a face axis the
              face of the other shape most opposed to it (the incident face) clipped against the reference face's
              sides, the points kept where closer than the contact distance; on an edge axis, the closest points of
              the two edges. A triangle is single-sided: only contacts pushing the shape to its front side are kept;
              where a face of the vehicle's shape is the axis but lies within 45 degrees of facing the triangle, the
              triangle is the reference face (PCM's convex-triangle rule: a hull sliding over a ramp's crest meets it
              along the ramp's normal), its points on the triangle, a triangle vertex separated as PCM measures it.
              The points come in PCM's order (it decides the friction anchors and the solver's sweep): the
              incident face's corners inside, the reference's inside the incident face, then the edge crossings,
              against a mesh the triangle's edges outer and each loop from its closing edge; a box's face loops
              start at PCM's corners (`convex_polytope`). Checked against ovphysx's contacts on RolloverSlope's
              slope (its first strike and its roof landing: the same points in the same order, the same anchors).
  cylinder    against a plane, PhysX's convex-core contacts: its side's lowest line (two points) when its axis lies
              within 8 degrees of the plane, its cap's rim (four) within 8 degrees of the normal, else its deepest
              point; the points halfway between the cylinder and the plane; against a mesh's triangles, PhysX's
              convex-core mesh contacts (sim/cylinder_contact.py: per triangle its GJK/EPA axis and witnesses, the
              cylinder's and the triangle's faces clipped, the mesh's points gathered into patches of four);
              against a static box, hull, sphere or capsule, PhysX's convex-core convex contacts (the same, the
              box as its box core, a hull as its points, a sphere or capsule as its point or segment core with its
              radius the margin, both poses less their midpoint: one patch of at most four);
  round       a sphere or capsule as its core with the contact distance grown by its radius: against a plane its
              centre or each end of its segment (PhysX's one and two points); against a polytope or triangle the
              core clipped by the reference face as above, or, where no point of it lies over that face, the nearest
              points of the core and the face's rim; the separation less the radius, the point on the round surface
              (but a sphere's against a box: on the box, PhysX's sphere-box point; `_sphere_points_on_boxes`).
A point made twice in one patch (two triangles' shared edge) counts once. Then at most four points per pair and
normal (PhysX's manifold size; six kept whole for a convex shape on a triangle mesh, a patch of PCM's multi-manifold):
the deepest, the one farthest from it, the one making the largest triangle with them, and the one farthest outside
that triangle. The hull-on-hump run's contacts at its strike (step 27) are the ones
ovphysx reports: the same points, normals and separations.

Candidate pairs come from boxes: a vehicle whose shapes' boxes (grown by the contact distance) reach no static
shape costs one box test per plane and nothing else; the triangles a box reaches come from the ground's TriangleGrid.

The solver's friction patches persist as PhysX's low-level dynamics keeps them (`patch_rows`, `FrictionPatches`): a
patch's anchors stay where they were made while its friction holds and its normal and anchors stay correlated.

Contacts between vehicles (sim/vehicle_contact.py) reuse the polytope test, the manifold reduction and the friction
patches (`friction_patches`, body 1 the other vehicle).

PCM (persistent contact manifolds, omni.physx's default) keeps a pair's points from step to step while the shapes
have moved little against each other, re-measuring their separations: sim/manifold.py does so for boxes and hulls
against planes, triangle meshes, static boxes and hulls and static capsules, and for capsules against static boxes
(`generate` with the vehicles' length scales and the last step's manifolds), and between vehicles two boxes
(sim/vehicle_contact.py); the other pairs are made anew every step.

Approximations against PhysX: PCM's deferred triangle contacts (a hull face more than 45 degrees from facing a
triangle) are not reproduced. The full clipped face is reduced to four points (six on a mesh), where PCM reduces each
triangle's points to five before merging a patch's; a mesh patch of more than six is reduced to four here (PCM: to
six). PCM's mesh contacts pass through its edge filtering, here a triangle contact whose normal turns against the
triangle's front is dropped.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from ..collision_filter import GroupFilter
from ..description import (
    Block,
    GroundDescription,
    MaterialDescription,
    ShapeDescription,
    canonical_value,
)
from ..properties import COMBINE_MODES, DERIVED_ROWS, MATERIAL
from . import cylinder_contact, round_contact
from . import vecmath as vm
from .declare import CONTACT_PARAMS, PATCH_PARAMS
from .ground import ROUND_KINDS, Ground
from .motion import Motion
from .pcm_box import PLANE_ORDER, Boxes, box_box, box_frame
from .round_contact import StaticRounds

if TYPE_CHECKING:
    from .manifold import Manifolds
    from .vehicle_contact import PairModel

MAX_POINTS = 4  # PhysX's manifold: four points per contact patch
# ... but a convex shape's patch on a triangle mesh (a patch of PCM's multi-manifold) keeps up to six whole
# (GU_SINGLE_MANIFOLD_CACHE_SIZE): a box lying across two triangles keeps its corners and the diagonal's crossings
MESH_PATCH_POINTS = 6
_SAME_NORMAL = 0.999  # PXC_SAME_NORMAL: contacts whose normals agree this well share a patch
# The order of a patch's points decides how the Gauss-Seidel sweep spreads the impulse over them, and which points
# anchor its friction (growPatches), and so what a symmetric impact leaves as roll and yaw: boxes make PhysX's own
# points in its order (sim/pcm_box.py); the other shapes' points keep the order they are made in.
FLOAT_EPS = float(np.finfo(np.float32).eps)  # PhysX's FEps(): the triangle's normal wins a tie with an edge by it
_TIE_ULPS = 1.0  # an edge must beat the triangle by float32 rounding of the coordinates: nearer, PhysX's rounding decides
_TRIANGLE_FACING = 0.707106781  # cos 45 degrees: PCM's bound for taking a triangle's normal over a hull face's
_FACE_PREFERENCE = 1e-4  # a face axis is taken over an edge axis this little (relative) deeper
# ... relative to the depth plus this many contact distances (1 m for a box on the sample's ground: the tolerance
# was tuned in metres as 1e-4 (1 m + depth); in stage units as it was, the curb run in centimetres chose the other
# face of a near tie and left 49 % angular speed error, 1.2 % with this)
_FACE_PREFERENCE_LENGTH = 25.0


# ------------------------------------------------------------------------------------------------ polytopes

@dataclass(frozen=True)
class Materials:
    """The stage's physics materials by path and the one a collider with none bound meets others with (the stage
    description's `defaultMaterial`, omni.physx's default material): resolved values only."""

    by_path: Mapping[str, MaterialDescription]
    default: MaterialDescription

    def of(self, path: str | None) -> MaterialDescription:
        return self.default if path is None else self.by_path[path]


@dataclass(frozen=True)
class Polytope:
    """A convex polytope's vertices (K, 3), faces (outward unit normals (F, 3), offsets (F,) with n . x = d on the
    face, vertex loops (F, M) counter-clockwise about the normal, padded by repeating their last vertex) and edges
    (E, 2)."""

    vertices: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    loops: np.ndarray
    loop_counts: np.ndarray
    edges: np.ndarray
    directions: np.ndarray  # (D, 2): one edge of each direction (parallel edges give the same separating axes)


def _directions(points: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The first edge of each set of parallel edges."""
    d = points[edges[:, 1]] - points[edges[:, 0]]
    d = d / np.linalg.norm(d, axis=1, keepdims=True)
    keep: list[int] = []
    for e in range(len(edges)):
        if not any(abs(float(d[e] @ d[k])) > 1.0 - 1e-9 for k in keep):
            keep.append(e)
    return edges[keep]


def polytope(points: np.ndarray, tolerance: float = 1e-6) -> Polytope:
    """The convex hull of `points` (n, 3). Its faces are found by an incremental hull (triangles, each new point
    replacing the faces it sees); each face is then the plane through the first three of its points (in index order)
    that are not in a line, with every point on one side, so the faces and their order do not depend on how the
    triangles happened to cut them."""
    points = np.unique(np.asarray(points, dtype=float).reshape(-1, 3), axis=0)
    scale = max(float(np.abs(points).max()), 1e-12)
    eps = tolerance * scale
    planes = [_face_plane(points, on, tolerance, scale) for on in _hull_faces(points, eps)]
    planes = sorted({p[0]: p for p in planes if p is not None}.values())
    if not planes:
        raise ValueError(f"{len(points)} points span no volume: no convex hull")
    normal = np.array([p[1] for p in planes])
    offset = np.einsum("tj,tj->t", normal, points[[p[0][0] for p in planes]])
    loops, edges = [], set()
    for nrm, d in zip(normal, offset):
        on = np.nonzero(np.abs(points @ nrm - d) <= eps * 10)[0]
        centre = points[on].mean(axis=0)
        u = points[on[0]] - centre
        u /= np.linalg.norm(u)
        w = np.cross(nrm, u)
        angle = np.arctan2((points[on] - centre) @ w, (points[on] - centre) @ u)
        loop = on[np.argsort(angle)]
        loops.append(loop)
        edges.update(tuple(sorted((int(loop[m]), int(loop[(m + 1) % len(loop)])))) for m in range(len(loop)))
    M = max(len(loop) for loop in loops)
    padded = np.array([np.concatenate([loop, np.full(M - len(loop), loop[-1])]) for loop in loops])
    edges = np.array(sorted(edges))
    return Polytope(points, normal, offset, padded, np.array([len(loop) for loop in loops]), edges,
                    _directions(points, edges))


def core(points: np.ndarray) -> Polytope:
    """The core of a sphere (its centre) or a capsule (its segment), a polytope without faces: one loop through its
    points (the incident "face" a reference face clips), the segment its one edge. Its radius is kept beside it."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    edges = np.array([[0, 1]]) if len(points) == 2 else np.zeros((0, 2), np.int64)
    return Polytope(points, np.zeros((0, 3)), np.zeros(0), np.arange(len(points))[None, :], np.array([len(points)]),
                    edges, edges)


_HULLS: dict[bytes, Polytope] = {}
_HULLS_KEPT = 256


def _hull_of(points: np.ndarray) -> Polytope:
    """polytope(points), made once for every copy of a shape (a fleet of copies has a few hulls, not one per car)."""
    key = points.tobytes()
    if key not in _HULLS:
        if len(_HULLS) >= _HULLS_KEPT:
            _HULLS.pop(next(iter(_HULLS)))
        _HULLS[key] = polytope(points)
    return _HULLS[key]


def _hull_faces(points: np.ndarray, eps: float) -> list[np.ndarray]:
    """The points on each face plane of an incremental convex hull of `points` (ascending indices, one array per
    plane: a face cut into several triangles comes once)."""
    n = len(points)
    if n < 4:
        return []
    a = int(points[:, 0].argmin())
    b = int(((points - points[a]) ** 2).sum(1).argmax())
    line = points[b] - points[a]
    c = int(np.linalg.norm(_cross(points - points[a], line), axis=1).argmax())
    up = _cross(line, points[c] - points[a])
    height = (points - points[a]) @ up
    d = int(np.abs(height).argmax())
    if abs(height[d]) <= eps * np.linalg.norm(up):
        return []  # flat
    if height[d] > 0.0:
        b, c = c, b  # (a, b, c) counter-clockwise seen from outside, d behind it
    tri = np.array([(a, b, c), (a, d, b), (b, d, c), (c, d, a)])

    def normals(t):
        return _cross(points[t[:, 1]] - points[t[:, 0]], points[t[:, 2]] - points[t[:, 0]])

    nrm = normals(tri)
    for p in range(n):
        if p in (a, b, c, d):
            continue
        visible = ((points[p] - points[tri[:, 0]]) * nrm).sum(1) > eps * np.linalg.norm(nrm, axis=1)
        if not visible.any():
            continue
        seen = {(int(u), int(v)) for f in tri[visible] for u, v in ((f[0], f[1]), (f[1], f[2]), (f[2], f[0]))}
        new = np.array([(u, v, p) for u, v in seen if (v, u) not in seen])
        tri = np.concatenate([tri[~visible], new])
        nrm = np.concatenate([nrm[~visible], normals(new)])
    length = np.linalg.norm(nrm, axis=1)
    keep = length > 0.0
    side = np.abs(np.einsum("tj,tpj->tp", nrm[keep] / length[keep, None], points[None] - points[tri[keep, 0]][:, None]))
    return [np.array(on) for on in sorted({tuple(np.nonzero(row <= eps)[0]) for row in side})]


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b over the last axis (np.cross, without its per-call cost on small arrays)."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _face_plane(points: np.ndarray, on: np.ndarray, tolerance: float, scale: float):
    """(the face's first three points, outward normal) of the plane through the first three of `on` (indices,
    ascending) not in a line that has every point on one side; None when none has."""
    eps = tolerance * scale
    for x in range(len(on)):
        for y in range(x + 1, len(on)):
            for z in range(y + 1, len(on)):
                i, j, k = on[x], on[y], on[z]
                normal = np.cross(points[j] - points[i], points[k] - points[i])
                length = np.sqrt(normal @ normal)
                if not length > tolerance * scale * scale:
                    continue
                normal = normal / length
                side = (points - points[i]) @ normal
                above, below = (side > eps).any(), (side < -eps).any()
                if above == below:
                    return None
                if above:
                    normal = -normal
                return (int(i), int(j), int(k)), normal
    return None


@dataclass(frozen=True)
class Polytopes:
    """Polytopes as padded rows: vertices (N, K, 3) (padded with vertex 0), faces (N, F, ...) (padding: zero normals,
    offsets -inf, `face_mask` false), loops (N, F, M), edges (N, E, 2) (padding: edge (0, 0))."""

    vertices: np.ndarray
    normals: np.ndarray
    offsets: np.ndarray
    face_mask: np.ndarray
    loops: np.ndarray
    loop_counts: np.ndarray
    edges: np.ndarray
    edge_mask: np.ndarray
    axis_edges: np.ndarray  # (N, D, 2): one edge per direction, for the separating axes (padding: (0, 0))
    axis_mask: np.ndarray

    @classmethod
    def stack(cls, items: Sequence[Polytope]) -> "Polytopes":
        K = max(len(p.vertices) for p in items)
        F = max(max(len(p.normals), len(p.loops)) for p in items)
        M = max(p.loops.shape[1] for p in items)
        E = max(len(p.edges) for p in items)
        N = len(items)
        vertices = np.zeros((N, K, 3))
        normals, offsets = np.zeros((N, F, 3)), np.full((N, F), -np.inf)
        face_mask, loops, counts = np.zeros((N, F), bool), np.zeros((N, F, M), np.int64), np.zeros((N, F), np.int64)
        edges, edge_mask = np.zeros((N, E, 2), np.int64), np.zeros((N, E), bool)
        D = max(len(p.directions) for p in items)
        axis_edges, axis_mask = np.zeros((N, D, 2), np.int64), np.zeros((N, D), bool)
        for r, p in enumerate(items):
            k, f, e = len(p.vertices), len(p.normals), len(p.edges)
            vertices[r, :k], vertices[r, k:] = p.vertices, p.vertices[0]
            normals[r, :f], offsets[r, :f], face_mask[r, :f] = p.normals, p.offsets, True
            looped = max(f, len(p.loops))  # a core: no face, its one loop all the same
            loops[r, :looped] = np.concatenate([p.loops, np.repeat(p.loops[:, -1:], M - p.loops.shape[1], axis=1)],
                                               axis=1)
            loops[r, looped:] = loops[r, 0]
            counts[r, :looped], counts[r, looped:] = p.loop_counts, p.loop_counts[0]
            edges[r, :e], edge_mask[r, :e] = p.edges, True
            axis_edges[r, :len(p.directions)], axis_mask[r, :len(p.directions)] = p.directions, True
        return cls(vertices, normals, offsets, face_mask, loops, counts, edges, edge_mask, axis_edges, axis_mask)


# ------------------------------------------------------------------------------------------------ the model

@dataclass(frozen=True)
class ContactModel:
    """The vehicles' collision shapes (rows: `vehicle` index, body-frame polytopes) and the static polytopes, with
    what PhysX combines per pair: contact distance, rest distance, friction and restitution (N shapes x G static
    shapes, G = the ground's planes, meshes and polytopes in `Ground.materials` order) and whether the pair's groups
    let it collide."""

    vehicle: np.ndarray  # (N,)
    shapes: Polytopes  # body (centre-of-mass) frame
    contact_distance: np.ndarray  # (N, G)
    rest_distance: np.ndarray  # (N, G)
    static_friction: np.ndarray  # (N, G)
    dynamic_friction: np.ndarray  # (N, G)
    restitution: np.ndarray  # (N, G)
    collides: np.ndarray  # (N, G) bool
    static_shapes: Polytopes | None  # world frame, one per static polytope
    static_index: np.ndarray  # (H,) their index in Ground.materials
    plane_count: int
    boxes: Boxes  # which shape rows are boxes (body frame), met by PhysX's box contacts (sim/pcm_box.py)
    static_boxes: Boxes | None  # which static polytopes are (world frame)
    # (N,) the wheel (batch index) whose pose a row follows, -1: fixed in the body. A following row's vertices
    # and normals are in its wheel's frame until `posed` puts them in the body frame of a step
    wheel: np.ndarray | None = None
    # per vehicle (V,), stage units: its scene's physxScene:bounceThreshold and frictionOffsetThreshold, as resolved
    bounce_threshold: np.ndarray | None = None
    friction_offset_threshold: np.ndarray | None = None
    # (N,) a sphere's or capsule's radius about its core (its row's points), 0 for a polytope (None: no round shape)
    radius: np.ndarray | None = None
    # a cylinder's cap centres (N, 2, 3; NaN: not a cylinder) in its row's frame, and its radius (N,): against a plane
    # it meets PhysX's exact cylinder (its hull elsewhere); None: no cylinder
    cylinder_ends: np.ndarray | None = None
    cylinder_radius: np.ndarray | None = None
    pairs: "PairModel | None" = None  # the shapes' contacts with other vehicles' shapes (sim/vehicle_contact.py)
    # (N, 3) each shape's own frame's origin in its row's frame, whose motion decides whether PCM keeps its contact
    # points (sim/manifold.py): a box's centre (PhysX's box geometry sits there); for any other shape the vehicle
    # prim's origin (the description keeps no shape frame: exact for a hull authored beneath the vehicle with no
    # transform of its own, as omni.physx cooks a hull in its prim's frame). None: no origin recorded (all at 0)
    origin: np.ndarray | None = None
    static_rounds: StaticRounds | None = None  # the static spheres and capsules, last among the columns
    # a following row's authored pose (rotation (N, 3, 3), translation (N, 3); NaN for the other rows): its wheel
    # frame in the body frame as the stage places the wheel, where PhysX's shape stands until a vehicle update writes
    # the wheel's pose (`posed`'s `authored`)
    authored: tuple[np.ndarray, np.ndarray] | None = None
    # (N, 3, 3) the rotation a cylinder row's wheel turned it by into its body frame (`posed`; None: none): PhysX's
    # cylinder core turns with the wheel about its axle, and its GJK with it (sim/cylinder_contact.core_turn)
    cylinder_frame: np.ndarray | None = None
    # the static polytopes that are cylinders: world cap centres (H, 2, 3; NaN: not a cylinder) and radii (H,), which
    # PhysX collides as the exact cylinder (their hulls serve the broad phase and the suspension queries); None: none
    static_cylinders: tuple[np.ndarray, np.ndarray] | None = None
    # derived: each shape's box in the body frame (centre, half extents), how far beyond it a contact may start;
    # the static polytopes' world boxes
    box_centre: np.ndarray = field(init=False)  # (3, N)
    box_half: np.ndarray = field(init=False)  # (3, N)
    reach: np.ndarray = field(init=False)  # (N,)
    plane_limit: np.ndarray = field(init=False)  # (planes, N): the contact distance, -inf where a pair is filtered
    one_per_vehicle: bool = field(init=False)  # shape row v is vehicle v's only shape
    following: np.ndarray = field(init=False)  # the rows that follow a wheel
    cylinders: np.ndarray = field(init=False)  # the rows that are cylinders
    cache: dict = field(init=False, default_factory=dict, repr=False, compare=False)  # the ground's triangle bounds
    static_lo: np.ndarray | None = field(init=False)  # (H, 3)
    static_hi: np.ndarray | None = field(init=False)

    def __post_init__(self) -> None:
        following = np.zeros(0, np.int64) if self.wheel is None else np.nonzero(self.wheel >= 0)[0]
        object.__setattr__(self, "following", following)
        # the rows that follow a wheel, kept where `posed` (whose model follows nothing) shares this cache
        self.cache["following_rows"] = following
        object.__setattr__(self, "cylinders", np.zeros(0, np.int64) if self.cylinder_ends is None
                           else np.nonzero(np.isfinite(self.cylinder_ends[:, 0, 0]))[0])
        lo, hi = self.shapes.vertices.min(axis=1), self.shapes.vertices.max(axis=1)
        if self.radius is not None:
            lo, hi = lo - self.radius[:, None], hi + self.radius[:, None]
        planes = slice(0, self.plane_count)
        derived = {"box_centre": ((lo + hi) / 2).T.copy(), "box_half": ((hi - lo) / 2).T.copy(),
                   "plane_limit": np.where(self.collides[:, planes], self.contact_distance[:, planes], -np.inf).T.copy(),
                   "one_per_vehicle": bool(np.array_equal(self.vehicle, np.arange(len(self.vehicle)))),
                   "reach": self.contact_distance.max(axis=1) if self.contact_distance.size else np.zeros(len(lo)),
                   "static_lo": None if self.static_shapes is None else self.static_shapes.vertices.min(axis=1),
                   "static_hi": None if self.static_shapes is None else self.static_shapes.vertices.max(axis=1)}
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @classmethod
    def build(cls, shapes: Sequence[Sequence[ShapeDescription]], com_position: np.ndarray, com_orientation: np.ndarray,
              ground: Sequence[GroundDescription], materials: Materials, rule: GroupFilter,
              wheel_paths: Sequence[Sequence[str]] | None, scenes: Sequence[Block]) -> "ContactModel | None":
        """shapes: each vehicle's (batch order); com_position (3, V), com_orientation (4, V): the body frame in the
        vehicle prim's; rule: the stage's collision groups' filtering; wheel_paths: each vehicle's wheel attachments
        in batch order (a shape under one, with its `wheelFrame`, follows that wheel; None: every shape is fixed in
        the body); scenes: each vehicle's scene block (the contact thresholds, resolved). None when no vehicle has a
        shape."""
        rows, polys, own, wheel, ends, corners, origins = [], [], [], [], [], [], []
        authored_R, authored_t = [], []
        ordered: dict[bytes, Polytope] = {}
        # converted once: per vehicle, a float32 batch's conversion grew the build as the fleet's square
        com_position = np.asarray(com_position, float)
        rotations = np.ascontiguousarray(np.moveaxis(vm.quat_to_mat(np.asarray(com_orientation, float)), 2, 0))
        for v, vehicle_shapes in enumerate(shapes):
            R = rotations[v]
            for shape in vehicle_shapes:
                w = -1
                if wheel_paths is not None and shape.wheelFrame is not None and shape.wheel in wheel_paths[v]:
                    # PxVehicleWriteWheelLocalPoseToPhysXWheelShape: the shape's pose in its wheel's frame is kept
                    frame = np.asarray(shape.wheelFrame, float)  # row vectors: x_vehicle = x_wheel M[:3,:3] + M[3,:3]

                    def local(points, frame=frame):
                        return np.linalg.solve(frame[:3, :3].T, (np.asarray(points, float) - frame[3, :3]).T).T
                    w = wheel_paths[v].index(shape.wheel)
                    authored_R.append(R.T @ frame[:3, :3].T)  # x_body = R^T (M^T x_wheel + M[3] - com)
                    authored_t.append(R.T @ (frame[3, :3] - com_position[:, v]))
                else:
                    authored_R.append(np.full((3, 3), np.nan))
                    authored_t.append(np.full(3, np.nan))
                    def local(points, v=v, R=R):
                        return (np.asarray(points, float) - com_position[:, v]) @ R
                rows.append(v)
                points = local(shape.points)
                if shape.kind == "convex":
                    key = points.tobytes()
                    if key not in ordered:
                        ordered[key] = convex_polytope(points)
                    polys.append(ordered[key])
                else:
                    polys.append(core(points))
                own.append(shape)
                wheel.append(w)
                ends.append(local(shape.cylinderEnds) if shape.cylinderEnds is not None else np.full((2, 3), np.nan))
                origins.append(local(np.zeros((1, 3)))[0])
                # a shape that follows a wheel is no box of the body frame's box contacts (sim/pcm_box.py)
                corners.append(points if w < 0 else np.zeros((0, 3)))
        if not rows:
            return None
        rounds = [g for g in ground if g.kind in ROUND_KINDS]
        statics = [g for g in ground if g.kind in ("plane", "mesh")] + [g for g in ground if g.kind == "convex"]
        hulls = [placed_hull(g) for g in ground if g.kind == "convex"]
        H = len(hulls)
        statics += rounds
        G = len(statics)

        # per distinct (material, offsets) of either side, then spread over the pairs: a fleet of copies with an
        # obstacle each has thousands of pairs and few distinct ones; the groups' filtering per distinct group of
        # either side, in arrays (every copy brings its own groups)
        rows_keys, row_of = distinct_keys(own)
        cols_keys, col_of = distinct_keys(statics)
        small = combined_tables(rows_keys, cols_keys, materials)
        table = {name: value[row_of][:, col_of] for name, value in small.items()}
        row_groups, row_group = np.unique(rule.first(s.groups for s in own), return_inverse=True)
        col_groups, col_group = np.unique(rule.first(g.groups for g in statics), return_inverse=True)
        collides = rule.collide(row_groups[:, None], col_groups[None, :])[row_group.reshape(-1)]
        collides = collides[:, col_group.reshape(-1)]
        column = {g.path: k for k, g in enumerate(statics)}
        for r, shape in enumerate(own):  # FilteredPairsAPI: a shape (or its body) naming a static collider
            for path in shape.filtered:
                if path in column:
                    collides[r, column[path]] = False
        for k, g in enumerate(statics):  # ... or a static collider naming a vehicle's shape or body
            for target in g.filtered:
                for r, shape in enumerate(own):
                    if shape.path == target or shape.path.startswith(target + "/"):
                        collides[r, k] = False
        plane_count = sum(1 for g in ground if g.kind == "plane")
        mesh_count = sum(1 for g in ground if g.kind == "mesh")
        static_corners = [placed_corners(g) for g in ground if g.kind == "convex"]
        from .vehicle_contact import PairModel  # it builds on this module's polytopes

        rows = np.asarray(rows)
        boxes = Boxes.of(corners)
        origins = np.where(boxes.mask[:, None], boxes.centre, np.array(origins))
        return cls(rows, Polytopes.stack(polys), table["contact_distance"], table["rest_distance"],
                   table["static_friction"], table["dynamic_friction"], table["restitution"], collides, Polytopes.stack(hulls) if hulls else None,
                   np.arange(plane_count + mesh_count, plane_count + mesh_count + H), plane_count, boxes,
                   Boxes.of(static_corners) if static_corners else None,
                   np.asarray(wheel) if any(w >= 0 for w in wheel) else None,
                   *(np.array([float(b[base]) for b in scenes], float)
                     for base in ("bounceThreshold", "frictionOffsetThreshold")),
                   np.array([sh.radius if sh.kind != "convex" else 0.0 for sh in own], float)
                   if any(sh.kind != "convex" for sh in own) else None,
                   *((np.array(ends), np.array([sh.radius if sh.cylinderEnds is not None else 0.0 for sh in own]))
                     if any(sh.cylinderEnds is not None for sh in own) else (None, None)),
                   PairModel.build(own, rows, materials, rule), origins,
                   StaticRounds.of(rounds, G - len(rounds)) if rounds else None,
                   (np.array(authored_R), np.array(authored_t)) if any(w >= 0 for w in wheel) else None,
                   static_cylinders=_static_cylinders([g for g in ground if g.kind == "convex"]))


    @property
    def polytope_first(self) -> int:
        """The column of the first static polytope: after the planes and meshes (the spheres and capsules come after
        the polytopes)."""
        rounds = 0 if self.static_rounds is None else len(self.static_rounds.column)
        return self.collides.shape[1] - len(self.static_index) - rounds

    def posed(self, rotation: np.ndarray, translation: np.ndarray, authored: np.ndarray | None = None
              ) -> "ContactModel":
        """The model with every row that follows a wheel put where the wheel is: rotation (3, 3, V, W) and
        translation (3, V, W), each wheel's pose in its body frame (`wheel.wheel_local_pose`); authored (V, W) bool:
        the wheels whose shapes stand where the stage put them instead (no vehicle update has written their pose).
        Itself when no row follows a wheel."""
        rows = self.following
        if not rows.size:
            return self
        v, w = self.vehicle[rows], self.wheel[rows]
        R = np.moveaxis(rotation[:, :, v, w], 2, 0)  # (n, 3, 3)
        t = translation[:, v, w].T  # (n, 3)
        if authored is not None and self.authored is not None:
            keep = authored[v, w]
            R[keep], t[keep] = self.authored[0][rows[keep]], self.authored[1][rows[keep]]
        P = self.shapes
        vertices, normals = P.vertices.copy(), P.normals.copy()
        vertices[rows] = np.einsum("nij,nkj->nki", R, P.vertices[rows]) + t[:, None, :]
        normals[rows] = np.einsum("nij,nfj->nfi", R, P.normals[rows])
        offsets = P.offsets.copy()
        offsets[rows] = np.where(P.face_mask[rows], np.einsum("nfj,nfj->nf", normals[rows], np.take_along_axis(
            vertices[rows], P.loops[rows][:, :, :1], 1)), -np.inf)
        shapes = dataclasses.replace(P, vertices=vertices, normals=normals, offsets=offsets)
        ends, frame = self.cylinder_ends, None
        if ends is not None:
            ends = ends.copy()
            ends[rows] = np.einsum("nij,nkj->nki", R, ends[rows]) + t[:, None, :]
            frame = np.tile(np.eye(3), (len(ends), 1, 1))
            frame[rows] = R
        out = dataclasses.replace(self, shapes=shapes, wheel=None, cylinder_ends=ends,  # body frame: nothing follows
                                  cylinder_frame=frame)
        object.__setattr__(out, "cache", self.cache)  # the ground's triangle bounds do not move
        return out


def _in_order(hull: Polytope, points: np.ndarray) -> Polytope:
    """`hull` with its vertices renumbered to follow `points` (the same points in another order)."""
    order = np.array([int(np.argmin(((hull.vertices - p) ** 2).sum(axis=1))) for p in points])
    new = np.empty(len(order), np.int64)
    new[order] = np.arange(len(order))
    return Polytope(hull.vertices[order], hull.normals, hull.offsets, new[hull.loops], hull.loop_counts,
                    np.sort(new[hull.edges], axis=1), new[hull.directions])


# PCM's box polygons (GuPCMShapeConvex.cpp gPCMBoxPolygonData): the corner each face's loop starts from, by the face's
# axis and side, as the signs of the corner along the box's own axes (the loops run counter-clockwise about the outward
# normal, as ours do). Clipping meets a face's corners and edges in its loop's order: against a mesh this order decides
# the contacts' order, hence the friction anchors' (RolloverSlope)
_PCM_LOOP_START = {(0, 1): (1, -1, -1), (0, -1): (-1, -1, 1), (1, 1): (-1, 1, -1), (1, -1): (-1, -1, 1),
                   (2, 1): (1, -1, 1), (2, -1): (-1, -1, -1)}


def convex_polytope(points: np.ndarray) -> Polytope:
    """A vehicle's convex shape from its points: its hull, and for a box (box_frame) its corners in PhysX's box-plane
    order and its faces' loops starting where PCM's do."""
    hull, frame = _hull_of(points), box_frame(points)
    return hull if frame is None else _pcm_box_loops(_in_order(hull, points[PLANE_ORDER]), frame)


def _pcm_box_loops(hull: Polytope, frame: tuple) -> Polytope:
    """The box `hull` (frame: box_frame's centre, axes, half extents) with each face's loop starting where PCM's
    does."""
    centre, axes, _ = frame
    signs = np.sign((hull.vertices - centre) @ axes.T)
    loops = hull.loops.copy()
    for f, n in enumerate(hull.normals):
        along = axes @ n
        k = int(np.abs(along).argmax())
        start = np.array(_PCM_LOOP_START[(k, 1 if along[k] > 0 else -1)])
        count = int(hull.loop_counts[f])
        loop = hull.loops[f, :count]
        at = [m for m, v in enumerate(loop) if (signs[v] == start).all()]
        if at:
            loops[f, :count] = np.roll(loop, -at[0])
    return Polytope(hull.vertices, hull.normals, hull.offsets, loops, hull.loop_counts, hull.edges, hull.directions)


def placed_corners(g: GroundDescription) -> np.ndarray:
    """A static convex collider's points in the world, in their order."""
    m = np.asarray(canonical_value(g.transform), dtype=float).reshape(4, 4)
    return np.asarray(canonical_value(g.points), dtype=float).reshape(-1, 3) @ m[:3, :3] + m[3, :3]


def distinct(keys) -> tuple[list, np.ndarray]:
    """The distinct keys (in order of first appearance) and each key's index among them."""
    index: dict = {}
    inverse = np.array([index.setdefault(key, len(index)) for key in keys], dtype=np.int64)
    return list(index), inverse


def distinct_keys(shapes) -> tuple[list[tuple], np.ndarray]:
    """The distinct (material, contact offset, rest offset) of shapes (vehicle or static), and each shape's index
    among them."""
    return distinct((s.material, s.contactOffset, s.restOffset) for s in shapes)


def combined_tables(a_keys: Sequence[tuple], b_keys: Sequence[tuple], materials: Materials) -> dict[str, np.ndarray]:
    """What PhysX combines for a pair of shapes, per pair of distinct keys (`distinct_keys`: material, contact
    offset, rest offset): each of sim/declare.py's CONTACT_PARAMS under its name (offsets summed; friction and
    restitution combined by the higher of the two materials' modes)."""
    def values(keys: Sequence[tuple]) -> dict[str, np.ndarray]:
        """Each key's resolved value of every base name the declarations combine (and of the combine modes)."""
        rows = []
        for material_path, contact, rest in keys:
            material = materials.of(material_path).settings
            rows.append({**{base: material[base] for base in _MATERIAL_BASES}, "contactOffset": contact,
                         "restOffset": rest})
        return {base: np.array([row[base] for row in rows], dtype=object if base in _MODE_BASES else float)
                for base in (*_MATERIAL_BASES, "contactOffset", "restOffset")}

    a, b = values(a_keys), values(b_keys)
    small = {}
    for param in CONTACT_PARAMS:
        base = param.source[1]
        if param.combine is None:
            small[param.name] = a[base][:, None] + b[base][None, :]
        else:
            mode = np.maximum(_mode_index(a[param.combine])[:, None], _mode_index(b[param.combine])[None, :])
            small[param.name] = _combined(a[base][:, None], b[base][None, :], mode)
    return small


_MATERIAL_BASES = tuple(p.base for p in DERIVED_ROWS if p.schema == MATERIAL)
_MODE_BASES = tuple(p.base for p in DERIVED_ROWS if p.schema == MATERIAL and p.tokens)


def _mode_index(modes: np.ndarray) -> np.ndarray:
    return np.array([COMBINE_MODES.index(m) for m in modes], np.int64)


def _combined(a: np.ndarray, b: np.ndarray, mode: np.ndarray) -> np.ndarray:
    """PxCombineMode's combination of a and b (broadcast) by each pair's mode: average, min, multiply, max."""
    a, b = np.broadcast_arrays(a, b)
    return np.choose(mode, ((a + b) / 2, np.minimum(a, b), a * b, np.maximum(a, b)))


def _static_cylinders(convex: list[GroundDescription]) -> tuple[np.ndarray, np.ndarray] | None:
    """ContactModel.static_cylinders of the static convex colliders `convex` (None where none is a cylinder)."""
    if not any(g.cylinderEnds is not None for g in convex):
        return None
    ends = np.full((len(convex), 2, 3), np.nan)
    radius = np.zeros(len(convex))
    for k, g in enumerate(convex):
        if g.cylinderEnds is not None:
            m = np.asarray(canonical_value(g.transform), dtype=float).reshape(4, 4)
            ends[k] = np.asarray(canonical_value(g.cylinderEnds), dtype=float).reshape(2, 3) @ m[:3, :3] + m[3, :3]
            radius[k] = float(g.radius)
    return ends, radius


def placed_hull(g: GroundDescription) -> Polytope:
    """A static convex collider's hull in the world: the hull of its turned and scaled points (made once for every
    collider of the same shape and turn), moved to its place."""
    m = np.asarray(canonical_value(g.transform), dtype=float).reshape(4, 4)
    hull = _hull_of(np.asarray(canonical_value(g.points), dtype=float).reshape(-1, 3) @ m[:3, :3])
    shift = m[3, :3]
    return Polytope(hull.vertices + shift, hull.normals, hull.offsets + hull.normals @ shift, hull.loops,
                    hull.loop_counts, hull.edges, hull.directions)


# ------------------------------------------------------------------------------------------------ contacts

def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


# the fields of no contact, shared (read-only) by every empty `Contacts`: most steps of most vehicles make none
_NO_CONTACTS = tuple(_read_only(a) for a in (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3)),
                                             np.zeros((0, 3)), np.zeros(0)))


@dataclass
class Contacts:
    """A step's contact points, grouped by pair (`pair`: shape row and static shape) in generation order."""

    shape: np.ndarray  # (C,) row of ContactModel
    static: np.ndarray  # (C,) index into Ground.materials
    point: np.ndarray  # (C, 3) world
    normal: np.ndarray  # (C, 3) world, from the static shape towards the vehicle's
    separation: np.ndarray  # (C,)
    pair: np.ndarray | None = None  # (C,) while generating: the candidate pair that made each contact
    patch: np.ndarray | None = None  # (C,) the contact patch (pair and normal) of each, numbered from 0
    manifolds: "Manifolds | None" = None  # what the pairs keep for the next step (sim/manifold.py), where asked

    @classmethod
    def empty(cls) -> "Contacts":
        return cls(*_NO_CONTACTS)

    def __len__(self) -> int:
        return len(self.shape)


def shape_boxes(model: ContactModel, position: np.ndarray, orientation: np.ndarray, rows: np.ndarray | None = None):
    """Each shape's body rotation (3, 3, N), the centre of its box in the world (three (N,) components) and a
    rounding slack (N,) to grow the box by, at the body poses position (3, V), orientation (4, V); of the shape
    rows `rows` only (N of them) where given."""
    if rows is not None:
        v = model.vehicle[rows]
        R, x = vm.quat_to_mat(orientation[:, v].astype(float)), position[:, v].astype(float)
        c, h = model.box_centre[:, rows], model.box_half[:, rows]
    else:
        R = vm.quat_to_mat(orientation.astype(float))  # (3, 3, V)
        x = position.astype(float)
        if not (model.one_per_vehicle and orientation.shape[1] == len(model.vehicle)):
            R, x = R[:, :, model.vehicle], x[:, model.vehicle]  # (3, 3, N), (3, N)
        c, h = model.box_centre, model.box_half  # component first (3, N)
    centre = [R[i, 0] * c[0] + R[i, 1] * c[1] + R[i, 2] * c[2] + x[i] for i in range(3)]
    slack = 1e-6 * (1.0 + np.abs(centre[0]) + np.abs(centre[1]) + np.abs(centre[2]) + h[0] + h[1] + h[2])
    return R, centre, slack


def shape_reach(model: ContactModel, V: int) -> np.ndarray:
    """(V,) how far each vehicle's shapes' boxes reach from its body position: what a turn by an angle moves them
    by, at most, per radian."""
    reach = np.zeros(V)
    np.maximum.at(reach, model.vehicle,
                  np.linalg.norm(model.box_centre, axis=0) + np.linalg.norm(model.box_half, axis=0))
    return reach


def turned_half(model: ContactModel, R: np.ndarray) -> np.ndarray:
    """(N, 3): the half extents of the world box holding each shape's body-frame box turned by R (3, 3, N)."""
    h = model.box_half
    return np.stack([np.abs(R[i, 0]) * h[0] + np.abs(R[i, 1]) * h[1] + np.abs(R[i, 2]) * h[2] for i in range(3)],
                    axis=1)


def _near_planes(model: ContactModel, ground: Ground, R: np.ndarray, centre: list, slack: np.ndarray,
                 rows: np.ndarray | None = None):
    """Per plane, the shape rows (of `rows`, all where None; R, centre and slack are theirs, `shape_boxes`) whose box
    comes nearer to it than the contact distance, and every row's clearance: how far its box's lowest point lies
    beyond that distance."""
    h = model.box_half if rows is None else model.box_half[:, rows]
    out = []
    for k in range(ground.plane_normals.shape[0]):
        n, d = [float(v) for v in ground.plane_normals[k]], float(ground.plane_offsets[k])
        turned = [R[0, j] * n[0] + R[1, j] * n[1] + R[2, j] * n[2] for j in range(3)]  # the normal in the body frame
        lowest = (centre[0] * n[0] + centre[1] * n[1] + centre[2] * n[2] + d
                  - (np.abs(turned[0]) * h[0] + np.abs(turned[1]) * h[1] + np.abs(turned[2]) * h[2]))
        clearance = lowest - slack - (model.plane_limit[k] if rows is None else model.plane_limit[k, rows])
        near = np.nonzero(clearance < 0.0)[0]
        out.append((near if rows is None else rows[near], clearance))
    return out


# On a ground of planes alone, a vehicle whose shapes' boxes were all clear of every plane by c at a reference pose
# comes no nearer than the contact distance while its body has moved towards a plane and turned by less: a box's
# lowest point along a normal n moves by |dx . n| (taken as |n| . |dx|, exact for a level plane) plus the turn's
# angle times the box's reach from the body (|centre| + |half extents|), and its rounding slack by 1e-6 of the
# centre's change. Those vehicles skip the test (a fleet on flat ground touching nothing tests no box, and where the
# whole fleet's bounds (sim/motion.Motion.bounds) clear the smallest clearance, measures no vehicle either); the others
# are tested, and their reference pose and clearance refreshed. The shapes that follow a wheel change their boxes in the
# body: their vehicles are tested every step.
def _plane_candidates(model: ContactModel, ground: Ground, motion: Motion):
    """`_candidates` on a ground of planes alone, at the poses of `motion`: the rows per plane, and the rotations
    (3, 3, N) of the rows tested (NaN for the others, which are no plane's candidates; None where none was tested)."""
    position, orientation = motion.position, motion.orientation
    V, N = orientation.shape[1], len(model.vehicle)
    if not len(ground.plane_normals):
        return [], None
    quiet = model.cache.get("planes_quiet")
    if quiet is None or quiet["ground"] is not ground or quiet["position"].shape[1] != V:
        following = model.cache["following_rows"]
        always = None if not following.size else np.isin(np.arange(V), model.vehicle[following])
        reach = shape_reach(model, V) * (1.0 + 3e-6)  # with the slack's growth as the box turns
        quiet = model.cache["planes_quiet"] = {
            "ground": ground, "reach": reach, "reach_max": float(reach.max()), "always": always,
            "weights": np.abs(ground.plane_normals) + 1e-6}  # (|n| + the slack's 1e-6) . |dx|
        quiet["weight_rows"] = quiet["weights"].tolist()
        test = np.ones(V, bool)
    else:
        if quiet["always"] is None:  # first the whole fleet's bounds against the smallest clearance
            bounds = motion.bounds(quiet["position"], quiet["orientation"])
            towards = max(sum(w * a for w, a in zip(row, bounds.along)) for row in quiet["weight_rows"])
            if towards + bounds.turn * quiet["reach_max"] < quiet["clearance_min"]:
                return [np.zeros(0, np.int64)] * len(ground.plane_normals), None
        change, turn = motion.since(quiet["position"], quiet["orientation"])
        moved = (quiet["weights"] @ np.abs(change)).max(axis=0) + turn * quiet["reach"]
        test = moved >= quiet["clearance"]
        if quiet["always"] is not None:
            test |= quiet["always"]
        if not test.any():
            return [np.zeros(0, np.int64)] * len(ground.plane_normals), None
    if test.all():
        R, centre, slack = shape_boxes(model, position, orientation)
        rows, R_tested = None, R
    else:
        rows = np.nonzero(test[model.vehicle])[0]
        R_tested, centre, slack = shape_boxes(model, position, orientation, rows)
        R = np.full((3, 3, N), np.nan)
        R[:, :, rows] = R_tested
    near = _near_planes(model, ground, R_tested, centre, slack, rows)
    clearance = np.full(V, np.inf)
    for _, row_clearance in near:
        np.minimum.at(clearance, model.vehicle if rows is None else model.vehicle[rows], row_clearance)
    clearance -= 1e-9 * (1.0 + np.abs(position).sum(axis=0))  # rounding
    if rows is None:  # every vehicle from this pose: the step's shared reference arrays
        (quiet["position"], quiet["orientation"]), quiet["clearance"] = motion.reference(), clearance
    else:  # new arrays, the reference being shared (`Motion`)
        ref_position, ref_orientation = motion.reference()
        quiet["position"] = np.where(test, ref_position, quiet["position"])
        quiet["orientation"] = np.where(test, ref_orientation, quiet["orientation"])
        quiet["clearance"] = np.where(test, clearance, quiet["clearance"])
    quiet["clearance_min"] = float(quiet["clearance"].min())
    return [found for found, _ in near], R


def _candidates(model: ContactModel, ground: Ground, position: np.ndarray, orientation: np.ndarray,
                motion: Motion | None = None):
    """The broad phase, from each shape's box turned with its body (no vertex moved): per plane the shapes whose box
    comes nearer to it than the contact distance, the (shape, triangle) pairs whose world boxes, grown by the contact
    distance, overlap (the ground's triangle grid), the (shape, static polytope) pairs whose boxes overlap (found among
    the grid's candidates for the polytope's faces, which it holds as triangles); and the shape rotations (3, 3,
    N)."""
    if model.static_shapes is None and ground.grid is None and model.static_rounds is None:
        # planes alone: the vehicles clear of them skip the test
        planes, R = _plane_candidates(model, ground, Motion(position, orientation) if motion is None else motion)
        return planes, (np.zeros(0, np.int64),) * 2, (np.zeros(0, np.int64),) * 2, R
    R, centre, slack = shape_boxes(model, position, orientation)
    planes = [rows for rows, _ in _near_planes(model, ground, R, centre, slack)]
    half = turned_half(model, R) + (model.reach + slack)[:, None]
    centre = np.stack(centre, axis=1)
    lo, hi = centre - half, centre + half
    hull_pairs = tri_pairs = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    if ground.grid is not None:  # meshes and the static polytopes' faces (as triangles): the grid's pairs
        if model.cache.get("ground") is not ground:
            box = ground.grid.triangle_boxes
            model.cache.update(ground=ground, lo=box[:3].min(axis=1), hi=box[3:].max(axis=1))
        inside = np.nonzero(((lo <= model.cache["hi"]) & (hi >= model.cache["lo"])).all(axis=1))[0]
        if inside.size:
            query, tri = ground.grid.pairs(lo[inside], hi[inside])
            shape = inside[query]
            static = model.plane_count + ground.tri_shape[tri]
            first = model.polytope_first
            polytope_face = static >= first
            # a mesh triangle by its own box; a polytope's face by the polytope's box, so that a shape wholly inside
            # it, near none of its faces, is found (the grid lists a face in every cell its projection covers, and
            # the projections of a polytope's faces cover the polytope's: the pair is among the grid's candidates)
            box_lo, box_hi = ground.grid.box(tri)
            if polytope_face.any():
                box_lo[polytope_face] = model.static_lo[static[polytope_face] - first]
                box_hi[polytope_face] = model.static_hi[static[polytope_face] - first]
            ok = ((box_lo <= hi[shape]) & (box_hi >= lo[shape])).all(axis=1) & model.collides[shape, static]
            shape, tri, static, polytope_face = shape[ok], tri[ok], static[ok], polytope_face[ok]
            tri_pairs = (shape[~polytope_face], tri[~polytope_face])
            if polytope_face.any():  # a pair per shape and polytope whose face boxes it meets, in (shape, polytope) order
                H = len(model.static_index)
                key = np.unique(shape[polytope_face] * H + (static[polytope_face] - first))
                hull_pairs = (key // H, key % H)
    elif model.static_shapes is not None:
        near = ((lo[:, None] <= model.static_hi[None]) & (hi[:, None] >= model.static_lo[None])).all(-1)
        near &= model.collides[:, model.static_index]
        hull_pairs = np.nonzero(near)
    return planes, hull_pairs, tri_pairs, R


def generate(model: ContactModel, ground: Ground, position: np.ndarray, orientation: np.ndarray,
             previous: "Manifolds | None" = None, length_scale: np.ndarray | None = None,
             motion: Motion | None = None) -> Contacts:
    """The contacts of every vehicle shape at the body poses position (3, V), orientation (4, V). Only the shapes the
    broad phase (`_candidates`) keeps have their vertices moved: a fleet on flat ground touching nothing pays for a
    motion bound per vehicle (`_plane_candidates`), and nothing more. With the vehicles' length scales (V,), the
    pairs that keep PCM's persistent manifolds (sim/manifold.py) re-measure the points `previous` kept where they have
    moved little, and the contacts carry the manifolds to keep (`Contacts.manifolds`); without, every contact is made
    anew. motion: the step's sim/motion.Motion of these poses."""
    planes, (hull_shape, hull), (tri_shape, tri), R_all = _candidates(model, ground, position, orientation, motion)
    rounds = (round_contact.candidates(model, position, orientation) if model.static_rounds is not None
              else (np.zeros(0, np.int64),) * 2)
    if not (hull_shape.size or tri_shape.size or rounds[0].size or any(rows.size for rows in planes)):
        return Contacts.empty()  # near nothing: no contact, and no manifold kept (a pair out of the broad phase ends)
    persistence = None
    if length_scale is not None:
        from .manifold import Persistence  # it builds on this module's records

        persistence = Persistence(model, ground, planes, (hull_shape, hull), (tri_shape, tri), rounds, R_all,
                                  position, orientation, length_scale, previous)
        planes, (hull_shape, hull), (tri_shape, tri) = persistence.planes, persistence.hull_pairs, persistence.tri_pairs
        rounds = persistence.round_pairs
    parts = _made(model, ground, planes, hull_shape, hull, tri_shape, tri, R_all, position, rounds)
    if persistence is not None:
        parts.append(persistence.kept)
    parts = [p for p in parts if len(p)]
    out = Contacts.empty()
    if parts:
        out = Contacts(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("shape", "static", "point", "normal",
                                                                                  "separation")))
        out = _reduce(out, _patch_points(model, out))
    if persistence is not None:
        out.manifolds = persistence.record(out)
    return out


def _patch_points(model: ContactModel, c: Contacts) -> np.ndarray:
    """(C,) how many points each contact's patch keeps whole: MESH_PATCH_POINTS for a convex shape on a triangle mesh,
    MAX_POINTS otherwise."""
    on_mesh = (c.static >= model.plane_count) & (c.static < model.polytope_first)
    if model.radius is not None:
        on_mesh &= model.radius[c.shape] == 0.0
    if model.cylinders.size:  # an exact cylinder's patches are PhysX's convex-core patches: four points at most
        on_mesh &= ~np.isin(c.shape, model.cylinders)
    return np.where(on_mesh, MESH_PATCH_POINTS, MAX_POINTS)


def _made(model: ContactModel, ground: Ground, planes: list[np.ndarray], hull_shape: np.ndarray, hull: np.ndarray,
          tri_shape: np.ndarray, tri: np.ndarray, R_all: np.ndarray, position: np.ndarray,
          rounds: tuple[np.ndarray, np.ndarray]) -> list[Contacts]:
    """The contacts made anew for the candidate pairs (`_candidates`; rounds: the static spheres' and capsules',
    sim/round_contact.py), unreduced, part by part."""
    round_shape, round_k = rounds
    rows = np.unique(np.concatenate(planes + [hull_shape, tri_shape, round_shape]))
    if not rows.size:
        return []
    R, vertices = placed_vertices(model, rows, R_all, position)
    # the cylinders' world cap centres, for the planes' exact contacts
    cylinders = np.intersect1d(rows, model.cylinders) if model.cylinders.size else model.cylinders
    ends = None
    if cylinders.size:
        ends = np.full((len(model.vehicle), 2, 3), np.nan)
        ends[cylinders] = cylinder_world_ends(model, cylinders, R[cylinders], position)
    parts = [_plane_contacts(model, ground, vertices, planes, ends)]
    if hull_shape.size and model.static_boxes is not None:  # box against box: PhysX's own box-box contacts
        both = model.boxes.mask[hull_shape] & model.static_boxes.mask[hull]
        if both.any():
            made, boxed = _box_contacts(model, hull_shape[both], hull[both], position, R)
            parts.append(boxed)
            left = np.ones(len(hull), bool)
            left[np.nonzero(both)[0][made]] = False
            hull_shape, hull = hull_shape[left], hull[left]
    if hull_shape.size and ends is not None:  # exact cylinders against boxes and hulls (sim/cylinder_contact.py)
        exact = np.isfinite(ends[hull_shape, 0, 0])
        if exact.any():
            parts.append(_cylinder_convexes(model, hull_shape[exact], hull[exact], ends, R))
            hull_shape, hull = hull_shape[~exact], hull[~exact]
    if hull_shape.size and model.static_cylinders is not None:  # a vehicle's shape against a static exact cylinder
        exact = np.isfinite(model.static_cylinders[0][hull, 0, 0])
        if exact.any():
            parts.append(_static_cylinder_contacts(model, hull_shape[exact], hull[exact], vertices, R, position))
            hull_shape, hull = hull_shape[~exact], hull[~exact]
    if hull_shape.size:
        A = _world_polytopes(model.shapes, hull_shape, vertices, R)
        B = _rows(model.static_shapes, hull)
        static = model.static_index[hull]
        made = polytope_contacts(A, B, hull_shape, static, model.contact_distance[hull_shape, static],
                                 single_sided=None, radius=_radius(model, hull_shape))
        parts.append(_sphere_points_on_boxes(model, made, hull))
    if tri_shape.size and ends is not None:  # exact cylinders against triangles (sim/cylinder_contact.py)
        exact = np.isfinite(ends[tri_shape, 0, 0])
        if exact.any():
            parts.append(_cylinder_triangles(model, ground, tri_shape[exact], tri[exact], ends, R))
            tri_shape, tri = tri_shape[~exact], tri[~exact]
    if tri_shape.size:
        A = _world_polytopes(model.shapes, tri_shape, vertices, R)
        B = _triangles(ground, tri)
        static = model.plane_count + ground.tri_shape[tri]
        parts.append(polytope_contacts(A, B, tri_shape, static, model.contact_distance[tri_shape, static],
                                       single_sided=ground.tri_normals[tri], radius=_radius(model, tri_shape)))
    if round_shape.size and ends is not None:  # exact cylinders against spheres and capsules
        exact = np.isfinite(ends[round_shape, 0, 0])
        if exact.any():
            parts.append(_cylinder_rounds(model, round_shape[exact], round_k[exact], ends, R))
            round_shape, round_k = round_shape[~exact], round_k[~exact]
    if round_shape.size:
        parts.append(round_contact.contacts(model, round_shape, round_k, vertices, R))
    return parts


def _cylinder_triangles(model: ContactModel, ground: Ground, shape: np.ndarray, tri: np.ndarray,
                        ends: np.ndarray, R: np.ndarray) -> Contacts:
    """Contacts of exact cylinders (the rows `shape`, world cap centres `ends` (N, 2, 3), the rows' rotations R (N, 3,
    3)) with the mesh triangles `tri`, pair by pair, the points of a cylinder and one mesh gathered into patches in
    triangle order."""
    static = model.plane_count + ground.tri_shape[tri]
    order = np.lexsort((tri, static, shape))
    shape, tri, static = shape[order], tri[order], static[order]
    v0 = ground.tri_v0[tri]
    triangles = np.stack([v0, v0 + ground.tri_e1[tri], v0 + ground.tri_e2[tri]], axis=1)
    pair, point, normal, separation = cylinder_contact.cylinder_triangles(
        *_cylinder_cores(model, shape, ends, R), triangles, model.contact_distance[shape, static],
        shape * (int(static.max()) + 1) + static, _core_turns(model, shape, R))
    return Contacts(shape[pair], static[pair], point, normal, separation)


def _static_cylinder_contacts(model: ContactModel, shape: np.ndarray, hull: np.ndarray, vertices: np.ndarray,
                              R: np.ndarray, position: np.ndarray) -> Contacts:
    """Contacts of the vehicle shapes `shape` (no exact cylinders: `_cylinder_convexes` takes those) with the static
    exact cylinders `hull` (ContactModel.static_cylinders), as PhysX's convex-core contacts make them: the vehicle's
    shape where it stands as the other core (sim/cylinder_contact.py `cylinder_convexes`, `shape_core`)."""
    static = model.static_index[hull]
    ends, radius = model.static_cylinders
    centre, axis, half = _on_axis(ends[hull])
    others = [shape_core(model, row, vertices, R, position) for row in shape]
    pair, point, normal, separation = cylinder_contact.cylinder_convexes(
        centre, axis, half, radius[hull], others, model.contact_distance[shape, static],
        cylinder_contact.core_turn(axis))
    # the normals from the vehicle's shape towards the static cylinder: turned to point from the static
    return Contacts(shape[pair], static[pair], point, -normal, separation)


def shape_core(model: ContactModel, row: int, vertices: np.ndarray, R: np.ndarray, position: np.ndarray,
               first: bool = False):
    """Shape row `row` where it stands as PhysX's convex-core contacts hold it (sim/cylinder_contact.py): its box
    turned and moved with its body, its sphere's or capsule's core, its exact cylinder (PhysX's pair's first shape
    where `first`), else its hull's vertices (the padding repeats vertex 0)."""
    if row in model.cylinders:
        (centre, axis, half, radius, turn) = exact_cylinders(model, np.array([row]), R, position)
        return cylinder_contact.CylinderCore(centre[0], axis[0], half[0], radius[0], turn[0], first)
    if model.boxes.mask[row]:
        return _box_core(R[row] @ model.boxes.centre[row] + position[:, model.vehicle[row]],
                         R[row] @ model.boxes.axes[row].T, model.boxes.half[row])
    if model.radius is not None and model.radius[row] > 0.0:  # its core's ends (PhysX's +axis first)
        loop, count = model.shapes.loops[row, 0], model.shapes.loop_counts[row, 0]
        return _round_core(vertices[row, loop[min(1, count - 1)]], vertices[row, loop[0]], float(model.radius[row]))
    return _points_core(vertices[row])


def _box_core(centre: np.ndarray, rotation: np.ndarray, half: np.ndarray):
    """PhysX's box core of a box at `centre` turned by `rotation` (3, 3: its axes the columns)."""
    return cylinder_contact.BoxCore(centre, cylinder_contact.matrix_turn(rotation[None])[0].astype(np.float32), half)


def _round_core(start: np.ndarray, end: np.ndarray, radius: float):
    """PhysX's point or segment core of a sphere or capsule whose core runs from `end` to `start` (its +x towards
    `start`; a sphere's, start = end: any)."""
    length = float(np.linalg.norm(start - end))
    axis = (start - end) if length > 0.0 else np.array([1.0, 0.0, 0.0])
    return cylinder_contact.RoundCore((start + end) / 2, cylinder_contact.core_turn(axis[None])[0], length / 2,
                                      radius)


def _points_core(vertices: np.ndarray):
    """PhysX's points core of a hull's padded vertices (the padding repeats vertex 0), each once, in their order."""
    return cylinder_contact.PointsCore(vertices[np.sort(np.unique(vertices, axis=0, return_index=True)[1])])


def _cylinder_convexes(model: ContactModel, shape: np.ndarray, hull: np.ndarray, ends: np.ndarray,
                       R: np.ndarray) -> Contacts:
    """Contacts of exact cylinders (as `_cylinder_triangles`) with the static polytopes `hull`: a box as PhysX's box
    core, a cylinder as its core, another hull as its points core (sim/cylinder_contact.py `cylinder_convexes`)."""
    static = model.static_index[hull]
    boxes = model.static_boxes
    others = []
    cylinders = model.static_cylinders
    for k in hull:
        if cylinders is not None and np.isfinite(cylinders[0][k, 0, 0]):
            # two cores: the vehicle's taken first (the other order made the same contacts on CylinderPipe)
            (centre,), (axis,), (half,) = _on_axis(cylinders[0][k][None])
            others.append(cylinder_contact.CylinderCore(centre, axis, float(half), float(cylinders[1][k]),
                                                        cylinder_contact.core_turn(axis[None])[0], False))
        elif boxes is not None and boxes.mask[k]:  # rows of the axes: the columns of the box's rotation
            others.append(_box_core(boxes.centre[k], boxes.axes[k].T, boxes.half[k]))
        else:
            others.append(_points_core(model.static_shapes.vertices[k]))
    pair, point, normal, separation = cylinder_contact.cylinder_convexes(
        *_cylinder_cores(model, shape, ends, R), others, model.contact_distance[shape, static],
        _core_turns(model, shape, R))
    return Contacts(shape[pair], static[pair], point, normal, separation)


def _cylinder_rounds(model: ContactModel, shape: np.ndarray, round_k: np.ndarray, ends: np.ndarray,
                     R: np.ndarray) -> Contacts:
    """Contacts of exact cylinders (as `_cylinder_triangles`) with the static spheres and capsules `round_k`
    (sim/round_contact.StaticRounds): their point or segment cores, the radius their margin (`cylinder_convexes`)."""
    rounds = model.static_rounds
    static = rounds.column[round_k]
    others = [_round_core(rounds.ends[k, 1], rounds.ends[k, 0], float(rounds.radius[k])) for k in round_k]
    pair, point, normal, separation = cylinder_contact.cylinder_convexes(
        *_cylinder_cores(model, shape, ends, R), others, model.contact_distance[shape, static],
        _core_turns(model, shape, R))
    return Contacts(shape[pair], static[pair], point, normal, separation)


def exact_cylinders(model: ContactModel, rows: np.ndarray, R: np.ndarray, position: np.ndarray):
    """The exact cylinders of the cylinder rows `rows` (R: the rows' rotations, (N, 3, 3) over all rows; position:
    the bodies' (3, V)): world centres (P, 3), unit axes, half heights, radii (P,) and their cores' float32
    quaternions (P, 4)."""
    ends = np.full((len(model.vehicle), 2, 3), np.nan)
    ends[rows] = cylinder_world_ends(model, rows, R[rows], position)
    return (*_cylinder_cores(model, rows, ends, R), _core_turns(model, rows, R))


def _cylinder_cores(model: ContactModel, shape: np.ndarray, ends: np.ndarray, R: np.ndarray):
    """The exact cylinders of the rows `shape`: world centres (P, 3), unit axes, half heights and radii (P,)."""
    return (*_on_axis(ends[shape]), model.cylinder_radius[shape])


def _on_axis(ends: np.ndarray):
    """Cylinders' centres (P, 3), unit axes (PhysX's core +x: towards the cap listed second) and half heights (P,)
    from their cap centres (P, 2, 3)."""
    half_vector = (ends[:, 1] - ends[:, 0]) / 2
    half = np.linalg.norm(half_vector, axis=1)
    return ends[:, 0] + half_vector, half_vector / half[:, None], half


def _core_turns(model: ContactModel, shape: np.ndarray, R: np.ndarray) -> np.ndarray:
    """(P, 4) the float32 quaternions of the rows' cylinder cores: the body's turn, the wheel's (its angle about the
    axle) and the core's +x onto the axis (sim/cylinder_contact.core_turn)."""
    local = model.cylinder_ends[shape, 1] - model.cylinder_ends[shape, 0]  # in the body frame
    frame = R[shape]
    if model.cylinder_frame is not None:  # the wheel's turn, and the axis back in the wheel's frame
        frame = np.einsum("nij,njk->nik", frame, model.cylinder_frame[shape])
        local = np.einsum("nji,nj->ni", model.cylinder_frame[shape], local)
    return cylinder_contact.core_turn(local, frame)


def _sphere_points_on_boxes(model: ContactModel, made: Contacts, hull: np.ndarray,
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


def _radius(model: ContactModel, rows: np.ndarray) -> np.ndarray | None:
    """The round shapes' radii about their cores for the shape rows `rows` (None: the model has no round shape)."""
    return None if model.radius is None else model.radius[rows]


def cylinder_world_ends(model: ContactModel, rows: np.ndarray, R: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The world cap centres (n, 2, 3) of the cylinder rows `rows`, from their rotations R (n, 3, 3) and the bodies'
    positions (3, V)."""
    return (np.einsum("nij,nkj->nki", R, model.cylinder_ends[rows])
            + position[:, model.vehicle[rows]].T[:, None, :])


def placed_vertices(model: ContactModel, rows: np.ndarray, R_all: np.ndarray, position: np.ndarray):
    """The rotations (N, 3, 3) and world vertices (N, K, 3) of the shape rows `rows` (the other rows unset), from
    the shapes' rotations R_all (3, 3, N) and the bodies' positions (3, V)."""
    N, K = model.shapes.vertices.shape[:2]
    R = np.empty((N, 3, 3))
    R[rows] = np.moveaxis(R_all[:, :, rows], 2, 0)
    vertices = np.empty((N, K, 3))  # only the rows of candidates are filled (and read)
    local, turn = model.shapes.vertices[rows], R[rows][:, None]  # elementwise: a row's result is its own
    vertices[rows] = (turn[..., 0] * local[..., :1] + turn[..., 1] * local[..., 1:2] + turn[..., 2] * local[..., 2:]
                      + position[:, model.vehicle[rows]].T[:, None, :])
    return R, vertices


def _box_contacts(model: ContactModel, shape: np.ndarray, hull: np.ndarray, position: np.ndarray, R: np.ndarray):
    """(which pairs made points, their contacts) of vehicle boxes `shape` against static boxes `hull` (pcm_box)."""
    a, b = model.boxes.rows(shape), model.static_boxes.rows(hull)
    centre = np.einsum("pij,pj->pi", R[shape], a.centre) + position[:, model.vehicle[shape]].T
    axes = np.einsum("pkj,pij->pki", a.axes, R[shape])
    static = model.static_index[hull]
    made, point, separation, valid, normal = box_box(centre, axes, a.half, b.centre, b.axes, b.half,
                                                     model.contact_distance[shape, static])
    p, q = np.nonzero(valid & made[:, None])
    return made, Contacts(shape[p], static[p], point[p, q], normal[p], separation[p, q], p)


def _plane_contacts(model: ContactModel, ground: Ground, vertices: np.ndarray, planes: list[np.ndarray],
                    ends: np.ndarray | None = None) -> Contacts:
    """planes: per plane, the shape rows to test against it; ends: the cylinders' world cap centres (N, 2, 3), NaN
    where a row is none (None: no cylinder), which meet a plane as exact cylinders."""
    parts = []
    for k, rows in enumerate(planes):
        if not rows.size:
            continue
        n, d = ground.plane_normals[k], float(ground.plane_offsets[k])
        if ends is not None:
            exact = np.isfinite(ends[rows, 0, 0])
            if exact.any():
                limit = np.where(model.collides[rows[exact], k], model.contact_distance[rows[exact], k], -np.inf)
                parts.append(_cylinder_plane(rows[exact], k, ends[rows[exact]], model.cylinder_radius[rows[exact]], n,
                                             d, limit))
                rows = rows[~exact]
                if not rows.size:
                    continue
        distance = vertices[rows] @ n + d  # (n, K)
        if model.radius is not None:  # a sphere's centre, a capsule's segment ends: the radius nearer
            distance = distance - model.radius[rows, None]
        limit = np.where(model.collides[rows, k], model.contact_distance[rows, k], -np.inf)
        touching = distance < limit[:, None]
        touching &= _first_of_equal(vertices[rows])
        shape, vertex = np.nonzero(touching)
        if shape.size:
            sep = distance[shape, vertex]
            # a polytope's vertex put on the plane; a sphere's or capsule's core point on its round surface (its radius
            # down the normal), as PhysX's sphere-plane and capsule-plane contacts report it
            drop = sep if model.radius is None else np.where(model.radius[rows[shape]] > 0.0, model.radius[rows[shape]],
                                                             sep)
            parts.append(Contacts(rows[shape], np.full(shape.size, k),
                                  vertices[rows[shape], vertex] - drop[:, None] * n,
                                  np.broadcast_to(n, (shape.size, 3)).copy(), sep))
    if not parts:
        return Contacts.empty()
    return Contacts(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("shape", "static", "point", "normal",
                                                                                  "separation")))


# PhysX's convex-core cylinder meets a plane with a face when its axis is this near the plane's normal (|cos| above:
# its cap's rim, four points) or the plane (below: its side's lowest line, two points); one point otherwise
# (GuConvexSupport.h contactFace, ~cos 8 and cos 82 degrees)
_CAP_DOWN, _SIDE_DOWN = 0.99, 0.14


def _cylinder_plane(rows: np.ndarray, k: int, ends: np.ndarray, radius: np.ndarray, n: np.ndarray, d: float,
                    limit: np.ndarray) -> Contacts:
    """Contacts of exact cylinders (cap centres ends (n, 2, 3), radius) with plane k (n . x + d = 0) as PhysX's convex
    core makes them (Gu::generateContacts): the cylinder's deepest point along -n; if nearer than the contact distance,
    the points of its face towards the plane (or the deepest point alone), each at its own distance, placed halfway
    between the cylinder and the plane."""
    centre = (ends[:, 0] + ends[:, 1]) / 2
    half = (ends[:, 1] - ends[:, 0]) / 2
    h = np.linalg.norm(half, axis=1)
    axis = half / np.maximum(h, 1e-30)[:, None]
    down = -np.asarray(n, float)
    along = axis @ down  # (n,)
    across = down[None, :] - along[:, None] * axis
    width = np.linalg.norm(across, axis=1)
    fallback = np.cross(axis, np.where(np.abs(axis[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]]))
    fallback /= np.linalg.norm(fallback, axis=1, keepdims=True)
    u = np.where((width > 1e-5)[:, None], across / np.maximum(width, 1e-30)[:, None], fallback)
    cap = centre + np.sign(along)[:, None] * h[:, None] * axis  # the cap towards the plane (either if square to it)
    deepest = cap + radius[:, None] * u
    touching = deepest @ n + d < limit
    cap_down, side_down = touching & (np.abs(along) > _CAP_DOWN), touching & (np.abs(along) < _SIDE_DOWN)
    corner = touching & ~cap_down & ~side_down
    w = np.cross(axis, u)
    r = radius[:, None]
    candidates = [  # (which rows, the points) in PhysX's order
        (cap_down, [cap + r * u, cap + r * w, cap - r * u, cap - r * w]),
        (side_down, [centre + h[:, None] * axis + r * u, centre - h[:, None] * axis + r * u]),
        (corner, [deepest]),
    ]
    shape, point, separation = [], [], []
    for mask, points in candidates:
        sel = np.nonzero(mask)[0]
        if not sel.size:
            continue
        p = np.stack([q[sel] for q in points], axis=1)  # (m, points, 3), row by row
        dist = p @ n + d
        shape.append(np.repeat(rows[sel], p.shape[1]))
        point.append((p - 0.5 * dist[..., None] * n).reshape(-1, 3))
        separation.append(dist.reshape(-1))
    if not shape:
        return Contacts.empty()
    shape = np.concatenate(shape)
    order = np.argsort(shape, kind="stable")  # shape by shape, as the other parts come
    return Contacts(shape[order], np.full(len(shape), k), np.concatenate(point)[order],
                    np.broadcast_to(np.asarray(n, float), (len(shape), 3)).copy(), np.concatenate(separation)[order])


def _first_of_equal(vertices: np.ndarray) -> np.ndarray:
    """(N, K): the padded vertices (copies of vertex 0 after the real ones) left out."""
    same = (vertices == vertices[:, :1]).all(axis=2)
    same[:, 0] = False
    return ~same


def _rows(P: Polytopes, rows: np.ndarray) -> Polytopes:
    return Polytopes(P.vertices[rows], P.normals[rows], P.offsets[rows], P.face_mask[rows], P.loops[rows],
                     P.loop_counts[rows], P.edges[rows], P.edge_mask[rows], P.axis_edges[rows], P.axis_mask[rows])


def _world_polytopes(P: Polytopes, rows: np.ndarray, vertices: np.ndarray, R: np.ndarray) -> Polytopes:
    """Shape rows `rows` in the world: their world vertices, rotated normals and moved offsets."""
    normals = np.einsum("nij,nfj->nfi", R[rows], P.normals[rows])
    offsets = np.where(P.face_mask[rows], np.einsum("nfj,nfj->nf", normals,
                                                    np.take_along_axis(vertices[rows], P.loops[rows][:, :, :1], 1)),
                       -np.inf)
    return Polytopes(vertices[rows], normals, offsets, P.face_mask[rows], P.loops[rows], P.loop_counts[rows],
                     P.edges[rows], P.edge_mask[rows], P.axis_edges[rows], P.axis_mask[rows])


def _triangles(ground: Ground, tri: np.ndarray) -> Polytopes:
    v0 = ground.tri_v0[tri]
    vertices = np.stack([v0, v0 + ground.tri_e1[tri], v0 + ground.tri_e2[tri]], axis=1)
    normals = ground.tri_normals[tri][:, None, :]
    offsets = np.einsum("nj,nj->n", normals[:, 0], v0)[:, None]
    T = len(tri)
    edges = np.tile(np.array([[0, 1], [1, 2], [0, 2]]), (T, 1, 1))
    active = np.ones((T, 3), bool) if ground.tri_active is None else ground.tri_active[tri]  # (edge axes: active only)
    return Polytopes(vertices, normals, offsets, np.ones((T, 1), bool), np.tile(np.arange(3), (T, 1, 1)),
                     np.full((T, 1), 3), edges, np.ones((T, 3), bool), edges, active)


def _support_min(vertices: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """min over each row's vertices of axis . x: vertices (P, K, 3), axes (P, A, 3) -> (P, A)."""
    return np.einsum("paj,pkj->pak", axes, vertices).min(axis=2)


def polytope_contacts(A: Polytopes, B: Polytopes, shape: np.ndarray, static: np.ndarray, limit: np.ndarray,
                      single_sided: np.ndarray | None, first_faces: bool = False,
                      radius: np.ndarray | None = None) -> Contacts:
    """Contacts of pairs of polytopes A (the vehicle's) and B (static, or another vehicle's) by separating axes; see
    the module docstring. limit: each pair's contact distance; single_sided: B's front normals (triangles), whose
    back side makes no contact. Of a face of A and one of B that separate the pair about equally (within
    _FACE_PREFERENCE of _FACE_PREFERENCE_LENGTH contact distances + the depth), B's is the reference face; with
    first_faces, A's (the rule for two vehicles, sim/vehicle_contact.py). radius: a sphere's or capsule's radius
    about its core, A's polytope (0 for a polytope; None: no round shape)."""
    P = len(shape)
    rows = np.arange(P)
    # a sphere or capsule meets B with its core (a point, a segment) within the contact distance plus its radius
    if radius is not None:
        limit = limit + radius
    # face axes of A (outward normals n_f: B's separation from A along n_f), of B (A's separation from B)
    sep_a = np.where(A.face_mask, _support_min(B.vertices, A.normals) - A.offsets, -np.inf)
    sep_b = np.where(B.face_mask, _support_min(A.vertices, B.normals) - B.offsets, -np.inf)
    # edge axes, oriented from B towards A
    # (one edge of each direction: parallel edges give the same axis)
    ea = A.vertices[rows[:, None], A.axis_edges[:, :, 1]] - A.vertices[rows[:, None], A.axis_edges[:, :, 0]]
    eb = B.vertices[rows[:, None], B.axis_edges[:, :, 1]] - B.vertices[rows[:, None], B.axis_edges[:, :, 0]]
    axes = np.cross(ea[:, :, None, :], eb[:, None, :, :]).reshape(P, -1, 3)
    length = np.linalg.norm(axes, axis=2)
    scale = (np.linalg.norm(ea, axis=2)[:, :, None] * np.linalg.norm(eb, axis=2)[:, None, :]).reshape(P, -1)
    usable = (length > 1e-6 * np.maximum(scale, 1e-30)) & (A.axis_mask[:, :, None] & B.axis_mask[:, None, :]).reshape(P, -1)
    axes = axes / np.where(usable, length, 1.0)[:, :, None]
    towards = np.einsum("paj,pj->pa", axes, A.vertices.mean(axis=1) - B.vertices.mean(axis=1))
    axes = np.where((towards < 0.0)[:, :, None], -axes, axes)
    sep_e = _support_min(A.vertices, axes) + _support_min(B.vertices, -axes)  # min_A n.x - max_B n.x
    sep_e = np.where(usable, sep_e, -np.inf)
    # (a sphere has no face and no edge)
    best_a, best_b, best_e = (sep.max(axis=1, initial=-np.inf) for sep in (sep_a, sep_b, sep_e))
    face = np.maximum(best_a, best_b)
    tol = _FACE_PREFERENCE * (_FACE_PREFERENCE_LENGTH * limit + np.abs(face))
    if first_faces:
        use_a = (best_a >= best_b - tol) & (best_a >= best_e - tol)
        use_b = ~use_a & (best_b >= best_e - tol)
    else:
        use_b = (best_b >= best_a - tol) & (best_b >= best_e - tol)
        use_a = ~use_b & (best_a >= best_e - tol)
    use_e = ~use_b & ~use_a
    f_best = sep_a.argmax(axis=1)
    f_ref = f_best  # A's reference face where A's face is
    edge_face = np.zeros(P, bool)
    if single_sided is not None:
        use_b, use_a, use_e, edge_face, best_e, f_ref = _pcm_triangle_axes(A, B, axes, sep_e, best_a, best_b, tol,
                                                                          use_a, use_b, use_e, f_best)
    best = np.where(use_b, best_b, np.where(use_a, np.where(edge_face, best_e, best_a), best_e))
    touching = best < limit
    if single_sided is not None:  # PCM's convex-triangle rule: a face of A within 45 degrees of facing the triangle
        # leaves the normal to the triangle, its face clipped by the triangle (GuPCMTriangleContactGen.cpp)
        facing = ~edge_face & (-np.einsum("pj,pj->p", A.normals[rows, f_best], B.normals[:, 0]) > _TRIANGLE_FACING)
        use_b = use_b | (use_a & facing)
        use_a = use_a & ~facing
    parts = []
    sel = np.nonzero(touching & use_b)[0]
    if sel.size:  # reference face on B: A's most opposed face clipped by it (a triangle: A's face of the separating
        # axis, where it was A's); normal = B's face normal
        g = sep_b[sel].argmax(axis=1)
        normal = B.normals[sel, g]
        f = np.where(A.face_mask[sel], np.einsum("pfj,pj->pf", A.normals[sel], normal), np.inf).argmin(axis=1)
        if single_sided is not None:
            f = np.where(best_a[sel] > best_b[sel] + tol[sel], f_best[sel], f)
        clipped = _clip(B, sel, g, A, f, normal, shape[sel], static[sel], limit[sel], points_on_reference=False,
                        triangle=single_sided is not None, mesh=single_sided is not None)
        parts.append(clipped)
        if radius is not None:  # a round core beside the face, not over it: its nearest point on the face's rim
            missed = np.ones(len(sel), bool)
            missed[np.searchsorted(sel, clipped.pair)] = False  # (the pairs that made a point; sel is ascending)
            missed &= radius[sel] > 0.0
            if missed.any():
                parts.append(_core_to_rim(A, B, sel[missed], g[missed], shape[sel[missed]], static[sel[missed]],
                                          limit[sel[missed]]))
    sel = np.nonzero(touching & use_a)[0]
    if sel.size:  # reference face on A: B's most opposed face clipped by it; normal = minus A's face normal
        f = f_ref[sel]
        normal = -A.normals[sel, f]
        g = np.where(B.face_mask[sel], np.einsum("pfj,pj->pf", B.normals[sel], -normal), np.inf).argmin(axis=1)
        parts.append(_clip(A, sel, f, B, g, normal, shape[sel], static[sel], limit[sel], points_on_reference=True,
                           mesh=single_sided is not None))
    sel = np.nonzero(touching & use_e)[0]
    if sel.size:
        parts.append(_edge_contacts(A, B, sel, axes[sel, sep_e[sel].argmax(axis=1)], best[sel], shape[sel],
                                    static[sel]))
    parts = [p for p in parts if len(p)]
    if not parts:
        return Contacts.empty()
    out = Contacts(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("shape", "static", "point", "normal",
                                                                              "separation", "pair")))
    if radius is not None:  # from the core to the round surface
        r = radius[out.pair]
        out.separation = out.separation - r
        out.point = out.point - r[:, None] * out.normal
    if single_sided is not None:  # a triangle pushes only to its front side
        out = _subset(out, np.einsum("cj,cj->c", out.normal, single_sided[out.pair]) > 0.0)
    return out


def _pcm_triangle_axes(A: Polytopes, B: Polytopes, axes: np.ndarray, sep_e: np.ndarray, best_a: np.ndarray,
                       best_b: np.ndarray, tol: np.ndarray, use_a: np.ndarray, use_b: np.ndarray, use_e: np.ndarray,
                       f_best: np.ndarray):
    """PCM's choice of axis for a polytope A against a triangle B (GuPCMTriangleContactGen.cpp,
    generateTriangleFullContactManifold), where A has faces: the triangle's normal (its overlap less FLOAT_EPS) or A's
    face, chosen between them as polytope_contacts chooses, unless an edge pair (an edge of A, an active edge of the
    triangle, the axis on the triangle's front side) overlaps strictly less. Then A's face most opposed to that axis is
    the reference face (getPolygonIndex) and its normal the contact normal: where the edge of A's box lies on a ramp
    and crosses the mesh's boundary, the normal is the box's face, not the ramp's (ovphysx's contacts at the ramp run's
    step 27). A round core (no faces) keeps polytope_contacts' choice. Returns use_b, use_a, use_e, which pairs take
    A's face for an edge axis, the best edge separation of each pair, A's reference face of each pair."""
    rows = np.arange(len(best_a))
    front = np.einsum("paj,pj->pa", axes, B.normals[:, 0]) > 0.0
    edge_sep = np.where(front, sep_e, -np.inf)
    k = edge_sep.argmax(axis=1)
    best_edge = edge_sep[rows, k]
    faced = A.face_mask.any(axis=1)
    face_a = use_a | (use_e & ~(best_b >= best_a - tol))  # A's face or the triangle's, edges aside
    rounding = FLOAT_EPS * _TIE_ULPS * np.abs(B.vertices).max(axis=(1, 2))
    edge_face = faced & (best_edge > np.where(face_a, best_a, best_b + FLOAT_EPS) + rounding)
    f_edge = np.where(A.face_mask, np.einsum("pfj,pj->pf", A.normals, axes[rows, k]), np.inf).argmin(axis=1)
    use_a = np.where(faced, (face_a & ~edge_face) | edge_face, use_a)
    use_b = np.where(faced, ~face_a & ~edge_face, use_b)
    use_e = use_e & ~faced
    best_e = np.where(edge_face, best_edge, sep_e.max(axis=1, initial=-np.inf))
    return use_b, use_a, use_e, edge_face, best_e, np.where(edge_face, f_edge, f_best)


def _subset(c: Contacts, keep: np.ndarray) -> Contacts:
    return Contacts(c.shape[keep], c.static[keep], c.point[keep], c.normal[keep], c.separation[keep],
                    None if c.pair is None else c.pair[keep])


def _clip(R: Polytopes, sel: np.ndarray, rf: np.ndarray, I: Polytopes, inc: np.ndarray, normal: np.ndarray,
          shape: np.ndarray, static: np.ndarray, limit: np.ndarray, points_on_reference: bool,
          triangle: bool = False, mesh: bool = False) -> Contacts:
    """The incident face `inc` of I clipped by the reference face `rf` of R (pairs `sel`): the incident polygon's
    vertices inside the reference face, the reference face's vertices inside the incident polygon (moved onto its
    plane along the normal) and the crossings of their edges, kept where their separation along the reference face's
    normal is below `limit`. Points lie on the incident face; `normal` points from the static shape to the vehicle's.
    triangle: R is a mesh triangle, whose contacts PCM makes on the triangle (generatedTriangleContacts): the points on
    its plane, a triangle vertex inside the incident face separated by its distance from that face's plane times the
    cosine between the two normals.
    mesh: one of the two faces is a mesh triangle (R's where `triangle`, else I's): the edge crossings come in PCM's
    order (GuPCMTriangleContactGen.cpp generatedTriangleContacts, generatedPolyContacts): the triangle's edges outer,
    the face's inner, each loop's closing edge (last vertex to first) first. The order decides which contacts become
    the friction patch's anchors and in what order the solver meets them (RolloverSlope's first strike: 38 % more
    normal impulse in the other order)."""
    n_r = R.normals[sel, rf]  # the reference face's outward normal
    d_r = R.offsets[sel, rf]
    ref = R.vertices[sel[:, None], R.loops[sel, rf]]  # (P, M, 3)
    inc_pts = I.vertices[sel[:, None], I.loops[sel, inc]]
    n_i = I.normals[sel, inc]
    d_i = I.offsets[sel, inc]
    d_i = np.where(np.isfinite(d_i), d_i, 0.0)  # a core's loop is no face: no plane to lift onto (n_i is zero)
    P = len(sel)
    ref_next, inc_next = np.roll(ref, -1, axis=1), np.roll(inc_pts, -1, axis=1)
    ref_count, inc_count = R.loop_counts[sel, rf], I.loop_counts[sel, inc]
    Mr, Mi = ref.shape[1], inc_pts.shape[1]
    # the padded loops repeat their last vertex: their closing edge runs from the last real vertex to the first
    ref_next = np.where((np.arange(Mr)[None, :] >= ref_count[:, None] - 1)[:, :, None], ref[:, :1], ref_next)
    inc_next = np.where((np.arange(Mi)[None, :] >= inc_count[:, None] - 1)[:, :, None], inc_pts[:, :1], inc_next)
    ref_edge, inc_edge = ref_next - ref, inc_next - inc_pts
    eps = 1e-7 * (1.0 + np.abs(ref).max(axis=(1, 2)))[:, None, None]

    def inside(points, loop, edge, nrm):  # points (P, Q, 3) inside the loop's prism about nrm
        side = np.einsum("pj,pmqj->pmq", nrm, np.cross(edge[:, :, None, :], points[:, None, :, :] - loop[:, :, None, :]))
        degenerate = (np.linalg.norm(edge, axis=2) < 1e-12)[:, :, None]
        return ((side >= -eps) | degenerate).all(axis=1)

    candidates, valid = [], []
    # 1. incident vertices inside the reference face
    candidates.append(inc_pts)
    valid.append(inside(inc_pts, ref, ref_edge, n_r) & (np.arange(Mi)[None, :] < inc_count[:, None]))
    # 2. reference vertices inside the incident face, moved along n_r onto its plane
    along = np.einsum("pj,pj->p", n_i, n_r)
    t = (d_i[:, None] - np.einsum("pj,pmj->pm", n_i, ref)) / np.where(np.abs(along) > 1e-9, along, 1e-9)[:, None]
    lifted = ref + t[:, :, None] * n_r[:, None, :]
    candidates.append(lifted)
    valid.append(inside(lifted, inc_pts, inc_edge, n_i) & (np.arange(Mr)[None, :] < ref_count[:, None])
                 & (np.abs(along) > 1e-9)[:, None])
    # 3. crossings of the two loops' edges, in the reference plane (components along n_r removed)
    flat = lambda x: x - np.einsum("pj,p...j->p...", n_r, x)[..., None] * n_r[:, None, :]  # noqa: E731
    a0, da = flat(ref)[:, :, None, :], flat(ref_edge)[:, :, None, :]
    b0, db = flat(inc_pts)[:, None, :, :], flat(inc_edge)[:, None, :, :]
    nr = n_r[:, None, None, :]
    denom = np.einsum("pabj,pabj->pab", np.cross(da, db), np.broadcast_to(nr, np.broadcast_shapes(da.shape, db.shape)))
    ok = np.abs(denom) > 1e-12
    w = b0 - a0
    s = np.einsum("pabj,pabj->pab", np.cross(w, db), np.broadcast_to(nr, w.shape)) / np.where(ok, denom, 1.0)
    u = np.einsum("pabj,pabj->pab", np.cross(w, da), np.broadcast_to(nr, w.shape)) / np.where(ok, denom, 1.0)
    crossing = ok & (s >= 0) & (s <= 1) & (u >= 0) & (u <= 1)
    inc_edges = np.where(inc_count == 2, 1, inc_count)  # a two-point loop (a capsule's segment) is one edge
    crossing &= (np.arange(Mr)[None, :, None] < ref_count[:, None, None]) & (np.arange(Mi)[None, None, :]
                                                                            < inc_edges[:, None, None])
    point = inc_pts[:, None, :, :] + u[..., None] * inc_edge[:, None, :, :]
    if mesh:
        point, crossing = _pcm_crossing_order(point, crossing, ref_count, inc_edges, triangle_outer=triangle)
    candidates.append(point.reshape(P, -1, 3))
    valid.append(crossing.reshape(P, -1))
    pts = np.concatenate(candidates, axis=1)
    ok = np.concatenate(valid, axis=1)
    sep = np.einsum("pj,pqj->pq", n_r, pts) - d_r[:, None]  # distance outside the reference face
    if triangle:  # the reference vertices' separation as PCM measures it
        lifted_at = slice(Mi, Mi + Mr)
        sep[:, lifted_at] = sep[:, lifted_at] * (along ** 2)[:, None]
    ok &= sep < limit[:, None]
    p_idx, q_idx = np.nonzero(ok)
    point = pts[p_idx, q_idx]
    separation = sep[p_idx, q_idx]
    if triangle:  # on the triangle's plane
        point = point - (np.einsum("pj,pj->p", n_r[p_idx], point) - d_r[p_idx])[:, None] * n_r[p_idx]
    if points_on_reference:  # the incident points are B's: report them on A's side (the shape's own surface)
        point = point - separation[:, None] * n_r[p_idx]
    return Contacts(shape[p_idx], static[p_idx], point, normal[p_idx], separation, sel[p_idx])


def _pcm_crossing_order(point: np.ndarray, crossing: np.ndarray, ref_edges: np.ndarray, inc_edges: np.ndarray,
                        triangle_outer: bool) -> tuple[np.ndarray, np.ndarray]:
    """The edge crossings point (P, Mr, Mi, 3), crossing (P, Mr, Mi) of `_clip` (reference edges outer, each loop
    from its first edge) in PCM's order: each loop's edges from its closing one (of ref_edges / inc_edges real
    edges), the triangle's loop outer (the reference's where triangle_outer, else the incident's)."""
    def closing_first(count, M):  # per pair: edge k of PCM's order is edge (k - 1) mod count here
        k = np.arange(M)[None, :]
        return np.where(k < count[:, None], (k - 1) % np.maximum(count, 1)[:, None], k)

    Mr, Mi = crossing.shape[1:]
    r, i = closing_first(ref_edges, Mr)[:, :, None], closing_first(inc_edges, Mi)[:, None, :]
    p = np.arange(len(crossing))[:, None, None]
    point, crossing = point[p, r, i], crossing[p, r, i]
    if not triangle_outer:
        point, crossing = point.transpose(0, 2, 1, 3), crossing.transpose(0, 2, 1)
    return point, crossing


def _segments_closest(a: np.ndarray, da: np.ndarray, b: np.ndarray, db: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The closest points of segments a + s da and b + t db (s, t in [0, 1]; any leading shape): s clamped, then t."""
    r = a - b
    aa, bb, ab = (da * da).sum(-1), (db * db).sum(-1), (da * db).sum(-1)
    ar, br = (da * r).sum(-1), (db * r).sum(-1)
    denom = aa * bb - ab * ab
    ok = denom > 1e-12 * np.maximum(aa * bb, 1e-30)
    s = np.where(ok, (ab * br - bb * ar) / np.where(ok, denom, 1.0), -ar / np.maximum(aa, 1e-30))
    s = np.clip(np.where(aa > 1e-30, s, 0.0), 0.0, 1.0)
    t = np.clip((ab * s + br) / np.maximum(bb, 1e-30), 0.0, 1.0)
    return a + s[..., None] * da, b + t[..., None] * db


def _core_to_rim(A: Polytopes, B: Polytopes, sel: np.ndarray, g: np.ndarray, shape: np.ndarray, static: np.ndarray,
                 limit: np.ndarray) -> Contacts:
    """One point for a sphere's or capsule's core beside B's face g (no point of it over the face): the closest points
    of the core (a point, a segment) and the face's rim, the normal along them (the face's where they meet). The
    point is on the core (the caller moves it to the round surface)."""
    a = A.vertices[sel, A.loops[sel, 0, 0]]
    b = A.vertices[sel, A.loops[sel, 0, min(1, A.loops.shape[2] - 1)]]  # a sphere: its one point again
    rim = B.vertices[sel[:, None], B.loops[sel, g]]  # (P, M, 3)
    count = B.loop_counts[sel, g]
    M = rim.shape[1]
    following = np.where((np.arange(M)[None, :] >= count[:, None] - 1)[:, :, None], rim[:, :1], np.roll(rim, -1, axis=1))
    on_core, on_rim = _segments_closest(a[:, None, :], (b - a)[:, None, :], rim, following - rim)
    distance = np.linalg.norm(on_core - on_rim, axis=2)
    distance = np.where(np.arange(M)[None, :] < count[:, None], distance, np.inf)
    k = distance.argmin(axis=1)
    rows = np.arange(len(sel))
    d, point, nearest = distance[rows, k], on_core[rows, k], on_rim[rows, k]
    face_normal = B.normals[sel, g]
    normal = np.where((d > 1e-9)[:, None], (point - nearest) / np.maximum(d, 1e-30)[:, None], face_normal)
    keep = d < limit
    return Contacts(shape[keep], static[keep], point[keep], normal[keep], d[keep], sel[keep])


def _edge_contacts(A: Polytopes, B: Polytopes, sel: np.ndarray, axis: np.ndarray, separation: np.ndarray,
                   shape: np.ndarray, static: np.ndarray) -> Contacts:
    """One point for an edge-edge contact: the middle of the closest points of A's edge nearest B along the axis
    (least axis . x) and B's edge nearest A (greatest)."""
    def pick(P: Polytopes, lowest: bool):
        a = P.vertices[sel[:, None], P.edges[sel, :, 0]]
        b = P.vertices[sel[:, None], P.edges[sel, :, 1]]
        direction = b - a
        across = np.linalg.norm(np.cross(direction, axis[:, None, :]), axis=2) / np.maximum(
            np.linalg.norm(direction, axis=2), 1e-30)
        height = np.einsum("pej,pj->pe", (a + b) / 2, axis)
        height = np.where(P.edge_mask[sel] & (across > 0.999 * across.max(axis=1, keepdims=True)), height,
                          np.inf if lowest else -np.inf)
        # among the edges square to the axis, the lowest (highest): the edge that realises the separation
        k = height.argmin(axis=1) if lowest else height.argmax(axis=1)
        rows = np.arange(len(sel))
        return a[rows, k], direction[rows, k]

    pa, da = pick(A, True)
    pb, db = pick(B, False)
    r = pa - pb
    aa, bb, ab = (da * da).sum(1), (db * db).sum(1), (da * db).sum(1)
    ar, br = (da * r).sum(1), (db * r).sum(1)
    denom = aa * bb - ab * ab
    s = np.clip(np.where(denom > 1e-12, (ab * br - bb * ar) / np.where(denom > 1e-12, denom, 1.0), 0.0), 0.0, 1.0)
    t = np.clip((ab * s + br) / np.maximum(bb, 1e-30), 0.0, 1.0)
    point = ((pa + s[:, None] * da) + (pb + t[:, None] * db)) / 2
    return Contacts(shape, static, point, axis, separation, sel)


def _reduce(c: Contacts, whole: np.ndarray | None = None) -> Contacts:
    """At most MAX_POINTS contacts per pair and normal (see the module docstring), patch after patch (in the order of
    their first contact), in generation order within a patch; every pair and patch at once. whole (C,): how many
    points each contact's patch keeps whole (None: MAX_POINTS); a larger patch is reduced to MAX_POINTS."""
    if not len(c):
        return c
    order = np.lexsort((c.static, c.shape))
    c = _subset(c, order)
    whole = np.full(len(c), MAX_POINTS) if whole is None else whole[order]
    n = len(c)
    new_pair = np.r_[True, (c.shape[1:] != c.shape[:-1]) | (c.static[1:] != c.static[:-1])]
    pair = np.cumsum(new_pair) - 1
    # patches: the first contact of a pair not yet in a patch takes every such contact whose normal agrees with its
    # own, then the next, as long as any is left (a pair has a few normals: one per triangle of a mesh it meets)
    leader = np.full(n, -1)
    index = np.arange(n)
    while (leader < 0).any():
        free = leader < 0
        first = np.full(pair[-1] + 1, n)
        np.minimum.at(first, pair[free], index[free])
        lead = first[pair]
        has = lead < n
        agree = np.einsum("cj,cj->c", c.normal, c.normal[np.minimum(lead, n - 1)]) >= _SAME_NORMAL
        leader = np.where(free & has & agree, lead, leader)
    patch_order = np.lexsort((index, leader))  # patch by patch, generation order within one
    c = _subset(c, patch_order)
    leader, whole = leader[patch_order], whole[patch_order]
    start = np.r_[True, leader[1:] != leader[:-1]]
    patch = np.cumsum(start) - 1
    # a point made twice in a patch (the shared edge of two triangles of one mesh) counts once, as PCM's manifold
    # keeps one point where a new one lands on an old one
    grid = 1e-7 * max(1.0, float(np.abs(c.point).max()))
    key = np.concatenate([patch[:, None], np.round(c.point / grid)], axis=1)
    first = np.zeros(len(c), bool)
    first[np.unique(key, axis=0, return_index=True)[1]] = True
    if not first.all():
        c, leader, patch, whole = _subset(c, first), leader[first], patch[first], whole[first]
        start = np.r_[True, leader[1:] != leader[:-1]]
    keep = _four(c.point, c.separation, patch, np.nonzero(start)[0], whole[start])
    out = _subset(c, keep)
    out.patch = patch[keep]
    out.patch = np.unique(out.patch, return_inverse=True)[1]
    return out


def _four(point: np.ndarray, separation: np.ndarray, patch: np.ndarray, starts: np.ndarray,
          whole: np.ndarray | int = MAX_POINTS) -> np.ndarray:
    """Which contacts to keep (mask), patches (contiguous, numbered from 0, starting at `starts`) of at most `whole`
    (per patch) kept whole, of the others: the deepest, the one farthest from it, the one making the largest triangle
    with them, and the one farthest outside that triangle (the first of equals each time)."""
    counts = np.diff(np.r_[starts, len(patch)])
    keep = counts[patch] <= np.broadcast_to(whole, counts.shape)[patch]
    big = ~keep
    if not big.any():
        return keep
    rows = np.nonzero(big)[0]
    pt, sep, seg = point[rows], separation[rows], patch[rows]
    segments = np.unique(seg)
    slot = np.searchsorted(segments, seg)
    count = len(segments)

    def first_best(value: np.ndarray, lowest: bool = False) -> np.ndarray:
        value = -value if lowest else value
        best = np.full(count, -np.inf)
        np.maximum.at(best, slot, value)
        at = np.full(count, len(value))
        hit = value == best[slot]
        np.minimum.at(at, slot[hit], np.nonzero(hit)[0])
        return at

    c0 = first_best(sep, lowest=True)
    p0 = pt[c0][slot]
    c1 = first_best(((pt - p0) ** 2).sum(1))
    p1 = pt[c1][slot]
    c2 = first_best(np.linalg.norm(np.cross(pt - p0, pt - p1), axis=1))
    a, b, c3 = pt[c0], pt[c1], pt[c2]
    normal = np.cross(b - a, c3 - a)
    outside = np.zeros(len(pt))
    for e0, e1 in ((a, b), (b, c3), (c3, a)):
        outward = np.cross(e1 - e0, normal)
        outward /= np.maximum(np.linalg.norm(outward, axis=1), 1e-30)[:, None]
        outside = np.maximum(outside, np.einsum("cj,cj->c", pt - e0[slot], outward[slot]))
    chosen = np.zeros(len(pt), bool)
    chosen[np.r_[c0, c1, c2]] = True
    outside[chosen] = -np.inf
    chosen[first_best(outside)] = True
    keep[rows[chosen]] = True
    return keep


# ------------------------------------------------------------------------------------------------ solver rows

# physxScene:frictionCorrelationDistance's default, in metres: a kept patch whose anchor on the body has moved farther
# than this from its anchor on the static shape, along the patch normal, is not kept (DyContactPrepShared.h
# isSeparated)
FRICTION_CORRELATION_DISTANCE_M = 0.025
_EMPTY_ANCHOR_SQ = 1e-8  # growPatches: a second anchor this near (squared) to the first is no second anchor


class VehicleRecords:
    """Records kept from one step to the next, one row per record on every field's leading axis, `vehicle` its
    vehicle in the batch: cut into ranges of vehicles (sim/shards.py), joined back, and dropped for vehicles reset."""

    vehicle: np.ndarray

    def __len__(self) -> int:
        return len(self.vehicle)

    def subset(self, keep: np.ndarray):
        return type(self)(*(getattr(self, f.name)[keep] for f in fields(self)))

    def of_vehicles(self, rows: slice):
        """The records of the vehicles `rows` (a range), numbered from its start."""
        part = self.subset((self.vehicle >= rows.start) & (self.vehicle < rows.stop))
        part.vehicle = part.vehicle - rows.start
        return part

    def without(self, vehicles: np.ndarray):
        return self.subset(~np.isin(self.vehicle, vehicles))

    @classmethod
    def join(cls, parts: Sequence, starts: Sequence[int]):
        """The records of ranges of vehicles (`starts`: each range's first vehicle) as one batch's (None: none)."""
        kept = [(part, start) for part, start in zip(parts, starts) if part is not None and len(part)]
        if not kept:
            return None
        out = cls(*(np.concatenate([getattr(part, f.name) for part, _ in kept]) for f in fields(cls)))
        out.vehicle = np.concatenate([part.vehicle + start for part, start in kept])
        return out


@dataclass
class FrictionPatches(VehicleRecords):
    """The friction patches a step's solve ends with, kept for the next step's (PhysX's FrictionPatch,
    DyFrictionPatch.h, one list per shape pair): the patch normal and up to two anchors, each in the frame of both
    bodies of the pair (body 0: the vehicle, anchors from its centre of mass; body 1: the world against a static
    shape, the other vehicle's body frame, from its centre of mass, between vehicles), and whether the patch's
    friction slid (was clamped) in the solve's last pass. A patch that slid is not kept."""

    vehicle: np.ndarray  # (P,) body 0's, in its batch
    shape: np.ndarray  # (P,) the shape's index among its vehicle's rows of ContactModel
    static: np.ndarray  # (P,) the other shape: static (Ground.materials), or between vehicles its ContactModel row
    body_normal: np.ndarray  # (P, 3)
    other_normal: np.ndarray  # (P, 3) in body 1's frame
    anchor_count: np.ndarray  # (P,)
    body_anchor: np.ndarray  # (P, 2, 3)
    other_anchor: np.ndarray  # (P, 2, 3) in body 1's frame
    broken: np.ndarray  # (P,) bool


def first_rows(model: ContactModel) -> np.ndarray:
    """Each vehicle's first row of the model (its rows are consecutive)."""
    if "first_rows" not in model.cache:
        V = int(model.vehicle.max()) + 1
        model.cache["first_rows"] = np.searchsorted(model.vehicle, np.arange(V))
    return model.cache["first_rows"]


def _body_one(model: ContactModel, static: np.ndarray, rotation: np.ndarray, position: np.ndarray, between: bool):
    """Body 1's frame (rotation (P, 3, 3), position (P, 3)) of patches against the shapes `static`: the other
    vehicle's body between vehicles (`static` its shape rows), None against the static world (its frame: the world)."""
    if not between:
        return None, None
    other = model.vehicle[static]
    return rotation[other], position[other]


def _to_world(R: np.ndarray | None, p: np.ndarray | None, local: np.ndarray) -> np.ndarray:
    """Points (P, ..., 3) of body 1's frame (None: the world's) in the world."""
    if R is None:
        return local
    extra = local.ndim - 2
    return np.einsum("pij,p...j->p...i", R, local) + p[(slice(None),) + (None,) * extra]


def _to_body(R: np.ndarray | None, p: np.ndarray | None, world: np.ndarray) -> np.ndarray:
    """Points (P, ..., 3) of the world in body 1's frame (None: the world's)."""
    if R is None:
        return world
    extra = world.ndim - 2
    return np.einsum("pji,p...j->p...i", R, world - p[(slice(None),) + (None,) * extra])


def _kept_patches(previous: FrictionPatches | None, model: ContactModel, rotation: np.ndarray,
                  position: np.ndarray, length_scale: np.ndarray, between: bool
                  ) -> tuple[FrictionPatches | None, np.ndarray]:
    """getFrictionPatches: the last step's patches that may be kept (not slid, anchored, the two bodies turned less
    than PXC_SAME_NORMAL against each other, no anchor on body 0 separated from its twin on body 1 along the normal
    by the correlation distance), with their row of the model. rotation (V, 3, 3), position (V, 3): the body poses,
    world; between: the patches are between vehicles (body 1 the other vehicle), else against the static world."""
    if previous is None or not len(previous):
        return None, np.zeros(0, np.int64)
    R, p = rotation[previous.vehicle], position[previous.vehicle]
    R1, p1 = _body_one(model, previous.static, rotation, position, between)
    turned = np.einsum("pij,pj->pi", R, previous.body_normal)
    keep = ~previous.broken & (previous.anchor_count > 0)
    keep &= np.einsum("pj,pj->p", turned, _to_world(R1, np.zeros_like(p), previous.other_normal)) > _SAME_NORMAL
    other_in_body = np.einsum("pji,paj->pai", R, _to_world(R1, p1, previous.other_anchor) - p[:, None, :])
    along = np.abs(np.einsum("paj,pj->pa", previous.body_anchor - other_in_body, previous.body_normal))
    limit = FRICTION_CORRELATION_DISTANCE_M * length_scale[previous.vehicle].astype(float)
    keep &= ((along < limit[:, None]) | (np.arange(2)[None, :] >= previous.anchor_count[:, None])).all(axis=1)
    kept = previous.subset(keep)
    return kept, first_rows(model)[kept.vehicle] + kept.shape


@dataclass
class _Correlated:
    """A step's friction patches (F, in the solver's order: by shape row and other shape, a pair's kept patches
    before its new ones) and their normal rows (C contacts, grouped by patch): `friction_patches`'s result."""

    row: np.ndarray  # (F,) body 0's shape row
    static: np.ndarray  # (F,) the other shape
    first: np.ndarray  # (F,) each patch's first contact
    count: np.ndarray  # (F,) and how many
    of_contact: np.ndarray  # (C,) each contact's patch
    point: np.ndarray  # (C, 3) world
    separation: np.ndarray  # (C,)
    normal: np.ndarray  # (F, 3) world
    R: np.ndarray  # (F, 3, 3) body 0's rotation
    p: np.ndarray  # (F, 3) and position (its centre of mass)
    anchor_arm: np.ndarray  # (F, 2, 3) each anchor on body 0, from its centre of mass, world axes
    anchor_error: np.ndarray  # (F, 2, 3) body 0's anchor less body 1's, world
    record: FrictionPatches  # to keep for the next step (`broken` set by the solve)


def _plane_pair_order(model: ContactModel, rows: np.ndarray, statics: np.ndarray, previous: FrictionPatches | None,
                      body_position: np.ndarray, body_orientation: np.ndarray) -> np.ndarray:
    """(N,) the sort key of the pairs (shape rows `rows`, static shapes `statics`) that puts each vehicle's pairs with
    the planes in the order PhysX's solver meets them (each plane pair takes the row of the one at its place in that
    order; other pairs keep their row): the pairs the last step had (`previous`, in its solver order) first, in that
    order; then the new ones by the low x of their shapes' world boxes, ones within 5 % of their size of each other
    by row.
    PhysX meets a body's pairs in the order they were made and keeps it while they last, and the pairs one step
    makes come ordered along x (its broad phase, ABP, sweeps the boxes sorted along x, BpBroadPhaseABP.cpp). Fitted to
    ovphysx's runs of the sample car landing on wheel cylinders from 1 m: flat, heading +x the rear wheels' pairs
    come first, heading -x the front wheels', heading +y the left wheels'; nose down, the front wheels' pairs (made
    six steps earlier) before the rear wheels', those two in row order though the right one's box began 1.4 cm
    further back (the car had turned). So ordered, ours is within 0.05 % of PhysX in angular speed in each (flat,
    in row order: 25.6 % heading +x, 28.3 % heading +y, the yaw rate -0.025 rad/s where PhysX's is -0.029 and
    -0.070). Not modelled: where two new boxes begin at the same x (an axle's wheels heading +x) PhysX's order
    follows its sort's history and rounding (moved -13.1 m along x it meets the right rear wheel first, and so
    dropped 1.5 m); the pairs of the first step, which PhysX meets in another order (WheelsTouching's cylinders
    resting on the plane: front right, front left, rear right, rear left); a landing heading 30 degrees with a roll
    of 3 degrees (10 % from PhysX in angular speed, 7.5 % in row order); a mesh's pairs (WheelsRolling's cylinders
    on its road: front right, front left, rear left, rear right), which keep the row order."""
    key = rows.copy()
    plane = statics < model.plane_count
    shapes = np.unique(rows[plane])
    if shapes.size < 2:
        return key
    # where each shape's first plane pair stood in the last step's order (len(previous) where it had none)
    since = np.full(len(model.vehicle), len(previous) if previous is not None else 0)
    if previous is not None and len(previous):
        had = previous.static < model.plane_count
        np.minimum.at(since, (first_rows(model)[previous.vehicle] + previous.shape)[had], np.nonzero(had)[0])
    R, centre, _ = shape_boxes(model, body_position, body_orientation, shapes)
    half = model.box_half[:, shapes]
    low_x = centre[0] - (np.abs(R[0, 0]) * half[0] + np.abs(R[0, 1]) * half[1] + np.abs(R[0, 2]) * half[2])
    # boxes beginning within 5 % of their size of each other count as level (fitted: see above)
    vehicle = model.vehicle[shapes]
    by_x = np.lexsort((low_x, vehicle))
    tol = 0.05 * (half[0] + half[1] + half[2])[by_x]
    step = np.r_[True, (np.diff(low_x[by_x]) > np.maximum(tol[1:], tol[:-1])) | (np.diff(vehicle[by_x]) != 0)]
    level = np.empty(len(shapes), np.int64)
    level[by_x] = np.cumsum(step)
    order = np.lexsort((shapes, level, since[shapes], vehicle))  # vehicle by vehicle (rows are numbered so)
    takes = np.empty(len(shapes), np.int64)
    takes[order] = shapes  # the i-th shape in that order takes the i-th row of its vehicle's plane shapes
    key[plane] = takes[np.searchsorted(shapes, rows[plane])]
    return key


def friction_patches(model: ContactModel, contacts: Contacts, body_position: np.ndarray,
                     body_orientation: np.ndarray, length_scale: np.ndarray, previous: FrictionPatches | None,
                     rest: np.ndarray, between: bool = False) -> _Correlated:
    """PhysX's friction patches made as DyTGSContactPrep.cpp makes them (DyFrictionCorrelation.cpp), against the
    static world or between vehicles (`between`: body 1 is the vehicle of the other shape, `Contacts.static` its shape
    row): the last step's patches of each shape pair that may be kept (`_kept_patches`) come first, in their order;
    each contact patch joins the first of its pair's kept patches whose normal agrees with its own (correlatePatches),
    else starts a patch of its own; a patch keeps its two anchors unless they have come nearer each other than half
    its contacts' extent, and takes new ones from its contacts (`grow_patches`). A patch's normal rows are the contact
    patches it took, the last taken first, each in order. An anchor is kept on both bodies, each in its own frame:
    `anchor_error` says how far the two have moved apart since it was made. rest: the rest distance of each pair of
    shapes (a function of (rows, others)). The body poses are the ones the step begins with: body_position (3, V),
    body_orientation (4, V)."""
    C = len(contacts)
    V = body_position.shape[1]
    touched = np.unique(model.vehicle[contacts.shape if not between else np.r_[contacts.shape, contacts.static]])
    rotation = np.zeros((V, 3, 3))
    rotation[touched] = np.moveaxis(vm.quat_to_mat(body_orientation[:, touched].astype(float)), 2, 0)
    position = body_position.T.astype(float)
    G = len(model.vehicle) if between else model.collides.shape[1]
    # contact patches: consecutive contacts with the same `patch`
    cp_first = np.r_[0, np.nonzero(np.diff(contacts.patch))[0] + 1]
    cp_count = np.diff(np.r_[cp_first, C])
    cp_row, cp_static, cp_normal = contacts.shape[cp_first], contacts.static[cp_first], contacts.normal[cp_first]
    kept, kept_row = _kept_patches(previous, model, rotation, position, length_scale, between)
    # correlatePatches: a contact patch joins the first kept patch of its pair with an agreeing normal
    match = np.full(len(cp_first), -1)
    if kept is not None and len(kept):
        key = kept_row * G + kept.static
        order = np.argsort(key, kind="stable")
        lo = np.searchsorted(key[order], cp_row * G + cp_static, "left")
        hi = np.searchsorted(key[order], cp_row * G + cp_static, "right")
        kept_normal = np.einsum("pij,pj->pi", rotation[kept.vehicle], kept.body_normal)
        for k in range(int((hi - lo).max(initial=0))):
            candidate = order[np.minimum(lo + k, len(order) - 1)]
            agree = (match < 0) & (lo + k < hi) & (np.einsum("cj,cj->c", cp_normal, kept_normal[candidate])
                                                   >= _SAME_NORMAL)
            match = np.where(agree, candidate, match)
    used = np.unique(match[match >= 0])  # kept patches with contacts: the others end (PhysX writes them no more)
    fresh = np.nonzero(match < 0)[0]
    n_used = len(used)
    F = n_used + len(fresh)
    fp_of_cp = np.where(match >= 0, np.searchsorted(used, match), n_used + np.cumsum(match < 0) - 1)
    fp_row = np.r_[kept_row[used] if n_used else np.zeros(0, np.int64), cp_row[fresh]]
    fp_static = np.r_[kept.static[used] if n_used else np.zeros(0, np.int64), cp_static[fresh]]
    # the solver's order: by shape row (a vehicle's plane pairs in PhysX's order, `_plane_pair_order`) and other
    # shape, a pair's kept patches (in their order) before its new ones
    shape_order = fp_row if between else _plane_pair_order(model, fp_row, fp_static, previous, body_position,
                                                           body_orientation)
    solve_order = np.lexsort((np.r_[used, fresh], np.arange(F) >= n_used, fp_static, shape_order))
    rank = np.empty(F, np.int64)
    rank[solve_order] = np.arange(F)
    fp_of_cp = rank[fp_of_cp]
    fp_row, fp_static = fp_row[solve_order], fp_static[solve_order]
    is_kept = solve_order < n_used
    source = np.where(is_kept, np.r_[used, fresh][solve_order], -1)  # index into `kept` where kept
    # a patch's normal rows: its contact patches, the last taken first (PhysX's correlation list), each in order
    cp_of_contact = np.repeat(np.arange(len(cp_first)), cp_count)
    within = np.arange(C) - cp_first[cp_of_contact]
    contact_order = np.lexsort((within, -cp_of_contact, fp_of_cp[cp_of_contact]))
    fp_of_contact = fp_of_cp[cp_of_contact][contact_order]
    fp_first = np.searchsorted(fp_of_contact, np.arange(F))
    fp_count = np.diff(np.r_[fp_first, C])
    point = contacts.point[contact_order]
    separation = contacts.separation[contact_order]
    fp_normal = contacts.normal[contact_order][fp_first]  # the first contact of the last contact patch taken
    fp_vehicle = model.vehicle[fp_row]
    R, p = rotation[fp_vehicle], position[fp_vehicle]
    R1, p1 = _body_one(model, fp_static, rotation, position, between)
    # a kept patch with two anchors keeps them unless they lie nearer each other than half its contacts' extent (its
    # anchors crowd a corner); one with one anchor keeps it and grows a second
    count = np.zeros(F, np.int64)
    body_anchor, other_anchor = np.zeros((F, 2, 3)), np.zeros((F, 2, 3))
    if kept is not None and is_kept.any():
        k_ = source[is_kept]
        count[is_kept] = kept.anchor_count[k_]
        body_anchor[is_kept], other_anchor[is_kept] = kept.body_anchor[k_], kept.other_anchor[k_]
        lo_pt = np.minimum.reduceat(point, fp_first, axis=0)
        hi_pt = np.maximum.reduceat(point, fp_first, axis=0)
        diagonal_sq = ((hi_pt - lo_pt) ** 2).sum(axis=1)
        apart_sq = ((body_anchor[:, 0] - body_anchor[:, 1]) ** 2).sum(axis=1)
        count = np.where((count == 2) & (apart_sq * 4.0 < diagonal_sq), 0, count)
    # a contact this far apart (plus the rest distance) or nearer may anchor (physxScene:frictionOffsetThreshold)
    threshold = friction_offset_threshold(model, fp_vehicle) + rest(fp_row, fp_static)
    first_anchor = np.einsum("pij,pj->pi", R, body_anchor[:, 0]) + p
    made, grown = grow_patches(point, separation, fp_first, fp_count, count, first_anchor, threshold)
    for m in range(2):
        new = (count < 2) & (m >= count) & (m < made)  # only the anchors added: a kept one stays where it was made
        body_anchor[new, m] = np.einsum("pji,pj->pi", R[new], grown[new, m] - p[new])
        other_anchor[new, m] = _to_body(None if R1 is None else R1[new], None if p1 is None else p1[new],
                                        grown[new, m])
    count = np.where(count < 2, made, count)
    arm = np.einsum("pij,paj->pai", R, body_anchor)
    error = arm + p[:, None, :] - _to_world(R1, p1, other_anchor)
    if kept is not None and len(kept):
        body_normal = np.where(is_kept[:, None], kept.body_normal[np.maximum(source, 0)],
                               np.einsum("pji,pj->pi", R, fp_normal))
        other_normal = np.where(is_kept[:, None], kept.other_normal[np.maximum(source, 0)],
                                _to_body(R1, None if p1 is None else np.zeros_like(p1), fp_normal))
    else:
        body_normal = np.einsum("pji,pj->pi", R, fp_normal)
        other_normal = _to_body(R1, None if p1 is None else np.zeros_like(p1), fp_normal)
    record = FrictionPatches(fp_vehicle, fp_row - first_rows(model)[fp_vehicle], fp_static, body_normal,
                             other_normal, count, body_anchor, other_anchor, np.zeros(F, bool))
    return _Correlated(fp_row, fp_static, fp_first, fp_count, fp_of_contact, point, separation, fp_normal, R, p,
                       np.where((np.arange(2)[None, :] < count[:, None])[..., None], arm, 0.0),
                       np.where((np.arange(2)[None, :] < count[:, None])[..., None], error, 0.0), record)


def grow_patches(point: np.ndarray, separation: np.ndarray, first: np.ndarray, count: np.ndarray,
                 anchors: np.ndarray, first_anchor: np.ndarray, threshold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PhysX's growPatches, every patch at once (contacts (C,) grouped in patches starting at `first`, of `count`
    points; a patch holding `anchors` (0, 1 or 2) already, the first at `first_anchor` (P, 3), world): a patch with
    fewer than two takes the first point nearer than `threshold` (per patch) as its first, then the first one apart
    from it; a later point replaces the anchor it lies nearer to when it is farther from the other than the pair is
    apart. Returns each patch's anchor count and its anchors' world points (P, 2, 3), the ones it held excepted."""
    P = len(first)
    grow = anchors < 2
    made = anchors.copy()
    w0 = np.where((anchors == 1)[:, None], first_anchor, 0.0)
    w1 = np.zeros((P, 3))
    far = np.zeros(P)
    for k in range(int(count.max(initial=0))):
        at = first + np.minimum(k, count - 1)
        near = grow & (k < count) & (separation[at] < threshold)
        x = point[at]
        d0 = ((x - w0) ** 2).sum(axis=1)
        d1 = ((x - w1) ** 2).sum(axis=1)
        take_first = near & (made == 0)
        second = near & (made == 1) & (d0 > _EMPTY_ANCHOR_SQ)
        third = near & (made == 2)
        replace1 = third & (d0 > d1) & (d0 > far)
        replace0 = third & ~(d0 > d1) & (d1 > far)
        w0 = np.where((take_first | replace0)[:, None], x, w0)
        w1 = np.where((second | replace1)[:, None], x, w1)
        far = np.where(second | replace1, d0, np.where(replace0, d1, far))
        far = np.where(near & (made == 1) & ~second, d0, far)
        made = made + take_first + second
    return made, np.stack((w0, w1), axis=1)


def patch_rows(model: ContactModel, contacts: Contacts, vehicles: np.ndarray, body_position: np.ndarray,
               body_orientation: np.ndarray, length_scale: np.ndarray, previous: FrictionPatches | None = None) -> dict:
    """The contacts with the static world as the solver's rows for the vehicles `vehicles` (indices, in this order),
    their friction patches as `friction_patches` makes them. Per vehicle its patches (Pm slots, padded), per patch its
    normal rows, its anchors (arms from the centre of mass; `anchor_error`: how far the body's anchor has moved from
    the static shape's since the anchor was made) and the pair's combined material and rest distance. The body pose
    is the one the step begins with: body_position (3, V), body_orientation (4, V). "friction": the patches, to keep
    for the next step once the solve has said which slid (`FrictionPatches`, with each patch's `slot`)."""
    Vr = len(vehicles)
    where = np.full(int(vehicles.max()) + 1 if Vr else 0, -1)
    where[vehicles] = np.arange(Vr)
    C = len(contacts)
    fp = friction_patches(model, contacts, body_position, body_orientation, length_scale, previous,
                          lambda row, static: model.rest_distance[row, static])
    F = len(fp.row)
    fp_r = where[model.vehicle[fp.row]]
    # a vehicle's patches are consecutive: slots 0, 1, ..
    index = np.arange(F)
    run_start = np.maximum.accumulate(np.where(np.r_[True, fp_r[1:] != fp_r[:-1]], index, 0)) if F else index
    slot = index - run_start
    Pm = int(slot.max()) + 1 if F else 0
    K = int(fp.count.max()) if F else 0
    out = {
        "point_active": np.zeros((Vr, Pm, K), bool), "arm": np.zeros((3, Vr, Pm, K)),
        "separation": np.zeros((Vr, Pm, K)), "normal": np.zeros((3, Vr, Pm)),
        **{name: np.zeros((Vr, Pm)) for name in PATCH_PARAMS}, "anchor_active": np.zeros((Vr, Pm, 2), bool),
        "anchor_arm": np.zeros((3, Vr, Pm, 2)), "anchor_error": np.zeros((3, Vr, Pm, 2)),
        "points": contacts,  # for telemetry
    }
    j = np.arange(C) - fp.first[fp.of_contact]
    v, q = fp_r[fp.of_contact], slot[fp.of_contact]
    out["point_active"][v, q, j] = True
    out["arm"][:, v, q, j] = (fp.point - fp.p[fp.of_contact]).T
    out["separation"][v, q, j] = fp.separation
    out["normal"][:, fp_r, slot] = fp.normal.T
    for name in PATCH_PARAMS:  # the pair's combined parameters, each under its declared name
        out[name][fp_r, slot] = getattr(model, name)[fp.row, fp.static]
    out["bounce_threshold"] = bounce_threshold(model, vehicles)
    _anchor_rows(out, fp, (fp_r, slot), ("anchor_active", "anchor_arm", "anchor_error"))
    out["friction"] = fp.record
    out["friction_slot"] = (fp_r, slot)
    return out


def _anchor_rows(out: dict, fp: _Correlated, at: tuple, keys: tuple) -> None:
    """Write the patches' anchors into the solver's rows `out` at the slots `at` (per patch): whether each is active,
    its arm on body 0 and its error (keys in this order)."""
    count = fp.record.anchor_count
    for m in range(2):
        has = count > m
        where = tuple(a[has] for a in at)
        out[keys[0]][where + (m,)] = True
        out[keys[1]][(slice(None),) + where + (m,)] = fp.anchor_arm[has, m].T
        out[keys[2]][(slice(None),) + where + (m,)] = fp.anchor_error[has, m].T


def friction_offset_threshold(model: ContactModel, vehicles: np.ndarray) -> np.ndarray:
    """Per vehicle of `vehicles`, its scene's physxScene:frictionOffsetThreshold in stage units: how far apart a
    contact (plus the pair's rest distance) may be and still anchor its patch's friction (growPatches)."""
    return model.friction_offset_threshold[vehicles]


def bounce_threshold(model: ContactModel, vehicles: np.ndarray) -> np.ndarray:
    """Per vehicle of `vehicles`, its scene's physxScene:bounceThreshold in stage units: the closing speed under which
    a contact does not bounce."""
    return model.bounce_threshold[vehicles]


# ------------------------------------------------------------------------------------------------ telemetry

# Simulator.telemetry's contact keys ("bodies", per vehicle; `--trace` writes them): name -> (unit, frame, what).
# A vehicle reports at most TELEMETRY_SLOTS points a step, patch after patch in the order the solver met them; the
# slots past contactCount hold 0.
TELEMETRY_SLOTS = 16
TELEMETRY = {
    "contactCount": ("count", "-", "the step's contact points (more than the slots: the first are reported)"),
    "contactPoints": ("length", "world", "on the vehicle's shape, at the pose the step began with"),
    "contactNormals": ("unit vector", "world", "from the static shape towards the vehicle's"),
    "contactImpulses": ("mass * length / s", "along the normal", "the normal impulse the step's solve applied"),
}


def empty_telemetry(V: int) -> dict[str, np.ndarray]:
    """The contact telemetry of V vehicles touching nothing."""
    S = TELEMETRY_SLOTS
    return {"contactCount": np.zeros(V, np.int64), "contactPoints": np.zeros((V, S, 3)),
            "contactNormals": np.zeros((V, S, 3)), "contactImpulses": np.zeros((V, S))}


def telemetry(V: int, solved: Sequence, begin_position: np.ndarray) -> dict[str, np.ndarray]:
    """The contact telemetry of a step: `solved`, (vehicles, solved contact rows) of each group the solver ran
    (rigid_body._ContactRows: active (Vr, Pm, 4), arm (3, Vr, Pm, 4), normal (3, Vr, Pm), impulse (Vr, Pm, 4); and
    each side of the contacts between vehicles, rigid_body._PairRows.views), a vehicle's points in the order met,
    each group's after the ones before it."""
    out = empty_telemetry(V)
    S = TELEMETRY_SLOTS
    for vehicles, rows in solved:
        Vr = len(vehicles)
        active = rows.active.reshape(Vr, -1)
        order = np.argsort(~active, axis=1, kind="stable")[:, :S]  # the active points first, in the solver's order
        taken = np.take_along_axis(active, order, axis=1)
        k = order.shape[1]
        arm = np.take_along_axis(rows.arm.reshape(3, Vr, -1), order[None], axis=2)
        normal = np.broadcast_to(rows.normal[..., None], rows.arm.shape).reshape(3, Vr, -1)
        normal = np.take_along_axis(normal, order[None], axis=2)
        impulse = np.take_along_axis(rows.impulse.reshape(Vr, -1), order, axis=1)
        point = begin_position[:, vehicles].astype(float)[:, :, None] + arm
        slot = out["contactCount"][vehicles][:, None] + np.arange(k)[None, :]  # after the points already reported
        ok = taken & (slot < S)
        vehicle = np.broadcast_to(vehicles[:, None], slot.shape)[ok]
        out["contactPoints"][vehicle, slot[ok]] = np.moveaxis(point, 0, -1)[ok]
        out["contactNormals"][vehicle, slot[ok]] = np.moveaxis(normal, 0, -1)[ok]
        out["contactImpulses"][vehicle, slot[ok]] = impulse[ok]
        out["contactCount"][vehicles] += active.sum(axis=1)
    return out
