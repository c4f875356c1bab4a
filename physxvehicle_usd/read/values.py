"""Reading one component's attributes off a composed prim, through the property table.

`ComponentReader` hides attribute names (they come from the registered schema) and USD value types; it
reports values of the wrong type or non-finite numbers as diagnostics and treats them as missing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pxr import Gf, Sdf, Usd

from .. import properties as P
from ..description import Block, Source
from ..diagnostics import DiagnosticSink
from ..units import StageUnits


@dataclass(frozen=True)
class Raw:
    """A property as USD composes it: its value (None = no value) and whether the stage authors it."""

    value: Any
    authored: bool

    @property
    def has_value(self) -> bool:
        return self.value is not None

    @property
    def source(self) -> Source:
        return Source.AUTHORED if self.authored else Source.FALLBACK


def _python(value: Any) -> Any:
    """Gf/Vt values -> plain Python (floats, tuples, lists of tuples)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (Gf.Quatf, Gf.Quatd, Gf.Quath)):
        im = value.GetImaginary()
        return (float(value.GetReal()), float(im[0]), float(im[1]), float(im[2]))
    if isinstance(value, Sdf.Path):
        return str(value)
    if hasattr(value, "__len__"):
        return [_python(v) if not isinstance(v, float) else v for v in value] if _is_array(value) else tuple(
            float(v) if isinstance(v, float) else _python(v) for v in value)
    return value


def _is_array(value: Any) -> bool:
    return type(value).__name__.endswith("Array")


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    return True


def _expected_python_type(type_name: Sdf.ValueTypeName):
    scalar = type_name.scalarType if type_name.isArray else type_name
    cpp = str(scalar.type.typeName) if scalar.type else ""
    return type_name.isArray, cpp


class ComponentReader:
    """Reads the properties of one schema (or one multiple-apply instance) on one prim."""

    def __init__(self, prim: Usd.Prim, schema: str, sink: DiagnosticSink, units: StageUnits, instance: str | None = None):
        self.prim, self.schema, self.sink, self.units, self.instance = prim, schema, sink, units, instance
        self.path = str(prim.GetPath())

    def name(self, base: str) -> str:
        return P.full_name(self.schema, base, self.instance)

    def raw(self, base: str) -> Raw:
        """The composed value; a value of the wrong type or a NaN/inf is reported and read as missing."""
        name = self.name(base)
        attr = self.prim.GetAttribute(name)
        if not attr:
            return Raw(None, False)
        authored = attr.HasAuthoredValue()
        try:
            value = attr.Get()
        except Exception as exc:  # noqa: BLE001 - a malformed value is the asset's problem, not ours
            self.sink.error("VALUE", self.path, f"value cannot be read: {exc}", name)
            return Raw(None, authored)
        if value is None:
            return Raw(None, authored)
        definition = P._definition(self.schema)
        declared = definition.GetAttributeDefinition(P._full_names(self.schema)[base]) if definition else None
        if declared:
            declared_type = declared.GetTypeName()
            actual = attr.GetTypeName()
            if actual != declared_type and actual.type != declared_type.type:
                self.sink.error("TYPE", self.path, f"authored as {actual} but the schema declares {declared_type}; ignored", name)
                return Raw(None, authored)
        value = _python(value)
        if not _finite(value):
            self.sink.error("NONFINITE", self.path, f"value {value!r} is not finite; ignored", name)
            return Raw(None, authored)
        return Raw(value, authored)

    def targets(self, base: str) -> tuple[list[str], bool]:
        """Relationship targets (as strings) and whether any are authored."""
        rel = self.prim.GetRelationship(self.name(base))
        if not rel or not rel.HasAuthoredTargets():
            return [], False
        return [str(t) for t in rel.GetTargets()], True

    # -- resolution helpers -------------------------------------------------------------------------------

    def default(self, base: str) -> Any:
        """The parser's default for this property, scaled to the stage's units."""
        prop = P.prop(self.schema, base)
        factor = self.units.si_to_stage(prop.dim)
        return prop.default * factor if factor != 1.0 else prop.default

    def check_range(self, base: str, value: Any) -> bool:
        prop = P.prop(self.schema, base)
        if prop.range is None or value is None:
            return True
        if not prop.range.accepts(value):
            self.sink.error(prop.range_code or "RANGE", self.path,
                            f"value {value:g} is outside the accepted range {prop.range.describe()}", self.name(base))
            return False
        return True

    def required(self, base: str, code: str) -> Raw:
        raw = self.raw(base)
        if not raw.has_value:
            self.sink.error(code, self.path, "needs a value (the schema has no fallback)", self.name(base))
        return raw

    def copy(self, block: Block, base: str, *, code: str | None = None) -> bool:
        """Read a property, check its range, store it as authored/fallback. Returns False when invalid."""
        raw = self.required(base, code) if code else self.raw(base)
        if not raw.has_value:
            return code is None
        block.set(base, raw.value, raw.source)
        return self.check_range(base, raw.value) if isinstance(raw.value, (int, float)) and not isinstance(raw.value, bool) else True

    def with_default(self, block: Block, base: str) -> bool:
        """A property whose sentinel (or missing value) resolves to the parser's unit-scaled default."""
        prop = P.prop(self.schema, base)
        raw = self.raw(base)
        if not raw.has_value or (prop.sentinel is not None and raw.value == prop.sentinel):
            block.set(base, self.default(base), Source.DEFAULT)
            return True
        block.set(base, raw.value, raw.source)
        return self.check_range(base, raw.value) if isinstance(raw.value, (int, float)) else True

    def deprecated_warning(self, base: str, replacement: str) -> None:
        self.sink.warning("DEPRECATED", self.path, f"deprecated attribute, use {replacement} instead", self.name(base))
