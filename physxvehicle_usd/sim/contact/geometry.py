"""Small rules the narrow phases share: PhysX's PXC_SAME_NORMAL, the closest points of two segments, and the float32
constants PhysX's convex-core code rounds with."""
from __future__ import annotations

import numpy as np

SAME_NORMAL = 0.999  # PXC_SAME_NORMAL: contacts whose normals agree this well share a patch


def segments_closest(a: np.ndarray, da: np.ndarray, b: np.ndarray, db: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


# the float32 type and limits PhysX's convex-core code (GJK, EPA, face clipping: gjk_epa.py, cylinder_faces.py)
# rounds with
FLOAT32 = np.float32
FLT_EPSILON = 1.1920929e-07
FLT_MAX = 3.4028235e38
