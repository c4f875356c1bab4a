"""Drives of the sample car for `calibrate`'s tests: a stage over samples/car/car.usda whose controller attributes
carry a drive cycle (time samples), in a gear held throughout, and the same controls as ovphysx takes them.

The cycle (`DRIVE`, seconds) starts at 12 m/s: throttle eased in, part throttle with a gentle steering wave (the
tires stay linear), coasting, then a brake eased in to 0.12 (the car slows, rolling, to about 9 m/s). `STRAIGHT` is
throttle alone, straight ahead: it tells nothing about lateral stiffness or brake torque. Second gear held: no
automatic shift moves in time as a parameter changes. Every control is ramped: a step of throttle or brake makes
the stiff tires chatter for a few steps, a chaotic phase in which float32 rounding decides the outcome (see
tests/test_conformance_ovphysx.py), which would make the residual rough at the scale of a finite difference; a
launch from rest does it whatever the ramp (below 5 m/s the slip denominators are small), hence the start at speed.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from pxr import Sdf, Usd

from physxvehicle_usd.calibrate.lanes import with_element

SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "car" / "car.usda"
CAR = "/World/Car"
DT = 1.0 / 60.0
TIME_CODES_PER_SECOND = 60.0
# (control, [(seconds, value), ...]) linear between samples, held after the last
DRIVE = {
    "accelerator": [(0.0, 0.0), (1.0, 1.0), (3.0, 1.0), (3.5, 0.5), (6.0, 0.5), (6.5, 0.0)],
    "steer": [(0.0, 0.0), (3.0, 0.0), (3.75, 0.12), (4.5, 0.0), (5.25, -0.12), (6.0, 0.0)],
    "brake0": [(0.0, 0.0), (6.5, 0.0), (7.5, 0.12)],
}
SECONDS = 9.0
SPEED = 12.0  # m/s, forward (+x), at the start: a stretch of a drive, not a launch from rest
# the same phases, shorter (the default test run's drive)
SHORT = {
    "accelerator": [(0.0, 0.0), (0.5, 1.0), (1.5, 1.0), (1.75, 0.4), (3.0, 0.4), (3.25, 0.0)],
    "steer": [(0.0, 0.0), (1.5, 0.0), (2.0, 0.12), (2.5, -0.12), (3.0, 0.0)],
    "brake0": [(0.0, 0.0), (3.0, 0.0), (3.5, 0.12)],
}
SHORT_SECONDS = 4.5
STRAIGHT = {"accelerator": [(0.0, 0.0), (1.0, 0.8)]}
# hidden changes for the recovery tests: PRIM.ATTR -> factor on the sample's value
HIDDEN = {
    "/World/CarParts/Engine.physxVehicleEngine:peakTorque": 1.2,
    "/World/CarParts/FrontSuspension.physxVehicleSuspension:springStrength": 1.25,
    "/World/Car.physics:mass": 1.15,
    "/World/Car.physxVehicleBrakes:brakes0:maxBrakeTorque": 0.8,
    "/World/CarParts/FrontTire.physxVehicleTire:lateralStiffnessGraph[1]": 0.85,
}
HIDDEN_FOUR = {name: factor for name, factor in HIDDEN.items() if "lateralStiffness" not in name}
TELEMETRY = {"bodies": ["position", "linearVelocity", "angularVelocity"], "vehicles": ["engineRotationSpeed", "currentGear"],
             "wheels": ["rotationSpeed", "suspensionJounce"]}


def write_drive(path: Path, cycle: dict = DRIVE, gear: int = 2, changes: dict | None = None,
                speed: float = SPEED) -> Path:
    """A stage over the sample car with the drive cycle's time samples (stage time = seconds x 60) and the
    properties of `changes` (PRIM.ATTR[i] -> factor) changed."""
    source = Sdf.Layer.FindOrOpen(str(SAMPLE))
    layer = Sdf.Layer.CreateNew(str(path))
    for key in source.pseudoRoot.ListInfoKeys():
        if key not in ("subLayers", "subLayerOffsets", "documentation", "primChildren"):
            layer.pseudoRoot.SetInfo(key, source.pseudoRoot.GetInfo(key))
    layer.timeCodesPerSecond = TIME_CODES_PER_SECOND
    layer.subLayerPaths.append(str(SAMPLE))
    stage = Usd.Stage.Open(layer)
    car = stage.GetPrimAtPath(CAR)
    car.GetAttribute("physxVehicleController:targetGear").Set(gear)
    car.GetAttribute("physics:velocity").Set((speed, 0.0, 0.0))
    for name, samples in cycle.items():
        attr = car.GetAttribute(f"physxVehicleController:{name}")
        for seconds, value in samples:
            attr.Set(float(value), seconds * TIME_CODES_PER_SECOND)
    for name, factor in (changes or {}).items():
        prim, attribute, index = split(name)
        attr = stage.GetPrimAtPath(prim).GetAttribute(attribute)
        value = attr.Get()
        attr.Set(float(value) * factor if index is None else
                 with_element(value, index, float(np.array(value, dtype=float).flat[index]) * factor))
    layer.Save()
    return path


def split(name: str) -> tuple[str, str, int | None]:
    prim, attribute = name.split(".", 1)
    if attribute.endswith("]"):
        attribute, index = attribute[:-1].split("[")
        return prim, attribute, int(index)
    return prim, attribute, None


def controls(cycle: dict, steps: int) -> dict:
    """The cycle as ovphysx's per-step controls (value i applies during step i, from t = i dt)."""
    t = np.arange(steps) * DT
    out = {}
    for name, samples in cycle.items():
        times, values = zip(*samples)
        out[name] = np.interp(t * TIME_CODES_PER_SECOND, np.array(times) * TIME_CODES_PER_SECOND, values).tolist()
    return {CAR: out}


def true_values(changes: dict) -> dict[str, float]:
    """PRIM.ATTR[i] -> the changed value, read from the sample."""
    stage = Usd.Stage.Open(str(SAMPLE))
    out = {}
    for name, factor in changes.items():
        prim, attribute, index = split(name)
        value = np.array(stage.GetPrimAtPath(prim).GetAttribute(attribute).Get(), dtype=float)
        out[name] = float(value.flat[index or 0]) * factor
    return out


def trace_json(trace: dict) -> dict:
    """An ovphysx trace (numpy arrays) in the `simulate --trace` JSON layout."""
    out = {"dt": trace["dt"], "steps": trace["steps"], "recorded_steps": list(trace["recorded_steps"])}
    for kind in ("vehicles", "wheels", "bodies"):
        out[kind] = {path: {name: np.asarray(values).tolist() for name, values in attrs.items()}
                     for path, attrs in trace[kind].items()}
    return out


# CSV columns: signal -> (unit written, factor from SI): units other than SI on purpose
CSV_UNITS = {"speed": ("km/h", 3.6), "x": ("m", 1.0), "y": ("cm", 100.0), "yaw_rate": ("deg/s", 180 / np.pi),
             "engine_speed": ("rpm", 30 / np.pi), "wheel_speed": ("rad/s", 1.0), "jounce": ("mm", 1000.0)}


def write_csv(trace_file: Path, path: Path, wheel_paths, noise: float = 0.0, seed: int = 0, steps: int | None = None,
              time_unit: tuple[str, float] = ("ms", 1000.0)) -> Path:
    """The trace's signals as a CSV log in CSV_UNITS, with Gaussian noise of `noise` times each signal's RMS added
    (seeded), its first `steps` samples (all: None)."""
    from physxvehicle_usd.calibrate.log import read_trace

    log = read_trace(str(trace_file), DT, CAR, wheel_paths, 1.0)
    rng = np.random.default_rng(seed)
    n = log.steps if steps is None else steps
    header = [f"time [{time_unit[0]}]"]
    columns = [(np.arange(1, n + 1) * DT) * time_unit[1]]
    for s in log.signals:
        if s.kind == "gear":
            continue
        unit, factor = CSV_UNITS[s.kind]
        values = s.values[:n]
        values = values + rng.normal(0.0, noise * np.sqrt(np.mean(values ** 2)), n) if noise else values
        header.append(f"{s.name} [{unit}]")
        columns.append(values * factor)
    rows = np.stack(columns, axis=1)
    path.write_text(",".join(header) + "\n" + "\n".join(",".join(repr(float(v)) for v in row) for row in rows) + "\n")
    return path
