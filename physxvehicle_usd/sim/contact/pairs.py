"""Contacts between vehicles: one vehicle's collision shapes against another's, both bodies dynamic, as PhysX makes
and solves them.

Which pairs: shapes of two different vehicles (a vehicle's own shapes never touch each other: PhysX does not collide
the shapes of one actor), whose collision groups let them collide (collision_filter.GroupFilter.collide) and neither of which names
the other, or a prim above it (the other vehicle's body), with FilteredPairsAPI (a FilteredPairsAPI on a vehicle's body
is read onto each of its shapes). `PairModel` holds what that takes:
per shape row its distinct (material, offsets) key and the tables over two such keys (contact and rest distance,
combined friction and restitution: model.py's combined_tables), and per shape row the group that filters it,
whether two groups collide decided for the candidate pairs of a step at once, in arrays.

Broad phase (`candidate_pairs`), every step, vectorised, no loop over vehicles: each shape's world box (its body-frame
box turned with the body, placement.py shape_boxes) grown by its contact offset, so that two boxes overlap where the
shapes may come within their pair's contact distance; then sort and sweep in strips (`_sweep`): along the axis the
boxes' centres spread most along, within strips across the next one as wide as the widest box (a grid of cars meets
only its neighbours, not its whole column), each box meets the boxes of its strip whose low end lies below its high
end (one binary search per box); the pairs so found are kept where the boxes overlap on all three axes, the shapes
are of two vehicles and their groups and filtered pairs let them collide. When the boxes, grown by a further
QUIET_MARGIN, meet nowhere, the pose is kept and the following steps pay a motion bound per vehicle and nothing more
until some vehicle has moved against the others (position less a shift common to all, and turn times its shapes'
reach) by the margin: a fleet apart from one another, or driving side by side, never reaches the sweep's sort more
than every few steps, nor the narrow phase.

Narrow phase (`generate`): two boxes meet as PhysX's box-box test makes them (sim/contact/box.py box_box, as a vehicle's
box meets a static one), the earlier vehicle's box its first shape: the points lie on body 0's box, in PhysX's order
(ovphysx's head-on at 8 m/s: the same four points and normal impulses at the impact, mirrored left to right, see
`_box_pair_contacts`; as polytopes, 11.5 % angular speed against 1 %). Other shapes' polytopes
are placed in the world and met by separating_axes.py's separating-axis test and face clipping (polytope_contacts, the
same code as against a static polytope, with the other vehicle's shape as B), at most four points per patch (its
_reduce); a sphere or capsule on either vehicle is that test's A, met with its radius, a sphere's point put on a box
as against a static box (round_shapes.sphere_points_on_boxes); two round shapes meet as PhysX's sphere and capsule tests
make them (`_round_pair_contacts`); an exact cylinder (a wheel's, sim/contact/cylinder_faces.py) meets the other's shape
as PhysX's convex-core contacts make it (`_cylinder_pair_contacts`: a box as its box core, taken first, a sphere or
capsule as its point or segment core, first, a hull as its points, after, another cylinder as its core, body 1's
first). A contact's `shape` is body 0's shape row, its `static` the other
shape's row (body 1), its normal points from body 1 towards body 0 and its point lies on body 0's surface (a round
shape's contact: where PhysX's test for the two shapes puts it). Body 0 is
the vehicle later in the batch, as PhysX orders two dynamic bodies (ScNPhaseCore.cpp shouldSwapBodies: the actor
with the higher id first; omni.physx creates actors in stage order, the batch is in path order: the two agree where
the stage lists its vehicles by name). Where the faces of two polytopes (not two boxes) separate them equally,
body 0's face is the reference, as PhysX's box-box test takes the first least overlap, body 0's faces first
(GuPCMContactBoxBox.cpp); "equally" within a tolerance in contact distances (separating_axes.polytope_contacts), so in
any units. Against ovphysx both choices matter for the roll, pitch and yaw an impact leaves (the Gauss-Seidel sweep
meets body 0's patch points in the order made): the other body first gave 2.7 / 3.4 % angular speed in the rear-end run
against 1.9 / 2.5 %, the static pairs' tie rule 2.1 % speed in the 3 m/s head-on in centimetres against 0.003 %
(measured while two boxes still met as polytopes).

Solve (contact_rows.PairContactRows, fed by `pair_rows`): a pair's rows act on both bodies. Jacobians (n, r0 x n) on body 0
and (-n, -(r1 x n)) on body 1, arms from each body's centre of mass to the same contact point; the unit response is
the sum of both bodies' (mass and inertia of both); friction patches as against static shapes
(patches.friction_patches: kept from step to step while they hold, as PhysX's getFrictionPatches keeps them for two
dynamic bodies, each anchor kept on both bodies in each one's frame; a friction row drives back how far body 0's
anchor has moved from body 1's; `SimState.pair_friction` holds them between steps), the relative velocity's
tangential part as the first friction axis; the depenetration bias capped by the lower
of the two bodies' maxDepenetrationVelocity. PhysX solves two touching vehicles in one island: with the island's
largest position and velocity iteration counts (row_solver.solve_vehicle_constraints takes the largest per island).
Our solve is batched over vehicles, Gauss-Seidel over the rows of each vehicle: rows of two pairs that share a body
cannot be applied in one vectorised batch, so the pairs are coloured (`_colours`: no vehicle twice in one colour, the
partitioning PhysX's solver does for the same reason) and, within every iteration, after every vehicle's own rows
(its vehicle constraints, then its static contacts), the pairs are swept colour by colour. Vehicles in no pair take
the existing path: nothing changes for them and they pay nothing but the broad phase.

Solver type: the pairs are solved by their scene's solver (sim/row_solver.py): TGS, or PGS where the scene's
physxScene:solverType asks it (`PairContactRows.sweep_pgs`); an island with a vehicle of a PGS scene is solved with PGS.

Manifolds: two boxes keep PCM's box-box manifold from step to step (`PairManifolds`, `SimState.pair_manifolds`):
their points re-measured from the current poses while the earlier car's box has moved little in the later car's box
frame and neither body has turned much (`_kept_box_pairs`, sim/contact/persistence.py's polytope thresholds), reported
on body 0's box with the normal as it was made, turned with body 0 (ovphysx's rear-end at 4 m/s: the normal tilts 3, 5,
7, 8, 8, 9 mrad over the steps after the impact, a manifold made anew each step stays level). Other pairs of shapes
between vehicles are made anew every step (PCM keeps those too).

The suspension queries meet other vehicles' shapes too (sim/vehicle_queries.py), as PhysX's wheel raycasts and sweeps
do where the wheel's query group does not filter them.

Not modelled: vehicles stepped in different ranges of a sharded Simulator (a batch that may have such contacts is
stepped as one range, and so is one whose suspension queries may meet another vehicle).
"""
from __future__ import annotations

from dataclasses import fields

import numpy as np

from ..motion import Motion
from .box import box_box
from .broad import candidate_pairs
from .cylinder import exact_cylinders, shape_core
from .cylinder_faces import cylinder_convexes
from .geometry import segments_closest
from .model import ContactModel
from .pcm_rules import DRIFT, POLYTOPE_MOVED, POLYTOPE_TURNED, manifold_margin, manifold_margins
from .placement import placed_vertices
from .polytopes import world_polytopes
from .records import Contacts, PairManifolds
from .reduction import reduce_contacts
from .round_shapes import sphere_points_on_boxes
from .separating_axes import polytope_contacts


def generate(model: ContactModel, position: np.ndarray, orientation: np.ndarray,
             previous: "PairManifolds | None" = None, length_scale: np.ndarray | None = None,
             motion: Motion | None = None) -> Contacts:
    """The contacts between vehicles at the body poses position (3, V), orientation (4, V) (see the module
    docstring for what `shape`, `static` and the normal are here). With the vehicles' length scales (V,), two boxes
    keep PCM's manifold (`_kept_box_pairs`: `previous`, the last step's) and the contacts carry the manifolds to keep
    (`Contacts.manifolds`); without, every contact is made anew. motion: the step's `Motion` of these poses."""
    if model.pairs is None:
        return Contacts.empty()
    (a, b), R_all = candidate_pairs(model, position, orientation, motion)
    if not a.size:
        return Contacts.empty()
    R, vertices = placed_vertices(model, np.unique(np.concatenate([a, b])), R_all, position)
    limit = model.pairs.contact_distance[model.pairs.material_key[a], model.pairs.material_key[b]]
    parts = []
    boxed = model.boxes.mask[a] & model.boxes.mask[b]
    box_pairs = kept_manifolds = None
    if boxed.any():
        box_pairs = (a[boxed], b[boxed], limit[boxed])
        keep = np.zeros(int(boxed.sum()), bool)
        if length_scale is not None and previous is not None and len(previous):
            keep, kept_manifolds, kept = _kept_box_pairs(model, *box_pairs, previous, position, orientation, R,
                                                         length_scale)
            parts.append(kept)
        fresh = np.nonzero(boxed)[0][~keep]
        rest = np.ones(len(a), bool)
        rest[np.nonzero(boxed)[0][keep]] = False
        if fresh.size:
            made, contacts = _box_pair_contacts(model, a[fresh], b[fresh], limit[fresh], position, R)
            parts.append(contacts)
            rest[fresh[made]] = False
        a, b, limit = a[rest], b[rest], limit[rest]
    radius = np.zeros(len(model.vehicle)) if model.radius is None else model.radius
    if model.cylinders.size:  # an exact cylinder on either side: PhysX's convex-core contacts
        exact = np.isin(a, model.cylinders) | np.isin(b, model.cylinders)
        if exact.any():
            parts.append(_cylinder_pair_contacts(model, a[exact], b[exact], limit[exact], position, R, vertices))
            a, b, limit = a[~exact], b[~exact], limit[~exact]
    round_a, round_b = radius[a] > 0.0, radius[b] > 0.0
    both = round_a & round_b
    if both.any():
        parts.append(_round_pair_contacts(model, a[both], b[both], limit[both], vertices, radius))
    for first, other, own in ((a, b, ~round_b), (b, a, round_b & ~round_a)):
        # a polytope, or a round shape and a polytope, by the polytope test with the round one (if any) as its A:
        # body 0's shape first unless only body 1's is round
        sel = np.nonzero(own & ~both)[0]
        if not sel.size:
            continue
        A = world_polytopes(model.shapes, first[sel], vertices, R)
        B = world_polytopes(model.shapes, other[sel], vertices, R)
        made = polytope_contacts(A, B, first[sel], other[sel], limit[sel], single_sided=None, first_faces=True,
                                 radius=radius[first[sel]] if model.radius is not None else None)
        made = sphere_points_on_boxes(model, made, other[sel], model.boxes)
        if first is b:  # body 1's round shape was A: the normal turned towards body 0, the rows' roles swapped
            made = Contacts(made.static, made.shape, made.point, -made.normal, made.separation, made.pair)
        parts.append(made)
    parts = [part for part in parts if len(part)]
    out = Contacts.empty() if not parts else reduce_contacts(Contacts(*(
        np.concatenate([getattr(part, f) for part in parts]) for f in ("shape", "static", "point", "normal",
                                                                       "separation"))))
    if length_scale is not None and box_pairs is not None:
        out.manifolds = _record_box_pairs(model, box_pairs, kept_manifolds, out, position, orientation, R)
    return out


def _cylinder_pair_contacts(model: ContactModel, a: np.ndarray, b: np.ndarray, limit: np.ndarray, position: np.ndarray,
                            R: np.ndarray, vertices: np.ndarray) -> Contacts:
    """Pairs with an exact cylinder (rows `a` of body 0, `b` of body 1, either a cylinder), as PhysX's convex-core
    contacts make them (sim/py `cylinder_convexes`): the other shape where it stands
    (cylinder.shape_core; two cylinders: body 1's, the earlier vehicle's, PhysX's first shape, as for two boxes)."""
    first_is_cylinder = np.isin(a, model.cylinders)
    cylinder = np.where(first_is_cylinder, a, b)
    other = np.where(first_is_cylinder, b, a)
    cores = [shape_core(model, row, vertices, R, position, first=bool(of_body1))
             for row, of_body1 in zip(other, first_is_cylinder)]
    centre, axis, half, radius, turn = exact_cylinders(model, cylinder, R, position)
    pair, point, normal, separation = cylinder_convexes(centre, axis, half, radius, cores, limit,
                                                                         turn)
    # the normal from the other shape towards the cylinder: towards body 0 where the cylinder is body 0's
    normal = np.where(first_is_cylinder[pair][:, None], normal, -normal)
    return Contacts(a[pair], b[pair], point, normal, separation)


# PCM's capsule-capsule test: two segments this parallel (|cos|) meet at their ends' projections onto each other
_PARALLEL_CAPSULES = 0.9998

_COINCIDENT_SQ = 1e-6  # PCM's eps: a point pair nearer (squared) than this has no direction of its own


def _round_pair_contacts(model: ContactModel, a: np.ndarray, b: np.ndarray, limit: np.ndarray, vertices: np.ndarray,
                         radius: np.ndarray) -> Contacts:
    """Two round shapes (spheres or capsules, rows `a` of body 0 and `b` of body 1) as PhysX's PCM sphere-sphere,
    sphere-capsule and capsule-capsule tests meet them (GuPCMContactSphereSphere.cpp, ...SphereCapsule.cpp,
    ...CapsuleCapsule.cpp), called with the earlier vehicle's shape first (as two boxes, `_box_pair_contacts`) but a
    sphere always before a capsule: the closest points of the two cores, the separation less both radii, the normal
    from the second shape towards the first (the unit X axis where the cores meet); one point on the first shape's
    round surface (two spheres: on the second's); two capsules within _PARALLEL_CAPSULES of parallel take instead
    each end of either segment that projects onto the other (up to four points, in PCM's order: the second's ends on
    the first, then the first's on the second). The normal is then turned to point towards body 0."""
    def ends(rows):  # a capsule's ends as PhysX's (s: +axis, e: -axis; the reader's points are -axis, +axis)
        loops = model.shapes.loops[rows, 0]
        two = model.shapes.loop_counts[rows, 0] == 2
        e = vertices[rows, loops[:, 0]]
        return np.where(two[:, None], vertices[rows, loops[:, np.minimum(1, loops.shape[1] - 1)]], e), e, two

    # the first shape: the earlier vehicle's (b), unless it is a capsule and body 0's a sphere
    b_first = ~((model.shapes.loop_counts[b, 0] == 2) & (model.shapes.loop_counts[a, 0] == 1))
    x = np.where(b_first, b, a)
    y = np.where(b_first, a, b)
    (s0, e0, cap0), (s1, e1, cap1) = ends(x), ends(y)
    r0, r1 = radius[x], radius[y]
    d0, d1 = e0 - s0, e1 - s1
    reach = r0 + r1 + limit
    on0, on1 = segments_closest(s0, d0, s1, d1)
    aa = (d0 * d0).sum(1)
    t = np.clip(np.einsum("pj,pj->p", on1 - s0, d0) / np.maximum(aa, 1e-30), 0.0, 1.0)  # settle the first's point
    on0 = np.where((aa > 1e-30)[:, None], s0 + t[:, None] * d0, s0)
    gap = on0 - on1
    distance = np.linalg.norm(gap, axis=1)
    normal = np.where((distance ** 2 > _COINCIDENT_SQ)[:, None], gap / np.maximum(distance, 1e-30)[:, None],
                      np.array([1.0, 0.0, 0.0]))
    spheres = ~cap0 & ~cap1
    point = np.where(spheres[:, None], on1 + r1[:, None] * normal, on0 - r0[:, None] * normal)
    single = (distance < reach, point, normal, distance - r0 - r1)
    # parallel capsules: each end of either segment projected onto the other, kept where it lands on it
    u0 = d0 / np.maximum(np.sqrt(aa), 1e-30)[:, None]
    u1 = d1 / np.maximum(np.linalg.norm(d1, axis=1), 1e-30)[:, None]
    parallel = cap0 & cap1 & (np.abs(np.einsum("pj,pj->p", u0, u1)) > _PARALLEL_CAPSULES)
    candidates = []
    for end, seg_start, seg, on_first in ((s1, s0, d0, True), (e1, s0, d0, True), (s0, s1, d1, False),
                                          (e0, s1, d1, False)):
        length_sq = np.maximum((seg * seg).sum(1), 1e-30)
        tt = np.einsum("pj,pj->p", end - seg_start, seg) / length_sq
        projected = seg_start + tt[:, None] * seg
        v = projected - end if on_first else end - projected  # from the second shape's point to the first's
        sq = (v * v).sum(1)
        ok = parallel & (tt >= 0.0) & (tt <= 1.0) & (sq > _COINCIDENT_SQ) & (sq < reach ** 2)
        n = v / np.sqrt(np.maximum(sq, 1e-30))[:, None]
        first_point = projected if on_first else end
        candidates.append((ok, first_point - r0[:, None] * n, n, np.sqrt(sq) - r0 - r1))
    any_parallel = np.any([c[0] for c in candidates], axis=0)
    rows = [(single[0] & ~any_parallel,) + single[1:]] + candidates
    pair = np.concatenate([np.nonzero(ok)[0] for ok, *_ in rows])
    order = np.argsort(pair, kind="stable")  # by pair, each pair's points in PCM's order
    pick = lambda k: np.concatenate([value[ok] for ok, *values in rows for value in [values[k]]])  # noqa: E731
    pair = pair[order]
    point, normal, separation = pick(0)[order], pick(1)[order], pick(2)[order]
    towards_0 = np.where(b_first[pair], -1.0, 1.0)  # the first shape was body 1's: the normal flips
    return Contacts(a[pair], b[pair], point, normal * towards_0[:, None], separation, pair)


def _box_pair_contacts(model: ContactModel, a: np.ndarray, b: np.ndarray, limit: np.ndarray, position: np.ndarray,
                       R: np.ndarray) -> tuple[np.ndarray, Contacts]:
    """(which pairs made points, their contacts) of box shape rows `a` (body 0's) against box rows `b` (the earlier
    vehicle's), as PhysX's box-box test makes them (box.box_box) with the earlier vehicle's box its first shape:
    the points on body 0's box in PhysX's order, the normal (made from body 0 towards the earlier one) turned to
    point towards body 0. The reference face is the least overlap, the first of equals; two mirrored boxes nose to
    nose overlap equally but for rounding, which decides in PhysX too (float32: ovphysx's 8 m/s head-on took the
    earlier car's face, its 3 m/s head-on in centimetres the later's), so such an impact's small yaw may come out
    mirrored (the same magnitude)."""
    made, point, separation, valid, normal = box_box(*_placed_boxes(model, b, position, R),
                                                     *_placed_boxes(model, a, position, R), limit)
    p, q = np.nonzero(valid & made[:, None])
    return made, Contacts(a[p], b[p], point[p, q], -normal[p], separation[p, q], p)


def _placed_boxes(model: ContactModel, rows: np.ndarray, position: np.ndarray, R: np.ndarray):
    """The box shape rows' world centres (P, 3), axes (P, 3, 3: one per row) and half extents (P, 3)."""
    box = model.boxes.rows(rows)
    centre = np.einsum("pij,pj->pi", R[rows], box.centre) + position[:, model.vehicle[rows]].T
    return centre, np.einsum("pkj,pij->pki", box.axes, R[rows]), box.half


def _to_box(centre: np.ndarray, axes: np.ndarray, world: np.ndarray) -> np.ndarray:
    """World points (P, K, 3) in the boxes' frames (centre (P, 3), axes (P, 3, 3))."""
    return np.einsum("pkj,pqj->pqk", axes, world - centre[:, None, :])


def _from_box(centre: np.ndarray, axes: np.ndarray, local: np.ndarray) -> np.ndarray:
    """Points (P, K, 3) of the boxes' frames in the world."""
    return centre[:, None, :] + np.einsum("pqk,pkj->pqj", local, axes)


def _box_margins(model: ContactModel, a: np.ndarray, b: np.ndarray, length_scale: np.ndarray) -> np.ndarray:
    """PCM's margin of two boxes: the lesser of theirs (persistence.manifold_margin: a fraction of the smallest half
    extent, at most a fraction of the length scale, body 0's)."""
    inner = manifold_margins(model)["pcm_inner"]
    length = length_scale[model.vehicle[a]].astype(float)
    box = np.ones(len(a), bool)
    return np.minimum(manifold_margin(inner[a], box, length), manifold_margin(inner[b], box, length))


def _kept_box_pairs(model: ContactModel, a: np.ndarray, b: np.ndarray, limit: np.ndarray, previous: PairManifolds,
                    position: np.ndarray, orientation: np.ndarray, R: np.ndarray, length_scale: np.ndarray):
    """Which box pairs keep last step's manifold, as pcmContactBoxBox decides: the kept points re-measured along
    their normals from the current poses (refreshContactPoints), one drifted sideways farther than 0.8 margins
    dropped; a pair that lost a point, or whose A box moved in B's frame, or whose bodies turned, farther than
    invalidate_BoxConvex allows for the points it holds (sim/contact/persistence.py's polytope thresholds), is made
    anew. Returns (kept (P,) bool, the kept manifolds with their points re-measured, their contacts: on B's box, the
    normal turned with B and pointing towards body 0, those within the contact distance)."""
    N = len(model.vehicle)
    key, prev_key = a * N + b, previous.shape * N + previous.other
    at = np.minimum(np.searchsorted(prev_key, key), len(prev_key) - 1)
    found = prev_key[at] == key
    kept = np.zeros(len(a), bool)
    if not found.any():
        return kept, None, Contacts.empty()
    sel = np.nonzero(found)[0]
    pm = previous.subset(at[sel])
    ca, axes_a, half_a = _placed_boxes(model, b[sel], position, R)  # A: the earlier vehicle's box
    cb, axes_b, half_b = _placed_boxes(model, a[sel], position, R)
    margin = _box_margins(model, a[sel], b[sel], length_scale)
    on_a = _to_box(cb, axes_b, _from_box(ca, axes_a, pm.point_a))  # A's points in B's frame
    gap = on_a - pm.point_b
    distance = np.einsum("pqj,pqj->pq", gap, pm.normal)
    sideways = pm.point_b - (on_a - pm.normal * distance[..., None])
    held = np.arange(4)[None, :] < pm.count[:, None]
    dropped = held & ~(np.einsum("pqj,pqj->pq", sideways, sideways) <= (DRIFT * margin[:, None]) ** 2)
    count = np.minimum((held & ~dropped).sum(axis=1), len(POLYTOPE_MOVED) - 1)
    relative = _to_box(cb, axes_b, ca[:, None, :])[:, 0]
    moved = np.abs(relative - pm.relative).max(axis=1)
    limit_moved = POLYTOPE_MOVED[count] * margin
    turned = [np.einsum("jp,pj->p", orientation[:, model.vehicle[rows]].astype(float), stored)
              for rows, stored in ((a[sel], pm.orientation0), (b[sel], pm.orientation1))]
    travel = [np.arccos(np.clip(dq, -1.0, 1.0)) * np.linalg.norm(half, axis=1)
              for dq, half in zip(turned, (half_b, half_a))]
    # (written to hold only for numbers: a pose gone NaN, which the guard puts back, makes its points anew)
    valid = ~dropped.any(axis=1) & (moved <= limit_moved)
    for dq, far in zip(turned, travel):
        valid &= (dq >= POLYTOPE_TURNED[count]) & (far <= limit_moved)
    kept[sel[valid]] = True
    pm = pm.subset(valid)
    distance, cb, axes_b = distance[valid], cb[valid], axes_b[valid]
    normal = np.einsum("pqk,pkj->pqj", pm.normal, axes_b).sum(axis=1)  # PCM's world normal: the points' summed
    normal = -normal / np.linalg.norm(normal, axis=1, keepdims=True)  # ... turned with B, here towards body 0
    report = (np.arange(4)[None, :] < pm.count[:, None]) & (distance <= limit[sel[valid], None])
    p, q = np.nonzero(report)
    point = _from_box(cb, axes_b, pm.point_b)
    rows = sel[valid]
    return kept, pm, Contacts(a[rows][p], b[rows][p], point[p, q], normal[p], distance[p, q], p)


def _record_box_pairs(model: ContactModel, box_pairs: tuple, kept: PairManifolds | None, contacts: Contacts,
                      position: np.ndarray, orientation: np.ndarray, R: np.ndarray) -> PairManifolds:
    """The box pairs' manifolds after the step: the kept ones as they were, the ones made anew (every other box pair
    the broad phase found, with none or some of the step's reduced `contacts`) where the boxes are now, their points
    on both boxes."""
    a, b, _ = box_pairs
    N = len(model.vehicle)
    key = a * N + b
    if kept is not None and len(kept):
        fresh = ~np.isin(key, kept.shape * N + kept.other)
        a, b, key = a[fresh], b[fresh], key[fresh]
    ca, axes_a, _ = _placed_boxes(model, b, position, R)
    cb, axes_b, _ = _placed_boxes(model, a, position, R)
    M = len(a)
    point_a, point_b, normal = np.zeros((M, 4, 3)), np.zeros((M, 4, 3)), np.zeros((M, 4, 3))
    count = np.zeros(M, np.int64)
    mine = np.isin(contacts.shape * N + contacts.static, key)
    c = np.nonzero(mine)[0]
    if c.size:
        m = np.searchsorted(key, contacts.shape[c] * N + contacts.static[c])
        slot = np.arange(c.size) - np.searchsorted(m, m)  # (contacts come grouped by pair, in key order)
        ok = slot < 4
        c, m, slot = c[ok], m[ok], slot[ok]
        n = -contacts.normal[c]  # PCM's: from B (body 0's box) towards A
        on_b = contacts.point[c]
        on_a = on_b + n * contacts.separation[c][:, None]
        point_b[m, slot] = np.einsum("pkj,pj->pk", axes_b[m], on_b - cb[m])
        point_a[m, slot] = np.einsum("pkj,pj->pk", axes_a[m], on_a - ca[m])
        normal[m, slot] = np.einsum("pkj,pj->pk", axes_b[m], n)
        np.add.at(count, m, 1)
    made = PairManifolds(model.vehicle[a], a, b, _to_box(cb, axes_b, ca[:, None, :])[:, 0],
                         orientation[:, model.vehicle[a]].T.astype(float),
                         orientation[:, model.vehicle[b]].T.astype(float), count, point_a, point_b, normal)
    if kept is not None and len(kept):
        made = PairManifolds(*(np.concatenate([getattr(made, f.name), getattr(kept, f.name)])
                               for f in fields(PairManifolds)))
    return made.subset(np.argsort(made.shape * N + made.other, kind="stable"))
