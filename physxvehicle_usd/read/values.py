"""Reading one component's attributes off a composed prim, through the property table.

`ComponentReader` hides attribute names (they come from the registered schema) and USD value types; it
reports values of the wrong type or non-finite numbers as diagnostics and treats them as missing.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np
from pxr import Gf, Sdf, Usd

from .. import properties as P
from ..description import Block, Source
from ..diagnostics import DiagnosticSink
from ..units import StageUnits


class Raw(NamedTuple):
    """A property as USD composes it: its value (None = no value) and whether the stage authors it."""

    value: Any
    authored: bool

    @property
    def has_value(self) -> bool:
        return self.value is not None

    @property
    def source(self) -> Source:
        return Source.AUTHORED if self.authored else Source.FALLBACK


# NamedTuple's generated __new__ is Python code; the reader makes hundreds of thousands of these.
_raw = tuple.__new__
_SMALL_ARRAY = 64


def _plain_checked(value: Any) -> tuple[Any, bool]:
    """Gf/Vt values -> plain Python (floats, tuples, lists), and whether every number in it is finite."""
    kind = type(value)
    if kind is float:
        return value, math.isfinite(value)
    if kind in (int, bool, str):
        return value, True
    name = kind.__name__
    if name.endswith("Array"):
        if name.startswith(("Float", "Double", "Half")) and len(value) <= _SMALL_ARRAY:
            items = list(value)  # plain floats: cheaper than a numpy round trip for a handful
            return items, all(map(math.isfinite, items))
        if name.startswith(("Float", "Double", "Half", "Vec", "Quat")):
            array = np.asarray(value)  # vectors: Vt's buffer gives numpy the whole block at once
            return array.tolist(), bool(np.isfinite(array).all())
        return list(value), True
    if name.startswith("Quat"):
        im = value.GetImaginary()
        plain = (float(value.GetReal()), float(im[0]), float(im[1]), float(im[2]))
        return plain, all(math.isfinite(c) for c in plain)
    if isinstance(value, Sdf.Path):
        return str(value), True
    if hasattr(value, "__len__"):
        plain = tuple(value)
        return plain, all(math.isfinite(c) for c in plain)
    return value, True


def _python(value: Any) -> Any:
    return _plain_checked(value)[0]


@lru_cache(maxsize=None)
def _declared(schema: str, base: str) -> tuple[Any, Any]:
    """(fallback as plain Python, a predicate telling whether a composed value has the declared type)."""
    definition = P._definition(schema)
    spec = definition.GetAttributeDefinition(P._full_names(schema)[base]) if definition else None
    if not spec:
        return None, lambda value: True
    type_name = spec.GetTypeName()
    fallback = spec.GetFallbackValue()
    fallback = None if fallback is None else _python(fallback)
    if type_name.isArray:
        cls = type_name.type.pythonClass
        return fallback, lambda value: isinstance(value, cls) if cls else True
    cls = type_name.type.pythonClass
    if cls is not None:  # Gf vectors and quaternions: any precision of the same arity
        arity = len(cls()) if hasattr(cls(), "__len__") else None
        is_quat = "Quat" in cls.__name__
        return fallback, lambda value: (("Quat" in type(value).__name__) if is_quat
                                        else hasattr(value, "__len__") and not isinstance(value, str) and len(value) == arity)
    cpp = str(type_name)
    if cpp in ("float", "double", "half"):
        return fallback, lambda value: isinstance(value, (float, int)) and not isinstance(value, bool)
    if cpp in ("int", "uint", "int64", "uint64", "uchar"):
        return fallback, lambda value: isinstance(value, int) and not isinstance(value, bool)
    if cpp == "bool":
        return fallback, lambda value: isinstance(value, bool)
    if cpp in ("token", "string"):
        return fallback, lambda value: isinstance(value, str)
    return fallback, lambda value: True


class ComponentReader:
    """Reads the properties of one schema (or one multiple-apply instance) on one prim.

    Only authored attributes cost USD calls: the prim's authored property names are fetched once, and an
    unauthored attribute of an applied schema takes the schema's fallback from the registry (cached).
    Construct it only for schemas applied to the prim.
    """

    # Authored property names per prim, shared by the several readers of one prim during one read pass
    # (read_stage clears it before and after); a prim holds up to five components.
    _authored_by_prim: dict[tuple[int, str], frozenset] = {}

    def __init__(self, prim: Usd.Prim, schema: str, sink: DiagnosticSink, units: StageUnits, instance: str | None = None):
        self.prim, self.schema, self.sink, self.units, self.instance = prim, schema, sink, units, instance
        self.path = str(prim.GetPath())
        key = (id(prim.GetStage()), self.path)
        authored = self._authored_by_prim.get(key)
        if authored is None:
            authored = self._authored_by_prim[key] = frozenset(prim.GetAuthoredPropertyNames())
        self.authored = authored
        self._names = P.full_names(schema, instance)

    @classmethod
    def clear_cache(cls) -> None:
        cls._authored_by_prim.clear()

    def name(self, base: str) -> str:
        return self._names[base]

    def raw(self, base: str) -> Raw:
        """The composed value; a value of the wrong type or a NaN/inf is reported and read as missing."""
        fallback, has_declared_type = _declared(self.schema, base)
        name = self.name(base)
        if name not in self.authored:
            return _raw(Raw, (fallback, False))
        try:
            value = self.prim.GetAttribute(name).Get()
        except Exception as exc:  # noqa: BLE001 - a malformed value is the asset's problem, not ours
            self.sink.error("VALUE", self.path, f"value cannot be read: {exc}", name)
            return _raw(Raw, (None, True))
        if value is None:  # authored without a value (a bare declaration): the fallback applies
            return _raw(Raw, (fallback, False))
        if not has_declared_type(value):
            self.sink.error("TYPE", self.path, f"authored value {value!r:.60} does not have the schema's type; ignored", name)
            return _raw(Raw, (None, True))
        value, finite = _plain_checked(value)
        if not finite:
            self.sink.error("NONFINITE", self.path, f"value {value!r} is not finite; ignored", name)
            return _raw(Raw, (None, True))
        return _raw(Raw, (value, True))

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
