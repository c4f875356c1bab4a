"""Loading a stage into the simulator and running it: `load` and `run` (see the package's docstring)."""
from __future__ import annotations

import math
import os
import time
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np
from pxr import Usd

from .. import properties as P
from ..description import Source, StageDescription
from ..diagnostics import Diagnostic, Severity
from ..errors import InputError
from ..prim_paths import at_and_above
from ..stage.bulk import bulk_objects
from .drive_cycle import DriveCycle, drive_cycle
from .result import TELEMETRY_FOR, LoadedSimulation, SimulationResult, TelemetryRecorder, VehicleSummary, forward_speed

ControlsArg = Mapping[str, Any] | Callable[[int, Any], Mapping[str, Any] | None] | None


class NoVehicleError(Exception):
    """The stage has no vehicle that can be simulated (the CLI's exit code 1); `problems` says why, line by line."""

    def __init__(self, message: str, problems: Sequence[str] = ()):
        super().__init__(message)
        self.problems = list(problems)


def _open(source: "str | os.PathLike | Usd.Stage") -> tuple[Usd.Stage, list[str]]:
    if isinstance(source, Usd.Stage):
        return source, []
    from ..stage.io import open_stage_with_warnings

    return open_stage_with_warnings(source)


def load(source: "str | os.PathLike | Usd.Stage", dt: float | None = None, vehicles: Sequence[str] | None = None,
         threads: int = 1, reading: str = "omniverse") -> LoadedSimulation:
    """Read a stage and build the simulator for its vehicles (or the listed ones), without stepping.

    dt: seconds per step; None for the step of the vehicles' physics scene (scene_step; `dt_from` of the result
    says where it came from).

    threads: ranges of vehicles stepped in parallel threads (`Simulator`'s option).
    reading: "omniverse" (the default: what the file means, as Omniverse Kit reads it) or "ovphysx" (as ovphysx 0.7
    reads it, to preview a run there: no nonlinear command response, frames relative to the centre of mass, no drive
    cycle; the description's OVPHYSX_READING notes say what changed). See read/readings.py.
    `diagnostics` of the result holds a DT_LIMIT warning for each vehicle whose suspension or tires cannot
    integrate dt stably with its sub-step counts (sim/stability.py).

    Raises InputError for an unreadable file, a bad dt or an unknown vehicle path; NoVehicleError when
    nothing can be simulated. Vehicles the reader rejected, or the simulator cannot build, are left out
    and named in `left_out`.
    """
    from ..read import CopyStats, Reading, read_stage
    from ..runtime.vehicle2 import VehicleParamsError
    from ..runtime.vehicle2.copies import build_params_sharing
    from ..sim import Simulator
    from ..sim.batch import batch
    from ..sim.stability import dt_diagnostics

    if dt is not None and not (isinstance(dt, (int, float)) and dt > 0 and math.isfinite(dt)):
        raise InputError(f"the time step must be a positive number of seconds (got {dt})")
    reading = Reading.of(reading)
    start = time.perf_counter()
    stage, warnings = _open(source)
    copies = CopyStats()
    with bulk_objects():  # a description: a few hundred small objects per vehicle
        description = read_stage(stage, reading, stats=copies)
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
    dt, dt_from = (float(dt), GIVEN_DT) if dt is not None else scene_step(description, wanted)
    simulator = None
    if wanted:
        try:
            # Simulator.from_description, told which vehicles the reader moved from which (no one has changed
            # them); the parameter records are long-lived objects too (see bulk_objects)
            with bulk_objects():
                simulator = Simulator(batch(*build_params_sharing(description, wanted, copies.templates)),
                                      description.ground, dt, threads=threads, collision=description)
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
        raise NoVehicleError(f"{description.stage.file}: no simulable vehicle: "
                             f"{no_vehicle_reason(description, left_out, warnings)}", problem_lines(description, left_out))
    paths = tuple(simulator.params.paths)
    wheel_paths = tuple(tuple(w) for w in simulator.params.wheel_paths)
    if reading == Reading.OMNIVERSE:
        cycle = drive_cycle(stage, description, paths, wheel_paths)
    else:  # ovphysx reads the controllers once, at creation: the description's values (said by the reader)
        cycle = DriveCycle([], {}, 0.0, float(stage.GetTimeCodesPerSecond()))
    return LoadedSimulation(stage, description, simulator, paths, wheel_paths, cycle, left_out, warnings,
                            time.perf_counter() - start, reading.value, dt_diagnostics(simulator.batch, dt), dt_from)


GIVEN_DT = "given"  # LoadedSimulation.dt_from of a dt the caller gave


def scene_step(description: StageDescription, paths: Sequence[str]) -> tuple[float, str]:
    """The step omni.physx would take the vehicles at `paths` with: 1 / physxScene:timeStepsPerSecond of their
    physics scene (the reader's value: omni.physx's 60 where the scene authors none, or the stage has no scene), and
    where it came from, for the summary. InputError when their scenes step at different rates (one simulator
    takes one dt)."""
    row = P.prop(P.SCENE, "timeStepsPerSecond")
    rates: dict[float, str] = {}
    for path in paths or [None]:
        scene = description.scenes.get(description.vehicles[path].scene) if path is not None else None
        if scene is None:  # omni.physx's temporary default scene (see the validator's KIT01)
            rates.setdefault(float(row.default), f"omni.physx's default step (no physics scene: {row.default:g} "
                                                 "steps per second)")
            continue
        rate = float(scene.settings[row.base])
        name = P.physx_scene_attribute(row.base)
        said = f"{name} {rate:g}" if scene.settings.source(row.base) == Source.AUTHORED else \
            f"{name} not authored: omni.physx's {rate:g}"
        rates.setdefault(rate, f"the step of {scene.path} ({said})")
    if len(rates) > 1:
        said = "; ".join(rates.values())
        raise InputError(f"the vehicles' physics scenes step at different rates ({said}); give the step (--dt)",
                         file=str(description.stage.file or ""))
    rate, said = next(iter(rates.items()))
    return 1.0 / rate, said


def _rejected_vehicles(diagnostics: Sequence[Diagnostic], stage: Usd.Stage) -> dict[str, str]:
    """Vehicles the reader left out (its REJECTED notes) -> the first error on the vehicle or below it (an error
    of a shared component elsewhere: "see the errors above")."""
    rejected = [d.prim for d in diagnostics if d.code == "REJECTED"]
    first: dict[str, Diagnostic] = {}  # prim -> the first error on it or below it: one pass, as a fleet has thousands
    for d in diagnostics if rejected else ():
        if d.severity == Severity.ERROR:
            for path in at_and_above(d.prim):
                first.setdefault(path, d)
    return {path: f"{first[path].code}: {first[path].message}" if path in first else "see the errors above"
            for path in rejected}


def problem_lines(description: StageDescription, left_out: Mapping[str, str]) -> list[str]:
    """The stage's errors, the vehicles left out and a count of warnings, for stderr."""
    lines = [d.line() for d in description.diagnostics if d.severity == Severity.ERROR]
    lines += [f"left out {path}: {why}" for path, why in left_out.items()]
    warnings = sum(1 for d in description.diagnostics if d.severity == Severity.WARNING)
    if warnings:
        lines.append(f"{warnings} warning(s) not shown (`physxvehicle-usd convert --format text` lists them)")
    return lines


def no_vehicle_reason(description: StageDescription, left_out: Mapping[str, str], composition: Sequence[str] = ()) -> str:
    """Why a stage has no vehicle to work on: vehicles exist but were all left out (named), or there is no vehicle
    prim at all (and then whether a reference or payload that might hold one could not be opened)."""
    if left_out:
        names = sorted(left_out)
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        return f"the stage has {len(names)} vehicle(s) and every one was left out because of errors ({shown})"
    broken = list(composition) + [d.message for d in description.diagnostics if d.code == "COMPOSITION"]
    if broken:
        return (f"no prim with PhysxVehicleAPI, and {len(broken)} reference(s) or payload(s) could not be opened (a "
                f"vehicle may be in one): {broken[0]}")
    return "no prim with PhysxVehicleAPI"


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


def run(source: "str | os.PathLike | Usd.Stage | LoadedSimulation", steps: int, dt: float | None = None,
        controls: ControlsArg = None, vehicles: Sequence[str] | None = None,
        outputs: Iterable[str] = ("trace",), threads: int = 1, reading: str = "omniverse",
        progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Step the stage's vehicles `steps` times by `dt` seconds (None: the physics scene's step, see `load`; a loaded
    simulation keeps its own); see the module docstring for the controls. progress(steps done) is called after
    every step (a progress bar).

    reading: whose reading of the stage, "omniverse" (the default) or "ovphysx" (see `load`). `result.diagnostics`
    warns (DT_LIMIT) about a dt longer than a vehicle's suspension and tires integrate stably.

    outputs: which recordings to keep ("trace": every telemetry attribute; "plot", "record": what those
    need). The summary (distance, final speed, gear) is always computed. step_s is the wall time of the
    simulator's steps alone (controls, telemetry and recording excluded).
    """
    if int(steps) < 1:
        raise InputError(f"need at least one step (got {steps})")
    steps = int(steps)
    loaded = source if isinstance(source, LoadedSimulation) else load(source, dt, vehicles, threads, reading)
    sim = loaded.simulator
    unknown = set(outputs) - set(TELEMETRY_FOR)
    if unknown:
        raise ValueError(f"unknown outputs {sorted(unknown)}; known: {sorted(TELEMETRY_FOR)}")
    recorder = TelemetryRecorder([TELEMETRY_FOR[o] for o in outputs])
    cycle = loaded.drive_cycle.sample(steps, sim.dt) if not loaded.drive_cycle.empty else {}
    caller = _step_controls(controls, steps)

    forward = loaded.forward_axes()
    first = sim.telemetry()
    initial = {kind: dict(values) for kind, values in first.items()}
    previous = first["bodies"]["position"]
    distance = np.zeros(len(loaded.paths))
    step_s = 0.0
    last = first
    steps_before = sim.steps_taken
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
        if progress is not None:
            progress(i + 1)
    mpu = loaded.meters_per_unit
    speed = forward_speed(last["bodies"]["orientation"], last["bodies"]["linearVelocity"], forward) * mpu
    gears = last["vehicles"]["currentGear"]
    standard = [getattr(loaded.description.vehicles[p].drive, "type", None) == "standard" for p in loaded.paths]
    reasons, at = sim.fault_reasons, sim.fault_steps
    summaries = [VehicleSummary(p, float(distance[v] * mpu), float(speed[v]), int(gears[v]), standard[v], reasons.get(p),
                                at[p] - steps_before if p in at and at[p] > steps_before else None)
                 for v, p in enumerate(loaded.paths)]
    offset = loaded.drive_cycle.start_time_code / loaded.drive_cycle.time_codes_per_second / sim.dt
    return SimulationResult(steps, sim.dt, loaded.paths, loaded.wheel_paths, loaded.load_s, step_s, summaries, mpu,
                            recorder.arrays() if recorder.active else {"vehicles": {}, "wheels": {}, "bodies": {}},
                            initial, offset, dict(loaded.left_out), list(loaded.composition_warnings), loaded)
