"""PhysX vehicle2 parameters of a stage's vehicles: the records (`params`) and how a description fills them
(`build`). The simulator's batched form of them is `sim.batch`."""
from __future__ import annotations

from .build import build_all_vehicle_params, build_vehicle_params  # noqa: F401  (the package's API)
from .params import *  # noqa: F403

__all__ = [name for name in dir() if not name.startswith("_") and name not in {"annotations", "build", "params"}]
