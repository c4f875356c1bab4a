"""Simulate the vehicles of a stage: read it, build the numpy simulator, drive it, collect what was asked for.

    from physxvehicle_usd import simulate
    result = simulate.run("samples/car/car.usda", steps=300, dt=1 / 60)          # the stage's own controls
    result = simulate.run(stage, 300, 1 / 60, controls={"accelerator": np.linspace(0, 1, 300)})
    result = simulate.run(stage, 300, 1 / 60, controls=lambda step, sim: {"steer": policy(sim.telemetry())})
    result.trace        # {"dt", "steps", "vehicles": {path: {attr: [...]}}, "wheels": {...}, "bodies": {...}}

Where the controls come from, in the order they are applied before each step (later wins):
1. the controller attributes authored in the stage (PhysxVehicleControllerAPI, PhysxVehicleTankControllerAPI,
   PhysxVehicleWheelControllerAPI): their values set the simulator's initial commands;
2. time samples on those attributes (a drive cycle): step i (counting from 0) uses the value at stage time
   startTimeCode + i * dt * timeCodesPerSecond, i.e. the stage time at which the step begins, interpolated
   as the stage says (targetGear is always held);
3. the caller's `controls`: scalars (held for the whole run), arrays with one row per step (shape (steps,),
   (steps, vehicles) or (steps, vehicles, wheels)), or a callable `controls(step, simulator)` returning the
   controls of that step (or None). Names are the Simulator's (accelerator, brake0, brake1, steer, targetGear,
   thrust0, thrust1, driveTorque, brakeTorque, steerAngle); vehicles are in `result.paths` order.

For a hand-written reinforcement-learning loop, `load()` returns the simulator and the drive cycle without
stepping: call `loaded.simulator.step(controls)` yourself, and `loaded.reset()` between episodes. `run()` also
accepts a loaded simulation and goes on from its current state.
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from pxr import Usd

from . import properties as P
from .bulk import bulk_objects
from .description import Block, Source, StageDescription, canonical_value
from .diagnostics import Diagnostic, Severity
from .errors import InputError
from .sim import vecmath

__all__ = ["DriveCycle", "LoadedSimulation", "SimulationResult", "NoVehicleError", "load", "run", "TELEMETRY_FOR"]

ControlsArg = Mapping[str, Any] | Callable[[int, Any], Mapping[str, Any] | None] | None

# Telemetry each output needs, per kind ("vehicles", "wheels", "bodies"); None means every attribute.
TELEMETRY_FOR: dict[str, dict[str, tuple[str, ...]] | None] = {
    "summary": {"vehicles": ("currentGear",), "bodies": ("position", "orientation", "linearVelocity")},
    "plot": {"vehicles": ("engineRotationSpeed", "currentGear"), "bodies": ("orientation", "linearVelocity"),
             "wheels": ("tireLongitudinalSlip", "tireLateralSlip")},
    "record": {"bodies": ("position", "orientation"), "wheels": ("position", "rotationAngle", "wheelSteerAngle")},
    "trace": None,
}

_AXES = {"posX": (1.0, 0.0, 0.0), "negX": (-1.0, 0.0, 0.0), "posY": (0.0, 1.0, 0.0),
         "negY": (0.0, -1.0, 0.0), "posZ": (0.0, 0.0, 1.0), "negZ": (0.0, 0.0, -1.0)}


class NoVehicleError(Exception):
    """The stage has no vehicle that can be simulated (the CLI's exit code 1); `problems` says why, line by line."""

    def __init__(self, message: str, problems: Sequence[str] = ()):
        super().__init__(message)
        self.problems = list(problems)


# -- drive cycles -----------------------------------------------------------------------------------------

@dataclass
class _Channel:
    """One time-sampled controller attribute feeding one control of one vehicle (or wheel)."""

    control: str
    vehicle: int
    wheel: int | None
    times: np.ndarray
    values: np.ndarray
    held: bool
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


_VEHICLE_CONTROL_ATTRS: tuple[tuple[str, str, str], ...] = (
    (P.CONTROLLER, "accelerator", "accelerator"), (P.CONTROLLER, "brake0", "brake0"),
    (P.CONTROLLER, "brake1", "brake1"), (P.CONTROLLER, "steer", "steer"), (P.CONTROLLER, "targetGear", "targetGear"),
    (P.TANK_CONTROLLER, "thrust0", "thrust0"), (P.TANK_CONTROLLER, "thrust1", "thrust1"),
)
# deprecated controller attribute -> (control, sign); used only where the reader took the value from it
_DEPRECATED_CONTROLS = {"brake": ("brake0", 1.0), "handbrake": ("brake1", 1.0),
                        "steerLeft": ("steer", 1.0), "steerRight": ("steer", -1.0)}
_WHEEL_CONTROL_ATTRS = (("driveTorque", "driveTorque"), ("brakeTorque", "brakeTorque"), ("steerAngle", "steerAngle"))
_DEFAULT_TARGET_GEAR = 255


def _time_samples(attr: Usd.Attribute) -> tuple[np.ndarray, np.ndarray] | None:
    if not attr or not attr.ValueMightBeTimeVarying():
        return None
    times = attr.GetTimeSamples()
    if not times:
        return None
    values = [attr.Get(t) for t in times]
    if any(v is None for v in values):
        return None
    return np.asarray(times, dtype=float), np.asarray(values, dtype=float)


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
            for schema, base, control in _VEHICLE_CONTROL_ATTRS[:5]:
                if model_controller.source(control) == Source.DEPRECATED:
                    continue  # the reader took this control from deprecated attributes; sampled below
                found = _time_samples(prim.GetAttribute(P.full_name(schema, base)))
                if found:
                    channels.append(_Channel(control, v, None, *found, held=held_all or control == "targetGear"))
            deprecated = {}
            for base, (control, sign) in _DEPRECATED_CONTROLS.items():
                if model_controller.source(control) == Source.DEPRECATED:
                    attr = prim.GetAttribute(P.full_name(P.CONTROLLER, base))
                    deprecated[base] = (control, sign, attr, _time_samples(attr))
            if any(found for *_, found in deprecated.values()):
                for base, (control, sign, attr, found) in deprecated.items():
                    if found is None and control == "steer":  # steer = steerLeft - steerRight: both take part
                        found = (np.zeros(1), np.array([float(attr.Get() or 0.0) if attr else 0.0]))
                    if found is not None:
                        channels.append(_Channel(control, v, None, *found, held=held_all, sign=sign,
                                                 deprecated=True))
        if vehicle.tankController is not None:
            for schema, base, control in _VEHICLE_CONTROL_ATTRS[5:]:
                found = _time_samples(prim.GetAttribute(P.full_name(schema, base)))
                if found:
                    channels.append(_Channel(control, v, None, *found, held=held_all))
        for w, wheel_path in enumerate(wheel_paths[v]):
            wheel = vehicle.wheels[w]
            if wheel.wheelController is None:
                continue
            wheel_prim = stage.GetPrimAtPath(wheel_path)
            for base, control in _WHEEL_CONTROL_ATTRS:
                found = _time_samples(wheel_prim.GetAttribute(P.full_name(P.WHEEL_CONTROLLER, base)))
                if found:
                    channels.append(_Channel(control, v, w, *found, held=held_all))
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


# -- recording --------------------------------------------------------------------------------------------

class _Recorder:
    """Stacks the telemetry arrays an output needs, one row per step."""

    def __init__(self, wanted: Iterable[dict[str, tuple[str, ...]] | None]):
        self.keys: dict[str, set[str] | None] = {"vehicles": set(), "wheels": set(), "bodies": set()}
        for spec in wanted:
            if spec is None:
                self.keys = {k: None for k in self.keys}
                break
            for kind, names in spec.items():
                if self.keys[kind] is not None:
                    self.keys[kind].update(names)  # type: ignore[union-attr]
        self.rows: dict[str, dict[str, list[np.ndarray]]] = {k: {} for k in self.keys}

    @property
    def active(self) -> bool:
        return any(v is None or v for v in self.keys.values())

    def add(self, telemetry: Mapping[str, Mapping[str, np.ndarray]]) -> None:
        for kind, names in self.keys.items():
            for name, arr in telemetry[kind].items():
                if names is None or name in names:
                    self.rows[kind].setdefault(name, []).append(arr)

    def arrays(self) -> dict[str, dict[str, np.ndarray]]:
        return {kind: {name: np.stack(rows) for name, rows in per.items()} for kind, per in self.rows.items()}


def _json_column(values: np.ndarray) -> list:
    """Numbers as JSON lists; non-finite values become null (JSON has no NaN)."""
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        plain = values.astype(object)
        plain[~np.isfinite(values)] = None
        return plain.tolist()
    return values.tolist()


def trace_from_arrays(arrays: Mapping[str, Mapping[str, np.ndarray]], paths: Sequence[str],
                      wheel_paths: Sequence[Sequence[str]], dt: float, steps: int) -> dict[str, Any]:
    """The simulator's trace layout from stacked telemetry: lists per path and attribute, vectors as lists."""
    trace: dict[str, Any] = {"dt": dt, "steps": steps, "vehicles": {}, "wheels": {}, "bodies": {}}
    for v, path in enumerate(paths):
        trace["vehicles"][path] = {name: _json_column(a[:, v]) for name, a in arrays["vehicles"].items()}
        trace["bodies"][path] = {name: _json_column(a[:, v]) for name, a in arrays["bodies"].items()}
        for w, wheel_path in enumerate(wheel_paths[v]):
            trace["wheels"][wheel_path] = {name: _json_column(a[:, v, w]) for name, a in arrays["wheels"].items()}
    return trace


# -- loading ----------------------------------------------------------------------------------------------

@dataclass
class LoadedSimulation:
    stage: Usd.Stage
    description: StageDescription
    simulator: Any  # sim.Simulator
    paths: tuple[str, ...]
    wheel_paths: tuple[tuple[str, ...], ...]
    drive_cycle: DriveCycle
    left_out: dict[str, str]  # vehicle path -> why it is not simulated
    composition_warnings: list[str]
    load_s: float

    @property
    def meters_per_unit(self) -> float:
        return float(self.description.stage.metersPerUnit)

    def reset(self) -> None:
        """Back to the state the stage describes (rest pose, initial commands), e.g. between episodes."""
        from .sim import initial_state

        self.simulator.state = initial_state(self.simulator.params)

    def forward_axes(self) -> np.ndarray:
        """Each vehicle's longitudinal axis in its body frame (V, 3)."""
        return np.array([_AXES[self.simulated_context(p)["longitudinalAxis"]] for p in self.paths])

    def simulated_context(self, path: str) -> Block:
        """The vehicle context the simulator took for the vehicle at `path` (its own, else its scene's)."""
        vehicle = self.description.vehicles[path]
        if vehicle.context is not None and vehicle.context.values:
            return vehicle.context
        return self.description.scenes[vehicle.scene].context


def _open(source: "str | os.PathLike | Usd.Stage") -> tuple[Usd.Stage, list[str]]:
    if isinstance(source, Usd.Stage):
        return source, []
    from .stage_io import open_stage_with_warnings

    return open_stage_with_warnings(source)


def load(source: "str | os.PathLike | Usd.Stage", dt: float, vehicles: Sequence[str] | None = None,
         threads: int = 1) -> LoadedSimulation:
    """Read a stage and build the simulator for its vehicles (or the listed ones), without stepping.

    threads: ranges of vehicles stepped in parallel threads (`Simulator`'s option).

    Raises InputError for an unreadable file, a bad dt or an unknown vehicle path; NoVehicleError when
    nothing can be simulated. Vehicles the reader rejected, or the simulator cannot build, are left out
    and named in `left_out`.
    """
    from .read import read_stage
    from .runtime.vehicle2 import VehicleParamsError
    from .sim import Simulator

    if not (isinstance(dt, (int, float)) and dt > 0 and math.isfinite(dt)):
        raise InputError(f"the time step must be a positive number of seconds (got {dt})")
    start = time.perf_counter()
    stage, warnings = _open(source)
    with bulk_objects():  # a description: a few hundred small objects per vehicle
        description = read_stage(stage)
    rejected = _rejected_vehicles(description.diagnostics, stage)
    left_out = {path: why for path, why in rejected.items() if path not in description.vehicles}
    if vehicles:
        for path in vehicles:
            if path not in description.vehicles and path not in left_out:
                raise InputError(f"no vehicle at {path}", file=str(description.stage.file))
        wanted = list(dict.fromkeys(vehicles))
    else:
        wanted = sorted(description.vehicles)  # by path, as `convert` lists them
    wanted = [p for p in wanted if p not in left_out]
    simulator = None
    if wanted:
        try:
            simulator = Simulator.from_description(description, dt, wanted, threads=threads)
        except VehicleParamsError:
            # find the vehicles the simulator cannot build and go on without them
            buildable = []
            for path in wanted:
                try:
                    Simulator.from_description(description, dt, [path])
                    buildable.append(path)
                except VehicleParamsError as exc:
                    left_out[path] = f"the simulator cannot build it: {exc}"
            wanted = buildable
            simulator = Simulator.from_description(description, dt, wanted, threads=threads) if wanted else None
    if simulator is None:
        raise NoVehicleError(_no_vehicle_message(description, left_out), problem_lines(description, left_out))
    paths = tuple(simulator.params.paths)
    wheel_paths = tuple(tuple(w) for w in simulator.params.wheel_paths)
    cycle = drive_cycle(stage, description, paths, wheel_paths)
    return LoadedSimulation(stage, description, simulator, paths, wheel_paths, cycle, left_out, warnings,
                            time.perf_counter() - start)


def _rejected_vehicles(diagnostics: Sequence[Diagnostic], stage: Usd.Stage) -> dict[str, str]:
    """Vehicle prims with error diagnostics -> the first error's message."""
    out: dict[str, str] = {}
    for d in diagnostics:
        if d.severity != Severity.ERROR or d.prim in out:
            continue
        prim = stage.GetPrimAtPath(d.prim) if d.prim.startswith("/") else None
        if prim and prim.HasAPI(P.VEHICLE):
            out[d.prim] = f"{d.code}: {d.message}"
    return out


def problem_lines(description: StageDescription, left_out: Mapping[str, str]) -> list[str]:
    """The stage's errors, the vehicles left out and a count of warnings, for stderr."""
    lines = [d.line() for d in description.diagnostics if d.severity == Severity.ERROR]
    lines += [f"left out {path}: {why}" for path, why in left_out.items()]
    warnings = sum(1 for d in description.diagnostics if d.severity == Severity.WARNING)
    if warnings:
        lines.append(f"{warnings} warning(s) not shown (`physxvehicle-usd convert --format text` lists them)")
    return lines


def _no_vehicle_message(description: StageDescription, left_out: Mapping[str, str]) -> str:
    file = description.stage.file
    if left_out:
        return f"{file}: no simulable vehicle ({len(left_out)} left out because of errors)"
    return f"{file}: no simulable vehicle (no prim with PhysxVehicleAPI)"


# -- running ----------------------------------------------------------------------------------------------

@dataclass
class VehicleSummary:
    path: str
    distance_m: float      # length of the path the vehicle prim's origin travelled
    forward_speed_ms: float  # final velocity along the vehicle's longitudinal axis (negative: backwards)
    gear: int              # final current gear (-1 reverse, 0 neutral, 1.. forward; 0 without a gearbox)
    has_gears: bool


@dataclass
class SimulationResult:
    steps: int
    dt: float
    paths: tuple[str, ...]
    wheel_paths: tuple[tuple[str, ...], ...]
    load_s: float
    step_s: float
    vehicles: list[VehicleSummary]
    meters_per_unit: float
    arrays: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)  # (steps, V[, W][, 3|4]) per attribute
    initial: dict[str, dict[str, np.ndarray]] = field(default_factory=dict)  # telemetry before the first step
    time_code_offset: float = 0.0  # the stage's start time in steps of dt (aligns a record with a drive cycle)
    left_out: dict[str, str] = field(default_factory=dict)
    composition_warnings: list[str] = field(default_factory=list)
    loaded: LoadedSimulation | None = None

    @property
    def wheel_count(self) -> int:
        return sum(len(w) for w in self.wheel_paths)

    @property
    def trace(self) -> dict[str, Any]:
        """The trace layout of `Simulator.run`; needs `run(..., outputs=("trace",))`."""
        return trace_from_arrays(self.arrays, self.paths, self.wheel_paths, self.dt, self.steps)

    def summary(self) -> dict[str, Any]:
        """The command line's JSON summary line."""
        return {"vehicles": len(self.paths), "wheels": self.wheel_count, "steps": self.steps, "dt": self.dt,
                "load_s": round(self.load_s, 6), "step_s": round(self.step_s, 6)}


def _step_controls(controls: ControlsArg, steps: int) -> Callable[[int, Any], Mapping[str, Any] | None]:
    if controls is None:
        return lambda i, sim: None
    if callable(controls):
        return controls
    held: dict[str, Any] = {}
    per_step: dict[str, np.ndarray] = {}
    for name, value in controls.items():
        arr = np.asarray(value)
        if arr.ndim == 0:
            held[name] = arr
        elif arr.shape[0] == steps:
            per_step[name] = arr
        else:
            raise InputError(f"control {name!r}: a scalar or one row per step expected "
                             f"({steps} rows), got shape {arr.shape}")

    def at(i: int, sim: Any) -> Mapping[str, Any]:
        out = {name: rows[i] for name, rows in per_step.items()}
        if i == 0:
            out.update(held)
        return out
    return at


def run(source: "str | os.PathLike | Usd.Stage | LoadedSimulation", steps: int, dt: float,
        controls: ControlsArg = None, vehicles: Sequence[str] | None = None,
        outputs: Iterable[str] = ("trace",), threads: int = 1) -> SimulationResult:
    """Step the stage's vehicles `steps` times by `dt` seconds; see the module docstring for the controls.

    outputs: which recordings to keep ("trace": every telemetry attribute; "plot", "record": what those
    need). The summary (distance, final speed, gear) is always computed. step_s is the wall time of the
    simulator's steps alone (controls, telemetry and recording excluded).
    """
    if int(steps) < 1:
        raise InputError(f"need at least one step (got {steps})")
    steps = int(steps)
    loaded = source if isinstance(source, LoadedSimulation) else load(source, dt, vehicles, threads)
    sim = loaded.simulator
    unknown = set(outputs) - set(TELEMETRY_FOR)
    if unknown:
        raise ValueError(f"unknown outputs {sorted(unknown)}; known: {sorted(TELEMETRY_FOR)}")
    recorder = _Recorder([TELEMETRY_FOR[o] for o in outputs])
    cycle = loaded.drive_cycle.sample(steps, sim.dt) if not loaded.drive_cycle.empty else {}
    caller = _step_controls(controls, steps)

    forward = loaded.forward_axes()
    first = sim.telemetry()
    initial = {kind: dict(values) for kind, values in first.items()}
    previous = first["bodies"]["position"]
    distance = np.zeros(len(loaded.paths))
    step_s = 0.0
    last = first
    for i in range(steps):
        command = {name: rows[i] for name, rows in cycle.items()}
        extra = caller(i, sim)
        if extra:
            command.update(extra)
        if command:
            try:
                sim.set_controls(command)
            except (KeyError, ValueError) as exc:
                raise InputError(f"bad controls at step {i}: {exc.args[0] if exc.args else exc}") from None
        began = time.perf_counter()
        sim.step()
        step_s += time.perf_counter() - began
        if recorder.active or i == steps - 1:  # the whole telemetry only where it is used: it costs a step's tenth
            last = sim.telemetry()
            position = last["bodies"]["position"]
        else:
            position = sim.chassis_positions()
        distance += np.linalg.norm(position - previous, axis=-1)
        previous = position
        if recorder.active:
            recorder.add(last)
    mpu = loaded.meters_per_unit
    speed = _forward_speed(last["bodies"]["orientation"], last["bodies"]["linearVelocity"], forward) * mpu
    gears = last["vehicles"]["currentGear"]
    standard = [getattr(loaded.description.vehicles[p].drive, "type", None) == "standard" for p in loaded.paths]
    summaries = [VehicleSummary(p, float(distance[v] * mpu), float(speed[v]), int(gears[v]), standard[v])
                 for v, p in enumerate(loaded.paths)]
    offset = loaded.drive_cycle.start_time_code / loaded.drive_cycle.time_codes_per_second / sim.dt
    return SimulationResult(steps, sim.dt, loaded.paths, loaded.wheel_paths, loaded.load_s, step_s, summaries, mpu,
                            recorder.arrays() if recorder.active else {"vehicles": {}, "wheels": {}, "bodies": {}},
                            initial, offset, dict(loaded.left_out), list(loaded.composition_warnings), loaded)


def rotate_xyzw(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v (..., 3) by quaternions q (..., 4) stored x, y, z, w (telemetry's order), via the core."""
    q = np.asarray(q, dtype=float)
    v = np.broadcast_to(np.asarray(v, dtype=float), q.shape[:-1] + (3,))
    rotated = vecmath.quat_rotate(np.moveaxis(q[..., [3, 0, 1, 2]], -1, 0), np.moveaxis(v, -1, 0))
    return np.moveaxis(rotated, 0, -1)


def _forward_speed(orientation: np.ndarray, velocity: np.ndarray, forward: np.ndarray) -> np.ndarray:
    return np.sum(rotate_xyzw(orientation, forward) * velocity, axis=-1)


def forward_speeds(result: SimulationResult) -> np.ndarray:
    """(steps, V) velocity along each vehicle's longitudinal axis, m/s; needs bodies orientation and velocity."""
    assert result.loaded is not None
    b = result.arrays["bodies"]
    return _forward_speed(b["orientation"], b["linearVelocity"], result.loaded.forward_axes()[None]) * result.meters_per_unit


# -- text -------------------------------------------------------------------------------------------------

def text_summary(result: SimulationResult, limit: int = 20) -> list[str]:
    """A line per vehicle (at most `limit`) and the summary line."""
    lines = []
    for s in result.vehicles[:limit]:
        gear = f"gear {s.gear}" if s.has_gears else "no gearbox"
        speed = round(s.forward_speed_ms, 2) + 0.0  # no "-0.00" for a car at rest
        lines.append(f"{s.path}: {s.distance_m:.2f} m travelled, {speed:.2f} m/s "
                     f"({round(3.6 * speed, 1) + 0.0:.1f} km/h) at the end, {gear}")
    if len(result.vehicles) > limit:
        lines.append(f"... and {len(result.vehicles) - limit} more vehicles")
    simulated = result.steps * result.dt
    per_step = 1000.0 * result.step_s / result.steps
    factor = simulated / result.step_s if result.step_s > 0 else math.inf
    lines.append(f"simulated {len(result.paths)} vehicle(s), {result.wheel_count} wheels: {result.steps} steps of "
                 f"{result.dt:g} s ({simulated:.2f} s); load {result.load_s:.3f} s, stepping {result.step_s:.3f} s "
                 f"({per_step:.2f} ms/step, {factor:.1f}x real time)")
    return lines


# -- the command line's job -------------------------------------------------------------------------------

def _check_writable(path: str | os.PathLike) -> None:
    """Fail before a long run, not after it, when an output cannot be written."""
    folder = Path(path).absolute().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"cannot write here: {folder} is not a writable folder", file=str(path))
    if Path(path).is_dir():
        raise InputError("is a folder; give a file name", file=str(path))


def _writing(path: str | os.PathLike, write: Callable[[], None]) -> None:
    try:
        write()
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=str(path)) from None


def simulate_files(stage_file: str | os.PathLike, steps: int, dt: float, *, vehicles: Sequence[str] = (),
                   trace: str | None = None, plot: str | None = None, record: str | None = None,
                   threads: int = 1, report: Callable[[str], None] = lambda line: None) -> SimulationResult:
    """Load, run and write the requested files (each atomically, after the run); stage problems go to `report`."""
    import json

    outputs = [name for name, path in (("trace", trace), ("plot", plot), ("record", record)) if path]
    for path in (trace, plot, record):
        if path:
            _check_writable(path)
    if record and Path(record).suffix not in (".usda", ".usd", ".usdc"):
        raise InputError("the record must be a .usda, .usd or .usdc file", file=str(record))
    loaded = load(stage_file, dt, vehicles or None, threads)
    for line in loaded.composition_warnings:
        report(f"warning: {line}")
    for line in problem_lines(loaded.description, loaded.left_out):
        report(line)
    result = run(loaded, steps, dt, outputs=outputs)
    if trace:
        from .stage_io import write_atomic

        text = json.dumps(result.trace, separators=(",", ":"))
        _writing(trace, lambda: write_atomic(trace, text + "\n"))
    if plot:
        from .sim_plot import plot_png
        from .stage_io import write_atomic

        png = plot_png(result, title=f"{Path(stage_file).name}: {steps} steps of {dt:g} s")
        _writing(plot, lambda: write_atomic(plot, png))
    if record:
        from .record import write_record

        _writing(record, lambda: write_record(result, loaded.stage, str(Path(stage_file).absolute()), record))
    return result
