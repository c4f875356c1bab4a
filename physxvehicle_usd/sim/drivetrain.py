"""Drivetrain: differential states, gearbox, engine torque and damping, the coupled implicit clutch solve.

Sections 6.1-6.8 of the numerics digest (vehicle2 drivetrain/). All standard-drive vehicles of the batch
are solved together: one (W+1)x(W+1) system per vehicle (wheels + engine), built element by element as PhysX
builds it and solved by its LU with full pivoting (sim/lu.py) in the batch's dtype, over the wheels on the
differential and the engine; the other wheels' rows reduce to the single-wheel update of 5.1. (The rounding of that
LU is what parts a car's left wheels from its right ones in a launch from rest, as PhysX's do.)
Tank tracks become constraint groups solved by least squares on the normal equations, as PhysX does (PhysX solves
those by the same LU on its reduced A^T A; ours builds them otherwise and solves them with LAPACK).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..runtime.vehicle2 import MAX_TORQUE_CURVE_POINTS, NEUTRAL_GEAR
from . import vecmath as vm
from .declare import F32, I32, I64, Derived, Param
from .lu import factor, solve_factored
from .state import SimParams, SimState
from .wheel import direct_drive_update


def _engine(p, field: str, absent=0.0):
    return absent if p.engine is None else getattr(p.engine, field)


def _gearbox(p, field: str, absent):
    return absent if p.gearbox is None else getattr(p.gearbox, field)


def _autobox(p, field: str, absent):
    return absent if p.autobox is None else getattr(p.autobox, field)


def _differential(p):
    return p.tank_differential or p.multi_wheel_differential


def _tracks(p) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per wheel: the thrust controller of its track, the first wheel of its track group (>= 2 wheels) and
    r_first / r_wheel; -1, -1, 0 for wheels on no track (nothing for a vehicle without tracks: the padding)."""
    tank = p.tank_differential
    if tank is None:
        return (), (), ()
    n = p.nb_wheels
    thrust, first, multiplier = np.full(n, -1), np.full(n, -1), np.zeros(n)
    if tank is not None:
        for track, wheels in enumerate(tank.wheels_per_track):
            thrust[list(wheels)] = tank.thrust_index_per_track[track]
            if len(wheels) >= 2:
                r0 = p.wheels[wheels[0]].wheel.radius
                for w in wheels:
                    first[w] = wheels[0]
                    multiplier[w] = r0 / p.wheels[w].wheel.radius
    return thrust, first, multiplier


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
    Param("gear_switch_time", vehicle=lambda p: _gearbox(p, "switch_time", 0.0), unit="s", kernel=F32),
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
    Param("group_first_wheel", vehicle=lambda p: _tracks(p)[1], shape=("W",), dtype=np.int64, pad=-1),
    Param("group_multiplier", vehicle=lambda p: _tracks(p)[2], shape=("W",)),
)
# what SimParams.from_batch derives for the compiled kernel
DERIVED = (Derived("is_standard", I32),)


@dataclass
class DifferentialState:
    torque_ratio: np.ndarray  # (V, W) signed (tank thrust applied)
    ave_ratio: np.ndarray  # (V, W) contribution to the average wheel speed
    connected: np.ndarray  # (V, W)


def differential_state(p: SimParams, s: SimState) -> DifferentialState:
    """6.6 multi-wheel (torque split = aveWheelSpeedRatios, a PhysX quirk) and 6.8 tank differentials."""
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
    done = shifting & (t > p.gear_switch_time)
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


def _solve(M: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Batched dense solve; a singular system gives all zeros (PhysX's LU solver with det == 0)."""
    try:
        return np.linalg.solve(M, b[..., None])[..., 0]
    except np.linalg.LinAlgError:
        det = np.linalg.det(M)
        ok = det != 0.0
        out = np.zeros_like(b)
        if ok.any():
            out[ok] = np.linalg.solve(M[ok], b[ok][..., None])[..., 0]
        return out


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
    solved = _solve_connected(s, M, rhs, diff.connected[ids])
    if p.tank_ids.size:
        tank_rows = np.nonzero(p.is_tank[ids])[0]
        if tank_rows.size:
            solved[tank_rows] = _solve_grouped(p, M[tank_rows], rhs[tank_rows], np.arange(p.V)[ids][tank_rows])
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


def _solve_grouped(p: SimParams, M: np.ndarray, b: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Track groups: omega_k = multiplier_k * omega_first; least squares (AC)^T (AC) y = (AC)^T b, then expand."""
    n, N, _ = M.shape
    C = np.tile(np.eye(N), (n, 1, 1))
    first = p.group_first_wheel[ids]
    mult = p.group_multiplier[ids]
    rows, wheels = np.nonzero(first >= 0)
    C[rows, wheels, wheels] = 0.0
    C[rows, wheels, first[rows, wheels]] = mult[rows, wheels]
    AC = M @ C
    normal = np.transpose(AC, (0, 2, 1)) @ AC
    rhs = np.einsum("nji,nj->ni", AC, b)
    unused = np.abs(C).sum(axis=1) == 0.0  # columns of wheels that follow their group's first wheel
    rr, cc = np.nonzero(unused)
    normal[rr, cc, cc] = 1.0
    rhs[rr, cc] = 0.0
    y = _solve(normal, rhs)
    return np.einsum("nij,nj->ni", C, y)


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
