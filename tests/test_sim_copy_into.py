"""extension.copy_into (sim/_addresses.c's pvu_copy_into: a compiled call's inputs copied into its buffers in one C
call) against numpy's np.copyto(target, value, casting="unsafe"), the reference: every pair of kinds it converts
(bool, int32, int64, float32, float64), with NaN, infinities, -0, float64 values that round, int64 values beyond
int32; compared bit for bit (0 ulps). Values it does not take (another shape, not contiguous, another kind) go to
numpy's copyto, which broadcasts or raises as before. Where the extension is not built these tests skip."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from physxvehicle_usd.sim import extension
from physxvehicle_usd.sim.extension import copy_all, copy_into, copy_table

pytestmark = pytest.mark.skipif(extension.copy_table([np.zeros(1)]) is None, reason="the extension is not built")

KINDS = (np.bool_, np.int32, np.int64, np.float32, np.float64)


def _values(dtype, shape=(3, 2, 4)) -> np.ndarray:
    """Random values of a kind, with its edge cases: for floats NaN, +-inf, -0, values that round to float32 and
    beyond its range; for integers values beyond int32."""
    rng = np.random.default_rng(7)
    size = int(np.prod(shape))
    if dtype == np.bool_:
        return rng.random(size).reshape(shape) < 0.5
    if np.issubdtype(dtype, np.integer):
        big = [2 ** 31 + 5, -(2 ** 31) - 3, 2 ** 40] if dtype == np.int64 else [2 ** 31 - 1, -(2 ** 31)]
        v = rng.integers(-1000, 1000, size).astype(dtype)
        v[:len(big)] = big[:size]
        return v.reshape(shape)
    v = rng.standard_normal(size) * 1e3
    edges = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0 + 2.0 ** -30, 1e300 if dtype == np.float64 else 3e38]
    v[:len(edges)] = edges[:size]
    return v.astype(dtype).reshape(shape)


def _same_bits(a, b) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("source, target", list(itertools.product(KINDS, KINDS)))
def test_copy_into_is_numpy_s_unsafe_copyto_to_the_bit(source, target):
    values = [_values(source), _values(source, (4,)), _values(source, (2, 4))]
    ours = [np.full(v.shape, 7, target) for v in values]
    reference = [np.full(v.shape, 7, target) for v in values]
    with np.errstate(invalid="ignore", over="ignore"):  # (numpy's casts of NaN and big floats to integers warn)
        differing = copy_into(values, copy_table(ours), ours)
        for r, v in zip(reference, values):
            np.copyto(r, v, casting="unsafe")
    for o, r in zip(ours, reference):
        assert _same_bits(o, r)
    assert differing == (0 if source == target else 0b111)


def test_copy_into_past_a_base_writes_at_the_offsets():
    block = np.zeros(64, np.uint8)
    targets = [block[0:16].view(np.float32), block[32:40].view(np.int64)]
    table = copy_table([np.empty(4, np.float32), np.empty(1, np.int64)], [0, 32])
    values = [np.array([1.5, -0.0, np.nan, 2.0], np.float32), np.array([True])]
    assert copy_all(values, table, extension.address(block)) == 0b10
    assert _same_bits(targets[0], values[0]) and targets[1].tolist() == [1]


def test_values_it_does_not_take_go_to_numpy():
    targets = [np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float32), np.zeros((2, 3), np.int32)]
    table = copy_table(targets)
    wide = np.arange(12.0).reshape(2, 6)
    values = [np.ones((2, 3)), wide[:, ::2], np.arange(3)]  # float64; not contiguous; another shape (broadcast)
    assert copy_all(values, table) is None  # (the first was copied, the second is numpy's)
    assert copy_into(values, table, targets) == 0b111
    assert targets[0].tolist() == [[1.0] * 3] * 2 and _same_bits(targets[1], wide[:, ::2].astype(np.float32))
    assert targets[2].tolist() == [[0, 1, 2]] * 2
    with pytest.raises(ValueError):  # (a shape copyto cannot broadcast: numpy's error, as before)
        copy_into([np.ones(4, np.float32)], table, targets[:1])


def test_targets_it_does_not_write_have_no_table():
    assert copy_table([np.zeros(3, np.float16)]) is None
    assert copy_table([np.zeros((3, 4))[:, ::2]]) is None
    assert copy_table([np.zeros(3)] * 65) is None


def test_kind_addresses_are_the_arrays_own_where_each_is_of_its_kind():
    from physxvehicle_usd.sim.extension import Kinds, kind_addresses

    arrays = (np.zeros((3, 2), np.float32), np.ones(4, bool), np.arange(3), np.zeros(2))
    kinds = Kinds([np.float32, np.bool_, np.int64, np.float64])
    assert kind_addresses(arrays, kinds) == [a.ctypes.data for a in arrays]
    assert kind_addresses((arrays[0].astype(np.float64),) + arrays[1:], kinds) is None  # another type
    assert kind_addresses((np.zeros((3, 4), np.float32)[:, ::2],) + arrays[1:], kinds) is None  # not contiguous


@pytest.mark.skipif(extension.extension_path() is None, reason="the extension is not built")
def test_write_kind_addresses_writes_the_arrays_own_at_the_block():
    from physxvehicle_usd.sim.extension import Kinds, write_kind_addresses

    arrays = (np.zeros((3, 2), np.float32), np.ones(4, bool), np.arange(3), np.zeros(2))
    kinds = Kinds([np.float32, np.bool_, np.int64, np.float64])
    words = np.zeros(6, np.int64)
    assert write_kind_addresses(arrays, kinds, words.ctypes.data + 8)
    assert words.tolist() == [0, *(a.ctypes.data for a in arrays), 0]  # (only its own words)
    assert not write_kind_addresses((arrays[0].astype(np.float64),) + arrays[1:], kinds, words.ctypes.data)
    assert not write_kind_addresses(arrays[:3] + (np.zeros((2, 4))[:, ::2],), kinds, words.ctypes.data)
