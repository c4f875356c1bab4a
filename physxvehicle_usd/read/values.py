"""Reading one component's attributes off a composed prim, through the property table.

`ComponentReader` hides attribute names (they come from the registered schema) and USD value types; it
reports values of the wrong type or non-finite numbers as diagnostics and treats them as missing.

Speed matters here: a stage of 10,000 cars reads about a million values through `ComponentReader.raw`.
What can be worked out once per schema (attribute names, fallbacks, type checks, table rows) is, in
`PropertySpec`; values of exactly the declared type take a short path (no type predicate); and Gf/Vt
values become plain Python through slices and the buffer protocol (memoryview, numpy), never by iterating
them (Gf and Vt objects iterate through Python's old sequence protocol, ten times slower than a slice).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable, NamedTuple

import numpy as np
from pxr import Sdf, Usd

from .. import properties as P
from ..description import Block, Source
from ..diagnostics import DiagnosticSink
from ..units import StageUnits
from . import pxr_unchecked as U


class Raw(NamedTuple):
    """A property as USD composes it: its value (None = no value), whether the stage authors it, and the
    provenance that follows (AUTHORED or FALLBACK; a field, not a property: readers ask it for most values)."""

    value: Any
    authored: bool
    source: Source

    @property
    def has_value(self) -> bool:
        return self.value is not None


# NamedTuple's generated __new__ is Python code; the reader makes hundreds of thousands of these.
_raw = tuple.__new__
_AUTHORED, _FALLBACK = Source.AUTHORED, Source.FALLBACK
_SMALL_ARRAY = 64
_isfinite = math.isfinite


def _all_finite(array: np.ndarray, items: list) -> bool:
    """Whether every number of a small float array is finite; `items` is its tolist()."""
    if array.size <= _SMALL_ARRAY:
        # A sum of finite float32 values stays finite, and any NaN or infinity makes the sum non-finite:
        # the quick answer is exact when it says yes, and the element check decides the rest.
        total = sum(items) if array.ndim == 1 else sum(map(sum, items))
        if _isfinite(total):
            return True
    return bool(np.isfinite(array).all())


def _plain_checked(value: Any) -> tuple[Any, bool]:
    """Gf/Vt values -> plain Python (floats, tuples, lists), and whether every number in it is finite."""
    kind = type(value)
    if kind is float:
        return value, _isfinite(value)
    if kind in (int, bool, str):
        return value, True
    name = kind.__name__
    if name.endswith("Array"):
        if name.startswith(("Float", "Double", "Half", "Vec", "Quat")):
            array = np.asarray(value)  # Vt's buffer gives numpy the whole block at once
            items = array.tolist()
            return items, _all_finite(array, items)
        if name in ("IntArray", "UIntArray", "Int64Array", "UInt64Array"):
            return np.asarray(value).tolist(), True
        return list(value), True
    if name.startswith("Quat"):
        im = value.GetImaginary()
        plain = (float(value.GetReal()), float(im[0]), float(im[1]), float(im[2]))
        return plain, all(_isfinite(c) for c in plain)
    if isinstance(value, Sdf.Path):
        return str(value), True
    if name.startswith("Vec"):
        plain = tuple(value[:])  # a Gf vector's slice is a list of floats
        return plain, all(_isfinite(c) for c in plain)
    if hasattr(value, "__len__"):
        plain = tuple(value)
        return plain, all(_isfinite(c) for c in plain)
    return value, True


def _python(value: Any) -> Any:
    return _plain_checked(value)[0]


# Short paths for a value of exactly the declared class: (plain value, all finite). Each gives what
# _plain_checked gives for such a value; they read Gf vectors by slicing and Vt arrays through the buffer
# protocol (memoryview), and test finiteness on a sum (exact for float32 data: a sum of finite float32 values
# cannot overflow a double, and any NaN or infinity makes the sum non-finite). Arrays longer than
# _SMALL_ARRAY take the general path.

def _as_is(value: Any) -> tuple[Any, bool]:
    return value, True


def _gf_vector(value: Any) -> tuple[Any, bool]:
    plain = tuple(value[:])
    return plain, _isfinite(sum(plain))


def _float_array(value: Any) -> tuple[Any, bool]:
    if len(value) > _SMALL_ARRAY:
        return _plain_checked(value)
    items = memoryview(value).tolist()
    return items, _isfinite(sum(items))


def _vector_array(value: Any) -> tuple[Any, bool]:
    if len(value) > _SMALL_ARRAY:
        return _plain_checked(value)
    rows = memoryview(value).tolist()
    return rows, _isfinite(sum(map(sum, rows)))


def _int_array(value: Any) -> tuple[Any, bool]:
    if len(value) > _SMALL_ARRAY:
        return _plain_checked(value)
    return memoryview(value).tolist(), True


_SHORT_PATHS = {"float": _as_is, "int": _as_is, "bool": _as_is, "token": _as_is, "float2": _gf_vector,
                "float3": _gf_vector, "point3f": _gf_vector, "vector3f": _gf_vector, "float[]": _float_array,
                "float2[]": _vector_array, "float4[]": _vector_array, "int[]": _int_array}


def _type_check(spec) -> tuple[Callable[[Any], bool], type | None, Callable[[Any], tuple[Any, bool]] | None]:
    """(a predicate telling whether a composed value has the declared type; the Python class of a value of
    exactly that type and its short path to plain Python, where the type has one, else None, None)."""
    if not spec:
        return (lambda value: True), None, None
    type_name = spec.GetTypeName()
    cls = type_name.type.pythonClass
    short = _SHORT_PATHS.get(str(type_name))
    if type_name.isArray:
        return (lambda value: isinstance(value, cls) if cls else True), cls if short else None, short
    if cls is not None:  # Gf vectors and quaternions: any precision of the same arity
        arity = len(cls()) if hasattr(cls(), "__len__") else None
        is_quat = "Quat" in cls.__name__
        return ((lambda value: (("Quat" in type(value).__name__) if is_quat
                                else hasattr(value, "__len__") and not isinstance(value, str) and len(value) == arity)),
                cls if short else None, short)
    cpp = str(type_name)
    if cpp in ("float", "double", "half"):
        return (lambda value: isinstance(value, (float, int)) and not isinstance(value, bool)), float, _as_is
    if cpp in ("int", "uint", "int64", "uint64", "uchar"):
        return (lambda value: isinstance(value, int) and not isinstance(value, bool)), int, _as_is
    if cpp == "bool":
        return (lambda value: isinstance(value, bool)), bool, _as_is
    if cpp in ("token", "string"):
        return (lambda value: isinstance(value, str)), str, _as_is
    return (lambda value: True), None, None


class PropertySpec(NamedTuple):
    """What reading one property of one schema needs, worked out once: from the registered schema its attribute
    name, fallback (plain Python) and declared type; from the property table its row (None if it has none)."""

    name: str
    has_declared_type: Callable[[Any], bool]
    exact_type: type | None     # values of exactly this class have the declared type ...
    to_plain: Callable[[Any], tuple[Any, bool]] | None  # ... and become plain Python this way
    prop: P.Prop | None
    unauthored: Raw             # what reading the property gives when the stage does not author it (the fallback)
    range: P.Range | None       # the table's accepted range for scalars (None: any value)


@lru_cache(maxsize=None)
def property_specs(schema: str, instance: str | None = None) -> dict[str, PropertySpec]:
    """base name -> PropertySpec for one schema (and multiple-apply instance)."""
    definition = P.schema_definition(schema)
    specs = {}
    for base, name in P.full_names(schema, instance).items():
        attribute = definition.GetAttributeDefinition(P.full_name(schema, base)) if definition else None
        fallback = attribute.GetFallbackValue() if attribute else None
        check, exact_type, to_plain = _type_check(attribute)
        plain = None if fallback is None else _python(fallback)
        prop = P.TABLE_BY_KEY.get((schema, base))
        specs[base] = PropertySpec(name, check, exact_type, to_plain, prop, Raw(plain, False, _FALLBACK),
                                   prop.range if prop is not None else None)
    return specs


def authored_targets(prim: Usd.Prim, name: str) -> tuple[list[str], bool]:
    """A relationship's targets (as strings) and whether any are authored."""
    if name not in ComponentReader.prim_info(prim)[1]:  # no opinion at all: nothing authored to ask USD about
        return [], False
    rel = U.get_relationship(prim, name)
    if not rel or not U.has_authored_targets(rel):
        return [], False
    return [str(t) for t in U.get_targets(rel)], True


class ComponentReader:
    """Reads the properties of one schema (or one multiple-apply instance) on one prim.

    Only authored attributes cost USD calls: the prim's authored property names are fetched once, and an
    unauthored attribute of an applied schema takes the schema's fallback from the registry (cached).
    Construct it only for schemas applied to the prim.
    """

    # Path and authored property names per prim, shared by the several readers of one prim during one read
    # pass (read_stage clears it before and after); a prim holds up to five components.
    _by_prim: dict[Usd.Prim, tuple[str, frozenset]] = {}

    def __init__(self, prim: Usd.Prim, schema: str, sink: DiagnosticSink, units: StageUnits, instance: str | None = None):
        self.prim, self.schema, self.sink, self.units, self.instance = prim, schema, sink, units, instance
        self.path, self.authored = self.prim_info(prim)
        self.specs = property_specs(schema, instance)

    @classmethod
    def prim_info(cls, prim: Usd.Prim) -> tuple[str, frozenset]:
        """The prim's path and the names of its authored properties (attributes and relationships), once per pass."""
        known = cls._by_prim.get(prim)
        if known is None:
            known = cls._by_prim[prim] = (str(U.get_path(prim)), frozenset(U.authored_property_names(prim)))
        return known

    @classmethod
    def clear_cache(cls) -> None:
        cls._by_prim.clear()

    def new_block(self) -> Block:
        """An empty block for this reader's component, named by its prim."""
        return Block(schema_name=self.schema, path=self.path)

    def name(self, base: str) -> str:
        return self.specs[base].name

    def raw(self, base: str) -> Raw:
        """The composed value; a value of the wrong type or a NaN/inf is reported and read as missing."""
        spec = self.specs[base]
        name = spec.name
        if name not in self.authored:
            return spec.unauthored
        try:
            value = U.get_value(U.get_attribute(self.prim, name))
        except Exception as exc:  # noqa: BLE001 - a malformed value is the asset's problem, not ours
            self.sink.error("VALUE", self.path, f"value cannot be read: {exc}", name)
            return _raw(Raw, (None, True, _AUTHORED))
        kind = type(value)
        if kind is float and spec.exact_type is float:  # the commonest case, inline
            if _isfinite(value):
                return _raw(Raw, (value, True, _AUTHORED))
        elif kind is spec.exact_type:
            plain, finite = spec.to_plain(value)
            if finite:
                return _raw(Raw, (plain, True, _AUTHORED))
        if value is None:  # authored without a value (a bare declaration): the fallback applies
            return spec.unauthored
        if not spec.has_declared_type(value):
            self.sink.error("TYPE", self.path, f"authored value {value!r:.60} does not have the schema's type; ignored", name)
            return _raw(Raw, (None, True, _AUTHORED))
        value, finite = _plain_checked(value)
        if not finite:
            self.sink.error("NONFINITE", self.path, f"value {value!r} is not finite; ignored", name)
            return _raw(Raw, (None, True, _AUTHORED))
        return _raw(Raw, (value, True, _AUTHORED))

    def targets(self, base: str) -> tuple[list[str], bool]:
        """Relationship targets (as strings) and whether any are authored. An attribute authored under the
        relationship's name is a TYPE error (PhysX finds no relationship there) and reads as nothing authored."""
        name = self.specs[base].name
        found = authored_targets(self.prim, name)
        if name in self.authored and not found[1]:
            # USD answers by the schema's definition (a relationship), so the authored specs are asked
            specs = self.prim.GetProperty(name).GetPropertyStack()
            attribute = next((spec for spec in specs if isinstance(spec, Sdf.AttributeSpec)), None)
            if attribute is not None:
                self.sink.error("TYPE", self.path, f"authored as an attribute ({attribute.typeName} "
                                f"{attribute.default!r:.60}); it must be a relationship: ignored", name)
        return found

    # -- resolution helpers -------------------------------------------------------------------------------

    def default(self, base: str) -> Any:
        """The parser's default for this property, scaled to the stage's units."""
        prop = self.specs[base].prop
        factor = self.units.si_to_stage(prop.dim)
        return prop.default * factor if factor != 1.0 else prop.default

    def check_range(self, base: str, value: Any) -> bool:
        accepted = self.specs[base].range
        if accepted is None or value is None or accepted.accepts(value):
            return True
        return self._out_of_range(base, value)

    def _out_of_range(self, base: str, value: Any) -> bool:
        prop = self.specs[base].prop
        self.sink.error(prop.range_code or "RANGE", self.path, P.out_of_range(prop, value), self.name(base))
        return False

    def required(self, base: str, code: str) -> Raw:
        raw = self.raw(base)
        if raw.value is None:
            self._missing(base, code)
        return raw

    def _missing(self, base: str, code: str) -> None:
        self.sink.error(code, self.path, "needs a value (the schema has no fallback)", self.name(base))

    # copy and with_default run for most values of a stage: they test the range in line (what check_range does)

    def copy(self, block: Block, base: str, *, code: str | None = None) -> bool:
        """Read a property, check its range, store it as authored/fallback. Returns False when invalid."""
        raw = self.raw(base)
        value = raw.value
        if value is None:
            if code:
                self._missing(base, code)
            return code is None
        block.set(base, value, raw.source)
        accepted = self.specs[base].range
        if accepted is None or not isinstance(value, (int, float)) or isinstance(value, bool) or accepted.accepts(value):
            return True
        return self._out_of_range(base, value)

    def with_default(self, block: Block, base: str) -> bool:
        """A property whose sentinel (or missing value) resolves to the parser's unit-scaled default."""
        spec = self.specs[base]
        sentinel = spec.prop.sentinel
        raw = self.raw(base)
        value = raw.value
        if value is None or (sentinel is not None and value == sentinel):
            block.set(base, self.default(base), Source.DEFAULT)
            return True
        block.set(base, value, raw.source)
        accepted = spec.range
        if accepted is None or not isinstance(value, (int, float)) or accepted.accepts(value):
            return True
        return self._out_of_range(base, value)

    def deprecated_warning(self, base: str, replacement: str) -> None:
        self.sink.warning("DEPRECATED", self.path, f"deprecated attribute, use {replacement} instead", self.name(base))
