"""How far the vehicles' bodies have moved since a broad phase last found them quiet.

Three broad phases skip their work while nothing can have come near: the planes' (sim/contact.py
`_plane_candidates`: each vehicle against the ground planes), the vehicle pairs' (sim/vehicle_contact.py
`candidate_pairs`) and the suspension queries' against other vehicles (sim/vehicle_queries.py). Each keeps the pose
it last found quiet at and asks, every step, how far each body has moved and turned since. `Motion` answers for one
step's poses: the phases that fall quiet in the same step keep the same reference arrays (`reference`), and the
motion since a reference is measured once however many phases ask.
"""
from __future__ import annotations

import numpy as np

from . import vecmath as vm


class Motion:
    """The body poses position (3, V), orientation (4, V) a step begins with, and each body's motion since a
    reference pose (float64 arrays a broad phase keeps; never changed in place: a phase that refreshes part of its
    reference makes new arrays)."""

    def __init__(self, position: np.ndarray, orientation: np.ndarray):
        self.position, self.orientation = position, orientation
        self._reference: tuple[np.ndarray, np.ndarray] | None = None
        self._measured: list | None = None  # [reference position, reference orientation, change, turn, shift]

    def reference(self) -> tuple[np.ndarray, np.ndarray]:
        """The poses as float64 copies, for a broad phase that falls quiet: the same arrays for every one this step."""
        if self._reference is None:
            self._reference = (self.position.astype(float), self.orientation.astype(float))
        return self._reference

    def since(self, position: np.ndarray, orientation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each body's change of position (3, V) since the reference pose (position, orientation), and an upper
        bound of the angle it has turned by (V,) (vecmath.turn_bound)."""
        m = self._measured
        if m is None or m[0] is not position or m[1] is not orientation:
            m = self._measured = [position, orientation, self.position - position,
                                  vm.turn_bound(self.orientation, orientation), None]
        return m[2], m[3]

    def relative_shift(self, position: np.ndarray, orientation: np.ndarray) -> np.ndarray:
        """(V,) how far each body has moved since the reference pose less a shift common to all (any common shift
        leaves every two bodies' relative motion under twice the largest remainder)."""
        change, _ = self.since(position, orientation)
        if self._measured[4] is None:
            common = 0.5 * (change.max(axis=1, keepdims=True) + change.min(axis=1, keepdims=True))
            self._measured[4] = np.sqrt(((change - common) ** 2).sum(axis=0))
        return self._measured[4]

    def within(self, quiet: dict) -> bool:
        """Whether `quiet` (a pair or query broad phase's: its reference "position" and "orientation", "reach" (V,)
        and "margin") holds a pose and every body has moved less than the margin against the others since: its
        relative shift plus its turn times its reach."""
        if "position" not in quiet:
            return False
        shift = self.relative_shift(quiet["position"], quiet["orientation"])
        _, turn = self.since(quiet["position"], quiet["orientation"])
        return bool((shift + turn * quiet["reach"]).max() < quiet["margin"])
