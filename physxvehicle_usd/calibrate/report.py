"""What `calibrate` says: a text report, the JSON report, and the before/after plot.

JSON: {"vehicles": {path: {"fitted": {"PRIM.ATTR": {"value", "initial", "low", "high", "unit", "identified"}},
"residual": {signal: {"before", "after"}}}}} (SI units; low/high: the 95 % interval; residual: the RMS of simulated
minus logged over the samples the log covers).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .log import SIGNALS
from .run import Calibration


def as_json(calibration: Calibration) -> str:
    return json.dumps(calibration.as_json(), indent=1) + "\n"


def _g(x: float) -> str:
    return f"{x:.6g}"


def text_lines(calibration: Calibration) -> list[str]:
    """The report for a terminal or a pipe: per vehicle the fitted values, the warnings, the residuals, then what
    was written."""
    from io import StringIO

    from rich.console import Console
    from rich.table import Table

    buffer = StringIO()
    console = Console(file=buffer, width=160, no_color=True, highlight=False)
    for path, c in calibration.vehicles.items():
        console.print(f"{path}: {len(c.fitted)} properties fitted to {calibration.log} by {c.method.replace('_', ' ')} "
                      f"({c.evaluations} evaluations, {c.lanes} lanes run); the log resampled by {c.resampling}")
        table = Table(show_edge=False)
        for column in ("property", "initial", "fitted", "95 % interval", "unit", "identified"):
            table.add_column(column, overflow="fold")
        for f in c.fitted:
            table.add_row(f.name, _g(f.initial), _g(f.value), f"{_g(f.low)} .. {_g(f.high)}", f.unit,
                          "yes" if f.identified else "NO")
        console.print(table)
        for name, why in c.left_out.items():
            console.print(f"not fitted: {name}: {why}")
        for warning in c.warnings:
            console.print(f"warning: {warning}")
        residual = Table(show_edge=False, title="residual (RMS of simulated - logged)")
        for column in ("signal", "unit", "before", "after"):
            residual.add_column(column)
        for name, (before, after) in c.residual.items():
            kind = name.rsplit("_", 1)[0] if name not in SIGNALS else name
            residual.add_row(name, SIGNALS[kind].unit, _g(before), _g(after) + ("" if SIGNALS[kind].smooth
                                                                                     else " (compared, not fitted)"))
        console.print(residual)
    lines = buffer.getvalue().splitlines()
    return lines + [written_line(calibration)]


def written_line(calibration: Calibration) -> str:
    from .layer import written_values

    written, kept = written_values(calibration)
    kept_text = (f"; left as they were (not identified): {', '.join(v.name for v in kept)}" if kept else "")
    if calibration.status == "written":
        return f"wrote {calibration.output}: {len(written)} fitted value(s){kept_text}"
    if calibration.status == "planned":
        return f"dry run: would write {calibration.output}: {len(written)} fitted value(s){kept_text}; wrote nothing"
    if calibration.status == "unchanged":
        return f"wrote nothing: no fitted value is identified{kept_text}"
    return "wrote nothing"


def plot(calibration: Calibration, output: str) -> str:
    """The log against the simulation before and after the fit, a panel per signal (matplotlib), written to
    `output` (PNG or any format matplotlib writes by its suffix)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..stage.io import write_atomic

    panels = [(path, name) for path, c in calibration.vehicles.items() for name in c.logged]
    columns = 2 if len(panels) > 1 else 1
    rows = int(np.ceil(len(panels) / columns))
    figure, axes = plt.subplots(rows, columns, figsize=(7 * columns, 2.2 * rows), squeeze=False, sharex=True)
    for ax, (path, name) in zip(axes.ravel(), panels):
        c = calibration.vehicles[path]
        ax.plot(c.times, c.logged[name], color="black", lw=1.2, label="log")
        ax.plot(c.times, c.before[name], color="tab:red", lw=0.9, ls="--", label="before")
        ax.plot(c.times, c.after[name], color="tab:blue", lw=0.9, label="after")
        kind = name.rsplit("_", 1)[0] if name not in SIGNALS else name
        ax.set_ylabel(f"{name} [{SIGNALS[kind].unit}]")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(panels):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    axes[0][0].legend(loc="best", fontsize="small")
    figure.suptitle(f"calibrate: {Path(calibration.stage).name} against {Path(calibration.log).name}")
    figure.tight_layout()
    from io import BytesIO

    data = BytesIO()
    figure.savefig(data, format=Path(output).suffix.lstrip(".") or "png", dpi=90)
    plt.close(figure)
    write_atomic(output, data.getvalue())
    return output
