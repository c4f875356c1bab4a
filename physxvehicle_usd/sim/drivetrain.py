"""Drivetrain: differential states, gearbox, engine torque and damping, the coupled implicit clutch solve.

Sections 6.1-6.8 of the numerics digest (vehicle2 drivetrain/). All standard-drive vehicles of the batch
are solved together: one (W+1)x(W+1) system per vehicle (wheels + engine), built element by element as PhysX
builds it and solved by its LU with full pivoting (sim/lu.py) in the batch's dtype, over the wheels on the
differential and the engine; the other wheels' rows reduce to the single-wheel update of 5.1. (The rounding of that
LU is what parts a car's left wheels from its right ones in a launch from rest, as PhysX's do.)
A tank's tracks of two wheels or more are constraint groups (every wheel turns at r_first / r_wheel times the track's
first wheel's speed): the system's wheel columns fold into one unknown per group, and the normal equations of that
(W+1) x N system are solved by the same LU, as PhysX does (_solve_tracks).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..runtime.vehicle2 import DRIVE_BASIC, DRIVE_NONE, DRIVE_STANDARD, MAX_TORQUE_CURVE_POINTS, NEUTRAL_GEAR
from . import vecmath as vm
from .declare import F32, FLT_MAX, I32, I64, Derived, Param, State
from .lu import factor, solve_factored, solve_full_pivot
from .memo import LastValue
from .wheel import direct_drive_update

if TYPE_CHECKING:  # (sim/state.py builds SimState from these modules' declarations)
    from .state import SimParams, SimState


def _engine(p, field: str, absent=0.0):
    return absent if p.engine is None else getattr(p.engine, field)


def _gearbox(p, field: str, absent):
    return absent if p.gearbox is None else getattr(p.gearbox, field)


def _autobox(p, field: str, absent):
    return absent if p.autobox is None else getattr(p.autobox, field)


def _differential(p):
    return p.tank_differential or p.multi_wheel_differential


def _tracks(p) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per wheel: the thrust controller of its track; its track group (the tracks of >= 2 wheels, numbered in track
    order), its place in its track and r_first / r_wheel; -1, -1, -1, 0 for wheels on no such track (nothing for a
    vehicle without tracks: the padding)."""
    tank = p.tank_differential
    if tank is None:
        return (), (), (), ()
    n = p.nb_wheels
    thrust, group, place, multiplier = np.full(n, -1), np.full(n, -1), np.full(n, -1), np.zeros(n)
    groups = 0
    for track, wheels in enumerate(tank.wheels_per_track):
        thrust[list(wheels)] = tank.thrust_index_per_track[track]
        if len(wheels) >= 2:
            r0 = p.wheels[wheels[0]].wheel.radius
            for k, w in enumerate(wheels):
                group[w], place[w], multiplier[w] = groups, k, r0 / p.wheels[w].wheel.radius
            groups += 1
    return thrust, group, place, multiplier


def _torque_curve(p) -> np.ndarray:
    return np.asarray(_engine(p, "torque_curve", ())[:MAX_TORQUE_CURVE_POINTS], dtype=float).reshape(-1, 2)


PARAMS = (
    Param("engine_moi", vehicle=lambda p: _engine(p, "moi", 1.0), pad=1.0, unit="mass*length^2", kernel=F32),
    Param("engine_peak_torque", vehicle=lambda p: _engine(p, "peak_torque"), unit="mass*length^2/s^2", kernel=F32),
    Param("engine_idle_omega", vehicle=lambda p: _engine(p, "idle_omega"), unit="rad/s", kernel=F32),
    Param("engine_max_omega", vehicle=lambda p: _engine(p, "max_omega", 1.0), pad=1.0, unit="rad/s", kernel=F32),
    Param("torque_curve", vehicle=_torque_curve, shape=(MAX_TORQUE_CURVE_POINTS, 2), kernel=F32),
    Param("torque_curve_count", vehicle=lambda p: len(_torque_curve(p)), dtype=np.int64, kernel=I64),
    Param("engine_damping_full", vehicle=lambda p: _engine(p, "damping_rate_full_throttle"), unit="mass*length^2/s", kernel=F32),
    Param("engine_damping_engaged", vehicle=lambda p: _engine(p, "damping_rate_zero_throttle_clutch_engaged"),
          unit="mass*length^2/s", kernel=F32),
    Param("engine_damping_disengaged", vehicle=lambda p: _engine(p, "damping_rate_zero_throttle_clutch_disengaged"),
          unit="mass*length^2/s", kernel=F32),
    Param("gear_ratios", vehicle=lambda p: _gearbox(p, "ratios", ()), shape=("G",), kernel=F32),  # reverse, neutral, forwards
    Param("nb_gears", vehicle=lambda p: _gearbox(p, "nb_ratios", 0), dtype=np.int64),
    Param("final_ratio", vehicle=lambda p: _gearbox(p, "final_ratio", 1.0), pad=1.0, kernel=F32),
    Param("switch_time", vehicle=lambda p: _gearbox(p, "switch_time", 0.0), unit="s", kernel=F32),  # of a gear change
    Param("clutch_strength", vehicle=lambda p: 0.0 if p.clutch is None else p.clutch.strength, unit="mass*length^2/s", kernel=F32),
    Param("has_autobox", vehicle=lambda p: p.autobox is not None, dtype=bool),
    Param("autobox_up", vehicle=lambda p: _autobox(p, "up_ratios", ()), shape=("G",)),
    Param("autobox_down", vehicle=lambda p: _autobox(p, "down_ratios", ()), shape=("G",)),
    Param("autobox_latency", vehicle=lambda p: _autobox(p, "latency", 0.0), unit="s"),
    Param("initial_gear", vehicle=lambda p: p.initial_gear, dtype=np.int64),
    # differentials (a tank's tracks are groups of wheels on one multi-wheel differential)
    Param("diff_torque_ratios", vehicle=lambda p: () if _differential(p) is None else _differential(p).torque_ratios,
          shape=("W",)),
    Param("diff_ave_ratios", vehicle=lambda p: () if _differential(p) is None else _differential(p).ave_wheel_speed_ratios,
          shape=("W",)),
    Param("is_tank", vehicle=lambda p: p.tank_differential is not None, dtype=bool),
    Param("track_thrust_index", vehicle=lambda p: _tracks(p)[0], shape=("W",), dtype=np.int64, pad=-1),
    Param("track_group", vehicle=lambda p: _tracks(p)[1], shape=("W",), dtype=np.int64, pad=-1),
    Param("track_place", vehicle=lambda p: _tracks(p)[2], shape=("W",), dtype=np.int64, pad=-1),
    Param("group_multiplier", vehicle=lambda p: _tracks(p)[3], shape=("W",)),
)
# what SimParams.from_batch derives: the drive types as flags and vehicle indices
DERIVED = (
    Derived("is_standard", I32, lambda p, b: b.drive_type == DRIVE_STANDARD),
    Derived("is_basic", value=lambda p, b: b.drive_type == DRIVE_BASIC),
    Derived("is_raw", value=lambda p, b: b.drive_type == DRIVE_NONE),
    Derived("all_standard", value=lambda p, b: bool(p.is_standard.all())),
    Derived("standard_ids", value=lambda p, b: np.nonzero(p.is_standard)[0]),
    Derived("tank_ids", value=lambda p, b: np.nonzero(b.is_tank)[0]),
)

# PxVehicleEngineState, PxVehicleGearboxState, PxVehicleAutoboxState
STATES = (
    State("engine_omega", initial=lambda p: p.engine_idle_omega, unit="rad/s", substep=True, kernel=F32,
          kernel_writes=True),
    State("current_gear", initial=lambda p: p.initial_gear, dtype=np.int64, substep=True, kernel=I32, kernel_writes=True),
    State("target_gear", initial=lambda p: p.initial_gear, dtype=np.int64, kernel=I32),
    State("gear_switch_time", initial=-1.0, unit="s", substep=True, kernel=F32, kernel_writes=True,
          doc="time into the gear change (gearSwitchTime); -1: none under way, -2: one starts this step"),
    State("autobox_time_since_shift", initial=FLT_MAX, unit="s"),
    State("autobox_active_shift", initial=False, dtype=bool),
)


@dataclass
class DifferentialState:
    torque_ratio: np.ndarray  # (V, W) signed (tank thrust applied)
    ave_ratio: np.ndarray  # (V, W) contribution to the average wheel speed
    connected: np.ndarray  # (V, W)


# without tanks, the differential state of the parameters it reads (sim/memo.py)
_DIFFERENTIALS = LastValue("diff_torque_ratios", "diff_ave_ratios", "is_standard", "mask")


def differential_state(p: SimParams, s: SimState) -> DifferentialState:
    """6.6 multi-wheel (torque split = aveWheelSpeedRatios, a PhysX quirk) and 6.8 tank differentials.

    Without tanks it depends on the parameters alone: computed once per SimParams (sim/memo.py), the same arrays
    every step."""
    if p.tank_ids.size:
        return _differential_state(p, s)
    return _DIFFERENTIALS.get(p, None, lambda: _differential_state(p, s))


def _differential_state(p: SimParams, s: SimState) -> DifferentialState:
    tr, ave = p.diff_torque_ratios, p.diff_ave_ratios
    nonzero = tr != 0.0
    ratio = np.where(nonzero, ave, 0.0)  # multi-wheel
    alpha = np.where(nonzero, ave, 0.0)
    connected = nonzero.copy()
    if p.tank_ids.size:
        on_track = p.track_thrust_index >= 0
        thrust = np.where(p.track_thrust_index == 0, s.thrust0[:, None], s.thrust1[:, None])
        tank_ratio = np.where(nonzero & on_track, tr * thrust, np.where(nonzero, tr, 0.0))
        tank = p.is_tank[:, None]
        ratio = np.where(tank, tank_ratio, ratio)
        connected = np.where(tank, nonzero | on_track, connected)
    std = p.is_standard[:, None] & p.mask
    return DifferentialState(ratio * std, alpha * std, connected & std)


def gearbox_update(p: SimParams, s: SimState, dt: float | np.ndarray, active: np.ndarray) -> None:
    """6.3 PxVehicleGearboxUpdate (start of the drivetrain component, every substep)."""
    shifting = active & p.is_standard & (s.target_gear != s.current_gear)
    t = np.where(s.gear_switch_time == -2.0, 0.0, s.gear_switch_time + dt)
    t = np.where(shifting, t, s.gear_switch_time)
    done = shifting & (t > p.switch_time)
    s.current_gear = np.where(done, s.target_gear, s.current_gear)
    s.gear_switch_time = np.where(done, -1.0, t)


def engine_drive_torque(p: SimParams, omega_e: np.ndarray, throttle: np.ndarray) -> np.ndarray:
    """6.2: throttle * peak torque * curve(omega / maxOmega), explicit in the engine speed."""
    return throttle * p.engine_peak_torque * vm.lookup(p.torque_curve, p.torque_curve_count, omega_e / p.engine_max_omega)


def engine_damping_rate(p: SimParams, current_gear: np.ndarray, throttle: np.ndarray) -> np.ndarray:
    """6.2 with Omni's clutch command 0: engaged rates in gear, disengaged rates in neutral."""
    c0 = np.where(current_gear != NEUTRAL_GEAR, p.engine_damping_engaged, p.engine_damping_disengaged)
    return c0 + (p.engine_damping_full - c0) * throttle


def gear_ratio(p: SimParams, current_gear: np.ndarray) -> np.ndarray:
    rows = np.arange(p.V)
    return p.gear_ratios[rows, np.clip(current_gear, 0, p.gear_ratios.shape[1] - 1)] * p.final_ratio


def engine_drivetrain_update(p: SimParams, s: SimState, diff: DifferentialState, throttle: np.ndarray,
                             brake_torque: np.ndarray, brake_applied: np.ndarray, tire_torque: np.ndarray,
                             dt: float | np.ndarray, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """6.4 coupled wheels + engine for the standard-drive vehicles `ids`. Returns (wheel speeds, engine speeds)."""
    W = p.W
    dt_v = np.broadcast_to(np.asarray(dt, dtype=p.dtype), (p.V,))[ids]
    K = np.where(s.current_gear[ids] != NEUTRAL_GEAR, p.clutch_strength[ids], 0.0)
    G = gear_ratio(p, s.current_gear)[ids]
    T_e = engine_drive_torque(p, s.engine_omega, throttle)[ids]
    c_e = engine_damping_rate(p, s.current_gear, throttle)[ids]
    ratio = diff.torque_ratio[ids]
    omega = s.rotation_speed[ids]
    mask = p.mask[ids]
    M, rhs = _drivetrain_system(ratio, diff.ave_ratio[ids], dt_v[:, None] / p.wheel_moi[ids], p.wheel_damping_rate[ids],
                                dt_v / p.engine_moi[ids], K, G, c_e, T_e, omega, s.engine_omega[ids], brake_torque[ids],
                                tire_torque[ids])
    rhs[:, :W] *= mask
    connected = diff.connected[ids]
    tank = p.is_tank[ids]
    if not tank.any():
        solved = _solve_connected(s, M, rhs, connected)
    else:
        solved = np.empty_like(rhs)
        if not tank.all():
            car = ~tank
            solved[car] = _solve_connected(s, M[car], rhs[car], connected[car])
        solved[tank] = _solve_tracks(p, M[tank], rhs[tank], connected[tank], np.arange(p.V)[ids][tank])
    # wheel and engine speeds as arrays of their own: column slices of one (V, W + 1) array are strided, and
    # every operation on them slower
    wheels, engine = np.ascontiguousarray(solved[:, :W]), solved[:, W].copy()
    wheels = np.where(brake_applied[ids] & (omega * wheels <= 0.0), 0.0, wheels) * mask
    engine = np.clip(engine, p.engine_idle_omega[ids], p.engine_max_omega[ids])
    return wheels, engine


def _drivetrain_system(ratio, alpha, d_w, damping, d_e, K, G, c_e, T_e, omega, omega_e, brake_torque, tire_torque):
    """The 6.4 system M [wheels, engine] = rhs, (n, W + 1, W + 1) and (n, W + 1), each element rounded as PhysX
    rounds it (vehicle2's PxVehicleEngineDrivetrainUpdate), so that its LU pivots on the same elements.

    Wheel row i:  x_i + d_w K G G R_i g_i sum_j a_j g_j x_j + d_w c_i x_i - d_w K G R_i g_i y = omega_i + d_w (brake + tire)
    Engine row:   -d_e K G sum_j a_j g_j x_j + (1 + d_e (K + c_e)) y = omega_e + d_e T_e
    with R = |torque ratio|, g its sign, a the average-speed contribution. A wheel on no differential has a row of
    its own (its direct drive: the coupling terms vanish) and is left out of the LU's pivots (_solve_connected).
    """
    n, W = ratio.shape
    gamma, g = np.abs(ratio), vm.sgn0(ratio)
    KG = K * G
    couple = ((d_w * (KG * G)[:, None]) * gamma) * g  # dt K G G R g per wheel row
    M = np.zeros((n, W + 1, W + 1), dtype=ratio.dtype)
    M[:, :W, :W] = (couple[:, :, None] * alpha[:, None, :]) * g[:, None, :]
    wheels = np.arange(W)
    M[:, wheels, wheels] = (1.0 + (couple * alpha) * g) + d_w * damping
    M[:, :W, W] = ((-d_w * KG[:, None]) * gamma) * g
    M[:, W, :W] = (-((d_e * K) * G)[:, None] * alpha) * g
    M[:, W, W] = 1.0 + d_e * (K + c_e)
    rhs = np.empty((n, W + 1), dtype=ratio.dtype)
    rhs[:, :W] = omega + d_w * (-vm.sgn0(omega) * brake_torque + tire_torque)
    rhs[:, W] = omega_e + d_e * T_e
    return M, rhs


def _solve_connected(s: SimState, M: np.ndarray, rhs: np.ndarray, connected: np.ndarray) -> np.ndarray:
    """PhysX's system holds the wheels on the differential, in wheel order, then the engine; the others take their
    direct drive after it. Reordered so (connected wheels, engine, the rest), it is one batched full-pivot LU whose
    pivots stay within each vehicle's own block; the rest solve to rhs / diagonal, the direct drive's division.
    The factorization is kept in the state: the next substep's systems are mostly the same."""
    n = len(rhs)
    if connected.all():  # the order is the wheels' own
        s.drivetrain_factors = factor(M, None, s.drivetrain_factors)
        return solve_factored(s.drivetrain_factors, rhs)
    at = np.arange(n)[:, None]
    key = np.concatenate((np.where(connected, 0, 2), np.ones((n, 1), dtype=np.int64)), axis=1)
    order = np.argsort(key, axis=1, kind="stable")
    x = np.empty_like(rhs)
    s.drivetrain_factors = factor(M[at[:, :, None], order[:, :, None], order[:, None, :]], connected.sum(axis=1) + 1,
                                  s.drivetrain_factors)
    x[at, order] = solve_factored(s.drivetrain_factors, rhs[at, order])
    return x


def _solve_tracks(p: SimParams, M: np.ndarray, b: np.ndarray, connected: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Tanks, as vehicle2's PxVehicleEngineDrivetrainUpdate solves a drivetrain with constraint groups: A, the rows of
    the connected wheels (in wheel order) and the engine, has one column per connected wheel in no group (in wheel
    order), one per group (in track order: sum over the track's wheels in track order of M[:, wheel] * multiplier,
    accumulated from zero) and the engine's; A^T A and A^T b, each element summed row by row from zero, are solved by
    the full-pivoting LU (sim/lu.py). A group's wheels take multiplier * its unknown, and the wheels on no track and no
    differential their direct drive (rhs / diagonal), as PhysX updates them after the system.
    All in the batch's dtype: PhysX forms and solves the normal equations in float32."""
    n, W = connected.shape
    group, place, multiplier = p.track_group[ids], p.track_place[ids], p.group_multiplier[ids]
    alone = connected & (group < 0)
    nb_alone = alone.sum(axis=1)
    size = nb_alone + group.max(axis=1) + 2  # unknowns: the wheels alone, the groups, the engine
    column = np.where(alone, np.cumsum(alone, axis=1) - 1, nb_alone[:, None] + group)
    wheels = np.arange(W)
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = b[:, :W] / M[:, wheels, wheels]
    rows = np.concatenate((connected, np.ones((n, 1), dtype=bool)), axis=1)
    M = np.where(rows[:, :, None], M, 0.0)  # a wheel that is not connected is not one of PhysX's equations
    at = np.arange(n)
    A = np.zeros_like(M)
    v, w = np.nonzero(alone)
    A[v, :, column[v, w]] = M[v, :, w]
    for k in range(place.max() + 1):  # within one place, each vehicle's groups have one wheel each
        v, w = np.nonzero((group >= 0) & (place == k))
        A[v, :, column[v, w]] += M[v, :, w] * multiplier[v, w, None]
    A[at, :, size - 1] = M[:, :, W]
    normal, rhs = np.zeros_like(M), np.zeros_like(b)
    for k in range(W + 1):
        normal += A[:, k, :, None] * A[:, k, None, :]
        rhs += A[:, k, :] * b[:, k, None]
    padding = np.arange(W + 1) >= size[:, None]
    vp, jp = np.nonzero(padding)
    normal[vp, jp, jp] = 1.0
    y = solve_full_pivot(normal, rhs, size)
    x = np.empty_like(b)
    x[:, :W] = np.where(connected, np.where(group >= 0, multiplier, 1.0) * y[at[:, None], column], direct)
    x[:, W] = y[at, size - 1]
    return x


def update_wheel_speeds(p: SimParams, s: SimState, cmd: dict, diff: DifferentialState, tire_torque: np.ndarray,
                        dt: float | np.ndarray, active: np.ndarray) -> None:
    """Drivetrain component of one substep: gearbox, then engine drive or direct drive per vehicle."""
    dt_w = np.asarray(dt)[:, None] if np.ndim(dt) else dt
    if p.all_standard:  # no wheel runs the single-wheel update
        new = np.empty_like(s.rotation_speed)
    else:
        new = direct_drive_update(p, s.rotation_speed, tire_torque, cmd["drive_torque"], cmd["brake_torque"],
                                  cmd["brake_applied"], dt_w)
    engine = s.engine_omega
    ids = slice(None) if p.all_standard else p.standard_ids  # a slice keeps every [ids] a view
    if p.standard_ids.size:
        gearbox_update(p, s, dt, active)
        wheels, eng = engine_drivetrain_update(p, s, diff, cmd["throttle"], cmd["brake_torque"], cmd["brake_applied"],
                                               tire_torque, dt, ids)
        new[ids] = wheels
        engine = engine.copy()
        engine[ids] = eng
    act = active[:, None]
    s.rotation_speed = np.where(act, new, s.rotation_speed)
    s.engine_omega = np.where(active, engine, s.engine_omega)
