"""What a log tells about the fitted properties: 95 % intervals, flat directions and correlated pairs.

From the weighted Jacobian J at the optimum, in relative terms (each column times the property's value, so that a
column is the residual's change per relative change of its property): the covariance is s^2 (J^T J)^-1, with
s^2 the weighted residual's mean square per degree of freedom where that exceeds 1 (the simulator and the log
differ by more than the log's noise: the intervals widen by as much), 1 otherwise. A property's 95 % interval is
its value +- 1.96 sqrt(C_kk).

A property is identified when its 95 % interval is within +-`within` (10 %) of its value. Each singular direction
of J whose own 95 % half-width is wider than that is flat: along it the log hardly changes. A flat direction
carried by one property says that property is not identified; one spread over several says which combination
of them the log cannot tell apart, and the correlation of each pair (|rho| > 0.95) says which combination it can
(the ratio of two properties whose estimates rise together, the product of two that trade against each other).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

Z95 = 1.959963984540054
CORRELATED = 0.95


@dataclass
class Identification:
    half_width: np.ndarray             # (p,) relative 95 % half-widths
    identified: np.ndarray             # (p,) bool
    covariance: np.ndarray             # (p, p) relative
    scale: float                       # s, the residual's scale per degree of freedom (>= 1)
    warnings: list[str] = field(default_factory=list)
    flat: list[np.ndarray] = field(default_factory=list)  # unit directions (relative) the log does not tell


def identify(J: np.ndarray, residual: np.ndarray, names: Sequence[str], within: float = 0.1) -> Identification:
    """J: (m, p) weighted residual per relative change of each property; residual: (m,) weighted, at the optimum."""
    m, p = J.shape
    dof = max(m - p, 1)
    scale = max(1.0, float(np.sqrt(residual @ residual / dof)))
    U, sv, Vt = np.linalg.svd(J, full_matrices=False)
    tiny = sv.max() * 1e-12 if sv.size and sv.max() > 0 else 1e-300
    inv = np.where(sv > tiny, 1.0 / np.maximum(sv, tiny), 1e12)
    covariance = (Vt.T * (scale * inv) ** 2) @ Vt
    half = Z95 * np.sqrt(np.diag(covariance))
    warnings: list[str] = []
    flat = []
    in_flat = np.zeros(p, dtype=bool)
    for s_inv, v in zip(inv, Vt):
        if Z95 * scale * s_inv <= within:
            continue
        v = v * np.sign(v[np.argmax(np.abs(v))])  # a direction either way: its largest component positive
        flat.append(v)
        big = np.flatnonzero(np.abs(v) > 0.3)
        in_flat[big] = True
        if np.abs(v).max() > 0.95 or big.size < 2:
            k = int(np.argmax(np.abs(v)))
            warnings.append(f"{names[k]} is not identified: the log hardly depends on it (its 95 % interval is "
                            f"+-{_percent(half[k])} of its value)")
        else:
            terms = " ".join(f"{'+' if v[k] >= 0 else '-'} {abs(v[k]):.2f} d{_short(names[k])}" for k in big)
            warnings.append("the log does not tell apart the combination " + terms.removeprefix("+ ") +
                            " (d: relative change): " + ", ".join(names[k] for k in big) + " are not identified "
                            "separately")
    sd = np.sqrt(np.diag(covariance))
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = covariance / np.outer(sd, sd)
    for a in range(p):
        for b in range(a + 1, p):
            if np.isfinite(rho[a, b]) and abs(rho[a, b]) > CORRELATED:
                known = (f"{_short(names[a])} / {_short(names[b])}" if rho[a, b] > 0
                         else f"{_short(names[a])} x {_short(names[b])}")
                warnings.append(f"{names[a]} and {names[b]} are correlated (rho = {rho[a, b]:+.3f}): the log tells "
                                f"their combination {known} better than either")
    identified = (half <= within) & ~in_flat
    return Identification(half, identified, covariance, scale, warnings, flat)


def _short(name: str) -> str:
    """A property's name without its prim's path: `Engine.peakTorque`."""
    prim, _, attr = name.rpartition(".")
    return f"{prim.rsplit('/', 1)[-1]}.{attr.rsplit(':', 1)[-1]}"


def _percent(x: float) -> str:
    return f"{100 * x:.3g} %" if np.isfinite(x) and x < 1e4 else "unbounded"
