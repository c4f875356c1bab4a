"""Presets author complete vehicles that read clean in any units, round-trip, and follow the wizard's scaling."""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from conftest import written_values
from pxr import Usd, UsdGeom, UsdPhysics

from physxvehicle_usd import properties as P
from physxvehicle_usd.author import PRESETS, author_vehicle, describe_vehicle, preset_spec, save_vehicle, wizard
from physxvehicle_usd.author.describe import COLLISION_GROUPS, GROUND
from physxvehicle_usd.cli import main
from physxvehicle_usd.errors import InputError
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.write import write_stage

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
SAMPLE_PRESETS = ("truck", "tank", "basic_car", "robot_base")
CM = 100.0


def _vehicle(description):
    assert len(description.vehicles) == 1
    return next(iter(description.vehicles.values()))


@pytest.mark.parametrize("units", ["m", "cm", "in"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_reads_without_diagnostics(preset, units):
    spec = preset_spec(preset)
    description = read_stage(author_vehicle(spec, units, "Z"))
    assert [d.line() for d in description.diagnostics] == []
    vehicle = _vehicle(description)
    assert vehicle.path == f"/World/{spec.name}"
    assert sorted(w.index for w in vehicle.wheels) == list(range(spec.wheel_count))


@pytest.mark.parametrize("units", ["m", "cm"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_round_trips_through_the_writer(preset, units):
    first = read_stage(author_vehicle(preset_spec(preset), units, "Y"))
    second = read_stage(write_stage(first))
    assert written_values(first) == written_values(second)
    assert first.to_json()["diagnostics"] == second.to_json()["diagnostics"]


def test_centimetre_stage_holds_the_metre_vehicle_scaled():
    metre = _vehicle(read_stage(author_vehicle(preset_spec("car"), "m")))
    centi = _vehicle(read_stage(author_vehicle(preset_spec("car"), "cm")))
    assert centi.wheels[0].wheel["radius"] == pytest.approx(metre.wheels[0].wheel["radius"] * CM, rel=1e-6)
    assert centi.drive.engine["peakTorque"] == pytest.approx(metre.drive.engine["peakTorque"] * CM ** 2, rel=1e-6)
    assert centi.brakes["brakes0"]["maxBrakeTorque"] == pytest.approx(metre.brakes["brakes0"]["maxBrakeTorque"] * CM ** 2, rel=1e-6)
    assert centi.wheels[0].suspension["springStrength"] == pytest.approx(metre.wheels[0].suspension["springStrength"], rel=1e-6)
    assert centi.wheels[0].tire["longitudinalStiffness"] == pytest.approx(metre.wheels[0].tire["longitudinalStiffness"] * CM, rel=1e-6)
    assert centi.rigidBody["mass"] == metre.rigidBody["mass"]
    assert centi.ackermannSteering["wheelBase"] == pytest.approx(metre.ackermannSteering["wheelBase"] * CM, rel=1e-6)


def test_y_up_stage_uses_y_as_vertical_and_z_as_forward():
    description = read_stage(author_vehicle(preset_spec("car"), "m", "Y"))
    vehicle = _vehicle(description)
    assert vehicle.context["verticalAxis"] == "posY" and vehicle.context["longitudinalAxis"] == "posZ"
    left_front = next(w for w in vehicle.wheels if w.index == 0)
    assert left_front.attachment["suspensionTravelDirection"] == pytest.approx((0, -1, 0))
    x, _, z = left_front.attachment["suspensionFramePosition"]
    assert z > 0 and x > 0  # front axle ahead (+Z); the left side is +X for Y up, Z forward


def test_reference_car_gets_the_wizard_reference_values():
    vehicle = _vehicle(read_stage(author_vehicle(preset_spec("car"))))
    engine = vehicle.drive.engine
    assert engine["peakTorque"] == pytest.approx(wizard.REF_PEAK_TORQUE_STANDARD)
    assert engine["moi"] == pytest.approx(wizard.REF_ENGINE_MOI)
    assert engine["maxRotationSpeed"] == pytest.approx(wizard.REF_ENGINE_MAX_ROTATION_SPEED)
    assert vehicle.brakes["brakes0"]["maxBrakeTorque"] == pytest.approx(wizard.REF_BRAKE_TORQUE)
    wheel = vehicle.wheels[0]
    assert wheel.wheel["moi"] == pytest.approx(0.5 * 20.0 * 0.35 ** 2, rel=1e-6)
    assert wheel.tire["longitudinalStiffness"] == pytest.approx(500 * 9.81, rel=1e-6)
    ratios = vehicle.drive.gears["ratios"]
    assert ratios[0] == pytest.approx(-5.0) and ratios[1] == pytest.approx(5.0) and ratios[-1] == pytest.approx(1.0)
    assert vehicle.controller["targetGear"] == 255


@pytest.mark.parametrize("preset", list(PRESETS))
def test_each_wheel_rests_at_half_its_travel(preset):
    vehicle = _vehicle(read_stage(author_vehicle(preset_spec(preset))))
    for wheel in vehicle.wheels:
        s = wheel.suspension
        rest_jounce = s["sprungMass"] * 9.81 / s["springStrength"]
        assert rest_jounce == pytest.approx(0.5 * s["travelDistance"], rel=0.02), wheel.path


def test_scaling_follows_wheel_mass_and_radius():
    big = wizard.Scaling.of_wheel(0.7, 40.0)  # twice the radius, twice the mass
    assert big.moi == pytest.approx(8.0)
    assert big.stiffness == pytest.approx(4.0)
    assert big.top_speed == pytest.approx(1.0 / (2.0 * 0.8 + 0.2))
    truck = _vehicle(read_stage(author_vehicle(preset_spec("truck"))))
    scaling = wizard.Scaling.of_wheel(truck.wheels[0].wheel["radius"], truck.wheels[0].wheel["mass"])
    assert truck.drive.engine["peakTorque"] == pytest.approx(500 * scaling.moi * scaling.top_speed, rel=1e-5)
    assert truck.drive.clutch["strength"] == pytest.approx(10 * scaling.moi, rel=1e-5)


def test_tank_has_tracks_and_no_steering():
    vehicle = _vehicle(read_stage(author_vehicle(preset_spec("tank"))))
    tank = vehicle.tankDifferential
    assert list(tank["numberOfWheelsPerTrack"]) == [4, 4]
    assert list(tank["wheelIndicesInTrackOrder"]) == [0, 2, 4, 6, 1, 3, 5, 7]
    assert list(vehicle.brakes["brakes0"]["wheels"]) == [0, 2, 4, 6]
    assert list(vehicle.brakes["brakes1"]["wheels"]) == [1, 3, 5, 7]
    assert vehicle.tankController is not None
    assert vehicle.ackermannSteering is None
    # the parser derives steering from the deprecated per-wheel angles (0) when no steering API is applied
    steering = vehicle.steering
    assert steering is None or not any(steering["maxSteerAngle"] * m for m in steering["angleMultipliers"])
    assert sorted(vehicle.multiWheelDifferential["wheels"]) == list(range(8))


def test_truck_drives_its_rear_axles_and_steers_the_front_one():
    vehicle = _vehicle(read_stage(author_vehicle(preset_spec("truck"))))
    assert sorted(vehicle.multiWheelDifferential["wheels"]) == [2, 3, 4, 5]
    ackermann = vehicle.ackermannSteering
    assert (ackermann["wheel0"], ackermann["wheel1"]) == (1, 0)
    assert ackermann["maxSteerAngle"] == pytest.approx(math.radians(35))
    assert list(vehicle.brakes["brakes1"]["wheels"]) == [4, 5]


def test_robot_base_has_wheel_controllers_and_no_drive():
    vehicle = _vehicle(read_stage(author_vehicle(preset_spec("robot_base"))))
    assert vehicle.drive is None and vehicle.controller is None and not vehicle.brakes
    assert all(w.wheelController is not None for w in vehicle.wheels)


def test_basic_car_has_a_basic_drive_and_plain_steering():
    vehicle = _vehicle(read_stage(author_vehicle(preset_spec("basic_car"))))
    assert vehicle.drive.type == "basic"
    assert vehicle.drive.basic["peakTorque"] == pytest.approx(wizard.REF_PEAK_TORQUE_BASIC)
    assert list(vehicle.steering["wheels"]) == [0, 1]
    assert vehicle.controller["targetGear"] == 1


def test_shared_components_are_authored_once():
    stage = author_vehicle(preset_spec("truck"))
    wheel_rel = P.full_name(P.ATTACHMENT, "wheel")
    targets = {str(stage.GetPrimAtPath(f"/World/Truck/{side}Wheel{axle}").GetRelationship(wheel_rel).GetTargets()[0])
               for side in ("Left", "Right") for axle in (1, 2, 3)}
    assert targets == {"/World/TruckParts/Wheel"}


def test_collision_groups_keep_wheel_shapes_off_the_ground():
    stage = author_vehicle(preset_spec("car"), "cm")
    groups = {role: UsdPhysics.CollisionGroup(stage.GetPrimAtPath(path)) for role, path in COLLISION_GROUPS.items()}
    wheel_colliders = [str(p) for p in groups["wheel"].GetCollidersCollectionAPI().GetIncludesRel().GetTargets()]
    assert len(wheel_colliders) == 4
    for path in wheel_colliders:
        prim = stage.GetPrimAtPath(path)
        assert prim.IsA(UsdGeom.Cylinder) and prim.HasAPI(UsdPhysics.CollisionAPI)
        assert UsdGeom.Cylinder(prim).GetRadiusAttr().Get() == pytest.approx(35.0)  # centimetres
    ground = [str(p) for p in groups["groundSurface"].GetCollidersCollectionAPI().GetIncludesRel().GetTargets()]
    assert ground == [GROUND]
    filtered = [str(p) for p in groups["groundSurface"].GetFilteredGroupsRel().GetTargets()]
    assert COLLISION_GROUPS["wheel"] in filtered
    chassis = [str(p) for p in groups["chassis"].GetCollidersCollectionAPI().GetIncludesRel().GetTargets()]
    assert chassis == ["/World/Car/ChassisCollision"]
    vehicle = _vehicle(read_stage(stage))
    assert {w.attachment["collisionGroup"] for w in vehicle.wheels} == {COLLISION_GROUPS["groundQuery"]}


def test_centre_of_mass_is_the_prim_origin_and_the_wheels_touch_the_ground():
    description, geometry = describe_vehicle(preset_spec("car"), "m", "Z")
    vehicle = _vehicle(description)
    assert vehicle.rigidBody["centerOfMass"] == (0.0, 0.0, 0.0)
    height = vehicle.rigidBody["position"][2]
    for centre in geometry.wheel_centres.values():
        assert height + centre[2] == pytest.approx(geometry.wheel_radius)


@pytest.mark.parametrize("changes, message", [
    (dict(wheels=3), "even"),
    (dict(mass=-5.0), "mass must be positive"),
    (dict(wheels=44), "wheels"),
    (dict(chassis_length=0.5), "too large"),
])
def test_bad_choices_are_input_errors(changes, message):
    with pytest.raises(InputError, match=message):
        preset_spec("truck", **changes)


def test_unknown_preset_is_an_input_error():
    with pytest.raises(InputError, match="unknown preset"):
        preset_spec("boat")


def test_more_wheels_keep_the_rear_axles_driven():
    spec = preset_spec("truck", wheels=8)
    assert spec.axles == 4 and spec.resolved_driven_axles == (1, 2, 3)
    assert [d.line() for d in read_stage(author_vehicle(spec)).diagnostics] == []


def test_cli_new_writes_a_stage_in_the_asked_units(tmp_path, capsys):
    out = tmp_path / "truck.usda"
    main(["new", "truck", str(out), "--units", "mm", "--mass", "9000", "--up", "Y"])
    stage = Usd.Stage.Open(str(out))
    assert UsdGeom.GetStageMetersPerUnit(stage) == pytest.approx(0.001)
    assert UsdGeom.GetStageUpAxis(stage) == "Y"
    vehicle = _vehicle(read_stage(str(out)))
    assert vehicle.rigidBody["mass"] == pytest.approx(9000)
    assert vehicle.wheels[0].wheel["radius"] == pytest.approx(500.0)
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["new", "truck", "{out}", "--wheels", "5"], "even"),
    (["new", "truck", "{out}", "--units", "furlong"], "furlong"),
    (["new", "boat", "{out}"], "boat"),
    (["new", "car", "{dir}/car.txt"], "USD extension"),
])
def test_cli_new_rejects_bad_arguments_with_exit_2(tmp_path, capsys, argv, message):
    argv = [a.format(out=tmp_path / "x.usda", dir=tmp_path) for a in argv]
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x.usda").exists()


@pytest.mark.parametrize("preset", SAMPLE_PRESETS)
def test_committed_samples_are_what_the_presets_generate(tmp_path, preset):
    out = tmp_path / f"{preset}.usda"
    save_vehicle(preset_spec(preset), out, command=f"physxvehicle-usd new {preset} {preset}.usda")
    assert out.read_text() == (SAMPLES / preset / f"{preset}.usda").read_text()
