"""The PhysX vehicle snippets' JSON vehicle files <-> the stage description.

PhysX's vehicle2 snippets load a vehicle from `Base.json` (axles, frame, scale, rigid body, command
responses, suspension, tires, wheels) plus `EngineDrive.json` (engine, gearbox, clutch, autobox,
differentials) or `DirectDrive.json` (throttle response). This module writes those files from the
vehicle2-style parameters `runtime.vehicle2.build_vehicle_params` derives from a description (what Omni
hands PhysX), and turns such files back into a vehicle description `write.write_stage` can author.

Format facts the mapping relies on (from the snippets' file reader):
- `Frame` axes are PxVehicleAxes indices: 0 +X, 1 -X, 2 +Y, 3 -Y, 4 +Z, 5 -Z.
- `Scale.Scale` is PxVehicleScale: length units per metre; every length, speed, force and torque in the
  files is in those length units. The format has no mass scale: masses are kilograms.
- Quaternions are [x, y, z, w]; transforms are {"Pos", "Quat"} in the rigid-body (centre-of-mass) frame.
- Per-wheel lists carry "WheelId"; `WheelResponseMultipliers[i]` belongs to wheel id i.
- Nonlinear command responses: "NonLinearResponse": [{"Throttle": command value, "ResponseCurve":
  [[speed, normalised response], ...]}, ...] for every command kind (the key is "Throttle" for all).
- Gear ratios include neutral (`NeutralGear`, ratio 0); autobox ratios are indexed by gear.
- The reader requires every section, so sections USD has no counterpart for are written with neutral
  values (listed in `SnippetExport.notes`).
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import properties as P
from ..description import (
    Block,
    DriveDescription,
    GroundDescription,
    MaterialDescription,
    SceneDescription,
    Source,
    StageDescription,
    StageInfo,
    VehicleDescription,
    WheelDescription,
)
from ..errors import InputError
from ..units import LENGTH, MASS, MASS_LENGTH, MASS_LENGTH2, NONE, Dim
from .vehicle2 import (
    DRIVE_BASIC,
    DRIVE_STANDARD,
    QUERY_SWEEP,
    TIRE_LOAD_FILTER,
    CommandResponseParams,
    VehicleParams,
    build_vehicle_params,
)

BASE_FILE = "Base.json"
ENGINE_DRIVE_FILE = "EngineDrive.json"
DIRECT_DRIVE_FILE = "DirectDrive.json"

AXES = ("posX", "negX", "posY", "negY", "posZ", "negZ")  # PxVehicleAxes order
_AXIS_VECTORS = {
    "posX": (1.0, 0.0, 0.0), "negX": (-1.0, 0.0, 0.0), "posY": (0.0, 1.0, 0.0),
    "negY": (0.0, -1.0, 0.0), "posZ": (0.0, 0.0, 1.0), "negZ": (0.0, 0.0, -1.0),
}
# PxVehicleSuspensionJounceCalculationType and PxVehicleClutchAccuracyMode
JOUNCE_RAYCAST, JOUNCE_SWEEP = 0, 1
CLUTCH_BEST_POSSIBLE = 1
# The four-wheel differential's biases and targets have no USD counterpart; these are the values of
# PhysX's own sample EngineDrive.json, written so the file loads.
FOUR_WHEEL_PLACEHOLDER = {"CenterBias": 1.3, "CenterTarget": 1.29, "FrontBias": 1.3, "FrontTarget": 1.29,
                          "RearBias": 1.3, "RearTarget": 1.29, "Rate": 10.0}
GRAVITY_M_S2 = 9.81  # the snippets hard-code this gravity; it is not in the files
# vehicle property -> the property table row holding its default (the passive denominator's default lives
# with the deprecated attribute it replaces)
_AUTHORED_VEHICLE_DEFAULTS = {
    "minPassiveLongitudinalSlipDenominator": "minLongitudinalSlipDenominator",
    "minActiveLongitudinalSlipDenominator": "minActiveLongitudinalSlipDenominator",
    "minLateralSlipDenominator": "minLateralSlipDenominator",
    "longitudinalStickyTireThresholdSpeed": "longitudinalStickyTireThresholdSpeed",
    "lateralStickyTireThresholdSpeed": "lateralStickyTireThresholdSpeed",
}


class SnippetFormatError(InputError):
    """A snippet file that the snippets' reader would reject, or a vehicle that does not fit the format."""


# ---------------------------------------------------------------------------------------------------
# Units: one dimension per quantity, used both ways.


@dataclass(frozen=True)
class _Scaler:
    """Multiplies a value of dimension (L, M) by length**L * mass**M."""

    length: float = 1.0
    mass: float = 1.0

    def __call__(self, value: float, dim: Dim) -> float:
        return float(value) * self.length ** dim.length * self.mass ** dim.mass


def _axis_vector(token: str) -> tuple[float, float, float]:
    return _AXIS_VECTORS[token]


def _axis_index(vector: Sequence[float], what: str) -> int:
    for i, token in enumerate(AXES):
        if all(abs(a - b) < 1e-6 for a, b in zip(vector, _AXIS_VECTORS[token])):
            return i
    raise SnippetFormatError(f"the vehicle's {what} axis {tuple(vector)} is not a coordinate axis; "
                             "the snippet frame holds only +-X, +-Y, +-Z")


def _cross(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


# ---------------------------------------------------------------------------------------------------
# Description -> snippet files


@dataclass
class SnippetExport:
    """One vehicle as snippet files: {file name: JSON object}, plus what the format could not carry."""

    vehicle_path: str
    files: dict[str, dict]
    notes: list[str] = field(default_factory=list)


def _axles(params: VehicleParams) -> list[list[int]]:
    """Wheels grouped by their longitudinal position, front axle first, wheel ids ascending in an axle.

    USD has no axles; wheels within half the smallest wheel radius of each other along the
    longitudinal axis share one."""
    lng = params.frame.lng_axis
    tolerance = 0.5 * min(w.wheel.radius for w in params.wheels)
    order = sorted(range(params.nb_wheels), key=lambda i: (-_dot(params.wheels[i].suspension.attachment_position, lng), i))
    axles: list[list[int]] = []
    front = None
    for i in order:
        x = _dot(params.wheels[i].suspension.attachment_position, lng)
        if front is None or front - x > tolerance:
            axles.append([])
            front = x
        axles[-1].append(i)
    return [sorted(axle) for axle in axles]


def _quat_xyzw(q: Sequence[float]) -> list[float]:
    return [float(q[1]), float(q[2]), float(q[3]), float(q[0])]


def _response(resp: CommandResponseParams, max_dim: Dim, s: _Scaler) -> dict:
    out: dict[str, Any] = {
        "MaxResponse": s(resp.max_response, max_dim),
        "WheelResponseMultipliers": [float(m) for m in resp.wheel_multipliers],
    }
    if resp.nonlinear.command_values:
        out["NonLinearResponse"] = [
            {"Throttle": float(cv), "ResponseCurve": [[s(speed, LENGTH), float(r)] for speed, r in curve]}
            for cv, curve in zip(resp.nonlinear.command_values, resp.nonlinear.curves)
        ]
    return out


def _placeholder_ackermann(params: VehicleParams, axles: list[list[int]]) -> dict:
    """Strength 0 (no correction) on the front axle: the reader needs the section, USD has no Ackermann here."""
    front = (axles[0] + axles[0])[:2] if axles else [0, 0]
    p0 = params.wheels[front[0]].suspension.attachment_position
    p1 = params.wheels[front[1]].suspension.attachment_position
    lat, lng = params.frame.lat_axis, params.frame.lng_axis
    track = abs(_dot(p0, lat) - _dot(p1, lat)) or 1.0
    rear = params.wheels[axles[-1][0]].suspension.attachment_position if axles else p0
    base = abs(_dot(p0, lng) - _dot(rear, lng)) or 1.0
    return {"WheelIds": front, "WheelBase": base, "TrackWidth": track, "Strength": 0.0}


def snippet_from_params(params: VehicleParams, kilograms_per_unit: float = 1.0) -> SnippetExport:
    """The snippet files of one vehicle's vehicle2 parameters (stage lengths, Scale = length units per metre)."""
    s = _Scaler(length=1.0, mass=float(kilograms_per_unit))
    notes: list[str] = []
    n = params.nb_wheels
    axles = _axles(params)
    if params.rigid_body.com_orientation != (1.0, 0.0, 0.0, 0.0):
        notes.append("the principal axes are rotated against the vehicle frame; the snippet's rigid-body frame takes "
                     "them as the vehicle axes (positions below are in the principal-axes frame)")
    if params.rigid_body.com_position != (0.0, 0.0, 0.0):
        notes.append(f"the centre of mass offset {params.rigid_body.com_position} is not part of the format "
                     "(the snippets set the actor's centre-of-mass pose in code)")
    for w in params.wheels:
        if tuple(map(tuple, w.tire.load_filter)) != TIRE_LOAD_FILTER:
            notes.append(f"{w.path}: tire load filter differs from Omni's fixed one")
    base: dict[str, Any] = {
        "AxleDescription": [{"WheelIds": axle} for axle in axles],
        "Frame": {
            "LngAxis": _axis_index(params.frame.lng_axis, "longitudinal"),
            "LatAxis": _axis_index(params.frame.lat_axis, "lateral"),
            "VrtAxis": _axis_index(params.frame.vrt_axis, "vertical"),
        },
        "Scale": {"Scale": float(params.scale.scale)},
        "RigidBodyParams": {"Mass": s(params.rigid_body.mass, MASS),
                            "MOI": [s(c, MASS_LENGTH2) for c in params.rigid_body.moi]},
        "SuspensionStateCalculationParams": {
            "JounceCalculationType": JOUNCE_SWEEP if params.suspension_state_calculation.query_type == QUERY_SWEEP else JOUNCE_RAYCAST,
            "LimitSuspensionExpansionVelocity": bool(params.suspension_state_calculation.limit_expansion_velocity),
        },
        "BrakeCommandResponseParams": _response(params.brakes[0], MASS_LENGTH2, s),
        "HandbrakeCommandResponseParams": _response(params.brakes[1], MASS_LENGTH2, s),
        "SteerCommandResponseParams": _response(params.steer, NONE, s),
    }
    if params.ackermann is not None:
        a = params.ackermann
        base["AckermannParams"] = {"WheelIds": list(a.wheel_ids), "WheelBase": s(a.wheel_base, LENGTH),
                                   "TrackWidth": s(a.track_width, LENGTH), "Strength": float(a.strength)}
    else:
        base["AckermannParams"] = _placeholder_ackermann(params, axles)
        notes.append("no Ackermann steering: AckermannParams written with Strength 0")
    base["SuspensionParams"] = [{
        "WheelId": i,
        "SuspensionAttachment": {"Pos": [s(c, LENGTH) for c in w.suspension.attachment_position],
                                 "Quat": _quat_xyzw(w.suspension.attachment_orientation)},
        "SuspensionTravelDir": [float(c) for c in w.suspension.travel_direction],
        "SuspensionTravelDist": s(w.suspension.travel_distance, LENGTH),
        "WheelAttachment": {"Pos": [s(c, LENGTH) for c in w.suspension.wheel_attachment_position],
                            "Quat": _quat_xyzw(w.suspension.wheel_attachment_orientation)},
    } for i, w in enumerate(params.wheels)]
    base["SuspensionComplianceParams"] = [{
        "WheelId": i,
        "WheelToeAngle": [[float(x), float(y)] for x, y in w.compliance.wheel_toe_angle],
        "WheelCamberAngle": [[float(x), float(y)] for x, y in w.compliance.wheel_camber_angle],
        "SuspForceAppPoint": [[float(p[0])] + [s(c, LENGTH) for c in p[1:]] for p in w.compliance.suspension_force_app_point],
        "TireForceAppPoint": [[float(p[0])] + [s(c, LENGTH) for c in p[1:]] for p in w.compliance.tire_force_app_point],
    } for i, w in enumerate(params.wheels)]
    base["SuspensionForceParams"] = [{
        "WheelId": i,
        "Damping": s(w.suspension_force.damping, MASS),
        "Stiffness": s(w.suspension_force.stiffness, MASS),
        "SprungMass": s(w.suspension_force.sprung_mass, MASS),
    } for i, w in enumerate(params.wheels)]
    base["TireForceParams"] = [{
        "WheelId": i,
        "LongitudinalStiffness": s(w.tire.long_stiff, MASS_LENGTH),
        "LateralStiffnessX": float(w.tire.lat_stiff_x),
        "LateralStiffnessY": s(w.tire.lat_stiff_y, MASS_LENGTH),
        "CamberStiffness": s(w.tire.camber_stiff, MASS_LENGTH),
        "RestLoad": s(w.tire.rest_load, MASS_LENGTH),
        "FrictionVsSlip": [[float(x), float(y)] for x, y in w.tire.friction_vs_slip],
        "TireLoadFilter": [[float(x), float(y)] for x, y in w.tire.load_filter],
    } for i, w in enumerate(params.wheels)]
    base["WheelParams"] = [{
        "WheelId": i,
        "HalfWidth": s(w.wheel.half_width, LENGTH),
        "Radius": s(w.wheel.radius, LENGTH),
        "Mass": s(w.wheel.mass, MASS),
        "MOI": s(w.wheel.moi, MASS_LENGTH2),
        "DampingRate": s(w.wheel.damping_rate, MASS_LENGTH2),
    } for i, w in enumerate(params.wheels)]
    files = {BASE_FILE: base}
    if params.drive_type == DRIVE_STANDARD:
        files[ENGINE_DRIVE_FILE] = _engine_drive(params, axles, s, notes)
    elif params.drive_type == DRIVE_BASIC:
        files[DIRECT_DRIVE_FILE] = {"ThrottleCommandResponseParams": _response(params.throttle, MASS_LENGTH2, s)}
    else:
        notes.append("no drive (wheel controllers): only Base.json is written")
    for name, data in files.items():
        _check_finite(data, f"{params.path}: {name}")
    return SnippetExport(vehicle_path=params.path, files=files, notes=notes)


def _engine_drive(params: VehicleParams, axles: list[list[int]], s: _Scaler, notes: list[str]) -> dict:
    e, g = params.engine, params.gearbox
    n = params.nb_wheels
    if params.autobox is not None:
        up, down, latency = list(params.autobox.up_ratios), list(params.autobox.down_ratios), params.autobox.latency
    else:
        up, down, latency = [0.0] * g.nb_ratios, [0.0] * g.nb_ratios, 0.0
        notes.append("no automatic gearbox: AutoboxParams written as zeros")
    diff = params.tank_differential or params.multi_wheel_differential
    torque = list(diff.torque_ratios) if diff else [0.0] * n
    ave = list(diff.ave_wheel_speed_ratios) if diff else [0.0] * n
    front = (axles[0] + axles[0])[:2]
    rear = (axles[-1] + axles[-1])[:2]
    tracks: list[list[int]] = []
    if params.tank_differential is not None:
        tracks = [list(t) for t in params.tank_differential.wheels_per_track]
        if list(params.tank_differential.thrust_index_per_track) != list(range(len(tracks))):
            notes.append("tank thrust indices per track are not 0, 1, ...: the format gives track i thrust i")
    else:
        notes.append("FourWheelDifferentialParams and TankDifferentialParams are written so the file loads; "
                     "the vehicle uses the multi-wheel differential")
    return {
        "AutoboxParams": {"UpRatios": [float(x) for x in up], "DownRatios": [float(x) for x in down], "Latency": float(latency)},
        "ClutchCommandResponseParams": {"MaxResponse": s(params.clutch.strength, MASS_LENGTH2)},
        "EngineParams": {
            "TorqueCurve": [[float(x), float(y)] for x, y in e.torque_curve],
            "MOI": s(e.moi, MASS_LENGTH2),
            "PeakTorque": s(e.peak_torque, MASS_LENGTH2),
            "IdleOmega": float(e.idle_omega),
            "MaxOmega": float(e.max_omega),
            "DampingRateFullThrottle": s(e.damping_rate_full_throttle, MASS_LENGTH2),
            "DampingRateZeroThrottleClutchEngaged": s(e.damping_rate_zero_throttle_clutch_engaged, MASS_LENGTH2),
            "DampingRateZeroThrottleClutchDisengaged": s(e.damping_rate_zero_throttle_clutch_disengaged, MASS_LENGTH2),
        },
        "GearboxParams": {"NeutralGear": int(g.neutral_gear), "Ratios": [float(r) for r in g.ratios],
                          "FinalRatio": float(g.final_ratio), "SwitchTime": float(g.switch_time)},
        "MultiWheelDifferentialParams": {"TorqueRatios": torque, "AveWheelSpeedRatios": ave},
        "FourWheelDifferentialParams": {"TorqueRatios": torque, "AveWheelSpeedRatios": ave,
                                        "FrontWheelIds": front, "RearWheelIds": rear, **FOUR_WHEEL_PLACEHOLDER},
        "TankDifferentialParams": {"TorqueRatios": torque, "AveWheelSpeedRatios": ave, "TankTracks": tracks},
        "ClutchParams": {"AccuracyMode": CLUTCH_BEST_POSSIBLE if params.clutch.accuracy_mode == "bestPossible" else 0,
                         "EstimateIterations": int(params.clutch.estimate_iterations)},
    }


def _check_finite(node: Any, where: str) -> None:
    if isinstance(node, float) and not math.isfinite(node):
        raise SnippetFormatError(f"{where}: a value is {node}; JSON has no infinities or NaN")
    if isinstance(node, dict):
        for v in node.values():
            _check_finite(v, where)
    elif isinstance(node, list):
        for v in node:
            _check_finite(v, where)


def snippet_from_description(description: StageDescription, vehicle_path: str) -> SnippetExport:
    """Snippet files of one vehicle of a stage description (in its units; `in_si_units()` for metres)."""
    params = build_vehicle_params(description, vehicle_path)
    return snippet_from_params(params, description.stage.kilogramsPerUnit)


def snippet_folder_names(vehicle_paths: Sequence[str]) -> dict[str, str]:
    """A folder name per vehicle: the prim name, or the whole path joined by '_' where names repeat."""
    names = {p: p.rstrip("/").rsplit("/", 1)[-1] or "vehicle" for p in vehicle_paths}
    counts: dict[str, int] = {}
    for name in names.values():
        counts[name] = counts.get(name, 0) + 1
    return {p: (name if counts[name] == 1 else p.strip("/").replace("/", "_")) for p, name in names.items()}


def snippet_json_text(data: Mapping) -> str:
    """A snippet file's text: 4-space indented JSON in the format's key order."""
    return json.dumps(data, indent=4) + "\n"


def write_snippet_folders(description: StageDescription, output_dir: str | Path) -> list[SnippetExport]:
    """`convert --target physx-snippet`: OUTPUT/<vehicle name>/Base.json plus the drive file, for every vehicle.

    Every vehicle is converted before anything is written, so a vehicle the format cannot hold (raising
    InputError) leaves the output folder untouched; each file is written atomically."""
    from ..stage_io import write_atomic
    from .vehicle2 import VehicleParamsError

    paths = sorted(description.vehicles)
    if not paths:
        raise SnippetFormatError("the stage has no vehicle to convert (see its diagnostics with `convert`)")
    exports = []
    for path in paths:
        try:
            exports.append(snippet_from_description(description, path))
        except VehicleParamsError as exc:
            raise SnippetFormatError(f"{path}: {exc}") from None
    folders = snippet_folder_names(paths)
    for export in exports:
        for name, data in export.files.items():
            write_atomic(Path(output_dir) / folders[export.vehicle_path] / name, snippet_json_text(data))
    return exports


# ---------------------------------------------------------------------------------------------------
# Snippet files -> description


def read_snippet_files(directory: str | Path, drive: str | None = None) -> dict[str, dict]:
    """Base.json plus the drive file of a snippet vehicle folder, parsed.

    drive: "engine" (EngineDrive.json), "direct" (DirectDrive.json) or None (EngineDrive.json when present)."""
    folder = Path(directory)
    if not folder.is_dir():
        raise SnippetFormatError("not a folder of snippet vehicle files", file=str(folder))
    if drive not in (None, "engine", "direct"):
        raise SnippetFormatError(f"drive must be 'engine' or 'direct', got {drive!r}")
    if drive is None:
        drive = "engine" if (folder / ENGINE_DRIVE_FILE).is_file() else "direct"
    drive_file = ENGINE_DRIVE_FILE if drive == "engine" else DIRECT_DRIVE_FILE
    files = {}
    for name in (BASE_FILE, drive_file):
        path = folder / name
        if not path.is_file():
            raise SnippetFormatError(f"{name} is missing (a snippet vehicle needs {BASE_FILE} and "
                                     f"{ENGINE_DRIVE_FILE} or {DIRECT_DRIVE_FILE})", file=str(folder))
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError) as exc:
            raise SnippetFormatError(f"cannot be read: {exc}", file=str(path)) from None
        except json.JSONDecodeError as exc:
            raise SnippetFormatError(f"is not JSON: {exc}", file=str(path)) from None
        if not isinstance(data, dict):
            raise SnippetFormatError("the top level must be a JSON object", file=str(path))
        files[name] = data
    return files


class _Doc:
    """Checked access to one snippet file: a missing key or a wrong shape names the file and the key."""

    def __init__(self, data: Mapping, file: str):
        self.data, self.file = data, file

    def fail(self, key: str, message: str) -> SnippetFormatError:
        return SnippetFormatError(f"{key}: {message}", file=self.file)

    def get(self, *keys: str | int, node: Any = None) -> Any:
        value = self.data if node is None else node
        path = ""
        for key in keys:
            path += f"[{key}]" if isinstance(key, int) else (f".{key}" if path else key)
            if isinstance(key, int):
                if not isinstance(value, list) or key >= len(value):
                    raise self.fail(path, "missing")
            elif not isinstance(value, Mapping) or key not in value:
                raise self.fail(path, "missing")
            value = value[key]
        return value

    def number(self, *keys: str | int, node: Any = None) -> float:
        value = self.get(*keys, node=node)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(".".join(map(str, keys)), f"expected a finite number, got {value!r}")
        return float(value)

    def numbers(self, *keys: str | int, node: Any = None, length: int | None = None) -> list[float]:
        value = self.get(*keys, node=node)
        where = ".".join(map(str, keys))
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list of numbers, got {value!r}")
        out = [self.number(i, node=value) for i in range(len(value))]
        if length is not None and len(out) != length:
            raise self.fail(where, f"expected {length} numbers, got {len(out)}")
        return out

    def rows(self, *keys: str | int, node: Any = None, width: int, max_rows: int | None = None) -> list[list[float]]:
        value = self.get(*keys, node=node)
        where = ".".join(map(str, keys))
        if not isinstance(value, list):
            raise self.fail(where, "expected a list")
        if max_rows is not None and len(value) > max_rows:
            raise self.fail(where, f"at most {max_rows} entries, got {len(value)}")
        return [self.numbers(i, node=value, length=width) for i in range(len(value))]

    def per_wheel(self, key: str, n: int) -> dict[int, Mapping]:
        items = self.get(key)
        if not isinstance(items, list) or len(items) != n:
            raise self.fail(key, f"expected one entry per wheel ({n})")
        out: dict[int, Mapping] = {}
        for i, item in enumerate(items):
            wheel_id = int(self.number("WheelId", node=item)) if isinstance(item, Mapping) else -1
            if not 0 <= wheel_id < n or wheel_id in out:
                raise self.fail(f"{key}[{i}].WheelId", f"must be a distinct wheel id in 0..{n - 1}")
            out[wheel_id] = item
        return out


@dataclass
class SnippetImport:
    """A snippet vehicle as a stage description, plus what USD could not carry."""

    description: StageDescription
    notes: list[str] = field(default_factory=list)


def _authored(schema: str, path: str | None, **values: Any) -> Block:
    block = Block(schema_name=schema, path=path)
    for base, value in values.items():
        block.set(base, value, Source.AUTHORED)
    return block


def _quat_wxyz(q: Sequence[float]) -> tuple[float, float, float, float]:
    x, y, z, w = q
    norm = math.sqrt(x * x + y * y + z * z + w * w) or 1.0
    return (w / norm, x / norm, y / norm, z / norm)


def _ncr(doc: _Doc, response: Mapping, key: str, path: str, s: _Scaler) -> Block | None:
    entries = response.get("NonLinearResponse")
    if not entries:
        return None
    if not isinstance(entries, list):
        raise doc.fail(f"{key}.NonLinearResponse", "expected a list")
    commands, starts, pairs = [], [], []
    for i, entry in enumerate(entries):
        commands.append(doc.number("Throttle", node=entry))
        curve = doc.rows("ResponseCurve", node=entry, width=2)
        if not curve:
            raise doc.fail(f"{key}.NonLinearResponse[{i}].ResponseCurve", "needs at least one (speed, response) pair")
        starts.append(len(pairs))
        pairs.extend((s(speed, LENGTH), r) for speed, r in curve)
    return _authored(P.NCR, path, commandValues=commands, speedResponsesPerCommandValue=starts, speedResponses=pairs)


def _response_values(doc: _Doc, key: str, n: int) -> tuple[float, list[float], Mapping]:
    response = doc.get(key)
    max_response = doc.number(key, "MaxResponse")
    multipliers = doc.numbers(key, "WheelResponseMultipliers")
    if len(multipliers) < n:
        raise doc.fail(f"{key}.WheelResponseMultipliers", f"needs one multiplier per wheel ({n})")
    return max_response, multipliers[:n], response


def description_from_snippet(
    files: Mapping[str, Mapping],
    *,
    meters_per_unit: float = 1.0,
    vehicle_path: str = "/World/Vehicle",
    scene_path: str = "/World/PhysicsScene",
    file_names: Mapping[str, str] | None = None,
) -> SnippetImport:
    """A stage description holding the snippet vehicle (rigid body, wheels, drive, brakes, steering, controller),
    its physics scene with a vehicle context, and a ground plane with a tire friction table.

    files: {"Base.json": ..., "EngineDrive.json" | "DirectDrive.json": ...} as parsed JSON.
    meters_per_unit: the stage's length unit (kilograms stay kilograms). The vehicle's centre of mass is its
    prim origin, so positions in the rigid-body frame are positions in the prim frame."""
    names = dict(file_names or {})
    if BASE_FILE not in files:
        raise SnippetFormatError(f"{BASE_FILE} is required")
    base = _Doc(files[BASE_FILE], names.get(BASE_FILE, BASE_FILE))
    notes: list[str] = []

    # frame and units
    axes = {}
    for key in ("LngAxis", "LatAxis", "VrtAxis"):
        index = int(base.number("Frame", key))
        if not 0 <= index < len(AXES):
            raise base.fail(f"Frame.{key}", f"must be a PxVehicleAxes index 0..5, got {index}")
        axes[key] = AXES[index]
    lng, lat, vrt = (_axis_vector(axes[k]) for k in ("LngAxis", "LatAxis", "VrtAxis"))
    if _cross(vrt, lng) != lat:
        raise base.fail("Frame", f"lateral axis {axes['LatAxis']} is not vertical x longitudinal; USD vehicles "
                        "(and Omni) always use that right-handed frame")
    snippet_scale = base.number("Scale", "Scale")
    if not snippet_scale > 0:
        raise base.fail("Scale.Scale", f"must be > 0, got {snippet_scale}")
    s = _Scaler(length=(1.0 / meters_per_unit) / snippet_scale, mass=1.0)

    # axles and wheels
    axles = base.get("AxleDescription")
    if not isinstance(axles, list) or not axles:
        raise base.fail("AxleDescription", "needs at least one axle")
    wheel_ids = []
    for i in range(len(axles)):
        wheel_ids.extend(int(x) for x in base.numbers("AxleDescription", i, "WheelIds"))
    n = len(wheel_ids)
    if sorted(wheel_ids) != list(range(n)) or n > 20:
        raise base.fail("AxleDescription", f"wheel ids must be 0..n-1 with n <= 20, each once; got {wheel_ids}")

    susp = base.per_wheel("SuspensionParams", n)
    comp = base.per_wheel("SuspensionComplianceParams", n)
    force = base.per_wheel("SuspensionForceParams", n)
    tires = base.per_wheel("TireForceParams", n)
    wheel_items = base.per_wheel("WheelParams", n)
    if "SuspensionForceLegacyParams" in base.data:
        notes.append("SuspensionForceLegacyParams (rest distances of the legacy suspension) are not imported")

    table_path, material_path, ground_path = "/World/TireFrictionTable", "/World/GroundMaterial", "/World/GroundPlane"
    wheels: list[WheelDescription] = []
    for i in range(n):
        sp, cp, fp, tp, wp = susp[i], comp[i], force[i], tires[i], wheel_items[i]
        path = f"{vehicle_path}/Wheel{i}"
        load_filter = base.rows("TireLoadFilter", node=tp, width=2)
        if not _close_rows(load_filter, TIRE_LOAD_FILTER):
            notes.append(f"wheel {i}: TireLoadFilter {load_filter} is not Omni's fixed filter {TIRE_LOAD_FILTER}; "
                         "USD cannot carry it")
        attachment = _authored(
            P.ATTACHMENT, path,
            suspensionTravelDirection=tuple(base.numbers("SuspensionTravelDir", node=sp, length=3)),
            suspensionFramePosition=tuple(s(c, LENGTH) for c in base.numbers("SuspensionAttachment", "Pos", node=sp, length=3)),
            suspensionFrameOrientation=_quat_wxyz(base.numbers("SuspensionAttachment", "Quat", node=sp, length=4)),
            wheelFramePosition=tuple(s(c, LENGTH) for c in base.numbers("WheelAttachment", "Pos", node=sp, length=3)),
            wheelFrameOrientation=_quat_wxyz(base.numbers("WheelAttachment", "Quat", node=sp, length=4)),
        )
        attachment.set("collisionGroup", None, Source.DEFAULT)
        tire = _authored(
            P.TIRE, path,
            lateralStiffnessGraph=(base.number("LateralStiffnessX", node=tp), s(base.number("LateralStiffnessY", node=tp), MASS_LENGTH)),
            longitudinalStiffness=s(base.number("LongitudinalStiffness", node=tp), MASS_LENGTH),
            camberStiffness=s(base.number("CamberStiffness", node=tp), MASS_LENGTH),
            frictionVsSlipGraph=[tuple(r) for r in _three_rows(base, tp)],
            restLoad=s(base.number("RestLoad", node=tp), MASS_LENGTH),
            frictionTable=table_path,
        )
        wheels.append(WheelDescription(
            path=path, index=i, attachment=attachment,
            wheel=_authored(P.WHEEL, path,
                            radius=s(base.number("Radius", node=wp), LENGTH),
                            width=2.0 * s(base.number("HalfWidth", node=wp), LENGTH),
                            mass=s(base.number("Mass", node=wp), MASS),
                            moi=s(base.number("MOI", node=wp), MASS_LENGTH2),
                            dampingRate=s(base.number("DampingRate", node=wp), MASS_LENGTH2)),
            tire=tire,
            suspension=_authored(P.SUSPENSION, path,
                                 springStrength=s(base.number("Stiffness", node=fp), MASS),
                                 springDamperRate=s(base.number("Damping", node=fp), MASS),
                                 travelDistance=s(base.number("SuspensionTravelDist", node=sp), LENGTH),
                                 sprungMass=s(base.number("SprungMass", node=fp), MASS)),
            compliance=_authored(
                P.COMPLIANCE, path,
                wheelToeAngle=[tuple(r) for r in base.rows("WheelToeAngle", node=cp, width=2, max_rows=3)],
                wheelCamberAngle=[tuple(r) for r in base.rows("WheelCamberAngle", node=cp, width=2, max_rows=3)],
                suspensionForceAppPoint=[(r[0], *(s(c, LENGTH) for c in r[1:]))
                                         for r in base.rows("SuspForceAppPoint", node=cp, width=4, max_rows=3)],
                tireForceAppPoint=[(r[0], *(s(c, LENGTH) for c in r[1:]))
                                   for r in base.rows("TireForceAppPoint", node=cp, width=4, max_rows=3)],
            ),
        ))

    # vehicle, rigid body, placement on the ground (the ground plane passes through the origin)
    query = int(base.number("SuspensionStateCalculationParams", "JounceCalculationType"))
    limit = base.get("SuspensionStateCalculationParams", "LimitSuspensionExpansionVelocity")
    if not isinstance(limit, bool):
        raise base.fail("SuspensionStateCalculationParams.LimitSuspensionExpansionVelocity", "expected true or false")
    vehicle = _authored(P.VEHICLE, vehicle_path, vehicleEnabled=True,
                        suspensionLineQueryType="sweep" if query == JOUNCE_SWEEP else "raycast",
                        limitSuspensionExpansionVelocity=limit, referenceFrameIsCenterOfMass=False)
    # The snippets set slip and sticky-tire thresholds in code; author Omni's defaults (in stage lengths) so the
    # stage does not lean on the sentinel fallbacks, which the parser reports.
    for base_name, default_row in _AUTHORED_VEHICLE_DEFAULTS.items():
        vehicle.set(base_name, P.prop(P.VEHICLE, default_row).default / meters_per_unit, Source.AUTHORED)
    g = GRAVITY_M_S2 / meters_per_unit
    height = _rest_height(wheels, vrt, g)
    mass = s(base.number("RigidBodyParams", "Mass"), MASS)
    rigid_body = _authored(
        P.RIGID_BODY, vehicle_path, mass=mass, centerOfMass=(0.0, 0.0, 0.0),
        diagonalInertia=tuple(s(c, MASS_LENGTH2) for c in base.numbers("RigidBodyParams", "MOI", length=3)),
        principalAxes=(1.0, 0.0, 0.0, 0.0), position=tuple(height * c for c in vrt), orientation=(1.0, 0.0, 0.0, 0.0),
        scale=(1.0, 1.0, 1.0), linearVelocity=(0.0, 0.0, 0.0), angularVelocity=(0.0, 0.0, 0.0),
    )
    context = _authored(P.CONTEXT, scene_path, updateMode="velocityChange", verticalAxis=axes["VrtAxis"],
                        longitudinalAxis=axes["LngAxis"])
    v = VehicleDescription(path=vehicle_path, vehicle=vehicle, context=context, rigidBody=rigid_body,
                           scene=scene_path, wheels=wheels)

    # command responses
    for key, instance in (("BrakeCommandResponseParams", "brakes0"), ("HandbrakeCommandResponseParams", "brakes1")):
        max_response, multipliers, response = _response_values(base, key, n)
        v.brakes[instance] = _authored(P.BRAKES, vehicle_path, wheels=list(range(n)),
                                       maxBrakeTorque=s(max_response, MASS_LENGTH2), torqueMultipliers=multipliers)
        ncr = _ncr(base, response, key, vehicle_path, s)
        if ncr is not None:
            v.nonlinearCommandResponses[instance] = ncr
    max_angle, steer_multipliers, steer_response = _response_values(base, "SteerCommandResponseParams", n)
    ack = base.get("AckermannParams")
    ack_ids = [int(x) for x in base.numbers("AckermannParams", "WheelIds", length=2)]
    strength = base.number("AckermannParams", "Strength")
    ackermann_fits = (strength > 0 and ack_ids[0] != ack_ids[1] and all(0 <= w < n for w in ack_ids)
                      and all(m == (1.0 if w in ack_ids else 0.0) for w, m in enumerate(steer_multipliers)))
    if ackermann_fits:
        v.ackermannSteering = _authored(
            P.ACKERMANN, vehicle_path, wheel0=ack_ids[0], wheel1=ack_ids[1], maxSteerAngle=max_angle,
            wheelBase=s(base.number("WheelBase", node=ack), LENGTH), trackWidth=s(base.number("TrackWidth", node=ack), LENGTH),
            strength=strength)
    else:
        v.steering = _authored(P.STEERING, vehicle_path, wheels=list(range(n)), maxSteerAngle=max_angle,
                               angleMultipliers=steer_multipliers)
        if strength > 0:
            notes.append("AckermannParams not imported: USD's Ackermann steering steers exactly its two wheels with "
                         "multiplier 1, and the steer multipliers say otherwise")
    ncr = _ncr(base, steer_response, "SteerCommandResponseParams", vehicle_path, s)
    if ncr is not None:
        v.nonlinearCommandResponses["steer"] = ncr

    # drive
    if ENGINE_DRIVE_FILE in files:
        _engine_drive_from_snippet(_Doc(files[ENGINE_DRIVE_FILE], names.get(ENGINE_DRIVE_FILE, ENGINE_DRIVE_FILE)),
                                   v, n, s, notes)
    elif DIRECT_DRIVE_FILE in files:
        _direct_drive_from_snippet(_Doc(files[DIRECT_DRIVE_FILE], names.get(DIRECT_DRIVE_FILE, DIRECT_DRIVE_FILE)),
                                   v, n, s, notes)
    else:
        raise SnippetFormatError(f"a drive file is required: {ENGINE_DRIVE_FILE} or {DIRECT_DRIVE_FILE}")
    v.controller = _authored(P.CONTROLLER, vehicle_path, accelerator=0.0, brake0=0.0, brake1=0.0, steer=0.0,
                             targetGear=255)

    up_axis = "Z" if axes["VrtAxis"] in ("posZ", "negZ") else "Y"
    if axes["VrtAxis"] not in ("posY", "posZ"):
        notes.append(f"vertical axis {axes['VrtAxis']}: the stage's upAxis is {up_axis} and gravity points along "
                     f"-{axes['VrtAxis']}; the ground plane's collision half-space faces +{axes['VrtAxis'][-1]}")
    scene = SceneDescription(
        path=scene_path,
        gravity=_authored(P.SCENE, scene_path, gravityDirection=tuple(0.0 - c for c in vrt), gravityMagnitude=g),
        context=context,
    )
    plane_axis = "XYZ"[[abs(c) for c in vrt].index(1.0)]
    identity = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    description = StageDescription(
        stage=StageInfo(file="", metersPerUnit=meters_per_unit, kilogramsPerUnit=1.0, upAxis=up_axis),
        scenes={scene_path: scene},
        vehicles={vehicle_path: v},
        # The snippets give the ground material friction 1.0 against every tire.
        tireFrictionTables={table_path: _authored(P.TABLE, table_path, groundMaterials=[material_path],
                                                  frictionValues=[1.0], defaultFrictionValue=1.0)},
        ground=[GroundDescription(path=ground_path, kind="plane", transform=identity, axis=plane_axis,
                                  material=material_path)],
        materials={material_path: MaterialDescription(path=material_path, staticFriction=1.0, dynamicFriction=1.0,
                                                      restitution=0.0)},
    )
    return SnippetImport(description=description, notes=notes)


def _close_rows(rows: Sequence[Sequence[float]], reference: Sequence[Sequence[float]]) -> bool:
    # float32 precision: files write 0.23080000281333924 for 0.2308.
    return len(rows) == len(reference) and all(
        len(r) == len(q) and all(abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(r, q)) for r, q in zip(rows, reference))


def _three_rows(doc: _Doc, tire: Mapping) -> list[list[float]]:
    rows = doc.rows("FrictionVsSlip", node=tire, width=2)
    if len(rows) != 3:
        raise doc.fail("TireForceParams.FrictionVsSlip", f"needs exactly 3 (slip, friction) points, got {len(rows)}")
    return rows


def _rest_height(wheels: Sequence[WheelDescription], vrt: Sequence[float], g: float) -> float:
    """How far above the ground the vehicle origin sits when every spring carries its sprung mass."""
    height = 0.0
    for w in wheels:
        att, susp = w.attachment, w.suspension
        travel = susp["travelDistance"]
        stiffness = susp["springStrength"]
        jounce = min(travel, susp["sprungMass"] * g / stiffness) if stiffness > 0 else travel
        centre = _dot(att["suspensionFramePosition"], vrt) + _dot(att["suspensionTravelDirection"], vrt) * (travel - jounce)
        height = max(height, w.wheel["radius"] - centre)
    return height


def _engine_drive_from_snippet(doc: _Doc, v: VehicleDescription, n: int, s: _Scaler, notes: list[str]) -> None:
    path = v.path
    neutral = int(doc.number("GearboxParams", "NeutralGear"))
    ratios = doc.numbers("GearboxParams", "Ratios")
    if neutral != 1 or len(ratios) < 3 or ratios[1] != 0.0:
        raise doc.fail("GearboxParams", "USD holds one reverse gear, neutral (ratio 0) and forward gears: NeutralGear "
                       f"must be 1 with Ratios[1] = 0 and at least one forward gear (got NeutralGear {neutral}, "
                       f"Ratios {ratios})")
    n_forward = len(ratios) - 2
    up = doc.numbers("AutoboxParams", "UpRatios")
    down = doc.numbers("AutoboxParams", "DownRatios")
    up_usd = (up[2:] + [0.0] * n_forward)[: n_forward - 1]  # first .. second-highest forward gear
    down_usd = (down[3:] + [0.0] * n_forward)[: n_forward - 1]  # second .. highest forward gear
    dropped = [("UpRatios", i, x) for i, x in enumerate(up) if not 2 <= i < 2 + n_forward - 1 and x != 0.0]
    dropped += [("DownRatios", i, x) for i, x in enumerate(down) if not 3 <= i < 3 + n_forward - 1 and x != 0.0]
    if dropped:
        notes.append("autobox ratios USD has no place for (reverse, neutral, top gear up, first gear down) are not "
                     "imported: " + ", ".join(f"{k}[{i}]={x:g}" for k, i, x in dropped))
    engine = _authored(
        P.ENGINE, path,
        moi=s(doc.number("EngineParams", "MOI"), MASS_LENGTH2),
        peakTorque=s(doc.number("EngineParams", "PeakTorque"), MASS_LENGTH2),
        maxRotationSpeed=doc.number("EngineParams", "MaxOmega"),
        idleRotationSpeed=doc.number("EngineParams", "IdleOmega"),
        torqueCurve=[tuple(r) for r in doc.rows("EngineParams", "TorqueCurve", width=2, max_rows=8)],
        dampingRateFullThrottle=s(doc.number("EngineParams", "DampingRateFullThrottle"), MASS_LENGTH2),
        dampingRateZeroThrottleClutchEngaged=s(doc.number("EngineParams", "DampingRateZeroThrottleClutchEngaged"), MASS_LENGTH2),
        dampingRateZeroThrottleClutchDisengaged=s(doc.number("EngineParams", "DampingRateZeroThrottleClutchDisengaged"), MASS_LENGTH2),
    )
    gears = _authored(P.GEARS, path, ratios=[ratios[0]] + ratios[2:],
                      ratioScale=doc.number("GearboxParams", "FinalRatio"),
                      switchTime=doc.number("GearboxParams", "SwitchTime"))
    autobox = _authored(P.AUTOBOX, path, upRatios=up_usd, downRatios=down_usd, latency=doc.number("AutoboxParams", "Latency"))
    clutch = _authored(P.CLUTCH, path, strength=s(doc.number("ClutchCommandResponseParams", "MaxResponse"), MASS_LENGTH2))
    accuracy = int(doc.number("ClutchParams", "AccuracyMode"))
    iterations = int(doc.number("ClutchParams", "EstimateIterations"))
    if accuracy != CLUTCH_BEST_POSSIBLE:
        notes.append(f"ClutchParams AccuracyMode {accuracy} (estimate, {iterations} iterations): Omni always uses "
                     "the best possible accuracy")
    v.drive = DriveDescription(type="standard", path=path, engine=engine, gears=gears, clutch=clutch, autoGearBox=autobox)
    torque = doc.numbers("MultiWheelDifferentialParams", "TorqueRatios")
    ave = doc.numbers("MultiWheelDifferentialParams", "AveWheelSpeedRatios")
    if len(torque) < n or len(ave) < n:
        raise doc.fail("MultiWheelDifferentialParams", f"needs one torque and speed ratio per wheel ({n})")
    if any(x != 0.0 for x in torque[n:] + ave[n:]):
        raise doc.fail("MultiWheelDifferentialParams", f"ratios past wheel {n - 1} must be 0")
    v.multiWheelDifferential = _authored(P.MULTI_DIFF, path, wheels=list(range(n)), torqueRatios=torque[:n],
                                         averageWheelSpeedRatios=ave[:n])
    if doc.data.get("TankDifferentialParams", {}).get("TankTracks"):
        notes.append("TankDifferentialParams are not imported: the vehicle uses the multi-wheel differential")
    notes.append("FourWheelDifferentialParams are not imported (USD has no four-wheel differential)")


def _direct_drive_from_snippet(doc: _Doc, v: VehicleDescription, n: int, s: _Scaler, notes: list[str]) -> None:
    key = "ThrottleCommandResponseParams"
    max_response, multipliers, response = _response_values(doc, key, n)
    # USD's basic drive scales the peak torque by the differential's torque ratios, which lie in [-1, 1].
    largest = max(abs(m) for m in multipliers) if multipliers else 0.0
    factor = largest if largest > 1.0 else 1.0
    if factor != 1.0:
        notes.append(f"throttle multipliers above 1 are carried as peak torque x {factor:g} and ratios / {factor:g}")
    driven = [w for w, m in enumerate(multipliers) if m != 0.0]
    v.drive = DriveDescription(type="basic", path=v.path,
                               basic=_authored(P.DRIVE_BASIC, v.path, peakTorque=s(max_response * factor, MASS_LENGTH2)))
    v.multiWheelDifferential = _authored(
        P.MULTI_DIFF, v.path, wheels=list(range(n)), torqueRatios=[m / factor for m in multipliers],
        averageWheelSpeedRatios=[(1.0 / len(driven) if w in driven else 0.0) for w in range(n)])
    ncr = _ncr(doc, response, key, v.path, s)
    if ncr is not None:
        v.nonlinearCommandResponses["drive"] = ncr


def vehicle_name_from_folder(folder: str | Path) -> str:
    """A prim name from a folder name: letters, digits and underscores, not starting with a digit."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", Path(folder).resolve().name) or "Vehicle"
    return name if not name[0].isdigit() else "_" + name


__all__ = [
    "AXES", "BASE_FILE", "DIRECT_DRIVE_FILE", "ENGINE_DRIVE_FILE", "SnippetExport", "SnippetFormatError",
    "SnippetImport", "description_from_snippet", "read_snippet_files", "snippet_folder_names",
    "snippet_from_description", "snippet_from_params", "snippet_json_text", "vehicle_name_from_folder",
    "write_snippet_folders",
]
