"""The vehicle's subsystems in the pipeline's order, and what they declare (sim/declare.py): their parameters,
the values derived from them for the kernels, and their states.

`sim/batch.py` builds the batch from PARAMS, `sim/state.py` the kernels' view of it and `SimState` from PARAMS,
DERIVED and STATES, `sim/compiled.py` the kernel's struct fields. The subsystem modules import none of those at run
time (they name SimParams and SimState in annotations only), so that nothing here imports itself back.
"""
from __future__ import annotations

from . import commands, context, drivetrain, rigid_body, suspension, tire, wheel
from .declare import Derived, Param, State

SUBSYSTEMS = (context, rigid_body, commands, drivetrain, wheel, suspension, tire)
PARAMS: tuple[Param, ...] = tuple(param for module in SUBSYSTEMS for param in module.PARAMS)
DERIVED: tuple[Derived, ...] = tuple(value for module in SUBSYSTEMS for value in getattr(module, "DERIVED", ()))
STATES: tuple[State, ...] = tuple(state for module in SUBSYSTEMS for state in getattr(module, "STATES", ()))
