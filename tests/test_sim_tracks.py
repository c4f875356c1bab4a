"""A tank's drivetrain solve (sim/drivetrain.py _solve_tracks) against vehicle2's constraint-group equations.

PhysX folds each track of two wheels or more into one unknown (a wheel turns at r_first / r_wheel times its track's
first wheel), forms the normal equations of the folded system element by element in float32 and solves them with
its full-pivoting LU. Here the equations are written out one element at a time, in PhysX's order of unknowns and of
summation, and the batched solve must give the same bits; in float64 it must give the least-squares solution.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from physxvehicle_usd.sim.drivetrain import _solve_tracks, _tracks
from physxvehicle_usd.sim.lu import solve_full_pivot

W = 6
# per vehicle: the tracks (wheels in track order), the radii, the wheels on the differential. The radii are float32
# values, as read from USD: r_first / r_wheel is then the same quotient in float64 rounded to float32 as in float32.
TANKS = [
    # a track listed out of wheel order with wheels of three radii, a track of two, a wheel on the differential alone
    ([[4, 0, 2], [1, 3]], [0.5, 0.375, 0.4375, 0.375, 0.3125, 0.5], [0, 1, 2, 3, 4, 5]),
    # a track of three, a track of one wheel (no group: a wheel alone), two wheels on nothing (direct drive)
    ([[0, 1, 2], [3]], [0.375, 0.375, 0.3125, 0.5, 0.5, 0.5], [0, 1]),
]


def _vehicle(tracks, radii):
    return SimpleNamespace(nb_wheels=W, wheels=[SimpleNamespace(wheel=SimpleNamespace(radius=r)) for r in radii],
                           tank_differential=SimpleNamespace(wheels_per_track=tracks,
                                                             thrust_index_per_track=list(range(len(tracks)))))


def _batch(dtype):
    rng = np.random.default_rng(7)
    columns = [_tracks(_vehicle(tracks, radii)) for tracks, radii, _ in TANKS]
    p = SimpleNamespace(**{name: np.array([c[k] for c in columns], dtype=t) for k, name, t in
                           ((1, "track_group", np.int64), (2, "track_place", np.int64), (3, "group_multiplier", dtype))})
    connected = np.zeros((len(TANKS), W), dtype=bool)
    for v, (tracks, _, diff) in enumerate(TANKS):
        connected[v, diff] = True
        connected[v, [w for t in tracks for w in t]] = True
    M = rng.normal(size=(len(TANKS), W + 1, W + 1)) * rng.choice([0.01, 1.0, 30.0], size=(len(TANKS), 1, W + 1))
    M[:, np.arange(W + 1), np.arange(W + 1)] += 40.0
    b = rng.normal(size=(len(TANKS), W + 1)) * 10.0
    return p, M.astype(dtype), b.astype(dtype), connected


def _physx(M, b, tracks, radii, connected):
    """One tank, one element at a time: unknowns (connected wheels in no group, groups in track order, the engine),
    each sum accumulated from zero in M's dtype."""
    t = M.dtype.type
    groups = [track for track in tracks if len(track) >= 2]
    alone = [w for w in range(W) if connected[w] and not any(w in g for g in groups)]
    rows = [w for w in range(W) if connected[w]] + [W]
    multiplier = {w: t(1.0) if k == 0 else t(t(radii[g[0]]) / t(radii[w])) for g in groups for k, w in enumerate(g)}
    A = {}
    for i in rows:
        A[i] = [M[i, w] for w in alone]
        for g in groups:
            total = t(0.0)
            for w in g:
                total = total + M[i, w] * multiplier[w]
            A[i].append(total)
        A[i].append(M[i, W])
    N = len(alone) + len(groups) + 1
    normal, rhs = np.zeros((1, N, N), dtype=M.dtype), np.zeros((1, N), dtype=M.dtype)
    for i in range(N):
        for j in range(N):
            total = t(0.0)
            for k in rows:
                total = total + A[k][i] * A[k][j]
            normal[0, i, j] = total
        total = t(0.0)
        for k in rows:
            total = total + A[k][i] * b[k]
        rhs[0, i] = total
    y = solve_full_pivot(normal, rhs)[0]
    x = np.array([b[w] / M[w, w] for w in range(W)] + [y[-1]], dtype=M.dtype)
    x[alone] = y[:len(alone)]
    for n, g in enumerate(groups):
        for w in g:
            x[w] = multiplier[w] * y[len(alone) + n]
    return x, np.array([[A[k][i] for i in range(N)] for k in rows]), b[rows]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_tank_solve_is_physx_constraint_group_solve_to_the_bit(dtype):
    p, M, b, connected = _batch(dtype)
    x = _solve_tracks(p, M.copy(), b.copy(), connected, np.arange(len(TANKS)))
    assert x.dtype == dtype
    for v, (tracks, radii, _) in enumerate(TANKS):
        expected, A, rhs = _physx(M[v], b[v], tracks, radii, connected[v])
        assert np.array_equal(x[v], expected), (v, x[v], expected)
        if dtype is np.float64:  # the normal equations' solution is the folded system's least squares
            least = np.linalg.lstsq(A, rhs, rcond=None)[0]
            np.testing.assert_allclose(x[v, W], least[-1], rtol=1e-9)
