"""`VehicleEnv`: one vehicle as a Gymnasium `Env` (what `gymnasium.make` and the single-environment wrappers such as
`RecordVideo` take), over a `VehicleVectorEnv` of that one vehicle."""
from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from .env import VehicleVectorEnv


class VehicleEnv(gymnasium.Env):
    """The one vehicle of `vector` (a VehicleVectorEnv with num_envs 1 and autoreset DISABLED: an `Env` is reset by
    its caller). Observation, action, reward and termination are the vector environment's, for its one vehicle;
    `render()` its one picture."""

    def __init__(self, vector: VehicleVectorEnv):
        if vector.num_envs != 1 or vector.metadata["autoreset_mode"] != AutoresetMode.DISABLED:
            raise ValueError("VehicleEnv takes a VehicleVectorEnv of one vehicle, with autoreset_mode DISABLED")
        self.vector = vector
        self.observation_space = vector.single_observation_space
        self.action_space = vector.single_action_space
        self.render_mode = vector.render_mode
        self.metadata = {"render_modes": vector.metadata["render_modes"], "render_fps": vector.metadata["render_fps"]}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        observation, info = self.vector.reset(seed=seed, options=options)
        return observation[0], info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        observation, reward, terminated, truncated, info = self.vector.step(np.asarray(action)[None])
        return observation[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]), info

    def render(self) -> np.ndarray | None:
        frames = self.vector.render()
        return None if frames is None else frames[0]

    def close(self) -> None:
        self.vector.close()
