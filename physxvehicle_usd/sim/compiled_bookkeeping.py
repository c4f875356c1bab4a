"""The compiled contact bookkeeping's shared part (sim/_friction_patches.c, sim/_contact_bookkeeping.c and
sim/_steady_contacts.c, in the extension sim/compiled.py loads): whether the extension holds it, and the glue its
calls share.

The calls themselves live by job: compiled_patches.py (sim/contact/patches.py's friction patches and the solver's
rows made of them, telemetry.py's slots read back from the solved rows) and compiled_manifolds.py (reduction.py's
reduction, persistence.py's refresh and record of the kept manifolds, steady.py's steady step). Here: the
extension's check (`available`, `same_normal_agrees`), the model's tables held between steps (`Held`, `held`), a
call's arguments as 64-bit words (`CallWords`), and the step's arrays converted to their kinds and their addresses
written (`StepKinds`, `write_step_arrays`, the `as_*` conversions, `strided_table`)."""
from __future__ import annotations

import ctypes
import functools
import operator
import struct
from collections.abc import Callable

import numpy as np

from .extension import Kinds, address, open_extension, words_type, write_addresses, write_kind_addresses


def _load() -> ctypes.CDLL | None:
    # (an extension built before its last function: numpy makes the patches and the records)
    lib = open_extension("pvu_steady_contacts_words")
    if lib is None:
        return None
    lib.pvu_contact_bookkeeping_same_normal_bits.restype = ctypes.c_int64
    return lib


_LIB = _load()


def available() -> bool:
    """Whether the extension with the compiled contact bookkeeping (every call of compiled_patches.py and
    compiled_manifolds.py) is built and loaded."""
    return _LIB is not None


@functools.lru_cache(maxsize=8)
def same_normal_agrees(same_normal: float) -> bool:
    """Whether the extension was built with this PXC_SAME_NORMAL (sim/contact/geometry.py's): asked every step, found
    once."""
    bits = struct.unpack("<q", struct.pack("<d", same_normal))[0]
    return _LIB is not None and _LIB.pvu_contact_bookkeeping_same_normal_bits() == bits


def as_f64(a: np.ndarray) -> np.ndarray:
    """`a` as contiguous float64 (a float32 array converts exactly)."""
    return np.ascontiguousarray(a, dtype=np.float64)


def as_i64(a: np.ndarray) -> np.ndarray:
    """`a` as contiguous int64."""
    return np.ascontiguousarray(a, dtype=np.int64)


def as_bools(a: np.ndarray) -> np.ndarray:
    """`a` as contiguous bool."""
    return np.ascontiguousarray(a, dtype=np.bool_)


def as_f32(a: np.ndarray) -> np.ndarray:
    """`a` as contiguous float32."""
    return np.ascontiguousarray(a, dtype=np.float32)


_CONVERSIONS = {np.dtype(np.int64): as_i64, np.dtype(np.float64): as_f64, np.dtype(np.bool_): as_bools,
                np.dtype(np.float32): as_f32}


class StepKinds:
    """The element types a call takes its step's arrays in, in order (those it writes listed as `writable`): the kinds
    the extension checks, and each array's conversion (`as_i64`, `as_f64`, `as_bools`) where one is not of its kind."""

    def __init__(self, dtypes: tuple, writable: tuple = ()):
        self.kinds = Kinds(dtypes, writable)
        self.conversions = tuple(_CONVERSIONS[np.dtype(dtype)] for dtype in dtypes)


def write_step_arrays(arrays: tuple, kinds: StepKinds, at: int) -> tuple:
    """Write the addresses of the step's `arrays`, each converted by its kind's conversion, as 64-bit words at `at`:
    in one C call where every one is C-contiguous and of its kind already (its conversion would return it as it is,
    the same address), else converted first. Returns the arrays written (hold them while C reads them)."""
    if write_kind_addresses(arrays, kinds.kinds, at):
        return arrays
    arrays = tuple(convert(a) for convert, a in zip(kinds.conversions, arrays))
    write_addresses(arrays, at)
    return arrays


def strided_table(a: np.ndarray) -> tuple[np.ndarray, int, int]:
    """A float64 (N, G) table as it is (the model's are broadcast or column-major views, too large to copy each step)
    and its element strides."""
    a = np.asarray(a, dtype=np.float64)
    if a.strides[0] % 8 or a.strides[1] % 8:
        a = np.ascontiguousarray(a)
    return a, a.strides[0] // 8, a.strides[1] // 8


class CallWords:
    """A compiled call's arguments as 64-bit words (the C function's `_words` form), kept: `at` their address."""

    def __init__(self, n: int, first: list[int]):
        self.words = words_type(n)()
        self.words[:len(first)] = first
        self.at = ctypes.addressof(self.words)


class Held:
    """Arrays that every step's call reads unchanged (a contact model's tables), converted and their addresses taken
    once (`at`; 0 for an empty array) rather than each step: a call hands over some thirty pointers."""

    def __init__(self, *arrays: np.ndarray | None):
        self.arrays = arrays  # (held while C reads them)
        self.at = [None if a is None else address(a) if a.size else 0 for a in arrays]  # (None: NULL)
        self.sources: tuple = ()


def held(cache: dict, key: str, sources: tuple, make: Callable[..., Held]) -> Held:
    """cache[key], `make(*sources)`, made again where one of `sources` was replaced since it was made."""
    entry = cache.get(key)
    if entry is None or not all(map(operator.is_, entry.sources, sources)):
        entry = cache[key] = make(*sources)
        entry.sources = sources
    return entry
