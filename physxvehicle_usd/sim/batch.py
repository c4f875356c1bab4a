"""Many vehicles as one structure of arrays, built from the subsystems' parameter declarations.

`batch(params)` stacks vehicle2 parameter records (`runtime.vehicle2.VehicleParams`) into a `VehicleBatch`:
one numpy array per declared `Param` (sim/declare.py), with a leading vehicle axis and, per wheel, a wheel axis
padded to the largest wheel count (`wheel_mask` tells real wheels from padding). Vehicles of every drive type
share one batch. Which arrays there are, their shapes, dtypes and padding is said by the declarations alone
(`PARAMS` of context, rigid_body, commands, drivetrain, wheel, suspension and tire); this module only stacks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..description import StageDescription
from ..runtime.vehicle2 import FrictionTableParams, VehicleParams, VehicleParamsError
from ..runtime.vehicle2.copies import build_params_sharing, copy_probe
from .declare import Param
from .subsystems import PARAMS

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


def batch(params: Sequence[VehicleParams], like: Sequence[int] | None = None) -> VehicleBatch:
    """Stack per-vehicle params into one `VehicleBatch` (wheels padded to the largest wheel count).

    like: for each vehicle, the index of the vehicle whose parameters it took (runtime.vehicle2.copies: the same
    records but for its paths, description and initial state). A parameter that reads none of these (`copy_varying`
    tells) is worked out once per such vehicle and its rows repeated; the others for every vehicle."""
    if not params:
        raise VehicleParamsError("batch() needs at least one vehicle")
    V = len(params)
    W = max(p.nb_wheels for p in params)
    nb_wheels = np.array([p.nb_wheels for p in params], dtype=np.int64)
    mask = np.arange(W)[None, :] < nb_wheels[:, None]
    wheels = [w for p in params for w in p.wheels]
    shared, lenders, rows, varying = _sharing(params, like)
    shared_wheels = [w for p in shared for w in p.wheels]
    values = {param.name: [param.vehicle(p) for p in (params if param.name in varying else shared)]
              for param in PARAMS if param.vehicle is not None}
    values.update({param.name: [param.wheel(w) for w in (wheels if param.name in varying else shared_wheels)]
                   for param in PARAMS if param.wheel is not None})
    dims = _dims(values, W)
    A = {"wheel_mask": mask, "nb_wheels": nb_wheels}
    for param in PARAMS:
        shape = param.batch_shape(V, dims)
        if param.name not in values:
            A[param.name] = np.full(shape, param.pad, dtype=param.dtype)
        elif param.name in varying:
            A[param.name] = _stack(param, values[param.name], shape, mask)
        else:  # one row per vehicle that lent its parameters, repeated for the vehicles that took them
            A[param.name] = _stack(param, values[param.name], param.batch_shape(len(shared), dims), mask[lenders])[rows]
    # friction tables: one entry per distinct table of the batch, each wheel the index of its own
    tables: list[FrictionTableParams] = []
    table_index: dict[FrictionTableParams, int] = {}
    # each table object's index, by its id (the wheels hold them): a fleet's copies share theirs, and hashing a
    # table hashes its values (80,000 times for 10,000 cars)
    index_of: dict[int, int] = {}
    ids = []
    for w in wheels:
        index = index_of.get(id(w.friction_table))
        if index is None:
            if w.friction_table not in table_index:
                table_index[w.friction_table] = len(tables)
                tables.append(w.friction_table)
            index = index_of[id(w.friction_table)] = table_index[w.friction_table]
        ids.append(index)
    A["friction_table_id"][mask] = ids
    for a in A.values():
        a.setflags(write=False)
    return VehicleBatch(paths=tuple(p.path for p in params), wheel_paths=tuple(tuple(w.path for w in p.wheels) for p in params),
                        arrays=A, friction_tables=tuple(tables))


def batch_from_description(description: StageDescription, vehicle_paths: Sequence[str] | None = None) -> VehicleBatch:
    """Build and batch the vehicles of a description (all of them, by path, unless paths are given); copies of one
    vehicle (runtime.vehicle2.copies) share their parameters."""
    paths = list(vehicle_paths) if vehicle_paths is not None else sorted(description.vehicles)
    return batch(*build_params_sharing(description, paths))


def _sharing(params: Sequence[VehicleParams], like: Sequence[int] | None
             ) -> tuple[list[VehicleParams], np.ndarray, np.ndarray, frozenset[str]]:
    """(the vehicles that lent their parameters, their indices, each vehicle's row among them, the names of the
    parameters worked out for every vehicle). Without copies: every vehicle, and every parameter."""
    V = len(params)
    if like is None or all(like[i] == i for i in range(V)):
        return list(params), np.arange(V), np.arange(V), frozenset(p.name for p in PARAMS)
    lenders = [i for i in range(V) if like[i] == i]
    position = {lender: k for k, lender in enumerate(lenders)}
    rows = np.array([position[like[i]] for i in range(V)], dtype=np.int64)
    varying: set[str] = set()
    for lender in sorted({like[i] for i in range(V) if like[i] != i}):
        varying |= copy_varying(params[lender])
    return [params[i] for i in lenders], np.array(lenders, dtype=np.int64), rows, frozenset(varying)


def copy_varying(params: VehicleParams) -> set[str]:
    """The parameters whose values may differ between copies taking `params` (copy_probe): those that read a copy's
    paths, pose or initial state, or cannot be told; all of them where no probe can be made."""
    probe = copy_probe(params)
    if probe is None:
        return {param.name for param in PARAMS}
    varying = set()
    for param in PARAMS:
        if param.vehicle is not None:
            pairs = [(params, probe)]
            read = param.vehicle
        elif param.wheel is not None:
            pairs = list(zip(params.wheels, probe.wheels))
            read = param.wheel
        else:
            continue
        try:
            same = all(_same(read(a), read(b)) for a, b in pairs)
        except Exception:  # noqa: BLE001 - Touched, or anything else a probe value made fail
            same = False
        if not same:
            varying.add(param.name)
    return varying


def _same(a: Any, b: Any) -> bool:
    """Equal values of equal types, element by element (NaN is not equal to itself: it makes a parameter vary)."""
    if type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if type(a) is np.ndarray:
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b))
    return bool(a == b)
