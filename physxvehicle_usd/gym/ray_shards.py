"""An environment's vehicles on Ray actors (`VehicleVectorEnv.from_asset(..., ray_shards=K)`): K actors, each the
`Fleet` of a contiguous range of the vehicles, stepped with the compiled kernel where it covers them.

Each actor reads the stage itself (copies of an asset: the asset, repeated; a stage's vehicles: the stage, keeping its
range), so nothing of the fleet's size goes through Ray's object store but the observations. A step sends every
actor its rows of the actions (and of the resets: the spawn poses and goals the environment drew) and gathers
their observations in order: one round trip for all of them. The environment itself (its random draws, step counts,
rewards, terminations and autoreset) stays in the calling process, so the same seed and actions give the same
observations as without shards, bit for bit (no kernel mixes two vehicles).

Ray is an optional extra (`pip install 'physxvehicle-usd[ray]'`), imported here only, through on_ray.
"""
from __future__ import annotations

import time
import warnings
from contextlib import ExitStack

import numpy as np

from ..on_ray import import_ray, ray_session, task_error_cause
from ..sim.guard import GuardOptions
from ..sim.shards import vehicle_ranges
from ..sim.simulator import Simulator
from ..sim.state import SimParams
from .fleet import Fleet, Observed, Reset
from .source import FleetSource
from .spaces import ActionLayout, ObservationLayout

CALLER = "ray_shards"  # how Ray's messages (not installed, cannot start) name what asked for it
FREE_CPUS_WAIT_S = 10.0  # how long to wait for CPUs to be free: those of actors just stopped come back within moments
ACTOR_EXIT_WAIT_S = 30.0  # how long `close` waits for a killed actor to be gone


class RayShards:
    """What `VehicleVectorEnv` needs of vehicles on Ray actors before they start: the fleet's parameters and ground
    (read here: the layouts and bounds come from them), and `fleet`, which starts the actors."""

    def __init__(self, source: FleetSource, shards: int, threads: int, guard: GuardOptions, address: str):
        if not (isinstance(shards, int) and shards >= 1):
            raise ValueError(f"ray_shards must be a whole number of Ray actors, at least 1 (got {shards!r})")
        self.source = source.portable()
        batch, self.ground = self.source.read()
        self.dt = source.dt
        self.params = SimParams.from_batch(batch, np.float32)  # as Simulator's, whose dtype the actors keep
        self.guard = guard if guard.enabled else None  # the options observations are bounded by
        self._guard_options = guard
        self._shards, self._threads, self._address = shards, threads, address

    def fleet(self, actions: ActionLayout, observations: ObservationLayout) -> "RayFleet":
        return RayFleet(self.source, self.params.V, self._shards, self._threads, self._guard_options, actions,
                        observations, self._address)


class FleetShard(Fleet):
    """A Ray actor's vehicles: the rows `rows` of the fleet `source` describes, read on the actor's node."""

    def __init__(self, source: FleetSource, rows: slice, threads: int, guard: GuardOptions, actions: ActionLayout,
                 observations: ObservationLayout):
        batch, ground = source.read(rows)
        super().__init__(Simulator(batch, ground, source.dt, threads=threads, guard=guard), actions, observations)


class RayFleet:
    """The `Fleet` interface over the actors: actions and resets cut by range, observations joined in order."""

    def __init__(self, source: FleetSource, vehicles: int, shards: int, threads: int, guard: GuardOptions,
                 actions: ActionLayout, observations: ObservationLayout, address: str):
        self._session = ExitStack()
        self._session.enter_context(ray_session(address, caller=CALLER))
        self._ray = ray = import_ray(CALLER)
        self.ranges = vehicle_ranges(vehicles, shards)
        self.actors: list = []
        try:
            _free_cpus(ray, len(self.ranges) * threads, f"ray_shards={shards} with threads={threads}")
            actor = ray.remote(num_cpus=threads, max_restarts=0)(FleetShard)
            self.actors = [actor.remote(source, rows, threads, guard, actions, observations) for rows in self.ranges]
        except BaseException:
            self.close()
            raise

    def step(self, actions: np.ndarray, then: Reset | None = None) -> Observed:
        return self._gather([actor.step.remote(actions[rows], None if then is None else then.part(rows))
                             for actor, rows in zip(self.actors, self.ranges)])

    def reset(self, reset: Reset | None) -> Observed:
        return self._gather([actor.reset.remote(None if reset is None else reset.part(rows))
                             for actor, rows in zip(self.actors, self.ranges)])

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
        for actor in self.actors:  # ray.kill only asks: a call made at once may still run (measured: one did)
            _wait_gone(self._ray, actor)
        self.actors = []
        self._session.close()  # stops the local instance this fleet started, if it did

    def _gather(self, refs: list) -> Observed:
        ray = self._ray
        parts: list[Observed] = []
        for ref, rows in zip(refs, self.ranges):
            try:
                parts.append(ray.get(ref))
            except ray.exceptions.RayError as error:
                cause = task_error_cause(ray, error)
                if isinstance(cause, Exception) and not isinstance(cause, ray.exceptions.RayError):
                    raise cause from None  # the actor's own error (a stage its node cannot read, a bad value)
                raise RuntimeError(f"the Ray actor stepping vehicles {rows.start}-{rows.stop - 1} of the environment "
                                   f"stopped: {cause}") from None
        return join(parts)


def _free_cpus(ray, wanted: int, what: str) -> None:
    """ValueError unless `wanted` CPUs of the cluster are free, or come free within FREE_CPUS_WAIT_S: Ray would
    otherwise wait for them without a word, for ever if they never come (other actors hold them)."""
    total = int(ray.cluster_resources().get("CPU", 0))
    deadline = time.monotonic() + FREE_CPUS_WAIT_S
    while True:
        free = ray.available_resources().get("CPU", 0)
        if free >= wanted:
            return
        if total < wanted or time.monotonic() > deadline:
            held = f", {free:g} of them free (other actors or tasks hold the rest)" if total >= wanted else ""
            raise ValueError(f"{what} needs {wanted} CPUs; the Ray cluster has {total}{held}")
        time.sleep(0.2)


def join(parts: list[Observed]) -> Observed:
    """The observations of consecutive ranges of vehicles as those of all of them."""
    return Observed(np.concatenate([part.observation for part in parts]),
                    np.concatenate([part.position for part in parts], axis=1),
                    np.concatenate([part.frozen for part in parts]),
                    np.concatenate([part.axes for part in parts], axis=2))


def _wait_gone(ray, actor) -> None:
    """Until the killed `actor` answers no call (at most ACTOR_EXIT_WAIT_S; past that a warning says so)."""
    deadline = time.monotonic() + ACTOR_EXIT_WAIT_S
    while time.monotonic() < deadline:
        try:
            ray.get(actor.__ray_ready__.remote(), timeout=max(deadline - time.monotonic(), 0.0))
        except ray.exceptions.RayActorError:
            return
        except ray.exceptions.GetTimeoutError:
            break
        time.sleep(0.01)
    warnings.warn(f"a Ray actor of the environment did not stop within {ACTOR_EXIT_WAIT_S:g} s of being killed",
                  RuntimeWarning, stacklevel=3)
