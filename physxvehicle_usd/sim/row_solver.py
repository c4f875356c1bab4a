"""The vehicles' constraint and contact row solver (4.10, 1.5): PhysX's TGS or PGS iterations over an island's rows.

PhysX runs its TGS solver on the vehicle's constraint rows (sticky tire, suspension limit): one sweep per position
iteration, the pose integrated from the begin pose between them, then the velocity iterations. The contacts of the
vehicle's own collision shapes with the static world (sim/contact/) are rows of the same solve, after the vehicle's
constraint rows (PhysX lists an island's joints before its contacts), as DyTGSContactPrep.cpp prepares and solves them;
the contacts between vehicles (sim/contact/pairs.py) after those, colour by colour, each row acting on both bodies
(`PairContactRows`). Where the scene asks PhysX's PGS solver (physxScene:solverType, the `pgs` parameter), the same rows
go through `_solve_rows_pgs` instead: prepared once over the whole step, the pose moved once after the position
iterations. sim/rigid_body.py integrates the bodies and calls `solve_vehicle_constraints` at the end of a step.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from . import compiled_end_step, compiled_kept_solve, compiled_rows
from . import vecmath as vm
from .contact_rows import PairContactRows, StaticContactRows, dot6
from .memo import LastValue

if TYPE_CHECKING:  # (sim/state.py builds SimState from these modules' declarations)
    from .solver_rows import ConstraintRows, PairRows, PatchRows
    from .state import SimParams, SimState


def solve_vehicle_constraints(p: SimParams, s: SimState, rows: ConstraintRows, dt: float, begin_position: np.ndarray,
                              begin_orientation: np.ndarray, patches: PatchRows | None = None,
                              pairs: PairRows | None = None, kernel_threads: int | None = None) -> None:
    """4.10 rows of the vehicles `rows.vehicles` as PhysX's solver of their scene applies them, each vehicle with
    its own iteration counts: the body velocity and the pose. TGS (DyTGSDynamics.cpp solveIsland,
    DyTGSContactPrep.cpp solve1DStep / conclude1DStep): the iterations integrate the pose from the begin pose; in
    closed form where every active row is soft (sticky), iteration by iteration where a suspension-limit row or a
    contact is active. PGS (`_solve_rows_pgs`): iteration by iteration, one pose update after them.

    pairs: contacts between vehicles (sim/contact/patches.py pair_rows), every vehicle of them in `rows`; vehicles
    touching one another are one island, iterated with the island's largest iteration counts, as PhysX does.

    kernel_threads: run the solves the compiled solver covers (compiled_rows.covers: TGS and PGS, no pairs) in C
    with that many threads (None: every solve in numpy)."""
    vehicles = rows.vehicles
    hard = (rows.active & rows.hard).any(axis=1)
    if patches is not None:
        hard = hard | patches.point_active.any(axis=(1, 2))
    position_counts, velocity_counts = p.position_iterations[vehicles], p.velocity_iterations[vehicles]
    if pairs is not None:
        island = _islands(len(vehicles), np.searchsorted(vehicles, pairs.body0),
                          np.searchsorted(vehicles, pairs.body1))
        coupled = np.bincount(island, minlength=len(vehicles))[island] > 1
        hard = hard | coupled
        for counts in (position_counts, velocity_counts):
            largest = np.zeros(len(vehicles), counts.dtype)
            np.maximum.at(largest, island, counts)
            counts[:] = largest[island]
    pgs = p.pgs[vehicles]
    if pairs is not None:  # an island is solved by its scene's solver (vehicles of two scenes never touch)
        with_pgs = np.zeros(len(vehicles), bool)
        np.logical_or.at(with_pgs, island, pgs)
        pgs = with_pgs[island]
    columns = (position_counts, velocity_counts, hard & ~pgs, pgs)  # PGS: one path either way
    # a fleet of one kind is one group (np.unique over rows sorts the whole fleet: a tenth of a step at 1,000 cars)
    if len(vehicles) == 1 or all((column == column[0]).all() for column in columns):
        counts, groups = None, [tuple(int(column[0]) for column in columns)]
    else:
        counts = np.stack(columns, axis=1)
        groups = np.unique(counts, axis=0)
    for position_iterations, velocity_iterations, with_limit, with_pgs in groups:
        same = None if counts is None else (
            counts == (position_iterations, velocity_iterations, with_limit, with_pgs)).all(axis=1)
        part = rows if same is None else rows.subset(same)  # (None: every vehicle)
        in_part = None if pairs is None else np.isin(pairs.body0, part.vehicles)
        part_patches = patches if patches is None or same is None else patches.subset(same)
        part_pairs = None if in_part is None or not in_part.any() else pairs.subset(in_part)
        if with_pgs:  # PGS's sticky rows act in the velocity iterations too: always row by row
            _solve_rows_pgs(p, s, part, dt, int(position_iterations), int(velocity_iterations), begin_position,
                            begin_orientation, part_patches, part_pairs, kernel_threads)
        elif with_limit:
            _solve_rows_tgs(p, s, part, dt, int(position_iterations), int(velocity_iterations), begin_position,
                            begin_orientation, part_patches, part_pairs, kernel_threads)
        else:  # sticky rows do nothing in TGS's velocity iterations
            _solve_soft_rows(p, s, part, dt, int(position_iterations), begin_position, begin_orientation,
                             kernel_threads)


def solve_every_vehicle_with_contacts(p: SimParams, s: SimState, rows: ConstraintRows, dt: float,
                                      begin_position: np.ndarray, begin_orientation: np.ndarray, patches: PatchRows,
                                      kernel_threads: int) -> bool:
    """rigid_body.end_step_physx's velocities before the rows and `solve_vehicle_constraints` in one compiled solve,
    where its rows make one TGS group of every vehicle of the batch (the same iteration counts, each vehicle with a
    contact point or an active limit row, no contacts between vehicles) that the compiled solver and
    compiled_end_step's velocities cover: the state's velocities and pose replaced by the solved ones, the same bits
    as the two apart. False (nothing done) elsewhere."""
    V = s.linear_velocity.shape[1]
    if len(rows.vehicles) != V or type(dt) is not float or s.body_position.dtype != np.float32:
        return False
    counts = _ONE_SCENE.get(p, None, lambda: _one_scene(p))
    velocity = compiled_end_step.velocity_struct(p)
    if counts is None or velocity is None:
        return False
    # (the C call checks the rest: every array of the type the set-ups read, every vehicle touching or held by a limit
    # row; a vehicle with sticky rows alone is `_solve_soft_rows`')
    solved = compiled_kept_solve.solve_tgs_contacts(p, rows, patches, s.linear_velocity, s.angular_velocity,
                                                    begin_position, begin_orientation, dt, *counts, kernel_threads,
                                                    velocity, s.body_orientation)
    if solved is None:  # (nothing done)
        return False
    contacts, x, s.body_position, s.body_orientation = solved  # (new arrays)
    s.linear_velocity, s.angular_velocity = x[:3], x[3:]
    _record_solved(s, rows.vehicles, contacts, None)
    return True


def end_every_vehicle_touching(p: SimParams, s: SimState, road_normal: np.ndarray, touching: np.ndarray,
                               make_patches: Callable[[np.ndarray], PatchRows], begin_position: np.ndarray,
                               begin_orientation: np.ndarray, dt: float, kernel_threads: int) -> PatchRows | None:
    """rigid_body.end_step_physx of a step in which every vehicle touches the static world (touching (V,): each
    vehicle's flag) and no other vehicle, where `solve_every_vehicle_with_contacts` would take it, with
    pipeline.constraint_rows' rows made in the compiled solve's own call from the wheels' outputs
    (compiled_kept_solve.solve_every_touching, the same bits): the state's velocities and pose replaced by the solved
    ones, and the patches it solved (make_patches(vehicles): patch_rows of every vehicle). None (nothing done, no
    patches kept) elsewhere."""
    if (type(dt) is not float or s.body_position.dtype != np.float32
            or np.count_nonzero(touching) != touching.size):
        return None
    counts = _ONE_SCENE.get(p, None, lambda: _one_scene(p))
    velocity = compiled_end_step.velocity_struct(p)
    if counts is None or velocity is None:
        return None
    vehicles = _every_vehicle(p.V)
    patches = make_patches(vehicles)
    out = s.out
    solved = compiled_kept_solve.solve_every_touching(
        p, patches, (out["_lng_dir"], out["_lat_dir"], road_normal, out["_app_arm"], s.separation,
                     p.sticky_lng_damping_w, p.sticky_lat_damping_w, s.sticky_lng, s.sticky_lat, p.mask, touching),
        s.linear_velocity, s.angular_velocity, begin_position, begin_orientation, dt, *counts, kernel_threads,
        velocity, s.body_orientation)
    if solved is None:
        return None
    contacts, x, s.body_position, s.body_orientation = solved  # (new arrays)
    s.linear_velocity, s.angular_velocity = x[:3], x[3:]
    _record_solved(s, vehicles, contacts, None)
    return patches


@lru_cache(maxsize=8)
def _every_vehicle(V: int) -> np.ndarray:
    """0 .. V - 1 (every vehicle of a batch as a group lists them), read-only: the same array every step."""
    vehicles = np.arange(V)
    vehicles.flags.writeable = False
    return vehicles


def _one_scene(p: SimParams) -> tuple[int, int] | None:
    """The position (at least 1) and velocity iteration counts of a TGS batch whose vehicles all have the same, else
    None."""
    position_counts, velocity_counts = p.position_iterations, p.velocity_iterations
    if p.V == 0 or p.pgs.any() or not ((position_counts == position_counts[0]).all()
                                       and (velocity_counts == velocity_counts[0]).all()):
        return None
    return max(1, int(position_counts[0])), int(velocity_counts[0])


# `_one_scene` of the batch, kept while its parameters are the same arrays
_ONE_SCENE = LastValue("pgs", "position_iterations", "velocity_iterations")


def _islands(n: int, body0: np.ndarray, body1: np.ndarray) -> np.ndarray:
    """The island (its least member) of each of n bodies joined by the pairs (body0, body1): labels spread to the
    least along every pair, then pointer jumping, until nothing changes (a few rounds: the labels halve their
    distance to the least each round)."""
    label = np.arange(n)
    while True:
        least = np.minimum(label[body0], label[body1])
        new = label.copy()
        np.minimum.at(new, body0, least)
        np.minimum.at(new, body1, least)
        new = new[new]
        if np.array_equal(new, label):
            return label
        label = new


def _row_jacobians(p: SimParams, rows: ConstraintRows, R: np.ndarray):
    """Per row: the Jacobian j = (n, arm x n) and W j (6, vehicles, rows), W the inverse mass at the rotation R
    (3, 3, vehicles) (the solver's: the begin pose), and the unit response u = j W j (vehicles, rows)."""
    vehicles = rows.vehicles
    J_lin = rows.linear
    J_ang = vm.cross(rows.arm, J_lin)
    WJ_lin = J_lin * (1.0 / p.mass[vehicles])[:, None]
    WJ_ang = vm.matvec(R[:, :, :, None], vm.matTvec(R[:, :, :, None], J_ang) * (1.0 / p.moi[:, vehicles])[:, :, None])
    u = vm.dot(J_lin, WJ_lin) + vm.dot(J_ang, WJ_ang)
    return np.concatenate((J_lin, J_ang)), np.concatenate((WJ_lin, WJ_ang)), u


def _spring_gains(rows: ConstraintRows, u: np.ndarray, h: float, dtype) -> np.ndarray:
    """-velMultiplier of each active sticky row (an acceleration spring of damping c over h): a sweep adds
    -(c h / (1 + c h)) J v / u to its impulse. Zero for limit rows, inactive rows and rows with a zero Jacobian."""
    act = rows.active & ~rows.hard & (u > 0.0)
    a = np.where(act, rows.damping * h, 0.0)
    return (a / (1.0 + a) / np.where(act, u, 1.0)).astype(dtype)


def _solve_soft_rows(p: SimParams, s: SimState, rows: ConstraintRows, dt: float, iterations: int,
                     begin_position: np.ndarray,
                     begin_orientation: np.ndarray, kernel_threads: int | None = None) -> None:
    """Only sticky rows: a Gauss-Seidel sweep over them is linear in the body velocity x = (v, w), x <- G x with
    G = prod_r (I - g_r (W j_r) j_r^T) (rows in solve order, g_r the spring gain), so position iteration i
    leaves G^i x and the pose moves by h G^i x after it: 6x6 products instead of a pass per row.

    kernel_threads not None (the compiled solver asked for) and float32: G and the iterations in C with that many
    threads (compiled_rows.solve_soft, the same bits): a fleet braked at rest, whose sticky rows act every step, spent
    most of its step here in numpy's small operations."""
    vehicles = rows.vehicles
    n = max(1, int(iterations))
    h = dt / n
    dtype = s.linear_velocity.dtype
    J, WJ, u = _row_jacobians(p, rows, vm.quat_to_mat(begin_orientation[:, vehicles]))
    gain = _spring_gains(rows, u, h, dtype)
    x = _velocity(s, vehicles)  # (6, vehicles)
    position, orientation = begin_position[:, vehicles], begin_orientation[:, vehicles]
    if kernel_threads is not None and compiled_rows.covers_soft(J, WJ, gain, x):
        _store(s, vehicles, *compiled_rows.solve_soft(J, WJ, gain, x, position, orientation, h, n, kernel_threads))
        return
    G = np.broadcast_to(np.eye(6, dtype=dtype)[:, :, None], (6, 6, vehicles.size))  # (6, 6, vehicles)
    for r in np.nonzero((gain != 0.0).any(axis=0))[0]:
        jG = _sum6(J[a, :, r] * G[a] for a in range(6))  # j_r^T G: (6, vehicles)
        G = G - (gain[:, r] * WJ[:, :, r])[:, None] * jG[None]
    for _ in range(n):
        x = _sum6(G[:, b] * x[b] for b in range(6))
        position = position + x[:3] * h
        orientation = vm.quat_integrate_exact(orientation, x[3:], h)
    _store(s, vehicles, x, position, orientation)


def _store(s: SimState, vehicles: np.ndarray, x: np.ndarray, position: np.ndarray, orientation: np.ndarray) -> None:
    at = slice(None) if _every(s, vehicles) else vehicles  # (a slice: a copy, not a scatter)
    s.linear_velocity[:, at] = x[:3]
    s.angular_velocity[:, at] = x[3:]
    s.body_position[:, at] = position
    s.body_orientation[:, at] = orientation


def _every(s: SimState, vehicles: np.ndarray) -> bool:
    """Whether `vehicles` (sorted, each once: a group's) are every vehicle of the batch."""
    return len(vehicles) == s.linear_velocity.shape[1]


def _velocity(s: SimState, vehicles: np.ndarray) -> np.ndarray:
    """(6, vehicles): the vehicles' linear and angular velocity."""
    if _every(s, vehicles):
        return np.concatenate((s.linear_velocity, s.angular_velocity))
    return np.concatenate((s.linear_velocity[:, vehicles], s.angular_velocity[:, vehicles]))


def _sum6(terms) -> np.ndarray:
    """The sum of six terms, added one by one: elementwise, so a vehicle's result does not depend on which others
    share its batch (the threads step ranges of vehicles and must agree bit for bit with one batch)."""
    total = None
    for term in terms:
        total = term if total is None else total + term
    return total


# PhysX's TGS constants for a hard 1-D row flagged eANGULAR_CONSTRAINT, as the vehicle's limit rows are
# (DyCpuGpu1dConstraint.h computeMaxBiasVelocityTGS, DyTGSDynamics.cpp): the bias speed is capped at
# 0.75 / dt in stage units (no length scale), and the Baumgarte factor is 0.5 * biasCoefficient with
# biasCoefficient = 2 sqrt(1 / position iterations).
_MAX_BIAS_PER_STEP = 0.75


def _solve_rows_tgs(p: SimParams, s: SimState, rows: ConstraintRows, dt: float, position_iterations: int,
                    velocity_iterations: int, begin_position: np.ndarray, begin_orientation: np.ndarray,
                    patches: PatchRows | None = None, pairs: PairRows | None = None,
                    kernel_threads: int | None = None) -> None:
    """Rows of vehicles with a suspension-limit row, iterated one by one as PhysX does.

    Rows go in PhysX's order (sticky rows before limit rows, see `constraint_rows`), one Gauss-Seidel sweep per
    iteration. Position iterations (n, each over h = dt / n): a sticky row adds -g J v (`_spring_gains`); a
    limit row drives J v to the bias b = min(k (-(separation + J dx)), 0.75 / dt), k = sqrt(n) / dt, where J dx
    is the motion along the row so far (the geometric error it has resolved), with a total impulse >= 0. After
    every sweep the pose moves by v h. Then the bias is dropped and spring rows go inert: each velocity
    iteration drives J v of a limit row to 0, taking back at most the impulse it gave. So the penetration is
    resolved in position and the velocity that did it is not kept; the final velocity is the one after the
    velocity iterations.

    kernel_threads: where not None and the compiled solver covers the group (compiled_rows.covers), the rows are set
    up (the contact rows from the patches) and iterated in C (the same arithmetic), with that many threads.
    """
    vehicles = rows.vehicles
    n = max(1, int(position_iterations))
    dtype = s.linear_velocity.dtype
    if (kernel_threads is not None and patches is not None and type(dt) is float
            and compiled_rows.covers(dtype, pairs, p, rows, patches)):
        # the contact rows, the constraint rows and the iterations in C, into buffers kept from step to step
        solved = compiled_kept_solve.solve_tgs_contacts(p, rows, patches, s.linear_velocity, s.angular_velocity,
                                                        begin_position, begin_orientation, dt, n,
                                                        int(velocity_iterations), kernel_threads)
        if solved is not None:
            _record_solved(s, vehicles, solved[0], None)
            _store(s, vehicles, *solved[1:])
            return
    h = dt / n
    bias_scale = dtype.type(np.sqrt(n) / dt)
    max_bias = dtype.type(_MAX_BIAS_PER_STEP / dt)
    x = _velocity(s, vehicles)  # (6, vehicles)
    if kernel_threads is not None and compiled_rows.covers(dtype, pairs, p, rows, patches):
        # the rows set up in C (the contact rows from the patches) and iterated there
        contacts = None if patches is None else compiled_rows.CompiledContactRows(
            p, patches, vehicles, begin_orientation, x, dt, n, False, kernel_threads)
        x, position, orientation = compiled_rows.solve_tgs(contacts, p, rows, x, begin_position, begin_orientation,
                                                           bias_scale, max_bias, dt, n, int(velocity_iterations),
                                                           kernel_threads)
        _record_solved(s, vehicles, contacts, None)
        _store(s, vehicles, x, position, orientation)
        return
    rotation = vm.quat_to_mat(begin_orientation[:, vehicles])  # the begin pose's: every row's
    J, WJ, u = _row_jacobians(p, rows, rotation)
    act, hard = rows.active & (u > 0.0), rows.hard  # a zero Jacobian: PhysX's zero reciprocal response
    recip = np.where(act, 1.0 / np.where(act, u, 1.0), 0.0).astype(dtype)
    spring_gain = _spring_gains(rows, u, h, dtype)
    separation = rows.separation.astype(dtype)
    position, orientation = begin_position[:, vehicles], begin_orientation[:, vehicles]
    moved = np.zeros_like(x)  # the pose change so far: (position, rotation vector) as the solver accumulates them
    impulse = np.zeros(act.shape, dtype=dtype)
    order = [r for r in range(act.shape[1]) if act[:, r].any()]
    contacts = between = None
    if patches is not None:
        contacts = StaticContactRows(p, patches, vehicles, rotation.astype(float), x.astype(float), dt, n, dtype)
    if pairs is not None:  # contacts between vehicles, after every vehicle's own rows
        between = PairContactRows(p, pairs, vehicles, rotation.astype(float), x.astype(float), dt, n)
    for iteration in range(n):
        for r in order:
            j, wj = J[:, :, r], WJ[:, :, r]
            jv = dot6(j, x)
            if hard[:, r].any():
                bias = np.minimum(-bias_scale * (separation[:, r] + dot6(j, moved)), max_bias)
                total = np.maximum(impulse[:, r] + (bias - jv) * recip[:, r], 0.0)
                step = np.where(hard[:, r], total - impulse[:, r], -spring_gain[:, r] * jv)
                impulse[:, r] = np.where(hard[:, r], total, impulse[:, r])
            else:
                step = -spring_gain[:, r] * jv
            x = x + wj * step
        if contacts is not None:
            x = contacts.sweep(x, moved, iteration * h, -np.inf).astype(dtype)
        if between is not None:
            x = between.sweep(x, moved, iteration * h, -np.inf).astype(dtype)
        moved = moved + x * h
        position = position + x[:3] * h
        orientation = vm.quat_integrate_exact(orientation, x[3:], h)
    limits = [r for r in order if hard[:, r].any()]
    for _ in range(int(velocity_iterations)):
        for r in limits:
            total = np.maximum(impulse[:, r] - dot6(J[:, :, r], x) * recip[:, r], 0.0)
            x = x + WJ[:, :, r] * np.where(hard[:, r], total - impulse[:, r], 0.0)
            impulse[:, r] = np.where(hard[:, r], total, impulse[:, r])
        if contacts is not None:
            x = contacts.sweep(x, moved, dt, 0.0).astype(dtype)
        if between is not None:
            x = between.sweep(x, moved, dt, 0.0).astype(dtype)
    _record_solved(s, vehicles, contacts, between)
    _store(s, vehicles, x, position, orientation)


# PGS solves friction rows in its last position iterations only (DySolverControl.cpp solveV_Blocks, without
# PxSceneFlag::eENABLE_FRICTION_EVERY_ITERATION, which omni.physx does not set), and in every velocity iteration.
_PGS_FRICTION_POSITION_ITERATIONS = 3


def _solve_rows_pgs(p: SimParams, s: SimState, rows: ConstraintRows, dt: float, position_iterations: int,
                    velocity_iterations: int, begin_position: np.ndarray, begin_orientation: np.ndarray,
                    patches: PatchRows | None = None, pairs: PairRows | None = None,
                    kernel_threads: int | None = None) -> None:
    """Rows of vehicles in a PGS scene, as PhysX's PGS solver applies them (DySolverControl.cpp solveV_Blocks,
    DyConstraintSetup.cpp / DyCpuGpu1dConstraint.h compute1dConstraintSolverConstantsPGS, DyContactPrep.cpp,
    DySolverConstraints.cpp solve1D / solveContact). Every row is prepared once over the whole step dt at the begin
    pose, and the pose does not move while the rows are swept (in PhysX's order, as `_solve_rows_tgs`):

    - a sticky row (acceleration spring of damping c, a = c dt) takes a/(1+a) of its impulse so far plus
      -(a/(1+a)) J v / u: repeated sweeps converge on the implicit damper J v -> J v / (1 + a), and it acts in the
      velocity iterations as in the position ones;
    - a suspension-limit row drives J v to -separation / dt (Baumgarte factor 1, no cap) in the position iterations
      and to 0 in the velocity iterations, with a total impulse >= 0;
    - contacts: `StaticContactRows.sweep_pgs`, `PairContactRows.sweep_pgs`, friction in the last three position
      iterations.

    After the position iterations PGS keeps the body velocity as the motion velocity: the pose moves by it over dt.
    The velocity iterations (at least one) then give the velocity the body ends the step with.

    kernel_threads: as `_solve_rows_tgs`'s.
    """
    vehicles = rows.vehicles
    n = max(1, int(position_iterations))
    dtype = s.linear_velocity.dtype
    x = _velocity(s, vehicles)  # (6, vehicles)
    if kernel_threads is not None and compiled_rows.covers(dtype, pairs, p, rows, patches):
        # the rows set up in C over the whole step (the contact rows from the patches, with PGS's biases), swept there
        contacts = None if patches is None else compiled_rows.CompiledContactRows(
            p, patches, vehicles, begin_orientation, x, dt, 1, True, kernel_threads)
        x, motion = compiled_rows.solve_pgs(contacts, p, rows, x, begin_orientation, dt, n,
                                            _PGS_FRICTION_POSITION_ITERATIONS, int(velocity_iterations), kernel_threads)
        _record_solved(s, vehicles, contacts, None)
        _store(s, vehicles, x, begin_position[:, vehicles] + motion[:3] * dtype.type(dt),
               vm.quat_integrate_exact(begin_orientation[:, vehicles], motion[3:], dt))
        return
    rotation = vm.quat_to_mat(begin_orientation[:, vehicles])  # the begin pose's: every row's
    J, WJ, u = _row_jacobians(p, rows, rotation)
    act, hard = rows.active & (u > 0.0), rows.hard
    recip = np.where(act, 1.0 / np.where(act, u, 1.0), 0.0).astype(dtype)
    spring_gain = _spring_gains(rows, u, dt, dtype)  # (a / (1 + a)) / u
    impulse_kept = (spring_gain * np.where(act, u, 0.0)).astype(dtype)  # a / (1 + a): PhysX's impulseMultiplier
    limit_bias = (-rows.separation / dt).astype(dtype)
    impulse = np.zeros(act.shape, dtype=dtype)
    order = [r for r in range(act.shape[1]) if act[:, r].any()]
    contacts = between = None
    if patches is not None:
        contacts = StaticContactRows(p, patches, vehicles, rotation.astype(float), x.astype(float), dt, 1, dtype)
        contacts.prepare_pgs(dt)
    if pairs is not None:
        between = PairContactRows(p, pairs, vehicles, rotation.astype(float), x.astype(float), dt, 1)
        between.prepare_pgs(dt)

    def sweep(x: np.ndarray, biased: bool, friction: bool) -> np.ndarray:
        for r in order:
            jv = dot6(J[:, :, r], x)
            if hard[:, r].any():
                bias = limit_bias[:, r] if biased else dtype.type(0.0)
                limited = np.maximum(impulse[:, r] + (bias - jv) * recip[:, r], 0.0)
            else:
                limited = impulse[:, r]
            sticky = impulse_kept[:, r] * impulse[:, r] - spring_gain[:, r] * jv
            new = np.where(hard[:, r], limited, np.where(act[:, r], sticky, impulse[:, r]))
            x = x + WJ[:, :, r] * (new - impulse[:, r])
            impulse[:, r] = new
        if contacts is not None:
            x = contacts.sweep_pgs(x, biased, friction).astype(dtype)
        if between is not None:
            x = between.sweep_pgs(x, biased, friction).astype(dtype)
        return x

    for iteration in range(n):
        x = sweep(x, True, n - iteration <= _PGS_FRICTION_POSITION_ITERATIONS)
    motion = x
    for _ in range(max(1, int(velocity_iterations))):
        x = sweep(x, False, True)
    _record_solved(s, vehicles, contacts, between)
    _store(s, vehicles, x, begin_position[:, vehicles] + motion[:3] * dtype.type(dt),
           vm.quat_integrate_exact(begin_orientation[:, vehicles], motion[3:], dt))


def _record_solved(s: SimState, vehicles: np.ndarray, contacts: StaticContactRows | None,
                   between: PairContactRows | None
                   ) -> None:
    """Keep a solve's rows for the step's telemetry and friction bookkeeping (where the step collects them)."""
    if s.contacts is not None:
        if contacts is not None:
            s.contacts.solved.append((vehicles, contacts))
        if between is not None:
            s.contacts.solved.extend(between.views())
            s.contacts.pairs_solved.append(between)

