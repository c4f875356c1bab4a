"""The longest time step a vehicle's suspension and tires integrate stably with its sub-step counts.

vehicle2 integrates both explicitly, once per sub-step of h = dt / n, where n is the vehicle's
lowForwardSpeedSubStepCount below subStepThresholdLongitudinalSpeed and highForwardSpeedSubStepCount above it.
Past the bounds below, a step amplifies what it should damp: a car at rest with the accelerator at 0 creeps and
then "travels" (the sample car went 704 m at dt 0.5 s, 104 km at dt 100 s).

Suspension: the sprung mass m on its spring k and damper c, the velocity updated first and the position with the
new velocity (semi-implicit Euler). One sub-step maps (position, velocity) by a matrix of determinant 1 - c h / m
and trace 2 - c h / m - k h^2 / m; Jury's conditions keep both eigenvalues inside the unit circle while

    k h^2 / m + 2 c h / m < 4,   i.e.   h < 4 / (c/m + sqrt((c/m)^2 + 4 k/m))

(2 / omega for an undamped spring, omega = sqrt(k/m); 2 m / c for a damper alone). Springs act at every speed, so
this holds for both sub-step counts.

Tire: a wheel's spin against its longitudinal tire force. Below saturation the force is C * slip with
slip = (omega r - v) / (|v| + d), d the minimum longitudinal slip denominator; it turns the wheel (r^2 / I) and pulls
the body (1 / m, the wheel's sprung mass), so the slip decays at the rate lambda = C (r^2/I + 1/m) / (|v| + d), and
explicit Euler is stable while lambda h < 2. The bound uses the passive denominator (no drive or brake torque on the
wheel: a vehicle at rest or coasting), the case where the instability is the whole story: with a torque applied,
the active denominator (0.1 m/s by default) makes the explicit tire stiff at any practical step, and PhysX lives
with that: the wheel chatters, bounded by tire saturation (see tests/test_conformance_ovphysx.py). Below the
sub-step threshold speed (the low-speed count) the rate is largest at rest, |v| = 0; above it (the high-speed
count) at the threshold speed itself. The wheel's own inertia is used: an engine coupled through the clutch only
adds inertia, so the bound errs on the safe side; so does leaving out the wheel's damping and the sticky-tire rows.

These are bounds of the linear explicit schemes, not of the whole vehicle: the sample car at rest stays put up to
about twice its bound. A vehicle's limit is the smallest over its wheels and both regimes; `dt_diagnostics` says
which wheel and which part set it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import properties as P
from ..diagnostics import Diagnostic, Severity

CODE = "DT_LIMIT"


def suspension_substep_limit(stiffness: np.ndarray, damping: np.ndarray, sprung_mass: np.ndarray) -> np.ndarray:
    """The longest stable sub-step of a sprung mass on its spring and damper (inf when there is neither)."""
    beta = damping / sprung_mass
    omega2 = stiffness / sprung_mass
    rate = beta + np.sqrt(beta * beta + 4.0 * omega2)
    with np.errstate(divide="ignore"):
        return np.where(rate > 0.0, 4.0 / np.where(rate > 0.0, rate, 1.0), np.inf)


def tire_substep_limit(long_stiffness: np.ndarray, radius: np.ndarray, wheel_moi: np.ndarray, sprung_mass: np.ndarray,
                       denominator: np.ndarray) -> np.ndarray:
    """The longest stable sub-step of a tire's longitudinal slip with this slip denominator (|v| + d)."""
    rate = long_stiffness * (radius * radius / wheel_moi + 1.0 / sprung_mass) / denominator
    with np.errstate(divide="ignore"):
        return np.where(rate > 0.0, 2.0 / np.where(rate > 0.0, rate, 1.0), np.inf)


@dataclass(frozen=True)
class StepLimit:
    """A vehicle's longest stable step and what sets it."""

    path: str
    dt: float          # seconds
    part: str          # "suspension" or "tire"
    wheel: str         # the wheel attachment that sets it
    substeps: int      # the sub-step count of the regime that sets it
    regime: str        # "low-speed" or "high-speed"
    substep_dt: float  # the longest stable sub-step of that part


def step_limits(batch, shorter_than: float = np.inf) -> list[StepLimit]:
    """The vehicles of a `VehicleBatch` whose longest stable step (see the module docstring) is shorter than
    `shorter_than` (every vehicle by default), each with that step."""
    a = batch.arrays
    mask = a["wheel_mask"]
    sprung = np.where(mask, a["sprung_mass"], 1.0)
    suspension = suspension_substep_limit(a["spring_stiffness"], a["spring_damping"], sprung)
    low_n = a["low_speed_substeps"].astype(float)
    high_n = a["high_speed_substeps"].astype(float)
    passive = a["min_passive_long_slip_denominator"]
    tire_rest = tire_substep_limit(a["long_stiff"], a["radius"], a["wheel_moi"], sprung, passive[:, None])
    tire_fast = tire_substep_limit(a["long_stiff"], a["radius"], a["wheel_moi"], sprung,
                                   (passive + a["substep_threshold_speed"])[:, None])
    # candidates (V, W, 4): suspension low, suspension high, tire low, tire high
    candidates = np.stack([suspension * low_n[:, None], suspension * high_n[:, None],
                           tire_rest * low_n[:, None], tire_fast * high_n[:, None]], axis=-1)
    candidates = np.where(mask[..., None], candidates, np.inf)
    substep = np.stack([suspension, suspension, tire_rest, tire_fast], axis=-1)
    flat = candidates.reshape(len(candidates), -1)
    best = flat.argmin(axis=1)  # the first smallest, as argmin over each vehicle's (W, 4) gives it
    out = []
    # a Python loop only over the vehicles reported: a fleet at a sound dt costs a few array operations
    for v in np.flatnonzero(flat[np.arange(len(flat)), best] < shorter_than):
        w, k = np.unravel_index(int(best[v]), candidates[v].shape)
        high = k in (1, 3)
        out.append(StepLimit(batch.paths[v], float(candidates[v, w, k]), "tire" if k >= 2 else "suspension",
                             batch.wheel_paths[v][w], int((high_n if high else low_n)[v]),
                             "high-speed" if high else "low-speed", float(substep[v, w, k])))
    return out


def dt_diagnostics(batch, dt: float) -> list[Diagnostic]:
    """A warning (DT_LIMIT) for every vehicle whose longest stable step is shorter than dt."""
    out = []
    for limit in step_limits(batch, shorter_than=dt):
        count = "lowForwardSpeedSubStepCount" if limit.regime == "low-speed" else "highForwardSpeedSubStepCount"
        out.append(Diagnostic(
            severity=Severity.WARNING, code=CODE, prim=limit.path, property=P.full_name(P.VEHICLE, count),
            message=f"dt {dt:g} s is longer than this vehicle's suspension and tires integrate stably: with "
                    f"{limit.substeps} {limit.regime} sub-step(s) of {dt / limit.substeps:.4g} s, the {limit.part} of "
                    f"{limit.wheel} is stable up to sub-steps of {limit.substep_dt:.4g} s, a step of at most "
                    f"{limit.dt:.4g} s; expect the vehicle to drift or run away"
                    + (", even at rest" if limit.regime == "low-speed" else " above the sub-step threshold speed")
                    + ". Use a shorter dt or more sub-steps"))
    return out
