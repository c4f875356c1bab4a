"""PhysX 3.4 tire data (`PxVehicleTireData`) and its friction-vs-longitudinal-slip graph.

Semantics follow the PhysX 3.4 vehicle SDK:
- lateral stiffness: lat_stiff_x is the normalized load (load / rest load) from which the lateral stiffness stops
  growing with load; lat_stiff_y is that maximum lateral stiffness divided by the rest load;
- longitudinal stiffness = |g| * longitudinal_stiffness_per_unit_gravity, camber stiffness = |g| *
  camber_stiffness_per_unit_gravity;
- the friction-vs-slip graph has 3 points: (0, friction at zero slip), (slip of maximum friction, maximum friction),
  (end slip, friction beyond it); the multiplier at a longitudinal slip s is found at |s|, linear between the points
  and flat past the last one (`computeTireFriction`); it scales the surface/tire-type pair friction;
- the three reciprocals are derived (PhysX caches them in `PxVehicleWheelsSimData::setTireData`).
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from pydantic import Field, computed_field, field_validator

from ._physx34_common import PX_MAX_U32, Physx34Struct, reciprocal

# 0.3125 and 0.1 per degree, expressed per radian, as PxVehicleTireData's constructor writes them.
DEFAULT_LAT_STIFF_Y = 0.3125 * (180.0 / math.pi)
DEFAULT_CAMBER_STIFFNESS_PER_UNIT_GRAVITY = 0.1 * (180.0 / math.pi)
DEFAULT_FRICTION_VS_SLIP_GRAPH = ((0.0, 1.0), (0.1, 1.0), (1.0, 1.0))


class TireData(Physx34Struct):
    """`PxVehicleTireData` with the PhysX 3.4 defaults."""

    lat_stiff_x: float = Field(
        2.0, description="Normalized load (load / rest load) from which lateral stiffness no longer grows (mLatStiffX).",
        json_schema_extra={"unit": "unitless", "range": "(0, PX_MAX_F32)"},
    )
    lat_stiff_y: float = Field(
        DEFAULT_LAT_STIFF_Y,
        description="Maximum lateral stiffness divided by the rest load (mLatStiffY).",
        json_schema_extra={"unit": "1/rad", "range": "(0, PX_MAX_F32)"},
    )
    longitudinal_stiffness_per_unit_gravity: float = Field(
        1000.0,
        description="Longitudinal stiffness divided by |g| (mLongitudinalStiffnessPerUnitGravity).",
        json_schema_extra={"unit": "kg (per unit slip)", "range": "(0, PX_MAX_F32)"},
    )
    camber_stiffness_per_unit_gravity: float = Field(
        DEFAULT_CAMBER_STIFFNESS_PER_UNIT_GRAVITY,
        description="Camber stiffness divided by |g| (mCamberStiffnessPerUnitGravity).",
        json_schema_extra={"unit": "kg/rad", "range": "[0, PX_MAX_F32)"},
    )
    friction_vs_slip_graph: tuple[tuple[float, float], tuple[float, float], tuple[float, float]] = Field(
        DEFAULT_FRICTION_VS_SLIP_GRAPH,
        description="Friction multiplier against longitudinal slip, 3 points (mFrictionVsSlipGraph): "
                    "(0, friction at zero slip), (slip of maximum friction, maximum friction), "
                    "(end slip, friction for larger slips).",
        json_schema_extra={"unit": "x: unitless slip; y: unitless friction multiplier"},
    )
    type: int = Field(
        0, ge=0, le=PX_MAX_U32,
        description="Tire type: the column of the drivable-surface-to-tire friction pairs this tire uses (mType).",
        json_schema_extra={"unit": "index"},
    )

    @field_validator("friction_vs_slip_graph", mode="before")
    @classmethod
    def _accept_arrays(cls, value):
        if isinstance(value, np.ndarray):
            return [tuple(row) for row in value.tolist()]
        return value

    @computed_field(
        description="1 / longitudinal_stiffness_per_unit_gravity (mRecipLongitudinalStiffnessPerUnitGravity), derived.",
        json_schema_extra={"unit": "1/kg"},
    )
    @property
    def recip_longitudinal_stiffness_per_unit_gravity(self) -> float:
        return reciprocal(self.longitudinal_stiffness_per_unit_gravity)

    @computed_field(
        description="1 / (graph[1].x - graph[0].x) (mFrictionVsSlipGraphRecipx1Minusx0), derived.",
        json_schema_extra={"unit": "1/slip"},
    )
    @property
    def friction_vs_slip_graph_recip_x1_minus_x0(self) -> float:
        graph = self.friction_vs_slip_graph
        return reciprocal(graph[1][0] - graph[0][0])

    @computed_field(
        description="1 / (graph[2].x - graph[1].x) (mFrictionVsSlipGraphRecipx2Minusx1), derived.",
        json_schema_extra={"unit": "1/slip"},
    )
    @property
    def friction_vs_slip_graph_recip_x2_minus_x1(self) -> float:
        graph = self.friction_vs_slip_graph
        return reciprocal(graph[2][0] - graph[1][0])

    def validation_errors(self) -> list[str]:
        """Every PhysX 3.4 rule the values break (`setTireData` checks and `isValid`), as messages; empty if valid."""
        (x0, y0), (x1, y1), (x2, y2) = self.friction_vs_slip_graph
        errors: list[str] = []

        def need(ok: bool, message: str) -> None:
            if not ok:
                errors.append(message)

        need(self.lat_stiff_x > 0.0, f"lat_stiff_x must be greater than zero (got {self.lat_stiff_x!r})")
        need(self.lat_stiff_y > 0.0, f"lat_stiff_y must be greater than zero (got {self.lat_stiff_y!r})")
        need(self.longitudinal_stiffness_per_unit_gravity > 0.0,
             "longitudinal_stiffness_per_unit_gravity must be greater than zero "
             f"(got {self.longitudinal_stiffness_per_unit_gravity!r})")
        need(self.camber_stiffness_per_unit_gravity >= 0.0,
             "camber_stiffness_per_unit_gravity must be greater than or equal to zero "
             f"(got {self.camber_stiffness_per_unit_gravity!r})")
        need(x0 == 0.0, f"friction_vs_slip_graph[0] x must be zero (got {x0!r})")
        need(y0 > 0.0, f"friction_vs_slip_graph[0] y (friction at zero slip) must be greater than zero (got {y0!r})")
        need(x1 > 0.0, f"friction_vs_slip_graph[1] x (slip of maximum friction) must be greater than zero (got {x1!r})")
        need(y1 >= y0, f"friction_vs_slip_graph[1] y (maximum friction, {y1!r}) must be greater than or equal to "
                       f"friction_vs_slip_graph[0] y ({y0!r})")
        need(x2 > x1, f"friction_vs_slip_graph[2] x ({x2!r}) must be greater than friction_vs_slip_graph[1] x ({x1!r})")
        need(y2 <= y1, f"friction_vs_slip_graph[2] y ({y2!r}) must be less than or equal to "
                       f"friction_vs_slip_graph[1] y ({y1!r})")
        need(y2 >= 0.0, f"friction_vs_slip_graph[2] y must be greater than or equal to zero (got {y2!r})")
        return errors

    def is_valid(self) -> bool:
        return not self.validation_errors()

    def friction_multiplier(self, longitudinal_slip: ArrayLike):
        """The friction-vs-slip graph at a longitudinal slip (see `tire_friction_multiplier`)."""
        return tire_friction_multiplier(self, longitudinal_slip)

    def longitudinal_stiffness(self, gravity_magnitude: float) -> float:
        """|g| * longitudinal_stiffness_per_unit_gravity: force per unit longitudinal slip."""
        return gravity_magnitude * self.longitudinal_stiffness_per_unit_gravity

    def camber_stiffness(self, gravity_magnitude: float) -> float:
        """|g| * camber_stiffness_per_unit_gravity: force per radian of camber."""
        return gravity_magnitude * self.camber_stiffness_per_unit_gravity


def tire_friction_multiplier(tire: TireData, longitudinal_slip: ArrayLike):
    """The friction multiplier at a longitudinal slip, as PhysX 3.4 computes it (computeTireFriction).

    With s = |slip| and the graph (x0, y0), (x1, y1), (x2, y2):
    s < x1: y0 + (y1 - y0) * (s - x0) / (x1 - x0); x1 <= s < x2: y1 + (y2 - y1) * (s - x1) / (x2 - x1); else y2.
    Symmetric in the sign of the slip. Scalars give a float, arrays an array.
    """
    (x0, y0), (x1, y1), (x2, y2) = tire.friction_vs_slip_graph
    s = np.abs(np.asarray(longitudinal_slip, dtype=float))
    with np.errstate(invalid="ignore"):
        rising = y0 + (y1 - y0) * (s - x0) * tire.friction_vs_slip_graph_recip_x1_minus_x0
        falling = y1 + (y2 - y1) * (s - x1) * tire.friction_vs_slip_graph_recip_x2_minus_x1
    mu = np.where(s < x1, rising, np.where(s < x2, falling, y2))
    return float(mu) if mu.ndim == 0 else mu
