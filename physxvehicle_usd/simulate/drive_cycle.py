"""Drive cycles: the time samples a stage authors on its controller attributes, as per-step controls."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from pxr import Usd

from .. import properties as P
from ..description import Block, Source, StageDescription
from ..json_values import canonical_value
from ..stage.values import time_samples
from .control_specs import CONTROL_PROPERTIES


@dataclass
class _Channel:
    """One time-sampled controller attribute feeding one control of one vehicle (or wheel)."""

    control: str
    vehicle: int
    wheel: int | None
    times: np.ndarray
    values: np.ndarray
    held: bool
    prim: str = ""       # where the attribute is
    attribute: str = ""  # its full name
    sign: float = 1.0  # deprecated steerRight counts negatively into steer
    deprecated: bool = False  # from a deprecated attribute: steerLeft and steerRight add up


@dataclass
class DriveCycle:
    """Controller attributes with time samples, sampled at the stage time of each step.

    `base` holds every vehicle's constant value of each control that has at least one channel, so that
    setting a whole control array never disturbs the vehicles without time samples.
    """

    channels: list[_Channel]
    base: dict[str, np.ndarray]
    start_time_code: float
    time_codes_per_second: float

    @property
    def empty(self) -> bool:
        return not self.channels

    def time_codes(self, steps: int, dt: float) -> np.ndarray:
        return self.start_time_code + np.arange(steps) * dt * self.time_codes_per_second

    def sample(self, steps: int, dt: float) -> dict[str, np.ndarray]:
        """Controls for every step: {name: (steps, V) or (steps, V, W)}."""
        t = self.time_codes(steps, dt)
        table = {name: np.repeat(base[None], steps, axis=0) for name, base in self.base.items()}
        summed: set[tuple[str, int]] = set()
        for ch in self.channels:
            if ch.held:
                idx = np.clip(np.searchsorted(ch.times, t, side="right") - 1, 0, len(ch.times) - 1)
                values = ch.values[idx]
            else:
                values = np.interp(t, ch.times, ch.values)  # USD holds the end values outside the samples too
            column = table[ch.control][:, ch.vehicle] if ch.wheel is None else table[ch.control][:, ch.vehicle, ch.wheel]
            if ch.deprecated and ch.control == "steer":
                # steerLeft - steerRight: the first of the pair replaces the constant, the second adds
                key = (ch.control, ch.vehicle)
                if key in summed:
                    column += ch.sign * values
                else:
                    summed.add(key)
                    column[:] = ch.sign * values
            else:
                column[:] = values
        return table


_VEHICLE_CONTROL_ATTRS = tuple((schema, base, control) for control, (schema, base) in CONTROL_PROPERTIES.items()
                               if schema == P.CONTROLLER)
# with their full names, looked up once
_VEHICLE_CONTROL_NAMES = tuple((schema, base, control, P.full_name(schema, base))
                               for schema, base, control in _VEHICLE_CONTROL_ATTRS)
_TANK_CONTROL_ATTRS = tuple((schema, base, control) for control, (schema, base) in CONTROL_PROPERTIES.items()
                            if schema == P.TANK_CONTROLLER)
# deprecated controller attribute -> (control, sign); used only where the reader took the value from it
_DEPRECATED_CONTROLS = {"brake": ("brake0", 1.0), "handbrake": ("brake1", 1.0),
                        "steerLeft": ("steer", 1.0), "steerRight": ("steer", -1.0)}
_WHEEL_CONTROL_ATTRS = tuple((base, control) for control, (schema, base) in CONTROL_PROPERTIES.items()
                             if schema == P.WHEEL_CONTROLLER)
_DEFAULT_TARGET_GEAR = 255


@lru_cache(maxsize=None)
def _fallback(schema: str, base: str):
    """A controller attribute's schema fallback, looked up once (a number, safe to share): the registry's answer
    cost more than reading the attribute, for every attribute of every vehicle the validator checks (A08)."""
    return P.schema_fallback(schema, base)


_full_name = lru_cache(maxsize=None)(P.full_name)
# unbound: asked of every controller attribute of every vehicle (50,000 of a 10,000-car fleet), of prims the stage
# gave for the simulated vehicles' paths (a method of the prim's class skips pxr's per-call validity check)
_get_attribute = Usd.Prim.GetAttribute
_get_time_samples = Usd.Attribute.GetTimeSamples


def _samples(prim: Usd.Prim, schema: str, base: str, name: str | None = None
             ) -> tuple[np.ndarray, np.ndarray, str, str] | None:
    """(times, values, prim path, attribute name) of a controller attribute with one time sample or more (name: the
    attribute's full name, where the caller has it)."""
    name = _full_name(schema, base) if name is None else name
    attr = _get_attribute(prim, name)
    if not attr or not _get_time_samples(attr):  # most have none: time_samples would say None
        return None
    found = time_samples(attr, _fallback(schema, base))
    return None if found is None else (*found, str(prim.GetPath()), name)


def _control_value(block: Block | None, name: str, absent: float) -> float:
    """A controller's resolved value at the precision the simulator takes it (absent: the command state at rest)."""
    value = None if block is None else block.get(name)
    return absent if value is None else float(canonical_value(value))


def drive_cycle(stage: Usd.Stage, description: StageDescription, paths: Sequence[str],
                wheel_paths: Sequence[Sequence[str]]) -> DriveCycle:
    """Find the time-sampled controller attributes of the simulated vehicles and wheels."""
    held_all = stage.GetInterpolationType() == Usd.InterpolationTypeHeld
    n_vehicles = len(paths)
    n_wheels = max((len(w) for w in wheel_paths), default=0)
    channels: list[_Channel] = []
    for v, path in enumerate(paths):
        prim = stage.GetPrimAtPath(path)
        if not prim:
            continue
        vehicle = description.vehicles[path]
        model_controller = vehicle.controller
        if model_controller is not None:
            sources = model_controller.values  # asked for each control of every vehicle: no method call each
            for schema, base, control, name in _VEHICLE_CONTROL_NAMES:
                item = sources.get(control)
                if item is not None and item.source == Source.DEPRECATED:
                    continue  # the reader took this control from deprecated attributes; sampled below
                found = _samples(prim, schema, base, name)
                if found:
                    channels.append(_Channel(control, v, None, *found[:2], held=held_all or control == "targetGear",
                                             prim=found[2], attribute=found[3]))
            deprecated = {}
            for base, (control, sign) in _DEPRECATED_CONTROLS.items():
                item = sources.get(control)
                if item is not None and item.source == Source.DEPRECATED:
                    attr = prim.GetAttribute(P.full_name(P.CONTROLLER, base))
                    deprecated[base] = (control, sign, attr, _samples(prim, P.CONTROLLER, base))
            if any(found for *_, found in deprecated.values()):
                for base, (control, sign, attr, found) in deprecated.items():
                    if found is None and control == "steer":  # steer = steerLeft - steerRight: both take part
                        found = (np.zeros(1), np.array([float(attr.Get() or 0.0) if attr else 0.0]), str(prim.GetPath()),
                                 P.full_name(P.CONTROLLER, base))
                    if found is not None:
                        channels.append(_Channel(control, v, None, *found[:2], held=held_all, sign=sign,
                                                 deprecated=True, prim=found[2], attribute=found[3]))
        if vehicle.tankController is not None:
            for schema, base, control in _TANK_CONTROL_ATTRS:
                found = _samples(prim, schema, base)
                if found:
                    channels.append(_Channel(control, v, None, *found[:2], held=held_all, prim=found[2],
                                             attribute=found[3]))
        for w, wheel_path in enumerate(wheel_paths[v]):
            wheel = vehicle.wheels[w]
            if wheel.wheelController is None:
                continue
            wheel_prim = stage.GetPrimAtPath(wheel_path)
            for base, control in _WHEEL_CONTROL_ATTRS:
                found = _samples(wheel_prim, P.WHEEL_CONTROLLER, base)
                if found:
                    channels.append(_Channel(control, v, w, *found[:2], held=held_all, prim=found[2],
                                             attribute=found[3]))
    base: dict[str, np.ndarray] = {}
    for name in {ch.control for ch in channels}:
        if name in ("driveTorque", "brakeTorque", "steerAngle"):
            arr = np.zeros((n_vehicles, n_wheels))
            for v, path in enumerate(paths):
                for w, wheel in enumerate(description.vehicles[path].wheels):
                    arr[v, w] = _control_value(wheel.wheelController, name, 0.0)
        else:
            default = _DEFAULT_TARGET_GEAR if name == "targetGear" else 0.0
            block = "tankController" if name in ("thrust0", "thrust1") else "controller"
            arr = np.array([_control_value(getattr(description.vehicles[p], block), name, default) for p in paths])
        base[name] = arr
    start = stage.GetStartTimeCode() if stage.HasAuthoredMetadata("startTimeCode") else 0.0
    return DriveCycle(channels, base, float(start), float(stage.GetTimeCodesPerSecond()))
