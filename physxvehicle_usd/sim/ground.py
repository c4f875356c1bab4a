"""Static ground for the suspension queries: infinite planes and triangle meshes from the description (static
convex polytopes, boxes among them, as the triangles of their faces, after the meshes), then static spheres and
capsules (their cores and radii).

PhysX's raycast semantics that matter here: planes and meshes are single-sided (a ray travelling along
the face normal misses), a hit at distance 0 (ray starting inside) is no hit, and the closest hit wins.
Mesh queries test only the triangles whose boxes overlap the query's (`box_pairs`), found through the ground's
TriangleGrid (sim/triangle_grid.py), so a fleet on a large road mesh costs about what it costs on a plane; where the
extension is built, the pairs and the raycast run in C (sim/compiled_mesh.py), the same bits as their numpy twins
(`box_pairs_numpy`, `mesh_hits_numpy`).

A ray meets a sphere or capsule where it enters it (one starting inside misses, as one starting behind a plane).
Sweeps (`sweep`) move the shape omni.physx sweeps for a wheel, a convex prism over a regular polygon of
HULL_POINTS corners (not a true cylinder), along the suspension against the ground, as PxScene::sweep with
eMTD does (against spheres and capsules: sim/wheel_sweep.py); see `sweep` for what is reported.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..description import GroundDescription
from ..json_values import canonical_floats, canonical_value
from . import compiled_mesh, compiled_rays
from .contact.polytopes import placed_hull
from .round_rays import capsule_entry, segment_points
from .triangle_grid import TriangleGrid

_AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


@dataclass(frozen=True)
class Ground:
    """Planes (n . x + d = 0, n unit) and triangles (world space), each with a material path (or None)."""

    plane_normals: np.ndarray  # (P, 3)
    plane_offsets: np.ndarray  # (P,)
    plane_materials: tuple[str | None, ...]
    tri_v0: np.ndarray  # (T, 3)
    tri_e1: np.ndarray  # (T, 3) v1 - v0
    tri_e2: np.ndarray  # (T, 3) v2 - v0
    tri_normals: np.ndarray  # (T, 3) unit, from the winding (right-handed)
    tri_shape: np.ndarray  # (T,) index into mesh_materials
    mesh_materials: tuple[str | None, ...]
    paths: tuple[str, ...] = ()
    # PhysX's geometric epsilon of each triangle's mesh, 2^-22 times the largest coordinate of the mesh's own points
    # (Gu::computeLocalBoundsAndGeomEpsilon): mesh raycasts enlarge every triangle by it in barycentric terms, so a
    # ray down a shared edge hits (at least) one of the two triangles
    tri_epsilon: np.ndarray | None = None  # (T,); None: 0
    grid: TriangleGrid | None = None  # over the triangles (None: no triangles)
    # static spheres and capsules (after the meshes in `materials`): their cores' world ends (a sphere's twice) and
    # radii, as PhysX meets them (no scale: the radius as read)
    round_ends: np.ndarray | None = None  # (S, 2, 3)
    round_radius: np.ndarray | None = None  # (S,)
    round_materials: tuple[str | None, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()  # each shape's collision groups, as `paths` (empty: in none)
    # whether each triangle's edges v0-v1, v1-v2, v2-v0 are active (`active_edges`); None: all
    tri_active: np.ndarray | None = None  # (T, 3)

    @property
    def materials(self) -> tuple[str | None, ...]:
        """Material of every shape: planes first, then meshes (static polytopes among them), then spheres and
        capsules (the shape index used by `raycast`)."""
        return self.plane_materials + self.mesh_materials + self.round_materials

    @property
    def round_first(self) -> int:
        """The shape index of the first sphere or capsule."""
        return len(self.plane_materials) + len(self.mesh_materials)

    @classmethod
    def from_description(cls, ground: Sequence[GroundDescription] | None) -> "Ground":
        """The static ground of a stage description, at the precision the description holds (float32, as PhysX)."""
        normals, offsets, pmats, ppaths = [], [], [], []
        v0s, e1s, e2s, shape_ids, mmats, mpaths, epsilons, actives = [], [], [], [], [], [], [], []
        kinds = ("plane", "mesh", "convex")  # a static polytope's faces are triangles too, after the meshes
        ends, radii, rmats, rpaths = [], [], [], []
        groups: dict[str, list] = {"plane": [], "mesh": [], "round": []}  # each shape's, as its path
        for g in sorted(ground or [], key=lambda g: kinds.index(g.kind) if g.kind in kinds else len(kinds)):
            m = np.asarray(canonical_value(g.transform), dtype=float).reshape(4, 4)  # row-vector convention
            if g.kind == "plane":
                axis = np.asarray(_AXES[str(g.axis).upper()])
                n = axis @ m[:3, :3]
                n = n / np.linalg.norm(n)
                origin = m[3, :3]
                normals.append(n)
                offsets.append(-float(n @ origin))
                pmats.append(g.material)
                ppaths.append(g.path)
                groups["plane"].append(tuple(g.groups))
            elif g.kind in ("mesh", "convex"):
                pts = canonical_floats(g.points or []).reshape(-1, 3)
                epsilon = float(np.abs(pts).max()) * 2.0 ** -22 if len(pts) else 0.0
                pts = pts @ m[:3, :3] + m[3, :3]
                if g.kind == "convex":  # its hull's faces, outward: what a ray or a sweep meets from outside
                    hull = placed_hull(np.asarray(canonical_value(g.points), dtype=float).reshape(-1, 3),
                                       np.asarray(canonical_value(g.transform), dtype=float).reshape(4, 4))
                    pts = hull.vertices
                    idx = [int(i) for loop, n in zip(hull.loops, hull.loop_counts) for i in loop[:n]]
                    counts = [int(n) for n in hull.loop_counts]
                else:
                    idx = np.asarray(g.faceVertexIndices or [], np.int64)
                    counts = np.asarray(g.faceVertexCounts or [], np.int64)
                t = fan_triangles(idx, counts)
                if not len(t):
                    continue
                a, b, c3 = pts[t[:, 0]], pts[t[:, 1]], pts[t[:, 2]]
                e1, e2 = b - a, c3 - a
                nrm = np.cross(e1, e2)
                length = np.linalg.norm(nrm, axis=1)
                keep = length > 0
                actives.append(active_edges(t[keep], pts) if g.kind == "mesh" else np.ones((int(keep.sum()), 3), bool))
                v0s.append(a[keep]); e1s.append(e1[keep]); e2s.append(e2[keep])
                shape_ids.append(np.full(int(keep.sum()), len(mmats)))
                epsilons.append(np.full(int(keep.sum()), epsilon))
                mmats.append(g.material)
                mpaths.append(g.path)
                groups["mesh"].append(tuple(g.groups))
            elif g.kind in ROUND_KINDS:
                ends.append(placed_core(g))
                radii.append(float(g.radius))
                rmats.append(g.material)
                rpaths.append(g.path)
                groups["round"].append(tuple(g.groups))
        empty3 = np.zeros((0, 3))
        v0 = np.concatenate(v0s) if v0s else empty3
        e1 = np.concatenate(e1s) if e1s else empty3
        e2 = np.concatenate(e2s) if e2s else empty3
        tn = np.cross(e1, e2)
        tn = tn / np.maximum(np.linalg.norm(tn, axis=1, keepdims=True), 1e-300) if len(tn) else tn
        grid = TriangleGrid.build(v0, e1, e2) if len(v0) else None
        if grid is not None:
            compiled_mesh.prepare(grid)  # (the compiled queries' layout of it, made while loading)
        return cls(
            plane_normals=np.asarray(normals).reshape(-1, 3), plane_offsets=np.asarray(offsets, dtype=float),
            plane_materials=tuple(pmats), tri_v0=v0, tri_e1=e1, tri_e2=e2, tri_normals=tn,
            tri_shape=np.concatenate(shape_ids) if shape_ids else np.zeros(0, np.int64),
            mesh_materials=tuple(mmats), paths=tuple(ppaths + mpaths + rpaths),
            tri_epsilon=np.concatenate(epsilons) if epsilons else np.zeros(0), grid=grid,
            round_ends=np.array(ends).reshape(-1, 2, 3) if ends else None,
            round_radius=np.array(radii) if ends else None, round_materials=tuple(rmats),
            groups=tuple(groups["plane"] + groups["mesh"] + groups["round"]),
            tri_active=np.concatenate(actives) if actives else np.zeros((0, 3), bool),
        )

    @classmethod
    def plane(cls, normal: Sequence[float] = (0.0, 1.0, 0.0), offset: float = 0.0, material: str | None = None) -> "Ground":
        n = np.asarray(normal, dtype=float)
        n = n / np.linalg.norm(n)
        z = np.zeros((0, 3))
        return cls(n[None], np.asarray([offset], dtype=float), (material,), z, z, z, z, np.zeros(0, np.int64), ())


ACTIVE_EDGE_ANGLE = 0.1  # radians: the EdgeList's epsilon, the least angle between the normals of an active edge


def fan_triangles(indices, counts) -> np.ndarray:
    """(T, 3) the fan triangulation of each polygon (its first vertex, then each pair of neighbours after it), polygon
    by polygon: what PhysX's cooking makes of a mesh's faces. indices, counts: the faces' vertex indices and vertex
    counts (the reader has checked them: counts of at least 3 adding up to the indices)."""
    indices, counts = np.asarray(indices, np.int64), np.asarray(counts, np.int64)
    fans = np.maximum(counts - 2, 0)
    first = np.repeat(np.cumsum(counts) - counts, fans)  # each triangle's polygon's first index
    k = np.arange(int(fans.sum())) - np.repeat(np.cumsum(fans) - fans, fans) + 1  # 1 .. count - 2 in each polygon
    return np.stack([indices[first], indices[first + k], indices[first + k + 1]], axis=1).reshape(-1, 3)


def active_edges(triangles: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(T, 3) whether each triangle's edges v0-v1, v1-v2, v2-v0 are active, as PhysX's mesh cooking marks them
    (GuEdgeList.cpp computeActiveEdges; PCM meets a convex along an edge axis only of an active edge): an edge of one
    triangle (the mesh's boundary) is; an edge of two where it is convex (the first triangle's opposite vertex below
    the second's plane) and their normals part by more than ACTIVE_EDGE_ANGLE, or where the two face opposite ways;
    an edge of more than two is."""
    tri = np.asarray(triangles, np.int64).reshape(-1, 3)
    T = len(tri)
    # edge e = 3 t + k runs from tri[t, k] to tri[t, (k + 1) % 3]; edges with the same two vertices grouped, in order
    start, end = tri.reshape(-1), tri[:, [1, 2, 0]].reshape(-1)
    low, high = np.minimum(start, end), np.maximum(start, end)
    order = np.lexsort((high, low))  # stable: within a group the edges in the order of their triangles
    new_group = np.ones(len(order), bool)
    new_group[1:] = (low[order[1:]] != low[order[:-1]]) | (high[order[1:]] != high[order[:-1]])
    first = np.nonzero(new_group)[0]
    count = np.diff(np.append(first, len(order)))
    active = np.zeros(3 * T, bool)
    active[order[np.repeat(count != 2, count)]] = True  # a boundary edge, or one of more than two triangles
    shared = first[count == 2]
    e0, e1 = order[shared], order[shared + 1]
    t0, k0, t1 = e0 // 3, e0 % 3, e1 // 3
    p = np.asarray(points, float)
    normal = np.cross(p[tri[:, 1]] - p[tri[:, 0]], p[tri[:, 2]] - p[tri[:, 0]])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    n0, n1 = normal[t0], normal[t1]
    opposite = p[tri[t0, (k0 + 2) % 3]]
    convex = np.einsum("ij,ij->i", n1, opposite - p[tri[t1, 0]]) < 0.0
    facing = np.einsum("ij,ij->i", n0, n1)
    parted = np.arctan2(np.linalg.norm(np.cross(n0, n1), axis=1), facing) > ACTIVE_EDGE_ANGLE
    active[e0] = active[e1] = np.where(convex, parted, facing < -0.999)
    return active.reshape(T, 3)


ROUND_KINDS = ("sphere", "capsule")  # the static shapes met as a core (a point, a segment) and a radius


def placed_core(g: GroundDescription) -> np.ndarray:
    """A static sphere's or capsule's core in the world: (2, 3), its segment's ends (a sphere's centre twice)."""
    m = np.asarray(canonical_value(g.transform), dtype=float).reshape(4, 4)
    points = np.asarray(canonical_value(g.points), dtype=float).reshape(-1, 3) @ m[:3, :3] + m[3, :3]
    return points[[0, -1]]


CULLING_EPSILON = float(np.finfo(np.float32).eps) ** 2  # GU_CULLING_EPSILON_RAY_TRIANGLE: smaller determinants miss


@dataclass(frozen=True)
class QueryFilter:
    """Which ground shapes each query may hit (omni.physx's pre-filter of the wheels' scene queries, built by
    sim/query_groups.py): per query its key (R,), per key and shape (Ground.materials' index) whether it may."""

    allowed: np.ndarray  # (Q, S) bool
    key: np.ndarray  # (R,) index into `allowed`'s rows

    def passes(self, query: np.ndarray | slice, shape) -> np.ndarray:
        return self.allowed[self.key[query], shape]


def passes_filter(only: QueryFilter | None, query, shape):
    """True where no filter is given (the common case costs nothing)."""
    return True if only is None else only.passes(query, shape)


@dataclass
class RayHits:
    """Closest hit per ray (component-first arrays over the ray shape)."""

    hit: np.ndarray  # bool
    normal: np.ndarray  # (3, ...)
    offset: np.ndarray  # plane offset d of the hit plane (n . x + d = 0 through the hit point)
    shape: np.ndarray  # index into Ground.materials (-1 = no hit)


def box_pairs(ground: Ground, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The broad phase of the mesh queries: (query, triangle) index pairs whose boxes overlap, each once, for queries
    with boxes lo, hi (Q, 3): the grid's candidates, then the boxes themselves. Compiled (sim/compiled_mesh.py) where
    the extension is loaded: the pairs of `box_pairs_numpy`, in its order."""
    if ground.grid is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    compiled = compiled_mesh.grid_pairs(ground.grid, lo, hi, overlap=True)
    return box_pairs_numpy(ground, lo, hi) if compiled is None else compiled


def box_pairs_numpy(ground: Ground, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`box_pairs` in numpy (the reference)."""
    if ground.grid is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    query, tri = ground.grid.numpy_pairs(lo, hi)
    lo_t, hi_t = ground.grid.box(tri)
    overlap = ((lo_t <= hi[query]) & (hi_t >= lo[query])).all(axis=1)
    return query[overlap], tri[overlap]


def raycast(ground: Ground, origin: np.ndarray, direction: np.ndarray, length: np.ndarray,
            only: QueryFilter | None = None, compiled: bool = True, threads: int = 1) -> RayHits:
    """Closest single-sided hit with 0 < t <= length. origin/direction (3, ...), length (...); only: which shapes
    each ray (row-major over length's shape) may hit (None: all); compiled: through sim/compiled_rays.py (planes
    alone) or sim/compiled_mesh.py (planes and meshes, on `threads` threads: the same bits) where they cover the
    rays (False: numpy's loop, the reference)."""
    shape = length.shape
    o = origin.reshape(3, -1)
    d = direction.reshape(3, -1)
    L = length.reshape(-1)
    if compiled and only is None and compiled_rays.covers(ground, o, d, L):  # (the same numbers: compiled_rays.py)
        hit, normal, offset, hit_shape = compiled_rays.plane_rays(ground, o, d, L)
        return RayHits(hit.reshape(shape), normal.reshape((3,) + shape), offset.reshape(shape),
                       hit_shape.reshape(shape))
    if compiled and ground.grid is not None:  # planes and meshes in one call (sim/compiled_mesh.py; the same bits)
        got = compiled_mesh.ground_rays(ground, o, d, L, None if only is None else only.allowed,
                                        None if only is None else only.key, CULLING_EPSILON, threads)
        if got is not None:
            hit, normal, offset, hit_shape = got
            return RayHits(hit.reshape(shape), normal.reshape((3,) + shape), offset.reshape(shape),
                           hit_shape.reshape(shape))
    R = L.shape[0]
    f = np.result_type(origin.dtype, direction.dtype, np.float32)  # planes run in the rays' precision
    # no hit yet: t infinite, normal zero, shape -1 (the first plane's selects take these as scalars)
    best_t, best_n, best_shape = np.inf, 0.0, -1
    for k in range(ground.plane_normals.shape[0]):
        n = ground.plane_normals[k].astype(f)
        n0, n1, n2 = n.tolist()  # Python floats keep the rays' precision
        nd = n0 * d[0] + n1 * d[1] + n2 * d[2]
        no = n0 * o[0] + n1 * o[1] + n2 * o[2] + float(ground.plane_offsets[k])
        facing = nd < 0.0
        t = np.where(facing, -no / np.where(facing, nd, -1.0), np.inf)
        better = facing & (t > 0.0) & (t <= L) & (t < best_t)
        if only is not None:
            better &= only.passes(slice(None), k)
        best_t = np.where(better, t, best_t)
        best_n = np.where(better, n[:, None], best_n)  # whole-array selects: cheaper than masked stores
        best_shape = np.where(better, k, best_shape)
    if np.ndim(best_shape) == 0:  # no plane
        best_t, best_n, best_shape = np.full(R, np.inf, dtype=f), np.zeros((3, R), dtype=f), np.full(R, -1)
    if ground.grid is not None:
        mesh_hits(ground, o, d, L, best_t, best_n, best_shape, only)
    if ground.round_ends is not None:
        _round_hits(ground, o, d, L, best_t, best_n, best_shape, only)
    hit = np.isfinite(best_t)
    hit_point = o + d * np.where(hit, best_t, 0.0)
    offset = -(best_n[0] * hit_point[0] + best_n[1] * hit_point[1] + best_n[2] * hit_point[2])
    return RayHits(hit.reshape(shape), best_n.reshape((3,) + shape), offset.reshape(shape), best_shape.reshape(shape))


def mesh_hits(ground: Ground, o: np.ndarray, d: np.ndarray, L: np.ndarray, best_t: np.ndarray, best_n: np.ndarray,
               best_shape: np.ndarray, only: QueryFilter | None = None) -> None:
    """`mesh_hits_numpy`, compiled (sim/compiled_mesh.py) where the extension is loaded and covers the call: the same
    bits."""
    end = o + d * L
    lo, hi = np.minimum(o, end).T, np.maximum(o, end).T
    if not compiled_mesh.mesh_hits(ground.grid, lo, hi, o, d, L, ground.tri_epsilon, ground.tri_normals,
                                   ground.tri_shape, len(ground.plane_normals), None if only is None else only.allowed,
                                   None if only is None else only.key, CULLING_EPSILON, best_t, best_n, best_shape):
        mesh_hits_numpy(ground, o, d, L, best_t, best_n, best_shape, only)


def mesh_hits_numpy(ground: Ground, o: np.ndarray, d: np.ndarray, L: np.ndarray, best_t: np.ndarray,
                    best_n: np.ndarray, best_shape: np.ndarray, only: QueryFilter | None = None) -> None:
    """Lower best_t (and set best_n, best_shape) where a ray's closest triangle hit is closer: Moller-Trumbore on the
    broad phase's (ray, triangle) pairs, each triangle enlarged by its mesh's geometric epsilon. Of equally close
    triangles the lowest index wins. The reference of `mesh_hits`."""
    end = o + d * L
    ray, tri = box_pairs_numpy(ground, np.minimum(o, end).T, np.maximum(o, end).T)
    if only is not None:
        keep = only.passes(ray, len(ground.plane_normals) + ground.tri_shape[tri])
        ray, tri = ray[keep], tri[keep]
    if ray.size == 0:
        return
    # component by component (np.cross and a sum over x, y, z in the same order): a fraction of the numpy calls
    ox, oy, oz = o[:, ray]
    dx, dy, dz = d[:, ray]
    v0x, v0y, v0z, e1x, e1y, e1z, e2x, e2y, e2z = ground.grid.triangle_columns[:, tri]
    px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x  # d x e2
    det = e1x * px + e1y * py + e1z * pz
    front = det >= CULLING_EPSILON  # single-sided: the ray must travel against the face normal
    inv = np.where(front, 1.0 / np.where(front, det, 1.0), 0.0)
    tx, ty, tz = ox - v0x, oy - v0y, oz - v0z
    u = (tx * px + ty * py + tz * pz) * inv
    qx, qy, qz = ty * e1z - tz * e1y, tz * e1x - tx * e1z, tx * e1y - ty * e1x  # (o - v0) x e1
    v = (dx * qx + dy * qy + dz * qz) * inv
    t = (e2x * qx + e2y * qy + e2z * qz) * inv
    eps = ground.tri_epsilon[tri] if ground.tri_epsilon is not None else 0.0
    ok = front & (u >= -eps) & (v >= -eps) & (u + v <= 1.0 + eps) & (t > 0.0) & (t <= L[ray])
    ray, tri, t = ray[ok], tri[ok], t[ok]
    order = np.lexsort((tri, t, ray))  # by ray, then distance, then triangle index
    first = order[np.r_[True, ray[order][1:] != ray[order][:-1]]] if order.size else order
    ray, tri, t = ray[first], tri[first], t[first]
    better = t < best_t[ray]
    ray, tri = ray[better], tri[better]
    best_t[ray] = t[better]
    best_n[:, ray] = ground.tri_normals[tri].T
    best_shape[ray] = len(ground.plane_normals) + ground.tri_shape[tri]


def round_boxes(ground: Ground) -> tuple[np.ndarray, np.ndarray]:
    """The world boxes (lo, hi: (S, 3)) of the static spheres and capsules."""
    ends, r = ground.round_ends, ground.round_radius[:, None]
    return ends.min(axis=1) - r, ends.max(axis=1) + r


def box_overlaps(q_lo: np.ndarray, q_hi: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(query, box) index pairs whose boxes overlap, queries q_lo, q_hi (Q, 3) against boxes lo, hi (B, 3): the
    boxes sorted along the axis they spread most along, each query's run of them from the widest box's width before
    its start to its end, then the whole test (a fleet with a few round obstacles each pays for the few, not for
    every pair)."""
    axis = int(np.ptp(lo, axis=0).argmax()) if len(lo) else 0
    order = np.argsort(lo[:, axis], kind="stable")
    lo_x = lo[order, axis]
    width = float((hi[:, axis] - lo[:, axis]).max()) if len(lo) else 0.0
    first = np.searchsorted(lo_x, q_lo[:, axis] - width, "left")
    count = np.searchsorted(lo_x, q_hi[:, axis], "right") - first
    count = np.maximum(count, 0)
    query = np.repeat(np.arange(len(q_lo)), count)
    within = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    box = order[np.repeat(first, count) + within]
    ok = ((q_lo[query] <= hi[box]) & (q_hi[query] >= lo[box])).all(axis=1)
    return query[ok], box[ok]


def _round_hits(ground: Ground, o: np.ndarray, d: np.ndarray, L: np.ndarray, best_t: np.ndarray, best_n: np.ndarray,
                best_shape: np.ndarray, only: QueryFilter | None = None) -> None:
    """Lower best_t where a ray enters a static sphere or capsule sooner: the first of its entries into the
    capsule's side (the cylinder about its segment, between the ends) and the spheres about its ends. A ray that
    starts inside misses (as a ray starting below a plane or behind a triangle does)."""
    end = o + d * L
    ray, k = box_overlaps(np.minimum(o, end).T, np.maximum(o, end).T, *round_boxes(ground))
    if only is not None:
        keep = only.passes(ray, ground.round_first + k)
        ray, k = ray[keep], k[keep]
    if not ray.size:
        return
    a, b, r = ground.round_ends[k, 0], ground.round_ends[k, 1], ground.round_radius[k]
    origin, direction = o[:, ray].T, d[:, ray].T
    t = capsule_entry(direction, a, b, r, origin)
    inside = ((origin - segment_points(a, b, origin)) ** 2).sum(1) <= r * r
    ok = ~inside & (t > 0.0) & (t <= L[ray]) & np.isfinite(t)
    ray, k, t = ray[ok], k[ok], t[ok]
    order = np.lexsort((k, t, ray))  # by ray, then distance, then shape
    first = order[np.r_[True, ray[order][1:] != ray[order][:-1]]] if order.size else order
    ray, k, t = ray[first], k[first], t[first]
    better = t < best_t[ray]
    ray, k, t = ray[better], k[better], t[better]
    point = o[:, ray].T + d[:, ray].T * t[:, None]
    normal = point - segment_points(ground.round_ends[k, 0], ground.round_ends[k, 1], point)
    best_t[ray] = t
    best_n[:, ray] = (normal / np.linalg.norm(normal, axis=1, keepdims=True)).T
    best_shape[ray] = ground.round_first + k


def friction_matrix(tables: Sequence[Any], ground: Ground) -> np.ndarray:
    """(tables, shapes + 1) road friction; the last column (shape -1) is never used on ground."""
    mats = ground.materials
    out = np.ones((max(1, len(tables)), len(mats) + 1))
    for i, table in enumerate(tables):
        for j, mat in enumerate(mats):
            out[i, j] = table.friction_for(mat)
        out[i, -1] = table.default_friction
    return out
