"""Suspension: road-geometry query, jounce and separation, expansion limiting, compliance, force.

Sections 3.1-3.7 of the numerics digest (vehicle2 suspension/ and physxRoadGeometry/). The query runs
once per step with the pose read at begin; everything else runs every substep.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import properties as P
from ..runtime.vehicle2 import QUERY_SWEEP
from . import compiled_rays
from . import vecmath as vm
from .declare import F32, FLT_MIN, I32, I64, Derived, Param, State
from .ground import CULLING_EPSILON, Ground, QueryFilter, RayHits, raycast
from .wheel_sweep import SweptWheels, sweep

if TYPE_CHECKING:  # (state: sim/state.py builds SimState from these modules' declarations)
    from .query_groups import GroundFilter
    from .state import SimParams, SimState


def _graph(points, width: int) -> tuple:
    """A compliance graph: its first 3 points, the leading rows of the batch's (3, width)."""
    return points[:3]


PARAMS = (
    Param("query_type", vehicle=lambda p: p.suspension_state_calculation.query_type, dtype=np.int64, kernel=I64),
    Param("limit_expansion_velocity", vehicle=lambda p: p.suspension_state_calculation.limit_expansion_velocity,
          dtype=bool, kernel=I32),
    Param("attachment_position", wheel=lambda w: w.suspension.attachment_position, shape=(3,), component_first=True,
          unit="length"),
    Param("attachment_orientation", wheel=lambda w: w.suspension.attachment_orientation, shape=(4,), pad=(1, 0, 0, 0)),
    Param("travel_direction", wheel=lambda w: w.suspension.travel_direction, shape=(3,), component_first=True, kernel=F32),
    Param("travel_distance", source=(P.SUSPENSION, "travelDistance"), pad=1.0, unit="length", kernel=F32),
    Param("wheel_attachment_position", wheel=lambda w: w.suspension.wheel_attachment_position, shape=(3,),
          component_first=True, unit="length"),
    Param("wheel_attachment_orientation", wheel=lambda w: w.suspension.wheel_attachment_orientation, shape=(4,),
          pad=(1, 0, 0, 0)),
    Param("spring_stiffness", source=(P.SUSPENSION, "springStrength"), unit="mass/s^2", kernel=F32),
    Param("spring_damping", source=(P.SUSPENSION, "springDamperRate"), unit="mass/s", kernel=F32),
    Param("sprung_mass", source=(P.SUSPENSION, "sprungMass"), unit="mass"),
    # compliance graphs over normalised jounce: points and how many are real
    Param("toe_graph", wheel=lambda w: _graph(w.compliance.wheel_toe_angle, 2), shape=(3, 2)),
    Param("toe_count", wheel=lambda w: min(len(w.compliance.wheel_toe_angle), 3), dtype=np.int64),
    Param("camber_graph", wheel=lambda w: _graph(w.compliance.wheel_camber_angle, 2), shape=(3, 2)),
    Param("camber_count", wheel=lambda w: min(len(w.compliance.wheel_camber_angle), 3), dtype=np.int64),
    Param("susp_app_graph", wheel=lambda w: _graph(w.compliance.suspension_force_app_point, 4), shape=(3, 4)),
    Param("susp_app_count", wheel=lambda w: min(len(w.compliance.suspension_force_app_point), 3), dtype=np.int64),
    Param("tire_app_graph", wheel=lambda w: _graph(w.compliance.tire_force_app_point, 4), shape=(3, 4)),
    Param("tire_app_count", wheel=lambda w: min(len(w.compliance.tire_force_app_point), 3), dtype=np.int64),
)


def _constant_graph(b, name: str) -> np.ndarray | None:
    """The value of a compliance graph that has at most one point everywhere (a constant: evaluated once), (V, W)
    for an angle, (3, V, W) for a point; None where some wheel's graph has more."""
    points, count = b.arrays[f"{name}_graph"], b.arrays[f"{name}_count"]
    if (count > 1).any():
        return None
    if points.shape[-1] == 2:
        return np.where(count > 0, points[..., 0, 1], 0.0)
    return np.ascontiguousarray(np.moveaxis(np.where((count > 0)[..., None], points[..., 0, 1:], 0.0), -1, 0))


def _yaw_basis(p, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A wheel axis v as a function of the yaw (steer + toe) about e_u, in the body frame:
    A_q R_u(yaw) v = (a - c) cos(yaw) + b sin(yaw) + c, a = A_q v, b = A_q (e_u x v), c = A_q e_u (e_u . v)."""
    e_u = p.e_u * np.ones((1, p.V, p.W))
    a = vm.matvec(p.A_q, v)
    b = vm.matvec(p.A_q, vm.cross(e_u, v))
    c = vm.matvec(p.A_q, e_u * vm.dot(e_u, v))
    return a - c, b, c


def _arm(p, point: np.ndarray | None) -> np.ndarray | None:
    """A force application point of a constant compliance graph as an arm in the body frame."""
    return None if point is None else p.attachment_position + vm.matvec(p.A_q, point)


# what SimParams.from_batch derives: the frames' rotation matrices, the wheel axes (after the wheel-frame rotation,
# in the suspension frame) and their yaw bases, the constant compliance graphs' values and force arms, the wheel share
# of the external force M g m_s / M, and which parts of the batch take which path
DERIVED = (
    Derived("A_q", value=lambda p, b: vm.quat_to_mat(vm.components_first(b.attachment_orientation))),  # (3, 3, V, W)
    Derived("W_q", value=lambda p, b: vm.quat_to_mat(vm.components_first(b.wheel_attachment_orientation))),
    Derived("w_lat", value=lambda p, b: vm.matvec(p.W_q, p.e_s * np.ones((1, p.V, p.W)))),
    Derived("w_lng", value=lambda p, b: vm.matvec(p.W_q, p.e_f * np.ones((1, p.V, p.W)))),
    Derived("toe_const", value=lambda p, b: _constant_graph(b, "toe")),
    Derived("camber_const", value=lambda p, b: _constant_graph(b, "camber")),
    Derived("susp_app_const", value=lambda p, b: _constant_graph(b, "susp_app")),
    Derived("tire_app_const", value=lambda p, b: _constant_graph(b, "tire_app")),
    Derived("compliance_const", value=lambda p, b: all(
        value is not None for value in (p.toe_const, p.camber_const, p.susp_app_const, p.tire_app_const))),
    Derived("has_compliance_angles", value=lambda p, b: bool((b.toe_count > 0).any() or (b.camber_count > 0).any())),
    Derived("lat_yaw", value=lambda p, b: _yaw_basis(p, p.w_lat)),
    Derived("lng_yaw", value=lambda p, b: _yaw_basis(p, p.w_lng)),
    Derived("f_es", F32, lambda p, b: vm.per_wheel(p.gravity, p.W) * p.sprung_mass),
    Derived("susp_arm", F32, lambda p, b: _arm(p, p.susp_app_const)),
    Derived("tire_arm", F32, lambda p, b: _arm(p, p.tire_app_const)),
    Derived("any_limit_expansion", value=lambda p, b: bool(b.limit_expansion_velocity.any())),
    Derived("any_sweep", value=lambda p, b: bool((b.query_type == 1).any())),
)

# PxVehicleSuspensionState
STATES = (
    State("jounce", unit="length", shape=("W",), substep=True, kernel=F32, kernel_writes=True),
    State("jounce_specified", initial=False, dtype=bool, shape=("W",), substep=True, kernel=I32, kernel_writes=True,
          doc="the jounce was set (a query hit) rather than left at its last value"),
    State("jounce_speed", unit="length/s", shape=("W",), substep=True, kernel=F32, kernel_writes=True),
    State("separation", initial=FLT_MIN, unit="length", shape=("W",), substep=True, kernel=F32, kernel_writes=True,
          doc="of the wheel from the ground; FLT_MIN: in the air"),
)


@dataclass
class RoadGeometry:
    """PxVehicleRoadGeometryState per wheel (fixed for the substeps of one step)."""

    hit: np.ndarray  # (V, W) bool
    normal: np.ndarray  # (3, V, W)
    offset: np.ndarray  # (V, W): n . x + offset = 0
    friction: np.ndarray  # (V, W) road friction from the tire's friction table
    shape: np.ndarray  # (V, W) ground shape index, -1 = none


def steered_wheel_offset(p: SimParams, steer: np.ndarray) -> np.ndarray:
    """a_p + (a_q * R(0, 0, steer)) * w_p: wheel-centre offset of the steered, uncomplied wheel (3, V, W)."""
    wp = p.wheel_attachment_position
    if not wp.any():
        return p.attachment_position
    return p.attachment_position + vm.matvec(p.A_q, vm.rotate_about(p.e_u, steer, wp))


def steered_axle(p: SimParams, steer: np.ndarray) -> np.ndarray:
    """Wheel lateral axis with steer, without compliance, in the body frame (3, V, W)."""
    return vm.matvec(p.A_q, vm.rotate_about(p.e_u, steer, p.w_lat))


def wheel_centre(body_rot: np.ndarray, body_pos: np.ndarray, offset: np.ndarray, dir_world: np.ndarray,
                 travel: np.ndarray, jounce: np.ndarray) -> np.ndarray:
    """World wheel centre c(j) = x_B + R_B offset + d_W (D - j)."""
    return body_pos[:, :, None] + vm.matvec(body_rot[:, :, :, None], offset) + dir_world * (travel - jounce)


def hull_axes(p: SimParams, steer: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The swept wheel hull's axes in the body frame (3, V, W each): the coordinate axis of the frame's lateral axis
    (the hull's width) and, in index order, the two others (its polygon's plane), turned by the wheel's pose at
    maximum compression without compliance (a_q R(steer) w_q), as PxVehicleComputeWheelPoseForSuspensionQuery."""
    lateral = np.argmax(np.abs(p.lat_axis), axis=0)  # (V,) 0, 1 or 2
    eye = np.eye(3)
    picks = (lateral, np.where(lateral == 0, 1, 0), np.where(lateral == 2, 1, 2))
    ones = np.ones((1, p.V, p.W))
    return tuple(vm.matvec(p.A_q, vm.rotate_about(p.e_u, steer, vm.matvec(p.W_q, eye[k].T[:, :, None] * ones)))
                 for k in picks)


def _raycast_rows(p: SimParams, ground: Ground, rows, R, d_w, hub, top, length, steer,
                  only: QueryFilter | None) -> RayHits:
    v, w = rows
    return raycast(ground, top[:, v, w], d_w[:, v, w], length[v, w], only)


def _sweep_rows(p: SimParams, ground: Ground, rows, R, d_w, hub, top, length, steer,
                only: QueryFilter | None) -> RayHits:
    v, w = rows
    world = [vm.matvec(R[:, :, v, w], a[:, v, w]).T.astype(float) for a in hull_axes(p, steer)]
    return sweep(ground, SweptWheels(
        centre=hub[:, v, w].T.astype(float), lateral=world[0], axis0=world[1], axis1=world[2],
        radius=p.radius[v, w].astype(float), half_width=p.half_width[v, w].astype(float),
        direction=d_w[:, v, w].T.astype(float), distance=p.travel_distance[v, w].astype(float)), only)


def query_road_geometry(p: SimParams, ground: Ground, friction: np.ndarray, frame: tuple,
                        steer: np.ndarray, ground_filter: "GroundFilter | None" = None,
                        threads: int = 1, compiled: bool = True) -> RoadGeometry:
    """3.2 with the begin pose. Raycast: from the wheel top at maximum compression down to the wheel bottom at
    maximum droop. Sweep: the wheel hull (wheel_sweep.HULL_POINTS) from maximum compression to maximum droop.

    frame: `pipeline.wheel_frame` of the begin pose (body rotation, suspension directions and wheel centres at
    maximum compression, world); steer: the wheels' steer angles (V, W); ground_filter: the shapes each wheel's
    query skips by collision groups (sim/query_groups.GroundFilter; None: none); threads: the compiled raycasts'
    threads (the same results for any count); compiled: in C where sim/compiled_rays.py covers the query (False: the
    numpy lines, the reference)."""
    R, d_w, hub = frame[0], frame[1], frame[2]
    if compiled:  # a ground of planes and meshes: the lines below in one C call (the same bits)
        road = compiled_rays.road_on_ground(p, ground, friction, hub, d_w, ground_filter, CULLING_EPSILON, threads)
        if road is not None:
            return RoadGeometry(*road)
    top = hub - d_w * p.radius
    length = p.travel_distance + 2.0 * p.radius
    if not p.any_sweep:
        hits = raycast(ground, top, d_w, length, None if ground_filter is None else ground_filter.queries(),
                       compiled=compiled, threads=threads)
    else:
        swept = (p.query_type == QUERY_SWEEP)[:, None] & p.mask
        f = np.result_type(p.dtype, np.float64)  # a query of part of the wheels is written into arrays of all of them
        hits = RayHits(np.zeros((p.V, p.W), bool), np.zeros((3, p.V, p.W), f), np.zeros((p.V, p.W), f),
                       np.full((p.V, p.W), -1))
        for rows, query in ((np.nonzero(~swept), _raycast_rows), (np.nonzero(swept), _sweep_rows)):
            if rows[0].size:
                got = query(p, ground, rows, R, d_w, hub, top, length, steer,
                            None if ground_filter is None else ground_filter.queries(rows))
                hits.hit[rows], hits.normal[:, rows[0], rows[1]], hits.offset[rows], hits.shape[rows] = (
                    got.hit, got.normal, got.offset, got.shape)
    hit = hits.hit & p.mask
    mu = friction[p.friction_table_id, hits.shape]
    f = p.dtype  # the ground is float64; the kernels run in the params' type
    # (the hits' arrays are this query's own: taken as they are where already of the kernels' type)
    return RoadGeometry(hit=hit, normal=hits.normal.astype(f, copy=False), offset=hits.offset.astype(f, copy=False),
                        friction=np.where(hit, mu, 0.0).astype(f), shape=hits.shape)


@dataclass
class SuspensionState:
    jounce: np.ndarray
    jounce_speed: np.ndarray
    separation: np.ndarray
    on_ground: np.ndarray


def jounce_from_depth(depth: np.ndarray, rho: np.ndarray, travel: np.ndarray, prev: np.ndarray, prev_specified: np.ndarray):
    """Common rule J(delta, rho, D, j_prev) -> (jounce, separation) of 3.3."""
    nonpar = rho != 0.0
    any_parallel = not nonpar.all()  # usually no wheel is: then that case's selections are skipped
    s_ = depth / np.where(nonpar, rho, 1.0) if any_parallel else depth / rho
    pen = nonpar & (depth <= 0.0)
    beyond, within = pen & (s_ > travel), pen & (s_ > 0.0)
    j = np.where(beyond, travel, np.where(within, s_, 0.0))
    sep = np.where(beyond, depth * (s_ - travel) / np.where(s_ != 0.0, s_, 1.0),
                   np.where(within, 0.0, np.where(pen, depth, FLT_MIN)))
    if not any_parallel:
        return j, sep
    # wheel plane parallel to the suspension direction
    par_pen = ~nonpar & (depth < 0.0)
    j = np.where(par_pen, np.where(prev_specified, prev, travel), j)
    sep = np.where(par_pen, depth, np.where(~nonpar, FLT_MIN, sep))
    return j, sep


def limit_expansion_velocity(p: SimParams, j: np.ndarray, jdot: np.ndarray, sep: np.ndarray, prev: np.ndarray,
                             prev_speed: np.ndarray, g_along: np.ndarray, has_hit: np.ndarray, dt: float | np.ndarray,
                             apply: np.ndarray):
    """3.4: the wheel cannot drop faster than spring, damper and gravity could push it."""
    v_spring = prev * p.spring_stiffness / p.wheel_mass * dt
    v_damp = prev_speed * p.spring_damping / p.wheel_mass * dt
    vel = v_spring - prev_speed
    tmp = vel + v_damp
    vel = np.where(vel >= 0.0, np.maximum(0.0, tmp), np.minimum(0.0, tmp))
    threshold = np.where(has_hit & (g_along > 0.0), vel + g_along * dt, vel)
    clamp = apply & (jdot < -threshold)
    clamped = prev - vel * dt
    sep = np.where(clamp & (sep >= 0.0), clamped - j, sep)
    j = np.where(clamp, clamped, j)
    jdot = np.where(clamp, -vel, jdot)
    return j, jdot, sep, clamp


def update_suspension_state(p: SimParams, s: SimState, road: RoadGeometry, R: np.ndarray, d_w: np.ndarray,
                            hub: np.ndarray, axle: np.ndarray | None, dt: float | np.ndarray) -> SuspensionState:
    """3.3 jounce, separation, jounce speed (+ 3.4 when enabled) for one substep.

    hub: x_B + R_B offset, the wheel centre at maximum compression (3, V, W).
    """
    n = road.normal
    c0 = hub + d_w * p.travel_distance
    rho = vm.dot(d_w, n)
    base = vm.dot(n, c0) + road.offset
    depth = base - p.radius * np.abs(rho)  # raycast: the wheel bottom on the suspension line
    if p.any_sweep and axle is not None:
        l_w = vm.matvec(R if R.ndim == 4 else R[:, :, :, None], axle)
        nl = vm.dot(n, l_w)
        in_plane = vm.norm(n - l_w * nl)
        sweep_depth = base - p.radius * in_plane - p.half_width * np.abs(nl)
        depth = np.where((p.query_type == QUERY_SWEEP)[:, None], sweep_depth, depth)
    prev, prev_speed, specified = s.jounce, s.jounce_speed, s.jounce_specified
    j, sep = jounce_from_depth(depth, rho, p.travel_distance, prev, specified)
    jdot = np.where(specified, (j - prev) / dt, 0.0)
    hit = road.hit
    j = np.where(hit, j, 0.0)
    jdot = np.where(hit, jdot, 0.0)
    sep = np.where(hit, sep, FLT_MIN)
    if p.any_limit_expansion:
        enabled = p.limit_expansion_velocity[:, None] & p.mask
        g_along = vm.dot(p.gravity[:, :, None], d_w)
        # no hit and a compressed wheel: expanding from j_prev to 0 within this substep
        air = enabled & ~hit & specified & (prev > 0.0)
        jdot = np.where(air, -prev / dt, jdot)
        apply = (enabled & hit & (jdot < 0.0)) | air
        j, jdot, sep, clamped = limit_expansion_velocity(p, j, jdot, sep, prev, prev_speed, g_along, hit, dt, apply)
        jdot = np.where(air & ~clamped, 0.0, jdot)  # in the air the jounce speed stays 0 unless clamped
    s.jounce, s.jounce_speed, s.separation = j, jdot, sep
    s.jounce_specified = np.ones_like(specified)
    return SuspensionState(j, jdot, sep, (sep <= 0.0) & p.mask)


@dataclass
class ComplianceState:
    toe: np.ndarray
    camber: np.ndarray
    susp_app_point: np.ndarray  # (3, V, W) suspension frame, relative to the attachment
    tire_app_point: np.ndarray


def update_compliance(p: SimParams, jounce: np.ndarray) -> ComplianceState:
    """3.5: 3-point graphs of the normalised jounce."""
    if p.compliance_const:  # no table in the batch has two points: no value depends on jounce
        return ComplianceState(toe=p.toe_const, camber=p.camber_const, susp_app_point=p.susp_app_const,
                               tire_app_point=p.tire_app_const)
    r = jounce / p.travel_distance

    def graph(points, count, const, vec=False):
        if const is not None:  # no table in the batch has two points: the value does not depend on jounce
            return const
        return vm.lookup_vec(points, count, r) if vec else vm.lookup(points, count, r)

    return ComplianceState(
        toe=graph(p.toe_graph, p.toe_count, p.toe_const),
        camber=graph(p.camber_graph, p.camber_count, p.camber_const),
        susp_app_point=graph(p.susp_app_graph, p.susp_app_count, p.susp_app_const, True),
        tire_app_point=graph(p.tire_app_graph, p.tire_app_count, p.tire_app_const, True),
    )


@dataclass
class SuspensionForce:
    force: np.ndarray  # (3, V, W) world
    torque: np.ndarray  # (3, V, W) about the CoM
    normal_force: np.ndarray  # (V, W) raw tire load


def suspension_force(p: SimParams, susp: SuspensionState, road: RoadGeometry, comp: ComplianceState, R: np.ndarray,
                     d_w: np.ndarray) -> SuspensionForce:
    """3.6 PxVehicleSuspensionForceUpdate (the non-legacy model Omni uses)."""
    n = road.normal
    spring = p.spring_stiffness * susp.jounce + p.spring_damping * susp.jounce_speed
    f = -vm.dot(n, d_w) * spring
    # the share of the external force (gravity) carried by this wheel, minus its part along the suspension
    f_es = p.f_es  # F_ext = M g (no user force), times m_s / M
    n_fes = vm.dot(n, f_es)
    collision = f_es - d_w * vm.dot(d_w, f_es)
    f = f + np.where(n_fes < 0.0, -vm.dot(n, collision), 0.0)
    f = np.where(susp.on_ground, f, 0.0)
    force = n * f
    arm_body = p.susp_arm if p.susp_arm is not None else p.attachment_position + vm.matvec(p.A_q, comp.susp_app_point)
    arm = vm.matvec(R if R.ndim == 4 else R[:, :, :, None], arm_body)
    return SuspensionForce(force, vm.cross(arm, force), f)
