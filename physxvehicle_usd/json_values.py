"""Values at the precision the description holds them, and as JSON writes them: float32 values as their shortest
decimal, sequences as lists, USD/Gf/numpy values as plain numbers (description.py's JSON form, the runtime builders
and the simulator's declarations take them from here).
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np


@lru_cache(maxsize=1 << 16)
def float32_shortest(value: float) -> float:
    """USD stores these as float32: the shortest decimal that is the same float32 (0.15, not 0.150000006), so
    the JSON reads as authored and stays deterministic. Cached: the formatting is the costliest step of
    `to_json`, and a stage repeats its values (defaults, shared components, copies of one asset)."""
    return float(str(np.float32(value)))


def json_value(value: Any) -> Any:
    """USD/Gf/numpy values -> JSON-able lists and numbers (floats rounded to float32 precision).

    NaN and infinity are no JSON numbers (nor strings standing for numbers): they become null. The reader
    reports every non-finite value it meets as a diagnostic and leaves its vehicle out, so none should get here."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return None
        if not abs(value) < 3.4e38:
            return value
        # zeros bypass the cache, which would merge -0.0 and 0.0
        return float32_shortest(value) if value != 0.0 else float(value)
    if isinstance(value, dict):
        return {k: json_value(v) for k, v in value.items()}
    if hasattr(value, "__len__"):
        return [json_value(v) for v in value]
    if hasattr(value, "real") and hasattr(value, "imaginary"):  # Gf.Quat
        return [json_value(value.real), *[json_value(v) for v in value.imaginary]]
    try:
        return json_value(float(value))
    except (TypeError, ValueError):
        return str(value)


def canonical_floats(values: Any) -> np.ndarray:
    """`canonical_value` of a nested list of floats (a mesh's points) as a float64 array of its shape: each distinct
    float32 formatted once (a road's points repeat a few thousand coordinates), the same values. Values that are
    not finite float32 go through `canonical_value` itself."""
    array = np.asarray(values, dtype=np.float64)
    if not (np.abs(array) < 3.4e38).all():  # NaN, infinite or past float32's range: canonical_value's own rules
        return np.asarray(canonical_value(values), dtype=float)
    bits, inverse = np.unique(array.astype(np.float32).view(np.uint32), return_inverse=True)  # (-0 apart from +0)
    shortest = bits.view(np.float32).astype(str).astype(np.float64)  # numpy's str of a float32 is str(np.float32(v))
    return shortest[inverse].reshape(array.shape)


def canonical_value(value: Any) -> Any:
    """A resolved value at the precision the description holds it: what `convert` prints, and what the runtime
    builders take (float32 values as their shortest decimal; sequences as lists). A fast path for the scalars a
    vehicle of a large fleet is mostly made of, then `json_value`."""
    kind = type(value)
    if kind is float:
        if value != 0.0 and abs(value) < 3.4e38:  # finite, not zero (NaN fails the comparison)
            return float32_shortest(value)
        if value == 0.0:  # as json_value gives it, sign and all (a fleet's velocities are zeros)
            return value
    if kind is int or kind is bool or kind is str or value is None:
        return value
    if kind is tuple or kind is list:
        return [float32_shortest(v) if type(v) is float and v != 0.0 and abs(v) < 3.4e38
                else v if type(v) is float and v == 0.0 else canonical_value(v) for v in value]
    return json_value(value)
