"""The stage description: plain records of what a stage says about its vehicles (docs/description-layout.md).

Records are data, not live prim wrappers (plain dataclasses; see Block). Each component block maps a property's base name to a resolved
value with its provenance; `to_json` produces the `convert` output (optionally with provenance, optionally
converted to SI units through the property table).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from . import properties as P
from .diagnostics import Diagnostic
from .units import StageUnits


class Source(str, Enum):
    AUTHORED = "authored"        # the stage authors this value
    FALLBACK = "fallback"        # the schema's fallback, used as it is
    DEFAULT = "default"          # the parser's default, substituted for a sentinel or a missing value (unit-scaled)
    DEPRECATED = "deprecated"    # migrated from a deprecated attribute
    COMPUTED = "computed"        # derived: auto sprung mass, rest load, stiffness from per-unit-gravity values


class Resolved(NamedTuple):
    value: Any
    source: Source


# NamedTuple's generated __new__ is Python code; blocks hold millions of values on big stages.
_resolved = tuple.__new__


# Plain dataclasses rather than pydantic models: a stage of 10,000 cars holds millions of values and the
# reader must stay close to the cost of reading the attributes at all. The JSON form (and its JSON Schema)
# is modelled with pydantic in convert_schema.py. Slots: no per-block __dict__ (a reader makes 30 blocks per
# car, and every dict is one more object for the garbage collector to walk).
@dataclass(eq=True, slots=True)
class Block:
    """One component's resolved values, keyed by property base name; `schema_name` selects the property table rows."""

    schema_name: str
    path: str | None = None
    values: dict[str, Resolved] = field(default_factory=dict)

    def set(self, base: str, value: Any, source: Source) -> None:
        self.values[base] = _resolved(Resolved, (value, source))

    def copy_from(self, other: "Block", *bases: str) -> None:
        """Take these values, with their provenance, from another block."""
        for base in bases:
            self.values[base] = other.values[base]

    def __getitem__(self, base: str) -> Any:
        return self.values[base].value

    def __contains__(self, base: str) -> bool:
        return base in self.values

    def get(self, base: str, default: Any = None) -> Any:
        item = self.values.get(base)
        return default if item is None else item.value

    def source(self, base: str) -> Source | None:
        item = self.values.get(base)
        return None if item is None else item.source

    def public(self) -> dict[str, Resolved]:
        """Values without the parser-internal extras (base names starting with an underscore)."""
        return {k: v for k, v in self.values.items() if not k.startswith("_")}


@dataclass
class WheelDescription:
    path: str
    index: int
    attachment: Block
    wheel: Block
    tire: Block
    suspension: Block
    compliance: Block
    wheelController: Block | None = None


@dataclass
class DriveDescription:
    type: str  # "basic" | "standard"
    path: str
    basic: Block | None = None
    engine: Block | None = None
    gears: Block | None = None
    clutch: Block | None = None
    autoGearBox: Block | None = None


@dataclass
class VehicleDescription:
    path: str
    vehicle: Block
    context: Block
    rigidBody: Block
    scene: str | None = None
    drive: DriveDescription | None = None
    controller: Block | None = None
    brakes: dict[str, Block] = field(default_factory=dict)
    steering: Block | None = None
    ackermannSteering: Block | None = None
    multiWheelDifferential: Block | None = None
    tankDifferential: Block | None = None
    tankController: Block | None = None
    nonlinearCommandResponses: dict[str, Block] = field(default_factory=dict)
    wheels: list[WheelDescription] = field(default_factory=list)


@dataclass
class SceneDescription:
    path: str
    gravity: Block
    context: Block | None = None


@dataclass
class GroundDescription:
    path: str
    kind: str  # "plane" | "mesh"
    transform: list[list[float]]
    axis: str | None = None
    points: list[list[float]] | None = None
    faceVertexIndices: list[int] | None = None
    faceVertexCounts: list[int] | None = None
    material: str | None = None


@dataclass
class MaterialDescription:
    path: str
    staticFriction: float
    dynamicFriction: float
    restitution: float


@dataclass
class StageInfo:
    file: str
    metersPerUnit: float
    kilogramsPerUnit: float
    upAxis: str


@dataclass
class StageDescription:
    stage: StageInfo
    scenes: dict[str, SceneDescription] = field(default_factory=dict)
    vehicles: dict[str, VehicleDescription] = field(default_factory=dict)
    tireFrictionTables: dict[str, Block] = field(default_factory=dict)
    ground: list[GroundDescription] = field(default_factory=list)
    materials: dict[str, MaterialDescription] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def units(self) -> StageUnits:
        return StageUnits(self.stage.metersPerUnit, self.stage.kilogramsPerUnit)

    def to_json(self, provenance: bool = False, si: bool = False) -> dict:
        return _stage_json(self, provenance, si)

    def in_si_units(self) -> "StageDescription":
        """A copy in metres and kilograms (every value converted through the property table, as `to_json(si=True)`
        prints it); the records of this description are left as they are."""
        units = self.units
        length = units.stage_to_si(P.LENGTH)

        def block(b: Block | None) -> Block | None:
            if b is None:
                return None
            out = Block(b.schema_name, b.path)
            for base, item in b.values.items():
                prop = P.TABLE_BY_KEY.get((b.schema_name, base))
                value = item.value if prop is None else _to_si(_plain(item.value), prop, units)
                out.values[base] = _resolved(Resolved, (value, item.source))
            return out

        def blocks(named: dict[str, Block]) -> dict[str, Block]:
            return {name: block(b) for name, b in named.items()}

        def vehicle(v: VehicleDescription) -> VehicleDescription:
            drive = v.drive and dataclasses.replace(v.drive, basic=block(v.drive.basic), engine=block(v.drive.engine),
                                                    gears=block(v.drive.gears), clutch=block(v.drive.clutch),
                                                    autoGearBox=block(v.drive.autoGearBox))
            wheels = [dataclasses.replace(w, attachment=block(w.attachment), wheel=block(w.wheel), tire=block(w.tire),
                                          suspension=block(w.suspension), compliance=block(w.compliance),
                                          wheelController=block(w.wheelController)) for w in v.wheels]
            return dataclasses.replace(
                v, vehicle=block(v.vehicle), context=block(v.context), rigidBody=block(v.rigidBody), drive=drive,
                controller=block(v.controller), brakes=blocks(v.brakes), steering=block(v.steering),
                ackermannSteering=block(v.ackermannSteering), multiWheelDifferential=block(v.multiWheelDifferential),
                tankDifferential=block(v.tankDifferential), tankController=block(v.tankController),
                nonlinearCommandResponses=blocks(v.nonlinearCommandResponses), wheels=wheels)

        def ground(g: GroundDescription) -> GroundDescription:
            transform = [[c * (length if r == 3 and k < 3 else 1.0) for k, c in enumerate(row)]
                         for r, row in enumerate(g.transform)]
            points = None if g.points is None else [[c * length for c in p] for p in g.points]
            return dataclasses.replace(g, transform=transform, points=points)

        return StageDescription(
            stage=dataclasses.replace(self.stage, metersPerUnit=1.0, kilogramsPerUnit=1.0),
            scenes={path: dataclasses.replace(s, gravity=block(s.gravity), context=block(s.context))
                    for path, s in self.scenes.items()},
            vehicles={path: vehicle(v) for path, v in self.vehicles.items()},
            tireFrictionTables=blocks(self.tireFrictionTables), ground=[ground(g) for g in self.ground],
            materials=dict(self.materials), diagnostics=list(self.diagnostics))


# -- JSON form ------------------------------------------------------------------------------------------

@lru_cache(maxsize=1 << 16)
def _float32_shortest(value: float) -> float:
    """USD stores these as float32: the shortest decimal that is the same float32 (0.15, not 0.150000006), so
    the JSON reads as authored and stays deterministic. Cached: the formatting is the costliest step of
    `to_json`, and a stage repeats its values (defaults, shared components, copies of one asset)."""
    return float(str(np.float32(value)))


def _plain(value: Any) -> Any:
    """USD/Gf/numpy values -> JSON-able lists and numbers (floats rounded to float32 precision)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if not abs(value) < 3.4e38:
            return value
        # zeros bypass the cache, which would merge -0.0 and 0.0
        return _float32_shortest(value) if value != 0.0 else float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if hasattr(value, "__len__"):
        return [_plain(v) for v in value]
    if hasattr(value, "real") and hasattr(value, "imaginary"):  # Gf.Quat
        return [_plain(value.real), *[_plain(v) for v in value.imaginary]]
    try:
        return _plain(float(value))
    except (TypeError, ValueError):
        return str(value)


def canonical_value(value: Any) -> Any:
    """A resolved value at the precision the description holds it: what `convert` prints, and what the runtime
    builders take (float32 values as their shortest decimal; sequences as lists). A fast path for the scalars a
    vehicle of a large fleet is mostly made of, then `_plain`."""
    kind = type(value)
    if kind is float and value != 0.0 and abs(value) < 3.4e38:  # finite, not zero (NaN fails the comparison)
        return _float32_shortest(value)
    if kind is int or kind is bool or kind is str or value is None:
        return value
    if kind is tuple or kind is list:
        return [canonical_value(v) for v in value]
    return _plain(value)


def _to_si(value: Any, prop: P.Prop | None, units: StageUnits) -> Any:
    return value if prop is None else P.stage_to_si(prop, value, units)


def _block_json(block: Block | None, provenance: bool, si: bool, units: StageUnits) -> dict | None:
    if block is None:
        return None
    out = {}
    for base, item in sorted(block.public().items()):
        value = _plain(item.value)
        if si:
            value = _to_si(value, P.TABLE_BY_KEY.get((block.schema_name, base)), units)
            value = _plain(value)
        out[base] = {"value": value, "source": item.source.value} if provenance else value
    return out


def _vehicle_json(v: VehicleDescription, provenance: bool, si: bool, units: StageUnits) -> dict:
    b = lambda block: _block_json(block, provenance, si, units)  # noqa: E731
    drive = None
    if v.drive is not None:
        if v.drive.type == "basic":
            drive = {"type": "basic", "path": v.drive.path, **(b(v.drive.basic) or {})}
        else:
            drive = {"type": "standard", "path": v.drive.path, "engine": b(v.drive.engine), "gears": b(v.drive.gears),
                     "clutch": b(v.drive.clutch), "autoGearBox": b(v.drive.autoGearBox)}
    return {
        "scene": v.scene,
        "vehicle": b(v.vehicle),
        "context": b(v.context),
        "rigidBody": b(v.rigidBody),
        "drive": drive,
        "controller": b(v.controller),
        "brakes": {name: b(block) for name, block in sorted(v.brakes.items())},
        "steering": b(v.steering),
        "ackermannSteering": b(v.ackermannSteering),
        "multiWheelDifferential": b(v.multiWheelDifferential),
        "tankDifferential": b(v.tankDifferential),
        "tankController": b(v.tankController),
        "nonlinearCommandResponses": {name: b(block) for name, block in sorted(v.nonlinearCommandResponses.items())},
        "wheels": [
            {"path": w.path, "index": w.index, "attachment": b(w.attachment), "wheel": b(w.wheel), "tire": b(w.tire),
             "suspension": b(w.suspension), "compliance": b(w.compliance), "wheelController": b(w.wheelController)}
            for w in sorted(v.wheels, key=lambda w: w.index)
        ],
    }


def _stage_json(d: StageDescription, provenance: bool, si: bool) -> dict:
    units = d.units
    stage = dataclasses.asdict(d.stage)
    if si:
        stage.update(metersPerUnit=1.0, kilogramsPerUnit=1.0, convertedFrom={"metersPerUnit": d.stage.metersPerUnit,
                                                                             "kilogramsPerUnit": d.stage.kilogramsPerUnit})
    length = units.stage_to_si(P.LENGTH) if si else 1.0
    ground = []
    for g in d.ground:
        item = dataclasses.asdict(g)
        if si:
            item["transform"] = [[c * (length if r == 3 and k < 3 else 1.0) for k, c in enumerate(row)]
                                 for r, row in enumerate(g.transform)]
            if g.points is not None:
                item["points"] = [[c * length for c in p] for p in g.points]
        ground.append(_plain(item))
    return {
        "stage": stage,
        "scenes": {path: {**_block_json(s.gravity, provenance, si, units),
                          "context": _block_json(s.context, provenance, si, units)}
                   for path, s in sorted(d.scenes.items())},
        "vehicles": {path: _vehicle_json(v, provenance, si, units) for path, v in sorted(d.vehicles.items())},
        "tireFrictionTables": {path: _block_json(t, provenance, si, units) for path, t in sorted(d.tireFrictionTables.items())},
        "ground": ground,
        "materials": {path: _plain(dataclasses.asdict(m)) for path, m in sorted(d.materials.items())},
        "diagnostics": [x.model_dump(mode="json", exclude={"file"}) for x in d.diagnostics],
    }
