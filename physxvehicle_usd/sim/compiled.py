"""The compiled substeps (sim/_substeps.c): what they cover, and the call that runs them.

`pipeline.step` runs every substep of a step in one call to `run_substeps` when `covers(p)` says the batch
is one the C kernel implements: float32, constant compliance graphs, no tank differential, at most 16
wheels a vehicle. Everything else (float64 batches, jounce-dependent compliance, tanks) runs the numpy
kernels, which stay the reference: tests/test_sim_compiled.py steps the same stages both ways.

The extension is built by `pip install` (setup.py) with the machine's C compiler. Without it,
`available()` is False and every batch runs numpy, a few times slower at fleet sizes.
"""
from __future__ import annotations

import ctypes
import operator
import weakref
from operator import is_not
from typing import NamedTuple

import numpy as np

from ..runtime.vehicle2 import NEUTRAL_GEAR
from .declare import FLT_MIN
from .extension import address, copy_all, copy_into, copy_table, extension_path, open_extension
from .memo import Blocks
from .state import SimParams, SimState
from .subsystems import DERIVED, PARAMS, STATES

# Field kinds: scalars (int64, float), or the element type of an array the field points into. Pointers are set
# as addresses (an int assigns several times faster than ctypes' typed pointers; the C side has the types).
_I64, _FLOAT = "int64", "float"
_SCALAR_CTYPES = {_I64: ctypes.c_int64, _FLOAT: ctypes.c_float}
_F32, _I32, _P64 = np.float32, np.int32, np.int64

# the per-wheel outputs the kernel writes, by the keys pipeline.telemetry_outputs gives them ((V, W), (3, V, W)
# and flags); the struct's fields are named _OUTPUT + key
_OUTPUT = "out_"
_SCALAR_OUTPUTS = ("suspensionJounce", "tireFriction", "tireLongitudinalSlip", "tireLateralSlip", "tireLoad", "_lng_speed")
_VECTOR_OUTPUTS = ("suspensionForce", "tireForce", "_centre_offset", "_lng_dir", "_lat_dir", "_app_arm")
_FLAG_OUTPUTS = ("isOnGround",)


def _fields(kind, names: str) -> list:
    return [(name, kind) for name in names.split()]


# The batch's parameters the kernel reads, by the names the subsystems declare them under (their Params and Derived
# values with a kernel element type): the batch, SimParams and the struct carry each under that one name.
_KERNEL_PARAMETERS = [(value.name, value.kernel) for value in PARAMS + DERIVED if value.kernel is not None]

# The fields of the struct the kernel takes, in order: the C typedef is generated from this list
# (tools/generate_kernel_header.py writes _substeps_batch.h). Per vehicle arrays are (V,), per wheel (V, W), vectors
# component-first; flags int32.
_FIELDS = (
    # the batch's sizes and flags; dt is the whole step's (the rotation angles advance by it)
    _fields(_I64, "V W threads curve_points gear_columns neutral_gear any_sweep any_limit_expansion any_camber_stiffness")
    + _fields(_FLOAT, "flt_min dt")
    + _KERNEL_PARAMETERS
    # per vehicle, this step's inputs
    + _fields(_P64, "n_sub")
    + _fields(_F32, "dt_sub throttle")
    # per wheel, this step's inputs
    + _fields(_I32, "road_hit brake_applied drive_applied diff_connected")
    + _fields(_F32, "road_normal road_offset road_friction road_velocity offset axle axis_lat axis_lng brake_torque drive_torque "
                    "diff_ratio diff_ave")
    # the state the subsystems declare with a kernel element type, under its names: written in place where the
    # declaration says the kernel writes it (_STATE_FIELDS below)
    + [(state.name, state.kernel) for state in STATES if state.kernel is not None]
    # outputs of each vehicle's last substep
    + [(_OUTPUT + key, _F32) for key in _SCALAR_OUTPUTS + _VECTOR_OUTPUTS]
    + [(_OUTPUT + key, _I32) for key in _FLAG_OUTPUTS]
)


# the state the kernel writes: the substeps' and the rotation angles' after them (SimState and the struct share names)
_STATE_FIELDS = tuple(state.name for state in STATES if state.kernel_writes)
_STATE_READ = tuple(state.name for state in STATES if state.kernel is not None and not state.kernel_writes)
# the fields whose arrays the kernel writes (non-const pointers in C)
_WRITTEN = frozenset(_STATE_FIELDS) | {name for name, _ in _FIELDS if name.startswith(_OUTPUT)}


class _Batch(ctypes.Structure):
    """Mirror of `Batch` in _substeps_batch.h, which tools/generate_kernel_header.py writes from the same `_FIELDS`
    (the loader compares the two field by field)."""

    _fields_ = [(name, _SCALAR_CTYPES.get(kind, ctypes.c_void_p)) for name, kind in _FIELDS]


def _layout(lib: ctypes.CDLL) -> list[tuple[str, int, int]]:
    """(name, offset, size) of every field of the extension's Batch, in order (its pvu_batch_fields)."""
    names, offsets, sizes = (ctypes.POINTER(ctypes.c_char_p)(), ctypes.POINTER(ctypes.c_int64)(),
                             ctypes.POINTER(ctypes.c_int64)())
    lib.pvu_batch_fields.restype = ctypes.c_int64
    count = lib.pvu_batch_fields(ctypes.byref(names), ctypes.byref(offsets), ctypes.byref(sizes))
    return [(names[k].decode(), offsets[k], sizes[k]) for k in range(count)]


def _mirror_layout(mirror: type[ctypes.Structure] = _Batch) -> list[tuple[str, int, int]]:
    return [(name, getattr(mirror, name).offset, getattr(mirror, name).size) for name, _ in mirror._fields_]


def _first_mismatch(built: list, mirror: list) -> str | None:
    """The first field where the extension's layout and the mirror's differ, in words; None when they agree."""
    def said(field):
        return "missing" if field is None else f"{field[0]!r} at offset {field[1]} ({field[2]} bytes)"

    for k in range(max(len(built), len(mirror))):
        theirs = built[k] if k < len(built) else None
        ours = mirror[k] if k < len(mirror) else None
        if theirs != ours:
            return f"field {k} of Batch is {said(theirs)} in the extension, {said(ours)} in compiled.py's _FIELDS"
    return None


def _load() -> ctypes.CDLL | None:
    lib = open_extension()
    if lib is None:
        return None
    rebuild = "regenerate _substeps_batch.h (python tools/generate_kernel_header.py) and rebuild (pip install -e .)"
    if not hasattr(lib, "pvu_batch_fields"):
        raise ImportError(f"{extension_path()} predates the generated Batch layout: {rebuild}")
    mismatch = _first_mismatch(_layout(lib), _mirror_layout())
    if mismatch is not None:
        raise ImportError(f"{extension_path()} was built from another Batch: {mismatch}; {rebuild}")
    lib.pvu_substeps.argtypes = [ctypes.POINTER(_Batch)]
    lib.pvu_substeps.restype = ctypes.c_int
    return lib


_LIB = _load()
_FIELD_KIND = dict(_FIELDS)


def available() -> bool:
    """Whether the compiled extension is built and loaded."""
    return _LIB is not None


def covers(p: SimParams) -> bool:
    """Whether the C kernel implements every part of this batch's substeps."""
    return (_LIB is not None and p.dtype == _FLOAT32 and p.compliance_const and p.tank_ids.size == 0
            and p.W <= 16 and p.V > 0)


_FLOAT32 = np.dtype(np.float32)  # (a dtype compares with a dtype several times faster than with a scalar type)


# This step's inputs, by the kernel's field names, and their shapes ("V": per vehicle, "VW": per wheel, "3VW": a vector
# per wheel, component-first): each SimParams' struct keeps a buffer of each, filled every step (`_Prepared`)
_INPUT_SHAPES = {
    "n_sub": "V", "dt_sub": "V", "throttle": "V",
    **{name: "VW" for name in ("road_hit", "brake_applied", "drive_applied", "diff_connected", "road_offset",
                               "road_friction", "brake_torque", "drive_torque", "diff_ratio", "diff_ave")},
    **{name: "3VW" for name in ("road_normal", "road_velocity", "offset", "axle", "axis_lat", "axis_lng")},
}
_OUTPUT_KEYS = _SCALAR_OUTPUTS + _VECTOR_OUTPUTS + _FLAG_OUTPUTS
# the step's inputs in the order `run_substeps` lists them (road_velocity apart: zeros unless given): first those
# copied every step, then those that are the same arrays step after step while their values hold
# (pipeline.steered_geometry's, drivetrain.differential_state's and commands.brake_torques', kept by sim/memo.py and
# never written): copied only when another array comes
_FRESH_INPUTS = ("n_sub", "dt_sub", "throttle", "road_hit", "road_normal", "road_offset", "road_friction",
                 "drive_torque", "brake_applied", "drive_applied")
_HELD_INPUTS = ("offset", "axis_lat", "axis_lng", "brake_torque", "diff_ratio", "diff_ave", "diff_connected", "axle")
_ALIGN = 64  # the arrays of a step's block start at multiples of this many bytes


_TYPED = "as_"  # a step block's field of the state (or ground flags) in its own type: "as_" + its name


class _TypedLayout(NamedTuple):
    """Where a step block holds the state whose type is not the kernel's, and the wheels' ground flags, in their own
    types: `run_substeps` converts the kernel's results into them in one C call (extension.copy_all: the casts
    astype makes)."""

    differing: int  # the bit mask of those state fields, as extension.copy_all reports a step's
    indices: tuple  # their indices in _STATE_FIELDS
    names: tuple  # their names
    fields: tuple  # the block's fields of them in their own types, then the ground flags' (bool)
    table: object  # the copy table into those fields (offsets past the block's address; None: numpy's astype)


class _Typed(NamedTuple):
    """One step block's `_TypedLayout`: the kernel's arrays to convert (the state's, then the ground flags'), the copy
    table and the block's address, and the arrays of the state's own types (by `names`) and of the flags."""

    sources: tuple
    table: object
    base: int
    names: tuple
    state: tuple
    on_ground: np.ndarray


class _Prepared:
    """One SimParams' struct, set up once: the batch's parameters, a buffer for each of the step's inputs and for the
    state the kernel reads only, each pointed to once, and the layout of the block of new arrays each step gets for the
    state the kernel writes and its outputs (`step_arrays`).

    Setting a pointer field from an array costs a numpy ctypes object per field (`ndarray.ctypes`); the inputs are
    copied into the buffers instead, and a step's new arrays are views of one allocation whose address is read once."""

    def __init__(self, p: SimParams):
        self.batch = b = _Batch()
        self.arrays: dict[str, np.ndarray] = {}  # what the struct points into, kept alive with it
        b.V, b.W = p.V, p.W
        b.curve_points, b.gear_columns = p.torque_curve.shape[1], p.gear_ratios.shape[1]
        b.neutral_gear = NEUTRAL_GEAR
        b.any_sweep, b.any_limit_expansion, b.any_camber_stiffness = p.any_sweep, p.any_limit_expansion, p.any_camber_stiffness
        b.flt_min = FLT_MIN
        for name, _ in _KERNEL_PARAMETERS:
            self._point(name, np.ascontiguousarray(getattr(p, name), dtype=_FIELD_KIND[name]))
        shapes = {"V": (p.V,), "VW": (p.V, p.W), "3VW": (3, p.V, p.W)}
        self.inputs = {name: self._point(name, np.zeros(shapes[kind], _FIELD_KIND[name]))
                       for name, kind in _INPUT_SHAPES.items()}
        self.fresh_buffers = [self.inputs[name] for name in _FRESH_INPUTS]
        # the fresh inputs' buffers and the read state's (`state_read`'s, once it made them), and their copies' table
        # (one C call: extension.copy_into)
        self.input_buffers: list[np.ndarray] = self.fresh_buffers
        self.input_table = copy_table(self.input_buffers)
        self.held_buffers = [self.inputs[name] for name in _HELD_INPUTS]
        self.still_road = True  # road_velocity's buffer holds zeros (a road that does not move)
        # the last step's `_HELD_INPUTS`, as their buffers hold them
        self.last_held: tuple = (None,) * len(_HELD_INPUTS)
        self.read: dict[str, np.ndarray] = {}  # the state the kernel reads only, by name (`state_read`)
        # the step block's (state shapes, dtype, pointer slots, field offsets, copy table of the state fields)
        self.layout: tuple | None = None
        self.blocks = Blocks(_KEPT_BLOCKS)  # the last steps' blocks of the layout, for `step_arrays` to take again
        self.words = np.frombuffer(self.batch, np.int64, ctypes.sizeof(_Batch) // 8)  # the struct's memory

    def _point(self, name: str, array: np.ndarray) -> np.ndarray:
        self.arrays[name] = array
        setattr(self.batch, name, array.ctypes.data)
        return array

    def state_read(self, s: SimState) -> None:
        """Copy the state the kernel reads only into its buffers (allocated on the first step, from the state's
        shapes, and again where a shape changed; then `input_buffers` lists them after the fresh inputs' buffers)."""
        for name in _STATE_READ:
            value = getattr(s, name)
            buffer = self.read.get(name)
            if buffer is None or buffer.shape != value.shape:
                buffer = self.read[name] = self._point(name, np.empty(value.shape, _FIELD_KIND[name]))
                self.input_buffers = self.fresh_buffers + [self.read[name] for name in _STATE_READ if name in self.read]
                self.input_table = copy_table(self.input_buffers)
            np.copyto(buffer, value, casting="unsafe")

    def copy_inputs(self, fresh: tuple, s: SimState) -> None:
        """Copy the step's fresh inputs (in _FRESH_INPUTS' order) and the state the kernel reads only into their
        buffers, as the kernel's element types (astype's casts): in one C call where the read state's buffers are of its
        shapes (extension.copy_all), else `state_read`'s way."""
        table = self.input_table
        if len(self.input_buffers) == len(_FRESH_INPUTS) + len(_STATE_READ) and table is not None:
            if copy_all(fresh + _state_read_values(s), table) is not None:
                return
        copy_into(fresh, table, self.fresh_buffers)
        self.state_read(s)

    def step_arrays(self, s: SimState, V: int, W: int) -> tuple[tuple, dict[str, np.ndarray], list, tuple | None]:
        """Arrays for this step no one else holds: the state the kernel writes, holding the state's values (in
        _STATE_FIELDS order), and the outputs (by key, a new dict); all fields of one structured block (a field's view
        costs a fraction of an array's own allocation), each field of the struct pointed at its view. Also (name,
        index of its view, dtype) of the state whose own type is not the kernel's (the caller converts those back),
        and the block's arrays of those types to convert them into (`_Typed`; None where the state's types are not
        the ones the block was laid out for).

        The block is one of the last steps' where no one else holds any of its arrays or a view of them (sim/memo.py
        `Blocks`: the state and the guard's snapshot have moved on to the last step's), else a new one.

        The state's values are copied into the block in one C call (extension.copy_into: numpy's casts), where each
        is C-contiguous and of the shape the block was laid out for; else by numpy, and a new layout where the shapes
        changed."""
        values = _state_values(s)
        layout = self.layout
        if layout is None:
            layout = self._new_layout(values, V, W)
        table = layout[4]
        kept = self.blocks.spare()
        if kept is None:
            kept = self._new_block(layout)
        base, views, pointers, outputs, conversions, typed = kept[3]
        differing = None if table is None else copy_all(values, table, base)
        if differing is None:  # (numpy's copies: another layout where the state's shapes changed)
            shapes = tuple(value.shape for value in values)
            if shapes != layout[0]:
                self._new_layout(values, V, W)
                return self.step_arrays(s, V, W)
            differing = 0
            for k, value in enumerate(values):
                np.copyto(views[k], value, casting="unsafe")
                differing |= (value.dtype != _KINDS[k]) << k
        self.words[layout[2]] = pointers
        # (the state of another type: replaced by the caller with the kernel's results converted to its type)
        converted = conversions.get(differing)
        if converted is None:
            converted = conversions[differing] = [(_STATE_FIELDS[k], k, values[k].dtype) for k in _STATE_RANGE
                                                  if differing >> k & 1]
        return views, outputs.copy(), converted, typed if differing == layout[5].differing else None

    def _new_block(self, layout: tuple) -> tuple:
        """A new block of `layout`, kept (`Blocks.keep`) with its address, the state's views, the struct's pointer
        words into it, the outputs by key, `step_arrays`' conversions by bit mask and its `_Typed`."""
        _, block, _, offsets, _, spec = layout
        raw = np.empty(block.itemsize, np.uint8)
        arrays = np.ndarray((), block, raw)  # (the constructor: half a view's checks)
        base = address(raw)
        views = _state_views(arrays)
        outputs = dict(zip(_OUTPUT_KEYS, _output_views(arrays)))
        typed = _Typed(tuple(views[k] for k in spec.indices) + (outputs["isOnGround"],), spec.table, base, spec.names,
                       tuple(arrays[name] for name in spec.fields[:-1]), arrays[spec.fields[-1]])
        # (no name here refers to one of the arrays alone: Blocks counts the references of what keeps them)
        return self.blocks.keep(raw, views + tuple(outputs.values()) + typed.state + (typed.on_ground,),
                                (base, views, base + offsets, outputs, {}, typed))

    def _new_layout(self, values: tuple, V: int, W: int) -> tuple:
        """The step block's layout for state of these values' shapes and types (`layout`)."""
        shapes = tuple(value.shape for value in values)
        fields = [(name, shape, np.dtype(_FIELD_KIND[name])) for name, shape in zip(_STATE_FIELDS, shapes)]
        fields += [(_OUTPUT + key, (3, V, W) if key in _VECTOR_OUTPUTS else (V, W),
                    np.dtype(_FIELD_KIND[_OUTPUT + key])) for key in _OUTPUT_KEYS]
        # after the struct's fields, the state of another type than the kernel's and the wheels' ground flags, in their
        # own types (`_Typed`)
        indices = [k for k, value in enumerate(values) if value.dtype != _KINDS[k]]
        typed = [(_TYPED + _STATE_FIELDS[k], shapes[k], values[k].dtype) for k in indices]
        typed.append((_TYPED + "isOnGround", (V, W), np.dtype(np.bool_)))
        every, size = [], 0  # (each array starts at a multiple of _ALIGN bytes)
        for _, shape, dtype in fields + typed:
            every.append(size)
            size += -(-int(np.prod(shape)) * dtype.itemsize // _ALIGN) * _ALIGN
        offsets, typed_offsets = every[:len(fields)], every[len(fields):]
        spec = _TypedLayout(sum(1 << k for k in indices), tuple(indices),
                            tuple(_STATE_FIELDS[k] for k in indices), tuple(name for name, _, _ in typed),
                            copy_table((np.empty(shape, dtype) for _, shape, dtype in typed), typed_offsets))
        block = np.dtype({"names": [name for name, _, _ in fields + typed],
                          "formats": [(dtype, shape) for _, shape, dtype in fields + typed],
                          "offsets": every, "itemsize": max(size, _ALIGN)})
        # the struct's pointer fields as int64 words (pointers sit at multiples of 8 bytes): one vector store
        # sets them all
        assert all(getattr(_Batch, name).offset % 8 == 0 for name, _, _ in fields)
        slots = np.array([getattr(_Batch, name).offset // 8 for name, _, _ in fields])
        # the state fields' copy table (offsets past a block's address; None: numpy copies them)
        table = copy_table((np.empty(shape, dtype) for _, shape, dtype in fields[:len(_STATE_FIELDS)]),
                           offsets[:len(_STATE_FIELDS)])
        self.layout = (shapes, block, slots, np.array(offsets, np.int64), table, spec)
        self.blocks.clear()  # (blocks of another layout: not taken again)
        return self.layout


_state_values = operator.attrgetter(*_STATE_FIELDS)  # the state the kernel writes, in _STATE_FIELDS order
# a step block's fields (`step_arrays`): the state's, in _STATE_FIELDS order, and the outputs', in _OUTPUT_KEYS order
_state_views = operator.itemgetter(*_STATE_FIELDS)
_output_views = operator.itemgetter(*(_OUTPUT + key for key in _OUTPUT_KEYS))
_STATE_RANGE = range(len(_STATE_FIELDS))
_KINDS = tuple(np.dtype(_FIELD_KIND[name]) for name in _STATE_FIELDS)  # their element types in the kernel
# the blocks a struct keeps (`_Prepared.step_arrays`): the state (and the guard's snapshot) holds the last step's, so
# the other is free again where no one else holds it
_KEPT_BLOCKS = 2


# the state the kernel reads only, in _STATE_READ order (a tuple of one too)
_state_read_values = (operator.attrgetter(*_STATE_READ) if len(_STATE_READ) > 1
                      else lambda s, name=_STATE_READ[0]: (getattr(s, name),))


_PREPARED: dict[int, _Prepared] = {}  # by id of a live SimParams (entries leave with it)


def _prepared(p: SimParams) -> _Prepared:
    """The struct of the batch's calls, built once per SimParams."""
    cached = _PREPARED.get(id(p))
    if cached is None:
        cached = _PREPARED[id(p)] = _Prepared(p)
        weakref.finalize(p, _PREPARED.pop, id(p), None)
    return cached


def run_substeps(p: SimParams, s: SimState, road, offset: np.ndarray, axle: np.ndarray | None, axes: tuple,
                 toe: np.ndarray, cmd: dict, diff, dt: float, dt_sub: np.ndarray, n_sub: np.ndarray,
                 threads: int = 1, road_velocity: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Every substep of this step for every vehicle, then the wheels' rotation angles: what pipeline.step's numpy
    loop and `wheel.update_rotation_angle` do. road_velocity (3, V, W): the velocity of what each wheel stands on
    (None: all still).

    Replaces the state arrays the substeps change with others (the numerical guard keeps the old ones as its
    snapshot): a block of arrays no one else holds, new or an earlier step's that nothing refers to any more
    (sim/memo.py Blocks). Returns the telemetry outputs of each vehicle's last substep (of that block too).
    """
    c = _prepared(p)
    batch = c.batch
    batch.threads = threads
    batch.dt = dt
    copy = np.copyto
    fresh = (n_sub, dt_sub, cmd["throttle"], road.hit, road.normal, road.offset, road.friction,  # in _FRESH_INPUTS
             cmd["drive_torque"], cmd["brake_applied"], cmd["drive_applied"])
    c.copy_inputs(fresh, s)  # (and the state the kernel reads only)
    held = (offset, axes[0], axes[1], cmd["brake_torque"], diff.torque_ratio, diff.ave_ratio, diff.connected,
            axle)  # in _HELD_INPUTS
    if any(map(is_not, held, c.last_held)):
        for buffer, value, before in zip(c.held_buffers, held, c.last_held):
            if value is not before and value is not None:  # (axle: read for sweeps only)
                copy(buffer, value, casting="unsafe")
        c.last_held = held
    if road_velocity is not None:
        copy(c.inputs["road_velocity"], road_velocity, casting="unsafe")
        c.still_road = False
    elif not c.still_road:
        c.inputs["road_velocity"].fill(0.0)
        c.still_road = True
    views, out, converted, typed = c.step_arrays(s, p.V, p.W)
    status = _LIB.pvu_substeps(ctypes.byref(batch))
    if status != 0:
        raise RuntimeError(f"compiled substeps failed with status {status}")
    state = vars(s)
    state.update(zip(_STATE_FIELDS, views))
    # back to the state's own types (bool flags, int64 gears) and bool ground flags: in one C call into the block's
    # arrays of those types where it has them, else numpy's astype
    if typed is not None and typed.table is not None and copy_all(typed.sources, typed.table, typed.base) is not None:
        state.update(zip(typed.names, typed.state))
        out["isOnGround"] = typed.on_ground
    else:
        for name, k, dtype in converted:
            state[name] = views[k].astype(dtype)
        out["isOnGround"] = out["isOnGround"].astype(bool)
    out["_toe"] = np.array(toe, dtype=p.dtype)
    return out
