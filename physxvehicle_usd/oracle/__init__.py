"""Reference telemetry from real PhysX: step a USD stage in ovphysx (CPU) and return its traces.

ovphysx registers NVIDIA's PhysX schemas in its process, which cannot coexist with our vehicle
schema plugin, and a bad stage can take the whole process down. So every run happens in a fresh
subprocess executing `worker.py` (beside this file) by path; this module only prepares the request,
enforces a timeout and turns the worker's result file into numpy traces.

Trace layout (one entry per recorded step, recorded after the step is taken):

    {"dt", "steps", "recorded_steps": [1, 2, ...],
     "vehicles": {vehicle path: {attribute: array}},
     "wheels":   {wheel attachment path: {attribute: array}},
     "bodies":   {vehicle path: {attribute: array}},
     "unavailable": {"vehicles" | "wheels" | "bodies": [attributes ovphysx did not return]},
     "load_s", "step_s", "log": [PhysX warning and error lines]}

Arrays have one row per recorded step: shape (records,) for scalars, (records, lanes) for
vectors and quaternions. Values are in stage units; see `TELEMETRY` for units and frames. An
attribute PhysX does not report for a given object (engine telemetry of a basic-drive vehicle)
is absent from that object's dict; one it reports for no object at all is listed in
"unavailable".

With the environment variable PVU_PHYSX_RECORDS naming a folder, a run's result is recorded there and a later run of
the same stage and request takes the record instead of starting PhysX (`records`; the test suite keeps its
records in tests/data/physx_records).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from . import records

__all__ = ["OracleError", "TELEMETRY", "WRITABLE_CONTROLS", "run_ovphysx", "sweep_ovphysx"]

WORKER = Path(__file__).resolve().with_name("worker.py")
_ERROR_PREFIX = "ORACLE_ERROR: "
_LOG_PREFIXES = ("[Error]", "[Warning]")

# What ovphysx 0.7 reports, as (unit, frame). "length", "force" and "torque" are in stage units
# (kilogramsPerUnit, metersPerUnit); quaternions are (x, y, z, w).
TELEMETRY: dict[str, dict[str, tuple[str, str]]] = {
    "vehicles": {
        "engineRotationSpeed": ("rad/s", "-"),
        "currentGear": ("gear index (-1 reverse, 0 neutral, 1.. forward)", "-"),
        "targetGear": ("gear index, the transmission's internal target", "-"),
        "clutch": ("clutch command, 0..1", "-"),
        "gearSwitchTime": ("s since the gear change began; negative when none is active", "-"),
        "autoboxTimeSinceLastShift": ("s (float32 max before the first automatic shift)", "-"),
        "automaticTransmission": ("bool", "-"),
    },
    "wheels": {
        "rotationSpeed": ("rad/s", "about the wheel axle"),
        "rotationAngle": ("rad", "about the wheel axle"),
        "wheelSteerAngle": ("rad", "about the vertical axis"),
        "suspensionJounce": ("length, 0 = full droop", "-"),
        "suspensionForce": ("force", "world"),
        "tireFriction": ("friction coefficient from the tire friction table", "-"),
        "tireLongitudinalSlip": ("ratio", "-"),
        "tireLateralSlip": ("rad", "-"),
        "tireForce": ("force", "world"),
        "tireLongitudinalDirection": ("unit vector", "world"),
        "tireLateralDirection": ("unit vector", "world"),
        "isOnGround": ("bool (False also when the vehicle sleeps)", "-"),
        "position": ("length", "world, wheel centre"),
        "orientation": ("quaternion x, y, z, w", "world"),
    },
    "bodies": {
        "position": ("length", "world, the vehicle prim's origin"),
        "orientation": ("quaternion x, y, z, w", "world"),
        "linearVelocity": ("length/s", "world, of the centre of mass"),
        "angularVelocity": ("rad/s", "world"),
    },
}

# Controls `run_ovphysx` can write. Whole-vehicle controls need a drive; wheel controls need a
# vehicle without one. `targetGear` (the USD controller name) is written as ovphysx's requestedGear.
WRITABLE_CONTROLS: dict[str, tuple[str, ...]] = {
    "vehicles": ("accelerator", "brake0", "brake1", "steer", "targetGear", "thrust0", "thrust1"),
    "wheels": ("driveTorque", "brakeTorque", "steerAngle"),
}

_INTEGER_KINDS = "iub"


class OracleError(RuntimeError):
    """ovphysx could not run the stage; the message carries what PhysX or the worker said."""


def _plain(value: Any) -> Any:
    """Controls as JSON: numbers stay numbers, per-step sequences become lists."""
    array = np.asarray(value, dtype=float)
    if array.ndim == 0:
        return float(array)
    if array.ndim != 1:
        raise OracleError(f"a control is a number or one value per step, got shape {array.shape}")
    return array.tolist()


def _request_controls(controls: Mapping[str, Mapping[str, Any]] | None, steps: int) -> dict:
    """Checks names and lengths here, before paying for a worker start."""
    if not controls:
        return {}
    writable = set(WRITABLE_CONTROLS["vehicles"]) | set(WRITABLE_CONTROLS["wheels"])
    request: dict[str, dict[str, Any]] = {}
    for path, values in controls.items():
        request[str(path)] = {}
        for name, value in values.items():
            if name not in writable:
                raise OracleError(f"control {name!r} of {path} is not writable through ovphysx; "
                                  f"writable: {WRITABLE_CONTROLS}")
            plain = _plain(value)
            if isinstance(plain, list) and len(plain) != steps:
                raise OracleError(f"control {name!r} of {path}: expected a number or {steps} values, "
                                  f"got {len(plain)}")
            request[str(path)][str(name)] = plain
    return request


def _request_telemetry(telemetry: Mapping[str, Sequence[str]] | None) -> dict[str, list[str]] | None:
    """Checks kinds and names here, before paying for a worker start."""
    if telemetry is None:
        return None
    request: dict[str, list[str]] = {}
    for kind, names in telemetry.items():
        if kind not in TELEMETRY:
            raise OracleError(f"telemetry kind {kind!r} is not one of {sorted(TELEMETRY)}")
        unknown = [name for name in names if name not in TELEMETRY[kind]]
        if unknown:
            raise OracleError(f"{kind} telemetry {unknown} is not recorded; recorded: {sorted(TELEMETRY[kind])}")
        request[kind] = list(dict.fromkeys(names))
    return request


def _worker_environment() -> dict[str, str]:
    """The caller's environment minus our schema plugin folder, which would clash with PhysX's."""
    from ..plugin import plugin_path

    env = dict(os.environ)
    ours = str(plugin_path())
    paths = [p for p in env.get("PXR_PLUGINPATH_NAME", "").split(os.pathsep)
             if p and os.path.normpath(p) != os.path.normpath(ours)]
    if paths:
        env["PXR_PLUGINPATH_NAME"] = os.pathsep.join(paths)
    else:
        env.pop("PXR_PLUGINPATH_NAME", None)
    return env


def _log_lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.strip().startswith(_LOG_PREFIXES)]


def _failure(returncode: int, output: str) -> OracleError:
    reported = [line[len(_ERROR_PREFIX):] for line in output.splitlines() if line.startswith(_ERROR_PREFIX)]
    errors = [line for line in _log_lines(output) if line.startswith("[Error]")]
    if reported:
        message = reported[-1]
    else:
        tail = "\n".join(output.strip().splitlines()[-10:])
        message = f"the ovphysx worker stopped with exit status {returncode}:\n{tail}"
    if errors:
        message += "\nPhysX reported:\n" + "\n".join(errors)
    return OracleError(message)


def _traces(meta: dict, arrays: Mapping[str, np.ndarray]) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    traces: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for kind, paths in meta["paths"].items():
        per_path: dict[str, dict[str, np.ndarray]] = {path: {} for path in paths}
        prefix = kind + "|"
        for key in arrays:
            if not key.startswith(prefix):  # also skips the "written|" masks
                continue
            name = key[len(prefix):]
            values = arrays[key]  # (records, rows, lanes)
            written = arrays[f"written|{key}"]
            if values.dtype.kind in _INTEGER_KINDS and name in ("isOnGround", "automaticTransmission"):
                values = values.astype(bool)
            for row, path in enumerate(paths):
                if not written[row]:
                    continue  # not applicable to this object, e.g. engine telemetry of a basic drive
                column = values[:, row, :]
                per_path[path][name] = column[:, 0] if column.shape[1] == 1 else column
        traces[kind] = per_path
    return traces


def run_ovphysx(
    usd_path: str | os.PathLike,
    steps: int,
    dt: float,
    controls: Mapping[str, Mapping[str, Any]] | None = None,
    vehicles: Sequence[str] | None = None,
    *,
    record_every: int = 1,
    telemetry: Mapping[str, Sequence[str]] | None = None,
    timeout: float = 300.0,
) -> dict[str, Any]:
    """Step `usd_path` `steps` times by `dt` seconds in ovphysx and return the telemetry traces.

    controls: {path: {name: value}} where path is a vehicle prim, a wheel attachment prim or
      "*" (every simulated vehicle, or every wheel for wheel controls), name is one of
      `WRITABLE_CONTROLS`, and value is a number (held for the whole run) or `steps` numbers
      (value i applies to step i). A path's own value overrides "*". Controls persist in PhysX,
      so only changes are written.
    vehicles: the vehicle prim paths to simulate-and-record; default every vehicle PhysX created.
    record_every: read telemetry after every n-th step (and after the last); a benchmark can pass
      `steps` to record only the final state. `recorded_steps` lists the step counts read.
    telemetry: {kind: [attribute, ...]} to record only those attributes of "vehicles", "wheels" or
      "bodies" (a kind left out: all of `TELEMETRY[kind]`; an empty list: none). Reading telemetry
      after a step takes longer than the step itself, so a caller that needs a few saves most of it.
    timeout: seconds for the whole worker run, loading included.

    Raises OracleError when ovphysx cannot load the stage, creates no (or not the requested)
    vehicle, refuses a control, crashes, or runs past the timeout.
    """
    usd = Path(usd_path).resolve()
    if not usd.is_file():
        raise OracleError(f"{usd} does not exist")
    if steps < 1 or not dt > 0:
        raise OracleError(f"need at least one step and a positive dt, got steps={steps}, dt={dt}")
    request = {
        "usd_path": str(usd),
        "steps": int(steps),
        "dt": float(dt),
        "record_every": int(record_every),
        "vehicles": list(vehicles) if vehicles else None,
        "controls": _request_controls(controls, int(steps)),
        "telemetry": _request_telemetry(telemetry),
    }
    meta, arrays, output = _run_worker(request, timeout, f"{steps} steps of {usd}")
    result: dict[str, Any] = {
        "dt": meta["dt"],
        "steps": meta["steps"],
        "recorded_steps": meta["recorded_steps"],
        **_traces(meta, arrays),
        "unavailable": meta["unavailable"],
        "load_s": meta["load_s"],
        "step_s": meta["step_s"],
        "log": _log_lines(output),
    }
    return result


def _run_worker(request: dict, timeout: float, what: str) -> tuple[dict, dict[str, np.ndarray], str]:
    """The worker's result (meta, arrays) and everything it printed, for `request`, or its record where a records
    folder is set (`records`); OracleError when it fails."""
    return records.recorded(request, lambda: _start_worker(request, timeout, what))


def _start_worker(request: dict, timeout: float, what: str) -> tuple[dict, dict[str, np.ndarray], str]:
    with tempfile.TemporaryDirectory(prefix="pvu-oracle-") as scratch:
        request_file = Path(scratch) / "request.json"
        result_file = Path(scratch) / "result.npz"
        request_file.write_text(json.dumps(request))
        try:
            completed = subprocess.run(
                [sys.executable, str(WORKER), str(request_file), str(result_file)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                timeout=timeout, env=_worker_environment(), cwd=scratch,
            )
        except subprocess.TimeoutExpired as exc:
            output = exc.output if isinstance(exc.output, str) else (exc.output or b"").decode(errors="replace")
            raise OracleError(f"ovphysx did not finish {what} within {timeout:g} s"
                              + ("\n" + "\n".join(_log_lines(output)[-10:]) if output else "")) from None
        if completed.returncode != 0 or not result_file.is_file():
            raise _failure(completed.returncode, completed.stdout)
        with np.load(result_file) as stored:
            meta = json.loads(str(stored["meta"]))
            arrays = {key: stored[key] for key in stored.files if key != "meta"}
    return meta, arrays, completed.stdout


def sweep_ovphysx(usd_path: str | os.PathLike, sweeps: Sequence[tuple[str, Sequence[float], float]], *,
                  timeout: float = 120.0) -> list[dict[str, Any] | None]:
    """PhysX's closest hit of each scene sweep in `usd_path` (ovphysx's scene queries, the stage at rest).

    sweeps: (shape prim path, unit direction, distance) each; the prim's PhysX geometry as omni.physx's scene queries
      make it (a UsdGeom.Cylinder is the 30-corner convex hull omni.physx also sweeps for vehicle wheels) moves from
      the prim's pose. Returns one {"distance", "normal", "position"} (world, stage units) or None per sweep.
    """
    usd = Path(usd_path).resolve()
    if not usd.is_file():
        raise OracleError(f"{usd} does not exist")
    request = {"usd_path": str(usd), "sweeps": [[str(p), [float(c) for c in d], float(L)] for p, d, L in sweeps]}
    meta, _, _ = _run_worker(request, timeout, f"{len(sweeps)} sweeps in {usd}")
    return [None if hit is None else {"distance": hit[0], "normal": np.asarray(hit[1]), "position": np.asarray(hit[2])}
            for hit in meta["sweeps"]]
