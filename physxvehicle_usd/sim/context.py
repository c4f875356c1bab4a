"""The vehicle's frame, length scale and simulation context (PxVehicleFrame, PxVehicleScale and the context values
Omni sets per vehicle): the parameters every subsystem reads, and the sub-step count of a step (1.3)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..runtime.vehicle2 import DRIVE_NONE
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
# what the SimParams builder (sim/state.py) derives: the batch's sizes, paths and floating type, its wheel mask (the
# compiled kernel takes it), the frame axes broadcast to wheels, |gravity|, the context values repeated over wheels
DERIVED = (Derived("mask", I32),) + tuple(Derived(name) for name in (  # mask: wheel_mask
    "V", "W", "dtype", "paths", "wheel_paths", "wheel_mask", "nb_wheels", "e_f", "e_s", "e_u", "g_mag",
    "wheel_angle_threshold_speed_w"))


def substep_counts(p: SimParams, forward_speed: np.ndarray) -> np.ndarray:
    """1.3: low count below the threshold of |forward speed|, high count above."""
    return np.where(np.abs(forward_speed) < p.substep_threshold_speed, p.low_speed_substeps, p.high_speed_substeps)
