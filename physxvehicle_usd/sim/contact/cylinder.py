"""The exact cylinder's contacts for the model's cylinder rows (a wheel's UsdGeom.Cylinder, PhysX's convex core): the
rows placed in the world, their cores and turns, and the other shape made the core cylinder_faces.py meets it with
(a box as its box core, a hull as its points, a sphere or capsule as its point or segment with its radius), against
a mesh's triangles (`cylinder_mesh_contacts`), static boxes and hulls (`cylinder_convex_contacts`,
`static_cylinder_contacts`) and static spheres and capsules (`cylinder_round_contacts`)."""
from __future__ import annotations

import numpy as np

from ..ground import Ground
from .cylinder_faces import cylinder_convexes, cylinder_triangles
from .gjk_epa import BoxCore, CylinderCore, PointsCore, RoundCore, core_turn, matrix_turn
from .model import ContactModel
from .placement import cylinder_world_ends
from .records import Contacts


def cylinder_mesh_contacts(model: ContactModel, ground: Ground, shape: np.ndarray, tri: np.ndarray,
                        ends: np.ndarray, R: np.ndarray) -> Contacts:
    """Contacts of exact cylinders (the rows `shape`, world cap centres `ends` (N, 2, 3), the rows' rotations R (N, 3,
    3)) with the mesh triangles `tri`, pair by pair, the points of a cylinder and one mesh gathered into patches in
    triangle order."""
    static = model.plane_count + ground.tri_shape[tri]
    order = np.lexsort((tri, static, shape))
    shape, tri, static = shape[order], tri[order], static[order]
    v0 = ground.tri_v0[tri]
    triangles = np.stack([v0, v0 + ground.tri_e1[tri], v0 + ground.tri_e2[tri]], axis=1)
    pair, point, normal, separation = cylinder_triangles(
        *_cylinder_cores(model, shape, ends, R), triangles, model.contact_distance[shape, static],
        shape * (int(static.max()) + 1) + static, _core_turns(model, shape, R))
    return Contacts(shape[pair], static[pair], point, normal, separation)


def static_cylinder_contacts(model: ContactModel, shape: np.ndarray, hull: np.ndarray, vertices: np.ndarray,
                              R: np.ndarray, position: np.ndarray) -> Contacts:
    """Contacts of the vehicle shapes `shape` (no exact cylinders: `cylinder_convex_contacts` takes those) with the
    static exact cylinders `hull` (ContactModel.static_cylinders), as PhysX's convex-core contacts make them: the
    vehicle's shape where it stands as the other core (sim/py `cylinder_convexes`, `shape_core`)."""
    static = model.static_index[hull]
    ends, radius = model.static_cylinders
    centre, axis, half = _on_axis(ends[hull])
    others = [shape_core(model, row, vertices, R, position) for row in shape]
    pair, point, normal, separation = cylinder_convexes(
        centre, axis, half, radius[hull], others, model.contact_distance[shape, static],
        core_turn(axis))
    # the normals from the vehicle's shape towards the static cylinder: turned to point from the static
    return Contacts(shape[pair], static[pair], point, -normal, separation)


def shape_core(model: ContactModel, row: int, vertices: np.ndarray, R: np.ndarray, position: np.ndarray,
               first: bool = False):
    """Shape row `row` where it stands as PhysX's convex-core contacts hold it (sim/py): its box
    turned and moved with its body, its sphere's or capsule's core, its exact cylinder (PhysX's pair's first shape
    where `first`), else its hull's vertices (the padding repeats vertex 0)."""
    if row in model.cylinders:
        (centre, axis, half, radius, turn) = exact_cylinders(model, np.array([row]), R, position)
        return CylinderCore(centre[0], axis[0], half[0], radius[0], turn[0], first)
    if model.boxes.mask[row]:
        return _box_core(R[row] @ model.boxes.centre[row] + position[:, model.vehicle[row]],
                         R[row] @ model.boxes.axes[row].T, model.boxes.half[row])
    if model.radius is not None and model.radius[row] > 0.0:  # its core's ends (PhysX's +axis first)
        loop, count = model.shapes.loops[row, 0], model.shapes.loop_counts[row, 0]
        return _round_core(vertices[row, loop[min(1, count - 1)]], vertices[row, loop[0]], float(model.radius[row]))
    return _points_core(vertices[row])


def _box_core(centre: np.ndarray, rotation: np.ndarray, half: np.ndarray):
    """PhysX's box core of a box at `centre` turned by `rotation` (3, 3: its axes the columns)."""
    return BoxCore(centre, matrix_turn(rotation[None])[0].astype(np.float32), half)


def _round_core(start: np.ndarray, end: np.ndarray, radius: float):
    """PhysX's point or segment core of a sphere or capsule whose core runs from `end` to `start` (its +x towards
    `start`; a sphere's, start = end: any)."""
    length = float(np.linalg.norm(start - end))
    axis = (start - end) if length > 0.0 else np.array([1.0, 0.0, 0.0])
    return RoundCore((start + end) / 2, core_turn(axis[None])[0], length / 2,
                                      radius)


def _points_core(vertices: np.ndarray):
    """PhysX's points core of a hull's padded vertices (the padding repeats vertex 0), each once, in their order."""
    return PointsCore(vertices[np.sort(np.unique(vertices, axis=0, return_index=True)[1])])


def cylinder_convex_contacts(model: ContactModel, shape: np.ndarray, hull: np.ndarray, ends: np.ndarray,
                       R: np.ndarray) -> Contacts:
    """Contacts of exact cylinders (as `cylinder_mesh_contacts`) with the static polytopes `hull`: a box as PhysX's box
    core, a cylinder as its core, another hull as its points core (sim/py `cylinder_convexes`)."""
    static = model.static_index[hull]
    boxes = model.static_boxes
    others = []
    cylinders = model.static_cylinders
    for k in hull:
        if cylinders is not None and np.isfinite(cylinders[0][k, 0, 0]):
            # two cores: the vehicle's taken first (the other order made the same contacts on CylinderPipe)
            (centre,), (axis,), (half,) = _on_axis(cylinders[0][k][None])
            others.append(CylinderCore(centre, axis, float(half), float(cylinders[1][k]),
                                                        core_turn(axis[None])[0], False))
        elif boxes is not None and boxes.mask[k]:  # rows of the axes: the columns of the box's rotation
            others.append(_box_core(boxes.centre[k], boxes.axes[k].T, boxes.half[k]))
        else:
            others.append(_points_core(model.static_shapes.vertices[k]))
    pair, point, normal, separation = cylinder_convexes(
        *_cylinder_cores(model, shape, ends, R), others, model.contact_distance[shape, static],
        _core_turns(model, shape, R))
    return Contacts(shape[pair], static[pair], point, normal, separation)


def cylinder_round_contacts(model: ContactModel, shape: np.ndarray, round_k: np.ndarray, ends: np.ndarray,
                     R: np.ndarray) -> Contacts:
    """Contacts of exact cylinders (as `cylinder_mesh_contacts`) with the static spheres and capsules `round_k`
    (sim/round_shapes.StaticRounds): their point or segment cores, the radius their margin (`cylinder_convexes`)."""
    rounds = model.static_rounds
    static = rounds.column[round_k]
    others = [_round_core(rounds.ends[k, 1], rounds.ends[k, 0], float(rounds.radius[k])) for k in round_k]
    pair, point, normal, separation = cylinder_convexes(
        *_cylinder_cores(model, shape, ends, R), others, model.contact_distance[shape, static],
        _core_turns(model, shape, R))
    return Contacts(shape[pair], static[pair], point, normal, separation)


def exact_cylinders(model: ContactModel, rows: np.ndarray, R: np.ndarray, position: np.ndarray):
    """The exact cylinders of the cylinder rows `rows` (R: the rows' rotations, (N, 3, 3) over all rows; position:
    the bodies' (3, V)): world centres (P, 3), unit axes, half heights, radii (P,) and their cores' float32
    quaternions (P, 4)."""
    ends = np.full((len(model.vehicle), 2, 3), np.nan)
    ends[rows] = cylinder_world_ends(model, rows, R[rows], position)
    return (*_cylinder_cores(model, rows, ends, R), _core_turns(model, rows, R))


def _cylinder_cores(model: ContactModel, shape: np.ndarray, ends: np.ndarray, R: np.ndarray):
    """The exact cylinders of the rows `shape`: world centres (P, 3), unit axes, half heights and radii (P,)."""
    return (*_on_axis(ends[shape]), model.cylinder_radius[shape])


def _on_axis(ends: np.ndarray):
    """Cylinders' centres (P, 3), unit axes (PhysX's core +x: towards the cap listed second) and half heights (P,)
    from their cap centres (P, 2, 3)."""
    half_vector = (ends[:, 1] - ends[:, 0]) / 2
    half = np.linalg.norm(half_vector, axis=1)
    return ends[:, 0] + half_vector, half_vector / half[:, None], half


def _core_turns(model: ContactModel, shape: np.ndarray, R: np.ndarray) -> np.ndarray:
    """(P, 4) the float32 quaternions of the rows' cylinder cores: the body's turn, the wheel's (its angle about the
    axle) and the core's +x onto the axis (sim/core_turn)."""
    local = model.cylinder_ends[shape, 1] - model.cylinder_ends[shape, 0]  # in the body frame
    frame = R[shape]
    if model.cylinder_frame is not None:  # the wheel's turn, and the axis back in the wheel's frame
        frame = np.einsum("nij,njk->nik", frame, model.cylinder_frame[shape])
        local = np.einsum("nji,nj->ni", model.cylinder_frame[shape], local)
    return core_turn(local, frame)
