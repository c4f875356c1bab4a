"""PhysX 3.4 engine data (`PxVehicleEngineData`) and its torque-curve lookup table (`PxFixedSizeLookupTable<8>`).

Semantics follow the PhysX 3.4 vehicle SDK:
- the torque curve maps normalized engine speed (omega / max_omega) to normalized torque (torque / peak_torque);
  at most 8 points; below the first x it gives the first y, at or above the last x the last y, linear in between
  (`PxFixedSizeLookupTable::getYVal`);
- drive torque = accelerator * peak_torque * curve(omega * recip_max_omega);
- damping rate = zero-throttle rate + (full-throttle rate - zero-throttle rate) * accelerator, where the zero-throttle
  rate is the clutch-engaged one in any gear but neutral and the clutch-disengaged one in neutral;
- the reciprocals recip_moi and recip_max_omega are derived from moi and max_omega (PhysX caches them in
  `PxVehicleDriveSimData::setEngineData`).

Values are plain floats in whatever units the scene uses (PhysX has no unit system); the unit notes name the SI
units the PhysX documentation uses. PhysX stores float32; these structs hold float64.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike
from pydantic import Field, computed_field, field_validator, model_validator

from ._physx34_common import Physx34Struct, reciprocal

MAX_TORQUE_CURVE_POINTS = 8  # PxVehicleEngineData::eMAX_NB_ENGINE_TORQUE_CURVE_ENTRIES

DEFAULT_TORQUE_CURVE = ((0.0, 0.8), (0.33, 1.0), (1.0, 0.8))


class FixedSizeLookupTable(Physx34Struct):
    """A piecewise-linear graph of at most `max_points` (x, y) points (`PxFixedSizeLookupTable<N>`).

    Lookup (`evaluate`): no points -> 0; one point, or x below the first x -> first y; x in [x_i, x_i+1) -> linear
    between the two points; otherwise (x at or beyond the last x, or NaN) -> last y. Points with equal x are allowed:
    the empty interval between them is skipped, so the lookup jumps at that x to the later point's y.
    """

    max_points: ClassVar[int] = MAX_TORQUE_CURVE_POINTS

    points: tuple[tuple[float, float], ...] = Field(
        default=(),
        description="(x, y) data pairs in order of increasing x.",
        json_schema_extra={"unit": "x and y as the owning graph defines them"},
    )

    @field_validator("points", mode="before")
    @classmethod
    def _accept_arrays(cls, value):
        if isinstance(value, np.ndarray):
            return [tuple(row) for row in value.tolist()]
        return value

    @model_validator(mode="after")
    def _check_capacity(self):
        if len(self.points) > self.max_points:
            raise ValueError(
                f"{type(self).__name__} holds at most {self.max_points} points; got {len(self.points)}"
            )
        return self

    @property
    def x_values(self) -> np.ndarray:
        return np.array([p[0] for p in self.points], dtype=float)

    @property
    def y_values(self) -> np.ndarray:
        return np.array([p[1] for p in self.points], dtype=float)

    def add_pair(self, x: float, y: float):
        """A copy with (x, y) appended (`addPair`); ValueError when the table is full."""
        if len(self.points) >= self.max_points:
            raise ValueError(f"{type(self).__name__} is full: it holds at most {self.max_points} points")
        return self.replace(points=self.points + ((float(x), float(y)),))

    def evaluate(self, x: float) -> float:
        """The y value at x, exactly as `PxFixedSizeLookupTable::getYVal` computes it."""
        points = self.points
        if not points:
            return 0.0
        if len(points) == 1 or x < points[0][0]:
            return points[0][1]
        x0, y0 = points[0]
        for x1, y1 in points[1:]:
            if x0 <= x < x1:
                return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
            x0, y0 = x1, y1
        return points[-1][1]

    def evaluate_array(self, x: ArrayLike) -> np.ndarray:
        """`evaluate` over an array of x values (same rules, vectorized)."""
        x = np.asarray(x, dtype=float)
        if not self.points:
            return np.zeros_like(x)
        xs, ys = self.x_values, self.y_values
        result = np.full(x.shape, ys[-1])
        if len(xs) == 1:
            result[...] = ys[0]
            return result
        lo, hi = xs[:-1], xs[1:]
        flat = x.reshape(-1, 1)
        inside = (flat >= lo) & (flat < hi)  # [n, segments]; the first True segment is the one the loop takes
        has_segment = inside.any(axis=1)
        segment = np.argmax(inside, axis=1)
        # rows without a segment compute garbage here (and a near-zero segment width can overflow, as the
        # scalar loop's float division does); has_segment keeps only the real ones
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            x0, x1, y0, y1 = lo[segment], hi[segment], ys[:-1][segment], ys[1:][segment]
            linear = y0 + (y1 - y0) * (flat[:, 0] - x0) / (x1 - x0)
        out = result.reshape(-1)
        out[has_segment] = linear[has_segment]
        out[flat[:, 0] < xs[0]] = ys[0]
        return out.reshape(x.shape)

    def ordering_errors(self) -> list[str]:
        """The lookup assumes non-decreasing x; PhysX 3.4 does not check it, an unsorted table just looks up wrongly."""
        xs = [p[0] for p in self.points]
        return [
            f"x values must not decrease: point {i} has x={xs[i]!r} after x={xs[i - 1]!r}"
            for i in range(1, len(xs))
            if not xs[i] >= xs[i - 1]
        ]


class TorqueCurve(FixedSizeLookupTable):
    """Normalized torque (torque / peak_torque) against normalized engine speed (omega / max_omega); at most 8 points."""

    max_points: ClassVar[int] = MAX_TORQUE_CURVE_POINTS

    points: tuple[tuple[float, float], ...] = Field(
        default=(),
        description="(normalized engine speed, normalized torque) pairs in order of increasing speed.",
        json_schema_extra={"unit": "x: unitless (omega / max_omega); y: unitless (torque / peak_torque)",
                           "maxItems": MAX_TORQUE_CURVE_POINTS},
    )


def _default_torque_curve() -> TorqueCurve:
    return TorqueCurve(points=DEFAULT_TORQUE_CURVE)


class EngineData(Physx34Struct):
    """`PxVehicleEngineData` with the PhysX 3.4 defaults."""

    torque_curve: TorqueCurve = Field(
        default_factory=_default_torque_curve,
        description="Graph of normalized torque against normalized engine speed (mTorqueCurve).",
        json_schema_extra={"unit": "unitless"},
    )
    moi: float = Field(
        1.0, description="Moment of inertia of the engine around its axis of rotation (mMOI).",
        json_schema_extra={"unit": "kg*m^2", "range": "(0, PX_MAX_F32)"},
    )
    peak_torque: float = Field(
        500.0, description="Torque available at full accelerator, before the torque curve scales it (mPeakTorque).",
        json_schema_extra={"unit": "kg*m^2/s^2 (N*m)", "range": "(0, PX_MAX_F32)"},
    )
    max_omega: float = Field(
        600.0, description="Maximum rotation speed of the engine (mMaxOmega).",
        json_schema_extra={"unit": "rad/s", "range": "(0, PX_MAX_F32)"},
    )
    damping_rate_full_throttle: float = Field(
        0.15, description="Engine damping rate at full throttle (mDampingRateFullThrottle).",
        json_schema_extra={"unit": "kg*m^2/s", "range": "(0, PX_MAX_F32)"},
    )
    damping_rate_zero_throttle_clutch_engaged: float = Field(
        2.0, description="Engine damping rate at zero throttle in any gear but neutral "
                         "(mDampingRateZeroThrottleClutchEngaged).",
        json_schema_extra={"unit": "kg*m^2/s", "range": "(0, PX_MAX_F32)"},
    )
    damping_rate_zero_throttle_clutch_disengaged: float = Field(
        0.35, description="Engine damping rate at zero throttle in neutral (mDampingRateZeroThrottleClutchDisengaged).",
        json_schema_extra={"unit": "kg*m^2/s", "range": "(0, PX_MAX_F32)"},
    )

    @field_validator("torque_curve", mode="before")
    @classmethod
    def _accept_point_lists(cls, value):
        # A bare list of points (as USD's torqueCurve holds them) is the curve itself.
        if isinstance(value, (list, tuple, np.ndarray)):
            return {"points": value}
        return value

    @computed_field(description="1 / moi (mRecipMOI), derived.", json_schema_extra={"unit": "1/(kg*m^2)"})
    @property
    def recip_moi(self) -> float:
        return reciprocal(self.moi)

    @computed_field(description="1 / max_omega (mRecipMaxOmega), derived.", json_schema_extra={"unit": "s/rad"})
    @property
    def recip_max_omega(self) -> float:
        return reciprocal(self.max_omega)

    def validation_errors(self) -> list[str]:
        """Every PhysX 3.4 rule the values break (`setEngineData` checks and `isValid`), as messages; empty if valid.

        `setEngineData` accepts damping rates of 0 but `PxVehicleEngineData::isValid` (run when a vehicle is set up)
        requires them > 0, so 0 is reported. PhysX checks the moi only through 1/moi > 0, which a zero moi passes
        (1/0 = inf); it is reported here as the USD schema and the physics require moi > 0.
        """
        errors: list[str] = []
        if not self.torque_curve.points:
            errors.append("torque_curve must have at least one point")
        errors.extend(f"torque_curve: {e}" for e in self.torque_curve.ordering_errors())
        if not self.moi > 0.0:
            errors.append(f"moi must be greater than zero (got {self.moi!r})")
        if not self.peak_torque > 0.0:
            errors.append(f"peak_torque must be greater than zero (got {self.peak_torque!r})")
        if not self.max_omega > 0.0:
            errors.append(f"max_omega must be greater than zero (got {self.max_omega!r})")
        for name in (
            "damping_rate_full_throttle",
            "damping_rate_zero_throttle_clutch_engaged",
            "damping_rate_zero_throttle_clutch_disengaged",
        ):
            value = getattr(self, name)
            if not value > 0.0:
                errors.append(f"{name} must be greater than zero (got {value!r}; PhysX 3.4 isValid rejects 0)")
        if self.moi > 0.0 and not self.recip_moi > 0.0:
            errors.append(f"recip_moi must be greater than zero (moi={self.moi!r} is too large)")
        if self.max_omega > 0.0 and not self.recip_max_omega > 0.0:
            errors.append(f"recip_max_omega must be greater than zero (max_omega={self.max_omega!r} is too large)")
        return errors

    def is_valid(self) -> bool:
        return not self.validation_errors()

    def damping_rate(self, accelerator: ArrayLike, clutch_engaged: ArrayLike):
        """Engine damping rate for an accelerator pedal value and clutch state (see `engine_damping_rate`)."""
        return engine_damping_rate(self, accelerator, clutch_engaged)

    def drive_torque(self, omega: ArrayLike, accelerator: ArrayLike):
        """accelerator * peak_torque * torque_curve(omega * recip_max_omega) (PhysX's computeEngineDriveTorque)."""
        normalized = np.asarray(omega, dtype=float) * self.recip_max_omega
        if normalized.ndim == 0:
            return float(accelerator) * self.peak_torque * self.torque_curve.evaluate(float(normalized))
        return np.asarray(accelerator, dtype=float) * self.peak_torque * self.torque_curve.evaluate_array(normalized)


def engine_damping_rate(engine: EngineData, accelerator: ArrayLike, clutch_engaged: ArrayLike):
    """The damping rate PhysX 3.4 applies to the engine (computeEngineDampingRate).

    zero = damping_rate_zero_throttle_clutch_engaged if the clutch is engaged (any gear but neutral), else
    damping_rate_zero_throttle_clutch_disengaged; result = zero + (damping_rate_full_throttle - zero) * accelerator.
    So accelerator 1 gives the full-throttle rate whatever the clutch, accelerator 0 the zero-throttle rate of the
    clutch state, and values in between blend linearly. The accelerator is not clamped (PhysX does not clamp it).
    Works on scalars (returns float) and numpy arrays (broadcast).
    """
    accelerator_arr = np.asarray(accelerator, dtype=float)
    engaged = np.asarray(clutch_engaged, dtype=bool)
    zero = np.where(
        engaged, engine.damping_rate_zero_throttle_clutch_engaged, engine.damping_rate_zero_throttle_clutch_disengaged
    )
    rate = zero + (engine.damping_rate_full_throttle - zero) * accelerator_arr
    return float(rate) if rate.ndim == 0 else rate
