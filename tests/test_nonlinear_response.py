"""Nonlinear command responses (PhysxVehicleNonlinearCommandResponseAPI) as Omniverse applies them.

ovphysx 0.7 applies none of them, so the oracle cannot check these: the expected values here are worked out by
hand from each table, following the source:
- usdLoad/Vehicle.cpp parses the instances steer (with PhysxVehicleSteeringAPI or PhysxVehicleAckermannSteeringAPI),
  brakes0 / brakes1 (with that PhysxVehicleBrakesAPI instance), all on the vehicle prim, and drive on a basic
  drive's prim only (parseDriveBasic; parseDriveStandard reads none);
- VehicleGenerator.cpp hands them to PhysX vehicle2 (setNonlinearCommandResponseParams) for the brakes, the steering
  and the basic drive's throttle; an engine drive's throttle response is linear
  (PxVehicleEngineDriveThrottleCommandResponseLinearUpdate);
- PxVehicleNonLinearResponseCompute (VhCommandHelpers.cpp): a command at or below the first command value, or a
  table of one command value, takes the first graph; at or above the last, the last graph; in between, the two
  graphs that bracket it, interpolated linearly in the command. Each graph is interpolated linearly in the
  longitudinal speed and held at its end points (one point: that value at every speed). The result multiplies
  maxResponse and the wheel's multiplier. Steer: sign(steer) * response(|steer|), sign(0) = +1; Ackermann then
  overwrites its two wheels with the linear response while the steer is not 0.
"""
from __future__ import annotations

import numpy as np
import pytest
from stage_factory import add_vehicle, new_stage, set_velocity

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.runtime.vehicle2 import build_vehicle_params
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.batch import batch
from physxvehicle_usd.sim.commands import brake_torques, steer_angles, update_commands
from physxvehicle_usd.sim.drivetrain import differential_state
from physxvehicle_usd.sim.state import SimParams, initial_state

CAR = "/World/Car"
MAX_STEER = 0.5          # the factory car: PhysxVehicleSteeringAPI on wheels 0 and 1
MAX_BRAKE0 = 3600.0      # brakes0 on every wheel
MAX_BRAKE1 = 3000.0      # brakes1 on wheels 2 and 3

# steer: command 0.3 -> one point (0.2 at every speed); 0.7 -> (0, 0.6) (20, 0.3); 1.0 -> (5, 1.0) (10, 0.8) (30, 0.4)
STEER_TABLE = {"commandValues": [0.3, 0.7, 1.0], "speedResponsesPerCommandValue": [0, 1, 3],
               "speedResponses": [(0.0, 0.2), (0.0, 0.6), (20.0, 0.3), (5.0, 1.0), (10.0, 0.8), (30.0, 0.4)]}
# brakes0: command 0.5 -> (0, 0.4) (10, 0.2); 1.0 -> (0, 1.0) (20, 0.5)
BRAKES0_TABLE = {"commandValues": [0.5, 1.0], "speedResponsesPerCommandValue": [0, 2],
                 "speedResponses": [(0.0, 0.4), (10.0, 0.2), (0.0, 1.0), (20.0, 0.5)]}
# brakes1: a single command value: every command takes this graph, (0, 1.0) (10, 0.0)
BRAKES1_TABLE = {"commandValues": [1.0], "speedResponsesPerCommandValue": [0],
                 "speedResponses": [(0.0, 1.0), (10.0, 0.0)]}


def _factory_car(drive: str = "standard"):
    car = new_stage()
    add_vehicle(car, drive=drive)
    return car


def _respond(car, instance: str, table: dict, prim: str = CAR) -> None:
    car.stage.GetPrimAtPath(prim).ApplyAPI(P.NCR, instance)
    for base, value in table.items():
        car.set(prim, P.NCR, base, value, instance)


def _params(stage) -> SimParams:
    description = read_stage(stage)
    assert CAR in description.vehicles, [d.line() for d in description.diagnostics]
    return SimParams.from_batch(batch([build_vehicle_params(description, CAR)]), np.float64)


@pytest.fixture(scope="module")
def responsive():
    """The factory car (standard drive, plain steering, two brakes) with the three tables above."""
    car = _factory_car()
    _respond(car, "steer", STEER_TABLE)
    _respond(car, "brakes0", BRAKES0_TABLE)
    _respond(car, "brakes1", BRAKES1_TABLE)
    return _params(car.stage)


# (steer command, forward speed, normalised response worked out from STEER_TABLE)
STEER_CASES = [
    (0.1, 7.0, 0.2),     # below the first command value: the first graph, a single point: 0.2 at every speed
    (0.3, -4.0, 0.2),    # at the first command value, reversing: still that point
    (0.5, 10.0, 0.325),  # between 0.3 (0.2) and 0.7 (0.6 + 10/20 * (0.3 - 0.6) = 0.45): 0.2 + 0.2/0.4 * 0.25
    (-0.85, 20.0, -0.45),  # |steer| between 0.7 (0.3 at 20) and 1.0 (0.8 + 10/20 * (0.4 - 0.8) = 0.6): 0.3 + 0.15/0.3 * 0.3
    (1.0, 2.0, 1.0),     # the last graph below its first speed (5): held at 1.0
    (1.0, 50.0, 0.4),    # the last graph above its last speed (30): held at 0.4
    (0.7, -10.0, 0.6),   # a reverse speed is below every graph's first speed: the first point, 0.6
    (0.0, 10.0, 0.2),    # no steer at all: PxSign(0) = +1 and the first graph still answers 0.2
]


@pytest.mark.parametrize("steer, speed, response", STEER_CASES)
def test_steer_response_follows_the_table(responsive, steer, speed, response):
    angles = steer_angles(responsive, np.array([steer]), np.array([speed]))[0]
    assert angles[:2] == pytest.approx([response * MAX_STEER] * 2)
    assert angles[2:].tolist() == [0.0, 0.0]  # the steering lists wheels 0 and 1 only


# (brake0, brake1, forward speed, torque on wheels 0-1, torque on wheels 2-3)
BRAKE_CASES = [
    # brake0 0.25 is below 0.5: the first graph at 5 m/s, 0.4 + 5/10 * (0.2 - 0.4) = 0.3; brake1's single graph
    # answers any command, 0 included: 1.0 + 5/10 * (0.0 - 1.0) = 0.5 of 3000 on wheels 2 and 3
    (0.25, 0.0, 5.0, 0.3 * MAX_BRAKE0, 0.3 * MAX_BRAKE0 + 0.5 * MAX_BRAKE1),
    # brake0 0.75 between 0.5 (0.3) and 1.0 (1.0 + 5/20 * (0.5 - 1.0) = 0.875): 0.3 + 0.25/0.5 * 0.575 = 0.5875
    (0.75, 1.0, 5.0, 0.5875 * MAX_BRAKE0, 0.5875 * MAX_BRAKE0 + 0.5 * MAX_BRAKE1),
    # above the last command value and the last speed: 0.5; brake1's graph past 10 m/s: 0
    (1.0, 0.6, 25.0, 0.5 * MAX_BRAKE0, 0.5 * MAX_BRAKE0),
    # a brake command of 0 still takes the first graph (0.4 at rest): the table decides, not the command
    (0.0, 0.0, 0.0, 0.4 * MAX_BRAKE0, 0.4 * MAX_BRAKE0 + 1.0 * MAX_BRAKE1),
]


@pytest.mark.parametrize("brake0, brake1, speed, front, rear", BRAKE_CASES)
def test_brake_responses_follow_their_tables_and_add_up(responsive, brake0, brake1, speed, front, rear):
    torques = brake_torques(responsive, np.array([brake0]), np.array([brake1]), np.array([speed]))[0]
    assert torques == pytest.approx([front, front, rear, rear])


def test_linear_without_a_table():
    """The same car without responses: command * maximum, whatever the speed."""
    p = _params(_factory_car().stage)
    assert steer_angles(p, np.array([-0.4]), np.array([12.0]))[0][:2] == pytest.approx([-0.4 * MAX_STEER] * 2)
    assert brake_torques(p, np.array([0.5]), np.array([0.0]), np.array([3.0]))[0] == pytest.approx([0.5 * MAX_BRAKE0] * 4)


def test_the_simulator_takes_the_speed_at_the_start_of_the_step():
    """End to end: the body's forward speed when the step begins picks the point on the speed graphs."""
    car = _factory_car()
    _respond(car, "steer", STEER_TABLE)
    set_velocity(car.stage, CAR, (20.0, 0.0, 0.0))  # +X is forward in the factory stage
    sim = Simulator.from_description(read_stage(car.stage), 1.0 / 60.0, dtype=np.float64)
    sim.step({"steer": -0.85})
    assert sim.telemetry()["wheels"]["wheelSteerAngle"][0, :2] == pytest.approx([-0.45 * MAX_STEER] * 2)


def test_ackermann_overrides_the_table_except_at_zero_steer():
    """PxVehicleAckermannSteerUpdate recomputes its two wheels from the linear response when steer != 0; at 0 the
    table's answer (0.2 of the maximum here) stays on them."""
    car = _factory_car()
    car.prim(CAR).RemoveAPI(P.STEERING)
    car.prim(CAR).ApplyAPI(P.ACKERMANN)
    for base, value in (("wheel0", 0), ("wheel1", 1), ("wheelBase", 2.6), ("trackWidth", 1.6), ("strength", 1.0),
                        ("maxSteerAngle", MAX_STEER)):
        car.set(CAR, P.ACKERMANN, base, value)
    linear = steer_angles(_params(car.stage), np.array([0.5]), np.array([10.0]))[0]
    assert linear[0] != pytest.approx(linear[1])  # the Ackermann correction acts
    _respond(car, "steer", STEER_TABLE)
    p = _params(car.stage)
    assert steer_angles(p, np.array([0.5]), np.array([10.0]))[0] == pytest.approx(linear)
    assert steer_angles(p, np.array([0.0]), np.array([10.0]))[0][:2] == pytest.approx([0.2 * MAX_STEER] * 2)


def test_a_drive_response_on_a_standard_drive_is_not_applied_and_is_said():
    """parseDriveStandard reads no response and the engine drive's throttle is linear: the accelerator reaches the
    engine as it is, with the table in place; the reader says it ignores it."""
    car = _factory_car("standard")
    drive = car.parts["drive"]
    _respond(car, "drive", {"commandValues": [1.0], "speedResponsesPerCommandValue": [0],
                            "speedResponses": [(0.0, 0.1)]}, prim=drive)
    description = read_stage(car.stage)
    assert "drive" not in description.vehicles[CAR].nonlinearCommandResponses
    ignored = [d for d in description.diagnostics if d.code == "NCR_IGNORED"]
    assert [(d.prim, d.property) for d in ignored] == [(drive, P.full_name(P.NCR, "commandValues", "drive"))]
    params = build_vehicle_params(description, CAR)
    assert params.throttle is None  # no throttle response record: the engine takes the accelerator
    p = SimParams.from_batch(batch([params]), np.float64)
    s = initial_state(p)
    s.accelerator = np.array([0.6])
    out = update_commands(p, s, 1.0 / 60.0, np.array([3.0]), differential_state(p, s).torque_ratio)
    assert out["throttle"].tolist() == [0.6]


def test_a_drive_response_on_a_basic_drive_shapes_the_drive_torque():
    """The basic drive's throttle: drive torque = response(accelerator, speed) * peakTorque * the wheel's ratio."""
    car = _factory_car("basic")
    drive = car.parts["drive"]
    _respond(car, "drive", {"commandValues": [0.5, 1.0], "speedResponsesPerCommandValue": [0, 2],
                            "speedResponses": [(0.0, 0.2), (10.0, 0.4), (0.0, 1.0), (20.0, 0.5)]}, prim=drive)
    description = read_stage(car.stage)
    params = build_vehicle_params(description, CAR)
    p = SimParams.from_batch(batch([params]), np.float64)
    s = initial_state(p)
    s.accelerator = np.array([0.75])
    out = update_commands(p, s, 1.0 / 60.0, np.array([10.0]), differential_state(p, s).torque_ratio)
    # between 0.5 (0.4 at 10 m/s) and 1.0 (1.0 + 10/20 * (0.5 - 1.0) = 0.75): 0.4 + 0.25/0.5 * 0.35 = 0.575
    expected = 0.575 * params.throttle.max_response * np.asarray(params.throttle.wheel_multipliers)
    assert out["drive_torque"][0] == pytest.approx(expected)
    assert expected.max() > 0.0


def test_the_ovphysx_reading_drops_every_table_and_says_so():
    car = _factory_car()
    _respond(car, "steer", STEER_TABLE)
    _respond(car, "brakes1", BRAKES1_TABLE)
    description = read_stage(car.stage, reading="ovphysx")
    assert description.vehicles[CAR].nonlinearCommandResponses == {}
    said = sorted(d.property for d in description.diagnostics if d.code == "OVPHYSX_READING")
    assert said == sorted(P.full_name(P.NCR, "commandValues", i) for i in ("brakes1", "steer"))
    p = SimParams.from_batch(batch([build_vehicle_params(description, CAR)]), np.float64)
    assert steer_angles(p, np.array([0.5]), np.array([10.0]))[0][:2] == pytest.approx([0.5 * MAX_STEER] * 2)
