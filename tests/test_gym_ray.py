"""VehicleVectorEnv with ray_shards on real Ray: the vehicles stepped by Ray actors, each reading the stage itself and
stepping a contiguous range, give the in-process environment's episodes bit for bit (observations, rewards,
terminations, truncations, infos, positions, frozen vehicles), in the three autoreset modes, on copies of an asset and
on a stage of a car and a six-wheeled truck; the actors stop with the environment.

Ray takes 10-20 s to start on the 2-core machine: one local instance serves the tests that need it, which are soak
tests; the usage errors (no Ray started) run in the default suite.
"""
from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import SAMPLES, local_ray_instance
from stage_factory import car_spec, preset_spec, preset_stage

gymnasium = pytest.importorskip("gymnasium")  # the gym extra (in the test extra, so CI has it)
from gymnasium.vector import AutoresetMode  # noqa: E402
from test_gym import random_goal, random_start, rollout  # noqa: E402

from physxvehicle_usd.errors import InputError  # noqa: E402
from physxvehicle_usd.gym import VehicleVectorEnv, ray_shards  # noqa: E402
from physxvehicle_usd.gym.fleet import Reset  # noqa: E402
from physxvehicle_usd.gym.ray_shards import FleetShard, join  # noqa: E402
from physxvehicle_usd.gym.source import FleetSource  # noqa: E402
from physxvehicle_usd.sim import GuardOptions  # noqa: E402
from physxvehicle_usd.sim.shards import vehicle_ranges  # noqa: E402

CAR = SAMPLES / "car" / "car.usda"
CPUS = 3  # logical CPUs of the test's Ray instance: three one-CPU actors on the two cores

try:
    import ray
except ImportError:
    ray = None
needs_ray = pytest.mark.skipif(ray is None, reason="Ray is not installed (pip install 'physxvehicle-usd[ray]')")


@pytest.fixture(scope="module")
def local_ray():
    """One real local Ray instance for the module (the environments use it rather than start their own), its
    workers importing this checkout, with a small object store."""
    with local_ray_instance(CPUS):
        yield


# -- the default suite: usage, no Ray started ------------------------------------------------------------------------

def test_ray_shards_need_the_stage_as_a_file():
    with pytest.raises(ValueError, match=r"each Ray actor reads the stage itself, so give it as a file path"):
        VehicleVectorEnv.from_asset(preset_stage(car_spec()), 4, ray_shards=2)


@pytest.mark.parametrize("shards", [-1, 1.5])
def test_ray_shards_must_be_a_count_of_actors(shards):
    with pytest.raises(ValueError, match=rf"ray_shards must be a whole number of Ray actors, at least 1 \(got {shards}\)"):
        VehicleVectorEnv.from_asset(CAR, 4, ray_shards=shards)


def test_ray_shards_without_ray_say_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # Python's own way of making a package absent: import ray fails
    with pytest.raises(InputError, match=r"^ray_shards needs Ray, an optional extra: pip install 'physxvehicle-usd\[ray\]'$"):
        VehicleVectorEnv.from_asset(CAR, 4, ray_shards=2)


def test_shards_in_this_process_cut_and_joined_are_the_whole_fleet():
    """What the Ray actors do, without Ray: three shards of 7 copies of the car (each reading the asset itself),
    their actions and resets cut by range and their observations joined, step as the environment's own fleet."""
    env = VehicleVectorEnv.from_asset(CAR, 7)
    source = FleetSource(CAR, env.dt, copies=7)
    ranges = vehicle_ranges(7, 3)
    shards = [FleetShard(source, rows, 1, GuardOptions(), env.action_layout, env.observation_layout)
              for rows in ranges]
    assert [shard.simulator.params.paths for shard in shards][1] == tuple(f"/World/Car[{i}]" for i in (2, 3, 4))
    whole = env._fleet
    start = Reset(np.arange(7), None, None, None)  # as the environment started its own fleet: every vehicle as authored
    assert identical(join([shard.reset(start.part(rows)) for shard, rows in zip(shards, ranges)]), whole.reset(start))
    rng = np.random.default_rng(0)
    # a fresh start for 0, 3 and 4 (across two shards): 3 at a NaN position, 4 with a goal and its direction
    reset = Reset(np.array([0, 3, 4]), np.array([[1.0, 2.0, 0.6], [np.nan, 0.0, 0.6], [-3.0, 0.0, 0.6]]),
                  np.array([[0.0, 0.0, 0.0, 1.0]] * 3), np.array([[5.0, 0.0, 0.0, 0.0, 1.0, 0.0]] * 3))
    assert reset.part(ranges[0]).rows.tolist() == [0] and reset.part(ranges[1]).rows.tolist() == [1, 2]
    assert reset.part(ranges[2]) is None
    for step in range(12):
        actions = rng.uniform(env.action_space.low, env.action_space.high).astype(np.float32)
        then = reset if step == 5 else None
        ours = join([shard.step(actions[rows], None if then is None else then.part(rows))
                     for shard, rows in zip(shards, ranges)])
        theirs = whole.step(actions, then)
        assert all(identical(a, b) for a, b in zip(ours, theirs)), step
    assert ours.frozen.tolist() == [False, False, False, True, False, False, False]


# -- on a local Ray instance (soak) ----------------------------------------------------------------------------------

def identical(a, b) -> bool:
    """The same structure, and arrays of the same dtype, shape and bytes (NaNs included)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(identical(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(identical(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) and a.dtype == object:
        return isinstance(b, np.ndarray) and a.shape == b.shape and all(identical(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and (a.dtype, a.shape) == (b.dtype, b.shape) and a.tobytes() == b.tobytes()
    return a == b


def equal_episodes(ours: VehicleVectorEnv, theirs: VehicleVectorEnv, seed: int, steps: int) -> list:
    """The same seed and the same random actions: every call's results, and what rewards read, bit for bit."""
    mine = rollout(ours, seed, steps)
    assert identical(mine, rollout(theirs, seed, steps))
    for name in ("position", "frozen", "elapsed", "observation"):
        assert identical(getattr(ours, name), getattr(theirs, name)), name
    return mine


def sometimes_broken(rng: np.random.Generator, rows: np.ndarray):
    """random_start, but about one start in three at a NaN position: the numerical guard freezes those cars on their
    first step (terminated)."""
    position, orientation = random_start(rng, rows)
    position[rng.uniform(size=rows.size) < 0.3] = np.nan
    return position, orientation


@needs_ray
@pytest.mark.soak
@pytest.mark.parametrize("mode", list(AutoresetMode))
def test_shards_step_the_episodes_of_the_environment_without_them(local_ray, mode):
    """7 copies of the sample car on 3 actors (2, 3 and 2 cars), spawned and given goals at random (some at a NaN
    position, which the guard freezes), episodes of 7 steps."""
    options = dict(spawn=sometimes_broken, goal=random_goal, max_episode_steps=7, autoreset_mode=mode)
    sharded = VehicleVectorEnv.from_asset(CAR, 7, ray_shards=3, **options)
    try:
        assert [(r.start, r.stop) for r in sharded._fleet.ranges] == [(0, 2), (2, 5), (5, 7)]
        local = VehicleVectorEnv.from_asset(CAR, 7, **options)
        steps = equal_episodes(sharded, local, seed=3, steps=30)
        assert any(terminated.any() for _, _, terminated, _, _ in steps[1:])  # frozen cars among them
        if mode == AutoresetMode.DISABLED:  # the masked ones start over, in one actor and across two
            for mask in ([False, False, True, False, False, False, False], [True, False, False, True, True, False, True]):
                assert identical(*(env.reset(options={"reset_mask": np.array(mask)}) for env in (sharded, local)))
            assert identical(sharded.elapsed, local.elapsed) and identical(sharded.frozen, local.frozen)
        with pytest.raises(AttributeError, match="on its Ray actors"):
            sharded.simulator
    finally:
        sharded.close()


@needs_ray
@pytest.mark.soak
def test_shards_of_a_stage_read_their_own_vehicles(local_ray, tmp_path):
    """A car and a six-wheeled truck on two actors: each reads the stage and keeps its vehicle with the fleet's six
    wheel columns; the car's two padding wheels observe zeros, as in one process."""
    path = tmp_path / "car_and_truck.usda"
    preset_stage(car_spec(name="Car"), preset_spec("truck", name="Truck", wheels=6)).Export(str(path))
    sharded = VehicleVectorEnv.from_stage(path, ray_shards=2, max_episode_steps=12)
    try:
        local = VehicleVectorEnv.from_stage(path, max_episode_steps=12)
        equal_episodes(sharded, local, seed=0, steps=25)
        jounce = sharded.observation[:, sharded.observation_slices["jounce"]]
        assert jounce.shape == (2, 6) and (jounce[0, 4:] == 0.0).all() and (jounce[1] != 0.0).all()
    finally:
        sharded.close()


@needs_ray
@pytest.mark.soak
def test_closing_stops_the_actors_and_too_many_shards_are_refused(local_ray):
    env = VehicleVectorEnv.from_asset(CAR, 2, ray_shards=2)
    actors = list(env._fleet.actors)
    env.close()
    assert env.closed and ray.is_initialized()  # the test's own instance stays
    for actor in actors:
        with pytest.raises(ray.exceptions.RayActorError):
            ray.get(actor.observe.remote())
    with pytest.raises(ValueError, match=rf"ray_shards=2 with threads=2 needs 4 CPUs; the Ray cluster has {CPUS}$"):
        VehicleVectorEnv.from_asset(CAR, 2, ray_shards=2, threads=2)


@needs_ray
@pytest.mark.soak
def test_cpus_other_actors_hold_an_actors_error_and_a_stopped_actor_are_said(local_ray, monkeypatch):
    """Two CPUs of three held by one environment's actors: a second environment wanting two is refused (Ray would
    wait for ever). An error in an actor comes back as it was raised; an actor gone says which vehicles it had."""
    monkeypatch.setattr(ray_shards, "FREE_CPUS_WAIT_S", 0.5)
    env = VehicleVectorEnv.from_asset(CAR, 4, ray_shards=2)
    try:
        with pytest.raises(ValueError, match=rf"needs 2 CPUs; the Ray cluster has {CPUS}, 1 of them free \(other"):
            VehicleVectorEnv.from_asset(CAR, 4, ray_shards=2)
        with pytest.raises(IndexError):  # two columns where the car takes four: the actor's own error
            env._fleet.step(np.zeros((4, 2), np.float32))
        ray.kill(env._fleet.actors[1])
        with pytest.raises(RuntimeError, match="the Ray actor stepping vehicles 2-3 of the environment stopped"):
            env.step(env.action_space.sample())
    finally:
        env.close()
