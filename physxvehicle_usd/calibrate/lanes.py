"""Candidate parameter sets as lanes of one fleet: `PRIM.ATTR` -> the batch rows it moves, found by the reader.

A fitted property is named as `PRIM.ATTR` (`/World/Engine.physxVehicleEngine:peakTorque`), with `[i]` for one
element of a vector or graph (`/World/Tire.physxVehicleTire:lateralStiffnessGraph[1]`). Its table row
(properties.py) gives its unit and valid range; its current value is the one the reader resolved.

Which batch arrays a property moves, and how, is not written down here: `LaneMap` asks the reader and the
simulator's declarations (sim/declare.py, sim/batch.py). It authors the property at a few values on the stage's
session layer, reads the stage, builds the vehicle's batch rows and compares them: every array that changes, with
its slope (a spring strength moves `spring_stiffness` of the wheels whose suspension that prim is; the chassis mass
moves `mass`, and through the reader's computed sprung masses `sprung_mass` and `rest_load` too). Where every
array is affine in the properties (checked at a further value of each and at all of them moved together), a lane's
rows are the base rows plus the slopes times its change; where not, each lane's rows are read again from the stage
with its values authored (slower, exact).

`Lanes` is then a fleet of N copies of the vehicle (gym/copies.repeat_vehicle) whose rows are overwritten lane by
lane, stepped with the log's controls, recording the signals the log has (log.SIGNALS) after every step. The
copies share one pose and have no contact with one another or their chassis with the ground (as the gym's fleet):
only the wheels meet the ground.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from pxr import Sdf, Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..description import Block, StageDescription
from ..errors import InputError
from ..gym.copies import repeat_vehicle
from ..sim import Simulator
from ..sim.batch import VehicleBatch, batch_from_description
from ..units import Dim, StageUnits
from .log import SIGNALS, Log

# UsdPhysics' mass properties, which the reader resolves into the rigid body's block (properties.DERIVED_ROWS)
_PHYSICS_ROWS = {UsdPhysics.Tokens.physicsMass: "mass", UsdPhysics.Tokens.physicsCenterOfMass: "centerOfMass",
                 UsdPhysics.Tokens.physicsDiagonalInertia: "diagonalInertia"}
_NAME = re.compile(r"(?P<prim>/[^.\[\]]*)\.(?P<attr>[^.\[\]]+)(?:\[(?P<index>\d+)\])?")
_PROBE = (0.1, -0.07)  # relative probe steps: the slope's and the affinity check's


@dataclass(frozen=True)
class FittedProperty:
    """One fitted property: where it is, its table row, its value as the reader resolved it (stage units) and the
    bounds of the search (the row's valid range, stage units)."""

    prim: str
    attribute: str
    index: int | None
    row: P.Prop
    instance: str | None
    initial: float
    low: float
    high: float
    to_si: float  # the factor from stage units to SI for this value

    @property
    def name(self) -> str:
        return f"{self.prim}.{self.attribute}" + (f"[{self.index}]" if self.index is not None else "")

    @property
    def unit(self) -> str:
        unit = self.row.unit
        if self.index is not None and unit.startswith("(") and unit.endswith(")"):
            parts = [u.strip() for u in unit[1:-1].split(",")]
            unit = parts[self.index % len(parts)]  # the component of a point (flattened index)
        return unit

    def authored(self, current: Any, value: float) -> Any:
        """The attribute's value with this property set to `value` (an element replaced where it has an index)."""
        if self.index is None:
            return float(value)
        return with_element(current, self.index, value)


def with_element(current: Any, index: int, value: float) -> Any:
    """A vector or array value (Gf.Vec2f, Vt.Vec2fArray, Vt.FloatArray) with its element `index` (flattened) set to
    `value`, of the value's own type."""
    array = np.array(current, dtype=float)
    array.flat[index] = float(value)
    kind = type(current)
    if kind.__name__.endswith("Array"):
        return kind([tuple(row) for row in array.tolist()] if array.ndim > 1 else array.tolist())
    return kind(*array.tolist())


def _schemas_of(prim: Usd.Prim, attribute: str) -> tuple[str, str, str | None]:
    """(table schema, base name, multiple-apply instance) of an attribute of a prim, from its applied schemas."""
    if attribute in _PHYSICS_ROWS:
        return P.RIGID_BODY, _PHYSICS_ROWS[attribute], None
    for applied in prim.GetAppliedSchemas():
        schema, _, instance = applied.partition(":")
        for base, full in P.full_names(schema, instance or None).items():
            if full == attribute:
                return schema, base, instance or None
    raise KeyError(attribute)


def vehicle_blocks(node: Any, found: list[tuple[Block, str | None]], key: str | None = None) -> None:
    """Every Block of a vehicle description, with the dict key it sits under (a brake's instance)."""
    if isinstance(node, Block):
        found.append((node, key))
    elif isinstance(node, dict):
        for k, v in node.items():
            vehicle_blocks(v, found, k)
    elif isinstance(node, (list, tuple)):
        for v in node:
            vehicle_blocks(v, found)
    elif hasattr(node, "__dataclass_fields__"):
        for name in node.__dataclass_fields__:
            vehicle_blocks(getattr(node, name), found)


def resolve(names: Sequence[str], stage: Usd.Stage, description: StageDescription, vehicle: str,
            own_only: bool = False) -> list[FittedProperty]:
    """The fitted properties `names` of the vehicle at `vehicle`; InputError for one that is malformed, not on the
    stage, not a vehicle property the table knows, not a number, or not read for that vehicle (own_only: left out,
    another vehicle's)."""
    file = stage.GetRootLayer().identifier
    units = StageUnits.of(stage)
    blocks: list[tuple[Block, str | None]] = []
    vehicle_blocks(description.vehicles[vehicle], blocks)
    out: list[FittedProperty] = []
    for name in dict.fromkeys(names):
        match = _NAME.fullmatch(name)
        if match is None:
            raise InputError(f"--fit {name!r}: expected PRIM.ATTR or PRIM.ATTR[i] (for example "
                             "/World/Engine.physxVehicleEngine:peakTorque)", file=file)
        prim_path, attribute = match["prim"], match["attr"]
        index = None if match["index"] is None else int(match["index"])
        prim = stage.GetPrimAtPath(prim_path) if Sdf.Path.IsValidPathString(prim_path) else Usd.Prim()
        if not prim:
            raise InputError("--fit: no such prim", file=file, prim=prim_path)
        try:
            schema, base, instance = _schemas_of(prim, attribute)
        except KeyError:
            raise InputError("--fit: not a property of a vehicle schema the prim applies", file=file, prim=prim_path,
                             prop=attribute) from None
        row = P.TABLE_BY_KEY.get((schema, base))
        value = next((b.get(base) for b, key in blocks
                      if b.path == prim_path and base in b and (instance is None or key == instance)), None)
        if own_only and row is not None and value is None:
            continue
        if row is None or value is None:
            raise InputError(f"--fit: the reader resolves no value of it for the vehicle {vehicle}", file=file,
                             prim=prim_path, prop=attribute)
        flat = np.asarray(value, dtype=float).ravel() if not isinstance(value, str) else np.array([])
        if index is None and flat.size != 1 or index is not None and not index < flat.size:
            shape = f"{flat.size} numbers" if flat.size else "not a number"
            raise InputError(f"--fit: the value is {shape}: name one number of it with [i]" if flat.size > 1 else
                             f"--fit: the value is {shape}" + (f"; [{index}] is out of range" if index is not None else ""),
                             file=file, prim=prim_path, prop=attribute)
        initial = float(flat[0 if index is None else index])
        dims = P.dims_of(row)  # one Dim, or one per component of a graph's points
        dim = dims if isinstance(dims, Dim) else dims[(index or 0) % len(dims)]
        to_si = units.stage_to_si(dim)
        if row.range is not None:
            low = row.range.lo / to_si if math.isfinite(row.range.lo) else -math.inf
            high = row.range.hi / to_si if math.isfinite(row.range.hi) and row.range.hi < P.FLT_MAX else math.inf
        else:  # no range in the table (a mass, a position, a graph's point): positive where the value is
            low, high = (0.0 if initial > 0 else -math.inf), math.inf
        out.append(FittedProperty(prim_path, attribute, index, row, instance, initial, low, high, to_si))
    return out


class LaneMap:
    """The vehicle's batch rows as a function of the fitted properties' values (see the module's docstring)."""

    def __init__(self, stage: Usd.Stage, vehicle: str, fitted: Sequence[FittedProperty], reading: str = "omniverse"):
        self.stage, self.vehicle, self.fitted, self.reading = stage, vehicle, list(fitted), reading
        self.x0 = np.array([f.initial for f in fitted], dtype=float)
        self.base = self.rows(self.x0)
        self.slopes: dict[str, np.ndarray] = {}  # array name -> (p, *row shape)
        self.reads = 1
        self.affine = self._probe()

    def subset(self, keep: Sequence[bool]) -> "LaneMap":
        """This map for the properties `keep` selects (the others held at their initial values), without probing
        again."""
        keep = np.asarray(keep, dtype=bool)
        other = object.__new__(LaneMap)
        other.__dict__.update(self.__dict__)
        other.fitted = [f for f, k in zip(self.fitted, keep) if k]
        other.x0 = self.x0[keep]
        other.slopes = {name: slope[keep] for name, slope in self.slopes.items() if np.any(slope[keep] != 0)}
        return other

    def rows(self, values: Sequence[float]) -> VehicleBatch:
        """The vehicle's one-vehicle batch with the fitted properties at `values`, as the reader makes it."""
        from ..read import read_stage

        layer = self.stage.GetSessionLayer()
        try:
            with Usd.EditContext(self.stage, layer):
                for f, value in zip(self.fitted, values):
                    attr = self.stage.GetPrimAtPath(f.prim).GetAttribute(f.attribute)
                    attr.Set(f.authored(attr.Get(), value))
            description = read_stage(self.stage, self.reading)
            if self.vehicle not in description.vehicles:
                raise InputError("with these values the reader rejects the vehicle: "
                                 + "; ".join(d.line() for d in description.diagnostics if d.severity.name == "ERROR"),
                                 file=self.stage.GetRootLayer().identifier, prim=self.vehicle)
            return batch_from_description(description, [self.vehicle])
        finally:
            layer.Clear()

    def _probe(self) -> bool:
        """Slopes of every array that moves, and whether the rows are affine in the values (each property probed at
        two further values, then all of them moved at once)."""
        p = len(self.fitted)
        steps = [np.where(self.x0 != 0, self.x0 * s, s) for s in _PROBE]
        affine = True
        for k in range(p):
            x1 = self.x0.copy()
            x1[k] += steps[0][k]
            moved = self._difference(self.rows(x1))
            for name, delta in moved.items():
                self.slopes.setdefault(name, np.zeros((p, *delta.shape[1:])))[k] = delta[0] / steps[0][k]
            x2 = self.x0.copy()
            x2[k] += steps[1][k]
            affine &= self._predicts(x2)
            self.reads += 2
        if p > 1:
            affine &= self._predicts(self.x0 + steps[1])
            self.reads += 1
        return affine

    def _difference(self, other: VehicleBatch) -> dict[str, np.ndarray]:
        moved = {}
        for name, base in self.base.arrays.items():
            if base.dtype.kind == "f":
                delta = other.arrays[name] - base
                if np.any(delta != 0):
                    moved[name] = delta
            elif not np.array_equal(other.arrays[name], base):
                raise InputError(f"changing the fitted properties changes the simulator's {name!r}, which is not a "
                                 "number that can move by a little (a count or a switch)",
                                 file=self.stage.GetRootLayer().identifier, prim=self.vehicle)
        return moved

    def _predicts(self, x: np.ndarray) -> bool:
        actual = self._difference(self.rows(x))
        predicted = self._affine_rows(x[None, :])
        for name in set(actual) | set(self.slopes):
            want = actual.get(name, 0.0) + self.base.arrays[name]
            got = predicted[name] if name in predicted else self.base.arrays[name]
            if not np.allclose(got, want, rtol=1e-6, atol=1e-9 * (1 + np.abs(want).max())):
                return False
        return True

    def _affine_rows(self, X: np.ndarray) -> dict[str, np.ndarray]:
        """The moving arrays' rows for each row of values X (n, p): base + slopes . (x - x0)."""
        dx = X - self.x0
        return {name: self.base.arrays[name][0] + np.tensordot(dx, slope, axes=(1, 0))
                for name, slope in self.slopes.items()}

    def fleet(self, X: np.ndarray) -> VehicleBatch:
        """One lane per row of X (n, p): the vehicle's copies with their moving arrays at those values."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        fleet = repeat_vehicle(self.base, len(X))
        arrays = dict(fleet.arrays)
        if self.affine:
            for name, rows in self._affine_rows(X).items():
                arrays[name] = rows.astype(self.base.arrays[name].dtype)
        else:
            each = [self.rows(x) for x in X]
            self.reads += len(X)
            for name in self.slopes:
                arrays[name] = np.concatenate([b.arrays[name] for b in each])
        return VehicleBatch(fleet.paths, fleet.wheel_paths, arrays, fleet.friction_tables)


@dataclass
class Lanes:
    """Runs candidate parameter sets as lanes of one fleet over a log's controls, recording its signals."""

    lane_map: LaneMap
    ground: Any
    log: Log
    controls: dict[str, np.ndarray]  # name -> (steps,) per step, the log's own controls first
    up_axis: int
    meters_per_unit: float
    threads: int = 1
    runs: int = 0
    lanes_run: int = 0

    def simulate(self, X: np.ndarray) -> np.ndarray:
        """(n, steps, signals): the log's signals, simulated with each row of X as a lane, SI units."""
        X = np.atleast_2d(X)
        sim = Simulator(self.lane_map.fleet(X), self.ground, self.log.dt, threads=self.threads)
        n, steps = len(X), self.log.steps
        out = np.empty((n, steps, len(self.log.signals)))
        readers = [SIGNALS[s.kind].read for s in self.log.signals]
        context = {"up": self.up_axis, "mpu": self.meters_per_unit}
        for i in range(steps):
            sim.step({name: values[i] for name, values in self.controls.items()})
            telemetry = sim.telemetry()
            for j, (signal, read) in enumerate(zip(self.log.signals, readers)):
                out[:, i, j] = read(telemetry, signal.wheel, context)
        self.runs += 1
        self.lanes_run += n
        return out


def up_axis_index(stage: Usd.Stage) -> int:
    return 2 if UsdGeom.GetStageUpAxis(stage) == UsdGeom.Tokens.z else 1
