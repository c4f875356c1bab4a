"""Vehicles whose physxVehicle:vehicleEnabled is false: no vehicle update, the actor a plain rigid body.

What omni.physx does (InternalScene.cpp, PhysXScene.cpp): its scene keeps the enabled vehicles first in its list and
PhysXStepper::updateVehicles steps only those (mEnabledVehicleCount), so a disabled vehicle's vehicle2 state stays as
it was created (setToRestState when one is disabled later: wheels, suspension, drive and constraint states to their
defaults, the actor's velocities 0) and its wheel transforms are not written (updateVehicleTransforms skips it). Its
actor stays in the scene, with the gravity omni.physx turns off on every vehicle actor (UsdInterface.cpp: vehicle2
applies gravity in its own update): it keeps its velocity, damped by the scene, and moves only where contacts push it.

Here the step runs every vehicle's update and `restore` then puts back, for the disabled ones, every state the update
changed (the body's velocities of the step's begin among them) before the scene's part of the step (the contacts, the
constraint rows, which stay inactive, and the pose integration), and reports their wheels at rest: no forces, no
steer, the wheel centres at full droop below the body, as a reset vehicle's (Simulator.reset). (omni.physx leaves the
wheel prims where the stage put them, which the simulator does not keep; ovphysx 0.7 reports them there, or at the
body's origin.)
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from . import vecmath as vm
from .state import VEHICLE_ARRAYS, output_vehicle_axis, vehicle_axis, vehicle_rows

if TYPE_CHECKING:
    from .state import SimParams, SimState

# the body's pose is the scene's: the PhysX end integrates it from the step's begin pose for every vehicle
_SCENE_OWNED = ("body_position", "body_orientation")
_HELD = tuple(name for name in VEHICLE_ARRAYS if name not in _SCENE_OWNED)
# the per-step outputs a disabled vehicle reports as 0 (telemetry's and the toe the steer angle output adds)
_ZERO_OUTPUTS = ("suspensionJounce", "suspensionForce", "tireForce", "tireFriction", "tireLongitudinalSlip",
                 "tireLateralSlip", "isOnGround", "tireLoad", "_toe")


def hold(p: SimParams, s: SimState) -> SimpleNamespace | None:
    """At the step's begin: the state of the disabled vehicles, to put back after the vehicle update (None: none)."""
    rows = p.disabled_ids
    if rows.size == 0:
        return None
    return SimpleNamespace(rows=rows, state={name: getattr(s, name)[vehicle_rows(vehicle_axis(name), rows)].copy()
                                             for name in _HELD})


def restore(p: SimParams, s: SimState, held: SimpleNamespace | None, cmd: dict) -> None:
    """After the vehicle update, before the scene's part of the step: the disabled vehicles' state as it was, their
    outputs at rest and their steer angle command 0 (what poses their wheel shapes and is reported as steer)."""
    if held is None:
        return
    rows = held.rows
    for name, value in held.state.items():
        getattr(s, name)[vehicle_rows(vehicle_axis(name), rows)] = value
    enabled = p.enabled[:, None]
    # new arrays: an output may be a state array itself or a parameter (a constant toe)
    for key in _ZERO_OUTPUTS:
        value = s.out.get(key)
        if value is not None:
            s.out[key] = np.where(enabled if output_vehicle_axis(value) == 0 else enabled[None], value,
                                  np.zeros((), value.dtype))
    if "_centre_offset" in s.out:
        offset = s.out["_centre_offset"].copy()
        R = vm.quat_to_mat(s.body_orientation[:, rows])
        offset[:, rows] = vm.matvec(R[:, :, :, None],
                                    (p.attachment_position + p.travel_direction * p.travel_distance)[:, rows])
        s.out["_centre_offset"] = offset
    cmd["steer_angle"] = np.where(enabled, cmd["steer_angle"], 0.0).astype(np.asarray(cmd["steer_angle"]).dtype)
