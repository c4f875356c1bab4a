"""Repairs as data: what a fix will author, where and why, and the one function that authors it.

A finding that has one unambiguous repair carries it (`Diagnostic.fix`). A repair is a list of edits, each one
authoring step on one prim:

    finding.fix.summary                     "apply PhysxVehicleContextAPI to /World/PhysicsScene (posZ up, posX ...)"
    [e.op for e in finding.fix.edits]       ["apply_api", "set_attribute", "set_attribute"]
    finding.fix.apply(stage)                # authored into the stage's current edit target

`apply` writes to whatever layer is the stage's edit target: a new layer over the asset (`physxvehicle-usd fix`'s
default: the asset untouched, the layer shows exactly what changed) or the root layer (`--in-place`). Every edit is
idempotent (applying a repair twice authors the same thing), so repairs that share an edit (a new physics scene
that both the "no scene" and the "no vehicle context" repairs need) can be applied in any order.

Code that consumes repairs (the fix command, UsdValidation fixers, suggested fixes of other validators) calls
`apply` and never authors a repair itself.
"""
from __future__ import annotations

from typing import Any, Literal

from pxr import Sdf, Usd
from pydantic import BaseModel, ConfigDict, field_validator

from .stage.values import usd_value

EditOp = Literal[
    "define_prim",              # a prim of type `type_name` at `prim`, where there is none (an existing prim is kept)
    "apply_api",                # the applied API schema `type_name` ("PhysxVehicleBrakesAPI:brakes0" for an instance)
    "set_attribute",            # `property` (Sdf value type `type_name`) = `value` at default time
    "clear_attribute",          # `property` reads as unauthored: its spec removed, or blocked where a weaker layer
                                # (a sublayer or reference the edit target cannot change) holds an opinion
    "add_relationship_target",  # `value` (a prim path) added to the targets of the relationship `property`
    "set_relationship_targets", # the relationship `property` targets exactly `value` (a list of prim paths)
    "set_custom_data",          # the prim's custom data `property` (a key, ':' nesting) = `value`
]


def _frozen(value: Any) -> Any:
    """Lists as tuples, all the way down: an edit is hashable like the finding it belongs to (JSON still has
    lists)."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


class Edit(BaseModel):
    """One authoring step, as data."""

    model_config = ConfigDict(frozen=True)

    op: EditOp
    prim: str                        # the prim's path
    property: str | None = None      # the attribute, relationship or custom-data key
    value: Any = None                # JSON-able: numbers, strings, booleans, (nested) lists
    type_name: str | None = None     # an Sdf value type name (set_attribute), a prim type (define_prim) or an
                                     # applied API schema (apply_api)
    why: str

    @field_validator("value", mode="before")
    @classmethod
    def _hashable(cls, value: Any) -> Any:
        return _frozen(value)

    def line(self) -> str:
        """One line: 'set /World/Car.physxVehicle:foo = 1.5 (why)'."""
        where = self.prim + (f".{self.property}" if self.property else "")
        what = {
            "define_prim": lambda: f"define {self.type_name} {where}",
            "apply_api": lambda: f"apply {self.type_name} to {where}",
            "set_attribute": lambda: f"set {where} = {_text(self.value)}",
            "clear_attribute": lambda: f"clear {where}",
            "add_relationship_target": lambda: f"add target {self.value} to {where}",
            "set_relationship_targets": lambda: f"set {where} to target {', '.join(self.value or ()) or 'nothing'}",
            "set_custom_data": lambda: f"set custom data {where} = {_text(self.value)}",
        }[self.op]()
        return f"{what} ({self.why})"

    def apply(self, stage: Usd.Stage) -> None:
        _APPLY[self.op](stage, self)


class Repair(BaseModel):
    """What fixes one finding: a one-line summary and the edits, in the order they are authored."""

    model_config = ConfigDict(frozen=True)

    summary: str
    edits: tuple[Edit, ...]

    def apply(self, stage: Usd.Stage) -> None:
        """Author the edits into the stage's current edit target, in order (a prim an edit defines is there for
        the edits after it)."""
        for edit in self.edits:
            edit.apply(stage)


def _text(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.9g}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(v) for v in value) + ")"
    return repr(value) if isinstance(value, str) else str(value)


def _prim(stage: Usd.Stage, edit: Edit) -> Usd.Prim:
    prim = stage.GetPrimAtPath(edit.prim)
    if not prim:
        raise ValueError(f"{edit.prim}: no such prim to {edit.op.replace('_', ' ')}")
    return prim


def _define_prim(stage: Usd.Stage, edit: Edit) -> None:
    prim = stage.GetPrimAtPath(edit.prim)
    if not prim or not prim.IsDefined():
        stage.DefinePrim(edit.prim, edit.type_name or "")


def _apply_api(stage: Usd.Stage, edit: Edit) -> None:
    prim = _prim(stage, edit)
    if edit.type_name not in prim.GetAppliedSchemas():
        prim.AddAppliedSchema(edit.type_name)


def _set_attribute(stage: Usd.Stage, edit: Edit) -> None:
    prim = _prim(stage, edit)
    type_name = Sdf.ValueTypeNames.Find(edit.type_name or "")
    if not type_name:
        raise ValueError(f"{edit.prim}.{edit.property}: unknown value type {edit.type_name!r}")
    attr = prim.GetAttribute(edit.property)
    if not attr:
        attr = prim.CreateAttribute(edit.property, type_name, custom=False)
    attr.Set(usd_value(type_name, edit.value))


def _clear_attribute(stage: Usd.Stage, edit: Edit) -> None:
    prim = _prim(stage, edit)
    attr = prim.GetAttribute(edit.property)
    if not attr:
        return
    layer = stage.GetEditTarget().GetLayer()
    spec_path = stage.GetEditTarget().MapToSpecPath(attr.GetPath())
    others = [spec for spec in attr.GetPropertyStack() if spec.layer != layer]
    if others:  # an opinion this layer cannot remove: a block makes the attribute read as unauthored
        attr.Block()
        return
    spec = layer.GetPropertyAtPath(spec_path)
    if spec is not None:
        layer.GetPrimAtPath(spec_path.GetPrimPath()).RemoveProperty(spec)


def _add_relationship_target(stage: Usd.Stage, edit: Edit) -> None:
    prim = _prim(stage, edit)
    rel = prim.GetRelationship(edit.property) or prim.CreateRelationship(edit.property, custom=False)
    target = Sdf.Path(edit.value)
    if target not in rel.GetTargets():
        rel.AddTarget(target)


def _set_relationship_targets(stage: Usd.Stage, edit: Edit) -> None:
    prim = _prim(stage, edit)
    rel = prim.GetRelationship(edit.property) or prim.CreateRelationship(edit.property, custom=False)
    rel.SetTargets([Sdf.Path(target) for target in edit.value or ()])


def _set_custom_data(stage: Usd.Stage, edit: Edit) -> None:
    _prim(stage, edit).SetCustomDataByKey(edit.property, edit.value)


_APPLY = {"define_prim": _define_prim, "apply_api": _apply_api, "set_attribute": _set_attribute,
          "clear_attribute": _clear_attribute, "add_relationship_target": _add_relationship_target,
          "set_relationship_targets": _set_relationship_targets, "set_custom_data": _set_custom_data}
