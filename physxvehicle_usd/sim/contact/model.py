"""The contact model: the vehicles' collision shapes and the static ones as padded arrays, with what each pair combines
(contact and rest distance, friction, restitution, whether the groups and FilteredPairsAPI let it collide). Built
once from the resolved description (`ContactModel.build`, `PairModel.build`, `StaticRounds.of`): this is the only
module of the package that reads the description; the others work from the model."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ...collision_filter import GroupFilter
from ...description import Block, GroundDescription, MaterialDescription, ShapeDescription
from ...json_values import canonical_value
from ...properties import COMBINE_MODES, DERIVED_ROWS, MATERIAL
from .. import vecmath as vm
from ..declare import CONTACT_PARAMS
from ..ground import ROUND_KINDS, placed_core
from .box import Boxes
from .polytopes import Polytope, Polytopes, convex_polytope, core, placed_hull


@dataclass(frozen=True)
class Materials:
    """The stage's physics materials by path and the one a collider with none bound meets others with (the stage
    description's `defaultMaterial`, omni.physx's default material): resolved values only."""

    by_path: Mapping[str, MaterialDescription]
    default: MaterialDescription

    def of(self, path: str | None) -> MaterialDescription:
        return self.default if path is None else self.by_path[path]


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
    boxes: Boxes  # which shape rows are boxes (body frame), met by PhysX's box contacts (sim/contact/box.py)
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
    pairs: "PairModel | None" = None  # the shapes' contacts with other vehicles' shapes (sim/contact/pairs.py)
    # (N, 3) each shape's own frame's origin in its row's frame, whose motion decides whether PCM keeps its contact
    # points (sim/contact/persistence.py): a box's centre (PhysX's box geometry sits there); for any other shape the
    # vehicle prim's origin (the description keeps no shape frame: exact for a hull authored beneath the vehicle with no
    # transform of its own, as omni.physx cooks a hull in its prim's frame). None: no origin recorded (all at 0)
    origin: np.ndarray | None = None
    static_rounds: StaticRounds | None = None  # the static spheres and capsules, last among the columns
    # a following row's authored pose (rotation (N, 3, 3), translation (N, 3); NaN for the other rows): its wheel
    # frame in the body frame as the stage places the wheel, where PhysX's shape stands until a vehicle update writes
    # the wheel's pose (`posed`'s `authored`)
    authored: tuple[np.ndarray, np.ndarray] | None = None
    # (N, 3, 3) the rotation a cylinder row's wheel turned it by into its body frame (`posed`; None: none): PhysX's
    # cylinder core turns with the wheel about its axle, and its GJK with it (sim/core_turn)
    cylinder_frame: np.ndarray | None = None
    # the static polytopes that are cylinders: world cap centres (H, 2, 3; NaN: not a cylinder) and radii (H,), which
    # PhysX collides as the exact cylinder (their hulls serve the broad phase and the suspension queries); None: none
    static_cylinders: tuple[np.ndarray, np.ndarray] | None = None
    # derived: each shape's box in the body frame (centre, half extents), how far beyond it a contact may start;
    # the static polytopes' world boxes
    box_centre: np.ndarray = field(init=False)  # (3, N)
    box_half: np.ndarray = field(init=False)  # (3, N)
    reach: np.ndarray = field(init=False)  # (N,)
    # (max(vehicle) + 1,) how far each vehicle's shapes' boxes reach from its body position (placement.shape_reach's,
    # worked out with the model: the broad phases' quiet records take it on their first step)
    vehicle_reach: np.ndarray = field(init=False)
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
        # the largest over each vehicle's rows, from 0: the same maxima however the rows are met
        reach = np.zeros(int(self.vehicle.max()) + 1 if self.vehicle.size else 0)
        centre, half = derived["box_centre"], derived["box_half"]
        np.maximum.at(reach, self.vehicle, np.linalg.norm(centre, axis=0) + np.linalg.norm(half, axis=0))
        derived["vehicle_reach"] = reach
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @classmethod
    def build(cls, shapes: Sequence[Sequence[ShapeDescription]], com_position: np.ndarray, com_orientation: np.ndarray,
              ground: Sequence[GroundDescription], materials: Materials, rule: GroupFilter,
              wheel_paths: Sequence[Sequence[str]] | None, scenes: Sequence[Block],
              bodies: Sequence[str] | None = None) -> "ContactModel | None":
        """shapes: each vehicle's (batch order); com_position (3, V), com_orientation (4, V): the body frame in the
        vehicle prim's; rule: the stage's collision groups' filtering; wheel_paths: each vehicle's wheel attachments
        in batch order (a shape under one, with its `wheelFrame`, follows that wheel; None: every shape is fixed in
        the body); scenes: each vehicle's scene block (the contact thresholds, resolved); bodies: each vehicle's prim
        path, its shapes' body, which a FilteredPairsAPI target may name (None: targets name shapes alone). None when
        no vehicle has a shape."""
        rows, polys, own, wheel, ends, corners, origins = [], [], [], [], [], [], []
        authored_R, authored_t = [], []
        ordered: dict[bytes, Polytope] = {}
        # converted once: per vehicle, a float32 batch's conversion grew the build as the fleet's square
        com_position = np.asarray(com_position, float)
        rotations = np.ascontiguousarray(np.moveaxis(vm.quat_to_mat(np.asarray(com_orientation, float)), 2, 0))
        # a fleet's copies of one car bring the same shapes in the same body frame: a shape fixed in the body is
        # placed once per distinct (body frame, points, cylinder ends), by the same operations (the same bits)
        frame_of = _distinct_rows(np.concatenate([com_position.T, rotations.reshape(len(rotations), 9)], axis=1))
        fixed: dict[tuple, tuple] = {}
        unfollowed = (np.full((3, 3), np.nan), np.full(3, np.nan))  # a fixed shape's authored_R and authored_t
        for v, vehicle_shapes in enumerate(shapes):
            R = rotations[v]
            for shape in vehicle_shapes:
                if wheel_paths is None or shape.wheelFrame is None or shape.wheel not in wheel_paths[v]:
                    given = np.asarray(shape.points, float)
                    given_ends = None if shape.cylinderEnds is None else np.asarray(shape.cylinderEnds, float)
                    key = (frame_of[v], shape.kind, given.shape, given.tobytes(),
                           None if given_ends is None else (given_ends.shape, given_ends.tobytes()))
                    placed = fixed.get(key)
                    if placed is None:
                        placed = fixed[key] = _fixed_shape(shape.kind, given, given_ends, com_position[:, v], R,
                                                           ordered)
                    points, poly, shape_ends, origin = placed
                    authored_R.append(unfollowed[0])
                    authored_t.append(unfollowed[1])
                    rows.append(v)
                    polys.append(poly)
                    own.append(shape)
                    wheel.append(-1)
                    ends.append(shape_ends)
                    origins.append(origin)
                    corners.append(points)
                    continue
                # PxVehicleWriteWheelLocalPoseToPhysXWheelShape: the shape's pose in its wheel's frame is kept
                frame = np.asarray(shape.wheelFrame, float)  # row vectors: x_vehicle = x_wheel M[:3,:3] + M[3,:3]

                def local(points, frame=frame):
                    return np.linalg.solve(frame[:3, :3].T, (np.asarray(points, float) - frame[3, :3]).T).T
                w = wheel_paths[v].index(shape.wheel)
                authored_R.append(R.T @ frame[:3, :3].T)  # x_body = R^T (M^T x_wheel + M[3] - com)
                authored_t.append(R.T @ (frame[3, :3] - com_position[:, v]))
                rows.append(v)
                points = local(shape.points)
                polys.append(_polytope(shape.kind, points, ordered))
                own.append(shape)
                wheel.append(w)
                ends.append(local(shape.cylinderEnds) if shape.cylinderEnds is not None else np.full((2, 3), np.nan))
                origins.append(local(np.zeros((1, 3)))[0])
                # a shape that follows a wheel is no box of the body frame's box contacts (sim/contact/box.py)
                corners.append(np.zeros((0, 3)))
        if not rows:
            return None
        rounds = [g for g in ground if g.kind in ROUND_KINDS]
        statics = [g for g in ground if g.kind in ("plane", "mesh")] + [g for g in ground if g.kind == "convex"]
        hulls = [placed_hull(*_points_and_transform(g)) for g in ground if g.kind == "convex"]
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
        # FilteredPairsAPI: a shape (its body's targets are among its own) naming a static collider, or a static
        # collider naming a vehicle's shape or body
        shape_rows = named_rows([s.path for s in own], [bodies[v] for v in rows] if bodies is not None else None)
        static_rows = named_rows([g.path for g in statics])
        for r, shape in enumerate(own):
            for target in shape.filtered:
                collides[r, static_rows.get(target, [])] = False
        for k, g in enumerate(statics):
            for target in g.filtered:
                collides[shape_rows.get(target, []), k] = False
        plane_count = sum(1 for g in ground if g.kind == "plane")
        mesh_count = sum(1 for g in ground if g.kind == "mesh")
        static_corners = [placed_corners(g) for g in ground if g.kind == "convex"]

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
                   PairModel.build(own, rows, materials, rule, shape_rows), origins,
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


def distinct(keys) -> tuple[list, np.ndarray]:
    """The distinct keys (in order of first appearance) and each key's index among them."""
    index: dict = {}
    inverse = np.array([index.setdefault(key, len(index)) for key in keys], dtype=np.int64)
    return list(index), inverse


def distinct_keys(shapes) -> tuple[list[tuple], np.ndarray]:
    """The distinct (material, contact offset, rest offset) of shapes (vehicle or static), and each shape's index
    among them."""
    return distinct((s.material, s.contactOffset, s.restOffset) for s in shapes)


def _distinct_rows(rows: np.ndarray) -> np.ndarray:
    """Each row's index among the distinct rows of a 2-d float array, telling rows apart by their bits."""
    rows = np.ascontiguousarray(rows)
    if not len(rows):
        return np.zeros(0, np.int64)
    _, inverse = np.unique(rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).reshape(-1),
                           return_inverse=True)
    return inverse.reshape(-1)


def _polytope(kind: str, points: np.ndarray, ordered: dict[bytes, Polytope]) -> Polytope:
    """A vehicle shape's polytope from its points in the body (or wheel) frame: a convex one's hull, once per
    distinct points (`ordered`), a sphere's or capsule's core."""
    if kind != "convex":
        return core(points)
    key = points.tobytes()
    if key not in ordered:
        ordered[key] = convex_polytope(points)
    return ordered[key]


def _fixed_shape(kind: str, points: np.ndarray, cylinder_ends: np.ndarray | None, com: np.ndarray, R: np.ndarray,
                 ordered: dict[bytes, Polytope]) -> tuple:
    """A shape fixed in its body, from the vehicle prim's frame to the body frame (com: the centre of mass there, R:
    the body's axes): its points, polytope, cylinder ends (NaN: none) and origin."""
    def local(given: np.ndarray) -> np.ndarray:
        return (given - com) @ R
    placed = local(points)
    ends = local(cylinder_ends) if cylinder_ends is not None else np.full((2, 3), np.nan)
    return placed, _polytope(kind, placed, ordered), ends, local(np.zeros((1, 3)))[0]


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


def _points_and_transform(g: GroundDescription) -> tuple[np.ndarray, np.ndarray]:
    """A static collider's points (n, 3) in its own frame and its 4 x 4 transform to the world (row vectors)."""
    return (np.asarray(canonical_value(g.points), dtype=float).reshape(-1, 3),
            np.asarray(canonical_value(g.transform), dtype=float).reshape(4, 4))


def placed_corners(g: GroundDescription) -> np.ndarray:
    """A static convex collider's points in the world, in their order."""
    points, m = _points_and_transform(g)
    return points @ m[:3, :3] + m[3, :3]


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


def first_rows(model: ContactModel) -> np.ndarray:
    """Each vehicle's first row of the model (its rows are consecutive)."""
    if "first_rows" not in model.cache:
        V = int(model.vehicle.max()) + 1
        model.cache["first_rows"] = np.searchsorted(model.vehicle, np.arange(V))
    return model.cache["first_rows"]


@dataclass(frozen=True)
class PairModel:
    """What two vehicles' shapes combine when they meet: per shape row (ContactModel's rows) its material key and
    the group that filters it, per pair of material keys the pair's contact and rest distance, friction and
    restitution; whether two groups collide is decided for the pairs that come near (a fleet of copies has a group
    per car: a table over every two cars would grow as the fleet's square)."""

    material_key: np.ndarray  # (N,) each shape row's distinct (material, offsets)
    group: np.ndarray  # (N,) each shape row's filtering group, an id of `rule`
    rule: GroupFilter  # the stage's collision groups' filtering
    contact_offset: np.ndarray  # (N,) each shape's own: its box grows by it in the broad phase
    # (K, K) each of sim/declare.py's CONTACT_PARAMS, in its order
    contact_distance: np.ndarray  # (K, K)
    rest_distance: np.ndarray  # (K, K)
    static_friction: np.ndarray  # (K, K)
    dynamic_friction: np.ndarray  # (K, K)
    restitution: np.ndarray  # (K, K)
    filtered: frozenset  # {(row, row)} lower row first: pairs FilteredPairsAPI keeps apart
    quiet: dict = field(default_factory=dict, repr=False, compare=False)  # the last quiet broad phase's pose

    @classmethod
    def build(cls, shapes: Sequence[ShapeDescription], vehicle: np.ndarray, materials: Materials, rule: GroupFilter,
              named: Mapping[str, list[int]]) -> "PairModel | None":
        """shapes: the shape rows (ContactModel's), vehicle: each row's vehicle, named: the rows each FilteredPairsAPI
        target names (`named_rows`). None with fewer than two vehicles."""
        if len(np.unique(vehicle)) < 2:
            return None
        keys, material_key = distinct_keys(shapes)
        small = combined_tables(keys, keys, materials)
        offset = np.array([s.contactOffset for s in shapes], float)
        return cls(material_key, rule.first(s.groups for s in shapes), rule, offset,
                   *(small[param.name] for param in CONTACT_PARAMS), _filtered_pairs(shapes, vehicle, named))

    def collide(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Whether the groups of shape rows a and b (arrays) let them collide."""
        return self.rule.collide(self.group[a], self.group[b])


def named_rows(paths: Sequence[str], bodies: Sequence[str] | None = None) -> dict[str, list[int]]:
    """FilteredPairsAPI's one rule: which colliders (rows, with their paths and, where they have one, their bodies'
    paths) a target names. omni.physx resolves a target to the physics object its path holds (usdLoad's filtered
    pairs, Collision.cpp): a collider names itself, a body all its shapes; a prim between them names nothing."""
    out: dict[str, list[int]] = {}
    for r, path in enumerate(paths):
        out.setdefault(path, []).append(r)
    for r, body in enumerate(bodies or ()):
        if body != paths[r]:
            out.setdefault(body, []).append(r)
    return out


def _filtered_pairs(shapes: Sequence[ShapeDescription], vehicle: np.ndarray, named: Mapping[str, list[int]]
                    ) -> frozenset:
    """FilteredPairsAPI between vehicles: the (lower row, higher row) of shapes of two vehicles where one names the
    other (`named_rows`)."""
    out = set()
    for r, shape in enumerate(shapes):
        for target in shape.filtered:
            for o in named.get(target, ()):
                if vehicle[o] != vehicle[r]:
                    out.add((min(r, o), max(r, o)))
    return frozenset(out)

def capsule_rows(model: ContactModel) -> np.ndarray:
    """(N,) bool: the capsule rows (a segment core with a radius), which keep manifolds against static boxes."""
    if "capsule_rows" not in model.cache:
        rows = np.zeros(len(model.vehicle), bool)
        if model.radius is not None:
            rows = (model.radius > 0.0) & ~model.shapes.face_mask.any(axis=1) & (model.shapes.loop_counts[:, 0] == 2)
            rows[model.cache["following_rows"]] = False
        model.cache["capsule_rows"] = rows
    return model.cache["capsule_rows"]


def persistent_rows(model: ContactModel) -> np.ndarray:
    """(N,) bool: the shape rows that keep manifolds against planes and meshes (convex polytopes fixed in the body)."""
    if "persistent_rows" not in model.cache:
        rows = model.shapes.face_mask.any(axis=1)
        if model.radius is not None:
            rows &= model.radius == 0.0
        rows[model.cache["following_rows"]] = False  # (a posed model's own `following` is empty)
        rows[model.cylinders] = False
        model.cache["persistent_rows"] = rows
    return model.cache["persistent_rows"]


@dataclass(frozen=True)
class StaticRounds:
    """The static spheres and capsules: world cores (S, 2, 3) (a sphere's centre twice), radii (S,), each one's
    column among the model's static shapes (`Ground.materials` order), and their world boxes."""

    ends: np.ndarray
    radius: np.ndarray
    column: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    cores: "Polytopes"  # the cores as separating_axes.polytope_contacts' round shapes (world)

    @classmethod
    def of(cls, rounds: Sequence[GroundDescription], first_column: int) -> "StaticRounds":

        ends = np.array([placed_core(g) for g in rounds]).reshape(-1, 2, 3)
        radius = np.array([float(g.radius) for g in rounds])
        cores = Polytopes.stack([core(e[:1] if g.kind == "sphere" else e) for g, e in zip(rounds, ends)])
        return cls(ends, radius, first_column + np.arange(len(rounds)), ends.min(axis=1) - radius[:, None],
                   ends.max(axis=1) + radius[:, None], cores)

    @property
    def spheres(self) -> np.ndarray:
        return (self.ends[:, 0] == self.ends[:, 1]).all(axis=1)
