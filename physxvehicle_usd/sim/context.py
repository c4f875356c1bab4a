"""The vehicle's frame, length scale and simulation context (PxVehicleFrame, PxVehicleScale and the context values
Omni sets per vehicle): the parameters every subsystem reads, and the sub-step count of a step (1.3)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..runtime.vehicle2 import DRIVE_NONE
from . import vecmath as vm
from .declare import F32, I32, Derived, Param

if TYPE_CHECKING:  # (sim/state.py builds SimState from these modules' declarations)
    from .state import SimParams

PARAMS = (
    Param("drive_type", vehicle=lambda p: p.drive_type, dtype=np.int64, pad=DRIVE_NONE),
    Param("enabled", vehicle=lambda p: p.enabled, dtype=bool),
    Param("lng_axis", vehicle=lambda p: p.frame.lng_axis, shape=(3,), component_first=True, unit="1"),
    Param("lat_axis", vehicle=lambda p: p.frame.lat_axis, shape=(3,), component_first=True, unit="1"),
    Param("vrt_axis", vehicle=lambda p: p.frame.vrt_axis, shape=(3,), component_first=True, unit="1"),
    Param("length_scale", vehicle=lambda p: p.scale.scale, unit="length/m"),
    Param("gravity", vehicle=lambda p: p.context.gravity, shape=(3,), component_first=True, unit="length/s^2", kernel=F32),
    Param("update_acceleration", vehicle=lambda p: p.context.update_mode != "velocityChange", dtype=bool),
    Param("wheel_angle_threshold_speed", vehicle=lambda p: p.context.wheel_angle_threshold_speed, unit="length/s", kernel=F32),
    Param("substep_threshold_speed", vehicle=lambda p: p.context.substep_threshold_speed, unit="length/s"),
    Param("low_speed_substeps", vehicle=lambda p: p.context.low_speed_substeps, dtype=np.int64),
    Param("high_speed_substeps", vehicle=lambda p: p.context.high_speed_substeps, dtype=np.int64),
)
# what SimParams.from_batch derives: the batch's wheel mask (the compiled kernel's name for it is mask), sizes,
# paths and floating type, the frame axes ready to broadcast over wheels, |gravity|, a threshold repeated over wheels
DERIVED = (
    Derived("mask", I32, lambda p, b: b.wheel_mask),
    Derived("wheel_mask", value=lambda p, b: b.wheel_mask),
    Derived("nb_wheels", value=lambda p, b: b.nb_wheels),
    Derived("V", value=lambda p, b: b.wheel_mask.shape[0]),
    Derived("W", value=lambda p, b: b.wheel_mask.shape[1]),
    Derived("paths", value=lambda p, b: b.paths),
    Derived("wheel_paths", value=lambda p, b: b.wheel_paths),
    Derived("dtype"),  # the floating type of the kernels' arrays
    Derived("e_f", value=lambda p, b: p.lng_axis[:, :, None]),  # (3, V, 1)
    Derived("e_s", value=lambda p, b: p.lat_axis[:, :, None]),
    Derived("e_u", value=lambda p, b: p.vrt_axis[:, :, None]),
    Derived("g_mag", value=lambda p, b: np.sqrt(vm.dot(p.gravity, p.gravity))),
    Derived("wheel_angle_threshold_speed_w", value=lambda p, b: vm.per_wheel(b.wheel_angle_threshold_speed, p.W)),
    Derived("disabled_ids", value=lambda p, b: np.flatnonzero(~b.enabled)),  # vehicleEnabled false: sim/disabled.py
)


def substep_counts(p: SimParams, forward_speed: np.ndarray) -> np.ndarray:
    """1.3: low count below the threshold of |forward speed|, high count above."""
    return np.where(np.abs(forward_speed) < p.substep_threshold_speed, p.low_speed_substeps, p.high_speed_substeps)
