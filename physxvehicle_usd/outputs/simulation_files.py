"""The `simulate` command's job: load, run, and write the trace, plot and record asked for (each atomically,
after the run; an output that cannot be written is refused before it)."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Sequence

from ..errors import InputError
from ..read.readings import READING_CODE
from ..simulate import load, problem_lines, run
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


def simulate_files(stage_file: str | os.PathLike, steps: int, dt: float, *, vehicles: Sequence[str] = (),
                   trace: str | None = None, plot: str | None = None, record: str | None = None,
                   threads: int = 1, controls: Sequence[str] = (), reading: str = "omniverse",
                   report: Callable[[str], None] = lambda line: None) -> SimulationResult:
    """Load, run and write the requested files (each atomically, after the run); stage problems go to `report`,
    and so do what the ovphysx reading changed (reading="ovphysx") and a dt too long for a vehicle (DT_LIMIT).

    controls: `NAME=VALUE` or `NAME=A:B` (simulate/control_specs.py), applied over the stage's own controls."""
    import json

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
    for line in loaded.composition_warnings:
        report(f"warning: {line}")
    for line in problem_lines(loaded.description, loaded.left_out):
        report(line)
    for diagnostic in loaded.description.diagnostics:
        if diagnostic.code == READING_CODE:
            report(diagnostic.line())
    for diagnostic in loaded.diagnostics:
        report(diagnostic.line())
    result = run(loaded, steps, dt, controls=given or None, outputs=outputs)
    if trace:
        from ..stage.io import write_atomic

        text = json.dumps(result.trace, separators=(",", ":"))
        _writing(trace, lambda: write_atomic(trace, text + "\n"))
    if plot:
        from ..stage.io import write_atomic
        from .plot import figure_format
        from .sim_plot import plot_bytes

        figure = plot_bytes(result, figure_format(plot), title=f"{Path(stage_file).name}: {steps} steps of {dt:g} s")
        _writing(plot, lambda: write_atomic(plot, figure))
    if record:
        from .record import write_record

        _writing(record, lambda: write_record(result, loaded.stage, str(Path(stage_file).absolute()), record))
    return result
