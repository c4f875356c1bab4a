"""The command responses of a batch of standard drives, compiled (sim/_commands.c, in the extension sim/compiled.py
loads): what it covers, and the call that replaces commands.update_commands' autobox, gear command test and actuation
flags.

For one car those are some thirty numpy calls on a few numbers each (the autobox in numpy scalars, the gear command's
test, the engine's flags); here one C call writing into a block no one else holds. The numpy code stays the reference
(tests/test_sim_compiled_commands.py holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import operator
from typing import TYPE_CHECKING

import numpy as np

from ..runtime.vehicle2 import AUTOMATIC_GEAR, NEUTRAL_GEAR
from .extension import Kinds, address, addresses, check_struct_size, open_extension, write_kind_addresses
from .memo import Blocks, LastValue

if TYPE_CHECKING:
    from .state import SimParams, SimState

_P = ctypes.c_void_p
# the parameters the call reads, by the dtype it takes them in ((V,), but autobox_up and autobox_down (V, G))
_PARAMS = (("autobox_on", np.bool_), ("has_autobox", np.bool_), ("is_standard", np.bool_), ("nb_gears", np.int64),
           ("autobox_latency", np.float32), ("autobox_up", np.float32), ("autobox_down", np.float32),
           ("engine_max_omega", np.float32), ("clutch_strength", np.float32))
_params = operator.attrgetter(*(name for name, _ in _PARAMS))
# the state it reads, then the autobox's it writes in place, by the dtype it takes them in
_STATE = (("target_gear_command", np.int64), ("current_gear", np.int64), ("target_gear", np.int64),
          ("accelerator", np.float32), ("engine_omega", np.float32), ("autobox_active_shift", np.bool_),
          ("autobox_time_since_shift", np.float32))
_state = operator.attrgetter(*(name for name, _ in _STATE))
# (and the unbraked wheels' flags after them)
_KINDS = Kinds([dtype for _, dtype in _STATE] + [np.bool_], writable=(5, 6))
_DRIVE_TORQUE = np.dtype(np.float32)  # the wheel drive torque commands' type, which the drive torques take


class _Commands(ctypes.Structure):
    """Mirror of `Commands` in _commands.c (the loader compares its size with the extension's)."""

    _fields_ = ([(name, ctypes.c_int64) for name in "V W G neutral automatic".split()] + [("dt", ctypes.c_double)]
                + [(name, _P) for name in
                   "autobox_on has_autobox is_standard nb_gears latency up down max_omega clutch "
                   "target_gear_command current_gear target_gear accelerator engine_omega active since unbraked "
                   "throttle command drive_applied drive_torque".split()])


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_standard_commands")  # (an extension built before it: numpy's commands)
    if lib is None:
        return None
    check_struct_size(lib, "pvu_commands_size", _Commands, "compiled_commands.py")
    lib.pvu_standard_commands.argtypes = [ctypes.POINTER(_Commands)]
    lib.pvu_standard_commands.restype = ctypes.c_int64
    return lib


_LIB = _load()
# the state's fields of the struct, in _STATE's order, then the unbraked flags'
_STATE_FIELDS = ("target_gear_command", "current_gear", "target_gear", "accelerator", "engine_omega", "active", "since",
                 "unbraked")
# (side by side in the struct: one call writes their addresses)
assert [getattr(_Commands, name).offset for name in _STATE_FIELDS] == [
    getattr(_Commands, _STATE_FIELDS[0]).offset + 8 * k for k in range(len(_STATE_FIELDS))]
_OUTPUTS = ("throttle", "command", "drive_applied", "drive_torque")
_outputs = operator.itemgetter(*_OUTPUTS)


def available() -> bool:
    """Whether the extension with the compiled commands is built and loaded."""
    return _LIB is not None


class _Layout:
    """One SimParams' part of the call, set up once: whether it covers the batch (every vehicle a standard drive with
    all its wheels, the parameters of the types above, at least one autobox gear column), the struct with its sizes and
    the parameters' addresses, and the structured type of a call's block."""

    def __init__(self, p: SimParams):
        self.sources = sources = _params(p)
        V, G = p.V, p.autobox_up.shape[1] if p.autobox_up.ndim == 2 else 0
        self.covered = (_LIB is not None and V > 0 and G >= 1 and p.all_standard and p.all_wheels
                        and all(value.dtype == dtype and value.flags.c_contiguous
                                and value.shape == ((V, G) if name in ("autobox_up", "autobox_down") else (V,))
                                for (name, dtype), value in zip(_PARAMS, sources)))
        if not self.covered:
            return
        c = self.call = _Commands()
        c.V, c.W, c.G, c.neutral, c.automatic = V, p.W, G, NEUTRAL_GEAR, AUTOMATIC_GEAR
        (c.autobox_on, c.has_autobox, c.is_standard, c.nb_gears, c.latency, c.up, c.down, c.max_omega,
         c.clutch) = addresses(sources)
        self.block = np.dtype([("command", np.int64, (V,)), ("throttle", np.float32, (V,)),
                               ("drive_torque", np.float32, (V, p.W)), ("drive_applied", np.bool_, (V, p.W))],
                              align=True)
        self.bytes = [self.block.fields[name][1] for name in _OUTPUTS]
        self.blocks = Blocks(2)  # the outputs' last blocks (the step's commands hold the last one while it runs)
        self.pointed = None  # the block the struct's output pointers point into
        self.state_at = ctypes.addressof(c) + getattr(_Commands, _STATE_FIELDS[0]).offset  # (the state's addresses)


# the batch's `_Layout`, made again where one of the parameters it reads was replaced since (sim/memo.py)
_LAYOUTS = LastValue(*(name for name, _ in _PARAMS), "all_standard", "all_wheels")


def standard_commands(p: SimParams, s: SimState, dt: float, unbraked: np.ndarray):
    """(throttle, gear command, drive_applied, drive torques, how many vehicles start a gear change) of
    commands.update_commands for a batch of standard drives: the autobox (its timers and flags updated in place), the
    gear command, the engine's drive flags (engaged, with the gear the step will have, & unbraked: the wheels not
    braked and on the differential), the drive torques (zeros, float32 as the wheel drive torque commands are); None
    where the call does not cover the batch, its state or dt (numpy's then). The caller starts the gear changes
    (commands.gear_command_update, whose test the count is)."""
    if _LIB is None or type(dt) is not float:
        return None
    layout = _LAYOUTS.get(p, None, lambda: _Layout(p))
    if not layout.covered:
        return None
    if (unbraked.shape != (p.V, p.W) or s.wheel_drive_torque.dtype != _DRIVE_TORQUE
            or not write_kind_addresses(_state(s) + (unbraked,), _KINDS, layout.state_at)):
        return None
    c = layout.call
    c.dt = dt
    # the outputs' block: the last call's where no one holds its arrays any more (sim/memo.py Blocks), else a new one
    kept = layout.blocks.spare()
    if kept is None:
        raw = np.empty(layout.block.itemsize, np.uint8)  # (a byte buffer: its address at once)
        base = address(raw)
        kept = layout.blocks.keep(raw, _outputs(np.ndarray((), layout.block, raw)),
                                  [base + at for at in layout.bytes])
    if layout.pointed is not kept:  # (the outputs' pointers: set where the block is another than the last call's)
        c.throttle, c.command, c.drive_applied, c.drive_torque = kept[3]
        layout.pointed = kept
    starts = _LIB.pvu_standard_commands(c)
    return (*kept[1], starts)
