"""The `convert` output: the stage description as deterministic JSON or a readable text dump, and the
JSON Schema of the JSON form (pydantic models generated from the description's record declarations)."""
from __future__ import annotations

import json
from enum import Enum
from functools import lru_cache
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from . import description as D
from . import properties as P
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
# The pydantic models are generated from the description's dataclasses (description.layout), the same field
# plan `to_json` walks: a record class gives a `...Json` model of the fields it writes, a variant record one
# model per `type` (a discriminated union), a flattened block the keys of its property table schema.

Value = Any
Block = dict[str, Value]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _json_name(cls: type, variant: str | None = None) -> str:
    base = cls.__name__.removesuffix("Description").removesuffix("Info")
    return f"{(variant or '').capitalize()}{base}Json"


def _annotation(slot: D.Slot) -> Any:
    if slot.kind == "value":
        return slot.of
    if slot.kind == "block":
        annotation = Block
    elif slot.kind == "record":
        annotation = _record_model(slot.of)
    else:
        annotation = _model_json(slot.of, slot.spec.exclude)
    annotation = {None: annotation, "dict": dict[str, annotation], "list": list[annotation]}[slot.container]
    return annotation | None if slot.optional else annotation


def _fields(cls: type, variant: str | None = None) -> dict[str, Any]:
    """Field definitions for create_model: what the record writes, all required but the omit_none ones."""
    fields: dict[str, Any] = {}
    for slot in D.written(cls, variant):
        if slot.spec.flatten:
            fields.update({key: (Value, ...) for key in D.block_keys(slot.spec.schema, slot.spec.elsewhere)})
        elif slot.name == "type" and variant is not None:
            fields[slot.name] = (Literal[variant], ...)
        elif slot.spec.omit_none:
            fields[slot.name] = (_annotation(slot), None)
        elif slot.kind == "record" and D.variants(slot.of):
            fields[slot.name] = (_annotation(slot), Field(discriminator="type"))
        else:
            fields[slot.name] = (_annotation(slot), ...)
    return fields


@lru_cache(maxsize=None)
def _record_model(cls: type, name: str | None = None, doc: str | None = None) -> Any:
    """The model of a record class (for a variant record, the union of its variants' models)."""
    if D.variants(cls):
        return Union[tuple(create_model(_json_name(cls, v), __base__=_Model, **_fields(cls, v)) for v in D.variants(cls))]
    return create_model(name or _json_name(cls), __base__=_Model, __doc__=doc, **_fields(cls))


@lru_cache(maxsize=None)
def _model_json(cls: type[BaseModel], exclude: frozenset[str]) -> type[BaseModel]:
    """A pydantic record as `model_dump(mode="json")` writes it: every field (so required), enums as their values."""
    fields = {}
    for name, info in cls.model_fields.items():
        if name in exclude:
            continue
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, Enum):
            annotation = Literal[tuple(e.value for e in annotation)]
        fields[name] = (annotation, ...)
    return create_model(f"{cls.__name__}Json", __base__=_Model, **fields)


ConvertOutput = _record_model(D.StageDescription, "ConvertOutput", (
    "`physxvehicle-usd convert` JSON. Component blocks map a property's base name to its resolved value,\n"
    'or to {"value", "source"} with --provenance.'))


def convert_json_schema() -> dict:
    return ConvertOutput.model_json_schema()

