"""Simulation state arrays (vehicle2 *States) and the component-first view of the batched params.

`SimParams.from_batch` converts a `VehicleBatch` (vehicle axis first, vectors last) into the layout the
kernels use (vectors first: (3, V) per vehicle, (3, V, W) per wheel) and precomputes what never changes
(suspension-frame rotation matrices, frame axes broadcast to wheels): every attribute it sets is a Param or a
Derived value a subsystem declares. `SimState` holds everything that changes each step, one field per `State` the
subsystems declare (sim/subsystems.py collects them) and the step's records; `initial_state` is each declaration's
initial value: vehicle2's setToDefault plus Omni's creation-time values.
"""
from __future__ import annotations

from dataclasses import field, make_dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing  # noqa: F401  (np.typing.DTypeLike)

from . import vecmath as vm
from .declare import Record, State
from .subsystems import DERIVED, PARAMS, STATES

if TYPE_CHECKING:
    from .batch import VehicleBatch


def _cast(value, dtype: np.dtype):
    """Floating arrays (alone or in a tuple) to `dtype`; everything else unchanged."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.dtype != dtype:
        return value.astype(dtype)
    if isinstance(value, tuple) and value and all(isinstance(x, np.ndarray) for x in value):
        return tuple(_cast(x, dtype) for x in value)
    return value


class SimParams(SimpleNamespace):
    """Read-only kernel view of a VehicleBatch: the declared parameters under their names (vectors component-first)
    and the declared derived values, nothing else. `edits` (not among them) counts the assignments to its attributes:
    sim/memo.py keeps a value while the count holds (no parameter replaced since), one comparison in place of one
    identity test per parameter the value was computed from."""

    __slots__ = ("__weakref__", "edits")

    def __init__(self, **values):
        object.__setattr__(self, "edits", 0)
        super().__init__(**values)

    def __setattr__(self, name: str, value) -> None:
        object.__setattr__(self, name, value)
        object.__setattr__(self, "edits", self.edits + 1)

    def __delattr__(self, name: str) -> None:
        object.__delattr__(self, name)
        object.__setattr__(self, "edits", self.edits + 1)

    @classmethod
    def from_batch(cls, b: VehicleBatch, dtype: np.typing.DTypeLike = np.float64) -> "SimParams":
        """`dtype`: the floating type of every real-valued array (the batch is float64). Each derived value is worked
        out in double from the parameters and the values declared before it; then every floating array is cast."""
        p = cls()
        p.dtype = np.dtype(dtype)
        for param in PARAMS:
            value = b.arrays[param.name]
            setattr(p, param.name, vm.components_first(value) if param.component_first else value)
        for derived in DERIVED:
            if derived.value is not None:
                setattr(p, derived.name, derived.value(p, b))
        for k, v in list(vars(p).items()):
            setattr(p, k, _cast(v, p.dtype))
        # the actor's damping stays double: its factor 1 - damping dt is formed in double and rounded once
        p.linear_damping, p.angular_damping = b.arrays["linear_damping"], b.arrays["angular_damping"]
        return p


# What a step keeps beside the subsystems' states: the numerical guard's verdict per vehicle (sim/guard.py), and the
# records with classes of their own that cut and join them.
STEP_STATES = (State("faulted", initial=False, dtype=bool, doc="frozen by the numerical guard (sim/guard.py)"),)
RECORDS = (
    Record("out", factory=dict, doc="per-step outputs kept for telemetry (values of the last substep)"),
    Record("time", 0.0, doc="seconds simulated"),
    Record("steps", 0, doc="steps taken"),
    Record("contacts", doc="the last step's contacts and their solved rows (sim/contact/records.py StepContacts)"),
    Record("friction", doc="the friction patches the last step's solve kept (sim/contact/records.py FrictionPatches)"),
    Record("manifolds", doc="the contact points PCM's manifolds keep (sim/contact/persistence.py Manifolds)"),
    Record("pair_friction", doc="the friction patches between vehicles (sim/contact/pairs.py)"),
    Record("pair_manifolds", doc="the manifolds two vehicles' boxes keep (sim/contact/pairs.py PairManifolds)"),
    Record("drivetrain_factors", doc="the engine drivetrain's last LU (sim/lu.py Factors), known again by its matrix"),
)

# Everything vehicle2 updates, batched, one field per declaration: per vehicle (V,) or (3, V), per wheel (V, W) or
# (3, V, W) (the declarations' shapes), then the records.
SimState = make_dataclass("SimState", [(state.name, "np.ndarray") for state in STATES + STEP_STATES] + [
    (record.name, "object", field(default_factory=record.factory) if record.factory else field(default=record.default))
    for record in RECORDS])
SimState.__module__ = __name__
SimState.__doc__ = "Everything vehicle2 updates, batched: the STATES the subsystems declare, and the step's RECORDS."

# The state a substep changes (the numpy substeps keep it for vehicles with fewer substeps; the compiled kernel
# writes it, and the rotation angles after it, into copies).
SUBSTEP_FIELDS = tuple(state.name for state in STATES if state.substep)
# those of them held per vehicle, (V,) or (k, V); the others per wheel
SUBSTEP_PER_VEHICLE = frozenset(state.name for state in STATES if state.substep and "W" not in state.shape)

# The per-vehicle state arrays (their vehicles on `vehicle_axis`); the records have classes of their own that cut
# and join them.
VEHICLE_ARRAYS = tuple(state.name for state in STATES + STEP_STATES)

# Component-first vectors (3 or 4, V) carry the vehicles on axis 1; every other state array on axis 0.
COMPONENT_FIRST = tuple(state.name for state in STATES + STEP_STATES if state.component_first)


def vehicle_axis(name: str) -> int:
    """The vehicle axis of the SimState array `name`."""
    return 1 if name in COMPONENT_FIRST else 0


def output_vehicle_axis(value: np.ndarray) -> int:
    """The vehicle axis of a per-step output in `SimState.out`: (3, V, W) vectors or (V, W) scalars."""
    return 1 if value.ndim == 3 else 0


def vehicle_rows(axis: int, rows) -> tuple:
    """Index of the vehicles `rows` (an index array or a slice) of an array whose vehicle axis is `axis`."""
    return (slice(None), rows) if axis == 1 else (rows,)


def initial_state(p: SimParams) -> SimState:
    """Every declared state at its initial value (vehicle2's setToDefault plus Omni's creation-time values)."""
    return SimState(**{state.name: state.initial_value(p) for state in STATES + STEP_STATES})


def copy_vehicle_rows(dst: SimState, src: SimState, rows: np.ndarray) -> None:
    """Every state array of the vehicles `rows` (an index array) from `src` into `dst`, in place."""
    for name in VEHICLE_ARRAYS:
        value = getattr(dst, name)
        if isinstance(value, np.ndarray):
            idx = vehicle_rows(vehicle_axis(name), rows)
            value[idx] = getattr(src, name)[idx]
