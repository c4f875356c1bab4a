"""The stage description: plain records of what a stage says about its vehicles (docs/description-layout.md).

Records are data, not live prim wrappers (plain dataclasses; see Block). Each component block maps a property's
base name to a resolved value with its provenance; `to_json` produces the `convert` output (optionally with
provenance, optionally converted to SI units through the property table).

The record declarations below are the one statement of the layout: `to_json` walks their fields (`layout`), the
JSON Schema's pydantic models are generated from them (convert.py) and so is the sketch in
docs/description-layout.md. Where the JSON differs from a plain field-by-field copy, the field says so in its
`metadata["json"]` (a JsonField).
"""
from __future__ import annotations

import dataclasses
import operator
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from . import properties as P
from .diagnostics import Diagnostic
from .json_values import json_value
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
# reader must stay close to the cost of reading the attributes at all. The JSON Schema of the JSON form is
# generated from the record declarations as pydantic models (convert.py). Slots: no per-block __dict__ (a
# reader makes 30 blocks per car, and every dict is one more object for the garbage collector to walk).
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


# -- the records -----------------------------------------------------------------------------------------
# Each field's `metadata["json"]` (a JsonField, below) says how it appears in the JSON form where that is not
# simply "under its own name"; the JSON form, its JSON Schema (convert.py) and the layout sketch in
# docs/description-layout.md are all worked out from these declarations.

@dataclass(frozen=True)
class JsonField:
    """How a description field appears in the `convert` JSON (and its schema and the layout doc).

    Without one a field is written under its own name: a Block as {base name: value} sorted by base name, a
    record through its own fields, a map sorted by key, other values as JSON numbers and lists (floats rounded
    to float32, see `json_values.json_value`)."""

    schema: str | None = None        # a Block: the property table schema its values come from (the doc's keys)
    elsewhere: tuple[str, ...] = ()  # a Block: properties of that schema the description holds in other fields
    key: bool = False                # not written: the record's key in its parent's map
    internal: bool = False           # not written: what the reader worked out once for later users of the stage
    flatten: bool = False            # a Block whose values are written as the record's own keys
    variant: str | None = None       # written only when the record's `type` is this (one schema model per type)
    sort_by: str | None = None       # a list of records, written ordered by this field of theirs
    exact: bool = False              # written as it is: doubles, not rounded to float32
    omit_none: bool = False          # left out when None (so optional in the schema)
    exclude: frozenset[str] = frozenset()  # a pydantic model's fields that are not written
    si: Callable[[Any, StageUnits], Any] | None = None  # --units si: the value in SI units, then written as usual
    si_as: type | None = None        # a record: `si` makes it one of this subclass, which the schema describes
    note: str = ""                   # shown beside the field in the layout doc


def _json(**spec: Any) -> dict:
    return {"json": JsonField(**spec)}


def _block(schema: str, **spec: Any) -> dict:
    return _json(schema=schema, **spec)


def _si_translation(matrix: Any, units: StageUnits) -> list:
    """A 4x4 row-major transform with its translation row in metres."""
    length = units.stage_to_si(P.LENGTH)
    return [[c * (length if r == 3 and k < 3 else 1.0) for k, c in enumerate(row)] for r, row in enumerate(matrix)]


def _si_points(points: list | None, units: StageUnits) -> list | None:
    if points is None:
        return None
    length = units.stage_to_si(P.LENGTH)
    return [[c * length for c in p] for p in points]


def _si_length(value: float | None, units: StageUnits) -> float | None:
    return None if value is None else value * units.stage_to_si(P.LENGTH)


@dataclass
class WheelDescription:
    path: str
    index: int
    attachment: Block = field(metadata=_block(P.ATTACHMENT, elsewhere=("index", "wheel", "tire", "suspension")))
    wheel: Block = field(metadata=_block(P.WHEEL))
    tire: Block = field(metadata=_block(P.TIRE))
    suspension: Block = field(metadata=_block(P.SUSPENSION))
    compliance: Block = field(metadata=_block(P.COMPLIANCE))
    wheelController: Block | None = field(default=None, metadata=_block(P.WHEEL_CONTROLLER))


@dataclass
class DriveDescription:
    type: Literal["basic", "standard"]
    path: str
    basic: Block | None = field(default=None, metadata=_block(P.DRIVE_BASIC, flatten=True, variant="basic"))
    engine: Block | None = field(default=None, metadata=_block(P.ENGINE, variant="standard"))
    gears: Block | None = field(default=None, metadata=_block(P.GEARS, variant="standard"))
    clutch: Block | None = field(default=None, metadata=_block(P.CLUTCH, variant="standard"))
    autoGearBox: Block | None = field(default=None, metadata=_block(P.AUTOBOX, variant="standard"))


def collision_offsets(contactOffset: float, restOffset: float, path: str | None = None,
                      source: Source = Source.AUTHORED) -> Block:
    """A collider's P.COLLISION block (contact and rest offsets, stage units) with one provenance for both."""
    block = Block(P.COLLISION, path)
    block.set("contactOffset", contactOffset, source)
    block.set("restOffset", restOffset, source)
    return block


@dataclass
class ShapeDescription:
    """A collision shape of a vehicle's rigid body as PhysX builds it (read/collision.py): a convex polytope (boxes,
    cylinders as omni.physx's 30-corner prism, convex-hull meshes) given by its points, or a sphere or capsule given by
    its centre(s) and radius; all in the vehicle prim's frame, so a copy of the vehicle shares them."""

    path: str
    kind: Literal["convex", "sphere", "capsule"]
    points: list[list[float]] = field(metadata=_json(si=_si_points, note="vehicle prim frame"))
    radius: float | None = field(default=None, metadata=_json(si=_si_length, note="spheres, capsules, cylinders"))
    # a cylinder is a convex shape (its 30-corner hull) that PhysX collides as the exact cylinder where it can
    cylinderEnds: list[list[float]] | None = field(default=None, metadata=_json(
        si=_si_points, note="a cylinder's two cap centres, vehicle prim frame"))
    # contactOffset, restOffset (the P.COLLISION rows), with provenance: flat in the JSON
    offsets: Block | None = field(default=None, metadata=_block(P.COLLISION, flatten=True))
    material: str | None = None
    groups: list[str] = field(default_factory=list)
    filtered: list[str] = field(default_factory=list, metadata=_json(note="FilteredPairsAPI targets"))
    wheel: str | None = field(default=None, metadata=_json(note="the wheel attachment the shape sits under"))
    # omni.physx moves a wheel's shape with the wheel every step: its pose relative to this frame is kept
    wheelFrame: list[list[float]] | None = field(default=None, metadata=_json(
        si=lambda m, units: None if m is None else _si_translation(m, units),
        note="the wheel attachment prim's 4x4 transform in the vehicle prim's frame, row-major as USD"))

    contactOffset = property(lambda self: self.offsets["contactOffset"], doc="stage units; see `offsets`")
    restOffset = property(lambda self: self.offsets["restOffset"], doc="stage units; see `offsets`")


@dataclass
class VehicleDescription:
    path: str = field(metadata=_json(key=True))
    # keyword-only so that it can stand first, where the JSON (and its schema's required list) has it
    scene: str | None = field(default=None, kw_only=True)
    vehicle: Block = field(metadata=_block(P.VEHICLE, elsewhere=("drive",)))
    context: Block = field(metadata=_block(P.CONTEXT))
    rigidBody: Block = field(metadata=_block(P.RIGID_BODY))
    drive: DriveDescription | None = None
    controller: Block | None = field(default=None, metadata=_block(P.CONTROLLER))
    brakes: dict[str, Block] = field(default_factory=dict, metadata=_block(P.BRAKES))
    steering: Block | None = field(default=None, metadata=_block(P.STEERING))
    ackermannSteering: Block | None = field(default=None, metadata=_block(P.ACKERMANN))
    multiWheelDifferential: Block | None = field(default=None, metadata=_block(P.MULTI_DIFF))
    tankDifferential: Block | None = field(default=None, metadata=_block(P.TANK_DIFF))
    tankController: Block | None = field(default=None, metadata=_block(P.TANK_CONTROLLER))
    nonlinearCommandResponses: dict[str, Block] = field(default_factory=dict, metadata=_block(P.NCR))
    wheels: list[WheelDescription] = field(default_factory=list, metadata=_json(sort_by="index"))
    collision: list[ShapeDescription] = field(default_factory=list)


@dataclass
class SceneDescription:
    path: str = field(metadata=_json(key=True))
    # the scene prim's own values (P.SCENE rows): gravity, contact thresholds, solver; flat in the JSON
    settings: Block = field(metadata=_block(P.SCENE, flatten=True))
    context: Block | None = field(default=None, metadata=_block(P.CONTEXT))


@dataclass
class GroundDescription:
    path: str
    kind: Literal["plane", "mesh", "convex", "sphere", "capsule"]
    transform: list[list[float]] = field(metadata=_json(si=_si_translation, note="4x4 world, row-major as USD"))
    axis: str | None = field(default=None, metadata=_json(note="planes"))
    # a sphere's centre or a capsule's two segment ends (its core), like a convex shape's points in the prim's frame,
    # unscaled (the transform scales them)
    points: list[list[float]] | None = field(default=None, metadata=_json(
        si=_si_points, note="meshes, convex, local; a sphere's centre, a capsule's segment ends"))
    faceVertexIndices: list[int] | None = field(default=None, metadata=_json(note="meshes"))
    faceVertexCounts: list[int] | None = field(default=None, metadata=_json(note="meshes"))
    # PhysX's sphere and capsule carry no scale: the radius as UsdPhysics resolves it with the prim's scale
    radius: float | None = field(default=None, metadata=_json(si=_si_length, omit_none=True,
                                                              note="spheres, capsules, cylinders; scaled, stage units"))
    # a cylinder is a convex collider (its 30-corner hull, `points`) that PhysX collides as the exact cylinder
    cylinderEnds: list[list[float]] | None = field(default=None, metadata=_json(
        si=_si_points, omit_none=True, note="a cylinder's two cap centres, local, unscaled"))
    material: str | None = None
    # contactOffset, restOffset (the P.COLLISION rows), with provenance: flat in the JSON (None: not read, an
    # authored description's ground)
    offsets: Block | None = field(default=None, metadata=_block(P.COLLISION, flatten=True))
    groups: list[str] = field(default_factory=list)
    filtered: list[str] = field(default_factory=list, metadata=_json(note="FilteredPairsAPI targets"))

    contactOffset = property(lambda self: self.offsets["contactOffset"], doc="stage units; see `offsets`")
    restOffset = property(lambda self: self.offsets["restOffset"], doc="stage units; see `offsets`")


@dataclass
class MaterialDescription:
    """A physics material as PhysX meets it: the P.MATERIAL rows (friction, restitution, combine modes) with their
    provenance, flat in the JSON. The stage description's `defaultMaterial` (path None) is omni.physx's default
    material, which every collider with no material bound collides with."""

    path: str | None
    settings: Block = field(metadata=_block(P.MATERIAL, flatten=True))

    staticFriction = property(lambda self: self.settings["staticFriction"])
    dynamicFriction = property(lambda self: self.settings["dynamicFriction"])
    restitution = property(lambda self: self.settings["restitution"])
    frictionCombineMode = property(lambda self: self.settings["frictionCombineMode"])
    restitutionCombineMode = property(lambda self: self.settings["restitutionCombineMode"])

    @classmethod
    def authored(cls, path: str, **values: Any) -> "MaterialDescription":
        """A material whose every P.MATERIAL value is given (the combine modes may be left to their default)."""
        block = Block(P.MATERIAL, path)
        for row in P.DERIVED_ROWS:
            if row.schema == P.MATERIAL:
                given = row.base in values
                block.set(row.base, values[row.base] if given else row.default,
                          Source.AUTHORED if given else Source.DEFAULT)
        return cls(path, block)


def default_material() -> MaterialDescription:
    """omni.physx's default material (the P.MATERIAL rows' defaults): what a collider with no material bound meets
    others with."""
    block = Block(P.MATERIAL, None)
    for row in P.DERIVED_ROWS:
        if row.schema == P.MATERIAL:
            block.set(row.base, row.default, Source.DEFAULT)
    return MaterialDescription(None, block)


@dataclass
class CollisionGroupDescription:
    """A PhysicsCollisionGroup as PhysX filters with it: the groups its colliders do not touch (or, inverted, the only
    ones they touch)."""

    path: str = field(metadata=_json(key=True))
    filtered: list[str] = field(default_factory=list)
    inverted: bool = False


@dataclass
class StageInfo:
    file: str
    metersPerUnit: float = field(metadata=_json(exact=True))
    kilogramsPerUnit: float = field(metadata=_json(exact=True))
    upAxis: str


@dataclass
class SiStageInfo(StageInfo):
    """The stage info that `to_json(si=True)` writes: SI units, and the stage's own units it was converted from."""

    convertedFrom: dict[str, float] | None = field(default=None, metadata=_json(exact=True, omit_none=True,
                                                                                note="--units si"))

    @classmethod
    def of(cls, info: StageInfo, units: StageUnits) -> SiStageInfo:
        values = {f.name: getattr(info, f.name) for f in dataclasses.fields(StageInfo)}
        return cls(**{**values, "metersPerUnit": 1.0, "kilogramsPerUnit": 1.0}, convertedFrom={
            "metersPerUnit": info.metersPerUnit, "kilogramsPerUnit": info.kilogramsPerUnit})


@dataclass
class StageDescription:
    stage: StageInfo = field(metadata=_json(si=SiStageInfo.of, si_as=SiStageInfo))
    scenes: dict[str, SceneDescription] = field(default_factory=dict)
    # the scene of a vehicle on a stage with no physics scene: the one omni.physx makes (the reader's defaults)
    defaultScene: SceneDescription | None = field(default=None, metadata=_json(omit_none=True))
    vehicles: dict[str, VehicleDescription] = field(default_factory=dict)
    tireFrictionTables: dict[str, Block] = field(default_factory=dict, metadata=_block(P.TABLE))
    # the table of a tire that names none: omni.physx's built-in one (the reader's defaults; None: no reader made it)
    defaultFrictionTable: Block | None = field(default=None, metadata=_block(P.TABLE))
    ground: list[GroundDescription] = field(default_factory=list)
    materials: dict[str, MaterialDescription] = field(default_factory=dict)
    # what a collider with no material bound collides with: omni.physx's default material
    defaultMaterial: MaterialDescription = field(default_factory=lambda: default_material())
    collisionGroups: dict[str, CollisionGroupDescription] = field(default_factory=dict)
    # collider path -> the collision groups it is in, in path order (read/collision.groups_of), where the reader worked it
    # out (it had colliders to filter; None: it did not): validate's A03/A07 check filters with it rather than walking
    # the stage's groups again
    colliderGroups: dict[str, list[str]] | None = field(default=None, metadata=_json(internal=True))
    # the file is left out: it is the stage's, in stage.file; and the fix: the reader attaches none (validate does)
    diagnostics: list[Diagnostic] = field(default_factory=list, metadata=_json(exclude=frozenset({"file", "fix"})))

    @property
    def units(self) -> StageUnits:
        return StageUnits(self.stage.metersPerUnit, self.stage.kilogramsPerUnit)

    def vehicle_context(self, path: str) -> "Block | None":
        """The vehicle context that applies to the vehicle at `path`: its own, else its scene's (None: neither)."""
        vehicle = self.vehicles[path]
        if vehicle.context is not None and vehicle.context.values:
            return vehicle.context
        scene = self.scenes.get(vehicle.scene)
        return scene.context if scene is not None else None

    def scene_of(self, path: str) -> SceneDescription | None:
        """The scene the vehicle at `path` is simulated in: its own, else the default scene (None: neither, a
        description no reader made)."""
        vehicle = self.vehicles.get(path)
        return self.scenes[vehicle.scene] if vehicle is not None and vehicle.scene else self.defaultScene

    def to_json(self, provenance: bool = False, si: bool = False) -> dict:
        return _record_json(self, _plan(StageDescription, si), provenance, si, self.units)

    def in_si_units(self) -> "StageDescription":
        """A copy in metres and kilograms, every value converted as `to_json(si=True)` writes it (walking the same
        declarations); the records of this description are left as they are."""
        return _record_in_si(self, self.units)


def _block_in_si(block: Block, units: StageUnits) -> Block:
    out = Block(block.schema_name, block.path)
    for base, item in block.values.items():
        prop = P.TABLE_BY_KEY.get((block.schema_name, base))
        value = item.value if prop is None else _to_si(json_value(item.value), prop, units)
        out.values[base] = _resolved(Resolved, (value, item.source))
    return out


def _record_in_si(record: Any, units: StageUnits) -> Any:
    """A copy of a description record with its blocks and records converted and its `si` hooks applied (the stage
    info becomes metres and kilograms, saying which units it was converted from)."""
    changes = {}
    for slot in layout(type(record)):
        value = getattr(record, slot.name)
        if value is None or slot.kind not in ("block", "record") and slot.spec.si is None:
            continue
        convert = {"block": _block_in_si, "record": _record_in_si}.get(slot.kind)
        if slot.spec.si is not None:
            changes[slot.name] = slot.spec.si(value, units)
        elif slot.container == "dict":
            changes[slot.name] = {key: convert(item, units) for key, item in value.items()}
        elif slot.container == "list":
            changes[slot.name] = [convert(item, units) for item in value]
        else:
            changes[slot.name] = convert(value, units)
    return dataclasses.replace(record, **changes)


# -- JSON form ------------------------------------------------------------------------------------------

def _to_si(value: Any, prop: P.Prop | None, units: StageUnits) -> Any:
    return value if prop is None else P.stage_to_si(prop, value, units)


def _block_json(block: Block | None, provenance: bool, si: bool, units: StageUnits) -> dict | None:
    if block is None:
        return None
    out = {}
    for base, item in sorted(block.public().items()):
        value = json_value(item.value)
        if si:
            value = _to_si(value, P.TABLE_BY_KEY.get((block.schema_name, base)), units)
            value = json_value(value)
        out[base] = {"value": value, "source": item.source.value} if provenance else value
    return out


# -- the field plan: each record class's fields, read once from the declarations above ----------------------

class Slot(NamedTuple):
    """One field of a description record, as the JSON form sees it."""

    name: str                 # the field, and its key in the JSON
    kind: str                 # "block", "record" (a description dataclass), "model" (pydantic) or "value"
    of: Any                   # the Block, record or model class; for a value, its type
    container: str | None     # None, "dict" (written sorted by key) or "list"
    optional: bool            # may be None (written as null unless spec.omit_none)
    spec: JsonField


def strip_none(hint: Any) -> tuple[Any, bool]:
    """(the type without None, whether None is allowed)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(args) < len(typing.get_args(hint)) and len(args) == 1:
            return args[0], True
    return hint, False


_NO_SPEC = JsonField()


def _kind(hint: Any) -> str:
    if hint is Block:
        return "block"
    if dataclasses.is_dataclass(hint):
        return "record"
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return "model"
    return "value"


@lru_cache(maxsize=None)
def layout(cls: type) -> tuple[Slot, ...]:
    """The fields of a description record class in declaration order, classified by their declared types."""
    hints = typing.get_type_hints(cls)
    slots = []
    for f in dataclasses.fields(cls):
        hint, optional = strip_none(hints[f.name])
        container, inner = None, hint
        origin = typing.get_origin(hint)
        if origin is dict and _kind(typing.get_args(hint)[1]) != "value":
            container, inner = "dict", typing.get_args(hint)[1]
        elif origin is list and _kind(typing.get_args(hint)[0]) != "value":
            container, inner = "list", typing.get_args(hint)[0]
        kind = _kind(inner)
        slots.append(Slot(f.name, kind, inner if kind != "value" else hints[f.name], container, optional,
                          f.metadata.get("json", _NO_SPEC)))
    return tuple(slots)


def variants(cls: type) -> tuple[str, ...]:
    """The values of a record's `type` that select which of its fields are written ((): not a variant record)."""
    if not any(slot.spec.variant for slot in layout(cls)):
        return ()
    return typing.get_args(typing.get_type_hints(cls)["type"])


def block_keys(schema: str, elsewhere: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The base names a Block field of this property table schema holds, in table order: the current (not
    deprecated) properties, less those the description holds in other fields (JsonField.elsewhere)."""
    return tuple(p.base for p in P.TABLE_ROWS + P.DERIVED_ROWS
                 if p.schema == schema and not p.deprecated_by and p.base not in elsewhere)


def written(cls: type, variant: str | None = None) -> tuple[Slot, ...]:
    """The fields a record writes (of one variant, for a variant record), in order."""
    return tuple(slot for slot in layout(cls) if not slot.spec.key and not slot.spec.internal
                 and (slot.spec.variant is None or slot.spec.variant == variant))


# -- the walk ----------------------------------------------------------------------------------------------
# `to_json` runs on 10,000-car stages: a plan per record class (and --units choice) is worked out once, and the
# walk is one loop over it per record. Steps:
_AS_IS, _PLAIN, _BLOCK, _FLAT, _BLOCKS, _RECORD, _VARIANT, _RECORDS, _RECORD_LIST, _MODELS = range(10)


@lru_cache(maxsize=None)
def _plan(cls: type, si: bool) -> tuple | dict:
    """(name, step, arg, si hook, omit when None) per written field; for a variant record, one such plan per type."""
    if variants(cls):
        return {v: _field_plan(cls, si, v) for v in variants(cls)}
    return _field_plan(cls, si, None)


def _field_plan(cls: type, si: bool, variant: str | None) -> tuple:
    plan = []
    for slot in written(cls, variant):
        spec, arg = slot.spec, None
        if slot.kind == "block" and slot.container is None:
            step = _FLAT if spec.flatten else _BLOCK
        elif slot.kind == "block" and slot.container == "dict":
            step = _BLOCKS
        elif slot.kind == "record" and slot.container is None:
            arg = _plan(spec.si_as if si and spec.si_as else slot.of, si)
            step = _VARIANT if isinstance(arg, dict) else _RECORD
        elif slot.kind == "record" and slot.container == "dict":
            step, arg = _RECORDS, _plan(slot.of, si)
        elif slot.kind == "record" and slot.container == "list":
            step, arg = _RECORD_LIST, (_plan(slot.of, si), operator.attrgetter(spec.sort_by) if spec.sort_by else None)
        elif slot.kind == "model" and slot.container == "list":
            step, arg = _MODELS, set(spec.exclude)
        elif slot.kind == "value":
            inner = strip_none(slot.of)[0]
            as_is = spec.exact or inner in (str, int, bool) or typing.get_origin(inner) is Literal
            step = _AS_IS if as_is else _PLAIN
        else:
            raise TypeError(f"{cls.__name__}.{slot.name}: no JSON form for a {slot.container} of {slot.kind}s")
        plan.append((slot.name, step, arg, spec.si if si else None, spec.omit_none))
    return tuple(plan)


def _record_json(record: Any, plan: tuple, provenance: bool, si: bool, units: StageUnits) -> dict:
    out = {}
    for name, step, arg, si_hook, omit_none in plan:
        value = getattr(record, name)
        if si_hook is not None:
            value = si_hook(value, units)
        if step == _BLOCK:
            out[name] = _block_json(value, provenance, si, units)
        elif value is None and omit_none:
            continue
        elif step == _AS_IS:
            out[name] = value
        elif step == _PLAIN:
            out[name] = json_value(value)
        elif step == _BLOCKS:
            out[name] = {key: _block_json(block, provenance, si, units) for key, block in sorted(value.items())}
        elif step == _RECORD_LIST:
            plan_of, sort_key = arg
            items = value if sort_key is None else sorted(value, key=sort_key)
            out[name] = [_record_json(item, plan_of, provenance, si, units) for item in items]
        elif step == _FLAT:
            out.update(_block_json(value, provenance, si, units) or {})
        elif value is None:
            out[name] = None
        elif step == _RECORD:
            out[name] = _record_json(value, arg, provenance, si, units)
        elif step == _VARIANT:
            out[name] = _record_json(value, arg[value.type], provenance, si, units)
        elif step == _RECORDS:
            out[name] = {key: _record_json(item, arg, provenance, si, units) for key, item in sorted(value.items())}
        else:  # _MODELS
            out[name] = [item.model_dump(mode="json", exclude=arg) for item in value]
    return out
