"""The rows the vehicles' solve sweeps (rigid_body.py), as typed records: the vehicle's own constraint rows
(`ConstraintRows`, made by pipeline.constraint_rows), its contacts with the static world (`PatchRows`, made by
contact/patches.py patch_rows) and the contacts between vehicles (`PairRows`, contact/patches.py pair_rows).

Each field says its shape: Vr the vehicles that have rows (in `ConstraintRows.vehicles` order), R their rows, Pm the
patch slots of a vehicle (or of a pair), K the points of a patch, Pp the pairs of shapes of two vehicles. Arrays whose
first axis is the vector component (3, ...) are "component first"; `subset(keep)` takes the rows of some vehicles (or
pairs), a boolean mask over that axis, and leaves out what belongs to the whole batch (the patches to keep)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # annotations only
    from .contact.records import Contacts, FrictionPatches


def _subset(rows, keep: np.ndarray, component_first: tuple[str, ...], whole_batch: tuple[str, ...]):
    """`rows` (a dataclass of arrays) of the vehicles or pairs `keep`: the component-first fields cut on their second
    axis, the others on their first; the whole batch's fields None."""
    return type(rows)(**{f.name: None if f.name in whole_batch
                         else getattr(rows, f.name)[:, keep] if f.name in component_first
                         else getattr(rows, f.name)[keep] for f in fields(rows)})


@dataclass
class ConstraintRows:
    """4.10 rows per wheel after the last substep (sticky longitudinal, sticky lateral, suspension limit), in the order
    PhysX solves them (pipeline.constraint_rows), for the vehicles `vehicles`."""

    vehicles: np.ndarray  # (Vr,) their index in the batch, ascending
    linear: np.ndarray  # (3, Vr, R) each row's direction (world)
    arm: np.ndarray  # (3, Vr, R) from the centre of mass to where the row acts
    damping: np.ndarray  # (Vr, R) a sticky row's damping rate (0 for a limit row)
    active: np.ndarray  # (Vr, R) bool
    hard: np.ndarray  # (Vr, R) bool: a limit row (an inequality), else sticky (soft)
    separation: np.ndarray  # (Vr, R) a limit row's geometric error (0 for the others)

    def subset(self, keep: np.ndarray) -> "ConstraintRows":
        """The rows of the vehicles `keep` (a boolean mask over `vehicles`)."""
        return _subset(self, keep, ("linear", "arm"), ())


@dataclass
class PatchRows:
    """The contacts of the vehicles `ConstraintRows.vehicles` with the static world as the solver's rows: per vehicle
    its friction patches (Pm slots, padded), per patch its normal rows, its anchors and the pair's combined material
    and rest distance (declare.PATCH_PARAMS, each under its declared name)."""

    point_active: np.ndarray  # (Vr, Pm, K) bool: a contact point in that slot
    arm: np.ndarray  # (3, Vr, Pm, K) from the centre of mass to the point
    separation: np.ndarray  # (Vr, Pm, K)
    normal: np.ndarray  # (3, Vr, Pm) the patch's normal (world, from the static shape towards the vehicle's)
    rest_distance: np.ndarray  # (Vr, Pm)
    static_friction: np.ndarray  # (Vr, Pm)
    dynamic_friction: np.ndarray  # (Vr, Pm)
    restitution: np.ndarray  # (Vr, Pm)
    anchor_active: np.ndarray  # (Vr, Pm, 2) bool: the patch's friction anchors
    anchor_arm: np.ndarray  # (3, Vr, Pm, 2) from the centre of mass to the anchor on the body
    anchor_error: np.ndarray  # (3, Vr, Pm, 2) how far the body's anchor has moved from the static shape's
    bounce_threshold: np.ndarray  # (Vr,) the vehicle's scene's physxScene:bounceThreshold
    # the whole batch's, left out by `subset`: the contacts the rows come from (telemetry), the patches to keep for the
    # next step once the solve has said which slid, and each patch's (vehicle row, slot)
    points: "Contacts | None" = None
    friction: "FrictionPatches | None" = None
    friction_slot: tuple[np.ndarray, np.ndarray] | None = None

    def subset(self, keep: np.ndarray) -> "PatchRows":
        """The rows of the vehicles `keep` (a boolean mask over the vehicles' axis)."""
        return _subset(self, keep, ("arm", "normal", "anchor_arm", "anchor_error"),
                       ("points", "friction", "friction_slot"))


@dataclass
class PairRows:
    """The contacts between vehicles as the solver's rows: per pair of shapes (Pp) its two vehicles, its colour (no
    two pairs of one colour share a body), its patches (Pm slots, padded), per patch its normal rows and up to two
    anchors, arms from either body's centre of mass."""

    body0: np.ndarray  # (Pp,) the vehicle of the pair's first shape, in the batch
    body1: np.ndarray  # (Pp,) the other vehicle
    colour: np.ndarray  # (Pp,)
    index: np.ndarray  # (Pp,) each pair's index among the step's pairs (kept through `subset`)
    point_active: np.ndarray  # (Pp, Pm, K) bool
    arm0: np.ndarray  # (3, Pp, Pm, K) from body 0's centre of mass
    arm1: np.ndarray  # (3, Pp, Pm, K) from body 1's centre of mass
    separation: np.ndarray  # (Pp, Pm, K)
    normal: np.ndarray  # (3, Pp, Pm) world, from body 1's shape towards body 0's
    rest_distance: np.ndarray  # (Pp, Pm)
    static_friction: np.ndarray  # (Pp, Pm)
    dynamic_friction: np.ndarray  # (Pp, Pm)
    restitution: np.ndarray  # (Pp, Pm)
    anchor_active: np.ndarray  # (Pp, Pm, 2) bool
    anchor_arm0: np.ndarray  # (3, Pp, Pm, 2)
    anchor_arm1: np.ndarray  # (3, Pp, Pm, 2)
    anchor_error: np.ndarray  # (3, Pp, Pm, 2) body 0's anchor less body 1's (world)
    bounce_threshold: np.ndarray  # (Pp,) body 0's scene's
    friction: "FrictionPatches | None" = None  # the whole batch's, left out by `subset`, as PatchRows'
    friction_slot: tuple[np.ndarray, np.ndarray] | None = None  # each patch's (pair, slot)

    def subset(self, keep: np.ndarray) -> "PairRows":
        """The rows of the pairs `keep` (a boolean mask over the pairs)."""
        return _subset(self, keep, ("arm0", "arm1", "normal", "anchor_arm0", "anchor_arm1", "anchor_error"),
                       ("friction", "friction_slot"))
