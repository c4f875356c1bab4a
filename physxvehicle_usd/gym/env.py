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
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import gymnasium
import numpy as np
from gymnasium.spaces import Box
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..on_ray import LOCAL
from ..sim.guard import GuardOptions
from ..sim.simulator import Simulator
from .fleet import Fleet, Observed, Reset
from .render import TopDown
from .source import FleetSource
from .spaces import ActionLayout, ObservationLayout, action_layout, observation_layout
from .tasks import GroundBounds, Reward, Termination, default_termination, forward_distance

if TYPE_CHECKING:
    from .ray_shards import RayShards

# spawn(rng, rows) -> (positions (k, 3) in metres or None, orientations (k, 4) as (x, y, z, w) or None)
Spawn = Callable[[np.random.Generator, np.ndarray], tuple[Any, Any]]
# goal(rng, rows) -> (k, 3) world positions in metres, or (k, 6): position and forward direction
Goal = Callable[[np.random.Generator, np.ndarray], Any]


class VehicleVectorEnv(VectorEnv):
    """One sub-environment per vehicle of `simulator` (all of one kind: a drive, tanks, or wheel controllers).

    Action (`single_action_space`, a float32 Box; its columns named by `action_layout.names`): the controls of the
    vehicles' kind, in this order, bounded as the property table bounds the controller attributes:

    - a drive (engine or direct): accelerator [0, 1], brake0 [0, 1], brake1 [0, 1], steer [-1, 1];
      actions="drive": accelerator, steer;
    - tanks: accelerator, brake0, brake1, thrust0 [-1, 1], thrust1 [-1, 1];
      actions="drive": accelerator, thrust0 [0, 1], thrust1 [0, 1];
    - no drive (wheel controllers): per wheel, driveTorque[w], brakeTorque[w], steerAngle[w] (stage units; the torques
      unbounded); actions="drive": driveTorque[w] [0, inf), steerAngle[w].

    actions="drive" leaves the brakes out of the action and holds them released (`action_layout.held`), and takes the
    thrusts and wheel torques forward only, so that random actions drive: with the brakes sampled too, a random
    action brakes as hard as it accelerates (docs/rl.md).
    `gear=True` adds the target gear as one more column (rounded to a whole gear; without it the authored gear
    command holds, usually the automatic gearbox). `action_bounds` narrows a control's bounds (the wheel torques
    are unbounded in the table). Actions are clipped to the Box.

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

    render_mode="rgb_array": `render()` gives one top-down picture per vehicle (render.py: `render_size` pixels
    square, `render_metres` across, centred on the vehicle), the form Gymnasium's vector `RecordVideo` tiles into
    one video; `metadata["render_fps"]` is the steps per second.

    The vehicles are stepped by a `fleet.Fleet` in this process, or with `from_asset`/`from_stage(...,
    ray_shards=K)` by K Ray actors (ray_shards.py) with the same results: the draws, rewards, terminations and
    autoreset stay here either way.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP,  # each environment's own: see __init__
                "render_modes": ["rgb_array"]}

    def __init__(self, simulator: "Simulator | RayShards", *, reward: Reward | None = None,
                 termination: Termination | None = None, max_episode_steps: int | None = 1000,
                 spawn: Spawn | None = None, goal: Goal | Any = None, gear: bool = False,
                 action_bounds: Mapping[str, tuple[float, float]] | None = None,
                 autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP, actions: str = "all",
                 render_mode: str | None = None, render_size: int = 128, render_metres: float = 24.0):
        if isinstance(simulator, Simulator):
            self._simulator = simulator
            p, ground, guard = simulator.params, simulator.ground, simulator.guard.options if simulator.guard else None

            def fleet(actions: ActionLayout, observations: ObservationLayout) -> Fleet:
                return Fleet(simulator, actions, observations)
        else:  # the vehicles of Ray actors (from_asset and from_stage with ray_shards)
            self._simulator = None
            p, ground, guard, fleet = simulator.params, simulator.ground, simulator.guard, simulator.fleet
        self.num_envs = p.V
        self.dt = simulator.dt
        self.metadata = {"autoreset_mode": AutoresetMode(autoreset_mode), "render_modes": ["rgb_array"],
                         "render_fps": max(1, round(1.0 / self.dt))}
        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array' (got {render_mode!r})")
        self.render_mode = render_mode
        self._top_down = TopDown(p, render_size, render_metres) if render_mode else None
        self.action_layout = action_layout(p, gear, action_bounds, actions)
        self.observation_layout = observation_layout(p, guard)
        self.single_action_space = Box(self.action_layout.low, self.action_layout.high, dtype=np.float32)
        self.single_observation_space = Box(self.observation_layout.low, self.observation_layout.high, dtype=np.float32)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # the bounds as whole (V, A) arrays: clipping against the (A,) rows runs numpy's inner loops A elements
        # long, ten times slower for four actions
        self._low, self._high = (np.ascontiguousarray(np.broadcast_to(bound, self.action_space.shape))
                                 for bound in (self.action_layout.low, self.action_layout.high))
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.max_episode_steps = max_episode_steps
        self._reward = reward or forward_distance
        self._termination = termination or default_termination
        self._spawn = spawn
        self._goal = goal if goal is None or callable(goal) else self._goal_array(goal)
        self._bounds = GroundBounds(p, ground)
        self._length_scale = p.length_scale.astype(float)
        self._elapsed = np.zeros(p.V, np.int64)
        self._autoreset = np.zeros(p.V, bool)
        self._fleet = fleet(self.action_layout, self.observation_layout)
        try:
            self._observe(self._fleet.reset(self._new_episodes(np.arange(p.V))))
        except BaseException:  # a Ray actor that could not read its vehicles: the others stop too
            self._fleet.close()
            raise

    # -- construction
    @classmethod
    def from_stage(cls, source: "str | os.PathLike | Any", dt: float = 1 / 60, vehicles: Sequence[str] | None = None,
                   *, threads: int = 1, guard: GuardOptions = GuardOptions(), ray_shards: int = 0,
                   ray_address: str = LOCAL, **options: Any) -> "VehicleVectorEnv":
        """The vehicles of a stage (a path or an open Usd.Stage; all of them, or the listed ones), read as
        `simulate.load` reads them (vehicles it cannot simulate are left out: `simulate.load(...).left_out`).
        ray_shards: see `from_asset`."""
        source = FleetSource(source, dt, vehicles=tuple(vehicles) if vehicles else None)
        return cls._from_source(source, threads, guard, ray_shards, ray_address, options)

    @classmethod
    def from_asset(cls, source: "str | os.PathLike | Any", num_envs: int, dt: float = 1 / 60,
                   vehicle: str | None = None, *, threads: int = 1, guard: GuardOptions = GuardOptions(),
                   ray_shards: int = 0, ray_address: str = LOCAL, **options: Any) -> "VehicleVectorEnv":
        """`num_envs` copies of the vehicle of an asset (or of its vehicle at `vehicle`), read once, on its ground.

        ray_shards=K: the vehicles are stepped by K Ray actors, each a contiguous range of them on `threads` CPUs,
        which reads the stage (a file path then) itself; the environment, its random draws, rewards and
        terminations stay in this process, and its observations are those of the environment without shards, bit
        for bit. ray_address: Ray to use when this process has not started it (`ray.init`) itself: "local" (a new
        local instance), "auto", HOST:PORT or ray://HOST:PORT (physxvehicle_usd.on_ray.ray_session); `close()`
        stops the actors, and the instance it started."""
        source = FleetSource(source, dt, copies=num_envs, vehicles=(vehicle,) if vehicle else None)
        return cls._from_source(source, threads, guard, ray_shards, ray_address, options)

    @classmethod
    def _from_source(cls, source: FleetSource, threads: int, guard: GuardOptions, ray_shards: int, ray_address: str,
                     options: dict) -> "VehicleVectorEnv":
        if not ray_shards:
            batch, ground = source.read()
            return cls(Simulator(batch, ground, source.dt, threads=threads, guard=guard), **options)
        from .ray_shards import RayShards

        return cls(RayShards(source, ray_shards, threads, guard, ray_address), **options)

    @property
    def simulator(self) -> Simulator:
        """The simulator stepping the vehicles (in this process; AttributeError for an environment on Ray shards)."""
        if self._simulator is None:
            raise AttributeError("the simulators of an environment with ray_shards are on its Ray actors")
        return self._simulator

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
        return (self._last.position / self._length_scale).T

    @property
    def frozen(self) -> np.ndarray:
        """(V,) bool: vehicles the simulator's numerical guard froze this episode."""
        return self._last.frozen

    @property
    def elapsed(self) -> np.ndarray:
        """(V,) steps taken in each vehicle's episode."""
        return self._elapsed

    def out_of_bounds(self) -> np.ndarray:
        """(V,) bool: off the ground (`tasks.GroundBounds`)."""
        return self._bounds.outside(self._last.position)

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
        self._observe(self._fleet.reset(self._new_episodes(rows)))
        return self.observation, {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        actions = self._clip(actions)
        self._elapsed += 1
        mode = self.metadata["autoreset_mode"]
        resetting = then = None
        if mode == AutoresetMode.NEXT_STEP and self._autoreset.any():
            resetting = self._autoreset.copy()  # _new_episodes clears the flags
            then = self._new_episodes(np.flatnonzero(resetting))  # stepped with the others, then put back
        obs = self._observe(self._fleet.step(actions, then))
        reward = np.array(self._reward(self, actions), dtype=np.float64)  # a copy: masked below
        terminated = np.array(self._termination(self), dtype=bool)
        if reward.shape != (self.num_envs,) or terminated.shape != (self.num_envs,):
            raise ValueError(f"reward and termination must give one value per vehicle ({self.num_envs}), got shapes "
                             f"{reward.shape} and {terminated.shape}")
        truncated = (self._elapsed >= self.max_episode_steps if self.max_episode_steps is not None
                     else np.zeros(self.num_envs, bool))
        infos: dict[str, Any] = {}
        if mode == AutoresetMode.NEXT_STEP:
            if resetting is not None:  # a first observation: its action was ignored, it has no reward and no end
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
                obs = self._observe(self._fleet.reset(self._new_episodes(rows)))
        return obs, reward, terminated, truncated, infos

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One (render_size, render_size, 3) uint8 picture per vehicle, looking down on it (render_mode
        "rgb_array"; None, with Gymnasium's warning, without a render_mode)."""
        if self._top_down is None:
            gymnasium.logger.warn("render() needs render_mode='rgb_array' when the environment is made")
            return None
        goal = self.observation[:, self.observation_slices["goal_position"]][:, :2]
        return tuple(self._top_down.frames(self.position.T, self._last.axes.astype(float), goal, self.frozen))

    def close_extras(self, **kwargs: Any) -> None:
        """Stops the Ray actors of an environment with ray_shards (and the Ray instance it started)."""
        self._fleet.close()

    # -- internals
    def _observe(self, observed: Observed) -> np.ndarray:
        self._last = observed
        self.observation = observed.observation
        return observed.observation

    def _clip(self, actions: Any) -> np.ndarray:
        a = np.asarray(actions, dtype=np.float32)
        if a.shape != self.action_space.shape:
            names = ", ".join(self.action_layout.names)
            raise ValueError(f"actions must have shape {self.action_space.shape} ({names} per vehicle), got {a.shape}")
        # maximum then minimum, into one new array: np.clip costs several times more on these small arrays
        clipped = np.maximum(a, self._low)
        return np.minimum(clipped, self._high, out=clipped)

    def _goal_array(self, goal: Any) -> np.ndarray:
        g = np.asarray(goal, dtype=float)
        if g.ndim not in (1, 2) or g.shape[-1] not in (3, 6):
            raise ValueError(f"goal: positions (3,) or (V, 3), or positions and forward directions (6,) or (V, 6), "
                             f"in metres; got shape {g.shape}")
        return np.broadcast_to(g, (self.num_envs, g.shape[-1]))

    def _new_episodes(self, rows: np.ndarray) -> Reset | None:
        """A new episode for the vehicles `rows` (their step counts start over): where they start and their goals,
        drawn here with `np_random` (the same draws however the vehicles are stepped)."""
        if rows.size == 0:
            return None
        self._elapsed[rows] = 0
        self._autoreset[rows] = False
        position = orientation = None
        if self._spawn is not None:
            position, orientation = self._spawn(self.np_random, rows)
            if position is not None:
                position = np.asarray(position, dtype=float).reshape(rows.size, 3) * self._length_scale[rows, None]
            if orientation is not None:  # one for all of them, or one each
                orientation = np.broadcast_to(np.asarray(orientation, dtype=float), (rows.size, 4))
        if callable(self._goal):
            goal = np.asarray(self._goal(self.np_random, rows), dtype=float)
            if goal.shape not in ((rows.size, 3), (rows.size, 6)):
                raise ValueError(f"goal(rng, rows) must give ({rows.size}, 3) or ({rows.size}, 6), got {goal.shape}")
        else:
            goal = None if self._goal is None else self._goal[rows]
        if goal is not None:  # positions in stage units (the directions need none)
            goal = goal.copy()
            goal[:, :3] *= self._length_scale[rows, None]
        return Reset(rows, position, orientation, goal)
