"""Reinforcement learning: Simulator.reset_vehicles and physxvehicle_usd.gym's VehicleVectorEnv on the samples and
on stages authored here: per-vehicle resets bit for bit, spaces from the property table, observations inside them
and equal to the telemetry they come from, Gymnasium's checks, autoreset in its three modes, determinism with a
seed, the default terminations, and a small policy trained end to end."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import SAMPLES
from pxr import Gf, Usd, UsdGeom, UsdPhysics
from stage_factory import add_copies, car_spec, preset_spec, preset_stage, translate

gymnasium = pytest.importorskip("gymnasium")  # the gym extra (in the test extra, so CI has it)
from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.utils.passive_env_checker import (  # noqa: E402
    check_action_space,
    check_obs,
    check_observation_space,
    data_shares_objects,
)
from gymnasium.vector import AutoresetMode  # noqa: E402
from gymnasium.wrappers.vector import RecordEpisodeStatistics  # noqa: E402

from physxvehicle_usd import properties as P  # noqa: E402
from physxvehicle_usd.gym import VehicleVectorEnv, speed_tracking  # noqa: E402
from physxvehicle_usd.gym.spaces import control_range  # noqa: E402
from physxvehicle_usd.read import read_stage  # noqa: E402
from physxvehicle_usd.sim import Simulator, StepOptions  # noqa: E402

DT = 1.0 / 60.0
CAR = SAMPLES / "car" / "car.usda"
PATHS = ("/World/CarA", "/World/CarB", "/World/CarC")


def three_cars():
    """The preset car and two copies of it by reference, 4 m apart."""
    stage = preset_stage(car_spec(name="CarA"))
    for i, path in enumerate(add_copies(stage, PATHS[0], list(PATHS[1:])), start=1):
        translate(stage, path, (4.0 * i, 0.0, 0.0))
    return read_stage(stage)


def drive(sim: Simulator, steps: int, record: list | None = None) -> None:
    """Each car with its own controls, so that their states differ."""
    for _ in range(steps):
        sim.step({"accelerator": np.array([1.0, 0.7, 0.4]), "steer": np.array([0.3, -0.2, 0.0]),
                  "brake0": np.array([0.0, 0.0, 0.1])})
        if record is not None:
            record.append(sim.telemetry())


def rows_of(telemetry: list, row: int | list) -> list:
    return [{group: {key: value[row] for key, value in values.items()} for group, values in t.items()}
            for t in telemetry]


def same(a, b) -> bool:
    """Equal values throughout (a fresh simulator's telemetry before its first step has float64 zeros where a
    stepped one has float32 arrays: the values are compared, not the types)."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return np.array_equal(a, b)


# -- Simulator.reset_vehicles

NUMPY = StepOptions(compiled=False)


# the thread variants in the soak run: the README's test command stays within its time
@pytest.mark.parametrize("kwargs", [{}, {"options": NUMPY}, pytest.param({"threads": 3}, marks=pytest.mark.soak),
                                    pytest.param({"threads": 3, "options": NUMPY}, marks=pytest.mark.soak)],
                         ids=["kernel", "numpy", "kernel-threads", "numpy-ranges"])
def test_a_reset_vehicle_steps_as_a_fresh_one_and_the_others_carry_on(kwargs):
    description = three_cars()
    sim = Simulator.from_description(description, DT, **kwargs)
    untouched = Simulator.from_description(description, DT, **kwargs)
    fresh = Simulator.from_description(description, DT, **kwargs)
    drive(sim, 40)
    drive(untouched, 40)
    sim.reset_vehicles(np.array([False, True, False]))
    ours, theirs, others = [sim.telemetry()], [fresh.telemetry()], [untouched.telemetry()]
    drive(sim, 50, ours)
    drive(fresh, 50, theirs)
    drive(untouched, 50, others)
    assert same(rows_of(ours, 1), rows_of(theirs, 1))           # from the reset on, telemetry included
    assert same(rows_of(ours[1:], [0, 2]), rows_of(others[1:], [0, 2]))
    for name in ("engine_omega", "current_gear", "rotation_angle", "sticky_lng", "lng_low_speed_time",
                 "autobox_time_since_shift", "accelerator"):
        assert np.array_equal(getattr(sim.state, name)[1], getattr(fresh.state, name)[1]), name
    assert not same(rows_of(ours[:1], 0), rows_of(theirs[:1], 0))  # the others were not reset


def test_a_reset_to_a_pose_puts_the_vehicle_prim_there():
    description = three_cars()
    sim = Simulator.from_description(description, DT)
    drive(sim, 30)
    authored = Simulator.from_description(description, DT).telemetry()["bodies"]
    # the authored pose given explicitly is the authored reset, bit for bit
    sim.reset_vehicles([0], authored["position"][0], authored["orientation"][0])
    assert same(rows_of([sim.telemetry()], 0), rows_of([Simulator.from_description(description, DT).telemetry()], 0))
    half = math.sqrt(0.5)
    sim.reset_vehicles([2], position=[10.0, 20.0, 5.0], orientation=[0.0, 0.0, half, half])  # yawed 90 degrees
    bodies = sim.telemetry()["bodies"]
    np.testing.assert_allclose(bodies["position"][2], [10.0, 20.0, 5.0], atol=1e-5)
    np.testing.assert_allclose(np.abs(bodies["orientation"][2] @ np.array([0.0, 0.0, half, half])), 1.0, atol=1e-6)
    assert np.array_equal(bodies["linearVelocity"][2], authored["linearVelocity"][2])


def test_a_reset_unfreezes_a_vehicle_the_guard_froze():
    description = three_cars()
    sim = Simulator.from_description(description, DT)
    fresh = Simulator.from_description(description, DT)
    drive(sim, 10)
    sim.state.angular_velocity[:, 0] = np.nan
    drive(sim, 5)
    assert sim.faulted.tolist() == [True, False, False] and "/World/CarA" in sim.fault_reasons
    sim.reset_vehicles(np.array([True, False, False]))
    assert not sim.faulted.any() and sim.fault_reasons == {} and sim.fault_steps == {}
    ours, theirs = [], []
    drive(sim, 20, ours)
    drive(fresh, 20, theirs)
    assert same(rows_of(ours, 0), rows_of(theirs, 0))


# -- spaces

def test_action_bounds_are_the_property_tables_and_the_gears():
    car = VehicleVectorEnv.from_stage(CAR, gear=True)
    rows = [P.prop(P.CONTROLLER, name).range for name in ("accelerator", "brake0", "brake1", "steer")]
    assert [r.lo for r in rows] == car.single_action_space.low[:4].tolist()
    # the table's ranges end just above 1 (1 + FLT_EPSILON, exclusive): the Box ends at 1
    highs = [control_range(name)[1] for name in ("accelerator", "brake0", "brake1", "steer")]
    assert car.single_action_space.high[:4].tolist() == [1.0, 1.0, 1.0, 1.0] == highs
    gears = len(read_stage(CAR).vehicles["/World/Car"].drive.gears["ratios"])  # reverse and the forward gears
    assert (car.single_action_space.low[4], car.single_action_space.high[4]) == (-1.0, gears - 1)
    assert car.action_layout.names == ("accelerator", "brake0", "brake1", "steer", "targetGear")

    tank = VehicleVectorEnv.from_stage(SAMPLES / "tank" / "tank.usda")
    assert tank.action_layout.names == ("accelerator", "brake0", "brake1", "thrust0", "thrust1")
    assert tank.single_action_space.low[3:].tolist() == [P.prop(P.TANK_CONTROLLER, "thrust0").range.lo] * 2

    robot = VehicleVectorEnv.from_stage(SAMPLES / "robot_base" / "robot_base.usda")
    space = robot.single_action_space
    assert robot.action_layout.names[:2] == ("driveTorque[0]", "driveTorque[1]") and space.shape == (12,)
    assert np.isinf(space.low[:4]).all() and np.isinf(space.high).all()  # the table checks no torque but the brake's
    assert space.low[4:8].tolist() == [P.prop(P.WHEEL_CONTROLLER, "brakeTorque").range.lo] * 4
    narrow = VehicleVectorEnv.from_stage(SAMPLES / "robot_base" / "robot_base.usda",
                                         action_bounds={"driveTorque": (-2.0, 2.0), "brakeTorque": (0.0, 5.0)})
    assert narrow.single_action_space.low[:8].tolist() == [-2.0] * 4 + [0.0] * 4
    with pytest.raises(ValueError, match="within"):
        VehicleVectorEnv.from_stage(CAR, action_bounds={"accelerator": (-1.0, 1.0)})
    with pytest.raises(ValueError, match="gears"):
        VehicleVectorEnv.from_stage(SAMPLES / "robot_base" / "robot_base.usda", gear=True)


def test_vehicles_of_different_kinds_are_refused_together():
    stage = preset_stage(car_spec(name="Car"), car_spec("none", name="Robot"))
    with pytest.raises(ValueError, match="one environment per kind"):
        VehicleVectorEnv.from_stage(stage)
    assert VehicleVectorEnv.from_stage(stage, vehicles=["/World/Robot"]).action_layout.kind == "wheels"


# a car and the wheel-controlled robot in the README's test command, every sample in the soak run
@pytest.mark.parametrize("sample", ["car/car.usda", "robot_base/robot_base.usda"] + [
    pytest.param(sample, marks=pytest.mark.soak)
    for sample in ("car_cm/car_cm.usda", "basic_car/basic_car.usda", "truck/truck.usda", "tank/tank.usda")])
def test_observations_stay_in_the_space_through_hard_driving(sample):
    """Full throttle at full lock, then random actions, then everything at once (brakes too), 100 steps each: every
    observation passes Gymnasium's checks."""
    # the robot's wheel controls, unbounded in the table: bounds of the size its 25 kg and 8 cm wheels take
    robot = {"driveTorque": (-20.0, 20.0), "brakeTorque": (0.0, 20.0), "steerAngle": (-0.6, 0.6)}
    env = VehicleVectorEnv.from_asset(SAMPLES / sample, 4, dt=1 / 30, max_episode_steps=100,
                                      action_bounds=robot if "robot" in sample else None)
    check_action_space(env.single_action_space)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_observation_space(env.single_observation_space)
    # the one warning: vehicles without an engine have an engine speed and a gear of 0, always (the columns stay,
    # so that every vehicle's observation has one layout)
    assert {str(w.message).count("maximum and minimum values are equal") for w in caught} <= {1}
    assert bool(caught) == (env.action_layout.kind == "wheels" or "basic" in sample)
    env.action_space.seed(1)
    obs, _ = env.reset(seed=1)
    check_obs(obs, env.observation_space, "reset")
    high = env.single_action_space.high
    brakes = np.array([name.startswith("brake") for name in env.action_layout.names])
    fastest = np.zeros(4)
    for step in range(300):
        one = np.where(brakes, 0.0, high) if step < 100 else high
        actions = env.action_space.sample() if 100 <= step < 200 else np.broadcast_to(one, env.action_space.shape)
        obs, reward, terminated, truncated, _ = env.step(actions)
        check_obs(obs, env.observation_space, "step")
        assert all(env.single_observation_space.contains(row) for row in obs), step
        fastest = np.maximum(fastest, np.linalg.norm(obs[:, :3], axis=1))
    assert (fastest > 1.0).all() and not env.frozen.any()


def test_vehicles_with_fewer_wheels_than_the_widest_report_zeros_for_the_missing_ones():
    """A car (4 wheels) and a truck with 6 wheels: one layout of 6 wheels, the car's last two columns 0."""
    stage = preset_stage(car_spec(name="Car"), preset_spec("truck", name="Truck", wheels=6))
    env = VehicleVectorEnv.from_stage(stage, max_episode_steps=None)
    sl = env.observation_slices
    assert env.simulator.params.paths == ("/World/Car", "/World/Truck") and sl["jounce"].stop - sl["jounce"].start == 6
    env.reset(seed=0)
    for _ in range(30):
        obs, *_ = env.step(np.array([[1.0, 0.0, 0.0, 0.3]] * 2, np.float32))
        check_obs(obs, env.observation_space, "step")
    for name in ("wheel_speed", "longitudinal_slip", "lateral_slip", "jounce"):
        columns = obs[:, sl[name]]
        assert (columns[0, 4:] == 0.0).all() and (columns[0, :4] != 0.0).any() and (columns[1] != 0.0).all(), name


def test_the_observation_is_the_telemetry_in_the_vehicle_frame_in_si():
    """On the centimetre car: velocities, slips and jounces as telemetry reports them, turned and converted."""
    env = VehicleVectorEnv.from_stage(SAMPLES / "car_cm" / "car_cm.usda", goal=[[5.0, 0.0, 0.0]])
    sl = env.observation_slices
    env.reset(seed=0)
    for _ in range(40):
        obs, *_ = env.step(np.array([[1.0, 0.0, 0.0, 0.4]], np.float32))
    t = env.simulator.telemetry()
    x, y, z, w = t["bodies"]["orientation"][0]
    # columns: the prim's axes (the float32 quaternion normalised: Gf.Rotation reads a real part rounded to 1.0 as no
    # turn at all, whatever the imaginary part says)
    R = np.array(Gf.Matrix3d(Gf.Rotation(Gf.Quatd(*map(float, (w, x, y, z))).GetNormalized())).GetTranspose())
    forward, lateral, up = R[:, 0], R[:, 1], R[:, 2]  # the sample's frame: X forward, Y left, Z up
    velocity = t["bodies"]["linearVelocity"][0] / 100.0  # cm/s -> m/s
    np.testing.assert_allclose(obs[0, sl["linear_velocity"]], [velocity @ forward, velocity @ lateral, velocity @ up],
                               rtol=1e-5, atol=1e-5)
    assert obs[0, sl["linear_velocity"]][0] > 1.0
    spin = t["bodies"]["angularVelocity"][0]
    np.testing.assert_allclose(obs[0, sl["angular_velocity"]], [spin @ forward, spin @ lateral, spin @ up], atol=1e-5)
    to_goal = np.array([5.0, 0.0, 0.0]) - t["bodies"]["position"][0] / 100.0
    np.testing.assert_allclose(obs[0, sl["goal_position"]], [to_goal @ forward, to_goal @ lateral, to_goal @ up],
                               atol=1e-4)
    np.testing.assert_allclose(env.position[0], t["bodies"]["position"][0] / 100.0, rtol=1e-6)
    assert obs[0, sl["engine_speed"]][0] == np.float32(t["vehicles"]["engineRotationSpeed"][0])
    assert obs[0, sl["gear"]][0] == t["vehicles"]["currentGear"][0] >= 1
    assert np.array_equal(obs[0, sl["longitudinal_slip"]], t["wheels"]["tireLongitudinalSlip"][0])
    assert np.array_equal(obs[0, sl["lateral_slip"]], t["wheels"]["tireLateralSlip"][0])
    assert np.any(obs[0, sl["lateral_slip"]] != 0.0)  # it is turning
    np.testing.assert_allclose(obs[0, sl["jounce"]], t["wheels"]["suspensionJounce"][0] / 100.0, rtol=1e-6)
    assert np.array_equal(obs[0, sl["wheel_speed"]], env.simulator.state.rotation_speed[0])


def test_copies_of_an_asset_are_the_asset_each():
    one = VehicleVectorEnv.from_stage(CAR)
    many = VehicleVectorEnv.from_asset(CAR, 5)
    assert many.num_envs == 5 and many.simulator.params.paths[4] == "/World/Car[4]"
    a = np.array([[0.8, 0.0, 0.0, 0.1]], np.float32)
    for _ in range(30):
        single, *_ = one.step(a)
        fleet, *_ = many.step(np.repeat(a, 5, axis=0))
    assert all(np.array_equal(row, single[0]) for row in fleet)
    with pytest.raises(ValueError, match="vehicle="):
        VehicleVectorEnv.from_asset(preset_stage(car_spec(name="A"), car_spec(name="B")), 2)


# -- the Gymnasium API

def random_start(rng: np.random.Generator, rows: np.ndarray):
    """Spawn within 2 m of the origin, any heading."""
    position = np.zeros((rows.size, 3))
    position[:, :2] = rng.uniform(-2.0, 2.0, (rows.size, 2))
    yaw = rng.uniform(-np.pi, np.pi, rows.size)
    return position, np.stack([np.zeros_like(yaw), np.zeros_like(yaw), np.sin(yaw / 2), np.cos(yaw / 2)], axis=1)


def random_goal(rng: np.random.Generator, rows: np.ndarray) -> np.ndarray:
    return np.concatenate([rng.uniform(-20.0, 20.0, (rows.size, 2)), np.zeros((rows.size, 1))], axis=1)


def rollout(env, seed: int, steps: int) -> list:
    env.action_space.seed(seed)
    out = [env.reset(seed=seed)]
    for _ in range(steps):
        out.append(env.step(env.action_space.sample()))
    return out


def test_the_same_seed_gives_the_same_episodes_and_another_seed_others():
    def make():
        return VehicleVectorEnv.from_asset(CAR, 6, spawn=random_start, goal=random_goal, max_episode_steps=7)

    first, second = rollout(make(), 3, 20), rollout(make(), 3, 20)  # across two autoresets
    assert data_equivalence(first, second, exact=True)
    env = make()
    assert data_equivalence(rollout(env, 3, 20), first, exact=True)  # reset(seed=) also restarts a used one
    other = rollout(env, 4, 20)
    assert not np.array_equal(other[0][0], first[0][0])


def test_returned_data_is_new_every_call():
    """Gymnasium's rule for data a user keeps (a rollout buffer): no two calls return a shared object."""
    env = VehicleVectorEnv.from_asset(CAR, 3, max_episode_steps=2)
    calls = [env.reset(seed=0)] + [env.step(env.action_space.sample()) for _ in range(4)]  # across an autoreset
    calls.append(env.reset(seed=0))
    assert not any(data_shares_objects(a, b) for i, a in enumerate(calls) for b in calls[i + 1:])


def test_next_step_autoreset_starts_the_vehicle_over_on_the_step_after():
    # vehicle 0 ends after 3 steps (terminated), the others after 5 (the step limit)
    env = VehicleVectorEnv.from_asset(CAR, 3, spawn=random_start, max_episode_steps=5,
                                      termination=lambda e: (np.arange(e.num_envs) == 0) & (e.elapsed == 3))
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    stats = RecordEpisodeStatistics(env)  # Gymnasium's own episode bookkeeping, which reads the autoreset mode
    stats.reset(seed=5)
    throttle = np.tile(np.array([1.0, 0.0, 0.0, 0.0], np.float32), (3, 1))
    results = [stats.step(throttle) for _ in range(6)]
    terminated = np.array([r[2] for r in results])
    truncated = np.array([r[3] for r in results])
    assert terminated[:, 0].tolist() == [False, False, True, False, False, False]
    assert truncated[:, 1].tolist() == [False, False, False, False, True, False]
    assert not terminated[:, 1:].any() and not truncated[:, 0].any()
    obs, reward = results[3][0], results[3][1]
    assert reward[0] == 0.0 and reward[1] != 0.0  # vehicle 0's reset step: no reward, its action ignored
    assert np.array_equal(obs[0, :3], [0.0, 0.0, 0.0]) and obs[1, 0] > 0.0  # at rest again; the others drive on
    assert results[2][4]["episode"]["l"][0] == 3 and results[4][4]["episode"]["l"][1] == 5
    assert env.elapsed.tolist() == [2, 0, 0]  # vehicle 0: two steps into its second episode
    # vehicle 0's new start is a new spawn (the same seed, the same draws: the first episode's start came first)
    assert not np.allclose(env.position[0], env.position[1])


def test_next_step_autoreset_gives_the_first_observation_no_reward():
    """A reward that is never 0 (a bonus per step): the step that starts a vehicle over still gives it 0."""
    env = VehicleVectorEnv.from_asset(CAR, 2, max_episode_steps=2, reward=lambda e, actions: np.ones(e.num_envs))
    env.reset(seed=0)
    rewards = [env.step(np.zeros((2, 4), np.float32))[1].tolist() for _ in range(4)]
    assert rewards == [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0]]


def test_same_step_autoreset_reports_the_final_observation():
    env = VehicleVectorEnv.from_asset(CAR, 2, max_episode_steps=4, autoreset_mode=AutoresetMode.SAME_STEP)
    start, _ = env.reset(seed=0)
    throttle = np.tile(np.array([1.0, 0.0, 0.0, 0.0], np.float32), (2, 1))
    for _ in range(3):
        obs, _, _, truncated, info = env.step(throttle)
        assert info == {} and not truncated.any()
    obs, reward, terminated, truncated, info = env.step(throttle)
    assert truncated.all() and info["_final_obs"].all() and info["_final_info"].all()
    assert info["final_obs"][0][0] > 0.0 and np.array_equal(obs, start)  # the last one moving; the new one at rest
    assert (reward != 0.0).all()


def test_disabled_autoreset_resets_the_masked_vehicles():
    env = VehicleVectorEnv.from_asset(CAR, 3, max_episode_steps=None, autoreset_mode=AutoresetMode.DISABLED)
    start, _ = env.reset(seed=0)
    for _ in range(20):
        moving, *_ = env.step(np.tile(np.array([1.0, 0.0, 0.0, 0.0], np.float32), (3, 1)))
    obs, _ = env.reset(options={"reset_mask": np.array([False, True, False])})
    assert np.array_equal(obs[1], start[1]) and np.array_equal(obs[[0, 2]], moving[[0, 2]])
    assert env.elapsed.tolist() == [20, 0, 20]


def ground_mesh_stage() -> Usd.Stage:
    """The sample car on a 20 x 20 m square mesh instead of its ground plane."""
    stage = Usd.Stage.Open(str(CAR))
    stage.SetEditTarget(stage.GetSessionLayer())  # the sample's own layer, shared by every stage that opens it, stays
    stage.GetPrimAtPath("/World/GroundPlane").SetActive(False)
    mesh = UsdGeom.Mesh.Define(stage, "/World/Ground")
    mesh.CreatePointsAttr([(-10, -10, 0), (10, -10, 0), (10, 10, 0), (-10, 10, 0)])
    mesh.CreateFaceVertexCountsAttr([4])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 2, 3])
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    return stage


def test_flipped_frozen_and_off_the_ground_terminate():
    upside_down = [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]  # identity; half a turn about X
    stage = ground_mesh_stage()

    def spawn(rng, rows):
        # vehicle 0 as authored, 1 on its roof, 2 with its wheels just past the mesh's edge (x = 10), 3 as authored
        # (to be frozen)
        position = np.array([[0.0, 0.0, 0.55], [0.0, 0.0, 1.0], [11.8, 0.0, 0.55], [0.0, 0.0, 0.55]])[rows]
        return position, np.array([upside_down[0], upside_down[1], upside_down[0], upside_down[0]])[rows]

    env = VehicleVectorEnv.from_asset(stage, 4, spawn=spawn)
    env.reset(seed=0)
    env.simulator.state.linear_velocity[:, 3] = np.inf
    _, _, terminated, truncated, _ = env.step(np.zeros((4, 4), np.float32))
    assert terminated.tolist() == [False, True, False, True] and not truncated.any()
    assert env.frozen.tolist() == [False, False, False, True] and env.upright[1] < 0.0
    for _ in range(60):  # the one beyond the edge falls until it is a car's reach below the mesh
        _, _, terminated, _, _ = env.step(np.zeros((4, 4), np.float32))
        if terminated[2]:
            break
    reach = env._bounds.reach[2]
    assert terminated[2] and -reach - 0.5 < env.position[2][2] < -reach
    far = VehicleVectorEnv.from_asset(stage, 1, spawn=lambda rng, rows: ([[40.0, 0.0, 0.55]], None))
    assert far.step(np.zeros((1, 4), np.float32))[2][0]
    plane = VehicleVectorEnv.from_asset(CAR, 1, spawn=lambda rng, rows: ([[400.0, 0.0, 0.55]], None))
    assert not plane.step(np.zeros((1, 4), np.float32))[2][0]  # a ground plane has no edge


def test_without_ground_nothing_is_out_of_bounds():
    stage = Usd.Stage.Open(str(CAR))
    stage.SetEditTarget(stage.GetSessionLayer())  # the sample's own layer, shared by every stage that opens it, stays
    stage.GetPrimAtPath("/World/GroundPlane").SetActive(False)
    env = VehicleVectorEnv.from_asset(stage, 2)
    for _ in range(30):
        _, _, terminated, _, _ = env.step(np.zeros((2, 4), np.float32))
    assert env.position[:, 2].max() < -0.5 and not terminated.any()  # falling, with nothing to fall off


# -- end to end

@pytest.mark.soak  # about 6 s: the README's test command has a 3-minute budget
def test_a_linear_policy_learns_to_hold_a_speed():
    """Random search over a linear policy (accelerator and brake from the forward speed), 16 cars each trying a
    perturbation for an episode of 1 s, 150 updates: the mean speed-tracking reward goes from standing still's 0 to
    well above (about 8 s on one core)."""
    target, steps, n = 2.0, 20, 16
    env = RecordEpisodeStatistics(VehicleVectorEnv.from_asset(CAR, n, dt=1 / 20, reward=speed_tracking(target),
                                                              max_episode_steps=steps))
    speed = env.unwrapped.observation_slices["linear_velocity"].start

    def episode(theta: np.ndarray) -> np.ndarray:
        obs, _ = env.reset(seed=0)
        for _ in range(steps):
            features = np.stack([np.ones(n), obs[:, speed] / target], axis=1)
            actions = np.zeros((n, 4), np.float32)
            actions[:, :2] = np.einsum("nij,nj->ni", theta, features)
            obs, _, _, truncated, info = env.step(actions)
        assert truncated.all()
        return info["episode"]["r"] / steps

    rng = np.random.default_rng(0)
    theta = np.zeros((2, 2))
    before = episode(np.broadcast_to(theta, (n, 2, 2))).mean()
    for _ in range(150):
        delta = rng.standard_normal((n // 2, 2, 2))
        returns = episode(np.concatenate([theta + 0.3 * delta, theta - 0.3 * delta]))
        step = np.einsum("k,kij->ij", returns[: n // 2] - returns[n // 2:], delta)
        theta = theta + 0.3 / (n // 2 * returns.std() + 1e-8) * step
    after = episode(np.broadcast_to(theta, (n, 2, 2)))
    assert before == pytest.approx(0.0, abs=0.01)
    assert after.mean() > 0.5 and (after == after[0]).all()  # one policy, the same for every car
