"""The reader's copy sharing (read/copies.py): a fleet of references of one asset reads to the same description as
a full read of every vehicle (read_stage(..., share_copies=False)), value for value, provenance for provenance
and diagnostic for diagnostic, whatever the copies' own opinions and wherever they stand. Each test also says
how many records were moved from a template (CopyStats.moved), so that a fast path that quietly stopped sharing,
or shared what it must not, fails here."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from fleet_factory import asset_layer, car, fleet, read_both
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade
from stage_factory import add_copies, build_vehicle, car_spec, preset_stage, set_property

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import CopyStats, read_stage
from physxvehicle_usd.read.collision import collision_groups, read_collision_groups
from physxvehicle_usd.read.copies import Fleet, Subtree

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import hostile_corpus  # noqa: E402


def _wheel(description, i: int, index: int = 0) -> str:
    return sorted(description.vehicles[car(0)].wheels, key=lambda w: w.index)[index].path.replace(car(0), car(i))


def test_plain_copies_are_parsed_twice_and_moved_to_every_other_copy(source, asset):
    full, fast, stats = read_both(fleet(source.stage, asset, 8))
    assert sorted(fast.vehicles) == sorted(car(i) for i in range(8))
    assert stats.moved == 6  # the template and its twin are parsed in full
    # each copy stands where its slot puts it, and its paths are its own
    for i in range(8):
        record = fast.vehicles[car(i)]
        start = full.vehicles[car(0)].rigidBody["position"][0]
        assert record.rigidBody["position"][0] == pytest.approx(start + 6.0 * i)
        assert {w.path.rsplit("/", 1)[0] for w in record.wheels} == {car(i)}
        assert record.drive.path == car(i)


def test_moved_records_are_independent_objects(source, asset):
    """Changing one copy's record (as a caller randomising a fleet would) leaves the others alone."""
    _, fast, stats = read_both(fleet(source.stage, asset, 5))
    assert stats.moved == 3
    a, b = fast.vehicles[car(3)], fast.vehicles[car(4)]
    assert a.wheels[0].tire is not b.wheels[0].tire
    assert a.drive.gears["ratios"] is not b.drive.gears["ratios"]
    stiffness = b.wheels[0].tire["longitudinalStiffness"]
    a.wheels[0].tire.set("longitudinalStiffness", 1.0, a.wheels[0].tire.source("longitudinalStiffness"))
    a.drive.gears["ratios"].append(0.5)
    assert b.wheels[0].tire["longitudinalStiffness"] == stiffness
    gears = len(fast.vehicles[car(2)].drive.gears["ratios"])
    assert len(b.drive.gears["ratios"]) == gears == len(a.drive.gears["ratios"]) - 1


def test_copies_with_their_own_opinions_are_read_on_their_own(source, asset):
    """A changed tire stiffness, a changed mass, an extra API, a deactivated wheel and a broken value, each on one
    copy: those copies are parsed in full (their prim stacks differ), the others are still shared."""
    stage = fleet(source.stage, asset, 12)
    reference = read_stage(stage, share_copies=False)
    wheel = _wheel(reference, 2, 1)
    set_property(stage.OverridePrim(wheel), P.TIRE, "longitudinalStiffness", 9000.0)
    UsdPhysics.MassAPI(stage.GetPrimAtPath(car(3))).GetMassAttr().Set(2000.0)
    stage.OverridePrim(_wheel(reference, 4, 0)).ApplyAPI(P.WHEEL_CONTROLLER)
    stage.OverridePrim(_wheel(reference, 5, 3)).SetActive(False)
    set_property(stage.OverridePrim(_wheel(reference, 6, 2)), P.WHEEL, "radius", -1.0)
    full, fast, stats = read_both(stage)
    assert stats.moved == 12 - 5 - 2
    tire = next(w.tire for w in full.vehicles[car(2)].wheels if w.path == wheel)
    assert tire["longitudinalStiffness"] == 9000.0
    assert full.vehicles[car(3)].rigidBody["mass"] == 2000.0
    assert full.vehicles[car(0)].rigidBody["mass"] != 2000.0
    rejected = {d.prim for d in full.diagnostics if d.code == "REJECTED"}
    assert {car(4), car(6)} <= rejected
    assert any(d.code == "V90" and d.prim == _wheel(reference, 4, 0) for d in full.diagnostics)
    assert any(d.code == "V14" and d.prim == _wheel(reference, 6, 2) for d in full.diagnostics)
    assert car(5) not in full.vehicles or len(full.vehicles[car(5)].wheels) == 3


def test_the_same_opinion_on_every_copy_is_still_shared(source, asset):
    """benchmarks/fleet.py's sub-step fleets author the same values over every copy: equal specs, one asset."""
    stage = fleet(source.stage, asset, 6)
    for i in range(6):
        set_property(stage.GetPrimAtPath(car(i)), P.VEHICLE, "lowForwardSpeedSubStepCount", 11)
    full, _, stats = read_both(stage)
    assert stats.moved == 4
    assert {v.vehicle["lowForwardSpeedSubStepCount"] for v in full.vehicles.values()} == {11}


def test_a_broken_asset_rejects_every_copy_with_its_own_diagnostics(source, tmp_path):
    asset = asset_layer(source.stage, "/World/Car", tmp_path)
    broken = Usd.Stage.Open(str(asset))
    set_property(broken.GetPrimAtPath("/World/Car/Wheel1"), P.WHEEL, "radius", -1.0)
    broken.GetPrimAtPath("/World/Car").ClearCustomDataByKey("physxVehicle")  # V81, a warning per copy
    broken.Save()
    full, _, stats = read_both(fleet(source.stage, asset, 5))
    assert stats.moved == 3
    assert full.vehicles == {}
    for i in range(5):
        codes = [d.code for d in full.diagnostics if d.prim.startswith(car(i))]
        assert "V14" in codes and "V81" in codes and codes[-1] == "REJECTED"


@pytest.mark.parametrize("arrangement", ["rotated and scaled alike", "each turned its own way", "sheared alike"])
def test_copies_under_rotated_and_scaled_parents(source, asset, arrangement):
    """A copy's pose comes from its own world transform; its scale and V69/V70 verdicts must be its template's."""
    def place(slot: UsdGeom.Xformable, i: int) -> None:
        if arrangement == "rotated and scaled alike":
            slot.AddRotateXYZOp().Set(Gf.Vec3f(0.0, 0.0, 30.0))
            slot.AddScaleOp().Set(Gf.Vec3f(2.0, 2.0, 2.0))
        elif arrangement == "each turned its own way":
            slot.AddRotateXYZOp().Set(Gf.Vec3f(5.0 * i, 0.0, 17.0 * i))
        else:
            slot.AddRotateXYZOp().Set(Gf.Vec3f(0.0, 0.0, 45.0))
            slot.AddScaleOp().Set(Gf.Vec3f(1.0, 2.0, 1.0))
            UsdGeom.Xformable(slot.GetPrim().GetStage().OverridePrim(slot.GetPath().AppendChild("Car"))).AddRotateZOp(
                opSuffix="turn").Set(30.0)

    full, fast, stats = read_both(fleet(source.stage, asset, 6, place=place))
    if arrangement == "each turned its own way":
        # every copy has its own rotation: records move where the decomposed scale comes out the same
        assert stats.moved <= 4
        orientations = {fast.vehicles[car(i)].rigidBody["orientation"] for i in range(6)}
        assert len(orientations) == 6
    else:
        assert stats.moved == 4
    if arrangement == "sheared alike":
        assert all(any(d.code == "V70" and d.prim == car(i) for d in full.diagnostics) for i in range(6))
    if arrangement == "rotated and scaled alike":
        scales = {fast.vehicles[car(i)].rigidBody["scale"] for i in range(6)}
        assert len(scales) == 1 and scales.pop() == pytest.approx((2.0, 2.0, 2.0))


def test_a_centimetre_y_up_fleet(tmp_path):
    source = preset_stage(car_spec("standard"), up="Y", units="cm")
    asset = asset_layer(source, "/World/Car", tmp_path)
    full, fast, stats = read_both(fleet(source, asset, 5))
    assert stats.moved == 3
    assert full.stage.metersPerUnit == 0.01 and full.stage.upAxis == "Y"
    assert len(fast.vehicles) == 5


def test_copies_whose_components_lie_outside_are_read_in_full():
    """Internal references of a car whose parts are shared prims outside it: each copy's parse meets components
    the pass has parsed already, so no copy is a template."""
    car_stage = build_vehicle(shared=True)
    add_copies(car_stage.stage, "/World/Car", [f"/World/Copy{i}" for i in range(5)])
    full, _, stats = read_both(car_stage.stage)
    assert stats.moved == 0
    assert len(full.vehicles) == 6


def test_copies_reaching_outside_their_reference_are_read_in_full(source, tmp_path, capfd):
    """A relationship of the asset that names a prim outside the referenced vehicle: USD warns about each copy
    (a warning per copy in the diagnostics), so none is moved from a template. What USD printed while a template
    was watched is handed on to read_stage's own capture: in the diagnostics, in order, and not on the terminal."""
    asset = asset_layer(source.stage, "/World/Car", tmp_path)
    layer = Sdf.Layer.FindOrOpen(str(asset))
    stage = Usd.Stage.Open(layer)
    wheel = stage.GetPrimAtPath("/World/Car/Wheel0")
    wheel.CreateRelationship(P.full_name(P.TIRE, "frictionTable"), custom=False).SetTargets(["/World/Elsewhere"])
    layer.Save()
    capfd.readouterr()
    full, _, stats = read_both(fleet(source.stage, asset, 4))
    assert capfd.readouterr().err == ""
    assert stats.moved == 0
    assert all(any(d.code == "USD" and car(i) in d.message for d in full.diagnostics) for i in range(4))


def test_instanceable_copies(source, asset):
    stage = fleet(source.stage, asset, 5)
    for i in range(5):
        stage.GetPrimAtPath(car(i)).SetInstanceable(True)
    assert stage.GetPrimAtPath(car(0) + "/Wheel0").IsInstanceProxy()
    full, _, stats = read_both(stage)
    assert stats.moved == 3
    assert len(full.vehicles) == 5


def test_an_asset_holding_a_friction_table_is_not_shared(source, tmp_path):
    """The traversal finds friction tables (and contexts, scenes, vehicles) in every copy: such an asset's copies
    are read in full."""
    asset = asset_layer(source.stage, "/World/Car", tmp_path)
    layer = Sdf.Layer.FindOrOpen(str(asset))
    Usd.Stage.Open(layer).DefinePrim("/World/Car/Table", P.TABLE)
    layer.Save()
    full, _, stats = read_both(fleet(source.stage, asset, 4))
    assert stats.moved == 0
    assert sorted(full.tireFrictionTables) == [car(i) + "/Table" for i in range(4)]


def test_copies_with_colliders_share_only_equal_mass_properties(source, tmp_path):
    """Mass from colliders depends on the density of a physics material bound from above the copy: the copy under
    a slot binding a denser material has a mass of its own and is not moved from the others' template."""
    asset = asset_layer(source.stage, "/World/Car", tmp_path)
    layer = Sdf.Layer.FindOrOpen(str(asset))
    asset_stage = Usd.Stage.Open(layer)
    body = asset_stage.GetPrimAtPath("/World/Car")
    for name in ("mass", "diagonalInertia", "centerOfMass", "principalAxes"):
        body.RemoveProperty(f"physics:{name}")
    chassis = UsdGeom.Cube.Define(asset_stage, "/World/Car/Chassis")
    chassis.CreateSizeAttr(2.0)
    UsdPhysics.CollisionAPI.Apply(chassis.GetPrim())
    layer.Save()
    stage = fleet(source.stage, asset, 6)
    material = UsdShade.Material.Define(stage, "/World/Dense")
    UsdPhysics.MaterialAPI.Apply(material.GetPrim()).CreateDensityAttr(5000.0)
    slot = stage.GetPrimAtPath("/World/Fleet/Slot_4")
    UsdShade.MaterialBindingAPI.Apply(slot).Bind(material, materialPurpose="physics")
    full, _, stats = read_both(stage)
    masses = [full.vehicles[car(i)].rigidBody["mass"] for i in range(6)]
    assert masses[4] != masses[0] and len(set(masses[:4] + masses[5:])) == 1
    assert stats.moved == 3


def test_a_masked_stage_is_read_in_full(source, asset, tmp_path):
    path = tmp_path / "fleet.usda"
    stage = fleet(source.stage, asset, 4)  # held: a Python layer handle does not keep its stage's layer alive
    stage.GetRootLayer().Export(str(path))
    masked = Usd.Stage.OpenMasked(str(path), Usd.StagePopulationMask(["/World"]))
    _, fast, stats = read_both(masked)
    assert stats.moved == 0 and len(fast.vehicles) == 4


def test_sharing_is_on_by_default_and_off_on_request(source, asset):
    stage = fleet(source.stage, asset, 4)
    on, off = CopyStats(), CopyStats()
    read_stage(stage, stats=on)
    read_stage(stage, share_copies=False, stats=off)
    assert (on.moved, off.moved) == (2, 0)


def _hostile_cases() -> list[tuple[str, str, str, Sdf.ValueTypeName, object]]:
    """The hostile corpus's values (fuzz/hostile_corpus.py: a wrong type, NaN, infinity, out of range) for every
    property of the factory car's applied schemas (asset_layer writes them on the same prims): (label, prim,
    attribute, type, value)."""
    vehicle = _HOSTILE_SOURCE.stage.GetPrimAtPath("/World/Car")
    owners: dict[str, tuple[str, str | None]] = {}
    for prim in Usd.PrimRange(vehicle):
        for api in prim.GetAppliedSchemas():
            schema, _, instance = api.partition(":")
            owners.setdefault(schema, (str(prim.GetPath()), instance or None))
    cases = []
    for row in P.TABLE_ROWS:
        if row.schema not in owners or not P.is_schema_property(row.schema, row.base) or row.deprecated_by:
            continue
        prim, instance = owners[row.schema]
        definition = Usd.SchemaRegistry().FindAppliedAPIPrimDefinition(row.schema)
        attribute = definition.GetAttributeDefinition(P.full_name(row.schema, row.base)) if definition else None
        if not attribute:
            continue  # a relationship
        for label, type_name, value in hostile_corpus._hostile_values(row, attribute.GetTypeName()):
            cases.append((f"{row.schema}.{row.base}: {label}", prim, P.full_name(row.schema, row.base, instance),
                          type_name, value))
    return cases


_HOSTILE_SOURCE = build_vehicle(shared=False, autobox=True)
HOSTILE = _hostile_cases()[::3]  # a third of them (about 60); all of them pass (tried)


@pytest.fixture(scope="module")
def hostile_asset(tmp_path_factory):
    return asset_layer(_HOSTILE_SOURCE.stage, "/World/Car", tmp_path_factory.mktemp("hostile"))


def test_the_hostile_cases_cover_the_asset():
    assert len(HOSTILE) >= 50
    assert {label.split(".")[0] for label, *_ in HOSTILE} >= {P.VEHICLE, P.TIRE, P.WHEEL, P.SUSPENSION, P.ENGINE}


@pytest.mark.parametrize("case", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_an_asset_with_a_hostile_value_reads_alike_with_and_without_sharing(case, hostile_asset, tmp_path):
    """Every copy of a broken asset says what the full read says about it, in the same words and order."""
    label, prim, name, type_name, value = case
    asset = tmp_path / "hostile_asset.usda"
    shutil.copy(hostile_asset, asset)
    layer = Sdf.Layer.FindOrOpen(str(asset))
    hostile_corpus._set(layer, prim, name, type_name, value)
    layer.Save()
    full, _, stats = read_both(fleet(_HOSTILE_SOURCE.stage, asset, 4))
    internal = any(d.code == "INTERNAL" for d in full.diagnostics)
    # a template whose parse failed unexpectedly is never shared; every other broken asset is
    assert stats.moved == (0 if internal else 2)
    assert any(d.property == name for d in full.diagnostics if d.prim.startswith(car(3)) or d.prim == "/") or internal


def test_a_copys_position_is_rounded_to_single_precision_as_usd_physics_rounds_it():
    """A further copy's position is its world translation in single precision (UsdPhysics' GfVec3f), rounded
    by packing: equal to Gf's for ordinary, tiny, huge and special values."""
    from physxvehicle_usd.read.copies import _single

    values = [Gf.Vec3d(0.1, -2.5e6, 0.550000011920929), Gf.Vec3d(1e-46, 1.4e-45, 3.4028234663852886e38),
              Gf.Vec3d(-1e39, 3.4028235e38, 3.4028236e38), Gf.Vec3d(float("nan"), float("inf"), -0.0)]
    for value in values:
        assert repr(_single(value)) == repr(tuple(Gf.Vec3f(value)[:]))


@pytest.mark.parametrize("arrangement", ["rotated and scaled alike", "each turned its own way"])
def test_copies_with_colliders_under_rotated_and_scaled_parents(source, tmp_path, arrangement):
    """A copy with colliders takes its world frame's facts and its orientation from an earlier copy whose world
    matrix has the same linear part (read/copies.py `Group.framed`), and its box and cylinder from the pose and size
    worked out once (read/collision.py `_placed_convex`): it reads exactly as in full, value for value."""
    asset = asset_layer(source.stage, "/World/Car", tmp_path)
    layer = Sdf.Layer.FindOrOpen(str(asset))
    asset_stage = Usd.Stage.Open(layer)
    chassis = UsdGeom.Cube.Define(asset_stage, "/World/Car/Chassis")
    chassis.CreateSizeAttr(2.0)
    chassis.AddTranslateOp().Set(Gf.Vec3d(0.1, 0.2, 0.3))
    chassis.AddRotateXYZOp().Set(Gf.Vec3f(0.0, 10.0, 20.0))
    drum = UsdGeom.Cylinder.Define(asset_stage, "/World/Car/Drum")
    drum.CreateRadiusAttr(0.3)
    drum.CreateHeightAttr(0.5)
    drum.AddRotateXYZOp().Set(Gf.Vec3f(90.0, 0.0, 0.0))
    for prim in (chassis.GetPrim(), drum.GetPrim()):
        UsdPhysics.CollisionAPI.Apply(prim)
    layer.Save()

    def place(slot: UsdGeom.Xformable, i: int) -> None:
        if arrangement == "rotated and scaled alike":
            slot.AddRotateXYZOp().Set(Gf.Vec3f(0.0, 0.0, 30.0))
            slot.AddScaleOp().Set(Gf.Vec3f(2.0, 2.0, 2.0))
        else:
            slot.AddRotateXYZOp().Set(Gf.Vec3f(0.0, 0.0, 17.0 * (i % 2)))

    full, fast, stats = read_both(fleet(source.stage, asset, 6, place=place))
    assert stats.moved == 4
    for i in range(6):
        moved, parsed = fast.vehicles[car(i)], full.vehicles[car(i)]
        assert moved.rigidBody == parsed.rigidBody and moved.collision == parsed.collision
        assert sorted(len(shape.points) for shape in moved.collision) == [8, 60]
    orientations = {fast.vehicles[car(i)].rigidBody["orientation"] for i in range(6)}
    assert len(orientations) == (1 if arrangement == "rotated and scaled alike" else 2)


@pytest.mark.parametrize("case", ["own groups", "a group including the stage's root", "a class filtering one copy",
                                  "a group filtering a cube"])
def test_copies_collision_groups_are_their_first_copys_moved_where_that_is_what_usd_composes(source, tmp_path, case):
    """A copy's collision groups are its asset's first copy's moved to its root (read/collision.py _CopiedGroups),
    the second copy's worked out in full as a check, and the further copies' subtrees not traversed: a group whose
    collection reaches outside the copy (its include-root) is worked out for every copy, and so are the groups of an
    asset whose second copy composes other than the moved first (a class on the stage filtering the first copy's
    group by its path). A moved group whose first copy's is said to filter a prim that is no group is said so too."""
    asset = asset_layer(source.stage, "/World/Car", tmp_path)
    layer = Sdf.Layer.FindOrOpen(str(asset))
    asset_stage = Usd.Stage.Open(layer)
    chassis = UsdGeom.Cube.Define(asset_stage, "/World/Car/Chassis")
    UsdPhysics.CollisionAPI.Apply(chassis.GetPrim())
    group = UsdPhysics.CollisionGroup.Define(asset_stage, "/World/Car/ChassisGroup")
    group.GetCollidersCollectionAPI().GetIncludesRel().AddTarget(chassis.GetPath())
    other = UsdPhysics.CollisionGroup.Define(asset_stage, "/World/Car/OtherGroup")
    group.GetFilteredGroupsRel().AddTarget(other.GetPath())
    if case == "a group filtering a cube":
        other.GetFilteredGroupsRel().AddTarget(chassis.GetPath())
    if case == "a group including the stage's root":
        group.GetCollidersCollectionAPI().CreateIncludeRootAttr(True)
    if case == "a class filtering one copy":
        other.GetPrim().GetInherits().AddInherit("/_OtherGroupClass")
    layer.Save()
    stage = fleet(source.stage, asset, 5)
    if case == "a class filtering one copy":
        stage.CreateClassPrim("/_OtherGroupClass").CreateRelationship("physics:filteredGroups").SetTargets(
            [f"{car(0)}/ChassisGroup"])

    full, fast, _ = read_both(stage)
    assert fast.collisionGroups == full.collisionGroups and fast.colliderGroups == full.colliderGroups
    copies = Fleet.of(stage)  # the fleet as the reader's traversal finds it: five copies of one asset
    for i in range(5):
        copies.enter(stage.GetPrimAtPath(car(i)))
    for group in copies.groups.values():
        Fleet.leave(group, Subtree())
    assert len(copies.groups) == 1 and copies.copy_roots(f"{car(3)}/ChassisGroup") == (car(3), car(0), car(1))
    assert collision_groups(stage, copies.copy_roots) == collision_groups(stage)
    shared, alone = read_collision_groups(stage, copies.copy_roots, copies.shared_copy), read_collision_groups(stage)
    assert list(shared.groups.items()) == list(alone.groups.items()) and shared.members == alone.members
    assert shared.childless == alone.childless == list(alone.groups) and not alone.moved
    # the groups moved to the third and further copies: the others are worked out in full for every copy
    names = {"a group including the stage's root": ("OtherGroup",),
             "a class filtering one copy": ("ChassisGroup",)}.get(case, ("ChassisGroup", "OtherGroup"))
    assert shared.moved == {f"{car(i)}/{name}": f"{car(0)}/{name}" for i in (2, 3, 4) for name in names}
    if case == "a group filtering a cube":
        said = [d for d in fast.diagnostics if d.code == "COLLISION_GROUP"]
        assert [d.prim for d in said] == [f"{car(i)}/OtherGroup" for i in range(5)]
    groups = full.collisionGroups
    if case == "a class filtering one copy":
        assert groups[f"{car(3)}/OtherGroup"].filtered == [f"{car(0)}/ChassisGroup"]
    if case == "a group including the stage's root":
        assert f"{car(0)}/Chassis" in full.colliderGroups and len(full.colliderGroups[f"{car(4)}/Chassis"]) == 5
    else:
        assert full.colliderGroups[f"{car(4)}/Chassis"] == [f"{car(4)}/ChassisGroup"]
