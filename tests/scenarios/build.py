"""Author the conformance-scenario stages from the sample car (run: python tests/scenarios/build.py).

Every stage is derived from samples/car/car.usda with Sdf edits, so the scenarios share one tested
vehicle and differ only where a scenario needs them to:

  fleet.usda   metres/kilograms, several vehicles far apart on one ground plane so one ovphysx run
               steps them all: FixedGear, Autobox, Braking, Turning, Handbrake (standard drive, the
               sample car), Tank (standard drive + tank differential + tank controller, tracks =
               left and right wheel pairs), Raw (no drive, PhysxVehicleWheelControllerAPI on every
               wheel), Basic (PhysxVehicleDriveBasicAPI), Defaults (every vehicle, engine, gears,
               clutch and autobox attribute with a sentinel or parser default left unauthored), Actor
               (PhysxRigidBodyAPI damping, velocity limits, iterations and gyroscopic term not omni.physx's defaults).
  car_grams.usda  the sample car with kilogramsPerUnit = 0.001: every mass-carrying value x 1000.

The centimetre car is samples/car_cm/car_cm.usda itself. The controls of each scenario live in
tests/test_conformance_ovphysx.py; the stages only hold what PhysX reads at creation.
"""
from __future__ import annotations

import sys
from pathlib import Path

from pxr import Sdf

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parents[1] / "samples" / "car" / "car.usda"
CAR = Sdf.Path("/World/Car")
WHEELS = ("FrontLeftWheel", "FrontRightWheel", "RearLeftWheel", "RearRightWheel")

# vehicle name -> lateral position [m]. Turning vehicles sit at the ends, so their circles (radius
# about 18 m at steer 0.3) cannot reach a neighbour.
FLEET = {"Turning": 120.0, "FixedGear": 60.0, "Autobox": 45.0, "Braking": 30.0, "Tank": 15.0, "Raw": 0.0,
         "Basic": -15.0, "Defaults": -30.0, "Actor": -75.0, "Handbrake": -120.0}

# Actor: PhysxRigidBodyAPI settings other than omni.physx's defaults, tight enough that the velocity limits act
# in its run (full throttle, then a turn) and the damping and iteration count change the figures.
ACTOR_SETTINGS = (("linearDamping", Sdf.ValueTypeNames.Float, 0.3), ("angularDamping", Sdf.ValueTypeNames.Float, 2.0),
                  ("maxLinearVelocity", Sdf.ValueTypeNames.Float, 10.0),
                  ("maxAngularVelocity", Sdf.ValueTypeNames.Float, 20.0),  # deg/s
                  ("solverPositionIterationCount", Sdf.ValueTypeNames.Int, 4),
                  ("enableGyroscopicForces", Sdf.ValueTypeNames.Bool, False))


def _set(spec: Sdf.PrimSpec, name: str, type_name: Sdf.ValueTypeName, value) -> None:
    attr = spec.attributes.get(name) or Sdf.AttributeSpec(spec, name, type_name)
    attr.default = value


def _remove(spec: Sdf.PrimSpec, *names: str) -> None:
    for name in names:
        if name in spec.properties:
            spec.RemoveProperty(spec.properties[name])


def _set_api(spec: Sdf.PrimSpec, add: tuple[str, ...] = (), remove: tuple[str, ...] = ()) -> None:
    items = [a for a in spec.GetInfo("apiSchemas").prependedItems if a not in remove]
    spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=items + [a for a in add if a not in items]))


def _copy_car(layer: Sdf.Layer, name: str, y: float) -> Sdf.PrimSpec:
    dest = Sdf.Path(f"/World/{name}")
    Sdf.CopySpec(layer, CAR, layer, dest)  # relationships inside the car are re-targeted to the copy
    spec = layer.GetPrimAtPath(dest)
    spec.attributes["xformOp:translate"].default = (0.0, y, 0.55)
    return spec


def _parts_copy(layer: Sdf.Layer, source: str, name: str) -> Sdf.PrimSpec:
    dest = Sdf.Path(f"/World/CarParts/{name}")
    Sdf.CopySpec(layer, Sdf.Path(f"/World/CarParts/{source}"), layer, dest)
    return layer.GetPrimAtPath(dest)


def build_fleet(layer: Sdf.Layer) -> None:
    specs = {name: _copy_car(layer, name, y) for name, y in FLEET.items()}
    world = layer.GetPrimAtPath("/World")
    del world.nameChildren[CAR.name]

    # Tank: tracks are the left (0, 2) and right (1, 3) wheel pairs, thrust0 drives the left track.
    tank = specs["Tank"]
    _set_api(tank, add=("PhysxVehicleTankDifferentialAPI", "PhysxVehicleTankControllerAPI"),
             remove=("PhysxVehicleAckermannSteeringAPI",))
    _remove(tank, *[p.name for p in tank.properties if p.name.startswith("physxVehicleAckermannSteering:")])
    _set(tank, "physxVehicleTankDifferential:numberOfWheelsPerTrack", Sdf.ValueTypeNames.IntArray, [2, 2])
    _set(tank, "physxVehicleTankDifferential:thrustIndexPerTrack", Sdf.ValueTypeNames.IntArray, [0, 1])
    _set(tank, "physxVehicleTankDifferential:trackToWheelIndices", Sdf.ValueTypeNames.IntArray, [0, 2])
    _set(tank, "physxVehicleTankDifferential:wheelIndicesInTrackOrder", Sdf.ValueTypeNames.IntArray, [0, 2, 1, 3])
    _set(tank, "physxVehicleTankController:thrust0", Sdf.ValueTypeNames.Float, 0.0)
    _set(tank, "physxVehicleTankController:thrust1", Sdf.ValueTypeNames.Float, 0.0)

    actor = specs["Actor"]
    for name, type_name, value in ACTOR_SETTINGS:
        _set(actor, f"physxRigidBody:{name}", type_name, value)

    # Raw: no drive, no brakes, no steering, no controller; the wheels take torques and angles directly.
    raw = specs["Raw"]
    _set_api(raw, remove=("PhysxVehicleControllerAPI", "PhysxVehicleBrakesAPI:brakes0", "PhysxVehicleBrakesAPI:brakes1",
                          "PhysxVehicleAckermannSteeringAPI", "PhysxVehicleMultiWheelDifferentialAPI"))
    _remove(raw, "physxVehicle:drive", *[p.name for p in raw.properties if p.name.startswith(
        ("physxVehicleController:", "physxVehicleBrakes:", "physxVehicleAckermannSteering:", "physxVehicleMultiWheelDifferential:"))])
    for wheel in WHEELS:
        w = layer.GetPrimAtPath(f"/World/Raw/{wheel}")
        _set_api(w, add=("PhysxVehicleWheelControllerAPI",))
        for name in ("driveTorque", "brakeTorque", "steerAngle"):
            _set(w, f"physxVehicleWheelController:{name}", Sdf.ValueTypeNames.Float, 0.0)

    # Basic: a direct drive of 1000 N m peak, split 25 % per wheel by the multi-wheel differential.
    basic_drive = Sdf.CreatePrimInLayer(layer, "/World/CarParts/DriveBasic")
    basic_drive.specifier = Sdf.SpecifierDef
    basic_drive.typeName = "Scope"
    _set_api(basic_drive, add=("PhysxVehicleDriveBasicAPI",))
    _set(basic_drive, "physxVehicleDriveBasic:peakTorque", Sdf.ValueTypeNames.Float, 1000.0)
    specs["Basic"].relationships["physxVehicle:drive"].targetPathList.explicitItems = ["/World/CarParts/DriveBasic"]

    # Defaults: a drive whose engine, gears, clutch and autobox author nothing, and a vehicle prim
    # without the attributes whose sentinel (or absence) means "the parser's default".
    parts = {}
    for kind, api in (("Engine", "PhysxVehicleEngineAPI"), ("Gears", "PhysxVehicleGearsAPI"),
                      ("Clutch", "PhysxVehicleClutchAPI"), ("AutoGearBox", "PhysxVehicleAutoGearBoxAPI")):
        prim = Sdf.CreatePrimInLayer(layer, f"/World/CarParts/Default{kind}")
        prim.specifier = Sdf.SpecifierDef
        prim.typeName = "Scope"
        _set_api(prim, add=(api,))
        parts[kind] = prim.path
    drive = _parts_copy(layer, "DriveStandard", "DefaultDriveStandard")
    for kind, prim_path in parts.items():
        rel = {"Engine": "engine", "Gears": "gears", "Clutch": "clutch", "AutoGearBox": "autoGearBox"}[kind]
        drive.relationships[f"physxVehicleDriveStandard:{rel}"].targetPathList.explicitItems = [prim_path]
    defaults = specs["Defaults"]
    defaults.relationships["physxVehicle:drive"].targetPathList.explicitItems = [drive.path]
    # The sub-step counts stay authored: with the defaults (3 / 1) this car's wheels chatter for seconds
    # at launch (a period-2 cycle of the explicit tire torque) in PhysX and here alike, which no
    # trace comparison can follow.
    _remove(defaults, "physxVehicle:subStepThresholdLongitudinalSpeed", "physxVehicle:minActiveLongitudinalSlipDenominator",
            "physxVehicle:minLateralSlipDenominator", "physxVehicle:longitudinalStickyTireThresholdSpeed",
            "physxVehicle:lateralStickyTireThresholdSpeed", "physxVehicle:suspensionLineQueryType",
            "physxVehicle:limitSuspensionExpansionVelocity", "physxVehicleBrakes:brakes0:wheels",
            "physxVehicleBrakes:brakes0:torqueMultipliers", "physxVehicleAckermannSteering:strength",
            "physxVehicleController:accelerator", "physxVehicleController:brake0", "physxVehicleController:brake1",
            "physxVehicleController:steer", "physxVehicleController:targetGear")


def mass_scaled_attributes(layer: Sdf.Layer, factor: float) -> int:
    """Multiply every value that carries mass (kg, kg m, kg m^2 ...) by `factor`; returns how many changed."""
    import physxvehicle_usd  # noqa: F401  (registers our schema, so the property table can name attributes)
    from physxvehicle_usd import properties as P

    by_name = {}
    for row in P.TABLE_ROWS:
        if not P.is_schema_property(row.schema, row.base):
            continue
        instances = P.MULTIPLE_APPLY.get(row.schema, (None,))
        for inst in instances:
            by_name[P.full_name(row.schema, row.base, inst)] = row
    extra = {"physics:mass": 1, "physics:diagonalInertia": 1}
    changed = 0

    def visit(path: Sdf.Path) -> None:
        nonlocal changed
        if not path.IsPropertyPath():
            return
        attr = layer.GetAttributeAtPath(path)
        if attr is None or attr.default is None:
            return
        row = by_name.get(attr.name)
        if row is not None:
            dims = row.component_dims
            if dims is None and row.dim.mass == 0:
                return
        elif attr.name not in extra:
            return
        value = attr.default
        if row is not None and row.component_dims is not None:
            scale = [factor ** d.mass for d in row.component_dims]
            if hasattr(value, "__len__") and len(value) and hasattr(value[0], "__len__"):
                value = type(value)([tuple(c * s for c, s in zip(v, scale)) for v in value])
            else:
                value = type(value)(*[c * s for c, s in zip(value, scale)])
        else:
            exp = row.dim.mass if row is not None else extra[attr.name]
            s = factor ** exp
            if hasattr(value, "__len__"):
                value = type(value)(*[c * s for c in value]) if not isinstance(value, (list, tuple)) else type(value)(c * s for c in value)
            else:
                value = value * s
        attr.default = value
        changed += 1

    layer.Traverse(Sdf.Path.absoluteRootPath, visit)
    return changed


def build(out_dir: Path = HERE) -> list[Path]:
    fleet = Sdf.Layer.CreateAnonymous(".usda")
    fleet.TransferContent(Sdf.Layer.FindOrOpen(str(SAMPLE)))
    build_fleet(fleet)
    fleet.documentation = ("Conformance fleet: the sample car in several configurations, far apart on one ground "
                           "plane (generated by tests/scenarios/build.py; do not edit).")
    grams = Sdf.Layer.CreateAnonymous(".usda")
    grams.TransferContent(Sdf.Layer.FindOrOpen(str(SAMPLE)))
    n = mass_scaled_attributes(grams, 1000.0)
    if n < 15:
        raise RuntimeError(f"only {n} mass-carrying attributes found in the sample car")
    grams.pseudoRoot.SetInfo("kilogramsPerUnit", 0.001)
    grams.documentation = ("The sample car in grams (kilogramsPerUnit = 0.001): every mass-carrying value x 1000 "
                           "(generated by tests/scenarios/build.py; do not edit).")
    written = []
    for layer, name in ((fleet, "fleet.usda"), (grams, "car_grams.usda")):
        path = out_dir / name
        layer.Export(str(path))
        written.append(path)
    return written


if __name__ == "__main__":
    for p in build(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE):
        print(p)
