"""sim/contact/reduction.py's reduction, persistence.py's refresh and record of the kept manifolds and steady.py's
steady step, compiled (sim/_contact_bookkeeping.c and sim/_steady_contacts.c, in the extension sim/compiled.py
loads): the calls.

`reduce_contacts` reduces a step's contacts to the points each patch keeps; `refresh_and_reduce` re-measures the
kept manifolds' points at the step's poses (and reduces them where they are the step's only contacts), from the
pairs' `refresh_inputs` and the model's `refresh_tables`; `record_manifolds` records the pairs made anew and their
points; `SteadyContacts` makes a step steady as the last (the broad phase, the check of its candidates and the
refresh) in one call. The same arithmetic in the same order as the numpy forms, which stay the reference
(tests/test_contact_bookkeeping_compiled.py, tests/test_contact_steady.py); the callers decide what the C covers
(compiled_bookkeeping.available)."""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from .compiled_bookkeeping import CallWords, Held, StepKinds, as_f64, as_i64, strided_table, write_step_arrays
from .extension import address, addresses, open_extension, write_addresses

_P = ctypes.c_void_p
_I64 = ctypes.c_int64


def _load() -> ctypes.CDLL | None:
    # (an extension built before the bookkeeping's last function: numpy reduces, refreshes and records)
    lib = open_extension("pvu_steady_contacts_words")
    if lib is None:
        return None
    lib.pvu_reduce_contacts.argtypes = [_I64] + [_P] * 8
    lib.pvu_reduce_contacts.restype = ctypes.c_int64
    lib.pvu_reduce_contacts_words.argtypes = [_P]
    lib.pvu_reduce_contacts_words.restype = ctypes.c_int64
    lib.pvu_refresh_manifolds.argtypes = [_I64] * 7 + [_P] * 31 + [ctypes.c_int]
    lib.pvu_refresh_manifolds.restype = ctypes.c_int64
    lib.pvu_refresh_reduce_words.argtypes = [_P]
    lib.pvu_refresh_reduce_words.restype = ctypes.c_int64
    lib.pvu_steady_contacts_words.argtypes = [_P]
    lib.pvu_steady_contacts_words.restype = ctypes.c_int64
    lib.pvu_record_manifolds.argtypes = [_I64] * 5 + [_P] * 29
    lib.pvu_record_manifolds.restype = ctypes.c_int
    return lib


_LIB = _load()


class _ReduceCalls(threading.local):
    """Each thread's words of `reduce_contacts` (its arguments are all the step's): a shard's thread writes its own."""

    def __init__(self):
        self.reduce = CallWords(9, [])


_THREAD_CALLS = _ReduceCalls()


def reduce_contacts(shape: np.ndarray, static: np.ndarray, point: np.ndarray, normal: np.ndarray,
                    separation: np.ndarray, whole: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sim/contact/reduction.py reduce_contacts of C contacts (float64; `whole`: how many points each contact's patch
    keeps whole): the kept contacts' indices into them, in the order kept, and each one's patch (numbered from 0)."""
    C = len(shape)
    out = np.empty(2 * C, np.int64)
    index, patch = out[:C], out[C:]
    words = _THREAD_CALLS.reduce
    words.words[0] = C
    held = write_step_arrays((shape, static, point, normal, separation, whole, index, patch), _REDUCE_KINDS,
                             words.at + 8)
    n = _LIB.pvu_reduce_contacts_words(words.at)
    del held  # (read)
    if n < 0:
        raise MemoryError("the compiled contact reduction ran out of memory")
    return index[:n], patch[:n]


_REDUCE_KINDS = StepKinds((np.int64, np.int64, np.float64, np.float64, np.float64, np.int64, np.int64, np.int64),
                          writable=(6, 7))


def refresh_tables(vehicle: np.ndarray, box: np.ndarray, inner: np.ndarray, radius: np.ndarray,
                   origin: np.ndarray | None, static_box: np.ndarray, static_inner: np.ndarray,
                   contact_distance: np.ndarray) -> Held:
    """What `refresh_and_reduce` reads of the model: per row its vehicle, box (bool), PCM inner extent, radius, origin
    (None: 0); the static polytopes' box (bool) and inner extent; contact_distance (N, G)."""
    table, cd_row, cd_column = strided_table(contact_distance)
    out = Held(as_i64(vehicle), np.ascontiguousarray(box, dtype=np.bool_), as_f64(inner), as_f64(radius),
               None if origin is None else as_f64(origin), np.ascontiguousarray(static_box, dtype=np.bool_),
               as_f64(static_inner), table)
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
    return Held(as_i64(row), as_i64(static), as_i64(kind), np.ascontiguousarray(found, dtype=np.bool_), as_i64(at),
                as_f64(prev_origin), as_i64(pair), as_f64(body_point), as_f64(world_point), as_f64(normal),
                as_f64(static_radius), None if prev_orientation is None else as_f64(prev_orientation),
                None if turn_radius is None else as_f64(turn_radius))


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
    held = write_step_arrays((as_f64(length_scale), rotation, as_f64(position), flags, ints, floats, orientation),
                             _REFRESH_REDUCE_KINDS[single], words.at + 8 * _REFRESH_STEP_WORD)
    w = words.words
    w[33] = single
    w[42] = w[30] + 24 * Q  # (the counts: after the three Q-long runs of ints)
    if turn is not None:
        numpy_turns = (as_f64(turn), as_f64(travel))
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
_REFRESH_REDUCE_KINDS = {single: StepKinds((np.float64,) * 3 + (np.bool_, np.int64, np.float64)
                                          + ((np.float32,) if single else (np.float64,)), writable=(3, 4, 5))
                         for single in (False, True)}


def _reduce_words(inputs: Held, tables: Held, reduction: Held | None, polytope_first: int, V: int) -> CallWords:
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
    words = CallWords(_REFRESH_REDUCE_WORDS, first + [0] * 8 + [at or 0 for at in inputs.at[11:13]] + [
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
        self.words = CallWords(18, [boxes.at, pairs.words.at, refresh, V, N, 0, 0, 0, 0, 0, 0, 0, 0, 0,
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
    return Held(as_i64(vehicle), as_i64(first), None if origin is None else as_f64(origin), as_f64(radius),
                as_f64(static_radius))


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
    arrays = (as_i64(key), np.ascontiguousarray(is_kept, dtype=np.bool_), as_i64(row), as_i64(static),
              as_f64(rotation), as_f64(position), as_f64(orientation), as_i64(shape), as_i64(contact_static),
              as_f64(point), as_f64(normal), as_f64(separation))
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
