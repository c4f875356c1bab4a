"""Fleets for the reader's copy sharing (read/copies.py): N references of one vehicle asset, each under its own
slot prim, with whatever per-copy opinions a test authors on top.

    source = build_vehicle(shared=False).stage           # any stage with a vehicle
    asset = asset_layer(source, "/World/Car", tmp_path)   # that vehicle, self-contained, in a file of its own
    stage = fleet(source, asset, 6)                       # /World/Fleet/Slot_<i>/Car, i < 6
    full, fast = read_both(stage)                         # read_stage with and without sharing, checked equal

The fleet sublayers the source (its scene, context, ground and any shared parts) with the source's own vehicle
deactivated, like benchmarks/fleet.py, and takes the source's units and up axis (the root layer decides them).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics
from stage_factory import build_vehicle

from physxvehicle_usd.description import StageDescription
from physxvehicle_usd.read import CopyStats, read_stage
from physxvehicle_usd.write import write_stage

ROOT = "/World/Fleet"
SPACING = 6.0  # stage units between slots


@pytest.fixture(scope="module")
def source():
    """A factory car with every component on its own prims, and its stage kept alive (the fleets sublayer it)."""
    return build_vehicle(shared=False, autobox=True)


@pytest.fixture(scope="module")
def asset(source, tmp_path_factory):
    """The factory car as an asset layer of its own, the vehicle at /World/Car."""
    return asset_layer(source.stage, "/World/Car", tmp_path_factory.mktemp("asset"))


def asset_layer(source: Usd.Stage, vehicle: str, folder: Path, name: str = "car_asset.usda") -> Path:
    """The vehicle of `source` at `vehicle` written with every component on its own prims (write_stage's
    shared=False) into folder/name, at the same path: one reference brings the whole vehicle. Friction tables and
    collision groups outside the vehicle are dropped, where a reference could not reach them (USD would warn
    about each copy): tires use the default table, wheels no group."""
    description = read_stage(source, share_copies=False)
    record = description.vehicles[vehicle]
    for wheel in record.wheels:
        wheel.tire.set("frictionTable", None, wheel.tire.source("frictionTable"))
        group = wheel.attachment["collisionGroup"]
        if group is not None and not group.startswith(vehicle + "/"):
            wheel.attachment.set("collisionGroup", None, wheel.attachment.source("collisionGroup"))
    stage = write_stage(StageDescription(stage=description.stage, vehicles={vehicle: record}), shared=False)
    stage.SetDefaultPrim(stage.GetPrimAtPath("/" + vehicle.split("/")[1]))
    path = folder / name
    stage.GetRootLayer().Export(str(path))
    return path


Placement = Callable[[UsdGeom.Xformable, int], None]


def fleet(source: Usd.Stage, asset: Path, n: int, vehicle: str = "/World/Car",
          place: Placement | None = None) -> Usd.Stage:
    """An in-memory stage over `source` with n references of `asset`'s `vehicle` at /World/Fleet/Slot_<i>/Car.
    Each slot is an Xform translated along the source's first horizontal axis; `place(slot, i)` may add ops."""
    stage = Usd.Stage.CreateInMemory()
    stage.GetRootLayer().subLayerPaths.append(source.GetRootLayer().identifier)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.GetStageUpAxis(source))
    UsdGeom.SetStageMetersPerUnit(stage, UsdGeom.GetStageMetersPerUnit(source))
    UsdPhysics.SetStageKilogramsPerUnit(stage, UsdPhysics.GetStageKilogramsPerUnit(source))
    stage.OverridePrim(vehicle).SetActive(False)
    for i in range(n):
        slot = UsdGeom.Xform.Define(stage, f"{ROOT}/Slot_{i}")
        slot.AddTranslateOp().Set(Gf.Vec3d(i * SPACING, 0.0, 0.0))
        if place is not None:
            place(slot, i)
        stage.DefinePrim(f"{ROOT}/Slot_{i}/Car").GetReferences().AddReference(str(asset), Sdf.Path(vehicle))
    return stage


def car(i: int) -> str:
    return f"{ROOT}/Slot_{i}/Car"


def read_both(stage: Usd.Stage) -> tuple[StageDescription, StageDescription, CopyStats]:
    """The stage read in full and with copies shared, and what sharing did; the two descriptions are asserted
    equal: their JSON forms with provenance, and their diagnostics (in order)."""
    full = read_stage(stage, share_copies=False)
    stats = CopyStats()
    fast = read_stage(stage, stats=stats)
    assert fast.to_json(provenance=True) == full.to_json(provenance=True)
    assert [d.line() for d in fast.diagnostics] == [d.line() for d in full.diagnostics]
    assert fast.diagnostics == full.diagnostics
    return full, fast, stats
