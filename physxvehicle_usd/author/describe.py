"""VehicleSpec -> StageDescription in any stage units, plus the geometry `write.py` does not author.

Every number is computed in SI by the wizard rules and scaled to the stage through the SI unit of its
property-table row, so a centimetre stage gets the same vehicle as a metre stage. The vehicle prim's
origin is the centre of mass (centerOfMass = 0), so wheel positions mean the same whether a reader takes
them in the prim frame or the centre-of-mass frame.

Layout (prim paths):
    /World/PhysicsScene                      gravity, PhysxVehicleContextAPI
    /World/GroundMaterial, /World/TireFrictionTable, /World/GroundPlane
    /World/<Name>Parts/{Wheel,Tire,Suspension<axle>,Engine,Gears,AutoGearBox,Clutch,Drive}   shared components
    /World/<Name>                            rigid body, vehicle, controller(s), brakes, steering, differential
    /World/<Name>/{Left,Right}Wheel<axle>    wheel attachments (index 2 * (axle - 1) + side, left first)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

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
from ..units import StageUnits
from . import wizard
from .spec import VehicleSpec

UNITS = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254}
AXES = {"Z": ((0.0, 0.0, 1.0), (1.0, 0.0, 0.0)), "Y": ((0.0, 1.0, 0.0), (0.0, 0.0, 1.0))}  # up, forward
AXIS_TOKENS = {(1, 0, 0): "posX", (-1, 0, 0): "negX", (0, 1, 0): "posY", (0, -1, 0): "negY",
               (0, 0, 1): "posZ", (0, 0, -1): "negZ"}
AUTOMATIC_GEAR = 255
WORLD = "/World"
SCENE = "/World/PhysicsScene"
MATERIAL = "/World/GroundMaterial"
FRICTION_TABLE = "/World/TireFrictionTable"
GROUND = "/World/GroundPlane"
COLLISION_GROUPS = {  # the wizard's four groups: wheels and the chassis never meet the suspension queries,
    "chassis": "/World/VehicleChassisCollisionGroup",         # wheel shapes never touch the ground surface
    "wheel": "/World/VehicleWheelCollisionGroup",
    "groundQuery": "/World/VehicleGroundQueryGroup",
    "groundSurface": "/World/GroundSurfaceCollisionGroup",
}
COLLISION_FILTERS = {
    "chassis": ("groundQuery",),
    "wheel": ("wheel", "groundQuery"),
    "groundQuery": ("chassis", "wheel"),
    "groundSurface": ("groundSurface", "wheel"),
}


def _tidy(value):
    """Round away float noise from unit scaling (0.44999999999999996 -> 0.45); USD stores float32 anyway."""
    if isinstance(value, float):
        return float(f"{value:.12g}") + 0.0  # + 0.0 turns -0.0 into 0.0
    if isinstance(value, (list, tuple)):
        return type(value)(_tidy(v) for v in value)
    return value


def _v(a, s: float = 1.0) -> tuple[float, float, float]:
    return tuple(float(c) * s for c in a)


def _add(*vectors) -> tuple[float, float, float]:
    return tuple(float(sum(c)) for c in zip(*vectors))


def _cross(a, b) -> tuple[float, float, float]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@dataclass(frozen=True)
class Frame:
    up: tuple[float, float, float]
    forward: tuple[float, float, float]

    @property
    def left(self) -> tuple[float, float, float]:
        return _cross(self.up, self.forward)

    def point(self, longitudinal: float, lateral: float, vertical: float) -> tuple[float, float, float]:
        return _add(_v(self.forward, longitudinal), _v(self.left, lateral), _v(self.up, vertical))

    def token(self, axis) -> str:
        return AXIS_TOKENS[tuple(int(round(c)) for c in axis)]

    def lateral_axis_name(self) -> str:
        return "XYZ"[[abs(c) for c in self.left].index(1.0)]


@dataclass
class Geometry:
    """What write.py does not author, in stage units: colliders, wheel poses, rigid-body sleep settings."""

    vehicle_path: str
    chassis_centre: tuple[float, float, float]       # chassis box centre, vehicle frame
    chassis_size: tuple[float, float, float]         # full box extents along x, y, z
    wheel_centres: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # rest poses, vehicle frame
    wheel_radius: float = 0.0
    wheel_width: float = 0.0
    lateral_axis: str = "Y"
    contact_offset: float = 0.0
    sleep_threshold: float = 0.0
    stabilization_threshold: float = 0.0


def _block(schema: str, path: str | None, units: StageUnits, **si_values) -> Block:
    block = Block(schema_name=schema, path=path)
    for base, value in si_values.items():
        prop = P.prop(schema, base) if (schema, base) in P.TABLE_BY_KEY else None
        block.set(base, _tidy(P.si_to_stage(prop, value, units) if prop else value), Source.AUTHORED)
    return block


def stage_units(units: str) -> StageUnits:
    if units not in UNITS:
        raise InputError(f"unknown units {units!r}; choose one of {', '.join(UNITS)}")
    return StageUnits(UNITS[units], 1.0)


def describe_vehicle(spec: VehicleSpec, units: str = "m", up: str = "Z") -> tuple[StageDescription, Geometry]:
    """The whole stage (scene, ground, friction table, vehicle) for `spec`, in the given units and up axis."""
    spec.check()
    if up not in AXES:
        raise InputError(f"up axis must be Y or Z, not {up!r}")
    su = stage_units(units)
    frame = Frame(*AXES[up])
    length = su.si_to_stage(P.LENGTH)
    name = spec.name
    vehicle_path, parts = f"{WORLD}/{name}", f"{WORLD}/{name}Parts"

    mass, n_axles, n_wheels = spec.resolved_mass, spec.axles, spec.wheel_count
    radius, width, wheel_mass = spec.resolved_wheel_radius, spec.resolved_wheel_width, spec.resolved_wheel_mass
    L, W, H = spec.chassis_length, spec.chassis_width, spec.chassis_height
    scaling = wizard.Scaling.of_wheel(radius, wheel_mass)
    gravity = wizard.GRAVITY

    # Geometry (SI, vehicle frame with the origin at the centre of mass). The chassis floor sits one wheel
    # radius above the ground; the centre of mass 0.1 of the chassis height above the floor.
    axle_x = wizard.axle_positions(L, radius, n_axles)
    com_long = sum(axle_x) / n_axles          # equal weight per axle
    com_height = 0.1 * H + radius
    wheel_vertical = radius - com_height      # wheel centre at rest, relative to the centre of mass

    # -- scene, ground, friction ------------------------------------------------------------------------
    description = StageDescription(stage=StageInfo(file="", metersPerUnit=su.meters_per_unit,
                                                   kilogramsPerUnit=su.kilograms_per_unit, upAxis=up))
    context = _block(P.CONTEXT, SCENE, su, updateMode="velocityChange", verticalAxis=frame.token(frame.up),
                     longitudinalAxis=frame.token(frame.forward))
    gravity_block = Block(schema_name=P.SCENE, path=SCENE)
    gravity_block.set("gravityDirection", _tidy(_v(frame.up, -1.0)), Source.AUTHORED)
    gravity_block.set("gravityMagnitude", _tidy(gravity * length), Source.AUTHORED)
    description.scenes[SCENE] = SceneDescription(path=SCENE, settings=gravity_block, context=context)
    description.materials[MATERIAL] = MaterialDescription.authored(MATERIAL, staticFriction=0.9, dynamicFriction=0.7,
                                                                   restitution=0.0)
    description.tireFrictionTables[FRICTION_TABLE] = _block(
        P.TABLE, FRICTION_TABLE, su, groundMaterials=[MATERIAL], frictionValues=[spec.tire_friction],
        defaultFrictionValue=0.7)
    identity = [[1.0 if r == c else 0.0 for c in range(4)] for r in range(4)]
    description.ground.append(GroundDescription(path=GROUND, kind="plane", transform=identity, axis=up,
                                                material=MATERIAL))

    # -- wheels -----------------------------------------------------------------------------------------
    wheel = _block(P.WHEEL, f"{parts}/Wheel", su, radius=radius, width=width, mass=wheel_mass,
                   moi=wizard.wheel_moi(wheel_mass, radius), dampingRate=wizard.wheel_damping_rate(scaling))
    tire = _block(P.TIRE, f"{parts}/Tire", su,
                  lateralStiffnessGraph=wizard.lateral_stiffness_graph(mass, n_wheels, gravity),
                  longitudinalStiffness=wizard.longitudinal_stiffness(scaling),
                  camberStiffness=wizard.camber_stiffness(scaling),
                  frictionVsSlipGraph=[(0.0, 1.0), (0.1, 1.0), (1.0, 1.0)])
    tire.set("frictionTable", FRICTION_TABLE, Source.AUTHORED)
    suspensions, frequencies = [], []
    for axle in range(n_axles):
        s = wizard.suspension(mass / n_wheels, radius, spec.damping_ratio, gravity)
        frequencies.append(s.natural_frequency)
        suspensions.append((s, _block(P.SUSPENSION, f"{parts}/Suspension{axle + 1}", su, springStrength=s.spring_strength,
                                      springDamperRate=s.damper_rate, travelDistance=s.travel)))
    geometry = Geometry(vehicle_path=vehicle_path,
                        chassis_centre=_v(frame.point(-com_long, 0.0, 0.5 * H + radius - com_height), length),
                        chassis_size=tuple(abs(c) for c in _add(_v(frame.forward, L), _v(frame.left, W), _v(frame.up, H))),
                        wheel_radius=radius * length, wheel_width=width * length,
                        lateral_axis=frame.lateral_axis_name(),
                        contact_offset=wizard.contact_offset(L) * length)
    geometry.chassis_size = _tidy(_v(geometry.chassis_size, length))
    geometry.chassis_centre = _tidy(geometry.chassis_centre)
    sleep, stabilization = wizard.sleep_thresholds(scaling)
    geometry.sleep_threshold, geometry.stabilization_threshold = sleep * length ** 2, stabilization * length ** 2

    wheels, left, right = [], [], []
    for axle in range(n_axles):
        susp, susp_block = suspensions[axle]
        for side, (label, sign) in enumerate((("Left", 1.0), ("Right", -1.0))):
            index = 2 * axle + side
            (left if side == 0 else right).append(index)
            path = f"{vehicle_path}/{label}Wheel{axle + 1}"
            centre = frame.point(axle_x[axle] - com_long, sign * 0.5 * W, wheel_vertical)
            geometry.wheel_centres[path] = _tidy(_v(centre, length))
            attachment = _block(P.ATTACHMENT, path, su, suspensionTravelDirection=_v(frame.up, -1.0),
                                suspensionFramePosition=_add(centre, _v(frame.up, susp.max_compression)))
            attachment.set("collisionGroup", COLLISION_GROUPS["groundQuery"], Source.AUTHORED)
            controller = None
            if spec.drive == "none":
                controller = _block(P.WHEEL_CONTROLLER, path, su, driveTorque=0.0, brakeTorque=0.0, steerAngle=0.0)
            wheels.append(WheelDescription(path=path, index=index, attachment=attachment, wheel=wheel, tire=tire,
                                           suspension=susp_block, compliance=Block(schema_name=P.COMPLIANCE, path=path),
                                           wheelController=controller))

    # -- the vehicle ------------------------------------------------------------------------------------
    inertia = wizard.box_inertia(mass, L, W, H)
    diagonal = _add(_v(frame.forward, inertia["longitudinal"]), _v(frame.left, inertia["lateral"]),
                    _v(frame.up, inertia["vertical"]))
    rigid_body = Block(schema_name=P.RIGID_BODY, path=vehicle_path)
    for base, value in (("mass", mass), ("centerOfMass", (0.0, 0.0, 0.0)), ("diagonalInertia", tuple(abs(c) for c in diagonal)),
                        ("principalAxes", (1.0, 0.0, 0.0, 0.0)), ("position", _v(frame.up, com_height)),
                        ("orientation", (1.0, 0.0, 0.0, 0.0)), ("scale", (1.0, 1.0, 1.0)),
                        ("linearVelocity", (0.0, 0.0, 0.0)), ("angularVelocity", (0.0, 0.0, 0.0))):
        rigid_body.set(base, _tidy(P.si_to_stage(P.prop(P.RIGID_BODY, base), value, su)), Source.AUTHORED)

    low, high = wizard.sub_steps(max(frequencies))
    low, high = max(low, spec.sub_step_floor[0]), max(high, spec.sub_step_floor[1])
    vehicle_block = _block(P.VEHICLE, vehicle_path, su, vehicleEnabled=True, suspensionLineQueryType="raycast",
                           subStepThresholdLongitudinalSpeed=5.0, lowForwardSpeedSubStepCount=low,
                           highForwardSpeedSubStepCount=high, minPassiveLongitudinalSlipDenominator=4.0,
                           minActiveLongitudinalSlipDenominator=0.1, minLateralSlipDenominator=1.0,
                           referenceFrameIsCenterOfMass=False)
    vehicle = VehicleDescription(path=vehicle_path, vehicle=vehicle_block, context=context, rigidBody=rigid_body,
                                 scene=SCENE, wheels=wheels)

    if spec.drive != "none":
        _drive(vehicle, spec, scaling, parts, su, left, right, axle_x)
    description.vehicles[vehicle_path] = vehicle
    return description, geometry


def parts_path(spec: VehicleSpec) -> str:
    return f"{WORLD}/{spec.name}Parts"


def _drive(vehicle: VehicleDescription, spec: VehicleSpec, scaling: wizard.Scaling, parts: str, su: StageUnits,
           left: list[int], right: list[int], axle_x: list[float]) -> None:
    path = vehicle.path
    if spec.drive == "standard":
        e = wizard.engine(scaling)
        ratios = wizard.gear_ratios(spec.gears)
        vehicle.drive = DriveDescription(
            type="standard", path=f"{parts}/Drive",
            engine=_block(P.ENGINE, f"{parts}/Engine", su, moi=e.moi, peakTorque=e.peak_torque,
                          maxRotationSpeed=e.max_rotation_speed, idleRotationSpeed=0.0, torqueCurve=e.torque_curve,
                          dampingRateFullThrottle=e.damping_full_throttle,
                          dampingRateZeroThrottleClutchEngaged=e.damping_clutch_engaged,
                          dampingRateZeroThrottleClutchDisengaged=e.damping_clutch_disengaged),
            gears=_block(P.GEARS, f"{parts}/Gears", su, ratios=ratios, ratioScale=4.0, switchTime=0.5),
            clutch=_block(P.CLUTCH, f"{parts}/Clutch", su, strength=wizard.clutch_strength(scaling)),
            autoGearBox=_block(P.AUTOBOX, f"{parts}/AutoGearBox", su, upRatios=[0.7] * (spec.gears - 1),
                               downRatios=[0.5] * (spec.gears - 1), latency=2.0))
    else:
        vehicle.drive = DriveDescription(type="basic", path=f"{parts}/Drive",
                                         basic=_block(P.DRIVE_BASIC, f"{parts}/Drive", su,
                                                      peakTorque=wizard.basic_drive_torque(scaling)))
    brake = wizard.brake_torque(scaling)
    n = spec.wheel_count
    if spec.tank:
        # one brake per track, the way the wizard sets up tanks (steering by braking a track)
        groups = {"brakes0": left, "brakes1": right}
    else:
        groups = {"brakes0": list(range(n)), "brakes1": [n - 2, n - 1]}  # foot brake; handbrake on the rear axle
    for instance, wheels in groups.items():
        block = _block(P.BRAKES, path, su, wheels=wheels, maxBrakeTorque=brake, torqueMultipliers=[1.0] * len(wheels))
        vehicle.brakes[instance] = block

    steer = math.radians(spec.resolved_steer_deg)
    if steer > 0.0 and spec.ackermann:
        vehicle.ackermannSteering = _block(P.ACKERMANN, path, su, wheel0=1, wheel1=0, maxSteerAngle=steer,
                                           wheelBase=abs(axle_x[0] - axle_x[-1]), trackWidth=spec.chassis_width,
                                           strength=1.0)
    elif steer > 0.0:
        vehicle.steering = _block(P.STEERING, path, su, wheels=[0, 1], maxSteerAngle=steer, angleMultipliers=[1.0, 1.0])

    driven = [2 * a + side for a in spec.resolved_driven_axles for side in (0, 1)]
    ratio = 1.0 / len(driven)
    diff = dict(wheels=driven, torqueRatios=[ratio] * len(driven))
    if spec.drive == "standard":
        diff["averageWheelSpeedRatios"] = [ratio] * len(driven)
    vehicle.multiWheelDifferential = _block(P.MULTI_DIFF, path, su, **diff)
    if spec.tank:
        vehicle.tankDifferential = _block(P.TANK_DIFF, path, su, numberOfWheelsPerTrack=[len(left), len(right)],
                                          thrustIndexPerTrack=[0, 1], trackToWheelIndices=[0, len(left)],
                                          wheelIndicesInTrackOrder=left + right)
        vehicle.tankController = _block(P.TANK_CONTROLLER, path, su, thrust0=0.0, thrust1=0.0)
    vehicle.controller = _block(P.CONTROLLER, path, su, accelerator=0.0, brake0=0.0, brake1=0.0, steer=0.0,
                                targetGear=AUTOMATIC_GEAR if spec.drive == "standard" else 1)
