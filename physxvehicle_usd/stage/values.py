"""Values between USD and plain Python: JSON-able values as USD takes them (writing a description and applying a
repair share it), and an attribute's time samples as arrays (drive cycles and the readings check share it)."""
from __future__ import annotations

from typing import Any

import numpy as np
from pxr import Gf, Sdf, Usd


def usd_value(type_name: Sdf.ValueTypeName, value: Any) -> Any:
    """A JSON-able value (numbers, lists; quaternions as (w, x, y, z)) as the Python value USD takes for an
    attribute of `type_name`."""
    if value is None:
        return None
    scalar = str(type_name.scalarType) if type_name.isArray else str(type_name)
    if scalar.startswith("quat"):
        make = Gf.Quatf if scalar == "quatf" else Gf.Quatd
        if type_name.isArray:
            return [make(q[0], Gf.Vec3f(*q[1:])) for q in value]
        return make(value[0], Gf.Vec3f(*value[1:]) if scalar == "quatf" else Gf.Vec3d(*value[1:]))
    if type_name.isArray:
        return type_name.type.pythonClass([tuple(v) if isinstance(v, (list, tuple)) else v for v in value])
    if isinstance(value, list):
        return tuple(value)
    return value


def time_samples(attr: Usd.Attribute, fallback=None) -> tuple[np.ndarray, np.ndarray] | None:
    """The attribute's time samples as USD resolves them at numeric times: one sample or more (a single sample is
    the attribute's value at every time, though ValueMightBeTimeVarying() says False for it). Samples of a weaker
    layer under a stronger default do not count (GetTimeSamples() leaves them out). A blocked sample has no value:
    `fallback` (the schema's) stands for it. None: no time sample."""
    if not attr:
        return None
    times = attr.GetTimeSamples()
    if not times:
        return None
    values = [attr.Get(t) for t in times]
    values = [fallback if v is None else v for v in values]
    if any(v is None for v in values):
        return None
    return np.asarray(times, dtype=float), np.asarray(values, dtype=float)
