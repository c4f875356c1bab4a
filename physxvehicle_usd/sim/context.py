"""The vehicle's frame, length scale and simulation context (PxVehicleFrame, PxVehicleScale and the context values
Omni sets per vehicle): the parameters every subsystem reads, and the sub-step count of a step (1.3)."""
from __future__ import annotations

import numpy as np

from ..runtime.vehicle2 import DRIVE_NONE
from .declare import F32, I32, Derived, Param
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
# what SimParams.from_batch derives for the compiled kernel
DERIVED = (Derived("mask", I32),)  # wheel_mask


def substep_counts(p: SimParams, forward_speed: np.ndarray) -> np.ndarray:
    """1.3: low count below the threshold of |forward speed|, high count above."""
    return np.where(np.abs(forward_speed) < p.substep_threshold_speed, p.low_speed_substeps, p.high_speed_substeps)
