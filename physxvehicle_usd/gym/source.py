"""Where an environment's vehicles come from: copies of one asset's vehicle, or a stage's vehicles; read whole, or one
contiguous range of them (a Ray shard reads its own range on its own node: nothing of the fleet's size travels).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..sim.batch import VehicleBatch
from ..sim.ground import Ground
from .copies import repeat_vehicle


@dataclass(frozen=True)
class FleetSource:
    """source: a stage's path or an open Usd.Stage. copies: that many copies of its one vehicle (the one at
    `vehicles[0]` when given); None: its vehicles (all, or those of `vehicles`), read as `simulate.load` reads them."""

    source: Any
    dt: float
    copies: int | None = None
    vehicles: tuple[str, ...] | None = None

    def read(self, rows: slice | None = None) -> tuple[VehicleBatch, Ground]:
        """The fleet's batch (or the rows `rows` of it: the same arrays, bit for bit) and its ground."""
        from ..simulate import load

        loaded = load(self.source, self.dt, list(self.vehicles) if self.vehicles else None)
        batch, ground = loaded.simulator.batch, loaded.simulator.ground
        if self.copies is None:
            return (batch if rows is None else batch.select(rows)), ground
        if len(loaded.paths) != 1:
            raise ValueError(f"{self.source} has {len(loaded.paths)} vehicles ({', '.join(loaded.paths[:3])}"
                             f"{', ...' if len(loaded.paths) > 3 else ''}): name the one to copy with vehicle=")
        start, stop, _ = (rows or slice(None)).indices(self.copies)
        return repeat_vehicle(batch, stop - start, first=start), ground

    def portable(self) -> "FleetSource":
        """This source as processes on other nodes can read it: the stage by its absolute path (the file must be on a
        file system they mount at the same path). ValueError for an open stage, which lives in this process only."""
        if not isinstance(self.source, (str, os.PathLike)):
            raise ValueError("ray_shards: each Ray actor reads the stage itself, so give it as a file path (an open "
                             "Usd.Stage lives in this process only: export it first, stage.Export(path))")
        return FleetSource(os.path.abspath(os.fspath(self.source)), self.dt, self.copies, self.vehicles)
