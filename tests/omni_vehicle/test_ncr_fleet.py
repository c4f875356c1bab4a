"""NVIDIA's tests of the nonlinear command responses (drive, brakes, steer), each phase a car of its own started at the
phase's speed with its wheels rolling (ours; ovphysx starts them at rest), in our simulator and in ovphysx. ovphysx
0.7 does not read PhysxVehicleNonlinearCommandResponseAPI (read/readings.py's OVPHYSX_READING)."""
from __future__ import annotations

import pytest
from edits import chain, on_vehicle
from factory import BASIC, FRONT_LEFT, MAX_STEER, Options
from fleets import backend_fixture, fleet_fixture
from harness import DT, Entry, Fleet

from physxvehicle_usd import properties as P

SP0, SP1 = 0.5, 2.0


def car() -> Options:
    return Options(drive=BASIC, shared=False, wheel_shapes=False)


def _response(instance: str, first: float, second: float, second_response: float):
    """Two command values: `first` answered with 0 at every speed, `second` with `second_response` at SP0 falling to
    0 at SP1."""
    return chain(on_vehicle(P.NCR, "commandValues", [first, second], instance),
                 on_vehicle(P.NCR, "speedResponsesPerCommandValue", [0, 1], instance),
                 on_vehicle(P.NCR, "speedResponses", [(0.0, 0.0), (SP0, second_response), (SP1, 0.0)], instance))


def _apply(instance: str, first: float, second: float, second_response: float):
    def apply(stage, c):
        stage.GetPrimAtPath(c.path).ApplyAPI(P.NCR, instance)
        _response(instance, first, second, second_response)(stage, c)
    return apply


def _entries() -> list[Entry]:
    e = []
    drive = _apply("drive", 0.2, 0.21, 1.0)
    for name, accelerator, speed in (("Rest", 0.9 * 0.2, 0.0), ("Low", 0.9 * 0.2, SP0 * 0.9),
                                     ("Mid", 1.1 * 0.21, SP0 * 0.5), ("High", 1.1 * 0.21, SP1 * 1.5)):
        e.append(Entry(f"Drive{name}", car(), controls={"accelerator": accelerator}, speed=speed, spin=bool(speed),
                       edit=drive))
    brakes = chain(_apply("brakes0", 0.5, 0.51, 1.0), _apply("brakes1", 0.5, 0.51, 1.0))
    for name, value, speed in (("Low", 0.9 * 0.5, SP0 * 0.9), ("Mid", 1.1 * 0.51, SP0 * 0.9),
                               ("High", 1.1 * 0.51, SP1 * 1.5)):
        for brake in ("brake0", "brake1"):
            for kind, edit in (("Plain", None), ("Response", brakes)):
                e.append(Entry(f"Brake{name}{brake}{kind}", car(), controls={brake: value}, speed=speed, spin=True,
                               edit=edit))
    steer = _apply("steer", 0.2, 0.21, 0.21)
    for name, value, speed in (("Rest", -0.9 * 0.2, 0.0), ("Low", -0.9 * 0.2, SP0 * 0.9),
                               ("Mid", -1.1 * 0.21, SP0 * 0.5), ("High", -1.1 * 0.21, SP1 * 1.5)):
        e.append(Entry(f"Steer{name}", car(), controls={"steer": value}, speed=speed, spin=bool(speed), edit=steer))
    return e


runs = fleet_fixture(lambda: Fleet(_entries(), 0.5))
NOT_READ = "ovphysx 0.7 does not read PhysxVehicleNonlinearCommandResponseAPI (the linear response applies): "
KNOWN = {("test_nonlinear_command_response_drive", "ovphysx"):
         NOT_READ + "below the first command value the car still drives, 0.0138 m in 0.5 s (NVIDIA's bound 1 mm)",
         ("test_nonlinear_command_response_brake", "ovphysx"):
         NOT_READ + "the car with the response brakes as the one without (0.00874 m/s after 0.1 s both; NVIDIA expects "
                    "10 % faster)",
         ("test_nonlinear_command_response_steer", "ovphysx"):
         NOT_READ + "steer -0.18 below the first command value turns the wheel -0.0998 rad (NVIDIA expects 0)"}

run = backend_fixture(KNOWN)


def _forward_speed(view, t: float) -> float:
    return float(view.bodies["linearVelocity"][view.step(t)][2])  # Z forward


def test_nonlinear_command_response_drive(run):
    assert run["DriveRest"].forward(0.5) == pytest.approx(0.0, abs=0.001)  # below the first command value: nothing
    assert _forward_speed(run["DriveLow"], 0.1) <= SP0 * 0.9
    assert _forward_speed(run["DriveMid"], 0.1) > SP0 * 0.5  # full response at low speed
    assert _forward_speed(run["DriveHigh"], 0.1) <= SP1 * 1.5  # none above SP1


def test_nonlinear_command_response_brake(run):
    for brake in ("brake0", "brake1"):
        def ends(name):
            return [_forward_speed(run[f"Brake{name}{brake}{kind}"], 0.1) for kind in ("Plain", "Response")]
        plain, response = ends("Low")
        assert response > plain * 1.1, (brake, plain, response)  # no braking response below the second value
        plain, response = ends("Mid")
        assert response == pytest.approx(plain, abs=plain * 0.01), (brake, plain, response)
        plain, response = ends("High")
        assert response > plain * 1.1, (brake, plain, response)


def test_nonlinear_command_response_steer(run):
    def angle(name):
        return float(run[name].wheel(FRONT_LEFT, "wheelSteerAngle", DT))
    assert angle("SteerRest") == pytest.approx(0.0, abs=0.0001)
    assert angle("SteerLow") == pytest.approx(0.0, abs=0.0001)
    assert angle("SteerMid") == pytest.approx(-0.21 * MAX_STEER, abs=0.0001)
    assert angle("SteerHigh") == pytest.approx(0.0, abs=0.0001)
