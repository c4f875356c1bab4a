"""Simulation state arrays (vehicle2 *States) and the component-first view of the batched params.

`SimParams.from_batch` converts a `VehicleBatch` (vehicle axis first, vectors last) into the layout the
kernels use (vectors first: (3, V) per vehicle, (3, V, W) per wheel) and precomputes what never changes
(suspension-frame rotation matrices, frame axes broadcast to wheels). `SimState` holds everything that
changes each step; `initial_state` is vehicle2's setToDefault plus Omni's creation-time values.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing  # noqa: F401  (np.typing.DTypeLike)

from ..runtime.vehicle2 import AUTOMATIC_GEAR, DRIVE_BASIC, DRIVE_NONE, DRIVE_STANDARD, NEUTRAL_GEAR, RESPONSE_STEER
from . import vecmath as vm

if TYPE_CHECKING:
    from .batch import VehicleBatch
    from .contact import FrictionPatches
    from .lu import Factors
    from .manifold import Manifolds
    from .vehicle_contact import PairManifolds

FLT_MIN = float(np.finfo(np.float32).tiny)  # vehicle2's "in the air" separation marker
FLT_MAX = float(np.finfo(np.float32).max)
WAKE_COUNTER_RESET_S = 20.0 * 0.02  # a body's wake counter when awoken (DySleep.cpp; PxSceneDesc::wakeCounterResetValue)


def _vf(a: np.ndarray) -> np.ndarray:
    """(..., k) -> (k, ...) contiguous."""
    return np.ascontiguousarray(np.moveaxis(np.asarray(a, dtype=float), -1, 0))


def _cast(value, dtype: np.dtype):
    """Floating arrays (alone or in a tuple) to `dtype`; everything else unchanged."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.dtype != dtype:
        return value.astype(dtype)
    if isinstance(value, tuple) and value and all(isinstance(x, np.ndarray) for x in value):
        return tuple(_cast(x, dtype) for x in value)
    return value


def _yaw_basis(A_q: np.ndarray, e_u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = vm.matvec(A_q, v)
    b = vm.matvec(A_q, vm.cross(e_u, v))
    c = vm.matvec(A_q, e_u * vm.dot(e_u, v))
    return a - c, b, c


class SimParams(SimpleNamespace):
    """Read-only kernel view of a VehicleBatch. Attribute names follow the batch; vectors are component-first."""

    @classmethod
    def from_batch(cls, b: VehicleBatch, dtype: np.typing.DTypeLike = np.float64) -> "SimParams":
        """`dtype`: the floating type of every real-valued array (the batch is float64)."""
        A = b.arrays
        p = cls()
        for key, value in A.items():
            setattr(p, key, value)
        p.V, p.W = A["wheel_mask"].shape
        p.mask = A["wheel_mask"]
        from .batch import PARAMS  # (the subsystem modules that declare them import this one)

        for param in PARAMS:
            if param.component_first:
                setattr(p, param.name, _vf(A[param.name]))
        p.e_f = p.lng_axis[:, :, None]  # (3, V, 1) for wheel broadcasting
        p.e_s = p.lat_axis[:, :, None]
        p.e_u = p.vrt_axis[:, :, None]
        p.A_q = vm.quat_to_mat(_vf(A["attachment_orientation"]))  # (3, 3, V, W)
        p.W_q = vm.quat_to_mat(_vf(A["wheel_attachment_orientation"]))
        # wheel axes (lateral, forward) after the wheel-frame rotation, in the suspension frame
        ones = np.ones((1, p.V, p.W))
        p.w_lat = vm.matvec(p.W_q, p.e_s * ones)
        p.w_lng = vm.matvec(p.W_q, p.e_f * ones)
        p.g_mag = np.sqrt(vm.dot(p.gravity, p.gravity))
        p.is_standard = A["drive_type"] == DRIVE_STANDARD
        p.is_basic = A["drive_type"] == DRIVE_BASIC
        p.is_raw = A["drive_type"] == DRIVE_NONE
        p.standard_ids = np.nonzero(p.is_standard)[0]
        p.tank_ids = np.nonzero(A["is_tank"])[0]
        p.has_nonlinear = bool((A["nl_command_count"] > 0).any())
        p.has_compliance_angles = bool((A["toe_count"] > 0).any() or (A["camber_count"] > 0).any())
        p.any_limit_expansion = bool(A["limit_expansion_velocity"].any())
        p.any_sweep = bool((A["query_type"] == 1).any())
        # compliance graphs with at most one point everywhere are constants: evaluate them once
        for name in ("toe", "camber", "susp_app", "tire_app"):
            points, count = A[f"{name}_graph"], A[f"{name}_count"]
            const = None
            if not (count > 1).any():
                if points.shape[-1] == 2:
                    const = np.where(count > 0, points[..., 0, 1], 0.0)
                else:
                    const = np.ascontiguousarray(np.moveaxis(np.where((count > 0)[..., None], points[..., 0, 1:], 0.0), -1, 0))
            setattr(p, f"{name}_const", const)
        p.compliance_const = all(getattr(p, f"{n}_const") is not None for n in ("toe", "camber", "susp_app", "tire_app"))
        # wheel axes as functions of the yaw (steer + toe) about e_u, in the body frame:
        # A_q R_u(yaw) v = (a - c) cos(yaw) + b sin(yaw) + c, a = A_q v, b = A_q (e_u x v), c = A_q e_u (e_u . v)
        e_u = p.e_u * ones
        p.lat_yaw = _yaw_basis(p.A_q, e_u, p.w_lat)
        p.lng_yaw = _yaw_basis(p.A_q, e_u, p.w_lng)
        # force application arms (body frame) when the compliance graphs are constant
        p.susp_arm = None if p.susp_app_const is None else p.attachment_position + vm.matvec(p.A_q, p.susp_app_const)
        p.tire_arm = None if p.tire_app_const is None else p.attachment_position + vm.matvec(p.A_q, p.tire_app_const)
        # per-vehicle values the wheel kernels use, repeated over wheels (see vecmath.per_wheel)
        for name in ("min_lat_slip_denominator", "min_active_long_slip_denominator", "min_passive_long_slip_denominator",
                     "sticky_lng_speed", "sticky_lng_time", "sticky_lat_speed", "sticky_lat_time", "wheel_angle_threshold_speed",
                     "sticky_lng_damping", "sticky_lat_damping"):
            setattr(p, f"{name}_w", vm.per_wheel(A[name], p.W))
        # tire graphs as contiguous per-wheel arrays with their segment slopes
        lf = A["load_filter"]
        p.load_x0, p.load_y0, p.load_x1, p.load_y1 = (np.ascontiguousarray(lf[..., i, j]) for i in (0, 1) for j in (0, 1))
        p.load_slope = (p.load_y1 - p.load_y0) / np.where(p.load_x1 > p.load_x0, p.load_x1 - p.load_x0, 1.0)
        fvs = A["friction_vs_slip"]
        x = [np.ascontiguousarray(fvs[..., i, 0]) for i in range(3)]
        y = [np.ascontiguousarray(fvs[..., i, 1]) for i in range(3)]
        p.fvs_x0, p.fvs_x1, p.fvs_x2 = x
        p.fvs_y0, p.fvs_y1, p.fvs_y2 = y
        p.fvs_slope0, p.fvs_slope1 = ((y[i + 1] - y[i]) / np.where(x[i + 1] > x[i], x[i + 1] - x[i], 1.0) for i in range(2))
        p.any_camber_stiffness = bool((A["camber_stiff"] != 0.0).any())
        p.any_lat_stiff_x_zero = bool(((A["lat_stiff_x"] == 0.0) & A["wheel_mask"]).any())
        p.lat_saturation = np.where(A["lat_stiff_x"] == 0.0, 0.0, 3.0 / np.where(A["lat_stiff_x"] == 0.0, 1.0, A["lat_stiff_x"]))
        p.all_standard = bool(p.is_standard.all())
        # Ackermann (2.3) as whole-batch arrays: which wheel is wheel0 / wheel1, and the mean-angle scale
        ack = A["has_ackermann"] & (A["ackermann_strength"] > 0.0)
        p.any_ackermann = bool(ack.any())
        p.ack_active = ack
        wheel_ids = np.arange(p.W)[None, :]
        p.ack_wheel0 = ack[:, None] & (wheel_ids == A["ackermann_wheels"][:, :1])
        p.ack_wheel1 = ack[:, None] & (wheel_ids == A["ackermann_wheels"][:, 1:2])
        # per-wheel multipliers of each command response as contiguous (V, W) arrays (a strided column of the
        # (V, systems, W) table makes every product with it several times slower)
        p.response_multipliers_w = tuple(np.ascontiguousarray(A["response_multipliers"][:, k])
                                         for k in range(A["response_multipliers"].shape[1]))
        steer_mult = p.response_multipliers_w[RESPONSE_STEER]
        rows = np.arange(p.V)
        p.ack_mean_scale = A["response_max"][:, RESPONSE_STEER] * (
            steer_mult[rows, A["ackermann_wheels"][:, 0]] + steer_mult[rows, A["ackermann_wheels"][:, 1]])
        p.ack_track = np.where(ack, A["ackermann_track_width"], 1.0)
        p.f_es = vm.per_wheel(p.gravity, p.W) * p.sprung_mass  # wheel share of the external force M g m_s / M
        p.any_gyroscopic = bool(A["gyroscopic"].any())
        p.all_gyroscopic = bool(A["gyroscopic"].all())
        p.dtype = np.dtype(dtype)
        for k, v in list(vars(p).items()):
            setattr(p, k, _cast(v, p.dtype))
        # the actor's damping stays double: its factor 1 - damping dt is formed in double and rounded once
        p.linear_damping, p.angular_damping = A["linear_damping"], A["angular_damping"]
        p.friction_tables = b.friction_tables
        p.paths = b.paths
        p.wheel_paths = b.wheel_paths
        return p


@dataclass
class SimState:
    """Everything vehicle2 updates, batched. Per vehicle: (V,) or (3, V); per wheel: (V, W) or (3, V, W)."""

    # rigid body (the vehicle2 body frame = centre-of-mass frame with principal axes)
    body_position: np.ndarray
    body_orientation: np.ndarray  # (4, V) w, x, y, z
    linear_velocity: np.ndarray
    angular_velocity: np.ndarray
    # commands (raw inputs; the response states are derived every step)
    accelerator: np.ndarray
    brake0: np.ndarray
    brake1: np.ndarray
    steer: np.ndarray
    target_gear_command: np.ndarray  # PhysX indexing, 255 = automatic
    thrust0: np.ndarray
    thrust1: np.ndarray
    wheel_drive_torque: np.ndarray
    wheel_brake_torque: np.ndarray
    wheel_steer_angle: np.ndarray
    # drivetrain
    engine_omega: np.ndarray
    current_gear: np.ndarray
    target_gear: np.ndarray
    gear_switch_time: np.ndarray
    autobox_time_since_shift: np.ndarray
    autobox_active_shift: np.ndarray
    direct_gear: np.ndarray  # basic drive: -1 reverse, 0 neutral, +1 forward
    # wheels
    jounce: np.ndarray
    jounce_specified: np.ndarray
    jounce_speed: np.ndarray
    separation: np.ndarray
    rotation_speed: np.ndarray
    corrected_rotation_speed: np.ndarray
    rotation_angle: np.ndarray
    lng_low_speed_time: np.ndarray
    lat_low_speed_time: np.ndarray
    sticky_lng: np.ndarray
    sticky_lat: np.ndarray
    # the PhysX actor's sleeping (sim/sleep.py)
    asleep: np.ndarray  # (V,) bool
    wake_counter: np.ndarray  # (V,) s
    sleep_linear_sum: np.ndarray  # (3, V) the linear velocities summed while the wake counter runs out
    sleep_angular_sum: np.ndarray  # (3, V) the body-frame angular velocities summed likewise
    previous_steer: np.ndarray  # (V,) the steer command of the last step (a new one wakes the body; NaN: none yet)
    previous_wheel_steer: np.ndarray  # (V, W) a wheel-controlled vehicle's steer angles of its last step asleep
    # per-step outputs kept for telemetry (values of the last substep)
    out: dict[str, np.ndarray] = field(default_factory=dict)
    time: float = 0.0
    steps: int = 0
    faulted: np.ndarray | None = None  # (V,) vehicles frozen by the numerical guard (sim/guard.py)
    contacts: dict | None = None  # the last step's contacts (sim/contact.py patch_rows) and their solved impulses
    friction: FrictionPatches | None = None  # the friction patches the last step's solve kept (sim/contact.py)
    manifolds: Manifolds | None = None  # the contact points PCM's manifolds keep (sim/manifold.py)
    pair_friction: FrictionPatches | None = None  # the friction patches between vehicles (sim/vehicle_contact.py)
    pair_manifolds: PairManifolds | None = None  # the manifolds two vehicles' boxes keep (sim/vehicle_contact.py)
    drivetrain_factors: Factors | None = None  # the engine drivetrain's last LU (sim/lu.py), known again by its matrix


# The state a substep changes (the numpy substeps keep it for vehicles with fewer substeps; the compiled kernel
# writes it, and the rotation angles after it, into copies).
SUBSTEP_FIELDS = ("body_position", "body_orientation", "linear_velocity", "angular_velocity", "jounce",
                  "jounce_specified", "jounce_speed", "separation", "rotation_speed", "engine_omega", "current_gear",
                  "gear_switch_time", "lng_low_speed_time", "lat_low_speed_time", "sticky_lng", "sticky_lat")

# The per-vehicle state: every field declared an array (its vehicles on `vehicle_axis`); the others (outputs, clock,
# contact records) have classes of their own that cut and join them.
VEHICLE_ARRAYS = tuple(f.name for f in fields(SimState) if f.type.startswith("np.ndarray"))

# Component-first vectors (3 or 4, V) carry the vehicles on axis 1; every other state array on axis 0.
COMPONENT_FIRST = ("body_position", "body_orientation", "linear_velocity", "angular_velocity", "sleep_linear_sum",
                   "sleep_angular_sum")


def vehicle_axis(name: str) -> int:
    """The vehicle axis of the SimState array `name`."""
    return 1 if name in COMPONENT_FIRST else 0


def output_vehicle_axis(value: np.ndarray) -> int:
    """The vehicle axis of a per-step output in `SimState.out`: (3, V, W) vectors or (V, W) scalars."""
    return 1 if value.ndim == 3 else 0


def vehicle_rows(axis: int, rows) -> tuple:
    """Index of the vehicles `rows` (an index array or a slice) of an array whose vehicle axis is `axis`."""
    return (slice(None), rows) if axis == 1 else (rows,)


def body_pose(p: SimParams, actor_p: np.ndarray, actor_q: np.ndarray,
              rows=slice(None)) -> tuple[np.ndarray, np.ndarray]:
    """Body (centre-of-mass) pose of the vehicles `rows` from their actor (vehicle prim) poses, (3, k) and (4, k) with
    w first: pose_B = actorPose * cMassLocalPose. Computed in double, as the description's pose is."""
    actor_q = np.asarray(actor_q, dtype=float)
    body_q = vm.quat_normalize(vm.quat_mul(actor_q, p.com_orientation[:, rows]))
    body_p = np.asarray(actor_p, dtype=float) + vm.quat_rotate(actor_q, p.com_position[:, rows])
    return body_p, body_q


def initial_state(p: SimParams) -> SimState:
    V, W = p.V, p.W
    zw = lambda: np.zeros((V, W))  # noqa: E731
    body_p, body_q = body_pose(p, _vf(p.init_position), _vf(p.init_orientation))
    gear = p.initial_gear.astype(np.int64).copy()
    ctrl_gear = p.ctrl_target_gear.astype(np.int64)
    direct = np.where((ctrl_gear == AUTOMATIC_GEAR) | (ctrl_gear > NEUTRAL_GEAR), 1, np.where(ctrl_gear == NEUTRAL_GEAR, 0, -1))
    st = SimState(
        body_position=body_p, body_orientation=body_q,
        linear_velocity=_vf(p.init_linear_velocity).copy(), angular_velocity=_vf(p.init_angular_velocity).copy(),
        accelerator=p.ctrl_accelerator.copy(), brake0=p.ctrl_brake0.copy(), brake1=p.ctrl_brake1.copy(),
        steer=p.ctrl_steer.copy(), target_gear_command=ctrl_gear.copy(), thrust0=p.ctrl_thrust0.copy(),
        thrust1=p.ctrl_thrust1.copy(), wheel_drive_torque=p.ctrl_wheel_drive_torque.copy(),
        wheel_brake_torque=p.ctrl_wheel_brake_torque.copy(), wheel_steer_angle=p.ctrl_wheel_steer_angle.copy(),
        engine_omega=p.engine_idle_omega.copy(), current_gear=gear, target_gear=gear.copy(),
        gear_switch_time=np.full(V, -1.0), autobox_time_since_shift=np.full(V, FLT_MAX),
        autobox_active_shift=np.zeros(V, bool), direct_gear=direct.astype(float),
        jounce=zw(), jounce_specified=np.zeros((V, W), bool), jounce_speed=zw(), separation=np.full((V, W), FLT_MIN),
        rotation_speed=zw(), corrected_rotation_speed=zw(), rotation_angle=zw(),
        lng_low_speed_time=zw(), lat_low_speed_time=zw(),
        sticky_lng=np.zeros((V, W), bool), sticky_lat=np.zeros((V, W), bool), faulted=np.zeros(V, bool),
        asleep=np.zeros(V, bool), wake_counter=np.full(V, WAKE_COUNTER_RESET_S), sleep_linear_sum=np.zeros((3, V)),
        sleep_angular_sum=np.zeros((3, V)), previous_steer=np.full(V, np.nan), previous_wheel_steer=np.full((V, W), np.nan),
    )
    for k, v in list(vars(st).items()):
        setattr(st, k, _cast(v, p.dtype))
    return st


def copy_vehicle_rows(dst: SimState, src: SimState, rows: np.ndarray) -> None:
    """Every state array of the vehicles `rows` (an index array) from `src` into `dst`, in place."""
    for name in VEHICLE_ARRAYS:
        value = getattr(dst, name)
        if isinstance(value, np.ndarray):
            idx = vehicle_rows(vehicle_axis(name), rows)
            value[idx] = getattr(src, name)[idx]


def actor_pose(p: SimParams, s: SimState) -> tuple[np.ndarray, np.ndarray]:
    """World pose of the actor (the vehicle prim) from the body pose: actor = body * cMassLocalPose^-1."""
    actor_q = vm.quat_normalize(vm.quat_mul(s.body_orientation, vm.quat_conj(p.com_orientation)))
    actor_p = s.body_position - vm.quat_rotate(actor_q, p.com_position)
    return actor_p, actor_q
