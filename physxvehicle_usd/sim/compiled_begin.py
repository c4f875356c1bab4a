"""The begin of a step, compiled (sim/_step_begin.c, in the extension sim/compiled.py loads): what it covers, and the
two calls that replace pipeline.step's first numpy lines for the compiled path; the first also answers
contact/broad.quiet_above_planes where it is handed the planes' quiet reference (`PlanesQuiet`).

For one car those lines (the begin pose's copies, vecmath.quat_to_mat, the forward speed, context.substep_counts, the
substep length, then pipeline.wheel_frame) are some forty numpy calls on a few numbers each, a tenth of the step;
here they are two C calls writing into one new block a step. The numpy lines stay the reference
(tests/test_sim_compiled_begin.py holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import operator
from typing import TYPE_CHECKING

import numpy as np

from .extension import Kinds, address, addresses, check_struct_size, kind_addresses, open_extension
from .memo import LastValue

if TYPE_CHECKING:
    from .state import SimParams, SimState

_P, _I64 = ctypes.c_void_p, ctypes.c_int64


class _StepBegin(ctypes.Structure):
    """Mirror of `StepBegin` in _step_begin.c (the loader compares its size with the extension's): the batch's sizes and
    parameters, the step's dt, state, offsets and block, and where each of `_BLOCK_FIELDS` lies in a block."""

    _fields_ = ([("V", _I64), ("W", _I64), ("dt", ctypes.c_double)]
                + [(name, _P) for name in "position orientation linear_velocity lng_axis threshold low high "
                                          "travel_direction offset quiet block".split()]
                + [("at", _I64 * 10)])


class PlanesQuiet(ctypes.Structure):
    """Mirror of `PlanesQuiet` in _step_begin.c: the planes' quiet reference a step's begin measures the motion since
    (contact/broad.py `begin_check` makes it from `_plane_candidates`' kept reference): the addresses of the reference
    position (3, V) and orientation (4, V) (float64, or float32 copies where `reference_single`: each value the same)
    and of the planes' weights (planes, 3) (float64), all C-contiguous, the number of planes, the largest reach, the
    smallest clearance and the turn's slack (vecmath.turn_from_cosine(1.0)); `out`: what the last begin handed it
    measured (`motion_reductions`)."""

    _fields_ = [("position", _P), ("orientation", _P), ("weights", _P), ("planes", _I64), ("reference_single", _I64),
                ("reach_max", ctypes.c_double), ("clearance_min", ctypes.c_double), ("turn_slack", ctypes.c_double),
                ("out", ctypes.c_double * 8)]


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_step_begin_size")  # (an extension built before it: numpy begins the step)
    if lib is None:
        return None
    check_struct_size(lib, "pvu_step_begin_size", _StepBegin, "compiled_begin.py")
    check_struct_size(lib, "pvu_planes_quiet_size", PlanesQuiet, "compiled_begin.py")
    for name in ("pvu_step_begin", "pvu_wheel_frame"):
        getattr(lib, name).argtypes = [ctypes.POINTER(_StepBegin)]
        getattr(lib, name).restype = ctypes.c_int
    return lib


_LIB = _load()


def available() -> bool:
    """Whether the extension with the compiled begin of a step is built and loaded."""
    return _LIB is not None


# what `begin` returns, in order: the begin pose (copies), the signed forward speed, the substep counts (int64) and
# lengths (float32), then the step's block (where `wheel_frame` writes, the body rotation among it), its address,
# the batch's `_Layout` and whether the planes are quiet (`planes_quiet`: False where no reference was handed over)
Begin = tuple


# the batch's parameters the calls read, by the dtype the C code takes them in
_PARAMS = (("lng_axis", np.float32), ("substep_threshold_speed", np.float32), ("low_speed_substeps", np.int64),
           ("high_speed_substeps", np.int64), ("travel_direction", np.float32))
_params = operator.attrgetter(*(name for name, _ in _PARAMS))
# the fields of a step's block, in order: what `begin` writes, then what `wheel_frame` writes
_BLOCK_FIELDS = ("n_sub", "position", "orientation", "speed", "dt_sub", "R", "Rw", "direction", "hub", "position_w")
_begun = operator.itemgetter("position", "orientation", "speed", "n_sub", "dt_sub")  # in `Begin`'s order
_frame = operator.itemgetter("Rw", "direction", "hub", "position_w")
_STATE = ("body_position", "body_orientation", "linear_velocity")
_state = operator.attrgetter(*_STATE)
_STATE_KINDS = Kinds([np.float32] * len(_STATE))


class _Layout:
    """One SimParams' part of the calls, set up once: whether its parameters are ones the C code takes, the calls'
    struct with their addresses, and the structured type of a step's block, where each output lies (the int64 substep
    counts first; the struct has the places too)."""

    def __init__(self, p: SimParams):
        self.sources = _params(p)
        shapes = {"lng_axis": (3, p.V), "travel_direction": (3, p.V, p.W)}
        self.covered = p.V > 0 and all(
            value.dtype == dtype and value.flags.c_contiguous and value.shape == shapes.get(name, (p.V,))
            for (name, dtype), value in zip(_PARAMS, self.sources))
        if not self.covered:
            return
        V, W = p.V, p.W
        # the step's block: n_sub (int64), begin position, begin orientation, forward speed, dt_sub, R; then the
        # frame: R repeated over the wheels, directions, hubs, positions; each field's view taken by one call
        shapes = ((V,), (3, V), (4, V), (V,), (V,), (3, 3, V), (3, 3, V, W), (3, V, W), (3, V, W), (3, V, W))
        formats = [np.int64] + [np.float32] * (len(shapes) - 1)
        self.block = np.dtype([(name, dtype, shape) for name, dtype, shape in zip(_BLOCK_FIELDS, formats, shapes)])
        c = self.call = _StepBegin()  # (the parameters' addresses and the fields' places set once)
        c.V, c.W = V, W
        c.lng_axis, c.threshold, c.low, c.high, c.travel_direction = addresses(self.sources)
        c.at[:] = [self.block.fields[name][1] for name in _BLOCK_FIELDS]


# the batch's `_Layout`, made again where one of the parameters it reads was replaced since (sim/memo.py)
_LAYOUTS = LastValue(*(name for name, _ in _PARAMS))


def _layout(p: SimParams) -> _Layout:
    return _LAYOUTS.get(p, None, lambda: _Layout(p))


def covers(p: SimParams, s: SimState) -> bool:
    """Whether the compiled begin implements this batch's: float32 body state and parameters, int64 substep counts,
    all C-contiguous."""
    return _LIB is not None and _covered(_layout(p), s)


def _covered(layout: _Layout, s: SimState) -> bool:
    return layout.covered and all(value.dtype == np.float32 and value.flags.c_contiguous for value in _state(s))


def begin(p: SimParams, s: SimState, dt: float, quiet: int | None = None) -> Begin | None:
    """pipeline.step's begin where `covers` (None elsewhere): (begin position, begin orientation, forward speed, n_sub,
    dt_sub, the step's block, its address, the batch's layout, whether the planes are quiet), the pose copies, the
    forward speed of R = vecmath.quat_to_mat(orientation), context.substep_counts and (dt / n_sub).astype(float32).
    quiet: the address of the planes' quiet reference of V bodies (a `PlanesQuiet`, kept alive by
    contact/broad.py `begin_check`), whose motion since it the call measures (into its `out`) and whose question it
    answers; None: not asked (False)."""
    if _LIB is None:
        return None
    layout = _layout(p)
    # (the state's addresses where `_covered`: float32, C-contiguous, in one C call)
    state = kind_addresses(_state(s), _STATE_KINDS) if layout.covered else None
    if state is None:
        return None
    # (the block over a byte buffer: the buffer protocol gives a structured array's address only through numpy's
    # slower way, a byte buffer's at once)
    raw = np.empty(layout.block.itemsize, np.uint8)
    block = np.ndarray((), layout.block, raw)
    c = layout.call
    c.position, c.orientation, c.linear_velocity = state
    c.block = base = address(raw)
    c.dt = dt
    c.quiet = quiet
    return (*_begun(block), block, base, layout, _LIB.pvu_step_begin(c) == 1)


def planes_quiet(begun: Begin) -> bool:
    """Whether the begin found the planes quiet (contact/broad.quiet_above_planes' True, decided the same way)."""
    return begun[8]


def motion_reductions(quiet: PlanesQuiet) -> list[float] | None:
    """The motion since the planes' quiet reference that the last begin handed `quiet` measured: sim/_motion.c's seven
    reductions (the largest change along x, y, z, the smallest, the smallest |cosine|), as motion.Motion's compiled
    pass takes them; None where a value was NaN."""
    out = quiet.out[:]
    return out[:7] if out[7] == 1.0 else None


def rotation(p: SimParams, begun: Begin) -> np.ndarray:
    """The body rotation (3, 3, V) of the begin pose (vecmath.quat_to_mat's)."""
    return begun[5]["R"]


def wheel_frame(p: SimParams, begun: Begin, offset: np.ndarray) -> tuple | None:
    """pipeline.wheel_frame(p, begun.R, begun.position, offset), written into the begin's block; None where the offsets
    are not float32 (3, V, W), as pipeline.steered_geometry gives them (numpy's then)."""
    if offset.dtype != np.float32 or offset.shape != (3, p.V, p.W):
        return None
    offset = np.ascontiguousarray(offset)
    block, base, layout = begun[5:8]
    c = layout.call
    c.block, c.offset = base, address(offset)  # (the begin's block: the rotation and position it wrote)
    _LIB.pvu_wheel_frame(c)
    return _frame(block)
