"""A figure of a simulation: forward speed, engine speed, gear and tire slips against time (matplotlib, Agg)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ..simulate import SimulationResult

# The least y span of each panel but the gears': a quantity that does not move is drawn as a flat line, where
# matplotlib's autoscale would blow its 1e-5 noise up to fill the panel and look like motion.
MIN_SPANS = {0: 1.0, 1: 100.0, 3: 0.01, 4: 1.0}  # km/h, rpm, longitudinal slip, lateral slip in degrees
MAX_VEHICLES = 6  # more lines than this stop being readable; the title says how many were left out
_RAD_S_TO_RPM = 60.0 / (2.0 * np.pi)
_WHEEL_STYLES = ("-", "--", ":", "-.")


def plot_png(result: "SimulationResult", title: str | None = None) -> bytes:
    """The plot as PNG bytes; needs a result run with outputs including "plot" (or "trace")."""
    return plot_bytes(result, "png", title)


def plot_bytes(result: SimulationResult, fmt: str, title: str | None = None) -> bytes:
    """The plot in `fmt` (outputs.plot.FIGURE_FORMATS' values: png, svg, pdf, jpeg, ...)."""
    from .plot import figure_bytes

    return figure_bytes(simulation_figure(result, title), fmt)


def simulation_figure(result: SimulationResult, title: str | None = None):
    """The matplotlib Figure; needs a result run with outputs including "plot" (or "trace")."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from ..simulate import forward_speeds
    from ..simulate.result import gear_name

    arrays = result.arrays
    for kind, name in (("vehicles", "engineRotationSpeed"), ("vehicles", "currentGear"),
                       ("wheels", "tireLongitudinalSlip"), ("wheels", "tireLateralSlip"),
                       ("bodies", "orientation"), ("bodies", "linearVelocity")):
        if name not in arrays.get(kind, {}):
            raise ValueError(f"the result has no {kind} {name}; run with outputs including 'plot'")
    shown = min(len(result.paths), MAX_VEHICLES)
    t = (np.arange(result.steps) + 1) * result.dt
    speed = forward_speeds(result)
    engine = arrays["vehicles"]["engineRotationSpeed"] * _RAD_S_TO_RPM
    gear = arrays["vehicles"]["currentGear"]
    long_slip = arrays["wheels"]["tireLongitudinalSlip"]
    lat_slip = np.degrees(arrays["wheels"]["tireLateralSlip"])

    fig, axes = plt.subplots(5, 1, figsize=(10, 12), sharex=True, constrained_layout=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for v in range(shown):
        colour = colours[v % len(colours)]
        label = result.paths[v]
        axes[0].plot(t, 3.6 * speed[:, v], color=colour, label=label)
        axes[1].plot(t, engine[:, v], color=colour)
        axes[2].step(t, gear[:, v], where="post", color=colour)
        for w in range(len(result.wheel_paths[v])):
            style = _WHEEL_STYLES[w % len(_WHEEL_STYLES)]
            axes[3].plot(t, long_slip[:, v, w], color=colour, linestyle=style, linewidth=1)
            axes[4].plot(t, lat_slip[:, v, w], color=colour, linestyle=style, linewidth=1)
    axes[0].set_ylabel("forward speed (km/h)")
    axes[1].set_ylabel("engine speed (rpm)")
    # telemetry's currentGear: -1 reverse, 0 neutral, 1.. forward; labelled so, reverse below neutral
    shown_gears = gear[:, :shown]
    low, high = min(-1, int(shown_gears.min(initial=0))), max(1, int(shown_gears.max(initial=0)))
    axes[2].set_yticks(range(low, high + 1))
    axes[2].set_yticklabels([gear_name(g) for g in range(low, high + 1)])
    axes[2].set_ylim(low - 0.5, high + 0.5)
    axes[2].set_ylabel("gear")
    axes[3].set_ylabel("longitudinal slip")
    axes[4].set_ylabel("lateral slip (deg)")
    axes[4].set_xlabel("time (s)")
    for panel, span in MIN_SPANS.items():
        _at_least(axes[panel], span)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    axes[0].legend(loc="best", fontsize="small")
    wheel_names = [path.rsplit("/", 1)[-1] for path in result.wheel_paths[0]]
    axes[3].legend([Line2D([], [], color="0.3", linestyle=_WHEEL_STYLES[w % len(_WHEEL_STYLES)])
                    for w in range(len(wheel_names))], wheel_names, loc="best", fontsize="small",
                   title="wheel (line style)", title_fontsize="small")
    heading = title or f"{result.steps} steps of {result.dt:g} s"
    if len(result.paths) > shown:
        heading += f" (first {shown} of {len(result.paths)} vehicles)"
    axes[0].set_title(heading)
    return fig


def _at_least(ax, span: float) -> None:
    """Give the panel a y span of at least `span` around its data, if the data spans less."""
    lo, hi = ax.dataLim.intervaly
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo >= span:
        return
    centre = 0.5 * (lo + hi)
    ax.set_ylim(centre - 0.5 * span, centre + 0.5 * span)
