"""`VehicleVectorEnv`: the vehicles of one `Simulator` as a Gymnasium 1.x vector environment, one sub-environment
per vehicle, stepped together (no Python loop over vehicles: the simulator steps the batch, the observation,
reward, termination and resets are whole-batch array operations).

    env = VehicleVectorEnv.from_asset("samples/car/car.usda", num_envs=64, reward=speed_tracking(5.0))
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

Autoreset follows Gymnasium's `AutoresetMode` (declared in `metadata["autoreset_mode"]`): NEXT_STEP (the default,
as Gymnasium's own vector environments) resets a vehicle that ended on the step after, which then returns its
first observation with reward 0 and ignores its action; SAME_STEP resets it at once and puts the last observation
in `info["final_obs"]`; DISABLED leaves it to `reset(options={"reset_mask": mask})`.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from gymnasium.spaces import Box
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..sim import vecmath as vm
from ..sim.guard import GuardOptions
from ..sim.simulator import Simulator
from .copies import repeat_vehicle
from .observe import Observer
from .spaces import action_layout, observation_layout
from .tasks import GroundBounds, Reward, Termination, default_termination, forward_distance

# spawn(rng, rows) -> (positions (k, 3) in metres or None, orientations (k, 4) as (x, y, z, w) or None)
Spawn = Callable[[np.random.Generator, np.ndarray], tuple[Any, Any]]
# goal(rng, rows) -> (k, 3) world positions in metres, or (k, 6): position and forward direction
Goal = Callable[[np.random.Generator, np.ndarray], Any]


class VehicleVectorEnv(VectorEnv):
    """One sub-environment per vehicle of `simulator` (all of one kind: a drive, tanks, or wheel controllers).

    Action (`single_action_space`, a float32 Box): the controls of the vehicles' kind, bounded as the property table
    bounds the controller attributes: accelerator, brake0, brake1 in [0, 1] and steer in [-1, 1] for a drive
    (accelerator, brake0, brake1, thrust0, thrust1 for a tank), or each wheel's driveTorque, brakeTorque and
    steerAngle (stage units) for vehicles without a drive; `gear=True` adds the target gear as one more column
    (rounded to a whole gear; without it the authored gear command holds, usually the automatic gearbox).
    `action_bounds` narrows a control's bounds (the wheel torques are unbounded in the table). Actions are clipped
    to the Box.

    Observation (`single_observation_space`, a float32 Box; columns named by `observation_names`, grouped by
    `observation_slices`): linear and angular velocity (m/s, rad/s), the goal's position (m) and forward direction
    and the world's up direction, all in the vehicle's frame (forward, lateral, up); engine speed (rad/s), gear (-1
    reverse, 0 neutral, 1.. forward); per wheel: rotation speed (rad/s), longitudinal and lateral slip, jounce (m).

    reward(env, actions) -> (V,) and termination(env) -> (V,) bool (see `tasks`); defaults: metres driven forward,
    and terminated when frozen by the numerical guard, flipped or out of bounds. Truncated after
    `max_episode_steps` steps (None: never). Episodes start from the authored state, or from `spawn(rng, rows)`'s
    poses; the goal is each vehicle's start pose unless `goal` gives positions (and directions), fixed or drawn by
    `goal(rng, rows)`. `rng` is the environment's `np_random`, seeded by `reset(seed=...)`: the same seed and actions
    give the same observations, bit for bit. The environment owns the simulator: it starts by resetting every vehicle.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # each environment's own mode: see __init__

    def __init__(self, simulator: Simulator, *, reward: Reward | None = None, termination: Termination | None = None,
                 max_episode_steps: int | None = 1000, spawn: Spawn | None = None, goal: Goal | Any = None,
                 gear: bool = False, action_bounds: Mapping[str, tuple[float, float]] | None = None,
                 autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP):
        p = simulator.params
        self.simulator = simulator
        self.num_envs = p.V
        self.dt = simulator.dt
        self.metadata = {"autoreset_mode": AutoresetMode(autoreset_mode)}
        self.action_layout = action_layout(p, gear, action_bounds)
        self.observation_layout = observation_layout(p, simulator.guard.options if simulator.guard else None)
        self.single_action_space = Box(self.action_layout.low, self.action_layout.high, dtype=np.float32)
        self.single_observation_space = Box(self.observation_layout.low, self.observation_layout.high, dtype=np.float32)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.max_episode_steps = max_episode_steps
        self._reward = reward or forward_distance
        self._termination = termination or default_termination
        self._spawn = spawn
        self._goal = goal if goal is None or callable(goal) else self._goal_array(goal)
        self._observer = Observer(simulator, self.observation_layout)
        self._bounds = GroundBounds(p, simulator.ground)
        self._length_scale = p.length_scale.astype(float)
        self._goal_position = np.zeros((3, p.V), np.float32)  # world, stage units
        self._goal_forward = np.zeros((3, p.V), np.float32)
        self._elapsed = np.zeros(p.V, np.int64)
        self._autoreset = np.zeros(p.V, bool)
        self._reset_rows(np.arange(p.V))
        self.observation = self._observer.observe(self._goal_position, self._goal_forward)

    # -- construction
    @classmethod
    def from_stage(cls, source: "str | os.PathLike | Any", dt: float = 1 / 60, vehicles: Sequence[str] | None = None,
                   *, threads: int = 1, guard: GuardOptions = GuardOptions(), **options: Any) -> "VehicleVectorEnv":
        """The vehicles of a stage (a path or an open Usd.Stage; all of them, or the listed ones), read as
        `simulate.load` reads them (vehicles it cannot simulate are left out: `simulate.load(...).left_out`)."""
        from ..simulate import load

        sim = load(source, dt, vehicles, threads).simulator
        if guard != GuardOptions():
            sim = Simulator(sim.batch, sim.ground, dt, threads=threads, guard=guard)
        return cls(sim, **options)

    @classmethod
    def from_asset(cls, source: "str | os.PathLike | Any", num_envs: int, dt: float = 1 / 60,
                   vehicle: str | None = None, *, threads: int = 1, guard: GuardOptions = GuardOptions(),
                   **options: Any) -> "VehicleVectorEnv":
        """`num_envs` copies of the vehicle of an asset (or of its vehicle at `vehicle`), read once, on its ground."""
        from ..simulate import load

        loaded = load(source, dt, [vehicle] if vehicle else None)
        if len(loaded.paths) != 1:
            raise ValueError(f"{source} has {len(loaded.paths)} vehicles ({', '.join(loaded.paths[:3])}"
                             f"{', ...' if len(loaded.paths) > 3 else ''}): name the one to copy with vehicle=")
        batch = repeat_vehicle(loaded.simulator.batch, num_envs)
        return cls(Simulator(batch, loaded.simulator.ground, dt, threads=threads, guard=guard), **options)

    # -- what rewards and terminations read
    @property
    def observation_slices(self) -> dict[str, slice]:
        return self.observation_layout.slices

    @property
    def observation_names(self) -> tuple[str, ...]:
        return self.observation_layout.names

    @property
    def forward_speed(self) -> np.ndarray:
        """(V,) m/s along each vehicle's own heading, from the last observation."""
        return self.observation[:, self.observation_slices["linear_velocity"].start]

    @property
    def upright(self) -> np.ndarray:
        """(V,) cosine of each vehicle's tilt: 1 upright, 0 on its side, -1 on its roof."""
        return self.observation[:, self.observation_slices["up"].stop - 1]

    @property
    def position(self) -> np.ndarray:
        """(V, 3) world positions of the vehicle prims, metres."""
        return (self._observer.position / self._length_scale).T

    @property
    def frozen(self) -> np.ndarray:
        """(V,) bool: vehicles the simulator's numerical guard froze this episode."""
        return self.simulator.state.faulted

    @property
    def elapsed(self) -> np.ndarray:
        """(V,) steps taken in each vehicle's episode."""
        return self._elapsed

    def out_of_bounds(self) -> np.ndarray:
        """(V,) bool: off the ground (`tasks.GroundBounds`)."""
        return self._bounds.outside(self._observer.position)

    # -- the Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Every vehicle back to a new episode, or those of `options["reset_mask"]` ((V,) bool)."""
        super().reset(seed=seed)
        mask = (options or {}).get("reset_mask")
        if mask is None:
            rows = np.arange(self.num_envs)
        else:
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != bool:
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
            rows = np.flatnonzero(mask)
        self._reset_rows(rows)
        self.observation = self._observer.observe(self._goal_position, self._goal_forward)
        return self.observation, {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        actions = self._clip(actions)
        self.simulator.step(self._controls(actions))
        self._elapsed += 1
        mode = self.metadata["autoreset_mode"]
        resetting = None
        if mode == AutoresetMode.NEXT_STEP and self._autoreset.any():
            resetting = self._autoreset
            self._reset_rows(np.flatnonzero(resetting))  # stepped with the others, now put back: its action is ignored
        self.observation = obs = self._observer.observe(self._goal_position, self._goal_forward)
        reward = np.array(self._reward(self, actions), dtype=np.float64)  # a copy: masked below
        terminated = np.array(self._termination(self), dtype=bool)
        if reward.shape != (self.num_envs,) or terminated.shape != (self.num_envs,):
            raise ValueError(f"reward and termination must give one value per vehicle ({self.num_envs}), got shapes "
                             f"{reward.shape} and {terminated.shape}")
        truncated = (self._elapsed >= self.max_episode_steps if self.max_episode_steps is not None
                     else np.zeros(self.num_envs, bool))
        infos: dict[str, Any] = {}
        if mode == AutoresetMode.NEXT_STEP:
            if resetting is not None:
                reward[resetting] = 0.0
                terminated[resetting] = False
                truncated[resetting] = False
            self._autoreset = terminated | truncated
        elif mode == AutoresetMode.SAME_STEP:
            done = terminated | truncated
            if done.any():
                rows = np.flatnonzero(done)
                final = np.full(self.num_envs, None, dtype=object)  # Gymnasium's layout: one observation per sub-env
                final[rows] = list(obs[rows])
                infos = {"final_obs": final, "_final_obs": done.copy(), "final_info": {}, "_final_info": done.copy()}
                self._reset_rows(rows)
                self.observation = obs = self._observer.observe(self._goal_position, self._goal_forward)
        return obs, reward, terminated, truncated, infos

    # -- internals
    def _clip(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions, dtype=np.float32)
        if a.shape != self.action_space.shape:
            names = ", ".join(self.action_layout.names)
            raise ValueError(f"actions must have shape {self.action_space.shape} ({names} per vehicle), got {a.shape}")
        # maximum then minimum, into one new array: np.clip costs several times more on these small arrays
        clipped = np.maximum(a, self.action_layout.low)
        return np.minimum(clipped, self.action_layout.high, out=clipped)

    def _controls(self, actions: np.ndarray) -> dict[str, np.ndarray]:
        controls = {}
        for name, cols in self.action_layout.columns.items():
            if name == "targetGear":
                controls[name] = np.rint(actions[:, cols.start]).astype(np.int64)
            else:
                controls[name] = actions[:, cols] if cols.stop - cols.start > 1 else actions[:, cols.start]
        return controls

    def _goal_array(self, goal: Any) -> np.ndarray:
        g = np.asarray(goal, dtype=float)
        if g.ndim not in (1, 2) or g.shape[-1] not in (3, 6):
            raise ValueError(f"goal: positions (3,) or (V, 3), or positions and forward directions (6,) or (V, 6), "
                             f"in metres; got shape {g.shape}")
        return np.broadcast_to(g, (self.num_envs, g.shape[-1]))

    def _reset_rows(self, rows: np.ndarray) -> None:
        """A new episode for the vehicles `rows`: their start pose, the authored state, their goal."""
        if rows.size == 0:
            return
        position = orientation = None
        if self._spawn is not None:
            position, orientation = self._spawn(self.np_random, rows)
            if position is not None:
                position = np.asarray(position, dtype=float).reshape(rows.size, 3) * self._length_scale[rows, None]
        self.simulator.reset_vehicles(rows, position, orientation)
        self._elapsed[rows] = 0
        self._autoreset[rows] = False
        if callable(self._goal):
            goal = np.asarray(self._goal(self.np_random, rows), dtype=float)
            if goal.shape not in ((rows.size, 3), (rows.size, 6)):
                raise ValueError(f"goal(rng, rows) must give ({rows.size}, 3) or ({rows.size}, 6), got {goal.shape}")
        else:
            goal = None if self._goal is None else self._goal[rows]
        if goal is None or goal.shape[-1] == 3:  # the start pose's position or heading
            start, axes = self._observer.frame(rows)
        if goal is None:
            self._goal_position[:, rows] = start
        else:
            self._goal_position[:, rows] = goal[:, :3].T * self._length_scale[rows]
        self._goal_forward[:, rows] = axes[0] if goal is None or goal.shape[-1] == 3 else vm.normalize(goal[:, 3:].T)
