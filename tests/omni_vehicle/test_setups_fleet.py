"""NVIDIA's behaviour tests of the wheel, the wheel attachment, the slip denominators and a few vehicle set-ups, on
one fleet of factory cars stepped together, in our simulator and in ovphysx (see test_drive_fleet.py for what the port
changes: a parameter NVIDIA changes while simulating is authored on a second car from the start)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from edits import chain, on_vehicle, on_wheels
from factory import BASIC, FRONT_LEFT, FRONT_RIGHT, NONE, STANDARD, WHEEL_RADIUS, Options
from fleets import backend_fixture, fleet_fixture
from harness import Entry, Fleet
from pxr import Gf, Sdf, UsdPhysics
from stage_factory import set_property

from physxvehicle_usd import properties as P
from physxvehicle_usd.simulate import rotate_xyzw

FRONT = (FRONT_LEFT, FRONT_RIGHT)


def car(drive: str = BASIC, **options) -> Options:
    return Options(drive=drive, shared=False, **options)


def _front_forward(base: str, forward: float):
    """The forward component of a front wheel attachment's vector attribute `base` set to `forward` (stage units)."""
    def apply(stage, c):
        for i in FRONT:
            attr = stage.GetPrimAtPath(c.wheels[i]).GetAttribute(P.full_name(P.ATTACHMENT, base))
            value = list(attr.Get())
            value[2] = forward  # Z forward
            attr.Set(Gf.Vec3f(*value))
    return apply


def _front_scaled_up(base: str, factor: float):
    def apply(stage, c):
        for i in FRONT:
            attr = stage.GetPrimAtPath(c.wheels[i]).GetAttribute(P.full_name(P.ATTACHMENT, base))
            value = list(attr.Get())
            value[1] *= factor  # Y up
            attr.Set(Gf.Vec3f(*value))
    return apply


def _query_group_that_filters_the_ground(stage, c):
    """NVIDIA's new ground-query group filtering chassis, wheels and the ground surface: the wheels find no ground."""
    path = f"{c.path}QueryGroup"
    group = UsdPhysics.CollisionGroup.Define(stage, path)
    group.CreateFilteredGroupsRel().SetTargets([Sdf.Path(f"/World/{n}") for n in (
        "VehicleChassisCollisionGroup", "VehicleWheelCollisionGroup", "GroundSurfaceCollisionGroup")])
    for wheel in c.wheels:
        stage.GetPrimAtPath(wheel).GetRelationship(P.full_name(P.ATTACHMENT, "collisionGroup")).SetTargets([path])


def _no_sticky():
    return chain(on_vehicle(P.VEHICLE, "longitudinalStickyTireThresholdSpeed", 0.0),
                 on_vehicle(P.VEHICLE, "lateralStickyTireThresholdSpeed", 0.0))


def _entries() -> list[Entry]:
    e = []
    # slip denominators: standard drive in first gear, sticky tire off
    slip = dict(wheel_shapes=False)
    for name, base, kwargs in (("Passive", "minPassiveLongitudinalSlipDenominator", dict(speed=10.0, spin=True)),
                               ("Active", "minActiveLongitudinalSlipDenominator", dict(controls={"accelerator": 1.0})),
                               ("Lateral", "minLateralSlipDenominator", dict(side_speed=10.0))):
        controls = {"targetGear": 1, **kwargs.pop("controls", {})}
        e.append(Entry(f"Slip{name}Ref", car(STANDARD, **slip), controls=dict(controls), edit=_no_sticky(), **kwargs))
        e.append(Entry(f"Slip{name}Mod", car(STANDARD, **slip), controls=dict(controls),
                       edit=chain(_no_sticky(), on_vehicle(P.VEHICLE, base, 100000.0)), **kwargs))
    # wheel scenarios (basic drive): radius, moment of inertia (braking from 10 m/s), damping (rolling from 2 m/s)
    e.append(Entry("WheelRadiusRef", car()))
    e.append(Entry("WheelRadiusMod", car(), edit=on_wheels(P.WHEEL, "radius", WHEEL_RADIUS * 1.05)))
    e.append(Entry("WheelMoiRef", car(), speed=10.0, spin=True, controls={"brake0": 1.0}))
    e.append(Entry("WheelMoiMod", car(), speed=10.0, spin=True, controls={"brake0": 1.0},
                   edit=on_wheels(P.WHEEL, "moi", 122.5)))
    e.append(Entry("WheelDampingRef", car(), speed=2.0, spin=True))
    e.append(Entry("WheelDampingMod", car(), speed=2.0, spin=True, edit=on_wheels(P.WHEEL, "dampingRate", 25.0)))
    # wheel attachment scenarios: a car as built and one with the front attachments changed
    travel = Gf.Vec3f(0.0, -1.0, 2.0).GetNormalized()
    for name, drive, deprecated, edit, controls in (
            ("TravelDir", BASIC, False, on_wheels(P.ATTACHMENT, "suspensionTravelDirection", tuple(travel), FRONT), {}),
            ("FramePosition", STANDARD, False, _front_forward("suspensionFramePosition", 0.1 * 3.2), {}),
            ("ForceAppPoint", STANDARD, True, _front_forward("suspensionForceAppPointOffset", 0.4 * 3.2 - 1.6), {}),
            ("WheelCom", STANDARD, True, _front_forward("wheelCenterOfMassOffset", 0.1 * 3.2), {}),
            ("TireForceAppPoint", BASIC, True, _front_scaled_up("tireForceAppPointOffset", 1000.0),
             {"accelerator": 1.0}),
            ("CollisionGroup", BASIC, False, _query_group_that_filters_the_ground, {})):
        if drive == STANDARD and controls:
            controls = {**controls, "targetGear": 1}
        e.append(Entry(f"Att{name}Ref", car(drive, deprecated=deprecated, wheel_shapes=False), controls=controls))
        e.append(Entry(f"Att{name}Mod", car(drive, deprecated=deprecated, wheel_shapes=False), controls=controls,
                       edit=edit))
    # test_compact_vehicle_USD_representation: components on the vehicle's own prims, and shared ones
    for drive in (BASIC, STANDARD, NONE):
        for shared in (False, True):
            controls = {"accelerator": 1.0, **({"targetGear": 1} if drive == STANDARD else {})} if drive != NONE else {}
            wheel = {i: {"driveTorque": 300.0} for i in FRONT} if drive == NONE else {}
            e.append(Entry(f"Compact{drive}{'Shared' if shared else 'Own'}",
                           Options(drive=drive, shared=shared, wheel_shapes=False), controls=controls,
                           wheel_controls=wheel))
    # test_usd_physics_api_only: no PhysxRigidBodyAPI on the body, no PhysxCollisionAPI on the wheel shapes
    def strip(stage, c):
        prim = stage.GetPrimAtPath(c.path)
        for name in [a.GetName() for a in prim.GetAttributes() if a.GetName().startswith("physxRigidBody:")]:
            prim.RemoveProperty(name)
        prim.RemoveAppliedSchema("PhysxRigidBodyAPI")
        for wheel in c.wheels:
            shape = stage.GetPrimAtPath(f"{wheel}/Collision")
            for name in ("physxCollision:restOffset", "physxCollision:contactOffset"):
                shape.RemoveProperty(name)
            shape.RemoveAppliedSchema("PhysxCollisionAPI")
    e.append(Entry("UsdPhysicsOnly", car(), controls={"accelerator": 1.0}, edit=strip))
    # (test_automatic_without_auto_gear_box runs 3 s: test_more_fleet.py)
    # test_suspension_user_defined_sprung_mass: rear wheels only (indices 0, 1), a quarter of the mass each
    def rear_only(stage, c):
        for index, wheel in ((0, c.wheels[2]), (1, c.wheels[3])):
            set_property(stage.GetPrimAtPath(wheel), P.SUSPENSION, "sprungMass", 1800.0 / 4)
            set_property(stage.GetPrimAtPath(wheel), P.ATTACHMENT, "index", index)
        for wheel in c.wheels[:2]:
            stage.RemovePrim(wheel)
        del c.wheels[:2]
    e.append(Entry("RearOnly", car(NONE), edit=rear_only))
    # test_wheel_toe_angle (deprecated, standard drive): 10 degrees of toe on every wheel of the second car
    e.append(Entry("ToeRef", car(STANDARD, deprecated=True)))
    e.append(Entry("ToeMod", car(STANDARD, deprecated=True), edit=on_wheels(P.WHEEL, "toeAngle", TOE)))
    # test_wheel_attachment_wheel_frame: the front-left wheel frame moved and turned about the up axis, in two steps
    e.append(Entry("FrameRef", car(wheel_shapes=False)))
    for name, offset, angle in (("Frame1", 0.2, math.pi / 6), ("Frame2", -0.1, math.pi / 12)):
        turn = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
        e.append(Entry(name, car(wheel_shapes=False),
                       edit=chain(on_wheels(P.ATTACHMENT, "wheelFramePosition", (offset, 0.0, 0.0), (FRONT_LEFT,)),
                                  on_wheels(P.ATTACHMENT, "wheelFrameOrientation", turn, (FRONT_LEFT,)))))
    # suspension compliance angles: graphs empty (first step), then set, the first car 1000 m up (no ground: jounce
    # 0), the second 0.11 m down (full compression)
    for kind, base, graph in (("Toe", "wheelToeAngle", [(0.0, COMPLIANCE), (1.0, -COMPLIANCE)]),
                              ("Camber", "wheelCamberAngle", [(0.0, -COMPLIANCE), (1.0, COMPLIANCE)])):
        for phase, edit in (("Empty", None), ("Set", on_wheels(P.COMPLIANCE, base, graph))):
            e.append(Entry(f"Compliance{kind}{phase}Air", car(wheel_shapes=False), shift=(1000.0, 0.0, 0.0), edit=edit))
            e.append(Entry(f"Compliance{kind}{phase}Down", car(wheel_shapes=False),
                           shift=(-0.11 if phase == "Set" else 0.0, 0.0, 0.0), edit=edit))
    # suspension compliance points: the front suspension force 1.92 m behind, or the tire force 100 m below
    e.append(Entry("ComplianceSuspPoint", car(wheel_shapes=False),
                   edit=on_wheels(P.COMPLIANCE, "suspensionForceAppPoint", [(0.0, 0.0, -0.1, -0.6 * 3.2)] * 1, FRONT)))
    e.append(Entry("ComplianceTirePoint", car(wheel_shapes=False), controls={"accelerator": 1.0},
                   edit=_front_compliance_point_scaled_up("tireForceAppPoint", 1000.0)))
    return e


TOE = math.radians(10.0)
COMPLIANCE = math.radians(30.0)


def _front_compliance_point_scaled_up(base: str, factor: float):
    def apply(stage, c):
        for i in FRONT:
            attr = stage.GetPrimAtPath(c.wheels[i]).GetAttribute(P.full_name(P.COMPLIANCE, base))
            points = [list(v) for v in attr.Get()]
            points[0][2] *= factor  # (jounce, x, y, z): y is up
            attr.Set([Gf.Vec4f(*v) for v in points])
    return apply


runs = fleet_fixture(lambda: Fleet(_entries(), 1.0))
SLIP_LATERAL = ("the car sliding sideways at 10 m/s with minLateralSlipDenominator 1e5 drifts 1.04 mm forward in 1 s "
                "(ours 1.0389 mm, PhysX 1.0389 mm: the same figure), NVIDIA's bound is 1 mm; NVIDIA gives the speed "
                "after one settling step, the port from the authored pose (ovphysx cannot set a speed mid-run)")
WHEEL_COM = ("the front wheels' deprecated wheelCenterOfMassOffset authored 1.28 m further back from the start: both "
             "simulators put the wheels there (forward 0.32 m) and the body stays level (up -0.00007 m in PhysX, 0.00000 "
             "m in ours) where NVIDIA, moving the offset while omni.physx simulates, expects it to sink more than 0.04 m; "
             "authoring the creation-time sprung masses (450 kg) on the moved car changes neither figure")
TIRE_POINT = ("the front tire force application points (compliance) 100 m below the wheel from the start, full throttle: "
              "the body rises 0.0893 m in 0.267 s in both simulators (ours 0.08926 m, PhysX 0.08933 m) where NVIDIA, "
              "making the change after a settling step of omni.physx, expects more than 0.1 m")
KNOWN = {("test_tire_min_slip_denom_lat", "ours"): SLIP_LATERAL,
         ("test_suspension_compliance_tire_force_app_point_offset", "ours"): TIRE_POINT,
         ("test_suspension_compliance_tire_force_app_point_offset", "ovphysx"): TIRE_POINT,
         ("test_wheel_attachment_wheel_com_offset", "ours"): WHEEL_COM,
         ("test_wheel_attachment_wheel_com_offset", "ovphysx"): WHEEL_COM, ("test_tire_min_slip_denom_lat", "ovphysx"): SLIP_LATERAL,
         ("test_wheel_moment_of_inertia", "ovphysx"):
         "ovphysx 0.7 cannot set a wheel's rotation speed (omni.physx's set_wheel_rotation_speed, which NVIDIA uses to "
         "start the wheels free rolling at 10 m/s); with the wheels at rest the brakes lock them at once whatever their "
         "inertia, and both cars slide 6.481 m in 1 s where NVIDIA expects the 100x inertia to carry 11 % further (ours, "
         "started spinning: passes)"}

run = backend_fixture(KNOWN)


def _pair(run, name):
    return run[f"{name}Ref"], run[f"{name}Mod"]


def test_tire_min_slip_denom_long_passive(run):
    ref, mod = _pair(run, "SlipPassive")
    assert ref.forward(1.0) < 0.9 * mod.forward(1.0)
    assert abs(mod.side(1.0)) < 0.001  # NVIDIA: tells the relation from an uncontrolled explosion


def test_tire_min_slip_denom_long_active(run):
    ref, mod = _pair(run, "SlipActive")
    assert ref.forward(1.0) > 2 * mod.forward(1.0)
    assert abs(mod.side(1.0)) < 0.001


def test_tire_min_slip_denom_lat(run):
    ref, mod = _pair(run, "SlipLateral")
    assert ref.side(1.0) < 0.7 * mod.side(1.0)
    assert abs(mod.forward(1.0)) < 0.001


def test_wheel_radius(run):
    ref, mod = _pair(run, "WheelRadius")
    assert ref.up(1.0) + 0.9 * WHEEL_RADIUS * 0.05 < mod.up(1.0)


def test_wheel_moment_of_inertia(run):
    ref, mod = _pair(run, "WheelMoi")
    assert ref.forward(1.0) < 0.9 * mod.forward(1.0)


def test_wheel_damping_rate(run):
    ref, mod = _pair(run, "WheelDamping")
    assert ref.forward(1.0) > 1.1 * mod.forward(1.0)


def test_wheel_attachment_susp_travel_dir(run):
    ref, mod = _pair(run, "AttTravelDir")
    assert abs(ref.up(1.0)) < 0.001
    assert mod.up(1.0) < -0.05


def test_wheel_attachment_suspension_frame_position(run):
    ref, mod = _pair(run, "AttFramePosition")
    assert abs(ref.up(1.0)) < 0.001
    assert mod.up(1.0) < -0.04
    assert abs(mod.side(1.0)) < 0.001


def test_wheel_attachment_susp_force_app_point_offset(run):
    ref, mod = _pair(run, "AttForceAppPoint")
    assert abs(ref.up(1.0)) < 0.001
    assert mod.up(1.0) > 0.2
    assert abs(mod.side(1.0)) < 0.002


def test_wheel_attachment_wheel_com_offset(run):
    ref, mod = _pair(run, "AttWheelCom")
    assert abs(ref.up(1.0)) < 0.001
    assert mod.up(1.0) < -0.04
    assert abs(mod.side(1.0)) < 0.001


def test_wheel_attachment_tire_force_app_point_offset(run):
    ref, mod = _pair(run, "AttTireForceAppPoint")
    assert abs(ref.up(0.25)) < 0.005
    assert mod.up(0.25) > 0.1


def test_wheel_attachment_collision_group(run):
    ref, mod = _pair(run, "AttCollisionGroup")
    assert abs(ref.up(1.0)) < 0.001
    assert mod.up(1.0) < -0.2


def test_compact_vehicle_USD_representation(run):
    for drive in (BASIC, STANDARD, NONE):
        own, shared = run[f"Compact{drive}Own"], run[f"Compact{drive}Shared"]
        assert own.forward(1.0) > 0.3
        assert own.side(1.0) == pytest.approx(0.0, abs=0.001)
        assert own.up(1.0) == pytest.approx(0.0, abs=0.001)
        assert shared.forward(1.0) - own.forward(1.0) == pytest.approx(0.0, abs=0.002)  # both behave the same


def test_usd_physics_api_only(run):
    v = run["UsdPhysicsOnly"]
    assert v.forward(1.0) > 0.3
    assert v.side(1.0) == pytest.approx(0.0, abs=0.001)
    assert v.up(1.0) == pytest.approx(0.0, abs=0.001)


def test_suspension_user_defined_sprung_mass(run):
    """The front wheels removed: the front falls to the ground and the rear suspensions compress beyond 0.11 (the
    equilibrium would be 0.1)."""
    v = run["RearOnly"]
    for wheel in (0, 1):
        assert v.wheel(wheel, "suspensionJounce", 1.0) > 0.11
    assert not math.isnan(v.up(1.0))


def _direction(view, wheel: int, t: float, ref) -> np.ndarray:
    if "orientation" not in view.wheels[wheel]:
        pytest.fail("the backend reports no wheel orientation")
    return rotate_xyzw(np.asarray(view.wheel(wheel, "orientation", t), float), np.asarray(ref, float))


def _angle(a, b) -> float:
    return math.acos(max(-1.0, min(1.0, float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))))))


def test_wheel_toe_angle(run):
    forward = (0.0, 0.0, 1.0)
    assert abs(_angle(forward, _direction(run["ToeMod"], FRONT_LEFT, 1.0, forward)) - TOE) < math.radians(1.0)


def test_wheel_attachment_wheel_frame(run):
    """After one step the front-left wheel stands the frame's offset aside (to 0.1 mm) and is turned by its angle."""
    dt = 1 / 60
    ref = run["FrameRef"]
    start = ref.wheel(FRONT_LEFT, "position", dt) - ref.pos(dt)  # where the wheel stands without the frame
    forward = (0.0, 0.0, 1.0)
    for name, offset, angle in (("Frame1", 0.2, math.pi / 6), ("Frame2", -0.1, math.pi / 12)):
        moved = run[name].wheel(FRONT_LEFT, "position", dt) - run[name].pos(dt) - start
        assert moved[0] == pytest.approx(offset, abs=1e-4)
        assert abs(moved[1]) < 1e-4 and abs(moved[2]) < 1e-4
        assert _angle(forward, _direction(run[name], FRONT_LEFT, dt, forward)) == pytest.approx(angle, abs=angle * 0.001)


def _compliance_angle(run, kind, ref):
    dt = 1 / 60
    for where in ("Air", "Down"):
        direction = _direction(run[f"Compliance{kind}Empty{where}"], FRONT_LEFT, dt, ref)
        assert np.linalg.norm(direction - np.asarray(ref)) < 0.001
    air = _direction(run[f"Compliance{kind}SetAir"], FRONT_LEFT, dt, ref)
    assert abs(_angle(ref, air) - COMPLIANCE) < math.radians(1.0)
    assert air[0] > 0.01  # the direction of the rotation
    down = _direction(run[f"Compliance{kind}SetDown"], FRONT_LEFT, dt, ref)
    assert abs(_angle(ref, down) - COMPLIANCE) < math.radians(1.0)
    assert down[0] < -0.01


def test_suspension_compliance_toe_angle(run):
    _compliance_angle(run, "Toe", (0.0, 0.0, 1.0))


def test_suspension_compliance_camber_angle(run):
    _compliance_angle(run, "Camber", (0.0, 1.0, 0.0))


def test_suspension_compliance_susp_force_app_point_offset(run):
    v = run["ComplianceSuspPoint"]
    assert v.up(1.0) > 0.2
    assert abs(v.side(1.0)) < 0.002


def test_suspension_compliance_tire_force_app_point_offset(run):
    """NVIDIA: one settling step, the change, 0.25 s more (the displacement from the start)."""
    assert run["ComplianceTirePoint"].up(0.25 + 1 / 60) > 0.1
