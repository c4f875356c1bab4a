"""Every preset drives in real PhysX (ovphysx), in metres: one short run each.

Half a second at rest, then two seconds of input at 60 Hz: full throttle for the cars and the truck,
opposite track thrusts for the tank, a drive torque on every wheel of the robot base.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from conftest import two_at_a_time

from physxvehicle_usd.author import preset_spec, save_vehicle
from physxvehicle_usd.oracle import run_ovphysx

# about 20 s of CPU (five ovphysx runs): soak, which CI runs, so that the README's test command keeps its 3 minutes
pytestmark = [pytest.mark.ovphysx, pytest.mark.soak]

DT = 1.0 / 60.0
REST, DRIVE = 30, 120
FORWARD = np.array([1.0, 0.0, 0.0])  # Z up, X forward
AUTOMATIC = 255
ROBOT_WHEEL_TORQUE = 1.0  # N*m on each wheel
TELEMETRY = {"vehicles": [], "wheels": ["position", "isOnGround"], "bodies": ["position", "orientation"]}  # checked


def _input(value: float) -> np.ndarray:
    return np.r_[np.zeros(REST), np.full(DRIVE, value)]


def _controls(preset: str, vehicle: str) -> dict:
    if preset == "robot_base":
        return {"*": {"driveTorque": _input(ROBOT_WHEEL_TORQUE)}}
    if preset == "tank":
        return {vehicle: {"accelerator": _input(1.0), "thrust0": _input(1.0), "thrust1": _input(-1.0),
                          "targetGear": AUTOMATIC}}
    gear = AUTOMATIC if preset_spec(preset).drive == "standard" else 1
    return {vehicle: {"accelerator": _input(1.0), "targetGear": gear}}


PRESETS = ["car", "basic_car", "truck", "tank", "robot_base"]


@pytest.fixture(scope="module")
def traces(tmp_path_factory) -> dict[str, dict]:
    """Every preset's ovphysx run, two at a time."""
    runs = {}
    for preset in PRESETS:
        spec = preset_spec(preset)
        path = tmp_path_factory.mktemp(preset) / f"{preset}.usda"
        save_vehicle(spec, path)
        runs[preset] = partial(run_ovphysx, path, REST + DRIVE, DT, controls=_controls(preset, f"/World/{spec.name}"),
                               telemetry=TELEMETRY)
    return two_at_a_time(runs)


@pytest.fixture(params=PRESETS)
def run(request, traces):
    preset = request.param
    return preset, f"/World/{preset_spec(preset).name}", traces[preset]


def _yaw_deg(quat_xyzw: np.ndarray) -> float:
    x, y, z, w = quat_xyzw
    return float(np.degrees(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))))


def test_preset_rests_in_place_on_its_wheels(run):
    preset, vehicle, trace = run
    assert list(trace["vehicles"] or [vehicle]) == [vehicle]
    positions = trace["bodies"][vehicle]["position"]
    assert np.linalg.norm(positions[REST - 1] - positions[0]) < 0.01
    radius = preset_spec(preset).resolved_wheel_radius
    for path, wheel in trace["wheels"].items():
        assert wheel["position"][REST - 1, 2] == pytest.approx(radius, abs=0.02 * radius + 0.002), path
    assert not [line for line in trace["log"] if line.startswith("[Error]")]


def test_preset_responds_to_its_input(run):
    preset, vehicle, trace = run
    body = trace["bodies"][vehicle]
    travel = body["position"][-1] - body["position"][REST - 1]
    along = float(travel @ FORWARD)
    yaw = _yaw_deg(body["orientation"][-1]) - _yaw_deg(body["orientation"][REST - 1])
    print(f"{preset}: {along:.2f} m forward, {yaw:.1f} deg yaw in {DRIVE * DT:g} s")
    if preset == "tank":
        assert abs(yaw) > 20.0          # opposite thrusts turn it on the spot
        assert np.linalg.norm(travel) < 1.0
    else:
        assert along > 2.0
        assert abs(yaw) < 2.0
    for path, wheel in trace["wheels"].items():
        assert wheel["isOnGround"][-1], path
