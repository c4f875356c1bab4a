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

from .units import LENGTH, LENGTH2, MASS, MASS_LENGTH, MASS_LENGTH2, NONE, Dim, StageUnits, scale_value

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
        # an open end just above a round number (PhysX's 1 + FLT_EPSILON) accepts that number: "[0, 1]", not
        # "[0, 1)", which would read as if 1 were refused
        closed = self.hi_inclusive or (hi != "inf" and float(hi) < self.hi)
        text = f"[{lo}, {hi}{']' if closed else ')'}"
        if self.sentinels:
            text += " or " + " / ".join(f"{s:g}" for s in self.sentinels)
        return text


def out_of_range(prop: "Prop", value: float) -> str | None:
    """Why `value` is refused for `prop` (the reader's message for an authored value, and --control's), or None
    where the row's range accepts it."""
    if prop.range is None or prop.range.accepts(value):
        return None
    return f"value {value:g} is outside the accepted range {prop.range.describe()}"


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
    notes: str = ""               # what it means, then any remark: the start of its schema documentation
    # for tuple-valued properties whose components have different dimensions (graphs, app points)
    component_dims: tuple[Dim, ...] | None = None
    tokens: tuple[str, ...] = ()  # a token-valued property's allowed values (range_code: the code of any other)

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
    _p(CONTEXT, "updateMode", default="velocityChange", notes="How the vehicle dynamics are applied to the vehicle's rigid body: as a velocity change or as an acceleration (force). Resolves to: velocityChange. Valid range: token; only 'velocityChange' is matched, every other value (incl. unknown) maps to acceleration."),
    _p(CONTEXT, "verticalAxis", sentinel="undefined", deprecated_by="", notes="The stage axis that points up for the vehicles of this scene. Sentinel: undefined -> use deprecated upAxis. Resolves to: undefined (-> upAxis). Valid range: one of the six axis tokens; any other token -> error 'invalid axis token', context rejected."),
    _p(CONTEXT, "longitudinalAxis", sentinel="undefined", notes="The stage axis that points forward for the vehicles of this scene. Sentinel: undefined -> use deprecated forwardAxis. Resolves to: undefined (-> forwardAxis). Valid range: one of the six axis tokens; other token -> error, context rejected."),
    _p(CONTEXT, "upAxis", deprecated_by="verticalAxis", notes="The up direction of the vehicles of this scene, as a vector (older form of verticalAxis). Deprecated: use physxVehicleContext:verticalAxis instead. Sentinel: only consulted when verticalAxis == undefined. Resolves to: none (required when consulted). Valid range: not validated; converted to the dominant axis: largest |component| wins, sign from component>=0; ties: X beats Y/Z, Z beats Y."),
    _p(CONTEXT, "forwardAxis", deprecated_by="longitudinalAxis", notes="The forward direction of the vehicles of this scene, as a vector (older form of longitudinalAxis). Deprecated: use physxVehicleContext:longitudinalAxis instead. Sentinel: only consulted when longitudinalAxis == undefined. Resolves to: none (required when consulted). Valid range: not validated; mapped to dominant axis like upAxis."),
    # -- tire friction table
    _p(TABLE, "groundMaterials", notes="The ground materials (prims with PhysicsMaterialAPI) that have their own friction value in this table. Resolves to: no entries. Valid range: if targets are authored: >=1 target; each target must exist and have PhysicsMaterialAPI."),
    _p(TABLE, "frictionValues", unit="1", notes="The tire friction coefficient on each ground material, in the order of groundMaterials. Resolves to: empty. Valid range: length must equal the number of (valid) groundMaterials targets; values are NOT range-checked."),
    _p(TABLE, "defaultFrictionValue", unit="1", range=NON_NEGATIVE, range_code="V08", notes="The tire friction coefficient on any ground material the table does not list. Resolves to: 1. Valid range: [0, inf)."),
    # -- wheel
    _p(WHEEL, "radius", unit="m", dim=LENGTH, range=NON_NEGATIVE, range_code="V14", notes="The wheel's radius: the distance from its centre to the ground contact. Resolves to: none (required). Valid range: [0, inf)."),
    _p(WHEEL, "width", unit="m", dim=LENGTH, range=NON_NEGATIVE, range_code="V14", notes="The wheel's width. Resolves to: none (required). Valid range: [0, inf)."),
    _p(WHEEL, "mass", unit="kg", dim=MASS, range=NON_NEGATIVE, range_code="V14", notes="The wheel's mass. Resolves to: none (required). Valid range: [0, inf)."),
    _p(WHEEL, "moi", unit="kg*m^2", dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V14", notes="The wheel's moment of inertia about its rolling axis. Resolves to: none (required). Valid range: [0, inf)."),
    _p(WHEEL, "dampingRate", unit="kg*m^2/s", dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V14", notes="The damping that slows the wheel's rotation, as a torque per unit of angular speed. Resolves to: none (required). Valid range: [0, inf)."),
    _p(WHEEL, "maxBrakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V15", deprecated_by=BRAKES + ":brakes0", notes="The brake torque on this wheel at full brake (older form of PhysxVehicleBrakesAPI:brakes0). Deprecated: use PhysxVehicleBrakesAPI (instance brakes0) instead. Sentinel: no value -> 0. Resolves to: 0. Valid range: [0, inf)."),
    _p(WHEEL, "maxHandBrakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V15", deprecated_by=BRAKES + ":brakes1", notes="The handbrake torque on this wheel at full handbrake (older form of PhysxVehicleBrakesAPI:brakes1). Deprecated: use PhysxVehicleBrakesAPI (instance brakes1) instead. Sentinel: no value -> 0. Resolves to: 0. Valid range: [0, inf)."),
    _p(WHEEL, "maxSteerAngle", unit="rad", range=HALF_PI_OPEN, range_code="V16", deprecated_by=STEERING, notes="The wheel's steer angle at full steer (older form of PhysxVehicleSteeringAPI). Deprecated: use PhysxVehicleSteeringAPI instead. Sentinel: no value -> 0. Resolves to: 0. Valid range: intended (-pi/2, pi/2); as compiled value >= -pi/2 and < pi/2 (the +FLT_MIN on the lower bound is lost in float rounding)."),
    _p(WHEEL, "toeAngle", unit="rad", range=HALF_PI_OPEN, range_code="V16", deprecated_by=COMPLIANCE + ":wheelToeAngle", notes="The wheel's toe angle (older form of the compliance graph wheelToeAngle). Deprecated: use PhysxVehicleSuspensionComplianceAPI:wheelToeAngle instead. Sentinel: no value -> 0. Resolves to: 0. Valid range: same as maxSteerAngle: effectively [-pi/2, pi/2)."),
    # -- tire
    _p(TIRE, "lateralStiffnessGraph", unit="(1, N)", sentinel=(0.0, 0.0), component_dims=(NONE, MASS_LENGTH), notes="The tire's lateral stiffness as a graph of the normalized tire load: the load (in rest loads) at which it saturates, and its maximum (force per unit lateral slip). Sentinel: (0,0) -> deprecated latStiffX/latStiffY path. Resolves to: (0,0) -> (latStiffX, latStiffY*restLoad) = (2, 17.095*restLoad). Valid range: if not (0,0): x >= 0 and y > 0 (so (x,0) with x!=0 is an error)."),
    _p(TIRE, "latStiffX", unit="1", default=2.0, range=NON_NEGATIVE, range_code="V19", deprecated_by="lateralStiffnessGraph", notes="The normalized tire load at which the lateral stiffness saturates (older form of lateralStiffnessGraph x). Deprecated: use physxVehicleTire:lateralStiffnessGraph[0] instead. Sentinel: read only when lateralStiffnessGraph == (0,0). Resolves to: 2. Valid range: [0, inf)."),
    _p(TIRE, "latStiffY", unit="1", default=17.095, range=NON_NEGATIVE, range_code="V19", deprecated_by="lateralStiffnessGraph", notes="The maximum lateral stiffness per unit rest load (older form of lateralStiffnessGraph y). Deprecated: use physxVehicleTire:lateralStiffnessGraph[1] instead. Sentinel: read only when lateralStiffnessGraph == (0,0); no value -> 17.095. Resolves to: 17.095. Valid range: [0, inf)."),
    _p(TIRE, "longitudinalStiffness", unit="N", dim=MASS_LENGTH, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V20", notes="The tire's longitudinal stiffness: the longitudinal force per unit longitudinal slip. Sentinel: 0 -> longitudinalStiffnessPerUnitGravity * |g|. Resolves to: 4905 (= 500 kg * 9.81 m/s^2).81/metersPerUnit by default). Valid range: 0 (sentinel) or > 0."),
    _p(TIRE, "longitudinalStiffnessPerUnitGravity", unit="kg", dim=MASS, default=500.0, range=NON_NEGATIVE, range_code="V21", deprecated_by="longitudinalStiffness", notes="The longitudinal stiffness per unit gravitational acceleration (older form of longitudinalStiffness). Deprecated: use physxVehicleTire:longitudinalStiffness instead. Sentinel: read only when longitudinalStiffness == 0; no value -> default. Resolves to: 500. Valid range: [0, inf)."),
    _p(TIRE, "camberStiffness", unit="N/rad", dim=MASS_LENGTH, sentinel=-1.0, range=Range(0.0, INF, sentinels=(-1.0,)), range_code="V22", notes="The tire's camber stiffness: the lateral force per radian of camber angle. Sentinel: -1 -> camberStiffnessPerUnitGravity * |g|. Resolves to: 0 (fallback 0 * g). Valid range: -1 (sentinel) or >= 0; other negatives -> error."),
    _p(TIRE, "camberStiffnessPerUnitGravity", unit="kg/rad", dim=MASS, default=0.0, range=NON_NEGATIVE, range_code="V23", deprecated_by="camberStiffness", notes="The camber stiffness per unit gravitational acceleration (older form of camberStiffness). Deprecated: use physxVehicleTire:camberStiffness instead. Sentinel: read only when camberStiffness == -1. Resolves to: 0. Valid range: [0, inf)."),
    _p(TIRE, "frictionVsSlipGraph", unit="(1, 1)", default=((0.0, 1.0), (0.1, 1.0), (1.0, 1.0)), notes="The friction multiplier as a function of longitudinal slip: three points (slip, multiplier) of a graph that scales the ground's friction coefficient. Sentinel: no value -> default graph. Resolves to: [(0,1), (0.1,1), (1,1)]. Valid range: exactly 3 points; x strictly increasing (p0.x < p1.x < p2.x); y not checked; p0.x not forced to 0."),
    _p(TIRE, "frictionTable", notes="The tire friction table that gives this tire's friction coefficient on each ground material. Sentinel: no/zero targets -> built-in default table. Resolves to: default table (defaultFriction 1.0, no material entries). Valid range: at most 1 target; target must exist and be a PhysxVehicleTireFrictionTable prim."),
    _p(TIRE, "restLoad", unit="N", dim=MASS_LENGTH, sentinel=0.0, range=NON_NEGATIVE, range_code="V27", notes="The load on the tire when the vehicle is at rest; the lateral stiffness graph is in units of it. Sentinel: 0 -> auto. Resolves to: sprungMass * |g|. Valid range: [0, inf)."),
    # -- suspension
    _p(SUSPENSION, "springStrength", unit="N/m", dim=MASS, range=NON_NEGATIVE, range_code="V28", notes="The suspension spring's stiffness. Resolves to: none (required). Valid range: [0, inf)."),
    _p(SUSPENSION, "springDamperRate", unit="N*s/m", dim=MASS, range=NON_NEGATIVE, range_code="V28", notes="The suspension damper's rate: damping force per unit of compression speed. Resolves to: none (required). Valid range: [0, inf)."),
    _p(SUSPENSION, "travelDistance", unit="m", dim=LENGTH, range=Range(FLT_MIN, INF), range_code="V29", notes="The suspension's travel: the distance from full compression to full elongation. Sentinel: no value -> deprecated maxCompression + maxDroop. Resolves to: maxCompression + maxDroop (deprecated path). Valid range: > 0 when it has a value."),
    _p(SUSPENSION, "maxCompression", unit="m", dim=LENGTH, range=NON_NEGATIVE, range_code="V30", deprecated_by="travelDistance", notes="How far the suspension compresses from rest (older form of travelDistance, with maxDroop). Deprecated: use physxVehicleSuspension:travelDistance instead. Sentinel: read only when travelDistance has no value. Resolves to: none (required on deprecated path). Valid range: [0, inf) (doc says positive; 0 accepted)."),
    _p(SUSPENSION, "maxDroop", unit="m", dim=LENGTH, deprecated_by="travelDistance", notes="How far the suspension elongates from rest (older form of travelDistance, with maxCompression). Deprecated: use physxVehicleSuspension:travelDistance instead. Sentinel: read only when travelDistance missing; negative -> auto-compute. Resolves to: negative -> sprungMass*|g|/springStrength (0 if springStrength==0). Valid range: no range check (any float)."),
    _p(SUSPENSION, "sprungMass", unit="kg", dim=MASS, sentinel=0.0, range=NON_NEGATIVE, range_code="V32", notes="The part of the vehicle's mass this suspension carries. Sentinel: 0 -> auto-compute. Resolves to: PxVehicleComputeSprungMasses(body mass, wheel positions). Valid range: [0, inf)."),
    _p(SUSPENSION, "camberAtRest", unit="rad", range=HALF_PI_OPEN, range_code="V33", deprecated_by=COMPLIANCE + ":wheelCamberAngle", notes="The wheel's camber angle at rest (older form of the compliance graph wheelCamberAngle). Deprecated: use PhysxVehicleSuspensionComplianceAPI:wheelCamberAngle instead. Sentinel: no value -> 0. Resolves to: 0. Valid range: intended [-pi/2, pi/2]; as compiled >= -pi/2 and < pi/2 (+FLT_MIN lost in float)."),
    _p(SUSPENSION, "camberAtMaxCompression", unit="rad", range=HALF_PI_OPEN, range_code="V33", deprecated_by=COMPLIANCE + ":wheelCamberAngle", notes="The wheel's camber angle at full compression (older form of the compliance graph wheelCamberAngle). Deprecated: use PhysxVehicleSuspensionComplianceAPI:wheelCamberAngle instead. Sentinel: no value -> 0. Resolves to: 0. Valid range: intended [-pi/2, pi/2]; as compiled >= -pi/2 and < pi/2 (+FLT_MIN lost in float)."),
    _p(SUSPENSION, "camberAtMaxDroop", unit="rad", range=HALF_PI_OPEN, range_code="V33", deprecated_by=COMPLIANCE + ":wheelCamberAngle", notes="The wheel's camber angle at full elongation (older form of the compliance graph wheelCamberAngle). Deprecated: use PhysxVehicleSuspensionComplianceAPI:wheelCamberAngle instead. Sentinel: no value -> 0. Resolves to: 0. Valid range: intended [-pi/2, pi/2]; as compiled >= -pi/2 and < pi/2 (+FLT_MIN lost in float)."),
    # -- wheel attachment
    _p(ATTACHMENT, "index", sentinel=-1, range=Range(-1, 20), range_code="V38", notes="The wheel's index in the vehicle: what brakes, steering, differentials and controllers refer to. Sentinel: -1 -> index assigned by parse order (running wheel counter). Resolves to: -1 (auto). Valid range: [-1, 20) i.e. -1..19; unique within vehicle; either all -1 or the set covers exactly {0..n-1}."),
    _p(ATTACHMENT, "wheel", notes="The prim with PhysxVehicleWheelAPI that this wheel uses (none: the API on this prim). Sentinel: no targets -> PhysxVehicleWheelAPI must be applied on the attachment prim itself. Valid range: exactly one target (if authored); target exists and has PhysxVehicleWheelAPI."),
    _p(ATTACHMENT, "tire", notes="The prim with PhysxVehicleTireAPI that this wheel uses (none: the API on this prim). Sentinel: no targets -> PhysxVehicleTireAPI must be applied on the attachment prim itself. Valid range: exactly one target (if authored); target exists and has PhysxVehicleTireAPI."),
    _p(ATTACHMENT, "suspension", notes="The prim with PhysxVehicleSuspensionAPI that this wheel uses (none: the API on this prim). Sentinel: no targets -> PhysxVehicleSuspensionAPI must be applied on the attachment prim itself. Valid range: exactly one target (if authored); target exists and has PhysxVehicleSuspensionAPI."),
    _p(ATTACHMENT, "collisionGroup", notes="The collision group of the shapes the suspension raycast or sweep must ignore (the vehicle's own). Sentinel: no target -> no query filtering. Valid range: at most 1 target; must exist and be a PhysicsCollisionGroup."),
    _p(ATTACHMENT, "suspensionTravelDirection", unit="1", notes="The direction in which the suspension elongates, in the vehicle's frame (usually down). Resolves to: none (required). Valid range: no check (not normalized by parser)."),
    _p(ATTACHMENT, "suspensionFramePosition", unit="m", dim=LENGTH, notes="Where the suspension is attached, in the vehicle's frame: the wheel centre at full compression. Sentinel: no value -> deprecated wheelCenterOfMassOffset. Valid range: either this or wheelCenterOfMassOffset must have a value (error otherwise)."),
    _p(ATTACHMENT, "suspensionFrameOrientation", unit="quat", notes="The orientation of the suspension frame in the vehicle's frame. Resolves to: identity. Valid range: must be identity if the vehicle's world scale is non-uniform."),
    _p(ATTACHMENT, "wheelFramePosition", unit="m", dim=LENGTH, notes="The wheel's position in the suspension frame. Resolves to: (0,0,0). Valid range: no check."),
    _p(ATTACHMENT, "wheelFrameOrientation", unit="quat", notes="The wheel's orientation in the suspension frame. Resolves to: identity. Valid range: no check."),
    _p(ATTACHMENT, "wheelCenterOfMassOffset", unit="m", dim=LENGTH, deprecated_by="suspensionFramePosition", notes="The wheel centre at rest relative to the vehicle's centre of mass (older form of suspensionFramePosition). Deprecated: use physxVehicleWheelAttachment:suspensionFramePosition instead. Sentinel: read only when suspensionFramePosition has no value. Valid range: required if suspensionFramePosition missing."),
    _p(ATTACHMENT, "suspensionForceAppPointOffset", unit="m", dim=LENGTH, deprecated_by=COMPLIANCE + ":suspensionForceAppPoint", notes="Where the suspension force acts, relative to the centre of mass (older form of the compliance suspensionForceAppPoint). Deprecated: use PhysxVehicleSuspensionComplianceAPI:suspensionForceAppPoint instead. Sentinel: no value -> estimated wheel rest position. Resolves to: R_susp^-1 * travelDir * (travelDist - maxDroop). Valid range: no check."),
    _p(ATTACHMENT, "tireForceAppPointOffset", unit="m", dim=LENGTH, deprecated_by=COMPLIANCE + ":tireForceAppPoint", notes="Where the tire force acts, relative to the centre of mass (older form of the compliance tireForceAppPoint). Deprecated: use PhysxVehicleSuspensionComplianceAPI:tireForceAppPoint instead. Sentinel: no value -> estimated wheel rest position. Resolves to: R_susp^-1 * travelDir * (travelDist - maxDroop). Valid range: no check."),
    _p(ATTACHMENT, "driven", default=False, deprecated_by=MULTI_DIFF, notes="Whether the drive turns this wheel (older form of PhysxVehicleMultiWheelDifferentialAPI). Deprecated: use PhysxVehicleMultiWheelDifferentialAPI instead. Sentinel: no value -> False. Resolves to: False. Valid range: -."),
    # -- compliance (graphs keyed by normalized jounce; app points carry lengths in y..w)
    _p(COMPLIANCE, "wheelToeAngle", unit="(1, rad)", default=(), notes="The wheel's toe angle as a graph of the normalized suspension jounce: points (jounce, angle). Sentinel: no value / empty -> toe 0. Resolves to: empty (0 rad). Valid range: <=3 points; x in [0,1] and strictly increasing; |y| <= pi/2 (code) although doc and error text say [-pi, pi]."),
    _p(COMPLIANCE, "wheelCamberAngle", unit="(1, rad)", default=(), notes="The wheel's camber angle as a graph of the normalized suspension jounce: points (jounce, angle). Sentinel: no value / empty -> camber 0. Resolves to: empty (0 rad). Valid range: <=3 points; x in [0,1] strictly increasing; |y| <= pi/2 (code)."),
    _p(COMPLIANCE, "suspensionForceAppPoint", unit="(1, m, m, m)", default=(), component_dims=(NONE, LENGTH, LENGTH, LENGTH), notes="Where the suspension force acts, as a graph of the normalized jounce: points (jounce, x, y, z) in the suspension frame. Sentinel: no value / empty -> offset 0. Resolves to: empty ((0,0,0))..3]: m offset from suspension frame. Valid range: <=3 entries; jounce in [0,1] strictly increasing; offsets unchecked."),
    _p(COMPLIANCE, "tireForceAppPoint", unit="(1, m, m, m)", default=(), component_dims=(NONE, LENGTH, LENGTH, LENGTH), notes="Where the tire force acts, as a graph of the normalized jounce: points (jounce, x, y, z) in the suspension frame. Sentinel: no value / empty -> offset 0. Resolves to: empty ((0,0,0))..3]: m offset. Valid range: <=3 entries; jounce in [0,1] strictly increasing."),
    # -- engine
    _p(ENGINE, "moi", unit="kg*m^2", dim=MASS_LENGTH2, default=1.0, range=POSITIVE, range_code="V47", notes="The engine's moment of inertia. Sentinel: no value -> default. Resolves to: 1.0. Valid range: [FLT_MIN, inf) i.e. > 0."),
    _p(ENGINE, "peakTorque", unit=N_M, dim=MASS_LENGTH2, default=500.0, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48", notes="The engine's maximum torque, at full throttle (the torque curve scales it with engine speed). Sentinel: -1 -> default. Resolves to: 500. Valid range: -1 or [0, inf)."),
    _p(ENGINE, "maxRotationSpeed", unit="rad/s", range=NON_NEGATIVE, range_code="V49", notes="The engine's maximum rotation speed. Resolves to: 600. Valid range: [0, inf)."),
    _p(ENGINE, "idleRotationSpeed", unit="rad/s", range=NON_NEGATIVE, range_code="V49", notes="The engine's rotation speed at idle. Resolves to: 0. Valid range: [0, inf)."),
    _p(ENGINE, "torqueCurve", unit="(1, 1)", default=((0.0, 0.8), (0.33, 1.0), (1.0, 0.8)), notes="The engine torque as a graph of engine speed: points (speed / maxRotationSpeed, torque / peakTorque). Sentinel: no value -> default curve. Resolves to: [(0,0.8), (0.33,1.0), (1.0,0.8)]. Valid range: at least 1 point (empty -> error); x non-decreasing starting >= 0 and last x <= 1 (equal x accepted); y unchecked; max 8 points."),
    _p(ENGINE, "dampingRateFullThrottle", unit="kg*m^2/s", dim=MASS_LENGTH2, default=0.15, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48", notes="The engine's damping rate at full throttle. Sentinel: -1 -> default. Resolves to: 0.15. Valid range: -1 or [0, inf)."),
    _p(ENGINE, "dampingRateZeroThrottleClutchEngaged", unit="kg*m^2/s", dim=MASS_LENGTH2, default=2.0, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48", notes="The engine's damping rate at zero throttle with the clutch engaged (a gear in). Sentinel: -1 -> default. Resolves to: 2.0. Valid range: -1 or [0, inf)."),
    _p(ENGINE, "dampingRateZeroThrottleClutchDisengaged", unit="kg*m^2/s", dim=MASS_LENGTH2, default=0.35, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V48", notes="The engine's damping rate at zero throttle with the clutch disengaged (neutral). Sentinel: -1 -> default. Resolves to: 0.35. Valid range: -1 or [0, inf)."),
    # -- gears, autobox, clutch
    _p(GEARS, "ratios", unit="1", default=(-4.0, 4.0, 2.0, 1.5, 1.1, 1.0), notes="The gear ratios: the reverse gears (negative) first, then the forward gears; neutral is implied. Sentinel: no value -> default. Resolves to: [-4.0, 4.0, 2.0, 1.5, 1.1, 1.0]. Valid range: 1..31 entries (1 reverse + max 30 forward); [0] < 0; [1..] > 0 and strictly decreasing."),
    _p(GEARS, "ratioScale", unit="1", default=4.0, range=POSITIVE, range_code="V57", notes="A factor that every gear ratio is multiplied by (the final drive ratio). Sentinel: no value -> default. Resolves to: 4.0. Valid range: [FLT_MIN, inf) i.e. > 0."),
    _p(GEARS, "switchTime", unit="s", default=0.5, range=NON_NEGATIVE, range_code="V57", notes="How long a gear change takes; the gearbox is in neutral meanwhile. Sentinel: no value -> default. Resolves to: 0.5. Valid range: [0, inf)."),
    _p(AUTOBOX, "upRatios", unit="1", default=0.65, notes="For each forward gear but the last, the engine speed (a fraction of maxRotationSpeed) above which the automatic gearbox shifts up. Sentinel: no value -> default. Resolves to: (nForward-1) entries of 0.65 (4 entries with default gears). Valid range: length >= nForward-1 (shorter -> error; longer -> warning, extras ignored); used entries >= 0."),
    _p(AUTOBOX, "downRatios", unit="1", default=0.5, notes="For each forward gear but the last, the engine speed (a fraction of maxRotationSpeed) below which the automatic gearbox shifts down. Sentinel: no value -> default. Resolves to: (nForward-1) entries of 0.5 (4 entries with default gears). Valid range: length >= nForward-1 (shorter -> error; longer -> warning); used entries >= 0."),
    _p(AUTOBOX, "latency", unit="s", default=2.0, range=NON_NEGATIVE, range_code="V61", notes="The shortest time between two gear changes of the automatic gearbox. Sentinel: no value -> default. Resolves to: 2.0. Valid range: [0, inf)."),
    _p(CLUTCH, "strength", unit="kg*m^2/s", dim=MASS_LENGTH2, default=10.0, range=POSITIVE, range_code="V62", notes="The clutch's strength: how strongly it couples the engine and the wheels. Sentinel: no value -> default. Resolves to: 10.0. Valid range: [FLT_MIN, inf) i.e. > 0."),
    # -- drives
    _p(DRIVE_BASIC, "peakTorque", unit=N_M, dim=MASS_LENGTH2, default=1000.0, sentinel=-1.0, range=Range(0.0, FLT_MAX, sentinels=(-1.0,)), range_code="V63", notes="The drive torque at full accelerator, shared by the driven wheels. Sentinel: -1 -> default. Resolves to: 1000. Valid range: -1 or [0, inf)."),
    _p(DRIVE_STANDARD, "engine", notes="The prim with PhysxVehicleEngineAPI this drive uses (none: the API on this prim). Sentinel: no targets -> PhysxVehicleEngineAPI on the drive prim itself. Valid range: at most 1 target; target exists and has PhysxVehicleEngineAPI."),
    _p(DRIVE_STANDARD, "gears", notes="The prim with PhysxVehicleGearsAPI this drive uses (none: the API on this prim). Sentinel: no targets -> PhysxVehicleGearsAPI on the drive prim itself. Valid range: at most 1 target; target exists and has PhysxVehicleGearsAPI."),
    _p(DRIVE_STANDARD, "autoGearBox", notes="The prim with PhysxVehicleAutoGearBoxAPI this drive uses (none: the API on this prim, or no automatic gearbox). Sentinel: no targets -> PhysxVehicleAutoGearBoxAPI on the drive prim itself or none (optional). Resolves to: no autobox. Valid range: at most 1 target; target exists and has PhysxVehicleAutoGearBoxAPI."),
    _p(DRIVE_STANDARD, "clutch", notes="The prim with PhysxVehicleClutchAPI this drive uses (none: the API on this prim). Sentinel: no targets -> PhysxVehicleClutchAPI on the drive prim itself. Valid range: at most 1 target; target exists and has PhysxVehicleClutchAPI."),
    # -- differentials
    _p(MULTI_DIFF, "wheels", default=(), notes="The indices of the wheels the differential drives. Sentinel: no value -> empty list. Resolves to: empty (no wheel driven). Valid range: each >= 0; count <= wheel count; each < wheel count; duplicates not checked."),
    _p(MULTI_DIFF, "torqueRatios", unit="1", default=(), notes="The share of the drive torque each listed wheel gets. Sentinel: no value or empty -> equal split. Resolves to: 1/len(wheels) per listed wheel. Valid range: empty or len == len(wheels); each in [-1, 1] (upper bound 1+FLT_EPSILON exclusive); sum unchecked."),
    _p(MULTI_DIFF, "averageWheelSpeedRatios", unit="1", default=(), notes="The weight of each listed wheel in the average wheel speed that the clutch couples to the engine. Sentinel: no value or empty -> equal weights. Resolves to: 1/len(wheels) per listed wheel. Valid range: empty or len == len(wheels); each in [0, 1]; sum unchecked."),
    _p(TANK_DIFF, "numberOfWheelsPerTrack", default=(), notes="How many wheels each track has. Sentinel: no value -> 0 tracks. Resolves to: empty. Valid range: <= 20 entries; each >= 0."),
    _p(TANK_DIFF, "thrustIndexPerTrack", default=(), notes="Which thrust control (0 or 1) drives each track. Sentinel: no value -> empty. Resolves to: empty. Valid range: each 0 or 1; length == track count."),
    _p(TANK_DIFF, "trackToWheelIndices", default=(), notes="For each track, where its wheels start in wheelIndicesInTrackOrder. Sentinel: no value -> empty. Resolves to: empty. Valid range: length == track count; start[0] >= 0; start[i] >= start[i-1] + numberOfWheelsPerTrack[i-1]; start[i]+count[i] <= len(wheelIndicesInTrackOrder)."),
    _p(TANK_DIFF, "wheelIndicesInTrackOrder", default=(), notes="The wheel indices of every track, one track after the other. Sentinel: no value -> empty. Resolves to: empty. Valid range: <= 20 entries; every entry referenced by a track: >= 0, not used by two tracks, < wheel count; unreferenced entries unchecked."),
    # -- brakes (multiple-apply: brakes0, brakes1)
    _p(BRAKES, "wheels", default=(), notes="The indices of the wheels this brake acts on."),
    _p(BRAKES, "maxBrakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V106", notes="The brake torque at full brake command."),
    _p(BRAKES, "torqueMultipliers", unit="1", default=(), notes="A factor on maxBrakeTorque for each listed wheel."),
    # -- steering
    _p(STEERING, "wheels", default=(), notes="The indices of the wheels that steer. Sentinel: no value or empty -> all wheels. Resolves to: all wheels, multiplier 1. Valid range: each >= 0; count <= wheel count; each < wheel count."),
    _p(STEERING, "maxSteerAngle", unit="rad", notes="The steer angle at full steer command. Resolves to: 0. Valid range: no standalone check; |maxSteerAngle*m| <= pi for each authored multiplier (no check at all if multipliers absent)."),
    _p(STEERING, "angleMultipliers", unit="1", default=(), notes="A factor on maxSteerAngle for each listed wheel. Sentinel: no value or empty -> 1. Resolves to: 1 per listed wheel. Valid range: empty or len == len(wheels); |maxSteerAngle*m| <= pi."),
    _p(ACKERMANN, "wheel0", notes="The index of one of the two wheels the Ackermann steering turns. Resolves to: none (required). Valid range: >= 0; < wheel count; != wheel1."),
    _p(ACKERMANN, "wheel1", notes="The index of the other of the two wheels the Ackermann steering turns. Resolves to: none (required). Valid range: >= 0; < wheel count; != wheel0."),
    _p(ACKERMANN, "maxSteerAngle", unit="rad", notes="The steer angle at full steer command, of the axle's centre line. Resolves to: 0. Valid range: not range-checked by parser (doc says [-pi, pi])."),
    _p(ACKERMANN, "wheelBase", unit="m", dim=LENGTH, range=Range(FLT_MIN, INF), range_code="V116", notes="The distance between the steered axle and the rear axle. Resolves to: none (required). Valid range: > 0."),
    _p(ACKERMANN, "trackWidth", unit="m", dim=LENGTH, range=Range(FLT_MIN, INF), range_code="V116", notes="The distance between the two steered wheels. Resolves to: none (required). Valid range: > 0."),
    _p(ACKERMANN, "strength", unit="1", range=UNIT_INTERVAL, range_code="V117", notes="How much of the Ackermann correction is applied: 0 none (both wheels turn alike), 1 all. Resolves to: 1. Valid range: [0, 1] (upper bound 1+FLT_EPSILON exclusive)."),
    # -- vehicle
    _p(VEHICLE, "vehicleEnabled", notes="Whether the vehicle is simulated as a vehicle. Off: omni.physx skips its vehicle update, so its rigid body keeps its velocity without gravity (omni.physx turns gravity off on vehicle actors; the vehicle update applies it) and only contacts move it; its controls do nothing. Resolves to: True. Valid range: -."),
    _p(VEHICLE, "drive", notes="The prim with the drive (PhysxVehicleDriveStandardAPI or PhysxVehicleDriveBasicAPI) this vehicle uses. Sentinel: no targets -> drive API on the vehicle prim, or no drive. Resolves to: no drive (wheels driven via PhysxVehicleWheelControllerAPI). Valid range: at most 1 target; target exists and has DriveStandardAPI or DriveBasicAPI."),
    _p(VEHICLE, "suspensionLineQueryType", notes="How the suspension finds the ground: a raycast or a sweep of the wheel's shape. Resolves to: raycast. Valid range: 'sweep' -> sweep; anything else -> raycast."),
    _p(VEHICLE, "limitSuspensionExpansionVelocity", notes="Whether the suspension elongates no faster than its spring and the wheel's mass allow (a wheel can then leave the ground for a moment). Resolves to: False. Valid range: -."),
    _p(VEHICLE, "subStepThresholdLongitudinalSpeed", unit="m/s", dim=LENGTH, default=5.0, range=NON_NEGATIVE, range_code="V73", notes="The forward speed below which lowForwardSpeedSubStepCount sub-steps are used, and above which highForwardSpeedSubStepCount. Sentinel: no value -> default. Resolves to: 5.0. Valid range: [0, inf)."),
    _p(VEHICLE, "lowForwardSpeedSubStepCount", default=3, range=Range(1, INF), range_code="V74", notes="The number of sub-steps per simulation step at low forward speed. Sentinel: no value -> default. Resolves to: 3. Valid range: > 0; values > 255 clamped to 255."),
    _p(VEHICLE, "highForwardSpeedSubStepCount", default=1, range=Range(1, INF), range_code="V74", notes="The number of sub-steps per simulation step at high forward speed. Sentinel: no value -> default. Resolves to: 1. Valid range: > 0; values > 255 clamped to 255."),
    _p(VEHICLE, "minLongitudinalSlipDenominator", unit="m/s", dim=LENGTH, default=4.0, range=NON_NEGATIVE, range_code="V77", deprecated_by="minPassiveLongitudinalSlipDenominator", notes="The smallest speed used as the denominator of the longitudinal slip (older form of minPassiveLongitudinalSlipDenominator). Deprecated: use physxVehicle:minPassiveLongitudinalSlipDenominator instead. Sentinel: read only when minPassive... == 0; no value -> default. Resolves to: 4.0. Valid range: [0, inf)."),
    _p(VEHICLE, "minPassiveLongitudinalSlipDenominator", unit="m/s", dim=LENGTH, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V76", notes="The smallest speed used as the denominator of the longitudinal slip when no drive or brake torque acts. Sentinel: 0 -> deprecated minLongitudinalSlipDenominator. Resolves to: 4.0 (via deprecated default). Valid range: 0 (sentinel) or > 0."),
    _p(VEHICLE, "minActiveLongitudinalSlipDenominator", unit="m/s", dim=LENGTH, default=0.1, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V78", notes="The smallest speed used as the denominator of the longitudinal slip when a drive or brake torque acts. Sentinel: 0 -> default. Resolves to: 0.1. Valid range: 0 (sentinel) or > 0."),
    _p(VEHICLE, "minLateralSlipDenominator", unit="m/s", dim=LENGTH, default=1.0, sentinel=0.0, range=Range(FLT_MIN, INF, sentinels=(0.0,)), range_code="V78", notes="The smallest speed used as the denominator of the lateral slip. Sentinel: 0 -> default. Resolves to: 1.0. Valid range: 0 (sentinel) or > 0."),
    _p(VEHICLE, "longitudinalStickyTireThresholdSpeed", unit="m/s", dim=LENGTH, default=0.2, sentinel=-1.0, range=Range(0.0, INF, sentinels=(-1.0,)), range_code="V79", notes="The forward speed below which a tire starts to become sticky longitudinally (so that a vehicle at rest stays at rest). Sentinel: -1 -> default. Resolves to: 0.2. Valid range: -1 (sentinel) or >= 0."),
    _p(VEHICLE, "longitudinalStickyTireThresholdTime", unit="s", range=NON_NEGATIVE, range_code="V80", notes="How long a tire must stay below the longitudinal threshold speed before it is sticky. Resolves to: 1. Valid range: [0, inf)."),
    _p(VEHICLE, "longitudinalStickyTireDamping", unit="1/s", range=NON_NEGATIVE, range_code="V80", notes="How fast a sticky tire's longitudinal speed is damped to zero. Resolves to: 200. Valid range: [0, inf)."),
    _p(VEHICLE, "lateralStickyTireThresholdSpeed", unit="m/s", dim=LENGTH, default=0.2, sentinel=-1.0, range=Range(0.0, INF, sentinels=(-1.0,)), range_code="V79", notes="The sideways speed below which a tire starts to become sticky laterally. Sentinel: -1 -> default. Resolves to: 0.2. Valid range: -1 (sentinel) or >= 0."),
    _p(VEHICLE, "lateralStickyTireThresholdTime", unit="s", range=NON_NEGATIVE, range_code="V80", notes="How long a tire must stay below the lateral threshold speed before it is sticky. Resolves to: 1 (but see notes). Valid range: [0, inf) (checked on the value actually read)."),
    _p(VEHICLE, "lateralStickyTireDamping", unit="1/s", range=NON_NEGATIVE, range_code="V80", notes="How fast a sticky tire's lateral speed is damped to zero. Resolves to: 20. Valid range: [0, inf)."),
    # -- controllers
    _p(CONTROLLER, "accelerator", unit="1", range=UNIT_INTERVAL, range_code="V131", notes="The accelerator command: 0 released, 1 fully pressed. Resolves to: 0. Valid range: [0, 1] (1+FLT_EPSILON exclusive)."),
    _p(CONTROLLER, "brake0", unit="1", range=UNIT_INTERVAL, range_code="V131", notes="The command of the brakes0 brake: 0 released, 1 fully applied. Resolves to: 0. Valid range: [0, 1]."),
    _p(CONTROLLER, "brake1", unit="1", range=UNIT_INTERVAL, range_code="V131", notes="The command of the brakes1 brake (usually the handbrake): 0 released, 1 fully applied. Resolves to: 0. Valid range: [0, 1]."),
    _p(CONTROLLER, "steer", unit="1", range=SIGNED_UNIT, range_code="V131", notes="The steer command, from -1 to 1: the fraction of the maximum steer angle, its sign the direction. Resolves to: 0. Valid range: [-1, 1]."),
    _p(CONTROLLER, "targetGear", range=Range(-1, 31, sentinels=(255,)), range_code="V133", notes="The gear to shift to: -1 reverse, 0 neutral, 1 and up forward gears, 255 the automatic gearbox. Sentinel: 255 = automatic shifting (special value). Resolves to: 255 (automatic).. forward). Valid range: 255 or [-1, 31)."),
    _p(CONTROLLER, "brake", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="brake0", notes="The brake command (older form of brake0). Deprecated: use physxVehicleController:brake0 instead. Sentinel: only an AUTHORED value counts (fallback ignored). Resolves to: 0. Valid range: [0, 1]."),
    _p(CONTROLLER, "handbrake", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="brake1", notes="The handbrake command (older form of brake1). Deprecated: use physxVehicleController:brake1 instead. Sentinel: only an AUTHORED value counts. Resolves to: 0. Valid range: [0, 1]."),
    _p(CONTROLLER, "steerLeft", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="steer", notes="The steer-left command (older form of steer). Deprecated: use physxVehicleController:steer instead. Sentinel: only an AUTHORED value counts. Resolves to: 0. Valid range: [0, 1]."),
    _p(CONTROLLER, "steerRight", unit="1", range=UNIT_INTERVAL, range_code="V132", deprecated_by="steer", notes="The steer-right command (older form of steer). Deprecated: use physxVehicleController:steer instead. Sentinel: only an AUTHORED value counts. Resolves to: 0. Valid range: [0, 1]."),
    _p(TANK_CONTROLLER, "thrust0", unit="1", range=SIGNED_UNIT, range_code="V136", notes="The thrust command of the tracks driven by thrust 0: -1 full reverse to 1 full forward. Resolves to: 0. Valid range: [-1, 1]."),
    _p(TANK_CONTROLLER, "thrust1", unit="1", range=SIGNED_UNIT, range_code="V136", notes="The thrust command of the tracks driven by thrust 1: -1 full reverse to 1 full forward. Resolves to: 0. Valid range: [-1, 1]."),
    _p(WHEEL_CONTROLLER, "driveTorque", unit=N_M, dim=MASS_LENGTH2, notes="The drive torque applied to this wheel directly (a vehicle without a drive). Resolves to: 0. Valid range: not checked."),
    _p(WHEEL_CONTROLLER, "brakeTorque", unit=N_M, dim=MASS_LENGTH2, range=NON_NEGATIVE, range_code="V91", notes="The brake torque applied to this wheel directly (a vehicle without a drive). Resolves to: 0. Valid range: [0, inf)."),
    _p(WHEEL_CONTROLLER, "steerAngle", unit="rad", notes="The steer angle of this wheel, set directly (a vehicle without a drive). Resolves to: 0. Valid range: not checked."),
    # -- nonlinear command response (multiple-apply: steer, brakes0, brakes1, drive)
    _p(NCR, "commandValues", unit="1", default=(), notes="The command values (0 to 1, increasing) for which a response graph is given."),
    _p(NCR, "speedResponsesPerCommandValue", default=(), notes="For each command value, where its graph starts in speedResponses."),
    _p(NCR, "speedResponses", unit="(m/s, 1)", default=(), component_dims=(LENGTH, NONE), notes="The response graphs, one after the other: points (longitudinal speed, response multiplier)."),
)

# Quantities of the description that do not come from a vehicle schema but still carry units.
RIGID_BODY = "rigidBody"
SCENE = "scene"
COLLISION = "collision"  # a collider's PhysxCollisionAPI offsets (read/collision.py derives the unauthored ones)
MATERIAL = "material"    # a physics material (UsdPhysics' MaterialAPI, PhysxMaterialAPI's combine modes)
COMBINE_MODES = ("average", "min", "multiply", "max")  # PxCombineMode's order: the higher of two modes applies
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
    _p(RIGID_BODY, "solverVelocityIterationCount", default=1, range=Range(0.0, 255.0, hi_inclusive=True),
       range_code="RB_RANGE"),
    _p(RIGID_BODY, "enableGyroscopicForces", default=True),
    _p(RIGID_BODY, "maxDepenetrationVelocity", unit="m/s", dim=LENGTH, default=3.0,
       range=Range(0.0, FLT_MAX, hi_inclusive=True), range_code="RB_RANGE",
       notes="the push a contact's penetration may add to the body's speed"),
    _p(RIGID_BODY, "sleepThreshold", unit="m^2/s^2", dim=LENGTH2, default=5e-5 * 10.0 ** 2,
       range=Range(0.0, FLT_MAX, hi_inclusive=True), range_code="RB_RANGE",
       notes="the mass-normalised kinetic energy below which the body may fall asleep (omni.physx's default: 5e-5 "
       "times the square of the tolerance speed, 10 m/s); 0: the body never sleeps"),
    _p(RIGID_BODY, "disableGravity", default=False,
       notes="omni.physx disables gravity on a vehicle's actor whatever this says (vehicle2 applies gravity itself)"),
    _p(SCENE, "gravityDirection", unit="1"),
    _p(SCENE, "gravityMagnitude", unit="m/s^2", dim=LENGTH),
    # PhysxSceneAPI (NVIDIA's physxSchema): the scene's contact thresholds as omni.physx hands them to PhysX
    # (usdLoad/Scene.cpp): only where the API is applied, an authored value clamped into its range (infinities to the
    # bounds). The range is in stage units, as omni.physx checks it.
    _p(SCENE, "bounceThreshold", unit="m/s", dim=LENGTH, default=1e-6, range=Range(1e-6, FLT_MAX, hi_inclusive=True),
       range_code="SCENE_RANGE", notes="a contact approaching faster than this bounces with its restitution "
       "(omni.physx's default is 1e-6 in stage units, unscaled: the same next to any speed that bounces)"),
    _p(SCENE, "frictionOffsetThreshold", unit="m", dim=LENGTH, default=0.04,
       range=Range(0.0, FLT_MAX, hi_inclusive=True), range_code="SCENE_RANGE",
       notes="a contact this near (beyond the pair's rest offsets) may anchor its patch's friction"),
    _p(SCENE, "timeStepsPerSecond", unit="1/s", default=60, range=Range(1.0, 4294967295.0, hi_inclusive=True),
       range_code="SCENE_RANGE", notes="how many steps a second the scene takes (a uint); the simulator's default "
       "step, 1/timeStepsPerSecond (omni.physx's 60 where PhysxSceneAPI authors none)"),
    _p(SCENE, "solverType", default="TGS", tokens=("TGS", "PGS"), range_code="SOLVER_TYPE",
       notes="the PhysX solver of the scene's rigid bodies: TGS (sub-stepped position iterations) or PGS (one pose "
       "update after the position iterations; the velocity iterations change only the velocity); omni.physx keeps "
       "TGS for any other token"),
    _p(VEHICLE, "referenceFrameIsCenterOfMass"),
    # A collider's offsets as omni.physx gives them to its PxShape (usdLoad/Collision.cpp, usdInterface/UsdInterface.cpp):
    # read only where PhysxCollisionAPI is applied; -inf (or unauthored) means "work it out": a plane's contact offset
    # is this default, any other shape's 0.02 of its box's smallest side but at least 2 g dt^2 (plus a positive rest
    # offset), so its provenance is "computed"
    _p(COLLISION, "contactOffset", unit="m", dim=LENGTH, default=0.02, sentinel=-INF,
       range=Range(0.0, FLT_MAX, hi_inclusive=True), range_code="CONTACT_OFFSET",
       notes="how near two shapes come before PhysX makes contacts between them (the sum of theirs)"),
    _p(COLLISION, "restOffset", unit="m", dim=LENGTH, default=0.0, sentinel=-INF,
       range=Range(-FLT_MAX, FLT_MAX, hi_inclusive=True), range_code="CONTACT_OFFSET",
       notes="the separation at which two shapes rest (the sum of theirs)"),
    # A physics material as PhysX meets it. The defaults are omni.physx's default material (usdLoad/Material.cpp
    # setToDefault), which a collider with no material bound collides with; a bound material's unauthored friction
    # and restitution are UsdPhysics' schema fallbacks (0), its unauthored or unknown combine modes "average"
    _p(MATERIAL, "staticFriction", unit="1", default=0.5, range=Range(0.0, FLT_MAX), range_code="MATERIAL_RANGE",
       notes="the friction coefficient below which a contact sticks (combined with the other shape's)"),
    _p(MATERIAL, "dynamicFriction", unit="1", default=0.5, range=Range(0.0, FLT_MAX), range_code="MATERIAL_RANGE",
       notes="the friction coefficient of a sliding contact (combined with the other shape's)"),
    _p(MATERIAL, "restitution", unit="1", default=0.0, range=Range(0.0, 1.0, hi_inclusive=True),
       range_code="MATERIAL_RANGE", notes="the share of the closing speed a contact gives back (above the scene's "
       "bounceThreshold; combined with the other shape's)"),
    _p(MATERIAL, "frictionCombineMode", default="average", tokens=COMBINE_MODES, range_code="COMBINE_MODE",
       notes="how two materials' frictions combine (the higher mode of the two applies); PhysxMaterialAPI"),
    _p(MATERIAL, "restitutionCombineMode", default="average", tokens=COMBINE_MODES, range_code="COMBINE_MODE",
       notes="how two materials' restitutions combine (the higher mode of the two applies); PhysxMaterialAPI"),
)

TABLE_BY_KEY: dict[tuple[str, str], Prop] = {p.key: p for p in TABLE_ROWS + DERIVED_ROWS}

PHYSX_RIGID_BODY = "physxRigidBody"  # the attribute namespace of PhysxRigidBodyAPI
PHYSX_RIGID_BODY_ROWS: tuple[Prop, ...] = tuple(p for p in DERIVED_ROWS if p.schema == RIGID_BODY and p.default is not None)


PHYSX_SCENE = "physxScene"  # the attribute namespace of PhysxSceneAPI
PHYSX_SCENE_ROWS: tuple[Prop, ...] = tuple(p for p in DERIVED_ROWS if p.schema == SCENE and p.default is not None)


PHYSX_MATERIAL = "physxMaterial"  # the attribute namespace of PhysxMaterialAPI
PHYSX_MATERIAL_ROWS: tuple[Prop, ...] = tuple(p for p in DERIVED_ROWS if p.schema == MATERIAL and p.tokens)
MATERIAL_VALUE_ROWS: tuple[Prop, ...] = tuple(p for p in DERIVED_ROWS if p.schema == MATERIAL and not p.tokens)


def physx_material_attribute(base: str) -> str:
    """The USD name of a PhysxMaterialAPI property (NVIDIA's schema need not be registered to read it)."""
    return f"{PHYSX_MATERIAL}:{base}"


def physx_scene_attribute(base: str) -> str:
    """The USD name of a PhysxSceneAPI property (NVIDIA's schema need not be registered to read it)."""
    return f"{PHYSX_SCENE}:{base}"


def physx_rigid_body_attribute(base: str) -> str:
    """The USD name of a PhysxRigidBodyAPI property (NVIDIA's schema need not be registered to read it)."""
    return f"{PHYSX_RIGID_BODY}:{base}"


def prop(schema: str, base: str) -> Prop:
    return TABLE_BY_KEY[(schema, base)]


@lru_cache(maxsize=None)
def schema_definition(schema: str):
    registry = Usd.SchemaRegistry()
    return registry.FindConcretePrimDefinition(schema) or registry.FindAppliedAPIPrimDefinition(schema)


@lru_cache(maxsize=None)
def _full_names(schema: str) -> dict[str, str]:
    definition = schema_definition(schema)
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
    definition = schema_definition(schema)
    attr = definition.GetAttributeDefinition(_full_names(schema)[base])
    return attr.GetFallbackValue() if attr else None


def rows_of(schema: str) -> list[Prop]:
    return [p for p in TABLE_ROWS if p.schema == schema]


ALL_SCHEMAS: tuple[str, ...] = tuple(dict.fromkeys(p.schema for p in TABLE_ROWS))
