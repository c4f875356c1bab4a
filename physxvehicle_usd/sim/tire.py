"""Tire: directions, contact speeds, slips, camber, load and friction, sticky state, combined-slip force.

Sections 4.1-4.9 of the numerics digest (vehicle2 tire/; Omni uses the non-legacy functions).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import properties as P
from . import vecmath as vm
from .declare import F32, I32, Derived, Param, State

if TYPE_CHECKING:  # (sim/state.py builds SimState from these modules' declarations)
    from .state import SimParams, SimState

PARAMS = (
    Param("min_lat_slip_denominator", source=(P.VEHICLE, "minLateralSlipDenominator"), unit="length/s"),
    Param("min_passive_long_slip_denominator", source=(P.VEHICLE, "minPassiveLongitudinalSlipDenominator"),
          unit="length/s"),
    Param("min_active_long_slip_denominator", source=(P.VEHICLE, "minActiveLongitudinalSlipDenominator"),
          unit="length/s"),
    Param("sticky_lng_speed", source=(P.VEHICLE, "longitudinalStickyTireThresholdSpeed"), unit="length/s"),
    Param("sticky_lng_time", source=(P.VEHICLE, "longitudinalStickyTireThresholdTime"), unit="s"),
    Param("sticky_lng_damping", source=(P.VEHICLE, "longitudinalStickyTireDamping"), unit="1/s"),
    Param("sticky_lat_speed", source=(P.VEHICLE, "lateralStickyTireThresholdSpeed"), unit="length/s"),
    Param("sticky_lat_time", source=(P.VEHICLE, "lateralStickyTireThresholdTime"), unit="s"),
    Param("sticky_lat_damping", source=(P.VEHICLE, "lateralStickyTireDamping"), unit="1/s"),
    Param("lat_stiff_x", source=(P.TIRE, "lateralStiffnessGraph"), transform=lambda graph: graph[0], kernel=F32),
    Param("lat_stiff_y", source=(P.TIRE, "lateralStiffnessGraph"), transform=lambda graph: graph[1], pad=1.0,
          unit="force/rad", kernel=F32),
    Param("long_stiff", source=(P.TIRE, "longitudinalStiffness"), pad=1.0, unit="force", kernel=F32),
    Param("camber_stiff", source=(P.TIRE, "camberStiffness"), unit="force/rad", kernel=F32),
    Param("friction_vs_slip", source=(P.TIRE, "frictionVsSlipGraph"), shape=(3, 2)),
    Param("rest_load", source=(P.TIRE, "restLoad"), pad=1.0, unit="force", kernel=F32),
    Param("load_filter", wheel=lambda w: w.tire.load_filter, shape=(2, 2)),
    Param("friction_table_id", shape=("W",), dtype=np.int64),  # the batch's table of friction tables
)


def _point(graph: str, point: int, axis: int):
    """A graph's point coordinate as a contiguous per-wheel array: (load filter or friction-vs-slip, point, x or y)."""
    return lambda p, b: np.ascontiguousarray(b.arrays[graph][..., point, axis])


def _slope(x0: str, y0: str, x1: str, y1: str):
    """A graph segment's slope from its end points (0 where the segment has no length)."""
    def value(p, b):
        x0_, x1_ = getattr(p, x0), getattr(p, x1)
        return (getattr(p, y1) - getattr(p, y0)) / np.where(x1_ > x0_, x1_ - x0_, 1.0)
    return value


def _lateral_saturation(p, b) -> np.ndarray:
    x = b.lat_stiff_x
    return np.where(x == 0.0, 0.0, 3.0 / np.where(x == 0.0, 1.0, x))


def _per_wheel(name: str):
    return lambda p, b: vm.per_wheel(b.arrays[name], p.W)


_PER_WHEEL = ("min_lat_slip_denominator", "min_active_long_slip_denominator", "min_passive_long_slip_denominator",
              "sticky_lng_speed", "sticky_lng_time", "sticky_lat_speed", "sticky_lat_time")

# what SimParams.from_batch derives: the load filter and friction graphs as points and slopes, the lateral
# saturation, the per-vehicle slip and sticky values repeated over wheels (the kernel takes these); which paths the
# batch takes, and the batch's friction tables (friction_table_id indexes them)
DERIVED = (
    Derived("lat_saturation", F32, _lateral_saturation),
    Derived("load_x0", F32, _point("load_filter", 0, 0)), Derived("load_y0", F32, _point("load_filter", 0, 1)),
    Derived("load_x1", F32, _point("load_filter", 1, 0)), Derived("load_y1", F32, _point("load_filter", 1, 1)),
    Derived("load_slope", F32, _slope("load_x0", "load_y0", "load_x1", "load_y1")),
    *(Derived(f"fvs_x{i}", F32, _point("friction_vs_slip", i, 0)) for i in range(3)),
    *(Derived(f"fvs_y{i}", F32, _point("friction_vs_slip", i, 1)) for i in range(3)),
    Derived("fvs_slope0", F32, _slope("fvs_x0", "fvs_y0", "fvs_x1", "fvs_y1")),
    Derived("fvs_slope1", F32, _slope("fvs_x1", "fvs_y1", "fvs_x2", "fvs_y2")),
    *(Derived(f"{name}_w", F32, _per_wheel(name)) for name in _PER_WHEEL),
    *(Derived(f"{name}_w", value=_per_wheel(name)) for name in ("sticky_lng_damping", "sticky_lat_damping")),
    Derived("any_camber_stiffness", value=lambda p, b: bool((b.camber_stiff != 0.0).any())),
    Derived("any_lat_stiff_x_zero", value=lambda p, b: bool(((b.lat_stiff_x == 0.0) & b.wheel_mask).any())),
    Derived("friction_tables", value=lambda p, b: b.friction_tables),
)

# PxVehicleTireStickyState and the low-speed timers of PxVehicleTireSlipState's computation
STATES = (
    State("lng_low_speed_time", unit="s", shape=("W",), substep=True, kernel=F32, kernel_writes=True),
    State("lat_low_speed_time", unit="s", shape=("W",), substep=True, kernel=F32, kernel_writes=True),
    State("sticky_lng", initial=False, dtype=bool, shape=("W",), substep=True, kernel=I32, kernel_writes=True),
    State("sticky_lat", initial=False, dtype=bool, shape=("W",), substep=True, kernel=I32, kernel_writes=True),
)

ONE_THIRD = 0.33333  # the truncated literals PhysX uses in its smoothing functions
ONE_TWENTYSEVENTH = 0.037037
SLIP_DEAD_ZONE = 1e-5


def smoothing1(k: np.ndarray) -> np.ndarray:
    return np.minimum(1.0, k - ONE_THIRD * k * k + ONE_TWENTYSEVENTH * k * k * k)


@dataclass
class TireState:
    lng_dir: np.ndarray  # (3, V, W) world, 0 off ground
    lat_dir: np.ndarray
    lng_speed: np.ndarray  # (V, W)
    lat_speed: np.ndarray
    lng_slip: np.ndarray  # after sticky zeroing (what PhysX reports)
    lat_slip: np.ndarray
    camber: np.ndarray
    load: np.ndarray
    friction: np.ndarray
    lng_force: np.ndarray  # magnitudes along the directions
    lat_force: np.ndarray
    wheel_torque: np.ndarray  # -F_lng * r
    force: np.ndarray  # (3, V, W) world
    torque: np.ndarray  # (3, V, W) about the CoM
    app_arm: np.ndarray  # (3, V, W) CoM -> tire force application point (world orientation)


def vehicle_intent(applied: np.ndarray) -> np.ndarray:
    """4.7: a vehicle means to accelerate (or brake) when any of its wheels is driven (braked); per vehicle (V,)."""
    return vm.any_wheels(applied)


def wheel_axes_body(p: SimParams, steer: np.ndarray, toe: np.ndarray, camber: np.ndarray):
    """Lateral and forward axis of a_q * R(camber, 0, steer + toe) * w_q (spin ignored), body frame."""
    yaw = steer + toe
    if not p.has_compliance_angles:  # no camber: the yaw basis of SimParams does it in two products
        c, s_ = np.cos(yaw), np.sin(yaw)
        return (p.lat_yaw[0] * c + p.lat_yaw[1] * s_ + p.lat_yaw[2],
                p.lng_yaw[0] * c + p.lng_yaw[1] * s_ + p.lng_yaw[2])
    lat = vm.rotate_about(p.e_f, camber, p.w_lat)
    lng = vm.rotate_about(p.e_f, camber, p.w_lng)
    lat = vm.rotate_about(p.e_u, yaw, lat)
    lng = vm.rotate_about(p.e_u, yaw, lng)
    return vm.matvec(p.A_q, lat), vm.matvec(p.A_q, lng)


def wheel_axes(p: SimParams, R: np.ndarray, steer: np.ndarray, toe: np.ndarray, camber: np.ndarray):
    """Lateral and forward axis of q_B * a_q * R(camber, 0, steer + toe) * w_q (spin ignored), world frame."""
    lat, lng = wheel_axes_body(p, steer, toe, camber)
    Rw = R[:, :, :, None]
    return vm.matvec(Rw, lat), vm.matvec(Rw, lng)


def tire_directions(lat_axis: np.ndarray, normal: np.ndarray, on_ground: np.ndarray):
    """4.1 longitudinal and lateral directions in the ground plane (zero off the ground). Returns (t_lng, t_lat)."""
    t_lng = vm.normalize(vm.cross(lat_axis, normal)) * on_ground
    t_lat = vm.cross(normal, t_lng)  # unit (or zero off the ground) already: normal and t_lng are orthonormal
    return t_lng, t_lat


def contact_speeds(p: SimParams, linear_velocity: np.ndarray, angular_velocity: np.ndarray, centre_offset: np.ndarray,
                   d_w: np.ndarray, t_lng: np.ndarray, t_lat: np.ndarray):
    """4.2 speed of the wheel bottom on the suspension line (centre_offset: wheel centre - body position), along the
    tire directions. Returns (longitudinal, lateral)."""
    rel = centre_offset + d_w * p.radius
    u = linear_velocity + vm.cross(angular_velocity, rel)
    return vm.dot(u, t_lng), vm.dot(u, t_lat)


def tire_slips(p: SimParams, vx: np.ndarray, vy: np.ndarray, omega: np.ndarray, applied: np.ndarray):
    """4.3 (longitudinal, lateral) slip; applied: the wheel is driven or braked (the active denominator)."""
    lat_slip = np.arctan(vy / (np.abs(vx) + p.min_lat_slip_denominator_w))
    denom = np.abs(vx) + np.where(applied, p.min_active_long_slip_denominator_w, p.min_passive_long_slip_denominator_w)
    lng_slip = np.where((vx == 0.0) & (omega == 0.0), 0.0, (omega * p.radius - vx) / denom)
    return lng_slip, lat_slip


def tire_camber(normal: np.ndarray, lng_axis: np.ndarray, lat_axis: np.ndarray, on_ground: np.ndarray) -> np.ndarray:
    """4.4 camber relative to the ground (0 off the ground)."""
    beta = vm.dot(normal, lng_axis)
    T = vm.normalize(normal - lng_axis * beta)
    return np.where(on_ground, np.arcsin(np.clip(vm.dot(T, lat_axis), -1.0, 1.0)), 0.0)


def tire_load(p: SimParams, normal_force: np.ndarray, on_ground: np.ndarray) -> np.ndarray:
    """4.5 the suspension force through the load filter (0 off the ground)."""
    xn = normal_force / p.rest_load
    y = np.where(xn <= p.load_x0, p.load_y0, np.where(xn >= p.load_x1, p.load_y1, p.load_y0 + (xn - p.load_x0) * p.load_slope))
    return np.where(on_ground, p.rest_load * y, 0.0)


def tire_friction(p: SimParams, lng_slip: np.ndarray, road_friction: np.ndarray, on_ground: np.ndarray) -> np.ndarray:
    """4.6 road friction times the friction-vs-slip graph at |longitudinal slip| (0 off the ground)."""
    ak = np.abs(lng_slip)
    gx0, gx1, gx2, gy0, gy1, gy2 = p.fvs_x0, p.fvs_x1, p.fvs_x2, p.fvs_y0, p.fvs_y1, p.fvs_y2
    g = np.where(ak < gx1, gy0 + (ak - gx0) * p.fvs_slope0, np.where(ak < gx2, gy1 + (ak - gx1) * p.fvs_slope1, gy2))
    return np.where(on_ground, road_friction * g, 0.0)


def sticky_tire_state(p: SimParams, vx: np.ndarray, vy: np.ndarray, omega: np.ndarray, load: np.ndarray,
                      friction: np.ndarray, accel_intent: np.ndarray, brake_intent: np.ndarray, lng_time: np.ndarray,
                      lat_time: np.ndarray, dt: float | np.ndarray):
    """4.7 low-speed timers and sticky flags from the timers before this substep and the vehicle's intents.
    Returns (lng_time, lat_time, sticky_lng, sticky_lat)."""
    gripping = (load * friction) != 0.0
    v_lng, t_lng_thr = p.sticky_lng_speed_w, p.sticky_lng_time_w
    v_lat, t_lat_thr = p.sticky_lat_speed_w, p.sticky_lat_time_w
    slow_lng = (np.abs(vx) < v_lng) & (np.abs(omega * p.radius) < v_lng) & ~accel_intent
    lng_time = np.where(gripping & slow_lng, lng_time + dt, 0.0)
    sticky_lng = gripping & (((np.abs(vx) < v_lng) & (omega == 0.0) & brake_intent) | (lng_time > t_lng_thr))
    slow_lat = (np.abs(vy) < v_lat) & ~accel_intent
    lat_time = np.where(gripping & slow_lat, lat_time + dt, 0.0)
    sticky_lat = gripping & (lng_time > 0.0) & (lat_time > t_lat_thr)
    return lng_time, lat_time, sticky_lng, sticky_lat


def tire_force_model(p: SimParams, lng_slip, lat_slip, camber, load, friction):
    """4.8 computeTireForceMichiganModel. Returns (F_lng, F_lat)."""
    lat_s = np.where(np.abs(lat_slip) >= SLIP_DEAD_ZONE, lat_slip, 0.0)
    lng_s = np.where(np.abs(lng_slip) >= SLIP_DEAD_ZONE, lng_slip, 0.0)
    normalised = load / p.rest_load
    lat_stiff = p.lat_stiff_y * smoothing1(normalised * p.lat_saturation)
    if p.any_lat_stiff_x_zero:  # x = 0: constant lateral stiffness
        lat_stiff = np.where(p.lat_stiff_x == 0.0, p.lat_stiff_y, lat_stiff)
    lng_stiff = p.long_stiff
    grip = friction * load
    no_slip = (lat_s * lat_stiff == 0.0) & (lng_s * lng_stiff == 0.0)
    if p.any_camber_stiffness:
        cam = np.where(np.abs(camber) >= SLIP_DEAD_ZONE, camber, 0.0)
        no_slip &= cam * p.camber_stiff == 0.0
        safe_lat = np.where(lat_stiff != 0.0, lat_stiff, 1.0)
        t_eff = np.tan(lat_s + cam * p.camber_stiff / safe_lat)
    else:  # no camber stiffness anywhere: the camber term is zero
        t_eff = np.tan(lat_s)
    active = (grip != 0.0) & ~no_slip
    k = np.sqrt((lat_stiff * t_eff) ** 2 + (lng_stiff * lng_s) ** 2) / np.where(grip != 0.0, grip, 1.0)
    f_bar = smoothing1(k)
    ratio = lat_stiff / lng_stiff
    nu = np.where(k <= 2.0 * np.pi, 0.5 * (1.0 + ratio - (1.0 - ratio) * np.cos(0.5 * k)), 1.0)
    denom = np.sqrt(lng_s * lng_s + (nu * t_eff) ** 2)
    f0 = grip / np.where(denom > 0.0, denom, 1.0)
    f_lng = np.where(active, lng_s * f_bar * f0, 0.0)
    f_lat = np.where(active, -nu * t_eff * f_bar * f0, 0.0)
    return f_lng, f_lat


def update_tire(p: SimParams, s: SimState, Rw: np.ndarray, body: tuple, d_w: np.ndarray, on_ground: np.ndarray, normal: np.ndarray,
                road_friction: np.ndarray, wheel_centre: np.ndarray, normal_force: np.ndarray, axes_body: tuple,
                comp, brake_applied: np.ndarray, drive_applied: np.ndarray, dt: float | np.ndarray) -> TireState:
    """One substep of the tire component (directions -> speeds -> slips -> camber -> grip -> sticky -> force).

    Rw: body rotation per wheel (3, 3, V, W); body: (position, linear velocity, angular velocity) per wheel.
    axes_body: the wheel's (lateral, forward) axes in the body frame (`wheel_axes_body`).
    """
    position, linear_velocity, angular_velocity = body
    lat_axis = vm.matvec(Rw, axes_body[0])
    og = on_ground
    t_lng, t_lat = tire_directions(lat_axis, normal, og)
    vx, vy = contact_speeds(p, linear_velocity, angular_velocity, wheel_centre - position, d_w, t_lng, t_lat)
    omega = s.rotation_speed
    lng_slip, lat_slip = tire_slips(p, vx, vy, omega, brake_applied | drive_applied)
    # camber only acts through the camber stiffness: skipped when no wheel has one
    camber = (tire_camber(normal, vm.matvec(Rw, axes_body[1]), lat_axis, og) if p.any_camber_stiffness
              else np.zeros_like(vx))
    load = tire_load(p, normal_force, og)
    friction = tire_friction(p, lng_slip, road_friction, og)
    # whole-vehicle intents
    accel_intent = vm.per_wheel(vehicle_intent(drive_applied), p.W)
    brake_intent = vm.per_wheel(vehicle_intent(brake_applied), p.W)
    lng_time, lat_time, sticky_lng, sticky_lat = sticky_tire_state(
        p, vx, vy, omega, load, friction, accel_intent, brake_intent, s.lng_low_speed_time, s.lat_low_speed_time, dt)
    s.lng_low_speed_time, s.lat_low_speed_time = lng_time, lat_time
    s.sticky_lng, s.sticky_lat = sticky_lng, sticky_lat
    lng_slip = np.where(sticky_lng, 0.0, lng_slip)
    lat_slip = np.where(sticky_lat, 0.0, lat_slip)
    # 4.8 force model, 4.9 forces and torques on the chassis
    f_lng, f_lat = tire_force_model(p, lng_slip, lat_slip, camber, load, friction)
    force = t_lng * f_lng + t_lat * f_lat
    arm_body = p.tire_arm if p.tire_arm is not None else p.attachment_position + vm.matvec(p.A_q, comp.tire_app_point)
    arm = vm.matvec(Rw, arm_body)
    return TireState(
        lng_dir=t_lng, lat_dir=t_lat, lng_speed=vx, lat_speed=vy, lng_slip=lng_slip, lat_slip=lat_slip, camber=camber,
        load=load, friction=friction, lng_force=f_lng, lat_force=f_lat, wheel_torque=-f_lng * p.radius,
        force=force, torque=vm.cross(arm, force), app_arm=arm,
    )
