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

import numpy as np


def solve_full_pivot(M: np.ndarray, b: np.ndarray, size: np.ndarray | None = None) -> np.ndarray:
    """x with M x = b for each system of the batch: M (n, N, N), b (n, N), size (n,) (default N)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):  # as PhysX's float arithmetic: no traps
        return _solve(M, b, size)


def _solve(M: np.ndarray, b: np.ndarray, size: np.ndarray | None) -> np.ndarray:
    n, N, _ = M.shape
    lu, x = M.copy(), b.copy()
    at = np.arange(n)
    size = np.full(n, N) if size is None else np.asarray(size)
    det = np.ones(n, dtype=M.dtype)
    perm_rows, perm_cols = np.zeros((n, N), dtype=np.int64), np.zeros((n, N), dtype=np.int64)
    index = np.arange(N)
    for k in range(N - 1):
        live = k < size - 1  # this step is one of the system's own
        block = np.abs(lu[:, k:, k:])
        outside = index[k:] >= size[:, None]
        block[outside[:, :, None] | outside[:, None, :]] = -1.0
        block[np.isnan(block)] = -1.0  # a NaN never compares larger
        first = np.argmax(block.transpose(0, 2, 1).reshape(n, -1), axis=1)  # column by column, first of equals
        row = np.where(live, k + first % (N - k), k)
        col = np.where(live, k + first // (N - k), k)
        perm_rows[:, k], perm_cols[:, k] = row, col
        lu[at, k], lu[at, row] = lu[at, row], lu[at, k].copy()
        lu[at, :, k], lu[at, :, col] = lu[at, :, col], lu[at, :, k].copy()
        det = np.where(row != k, -det, det)
        det = np.where(col != k, -det, det)
        pivot = lu[:, k, k]
        det = np.where(live, det * pivot, det)
        # unconditional, as the compiled twin: a system that is done eliminates its padding (zeros), and a zero pivot
        # divides by 1 (the system is singular: its own unknowns become zeros below)
        lu[:, k + 1:, k] = lu[:, k + 1:, k] / np.where(live & (pivot != 0.0), pivot, 1.0)[:, None]
        lu[:, k + 1:, k + 1:] = lu[:, k + 1:, k + 1:] - lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    last = size - 1
    det = det * lu[at, last, last]
    for k in range(N - 1):
        x[at, k], x[at, perm_rows[:, k]] = x[at, perm_rows[:, k]], x[at, k].copy()
    for r in range(1, N):
        for i in range(r):
            x[:, r] = x[:, r] - lu[:, r, i] * x[:, i]
    for r in range(N - 1, -1, -1):  # (a singular system divides by zero here: its x is replaced by zeros below)
        for i in range(r + 1, N):
            x[:, r] = x[:, r] - lu[:, r, i] * x[:, i]
        x[:, r] = x[:, r] / lu[:, r, r]
    for k in range(N - 2, -1, -1):
        x[at, k], x[at, perm_cols[:, k]] = x[at, perm_cols[:, k]], x[at, k].copy()
    own = index < size[:, None]  # a singular system's own unknowns; its padding keeps b / diagonal
    return np.where((det == 0.0)[:, None] & own, 0.0, x).astype(M.dtype, copy=False)
