"""Simulation core following PhysX vehicle2: numpy kernels, one module per subsystem, `pipeline.step` as the
sequence; the substeps of the batches it covers also as one compiled kernel (`compiled`, `_substeps.c`)."""
from __future__ import annotations

from .ground import Ground
from .guard import GuardOptions
from .pipeline import StepOptions, step
from .simulator import Simulator
from .state import SimParams, SimState, initial_state

__all__ = ["Ground", "GuardOptions", "SimParams", "SimState", "Simulator", "StepOptions", "initial_state", "step"]
