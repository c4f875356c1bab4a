"""Many vehicles as one structure of arrays, built from the subsystems' parameter declarations.

`batch(params)` stacks vehicle2 parameter records (`runtime.vehicle2.VehicleParams`) into a `VehicleBatch`:
one numpy array per declared `Param` (sim/declare.py), with a leading vehicle axis and, per wheel, a wheel axis
padded to the largest wheel count (`wheel_mask` tells real wheels from padding). Vehicles of every drive type
share one batch. Which arrays there are, their shapes, dtypes and padding is said by the declarations alone
(`PARAMS` of context, rigid_body, commands, drivetrain, wheel, suspension and tire); this module only stacks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..description import StageDescription
from ..runtime.vehicle2 import FrictionTableParams, VehicleParams, VehicleParamsError, build_vehicle_params
from . import commands, context, drivetrain, rigid_body, suspension, tire, wheel
from .declare import Derived, Param

SUBSYSTEMS = (context, rigid_body, commands, drivetrain, wheel, suspension, tire)
PARAMS: tuple[Param, ...] = tuple(param for module in SUBSYSTEMS for param in module.PARAMS)
DERIVED: tuple[Derived, ...] = tuple(value for module in SUBSYSTEMS for value in getattr(module, "DERIVED", ()))
MIN_DIMS = {"G": 3, "P": 1}  # gear columns: reverse, neutral and first at least; nonlinear points: one


@dataclass(frozen=True)
class VehicleBatch:
    """Many vehicles as numpy arrays: axis 0 = vehicle, axis 1 = wheel (padded; see `wheel_mask`).

    Array names are the declared parameters' (see PARAMS). Per-wheel vectors are (V, W, 3), quaternions
    (V, W, 4) as (w, x, y, z). Padding entries hold the declaration's pad value; counts say what is real.
    """

    paths: tuple[str, ...]
    wheel_paths: tuple[tuple[str, ...], ...]
    arrays: dict[str, np.ndarray] = field(repr=False)
    friction_tables: tuple[FrictionTableParams, ...] = ()

    def __getattr__(self, name: str) -> np.ndarray:
        arrays = self.__dict__.get("arrays")
        if arrays is not None and name in arrays:
            return arrays[name]
        raise AttributeError(name)

    @property
    def nb_vehicles(self) -> int:
        return len(self.paths)

    @property
    def max_wheels(self) -> int:
        return int(self.arrays["wheel_mask"].shape[1])

    def select(self, rows: slice) -> "VehicleBatch":
        """The vehicles `rows` as a batch of their own: views of these arrays, same wheel padding and friction tables."""
        return VehicleBatch(paths=self.paths[rows], wheel_paths=self.wheel_paths[rows],
                            arrays={key: value[rows] for key, value in self.arrays.items()},
                            friction_tables=self.friction_tables)


def _dims(values: dict[str, list], W: int) -> dict[str, int]:
    """The batch's sizes of the symbolic axes: the largest any vehicle needs (at least MIN_DIMS)."""
    dims = {"W": W, **MIN_DIMS}
    for param in PARAMS:
        for axis, symbol in enumerate(param.shape):
            if isinstance(symbol, str) and symbol != "W" and param.name in values:
                dims[symbol] = max([dims[symbol]] + [np.shape(v)[axis] for v in values[param.name] if np.ndim(v) > axis])
    return dims


def _stack(param: Param, values: list, shape: tuple[int, ...], mask: np.ndarray) -> np.ndarray:
    out = np.full(shape, param.pad, dtype=param.dtype)
    rows = out[mask] if param.wheel is not None else out  # one value per real wheel (mask order) or per vehicle
    try:
        stacked = np.asarray(values, dtype=param.dtype)
    except ValueError:  # values of different lengths
        stacked = None
    if stacked is not None and stacked.shape == rows.shape:
        rows[...] = stacked
    else:  # values shorter than the batch's rows (fewer wheels, gears, points) fill a prefix
        for i, value in enumerate(values):
            if len(value) == 0:  # nothing of this kind (no compliance graph, no nonlinear table, no tank)
                continue
            value = np.asarray(value, dtype=param.dtype)
            rows[(i, *(slice(0, n) for n in value.shape))] = value
    if param.wheel is not None:
        out[mask] = rows
    return out


def batch(params: Sequence[VehicleParams]) -> VehicleBatch:
    """Stack per-vehicle params into one `VehicleBatch` (wheels padded to the largest wheel count)."""
    if not params:
        raise VehicleParamsError("batch() needs at least one vehicle")
    V = len(params)
    W = max(p.nb_wheels for p in params)
    nb_wheels = np.array([p.nb_wheels for p in params], dtype=np.int64)
    mask = np.arange(W)[None, :] < nb_wheels[:, None]
    wheels = [w for p in params for w in p.wheels]
    values = {param.name: [param.vehicle(p) for p in params] for param in PARAMS if param.vehicle is not None}
    values.update({param.name: [param.wheel(w) for w in wheels] for param in PARAMS if param.wheel is not None})
    dims = _dims(values, W)
    A = {"wheel_mask": mask, "nb_wheels": nb_wheels}
    for param in PARAMS:
        shape = param.batch_shape(V, dims)
        A[param.name] = (_stack(param, values[param.name], shape, mask) if param.name in values
                         else np.full(shape, param.pad, dtype=param.dtype))
    # friction tables: one entry per distinct table of the batch, each wheel the index of its own
    tables: list[FrictionTableParams] = []
    table_index: dict[FrictionTableParams, int] = {}
    for w in wheels:
        if w.friction_table not in table_index:
            table_index[w.friction_table] = len(tables)
            tables.append(w.friction_table)
    A["friction_table_id"][mask] = [table_index[w.friction_table] for w in wheels]
    for a in A.values():
        a.setflags(write=False)
    return VehicleBatch(paths=tuple(p.path for p in params), wheel_paths=tuple(tuple(w.path for w in p.wheels) for p in params),
                        arrays=A, friction_tables=tuple(tables))


def batch_from_description(description: StageDescription, vehicle_paths: Sequence[str] | None = None) -> VehicleBatch:
    """Build and batch the vehicles of a description (all of them, by path, unless paths are given)."""
    paths = list(vehicle_paths) if vehicle_paths is not None else sorted(description.vehicles)
    return batch([build_vehicle_params(description, p) for p in paths])
