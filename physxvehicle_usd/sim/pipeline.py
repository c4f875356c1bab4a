"""The vehicle2 step as one list: what runs once per step, what runs per substep, and in which order.

Order (Omni's component sequence, section 1.2 of the numerics digest):
  begin          read the body pose and velocity, choose the substep count
  commands       brake / steer / throttle responses, autobox, gear command, differential, actuation flags
  road geometry  one suspension query per wheel with the begin pose
  [substeps]     suspension -> tire -> drivetrain -> rigid body
  wheel          rotation angle and corrected rotation speed
  end            PhysX actor: damping, gyroscopic term, constraint rows of the last substep and the contacts of
                 the begin pose solved by the scene's solver (TGS: per position iteration; PGS: once over the
                 step), pose integration (or keep vehicle2's own pose)
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from . import compiled, compiled_begin, compiled_end_step, compiled_wheel_rows, disabled, sleep, vehicle_queries
from . import vecmath as vm
from .commands import update_commands
from .contact import pairs as vehicle_pairs
from .contact.broad import begin_check, quiet_above_planes, share_planes_motion
from .contact.model import ContactModel
from .contact.patches import pair_rows as make_pair_rows
from .contact.patches import patch_rows
from .contact.records import Contacts, FrictionPatches, StepContacts
from .contact.telemetry import deferred_telemetry
from .contact.world import generate
from .context import substep_counts
from .drivetrain import differential_state, update_wheel_speeds
from .ground import Ground
from .memo import LastValue
from .motion import Motion
from .query_groups import GroundFilter
from .rigid_body import end_step_physx, integrate_substep
from .row_solver import end_every_vehicle_touching
from .solver_rows import ConstraintRows, PairRows, PatchRows
from .state import SUBSTEP_FIELDS, SUBSTEP_PER_VEHICLE, SimParams, SimState
from .suspension import (
    query_road_geometry,
    steered_axle,
    steered_wheel_offset,
    suspension_force,
    update_compliance,
    update_suspension_state,
)
from .tire import update_tire, wheel_axes_body
from .wheel import update_rotation_angle, wheel_local_pose


@dataclass(frozen=True)
class StepOptions:
    physx_actor: bool = True  # emulate the PhysX actor end (velocity kept, pose by PhysX, constraint rows)
    compiled: bool = True  # run the substeps in the compiled kernel where it covers the batch (sim/compiled.py)
    kernel_threads: int = 1  # threads of the compiled kernel (contiguous ranges of vehicles; same results)
    contacts: bool = True  # collide the vehicles' own shapes with the static ground (where a model is given)
    compiled_rows: bool = True  # with `compiled`: the TGS row solves in C where it covers them (sim/compiled_rows.py)
    # with `compiled_rows`: a step without contacts ends in one C call, its rows built there (sim/compiled_end_step.py)
    compiled_end_step: bool = True


def step(p: SimParams, s: SimState, ground: Ground, friction: np.ndarray, dt: float, opt: StepOptions = StepOptions(),
         contact: ContactModel | None = None, queries: vehicle_queries.VehicleQueries | None = None,
         ground_filter: GroundFilter | None = None) -> None:
    """Advance every vehicle of the batch by dt. contact: the vehicles' collision shapes (None: no contacts);
    queries: what lets the suspension queries meet vehicles' shapes, other vehicles' and their own where the groups
    let them (sim/vehicle_queries.py; None: the ground only); ground_filter: which ground shapes the wheels' queries
    skip (sim/query_groups.py; None: none)."""
    held = sleep.begin(p, s)  # wake the vehicles a command wakes; keep the state of those asleep
    kept = disabled.hold(p, s)  # the vehicles whose vehicle update omni.physx skips (vehicleEnabled false)
    # the begin pose, its rotation (also the first substep's), the forward speed and the substeps: in one C call on
    # the compiled path (sim/compiled_begin.py; the same bits)
    kernel = opt.compiled and compiled.covers(p)  # the substeps in the compiled kernel
    # (with the planes' quiet reference, the begin also answers quiet_above_planes from the pose it reads)
    begun = (compiled_begin.begin(p, s, dt, None if contact is None else begin_check(contact, ground, p.V))
             if kernel else None)
    if begun is None:
        begin_position, begin_orientation = s.body_position.copy(), s.body_orientation.copy()
        R_begin = vm.quat_to_mat(s.body_orientation)
        forward_speed = vm.dot(s.linear_velocity, vm.matvec(R_begin, p.lng_axis))
        n_sub = substep_counts(p, forward_speed)
        dt_sub = (dt / n_sub).astype(p.dtype)
    else:
        begin_position, begin_orientation, forward_speed, n_sub, dt_sub = begun[:5]
        R_begin = None  # (in the begin's block: compiled_begin.rotation)
    diff = differential_state(p, s)
    cmd = update_commands(p, s, dt, forward_speed, diff.torque_ratio)
    # constant compliance: the graphs and the wheel axes in the body frame hold for the whole step
    comp = update_compliance(p, s.jounce) if p.compliance_const else None
    offset, axle, axes = steered_geometry(p, cmd["steer_angle"], comp)
    # the begin pose: the query's and the first substep's
    frame = None if begun is None else compiled_begin.wheel_frame(p, begun, offset)
    if frame is None:
        R_begin = compiled_begin.rotation(p, begun) if R_begin is None else R_begin
        frame = wheel_frame(p, R_begin, s.body_position, offset)
    road = query_road_geometry(p, ground, friction, frame, cmd["steer_angle"], ground_filter, opt.kernel_threads)
    road_velocity = None  # the velocity of what each wheel stands on, where that is another vehicle
    # the quiet broad phases' measure of how far the bodies have moved, taken once this step: none where the begin
    # found the planes quiet and no other phase asks (flat ground, no vehicle pairs, no queries meeting vehicles)
    quiet = begun is not None and compiled_begin.planes_quiet(begun)
    motion = (None if contact is None or (quiet and queries is None and contact.pairs is None)
              else Motion(begin_position, begin_orientation))
    if quiet and motion is not None:  # (the other phases mostly share the planes' reference: measured already)
        share_planes_motion(contact, motion)
    if queries is not None and contact is not None:
        road, road_velocity = _other_vehicles(p, s, road, contact, queries, frame, cmd["steer_angle"], motion)
    if kernel:
        s.out = compiled.run_substeps(p, s, road, offset, axle, axes, comp.toe, cmd, diff, dt, dt_sub, n_sub,
                                      opt.kernel_threads, road_velocity)
    else:
        _numpy_substeps(p, s, road, offset, axle, comp, axes, cmd, diff, R_begin, frame, dt_sub, n_sub, road_velocity)
        update_rotation_angle(p, s, s.out["_lng_speed"], cmd["brake_applied"], cmd["drive_applied"], dt)
    disabled.restore(p, s, kept, cmd)
    if opt.physx_actor:
        # the narrow phase runs after the vehicle update (omni.physx steps the vehicles, then the scene), on the pose
        # the step began with and with the wheel shapes where this update put the wheels
        touching = between = None
        if contact is not None:
            if contact.following.size:
                toe, camber = _compliance_angles(p, s)
                contact = contact.posed(*wheel_local_pose(p, s, cmd["steer_angle"], toe, camber))
            # flat ground, touching nothing: no contact, no manifold
            if quiet or quiet_above_planes(contact, ground, motion):
                s.manifolds = None
            else:
                touching = generate(contact, ground, begin_position, begin_orientation, s.manifolds, p.length_scale,
                                    motion, opt.kernel_threads)
                s.manifolds = touching.manifolds
            if contact.pairs is not None:
                between = vehicle_pairs.generate(contact, begin_position, begin_orientation, s.pair_manifolds,
                                                   p.length_scale, motion)
                s.pair_manifolds = between.manifolds
                if touching is None and len(between):  # (the contacts between vehicles' come with the static ones')
                    touching = Contacts.empty()
        with_contacts = None
        static = touching is not None and len(touching) > 0
        pairs = between is not None and len(between) > 0
        if static or pairs:
            with_contacts = np.zeros(p.V, bool)
            with_contacts[contact.vehicle[touching.shape]] = True
            if pairs:
                with_contacts[contact.vehicle[np.concatenate([between.shape, between.static])]] = True
        row_threads = opt.kernel_threads if opt.compiled and opt.compiled_rows else None  # None: numpy
        s.contacts = None if with_contacts is None else StepContacts(touching, between, contact)
        patches = pair_rows = None
        # every vehicle touching the static world alone: the rows made and solved in C from the wheels' outputs
        # and the patches, where it covers the batch (row_solver.end_every_vehicle_touching)
        if static and not pairs and row_threads is not None:
            patches = end_every_vehicle_touching(
                p, s, road.normal, with_contacts, lambda vehicles: patch_rows(
                    contact, touching, vehicles, begin_position, begin_orientation, p.length_scale, s.friction),
                begin_position, begin_orientation, dt, row_threads)
        # no contacts: the rows built and solved in one C call from the wheels' outputs, where it covers the batch
        if patches is None and not (
                with_contacts is None and row_threads is not None and opt.compiled_end_step
                and compiled_end_step.end_step(p, s, road.normal, begin_position, begin_orientation, dt, row_threads)):
            rows = constraint_rows(p, s, road, with_contacts)
            patches = (patch_rows(contact, touching, rows.vehicles, begin_position, begin_orientation, p.length_scale,
                                  s.friction) if static else None)
            pair_rows = (make_pair_rows(contact, between, begin_position, begin_orientation, p.length_scale,
                                        s.pair_friction) if pairs else None)
            end_step_physx(p, s, begin_position, begin_orientation, rows, dt, patches, pair_rows, row_threads)
        # the friction patches this step's solve ends with (a pair without contacts ends its patches)
        s.friction = None if patches is None else _solved_friction(patches, s.contacts.solved, p.V)
        s.pair_friction = None if pair_rows is None else _solved_pair_friction(pair_rows,
                                                                               s.contacts.pairs_solved)
        if s.contacts is not None:
            s.contacts.telemetry = deferred_telemetry(p.V, s.contacts.solved, begin_position)
    s.out["wheelSteerAngle"] = cmd["steer_angle"] + s.out["_toe"]
    if sleep.possible(p, s):
        counted, woken = _interactions(p, s, contact)
        sleep.end(p, s, held, dt, counted, woken)
    s.time += dt
    s.steps += 1


# the steered geometry of the last steer angles (`steered_geometry`), by the parameters it reads
_STEERED = LastValue("attachment_position", "wheel_attachment_position", "A_q", "e_u", "e_f", "w_lat", "w_lng",
                     "lat_yaw", "lng_yaw", "toe_const", "camber_const")


def steered_geometry(p: SimParams, steer: np.ndarray, comp) -> tuple:
    """(steered_wheel_offset, steered_axle where the batch sweeps, wheel_axes_body where the compliance is constant
    (comp not None)) of the steer angles (V, W): the last step's arrays again where its steer angles were the same to
    the bit and the compliance angles the same arrays (sim/memo.py: a fleet driving straight, or holding a steer,
    computes them once). comp: the constant compliance (`update_compliance` where p.compliance_const), or None."""
    def compute():
        return (steered_wheel_offset(p, steer), steered_axle(p, steer) if p.any_sweep else None,
                None if comp is None else wheel_axes_body(p, steer, comp.toe, comp.camber))

    if comp is not None and (comp.toe is not p.toe_const or comp.camber is not p.camber_const):
        return compute()  # (angles that are not the batch's constants: not kept)
    return _STEERED.get(p, (steer.dtype, steer.shape, steer.tobytes(), comp is None), compute)


def _interactions(p: SimParams, s: SimState, contact: ContactModel | None) -> tuple[np.ndarray, np.ndarray]:
    """Per vehicle: PhysX's counted interactions, which scale its sleep threshold (its shape pairs that pass the
    filter and the broad phase: with a ground plane always, whose bounds are infinite; with another static shape or
    another vehicle's, here where the pair has contact points this step), and whether it touches an awake vehicle
    (which wakes it)."""
    if contact is None:
        return np.zeros(p.V), np.zeros(p.V, bool)
    # the planes' pairs depend on the model alone: counted once per model (the cache `posed` models share)
    planes = contact.cache.get("plane_interactions")
    if (planes is None or planes[0] is not contact.vehicle or planes[1] is not contact.plane_limit
            or planes[2].shape != (p.V,)):
        counted = np.zeros(p.V)
        np.add.at(counted, contact.vehicle, np.isfinite(contact.plane_limit).sum(axis=0))
        planes = contact.cache["plane_interactions"] = (contact.vehicle, contact.plane_limit, counted)
    counted, woken = planes[2].copy(), np.zeros(p.V, bool)
    if s.contacts is None:
        return counted, woken
    touching, between = s.contacts.points, s.contacts.between
    if touching is not None and len(touching):
        other = touching.static >= contact.plane_count
        pairs = np.unique(np.stack([touching.shape[other], touching.static[other]]), axis=1)
        np.add.at(counted, contact.vehicle[pairs[0]], 1.0)
    if between is not None and len(between):
        pairs = np.unique(np.stack([between.shape, between.static]), axis=1)
        np.add.at(counted, contact.vehicle[pairs[0]], 1.0)
        np.add.at(counted, contact.vehicle[pairs[1]], 1.0)
        first, second = contact.vehicle[between.shape], contact.vehicle[between.static]
        woken[first[~s.asleep[second]]] = True
        woken[second[~s.asleep[first]]] = True
    return counted, woken


def _other_vehicles(p: SimParams, s: SimState, road, contact: ContactModel, queries, frame: tuple, steer: np.ndarray,
                    motion: Motion):
    """The road geometry with the other vehicles' shapes met, and the vehicle's own where its groups let its queries
    through (sim/vehicle_queries.py), and the road's velocity.

    The shapes that follow a wheel stand where the last vehicle update put them (PhysX writes the wheel shapes'
    poses at the end of the vehicle update; the scene queries of the next one meet them there): the wheel pose of
    the state the step begins with."""
    if not queries.meets_own and vehicle_queries.still_quiet(queries, motion):
        return road, None
    if contact.following.size:  # (before the first vehicle update, where the stage put them)
        toe, camber = _compliance_angles(p, s)
        contact = contact.posed(*wheel_local_pose(p, s, steer, toe, camber), ~s.jounce_specified)
    length = p.travel_distance + 2.0 * p.radius
    found = vehicle_queries.see_other_vehicles(
        queries, contact, p, frame, road, length, steer, s.body_position,
        s.body_orientation, s.linear_velocity, s.angular_velocity, motion)
    return vehicle_queries.apply(road, found, queries, p)


def _solved_friction(patches: PatchRows, solved: list, V: int) -> FrictionPatches:
    """patch_rows's friction patches with what the solve said of them: which slid (contact_rows.StaticContactRows.broken of
    each group of vehicles the solver ran)."""
    friction = patches.friction
    vehicle_row, slot = patches.friction_slot
    if len(solved) == 1 and len(solved[0][0]) == V and hasattr(solved[0][1], "broken"):  # (one group of every vehicle)
        friction.broken = solved[0][1].broken[friction.vehicle, slot]
        return friction
    broken = np.zeros((V, patches.point_active.shape[1]), bool)
    for vehicles, rows in solved:
        if hasattr(rows, "broken"):  # (not the views of contacts between vehicles: `_solved_pair_friction`)
            broken[vehicles] = rows.broken
    friction.broken = broken[friction.vehicle, slot]
    return friction


def _solved_pair_friction(pair_rows: PairRows, solved: list) -> FrictionPatches:
    """pair_rows's friction patches with which slid in the solve (contact_rows.PairContactRows.broken of each solve)."""
    friction = pair_rows.friction
    pair, slot = pair_rows.friction_slot
    broken = np.zeros(pair_rows.point_active.shape[:2], bool)
    for rows in solved:
        broken[rows.index] = rows.broken
    friction.broken = broken[pair, slot]
    return friction


def _compliance_angles(p: SimParams, s: SimState) -> tuple[np.ndarray, np.ndarray]:
    """Toe and camber of the step's last jounce (the compliance state the vehicle update left)."""
    if not p.has_compliance_angles:
        return 0.0, 0.0
    comp = update_compliance(p, s.jounce)
    return comp.toe, comp.camber


def _numpy_substeps(p: SimParams, s: SimState, road, offset, axle, comp, axes, cmd, diff, R_begin, frame, dt_sub,
                    n_sub, road_velocity: np.ndarray | None = None) -> None:
    """The substeps with the numpy kernels: every vehicle's substep k together, k = 0 .. max(n_sub) - 1.

    R_begin, frame: the begin pose's rotation and `wheel_frame`, the first substep's; road_velocity (3, V, W): the
    velocity of what each wheel stands on (None: all still), taken off the wheel's own in the tire's slip speeds
    (PxVehicleTireSlipSpeedsUpdate)."""
    dt_wheel = vm.per_wheel(dt_sub, p.W)
    for k in range(int(n_sub.max())):
        active = k < n_sub
        saved = None if active.all() else {f: getattr(s, f).copy() for f in SUBSTEP_FIELDS}
        R = R_begin if k == 0 else vm.quat_to_mat(s.body_orientation)
        if k > 0:
            frame = wheel_frame(p, R, s.body_position, offset)
        Rw, d_w, hub, position = frame
        body = (position, vm.per_wheel(s.linear_velocity, p.W), vm.per_wheel(s.angular_velocity, p.W))
        susp = update_suspension_state(p, s, road, Rw, d_w, hub, axle, dt_wheel)
        if not p.compliance_const:
            comp = update_compliance(p, susp.jounce)
            axes = wheel_axes_body(p, cmd["steer_angle"], comp.toe, comp.camber)
        sforce = suspension_force(p, susp, road, comp, Rw, d_w)
        centre = hub + d_w * (p.travel_distance - susp.jounce)
        relative = body if road_velocity is None else (body[0], body[1] - road_velocity, body[2])
        tire = update_tire(p, s, Rw, relative, d_w, susp.on_ground, road.normal, road.friction, centre, sforce.normal_force,
                           axes, comp, cmd["brake_applied"], cmd["drive_applied"], dt_wheel)
        update_wheel_speeds(p, s, cmd, diff, tire.wheel_torque, dt_sub, active)
        centre_offset = centre - body[0]  # R_B offset + d_W (D - j) of this substep
        integrate_substep(p, s, sforce.force + tire.force, sforce.torque + tire.torque, dt_sub, active, R)
        outputs = telemetry_outputs(susp, comp, sforce, tire, centre_offset)
        if saved is not None:
            _keep_inactive(s, saved, active)
            outputs = {key: _merge(value, s.out.get(key), active) for key, value in outputs.items()}
        s.out = outputs


def wheel_frame(p: SimParams, R: np.ndarray, position: np.ndarray, offset: np.ndarray):
    """Per wheel: body rotation (3, 3, V, W), suspension direction, wheel centre at maximum compression (hub)
    and body position, all world and repeated over wheels (equal shapes keep the wheel kernels in flat loops)."""
    Rw = vm.per_wheel(R, p.W)
    position_w = vm.per_wheel(position, p.W)
    return Rw, vm.matvec(Rw, p.travel_direction), position_w + vm.matvec(Rw, offset), position_w


# vehicle2 writes a vehicle's rows into PxConstraints of 4 wheels each (PxVehiclePhysXConstraintLimits)
_WHEELS_PER_CONSTRAINT = 4


def constraint_rows(p: SimParams, s: SimState, road, also: np.ndarray | None = None) -> ConstraintRows | None:
    """4.10 rows per wheel after the last substep: sticky longitudinal, sticky lateral (soft), suspension limit
    (hard, when penetrating); only for the vehicles with an active row or in `also` (a mask: the vehicles with
    contacts), None when there is none.

    Rows are in the order PhysX solves them: constraint by constraint (4 wheels each), and inside one the
    sticky rows before the limit rows (the solver sorts rows by solve hint: none, then the limit rows'
    rotational inequality; vehicleConstraintSolverPrep, DyConstraintSetup.cpp preprocessRows)."""
    out = s.out
    # the listed vehicles and their rows in one C call where the wheels' arrays are float32 (the same bits;
    # sim/compiled_wheel_rows.py), else numpy's stacking
    made = compiled_wheel_rows.wheel_rows(
        also, out["_lng_dir"], out["_lat_dir"], road.normal, out["_app_arm"], s.separation, s.sticky_lng,
        s.sticky_lat, p)
    if made is not None:
        return ConstraintRows(*made) if made[0].size else None
    limit = (s.separation < 0.0) & p.mask
    sticky_lng, sticky_lat = s.sticky_lng & p.mask, s.sticky_lat & p.mask
    with_rows = vm.any_wheels(sticky_lng | sticky_lat | limit)
    vehicles = np.nonzero(with_rows if also is None else with_rows | also)[0]
    if vehicles.size == 0:
        return None
    # each quantity of the three kinds of row (longitudinal, lateral, limit) stacked kind by kind, (..., V, 3, W),
    # then the rows of the listed vehicles in PhysX's order: a few whole-array calls, not one per kind and constraint
    every = vehicles.size == p.V
    order = _row_order(p.W)

    def rows(lng, lat, lim) -> np.ndarray:
        # (np.stack's result, its dtype concatenate's promotion, at a tenth of its call's cost)
        stacked = np.empty(lim.shape[:-1] + (3,) + lim.shape[-1:], np.result_type(lng, lat, lim))
        stacked[..., 0, :], stacked[..., 1, :], stacked[..., 2, :] = lng, lat, lim
        if not every:
            stacked = stacked[..., vehicles, :, :]
        stacked = stacked.reshape(stacked.shape[:-2] + (3 * p.W,))
        return stacked if order is None else stacked[..., order]

    shape = s.separation.shape
    # the damping rows of the parameters alone: the last step's where the listed vehicles are the same
    damping = _DAMPING.get(p, (shape, None if every else vehicles.tobytes()),
                           lambda: rows(p.sticky_lng_damping_w, p.sticky_lat_damping_w, np.zeros(shape)))
    zeros = np.zeros(shape)  # (float64: the sticky rows' separation)
    arm = out["_app_arm"]
    return ConstraintRows(vehicles=vehicles, linear=rows(out["_lng_dir"], out["_lat_dir"], road.normal),
                          arm=rows(arm, arm, arm), damping=damping, active=rows(sticky_lng, sticky_lat, limit),
                          hard=_hard(vehicles.size, p.W),
                          separation=rows(zeros, zeros, s.separation))  # (separation: the limit rows' geometric error)


# constraint_rows' damping (sticky rows' own, limit rows' 0) of the listed vehicles, kept from step to step
_DAMPING = LastValue("sticky_lng_damping_w", "sticky_lat_damping_w")


@functools.lru_cache(maxsize=8)
def _hard(vehicles: int, W: int) -> np.ndarray:
    """constraint_rows' `hard` of that many vehicles (its limit rows), read-only: the same array every step."""
    hard = np.zeros((vehicles, 3 * W), bool)
    hard[:, _hard_rows(W)] = True
    hard.flags.writeable = False
    return hard


@functools.lru_cache(maxsize=None)
def _row_order(W: int) -> np.ndarray | None:
    """Where each of constraint_rows' rows lies among the rows stacked kind by kind (kind k's wheel w at k W + w): the
    constraints of 4 wheels in turn, in each its longitudinal, lateral, then limit rows; None where that is the
    stacked order itself (up to 4 wheels)."""
    order = [kind * W + w for first in range(0, W, _WHEELS_PER_CONSTRAINT) for kind in range(3)
             for w in range(first, min(first + _WHEELS_PER_CONSTRAINT, W))]
    return None if order == list(range(3 * W)) else np.array(order, np.intp)


@functools.lru_cache(maxsize=None)
def _hard_rows(W: int) -> np.ndarray:
    """constraint_rows' limit rows (its hard ones), by their index among a vehicle's rows."""
    order = _row_order(W)
    kinds = np.arange(3 * W) // W  # (the stacked order's kinds)
    return np.nonzero((kinds if order is None else kinds[order]) == 2)[0]


def telemetry_outputs(susp, comp, sforce, tire, centre_offset) -> dict:
    """Per-wheel values PhysX reports after the last substep (section 8)."""
    return {
        "suspensionJounce": susp.jounce, "suspensionForce": sforce.force, "tireFriction": tire.friction,
        "tireLongitudinalSlip": tire.lng_slip, "tireLateralSlip": tire.lat_slip, "tireForce": tire.force,
        "isOnGround": susp.on_ground, "_centre_offset": centre_offset, "tireLoad": tire.load,
        "_lng_speed": tire.lng_speed, "_toe": comp.toe,
        "_lng_dir": tire.lng_dir, "_lat_dir": tire.lat_dir, "_app_arm": tire.app_arm,  # constraint rows
    }


def _keep_inactive(s: SimState, saved: dict, active: np.ndarray) -> None:
    for name, old in saved.items():
        setattr(s, name, _merge(getattr(s, name), old, active, name in SUBSTEP_PER_VEHICLE))


def _merge(new: np.ndarray, old: np.ndarray | None, active: np.ndarray, per_vehicle: bool = False) -> np.ndarray:
    """Keep `old` for vehicles that are not active in this substep.

    Per-vehicle arrays are (V,) or (k, V); per-wheel arrays (V, W) or (3, V, W).
    """
    if old is None:
        return new
    if per_vehicle:
        return np.where(active, new, old)
    a = active[:, None] if new.ndim == 2 else active[None, :, None]
    return np.where(a, new, old)
