"""PhysX's persistent contact manifolds (PCM, omni.physx's default contact generation): a pair of a vehicle shape and
a static shape keeps the contact points it made while the shape has moved little against the static one.

Each step PhysX first re-measures the pair's kept points (refreshContactPoints): a point is kept in both shapes'
frames, its separation is measured anew along its normal from the current poses, and a point whose two ends have
drifted apart sideways farther than a threshold is dropped. It makes the pair's points anew only when the shape's frame
has moved, along any axis of the static shape's frame, farther than a fraction of the shape's margin, or turned more
than about a degree, since they were made (invalidate_*), or, against a plane, when a point was dropped. Otherwise it
reports the kept points: on the static shape, with their re-measured separations. A pair whose points were made anew
and found none keeps that too: it makes none until it has moved enough.

Which pairs keep a manifold here (every other pair is made anew every step; the margins and thresholds in numbers:
sim/contact/pcm_rules.py):
  plane  a box or a convex hull against a plane (pcmContactPlaneBox, pcmContactPlaneConvex). Margin: min(0.15 x the
         box's smallest half extent, 0.15 x the length scale), or min(0.25 x the hull's smallest inner extent,
         0.05 x the length scale). Made anew when moved 0.2 margins, turned to a quaternion dot under 0.99996, or a
         point drifted 0.2 margins; a kept point farther than the contact distance is not reported.
  mesh   a box or a convex hull against a triangle mesh (pcmContactBoxMesh, pcmContactConvexMesh: one manifold of
         patches per mesh). Margin: min(0.15 x the box's smallest half extent, or 0.25 x the hull's smallest inner
         extent, 0.05 x the length scale). Made anew when moved 0.2 margins or turned to a dot under 0.9998; a point
         drifted 0.8 margins is dropped.
  polytope  a box or a convex hull against a static box or hull (pcmContactBoxBox, pcmContactBoxConvex,
         pcmContactConvexConvex). Margin: the lesser of the two shapes' (as against a plane). Made anew when a point
         drifted 0.8 margins, or, by how many points the manifold holds (0, 1, 2, 3, 4: invalidate_BoxConvex), when
         moved 0.5, 0.125, 0.25, 0.375, 0.375 margins, turned to a dot under 0.9998 (none held) or 0.9999, or turned
         so far that its far side (the shape's half diagonal) travels farther than that move; a kept point farther than
         the contact distance is not reported. Made anew, the manifold is replaced whole (PCM's full contact
         generation; where PhysX instead adds a GJK point to the points held, the whole is made here too).
  capsule  a capsule against a static box (pcmContactCapsuleBox). Margin: the lesser of the box's and the capsule's
         radius. Made anew when a point drifted 0.8 margins, or, by the points held (0, 1, 2: invalidate_SphereCapsule),
         when moved 0.5, 0.1, 0.75 margins or turned to a dot under 0.9995, 0.9999, 0.9997. PCM keeps a capsule's
         points on its core and reports them on its surface where the core is now (a polytope's stay on the static
         shape); a fresh manifold holds GJK's closest point besides the points made (the one point twice where one is
         made), which counts here; made anew, the manifold is replaced whole (PhysX adds GJK's point to those held).
  round  a box or a convex hull against a static capsule (pcmContactCapsuleBox, pcmContactCapsuleConvex, the capsule
         shape 0): as `capsule`, the margin the lesser of the box's or hull's (as against a plane) and the capsule's
         radius, the move the capsule's in the vehicle shape's frame (PCM's relative transform; the body's axes here).
         The points are kept on the capsule's core and on the vehicle's shape, the normal in the vehicle shape's frame
         (it turns with the body); reported on the capsule's surface.
The length scale is the vehicle's (PhysX's tolerance length: 1 m in metres, 100 in centimetres).
Not kept: spheres (static ones too: PCM's sphere-box keeps nothing, its sphere-convex does, not followed here), exact
cylinders, capsules against planes, meshes and hulls (PCM keeps these too, each with its own thresholds), shapes
that follow a wheel; between vehicles, two boxes keep theirs (sim/contact/pairs.py,
records.py `PairManifolds`, with this module's polytope thresholds), other pairs do not.

Approximations: a pair keeps its manifold while the broad phase (sim/contact/broad.py `static_candidates`) keeps the
pair; one that becomes a candidate makes its points anew (PhysX keeps a pair while the shapes' bounds overlap, and may
keep an empty manifold made a step before). The static shape's frame is taken as the world's axes (exact for a plane
along a world axis and a mesh without rotation). A hull's inner extent is its smallest distance from its vertices'
centroid to a face (PhysX's cooking finds a box inside the hull). A dropped point leaves the others in their order
(PhysX moves its last point into the gap).
"""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from .. import compiled_bookkeeping, compiled_manifolds
from ..ground import Ground
from ..vecmath import quat_to_mat
from .model import ContactModel, capsule_rows, first_rows, persistent_rows
from .pcm_rules import (
    CAPSULE,
    CAPSULE_MOVED,
    CAPSULE_TURNED,
    MESH,
    PLANE,
    POLYTOPE,
    POLYTOPE_MOVED,
    POLYTOPE_TURNED,
    ROUND,
    manifold_margins,
)
from .pcm_rules import rules as pcm_rules
from .records import Contacts, ManifoldPairs, ManifoldPoints, Manifolds, no_manifold_points, run_starts


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """np.unique of integer keys: sorted, each once."""
    keys = np.sort(keys)
    return keys[run_starts(keys)] if keys.size else keys


def _in_sorted(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """np.isin(keys, sorted_keys) of integer keys, `sorted_keys` sorted (not empty)."""
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[at] == keys


def _radius(model: ContactModel, rows: np.ndarray) -> np.ndarray:
    """The rows' round radii (0: a polytope)."""
    return np.zeros(len(rows)) if model.radius is None else model.radius[rows]


def prepare_tables(model: ContactModel) -> None:
    """Make the model's tables that its first kept manifold would make (the margins, the rows' kinds, the compiled
    refresh's and record's tables), kept in its cache: the same tables, made when the model is built rather than at
    a fleet's first contact."""
    manifold_margins(model)
    first_rows(model), persistent_rows(model), capsule_rows(model)
    if compiled_bookkeeping.available():
        _compiled_refresh_tables(model), _compiled_record_tables(model)


def _compiled_refresh_tables(model: ContactModel) -> compiled_bookkeeping.Held:
    """What the compiled refresh reads of the model (`_refresh_tables`), kept in its cache while its arrays are the
    same."""
    cache = manifold_margins(model)
    return compiled_bookkeeping.held(cache, "compiled_refresh", (
        model.vehicle, model.boxes.mask, cache["pcm_inner"], model.radius, model.origin, model.static_boxes,
        cache["pcm_static_inner"], model.contact_distance), _refresh_tables)


def _compiled_record_tables(model: ContactModel) -> compiled_bookkeeping.Held:
    """What the compiled record reads of the model (compiled_manifolds.record_tables), kept in its cache while its
    arrays are the same."""
    G = model.collides.shape[1]
    return compiled_bookkeeping.held(model.cache, "compiled_record", (
        model.vehicle, first_rows(model), model.origin, model.radius, model.static_rounds),
        lambda vehicle, first, origin, radius, rounds: compiled_manifolds.record_tables(
            vehicle, first, origin, _radius(model, np.arange(len(vehicle))), _static_radius(model, np.arange(G))))


def _refresh_tables(vehicle: np.ndarray, box: np.ndarray, inner: np.ndarray, radius: np.ndarray | None,
                    origin: np.ndarray | None, static_boxes, static_inner: np.ndarray,
                    contact_distance: np.ndarray) -> compiled_bookkeeping.Held:
    """compiled_manifolds.refresh_tables of a model's fields (radius None: every row's 0; static_boxes None: no
    static polytope is a box)."""
    return compiled_manifolds.refresh_tables(
        vehicle, box, inner, np.zeros(len(vehicle)) if radius is None else radius, origin,
        np.zeros(len(static_inner), bool) if static_boxes is None else static_boxes.mask, static_inner,
        contact_distance)


def _kept_pairs(prev: ManifoldPairs, at: np.ndarray, keep_pair: np.ndarray) -> ManifoldPairs:
    """The last step's pairs `prev` that keep their points (keep_pair, per candidate pair at `at` in them): `prev` as
    it is where every one of them does (the candidate keys sorted and unique, as prev's: `at` is then 0, 1, ..; read,
    never written)."""
    if len(keep_pair) == len(prev) and keep_pair.all():
        return prev
    return prev.subset(at[keep_pair])


def _compiled_covers(model: ContactModel, kind: np.ndarray, R_all: np.ndarray, pts: ManifoldPoints, prev) -> bool:
    """Whether `Persistence._refresh_compiled` re-measures these: pairs against planes, meshes and static polytopes
    (not capsules'), float64 poses and points."""
    return (bool((kind <= POLYTOPE).all()) and R_all.dtype == pts.body_point.dtype == pts.world_point.dtype
            == pts.normal.dtype == prev.origin.dtype == model.contact_distance.dtype == np.float64
            and (model.origin is None or model.origin.dtype == np.float64)
            and (model.radius is None or model.radius.dtype == np.float64))


def _record_covered(R_all: np.ndarray | None, contacts: Contacts) -> bool:
    """Whether `Persistence.record` records in C: float64 rotations and contacts."""
    return (R_all is not None
            and R_all.dtype == contacts.point.dtype == contacts.normal.dtype == contacts.separation.dtype == np.float64)


def _kinds(model: ContactModel, row: np.ndarray, static: np.ndarray, round_first: int) -> np.ndarray:
    """Each candidate pair's kind (PLANE, MESH, POLYTOPE, CAPSULE or ROUND) by its row and static shape; the tests of
    kinds the model has none of left out (a fleet against static boxes: every pair a POLYTOPE)."""
    capsule = capsule_rows(model)[row]
    if (round_first == len(model.collides[0]) and not (static < model.polytope_first).any()
            and not capsule.any()):
        return np.full(len(static), POLYTOPE)
    return np.where(static < model.plane_count, PLANE,
                    np.where(static < model.polytope_first, MESH,
                             np.where(static >= round_first, ROUND, np.where(capsule, CAPSULE, POLYTOPE))))


def _static_radius(model: ContactModel, static: np.ndarray) -> np.ndarray:
    """The static shapes' round radii (0: not a static sphere or capsule)."""
    rounds = model.static_rounds
    if rounds is None:
        return np.zeros(len(static))
    k = static - (model.collides.shape[1] - len(rounds.column))
    return np.where(k >= 0, rounds.radius[np.maximum(k, 0)], 0.0)


@dataclass
class _Match:
    """What `Persistence` finds of a step's candidate pairs before it re-measures anything: the pairs that keep
    manifolds (`key`, sorted, and its `row`, `static`), each part's static shapes; where the last step recorded
    them (`prev` its pairs, `found`, `at`), their kinds and static radii, the last step's points of the pairs found
    (`pts`; None: none kept a manifold or none was recorded) and each one's pair (`pair`); what the compiled refresh
    reads of them (`covered`: it covers them); `left`: by the pairs that kept their points, the candidates left to make
    anew. The same candidates against the same recorded manifolds match the same: a car resting on an obstacle has
    one match step after step (`_matched`). Read, never written (but `left`, filled as met)."""

    G: int  # the static shapes
    key: np.ndarray
    row: np.ndarray
    static: np.ndarray
    mesh_static: np.ndarray | None = None
    hull_static: np.ndarray | None = None
    round_static: np.ndarray | None = None
    round_first: int = 0
    prev: ManifoldPairs | None = None
    found: np.ndarray | None = None
    at: np.ndarray | None = None
    kind: np.ndarray | None = None
    static_radius: np.ndarray | None = None
    pts: ManifoldPoints | None = None
    pair: np.ndarray | None = None
    covered: bool = False
    vehicle: np.ndarray | None = None  # (the compiled refresh's: each pair's vehicle, the turn's operands)
    prev_orientation: np.ndarray | None = None
    polytope: np.ndarray | None = None
    every_polytope: bool = False
    turn_radius: np.ndarray | None = None
    refresh_inputs: compiled_bookkeeping.Held | None = None
    left: dict = None
    steady: tuple | None = None  # (`_steady`: whether nothing is left to make anew where every pair keeps its points,
    # and the last step's pairs those keep)


_dtype, _shape, _bytes = operator.attrgetter("dtype"), operator.attrgetter("shape"), np.ndarray.tobytes


def _fingerprint(arrays: list) -> tuple:
    """What tells arrays apart: their dtypes, their shapes and their bytes one after the other (which the dtypes and
    shapes split back into each array's)."""
    return tuple(map(_dtype, arrays)), tuple(map(_shape, arrays)), b"".join(map(_bytes, arrays))


def _matched(model: ContactModel, ground: Ground, planes: list[np.ndarray], hull_pairs: tuple, tri_pairs: tuple,
             round_pairs: tuple, R_all: np.ndarray, previous: Manifolds | None) -> _Match:
    """`_match` of the candidates: the last step's where the candidates are the same arrays' worth and the manifolds
    the last step recorded are the same records (`_kept_only` hands on the pairs and points it was given; the
    model's cache, which posed models share, keeps the one match)."""
    sources = (previous.pairs if previous is not None else None, previous.points if previous is not None else None,
               ground.tri_shape, R_all.dtype)
    fingerprint = _fingerprint(list(planes) + list(hull_pairs) + list(tri_pairs) + list(round_pairs))
    last = model.cache.get("persistence_match")
    if (last is not None and all(map(operator.is_, last[0], sources[:3])) and last[0][3] == sources[3]
            and last[1] == fingerprint):
        return last[2]
    match = _match(model, ground, planes, hull_pairs, tri_pairs, round_pairs, R_all, previous)
    model.cache["persistence_match"] = (sources, fingerprint, match)
    return match


def _match(model: ContactModel, ground: Ground, planes: list[np.ndarray], hull_pairs: tuple, tri_pairs: tuple,
           round_pairs: tuple, R_all: np.ndarray, previous: Manifolds | None) -> _Match:
    """The candidate pairs that keep manifolds and what the last step recorded of them (`_Match`)."""
    G = model.collides.shape[1]
    (hull_shape, hull), (tri_shape, tri), (round_shape, round_k) = hull_pairs, tri_pairs, round_pairs
    persistent = persistent_rows(model)
    # the keys of the pairs that keep manifolds, part by part (the parts that are there)
    parts = [rows[persistent[rows]] * G + k for k, rows in enumerate(planes) if rows.size]
    mesh_static = model.plane_count + ground.tri_shape[tri] if tri.size else None
    if tri.size:
        on_mesh = persistent[tri_shape]
        parts.append(tri_shape[on_mesh] * G + mesh_static[on_mesh])
    hull_static = model.static_index[hull] if hull.size else None
    if hull.size:
        on_hull = persistent[hull_shape]
        if model.static_boxes is not None:  # a capsule on a static box
            on_hull = on_hull | (capsule_rows(model)[hull_shape] & model.static_boxes.mask[hull])
        if model.static_cylinders is not None:  # convex-core contacts keep nothing
            on_hull = on_hull & ~np.isfinite(model.static_cylinders[0][hull, 0, 0])
        parts.append(hull_shape[on_hull] * G + hull_static[on_hull])
    rounds = model.static_rounds
    round_static = rounds.column[round_k] if round_k.size else None
    if round_k.size:
        # a box or hull on a static capsule (pcmContactCapsuleBox, pcmContactCapsuleConvex; PCM's sphere-box keeps
        # nothing, and its sphere-convex's manifold is not followed here)
        on_round = persistent[round_shape] & ~rounds.spheres[round_k]
        parts.append(round_shape[on_round] * G + round_static[on_round])
    key = (_sorted_unique((parts[0] if len(parts) == 1 else np.concatenate(parts)).astype(np.int64, copy=False))
           if parts else np.zeros(0, np.int64))
    match = _Match(G, key, key // G, key % G, mesh_static, hull_static, round_static,
                   G if rounds is None else G - len(rounds.column), left={})
    if not key.size or previous is None or not len(previous):
        return match
    first = first_rows(model)
    prev = previous.pairs
    prev_key = (first[prev.vehicle] + prev.shape) * G + prev.static
    at = np.minimum(np.searchsorted(prev_key, key), len(prev_key) - 1)  # (recorded in key order)
    found = prev_key[at] == key
    if not found.any():
        return match
    kind = _kinds(model, match.row, match.static, match.round_first)
    # refreshContactPoints's points: the last step's of the pairs found
    pts = previous.points
    point_key = (first[pts.vehicle] + pts.shape) * G + pts.static
    pair = np.minimum(np.searchsorted(key, point_key), len(key) - 1)
    ours = (key[pair] == point_key) & found[pair]
    if not ours.all():
        pts, pair = pts.subset(ours), pair[ours]
    match.prev, match.found, match.at, match.kind, match.pts, match.pair = prev, found, at, kind, pts, pair
    match.static_radius = _static_radius(model, match.static)
    match.covered = compiled_bookkeeping.available() and _compiled_covers(model, kind, R_all, pts, prev)
    if match.covered:
        match.vehicle = model.vehicle[match.row]
        match.prev_orientation = prev.orientation[at]
        match.polytope = kind == POLYTOPE
        match.every_polytope = bool(match.polytope.all())
        match.turn_radius = manifold_margins(model)["pcm_radius"][match.row]
    return match


def _left(match: _Match, planes: list[np.ndarray], hull_pairs: tuple, tri_pairs: tuple, round_pairs: tuple,
          keep_pair: np.ndarray) -> tuple:
    """The candidates left to make anew (planes, hull_pairs, tri_pairs, round_pairs as `Persistence` takes them)
    where the pairs `keep_pair` of the match keep their points."""
    kept_key = match.key[keep_pair]
    if not kept_key.size:  # (sorted, as `key`)
        return planes, hull_pairs, tri_pairs, round_pairs
    G = match.G
    (hull_shape, hull), (tri_shape, tri), (round_shape, round_k) = hull_pairs, tri_pairs, round_pairs
    planes = [rows[~_in_sorted(rows * G + k, kept_key)] for k, rows in enumerate(planes)]
    if tri.size:
        left = ~_in_sorted(tri_shape * G + match.mesh_static, kept_key)
        tri_pairs = (tri_shape[left], tri[left])
    if hull.size:
        left = ~_in_sorted(hull_shape * G + match.hull_static, kept_key)
        hull_pairs = (hull_shape[left], hull[left])
    if round_k.size:
        left = ~_in_sorted(round_shape * G + match.round_static, kept_key)
        round_pairs = (round_shape[left], round_k[left])
    return planes, hull_pairs, tri_pairs, round_pairs


def _steady(match: _Match, planes: list[np.ndarray], hull_pairs: tuple, tri_pairs: tuple, round_pairs: tuple
            ) -> tuple:
    """Of the match (its candidates `planes` .. `round_pairs`), where every pair keeps its points: whether no
    candidate is left to make anew, the last step's pairs kept (`_kept_pairs`) and the candidates left (`_left`);
    worked out once per match."""
    if match.steady is None:
        every = np.ones(len(match.key), bool)
        left = match.left[every.tobytes()] = _left(match, planes, hull_pairs, tri_pairs, round_pairs, every)
        none_left = not (any(rows.size for rows in left[0]) or any(pair[0].size for pair in left[1:]))
        match.steady = (none_left, _kept_pairs(match.prev, match.at, every), left)
    return match.steady


_NO_KEYS = np.zeros(0, np.int64)
_NO_KEYS.flags.writeable = False  # (a Persistence of no candidate pair: its keys, rows and statics, read only)


class Persistence:
    """One step's use of the manifolds: `split` finds the candidate pairs that keep their points (their refreshed
    contacts in `kept`) and leaves the rest to be made anew; `record` gives the manifolds to keep after the step."""

    def __init__(self, model: ContactModel, ground: Ground, planes: list[np.ndarray], hull_pairs: tuple,
                 tri_pairs: tuple, round_pairs: tuple, R_all: np.ndarray, position: np.ndarray,
                 orientation: np.ndarray, length_scale: np.ndarray, previous: Manifolds | None,
                 compiled: bool = True, reduction: compiled_bookkeeping.Held | None = None):
        """planes, hull_pairs (shape rows, static polytopes), tri_pairs (shape rows, triangles), round_pairs (shape
        rows, static rounds): the broad phase's candidates (sim/contact/broad.py `static_candidates`,
        sim/round_shapes.py `candidates`), what is left of them to make anew in the same attributes; R_all
        (3, 3, N): each row's body rotation; position (3, V), orientation (4, V): the body poses the step begins
        with. compiled: the kept points re-measured in C (sim/compiled_manifolds.py) where the extension is loaded
        and covers them (the same bits), else in numpy. reduction: compiled_manifolds.reduction_settings of
        world.py's patch points; with it, where the compiled refresh finds that every pair keeps its points and no
        candidate is left to make anew (a car at rest on its obstacle, most steps), the kept contacts come reduced
        in the same call (reduction.py reduce_contacts's bits): `reduced`, the step's contacts with the manifolds to
        keep (else None)."""
        self.reduced = self.match = None
        self.model, self.R_all, self.position, self.orientation = model, R_all, position, orientation
        self.compiled = compiled
        self.planes, self.hull_pairs, self.tri_pairs, self.round_pairs = planes, hull_pairs, tri_pairs, round_pairs
        self.kept = Contacts.empty()
        G = model.collides.shape[1]
        self.G = G
        self.key = self.row = self.static = _NO_KEYS
        self.kept_pairs, self.kept_points = None, None
        if (not tri_pairs[0].size and not hull_pairs[0].size and not round_pairs[0].size
                and not any(rows.size for rows in planes)):
            return  # no shape near anything: no work
        match = self.match = _matched(model, ground, planes, hull_pairs, tri_pairs, round_pairs, R_all, previous)
        self.row, self.static, self.key = match.row, match.static, match.key
        if match.pts is None:  # no pair keeps a manifold, or none was recorded last step
            self.is_kept = np.zeros(len(match.key), bool)
            return
        if compiled and match.covered:
            keep_pair = self._refresh_compiled(match, length_scale, reduction, planes, hull_pairs, tri_pairs,
                                               round_pairs)
            if self.reduced is not None:  # (every pair kept its points: nothing is left to make anew)
                self.is_kept = keep_pair
                left = match.steady[2]
                self.planes, (self.hull_pairs, self.tri_pairs, self.round_pairs) = list(left[0]), left[1:]
                self.reduced.manifolds = self._kept_only()  # (`record`'s: no pair made anew)
                return
        else:
            keep_pair = self._refresh(match.kind, match.static_radius, match.found, match.at, match.prev, match.pts,
                                      match.pair, length_scale, model.static_rounds, match.round_first)
        self.is_kept = keep_pair
        # what is left to make anew: the last step's where the same pairs kept their points
        kept = keep_pair.tobytes()
        left = match.left.get(kept)
        if left is None:
            if len(match.left) >= 4:  # (a match lasts while every pair keeps its points: a pattern or two)
                match.left.clear()
            left = match.left[kept] = _left(match, planes, hull_pairs, tri_pairs, round_pairs, keep_pair)
        self.planes = list(left[0])
        self.hull_pairs, self.tri_pairs, self.round_pairs = left[1:]

    def _refresh(self, kind: np.ndarray, static_radius: np.ndarray, found: np.ndarray, at: np.ndarray, prev,
                 pts: ManifoldPoints, pair: np.ndarray, length_scale: np.ndarray, rounds, round_first: int
                 ) -> np.ndarray:
        """The found pairs' kept points re-measured (refreshContactPoints), the pairs that keep them (invalidate_*)
        and the contacts they report (`kept`, `kept_pairs`, `kept_points`): numpy, the reference. kind, static_radius:
        per candidate pair; found, at: which the last step recorded, and where in its pairs `prev`; pts, pair: its
        points of the found pairs, and each one's candidate pair. Returns which pairs keep their points."""
        model, key, R_all, position, orientation = self.model, self.key, self.R_all, self.position, self.orientation
        rules = pcm_rules(model, self.row, self.static, kind, length_scale, static_radius)
        vehicle = model.vehicle[self.row]
        R = R_all[:, :, self.row[pair]].transpose(2, 0, 1)
        on_body = np.einsum("qij,qj->qi", R, pts.body_point) + position[:, vehicle[pair]].T
        # against a static capsule the normal is kept in the vehicle shape's frame (PCM's shape 1, the box or hull):
        # it turns with the body since the points were made
        on_round = kind == ROUND
        turned_by = np.broadcast_to(np.eye(3), (len(key), 3, 3))
        if on_round.any():
            made = quat_to_mat(prev.orientation[at].T).transpose(2, 0, 1)
            turned_by = np.where(on_round[:, None, None], R_all[:, :, self.row].transpose(2, 0, 1)
                                 @ np.swapaxes(made, 1, 2), turned_by)
        normal = np.einsum("qij,qj->qi", turned_by[pair], pts.normal)
        core = np.einsum("qj,qj->q", on_body - pts.world_point, normal)  # a round shape's from its core
        drift = on_body - core[:, None] * normal - pts.world_point
        radius, point_static_radius = _radius(model, self.row[pair]), static_radius[pair]
        separation = core - radius - point_static_radius
        dropped = ~((drift * drift).sum(axis=1) <= rules.drift[pair] ** 2)
        lost = np.zeros(len(key), bool)
        lost[pair[dropped]] = True
        # invalidate_*: moved or turned too far since the points were made (against a polytope, by how many are left)
        held = np.minimum(np.bincount(pair[~dropped], minlength=len(key)), len(POLYTOPE_MOVED) - 1)
        polytope, capsule = kind == POLYTOPE, (kind == CAPSULE) | on_round
        # (a capsule's fresh manifold holds GJK's closest point besides the points made: PCM makes the one point
        # twice where the full generation makes one)
        held_capsule = np.minimum(held + (held > 0), len(CAPSULE_MOVED) - 1)
        moved_limit = np.where(polytope, POLYTOPE_MOVED[held] * rules.margin,
                               np.where(capsule, CAPSULE_MOVED[held_capsule] * rules.margin, rules.moved))
        turned_limit = np.where(polytope, POLYTOPE_TURNED[held],
                                np.where(capsule, CAPSULE_TURNED[held_capsule], rules.turned))
        moved = np.abs(self._origins(self.row) - prev.origin[at]).max(axis=1)
        if on_round.any():  # a static capsule's move in the vehicle shape's frame (PCM's relative transform)
            centre = rounds.ends.mean(axis=1)[np.maximum(self.static - round_first, 0)]
            now = np.einsum("jip,pj->pi", R_all[:, :, self.row], centre - self._origins(self.row))
            then = np.einsum("pji,pj->pi", made, centre - prev.origin[at])
            moved = np.where(on_round, np.abs(now - then).max(axis=1), moved)
        turn = np.einsum("jp,pj->p", orientation[:, vehicle].astype(float), prev.orientation[at])
        # ... and a turn that carries the shape's far side farther than the move allows (polytopes)
        travel = np.where(polytope, np.arccos(np.clip(turn, -1.0, 1.0)) * manifold_margins(model)["pcm_radius"][self.row], 0.0)
        # (written to hold only for numbers: a pose gone NaN, which the guard puts back, makes its points anew)
        invalid = ~((moved <= moved_limit) & (turn >= turned_limit) & (travel <= moved_limit))
        keep_pair = found & ~invalid & ~(lost & rules.strict)
        keep_point = keep_pair[pair] & ~dropped
        self.kept_pairs = _kept_pairs(prev, at, keep_pair)
        self.kept_points = pts if keep_point.all() else pts.subset(keep_point)  # (read, never written)
        q = np.nonzero(keep_point)[0]
        shape_row, static_of = self.row[pair[q]], self.static[pair[q]]
        reported = ~rules.strict[pair[q]] | (separation[q] <= model.contact_distance[shape_row, static_of])
        q = q[reported]
        # on the static shape (a static capsule's surface); a capsule's on its own surface, where its core's point
        # is now
        point = np.where((radius[q] > 0.0)[:, None], on_body[q] - radius[q, None] * normal[q],
                         pts.world_point[q] + point_static_radius[q, None] * normal[q])
        self.kept = Contacts(self.row[pair[q]], self.static[pair[q]], point, normal[q], separation[q])
        return keep_pair

    def _refresh_compiled(self, match: _Match, length_scale: np.ndarray, reduction, planes: list[np.ndarray],
                          hull_pairs: tuple, tri_pairs: tuple, round_pairs: tuple) -> np.ndarray:
        """`_refresh` in C (sim/compiled_manifolds.py), where `_compiled_covers`: the same bits. The quaternion dots
        and the turns' travel are made in C as `_turns` forms them, but with libm's arccos: where a travel lies too
        near its limit to tell numpy's side, numpy's (`_turns`) are handed in. With `reduction` (`__init__`'s), where
        nothing is left to make anew once every pair keeps its points (`_steady`), the kept contacts reduced in the
        same call where they all do (`reduced`)."""
        model, prev, at = self.model, match.prev, match.at
        tables = _compiled_refresh_tables(model)
        pts = match.pts
        if match.refresh_inputs is None:  # (the match's own: converted once)
            match.refresh_inputs = compiled_manifolds.refresh_inputs(
                self.row, self.static, match.kind, match.found, at, prev.origin, match.pair, pts.body_point,
                pts.world_point, pts.normal, match.static_radius, match.prev_orientation, match.turn_radius)
        if reduction is not None and not _steady(match, planes, hull_pairs, tri_pairs, round_pairs)[0]:
            reduction = None
        arguments = (match.refresh_inputs, tables, model.polytope_first, length_scale, self.R_all, self.position,
                     self.orientation, reduction)
        made = compiled_manifolds.refresh_and_reduce(*arguments)
        if made is None:  # (a travel too near its limit for libm's arccos: numpy's)
            made = compiled_manifolds.refresh_and_reduce(*arguments, *self._turns(match))
        keep_pair, keep_point, kept_pairs, kept_points, kept, patch = made
        if kept_pairs == len(keep_pair):  # (every pair keeps its points: the last step's, as they are or a subset)
            self.kept_pairs = _steady(match, planes, hull_pairs, tri_pairs, round_pairs)[1]
        else:
            self.kept_pairs = _kept_pairs(prev, at, keep_pair)
        self.kept_points = pts if kept_points == len(keep_point) else pts.subset(keep_point)  # (read, never written)
        if patch is None:
            self.kept = Contacts(*kept)
        else:  # (the step's contacts, reduced)
            self.reduced = Contacts(*kept, patch=patch) if len(patch) else Contacts.empty()
        return keep_pair

    def _turns(self, match: _Match) -> tuple[np.ndarray, np.ndarray]:
        """Per pair the quaternion dot of its body's orientation now and when its points were made, and how far the
        turn carries the shape's far side (polytopes; else 0), as `_refresh` forms them (numpy's arccos)."""
        turn = np.einsum("jp,pj->p", self.orientation[:, match.vehicle].astype(float), match.prev_orientation)
        # (np.clip's arithmetic, a NaN kept, in two ufunc calls; where every pair is a polytope's, np.where would
        # take every product as it is)
        travel = np.arccos(np.minimum(np.maximum(turn, -1.0), 1.0)) * match.turn_radius
        if not match.every_polytope:
            travel = np.where(match.polytope, travel, 0.0)
        return turn, travel

    def _static_radius(self, static: np.ndarray) -> np.ndarray:
        """The static shapes' round radii (0: not a static sphere or capsule)."""
        return _static_radius(self.model, static)

    def _origins(self, rows: np.ndarray) -> np.ndarray:
        """(n, 3): the world origin of the rows' shape frames."""
        model = self.model
        origin = model.origin[rows] if model.origin is not None else np.zeros((len(rows), 3))
        return (np.einsum("ijn,nj->ni", self.R_all[:, :, rows], origin)
                + self.position[:, model.vehicle[rows]].T.astype(float))

    def record(self, contacts: Contacts) -> Manifolds | None:
        """The manifolds to keep after the step: the kept pairs' (their points less the dropped ones) and those of the
        pairs made anew (where the shape is now, and the points of `contacts`, the step's reduced contacts, they
        made)."""
        if not self.key.size:
            return None
        if self.is_kept.all() and self.kept_pairs is not None and len(self.kept_pairs):
            return self._kept_only()  # (no pair made anew: none of `contacts` makes a point to keep)
        model, G = self.model, self.G
        first = first_rows(model)
        if self.compiled and compiled_bookkeeping.available() and _record_covered(self.R_all, contacts):
            tables = _compiled_record_tables(model)
            made_pairs, made_points = compiled_manifolds.record_manifolds(
                self.key, self.is_kept, self.row, self.static, tables, self.R_all, self.position, self.orientation,
                contacts.shape, contacts.static, contacts.point, contacts.normal, contacts.separation)
            return self._joined(ManifoldPairs(*made_pairs), ManifoldPoints(*made_points))
        made = ~self.is_kept
        row, static = self.row[made], self.static[made]
        vehicle = model.vehicle[row]
        pairs = ManifoldPairs(vehicle, row - first[vehicle], static, self._origins(row),
                              self.orientation[:, vehicle].T.astype(float))
        contact_key = contacts.shape * G + contacts.static
        made_key = self.key[made]  # (sorted)
        mine = _in_sorted(contact_key, made_key) if made_key.size else np.zeros(len(contact_key), bool)
        c = np.nonzero(mine)[0]
        shape_row = contacts.shape[c]
        v = model.vehicle[shape_row]
        R = self.R_all[:, :, shape_row].transpose(2, 0, 1)
        # the point on the static shape, and on the vehicle's (a round shape's on its core): a polytope's contact
        # lies on the static shape, a round shape's on its own surface
        radius, n, sep = _radius(model, shape_row), contacts.normal[c], contacts.separation[c]
        static_radius = self._static_radius(contacts.static[c])  # a static capsule's point: on its core
        on_static = contacts.point[c] - (np.where(radius > 0.0, sep, 0.0) + static_radius)[:, None] * n
        on_body = on_static + (sep + radius + static_radius)[:, None] * n - self.position[:, v].T
        points = ManifoldPoints(v, shape_row - first[v], contacts.static[c], np.einsum("qji,qj->qi", R, on_body),
                                on_static.astype(float), n.astype(float))
        return self._joined(pairs, points)

    def _kept_only(self) -> Manifolds:
        """The manifolds where every pair kept its points and none was made anew (most steps of a car at rest on its
        obstacle): the kept records, in key order already, taken as they are rather than joined to nothing (the same
        numbers; read, never written)."""
        return Manifolds(self.kept_pairs, self.kept_points if len(self.kept_points) else no_manifold_points())

    def _joined(self, pairs: ManifoldPairs, points: ManifoldPoints) -> Manifolds:
        """The manifolds of the pairs made anew (`pairs`, `points`) and of the kept ones, in key order."""
        first, G = first_rows(self.model), self.G
        if self.kept_pairs is not None and len(self.kept_pairs) and not len(pairs) and not len(points):
            return self._kept_only()
        if self.kept_pairs is not None and len(self.kept_pairs):
            pairs = ManifoldPairs.join([pairs, self.kept_pairs], [0, 0])
            points = ManifoldPoints.join([points, self.kept_points], [0, 0]) or no_manifold_points()
        key = (first[pairs.vehicle] + pairs.shape) * G + pairs.static
        if not (key[1:] >= key[:-1]).all():  # (the kept pairs alone are in key order already)
            pairs = pairs.subset(np.argsort(key, kind="stable"))
        return Manifolds(pairs, points)
