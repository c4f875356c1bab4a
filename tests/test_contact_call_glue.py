"""The glue of the compiled contact calls: the addresses handed to C (sim/extension.py `addresses`, in C and in
Python), the model tables converted once and remade where a source array is replaced (sim/compiled_bookkeeping.py
`held`), the patch rows' arrays laid out in one allocation (sim/compiled_patches.py `patch_row_arrays`, which
`write_rows` hands over), and persistence's pair kinds with the tests a model needs none of left out."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator, compiled_bookkeeping, compiled_manifolds, compiled_patches, extension
from physxvehicle_usd.sim.contact import persistence
from physxvehicle_usd.sim.contact.model import capsule_rows
from physxvehicle_usd.sim.declare import PATCH_PARAMS
from physxvehicle_usd.sim.extension import address, addresses
from physxvehicle_usd.sim.solver_rows import PatchRows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from fleet import fleet_stage


def test_addresses_are_address_s_and_null_for_empty_arrays_where_asked():
    writable, read_only, empty = np.arange(6.0), np.arange(4), np.zeros(0)
    read_only.flags.writeable = False
    view = writable[2:]
    arrays = (writable, read_only, view, empty)
    assert addresses(arrays) == [address(a) for a in arrays]
    assert addresses(arrays, empty_null=True) == [address(a) for a in arrays[:3]] + [0]
    assert addresses([view])[0] == writable.ctypes.data + 16
    assert addresses([read_only])[0] == read_only.ctypes.data



def test_the_compiled_addresses_are_numpy_s_for_every_kind_of_array():
    """pvu_buffer_addresses (one C call for a call's arrays) against numpy's own address of each array, and the
    Python path's: read-only, empty, strided, transposed, reversed, of every dtype the calls hand over."""
    if extension._BUFFER_ADDRESSES is None:
        pytest.skip("the compiled extension is not built")
    base = np.arange(24.0).reshape(4, 6)
    read_only = np.arange(5, dtype=np.int64)
    read_only.flags.writeable = False
    arrays = [base, base[:, 2], base.T, base[::-1], base[1:, ::2], read_only, np.zeros(0), np.zeros((0, 3)),
              np.ones(3, np.float32), np.zeros(4, np.uint8), np.zeros(2, bool), np.zeros((3, 3), order="F")]
    for empty_null in (False, True):
        expected = [0 if empty_null and not a.size else a.ctypes.data for a in arrays]
        assert addresses(arrays, empty_null) == expected
        assert addresses(tuple(arrays), empty_null) == expected
        assert extension._python_addresses(arrays, empty_null) == expected
    # more arrays than the C path's words hold: taken in Python, the same addresses
    many = [np.zeros(3) for _ in range(extension._WORDS + 1)]
    assert addresses(many) == [a.ctypes.data for a in many]
    assert addresses([]) == []
    assert addresses(a for a in arrays[:3]) == [a.ctypes.data for a in arrays[:3]]  # (any iterable)

def _tables(vehicle, first, origin, radius, static_radius):
    return compiled_manifolds.record_tables(vehicle, first, origin, radius, static_radius)


def test_held_tables_are_made_once_and_again_where_a_source_is_replaced():
    cache: dict = {}
    vehicle, first = np.array([0, 0, 1]), np.array([0, 2])
    radius, static_radius = np.zeros(3, np.float32), np.zeros(2)
    sources = (vehicle, first, None, radius, static_radius)
    made = compiled_bookkeeping.held(cache, "record", sources, _tables)
    assert made.at[2] is None  # (no origin: NULL)
    assert made.arrays[3].dtype == np.float64 and made.at[3] == address(made.arrays[3])  # converted, held
    assert compiled_bookkeeping.held(cache, "record", (vehicle, first, None, radius, static_radius), _tables) is made
    replaced = np.array([0, 1, 1])
    again = compiled_bookkeeping.held(cache, "record", (replaced, first, None, radius, static_radius), _tables)
    assert again is not made and np.array_equal(again.arrays[0], replaced) and cache["record"] is again


@pytest.mark.parametrize("Vr, Pm, K, n", [(1, 1, 4, 4), (3, 2, 5, 4), (2, 0, 0, 4), (0, 0, 0, 4)])
def test_patch_row_arrays_tile_their_block_zeroed(Vr, Pm, K, n):
    block, arrays = compiled_patches.patch_row_arrays(Vr, Pm, K, n)
    names = ("point_active", "arm", "separation", "normal", *(f"param{k}" for k in range(n)), "anchor_active",
             "anchor_arm", "anchor_error")
    shapes = {"arm": (3, Vr, Pm, K), "separation": (Vr, Pm, K), "normal": (3, Vr, Pm), "anchor_arm": (3, Vr, Pm, 2),
              "anchor_error": (3, Vr, Pm, 2), "point_active": (Vr, Pm, K), "anchor_active": (Vr, Pm, 2),
              **{f"param{k}": (Vr, Pm) for k in range(n)}}
    rows = dict(zip(names, arrays, strict=True))
    assert {name: a.shape for name, a in rows.items()} == shapes
    assert all(rows[name].dtype == bool for name in ("point_active", "anchor_active"))
    # write_rows's order: the floats, then the flags
    in_order = [rows[name] for name in ("arm", "separation", "normal", *(f"param{k}" for k in range(n)), "anchor_arm",
                                        "anchor_error", "point_active", "anchor_active")]
    assert not block.any() and all(a.flags.c_contiguous and a.flags.writeable for a in in_order)
    assert sum(a.nbytes for a in in_order) == block.nbytes  # every byte of the block in one array
    offset = 0
    for a in in_order:  # one after the other
        if a.size:
            assert a.ctypes.data == block.ctypes.data + offset
        offset += a.nbytes


def test_patch_row_arrays_come_in_patch_rows_order():
    """(contact/patches.py hands them to PatchRows by position)"""
    names = [f.name for f in dataclasses.fields(PatchRows)]
    assert names[:7 + len(PATCH_PARAMS)] == ["point_active", "arm", "separation", "normal", *PATCH_PARAMS,
                                             "anchor_active", "anchor_arm", "anchor_error"]


def test_pair_kinds_without_the_tests_the_model_needs_none_of_are_the_full_tests_kinds(tmp_path):
    """(persistence's `_kinds`: a fleet against static boxes leaves out the tests of planes, meshes, capsules and
    rounds)"""
    model = Simulator.from_description(read_stage(str(fleet_stage(4, tmp_path, road="obstacles"))), 1 / 60).contact
    G = model.collides.shape[1]
    rng = np.random.default_rng(0)
    row = rng.integers(0, len(model.vehicle), 40)
    for static in (rng.integers(model.polytope_first, G, 40), rng.integers(0, G, 40)):  # boxes only; and the mesh
        full = np.where(static < model.plane_count, persistence.PLANE,
                        np.where(static < model.polytope_first, persistence.MESH,
                                 np.where(static >= G, persistence.ROUND,
                                          np.where(capsule_rows(model)[row], persistence.CAPSULE,
                                                   persistence.POLYTOPE))))
        kinds = persistence._kinds(model, row, static, G)
        assert kinds.dtype == full.dtype and np.array_equal(kinds, full)
    assert (kinds == persistence.MESH).any()  # (the second set meets the road's mesh)
