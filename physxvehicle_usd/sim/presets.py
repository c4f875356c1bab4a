"""Small stage descriptions for tests, examples and benchmarks (metres, kilograms, Y up, Z forward).

They follow docs/description-layout.md, so they can stand in for `physxvehicle-usd convert` output.
"""
from __future__ import annotations

import copy
from typing import Any

G = 9.81


def _wheel(path: str, index: int, position: tuple[float, float, float], sprung_mass: float, *, radius: float = 0.35,
           spring: float = 45000.0, damper: float = 4500.0, travel: float = 0.3, long_stiff: float = 5000.0,
           table: str | None = "/World/TireFrictionTable") -> dict[str, Any]:
    rest_load = sprung_mass * G
    return {
        "path": path, "index": index,
        "attachment": {"suspensionTravelDirection": [0.0, -1.0, 0.0], "suspensionFramePosition": list(position),
                       "suspensionFrameOrientation": [1.0, 0.0, 0.0, 0.0], "wheelFramePosition": [0.0, 0.0, 0.0],
                       "wheelFrameOrientation": [1.0, 0.0, 0.0, 0.0], "collisionGroup": None},
        "wheel": {"radius": radius, "width": 0.15, "mass": 20.0, "moi": 1.225, "dampingRate": 0.25},
        "tire": {"lateralStiffnessGraph": [2.0, 17.095 * rest_load], "longitudinalStiffness": long_stiff,
                 "camberStiffness": 0.0, "frictionVsSlipGraph": [[0.0, 1.0], [0.1, 1.0], [1.0, 1.0]],
                 "frictionTable": table, "restLoad": rest_load},
        "suspension": {"springStrength": spring, "springDamperRate": damper, "travelDistance": travel, "sprungMass": sprung_mass},
        "compliance": {"wheelToeAngle": [], "wheelCamberAngle": [], "suspensionForceAppPoint": [], "tireForceAppPoint": []},
        "wheelController": None,
    }


def rest_height(mass_per_wheel: float = 450.0, spring: float = 45000.0, travel: float = 0.3, radius: float = 0.35,
                attach_y: float = -0.3) -> float:
    """Prim height at which a wheel touches the ground at its static jounce."""
    jounce = mass_per_wheel * G / spring
    return radius - attach_y + (travel - jounce)


def car_description(drive: str = "standard", *, path: str = "/World/Car", mass: float = 1800.0,
                    position: tuple[float, float, float] | None = None, speed: float = 0.0,
                    autobox: bool = True, controller: dict[str, Any] | None = None) -> dict[str, Any]:
    """A four-wheel car: drive "standard" (engine, rear-wheel drive), "basic" or "none" (wheel controllers)."""
    half_track, half_base, attach_y = 0.8, 1.4, -0.3
    m_s = mass / 4.0
    if position is None:
        position = (0.0, rest_height(m_s), 0.0)
    names = ("FrontLeft", "FrontRight", "RearLeft", "RearRight")
    # +X is the lateral axis (up x forward = Y x Z); Ackermann wheel0 sits on the negative lateral side
    spots = ((-half_track, attach_y, half_base), (half_track, attach_y, half_base),
             (-half_track, attach_y, -half_base), (half_track, attach_y, -half_base))
    wheels = [_wheel(f"{path}/{n}", i, spot, m_s) for i, (n, spot) in enumerate(zip(names, spots))]
    vehicle: dict[str, Any] = {
        "scene": "/World/PhysicsScene",
        "vehicle": {"vehicleEnabled": True, "suspensionLineQueryType": "raycast", "limitSuspensionExpansionVelocity": False,
                    "subStepThresholdLongitudinalSpeed": 5.0, "lowForwardSpeedSubStepCount": 3,
                    "highForwardSpeedSubStepCount": 1, "minPassiveLongitudinalSlipDenominator": 4.0,
                    "minActiveLongitudinalSlipDenominator": 0.1, "minLateralSlipDenominator": 1.0,
                    "longitudinalStickyTireThresholdSpeed": 0.2, "longitudinalStickyTireThresholdTime": 1.0,
                    "longitudinalStickyTireDamping": 200.0, "lateralStickyTireThresholdSpeed": 0.2,
                    "lateralStickyTireThresholdTime": 1.0, "lateralStickyTireDamping": 20.0,
                    "referenceFrameIsCenterOfMass": False},
        "context": {"updateMode": "velocityChange", "verticalAxis": "posY", "longitudinalAxis": "posZ"},
        "rigidBody": {"mass": mass, "centerOfMass": [0.0, 0.0, 0.0], "diagonalInertia": [3200.0, 3400.0, 750.0],
                      "principalAxes": [1.0, 0.0, 0.0, 0.0], "position": list(position), "orientation": [1.0, 0.0, 0.0, 0.0],
                      "scale": [1.0, 1.0, 1.0], "linearVelocity": [0.0, 0.0, speed], "angularVelocity": [0.0, 0.0, 0.0]},
        "drive": None, "controller": None,
        "brakes": {"brakes0": {"wheels": [], "maxBrakeTorque": 3600.0, "torqueMultipliers": []},
                   "brakes1": {"wheels": [2, 3], "maxBrakeTorque": 3000.0, "torqueMultipliers": []}},
        "steering": None,
        "ackermannSteering": {"wheel0": 0, "wheel1": 1, "maxSteerAngle": 0.554264, "wheelBase": 2.8, "trackWidth": 1.6, "strength": 1.0},
        "multiWheelDifferential": None, "tankDifferential": None, "tankController": None,
        "nonlinearCommandResponses": {}, "wheels": wheels,
    }
    ctrl = {"accelerator": 0.0, "brake0": 0.0, "brake1": 0.0, "steer": 0.0, "targetGear": 255}
    if drive == "standard":
        vehicle["drive"] = {
            "type": "standard",
            "engine": {"moi": 1.0, "peakTorque": 1000.0, "maxRotationSpeed": 600.0, "idleRotationSpeed": 0.0,
                       "torqueCurve": [[0.0, 0.8], [0.33, 1.0], [1.0, 0.8]], "dampingRateFullThrottle": 0.15,
                       "dampingRateZeroThrottleClutchEngaged": 2.0, "dampingRateZeroThrottleClutchDisengaged": 0.35},
            "gears": {"ratios": [-4.0, 4.0, 2.0, 1.5, 1.1, 1.0], "ratioScale": 4.0, "switchTime": 0.5},
            "clutch": {"strength": 10.0},
            "autoGearBox": {"upRatios": [0.65, 0.65, 0.65, 0.65], "downRatios": [0.5, 0.5, 0.5, 0.5], "latency": 2.0} if autobox else None,
        }
        vehicle["multiWheelDifferential"] = {"wheels": [2, 3], "torqueRatios": [0.5, 0.5], "averageWheelSpeedRatios": [0.5, 0.5]}
        vehicle["controller"] = ctrl
    elif drive == "basic":
        vehicle["drive"] = {"type": "basic", "peakTorque": 1000.0}
        vehicle["multiWheelDifferential"] = {"wheels": [2, 3], "torqueRatios": [0.5, 0.5], "averageWheelSpeedRatios": [0.5, 0.5]}
        vehicle["controller"] = ctrl
    elif drive == "none":
        vehicle["brakes"] = {}
        vehicle["ackermannSteering"] = None
        for w in wheels:
            w["wheelController"] = {"driveTorque": 0.0, "brakeTorque": 0.0, "steerAngle": 0.0}
    else:
        raise ValueError(f"unknown drive {drive!r}")
    if controller and vehicle["controller"] is not None:
        vehicle["controller"].update(controller)
    return {
        "stage": {"file": "", "metersPerUnit": 1.0, "kilogramsPerUnit": 1.0, "upAxis": "Y"},
        "scenes": {"/World/PhysicsScene": {"gravityDirection": [0.0, -1.0, 0.0], "gravityMagnitude": G,
                                           "context": {"updateMode": "velocityChange", "verticalAxis": "posY", "longitudinalAxis": "posZ"}}},
        "vehicles": {path: vehicle},
        "tireFrictionTables": {"/World/TireFrictionTable": {"groundMaterials": ["/World/Asphalt"], "frictionValues": [1.0],
                                                            "defaultFrictionValue": 0.7}},
        "ground": [{"path": "/World/Ground", "kind": "plane", "axis": "Y",
                    "transform": [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], "material": "/World/Asphalt"}],
        "materials": {"/World/Asphalt": {"staticFriction": 0.9, "dynamicFriction": 0.8, "restitution": 0.0}},
        "diagnostics": [],
    }


def merge_descriptions(*descriptions: dict[str, Any]) -> dict[str, Any]:
    """One description holding the vehicles of all (stage, scenes, ground, tables taken from the first)."""
    out = copy.deepcopy(descriptions[0])
    for d in descriptions[1:]:
        out["vehicles"].update(copy.deepcopy(d["vehicles"]))
        out["tireFrictionTables"].update(copy.deepcopy(d.get("tireFrictionTables", {})))
    return out
