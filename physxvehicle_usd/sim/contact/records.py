"""The package's records, at the bottom of it: a step's contacts (`Contacts`), what persists per vehicle from one step to
the next (`VehicleRecords`: `FrictionPatches`, PCM's manifolds, the box pairs' `PairManifolds`), cut into ranges of
vehicles and joined back by sim/shards.py."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:  # annotations only: the records sit below the model
    from .model import ContactModel


def _read_only(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


# the fields of no contact, shared (read-only) by every empty `Contacts`: most steps of most vehicles make none
_NO_CONTACTS = tuple(_read_only(a) for a in (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3)),
                                             np.zeros((0, 3)), np.zeros(0)))


@dataclass
class Contacts:
    """A step's contact points, grouped by pair (`pair`: shape row and static shape) in generation order."""

    shape: np.ndarray  # (C,) row of ContactModel
    static: np.ndarray  # (C,) index into Ground.materials
    point: np.ndarray  # (C, 3) world
    normal: np.ndarray  # (C, 3) world, from the static shape towards the vehicle's
    separation: np.ndarray  # (C,)
    pair: np.ndarray | None = None  # (C,) while generating: the candidate pair that made each contact
    patch: np.ndarray | None = None  # (C,) the contact patch (pair and normal) of each, numbered from 0
    manifolds: "Manifolds | None" = None  # what the pairs keep for the next step (sim/contact/persistence.py), where asked

    @classmethod
    def empty(cls) -> "Contacts":
        return cls(*_NO_CONTACTS)

    def __len__(self) -> int:
        return len(self.shape)


@dataclass
class StepContacts:
    """A step's contacts and what its solve made of them (SimState.contacts): the points with the static world and
    between vehicles, the model that made them, the solve groups' contact rows as the solver left them, and the
    telemetry reported from those (sim/contact/telemetry.py)."""

    points: Contacts | None = None  # with the static world (sim/contact/world.py)
    between: Contacts | None = None  # between vehicles (sim/contact/pairs.py)
    model: "ContactModel | None" = None
    # (vehicles, rows) of each solve group: contact_rows.StaticContactRows, or a side of a PairContactRows (its views)
    solved: list = field(default_factory=list)
    pairs_solved: list = field(default_factory=list)  # the PairContactRows of each solve with contacts between vehicles
    telemetry: Mapping[str, np.ndarray] | None = None  # sim/contact/telemetry.py TELEMETRY, per vehicle


def rows_of(keep: np.ndarray) -> np.ndarray:
    """The rows a subset keeps (a mask or indices) as indices: a mask is read once rather than by every field."""
    return np.flatnonzero(keep) if keep.dtype == bool else keep


def run_starts(*keys: np.ndarray) -> np.ndarray:
    """(n,) whether each entry begins a run: the first, and each whose key (any of `keys`, each (n,)) differs from the
    one before it."""
    start = np.empty(len(keys[0]), bool)
    start[:1] = True
    np.not_equal(keys[0][1:], keys[0][:-1], out=start[1:])
    for key in keys[1:]:
        start[1:] |= key[1:] != key[:-1]
    return start


def run_lengths(first: np.ndarray, n: int) -> np.ndarray:
    """How long each run is, the runs starting at `first` (ascending) of n entries."""
    length = np.empty_like(first)
    np.subtract(first[1:], first[:-1], out=length[:-1])
    length[-1:] = n - first[-1:]
    return length


def contacts_subset(c: Contacts, keep: np.ndarray) -> Contacts:
    keep = rows_of(keep)
    return Contacts(c.shape[keep], c.static[keep], c.point[keep], c.normal[keep], c.separation[keep],
                    None if c.pair is None else c.pair[keep])


class VehicleRecords:
    """Records kept from one step to the next, one row per record on every field's leading axis, `vehicle` its
    vehicle in the batch: cut into ranges of vehicles (sim/shards.py), joined back, and dropped for vehicles reset."""

    vehicle: np.ndarray

    def __len__(self) -> int:
        return len(self.vehicle)

    def subset(self, keep: np.ndarray):
        keep = rows_of(keep)
        return type(self)(*[getattr(self, f.name)[keep] for f in fields(self)])

    def of_vehicles(self, rows: slice):
        """The records of the vehicles `rows` (a range), numbered from its start."""
        part = self.subset((self.vehicle >= rows.start) & (self.vehicle < rows.stop))
        part.vehicle = part.vehicle - rows.start
        return part

    def without(self, vehicles: np.ndarray):
        return self.subset(~np.isin(self.vehicle, vehicles))

    @classmethod
    def join(cls, parts: Sequence, starts: Sequence[int]):
        """The records of ranges of vehicles (`starts`: each range's first vehicle) as one batch's (None: none)."""
        kept = [(part, start) for part, start in zip(parts, starts) if part is not None and len(part)]
        if not kept:
            return None
        out = cls(*(np.concatenate([getattr(part, f.name) for part, _ in kept]) for f in fields(cls)))
        out.vehicle = np.concatenate([part.vehicle + start for part, start in kept])
        return out


@dataclass
class FrictionPatches(VehicleRecords):
    """The friction patches a step's solve ends with, kept for the next step's (PhysX's FrictionPatch,
    DyFrictionPatch.h, one list per shape pair): the patch normal and up to two anchors, each in the frame of both
    bodies of the pair (body 0: the vehicle, anchors from its centre of mass; body 1: the world against a static
    shape, the other vehicle's body frame, from its centre of mass, between vehicles), and whether the patch's
    friction slid (was clamped) in the solve's last pass. A patch that slid is not kept."""

    vehicle: np.ndarray  # (P,) body 0's, in its batch
    shape: np.ndarray  # (P,) the shape's index among its vehicle's rows of ContactModel
    static: np.ndarray  # (P,) the other shape: static (Ground.materials), or between vehicles its ContactModel row
    body_normal: np.ndarray  # (P, 3)
    other_normal: np.ndarray  # (P, 3) in body 1's frame
    anchor_count: np.ndarray  # (P,)
    body_anchor: np.ndarray  # (P, 2, 3)
    other_anchor: np.ndarray  # (P, 2, 3) in body 1's frame
    broken: np.ndarray  # (P,) bool


@dataclass
class PairManifolds(VehicleRecords):
    """PCM's manifolds of two vehicles' boxes kept for the next step (GuPCMContactBoxBox.cpp, the earlier vehicle's
    box its first shape A, body 0's its second B): where A's box was in B's box frame and both bodies' orientations
    (w, x, y, z) when the points were made, and up to four points, each on A's box in A's frame and on B's box in B's
    frame, with the normal (from B towards A) in B's frame."""

    vehicle: np.ndarray  # (M,) body 0's
    shape: np.ndarray  # (M,) body 0's box row of ContactModel
    other: np.ndarray  # (M,) body 1's box row
    relative: np.ndarray  # (M, 3)
    orientation0: np.ndarray  # (M, 4)
    orientation1: np.ndarray  # (M, 4)
    count: np.ndarray  # (M,)
    point_a: np.ndarray  # (M, 4, 3)
    point_b: np.ndarray  # (M, 4, 3)
    normal: np.ndarray  # (M, 4, 3)

    def without(self, vehicles: np.ndarray, model: ContactModel | None = None):
        keep = ~np.isin(self.vehicle, vehicles)
        if model is not None:
            keep &= ~np.isin(model.vehicle[self.other], vehicles)
        return self.subset(keep)


@dataclass
class ManifoldPairs(VehicleRecords):
    """The pairs that keep a manifold: where the shape's frame was (world origin, its body's orientation (w, x, y, z))
    when the pair's points were made."""

    vehicle: np.ndarray  # (M,)
    shape: np.ndarray  # (M,) the shape's index among its vehicle's rows of ContactModel
    static: np.ndarray  # (M,) index into Ground.materials
    origin: np.ndarray  # (M, 3)
    orientation: np.ndarray  # (M, 4)


@dataclass
class ManifoldPoints(VehicleRecords):
    """The kept points, each in both shapes' frames: on the vehicle's shape (body frame, from the centre of mass) and
    on the static shape (world), with the normal (world, from the static shape towards the vehicle's)."""

    vehicle: np.ndarray  # (Q,)
    shape: np.ndarray  # (Q,)
    static: np.ndarray  # (Q,)
    body_point: np.ndarray  # (Q, 3)
    world_point: np.ndarray  # (Q, 3)
    normal: np.ndarray  # (Q, 3)


@dataclass
class Manifolds:
    """What the pairs keep from one step to the next (SimState.manifolds), cut and joined as the friction patches
    are."""

    pairs: ManifoldPairs
    points: ManifoldPoints

    def __len__(self) -> int:
        return len(self.pairs)

    def of_vehicles(self, rows: slice) -> "Manifolds":
        return Manifolds(self.pairs.of_vehicles(rows), self.points.of_vehicles(rows))

    def without(self, vehicles: np.ndarray) -> "Manifolds":
        return Manifolds(self.pairs.without(vehicles), self.points.without(vehicles))

    @classmethod
    def join(cls, parts, starts) -> "Manifolds | None":
        kept = [(part, start) for part, start in zip(parts, starts) if part is not None and len(part)]
        if not kept:
            return None
        points = ManifoldPoints.join([part.points for part, _ in kept], [start for _, start in kept])
        return cls(ManifoldPairs.join([part.pairs for part, _ in kept], [start for _, start in kept]),
                   points if points is not None else no_manifold_points())


def no_manifold_points() -> ManifoldPoints:
    empty = np.zeros(0, np.int64)
    return ManifoldPoints(empty, empty, empty, np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)))
