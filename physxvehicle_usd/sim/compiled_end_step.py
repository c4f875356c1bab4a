"""The compiled end of a step (sim/_end_step.c, in the extension sim/compiled.py loads) for a TGS scene's vehicles
without contacts: what it covers, and the call that runs it.

A step without contacts (a fleet braked at rest, rolling, landing on its suspension limits) needs from the PhysX end
of the step rigid_body.end_step_physx's damping, velocity limits, gyroscopic term and pose integration, and
row_solver's solves of the rows pipeline.constraint_rows lists: `_solve_soft_rows` for vehicles with sticky rows
only, `_solve_rows_tgs` for those with an active suspension-limit row. Here one C call does all of it from the
wheels' substep outputs, vehicle by vehicle: no row arrays, Jacobians or gains in numpy. The pose's rotations take
numpy's sine and cosine (as compiled_rows' solves do) and one more call. The numpy path stays the reference
(tests/test_sim_end_step.py holds the two to each other, to the bit).
"""
from __future__ import annotations

import ctypes
import importlib.util
from typing import TYPE_CHECKING

import numpy as np

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
                   "lng_dir lat_dir normal arm separation sticky_lng sticky_lat mask lng_damping lat_damping "
                   "linear_out angular_out position_out angular_steps half rotations".split()])


def _load() -> ctypes.CDLL | None:
    spec = importlib.util.find_spec(f"{__package__}._substeps")
    if spec is None or not spec.origin:
        return None
    lib = ctypes.CDLL(spec.origin)
    if not hasattr(lib, "pvu_end_step"):  # an extension built before it: numpy ends the step
        return None
    lib.pvu_end_step_size.restype = ctypes.c_int64
    if lib.pvu_end_step_size() != ctypes.sizeof(_EndStep):
        raise ImportError(f"{spec.origin} was built from another EndStep ({lib.pvu_end_step_size()} bytes, "
                          f"compiled_end_step.py's mirror {ctypes.sizeof(_EndStep)}): rebuild (pip install -e .)")
    lib.pvu_end_step.argtypes = [ctypes.POINTER(_EndStep)]
    lib.pvu_end_step.restype = ctypes.c_int
    lib.pvu_rows_orientation.argtypes = [ctypes.c_int64, ctypes.c_int64, _P, _P, _P, _P, _P]
    lib.pvu_rows_orientation.restype = ctypes.c_int
    return lib


_LIB = _load()

# the parameters the call reads, by the dtype it takes them in (the numpy path's promotions depend on them)
_FLOAT32_PARAMS = ("mass", "moi", "max_linear_velocity", "max_angular_velocity", "sticky_lng_damping_w",
                   "sticky_lat_damping_w")
_FLOAT64_PARAMS = ("linear_damping", "angular_damping")


def _address(array: np.ndarray) -> int:
    """The address of a contiguous array's data: through the buffer protocol where the array is writable (a third of
    the time `array.ctypes.data` takes, and a step passes some thirty arrays)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):  # read-only, or empty
        return array.ctypes.data


def available() -> bool:
    """Whether the extension with the compiled end of a step is built and loaded."""
    return _LIB is not None


def covers(p: SimParams, s: SimState, road_normal: np.ndarray) -> bool:
    """Whether the compiled end of a step implements this batch's: float32 state, substep outputs and road normals,
    the parameters' dtypes the numpy path promotes as the C code does, TGS only, one position and one velocity
    iteration count for the whole batch (row_solver solves the rows of each count apart, and which rows a group sweeps
    depends on its members)."""
    if _LIB is None or p.pgs.any():
        return False
    wheels = (s.out["_lng_dir"], s.out["_lat_dir"], s.out["_app_arm"], s.separation, road_normal)
    if s.linear_velocity.dtype != np.float32 or any(a.dtype != np.float32 for a in wheels):
        return False
    if any(getattr(p, name).dtype != np.float32 for name in _FLOAT32_PARAMS):
        return False
    if any(getattr(p, name).dtype != np.float64 for name in _FLOAT64_PARAMS):
        return False
    counts = (p.position_iterations, p.velocity_iterations)
    return all((c == c[0]).all() for c in counts) if p.V else False


def end_step(p: SimParams, s: SimState, road_normal: np.ndarray, begin_position: np.ndarray,
             begin_orientation: np.ndarray, dt: float, threads: int = 1) -> None:
    """rigid_body.end_step_physx with the rows pipeline.constraint_rows makes, for a step without contacts, where
    `covers`: the state's velocities and pose replaced by the solved ones. road_normal (3, V, W): the suspension-limit
    rows' direction (the road geometry's normal)."""
    V, W = p.V, p.W
    n = max(1, int(p.position_iterations[0]))
    call, keep = _EndStep(), []

    def set_array(name: str, value, dtype) -> np.ndarray:
        array = np.ascontiguousarray(value)
        if array.dtype != dtype:  # a conversion would not round as numpy's promotions do
            raise TypeError(f"compiled end of step: {name} is {array.dtype}, not {np.dtype(dtype)}")
        keep.append(array)
        setattr(call, name, _address(array))
        return array

    call.V, call.W, call.iterations, call.threads, call.dt = V, W, n, max(1, int(threads)), dt
    call.velocity_iterations = int(p.velocity_iterations[0])
    for name, value in (("linear_velocity", s.linear_velocity), ("angular_velocity", s.angular_velocity),
                        ("orientation", s.body_orientation), ("begin_position", begin_position),
                        ("begin_orientation", begin_orientation), ("mass", p.mass), ("moi", p.moi),
                        ("max_linear_velocity", p.max_linear_velocity),
                        ("max_angular_velocity", p.max_angular_velocity), ("lng_dir", s.out["_lng_dir"]),
                        ("lat_dir", s.out["_lat_dir"]), ("normal", road_normal), ("arm", s.out["_app_arm"]),
                        ("separation", s.separation), ("lng_damping", p.sticky_lng_damping_w),
                        ("lat_damping", p.sticky_lat_damping_w)):
        set_array(name, value, np.float32)
    set_array("linear_damping", p.linear_damping, np.float64)
    set_array("angular_damping", p.angular_damping, np.float64)
    for name, value in (("gyroscopic", p.gyroscopic), ("sticky_lng", s.sticky_lng), ("sticky_lat", s.sticky_lat),
                        ("mask", p.mask)):
        set_array(name, value, bool)  # read as uint8
    velocity = np.empty((6, V), np.float32)  # one array: a group of the whole fleet is solved into it
    linear = set_array("linear_out", velocity[:3], np.float32)
    angular = set_array("angular_out", velocity[3:], np.float32)
    position = set_array("position_out", np.empty((3, V), np.float32), np.float32)
    steps = set_array("angular_steps", np.empty((n, 3, V), np.float32), np.float32)
    half = set_array("half", np.empty((n, V), np.float32), np.float32)
    rotations = set_array("rotations", np.empty(V, np.int64), np.int64)
    status = _LIB.pvu_end_step(ctypes.byref(call))
    if status != 0:
        raise RuntimeError(f"compiled end of step failed with status {status}")
    orientation = np.array(begin_orientation, np.float32, order="C")
    sine, cosine = np.sin(half), np.cos(half)  # numpy's, as vecmath.quat_integrate_exact takes them
    _LIB.pvu_rows_orientation(n, V, _address(orientation), _address(steps), _address(sine), _address(cosine),
                              _address(rotations))
    s.linear_velocity, s.angular_velocity, s.body_position, s.body_orientation = linear, angular, position, orientation
