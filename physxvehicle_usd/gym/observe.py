"""The observation of every vehicle, built from the simulator's state in a fixed number of whole-batch operations.

The values are what `Simulator.telemetry()` reports (velocities, engine speed, gear, slips, jounces) but in the
vehicle's own frame (its longitudinal, lateral and vertical axes) and in SI units, so that one policy reads
vehicles authored in any frame and unit alike; telemetry() itself copies every array it has, which would cost
more than the step's own bookkeeping. Wheel speeds are the wheels' rotation speeds (the state the guard bounds;
telemetry reports them blended with the rolling speed at low speed).

Much of what it costs is memory traffic: every new array is memory that pushes the simulator's arrays out of the
cache before its next step (the README's Gymnasium wrapper figures). Hence scratch arrays kept from one observation
to the next, and an observation written once, into its rows, rather than assembled whole in the simulator's
component-first layout and transposed.
"""
from __future__ import annotations

import numpy as np

from ..runtime.vehicle2 import NEUTRAL_GEAR
from ..sim import vecmath as vm
from ..sim.simulator import Simulator
from .spaces import VECTORS, WHEEL_VALUES, ObservationLayout


class Observer:
    """Writes observations (V, D) float32 in `ObservationLayout` order; keeps the vehicles' world positions and
    axes of the last one for rewards and terminations."""

    def __init__(self, sim: Simulator, layout: ObservationLayout):
        p = sim.params
        # the five vectors are the first columns, in VECTORS order: observe() writes them with one product
        assert [layout.slices[name].start for name in VECTORS] == list(range(0, 15, 3)), layout.slices
        self.sim = sim
        self.layout = layout
        self.W = p.W
        dtype = np.float32
        # the vehicle's axes (longitudinal, lateral, vertical; given in the actor frame) in the body frame, which the
        # centre-of-mass rotation turns away from the actor's: a = R_com b
        R_com = vm.quat_to_mat(p.com_orientation.astype(float))
        axes = np.stack((p.lng_axis, p.lat_axis, p.vrt_axis)).astype(float)  # (axis, 3, V)
        axes_body = np.einsum("jiv,kjv->kiv", R_com, axes)
        com_body = vm.matTvec(R_com, p.com_position.astype(float))  # actor = body - R_B com_body
        # rotated into the world together, with one product: (3 axes + the centre of mass, 3, V)
        self.body_vectors = np.concatenate((axes_body, com_body[None])).astype(dtype)
        self.inv_length = (1.0 / p.length_scale).astype(dtype)  # stage lengths -> metres
        g = p.gravity.astype(float)
        g_norm = np.sqrt(vm.dot(g, g))
        self.up_world = (-g / np.where(g_norm > 0.0, g_norm, 1.0)).astype(dtype)  # against gravity (0 without)
        self.is_standard = p.is_standard
        self.standard = p.is_standard.astype(dtype)
        self.wheel_mask = None if p.mask.all() else p.mask
        # (V, W): equal shapes run as flat loops, a (V, 1) operand as short inner loops (see vecmath.per_wheel)
        self.inv_length_w = np.repeat(self.inv_length[:, None], p.W, axis=1)
        self.zeros = np.zeros((p.V, p.W), dtype)
        self.world_axes = np.zeros((3, 3, p.V), dtype)  # (axis, xyz, V) of the last observation
        self.position = np.zeros((3, p.V), dtype)       # actor (vehicle prim) positions of the last one, stage units
        # scratch: the world vectors (VECTORS order; the up direction never changes), their vehicle-frame values
        # (component-first, and as the observation's first columns: a transposed view), and views of each vector
        self._world = np.empty((len(VECTORS), 3, p.V), sim.state.linear_velocity.dtype)
        self._world[VECTORS.index("up")] = self.up_world
        self._linear, self._angular, self._to_goal, self._forward = (
            self._world[VECTORS.index(name)] for name in ("linear_velocity", "angular_velocity", "goal_position",
                                                          "goal_forward"))
        self._vectors = np.empty((len(VECTORS), 3, p.V), np.result_type(self._world, self.body_vectors))
        self._vector_columns = self._vectors.reshape(-1, p.V).T
        sl = layout.slices
        self._engine, self._gear = sl["engine_speed"].start, sl["gear"].start
        self._wheel_columns = tuple(sl[name] for name in WHEEL_VALUES)
        self._wheel_rows = np.dtype((np.void, p.W * np.dtype(np.float32).itemsize))  # see _rows

    def frame(self, rows: np.ndarray | slice = slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """World positions (3, k) of the vehicle prims `rows` (stage units) and their axes (axis, 3, k), now."""
        s = self.sim.state
        R = vm.quat_to_mat(s.body_orientation[:, rows])
        world = np.einsum("ijv,kjv->kiv", R, self.body_vectors[:, :, rows])
        return s.body_position[:, rows] - world[3], world[:3]

    def observe(self, goal_position: np.ndarray, goal_forward: np.ndarray) -> np.ndarray:
        """A new (V, D) observation. goal_position (3, V): world, stage units; goal_forward (3, V): world, unit."""
        s = self.sim.state
        self.position, self.world_axes = self.frame()
        np.multiply(s.linear_velocity, self.inv_length, out=self._linear)  # metres
        self._angular[...] = s.angular_velocity
        np.subtract(goal_position, self.position, out=self._to_goal)
        self._to_goal *= self.inv_length
        self._forward[...] = goal_forward
        # each vector along the vehicle's axes, component-first (einsum writing them vehicle-first, "->vnk", takes
        # numpy's buffered iterator: forty times the instructions of the transposing copy below)
        np.einsum("kiv,niv->nkv", self.world_axes, self._world, out=self._vectors)
        obs = np.empty((len(self._vector_columns), len(self.layout.names)), np.float32)
        obs[:, : self._vector_columns.shape[1]] = self._vector_columns
        np.multiply(s.engine_omega, self.standard, out=obs[:, self._engine])
        # USD's gear numbers (-1 reverse, 0 neutral), 0 without a gearbox, as telemetry reports them
        obs[:, self._gear] = np.where(self.is_standard, s.current_gear - NEUTRAL_GEAR, 0)
        none = self.zeros
        wheels = (s.rotation_speed, s.out.get("tireLongitudinalSlip", none),
                  s.out.get("tireLateralSlip", none),  # none before the first step, as telemetry says
                  s.jounce * self.inv_length_w)  # WHEEL_VALUES order
        for columns, value in zip(self._wheel_columns, wheels):
            if self.wheel_mask is not None:  # padding wheels of vehicles with fewer wheels than the batch's widest
                value = value * self.wheel_mask
            _rows(obs[:, columns], self._wheel_rows)[...] = _rows(np.ascontiguousarray(value, np.float32),
                                                                 self._wheel_rows)
        return obs


def _rows(a: np.ndarray, item: np.dtype) -> np.ndarray:
    """The rows of a (V, n) float32 array whose rows are contiguous as V opaque items (`item`: void, 4n bytes), a view
    (writing it writes `a`). numpy copies rows of a few numbers into a wider array number by number, with inner loops
    n long; as whole items, the copy is one loop over V, several times faster."""
    return a.view(item)
