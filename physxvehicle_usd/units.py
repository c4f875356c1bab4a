"""Stage units and the scaling of physical quantities by dimension.

A dimension is the pair of exponents (length, mass); time and angle never scale between stages.
A value in SI becomes a value in stage units by multiplying with lengthScale**L * massScale**M,
where lengthScale = 1 / metersPerUnit and massScale = 1 / kilogramsPerUnit, as the PhysX USD parser does.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from pxr import Usd, UsdGeom, UsdPhysics


class Dim(NamedTuple):
    length: int
    mass: int


NONE = Dim(0, 0)
LENGTH = Dim(1, 0)          # m, and m/s
MASS = Dim(0, 1)            # kg, and kg/s, kg/s^2 (N/m), kg/rad
MASS_LENGTH = Dim(1, 1)     # N (kg m/s^2), N per unit slip, N/rad
MASS_LENGTH2 = Dim(2, 1)    # kg m^2, kg m^2/s, N m
LENGTH2 = Dim(2, 0)         # m^2/s^2 (a mass-normalised kinetic energy)


@dataclass(frozen=True)
class StageUnits:
    meters_per_unit: float = 1.0
    kilograms_per_unit: float = 1.0

    @classmethod
    def of(cls, stage: Usd.Stage) -> "StageUnits":
        """The stage's units; a value that is not a finite positive number is replaced (see `checked`)."""
        return cls.checked(stage)[0]

    @classmethod
    def checked(cls, stage: Usd.Stage) -> tuple[StageUnits, list[tuple[str, str]]]:
        """The stage's units and, for each metadata value that cannot be a unit (0, negative, NaN, infinite, not a
        number), (metadata name, message saying the value and what is used instead: the schema's fallback)."""
        problems = []
        values = []
        for name, read, fallback in (("metersPerUnit", UsdGeom.GetStageMetersPerUnit, 0.01),
                                     ("kilogramsPerUnit", UsdPhysics.GetStageKilogramsPerUnit, 1.0)):
            try:
                value = read(stage)
            except Exception as exc:  # noqa: BLE001 - metadata of the wrong type
                value = exc
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
                values.append(float(value))
                continue
            shown = repr(value) if not isinstance(value, Exception) else "unreadable"
            problems.append((name, (f"stage {name} {shown} is not a finite positive number; it is read as the "
                                    f"schema's fallback {fallback:g}")))
            values.append(fallback)
        return cls(*values), problems

    @property
    def length_scale(self) -> float:
        return 1.0 / self.meters_per_unit

    @property
    def mass_scale(self) -> float:
        return 1.0 / self.kilograms_per_unit

    def si_to_stage(self, dim: Dim) -> float:
        """Factor taking an SI value of this dimension to stage units."""
        return self.length_scale ** dim.length * self.mass_scale ** dim.mass

    def stage_to_si(self, dim: Dim) -> float:
        return 1.0 / self.si_to_stage(dim)

    @property
    def default_gravity(self) -> float:
        """omni.physx's gravity magnitude when the scene authors none: 9.81 m/s^2 in stage lengths."""
        return 9.81 * self.length_scale


# -- scaling values and naming units ------------------------------------------------------------------

# What each SI symbol contributes in (length, mass) exponents; time and angle never scale.
_BASE = {"m": (1, 0), "kg": (0, 1), "N": (1, 1), "s": (0, 0), "rad": (0, 0), "deg": (0, 0), "1": (0, 0)}
_TOKEN = re.compile(r"^([A-Za-z1]+)(?:\^(-?\d+))?$")

_LENGTH_NAMES = {1.0: "m", 0.01: "cm", 0.001: "mm", 0.0254: "in", 0.3048: "ft", 1000.0: "km"}
_MASS_NAMES = {1.0: "kg", 0.001: "g", 1000.0: "t"}


def _factors(unit: str) -> list[tuple[str, int]]:
    """'N*s/m' -> [('N', 1), ('s', 1), ('m', -1)]."""
    numerator, _, denominator = unit.partition("/")
    out = []
    for sign, part in ((1, numerator), (-1, denominator)):
        for token in filter(None, (t.strip() for t in part.split("*"))):
            match = _TOKEN.match(token)
            if not match:
                raise ValueError(f"cannot read unit {unit!r}")
            out.append((match.group(1), sign * int(match.group(2) or 1)))
    return out


def _components(unit: str) -> list[str] | None:
    """'(1, N)' -> ['1', 'N']; a plain unit -> None."""
    unit = unit.strip()
    if unit.startswith("(") and unit.endswith(")"):
        return [c.strip() for c in unit[1:-1].split(",")]
    return None


@lru_cache(maxsize=None)
def unit_dim(unit: str) -> Dim:
    """The (length, mass) exponents of a plain SI unit string; '', '1', 'quat' and angles are dimensionless.

    Used to name units in stage terms for display; tests/test_properties.py checks that every property's unit
    string agrees with its declared dimension, so the two cannot drift apart."""
    if unit in ("", "quat"):
        return NONE
    length = mass = 0
    for symbol, power in _factors(unit):
        dl, dm = _BASE.get(symbol, (0, 0))
        length += dl * power
        mass += dm * power
    return Dim(length, mass)


def scale_value(value, dims: "Dim | tuple[Dim, ...]", factor_of) -> object:
    """Multiply a scalar, vector, graph or list of graphs by the factor of its dimension(s)."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(dims, tuple) and dims and isinstance(dims[0], Dim):
        if value and isinstance(value[0], (list, tuple)):
            return [tuple(v * factor_of(d) for v, d in zip(row, dims)) for row in value]
        return tuple(v * factor_of(d) for v, d in zip(value, dims))
    factor = factor_of(dims)
    if factor == 1.0:
        return value
    if isinstance(value, (list, tuple)):
        scaled = [scale_value(v, dims, factor_of) for v in value]
        return tuple(scaled) if isinstance(value, tuple) else scaled
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # indices and counts
    return value * factor


def _name(value: float, names: dict[float, str], si: str) -> str:
    for known, name in names.items():
        if abs(value - known) <= 1e-9 * known:
            return name
    return f"({value:g} {si})"


def length_name(units: StageUnits) -> str:
    return _name(units.meters_per_unit, _LENGTH_NAMES, "m")


def mass_name(units: StageUnits) -> str:
    return _name(units.kilograms_per_unit, _MASS_NAMES, "kg")


def stage_unit(unit: str, units: StageUnits) -> str:
    """The SI unit restated in the stage's length and mass units ('N*m' in a centimetre stage: 'kg*cm^2/s^2')."""
    parts = _components(unit)
    if parts is not None:
        return "(" + ", ".join(stage_unit(p, units) for p in parts) + ")"
    if unit in ("", "1", "quat") or unit_dim(unit) == NONE:
        return unit
    if units.meters_per_unit == 1.0 and units.kilograms_per_unit == 1.0:
        return unit
    powers: dict[str, int] = {}
    for symbol, power in _factors(unit):
        if symbol == "N":  # kg*m/s^2
            for base, p in (("kg", 1), ("m", 1), ("s", -2)):
                powers[base] = powers.get(base, 0) + p * power
        else:
            powers[symbol] = powers.get(symbol, 0) + power
    names = {"m": length_name(units), "kg": mass_name(units)}
    order = ["kg", "m"] + sorted(k for k in powers if k not in ("kg", "m"))

    def term(symbol: str, power: int) -> str:
        name = names.get(symbol, symbol)
        return name if power == 1 else f"{name}^{power}"

    top = [term(s, powers[s]) for s in order if powers.get(s, 0) > 0]
    bottom = [term(s, -powers[s]) for s in order if powers.get(s, 0) < 0]
    text = "*".join(top) or "1"
    if bottom:
        text += "/" + ("*".join(bottom) if len(bottom) == 1 else "(" + "*".join(bottom) + ")")
    return text
