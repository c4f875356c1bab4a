"""`calibrate`: fit a vehicle's properties to a log, with the fleet simulator running the candidates as lanes.

    from physxvehicle_usd.calibrate import calibrate
    result = calibrate("car.usda", "drive.csv", fit=["/World/Engine.physxVehicleEngine:peakTorque"])
    result.vehicles["/World/Car"].fitted[0].value, .low, .high, .identified

The stage holds the controls that drove the log (time samples on its controller attributes, as `simulate` reads
them), `controls` adds or replaces some (`--control`'s NAME=VALUE / NAME=A:B), and the log's own control columns
replace those. Without `fit`, the default set (DEFAULT_FIT: the engine's peak torque and inertia, each tire's
longitudinal and lateral stiffness, each suspension's spring strength and damping, the chassis mass, each brake's
maximum torque) of the vehicle, less those the log does not excite (each alone would not be identified).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from pxr import UsdPhysics

from .. import properties as P
from ..errors import InputError
from . import fit as fitting
from .identify import Z95, identify
from .lanes import FittedProperty, LaneMap, Lanes, resolve, up_axis_index, vehicle_blocks
from .log import Log, read_log

# (schema, base name, element): the default fitted set, per component of the vehicle that has it
DEFAULT_FIT: tuple[tuple[str, str, int | None], ...] = (
    (P.ENGINE, "peakTorque", None), (P.ENGINE, "moi", None),
    (P.TIRE, "longitudinalStiffness", None), (P.TIRE, "lateralStiffnessGraph", 1),
    (P.SUSPENSION, "springStrength", None), (P.SUSPENSION, "springDamperRate", None),
    (P.RIGID_BODY, "mass", None), (P.BRAKES, "maxBrakeTorque", None),
)
METHODS = ("least_squares", "population")
HELD = 1.0  # a named property whose 95 % interval alone would pass +-100 % is held at its value, not searched


@dataclass
class FittedValue:
    name: str
    value: float       # SI, as every figure of the report
    initial: float
    low: float         # the 95 % interval
    high: float
    unit: str
    identified: bool
    prop: FittedProperty = field(repr=False)
    stage_value: float = 0.0  # the value in the stage's units (what the layer authors)

    def as_json(self) -> dict:
        return {"value": self.value, "initial": self.initial, "low": self.low, "high": self.high, "unit": self.unit,
                "identified": bool(self.identified)}


@dataclass
class VehicleCalibration:
    path: str
    fitted: list[FittedValue]
    residual: dict[str, tuple[float, float]]  # signal -> RMS of simulated - logged, before and after (SI)
    warnings: list[str]
    left_out: dict[str, str]                  # default properties not fitted -> why
    method: str
    evaluations: int
    lanes: int                                # lanes simulated in all
    resampling: str
    times: np.ndarray = field(repr=False, default=None)
    logged: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    before: dict[str, np.ndarray] = field(repr=False, default_factory=dict)
    after: dict[str, np.ndarray] = field(repr=False, default_factory=dict)

    def as_json(self) -> dict:
        return {"fitted": {f.name: f.as_json() for f in self.fitted},
                "residual": {name: {"before": b, "after": a} for name, (b, a) in self.residual.items()}}


@dataclass
class Calibration:
    stage: str
    log: str
    vehicles: dict[str, VehicleCalibration]
    output: str | None = None  # the layer written (or to be written: dry run); None: none
    status: str = "fitted"     # "fitted" | "written" | "planned" (dry run)

    def as_json(self) -> dict:
        return {"vehicles": {path: v.as_json() for path, v in self.vehicles.items()}}


def default_names(description, vehicle: str) -> list[str]:
    """The vehicle's properties of DEFAULT_FIT, by PRIM.ATTR (each component once)."""
    blocks: list = []
    vehicle_blocks(description.vehicles[vehicle], blocks)
    names: list[str] = []
    for schema, base, index in DEFAULT_FIT:
        for block, key in blocks:
            if block.schema_name != schema or base not in block or block.path is None:
                continue
            attribute = (UsdPhysics.Tokens.physicsMass if schema == P.RIGID_BODY
                         else P.full_name(schema, base, key if schema in P.MULTIPLE_APPLY else None))
            names.append(f"{block.path}.{attribute}" + (f"[{index}]" if index is not None else ""))
    return list(dict.fromkeys(names))


def _controls(loaded, steps: int, dt: float, specs: Sequence[str], log: Log) -> dict[str, np.ndarray]:
    from ..simulate.control_specs import controls_from_specs

    cycle = loaded.drive_cycle.sample(steps, dt) if not loaded.drive_cycle.empty else {}
    controls = {name: rows[:, 0] for name, rows in cycle.items()}
    controls.update(controls_from_specs(specs, steps))
    controls.update(log.controls)
    return controls


def _rms(sims: np.ndarray, log: Log) -> dict[str, float]:
    return {s.name: float(np.sqrt(np.mean((sims[log.compared, j] - s.values[log.compared]) ** 2)))
            for j, s in enumerate(log.signals)}


def calibrate(stage_file: str | os.PathLike, log_file: str | os.PathLike, *, vehicle: str | None = None,
              fit: Sequence[str] | None = None, controls: Sequence[str] = (), dt: float | None = None,
              method: str = "least_squares", seed: int = 0, within: float = 0.1, batched: bool = True,
              max_evaluations: int = 30, threads: int = 1, reading: str = "omniverse", generations: int = 20,
              own_only: bool = False) -> Calibration:
    """Fit the properties `fit` (PRIM.ATTR; None: the default set) of `vehicle` (default: the stage's first) to the
    log; see the package's docstring. dt: the simulation's step (default: a trace's own, else
    the physics scene's, as `simulate` takes it). reading: whose
    reading of the stage (simulate.load's). within: the relative 95 % half-width under which a property counts as
    identified. own_only: of `fit`, the vehicle's own properties (several vehicles' names given at once).
    batched=False runs each candidate on its own (the same numbers, slower: the benchmark's comparison).
    generations: the population method's. Raises InputError for a bad stage, log, property or control; writes
    nothing (see `write_layer`)."""
    from ..simulate import load

    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    log_file = str(log_file)
    loaded = load(stage_file, dt if dt is not None else _trace_dt(log_file), [vehicle] if vehicle else None,
                  reading=reading)
    dt = loaded.simulator.dt  # given, a trace's own, else the physics scene's step (simulate's default)
    path = vehicle or loaded.paths[0]
    wheel_paths = loaded.wheel_paths[loaded.paths.index(path)]
    up = up_axis_index(loaded.stage)
    log = read_log(log_file, dt, path, wheel_paths, loaded.meters_per_unit, up)
    control_rows = _controls(loaded, log.steps, dt, controls, log)
    names = list(fit) if fit else default_names(loaded.description, path)
    fitted = resolve(names, loaded.stage, loaded.description, path, own_only=bool(fit) and own_only)
    if not fitted:
        raise InputError("nothing to fit: the vehicle has none of " + ("the --fit properties" if fit else
                         "the default properties; name them with --fit"), file=str(stage_file), prim=path)

    def problem_of(lane_map: LaneMap) -> fitting.Problem:
        lanes = Lanes(lane_map, loaded.description.ground, log, control_rows, up, loaded.meters_per_unit, threads)
        return fitting.Problem(lanes, lane_map.fitted, batched)

    problem = problem_of(LaneMap(loaded.stage, path, fitted, loaded.reading))
    r0, J0, before = problem.residual_and_jacobian(problem.z0)
    # each property alone: the relative 95 % half-width the log would give it
    alone = Z95 * max(1.0, float(np.sqrt(r0 @ r0 / max(r0.size - 1, 1)))) / np.maximum(
        np.linalg.norm(J0 * problem.z0, axis=0), 1e-300)
    left_out: dict[str, str] = {}
    if not fit:  # the default set: leave out what the log does not excite
        keep = alone <= within
        left_out = {f.name: f"the log hardly depends on it (alone, its 95 % interval would be +-{100 * a:.3g} %)"
                    for f, a, k in zip(fitted, alone, keep) if not k}
        if not keep.any():
            raise InputError("the log excites none of the default properties: " + "; ".join(
                f"{n}: {why}" for n, why in left_out.items()), file=log_file)
    else:  # a named property the log does not depend on at all is held at its value (reported, not identified)
        keep = alone <= HELD
    J0_all, z0_all = J0 * problem.z0, problem.z0
    if not keep.all():
        excited = problem.lanes.lanes_run
        problem = problem_of(problem.lanes.lane_map.subset(keep))
        problem.lanes.lanes_run = excited
    if not keep.any():
        result = fitting.Fit(problem.z0, r0, np.zeros((r0.size, 0)), before, "none", "nothing to fit", 1)
    else:
        result = (fitting.population(problem, seed, generations) if method == "population"
                  else fitting.least_squares(problem, max_evaluations=max_evaluations))
    reported = fitted if fit else problem.fitted
    z = z0_all.copy()
    z[keep] = result.z
    jacobian = J0_all.copy()
    jacobian[:, keep] = result.jacobian
    if not fit:
        z, jacobian = z[keep], jacobian[:, keep]
    scale = np.array([abs(f.initial) if f.initial != 0 else 1.0 for f in reported])
    ident = identify(jacobian, result.residual, [f.name for f in reported], within)
    values = []
    for k, f in enumerate(reported):
        x = float(z[k] * scale[k])
        half = float(ident.half_width[k] * abs(x))
        values.append(FittedValue(f.name, x * f.to_si, f.initial * f.to_si, (x - half) * f.to_si, (x + half) * f.to_si,
                                  f.unit, bool(ident.identified[k]), f, x))
    after_rms, before_rms = _rms(result.signals, log), _rms(before, log)
    times = (np.arange(log.steps) + 1) * dt
    names_s = [s.name for s in log.signals]
    calibration = VehicleCalibration(
        path, values, {n: (before_rms[n], after_rms[n]) for n in names_s}, ident.warnings, left_out, result.method,
        result.evaluations, problem.lanes.lanes_run, log.resampling, times,
        {s.name: s.values for s in log.signals}, {n: before[:, j] for j, n in enumerate(names_s)},
        {n: result.signals[:, j] for j, n in enumerate(names_s)})
    return Calibration(str(stage_file), log_file, {path: calibration})


def _trace_dt(log_file: str) -> float | None:
    """A trace log's own dt (its first bytes name it), None for anything else."""
    if not log_file.lower().endswith(".json"):
        return None
    import json

    try:
        with open(log_file) as handle:
            dt = json.load(handle).get("dt")
    except (OSError, ValueError, AttributeError):
        return None  # read_log says what is wrong with it
    return float(dt) if isinstance(dt, (int, float)) and dt > 0 else None


def _one_pair(index: str, stage_file: str, pairs: tuple[tuple[str | None, str], ...], options: dict) -> Calibration:
    vehicle, log_file = pairs[int(index)]
    return calibrate(stage_file, log_file, vehicle=vehicle, **options)


def _pair_failed(index: str, why: str) -> Exception:
    return InputError(why.removeprefix(f"{index}: "))  # the pair's own message names its files


def calibrate_many(stage_file: str, pairs: Sequence[tuple[str | None, str]], jobs: int = 1, ray: str | None = None,
                   **options) -> Calibration:
    """One calibration per (vehicle, log) pair of the stage, shared out as the other commands share files (`jobs`
    worker processes, or Ray), merged into one result (each vehicle once). InputError for the first pair that
    fails, or for two pairs that fit one property (a shared component) to different values."""
    import functools

    from ..many_files import map_paths

    if len(pairs) == 1:
        vehicle, log_file = pairs[0]
        return calibrate(stage_file, log_file, vehicle=vehicle, **options)
    one = functools.partial(_one_pair, stage_file=str(stage_file), pairs=tuple(pairs),
                            options={**options, "own_only": True})
    results = list(map_paths(one, [str(i) for i in range(len(pairs))], failed=_pair_failed, jobs=jobs, ray=ray))
    for result in results:
        if isinstance(result, Exception):
            raise result
    merged = Calibration(str(stage_file), ", ".join(dict.fromkeys(log for _, log in pairs)), {})
    seen: dict[str, tuple[str, float]] = {}
    for result in results:
        for path, vehicle in result.vehicles.items():
            if path in merged.vehicles:
                raise InputError(f"the vehicle {path} is calibrated twice (by two logs): give each vehicle one log",
                                 file=str(stage_file))
            merged.vehicles[path] = vehicle
            for f in vehicle.fitted:
                if f.identified and f.name in seen and abs(seen[f.name][1] - f.value) > 1e-9 * abs(f.value):
                    raise InputError(f"{f.name} is shared by {seen[f.name][0]} and {path}, whose logs fit it to "
                                     f"{seen[f.name][1]:g} and {f.value:g}: fit it for one of them",
                                     file=str(stage_file))
                seen.setdefault(f.name, (path, f.value))
    fitted = {f.name for c in merged.vehicles.values() for f in c.fitted}
    missing = [name for name in options.get("fit") or () if name not in fitted]
    if missing:
        raise InputError(f"no vehicle given has {', '.join(missing)}", file=str(stage_file))
    return merged
