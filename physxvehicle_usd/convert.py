"""The `convert` output: the stage description as deterministic JSON or a readable text dump, and the
JSON Schema of the JSON form (pydantic models of the documented layout)."""
from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .description import StageDescription


def description_to_json_text(description: StageDescription, provenance: bool = False, si: bool = False) -> str:
    return json.dumps(description.to_json(provenance=provenance, si=si), sort_keys=True, indent=2) + "\n"


def description_text(description: StageDescription, si: bool = False) -> str:
    """One line per resolved value: `/World/Car wheels[0].tire.restLoad = 4414.5 (computed)`."""
    data = description.to_json(provenance=True, si=si)
    lines = [f"stage {data['stage']['file']}: metersPerUnit {data['stage']['metersPerUnit']}, "
             f"kilogramsPerUnit {data['stage']['kilogramsPerUnit']}, up {data['stage']['upAxis']}"]

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict) and set(node) == {"value", "source"}:
            lines.append(f"{prefix} = {json.dumps(node['value'])} ({node['source']})")
        elif isinstance(node, dict):
            for key in sorted(node):
                walk(f"{prefix}.{key}" if prefix else key, node[key])
        elif isinstance(node, list) and node and isinstance(node[0], dict):
            for item in node:
                walk(f"{prefix}[{item.get('index', '')}]", {k: v for k, v in item.items() if k != "index"})
        elif node is not None:
            lines.append(f"{prefix} = {json.dumps(node)}")

    for path, vehicle in data["vehicles"].items():
        walk(path, vehicle)
    for path, table in data["tireFrictionTables"].items():
        walk(path, table)
    for d in data["diagnostics"]:
        where = d["prim"] + (f".{d['property']}" if d["property"] else "")
        lines.append(f"{d['severity']} {d['code']} {where}: {d['message']}")
    return "\n".join(lines) + "\n"


# -- JSON Schema of the convert output ------------------------------------------------------------------

Value = Any
Block = dict[str, Value]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StageJson(_Model):
    file: str
    metersPerUnit: float
    kilogramsPerUnit: float
    upAxis: str
    convertedFrom: dict[str, float] | None = None


class SceneJson(_Model):
    gravityDirection: Value
    gravityMagnitude: Value
    context: Block | None


class BasicDriveJson(_Model):
    type: Literal["basic"]
    path: str
    peakTorque: Value


class StandardDriveJson(_Model):
    type: Literal["standard"]
    path: str
    engine: Block | None
    gears: Block | None
    clutch: Block | None
    autoGearBox: Block | None


class WheelJson(_Model):
    path: str
    index: int
    attachment: Block
    wheel: Block
    tire: Block
    suspension: Block
    compliance: Block
    wheelController: Block | None


class VehicleJson(_Model):
    scene: str | None
    vehicle: Block
    context: Block
    rigidBody: Block
    drive: BasicDriveJson | StandardDriveJson | None = Field(discriminator="type")
    controller: Block | None
    brakes: dict[str, Block]
    steering: Block | None
    ackermannSteering: Block | None
    multiWheelDifferential: Block | None
    tankDifferential: Block | None
    tankController: Block | None
    nonlinearCommandResponses: dict[str, Block]
    wheels: list[WheelJson]


class GroundJson(_Model):
    path: str
    kind: Literal["plane", "mesh"]
    transform: list[list[float]]
    axis: str | None
    points: list[list[float]] | None
    faceVertexIndices: list[int] | None
    faceVertexCounts: list[int] | None
    material: str | None


class DiagnosticJson(_Model):
    severity: Literal["error", "warning", "info"]
    code: str
    prim: str
    property: str | None
    message: str


class ConvertOutput(_Model):
    """`physxvehicle-usd convert` JSON. Component blocks map a property's base name to its resolved value,
    or to {"value", "source"} with --provenance."""

    stage: StageJson
    scenes: dict[str, SceneJson]
    vehicles: dict[str, VehicleJson]
    tireFrictionTables: dict[str, Block]
    ground: list[GroundJson]
    materials: dict[str, dict[str, float | str]]
    diagnostics: list[DiagnosticJson]


def convert_json_schema() -> dict:
    return ConvertOutput.model_json_schema()
