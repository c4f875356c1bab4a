"""`Simulator`: a batch of vehicles on a static ground, stepped with the numpy vehicle2 core.

    sim = Simulator(batch, ground, dt=1/60)
    sim.step({"accelerator": np.ones(n)})      # controls persist until changed, like PhysX command state
    sim.telemetry()["wheels"]["rotationSpeed"] # arrays named as PhysX (Omni) telemetry
    trace = sim.run(120)                       # {"dt", "steps", "vehicles", "wheels", "bodies"}

Controls (all optional, arrays over vehicles or vehicles x wheels): accelerator, brake0, brake1, steer,
targetGear (USD numbering: -1 reverse, 0 neutral, 1.. forward, 255 automatic), thrust0, thrust1 (tanks),
driveTorque, brakeTorque, steerAngle (per wheel, vehicles without a drive).
Telemetry quaternions are (x, y, z, w), as ovphysx reports them (the description uses w, x, y, z).
Contacts: the vehicles' own collision shapes against the static ground (sim/contact/world.py) and against each other's
(sim/contact/pairs.py), solved with the vehicle's constraint rows; the suspension queries meet other vehicles' shapes,
and their own where the groups let them (sim/vehicle_queries.py). A vehicle at rest sleeps as PhysX's body does, held
until a command or a touching vehicle wakes it (sim/sleep.py). Not modelled: user joints.

Numerical safety (sim/guard.py): a vehicle whose state turns non-finite or runs away is frozen at its last
good pose, at rest, and listed in `faulted` / `fault_reasons`; the other vehicles are unaffected.

Precision: float32 by default, as PhysX computes; `dtype=np.float64` is available (numpy kernels).

Kernels: a float32 batch whose compliance graphs are constant and which has no tank runs every substep of a
step in one compiled, vectorised C call (sim/compiled.py, sim/_substeps.c), on `threads` threads; other
batches, and any batch with `options=StepOptions(compiled=False)`, run the numpy kernels, the reference
the compiled kernel is tested against (tests/test_sim_compiled.py). Both follow tests/test_conformance_ovphysx.py.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np
import numpy.typing  # noqa: F401  (np.typing.DTypeLike)

from ..collision_filter import GroupFilter
from ..description import GroundDescription, StageDescription
from ..runtime.vehicle2 import AUTOMATIC_GEAR
from . import compiled
from . import vecmath as vm
from .batch import VehicleBatch, batch_from_description
from .broad_start import take_quiet_references
from .contact.broad import candidate_pairs
from .contact.model import ContactModel, Materials
from .contact.telemetry import empty_telemetry
from .contact.world import prepare_tables as prepare_contact_tables
from .ground import Ground, friction_matrix
from .guard import Guard, GuardOptions
from .motion import Motion
from .pipeline import StepOptions, step
from .query_groups import GroundFilter
from .rigid_body import actor_pose, body_pose
from .shards import ShardedStep
from .state import (
    SimParams,
    SimState,
    copy_vehicle_rows,
    initial_state,
    output_vehicle_axis,
    vehicle_rows,
)
from .suspension import update_compliance
from .vehicle_queries import VehicleQueries, still_quiet
from .wheel import wheel_orientation

_VEHICLE_CONTROLS = ("accelerator", "brake0", "brake1", "steer", "thrust0", "thrust1")
_WHEEL_CONTROLS = {"driveTorque": "wheel_drive_torque", "brakeTorque": "wheel_brake_torque", "steerAngle": "wheel_steer_angle"}
# The per-step outputs telemetry() reads. A reset clears the vehicles' rows of these (a fresh simulator reports zeros
# before its first step); the private ones ("_lng_dir", "_toe", ...) are inputs of nothing after the step that made
# them, and one of them may be a parameter array itself (a constant toe), so they are left alone.
_TELEMETRY_OUTPUTS = ("suspensionJounce", "suspensionForce", "tireForce", "tireFriction", "tireLongitudinalSlip",
                      "tireLateralSlip", "isOnGround", "wheelSteerAngle")


def _scene_of(description: StageDescription, path: str):
    """The scene block of a vehicle (its contact thresholds): its own scene's, or the default scene's."""
    return description.scene_of(path).settings


class Simulator:
    def __init__(self, batch: VehicleBatch, ground: Ground | Sequence[GroundDescription] | None, dt: float, *,
                 options: StepOptions = StepOptions(), dtype: np.typing.DTypeLike = np.float32,
                 guard: GuardOptions = GuardOptions(), threads: int = 1, collision: StageDescription | None = None):
        """threads: how many ranges of vehicles to step in parallel threads (1: the whole batch in the caller's
        thread). Results do not depend on it. The compiled kernel runs its substeps on that many threads; a
        batch it does not cover is cut into ranges stepped by numpy in threads (sim/shards.py), but in a step
        where two vehicles may touch (their shapes' boxes meet, sim/contact/pairs.py): that step is one range.
        collision: the stage description whose vehicle collision shapes, materials and collision groups make the
        contacts with the static ground (sim/contact/); None, or options.contacts False: no contacts."""
        if not dt > 0.0:
            raise ValueError(f"dt must be > 0 (got {dt})")
        if threads < 1:
            raise ValueError(f"threads must be >= 1 (got {threads})")
        self.batch = batch
        self.params = SimParams.from_batch(batch, dtype)
        self.ground = ground if isinstance(ground, Ground) else Ground.from_description(ground)
        # the stage's collision groups as ids, which the contacts and the queries filter by (collision_filter.py)
        rule = None if collision is None else GroupFilter.of(collision.collisionGroups)

        def contact_model(params: SimParams) -> ContactModel | None:
            if collision is None or not options.contacts:
                return None
            return ContactModel.build(
                [collision.vehicles[path].collision if path in collision.vehicles else [] for path in params.paths],
                params.com_position, params.com_orientation, collision.ground,
                Materials(collision.materials, collision.defaultMaterial), rule, params.wheel_paths,
                [_scene_of(collision, path) for path in params.paths], params.paths)

        self.contact = contact_model(self.params)
        if self.contact is not None:  # (the tables of its first contact, made now: sim/contact/world.py)
            prepare_contact_tables(self.contact, self.ground)
        # the suspension queries meet the other vehicles' shapes (sim/vehicle_queries.py)
        self.queries = None if self.contact is None else VehicleQueries.build(
            self.contact, collision, rule, self.params.paths, self.params.wheel_paths, self.params.W,
            batch.friction_tables)
        # the wheels' queries skip the static shapes their collision group filters (sim/query_groups.py)
        self.ground_filter = None if collision is None else GroundFilter.build(
            collision, rule, self.ground, self.params.paths, self.params.wheel_paths, self.params.W)
        shards = min(threads, batch.nb_vehicles)
        if options.compiled and compiled.covers(self.params):
            options = dataclasses.replace(options, kernel_threads=shards)
            shards = 1
        else:  # the ranges of a batch the kernel does not cover stay numpy too: one path for the whole batch
            options = dataclasses.replace(options, compiled=False)
        self._sharded = ShardedStep(batch, dtype, shards, contact_model if self.contact is not None else None,
                                    self.ground_filter) if shards > 1 else None
        self.friction = friction_matrix(batch.friction_tables, self.ground)
        self.dt = float(dt)
        self.options = options
        self.state: SimState = initial_state(self.params)
        self._initial: SimState | None = None  # the authored state, kept for reset_vehicles on its first call
        self.guard = Guard(self.params, guard) if guard.enabled else None
        take_quiet_references(self.params, self.state, self.ground, self.contact, self.queries)

    @classmethod
    def from_description(cls, description: StageDescription, dt: float, vehicle_paths: Sequence[str] | None = None,
                         **kwargs: Any) -> "Simulator":
        """The vehicles of a stage description (all of them, or the listed ones) on its ground."""
        return cls(batch_from_description(description, vehicle_paths), description.ground, dt, collision=description,
                   **kwargs)

    # -- controls
    def set_controls(self, controls: Mapping[str, Any]) -> None:
        s, p = self.state, self.params
        for key, value in controls.items():
            if key in _VEHICLE_CONTROLS:
                setattr(s, key, np.broadcast_to(np.asarray(value, dtype=p.dtype), (p.V,)).copy())
            elif key == "targetGear":
                g = np.broadcast_to(np.asarray(value, dtype=np.int64), (p.V,))
                s.target_gear_command = np.where(g == AUTOMATIC_GEAR, AUTOMATIC_GEAR, g + 1)
                # basic drive: >0 (incl. automatic) forward, <0 reverse, 0 neutral
                s.direct_gear = np.where((g == AUTOMATIC_GEAR) | (g > 0), 1.0, np.where(g == 0, 0.0, -1.0)).astype(p.dtype)
            elif key in _WHEEL_CONTROLS:
                setattr(s, _WHEEL_CONTROLS[key], np.broadcast_to(np.asarray(value, dtype=p.dtype), (p.V, p.W)) * p.mask)
            else:
                raise KeyError(f"unknown control {key!r}; known: {sorted((*_VEHICLE_CONTROLS, 'targetGear', *_WHEEL_CONTROLS))}")

    def reset_vehicles(self, vehicles: Any, position: Any = None, orientation: Any = None) -> None:
        """Put the vehicles `vehicles` ((V,) bool mask or indices) back to the state the stage describes (pose,
        velocities, wheel speeds and angles, jounces, engine speed, gears, autobox and sticky-tire timers, the
        authored controls) and clear their guard fault; the others are untouched. Their next steps are those of a
        fresh simulator's, bit for bit.

        position (k, 3) and orientation (k, 4) as (x, y, z, w), or one of each for all of them: a world pose of the
        vehicle prims to start from instead of the authored one (stage units, as telemetry()["bodies"] reports).
        """
        rows = np.asarray(vehicles)
        rows = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.intp).ravel()
        if rows.size == 0:
            return
        p, s = self.params, self.state
        if self._initial is None:
            self._initial = initial_state(p)
        reset = self._initial
        if position is not None or orientation is not None:
            actor_p, actor_q = actor_pose(p, reset)
            actor_p, actor_q = actor_p[:, rows], actor_q[:, rows]
            if position is not None:
                actor_p = np.broadcast_to(np.asarray(position, dtype=float), (rows.size, 3)).T
            if orientation is not None:  # (x, y, z, w) as telemetry reports it -> (w, x, y, z)
                xyzw = np.broadcast_to(np.asarray(orientation, dtype=float), (rows.size, 4)).T
                actor_q = vm.quat_normalize(xyzw[[3, 0, 1, 2]])
            body_p, body_q = body_pose(p, actor_p, actor_q, rows)
        was_faulted = rows[s.faulted[rows]]
        copy_vehicle_rows(s, reset, rows)
        if s.friction is not None:  # their friction patches end: a fresh simulator's have none
            s.friction = s.friction.without(rows)
        if s.manifolds is not None:  # and their contact manifolds
            s.manifolds = s.manifolds.without(rows)
        if s.pair_friction is not None:  # and the patches between them and other vehicles
            other = self.contact.vehicle[s.pair_friction.static]  # body 1's
            s.pair_friction = s.pair_friction.subset(~np.isin(s.pair_friction.vehicle, rows) & ~np.isin(other, rows))
        if s.pair_manifolds is not None:
            s.pair_manifolds = s.pair_manifolds.without(rows, self.contact)
        if position is not None or orientation is not None:
            s.body_position[:, rows] = body_p
            s.body_orientation[:, rows] = body_q
        for key in _TELEMETRY_OUTPUTS:
            value = s.out.get(key)
            if value is not None:
                value[vehicle_rows(output_vehicle_axis(value), rows)] = 0
        if "_centre_offset" in s.out:  # the wheel centres telemetry reports: at full droop below the new pose
            R = vm.quat_to_mat(s.body_orientation[:, rows])
            s.out["_centre_offset"][:, rows] = vm.matvec(
                R[:, :, :, None], (p.attachment_position + p.travel_direction * p.travel_distance)[:, rows])
        if self.guard is not None:
            for v in was_faulted.tolist():  # the frozen ones only: a reset vehicle is no longer frozen
                self.guard.reasons.pop(v, None)
                self.guard.frozen_at.pop(v, None)

    def step(self, controls: Mapping[str, Any] | None = None) -> None:
        if controls:
            self.set_controls(controls)
        if self.guard is None:
            self._advance()
            return
        self.guard.before(self.state)
        self._advance_quietly()
        self.guard.after(self.state)

    def _advance(self) -> None:
        if self._sharded is not None and not self._vehicles_may_touch():
            self._sharded(self.state, self.ground, self.friction, self.dt, self.options)
        else:
            step(self.params, self.state, self.ground, self.friction, self.dt, self.options, self.contact, self.queries,
                 self.ground_filter)

    # `_advance` without numpy's floating-point warnings: the guard reports per vehicle (the decorator's form: no
    # errstate object built every step, as a `with` block builds one)
    _advance_quietly = np.errstate(invalid="ignore", over="ignore", divide="ignore")(_advance)

    def _vehicles_may_touch(self) -> bool:
        """Whether the broad phase between vehicles finds a pair at the pose the step begins with, or a suspension
        query may meet another vehicle or its own (the ranges of a sharded step would miss a pair across two of them,
        and their queries meet the ground alone)."""
        if self.queries is not None and self.queries.meets_own:
            return True
        if self.contact is None or self.contact.pairs is None:
            return False
        motion = Motion(self.state.body_position, self.state.body_orientation)
        if self.queries is not None and not still_quiet(self.queries, motion):
            return True  # a wheel's query may meet another vehicle (the whole batch's step finds out, and when not,
            # that none can until a body moves by the quiet margin)
        (first, _), _ = candidate_pairs(self.contact, self.state.body_position,
                                                        self.state.body_orientation, motion)
        return first.size > 0

    @property
    def threads(self) -> int:
        """How many threads each step runs on (1: the whole batch in the caller's thread)."""
        return len(self._sharded.ranges) if self._sharded is not None else self.options.kernel_threads

    @property
    def faulted(self) -> np.ndarray:
        """(V,) bool: vehicles frozen by the numerical guard (see `fault_reasons`)."""
        return self.state.faulted.copy()

    @property
    def fault_reasons(self) -> dict[str, str]:
        """Vehicle path -> why the guard froze it ("non-finite state", "chassis speed", ...)."""
        return {self.params.paths[v]: why for v, why in sorted(self.guard.reasons.items())} if self.guard else {}

    @property
    def fault_steps(self) -> dict[str, int]:
        """Vehicle path -> the step (counted from 1 since the simulator was built) after which the guard froze it."""
        return {self.params.paths[v]: at for v, at in sorted(self.guard.frozen_at.items())} if self.guard else {}

    @property
    def steps_taken(self) -> int:
        """Steps the guard has checked since the simulator was built (0 without a guard)."""
        return self.guard.steps if self.guard else 0

    # -- output
    def chassis_positions(self) -> np.ndarray:
        """(V, 3) world positions of the vehicle prims: telemetry()["bodies"]["position"] alone, without the rest."""
        return actor_pose(self.params, self.state)[0].T.copy()

    def telemetry(self) -> dict[str, dict[str, np.ndarray]]:
        """Per vehicle (V,), per wheel (V, W[, 3|4]) and per chassis (V, 3|4) arrays, world frame, stage units;
        quaternions x, y, z, w."""
        p, s = self.params, self.state
        out = s.out
        actor_p, actor_q = actor_pose(p, s)
        standard = p.is_standard
        wheels: dict[str, np.ndarray] = {
            "rotationSpeed": s.corrected_rotation_speed.copy(), "rotationAngle": s.rotation_angle.copy(),
            "wheelSteerAngle": out.get("wheelSteerAngle", np.zeros((p.V, p.W))).copy(),
            "suspensionJounce": s.jounce.copy(),
        }
        for key in ("suspensionForce", "tireForce"):
            wheels[key] = np.moveaxis(out[key], 0, -1).copy() if key in out else np.zeros((p.V, p.W, 3))
        for key in ("tireFriction", "tireLongitudinalSlip", "tireLateralSlip"):
            wheels[key] = out[key].copy() if key in out else np.zeros((p.V, p.W))
        wheels["isOnGround"] = out["isOnGround"].copy() if "isOnGround" in out else np.zeros((p.V, p.W), bool)
        # wheel centre: body offset of the last substep carried to the final body pose
        if "_centre_offset" in out:
            centre = s.body_position[:, :, None] + out["_centre_offset"]
        else:
            R = vm.quat_to_mat(s.body_orientation)
            centre = s.body_position[:, :, None] + vm.matvec(R[:, :, :, None], p.attachment_position + p.travel_direction * p.travel_distance)
        wheels["position"] = np.moveaxis(centre, 0, -1).copy()
        # (a disabled vehicle's compliance state stays at its default: no camber)
        camber = np.where(p.enabled[:, None], update_compliance(p, s.jounce).camber, 0.0) if p.has_compliance_angles \
            else 0.0
        orientation = wheel_orientation(p, s, wheels["wheelSteerAngle"], camber)
        wheels["orientation"] = np.moveaxis(orientation[[1, 2, 3, 0]], 0, -1)  # (V, W, 4), x, y, z, w as the oracle
        return {
            "vehicles": {
                "engineRotationSpeed": np.where(standard, s.engine_omega, 0.0),
                "currentGear": np.where(standard, s.current_gear - 1, 0),
                "targetGear": np.where(standard, s.target_gear - 1, 0),
            },
            "wheels": wheels,
            "bodies": {
                "position": actor_p.T.copy(), "orientation": actor_q[[1, 2, 3, 0]].T.copy(),  # (x, y, z, w) as the oracle
                "linearVelocity": s.linear_velocity.T.copy(), "angularVelocity": s.angular_velocity.T.copy(),
                **(s.contacts.telemetry if s.contacts is not None and s.contacts.telemetry is not None
                   else empty_telemetry(p.V)),
            },
        }

    def run(self, steps: int, controls: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Step `steps` times and record telemetry after every step, in the oracle's trace layout."""
        p = self.params
        trace: dict[str, Any] = {"dt": self.dt, "steps": int(steps), "vehicles": {}, "wheels": {}, "bodies": {}}
        for v, path in enumerate(p.paths):
            trace["vehicles"][path] = {}
            trace["bodies"][path] = {}
            for w, wpath in enumerate(p.wheel_paths[v]):
                trace["wheels"][wpath] = {}
        if controls:
            self.set_controls(controls)
        for _ in range(int(steps)):
            self.step()
            t = self.telemetry()
            for v, path in enumerate(p.paths):
                for key, arr in t["vehicles"].items():
                    trace["vehicles"][path].setdefault(key, []).append(arr[v].item())
                for key, arr in t["bodies"].items():
                    trace["bodies"][path].setdefault(key, []).append(arr[v].tolist())
                for w, wpath in enumerate(p.wheel_paths[v]):
                    for key, arr in t["wheels"].items():
                        value = arr[v, w]
                        trace["wheels"][wpath].setdefault(key, []).append(value.tolist() if np.ndim(value) else value.item())
        return trace
