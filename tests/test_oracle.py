"""run_ovphysx: trace layout, controls, vehicle selection and clear errors from real ovphysx runs."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from physxvehicle_usd.oracle import TELEMETRY, OracleError, run_ovphysx

pytestmark = pytest.mark.ovphysx

CAR = Path(__file__).resolve().parent.parent / "samples" / "car" / "car.usda"
VEHICLE = "/World/Car"
DT = 1.0 / 60.0
STEPS = 12

SCALARS = {
    "vehicles": ("engineRotationSpeed", "currentGear"),
    "wheels": ("rotationSpeed", "rotationAngle", "wheelSteerAngle", "suspensionJounce", "tireFriction",
               "tireLongitudinalSlip", "tireLateralSlip", "isOnGround"),
}
VECTORS = {
    "wheels": {"suspensionForce": 3, "tireForce": 3, "position": 3, "orientation": 4},
    "bodies": {"position": 3, "orientation": 4, "linearVelocity": 3, "angularVelocity": 3},
}


@pytest.fixture(scope="module")
def short_run() -> dict:
    return run_ovphysx(CAR, STEPS, DT, controls={"*": {"accelerator": 1.0}})


@pytest.fixture(scope="module")
def convoy(tmp_path_factory) -> Path:
    """The sample car plus two copies of it, 5 m apart sideways, authored as a new layer."""
    path = tmp_path_factory.mktemp("convoy") / "convoy.usda"
    stage = Usd.Stage.CreateNew(str(path))
    stage.GetRootLayer().subLayerPaths.append(str(CAR))
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    for index in (1, 2):
        copy = stage.DefinePrim(f"/World/Car{index}")
        copy.GetReferences().AddInternalReference(Sdf.Path(VEHICLE))
        copy.GetAttribute("xformOp:translate").Set(Gf.Vec3f(0, 5 * index, 0.55))
    stage.GetRootLayer().Save()
    return path


def test_trace_has_one_entry_per_step(short_run):
    assert short_run["steps"] == STEPS
    assert short_run["dt"] == pytest.approx(DT)
    assert short_run["recorded_steps"] == list(range(1, STEPS + 1))
    assert list(short_run["vehicles"]) == list(short_run["bodies"]) == [VEHICLE]
    assert len(short_run["wheels"]) == 4
    for kind, names in SCALARS.items():
        for path, trace in short_run[kind].items():
            for name in names:
                assert trace[name].shape == (STEPS,), (kind, path, name)
    for kind, widths in VECTORS.items():
        for path, trace in short_run[kind].items():
            for name, width in widths.items():
                assert trace[name].shape == (STEPS, width), (kind, path, name)


def test_trace_types_and_what_ovphysx_could_not_read(short_run):
    wheel = next(iter(short_run["wheels"].values()))
    assert wheel["isOnGround"].dtype == bool
    assert np.issubdtype(short_run["vehicles"][VEHICLE]["currentGear"].dtype, np.integer)
    assert short_run["unavailable"] == {"vehicles": [], "wheels": [], "bodies": []}
    for kind in ("vehicles", "wheels", "bodies"):
        assert set(short_run[kind][next(iter(short_run[kind]))]) == set(TELEMETRY[kind])
    assert short_run["load_s"] > 0 and short_run["step_s"] > 0
    quaternion = short_run["bodies"][VEHICLE]["orientation"]
    np.testing.assert_allclose(np.linalg.norm(quaternion, axis=1), 1.0, atol=1e-4)


def test_record_every_keeps_the_last_step_and_telemetry_picks_attributes(convoy):
    trace = run_ovphysx(convoy, 10, DT, controls={"*": {"accelerator": 1.0}}, record_every=4,
                        telemetry={"bodies": ["position"], "vehicles": []})
    assert trace["recorded_steps"] == [4, 8, 10]
    assert len(trace["vehicles"]) == 3 and len(trace["wheels"]) == 12
    for body in trace["bodies"].values():
        assert set(body) == {"position"}
        assert body["position"].shape == (3, 3)
        assert body["position"][-1, 0] > body["position"][0, 0]
    assert all(vehicle == {} for vehicle in trace["vehicles"].values())  # an empty list: none
    for wheel in trace["wheels"].values():  # a kind left out: all of it
        assert set(wheel) == set(TELEMETRY["wheels"])
    assert trace["unavailable"] == {"vehicles": [], "wheels": [], "bodies": []}


def test_controls_and_selection_address_single_vehicles(convoy):
    steps = 60
    steer = np.r_[np.zeros(steps // 2), np.ones(steps - steps // 2)]
    trace = run_ovphysx(convoy, steps, DT, vehicles=["/World/Car1", "/World/Car2"],
                        controls={"/World/Car2": {"steer": steer, "accelerator": 0.0},
                                  "*": {"accelerator": 1.0}})
    assert list(trace["vehicles"]) == ["/World/Car1", "/World/Car2"]
    assert all(path.startswith(("/World/Car1/", "/World/Car2/")) for path in trace["wheels"])
    moved = trace["bodies"]["/World/Car1"]["position"]
    parked = trace["bodies"]["/World/Car2"]["position"]
    assert moved[-1, 0] - moved[0, 0] > 1.0
    assert abs(parked[-1, 0] - parked[0, 0]) < 0.01
    # The steer input reaches the front wheels of the second car only, once it is set.
    front_left = trace["wheels"]["/World/Car2/FrontLeftWheel"]["wheelSteerAngle"]
    assert np.allclose(front_left[: steps // 2 - 1], 0.0)
    assert front_left[-1] > 0.3
    assert np.allclose(trace["wheels"]["/World/Car2/RearLeftWheel"]["wheelSteerAngle"], 0.0)
    assert np.allclose(trace["wheels"]["/World/Car1/FrontLeftWheel"]["wheelSteerAngle"], 0.0)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_unreadable_file_is_an_oracle_error(tmp_path):
    broken = _write(tmp_path, "broken.usda", '#usda 1.0\ndef Xform "World" {\n  def Xform "Car" (\n')
    with pytest.raises(OracleError, match="could not load"):
        run_ovphysx(broken, 2, DT)


def test_missing_file_is_an_oracle_error(tmp_path):
    with pytest.raises(OracleError, match="does not exist"):
        run_ovphysx(tmp_path / "nowhere.usda", 2, DT)


def test_stage_without_vehicles_is_an_oracle_error(tmp_path):
    empty = _write(tmp_path, "empty.usda", '#usda 1.0\ndef Xform "World"\n{\n    def PhysicsScene "Scene"\n    {\n    }\n}\n')
    with pytest.raises(OracleError, match="no vehicle"):
        run_ovphysx(empty, 2, DT)


def test_rejected_vehicle_brings_the_physx_message(tmp_path):
    text = CAR.read_text()
    assert "float physxVehicleWheel:radius = 0.343\n" in text
    no_radius = _write(tmp_path, "no_radius.usda", text.replace("float physxVehicleWheel:radius = 0.343\n", ""))
    with pytest.raises(OracleError, match="physxVehicleWheel:radius"):
        run_ovphysx(no_radius, 2, DT)


def test_unknown_vehicle_is_an_oracle_error():
    with pytest.raises(OracleError, match="/World/Nope"):
        run_ovphysx(CAR, 2, DT, vehicles=["/World/Nope"])


@pytest.mark.parametrize("controls, message", [
    ({"*": {"throttle": 1.0}}, "not writable"),
    ({"*": {"accelerator": [1.0, 1.0, 1.0]}}, "expected a number or 2 values"),
])
def test_bad_controls_are_refused_before_running(controls, message):
    with pytest.raises(OracleError, match=message):
        run_ovphysx(CAR, 2, DT, controls=controls)


@pytest.mark.parametrize("telemetry, message", [
    ({"chassis": ["position"]}, "not one of"),
    ({"wheels": ["rotationSpeed", "slipAngle"]}, r"\['slipAngle'\] is not recorded"),
])
def test_unknown_telemetry_is_refused_before_running(telemetry, message):
    with pytest.raises(OracleError, match=message):
        run_ovphysx(CAR, 2, DT, telemetry=telemetry)


def test_value_physx_refuses_is_an_oracle_error():
    with pytest.raises(OracleError, match=r"\[0, 1\]"):
        run_ovphysx(CAR, 2, DT, controls={VEHICLE: {"accelerator": 2.0}})


def test_wheel_controls_on_a_driven_vehicle_are_refused():
    with pytest.raises(OracleError, match="driveTorque"):
        run_ovphysx(CAR, 2, DT, controls={"*": {"driveTorque": 100.0}})


def test_a_run_past_its_timeout_is_an_oracle_error():
    with pytest.raises(OracleError, match="did not finish"):
        run_ovphysx(CAR, 100_000, DT, timeout=0.5)


def test_mixed_drives_and_raw_wheel_controls():
    """ovphysx's own four-car scene: basic, standard, tank and a car driven by raw wheel torques."""
    scene = Path(importlib.util.find_spec("ovphysx").origin).parent / "samples" / "data" / "vehicle_read_write.usda"
    steps = 5
    trace = run_ovphysx(scene, steps, DT, controls={"/World/Standard": {"accelerator": 0.5},
                                                   "/World/Raw/FrontLeftWheel": {"driveTorque": 100.0}})
    assert sorted(trace["vehicles"]) == ["/World/Basic", "/World/Raw", "/World/Standard", "/World/Tank"]
    assert len(trace["wheels"]) == 16
    # Engine telemetry exists for the standard drives only; it is left out, not zero-filled, elsewhere.
    assert trace["vehicles"]["/World/Basic"] == {}
    assert trace["vehicles"]["/World/Raw"] == {}
    assert trace["vehicles"]["/World/Standard"]["engineRotationSpeed"].shape == (steps,)
    assert trace["vehicles"]["/World/Standard"]["engineRotationSpeed"][-1] > 0
    driven = np.abs(trace["wheels"]["/World/Raw/FrontLeftWheel"]["rotationSpeed"]).max()
    free = np.abs(trace["wheels"]["/World/Raw/FrontRightWheel"]["rotationSpeed"]).max()
    assert driven > 10 * free
