"""The environment in Gymnasium's registry, as `PhysxVehicle-v0`: importing `physxvehicle_usd.gym` registers it.

    import gymnasium
    envs = gymnasium.make_vec("physxvehicle_usd.gym:PhysxVehicle-v0", num_envs=64,
                              vectorization_mode="vector_entry_point", asset="samples/car/car.usda")
    env = gymnasium.make("physxvehicle_usd.gym:PhysxVehicle-v0", render_mode="rgb_array")  # one vehicle

The "module:" prefix imports this package (Gymnasium's own way to find a registering module; Gymnasium 1.x reads no
entry points for environments); after `import physxvehicle_usd.gym`, "PhysxVehicle-v0" alone does. `asset` is a
stage's path (any asset: copies of its one vehicle, or of the one at `vehicle=`) or the name of a preset of
`physxvehicle-usd new` ("car", the default, "basic_car", "truck", "tank", "robot_base"), authored in memory. Every
other keyword goes to `VehicleVectorEnv` (`dt`, `reward`, `actions`, `render_mode`, ...).

"vector_entry_point" steps every vehicle in one `VehicleVectorEnv`; Gymnasium's "sync" and "async" modes make one
single-vehicle environment per copy instead, each its own simulator, which is far slower.
"""
from __future__ import annotations

import os
from typing import Any

import gymnasium

from .env import VehicleVectorEnv
from .single import VehicleEnv

ENV_ID = "PhysxVehicle-v0"
MAX_EPISODE_STEPS = 1000  # Gymnasium's TimeLimit (make) and the vector environment's truncation (make_vec)


def _source(asset: Any) -> Any:
    """A stage path or open stage as given; a preset's name (no file extension) as a stage authored in memory."""
    from ..author import PRESETS, author_vehicle, preset_spec

    if isinstance(asset, str) and asset in PRESETS and not os.path.exists(asset):
        return author_vehicle(preset_spec(asset))
    return asset


def make_vector(num_envs: int = 1, asset: Any = "car", **options: Any) -> VehicleVectorEnv:
    """`num_envs` copies of the vehicle of `asset` (make_vec's "vector_entry_point")."""
    return VehicleVectorEnv.from_asset(_source(asset), num_envs, **options)


def make_single(asset: Any = "car", **options: Any) -> VehicleEnv:
    """One vehicle of `asset` as a Gymnasium `Env` (make's entry point; its TimeLimit ends the episodes)."""
    return VehicleEnv(VehicleVectorEnv.from_asset(_source(asset), 1, max_episode_steps=None,
                                                  autoreset_mode=gymnasium.vector.AutoresetMode.DISABLED, **options))


def register() -> None:
    """Puts PhysxVehicle-v0 in Gymnasium's registry (once: a second import does not register it again)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(ENV_ID, entry_point=f"{__name__}:make_single", vector_entry_point=f"{__name__}:make_vector",
                           max_episode_steps=MAX_EPISODE_STEPS)
