"""JSON-able values as USD takes them: the one conversion that writing a description and applying a repair share."""
from __future__ import annotations

from typing import Any

from pxr import Gf, Sdf


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
