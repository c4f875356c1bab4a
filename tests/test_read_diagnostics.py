"""One test per diagnostic the reader emits (rules V01-V142 of shared/spec/vehicle_parse_rules.md section 3,
plus the reader's own codes). Each case breaks one thing in a factory vehicle at /World/Car, next to a
valid vehicle /World/Good in the same stage, and checks the code, the severity, the prim and the property
named, that /World/Car is left out (or kept, for warnings and for errors PhysX only logs) and that
/World/Good is still read.

Rules with no case here: V05 (deprecated up/forward axis) is reported as DEPRECATED (test_read_deprecated.py);
V66 and V119 are silent by definition; V13 and V138-V141 happen at vehicle creation, not parsing.
The reader's INTERNAL, VALUE, PHYSICS and MASS codes guard against failures of usd-core itself and no
stage we can author triggers them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pxr import Gf, Sdf, UsdGeom, UsdPhysics, UsdShade
from stage_factory import REFERENCE_FRAME, VehicleStage, add_vehicle, build_vehicle, new_stage

from physxvehicle_usd import properties as P
from physxvehicle_usd.diagnostics import Severity
from physxvehicle_usd.read import read_stage

CAR, GOOD = "/World/Car", "/World/Good"
E, W = Severity.ERROR, Severity.WARNING


@dataclass
class Case:
    code: str
    severity: Severity
    break_it: Callable[[VehicleStage], tuple[str, str | None]]   # returns (prim, property name or None)
    rejected: bool = True
    drive: str = "standard"
    shared: bool = True
    controls: bool = True
    autobox: bool = True


def _stage(case: Case) -> VehicleStage:
    car = new_stage()
    add_vehicle(car, name="Good", shared=False, autobox=True)
    add_vehicle(car, name="Car", drive=case.drive, shared=case.shared, controls=case.controls, autobox=case.autobox)
    return car


# -- small mutators (each returns the prim and the property the diagnostic must name) --------------------

def setter(where: str, schema: str, base: str, value, instance: str | None = None):
    """where: 'vehicle', 'scene', 'wheel0'.., or a part kind of car.parts ('Wheel', 'Tire', 'Engine', ...)."""
    def apply(car: VehicleStage):
        path = _where(car, where)
        return path, car.set(path, schema, base, value, instance)
    return apply


def clearer(where: str, schema: str, base: str):
    def apply(car: VehicleStage):
        path = _where(car, where)
        return path, car.clear(path, schema, base)
    return apply


def _where(car: VehicleStage, where: str) -> str:
    if where == "vehicle":
        return car.vehicle
    if where == "scene":
        return car.scene
    if where.startswith("wheel"):
        return car.wheels[int(where[5:])]
    return car.parts[where]


def steps(*mutators):
    """Apply several mutators; the last one names the expected prim/property."""
    def apply(car):
        result = None
        for m in mutators:
            result = m(car)
        return result
    return apply


def custom(fn):
    return fn


def _material(car: VehicleStage, path: str = "/World/Asphalt") -> str:
    UsdPhysics.MaterialAPI.Apply(UsdShade.Material.Define(car.stage, path).GetPrim())
    return path


def _table(car: VehicleStage, materials=None, friction=None, default=None) -> str:
    path = "/World/Table"
    car.stage.DefinePrim(path, P.TABLE)
    if materials is not None:
        car.target(path, P.TABLE, "groundMaterials", materials)
    if friction is not None:
        car.set(path, P.TABLE, "frictionValues", friction)
    if default is not None:
        car.set(path, P.TABLE, "defaultFrictionValue", default)
    return path


def _v01(car):
    prim = UsdGeom.Xform.Define(car.stage, "/World/NotAScene").GetPrim()
    prim.ApplyAPI(P.CONTEXT)
    car.set("/World/NotAScene", P.CONTEXT, "verticalAxis", "posZ")
    car.set("/World/NotAScene", P.CONTEXT, "longitudinalAxis", "posX")
    return "/World/NotAScene", None


def _v07(car):
    car.prim(car.scene).RemoveAPI(P.CONTEXT)
    return CAR, None


def _v09(car):
    path = _table(car, friction=[])
    car.prim(path).CreateRelationship(P.full_name(P.TABLE, "groundMaterials"), custom=False).SetTargets([])
    return path, P.full_name(P.TABLE, "groundMaterials")


def _v10(car):
    return _table(car, materials=["/World/Nowhere"], friction=[1.0]), P.full_name(P.TABLE, "groundMaterials")


def _v11(car):
    return _table(car, materials=[CAR], friction=[1.0]), P.full_name(P.TABLE, "groundMaterials")


def _v12(car):
    return _table(car, materials=[_material(car)], friction=[]), P.full_name(P.TABLE, "frictionValues")


def _v08(car):
    return _table(car, default=-0.5), P.full_name(P.TABLE, "defaultFrictionValue")


def _v26_wrong_type(car):
    tire = car.parts["Tire"]
    return tire, car.target(tire, P.TIRE, "frictionTable", [CAR])


def _v26_two(car):
    tire = car.parts["Tire"]
    a = _table(car)
    return tire, car.target(tire, P.TIRE, "frictionTable", [a, a + "2"])


def _rel(where: str, schema: str, base: str, targets):
    def apply(car):
        path = _where(car, where)
        return path, car.target(path, schema, base, [t.replace("<car>", CAR) for t in targets])
    return apply


def _v34_missing_both(car):
    wheel = car.wheels[0]
    name = P.full_name(P.ATTACHMENT, "tire")
    car.prim(wheel).RemoveProperty(name)
    return wheel, name


def _v34_both(car):
    wheel = car.wheels[0]
    car.prim(wheel).ApplyAPI(P.TIRE)
    return wheel, P.full_name(P.ATTACHMENT, "tire")


def _v40(car):
    UsdPhysics.CollisionAPI.Apply(UsdGeom.Sphere.Define(car.stage, car.wheels[0] + "/Hub/Shape").GetPrim())
    return car.wheels[0], None


def _v41(car):
    for name in ("A", "B"):
        UsdPhysics.CollisionAPI.Apply(UsdGeom.Sphere.Define(car.stage, f"{car.wheels[0]}/{name}").GetPrim())
    return car.wheels[0], None


def _v42(car):
    UsdGeom.Xformable(car.prim(CAR)).AddScaleOp().Set(Gf.Vec3f(1.0, 2.0, 1.0))
    wheel = car.wheels[0]
    return wheel, car.set(wheel, P.ATTACHMENT, "suspensionFrameOrientation", (0.9238795, 0.0, 0.0, 0.3826834))


def _compliance(base: str, value):
    def apply(car):
        wheel = car.wheels[0]
        car.prim(wheel).ApplyAPI(P.COMPLIANCE)
        return wheel, car.set(wheel, P.COMPLIANCE, base, value)
    return apply


def _v65_both_apis(car):
    car.prim(CAR).ApplyAPI(P.DRIVE_BASIC)
    return CAR, None


def _v67(car):
    car.prim(CAR).RemoveAPI(UsdPhysics.RigidBodyAPI)
    return CAR, None


def _v68(car):
    car.prim(CAR).SetTypeName("Scope")
    return CAR, None


def _v69(car):
    UsdGeom.Xformable(car.prim(CAR)).AddScaleOp().Set(Gf.Vec3f(1.0, 0.0, 1.0))
    return CAR, None


def _v70(car):
    rotation = Gf.Matrix4d().SetRotate(Gf.Rotation(Gf.Vec3d(0, 0, 1), 30))
    sheared = rotation.GetInverse() * Gf.Matrix4d().SetScale(Gf.Vec3d(1.0, 1.5, 1.0)) * rotation
    UsdGeom.Xformable(car.prim(CAR)).AddTransformOp(opSuffix="shear").Set(sheared)
    return CAR, None


def _v71(car):
    UsdPhysics.RigidBodyAPI(car.prim(CAR)).CreateRigidBodyEnabledAttr(False)
    return CAR, None


def _v72(car):
    UsdPhysics.RigidBodyAPI(car.prim(CAR)).CreateKinematicEnabledAttr(True)
    return CAR, None


def _v81_missing(car):
    car.prim(CAR).ClearCustomDataByKey(REFERENCE_FRAME)
    return CAR, None


def _v81_true(car):
    car.prim(CAR).SetCustomDataByKey(REFERENCE_FRAME, True)
    return CAR, None


def _v82(car):
    for i in range(4, 21):
        prim = UsdGeom.Xform.Define(car.stage, f"{CAR}/Wheel{i}").GetPrim()
        prim.ApplyAPI(P.ATTACHMENT)
    return f"{CAR}/Wheel20", None


def _v83(car):
    for wheel in car.wheels:
        car.stage.RemovePrim(wheel)
    return CAR, None


def _per_wheel(base_case):
    """Break only the first wheel's own component (the factory car must use shared=False)."""
    return base_case


def _v90(car):
    car.prim(car.wheels[1]).ApplyAPI(P.WHEEL_CONTROLLER)
    return car.wheels[1], None


def _apply(api: str, instance: str | None = None, then=None):
    def apply(car):
        if instance:
            car.prim(CAR).ApplyAPI(api, instance)
        else:
            car.prim(CAR).ApplyAPI(api)
        return then(car) if then else (CAR, None)
    return apply


def _v142(car):
    for wheel in car.wheels:
        car.set(wheel, P.ATTACHMENT, "suspensionFramePosition", (0.5, 0.0, -0.3))
    return CAR, None


def _ncr(base: str, value, instance: str = "steer"):
    def apply(car):
        car.prim(CAR).ApplyAPI(P.NCR, instance)
        defaults = {"commandValues": [0.0, 1.0], "speedResponsesPerCommandValue": [0, 2],
                    "speedResponses": [(0.0, 1.0), (30.0, 0.5), (0.0, 1.0), (30.0, 0.8)]}
        defaults[base] = value
        for key, v in defaults.items():
            car.set(CAR, P.NCR, key, v, instance)
        return CAR, P.full_name(P.NCR, base, instance)
    return apply


def _drive_component_missing(car):
    drive = car.parts["drive"]
    return drive, car.target(drive, P.DRIVE_STANDARD, "engine", ["/World/Nowhere"])


def _drive_ignored(car):
    car.prim(CAR).ApplyAPI(P.DRIVE_BASIC)
    return CAR, P.full_name(P.VEHICLE, "drive")


def _ncr_ignored(instance: str, on: str = "vehicle"):
    """A nonlinear command response applied where the parser never reads it."""
    def apply(car):
        prim = CAR if on == "vehicle" else car.parts["drive"]
        car.stage.GetPrimAtPath(prim).ApplyAPI(P.NCR, instance)
        return prim, P.full_name(P.NCR, "commandValues", instance)
    return apply


CASES: dict[str, Case] = {
    # 3.1 context
    "V01": Case("V01", E, _v01, rejected=False),
    "V02": Case("V02", W, setter("scene", P.CONTEXT, "updateMode", "sometimes"), rejected=False),
    "V03": Case("V03", E, setter("scene", P.CONTEXT, "verticalAxis", "up"), rejected=False),
    "V04": Case("V04", E, clearer("scene", P.CONTEXT, "longitudinalAxis"), rejected=False),
    "V06": Case("V06", W, setter("scene", P.CONTEXT, "longitudinalAxis", "negZ"), rejected=False),
    "V07": Case("V07", W, _v07, rejected=False),
    # 3.2 friction tables (the table is left out; vehicles are not affected)
    "V08": Case("V08", E, _v08, rejected=False),
    "V09": Case("V09", E, _v09, rejected=False),
    "V10": Case("V10", E, _v10, rejected=False),
    "V11": Case("V11", E, _v11, rejected=False),
    "V12": Case("V12", E, _v12, rejected=False),
    # 3.3 wheel
    "V14-range": Case("V14", E, setter("Wheel", P.WHEEL, "radius", -0.3)),
    "V14-missing": Case("V14", E, clearer("Wheel", P.WHEEL, "moi")),
    "V15": Case("V15", E, setter("Wheel", P.WHEEL, "maxBrakeTorque", -10.0)),
    "V16": Case("V16", E, setter("Wheel", P.WHEEL, "maxSteerAngle", math.pi / 2)),
    # 3.4 tire
    "V17": Case("V17", E, setter("Tire", P.TIRE, "lateralStiffnessGraph", (2.0, 0.0))),
    "V18": Case("V18", W, lambda car: (car.parts["Tire"], P.full_name(P.TIRE, "lateralStiffnessGraph")), rejected=False),
    "V19": Case("V19", E, setter("Tire", P.TIRE, "latStiffX", -1.0)),
    "V20": Case("V20", E, setter("Tire", P.TIRE, "longitudinalStiffness", -100.0)),
    "V21": Case("V21", E, setter("Tire", P.TIRE, "longitudinalStiffnessPerUnitGravity", -5.0)),
    "V22": Case("V22", E, setter("Tire", P.TIRE, "camberStiffness", -2.0)),
    "V23": Case("V23", E, setter("Tire", P.TIRE, "camberStiffnessPerUnitGravity", -5.0)),
    "V24": Case("V24", E, setter("Tire", P.TIRE, "frictionVsSlipGraph", [(0.0, 1.0), (1.0, 1.0)])),
    "V25": Case("V25", E, setter("Tire", P.TIRE, "frictionVsSlipGraph", [(0.0, 1.0), (0.5, 1.0), (0.5, 0.9)])),
    "V26-missing": Case("V26", E, _rel("Tire", P.TIRE, "frictionTable", ["/World/Nowhere"])),
    "V26-wrong-type": Case("V26", E, _v26_wrong_type),
    "V26-two": Case("V26", E, _v26_two),
    "V27": Case("V27", E, setter("Tire", P.TIRE, "restLoad", -1.0)),
    # 3.5 suspension
    "V28": Case("V28", E, setter("Suspension", P.SUSPENSION, "springStrength", -1.0)),
    "V29": Case("V29", E, setter("Suspension", P.SUSPENSION, "travelDistance", 0.0)),
    "V30": Case("V30", E, steps(clearer("Suspension", P.SUSPENSION, "travelDistance"),
                                setter("Suspension", P.SUSPENSION, "maxDroop", 0.1),
                                lambda car: (car.parts["Suspension"], P.full_name(P.SUSPENSION, "travelDistance")))),
    "V30-range": Case("V30", E, steps(clearer("Suspension", P.SUSPENSION, "travelDistance"),
                                      setter("Suspension", P.SUSPENSION, "maxDroop", 0.1),
                                      setter("Suspension", P.SUSPENSION, "maxCompression", -0.1))),
    "V31": Case("V31", E, steps(clearer("Suspension", P.SUSPENSION, "travelDistance"),
                                setter("Suspension", P.SUSPENSION, "maxCompression", 0.1),
                                lambda car: (car.parts["Suspension"], P.full_name(P.SUSPENSION, "travelDistance")))),
    "V32": Case("V32", E, setter("Suspension", P.SUSPENSION, "sprungMass", -1.0)),
    "V33": Case("V33", E, setter("Suspension", P.SUSPENSION, "camberAtRest", 2.0)),
    # 3.6 wheel attachment
    "V34-missing-target": Case("V34", E, _rel("wheel0", P.ATTACHMENT, "wheel", ["/World/Nowhere"])),
    "V34-wrong-type": Case("V34", E, _rel("wheel0", P.ATTACHMENT, "suspension", ["<car>"])),   # the vehicle itself
    "V34-two-targets": Case("V34", E, _rel("wheel0", P.ATTACHMENT, "tire", ["/World/CarParts/Tire", "/World/CarParts/Wheel"])),
    "V34-neither": Case("V34", W, _v34_missing_both),
    "V34-both": Case("V34", W, _v34_both, rejected=False),
    "V35": Case("V35", E, clearer("wheel0", P.ATTACHMENT, "suspensionTravelDirection")),
    "V36": Case("V36", E, clearer("wheel2", P.ATTACHMENT, "suspensionFramePosition")),
    "V37": Case("V37", W, steps(setter("wheel0", P.ATTACHMENT, "driven", True), lambda car: (CAR, None)),
                rejected=False, controls=False),
    "V38": Case("V38", E, setter("wheel1", P.ATTACHMENT, "index", 20)),
    "V39": Case("V39", E, _rel("wheel0", P.ATTACHMENT, "collisionGroup", ["<car>"])),
    "V40": Case("V40", E, _v40),
    "V41": Case("V41", E, _v41),
    "V42": Case("V42", W, _v42),
    # 3.7 compliance
    "V43": Case("V43", E, _compliance("wheelToeAngle", [(0.0, 0.0), (0.3, 0.0), (0.6, 0.0), (1.0, 0.0)])),
    "V44": Case("V44", E, _compliance("tireForceAppPoint", [(1.5, 0.0, 0.0, 0.0)])),
    "V45": Case("V45", E, _compliance("wheelCamberAngle", [(0.5, 0.0), (0.2, 0.0)])),
    "V46": Case("V46", E, _compliance("wheelToeAngle", [(0.5, 2.0)])),
    # 3.8 engine
    "V47": Case("V47", E, setter("Engine", P.ENGINE, "moi", 0.0)),
    "V48": Case("V48", E, setter("Engine", P.ENGINE, "dampingRateFullThrottle", -0.5)),
    "V49": Case("V49", E, setter("Engine", P.ENGINE, "idleRotationSpeed", -1.0)),
    "V50": Case("V50", E, setter("Engine", P.ENGINE, "torqueCurve", [])),
    "V51": Case("V51", E, setter("Engine", P.ENGINE, "torqueCurve", [(i / 8, 1.0) for i in range(9)]), rejected=False),
    "V52": Case("V52", E, setter("Engine", P.ENGINE, "torqueCurve", [(0.0, 1.0), (0.5, 1.0), (0.4, 1.0)])),
    # 3.9 gears
    "V53": Case("V53", E, setter("Gears", P.GEARS, "ratios", [])),
    "V54": Case("V54", E, setter("Gears", P.GEARS, "ratios", [-4.0] + [4.0 - 0.1 * i for i in range(31)])),
    "V55": Case("V55", E, setter("Gears", P.GEARS, "ratios", [4.0, 3.0, 2.0])),
    "V56": Case("V56", E, setter("Gears", P.GEARS, "ratios", [-4.0, 2.0, 3.0])),
    "V57": Case("V57", E, setter("Gears", P.GEARS, "switchTime", -0.1)),
    # 3.10 autobox (5 forward gears by default -> 4 entries)
    "V58": Case("V58", E, setter("AutoGearBox", P.AUTOBOX, "upRatios", [0.6, 0.6])),
    "V59": Case("V59", W, setter("AutoGearBox", P.AUTOBOX, "downRatios", [0.5] * 6), rejected=False),
    "V60": Case("V60", E, setter("AutoGearBox", P.AUTOBOX, "upRatios", [0.6, -0.6, 0.6, 0.6])),
    "V61": Case("V61", E, setter("AutoGearBox", P.AUTOBOX, "latency", -1.0)),
    # 3.11 clutch, drives
    "V62": Case("V62", E, setter("Clutch", P.CLUTCH, "strength", 0.0)),
    "V63": Case("V63", E, setter("drive", P.DRIVE_BASIC, "peakTorque", -5.0), drive="basic"),
    "V64": Case("V64", E, _drive_component_missing),
    "V65-missing": Case("V65", E, _rel("vehicle", P.VEHICLE, "drive", ["/World/Nowhere"])),
    "V65-no-drive-api": Case("V65", E, _rel("vehicle", P.VEHICLE, "drive", ["/World/CarParts/Wheel"])),
    "V65-both-apis": Case("V65", E, _v65_both_apis, shared=False),
    # 3.12 vehicle
    "V67": Case("V67", E, _v67),
    "V68": Case("V68", E, _v68),
    "V69": Case("V69", E, _v69),
    "V70": Case("V70", W, _v70, rejected=False),
    "V71": Case("V71", E, _v71),
    "V72": Case("V72", E, _v72),
    "V73": Case("V73", E, setter("vehicle", P.VEHICLE, "subStepThresholdLongitudinalSpeed", -1.0)),
    "V74": Case("V74", E, setter("vehicle", P.VEHICLE, "highForwardSpeedSubStepCount", 0)),
    "V75": Case("V75", E, setter("vehicle", P.VEHICLE, "lowForwardSpeedSubStepCount", 300), rejected=False),
    "V76": Case("V76", E, setter("vehicle", P.VEHICLE, "minPassiveLongitudinalSlipDenominator", -1.0)),
    "V77": Case("V77", E, setter("vehicle", P.VEHICLE, "minLongitudinalSlipDenominator", -1.0)),
    "V78": Case("V78", E, setter("vehicle", P.VEHICLE, "minLateralSlipDenominator", -1.0)),
    "V79": Case("V79", E, setter("vehicle", P.VEHICLE, "lateralStickyTireThresholdSpeed", -0.5)),
    "V80": Case("V80", E, setter("vehicle", P.VEHICLE, "longitudinalStickyTireThresholdTime", -1.0)),
    "V81-missing": Case("V81", W, _v81_missing, rejected=False),
    "V81-true": Case("V81", W, _v81_true, rejected=False),
    # 3.13 cross-object rules
    "V82": Case("V82", E, _v82),
    "V83": Case("V83", E, _v83),
    "V84": Case("V84", E, setter("wheel1", P.ATTACHMENT, "index", 0)),
    "V85": Case("V85", E, steps(setter("wheel3", P.ATTACHMENT, "index", -1),
                                lambda car: (CAR, P.full_name(P.ATTACHMENT, "index")))),
    "V86": Case("V86", E, steps(setter("wheel0", P.SUSPENSION, "sprungMass", 400.0),
                                lambda car: (CAR, P.full_name(P.SUSPENSION, "sprungMass"))), shared=False),
    "V87": Case("V87", E, steps(clearer("wheel0", P.SUSPENSION, "travelDistance"),
                                setter("wheel0", P.SUSPENSION, "maxCompression", 0.1),
                                setter("wheel0", P.SUSPENSION, "maxDroop", -1.0),
                                lambda car: (CAR, P.full_name(P.SUSPENSION, "maxDroop"))), shared=False),
    "V88": Case("V88", E, steps(setter("wheel0", P.TIRE, "restLoad", 4000.0),
                                lambda car: (CAR, P.full_name(P.TIRE, "restLoad"))), shared=False),
    "V89": Case("V89", E, steps(setter("wheel0", P.TIRE, "lateralStiffnessGraph", (2.0, 60000.0)),
                                lambda car: (CAR, P.full_name(P.TIRE, "lateralStiffnessGraph"))), shared=False),
    "V90": Case("V90", E, _v90),
    "V91": Case("V91", E, setter("wheel2", P.WHEEL_CONTROLLER, "brakeTorque", -3.0), drive="none"),
    # 3.14 differentials
    "V92": Case("V92", E, setter("vehicle", P.MULTI_DIFF, "wheels", [0, -1])),
    "V93": Case("V93", E, setter("vehicle", P.MULTI_DIFF, "torqueRatios", [0.5, 0.5])),
    "V94": Case("V94", E, setter("vehicle", P.MULTI_DIFF, "averageWheelSpeedRatios", [0.5, 0.5, 0.5, -0.5])),
    "V95": Case("V95", E, _apply(P.MULTI_DIFF), drive="none"),
    "V96": Case("V96", E, setter("vehicle", P.MULTI_DIFF, "wheels", [0, 1, 2, 3, 4])),
    "V97": Case("V97", E, setter("vehicle", P.TANK_DIFF, "numberOfWheelsPerTrack", [2, -2]), drive="tank"),
    "V98": Case("V98", E, setter("vehicle", P.TANK_DIFF, "thrustIndexPerTrack", [0, 2]), drive="tank"),
    "V99": Case("V99", E, setter("vehicle", P.TANK_DIFF, "wheelIndicesInTrackOrder", [0, 2, 1, 3] + [0] * 17), drive="tank"),
    "V100": Case("V100", E, setter("vehicle", P.TANK_DIFF, "trackToWheelIndices", [0, 1]), drive="tank"),
    "V101": Case("V101", E, setter("vehicle", P.TANK_DIFF, "trackToWheelIndices", [0, 3]), drive="tank"),
    "V102": Case("V102", E, setter("vehicle", P.TANK_DIFF, "wheelIndicesInTrackOrder", [0, 2, 0, 3]), drive="tank"),
    "V103": Case("V103", E, setter("vehicle", P.TANK_DIFF, "trackToWheelIndices", [0]), drive="tank"),
    "V104": Case("V104", E, setter("vehicle", P.TANK_DIFF, "wheelIndicesInTrackOrder", [0, 2, 1, 7]), drive="tank"),
    # 3.15 brakes
    "V105": Case("V105", E, _apply(P.BRAKES, "parkingBrake"), controls=False),
    "V106": Case("V106", E, setter("vehicle", P.BRAKES, "maxBrakeTorque", -1.0, "brakes0")),
    "V107": Case("V107", E, setter("vehicle", P.BRAKES, "wheels", [0, -2], "brakes1")),
    "V108": Case("V108", E, setter("vehicle", P.BRAKES, "torqueMultipliers", [1.0, 1.0, 1.0], "brakes1")),
    "V109": Case("V109", E, setter("vehicle", P.BRAKES, "torqueMultipliers", [1.0, -1.0], "brakes1")),
    "V110": Case("V110", E, setter("vehicle", P.BRAKES, "wheels", [2, 9], "brakes1")),
    "V110-no-drive": Case("V110", E, _apply(P.BRAKES, "brakes0"), drive="none"),
    # 3.16 steering
    "V111": Case("V111", W, _apply(P.ACKERMANN), rejected=False),
    "V112": Case("V112", E, setter("vehicle", P.STEERING, "wheels", [-1, 1])),
    "V113": Case("V113", E, setter("vehicle", P.STEERING, "angleMultipliers", [1.0])),
    "V114": Case("V114", E, setter("vehicle", P.STEERING, "angleMultipliers", [1.0, 7.0])),
    "V115": Case("V115", E, _apply(P.ACKERMANN, then=steps(
        setter("vehicle", P.ACKERMANN, "wheelBase", 2.7), setter("vehicle", P.ACKERMANN, "trackWidth", 1.6),
        setter("vehicle", P.ACKERMANN, "wheel0", 1), setter("vehicle", P.ACKERMANN, "wheel1", 1))), controls=False),
    "V116": Case("V116", E, _apply(P.ACKERMANN, then=steps(
        setter("vehicle", P.ACKERMANN, "wheel0", 1), setter("vehicle", P.ACKERMANN, "wheel1", 0),
        setter("vehicle", P.ACKERMANN, "trackWidth", 1.6), setter("vehicle", P.ACKERMANN, "wheelBase", -2.7))), controls=False),
    "V117": Case("V117", E, _apply(P.ACKERMANN, then=steps(
        setter("vehicle", P.ACKERMANN, "wheel0", 1), setter("vehicle", P.ACKERMANN, "wheel1", 0),
        setter("vehicle", P.ACKERMANN, "trackWidth", 1.6), setter("vehicle", P.ACKERMANN, "wheelBase", 2.7),
        setter("vehicle", P.ACKERMANN, "strength", 1.5))), controls=False),
    "V118": Case("V118", E, setter("vehicle", P.STEERING, "wheels", [0, 4])),
    "V118-no-drive": Case("V118", E, _apply(P.STEERING), drive="none"),
    # 3.17 nonlinear command responses (steer instance)
    "V120": Case("V120", E, _ncr("commandValues", [i / 9 for i in range(9)])),
    "V121": Case("V121", E, _ncr("commandValues", [0.0, 1.5])),
    "V122": Case("V122", E, _ncr("commandValues", [0.8, 0.2])),
    "V123": Case("V123", E, _ncr("speedResponsesPerCommandValue", [0])),
    "V124": Case("V124", E, _ncr("speedResponses", [(float(i), 1.0) for i in range(65)])),
    "V125": Case("V125", E, _ncr("speedResponsesPerCommandValue", [0, 9])),
    "V126": Case("V126", E, _ncr("speedResponsesPerCommandValue", [2, 0])),
    "V127": Case("V127", E, _ncr("speedResponses", [(0.0, 1.0), (30.0, 1.5), (0.0, 1.0), (30.0, 0.8)])),
    "V128": Case("V128", E, _ncr("speedResponses", [(30.0, 1.0), (0.0, 0.5), (0.0, 1.0), (30.0, 0.8)])),
    "V128-later-graph": Case("V128", W, _ncr("speedResponses", [(0.0, 1.0), (30.0, 0.5), (30.0, 1.0), (0.0, 0.8)]),
                             rejected=False),
    # 3.18 controllers
    "V129": Case("V129", E, _apply(P.CONTROLLER), drive="none"),
    "V130": Case("V130", E, _apply(P.CONTROLLER), drive="none"),
    "V131": Case("V131", E, setter("vehicle", P.CONTROLLER, "steer", -1.5)),
    "V132": Case("V132", E, setter("vehicle", P.CONTROLLER, "handbrake", 1.5)),
    "V133": Case("V133", E, setter("vehicle", P.CONTROLLER, "targetGear", 40)),
    "V134": Case("V134", E, _apply(P.TANK_CONTROLLER), drive="basic"),
    "V135": Case("V135", E, _apply(P.TANK_CONTROLLER)),
    "V136": Case("V136", E, setter("vehicle", P.TANK_CONTROLLER, "thrust1", 1.5), drive="tank"),
    "V137": Case("V137", W, setter("vehicle", P.CONTROLLER, "targetGear", 255), rejected=False, autobox=False),
    "V142": Case("V142", E, _v142, rejected=False),
    # the reader's own codes
    "TYPE": Case("TYPE", E, lambda car: _wrong_type(car, car.parts["Wheel"], P.WHEEL, "radius", "large")),
    "NONFINITE-nan": Case("NONFINITE", E, setter("Suspension", P.SUSPENSION, "springStrength", float("nan"))),
    "NONFINITE-inf": Case("NONFINITE", E, setter("wheel0", P.ATTACHMENT, "suspensionFramePosition", (1.0, math.inf, 0.0))),
    "DEPRECATED": Case("DEPRECATED", W, setter("Suspension", P.SUSPENSION, "camberAtRest", 0.01), rejected=False),
    "DRIVE_IGNORED": Case("DRIVE_IGNORED", W, _drive_ignored, rejected=False),
    # a drive response on a standard drive: Vehicle.cpp parses it for basic drives only
    "NCR_IGNORED-standard-drive": Case("NCR_IGNORED", W, _ncr_ignored("drive", on="drive"), rejected=False),
    "NCR_IGNORED-unknown-instance": Case("NCR_IGNORED", W, _ncr_ignored("throttle"), rejected=False),
    # no controls: no brakes and no steering API, so these responses have nothing to shape
    "NCR_IGNORED-brakes-not-applied": Case("NCR_IGNORED", W, _ncr_ignored("brakes1"), rejected=False, controls=False),
    "NCR_IGNORED-steer-not-applied": Case("NCR_IGNORED", W, _ncr_ignored("steer"), rejected=False, controls=False),
    "QUIRK_LATERAL_STICKY_TIME": Case("QUIRK_LATERAL_STICKY_TIME", W,
                                      setter("vehicle", P.VEHICLE, "lateralStickyTireThresholdTime", 3.0), rejected=False),
}


def _wrong_type(car: VehicleStage, path: str, schema: str, base: str, value: str):
    """Author a string where the schema declares a float (USD lets a layer say anything)."""
    name = P.full_name(schema, base)
    spec = car.stage.GetRootLayer().GetPrimAtPath(path)
    del spec.properties[name]
    Sdf.AttributeSpec(spec, name, Sdf.ValueTypeNames.String).default = value
    return path, name


@pytest.mark.parametrize("case_id", list(CASES))
def test_diagnostic(case_id):
    case = CASES[case_id]
    car = _stage(case)
    prim, prop = case.break_it(car)
    description = car.read()
    lines = [d.line() for d in description.diagnostics]
    found = [d for d in description.diagnostics
             if d.code == case.code and d.severity == case.severity and d.prim == prim and d.property == prop]
    assert found, f"expected {case.severity.value} {case.code} at {prim} {prop}; got:\n" + "\n".join(lines)
    assert found[0].message
    if case.rejected:
        assert CAR not in description.vehicles, lines
        assert any(d.code == "REJECTED" and d.prim == CAR and d.severity == Severity.INFO for d in description.diagnostics)
    else:
        assert CAR in description.vehicles, lines
    assert GOOD in description.vehicles, lines
    assert not any(d.code == "INTERNAL" for d in description.diagnostics), lines


def test_every_code_the_reader_emits_has_a_case(repo):
    """The codes in read/*.py (and the property table's range codes) against this file's cases."""
    import re

    source = "\n".join(p.read_text() for p in (repo / "physxvehicle_usd/read").glob("*.py"))
    emitted = set(re.findall(r'"(V\d+|[A-Z][A-Z_]+)"', source))
    emitted |= {row.range_code for row in P.TABLE_ROWS if row.range_code}
    not_authorable = {"INTERNAL", "VALUE", "PHYSICS", "MASS", "USD", "COMPOSITION", "REJECTED"}
    emitted = {c for c in emitted if re.fullmatch(r"V\d+", c) or c in {case.code for case in CASES.values()} | not_authorable}
    covered = {case.code for case in CASES.values()} | not_authorable
    assert emitted - covered == set()


def test_every_validation_rule_of_the_spec_is_covered():
    excluded = {"V05", "V66", "V119", "V13", "V138", "V139", "V140", "V141"}
    rules = {f"V{i:02d}" for i in range(1, 143)} - excluded
    assert rules - {case.code for case in CASES.values()} == set()


def test_a_composition_error_is_a_diagnostic_and_the_rest_is_read(tmp_path):
    car = new_stage()
    add_vehicle(car, name="Good", shared=False)
    car.stage.DefinePrim("/World/Ghost", "Xform").GetReferences().AddReference("./nowhere.usda", "/Car")
    path = tmp_path / "stage.usda"
    car.stage.GetRootLayer().Export(str(path))
    description = read_stage(str(path))
    assert GOOD in description.vehicles
    assert any(d.code == "COMPOSITION" and d.severity == E and "nowhere.usda" in d.message for d in description.diagnostics)


# -- hostile values: reading never raises ---------------------------------------------------------------

HOSTILE_VALUES = st.sampled_from([float("nan"), float("inf"), -float("inf"), -1e30, 1e30, -1.0, 0.0, "text", 7, True])


def _schema_attributes() -> list[tuple[str, str]]:
    out = []
    for schema in (P.VEHICLE, P.WHEEL, P.TIRE, P.SUSPENSION, P.ATTACHMENT, P.ENGINE, P.GEARS, P.CLUTCH,
                   P.CONTROLLER, P.MULTI_DIFF, P.STEERING):
        definition = P.schema_definition(schema)
        for base in P.schema_property_bases(schema):
            if definition.GetAttributeDefinition(P.full_name(schema, base)):
                out.append((schema, base))
    return out


OWNER = {P.VEHICLE: "vehicle", P.CONTROLLER: "vehicle", P.MULTI_DIFF: "vehicle", P.STEERING: "vehicle",
         P.ATTACHMENT: "wheel1", P.WHEEL: "Wheel", P.TIRE: "Tire", P.SUSPENSION: "Suspension", P.ENGINE: "Engine",
         P.GEARS: "Gears", P.CLUTCH: "Clutch"}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(target=st.sampled_from(_schema_attributes()), value=HOSTILE_VALUES)
def test_hostile_values_never_raise_and_never_reach_the_description(target, value):
    schema, base = target
    car = _stage(Case("", E, lambda c: (None, None)))
    path = _where(car, OWNER[schema])
    name = P.full_name(schema, base)
    spec = car.stage.GetRootLayer().GetPrimAtPath(path)
    if name in spec.properties:
        del spec.properties[name]
    type_name = {float: Sdf.ValueTypeNames.Float, str: Sdf.ValueTypeNames.String, int: Sdf.ValueTypeNames.Int,
                 bool: Sdf.ValueTypeNames.Bool}[type(value)]
    Sdf.AttributeSpec(spec, name, type_name).default = value
    description = car.read()
    assert GOOD in description.vehicles
    assert not any(d.code == "INTERNAL" for d in description.diagnostics), [d.line() for d in description.diagnostics]
    text = str(description.to_json())
    assert "nan" not in text.lower() or CAR not in description.vehicles


@pytest.mark.parametrize("schema, base, where", [
    (P.ATTACHMENT, "wheel", "wheel0"), (P.ATTACHMENT, "tire", "wheel0"), (P.ATTACHMENT, "collisionGroup", "wheel0"),
    (P.TIRE, "frictionTable", "Tire"), (P.VEHICLE, "drive", "vehicle"), (P.DRIVE_STANDARD, "engine", "drive"),
])
@pytest.mark.parametrize("target", ["/World/Nowhere", "<car>", "/World/PhysicsScene", "/World/Car/Wheel0.index"])
def test_relationships_to_nothing_the_wrong_prim_or_the_vehicle_itself(schema, base, where, target):
    car = _stage(Case("", E, lambda c: (None, None)))
    path = _where(car, where)
    car.target(path, schema, base, [target.replace("<car>", CAR)])
    description = car.read()
    assert GOOD in description.vehicles
    assert CAR not in description.vehicles
    errors = [d for d in description.diagnostics if d.severity == E and d.prim == path]
    assert errors and errors[0].property == P.full_name(schema, base)
    assert not any(d.code == "INTERNAL" for d in description.diagnostics)


@pytest.mark.parametrize("value", [math.nan, math.inf, "sideways"])
def test_an_unusable_steer_angle_with_multipliers_is_said_not_an_internal_error(value):
    """maxSteerAngle x each multiplier is checked against pi (V114): an unusable maximum, already said, has no
    product (it raised a TypeError, reported as INTERNAL, where multipliers were authored)."""
    car = build_vehicle(shared=False)
    car.set(CAR, P.STEERING, "wheels", [0, 1])
    car.set(CAR, P.STEERING, "angleMultipliers", [1.0, 1.0])
    name = P.full_name(P.STEERING, "maxSteerAngle")
    spec = car.stage.GetRootLayer().GetPrimAtPath(CAR)
    if name in spec.properties:
        del spec.properties[name]
    type_name = Sdf.ValueTypeNames.Float if isinstance(value, float) else Sdf.ValueTypeNames.String
    Sdf.AttributeSpec(spec, name, type_name).default = value
    description = car.read()
    assert not any(d.code == "INTERNAL" for d in description.diagnostics), [d.line() for d in description.diagnostics]
    assert any(d.severity == E and d.prim == CAR and d.property == name for d in description.diagnostics)
    assert CAR not in description.vehicles
