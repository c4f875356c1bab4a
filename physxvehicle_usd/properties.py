"""The one table of vehicle property metadata: dimension, sentinel, resolved default, valid range.

Names and types come from the registered schema (schema/schema.usda); this table adds what the schema
cannot say: how a value scales with stage units, which value means "use the parser's default", what that
default is (in SI, scaled to the stage when resolved) and the range the PhysX USD parser accepts.
Reading, writing, validation, unit conversion and the docs all use it; `tests/test_properties.py` fails
when it and the schema disagree.

Keys are (schema identifier, property base name); the full attribute name is looked up in the schema
registry (`full_name`), so no attribute name is spelled twice.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from pxr import Usd

from .units import LENGTH, MASS, MASS_LENGTH, MASS_LENGTH2, NONE, Dim, StageUnits, scale_value

FLT_MAX = 3.4028234663852886e38
SQRT_FLT_MAX = 1.8446742974197924e19  # float32(sqrt(FLT_MAX)), omni.physx's cap for velocity limits
FLT_MIN = 1.1754943508222875e-38
FLT_EPSILON = 1.1920928955078125e-07
INF = math.inf
HALF_PI = math.pi / 2


@dataclass(frozen=True)
class Range:
    """Accepted values as PhysX's checkParamInRange(v, lo, hi): lo <= v < hi, plus listed sentinels."""

    lo: float = -INF
    hi: float = INF
    hi_inclusive: bool = False
    sentinels: tuple = ()

    def accepts(self, value: float) -> bool:
        if self.lo <= value < self.hi:  # inside the range proper: accepted whatever the sentinels (the common case)
            return True
        if value in self.sentinels:
            return True
        if isinstance(value, float) and math.isnan(value):
            return False
        upper_ok = value <= self.hi if self.hi_inclusive else value < self.hi
        return self.lo <= value and upper_ok

    def describe(self) -> str:
        lo = "-inf" if self.lo == -INF else ("0+" if self.lo == FLT_MIN else f"{self.lo:g}")
        hi = "inf" if self.hi in (INF, FLT_MAX) else f"{self.hi:g}"
        text = f"[{lo}, {hi}{']' if self.hi_inclusive else ')'}"
        if self.sentinels:
            text += " or " + " / ".join(f"{s:g}" for s in self.sentinels)
        return text


NON_NEGATIVE = Range(0.0, FLT_MAX)
POSITIVE = Range(FLT_MIN, FLT_MAX)
UNIT_INTERVAL = Range(0.0, 1.0 + FLT_EPSILON)
SIGNED_UNIT = Range(-1.0, 1.0 + FLT_EPSILON)
HALF_PI_OPEN = Range(-HALF_PI, HALF_PI)


@dataclass(frozen=True)
class Prop:
    schema: str
    base: str
    unit: str = ""               # SI unit, for docs and inspection
    dim: Dim = NONE              # the quantity's dimension: how its value scales with stage units
    default: object = None       # the parser's default in SI (scaled by dim when resolved); None = no default
    sentinel: object = None      # the value that means "use the default" (None: only "no value" does)
    range: Range | None = None   # the parser's accepted range for scalars
    range_code: str = ""         # diagnostic code when out of range
    deprecated_by: str = ""      # the property (or schema) that replaces it
    notes: str = ""
    # for tuple-valued properties whose components have different dimensions (graphs, app points)
    component_dims: tuple[Dim, ...] | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.schema, self.base)


def _p(schema: str, base: str, **kw) -> Prop:
    return Prop(schema, base, **kw)


CONTEXT = "PhysxVehicleContextAPI"
TABLE = "PhysxVehicleTireFrictionTable"
WHEEL = "PhysxVehicleWheelAPI"
TIRE = "PhysxVehicleTireAPI"
SUSPENSION = "PhysxVehicleSuspensionAPI"
ATTACHMENT = "PhysxVehicleWheelAttachmentAPI"
COMPLIANCE = "PhysxVehicleSuspensionComplianceAPI"
ENGINE = "PhysxVehicleEngineAPI"
GEARS = "PhysxVehicleGearsAPI"
AUTOBOX = "PhysxVehicleAutoGearBoxAPI"
CLUTCH = "PhysxVehicleClutchAPI"
DRIVE_BASIC = "PhysxVehicleDriveBasicAPI"
DRIVE_STANDARD = "PhysxVehicleDriveStandardAPI"
MULTI_DIFF = "PhysxVehicleMultiWheelDifferentialAPI"
TANK_DIFF = "PhysxVehicleTankDifferentialAPI"
BRAKES = "PhysxVehicleBrakesAPI"
STEERING = "PhysxVehicleSteeringAPI"
ACKERMANN = "PhysxVehicleAckermannSteeringAPI"
VEHICLE = "PhysxVehicleAPI"
CONTROLLER = "PhysxVehicleControllerAPI"
TANK_CONTROLLER = "PhysxVehicleTankControllerAPI"
WHEEL_CONTROLLER = "PhysxVehicleWheelControllerAPI"
NCR = "PhysxVehicleNonlinearCommandResponseAPI"

MULTIPLE_APPLY = {BRAKES: ("brakes0", "brakes1"), NCR: ("steer", "brakes0", "brakes1", "drive")}

N_M = "N*m"
TABLE_ROWS: tuple[Prop, ...] = (
    # -- context (on the PhysicsScene)
    _p(CONTEXT, "updateMode", default="velocityChange"),
    _p(CONTEXT, "verticalAxis", sentinel="undefined", deprecated_by=""),
    _p(CONTEXT, "longitudinalAxis", sentinel="undefined"),
    _p(CONTEXT, "upAxis", deprecated_by="verticalAxis"),
    _p(CONTEXT, "forwardAxis", deprecated_by="longitudinalAxis"),
    # -- tire friction table
    _p(TABLE, "groundMaterials"),
    _p(TABLE, "frictionValues", unit="1"),
    _p(TABLE, "defaultFrictionValue", unit="1", range=NON_NEGATIVE, range_code="V08"),
    # -- wheel
    _p(WHEEL, "radius", unit="m", dim=LENGTH, range=NON_NEGATIVE, range_code="V14"),
    _p(WHEEL, "width", unit="m", dim=LENGTH, range=NON_NEGATIVE, range_code="V14"),
    _p(WHEEL, "mass", unit="kg", dim=MASS, range=NON_NEGATIVE, range_code="V14"),
    _p(WHEEL, "moi", unit="kg*m^2", dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V14"),
    _p(WHEEL, "dampingRate", unit="kg*m^2/s", dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V14"),
    _p(WHEEL, "maxBrakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V15", deprecated_by=BRAKES + ":brakes0"),
    _p(WHEEL, "maxHandBrakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V15", deprecated_by=BRAKES + ":brakes1"),
    _p(WHEEL, "maxSteerAngle", unit="rad", range=HALF_PI_OPEN, range_code="V16", deprecated_by=STEERING),
    _p(WHEEL, "toeAngle", unit="rad", range=HALF_PI_OPEN, range_code="V16", deprecated_by=COMPLIANCE + ":wheelToeAngle"),
    # -- tire
    _p(TIRE, "lateralStiffnessGraph", unit="(1, N)", sentinel=(0.0, 0.0), component_dims=(NONE, MASS_LENGTH)),
    _p(TIRE, "latStiffX", unit="1", default=2.0, range=NON_NEGATIVE, range_code="V19", deprecated_by="lateralStiffnessGraph"),
    _p(TIRE, "latStiffY", unit="1", default=17.095, range=NON_NEGATIVE, range_code="V19", deprecated_by="lateralStiffnessGraph"),
    _p(TIRE, "longitudinalStiffness", unit="N", dim=MASS_LENGTH, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V20"),
    _p(TIRE, "longitudinalStiffnessPerUnitGravity", unit="kg", dim=MASS, default=500.0, range=NON_NEGATIVE, range_code="V21", deprecated_by="longitudinalStiffness"),
    _p(TIRE, "camberStiffness", unit="N/rad", dim=MASS_LENGTH, sentinel=-1.0, range=Range(0.0, INF, sentinels=(-1.0,)), range_code="V22"),
    _p(TIRE, "camberStiffnessPerUnitGravity", unit="kg/rad", dim=MASS, default=0.0, range=NON_NEGATIVE, range_code="V23", deprecated_by="camberStiffness"),
    _p(TIRE, "frictionVsSlipGraph", unit="(1, 1)", default=((0.0, 1.0), (0.1, 1.0), (1.0, 1.0))),
    _p(TIRE, "frictionTable"),
    _p(TIRE, "restLoad", unit="N", dim=MASS_LENGTH, sentinel=0.0, range=NON_NEGATIVE, range_code="V27"),
    # -- suspension
    _p(SUSPENSION, "springStrength", unit="N/m", dim=MASS, range=NON_NEGATIVE, range_code="V28"),
    _p(SUSPENSION, "springDamperRate", unit="N*s/m", dim=MASS, range=NON_NEGATIVE, range_code="V28"),
    _p(SUSPENSION, "travelDistance", unit="m", dim=LENGTH, range=Range(FLT_MIN, INF), range_code="V29"),
    _p(SUSPENSION, "maxCompression", unit="m", dim=LENGTH, range=NON_NEGATIVE, range_code="V30", deprecated_by="travelDistance"),
    _p(SUSPENSION, "maxDroop", unit="m", dim=LENGTH, deprecated_by="travelDistance"),
    _p(SUSPENSION, "sprungMass", unit="kg", dim=MASS, sentinel=0.0, range=NON_NEGATIVE, range_code="V32"),
    _p(SUSPENSION, "camberAtRest", unit="rad", range=HALF_PI_OPEN, range_code="V33", deprecated_by=COMPLIANCE + ":wheelCamberAngle"),
    _p(SUSPENSION, "camberAtMaxCompression", unit="rad", range=HALF_PI_OPEN, range_code="V33", deprecated_by=COMPLIANCE + ":wheelCamberAngle"),
    _p(SUSPENSION, "camberAtMaxDroop", unit="rad", range=HALF_PI_OPEN, range_code="V33", deprecated_by=COMPLIANCE + ":wheelCamberAngle"),
    # -- wheel attachment
    _p(ATTACHMENT, "index", sentinel=-1, range=Range(-1, 20), range_code="V38"),
    _p(ATTACHMENT, "wheel"),
    _p(ATTACHMENT, "tire"),
    _p(ATTACHMENT, "suspension"),
    _p(ATTACHMENT, "collisionGroup"),
    _p(ATTACHMENT, "suspensionTravelDirection", unit="1"),
    _p(ATTACHMENT, "suspensionFramePosition", unit="m", dim=LENGTH),
    _p(ATTACHMENT, "suspensionFrameOrientation", unit="quat"),
    _p(ATTACHMENT, "wheelFramePosition", unit="m", dim=LENGTH),
    _p(ATTACHMENT, "wheelFrameOrientation", unit="quat"),
    _p(ATTACHMENT, "wheelCenterOfMassOffset", unit="m", dim=LENGTH, deprecated_by="suspensionFramePosition"),
    _p(ATTACHMENT, "suspensionForceAppPointOffset", unit="m", dim=LENGTH, deprecated_by=COMPLIANCE + ":suspensionForceAppPoint"),
    _p(ATTACHMENT, "tireForceAppPointOffset", unit="m", dim=LENGTH, deprecated_by=COMPLIANCE + ":tireForceAppPoint"),
    _p(ATTACHMENT, "driven", default=False, deprecated_by=MULTI_DIFF),
    # -- compliance (graphs keyed by normalized jounce; app points carry lengths in y..w)
    _p(COMPLIANCE, "wheelToeAngle", unit="(1, rad)", default=()),
    _p(COMPLIANCE, "wheelCamberAngle", unit="(1, rad)", default=()),
    _p(COMPLIANCE, "suspensionForceAppPoint", unit="(1, m, m, m)", default=(), component_dims=(NONE, LENGTH, LENGTH, LENGTH)),
    _p(COMPLIANCE, "tireForceAppPoint", unit="(1, m, m, m)", default=(), component_dims=(NONE, LENGTH, LENGTH, LENGTH)),
    # -- engine
    _p(ENGINE, "moi", unit="kg*m^2", dim=MASS_LENGTH2, default=1.0, range=POSITIVE, range_code="V47"),
    _p(ENGINE, "peakTorque", unit=N_M, dim=MASS_LENGTH2, default=500.0, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48"),
    _p(ENGINE, "maxRotationSpeed", unit="rad/s", range=NON_NEGATIVE, range_code="V49"),
    _p(ENGINE, "idleRotationSpeed", unit="rad/s", range=NON_NEGATIVE, range_code="V49"),
    _p(ENGINE, "torqueCurve", unit="(1, 1)", default=((0.0, 0.8), (0.33, 1.0), (1.0, 0.8))),
    _p(ENGINE, "dampingRateFullThrottle", unit="kg*m^2/s", dim=MASS_LENGTH2, default=0.15, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48"),
    _p(ENGINE, "dampingRateZeroThrottleClutchEngaged", unit="kg*m^2/s", dim=MASS_LENGTH2, default=2.0, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48"),
    _p(ENGINE, "dampingRateZeroThrottleClutchDisengaged", unit="kg*m^2/s", dim=MASS_LENGTH2, default=0.35, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48"),
    # -- gears, autobox, clutch
    _p(GEARS, "ratios", unit="1", default=(-4.0, 4.0, 2.0, 1.5, 1.1, 1.0)),
    _p(GEARS, "ratioScale", unit="1", default=4.0, range=POSITIVE, range_code="V57"),
    _p(GEARS, "switchTime", unit="s", default=0.5, range=NON_NEGATIVE, range_code="V57"),
    _p(AUTOBOX, "upRatios", unit="1", default=0.65, notes="default: one 0.65 per forward gear but the last"),
    _p(AUTOBOX, "downRatios", unit="1", default=0.5, notes="default: one 0.5 per forward gear but the last"),
    _p(AUTOBOX, "latency", unit="s", default=2.0, range=NON_NEGATIVE, range_code="V61"),
    _p(CLUTCH, "strength", unit="kg*m^2/s", dim=MASS_LENGTH2, default=10.0, range=POSITIVE, range_code="V62"),
    # -- drives
    _p(DRIVE_BASIC, "peakTorque", unit=N_M, dim=MASS_LENGTH2, default=1000.0, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V63"),
    _p(DRIVE_STANDARD, "engine"),
    _p(DRIVE_STANDARD, "gears"),
    _p(DRIVE_STANDARD, "autoGearBox"),
    _p(DRIVE_STANDARD, "clutch"),
    # -- differentials
    _p(MULTI_DIFF, "wheels", default=()),
    _p(MULTI_DIFF, "torqueRatios", unit="1", default=()),
    _p(MULTI_DIFF, "averageWheelSpeedRatios", unit="1", default=()),
    _p(TANK_DIFF, "numberOfWheelsPerTrack", default=()),
    _p(TANK_DIFF, "thrustIndexPerTrack", default=()),
    _p(TANK_DIFF, "trackToWheelIndices", default=()),
    _p(TANK_DIFF, "wheelIndicesInTrackOrder", default=()),
    # -- brakes (multiple-apply: brakes0, brakes1)
    _p(BRAKES, "wheels", default=()),
    _p(BRAKES, "maxBrakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V106"),
    _p(BRAKES, "torqueMultipliers", unit="1", default=()),
    # -- steering
    _p(STEERING, "wheels", default=()),
    _p(STEERING, "maxSteerAngle", unit="rad"),
    _p(STEERING, "angleMultipliers", unit="1", default=()),
    _p(ACKERMANN, "wheel0"),
    _p(ACKERMANN, "wheel1"),
    _p(ACKERMANN, "maxSteerAngle", unit="rad"),
    _p(ACKERMANN, "wheelBase", unit="m", dim=LENGTH, range=Range(FLT_MIN, INF), range_code="V116"),
    _p(ACKERMANN, "trackWidth", unit="m", dim=LENGTH, range=Range(FLT_MIN, INF), range_code="V116"),
    _p(ACKERMANN, "strength", unit="1", range=UNIT_INTERVAL, range_code="V117"),
    # -- vehicle
    _p(VEHICLE, "vehicleEnabled"),
    _p(VEHICLE, "drive"),
    _p(VEHICLE, "suspensionLineQueryType"),
    _p(VEHICLE, "limitSuspensionExpansionVelocity"),
    _p(VEHICLE, "subStepThresholdLongitudinalSpeed", unit="m/s", dim=LENGTH, default=5.0, range=NON_NEGATIVE, range_code="V73"),
    _p(VEHICLE, "lowForwardSpeedSubStepCount", default=3, range=Range(1, INF), range_code="V74"),
    _p(VEHICLE, "highForwardSpeedSubStepCount", default=1, range=Range(1, INF), range_code="V74"),
    _p(VEHICLE, "minLongitudinalSlipDenominator", unit="m/s", dim=LENGTH, default=4.0, range=NON_NEGATIVE, range_code="V77", deprecated_by="minPassiveLongitudinalSlipDenominator"),
    _p(VEHICLE, "minPassiveLongitudinalSlipDenominator", unit="m/s", dim=LENGTH, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V76"),
    _p(VEHICLE, "minActiveLongitudinalSlipDenominator", unit="m/s", dim=LENGTH, default=0.1, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V78"),
    _p(VEHICLE, "minLateralSlipDenominator", unit="m/s", dim=LENGTH, default=1.0, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V78"),
    _p(VEHICLE, "longitudinalStickyTireThresholdSpeed", unit="m/s", dim=LENGTH, default=0.2, sentinel=-1.0, range=Range(0.0, INF, sentinels=(-1.0,)), range_code="V79"),
    _p(VEHICLE, "longitudinalStickyTireThresholdTime", unit="s", range=NON_NEGATIVE, range_code="V80"),
    _p(VEHICLE, "longitudinalStickyTireDamping", unit="1/s", range=NON_NEGATIVE, range_code="V80"),
    _p(VEHICLE, "lateralStickyTireThresholdSpeed", unit="m/s", dim=LENGTH, default=0.2, sentinel=-1.0, range=Range(0.0, INF, sentinels=(-1.0,)), range_code="V79"),
    _p(VEHICLE, "lateralStickyTireThresholdTime", unit="s", range=NON_NEGATIVE, range_code="V80"),
    _p(VEHICLE, "lateralStickyTireDamping", unit="1/s", range=NON_NEGATIVE, range_code="V80"),
    # -- controllers
    _p(CONTROLLER, "accelerator", unit="1", range=UNIT_INTERVAL, range_code="V131"),
    _p(CONTROLLER, "brake0", unit="1", range=UNIT_INTERVAL, range_code="V131"),
    _p(CONTROLLER, "brake1", unit="1", range=UNIT_INTERVAL, range_code="V131"),
    _p(CONTROLLER, "steer", unit="1", range=SIGNED_UNIT, range_code="V131"),
    _p(CONTROLLER, "targetGear", range=Range(-1, 31, sentinels=(255,)), range_code="V133"),
    _p(CONTROLLER, "brake", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="brake0"),
    _p(CONTROLLER, "handbrake", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="brake1"),
    _p(CONTROLLER, "steerLeft", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="steer"),
    _p(CONTROLLER, "steerRight", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="steer"),
    _p(TANK_CONTROLLER, "thrust0", unit="1", range=SIGNED_UNIT, range_code="V136"),
    _p(TANK_CONTROLLER, "thrust1", unit="1", range=SIGNED_UNIT, range_code="V136"),
    _p(WHEEL_CONTROLLER, "driveTorque", unit=N_M, dim=MASS_LENGTH2),
    _p(WHEEL_CONTROLLER, "brakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V91"),
    _p(WHEEL_CONTROLLER, "steerAngle", unit="rad"),
    # -- nonlinear command response (multiple-apply: steer, brakes0, brakes1, drive)
    _p(NCR, "commandValues", unit="1", default=()),
    _p(NCR, "speedResponsesPerCommandValue", default=()),
    _p(NCR, "speedResponses", unit="(m/s, 1)", default=(), component_dims=(LENGTH, NONE)),
)

# Quantities of the description that do not come from a vehicle schema but still carry units.
RIGID_BODY = "rigidBody"
SCENE = "scene"
DERIVED_ROWS: tuple[Prop, ...] = (
    _p(RIGID_BODY, "mass", unit="kg", dim=MASS),
    _p(RIGID_BODY, "centerOfMass", unit="m", dim=LENGTH),
    _p(RIGID_BODY, "diagonalInertia", unit="kg*m^2", dim=MASS_LENGTH2),
    _p(RIGID_BODY, "principalAxes", unit="quat"),
    _p(RIGID_BODY, "position", unit="m", dim=LENGTH),
    _p(RIGID_BODY, "orientation", unit="quat"),
    _p(RIGID_BODY, "scale", unit="1"),
    _p(RIGID_BODY, "linearVelocity", unit="m/s", dim=LENGTH),
    _p(RIGID_BODY, "angularVelocity", unit="deg/s"),
    # PhysxRigidBodyAPI (NVIDIA's physxSchema, not ours): what the PhysX scene does with the vehicle's actor, as
    # omni.physx reads it (PhysicsBody.cpp): only where the API is applied, an authored value clamped into its
    # range (infinities to the bounds), maxAngularVelocity authored in deg/s and resolved in rad/s. Defaults are
    # omni.physx's, not the schema's fallbacks (maxAngularVelocity 100 rad/s, not 5729.58 deg/s).
    _p(RIGID_BODY, "linearDamping", unit="1/s", default=0.0, range=Range(0.0, FLT_MAX, hi_inclusive=True),
       range_code="RB_RANGE"),
    _p(RIGID_BODY, "angularDamping", unit="1/s", default=0.05, range=Range(0.0, FLT_MAX, hi_inclusive=True),
       range_code="RB_RANGE"),
    _p(RIGID_BODY, "maxLinearVelocity", unit="m/s", dim=LENGTH, default=SQRT_FLT_MAX,
       range=Range(0.0, SQRT_FLT_MAX, hi_inclusive=True), range_code="RB_RANGE"),
    _p(RIGID_BODY, "maxAngularVelocity", unit="rad/s", default=100.0, range=Range(0.0, SQRT_FLT_MAX, hi_inclusive=True),
       range_code="RB_RANGE", notes="authored in deg/s"),
    _p(RIGID_BODY, "solverPositionIterationCount", default=16, range=Range(1.0, 255.0, hi_inclusive=True),
       range_code="RB_RANGE"),
    _p(RIGID_BODY, "enableGyroscopicForces", default=True),
    _p(RIGID_BODY, "disableGravity", default=False,
       notes="omni.physx disables gravity on a vehicle's actor whatever this says (vehicle2 applies gravity itself)"),
    _p(SCENE, "gravityDirection", unit="1"),
    _p(SCENE, "gravityMagnitude", unit="m/s^2", dim=LENGTH),
    _p(VEHICLE, "referenceFrameIsCenterOfMass"),
)

TABLE_BY_KEY: dict[tuple[str, str], Prop] = {p.key: p for p in TABLE_ROWS + DERIVED_ROWS}

PHYSX_RIGID_BODY = "physxRigidBody"  # the attribute namespace of PhysxRigidBodyAPI
PHYSX_RIGID_BODY_ROWS: tuple[Prop, ...] = tuple(p for p in DERIVED_ROWS if p.schema == RIGID_BODY and p.default is not None)


def physx_rigid_body_attribute(base: str) -> str:
    """The USD name of a PhysxRigidBodyAPI property (NVIDIA's schema need not be registered to read it)."""
    return f"{PHYSX_RIGID_BODY}:{base}"


def prop(schema: str, base: str) -> Prop:
    return TABLE_BY_KEY[(schema, base)]


@lru_cache(maxsize=None)
def _definition(schema: str):
    registry = Usd.SchemaRegistry()
    return registry.FindConcretePrimDefinition(schema) or registry.FindAppliedAPIPrimDefinition(schema)


@lru_cache(maxsize=None)
def _full_names(schema: str) -> dict[str, str]:
    definition = _definition(schema)
    if definition is None:
        return {}
    return {name.rsplit(":", 1)[-1]: name for name in definition.GetPropertyNames()}


def full_name(schema: str, base: str, instance: str | None = None) -> str:
    """The attribute name in USD, from the registered schema (multiple-apply: with the instance filled in)."""
    name = _full_names(schema)[base]
    if instance is not None:
        name = name.replace("__INSTANCE_NAME__", instance)
    return name


@lru_cache(maxsize=None)
def full_names(schema: str, instance: str | None = None) -> dict[str, str]:
    """base name -> attribute name for one schema (and multiple-apply instance)."""
    return {base: full_name(schema, base, instance) for base in _full_names(schema)}


def dims_of(prop: Prop) -> Dim | tuple[Dim, ...]:
    return prop.component_dims or prop.dim


def si_to_stage(prop: Prop, value, units: StageUnits):
    """An SI value of this property in the stage's units."""
    return scale_value(value, dims_of(prop), units.si_to_stage)


def stage_to_si(prop: Prop, value, units: StageUnits):
    """A stage value of this property in SI units."""
    return scale_value(value, dims_of(prop), units.stage_to_si)


def is_schema_property(schema: str, base: str) -> bool:
    return base in _full_names(schema)


def schema_property_bases(schema: str) -> list[str]:
    return sorted(_full_names(schema))


def schema_fallback(schema: str, base: str):
    definition = _definition(schema)
    attr = definition.GetAttributeDefinition(_full_names(schema)[base])
    return attr.GetFallbackValue() if attr else None


def rows_of(schema: str) -> list[Prop]:
    return [p for p in TABLE_ROWS if p.schema == schema]


ALL_SCHEMAS: tuple[str, ...] = tuple(dict.fromkeys(p.schema for p in TABLE_ROWS))
