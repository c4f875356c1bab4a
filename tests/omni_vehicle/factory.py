"""NVIDIA's vehicle test scenarios (omni.physx.vehicle's test factory, "create4WheeledCarsScenario"), rebuilt with our
own authoring helpers to the same specification: the same prims, values, units and options.

    stage, cars = cars_scenario(2, drive=BASIC)
    cars[0].path, cars[0].wheels[FRONT_LEFT]

The facts carried over (SI, scaled by the stage's length and mass scale): a 1800 kg body whose inertia is that of a
1.0 x 4.8 x 1.8 m box (up, forward, side) with its centre of mass 0.25 m below the prim; four wheels of radius 0.35 m
and width 0.15 m, 20 kg, moi 1.225 kg m^2, damping 0.25, 1.6 m ahead of and behind the prim and 0.8 m to each side, at
rest 0.65 m below the prim (0.4 m below the centre of mass); springs of 45000 N/m and 4500 N s/m over a 0.2 m travel
(deprecated: 0.1 m compression, 0.1 m droop); tires of lateral stiffness (2, 17 x rest load) in front and (2, 25 x rest
load) behind (rest load 4500 N), longitudinal stiffness 5000 N, a flat friction-vs-slip graph; an engine of 1000 N m
peak over 600 rad/s; gears (-4, 4, 2, 1.5, 1.1, 1) x 4 switching in 0.5 s; an automatic box shifting up at 0.65 and
down at 0.5 of the engine's top speed; a clutch of 10; a basic drive of 500 N m (deprecated 250); brakes of 3600 N m on
every wheel and a 3000 N m handbrake on the rear pair; front steering of 0.554264 rad; a 4.8 x 1.8 x 1.4 m chassis box
0.3 m above the ground; gravity 10 m/s^2; a tarmac plane (friction 0.9/0.7) whose tires read 0.75 from the winter
table. The vehicles stand 1 m up (the prim), the first at the origin, each next one `delta` further.

Axes are (up, forward, side) indices, Y up and Z forward (+X the left side) unless asked otherwise.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade
from stage_factory import set_property, set_targets

import physxvehicle_usd  # noqa: F401  (registers our schema: the property table names the attributes)
from physxvehicle_usd import properties as P
from physxvehicle_usd.read.context import REFERENCE_FRAME_KEY

NONE, BASIC, STANDARD = "none", "basic", "standard"
FRONT_LEFT, FRONT_RIGHT, REAR_LEFT, REAR_RIGHT = range(4)
AUTOMATIC = 255
ROOT = "/World"
SCENE = f"{ROOT}/PhysicsScene"
PLANE = f"{ROOT}/GroundPlane/CollisionPlane"
WINTER, SUMMER = f"{ROOT}/WinterTireFrictionTable", f"{ROOT}/SummerTireFrictionTable"
TARMAC, GRAVEL = f"{ROOT}/TarmacMaterial", f"{ROOT}/GravelMaterial"
GROUPS = {name: f"{ROOT}/{name}" for name in ("VehicleChassisCollisionGroup", "VehicleWheelCollisionGroup",
                                               "VehicleGroundQueryGroup", "GroundSurfaceCollisionGroup")}
CHASSIS_GROUP, WHEEL_GROUP, QUERY_GROUP, SURFACE_GROUP = GROUPS.values()
# which groups each group does not collide with
FILTERS = {CHASSIS_GROUP: (QUERY_GROUP,), WHEEL_GROUP: (QUERY_GROUP, SURFACE_GROUP),
           QUERY_GROUP: (CHASSIS_GROUP, WHEEL_GROUP), SURFACE_GROUP: (SURFACE_GROUP, WHEEL_GROUP)}

Y_UP_Z_FORWARD = (1, 2, 0)
MAX_STEER = 0.554264
TRAVEL, COMPRESSION, DROOP = 0.2, 0.1, 0.1
WHEEL_RADIUS, WHEEL_WIDTH = 0.35, 0.15
MASS = 1800.0
COM_TO_GROUND, CHASSIS_HALF_HEIGHT, CHASSIS_TO_GROUND = 0.75, 0.7, 0.3
WHEEL_FORWARD, WHEEL_SIDE = 1.6, 0.8
REST_LOAD = 450.0 * 10.0
SPRUNG_MASS = MASS / 4


@dataclass
class Car:
    path: str
    wheels: list[str]
    position: tuple[float, float, float]


@dataclass
class Options:
    """One vehicle's options (the factory's per-vehicle lists and flags)."""

    drive: str = NONE
    autobox: bool = True
    wheel_shapes: bool = True
    shared: bool = True
    deprecated: bool = False
    tank: bool = False
    ackermann: bool = False
    enabled: bool = True
    raycast: bool = True
    com_frame: bool = False
    omit_controllers: bool = False
    skip_defaults: bool = False      # leave every attribute that has a default unauthored
    set_defaults: bool = False       # author the defaults where the factory otherwise authors other values
    chassis_box: bool = True
    grandchildren: bool = False      # wheel attachments under <vehicle>/Wheels
    com_metadata: bool | None = None  # the referenceFrameIsCenterOfMass metadata, where it differs from com_frame
    shape_at_root: bool = False      # the wheel attachment prim is the collision shape itself
    mesh_shape: bool = False         # a convex-hull mesh ring instead of a UsdGeom.Cylinder
    unmanaged_wheels: bool = False   # wheel attachments are Scopes (no transform); no wheel shapes
    values: dict[tuple[str, str], Any] = field(default_factory=dict)  # extra (schema, base) -> value on the vehicle


def _vec(axes: Sequence[int], up: float, forward: float, side: float) -> Gf.Vec3f:
    v = [0.0, 0.0, 0.0]
    v[axes[0]], v[axes[1]], v[axes[2]] = up, forward, side
    return Gf.Vec3f(*v)


def _token(axis: int) -> str:
    return ("posX", "posY", "posZ")[axis]


class Builder:
    """The scene, its shared components and its vehicles, authored into one in-memory stage."""

    def __init__(self, length_scale: float = 1.0, mass_scale: float = 1.0, axes: Sequence[int] = Y_UP_Z_FORWARD,
                 steps_per_second: int = 60, deprecated_context: bool = False):
        self.L, self.M, self.axes = length_scale, mass_scale, tuple(axes)
        self.force = self.M * self.L            # kg m / s^2
        self.inertia = self.M * self.L * self.L  # kg m^2 (torques, moments, damping rates)
        self.stage = Usd.Stage.CreateInMemory()
        self.stage.SetDefaultPrim(UsdGeom.Xform.Define(self.stage, ROOT).GetPrim())
        UsdGeom.SetStageUpAxis(self.stage, UsdGeom.Tokens.y if self.axes[0] == 1 else UsdGeom.Tokens.z)
        UsdGeom.SetStageMetersPerUnit(self.stage, 1.0 / self.L)
        UsdPhysics.SetStageKilogramsPerUnit(self.stage, 1.0 / self.M)
        self._scene(steps_per_second, deprecated_context)
        self._groups()
        self._materials()
        self._plane()
        self.shared: dict[str, str] = {}

    def v(self, up: float, forward: float, side: float, scale: float = 1.0) -> Gf.Vec3f:
        return _vec(self.axes, up * scale, forward * scale, side * scale)

    # -- the scene ---------------------------------------------------------------------------------------------

    def _scene(self, steps_per_second: int, deprecated_context: bool) -> None:
        scene = UsdPhysics.Scene.Define(self.stage, SCENE)
        scene.CreateGravityDirectionAttr(self.v(-1, 0, 0))
        scene.CreateGravityMagnitudeAttr(10.0 * self.L)
        prim = scene.GetPrim()
        prim.AddAppliedSchema("PhysxSceneAPI")  # NVIDIA's schema, not ours: by name
        prim.CreateAttribute("physxScene:timeStepsPerSecond", Sdf.ValueTypeNames.UInt).Set(steps_per_second)
        prim.ApplyAPI(P.CONTEXT)
        set_property(prim, P.CONTEXT, "updateMode", "velocityChange")
        if deprecated_context:
            set_property(prim, P.CONTEXT, "upAxis", tuple(self.v(1, 0, 0)))
            set_property(prim, P.CONTEXT, "forwardAxis", tuple(self.v(0, 1, 0)))
        else:
            set_property(prim, P.CONTEXT, "verticalAxis", _token(self.axes[0]))
            set_property(prim, P.CONTEXT, "longitudinalAxis", _token(self.axes[1]))

    def _groups(self) -> None:
        for path, filtered in FILTERS.items():
            UsdPhysics.CollisionGroup.Define(self.stage, path).CreateFilteredGroupsRel().SetTargets(
                [Sdf.Path(p) for p in filtered])

    def add_to_group(self, prim_path: str, group: str) -> None:
        includes = UsdPhysics.CollisionGroup(self.stage.GetPrimAtPath(group)).GetCollidersCollectionAPI() \
            .CreateIncludesRel()
        includes.AddTarget(Sdf.Path(prim_path))

    def _materials(self) -> None:
        for path, static, dynamic in ((TARMAC, 0.9, 0.7), (GRAVEL, 0.6, 0.6)):
            UsdShade.Material.Define(self.stage, path)
            material = UsdPhysics.MaterialAPI.Apply(self.stage.GetPrimAtPath(path))
            material.CreateStaticFrictionAttr(static)
            material.CreateDynamicFrictionAttr(dynamic)
            material.CreateRestitutionAttr(0.0)
        for path, values in ((WINTER, [0.75, 0.6]), (SUMMER, [0.7, 0.6])):
            table = self.stage.DefinePrim(path, P.TABLE)
            set_targets(table, P.TABLE, "groundMaterials", [TARMAC, GRAVEL])
            set_property(table, P.TABLE, "frictionValues", values)

    def _plane(self) -> None:
        UsdGeom.Xform.Define(self.stage, f"{ROOT}/GroundPlane")
        plane = UsdGeom.Plane.Define(self.stage, PLANE)
        plane.CreatePurposeAttr(UsdGeom.Tokens.guide)
        plane.CreateAxisAttr("XYZ"[self.axes[0]])
        UsdPhysics.CollisionAPI.Apply(plane.GetPrim())
        self.add_to_group(PLANE, SURFACE_GROUP)
        self.bind_material(plane.GetPrim(), TARMAC)

    def bind_material(self, prim: Usd.Prim, material: str) -> None:
        UsdShade.MaterialBindingAPI.Apply(prim).Bind(UsdShade.Material(self.stage.GetPrimAtPath(material)),
                                                     UsdShade.Tokens.weakerThanDescendants, "physics")

    # -- components (on a shared prim or on their owner) --------------------------------------------------------

    def wheel(self, prim: Usd.Prim, front: bool, o: Options) -> None:
        prim.ApplyAPI(P.WHEEL)
        for base, value in (("radius", WHEEL_RADIUS * self.L), ("width", WHEEL_WIDTH * self.L), ("mass", 20.0 * self.M),
                            ("moi", 1.225 * self.inertia), ("dampingRate", 0.25 * self.inertia)):
            set_property(prim, P.WHEEL, base, value)
        if o.deprecated:
            set_property(prim, P.WHEEL, "maxBrakeTorque", 3600.0 * self.inertia)
            set_property(prim, P.WHEEL, "maxHandBrakeTorque", (0.0 if front else 3000.0) * self.inertia)
            set_property(prim, P.WHEEL, "maxSteerAngle", MAX_STEER if front else 0.0)
            set_property(prim, P.WHEEL, "toeAngle", 0.0)

    def tire(self, prim: Usd.Prim, front: bool, o: Options, table: str = WINTER) -> None:
        prim.ApplyAPI(P.TIRE)
        if not o.skip_defaults:
            lat_y = 17.095 if o.set_defaults else (17.0 if front else 25.0)
            if o.deprecated:
                set_property(prim, P.TIRE, "latStiffX", 2.0)
                set_property(prim, P.TIRE, "latStiffY", lat_y)
                set_property(prim, P.TIRE, "longitudinalStiffnessPerUnitGravity", 500.0 * self.M)
                set_property(prim, P.TIRE, "camberStiffnessPerUnitGravity", 0.0)
            else:
                set_property(prim, P.TIRE, "lateralStiffnessGraph", (2.0, lat_y * REST_LOAD * self.force))
                set_property(prim, P.TIRE, "longitudinalStiffness", 5000.0 * self.force)
                set_property(prim, P.TIRE, "camberStiffness", 0.0)
            set_property(prim, P.TIRE, "frictionVsSlipGraph", [(0.0, 1.0), (0.1, 1.0), (1.0, 1.0)])
        set_targets(prim, P.TIRE, "frictionTable", [table])

    def suspension(self, prim: Usd.Prim, o: Options) -> None:
        prim.ApplyAPI(P.SUSPENSION)
        set_property(prim, P.SUSPENSION, "springStrength", 45000.0 * self.M)
        set_property(prim, P.SUSPENSION, "springDamperRate", 4500.0 * self.M)
        if o.deprecated:
            set_property(prim, P.SUSPENSION, "maxCompression", COMPRESSION * self.L)
            set_property(prim, P.SUSPENSION, "maxDroop", DROOP * self.L)
            for base in ("camberAtRest", "camberAtMaxCompression", "camberAtMaxDroop"):
                set_property(prim, P.SUSPENSION, base, 0.0)
        else:
            set_property(prim, P.SUSPENSION, "travelDistance", TRAVEL * self.L)

    def engine(self, prim: Usd.Prim, o: Options) -> None:
        prim.ApplyAPI(P.ENGINE)
        if o.skip_defaults:
            return
        for base, value in (("moi", 1.0 * self.inertia), ("peakTorque", (500.0 if o.set_defaults else 1000.0) * self.inertia),
                            ("maxRotationSpeed", 600.0), ("torqueCurve", [(0.0, 0.8), (0.33, 1.0), (1.0, 0.8)]),
                            ("dampingRateFullThrottle", 0.15 * self.inertia),
                            ("dampingRateZeroThrottleClutchEngaged", 2.0 * self.inertia),
                            ("dampingRateZeroThrottleClutchDisengaged", 0.35 * self.inertia)):
            set_property(prim, P.ENGINE, base, value)

    def gears(self, prim: Usd.Prim, o: Options) -> None:
        prim.ApplyAPI(P.GEARS)
        if not o.skip_defaults:
            set_property(prim, P.GEARS, "ratios", [-4.0, 4.0, 2.0, 1.5, 1.1, 1.0])
            set_property(prim, P.GEARS, "ratioScale", 4.0)
            set_property(prim, P.GEARS, "switchTime", 0.5)

    def autobox(self, prim: Usd.Prim, o: Options) -> None:
        prim.ApplyAPI(P.AUTOBOX)
        if not o.skip_defaults:
            set_property(prim, P.AUTOBOX, "upRatios", [0.65] * 4)
            set_property(prim, P.AUTOBOX, "downRatios", [0.5] * 4)
            set_property(prim, P.AUTOBOX, "latency", 2.0)

    def clutch(self, prim: Usd.Prim, o: Options) -> None:
        prim.ApplyAPI(P.CLUTCH)
        if not o.skip_defaults:
            set_property(prim, P.CLUTCH, "strength", 10.0 * self.inertia)

    def basic_drive(self, prim: Usd.Prim, o: Options) -> None:
        prim.ApplyAPI(P.DRIVE_BASIC)
        if not o.skip_defaults:
            torque = (500.0 if o.deprecated else 1000.0) if o.set_defaults else (250.0 if o.deprecated else 500.0)
            set_property(prim, P.DRIVE_BASIC, "peakTorque", torque * self.inertia)

    def shared_parts(self, o: Options) -> None:
        """FrontWheel, RearWheel, FrontTire, RearTire, FrontSuspension, RearSuspension and the drive's parts, once."""
        if self.shared:
            return
        for name, author in (("FrontWheel", lambda p: self.wheel(p, True, o)), ("RearWheel", lambda p: self.wheel(p, False, o)),
                             ("FrontTire", lambda p: self.tire(p, True, o)), ("RearTire", lambda p: self.tire(p, False, o)),
                             ("FrontSuspension", lambda p: self.suspension(p, o)),
                             ("RearSuspension", lambda p: self.suspension(p, o))):
            path = f"{ROOT}/{name}"
            author(UsdGeom.Scope.Define(self.stage, path).GetPrim())
            self.shared[name] = path

    def shared_drive(self, o: Options) -> str:
        key = f"drive-{o.drive}-{o.autobox}"
        if key in self.shared:
            return self.shared[key]
        if o.drive == STANDARD:
            parts = {}
            for name, author in (("Engine", self.engine), ("Gears", self.gears), ("Clutch", self.clutch)) + \
                    ((("AutoGearBox", self.autobox),) if o.autobox else ()):
                path = f"{ROOT}/{name}"
                author(UsdGeom.Scope.Define(self.stage, path).GetPrim(), o)
                parts[name] = path
            path = f"{ROOT}/DriveStandard"
            prim = UsdGeom.Scope.Define(self.stage, path).GetPrim()
            prim.ApplyAPI(P.DRIVE_STANDARD)
            for rel, name in (("engine", "Engine"), ("gears", "Gears"), ("clutch", "Clutch"), ("autoGearBox", "AutoGearBox")):
                if name in parts:
                    set_targets(prim, P.DRIVE_STANDARD, rel, [parts[name]])
        else:
            path = f"{ROOT}/DriveBasic"
            self.basic_drive(UsdGeom.Scope.Define(self.stage, path).GetPrim(), o)
        self.shared[key] = path
        return path

    # -- a vehicle ---------------------------------------------------------------------------------------------

    def car(self, path: str, position: Sequence[float], o: Options) -> Car:
        L = self.L
        if o.shared:
            self.shared_parts(o)
        body = UsdGeom.Xform.Define(self.stage, path)
        body.AddTranslateOp(UsdGeom.XformOp.PrecisionFloat).Set(Gf.Vec3f(*position))
        body.AddOrientOp(UsdGeom.XformOp.PrecisionFloat).Set(Gf.Quatf(1, 0, 0, 0))
        prim = body.GetPrim()
        prim.SetCustomDataByKey(REFERENCE_FRAME_KEY, o.com_frame if o.com_metadata is None else o.com_metadata)
        UsdPhysics.RigidBodyAPI.Apply(prim)
        mass = UsdPhysics.MassAPI.Apply(prim)
        mass.CreateMassAttr(MASS * self.M)
        com = self.v(COM_TO_GROUND - (CHASSIS_HALF_HEIGHT + CHASSIS_TO_GROUND), 0, 0, L)
        mass.CreateCenterOfMassAttr(com)
        box = self.v(1.0, 4.8, 1.8, L)
        mass.CreateDiagonalInertiaAttr(Gf.Vec3f(box[1] ** 2 + box[2] ** 2, box[0] ** 2 + box[2] ** 2,
                                                box[0] ** 2 + box[1] ** 2) * (MASS * self.M / 12.0))
        mass.CreatePrincipalAxesAttr(Gf.Quatf(1, 0, 0, 0))
        prim.AddAppliedSchema("PhysxRigidBodyAPI")
        for name, type_name, value in (("sleepThreshold", Sdf.ValueTypeNames.Float, 0.0),
                                       ("stabilizationThreshold", Sdf.ValueTypeNames.Float, 0.0),
                                       ("disableGravity", Sdf.ValueTypeNames.Bool, True)):
            prim.CreateAttribute(f"physxRigidBody:{name}", type_name).Set(value)
        prim.ApplyAPI(P.VEHICLE)
        if not o.skip_defaults:
            set_property(prim, P.VEHICLE, "vehicleEnabled", o.enabled)
        if o.drive != NONE:
            if o.shared:
                set_targets(prim, P.VEHICLE, "drive", [self.shared_drive(o)])
            elif o.drive == BASIC:
                self.basic_drive(prim, o)
            else:
                prim.ApplyAPI(P.DRIVE_STANDARD)
                self.engine(prim, o)
                self.gears(prim, o)
                if o.autobox:
                    self.autobox(prim, o)
                self.clutch(prim, o)
        if not o.skip_defaults:
            for base, value in (("subStepThresholdLongitudinalSpeed", 5.0 * L), ("lowForwardSpeedSubStepCount", 3),
                                ("highForwardSpeedSubStepCount", 1), ("longitudinalStickyTireThresholdSpeed", 0.2 * L),
                                ("longitudinalStickyTireThresholdTime", 1.0), ("longitudinalStickyTireDamping", 200.0),
                                ("lateralStickyTireThresholdSpeed", 0.2 * L), ("lateralStickyTireThresholdTime", 1.0),
                                ("lateralStickyTireDamping", 20.0)):
                set_property(prim, P.VEHICLE, base, value)
            if o.deprecated:
                set_property(prim, P.VEHICLE, "minLongitudinalSlipDenominator", 4.0 * L)
            else:
                set_property(prim, P.VEHICLE, "minPassiveLongitudinalSlipDenominator", 4.0 * L)
                set_property(prim, P.VEHICLE, "minActiveLongitudinalSlipDenominator", 0.1 * L)
                set_property(prim, P.VEHICLE, "minLateralSlipDenominator", 1.0 * L)
        if not o.raycast:
            set_property(prim, P.VEHICLE, "suspensionLineQueryType", "sweep")
        elif not o.skip_defaults:
            set_property(prim, P.VEHICLE, "suspensionLineQueryType", "raycast")
        self._controllers(prim, o)
        wheels = self._wheels(path, prim, o)
        if not o.deprecated:
            self._brakes_steering_differential(prim, o)
        if o.chassis_box:
            self._chassis(path)
        for (schema, base), value in o.values.items():
            set_property(prim, schema, base, value)
        return Car(path, wheels, tuple(position))

    def _controllers(self, prim: Usd.Prim, o: Options) -> None:
        if o.drive == NONE or o.omit_controllers:
            return
        if o.drive == STANDARD and o.tank:
            prim.ApplyAPI(P.TANK_CONTROLLER)
            set_property(prim, P.TANK_CONTROLLER, "thrust0", 0.0)
            set_property(prim, P.TANK_CONTROLLER, "thrust1", 0.0)
        prim.ApplyAPI(P.CONTROLLER)
        names = ("accelerator", "brake", "handbrake", "steerLeft", "steerRight") if o.deprecated else \
            ("accelerator", "brake0", "brake1", "steer")
        for base in names:
            set_property(prim, P.CONTROLLER, base, 0.0)
        set_property(prim, P.CONTROLLER, "targetGear", AUTOMATIC if o.drive == STANDARD and o.autobox else 1)

    def _wheels(self, path: str, vehicle: Usd.Prim, o: Options) -> list[str]:
        L = self.L
        parent = f"{path}/Wheels" if o.grandchildren else path
        if o.grandchildren:
            UsdGeom.Scope.Define(self.stage, parent)
        rest_up = WHEEL_RADIUS - (COM_TO_GROUND if o.com_frame else CHASSIS_HALF_HEIGHT + CHASSIS_TO_GROUND)
        com = self.v(COM_TO_GROUND - (CHASSIS_HALF_HEIGHT + CHASSIS_TO_GROUND), 0, 0, L)
        paths = []
        names = ("FrontLeftWheel", "FrontRightWheel", "RearLeftWheel", "RearRightWheel")
        for i, name in enumerate(names):
            front = i < 2
            forward = WHEEL_FORWARD if front else -WHEEL_FORWARD
            side = WHEEL_SIDE if i % 2 == 0 else -WHEEL_SIDE
            wheel_pos = self.v(rest_up, forward, side, L)
            frame_pos = self.v(rest_up + COMPRESSION, forward, side, L)
            wpath = f"{parent}/{name}"
            if o.unmanaged_wheels:
                w = UsdGeom.Scope.Define(self.stage, wpath).GetPrim()
            else:
                if o.wheel_shapes and o.shape_at_root:
                    xform = self._ring(wpath) if o.mesh_shape else UsdGeom.Cylinder.Define(self.stage, wpath)
                else:
                    xform = UsdGeom.Xform.Define(self.stage, wpath)
                xform.AddTranslateOp(UsdGeom.XformOp.PrecisionFloat).Set(wheel_pos + com if o.com_frame else wheel_pos)
                w = xform.GetPrim()
            w.ApplyAPI(P.ATTACHMENT)
            if o.shared:
                for rel, part in (("wheel", "Wheel"), ("tire", "Tire"), ("suspension", "Suspension")):
                    set_targets(w, P.ATTACHMENT, rel, [self.shared[("Front" if front else "Rear") + part]])
            else:
                self.wheel(w, front, o)
                self.tire(w, front, o)
                self.suspension(w, o)
            set_targets(w, P.ATTACHMENT, "collisionGroup", [QUERY_GROUP])
            set_property(w, P.ATTACHMENT, "suspensionTravelDirection", tuple(self.v(-1, 0, 0)))
            if o.deprecated:
                for base in ("suspensionForceAppPointOffset", "tireForceAppPointOffset", "wheelCenterOfMassOffset"):
                    set_property(w, P.ATTACHMENT, base, tuple(wheel_pos))
                set_property(w, P.ATTACHMENT, "driven", o.drive != NONE and front)
            else:
                set_property(w, P.ATTACHMENT, "suspensionFramePosition", tuple(frame_pos))
                set_property(w, P.ATTACHMENT, "suspensionFrameOrientation", (1.0, 0.0, 0.0, 0.0))
                set_property(w, P.ATTACHMENT, "index", i)
                w.ApplyAPI(P.COMPLIANCE)
                set_property(w, P.COMPLIANCE, "wheelToeAngle", [])
                set_property(w, P.COMPLIANCE, "wheelCamberAngle", [])
                point = wheel_pos - frame_pos
                set_property(w, P.COMPLIANCE, "suspensionForceAppPoint", [(0.0, *point)])
                set_property(w, P.COMPLIANCE, "tireForceAppPoint", [(0.0, *point)])
            if o.drive == NONE and not o.omit_controllers:
                w.ApplyAPI(P.WHEEL_CONTROLLER)
                for base in ("driveTorque", "brakeTorque", "steerAngle"):
                    set_property(w, P.WHEEL_CONTROLLER, base, 0.0)
            if o.wheel_shapes and not o.unmanaged_wheels:
                self._wheel_shape(wpath if o.shape_at_root else f"{wpath}/Collision", o.mesh_shape)
            paths.append(wpath)
        return paths

    def _ring(self, path: str) -> UsdGeom.Mesh:
        """A unit ring of 32 segments about the side axis (a cylinder of radius 1 and length 2), hulled."""
        mesh = UsdGeom.Mesh.Define(self.stage, path)
        points = []
        for k in range(32):
            angle = 2.0 * math.pi * k / 32
            for end in (1.0, -1.0):
                points.append(_vec(self.axes, math.sin(angle), -math.cos(angle), end))
        mesh.CreatePointsAttr(points)
        mesh.CreateFaceVertexCountsAttr([4] * 32)
        mesh.CreateFaceVertexIndicesAttr([i for k in range(32) for i in (2 * k, 2 * k + 1, (2 * k + 3) % 64,
                                                                          (2 * k + 2) % 64)])
        UsdPhysics.MeshCollisionAPI.Apply(mesh.GetPrim()).CreateApproximationAttr("convexHull")
        return mesh

    def _wheel_shape(self, path: str, mesh: bool = False) -> None:
        prim = self.stage.GetPrimAtPath(path)
        if mesh:
            shape = UsdGeom.Mesh(prim) if prim else self._ring(path)
            shape.AddScaleOp(UsdGeom.XformOp.PrecisionFloat).Set(
                self.v(WHEEL_RADIUS, WHEEL_RADIUS, WHEEL_WIDTH * 0.5, self.L))
        else:
            shape = UsdGeom.Cylinder(prim) if prim else UsdGeom.Cylinder.Define(self.stage, path)
            shape.CreateHeightAttr(WHEEL_WIDTH * self.L)
            shape.CreateRadiusAttr(WHEEL_RADIUS * self.L)
            shape.CreateAxisAttr("XYZ"[self.axes[2]])
            shape.CreateExtentAttr(UsdGeom.Cylinder.ComputeExtentFromPlugins(shape, 0))
        self._collider(shape.GetPrim(), WHEEL_GROUP)

    def _collider(self, prim: Usd.Prim, group: str) -> None:
        UsdPhysics.CollisionAPI.Apply(prim)
        self.add_to_group(str(prim.GetPath()), group)
        prim.AddAppliedSchema("PhysxCollisionAPI")
        prim.CreateAttribute("physxCollision:restOffset", Sdf.ValueTypeNames.Float).Set(0.0)
        prim.CreateAttribute("physxCollision:contactOffset", Sdf.ValueTypeNames.Float).Set(0.02 * self.L)

    def _chassis(self, path: str) -> None:
        cube = UsdGeom.Cube.Define(self.stage, f"{path}/ChassisCollision")
        cube.CreatePurposeAttr(UsdGeom.Tokens.guide)
        cube.AddTranslateOp(UsdGeom.XformOp.PrecisionFloat).Set(Gf.Vec3f(0, 0, 0))
        cube.AddScaleOp(UsdGeom.XformOp.PrecisionFloat).Set(self.v(CHASSIS_HALF_HEIGHT, 2.4, 0.9, self.L))
        self._collider(cube.GetPrim(), CHASSIS_GROUP)

    def _brakes_steering_differential(self, prim: Usd.Prim, o: Options) -> None:
        brake = 3600.0 * self.inertia
        if o.drive == STANDARD and o.tank:
            for instance, wheels in (("brakes0", [FRONT_LEFT, REAR_LEFT]), ("brakes1", [FRONT_RIGHT, REAR_RIGHT])):
                prim.ApplyAPI(P.BRAKES, instance)
                set_property(prim, P.BRAKES, "wheels", wheels, instance)
                set_property(prim, P.BRAKES, "maxBrakeTorque", brake, instance)
        elif o.drive != NONE:
            prim.ApplyAPI(P.BRAKES, "brakes0")
            set_property(prim, P.BRAKES, "maxBrakeTorque", brake, "brakes0")
            prim.ApplyAPI(P.BRAKES, "brakes1")
            set_property(prim, P.BRAKES, "wheels", [REAR_LEFT, REAR_RIGHT], "brakes1")
            set_property(prim, P.BRAKES, "maxBrakeTorque", 3000.0 * self.inertia, "brakes1")
            if o.ackermann:
                prim.ApplyAPI(P.ACKERMANN)
                for base, value in (("wheel0", FRONT_RIGHT), ("wheel1", FRONT_LEFT), ("maxSteerAngle", MAX_STEER),
                                    ("wheelBase", 2 * WHEEL_FORWARD * self.L), ("trackWidth", 2 * WHEEL_SIDE * self.L)):
                    set_property(prim, P.ACKERMANN, base, value)
                if not o.skip_defaults:
                    set_property(prim, P.ACKERMANN, "strength", 1.0)
            else:
                prim.ApplyAPI(P.STEERING)
                set_property(prim, P.STEERING, "wheels", [FRONT_LEFT, FRONT_RIGHT])
                set_property(prim, P.STEERING, "maxSteerAngle", MAX_STEER)
        driven = [FRONT_LEFT, FRONT_RIGHT] if o.drive != NONE else []
        if o.drive == STANDARD and o.tank:
            prim.ApplyAPI(P.TANK_DIFF)
            for base, value in (("numberOfWheelsPerTrack", [2, 2]), ("thrustIndexPerTrack", [0, 1]),
                                ("trackToWheelIndices", [0, 2]),
                                ("wheelIndicesInTrackOrder", [FRONT_LEFT, REAR_LEFT, FRONT_RIGHT, REAR_RIGHT])):
                set_property(prim, P.TANK_DIFF, base, value)
        if driven:
            prim.ApplyAPI(P.MULTI_DIFF)
            set_property(prim, P.MULTI_DIFF, "wheels", driven)
            set_property(prim, P.MULTI_DIFF, "torqueRatios", [0.5, 0.5])
            if o.drive == STANDARD:
                set_property(prim, P.MULTI_DIFF, "averageWheelSpeedRatios", [0.5, 0.5])


def cars_scenario(count: int, *, length_scale: float = 1.0, mass_scale: float = 1.0,
                  axes: Sequence[int] = Y_UP_Z_FORWARD, delta: Sequence[float] = (-3.0, 0.0, 0.0),
                  forward: float = 0.0, side: float = 0.0, options: Sequence[Options] | Options | None = None,
                  steps_per_second: int = 60, names: Sequence[str] | None = None) -> tuple[Usd.Stage, list[Car]]:
    """`count` four-wheeled cars (the factory's create4WheeledCarsScenario): /World/Car_<i> unless `names` says, at
    (1 up, `forward`, `side`) + i * `delta` (stage units). `options` is one Options for all or one per vehicle; the
    context takes the deprecated up/forward vectors when every vehicle is deprecated, as the factory's does."""
    each = [options or Options()] * count if not isinstance(options, (list, tuple)) else list(options)
    builder = Builder(length_scale, mass_scale, axes, steps_per_second, all(o.deprecated for o in each))
    base = builder.v(1.0 * length_scale, forward, side)
    # components the cars share follow the first sharing vehicle's flavour (deprecated or not, as the factory)
    sharing = [o for o in each if o.shared]
    if sharing:
        first = Options(**{**sharing[0].__dict__, "deprecated": all(o.deprecated for o in each)})
        builder.shared_parts(first)
    cars = []
    for i, o in enumerate(each):
        path = names[i] if names else f"{ROOT}/Car_{i}"
        position = tuple(base[k] + delta[k] * i for k in range(3))
        cars.append(builder.car(path, position, o))
    return builder.stage, cars
