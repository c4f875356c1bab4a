"""Reinforcement learning on the simulator: `VehicleVectorEnv`, a Gymnasium 1.x vector environment with one
sub-environment per vehicle (see env.py), `VehicleEnv`, one vehicle as a Gymnasium `Env` (single.py), and rewards and
terminations to build tasks from (tasks.py). Importing it registers both in Gymnasium as `PhysxVehicle-v0`
(registration.py: `gymnasium.make_vec("physxvehicle_usd.gym:PhysxVehicle-v0", num_envs=...,
vectorization_mode="vector_entry_point", asset=...)`).

Needs gymnasium (`pip install 'physxvehicle-usd[gym]'`); nothing else in the package imports this one. Its vehicles
can be stepped by Ray actors (`ray_shards=` of `from_asset` and `from_stage`, ray_shards.py), with the ray extra too.
"""
from __future__ import annotations

try:
    import gymnasium  # noqa: F401
except ImportError as exc:  # say what to install rather than which module is missing
    raise ImportError("physxvehicle_usd.gym needs gymnasium 1.x: pip install 'physxvehicle-usd[gym]' "
                      "(or pip install 'gymnasium>=1.0')") from exc

from .env import VehicleVectorEnv
from .registration import ENV_ID, register
from .single import VehicleEnv
from .tasks import GroundBounds, default_termination, forward_distance, speed_tracking

register()

__all__ = ["ENV_ID", "GroundBounds", "VehicleEnv", "VehicleVectorEnv", "default_termination", "forward_distance",
           "speed_tracking"]
