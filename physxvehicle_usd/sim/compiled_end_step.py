"""The compiled end of a step (sim/_end_step.c, in the extension sim/compiled.py loads) for a TGS scene's vehicles
without contacts: what it covers, and the call that runs it.

A step without contacts (a fleet braked at rest, rolling, landing on its suspension limits) needs from the PhysX end
of the step rigid_body.end_step_physx's damping, velocity limits, gyroscopic term and pose integration, and
row_solver's solves of the rows pipeline.constraint_rows lists: `_solve_soft_rows` for vehicles with sticky rows
only, `_solve_rows_tgs` for those with an active suspension-limit row. Here one C call does all of it from the
wheels' substep outputs, vehicle by vehicle: no row arrays, Jacobians or gains in numpy. The pose's rotations take
numpy's sine and cosine (as compiled_rows' solves do) and one more call (with each rotation's angular speed from the
first: a square root less per rotation). A step with contacts takes from here its
velocities before the rows alone (`end_velocity`: damping, limits, gyroscopic term), in any scene. The numpy path
stays the reference (tests/test_sim_end_step.py holds the two to each other, to the bit).
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

_P = ctypes.c_void_p


class _EndStep(ctypes.Structure):
    """Mirror of `EndStep` in _end_step.c (the loader compares its size with the extension's)."""

    _fields_ = ([(name, ctypes.c_int64) for name in "V W iterations velocity_iterations threads".split()]
                + [("dt", ctypes.c_double)]
                + [(name, _P) for name in
                   "linear_velocity angular_velocity orientation begin_position begin_orientation mass moi "
                   "linear_damping angular_damping max_linear_velocity max_angular_velocity gyroscopic "
                   "lng_dir lat_dir normal arm separation sticky_lng sticky_lat mask lng_ratio lat_ratio "
                   "linear_out angular_out position_out angular_steps half speed rotations".split()])


def _load() -> ctypes.CDLL | None:
    lib = open_extension("pvu_end_step")  # (an extension built before it: numpy ends the step)
    if lib is None:
        return None
    check_struct_size(lib, "pvu_end_step_size", _EndStep, "compiled_end_step.py")
    lib.pvu_end_step.argtypes = [ctypes.POINTER(_EndStep)]
    lib.pvu_end_step.restype = ctypes.c_int
    lib.pvu_rows_orientation_speeds.argtypes = [ctypes.c_int64, ctypes.c_int64, _P, _P, _P, _P, _P, _P]
    lib.pvu_rows_orientation_speeds.restype = ctypes.c_int
    lib.pvu_end_velocity.argtypes = [ctypes.POINTER(_EndStep)]
    lib.pvu_end_velocity.restype = ctypes.c_int
    return lib


_LIB = _load()

# the parameters the call reads, by the dtype it takes them in (the numpy path's promotions depend on them); the
# velocity call (`end_velocity`) reads the first ones alone
_VELOCITY_FLOAT32_PARAMS = ("moi", "max_linear_velocity", "max_angular_velocity")
_FLOAT32_PARAMS = _VELOCITY_FLOAT32_PARAMS + ("mass", "sticky_lng_damping_w", "sticky_lat_damping_w")
_FLOAT64_PARAMS = ("linear_damping", "angular_damping")



def available() -> bool:
    """Whether the extension with the compiled end of a step is built and loaded."""
    return _LIB is not None


class _Constants:
    """One SimParams' part of the call, set up once: whether its parameters are ones the C code covers (`covers`; the
    velocity call's: `velocity_covered`), and a struct with the sizes, iteration counts and parameter addresses filled in (a step then sets only its
    state's and outputs' addresses: the parameters' conversions and addresses cost a third of the marshalling)."""

    def __init__(self, p: SimParams):
        self.sources = _sources(p)
        self.velocity_covered = (p.V > 0 and p.gyroscopic.dtype == np.bool_
                                 and all(getattr(p, name).dtype == np.float32 for name in _VELOCITY_FLOAT32_PARAMS)
                                 and all(getattr(p, name).dtype == np.float64 for name in _FLOAT64_PARAMS))
        self.covered = (self.velocity_covered and not p.pgs.any()
                        and all(getattr(p, name).dtype == np.float32 for name in _FLOAT32_PARAMS)
                        and all((c == c[0]).all() for c in (p.position_iterations, p.velocity_iterations)))
        self.call = call = _EndStep()
        self.words = np.frombuffer(call, np.int64, ctypes.sizeof(_EndStep) // 8)  # the struct's memory
        self.keep: list[np.ndarray] = []  # what the struct points into, kept alive with it
        if not self.velocity_covered:
            return
        call.V, call.W = p.V, p.W
        self._point(("moi", p.moi), ("max_linear_velocity", p.max_linear_velocity),
                    ("max_angular_velocity", p.max_angular_velocity), ("linear_damping", p.linear_damping),
                    ("angular_damping", p.angular_damping), ("gyroscopic", p.gyroscopic))
        if not self.covered:
            return
        call.iterations = self.iterations = max(1, int(p.position_iterations[0]))
        call.velocity_iterations = int(p.velocity_iterations[0])
        self._point(("mass", p.mass), ("mask", p.mask))
        self.dampings = (p.sticky_lng_damping_w, p.sticky_lat_damping_w)
        self.ratio_dt: float | None = None  # the dt the sticky rows' ratios were set up for (`ratios`)
        V, n = p.V, self.iterations
        self.ratio_keep = len(self.keep)  # where `ratios` keeps its arrays
        # the outputs of a step in one allocation, a structured array's fields: velocities, position, angular steps,
        # half angles, angular speeds and the rotation counts (int64) (the last two read by the C calls alone), the
        # orientation and the half angles' sines and cosines; where each lies in it, by `_BLOCK`'s order
        self.block = np.dtype([("linear", np.float32, (3, V)), ("angular", np.float32, (3, V)),
                               ("position", np.float32, (3, V)), ("steps", np.float32, (n, 3, V)),
                               ("half", np.float32, (n, V)), ("speed", np.float32, (n, V)),
                               ("rotations", np.int64, (V,)),
                               ("orientation", np.float32, (4, V)), ("sine", np.float32, (n, V)),
                               ("cosine", np.float32, (n, V))], align=True)
        self.at = [self.block.fields[name][1] for name in _BLOCK]

    def ratios(self, dt: float) -> None:
        """Point the struct at the sticky rows' c h / (1 + c h) for this dt (row_solver._spring_gains' a / (1 + a),
        which each row's gain divides by its response): their damping c (float32, widened) over the substep
        h = dt / iterations, in double as the C code formed it each step before. Kept while dt stays."""
        h = dt / self.iterations
        ratios = []
        for damping in self.dampings:
            spring = np.ascontiguousarray(damping, np.float64) * h
            ratios.append(spring / (1.0 + spring))
        self.keep[self.ratio_keep:] = ratios
        self.call.lng_ratio, self.call.lat_ratio = (ratio.ctypes.data for ratio in ratios)
        self.ratio_dt = dt

    def _point(self, *fields: tuple[str, np.ndarray]) -> None:
        """Point the struct's fields at (contiguous copies of) these parameters."""
        for name, value in fields:
            array = np.ascontiguousarray(value)
            self.keep.append(array)
            setattr(self.call, name, array.ctypes.data)


# the parameters `_Constants` reads
_SOURCES = ("pgs", "position_iterations", "velocity_iterations", "mass", "moi", "max_linear_velocity",
            "max_angular_velocity", "sticky_lng_damping_w", "sticky_lat_damping_w", "linear_damping", "angular_damping",
            "gyroscopic", "mask")
_sources = operator.attrgetter(*_SOURCES)
# the batch's `_Constants`, built again where one of the parameters it read was replaced since (sim/memo.py)
_CONSTANTS = LastValue(*_SOURCES)


def _constants(p: SimParams) -> _Constants:
    return _CONSTANTS.get(p, None, lambda: _Constants(p))


def covers(p: SimParams, s: SimState, road_normal: np.ndarray) -> bool:
    """Whether the compiled end of a step implements this batch's: float32 state, substep outputs and road normals,
    the parameters' dtypes the numpy path promotes as the C code does, TGS only, one position and one velocity
    iteration count for the whole batch (row_solver solves the rows of each count apart, and which rows a group sweeps
    depends on its members)."""
    if _LIB is None or not _constants(p).covered:
        return False
    out = s.out
    return (s.linear_velocity.dtype == np.float32 and out["_lng_dir"].dtype == np.float32
            and out["_lat_dir"].dtype == np.float32 and out["_app_arm"].dtype == np.float32
            and s.separation.dtype == np.float32 and road_normal.dtype == np.float32)


# the state the call reads, by its field and the element type it takes
_STATE_INPUTS = (("linear_velocity", np.float32), ("angular_velocity", np.float32), ("orientation", np.float32),
                 ("begin_position", np.float32), ("begin_orientation", np.float32), ("lng_dir", np.float32),
                 ("lat_dir", np.float32), ("normal", np.float32), ("arm", np.float32), ("separation", np.float32),
                 ("sticky_lng", np.bool_), ("sticky_lat", np.bool_))  # flags read as uint8
_INPUT_DTYPES = tuple(np.dtype(dtype) for _, dtype in _STATE_INPUTS)
_INPUT_KINDS = Kinds(_INPUT_DTYPES)
# where their pointers lie in the struct, in int64 words (pointers sit at multiples of 8 bytes)
_INPUT_SLOTS = np.array([getattr(_EndStep, name).offset // 8 for name, _ in _STATE_INPUTS])
_dtype = operator.attrgetter("dtype")


def end_step(p: SimParams, s: SimState, road_normal: np.ndarray, begin_position: np.ndarray,
             begin_orientation: np.ndarray, dt: float, threads: int = 1) -> bool:
    """rigid_body.end_step_physx with the rows pipeline.constraint_rows makes, for a step without contacts, where
    `covers`: the state's velocities and pose replaced by the solved ones, and True. False (nothing done) where it
    does not cover the batch: numpy's end then. road_normal (3, V, W): the suspension-limit rows' direction (the road
    geometry's normal)."""
    if _LIB is None:
        return False
    const = _constants(p)
    if not const.covered:
        return False
    out = s.out
    state = (s.linear_velocity, s.angular_velocity, s.body_orientation, begin_position, begin_orientation,
             out["_lng_dir"], out["_lat_dir"], road_normal, out["_app_arm"], s.separation, s.sticky_lng, s.sticky_lat)
    # their addresses in one C call where each is C-contiguous and of its type (covers' types among them)
    at = kind_addresses(state, _INPUT_KINDS)
    if at is None:
        if not covers(p, s, road_normal):
            return False
        keep = [np.ascontiguousarray(value) for value in state]
        if not all(map(operator.eq, map(_dtype, keep), _INPUT_DTYPES)):  # a conversion would not round as numpy's
            # promotions do
            name, array, dtype = next((name, array, dtype) for (name, dtype), array in zip(_STATE_INPUTS, keep)
                                      if array.dtype != dtype)
            raise TypeError(f"compiled end of step: {name} is {array.dtype}, not {np.dtype(dtype)}")
        at = addresses(keep)
    V, n, call = p.V, const.iterations, const.call
    call.threads, call.dt = max(1, int(threads)), dt
    if dt != const.ratio_dt:
        const.ratios(float(dt))
    const.words[_INPUT_SLOTS] = at
    raw = np.empty(const.block.itemsize, np.uint8)  # (a byte buffer: its address at once)
    block = np.ndarray((), const.block, raw)
    base = address(raw)
    (call.linear_out, call.angular_out, call.position_out, call.angular_steps, call.half, call.speed, call.rotations,
     orientation_at, sine_at, cosine_at) = [base + at for at in const.at]
    status = _LIB.pvu_end_step(ctypes.byref(call))
    if status != 0:
        raise RuntimeError(f"compiled end of step failed with status {status}")
    half, orientation, sine, cosine = _rotation_fields(block)
    np.copyto(orientation, begin_orientation)  # (float32, as checked)
    np.sin(half, out=sine)  # numpy's, as vecmath.quat_integrate_exact takes them
    np.cos(half, out=cosine)
    _LIB.pvu_rows_orientation_speeds(n, V, orientation_at, call.angular_steps, call.speed, sine_at, cosine_at,
                                     call.rotations)
    s.linear_velocity, s.angular_velocity, s.body_position = _pose_fields(block)
    s.body_orientation = orientation
    return True


# the fields of `end_step`'s block, in the order of the pointers it sets
_BLOCK = ("linear", "angular", "position", "steps", "half", "speed", "rotations", "orientation", "sine", "cosine")
_rotation_fields = operator.itemgetter("half", "orientation", "sine", "cosine")
_pose_fields = operator.itemgetter("linear", "angular", "position")


# the state the velocity call reads (float32 each), and its outputs
_VELOCITY_INPUTS = ("linear_velocity", "angular_velocity", "orientation")
_VELOCITY_SLOTS = np.array([getattr(_EndStep, name).offset // 8 for name in _VELOCITY_INPUTS])
_VELOCITY_WORDS = tuple(getattr(_EndStep, name).offset // 8
                        for name in _VELOCITY_INPUTS + ("linear_out", "angular_out"))


def velocity_struct(p: SimParams) -> ctypes.Structure | None:
    """The batch's struct of `end_velocity`'s C call (`pvu_end_velocity`), its sizes and parameters' addresses in,
    where the call covers the batch's parameters, else None: for a caller that points the state and the outputs
    itself, each an array of float32 in C order, and sets dt (sim/_contact_rows.c `pvu_kept_tgs_step`, which forms
    the velocities straight into its solve's buffer). `velocity_words` names the words of those pointers. Take it
    again each step: it is made anew where a parameter it points at was replaced."""
    if _LIB is None:
        return None
    const = _constants(p)
    return const.call if const.velocity_covered else None


def velocity_words() -> tuple[int, ...]:
    """The 64-bit words of `velocity_struct`'s struct that hold the pointers its caller sets: the linear velocity,
    angular velocity and orientation (3, V) read, the linear and angular velocity (3, V) written."""
    return _VELOCITY_WORDS


def end_velocity(p: SimParams, s: SimState, dt: float) -> bool:
    """rigid_body.end_step_physx's damping, velocity limits and gyroscopic term in one C call (the same bits), where
    the batch's parameters, state and dt are what the C code takes as numpy promotes them: float32 velocities and
    orientation, a Python float dt. False (nothing done) elsewhere: numpy's turn."""
    if _LIB is None or type(dt) is not float:
        return False
    const = _constants(p)
    if not const.velocity_covered:
        return False
    state = (s.linear_velocity, s.angular_velocity, s.body_orientation)
    if not all(array.dtype == np.float32 and array.flags.c_contiguous for array in state):
        return False
    V, call = p.V, const.call
    call.dt = dt
    const.words[_VELOCITY_SLOTS] = addresses(state)
    block = np.empty((6, V), np.float32)
    call.linear_out = base = address(block)
    call.angular_out = base + 4 * 3 * V
    status = _LIB.pvu_end_velocity(ctypes.byref(call))
    if status != 0:
        raise RuntimeError(f"compiled end of step's velocities failed with status {status}")
    s.linear_velocity, s.angular_velocity = block[:3], block[3:]
    return True
