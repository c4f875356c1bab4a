"""The environment as Gymnasium's tools meet it: found by id (make_vec, make), drawn (render_mode="rgb_array") for
RecordVideo, counted by RecordEpisodeStatistics, and driven by random actions of the driving-only action set."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.wrappers import RecordEpisodeStatistics, RecordVideo  # noqa: E402
from gymnasium.wrappers import vector as vector_wrappers  # noqa: E402

from physxvehicle_usd.gym import ENV_ID, VehicleVectorEnv  # noqa: E402
from physxvehicle_usd.gym.render import CHASSIS, FRONT  # noqa: E402

SAMPLES = REPO / "samples"
CAR = str(SAMPLES / "car" / "car.usda")
TANK = str(SAMPLES / "tank" / "tank.usda")


def test_make_vec_finds_the_environment_by_id_in_a_fresh_interpreter(tmp_path):
    """The "module:id" form imports the registering module: nothing to import first (the probe runs elsewhere, so
    that no earlier import of this process registers it)."""
    probe = f"""
import json, gymnasium
envs = gymnasium.make_vec("physxvehicle_usd.gym:{ENV_ID}", num_envs=3, vectorization_mode="vector_entry_point",
                          asset={CAR!r}, dt=1 / 30)
obs, _ = envs.reset(seed=0)
single = gymnasium.make("{ENV_ID}", asset={CAR!r}, dt=1 / 30)
print(json.dumps([type(envs).__name__, envs.num_envs, list(obs.shape), envs.spec.id, single.spec.max_episode_steps,
                  list(single.reset(seed=0)[0].shape)]))
"""
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    kind, n, shape, spec_id, limit, single_shape = json.loads(result.stdout)
    assert (kind, n, spec_id, limit) == ("VehicleVectorEnv", 3, ENV_ID, 1000)
    assert shape[0] == 3 and single_shape == shape[1:]


def test_make_vec_steps_the_asset_as_the_environment_made_directly():
    envs = gymnasium.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", asset=TANK, dt=1 / 30,
                              max_episode_steps=50)
    direct = VehicleVectorEnv.from_asset(TANK, 4, dt=1 / 30, max_episode_steps=50)
    assert envs.unwrapped.max_episode_steps == 50
    actions = np.random.default_rng(0).uniform(0, 1, (5, *envs.action_space.shape))
    for env in (envs, direct):
        env.reset(seed=3)
    for action in actions:
        assert np.array_equal(envs.step(action)[0], direct.step(action)[0])


def test_a_preset_name_is_an_asset_and_the_default_is_the_car():
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point")
    assert envs.action_layout.names == ("accelerator", "brake0", "brake1", "steer")
    truck = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", asset="truck")
    assert truck.unwrapped.simulator.params.W == 6  # the truck preset's six wheels


def test_make_gives_one_vehicle_cut_off_by_its_time_limit():
    env = gymnasium.make(ENV_ID, asset=CAR, dt=1 / 30, max_episode_steps=3, actions="drive")
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs) and env.action_space.shape == (2,)
    ends = [env.step(np.array([1.0, 0.0], np.float32))[2:4] for _ in range(3)]
    assert ends == [(False, False), (False, False), (False, True)]


def test_random_actions_of_the_driving_set_drive_and_of_the_full_set_do_not():
    """The issue's case: random actions over every control brake as hard as they accelerate (the car stays put); the
    driving set holds the brakes released, so every vehicle goes forward."""
    totals = {}
    for actions in ("all", "drive"):
        env = VehicleVectorEnv.from_asset(CAR, 6, dt=1 / 30, actions=actions, max_episode_steps=None)
        env.reset(seed=0)
        env.action_space.seed(0)
        totals[actions] = sum(env.step(env.action_space.sample())[1] for _ in range(90))
    assert np.all(np.abs(totals["all"]) < 0.05), totals["all"]
    assert np.all(totals["drive"] > 1.0), totals["drive"]  # metres forward in 3 s, each vehicle


def test_the_driving_set_of_each_kind_and_what_it_holds():
    car = VehicleVectorEnv.from_asset(CAR, 1, actions="drive")
    assert car.action_layout.names == ("accelerator", "steer")
    assert car.action_layout.held == {"brake0": 0.0, "brake1": 0.0}
    tank = VehicleVectorEnv.from_asset(TANK, 1, actions="drive")
    assert tank.action_layout.names == ("accelerator", "thrust0", "thrust1")
    assert tank.single_action_space.low.tolist() == [0.0, 0.0, 0.0]  # forward only: random signs cancel out
    robot = VehicleVectorEnv.from_asset(str(SAMPLES / "robot_base" / "robot_base.usda"), 1, actions="drive",
                                        action_bounds={"driveTorque": (0.0, 50.0)})
    assert [n.split("[")[0] for n in robot.action_layout.names] == ["driveTorque"] * 4 + ["steerAngle"] * 4
    assert robot.action_layout.held == {"brakeTorque": 0.0}
    with pytest.raises(ValueError, match="actions must be one of 'all', 'drive'"):
        VehicleVectorEnv.from_asset(CAR, 1, actions="brakes")


def _front_direction(frame: np.ndarray) -> np.ndarray:
    """(east, north) from the chassis' centre to its front part's, in pixels."""
    chassis = np.argwhere((frame == CHASSIS).all(-1) | (frame == FRONT).all(-1))
    front = np.argwhere((frame == FRONT).all(-1))
    (row, col) = front.mean(0) - chassis.mean(0)
    return np.array([col, -row])


def test_render_draws_each_vehicle_turned_as_it_is_and_the_ground_moving_under_it():
    # the car faces +X (east in the picture); the second copy is turned a quarter to the left, facing +Y (north)
    quarter = [0.0, 0.0, np.sin(np.pi / 4), np.cos(np.pi / 4)]

    def spawn(rng, rows):
        return None, [[0.0, 0.0, 0.0, 1.0], quarter][: rows.size] if rows.size == 2 else None

    env = VehicleVectorEnv.from_asset(CAR, 2, dt=1 / 30, render_mode="rgb_array", render_size=96, spawn=spawn,
                                      actions="drive")
    env.reset(seed=0)
    first = env.render()
    assert len(first) == 2 and all(f.shape == (96, 96, 3) and f.dtype == np.uint8 for f in first)
    east, north = (_front_direction(f) for f in first)
    assert east[0] > 3 and abs(east[1]) < 1, east
    assert north[1] > 3 and abs(north[0]) < 1, north
    for _ in range(60):
        env.step(np.array([[1.0, 0.0], [1.0, 0.0]], np.float32))
    later = env.render()
    assert all(np.array_equal(a, b) for a, b in zip(env.render(), later))  # drawing changes nothing
    # the vehicle stays in the middle; the grid under it moved
    assert not np.array_equal(first[0], later[0])
    assert np.allclose(_front_direction(later[0]), east, atol=1.5)


def test_render_without_a_render_mode_says_so():
    env = VehicleVectorEnv.from_asset(CAR, 1)
    with pytest.warns(UserWarning, match="render_mode='rgb_array'"):
        assert env.render() is None
    with pytest.raises(ValueError, match="render_mode must be None or 'rgb_array'"):
        VehicleVectorEnv.from_asset(CAR, 1, render_mode="human")


def test_record_video_and_episode_statistics_on_one_vehicle(tmp_path):
    pytest.importorskip("moviepy")
    env = gymnasium.make(ENV_ID, asset=CAR, dt=1 / 30, max_episode_steps=12, actions="drive",
                         render_mode="rgb_array", render_size=64)
    env = RecordEpisodeStatistics(RecordVideo(env, str(tmp_path / "videos"), episode_trigger=lambda episode: True))
    env.reset(seed=0)
    done, total = False, 0.0
    while not done:
        _, reward, terminated, truncated, info = env.step(np.array([1.0, 0.0], np.float32))
        total += reward
        done = terminated or truncated
    env.close()
    assert info["episode"]["l"] == 12 and np.isclose(info["episode"]["r"], total) and total > 0
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert [v.name for v in videos] == ["rl-video-episode-0.mp4"] and videos[0].stat().st_size > 0


def test_record_video_and_episode_statistics_on_the_vector_form(tmp_path):
    pytest.importorskip("moviepy")
    envs = gymnasium.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", asset=CAR, dt=1 / 30,
                              max_episode_steps=10, actions="drive", render_mode="rgb_array", render_size=48)
    envs = vector_wrappers.RecordEpisodeStatistics(
        vector_wrappers.RecordVideo(envs, str(tmp_path / "videos"), episode_trigger=lambda episode: episode == 0))
    envs.reset(seed=0)
    for _ in range(10):
        _, _, _, truncated, info = envs.step(np.tile(np.float32([1.0, 0.0]), (4, 1)))
    assert truncated.all() and (info["episode"]["l"] == 10).all() and (info["episode"]["r"] > 0).all()
    frames = envs.env.recorded_frames
    assert len(frames) == 11 and frames[0].shape == (96, 96, 3)  # the reset and ten steps, the four tiled 2 x 2
    envs.close()
    assert [v.name for v in (tmp_path / "videos").glob("*.mp4")] == ["rl-video-episode-0.mp4"]
