"""Static colliders read as convex shapes (read/collision.py `static_shape`): their points in the prim's frame,
unscaled, and the world transform with its scale. The world box of what is read must be the prim's own world box,
whether a Cube scales its size or a convex-hull Mesh its points, on the prim or on a parent."""
from __future__ import annotations

import numpy as np
import pytest
from pxr import Gf, Usd, UsdGeom, UsdPhysics

from physxvehicle_usd.read import read_stage

UNIT_CUBE = [Gf.Vec3f(x, y, z) for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)]


def _stage(kind: str, scale: tuple, parent_scale: tuple) -> Usd.Stage:
    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdPhysics.Scene.Define(stage, "/World/PhysicsScene")
    parent = UsdGeom.Xform.Define(stage, "/World/Obstacles")
    parent.AddTranslateOp().Set(Gf.Vec3d(1.0, 2.0, 0.0))
    parent.AddScaleOp().Set(Gf.Vec3f(*parent_scale))
    if kind == "cube":
        prim = UsdGeom.Cube.Define(stage, "/World/Obstacles/Block").GetPrim()
    else:
        mesh = UsdGeom.Mesh.Define(stage, "/World/Obstacles/Block")
        mesh.CreatePointsAttr(UNIT_CUBE)
        prim = mesh.GetPrim()
        UsdPhysics.MeshCollisionAPI.Apply(prim).CreateApproximationAttr(kind)
    xform = UsdGeom.Xformable(prim)
    xform.AddTranslateOp().Set(Gf.Vec3d(3.0, 0.0, 0.5))
    xform.AddScaleOp().Set(Gf.Vec3f(*scale))
    UsdPhysics.CollisionAPI.Apply(prim)
    return stage


@pytest.mark.parametrize("kind", ["cube", UsdPhysics.Tokens.convexHull, UsdPhysics.Tokens.boundingCube])
@pytest.mark.parametrize("scale, parent_scale", [((1, 1, 1), (1, 1, 1)), ((0.4, 0.6, 0.7), (1, 1, 1)),
                                                 ((0.4, 0.6, 0.7), (2, 1, 0.5))])
def test_a_static_convex_collider_is_read_as_large_as_the_prim_is(kind, scale, parent_scale):
    stage = _stage(str(kind), scale, parent_scale)
    ground = {g.path: g for g in read_stage(stage).ground}["/World/Obstacles/Block"]
    assert ground.kind == "convex"
    world = np.c_[np.asarray(ground.points, float), np.ones(len(ground.points))] @ np.asarray(ground.transform)
    box = UsdGeom.BBoxCache(Usd.TimeCode.Default(), [UsdGeom.Tokens.default_]).ComputeWorldBound(
        stage.GetPrimAtPath("/World/Obstacles/Block")).ComputeAlignedRange()
    np.testing.assert_allclose(world[:, :3].min(axis=0), box.GetMin(), atol=1e-6)
    np.testing.assert_allclose(world[:, :3].max(axis=0), box.GetMax(), atol=1e-6)


@pytest.mark.parametrize("scale, parent_scale", [((1, 1, 1), (1, 1, 1)), ((0.5, 0.5, 2.0), (1, 1, 1)),
                                                 ((1, 1, 2.0), (0.5, 0.5, 1.5))])
def test_a_static_cylinder_is_read_as_its_exact_cylinder_and_written_back_as_one(tmp_path, scale, parent_scale):
    """The exact cylinder PhysX collides (its 30-corner hull as points too): its cap centres in the prim's frame,
    unscaled, the radius as UsdPhysics scales it; in the world, the prim's own bound. write_stage writes it back as a
    UsdGeom.Cylinder that reads the same."""
    from physxvehicle_usd.write import write_stage

    stage = Usd.Stage.CreateInMemory()
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.Scene.Define(stage, "/World/PhysicsScene")
    parent = UsdGeom.Xform.Define(stage, "/World/Obstacles")
    parent.AddScaleOp().Set(Gf.Vec3f(*parent_scale))
    cylinder = UsdGeom.Cylinder.Define(stage, "/World/Obstacles/Bollard")
    cylinder.CreateRadiusAttr(0.3)
    cylinder.CreateHeightAttr(1.0)
    cylinder.CreateAxisAttr(UsdGeom.Tokens.z)
    cylinder.AddTranslateOp().Set(Gf.Vec3d(3.0, 1.0, 0.5))
    cylinder.AddScaleOp().Set(Gf.Vec3f(*scale))
    UsdPhysics.CollisionAPI.Apply(cylinder.GetPrim())
    description = read_stage(stage)
    ground = {g.path: g for g in description.ground}["/World/Obstacles/Bollard"]
    assert ground.kind == "convex" and ground.cylinderEnds is not None
    ends = np.c_[np.asarray(ground.cylinderEnds, float), np.ones(2)] @ np.asarray(ground.transform)
    box = UsdGeom.BBoxCache(Usd.TimeCode.Default(), [UsdGeom.Tokens.default_]).ComputeWorldBound(
        stage.GetPrimAtPath("/World/Obstacles/Bollard")).ComputeAlignedRange()
    centre = (np.asarray(box.GetMin()) + np.asarray(box.GetMax())) / 2
    np.testing.assert_allclose(ends[:, :2], np.tile(centre[:2], (2, 1)), atol=1e-6)  # upright, on the axis
    np.testing.assert_allclose(sorted(ends[:, 2]), [box.GetMin()[2], box.GetMax()[2]], atol=1e-6)
    np.testing.assert_allclose(ground.radius, (box.GetMax()[0] - box.GetMin()[0]) / 2, atol=1e-6)
    again = {g.path: g for g in read_stage(write_stage(description)).ground}["/World/Obstacles/Bollard"]
    np.testing.assert_allclose(np.c_[np.asarray(again.cylinderEnds, float), np.ones(2)] @ np.asarray(again.transform),
                               ends, atol=1e-6)
    assert again.radius == pytest.approx(ground.radius)
