"""Stage units and the scaling of physical quantities by dimension.

A dimension is the pair of exponents (length, mass); time and angle never scale between stages.
A value in SI becomes a value in stage units by multiplying with lengthScale**L * massScale**M,
where lengthScale = 1 / metersPerUnit and massScale = 1 / kilogramsPerUnit, as the PhysX USD parser does.
"""
from __future__ import annotations

from dataclasses import dataclass
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


@dataclass(frozen=True)
class StageUnits:
    meters_per_unit: float = 1.0
    kilograms_per_unit: float = 1.0

    @classmethod
    def of(cls, stage: Usd.Stage) -> "StageUnits":
        return cls(UsdGeom.GetStageMetersPerUnit(stage), UsdPhysics.GetStageKilogramsPerUnit(stage))

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
