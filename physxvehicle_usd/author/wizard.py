"""Vehicle parameters scaled from a reference car, following the rules of Omniverse's vehicle wizard.

The wizard keeps the wheel's angular-velocity dynamics of a reference car (4 x 2 x 1 m, 1800 kg, wheels
of 0.35 m radius and 20 kg): everything that acts on a wheel's moment of inertia scales with it, i.e.
with (wheel mass ratio) * (wheel radius ratio)^2, and a partial top-speed preservation term divides by the
radius ratio. Suspensions are sized so that each wheel sits at half its travel at rest (linear springs
that reach zero force at full droop) with a damping ratio per axle. All numbers here are SI
(metres, kilograms, seconds); `describe.py` turns them into stage units.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

# -- the reference vehicle (SI) ------------------------------------------------------------------------
REF_CHASSIS_LENGTH = 4.0
REF_CHASSIS_WIDTH = 2.0
REF_CHASSIS_HEIGHT = 1.0
REF_CHASSIS_MASS = 1800.0
REF_ENGINE_MOI = 1.0
REF_PEAK_TORQUE_STANDARD = 500.0
REF_PEAK_TORQUE_BASIC = 1000.0
REF_ENGINE_MAX_ROTATION_SPEED = 600.0
REF_ENGINE_DAMPING_FULL_THROTTLE = 0.15
REF_ENGINE_DAMPING_CLUTCH_ENGAGED = 2.0
REF_ENGINE_DAMPING_CLUTCH_DISENGAGED = 0.35
REF_CLUTCH_STRENGTH = 10.0
REF_WHEEL_RADIUS = 0.35
REF_WHEEL_WIDTH = 0.15
REF_WHEEL_MASS = 20.0
REF_WHEEL_DAMPING_RATE = 0.25
REF_BRAKE_TORQUE = 3600.0
REF_LONGITUDINAL_STIFFNESS = 500.0 * 9.81
REF_CAMBER_STIFFNESS = 0.0
REF_SLEEP_THRESHOLD = 0.005          # m^2/s^2
REF_STABILIZATION_THRESHOLD = 0.001  # m^2/s^2
REF_CONTACT_OFFSET = 0.02            # m
TOP_SPEED_PRESERVATION = 0.8         # 0: keep wheel dynamics only, 1: also keep the top speed
LATERAL_STIFFNESS_PER_REST_LOAD = 17.0
LATERAL_STIFFNESS_LOAD_FLATTENS_AT = 2.0   # x of the lateral stiffness graph, in rest loads
GRAVITY = 9.81
SCENE_STEPS_PER_SECOND = 60.0
SAMPLES_PER_SPRING_PERIOD = 10.0

REF_CHASSIS_DENSITY = REF_CHASSIS_MASS / (REF_CHASSIS_LENGTH * REF_CHASSIS_WIDTH * REF_CHASSIS_HEIGHT)
REF_WHEEL_DENSITY = REF_WHEEL_MASS / (math.pi * REF_WHEEL_RADIUS ** 2 * REF_WHEEL_WIDTH)
# Tiny vehicles get denser parts (the wizard's lerp between 1 cm and 10 cm vehicle lengths).
_SMALL_LENGTH, _SMALL_DENSITY_SCALE = 0.01, 20.0
_DEFAULT_LENGTH, _DEFAULT_DENSITY_SCALE = 0.1, 1.0


def _density_scale(length: float, small: float, default: float) -> float:
    if length >= default:
        return _DEFAULT_DENSITY_SCALE
    if length <= small:
        return _SMALL_DENSITY_SCALE
    t = (length - small) / (default - small)
    return _SMALL_DENSITY_SCALE + t * (_DEFAULT_DENSITY_SCALE - _SMALL_DENSITY_SCALE)


def chassis_mass(length: float, width: float, height: float) -> float:
    return _density_scale(length, _SMALL_LENGTH, _DEFAULT_LENGTH) * REF_CHASSIS_DENSITY * length * width * height


def wheel_radius(chassis_length: float) -> float:
    return REF_WHEEL_RADIUS / REF_CHASSIS_LENGTH * chassis_length


def wheel_width(radius: float) -> float:
    return REF_WHEEL_WIDTH / REF_WHEEL_RADIUS * radius


def wheel_mass(radius: float, width: float) -> float:
    ratio = REF_WHEEL_RADIUS / REF_CHASSIS_LENGTH
    scale = _density_scale(radius, _SMALL_LENGTH * ratio, _DEFAULT_LENGTH * ratio)
    return scale * REF_WHEEL_DENSITY * math.pi * radius ** 2 * width


@dataclass(frozen=True)
class Scaling:
    """The wizard's factors relative to the reference wheel."""

    mass_ratio: float
    radius_ratio: float

    @property
    def stiffness(self) -> float:      # forces acting through the wheel radius
        return self.mass_ratio * self.radius_ratio

    @property
    def moi(self) -> float:            # moments of inertia, torques, damping rates
        return self.stiffness * self.radius_ratio

    @property
    def top_speed(self) -> float:
        return 1.0 / (self.radius_ratio * TOP_SPEED_PRESERVATION + (1.0 - TOP_SPEED_PRESERVATION))

    @classmethod
    def of_wheel(cls, radius: float, mass: float) -> "Scaling":
        return cls(mass / REF_WHEEL_MASS, radius / REF_WHEEL_RADIUS)


def gear_ratios(count: int) -> list[float]:
    """Reverse, then `count` forward gears decaying exponentially from `count`:1 to 1:1."""
    if count > 1:
        tau = -(count - 1) / math.log(1.0 / count)
        forward = [count * math.exp(-(gear - 1) / tau) for gear in range(1, count + 1)]
    else:
        forward = [1.0]
    return [-forward[0], *forward]


@dataclass(frozen=True)
class Suspension:
    sprung_mass: float
    spring_strength: float
    damper_rate: float
    travel: float
    max_compression: float

    @property
    def natural_frequency(self) -> float:
        return math.sqrt(self.spring_strength / self.sprung_mass) / (2.0 * math.pi)


def suspension(sprung_mass: float, radius: float, damping_ratio: float, gravity: float = GRAVITY) -> Suspension:
    """Half the radius of compression and of droop; the spring reaches zero force at full droop."""
    max_compression = max_droop = 0.5 * radius
    spring = sprung_mass * gravity / max_droop
    damper = 2.0 * damping_ratio * math.sqrt(spring * sprung_mass)
    return Suspension(sprung_mass, spring, damper, max_compression + max_droop, max_compression)


def sub_steps(max_natural_frequency: float) -> tuple[int, int]:
    """(low, high) forward-speed sub-step counts that sample the stiffest spring ten times per period."""
    needed = math.ceil(max_natural_frequency * SAMPLES_PER_SPRING_PERIOD / SCENE_STEPS_PER_SECOND)
    return max(3, needed), max(1, needed)


def box_inertia(mass: float, longitudinal: float, lateral: float, vertical: float) -> dict[str, float]:
    """Diagonal inertia of a solid box about its centre, per body axis role."""
    k = mass / 12.0
    return {"longitudinal": k * (lateral ** 2 + vertical ** 2),
            "lateral": k * (longitudinal ** 2 + vertical ** 2),
            "vertical": k * (longitudinal ** 2 + lateral ** 2)}


@dataclass
class EngineParams:
    moi: float
    peak_torque: float
    max_rotation_speed: float
    damping_full_throttle: float
    damping_clutch_engaged: float
    damping_clutch_disengaged: float
    torque_curve: list[tuple[float, float]] = field(default_factory=lambda: [(0.0, 0.8), (0.33, 1.0), (1.0, 0.8)])


def engine(scaling: Scaling) -> EngineParams:
    """Peak torque = reference * moi scaling * top-speed scaling (the wizard's horsepower round trip)."""
    return EngineParams(
        moi=REF_ENGINE_MOI * scaling.moi,
        peak_torque=REF_PEAK_TORQUE_STANDARD * scaling.moi * scaling.top_speed,
        max_rotation_speed=REF_ENGINE_MAX_ROTATION_SPEED * scaling.top_speed,
        damping_full_throttle=REF_ENGINE_DAMPING_FULL_THROTTLE * scaling.moi,
        damping_clutch_engaged=REF_ENGINE_DAMPING_CLUTCH_ENGAGED * scaling.moi,
        damping_clutch_disengaged=REF_ENGINE_DAMPING_CLUTCH_DISENGAGED * scaling.moi,
    )


def basic_drive_torque(scaling: Scaling) -> float:
    return REF_PEAK_TORQUE_BASIC * scaling.moi * scaling.top_speed


def clutch_strength(scaling: Scaling) -> float:
    return REF_CLUTCH_STRENGTH * scaling.moi


def brake_torque(scaling: Scaling) -> float:
    return REF_BRAKE_TORQUE * scaling.moi * scaling.top_speed


def longitudinal_stiffness(scaling: Scaling) -> float:
    return REF_LONGITUDINAL_STIFFNESS * scaling.stiffness * scaling.top_speed


def camber_stiffness(scaling: Scaling) -> float:
    return REF_CAMBER_STIFFNESS * scaling.mass_ratio


def lateral_stiffness_graph(vehicle_mass: float, wheel_count: int, gravity: float = GRAVITY) -> tuple[float, float]:
    rest_load = vehicle_mass / wheel_count * gravity
    return (LATERAL_STIFFNESS_LOAD_FLATTENS_AT, LATERAL_STIFFNESS_PER_REST_LOAD * rest_load)


def wheel_moi(mass: float, radius: float) -> float:
    return 0.5 * mass * radius ** 2


def wheel_damping_rate(scaling: Scaling) -> float:
    return REF_WHEEL_DAMPING_RATE * scaling.moi


def sleep_thresholds(scaling: Scaling) -> tuple[float, float]:
    """(sleep, stabilization) energy thresholds, m^2/s^2, scaled linearly with the wheel radius."""
    return REF_SLEEP_THRESHOLD * scaling.radius_ratio, REF_STABILIZATION_THRESHOLD * scaling.radius_ratio


def contact_offset(chassis_length: float) -> float:
    return chassis_length * REF_CONTACT_OFFSET / REF_CHASSIS_LENGTH


def axle_positions(chassis_length: float, radius: float, axles: int) -> list[float]:
    """Longitudinal axle positions from the chassis centre, front first: two radii in from each end."""
    if axles == 1:
        return [0.0]
    first = 0.5 * chassis_length - 2.0 * radius
    spacing = (chassis_length - 4.0 * radius) / (axles - 1)
    return [first - i * spacing for i in range(axles)]
