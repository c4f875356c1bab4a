"""Edits named from the registered schemas: an attribute's USD name and value type are never spelled here."""
from __future__ import annotations

from typing import Any

from pxr import Sdf

from .. import properties as P
from ..json_values import canonical_value
from ..repairs import Edit


def schema_type(schema: str, base: str) -> str:
    """The Sdf value type name of a vehicle schema attribute ("float", "float2[]", ...)."""
    definition = P.schema_definition(schema)
    return str(definition.GetAttributeDefinition(P.full_name(schema, base)).GetTypeName())


def set_schema_attribute(prim: str, schema: str, base: str, value: Any, why: str,
                         instance: str | None = None) -> Edit:
    """Author a vehicle schema attribute; the value at the precision the description holds it (float32 values as
    their shortest decimal, so the edit reads as the asset would author it)."""
    return Edit(op="set_attribute", prim=prim, property=P.full_name(schema, base, instance),
                value=canonical_value(value), type_name=schema_type(schema, base), why=why)


def clear_schema_attribute(prim: str, schema: str, base: str, why: str, instance: str | None = None) -> Edit:
    return Edit(op="clear_attribute", prim=prim, property=P.full_name(schema, base, instance), why=why)


def apply_api(prim: str, schema: str, why: str, instance: str | None = None) -> Edit:
    return Edit(op="apply_api", prim=prim, type_name=schema if instance is None else f"{schema}:{instance}", why=why)


def set_attribute(prim: str, name: str, type_name: Sdf.ValueTypeName, value: Any, why: str) -> Edit:
    """An attribute of another schema (UsdPhysics), by its USD name and type."""
    return Edit(op="set_attribute", prim=prim, property=name, value=canonical_value(value), type_name=str(type_name),
                why=why)
