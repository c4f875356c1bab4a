"""NVIDIA's tests that need a stage of their own: other units, other axes, other gravity (NVIDIA's extra force on the
body, which acts through the centre of mass as gravity does), no tire friction tables, an unbound ground. Each stage is
one Fleet, stepped once per backend.

NVIDIA pushes the bodies down (or up) with a force of a multiple of their weight (at 9.81 m/s^2) for the whole run
where the assertion is taken; here the scene's gravity carries that load from the start: 10 + 0.2 x 9.81 = 11.962
m/s^2 (spring strength), 10 + 1.5 x 9.81 = 24.715 (maximum compression), 10 - 1.5 x 9.81 = -4.715, i.e. upwards
(camber at maximum droop)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from edits import on_wheels, own_friction_table
from factory import BASIC, STANDARD, SURFACE_GROUP, Options
from fleets import BACKENDS, known_failures
from harness import DT, Entry, Fleet
from pxr import Gf, UsdGeom, UsdPhysics, UsdShade

from physxvehicle_usd import properties as P

pytestmark = pytest.mark.soak  # about 15 ovphysx runs (a stage each)

SPRUNG = 1800.0 / 4
CAMBER = math.radians(30.0)
FIRST = DT  # after one step


def car(drive: str = BASIC, **options) -> Options:
    return Options(drive=drive, shared=False, **options)


def _fleets() -> dict[str, Fleet]:
    f: dict[str, Fleet] = {}
    # suspension scenarios (basic drive)
    f["spring"] = Fleet([Entry("Ref", car()), Entry("Mod", car(), edit=on_wheels(P.SUSPENSION, "springStrength", 36000.0))],
                        2.0, gravity=10.0 + 0.2 * 9.81)
    f["loaded"] = Fleet([
        Entry("CompressionRef", car(deprecated=True)),
        Entry("CompressionMod", car(deprecated=True), edit=on_wheels(P.SUSPENSION, "maxCompression", 0.2)),
        Entry("CamberCompressionRef", car(deprecated=True)),
        Entry("CamberCompressionMod", car(deprecated=True), edit=on_wheels(P.SUSPENSION, "camberAtMaxCompression", CAMBER)),
    ], 2.0, gravity=10.0 + 1.5 * 9.81)
    f["lifted"] = Fleet([
        Entry("CamberDroopRef", car(deprecated=True)),
        Entry("CamberDroopMod", car(deprecated=True), edit=on_wheels(P.SUSPENSION, "camberAtMaxDroop", CAMBER)),
    ], 2.0, gravity=10.0 - 1.5 * 9.81)
    raised = (0.19, 0.0, 0.0)  # NVIDIA lifts both cars by the doubled droop (travel) less 1 cm before the last step
    f["plain"] = Fleet([
        Entry("DroopRef", car(deprecated=True), shift=raised),
        Entry("DroopMod", car(deprecated=True), shift=raised, edit=on_wheels(P.SUSPENSION, "maxDroop", 0.2)),
        Entry("TravelRef", car(), shift=raised),
        Entry("TravelMod", car(), shift=raised, edit=on_wheels(P.SUSPENSION, "travelDistance", 0.3)),
        Entry("SprungRef", car(), edit=on_wheels(P.SUSPENSION, "sprungMass", SPRUNG)),
        Entry("SprungMod", car(), edit=on_wheels(P.SUSPENSION, "sprungMass", SPRUNG * 0.5)),
        Entry("CamberRestRef", car(deprecated=True)),
        Entry("CamberRestMod", car(deprecated=True), edit=on_wheels(P.SUSPENSION, "camberAtRest", CAMBER)),
        Entry("AutoDroopRef", car(deprecated=True, wheel_shapes=False)),
        Entry("AutoDroopMod", car(deprecated=True, wheel_shapes=False), edit=on_wheels(P.SUSPENSION, "maxDroop", -1.0)),
    ], 2.0)
    # test_default_values_and_length_scale: every attribute with a default left unauthored, in metres and
    # centimetres, kilograms and 100 kg units
    for L in (1.0, 100.0):
        for M in (1.0, 100.0):
            f[f"scale{L:g}_{M:g}"] = Fleet([
                Entry("Basic", Options(drive=BASIC, wheel_shapes=False, skip_defaults=True),
                      controls={"accelerator": 1.0, "targetGear": 1}),
                Entry("Standard", Options(drive=STANDARD, wheel_shapes=False, skip_defaults=True),
                      controls={"accelerator": 1.0, "targetGear": 1}),
            ], 2.0, length_scale=L, mass_scale=M)
    # test_up_and_forward_axis_combinations
    for axes in ((1, 2, 0), (1, 0, 2), (2, 0, 1), (2, 1, 0), (0, 1, 2), (0, 2, 1)):
        f["axes" + "".join("XYZ"[a] for a in axes)] = Fleet(
            [Entry("Car", Options(drive=BASIC, chassis_box=False), controls={"accelerator": 1.0})],
            2.0 + DT, axes=axes)
    # test_no_tire_friction_table: no table in the stage; the tires' relationship cleared, or set to no target

    def no_tables(stage):
        for path in ("/World/WinterTireFrictionTable", "/World/SummerTireFrictionTable"):
            stage.RemovePrim(path)

    def no_target(clear: bool):
        def apply(stage, c):
            for wheel in c.wheels:
                rel = stage.GetPrimAtPath(wheel).GetRelationship(P.full_name(P.TIRE, "frictionTable"))
                rel.ClearTargets(True) if clear else rel.SetTargets([])
        return apply
    f["no_tables"] = Fleet([Entry("Cleared", car(wheel_shapes=False), controls={"accelerator": 1.0}, edit=no_target(True)),
                            Entry("Empty", car(wheel_shapes=False), controls={"accelerator": 1.0}, edit=no_target(False))],
                           1.0, stage_edit=no_tables)
    # test_tire_friction_table_default_friction_change: the ground's material unbound, the tables' default friction
    # 0 (then 1, on a second car)

    def unbind(stage):
        UsdShade.MaterialBindingAPI(stage.GetPrimAtPath("/World/GroundPlane/CollisionPlane")).UnbindAllBindings()
    f["unbound"] = Fleet([
        Entry("DefaultZero", car(wheel_shapes=False), controls={"accelerator": 1.0},
              edit=own_friction_table([0.75, 0.6], default=0.0)),
        Entry("DefaultOne", car(wheel_shapes=False), controls={"accelerator": 1.0},
              edit=own_friction_table([0.75, 0.6], default=1.0)),
    ], 2.0, stage_edit=unbind)
    # test_sweep_ground_gap: boxes 0.2 m high on the ground surface, 0.5 m deep, two per left wheel with a 0.1 m gap
    # under the wheel's centre; the cars start 0.2 m higher. NVIDIA's boxes are dynamic (add_rigid_box); here they are
    # static colliders (our simulator's ground), which they stay in NVIDIA's second of simulation anyway
    f["gap"] = Fleet([Entry("Sweep", car(raycast=False), shift=(0.2, 0.0, 0.0)),
                      Entry("Raycast", car(), shift=(0.2, 0.0, 0.0))], 1.0, stage_edit=_gap_boxes)
    return f


def _gap_boxes(stage):
    for car in ("Sweep", "Raycast"):
        body = stage.GetPrimAtPath(f"/World/{car}").GetAttribute("xformOp:translate").Get()
        for wheel in ("FrontLeftWheel", "RearLeftWheel"):
            offset = stage.GetPrimAtPath(f"/World/{car}/{wheel}").GetAttribute("xformOp:translate").Get()
            for k, dz in enumerate((0.3, -0.3)):
                path = f"/World/{car}{wheel}Box{k}"
                cube = UsdGeom.Cube.Define(stage, path)
                cube.AddTranslateOp().Set(Gf.Vec3d(body[0] + offset[0], 0.1, body[2] + offset[2] + dz))
                cube.AddScaleOp().Set(Gf.Vec3f(5.0, 0.1, 0.25))  # half extents of 10 x 0.2 x 0.5 m
                UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
                UsdPhysics.CollisionGroup(stage.GetPrimAtPath(SURFACE_GROUP)).GetCollidersCollectionAPI() \
                    .CreateIncludesRel().AddTarget(path)


FLEETS = _fleets()


@pytest.fixture(scope="module")
def stages(tmp_path_factory):
    cache: dict[tuple[str, str], dict] = {}

    def run(name: str, backend: str):
        if (name, backend) not in cache:
            fleet = FLEETS[name]
            cache[name, backend] = fleet.run_ours() if backend == "ours" else \
                fleet.run_physx(tmp_path_factory.mktemp(name))
        return cache[name, backend]
    return run


KNOWN: dict[tuple[str, str], str] = {}


@pytest.fixture(params=BACKENDS)
def backend(request):
    known_failures(request, KNOWN)
    return request.param


def _jounce(view, t: float, wheel: int = 0) -> float:
    return float(view.wheel(wheel, "suspensionJounce", t))


def test_suspension_spring_strength(stages, backend):
    v = stages("spring", backend)
    assert _jounce(v["Mod"], 2.0) > _jounce(v["Ref"], 2.0) * (45000.0 / 36000.0) * 0.9


def test_suspension_max_compression(stages, backend):
    v = stages("loaded", backend)
    assert _jounce(v["CompressionMod"], 2.0) > 0.1 * 1.2


def test_suspension_max_droop(stages, backend):
    v = stages("plain", backend)
    assert _jounce(v["DroopRef"], FIRST) == 0.0  # does not reach the ground
    assert _jounce(v["DroopMod"], FIRST) > 0.0


def test_suspension_travel_distance(stages, backend):
    v = stages("plain", backend)
    assert _jounce(v["TravelRef"], FIRST) == 0.0
    assert _jounce(v["TravelMod"], FIRST) > 0.0


def test_suspension_sprung_mass(stages, backend):
    v = stages("plain", backend)
    assert _jounce(v["SprungRef"], 2.0) == pytest.approx(_jounce(v["SprungMod"], 2.0), abs=0.001)


def _camber(view, t: float) -> float:
    """The angle between the wheel's up direction, projected into the up/side plane, and the world's up."""
    if "orientation" not in view.wheels[0]:
        pytest.fail("the backend reports no wheel orientation")
    x, y, z, w = (float(c) for c in view.wheels[0]["orientation"][view.step(t)])
    up = np.array([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)])  # rotated (0, 1, 0)
    up[2] = 0.0
    up /= np.linalg.norm(up)
    return math.acos(max(-1.0, min(1.0, float(up[1]))))


def _camber_test(v, name):
    assert abs(_camber(v[f"{name}Ref"], 2.0)) < math.radians(1.0)
    assert abs(_camber(v[f"{name}Mod"], 2.0) - CAMBER) < math.radians(1.0)


def test_suspension_camber_at_rest(stages, backend):
    _camber_test(stages("plain", backend), "CamberRest")


def test_suspension_camber_at_max_compression(stages, backend):
    _camber_test(stages("loaded", backend), "CamberCompression")


def test_suspension_camber_at_max_droop(stages, backend):
    _camber_test(stages("lifted", backend), "CamberDroop")


def test_suspension_max_droop_auto_compute_deprecated(stages, backend):
    v = stages("plain", backend)
    assert v["AutoDroopRef"].up(1.0) == pytest.approx(v["AutoDroopMod"].up(1.0), abs=0.001)


def test_default_values_and_length_scale(stages, backend):
    for drive, along in (("Basic", 0.01), ("Standard", 0.13)):
        ends = []
        for name in ("scale1_1", "scale100_1", "scale1_100", "scale100_100"):
            fleet = FLEETS[name]
            ends.append(stages(name, backend)[drive].pos(2.0) / fleet.L)
        assert ends[0][2] > 1.0  # moved at all
        for end in ends[1:]:
            delta = ends[0] - end
            assert abs(delta[0]) < 0.01 and abs(delta[1]) < 0.01, (drive, ends)
            assert abs(delta[2]) < along, (drive, ends)


def test_up_and_forward_axis_combinations(stages, backend):
    for name in [n for n in FLEETS if n.startswith("axes")]:
        v = stages(name, backend)["Car"]
        assert v.forward(2.0 + DT) > 1.0, name
        assert abs(v.up(2.0 + DT)) < 0.001, name
        assert abs(v.side(2.0 + DT)) < 0.001, name


def test_no_tire_friction_table(stages, backend):
    for name, v in stages("no_tables", backend).items():
        assert v.forward(1.0) > 0.3, name
        assert abs(v.side(1.0)) < 0.001 and abs(v.up(1.0)) < 0.001, name


def test_tire_friction_table_default_friction_change(stages, backend):
    v = stages("unbound", backend)
    assert abs(v["DefaultZero"].forward(2.0)) < 0.001
    assert v["DefaultOne"].forward(2.0) > 1.0
    for name in ("DefaultZero", "DefaultOne"):
        assert abs(v[name].side(2.0)) < 0.001 and abs(v[name].up(2.0)) < 0.001


def test_sweep_ground_gap(stages, backend):
    v = stages("gap", backend)
    assert abs(v["Sweep"].up(1.0)) < 0.01  # the swept wheels rest on the boxes' edges
    assert v["Raycast"].up(1.0) < -0.1  # the rays pass through the gap: the body sinks
