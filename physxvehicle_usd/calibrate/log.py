"""Measured driving: a telemetry log read, checked and resampled to the simulation's steps.

Two layouts:
  * the `simulate --trace` JSON (also what `oracle.run_ovphysx` returns, written as JSON): {"dt", "steps",
    "vehicles" | "bodies": {vehicle path: {attribute: [...]}}, "wheels": {wheel path: {...}}}; sample i is the state
    after step i + 1 (or after step recorded_steps[i] where the trace lists them), at t = that step x dt;
  * a CSV file whose header names each column and its unit, `name [unit]`: `time [s]` and any of the signals
    below, with `_<i>` for wheel i (the vehicle's wheel order: `wheel_speed_0 [rad/s]`, `jounce_2 [mm]`), and
    optionally control columns (accelerator, brake0, brake1, steer, thrust0, thrust1, targetGear) without a unit or
    with `[1]`. Time is seconds since the simulation's start.

Resampling: the simulation records after every step, at t_k = (k + 1) dt; each signal is interpolated linearly
between the log's samples onto those times (the gear and targetGear take the last sample at or before t_k: they are
steps, not ramps), over the steps the log covers. Controls apply during step k, from t = k dt.

A bad log (no time column, a column or unit not known, times not increasing, a value that is not a finite number,
nothing to compare) is one InputError naming the file and the column.
"""
from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import InputError
from ..simulate.control_specs import VEHICLE_CONTROLS

# unit -> (quantity, factor to SI)
UNITS: dict[str, tuple[str, float]] = {
    "s": ("time", 1.0), "ms": ("time", 1e-3),
    "m": ("length", 1.0), "cm": ("length", 0.01), "mm": ("length", 1e-3), "km": ("length", 1e3), "ft": ("length", 0.3048),
    "m/s": ("speed", 1.0), "km/h": ("speed", 1 / 3.6), "mph": ("speed", 0.44704), "ft/s": ("speed", 0.3048),
    "rad/s": ("angular speed", 1.0), "deg/s": ("angular speed", math.pi / 180), "rpm": ("angular speed", math.pi / 30),
    "1": ("number", 1.0), "": ("number", 1.0),
}


@dataclass(frozen=True)
class SignalKind:
    """A telemetry quantity a log may carry: its SI unit, what it is and how to read it from the simulator's
    telemetry (arrays with the vehicles, or the trace's samples, first)."""

    quantity: str
    unit: str
    what: str
    read: Callable[[dict, int | None, dict], np.ndarray]
    per_wheel: bool = False
    smooth: bool = True  # False: a step function (fitting ignores it; the report still compares it)


def _speed(t: dict, wheel: int | None, c: dict) -> np.ndarray:
    return np.linalg.norm(np.asarray(t["bodies"]["linearVelocity"], dtype=float), axis=-1) * c["mpu"]


def _position(axis: int) -> Callable[[dict, int | None, dict], np.ndarray]:
    return lambda t, wheel, c: np.asarray(t["bodies"]["position"], dtype=float)[..., axis] * c["mpu"]


SIGNALS: dict[str, SignalKind] = {
    "speed": SignalKind("speed", "m/s", "the chassis speed |v| (centre of mass)", _speed),
    "x": SignalKind("length", "m", "the vehicle prim's world x", _position(0)),
    "y": SignalKind("length", "m", "the vehicle prim's world y", _position(1)),
    "z": SignalKind("length", "m", "the vehicle prim's world z", _position(2)),
    "yaw_rate": SignalKind("angular speed", "rad/s", "the chassis angular speed about the stage's up axis",
                           lambda t, w, c: np.asarray(t["bodies"]["angularVelocity"], dtype=float)[..., c["up"]]),
    "engine_speed": SignalKind("angular speed", "rad/s", "the engine's rotation speed",
                               lambda t, w, c: np.asarray(t["vehicles"]["engineRotationSpeed"], dtype=float)),
    "gear": SignalKind("number", "1", "the current gear (-1 reverse, 0 neutral, 1.. forward)",
                       lambda t, w, c: np.asarray(t["vehicles"]["currentGear"], dtype=float), smooth=False),
    "wheel_speed": SignalKind("angular speed", "rad/s", "a wheel's rotation speed about its axle",
                              lambda t, w, c: np.asarray(t["wheels"]["rotationSpeed"], dtype=float)[..., w],
                              per_wheel=True),
    "jounce": SignalKind("length", "m", "a suspension's jounce (0 at full droop)",
                         lambda t, w, c: np.asarray(t["wheels"]["suspensionJounce"], dtype=float)[..., w] * c["mpu"],
                         per_wheel=True),
}
# the trace attributes each signal needs: (kind, attribute)
_TRACE_NEEDS = {"speed": ("bodies", "linearVelocity"), "x": ("bodies", "position"), "y": ("bodies", "position"),
                "yaw_rate": ("bodies", "angularVelocity"), "engine_speed": ("vehicles", "engineRotationSpeed"),
                "gear": ("vehicles", "currentGear"), "wheel_speed": ("wheels", "rotationSpeed"),
                "jounce": ("wheels", "suspensionJounce")}
_HEADER = re.compile(r"\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*?)(?:_(?P<wheel>\d+))?\s*(?:\[(?P<unit>[^\]]*)\])?\s*")


@dataclass
class Signal:
    """One compared signal: its kind, its wheel (per-wheel kinds), the log's values at the simulation's samples (SI)
    and the noise scale that weights its residual."""

    kind: str
    wheel: int | None
    values: np.ndarray
    noise: float = 1.0
    column: str = ""

    @property
    def name(self) -> str:
        return self.kind if self.wheel is None else f"{self.kind}_{self.wheel}"


@dataclass
class Log:
    file: str
    dt: float
    steps: int                 # the simulation runs this many steps
    compared: np.ndarray       # (steps,) bool: the samples inside the log's time span
    signals: list[Signal]
    controls: dict[str, np.ndarray] = field(default_factory=dict)  # the log's control columns, per step
    resampling: str = ""
    trace_view: dict | None = None         # a trace's own samples (with_up_axis reads the yaw rate again)
    trace_times: np.ndarray | None = None

    def cut(self, steps: int) -> "Log":
        """The first `steps` steps of this log (a shorter log of the same drive)."""
        return Log(self.file, self.dt, steps, self.compared[:steps],
                   [Signal(s.kind, s.wheel, s.values[:steps], s.noise, s.column) for s in self.signals],
                   {k: v[:steps] for k, v in self.controls.items()}, self.resampling, self.trace_view,
                   self.trace_times)


# the finest a measurement resolves, by quantity (SI): the least noise scale a signal gets
RESOLUTION = {"speed": 1e-3, "length": 1e-4, "angular speed": 1e-4, "number": 1e-3, "time": 1e-6}


def noise_scale(values: np.ndarray, quantity: str = "number") -> float:
    """A signal's noise standard deviation, from its second differences (robust: 1.4826 x their median absolute
    deviation / sqrt(6), which white noise gives); at least 1e-3 of its range and the quantity's RESOLUTION, so that
    neither a noise-free log nor a signal that stays at zero (the lateral position of a straight drive) weighs a
    signal's rounding errors as information."""
    v = np.asarray(values, dtype=float)
    spread = float(np.ptp(v)) if v.size else 0.0
    floor = max(1e-3 * spread, RESOLUTION[quantity])
    if v.size < 5:
        return max(spread, floor)
    d2 = v[:-2] - 2 * v[1:-1] + v[2:]
    sigma = 1.4826 * float(np.median(np.abs(d2 - np.median(d2)))) / math.sqrt(6.0)
    return max(sigma, floor)


def _fail(file: str, message: str, column: str | None = None) -> InputError:
    return InputError(message + (f" (column {column!r})" if column else ""), file=file)


def _resampled(file: str, times: np.ndarray, dt: float) -> tuple[int, np.ndarray, np.ndarray]:
    """(steps, sample times t_k = (k+1) dt, which of them the log covers)."""
    if times.size < 2:
        raise _fail(file, "the log needs at least two samples")
    if not np.all(np.isfinite(times)):
        raise _fail(file, "a time is not a finite number", "time")
    if np.any(np.diff(times) <= 0):
        at = int(np.flatnonzero(np.diff(times) <= 0)[0]) + 1
        raise _fail(file, f"times must increase from sample to sample: sample {at} ({times[at]:g} s) does not", "time")
    steps = int(math.floor(times[-1] / dt + 1e-9))
    if steps < 2:
        raise _fail(file, f"the log ends at {times[-1]:g} s, before the simulation's second step of {dt:g} s")
    t = (np.arange(steps) + 1) * dt
    return steps, t, (t >= times[0] - 1e-9) & (t <= times[-1] + 1e-9)


def _interpolate(times: np.ndarray, values: np.ndarray, at: np.ndarray, smooth: bool) -> np.ndarray:
    if smooth:
        return np.interp(at, times, values)
    index = np.clip(np.searchsorted(times, at + 1e-9, side="right") - 1, 0, len(times) - 1)
    return values[index]


def read_csv(path: str, dt: float, nb_wheels: int) -> Log:
    """A CSV log (see the module's docstring)."""
    try:
        with open(path, newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot be read: {exc}", file=path) from None
    rows = [r for r in rows if r and any(cell.strip() for cell in r)]
    if len(rows) < 3:
        raise _fail(path, "a CSV log needs a header and at least two rows of samples")
    header, body = rows[0], rows[1:]
    columns: list[tuple[str, int | None, str, float, str]] = []  # (name, wheel, unit, factor, header text)
    for text in header:
        m = _HEADER.fullmatch(text)
        if m is None:
            raise _fail(path, "a header cell must read `name [unit]`", text)
        name, wheel, unit = m["name"], m["wheel"], (m["unit"] or "").strip()
        if name not in SIGNALS and name not in VEHICLE_CONTROLS and name != "time":
            name, wheel = (f"{name}_{wheel}", None) if wheel is not None else (name, None)
            known = ", ".join(["time", *SIGNALS, *VEHICLE_CONTROLS])
            raise _fail(path, f"unknown column {name!r}; known: {known} (per wheel: wheel_speed_<i>, jounce_<i>)", text)
        if unit not in UNITS:
            raise _fail(path, f"unknown unit [{unit}]; known: {', '.join(u for u in UNITS if u)}", text)
        quantity, factor = UNITS[unit]
        want = "time" if name == "time" else SIGNALS[name].quantity if name in SIGNALS else "number"
        if quantity != want:
            raise _fail(path, f"[{unit}] is a {quantity}, but {name} is a {want}", text)
        if name in SIGNALS and SIGNALS[name].per_wheel != (wheel is not None):
            raise _fail(path, f"{name} is per wheel: name the wheel, {name}_0 .. {name}_{nb_wheels - 1}"
                        if SIGNALS[name].per_wheel else f"{name} is not per wheel", text)
        if wheel is not None and int(wheel) >= nb_wheels:
            raise _fail(path, f"the vehicle has {nb_wheels} wheels (0 .. {nb_wheels - 1})", text)
        columns.append((name, None if wheel is None else int(wheel), unit, factor, text.strip()))
    if not any(c[0] == "time" for c in columns):
        raise _fail(path, "no time column: the first header cell is usually `time [s]`")
    data = np.empty((len(body), len(columns)))
    for i, row in enumerate(body):
        if len(row) != len(columns):
            raise _fail(path, f"row {i + 2} has {len(row)} cells, the header {len(columns)}")
        for j, cell in enumerate(row):
            try:
                data[i, j] = float(cell)
            except ValueError:
                raise _fail(path, f"row {i + 2}: {cell!r} is not a number", columns[j][4]) from None
            if not math.isfinite(data[i, j]):
                raise _fail(path, f"row {i + 2}: {cell.strip()} is not a finite number", columns[j][4])
    time_col = next(j for j, c in enumerate(columns) if c[0] == "time")
    times = data[:, time_col] * columns[time_col][3]
    steps, t, compared = _resampled(path, times, dt)
    signals, controls = [], {}
    for j, (name, wheel, _, factor, text) in enumerate(columns):
        if name == "time":
            continue
        if name in SIGNALS:
            values = _interpolate(times, data[:, j] * factor, t, SIGNALS[name].smooth)
            signals.append(Signal(name, wheel, values, column=text))
        else:  # a control applies during step k, from k dt
            controls[name] = _interpolate(times, data[:, j], t - dt, name != "targetGear")
    return _checked(Log(path, dt, steps, compared, signals, controls, _RESAMPLING))


_RESAMPLING = ("linear interpolation of each signal onto the simulation's samples t_k = (k+1) dt (the gear: the last "
               "sample at or before t_k)")


def read_trace(path: str, dt: float, vehicle: str, wheel_paths: Sequence[str], meters_per_unit: float) -> Log:
    """A `simulate --trace` JSON log of the vehicle at `vehicle` (or the trace's one vehicle); lengths in the stage
    units of the trace's stage (`meters_per_unit`)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot be read: {exc}", file=path) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc}", file=path) from None
    if not isinstance(data, dict) or not isinstance(data.get("dt"), (int, float)) or not isinstance(data.get("bodies"), dict):
        raise _fail(path, "not a trace: expected the `simulate --trace` layout {\"dt\", \"steps\", \"vehicles\", "
                    "\"wheels\", \"bodies\"}")
    bodies = data["bodies"]
    path_in_trace = vehicle if vehicle in bodies else (next(iter(bodies)) if len(bodies) == 1 else None)
    if path_in_trace is None:
        raise _fail(path, f"the trace has no vehicle {vehicle} (it has {', '.join(sorted(bodies)) or 'none'})")
    view: dict[str, dict[str, Any]] = {"bodies": bodies[path_in_trace],
                                       "vehicles": data.get("vehicles", {}).get(path_in_trace, {}), "wheels": {}}
    wheels = data.get("wheels", {})
    for name in ("rotationSpeed", "suspensionJounce"):
        if all(w in wheels and name in wheels[w] for w in wheel_paths):
            view["wheels"][name] = np.stack([np.asarray(wheels[w][name], dtype=float) for w in wheel_paths], axis=-1)
    lengths = {len(v) for part in view.values() for v in part.values()}
    if len(lengths) > 1:
        raise _fail(path, f"the trace's attributes have different lengths ({sorted(lengths)})")
    count = lengths.pop() if lengths else 0
    trace_dt = float(data["dt"])
    recorded = np.asarray(data.get("recorded_steps", np.arange(1, count + 1)), dtype=float)
    times = recorded * trace_dt
    steps, t, compared = _resampled(path, times, dt)
    context = {"mpu": meters_per_unit, "up": 2}  # yaw: the caller sets the stage's up axis (see `with_up_axis`)
    signals = []
    for kind, (part, attribute) in _TRACE_NEEDS.items():
        if attribute not in view[part]:
            continue
        for wheel in (range(len(wheel_paths)) if SIGNALS[kind].per_wheel else (None,)):
            try:
                raw = SIGNALS[kind].read(view, wheel, context)
            except (ValueError, IndexError, TypeError):
                raise _fail(path, f"{part} {attribute} of {path_in_trace} is not a list of numbers") from None
            if raw.shape != (count,):
                raise _fail(path, f"{part} {attribute} of {path_in_trace} has the wrong shape {raw.shape}")
            if not np.all(np.isfinite(raw)):
                raise _fail(path, f"{part} {attribute} of {path_in_trace} has a value that is not a finite number")
            signals.append(Signal(kind, wheel, _interpolate(times, raw, t, SIGNALS[kind].smooth),
                                  column=f"{part}/{attribute}"))
    log = _checked(Log(path, dt, steps, compared, signals, {}, _RESAMPLING))
    log.trace_view, log.trace_times = view, times  # kept for the yaw rate about another up axis
    return log


def with_up_axis(log: Log, up: int) -> Log:
    """A trace log's yaw rate about the stage's up axis (read_trace reads it about z)."""
    view = log.trace_view
    if view is None or up == 2:
        return log
    for s in log.signals:
        if s.kind == "yaw_rate":
            raw = SIGNALS["yaw_rate"].read(view, None, {"up": up, "mpu": 1.0})
            s.values = np.interp((np.arange(log.steps) + 1) * log.dt, log.trace_times, raw)
            s.noise = noise_scale(s.values[log.compared], SIGNALS[s.kind].quantity)
    return log


def _checked(log: Log) -> Log:
    if not log.signals:
        raise _fail(log.file, "the log has no signal to compare (" + ", ".join(SIGNALS) + ")")
    if not log.compared.any():
        raise _fail(log.file, "no simulation step falls inside the log's time span")
    for s in log.signals:
        s.noise = noise_scale(s.values[log.compared], SIGNALS[s.kind].quantity)
    return log


def read_log(path: str, dt: float, vehicle: str, wheel_paths: Sequence[str], meters_per_unit: float, up: int) -> Log:
    """A log, by its suffix: .json a trace, .csv a CSV file."""
    p = Path(path)
    if not p.is_file():
        raise InputError("no such file", file=path)
    if p.suffix.lower() == ".json":
        return with_up_axis(read_trace(path, dt, vehicle, wheel_paths, meters_per_unit), up)
    if p.suffix.lower() == ".csv":
        return read_csv(path, dt, len(wheel_paths))
    raise InputError(f"a log is a .csv file or a `simulate --trace` .json file (got {p.suffix or 'no suffix'})", file=path)
