"""Author a complete, minimal, valid vehicle in a fresh in-memory stage, for tests to read and then break.

    car = build_vehicle(meters_per_unit=0.01, drive="basic")
    car.set(car.vehicle, P.VEHICLE, "lowForwardSpeedSubStepCount", 0)
    description = car.read()

Every value the factory authors is given in SI and converted to the stage's units, so the same car is
physically the same in every unit system. Only what the parser needs is authored: every property with
a sentinel or a parser default is left unauthored unless `values` asks for it. Attribute names come from
the registered schema (`properties.full_name`), never spelled here.

Layout (Z up, X forward, +Y left):
    /World/PhysicsScene                  UsdPhysics scene with PhysxVehicleContextAPI
    /World/<Name>                        the vehicle: rigid body with authored mass properties, PhysxVehicleAPI
    /World/<Name>/Wheel0..3              wheel attachments (FL, FR, RL, RR), explicit indices 0..3
    /World/<Name>Parts/...               shared components (shared=True): Wheel, Tire, Suspension, Engine,
                                         Gears, Clutch, AutoGearBox, Drive (standard or basic)
With shared=False every component API sits on its owner (attachment prims, the vehicle prim).

For whole, drivable vehicles (the simulator's tests) `preset_stage` authors the vehicle presets of
`physxvehicle_usd.author` instead, Y up and +Z forward (+X lateral) unless asked otherwise:

    stage = preset_stage(car_spec("basic"), car_spec("none", name="Robot"))
    translate(stage, "/World/Robot", (5.0, 0.0, 0.0))
    description = read_stage(stage)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from physxvehicle_usd import properties as P
from physxvehicle_usd.author import author_vehicle, preset_spec
from physxvehicle_usd.author.spec import VehicleSpec
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.read.context import REFERENCE_FRAME_KEY as REFERENCE_FRAME
from physxvehicle_usd.units import LENGTH, MASS, MASS_LENGTH2, Dim, StageUnits

# SI values of the minimal car, with the dimension that converts each to stage units.
MASS_KG = 1500.0
INERTIA = (600.0, 2500.0, 2700.0)          # kg m^2
WHEEL_POSITIONS = ((1.3, 0.8, -0.3), (1.3, -0.8, -0.3), (-1.4, 0.8, -0.3), (-1.4, -0.8, -0.3))  # m, FL FR RL RR
REQUIRED: dict[tuple[str, str], tuple[Any, Dim]] = {
    (P.WHEEL, "radius"): (0.35, LENGTH),
    (P.WHEEL, "width"): (0.25, LENGTH),
    (P.WHEEL, "mass"): (20.0, MASS),
    (P.WHEEL, "moi"): (1.2, MASS_LENGTH2),
    (P.WHEEL, "dampingRate"): (0.25, MASS_LENGTH2),
    (P.SUSPENSION, "springStrength"): (35000.0, MASS),       # N/m = kg/s^2
    (P.SUSPENSION, "springDamperRate"): (4500.0, MASS),      # N s/m = kg/s
    (P.SUSPENSION, "travelDistance"): (0.2, LENGTH),
}

DRIVES = ("standard", "basic", "none", "tank")


def scaled(value: Any, dim: Dim, units: StageUnits) -> Any:
    factor = units.si_to_stage(dim)
    if isinstance(value, (tuple, list)):
        return type(value)(scaled(v, dim, units) for v in value)
    return value * factor if isinstance(value, float) else value


def _usd_value(type_name: Sdf.ValueTypeName, value: Any) -> Any:
    scalar = str(type_name.scalarType if type_name.isArray else type_name)
    if scalar.startswith("quat"):
        make, vec = (Gf.Quatf, Gf.Vec3f) if scalar == "quatf" else (Gf.Quatd, Gf.Vec3d)
        return make(value[0], vec(*value[1:]))
    if type_name.isArray:
        return type_name.type.pythonClass([tuple(v) if isinstance(v, (list, tuple)) else v for v in value])
    if isinstance(value, list):
        return tuple(value)
    return value


@dataclass
class VehicleStage:
    """A stage with one or more factory vehicles, and the paths tests need to mutate them."""

    stage: Usd.Stage
    units: StageUnits
    scene: str = "/World/PhysicsScene"
    vehicle: str = ""
    wheels: list[str] = field(default_factory=list)
    parts: dict[str, str] = field(default_factory=dict)   # component kind -> prim carrying its API

    def prim(self, path: str) -> Usd.Prim:
        return self.stage.GetPrimAtPath(path)

    def set(self, path: str, schema: str, base: str, value: Any, instance: str | None = None) -> str:
        """Author a schema property with the schema's own type; returns the attribute name."""
        return set_property(self.prim(path), schema, base, value, instance)

    def set_si(self, path: str, schema: str, base: str, value: Any, dim: Dim, instance: str | None = None) -> str:
        return self.set(path, schema, base, scaled(value, dim, self.units), instance)

    def clear(self, path: str, schema: str, base: str, instance: str | None = None) -> str:
        name = P.full_name(schema, base, instance)
        self.prim(path).RemoveProperty(name)
        return name

    def target(self, path: str, schema: str, base: str, targets: list[str]) -> str:
        return set_targets(self.prim(path), schema, base, targets)

    def read(self):
        return read_stage(self.stage)


def set_property(prim: Usd.Prim, schema: str, base: str, value: Any, instance: str | None = None) -> str:
    name = P.full_name(schema, base, instance)
    definition = P.schema_definition(schema)
    template = P._full_names(schema)[base]
    type_name = definition.GetAttributeDefinition(template).GetTypeName()
    attr = prim.GetAttribute(name) or prim.CreateAttribute(name, type_name, custom=False)
    attr.Set(_usd_value(type_name, value))
    return name


def set_targets(prim: Usd.Prim, schema: str, base: str, targets: list[str]) -> str:
    name = P.full_name(schema, base)
    prim.CreateRelationship(name, custom=False).SetTargets([Sdf.Path(t) for t in targets])
    return name


def new_stage(meters_per_unit: float | None = 1.0, kilograms_per_unit: float | None = 1.0,
              gravity_magnitude: float | None = None, scene: str = "/World/PhysicsScene") -> VehicleStage:
    """A stage with /World, a physics scene with a vehicle context (Z up, X forward), and the chosen units.

    None leaves a unit unauthored (USD's fallback metersPerUnit is 0.01). `gravity_magnitude` is in m/s^2;
    None leaves it unauthored (omni.physx: 9.81 m/s^2 in stage lengths)."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    if meters_per_unit is not None:
        UsdGeom.SetStageMetersPerUnit(stage, meters_per_unit)
    if kilograms_per_unit is not None:
        UsdPhysics.SetStageKilogramsPerUnit(stage, kilograms_per_unit)
    units = StageUnits.of(stage)
    stage.SetDefaultPrim(UsdGeom.Xform.Define(stage, "/World").GetPrim())
    usd_scene = UsdPhysics.Scene.Define(stage, scene)
    usd_scene.CreateGravityDirectionAttr(Gf.Vec3f(0, 0, -1))
    if gravity_magnitude is not None:
        usd_scene.CreateGravityMagnitudeAttr(gravity_magnitude * units.length_scale)
    prim = usd_scene.GetPrim()
    prim.ApplyAPI(P.CONTEXT)
    set_property(prim, P.CONTEXT, "verticalAxis", "posZ")
    set_property(prim, P.CONTEXT, "longitudinalAxis", "posX")
    return VehicleStage(stage=stage, units=units, scene=scene)


def build_vehicle(meters_per_unit: float | None = 1.0, kilograms_per_unit: float | None = 1.0, *,
                  drive: str = "standard", shared: bool = True, name: str = "Car",
                  values: dict[tuple[str, str], Any] | None = None, controls: bool = True,
                  autobox: bool = False, gravity_magnitude: float | None = None) -> VehicleStage:
    """A fresh stage holding one factory vehicle; see add_vehicle."""
    car = new_stage(meters_per_unit, kilograms_per_unit, gravity_magnitude)
    return add_vehicle(car, drive=drive, shared=shared, name=name, values=values, controls=controls, autobox=autobox)


def add_vehicle(car: VehicleStage, *, drive: str = "standard", shared: bool = True, name: str = "Car",
                values: dict[tuple[str, str], Any] | None = None, controls: bool = True, autobox: bool = False,
                parts: str | None = None, position: tuple = (0.0, 0.0, 0.6)) -> VehicleStage:
    """Author a vehicle at /World/<name> into car.stage and point car.vehicle/wheels/parts at it.

    drive: "standard" (engine, gears, clutch), "basic", "none" (wheel controllers drive the wheels) or "tank"
    (standard drive, tank differential and tank controller). controls: controller, brakes0/brakes1,
    steering and a multi-wheel differential (drive vehicles only). values: {(schema, base): value in stage
    units} authored on whichever prim carries that schema (the vehicle's own schemas on the vehicle prim;
    per-wheel schemas on every wheel).
    parts: where shared components live (default /World/<name>Parts); an existing parts scope is reused."""
    if drive not in DRIVES:
        raise ValueError(f"drive must be one of {DRIVES}")
    stage, units = car.stage, car.units
    path = f"/World/{name}"
    parts_root = parts or f"{path}Parts"
    values = dict(values or {})

    body = UsdGeom.Xform.Define(stage, path)
    body.AddTranslateOp().Set(Gf.Vec3d(*scaled(position, LENGTH, units)))
    prim = body.GetPrim()
    UsdPhysics.RigidBodyAPI.Apply(prim)
    mass = UsdPhysics.MassAPI.Apply(prim)
    mass.CreateMassAttr(MASS_KG * units.mass_scale)
    mass.CreateCenterOfMassAttr(Gf.Vec3f(0, 0, 0))
    mass.CreateDiagonalInertiaAttr(Gf.Vec3f(*scaled(INERTIA, MASS_LENGTH2, units)))
    mass.CreatePrincipalAxesAttr(Gf.Quatf(1, 0, 0, 0))
    prim.SetCustomDataByKey(REFERENCE_FRAME, False)
    prim.ApplyAPI(P.VEHICLE)

    owners: dict[str, Usd.Prim] = {P.VEHICLE: prim}
    every_owner: dict[str, list[Usd.Prim]] = {}   # schemas applied on each wheel attachment (shared=False)

    def component(kind: str, schema: str, owner_prims: list[Usd.Prim], owner_schema: str, rel: str) -> None:
        """A shared prim referenced by relationship from every owner, or the API applied on each owner."""
        if shared:
            target_path = f"{parts_root}/{kind}"
            target = stage.GetPrimAtPath(target_path)
            if not target:
                target = stage.DefinePrim(target_path, "Scope")
                target.ApplyAPI(schema)
                _author_required(target, schema, units)
            for owner in owner_prims:
                set_targets(owner, owner_schema, rel, [target_path])
            car.parts[kind] = target_path
            owners[schema] = target
        else:
            for owner in owner_prims:
                owner.ApplyAPI(schema)
                _author_required(owner, schema, units)
            car.parts[kind] = str(owner_prims[0].GetPath())
            owners[schema] = owner_prims[0]
            every_owner[schema] = list(owner_prims)

    if shared and not stage.GetPrimAtPath(parts_root):
        stage.DefinePrim(parts_root, "Scope")

    # drive: on a shared prim named by the vehicle's drive relationship, or on the vehicle prim itself
    drive_api = {"standard": P.DRIVE_STANDARD, "tank": P.DRIVE_STANDARD, "basic": P.DRIVE_BASIC}.get(drive)
    if drive_api is not None:
        if shared:
            drive_path = f"{parts_root}/Drive"
            drive_prim = stage.GetPrimAtPath(drive_path) or stage.DefinePrim(drive_path, "Scope")
            set_targets(prim, P.VEHICLE, "drive", [drive_path])
        else:
            drive_prim = prim
        drive_prim.ApplyAPI(drive_api)
        car.parts["drive"] = str(drive_prim.GetPath())
        owners[drive_api] = drive_prim
    if drive_api == P.DRIVE_STANDARD:
        component("Engine", P.ENGINE, [drive_prim], P.DRIVE_STANDARD, "engine")
        component("Gears", P.GEARS, [drive_prim], P.DRIVE_STANDARD, "gears")
        component("Clutch", P.CLUTCH, [drive_prim], P.DRIVE_STANDARD, "clutch")
        if autobox:
            component("AutoGearBox", P.AUTOBOX, [drive_prim], P.DRIVE_STANDARD, "autoGearBox")

    # wheel attachments
    attachments = []
    car.wheels = []
    for i, position_si in enumerate(WHEEL_POSITIONS):
        attachment = UsdGeom.Xform.Define(stage, f"{path}/Wheel{i}")
        attachment.AddTranslateOp().Set(Gf.Vec3d(*scaled(position_si, LENGTH, units)))
        a = attachment.GetPrim()
        a.ApplyAPI(P.ATTACHMENT)
        set_property(a, P.ATTACHMENT, "index", i)
        set_property(a, P.ATTACHMENT, "suspensionTravelDirection", (0.0, 0.0, -1.0))
        set_property(a, P.ATTACHMENT, "suspensionFramePosition", scaled(position_si, LENGTH, units))
        attachments.append(a)
        car.wheels.append(str(a.GetPath()))
    owners[P.ATTACHMENT] = attachments[0]
    every_owner[P.ATTACHMENT] = attachments
    component("Wheel", P.WHEEL, attachments, P.ATTACHMENT, "wheel")
    component("Tire", P.TIRE, attachments, P.ATTACHMENT, "tire")
    component("Suspension", P.SUSPENSION, attachments, P.ATTACHMENT, "suspension")

    if drive == "none":
        for a in attachments:
            a.ApplyAPI(P.WHEEL_CONTROLLER)
        owners[P.WHEEL_CONTROLLER] = attachments[0]
        every_owner[P.WHEEL_CONTROLLER] = attachments
    elif controls:
        prim.ApplyAPI(P.CONTROLLER)
        owners[P.CONTROLLER] = prim
        prim.ApplyAPI(P.BRAKES, "brakes0")
        set_property(prim, P.BRAKES, "maxBrakeTorque", scaled(3600.0, MASS_LENGTH2, units), "brakes0")
        prim.ApplyAPI(P.BRAKES, "brakes1")
        set_property(prim, P.BRAKES, "maxBrakeTorque", scaled(3000.0, MASS_LENGTH2, units), "brakes1")
        set_property(prim, P.BRAKES, "wheels", [2, 3], "brakes1")
        owners[P.BRAKES] = prim
        prim.ApplyAPI(P.STEERING)
        set_property(prim, P.STEERING, "maxSteerAngle", 0.5)
        set_property(prim, P.STEERING, "wheels", [0, 1])
        owners[P.STEERING] = prim
        prim.ApplyAPI(P.MULTI_DIFF)
        set_property(prim, P.MULTI_DIFF, "wheels", [0, 1, 2, 3])
        owners[P.MULTI_DIFF] = prim
    if drive == "tank":
        prim.ApplyAPI(P.TANK_DIFF)
        set_property(prim, P.TANK_DIFF, "numberOfWheelsPerTrack", [2, 2])
        set_property(prim, P.TANK_DIFF, "thrustIndexPerTrack", [0, 1])
        set_property(prim, P.TANK_DIFF, "trackToWheelIndices", [0, 2])
        set_property(prim, P.TANK_DIFF, "wheelIndicesInTrackOrder", [0, 2, 1, 3])
        if not prim.HasAPI(P.MULTI_DIFF):
            prim.ApplyAPI(P.MULTI_DIFF)
            set_property(prim, P.MULTI_DIFF, "wheels", [0, 1, 2, 3])
        prim.ApplyAPI(P.TANK_CONTROLLER)
        if not prim.HasAPI(P.CONTROLLER):
            prim.ApplyAPI(P.CONTROLLER)
        owners[P.TANK_DIFF] = owners[P.TANK_CONTROLLER] = owners[P.CONTROLLER] = prim

    for (schema, base), value in values.items():
        owner = owners.get(schema)
        if owner is None:
            raise KeyError(f"the factory vehicle has no prim carrying {schema}")
        if schema in P.MULTIPLE_APPLY:
            raise KeyError("author multiple-apply properties with VehicleStage.set")
        for each in every_owner.get(schema, [owner]):
            set_property(each, schema, base, value)

    car.vehicle = path
    return car


def _author_required(prim: Usd.Prim, schema: str, units: StageUnits) -> None:
    for (s, base), (value, dim) in REQUIRED.items():
        if s == schema:
            set_property(prim, schema, base, scaled(value, dim, units))


# -- whole vehicles from the authoring presets -------------------------------------------------------------

CAR_PRESETS = {"standard": ("car", {}), "basic": ("basic_car", {}), "none": ("car", {"drive": "none"})}


def car_spec(drive: str = "standard", name: str = "Car") -> VehicleSpec:
    """A preset car named `name`: "standard" the car (engine, automatic gearbox, front-wheel drive, Ackermann
    steering), "basic" the basic car, "none" the car's body with a wheel controller on every wheel."""
    preset, changes = CAR_PRESETS[drive]
    return preset_spec(preset, name=name, **changes)


def preset_stage(*specs: VehicleSpec, up: str = "Y", units: str = "m") -> Usd.Stage:
    """An in-memory stage holding the vehicle of every spec (distinct names), each authored by author_vehicle.

    Several specs are authored into stages of their own, which the returned stage sublayers (their scene,
    ground and friction table coincide); its root layer carries the stage metadata and takes the edits."""
    if len(specs) == 1:
        return author_vehicle(specs[0], units, up)
    parts = [author_vehicle(spec, units, up) for spec in specs]
    stage = Usd.Stage.CreateInMemory()
    stage.GetRootLayer().subLayerPaths = [part.GetRootLayer().identifier for part in parts]
    first = parts[0]
    UsdGeom.SetStageUpAxis(stage, UsdGeom.GetStageUpAxis(first))
    UsdGeom.SetStageMetersPerUnit(stage, UsdGeom.GetStageMetersPerUnit(first))
    UsdPhysics.SetStageKilogramsPerUnit(stage, UsdPhysics.GetStageKilogramsPerUnit(first))
    stage.SetDefaultPrim(stage.GetPrimAtPath("/World"))
    _merge_collision_groups(stage, parts)
    return stage


def _merge_collision_groups(stage: Usd.Stage, parts: list[Usd.Stage]) -> None:
    """Each part sets its groups' members as an explicit list, and the strongest sublayer's list wins: without the
    union on the root layer every vehicle but the first would have its wheel shapes collide with the ground."""
    for prim in stage.Traverse():
        if not prim.IsA(UsdPhysics.CollisionGroup):
            continue
        members: list[Sdf.Path] = []
        for part in parts:
            rel = UsdPhysics.CollisionGroup(part.GetPrimAtPath(prim.GetPath())).GetCollidersCollectionAPI().GetIncludesRel()
            members += [t for t in (rel.GetTargets() if rel else []) if t not in members]
        if members:
            UsdPhysics.CollisionGroup(prim).GetCollidersCollectionAPI().CreateIncludesRel().SetTargets(members)


def add_copies(stage: Usd.Stage, source: str, paths: list[str]) -> list[str]:
    """A vehicle at each path, an internal reference to the vehicle prim at `source` (its shared parts stay shared).
    A collision group outside the source that lists the source's shapes lists each copy's too: a reference does not
    reach it, and a copy's wheel shapes would otherwise collide with the ground."""
    for path in paths:
        stage.DefinePrim(path).GetReferences().AddInternalReference(source)
    root = Sdf.Path(source)
    for prim in stage.Traverse():
        if not prim.IsA(UsdPhysics.CollisionGroup) or prim.GetPath().HasPrefix(root):
            continue
        includes = UsdPhysics.CollisionGroup(prim).GetCollidersCollectionAPI().GetIncludesRel()
        members = list(includes.GetTargets()) if includes else []
        copies = [m.ReplacePrefix(root, Sdf.Path(path)) for path in paths for m in members if m.HasPrefix(root)]
        if copies:
            includes.SetTargets(members + [c for c in copies if c not in members])
    return list(paths)


def translate(stage: Usd.Stage, path: str, offset: tuple[float, float, float]) -> None:
    """Move a vehicle prim by `offset` (stage units) from where it stands."""
    attr = stage.GetPrimAtPath(path).GetAttribute("xformOp:translate")
    attr.Set(attr.Get() + Gf.Vec3d(*offset))


def set_velocity(stage: Usd.Stage, path: str, velocity: tuple[float, float, float]) -> None:
    """The initial linear velocity of a vehicle prim (stage units per second)."""
    UsdPhysics.RigidBodyAPI(stage.GetPrimAtPath(path)).CreateVelocityAttr(Gf.Vec3f(*velocity))


def author(stage: Usd.Stage, path: str, schema: str, base: str, value: Any, instance: str | None = None) -> str:
    """Author a schema property on the prim at `path` (set_property); returns the attribute name."""
    return set_property(stage.GetPrimAtPath(path), schema, base, value, instance)


def target_of(stage: Usd.Stage, path: str, schema: str, base: str) -> str:
    """The prim a schema relationship of the prim at `path` names (a vehicle's drive, a drive's engine, ...)."""
    return str(stage.GetPrimAtPath(path).GetRelationship(P.full_name(schema, base)).GetTargets()[0])
