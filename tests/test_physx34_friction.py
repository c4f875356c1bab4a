"""PxVehicleDrivableSurfaceToTireFrictionPairs semantics (seed 001)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from physxvehicle_usd.runtime.physx34_friction import (
    MAX_SURFACE_TYPES,
    DrivableSurfaceToTireFrictionPairs,
    FrictionPairsSnapshot,
)

TARMAC, GRAVEL, ICE = "/World/Materials/Tarmac", "/World/Materials/Gravel", "/World/Materials/Ice"


def make_pairs() -> DrivableSurfaceToTireFrictionPairs:
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(max_tire_types=4, max_surface_types=8)
    pairs.setup(2, 3, [TARMAC, GRAVEL, ICE], [0, 1, 2])
    return pairs


# Allocation limits -------------------------------------------------------------------------------------------------
def test_at_most_256_surface_types():
    assert MAX_SURFACE_TYPES == 256
    assert DrivableSurfaceToTireFrictionPairs.allocate(1, 256).max_surface_types == 256
    with pytest.raises(ValueError, match=r"max_surface_types must be at most 256 \(eMAX_NB_SURFACE_TYPES\), got 257"):
        DrivableSurfaceToTireFrictionPairs.allocate(1, 257)


@pytest.mark.parametrize("args", [(-1, 4), (4, -1), (1.5, 4), (True, 4)])
def test_allocate_takes_non_negative_integers(args):
    with pytest.raises(ValueError):
        DrivableSurfaceToTireFrictionPairs.allocate(*args)


def test_tire_types_are_limited_only_by_physx_32_bit_allocation_size():
    assert DrivableSurfaceToTireFrictionPairs.allocate(1_000_000, 256).max_tire_types == 1_000_000
    with pytest.raises(ValueError, match="more than PhysX can allocate"):
        DrivableSurfaceToTireFrictionPairs.allocate(2**30, 256)


# Setup --------------------------------------------------------------------------------------------------------------
def test_setup_gives_every_pair_friction_one():
    pairs = make_pairs()
    assert (pairs.num_tire_types, pairs.num_surface_types) == (2, 3)
    assert [pairs.get_type_pair_friction(s, t) for s in range(3) for t in range(2)] == [1.0] * 6
    assert pairs.pairs.shape == (3, 2)


def test_setup_counts_cannot_exceed_the_allocation():
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(2, 2)
    with pytest.raises(ValueError, match="num_tire_types must be at most 2"):
        pairs.setup(3, 1, [TARMAC], [0])
    with pytest.raises(ValueError, match="num_surface_types must be at most 2"):
        pairs.setup(1, 3, [TARMAC, GRAVEL, ICE], [0, 1, 2])


def test_setup_lists_must_match_the_surface_count_and_types_must_exist():
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(2, 4)
    with pytest.raises(ValueError, match="materials must have num_surface_types=2 entries, got 1"):
        pairs.setup(1, 2, [TARMAC], [0, 1])
    with pytest.raises(ValueError, match="surface_types must have num_surface_types=2 entries"):
        pairs.setup(1, 2, [TARMAC, ICE], [0])
    with pytest.raises(ValueError, match=r"surface_types\[1\]=2 is not a surface type"):
        pairs.setup(1, 2, [TARMAC, ICE], [0, 2])


def test_a_failed_setup_leaves_the_previous_one_in_place():
    pairs = make_pairs()
    pairs.set_type_pair_friction(1, 1, 0.6)
    with pytest.raises(ValueError):
        pairs.setup(1, 2, [TARMAC], [0, 1])
    assert pairs.get_type_pair_friction(1, 1) == 0.6


def test_setup_can_be_called_again_and_resets_everything():
    pairs = make_pairs()
    pairs.set_type_pair_friction(2, 1, 0.1)
    pairs.setup(4, 2, [ICE, GRAVEL], [1, 0])
    assert (pairs.num_tire_types, pairs.num_surface_types) == (4, 2)
    assert np.all(pairs.pairs == 1.0)
    assert pairs.get_surface_type(ICE) == 1
    assert pairs.get_surface_type(TARMAC) == 0  # no longer listed
    with pytest.raises(ValueError, match="surface_type 2 is out of range"):
        pairs.get_type_pair_friction(2, 1)


# Pair access --------------------------------------------------------------------------------------------------------
def test_set_and_get_type_pair_friction():
    pairs = make_pairs()
    pairs.set_type_pair_friction(surface_type=2, tire_type=0, value=0.1)  # ice, tire type 0
    pairs.set_type_pair_friction(surface_type=1, tire_type=1, value=0.7)
    assert pairs.get_type_pair_friction(2, 0) == 0.1
    assert pairs.get_type_pair_friction(1, 1) == 0.7
    assert pairs.get_type_pair_friction(2, 1) == 1.0
    assert pairs.pairs[2, 0] == 0.1  # rows are surface types, columns tire types


@pytest.mark.parametrize(
    "surface_type, tire_type, fragment",
    [(3, 0, "surface_type 3 is out of range"), (0, 2, "tire_type 2 is out of range"), (-1, 0, "must not be negative")],
)
def test_pair_indices_beyond_setup_are_errors(surface_type, tire_type, fragment):
    pairs = make_pairs()
    with pytest.raises(ValueError, match=fragment):
        pairs.get_type_pair_friction(surface_type, tire_type)
    with pytest.raises(ValueError, match=fragment):
        pairs.set_type_pair_friction(surface_type, tire_type, 0.5)


def test_before_setup_there_are_no_pairs():
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(2, 2)
    with pytest.raises(ValueError, match="setup\\(\\) declared 0 tire types"):
        pairs.get_type_pair_friction(0, 0)


@pytest.mark.parametrize("value", [-0.1, float("nan")])
def test_friction_must_not_be_negative(value):
    with pytest.raises(ValueError, match="friction must be a number >= 0"):
        make_pairs().set_type_pair_friction(0, 0, value)


def test_the_pair_view_is_read_only():
    with pytest.raises(ValueError):
        make_pairs().pairs[0, 0] = 5.0


# Material lookup -----------------------------------------------------------------------------------------------------
def test_materials_map_to_their_surface_types_and_unknown_ones_to_type_zero():
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(2, 4)
    pairs.setup(2, 3, [GRAVEL, ICE, TARMAC], [1, 2, 0])
    pairs.set_type_pair_friction(0, 1, 0.9)
    pairs.set_type_pair_friction(2, 1, 0.15)
    assert pairs.get_surface_type(GRAVEL) == 1
    assert pairs.get_surface_type(ICE) == 2
    assert pairs.get_surface_type("/World/Materials/Mud") == 0
    assert pairs.get_surface_type(None) == 0  # a hit with no material
    assert pairs.get_material_friction(ICE, 1) == 0.15
    assert pairs.get_material_friction("/World/Materials/Mud", 1) == 0.9  # row 0, like tarmac


def test_a_material_listed_twice_takes_its_last_surface_type():
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(1, 3)
    pairs.setup(1, 3, [ICE, GRAVEL, ICE], [1, 2, 0])
    assert pairs.get_surface_type(ICE) == 0


def test_none_entries_never_match():
    pairs = DrivableSurfaceToTireFrictionPairs.allocate(1, 2)
    pairs.setup(1, 2, [None, ICE], [0, 1])
    assert pairs.get_surface_type(ICE) == 1
    assert pairs.get_surface_type("None") == 0


# JSON form ----------------------------------------------------------------------------------------------------------
def test_snapshot_round_trip_through_json():
    pairs = make_pairs()
    pairs.set_type_pair_friction(2, 0, 0.1)
    text = pairs.snapshot().model_dump_json()
    data = json.loads(text)
    assert data["pairs"] == [[1.0, 1.0], [1.0, 1.0], [0.1, 1.0]]
    again = DrivableSurfaceToTireFrictionPairs.from_snapshot(FrictionPairsSnapshot.model_validate_json(text))
    assert again.snapshot() == pairs.snapshot()
    assert again.get_material_friction(ICE, 0) == 0.1


def test_snapshot_with_the_wrong_number_of_pairs_is_rejected():
    data = make_pairs().snapshot().model_dump()
    data["pairs"] = [[1.0, 1.0]]
    with pytest.raises(ValueError, match="num_surface_types x num_tire_types = 6 values, got 2"):
        DrivableSurfaceToTireFrictionPairs.from_snapshot(data)
