"""The compiled row solve (sim/_row_solver.c, sim/_contact_rows.c, in the extension sim/extension.py opens): what it
covers, and the calls that set a solve group's rows up and run it in one go.

row_solver's `_solve_rows_tgs` and `_solve_rows_pgs` hand a solve group here when the caller asks for the compiled
solver (StepOptions.compiled and StepOptions.compiled_rows), the state is float32 and the group has no contacts
between vehicles. Its rows are set up in C straight into the solve's buffers, each block of the group's arrays one
allocation (compiled_row_structs: the structs and their blocks): the static contact rows from the patches
(`CompiledContactRows`, `pvu_contact_rows`: `StaticContactRows.__init__`'s arithmetic), the constraint rows from
pipeline.constraint_rows' (`pvu_constraint_rows`: row_solver's Jacobians, responses and gains); one more call runs
every position and velocity iteration of every vehicle. TGS's pose rotation takes numpy's sin and cos of each
iteration's half angle and one more call; PGS's pose moves once, in numpy. A TGS group with contacts is solved in
structs and buffers kept from step to step instead (compiled_kept_solve.py, the same set-ups and the same bits). The
numpy path stays the reference (tests/test_sim_row_solver.py and tests/test_sim_contact_rows_compiled.py hold the two
to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import operator
from typing import TYPE_CHECKING

import numpy as np

from .compiled_row_structs import (
    BODY_PARAM_DTYPES,
    LIB,
    ConstraintRowsStruct,
    ContactPatchesStruct,
    RowSolveCall,
    allocate_block,
    block_view,
    constraint_layout,
    contact_layout,
    contiguous,
)
from .contact_rows import FRICTION_BIAS_PER_SUBSTEP, MAX_CONTACT_BIAS_FACTOR
from .extension import addresses

if TYPE_CHECKING:  # annotations only
    from .solver_rows import ConstraintRows, PatchRows
    from .state import SimParams


def available() -> bool:
    """Whether the extension with the compiled row solver is built and loaded."""
    return LIB is not None


def covers(dtype, pairs, p: SimParams | None = None, rows: ConstraintRows | None = None,
           patches: PatchRows | None = None) -> bool:
    """Whether the compiled solver implements a solve group (TGS or PGS): float32 state, no contacts between
    vehicles; with the parameters `p`, its constraint rows `rows` and its contacts with the static world `patches`:
    in the precisions pipeline.constraint_rows and patch_rows make them (numpy's arithmetic on others would take
    other precisions), the bodies' mass and inertia float32."""
    if LIB is None or pairs is not None or dtype != np.float32:
        return False
    if p is not None and (p.mass.dtype, p.moi.dtype, p.max_depenetration_velocity.dtype) != BODY_PARAM_DTYPES:
        return False
    if rows is not None and not (rows.linear.dtype == rows.arm.dtype == np.float32
                                 and rows.damping.dtype == rows.separation.dtype == np.float64):
        return False
    return patches is None or _patch_dtypes(patches) == _PATCH_DTYPES


# the patches' float fields the C set-up reads (float64: patch_rows makes them so)
_PATCH_FLOATS = ("arm", "separation", "normal", "rest_distance", "static_friction", "dynamic_friction", "restitution",
                 "anchor_arm", "anchor_error", "bounce_threshold")
_patch_dtypes = operator.attrgetter(*(f"{name}.dtype" for name in _PATCH_FLOATS))
_PATCH_DTYPES = (np.dtype(np.float64),) * len(_PATCH_FLOATS)


def _flags(mask: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(mask, dtype=bool).view(np.uint8)


def _constraint_rows(c: RowSolveCall, p: SimParams, rows: ConstraintRows, x: np.ndarray,
                     begin_orientation: np.ndarray, spring_time: float, dt: float, iterations: int,
                     velocity_iterations: int, pgs: bool, threads: int) -> tuple[np.ndarray, dict]:
    """The struct's fields that TGS and PGS share: the group's constraint rows, set up in C (`pvu_constraint_rows`:
    row_solver's `_row_jacobians`, reciprocal responses, `_spring_gains` over spring_time and, for TGS, the limit
    rows' separations; for PGS impulse_kept and limit_bias), the velocity x (6, V) at the start (copied: written in
    place), the outputs. Returns the block (bytes) and where each array lies in it."""
    V, R = rows.active.shape
    b = c.solve
    b.V, b.R, b.iterations, b.velocity_iterations = V, R, iterations, velocity_iterations
    b.threads = max(1, int(threads))
    block, fields = allocate_block(c, constraint_layout(V, R, iterations, bool(pgs)))
    block_view(block, fields, "x")[...] = x
    read = contiguous(rows.vehicles.astype(np.int64, copy=False), rows.linear, rows.arm, rows.damping,
                      rows.separation, _flags(rows.active), _flags(rows.hard), p.mass, p.moi, begin_orientation)
    d = ConstraintRowsStruct(V=V, R=R, batch=p.mass.shape[0], pgs=int(pgs), spring_time=spring_time, dt=dt)
    (d.vehicles, d.linear, d.arm, d.damping, d.separation, d.active, d.hard, d.mass, d.moi,
     d.orientation) = addresses(read)
    b.hard = d.hard
    c.kept.append(read)  # alive while the solve reads them
    status = LIB.pvu_constraint_rows(ctypes.byref(d), ctypes.byref(b))
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
    c = RowSolveCall() if contacts is None else contacts.call  # (the contact rows' fields set already)
    block, fields = _constraint_rows(c, p, rows, x, begin_orientation, h, dt, n, velocity_iterations, False, threads)
    b = c.solve
    b.h, b.dt, b.h_f, b.bias_scale, b.max_bias = h, dt, np.float32(h), bias_scale, max_bias
    at = slice(None) if len(rows.vehicles) == begin_position.shape[1] else rows.vehicles  # (every vehicle: a slice)
    position = block_view(block, fields, "position")
    position[...] = begin_position[:, at]
    status = LIB.pvu_rows_tgs(ctypes.byref(b))
    if status != 0:
        raise RuntimeError(f"compiled row solve failed with status {status}")
    orientation = begin_orientation[:, at]
    return (block_view(block, fields, "x"), position,
            _rotated(orientation, block_view(block, fields, "angular"), block_view(block, fields, "half")))


def solve_pgs(contacts: CompiledContactRows | None, p: SimParams, rows: ConstraintRows, x: np.ndarray,
              begin_orientation: np.ndarray, dt: float, iterations: int, friction_iterations: int,
              velocity_iterations: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """`_solve_rows_pgs`'s sweeps for the vehicles of one group (`rows.vehicles`), its rows set up over the whole step
    and swept in C: contacts the group's `CompiledContactRows` made with `pgs`, or None, x as `solve_tgs` takes it,
    begin_orientation (4, batch) the pose the rows are made at. Returns (x after the velocity iterations, x after the
    position iterations: the motion the pose moves by)."""
    c = RowSolveCall() if contacts is None else contacts.call
    block, fields = _constraint_rows(c, p, rows, x, begin_orientation, dt, dt, iterations, velocity_iterations, True,
                                     threads)
    c.solve.friction_iterations = friction_iterations
    status = LIB.pvu_rows_pgs(ctypes.byref(c.solve))
    if status != 0:
        raise RuntimeError(f"compiled row solve failed with status {status}")
    return block_view(block, fields, "x"), block_view(block, fields, "motion")


def covers_soft(*arrays: np.ndarray) -> bool:
    """Whether the compiled solver implements a group of sticky rows: the library loaded and every array float32
    (numpy's products would otherwise widen)."""
    return LIB is not None and all(a.dtype == np.float32 for a in arrays)


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
    LIB.pvu_rows_soft(V, R, iterations, max(1, int(threads)), J.ctypes.data, WJ.ctypes.data, gain.ctypes.data,
                      listed.ctypes.data, np.float32(h), x.ctypes.data, position.ctypes.data, angular.ctypes.data,
                      half.ctypes.data)
    return x, position, _rotated(orientation, angular, half)


def _rotated(orientation: np.ndarray, angular: np.ndarray, half: np.ndarray) -> np.ndarray:
    """orientation rotated by each iteration's angular velocity over its half angle, in turn (a new array)."""
    orientation = np.array(orientation, np.float32, order="C")
    sine, cosine = np.sin(half), np.cos(half)  # numpy's, as vecmath.quat_integrate_exact takes them
    LIB.pvu_rows_orientation(half.shape[0], half.shape[1], *addresses((orientation, angular, sine, cosine)), None)
    return orientation


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
        self.call = c = RowSolveCall()
        b = c.solve
        b.Pm, b.N, b.M = Pm, N, M
        b.friction_bias = FRICTION_BIAS_PER_SUBSTEP / h
        self._block, self._fields = block, fields = allocate_block(c, contact_layout(V, Pm, N, M, bool(pgs)))
        self.impulse, self.friction = block_view(block, fields, "c_impulse"), block_view(block, fields, "friction")
        self.broken = block_view(block, fields, "broken").view(bool)
        if Pm == 0:
            return
        read = contiguous(patches.point_active, patches.anchor_active, patches.static_friction,
                          patches.dynamic_friction, patches.arm, patches.separation, patches.normal,
                          patches.rest_distance, patches.restitution, patches.anchor_arm, patches.anchor_error,
                          patches.bounce_threshold, vehicles.astype(np.int64, copy=False), p.mass, p.moi,
                          p.max_depenetration_velocity, begin_orientation, x)
        d = ContactPatchesStruct(V=V, Pm=Pm, N=N, M=M, threads=max(1, int(threads)), pgs=int(pgs),
                                 batch=p.mass.shape[0], h=h, dt=dt,
                                 p8=min(MAX_CONTACT_BIAS_FACTOR, 2.0 * np.sqrt(1.0 / iterations)))
        (d.point_active, d.anchor_active, static_friction, dynamic_friction, d.arm, d.separation, d.normal,
         d.rest_distance, d.restitution, d.anchor_arm, d.anchor_error, d.bounce_threshold, d.vehicles, d.mass, d.moi,
         d.max_depenetration, d.orientation, d.x) = addresses(read)
        # the solve reads the patches' own flags and frictions
        b.c_active, b.anchored, b.static_friction, b.dynamic_friction = (d.point_active, d.anchor_active,
                                                                         static_friction, dynamic_friction)
        c.kept.append(read)  # alive while the solve reads them
        status = LIB.pvu_contact_rows(ctypes.byref(d), ctypes.byref(b))
        if status != 0:
            raise RuntimeError(f"compiled contact rows failed with status {status}")

    def arrays(self) -> dict[str, np.ndarray]:
        """Every field the set-up wrote, by its name in `RowSolve`, as `StaticContactRows` would hold it, and the
        flags of the normal rows (c_listed (Pm, N)) and anchors (a_listed (Pm, M)) active in some vehicle."""
        out = {name: block_view(self._block, self._fields, name) for name in self._fields if name != "broken"}
        out.update({name: out[name].view(bool) for name in ("c_listed", "a_listed")})
        return out

