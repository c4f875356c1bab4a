"""The `simulate` command's job: load, run, and write the trace, plot and record asked for (each atomically,
after the run; an output that cannot be written is refused before it). For many stages (`simulate PATH...`), the
same for one file, with what it gave kept for the report: its outputs go into the folders --trace, --plot and
--record then name, as DIR/<the file's path from the folder holding every input><OUTPUT_SUFFIXES>
(many_files.output_paths)."""
from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import InputError
from ..read.readings import READING_CODE
from ..simulate import NoVehicleError, load, problem_lines, run, text_summary
from ..simulate.result import SimulationResult


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


def simulate_files(stage_file: str | os.PathLike, steps: int, dt: float | None, *, vehicles: Sequence[str] = (),
                   trace: str | None = None, plot: str | None = None, record: str | None = None,
                   threads: int = 1, controls: Sequence[str] = (), reading: str = "omniverse",
                   report: Callable[[str], None] = lambda line: None,
                   progress: Callable[[int], None] | None = None) -> SimulationResult:
    """Load, run and write the requested files (each atomically, after the run); stage problems go to `report`,
    and so do what the ovphysx reading changed (reading="ovphysx") and a dt too long for a vehicle (DT_LIMIT).

    controls: `NAME=VALUE` or `NAME=A:B` (simulate/control_specs.py), applied over the stage's own controls."""
    from ..simulate.control_specs import controls_from_specs

    given = controls_from_specs(controls, steps)

    outputs = [name for name, path in (("trace", trace), ("plot", plot), ("record", record)) if path]
    for path in (trace, plot, record):
        if path:
            _check_writable(path)
    if plot:
        from .plot import figure_format

        figure_format(plot)  # an extension we cannot write is refused before the run
    if record and Path(record).suffix not in (".usda", ".usd", ".usdc"):
        raise InputError("the record must be a .usda, .usd or .usdc file", file=str(record))
    loaded = load(stage_file, dt, vehicles or None, threads, reading)
    _check_controls(loaded, given, report)
    for line in loaded.composition_warnings:
        report(f"warning: {line}")
    for line in problem_lines(loaded.description, loaded.left_out):
        report(line)
    for diagnostic in loaded.description.diagnostics:
        if diagnostic.code == READING_CODE:
            report(diagnostic.line())
    for diagnostic in loaded.diagnostics:
        report(diagnostic.line())
    result = run(loaded, steps, dt, controls=given or None, outputs=outputs, progress=progress)
    # every output made in memory first, the record (USD's export, the likeliest to fail) written first: an output
    # that cannot be made or written leaves none of the others half done
    from ..stage.io import write_atomic

    texts: dict[str, str | bytes] = {}
    if trace:
        texts[trace] = json.dumps(result.trace, separators=(",", ":")) + "\n"
    if plot:
        from .plot import figure_format
        from .sim_plot import plot_bytes

        texts[plot] = plot_bytes(result, figure_format(plot),
                                 title=f"{Path(stage_file).name}: {steps} steps of {result.dt:g} s")
    if record:
        from .record import write_record

        _writing(record, lambda: write_record(result, loaded.stage, str(Path(stage_file).absolute()), record))
    for path, data in texts.items():
        _writing(path, functools.partial(write_atomic, path, data))
    return result


def _check_controls(loaded, given: dict, report: Callable[[str], None]) -> None:
    """A --control a vehicle has no use for is refused (it would do nothing, silently); a tank driven with the
    accelerator or its thrusts, whose other half stays at 0 all run, is told it will not move."""
    import numpy as np

    from ..simulate.control_specs import TANK, check_vehicle_controls, vehicle_kinds

    params = loaded.simulator.params
    kinds = vehicle_kinds(params)
    check_vehicle_controls(given, loaded.paths, kinds)
    tank_controls = ("accelerator", "thrust0", "thrust1")
    if not set(tank_controls) & set(given):
        return
    cycled = {channel.control for channel in loaded.drive_cycle.channels}
    state = loaded.simulator.state

    def stays_zero(name: str, v: int) -> bool:
        if name in given:
            return not np.any(given[name])
        return name not in cycled and getattr(state, name)[v] == 0

    for v, (path, kind) in enumerate(zip(loaded.paths, kinds)):
        zero = [name for name in tank_controls if kind == TANK and stays_zero(name, v)]
        if "accelerator" in zero or {"thrust0", "thrust1"} <= set(zero):
            report(f"note: {path}: a tank moves with the accelerator and its thrusts; {' and '.join(zero)} "
                   f"{'stays' if len(zero) == 1 else 'stay'} 0 all run, so it will not move "
                   "(--control accelerator=1 --control thrust0=1 --control thrust1=1 drives it straight)")


# -- many files ------------------------------------------------------------------------------------------------------

OUTPUT_SUFFIXES = {"trace": ".trace.json", "plot": ".plot.png", "record": ".record.usda"}
EXIT_CODES = {"ok": 0, "frozen": 1, "no_vehicle": 1, "failed": 2}  # the CLI's exit codes, by a file's status


@dataclass
class SimulatedFile:
    """What simulating one of many files gave: small, to come back from a worker; nothing in it differs from run
    to run (no timings), so that the report is the same whoever ran it."""
    file: str
    status: str                     # "ok", "frozen" (the guard froze a vehicle), "no_vehicle", "failed" (EXIT_CODES)
    problems: list[str] = field(default_factory=list)  # for stderr, as one file's run says them there
    summary: dict[str, Any] | None = None  # the JSON summary, without timings
    lines: list[str] = field(default_factory=list)     # the text summary, without timings
    message: str | None = None      # why it did not run, naming the file

    def report_lines(self, fmt: str) -> list[str]:
        """The file's part of the report (stdout): text lines naming the file, or one JSON line."""
        if fmt == "json":
            body = self.summary if self.summary is not None else {"error": self.message}
            return [json.dumps({"file": self.file, "status": self.status, **body})]
        if self.summary is None:
            return [f"error: {self.message}"]
        return [f"{self.file}:{'' if line.startswith('/') else ' '}{line}" for line in self.lines]


def simulation_failed(file: str, why: str) -> SimulatedFile:
    return SimulatedFile(file=file, status="failed", message=why)


def simulate_file(file: str, *, steps: int, dt: float | None, base: str, trace: str | None = None, plot: str | None = None,
                  record: str | None = None, **options) -> SimulatedFile:
    """Simulate one of many files: simulate_files with its outputs in the folders trace, plot and record (names:
    output_paths with `base`), what it reports kept. Raises InputError for a file that cannot be read
    (many_files.map_paths makes it the file's failure)."""
    from ..many_files import output_paths

    outputs = {name: output_paths([file], base, folder, OUTPUT_SUFFIXES[name])[file]
               for name, folder in (("trace", trace), ("plot", plot), ("record", record)) if folder}
    problems: list[str] = []
    say = problems.append
    try:
        result = simulate_files(file, steps, dt, report=lambda line: say(f"{file}: {line}"), **outputs, **options)
    except NoVehicleError as nothing:
        return SimulatedFile(file=file, status="no_vehicle", problems=[f"{file}: {line}" for line in nothing.problems],
                             message=str(nothing))
    problems += [f"{file}: {line}" for line in result.frozen_lines()]
    return SimulatedFile(file=file, status="frozen" if result.frozen else "ok", problems=problems,
                         summary=result.summary(timings=False), lines=text_summary(result, timings=False))


def report_end(results: list[SimulatedFile]) -> str:
    """The text report's last line: how many files ran, how many did not."""
    ran = [r for r in results if r.summary is not None]
    frozen = sum(1 for r in ran if r.status == "frozen")
    return (f"simulated {len(results)} file(s): {len(ran)} ran" + (f" ({frozen} with frozen vehicles)" if frozen else "")
            + (f", {len(results) - len(ran)} did not" if len(ran) < len(results) else ""))


def exit_code(results: list[SimulatedFile]) -> int:
    return max((EXIT_CODES[r.status] for r in results), default=0)
