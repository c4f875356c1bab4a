"""pipeline.constraint_rows' listed vehicles and their rows from the wheels' arrays in one C call
(`pvu_wheel_rows_block` in sim/_row_solver.c: copies in PhysX's row order, the same bits as numpy's stacking, which
stays the reference: tests/test_sim_contact_rows_compiled.py holds the two to each other)."""
from __future__ import annotations

import ctypes
import operator
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .extension import Kinds, check_struct_size, open_extension, write_kind_addresses
from .memo import LastValue

if TYPE_CHECKING:  # annotations only
    from .state import SimParams

_P, _I64 = ctypes.c_void_p, ctypes.c_int64


class _WheelRows(ctypes.Structure):
    """Mirror of `WheelRows` in _row_solver.c: the wheels' arrays a step's constraint rows are made from, and the rows."""

    _fields_ = ([(name, _I64) for name in "V W".split()]
                + [(name, _P) for name in "lng_dir lat_dir normal arm separation lng_damping lat_damping sticky_lng "
                   "sticky_lat mask also vehicles_out separation_out linear_out arm_out damping_out active_out "
                   "hard_out".split()])


def _load() -> ctypes.CDLL | None:
    # (an extension built before it: numpy stacks the wheels' rows)
    lib = open_extension("pvu_wheel_rows_block")
    if lib is None:
        return None
    check_struct_size(lib, "pvu_wheel_rows_size", _WheelRows, "compiled_wheel_rows.py")
    lib.pvu_wheel_rows_block.argtypes = [_P]  # (a `_WheelRows`' address)
    lib.pvu_wheel_rows_block.restype = ctypes.c_int64
    return lib


_LIB = _load()
# what the call reads, in the struct's order from lng_dir: the wheels' arrays, `also` (a vehicle's flag), then the
# outputs' block (int64 words, written), whose address goes where the struct's first output pointer lies
_KINDS = Kinds((np.float32,) * 7 + (np.bool_,) * 4 + (np.int64,), writable=(11,))
_OUTPUTS = ("vehicles", "separation", "linear", "arm", "damping", "active", "hard")
_outputs = operator.itemgetter(*_OUTPUTS)


class _WheelCall:
    """`wheel_rows`' struct for a batch of V vehicles of W wheels, its sizes in, kept from step to step (a step writes
    its arrays' addresses into its words in one call), and the layout of its outputs' block: each output sized for
    every vehicle (`pvu_wheel_rows_block`'s), as the fields of a structured type per count of listed vehicles."""

    def __init__(self, V: int, W: int):
        self.struct = _WheelRows(V=V, W=W)
        self.V, self.R = V, 3 * W
        # the outputs' block (`_layout`'s) in 64-bit words
        self.words = _layout(V, self.R, V).itemsize // 8
        self.inputs_at = ctypes.addressof(self.struct) + _WheelRows.lng_dir.offset
        self.at = ctypes.addressof(self.struct)
        self.nobody = np.zeros(V, bool)  # (`also` where none is given: no vehicle flagged)

    def layout(self, Vr: int) -> np.dtype:
        """The block's outputs of Vr listed vehicles as the fields of one structured type."""
        return _layout(self.V, self.R, Vr)


@lru_cache(maxsize=256)
def _layout(V: int, R: int, Vr: int) -> np.dtype:
    """`_WheelCall.layout` of V vehicles, R rows each (kept across batches: a type takes some microseconds to make):
    in the struct's order vehicles (int64), separation (float64), linear and arm (float32), damping (float64), active
    and hard, each sized for every vehicle, the first Vr of each its field."""
    sizes = (8 * V, 8 * V * R, 12 * V * R, 12 * V * R, 8 * V * R, V * R, V * R)
    return np.dtype({
        "names": list(_OUTPUTS), "offsets": [sum(sizes[:i]) for i in range(len(sizes))],
        "itemsize": 8 * -(-sum(sizes) // 8),
        "formats": [(np.int64, (Vr,)), (np.float64, (Vr, R)), (np.float32, (3, Vr, R)), (np.float32, (3, Vr, R)),
                    (np.float64, (Vr, R)), (np.bool_, (Vr, R)), (np.bool_, (Vr, R))]})


_WHEEL_CALLS = LastValue("mask")


def wheel_rows(also: np.ndarray | None, lng_dir: np.ndarray, lat_dir: np.ndarray, normal: np.ndarray, arm: np.ndarray,
               separation: np.ndarray, sticky_lng: np.ndarray, sticky_lat: np.ndarray, p: SimParams
               ) -> tuple[np.ndarray, ...] | None:
    """pipeline.constraint_rows' listed vehicles (with an acting row, or in the mask `also` (V,) or None) and their
    rows as solver_rows.ConstraintRows holds them, in its order: linear (3, Vr, 3 W), arm (3, Vr, 3 W), damping (Vr,
    3 W, float64), active (Vr, 3 W), hard (Vr, 3 W) and separation (Vr, 3 W, float64), in one C call
    (`pvu_wheel_rows_block`: copies in PhysX's row order, the same bits as numpy's stacking), from the wheels'
    directions (3, V, W), arms (3, V, W), separations (V, W), sticky flags (V, W), the batch's mask and sticky rows'
    dampings (V, W); None where the extension lacks it or the arrays are not float32 (flags bool), C order (numpy's
    turn)."""
    if _LIB is None:
        return None
    V, W = separation.shape
    mask = p.mask
    lng_damping, lat_damping = p.sticky_lng_damping_w, p.sticky_lat_damping_w
    if not (lng_dir.shape == lat_dir.shape == normal.shape == arm.shape == (3, V, W)
            and sticky_lng.shape == sticky_lat.shape == mask.shape == lng_damping.shape == lat_damping.shape == (V, W)
            and (also is None or also.shape == (V,))):
        return None
    call = _WHEEL_CALLS.get(p, (V, W), lambda: _WheelCall(V, W))
    block = np.empty(call.words, np.int64)
    # the arrays' addresses, each C-contiguous and of its type (float32, the flags bool), in one checked call
    if not write_kind_addresses((lng_dir, lat_dir, normal, arm, separation, lng_damping, lat_damping, sticky_lng,
                                 sticky_lat, mask, call.nobody if also is None else also, block), _KINDS,
                                call.inputs_at):
        return None
    vehicles, separation, linear, arm, damping, active, hard = _outputs(
        np.ndarray((), call.layout(_LIB.pvu_wheel_rows_block(call.at)), block))
    return vehicles, linear, arm, damping, active, hard, separation


# what `KeptWheelRows`' caller writes into its struct each step, in the struct's order (from lng_dir): the wheels'
# arrays and `also`, and their types (float32, the flags bool)
WHEEL_INPUTS = ("lng_dir", "lat_dir", "normal", "arm", "separation", "lng_damping", "lat_damping", "sticky_lng",
                "sticky_lat", "mask", "also")
WHEEL_INPUT_DTYPES = (np.float32,) * 7 + (np.bool_,) * 4
WHEEL_INPUT_WORDS = tuple(getattr(_WheelRows, name).offset // 8 for name in WHEEL_INPUTS)  # (the struct's words)


class KeptWheelRows:
    """`wheel_rows`' call for a caller whose C code makes the rows itself (sim/_contact_rows.c `pvu_kept_tgs_step`,
    which lists every vehicle or refuses the step): its struct (`at`; its inputs' pointers at WHEEL_INPUT_WORDS) and
    the rows of every vehicle listed (`rows`: vehicles, separation, linear, arm, damping, active, hard), kept in one
    block from step to step."""

    def __init__(self, V: int, W: int):
        if _LIB is None:
            raise RuntimeError("the extension's wheel rows are not built")
        call = _WheelCall(V, W)
        self.struct = call.struct
        self.block = np.empty(call.words, np.int64)
        self.struct.vehicles_out = self.block.ctypes.data
        self.at = call.at
        self.rows = _outputs(np.ndarray((), call.layout(V), self.block))
