"""The stage description: plain records of what a stage says about its vehicles (docs/description-layout.md).

Records are data, not live prim wrappers. Each component block maps a property's base name to a resolved
value with its provenance; `to_json` produces the `convert` output (optionally with provenance, optionally
converted to SI units through the property table).
"""
from __future__ import annotations

import math
from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from . import properties as P
from .diagnostics import Diagnostic
from .units import NONE, StageUnits


class Source(str, Enum):
    AUTHORED = "authored"        # the stage authors this value
    FALLBACK = "fallback"        # the schema's fallback, used as it is
    DEFAULT = "default"          # the parser's default, substituted for a sentinel or a missing value (unit-scaled)
    DEPRECATED = "deprecated"    # migrated from a deprecated attribute
    COMPUTED = "computed"        # derived: auto sprung mass, rest load, stiffness from per-unit-gravity values


class Resolved(BaseModel):
    model_config = ConfigDict(frozen=True)

    value: Any
    source: Source


class Block(BaseModel):
    """One component's resolved values, keyed by property base name."""

    schema_name: str = Field(description="schema identifier whose property table gives units and ranges")
    path: str | None = Field(default=None, description="the prim the values were read from")
    values: dict[str, Resolved] = Field(default_factory=dict)

    def set(self, base: str, value: Any, source: Source) -> None:
        self.values[base] = Resolved(value=value, source=source)

    def __getitem__(self, base: str) -> Any:
        return self.values[base].value

    def get(self, base: str, default: Any = None) -> Any:
        item = self.values.get(base)
        return default if item is None else item.value

    def source(self, base: str) -> Source | None:
        item = self.values.get(base)
        return None if item is None else item.source


class WheelDescription(BaseModel):
    path: str
    index: int
    attachment: Block
    wheel: Block
    tire: Block
    suspension: Block
    compliance: Block
    wheelController: Block | None = None


class DriveDescription(BaseModel):
    type: str  # "basic" | "standard"
    path: str
    basic: Block | None = None
    engine: Block | None = None
    gears: Block | None = None
    clutch: Block | None = None
    autoGearBox: Block | None = None


class VehicleDescription(BaseModel):
    path: str
    scene: str | None = None
    vehicle: Block
    context: Block
    rigidBody: Block
    drive: DriveDescription | None = None
    controller: Block | None = None
    brakes: dict[str, Block] = Field(default_factory=dict)
    steering: Block | None = None
    ackermannSteering: Block | None = None
    multiWheelDifferential: Block | None = None
    tankDifferential: Block | None = None
    tankController: Block | None = None
    nonlinearCommandResponses: dict[str, Block] = Field(default_factory=dict)
    wheels: list[WheelDescription] = Field(default_factory=list)


class SceneDescription(BaseModel):
    path: str
    gravity: Block
    context: Block | None = None


class FrictionTableDescription(BaseModel):
    path: str
    table: Block


class GroundDescription(BaseModel):
    path: str
    kind: str  # "plane" | "mesh"
    axis: str | None = None
    transform: list[list[float]]
    points: list[list[float]] | None = None
    faceVertexIndices: list[int] | None = None
    faceVertexCounts: list[int] | None = None
    material: str | None = None


class MaterialDescription(BaseModel):
    path: str
    staticFriction: float
    dynamicFriction: float
    restitution: float


class StageInfo(BaseModel):
    file: str
    metersPerUnit: float
    kilogramsPerUnit: float
    upAxis: str


class StageDescription(BaseModel):
    stage: StageInfo
    scenes: dict[str, SceneDescription] = Field(default_factory=dict)
    vehicles: dict[str, VehicleDescription] = Field(default_factory=dict)
    tireFrictionTables: dict[str, FrictionTableDescription] = Field(default_factory=dict)
    ground: list[GroundDescription] = Field(default_factory=list)
    materials: dict[str, MaterialDescription] = Field(default_factory=dict)
    diagnostics: list[Diagnostic] = Field(default_factory=list)

    @property
    def units(self) -> StageUnits:
        return StageUnits(self.stage.metersPerUnit, self.stage.kilogramsPerUnit)

    def to_json(self, provenance: bool = False, si: bool = False) -> dict:
        return _stage_json(self, provenance, si)


# -- JSON form ------------------------------------------------------------------------------------------

def _plain(value: Any) -> Any:
    """USD/Gf/numpy values -> JSON-able lists and numbers (floats rounded to float32 precision)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return float(f"{value:.9g}")
    if hasattr(value, "__len__"):
        return [_plain(v) for v in value]
    if hasattr(value, "real") and hasattr(value, "imaginary"):  # Gf.Quat
        return [_plain(value.real), *[_plain(v) for v in value.imaginary]]
    try:
        return _plain(float(value))
    except (TypeError, ValueError):
        return str(value)


def _to_si(value: Any, prop: P.Prop | None, units: StageUnits) -> Any:
    if prop is None or value is None or isinstance(value, (str, bool)):
        return value
    if prop.component_dims:
        factors = [units.stage_to_si(d) for d in prop.component_dims]
        if value and isinstance(value[0], (list, tuple)):
            return [[v * f for v, f in zip(row, factors)] for row in value]
        return [v * f for v, f in zip(value, factors)]
    if prop.dim == NONE:
        return value
    factor = units.stage_to_si(prop.dim)
    if isinstance(value, list):
        return [_to_si(v, prop, units) for v in value]
    return value * factor


def _block_json(block: Block | None, provenance: bool, si: bool, units: StageUnits) -> dict | None:
    if block is None:
        return None
    out = {}
    for base, item in sorted(block.values.items()):
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
    stage = d.stage.model_dump()
    if si:
        stage.update(metersPerUnit=1.0, kilogramsPerUnit=1.0, convertedFrom={"metersPerUnit": d.stage.metersPerUnit,
                                                                             "kilogramsPerUnit": d.stage.kilogramsPerUnit})
    length = units.stage_to_si(P.LENGTH) if si else 1.0
    ground = []
    for g in d.ground:
        item = g.model_dump()
        if si:
            item["transform"] = [[c * (length if r == 3 and k < 3 else 1.0) for k, c in enumerate(row)]
                                 for r, row in enumerate(g.transform)]
            if g.points is not None:
                item["points"] = [[c * length for c in p] for p in g.points]
        ground.append(_plain(item))
    return {
        "stage": stage,
        "scenes": {path: {"gravity": _block_json(s.gravity, provenance, si, units),
                          "context": _block_json(s.context, provenance, si, units)}
                   for path, s in sorted(d.scenes.items())},
        "vehicles": {path: _vehicle_json(v, provenance, si, units) for path, v in sorted(d.vehicles.items())},
        "tireFrictionTables": {path: _block_json(t.table, provenance, si, units) for path, t in sorted(d.tireFrictionTables.items())},
        "ground": ground,
        "materials": {path: m.model_dump() for path, m in sorted(d.materials.items())},
        "diagnostics": [x.model_dump(mode="json", exclude_none=False) for x in d.diagnostics],
    }
