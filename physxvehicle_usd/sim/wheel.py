"""Wheel: single-wheel rotation dynamics (direct drive, undriven wheels) and the rotation angle.

Sections 5.1 and 5.2 of the numerics digest (vehicle2 wheel/ and PxVehicleDirectDriveUpdate).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import properties as P
from . import vecmath as vm
from .declare import F32, Derived, Param, State

if TYPE_CHECKING:  # (sim/state.py builds SimState from these modules' declarations)
    from .state import SimParams, SimState

PARAMS = (
    Param("radius", source=(P.WHEEL, "radius"), pad=1.0, unit="length", kernel=F32),
    Param("half_width", source=(P.WHEEL, "width"), transform=lambda width: 0.5 * width, unit="length", kernel=F32),
    Param("wheel_mass", source=(P.WHEEL, "mass"), unit="mass", kernel=F32),
    Param("wheel_moi", source=(P.WHEEL, "moi"), pad=1.0, unit="mass*length^2", kernel=F32),  # padding: a harmless unit inertia
    Param("wheel_damping_rate", source=(P.WHEEL, "dampingRate"), unit="mass*length^2/s", kernel=F32),
)



def _turning(q: np.ndarray) -> np.ndarray | None:
    """Quaternions (V, W, 4), w first, as (4, V, W); None where every one is the identity (nothing to turn by)."""
    return None if (q[..., 0] == 1.0).all() else vm.components_first(q)


# the suspension and wheel frames' rotations as quaternions (4, V, W) or None, for the wheel's orientation (telemetry)
DERIVED = (
    Derived("attachment_quat", value=lambda p, b: _turning(b.attachment_orientation)),
    Derived("wheel_attachment_quat", value=lambda p, b: _turning(b.wheel_attachment_orientation)),
)

# PxVehicleWheelRigidBody1dState: the compiled kernel writes the angle and its blended speed after the substeps
STATES = (
    State("rotation_speed", unit="rad/s", shape=("W",), substep=True, kernel=F32, kernel_writes=True),
    State("corrected_rotation_speed", unit="rad/s", shape=("W",), kernel=F32, kernel_writes=True,
          doc="blended with the rolling speed at low speed: what advances the angle"),
    State("rotation_angle", unit="rad", shape=("W",), kernel=F32, kernel_writes=True),
)


def direct_drive_update(p: SimParams, omega: np.ndarray, tire_torque: np.ndarray, drive_torque: np.ndarray,
                        brake_torque: np.ndarray, brake_applied: np.ndarray, dt: float | np.ndarray) -> np.ndarray:
    """5.1: implicit in damping, explicit in tire, drive and brake torque; a braked wheel that stops stays locked."""
    k = dt / p.wheel_moi
    new = (omega + k * (tire_torque + drive_torque - vm.sgn0(omega) * brake_torque)) / (1.0 + p.wheel_damping_rate * k)
    new = np.where(brake_applied & (omega * new <= 0.0), 0.0, new)
    return new * p.mask


def update_rotation_angle(p: SimParams, s: SimState, lng_speed: np.ndarray, brake_applied: np.ndarray,
                          drive_applied: np.ndarray, dt: float) -> None:
    """5.2: blended (corrected) speed at low speed, angle advanced by the full step and wrapped to (-2pi, 2pi)."""
    vb = p.wheel_angle_threshold_speed[:, None]
    a = np.abs(lng_speed) / vb
    blend = (s.jounce > 0.0) & ~brake_applied & ~drive_applied & (np.abs(lng_speed) < vb)
    corrected = np.where(blend, lng_speed / p.radius * (1.0 - a) + s.rotation_speed * a, s.rotation_speed)
    angle = s.rotation_angle + corrected * dt
    two_pi = 2.0 * np.pi
    s.rotation_angle = (angle - np.trunc(angle / two_pi) * two_pi) * p.mask
    s.corrected_rotation_speed = corrected * p.mask


def wheel_local_pose(p: SimParams, s: SimState, steer: np.ndarray, toe: np.ndarray, camber: np.ndarray):
    """Each wheel's pose in its body frame after the step's vehicle update (PxVehicleComputeWheelLocalPose): rotation
    a_q R(camber, 0, steer + toe) w_q R(0, angle, 0) (3, 3, V, W) and translation a_p + d (D - jounce) +
    a_q R(camber, 0, steer + toe) w_p (3, V, W), the jounce term 0 while the jounce is unspecified."""
    def turn(v):  # a_q R(camber, 0, yaw) v: camber about the forward axis, then the yaw about the up axis
        return vm.matvec(p.A_q, vm.rotate_about(p.e_u, steer + toe, vm.rotate_about(p.e_f, camber, v)))

    ones = np.ones((1, p.V, p.W))
    columns = [turn(vm.matvec(p.W_q, vm.rotate_about(p.e_s, s.rotation_angle, axis * ones)))
               for axis in np.eye(3)[:, :, None, None]]
    rotation = np.stack(columns, axis=1)  # (3, 3, V, W): column k is the turned k-th axis
    travel = np.where(s.jounce_specified, p.travel_distance - s.jounce, 0.0)
    translation = p.attachment_position + p.travel_direction * travel + turn(p.wheel_attachment_position)
    return rotation, translation


def _about(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """The quaternions (4, V, W), w first, turning by `angle` (V, W) about the unit `axis` (3, V, 1)."""
    half = 0.5 * np.asarray(angle)
    return np.concatenate((np.cos(half)[None], axis * np.sin(half)[None]))


def wheel_orientation(p: SimParams, s: SimState, yaw: np.ndarray, camber: np.ndarray | float) -> np.ndarray:
    """Each wheel's world orientation (4, V, W), w first: the body's (the centre of mass frame's) times the wheel's
    local one, PxVehicleComputeWheelLocalOrientation's a_q R(camber, 0, yaw) w_q R(0, angle, 0), where yaw is the steer
    angle plus the compliance toe (the wheelSteerAngle telemetry reports) and R(roll, pitch, yaw) is
    PxVehicleComputeRotation's yaw * roll * pitch."""
    # (a frame that turns no wheel and a camber of 0 are left out of the product: a tenth of a millisecond each at
    # 4,000 wheels, where the whole telemetry takes a few)
    turned = _about(p.e_u, yaw)
    if p.attachment_quat is not None:
        turned = vm.quat_mul(p.attachment_quat, turned)
    if np.any(camber):
        turned = vm.quat_mul(turned, _about(p.e_f, np.broadcast_to(camber, yaw.shape)))
    if p.wheel_attachment_quat is not None:
        turned = vm.quat_mul(turned, p.wheel_attachment_quat)
    local = vm.quat_mul(turned, _about(p.e_s, s.rotation_angle))
    return vm.quat_mul(s.body_orientation[:, :, None], local)
