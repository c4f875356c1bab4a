"""Convex polytopes: one shape's (`Polytope`: vertices, faces with their loops, edges, one edge per direction) and many
as padded rows (`Polytopes`), the hull of a point set as PhysX's cooking leaves it (`polytope`; a box's loops start
at PCM's corners, `convex_polytope`), a round shape's core, and the rows placed in the world."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from .box import PLANE_ORDER, box_frame

if TYPE_CHECKING:  # annotations only: the ground builds its hulls with this module
    from ..ground import Ground


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
        # one row per distinct polytope, copied to the rows of the same one: a fleet's copies of a car share theirs
        rows_of: dict[int, list[int]] = {}
        for r, p in enumerate(items):
            rows_of.setdefault(id(p), []).append(r)
        for same in rows_of.values():
            r, p = same[0], items[same[0]]
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
            if len(same) > 1:
                for array in (vertices, normals, offsets, face_mask, loops, counts, edges, edge_mask, axis_edges,
                              axis_mask):
                    array[same[1:]] = array[r]
        return cls(vertices, normals, offsets, face_mask, loops, counts, edges, edge_mask, axis_edges, axis_mask)


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


def placed_hull(points: np.ndarray, transform: np.ndarray) -> Polytope:
    """A static convex collider's hull in the world from its points (n, 3) and its 4 x 4 transform (row vectors): the
    hull of its turned and scaled points (made once for every collider of the same shape and turn), moved to its
    place."""
    m = transform
    hull = _hull_of(points @ m[:3, :3])
    shift = m[3, :3]
    return Polytope(hull.vertices + shift, hull.normals, hull.offsets + hull.normals @ shift, hull.loops,
                    hull.loop_counts, hull.edges, hull.directions)


def polytope_rows(P: Polytopes, rows: np.ndarray) -> Polytopes:
    return Polytopes(P.vertices[rows], P.normals[rows], P.offsets[rows], P.face_mask[rows], P.loops[rows],
                     P.loop_counts[rows], P.edges[rows], P.edge_mask[rows], P.axis_edges[rows], P.axis_mask[rows])


def world_polytopes(P: Polytopes, rows: np.ndarray, vertices: np.ndarray, R: np.ndarray) -> Polytopes:
    """Shape rows `rows` in the world: their world vertices, rotated normals and moved offsets."""
    normals = np.einsum("nij,nfj->nfi", R[rows], P.normals[rows])
    offsets = np.where(P.face_mask[rows], np.einsum("nfj,nfj->nf", normals,
                                                    np.take_along_axis(vertices[rows], P.loops[rows][:, :, :1], 1)),
                       -np.inf)
    return Polytopes(vertices[rows], normals, offsets, P.face_mask[rows], P.loops[rows], P.loop_counts[rows],
                     P.edges[rows], P.edge_mask[rows], P.axis_edges[rows], P.axis_mask[rows])


def triangle_polytopes(ground: Ground, tri: np.ndarray) -> Polytopes:
    v0 = ground.tri_v0[tri]
    vertices = np.stack([v0, v0 + ground.tri_e1[tri], v0 + ground.tri_e2[tri]], axis=1)
    normals = ground.tri_normals[tri][:, None, :]
    offsets = np.einsum("nj,nj->n", normals[:, 0], v0)[:, None]
    T = len(tri)
    edges = np.tile(np.array([[0, 1], [1, 2], [0, 2]]), (T, 1, 1))
    active = np.ones((T, 3), bool) if ground.tri_active is None else ground.tri_active[tri]  # (edge axes: active only)
    return Polytopes(vertices, normals, offsets, np.ones((T, 1), bool), np.tile(np.arange(3), (T, 1, 1)),
                     np.full((T, 1), 3), edges, np.ones((T, 3), bool), edges, active)


def support_min(vertices: np.ndarray, axes: np.ndarray) -> np.ndarray:
    """min over each row's vertices of axis . x: vertices (P, K, 3), axes (P, A, 3) -> (P, A)."""
    return np.einsum("paj,pkj->pak", axes, vertices).min(axis=2)
