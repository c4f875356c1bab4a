"""The ground's mesh queries: the triangle grid narrows the candidates and changes no result. Each raycast case
compares the grid against a grid of one cell holding every triangle (every ray against every triangle), bit for
bit."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from physxvehicle_usd.read import read_stage
from physxvehicle_usd.sim import ground as ground_module
from physxvehicle_usd.sim.ground import Ground, box_pairs, raycast


def _mesh_ground(points: np.ndarray, faces: np.ndarray, rotate_x: float = 0.0) -> Ground:
    """A stage with one static collision mesh (Z up), read as the simulator reads ground."""
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.Scene.Define(stage, "/World/PhysicsScene")
    mesh = UsdGeom.Mesh.Define(stage, "/World/Road")
    mesh.CreatePointsAttr([Gf.Vec3f(*map(float, p)) for p in points])
    mesh.CreateFaceVertexCountsAttr([3] * len(faces))
    mesh.CreateFaceVertexIndicesAttr([int(i) for i in faces.ravel()])
    if rotate_x:
        mesh.AddRotateXOp().Set(rotate_x)
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    ground = Ground.from_description(read_stage(stage).ground)
    assert ground.grid is not None and len(ground.tri_v0) == len(faces)
    return ground


def _bump_road(nx: int = 60, ny: int = 6, cell: tuple[float, float] = (0.25, 3.0)) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = np.arange(nx + 1) * cell[0], np.arange(ny + 1) * cell[1]
    gx, gy = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), indexing="ij")
    heights = 0.02 * (1.0 - np.cos(2.0 * np.pi * xs / 3.0))
    points = np.stack([xs[gx], ys[gy], heights[gx]], axis=-1).reshape(-1, 3)
    corner = (gx[:-1, :-1] * (ny + 1) + gy[:-1, :-1]).ravel()
    up = ny + 1
    faces = np.stack([corner, corner + up, corner + up + 1, corner, corner + up + 1, corner + 1], axis=1).reshape(-1, 3)
    return points, faces


def _every_triangle(ground: Ground) -> Ground:
    """The same ground with a grid of one cell that holds every triangle."""
    grid = ground.grid
    T = len(ground.tri_v0)
    up = 3 - sum(grid.axes)
    one = dataclasses.replace(grid, origin=np.full(2, -1e30), cell=1e31, size=(1, 1), starts=np.array([0, T]),
                              triangles=np.arange(T), first_cell=np.zeros((T, 2), np.int64),
                              cell_low=grid.triangle_boxes[up].min(keepdims=True),
                              cell_high=grid.triangle_boxes[3 + up].max(keepdims=True))
    return dataclasses.replace(ground, grid=one)


def _rays(rng: np.random.Generator, n: int, lo, hi, dtype):
    origin = np.stack([rng.uniform(lo[k], hi[k], n) for k in range(3)]).astype(dtype)
    direction = rng.normal(size=(3, n))
    direction[2] = -np.abs(direction[2]) - 0.5  # mostly down, some steep
    direction = (direction / np.linalg.norm(direction, axis=0)).astype(dtype)
    return origin, direction, rng.uniform(0.0, 1.5, n).astype(dtype)


def _assert_same_hits(ground: Ground, origin, direction, length) -> int:
    grid_hits = raycast(ground, origin, direction, length)
    all_hits = raycast(_every_triangle(ground), origin, direction, length)
    for name in ("hit", "normal", "offset", "shape"):
        a, b = getattr(grid_hits, name), getattr(all_hits, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    return int(grid_hits.hit.sum())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grid_gives_the_hits_of_every_triangle_on_a_bump_road(dtype):
    ground = _mesh_ground(*_bump_road())
    assert ground.grid.size[0] > 1 and ground.grid.size[1] > 1  # the road is cut into cells
    rng = np.random.default_rng(7)
    hits = _assert_same_hits(ground, *_rays(rng, 4000, (-1.0, -1.0, -0.2), (16.0, 19.0, 0.8), dtype))
    assert hits > 1000  # most rays start above the road and reach it


def test_broad_phase_lists_each_overlapping_pair_once():
    """Boxes spanning several cells meet in each: the grid still gives a pair once, and exactly the pairs whose
    boxes overlap (every query box against every triangle box)."""
    ground = _mesh_ground(*_bump_road())
    rng = np.random.default_rng(3)
    centre = np.stack([rng.uniform(-1, 16, 300), rng.uniform(-1, 19, 300), rng.uniform(-0.1, 0.2, 300)], axis=1)
    half = rng.uniform(0.01, 4.0, (300, 3))  # up to several cells wide
    query, tri = box_pairs(ground, centre - half, centre + half)
    keys = query * len(ground.tri_v0) + tri
    assert len(np.unique(keys)) == len(keys)
    lo_t, hi_t = ground.grid.box(np.arange(len(ground.tri_v0)))
    overlap = ((lo_t[None] <= (centre + half)[:, None]) & (hi_t[None] >= (centre - half)[:, None])).all(axis=2)
    expected_q, expected_t = np.nonzero(overlap)
    assert np.array_equal(np.sort(keys), expected_q * len(ground.tri_v0) + expected_t)
    # a box above the whole road (bumps reach 0.04) spans many cells and gets no candidates from them
    query, _ = ground.grid.pairs(np.array([[1.0, 1.0, 0.05]]), np.array([[9.0, 12.0, 1.0]]))
    assert query.size == 0


def test_rays_outside_the_grid_miss_and_single_sided_faces_let_upward_rays_through():
    ground = _mesh_ground(*_bump_road())
    origin = np.array([[100.0, 5.0], [100.0, 5.0], [0.5, -0.5]])
    direction = np.array([[0.0, 0.0], [0.0, 0.0], [-1.0, 1.0]])  # far away, downward; under the road, upward
    hits = raycast(ground, origin, direction, np.array([2.0, 2.0]))
    assert not hits.hit.any() and (hits.shape == -1).all()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), tilt=st.sampled_from([0.0, 30.0, 90.0]))
def test_grid_gives_the_hits_of_every_triangle_on_random_meshes(seed, tilt):
    """Triangles of every size and orientation, some meshes tilted or standing up (a wall): the grid's axes and cells
    follow the mesh, and no hit is lost or changed."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    centres = rng.uniform(-10.0, 10.0, (n, 3)) * np.array([1.0, 1.0, 0.1])
    points = (centres[:, None, :] + rng.normal(scale=rng.uniform(0.05, 3.0), size=(n, 3, 3))).reshape(-1, 3)
    faces = np.arange(3 * n).reshape(n, 3)
    keep = np.linalg.norm(np.cross(points[faces[:, 1]] - points[faces[:, 0]], points[faces[:, 2]] - points[faces[:, 0]]),
                          axis=1) > 1e-6
    faces = faces[keep]
    if len(faces) == 0:
        return
    ground = _mesh_ground(points, faces, rotate_x=tilt)
    _assert_same_hits(ground, *_rays(rng, 500, (-12.0, -12.0, -3.0), (12.0, 12.0, 3.0), np.float32))


def test_a_mesh_s_active_edges_are_its_boundary_and_its_convex_creases_as_physx_cooks_them():
    # a strip along x: flat from x = 0 to 1, up a 35 degree ramp to a ridge at x = 2, flat on the ridge to x = 3; each
    # quad cut into two triangles from its first corner (v0 v1 v2, v0 v2 v3). PhysX's cooking (GuEdgeList.cpp) makes
    # the boundary active, the ridge's convex crease active, the ramp's concave foot and every quad's diagonal (flat)
    # not: PCM meets a convex along an edge axis only of an active edge
    rise = np.tan(np.radians(35.0))
    profile = [(0.0, 0.0), (1.0, 0.0), (2.0, rise), (3.0, rise)]
    points = np.array([(x, y, z) for x, z in profile for y in (-1.0, 1.0)])
    quads = [(2 * i, 2 * i + 2, 2 * i + 3, 2 * i + 1) for i in range(3)]
    faces = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    ground = _mesh_ground(points, faces)
    active = ground.tri_active.tolist()
    # per quad (a b c d, a-b and c-d its sides): triangle a b c's edges a-b, b-c, c-a (the diagonal); triangle a c d's
    # edges a-c (the diagonal), c-d, d-a
    assert active[0:2] == [[True, False, False], [False, True, True]]  # b-c the ramp's foot; d-a the strip's start
    assert active[2:4] == [[True, True, False], [False, True, False]]  # b-c the ridge's crease; d-a the ramp's foot
    assert active[4:6] == [[True, True, False], [False, True, True]]  # b-c the strip's end; d-a the ridge's crease


def _active_edges_edge_by_edge(triangles: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The reference: GuEdgeList.cpp's rule written edge by edge (ground.active_edges takes every edge at once)."""
    active = np.zeros((len(triangles), 3), bool)
    faces: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for t, tri in enumerate(triangles):
        for k in range(3):
            i, j = int(tri[k]), int(tri[(k + 1) % 3])
            faces.setdefault((min(i, j), max(i, j)), []).append((t, k))
    p = np.asarray(points, float)
    normal = np.cross(p[triangles[:, 1]] - p[triangles[:, 0]], p[triangles[:, 2]] - p[triangles[:, 0]])
    normal /= np.linalg.norm(normal, axis=1, keepdims=True)
    for on in faces.values():
        if len(on) != 2:
            active[tuple(np.array(on).T)] = True
            continue
        (t0, k0), (t1, _) = on
        n0, n1 = normal[t0], normal[t1]
        if float(np.sum(n1 * (p[triangles[t0, (k0 + 2) % 3]] - p[triangles[t1, 0]]))) < 0.0:  # convex
            edge_is_active = np.arctan2(np.linalg.norm(np.cross(n0, n1)), np.sum(n0 * n1)) > ground_module.ACTIVE_EDGE_ANGLE
        else:
            edge_is_active = np.sum(n0 * n1) < -0.999
        active[t0, k0] = active[t1, on[1][1]] = edge_is_active
    return active


@pytest.mark.parametrize("seed", range(6))
def test_active_edges_of_every_edge_at_once_are_those_of_the_edge_by_edge_rule(seed):
    # a height field with random creases (convex and concave, some past the angle), some triangles folded over (facing
    # away) and some edges shared by three triangles (a fin on the field)
    rng = np.random.default_rng(seed)
    n = 7
    x, y = np.meshgrid(np.arange(n, dtype=float), np.arange(n, dtype=float))
    z = rng.normal(0.0, 0.6, (n, n)) * (rng.random((n, n)) < 0.6)
    points = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    cells = [(i * n + j, i * n + j + 1, (i + 1) * n + j + 1, (i + 1) * n + j) for i in range(n - 1) for j in range(n - 1)]
    faces = [t for a, b, c, d in cells for t in ((a, b, c), (a, c, d))]
    faces = [f[::-1] if rng.random() < 0.1 else f for f in faces]
    points = np.vstack([points, [[2.5, 2.5, 3.0]]])
    faces.append((faces[3][0], faces[3][1], len(points) - 1))  # a third triangle on an edge of the field's
    triangles = np.array(faces)
    assert (ground_module.active_edges(triangles, points) == _active_edges_edge_by_edge(triangles, points)).all()


def test_canonical_floats_are_canonical_value_s_floats_to_the_bit():
    from physxvehicle_usd.json_values import canonical_floats, canonical_value
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(0.0, 50.0, 600), rng.normal(0.0, 1e-6, 32), [0.0, -0.0, 1e-45, -1.5e-40, 0.1,
                             3.3e38, 1e-50, 2.5, 2.5, -7.25]]).reshape(-1, 3).tolist()
    assert (canonical_floats(values).view(np.int64) == np.asarray(canonical_value(values), float).view(np.int64)).all()
    out_of_range = [[1.0, 3.5e38, 2.0]]  # past float32: canonical_value keeps the double as it is
    assert canonical_floats(out_of_range).tolist() == canonical_value(out_of_range)


def test_fan_triangles_fan_each_polygon_from_its_first_vertex_in_order():
    indices = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    counts = [3, 4, 5]  # a triangle, a quad, a pentagon
    expected = [(0, 1, 2), (3, 4, 5), (3, 5, 6), (7, 8, 9), (7, 9, 10), (7, 10, 11)]
    assert ground_module.fan_triangles(indices, counts).tolist() == [list(t) for t in expected]
    assert ground_module.fan_triangles([], []).shape == (0, 3)
