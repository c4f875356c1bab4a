"""Where the contact model's shapes stand, compiled (sim/_shape_boxes.c, in the extension sim/compiled.py loads):
contact/placement.py's `shape_boxes` and `world_boxes` in one C loop over the shapes, the numpy code's float64
arithmetic in its order. A step of one car asked them through some thirty small numpy calls; the loop is a single
call. The numpy code stays the reference (tests/test_sim_static_broad.py holds the two to each other, 0 ulps)."""
from __future__ import annotations

import ctypes
import operator

import numpy as np

from .extension import addresses, open_extension, words_type, write_addresses

_P, _I64 = ctypes.c_void_p, ctypes.c_int64
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_shape_boxes")  # (an extension built before it: numpy places the shapes)
    if lib is None:
        return None
    lib.pvu_shape_boxes.argtypes = [_I64, _I64, _I64, _P, _P, _P, ctypes.c_int, _P, ctypes.c_int] + [_P] * 8
    lib.pvu_shape_boxes.restype = ctypes.c_int
    lib.pvu_shape_boxes_words.argtypes = [_P]
    lib.pvu_shape_boxes_words.restype = ctypes.c_int
    return lib


_LIB = _load()


def available() -> bool:
    """Whether the extension with the compiled shape boxes is built and loaded."""
    return _LIB is not None


class _Kept:
    """The model's arrays of the last call (its shapes' vehicles, boxes and growths), their addresses taken once: a
    step's world boxes hand over the pose's and the outputs' alone. Only arrays that are C-contiguous already are kept
    (so that C reads them themselves, as they are at each call, never a copy of them)."""

    __slots__ = ("vehicle", "body_centre", "body_half", "grow", "words", "at")

    def __init__(self, vehicle, body_centre, body_half, grow):
        self.vehicle, self.body_centre, self.body_half, self.grow = vehicle, body_centre, body_half, grow
        # `pvu_shape_boxes_words`' words, the model's last
        self.words = words_type(13)()
        self.words[9:13] = addresses((vehicle, body_centre, body_half)) + [
            0 if grow is None else addresses((grow,))[0]]
        self.at = ctypes.addressof(self.words)


# by whether a growth is given (the world boxes' calls and the shape boxes' alternate in a step): the kept `_Kept` or
# None, and the model arrays last met without one
_KEPT: dict[bool, list] = {True: [None, None], False: [None, None]}


def _kept(vehicle, body_centre, body_half, grow) -> _Kept | None:
    """The kept addresses of these model arrays; made where the last call met the same arrays (a posed model's, made
    anew every step, are never kept) and they are C-contiguous; None: not kept."""
    slot = _KEPT[grow is None]
    kept = slot[0]
    if (kept is not None and kept.vehicle is vehicle and kept.body_centre is body_centre
            and kept.body_half is body_half and kept.grow is grow):
        return kept
    sources = (vehicle, body_centre, body_half, grow)
    seen = slot[1]
    if seen is None or not all(map(operator.is_, seen, sources)):
        slot[1] = sources
        return None
    arrays = (vehicle, body_centre, body_half) + (() if grow is None else (grow,))
    if not (_covers_model(vehicle, body_centre, body_half, grow) and all(a.flags.c_contiguous for a in arrays)):
        return None
    kept = slot[0] = _Kept(vehicle, body_centre, body_half, grow)
    return kept


def _covers_model(vehicle, body_centre, body_half, grow) -> bool:
    """Whether the C code covers these model arrays (their dtypes and shapes)."""
    N = len(vehicle)
    return (vehicle.dtype == np.int64 and body_centre.dtype == np.float64 and body_half.dtype == np.float64
            and body_centre.shape == (3, N) and body_half.shape == (3, N)
            and (grow is None or (grow.dtype == np.float64 and grow.shape == (N,))))


def keep(vehicle: np.ndarray, body_centre: np.ndarray, body_half: np.ndarray, grow: np.ndarray | None) -> None:
    """Keep the words of these model arrays now (as a second call with them would), where the C code covers them and
    the extension is loaded: a model's arrays known to stay (not a posed model's, made anew every step)."""
    if _LIB is not None:
        _kept(vehicle, body_centre, body_half, grow)
        _kept(vehicle, body_centre, body_half, grow)


def kept_words(vehicle: np.ndarray, body_centre: np.ndarray, body_half: np.ndarray, grow: np.ndarray):
    """What `shape_boxes` keeps for these model arrays with a growth: an object holding them and, at its `at`, their
    words (`pvu_shape_boxes_words`' 13, the model's the last four: a caller that writes the step's into a copy of
    them places the shapes as `shape_boxes` does); None where it keeps none for them."""
    kept = _KEPT[False][0]
    if (kept is not None and kept.vehicle is vehicle and kept.body_centre is body_centre
            and kept.body_half is body_half and kept.grow is grow):
        return kept
    return None


def shape_boxes(vehicle: np.ndarray, body_centre: np.ndarray, body_half: np.ndarray, position: np.ndarray,
                orientation: np.ndarray, rows: np.ndarray | None = None, grow: np.ndarray | None = None):
    """(R (3, 3, n), centre (3, n), slack (n,), lo (n, 3), hi (n, 3)) of the shapes `rows` (None: all N) of bodies
    `vehicle` (N,) with boxes body_centre, body_half (3, N) at the poses position (3, V), orientation (4, V): the
    rotation, box centre and slack of placement.py's `shape_boxes` and (where grow (N,) is given, else lo and hi are
    None) the world box grown by grow and the slack of `world_boxes`; None where the C code does not cover the call
    (the caller runs numpy). The model's arrays of the last call are kept with their addresses (`_Kept`)."""
    if _LIB is None:
        return None
    kept = _kept(vehicle, body_centre, body_half, grow)  # (kept: the model's arrays checked when kept)
    V = position.shape[-1] if position.ndim == 2 else -1
    if (position.dtype not in _FLOATS or orientation.dtype not in _FLOATS or position.shape != (3, V)
            or orientation.shape != (4, V) or (rows is not None and (rows.dtype != np.int64 or rows.ndim != 1))
            or (kept is None and not _covers_model(vehicle, body_centre, body_half, grow))):
        return None
    N = len(vehicle)
    n = N if rows is None else len(rows)
    # R (3, 3, n), centre (3, n), slack (n,), lo (n, 3), hi (n, 3): one allocation
    block = np.empty(19 * n if grow is not None else 13 * n)
    position_single, orientation_single = position.dtype == np.float32, orientation.dtype == np.float32
    if kept is not None:  # the model's words kept: the call's written into them
        pose = (np.ascontiguousarray(position), np.ascontiguousarray(orientation), block)
        if rows is not None:
            pose += (np.ascontiguousarray(rows),)
        else:
            kept.words[8] = 0  # (all the shapes)
        kept.words[:5] = (V, N, n, position_single, orientation_single)
        write_addresses(pose, kept.at + 40)
        if n and _LIB.pvu_shape_boxes_words(kept.at) < 0:
            return None
    else:
        model = [np.ascontiguousarray(a) for a in (vehicle, body_centre, body_half)]
        vehicle_at, centre_at, half_at = addresses(model)
        grow_at = 0 if grow is None else addresses((np.ascontiguousarray(grow),))[0]
        pose = (np.ascontiguousarray(position), np.ascontiguousarray(orientation), block)
        if rows is not None:
            pose += (np.ascontiguousarray(rows),)
        at = addresses(pose)
        position_at, orientation_at, out_at = at[:3]
        rows_at = at[3] if rows is not None else 0
        box_at = (0, 0) if grow is None else (out_at + 104 * n, out_at + 128 * n)
        if n and _LIB.pvu_shape_boxes(V, N, n, rows_at or None, vehicle_at, position_at, position_single,
                                      orientation_at, orientation_single, centre_at, half_at, grow_at or None, out_at,
                                      out_at + 72 * n, out_at + 96 * n, *box_at) < 0:
            return None
    lo, hi = (None, None) if grow is None else (block[13 * n:16 * n].reshape(n, 3), block[16 * n:].reshape(n, 3))
    return block[:9 * n].reshape(3, 3, n), block[9 * n:12 * n].reshape(3, n), block[12 * n:13 * n], lo, hi
