"""The compiled row solve (sim/_row_solver.c, in the extension sim/compiled.py loads): what it covers, and the calls
that run it.

row_solver's `_solve_rows_tgs` and `_solve_rows_pgs` hand a solve group here when the caller asks for the compiled
solver (StepOptions.compiled and StepOptions.compiled_rows), the state is float32 and the group has no contacts
between vehicles: the group's rows, prepared by the numpy code (Jacobians, responses, gains, biases' constants), go
to C in one call that runs every position and velocity iteration of every vehicle. TGS's pose rotation takes numpy's
sin and cos of each iteration's half angle and one more call; PGS's pose moves once, in numpy. The numpy path stays
the reference (tests/test_sim_row_solver.py holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes

import numpy as np

from .extension import check_struct_size, open_extension

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


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_rows_soft")  # (an extension built before the row solver: numpy solves the rows)
    if lib is None:
        return None
    check_struct_size(lib, "pvu_row_solve_size", _RowSolve, "compiled_rows.py")
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


def covers(dtype, pairs) -> bool:
    """Whether the compiled solver implements a solve group (TGS or PGS): float32 state, no contacts between
    vehicles."""
    return _LIB is not None and pairs is None and dtype == np.float32


class _Call:
    """The struct and the arrays its pointers point into (kept alive for as long as the struct)."""

    def __init__(self):
        self.solve = _RowSolve()
        self.arrays_by_name: dict[str, np.ndarray] = {}

    def set(self, name: str, value, dtype) -> np.ndarray:
        array = np.ascontiguousarray(value, dtype=dtype)
        self.arrays_by_name[name] = array
        setattr(self.solve, name, array.ctypes.data)
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
    c = _Call()
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
    if contacts is not None:
        _set_contacts(c, contacts, V)
    c.set("x", np.array(x, np.float32, order="C"), np.float32)  # a copy: written in place
    return c


def solve_tgs(J, WJ, recip, spring_gain, hard, separation, listed, hard_listed, bias_scale, max_bias, x, position,
              orientation, h: float, dt: float, iterations: int, velocity_iterations: int, contacts,
              threads: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`_solve_rows_tgs`'s iterations for the vehicles of one group: J, WJ (6, V, R) float32, recip, spring_gain,
    separation (V, R) float32, hard (V, R), listed / hard_listed (R,): the rows swept in the position / velocity
    iterations; x (6, V), position (3, V), orientation (4, V) float32 at the start; contacts: the group's
    `StaticContactRows` (its impulse, friction and broken written in place) or None. Returns (x, position,
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
    `StaticContactRows` after prepare_pgs, or None. Returns (x after the velocity iterations, x after the position
    iterations: the motion the pose moves by)."""
    V = J.shape[1]
    c = _rows(J, WJ, recip, spring_gain, hard, listed, x, iterations, velocity_iterations, contacts, threads)
    b = c.solve
    b.friction_iterations = friction_iterations
    c.set("act", _flags(act), np.uint8)
    c.set("impulse_kept", impulse_kept, np.float32)
    c.set("limit_bias", limit_bias, np.float32)
    if contacts is not None and b.Pm > 0:
        M = b.M
        c.set("c_pgs_bias", _shaped(contacts.pgs_bias, (V, b.Pm, b.N)), np.float64)
        c.set("f_pgs_bias", np.stack([_shaped(bias, (V, b.Pm, M)) for bias in contacts.pgs_friction_bias]),
              np.float64)
    motion = c.set("motion", np.empty((6, V), np.float32), np.float32)
    status = _LIB.pvu_rows_pgs(ctypes.byref(b))
    if status != 0:
        raise RuntimeError(f"compiled row solve failed with status {status}")
    return c.arrays_by_name["x"], motion


def _set_contacts(c: _Call, rows, V: int) -> None:
    """The `StaticContactRows` arrays the C sweep reads and writes."""
    b = c.solve
    Pm, N, M = rows.active.shape[1], rows.active.shape[2], rows.anchors.shape[2]
    b.Pm, b.N, b.M, b.friction_bias = Pm, N, M, rows.friction_bias
    if Pm == 0:
        return
    shape = (V, Pm, N)
    c.set("cJ", rows.J, np.float64)
    c.set("cWJ", rows.WJ, np.float64)
    for name, value in (("c_recip", rows.recip), ("c_target", rows.target), ("c_error", rows.error),
                        ("c_bias_coefficient", rows.bias_coefficient)):
        c.set(name, _shaped(value, shape), np.float64)
    c.set("c_max_bias", rows.max_bias, np.float64)
    c.set("c_active", _flags(rows.active), np.uint8)
    c.set("c_listed", _flags(rows.active.any(axis=0)), np.uint8)
    c.set("fJ", np.stack([J for J, _, _, _ in rows.F]), np.float64)
    c.set("fWJ", np.stack([WJ for _, WJ, _, _ in rows.F]), np.float64)
    c.set("f_gain", np.stack([_shaped(gain, (V, Pm, M)) for _, _, gain, _ in rows.F]), np.float64)
    c.set("f_error", np.stack([_shaped(error, (V, Pm, M)) for _, _, _, error in rows.F]), np.float64)
    c.set("anchored", _flags(rows.anchors), np.uint8)
    c.set("a_listed", _flags(rows.anchors.any(axis=0)), np.uint8)
    for name, value in (("scale", rows.scale), ("static_friction", rows.static_friction),
                        ("dynamic_friction", rows.dynamic_friction)):
        c.set(name, _shaped(value, (V, Pm)), np.float64)
    # written in place: the rows' own arrays (fresh, contiguous float64 / bool from the constructor)
    for name, value, dtype in (("c_impulse", rows.impulse, np.float64), ("friction", rows.friction, np.float64),
                               ("broken", rows.broken, np.bool_)):
        assert value.flags.c_contiguous and value.dtype == dtype, name
        c.arrays_by_name[name] = value
        setattr(b, name, value.ctypes.data)

