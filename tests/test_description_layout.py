"""The layout is declared once, by the description's record classes: the JSON form walks their fields, the JSON
Schema's models and the sketch in docs/description-layout.md are generated from them. A field added to a record is
written, and is in the schema, with no other change; the doc fails here when it is stale; a block's declared
property schema and keys are what the reader puts in it."""
from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from pathlib import Path

import pytest

from physxvehicle_usd import description as D
from physxvehicle_usd.outputs.convert import ConvertOutput, _record_model, with_layout_sketch
from physxvehicle_usd.read import read_stage

REPO = Path(__file__).resolve().parent.parent
STAGES = sorted((REPO / "samples").glob("*/*.usda")) + sorted((REPO / "tests" / "scenarios").glob("*.usda"))


def _records(cls: type = D.StageDescription, seen: set | None = None) -> list[type]:
    """Every record class the stage description holds, itself first."""
    seen = set() if seen is None else seen
    seen.add(cls)
    found = [cls]
    for slot in D.layout(cls):
        for record in (slot.of, slot.spec.si_as) if slot.kind == "record" else ():
            if record is not None and record not in seen:
                found += _records(record, seen)
    return found


def _schema_fields(cls: type, variant: str | None = None) -> set[str]:
    model = _record_model(cls)
    if variant is not None:
        model = next(m for m in model.__args__ if m.model_fields["type"].annotation.__args__ == (variant,))
    return set(model.model_fields)


def _expected_keys(cls: type, variant: str | None = None) -> set[str]:
    keys = set()
    for slot in D.written(cls, variant):
        keys |= set(D.block_keys(slot.spec.schema, slot.spec.elsewhere)) if slot.spec.flatten else {slot.name}
    return keys


def test_layout_doc_is_current():
    doc = (REPO / "docs" / "description-layout.md").read_text()
    assert with_layout_sketch(doc) == doc, "run: python tools/generate_layout_doc.py"


@pytest.mark.parametrize("cls", _records(), ids=lambda c: c.__name__)
def test_every_field_is_written_and_in_the_schema(cls):
    """Each field of each record is a key of its JSON (flattened blocks: the block's keys) or the key of the
    record's entry in its parent's map, or else declared internal (kept in memory, never written); the schema model
    has exactly the written keys."""
    for f in dataclasses.fields(cls):
        spec = f.metadata.get("json", D.JsonField())
        written = any(s.name == f.name for v in (D.variants(cls) or (None,)) for s in D.written(cls, v))
        assert (spec.key or spec.internal) != written
    if cls is D.StageDescription:
        assert set(ConvertOutput.model_fields) == _expected_keys(cls)
    for variant in D.variants(cls) or (None,):
        assert _schema_fields(cls, variant) == _expected_keys(cls, variant)


def test_a_new_field_is_written_and_in_the_schema():
    """A field added to a record needs nothing else: the JSON form and the schema take it from the declaration."""
    extended = dataclasses.make_dataclass("ExtendedMaterial", [("grip", float, dataclasses.field(default=0.5))],
                                          bases=(D.MaterialDescription,))
    settings = D.MaterialDescription.authored("/World/M", staticFriction=1.0, dynamicFriction=0.5, restitution=0.0)
    record = extended("/World/M", settings.settings, grip=0.123456789)
    written = D._record_json(record, D._plan(extended, False), False, False, None)
    assert written == {"path": "/World/M", "staticFriction": 1.0, "dynamicFriction": 0.5, "restitution": 0.0,
                       "frictionCombineMode": "average", "restitutionCombineMode": "average", "grip": 0.12345679}
    model = _record_model(extended)
    assert set(model.model_fields) == set(written)  # a flat block is written sorted, the model takes table order
    model.model_validate(written)


@pytest.fixture(scope="module")
def descriptions():
    return {path.name: read_stage(str(path)) for path in STAGES}


@pytest.mark.parametrize("provenance", [False, True])
@pytest.mark.parametrize("si", [False, True])
def test_every_sample_and_scenario_validates(descriptions, provenance, si):
    """The schema forbids keys it does not list and requires those it does: the JSON has exactly its keys."""
    for name, description in descriptions.items():
        data = json.loads(json.dumps(description.to_json(provenance=provenance, si=si)))
        ConvertOutput.model_validate(data)


def _blocks(record, cls: type):
    """(record class, field, block) for every block the record holds, recursively."""
    for slot in D.layout(cls):
        value = getattr(record, slot.name)
        if value is None:
            continue
        items = list(value.values()) if slot.container == "dict" else value if slot.container == "list" else [value]
        for item in items:
            if slot.kind == "block":
                yield cls, slot, item
            elif slot.kind == "record":
                yield from _blocks(item, slot.of)


def test_blocks_hold_the_declared_schema_and_keys(descriptions):
    """A block field's declared property schema is its blocks' schema_name, and its blocks' keys are that schema's
    current properties less those held elsewhere (each one seen in some sample or scenario): the doc's keys."""
    seen = defaultdict(set)
    for description in descriptions.values():
        for cls, slot, block in _blocks(description, D.StageDescription):
            where = f"{cls.__name__}.{slot.name}"
            assert block.schema_name == slot.spec.schema, where
            keys = set(block.public())
            assert keys <= set(D.block_keys(slot.spec.schema, slot.spec.elsewhere)), (where, keys)
            seen[(cls, slot.name, slot.spec.schema, slot.spec.elsewhere)] |= keys
    assert seen
    for (cls, name, schema, elsewhere), keys in seen.items():
        assert keys == set(D.block_keys(schema, elsewhere)), f"{cls.__name__}.{name}"


@pytest.mark.parametrize("provenance", [False, True])
def test_the_si_copy_is_what_the_si_json_writes(descriptions, provenance):
    """`in_si_units()` walks the same declarations as `to_json(si=True)`: the copy, written as it is, is that JSON
    (its stage info keeps the units it was converted from as a field the plain JSON form does not write)."""
    for description in descriptions.values():
        copy = description.in_si_units()
        expected = description.to_json(provenance=provenance, si=True)
        assert copy.stage.convertedFrom == expected["stage"].pop("convertedFrom")
        assert copy.to_json(provenance=provenance) == expected
