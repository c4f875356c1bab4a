"""Rays against round shapes: where a ray enters a capsule (the points within a radius of a segment; a sphere where the
segment is a point), and the nearest points of segments.

Three queries meet round shapes and share this geometry: the suspension rays against the static spheres and capsules
(sim/ground.py), against other vehicles' round shapes (sim/vehicle_queries.py), and the wheel sweeps' round pieces
(sim/wheel_sweep.py). What a ray that starts inside meets differs between them, and each caller says it.
"""
from __future__ import annotations

import numpy as np


def capsule_entry(d: np.ndarray, a: np.ndarray, b: np.ndarray, radius: np.ndarray, o: np.ndarray | None = None,
                  unit: bool = False, tiny: float = 0.0) -> np.ndarray:
    """The distance t along rays o + t d at which each enters its capsule (segment a b, radius): the least of the
    entries into the spheres about the two ends and into the side (the cylinder about the segment, between its ends);
    inf where the ray's line misses all three. Vectors on the last axis, any leading shape (broadcasting); radius over
    the leading shape.

    The entries are the nearer roots of the quadratics, so a ray starting inside gets a negative t, or the entry ahead
    of it where it is inside one piece only: the caller's rule decides what such a ray meets.
    o: the rays' origins (None: the origin); unit: d has unit length (the quadratics are not divided by d . d);
    tiny: the least segment length, and squared speed across the axis, that count as a side (0: any above 0)."""
    rr = radius * radius
    dd = None if unit else (d * d).sum(-1)
    entries = []
    for centre in (a, b):  # the spheres about the ends
        m = -centre if o is None else o - centre
        half_b, c = (m * d).sum(-1), (m * m).sum(-1) - rr
        if unit:
            disc = half_b * half_b - c
            entries.append(np.where(disc >= 0.0, -half_b - np.sqrt(np.maximum(disc, 0.0)), np.inf))
        else:
            disc = half_b * half_b - dd * c
            entries.append(np.where(disc >= 0.0, (-half_b - np.sqrt(np.maximum(disc, 0.0))) / dd, np.inf))
    axis = b - a
    length = np.sqrt((axis * axis).sum(-1))
    u = axis / np.where(length > tiny, length, 1.0)[..., None]
    m = -a if o is None else o - a
    mp = m - (m * u).sum(-1, keepdims=True) * u  # across the axis
    dp = d - (d * u).sum(-1, keepdims=True) * u
    qa, qb, qc = (dp * dp).sum(-1), (mp * dp).sum(-1), (mp * mp).sum(-1) - rr
    disc = qb * qb - qa * qc
    side = (qa > tiny) & (disc >= 0.0) & (length > tiny)
    t = np.where(side, (-qb - np.sqrt(np.maximum(disc, 0.0))) / np.where(qa > tiny, qa, 1.0), np.inf)
    along = ((m + np.where(np.isfinite(t), t, 0.0)[..., None] * d) * u).sum(-1)
    entries.append(np.where(side & (along >= 0.0) & (along <= length), t, np.inf))
    return np.minimum(np.minimum(entries[0], entries[1]), entries[2])


def segment_points(a: np.ndarray, b: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The points of segments a b nearest to points p (vectors on the last axis, any leading shape)."""
    ab = b - a
    length_sq = (ab * ab).sum(-1)
    s = np.clip(((p - a) * ab).sum(-1) / np.where(length_sq > 0.0, length_sq, 1.0), 0.0, 1.0)
    return a + s[..., None] * ab
