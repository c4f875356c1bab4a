"""The contact bookkeeping after the narrow phase, compiled (sim/_friction_patches.c and sim/_contact_bookkeeping.c,
in the extension sim/compiled.py loads): the calls.

Each of these makes a step's records from its contacts in some dozens to hundreds of numpy calls, most on a handful
of points; the C functions do the same arithmetic in the same order, point by point: sim/contact/patches.py
`patch_rows` (the friction patches, then the solver's rows once their sizes are known), reduction.py
`reduce_contacts`, persistence.py's refresh of the kept manifolds and telemetry.py's slots. The callers decide what
the C covers; the numpy forms stay the reference (tests/test_contact_bookkeeping_compiled.py holds the two to each
other, to the bit).
"""
from __future__ import annotations

import ctypes
import functools
import operator
import struct
import threading
from collections.abc import Callable

import numpy as np

from .extension import Kinds, address, addresses, open_extension, write_addresses, write_kind_addresses

_P = ctypes.c_void_p
_I64 = ctypes.c_int64


def _load() -> ctypes.CDLL | None:
    # (an extension built before its last function: numpy makes the patches and the records)
    lib = open_extension("pvu_steady_contacts_words")
    if lib is None:
        return None
    lib.pvu_friction_patches.argtypes = [_I64] * 8 + [_P] * 25
    lib.pvu_friction_patches.restype = ctypes.c_int
    lib.pvu_friction_patches_words.argtypes = [_P]
    lib.pvu_friction_patches_words.restype = ctypes.c_int
    lib.pvu_patch_rows.argtypes = [_I64] * 5 + [_P] * 12
    lib.pvu_patch_rows.restype = ctypes.c_int
    lib.pvu_patch_rows_words.argtypes = [_P]
    lib.pvu_patch_rows_words.restype = ctypes.c_int
    if hasattr(lib, "pvu_friction_patch_rows_words"):  # (an extension built before it: the rows in a call of their own)
        lib.pvu_friction_patch_rows_words.argtypes = [_P, _P]
        lib.pvu_friction_patch_rows_words.restype = ctypes.c_int
    lib.pvu_reduce_contacts.argtypes = [_I64] + [_P] * 8
    lib.pvu_reduce_contacts.restype = ctypes.c_int64
    lib.pvu_reduce_contacts_words.argtypes = [_P]
    lib.pvu_reduce_contacts_words.restype = ctypes.c_int64
    lib.pvu_contact_telemetry_words.argtypes = [_P]
    lib.pvu_contact_telemetry_words.restype = ctypes.c_int
    lib.pvu_contact_telemetry.argtypes = [_I64] * 5 + [_P] * 10
    lib.pvu_contact_telemetry.restype = ctypes.c_int
    lib.pvu_refresh_manifolds.argtypes = [_I64] * 7 + [_P] * 31 + [ctypes.c_int]
    lib.pvu_refresh_manifolds.restype = ctypes.c_int64
    lib.pvu_refresh_reduce_words.argtypes = [_P]
    lib.pvu_refresh_reduce_words.restype = ctypes.c_int64
    lib.pvu_steady_contacts_words.argtypes = [_P]
    lib.pvu_steady_contacts_words.restype = ctypes.c_int64
    lib.pvu_record_manifolds.argtypes = [_I64] * 5 + [_P] * 29
    lib.pvu_record_manifolds.restype = ctypes.c_int
    lib.pvu_contact_bookkeeping_same_normal_bits.restype = ctypes.c_int64
    return lib


_LIB = _load()


def available() -> bool:
    """Whether the extension with the compiled friction patches is built and loaded."""
    return _LIB is not None


@functools.lru_cache(maxsize=8)
def same_normal_agrees(same_normal: float) -> bool:
    """Whether the extension was built with this PXC_SAME_NORMAL (sim/contact/geometry.py's): asked every step, found
    once."""
    bits = struct.unpack("<q", struct.pack("<d", same_normal))[0]
    return _LIB is not None and _LIB.pvu_contact_bookkeeping_same_normal_bits() == bits


def _f64(a: np.ndarray) -> np.ndarray:
    """`a` as contiguous float64 (a float32 array converts exactly)."""
    return np.ascontiguousarray(a, dtype=np.float64)


def _i64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


def _bools(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.bool_)


def _f32(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32)


_CONVERSIONS = {np.dtype(np.int64): _i64, np.dtype(np.float64): _f64, np.dtype(np.bool_): _bools,
                np.dtype(np.float32): _f32}


class _StepKinds:
    """The element types a call takes its step's arrays in, in order (those it writes listed as `writable`): the kinds
    the extension checks, and each array's conversion (`_i64`, `_f64`, `_bools`) where one is not of its kind."""

    def __init__(self, dtypes: tuple, writable: tuple = ()):
        self.kinds = Kinds(dtypes, writable)
        self.conversions = tuple(_CONVERSIONS[np.dtype(dtype)] for dtype in dtypes)


def _write_step(arrays: tuple, kinds: _StepKinds, at: int) -> tuple:
    """Write the addresses of the step's `arrays`, each converted by its kind's conversion, as 64-bit words at `at`:
    in one C call where every one is C-contiguous and of its kind already (its conversion would return it as it is,
    the same address), else converted first. Returns the arrays written (hold them while C reads them)."""
    if write_kind_addresses(arrays, kinds.kinds, at):
        return arrays
    arrays = tuple(convert(a) for convert, a in zip(kinds.conversions, arrays))
    write_addresses(arrays, at)
    return arrays


def _table(a: np.ndarray) -> tuple[np.ndarray, int, int]:
    """A float64 (N, G) table as it is (the model's are broadcast or column-major views, too large to copy each step)
    and its element strides."""
    a = np.asarray(a, dtype=np.float64)
    if a.strides[0] % 8 or a.strides[1] % 8:
        a = np.ascontiguousarray(a)
    return a, a.strides[0] // 8, a.strides[1] // 8


class MadePatches:
    """What `friction_patches` made: per patch (F) its shape row, other shape, first contact and count, vehicle, shape
    index within the vehicle, anchor count, vehicle row and slot in the rows, normal, body position, body and other
    normal, body and other anchors, anchor arms and errors (as patches.py's _Correlated and FrictionPatches name
    them); per contact (grouped by patch) its point and separation; the largest slot (Pm - 1) and point count (K).
    The record's fields and the slots are views taken at once (the fields of `_made_layout`'s types laid over the
    ints and floats); the others (which write_rows reads in C) on demand."""

    def __init__(self, C: int, ints: np.ndarray, floats: np.ndarray):
        self.C, self.ints, self.floats = C, ints, floats
        F, self.Pm, self.K = ints[12 * C:12 * C + 3].tolist()
        self.F = F
        self.rows: tuple | None = None  # (`friction_patches` with rows_of: the rows' block and arrays, where made)
        int_layout, float_layout = _made_layout(C, F)
        self.static, self.vehicle, self.shape, self.anchor_count, self.vehicle_row, self.slot = _made_ints(
            np.ndarray((), int_layout, ints))
        self.body_normal, self.other_normal, self.body_anchor, self.other_anchor = _made_floats(
            np.ndarray((), float_layout, floats))

    def _ints(self, k: int) -> np.ndarray:
        return self.ints[k * self.C:k * self.C + self.F]

    def _vectors(self, k: int) -> np.ndarray:
        return self.floats[k * 3 * self.C:k * 3 * self.C + 3 * self.F].reshape(self.F, 3)

    def _pairs(self, k: int) -> np.ndarray:
        at = 12 * self.C + k * 6 * self.C
        return self.floats[at:at + 6 * self.F].reshape(self.F, 2, 3)

    row = property(lambda self: self._ints(0))
    first = property(lambda self: self._ints(2))
    count = property(lambda self: self._ints(3))
    normal = property(lambda self: self._vectors(0))
    p = property(lambda self: self._vectors(1))
    anchor_arm = property(lambda self: self._pairs(2))
    anchor_error = property(lambda self: self._pairs(3))
    point = property(lambda self: self.floats[36 * self.C:39 * self.C].reshape(self.C, 3))
    separation = property(lambda self: self.floats[39 * self.C:40 * self.C])
    of_contact = property(lambda self: self.ints[11 * self.C:12 * self.C])


_MADE_INTS = ("static", "vehicle", "shape", "anchor_count", "vehicle_row", "slot")
_MADE_FLOATS = ("body_normal", "other_normal", "body_anchor", "other_anchor")
_made_ints, _made_floats = operator.itemgetter(*_MADE_INTS), operator.itemgetter(*_MADE_FLOATS)


@functools.lru_cache(maxsize=64)
def _made_layout(C: int, F: int) -> tuple[np.dtype, np.dtype]:
    """`MadePatches`' record fields and slots as the fields of two structured types, one laid over the ints (12 C + 3:
    the first F of their C-long runs 1 and 4 to 8) and one over the floats (40 C: the normals' runs of 3 C from 6 C and
    9 C, the anchors' of 6 C from 12 C and 18 C), so that one array over each gives every view at once."""
    ints = np.dtype({"names": list(_MADE_INTS), "formats": [(np.int64, (F,))] * len(_MADE_INTS),
                     "offsets": [8 * C * run for run in (1, 4, 5, 6, 7, 8)], "itemsize": 8 * (12 * C + 3)})
    floats = np.dtype({"names": list(_MADE_FLOATS),
                       "formats": [(np.float64, (F, 3))] * 2 + [(np.float64, (F, 2, 3))] * 2,
                       "offsets": [8 * C * run for run in (6, 9, 12, 18)], "itemsize": 8 * 40 * C})
    return ints, floats


class _Words:
    """A compiled call's arguments as 64-bit words (the C function's `_words` form), kept: `at` their address."""

    def __init__(self, n: int, first: list[int]):
        self.words = (ctypes.c_int64 * n)()
        self.words[:len(first)] = first
        self.at = ctypes.addressof(self.words)


class _Calls(threading.local):
    """Each thread's words of the calls whose arguments are all the step's (`reduce_contacts`, `telemetry_group`): a
    shard's thread writes its own."""

    def __init__(self):
        self.reduce, self.telemetry = _Words(9, []), _Words(15, [])


_THREAD_CALLS = _Calls()


def patch_tables(vehicle: np.ndarray, first: np.ndarray, rest: np.ndarray, offset_threshold: np.ndarray,
                 params: list[np.ndarray]) -> Held:
    """What `friction_patches` and `write_rows` read of the model: per row its vehicle, each vehicle's first row, the
    rest distances (N, G), the offset thresholds (V,) and the pair parameters' (N, G) tables (in `write_rows`'s
    order)."""
    rest, rest_row, rest_column = _table(rest)
    tables = [_table(t) for t in params]
    out = Held(_i64(vehicle), _i64(first), rest, _f64(offset_threshold),
               np.array([s for _, row, column in tables for s in (row, column)], np.int64))
    out.rest_strides = (rest_row, rest_column)
    out.params = [t for t, _, _ in tables]  # (held while C reads them)
    out.param_at = (ctypes.c_void_p * len(tables))(*(t.ctypes.data for t in out.params))
    return out


def friction_patches(shape: np.ndarray, static: np.ndarray, patch: np.ndarray, point: np.ndarray,
                     normal: np.ndarray, separation: np.ndarray, tables: Held, G: int, orientation: np.ndarray,
                     position: np.ndarray, length_scale: np.ndarray, previous, where: np.ndarray,
                     rows_of: int | None = None) -> MadePatches:
    """sim/contact/patches.py friction_patches against the static world (no two shapes' plane pairs to order) and each
    patch's vehicle row and slot in patch_rows: the contacts (C,) with their `patch`, the model's `patch_tables` (G
    static shapes), the bodies' orientation (4, V; the C turns it into the rotation of each body with a contact, as
    vecmath.quat_to_mat does), position (V, 3) and length_scale (V,), the last step's FrictionPatches (or None) and
    each vehicle's row in the solve (`where`, (V,), -1: none).

    rows_of: also the patches' rows for that many vehicles (`patch_row_arrays` written by `write_rows`), in the same
    C call where they fit the block kept for them (`MadePatches.rows`: the block and the arrays; None where they did
    not, or the extension lacks the call: the caller's two calls then)."""
    C = len(shape)
    words = _patch_words(tables, G, len(where))
    ints = np.empty(12 * C + 3, np.int64)
    floats = np.empty(40 * C)
    # the step's arrays, held here while C reads them (the poses and scales converted first: float32 in a float32
    # batch, which the kinds' check would refuse)
    if previous is not None and len(previous):
        words.words[0], words.words[4] = C, len(previous)
        held = _write_step((shape, static, patch, point, normal, separation, _f64(orientation), _f64(position),
                            _scales(tables, length_scale), previous.vehicle, previous.shape, previous.static,
                            previous.body_normal, previous.other_normal, previous.anchor_count, previous.body_anchor,
                            previous.other_anchor, previous.broken, where, ints, floats), _PATCH_KINDS,
                           words.at + 8 * _PATCH_STEP_WORD)
        made = _made(words, tables, C, ints, floats, rows_of)
        del held  # (read)
        return made
    words.words[0], words.words[4] = C, 0
    words.words[_PATCH_PREVIOUS_WORD:_PATCH_PREVIOUS_WORD + 9] = _NO_PREVIOUS  # (NULL)
    step = (_i64(shape), _i64(static), _i64(patch), _f64(point), _f64(normal), _f64(separation), _f64(orientation),
            _f64(position), _scales(tables, length_scale))  # (no previous patches: the last three after the NULLs)
    tail = (_i64(where), ints, floats)
    write_addresses(step, words.at + 8 * _PATCH_STEP_WORD)
    write_addresses(tail, words.at + 8 * (_PATCH_PREVIOUS_WORD + 9))
    return _made(words, tables, C, ints, floats, rows_of)


def _scales(tables: Held, length_scale: np.ndarray) -> np.ndarray:
    """`_f64` of the length scales (a parameter: the same array step after step), kept on the tables for it."""
    kept = getattr(tables, "scales", None)
    if kept is None or kept[0] is not length_scale:
        kept = tables.scales = (length_scale, _f64(length_scale))
    return kept[1]


def _made(words: _Words, tables: Held, C: int, ints: np.ndarray, floats: np.ndarray, rows_of: int | None
          ) -> MadePatches:
    """`friction_patches`' C call, its step's words written, and with `rows_of` the rows in the same call where they
    fit the block kept for them (the block the rows of the last step that did not fit needed, and more)."""
    if rows_of is None or not _ROWS_TOO:
        if _LIB.pvu_friction_patches_words(words.at):
            raise MemoryError("the compiled friction patches ran out of memory")
        return MadePatches(C, ints, floats)
    rows = _row_words(tables)
    row = rows.words
    capacity = getattr(tables, "row_capacity", _ROW_CAPACITY)
    block = np.empty(capacity // 8, np.int64)
    row[1], row[4], row[11] = rows_of, len(tables.params), capacity
    row[9] = address(block)
    status = _LIB.pvu_friction_patch_rows_words(words.at, rows.at)
    if status < 0:
        raise (MemoryError("the compiled friction patches ran out of memory") if status == -1 else
               ValueError("the compiled patch rows take at most 16 pair parameters"))
    made = MadePatches(C, ints, floats)
    if status == 0:
        layout = _row_layout(rows_of, made.Pm, made.K, len(tables.params))
        made.rows = (block, _fields(layout)(np.ndarray((), layout, block)))
    else:  # (a larger block from the next step on: these rows' bytes and a quarter more, in whole words)
        tables.row_capacity = -(-row[11] * 5 // 4 // 8) * 8
    return made


_ROWS_TOO = _LIB is not None and hasattr(_LIB, "pvu_friction_patch_rows_words")
_ROW_CAPACITY = 4096  # (the bytes of a first block of rows: a car's on an obstacle fit some times over)


# `pvu_friction_patches_words`' words: the model's first (written once), the step's from _PATCH_STEP_WORD (the last
# step's patches from _PATCH_PREVIOUS_WORD)
_PATCH_WORDS, _PATCH_STEP_WORD, _PATCH_PREVIOUS_WORD = 33, 12, 21
_NO_PREVIOUS = [0] * 9
# the kinds of its step's arrays with the last step's patches, from _PATCH_STEP_WORD on: the contacts', the bodies',
# the last step's patches', `where` and the outputs
_PATCH_KINDS = _StepKinds((np.int64,) * 3 + (np.float64,) * 6 + (np.int64,) * 3 + (np.float64,) * 2
                          + (np.int64, np.float64, np.float64, np.bool_, np.int64, np.int64, np.float64),
                          writable=(19, 20))


def _patch_words(tables: Held, G: int, W: int) -> _Words:
    """`friction_patches`' words, the model's `patch_tables` written in, kept on the tables while G and W (the length
    of `where`) are the same."""
    kept = getattr(tables, "patch_words", None)
    if kept is not None and kept[0] == (G, W):
        return kept[1]
    vehicle, first, rest, offset_threshold, _ = tables.at
    words = _Words(_PATCH_WORDS, [0, len(tables.arrays[1]), len(tables.arrays[0]), G, 0, W, *tables.rest_strides,
                                  vehicle, first, rest, offset_threshold])
    tables.patch_words = ((G, W), words)
    return words


def write_rows(made: MadePatches, tables: Held, Vr: int, block: np.ndarray) -> None:
    """Write the patches `made` into the zeroed rows (Vr vehicles) of `block`, `patch_row_arrays`' allocation: its
    floats PatchRows's arm, separation, normal, the pair's parameters (each from its table of `tables`, the model's
    `patch_tables`), anchor_arm and anchor_error one after the other, then its flags point_active and
    anchor_active."""
    words = _row_words(tables)
    row = words.words
    row[:5] = sizes = (made.C, Vr, made.Pm, made.K, len(tables.params))
    write_addresses((made.ints, made.floats, block), words.at + 8 * _ROW_STEP_WORD)
    row[_ROW_STEP_WORD + 3] = row[_ROW_STEP_WORD + 2] + 8 * _float_count(*sizes[1:])  # (the flags after the floats)
    if _LIB.pvu_patch_rows_words(words.at):
        raise ValueError("the compiled patch rows take at most 16 pair parameters")


def _row_words(tables: Held) -> _Words:
    """`write_rows`' words, kept on the tables: the parameters' tables and their strides written in."""
    words = getattr(tables, "row_words", None)
    if words is None:
        words = tables.row_words = _Words(_ROW_WORDS, [0] * 5 + [ctypes.addressof(tables.param_at), tables.at[4]])
    return words


# `pvu_patch_rows_words`' words: the sizes, the tables' (written once), the step's arrays from _ROW_STEP_WORD; and
# `pvu_friction_patch_rows_words`' block's bytes
_ROW_WORDS, _ROW_STEP_WORD = 12, 7


def patch_row_arrays(Vr: int, Pm: int, K: int, n_params: int) -> tuple[np.ndarray, tuple[np.ndarray, ...]]:
    """PatchRows's zeroed arrays of Vr vehicles, Pm slots, K points and n_params pair parameters in one allocation, as
    `write_rows` reads it: the block (bytes: the floats arm, separation, normal, the parameters, anchor_arm and
    anchor_error one after the other, then the flags point_active and anchor_active) and the arrays in PatchRows's
    order: point_active (Vr, Pm, K), arm (3, Vr, Pm, K), separation (Vr, Pm, K), normal (3, Vr, Pm), the n_params
    parameters (Vr, Pm), anchor_active (Vr, Pm, 2), anchor_arm and anchor_error (3, Vr, Pm, 2)."""
    layout = _row_layout(Vr, Pm, K, n_params)
    block = np.zeros(layout.itemsize, np.uint8)
    return block, _fields(layout)(np.ndarray((), layout, block))


def _float_count(Vr: int, Pm: int, K: int, n_params: int) -> int:
    """How many float64 lead `patch_row_arrays`' block (its flags after them)."""
    E = Vr * Pm
    return 4 * E * K + (3 + n_params) * E + 12 * E


@functools.lru_cache(maxsize=64)
def _row_layout(Vr: int, Pm: int, K: int, n_params: int) -> np.dtype:
    """`patch_row_arrays`' block as the fields of one structured type, in PatchRows's order."""
    E = Vr * Pm
    floats = 8 * _float_count(Vr, Pm, K, n_params)
    params = [(f"param{k}", np.float64, (Vr, Pm), 8 * (4 * E * K + (3 + k) * E)) for k in range(n_params)]
    anchors = 8 * (4 * E * K + (3 + n_params) * E)
    fields = ([("point_active", np.bool_, (Vr, Pm, K), floats), ("arm", np.float64, (3, Vr, Pm, K), 0),
               ("separation", np.float64, (Vr, Pm, K), 8 * 3 * E * K),
               ("normal", np.float64, (3, Vr, Pm), 8 * 4 * E * K)]
              + params + [("anchor_active", np.bool_, (Vr, Pm, 2), floats + E * K),
                          ("anchor_arm", np.float64, (3, Vr, Pm, 2), anchors),
                          ("anchor_error", np.float64, (3, Vr, Pm, 2), anchors + 8 * 6 * E)])
    return np.dtype({"names": [name for name, _, _, _ in fields],
                     "formats": [(dtype, shape) for _, dtype, shape, _ in fields],
                     "offsets": [offset for _, _, _, offset in fields], "itemsize": floats + E * K + 2 * E})


@functools.lru_cache(maxsize=64)
def _fields(layout: np.dtype) -> Callable:
    """A function of an array of the structured type `layout`: its fields in order, as a tuple."""
    getter = operator.itemgetter(*layout.names)
    return getter if len(layout.names) > 1 else lambda array: (getter(array),)


def reduce_contacts(shape: np.ndarray, static: np.ndarray, point: np.ndarray, normal: np.ndarray,
                    separation: np.ndarray, whole: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sim/contact/reduction.py reduce_contacts of C contacts (float64; `whole`: how many points each contact's patch
    keeps whole): the kept contacts' indices into them, in the order kept, and each one's patch (numbered from 0)."""
    C = len(shape)
    out = np.empty(2 * C, np.int64)
    index, patch = out[:C], out[C:]
    words = _THREAD_CALLS.reduce
    words.words[0] = C
    held = _write_step((shape, static, point, normal, separation, whole, index, patch), _REDUCE_KINDS, words.at + 8)
    n = _LIB.pvu_reduce_contacts_words(words.at)
    del held  # (read)
    if n < 0:
        raise MemoryError("the compiled contact reduction ran out of memory")
    return index[:n], patch[:n]


_REDUCE_KINDS = _StepKinds((np.int64, np.int64, np.float64, np.float64, np.float64, np.int64, np.int64, np.int64),
                           writable=(6, 7))


def telemetry_group(vehicles: np.ndarray, active: np.ndarray, arm: np.ndarray, normal: np.ndarray,
                    impulse: np.ndarray, begin: np.ndarray, out: dict[str, np.ndarray]) -> None:
    """sim/contact/telemetry.py telemetry's step for one solve group: its points (active (Vr, Pm, K), arm (3, Vr, Pm,
    K), normal (3, Vr, Pm), impulse (Vr, Pm, K)) written into `out` (empty_telemetry's arrays, contactCount the points
    already reported) after the vehicles' earlier ones; begin (3, V) float64: the begin positions."""
    Vr = len(vehicles)
    K = arm.shape[-1]
    E = active.size // Vr if Vr else 0
    S = out["contactPoints"].shape[1]
    words = _THREAD_CALLS.telemetry
    words.words[:5] = (Vr, E, K, S, begin.shape[1])
    held = _write_step((vehicles, active, arm, normal, impulse, begin, out["contactCount"], out["contactPoints"],
                        out["contactNormals"], out["contactImpulses"]), _TELEMETRY_KINDS, words.at + 40)
    _LIB.pvu_contact_telemetry_words(words.at)
    del held  # (read)


_TELEMETRY_KINDS = _StepKinds((np.int64, np.bool_) + (np.float64,) * 4 + (np.int64,) + (np.float64,) * 3,
                              writable=(6, 7, 8, 9))


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


def refresh_tables(vehicle: np.ndarray, box: np.ndarray, inner: np.ndarray, radius: np.ndarray,
                   origin: np.ndarray | None, static_box: np.ndarray, static_inner: np.ndarray,
                   contact_distance: np.ndarray) -> Held:
    """What `refresh_and_reduce` reads of the model: per row its vehicle, box (bool), PCM inner extent, radius, origin
    (None: 0); the static polytopes' box (bool) and inner extent; contact_distance (N, G)."""
    table, cd_row, cd_column = _table(contact_distance)
    out = Held(_i64(vehicle), np.ascontiguousarray(box, dtype=np.bool_), _f64(inner), _f64(radius),
               None if origin is None else _f64(origin), np.ascontiguousarray(static_box, dtype=np.bool_),
               _f64(static_inner), table)
    out.strides = (cd_row, cd_column)
    return out


def refresh_inputs(row: np.ndarray, static: np.ndarray, kind: np.ndarray, found: np.ndarray, at: np.ndarray,
                   prev_origin: np.ndarray, pair: np.ndarray, body_point: np.ndarray, world_point: np.ndarray,
                   normal: np.ndarray, static_radius: np.ndarray, prev_orientation: np.ndarray | None = None,
                   turn_radius: np.ndarray | None = None) -> Held:
    """What `refresh_and_reduce` reads of the candidate pairs and the last step's points, converted and their addresses
    taken once (0 for an empty one): per candidate pair (K) its row, static shape, kind, whether the last step recorded
    it and where (`at` into its pairs' `prev_origin`), per point it kept (Q) its candidate pair and its body_point,
    world_point and normal; per pair the static radius. The same while the candidates and the last step's records are
    (persistence.py's match: step after step of a car at rest on an obstacle). For `refresh_and_reduce`, per pair
    the orientation (4,) its body had when its points were made and the reach of a turn (both None: not given)."""
    return Held(_i64(row), _i64(static), _i64(kind), np.ascontiguousarray(found, dtype=np.bool_), _i64(at),
                _f64(prev_origin), _i64(pair), _f64(body_point), _f64(world_point), _f64(normal), _f64(static_radius),
                None if prev_orientation is None else _f64(prev_orientation),
                None if turn_radius is None else _f64(turn_radius))


def reduction_settings(mesh_rows: np.ndarray, plane_count: int, mesh_points: int, other_points: int) -> Held:
    """What `refresh_and_reduce` reads to reduce the kept contacts as reduction.py reduce_contacts does, with
    world.py's patch_points: the rows (N,) whose patches on a mesh (static shapes plane_count .. polytope_first) keep
    mesh_points whole, every other patch other_points."""
    out = Held(np.ascontiguousarray(mesh_rows, dtype=np.bool_))
    out.counts = (plane_count, mesh_points, other_points)
    return out


def refresh_and_reduce(inputs: Held, tables: Held, polytope_first: int, length_scale: np.ndarray,
                       rotation: np.ndarray, position: np.ndarray, orientation: np.ndarray, reduction: Held | None,
                       turn: np.ndarray | None = None, travel: np.ndarray | None = None):
    """sim/contact/persistence.py Persistence._refresh for pairs against planes, meshes and static polytopes (kind
    PLANE, MESH, POLYTOPE): the pairs and points `refresh_inputs` holds (with their prev_orientation and
    turn_radius), the model's `refresh_tables`, the static polytopes from polytope_first; the length scales (V,),
    each row's body rotation (3, 3, N), the body positions (3, V); the turns and their travels made in C from the
    bodies' orientation (4, V) (persistence.py's, in its order, but libm's arccos: None returned where a travel lies
    too near its limit to tell numpy's side; the caller asks again with numpy's `turn` and `travel`); and where
    every pair keeps its points and `reduction` (`reduction_settings`; None: never) is given, the kept contacts
    reduced in the same call as reduction.py reduce_contacts reduces them (the caller gives it where those are the
    step's only contacts). Returns keep_pair (K,), keep_point (Q,), how many pairs and points are kept, the contacts
    (row, static, point, normal, separation) and their patches (None: not reduced, the contacts are the refreshed
    ones)."""
    K, Q = len(inputs.arrays[0]), len(inputs.arrays[6])
    flags, ints, floats = np.empty(K + Q, np.bool_), np.empty(3 * Q + 3, np.int64), np.empty(7 * Q)
    words = _reduce_words(inputs, tables, reduction, polytope_first, position.shape[1])
    single = orientation.dtype == np.float32
    held = _write_step((_f64(length_scale), rotation, _f64(position), flags, ints, floats, orientation),
                       _REFRESH_REDUCE_KINDS[single], words.at + 8 * _REFRESH_STEP_WORD)
    w = words.words
    w[33] = single
    w[42] = w[30] + 24 * Q  # (the counts: after the three Q-long runs of ints)
    if turn is not None:
        numpy_turns = (_f64(turn), _f64(travel))
        held += numpy_turns
        write_addresses(numpy_turns, words.at + 8 * 36)
    n = _LIB.pvu_refresh_reduce_words(words.at)
    w[36] = w[37] = 0
    del held  # (read)
    if n == -2:
        return None
    if n < 0:
        raise MemoryError("the compiled manifold refresh ran out of memory")
    kept_pairs, kept_points, reduced = ints[3 * Q:].tolist()
    contacts = (ints[:n], ints[Q:Q + n], floats[:3 * n].reshape(n, 3), floats[3 * Q:3 * Q + 3 * n].reshape(n, 3),
                floats[6 * Q:6 * Q + n])
    return (flags[:K], flags[K:], kept_pairs, kept_points, contacts,
            None if reduced < 0 else ints[2 * Q:2 * Q + n])


# `pvu_refresh_reduce_words`' words: the pairs' and the model's first (written once), the step's from this one
_REFRESH_STEP_WORD = 26
# `refresh_and_reduce`'s step's arrays (from _REFRESH_STEP_WORD), by whether the orientation is float32
_REFRESH_REDUCE_KINDS = {single: _StepKinds((np.float64,) * 3 + (np.bool_, np.int64, np.float64)
                                           + ((np.float32,) if single else (np.float64,)), writable=(3, 4, 5))
                         for single in (False, True)}


def _reduce_words(inputs: Held, tables: Held, reduction: Held | None, polytope_first: int, V: int) -> _Words:
    """`refresh_and_reduce`'s words (_contact_bookkeeping.c pvu_refresh_reduce_words): the sizes, the pairs' and the
    model's arrays (`inputs`, `tables`), the pairs' turn inputs and the reduction's settings, kept on the pairs' Held
    while the tables, the settings, polytope_first and V are the same."""
    kept = getattr(inputs, "reduce_words", None)
    if kept is not None and kept[0] is tables and kept[1] is reduction and kept[2] == (polytope_first, V):
        return kept[3]
    K, Q, N = len(inputs.arrays[0]), len(inputs.arrays[6]), len(tables.arrays[0])
    first = [K, Q, N, V, *tables.strides, polytope_first, *inputs.at[:10],
             *(0 if at is None else at for at in tables.at), inputs.at[10]]  # (None: NULL)
    plane_count, mesh_points, other_points = (0, 0, 0) if reduction is None else reduction.counts
    words = _Words(_REFRESH_REDUCE_WORDS, first + [0] * 8 + [at or 0 for at in inputs.at[11:13]] + [
        0, 0, plane_count, 0 if reduction is None else reduction.at[0], mesh_points, other_points, 0,
        reduction is not None])
    inputs.reduce_words = (tables, reduction, (polytope_first, V), words)
    return words


_REFRESH_REDUCE_WORDS = 44


class SteadyContacts:
    """world.py's steady step in one call (sim/_steady_contacts.c): the shapes' world boxes (compiled_placement.py's
    kept words `boxes`), their static pairs (compiled_mesh.StaticPairs `pairs`, in the room of its last call), the
    check that these are the candidates `tri_pairs` and `hull_pairs` (each (shape, other)) a persistence match was
    made of, and `refresh_and_reduce` of the match's kept points (its refresh inputs `inputs`, whose words
    `refresh_and_reduce` made, with a reduction; None: a quiet step, as the last, no candidate to find). A call hands
    over the step's poses and length scales alone. boxes: what compiled_placement.kept_words gives of the model's
    arrays."""

    def __init__(self, boxes, pairs, inputs: Held | None, V: int, N: int, tri_pairs: tuple, hull_pairs: tuple):
        self.boxes, self.pairs, self.inputs = boxes, pairs, inputs  # (held while C reads their words)
        self.candidates = tuple(np.ascontiguousarray(np.concatenate(pair), dtype=np.int64)
                                for pair in (tri_pairs, hull_pairs))
        self.K, self.Q, self.V = (0, 0, V) if inputs is None else (len(inputs.arrays[0]), len(inputs.arrays[6]), V)
        refresh = 0 if inputs is None else inputs.reduce_words[3].at
        T, H = len(tri_pairs[0]), len(hull_pairs[0])
        self.words = _Words(18, [boxes.at, pairs.words.at, refresh, V, N, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 T, address(self.candidates[0]) if T else 0,
                                 H, address(self.candidates[1]) if H else 0])
        self.singles = None  # (the poses' float32 flags last written)
        self.shapes = ((3, V), (4, V), (V,))

    def __call__(self, position: np.ndarray, orientation: np.ndarray, length_scale: np.ndarray, threads: int):
        """The step's contacts at these poses (as `refresh_and_reduce` returns them, reduced; () where the step is
        quiet, as the last), or None where the step is not steady (other candidates, a pair that does not keep its
        points, a travel too near its limit, the broad phase short of room or not covered): the caller's path makes
        it."""
        K, Q = self.K, self.Q
        singles = (_SINGLE.get(position.dtype), _SINGLE.get(orientation.dtype), _SINGLE.get(length_scale.dtype))
        if None in singles or (position.shape, orientation.shape, length_scale.shape) != self.shapes:
            return None
        # the outputs: refresh_and_reduce's ints (3 Q + 3), then its flags as bytes; its floats
        ints, floats = np.empty(3 * Q + 3 + (K + Q + 7) // 8, np.int64), np.empty(7 * Q)
        step = (np.ascontiguousarray(position), np.ascontiguousarray(orientation), np.ascontiguousarray(length_scale),
                ints, floats)
        words = self.words
        w = words.words
        write_addresses(step, words.at + 40)
        if singles != self.singles:
            w[10:13], self.singles = singles, singles
        w[13] = threads
        n = _LIB.pvu_steady_contacts_words(words.at)
        del step  # (read)
        if n == -1:
            raise MemoryError("the compiled steady contacts ran out of memory")
        if n < 0:
            return None
        if self.inputs is None:  # (quiet, as the last step: no contact)
            return ()
        kept_pairs, kept_points, _ = ints[3 * Q:3 * Q + 3].tolist()
        contacts = (ints[:n], ints[Q:Q + n], floats[:3 * n].reshape(n, 3), floats[3 * Q:3 * Q + 3 * n].reshape(n, 3),
                    floats[6 * Q:6 * Q + n])
        keep_point = None if kept_points == Q else ints[3 * Q + 3:].view(np.bool_)[K:K + Q]
        return kept_pairs, keep_point, contacts, ints[2 * Q:2 * Q + n]


# the poses' dtypes the steady call takes, and whether each is float32
_SINGLE = {np.dtype(np.float32): 1, np.dtype(np.float64): 0}


def record_tables(vehicle: np.ndarray, first: np.ndarray, origin: np.ndarray | None, radius: np.ndarray,
                  static_radius: np.ndarray) -> Held:
    """What `record_manifolds` reads of the model: per row its vehicle and origin (None: 0), each vehicle's first
    row, the rows' radius (N,) and the static shapes' (G,)."""
    return Held(_i64(vehicle), _i64(first), None if origin is None else _f64(origin), _f64(radius),
                _f64(static_radius))


def record_manifolds(key: np.ndarray, is_kept: np.ndarray, row: np.ndarray, static: np.ndarray, tables: Held,
                     rotation: np.ndarray, position: np.ndarray, orientation: np.ndarray, shape: np.ndarray,
                     contact_static: np.ndarray, point: np.ndarray, normal: np.ndarray, separation: np.ndarray):
    """sim/contact/persistence.py Persistence.record's pairs made anew and their points: of the candidate pairs (key
    sorted, is_kept, row, static) the ones not kept, where their shapes' frames are (the rows' origin by the rotation
    (3, 3, N) and position (3, V)) and their bodies' orientation (4, V); the contacts (shape, contact_static, point,
    normal, separation) of those pairs on the static shape and in the body frame, by the model's `record_tables`.
    Returns the pairs' (vehicle, shape, static, origin, orientation) and the points' (vehicle, shape, static,
    body_point, world_point, normal)."""
    K, C, N, G = len(key), len(shape), len(tables.arrays[0]), len(tables.arrays[4])
    # the outputs in two allocations: per pair vehicle, shape, static, per point the same, the counts; per pair its
    # origin and orientation, per point its body point, world point and normal
    ints, floats = np.empty(3 * K + 3 * C + 2, np.int64), np.empty(7 * K + 9 * C)
    pair_i, point_i, counts = ints[:3 * K].reshape(3, K), ints[3 * K:3 * K + 3 * C].reshape(3, C), ints[-2:]
    origin_out, orientation_out = floats[:3 * K].reshape(K, 3), floats[3 * K:7 * K].reshape(K, 4)
    point_f = floats[7 * K:].reshape(3, C, 3)
    vehicle, first, origin, radius, static_radius = tables.at
    arrays = (_i64(key), np.ascontiguousarray(is_kept, dtype=np.bool_), _i64(row), _i64(static), _f64(rotation),
              _f64(position), _f64(orientation), _i64(shape), _i64(contact_static), _f64(point), _f64(normal),
              _f64(separation))
    p = addresses(arrays, True)
    i, f = addresses((ints, floats))
    if _LIB.pvu_record_manifolds(K, C, N, position.shape[1], G, p[0], p[1], p[2], p[3], vehicle, first, p[4], origin,
                                 p[5], p[6], radius, static_radius, *p[7:], i, i + 8 * K, i + 16 * K, f, f + 24 * K,
                                 i + 24 * K, i + 24 * K + 8 * C, i + 24 * K + 16 * C, f + 56 * K, f + 56 * K + 24 * C,
                                 f + 56 * K + 48 * C, i + 24 * K + 24 * C):
        raise MemoryError("the compiled manifold record ran out of memory")
    M, Q = int(counts[0]), int(counts[1])
    return ((pair_i[0, :M], pair_i[1, :M], pair_i[2, :M], origin_out[:M], orientation_out[:M]),
            (point_i[0, :Q], point_i[1, :Q], point_i[2, :Q], point_f[0, :Q], point_f[1, :Q], point_f[2, :Q]))
