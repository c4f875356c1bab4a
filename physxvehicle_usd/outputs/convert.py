"""The `convert` output: the stage description as deterministic JSON or a readable text dump, and the
JSON Schema of the JSON form (pydantic models generated from the description's record declarations)."""
from __future__ import annotations

import json
import typing
from enum import Enum
from functools import lru_cache
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, create_model

from .. import description as D
from .. import properties as P
from ..description import StageDescription


def description_to_json_text(description: StageDescription, provenance: bool = False, si: bool = False) -> str:
    return json.dumps(description.to_json(provenance=provenance, si=si), sort_keys=True, indent=2, allow_nan=False) + "\n"


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
        annotation = _record_model(slot.spec.si_as or slot.of, _json_name(slot.of))
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



# -- the layout sketch of docs/description-layout.md ------------------------------------------------------------

SKETCH_WIDTH = 112


def _wrapped(head: str, items: list[str], tail: str, indent: int) -> list[str]:
    """`head` + the items separated by commas + `tail`, starting at `indent` and wrapped to SKETCH_WIDTH;
    continuation lines start under the first item (4 further in than `indent` when the head is long)."""
    line = " " * indent + head
    hang = " " * (len(line) if len(line) <= SKETCH_WIDTH // 2 else indent + 4)
    lines = []
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else tail)
        if i and len(line) + 1 + len(piece) > SKETCH_WIDTH:
            lines.append(line)
            line = hang + piece
        else:
            line += (" " if i else "") + piece
    return lines + [line]


def _choices(hint: Any) -> str:
    """`: "a" | "b"` for a Literal or Enum type, else nothing."""
    hint = D.strip_none(hint)[0]
    if isinstance(hint, type) and issubclass(hint, Enum):
        return ": " + " | ".join(json.dumps(e.value) for e in hint)
    if typing.get_origin(hint) is Literal:
        return ": " + " | ".join(json.dumps(v) for v in typing.get_args(hint))
    return ""


def _sketch_keys(cls: type, variant: str | None) -> list[str | D.Slot]:
    """A record's written keys: as text where it fits in a list of keys, else its slot (a block, record, ...)."""
    keys: list[str | D.Slot] = []
    for slot in D.written(cls, variant):
        note = f" ({slot.spec.note})" if slot.spec.note else ""
        if slot.name == "type" and variant is not None:
            keys.append(f'"type": "{variant}"')
        elif slot.kind == "value":
            keys.append(f'"{slot.name}"{_choices(slot.of)}{note}')
        elif slot.kind == "block" and slot.spec.flatten:
            keys += D.block_keys(slot.spec.schema, slot.spec.elsewhere)
        else:
            keys.append(slot)
    return keys


def _sketch_record(cls: type, head: str, tail: str, indent: int, variant: str | None = None) -> list[str]:
    """`head{...}tail`: a record's keys in one wrapped list when they are all plain keys, else `head{` and then a
    line (or wrapped run of plain keys) per key."""
    keys = _sketch_keys(cls, variant)
    if all(isinstance(key, str) for key in keys):
        return _wrapped(head + "{", keys, "}" + tail, indent)
    lines, run = [" " * indent + head + "{"], []
    for i, key in enumerate(keys):
        end = "}" + tail if i == len(keys) - 1 else ","
        if isinstance(key, str):
            run.append(key)
            if i == len(keys) - 1 or not isinstance(keys[i + 1], str):
                lines += _wrapped("", run, end, indent + 4)
                run = []
        else:
            lines += _sketch_field(key, end, indent + 4)
    return lines


def _sketch_field(slot: D.Slot, end: str, indent: int) -> list[str]:
    """`"name": ...` of a block, record or model field (`end`: what follows it)."""
    spec, head = slot.spec, f'"{slot.name}": '
    null = " | null" if slot.optional else ""
    if slot.kind == "block":
        keys = list(D.block_keys(spec.schema, spec.elsewhere))
        if slot.container == "dict":
            instances = P.MULTIPLE_APPLY.get(spec.schema)
            key = " | ".join(f'"{i}"' for i in instances) if instances else "<path>"
            return _wrapped(f"{head}{{{key}: {{", keys, "}}" + end, indent)
        return _wrapped(head + "{", keys, "}" + null + end, indent)
    if slot.kind == "model":
        keys = [f'"{name}"{_choices(info.annotation)}' for name, info in slot.of.model_fields.items()
                if name not in spec.exclude]
        return _wrapped(head + "[{", keys, "}]" + end, indent)
    if D.variants(slot.of):  # one alternative a line (or more)
        lines = [" " * indent + head + ("null" if slot.optional else "")]
        for i, variant in enumerate(D.variants(slot.of)):
            lines += _sketch_record(slot.of, "| " if slot.optional or i else "", "", indent + 2, variant)
        lines[-1] += end
        return lines
    opening, closing = {None: ("", ""), "dict": ("{<path>: ", "}"), "list": ("[", ", ...]")}[slot.container]
    order = f" (ordered by {spec.sort_by})" if spec.sort_by else ""
    return _sketch_record(spec.si_as or slot.of, head + opening, closing + order + null + end, indent)


def layout_sketch() -> str:
    """The JSON form's layout, worked out from the description's declarations (docs/description-layout.md)."""
    return "\n".join(_sketch_record(D.StageDescription, "", "", 0)) + "\n"


LAYOUT_BEGIN = "<!-- the layout below is generated from physxvehicle_usd/description.py: tools/generate_layout_doc.py -->"
LAYOUT_END = "<!-- end of the generated layout -->"


def with_layout_sketch(doc: str) -> str:
    """The doc with the text between its layout markers replaced by the current sketch."""
    head, rest = doc.split(LAYOUT_BEGIN, 1)
    _, tail = rest.split(LAYOUT_END, 1)
    return f"{head}{LAYOUT_BEGIN}\n```text\n{layout_sketch()}```\n{LAYOUT_END}{tail}"
