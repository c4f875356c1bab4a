"""Shapes against the ground planes: every polytope vertex nearer than the contact distance (PhysX's convex-plane
points, boxes in PCM's order, box.py), a sphere's centre or a capsule's ends, and the exact cylinder's convex-core
points (`_cylinder_plane`: its side's lowest line, its cap's rim or its deepest point)."""
from __future__ import annotations

import numpy as np

from ..ground import Ground
from .model import ContactModel
from .records import Contacts


def plane_contacts(model: ContactModel, ground: Ground, vertices: np.ndarray, planes: list[np.ndarray],
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
