"""One figure that shows how a vehicle is tuned: engine, gearing, tires, suspension and wheel layout.

Values come from the stage description (what the PhysX USD parser would use) and are shown in SI
units whatever the stage units, so figures of the same vehicle in metres and centimetres look the same.
Curves follow vehicle2's models (shared/spec/vehicle2_numerics.md): the engine torque curve is
normalised by peak torque and maximum speed; lateral stiffness is C_y * S1(3 * (load / rest load) / x)
with S1(K) = min(1, K - K^2/3 + K^3/27); the suspension spring force is stiffness * jounce.
"""
from __future__ import annotations

import math
import os
from collections.abc import Iterable

import numpy as np

from .. import properties as P
from ..description import Block, StageDescription, VehicleDescription
from ..errors import InputError
from ..stage.io import write_atomic

RPM_PER_RAD_S = 60.0 / (2.0 * math.pi)
KMH_PER_M_S = 3.6
AXES = {"posX": (1, 0, 0), "negX": (-1, 0, 0), "posY": (0, 1, 0), "negY": (0, -1, 0), "posZ": (0, 0, 1),
        "negZ": (0, 0, -1)}


def _si(block: Block, base: str, units) -> object:
    return P.stage_to_si(P.prop(block.schema_name, base), block[base], units)


def _name(block: Block, fallback: str) -> str:
    return (block.path or fallback).rsplit("/", 1)[-1]


def _distinct(blocks: Iterable[tuple[str, Block]], keys: tuple[str, ...]) -> list[tuple[str, Block]]:
    """One curve per set of values; the label names every component prim that has them."""
    names: dict[tuple, list[str]] = {}
    first: dict[tuple, Block] = {}
    for label, block in blocks:
        key = tuple(repr(block.get(k)) for k in keys)
        first.setdefault(key, block)
        name = _name(block, label)
        if name not in names.setdefault(key, []):
            names[key].append(name)
    return [(", ".join(names[key]), block) for key, block in first.items()]


def _note(ax, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, transform=ax.transAxes, fontsize=9, color="0.35")
    ax.set_xticks([])
    ax.set_yticks([])


def _engine(ax, v: VehicleDescription, units) -> None:
    ax.set_title("Engine")
    if v.drive is None:
        _note(ax, "no drive:\ntorques are applied per wheel\n(PhysxVehicleWheelControllerAPI)")
        return
    if v.drive.type == "basic":
        torque = _si(v.drive.basic, "peakTorque", units)
        ax.axhline(torque, color="C0")
        ax.set_ylim(0, torque * 1.25)
        ax.set_ylabel("torque to the wheels [N*m]")
        ax.set_xticks([])
        ax.text(0.5, 0.4, f"basic drive: accelerator x {torque:.4g} N*m,\nno engine speed", ha="center",
                transform=ax.transAxes, fontsize=9)
        return
    e = v.drive.engine
    peak, max_speed = _si(e, "peakTorque", units), e["maxRotationSpeed"]
    curve = np.array(e["torqueCurve"], dtype=float)
    speed = np.union1d(np.linspace(0.0, max_speed, 200), np.clip(curve[:, 0], 0.0, 1.0) * max_speed)  # keep the corners
    torque = peak * np.interp(speed / max_speed, curve[:, 0], curve[:, 1])
    ax.plot(speed * RPM_PER_RAD_S, torque, color="C0", label="torque")
    ax.set_xlabel("engine speed [rpm]")
    ax.set_ylabel("torque [N*m]", color="C0")
    ax.set_ylim(0, torque.max() * 1.15)
    power = ax.twinx()
    power.plot(speed * RPM_PER_RAD_S, torque * speed / 1000.0, color="C3", label="power")
    power.set_ylabel("power [kW]", color="C3")
    power.set_ylim(0, (torque * speed).max() / 1000.0 * 1.15)
    ax.set_title(f"Engine: peak {peak:.4g} N*m, max {max_speed * RPM_PER_RAD_S:.0f} rpm")


def _driven_radius(v: VehicleDescription, units) -> float:
    driven = set(v.multiWheelDifferential["wheels"]) if v.multiWheelDifferential is not None else set()
    wheels = [w for w in v.wheels if w.index in driven] or v.wheels
    return float(np.mean([_si(w.wheel, "radius", units) for w in wheels]))


def _gears(ax, v: VehicleDescription, units) -> None:
    ax.set_title("Gearing")
    if v.drive is None or v.drive.type != "standard":
        _note(ax, "no gearbox" + (" (basic drive)" if v.drive is not None else " (no drive)"))
        return
    e, g = v.drive.engine, v.drive.gears
    max_speed, ratios, scale = e["maxRotationSpeed"], list(g["ratios"]), g["ratioScale"]
    radius = _driven_radius(v, units)
    speed = np.linspace(0.0, max_speed, 50)
    up = list(v.drive.autoGearBox["upRatios"]) if v.drive.autoGearBox is not None else []
    for i, ratio in enumerate(ratios):
        if ratio == 0:
            continue
        label = "reverse" if ratio < 0 else f"gear {i}"
        # signed: reverse runs backwards, left of standstill, instead of under the forward gear of the same ratio
        vehicle = speed / (ratio * scale) * radius * KMH_PER_M_S
        ax.plot(vehicle, speed * RPM_PER_RAD_S, linestyle="--" if ratio < 0 else "-", label=f"{label} ({ratio:.3g})")
        if ratio > 0 and i - 1 < len(up):
            shift = up[i - 1] * max_speed
            ax.plot(shift / (ratio * scale) * radius * KMH_PER_M_S, shift * RPM_PER_RAD_S, "k.", markersize=5)
    ax.axvline(0.0, color="0.6", linewidth=0.8)
    ax.set_xlabel("vehicle speed [km/h] (negative: reverse)")
    ax.set_ylabel("engine speed [rpm]")
    ax.legend(fontsize=7, loc="lower right")
    ax.set_title(f"Gearing (ratio scale {scale:g}, wheel r {radius:.3g} m; dots: upshifts)")


def _friction(ax, d: StageDescription, v: VehicleDescription) -> None:
    slip = np.linspace(0.0, 1.5, 200)
    tires = _distinct(((w.path.rsplit("/", 1)[-1], w.tire) for w in v.wheels), ("frictionVsSlipGraph", "frictionTable"))
    for label, tire in tires:
        graph = np.array(tire["frictionVsSlipGraph"], dtype=float)
        multiplier = np.interp(slip, graph[:, 0], graph[:, 1])
        table = d.tireFrictionTables.get(tire["frictionTable"] or "")
        surfaces = []
        if table is not None:
            for material, mu in zip(table["groundMaterials"], table["frictionValues"]):
                surfaces.append((material.rsplit("/", 1)[-1], mu))
            surfaces.append(("other surfaces", table["defaultFrictionValue"]))
        else:
            surfaces.append(("no table", 1.0))
        name = label
        for surface, mu in surfaces:
            ax.plot(slip, mu * multiplier, label=f"{name} on {surface}")
    ax.set_xlabel("longitudinal slip")
    ax.set_ylabel("friction coefficient")
    top = max((line.get_ydata().max() for line in ax.get_lines()), default=1.0)
    ax.set_ylim(0, max(top, 0.1) * 1.15)
    ax.legend(fontsize=7)
    ax.set_title("Tire friction vs slip")


def _s1(k: np.ndarray) -> np.ndarray:
    return np.minimum(1.0, k - k ** 2 / 3.0 + k ** 3 / 27.0)


def _lateral(ax, v: VehicleDescription, units) -> None:
    tires = _distinct(((w.path.rsplit("/", 1)[-1], w.tire) for w in v.wheels), ("lateralStiffnessGraph", "restLoad"))
    for label, tire in tires:
        x, c_y = _si(tire, "lateralStiffnessGraph", units)
        rest = _si(tire, "restLoad", units)
        load = np.linspace(0.0, 3.0 * rest, 200)
        stiffness = np.full_like(load, c_y) if x == 0 else c_y * _s1(3.0 * (load / rest) / x)
        name = label
        line, = ax.plot(load / 1000.0, stiffness / 1000.0, label=f"{name} (x={x:g})")
        at_rest = c_y if x == 0 else c_y * _s1(np.array(3.0 / x))
        ax.plot(rest / 1000.0, at_rest / 1000.0, "o", color=line.get_color(), markersize=4)
    ax.set_xlabel("tire load [kN]")
    ax.set_ylabel("lateral stiffness [kN/rad]")
    ax.legend(fontsize=7)
    ax.set_title("Lateral stiffness vs load (dots: rest load)")


def _suspension(ax, d: StageDescription, v: VehicleDescription, units) -> None:
    magnitude = d.scenes[v.scene].settings["gravityMagnitude"] if v.scene in d.scenes else units.default_gravity
    gravity = magnitude * units.stage_to_si(P.LENGTH)
    suspensions = _distinct(((w.path.rsplit("/", 1)[-1], w.suspension) for w in v.wheels),
                            ("springStrength", "springDamperRate", "travelDistance", "sprungMass"))
    for label, s in suspensions:
        k, c = _si(s, "springStrength", units), _si(s, "springDamperRate", units)
        travel, sprung = _si(s, "travelDistance", units), _si(s, "sprungMass", units)
        jounce = np.linspace(0.0, travel, 50)
        name = label
        frequency = math.sqrt(k / sprung) / (2 * math.pi) if sprung > 0 and k > 0 else float("nan")
        ratio = c / (2 * math.sqrt(k * sprung)) if sprung > 0 and k > 0 else float("nan")
        line, = ax.plot(jounce * 1000.0, k * jounce / 1000.0,
                        label=f"{name}: {frequency:.2g} Hz, damping ratio {ratio:.2g}")
        rest = min(sprung * gravity / k, travel) if k > 0 else travel
        ax.plot(rest * 1000.0, k * rest / 1000.0, "o", color=line.get_color(), markersize=4)
    ax.set_xlabel("jounce [mm] (0 = full droop)")
    ax.set_ylabel("spring force [kN]")
    ax.legend(fontsize=7)
    ax.set_title("Suspension springs (dots: rest)")


def _layout(ax, d: StageDescription, v: VehicleDescription, units) -> None:
    from matplotlib.patches import Rectangle

    forward = np.array(AXES.get(v.context.get("longitudinalAxis"), (1, 0, 0)), dtype=float)
    up = np.array(AXES.get(v.context.get("verticalAxis"), (0, 0, 1)), dtype=float)
    left = np.cross(up, forward)
    length = units.stage_to_si(P.LENGTH)
    driven = set(v.multiWheelDifferential["wheels"]) if v.multiWheelDifferential is not None else set()
    steered = set()
    if v.steering is not None and v.steering["maxSteerAngle"]:
        # the parser builds a steering block from deprecated per-wheel angles even when nothing steers
        wheels = list(v.steering["wheels"]) or [w.index for w in v.wheels]
        multipliers = list(v.steering["angleMultipliers"]) or [1.0] * len(wheels)
        steered = {w for w, m in zip(wheels, multipliers) if m}
    elif v.ackermannSteering is not None:
        steered = {v.ackermannSteering["wheel0"], v.ackermannSteering["wheel1"]}
    for w in v.wheels:
        p = np.array(w.attachment["suspensionFramePosition"], dtype=float) * length
        x, y = float(p @ left), float(p @ forward)
        r, width = _si(w.wheel, "radius", units), _si(w.wheel, "width", units)
        face = "C0" if w.index in driven else "white"
        edge = "C3" if w.index in steered else "k"
        ax.add_patch(Rectangle(
            (x - width / 2, y - r), width, 2 * r, facecolor=face, edgecolor=edge, linewidth=1.5))
        ax.annotate(str(w.index), (x, y), ha="center", va="center", fontsize=8,
                    color="white" if w.index in driven else "k")
    ax.plot(0, 0, "k+", markersize=10)
    ax.set_aspect("equal")
    ax.autoscale_view()
    ax.margins(0.25)
    ax.invert_xaxis()  # left of the vehicle on the left of the plot, looking forward
    ax.set_xlabel("lateral [m] (left <-)")
    ax.set_ylabel("longitudinal [m] (forward ^)")
    mass = _si(v.rigidBody, "mass", units)
    ax.set_title(f"Wheels from above: {mass:.4g} kg, {len(v.wheels)} wheels\n(filled: driven, red: steered, +: CoM frame)",
                 fontsize=9)


def vehicle_figure(description: StageDescription, vehicle: str | None = None):
    """A matplotlib Figure (Agg) for one vehicle (the first one when `vehicle` is None)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    if not description.vehicles:
        errors = [d.line() for d in description.diagnostics if d.severity.value == "error"]
        raise InputError("the stage has no vehicle that reads without errors" + (": " + "; ".join(errors[:3]) if errors else ""),
                         file=description.stage.file or None)
    path = vehicle or sorted(description.vehicles)[0]
    if path not in description.vehicles:
        raise InputError(f"no vehicle at {path} (vehicles read: {', '.join(sorted(description.vehicles))})",
                         file=description.stage.file or None)
    v, units = description.vehicles[path], description.units
    fig, axes = plt.subplots(2, 3, figsize=(17, 10))
    _engine(axes[0, 0], v, units)
    _gears(axes[0, 1], v, units)
    _layout(axes[0, 2], description, v, units)
    _friction(axes[1, 0], description, v)
    _lateral(axes[1, 1], v, units)
    _suspension(axes[1, 2], description, v, units)
    for ax in axes.flat:
        if ax.get_xticks().size:
            ax.grid(True, alpha=0.3)
    fig.suptitle(f"{path} in {os.path.basename(description.stage.file) or 'stage'} (SI units)", fontsize=13)
    fig.tight_layout()
    return fig


# File extension -> matplotlib's format name: what the Agg, SVG, PDF and PS backends write (JPEG and TIFF through
# Pillow, which matplotlib depends on).
FIGURE_FORMATS = {"png": "png", "svg": "svg", "pdf": "pdf", "jpg": "jpeg", "jpeg": "jpeg", "eps": "eps", "ps": "ps",
                  "tif": "tiff", "tiff": "tiff"}


def figure_format(output: str | os.PathLike) -> str:
    """The format a figure file's extension names; InputError for none or one we cannot write."""
    suffix = os.path.splitext(os.fspath(output))[1].lower().lstrip(".")
    if suffix not in FIGURE_FORMATS:
        known = ", ".join(f".{s}" for s in FIGURE_FORMATS)
        said = f"the extension .{suffix} is not a figure format" if suffix else "the file name has no extension"
        raise InputError(f"{said}; give one of {known}", file=os.fspath(output))
    return FIGURE_FORMATS[suffix]


def figure_bytes(fig, fmt: str) -> bytes:
    """The figure in `fmt` (a FIGURE_FORMATS value), closed afterwards."""
    import io

    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format=fmt, dpi=100)
    finally:
        plt.close(fig)
    return buffer.getvalue()


def plot_vehicle(description: StageDescription, output: str | os.PathLike, vehicle: str | None = None) -> None:
    """Write the figure atomically, in the format the file's extension names (.png, .svg, .pdf, .jpg, ...)."""
    fmt = figure_format(output)
    write_atomic(output, figure_bytes(vehicle_figure(description, vehicle), fmt))
