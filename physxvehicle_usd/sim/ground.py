"""Static ground for the suspension queries: infinite planes and triangle meshes from the description.

PhysX's raycast semantics that matter here: planes and meshes are single-sided (a ray travelling along
the face normal misses), a hit at distance 0 (ray starting inside) is no hit, and the closest hit wins.
Meshes are intersected brute force (every ray against every triangle, in chunks); that is fine for
test tracks with up to a few thousand triangles. A BVH would be the next step for large terrains.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..description import GroundDescription, canonical_value

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
        return cls(
            plane_normals=np.asarray(normals).reshape(-1, 3), plane_offsets=np.asarray(offsets, dtype=float),
            plane_materials=tuple(pmats), tri_v0=v0, tri_e1=e1, tri_e2=e2, tri_normals=tn,
            tri_shape=np.concatenate(shape_ids) if shape_ids else np.zeros(0, np.int64),
            mesh_materials=tuple(mmats), paths=tuple(ppaths + mpaths),
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


def raycast(ground: Ground, origin: np.ndarray, direction: np.ndarray, length: np.ndarray, chunk: int = 1 << 20) -> RayHits:
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
    T = ground.tri_v0.shape[0]
    if T:
        rays_per_chunk = max(1, chunk // T)
        for start in range(0, R, rays_per_chunk):
            sl = slice(start, min(R, start + rays_per_chunk))
            od, dd = o[:, sl].T[:, None, :], d[:, sl].T[:, None, :]  # (r, 1, 3)
            e1, e2, v0 = ground.tri_e1[None], ground.tri_e2[None], ground.tri_v0[None]
            pvec = np.cross(dd, e2)
            det = (e1 * pvec).sum(-1)
            front = det > 1e-12  # single-sided: the ray must travel against the face normal
            inv = np.where(front, 1.0 / np.where(front, det, 1.0), 0.0)
            tvec = od - v0
            u = (tvec * pvec).sum(-1) * inv
            qvec = np.cross(tvec, e1)
            v = (dd * qvec).sum(-1) * inv
            t = (e2 * qvec).sum(-1) * inv
            ok = front & (u >= 0.0) & (v >= 0.0) & (u + v <= 1.0) & (t > 0.0) & (t <= L[sl, None])
            t = np.where(ok, t, np.inf)
            j = np.argmin(t, axis=1)
            tj = t[np.arange(t.shape[0]), j]
            better = tj < best_t[sl]
            idx = np.arange(sl.start, sl.stop)[better]
            best_t[idx] = tj[better]
            best_n[:, idx] = ground.tri_normals[j[better]].T
            best_shape[idx] = P + ground.tri_shape[j[better]]
    hit = np.isfinite(best_t)
    hit_point = o + d * np.where(hit, best_t, 0.0)
    offset = -(best_n[0] * hit_point[0] + best_n[1] * hit_point[1] + best_n[2] * hit_point[2])
    return RayHits(hit.reshape(shape), best_n.reshape((3,) + shape), offset.reshape(shape), best_shape.reshape(shape))


def friction_matrix(tables: Sequence[Any], ground: Ground) -> np.ndarray:
    """(tables, shapes + 1) road friction; the last column (shape -1) is never used on ground."""
    mats = ground.materials
    out = np.ones((max(1, len(tables)), len(mats) + 1))
    for i, table in enumerate(tables):
        for j, mat in enumerate(mats):
            out[i, j] = table.friction_for(mat)
        out[i, -1] = table.default_friction
    return out
