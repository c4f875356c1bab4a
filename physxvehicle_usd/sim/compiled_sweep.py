"""The broad phases' sort and sweep in strips in the compiled extension (sim/_sweep.c): the pairs of
sim/contact/broad.py's `sweep_overlaps_numpy`, in its order, from one call. None where the extension is not built (or
built before this function), the boxes are not float64 (N, 3) in C order, or a value is not finite: numpy sweeps."""
from __future__ import annotations

import ctypes

import numpy as np

from .extension import open_extension


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_sweep_overlaps")
    if lib is not None:
        P, L = ctypes.c_void_p, ctypes.c_int64
        lib.pvu_sweep_overlaps.argtypes = [L, P, P, L, L, L, P, P, P]
        lib.pvu_sweep_overlaps.restype = L
    return lib


_LIB = _load()


def available() -> bool:
    return _LIB is not None


def sweep_overlaps(lo: np.ndarray, hi: np.ndarray, sweep: int, across: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The box index pairs (a, b) of boxes lo, hi (N, 3) that overlap along axis `sweep` and share a strip across
    axis `across` (broad.sweep_overlaps's, the same arrays in the same order); None: numpy sweeps."""
    if (_LIB is None or lo.dtype != np.float64 or hi.dtype != np.float64 or lo.ndim != 2 or lo.shape[1:] != (3,)
            or hi.shape != lo.shape or not lo.flags.c_contiguous or not hi.flags.c_contiguous or not len(lo)):
        return None
    capacity = 4 * len(lo)
    needed = ctypes.c_int64(0)
    for _ in range(2):  # (a second call where the candidates outnumber the first guess)
        a, b = np.empty(capacity, np.int64), np.empty(capacity, np.int64)
        n = _LIB.pvu_sweep_overlaps(len(lo), lo.ctypes.data, hi.ctypes.data, sweep, across, capacity, a.ctypes.data,
                                    b.ctypes.data, ctypes.byref(needed))
        if n != -3:
            break
        capacity = needed.value
    if n < 0:
        return None
    return a[:n], b[:n]
