"""Where a repair writes a wheel's values of a shared component (a tire or suspension prim that several wheel
attachments name by relationship).

Where every wheel needs the same values written, they go on the component itself. Where wheels need different ones
(a tire shared by front and rear wheels whose deprecated lateral stiffness resolves per rest load; a suspension whose
sprung mass differs front to rear), each group of wheels that needs the same values but the first gets a copy of
the component beside it, <name>_<first wheel's name>: the component's own authored properties (not its deprecated
ones), the group's values, and its wheels' relationships pointed at it. That is what a single value per component
requires, and what every resolved value the same asks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pxr import Sdf, Usd

from .. import properties as P
from ..json_values import canonical_value
from ..repairs import Edit
from .edits import apply_api, set_attribute, set_schema_attribute

_DEPRECATED = {P.full_name(p.schema, p.base) for p in P.TABLE_ROWS
               if p.deprecated_by and P.is_schema_property(p.schema, p.base)}


@dataclass
class Placed:
    target: dict[str, str]                           # wheel attachment path -> the prim its values are written on
    edits: list[Edit] = field(default_factory=list)  # the copies, made (none where every wheel agrees)


def _copy_properties(source: Usd.Prim, copy: str, schema: str, why: str) -> list[Edit]:
    """The component's authored properties of its schema, except the deprecated ones, onto the copy."""
    from ..write import plain_value

    edits = []
    for name in sorted(P.full_names(schema).values()):
        if name in _DEPRECATED:
            continue
        prop = source.GetProperty(name)
        if isinstance(prop, Usd.Attribute) and prop.HasAuthoredValue() and prop.Get() is not None:
            edits.append(set_attribute(copy, name, prop.GetTypeName(), plain_value(prop.Get()), why))
        elif isinstance(prop, Usd.Relationship) and prop.HasAuthoredTargets():
            edits.append(Edit(op="set_relationship_targets", prim=copy, property=name,
                              value=[str(t) for t in prop.GetTargets()], why=why))
    return edits


def place(stage: Usd.Stage, schema: str, rel_base: str, prim: str, wanted: dict[str, dict[str, Any]]) -> Placed:
    """wanted: wheel attachment path -> {base name: value} its `schema` component `prim` must hold."""
    groups: list[tuple[Any, dict[str, Any], list[str]]] = []
    for wheel, values in wanted.items():
        key = canonical_value([[base, values[base]] for base in sorted(values)])
        found = next((g for g in groups if g[0] == key), None)
        if found is None:
            groups.append((key, values, [wheel]))
        else:
            found[2].append(wheel)
    target = {wheel: prim for wheel in wanted}
    if len(groups) <= 1:
        return Placed(target)
    source = stage.GetPrimAtPath(prim)
    edits: list[Edit] = []
    for _, values, wheels in groups[1:]:
        copy = Sdf.Path(prim).GetParentPath().AppendChild(f"{source.GetName()}_{Sdf.Path(wheels[0]).name}")
        while stage.GetPrimAtPath(copy):  # a name the stage already uses
            copy = copy.GetParentPath().AppendChild(copy.name + "_")
        copy = str(copy)
        why = (f"{prim} is shared by wheels that need different values: {', '.join(wheels)} get a copy of their own")
        edits.append(Edit(op="define_prim", prim=copy, type_name=str(source.GetTypeName()) or "Scope", why=why))
        edits.append(apply_api(copy, schema, why))
        edits += _copy_properties(source, copy, schema, why)
        edits += [set_schema_attribute(copy, schema, base, value, why) for base, value in sorted(values.items())]
        edits += [Edit(op="set_relationship_targets", prim=wheel, property=P.full_name(P.ATTACHMENT, rel_base),
                       value=[copy], why=why) for wheel in wheels]
        target.update({wheel: copy for wheel in wheels})
    return Placed(target, edits)
