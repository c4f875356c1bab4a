"""LU decomposition with full pivoting, batched over systems: the engine drivetrain's solve as vehicle2 does it.

PhysX solves the coupled wheels + engine system (eBEST_POSSIBLE clutch accuracy, which omni.physx sets) with an LU
decomposition whose pivot is the largest |element| of the remaining block, searched column by column and, within a
column, row by row; the first strictly largest wins. It then swaps both the pivot's row and its column into place.
Every operation is a single rounding in the array's dtype (float32 where the simulation runs in float32), in the
order PhysX does them: elimination divides by the pivot (no reciprocal), forward and back substitution accumulate
left to right. A system whose determinant (the product of the pivots, signs flipped per swap, in that dtype) is
exactly zero solves to all zeros, as PhysX's does. sim/_substeps.c solve_full_pivot is the compiled twin, the same
operations across 16 vehicles at once; tests/test_sim_lu.py holds the two to the bit.

Systems of different sizes share one batch: system n occupies the leading size[n] rows and columns; the rest is
padding that must have zeros off its diagonal (its rows and columns couple to nothing). The pivot search never looks
at padding, so a system's pivots, and with them its rounding, are those of its own size; a padding row solves to
b / diagonal.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Factors:
    """A batch's factorization: its systems (to know them again), the eliminated matrices, the row and column swapped
    into place at each step, whether any system swapped at that step (rows, columns), and the determinants."""
    matrix: np.ndarray
    size: np.ndarray
    lu: np.ndarray
    perm_rows: np.ndarray
    perm_cols: np.ndarray
    swapped: np.ndarray
    det: np.ndarray


def solve_full_pivot(M: np.ndarray, b: np.ndarray, size: np.ndarray | None = None) -> np.ndarray:
    """x with M x = b for each system of the batch: M (n, N, N), b (n, N), size (n,) (default N)."""
    return solve_factored(factor(M, size), b)


def factor(M: np.ndarray, size: np.ndarray | None = None, previous: Factors | None = None) -> Factors:
    """The batch's factorization; `previous` where it factored these very systems (a drivetrain's matrix stays the
    same while its gear, throttle and time step do: from substep to substep the right-hand side alone changes)."""
    size = np.full(len(M), M.shape[1]) if size is None else np.asarray(size)
    if (previous is not None and previous.matrix.shape == M.shape and np.array_equal(previous.size, size)
            and np.array_equal(previous.matrix, M)):
        return previous
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # as PhysX's float arithmetic: no traps
        return _factor(M, size)


def solve_factored(f: Factors, b: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return _substitute(f, b)


def _factor(M: np.ndarray, size: np.ndarray) -> Factors:
    # (Few whole-batch operations: a drivetrain solves this every substep. Only whether the determinant is zero
    # matters, so its sign is not kept; its magnitude is the same product of pivots, in the same order.)
    n, N, _ = M.shape
    lu = M.copy()
    at = np.arange(n)
    det = np.ones(n, dtype=M.dtype)
    perm_rows, perm_cols = np.zeros((n, N), dtype=np.int64), np.zeros((n, N), dtype=np.int64)
    index = np.arange(N)
    padded = bool((size < N).any())
    swapped = np.zeros((2, N), dtype=bool)  # whether any system swapped rows (0) or columns (1) at step k
    for k in range(N - 1):
        block = np.abs(lu[:, k:, k:])
        keep = block >= 0.0  # (a NaN never compares larger)
        if padded:
            live = k < size - 1  # this step is one of the system's own
            inside = index[k:] < size[:, None]
            keep &= inside[:, :, None] & inside[:, None, :]
        first = np.where(keep, block, -1.0).transpose(0, 2, 1).reshape(n, -1).argmax(axis=1)  # column by column,
        row, col = k + first % (N - k), k + first // (N - k)  # the first of equals
        if padded:
            row, col = np.where(live, row, k), np.where(live, col, k)
        perm_rows[:, k], perm_cols[:, k] = row, col
        swapped[:, k] = (row != k).any(), (col != k).any()
        if swapped[0, k]:
            lu[at, k], lu[at, row] = lu[at, row], lu[at, k].copy()
        if swapped[1, k]:
            lu[at, :, k], lu[at, :, col] = lu[at, :, col], lu[at, :, k].copy()
        pivot = lu[:, k, k]
        usable = pivot != 0.0
        if padded:
            det = np.where(live, det * pivot, det)
            usable &= live
        else:
            det = det * pivot
        # unconditional, as the compiled twin: a system that is done eliminates its padding (zeros), and a zero pivot
        # divides by 1 (the system is singular: its own unknowns become zeros below)
        lu[:, k + 1:, k] /= np.where(usable, pivot, 1.0)[:, None]
        lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    last = size - 1
    det = det * lu[at, last, last]
    return Factors(M.copy(), size, lu, perm_rows, perm_cols, swapped, det)


def _substitute(f: Factors, b: np.ndarray) -> np.ndarray:
    lu, perm_rows, perm_cols, swapped = f.lu, f.perm_rows, f.perm_cols, f.swapped
    n, N = b.shape
    at = np.arange(n)
    x = b.copy()
    for k in np.nonzero(swapped[0])[0]:
        x[at, k], x[at, perm_rows[:, k]] = x[at, perm_rows[:, k]], x[at, k].copy()
    for i in range(N - 1):  # forward, column by column: each x[r] still takes its terms in the order i = 0, 1, ...
        x[:, i + 1:] -= lu[:, i + 1:, i] * x[:, i, None]
    for r in range(N - 1, -1, -1):  # (a singular system divides by zero here: its x is replaced by zeros below)
        for i in range(r + 1, N):
            x[:, r] -= lu[:, r, i] * x[:, i]
        x[:, r] /= lu[:, r, r]
    for k in np.nonzero(swapped[1])[0][::-1]:
        x[at, k], x[at, perm_cols[:, k]] = x[at, perm_cols[:, k]], x[at, k].copy()
    own = np.arange(N) < f.size[:, None]  # a singular system's own unknowns; its padding keeps b / diagonal
    return np.where((f.det == 0.0)[:, None] & own, 0.0, x).astype(lu.dtype, copy=False)
