"""The engine drivetrain's full-pivot LU (sim/lu.py) and its compiled twin (_substeps.c solve_full_pivot).

PhysX solves the wheels + engine system with an LU that pivots on the largest element of the remaining block and
rounds each operation in float32; sim/lu.py does the same, batched over vehicles of different sizes. Here: it solves
(against numpy's LAPACK solve), a batch of mixed sizes gives each system what it gives alone, to the bit, a singular
system gives zeros, and the numpy and compiled kernels step a fleet's drivetrain to the bit.
"""
from __future__ import annotations

import copy

import numpy as np
import pytest
from conftest import needs_kernel
from hypothesis import given, settings
from hypothesis import strategies as st
from stage_factory import car_spec, preset_stage, translate

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import Simulator
from physxvehicle_usd.sim.lu import factor, solve_factored, solve_full_pivot
from physxvehicle_usd.sim.pipeline import StepOptions


def _well_conditioned(seed: int, n: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """n systems of `size` unknowns, diagonally dominant (each diagonal exceeds its row's other elements), with
    elements of mixed sign and magnitude so that pivots move rows and columns."""
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(n, size, size)) * rng.choice([0.01, 1.0, 100.0], size=(n, 1, size))
    rows = np.abs(M).sum(axis=2)
    M[:, np.arange(size), np.arange(size)] = rows * rng.choice([-1.0, 1.0], size=(n, size)) * 1.5
    return M, rng.normal(size=(n, size)) * 10.0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 17))
def test_the_lu_solves_as_lapack_does(seed, size):
    M, b = _well_conditioned(seed, 8, size)
    expected = np.linalg.solve(M, b[..., None])[..., 0]
    np.testing.assert_allclose(solve_full_pivot(M, b), expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())
    single = solve_full_pivot(M.astype(np.float32), b.astype(np.float32))
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, expected, rtol=2e-4, atol=2e-4 * np.abs(expected).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_batch_of_mixed_sizes_solves_each_system_as_alone(dtype):
    """The padding (zeros off its diagonal) never pivots: each system's rounding is that of its own size."""
    N, sizes = 6, [1, 2, 3, 5, 6, 4]
    M = np.zeros((len(sizes), N, N), dtype=dtype)
    b = np.zeros((len(sizes), N), dtype=dtype)
    for row, size in enumerate(sizes):
        m, rhs = _well_conditioned(row, 1, size)
        M[row, :size, :size], b[row, :size] = m[0], rhs[0]
        M[row, range(size, N), range(size, N)] = 1e6  # larger than any element: it must still not pivot
        b[row, size:] = 3e6
    x = solve_full_pivot(M, b, np.array(sizes))
    for row, size in enumerate(sizes):
        alone = solve_full_pivot(M[row:row + 1, :size, :size], b[row:row + 1, :size])[0]
        assert np.array_equal(x[row, :size], alone), (size, x[row, :size], alone)
        assert np.array_equal(x[row, size:], np.full(N - size, 3.0, dtype=dtype))  # b / diagonal


def test_a_singular_system_gives_zeros_as_physx_does():
    M = np.array([[[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]], [[2.0, 0.0], [0.0, 4.0]]], dtype=np.float32)
    x = solve_full_pivot(M, np.ones((3, 2), dtype=np.float32))
    assert np.array_equal(x, [[0.0, 0.0], [0.0, 0.0], [0.5, 0.25]])


@needs_kernel
def test_numpy_and_the_compiled_kernel_step_the_drivetrain_to_the_bit():
    """Two front-wheel-drive cars (two wheels and the engine in the LU, the rear wheels direct) and a basic car,
    launched from rest in float32: the front wheels part left from right in the LU's rounding, and both kernels part
    alike. (Five steps: at the sixth a rear wheel's tire torque differs in its last bit, the kernel's own atan.)"""
    stage = preset_stage(car_spec("standard", "A"), car_spec("standard", "B"), car_spec("basic", "C"))
    translate(stage, "/World/B", (5.0, 0.0, 0.0))
    translate(stage, "/World/C", (-5.0, 0.0, 0.0))
    description = read_stage(stage)
    runs = []
    for compiled in (False, True):
        sim = Simulator.from_description(copy.deepcopy(description), 1.0 / 60.0, dtype=np.float32,
                                         options=StepOptions(compiled=compiled))
        assert sim.options.compiled == compiled
        V = sim.params.V
        speeds = []
        for _ in range(5):
            sim.step({"accelerator": np.ones(V)})
            speeds.append((sim.state.rotation_speed.copy(), sim.state.engine_omega.copy()))
        runs.append(speeds)
    for (wheels, engine), (wheels_c, engine_c) in zip(*runs):
        assert np.array_equal(wheels, wheels_c) and np.array_equal(engine, engine_c)
    wheels = runs[0][-1][0]
    assert np.abs(wheels).max() > 0.1  # the wheels turned
    assert wheels[0, 0] != wheels[0, 1] and wheels[1, 0] != wheels[1, 1]  # and the front ones parted


def test_a_factorization_is_reused_for_the_same_systems_only():
    M, b = _well_conditioned(7, 4, 5)
    first = factor(M)
    assert factor(M.copy(), None, first) is first
    changed = M.copy()
    changed[2, 1, 3] += 1e-9
    again = factor(changed, None, first)
    assert again is not first
    np.testing.assert_array_equal(solve_factored(again, b)[[0, 1, 3]], solve_factored(first, b)[[0, 1, 3]])
    assert not np.array_equal(solve_factored(again, b)[2], solve_factored(first, b)[2])
