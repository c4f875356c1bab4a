"""pipeline.constraint_rows' listed vehicles and their rows from the wheels' arrays in one C call (`pvu_wheel_rows` in
sim/_row_solver.c: copies in PhysX's row order, the same bits as numpy's stacking, which stays the reference:
tests/test_sim_contact_rows_compiled.py holds the two to each other)."""
from __future__ import annotations

import ctypes
import operator
from typing import TYPE_CHECKING

import numpy as np

from .extension import Kinds, address, check_struct_size, open_extension, write_addresses, write_kind_addresses
from .memo import LastValue

if TYPE_CHECKING:  # annotations only
    from .state import SimParams

_P, _I64 = ctypes.c_void_p, ctypes.c_int64


class _WheelRows(ctypes.Structure):
    """Mirror of `WheelRows` in _row_solver.c: the wheels' arrays a step's constraint rows are made from, and the rows."""

    _fields_ = ([(name, _I64) for name in "V W".split()]
                + [(name, _P) for name in "lng_dir lat_dir normal arm separation sticky_lng sticky_lat mask also "
                   "vehicles_out separation_out linear_out arm_out active_out".split()])


def _load() -> ctypes.CDLL | None:
    # (an extension built before it: numpy stacks the wheels' rows)
    lib = open_extension("pvu_wheel_rows")
    if lib is None:
        return None
    check_struct_size(lib, "pvu_wheel_rows_size", _WheelRows, "compiled_wheel_rows.py")
    lib.pvu_wheel_rows.argtypes = [_P]  # (a `_WheelRows`' address)
    lib.pvu_wheel_rows.restype = ctypes.c_int64
    return lib


_LIB = _load()
_contiguous = operator.attrgetter("flags.c_contiguous")
_WHEEL_DTYPES = tuple(map(np.dtype, (np.float32,) * 5 + (np.bool_,) * 4))
_WHEEL_KINDS = Kinds(_WHEEL_DTYPES)
_dtype = operator.attrgetter("dtype")
_shape = operator.attrgetter("shape")


class _WheelCall:
    """`wheel_rows`' struct for a batch of V vehicles of W wheels, its sizes in, kept from step to step (a step writes
    its arrays' addresses into its words in one assignment)."""

    def __init__(self, V: int, W: int):
        self.struct = _WheelRows(V=V, W=W)
        self.words = np.frombuffer(self.struct, np.uint64)
        R = 3 * W
        # the outputs' block, in the struct's order: vehicles (int64), separation (float64), linear and arm
        # (float32), active; where each starts in it
        self.bytes = sizes = (8 * V, 8 * V * R, 12 * V * R, 12 * V * R, V * R)
        self.offsets = [sum(sizes[:i]) for i in range(len(sizes))]
        self.length = sum(sizes)
        self.at = ctypes.addressof(self.struct)
        self.inputs_at = self.at + _WheelRows.lng_dir.offset  # (the wheels' eight pointers, then `also`'s)
        self.also_word = _WheelRows.also.offset // 8
        self.outputs = np.arange(_WheelRows.vehicles_out.offset // 8, ctypes.sizeof(_WheelRows) // 8)
        self.output_offsets = np.array(self.offsets, np.uint64)


_WHEEL_CALLS = LastValue("mask")


def wheel_rows(also: np.ndarray | None, lng_dir: np.ndarray, lat_dir: np.ndarray, normal: np.ndarray, arm: np.ndarray,
               separation: np.ndarray, sticky_lng: np.ndarray, sticky_lat: np.ndarray, p: SimParams
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """pipeline.constraint_rows' listed vehicles (with an acting row, or in the mask `also` (V,) or None) and their
    linear (3, Vr, 3 W), arm (3, Vr, 3 W), active (Vr, 3 W) and separation (Vr, 3 W, float64), in one C call
    (`pvu_wheel_rows`: copies in PhysX's row order, the same bits as numpy's stacking), from the wheels' directions
    (3, V, W), arms (3, V, W), separations (V, W), sticky flags (V, W) and the batch's mask; None where the extension
    lacks it or the arrays are not float32 (flags bool), C order (numpy's turn)."""
    wheels = (lng_dir, lat_dir, normal, arm, separation, sticky_lng, sticky_lat, p.mask)
    if _LIB is None:
        return None
    V, W = separation.shape
    if (tuple(map(_shape, wheels)) != ((3, V, W),) * 4 + ((V, W),) * 4
            or (also is not None and also.shape != (V,))):
        return None
    call = _WHEEL_CALLS.get(p, (V, W), lambda: _WheelCall(V, W))
    # the arrays' addresses, each C-contiguous and of its type (float32, the flags bool), in one checked call where
    # the extension has it (a refused one leaves words the next call writes again)
    read = wheels if also is None else wheels + (also,)
    if not write_kind_addresses(read, _WHEEL_KINDS, call.inputs_at):
        if tuple(map(_dtype, read)) != _WHEEL_DTYPES[:len(read)] or not all(map(_contiguous, read)):
            return None
        write_addresses(read, call.inputs_at)  # (the extension without the check)
    if also is None:
        call.words[call.also_word] = 0  # (C's NULL: no vehicle flagged)
    block = np.empty(call.length, np.uint8)
    call.words[call.outputs] = call.output_offsets + np.uint64(address(block))
    Vr = _LIB.pvu_wheel_rows(call.at)
    R = 3 * W
    _, separation_at, linear_at, arm_at, active_at = call.offsets
    return (block[:8 * Vr].view(np.int64),
            block[linear_at:linear_at + 12 * Vr * R].view(np.float32).reshape(3, Vr, R),
            block[arm_at:arm_at + 12 * Vr * R].view(np.float32).reshape(3, Vr, R),
            block[active_at:active_at + Vr * R].view(np.bool_).reshape(Vr, R),
            block[separation_at:separation_at + 8 * Vr * R].view(np.float64).reshape(Vr, R))
