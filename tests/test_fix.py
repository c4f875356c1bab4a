"""`physxvehicle-usd fix`: every repair removes its finding and leaves every resolved value not meant to change as
it was, on the samples and on deliberately broken copies (a Wizard-style car without its vehicle context or its
scene, a car authored with deprecated attributes only, a vehicle without referenceFrameIsCenterOfMass, sprung
masses that miss the chassis mass, wheel shapes that touch the ground); the layer over the asset, --in-place,
--dry-run, --only and the reports. The ovphysx run of a broken and a fixed asset is a soak test.
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES, run_cli
from pxr import Sdf, Usd, UsdGeom, UsdPhysics
from stage_factory import build_vehicle

from physxvehicle_usd import properties as P
from physxvehicle_usd.author import preset_spec, save_vehicle
from physxvehicle_usd.fix import fix_file, fix_paths
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.read.context import REFERENCE_FRAME_KEY
from physxvehicle_usd.repairs import Edit, Repair
from physxvehicle_usd.validate import validate_file

SAMPLE_FILES = sorted(SAMPLES.rglob("*.usda"))
STEERLESS = {"tank.usda", "robot_base.usda"}  # which way is forward is not told by any steered wheel
DEPRECATION_CODES = {"DEPRECATED", "V18", "V21", "V23", "V37", "V76"}


# -- helpers --------------------------------------------------------------------------------------------------

def _values(description) -> dict:
    """The resolved description as JSON, without the diagnostics (what the repairs change) and the file name."""
    data = description.to_json()
    data.pop("diagnostics", None)
    data["stage"].pop("file", None)
    return data


def _differences(before, after, path: str = "") -> list[str]:
    """Where two JSON values differ beyond float32 rounding (the repairs author float32 attributes)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = [f"{path}/{k}: only {'before' if k in before else 'after'}" for k in before.keys() ^ after.keys()]
        for key in before.keys() & after.keys():
            out += _differences(before[key], after[key], f"{path}/{key}")
        return out
    if isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            return [f"{path}: {len(before)} != {len(after)} items"]
        return [d for i, (a, b) in enumerate(zip(before, after)) for d in _differences(a, b, f"{path}[{i}]")]
    if isinstance(before, float) and isinstance(after, (int, float)) and not isinstance(after, bool):
        return [] if math.isclose(before, after, rel_tol=1e-6, abs_tol=1e-9) else [f"{path}: {before} -> {after}"]
    return [] if before == after else [f"{path}: {before!r} -> {after!r}"]


def _codes(path) -> set[str]:
    return {f.code for f in validate_file(str(path)).findings}


def _wizard_car(tmp_path: Path) -> Path:
    path = tmp_path / "car.usda"
    save_vehicle(preset_spec("car"), path)
    return path


def _without_context(path: Path, scene_too: bool = False) -> Path:
    """The Wizard car as a reinforcement-learning environment gets it: its scene's vehicle context gone (or the
    scene itself)."""
    layer = Sdf.Layer.FindOrOpen(str(path))
    stage = Usd.Stage.Open(layer)
    scene = stage.GetPrimAtPath("/World/PhysicsScene")
    if scene_too:
        stage.RemovePrim(scene.GetPath())
    else:
        scene.RemoveAppliedSchema(P.CONTEXT)
        for name in P.full_names(P.CONTEXT).values():
            scene.RemoveProperty(name)
    layer.Save()
    return path


def _deprecated_car(shared: bool):
    """The factory car with every value that has a deprecated form authored in that form only."""
    car = build_vehicle(controls=False, shared=shared)
    scene, vehicle = car.scene, car.vehicle
    car.clear(scene, P.CONTEXT, "verticalAxis")
    car.clear(scene, P.CONTEXT, "longitudinalAxis")
    car.set(scene, P.CONTEXT, "upAxis", (0.0, 0.0, 1.0))
    car.set(scene, P.CONTEXT, "forwardAxis", (1.0, 0.1, 0.0))
    car.set(vehicle, P.VEHICLE, "minLongitudinalSlipDenominator", 3.0)
    parts = car.wheels if not shared else [car.parts["Wheel"]]
    for prim in parts:
        car.set(prim, P.WHEEL, "maxBrakeTorque", 3000.0)
        car.set(prim, P.WHEEL, "maxHandBrakeTorque", 1000.0)
        car.set(prim, P.WHEEL, "toeAngle", 0.01)
        car.set(prim, P.WHEEL, "maxSteerAngle", 0.4)
    for prim in car.wheels if not shared else [car.parts["Tire"]]:  # shared: front and rear rest loads differ
        car.set(prim, P.TIRE, "latStiffX", 2.0)
        car.set(prim, P.TIRE, "latStiffY", 17.0)
        car.set(prim, P.TIRE, "longitudinalStiffnessPerUnitGravity", 500.0)
        car.set(prim, P.TIRE, "camberStiffnessPerUnitGravity", 10.0)
    for prim in car.wheels if not shared else [car.parts["Suspension"]]:
        car.clear(prim, P.SUSPENSION, "travelDistance")
        car.set(prim, P.SUSPENSION, "maxCompression", 0.12)
        car.set(prim, P.SUSPENSION, "maxDroop", -1.0)  # worked out from each wheel's sprung mass
        car.set(prim, P.SUSPENSION, "camberAtRest", 0.01)
        car.set(prim, P.SUSPENSION, "camberAtMaxCompression", 0.02)
    for i, wheel in enumerate(car.wheels):
        position = car.prim(wheel).GetAttribute(P.full_name(P.ATTACHMENT, "suspensionFramePosition")).Get()
        car.clear(wheel, P.ATTACHMENT, "suspensionFramePosition")
        car.set(wheel, P.ATTACHMENT, "wheelCenterOfMassOffset", (position[0], position[1], position[2] - 0.05))
        car.set(wheel, P.ATTACHMENT, "driven", i < 2)
        if i == 3:
            car.set(wheel, P.ATTACHMENT, "tireForceAppPointOffset", (position[0], position[1], position[2] - 0.3))
    car.prim(vehicle).ApplyAPI(P.CONTROLLER)
    car.set(vehicle, P.CONTROLLER, "brake", 0.25)
    car.set(vehicle, P.CONTROLLER, "steerLeft", 0.3)
    car.set(vehicle, P.CONTROLLER, "steerRight", 0.1)
    return car


def _export(stage: Usd.Stage, path: Path) -> Path:
    stage.GetRootLayer().Export(str(path))
    return path


# -- the Wizard-style car that fails in a reinforcement-learning stage ---------------------------------------------

@pytest.mark.parametrize("scene_too", [False, True], ids=["no-context", "no-scene"])
def test_a_wizard_car_without_its_context_gets_one_and_its_sprung_masses(tmp_path, scene_too):
    original = _wizard_car(tmp_path)
    before = _values(read_stage(original))
    broken = _without_context(shutil.copy(original, tmp_path / "broken.usda") and tmp_path / "broken.usda", scene_too)
    assert {"V07", "V142"} | ({"A06"} if scene_too else set()) <= _codes(broken)
    asset_bytes = broken.read_bytes()

    result = fix_file(str(broken))

    assert result.status == "fixed" and result.output == str(tmp_path / "broken.fixed.usda")
    assert broken.read_bytes() == asset_bytes  # the asset untouched
    layer = Sdf.Layer.FindOrOpen(result.output)
    assert list(layer.subLayerPaths) == ["broken.usda"]
    assert layer.pseudoRoot.GetInfo("upAxis") == "Z" and layer.defaultPrim == "World"
    assert not {"V07", "V142", "A06"} & _codes(result.output)
    assert [p.finding.code for p in result.remaining] == []
    after = _values(read_stage(result.output))
    # the context is the one the Wizard wrote; the sprung masses the reader computed there are now authored
    assert _differences(before, after) == []
    suspensions = {w.suspension.path for w in read_stage(result.output).vehicles["/World/Car"].wheels}
    stage = Usd.Stage.Open(result.output)
    assert all(stage.GetPrimAtPath(p).GetAttribute(P.full_name(P.SUSPENSION, "sprungMass")).HasAuthoredValue()
               for p in suspensions)


def test_the_context_follows_the_steered_wheels_not_a_convention(tmp_path):
    path = tmp_path / "car.usda"
    save_vehicle(preset_spec("car"), path, up="Y")  # Y up: +Z forward
    _without_context(path)
    stage = Usd.Stage.Open(str(path))
    stage.GetPrimAtPath("/World/Car").GetAttribute(P.full_name(P.ACKERMANN, "wheel0")).Set(2)  # rear wheels steer
    stage.GetPrimAtPath("/World/Car").GetAttribute(P.full_name(P.ACKERMANN, "wheel1")).Set(3)
    stage.Save()
    fix = next(f.fix for f in validate_file(str(path)).findings if f.code == "V07")
    axes = {e.property: e.value for e in fix.edits if e.op == "set_attribute"}
    assert axes[P.full_name(P.CONTEXT, "verticalAxis")] == "posY"
    assert axes[P.full_name(P.CONTEXT, "longitudinalAxis")] == "negZ"


def test_no_repair_is_authored_inside_an_instance(tmp_path):
    original = _without_context(_wizard_car(tmp_path))
    stage = Usd.Stage.CreateNew(str(tmp_path / "instanced.usda"))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    env = stage.DefinePrim("/Env", "Xform")
    env.GetReferences().AddReference(original.name)
    env.SetInstanceable(True)  # the scene and the suspensions the repairs would write to are instance proxies
    stage.Save()
    result = fix_file(str(tmp_path / "instanced.usda"), dry_run=True)
    assert result.status == "unchanged"
    why = {p.finding.code: p.why_not for p in result.remaining}
    inside = "/Env/PhysicsScene lies inside an instance: repair the asset it instances (or make it not instanceable)"
    assert why["V07"] == inside and why["V142"] == f"no vehicle context can be given: {inside}"


def test_a_context_physx_rejects_gets_the_same_repair(tmp_path):
    car = build_vehicle()
    car.set(car.scene, P.CONTEXT, "longitudinalAxis", "sideways")  # V03: no axis token; the context is rejected
    result = fix_file(str(_export(car.stage, tmp_path / "bad_token.usda")))
    repaired = {f.code for made in result.repairs for f in made.findings}
    assert {"V03", "V07"} <= repaired and not {"V03", "V07"} & {p.finding.code for p in result.remaining}


def test_a_vehicle_that_steers_no_wheel_gets_no_guessed_context(tmp_path):
    path = tmp_path / "robot.usda"
    save_vehicle(preset_spec("robot_base"), path)
    _without_context(path)
    result = fix_file(str(path), dry_run=True)
    v07 = next(p for p in result.remaining if p.finding.code == "V07")
    assert v07.finding.fix is None and "steers no wheel" in v07.why_not


# -- deprecated attributes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("shared, in_place", [(False, False), (True, False), (False, True)],
                         ids=["own-components", "shared-components", "in-place"])
def test_the_upgrade_leaves_no_deprecation_and_the_same_values(tmp_path, shared, in_place):
    broken = _export(_deprecated_car(shared).stage, tmp_path / "old.usda")
    before = read_stage(broken)
    assert DEPRECATION_CODES <= {d.code for d in before.diagnostics}

    result = fix_file(str(broken), in_place=in_place)

    assert not DEPRECATION_CODES & _codes(result.output), [p.finding.line() for p in result.remaining]
    assert _differences(_values(before), _values(read_stage(result.output))) == []
    if shared:  # the tire and the suspension the front and rear wheels shared: a copy for the rear ones
        stage = Usd.Stage.Open(result.output)
        targets = {stage.GetPrimAtPath(w).GetRelationship(P.full_name(P.ATTACHMENT, "tire")).GetTargets()[0].name
                   for w in ("/World/Car/Wheel0", "/World/Car/Wheel3")}
        assert targets == {"Tire", "Tire_Wheel2"}
    if in_place:  # the deprecated attributes are gone from the asset, not blocked in it
        text = Path(result.output).read_text()
        assert not [name for name in ("maxDroop", "latStiffY", "wheelCenterOfMassOffset", "steerLeft") if name in text]


def test_deprecated_controller_inputs_with_time_samples_are_left_with_a_reason(tmp_path):
    car = _deprecated_car(shared=False)
    car.prim(car.vehicle).GetAttribute(P.full_name(P.CONTROLLER, "steerLeft")).Set(0.5, 10.0)
    result = fix_file(str(_export(car.stage, tmp_path / "cycle.usda")))
    left = [p for p in result.remaining if p.finding.property == P.full_name(P.CONTROLLER, "steerLeft")]
    assert left and "time-sampled" in left[0].why_not


# -- reference frame, sprung masses -----------------------------------------------------------------------------

def test_a_missing_reference_frame_flag_is_written_as_both_readers_take_it(tmp_path):
    car = build_vehicle()
    car.prim(car.vehicle).ClearCustomDataByKey(REFERENCE_FRAME_KEY)
    path = _export(car.stage, tmp_path / "flagless.usda")
    before = _values(read_stage(path))
    result = fix_file(str(path))
    assert "V81" not in _codes(result.output)
    assert Usd.Stage.Open(result.output).GetPrimAtPath(car.vehicle).GetCustomDataByKey(REFERENCE_FRAME_KEY) is False
    after = _values(read_stage(result.output))
    assert _differences(before, after) == ["/vehicles//World/Car/vehicle/referenceFrameIsCenterOfMass: True -> False"] \
        or not _differences(before, after)  # the centre of mass is the prim origin: both frames are one


def test_sprung_masses_that_miss_the_chassis_mass_are_solved_again(tmp_path):
    car = build_vehicle(values={(P.SUSPENSION, "sprungMass"): 300.0}, shared=False)  # 4 x 300 for a 1500 kg car
    path = _export(car.stage, tmp_path / "light.usda")
    assert "A09" in _codes(path)
    result = fix_file(str(path))
    vehicle = read_stage(result.output).vehicles[car.vehicle]
    assert "A09" not in _codes(result.output)
    assert sum(w.suspension["sprungMass"] for w in vehicle.wheels) == pytest.approx(1500.0, rel=1e-5)
    assert [round(w.suspension["sprungMass"], 3) for w in vehicle.wheels] == [388.889, 388.889, 361.111, 361.111]


def test_one_suspension_shared_by_wheels_of_different_loads_is_copied_for_the_rear_ones(tmp_path):
    car = build_vehicle(values={(P.SUSPENSION, "sprungMass"): 300.0})  # one suspension for front and rear
    path = _export(car.stage, tmp_path / "light.usda")
    before = _values(read_stage(path))
    result = fix_file(str(path))
    assert "A09" not in _codes(result.output)
    after = read_stage(result.output)
    wheels = after.vehicles[car.vehicle].wheels
    assert [(w.suspension.path.rsplit("/", 1)[1], round(w.suspension["sprungMass"], 3)) for w in wheels] == [
        ("Suspension", 388.889), ("Suspension", 388.889), ("Suspension_Wheel2", 361.111), ("Suspension_Wheel2", 361.111)]
    changed = {d.split(":")[0].rsplit("/", 1)[-1] for d in _differences(before, _values(after))}
    # the masses, and what PhysX derives from them: the tires' rest loads, the rest droop (the force points lie there)
    assert changed == {"sprungMass", "restLoad", "suspensionForceAppPoint[0][3]", "tireForceAppPoint[0][3]"}


# -- the samples -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.name)
def test_a_sample_without_its_context_is_fixed_back_to_itself(tmp_path, sample):
    """Each sample loses its vehicle context; the fix gives it back (axes from the up axis and the steered
    wheels), and every resolved value is the sample's own (the sprung masses the reader computed, now authored)."""
    copy = tmp_path / sample.name
    shutil.copytree(sample.parent, tmp_path, dirs_exist_ok=True)
    before = _values(read_stage(copy))
    assert fix_file(str(copy)).status == "unchanged"  # nothing to fix in a sample as it is
    stage = Usd.Stage.Open(str(copy))
    for scene in [p for p in stage.Traverse() if p.HasAPI(P.CONTEXT)]:
        scene.RemoveAppliedSchema(P.CONTEXT)
    stage.Save()
    result = fix_file(str(copy))
    if sample.name in STEERLESS:  # which way is forward is not the fix's to guess
        assert [p.why_not for p in result.remaining if p.finding.code == "V07"] == \
            [f"{v}: it steers no wheel: which way is its front cannot be told from its wheels" for v in before["vehicles"]]
        return
    assert not {"V07", "V142"} & _codes(result.output)
    assert _differences(before, _values(read_stage(result.output))) == []


# -- the command ------------------------------------------------------------------------------------------------

def test_in_place_rewrites_the_asset_and_leaves_no_temporary_file(tmp_path):
    path = _without_context(_wizard_car(tmp_path))
    result = fix_file(str(path), in_place=True)
    assert result.output == str(path) and not (tmp_path / "car.fixed.usda").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["car.usda"]
    assert not {"V07", "V142"} & _codes(path)
    assert Sdf.Layer.FindOrOpen(str(path)).subLayerPaths == []


def test_dry_run_lists_and_writes_nothing(tmp_path, capfd):
    path = _without_context(_wizard_car(tmp_path))
    asset = path.read_bytes()
    ran = run_cli(capfd, "fix", "--dry-run", str(path))
    assert ran.returncode == 0
    assert "repair V07 /World/Car" in ran.stdout and "would write" in ran.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["car.usda"] and path.read_bytes() == asset


def test_only_restricts_the_repairs_and_the_rest_is_listed(tmp_path, capfd):
    path = _without_context(_wizard_car(tmp_path))
    out = tmp_path / "out" / "repaired.usda"
    ran = run_cli(capfd, "fix", "--only", "V07", "-o", str(out), "--format", "json", str(path))
    report = json.loads(ran.stdout)
    assert [f["code"] for r in report["files"][0]["repairs"] for f in r["findings"]] == ["V07"]
    assert Sdf.Layer.FindOrOpen(str(out)).subLayerPaths == ["../car.usda"]
    # the context alone already lets PhysX compute the sprung masses: nothing is left
    assert report["files"][0]["remaining"] == [] and ran.returncode == 0


def test_a_clean_file_writes_nothing_and_says_so(tmp_path, capfd):
    path = _wizard_car(tmp_path)
    ran = run_cli(capfd, "fix", str(path))
    assert ran.returncode == 0 and "nothing to repair: nothing written" in ran.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["car.usda"]


def test_exit_codes(tmp_path, capfd):
    assert run_cli(capfd, "fix", str(tmp_path / "missing.usda")).returncode == 2
    car = build_vehicle()
    car.prim(car.vehicle).RemoveAPI(UsdPhysics.RigidBodyAPI)  # V67: an error no repair makes
    path = _export(car.stage, tmp_path / "bodyless.usda")
    ran = run_cli(capfd, "fix", str(path))
    assert ran.returncode == 1 and "left error V67" in ran.stdout
    assert run_cli(capfd, "fix", "--in-place", "-o", "x.usda", str(path)).returncode == 2


def test_folders_get_a_layer_per_file_and_skip_earlier_outputs(tmp_path):
    for name in ("a", "b"):
        _without_context(_wizard_car(tmp_path / name))
    first = fix_paths([str(tmp_path)])
    assert sorted(Path(r.output).relative_to(tmp_path).as_posix() for r in first) == \
        ["a/car.fixed.usda", "b/car.fixed.usda"]
    again = fix_paths([str(tmp_path)], dry_run=True)
    assert sorted(r.file for r in again) == sorted(r.file for r in first)


def test_validate_json_lists_each_fix(tmp_path, capfd):
    path = _without_context(_wizard_car(tmp_path))
    report = json.loads(run_cli(capfd, "validate", "--format", "json", str(path)).stdout)
    fixes = {f["code"]: f["fix"] for f in report["findings"]}
    assert fixes["V07"]["edits"][0] == {"op": "apply_api", "prim": "/World/PhysicsScene", "property": None,
                                        "value": None, "type_name": P.CONTEXT, "why": fixes["V07"]["edits"][0]["why"]}
    assert Repair.model_validate(fixes["V142"]).edits[0].op == "set_attribute"


def test_a_repair_applies_twice_to_the_same_result():
    stage = Usd.Stage.CreateInMemory()
    repair = Repair(summary="s", edits=(
        Edit(op="define_prim", prim="/Scene", type_name="PhysicsScene", why="w"),
        Edit(op="apply_api", prim="/Scene", type_name=P.CONTEXT, why="w"),
        Edit(op="set_attribute", prim="/Scene", property=P.full_name(P.CONTEXT, "verticalAxis"), value="posZ",
             type_name="token", why="w"),
        Edit(op="add_relationship_target", prim="/Scene", property="rel", value="/Other", why="w"),
        Edit(op="set_custom_data", prim="/Scene", property="a:b", value=True, why="w"),
    ))
    repair.apply(stage)
    once = stage.GetRootLayer().ExportToString()
    repair.apply(stage)
    assert stage.GetRootLayer().ExportToString() == once
    assert Repair.model_validate_json(repair.model_dump_json()) == repair


# -- wheel collision shapes -------------------------------------------------------------------------------------

WHEEL_GROUP, GROUND_GROUP = "/World/VehicleWheelCollisionGroup", "/World/GroundSurfaceCollisionGroup"


def _filtered(stage: Usd.Stage, group: str) -> UsdPhysics.CollisionGroup:
    return UsdPhysics.CollisionGroup(stage.GetPrimAtPath(group)).GetFilteredGroupsRel()


@pytest.mark.parametrize("broken", ["no-groups", "unfiltered", "chassis-group"])
def test_wheel_shapes_touching_the_ground_go_into_a_group_filtered_from_it(tmp_path, broken):
    path = _wizard_car(tmp_path)
    before = _values(read_stage(path))
    stage = Usd.Stage.Open(str(path))
    if broken == "no-groups":  # A03: wheels (and ground) in no group at all
        stage.RemovePrim(WHEEL_GROUP)
        stage.RemovePrim(GROUND_GROUP)
    elif broken == "unfiltered":  # A07: the wheel group and the ground's no longer filter each other
        _filtered(stage, WHEEL_GROUP).RemoveTarget(GROUND_GROUP)
        _filtered(stage, GROUND_GROUP).RemoveTarget(WHEEL_GROUP)
    else:  # A07 with the chassis in the wheels' group: no repair would spare the chassis
        _filtered(stage, GROUND_GROUP).RemoveTarget(WHEEL_GROUP)
        _filtered(stage, WHEEL_GROUP).RemoveTarget(GROUND_GROUP)
        UsdPhysics.CollisionGroup(stage.GetPrimAtPath(WHEEL_GROUP)).GetCollidersCollectionAPI().GetIncludesRel() \
            .AddTarget("/World/Car/ChassisCollision")
    stage.Save()
    code = "A03" if broken == "no-groups" else "A07"
    assert code in _codes(path)
    result = fix_file(str(path))
    if broken == "chassis-group":
        why = {p.why_not for p in result.remaining if p.finding.code == "A07"}
        assert why == {f"{WHEEL_GROUP} also holds /World/Car/ChassisCollision: filtering it would keep those off the "
                       "ground too; give the wheel shapes a group of their own"}
        return
    assert not {"A03", "A07"} & _codes(result.output)
    after = _values(read_stage(result.output))
    groups_before, groups_after = before.pop("collisionGroups"), after.pop("collisionGroups")
    assert groups_after != groups_before  # what the repair is for; every other resolved value stays
    assert _differences(before, after) == []
