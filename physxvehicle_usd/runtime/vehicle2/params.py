"""PhysX vehicle2 parameter records (*Params): what VehicleGenerator hands to PhysX for one vehicle.

Every field says its meaning, unit and range. Units: stage units throughout (lengths in stage length units,
masses in stage mass units, angles in radians, time in seconds), exactly as Omni hands them to PhysX.
Quaternions are (w, x, y, z). `build.build_vehicle_params` fills them from a stage description.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...description import Block, VehicleDescription, WheelDescription

# ---------------------------------------------------------------------------------------------------
# Constants shared with PhysX vehicle2 (PxVehicleLimits and friends)

MAX_NB_WHEELS = 20
MAX_NB_GEARS = 32  # reverse + neutral + 30 forward
MAX_TORQUE_CURVE_POINTS = 8
MAX_NB_COMMAND_VALUES = 8
MAX_NB_SPEED_RESPONSES = 64
AUTOMATIC_GEAR = 255
NEUTRAL_GEAR = 1  # Omni always inserts neutral at PhysX index 1 (reverse is 0)
# Omni hard-codes the old PhysX 3/4 tire load filter: (x0, y0) = (0, 0.2308), (x1, y1) = (3, 3).
TIRE_LOAD_FILTER = ((0.0, 0.2308), (3.0, 3.0))
# Omni's thresholdForwardSpeedForWheelAngleIntegration: 5 m/s, in stage lengths per second.
WHEEL_ANGLE_THRESHOLD_SPEED = 5.0

DRIVE_NONE = 0  # wheels driven through PhysxVehicleWheelControllerAPI (raw wheel control)
DRIVE_BASIC = 1  # PxVehicleDirectDrive
DRIVE_STANDARD = 2  # PxVehicleEngineDrive

QUERY_RAYCAST = 0
QUERY_SWEEP = 1

# Command-response systems, in the order used by the batched nonlinear tables.
RESPONSE_BRAKE0, RESPONSE_BRAKE1, RESPONSE_STEER, RESPONSE_DRIVE = range(4)
RESPONSE_NAMES = ("brakes0", "brakes1", "steer", "drive")

AXIS_VECTORS = {
    "posX": (1.0, 0.0, 0.0), "negX": (-1.0, 0.0, 0.0),
    "posY": (0.0, 1.0, 0.0), "negY": (0.0, -1.0, 0.0),
    "posZ": (0.0, 0.0, 1.0), "negZ": (0.0, 0.0, -1.0),
}


class VehicleParamsError(ValueError):
    """The description cannot be turned into vehicle2 parameters (message says why)."""


Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


# ---------------------------------------------------------------------------------------------------
# Per-vehicle parameter records (vehicle2 *Params). Every field: meaning [unit, range].


@dataclass(frozen=True)
class FrameParams:
    """PxVehicleFrame: signed world-basis axes of the vehicle [unit vectors]. lat = vrt x lng (Omni)."""

    lng_axis: Vec3  # forward direction e_f
    lat_axis: Vec3  # lateral direction e_s
    vrt_axis: Vec3  # up direction e_u


@dataclass(frozen=True)
class ScaleParams:
    """PxVehicleScale: length units per metre (1/metersPerUnit); PhysX tolerances length in Omni."""

    scale: float  # [stage length units per metre, > 0]


@dataclass(frozen=True)
class ContextParams:
    """Simulation-context values Omni sets per vehicle (PxVehiclePhysXSimulationContext and friends)."""

    gravity: Vec3  # scene gravity [length/s^2], world frame
    update_mode: str  # "velocityChange" (eAPPLY_VELOCITY) or "acceleration" (eAPPLY_ACCELERATION)
    wheel_angle_threshold_speed: float  # thresholdForwardSpeedForWheelAngleIntegration = 5*scale [length/s]
    substep_threshold_speed: float  # [length/s, >= 0]
    low_speed_substeps: int  # [1, 255]
    high_speed_substeps: int  # [1, 255]


@dataclass(frozen=True)
class RigidBodyParams:
    """PxVehicleRigidBodyParams plus the body frame in the actor frame (cMassLocalPose)."""

    mass: float  # [mass, > 0]
    moi: Vec3  # principal (mass-space) inertia diagonal [mass*length^2, > 0]
    com_position: Vec3  # cMassLocalPose.p: CoM in the actor frame (prim scale applied) [length]
    com_orientation: Quat  # cMassLocalPose.q: principal axes in the actor frame


@dataclass(frozen=True)
class RigidBodyInitialState:
    """Actor pose and velocities at creation (world frame, stage units)."""

    position: Vec3  # actor (prim) world position [length]
    orientation: Quat  # actor world orientation
    linear_velocity: Vec3  # [length/s]
    angular_velocity: Vec3  # [rad/s]


@dataclass(frozen=True)
class NonlinearResponseParams:
    """PxVehicleCommandNonLinearResponseParams: normalised response vs speed, per command value.

    curves[k] is the (speed, response) list for command_values[k]; speeds strictly increasing
    [length/s], responses in [0, 1]. Empty command_values = linear response.
    """

    command_values: tuple[float, ...] = ()
    curves: tuple[tuple[tuple[float, float], ...], ...] = ()


@dataclass(frozen=True)
class CommandResponseParams:
    """PxVehicleCommandResponseParams: response = command * max_response * wheel_multipliers[w]."""

    max_response: float  # brake torque [mass*length^2/s^2], steer angle [rad] or drive torque
    wheel_multipliers: tuple[float, ...]  # per wheel (PhysX wheel id order)
    nonlinear: NonlinearResponseParams = NonlinearResponseParams()


@dataclass(frozen=True)
class AckermannParams:
    """PxVehicleAckermannParams (Omni: wheel0 on the negative lateral side, wheel1 on the positive one)."""

    wheel_ids: tuple[int, int]
    wheel_base: float  # [length, > 0]
    track_width: float  # [length, > 0]
    strength: float  # [0, 1]


@dataclass(frozen=True)
class EngineParams:
    """PxVehicleEngineParams."""

    moi: float  # [mass*length^2, > 0]
    peak_torque: float  # [mass*length^2/s^2, >= 0]
    idle_omega: float  # [rad/s, >= 0]
    max_omega: float  # [rad/s, >= 0]
    torque_curve: tuple[tuple[float, float], ...]  # (normalised speed, normalised torque), <= 8 points
    damping_rate_full_throttle: float  # [mass*length^2/s, >= 0]
    damping_rate_zero_throttle_clutch_engaged: float
    damping_rate_zero_throttle_clutch_disengaged: float


@dataclass(frozen=True)
class GearboxParams:
    """PxVehicleGearboxParams in Omni's layout: ratios = (reverse, 0 (neutral), forward...)."""

    ratios: tuple[float, ...]  # [1], len = nb_ratios <= 32
    final_ratio: float  # USD ratioScale [1, > 0]
    switch_time: float  # [s, >= 0]
    neutral_gear: int = NEUTRAL_GEAR

    @property
    def nb_ratios(self) -> int:
        return len(self.ratios)


@dataclass(frozen=True)
class ClutchParams:
    """PxVehicleClutchCommandResponseParams + PxVehicleClutchParams (Omni: best-possible accuracy)."""

    strength: float  # maxResponse [mass*length^2/s, > 0]
    accuracy_mode: str = "bestPossible"
    estimate_iterations: int = 5


@dataclass(frozen=True)
class AutoboxParams:
    """PxVehicleAutoboxParams indexed by PhysX gear (0 reverse, 1 neutral, 2.. forward)."""

    up_ratios: tuple[float, ...]  # normalised engine speed to shift up from gear g [0, 1]
    down_ratios: tuple[float, ...]  # normalised engine speed to shift down from gear g [0, 1]
    latency: float  # [s, >= 0]


@dataclass(frozen=True)
class MultiWheelDifferentialParams:
    """PxVehicleMultiWheelDriveDifferentialParams (per wheel)."""

    torque_ratios: tuple[float, ...]  # [-1, 1]; != 0 means "connected"
    ave_wheel_speed_ratios: tuple[float, ...]  # [0, 1]


@dataclass(frozen=True)
class TankDifferentialParams:
    """PxVehicleTankDriveDifferentialParams: tracks on top of a multi-wheel differential."""

    torque_ratios: tuple[float, ...]
    ave_wheel_speed_ratios: tuple[float, ...]
    thrust_index_per_track: tuple[int, ...]  # 0 or 1
    wheels_per_track: tuple[tuple[int, ...], ...]  # wheel ids of each track, in track order


@dataclass(frozen=True)
class WheelParams:
    """PxVehicleWheelParams."""

    radius: float  # [length, > 0]
    half_width: float  # [length, > 0]
    mass: float  # [mass, > 0]
    moi: float  # [mass*length^2, > 0]
    damping_rate: float  # [mass*length^2/s, >= 0]


@dataclass(frozen=True)
class SuspensionParams:
    """PxVehicleSuspensionParams, in the rigid-body (CoM) frame."""

    attachment_position: Vec3  # wheel pose at maximum compression [length]
    attachment_orientation: Quat
    travel_direction: Vec3  # unit, normally down
    travel_distance: float  # [length, > 0]
    wheel_attachment_position: Vec3  # wheel pose in the suspension frame [length]
    wheel_attachment_orientation: Quat


@dataclass(frozen=True)
class SuspensionForceParams:
    """PxVehicleSuspensionForceParams."""

    stiffness: float  # [mass/s^2, >= 0]
    damping: float  # [mass/s, >= 0]
    sprung_mass: float  # [mass, > 0]


@dataclass(frozen=True)
class ComplianceParams:
    """PxVehicleSuspensionComplianceParams: <= 3-point graphs over normalised jounce [0, 1].

    Angles in rad; application points in the suspension frame relative to the attachment [length].
    """

    wheel_toe_angle: tuple[tuple[float, float], ...] = ()
    wheel_camber_angle: tuple[tuple[float, float], ...] = ()
    suspension_force_app_point: tuple[tuple[float, float, float, float], ...] = ()
    tire_force_app_point: tuple[tuple[float, float, float, float], ...] = ()


@dataclass(frozen=True)
class FrictionTableParams:
    """PxVehiclePhysXMaterialFrictionParams as Omni builds it: (material path, friction) + default."""

    ground_materials: tuple[str, ...] = ()
    friction_values: tuple[float, ...] = ()
    default_friction: float = 1.0

    def friction_for(self, material: str | None) -> float:
        for mat, value in zip(self.ground_materials, self.friction_values):
            if mat == material:
                return value
        return self.default_friction


@dataclass(frozen=True)
class TireForceParams:
    """PxVehicleTireForceParams."""

    lat_stiff_x: float  # normalised load at which lateral stiffness saturates [1, >= 0]
    lat_stiff_y: float  # lateral stiffness [force/rad, > 0]
    long_stiff: float  # [force per unit slip, > 0]
    camber_stiff: float  # [force/rad, >= 0]
    friction_vs_slip: tuple[tuple[float, float], tuple[float, float], tuple[float, float]]
    rest_load: float  # [force, > 0]
    load_filter: tuple[tuple[float, float], tuple[float, float]] = TIRE_LOAD_FILTER


@dataclass(frozen=True)
class TireSlipParams:
    """PxVehicleTireSlipParams [length/s, > 0]."""

    min_lat_slip_denominator: float
    min_passive_long_slip_denominator: float
    min_active_long_slip_denominator: float


@dataclass(frozen=True)
class TireStickyParams:
    """PxVehicleTireStickyParams per axis: (threshold speed [length/s], threshold time [s], damping [1/s])."""

    longitudinal: tuple[float, float, float]
    lateral: tuple[float, float, float]


@dataclass(frozen=True)
class SuspensionStateCalculationParams:
    """PxVehicleSuspensionStateCalculationParams."""

    query_type: int  # QUERY_RAYCAST or QUERY_SWEEP
    limit_expansion_velocity: bool


@dataclass(frozen=True)
class WheelComponentParams:
    """Everything vehicle2 keeps per wheel."""

    path: str
    wheel: WheelParams
    suspension: SuspensionParams
    suspension_force: SuspensionForceParams
    compliance: ComplianceParams
    tire: TireForceParams
    friction_table: FrictionTableParams
    # the wheel's resolved description, for parameters the simulator reads straight from it (sim/declare.py)
    description: WheelDescription | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ControlValues:
    """The description's controller values (PhysX command state; gears in PhysX indexing)."""

    accelerator: float = 0.0
    brake0: float = 0.0
    brake1: float = 0.0
    steer: float = 0.0
    target_gear: int = AUTOMATIC_GEAR  # PhysX index (USD gear + 1) or 255
    thrust0: float = 0.0
    thrust1: float = 0.0
    wheel_drive_torque: tuple[float, ...] = ()
    wheel_brake_torque: tuple[float, ...] = ()
    wheel_steer_angle: tuple[float, ...] = ()


@dataclass(frozen=True)
class VehicleParams:
    """One vehicle, as vehicle2 structs (what VehicleGenerator hands to PhysX)."""

    path: str
    drive_type: int  # DRIVE_NONE / DRIVE_BASIC / DRIVE_STANDARD
    frame: FrameParams
    scale: ScaleParams
    context: ContextParams
    rigid_body: RigidBodyParams
    initial_state: RigidBodyInitialState
    suspension_state_calculation: SuspensionStateCalculationParams
    tire_slip: TireSlipParams
    tire_sticky: TireStickyParams
    wheels: tuple[WheelComponentParams, ...]
    brakes: tuple[CommandResponseParams, CommandResponseParams]  # brakes0, brakes1 (max 0 when absent)
    steer: CommandResponseParams
    ackermann: AckermannParams | None
    throttle: CommandResponseParams | None  # direct drive only
    engine: EngineParams | None
    gearbox: GearboxParams | None
    clutch: ClutchParams | None
    autobox: AutoboxParams | None
    multi_wheel_differential: MultiWheelDifferentialParams | None
    tank_differential: TankDifferentialParams | None
    controls: ControlValues
    initial_gear: int  # PhysX gearbox current = target at creation (standard drive)
    enabled: bool = True
    # the vehicle's resolved description, for parameters the simulator reads straight from it (sim/declare.py)
    description: VehicleDescription | None = field(default=None, compare=False, repr=False)
    # its scene's resolved block (gravity, contact thresholds, solver), None where the vehicle has no scene
    scene: Block | None = field(default=None, compare=False, repr=False)

    @property
    def nb_wheels(self) -> int:
        return len(self.wheels)
