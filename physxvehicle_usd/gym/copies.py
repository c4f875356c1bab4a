"""N copies of one vehicle as one batch, without reading N vehicles.

Reading a stage costs about a millisecond per vehicle; copies of one asset need it read once: its one-vehicle
batch is repeated along the vehicle axis (every batch array has the vehicles first). The copies share the asset's
pose: the simulator has no contact between vehicles, so they never meet, and each has the ground the asset has.
"""
from __future__ import annotations

import numpy as np

from ..sim.batch import VehicleBatch


def repeat_vehicle(batch: VehicleBatch, copies: int, first: int = 0) -> VehicleBatch:
    """`copies` copies of the one vehicle of `batch`, named `<path>[i]`, i counted from `first` (a range of a
    larger fleet's copies is that fleet's rows)."""
    if batch.nb_vehicles != 1:
        raise ValueError(f"repeat_vehicle takes a batch of one vehicle (got {batch.nb_vehicles})")
    if copies < 1:
        raise ValueError(f"need at least one copy (got {copies})")
    arrays = {}
    for key, value in batch.arrays.items():
        repeated = np.repeat(value, copies, axis=0)
        repeated.setflags(write=False)  # as batch() leaves its arrays: parameters never change
        arrays[key] = repeated
    path, wheels = batch.paths[0], batch.wheel_paths[0]
    return VehicleBatch(paths=tuple(f"{path}[{i}]" for i in range(first, first + copies)),
                        wheel_paths=(wheels,) * copies, arrays=arrays, friction_tables=batch.friction_tables)
