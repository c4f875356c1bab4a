"""Command responses (vehicle2 commands/, braking/, steering/, drivetrain command parts), once per step.

Inputs are the raw commands of `SimState`; outputs are per-wheel brake torques, steer angles, drive
torques and the actuation flags. Section numbers refer to shared/spec/vehicle2_numerics.md (the project's numerics digest).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..runtime.vehicle2 import (
    AUTOMATIC_GEAR,
    DRIVE_BASIC,
    DRIVE_NONE,
    DRIVE_STANDARD,
    MAX_NB_COMMAND_VALUES,
    NEUTRAL_GEAR,
    RESPONSE_BRAKE0,
    RESPONSE_BRAKE1,
    RESPONSE_DRIVE,
    RESPONSE_STEER,
)
from . import compiled_commands
from . import vecmath as vm
from .declare import FLT_MAX, Derived, Param, State
from .memo import LastValue, SameInputs

if TYPE_CHECKING:  # (sim/state.py builds SimState from these modules' declarations)
    from .state import SimParams, SimState


def _responses(p) -> tuple:
    """The vehicle's command responses in the systems' order (RESPONSE_BRAKE0 .. RESPONSE_DRIVE; None: absent)."""
    return (p.brakes[0], p.brakes[1], p.steer, p.throttle)


def _nonlinear_table(p, field: str) -> np.ndarray:
    """One of the nonlinear tables over (system, command value[, point]): "commands" (the command values),
    "counts" (points per command value), "speeds" or "responses"."""
    responses = _responses(p)
    if not any(r is not None and r.nonlinear.curves for r in responses):
        return ()  # linear responses only: the table stays zero
    points = max([1] + [len(c) for r in responses if r is not None for c in r.nonlinear.curves])
    out = np.zeros((len(responses), MAX_NB_COMMAND_VALUES) + ((points,) if field in ("speeds", "responses") else ()))
    for k, response in enumerate(responses):
        if response is None:
            continue
        for j, (command, curve) in enumerate(zip(response.nonlinear.command_values, response.nonlinear.curves)):
            if field == "commands":
                out[k, j] = command
            elif field == "counts":
                out[k, j] = len(curve)
            else:
                out[k, j, : len(curve)] = [point[0 if field == "speeds" else 1] for point in curve]
    return out


def _response_multipliers(p) -> np.ndarray:
    out = np.zeros((4, p.nb_wheels))
    for k, response in enumerate(_responses(p)):
        if response is not None:
            out[k] = response.wheel_multipliers
    return out


def _ackermann(p, field: str, absent):
    return absent if p.ackermann is None else getattr(p.ackermann, field)


PARAMS = (
    # brakes0, brakes1, steer, drive: response = command * max * multiplier, nonlinear tables by speed
    Param("response_max", vehicle=lambda p: [0.0 if r is None else r.max_response for r in _responses(p)], shape=(4,)),
    Param("response_multipliers", vehicle=_response_multipliers, shape=(4, "W")),
    Param("nl_command_values", vehicle=lambda p: _nonlinear_table(p, "commands"), shape=(4, MAX_NB_COMMAND_VALUES)),
    Param("nl_command_count", vehicle=lambda p: [0 if r is None else len(r.nonlinear.command_values)
                                                 for r in _responses(p)], shape=(4,), dtype=np.int64),
    Param("nl_speeds", vehicle=lambda p: _nonlinear_table(p, "speeds"), shape=(4, MAX_NB_COMMAND_VALUES, "P"),
          unit="length/s"),
    Param("nl_responses", vehicle=lambda p: _nonlinear_table(p, "responses"), shape=(4, MAX_NB_COMMAND_VALUES, "P")),
    Param("nl_point_count", vehicle=lambda p: _nonlinear_table(p, "counts"), shape=(4, MAX_NB_COMMAND_VALUES),
          dtype=np.int64),
    Param("has_ackermann", vehicle=lambda p: p.ackermann is not None, dtype=bool),
    Param("ackermann_wheels", vehicle=lambda p: _ackermann(p, "wheel_ids", (0, 0)), shape=(2,), dtype=np.int64),
    Param("ackermann_wheel_base", vehicle=lambda p: _ackermann(p, "wheel_base", 0.0), unit="length"),
    Param("ackermann_track_width", vehicle=lambda p: _ackermann(p, "track_width", 0.0), unit="length"),
    Param("ackermann_strength", vehicle=lambda p: _ackermann(p, "strength", 0.0)),
    # the controller values the stage authors (the commands at creation)
    Param("ctrl_accelerator", vehicle=lambda p: p.controls.accelerator),
    Param("ctrl_brake0", vehicle=lambda p: p.controls.brake0),
    Param("ctrl_brake1", vehicle=lambda p: p.controls.brake1),
    Param("ctrl_steer", vehicle=lambda p: p.controls.steer),
    Param("ctrl_target_gear", vehicle=lambda p: p.controls.target_gear, dtype=np.int64),
    Param("ctrl_thrust0", vehicle=lambda p: p.controls.thrust0),
    Param("ctrl_thrust1", vehicle=lambda p: p.controls.thrust1),
    Param("ctrl_wheel_drive_torque", vehicle=lambda p: p.controls.wheel_drive_torque, shape=("W",)),
    Param("ctrl_wheel_brake_torque", vehicle=lambda p: p.controls.wheel_brake_torque, shape=("W",)),
    Param("ctrl_wheel_steer_angle", vehicle=lambda p: p.controls.wheel_steer_angle, shape=("W",), unit="rad"),
)


def _ackermann_on(b) -> np.ndarray:
    return b.has_ackermann & (b.ackermann_strength > 0.0)


def _ackermann_wheel(p, b, k: int) -> np.ndarray:
    """(V, W): the wheel that is Ackermann's wheel k (0, 1) of a vehicle with Ackermann steering."""
    return _ackermann_on(b)[:, None] & (np.arange(p.W)[None, :] == b.ackermann_wheels[:, k:k + 1])


def _ackermann_mean_scale(p, b) -> np.ndarray:
    """maxAngle * (multiplier[wheel0] + multiplier[wheel1]): the steer command's scale to twice the mean angle."""
    steer = p.response_multipliers_w[RESPONSE_STEER]
    rows, wheels = np.arange(p.V), b.ackermann_wheels
    return b.response_max[:, RESPONSE_STEER] * (steer[rows, wheels[:, 0]] + steer[rows, wheels[:, 1]])


# what SimParams.from_batch derives: whether any table is nonlinear, each response's wheel multipliers as contiguous
# (V, W) arrays (a strided column of the (V, systems, W) table makes every product with it several times slower),
# Ackermann's (2.3) wheels, track and mean-angle scale as whole-batch arrays
DERIVED = (
    Derived("has_nonlinear", value=lambda p, b: bool((b.nl_command_count > 0).any())),
    Derived("response_multipliers_w", value=lambda p, b: tuple(
        np.ascontiguousarray(b.response_multipliers[:, k]) for k in range(b.response_multipliers.shape[1]))),
    Derived("any_ackermann", value=lambda p, b: bool(_ackermann_on(b).any())),
    Derived("ack_active", value=lambda p, b: _ackermann_on(b)),
    Derived("ack_wheel0", value=lambda p, b: _ackermann_wheel(p, b, 0)),
    Derived("ack_wheel1", value=lambda p, b: _ackermann_wheel(p, b, 1)),
    Derived("ack_mean_scale", value=_ackermann_mean_scale),
    Derived("ack_track", value=lambda p, b: np.where(_ackermann_on(b), b.ackermann_track_width, 1.0)),
    # which parts of `update_commands` the batch needs: its drives, autoboxes and absent wheels (the step skips what
    # no vehicle has)
    Derived("any_standard", value=lambda p, b: bool((b.drive_type == DRIVE_STANDARD).any())),
    Derived("any_basic", value=lambda p, b: bool((b.drive_type == DRIVE_BASIC).any())),
    Derived("any_raw", value=lambda p, b: bool((b.drive_type == DRIVE_NONE).any())),
    Derived("autobox_on", value=lambda p, b: (b.drive_type == DRIVE_STANDARD) & b.has_autobox),
    Derived("any_standard_without_autobox", value=lambda p, b: bool(
        ((b.drive_type == DRIVE_STANDARD) & ~b.has_autobox).any())),
    Derived("all_wheels", value=lambda p, b: bool(np.all(p.mask))),
)


def _direct_gear(p: SimParams) -> np.ndarray:
    """The basic drive's gear from the authored target gear: -1 reverse, 0 neutral, +1 forward (automatic too)."""
    gear = p.ctrl_target_gear.astype(np.int64)
    return np.where((gear == AUTOMATIC_GEAR) | (gear > NEUTRAL_GEAR), 1, np.where(gear == NEUTRAL_GEAR, 0, -1))


# the raw commands (PxVehicleCommandState, PxVehicleTankDriveTransmissionCommandState, the wheel controller's); at
# creation the controller's authored values
STATES = (
    State("accelerator", initial=lambda p: p.ctrl_accelerator),
    State("brake0", initial=lambda p: p.ctrl_brake0),
    State("brake1", initial=lambda p: p.ctrl_brake1),
    State("steer", initial=lambda p: p.ctrl_steer),
    State("target_gear_command", initial=lambda p: p.ctrl_target_gear, dtype=np.int64,
          doc="PhysX indexing, 255: automatic"),
    State("thrust0", initial=lambda p: p.ctrl_thrust0),
    State("thrust1", initial=lambda p: p.ctrl_thrust1),
    State("wheel_drive_torque", initial=lambda p: p.ctrl_wheel_drive_torque, shape=("W",), unit="force*length"),
    State("wheel_brake_torque", initial=lambda p: p.ctrl_wheel_brake_torque, shape=("W",), unit="force*length"),
    State("wheel_steer_angle", initial=lambda p: p.ctrl_wheel_steer_angle, shape=("W",), unit="rad"),
    State("direct_gear", initial=_direct_gear, doc="basic drive: -1 reverse, 0 neutral, +1 forward"),
)


def normalised_response(p: SimParams, system: int, command: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """PxVehicleNonLinearResponseCompute without the max/multiplier factors (2.1); linear where no table."""
    if not p.has_nonlinear:
        return command
    count = p.nl_command_count[:, system]
    if not (count > 0).any():
        return command
    curves = np.stack((p.nl_speeds[:, system], p.nl_responses[:, system]), axis=-1)  # (V, K, P, 2)
    per_command = vm.lookup(curves, p.nl_point_count[:, system], np.broadcast_to(speed[:, None], count.shape + (curves.shape[1],)))
    table = np.stack((p.nl_command_values[:, system], per_command), axis=-1)  # (V, K, 2)
    z = vm.lookup(table, count, command)
    return np.where(count > 0, z, command)


def wheel_response(p: SimParams, system: int, command: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """Per-wheel response = normalised response * maxResponse * wheel multiplier (V, W)."""
    z = normalised_response(p, system, command, speed)
    return vm.per_wheel(z * p.response_max[:, system], p.W) * p.response_multipliers_w[system]


# the brake torques of the last brake commands, where they depend on them alone (`brake_torques`), by the parameters
# they read (sim/memo.py)
_BRAKE_TORQUES = LastValue("has_nonlinear", "response_max", "response_multipliers_w")


def brake_torques(p: SimParams, brake0: np.ndarray, brake1: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """2.2: the two braking systems add up. Without nonlinear responses they depend on the brake commands alone: the
    last step's array again where those are the same to the bit."""
    if p.has_nonlinear:
        return _brake_torques(p, brake0, brake1, speed)
    key = (brake0.dtype, brake0.shape, brake0.tobytes(), brake1.dtype, brake1.shape, brake1.tobytes())
    return _BRAKE_TORQUES.get(p, key, lambda: _brake_torques(p, brake0, brake1, speed))


def _brake_torques(p: SimParams, brake0: np.ndarray, brake1: np.ndarray, speed: np.ndarray) -> np.ndarray:
    return wheel_response(p, RESPONSE_BRAKE0, brake0, speed) + wheel_response(p, RESPONSE_BRAKE1, brake1, speed)


# the steer angles of the last steer command, where they depend on it alone (`steer_angles`), by the parameters
# they read (sim/memo.py)
_STEER_ANGLES = LastValue("has_nonlinear", "response_max", "response_multipliers_w", "any_ackermann", "ack_mean_scale",
                          "ack_active", "ackermann_wheel_base", "ack_track", "ackermann_strength", "ack_wheel0",
                          "ack_wheel1")


def steer_angles(p: SimParams, steer: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """2.3: sgn1(steer) * NL(|steer|), then Ackermann overwrites its two wheels (linear response). Without nonlinear
    responses they depend on the steer commands alone: the last step's array again where those are the same to the
    bit."""
    if p.has_nonlinear:
        return _steer_angles(p, steer, speed)
    return _STEER_ANGLES.get(p, (steer.dtype, steer.shape, steer.tobytes()), lambda: _steer_angles(p, steer, speed))


def _steer_angles(p: SimParams, steer: np.ndarray, speed: np.ndarray) -> np.ndarray:
    delta = vm.sgn1(steer)[:, None] * wheel_response(p, RESPONSE_STEER, np.abs(steer), speed)
    if p.any_ackermann:
        # whole-batch form: vehicles without Ackermann have all-False wheel masks and keep delta
        mean = 0.5 * steer * p.ack_mean_scale  # steer * maxAngle * (mult[w0] + mult[w1]) / 2
        turning = (mean != 0.0) & p.ack_active
        if not turning.any():  # (driving straight: no wheel's angle changes)
            return delta
        psi_in = np.abs(mean)
        tan_in = np.tan(np.where(turning, psi_in, 1.0))
        base = p.ackermann_wheel_base
        perfect = np.arctan(base / (p.ack_track + base / tan_in))
        corrected = psi_in + p.ackermann_strength * (perfect - psi_in)
        positive = mean >= 0.0
        a0 = vm.per_wheel(np.where(positive, corrected, -psi_in), p.W)
        a1 = vm.per_wheel(np.where(positive, psi_in, -corrected), p.W)
        on = vm.per_wheel(turning, p.W)
        delta = np.where(on & p.ack_wheel0, a0, np.where(on & p.ack_wheel1, a1, delta))
    return delta


def direct_drive_torques(p: SimParams, s: SimState, speed: np.ndarray) -> np.ndarray:
    """2.4: T_drive = gear sign * NL(throttle) * peak torque * multiplier."""
    return s.direct_gear[:, None] * wheel_response(p, RESPONSE_DRIVE, s.accelerator, speed)


# up to this many vehicles, the autobox runs vehicle by vehicle (`_autobox_each`): some forty whole-batch numpy calls
# cost more than a few vehicles' numpy scalars
_FEW_VEHICLES = 8


def autobox_update(p: SimParams, s: SimState, dt: float, throttle: np.ndarray) -> np.ndarray:
    """6.5 PxVehicleAutoBoxUpdate for every standard-drive vehicle; returns the gear command it leaves."""
    if p.V <= _FEW_VEHICLES and s.target_gear_command.dtype == s.target_gear.dtype == s.current_gear.dtype:
        command = _autobox_each(p, s, dt, throttle)
    else:
        command = _autobox_whole(p, s, dt, throttle)
    # without an autobox, "automatic" keeps the gearbox target
    if p.any_standard_without_autobox:
        command = np.where(p.is_standard & ~p.has_autobox & (command == AUTOMATIC_GEAR), s.target_gear, command)
    return command


# the vehicles with an autobox, as a list (`_autobox_each`'s loop), by the parameter it is taken from (sim/memo.py)
_AUTOBOX_ROWS = LastValue("autobox_on")


def _autobox_each(p: SimParams, s: SimState, dt: float, throttle: np.ndarray) -> np.ndarray:
    """`_autobox_whole` vehicle by vehicle, in numpy scalars (the same types, so the same roundings; the same
    stores, in the same order for each vehicle)."""
    command = s.target_gear_command.copy()
    active, since = s.autobox_active_shift, s.autobox_time_since_shift
    for v in _AUTOBOX_ROWS.get(p, None, lambda: np.flatnonzero(p.autobox_on).tolist()):
        if command[v] != AUTOMATIC_GEAR:  # a manual gear
            active[v] = False
            since[v] = FLT_MAX
            continue
        cur = s.current_gear[v]
        command[v] = s.target_gear[v]
        if cur != s.target_gear[v]:  # a shift under way: waiting
            if active[v]:
                throttle[v] = 0.0
            since[v] += dt
            continue
        active[v] = False  # the shift is done
        if cur <= NEUTRAL_GEAR and NEUTRAL_GEAR + 1 < p.nb_gears[v]:  # first gear from neutral or reverse
            command[v] = NEUTRAL_GEAR + 1
        elif not since[v] > p.autobox_latency[v]:
            since[v] += dt  # waiting
            continue
        else:
            g = min(max(cur, 0), p.autobox_up.shape[1] - 1)
            w = s.engine_omega[v] / p.engine_max_omega[v]
            down = w < p.autobox_down[v, g] and cur > NEUTRAL_GEAR + 1
            up = w > p.autobox_up[v, g] and cur + 1 < p.nb_gears[v]
            if not (up or down):
                continue
            command[v] = cur - 1 if down else cur + 1  # (down checked second: wins)
        throttle[v] = 0.0
        since[v] = 0.0
        active[v] = True
    return command


def _autobox_whole(p: SimParams, s: SimState, dt: float, throttle: np.ndarray) -> np.ndarray:
    """6.5 over the whole batch in whole-array operations (the reference of `_autobox_each`)."""
    command = s.target_gear_command.copy()
    automatic = command == AUTOMATIC_GEAR
    has = p.autobox_on  # standard drive with an autobox
    manual = has & ~automatic
    if manual.any():
        s.autobox_active_shift[manual] = False
        s.autobox_time_since_shift[manual] = FLT_MAX
    auto = has & automatic
    if auto.any():
        # (a mask no vehicle is in changes nothing: its selections and stores are skipped, most steps all of them)
        cur, tgt = s.current_gear, s.target_gear
        command = np.where(auto, tgt, command)
        same = auto & (cur == tgt)
        changing = auto ^ same  # auto & (cur != tgt)
        active = s.autobox_active_shift
        if active.any():
            active[same & active] = False  # the shift is done
            throttle[changing & active] = 0.0
        first = same & (cur <= NEUTRAL_GEAR) & (NEUTRAL_GEAR + 1 < p.nb_gears)
        settled = same ^ first  # same & ~first
        timed = settled & (s.autobox_time_since_shift > p.autobox_latency)
        waiting = (settled ^ timed) | changing
        up = down = None
        if timed.any():
            rows = np.arange(p.V)
            g = np.minimum(np.maximum(cur, 0), p.autobox_up.shape[1] - 1)
            w = s.engine_omega / p.engine_max_omega
            up = timed & (w > p.autobox_up[rows, g]) & (cur + 1 < p.nb_gears)
            down = timed & (w < p.autobox_down[rows, g]) & (cur > NEUTRAL_GEAR + 1)
        shift = first if up is None else first | up | down
        if shift.any():
            command = np.where(first, NEUTRAL_GEAR + 1, command)
            if up is not None:
                command = np.where(up, cur + 1, command)
                command = np.where(down, cur - 1, command)  # checked second: wins
            throttle[shift] = 0.0
            s.autobox_time_since_shift[shift] = 0.0
            active[shift] = True
        if waiting.any():
            s.autobox_time_since_shift[waiting] += dt
    return command


def gear_command_update(p: SimParams, s: SimState, command: np.ndarray) -> None:
    """2.5.3 PxVehicleGearCommandResponseUpdate: start a shift (through neutral) when idle."""
    changing = command != s.current_gear
    if not changing.any():  # (most steps: the gears stay as they are; `start` below is within `changing`)
        return
    start = p.is_standard & (s.current_gear == s.target_gear) & changing & (command < p.nb_gears)
    if not start.any():
        return
    s.current_gear = np.where(start, NEUTRAL_GEAR, s.current_gear)
    s.target_gear = np.where(start, command, s.target_gear)
    s.gear_switch_time = np.where(start, -2.0, s.gear_switch_time)


# `_brake_flags` of the last brake torques and differential ratios, kept while they are the same arrays: a brake
# torque or ratio array that comes again is a value sim/memo.py kept (brake_torques', differential_state's), never
# written into; any other is new each step (sim/memo.SameInputs)
_BRAKE_FLAGS = SameInputs()


def _brake_flags(brake: np.ndarray, diff_ratio: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(brake_applied: brake != 0, whether a wheel is unbraked and on the differential: ~brake_applied & ratio != 0)."""
    brake_applied = brake != 0.0
    return brake_applied, ~brake_applied & (diff_ratio != 0.0)


def update_commands(p: SimParams, s: SimState, dt: float, speed: np.ndarray, diff_ratio: np.ndarray) -> dict[str, np.ndarray]:
    """All command responses of one step (2.2-2.6). `speed` is the signed forward speed of the body. (The parts no
    vehicle of the batch has are skipped: the responses of a fleet of one kind of drive, on all its wheels, are its
    kind's alone.)"""
    # (the brake torques and steer angles read none of what the autobox and the gear command change: first)
    brake = brake_torques(p, s.brake0, s.brake1, speed)
    steer = steer_angles(p, s.steer, speed)
    if p.all_standard and p.all_wheels and brake.shape == (p.V, p.W):
        # the autobox, gear command, flags and (zero) drive torques in one C call where it covers them
        brake_applied, unbraked_on_differential = _BRAKE_FLAGS.get(p, (brake, diff_ratio), _brake_flags)
        compiled = compiled_commands.standard_commands(p, s, dt, unbraked_on_differential)
        if compiled is not None:
            throttle, command, drive_applied, drive, starts = compiled
            if starts:
                gear_command_update(p, s, command)
            return {"brake_torque": brake, "steer_angle": steer, "drive_torque": drive, "throttle": throttle,
                    "brake_applied": brake_applied, "drive_applied": drive_applied}
    drive = np.zeros(brake.shape, np.result_type(s.wheel_drive_torque, 0.0))
    throttle = s.accelerator.copy()
    if p.any_standard:
        command = autobox_update(p, s, dt, throttle)
        gear_command_update(p, s, command)
    if p.any_raw:
        raw = p.is_raw[:, None]
        brake = np.where(raw, s.wheel_brake_torque, brake)
        steer = np.where(raw, s.wheel_steer_angle, steer)
        drive = np.where(raw, s.wheel_drive_torque, 0.0)
    if p.any_basic:
        drive = np.where(p.is_basic[:, None], direct_drive_torques(p, s, speed), drive)
    # the flags of the brake torques and differential ratios alone: the last step's where both are the same arrays
    brake_applied, unbraked_on_differential = _BRAKE_FLAGS.get(p, (brake, diff_ratio), _brake_flags)
    if p.any_standard:
        # the engine drives where the clutch engages (6.2: K = strength unless the gearbox sits in neutral; Omni never
        # sets a clutch command), the throttle is on, and the wheel is on the differential and not braked (the
        # flags' & in another order: the same flags)
        engaged = (s.current_gear != NEUTRAL_GEAR) & (p.clutch_strength != 0.0) & (throttle != 0.0)
        engine_drive = engaged[:, None] & unbraked_on_differential
        drive_applied = engine_drive if p.all_standard else np.where(p.is_standard[:, None], engine_drive, drive != 0.0)
        throttle = throttle if p.all_standard else np.where(p.is_standard, throttle, s.accelerator)
    else:
        drive_applied = drive != 0.0
        throttle = s.accelerator.copy()
    if p.all_wheels:  # (x * 1 and x & True are x)
        return {"brake_torque": brake, "steer_angle": steer, "drive_torque": drive, "throttle": throttle,
                "brake_applied": brake_applied, "drive_applied": drive_applied}
    mask = p.mask
    return {
        "brake_torque": brake * mask, "steer_angle": steer * mask, "drive_torque": drive * mask, "throttle": throttle,
        "brake_applied": brake_applied & mask, "drive_applied": drive_applied & mask,
    }
