"""Simulation core following PhysX vehicle2: numpy kernels, one module per subsystem, `pipeline.step` as the
sequence; the substeps of the batches it covers also as one compiled kernel (`compiled`, `_substeps.c`).

The names below load on first use, so that a module of the core (vecmath for the parameter builder) can be
imported without the whole simulator."""
from __future__ import annotations

import importlib

_EXPORTS = {"Ground": "ground", "GuardOptions": "guard", "StepOptions": "pipeline", "step": "pipeline",
            "Simulator": "simulator", "SimParams": "state", "SimState": "state", "initial_state": "state"}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
