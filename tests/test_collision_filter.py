"""Collision-group filtering over group ids (physxvehicle_usd/collision_filter.py) decides every pair of colliders, and
every query and shape, as the pairwise rule does (omni.physx's: a small reference of it below), on random layouts of
groups: inverted or not, listing groups, other paths or themselves, colliders in no group, in several or in a group
the stage does not have, queries with no group."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from physxvehicle_usd.collision_filter import NO_GROUP, GroupFilter
from physxvehicle_usd.description import CollisionGroupDescription

NAMES = [f"/World/G{i}" for i in range(6)] + ["/World/Chassis", "/World/Car/ChassisGroup"]


def _reference_filters(groups, a, b):
    """Group a keeps its colliders from those of group b (None: in no group); inverted: from all it does not list."""
    if a not in groups:
        return False
    listed = b is not None and b in groups[a].filtered
    return not listed if groups[a].inverted else listed


def _reference_collide(groups, of_a, of_b):
    """Two colliders (their groups in path order, the first filtering) touch unless a filters b or b filters a."""
    a, b = next(iter(of_a), None), next(iter(of_b), None)
    return not ((a is not None and _reference_filters(groups, a, b)) or
                (b is not None and _reference_filters(groups, b, a)))


def _reference_query_meets(groups, query_group, of_shape):
    return query_group is None or not of_shape or _reference_collide(groups, [query_group], of_shape)


names = st.sampled_from(NAMES)
layouts = st.dictionaries(names, st.tuples(st.lists(names, unique=True, max_size=4), st.booleans()), max_size=6)
colliders = st.lists(st.lists(names, unique=True, max_size=3), min_size=1, max_size=12)
queries = st.lists(st.one_of(st.none(), names), min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(layouts, colliders, colliders, queries)
def test_group_ids_filter_as_the_pairwise_rule(layout, of_a, of_b, query_groups):
    groups = {path: CollisionGroupDescription(path, filtered, inverted) for path, (filtered, inverted) in layout.items()}
    rule = GroupFilter.of(groups)
    a, b, q = rule.first(of_a), rule.first(of_b), rule.ids(query_groups)
    expected = [[_reference_collide(groups, x, y) for y in of_b] for x in of_a]
    assert rule.collide(a[:, None], b[None, :]).tolist() == expected
    expected = [[_reference_query_meets(groups, g, y) for y in of_b] for g in query_groups]
    assert rule.meets(q[:, None], b[None, :]).tolist() == expected
    assert [rule.colliders_touch(x, y) for x, y in zip(of_a, of_b)] == \
        [_reference_collide(groups, x, y) for x, y in zip(of_a, of_b)]


def test_a_fleets_groups_cost_what_they_list():
    """N copies of the sample car's two groups (a query group and a chassis group filtering each other): 2N ids and
    2N listed pairs, and each copy's queries meet every chassis but their own."""
    n = 1000
    groups = {}
    for i in range(n):
        chassis, query = f"/World/Car_{i}/ChassisGroup", f"/World/Car_{i}/WheelQueryGroup"
        groups[chassis] = CollisionGroupDescription(chassis, [query])
        groups[query] = CollisionGroupDescription(query, [chassis])
    rule = GroupFilter.of(groups)
    assert len(rule.index) == 2 * n and rule.listed.shape == (2 * n,)
    q = rule.ids(f"/World/Car_{i}/WheelQueryGroup" for i in range(n))
    s = rule.first([f"/World/Car_{i}/ChassisGroup"] for i in range(n))
    assert np.array_equal(rule.meets(q[:, None], s[None, :]), ~np.eye(n, dtype=bool))
    assert rule.meets(NO_GROUP, s).all() and rule.meets(q, NO_GROUP).all()
