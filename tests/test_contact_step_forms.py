"""The contact step's cheaper forms against the forms they replaced, kept here as the numpy references: the same
numbers to the bit (0 ulps), on random inputs built to hit the edge cases (repeated points, -0 and NaN keys, patches
longer than the pairwise comparison, more points than telemetry slots, patches holding 0, 1 or 2 anchors, a solve of
many vehicles against each vehicle alone)."""
from __future__ import annotations

import numpy as np
import pytest

from physxvehicle_usd.sim.contact.patches import grow_patches
from physxvehicle_usd.sim.contact.records import run_lengths, run_starts
from physxvehicle_usd.sim.contact.reduction import first_of_equals
from physxvehicle_usd.sim.contact.telemetry import TELEMETRY_SLOTS, empty_telemetry, telemetry
from physxvehicle_usd.sim.contact_rows import StaticContactRows
from physxvehicle_usd.sim.declare import PATCH_PARAMS
from physxvehicle_usd.sim.solver_rows import PatchRows
from physxvehicle_usd.sim.state import SimParams
from physxvehicle_usd.sim.vecmath import quat_to_mat


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal to the bit: dtype, shape and bytes (0 ulps; -0 is not 0)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def test_runs_begin_and_end_where_the_keys_change():
    rng = np.random.default_rng(1)
    for n in (1, 2, 7, 50):
        a, b = np.sort(rng.integers(0, 4, n)), rng.integers(0, 2, n)
        assert _same(run_starts(a), np.r_[True, a[1:] != a[:-1]])
        assert _same(run_starts(a, b), np.r_[True, (a[1:] != a[:-1]) | (b[1:] != b[:-1])])
        first = np.flatnonzero(run_starts(a))
        assert _same(first, np.r_[0, np.nonzero(np.diff(a))[0] + 1])
        assert _same(run_lengths(first, n), np.diff(np.r_[first, n]))
    assert run_starts(np.zeros(0, np.int64)).shape == (0,)


# 40: beyond the comparison offset by offset, by a sort of the rows; 2 patches: few points, compared all at once
@pytest.mark.parametrize("longest, patches", [(1, 30), (4, 30), (6, 30), (40, 30), (1, 2), (6, 2)])
def test_a_patch_keeps_the_first_of_its_repeated_points_as_np_unique_over_rows_does(longest, patches):
    rng = np.random.default_rng(longest)
    counts = rng.integers(1, longest + 1, patches)
    counts[0] = longest
    patch = np.repeat(np.arange(len(counts)), counts)
    key = rng.integers(-2, 3, (len(patch), 3)).astype(float)  # few values: many repeats
    key[rng.random(len(patch)) < 0.2, 1] = -0.0
    key[rng.random(len(patch)) < 0.05, 2] = np.nan
    key[:2] = [[1.0, 0.0, 2.0], [1.0, -0.0, 2.0]]  # the first patch's first two points: one point (-0 is 0)
    reference = np.zeros(len(patch), bool)
    reference[np.unique(np.concatenate([patch[:, None], key], axis=1), axis=0, return_index=True)[1]] = True
    got = first_of_equals(patch, key)
    assert _same(got, reference)
    assert got.all() == (longest == 1)  # repeated points were found where a patch holds two or more


def _telemetry_by_argsort(V, solved, begin_position):
    """The telemetry as it was first written: each vehicle's active points first (a stable argsort), taken along."""
    out = empty_telemetry(V)
    S = TELEMETRY_SLOTS
    for vehicles, rows in solved:
        Vr = len(vehicles)
        active = rows.active.reshape(Vr, -1)
        order = np.argsort(~active, axis=1, kind="stable")[:, :S]
        taken = np.take_along_axis(active, order, axis=1)
        k = order.shape[1]
        arm = np.take_along_axis(rows.arm.reshape(3, Vr, -1), order[None], axis=2)
        normal = np.broadcast_to(rows.normal[..., None], rows.arm.shape).reshape(3, Vr, -1)
        normal = np.take_along_axis(normal, order[None], axis=2)
        impulse = np.take_along_axis(rows.impulse.reshape(Vr, -1), order, axis=1)
        point = begin_position[:, vehicles].astype(float)[:, :, None] + arm
        slot = out["contactCount"][vehicles][:, None] + np.arange(k)[None, :]
        ok = taken & (slot < S)
        vehicle = np.broadcast_to(vehicles[:, None], slot.shape)[ok]
        out["contactPoints"][vehicle, slot[ok]] = np.moveaxis(point, 0, -1)[ok]
        out["contactNormals"][vehicle, slot[ok]] = np.moveaxis(normal, 0, -1)[ok]
        out["contactImpulses"][vehicle, slot[ok]] = impulse[ok]
        out["contactCount"][vehicles] += active.sum(axis=1)
    return out


class _Rows:
    """Solved contact rows as StaticContactRows holds them (active, arm, normal, impulse)."""

    def __init__(self, rng, Vr, Pm, K, density):
        self.active = rng.random((Vr, Pm, K)) < density
        self.arm = rng.normal(size=(3, Vr, Pm, K))
        self.normal = rng.normal(size=(3, Vr, Pm))
        self.impulse = rng.random((Vr, Pm, K))


def test_telemetry_reports_each_vehicles_points_in_the_solvers_order_as_the_argsort_form_did():
    rng = np.random.default_rng(3)
    V = 9
    begin = rng.normal(size=(3, V)).astype(np.float32)
    # three groups, a vehicle in two of them, one vehicle with more points than the slots
    solved = [(np.array([0, 2, 5]), _Rows(rng, 3, 2, 4, 0.6)), (np.array([2, 7]), _Rows(rng, 2, 5, 6, 0.9)),
              (np.array([1, 5, 8]), _Rows(rng, 3, 1, 4, 0.0))]
    got, reference = telemetry(V, solved, begin), _telemetry_by_argsort(V, solved, begin)
    assert got["contactCount"][2] > TELEMETRY_SLOTS
    for name in reference:
        assert _same(got[name], reference[name]), name


def _grow_every_patch(point, separation, first, count, anchors, first_anchor, threshold):
    """growPatches swept over every patch (those holding two anchors take nothing), as it was first written."""
    P = len(first)
    grow = anchors < 2
    made = anchors.copy()
    w0 = np.where((anchors == 1)[:, None], first_anchor, 0.0)
    w1 = np.zeros((P, 3))
    far = np.zeros(P)
    for k in range(int(count.max(initial=0))):
        at = first + np.minimum(k, count - 1)
        near = grow & (k < count) & (separation[at] < threshold)
        x = point[at]
        d0 = ((x - w0) ** 2).sum(axis=1)
        d1 = ((x - w1) ** 2).sum(axis=1)
        take_first = near & (made == 0)
        second = near & (made == 1) & (d0 > 1e-8)
        third = near & (made == 2)
        replace1 = third & (d0 > d1) & (d0 > far)
        replace0 = third & ~(d0 > d1) & (d1 > far)
        w0 = np.where((take_first | replace0)[:, None], x, w0)
        w1 = np.where((second | replace1)[:, None], x, w1)
        far = np.where(second | replace1, d0, np.where(replace0, d1, far))
        far = np.where(near & (made == 1) & ~second, d0, far)
        made = made + take_first + second
    return made, np.stack((w0, w1), axis=1)


def test_growing_only_the_patches_short_of_anchors_gives_what_sweeping_every_patch_gave():
    rng = np.random.default_rng(4)
    count = rng.integers(1, 9, 40)
    first = np.r_[0, np.cumsum(count)[:-1]]
    C = int(count.sum())
    point, separation = rng.normal(size=(C, 3)), rng.normal(0.0, 0.1, C)
    anchors = rng.integers(0, 3, 40)
    anchors[count.argmax()] = 2  # the longest patch holds both: the sweep is shorter
    first_anchor, threshold = rng.normal(size=(40, 3)), np.full(40, 0.05)
    got = grow_patches(point, separation, first, count, anchors, first_anchor, threshold)
    reference = _grow_every_patch(point, separation, first, count, anchors, first_anchor, threshold)
    assert _same(got[0], reference[0]) and _same(got[1], reference[1])
    assert (got[0] > anchors).any()


def test_a_solves_contact_rows_are_each_vehicles_own_rows_whatever_vehicles_share_the_solve():
    """A solve of many vehicles spreads each rotation over its rows before the products (contact_rows
    `_SPREAD_ROTATION_VEHICLES`); one vehicle alone does not: the rows agree to the bit."""
    rng = np.random.default_rng(5)
    Vr, Pm, K = 12, 2, 4
    vehicles = np.arange(Vr)
    p = SimParams(mass=rng.random(Vr) * 1000 + 500, moi=rng.random((3, Vr)) * 2000 + 300,
                  max_depenetration_velocity=np.full(Vr, 5.0))
    n = rng.normal(size=(3, Vr, Pm))
    patches = PatchRows(
        point_active=rng.random((Vr, Pm, K)) < 0.7, arm=rng.normal(size=(3, Vr, Pm, K)),
        separation=rng.normal(0.0, 0.01, (Vr, Pm, K)), normal=n / np.linalg.norm(n, axis=0),
        **{name: rng.random((Vr, Pm)) for name in PATCH_PARAMS}, anchor_active=rng.random((Vr, Pm, 2)) < 0.7,
        anchor_arm=rng.normal(size=(3, Vr, Pm, 2)), anchor_error=rng.normal(0.0, 0.01, (3, Vr, Pm, 2)),
        bounce_threshold=np.full(Vr, 0.2))
    q = rng.normal(size=(4, Vr))
    q /= np.linalg.norm(q, axis=0)
    R, x = quat_to_mat(q), rng.normal(size=(6, Vr))
    whole = StaticContactRows(p, patches, vehicles, R, x, 1 / 60, 4, float, cut_rows=False)
    for v in range(Vr):
        one = np.arange(Vr) == v
        alone = StaticContactRows(p, patches.subset(one), vehicles[one], R[:, :, one], x[:, one], 1 / 60, 4, float,
                                  cut_rows=False)
        assert _same(alone.J, whole.J[:, one]) and _same(alone.WJ, whole.WJ[:, one])
        assert _same(alone.recip, whole.recip[one]) and _same(alone.error, whole.error[one])
        for (J, WJ, gain, error), (J_, WJ_, gain_, error_) in zip(alone.F, whole.F):
            assert _same(J, J_[:, one]) and _same(WJ, WJ_[:, one]) and _same(gain, gain_[one])
            assert _same(error, error_[one])
