"""What a simulation run holds and gives back: the loaded simulation, the recorded telemetry, the per-vehicle
summary and the trace layout. The outputs (outputs/record.py, outputs/sim_plot.py) read results from here."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
from pxr import Usd

from ..description import Block, StageDescription
from ..diagnostics import Diagnostic
from ..runtime.vehicle2 import AXIS_VECTORS
from ..sim import vecmath

if TYPE_CHECKING:
    from .drive_cycle import DriveCycle

# Telemetry each output needs, per kind ("vehicles", "wheels", "bodies"); None means every attribute.
TELEMETRY_FOR: dict[str, dict[str, tuple[str, ...]] | None] = {
    "summary": {"vehicles": ("currentGear",), "bodies": ("position", "orientation", "linearVelocity")},
    "plot": {"vehicles": ("engineRotationSpeed", "currentGear"), "bodies": ("orientation", "linearVelocity"),
             "wheels": ("tireLongitudinalSlip", "tireLateralSlip")},
    "record": {"bodies": ("position", "orientation"), "wheels": ("position", "orientation", "rotationAngle", "wheelSteerAngle")},
    "trace": None,
}



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
    reading: str = "omniverse"  # whose reading of the stage: "omniverse" or "ovphysx" (read/readings.py)
    # what this run's set-up says beyond the stage's own diagnostics: a dt longer than a vehicle integrates stably
    diagnostics: list[Diagnostic] = field(default_factory=list)
    dt_from: str = "given"  # where the step came from: "given" (the caller's), else the physics scene's (scene_step)

    @property
    def meters_per_unit(self) -> float:
        return float(self.description.stage.metersPerUnit)

    def reset(self) -> None:
        """Back to the state the stage describes (rest pose, initial commands), e.g. between episodes."""
        from ..sim import initial_state

        self.simulator.state = initial_state(self.simulator.params)

    def forward_axes(self) -> np.ndarray:
        """Each vehicle's longitudinal axis in its body frame (V, 3)."""
        return np.array([AXIS_VECTORS[self.simulated_context(p)["longitudinalAxis"]] for p in self.paths])

    def simulated_context(self, path: str) -> Block:
        """The vehicle context the simulator took for the vehicle at `path` (its own, else its scene's)."""
        return self.description.vehicle_context(path)


class TelemetryRecorder:
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


def _finite(x: float) -> float | None:
    return round(x, 6) + 0.0 if math.isfinite(x) else None  # JSON has no NaN; +0.0: no "-0.0"


@dataclass
class VehicleSummary:
    path: str
    distance_m: float      # length of the path the vehicle prim's origin travelled
    forward_speed_ms: float  # final velocity along the vehicle's longitudinal axis (negative: backwards)
    gear: int              # final current gear (-1 reverse, 0 neutral, 1.. forward; 0 without a gearbox)
    has_gears: bool
    frozen_reason: str | None = None  # why the numerical guard froze it (sim/guard.py); None: it ran to the end
    frozen_step: int | None = None  # the step of this run (from 1) at which it was frozen; None: not during this run

    @property
    def frozen(self) -> bool:
        return self.frozen_reason is not None

    def as_json(self) -> dict[str, Any]:
        """The command line's per-vehicle result (SI units)."""
        return {"distance_m": _finite(self.distance_m), "forward_speed_ms": _finite(self.forward_speed_ms),
                "gear": self.gear if self.has_gears else None, "frozen": self.frozen,
                "frozen_reason": self.frozen_reason}


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
    def diagnostics(self) -> list[Diagnostic]:
        """What the run's set-up says beyond the stage's diagnostics (DT_LIMIT: a dt too long for a vehicle)."""
        return list(self.loaded.diagnostics) if self.loaded is not None else []

    @property
    def frozen(self) -> dict[str, tuple[str, int]]:
        """The vehicles the numerical guard froze during this run: path -> (why, step of this run, from 1)."""
        return {s.path: (s.frozen_reason, s.frozen_step) for s in self.vehicles if s.frozen_step is not None}

    def frozen_lines(self) -> list[str]:
        """One line per vehicle the numerical guard froze during the run: which, why, from which step."""
        return [f"error: {path} was frozen by the numerical guard at step {step} of {self.steps} ({why}); its results "
                f"from then on are its last good state, at rest" for path, (why, step) in self.frozen.items()]

    @property
    def wheel_count(self) -> int:
        return sum(len(w) for w in self.wheel_paths)

    @property
    def trace(self) -> dict[str, Any]:
        """The trace layout of `Simulator.run`; needs `run(..., outputs=("trace",))`."""
        return trace_from_arrays(self.arrays, self.paths, self.wheel_paths, self.dt, self.steps)

    def summary(self, timings: bool = True) -> dict[str, Any]:
        """The command line's JSON summary line: counts and timings (load_s, step_s: left out with timings=False, as
        text_summary's), and each vehicle's result by path."""
        timed = {"load_s": round(self.load_s, 6), "step_s": round(self.step_s, 6)} if timings else {}
        return {"vehicles": len(self.paths), "wheels": self.wheel_count, "steps": self.steps, "dt": self.dt,
                "dt_from": self.dt_from, **timed, "results": {s.path: s.as_json() for s in self.vehicles}}

    @property
    def dt_from(self) -> str:
        """Where the step came from: "given", or the physics scene's rate (LoadedSimulation.dt_from)."""
        return self.loaded.dt_from if self.loaded is not None else "given"


def rotate_xyzw(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors v (..., 3) by quaternions q (..., 4) stored x, y, z, w (telemetry's order), via the core."""
    q = np.asarray(q, dtype=float)
    v = np.broadcast_to(np.asarray(v, dtype=float), q.shape[:-1] + (3,))
    rotated = vecmath.quat_rotate(np.moveaxis(q[..., [3, 0, 1, 2]], -1, 0), np.moveaxis(v, -1, 0))
    return np.moveaxis(rotated, 0, -1)


def forward_speed(orientation: np.ndarray, velocity: np.ndarray, forward: np.ndarray) -> np.ndarray:
    return np.sum(rotate_xyzw(orientation, forward) * velocity, axis=-1)


def forward_speeds(result: SimulationResult) -> np.ndarray:
    """(steps, V) velocity along each vehicle's longitudinal axis, m/s; needs bodies orientation and velocity."""
    assert result.loaded is not None
    b = result.arrays["bodies"]
    return forward_speed(b["orientation"], b["linearVelocity"], result.loaded.forward_axes()[None]) * result.meters_per_unit


GEAR_NAMES = {-1: "reverse", 0: "neutral"}  # telemetry's currentGear; forward gears are their numbers


def gear_name(gear: int) -> str:
    """The one word for a gear wherever a person reads it (the text summary, the plot's axis): "reverse",
    "neutral", or the forward gear's number."""
    return GEAR_NAMES.get(int(gear), str(int(gear)))


def text_summary(result: SimulationResult, limit: int = 20, timings: bool = True) -> list[str]:
    """A line per vehicle (at most `limit`) and the summary line; without its timings (load, stepping), which differ
    from run to run, for a report that must be the same whoever runs it (simulate over many files)."""
    lines = []
    for s in result.vehicles[:limit]:
        gear = f"gear {gear_name(s.gear)}" if s.has_gears else "no gearbox"
        speed = round(s.forward_speed_ms, 2) + 0.0  # no "-0.00" for a car at rest
        frozen = result.frozen.get(s.path)
        lines.append(f"{s.path}: {s.distance_m:.2f} m travelled, {speed:.2f} m/s "
                     f"({round(3.6 * speed, 1) + 0.0:.1f} km/h) at the end, {gear}"
                     + (f" (frozen at step {frozen[1]}: {frozen[0]})" if frozen else ""))
    if len(result.vehicles) > limit:
        lines.append(f"... and {len(result.vehicles) - limit} more vehicles")
    simulated = result.steps * result.dt
    line = (f"simulated {len(result.paths)} vehicle(s), {result.wheel_count} wheels: {result.steps} steps of "
            f"{result.dt:g} s ({simulated:.2f} s)")
    if result.dt_from != "given":
        line += f", {result.dt_from}"
    if timings:
        per_step = 1000.0 * result.step_s / result.steps
        factor = simulated / result.step_s if result.step_s > 0 else math.inf
        line += (f"; load {result.load_s:.3f} s, stepping {result.step_s:.3f} s ({per_step:.2f} ms/step, "
                 f"{factor:.1f}x real time)")
    return lines + [line]
