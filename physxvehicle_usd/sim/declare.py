"""How a subsystem declares its parameters, once: the batch arrays, the kernels' view and the C struct follow.

Each subsystem module of the simulator (context, rigid_body, commands, drivetrain, wheel, suspension, tire)
lists its parameters as `Param`s in a tuple named PARAMS: the array's name (the same in the batch, in
`SimParams` and in the compiled kernel's struct), where its value comes from (a description property, or a vehicle2
parameter record of `runtime.vehicle2` where VehicleGenerator changes the layout or the frame), its dtype, its shape after the vehicle (and wheel) axis, the padding value of
absent wheels or components, its unit, and whether the compiled kernel takes it (`kernel`: the C element type).
`sim/batch.py` builds the batch from these declarations alone, `SimParams.from_batch` keeps the names and adds the
`Derived` values the subsystems declare (each with the function that works it out), and `sim/compiled.py` derives the kernel's field list (and from it the generated C struct) from them.

What changes every step is declared the same way, as `State`s in a tuple named STATES (vehicle2's *State): `SimState`
and `initial_state` (sim/state.py) and the kernel's state fields follow. `sim/subsystems.py` collects the declarations;
no name is both a parameter and a state.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .. import properties as P
from ..json_values import canonical_value

F32, I32, I64 = np.float32, np.int32, np.int64  # the kernel's element types (int32 for flags)
FLT_MIN = float(np.finfo(np.float32).tiny)  # vehicle2's "in the air" separation marker
FLT_MAX = float(np.finfo(np.float32).max)

# where a property's resolved value sits in the description records, by schema: per wheel, per vehicle
WHEEL_BLOCKS = {P.WHEEL: "wheel", P.TIRE: "tire", P.SUSPENSION: "suspension", P.ATTACHMENT: "attachment",
                P.COMPLIANCE: "compliance", P.WHEEL_CONTROLLER: "wheelController"}
VEHICLE_BLOCKS = {P.VEHICLE: "vehicle", P.RIGID_BODY: "rigidBody", P.CONTEXT: "context", P.CONTROLLER: "controller",
                  P.TANK_CONTROLLER: "tankController"}
SCENE_BLOCK = P.SCENE  # read from the vehicle's scene (VehicleParams.scene: its own or the default scene, resolved)


@dataclass(frozen=True)
class Param:
    """One batch array. `source` (schema, property base name): the resolved value of that description property,
    through `transform` where the simulator wants it changed (already in stage units: the reader scaled it).
    Otherwise `vehicle` reads it from a VehicleParams, `wheel` from one of its WheelComponentParams (values that
    VehicleGenerator lays out or moves into the body frame); none of them: the batch fills it itself (masks,
    table ids). A value shorter than the array (fewer wheels, gears or points) fills its leading part; the rest
    keeps `pad`."""

    name: str
    source: tuple[str, str] | None = None
    transform: Callable[[Any], Any] | None = None
    vehicle: Callable[[Any], Any] | None = None
    wheel: Callable[[Any], Any] | None = None
    shape: tuple = ()          # after (V,) or (V, W): numbers, or "W" (wheels), "G" (gear columns), "P" (points)
    dtype: Any = float
    pad: Any = 0
    unit: str = ""
    component_first: bool = False  # SimParams holds it with its components first: (k, V) or (k, V, W)
    kernel: type | None = None     # the compiled kernel takes it, as this element type (F32, I32, I64)

    def __post_init__(self) -> None:
        if self.source is None:
            return
        schema, base = self.source
        change = self.transform or (lambda value: value)
        if schema == SCENE_BLOCK:
            object.__setattr__(self, "vehicle", lambda v: change(canonical_value(v.scene[base])))
        elif schema in WHEEL_BLOCKS:
            block = WHEEL_BLOCKS[schema]
            object.__setattr__(self, "wheel", lambda w: change(canonical_value(getattr(w.description, block)[base])))
        else:
            block = VEHICLE_BLOCKS[schema]
            object.__setattr__(self, "vehicle", lambda v: change(canonical_value(getattr(v.description, block)[base])))

    @property
    def per_wheel(self) -> bool:
        return self.wheel is not None or (bool(self.shape) and self.shape[0] == "W")

    def batch_shape(self, V: int, dims: dict[str, int]) -> tuple[int, ...]:
        trailing = tuple(dims[d] if isinstance(d, str) else d for d in self.shape)
        if self.wheel is not None:
            return (V, dims["W"], *trailing)
        return (V, *trailing)


@dataclass(frozen=True)
class Derived:
    """A value `SimParams.from_batch` computes from the batch for the kernels (a slope, a rotation, an arm, a flag
    saying which path the batch takes), declared where its subsystem uses it, with the element type the compiled
    kernel takes it as (None: numpy only). `value(p, batch)`: the value, from the `VehicleBatch` and what `p` (the
    SimParams being built, in double) already holds: every parameter, and the derived values declared before it.
    None: the builder sets it itself (the floating type it was asked for)."""

    name: str
    kernel: type | None = None
    value: Callable[[Any, Any], Any] | None = None



@dataclass(frozen=True)
class ContactParam:
    """One parameter of a pair of touching shapes, declared once: both shapes' resolved values of `source` (a
    collider's P.COLLISION block, or its material's P.MATERIAL block) combined as PhysX combines them, summed
    (`combine` None) or by the higher of the two materials' modes (`combine`: the P.MATERIAL combine-mode row). `name`
    is the pair table's (sim/contact/model.py ContactModel, PairModel) and, where `per_patch`, the
    solver rows' key of each contact patch."""

    name: str
    source: tuple[str, str]
    combine: str | None = None
    unit: str = ""
    per_patch: bool = True


CONTACT_PARAMS: tuple[ContactParam, ...] = (
    ContactParam("contact_distance", (P.COLLISION, "contactOffset"), unit="length", per_patch=False),
    ContactParam("rest_distance", (P.COLLISION, "restOffset"), unit="length"),
    ContactParam("static_friction", (P.MATERIAL, "staticFriction"), "frictionCombineMode", unit="1"),
    ContactParam("dynamic_friction", (P.MATERIAL, "dynamicFriction"), "frictionCombineMode", unit="1"),
    ContactParam("restitution", (P.MATERIAL, "restitution"), "restitutionCombineMode", unit="1"),
)
PATCH_PARAMS: tuple[str, ...] = tuple(p.name for p in CONTACT_PARAMS if p.per_patch)


@dataclass(frozen=True)
class State:
    """One state array of `SimState` (vehicle2's *State), batched: (V, *shape), or (k, V) with `component_first`.

    `initial`: the value at creation (vehicle2's setToDefault, or what Omni sets at creation), a number filled over
    the array, or a function of the `SimParams` giving the array. `dtype` float is the batch's floating type
    (SimParams.dtype). `substep`: a substep changes it (the numpy substeps keep it for the vehicles that have done
    theirs). `kernel`: the compiled kernel takes it, as this element type; it writes it where `kernel_writes`."""

    name: str
    initial: Any = 0.0
    shape: tuple = ()          # after (V,): numbers, or "W" (wheels)
    dtype: Any = float
    unit: str = ""
    component_first: bool = False
    substep: bool = False
    kernel: type | None = None
    kernel_writes: bool = False
    doc: str = ""

    def array_shape(self, V: int, W: int) -> tuple[int, ...]:
        trailing = tuple(W if d == "W" else d for d in self.shape)
        return (*trailing, V) if self.component_first else (V, *trailing)

    def initial_value(self, p: Any) -> np.ndarray:
        """The array at creation, for the vehicles of `p`, in the state's type."""
        dtype = p.dtype if self.dtype is float else np.dtype(self.dtype)
        if callable(self.initial):
            return np.asarray(self.initial(p)).astype(dtype)  # (a copy: every state owns its arrays)
        return np.full(self.array_shape(p.V, p.W), self.initial, dtype=dtype)


@dataclass(frozen=True)
class Record:
    """What a step keeps beside the state arrays (telemetry outputs, the clock, contact records): a `SimState`
    field with its default (`factory`: made anew for every state) and classes of its own that cut and join it."""

    name: str
    default: Any = None
    factory: Callable[[], Any] | None = None
    doc: str = ""
