"""Rigid body: vehicle2's substep integration (7) and the PhysX-actor end of a step (1.5, 4.10).

vehicle2 integrates velocity and pose every substep (semi-implicit Euler, no gyroscopic term). With a
PhysX actor (Omni), only the velocity survives: PhysX then damps it, adds its gyroscopic term, applies
the vehicle's constraint rows (sticky tire, suspension limit) once per TGS position iteration and
integrates the pose from the begin pose over the whole step. `end_step_physx` emulates that part of the
PhysX scene step; chassis-ground contacts are out of scope.
"""
from __future__ import annotations

import numpy as np

from .. import properties as P
from . import vecmath as vm
from .declare import F32, Param
from .state import SimParams, SimState

PARAMS = (
    Param("mass", vehicle=lambda p: p.rigid_body.mass, unit="mass", kernel=F32),
    Param("moi", vehicle=lambda p: p.rigid_body.moi, shape=(3,), component_first=True, unit="mass*length^2", kernel=F32),
    Param("com_position", vehicle=lambda p: p.rigid_body.com_position, shape=(3,), component_first=True, unit="length"),
    Param("com_orientation", vehicle=lambda p: p.rigid_body.com_orientation, shape=(4,), component_first=True),
    Param("init_position", vehicle=lambda p: p.initial_state.position, shape=(3,), unit="length"),
    Param("init_orientation", vehicle=lambda p: p.initial_state.orientation, shape=(4,)),
    Param("init_linear_velocity", vehicle=lambda p: p.initial_state.linear_velocity, shape=(3,), unit="length/s"),
    Param("init_angular_velocity", vehicle=lambda p: p.initial_state.angular_velocity, shape=(3,), unit="rad/s"),
    # the PhysX actor (PhysxRigidBodyAPI)
    Param("linear_damping", source=(P.RIGID_BODY, "linearDamping"), unit="1/s"),
    Param("angular_damping", source=(P.RIGID_BODY, "angularDamping"), unit="1/s"),
    Param("max_linear_velocity", source=(P.RIGID_BODY, "maxLinearVelocity"), unit="length/s"),
    Param("max_angular_velocity", source=(P.RIGID_BODY, "maxAngularVelocity"), unit="rad/s"),
    Param("position_iterations", source=(P.RIGID_BODY, "solverPositionIterationCount"), dtype=np.int64),
    Param("gyroscopic", source=(P.RIGID_BODY, "enableGyroscopicForces"), dtype=bool),
)


def integrate_substep(p: SimParams, s: SimState, force: np.ndarray, torque: np.ndarray, dt: float | np.ndarray,
                      active: np.ndarray, R: np.ndarray | None = None) -> None:
    """7: v += F/M dt; w += R I^-1 R^T tau dt; x += v dt; q += 0.5 dt (w, 0) q (normalised).

    R: the rotation matrix of the current body orientation when the caller has it.
    """
    F = vm.sum_wheels(force) + p.gravity * p.mass
    tau = vm.sum_wheels(torque)
    R = vm.quat_to_mat(s.body_orientation) if R is None else R
    dv = F / p.mass * dt
    dw = vm.matvec(R, vm.matTvec(R, tau) / p.moi) * dt
    act = active
    v = s.linear_velocity + dv * act
    w = s.angular_velocity + dw * act
    s.linear_velocity, s.angular_velocity = v, w
    s.body_position = s.body_position + v * dt * act
    q = s.body_orientation
    wq = vm.vec_quat_mul(w, q)
    s.body_orientation = np.where(act, vm.quat_normalize(q + 0.5 * dt * wq), q)


def _rows_of(rows: dict, subset: np.ndarray) -> dict:
    """The rows of some of the vehicles of `rows` (a boolean mask over rows["vehicles"])."""
    return {key: (value[:, subset] if value.ndim == 3 else value[subset]) for key, value in rows.items()}


def solve_vehicle_constraints(p: SimParams, s: SimState, rows: dict, dt: float) -> None:
    """4.10 rows of the vehicles `rows["vehicles"]`, each vehicle with its own TGS position iteration count:
    closed form where every active row is soft, passes otherwise."""
    counts = p.position_iterations[rows["vehicles"]]
    for iterations in np.unique(counts):
        part = rows if iterations == counts[0] and (counts == iterations).all() else _rows_of(rows, counts == iterations)
        soft_only = ~(part["active"] & (part["damping"] <= 0.0)).any(axis=1)
        if soft_only.all():
            _solve_soft_rows(p, s, part, dt, int(iterations))
        elif not soft_only.any():
            _solve_rows_by_passes(p, s, part, dt, int(iterations))
        else:
            _solve_soft_rows(p, s, _rows_of(part, soft_only), dt, int(iterations))
            _solve_rows_by_passes(p, s, _rows_of(part, ~soft_only), dt, int(iterations))


def _solve_soft_rows(p: SimParams, s: SimState, rows: dict, dt: float, iterations: int) -> None:
    """Only soft (sticky) rows: each TGS pass is the linear map x <- T x on the 6-D body velocity x = (v, w).

    With j_r = (n_r, arm_r x n_r), the inverse mass W and row weights k_r = c_r h / (j_r W j_r) (h = dt / passes),
    a converged pass solves (S + J W J^T) lambda = -J x, S = diag(1 / k_r), and
    x + W J^T lambda = (I + W H)^-1 x with H = J^T diag(k) J (Woodbury / push-through identity): a 6x6 inverse
    instead of a rows x rows one, and all passes at once as T^passes.
    """
    vehicles = rows["vehicles"]
    J_lin, act, damping = rows["linear"], rows["active"], rows["damping"]
    J_ang = vm.cross(rows["arm"], J_lin)
    R = vm.quat_to_mat(s.body_orientation[:, vehicles])
    WJ_lin = J_lin * (1.0 / p.mass[vehicles])[:, None]
    WJ_ang = vm.matvec(R[:, :, :, None], vm.matTvec(R[:, :, :, None], J_ang) * (1.0 / p.moi[:, vehicles])[:, :, None])
    u = vm.dot(J_lin, WJ_lin) + vm.dot(J_ang, WJ_ang)
    h = dt / max(1, int(iterations))
    act = act & (u > 0.0)  # a row with a zero Jacobian (no tire direction off the ground) does nothing
    k = np.where(act, damping * h / np.where(act, u, 1.0), 0.0)
    j = np.concatenate((J_lin, J_ang))  # (6, n, rows)
    Wj = np.concatenate((WJ_lin, WJ_ang))
    WH = np.matmul(np.transpose(Wj * k, (1, 0, 2)), np.transpose(j, (1, 2, 0)))  # sum_r k_r (W j_r) j_r^T
    T = np.linalg.inv(np.eye(6, dtype=WH.dtype) + WH)
    T = np.linalg.matrix_power(T, max(1, int(iterations)))
    x = np.concatenate((s.linear_velocity[:, vehicles], s.angular_velocity[:, vehicles]))  # (6, n)
    x = np.einsum("nab,bn->an", T, x)
    s.linear_velocity[:, vehicles] = x[:3]
    s.angular_velocity[:, vehicles] = x[3:]


def _solve_rows_by_passes(p: SimParams, s: SimState, rows: dict, dt: float, iterations: int = 1) -> None:
    """4.10 sticky-tire and suspension-limit rows of the vehicles `rows["vehicles"]`, as PhysX's TGS applies them.

    TGS applies the rows once per position iteration, each over dt / iterations; each pass is solved to
    convergence here. Sticky rows are soft (acceleration springs, damping c*):
    lambda_j = -(c*_j h / u_j) J_j (v + W J^T lambda), h = dt / iterations, so one pass damps a lone row by
    (1 + c* h)^-1. Limit rows are hard: J_j (v + W J^T lambda) = -separation/dt (only while penetrating),
    impulses >= 0. Body rotation and rows stay fixed over the passes, so the system is inverted once.
    """
    vehicles = rows["vehicles"]
    lin, arm, damping, act = rows["linear"], rows["arm"], rows["damping"], rows["active"]  # (3,n,R), (3,n,R), (n,R)
    J_lin = lin
    J_ang = vm.cross(arm, J_lin)
    R = vm.quat_to_mat(s.body_orientation[:, vehicles])
    inv_m = 1.0 / p.mass[vehicles]
    inv_I = 1.0 / p.moi[:, vehicles]
    # W J^T for each row: (linear part, angular part)
    WJ_lin = J_lin * inv_m[:, None]
    WJ_ang = vm.matvec(R[:, :, :, None], vm.matTvec(R[:, :, :, None], J_ang) * inv_I[:, :, None])
    # A_jk = J_j W J_k^T
    A = np.einsum("avj,avk->vjk", J_lin, WJ_lin) + np.einsum("avj,avk->vjk", J_ang, WJ_ang)
    u = np.einsum("vjj->vj", A)
    act = act & (u > 0.0)  # a row with a zero Jacobian does nothing
    soft = damping > 0.0
    target = rows["target_separation"] / dt
    h = dt / max(1, int(iterations))
    n_rows = A.shape[1]
    eye = np.eye(n_rows)[None]
    # soft: (1/(c h) * u) lambda_j + (A lambda)_j = -Jv_j   <=>  lambda_j = -(c h / u)(Jv + A lambda)_j
    scale = np.where(soft, u / np.where(soft, damping * h, 1.0), 0.0)
    off = ~act
    Msys = np.where(off[:, :, None] | off[:, None, :], 0.0, A + eye * scale[:, :, None]) + eye * off[:, :, None]
    # pseudo-inverse: more hard rows than the body has freedoms (or parallel ones) leave the system singular;
    # PGS then settles on one of the solutions, the pseudo-inverse on the least-norm one
    inverse = np.linalg.pinv(Msys)
    v = s.linear_velocity[:, vehicles]
    w = s.angular_velocity[:, vehicles]
    for _ in range(max(1, int(iterations))):
        Jv = vm.dot(J_lin, v[:, :, None]) + vm.dot(J_ang, w[:, :, None])  # (n, R)
        rhs = np.where(off, 0.0, np.where(soft, -Jv, target - Jv))
        lam = np.einsum("vjk,vk->vj", inverse, rhs)
        # hard rows only push (impulse >= 0); re-solve once without rows that wanted to pull
        pull = act & ~soft & (lam < 0.0)
        if pull.any():
            off2 = off | pull
            M2 = np.where(off2[:, :, None] | off2[:, None, :], 0.0, A + eye * scale[:, :, None]) + eye * off2[:, :, None]
            lam = np.einsum("vjk,vk->vj", np.linalg.pinv(M2), np.where(off2, 0.0, rhs))
        v = v + np.einsum("avj,vj->av", WJ_lin, lam)
        w = w + np.einsum("avj,vj->av", WJ_ang, lam)
    s.linear_velocity[:, vehicles] = v
    s.angular_velocity[:, vehicles] = w


def gyroscopic_update(p: SimParams, s: SimState, dt: float) -> np.ndarray:
    """PhysX's gyroscopic term (physxRigidBody:enableGyroscopicForces, on by default), applied to the solver
    body before the constraints: the body-frame momentum L = I w turns by -w x L over dt and is rescaled to
    its old magnitude (the update conserves |L|)."""
    R = vm.quat_to_mat(s.body_orientation)
    local = vm.matTvec(R, s.angular_velocity)
    momentum = p.moi * local
    turned = momentum - vm.cross(local, momentum) * dt
    old, new = vm.norm(momentum), vm.norm(turned)
    turned = turned * np.where(new > 0.0, old / np.where(new > 0.0, new, 1.0), 0.0)
    return s.angular_velocity + vm.matvec(R, turned / p.moi - local)


def _damping_factor(p: SimParams, damping: np.ndarray, dt: float) -> np.ndarray:
    """PhysX's velocity multiplier max(0, 1 - damping dt), per vehicle, formed in double and rounded once."""
    return np.maximum(0.0, 1.0 - damping * dt).astype(p.dtype)


def _clamp_magnitude(v: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """PhysX's velocity limit: a (3, V) velocity longer than its vehicle's limit is scaled back onto it."""
    squared = vm.dot(v, v)
    over = squared > limit * limit
    if not over.any():
        return v
    return np.where(over, v * np.sqrt(limit * limit / np.where(over, squared, 1.0)), v)


def end_step_physx(p: SimParams, s: SimState, begin_position: np.ndarray, begin_orientation: np.ndarray, rows: dict | None,
                   dt: float) -> None:
    """What the PhysX scene does with the vehicle2 velocity, with each vehicle's PhysxRigidBodyAPI settings: damping,
    velocity limits, the gyroscopic term, vehicle constraints, pose integration.

    velocityChange writes v, w to the actor; acceleration adds (v - v_begin)/dt as an acceleration, which
    for an actor whose velocity was v_begin gives the same velocity going into the solver. Gravity is
    disabled on vehicle actors (vehicle2 already applied it; omni.physx disables it whatever disableGravity says).
    """
    s.linear_velocity = s.linear_velocity * _damping_factor(p, p.linear_damping, dt)
    s.angular_velocity = s.angular_velocity * _damping_factor(p, p.angular_damping, dt)
    s.linear_velocity = _clamp_magnitude(s.linear_velocity, p.max_linear_velocity)
    s.angular_velocity = _clamp_magnitude(s.angular_velocity, p.max_angular_velocity)
    if p.any_gyroscopic:
        turned = gyroscopic_update(p, s, dt)
        s.angular_velocity = turned if p.all_gyroscopic else np.where(p.gyroscopic, turned, s.angular_velocity)
    # PhysX's TGS solver applies the rows once per position iteration, each over dt / iterations: an
    # acceleration spring (the sticky rows) then damps by (1 + c dt / n)^-n instead of (1 + c dt)^-1.
    if rows is not None:
        solve_vehicle_constraints(p, s, rows, dt)
    s.body_position = begin_position + s.linear_velocity * dt
    s.body_orientation = vm.quat_integrate_exact(begin_orientation, s.angular_velocity, dt)
