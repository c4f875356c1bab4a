"""Vehicles that reach the stage through composition: references, payloads, inherits, variants, instancing,
and components shared between wheels and vehicles. The reader works on the composed stage, so each of
these must give the same vehicle as the asset read on its own."""
from __future__ import annotations

import gc
import sys
from collections import Counter
from pathlib import Path

import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics
from stage_factory import add_vehicle, build_vehicle, new_stage

from physxvehicle_usd import properties as P
from physxvehicle_usd import simulate
from physxvehicle_usd.diagnostics import Severity
from physxvehicle_usd.read import components as C
from physxvehicle_usd.read import read_stage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage  # noqa: E402


class _Asset(tuple):
    """(layer, expected JSON); keeps the asset's stage alive, or its anonymous layer expires."""

    stage: Usd.Stage


def _asset(drive: str = "standard") -> _Asset:
    """A layer holding a car with every component on its own prims (nothing outside /World/Car), and the
    JSON of that car read on its own (paths relative to the car)."""
    car = build_vehicle(drive=drive, shared=False, autobox=drive == "standard")
    description = car.read()
    assert list(description.vehicles) == ["/World/Car"]
    asset = _Asset((car.stage.GetRootLayer(), _relative(description.to_json()["vehicles"]["/World/Car"], "/World/Car")))
    asset.stage = car.stage
    return asset


def _relative(data, root: str):
    """Vehicle JSON with the vehicle's own path prefix replaced, so copies compare equal."""
    if isinstance(data, dict):
        return {k: _relative(v, root) for k, v in data.items()}
    if isinstance(data, list):
        return [_relative(v, root) for v in data]
    if isinstance(data, str) and data.startswith(root):
        return "<car>" + data[len(root):]
    return data


def _without_pose(data: dict) -> dict:
    data = dict(data)
    data["rigidBody"] = {k: v for k, v in data["rigidBody"].items() if k not in ("position",)}
    return data


def _errors(description):
    return [d.line() for d in description.diagnostics if d.severity == Severity.ERROR]


@pytest.fixture(scope="module")
def standard_asset():
    return _asset("standard")


@pytest.fixture(scope="module")
def basic_asset():
    return _asset("basic")


def _same_car(description, path: str, expected: dict) -> None:
    assert path in description.vehicles, (list(description.vehicles), _errors(description))
    got = _relative(description.to_json()["vehicles"][path], path)
    assert _without_pose(got) == _without_pose(expected)


def test_a_referenced_vehicle_reads_like_the_asset(standard_asset):
    layer, expected = standard_asset
    target = new_stage()
    prim = target.stage.DefinePrim("/World/Ref", "Xform")
    prim.GetReferences().AddReference(layer.identifier, "/World/Car")
    description = target.read()
    assert not _errors(description)
    _same_car(description, "/World/Ref", expected)
    assert [w.path for w in description.vehicles["/World/Ref"].wheels] == [f"/World/Ref/Wheel{i}" for i in range(4)]


def test_a_payload_is_read_when_loaded_and_not_when_unloaded(standard_asset):
    layer, expected = standard_asset
    target = new_stage()
    prim = target.stage.DefinePrim("/World/Payload", "Xform")
    prim.GetPayloads().AddPayload(layer.identifier, "/World/Car")
    _same_car(target.read(), "/World/Payload", expected)
    target.stage.Unload("/World/Payload")
    description = target.read()
    assert description.vehicles == {}
    assert not _errors(description)


def test_a_vehicle_inheriting_from_a_class_is_read_and_the_class_is_not(standard_asset):
    layer, expected = standard_asset
    target = new_stage()
    root = target.stage.GetRootLayer()
    assert Sdf.CopySpec(layer, "/World/Car", root, "/CarClass")
    root.GetPrimAtPath("/CarClass").specifier = Sdf.SpecifierClass
    for name in ("CarA", "CarB"):
        prim = target.stage.DefinePrim(f"/World/{name}", "Xform")
        prim.GetInherits().AddInherit("/CarClass")
    # an override on one instance of the class stays local to it
    target.set("/World/CarB", P.VEHICLE, "lowForwardSpeedSubStepCount", 7)
    description = target.read()
    assert sorted(description.vehicles) == ["/World/CarA", "/World/CarB"]
    _same_car(description, "/World/CarA", expected)
    assert description.vehicles["/World/CarA"].vehicle["lowForwardSpeedSubStepCount"] == 3
    assert description.vehicles["/World/CarB"].vehicle["lowForwardSpeedSubStepCount"] == 7


@pytest.mark.parametrize("selection, drive", [("standard", "standard"), ("basic", "basic")])
def test_a_variant_selection_chooses_the_vehicle(standard_asset, basic_asset, selection, drive):
    target = new_stage()
    prim = target.stage.DefinePrim("/World/Car", "Xform")
    variants = prim.GetVariantSets().AddVariantSet("drive")
    for name, (layer, _) in (("standard", standard_asset), ("basic", basic_asset)):
        variants.AddVariant(name)
        variants.SetVariantSelection(name)
        with variants.GetVariantEditContext():
            prim.GetReferences().AddReference(layer.identifier, "/World/Car")
    variants.SetVariantSelection(selection)
    description = target.read()
    expected = (standard_asset if selection == "standard" else basic_asset)[1]
    _same_car(description, "/World/Car", expected)
    assert description.vehicles["/World/Car"].drive.type == drive


def test_instanceable_references_are_read_through_instance_proxies(standard_asset):
    layer, expected = standard_asset
    target = new_stage()
    for i in range(3):
        prim = target.stage.DefinePrim(f"/World/Instance{i}", "Xform")
        prim.GetReferences().AddReference(layer.identifier, "/World/Car")
        prim.SetInstanceable(True)
    assert target.prim("/World/Instance0").IsInstance()
    assert target.prim("/World/Instance0/Wheel0").IsInstanceProxy()
    description = target.read()
    assert not _errors(description)
    assert sorted(description.vehicles) == [f"/World/Instance{i}" for i in range(3)]
    for i in range(3):
        _same_car(description, f"/World/Instance{i}", expected)


def test_a_vehicle_inside_an_instance_is_an_instance_proxy_and_is_read(standard_asset):
    layer, expected = standard_asset
    garage = Sdf.Layer.CreateAnonymous(".usda")
    Sdf.CreatePrimInLayer(garage, "/Garage").specifier = Sdf.SpecifierDef
    assert Sdf.CopySpec(layer, "/World/Car", garage, "/Garage/Car")
    target = new_stage()
    for i in range(2):
        prim = target.stage.DefinePrim(f"/World/Garage{i}", "Xform")
        prim.GetReferences().AddReference(garage.identifier, "/Garage")
        prim.SetInstanceable(True)
    assert target.prim("/World/Garage0/Car").IsInstanceProxy()
    description = target.read()
    assert sorted(description.vehicles) == ["/World/Garage0/Car", "/World/Garage1/Car"]
    for i in range(2):
        _same_car(description, f"/World/Garage{i}/Car", expected)


def test_shared_components_are_parsed_once_and_give_the_same_values(monkeypatch):
    calls = {"tire": 0, "engine": 0}
    parse_tire, parse_engine = C.parse_tire, C.parse_engine

    def counting_tire(*args):
        calls["tire"] += 1
        return parse_tire(*args)

    def counting_engine(*args):
        calls["engine"] += 1
        return parse_engine(*args)

    monkeypatch.setattr(C, "parse_tire", counting_tire)
    monkeypatch.setattr(C, "parse_engine", counting_engine)
    car = build_vehicle(shared=True)
    add_vehicle(car, name="Car2", parts="/World/CarParts")   # the second car reuses every part of the first
    car.set("/World/CarParts/Tire", P.TIRE, "longitudinalStiffness", 6000.0)
    description = car.read()
    assert sorted(description.vehicles) == ["/World/Car", "/World/Car2"]
    wheels = [w for v in description.vehicles.values() for w in v.wheels]
    assert len(wheels) == 8
    assert {w.tire.path for w in wheels} == {"/World/CarParts/Tire"}
    assert {w.wheel.path for w in wheels} == {"/World/CarParts/Wheel"}
    assert {w.tire["longitudinalStiffness"] for w in wheels} == {6000.0}
    assert {v.drive.engine.path for v in description.vehicles.values()} == {"/World/CarParts/Engine"}
    assert calls == {"tire": 1, "engine": 1}


def test_a_broken_shared_component_rejects_every_vehicle_using_it_and_is_reported_once():
    car = build_vehicle(shared=True)
    add_vehicle(car, name="Car2", parts="/World/CarParts")
    add_vehicle(car, name="Own", shared=False)
    car.set("/World/CarParts/Wheel", P.WHEEL, "radius", -1.0)
    description = car.read()
    assert list(description.vehicles) == ["/World/Own"]
    radius = [d for d in description.diagnostics if d.code == "V14"]
    assert len(radius) == 1 and radius[0].prim == "/World/CarParts/Wheel"


def test_fifty_referenced_copies_read_as_fifty_vehicles(standard_asset):
    layer, expected = standard_asset
    target = new_stage()
    for i in range(50):
        prim = target.stage.DefinePrim(f"/World/Car{i:02d}", "Xform")
        prim.GetReferences().AddReference(layer.identifier, "/World/Car")
        UsdGeom.Xformable(prim).GetOrderedXformOps()[0].Set(Gf.Vec3d(5.0 * i, 0.0, 0.6))
    description = target.read()
    assert not _errors(description)
    assert len(description.vehicles) == 50
    assert description.vehicles["/World/Car49"].rigidBody["position"] == pytest.approx((245.0, 0.0, 0.6))
    _same_car(description, "/World/Car17", expected)


def test_copies_that_differ_in_mass_get_their_own_sprung_masses(standard_asset):
    """Sprung masses are solved once per (wheel positions, mass, up axis): a copy with another mass must not
    reuse the first copy's."""
    layer, _ = standard_asset
    target = new_stage()
    for i, mass in enumerate((None, 900.0, None)):
        prim = target.stage.DefinePrim(f"/World/Car{i}", "Xform")
        prim.GetReferences().AddReference(layer.identifier, "/World/Car")
        if mass is not None:
            UsdPhysics.MassAPI.Apply(prim).CreateMassAttr().Set(mass)
    description = target.read()
    assert not _errors(description)
    sprung = {path: [w.suspension["sprungMass"] for w in car.wheels] for path, car in description.vehicles.items()}
    for path, car in description.vehicles.items():
        assert sum(sprung[path]) == pytest.approx(car.rigidBody["mass"], rel=1e-6)
    assert description.vehicles["/World/Car1"].rigidBody["mass"] == 900.0
    assert sprung["/World/Car0"] == sprung["/World/Car2"]
    assert sprung["/World/Car1"] == pytest.approx([m * 900.0 / sum(sprung["/World/Car0"]) for m in sprung["/World/Car0"]])


def _collect_all() -> None:
    """Collect until a pass finds nothing: the finalizers a collection runs (weakref callbacks dropping cached values)
    can free cycles that only the next pass finds, garbage older than what a test then makes."""
    while gc.collect():
        pass


def _cyclic_garbage() -> dict[str, int]:
    """Collect, and say what the collection found, by type (empty: no cyclic garbage)."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return dict(Counter(type(found).__name__ for found in gc.garbage).most_common(8))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_reading_makes_no_reference_cycles_and_leaves_the_collector_as_it_was(standard_asset):
    """read_stage pauses the cyclic garbage collector and hands its objects over as old ones (bulk.bulk_objects):
    that is only sound while reading leaves no cyclic garbage behind."""
    layer, _ = standard_asset
    target = new_stage()
    for i in range(5):
        prim = target.stage.DefinePrim(f"/World/Car{i}", "Xform")
        prim.GetReferences().AddReference(layer.identifier, "/World/Car")
    read_stage(target.stage)  # first use: schema tables and caches are built once
    was_enabled = gc.isenabled()
    _collect_all()
    gc.disable()
    try:
        description = read_stage(target.stage)
        assert not gc.isenabled()  # a caller's choice to keep the collector off is kept
        assert _cyclic_garbage() == {}
    finally:
        if was_enabled:
            gc.enable()
    assert len(description.vehicles) == 5
    description = read_stage(target.stage)
    assert gc.isenabled() == was_enabled


def test_reading_a_file_with_a_sublayer_and_a_missing_reference_reports_it(tmp_path, standard_asset):
    layer, expected = standard_asset
    asset_file = tmp_path / "car.usda"
    layer.Export(str(asset_file))
    top = tmp_path / "scene.usda"
    stage = new_stage().stage
    stage.DefinePrim("/World/Car", "Xform").GetReferences().AddReference("./car.usda", "/World/Car")
    stage.DefinePrim("/World/Ghost", "Xform").GetReferences().AddReference("./missing.usda", "/World/Car")
    stage.GetRootLayer().Export(str(top))
    description = read_stage(str(top))
    _same_car(description, "/World/Car", expected)
    assert "/World/Ghost" not in description.vehicles
    assert any(d.code == "COMPOSITION" and "missing.usda" in d.message for d in description.diagnostics)


def test_reading_after_a_simulator_with_contacts_has_gone_finds_no_cyclic_garbage(tmp_path, standard_asset):
    """Reading after a contact simulator has gone (its cached structs dropped by finalizers, which can free cycles
    that only a later collection finds: `_collect_all` takes them first) makes no cyclic garbage either."""
    loaded = simulate.load(fleet_stage(1, tmp_path, road="obstacles"), 1.0 / 60.0)
    simulate.run(loaded, 5, 1.0 / 60.0, controls={"accelerator": 1.0}, outputs=())
    layer, _ = standard_asset
    target = new_stage()
    target.stage.DefinePrim("/World/Car", "Xform").GetReferences().AddReference(layer.identifier, "/World/Car")
    read_stage(target.stage)
    del loaded
    was_enabled = gc.isenabled()
    _collect_all()
    gc.disable()
    try:
        read_stage(target.stage)
        assert _cyclic_garbage() == {}
    finally:
        if was_enabled:
            gc.enable()
