"""A box's eight corners in the one order both the reader and the simulator rely on: the reader makes a box collider's
points with `box_points` (read/collision.py), and the simulator recognises a box from them and numbers its corners as
PhysX's box contacts do (sim/contact/box.py). It sits beside both, so that neither imports the other for it."""
from __future__ import annotations

from functools import lru_cache
from typing import Iterable

import numpy as np


def box_points(half: Iterable[float]) -> np.ndarray:
    """The corners of the box of half extents `half` about the origin, (8, 3): x, then y, then z from - to +, the
    last coordinate changing fastest. Cached, read-only."""
    return _box_points(tuple(float(h) for h in half))


@lru_cache(maxsize=4096)
def _box_points(half: tuple[float, float, float]) -> np.ndarray:
    signs = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], dtype=float)
    corners = signs * np.asarray(half, dtype=float)
    corners.flags.writeable = False
    return corners
