"""rigid_body.end_step_physx leaves the pose integration out where the row solve poses every body
(`_rows_pose_every_body`): the state it leaves is the integrating path's to the bit (0 ulps, the sign of zero included),
on random float32 states whose rows list every vehicle, and on ones where some vehicles have no rows (the
integration runs)."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from test_sim_end_step import BODY, _random_state, fleet  # noqa: F401 (the fixture)
from test_sim_row_solver import DT

from physxvehicle_usd.sim import pipeline, rigid_body
from physxvehicle_usd.sim.suspension import RoadGeometry


def _rows(p, s, normal):
    V, W = p.V, p.W
    road = RoadGeometry(hit=np.ones((V, W), bool), normal=normal, offset=np.zeros((V, W), np.float32),
                        friction=np.ones((V, W), np.float32), shape=np.zeros((V, W), np.int64))
    return pipeline.constraint_rows(p, s, road)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("limits", ["all", "some"])
@pytest.mark.parametrize("kernel_threads", [None, 1])
def test_the_pose_left_to_the_solve_is_the_integrated_one_to_the_bit(fleet, monkeypatch, seed, limits,  # noqa: F811
                                                                     kernel_threads):
    p, s, normal, begin_position, begin_orientation = _random_state(fleet, seed, limits)
    rows = _rows(p, s, normal)
    skips = rigid_body._rows_pose_every_body(s, begin_position, begin_orientation, rows, DT)
    assert skips == (limits == "all")  # ("some": two vehicles without rows)
    ours, theirs = copy.deepcopy(s), copy.deepcopy(s)
    rigid_body.end_step_physx(p, ours, begin_position, begin_orientation, rows, DT, None, None, kernel_threads)
    monkeypatch.setattr(rigid_body, "_rows_pose_every_body", lambda *args: False)
    rigid_body.end_step_physx(p, theirs, begin_position, begin_orientation, rows, DT, None, None, kernel_threads)
    for name in BODY:
        a, b = getattr(ours, name), getattr(theirs, name)
        assert a.dtype == b.dtype == np.float32
        np.testing.assert_array_equal(a.view(np.uint32), b.view(np.uint32))
        assert not np.shares_memory(getattr(ours, name), begin_position if "position" in name else begin_orientation)


def test_a_numpy_float64_dt_takes_the_integrating_path(fleet):  # noqa: F811
    p, s, normal, begin_position, begin_orientation = _random_state(fleet, 0, "all")
    rows = _rows(p, s, normal)
    assert rigid_body._rows_pose_every_body(s, begin_position, begin_orientation, rows, DT)
    assert not rigid_body._rows_pose_every_body(s, begin_position, begin_orientation, rows, np.float64(DT))
    assert not rigid_body._rows_pose_every_body(s, begin_position, begin_orientation, None, DT)
