"""Small helpers shared by the PhysX 3.4 runtime structs."""
from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict, model_validator

PX_MAX_U32 = 0xFFFFFFFF


def reciprocal(value: float) -> float:
    """1/value with IEEE-754 semantics, as PhysX's `1.0f/x` gives them (1/0 = inf, never an exception)."""
    if value == 0.0:
        return math.copysign(math.inf, value)
    return 1.0 / value


class Physx34Struct(BaseModel):
    """Base of the 3.4 structs: read-only values; derived (cached) values are computed fields.

    PhysX stores the reciprocals next to the values and refreshes them in its setters; here they are computed from the
    current values, so they can never go stale and can never be set by hand. Their names may appear in input (a JSON
    dump read back), but only with the value they would have anyway.
    """

    # inf/nan as JSON strings, so a zero value's infinite reciprocal survives a JSON round trip.
    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True, ser_json_inf_nan="strings")

    @model_validator(mode="before")
    @classmethod
    def _drop_cached_values(cls, data):
        if not isinstance(data, dict):
            return data
        derived = set(cls.model_computed_fields)
        given = {name: data[name] for name in derived if name in data}
        if not given:
            return data
        rest = {k: v for k, v in data.items() if k not in derived}
        # Build once without the derived names to learn what they must be.
        probe = cls.model_validate(rest)
        for name, value in given.items():
            expected = getattr(probe, name)
            if not _same_float(value, expected):
                raise ValueError(
                    f"{name} is derived from the other fields (it would be {expected!r}); it cannot be set to {value!r}"
                )
        return rest

    def replace(self, **changes):
        """A copy with some fields changed, validated again (so derived values follow the new ones)."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(changes)
        return type(self).model_validate(data)


def _same_float(a, b, rel: float = 1e-6) -> bool:
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        return False
    if math.isnan(a) and math.isnan(b):
        return True
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=0.0) or a == b
