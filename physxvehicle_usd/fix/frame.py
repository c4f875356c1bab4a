"""The custom data physxVehicle:referenceFrameIsCenterOfMass, written where a vehicle lacks it (V81).

Omniverse Kit reads a missing flag as True (wheel and suspension frames relative to the centre of mass); ovphysx
0.7 takes those frames relative to the centre of mass whatever the flag says (read/readings.py). Where the centre of
mass is the prim's origin with unturned principal axes the two frames are one, and False (what every NVIDIA sample
authors, and no deprecation) changes no value for either reader. Elsewhere True is written: the value both
readers use, so that the asset says what it means; turning it into False would move the wheels for ovphysx.
The same holds for an authored True (deprecated): it becomes False only where the two frames are one.
"""
from __future__ import annotations

import numpy as np
from pxr import Usd

from ..description import VehicleDescription
from ..read.context import REFERENCE_FRAME_KEY
from ..repairs import Edit, Repair


def _frames_coincide(vehicle: VehicleDescription) -> bool:
    rb = vehicle.rigidBody
    com = np.asarray(rb.get("centerOfMass") or (0.0, 0.0, 0.0), dtype=float)
    axes = np.abs(np.asarray(rb.get("principalAxes") or (1.0, 0.0, 0.0, 0.0), dtype=float))
    return not com.any() and bool(np.allclose(axes, (1.0, 0.0, 0.0, 0.0)))


def reference_frame_repair(stage: Usd.Stage, vehicle: VehicleDescription) -> tuple[Repair | None, str]:
    prim = stage.GetPrimAtPath(vehicle.path)
    authored = prim.GetCustomDataByKey(REFERENCE_FRAME_KEY) if prim else None
    if _frames_coincide(vehicle):
        value, why = False, ("the centre of mass is the prim's origin and the principal axes are unturned: both "
                             "frames are one, and False is no deprecation")
    elif authored is None:
        value, why = True, ("what Omniverse Kit assumes when the flag is missing and the frame ovphysx uses anyway: "
                            "the wheels stay where both read them")
    else:
        return None, ("the centre of mass is not the prim's origin: False would move the wheels for ovphysx, which "
                      "takes the frames relative to the centre of mass whatever the flag says")
    edit = Edit(op="set_custom_data", prim=vehicle.path, property=REFERENCE_FRAME_KEY, value=value, why=why)
    return Repair(summary=f"set custom data {REFERENCE_FRAME_KEY} = {value} on {vehicle.path}: {why}",
                  edits=(edit,)), ""
