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
- The snippets set some values in code, not in the files: the sub-step counts, the slip denominators and the
  sticky-tire settings, the update mode, the initial commands, the tires' friction on the ground (1.0). They change how the vehicle drives, so `Base.json` carries them
  in a member of its own, CODE_SECTION (PhysX's reader reads the members it knows and ignores this one), which
  `import-snippet` reads back; a file without it gets Omni's defaults, said in the import's notes.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import properties as P
from ..description import (
    StageDescription,
)
from ..errors import InputError
from ..units import LENGTH, MASS, MASS_LENGTH, MASS_LENGTH2, NONE, Dim
from .vehicle2 import (
    AXIS_VECTORS,
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
# PxVehicleSuspensionJounceCalculationType and PxVehicleClutchAccuracyMode
JOUNCE_RAYCAST, JOUNCE_SWEEP = 0, 1
CLUTCH_BEST_POSSIBLE = 1
# The four-wheel differential's biases and targets have no USD counterpart; these are the values of
# PhysX's own sample EngineDrive.json, written so the file loads.
FOUR_WHEEL_PLACEHOLDER = {"CenterBias": 1.3, "CenterTarget": 1.29, "FrontBias": 1.3, "FrontTarget": 1.29,
                          "RearBias": 1.3, "RearTarget": 1.29, "Rate": 10.0}
GRAVITY_M_S2 = 9.81  # the snippets hard-code this gravity; it is not in the files

# What the snippets set in code, carried in Base.json under CODE_SECTION: the vehicle's properties by their USD
# names (the property table gives each its dimension) with where the vehicle2 parameters hold them, and the
# controller's initial commands.
CODE_SECTION = "PhysxVehicleUsd"
CODE_VEHICLE_VALUES: dict[str, Any] = {
    "subStepThresholdLongitudinalSpeed": lambda p: p.context.substep_threshold_speed,
    "lowForwardSpeedSubStepCount": lambda p: p.context.low_speed_substeps,
    "highForwardSpeedSubStepCount": lambda p: p.context.high_speed_substeps,
    "minLateralSlipDenominator": lambda p: p.tire_slip.min_lat_slip_denominator,
    "minPassiveLongitudinalSlipDenominator": lambda p: p.tire_slip.min_passive_long_slip_denominator,
    "minActiveLongitudinalSlipDenominator": lambda p: p.tire_slip.min_active_long_slip_denominator,
    "longitudinalStickyTireThresholdSpeed": lambda p: p.tire_sticky.longitudinal[0],
    "longitudinalStickyTireThresholdTime": lambda p: p.tire_sticky.longitudinal[1],
    "longitudinalStickyTireDamping": lambda p: p.tire_sticky.longitudinal[2],
    "lateralStickyTireThresholdSpeed": lambda p: p.tire_sticky.lateral[0],
    "lateralStickyTireThresholdTime": lambda p: p.tire_sticky.lateral[1],
    "lateralStickyTireDamping": lambda p: p.tire_sticky.lateral[2],
}
CODE_CONTROLLER_VALUES = ("accelerator", "brake0", "brake1", "steer", "targetGear")


class SnippetFormatError(InputError):
    """A snippet file that the snippets' reader would reject, or a vehicle that does not fit the format."""


# ---------------------------------------------------------------------------------------------------
# Units: one dimension per quantity, used both ways.


@dataclass(frozen=True)
class Scaler:
    """Multiplies a value of dimension (L, M) by length**L * mass**M."""

    length: float = 1.0
    mass: float = 1.0

    def __call__(self, value: float, dim: Dim) -> float:
        return float(value) * self.length ** dim.length * self.mass ** dim.mass


def axis_vector(token: str) -> tuple[float, float, float]:
    return AXIS_VECTORS[token]


def axis_index(vector: Sequence[float], what: str) -> int:
    for i, token in enumerate(AXES):
        if all(abs(a - b) < 1e-6 for a, b in zip(vector, AXIS_VECTORS[token])):
            return i
    raise SnippetFormatError(f"the vehicle's {what} axis {tuple(vector)} is not a coordinate axis; "
                             "the snippet frame holds only +-X, +-Y, +-Z")


def cross(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a: Sequence[float], b: Sequence[float]) -> float:
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
    order = sorted(range(params.nb_wheels), key=lambda i: (-dot(params.wheels[i].suspension.attachment_position, lng), i))
    axles: list[list[int]] = []
    front = None
    for i in order:
        x = dot(params.wheels[i].suspension.attachment_position, lng)
        if front is None or front - x > tolerance:
            axles.append([])
            front = x
        axles[-1].append(i)
    return [sorted(axle) for axle in axles]


def _quat_xyzw(q: Sequence[float]) -> list[float]:
    return [float(q[1]), float(q[2]), float(q[3]), float(q[0])]


def _response(resp: CommandResponseParams, max_dim: Dim, s: Scaler) -> dict:
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
    track = abs(dot(p0, lat) - dot(p1, lat)) or 1.0
    rear = params.wheels[axles[-1][0]].suspension.attachment_position if axles else p0
    base = abs(dot(p0, lng) - dot(rear, lng)) or 1.0
    return {"WheelIds": front, "WheelBase": base, "TrackWidth": track, "Strength": 0.0}


def snippet_from_params(params: VehicleParams, kilograms_per_unit: float = 1.0) -> SnippetExport:
    """The snippet files of one vehicle's vehicle2 parameters (stage lengths, Scale = length units per metre)."""
    s = Scaler(length=1.0, mass=float(kilograms_per_unit))
    notes: list[str] = []
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
            "LngAxis": axis_index(params.frame.lng_axis, "longitudinal"),
            "LatAxis": axis_index(params.frame.lat_axis, "lateral"),
            "VrtAxis": axis_index(params.frame.vrt_axis, "vertical"),
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
    base[CODE_SECTION] = _code_values(params, s, notes)
    for name, data in files.items():
        _check_finite(data, f"{params.path}: {name}")
    return SnippetExport(vehicle_path=params.path, files=files, notes=notes)


def _code_values(params: VehicleParams, s: Scaler, notes: list[str]) -> dict:
    """CODE_SECTION of Base.json: what the snippets set in code, which `import-snippet` reads back; what neither
    the format nor this member carries is said in `notes`."""
    vehicle = {}
    for name, value_of in CODE_VEHICLE_VALUES.items():
        value = value_of(params)
        vehicle[name] = int(value) if isinstance(value, int) else s(value, P.prop(P.VEHICLE, name).dim)
    section: dict[str, Any] = {
        "About": "values PhysX's vehicle snippets set in code, not read by PhysX's file reader: physxvehicle-usd "
                 "import-snippet reads them back",
        "Vehicle": vehicle,
        "UpdateMode": params.context.update_mode,
    }
    controller = params.description.controller if params.description is not None else None
    if controller is not None:
        section["Controller"] = {name: controller[name] for name in CODE_CONTROLLER_VALUES if name in controller}
    gravity = math.sqrt(sum(c * c for c in params.context.gravity)) / params.scale.scale
    if abs(gravity - GRAVITY_M_S2) > 1e-4 * GRAVITY_M_S2:
        notes.append(f"gravity {gravity:g} m/s^2: the snippets use {GRAVITY_M_S2} m/s^2 (not in the files)")
    state = params.initial_state
    if any(state.linear_velocity) or any(state.angular_velocity):
        notes.append("the initial velocities are not part of the format: an imported vehicle starts at rest")
    notes.append("the vehicle's pose is not part of the format: an imported vehicle starts at rest on a ground plane "
                 "through the origin")
    return section


def _engine_drive(params: VehicleParams, axles: list[list[int]], s: Scaler, notes: list[str]) -> dict:
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
    export = snippet_from_params(params, description.stage.kilogramsPerUnit)
    friction = _ground_frictions(description, params)
    if friction:
        export.files[BASE_FILE][CODE_SECTION]["TireFriction"] = friction[0]
    if len(friction) > 1:
        export.notes.append(f"the tires' friction differs by wheel or ground ({', '.join(f'{f:g}' for f in friction)}):"
                            f" the snippets give every tire one, written as {friction[0]:g}")
    return export


def _ground_frictions(description: StageDescription, params: VehicleParams) -> list[float]:
    """The friction each tire gets on each ground collider of the stage (its friction table's value for the ground's
    material, else the table's default), each value once, the first wheel's on the first ground first. The snippets
    set one friction for every tire in code (1.0): CODE_SECTION carries it."""
    values: list[float] = []
    for wheel in params.wheels:
        table = wheel.friction_table
        for ground in description.ground:
            found = ground.material in table.ground_materials
            value = float(table.friction_values[table.ground_materials.index(ground.material)] if found
                          else table.default_friction)
            if value not in values:
                values.append(value)
    return values


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
    from ..stage.io import write_atomic
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


__all__ = [
    "AXES", "BASE_FILE", "DIRECT_DRIVE_FILE", "ENGINE_DRIVE_FILE", "SnippetExport", "SnippetFormatError",
    "snippet_folder_names", "snippet_from_description", "snippet_from_params", "snippet_json_text",
    "write_snippet_folders",
]
