"""The compiled row solve's structs (sim/_row_solver.c, sim/_contact_rows.c, in the extension sim/extension.py opens):
their mirrors, the extension with the row functions typed, and the blocks of bytes a solve's arrays lie in, the solve
struct's pointers pointed into them (a block one allocation). compiled_rows (a solve group's rows set up and iterated
in one go) and compiled_kept_solve (a TGS solve with contacts kept from step to step) both call through them.
"""
from __future__ import annotations

import ctypes
import math
import operator
from functools import lru_cache

import numpy as np

from .extension import address, check_struct_size, open_extension

_P = ctypes.c_void_p
_I64, _F64, _F32 = ctypes.c_int64, ctypes.c_double, ctypes.c_float


class RowSolveStruct(ctypes.Structure):
    """Mirror of `RowSolve` in _row_solver.c (the loader compares its size with the extension's)."""

    _fields_ = ([(name, _I64) for name in "V R Pm N M iterations velocity_iterations threads".split()]
                + [(name, _F64) for name in "h dt friction_bias".split()]
                + [(name, _F32) for name in "h_f bias_scale max_bias".split()]
                + [(name, _P) for name in
                   "J WJ recip spring_gain separation hard listed hard_listed impulse "
                   "cJ cWJ c_recip c_target c_error c_bias_coefficient c_max_bias c_active c_listed "
                   "fJ fWJ f_gain f_error anchored a_listed scale static_friction dynamic_friction "
                   "c_impulse friction broken x position angular half".split()]
                + [("friction_iterations", _I64)]
                + [(name, _P) for name in "act impulse_kept limit_bias c_pgs_bias f_pgs_bias motion".split()])


class ContactPatchesStruct(ctypes.Structure):
    """Mirror of `ContactPatches` in _contact_rows.c: a group's patches (PatchRows) and its bodies."""

    _fields_ = ([(name, _I64) for name in "V Pm N M threads pgs batch".split()]
                + [(name, _F64) for name in "h dt p8".split()]
                + [(name, _P) for name in
                   "point_active arm separation normal rest_distance restitution anchor_active anchor_arm "
                   "anchor_error bounce_threshold vehicles mass moi max_depenetration orientation x".split()])


class ConstraintRowsStruct(ctypes.Structure):
    """Mirror of `ConstraintRows` in _row_solver.c: a group's constraint rows and its bodies."""

    _fields_ = ([(name, _I64) for name in "V R batch pgs".split()]
                + [(name, _F64) for name in "spring_time dt".split()]
                + [(name, _P) for name in "vehicles linear arm damping separation active hard mass moi orientation"
                   .split()])


class KeptStepStruct(ctypes.Structure):
    """Mirror of `KeptStep` in _contact_rows.c: compiled_kept_solve's `_KeptTGS.solve_every`'s arguments, kept with its
    structs."""

    _fields_ = ([("spread_count", _I64)]
                + [(name, _P) for name in "spread solve_words velocity_words wheel_words step".split()]
                + [(name, _I64) for name in "begin_position_word begin_orientation_word out_word".split()]
                + [(name, _P) for name in "patches rows solve sine cosine".split()]
                + [(name, _I64) for name in "out_velocity out_position out_orientation out_impulse out_friction "
                   "out_broken".split()])


def _load() -> ctypes.CDLL | None:
    # (an extension built before the contact rows' set-up: numpy solves the rows)
    lib = open_extension("pvu_contact_rows")
    if lib is None:
        return None
    check_struct_size(lib, "pvu_row_solve_size", RowSolveStruct, "compiled_row_structs.py")
    check_struct_size(lib, "pvu_contact_patches_size", ContactPatchesStruct, "compiled_row_structs.py")
    check_struct_size(lib, "pvu_constraint_rows_size", ConstraintRowsStruct, "compiled_row_structs.py")
    lib.pvu_contact_rows.argtypes = [ctypes.POINTER(ContactPatchesStruct), ctypes.POINTER(RowSolveStruct)]
    lib.pvu_constraint_rows.argtypes = [ctypes.POINTER(ConstraintRowsStruct), ctypes.POINTER(RowSolveStruct)]
    lib.pvu_contact_rows.restype = lib.pvu_constraint_rows.restype = ctypes.c_int
    if hasattr(lib, "pvu_rows_tgs_contacts"):  # (an extension built before it: compiled_kept_solve makes three calls)
        lib.pvu_rows_tgs_contacts.argtypes = [ctypes.POINTER(ContactPatchesStruct),
                                              ctypes.POINTER(ConstraintRowsStruct), ctypes.POINTER(RowSolveStruct)]
        lib.pvu_rows_tgs_contacts.restype = ctypes.c_int
    if hasattr(lib, "pvu_kept_tgs_step"):  # (an extension built before it: the velocities and the solve apart)
        check_struct_size(lib, "pvu_kept_step_size", KeptStepStruct, "compiled_row_structs.py")
        for function in (lib.pvu_kept_tgs_step, lib.pvu_kept_tgs_finish):
            function.argtypes = [_P]  # (a `KeptStepStruct`'s address)
            function.restype = ctypes.c_int
    for solve in (lib.pvu_rows_tgs, lib.pvu_rows_pgs):
        solve.argtypes = [ctypes.POINTER(RowSolveStruct)]
        solve.restype = ctypes.c_int
    lib.pvu_rows_orientation.argtypes = [_I64, _I64, _P, _P, _P, _P, _P]
    lib.pvu_rows_orientation.restype = ctypes.c_int
    lib.pvu_rows_soft.argtypes = [_I64, _I64, _I64, _I64, _P, _P, _P, _P, ctypes.c_float, _P, _P, _P, _P]
    lib.pvu_rows_soft.restype = ctypes.c_int
    return lib


LIB = _load()
_is_contiguous = operator.attrgetter("flags.c_contiguous")
# the dtypes the set-ups read the bodies' mass, moi and max_depenetration_velocity in (compiled_rows.covers)
BODY_PARAM_DTYPES = (np.dtype(np.float32),) * 3


class RowSolveCall:
    """The struct and the arrays its pointers point into (`kept`: alive for as long as the struct); `words`: the
    struct's memory as 64-bit words, where `allocate_block` writes a block's pointers in one assignment."""

    def __init__(self):
        self.solve = RowSolveStruct()
        self.words = np.frombuffer(self.solve, np.uint64)
        self.kept: list = []


# a block's arrays start on 64-byte boundaries (whole cache lines and vectors)
_ALIGN = 64


def _layout(shapes: tuple) -> tuple[dict, int, np.ndarray, np.ndarray]:
    """Where each of the arrays `shapes` ((name, dtype, shape), ...) lies in one block of bytes: {name: (offset, dtype,
    shape, bytes)}, the block's length (a call's arrays are one allocation, the struct's pointers its offsets), and
    the struct's words of those pointers with their byte offsets in the block."""
    fields, offset = {}, 0
    for name, dtype, shape in shapes:
        size = np.dtype(dtype).itemsize * math.prod(shape)
        fields[name] = (offset, np.dtype(dtype), shape, size)
        offset += -(-size // _ALIGN) * _ALIGN
    words = np.array([getattr(RowSolveStruct, name).offset // 8 for name in fields], np.intp)
    return fields, offset, words, np.array([at for at, _, _, _ in fields.values()], np.uint64)


def allocate_block(c: RowSolveCall, layout: tuple) -> tuple[np.ndarray, dict]:
    """One block of bytes for the arrays of `layout` (`_layout`'s), the struct's fields of those names pointed into
    it; the block and where each array lies in it."""
    fields, length, words, offsets = layout
    block = np.empty(length + _ALIGN, np.uint8)
    base = address(block)
    start = -base % _ALIGN
    block = block[start:start + length]
    c.words[words] = offsets + np.uint64(base + start)
    c.kept.append(block)
    return block, fields


def block_view(block: np.ndarray, fields: dict, name: str) -> np.ndarray:
    """The array `name` of `block` (`fields`: where each array lies in it, `allocate_block`'s)."""
    offset, dtype, shape, size = fields[name]
    return block[offset:offset + size].view(dtype).reshape(shape)


@lru_cache(maxsize=64)
def constraint_layout(V: int, R: int, n: int, pgs: bool) -> tuple:
    """`_layout` of the fields compiled_rows' `_constraint_rows` sets up (a group of V vehicles, R rows, n position
    iterations)."""
    rows_shape, f32, u8 = (V, R), np.float32, np.uint8
    shapes = (("J", f32, (6, V, R)), ("WJ", f32, (6, V, R)), ("recip", f32, rows_shape),
              ("spring_gain", f32, rows_shape), ("impulse", f32, rows_shape))
    if pgs:
        shapes += (("impulse_kept", f32, rows_shape), ("limit_bias", f32, rows_shape), ("x", f32, (6, V)),
                   ("motion", f32, (6, V)), ("act", u8, rows_shape), ("listed", u8, (R,)))
    else:
        shapes += (("separation", f32, rows_shape), ("x", f32, (6, V)), ("position", f32, (3, V)),
                   ("angular", f32, (n, 3, V)), ("half", f32, (n, V)), ("act", u8, rows_shape), ("listed", u8, (R,)),
                   ("hard_listed", u8, (R,)))
    return _layout(shapes)


@lru_cache(maxsize=64)
def contact_layout(V: int, Pm: int, N: int, M: int, pgs: bool) -> tuple:
    """`_layout` of the contact fields of `RowSolve` the set-up writes: the float64 ones, then the flags."""
    points, anchors, f64, u8 = (V, Pm, N), (2, V, Pm, M), np.float64, np.uint8
    shapes = (("cJ", f64, (6,) + points), ("cWJ", f64, (6,) + points), ("c_recip", f64, points),
              ("c_target", f64, points), ("c_error", f64, points), ("c_bias_coefficient", f64, points),
              ("c_max_bias", f64, (V,)), ("fJ", f64, (2, 6, V, Pm, M)), ("fWJ", f64, (2, 6, V, Pm, M)),
              ("f_gain", f64, anchors), ("f_error", f64, anchors), ("scale", f64, (V, Pm)),
              ("c_impulse", f64, points), ("friction", f64, (V, Pm, M, 2)))
    if pgs:
        shapes += (("c_pgs_bias", f64, points), ("f_pgs_bias", f64, anchors))
    return _layout(shapes + (("broken", u8, (V, Pm)), ("c_listed", u8, (Pm, N)), ("a_listed", u8, (Pm, M))))


def contiguous(*arrays: np.ndarray) -> list[np.ndarray]:
    """Each array where it is C-contiguous (patch_rows' arrays are), else a contiguous copy (a subset's view)."""
    if all(map(_is_contiguous, arrays)):  # (most steps: every one)
        return list(arrays)
    return [array if array.flags.c_contiguous else np.ascontiguousarray(array) for array in arrays]
