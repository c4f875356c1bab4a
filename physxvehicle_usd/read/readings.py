"""Two readings of one asset: Omniverse Kit's and ovphysx 0.7's.

The default, `Reading.OMNIVERSE`, is what the file means: the PhysX USD parser of Omniverse Kit (omni.physx's
usdLoad/Vehicle.cpp and VehicleGenerator.cpp) and USD's own value resolution. ovphysx 0.7 reads some assets
differently, and `Reading.OVPHYSX` reproduces its reading so that a user who will run an asset there can preview
what it will do:

- it ignores the custom data physxVehicle:referenceFrameIsCenterOfMass and takes wheel and suspension frames
  relative to the centre of mass whatever the flag says (every NVIDIA sample authors False);
- it applies no nonlinear command response (PhysxVehicleNonlinearCommandResponseAPI): every response is linear;
- it reads the controller attributes once, when it creates the vehicle (their default-time value, or the schema's
  fallback): time samples on them are no drive cycle there.

`ovphysx_divergences` says, vehicle by vehicle, where the two readings of a stage simulate differently; the
validator reports it (A08) and `read_stage(..., reading=Reading.OVPHYSX)` applies it, saying each change
(OVPHYSX_READING).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Iterator

import numpy as np
from pxr import Usd

from .. import properties as P
from ..description import Source, StageDescription, VehicleDescription
from ..diagnostics import DiagnosticSink
from ..errors import InputError
from .context import REFERENCE_FRAME_KEY

READING_CODE = "OVPHYSX_READING"


class Reading(str, Enum):
    OMNIVERSE = "omniverse"  # Omniverse Kit's PhysX USD parser and runtime: what the file means
    OVPHYSX = "ovphysx"      # ovphysx 0.7's reading of the same file

    @classmethod
    def of(cls, value: "Reading | str") -> "Reading":
        try:
            return cls(value)
        except ValueError:
            raise InputError(f"unknown reading {value!r}; known: {', '.join(r.value for r in cls)}") from None


@dataclass(frozen=True)
class Divergence:
    """One way ovphysx 0.7 simulates a vehicle differently from Omniverse Kit."""

    vehicle: str
    kind: str            # "reference frame", "nonlinear response", "drive cycle"
    prim: str
    property: str | None
    how: str             # what ovphysx does instead, and what it changes
    instance: str | None = None  # the nonlinear response's instance name
    samples: int = 0             # a drive cycle's time samples on this attribute


def _vertical_axis(description: StageDescription, vehicle: VehicleDescription) -> np.ndarray | None:
    from ..runtime.vehicle2 import AXIS_VECTORS

    context = description.vehicle_context(vehicle.path)
    token = context.get("verticalAxis") if context is not None else None
    return np.asarray(AXIS_VECTORS[token]) if token in AXIS_VECTORS else None


def _number(x: float) -> str:
    return f"{x:.6g}"


def _close_to_identity(quaternion: tuple) -> bool:
    """np.allclose(np.abs(quaternion), (1, 0, 0, 0)) with numpy's tolerances, for four numbers without numpy's cost
    per call (most of the A08 check's, vehicle by vehicle)."""
    return all(abs(abs(q) - r) <= 1e-8 + 1e-5 * r for q, r in zip(quaternion, (1.0, 0.0, 0.0, 0.0)))


def _reference_frame(description: StageDescription, vehicle: VehicleDescription) -> Iterator[Divergence]:
    if vehicle.vehicle.get("referenceFrameIsCenterOfMass") is not False:
        return  # True (authored or by default): both readings take the frames relative to the centre of mass
    rb = vehicle.rigidBody
    com = np.asarray(rb.get("centerOfMass") or (0.0, 0.0, 0.0), dtype=float) * np.asarray(rb.get("scale") or (1, 1, 1))
    axes = tuple(rb.get("principalAxes") or (1.0, 0.0, 0.0, 0.0))
    rotated = not _close_to_identity(axes) and any(axes)
    if not com.any() and not rotated:
        return  # the centre of mass is the prim origin: both frames are the same
    how = (f"ovphysx ignores the custom data {REFERENCE_FRAME_KEY} = False and takes the wheel and suspension frames "
           "relative to the centre of mass, not the prim origin")
    if com.any():
        how += f": they move by the centre-of-mass offset ({', '.join(_number(c) for c in com)}) (stage units)"
        up = _vertical_axis(description, vehicle)
        rise = -float(com @ up) if up is not None else 0.0
        if rise:
            how += f", so the body rides {_number(abs(rise))} {'higher' if rise > 0 else 'lower'} on its wheels"
    if rotated:
        how += f"{' and' if com.any() else ':'} they turn by the principal axes ({', '.join(_number(q) for q in axes)})"
    yield Divergence(vehicle.path, "reference frame", vehicle.path, None, how)


def _nonlinear_responses(vehicle: VehicleDescription) -> Iterator[Divergence]:
    for instance, block in sorted(vehicle.nonlinearCommandResponses.items()):
        if not block.get("commandValues"):
            continue  # no table: linear in both readings
        what = {"steer": "steer", "brakes0": "brake0", "brakes1": "brake1", "drive": "accelerator"}[instance]
        yield Divergence(vehicle.path, "nonlinear response", block.path, P.full_name(P.NCR, "commandValues", instance),
                         f"ovphysx applies no nonlinear command response: the {what} command acts linearly there, "
                         f"not through the {instance} response table ({len(block['commandValues'])} command values)",
                         instance)


def _drive_cycles(stage: Usd.Stage, description: StageDescription, paths: list[str]) -> dict[str, list[Divergence]]:
    """The drive-cycle divergences of the vehicles `paths`, by vehicle: one drive cycle read for all of them."""
    from ..simulate.drive_cycle import drive_cycle

    cycle = drive_cycle(stage, description, paths, [[w.path for w in description.vehicles[p].wheels] for p in paths])
    out: dict[str, list[Divergence]] = {path: [] for path in paths}
    for channel in cycle.channels:
        v = channel.vehicle
        base = cycle.base[channel.control][v] if channel.wheel is None else cycle.base[channel.control][v, channel.wheel]
        held = float(base) if not channel.deprecated else None
        if held is not None and np.all(channel.values == held):
            continue  # every sample is the value ovphysx holds: no difference
        span = (f"at time {_number(channel.times[0])}" if len(channel.times) == 1 else
                f"from time {_number(channel.times[0])} to {_number(channel.times[-1])}")
        value = "" if held is None else f" ({_number(held)})"
        out[paths[v]].append(Divergence(
            paths[v], "drive cycle", channel.prim, channel.attribute,
            f"ovphysx reads this controller attribute once, when it creates the vehicle, and holds that "
            f"value{value}: its {len(channel.times)} time sample(s) {span} are no drive cycle there",
            samples=len(channel.times)))
    return out


def ovphysx_divergences(stage: Usd.Stage, description: StageDescription) -> list[Divergence]:
    """Every way ovphysx 0.7 will simulate the stage's vehicles differently from Omniverse Kit, vehicle by vehicle."""
    paths = sorted(description.vehicles)
    cycles = _drive_cycles(stage, description, paths)
    out: list[Divergence] = []
    for path in paths:
        vehicle = description.vehicles[path]
        out += _reference_frame(description, vehicle)
        out += _nonlinear_responses(vehicle)
        out += cycles[path]
    return out


def apply_ovphysx_reading(stage: Usd.Stage, description: StageDescription, sink: DiagnosticSink) -> None:
    """Make the description ovphysx's reading of the stage, saying every change (an info OVPHYSX_READING each).
    The drive cycle is the simulator's to drop (`simulate.load(..., reading=...)`); it is said here."""
    for d in ovphysx_divergences(stage, description):
        vehicle = description.vehicles[d.vehicle]
        if d.kind == "reference frame":
            vehicle.vehicle.set("referenceFrameIsCenterOfMass", True, Source.COMPUTED)
        elif d.kind == "nonlinear response":
            vehicle.nonlinearCommandResponses.pop(d.instance, None)
        sink.info(READING_CODE, d.prim, d.how, d.property)
