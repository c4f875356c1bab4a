"""Static ground for the suspension queries: infinite planes and triangle meshes from the description.

PhysX's raycast semantics that matter here: planes and meshes are single-sided (a ray travelling along
the face normal misses), a hit at distance 0 (ray starting inside) is no hit, and the closest hit wins.
A ray meets only the triangles its segment's box shares a cell with in the ground's TriangleGrid
(sim/triangle_grid.py), so a fleet on a large road mesh costs about what it costs on a plane.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..description import GroundDescription, canonical_value
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
    grid: TriangleGrid | None = None  # over the triangles (None: no triangles)

    @property
    def materials(self) -> tuple[str | None, ...]:
        """Material of every shape: planes first, then meshes (the shape index used by `raycast`)."""
        return self.plane_materials + self.mesh_materials

    @classmethod
    def from_description(cls, ground: Sequence[GroundDescription] | None) -> "Ground":
        """The static ground of a stage description, at the precision the description holds (float32, as PhysX)."""
        normals, offsets, pmats, ppaths = [], [], [], []
        v0s, e1s, e2s, shape_ids, mmats, mpaths = [], [], [], [], [], []
        for g in ground or []:
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
            elif g.kind == "mesh":
                pts = np.asarray(canonical_value(g.points or []), dtype=float).reshape(-1, 3)
                pts = pts @ m[:3, :3] + m[3, :3]
                idx = [int(i) for i in g.faceVertexIndices or []]
                counts = [int(c) for c in g.faceVertexCounts or []]
                tris = []
                at = 0
                for c in counts:  # fan triangulation of each polygon
                    face = idx[at : at + c]
                    at += c
                    tris.extend((face[0], face[k], face[k + 1]) for k in range(1, c - 1))
                if not tris:
                    continue
                t = np.asarray(tris)
                a, b, c3 = pts[t[:, 0]], pts[t[:, 1]], pts[t[:, 2]]
                e1, e2 = b - a, c3 - a
                nrm = np.cross(e1, e2)
                length = np.linalg.norm(nrm, axis=1)
                keep = length > 0
                v0s.append(a[keep]); e1s.append(e1[keep]); e2s.append(e2[keep])
                shape_ids.append(np.full(int(keep.sum()), len(mmats)))
                mmats.append(g.material)
                mpaths.append(g.path)
        empty3 = np.zeros((0, 3))
        v0 = np.concatenate(v0s) if v0s else empty3
        e1 = np.concatenate(e1s) if e1s else empty3
        e2 = np.concatenate(e2s) if e2s else empty3
        tn = np.cross(e1, e2)
        tn = tn / np.maximum(np.linalg.norm(tn, axis=1, keepdims=True), 1e-300) if len(tn) else tn
        grid = TriangleGrid.build(v0, e1, e2) if len(v0) else None
        return cls(
            plane_normals=np.asarray(normals).reshape(-1, 3), plane_offsets=np.asarray(offsets, dtype=float),
            plane_materials=tuple(pmats), tri_v0=v0, tri_e1=e1, tri_e2=e2, tri_normals=tn,
            tri_shape=np.concatenate(shape_ids) if shape_ids else np.zeros(0, np.int64),
            mesh_materials=tuple(mmats), paths=tuple(ppaths + mpaths), grid=grid,
        )

    @classmethod
    def plane(cls, normal: Sequence[float] = (0.0, 1.0, 0.0), offset: float = 0.0, material: str | None = None) -> "Ground":
        n = np.asarray(normal, dtype=float)
        n = n / np.linalg.norm(n)
        z = np.zeros((0, 3))
        return cls(n[None], np.asarray([offset], dtype=float), (material,), z, z, z, z, np.zeros(0, np.int64), ())


@dataclass
class RayHits:
    """Closest hit per ray (component-first arrays over the ray shape)."""

    hit: np.ndarray  # bool
    normal: np.ndarray  # (3, ...)
    offset: np.ndarray  # plane offset d of the hit plane (n . x + d = 0 through the hit point)
    shape: np.ndarray  # index into Ground.materials (-1 = no hit)


def raycast(ground: Ground, origin: np.ndarray, direction: np.ndarray, length: np.ndarray) -> RayHits:
    """Closest single-sided hit with 0 < t <= length. origin/direction (3, ...), length (...)."""
    shape = length.shape
    o = origin.reshape(3, -1)
    d = direction.reshape(3, -1)
    L = length.reshape(-1)
    R = L.shape[0]
    f = np.result_type(origin.dtype, direction.dtype, np.float32)  # planes run in the rays' precision
    best_t = np.full(R, np.inf, dtype=f)
    best_n = np.zeros((3, R), dtype=f)
    best_shape = np.full(R, -1)
    P = ground.plane_normals.shape[0]
    for k in range(P):
        n = ground.plane_normals[k].astype(f)
        n0, n1, n2 = (float(c) for c in n)  # Python floats keep the rays' precision
        nd = n0 * d[0] + n1 * d[1] + n2 * d[2]
        no = n0 * o[0] + n1 * o[1] + n2 * o[2] + float(ground.plane_offsets[k])
        facing = nd < 0.0
        t = np.where(facing, -no / np.where(facing, nd, -1.0), np.inf)
        better = facing & (t > 0.0) & (t <= L) & (t < best_t)
        best_t = np.where(better, t, best_t)
        best_n = np.where(better, n[:, None], best_n)  # whole-array selects: cheaper than masked stores
        best_shape = np.where(better, k, best_shape)
    if ground.grid is not None:
        _mesh_hits(ground, o, d, L, best_t, best_n, best_shape)
    hit = np.isfinite(best_t)
    hit_point = o + d * np.where(hit, best_t, 0.0)
    offset = -(best_n[0] * hit_point[0] + best_n[1] * hit_point[1] + best_n[2] * hit_point[2])
    return RayHits(hit.reshape(shape), best_n.reshape((3,) + shape), offset.reshape(shape), best_shape.reshape(shape))


def _mesh_hits(ground: Ground, o: np.ndarray, d: np.ndarray, L: np.ndarray, best_t: np.ndarray, best_n: np.ndarray,
               best_shape: np.ndarray) -> None:
    """Lower best_t (and set best_n, best_shape) where a ray's closest triangle hit is closer: Moller-Trumbore on the
    (ray, triangle) pairs the grid gives. Of equally close triangles the lowest index wins."""
    end = o + d * L
    ray, tri = ground.grid.pairs(np.minimum(o, end).T, np.maximum(o, end).T)
    if ray.size == 0:
        return
    # component by component, in the order np.cross and a sum over (x, y, z) take: the same bits as testing each
    # ray against the whole mesh (tests/test_sim_ground.py), at a fraction of the numpy calls
    ox, oy, oz = o[:, ray]
    dx, dy, dz = d[:, ray]
    v0x, v0y, v0z, e1x, e1y, e1z, e2x, e2y, e2z = ground.grid.triangle_columns[:, tri]
    px, py, pz = dy * e2z - dz * e2y, dz * e2x - dx * e2z, dx * e2y - dy * e2x  # d x e2
    det = e1x * px + e1y * py + e1z * pz
    front = det > 1e-12  # single-sided: the ray must travel against the face normal
    inv = np.where(front, 1.0 / np.where(front, det, 1.0), 0.0)
    tx, ty, tz = ox - v0x, oy - v0y, oz - v0z
    u = (tx * px + ty * py + tz * pz) * inv
    qx, qy, qz = ty * e1z - tz * e1y, tz * e1x - tx * e1z, tx * e1y - ty * e1x  # (o - v0) x e1
    v = (dx * qx + dy * qy + dz * qz) * inv
    t = (e2x * qx + e2y * qy + e2z * qz) * inv
    ok = front & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (t > 0.0) & (t <= L[ray])
    ray, tri, t = ray[ok], tri[ok], t[ok]
    order = np.lexsort((tri, t, ray))  # by ray, then distance, then triangle index
    first = order[np.r_[True, ray[order][1:] != ray[order][:-1]]] if order.size else order
    ray, tri, t = ray[first], tri[first], t[first]
    better = t < best_t[ray]
    ray, tri = ray[better], tri[better]
    best_t[ray] = t[better]
    best_n[:, ray] = ground.tri_normals[tri].T
    best_shape[ray] = len(ground.plane_normals) + ground.tri_shape[tri]


def friction_matrix(tables: Sequence[Any], ground: Ground) -> np.ndarray:
    """(tables, shapes + 1) road friction; the last column (shape -1) is never used on ground."""
    mats = ground.materials
    out = np.ones((max(1, len(tables)), len(mats) + 1))
    for i, table in enumerate(tables):
        for j, mat in enumerate(mats):
            out[i, j] = table.friction_for(mat)
        out[i, -1] = table.default_friction
    return out
