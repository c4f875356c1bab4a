"""Copies share their simulator parameters (runtime/vehicle2/copies.py, sim/batch.py): the batch built with
sharing is, array for array, the batch of every vehicle built on its own, and a copy changed after reading is
built on its own."""
from __future__ import annotations

import numpy as np
from fleet_factory import asset_layer, car, fleet
from pxr import Gf, UsdGeom, UsdPhysics
from stage_factory import car_spec, preset_stage, set_property

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import CopyStats, read_stage
from physxvehicle_usd.runtime.vehicle2 import build_vehicle_params
from physxvehicle_usd.runtime.vehicle2.copies import build_params_sharing
from physxvehicle_usd.sim.batch import batch, batch_from_description, copy_varying


def _same_batches(description, copies: dict[str, str] | None = None) -> list[int]:
    """Sharing (told the reader's copies, or finding them) and building every vehicle on its own give equal
    parameters and equal batches; returns `like`."""
    paths = sorted(description.vehicles)
    alone = [build_vehicle_params(description, p) for p in paths]
    shared, like = build_params_sharing(description, paths, copies)
    assert shared == alone  # every field but the description (not compared), wheels included
    for params, path in zip(shared, paths):
        record = description.vehicles[path]
        assert params.description is record
        assert [w.description for w in params.wheels] == sorted(record.wheels, key=lambda w: w.index)
        assert all(w.description is d for w, d in zip(params.wheels, sorted(record.wheels, key=lambda w: w.index)))
    expected, got = batch(alone), batch(shared, like)
    assert (got.paths, got.wheel_paths, got.friction_tables) == (expected.paths, expected.wheel_paths,
                                                                  expected.friction_tables)
    assert got.arrays.keys() == expected.arrays.keys()
    for name, array in expected.arrays.items():
        assert got.arrays[name].dtype == array.dtype and got.arrays[name].shape == array.shape, name
        assert np.array_equal(got.arrays[name], array, equal_nan=array.dtype.kind == "f"), name
    return like


def test_a_fleet_of_copies_builds_once(source, asset):
    stats = CopyStats()
    description = read_stage(fleet(source.stage, asset, 8), stats=stats)
    like = _same_batches(description)
    assert like.count(0) == 7  # built: the first, and its twin to check reuse against; the rest take the first's
    assert like[1] == 1
    # told the reader's copies (cars 2..7 moved from car 0; cars 0 and 1 parsed): the first two told are built
    assert stats.templates == {car(i): car(0) for i in range(2, 8)}
    assert _same_batches(description, stats.templates) == [0, 1, 2, 3, 2, 2, 2, 2]
    assert batch_from_description(description).arrays.keys() == batch(
        [build_vehicle_params(description, p) for p in sorted(description.vehicles)]).arrays.keys()


def test_simulate_load_builds_the_batch_of_every_car_alone(source, asset, tmp_path):
    from physxvehicle_usd.simulate import load

    stage = fleet(source.stage, asset, 6)
    set_property(stage.GetPrimAtPath(car(4)), P.VEHICLE, "highForwardSpeedSubStepCount", 7)
    path = tmp_path / "fleet.usda"
    stage.GetRootLayer().Export(str(path))
    loaded = load(path, 1 / 60)
    description = loaded.description
    expected = batch([build_vehicle_params(description, p) for p in loaded.paths])
    got = loaded.simulator.batch
    assert got.paths == expected.paths and got.arrays.keys() == expected.arrays.keys()
    for name, array in expected.arrays.items():
        assert got.arrays[name].dtype == array.dtype and np.array_equal(got.arrays[name], array, equal_nan=True), name
    assert got.arrays["high_speed_substeps"][list(loaded.paths).index(car(4))] == 7


def test_a_copy_changed_after_reading_is_built_on_its_own(source, asset):
    description = read_stage(fleet(source.stage, asset, 6))
    record = description.vehicles[car(4)]
    tire = record.wheels[0].tire
    tire.set("longitudinalStiffness", 2.0 * tire["longitudinalStiffness"], tire.source("longitudinalStiffness"))
    record.drive.gears["ratios"][-1] *= 0.5  # a list changed in place
    like = _same_batches(description)
    assert like[4] == 4 and like.count(0) == 4


def test_copies_with_their_own_opinions_and_poses(source, asset):
    def place(slot: UsdGeom.Xformable, i: int) -> None:
        slot.AddRotateXYZOp().Set(Gf.Vec3f(0.0, 0.0, 30.0 if i % 2 else 0.0))

    stage = fleet(source.stage, asset, 9, place=place)
    UsdPhysics.MassAPI(stage.GetPrimAtPath(car(3))).GetMassAttr().Set(2500.0)
    set_property(stage.OverridePrim(car(5)), P.VEHICLE, "highForwardSpeedSubStepCount", 9)
    UsdPhysics.RigidBodyAPI(stage.GetPrimAtPath(car(6))).CreateVelocityAttr(Gf.Vec3f(3.0, 0.0, 0.0))
    like = _same_batches(read_stage(stage))
    assert like[3] == 3 and like[5] == 5 and like[6] == 6
    assert sum(1 for i, lender in enumerate(like) if lender != i) >= 3


def test_a_centimetre_y_up_fleet_builds_alike(tmp_path):
    source = preset_stage(car_spec("standard"), up="Y", units="cm")
    asset = asset_layer(source, "/World/Car", tmp_path)
    like = _same_batches(read_stage(fleet(source, asset, 5)))
    assert like.count(0) == 4


def test_only_what_differs_between_copies_is_worked_out_per_copy(source, asset):
    description = read_stage(fleet(source.stage, asset, 3))
    params = build_vehicle_params(description, car(0))
    varying = copy_varying(params)
    assert {"init_position", "init_orientation", "init_linear_velocity", "init_angular_velocity"} <= varying
    assert not {"mass", "moi", "radius", "low_speed_substeps"} & varying


def test_a_fleet_with_a_mass_of_its_own_per_car_builds_each_alone(source, asset):
    """Randomised masses written into the stage: no two records match, each car is built in full (and the
    batch is still the one of every car built alone)."""
    stage = fleet(source.stage, asset, 6)
    for i in range(6):
        UsdPhysics.MassAPI(stage.GetPrimAtPath(car(i))).GetMassAttr().Set(1000.0 + 100.0 * i)
    description = read_stage(stage)
    assert len({v.rigidBody["mass"] for v in description.vehicles.values()}) == 6
    assert _same_batches(description) == list(range(6))
