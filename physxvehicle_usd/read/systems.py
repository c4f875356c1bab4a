"""A vehicle's systems across its wheels, read once the wheels are valid: differential, brakes, steering and
controllers.
"""
from __future__ import annotations

import math

from .. import properties as P
from ..description import Block, Source, VehicleDescription
from ..properties import FLT_EPSILON
from . import components as C
from .context import MAX_WHEELS, VehicleParse
from .values import ComponentReader
from .wheels import Attachment


def _check_wheel_list(v: VehicleParse, wheels: list[int], n: int, negative: str, out_of_range: str, prop: str) -> bool:
    """A list of wheel indices as the parser checks it; the two failures carry their own rule codes."""
    if any(w < 0 for w in wheels):
        v.error(negative, "wheel indices must not be negative", prop)
        return False
    if len(wheels) > n or any(w >= n for w in wheels):
        v.error(out_of_range, f"wheel indices {wheels} do not fit the vehicle's {n} wheels", prop)
        return False
    repeated = sorted({w for w in wheels if wheels.count(w) > 1})
    if repeated:
        unlisted = [w for w in range(n) if w not in wheels]
        v.warning("WHEEL_DUPLICATE", f"wheel indices {wheels} list wheel{'s' if len(repeated) > 1 else ''} "
                  f"{', '.join(map(str, repeated))} more than once: PhysX keeps the value of the last entry for each"
                  + (f", and wheel{'s' if len(unlisted) > 1 else ''} {', '.join(map(str, unlisted))} "
                     "get none (not listed)" if unlisted else ""), prop)
    return True


def read_differential(v: VehicleParse, d: VehicleDescription, attachments: list[Attachment]) -> None:
    ctx, prim, n = v.ctx, v.prim, len(attachments)
    has_tank, has_multi = prim.HasAPI(P.TANK_DIFF), prim.HasAPI(P.MULTI_DIFF)
    if (has_tank or has_multi) and d.drive is None:
        v.error("V95", "a differential needs a drive")
        return
    if has_multi or has_tank:
        r = ComponentReader(prim, P.MULTI_DIFF, ctx.sink, ctx.units)
        block = Block(schema_name=P.MULTI_DIFF, path=v.path)
        wheels_raw = r.raw("wheels")
        wheels = list(wheels_raw.value or [])
        _check_wheel_list(v, wheels, n, "V92", "V96", r.name("wheels"))
        block.set("wheels", wheels, wheels_raw.source)
        for base, code_range, lo in (("torqueRatios", "V94", -1.0), ("averageWheelSpeedRatios", "V94", 0.0)):
            raw = r.raw(base)
            values = list(raw.value or [])
            if values and len(values) != len(wheels):
                v.error("V93", f"{len(values)} entries for {len(wheels)} wheels", r.name(base))
            if any(not lo <= x < 1.0 + FLT_EPSILON for x in values):
                v.error(code_range, f"entries must lie in [{lo:g}, 1]", r.name(base))
            if values:
                block.set(base, values, raw.source)
            else:
                block.set(base, [1.0 / len(wheels)] * len(wheels) if wheels else [], Source.DEFAULT)
        d.multiWheelDifferential = block
    if has_tank:
        r = ComponentReader(prim, P.TANK_DIFF, ctx.sink, ctx.units)
        block = Block(schema_name=P.TANK_DIFF, path=v.path)
        values = {}
        for base in ("numberOfWheelsPerTrack", "thrustIndexPerTrack", "trackToWheelIndices", "wheelIndicesInTrackOrder"):
            raw = r.raw(base)
            values[base] = list(raw.value or [])
            block.set(base, values[base], raw.source)
        per_track, thrust, starts, order = (values[k] for k in ("numberOfWheelsPerTrack", "thrustIndexPerTrack",
                                                                "trackToWheelIndices", "wheelIndicesInTrackOrder"))
        tracks = len(per_track)
        if tracks > MAX_WHEELS or any(c < 0 for c in per_track):
            v.error("V97", "at most 20 tracks, each with a non-negative wheel count", r.name("numberOfWheelsPerTrack"))
        if len(thrust) != tracks or any(t not in (0, 1) for t in thrust):
            v.error("V98", "one thrust index (0 or 1) per track", r.name("thrustIndexPerTrack"))
        if len(order) > MAX_WHEELS:
            v.error("V99", "at most 20 wheel indices", r.name("wheelIndicesInTrackOrder"))
        if len(starts) != tracks:
            v.error("V103", "one start index per track", r.name("trackToWheelIndices"))
        else:
            used: set[int] = set()
            for i in range(tracks):
                if starts[i] < 0 or (i > 0 and starts[i] < starts[i - 1] + per_track[i - 1]):
                    v.error("V100", "track start indices must not overlap", r.name("trackToWheelIndices"))
                    break
                if starts[i] + per_track[i] > len(order):
                    v.error("V101", f"track {i} runs past the end of wheelIndicesInTrackOrder", r.name("trackToWheelIndices"))
                    break
                for w in order[starts[i]:starts[i] + per_track[i]]:
                    if w < 0 or w in used:
                        v.error("V102", f"wheel {w} is negative or in two tracks", r.name("wheelIndicesInTrackOrder"))
                    elif w >= n:
                        v.error("V104", f"wheel {w} does not exist ({n} wheels)", r.name("wheelIndicesInTrackOrder"))
                    used.add(w)
        d.tankDifferential = block
    if not (has_multi or has_tank) and d.drive is not None:
        driven = [a.index for a in attachments if a.block["_driven"]]
        block = Block(schema_name=P.MULTI_DIFF, path=v.path)
        block.set("wheels", sorted(driven), Source.DEPRECATED)
        # Basic drive: each driven wheel gets the full torque; standard drive: an equal split.
        share = 1.0 if d.drive.type == "basic" else (1.0 / len(driven) if driven else 0.0)
        block.set("torqueRatios", [share] * len(driven), Source.DEPRECATED)
        block.set("averageWheelSpeedRatios", [1.0 / len(driven)] * len(driven) if driven else [], Source.DEPRECATED)
        if driven:
            v.warning("V37", "driven wheels come from the deprecated physxVehicleWheelAttachment:driven; apply "
                      "PhysxVehicleMultiWheelDifferentialAPI instead")
        d.multiWheelDifferential = block


def _per_wheel(wheels: list[int], multipliers: list[float], n: int) -> tuple[list[int], list[float]]:
    """Empty wheel list = all wheels; empty multipliers = 1 each (parse rules 5.5)."""
    if not wheels:
        return list(range(n)), [1.0] * n
    return wheels, multipliers if multipliers else [1.0] * len(wheels)


def _wheel_system(v: VehicleParse, r: ComponentReader, block: Block, n: int, max_base: str, mult_base: str,
                  codes: tuple[str, str, str]) -> tuple[float, list[float]]:
    """What brakes and steering share: a wheel list with per-wheel multipliers under one maximum.

    Checks the list as the parser does (codes: negative index, index out of range, multiplier count),
    stores the block with the parser's fill-ins, and returns the maximum and the authored multipliers."""
    wheels_raw, mult_raw, maximum = r.raw("wheels"), r.raw(mult_base), r.raw(max_base)
    wheels, mults = list(wheels_raw.value or []), list(mult_raw.value or [])
    negative, out_of_range, mismatch = codes
    _check_wheel_list(v, wheels, n, negative, out_of_range, r.name("wheels"))
    if mults and len(mults) != len(wheels):
        v.error(mismatch, f"{len(mults)} multipliers for {len(wheels)} wheels", r.name(mult_base))
    all_wheels, all_mults = _per_wheel(wheels, mults, n)
    block.set("wheels", all_wheels, wheels_raw.source if wheels else Source.DEFAULT)
    block.set(max_base, maximum.value, maximum.source)
    block.set(mult_base, all_mults, mult_raw.source if mults else Source.DEFAULT)
    return maximum.value, mults


def _wheel_value(a: Attachment, base: str) -> float:
    """A deprecated per-wheel value of the wheel component (0 when unauthored, or when the wheel itself is
    invalid: that error is reported already and the vehicle is left out)."""
    return (a.wheel.get(base) if a.wheel is not None else None) or 0.0


def read_brakes(v: VehicleParse, d: VehicleDescription, attachments: list[Attachment]) -> None:
    ctx, prim, n = v.ctx, v.prim, len(attachments)
    instances = [i for i in P.MULTIPLE_APPLY[P.BRAKES] if prim.HasAPI(P.BRAKES, i)]
    if prim.HasAPI(P.BRAKES) and not instances:
        v.error("V105", "PhysxVehicleBrakesAPI is applied but with neither instance brakes0 nor brakes1")
        return
    if instances and d.drive is None:
        v.error("V110", "brakes need a drive")
        return
    for instance in instances:
        r = ComponentReader(prim, P.BRAKES, ctx.sink, ctx.units, instance=instance)
        block = Block(schema_name=P.BRAKES, path=v.path)
        torque, mults = _wheel_system(v, r, block, n, "maxBrakeTorque", "torqueMultipliers", ("V107", "V110", "V108"))
        if any(m < 0 for m in mults):
            v.error("V109", "multipliers must not be negative", r.name("torqueMultipliers"))
        if not r.check_range("maxBrakeTorque", torque):
            v.valid = False
        d.brakes[instance] = block
        if prim.HasAPI(P.NCR, instance):
            ncr = C.parse_ncr(prim, instance, ctx.sink, ctx.units)
            if v.fail_if_none(ncr) is not None:
                d.nonlinearCommandResponses[instance] = ncr
    if not instances and d.drive is not None:
        # Deprecated setup: the wheels' maxBrakeTorque/maxHandBrakeTorque become per-wheel multipliers of
        # two braking systems with a maximum response of 1.
        by_index = sorted(attachments, key=lambda a: a.index)
        for instance, base in (("brakes0", "maxBrakeTorque"), ("brakes1", "maxHandBrakeTorque")):
            block = Block(schema_name=P.BRAKES, path=v.path)
            block.set("wheels", list(range(n)), Source.DEPRECATED)
            block.set("maxBrakeTorque", 1.0, Source.DEPRECATED)
            block.set("torqueMultipliers", [float(_wheel_value(a, base)) for a in by_index], Source.DEPRECATED)
            d.brakes[instance] = block


def read_steering(v: VehicleParse, d: VehicleDescription, attachments: list[Attachment]) -> None:
    ctx, prim, n = v.ctx, v.prim, len(attachments)
    has_basic, has_ackermann = prim.HasAPI(P.STEERING), prim.HasAPI(P.ACKERMANN)
    if (has_basic or has_ackermann) and d.drive is None:
        v.error("V118", "steering needs a drive")
        return
    if has_basic and has_ackermann:
        v.warning("V111", "both PhysxVehicleSteeringAPI and PhysxVehicleAckermannSteeringAPI are applied; PhysX uses "
                  "the plain steering and ignores the Ackermann steering")
    if has_basic:
        r = ComponentReader(prim, P.STEERING, ctx.sink, ctx.units)
        block = Block(schema_name=P.STEERING, path=v.path)
        angle, mults = _wheel_system(v, r, block, n, "maxSteerAngle", "angleMultipliers", ("V112", "V118", "V113"))
        # an unusable maximum (said already: wrong type, not finite) has no product to check
        if angle is not None and any(abs(angle * m) > math.pi for m in mults):
            v.error("V114", "maxSteerAngle x multiplier must stay within [-pi, pi]", r.name("angleMultipliers"))
        d.steering = block
    elif has_ackermann:
        r = ComponentReader(prim, P.ACKERMANN, ctx.sink, ctx.units)
        block = Block(schema_name=P.ACKERMANN, path=v.path)
        for base in ("wheel0", "wheel1"):
            raw = r.raw(base)
            if not raw.has_value or raw.value < 0:
                v.error("V115", f"{base} needs a non-negative wheel index", r.name(base))
            elif raw.value >= n:
                v.error("V118", f"{base} = {raw.value} but the vehicle has {n} wheels", r.name(base))
            block.set(base, raw.value, raw.source)
        if block["wheel0"] is not None and block["wheel0"] == block["wheel1"]:
            v.error("V115", "wheel0 and wheel1 must differ", r.name("wheel1"))
        for base in ("wheelBase", "trackWidth"):
            if not r.copy(block, base, code="V116"):
                v.valid = False
        if not r.copy(block, "strength"):
            v.valid = False
        r.copy(block, "maxSteerAngle")
        d.ackermannSteering = block
    elif d.drive is not None:
        by_index = sorted(attachments, key=lambda a: a.index)
        block = Block(schema_name=P.STEERING, path=v.path)
        block.set("wheels", list(range(n)), Source.DEPRECATED)
        block.set("maxSteerAngle", 1.0, Source.DEPRECATED)
        block.set("angleMultipliers", [float(_wheel_value(a, "maxSteerAngle")) for a in by_index], Source.DEPRECATED)
        d.steering = block
    if (has_basic or has_ackermann) and prim.HasAPI(P.NCR, "steer"):
        ncr = C.parse_ncr(prim, "steer", ctx.sink, ctx.units)
        if v.fail_if_none(ncr) is not None:
            d.nonlinearCommandResponses["steer"] = ncr


def read_controllers(v: VehicleParse, d: VehicleDescription, attachments: list[Attachment]) -> None:
    ctx, prim = v.ctx, v.prim
    if d.drive is not None and d.drive.type == "basic" and d.drive.basic is not None:
        drive_prim = ctx.stage.GetPrimAtPath(d.drive.path)
        if drive_prim.HasAPI(P.NCR, "drive"):
            ncr = C.parse_ncr(drive_prim, "drive", ctx.sink, ctx.units)
            if v.fail_if_none(ncr) is not None:
                d.nonlinearCommandResponses["drive"] = ncr
    if not prim.HasAPI(P.CONTROLLER):
        return
    if any(a.wheel_controller is not None for a in attachments):
        v.error("V129", "PhysxVehicleControllerAPI together with wheel controllers on the wheels")
    if d.drive is None:
        v.error("V130", "PhysxVehicleControllerAPI needs a drive")
        return
    r = ComponentReader(prim, P.CONTROLLER, ctx.sink, ctx.units)
    block = Block(schema_name=P.CONTROLLER, path=v.path)
    for base in ("accelerator", "brake0", "brake1", "steer", "targetGear"):
        if not r.copy(block, base):
            v.valid = False
    deprecated = {}
    for base in ("brake", "handbrake", "steerLeft", "steerRight"):
        raw = r.raw(base)
        if raw.authored and raw.has_value:
            r.deprecated_warning(base, P.prop(P.CONTROLLER, base).deprecated_by)
            if not r.check_range(base, raw.value):
                v.valid = False
            deprecated[base] = raw.value
    if all(b.source("maxBrakeTorque") == Source.DEPRECATED for b in d.brakes.values()) and d.brakes:
        block.set("brake0", deprecated.get("brake", 0.0), Source.DEPRECATED)
        block.set("brake1", deprecated.get("handbrake", 0.0), Source.DEPRECATED)
    if d.steering is not None and d.steering.source("maxSteerAngle") == Source.DEPRECATED:
        block.set("steer", deprecated.get("steerLeft", 0.0) - deprecated.get("steerRight", 0.0), Source.DEPRECATED)
    if block.get("targetGear") == 255 and d.drive.type == "standard" and d.drive.autoGearBox is None:
        v.warning("V137", "targetGear 255 asks for automatic shifting but the drive has no PhysxVehicleAutoGearBoxAPI",
                  r.name("targetGear"))
    d.controller = block
    if prim.HasAPI(P.TANK_CONTROLLER):
        tr = ComponentReader(prim, P.TANK_CONTROLLER, ctx.sink, ctx.units)
        if d.drive.type != "standard":
            v.error("V134", "PhysxVehicleTankControllerAPI needs a standard drive")
        if d.tankDifferential is None:
            v.error("V135", "PhysxVehicleTankControllerAPI needs PhysxVehicleTankDifferentialAPI")
        tank = Block(schema_name=P.TANK_CONTROLLER, path=v.path)
        for base in ("thrust0", "thrust1"):
            if not tr.copy(tank, base):
                v.valid = False
        d.tankController = tank


def _response_instances(prim) -> list[str]:
    """The instance names of PhysxVehicleNonlinearCommandResponseAPI applied to a prim."""
    prefix = P.NCR + ":"
    return [name[len(prefix):] for name in prim.GetAppliedSchemas() if name.startswith(prefix)]


def report_ignored_responses(v: VehicleParse, d: VehicleDescription, attachments: list[Attachment]) -> None:
    """Nonlinear command responses the parser never looks at (Vehicle.cpp reads steer with the steering or
    Ackermann API, brakes0/brakes1 with that brakes instance, all three on the vehicle prim, and drive only on a
    basic drive's prim): each is said (NCR_IGNORED), since an author who applied it expects it to act."""
    if d.drive is None:
        return  # brakes and steering need a drive: those errors are reported already
    ctx, prim = v.ctx, v.prim
    drive_prim = ctx.stage.GetPrimAtPath(d.drive.path)
    steering = prim.HasAPI(P.STEERING) or prim.HasAPI(P.ACKERMANN)
    owners = [(prim, v.path)] + ([(drive_prim, d.drive.path)] if d.drive.path != v.path else [])
    for owner, owner_path in owners:
        for instance in _response_instances(owner):
            on_vehicle, on_drive = owner_path == v.path, owner_path == d.drive.path
            if instance == "drive":
                if on_drive and d.drive.type == "basic":
                    continue
                why = ("a drive response acts on a basic drive only (PhysxVehicleDriveBasicAPI): PhysX's engine drive "
                       "takes the accelerator linearly" if on_drive else
                       f"a drive response is read on the drive's prim, {d.drive.path}, not here")
            elif instance == "steer":
                if on_vehicle and steering:
                    continue
                why = ("it is read with PhysxVehicleSteeringAPI or PhysxVehicleAckermannSteeringAPI, which this vehicle "
                       "does not apply" if on_vehicle else "a steer response is read on the vehicle prim, not the drive's")
            elif instance in P.MULTIPLE_APPLY[P.BRAKES]:
                if on_vehicle and prim.HasAPI(P.BRAKES, instance):
                    continue
                why = (f"it is read with PhysxVehicleBrakesAPI:{instance}, which this vehicle does not apply" if on_vehicle
                       else "a brake response is read on the vehicle prim, not the drive's")
            else:
                why = "PhysX reads the instances steer, brakes0, brakes1 and drive only"
            v.warning("NCR_IGNORED", f"nonlinear command response {instance!r} is ignored: {why}",
                      P.full_name(P.NCR, "commandValues", instance), prim=owner_path)
