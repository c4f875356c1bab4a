"""Collision-group filtering as PhysX applies it, worked out from the stage's resolved groups (the description's
`collisionGroups`): the one rule that the simulator's contacts and suspension queries, the validator and the fixer
use.

Two colliders touch unless a group of one lists a group of the other among its filtered groups (an inverted group:
unless it does not list it), either way round. A collider in several groups is filtered by the first alone, in path
order, as omni.physx gives it (usdLoad/CollisionGroup.cpp getCollisionGroup; read/collision.groups_of lists them in
that order). A suspension query carries its wheel attachment's collisionGroup, and omni.physx's pre-filter
(VehicleGenerator.cpp, VehicleQueryFilterCallback) skips a shape only where both have a group and the two groups
filter each other; it does not test the actor, so a vehicle's own shapes are kept from its queries by groups alone.
(FilteredPairsAPI, the other filter, names prims rather than groups: its pairs are the contacts' own.)

The rule works on group ids, in arrays: `GroupFilter` holds each group's inverted flag and the pairs the stage lists
(group a names group b in its filteredGroups) as sorted integer codes, and decides any number of pairs of colliders
(or of a query and a shape) by a binary search of their codes. Its size is that of the authored relationships, so a
fleet of N copies of an asset, whose every copy brings its own groups, costs N times one copy's; a table over every
two groups (or every two distinct shapes' groups) would grow as N squared.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from .description import CollisionGroupDescription

NO_GROUP = -1  # the id of a collider in no group, or of a query whose wheel attachment names none


@dataclass(frozen=True)
class GroupFilter:
    """The stage's collision groups as ids: per id whether the group is inverted, and the (lister, listed) pairs of
    their filteredGroups. Every group and every path a group lists has an id below `unknown`; `unknown` is the id
    of a name the stage has no group of (a hand-made description's), which filters nothing and which only inverted
    groups filter, as no group at all would be were it not a group."""

    index: Mapping[str, int]  # group path (or a path a group lists) -> id
    inverted: np.ndarray  # (unknown + 2,) bool by id; False for `unknown` and for NO_GROUP (the last)
    listed: np.ndarray  # sorted unique int64 codes a * (unknown + 1) + b: group a lists group b

    @classmethod
    def of(cls, groups: Mapping[str, CollisionGroupDescription]) -> "GroupFilter":
        index: dict[str, int] = {}
        for path in groups:
            index.setdefault(path, len(index))
        for group in groups.values():
            for target in group.filtered:
                index.setdefault(target, len(index))
        width = len(index) + 1
        inverted = np.zeros(width + 1, bool)
        codes = []
        for path, group in groups.items():
            a = index[path]
            inverted[a] = bool(group.inverted)
            codes.extend(a * width + index[target] for target in group.filtered)
        return cls(index, inverted, np.unique(np.asarray(codes, np.int64)))

    @property
    def unknown(self) -> int:
        return len(self.index)

    def ids(self, names: Iterable[str | None]) -> np.ndarray:
        """Each group name's id (None: NO_GROUP)."""
        unknown = self.unknown
        return np.fromiter((NO_GROUP if name is None else self.index.get(name, unknown) for name in names), np.int64)

    def first(self, of_colliders: Iterable[Sequence[str]]) -> np.ndarray:
        """The id of the group that filters each collider, given its groups in path order: the first (NO_GROUP for a
        collider in none)."""
        return self.ids(groups[0] if len(groups) else None for groups in of_colliders)

    def filters(self, a, b) -> np.ndarray:
        """Whether group a keeps its colliders from touching those of group b (id arrays, broadcast; NO_GROUP in b:
        colliders in no group, which only an inverted group filters; NO_GROUP in a: never)."""
        a, b = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(b, np.int64))
        listed = np.zeros(a.shape, bool)
        if self.listed.size:
            code = a * (self.unknown + 1) + b
            at = np.minimum(np.searchsorted(self.listed, code), self.listed.size - 1)
            listed = (a >= 0) & (b >= 0) & (self.listed[at] == code)
        return listed != self.inverted[a]  # an inverted group filters what it does not list

    def collide(self, a, b) -> np.ndarray:
        """Whether colliders filtered by groups a and b (id arrays, broadcast) touch: filtering works either way
        round."""
        return ~(self.filters(a, b) | self.filters(b, a))

    def meets(self, query, shape) -> np.ndarray:
        """Whether a suspension query with group `query` may hit a shape filtered by group `shape` (id arrays,
        broadcast): unless both have a group and the groups filter each other."""
        query, shape = np.broadcast_arrays(np.asarray(query, np.int64), np.asarray(shape, np.int64))
        return (query == NO_GROUP) | (shape == NO_GROUP) | self.collide(query, shape)

    def colliders_touch(self, of_a: Sequence[str], of_b: Sequence[str]) -> bool:
        """`collide` of two colliders given by their groups (in path order)."""
        a, b = self.first((of_a, of_b))
        return bool(self.collide(a, b))
