"""The compiled row solve (sim/_row_solver.c, in the extension sim/compiled.py loads): what it covers, and the calls
that run it.

row_solver's `_solve_rows_tgs` and `_solve_rows_pgs` hand a solve group here when the caller asks for the compiled
solver (StepOptions.compiled and StepOptions.compiled_rows), the state is float32 and the group has no contacts
between vehicles: the group's constraint rows, prepared by the numpy code (Jacobians, responses, gains, biases'
constants), and its static contact rows, prepared in C from the patches (`CompiledContactRows`, sim/_contact_rows.c:
`StaticContactRows.__init__`'s arithmetic, straight into the solve's buffers), go to C in one call that runs every
position and velocity iteration of every vehicle. TGS's pose rotation takes numpy's
sin and cos of each iteration's half angle and one more call; PGS's pose moves once, in numpy. The numpy path stays
the reference (tests/test_sim_row_solver.py holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes

import numpy as np

from functools import lru_cache
from typing import TYPE_CHECKING

from .contact_rows import FRICTION_BIAS_PER_SUBSTEP, MAX_CONTACT_BIAS_FACTOR
from .extension import address, check_struct_size, open_extension

if TYPE_CHECKING:  # annotations only
    from .solver_rows import PatchRows
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
                   "anchor_error bounce_threshold vehicles mass moi max_depenetration rotation x".split()])


def _load() -> ctypes.CDLL | None:
    # (an extension built before the contact rows' set-up: numpy solves the rows)
    lib = open_extension("pvu_contact_rows")
    if lib is None:
        return None
    check_struct_size(lib, "pvu_row_solve_size", _RowSolve, "compiled_rows.py")
    check_struct_size(lib, "pvu_contact_patches_size", _ContactPatches, "compiled_rows.py")
    lib.pvu_contact_rows.argtypes = [ctypes.POINTER(_ContactPatches), ctypes.POINTER(_RowSolve)]
    lib.pvu_contact_rows.restype = ctypes.c_int
    for solve in (lib.pvu_rows_tgs, lib.pvu_rows_pgs):
        solve.argtypes = [ctypes.POINTER(_RowSolve)]
        solve.restype = ctypes.c_int
    lib.pvu_rows_orientation.argtypes = [_I64, _I64, _P, _P, _P, _P, _P]
    lib.pvu_rows_orientation.restype = ctypes.c_int
    lib.pvu_rows_soft.argtypes = [_I64, _I64, _I64, _I64, _P, _P, _P, _P, ctypes.c_float, _P, _P, _P, _P]
    lib.pvu_rows_soft.restype = ctypes.c_int
    return lib


_LIB = _load()


def available() -> bool:
    """Whether the extension with the compiled row solver is built and loaded."""
    return _LIB is not None


def covers(dtype, pairs, patches: PatchRows | None = None, p: SimParams | None = None) -> bool:
    """Whether the compiled solver implements a solve group (TGS or PGS): float32 state, no contacts between
    vehicles; its contacts with the static world (`patches`, with the parameters `p`) as patch_rows makes them, in
    float64 (numpy's arithmetic on them would otherwise take other precisions), the bodies' mass and inertia float32."""
    if _LIB is None or pairs is not None or dtype != np.float32:
        return False
    return patches is None or (all(getattr(patches, name).dtype == np.float64 for name in _PATCH_FLOATS)
                               and all(a.dtype == np.float32 for a in (p.mass, p.moi, p.max_depenetration_velocity)))


# the patches' float fields the C set-up reads (float64: patch_rows makes them so)
_PATCH_FLOATS = ("arm", "separation", "normal", "rest_distance", "static_friction", "dynamic_friction", "restitution",
                 "anchor_arm", "anchor_error", "bounce_threshold")


class _Call:
    """The struct and the arrays its pointers point into (kept alive for as long as the struct)."""

    def __init__(self):
        self.solve = _RowSolve()
        self.arrays_by_name: dict[str, np.ndarray] = {}

    def set(self, name: str, value, dtype) -> np.ndarray:
        array = np.ascontiguousarray(value, dtype=dtype)
        self.arrays_by_name[name] = array
        setattr(self.solve, name, address(array))
        return array


def _flags(mask: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(mask, dtype=bool).view(np.uint8)


def _shaped(value: np.ndarray, shape: tuple) -> np.ndarray:
    """value broadcast to shape (a per-patch value over the patch's points), itself where it has that shape already
    (np.broadcast_to costs more than the rest of a small group's call)."""
    return value if np.shape(value) == shape else np.broadcast_to(value, shape)


def _rows(J, WJ, recip, spring_gain, hard, listed, x, iterations: int, velocity_iterations: int, contacts,
          threads: int) -> _Call:
    """The struct's fields that TGS and PGS share: the constraint rows, the velocity, the contact rows."""
    V, R = J.shape[1], J.shape[2]
    c = _Call() if contacts is None else contacts.call  # (the contact rows' fields set already)
    b = c.solve
    b.V, b.R, b.iterations, b.velocity_iterations = V, R, iterations, velocity_iterations
    b.threads = max(1, int(threads))
    c.set("J", J, np.float32)
    c.set("WJ", WJ, np.float32)
    c.set("recip", recip, np.float32)
    c.set("spring_gain", spring_gain, np.float32)
    c.set("hard", _flags(_shaped(hard, (V, R))), np.uint8)
    c.set("listed", _flags(listed), np.uint8)
    c.set("impulse", np.empty((V, R), np.float32), np.float32)
    c.set("x", np.array(x, np.float32, order="C"), np.float32)  # a copy: written in place
    return c


def solve_tgs(J, WJ, recip, spring_gain, hard, separation, listed, hard_listed, bias_scale, max_bias, x, position,
              orientation, h: float, dt: float, iterations: int, velocity_iterations: int, contacts,
              threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_solve_rows_tgs`'s iterations for the vehicles of one group: J, WJ (6, V, R) float32, recip, spring_gain,
    separation (V, R) float32, hard (V, R), listed / hard_listed (R,): the rows swept in the position / velocity
    iterations; x (6, V), position (3, V), orientation (4, V) float32 at the start; contacts: the group's
    `CompiledContactRows` (its impulse, friction and broken written in place) or None. Returns (x, position,
    orientation) after the solve."""
    V, n = J.shape[1], iterations
    c = _rows(J, WJ, recip, spring_gain, hard, listed, x, n, velocity_iterations, contacts, threads)
    b = c.solve
    b.h, b.dt, b.h_f, b.bias_scale, b.max_bias = h, dt, np.float32(h), bias_scale, max_bias
    c.set("separation", separation, np.float32)
    c.set("hard_listed", _flags(hard_listed), np.uint8)
    position = c.set("position", np.array(position, np.float32, order="C"), np.float32)  # a copy: written in place
    angular = c.set("angular", np.empty((n, 3, V), np.float32), np.float32)
    half = c.set("half", np.empty((n, V), np.float32), np.float32)
    status = _LIB.pvu_rows_tgs(ctypes.byref(b))
    if status != 0:
        raise RuntimeError(f"compiled row solve failed with status {status}")
    return c.arrays_by_name["x"], position, _rotated(orientation, angular, half)


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
    _LIB.pvu_rows_orientation(half.shape[0], half.shape[1], orientation.ctypes.data, angular.ctypes.data,
                              sine.ctypes.data, cosine.ctypes.data, None)
    return orientation


def solve_pgs(J, WJ, recip, spring_gain, hard, act, impulse_kept, limit_bias, listed, x, iterations: int,
              friction_iterations: int, velocity_iterations: int, contacts,
              threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """`_solve_rows_pgs`'s sweeps for the vehicles of one group: the constraint rows as `solve_tgs` takes them, act
    (V, R) (active with a non-zero response), impulse_kept and limit_bias (V, R) float32; contacts: the group's
    `CompiledContactRows` made with `pgs`, or None. Returns (x after the velocity iterations, x after the position
    iterations: the motion the pose moves by)."""
    V = J.shape[1]
    c = _rows(J, WJ, recip, spring_gain, hard, listed, x, iterations, velocity_iterations, contacts, threads)
    b = c.solve
    b.friction_iterations = friction_iterations
    c.set("act", _flags(act), np.uint8)
    c.set("impulse_kept", impulse_kept, np.float32)
    c.set("limit_bias", limit_bias, np.float32)
    motion = c.set("motion", np.empty((6, V), np.float32), np.float32)
    status = _LIB.pvu_rows_pgs(ctypes.byref(b))
    if status != 0:
        raise RuntimeError(f"compiled row solve failed with status {status}")
    return c.arrays_by_name["x"], motion


@lru_cache(maxsize=32)
def _layout(V: int, Pm: int, N: int, M: int, pgs: bool) -> tuple[tuple, int]:
    """Where each float64 contact field of `RowSolve` lies in one block: ((name, offset, shape), ...), the block's
    length (a step's contact rows are one allocation)."""
    shapes = [("cJ", (6, V, Pm, N)), ("cWJ", (6, V, Pm, N)), ("c_recip", (V, Pm, N)), ("c_target", (V, Pm, N)),
              ("c_error", (V, Pm, N)), ("c_bias_coefficient", (V, Pm, N)), ("c_max_bias", (V,)),
              ("fJ", (2, 6, V, Pm, M)), ("fWJ", (2, 6, V, Pm, M)), ("f_gain", (2, V, Pm, M)),
              ("f_error", (2, V, Pm, M)), ("scale", (V, Pm)), ("c_impulse", (V, Pm, N)), ("friction", (V, Pm, M, 2))]
    if pgs:
        shapes += [("c_pgs_bias", (V, Pm, N)), ("f_pgs_bias", (2, V, Pm, M))]
    fields, offset = [], 0
    for name, shape in shapes:
        fields.append((name, offset, shape))
        offset += int(np.prod(shape))
    return tuple(fields), offset


class CompiledContactRows:
    """A solve group's static contact rows as `StaticContactRows` makes them (its Jacobians, responses, targets, biases'
    constants, friction axes and gains; with `pgs`, prepare_pgs_constants' biases), made in C (`pvu_contact_rows`,
    sim/_contact_rows.c) into the buffers of the group's compiled solve (`call`), the same bits. After the solve:
    `impulse` (Vr, Pm, N), `friction` (Vr, Pm, M, 2) and `broken` (Vr, Pm), and the patches' `active`, `arm` and
    `normal`: what the step's telemetry and friction bookkeeping read of `StaticContactRows`. The arrays by name
    (`arrays`): every field the C set-up wrote, as `StaticContactRows` would hold it (tests compare the two)."""

    def __init__(self, p: SimParams, patches: PatchRows, vehicles: np.ndarray, rotation: np.ndarray, x: np.ndarray,
                 dt: float, iterations: int, pgs: bool = False, threads: int = 1) -> None:
        """rotation (3, 3, Vr) float32 at the begin pose, x (6, Vr) float32 the velocity the solve starts from;
        iterations: the position iterations (PGS: 1, its rows made over the whole step)."""
        self.active, self.arm, self.normal = patches.point_active, patches.arm, patches.normal
        V, Pm, N = self.active.shape
        M = patches.anchor_active.shape[2]
        h = dt / iterations
        self.call = c = _Call()
        b = c.solve
        b.Pm, b.N, b.M = Pm, N, M
        b.friction_bias = FRICTION_BIAS_PER_SUBSTEP / h
        fields, length = _layout(V, Pm, N, M, pgs)
        self.block = block = np.empty(length)
        flags = np.empty(Pm * N + Pm * M + V * Pm, np.uint8)
        self.arrays = {name: block[offset:offset + int(np.prod(shape))].reshape(shape)
                       for name, offset, shape in fields}
        self.impulse, self.friction = self.arrays["c_impulse"], self.arrays["friction"]
        self.broken = flags[Pm * (N + M):].view(bool).reshape(V, Pm)
        self.flags = flags
        if Pm == 0:
            return
        base = address(block)
        for name, offset, _ in fields:
            setattr(b, name, base + 8 * offset)
        at = address(flags)
        b.c_listed, b.a_listed, b.broken = at, at + Pm * N, at + Pm * (N + M)
        read = [_whole(a) for a in (patches.point_active, patches.anchor_active, patches.static_friction,
                                    patches.dynamic_friction)]  # by the solve, as they are
        b.c_active, b.anchored, b.static_friction, b.dynamic_friction = (address(a) for a in read)
        d = _ContactPatches(V=V, Pm=Pm, N=N, M=M, threads=max(1, int(threads)), pgs=int(pgs), batch=p.mass.shape[0],
                            h=h, dt=dt, p8=min(MAX_CONTACT_BIAS_FACTOR, 2.0 * np.sqrt(1.0 / iterations)))
        vehicles = np.ascontiguousarray(vehicles, np.int64)
        rotation, x = np.ascontiguousarray(rotation, np.float32), np.ascontiguousarray(x, np.float32)
        kept = [_whole(a) for a in (patches.point_active, patches.arm, patches.separation, patches.normal,
                                    patches.rest_distance, patches.restitution, patches.anchor_active,
                                    patches.anchor_arm, patches.anchor_error, patches.bounce_threshold, vehicles,
                                    p.mass, p.moi, p.max_depenetration_velocity, rotation, x)]
        (d.point_active, d.arm, d.separation, d.normal, d.rest_distance, d.restitution, d.anchor_active, d.anchor_arm,
         d.anchor_error, d.bounce_threshold, d.vehicles, d.mass, d.moi, d.max_depenetration, d.rotation,
         d.x) = (address(a) for a in kept)
        c.arrays_by_name["read"] = read  # alive while the solve reads them
        status = _LIB.pvu_contact_rows(ctypes.byref(d), ctypes.byref(b))
        if status != 0:
            raise RuntimeError(f"compiled contact rows failed with status {status}")

    @property
    def listed(self) -> tuple[np.ndarray, np.ndarray]:
        """The normal rows (Pm, N) and anchors (Pm, M) active in some vehicle (the rows the C sweeps visit)."""
        Pm, N, M = self.active.shape[1], self.active.shape[2], self.friction.shape[2]
        return (self.flags[:Pm * N].view(bool).reshape(Pm, N),
                self.flags[Pm * N:Pm * (N + M)].view(bool).reshape(Pm, M))


def _whole(array: np.ndarray) -> np.ndarray:
    """array where it is C-contiguous (patch_rows' arrays are), else a contiguous copy (a subset's view)."""
    return array if array.flags.c_contiguous else np.ascontiguousarray(array)
