"""Numerical safety: a vehicle whose state turns non-finite or runs away is flagged and frozen; the rest go on.

Every vehicle is independent in the kernels (no operation mixes two vehicles), so a NaN stays in the
vehicle that made it. `Guard` snapshots the state before a step, checks every vehicle after it and puts
each faulted vehicle back to its last good state, at rest, for good: it keeps being stepped with the
batch (a batch cannot drop rows) but its result is discarded every step, so its telemetry stays put.

Checks (per vehicle): any non-finite value in the body pose and velocities, engine speed, wheel speeds,
jounces; chassis speed above `max_speed` metres per second (scaled to stage lengths), chassis angular
speed above `max_angular_speed`, a wheel spinning faster than `max_wheel_speed` (rad/s).
"""
from __future__ import annotations

import ctypes
import dataclasses
import operator
from dataclasses import dataclass

import numpy as np

from . import vecmath as vm
from .extension import CopyTable, copy_all, copy_table, open_object_function
from .state import COMPONENT_FIRST, SimParams, SimState, output_vehicle_axis, vehicle_axis, vehicle_rows

# a non-finite jounce, force or slip reaches the body velocity (or the wheel speed) within the same substep
_CHECKED = ("body_position", "body_orientation", "linear_velocity", "angular_velocity", "engine_omega", "rotation_speed")
_AT_REST = ("linear_velocity", "angular_velocity", "rotation_speed", "corrected_rotation_speed", "jounce_speed")
_REASONS = ("non-finite state", "chassis speed", "chassis angular speed", "wheel speed")


def _getter(names: list[str]):
    """A function of the state returning the named attributes' values as a tuple (operator.attrgetter's, one or
    none too)."""
    get = operator.attrgetter(*names) if names else (lambda s: ())
    return get if len(names) != 1 else (lambda s: (get(s),))


_checked_values = _getter(list(_CHECKED))
# `_surely_healthy`'s test in C (sim/_guard.c): 1 within the bounds, 0 not, -1 numpy's to say
_ALL_WITHIN = open_object_function("pvu_all_within", [ctypes.py_object, ctypes.c_void_p, ctypes.c_int64])


@dataclass(frozen=True)
class GuardOptions:
    enabled: bool = True
    max_speed: float = 1000.0  # m/s, scaled by each vehicle's length scale
    max_angular_speed: float = 200.0  # rad/s
    max_wheel_speed: float = 10000.0  # rad/s


class Guard:
    """Snapshot before a step (`before`), check and freeze after it (`after`)."""

    def __init__(self, params: SimParams, options: GuardOptions = GuardOptions()):
        self.p = params
        self.options = options
        self.reasons: dict[int, str] = {}  # vehicle index -> why it was frozen
        self.steps = 0                     # steps checked so far
        self.frozen_at: dict[int, int] = {}  # vehicle index -> the step (1-based, of this guard) that froze it
        # the snapshot `before` takes: the held arrays and copies of the copied ones, in `_arrays`' orders (a dict
        # by name only where `after` freezes a vehicle: `_snapshot`)
        self._held: tuple = ()
        self._copies: list[np.ndarray] = []
        self._copy_table: CopyTable | None = None  # the copies' (sim/extension.py)
        self._arrays: tuple | None = None  # SimState's arrays: those held and those copied, with getters of each
        # `_surely_healthy`'s: where each array starts in its values, their bounds (and for the C call: as float64,
        # their address, whether the values are float64)
        self._limits: tuple | None = None
        self._out: dict[str, np.ndarray] = {}

    def before(self, s: SimState) -> None:
        # The kernels replace multi-dimensional state arrays instead of writing into them (end_step_physx
        # writes into the velocities it has just replaced; the compiled substeps write into a block of arrays no one
        # else holds, which this reference keeps from being taken again), so references snapshot those; the 1-D
        # per-vehicle arrays (autobox timers and flags are updated in place) are copied, which is cheap.
        if self._arrays is None:  # (SimState's arrays keep their names and shapes)
            arrays = [(f.name, getattr(s, f.name)) for f in dataclasses.fields(s)]
            arrays = [(name, value.ndim == 1) for name, value in arrays if isinstance(value, np.ndarray)]
            held = [name for name, flat in arrays if not flat]
            copied = [name for name, flat in arrays if flat]
            self._arrays = (held, _getter(held), copied, _getter(copied))
        _, held_values, _, copied_values = self._arrays
        self._held = held_values(s)
        values = copied_values(s)
        # the copies into the last step's (read by `after` alone: they never leave the guard), in one C call where
        # each value is of its copy's shape and type (extension.copy_all: the same bytes); else new copies
        if self._copy_table is None or copy_all(values, self._copy_table) != 0:
            self._copies = list(map(np.ndarray.copy, values))
            self._copy_table = copy_table(self._copies)
        self._out = s.out  # the step replaces this dict with new arrays, so a reference is a snapshot

    def _snapshot(self) -> dict[str, np.ndarray]:
        """The state `before` kept, by name."""
        if self._arrays is None:  # (no step begun)
            return {}
        held, _, copied, _ = self._arrays
        return {**dict(zip(held, self._held)), **dict(zip(copied, self._copies))}

    def _surely_healthy(self, s: SimState) -> bool:
        """A sufficient test that `faults` finds no vehicle, in a few whole-batch operations: every checked value
        finite and below 1e30 (so that no vehicle's sum of them overflows), the largest velocity component times
        1.75 (more than sqrt 3, with the norm's rounding) within the smallest speed limit, and so on. False says
        nothing: `faults` then measures vehicle by vehicle."""
        checked = _checked_values(s)
        limits = self._limits
        if limits is not None and _ALL_WITHIN is not None:  # in one C call where the arrays are of the bounds' type
            within = _ALL_WITHIN(checked, limits[4], limits[5])
            if within >= 0:
                return bool(within)
        values = np.abs(np.concatenate(checked, axis=None))  # (axis None: each flattened)
        if limits is None or limits[1].dtype != values.dtype:
            p, o = self.p, self.options
            sizes = [getattr(s, name).size for name in _CHECKED]
            # each value within 1e30, the velocities' within their limits; each bound rounded to the values' type, as
            # comparing them with a Python float does (numpy's weak scalars)
            bounds = [1e30] * len(_CHECKED)
            for name, limit in (("linear_velocity", float(np.min(o.max_speed * p.length_scale, initial=np.inf)) / 1.75),
                                ("angular_velocity", o.max_angular_speed / 1.75),
                                ("rotation_speed", o.max_wheel_speed)):
                bounds[_CHECKED.index(name)] = min(values.dtype.type(1e30), values.dtype.type(limit))
            starts = np.cumsum([0] + sizes[:-1])
            bounds = np.array(bounds, values.dtype)
            wide = bounds.astype(np.float64)  # (for the C call: exact, float32's or float64's, and its address)
            limits = self._limits = (starts, bounds, min(sizes) > 0, wide, wide.ctypes.data,
                                     bounds.dtype == np.float64)
        starts, bounds, sized = limits[:3]
        if not sized:  # (an empty array: reduceat's segments would not be its values)
            return False
        # each array's largest |value| (a NaN is the largest) within its bound
        return bool((np.maximum.reduceat(values, starts) <= bounds).all())

    def faults(self, s: SimState) -> np.ndarray:
        """Reason index per vehicle (-1: healthy), in `_REASONS` order of precedence."""
        p, o = self.p, self.options
        # NaN and inf survive addition (inf - inf is NaN), so one finiteness test of a per-vehicle sum covers all
        total = np.zeros(p.V, dtype=s.engine_omega.dtype)
        for name in _CHECKED:
            a = getattr(s, name)
            if name in COMPONENT_FIRST:
                for c in a:
                    total += c
            elif a.ndim == 2:
                total += vm.sum_wheels(a)
            else:
                total += a
        finite = np.isfinite(total)
        speed = vm.norm(s.linear_velocity)
        spin = vm.norm(s.angular_velocity)
        wheel = np.abs(s.rotation_speed[:, 0])
        for w in range(1, p.W):  # column maxima: a reduce over the 4-long wheel axis is slow
            wheel = np.maximum(wheel, np.abs(s.rotation_speed[:, w]))
        reason = np.full(p.V, -1)
        for k, bad in reversed(list(enumerate((~finite, ~(speed <= o.max_speed * p.length_scale),
                                               ~(spin <= o.max_angular_speed), ~(wheel <= o.max_wheel_speed))))):
            reason = np.where(bad, k, reason)
        return reason

    def after(self, s: SimState) -> None:
        self.steps += 1
        if self._surely_healthy(s) and not np.count_nonzero(s.faulted):  # (count_nonzero: a fraction of any()'s time)
            return
        reason = self.faults(s)
        new = (reason >= 0) & ~s.faulted
        for v in np.nonzero(new)[0]:
            self.reasons[int(v)] = _REASONS[reason[v]]
            self.frozen_at[int(v)] = self.steps
        frozen = s.faulted | new
        if not frozen.any():
            return
        rows = np.nonzero(frozen)[0]
        for name, old in self._snapshot().items():
            if name == "faulted":
                continue
            current = getattr(s, name)
            idx = vehicle_rows(vehicle_axis(name), rows)
            value = old[idx]
            if name in _AT_REST:
                value = np.zeros_like(value)
            elif value.dtype.kind == "f":
                value = np.nan_to_num(value, nan=0.0, posinf=0.0, neginf=0.0)
            current[idx] = value
        for key, value in s.out.items():
            old = self._out.get(key)
            idx = vehicle_rows(output_vehicle_axis(value), rows)
            # no earlier output to keep (frozen on the first step): at rest, nothing measured
            value[idx] = 0 if old is None or old.shape != value.shape else old[idx]
        s.faulted = frozen
