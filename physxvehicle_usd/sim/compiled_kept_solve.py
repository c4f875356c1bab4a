"""A TGS solve with contacts kept from step to step (sim/_contact_rows.c, sim/_row_solver.c, in the extension
sim/extension.py opens): compiled_rows' set-ups and solve of a group with contacts, into structs and working buffers
made once for the group's shape.

row_solver hands a TGS group with contacts here (`solve_tgs_contacts`) where the compiled solver covers it
(compiled_rows.covers). Its structs and working buffers are kept from step to step (`_KeptTGS`: a step hands over its
arrays' addresses in one call, and one C call sets up both kinds of row and iterates them); where the group is every
vehicle, compiled_end_step's velocities are formed into its buffer first, in the same C call (`pvu_kept_tgs_step`,
sim/_contact_rows.c), and a second (`pvu_kept_tgs_finish`) rotates the pose and copies the outputs into one new
block; where every vehicle touches the static world (`solve_every_touching`), the first call also makes the
constraint rows from the wheels' outputs (compiled_wheel_rows' `pvu_wheel_rows_block`). The numpy path stays the
reference (tests/test_sim_contact_rows_compiled.py holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import operator
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from . import compiled_end_step
from .compiled_row_structs import (
    BODY_PARAM_DTYPES,
    LIB,
    ConstraintRowsStruct,
    ContactPatchesStruct,
    KeptStepStruct,
    RowSolveCall,
    RowSolveStruct,
    allocate_block,
    block_view,
    constraint_layout,
    contact_layout,
    contiguous,
)
from .compiled_wheel_rows import WHEEL_INPUT_DTYPES, WHEEL_INPUT_WORDS, KeptWheelRows
from .contact_rows import FRICTION_BIAS_PER_SUBSTEP, MAX_CONTACT_BIAS_FACTOR
from .extension import Kinds, addresses, write_addresses, write_kind_addresses
from .memo import LastValue

if TYPE_CHECKING:  # annotations only
    from .solver_rows import ConstraintRows, PatchRows
    from .state import SimParams

_ONE_CALL = LIB is not None and hasattr(LIB, "pvu_rows_tgs_contacts")  # (else three calls: an older extension)
# (else the solves of every vehicle with their velocities refused: the velocities and the solve apart)
_EVERY = LIB is not None and hasattr(LIB, "pvu_kept_tgs_step")


class _KeptStructs(ctypes.Structure):
    """The three structs of a TGS solve with contacts side by side: their pointers one array of words (`_KeptTGS`)."""

    _fields_ = [("solve", RowSolveStruct), ("patches", ContactPatchesStruct), ("rows", ConstraintRowsStruct)]


def _slots(*fields: tuple[str, str]) -> np.ndarray:
    """The words of `_KeptStructs` that hold these (struct, field) pointers."""
    return np.array([(getattr(_KeptStructs, struct).offset
                      + getattr(type(getattr(_KeptStructs(), struct)), name).offset) // 8 for struct, name in fields],
                    np.intp)


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
# their types, as compiled_rows.covers and the set-ups take them
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


# the patches' arrays every kept solve hands over first, in the order of its words (`_STEP_SLOTS`' patches, then the
# frictions the solve reads)
_patch_arrays = operator.attrgetter("point_active", "anchor_active", "arm", "separation", "normal", "rest_distance",
                                    "restitution", "anchor_arm", "anchor_error", "bounce_threshold", "static_friction",
                                    "dynamic_friction")


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
        call, b, d, c = RowSolveCall.__new__(RowSolveCall), structs.solve, structs.patches, structs.rows
        # (`allocate_block` points the solve's fields: the solve struct first in the words)
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
        params = contiguous(p.mass, p.moi, p.max_depenetration_velocity)
        self.kept.append(params)
        d.mass, d.moi, d.max_depenetration = c.mass, c.moi, _ = addresses(params)
        contact_block, contact_fields = allocate_block(call, contact_layout(V, Pm, N, M, False))
        block, fields = allocate_block(call, constraint_layout(V, R, n, False))
        self.impulse, self.friction, self.broken = (block_view(contact_block, contact_fields, name)
                                                    for name in ("c_impulse", "friction", "broken"))
        self.x, self.position, angular, half = (block_view(block, fields, name)
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
        self.every = k = KeptStepStruct(
            spread_count=len(spread), spread=spread.ctypes.data, solve_words=self.words.ctypes.data,
            wheel_words=None if wheels is None else wheels.at, step=self.step_at, begin_position_word=begin_words[0],
            begin_orientation_word=begin_words[1], out_word=begin_words[2],
            patches=ctypes.addressof(d), rows=ctypes.addressof(c), solve=ctypes.addressof(b),
            sine=self.sine.ctypes.data, cosine=self.cosine.ctypes.data,
            **{f"out_{name}": self.out.fields[name][1] for name in self.out.names})
        self.every_at = ctypes.addressof(k)
        self.velocity_struct = None  # (the velocities' struct the arguments point at)
        # (the structs' parameters float32: as compiled_rows.covers asks of a solve)
        self.covered = (p.mass.dtype, p.moi.dtype, p.max_depenetration_velocity.dtype) == BODY_PARAM_DTYPES
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
        read = _patch_arrays(patches) + (vehicles, begin_orientation, rows.linear, rows.arm, rows.damping,
                                          rows.separation, rows.active, rows.hard)
        # (the patches' flags and frictions read by the solve too, the vehicles and orientation by both set-ups): in
        # one checked call where each is C-contiguous of the type the set-ups read (most steps: patch_rows and
        # constraint_rows make them so), else each where it is C-contiguous, a contiguous copy where not
        if not write_kind_addresses(read, _STEP_KINDS, self.step_at):
            read = contiguous(*read)
            write_addresses(read, self.step_at)
        self.words[_STEP_SLOTS] = self.step_words[_STEP_WORDS]
        patches_at, rows_at, solve_at = self.structs_at
        if _ONE_CALL:
            status = LIB.pvu_rows_tgs_contacts(patches_at, rows_at, solve_at)
        else:
            status = LIB.pvu_contact_rows(patches_at, solve_at)
            status = status or LIB.pvu_constraint_rows(rows_at, solve_at)
            status = status or LIB.pvu_rows_tgs(solve_at)
        if status != 0:
            raise RuntimeError(f"compiled row solve with contacts failed with status {status}")
        np.sin(self.half, out=self.sine)  # numpy's, as vecmath.quat_integrate_exact takes them
        np.cos(self.half, out=self.cosine)
        self.orientation[...] = begin_orientation[:, at]
        LIB.pvu_rows_orientation(*self.rotation)
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
        read = _patch_arrays(patches) + (rows.vehicles, begin_orientation, rows.linear, rows.arm, rows.damping,
                                          rows.separation, rows.active, rows.hard, linear_velocity, angular_velocity,
                                          orientation, begin_position, raw)
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
        read = _patch_arrays(patches) + (begin_orientation, linear_velocity, angular_velocity, orientation,
                                          begin_position, raw, *wheels)
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
        status = LIB.pvu_kept_tgs_step(self.every_at)
        if status == _NOT_COVERED:
            return None
        if status != 0:
            raise RuntimeError(f"compiled row solve with contacts failed with status {status}")
        np.sin(self.half, out=self.sine)  # numpy's, as vecmath.quat_integrate_exact takes them
        np.cos(self.half, out=self.cosine)
        LIB.pvu_kept_tgs_finish(self.every_at)
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
    """compiled_rows' `CompiledContactRows` and `solve_tgs` for a group with contacts (`rows.vehicles`; float32
    velocities (3, batch)), in one Python call and three C calls into buffers kept from step to step (`_KeptTGS`): the
    same bits. Returns (the solved contacts, x (6, V), position (3, V), orientation (4, V)), the last three the kept
    buffers (read them before the next solve), or None where the group has no patch slots (`solve_tgs`'s turn). velocity
    and orientation (the group every vehicle): the velocities are the ones before the end of the step's damping, limits
    and gyroscopic term, which compiled_end_step's C call (`velocity`: compiled_end_step.velocity_struct's) forms into
    the solve's buffer first (`_KeptTGS.solve_every`: x, position and orientation new arrays then; None where it does
    not cover the step)."""
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
