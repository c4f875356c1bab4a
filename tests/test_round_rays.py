"""sim/round_rays.py: the one ray-capsule entry the ground, vehicle and wheel-sweep queries share, against distances
worked out by hand."""
import numpy as np
import pytest

from physxvehicle_usd.sim.round_rays import capsule_entry, segment_points


def _ray(o, d):
    return np.array([o], float), np.array([d], float)


@pytest.mark.parametrize("unit", [True, False])
def test_ray_enters_the_side_between_the_ends(unit):
    o, d = _ray((0.5, 0.0, 5.0), (0.0, 0.0, -1.0))  # down onto a capsule along x, radius 1, its axis at z = 0
    t = capsule_entry(d, np.array([[0.0, 0.0, 0.0]]), np.array([[2.0, 0.0, 0.0]]), np.array([1.0]), o, unit=unit)
    assert t[0] == pytest.approx(4.0, abs=1e-12)


def test_ray_beyond_an_end_enters_its_sphere():
    o, d = _ray((2.6, 0.0, 5.0), (0.0, 0.0, -1.0))  # 0.6 past the end at x = 2: the sphere's surface at z = 0.8
    t = capsule_entry(d, np.array([[0.0, 0.0, 0.0]]), np.array([[2.0, 0.0, 0.0]]), np.array([1.0]), o, unit=True)
    assert t[0] == pytest.approx(5.0 - 0.8, abs=1e-12)


def test_a_sphere_is_a_capsule_of_one_point_and_an_unnormalised_direction_scales_t():
    centre = np.array([[0.0, 0.0, 0.0]])
    o, d = _ray((0.0, 3.0, 0.0), (0.0, -2.0, 0.0))  # twice the unit speed: entry at half the distance
    t = capsule_entry(d, centre, centre, np.array([0.5]), o)
    assert t[0] == pytest.approx(1.25, abs=1e-12)


def test_a_miss_is_inf_and_a_start_inside_is_negative_for_the_caller_to_judge():
    a, b, r = np.array([[0.0, 0.0, 0.0]]), np.array([[1.0, 0.0, 0.0]]), np.array([0.5])
    o, d = _ray((0.0, 2.0, 0.0), (1.0, 0.0, 0.0))
    assert np.isinf(capsule_entry(d, a, b, r, o, unit=True)[0])
    o, d = _ray((0.5, 0.0, 0.0), (0.0, 0.0, 1.0))
    assert capsule_entry(d, a, b, r, o, unit=True)[0] < 0.0


def test_rays_from_the_origin_broadcast_over_several_capsules_each():
    d = np.array([[[0.0, 0.0, 1.0]]])  # (K=1, 1, 3) against (1, S=2, 3)
    a = np.array([[[-1.0, 0.0, 3.0], [-1.0, 0.0, 6.0]]])
    b = np.array([[[1.0, 0.0, 3.0], [1.0, 0.0, 6.0]]])
    t = capsule_entry(d, a, b, np.array([[1.0]]), unit=True, tiny=1e-12)
    assert t.shape == (1, 2)
    assert t[0] == pytest.approx([2.0, 5.0], abs=1e-12)


def test_segment_points_clamp_to_the_ends():
    a, b = np.array([0.0, 0.0, 0.0]), np.array([2.0, 0.0, 0.0])
    p = np.array([[-1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [3.0, -1.0, 0.0]])
    assert segment_points(a, b, p).tolist() == [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]]
