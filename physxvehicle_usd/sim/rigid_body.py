"""Rigid body: vehicle2's substep integration (7) and the PhysX-actor end of a step (1.5, 4.10).

vehicle2 integrates velocity and pose every substep (semi-implicit Euler, no gyroscopic term). With a
PhysX actor (Omni), only the velocity survives: PhysX then damps it, adds its gyroscopic term, integrates the pose
and runs its solver on the vehicle's constraint and contact rows (sim/row_solver.py).
`end_step_physx` emulates that part of the PhysX scene step.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .. import properties as P
from . import compiled_end_step
from . import vecmath as vm
from .declare import F32, Derived, Param, State
from .row_solver import solve_every_vehicle_with_contacts, solve_vehicle_constraints

# a body's wake counter when it is woken (DySleep.cpp; PxSceneDesc::wakeCounterResetValue, 20 steps of 0.02 s)
WAKE_COUNTER_RESET_S = 20.0 * 0.02

if TYPE_CHECKING:  # (sim/state.py builds SimState from these modules' declarations)
    from .solver_rows import ConstraintRows, PairRows, PatchRows
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
    Param("velocity_iterations", source=(P.RIGID_BODY, "solverVelocityIterationCount"), dtype=np.int64),
    Param("gyroscopic", source=(P.RIGID_BODY, "enableGyroscopicForces"), dtype=bool),
    Param("max_depenetration_velocity", source=(P.RIGID_BODY, "maxDepenetrationVelocity"), unit="length/s"),
    Param("sleep_threshold", source=(P.RIGID_BODY, "sleepThreshold"), unit="length^2/s^2"),  # sim/sleep.py
    # the scene's solver (physxScene:solverType): PGS, else TGS
    Param("pgs", source=(P.SCENE, "solverType"), transform=lambda token: token == "PGS", dtype=bool),
)
# what SimParams.from_batch derives: whether any or every vehicle has gyroscopic forces
DERIVED = (Derived("any_gyroscopic", value=lambda p, b: bool(b.gyroscopic.any())),
           Derived("all_gyroscopic", value=lambda p, b: bool(b.gyroscopic.all())))


def body_pose(p: SimParams, actor_p: np.ndarray, actor_q: np.ndarray,
              rows=slice(None)) -> tuple[np.ndarray, np.ndarray]:
    """Body (centre-of-mass) pose of the vehicles `rows` from their actor (vehicle prim) poses, (3, k) and (4, k) with
    w first: pose_B = actorPose * cMassLocalPose. Computed in double, as the description's pose is."""
    actor_q = np.asarray(actor_q, dtype=float)
    body_q = vm.quat_normalize(vm.quat_mul(actor_q, p.com_orientation[:, rows]))
    body_p = np.asarray(actor_p, dtype=float) + vm.quat_rotate(actor_q, p.com_position[:, rows])
    return body_p, body_q


def actor_pose(p: SimParams, s: SimState) -> tuple[np.ndarray, np.ndarray]:
    """World pose of the actor (the vehicle prim) from the body pose: actor = body * cMassLocalPose^-1."""
    actor_q = vm.quat_normalize(vm.quat_mul(s.body_orientation, vm.quat_conj(p.com_orientation)))
    actor_p = s.body_position - vm.quat_rotate(actor_q, p.com_position)
    return actor_p, actor_q


def _initial_body_pose(p: SimParams) -> tuple[np.ndarray, np.ndarray]:
    return body_pose(p, vm.components_first(p.init_position), vm.components_first(p.init_orientation))


# PxVehicleRigidBodyState: the body frame is the centre-of-mass frame with principal axes; vectors component-first
STATES = (
    State("body_position", initial=lambda p: _initial_body_pose(p)[0], shape=(3,), component_first=True,
          unit="length", substep=True, kernel=F32, kernel_writes=True, doc="the body frame's origin, world"),
    State("body_orientation", initial=lambda p: _initial_body_pose(p)[1], shape=(4,), component_first=True,
          substep=True, kernel=F32, kernel_writes=True, doc="the body frame's rotation, world, (w, x, y, z)"),
    State("linear_velocity", initial=lambda p: vm.components_first(p.init_linear_velocity), shape=(3,), component_first=True,
          unit="length/s", substep=True, kernel=F32, kernel_writes=True, doc="of the body frame's origin, world"),
    State("angular_velocity", initial=lambda p: vm.components_first(p.init_angular_velocity), shape=(3,), component_first=True,
          unit="rad/s", substep=True, kernel=F32, kernel_writes=True, doc="world"),
    # the PhysX actor's sleeping (sim/sleep.py)
    State("asleep", initial=False, dtype=bool, doc="the actor sleeps: its pose held, its velocities 0"),
    State("wake_counter", initial=WAKE_COUNTER_RESET_S, unit="s", doc="the actor's wake counter (DySleep.cpp)"),
    State("sleep_linear_sum", shape=(3,), component_first=True, unit="length/s",
          doc="the linear velocities summed while the wake counter runs out"),
    State("sleep_angular_sum", shape=(3,), component_first=True, unit="rad/s",
          doc="the body-frame angular velocities summed while the wake counter runs out"),
    State("previous_steer", initial=np.nan, doc="the steer command of the last step (a new one wakes the actor; "
          "NaN: none yet)"),
    State("previous_wheel_steer", initial=np.nan, shape=("W",), unit="rad",
          doc="a vehicle without a drive: its wheels' steer angles of its last step asleep"),
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


def integrate_position(p: SimParams, begin_position: np.ndarray, velocity: np.ndarray, dt: float) -> np.ndarray:
    """The position after the step of bodies at a constant velocity (3, V), as PhysX's solver integrates it, in the
    state's precision: TGS adds the move v h after each of the island's n position iterations (h = dt / n;
    DyTGSDynamics.cpp integrateCoreStep adds each substep's move to the world position, in float32), PGS adds v dt
    once. The two round differently: PhysX's standing car creeping at 8e-5 m/s 5.4 m from the origin stays put in
    16 adds (each under half the position's rounding step), and moved 1.4e-6 m a step in one."""
    substeps = np.where(p.pgs, 1, np.maximum(p.position_iterations, 1))
    first = int(substeps[0]) if substeps.size else 1
    if (substeps == first).all():  # one count for the whole batch: the common case
        return _moved(begin_position, velocity * (dt / first), first)
    position = begin_position.copy()
    for n in np.unique(substeps).tolist():
        sel = substeps == n
        position[:, sel] = _moved(begin_position[:, sel], velocity[:, sel] * (dt / n), n)
    return position


def _moved(position: np.ndarray, move: np.ndarray, n: int) -> np.ndarray:
    """position + move + ... + move (n moves), each add rounded to the arrays' precision."""
    out = position + move
    for _ in range(n - 1):
        np.add(out, move, out=out)
    return out


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


def end_velocity(p: SimParams, s: SimState, dt: float) -> None:
    """The velocities PhysX's solver starts from: the vehicle2 velocity damped, limited and turned by the gyroscopic
    term (compiled_end_step.end_velocity is its C twin)."""
    s.linear_velocity = s.linear_velocity * _damping_factor(p, p.linear_damping, dt)
    s.angular_velocity = s.angular_velocity * _damping_factor(p, p.angular_damping, dt)
    s.linear_velocity = _clamp_magnitude(s.linear_velocity, p.max_linear_velocity)
    s.angular_velocity = _clamp_magnitude(s.angular_velocity, p.max_angular_velocity)
    if p.any_gyroscopic:
        turned = gyroscopic_update(p, s, dt)
        s.angular_velocity = turned if p.all_gyroscopic else np.where(p.gyroscopic, turned, s.angular_velocity)


def end_step_physx(p: SimParams, s: SimState, begin_position: np.ndarray, begin_orientation: np.ndarray,
                   rows: ConstraintRows | None, dt: float, patches: PatchRows | None = None,
                   pairs: PairRows | None = None, kernel_threads: int | None = None) -> None:
    """What the PhysX scene does with the vehicle2 velocity, with each vehicle's PhysxRigidBodyAPI settings: damping,
    velocity limits, the gyroscopic term, vehicle constraints and contacts, pose integration.

    patches: the contact rows of the vehicles `rows.vehicles` (sim/contact/patches.py patch_rows), or None; pairs:
    the contact rows between them (sim/contact/patches.py pair_rows), or None; kernel_threads: solve the rows the compiled
    solver covers in C with that many threads, and form the velocities before them in C where
    compiled_end_step.end_velocity covers the batch (None: numpy; row_solver.solve_vehicle_constraints).

    Without contacts, in a TGS scene, the pipeline ends a float32 step with this function's C twin instead
    (sim/compiled_end_step.py, the same bits), where the compiled solver is asked for. With contacts, where the rows
    make one TGS group of every vehicle, the velocities and the solve run together
    (row_solver.solve_every_vehicle_with_contacts, the same bits).

    velocityChange writes v, w to the actor; acceleration adds (v - v_begin)/dt as an acceleration, which
    for an actor whose velocity was v_begin gives the same velocity going into the solver. Gravity is
    disabled on vehicle actors (vehicle2 already applied it; omni.physx disables it whatever disableGravity says).
    """
    if (kernel_threads is not None and rows is not None and patches is not None and pairs is None
            and solve_every_vehicle_with_contacts(p, s, rows, dt, begin_position, begin_orientation, patches,
                                                  kernel_threads)):
        return  # (the velocities below, the pose and the rows in one compiled solve: the same bits)
    if kernel_threads is None or not compiled_end_step.end_velocity(p, s, dt):  # (C: the same bits, where it covers)
        end_velocity(p, s, dt)
    # A vehicle without rows keeps its velocity over the step (either solver), and its pose moves as the solver
    # integrates it (`integrate_position`); one with rows gets its velocity and
    # pose from PhysX's TGS iterations (each over dt / iterations: the pose moves between them, so an acceleration
    # spring damps by (1 + c dt / n)^-n, and a penetration is resolved in position, not kept as speed), or from its
    # PGS iterations (row_solver `_solve_rows_pgs`).
    if _rows_pose_every_body(s, begin_position, begin_orientation, rows, dt):
        # (the solve writes every body's pose, as the integration would have made its arrays: new ones of its dtype)
        s.body_position, s.body_orientation = np.empty_like(s.body_position), np.empty_like(s.body_orientation)
    else:
        s.body_position = integrate_position(p, begin_position, s.linear_velocity, dt)
        s.body_orientation = vm.quat_integrate_exact(begin_orientation, s.angular_velocity, dt)
    if rows is not None:
        solve_vehicle_constraints(p, s, rows, dt, begin_position, begin_orientation, patches, pairs, kernel_threads)


def _rows_pose_every_body(s: SimState, begin_position: np.ndarray, begin_orientation: np.ndarray,
                          rows: ConstraintRows | None, dt) -> bool:
    """Whether row_solver.solve_vehicle_constraints poses every body (each solve group stores its vehicles' pose, and
    the rows list every vehicle), so that the integration before it would be overwritten whole: and the arrays it
    would have made have the state's dtypes (float dt, one dtype per pose and its velocity)."""
    return (rows is not None and len(rows.vehicles) == s.body_position.shape[1] and type(dt) is float
            and begin_position.dtype == s.linear_velocity.dtype == s.body_position.dtype
            and begin_orientation.dtype == s.angular_velocity.dtype == s.body_orientation.dtype)
