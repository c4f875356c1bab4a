"""sim/contact/patches.py's friction patches and the solver's rows made of them, compiled (sim/_friction_patches.c,
in the extension sim/compiled.py loads), and telemetry.py's slots read back from the solved rows
(sim/_contact_bookkeeping.c): the calls.

`friction_patches` makes a step's patches against the static world from its reduced contacts and the last step's
patches, and with them (or apart, `write_rows`) the rows `patch_rows` hands the solver (`patch_row_arrays`'
allocation); `telemetry_group` writes a solve group's points into the telemetry's slots. The same arithmetic in the
same order as the numpy forms, which stay the reference (tests/test_contact_bookkeeping_compiled.py holds the two to
each other, to the bit); the callers decide what the C covers (compiled_bookkeeping.available)."""
from __future__ import annotations

import ctypes
import functools
import operator
import threading
from collections.abc import Callable

import numpy as np

from .compiled_bookkeeping import CallWords, Held, StepKinds, as_f64, as_i64, strided_table, write_step_arrays
from .extension import address, open_extension, pointers_type, write_addresses

_P = ctypes.c_void_p
_I64 = ctypes.c_int64


def _load() -> ctypes.CDLL | None:
    # (an extension built before the bookkeeping's last function: numpy makes the patches and the rows)
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
    lib.pvu_contact_telemetry_words.argtypes = [_P]
    lib.pvu_contact_telemetry_words.restype = ctypes.c_int
    lib.pvu_contact_telemetry.argtypes = [_I64] * 5 + [_P] * 10
    lib.pvu_contact_telemetry.restype = ctypes.c_int
    return lib


_LIB = _load()


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


class _TelemetryCalls(threading.local):
    """Each thread's words of `telemetry_group` (its arguments are all the step's): a shard's thread writes its
    own."""

    def __init__(self):
        self.telemetry = CallWords(15, [])


_THREAD_CALLS = _TelemetryCalls()


def patch_tables(vehicle: np.ndarray, first: np.ndarray, rest: np.ndarray, offset_threshold: np.ndarray,
                 params: list[np.ndarray]) -> Held:
    """What `friction_patches` and `write_rows` read of the model: per row its vehicle, each vehicle's first row, the
    rest distances (N, G), the offset thresholds (V,) and the pair parameters' (N, G) tables (in `write_rows`'s
    order)."""
    rest, rest_row, rest_column = strided_table(rest)
    tables = [strided_table(t) for t in params]
    out = Held(as_i64(vehicle), as_i64(first), rest, as_f64(offset_threshold),
               np.array([s for _, row, column in tables for s in (row, column)], np.int64))
    out.rest_strides = (rest_row, rest_column)
    out.params = [t for t, _, _ in tables]  # (held while C reads them)
    out.param_at = pointers_type(len(tables))(*(t.ctypes.data for t in out.params))
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
        held = write_step_arrays((shape, static, patch, point, normal, separation, as_f64(orientation),
                                  as_f64(position), _scales(tables, length_scale), previous.vehicle, previous.shape,
                                  previous.static, previous.body_normal, previous.other_normal, previous.anchor_count,
                                  previous.body_anchor, previous.other_anchor, previous.broken, where, ints, floats),
                                 _PATCH_KINDS, words.at + 8 * _PATCH_STEP_WORD)
        made = _made(words, tables, C, ints, floats, rows_of)
        del held  # (read)
        return made
    words.words[0], words.words[4] = C, 0
    words.words[_PATCH_PREVIOUS_WORD:_PATCH_PREVIOUS_WORD + 9] = _NO_PREVIOUS  # (NULL)
    step = (as_i64(shape), as_i64(static), as_i64(patch), as_f64(point), as_f64(normal), as_f64(separation),
            as_f64(orientation), as_f64(position),
            _scales(tables, length_scale))  # (no previous patches: the last three after the NULLs)
    tail = (as_i64(where), ints, floats)
    write_addresses(step, words.at + 8 * _PATCH_STEP_WORD)
    write_addresses(tail, words.at + 8 * (_PATCH_PREVIOUS_WORD + 9))
    return _made(words, tables, C, ints, floats, rows_of)


def _scales(tables: Held, length_scale: np.ndarray) -> np.ndarray:
    """`as_f64` of the length scales (a parameter: the same array step after step), kept on the tables for it."""
    kept = getattr(tables, "scales", None)
    if kept is None or kept[0] is not length_scale:
        kept = tables.scales = (length_scale, as_f64(length_scale))
    return kept[1]


def _made(words: CallWords, tables: Held, C: int, ints: np.ndarray, floats: np.ndarray, rows_of: int | None
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
_PATCH_KINDS = StepKinds((np.int64,) * 3 + (np.float64,) * 6 + (np.int64,) * 3 + (np.float64,) * 2
                         + (np.int64, np.float64, np.float64, np.bool_, np.int64, np.int64, np.float64),
                         writable=(19, 20))


def _patch_words(tables: Held, G: int, W: int) -> CallWords:
    """`friction_patches`' words, the model's `patch_tables` written in, kept on the tables while G and W (the length
    of `where`) are the same."""
    kept = getattr(tables, "patch_words", None)
    if kept is not None and kept[0] == (G, W):
        return kept[1]
    vehicle, first, rest, offset_threshold, _ = tables.at
    words = CallWords(_PATCH_WORDS, [0, len(tables.arrays[1]), len(tables.arrays[0]), G, 0, W, *tables.rest_strides,
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


def _row_words(tables: Held) -> CallWords:
    """`write_rows`' words, kept on the tables: the parameters' tables and their strides written in."""
    words = getattr(tables, "row_words", None)
    if words is None:
        words = tables.row_words = CallWords(_ROW_WORDS, [0] * 5 + [ctypes.addressof(tables.param_at), tables.at[4]])
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
    held = write_step_arrays((vehicles, active, arm, normal, impulse, begin, out["contactCount"], out["contactPoints"],
                              out["contactNormals"], out["contactImpulses"]), _TELEMETRY_KINDS, words.at + 40)
    _LIB.pvu_contact_telemetry_words(words.at)
    del held  # (read)


_TELEMETRY_KINDS = StepKinds((np.int64, np.bool_) + (np.float64,) * 4 + (np.int64,) + (np.float64,) * 3,
                             writable=(6, 7, 8, 9))
