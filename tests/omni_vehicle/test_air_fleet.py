"""NVIDIA's tests of differentials, brakes and steering: cars without ground or gravity (NVIDIA's
_remove_factory_ground_plane_and_set_gravity_zero), each phase of a test a car of its own stepped from the start for
the phase's time (one step, or 0.1 s), in our simulator and in ovphysx. Angles are the wheels' steer angles (positive
to the left), which both simulators report and NVIDIA reads from the wheel prims' transforms."""
from __future__ import annotations

import pytest
from edits import chain, on_vehicle, on_wheels
from factory import BASIC, FRONT_LEFT, FRONT_RIGHT, MAX_STEER, REAR_LEFT, REAR_RIGHT, STANDARD, WHEEL_RADIUS, Options
from fleets import backend_fixture, fleet_fixture
from harness import DT, Entry, Fleet
from stage_factory import set_property

from physxvehicle_usd import properties as P

STEP = DT  # one frame
ALL = (FRONT_LEFT, FRONT_RIGHT, REAR_LEFT, REAR_RIGHT)


def car(drive: str = BASIC, **options) -> Options:
    return Options(drive=drive, shared=False, wheel_shapes=False, **options)


def _indices(values):
    """Each wheel attachment (in path order FL, FR, RL, RR) gets the given index."""
    def apply(stage, c):
        for wheel, index in zip(c.wheels, values):
            set_property(stage.GetPrimAtPath(wheel), P.ATTACHMENT, "index", index)
    return apply


def _driven(paths):
    def apply(stage, c):
        for i, wheel in enumerate(c.wheels):
            set_property(stage.GetPrimAtPath(wheel), P.ATTACHMENT, "driven", i in paths)
    return apply


def _diff_entries() -> list[Entry]:
    e = []
    for drive in (BASIC, STANDARD):
        gear = {"targetGear": 1} if drive == STANDARD else {}
        for phase, ratios in ((1, [0.66, 0.33]), (2, [0.0, 1.0])):
            diff = [on_vehicle(P.MULTI_DIFF, "wheels", [3, 0]), on_vehicle(P.MULTI_DIFF, "torqueRatios", ratios)]
            if drive == STANDARD:
                diff.append(on_vehicle(P.MULTI_DIFF, "averageWheelSpeedRatios", ratios))
            e.append(Entry(f"Diff{drive}{phase}", car(drive), controls={"accelerator": 1.0, **gear},
                           edit=chain(_indices([3, 2, 1, 0]), *diff)))
            e.append(Entry(f"Diff{drive}Deprecated{phase}", car(drive, deprecated=True),
                           controls={"accelerator": 1.0, **gear}, edit=_driven((0, 3) if phase == 1 else (3,))))
    return e


def _steer_entries() -> list[Entry]:
    e = []
    steered = [FRONT_LEFT, REAR_RIGHT]
    for deprecated in (False, True):
        tag = "Deprecated" if deprecated else ""
        if deprecated:
            base = chain(on_wheels(P.WHEEL, "maxSteerAngle", MAX_STEER, steered),
                         on_wheels(P.WHEEL, "maxSteerAngle", 0.0, (FRONT_RIGHT, REAR_LEFT)))
            left, right = {"steerLeft": 1.0}, {"steerRight": 1.0}
            zero_max = on_wheels(P.WHEEL, "maxSteerAngle", 0.0, steered)
        else:
            base = chain(on_vehicle(P.STEERING, "wheels", steered), on_vehicle(P.STEERING, "maxSteerAngle", MAX_STEER),
                         on_vehicle(P.STEERING, "angleMultipliers", [1.0, 1.0]))
            left, right = {"steer": 1.0}, {"steer": -1.0}
            zero_max = on_vehicle(P.STEERING, "maxSteerAngle", 0.0)
        e.append(Entry(f"Steer{tag}None", car(deprecated=deprecated), edit=base))
        e.append(Entry(f"Steer{tag}Left", car(deprecated=deprecated), edit=chain(base, *_controls(left))))
        e.append(Entry(f"Steer{tag}Right", car(deprecated=deprecated), edit=chain(base, *_controls(right))))
        e.append(Entry(f"Steer{tag}ZeroMax", car(deprecated=deprecated), edit=chain(base, zero_max, *_controls(left))))
        if not deprecated:
            e.append(Entry("SteerMultipliers", car(), edit=chain(base, on_vehicle(P.STEERING, "angleMultipliers",
                                                                                   [0.0, -1.0]), *_controls(left))))
    return e


def _controls(values):
    """Controller values authored on the stage: deprecated controller attributes have no ovphysx control to write."""
    return [on_vehicle(P.CONTROLLER, name, value) for name, value in values.items()]


def _ackermann_entries() -> list[Entry]:
    e = []
    for drive in (BASIC, STANDARD):
        o = dict(drive=drive, ackermann=True)
        e.append(Entry(f"Ack{drive}None", car(**o)))
        e.append(Entry(f"Ack{drive}Left", car(**o), controls={"steer": 1.0}))
        e.append(Entry(f"Ack{drive}Right", car(**o), controls={"steer": -1.0}))
        e.append(Entry(f"Ack{drive}ZeroMax", car(**o), controls={"steer": 1.0},
                       edit=on_vehicle(P.ACKERMANN, "maxSteerAngle", 0.0)))
        e.append(Entry(f"Ack{drive}LongBase", car(**o), controls={"steer": 1.0},
                       edit=on_vehicle(P.ACKERMANN, "wheelBase", 2.0 * 3.2)))
        e.append(Entry(f"Ack{drive}WideTrack", car(**o), controls={"steer": 1.0},
                       edit=on_vehicle(P.ACKERMANN, "trackWidth", 2.0 * 1.6)))
        e.append(Entry(f"Ack{drive}NoStrength", car(**o), controls={"steer": 1.0},
                       edit=on_vehicle(P.ACKERMANN, "strength", 0.0)))
    return e


SPIN = 30.0 / WHEEL_RADIUS  # NVIDIA's wheels free rolling at 30 m/s


def _brake_entries() -> list[Entry]:
    e = []
    b0, b1 = [FRONT_LEFT, REAR_RIGHT], [FRONT_RIGHT, REAR_LEFT]
    brakes = chain(on_vehicle(P.BRAKES, "wheels", b0, "brakes0"), on_vehicle(P.BRAKES, "maxBrakeTorque", 3600.0, "brakes0"),
                   on_vehicle(P.BRAKES, "torqueMultipliers", [1.0, 1.0], "brakes0"),
                   on_vehicle(P.BRAKES, "wheels", b1, "brakes1"), on_vehicle(P.BRAKES, "maxBrakeTorque", 3600.0, "brakes1"),
                   on_vehicle(P.BRAKES, "torqueMultipliers", [1.0, 1.0], "brakes1"))
    phases = (("Off", {}, []), ("B0", {"brake0": 1.0}, []), ("B1", {"brake1": 1.0}, []),
              ("B1Max", {"brake0": 1.0, "brake1": 1.0}, [on_vehicle(P.BRAKES, "maxBrakeTorque", 0.0, "brakes0")]),
              ("B0Max", {"brake0": 1.0, "brake1": 1.0}, [on_vehicle(P.BRAKES, "maxBrakeTorque", 0.0, "brakes1")]),
              ("Multipliers", {"brake0": 1.0, "brake1": 1.0},
               [on_vehicle(P.BRAKES, "torqueMultipliers", [1.0, 0.0], "brakes0"),
                on_vehicle(P.BRAKES, "torqueMultipliers", [0.0, 1.0], "brakes1")]))
    for name, controls, more in phases:
        e.append(Entry(f"Brakes{name}", car(), controls=controls, wheel_speed=SPIN, edit=chain(brakes, *more)))
    deprecated = chain(on_wheels(P.WHEEL, "maxBrakeTorque", 3600.0, b0), on_wheels(P.WHEEL, "maxHandBrakeTorque", 0.0, b0),
                       on_wheels(P.WHEEL, "maxBrakeTorque", 0.0, b1), on_wheels(P.WHEEL, "maxHandBrakeTorque", 3600.0, b1))
    dep_phases = (("Off", {}, []), ("B0", {"brake": 1.0}, []), ("B1", {"handbrake": 1.0}, []),
                  ("B1Max", {"brake": 1.0, "handbrake": 1.0}, [on_wheels(P.WHEEL, "maxBrakeTorque", 0.0, b0)]),
                  ("B0Max", {"brake": 1.0, "handbrake": 1.0}, [on_wheels(P.WHEEL, "maxHandBrakeTorque", 0.0, b1)]))
    for name, controls, more in dep_phases:
        e.append(Entry(f"BrakesDeprecated{name}", car(deprecated=True), wheel_speed=SPIN,
                       edit=chain(deprecated, *more, *_controls(controls))))

    def brakes1_only(stage, c):
        stage.GetPrimAtPath(c.path).RemoveAPI(P.BRAKES, "brakes0")
        for name in [a.GetName() for a in stage.GetPrimAtPath(c.path).GetAttributes()]:
            if name.startswith("physxVehicleBrakes:brakes0:"):
                stage.GetPrimAtPath(c.path).RemoveProperty(name)
        set_property(stage.GetPrimAtPath(c.path), P.BRAKES, "maxBrakeTorque", 3600.0, "brakes1")
        set_property(stage.GetPrimAtPath(c.path), P.BRAKES, "wheels", [], "brakes1")
    e.append(Entry("Brakes1OnlyB0", car(), controls={"brake0": 1.0}, wheel_speed=SPIN, edit=brakes1_only))
    e.append(Entry("Brakes1OnlyB1", car(), controls={"brake1": 1.0}, wheel_speed=SPIN, edit=brakes1_only))
    return e


runs = fleet_fixture(lambda: Fleet(_diff_entries() + _steer_entries() + _ackermann_entries() + _brake_entries(), 0.1,
                                   air=True))

NO_SPIN = ("ovphysx 0.7 cannot set wheel rotation speeds (omni.physx's set_wheel_rotation_speed, with which NVIDIA spins "
           "every wheel to 30 m/s / 0.35 m = 85.7 rad/s before each braking step): its wheels start at rest, so no "
           "wheel exceeds NVIDIA's 95 % of that speed (measured: 0.0 rad/s)")
KNOWN = {("test_brakes", "ovphysx"): NO_SPIN, ("test_brakes_deprecated", "ovphysx"): NO_SPIN,
         ("test_brakes1_only", "ovphysx"): NO_SPIN}

run = backend_fixture(KNOWN)


def _diff(run, name):
    for phase, driven in ((1, (0, 3)), (2, (3,))):
        v = run[f"{name}{phase}"]
        speeds = [v.wheel(i, "rotationSpeed", 0.1) for i in range(4)]  # wheels in path order
        for i, speed in enumerate(speeds):
            if i in driven:
                assert speed > 1.0, (phase, speeds)
            else:
                assert speed == pytest.approx(0.0, abs=0.001), (phase, speeds)
        if phase == 1 and "Deprecated" not in name:
            assert speeds[0] / 0.66 == pytest.approx(speeds[3] / 0.33, abs=0.01)


def test_multi_wheel_differential_basic(run):
    _diff(run, f"Diff{BASIC}")


def test_multi_wheel_differential_basic_deprecated(run):
    _diff(run, f"Diff{BASIC}Deprecated")


def test_multi_wheel_differential_standard(run):
    _diff(run, f"Diff{STANDARD}")


def test_multi_wheel_differential_standard_deprecated(run):
    _diff(run, f"Diff{STANDARD}Deprecated")


def _angles(run, name):
    return [float(run[name].wheel(i, "wheelSteerAngle", STEP)) for i in range(4)]


def _steering(run, tag):
    steered, other = (FRONT_LEFT, REAR_RIGHT), (FRONT_RIGHT, REAR_LEFT)
    for phase, expected in (("None", 0.0), ("Left", MAX_STEER), ("Right", -MAX_STEER), ("ZeroMax", 0.0)):
        angles = _angles(run, f"Steer{tag}{phase}")
        for i in steered:
            assert angles[i] == pytest.approx(expected, abs=0.001), (phase, angles)
        for i in other:
            assert angles[i] == pytest.approx(0.0, abs=0.001), (phase, angles)
    if not tag:
        angles = _angles(run, "SteerMultipliers")
        assert angles[REAR_RIGHT] == pytest.approx(-MAX_STEER, abs=0.001)
        assert angles[FRONT_LEFT] == pytest.approx(0.0, abs=0.001)
        for i in other:
            assert angles[i] == pytest.approx(0.0, abs=0.001)


def test_steering(run):
    _steering(run, "")


def test_steering_deprecated(run):
    _steering(run, "Deprecated")


def _ackermann(run, drive):
    outer, inner = FRONT_RIGHT, FRONT_LEFT  # steering left: the right wheel is the outer one (wheel0)
    low, high = MAX_STEER * 0.5, MAX_STEER * 0.95

    def check(name, test):
        angles = _angles(run, f"Ack{drive}{name}")
        test(angles)
        for i in (REAR_LEFT, REAR_RIGHT):
            assert angles[i] == pytest.approx(0.0, abs=0.001), (name, angles)
        return angles

    check("None", lambda a: [pytest.approx(0.0, abs=0.001) == a[i] or pytest.fail(str(a)) for i in (outer, inner)])
    left = check("Left", lambda a: (a[inner] == pytest.approx(MAX_STEER, abs=0.001) and low < a[outer] < high)
                 or pytest.fail(str(a)))
    check("Right", lambda a: (a[outer] == pytest.approx(-MAX_STEER, abs=0.001) and -high < a[inner] < -low)
          or pytest.fail(str(a)))
    check("ZeroMax", lambda a: all(a[i] == pytest.approx(0.0, abs=0.001) for i in (outer, inner)) or pytest.fail(str(a)))
    check("LongBase", lambda a: (a[inner] == pytest.approx(MAX_STEER, abs=0.001) and left[outer] * 1.05 < a[outer] < high)
          or pytest.fail(str(a)))
    check("WideTrack", lambda a: (a[inner] == pytest.approx(MAX_STEER, abs=0.001) and low < a[outer] < left[outer] * 0.95)
          or pytest.fail(str(a)))
    check("NoStrength", lambda a: all(a[i] == pytest.approx(MAX_STEER, abs=0.001) for i in (outer, inner))
          or pytest.fail(str(a)))


def test_ackermann_steering_drive_basic(run):
    _ackermann(run, BASIC)


def test_ackermann_steering_drive_standard(run):
    _ackermann(run, STANDARD)


def _brakes(run, prefix, phases):
    fast, slow = SPIN * 0.95, SPIN * 0.5
    for name, braked in phases:
        speeds = [float(run[f"{prefix}{name}"].wheel(i, "rotationSpeed", STEP)) for i in range(4)]
        for i in ALL:
            if i in braked:
                assert speeds[i] < slow, (name, speeds)
            else:
                assert speeds[i] > fast, (name, speeds)


def test_brakes(run):
    b0, b1 = (FRONT_LEFT, REAR_RIGHT), (FRONT_RIGHT, REAR_LEFT)
    _brakes(run, "Brakes", (("Off", ()), ("B0", b0), ("B1", b1), ("B1Max", b1), ("B0Max", b0),
                            ("Multipliers", (FRONT_LEFT, REAR_LEFT))))


def test_brakes_deprecated(run):
    b0, b1 = (FRONT_LEFT, REAR_RIGHT), (FRONT_RIGHT, REAR_LEFT)
    _brakes(run, "BrakesDeprecated", (("Off", ()), ("B0", b0), ("B1", b1), ("B1Max", b1), ("B0Max", b0)))


def test_brakes1_only(run):
    _brakes(run, "Brakes1Only", (("B0", ()), ("B1", ALL)))
