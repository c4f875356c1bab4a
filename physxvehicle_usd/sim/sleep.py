"""PhysX's body sleeping for the vehicles' actors: a vehicle at rest long enough is put to sleep (its velocities 0, its
pose and vehicle state held, its vehicle update skipped) until a command or a touching vehicle wakes it.

The scene's side (DySleep.cpp, updateWakeCounter without stabilization, which omni.physx's scenes leave off; the
island manager's deactivation, ScBodySim.cpp BodySim::deactivate):
  - every step, once the body's wake counter is below half its reset value (WAKE_COUNTER_RESET_S) or below dt, the
    solved linear velocity and the body-frame angular velocity are summed into two accumulators; their
    mass-normalised kinetic energy 0.5 (sum_i I_i w_acc_i^2 / m + |v_acc|^2) at or above (1 + counted interactions)
    times the body's sleepThreshold resets the accumulators and sets the counter to min(energy / threshold, 2) times
    half the reset value plus dt times the interactions; otherwise the counter drops by dt (floored at 0);
  - a counter at 0 puts the body to sleep: the step reports it as solved, and from the next step on its pose stays
    and its velocities are 0 (ovphysx: the last non-zero velocity the step the counter ran out, every velocity 0
    and the pose unchanged from the next). A threshold of 0 never lets it sleep (omni.physx's own setting that disables sleeping
    writes that; samples/car authors it).
The vehicle's side (vehicle2, VhPhysXActorFunctions.cpp):
  - begin (PxVehiclePhysxActorWakeup): a sleeping body wakes (its counter back to the reset value) where the throttle
    is not 0, the steer command changed since the last step, or a standard drive is asked for another gear while not
    shifting (a manual target it is not already shifting to; automatic from neutral or reverse); a vehicle without a
    drive (omni.physx's VehicleGenerator.cpp, PhysXVehicleRawWheelControlBeginComponent) where a wheel's drive
    torque is not 0 or a wheel's steer angle differs from the last step it slept;
  - begin (PxVehiclePhysxActorSleepCheck): a body still asleep has its velocities and wheel speeds 0, its engine at
    idle, and its vehicle update is skipped (here: the step runs and its state is put back);
  - end (PxVehiclePhysxActorKeepAwakeCheck): a counter below KEEP_AWAKE_THRESHOLD_S goes back to the reset value
    where the throttle is above 0 (not for a vehicle without a drive), a gear shift is under way, or a wheel's mass-normalised rotational energy
    0.5 moi w^2 / mass is above the body's sleepThreshold.
A touching vehicle that is awake wakes a sleeping one (the island manager activates an island a touch joins): the
step's results are kept for it.

Counted interactions: PhysX counts the body's shape pairs that pass the broad phase and the filter
(ScShapeInteraction, registerCountedInteraction); here the vehicle's collision shapes paired with a static shape or
another vehicle's by the contact model's broad phase this step.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..runtime.vehicle2 import AUTOMATIC_GEAR, NEUTRAL_GEAR
from . import vecmath as vm
from .memo import LastValue
from .rigid_body import WAKE_COUNTER_RESET_S
from .state import (
    VEHICLE_ARRAYS,
    SimParams,
    SimState,
    output_vehicle_axis,
    vehicle_axis,
    vehicle_rows,
)

KEEP_AWAKE_THRESHOLD_S = 0.5 * WAKE_COUNTER_RESET_S  # PxVehiclePhysXSimulationContext::physxActorWakeCounterThreshold

# the per-step outputs a sleeping vehicle keeps from its last update (its vehicle update is skipped)
_HELD_OUTPUTS = ("suspensionJounce", "suspensionForce", "tireForce", "tireFriction", "tireLongitudinalSlip",
                 "tireLateralSlip", "isOnGround", "wheelSteerAngle", "_centre_offset")


def possible(p: SimParams, s: SimState) -> bool:
    """Whether a vehicle sleeps or may fall asleep. A body whose threshold is 0 never does (its counted-down energy is
    never below 0, so its counter is reset each time it is counted), so a fleet of such bodies, as the samples author
    them, skips the counting (`end`) and the interactions it takes."""
    return bool(s.asleep.any() or _ANY_THRESHOLD.get(p, None, lambda: bool((p.sleep_threshold > 0.0).any())))


# whether a vehicle of the batch has a sleep threshold above 0 (`possible`), by the parameter it reads (sim/memo.py)
_ANY_THRESHOLD = LastValue("sleep_threshold")


def begin(p: SimParams, s: SimState) -> SimpleNamespace | None:
    """The vehicle update's begin: wake the sleeping vehicles a command wakes, clear the state of those still asleep,
    and keep what the step must put back for them (None: every vehicle is awake)."""
    any_asleep = s.asleep.any()
    if any_asleep:
        wake = s.asleep & _intent_to_change_state(p, s) & p.enabled  # (the vehicle update wakes: sim/disabled.py)
        s.previous_wheel_steer[s.asleep] = s.wheel_steer_angle[s.asleep]
        s.wake_counter[wake] = WAKE_COUNTER_RESET_S
        s.asleep &= ~wake
    s.previous_steer = s.steer.copy()
    if not any_asleep:
        return None
    asleep = np.flatnonzero(s.asleep)
    if asleep.size == 0:
        return None
    # consecutive sleepers (a fleet at rest: every vehicle) as a slice: the copies here and the puts back in `end`
    # are block copies, not gathers and scatters (the same values)
    index = slice(asleep[0], asleep[-1] + 1) if asleep[-1] - asleep[0] + 1 == asleep.size else asleep
    s.linear_velocity[:, index] = 0.0
    s.angular_velocity[:, index] = 0.0
    s.rotation_speed[index] = 0.0
    s.corrected_rotation_speed[index] = 0.0
    s.engine_omega[index] = p.engine_idle_omega[index]
    state = {name: getattr(s, name)[vehicle_rows(vehicle_axis(name), index)].copy() for name in VEHICLE_ARRAYS
             if isinstance(getattr(s, name), np.ndarray)}
    outputs = {key: s.out[key][_rows(s.out[key], index)].copy() for key in _HELD_OUTPUTS if key in s.out}
    return SimpleNamespace(rows=asleep, index=index, state=state, outputs=outputs)


def end(p: SimParams, s: SimState, held: SimpleNamespace | None, dt: float, counted: np.ndarray,
        woken_by_touch: np.ndarray) -> None:
    """After the vehicle update and the scene's solve: put the sleeping vehicles back (but those a touching awake
    vehicle woke), keep the awake ones awake as vehicle2 does, and count their wake counters down."""
    if held is not None:
        woken = woken_by_touch[held.rows]
        if woken.any():
            rows, kept = held.rows[~woken], np.flatnonzero(~woken)
        else:  # every sleeper kept: each held array whole, back where it came from
            rows, kept = held.index, slice(None)
        for name, value in held.state.items():
            axis = vehicle_axis(name)
            getattr(s, name)[vehicle_rows(axis, rows)] = value[vehicle_rows(axis, kept)]
        for key, value in held.outputs.items():
            if key in s.out:
                s.out[key][_rows(s.out[key], rows)] = value[_rows(value, kept)]
        s.asleep[held.rows[woken]] = False
        s.wake_counter[held.rows[woken]] = WAKE_COUNTER_RESET_S
    awake = ~s.asleep
    _keep_awake(p, s, awake)
    _update_wake_counter(p, s, awake, dt, counted)
    s.asleep |= awake & (s.wake_counter == 0.0)  # its velocities are cleared as the next step begins


def _rows(value: np.ndarray, rows: np.ndarray) -> tuple:
    return vehicle_rows(output_vehicle_axis(value), rows)


def _intent_to_change_state(p: SimParams, s: SimState) -> np.ndarray:
    """PxVehiclePhysxActorWakeup's intent: a throttle, a new steer command, or (engine drive) a gear asked for while
    not shifting; a wheel-controlled vehicle's (omni.physx's PhysXVehicleRawWheelControlBeginComponent): a wheel's
    drive torque, or a wheel's steer angle other than in its last step asleep. A first step has no last command."""
    command = s.target_gear_command
    gear = (s.current_gear == s.target_gear) & (
        ((command != AUTOMATIC_GEAR) & (s.target_gear != command))
        | ((command == AUTOMATIC_GEAR) & (s.current_gear <= NEUTRAL_GEAR)))
    managed = (s.accelerator != 0.0) | (~np.isnan(s.previous_steer) & (s.steer != s.previous_steer)) | (
        p.is_standard & gear)
    steered = ~np.isnan(s.previous_wheel_steer) & (s.wheel_steer_angle != s.previous_wheel_steer)
    raw = ((s.wheel_drive_torque != 0.0) | steered).any(axis=1)
    return np.where(p.is_raw, raw, managed)


def _keep_awake(p: SimParams, s: SimState, awake: np.ndarray) -> None:
    """PxVehiclePhysxActorKeepAwakeCheck."""
    low = awake & p.enabled & (s.wake_counter < KEEP_AWAKE_THRESHOLD_S)  # (a part of the vehicle update)
    if not low.any():
        return
    shifting = p.is_standard & (s.current_gear != s.target_gear)
    throttle = ~p.is_raw & (s.accelerator > 0.0)  # (omni.physx gives a wheel-controlled vehicle's end no throttle)
    energy = 0.5 * s.corrected_rotation_speed ** 2 * p.wheel_moi / np.where(p.mask, p.wheel_mass, 1.0)
    spinning = ((energy > p.sleep_threshold[:, None]) & p.mask).any(axis=1)
    s.wake_counter[low & (throttle | shifting | spinning)] = WAKE_COUNTER_RESET_S


def _update_wake_counter(p: SimParams, s: SimState, awake: np.ndarray, dt: float, counted: np.ndarray) -> None:
    """DySleep.cpp's updateWakeCounter (stabilization off) with the step's solved velocities."""
    wc = s.wake_counter
    window = awake & ((wc < 0.5 * WAKE_COUNTER_RESET_S) | (wc < dt))
    body_w = vm.matTvec(vm.quat_to_mat(s.body_orientation), s.angular_velocity)
    s.sleep_linear_sum[:, window] += s.linear_velocity[:, window]
    s.sleep_angular_sum[:, window] += body_w[:, window]
    inertia = np.where(p.moi > 0.0, p.moi, 1.0)
    lin, ang = s.sleep_linear_sum, s.sleep_angular_sum
    energy = 0.5 * ((ang * ang * inertia).sum(axis=0) / p.mass + (lin * lin).sum(axis=0))
    cluster = 1.0 + counted
    threshold = cluster * p.sleep_threshold
    wakes = window & (energy >= threshold)
    factor = np.where(threshold == 0.0, 2.0, np.minimum(energy / np.where(threshold == 0.0, 1.0, threshold), 2.0))
    reset = factor * 0.5 * WAKE_COUNTER_RESET_S + dt * (cluster - 1.0)
    new = np.where(wakes, reset, np.maximum(wc - dt, 0.0))
    s.wake_counter = np.where(awake, new, wc).astype(wc.dtype)
    filter_reset = wakes | (awake & (s.wake_counter == 0.0))
    s.sleep_linear_sum[:, filter_reset] = 0.0
    s.sleep_angular_sum[:, filter_reset] = 0.0
