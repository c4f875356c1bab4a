"""A step's contacts of the vehicles' shapes with the static world (`generate`): the broad phase's pairs met by the
narrow phase of their shapes' family (planes, boxes, polytopes and triangles, exact cylinders, spheres and
capsules), reduced to PhysX's manifolds, PCM's kept points re-measured where the shapes have moved little."""
from __future__ import annotations

import functools

import numpy as np

from .. import compiled_bookkeeping, compiled_manifolds
from ..ground import Ground
from ..motion import Motion
from . import round_shapes, steady
from .box import box_box
from .broad import prepare_static_candidates, static_candidates
from .cylinder import (
    cylinder_convex_contacts,
    cylinder_mesh_contacts,
    cylinder_round_contacts,
    static_cylinder_contacts,
)
from .geometry import SAME_NORMAL
from .model import ContactModel
from .persistence import Persistence
from .persistence import prepare_tables as prepare_persistence_tables
from .placement import cylinder_world_ends, placed_rotations, shape_radius, world_vertices
from .plane import plane_contacts
from .polytopes import polytope_rows, triangle_polytopes, world_polytopes
from .records import Contacts, Manifolds
from .reduction import MAX_POINTS, MESH_PATCH_POINTS, reduce_contacts
from .round_shapes import sphere_points_on_boxes
from .separating_axes import polytope_contacts


def generate(model: ContactModel, ground: Ground, position: np.ndarray, orientation: np.ndarray,
             previous: "Manifolds | None" = None, length_scale: np.ndarray | None = None,
             motion: Motion | None = None, threads: int = 1) -> Contacts:
    """The contacts of every vehicle shape at the body poses position (3, V), orientation (4, V). Only the shapes the
    broad phase (`static_candidates`) keeps have their vertices moved: a fleet on flat ground touching nothing pays for
    a motion bound per vehicle (`_plane_candidates`), and nothing more. With the vehicles' length scales (V,), the
    pairs that keep PCM's persistent manifolds (sim/contact/persistence.py) re-measure the points `previous` kept where
    they have moved little, and the contacts carry the manifolds to keep (`Contacts.manifolds`); without, every contact
    is made anew. motion: the step's sim/motion.Motion of these poses; threads: the broad phase's (the same contacts for
    any count). A step steady as the last (every pair keeping its points, or no candidate) is made in one compiled call
    (sim/contact/steady.py), the same contacts."""
    if length_scale is not None:  # (a steady step, as the last: made in one call)
        out = steady.contacts(model, ground, position, orientation, previous, length_scale, threads)
        if out is not None:
            return out
    planes, (hull_shape, hull), (tri_shape, tri), R_all = static_candidates(model, ground, position, orientation, motion,
                                                                            threads)
    if R_all is None and model.static_rounds is None:  # no shape tested: quiet above the planes (or none)
        return Contacts.empty()
    rounds = (round_shapes.candidates(model, position, orientation) if model.static_rounds is not None
              else _NO_ROUNDS)
    if not (hull_shape.size or tri_shape.size or rounds[0].size or any(rows.size for rows in planes)):
        if length_scale is not None:
            steady.prepare_quiet(model, ground, planes, (hull_shape, hull), (tri_shape, tri), rounds, position)
        return Contacts.empty()  # near nothing: no contact, and no manifold kept (a pair out of the broad phase ends)
    persistence = None
    if length_scale is not None:

        persistence = Persistence(model, ground, planes, (hull_shape, hull), (tri_shape, tri), rounds, R_all,
                                  position, orientation, length_scale, previous, reduction=kept_point_reduction(model))
        if persistence.reduced is not None:  # every pair kept its points, reduced with them: the step's contacts
            steady.prepare(model, ground, persistence, planes, (hull_shape, hull), (tri_shape, tri), rounds, position)
            return persistence.reduced
        planes, (hull_shape, hull), (tri_shape, tri) = persistence.planes, persistence.hull_pairs, persistence.tri_pairs
        rounds = persistence.round_pairs
    parts = _made(model, ground, planes, hull_shape, hull, tri_shape, tri, R_all, position, rounds)
    if persistence is not None:
        parts.append(persistence.kept)
    parts = [p for p in parts if len(p)]
    if not parts:
        out = Contacts.empty()
    else:
        if len(parts) == 1:  # (the parts are the step's own: one is taken as it is)
            one = parts[0]
            out = Contacts(one.shape, one.static, one.point, one.normal, one.separation)
        else:
            out = Contacts(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))
        out = reduce_contacts(out, patch_points(model, out))
    if persistence is not None:
        out.manifolds = persistence.record(out)
    return out


# the contacts' fields a step's parts join; no static sphere or capsule candidate (read-only, shared)
_FIELDS = ("shape", "static", "point", "normal", "separation")
_NO_ROUND = np.zeros(0, np.int64)
_NO_ROUND.flags.writeable = False
_NO_ROUNDS = (_NO_ROUND, _NO_ROUND)


def patch_points(model: ContactModel, c: Contacts) -> np.ndarray:
    """(C,) how many points each contact's patch keeps whole: MESH_PATCH_POINTS for a convex shape on a triangle mesh,
    MAX_POINTS otherwise. Read from `_patch_point_table` where the model has one (one look-up, not some six small
    numpy calls), else worked out (`patch_points_numpy`)."""
    table = _patch_point_table(model)
    return patch_points_numpy(model, c.shape, c.static) if table is None else table[c.shape, c.static]


def patch_points_numpy(model: ContactModel, shape: np.ndarray, static: np.ndarray) -> np.ndarray:
    """`patch_points` of contacts' shape rows and static shapes, worked out in numpy: the reference."""
    on_mesh = (static >= model.plane_count) & (static < model.polytope_first)
    if model.radius is not None:
        on_mesh &= model.radius[shape] == 0.0
    if model.cylinders.size:  # an exact cylinder's patches are PhysX's convex-core patches: four points at most
        on_mesh &= ~np.isin(shape, model.cylinders)
    return np.where(on_mesh, MESH_PATCH_POINTS, MAX_POINTS)


# the most (shape row, static shape) entries `_patch_point_table` holds (a fleet's larger model works it out per step)
_PATCH_TABLE_ENTRIES = 1 << 16


def _patch_point_table(model: ContactModel) -> np.ndarray | None:
    """`patch_points_numpy` every (shape row, static shape) of the model, (N, G) read-only, kept in the model's cache
    while what it reads is the same (the radii array, the cylinder rows' values: a posed model, which shares the cache,
    lists them anew; the column bounds); None where the model has more entries than _PATCH_TABLE_ENTRIES."""
    N, G = model.collides.shape
    if N * G > _PATCH_TABLE_ENTRIES:
        return None
    sources = (model.radius, model.cylinders.tobytes(), model.plane_count, model.polytope_first, N, G)
    kept = model.cache.get("patch_point_table")
    if kept is not None and kept[0][0] is sources[0] and kept[0][1:] == sources[1:]:
        return kept[1]
    shape, static = (a.ravel() for a in np.meshgrid(np.arange(N), np.arange(G), indexing="ij"))
    table = patch_points_numpy(model, shape, static).reshape(N, G)
    table.flags.writeable = False
    model.cache["patch_point_table"] = (sources, table)
    return table


def prepare_tables(model: ContactModel, ground: Ground) -> None:
    """Make the model's contact tables that its first contact would make (`patch_points`' table, the kept points'
    reduction, persistence.py's `prepare_tables`) and what the broad phase keeps of it and the ground
    (broad.py `prepare_static_candidates`), kept in its cache: the same tables, made when the model is built rather
    than in a fleet's first steps."""
    prepare_static_candidates(model, ground)
    _patch_point_table(model)
    kept_point_reduction(model)
    prepare_persistence_tables(model)


def kept_point_reduction(model: ContactModel) -> compiled_bookkeeping.Held | None:
    """What Persistence's compiled refresh reads to reduce the kept contacts as `reduce_contacts` does with
    `patch_points` (compiled_manifolds.reduction_settings: the rows whose patches on a mesh keep MESH_PATCH_POINTS),
    kept in the model's cache while what it reads is the same (as `_patch_point_table`); None where the extension is
    not built or was built with another SAME_NORMAL (the reduction is numpy's)."""
    if not (compiled_bookkeeping.available() and compiled_bookkeeping.same_normal_agrees(SAME_NORMAL)):
        return None
    kept = model.cache.get("kept_reduction")
    cylinders = model.cylinders
    if (kept is not None and kept[0] is model.radius and kept[1] == len(model.vehicle) and kept[2] == model.plane_count
            and (kept[3] is cylinders or kept[4] == cylinders.tobytes())):
        return kept[5]
    N = len(model.vehicle)
    mesh_rows = np.ones(N, bool) if model.radius is None else model.radius == 0.0
    mesh_rows &= ~np.isin(np.arange(N), model.cylinders)
    settings = compiled_manifolds.reduction_settings(mesh_rows, model.plane_count, MESH_PATCH_POINTS, MAX_POINTS)
    model.cache["kept_reduction"] = (model.radius, N, model.plane_count, cylinders, cylinders.tobytes(), settings)
    return settings


def _made(model: ContactModel, ground: Ground, planes: list[np.ndarray], hull_shape: np.ndarray, hull: np.ndarray,
          tri_shape: np.ndarray, tri: np.ndarray, R_all: np.ndarray, position: np.ndarray,
          rounds: tuple[np.ndarray, np.ndarray]) -> list[Contacts]:
    """The contacts made anew for the candidate pairs (`static_candidates`; rounds: the static spheres' and capsules',
    sim/round_shapes.py), unreduced, part by part."""
    round_shape, round_k = rounds
    if not (hull_shape.size or tri_shape.size or round_shape.size or any(rows.size for rows in planes)):
        return []  # (every pair kept its points: most steps of a car resting against an obstacle)
    rows = np.unique(np.concatenate(planes + [hull_shape, tri_shape, round_shape]))
    if not rows.size:
        return []
    R = placed_rotations(model, rows, R_all)
    placed = _Vertices(model, rows, R, position)  # (moved where a narrow phase below reads them: not box-box's)
    # the cylinders' world cap centres, for the planes' exact contacts
    cylinders = np.intersect1d(rows, model.cylinders) if model.cylinders.size else model.cylinders
    ends = None
    if cylinders.size:
        ends = np.full((len(model.vehicle), 2, 3), np.nan)
        ends[cylinders] = cylinder_world_ends(model, cylinders, R[cylinders], position)
    parts = [plane_contacts(model, ground, placed.vertices if any(rows.size for rows in planes) else None, planes,
                            ends)]
    if hull_shape.size and model.static_boxes is not None:  # box against box: PhysX's own box-box contacts
        both = model.boxes.mask[hull_shape] & model.static_boxes.mask[hull]
        if both.any():
            made, boxed = _box_contacts(model, hull_shape[both], hull[both], position, R)
            parts.append(boxed)
            left = np.ones(len(hull), bool)
            left[np.nonzero(both)[0][made]] = False
            hull_shape, hull = hull_shape[left], hull[left]
    if hull_shape.size and ends is not None:  # exact cylinders against boxes and hulls (sim/py)
        exact = np.isfinite(ends[hull_shape, 0, 0])
        if exact.any():
            parts.append(cylinder_convex_contacts(model, hull_shape[exact], hull[exact], ends, R))
            hull_shape, hull = hull_shape[~exact], hull[~exact]
    if hull_shape.size and model.static_cylinders is not None:  # a vehicle's shape against a static exact cylinder
        exact = np.isfinite(model.static_cylinders[0][hull, 0, 0])
        if exact.any():
            parts.append(static_cylinder_contacts(model, hull_shape[exact], hull[exact], placed.vertices, R,
                                                  position))
            hull_shape, hull = hull_shape[~exact], hull[~exact]
    if hull_shape.size:
        A = world_polytopes(model.shapes, hull_shape, placed.vertices, R)
        B = polytope_rows(model.static_shapes, hull)
        static = model.static_index[hull]
        made = polytope_contacts(A, B, hull_shape, static, model.contact_distance[hull_shape, static],
                                 single_sided=None, radius=shape_radius(model, hull_shape))
        parts.append(sphere_points_on_boxes(model, made, hull))
    if tri_shape.size and ends is not None:  # exact cylinders against triangles (sim/py)
        exact = np.isfinite(ends[tri_shape, 0, 0])
        if exact.any():
            parts.append(cylinder_mesh_contacts(model, ground, tri_shape[exact], tri[exact], ends, R))
            tri_shape, tri = tri_shape[~exact], tri[~exact]
    if tri_shape.size:
        A = world_polytopes(model.shapes, tri_shape, placed.vertices, R)
        B = triangle_polytopes(ground, tri)
        static = model.plane_count + ground.tri_shape[tri]
        parts.append(polytope_contacts(A, B, tri_shape, static, model.contact_distance[tri_shape, static],
                                       single_sided=ground.tri_normals[tri], radius=shape_radius(model, tri_shape)))
    if round_shape.size and ends is not None:  # exact cylinders against spheres and capsules
        exact = np.isfinite(ends[round_shape, 0, 0])
        if exact.any():
            parts.append(cylinder_round_contacts(model, round_shape[exact], round_k[exact], ends, R))
            round_shape, round_k = round_shape[~exact], round_k[~exact]
    if round_shape.size:
        parts.append(round_shapes.contacts(model, round_shape, round_k, placed.vertices, R))
    return parts


class _Vertices:
    """The world vertices of a step's candidate rows (placement.world_vertices), moved at the first read."""

    def __init__(self, model: ContactModel, rows: np.ndarray, R: np.ndarray, position: np.ndarray):
        self.arguments = (model, rows, R, position)

    @functools.cached_property
    def vertices(self) -> np.ndarray:
        return world_vertices(*self.arguments)


def _box_contacts(model: ContactModel, shape: np.ndarray, hull: np.ndarray, position: np.ndarray, R: np.ndarray):
    """(which pairs made points, their contacts) of vehicle boxes `shape` against static boxes `hull` (pcm_box)."""
    a, b = model.boxes.rows(shape), model.static_boxes.rows(hull)
    centre = np.einsum("pij,pj->pi", R[shape], a.centre) + position[:, model.vehicle[shape]].T
    axes = np.einsum("pkj,pij->pki", a.axes, R[shape])
    static = model.static_index[hull]
    made, point, separation, valid, normal = box_box(centre, axes, a.half, b.centre, b.axes, b.half,
                                                     model.contact_distance[shape, static])
    p, q = np.nonzero(valid & made[:, None])
    return made, Contacts(shape[p], static[p], point[p, q], normal[p], separation[p, q], p)
