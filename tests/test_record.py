"""The record layer: time samples that replay the simulated motion over the input stage."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import stage_over_sample
from pxr import Gf, Sdf, Usd, UsdGeom

import physxvehicle_usd  # noqa: F401 - registers the vehicle schemas
from physxvehicle_usd import properties as P
from physxvehicle_usd import simulate
from physxvehicle_usd.outputs.record import OPS, matrix_to_quat, quat_mul, record_layer, rotation_rows, write_record

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "car" / "car.usda"
DT = 1.0 / 60.0
CAR = "/World/Car"
STEPS = 30


def driven_stage(path: Path, author=None) -> Path:
    """The sample car at full throttle and half steer (so the wheels roll, steer and the body turns)."""
    def drive(stage: Usd.Stage) -> None:
        car = stage.OverridePrim(CAR)
        car.CreateAttribute(P.full_name(P.CONTROLLER, "accelerator"), Sdf.ValueTypeNames.Float).Set(1.0)
        car.CreateAttribute(P.full_name(P.CONTROLLER, "steer"), Sdf.ValueTypeNames.Float).Set(0.5)
        if author:
            author(stage)
    return stage_over_sample(path, drive)


def recorded(tmp_path: Path, stage_file: Path, steps: int = STEPS) -> tuple[simulate.SimulationResult, Usd.Stage, Path]:
    result = simulate.run(stage_file, steps, DT, outputs=("record", "trace"))
    out = tmp_path / "playback" / "record.usda"
    write_record(result, result.loaded.stage, str(stage_file), out)
    return result, Usd.Stage.Open(str(out)), out


def world(stage: Usd.Stage, path: str, time: float) -> Gf.Matrix4d:
    return UsdGeom.Xformable(stage.GetPrimAtPath(path)).ComputeLocalToWorldTransform(Usd.TimeCode(time))


def test_record_replays_body_and_wheel_positions_of_every_step(tmp_path):
    result, played, _ = recorded(tmp_path, driven_stage(tmp_path / "car.usda"))
    bodies, wheels = result.arrays["bodies"], result.arrays["wheels"]
    for k in (1, STEPS // 2, STEPS):
        body = world(played, CAR, k)
        assert np.allclose(body.ExtractTranslation(), bodies["position"][k - 1, 0], atol=1e-9)
        q = body.ExtractRotationQuat()
        xyzw = np.array([*q.GetImaginary(), q.GetReal()])
        assert min(np.abs(xyzw - bodies["orientation"][k - 1, 0]).max(),
                   np.abs(xyzw + bodies["orientation"][k - 1, 0]).max()) < 1e-6
        for w, wheel_path in enumerate(result.wheel_paths[0]):
            assert np.allclose(world(played, wheel_path, k).ExtractTranslation(), wheels["position"][k - 1, 0, w], atol=1e-9)
    assert abs(bodies["position"][-1, 0, 1]) > 1e-3  # the run did turn: a yaw the record must carry


def test_record_starts_as_authored_and_covers_the_run(tmp_path):
    source = driven_stage(tmp_path / "car.usda")
    result, played, out = recorded(tmp_path, source)
    authored = Usd.Stage.Open(str(source))
    for path in (CAR, *result.wheel_paths[0]):
        assert np.allclose(np.array(world(played, path, 0)), np.array(world(authored, path, Usd.TimeCode.Default())), atol=1e-6)
        prim = played.GetPrimAtPath(path)
        assert list(UsdGeom.Xformable(prim).GetXformOpOrderAttr().Get()) == list(OPS)
        assert prim.GetAttribute(OPS[0]).GetTimeSamples() == [float(k) for k in range(STEPS + 1)]
    assert (played.GetStartTimeCode(), played.GetEndTimeCode()) == (0.0, float(STEPS))
    assert played.GetTimeCodesPerSecond() == pytest.approx(60.0) and played.GetFramesPerSecond() == pytest.approx(60.0)
    # the root layer decides units and axes: copied from the input
    assert UsdGeom.GetStageUpAxis(played) == UsdGeom.Tokens.z and UsdGeom.GetStageMetersPerUnit(played) == 1.0
    # the input is sublayered by a path relative to the record, and nothing of it is copied
    layer = Sdf.Layer.FindOrOpen(str(out))
    assert layer.subLayerPaths[0] == "../car.usda"
    assert not layer.GetPrimAtPath("/World/GroundPlane")


def test_wheels_roll_and_steer_in_the_record(tmp_path):
    result, played, _ = recorded(tmp_path, driven_stage(tmp_path / "car.usda"))
    front_left = result.wheel_paths[0][0]
    start = world(played, front_left, 0).ExtractRotationQuat()
    end = world(played, front_left, STEPS).ExtractRotationQuat()
    body = world(played, CAR, STEPS).ExtractRotationQuat()
    # relative to the body the wheel has turned by more than the steer alone: it rolled
    relative = (body.GetInverse() * end)
    angle = 2 * np.degrees(np.arccos(min(1.0, abs(relative.GetReal()))))
    steer = abs(np.degrees(result.arrays["wheels"]["wheelSteerAngle"][-1, 0, 0]))
    assert steer > 1.0 and angle > steer + 1.0
    assert start.GetReal() == pytest.approx(1.0)


def test_a_cambered_wheel_is_recorded_with_its_camber(tmp_path):
    """A constant compliance camber of 10 degrees on the front-left wheel: the record turns that wheel about the
    forward axis by it (the car stands still, so neither steer nor rolling adds to it) as the telemetry does."""
    camber = np.radians(10.0)

    def cambered(stage: Usd.Stage) -> None:  # (the sample's wheels have the compliance API)
        stage.OverridePrim(f"{CAR}/FrontLeftWheel").CreateAttribute(
            P.full_name(P.COMPLIANCE, "wheelCamberAngle"), Sdf.ValueTypeNames.Float2Array).Set([Gf.Vec2f(0.0, camber)])
    result, played, _ = recorded(tmp_path, stage_over_sample(tmp_path / "car.usda", cambered), steps=2)
    front_left = result.wheel_paths[0][0]
    relative = world(played, CAR, 2).ExtractRotationQuat().GetInverse() * \
        world(played, front_left, 2).ExtractRotationQuat()
    assert 2 * np.arccos(min(1.0, abs(relative.GetReal()))) == pytest.approx(camber, abs=1e-4)
    axis = np.array(relative.GetImaginary()) / np.linalg.norm(relative.GetImaginary())
    assert abs(axis[0]) == pytest.approx(1.0, abs=1e-3)  # about the sample's forward axis (x)
    recorded_q = world(played, front_left, 2).ExtractRotationQuat()
    telemetry_q = result.arrays["wheels"]["orientation"][1, 0, 0]
    assert abs(np.dot([*recorded_q.GetImaginary(), recorded_q.GetReal()], telemetry_q)) == pytest.approx(1.0, abs=1e-6)


def test_vehicle_under_a_moved_parent_is_recorded_in_its_parent_frame(tmp_path):
    def move_world(stage: Usd.Stage) -> None:
        xform = UsdGeom.Xformable(stage.OverridePrim("/World"))
        xform.AddTranslateOp(opSuffix="moved").Set(Gf.Vec3d(5.0, -3.0, 0.0))
        xform.AddRotateZOp(opSuffix="moved").Set(30.0)
    result, played, _ = recorded(tmp_path, driven_stage(tmp_path / "moved.usda", move_world), steps=10)
    position = result.arrays["bodies"]["position"][-1, 0]
    assert np.linalg.norm(position[:2]) > 3.0  # the car starts where the moved world put it
    assert np.allclose(world(played, CAR, 10).ExtractTranslation(), position, atol=1e-9)
    wheel = result.wheel_paths[0][3]
    assert np.allclose(world(played, wheel, 10).ExtractTranslation(), result.arrays["wheels"]["position"][-1, 0, 3], atol=1e-9)


def test_record_lines_up_with_a_drive_cycle_that_starts_later(tmp_path):
    def late_start(stage: Usd.Stage) -> None:
        stage.SetTimeCodesPerSecond(24)
        stage.SetStartTimeCode(48)  # 2 s
    result, played, out = recorded(tmp_path, driven_stage(tmp_path / "late.usda", late_start), steps=6)
    # 2 s at 60 codes per second
    assert (played.GetStartTimeCode(), played.GetEndTimeCode()) == (120.0, 126.0)
    assert np.allclose(world(played, CAR, 126).ExtractTranslation(), result.arrays["bodies"]["position"][-1, 0], atol=1e-9)


def test_record_needs_the_motion_recorded(tmp_path):
    result = simulate.run(SAMPLE, 2, DT, outputs=())
    with pytest.raises(ValueError, match="record"):
        record_layer(result, result.loaded.stage, str(SAMPLE), str(tmp_path / "x.usda"))


def test_quaternion_and_matrix_helpers_agree():
    rng = np.random.default_rng(7)
    q = rng.normal(size=(50, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    back = matrix_to_quat(rotation_rows(q))
    assert np.allclose(np.abs(np.sum(back * q, axis=1)), 1.0, atol=1e-9)  # the same rotation (q or -q)
    for qi in q[:5]:
        gf = Gf.Matrix4d().SetRotate(Gf.Quatd(qi[3], *qi[:3]))
        assert np.allclose(np.array(gf)[:3, :3], rotation_rows(qi), atol=1e-12)
    # composition matches applying the rotations one after the other (row vectors: v @ R(b) @ R(a) for a*b)
    a, b = q[0], q[1]
    assert np.allclose(rotation_rows(quat_mul(a, b)), rotation_rows(b) @ rotation_rows(a), atol=1e-12)


@pytest.mark.parametrize("dt, fps", [("0.016666667", "60"), ("0.0166667", "60"), ("0.01", "100"), ("0.0416667", "24"),
                                     ("0.007", "142.857")])
def test_record_rate_is_what_the_typed_dt_means(tmp_path, capfd, dt, fps):
    from physxvehicle_usd.cli import main

    out = tmp_path / "run.usda"
    main(["simulate", str(SAMPLE), "--steps", "3", "--dt", dt, "--record", str(out)])
    text = out.read_text()
    assert f"timeCodesPerSecond = {fps}\n" in text and f"framesPerSecond = {fps}\n" in text, text[:400]


def ridge_stage(path: Path) -> Path:
    """The sample car rolling at 3 m/s into a box 0.7 m high between its wheel tracks, its nose 0.2 m from it."""
    def ridge(stage: Usd.Stage) -> None:
        from pxr import UsdPhysics

        stage.OverridePrim(CAR).CreateAttribute("physics:velocity", Sdf.ValueTypeNames.Vector3f).Set((3.0, 0.0, 0.0))
        cube = UsdGeom.Cube.Define(stage, "/World/Ridge")
        cube.CreateSizeAttr(1.0)
        cube.AddTranslateOp().Set(Gf.Vec3d(2.04 + 0.2 + 0.2, 0.0, 0.35))
        cube.AddScaleOp().Set(Gf.Vec3f(0.4, 0.6, 0.7))
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    return stage_over_sample(path, ridge)


def test_a_car_stopped_by_a_ridge_is_traced_touching_it_and_played_back_standing(tmp_path):
    result, played, _ = recorded(tmp_path, ridge_stage(tmp_path / "ridge.usda"), steps=30)
    bodies = result.arrays["bodies"]
    count = bodies["contactCount"][:, 0]
    first = int(np.argmax(count > 0))
    assert 0 < first < 10 and count[first] >= 1  # the nose reaches the ridge within 0.2 m at 3 m/s
    assert np.allclose(bodies["contactNormals"][first, 0, :count[first]], [-1.0, 0.0, 0.0], atol=1e-2)
    assert (np.abs(bodies["contactPoints"][first, 0, :count[first], 0] - 2.24) < 0.03).all()  # on the ridge's face
    assert bodies["contactImpulses"][first, 0, :count[first]].sum() > 0.0
    assert (bodies["contactImpulses"][first, 0, count[first]:] == 0.0).all()
    assert abs(bodies["linearVelocity"][-1, 0, 0]) < 0.05  # stopped
    x = [world(played, CAR, k).ExtractTranslation()[0] for k in range(20, 31)]
    assert max(x) - min(x) < 0.01 and max(x) < 0.25  # played back standing against the ridge
    trace = result.trace["bodies"][CAR]
    assert trace["contactCount"][first] == count[first] and len(trace["contactPoints"][first]) == 16


def test_the_playback_of_the_ridge_sample_shows_the_car_stopped_against_the_ridge(tmp_path):
    """samples/car/ridge.usda recorded for 3 s: the played-back car stands still from 2 s on (its chassis against
    the ridge), where the run left it, while its wheels still spin."""
    stage_file = SAMPLE.parent / "ridge.usda"
    result, played, _ = recorded(tmp_path, stage_file, steps=180)
    at = {k: world(played, CAR, k).ExtractTranslation() for k in range(120, 181)}
    assert max((at[k] - at[180]).GetLength() for k in at) < 1e-3
    assert np.allclose(at[180], result.arrays["bodies"]["position"][-1, 0], atol=1e-9)
    assert at[180][0] > 3.9 and (at[180] - world(played, CAR, 0).ExtractTranslation()).GetLength() > 3.9
    wheel = f"{CAR}/FrontLeftWheel"
    turns = [world(played, wheel, k).ExtractRotationQuat() for k in (170, 180)]
    assert abs(Gf.Dot(turns[0], turns[1])) < 0.999  # the wheel turns between two frames a sixth of a second apart
