"""How far the vehicles' bodies have moved since a broad phase last found them quiet.

Three broad phases skip their work while nothing can have come near: the planes' (sim/contact/broad.py
`_plane_candidates`: each vehicle against the ground planes), the vehicle pairs' (sim/contact/broad.py
`candidate_pairs`) and the suspension queries' against other vehicles (sim/vehicle_queries.py). Each keeps the pose
it last found quiet at and asks, every step, how far each body has moved and turned since. `Motion` answers for one
step's poses: the phases that fall quiet in the same step keep the same reference arrays (`reference`), and the
motion since a reference is measured once however many phases ask.

Each phase first asks the whole fleet's bounds (`Motion.bounds`: the largest change along each axis, a bound of any
body's move against the others, the largest turn) against its smallest margin: a fleet that is quiet everywhere
passes on a few numbers, and only a phase the bounds do not clear measures body by body. A single body has its
bounds taken in Python floats (`_lone_bounds`), a fleet's in one compiled pass where the extension is built
(sim/_motion.c, `Motion._measure`): the same float64 arithmetic in a fraction of numpy's calls. On the compiled path
the step's begin takes that pass against the planes' reference already (sim/_step_begin.c, handed it by
contact/broad.py `begin_check`): a Motion is then given those bounds (`Motion.measured`) and measures nothing.
"""
from __future__ import annotations

import ctypes
import math
import weakref
from typing import NamedTuple

import numpy as np

from . import vecmath as vm
from .extension import address, open_extension


def _load() -> ctypes.CDLL | None:
    # (an extension built before it, or with pvu_motion_bounds, its float64-reference form: numpy measures the fleet)
    lib = open_extension("pvu_motion_reductions")
    if lib is not None:
        P, I = ctypes.c_void_p, ctypes.c_int
        lib.pvu_motion_reductions.argtypes = [ctypes.c_int64, P, I, P, P, I, P, I, P]
        lib.pvu_motion_reductions.restype = I
    return lib


_LIB = _load()
_POSES = (np.dtype(np.float32), np.dtype(np.float64))
_REDUCTIONS = ctypes.c_double * 7  # what the compiled pass writes (pvu_motion_reductions' out)


class Bounds(NamedTuple):
    """Over every body, since a reference pose: the largest |change| along each axis (3,), an upper bound of any
    body's change less a shift common to all (the length of the changes' half ranges along the axes), and the largest
    turn (vecmath.turn_bound's)."""
    along: tuple[float, float, float]
    relative: float
    turn: float


class Motion:
    """The body poses position (3, V), orientation (4, V) a step begins with, and each body's motion since a
    reference pose (float64 arrays a broad phase keeps; never changed in place: a phase that refreshes part of its
    reference makes new arrays)."""

    __slots__ = ("position", "orientation", "_reference", "_measured", "_last_bounds", "_compiled_pose")

    def __init__(self, position: np.ndarray, orientation: np.ndarray):
        self.position, self.orientation = position, orientation
        self._reference: tuple[np.ndarray, np.ndarray] | None = None
        # per reference asked about (the phases keep two or three, asked in turn): its arrays and what was measured
        self._measured: dict[tuple[int, int], dict] = {}
        self._last_bounds: tuple | None = None  # (reference position, orientation, its `Bounds`) last asked
        self._compiled_pose: tuple | None = None  # the pose's arguments of the compiled pass (`_pose_arguments`)

    def reference(self) -> tuple[np.ndarray, np.ndarray]:
        """The poses as float64 copies, for a broad phase that falls quiet: the same arrays for every one this step."""
        if self._reference is None:
            self._reference = (self.position.astype(float), self.orientation.astype(float))
        return self._reference

    def _since(self, position: np.ndarray, orientation: np.ndarray) -> dict:
        key = (id(position), id(orientation))
        m = self._measured.get(key)
        if m is None or m["position"] is not position or m["orientation"] is not orientation:
            m = self._measured[key] = {"position": position, "orientation": orientation}
        return m

    def _change(self, m: dict) -> np.ndarray:
        if "change" not in m:
            m["change"] = self.position - m["position"]
        return m["change"]

    def since(self, position: np.ndarray, orientation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each body's change of position (3, V) since the reference pose (position, orientation), and an upper
        bound of the angle it has turned by (V,) (vecmath.turn_bound)."""
        m = self._since(position, orientation)
        if "turn" not in m:
            m["turn"] = vm.turn_bound(self.orientation, orientation)
        return self._change(m), m["turn"]

    def bounds(self, position: np.ndarray, orientation: np.ndarray) -> Bounds:
        """`Bounds` of every body's motion since the reference pose (position, orientation)."""
        last = self._last_bounds  # (the phases of a step mostly share one reference: asked again without a look-up)
        if last is not None and last[0] is position and last[1] is orientation:
            return last[2]
        m = self._since(position, orientation)
        bounds = m.get("bounds")
        if bounds is None:
            bounds = m["bounds"] = self._measure(m, position, orientation)
        self._last_bounds = (position, orientation, bounds)
        return bounds

    def measured(self, position: np.ndarray, orientation: np.ndarray, reductions: list) -> None:
        """Take the bounds since the reference pose (position, orientation) from `reductions`, the seven numbers the
        compiled pass (sim/_motion.c) writes for this pose and that reference, taken elsewhere this step (the compiled
        begin's, sim/compiled_begin.py): `bounds` then measures nothing. For a fleet (a lone body's are its floats')."""
        m = self._since(position, orientation)
        bounds = m["bounds"] = _reduced_bounds(reductions)
        self._last_bounds = (position, orientation, bounds)

    def _measure(self, m: dict, position: np.ndarray, orientation: np.ndarray) -> Bounds:
        """`bounds`, measured: a lone body's in Python floats, a fleet's reductions in one compiled pass (sim/_motion.c:
        the changes' largest values along x, y, z, their smallest, and the smallest |cosine|, the same numbers as
        numpy's) where the extension is built and the arrays are of the layout it reads (the pose's checked once a
        step, `_pose_arguments`; a reference's once while a phase keeps it, `reference_arguments`), else with numpy
        (also where a value is NaN)."""
        if self.position.shape[1] == 1:  # (a numpy call costs what a few dozen float operations do)
            return _lone_bounds(self.position.tolist(), position.tolist(), self.orientation.tolist(),
                                orientation.tolist())
        pose = self._compiled_pose
        if pose is None:
            pose = self._compiled_pose = _pose_arguments(self.position, self.orientation)
        reference = reference_arguments(position, orientation, pose[0]) if pose else None
        if reference is not None:
            out = _REDUCTIONS()
            if not _LIB.pvu_motion_reductions(pose[0], pose[1], pose[3], reference[0], pose[2], pose[3], reference[1],
                                          reference[2], out):
                return _reduced_bounds(out[:])  # (a slice: a ctypes array unpacks slowly)
        change = self._change(m)
        hi, lo = change.max(axis=1).tolist(), change.min(axis=1).tolist()
        cosine = float(np.abs((self.orientation * orientation).sum(axis=0)).min())
        # |change - midrange| <= (hi - lo) / 2 along each axis, for every body
        return Bounds(tuple(max(h, -low) for h, low in zip(hi, lo)), 0.5 * math.dist(hi, lo),
                      vm.turn_from_cosine(cosine))

    def relative_shift(self, position: np.ndarray, orientation: np.ndarray) -> np.ndarray:
        """(V,) how far each body has moved since the reference pose less a shift common to all (any common shift
        leaves every two bodies' relative motion under twice the largest remainder)."""
        m = self._since(position, orientation)
        if "shift" not in m:
            change = self._change(m)
            common = 0.5 * (change.max(axis=1, keepdims=True) + change.min(axis=1, keepdims=True))
            m["shift"] = np.sqrt(((change - common) ** 2).sum(axis=0))
        return m["shift"]

    def within(self, quiet: dict) -> bool:
        """Whether `quiet` (a pair or query broad phase's: its reference "position" and "orientation", "reach" (V,)
        and "margin") holds a pose and every body has moved less than the margin against the others since: its
        relative shift plus its turn times its reach."""
        if "position" not in quiet:
            return False
        reach = quiet.get("reach_max")
        if reach is None or reach[0] is not quiet["reach"]:  # (the phase's reach array and its largest entry)
            reach = quiet["reach_max"] = (quiet["reach"], float(quiet["reach"].max()))
        bounds = self.bounds(quiet["position"], quiet["orientation"])
        if bounds.relative + bounds.turn * reach[1] < quiet["margin"]:
            return True  # the whole fleet's bounds clear the margin
        shift = self.relative_shift(quiet["position"], quiet["orientation"])
        _, turn = self.since(quiet["position"], quiet["orientation"])
        return bool((shift + turn * quiet["reach"]).max() < quiet["margin"])


def _reduced_bounds(reductions: list) -> Bounds:
    """`Bounds` of the compiled pass's reductions (the largest change along x, y, z, the smallest, the smallest
    |cosine|; none NaN)."""
    hi_x, hi_y, hi_z, lo_x, lo_y, lo_z, cosine = reductions
    # max(hi, -lo) written out (no NaN here: the pass says so)
    along = (-lo_x if -lo_x > hi_x else hi_x, -lo_y if -lo_y > hi_y else hi_y, -lo_z if -lo_z > hi_z else hi_z)
    return Bounds(along, 0.5 * math.dist((hi_x, hi_y, hi_z), (lo_x, lo_y, lo_z)), vm.turn_from_cosine(cosine))


def _pose_arguments(position: np.ndarray, orientation: np.ndarray) -> tuple:
    """The compiled pass's arguments of a step's pose: (V, position's address, orientation's, whether float32);
    () where the extension is not built or the pose is not of the layout it reads (float32 or float64 alike, (3, V)
    and (4, V), C-contiguous)."""
    dtype = position.dtype
    if (_LIB is None or dtype not in _POSES or orientation.dtype != dtype or position.ndim != 2
            or position.shape[0] != 3 or orientation.shape != (4, position.shape[1]) or not position.shape[1]
            or not position.flags.c_contiguous or not orientation.flags.c_contiguous):
        return ()
    return position.shape[1], address(position), address(orientation), dtype == _POSES[0]


# the reference poses last given to the compiled pass, by identity: (weak references to its position and orientation,
# V, the arguments of `reference_arguments`); the phases keep one to three at a time, for many steps, and their arrays
# are never changed in place (`Motion`)
_REFERENCES: dict[tuple[int, int], tuple] = {}
_REFERENCES_KEPT = 4


def reference_arguments(position: np.ndarray, orientation: np.ndarray, V: int) -> tuple | None:
    """The compiled pass's arguments of a reference pose of V bodies: the addresses of its position and orientation
    and whether they are float32 copies (made where every value is a float32's, as a reference taken from a float32
    pose is: the pass reads half the memory, the same values); None where it is not float64 (3, V) and (4, V),
    C-contiguous."""
    kept = _REFERENCES.get((id(position), id(orientation)))
    if kept is None or kept[0]() is not position or kept[1]() is not orientation:
        if (position.dtype != np.float64 or orientation.dtype != np.float64 or position.shape != (3, V)
                or orientation.shape != (4, V) or not position.flags.c_contiguous
                or not orientation.flags.c_contiguous):
            return None
        single = position.astype(np.float32), orientation.astype(np.float32)
        if np.array_equal(single[0], position) and np.array_equal(single[1], orientation):
            arguments = (address(single[0]), address(single[1]), True, single)  # (the copies kept alive here)
        else:
            arguments = (address(position), address(orientation), False)
        if len(_REFERENCES) >= _REFERENCES_KEPT:
            _REFERENCES.clear()
        kept = _REFERENCES[(id(position), id(orientation))] = (weakref.ref(position), weakref.ref(orientation), V,
                                                                arguments)
    return kept[3] if kept[2] == V else None


def _lone_bounds(position: list, reference: list, orientation: list, reference_orientation: list) -> Bounds:
    """`Motion.bounds` of a single body from its poses as lists ((3, 1) and (4, 1)): the same float64 differences and
    products (its change is the largest and the smallest, so the relative bound is 0); a non-finite pose gives
    infinite bounds (no phase is then quiet, as with numpy's NaN)."""
    (x,), (y,), (z,) = position
    (x0,), (y0,), (z0,) = reference
    dx, dy, dz = x - x0, y - y0, z - z0
    (qw,), (qx,), (qy,), (qz,) = orientation
    (rw,), (rx,), (ry,), (rz,) = reference_orientation
    cosine = qw * rw + qx * rx + qy * ry + qz * rz
    if not math.isfinite(dx + dy + dz + cosine):
        return Bounds((math.inf,) * 3, math.inf, math.inf)
    return Bounds((abs(dx), abs(dy), abs(dz)), 0.0, vm.turn_from_cosine(abs(cosine)))
