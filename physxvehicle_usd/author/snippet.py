"""A PhysX vehicle snippet's JSON files -> a stage description -> a USD stage with that vehicle, ready to drive.

    from physxvehicle_usd.author.snippet import import_snippet
    result = import_snippet("vehicledata", "car.usda", units="cm")

`description_from_snippet` reads the files (read by author/snippet_files.py; the format facts are in
runtime/snippet.py, which writes them);
`write.write_stage` authors the description. On top of what the description holds, the vehicle body gets PhysX's
rigid-body settings every vehicle needs (gravity off, because the vehicle applies gravity through its
suspensions; no sleeping, which would stop the vehicle update).
"""
from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pxr import Sdf, Usd, UsdGeom

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
from ..read.context import MAX_WHEELS
from ..runtime.snippet import (
    AXES,
    BASE_FILE,
    CLUTCH_BEST_POSSIBLE,
    CODE_CONTROLLER_VALUES,
    CODE_SECTION,
    CODE_VEHICLE_VALUES,
    DIRECT_DRIVE_FILE,
    ENGINE_DRIVE_FILE,
    GRAVITY_M_S2,
    JOUNCE_SWEEP,
    Scaler,
    SnippetFormatError,
    axis_vector,
    cross,
    dot,
)
from ..runtime.vehicle2 import TIRE_LOAD_FILTER
from ..stage.io import export_layer_atomic
from ..units import LENGTH, MASS, MASS_LENGTH, MASS_LENGTH2
from ..write import write_stage
from .snippet_files import SnippetDoc, read_snippet_files

# vehicle property -> the property table row holding its default (the passive denominator's default lives
# with the deprecated attribute it replaces)
_AUTHORED_VEHICLE_DEFAULTS = {
    "minPassiveLongitudinalSlipDenominator": "minLongitudinalSlipDenominator",
    "minActiveLongitudinalSlipDenominator": "minActiveLongitudinalSlipDenominator",
    "minLateralSlipDenominator": "minLateralSlipDenominator",
    "longitudinalStickyTireThresholdSpeed": "longitudinalStickyTireThresholdSpeed",
    "lateralStickyTireThresholdSpeed": "lateralStickyTireThresholdSpeed",
}


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


def _ncr(doc: SnippetDoc, response: Mapping, key: str, path: str, s: Scaler) -> Block | None:
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


def _torque_curve(doc: SnippetDoc) -> list[tuple[float, ...]]:
    """The engine's torque curve; an empty one is refused (the USD engine needs at least one point: its own
    validation rejects `torqueCurve = []`)."""
    rows = doc.rows("EngineParams", "TorqueCurve", width=2, max_rows=8)
    if not rows:
        raise doc.fail("EngineParams.TorqueCurve", "needs at least one (normalised engine speed, torque) point")
    return [tuple(r) for r in rows]


def _response_values(doc: SnippetDoc, key: str, n: int) -> tuple[float, list[float], Mapping]:
    response = doc.get(key)
    max_response = doc.number(key, "MaxResponse")
    multipliers = doc.numbers(key, "WheelResponseMultipliers")
    if len(multipliers) < n:
        raise doc.fail(f"{key}.WheelResponseMultipliers", f"needs one multiplier per wheel ({n})")
    if len(multipliers) > MAX_WHEELS:
        raise doc.fail(f"{key}.WheelResponseMultipliers", f"at most {MAX_WHEELS} entries (PhysX's wheel limit), got "
                       f"{len(multipliers)}")
    if any(m != 0.0 for m in multipliers[n:]):
        raise doc.fail(f"{key}.WheelResponseMultipliers", f"multipliers past wheel {n - 1} must be 0 (the vehicle "
                       f"has {n} wheels)")
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
    base = SnippetDoc(files[BASE_FILE], names.get(BASE_FILE, BASE_FILE))
    notes: list[str] = []

    # frame and units
    axes = {}
    for key in ("LngAxis", "LatAxis", "VrtAxis"):
        index = int(base.number("Frame", key))
        if not 0 <= index < len(AXES):
            raise base.fail(f"Frame.{key}", f"must be a PxVehicleAxes index 0..5, got {index}")
        axes[key] = AXES[index]
    lng, lat, vrt = (axis_vector(axes[k]) for k in ("LngAxis", "LatAxis", "VrtAxis"))
    if cross(vrt, lng) != lat:
        raise base.fail("Frame", f"lateral axis {axes['LatAxis']} is not vertical x longitudinal; USD vehicles "
                        "(and Omni) always use that right-handed frame")
    snippet_scale = base.number("Scale", "Scale")
    if not snippet_scale > 0:
        raise base.fail("Scale.Scale", f"must be > 0, got {snippet_scale}")
    s = Scaler(length=(1.0 / meters_per_unit) / snippet_scale, mass=1.0)

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
    code = _code_values(base, s)
    if code is None:
        # The snippets set slip and sticky-tire thresholds in code; author Omni's defaults (in stage lengths) so the
        # stage does not lean on the sentinel fallbacks, which the parser reports.
        for base_name, default_row in _AUTHORED_VEHICLE_DEFAULTS.items():
            vehicle.set(base_name, P.prop(P.VEHICLE, default_row).default / meters_per_unit, Source.AUTHORED)
        notes.append(f"{BASE_FILE} has no {CODE_SECTION} member (the values the snippets set in code): the sub-step "
                     "counts, slip denominators and sticky-tire settings are Omni's defaults, the commands at rest, the tires' "
                     "friction on the ground the snippets' 1.0")
    else:
        for base_name, value in code["Vehicle"].items():
            vehicle.set(base_name, value, Source.AUTHORED)
    g = GRAVITY_M_S2 / meters_per_unit
    height = _rest_height(wheels, vrt, g)
    mass = s(base.number("RigidBodyParams", "Mass"), MASS)
    rigid_body = _authored(
        P.RIGID_BODY, vehicle_path, mass=mass, centerOfMass=(0.0, 0.0, 0.0),
        diagonalInertia=tuple(s(c, MASS_LENGTH2) for c in base.numbers("RigidBodyParams", "MOI", length=3)),
        principalAxes=(1.0, 0.0, 0.0, 0.0), position=tuple(height * c for c in vrt), orientation=(1.0, 0.0, 0.0, 0.0),
        scale=(1.0, 1.0, 1.0), linearVelocity=(0.0, 0.0, 0.0), angularVelocity=(0.0, 0.0, 0.0),
    )
    context = _authored(P.CONTEXT, scene_path, updateMode=code["UpdateMode"] if code else "velocityChange",
                        verticalAxis=axes["VrtAxis"],
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
        _engine_drive_from_snippet(SnippetDoc(files[ENGINE_DRIVE_FILE], names.get(ENGINE_DRIVE_FILE, ENGINE_DRIVE_FILE)),
                                   v, n, s, notes)
    elif DIRECT_DRIVE_FILE in files:
        _direct_drive_from_snippet(SnippetDoc(files[DIRECT_DRIVE_FILE], names.get(DIRECT_DRIVE_FILE, DIRECT_DRIVE_FILE)),
                                   v, n, s, notes)
    else:
        raise SnippetFormatError(f"a drive file is required: {ENGINE_DRIVE_FILE} or {DIRECT_DRIVE_FILE}")
    commands = {"accelerator": 0.0, "brake0": 0.0, "brake1": 0.0, "steer": 0.0, "targetGear": 255}
    v.controller = _authored(P.CONTROLLER, vehicle_path, **{**commands, **(code or {}).get("Controller", {})})

    up_axis = "Z" if axes["VrtAxis"] in ("posZ", "negZ") else "Y"
    if axes["VrtAxis"] not in ("posY", "posZ"):
        notes.append(f"vertical axis {axes['VrtAxis']}: the stage's upAxis is {up_axis} and gravity points along "
                     f"-{axes['VrtAxis']}; the ground plane's collision half-space faces +{axes['VrtAxis'][-1]}")
    scene = SceneDescription(
        path=scene_path,
        settings=_authored(P.SCENE, scene_path, gravityDirection=tuple(0.0 - c for c in vrt), gravityMagnitude=g),
        context=context,
    )
    plane_axis = "XYZ"[[abs(c) for c in vrt].index(1.0)]
    identity = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    description = StageDescription(
        stage=StageInfo(file="", metersPerUnit=meters_per_unit, kilogramsPerUnit=1.0, upAxis=up_axis),
        scenes={scene_path: scene},
        vehicles={vehicle_path: v},
        # The snippets give the ground material friction 1.0 against every tire (in code: CODE_SECTION may say
        # otherwise).
        tireFrictionTables={table_path: _authored(P.TABLE, table_path, groundMaterials=[material_path],
                                                  frictionValues=[(code or {}).get("TireFriction", 1.0)],
                                                  defaultFrictionValue=1.0)},
        ground=[GroundDescription(path=ground_path, kind="plane", transform=identity, axis=plane_axis,
                                  material=material_path)],
        materials={material_path: MaterialDescription.authored(material_path, staticFriction=1.0, dynamicFriction=1.0,
                                                               restitution=0.0)},
    )
    return SnippetImport(description=description, notes=notes)


def _code_values(base: SnippetDoc, s: Scaler) -> dict | None:
    """Base.json's CODE_SECTION (what the snippets set in code, written by `convert --target physx-snippet`),
    checked and in stage units; None where the file has none (PhysX's own files)."""
    if CODE_SECTION not in base.data:
        return None
    vehicle = {}
    for name in CODE_VEHICLE_VALUES:
        value = base.number(CODE_SECTION, "Vehicle", name)
        row = P.prop(P.VEHICLE, name)
        if isinstance(row.default, int):
            if not value.is_integer():
                raise base.fail(f"{CODE_SECTION}.Vehicle.{name}", f"expected a whole number, got {value!r}")
            vehicle[name] = int(value)
        else:
            vehicle[name] = s(value, row.dim)
    mode = base.get(CODE_SECTION, "UpdateMode")
    if mode not in ("velocityChange", "acceleration"):
        raise base.fail(f"{CODE_SECTION}.UpdateMode", f"expected velocityChange or acceleration, got {mode!r}")
    out: dict[str, Any] = {"Vehicle": vehicle, "UpdateMode": mode}
    if "TireFriction" in base.get(CODE_SECTION):
        out["TireFriction"] = base.number(CODE_SECTION, "TireFriction")
        if out["TireFriction"] < 0:
            raise base.fail(f"{CODE_SECTION}.TireFriction", f"must be >= 0, got {out['TireFriction']!r}")
    if "Controller" in base.get(CODE_SECTION):
        controller = base.get(CODE_SECTION, "Controller")
        out["Controller"] = {name: base.number(CODE_SECTION, "Controller", name) for name in CODE_CONTROLLER_VALUES
                             if isinstance(controller, Mapping) and name in controller}
        if "targetGear" in out["Controller"]:
            out["Controller"]["targetGear"] = int(out["Controller"]["targetGear"])
    return out


def _close_rows(rows: Sequence[Sequence[float]], reference: Sequence[Sequence[float]]) -> bool:
    # float32 precision: files write 0.23080000281333924 for 0.2308.
    return len(rows) == len(reference) and all(
        len(r) == len(q) and all(abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(r, q)) for r, q in zip(rows, reference))


def _three_rows(doc: SnippetDoc, tire: Mapping) -> list[list[float]]:
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
        centre = dot(att["suspensionFramePosition"], vrt) + dot(att["suspensionTravelDirection"], vrt) * (travel - jounce)
        height = max(height, w.wheel["radius"] - centre)
    return height


def _engine_drive_from_snippet(doc: SnippetDoc, v: VehicleDescription, n: int, s: Scaler, notes: list[str]) -> None:
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
        torqueCurve=_torque_curve(doc),
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


def _direct_drive_from_snippet(doc: SnippetDoc, v: VehicleDescription, n: int, s: Scaler, notes: list[str]) -> None:
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




UNITS = {"m": 1.0, "cm": 0.01}

# PhysxRigidBodyAPI is NVIDIA's schema, not ours: authored by name so PhysX finds it when it loads the file.
_PHYSX_RIGID_BODY = "PhysxRigidBodyAPI"
_RIGID_BODY_SETTINGS = (
    (P.physx_rigid_body_attribute("disableGravity"), Sdf.ValueTypeNames.Bool, True),
    (P.physx_rigid_body_attribute("sleepThreshold"), Sdf.ValueTypeNames.Float, 0.0),
    (P.physx_rigid_body_attribute("stabilizationThreshold"), Sdf.ValueTypeNames.Float, 0.0),
)


@dataclass
class SnippetImportResult:
    stage: Usd.Stage
    vehicle_path: str
    notes: list[str] = field(default_factory=list)


def stage_from_snippet(directory: str | os.PathLike, units: str = "m", drive: str | None = None,
                       vehicle_name: str | None = None) -> SnippetImportResult:
    """An in-memory stage with the snippet vehicle of `directory` (Base.json + EngineDrive.json/DirectDrive.json)."""
    if units not in UNITS:
        raise ValueError(f"units must be one of {sorted(UNITS)}, got {units!r}")
    files = read_snippet_files(directory, drive)
    name = vehicle_name or vehicle_name_from_folder(directory)
    vehicle_path = f"/World/{name}"
    imported = description_from_snippet(
        files, meters_per_unit=UNITS[units], vehicle_path=vehicle_path,
        file_names={file: os.path.join(str(directory), file) for file in files},
    )
    stage = Usd.Stage.CreateInMemory()
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    write_stage(imported.description, stage)
    body = stage.GetPrimAtPath(vehicle_path)
    body.AddAppliedSchema(_PHYSX_RIGID_BODY)
    for attr_name, type_name, value in _RIGID_BODY_SETTINGS:
        body.CreateAttribute(attr_name, type_name, custom=False).Set(value)
    return SnippetImportResult(stage=stage, vehicle_path=vehicle_path, notes=imported.notes)


def import_snippet(directory: str | os.PathLike, output: str | os.PathLike, units: str = "m",
                   drive: str | None = None) -> SnippetImportResult:
    """Write the snippet vehicle of `directory` to the USD file `output` (atomically)."""
    result = stage_from_snippet(directory, units, drive)
    result.stage.GetRootLayer().documentation = f"Imported from the PhysX vehicle snippet files in {os.path.basename(os.path.abspath(directory))}"
    export_layer_atomic(result.stage.GetRootLayer(), output)
    return result


__all__ = ["SnippetImport", "SnippetImportResult", "UNITS", "description_from_snippet", "import_snippet",
           "read_snippet_files", "stage_from_snippet", "vehicle_name_from_folder"]
