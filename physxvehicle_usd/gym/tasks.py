"""Rewards and terminations for the vehicle environment: the defaults and a few to build on.

A reward is a callable `reward(env, actions) -> (V,)` and a termination `termination(env) -> (V,) bool`, called once
per step after the simulator stepped, with every vehicle at once; they read the environment's last observation
(`env.observation`, columns named by `env.observation_slices`) and its helpers (`env.forward_speed`,
`env.upright`, `env.position`, `env.frozen`, `env.elapsed`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from ..sim.ground import Ground
from ..sim.state import SimParams

if TYPE_CHECKING:
    from .env import VehicleVectorEnv

Reward = Callable[["VehicleVectorEnv", np.ndarray], np.ndarray]
Termination = Callable[["VehicleVectorEnv"], np.ndarray]


def forward_distance(env: "VehicleVectorEnv", actions: np.ndarray) -> np.ndarray:
    """The default reward: metres driven along the vehicle's own heading this step (backwards counts negative)."""
    return env.forward_speed * env.dt


def speed_tracking(target: float) -> Reward:
    """A reward for holding the forward speed `target` (m/s): 1 at the target, falling linearly with the error to 0
    at standstill (and below 0 past twice the target)."""
    if not target > 0:
        raise ValueError(f"the target speed must be > 0 m/s (got {target})")

    def reward(env: "VehicleVectorEnv", actions: np.ndarray) -> np.ndarray:
        return 1.0 - np.abs(env.forward_speed - target) / target

    return reward


def default_termination(env: "VehicleVectorEnv") -> np.ndarray:
    """Terminated: frozen by the simulator's numerical guard, flipped (tilted past 90 degrees) or out of bounds."""
    return env.frozen | (env.upright < 0.0) | env.out_of_bounds()


class GroundBounds:
    """Where a vehicle has left the ground: its prim's origin farther than its own reach (the farthest its wheels'
    bottoms get from that origin) below every ground plane, and outside the box around the ground meshes by as much.
    A stage without ground has no bounds."""

    def __init__(self, p: SimParams, ground: Ground):
        droop = (p.attachment_position + p.travel_direction * p.travel_distance).astype(float)  # wheel centres
        wheel_bottom = np.linalg.norm(droop, axis=0) + p.radius  # from the centre of mass
        farthest = np.max(np.where(p.mask, wheel_bottom, 0.0), axis=1)
        self.reach = np.linalg.norm(p.com_position.astype(float), axis=0) + farthest  # (V,) stage units
        self._below = -self.reach  # the lowest a vehicle's origin gets above a plane while on it
        self.planes = (ground.plane_normals, ground.plane_offsets) if len(ground.plane_offsets) else None
        if len(ground.tri_v0):
            corners = np.concatenate((ground.tri_v0, ground.tri_v0 + ground.tri_e1, ground.tri_v0 + ground.tri_e2))
            self.box = (corners.min(axis=0)[:, None], corners.max(axis=0)[:, None])  # (3, 1) each
        else:
            self.box = None

    def outside(self, position: np.ndarray) -> np.ndarray:
        """(V,) bool for world positions (3, V) in stage units."""
        inside = None
        if self.planes is not None:
            normals, offsets = self.planes
            for n, d in zip(normals, offsets):  # a handful of planes at most
                above = n[0] * position[0] + n[1] * position[1] + n[2] * position[2] + d >= self._below
                inside = above if inside is None else inside | above
        if self.box is not None:
            low, high = self.box
            within = ((position >= low - self.reach) & (position <= high + self.reach)).all(axis=0)
            inside = within if inside is None else inside | within
        return np.zeros(position.shape[1], bool) if inside is None else ~inside  # no ground: no bounds
