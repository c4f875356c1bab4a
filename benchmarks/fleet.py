"""Fleet stages for the benchmarks: N copies of the sample car, by reference, on the sample's ground plane or on a
triangle-mesh road with bumps.

The car asset is the sample car read and written back with every component on its own prims
(`write_stage(shared=False)`), plus the sample's chassis collider, so that one reference brings a complete,
self-contained vehicle.
The fleet stage sublayers the sample (scene, ground, material, friction table), deactivates the
sample's own car and references the asset N times on a square grid.
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.write import write_stage

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "car" / "car.usda"
VEHICLE = "/World/Car"
SPACING = 6.0  # metres between cars
SUBSTEP_COUNTS = ("lowForwardSpeedSubStepCount", "highForwardSpeedSubStepCount")
GROUND_PLANE = "/World/GroundPlane"
ROADS = ("plane", "bumps", "obstacles")
# The bump road: a triangulated height field under the whole grid, cosine bumps across the driving direction (+X)
BUMP_HEIGHT = 0.04  # metres
BUMP_PITCH = 3.0  # metres from bump to bump
BUMP_CELL = (0.25, SPACING / 2.0)  # triangle grid spacing along and across the driving direction, metres


# The sample car's chassis collider and its group, which the description's writer does not author (it writes the
# vehicle, not its colliders): copied into the asset, so that every car of a fleet collides as the sample does
COLLIDER_SPECS = ("ChassisCollision", "ChassisGroup")


def car_asset(folder: Path) -> Path:
    """The car asset in `folder`, named by a digest of what today's reader and writer make of the sample: a folder
    kept from an older version holds its older car under another name, and fleets (named by the same digest) are
    made anew rather than timing it. An existing file of the name is used as it is (tests break a copy on purpose)."""
    description = read_stage(SAMPLE)
    for wheel in description.vehicles[VEHICLE].wheels:
        # the friction table lies outside the car: a reference could not reach it; tires use the default table
        wheel.tire.set("frictionTable", None, wheel.tire.source("frictionTable"))
    single = type(description)(stage=description.stage, vehicles={VEHICLE: description.vehicles[VEHICLE]})
    stage = write_stage(single, shared=False)
    stage.SetDefaultPrim(stage.GetPrimAtPath("/World"))
    sample = Sdf.Layer.FindOrOpen(str(SAMPLE))
    for name in COLLIDER_SPECS:
        Sdf.CopySpec(sample, f"{VEHICLE}/{name}", stage.GetRootLayer(), f"{VEHICLE}/{name}")
    text = stage.GetRootLayer().ExportToString()
    path = folder / f"car_asset_with_collider_{hashlib.sha1(text.encode()).hexdigest()[:10]}.usda"
    if not path.exists():
        path.write_text(text)
    return path


def fleet_stage(n: int, folder: Path, substeps: tuple[int, int] | None = None, road: str = "plane") -> Path:
    """substeps: (low, high) sub-step counts authored over every car's own (None: the sample car's); road: "plane"
    (the sample's ground plane) or "bumps" (`bump_road`, the plane deactivated)."""
    folder.mkdir(parents=True, exist_ok=True)
    asset = car_asset(folder)
    name = f"fleet_{n}_collider_metres" + ("" if substeps is None else f"_substeps_{substeps[0]}_{substeps[1]}") \
        + ("" if road == "plane" else f"_{road}") + "_" + asset.stem.rsplit("_", 1)[1]  # (the asset's digest)
    path = folder / f"{name}.usda"
    if path.exists():
        return path
    stage = Usd.Stage.CreateInMemory()
    layer = stage.GetRootLayer()
    layer.subLayerPaths.append(str(SAMPLE))
    sample = Usd.Stage.Open(str(SAMPLE))  # a stage's units and up axis are its root layer's: the sample's, here
    UsdGeom.SetStageMetersPerUnit(stage, UsdGeom.GetStageMetersPerUnit(sample))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.GetStageUpAxis(sample))
    UsdPhysics.SetStageKilogramsPerUnit(stage, UsdPhysics.GetStageKilogramsPerUnit(sample))
    stage.OverridePrim(VEHICLE).SetActive(False)
    side = math.ceil(math.sqrt(n))
    for i in range(n):
        slot = UsdGeom.Xform.Define(stage, f"/World/Fleet/Slot_{i}")
        slot.AddTranslateOp().Set(Gf.Vec3d((i % side) * SPACING, (i // side) * SPACING, 0.0))
        car = stage.DefinePrim(f"/World/Fleet/Slot_{i}/Car")
        car.GetReferences().AddReference(str(asset), Sdf.Path(VEHICLE))
        if substeps is not None:
            for base, count in zip(SUBSTEP_COUNTS, substeps):
                car.CreateAttribute(P.full_name(P.VEHICLE, base), Sdf.ValueTypeNames.Int).Set(count)
    if road in ("bumps", "obstacles"):
        stage.OverridePrim(GROUND_PLANE).SetActive(False)
        bump_road(stage, "/World/BumpRoad", length=(side - 1) * SPACING + 60.0, width=side * SPACING,
                  material=stage.GetPrimAtPath(GROUND_PLANE))
    if road == "obstacles":
        for i in range(n):
            obstacle(stage, f"/World/Obstacles/Ridge_{i}", ((i % side) * SPACING, (i // side) * SPACING),
                     stage.GetPrimAtPath(GROUND_PLANE))
    layer.Export(str(path))
    return path


# The obstacles road: the bump road and, ahead of every car, a box between its wheel tracks that its chassis meets
RIDGE_AHEAD = 2.04 + 0.5  # the box's near face ahead of the car's origin: 0.5 m ahead of the chassis's nose [m]
RIDGE_SIZE = (0.4, 0.6, 0.5)  # along, across, high [m]


def obstacle(stage: Usd.Stage, path: str, car_xy: tuple[float, float], material: Usd.Prim) -> UsdGeom.Cube:
    """A static box (a collider) ahead of the car whose slot is at `car_xy`, bound to the physics material
    `material` is."""
    from pxr import UsdShade

    cube = UsdGeom.Cube.Define(stage, path)
    cube.CreateSizeAttr(1.0)
    cube.AddTranslateOp().Set(Gf.Vec3d(car_xy[0] + RIDGE_AHEAD + RIDGE_SIZE[0] / 2, car_xy[1], RIDGE_SIZE[2] / 2))
    cube.AddScaleOp().Set(Gf.Vec3f(*RIDGE_SIZE))
    UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
    binding = UsdShade.MaterialBindingAPI(material).GetDirectBinding(materialPurpose="physics").GetMaterial()
    UsdShade.MaterialBindingAPI.Apply(cube.GetPrim()).Bind(binding, materialPurpose="physics")
    return cube


def bump_road(stage: Usd.Stage, path: str, length: float, width: float, material: Usd.Prim) -> UsdGeom.Mesh:
    """A static triangle mesh from x = -10 m to `length`, y = -SPACING / 2 to `width`: flat where the cars start
    (x < 2 m), then a cosine bump of BUMP_HEIGHT every BUMP_PITCH; bound to the physics material `material` is."""
    from pxr import UsdPhysics, UsdShade, Vt

    start_x, start_y, flat_until = -10.0, -SPACING / 2.0, 2.0
    xs = np.arange(start_x, length + BUMP_CELL[0], BUMP_CELL[0])
    ys = np.arange(start_y, width + BUMP_CELL[1], BUMP_CELL[1])
    phase = np.clip(xs - flat_until, 0.0, None) / BUMP_PITCH
    heights = np.where(xs > flat_until, 0.5 * BUMP_HEIGHT * (1.0 - np.cos(2.0 * np.pi * phase)), 0.0)
    gx, gy = np.meshgrid(np.arange(len(xs)), np.arange(len(ys)), indexing="ij")
    points = np.stack([xs[gx], ys[gy], heights[gx]], axis=-1).reshape(-1, 3)
    corner = (gx[:-1, :-1] * len(ys) + gy[:-1, :-1]).ravel()
    up, right = len(ys), 1  # index steps to the next point along x and along y
    # two triangles per cell, wound counter-clockwise seen from above (+Z normals)
    faces = np.stack([corner, corner + up, corner + up + right, corner, corner + up + right, corner + right], axis=1)
    mesh = UsdGeom.Mesh.Define(stage, path)
    mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(points.astype(np.float32)))
    mesh.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(faces.size // 3, 3, dtype=np.int32)))
    mesh.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(faces.ravel().astype(np.int32)))
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    UsdPhysics.MeshCollisionAPI.Apply(mesh.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.none)
    binding = UsdShade.MaterialBindingAPI(material).GetDirectBinding(materialPurpose="physics").GetMaterial()
    UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(binding, materialPurpose="physics")
    return mesh
