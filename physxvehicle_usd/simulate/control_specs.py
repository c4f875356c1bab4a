"""Controls given on the command line: `NAME=VALUE` (held for the whole run) or `NAME=A:B` (a linear ramp from A at
the first step to B at the last), turned into the per-step arrays `run(controls=...)` takes."""
from __future__ import annotations

import math
from typing import Iterable

import numpy as np

from .. import properties as P
from ..errors import InputError

# The Simulator's control names (sim/simulator.py): per vehicle, then per wheel (broadcast to every wheel).
VEHICLE_CONTROLS = ("accelerator", "brake0", "brake1", "steer", "thrust0", "thrust1", "targetGear")
WHEEL_CONTROLS = ("driveTorque", "brakeTorque", "steerAngle")
KNOWN = VEHICLE_CONTROLS + WHEEL_CONTROLS

# Each kind of vehicle takes its own controls: a drive (engine or direct) through the vehicle controller, a tank
# through the tank controller too, a vehicle without a drive through each wheel's controller. A drive and a tank
# also take a target gear.
DRIVE, TANK, WHEELS = "drive", "tank", "wheels"
KIND_CONTROLS = {
    DRIVE: ("accelerator", "brake0", "brake1", "steer"),
    TANK: ("accelerator", "brake0", "brake1", "thrust0", "thrust1"),
    WHEELS: ("driveTorque", "brakeTorque", "steerAngle"),
}
KIND_NAMES = {DRIVE: "a vehicle with a drive", TANK: "a tank", WHEELS: "a vehicle without a drive (wheel controllers)"}

# The controller attribute (schema, base name) that carries each control: the vehicle controller's, the tank
# controller's, each wheel controller's, in that order (drive cycles read them; the Gymnasium action bounds are their
# ranges in the property table)
CONTROL_PROPERTIES: dict[str, tuple[str, str]] = {
    **{name: (P.CONTROLLER, name) for name in ("accelerator", "brake0", "brake1", "steer", "targetGear")},
    **{name: (P.TANK_CONTROLLER, name) for name in ("thrust0", "thrust1")},
    **{name: (P.WHEEL_CONTROLLER, name) for name in WHEEL_CONTROLS},
}


def _number(name: str, text: str, spec: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"--control {spec}: {text!r} is not a number") from None
    if not math.isfinite(value):
        raise InputError(f"--control {spec}: {name} must be a finite number (got {text})")
    return value


def parse_control(spec: str, steps: int) -> tuple[str, np.ndarray]:
    """One `NAME=VALUE` or `NAME=A:B` -> (name, one value per step)."""
    name, sep, value = spec.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name or not value:
        raise InputError(f"--control {spec}: expected NAME=VALUE or NAME=START:END (e.g. accelerator=1, steer=0:0.3)")
    if name not in KNOWN:
        raise InputError(f"--control {spec}: unknown control {name!r}; known: {', '.join(KNOWN)}")
    start_text, ramp, end_text = value.partition(":")
    start = _number(name, start_text, spec)
    end = _number(name, end_text, spec) if ramp else start
    _check_range(name, spec, (start, end))
    if name == "targetGear":
        if ramp:
            raise InputError(f"--control {spec}: targetGear is a gear, held (e.g. targetGear=1), not a ramp")
        if start != int(start):
            raise InputError(f"--control {spec}: targetGear must be a whole number (-1 reverse, 0 neutral, "
                             "1.. forward, 255 automatic)")
        return name, np.full(steps, int(start), dtype=np.int64)
    return name, np.linspace(start, end, steps) if ramp else np.full(steps, start)


def _check_range(name: str, spec: str, values: tuple[float, ...]) -> None:
    """The range and message the reader gives the controller attribute authored in a stage (a ramp's values lie
    between its ends)."""
    prop = P.prop(*CONTROL_PROPERTIES[name])
    for value in values:
        why = P.out_of_range(prop, value)
        if why is not None:
            raise InputError(f"--control {spec}: {why} ({prop.range_code}, as for "
                             f"{P.full_name(prop.schema, prop.base)} authored in a stage)")


def taken_controls(kind: str) -> tuple[str, ...]:
    """What a vehicle of this kind (DRIVE, TANK, WHEELS) takes: its controls, and a target gear where it has gears."""
    return KIND_CONTROLS[kind] + (("targetGear",) if kind != WHEELS else ())


def vehicle_kinds(params) -> list[str]:
    """The kind of each vehicle of a batch (sim.state.SimParams): DRIVE, TANK or WHEELS."""
    return [WHEELS if raw else TANK if tank else DRIVE for raw, tank in zip(params.is_raw, params.is_tank)]


def check_vehicle_controls(names: Iterable[str], paths: Iterable[str], kinds: Iterable[str]) -> None:
    """InputError for the first vehicle given a control it has no use for (accelerator on a vehicle without a drive,
    thrust0 on a car): naming the vehicle and what it takes, since the control would do nothing."""
    names = list(names)
    for path, kind in zip(paths, kinds):
        takes = taken_controls(kind)
        unused = [name for name in names if name not in takes]
        if unused:
            raise InputError(f"--control {', '.join(unused)}: {path} is {KIND_NAMES[kind]} and has no use for "
                             f"{'it' if len(unused) == 1 else 'them'}; it takes {', '.join(takes)}")


def controls_from_specs(specs: Iterable[str], steps: int) -> dict[str, np.ndarray]:
    """Every `--control`; a name given twice is refused (which one would win is not obvious)."""
    controls: dict[str, np.ndarray] = {}
    for spec in specs:
        name, rows = parse_control(spec, steps)
        if name in controls:
            raise InputError(f"--control {spec}: {name} is given twice")
        controls[name] = rows
    return controls
