"""The search: weighted residuals of candidate parameter sets, each candidate a lane of one batched run.

The fitted values are searched relative to their initial values (z = x / x0; 1 at the start), inside the valid
ranges the property table gives. The residual of a candidate is, for every smooth signal of the log and every
simulation sample the log covers, (simulated - logged) / the signal's noise scale (log.noise_scale); the gear, a
step function, is compared in the report but not fitted.

  * `least_squares`: scipy's trust-region reflective least squares. Each evaluation runs the candidate and its
    2p central finite-difference neighbours (relative step `STEP`) as 2p + 1 lanes of one run, so the Jacobian at
    any point the search accepts is already there when it asks.
  * `population`: scipy's differential evolution, its whole population one batched run per generation
    (vectorized), within [x0 / 2, 2 x0] cut to the valid range, for residuals that are not smooth (sticky tires
    coming to rest, gear shifts moving in time); then `least_squares` from its best candidate.

Both are deterministic: least squares has no randomness, differential evolution takes the seed.
`batched=False` evaluates the same lanes one run each (the benchmark's comparison); the numbers are the same.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .lanes import FittedProperty, Lanes

STEP = 1e-3  # relative finite-difference step


@dataclass
class Problem:
    lanes: Lanes
    fitted: list[FittedProperty]
    batched: bool = True

    def __post_init__(self) -> None:
        x0 = np.array([f.initial for f in self.fitted])
        self.scale = np.where(x0 != 0, np.abs(x0), 1.0)
        self.z0 = x0 / self.scale
        self.lo = np.array([f.low for f in self.fitted]) / self.scale
        self.hi = np.array([f.high for f in self.fitted]) / self.scale
        log = self.lanes.log
        self.target = np.stack([s.values for s in log.signals], axis=-1)          # (steps, S)
        smooth = np.array([s.kind != "gear" for s in log.signals])
        self.weights = np.where(smooth, 1.0 / np.array([s.noise for s in log.signals]), 0.0)
        self.fitted_signals = smooth
        self.mask = log.compared

    def simulate(self, Z: np.ndarray) -> np.ndarray:
        """(n, steps, S) for each row of relative values Z (n, p)."""
        X = np.atleast_2d(Z) * self.scale
        if self.batched:
            return self.lanes.simulate(X)
        return np.concatenate([self.lanes.simulate(x[None]) for x in X])

    def weighted(self, sims: np.ndarray) -> np.ndarray:
        """(n, m) weighted residuals of simulated signals (n, steps, S)."""
        r = (sims - self.target) * self.weights
        return r[:, self.mask][:, :, self.fitted_signals].reshape(len(sims), -1)

    def residual_and_jacobian(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(weighted residual at z, its Jacobian per unit of z, the signals at z)."""
        p = z.size
        h = STEP * np.maximum(np.abs(z), 1.0)  # relative to the value; absolute (stage units) about zero
        plus = np.minimum(z + h, self.hi)
        minus = np.maximum(z - h, self.lo)
        Z = np.vstack([z, z + np.diag(plus - z), z + np.diag(minus - z)])
        sims = self.simulate(Z)
        R = self.weighted(sims)
        J = ((R[1:p + 1] - R[p + 1:]) / (plus - minus)[:, None]).T  # (m, p) per unit of z
        return R[0], J, sims[0]


@dataclass
class Fit:
    z: np.ndarray                 # relative values at the end
    residual: np.ndarray          # weighted, at the end
    jacobian: np.ndarray          # (m, p) per relative change of each property (column k times z_k), at the end
    signals: np.ndarray           # (steps, S) simulated at the end
    method: str
    message: str
    evaluations: int = 0
    population: np.ndarray | None = field(default=None, repr=False)


def least_squares(problem: Problem, z0: np.ndarray | None = None, max_evaluations: int = 30,
                  method: str = "least_squares") -> Fit:
    from scipy.optimize import least_squares as scipy_least_squares

    cache: dict[bytes, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def at(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        key = np.asarray(z, dtype=float).tobytes()
        if key not in cache:
            cache[key] = problem.residual_and_jacobian(np.asarray(z, dtype=float))
        return cache[key]

    z0 = problem.z0 if z0 is None else z0
    z_start = np.clip(z0, problem.lo, problem.hi)
    result = scipy_least_squares(lambda z: at(z)[0], z_start, jac=lambda z: at(z)[1],
                                 bounds=(problem.lo, problem.hi), method="trf", x_scale=1.0, ftol=1e-8, xtol=1e-6,
                                 gtol=1e-8, max_nfev=max_evaluations)
    r, J, signals = at(result.x)
    return Fit(result.x, r, J * result.x, signals, method, result.message, len(cache))


def population(problem: Problem, seed: int, generations: int = 20, popsize: int = 6) -> Fit:
    from scipy.optimize import differential_evolution

    lo = np.maximum(problem.lo, problem.z0 / 2)
    hi = np.minimum(problem.hi, problem.z0 * 2)
    runs = [0]

    def cost(Z: np.ndarray) -> np.ndarray:  # Z: (p, S), the whole generation
        runs[0] += 1
        R = problem.weighted(problem.simulate(Z.T))
        return 0.5 * np.einsum("ij,ij->i", R, R)

    result = differential_evolution(cost, list(zip(lo, hi)), vectorized=True, updating="deferred", seed=seed,
                                    popsize=popsize, maxiter=generations, polish=False, x0=problem.z0, tol=1e-8,
                                    init="sobol")
    polished = least_squares(problem, result.x, method="population")
    polished.evaluations += runs[0]
    polished.population = result.population
    return polished
