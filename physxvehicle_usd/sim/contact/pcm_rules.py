"""PCM's margins and the thresholds by which a pair keeps its points (sim/contact/persistence.py's module docstring
says which pairs keep them, and how): each shape's margin (`manifold_margins`, `manifold_margin`), and per pair the
move, turn and drift it may make before its points are dropped or made anew (`rules`); the box pairs between
vehicles (sim/contact/pairs.py) take the polytopes' thresholds."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import ContactModel

# PCM's margins (GuVecBox.h CalculatePCMBoxMargin, GuVecConvexHull.h CalculatePCMConvexMargin): a fraction of the
# shape's smallest inner extent, at most a fraction of the length scale (against a mesh: GU_PCM_MESH_MANIFOLD_EPSILON)
_BOX_MARGIN, _HULL_MARGIN = 0.15, 0.25

_BOX_TOLERANCE, _HULL_TOLERANCE, _MESH_TOLERANCE = 0.15, 0.05, 0.05

# the pair: a polytope on a plane, mesh, static polytope; a capsule on a static box; a polytope on a static capsule
PLANE, MESH, POLYTOPE, CAPSULE, ROUND = 0, 1, 2, 3, 4

# made anew when the shape's origin moved this many margins along an axis, or the relative turn's quaternion dot fell
# below this: against planes and meshes (invalidate_PrimitivesPlane, the multi-manifold's invalidate), and against
# polytopes by the points the manifold holds (invalidate_BoxConvex: invalidateThresholds, invalidateQuatThresholds)
_MOVED = 0.2

_PLANE_TURNED, _MESH_TURNED = 0.99996, 0.9998

POLYTOPE_MOVED = np.array([0.5, 0.125, 0.25, 0.375, 0.375])

POLYTOPE_TURNED = np.array([0.9998, 0.9999, 0.9999, 0.9999, 0.9999])

# a capsule against a box or hull (pcmContactCapsuleBox, pcmContactCapsuleConvex: invalidate_SphereCapsule), by the
# points held (0, 1, 2)
CAPSULE_MOVED = np.array([0.5, 0.1, 0.75])

CAPSULE_TURNED = np.array([0.9995, 0.9999, 0.9997])

# a point whose ends drifted apart sideways by this many margins is dropped (projectBreakingThreshold)
_PLANE_DRIFT, DRIFT = 0.2, 0.8


def _inner_extent(polytopes) -> np.ndarray:
    """(N,) each polytope's smallest distance from its vertices' centroid to a face (a box's smallest half extent)."""
    P = polytopes
    real = ~((P.vertices == P.vertices[:, :1]).all(axis=2))
    real[:, 0] = True
    centroid = (P.vertices * real[..., None]).sum(axis=1) / real.sum(axis=1)[:, None]
    depth = np.where(P.face_mask, P.offsets - np.einsum("nfj,nj->nf", P.normals, centroid), np.inf)
    return depth.min(axis=1)


def manifold_margins(model: ContactModel) -> dict[str, np.ndarray]:
    """The shapes' inner extents (rows, static polytopes) and how far a vehicle shape reaches from its centre (the
    travel of a turn: a box's half diagonal, a hull's box's), once per model."""
    if "pcm_inner" not in model.cache:
        model.cache["pcm_inner"] = _inner_extent(model.shapes)
        model.cache["pcm_static_inner"] = (np.zeros(0) if model.static_shapes is None
                                           else _inner_extent(model.static_shapes))
        model.cache["pcm_radius"] = np.where(model.boxes.mask, np.linalg.norm(model.boxes.half, axis=1),
                                             np.linalg.norm(model.box_half, axis=0))
    return model.cache


@dataclass
class Rules:
    """Per pair: how far the shape may move (any axis) and turn (quaternion dot) before its points are made anew, how
    far a point may drift sideways before it is dropped, whether a dropped point makes them anew and whether a kept
    point beyond the contact distance goes unreported (not against a mesh), and the margin they scale."""

    moved: np.ndarray
    turned: np.ndarray
    drift: np.ndarray
    strict: np.ndarray
    margin: np.ndarray


def manifold_margin(inner: np.ndarray, box: np.ndarray, length: np.ndarray, tolerance=None) -> np.ndarray:
    """PCM's margin of shapes of inner extents `inner`, boxes where `box`, at the length scales `length`: a fraction
    of the inner extent, at most a fraction of the length scale (tolerance: that fraction; None: a box's or a
    hull's)."""
    ratio = np.where(box, _BOX_MARGIN, _HULL_MARGIN)
    tolerance = np.where(box, _BOX_TOLERANCE, _HULL_TOLERANCE) if tolerance is None else tolerance
    return np.minimum(ratio * inner, tolerance * length)


def rules(model: ContactModel, row: np.ndarray, static: np.ndarray, kind: np.ndarray,
          length_scale: np.ndarray, static_radius: np.ndarray) -> Rules:
    """Per pair (its shape row, static shape and kind: PLANE .. ROUND) the `Rules` of its margin, at the vehicles'
    length scales (V,) and the static shapes' round radii per pair (0: none)."""
    cache = manifold_margins(model)
    box = model.boxes.mask[row]
    length = length_scale[model.vehicle[row]].astype(float)
    inner = cache["pcm_inner"][row]
    margin = np.where(kind == MESH, manifold_margin(inner, box, length, _MESH_TOLERANCE),
                      manifold_margin(inner, box, length))
    polytope = (kind == POLYTOPE) | (kind == CAPSULE)
    if polytope.any():  # the lesser of the two shapes' margins (a capsule's: the static box's)
        first = model.polytope_first
        h = np.where(polytope, static - first, 0)
        static_box = (model.static_boxes.mask[h] if model.static_boxes is not None else np.zeros(len(h), bool))
        static_margin = manifold_margin(cache["pcm_static_inner"][h] if len(h) else inner, static_box, length)
        margin = np.where(polytope, np.where(kind == CAPSULE, static_margin, np.minimum(margin, static_margin)), margin)
    capsule = kind == CAPSULE
    if capsule.any():  # the lesser of the box's margin and the capsule's radius
        margin = np.where(capsule, np.minimum(margin, model.radius[row]), margin)
    # a static capsule: the lesser of the vehicle's box's or hull's margin and the capsule's radius
    margin = np.where(kind == ROUND, np.minimum(margin, static_radius), margin)
    polytope |= kind == ROUND
    plane = kind == PLANE
    return Rules(np.where(polytope, np.nan, _MOVED * margin), np.where(plane, _PLANE_TURNED, _MESH_TURNED),
                  np.where(plane, _PLANE_DRIFT, DRIFT) * margin, kind != MESH, margin)
