"""Stage description blocks <-> PhysX 3.4 structs."""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pxr import Gf, Usd

import physxvehicle_usd  # noqa: F401 - registers the vehicle schemas
from physxvehicle_usd import properties as P
from physxvehicle_usd.runtime.physx34_convert import (
    ENGINE_FIELDS,
    Physx34ConversionError,
    Physx34Setup,
    description_from_physx34,
    description_from_physx34_setup,
    engine_block_from_data,
    engine_data_from_block,
    friction_pairs_from_tables,
    friction_tables_from_pairs,
    physx34_from_description,
    tire_block_from_data,
    tire_data_from_block,
)
from physxvehicle_usd.runtime.physx34_engine import EngineData
from physxvehicle_usd.runtime.physx34_friction import DrivableSurfaceToTireFrictionPairs
from physxvehicle_usd.runtime.physx34_tire import TireData

G = 9.81
REST_LOAD = 450.0 * G  # sprung mass * |g|, as the reader fills it in

ENGINE_BLOCK = {  # the USD defaults of seed 003, resolved
    "moi": 1.0,
    "peakTorque": 500.0,
    "maxRotationSpeed": 600.0,
    "idleRotationSpeed": 0.0,
    "torqueCurve": [[0.0, 0.8], [0.33, 1.0], [1.0, 0.8]],
    "dampingRateFullThrottle": 0.15,
    "dampingRateZeroThrottleClutchEngaged": 2.0,
    "dampingRateZeroThrottleClutchDisengaged": 0.35,
}

TIRE_BLOCK = {  # USD defaults: latStiffY 17.095 per rest load, 500 kg per unit gravity, no camber stiffness
    "lateralStiffnessGraph": [2.0, 17.095 * REST_LOAD],
    "longitudinalStiffness": 500.0 * G,
    "camberStiffness": 0.0,
    "frictionVsSlipGraph": [[0.0, 1.0], [0.1, 1.0], [1.0, 1.0]],
    "frictionTable": "/World/SummerTires",
    "restLoad": REST_LOAD,
}

TABLES = {
    "/World/WinterTires": {
        "groundMaterials": ["/World/Ice", "/World/Tarmac"],
        "frictionValues": [0.3, 0.7],
        "defaultFrictionValue": 0.6,
    },
    "/World/SummerTires": {
        "groundMaterials": ["/World/Tarmac", "/World/Gravel", "/World/Tarmac"],  # Tarmac twice: the first wins
        "frictionValues": [0.9, 0.5, 0.2],
        "defaultFrictionValue": 0.8,
    },
}


def assert_close(a, b, path="block"):
    """Nested dicts/lists equal, floats within float32-level tolerance."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), f"{path}: keys {sorted(a)} != {sorted(b)}"
        for key in a:
            assert_close(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        assert b == pytest.approx(a, rel=1e-6, abs=1e-9), f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


# Engine -------------------------------------------------------------------------------------------------------------
def test_engine_block_maps_onto_engine_data():
    engine = engine_data_from_block(ENGINE_BLOCK)
    assert engine == EngineData()  # USD's resolved defaults are PhysX 3.4's defaults
    custom = engine_data_from_block({**ENGINE_BLOCK, "maxRotationSpeed": 750.0, "peakTorque": 1000.0, "moi": 0.5})
    assert (custom.max_omega, custom.peak_torque, custom.moi) == (750.0, 1000.0, 0.5)
    assert custom.recip_max_omega == pytest.approx(1 / 750)


def test_engine_round_trip():
    block = {**ENGINE_BLOCK, "idleRotationSpeed": 60.0, "torqueCurve": [[0.0, 0.5], [0.5, 1.0], [0.5, 0.9], [1.0, 0.4]]}
    back = engine_block_from_data(engine_data_from_block(block), idle_rotation_speed=60.0)
    assert_close(block, back)


def test_engine_with_more_than_eight_points_is_refused():
    block = {**ENGINE_BLOCK, "torqueCurve": [[i / 8, 1.0] for i in range(9)]}
    with pytest.raises(Physx34ConversionError, match="9 points; PhysX 3.4 holds at most 8"):
        engine_data_from_block(block, "/World/Car/Engine")


def test_missing_engine_value_names_the_block():
    block = dict(ENGINE_BLOCK)
    del block["peakTorque"]
    with pytest.raises(Physx34ConversionError, match="/World/Car/Engine: peakTorque is missing"):
        engine_data_from_block(block, "/World/Car/Engine")


def test_provenance_wrapped_values_are_read():
    wrapped = {k: {"value": v, "source": "authored"} for k, v in ENGINE_BLOCK.items()}
    assert engine_data_from_block(wrapped) == EngineData()


def test_engine_from_an_authored_usd_prim():
    stage = Usd.Stage.CreateInMemory()
    prim = stage.DefinePrim("/World/Engine", "Scope")
    prim.ApplyAPI(P.ENGINE)
    prim.GetAttribute(P.full_name(P.ENGINE, "maxRotationSpeed")).Set(800.0)
    prim.GetAttribute(P.full_name(P.ENGINE, "torqueCurve")).Set(
        [Gf.Vec2f(0.0, 0.7), Gf.Vec2f(0.4, 1.0), Gf.Vec2f(1.0, 0.6)]
    )
    block = {base: prim.GetAttribute(name).Get() for base, name in P.full_names(P.ENGINE).items()}
    for key, value in (("moi", 1.0), ("peakTorque", 500.0), ("dampingRateFullThrottle", 0.15),
                       ("dampingRateZeroThrottleClutchEngaged", 2.0), ("dampingRateZeroThrottleClutchDisengaged", 0.35)):
        if block.get(key) is None or block[key] == -1:  # unauthored sentinel -> the documented default
            block[key] = value
    engine = engine_data_from_block(block)
    assert engine.max_omega == 800.0
    assert_close(((0.0, 0.7), (0.4, 1.0), (1.0, 0.6)), engine.torque_curve.points)
    assert engine.torque_curve.evaluate(0.2) == pytest.approx(0.85, rel=1e-6)


def test_description_keys_are_schema_property_names():
    for key in [k for k, _ in ENGINE_FIELDS] + ["torqueCurve", "idleRotationSpeed"]:
        assert P.is_schema_property(P.ENGINE, key), key
    for key in TIRE_BLOCK:
        assert P.is_schema_property(P.TIRE, key), key
    for key in TABLES["/World/WinterTires"]:
        assert P.is_schema_property(P.TABLE, key), key


# Tire ---------------------------------------------------------------------------------------------------------------
def test_tire_block_converts_to_per_unit_gravity_and_per_rest_load():
    tire = tire_data_from_block(TIRE_BLOCK, G, tire_type=2)
    assert tire.lat_stiff_x == 2.0
    assert tire.lat_stiff_y == pytest.approx(17.095)
    assert tire.longitudinal_stiffness_per_unit_gravity == pytest.approx(500.0)
    assert tire.camber_stiffness_per_unit_gravity == 0.0
    assert tire.friction_vs_slip_graph == ((0.0, 1.0), (0.1, 1.0), (1.0, 1.0))
    assert tire.type == 2
    assert tire.is_valid()


def test_tire_round_trip():
    block = {**TIRE_BLOCK, "camberStiffness": 0.2 * G, "frictionVsSlipGraph": [[0.0, 0.8], [0.15, 1.1], [0.9, 0.7]]}
    tire = tire_data_from_block(block, G)
    assert tire.camber_stiffness_per_unit_gravity == pytest.approx(0.2)
    back = tire_block_from_data(tire, REST_LOAD, G, friction_table="/World/SummerTires")
    assert_close(block, back)


@settings(max_examples=100, deadline=None)
@given(
    st.floats(0.1, 10), st.floats(1.0, 1e6), st.floats(1.0, 1e6), st.floats(0.0, 1e4),
    st.floats(1.0, 1e5), st.floats(0.1, 100.0),
)
def test_tire_round_trip_property(lat_x, lat_y, long_stiff, camber, rest_load, gravity):
    block = {**TIRE_BLOCK, "lateralStiffnessGraph": [lat_x, lat_y], "longitudinalStiffness": long_stiff,
             "camberStiffness": camber, "restLoad": rest_load}
    back = tire_block_from_data(tire_data_from_block(block, gravity), rest_load, gravity, block["frictionTable"])
    assert_close(block, back)


@pytest.mark.parametrize("changes, fragment", [({"restLoad": 0.0}, "restLoad must be greater than zero"),
                                                ({"frictionVsSlipGraph": [[0, 1], [1, 1]]}, "exactly 3 points"),
                                                ({"lateralStiffnessGraph": 5.0}, "expected an (x, y) pair")])
def test_unconvertible_tire_blocks(changes, fragment):
    with pytest.raises(Physx34ConversionError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        tire_data_from_block({**TIRE_BLOCK, **changes}, G, where="/World/Car/FL")


def test_zero_gravity_cannot_convert():
    with pytest.raises(Physx34ConversionError, match="gravity magnitude must be greater than zero"):
        tire_data_from_block(TIRE_BLOCK, 0.0)


# Friction tables ----------------------------------------------------------------------------------------------------
def test_tables_become_one_tire_type_each_and_one_surface_type_per_material():
    converted = friction_pairs_from_tables(TABLES)
    pairs = converted.pairs
    assert converted.table_paths == [None, "/World/SummerTires", "/World/WinterTires"]
    assert converted.ground_materials == [None, "/World/Gravel", "/World/Ice", "/World/Tarmac"]
    assert (pairs.num_tire_types, pairs.num_surface_types) == (3, 4)
    summer, winter = 1, 2
    # Listed materials take the table's value (the first entry of a duplicate), others the table's default.
    assert pairs.get_material_friction("/World/Tarmac", summer) == 0.9
    assert pairs.get_material_friction("/World/Gravel", summer) == 0.5
    assert pairs.get_material_friction("/World/Ice", summer) == 0.8
    assert pairs.get_material_friction("/World/Ice", winter) == 0.3
    assert pairs.get_material_friction("/World/Gravel", winter) == 0.6
    # Unknown materials use surface type 0: each table's default.
    assert pairs.get_material_friction("/World/Mud", summer) == 0.8
    assert pairs.get_material_friction(None, winter) == 0.6
    # Tire type 0 is the built-in default table: 1.0 on everything.
    assert all(pairs.get_type_pair_friction(s, 0) == 1.0 for s in range(4))
    assert converted.tire_type_of_table("/World/WinterTires") == winter
    assert converted.tire_type_of_table(None) == 0
    assert converted.tire_type_of_table("/World/RejectedTable") == 0


def test_conversion_is_deterministic_whatever_the_dict_order():
    reordered = dict(reversed(list(TABLES.items())))
    assert friction_pairs_from_tables(reordered).pairs.snapshot() == friction_pairs_from_tables(TABLES).pairs.snapshot()


def test_no_tables_leave_only_the_builtin_default():
    converted = friction_pairs_from_tables({})
    assert (converted.pairs.num_tire_types, converted.pairs.num_surface_types) == (1, 1)
    assert converted.pairs.get_material_friction("/World/Anything", 0) == 1.0


def test_too_many_ground_materials_for_256_surface_types():
    materials = [f"/World/M{i:03d}" for i in range(256)]
    table = {"groundMaterials": materials, "frictionValues": [0.5] * 256, "defaultFrictionValue": 1.0}
    with pytest.raises(Physx34ConversionError, match="at most 255 materials"):
        friction_pairs_from_tables({"/World/Big": table})
    table = {"groundMaterials": materials[:255], "frictionValues": [0.5] * 255, "defaultFrictionValue": 1.0}
    assert friction_pairs_from_tables({"/World/Big": table}).pairs.num_surface_types == 256


def test_mismatched_table_lengths_are_refused():
    with pytest.raises(Physx34ConversionError, match="2 groundMaterials but 1 frictionValues"):
        friction_pairs_from_tables({"/World/T": {"groundMaterials": ["/a", "/b"], "frictionValues": [0.5],
                                                 "defaultFrictionValue": 1.0}})


def test_tables_round_trip():
    tables = {  # entries that differ from the defaults, no duplicates: the round trip gives them back exactly
        "/World/WinterTires": {"groundMaterials": ["/World/Ice", "/World/Tarmac"], "frictionValues": [0.3, 0.7],
                               "defaultFrictionValue": 0.6},
        "/World/SummerTires": {"groundMaterials": ["/World/Gravel", "/World/Tarmac"], "frictionValues": [0.5, 0.9],
                               "defaultFrictionValue": 0.8},
        "/World/EmptyTable": {"groundMaterials": [], "frictionValues": [], "defaultFrictionValue": 0.4},
    }
    converted = friction_pairs_from_tables(tables)
    back = friction_tables_from_pairs(converted.pairs, converted.table_paths)
    assert {path: as_mapping(t) for path, t in back.items()} == {path: as_mapping(t) for path, t in tables.items()}
    assert back["/World/EmptyTable"]["groundMaterials"] == []


def as_mapping(table: dict) -> tuple[dict, float]:
    """A table as ({material: friction}, default): listing order carries no meaning once materials are unique."""
    return dict(zip(table["groundMaterials"], table["frictionValues"])), table["defaultFrictionValue"]


def test_tables_from_a_physx_34_setup_with_a_material_on_surface_type_zero():
    # A typical 3.4 setup: tarmac is surface type 0, so unknown materials drive like tarmac.
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(2, 2)
    pairs.setup(2, 2, ["/World/Tarmac", "/World/Ice"], [0, 1])
    pairs.set_type_pair_friction(0, 0, 1.1)
    pairs.set_type_pair_friction(1, 0, 0.2)
    pairs.set_type_pair_friction(1, 1, 0.4)
    tables = friction_tables_from_pairs(pairs, ["/World/Slicks", "/World/Winter"])
    assert tables["/World/Slicks"] == {"groundMaterials": ["/World/Ice"], "frictionValues": [0.2],
                                       "defaultFrictionValue": 1.1}
    assert tables["/World/Winter"] == {"groundMaterials": ["/World/Ice"], "frictionValues": [0.4],
                                       "defaultFrictionValue": 1.0}
    # Bringing them back gives the same friction for every material and tire type.
    again = friction_pairs_from_tables(tables)
    for material in ("/World/Tarmac", "/World/Ice", "/World/Other"):
        for tire_type, path in enumerate(["/World/Slicks", "/World/Winter"]):
            assert again.pairs.get_material_friction(material, again.tire_type_of_table(path)) == pytest.approx(
                pairs.get_material_friction(material, tire_type))


# Whole description --------------------------------------------------------------------------------------------------
def make_description() -> dict:
    wheels = []
    for index, name in enumerate(["FL", "FR", "RL", "RR"]):
        tire = dict(TIRE_BLOCK)
        if name.startswith("R"):
            tire["frictionTable"] = None  # rear tires use the built-in default table
            tire["lateralStiffnessGraph"] = [1.5, 15.0 * REST_LOAD]
        wheels.append({"path": f"/World/Car/{name}", "index": index, "tire": tire})
    return {
        "stage": {"file": "car.usda", "metersPerUnit": 1.0, "kilogramsPerUnit": 1.0, "upAxis": "Y"},
        "scenes": {"/World/PhysicsScene": {"gravityDirection": [0.0, -1.0, 0.0], "gravityMagnitude": G,
                                           "context": None}},
        "vehicles": {
            "/World/Car": {"scene": "/World/PhysicsScene",
                           "drive": {"type": "standard", "engine": {**ENGINE_BLOCK, "idleRotationSpeed": 50.0}},
                           "wheels": wheels},
            "/World/Kart": {"scene": "/World/PhysicsScene", "drive": {"type": "basic", "peakTorque": 300.0},
                            "wheels": [{"path": "/World/Kart/W", "index": 0, "tire": dict(TIRE_BLOCK)}]},
        },
        "tireFrictionTables": TABLES,
    }


def test_whole_description_converts():
    setup = physx34_from_description(make_description())
    car = setup.vehicles["/World/Car"]
    assert car.engine == EngineData()
    assert car.idle_rotation_speed == 50.0
    assert car.gravity_magnitude == G
    assert [w.tire.type for w in car.wheels] == [1, 1, 0, 0]
    assert car.wheels[2].tire.lat_stiff_y == pytest.approx(15.0)
    assert setup.vehicles["/World/Kart"].engine is None
    assert setup.friction_table_paths == [None, "/World/SummerTires", "/World/WinterTires"]


def test_setup_json_round_trip_and_schema():
    setup = physx34_from_description(make_description())
    text = setup.model_dump_json()
    assert Physx34Setup.model_validate_json(text) == setup
    assert json.loads(text)["vehicles"]["/World/Car"]["wheels"][0]["tire"]["lat_stiff_y"] == pytest.approx(17.095)
    schema = Physx34Setup.model_json_schema(mode="serialization")
    assert "Physx34Vehicle" in schema["$defs"] and "TireData" in schema["$defs"]


def test_whole_description_round_trip():
    description = make_description()
    back = description_from_physx34_setup(physx34_from_description(description))
    for path, vehicle in description["vehicles"].items():
        out = back["vehicles"][path]
        engine = vehicle["drive"].get("engine")
        if engine is None:
            assert out["engine"] is None
        else:
            assert_close(engine, out["engine"])
        for wheel in vehicle["wheels"]:
            assert_close(wheel["tire"], out["tires"][wheel["path"]], wheel["path"])
        assert out["gravityMagnitude"] == G
    # The tables come back with the same effective friction for every material.
    again = friction_pairs_from_tables(back["tireFrictionTables"])
    original = friction_pairs_from_tables(TABLES)
    for material in ("/World/Tarmac", "/World/Gravel", "/World/Ice", "/World/Mud", None):
        for path in TABLES:
            assert again.pairs.get_material_friction(material, again.tire_type_of_table(path)) == pytest.approx(
                original.pairs.get_material_friction(material, original.tire_type_of_table(path)))


def test_missing_scene_is_a_clear_error():
    description = make_description()
    description["vehicles"]["/World/Car"]["scene"] = "/World/Elsewhere"
    with pytest.raises(Physx34ConversionError, match="/World/Car: its physics scene '/World/Elsewhere'"):
        physx34_from_description(description)


def test_description_from_physx34_structs():
    engine = EngineData(peak_torque=800.0, max_omega=700.0)
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(2, 2)
    pairs.setup(2, 2, ["/World/Tarmac", "/World/Ice"], [0, 1])
    pairs.set_type_pair_friction(1, 1, 0.25)
    tires = {"/World/Car/FL": TireData(type=1), "/World/Car/RL": TireData(type=0, lat_stiff_y=20.0)}
    out = description_from_physx34(engine, tires, pairs, G, rest_loads={"/World/Car/FL": 4000.0,
                                                                        "/World/Car/RL": 3000.0},
                                   table_paths=[None, "/World/Table1"])
    assert out["engine"]["peakTorque"] == 800.0 and out["engine"]["maxRotationSpeed"] == 700.0
    fl, rl = out["tires"]["/World/Car/FL"], out["tires"]["/World/Car/RL"]
    assert fl["frictionTable"] == "/World/Table1" and rl["frictionTable"] is None
    assert rl["lateralStiffnessGraph"] == pytest.approx([2.0, 60000.0])
    assert fl["longitudinalStiffness"] == pytest.approx(1000.0 * G)
    assert fl["camberStiffness"] == pytest.approx(0.1 * 180 / math.pi * G)
    assert out["tireFrictionTables"] == {"/World/Table1": {"groundMaterials": ["/World/Ice"], "frictionValues": [0.25],
                                                           "defaultFrictionValue": 1.0}}
    with pytest.raises(Physx34ConversionError, match="no rest load"):
        description_from_physx34(engine, tires, pairs, G, rest_loads={})
    with pytest.raises(Physx34ConversionError, match="tire type 5 is not in the friction pairs"):
        description_from_physx34(None, {"/x": TireData(type=5)}, pairs, G, rest_loads={"/x": 1.0})
