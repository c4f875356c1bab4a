"""Broad phases: which pairs the narrow phases meet. Against the static world (`static_candidates`): each shape's
world box, grown by its contact distance, against the ground planes (skipped while a vehicle stays quiet above them,
`_plane_candidates`), the static polytopes' boxes and the triangles the ground's TriangleGrid finds under it. Between
vehicles (`candidate_pairs`): one sort and sweep of the shapes' boxes grown by their contact offsets
(`sweep_overlaps`), kept quiet while no body has moved a tenth of QUIET_MARGIN."""
from __future__ import annotations

import ctypes
import math

import numpy as np

from .. import compiled_begin, compiled_mesh, compiled_placement, compiled_sweep
from .. import vecmath as vm
from ..ground import Ground
from ..motion import Motion, reference_arguments
from .model import ContactModel
from .placement import shape_boxes, shape_reach, step_boxes, world_boxes

# the candidates of a quiet step (no plane near any vehicle): shared and read-only, as a fleet on flat ground away from
# everything has none most steps (world.generate returns at once, before anything could write into them)
_NO_ROWS = np.zeros(0, np.int64)
_NO_ROWS.flags.writeable = False


def _near_planes(model: ContactModel, ground: Ground, R: np.ndarray, centre: list, slack: np.ndarray,
                 rows: np.ndarray | None = None):
    """Per plane, the shape rows (of `rows`, all where None; R, centre and slack are theirs, `shape_boxes`) whose box
    comes nearer to it than the contact distance, and every row's clearance: how far its box's lowest point lies
    beyond that distance."""
    h = model.box_half if rows is None else model.box_half[:, rows]
    out = []
    for k in range(ground.plane_normals.shape[0]):
        n, d = [float(v) for v in ground.plane_normals[k]], float(ground.plane_offsets[k])
        turned = [R[0, j] * n[0] + R[1, j] * n[1] + R[2, j] * n[2] for j in range(3)]  # the normal in the body frame
        lowest = (centre[0] * n[0] + centre[1] * n[1] + centre[2] * n[2] + d
                  - (np.abs(turned[0]) * h[0] + np.abs(turned[1]) * h[1] + np.abs(turned[2]) * h[2]))
        clearance = lowest - slack - (model.plane_limit[k] if rows is None else model.plane_limit[k, rows])
        near = np.nonzero(clearance < 0.0)[0]
        out.append((near if rows is None else rows[near], clearance))
    return out


# On a ground of planes alone, a vehicle whose shapes' boxes were all clear of every plane by c at a reference pose
# comes no nearer than the contact distance while its body has moved towards a plane and turned by less: a box's
# lowest point along a normal n moves by |dx . n| (taken as |n| . |dx|, exact for a level plane) plus the turn's
# angle times the box's reach from the body (|centre| + |half extents|), and its rounding slack by 1e-6 of the
# centre's change. Those vehicles skip the test (a fleet on flat ground touching nothing tests no box, and where the
# whole fleet's bounds (sim/motion.Motion.bounds) clear the smallest clearance, measures no vehicle either); the others
# are tested, and their reference pose and clearance refreshed. The shapes that follow a wheel change their boxes in the
# body: their vehicles are tested every step. On the compiled path the step's begin answers `quiet_above_planes` in its
# own C call, from the pose it reads anyway (`begin_check` hands it the reference; sim/_step_begin.c): the same float64
# arithmetic, the same answer; the Python form stays the reference, and answers where the begin says no.
def quiet_above_planes(model: ContactModel, ground: Ground, motion: Motion) -> bool:
    """Whether a step's static broad phase is sure to find nothing (`_plane_candidates`'s first answer) before
    anything else is asked: a ground of planes alone, no shape following a wheel, a reference pose already kept and
    the whole fleet's motion since it clear of the smallest clearance. The pipeline asks it first, so that a car on
    flat ground touching nothing pays for this test alone (`world.generate` would answer the same, later)."""
    quiet = model.cache.get("planes_quiet")
    # (a kept reference means a ground of planes alone: `_plane_candidates` keeps one there only, and only where the
    # ground has a plane)
    return (quiet is not None and quiet["ground"] is ground and quiet["always"] is None
            and model.static_shapes is None and ground.grid is None and model.static_rounds is None
            and quiet["position"].shape[1] == motion.position.shape[1] and _fleet_clear(quiet, motion))


def begin_check(model: ContactModel, ground: Ground, V: int) -> int | None:
    """The planes' quiet reference for a step's compiled begin (compiled_begin.begin's `quiet`: the address of a
    `compiled_begin.PlanesQuiet`), which answers `quiet_above_planes` in its call; None where that question would not
    be asked of the reference (`quiet_above_planes`' conditions), none is kept, or the extension is not built. Made
    once per reference `_plane_candidates` keeps (it drops it where it refreshes the reference)."""
    quiet = model.cache.get("planes_quiet")
    if quiet is None or quiet["ground"] is not ground:
        return None
    check = quiet.get("begin")
    if check is None:
        check = quiet["begin"] = _begin_check(model, ground, quiet)
    return check[1] if check[0] == V else None


def _begin_check(model: ContactModel, ground: Ground, quiet: dict) -> tuple:
    """(V, the PlanesQuiet's address, what it points into) of `begin_check`; (-1, None) where there is none."""
    if (not compiled_begin.available() or "position" not in quiet or quiet["always"] is not None
            or model.static_shapes is not None or ground.grid is not None or model.static_rounds is not None):
        return -1, None
    arrays = quiet["position"], quiet["orientation"], quiet["weights"]
    V, weights = arrays[0].shape[1], arrays[2]
    # the reference as the motion pass reads it (float32 copies where every value is a float32's: the same values from
    # half the memory, which a step reads cold); the arguments hold the copies, so they are kept with the struct
    pose = reference_arguments(arrays[0], arrays[1], V)
    if (pose is None or weights.dtype != np.float64 or not weights.flags.c_contiguous or weights.ndim != 2
            or weights.shape[1] != 3 or not len(weights)):
        return -1, None
    check = compiled_begin.PlanesQuiet(pose[0], pose[1], weights.ctypes.data, len(weights), pose[2],
                                       quiet["reach_max"], quiet["clearance_min"], vm.turn_from_cosine(1.0))
    return V, ctypes.addressof(check), check, arrays, pose


def share_planes_motion(model: ContactModel, motion: Motion) -> None:
    """Give `motion` the bounds since the planes' quiet reference from the reductions the compiled begin of its pose
    took, handed the reference by `begin_check` (compiled_begin.motion_reductions): the other quiet phases that share
    the reference then measure nothing (a fleet's; a lone body's bounds are its own floats')."""
    if motion.position.shape[1] > 1:
        quiet = model.cache["planes_quiet"]
        reductions = compiled_begin.motion_reductions(quiet["begin"][2])
        if reductions is not None:
            motion.measured(quiet["position"], quiet["orientation"], reductions)


def _fleet_clear(quiet: dict, motion: Motion) -> bool:
    """Whether the whole fleet's bounds since the planes' reference pose (`Motion.bounds`) clear the smallest
    clearance: the largest move towards a plane, (|n| + 1e-6) . |dx|, plus the largest turn times the largest reach.
    A lone body's bounds are taken here in Python floats, its reference pose kept as floats (`_lone_reference`: the
    same arithmetic as motion._lone_bounds, without its calls)."""
    if motion.position.shape[1] != 1:
        bounds = motion.bounds(quiet["position"], quiet["orientation"])
        ax, ay, az = bounds.along
        turn = bounds.turn
    else:
        lone = quiet.get("lone")
        if lone is None or lone[0] is not quiet["position"] or lone[1] is not quiet["orientation"]:
            lone = quiet["lone"] = _lone_reference(quiet)
        _, _, x0, y0, z0, rw, rx, ry, rz = lone
        (x,), (y,), (z,) = motion.position.tolist()
        (qw,), (qx,), (qy,), (qz,) = motion.orientation.tolist()
        ax, ay, az = abs(x - x0), abs(y - y0), abs(z - z0)
        cosine = qw * rw + qx * rx + qy * ry + qz * rz
        if not math.isfinite(ax + ay + az + cosine):
            return False  # (infinite bounds: never quiet)
        turn = vm.turn_from_cosine(abs(cosine))
    rows = quiet["weight_rows"]
    if len(rows) == 1:  # (one plane, the usual ground: its move without a generator's)
        (wx, wy, wz), = rows
        towards = wx * ax + wy * ay + wz * az
    else:
        towards = max(wx * ax + wy * ay + wz * az for wx, wy, wz in rows)
    return towards + turn * quiet["reach_max"] < quiet["clearance_min"]


def _lone_reference(quiet: dict) -> tuple:
    """A lone body's reference pose of the planes' quiet as floats: (its arrays, then x, y, z, w, x, y, z)."""
    (x,), (y,), (z,) = quiet["position"].tolist()
    return (quiet["position"], quiet["orientation"], x, y, z, *(v for (v,) in quiet["orientation"].tolist()))


def _plane_candidates(model: ContactModel, ground: Ground, motion: Motion):
    """`static_candidates` on a ground of planes alone, at the poses of `motion`: the rows per plane, and the rotations
    (3, 3, N) of the rows tested (NaN for the others, which are no plane's candidates; None where none was tested)."""
    position, orientation = motion.position, motion.orientation
    V, N = orientation.shape[1], len(model.vehicle)
    if not len(ground.plane_normals):
        return [], None
    quiet = model.cache.get("planes_quiet")
    if quiet is None or quiet["ground"] is not ground or quiet["position"].shape[1] != V:
        following = model.cache["following_rows"]
        always = None if not following.size else np.isin(np.arange(V), model.vehicle[following])
        reach = shape_reach(model, V) * (1.0 + 3e-6)  # with the slack's growth as the box turns
        quiet = model.cache["planes_quiet"] = {
            "ground": ground, "reach": reach, "reach_max": float(reach.max()), "always": always,
            "weights": np.abs(ground.plane_normals) + 1e-6}  # (|n| + the slack's 1e-6) . |dx|
        quiet["weight_rows"] = quiet["weights"].tolist()
        test = None  # (every vehicle)
    else:
        if quiet["always"] is None and _fleet_clear(quiet, motion):
            return [_NO_ROWS] * len(ground.plane_normals), None
        change, turn = motion.since(quiet["position"], quiet["orientation"])
        moved = (quiet["weights"] @ np.abs(change)).max(axis=0) + turn * quiet["reach"]
        test = moved >= quiet["clearance"]
        if quiet["always"] is not None:
            test |= quiet["always"]
        if not test.any():
            return [_NO_ROWS] * len(ground.plane_normals), None
    if N == 1 and V == 1:  # a lone body and shape, as one car's: its clearance in Python floats where it is clear
        lone = _lone_clearance(model, ground, position, orientation)
        if lone is not None:
            clearance = np.array([lone[0]]) - 1e-9 * (1.0 + np.abs(position).sum(axis=0))  # rounding, as below
            (quiet["position"], quiet["orientation"]), quiet["clearance"] = motion.reference(), clearance
            quiet["clearance_min"] = float(clearance[0])
            quiet.pop("begin", None)  # (the compiled begin's copy of the reference: made again)
            quiet["lone"] = (quiet["position"], quiet["orientation"], *lone[2])  # (`_lone_reference`'s, from its floats)
            return [_NO_ROWS] * len(ground.plane_normals), np.array(lone[1])[:, :, None]  # (tested: its rotation)
    if test is None or test.all():  # (the step's boxes: the other broad phases of the step take the same)
        boxes = step_boxes(model, motion)
        R, centre, slack = boxes.R, boxes.centre, boxes.slack
        rows, R_tested = None, R
    else:
        rows = np.nonzero(test[model.vehicle])[0]
        R_tested, centre, slack = shape_boxes(model, position, orientation, rows)
        R = np.full((3, 3, N), np.nan)
        R[:, :, rows] = R_tested
    near = _near_planes(model, ground, R_tested, centre, slack, rows)
    clearance = np.full(V, np.inf)
    for _, row_clearance in near:
        np.minimum.at(clearance, model.vehicle if rows is None else model.vehicle[rows], row_clearance)
    clearance -= 1e-9 * (1.0 + np.abs(position).sum(axis=0))  # rounding
    if rows is None:  # every vehicle from this pose: the step's shared reference arrays
        (quiet["position"], quiet["orientation"]), quiet["clearance"] = motion.reference(), clearance
    else:  # new arrays, the reference being shared (`Motion`)
        ref_position, ref_orientation = motion.reference()
        quiet["position"] = np.where(test, ref_position, quiet["position"])
        quiet["orientation"] = np.where(test, ref_orientation, quiet["orientation"])
        quiet["clearance"] = np.where(test, clearance, quiet["clearance"])
    quiet["clearance_min"] = float(quiet["clearance"].min())
    quiet.pop("begin", None)  # (the compiled begin's copy of the reference: made again)
    return [found for found, _ in near], R


def _lone_clearance(model: ContactModel, ground: Ground, position: np.ndarray, orientation: np.ndarray):
    """The clearance of a lone body's one shape above the ground's planes (`_near_planes`'s, the smallest over the
    planes, before the rounding margin) in Python floats: shape_boxes's rotation (vecmath.quat_to_mat_floats),
    centre and slack, and `_near_planes`'s sums, each in numpy's order, so the same float64 numbers; with the rotation
    (rows of floats) and the pose's floats; None where the box comes nearer to a plane than the contact distance or a
    value is not finite (then the arrays decide)."""
    (x,), (y,), (z,) = position.tolist()
    (w,), (qx,), (qy,), (qz,) = orientation.tolist()
    R = vm.quat_to_mat_floats(w, qx, qy, qz)
    (c0,), (c1,), (c2,) = model.box_centre.tolist()
    (h0,), (h1,), (h2,) = model.box_half.tolist()
    centre = [r[0] * c0 + r[1] * c1 + r[2] * c2 + t for r, t in zip(R, (x, y, z))]
    slack = 1e-6 * (1.0 + abs(centre[0]) + abs(centre[1]) + abs(centre[2]) + h0 + h1 + h2)
    clearance = math.inf
    for (n0, n1, n2), d, (limit,) in zip(ground.plane_normals.tolist(), ground.plane_offsets.tolist(),
                                         model.plane_limit.tolist()):
        t0, t1, t2 = (R[0][j] * n0 + R[1][j] * n1 + R[2][j] * n2 for j in range(3))
        lowest = (centre[0] * n0 + centre[1] * n1 + centre[2] * n2 + d
                  - (abs(t0) * h0 + abs(t1) * h1 + abs(t2) * h2))
        plane = lowest - slack - limit
        if not plane >= 0.0:  # near it, or NaN (which numpy's minimum would keep)
            return None
        clearance = min(clearance, plane)
    return (clearance, R, (x, y, z, w, qx, qy, qz)) if math.isfinite(clearance) else None


def static_candidates(model: ContactModel, ground: Ground, position: np.ndarray, orientation: np.ndarray,
                      motion: Motion | None = None, threads: int = 1):
    """The broad phase, from each shape's box turned with its body (no vertex moved): per plane the shapes whose box
    comes nearer to it than the contact distance, the (shape, triangle) pairs whose world boxes, grown by the contact
    distance, overlap (the ground's triangle grid), the (shape, static polytope) pairs whose boxes overlap (found among
    the grid's candidates for the polytope's faces, which it holds as triangles); and the shape rotations (3, 3,
    N). threads: the compiled pairs' threads (the same pairs for any count)."""
    if model.static_shapes is None and ground.grid is None and model.static_rounds is None:
        # planes alone: the vehicles clear of them skip the test
        planes, R = _plane_candidates(model, ground, Motion(position, orientation) if motion is None else motion)
        if R is None:  # quiet: no plane near any vehicle
            return planes, (_NO_ROWS,) * 2, (_NO_ROWS,) * 2, R
        return planes, (np.zeros(0, np.int64),) * 2, (np.zeros(0, np.int64),) * 2, R
    R, centre, slack, lo, hi = world_boxes(model, position, orientation, model.reach)
    planes = [rows for rows, _ in _near_planes(model, ground, R, centre, slack)] if len(ground.plane_normals) else []
    hull_pairs = tri_pairs = (np.zeros(0, np.int64), np.zeros(0, np.int64))
    compiled = None if ground.grid is None else _compiled_static_pairs(model, ground, lo, hi, threads)
    if compiled is not None:  # the meshes' pairs and the polytopes', as below, in one call
        tri_pairs, hull_pairs = compiled
    elif ground.grid is not None:  # meshes and the static polytopes' faces (as triangles): the grid's pairs
        shape, tri, static = static_mesh_pairs(model, ground, lo, hi)
        first = model.polytope_first
        polytope_face = static >= first
        tri_pairs = (shape[~polytope_face], tri[~polytope_face])
        if polytope_face.any():  # a pair per shape and polytope whose face boxes it meets, in (shape, polytope) order
            H = len(model.static_index)
            key = np.unique(shape[polytope_face] * H + (static[polytope_face] - first))
            hull_pairs = (key // H, key % H)
    elif model.static_shapes is not None:
        near = ((lo[:, None] <= model.static_hi[None]) & (hi[:, None] >= model.static_lo[None])).all(-1)
        near &= model.collides[:, model.static_index]
        hull_pairs = np.nonzero(near)
    return planes, hull_pairs, tri_pairs, R


def _ground_box(model: ContactModel, ground: Ground) -> None:
    """Keep the box of the ground's triangles in the model's cache (lo, hi; bounds: both, (6,))."""
    if model.cache.get("ground") is not ground:
        box = ground.grid.triangle_boxes
        lo, hi = box[:3].min(axis=1), box[3:].max(axis=1)
        model.cache.update(ground=ground, lo=lo, hi=hi, bounds=np.concatenate((lo, hi)), mesh_boxes=None)


def _inside_ground(model: ContactModel, ground: Ground, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The shapes whose boxes lo, hi (N, 3) overlap the box of the ground's triangles."""
    _ground_box(model, ground)
    return np.nonzero(((lo <= model.cache["hi"]) & (hi >= model.cache["lo"])).all(axis=1))[0]


def _compiled_static_pairs(model: ContactModel, ground: Ground, lo: np.ndarray, hi: np.ndarray, threads: int = 1):
    """`static_candidates`' triangle pairs and polytope pairs of the boxes lo, hi (N, 3), compiled
    (compiled_mesh.static_pairs: those of `static_mesh_pairs_numpy` and the split below, in their order); None where
    the C code does not cover the call."""
    prepared = _static_pairs_call(model, ground)
    return None if prepared is None else prepared(lo, hi, threads)


def _static_pairs_call(model: ContactModel, ground: Ground) -> compiled_mesh.StaticPairs | None:
    """`_compiled_static_pairs`' prepared call (None: the C code does not cover it), kept in the model's cache while
    the ground and the model's filter and static shapes are the same arrays."""
    kept = model.cache.get("static_pairs")
    if kept is None or kept[0] is not ground or kept[1] is not model.collides or kept[2] is not model.static_index:
        _ground_box(model, ground)
        prepared = compiled_mesh.StaticPairs.of(
            ground.grid, model.cache["bounds"], _mesh_boxes(model, ground),
            np.ascontiguousarray(model.collides), model.plane_count, model.polytope_first, len(model.static_index))
        kept = model.cache["static_pairs"] = (ground, model.collides, model.static_index, prepared)
    return kept[3]


def prepare_static_candidates(model: ContactModel, ground: Ground) -> None:
    """Make what `static_candidates` keeps of the model and the ground at its first calls (the compiled static pairs'
    call and the world boxes' words), on a ground with a triangle grid: the same candidates, without a fleet's first
    steps paying for them."""
    if ground.grid is not None:
        _static_pairs_call(model, ground)
        compiled_placement.keep(model.vehicle, model.box_centre, model.box_half, model.reach)


def _mesh_boxes(model: ContactModel, ground: Ground) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the compiled pairs: each triangle's mesh, whether each mesh is a static polytope, and its box (M, 6)."""
    if model.cache.get("mesh_boxes") is None:
        M = len(ground.mesh_materials)
        static = model.plane_count + np.arange(M)
        polytope = static >= model.polytope_first
        box = np.zeros((M, 6))
        if polytope.any():
            box[polytope, :3] = model.static_lo[static[polytope] - model.polytope_first]
            box[polytope, 3:] = model.static_hi[static[polytope] - model.polytope_first]
        model.cache["mesh_boxes"] = (ground.tri_shape, polytope, box)
    return model.cache["mesh_boxes"]


def static_mesh_pairs(model: ContactModel, ground: Ground, lo: np.ndarray, hi: np.ndarray):
    """The (shape, triangle, static column) triples of the shapes with boxes lo, hi (N, 3) and the ground's triangles
    (meshes' and static polytopes' faces) whose boxes overlap and which may collide; compiled (sim/compiled_mesh.py)
    where the extension is loaded: the triples of `static_mesh_pairs_numpy`, in its order."""
    inside = _inside_ground(model, ground, lo, hi)
    compiled = compiled_mesh.grid_pairs(ground.grid, lo[inside], hi[inside], overlap=True,
                                        mesh_boxes=_mesh_boxes(model, ground)) if inside.size else None
    if compiled is None:
        return static_mesh_pairs_numpy(model, ground, lo, hi)
    shape, tri = inside[compiled[0]], compiled[1]
    static = model.plane_count + ground.tri_shape[tri]
    ok = model.collides[shape, static]
    return shape[ok], tri[ok], static[ok]


def static_mesh_pairs_numpy(model: ContactModel, ground: Ground, lo: np.ndarray, hi: np.ndarray):
    """`static_mesh_pairs` in numpy (the reference): the grid's candidates, then the boxes and the collision filter."""
    inside = _inside_ground(model, ground, lo, hi)
    if not inside.size:
        return (np.zeros(0, np.int64),) * 3
    query, tri = ground.grid.numpy_pairs(lo[inside], hi[inside])
    shape = inside[query]
    static = model.plane_count + ground.tri_shape[tri]
    first = model.polytope_first
    polytope_face = static >= first
    # a mesh triangle by its own box; a polytope's face by the polytope's box, so that a shape wholly inside it, near
    # none of its faces, is found (the grid lists a face in every cell its projection covers, and the projections of
    # a polytope's faces cover the polytope's: the pair is among the grid's candidates)
    box_lo, box_hi = ground.grid.box(tri)
    if polytope_face.any():
        box_lo[polytope_face] = model.static_lo[static[polytope_face] - first]
        box_hi[polytope_face] = model.static_hi[static[polytope_face] - first]
    ok = ((box_lo <= hi[shape]) & (box_hi >= lo[shape])).all(axis=1) & model.collides[shape, static]
    return shape[ok], tri[ok], static[ok]


def candidate_pairs(model: ContactModel, position: np.ndarray, orientation: np.ndarray, motion: Motion | None = None):
    """The broad phase between vehicles (see pairs.py's docstring): shape rows (a, b), a > b, of two vehicles whose
    world boxes, grown by their contact offsets, overlap and whose pair may collide; and the shapes' rotations (3, 3,
    N). motion: the step's `Motion` of these poses (made here where not given)."""
    pairs = model.pairs
    none = np.zeros(0, np.int64)
    quiet = pairs.quiet
    motion = Motion(position, orientation) if motion is None else motion
    if motion.within(quiet):
        return (none, none), None
    boxes = step_boxes(model, motion)  # (the step's: the other broad phases of the step take the same)
    R, centre = boxes.R, boxes.centres()
    half = boxes.turned_half(model) + (pairs.contact_offset + boxes.slack)[:, None]  # (world_boxes's arithmetic)
    lo, hi = centre - half, centre + half
    margin = QUIET_MARGIN * float(pairs.contact_offset.max())
    a, b = sweep_overlaps(lo - margin, hi + margin, boxes.spread_axes())
    for key in ("position", "orientation", "margin"):
        quiet.pop(key, None)
    if not a.size:  # no pair within the margin: none can appear until a body has moved by it
        quiet.update(zip(("position", "orientation"), motion.reference()), margin=margin)
        if "reach" not in quiet:
            quiet["reach"] = shape_reach(model, len(position[0]))
        return (none, none), R
    keep = ((lo[a] <= hi[b]) & (lo[b] <= hi[a])).all(axis=1)
    keep &= model.vehicle[a] != model.vehicle[b]
    a, b = np.maximum(a, b)[keep], np.minimum(a, b)[keep]  # body 0: the later vehicle (pairs.py's docstring)
    if a.size:
        keep = pairs.collide(a, b)
        a, b = a[keep], b[keep]
    if pairs.filtered and a.size:
        keep = np.array([(int(y), int(x)) not in pairs.filtered for x, y in zip(a, b)], bool)
        a, b = a[keep], b[keep]
    order = np.lexsort((b, a))
    return (a[order], b[order]), R


# The broad phase's quiet margin, in contact offsets (about 0.2 m for the sample car): boxes grown by it that meet no
# other box let the following steps skip the broad phase while no body has moved by as much against the others: its
# shapes' farthest point moved by the position's change less a shift common to all (any common shift leaves every
# two bodies' relative motion under twice the largest remainder), plus the turn's angle times the shapes' reach
# from the body. A fleet driving side by side stays quiet.
QUIET_MARGIN = 10.0


def sweep_overlaps(lo: np.ndarray, hi: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`sweep_overlaps_numpy`'s pairs, in its order: compiled (sim/compiled_sweep.py) where the extension is built."""
    compiled = compiled_sweep.sweep_overlaps(lo, hi, int(axes[0]), int(axes[1]))
    return sweep_overlaps_numpy(lo, hi, axes) if compiled is None else compiled


def sweep_overlaps_numpy(lo: np.ndarray, hi: np.ndarray, axes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sort and sweep in strips: boxes (N, 3) whose extents overlap along axes[0] and that share a strip across
    axes[1] (strips as wide as the widest box along it: a box lies in one strip or two), as box index pairs, each
    once, in no particular order. Sorted by (strip, low end along axes[0]), each entry meets the entries after it
    in its strip whose low end lies below its high end: a binary search on one composite key per entry."""
    sweep, across = int(axes[0]), int(axes[1])
    width = float((hi[:, across] - lo[:, across]).max())
    base = float(lo[:, across].min())
    first = np.floor((lo[:, across] - base) / width).astype(np.int64) if width > 0 else np.zeros(len(lo), np.int64)
    last = np.floor((hi[:, across] - base) / width).astype(np.int64) if width > 0 else first
    two = np.nonzero(last > first)[0]
    box = np.concatenate([np.arange(len(lo)), two])
    strip = np.concatenate([first, last[two]])
    span = float(hi[:, sweep].max() - lo[:, sweep].min()) + 1.0  # one strip's stretch of the composite key
    start = lo[box, sweep] - lo[:, sweep].min()
    key = strip * span + start
    order = np.argsort(key, kind="stable")
    key, box, strip = key[order], box[order], strip[order]
    end = strip * span + (hi[box, sweep] - lo[:, sweep].min())
    E = len(order)
    count = np.maximum(np.searchsorted(key, end, side="right") - np.arange(E) - 1, 0)
    total = int(count.sum())
    if not total:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    i = np.repeat(np.arange(E), count)
    j = i + 1 + np.arange(total) - np.repeat(np.cumsum(count) - count, count)
    a, b = box[i], box[j]
    if two.size:  # two boxes both in two strips meet twice
        a, b = np.minimum(a, b), np.maximum(a, b)
        pair = np.sort(a * len(lo) + b)
        pair = pair[np.r_[True, pair[1:] != pair[:-1]]]  # (np.unique's answer: sorted, each once, at a tenth its cost)
        a, b = pair // len(lo), pair % len(lo)
    return a, b
