"""Where the model's shapes stand at a step's body poses: each shape's world box and how far a turn can move it
(`shape_boxes`, `world_boxes`, `shape_reach`, `turned_half`; the first two compiled, sim/compiled_placement.py, where
the extension is built: the same bits as their numpy twins; `step_boxes`: the boxes of a step's poses, shared by the
broad phases that ask them in that step), its vertices in the world (`placed_vertices`), a cylinder's world cap
centres (`cylinder_world_ends`) and a round shape's radius (`shape_radius`)."""
from __future__ import annotations

import numpy as np

from .. import compiled_placement
from .. import vecmath as vm
from .model import ContactModel


def shape_boxes(model: ContactModel, position: np.ndarray, orientation: np.ndarray, rows: np.ndarray | None = None):
    """Each shape's body rotation (3, 3, N), the centre of its box in the world (three (N,) components) and a
    rounding slack (N,) to grow the box by, at the body poses position (3, V), orientation (4, V); of the shape
    rows `rows` only (N of them) where given."""
    compiled = compiled_placement.shape_boxes(model.vehicle, model.box_centre, model.box_half, position, orientation,
                                              rows)
    if compiled is None:
        return shape_boxes_numpy(model, position, orientation, rows)
    R, centre, slack = compiled[:3]
    return R, list(centre), slack


def world_boxes(model: ContactModel, position: np.ndarray, orientation: np.ndarray, grow: np.ndarray):
    """`shape_boxes` (R, centre, slack) and each shape's world box, its turned box grown by grow (N,) and the slack:
    lo, hi (N, 3)."""
    compiled = compiled_placement.shape_boxes(model.vehicle, model.box_centre, model.box_half, position, orientation,
                                              grow=grow)
    if compiled is None:
        return world_boxes_numpy(model, position, orientation, grow)
    R, centre, slack, lo, hi = compiled
    return R, list(centre), slack, lo, hi


def world_boxes_numpy(model: ContactModel, position: np.ndarray, orientation: np.ndarray, grow: np.ndarray):
    """`world_boxes` in numpy (the reference)."""
    R, centre, slack = shape_boxes_numpy(model, position, orientation)
    half = turned_half(model, R) + (grow + slack)[:, None]
    middle = np.stack(centre, axis=1)
    return R, centre, slack, middle - half, middle + half


def shape_boxes_numpy(model: ContactModel, position: np.ndarray, orientation: np.ndarray,
                      rows: np.ndarray | None = None):
    """`shape_boxes` in numpy (the reference)."""
    if rows is not None:
        v = model.vehicle[rows]
        R, x = vm.quat_to_mat(orientation[:, v].astype(float)), position[:, v].astype(float)
        c, h = model.box_centre[:, rows], model.box_half[:, rows]
    else:
        R = vm.quat_to_mat(orientation.astype(float))  # (3, 3, V)
        x = position.astype(float)
        if not (model.one_per_vehicle and orientation.shape[1] == len(model.vehicle)):
            R, x = R[:, :, model.vehicle], x[:, model.vehicle]  # (3, 3, N), (3, N)
        c, h = model.box_centre, model.box_half  # component first (3, N)
    centre = [R[i, 0] * c[0] + R[i, 1] * c[1] + R[i, 2] * c[2] + x[i] for i in range(3)]
    slack = 1e-6 * (1.0 + np.abs(centre[0]) + np.abs(centre[1]) + np.abs(centre[2]) + h[0] + h[1] + h[2])
    return R, centre, slack


class StepBoxes:
    """`shape_boxes` at a step's body poses (R, centre as three (N,) components, slack; read-only), with what the
    broad phases build on them, each worked out once: the boxes' turned half extents (N, 3) (`turned_half`), their
    centres (N, 3) and the axes ordered by how far the centres spread along them (`spread_axes`)."""

    __slots__ = ("R", "_axes", "_centres", "_half", "centre", "slack")

    def __init__(self, R: np.ndarray, centre: list, slack: np.ndarray):
        for a in (R, slack, *centre):
            a.flags.writeable = False  # (shared by the phases: none may write into them)
        self.R, self.centre, self.slack = R, centre, slack
        self._half = self._centres = self._axes = None

    def turned_half(self, model: ContactModel) -> np.ndarray:
        if self._half is None:
            self._half = turned_half(model, self.R)
        return self._half

    def centres(self) -> np.ndarray:
        if self._centres is None:
            self._centres = np.stack(self.centre, axis=1)
        return self._centres

    def spread_axes(self) -> np.ndarray:
        """The axes by decreasing variance of the centres (a stable sort: ties in axis order)."""
        if self._axes is None:
            self._axes = np.argsort(-self.centres().var(axis=0), kind="stable")
        return self._axes


def step_boxes(model: ContactModel, motion) -> StepBoxes:
    """The shapes' boxes at the poses of a step's sim/motion.Motion: worked out by the first broad phase that asks in
    that step (the suspension queries', the planes', the vehicle pairs'), the same arrays for the others (the model's
    cache keeps the last step's, for this model's boxes: a model `posed` anew has boxes of its own)."""
    kept = model.cache.get("step_boxes")
    if kept is None or kept[0] is not motion or kept[1] is not model.box_centre or kept[2] is not model.box_half:
        kept = model.cache["step_boxes"] = (motion, model.box_centre, model.box_half,
                                            StepBoxes(*shape_boxes(model, motion.position, motion.orientation)))
    return kept[3]


def shape_reach(model: ContactModel, V: int) -> np.ndarray:
    """(V,) how far each vehicle's shapes' boxes reach from its body position: what a turn by an angle moves them
    by, at most, per radian."""
    known = model.vehicle_reach
    if len(known) == V:  # (every vehicle has a shape, the usual batch)
        return known.copy()
    reach = np.zeros(V)  # (the vehicles up to the last with a shape: `known`, worked out with the model)
    if len(known) > V:
        raise IndexError(f"shape rows of vehicle {len(known) - 1} in a batch of {V}")
    reach[:len(known)] = known
    return reach


def turned_half(model: ContactModel, R: np.ndarray) -> np.ndarray:
    """(N, 3): the half extents of the world box holding each shape's body-frame box turned by R (3, 3, N)."""
    h = model.box_half
    return np.stack([np.abs(R[i, 0]) * h[0] + np.abs(R[i, 1]) * h[1] + np.abs(R[i, 2]) * h[2] for i in range(3)],
                    axis=1)


def shape_radius(model: ContactModel, rows: np.ndarray) -> np.ndarray | None:
    """The round shapes' radii about their cores for the shape rows `rows` (None: the model has no round shape)."""
    return None if model.radius is None else model.radius[rows]


def cylinder_world_ends(model: ContactModel, rows: np.ndarray, R: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The world cap centres (n, 2, 3) of the cylinder rows `rows`, from their rotations R (n, 3, 3) and the bodies'
    positions (3, V)."""
    return (np.einsum("nij,nkj->nki", R, model.cylinder_ends[rows])
            + position[:, model.vehicle[rows]].T[:, None, :])


def placed_vertices(model: ContactModel, rows: np.ndarray, R_all: np.ndarray, position: np.ndarray):
    """The rotations (N, 3, 3) and world vertices (N, K, 3) of the shape rows `rows` (the other rows unset), from
    the shapes' rotations R_all (3, 3, N) and the bodies' positions (3, V)."""
    R = placed_rotations(model, rows, R_all)
    return R, world_vertices(model, rows, R, position)


def placed_rotations(model: ContactModel, rows: np.ndarray, R_all: np.ndarray) -> np.ndarray:
    """The rotations (N, 3, 3) of the shape rows `rows` (the other rows unset), from R_all (3, 3, N)."""
    R = np.empty((len(model.vehicle), 3, 3))
    R[rows] = np.moveaxis(R_all[:, :, rows], 2, 0)
    return R


def world_vertices(model: ContactModel, rows: np.ndarray, R: np.ndarray, position: np.ndarray) -> np.ndarray:
    """The world vertices (N, K, 3) of the shape rows `rows` (the other rows unset) turned by their rotations R
    (`placed_rotations`) and moved to the bodies' positions (3, V)."""
    N, K = model.shapes.vertices.shape[:2]
    vertices = np.empty((N, K, 3))  # only the rows of candidates are filled (and read)
    local, turn = model.shapes.vertices[rows], R[rows][:, None]  # elementwise: a row's result is its own
    vertices[rows] = (turn[..., 0] * local[..., :1] + turn[..., 1] * local[..., 1:2] + turn[..., 2] * local[..., 2:]
                      + position[:, model.vehicle[rows]].T[:, None, :])
    return vertices
