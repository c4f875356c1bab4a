"""The suspension queries' pre-filter by collision groups, as omni.physx gives it to every wheel's raycast or sweep
(VehicleGenerator.cpp, VehicleQueryFilterCallback): the query carries the wheel attachment's collisionGroup, a shape
its own collision groups, and the shape is skipped only where both have a group and the two groups filter each other
(collision_filter.GroupFilter.meets). It applies to the static ground (sim/ground.py's queries, through `GroundFilter`) and to
the vehicles' shapes, other vehicles' and its own (sim/vehicle_queries.py), alike.

Against the static ground it is worked out once, when the simulator is built, as a table over the distinct wheel
query groups and the ground's shapes (in arrays: a fleet's every copy brings its own query group), so a step pays one
look-up per (query, candidate shape) pair and nothing at all where no wheel's group filters any shape.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..collision_filter import GroupFilter
from ..description import StageDescription
from .ground import Ground, QueryFilter


def wheel_query_groups(description: StageDescription, paths: Sequence[str], wheel_paths: Sequence[Sequence[str]],
                       W: int) -> tuple[list[str | None], np.ndarray]:
    """The distinct query groups of the batch's wheels (None: the wheel's attachment names none) and each wheel's
    index among them (V, W; a padded wheel slot gets 0)."""
    keys: dict[str | None, int] = {}
    query_key = np.zeros((len(paths), W), np.int64)
    rows, columns, found = [], [], []  # set in one go: a fleet has tens of thousands of wheels
    vehicles = description.vehicles
    for v, path in enumerate(paths):
        vehicle = vehicles.get(path)
        by_path = {w.path: w for w in vehicle.wheels} if vehicle is not None else {}
        for w, wheel_path in enumerate(wheel_paths[v]):
            wheel = by_path.get(wheel_path)
            group = wheel.attachment["collisionGroup"] if wheel is not None else None
            rows.append(v)
            columns.append(w)
            found.append(keys.setdefault(group if group else None, len(keys)))
    if found:
        query_key[rows, columns] = found
    return list(keys), query_key


def prefilter(rule: GroupFilter, query_groups: Sequence[str | None], shape_groups: Sequence[Sequence[str]]
              ) -> np.ndarray:
    """(Q, N) bool: whether a query in each of query_groups may hit each shape (its groups, in path order)."""
    return rule.meets(rule.ids(query_groups)[:, None], rule.first(shape_groups)[None, :])


@dataclass(frozen=True)
class GroundFilter:
    """Which static ground shapes (Ground.materials' index) each wheel's query may hit."""

    query_key: np.ndarray  # (V, W) index into `allowed`'s rows
    allowed: np.ndarray  # (Q, S) bool

    @classmethod
    def build(cls, description: StageDescription, rule: GroupFilter, ground: Ground, paths: Sequence[str],
              wheel_paths: Sequence[Sequence[str]], W: int) -> "GroundFilter | None":
        """None where no wheel's query group filters any ground shape (the queries then run unfiltered), or where
        the ground carries no groups (a Ground made by hand). rule: the description's collision groups'."""
        if len(ground.groups) != len(ground.materials) or not any(ground.groups):
            return None
        query_groups, query_key = wheel_query_groups(description, paths, wheel_paths, W)
        return cls(query_key, prefilter(rule, query_groups, ground.groups)).filtering()

    def filtering(self) -> "GroundFilter | None":
        """Itself, or None where none of its wheels' groups filters any shape."""
        return self if not self.allowed[np.unique(self.query_key)].all() else None

    def select(self, rows: slice) -> "GroundFilter | None":
        """The filter of a range of the batch's vehicles (a shard's), None where it filters nothing there."""
        return GroundFilter(self.query_key[rows], self.allowed).filtering()

    def queries(self, rows: tuple[np.ndarray, np.ndarray] | None = None) -> QueryFilter:
        """The filter of the queries of all wheels, row-major (None), or of the wheels (v, w)."""
        return QueryFilter(self.allowed, self.query_key.reshape(-1) if rows is None else self.query_key[rows])
