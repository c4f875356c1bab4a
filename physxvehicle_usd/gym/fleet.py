"""The vehicles an environment steps: one `Simulator` with its observer and the vehicles' goals, driven by whole
actions and resets and answering with whole observations.

`VehicleVectorEnv` keeps what an episode is (the random draws, the step counts, rewards, terminations, autoreset) and
hands the vehicles their actions and resets through `step` and `reset`: to a `Fleet` in its own process, or to the
`Fleet`s of Ray actors, each with a contiguous range of the vehicles (ray_shards.py). Either way a step is one call,
and the same actions and resets give the same observations, bit for bit (no kernel mixes two vehicles).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..sim import vecmath as vm
from ..sim.simulator import Simulator
from .observe import Observer
from .spaces import PER_WHEEL, ActionLayout, ObservationLayout


class Reset(NamedTuple):
    """Vehicles to start a new episode: from the authored state, at the pose given (else the authored one), with the
    goal given (else their start pose's position and heading)."""

    rows: np.ndarray                # (k,) vehicle indices
    position: np.ndarray | None     # (k, 3) world positions of the vehicle prims, stage units
    orientation: np.ndarray | None  # (k, 4) (x, y, z, w)
    goal: np.ndarray | None         # (k, 3) world goal positions, stage units, or (k, 6) with unit forward directions

    def part(self, rows: slice) -> "Reset | None":
        """The vehicles of the range `rows`, numbered from its start (None: none of them)."""
        inside = (self.rows >= rows.start) & (self.rows < rows.stop)
        if not inside.any():
            return None
        return Reset(self.rows[inside] - rows.start, *(None if a is None else a[inside]
                                                       for a in (self.position, self.orientation, self.goal)))


class Observed(NamedTuple):
    """The vehicles after a step or a reset."""

    observation: np.ndarray  # (V, D) float32, in ObservationLayout order
    position: np.ndarray     # (3, V) world positions of the vehicle prims, stage units
    frozen: np.ndarray       # (V,) bool: frozen by the simulator's numerical guard
    axes: np.ndarray         # (2, 3, V) the vehicles' longitudinal and lateral axes, world (for render)


class Fleet:
    """The vehicles of `simulator`, stepped with actions laid out as `actions` and observed as `observations`."""

    def __init__(self, simulator: Simulator, actions: ActionLayout, observations: ObservationLayout):
        V = simulator.params.V
        self.simulator = simulator
        self._controls = tuple(actions.columns.items())
        # the controls the action leaves out, at their held values (a per-wheel one on every wheel)
        self._held = {name: np.full((V, simulator.params.W) if name in PER_WHEEL else V, value)
                      for name, value in actions.held.items()}
        self._observer = Observer(simulator, observations)
        self._goal_position = np.zeros((3, V), np.float32)  # world, stage units
        self._goal_forward = np.zeros((3, V), np.float32)

    def step(self, actions: np.ndarray, then: Reset | None = None) -> Observed:
        """Every vehicle one step with its row of `actions` ((V, A), within the action space); then the vehicles of
        `then` start over (their actions were ignored: NEXT_STEP autoreset)."""
        self.simulator.step(self.controls(actions))
        if then is not None:
            self._start(then)
        return self.observe()

    def reset(self, reset: Reset | None) -> Observed:
        """The vehicles of `reset` start over; the others are as they were."""
        if reset is not None:
            self._start(reset)
        return self.observe()

    def observe(self) -> Observed:
        observation = self._observer.observe(self._goal_position, self._goal_forward)
        return Observed(observation, self._observer.position, self.simulator.state.faulted,
                        self._observer.world_axes[:2])

    def controls(self, actions: np.ndarray) -> dict[str, np.ndarray]:
        """The simulator's controls from actions: views of their columns (a whole gear for the target gear)."""
        controls = dict(self._held)
        for name, cols in self._controls:
            if name == "targetGear":
                controls[name] = np.rint(actions[:, cols.start]).astype(np.int64)
            else:
                controls[name] = actions[:, cols] if cols.stop - cols.start > 1 else actions[:, cols.start]
        return controls

    def close(self) -> None:
        """Nothing to release in this process (a Ray fleet stops its actors)."""

    def _start(self, reset: Reset) -> None:
        rows, goal = reset.rows, reset.goal
        self.simulator.reset_vehicles(rows, reset.position, reset.orientation)
        if goal is None or goal.shape[-1] == 3:  # the start pose's position or heading
            start, axes = self._observer.frame(rows)
        self._goal_position[:, rows] = start if goal is None else goal[:, :3].T
        self._goal_forward[:, rows] = axes[0] if goal is None or goal.shape[-1] == 3 else vm.normalize(goal[:, 3:].T)
