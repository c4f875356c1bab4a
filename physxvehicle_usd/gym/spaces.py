"""What an action and an observation of the vehicle environment hold, and their Box bounds.

Actions are the vehicles' controls, bounded by the ranges the property table gives the controller attributes
(`properties.py`: accelerator and brakes [0, 1], steer and thrusts [-1, 1], target gear [-1, 31), wheel torques
as the wheel controller allows them) and, for the target gear, by the gears the vehicles have. Observations are
bounded where the physics bounds them (the engine speed by its maximum, the jounce by the travel, a lateral slip
is an angle, the guard's limits on chassis and wheel speeds) and unbounded elsewhere.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from .. import properties as P
from ..runtime.vehicle2 import NEUTRAL_GEAR
from ..sim.guard import GuardOptions
from ..sim.state import SimParams
from ..simulate.control_specs import CONTROL_PROPERTIES, DRIVE, KIND_CONTROLS, TANK, WHEELS, vehicle_kinds

PER_WHEEL = frozenset(KIND_CONTROLS[WHEELS])
# actions="drive": the controls that make a vehicle go forward and turn, so that a random action drives. The brakes
# are left out of the action and held released (0): sampled too, a random brake is as strong as the random throttle,
# and the vehicle does not move. The thrusts and wheel torques, which also drive backwards, are bounded below by 0:
# random signs would cancel out (a tank turning on the spot, a robot's wheels fighting each other).
DRIVING = {
    DRIVE: ("accelerator", "steer"),
    TANK: ("accelerator", "thrust0", "thrust1"),
    WHEELS: ("driveTorque", "steerAngle"),
}
FORWARD = frozenset(("thrust0", "thrust1", "driveTorque"))
ACTION_SETS = ("all", "drive")
_F32 = np.float32


def control_range(name: str) -> tuple[float, float]:
    """The closed interval of values the property table accepts for control `name` (infinite where unchecked),
    as float32 numbers: an open upper end (1 + FLT_EPSILON for the accelerator) becomes the float below it."""
    row = P.prop(*CONTROL_PROPERTIES[name])
    if row.range is None:
        return -math.inf, math.inf
    lo, hi = row.range.lo, row.range.hi
    lo = -math.inf if lo <= -P.FLT_MAX else lo
    if hi >= P.FLT_MAX:
        hi = math.inf
    elif not row.range.hi_inclusive:
        hi = float(np.nextafter(_F32(hi), _F32(-math.inf)))
    return float(_F32(lo)), float(_F32(hi))


def vehicle_kind(p: SimParams) -> str:
    """The one kind of controls every vehicle of the batch takes; ValueError when they differ."""
    kinds = vehicle_kinds(p)
    example = {kind: p.paths[kinds.index(kind)] for kind in (WHEELS, TANK, DRIVE) if kind in kinds}
    if len(example) > 1:
        said = ", ".join(f"{k}: e.g. {v}" for k, v in example.items())
        raise ValueError(f"the vehicles take different controls ({said}); an environment's vehicles share one action "
                         "space: make one environment per kind")
    return next(iter(example))


@dataclass(frozen=True)
class ActionLayout:
    """The columns of an action: which control each feeds, and the Box bounds."""

    kind: str
    names: tuple[str, ...]                 # one per column: "accelerator", ..., "driveTorque[2]", "targetGear"
    columns: dict[str, slice] = field(repr=False)  # control -> its columns (W of them for a per-wheel control)
    low: np.ndarray = field(repr=False)
    high: np.ndarray = field(repr=False)
    held: dict[str, float] = field(default_factory=dict)  # controls left out of the action, fed this value each step

    @property
    def gear(self) -> slice | None:
        return self.columns.get("targetGear")


def action_layout(p: SimParams, gear: bool = False, bounds: Mapping[str, tuple[float, float]] | None = None,
                  actions: str = "all") -> ActionLayout:
    """The action of the batch's vehicles. gear: add a target-gear column (a whole number: -1 reverse, 0 neutral,
    1.. forward; rounded to the nearest) to a drive's or a tank's controls; without it the gear command stays the
    authored one (often 255, the automatic gearbox). bounds: narrower bounds for some controls (e.g. the wheel
    torques, which the property table leaves unbounded), within the table's. actions: "all" the controls of the
    vehicles' kind (KIND_CONTROLS), or "drive" those of DRIVING, forward only, the brakes held released."""
    if actions not in ACTION_SETS:
        raise ValueError(f"actions must be one of {', '.join(map(repr, ACTION_SETS))} (got {actions!r})")
    kind = vehicle_kind(p)
    controls = list(KIND_CONTROLS[kind] if actions == "all" else DRIVING[kind])
    held = {name: 0.0 for name in KIND_CONTROLS[kind] if name not in controls}
    if gear:
        if kind == WHEELS:
            raise ValueError("vehicles without a drive have no gears: gear=True needs a drive")
        controls.append("targetGear")
    bounds = dict(bounds or {})
    unknown = set(bounds) - set(controls)
    if unknown:
        raise ValueError(f"bounds for controls these vehicles do not take: {sorted(unknown)}; they take {controls}")
    names, columns, low, high = [], {}, [], []
    for name in controls:
        lo, hi = control_range(name)
        if actions == "drive" and name in FORWARD:
            lo = max(lo, 0.0)
        if name == "targetGear":
            lo, hi = _gear_range(p, lo, hi)
        if name in bounds:
            want_lo, want_hi = (float(x) for x in bounds[name])
            if not (lo <= want_lo < want_hi <= hi):
                raise ValueError(f"bounds for {name} must lie within [{lo:g}, {hi:g}] and be increasing "
                                 f"(got {want_lo:g}, {want_hi:g})")
            lo, hi = want_lo, want_hi
        width = p.W if name in PER_WHEEL else 1
        columns[name] = slice(len(names), len(names) + width)
        names += [f"{name}[{w}]" for w in range(width)] if name in PER_WHEEL else [name]
        low += [lo] * width
        high += [hi] * width
    return ActionLayout(kind, tuple(names), columns, np.array(low, _F32), np.array(high, _F32), held)


def _gear_range(p: SimParams, lo: float, hi: float) -> tuple[float, float]:
    """The table's target gears (its upper end is open: [-1, 31) is -1 .. 30) that some vehicle has: reverse to the
    top forward gear of an engine drive (USD numbers: PhysX index - NEUTRAL_GEAR), reverse to forward for a direct
    drive."""
    top = np.where(p.is_standard, p.nb_gears - 1 - NEUTRAL_GEAR, 1)
    return max(lo, -1.0), min(float(math.ceil(hi) - 1), float(top.max()))


# -- observations
# Vectors are in the vehicle's own frame (forward, lateral, up: its longitudinal, lateral and vertical axes), SI.
VECTORS = ("linear_velocity", "angular_velocity", "goal_position", "goal_forward", "up")
SCALARS = ("engine_speed", "gear")
WHEEL_VALUES = ("wheel_speed", "longitudinal_slip", "lateral_slip", "jounce")


@dataclass(frozen=True)
class ObservationLayout:
    slices: dict[str, slice]   # group -> its columns
    names: tuple[str, ...]     # one per column
    low: np.ndarray = field(repr=False)
    high: np.ndarray = field(repr=False)


# float32 rounding of the rotation into the vehicle frame and of the conversion to SI units can carry these a few
# ulps past the bound they obey in the simulator's own frame and units
_ROUNDING = 1.0 + 16 * float(np.finfo(np.float32).eps)
_ROUNDED = ("linear_velocity", "angular_velocity", "jounce")


def observation_layout(p: SimParams, guard: GuardOptions | None) -> ObservationLayout:
    """guard: the simulator's guard options (None: no guard), whose limits bound chassis and wheel speeds."""
    W = p.W
    slices, names, at = {}, [], 0
    for group in VECTORS:
        names += [f"{group}.{axis}" for axis in ("forward", "lateral", "up")]
    names += SCALARS
    for group in WHEEL_VALUES:
        names += [f"{group}[{w}]" for w in range(W)]
    for group, width in [(v, 3) for v in VECTORS] + [(s, 1) for s in SCALARS] + [(w, W) for w in WHEEL_VALUES]:
        slices[group] = slice(at, at + width)
        at += width
    inf = math.inf
    bound: dict[str, tuple[float, float]] = {
        "goal_position": (-inf, inf),
        "goal_forward": (-1.0, 1.0),  # unit vectors
        "up": (-1.0, 1.0),
        "longitudinal_slip": (-inf, inf),  # a speed ratio over a small denominator
        "lateral_slip": (-math.pi / 2, math.pi / 2),  # atan(lateral / longitudinal speed)
    }
    speed = inf if guard is None else guard.max_speed  # m/s: the guard freezes a vehicle past it, at rest
    spin = inf if guard is None else guard.max_angular_speed
    wheel = inf if guard is None else guard.max_wheel_speed
    bound["linear_velocity"] = (-speed, speed)
    bound["angular_velocity"] = (-spin, spin)
    bound["wheel_speed"] = (-wheel, wheel)
    standard = p.is_standard
    # the engine runs between idle and its maximum speed; vehicles without an engine report 0
    bound["engine_speed"] = (0.0, float(np.max(np.where(standard, p.engine_max_omega, 0.0))))
    top = np.where(standard, p.nb_gears - 1 - NEUTRAL_GEAR, 0)
    bound["gear"] = (-1.0 if standard.any() else 0.0, float(top.max()))
    travel_m = np.where(p.mask, p.travel_distance / p.length_scale[:, None], 0.0)
    bound["jounce"] = (0.0, float(travel_m.max()))  # from 0 (fully extended) to the travel (fully compressed)
    low, high = np.empty(at), np.empty(at)
    for group, cols in slices.items():
        lo, hi = bound[group]
        if group in _ROUNDED:
            lo, hi = lo * _ROUNDING if lo < 0 else lo, hi * _ROUNDING
        low[cols], high[cols] = lo, hi
    return ObservationLayout(slices, tuple(names), low.astype(_F32), high.astype(_F32))
