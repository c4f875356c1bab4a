"""The solver's view of the contacts. Friction patches as PhysX's low-level dynamics keeps them
(DyContactPrepShared.h, DyFrictionPatch.h): made from a step's contacts, a patch's anchors kept where they were made
while its friction holds and its normal and anchors stay correlated (`friction_patches`, `grow_patches`); then each
vehicle's patches as the rows the solver sweeps (`patch_rows`, against the static world; `pair_rows`, between
vehicles, coloured so that no two pairs of one colour share a body)."""
from __future__ import annotations

import operator
from dataclasses import dataclass

import numpy as np

from .. import compiled_bookkeeping, compiled_patches
from .. import vecmath as vm
from ..declare import PATCH_PARAMS
from ..solver_rows import PairRows, PatchRows
from .geometry import SAME_NORMAL
from .model import ContactModel, first_rows
from .placement import shape_boxes
from .records import Contacts, FrictionPatches, run_lengths, run_starts

# physxScene:frictionCorrelationDistance's default, in metres: a kept patch whose anchor on the body has moved farther
# than this from its anchor on the static shape, along the patch normal, is not kept (DyContactPrepShared.h
# isSeparated)
FRICTION_CORRELATION_DISTANCE_M = 0.025

_EMPTY_ANCHOR_SQ = 1e-8  # growPatches: a second anchor this near (squared) to the first is no second anchor


def _body_one(model: ContactModel, static: np.ndarray, rotation: np.ndarray, position: np.ndarray, between: bool):
    """Body 1's frame (rotation (P, 3, 3), position (P, 3)) of patches against the shapes `static`: the other
    vehicle's body between vehicles (`static` its shape rows), None against the static world (its frame: the world)."""
    if not between:
        return None, None
    other = model.vehicle[static]
    return rotation[other], position[other]


def _to_world(R: np.ndarray | None, p: np.ndarray | None, local: np.ndarray) -> np.ndarray:
    """Points (P, ..., 3) of body 1's frame (None: the world's) in the world."""
    if R is None:
        return local
    extra = local.ndim - 2
    return np.einsum("pij,p...j->p...i", R, local) + p[(slice(None),) + (None,) * extra]


def _to_body(R: np.ndarray | None, p: np.ndarray | None, world: np.ndarray) -> np.ndarray:
    """Points (P, ..., 3) of the world in body 1's frame (None: the world's)."""
    if R is None:
        return world
    extra = world.ndim - 2
    return np.einsum("pji,p...j->p...i", R, world - p[(slice(None),) + (None,) * extra])


def _kept_patches(previous: FrictionPatches | None, model: ContactModel, rotation: np.ndarray,
                  position: np.ndarray, length_scale: np.ndarray, between: bool
                  ) -> tuple[FrictionPatches | None, np.ndarray]:
    """getFrictionPatches: the last step's patches that may be kept (not slid, anchored, the two bodies turned less
    than PXC_SAME_NORMAL against each other, no anchor on body 0 separated from its twin on body 1 along the normal
    by the correlation distance), with their row of the model. rotation (V, 3, 3), position (V, 3): the body poses,
    world; between: the patches are between vehicles (body 1 the other vehicle), else against the static world."""
    if previous is None or not len(previous):
        return None, np.zeros(0, np.int64)
    R, p = rotation[previous.vehicle], position[previous.vehicle]
    R1, p1 = _body_one(model, previous.static, rotation, position, between)
    turned = np.einsum("pij,pj->pi", R, previous.body_normal)
    keep = ~previous.broken & (previous.anchor_count > 0)
    keep &= np.einsum("pj,pj->p", turned, _to_world(R1, np.zeros_like(p), previous.other_normal)) > SAME_NORMAL
    other_in_body = np.einsum("pji,paj->pai", R, _to_world(R1, p1, previous.other_anchor) - p[:, None, :])
    along = np.abs(np.einsum("paj,pj->pa", previous.body_anchor - other_in_body, previous.body_normal))
    limit = FRICTION_CORRELATION_DISTANCE_M * length_scale[previous.vehicle].astype(float)
    keep &= ((along < limit[:, None]) | (np.arange(2)[None, :] >= previous.anchor_count[:, None])).all(axis=1)
    kept = previous if keep.all() else previous.subset(keep)  # (read, never written)
    return kept, first_rows(model)[kept.vehicle] + kept.shape


@dataclass
class _Correlated:
    """A step's friction patches (F, in the solver's order: by shape row and other shape, a pair's kept patches
    before its new ones) and their normal rows (C contacts, grouped by patch): `friction_patches`'s result."""

    row: np.ndarray  # (F,) body 0's shape row
    static: np.ndarray  # (F,) the other shape
    first: np.ndarray  # (F,) each patch's first contact
    count: np.ndarray  # (F,) and how many
    of_contact: np.ndarray  # (C,) each contact's patch
    point: np.ndarray  # (C, 3) world
    separation: np.ndarray  # (C,)
    normal: np.ndarray  # (F, 3) world
    R: np.ndarray  # (F, 3, 3) body 0's rotation
    p: np.ndarray  # (F, 3) and position (its centre of mass)
    anchor_arm: np.ndarray  # (F, 2, 3) each anchor on body 0, from its centre of mass, world axes
    anchor_error: np.ndarray  # (F, 2, 3) body 0's anchor less body 1's, world
    record: FrictionPatches  # to keep for the next step (`broken` set by the solve)


def _plane_pair_order(model: ContactModel, rows: np.ndarray, statics: np.ndarray, previous: FrictionPatches | None,
                      body_position: np.ndarray, body_orientation: np.ndarray) -> np.ndarray:
    """(N,) the sort key of the pairs (shape rows `rows`, static shapes `statics`) that puts each vehicle's pairs with
    the planes in the order PhysX's solver meets them (each plane pair takes the row of the one at its place in that
    order; other pairs keep their row): the pairs the last step had (`previous`, in its solver order) first, in that
    order; then the new ones by the low x of their shapes' world boxes, ones within 5 % of their size of each other
    by row.
    PhysX meets a body's pairs in the order they were made and keeps it while they last, and the pairs one step
    makes come ordered along x (its broad phase, ABP, sweeps the boxes sorted along x, BpBroadPhaseABP.cpp). Fitted to
    ovphysx's runs of the sample car landing on wheel cylinders from 1 m: flat, heading +x the rear wheels' pairs
    come first, heading -x the front wheels', heading +y the left wheels'; nose down, the front wheels' pairs (made
    six steps earlier) before the rear wheels', those two in row order though the right one's box began 1.4 cm
    further back (the car had turned). So ordered, ours is within 0.05 % of PhysX in angular speed in each (flat,
    in row order: 25.6 % heading +x, 28.3 % heading +y, the yaw rate -0.025 rad/s where PhysX's is -0.029 and
    -0.070). Not modelled: where two new boxes begin at the same x (an axle's wheels heading +x) PhysX's order
    follows its sort's history and rounding (moved -13.1 m along x it meets the right rear wheel first, and so
    dropped 1.5 m); the pairs of the first step, which PhysX meets in another order (WheelsTouching's cylinders
    resting on the plane: front right, front left, rear right, rear left); a landing heading 30 degrees with a roll
    of 3 degrees (10 % from PhysX in angular speed, 7.5 % in row order); a mesh's pairs (WheelsRolling's cylinders
    on its road: front right, front left, rear left, rear right), which keep the row order."""
    key = rows.copy()
    plane = statics < model.plane_count
    if np.count_nonzero(plane) < 2:  # no two plane pairs to order
        return key
    shapes = np.unique(rows[plane])
    if shapes.size < 2:
        return key
    # where each shape's first plane pair stood in the last step's order (len(previous) where it had none)
    since = np.full(len(model.vehicle), len(previous) if previous is not None else 0)
    if previous is not None and len(previous):
        had = previous.static < model.plane_count
        np.minimum.at(since, (first_rows(model)[previous.vehicle] + previous.shape)[had], np.nonzero(had)[0])
    R, centre, _ = shape_boxes(model, body_position, body_orientation, shapes)
    half = model.box_half[:, shapes]
    low_x = centre[0] - (np.abs(R[0, 0]) * half[0] + np.abs(R[0, 1]) * half[1] + np.abs(R[0, 2]) * half[2])
    # boxes beginning within 5 % of their size of each other count as level (fitted: see above)
    vehicle = model.vehicle[shapes]
    by_x = np.lexsort((low_x, vehicle))
    tol = 0.05 * (half[0] + half[1] + half[2])[by_x]
    step = np.r_[True, (np.diff(low_x[by_x]) > np.maximum(tol[1:], tol[:-1])) | (np.diff(vehicle[by_x]) != 0)]
    level = np.empty(len(shapes), np.int64)
    level[by_x] = np.cumsum(step)
    order = np.lexsort((shapes, level, since[shapes], vehicle))  # vehicle by vehicle (rows are numbered so)
    takes = np.empty(len(shapes), np.int64)
    takes[order] = shapes  # the i-th shape in that order takes the i-th row of its vehicle's plane shapes
    key[plane] = takes[np.searchsorted(shapes, rows[plane])]
    return key


def friction_patches(model: ContactModel, contacts: Contacts, body_position: np.ndarray,
                     body_orientation: np.ndarray, length_scale: np.ndarray, previous: FrictionPatches | None,
                     rest: np.ndarray, between: bool = False) -> _Correlated:
    """PhysX's friction patches made as DyTGSContactPrep.cpp makes them (DyFrictionCorrelation.cpp), against the
    static world or between vehicles (`between`: body 1 is the vehicle of the other shape, `Contacts.static` its shape
    row): the last step's patches of each shape pair that may be kept (`_kept_patches`) come first, in their order;
    each contact patch joins the first of its pair's kept patches whose normal agrees with its own (correlatePatches),
    else starts a patch of its own; a patch keeps its two anchors unless they have come nearer each other than half
    its contacts' extent, and takes new ones from its contacts (`grow_patches`). A patch's normal rows are the contact
    patches it took, the last taken first, each in order. An anchor is kept on both bodies, each in its own frame:
    `anchor_error` says how far the two have moved apart since it was made. rest: the rest distance of each pair of
    shapes (a function of (rows, others)). The body poses are the ones the step begins with: body_position (3, V),
    body_orientation (4, V)."""
    C = len(contacts)
    V = body_position.shape[1]
    touched = np.zeros(V, bool)
    touched[model.vehicle[contacts.shape]] = True
    if between:
        touched[model.vehicle[contacts.static]] = True
    touched = np.flatnonzero(touched)  # the vehicles with contacts, in order
    rotation = np.zeros((V, 3, 3))
    rotation[touched] = vm.quat_to_mat(body_orientation[:, touched].astype(float)).transpose(2, 0, 1)
    position = body_position.T.astype(float)
    G = len(model.vehicle) if between else model.collides.shape[1]
    # contact patches: consecutive contacts with the same `patch`
    cp_first = np.flatnonzero(run_starts(contacts.patch))
    cp_count = run_lengths(cp_first, C)
    cp_row, cp_static, cp_normal = contacts.shape[cp_first], contacts.static[cp_first], contacts.normal[cp_first]
    kept, kept_row = _kept_patches(previous, model, rotation, position, length_scale, between)
    # correlatePatches: a contact patch joins the first kept patch of its pair with an agreeing normal
    match = np.full(len(cp_first), -1)
    if kept is not None and len(kept):
        key = kept_row * G + kept.static
        order = np.argsort(key, kind="stable")
        lo = np.searchsorted(key[order], cp_row * G + cp_static, "left")
        hi = np.searchsorted(key[order], cp_row * G + cp_static, "right")
        kept_normal = np.einsum("pij,pj->pi", rotation[kept.vehicle], kept.body_normal)
        for k in range(int((hi - lo).max(initial=0))):
            candidate = order[np.minimum(lo + k, len(order) - 1)]
            agree = (match < 0) & (lo + k < hi) & (np.einsum("cj,cj->c", cp_normal, kept_normal[candidate])
                                                   >= SAME_NORMAL)
            match = np.where(agree, candidate, match)
    # kept patches with contacts, in order: the others end (PhysX writes them no more)
    used = np.zeros(len(kept) if kept is not None else 0, bool)
    used[match[match >= 0]] = True
    used = np.flatnonzero(used)
    fresh = np.nonzero(match < 0)[0]
    n_used = len(used)
    F = n_used + len(fresh)
    fp_of_cp = np.where(match >= 0, np.searchsorted(used, match), n_used + np.cumsum(match < 0) - 1)
    fp_row = np.concatenate((kept_row[used] if n_used else np.zeros(0, np.int64), cp_row[fresh]))
    fp_static = np.concatenate((kept.static[used] if n_used else np.zeros(0, np.int64), cp_static[fresh]))
    fp_source = np.concatenate((used, fresh))
    # the solver's order: by shape row (a vehicle's plane pairs in PhysX's order, `_plane_pair_order`) and other
    # shape, a pair's kept patches (in their order) before its new ones
    shape_order = fp_row if between else _plane_pair_order(model, fp_row, fp_static, previous, body_position,
                                                           body_orientation)
    solve_order = np.lexsort((fp_source, np.arange(F) >= n_used, fp_static, shape_order))
    rank = np.empty(F, np.int64)
    rank[solve_order] = np.arange(F)
    fp_of_cp = rank[fp_of_cp]
    fp_row, fp_static = fp_row[solve_order], fp_static[solve_order]
    is_kept = solve_order < n_used
    source = np.where(is_kept, fp_source[solve_order], -1)  # index into `kept` where kept
    # a patch's normal rows: its contact patches, the last taken first (PhysX's correlation list), each in order
    cp_of_contact = np.repeat(np.arange(len(cp_first)), cp_count)
    within = np.arange(C) - cp_first[cp_of_contact]
    contact_order = np.lexsort((within, -cp_of_contact, fp_of_cp[cp_of_contact]))
    fp_of_contact = fp_of_cp[cp_of_contact][contact_order]
    fp_first = np.searchsorted(fp_of_contact, np.arange(F))
    fp_count = run_lengths(fp_first, C)
    point = contacts.point[contact_order]
    separation = contacts.separation[contact_order]
    fp_normal = contacts.normal[contact_order][fp_first]  # the first contact of the last contact patch taken
    fp_vehicle = model.vehicle[fp_row]
    R, p = rotation[fp_vehicle], position[fp_vehicle]
    R1, p1 = _body_one(model, fp_static, rotation, position, between)
    # a kept patch with two anchors keeps them unless they lie nearer each other than half its contacts' extent (its
    # anchors crowd a corner); one with one anchor keeps it and grows a second
    count = np.zeros(F, np.int64)
    body_anchor, other_anchor = np.zeros((F, 2, 3)), np.zeros((F, 2, 3))
    if kept is not None and is_kept.any():
        k_ = source[is_kept]
        count[is_kept] = kept.anchor_count[k_]
        body_anchor[is_kept], other_anchor[is_kept] = kept.body_anchor[k_], kept.other_anchor[k_]
        lo_pt = np.minimum.reduceat(point, fp_first, axis=0)
        hi_pt = np.maximum.reduceat(point, fp_first, axis=0)
        diagonal_sq = ((hi_pt - lo_pt) ** 2).sum(axis=1)
        apart_sq = ((body_anchor[:, 0] - body_anchor[:, 1]) ** 2).sum(axis=1)
        count = np.where((count == 2) & (apart_sq * 4.0 < diagonal_sq), 0, count)
    # a contact this far apart (plus the rest distance) or nearer may anchor (physxScene:frictionOffsetThreshold)
    threshold = friction_offset_threshold(model, fp_vehicle) + rest(fp_row, fp_static)
    first_anchor = np.einsum("pij,pj->pi", R, body_anchor[:, 0]) + p
    made, grown = grow_patches(point, separation, fp_first, fp_count, count, first_anchor, threshold)
    for m in range(2):
        new = (count < 2) & (m >= count) & (m < made)  # only the anchors added: a kept one stays where it was made
        body_anchor[new, m] = np.einsum("pji,pj->pi", R[new], grown[new, m] - p[new])
        other_anchor[new, m] = _to_body(None if R1 is None else R1[new], None if p1 is None else p1[new],
                                        grown[new, m])
    count = np.where(count < 2, made, count)
    arm = np.einsum("pij,paj->pai", R, body_anchor)
    error = arm + p[:, None, :] - _to_world(R1, p1, other_anchor)
    if kept is not None and len(kept):
        body_normal = np.where(is_kept[:, None], kept.body_normal[np.maximum(source, 0)],
                               np.einsum("pji,pj->pi", R, fp_normal))
        other_normal = np.where(is_kept[:, None], kept.other_normal[np.maximum(source, 0)],
                                _to_body(R1, None if p1 is None else np.zeros_like(p1), fp_normal))
    else:
        body_normal = np.einsum("pji,pj->pi", R, fp_normal)
        other_normal = _to_body(R1, None if p1 is None else np.zeros_like(p1), fp_normal)
    record = FrictionPatches(fp_vehicle, fp_row - first_rows(model)[fp_vehicle], fp_static, body_normal,
                             other_normal, count, body_anchor, other_anchor, np.zeros(F, bool))
    return _Correlated(fp_row, fp_static, fp_first, fp_count, fp_of_contact, point, separation, fp_normal, R, p,
                       np.where((np.arange(2)[None, :] < count[:, None])[..., None], arm, 0.0),
                       np.where((np.arange(2)[None, :] < count[:, None])[..., None], error, 0.0), record)


def grow_patches(point: np.ndarray, separation: np.ndarray, first: np.ndarray, count: np.ndarray,
                 anchors: np.ndarray, first_anchor: np.ndarray, threshold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """PhysX's growPatches, every patch at once (contacts (C,) grouped in patches starting at `first`, of `count`
    points; a patch holding `anchors` (0, 1 or 2) already, the first at `first_anchor` (P, 3), world): a patch with
    fewer than two takes the first point nearer than `threshold` (per patch) as its first, then the first one apart
    from it; a later point replaces the anchor it lies nearer to when it is farther from the other than the pair is
    apart. Returns each patch's anchor count and its anchors' world points (P, 2, 3), the ones it held excepted."""
    P = len(first)
    made = anchors.copy()
    grown = np.zeros((P, 2, 3))
    g = np.flatnonzero(anchors < 2)  # the patches that grow (each patch's rows stand alone: only theirs are swept)
    if g.size:
        made[g], grown[g] = _grow(point, separation, first[g], count[g], anchors[g], first_anchor[g], threshold[g])
    return made, grown


def _grow(point: np.ndarray, separation: np.ndarray, first: np.ndarray, count: np.ndarray, anchors: np.ndarray,
          first_anchor: np.ndarray, threshold: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`grow_patches` of patches holding fewer than two anchors."""
    P = len(first)
    made = anchors.copy()
    w0 = np.where((anchors == 1)[:, None], first_anchor, 0.0)
    w1 = np.zeros((P, 3))
    far = np.zeros(P)
    for k in range(int(count.max(initial=0))):
        at = first + np.minimum(k, count - 1)
        near = (k < count) & (separation[at] < threshold)
        x = point[at]
        d0 = ((x - w0) ** 2).sum(axis=1)
        d1 = ((x - w1) ** 2).sum(axis=1)
        take_first = near & (made == 0)
        second = near & (made == 1) & (d0 > _EMPTY_ANCHOR_SQ)
        third = near & (made == 2)
        replace1 = third & (d0 > d1) & (d0 > far)
        replace0 = third & ~(d0 > d1) & (d1 > far)
        w0 = np.where((take_first | replace0)[:, None], x, w0)
        w1 = np.where((second | replace1)[:, None], x, w1)
        far = np.where(second | replace1, d0, np.where(replace0, d1, far))
        far = np.where(near & (made == 1) & ~second, d0, far)
        made = made + take_first + second
    return made, np.stack((w0, w1), axis=1)


def patch_rows(model: ContactModel, contacts: Contacts, vehicles: np.ndarray, body_position: np.ndarray,
               body_orientation: np.ndarray, length_scale: np.ndarray, previous: FrictionPatches | None = None
               ) -> PatchRows:
    """The contacts with the static world as the solver's rows for the vehicles `vehicles` (indices, in this order),
    their friction patches as `friction_patches` makes them. Per vehicle its patches (Pm slots, padded), per patch its
    normal rows, its anchors (arms from the centre of mass; `anchor_error`: how far the body's anchor has moved from
    the static shape's since the anchor was made) and the pair's combined material and rest distance. The body pose
    is the one the step begins with: body_position (3, V), body_orientation (4, V). `friction`: the patches, to keep
    for the next step once the solve has said which slid (`FrictionPatches`, with each patch's `friction_slot`).
    Compiled (sim/compiled_patches.py) where the extension is loaded and covers the call: the same bits as
    `patch_rows_numpy`."""
    if compiled_covers(model, contacts):
        return _compiled_patch_rows(model, contacts, vehicles, body_position, body_orientation, length_scale,
                                    previous)
    return patch_rows_numpy(model, contacts, vehicles, body_position, body_orientation, length_scale, previous)


def compiled_covers(model: ContactModel, contacts: Contacts) -> bool:
    """Whether sim/compiled_patches.py makes these patches: the extension loaded with our SAME_NORMAL, float64
    tables, and no two shapes' plane pairs for `_plane_pair_order` to order (a pair's patches keep its row's order)."""
    if not compiled_bookkeeping.available() or contacts.patch is None or not len(contacts):
        return False
    tables = _float_tables(model)  # (whether float64: found once per set of tables)
    kept = model.cache.get("patch_tables_float64")
    if kept is None or not all(map(operator.is_, kept[0], tables)):
        kept = model.cache["patch_tables_float64"] = (tables, all(t.dtype == np.float64 for t in tables))
    if not kept[1]:
        return False
    on_plane = contacts.shape[contacts.static < model.plane_count] if model.plane_count else None
    return ((on_plane is None or not on_plane.size or (on_plane == on_plane[0]).all())
            and compiled_bookkeeping.same_normal_agrees(SAME_NORMAL))


def _compiled_patch_rows(model: ContactModel, contacts: Contacts, vehicles: np.ndarray, body_position: np.ndarray,
                         body_orientation: np.ndarray, length_scale: np.ndarray, previous: FrictionPatches | None
                         ) -> PatchRows:
    """`patch_rows_numpy` in one C call (sim/compiled_patches.py; two where the rows outgrow the block kept for
    them), where `compiled_covers`."""
    Vr = len(vehicles)
    where = _rows_of_vehicles(body_position.shape[1], vehicles)
    tables = compiled_bookkeeping.held(model.cache, "compiled_patches", (
        model.vehicle, first_rows(model), model.rest_distance, model.friction_offset_threshold,
        *_patch_params(model)),
        lambda vehicle, first, rest, threshold, *params: compiled_patches.patch_tables(
            vehicle, first, rest, threshold, list(params)))
    made = compiled_patches.friction_patches(
        contacts.shape, contacts.static, contacts.patch, contacts.point, contacts.normal, contacts.separation,
        tables, model.collides.shape[1], body_orientation, body_position.T, length_scale, previous, where, Vr)
    # the rows in the same C call where they fit its block (most steps), else in one more
    block, rows = made.rows or compiled_patches.patch_row_arrays(Vr, made.Pm, made.K, len(PATCH_PARAMS))
    out = PatchRows(  # (the arrays in PatchRows's order: point_active .. anchor_error, the parameters in PATCH_PARAMS')
        *rows, bounce_threshold(model, vehicles),
        contacts,  # for telemetry
        FrictionPatches(made.vehicle, made.shape, made.static, made.body_normal, made.other_normal, made.anchor_count,
                        made.body_anchor, made.other_anchor, np.zeros(made.F, bool)),
        (made.vehicle_row, made.slot))
    if made.rows is None:
        compiled_patches.write_rows(made, tables, Vr, block)
    return out


# the pair parameters' tables of a model, in PATCH_PARAMS' order; and with the offset thresholds (`compiled_covers`)
_patch_params = operator.attrgetter(*PATCH_PARAMS)
_float_tables = operator.attrgetter("friction_offset_threshold", *PATCH_PARAMS)

_LAST_ROWS_OF_VEHICLES: list = [None]  # (V, the vehicles' bytes, dtype, their rows, the vehicles): the last call's


def _rows_of_vehicles(V: int, vehicles: np.ndarray) -> np.ndarray:
    """(V,) each vehicle's row among `vehicles` (-1: none), read-only: the last call's array again where V and the
    vehicles' values are the same (a car on its obstacle: every step)."""
    last = _LAST_ROWS_OF_VEHICLES[0]
    if (last is not None and last[4] is vehicles and last[0] == V and not vehicles.flags.writeable
            and vehicles.base is None):
        return last[3]  # (the same read-only array: row_solver's list of every vehicle, step after step)
    key = vehicles.tobytes()
    if last is not None and last[0] == V and last[1] == key and last[2] == vehicles.dtype:
        return last[3]
    where = np.full(V, -1)
    where[vehicles] = np.arange(len(vehicles))
    where.flags.writeable = False
    _LAST_ROWS_OF_VEHICLES[0] = (V, key, vehicles.dtype, where, vehicles)
    return where


def patch_rows_numpy(model: ContactModel, contacts: Contacts, vehicles: np.ndarray, body_position: np.ndarray,
                     body_orientation: np.ndarray, length_scale: np.ndarray, previous: FrictionPatches | None = None
                     ) -> PatchRows:
    """`patch_rows` in numpy: the reference."""
    Vr = len(vehicles)
    where = np.full(int(vehicles.max()) + 1 if Vr else 0, -1)
    where[vehicles] = np.arange(Vr)
    C = len(contacts)
    fp = friction_patches(model, contacts, body_position, body_orientation, length_scale, previous,
                          lambda row, static: model.rest_distance[row, static])
    F = len(fp.row)
    fp_r = where[model.vehicle[fp.row]]
    # a vehicle's patches are consecutive: slots 0, 1, ..
    index = np.arange(F)
    run_start = np.maximum.accumulate(np.where(run_starts(fp_r), index, 0)) if F else index
    slot = index - run_start
    Pm = int(slot.max()) + 1 if F else 0
    K = int(fp.count.max()) if F else 0
    out = PatchRows(
        point_active=np.zeros((Vr, Pm, K), bool), arm=np.zeros((3, Vr, Pm, K)), separation=np.zeros((Vr, Pm, K)),
        normal=np.zeros((3, Vr, Pm)), **{name: np.zeros((Vr, Pm)) for name in PATCH_PARAMS},
        anchor_active=np.zeros((Vr, Pm, 2), bool), anchor_arm=np.zeros((3, Vr, Pm, 2)),
        anchor_error=np.zeros((3, Vr, Pm, 2)), bounce_threshold=bounce_threshold(model, vehicles),
        points=contacts,  # for telemetry
        friction=fp.record, friction_slot=(fp_r, slot))
    j = np.arange(C) - fp.first[fp.of_contact]
    v, q = fp_r[fp.of_contact], slot[fp.of_contact]
    out.point_active[v, q, j] = True
    out.arm[:, v, q, j] = (fp.point - fp.p[fp.of_contact]).T
    out.separation[v, q, j] = fp.separation
    out.normal[:, fp_r, slot] = fp.normal.T
    for name in PATCH_PARAMS:  # the pair's combined parameters, each under its declared name
        getattr(out, name)[fp_r, slot] = getattr(model, name)[fp.row, fp.static]
    _anchor_rows(fp, (fp_r, slot), out.anchor_active, out.anchor_arm, out.anchor_error)
    return out


def _anchor_rows(fp: _Correlated, at: tuple, active: np.ndarray, arm: np.ndarray, error: np.ndarray) -> None:
    """Write the patches' anchors into the solver's rows at the slots `at` (per patch): whether each is active,
    its arm on body 0 and its error (component first)."""
    count = fp.record.anchor_count
    for m in range(2):
        has = count > m
        where = tuple(a[has] for a in at)
        active[where + (m,)] = True
        arm[(slice(None),) + where + (m,)] = fp.anchor_arm[has, m].T
        error[(slice(None),) + where + (m,)] = fp.anchor_error[has, m].T


def friction_offset_threshold(model: ContactModel, vehicles: np.ndarray) -> np.ndarray:
    """Per vehicle of `vehicles`, its scene's physxScene:frictionOffsetThreshold in stage units: how far apart a
    contact (plus the pair's rest distance) may be and still anchor its patch's friction (growPatches)."""
    return model.friction_offset_threshold[vehicles]


def bounce_threshold(model: ContactModel, vehicles: np.ndarray) -> np.ndarray:
    """Per vehicle of `vehicles`, its scene's physxScene:bounceThreshold in stage units: the closing speed under which
    a contact does not bounce."""
    return model.bounce_threshold[vehicles]


def pair_rows(model: ContactModel, contacts: Contacts, body_position: np.ndarray, body_orientation: np.ndarray,
              length_scale: np.ndarray, previous: FrictionPatches | None = None) -> PairRows:
    """The contacts between vehicles as the solver's rows: their friction patches as against static shapes
    (patches.friction_patches, body 1 the other vehicle: the last step's patches that may be kept first, anchors kept
    on both bodies), per shape pair in order (Pp pairs), per pair its patches (Pm slots, padded), per patch its normal
    rows and up to two anchors: the two vehicles (`body0`, `body1`, (Pp,)), each pair's colour (`_colours`), arms from
    either body's centre of mass at the pose the step begins with (body_position (3, V), body_orientation (4, V)), each
    anchor's error (body 0's anchor less body 1's, world). `friction`: the patches to keep for the next step once the
    solve has said which slid, `friction_slot`: each patch's (pair, slot)."""
    pairs = model.pairs
    C = len(contacts)

    def rest(row, other):
        return pairs.rest_distance[pairs.material_key[row], pairs.material_key[other]]

    fp = friction_patches(model, contacts, body_position, body_orientation, length_scale, previous, rest,
                          between=True)
    shape, other = fp.row, fp.static
    new_pair = run_starts(shape, other)
    pair = np.cumsum(new_pair) - 1  # each patch's pair
    index = np.arange(len(shape))
    slot = index - np.maximum.accumulate(np.where(new_pair, index, 0))
    Pp, Pm, K = int(pair[-1]) + 1, int(slot.max()) + 1, int(fp.count.max())
    body0, body1 = model.vehicle[shape[new_pair]], model.vehicle[other[new_pair]]
    out = PairRows(
        body0=body0, body1=body1, colour=_colours(body0, body1), index=np.arange(Pp),
        point_active=np.zeros((Pp, Pm, K), bool), arm0=np.zeros((3, Pp, Pm, K)), arm1=np.zeros((3, Pp, Pm, K)),
        separation=np.zeros((Pp, Pm, K)), normal=np.zeros((3, Pp, Pm)),
        **{name: np.zeros((Pp, Pm)) for name in PATCH_PARAMS}, anchor_active=np.zeros((Pp, Pm, 2), bool),
        anchor_arm0=np.zeros((3, Pp, Pm, 2)), anchor_arm1=np.zeros((3, Pp, Pm, 2)),
        anchor_error=np.zeros((3, Pp, Pm, 2)),
        bounce_threshold=bounce_threshold(model, body0),  # (Pp,): body 0's scene's
        friction=fp.record, friction_slot=(pair, slot))
    body_position = body_position.astype(float)
    c_pair, c_slot = pair[fp.of_contact], slot[fp.of_contact]
    j = np.arange(C) - fp.first[fp.of_contact]
    out.point_active[c_pair, c_slot, j] = True
    out.arm0[:, c_pair, c_slot, j] = fp.point.T - body_position[:, body0[c_pair]]
    out.arm1[:, c_pair, c_slot, j] = fp.point.T - body_position[:, body1[c_pair]]
    out.separation[c_pair, c_slot, j] = fp.separation
    out.normal[:, pair, slot] = fp.normal.T
    ka, kb = pairs.material_key[shape], pairs.material_key[other]
    for name in PATCH_PARAMS:  # the pair's combined parameters, each under its declared name
        getattr(out, name)[pair, slot] = getattr(pairs, name)[ka, kb]
    _anchor_rows(fp, (pair, slot), out.anchor_active, out.anchor_arm0, out.anchor_error)
    # body 1's arm to its own anchor: body 0's anchor less the error, from body 1's centre of mass
    arm1 = fp.anchor_arm + fp.p[:, None, :] - fp.anchor_error - body_position[:, model.vehicle[other]].T[:, None, :]
    for m in range(2):
        has = fp.record.anchor_count > m
        out.anchor_arm1[:, pair[has], slot[has], m] = arm1[has, m].T
    return out


def _colours(body0: np.ndarray, body1: np.ndarray) -> np.ndarray:
    """A colour per pair such that no vehicle is in two pairs of one colour. Colour c is filled in rounds: of the
    pairs left whose vehicles colour c does not hold yet, each takes c whose priority is the least of all such pairs
    at both its vehicles. The priority is the pair's index scrambled (an odd multiplier modulo 2^32: a bijection,
    so no ties), so that a chain of pairs (a queue of cars bumper to bumper) has many local minima per round, not
    one; a colour is full when no pair left fits, then the next starts."""
    P = len(body0)
    colour = np.full(P, -1)
    if not P:
        return colour
    priority = (np.arange(P, dtype=np.uint64) * np.uint64(2654435761)) % np.uint64(2 ** 32)
    vehicles = int(max(body0.max(), body1.max())) + 1
    c = 0
    while (colour < 0).any():
        held = np.zeros(vehicles, bool)
        while True:
            fits = np.nonzero((colour < 0) & ~held[body0] & ~held[body1])[0]
            if not fits.size:
                break
            least = np.full(vehicles, np.iinfo(np.uint64).max, np.uint64)
            np.minimum.at(least, body0[fits], priority[fits])
            np.minimum.at(least, body1[fits], priority[fits])
            take = fits[(least[body0[fits]] == priority[fits]) & (least[body1[fits]] == priority[fits])]
            colour[take] = c
            held[body0[take]] = held[body1[take]] = True
        c += 1
    return colour
