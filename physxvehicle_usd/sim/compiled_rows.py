"""The compiled row solve (sim/_row_solver.c, sim/_contact_rows.c, in the extension sim/extension.py opens): what it
covers, and the calls that run it.

row_solver's `_solve_rows_tgs` and `_solve_rows_pgs` hand a solve group here when the caller asks for the compiled
solver (StepOptions.compiled and StepOptions.compiled_rows), the state is float32 and the group has no contacts
between vehicles. Its rows are set up in C straight into the solve's buffers, each block of the group's arrays one
allocation: the static contact rows from the patches (`CompiledContactRows`, `pvu_contact_rows`:
`StaticContactRows.__init__`'s arithmetic), the constraint rows from pipeline.constraint_rows' (`pvu_constraint_rows`:
row_solver's Jacobians, responses and gains); one more call runs every position and velocity iteration of every
vehicle. TGS's pose rotation takes numpy's sin and cos of each iteration's half angle and one more call; PGS's pose
moves once, in numpy. A TGS group with contacts (`solve_tgs_contacts`) keeps its structs and working buffers from
step to step (`_KeptTGS`: a step hands over its arrays' addresses in one call, and one C call sets up both kinds of
row and iterates them); where the group is every vehicle, compiled_end_step's velocities are formed into its buffer
first, in the same C call (`pvu_kept_tgs_step`, sim/_contact_rows.c), and a second (`pvu_kept_tgs_finish`) rotates
the pose and copies the outputs into one new block; where every vehicle touches the static world
(`solve_every_touching`), the first call also makes the constraint rows from the wheels' outputs (compiled_wheel_rows'
`pvu_wheel_rows_block`). The numpy path stays the reference (tests/test_sim_row_solver.py and
tests/test_sim_contact_rows_compiled.py hold the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import math
import operator
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from . import compiled_end_step
from .compiled_wheel_rows import WHEEL_INPUT_DTYPES, WHEEL_INPUT_WORDS, KeptWheelRows
from .contact_rows import FRICTION_BIAS_PER_SUBSTEP, MAX_CONTACT_BIAS_FACTOR
from .extension import (
    Kinds,
    address,
    addresses,
    check_struct_size,
    open_extension,
    write_addresses,
    write_kind_addresses,
)
from .memo import LastValue

if TYPE_CHECKING:  # annotations only
    from .solver_rows import ConstraintRows, PatchRows
    from .state import SimParams

_P = ctypes.c_void_p
_I64, _F64, _F32 = ctypes.c_int64, ctypes.c_double, ctypes.c_float


class _RowSolve(ctypes.Structure):
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


class _ContactPatches(ctypes.Structure):
    """Mirror of `ContactPatches` in _contact_rows.c: a group's patches (PatchRows) and its bodies."""

    _fields_ = ([(name, _I64) for name in "V Pm N M threads pgs batch".split()]
                + [(name, _F64) for name in "h dt p8".split()]
                + [(name, _P) for name in
                   "point_active arm separation normal rest_distance restitution anchor_active anchor_arm "
                   "anchor_error bounce_threshold vehicles mass moi max_depenetration orientation x".split()])


class _ConstraintRows(ctypes.Structure):
    """Mirror of `ConstraintRows` in _row_solver.c: a group's constraint rows and its bodies."""

    _fields_ = ([(name, _I64) for name in "V R batch pgs".split()]
                + [(name, _F64) for name in "spring_time dt".split()]
                + [(name, _P) for name in "vehicles linear arm damping separation active hard mass moi orientation"
                   .split()])


class _KeptStep(ctypes.Structure):
    """Mirror of `KeptStep` in _contact_rows.c: `_KeptTGS.solve_every`'s arguments, kept with its structs."""

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
    check_struct_size(lib, "pvu_row_solve_size", _RowSolve, "compiled_rows.py")
    check_struct_size(lib, "pvu_contact_patches_size", _ContactPatches, "compiled_rows.py")
    check_struct_size(lib, "pvu_constraint_rows_size", _ConstraintRows, "compiled_rows.py")
    lib.pvu_contact_rows.argtypes = [ctypes.POINTER(_ContactPatches), ctypes.POINTER(_RowSolve)]
    lib.pvu_constraint_rows.argtypes = [ctypes.POINTER(_ConstraintRows), ctypes.POINTER(_RowSolve)]
    lib.pvu_contact_rows.restype = lib.pvu_constraint_rows.restype = ctypes.c_int
    if hasattr(lib, "pvu_rows_tgs_contacts"):  # (an extension built before it: `_KeptTGS` makes three calls)
        lib.pvu_rows_tgs_contacts.argtypes = [ctypes.POINTER(_ContactPatches), ctypes.POINTER(_ConstraintRows),
                                              ctypes.POINTER(_RowSolve)]
        lib.pvu_rows_tgs_contacts.restype = ctypes.c_int
    if hasattr(lib, "pvu_kept_tgs_step"):  # (an extension built before it: the velocities and the solve apart)
        check_struct_size(lib, "pvu_kept_step_size", _KeptStep, "compiled_rows.py")
        for function in (lib.pvu_kept_tgs_step, lib.pvu_kept_tgs_finish):
            function.argtypes = [_P]  # (a `_KeptStep`'s address)
            function.restype = ctypes.c_int
    for solve in (lib.pvu_rows_tgs, lib.pvu_rows_pgs):
        solve.argtypes = [ctypes.POINTER(_RowSolve)]
        solve.restype = ctypes.c_int
    lib.pvu_rows_orientation.argtypes = [_I64, _I64, _P, _P, _P, _P, _P]
    lib.pvu_rows_orientation.restype = ctypes.c_int
    lib.pvu_rows_soft.argtypes = [_I64, _I64, _I64, _I64, _P, _P, _P, _P, ctypes.c_float, _P, _P, _P, _P]
    lib.pvu_rows_soft.restype = ctypes.c_int
    return lib


_LIB = _load()
_contiguous = operator.attrgetter("flags.c_contiguous")
_ONE_CALL = _LIB is not None and hasattr(_LIB, "pvu_rows_tgs_contacts")  # (else three calls: an older extension)
# (else the solves of every vehicle with their velocities refused: the velocities and the solve apart)
_EVERY = _LIB is not None and hasattr(_LIB, "pvu_kept_tgs_step")


def available() -> bool:
    """Whether the extension with the compiled row solver is built and loaded."""
    return _LIB is not None


def covers(dtype, pairs, p: SimParams | None = None, rows: ConstraintRows | None = None,
           patches: PatchRows | None = None) -> bool:
    """Whether the compiled solver implements a solve group (TGS or PGS): float32 state, no contacts between
    vehicles; with the parameters `p`, its constraint rows `rows` and its contacts with the static world `patches`:
    in the precisions pipeline.constraint_rows and patch_rows make them (numpy's arithmetic on others would take
    other precisions), the bodies' mass and inertia float32."""
    if _LIB is None or pairs is not None or dtype != np.float32:
        return False
    if p is not None and (p.mass.dtype, p.moi.dtype, p.max_depenetration_velocity.dtype) != _THREE_FLOAT32:
        return False
    if rows is not None and not (rows.linear.dtype == rows.arm.dtype == np.float32
                                 and rows.damping.dtype == rows.separation.dtype == np.float64):
        return False
    return patches is None or _patch_dtypes(patches) == _PATCH_DTYPES


_THREE_FLOAT32 = (np.dtype(np.float32),) * 3

# the patches' float fields the C set-up reads (float64: patch_rows makes them so)
_PATCH_FLOATS = ("arm", "separation", "normal", "rest_distance", "static_friction", "dynamic_friction", "restitution",
                 "anchor_arm", "anchor_error", "bounce_threshold")
_patch_dtypes = operator.attrgetter(*(f"{name}.dtype" for name in _PATCH_FLOATS))
_PATCH_DTYPES = (np.dtype(np.float64),) * len(_PATCH_FLOATS)


class _Call:
    """The struct and the arrays its pointers point into (`kept`: alive for as long as the struct); `words`: the
    struct's memory as 64-bit words, where `_block` writes a block's pointers in one assignment."""

    def __init__(self):
        self.solve = _RowSolve()
        self.words = np.frombuffer(self.solve, np.uint64)
        self.kept: list = []


def _flags(mask: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(mask, dtype=bool).view(np.uint8)


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
    words = np.array([getattr(_RowSolve, name).offset // 8 for name in fields], np.intp)
    return fields, offset, words, np.array([at for at, _, _, _ in fields.values()], np.uint64)


def _block(c: _Call, layout: tuple) -> tuple[np.ndarray, dict]:
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


def _view(block: np.ndarray, fields: dict, name: str) -> np.ndarray:
    offset, dtype, shape, size = fields[name]
    return block[offset:offset + size].view(dtype).reshape(shape)


@lru_cache(maxsize=64)
def _constraint_layout(V: int, R: int, n: int, pgs: bool) -> tuple:
    """`_layout` of the fields `_constraint_rows` sets up (a group of V vehicles, R rows, n position iterations)."""
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


def _constraint_rows(c: _Call, p: SimParams, rows: ConstraintRows, x: np.ndarray, begin_orientation: np.ndarray,
                     spring_time: float, dt: float, iterations: int, velocity_iterations: int, pgs: bool,
                     threads: int) -> tuple[np.ndarray, dict]:
    """The struct's fields that TGS and PGS share: the group's constraint rows, set up in C (`pvu_constraint_rows`:
    row_solver's `_row_jacobians`, reciprocal responses, `_spring_gains` over spring_time and, for TGS, the limit
    rows' separations; for PGS impulse_kept and limit_bias), the velocity x (6, V) at the start (copied: written in
    place), the outputs. Returns the block (bytes) and where each array lies in it."""
    V, R = rows.active.shape
    b = c.solve
    b.V, b.R, b.iterations, b.velocity_iterations = V, R, iterations, velocity_iterations
    b.threads = max(1, int(threads))
    block, fields = _block(c, _constraint_layout(V, R, iterations, bool(pgs)))
    _view(block, fields, "x")[...] = x
    read = _whole(rows.vehicles.astype(np.int64, copy=False), rows.linear, rows.arm, rows.damping, rows.separation,
                  _flags(rows.active), _flags(rows.hard), p.mass, p.moi, begin_orientation)
    d = _ConstraintRows(V=V, R=R, batch=p.mass.shape[0], pgs=int(pgs), spring_time=spring_time, dt=dt)
    (d.vehicles, d.linear, d.arm, d.damping, d.separation, d.active, d.hard, d.mass, d.moi,
     d.orientation) = addresses(read)
    b.hard = d.hard
    c.kept.append(read)  # alive while the solve reads them
    status = _LIB.pvu_constraint_rows(ctypes.byref(d), ctypes.byref(b))
    if status != 0:
        raise RuntimeError(f"compiled constraint rows failed with status {status}")
    return block, fields


def solve_tgs(contacts: CompiledContactRows | None, p: SimParams, rows: ConstraintRows, x: np.ndarray,
              begin_position: np.ndarray, begin_orientation: np.ndarray, bias_scale, max_bias, dt: float,
              iterations: int, velocity_iterations: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_solve_rows_tgs` for the vehicles of one group (`rows.vehicles`), its rows set up and iterated in C:
    contacts the group's `CompiledContactRows` (its impulse, friction and broken written in place) or None, x (6, V)
    float32 the velocity at the start, begin_position (3, batch) and begin_orientation (4, batch) float32 the pose
    the step began with, bias_scale and max_bias the limit rows' (float32). Returns (x, position, orientation) after
    the solve."""
    n = iterations
    h = dt / n
    c = _Call() if contacts is None else contacts.call  # (the contact rows' fields set already)
    block, fields = _constraint_rows(c, p, rows, x, begin_orientation, h, dt, n, velocity_iterations, False, threads)
    b = c.solve
    b.h, b.dt, b.h_f, b.bias_scale, b.max_bias = h, dt, np.float32(h), bias_scale, max_bias
    at = slice(None) if len(rows.vehicles) == begin_position.shape[1] else rows.vehicles  # (every vehicle: a slice)
    position = _view(block, fields, "position")
    position[...] = begin_position[:, at]
    status = _LIB.pvu_rows_tgs(ctypes.byref(b))
    if status != 0:
        raise RuntimeError(f"compiled row solve failed with status {status}")
    orientation = begin_orientation[:, at]
    return (_view(block, fields, "x"), position,
            _rotated(orientation, _view(block, fields, "angular"), _view(block, fields, "half")))


def solve_pgs(contacts: CompiledContactRows | None, p: SimParams, rows: ConstraintRows, x: np.ndarray,
              begin_orientation: np.ndarray, dt: float, iterations: int, friction_iterations: int,
              velocity_iterations: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """`_solve_rows_pgs`'s sweeps for the vehicles of one group (`rows.vehicles`), its rows set up over the whole step
    and swept in C: contacts the group's `CompiledContactRows` made with `pgs`, or None, x as `solve_tgs` takes it,
    begin_orientation (4, batch) the pose the rows are made at. Returns (x after the velocity iterations, x after the
    position iterations: the motion the pose moves by)."""
    c = _Call() if contacts is None else contacts.call
    block, fields = _constraint_rows(c, p, rows, x, begin_orientation, dt, dt, iterations, velocity_iterations, True,
                                     threads)
    c.solve.friction_iterations = friction_iterations
    status = _LIB.pvu_rows_pgs(ctypes.byref(c.solve))
    if status != 0:
        raise RuntimeError(f"compiled row solve failed with status {status}")
    return _view(block, fields, "x"), _view(block, fields, "motion")


def covers_soft(*arrays: np.ndarray) -> bool:
    """Whether the compiled solver implements a group of sticky rows: the library loaded and every array float32
    (numpy's products would otherwise widen)."""
    return _LIB is not None and all(a.dtype == np.float32 for a in arrays)


def solve_soft(J, WJ, gain, x, position, orientation, h: float, iterations: int,
               threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_solve_soft_rows`'s iterations for the vehicles of one group of sticky rows: J, WJ (6, V, R), gain (V, R),
    x (6, V), position (3, V), orientation (4, V), all float32. Returns (x, position, orientation) after the
    iterations, the same bits as numpy's."""
    V, R = gain.shape
    J, WJ = (np.ascontiguousarray(a, dtype=np.float32) for a in (J, WJ))
    gain = np.ascontiguousarray(gain, dtype=np.float32)
    listed = _flags((gain != 0.0).any(axis=0))
    x, position = (np.array(a, np.float32, order="C") for a in (x, position))  # copies: written in place
    angular, half = np.empty((iterations, 3, V), np.float32), np.empty((iterations, V), np.float32)
    _LIB.pvu_rows_soft(V, R, iterations, max(1, int(threads)), J.ctypes.data, WJ.ctypes.data, gain.ctypes.data,
                       listed.ctypes.data, np.float32(h), x.ctypes.data, position.ctypes.data, angular.ctypes.data,
                       half.ctypes.data)
    return x, position, _rotated(orientation, angular, half)


def _rotated(orientation: np.ndarray, angular: np.ndarray, half: np.ndarray) -> np.ndarray:
    """orientation rotated by each iteration's angular velocity over its half angle, in turn (a new array)."""
    orientation = np.array(orientation, np.float32, order="C")
    sine, cosine = np.sin(half), np.cos(half)  # numpy's, as vecmath.quat_integrate_exact takes them
    _LIB.pvu_rows_orientation(half.shape[0], half.shape[1], *addresses((orientation, angular, sine, cosine)), None)
    return orientation


@lru_cache(maxsize=64)
def _contact_layout(V: int, Pm: int, N: int, M: int, pgs: bool) -> tuple:
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


class CompiledContactRows:
    """A solve group's static contact rows as `StaticContactRows` makes them (its Jacobians, responses, targets, biases'
    constants, friction axes and gains; with `pgs`, prepare_pgs_constants' biases), made in C (`pvu_contact_rows`,
    sim/_contact_rows.c) into the buffers of the group's compiled solve (`call`), the same bits. After the solve:
    `impulse` (Vr, Pm, N), `friction` (Vr, Pm, M, 2) and `broken` (Vr, Pm), and the patches' `active`, `arm` and
    `normal`: what the step's telemetry and friction bookkeeping read of `StaticContactRows`."""

    def __init__(self, p: SimParams, patches: PatchRows, vehicles: np.ndarray, begin_orientation: np.ndarray,
                 x: np.ndarray, dt: float, iterations: int, pgs: bool = False, threads: int = 1) -> None:
        """vehicles (Vr,) the group's, begin_orientation (4, batch) float32 the pose the rows are made at, x (6, Vr)
        float32 the velocity the solve starts from; iterations: the position iterations (PGS: 1, its rows made over
        the whole step)."""
        self.active, self.arm, self.normal = patches.point_active, patches.arm, patches.normal
        V, Pm, N = self.active.shape
        M = patches.anchor_active.shape[2]
        h = dt / iterations
        self.call = c = _Call()
        b = c.solve
        b.Pm, b.N, b.M = Pm, N, M
        b.friction_bias = FRICTION_BIAS_PER_SUBSTEP / h
        self._block, self._fields = block, fields = _block(c, _contact_layout(V, Pm, N, M, bool(pgs)))
        self.impulse, self.friction = _view(block, fields, "c_impulse"), _view(block, fields, "friction")
        self.broken = _view(block, fields, "broken").view(bool)
        if Pm == 0:
            return
        read = _whole(patches.point_active, patches.anchor_active, patches.static_friction, patches.dynamic_friction,
                      patches.arm, patches.separation, patches.normal, patches.rest_distance, patches.restitution,
                      patches.anchor_arm, patches.anchor_error, patches.bounce_threshold,
                      vehicles.astype(np.int64, copy=False), p.mass, p.moi, p.max_depenetration_velocity,
                      begin_orientation, x)
        d = _ContactPatches(V=V, Pm=Pm, N=N, M=M, threads=max(1, int(threads)), pgs=int(pgs), batch=p.mass.shape[0],
                            h=h, dt=dt, p8=min(MAX_CONTACT_BIAS_FACTOR, 2.0 * np.sqrt(1.0 / iterations)))
        (d.point_active, d.anchor_active, static_friction, dynamic_friction, d.arm, d.separation, d.normal,
         d.rest_distance, d.restitution, d.anchor_arm, d.anchor_error, d.bounce_threshold, d.vehicles, d.mass, d.moi,
         d.max_depenetration, d.orientation, d.x) = addresses(read)
        # the solve reads the patches' own flags and frictions
        b.c_active, b.anchored, b.static_friction, b.dynamic_friction = (d.point_active, d.anchor_active,
                                                                         static_friction, dynamic_friction)
        c.kept.append(read)  # alive while the solve reads them
        status = _LIB.pvu_contact_rows(ctypes.byref(d), ctypes.byref(b))
        if status != 0:
            raise RuntimeError(f"compiled contact rows failed with status {status}")

    def arrays(self) -> dict[str, np.ndarray]:
        """Every field the set-up wrote, by its name in `RowSolve`, as `StaticContactRows` would hold it, and the
        flags of the normal rows (c_listed (Pm, N)) and anchors (a_listed (Pm, M)) active in some vehicle."""
        out = {name: _view(self._block, self._fields, name) for name in self._fields if name != "broken"}
        out.update({name: out[name].view(bool) for name in ("c_listed", "a_listed")})
        return out


def _whole(*arrays: np.ndarray) -> list[np.ndarray]:
    """Each array where it is C-contiguous (patch_rows' arrays are), else a contiguous copy (a subset's view)."""
    if all(map(_contiguous, arrays)):  # (most steps: every one)
        return list(arrays)
    return [array if array.flags.c_contiguous else np.ascontiguousarray(array) for array in arrays]


class _KeptStructs(ctypes.Structure):
    """The three structs of a TGS solve with contacts side by side: their pointers one array of words (`_KeptTGS`)."""

    _fields_ = [("solve", _RowSolve), ("patches", _ContactPatches), ("rows", _ConstraintRows)]


def _slots(*fields: tuple[str, str]) -> np.ndarray:
    """The words of `_KeptStructs` that hold these (struct, field) pointers."""
    return np.array([(getattr(_KeptStructs, struct).offset + getattr(type(getattr(_KeptStructs(), struct)), name).offset)
                     // 8 for struct, name in fields], np.intp)


# the pointers a step hands over (`solve_tgs_contacts`), in the order of its `addresses` call: the patches' arrays
# (the solve reads their flags and frictions too), the group's vehicles and begin orientation, the constraint rows
_STEP_SLOTS = _slots(
    *(("patches", name) for name in "point_active anchor_active arm separation normal rest_distance restitution "
      "anchor_arm anchor_error bounce_threshold".split()),
    ("solve", "c_active"), ("solve", "anchored"), ("solve", "static_friction"), ("solve", "dynamic_friction"),
    ("patches", "vehicles"), ("rows", "vehicles"), ("patches", "orientation"), ("rows", "orientation"),
    *(("rows", name) for name in "linear arm damping separation active hard".split()), ("solve", "hard"))
# which of the step's addresses (`_KeptTGS.solve`'s `read`, in its order) goes into each of those words
_STEP_WORDS = np.array([*range(10), 0, 1, 10, 11, 12, 12, 13, 13, *range(14, 20), 19], np.intp)
# their types, as covers() and the set-ups take them
_STEP_DTYPES = ((np.bool_, np.bool_) + (np.float64,) * 10 + (np.int64, np.float32, np.float32, np.float32, np.float64,
                                                             np.float64, np.bool_, np.bool_))
_STEP_KINDS = Kinds(_STEP_DTYPES)
# `solve_every`'s step: those arrays, the velocities and orientation before the end of the step's damping, limits and
# gyroscopic term, the begin position (float32 each) and the step's output block (int64 words); then two words kept,
# where the velocities are formed (the solve's x: linear, angular)
_EVERY_KINDS = Kinds(_STEP_DTYPES + (np.float32,) * 4 + (np.int64,), writable=(24,))
_EVERY_WORDS = 27
_BEGIN_POSITION_WORD, _BEGIN_ORIENTATION_WORD, _OUT_WORD, _X_WORD = 23, 13, 24, 25


def _every_spread() -> np.ndarray:
    """`KeptStep`'s spread: (target, word, step word) per row, the structs' words first (target 0), then the
    velocities' struct's (1: compiled_end_step.velocity_words' inputs from step words 20 to 22, outputs from the two
    kept ones)."""
    rows = [(0, slot, word) for slot, word in zip(_STEP_SLOTS.tolist(), _STEP_WORDS.tolist())]
    inputs = (20, 21, 22, _X_WORD, _X_WORD + 1)
    rows += [(1, slot, word) for slot, word in zip(compiled_end_step.velocity_words(), inputs)]
    return np.array(rows, np.int64)


_EVERY_SPREAD = _every_spread()


@lru_cache(maxsize=64)
def _every_layout(V: int, Pm: int, N: int, M: int) -> np.dtype:
    """`_KeptTGS.solve_every`'s outputs' block as the fields of one structured type (kept across batches)."""
    return np.dtype([("velocity", np.float32, (6, V)), ("position", np.float32, (3, V)),
                     ("orientation", np.float32, (4, V)), ("impulse", np.float64, (V, Pm, N)),
                     ("friction", np.float64, (V, Pm, M, 2)), ("broken", np.bool_, (V, Pm))], align=True)
# `solve_touching`'s step: the patches' twelve arrays, the begin orientation, the velocities and orientation, the begin
# position, the output block (as `solve_every`'s), then the wheels' arrays (compiled_wheel_rows.WHEEL_INPUTS); then the
# two kept words of the velocities' outputs
_TOUCHING_KINDS = Kinds(_STEP_DTYPES[:12] + (np.float32,) * 5 + (np.int64,) + WHEEL_INPUT_DTYPES, writable=(17,))
_TOUCHING_WORDS, _TOUCHING_X_WORD, _TOUCHING_WHEEL_WORD = 31, 29, 18


def _touching_spread() -> np.ndarray:
    """`solve_touching`'s spread (`_every_spread`'s rows for its step's words; the wheel rows' struct target 2)."""
    slots = _slots(*(("patches", name) for name in "point_active anchor_active arm separation normal rest_distance "
                     "restitution anchor_arm anchor_error bounce_threshold".split()),
                   ("solve", "c_active"), ("solve", "anchored"), ("solve", "static_friction"),
                   ("solve", "dynamic_friction"), ("patches", "orientation"), ("rows", "orientation"))
    rows = [(0, slot, word) for slot, word in zip(slots.tolist(), [*range(10), 0, 1, 10, 11, 12, 12])]
    inputs = (13, 14, 15, _TOUCHING_X_WORD, _TOUCHING_X_WORD + 1)
    rows += [(1, slot, word) for slot, word in zip(compiled_end_step.velocity_words(), inputs)]
    rows += [(2, slot, _TOUCHING_WHEEL_WORD + k) for k, slot in enumerate(WHEEL_INPUT_WORDS)]
    return np.array(rows, np.int64)


_TOUCHING_SPREAD = _touching_spread()

# `solve_every`'s outputs, the step's block's fields
_every_fields = operator.itemgetter("velocity", "position", "orientation", "impulse", "friction", "broken")


class _KeptTGS:
    """A TGS solve with contacts of one shape (vehicles, rows, patches, iterations, threads, step) kept from step to
    step: its structs with the sizes, constants and the parameters' addresses in, and its working arrays (the rows'
    buffers, the velocity, pose and rotations) allocated once, so that a step hands over its own arrays' addresses in
    one call. What leaves a solve (the contacts' impulses, friction and which slid) is copied out of it."""

    def __init__(self, p: SimParams, V: int, R: int, Pm: int, N: int, M: int, n: int, velocity_iterations: int,
                 threads: int, dt: float, wheels: KeptWheelRows | None = None):
        """wheels: the constraint rows made by the solve's own C call from the wheels' outputs into this kept call's
        block (`solve_touching`), else handed over each step (`solve`, `solve_every`)."""
        self.structs = structs = _KeptStructs()
        self.words = np.frombuffer(structs, np.uint64)
        call, b, d, c = _Call.__new__(_Call), structs.solve, structs.patches, structs.rows
        # (`_block` points the solve's fields: the solve struct first in the words)
        call.solve, call.words, call.kept = b, self.words, []
        self.kept = call.kept
        h = dt / n
        threads = max(1, int(threads))
        b.V, b.R, b.Pm, b.N, b.M, b.iterations, b.velocity_iterations, b.threads = V, R, Pm, N, M, n, \
            velocity_iterations, threads
        b.h, b.dt, b.friction_bias, b.h_f = h, dt, FRICTION_BIAS_PER_SUBSTEP / h, np.float32(h)
        # (row_solver._solve_rows_tgs's float32 constants, formed as it forms them)
        b.bias_scale, b.max_bias = np.float32(np.sqrt(n) / dt), np.float32(0.75 / dt)
        d.V, d.Pm, d.N, d.M, d.threads, d.pgs, d.batch = V, Pm, N, M, threads, 0, p.mass.shape[0]
        d.h, d.dt, d.p8 = h, dt, min(MAX_CONTACT_BIAS_FACTOR, 2.0 * np.sqrt(1.0 / n))
        c.V, c.R, c.batch, c.pgs, c.spring_time, c.dt = V, R, p.mass.shape[0], 0, h, dt
        params = _whole(p.mass, p.moi, p.max_depenetration_velocity)
        self.kept.append(params)
        d.mass, d.moi, d.max_depenetration = c.mass, c.moi, _ = addresses(params)
        contact_block, contact_fields = _block(call, _contact_layout(V, Pm, N, M, False))
        block, fields = _block(call, _constraint_layout(V, R, n, False))
        self.impulse, self.friction, self.broken = (_view(contact_block, contact_fields, name)
                                                    for name in ("c_impulse", "friction", "broken"))
        self.x, self.position, angular, half = (_view(block, fields, name)
                                                for name in ("x", "position", "angular", "half"))
        d.x = self.x.ctypes.data
        # the pose's rotations: numpy's sines and cosines of the half angles into kept arrays, one more call
        self.half, self.sine, self.cosine = half, np.empty_like(half), np.empty_like(half)
        self.orientation = np.empty((4, V), np.float32)
        self.kept.extend((self.sine, self.cosine, self.orientation))
        self.rotation = (n, V, *addresses((self.orientation, angular, self.sine, self.cosine)), None)
        self.structs_at = (ctypes.byref(structs.patches), ctypes.byref(structs.rows), ctypes.byref(structs.solve))
        self.x_at = (d.x, d.x + 4 * 3 * V)  # (the end velocities' outputs: linear, angular)
        # a step's addresses, written by one call (extension.write_addresses) and spread into the structs from here
        self.step_words = np.zeros(max(_EVERY_WORDS, _TOUCHING_WORDS), np.uint64)
        self.step_at = self.step_words.ctypes.data
        x_word, spread = (_X_WORD, _EVERY_SPREAD) if wheels is None else (_TOUCHING_X_WORD, _TOUCHING_SPREAD)
        self.step_words[x_word:x_word + 2] = self.x_at
        # `solve_every`'s arguments and its outputs' block: the velocity (linear, angular), pose and the contacts'
        # impulse, friction and which slid
        self.out = _every_layout(V, Pm, N, M)
        self.out_words = -(-self.out.itemsize // 8)
        self.kept.extend((spread, wheels))
        begin_words = (_BEGIN_POSITION_WORD, _BEGIN_ORIENTATION_WORD, _OUT_WORD) if wheels is None else (16, 12, 17)
        self.every = k = _KeptStep(
            spread_count=len(spread), spread=spread.ctypes.data, solve_words=self.words.ctypes.data,
            wheel_words=None if wheels is None else wheels.at, step=self.step_at, begin_position_word=begin_words[0],
            begin_orientation_word=begin_words[1], out_word=begin_words[2],
            patches=ctypes.addressof(d), rows=ctypes.addressof(c), solve=ctypes.addressof(b),
            sine=self.sine.ctypes.data, cosine=self.cosine.ctypes.data,
            **{f"out_{name}": self.out.fields[name][1] for name in self.out.names})
        self.every_at = ctypes.addressof(k)
        self.velocity_struct = None  # (the velocities' struct the arguments point at)
        # (the structs' parameters float32: as `covers` asks of a solve)
        self.covered = (p.mass.dtype, p.moi.dtype, p.max_depenetration_velocity.dtype) == _THREE_FLOAT32
        if wheels is not None:  # (the constraint rows where the wheel rows' call keeps them: every vehicle listed)
            vehicles, separation, linear, arm, damping, active, hard = wheels.rows
            d.vehicles = c.vehicles = vehicles.ctypes.data
            (c.linear, c.arm, c.damping, c.separation, c.active, c.hard) = addresses(
                (linear, arm, damping, separation, active, hard))
            b.hard = c.hard

    def solve(self, patches: PatchRows, rows: ConstraintRows, vehicles: np.ndarray, linear_velocity: np.ndarray,
              angular_velocity: np.ndarray, begin_position: np.ndarray, begin_orientation: np.ndarray
              ) -> tuple[SolvedContacts, np.ndarray, np.ndarray, np.ndarray]:
        """The group's solve from the velocities linear_velocity, angular_velocity (3, batch)."""
        at = slice(None) if len(vehicles) == begin_position.shape[1] else vehicles  # (every vehicle: a slice)
        x = self.x
        x[:3], x[3:] = linear_velocity[:, at], angular_velocity[:, at]
        self.position[...] = begin_position[:, at]
        vehicles = vehicles.astype(np.int64, copy=False)
        read = (patches.point_active, patches.anchor_active, patches.arm, patches.separation, patches.normal,
                patches.rest_distance, patches.restitution, patches.anchor_arm, patches.anchor_error,
                patches.bounce_threshold, patches.static_friction, patches.dynamic_friction, vehicles,
                begin_orientation, rows.linear, rows.arm, rows.damping, rows.separation, rows.active, rows.hard)
        # (the patches' flags and frictions read by the solve too, the vehicles and orientation by both set-ups): in
        # one checked call where each is C-contiguous of the type the set-ups read (most steps: patch_rows and
        # constraint_rows make them so), else each where it is C-contiguous, a contiguous copy where not
        if not write_kind_addresses(read, _STEP_KINDS, self.step_at):
            read = _whole(*read)
            write_addresses(read, self.step_at)
        self.words[_STEP_SLOTS] = self.step_words[_STEP_WORDS]
        patches_at, rows_at, solve_at = self.structs_at
        if _ONE_CALL:
            status = _LIB.pvu_rows_tgs_contacts(patches_at, rows_at, solve_at)
        else:
            status = _LIB.pvu_contact_rows(patches_at, solve_at)
            status = status or _LIB.pvu_constraint_rows(rows_at, solve_at)
            status = status or _LIB.pvu_rows_tgs(solve_at)
        if status != 0:
            raise RuntimeError(f"compiled row solve with contacts failed with status {status}")
        np.sin(self.half, out=self.sine)  # numpy's, as vecmath.quat_integrate_exact takes them
        np.cos(self.half, out=self.cosine)
        self.orientation[...] = begin_orientation[:, at]
        _LIB.pvu_rows_orientation(*self.rotation)
        contacts = SolvedContacts(patches, self.impulse.copy(), self.friction.copy(), self.broken.copy().view(bool))
        return contacts, x, self.position, self.orientation

    def solve_every(self, patches: PatchRows, rows: ConstraintRows, linear_velocity: np.ndarray,
                    angular_velocity: np.ndarray, begin_position: np.ndarray, begin_orientation: np.ndarray,
                    velocity: ctypes.Structure, orientation: np.ndarray, dt: float
                    ) -> tuple[SolvedContacts, np.ndarray, np.ndarray, np.ndarray] | None:
        """`solve` of a group of every vehicle of the batch whose velocities (linear_velocity, angular_velocity) are
        the ones before the end of the step's damping, limits and gyroscopic term (at the state's `orientation`),
        formed first by `velocity` (compiled_end_step.velocity_struct's) straight into the solve's x: two C calls
        (`pvu_kept_tgs_step`, `pvu_kept_tgs_finish`) around numpy's sines and cosines, the outputs new arrays of one
        block. None (nothing done) where an array is not C-contiguous of the type the set-ups read, or a vehicle has
        neither a contact point nor an active limit row."""
        raw = np.empty(self.out_words, np.int64)
        read = (patches.point_active, patches.anchor_active, patches.arm, patches.separation, patches.normal,
                patches.rest_distance, patches.restitution, patches.anchor_arm, patches.anchor_error,
                patches.bounce_threshold, patches.static_friction, patches.dynamic_friction, rows.vehicles,
                begin_orientation, rows.linear, rows.arm, rows.damping, rows.separation, rows.active, rows.hard,
                linear_velocity, angular_velocity, orientation, begin_position, raw)
        if not (self.covered and write_kind_addresses(read, _EVERY_KINDS, self.step_at)):
            return None
        return self._run(patches, raw, velocity, dt)

    def solve_touching(self, patches: PatchRows, wheels: tuple, linear_velocity: np.ndarray,
                       angular_velocity: np.ndarray, begin_position: np.ndarray, begin_orientation: np.ndarray,
                       velocity: ctypes.Structure, orientation: np.ndarray, dt: float
                       ) -> tuple[SolvedContacts, np.ndarray, np.ndarray, np.ndarray] | None:
        """`solve_every` with the constraint rows made in its first C call from the wheels' outputs (`wheels`:
        compiled_wheel_rows.WHEEL_INPUTS' arrays), every vehicle listed (else None, nothing done): a kept call made
        with its `KeptWheelRows`."""
        raw = np.empty(self.out_words, np.int64)
        read = (patches.point_active, patches.anchor_active, patches.arm, patches.separation, patches.normal,
                patches.rest_distance, patches.restitution, patches.anchor_arm, patches.anchor_error,
                patches.bounce_threshold, patches.static_friction, patches.dynamic_friction, begin_orientation,
                linear_velocity, angular_velocity, orientation, begin_position, raw, *wheels)
        if not (self.covered and write_kind_addresses(read, _TOUCHING_KINDS, self.step_at)):
            return None
        return self._run(patches, raw, velocity, dt)

    def _run(self, patches: PatchRows, raw: np.ndarray, velocity: ctypes.Structure, dt: float
             ) -> tuple[SolvedContacts, np.ndarray, np.ndarray, np.ndarray] | None:
        """The two C calls of `solve_every` and `solve_touching`, the step's words written: the solved contacts, the
        velocity (6, V), position and orientation, new arrays of the block `raw`; None where the first refuses."""
        if velocity is not self.velocity_struct:  # (made anew: a parameter it points at was replaced)
            self.every.velocity_words = ctypes.addressof(velocity)
            self.velocity_struct = velocity
        velocity.dt = dt
        status = _LIB.pvu_kept_tgs_step(self.every_at)
        if status == _NOT_COVERED:
            return None
        if status != 0:
            raise RuntimeError(f"compiled row solve with contacts failed with status {status}")
        np.sin(self.half, out=self.sine)  # numpy's, as vecmath.quat_integrate_exact takes them
        np.cos(self.half, out=self.cosine)
        _LIB.pvu_kept_tgs_finish(self.every_at)
        x, position, orientation, impulse, friction, broken = _every_fields(np.ndarray((), self.out, raw))
        return SolvedContacts(patches, impulse, friction, broken), x, position, orientation


_NOT_COVERED = -1  # (`pvu_kept_tgs_step`'s PVU_KEPT_NOT_COVERED)


class SolvedContacts:
    """What a solve with contacts leaves for the step's telemetry and friction bookkeeping, as `StaticContactRows`
    holds it: the patches' `active`, `arm` and `normal`, the solve's `impulse` (Vr, Pm, N), `friction` (Vr, Pm, M, 2)
    and `broken` (Vr, Pm). Every one the step's own (the patches' arrays patch_rows made for it, the solve's copied out
    of its kept buffers): never written after the step (`step_owned`: sim/contact/telemetry.py may read them later)."""

    step_owned = True

    def __init__(self, patches: PatchRows, impulse: np.ndarray, friction: np.ndarray, broken: np.ndarray):
        self.active, self.arm, self.normal = patches.point_active, patches.arm, patches.normal
        self.impulse, self.friction, self.broken = impulse, friction, broken


# the batch's kept TGS solve with contacts, made again where its shape or the parameters it points at changed
_KEPT_TGS = LastValue("mass", "moi", "max_depenetration_velocity")


def solve_tgs_contacts(p: SimParams, rows: ConstraintRows, patches: PatchRows, linear_velocity: np.ndarray,
                       angular_velocity: np.ndarray, begin_position: np.ndarray, begin_orientation: np.ndarray,
                       dt: float, iterations: int, velocity_iterations: int, threads: int = 1,
                       velocity: ctypes.Structure | None = None, orientation: np.ndarray | None = None
                       ) -> tuple[SolvedContacts, np.ndarray, np.ndarray, np.ndarray] | None:
    """`CompiledContactRows` and `solve_tgs` for a group with contacts (`rows.vehicles`; float32 velocities
    (3, batch)), in one Python call and three C calls into buffers kept from step to step (`_KeptTGS`): the same bits.
    Returns (the solved contacts, x (6, V), position (3, V), orientation (4, V)), the last three the kept buffers (read
    them before the next solve), or None where the group has no patch slots (`solve_tgs`'s turn). velocity and
    orientation (the group every vehicle): the velocities are the ones before the end of the step's damping, limits and
    gyroscopic term, which compiled_end_step's C call (`velocity`: compiled_end_step.velocity_struct's) forms into the
    solve's buffer first (`_KeptTGS.solve_every`: x, position and orientation new arrays then; None where it does not
    cover the step)."""
    V, R = rows.active.shape
    _, Pm, N = patches.point_active.shape
    if Pm == 0 or (velocity is not None and not _EVERY):
        return None
    M = patches.anchor_active.shape[2]
    key = (V, R, Pm, N, M, iterations, velocity_iterations, threads, dt, p.mass.shape[0])
    kept = _KEPT_TGS.get(p, key, lambda: _KeptTGS(p, V, R, Pm, N, M, iterations, velocity_iterations, threads, dt))
    if velocity is not None:
        return kept.solve_every(patches, rows, linear_velocity, angular_velocity, begin_position, begin_orientation,
                                velocity, orientation, dt)
    return kept.solve(patches, rows, rows.vehicles, linear_velocity, angular_velocity, begin_position,
                      begin_orientation)


# the wheels' arrays `wheel_rows` reads (and `also`), by the element type it takes them in


# the batch's kept solve of every vehicle touching, its constraint rows from the wheels (`solve_every_touching`)
_KEPT_TOUCHING = LastValue("mass", "moi", "max_depenetration_velocity")


def solve_every_touching(p: SimParams, patches: PatchRows, wheels: tuple, linear_velocity: np.ndarray,
                         angular_velocity: np.ndarray, begin_position: np.ndarray, begin_orientation: np.ndarray,
                         dt: float, iterations: int, velocity_iterations: int, threads: int,
                         velocity: ctypes.Structure, orientation: np.ndarray
                         ) -> tuple[SolvedContacts, np.ndarray, np.ndarray, np.ndarray] | None:
    """`solve_tgs_contacts` of every vehicle of the batch with its velocities formed first (`velocity`,
    `orientation`: as it takes them), its constraint rows made in the same C call from the wheels' outputs
    (`wheels`: compiled_wheel_rows.WHEEL_INPUTS' arrays, `also` each vehicle's flag: pipeline.constraint_rows' rows,
    the same bits) rather than handed over: (the solved contacts, x (6, V), position (3, V), orientation (4, V)),
    new arrays; None (nothing done) where it does not cover the step (a vehicle not listed, arrays not of the shapes
    and types the calls read, no patch slots)."""
    V, W = p.V, p.W
    _, Pm, N = patches.point_active.shape
    lng_dir, lat_dir, normal, arm, separation, lng_damping, lat_damping, sticky_lng, sticky_lat, mask, also = wheels
    if (Pm == 0 or not _EVERY or patches.point_active.shape[0] != V or p.mass.shape[0] != V
            or not (lng_dir.shape == lat_dir.shape == normal.shape == arm.shape == (3, V, W)
                    and separation.shape == lng_damping.shape == lat_damping.shape == sticky_lng.shape
                    == sticky_lat.shape == mask.shape == (V, W) and also.shape == (V,))):
        return None
    M = patches.anchor_active.shape[2]
    key = (V, W, Pm, N, M, iterations, velocity_iterations, threads, dt)
    kept = _KEPT_TOUCHING.get(p, key, lambda: _KeptTGS(p, V, 3 * W, Pm, N, M, iterations, velocity_iterations,
                                                        threads, dt, KeptWheelRows(V, W)))
    return kept.solve_touching(patches, wheels, linear_velocity, angular_velocity, begin_position, begin_orientation,
                               velocity, orientation, dt)
