"""Stages of tests/test_conformance_roads.py, authored on the fly into a folder the test names.

bump_road(path)    the sample car twice on a triangle-mesh road with bumps a few centimetres high: /World/Raycast
                   queries the road with raycasts, /World/Sweep with sweeps (everything else equal). Each lane
                   has a bump across the whole lane (both wheels of an axle go over it together: pitch and heave)
                   and then one under the left wheels only (roll), so the wheels meet sloped triangles, their
                   edges and the flat road between them.
mixed_fleet(path)  one vehicle of every drive type, far apart on one ground plane and stepped together: the car
                   preset (standard drive, front-wheel drive), the basic-drive car driven on its rear axle (so its
                   front wheels are undriven), the tank preset and the car preset without a drive (a wheel
                   controller on every wheel).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade

HERE = Path(__file__).resolve().parent
SAMPLE_CAR = HERE.parents[1] / "samples" / "car" / "car.usda"

# -- the bump road --------------------------------------------------------------------------------------------

# Lanes: vehicle name -> lateral position of its centre [m]. The sample car's track is 1.6 m, its wheels 0.315 m
# wide, so the left wheels run at y + 0.8.
LANES = {"Raycast": 3.0, "Sweep": -3.0}
QUERY_TYPES = {"Raycast": "raycast", "Sweep": "sweep"}
ROAD_X = (-6.0, 48.0)  # the road's extent along X (forward) at y = 0 [m]
ROAD_HALF_WIDTH = 6.0
# No edge of the road runs along or across a wheel's track near a wheel. The hull PhysX sweeps for a wheel has flat
# faces and edges along the axle (its sides) and along the track (its rims); where one of them comes down on a road
# edge parallel to it, PhysX's GJK now and then returns the normal of the hull's next face or a blend of two normals
# (tilted by up to 17 degrees) instead of the road's: a one-step glitch of a centimetre of jounce that turns on a
# millimetre of position, so no trace could follow it. Edges across the road are skewed (at atan(SKEW) to the axles),
# lines along the road lie between the wheel tracks, and the cells are about as long as wide, so that their diagonals
# cross the tracks at 35 degrees or more. The bumps are skewed with the road: the two wheels of an axle meet a bump
# at different times (roll as well as pitch).
SKEW = 0.4
SPACING = 0.1  # width of a grid cell over a bump, along X [m]
CELL_X = 1.0  # width of a cell of the flat road, along X [m] (PhysX's single-precision GJK is a little off on long
# triangles: contact planes 0.1 mm low on 27 m ones)
TRACK_CLEAR = (0.3, 1.3)  # lines along the road at these distances from the lane centre, either side (the wheels run
# at 0.8 +- 0.16)
# Bumps: (centre along X at the lane's centre, length along X, height, lateral band relative to the lane centre or None
# for the whole lane). The profile along X is a raised cosine; across a band it ramps up over BAND_RAMP at each side.
BUMPS = ((4.0, 1.2, 0.05, None), (12.0, 1.6, 0.04, (0.35, 1.4)))
BAND_RAMP = 0.3


def _bump_profile(u: np.ndarray, centre: float, length: float) -> np.ndarray:
    s = np.clip((u - centre) / length + 0.5, 0.0, 1.0)
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * s)


def _road_heights(u: np.ndarray, y: np.ndarray) -> np.ndarray:
    """z on the grid of skewed coordinates u = x - SKEW y (along) by y (across), shape (len(u), len(y))."""
    z = np.zeros((len(u), len(y)))
    for centre, length, height, band in BUMPS:
        for lane in LANES.values():
            along = _bump_profile(u, centre - SKEW * lane, length)[:, None]
            if band is None:
                across = (np.abs(y - lane) <= ROAD_HALF_WIDTH / 2).astype(float)
            else:
                lo, hi = lane + band[0], lane + band[1]
                across = np.clip(np.minimum(y - lo, hi - y) / BAND_RAMP + 1.0, 0.0, 1.0)
            z = np.maximum(z, height * along * across[None, :])
    return z


def _road_grid() -> tuple[np.ndarray, np.ndarray]:
    """Grid lines: u = x - SKEW y (across the road, skewed) and y (along the road)."""
    us = set(np.round(np.arange(ROAD_X[0], ROAD_X[1], CELL_X), 6)) | {ROAD_X[1]}
    ys = set()
    for lane in LANES.values():
        ys.update((lane - ROAD_HALF_WIDTH / 2, lane + ROAD_HALF_WIDTH / 2))
        ys.update(lane + side * d for d in TRACK_CLEAR for side in (-1, 1))
        for centre, length, _, band in BUMPS:
            n = int(round(length / SPACING))
            us.update(np.round(centre - SKEW * lane - length / 2 + SPACING * np.arange(n + 1), 6))
            if band is not None:
                lo, hi = lane + band[0], lane + band[1]
                ys.update((lo - BAND_RAMP, lo, hi, hi + BAND_RAMP))
    return _merge_close(sorted(us)), _merge_close(sorted(ys))


def _merge_close(values: list[float], gap: float = 0.02) -> np.ndarray:
    """Grid lines closer than `gap` merged (no sliver triangles)."""
    out = [values[0]]
    for v in values[1:]:
        if v - out[-1] >= gap:
            out.append(v)
    return np.array(out)


def road_mesh() -> tuple[list[tuple[float, float, float]], list[int], list[int]]:
    """Points, faceVertexIndices and faceVertexCounts of the road: quads of the grid, each split in two
    triangles (the mesh is authored as triangles, so how a reader triangulates quads does not matter)."""
    u, y = _road_grid()
    z = _road_heights(u, y)
    points = [(float(a + SKEW * b), float(b), float(z[i, j])) for i, a in enumerate(u) for j, b in enumerate(y)]
    ny = len(y)
    indices: list[int] = []
    for i in range(len(u) - 1):
        for j in range(ny - 1):
            a, b, c, d = i * ny + j, (i + 1) * ny + j, (i + 1) * ny + j + 1, i * ny + j + 1
            indices += [a, b, c, a, c, d]  # counter-clockwise seen from above: normals up
    return points, indices, [3] * (len(indices) // 3)


def bump_road(path: Path) -> Path:
    layer = Sdf.Layer.CreateAnonymous(".usda")
    layer.TransferContent(Sdf.Layer.FindOrOpen(str(SAMPLE_CAR)))
    car = Sdf.Path("/World/Car")
    for name, y in LANES.items():
        dest = Sdf.Path(f"/World/{name}")
        Sdf.CopySpec(layer, car, layer, dest)
        spec = layer.GetPrimAtPath(dest)
        spec.attributes["xformOp:translate"].default = (0.0, y, 0.55)
        spec.attributes["physxVehicle:suspensionLineQueryType"].default = QUERY_TYPES[name]
    world = layer.GetPrimAtPath("/World")
    del world.nameChildren["Car"]
    del world.nameChildren["GroundPlane"]
    stage = Usd.Stage.Open(layer)
    mesh = UsdGeom.Mesh.Define(stage, "/World/Road")
    points, indices, counts = road_mesh()
    mesh.CreatePointsAttr([Gf.Vec3f(*p) for p in points])
    mesh.CreateFaceVertexIndicesAttr(indices)
    mesh.CreateFaceVertexCountsAttr(counts)
    mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    # a static triangle mesh as PhysX cooks it (no convex approximation)
    UsdPhysics.MeshCollisionAPI.Apply(mesh.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.none)
    UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(
        UsdShade.Material(stage.GetPrimAtPath("/World/Asphalt")), UsdShade.Tokens.weakerThanDescendants, "physics")
    layer.documentation = ("The sample car twice on a triangle-mesh road with bumps, one raycasting, one sweeping "
                           "(generated by tests/scenarios/roads.py)")
    layer.Export(str(path))
    return path


# -- the mixed fleet ------------------------------------------------------------------------------------------

def fleet_specs():
    """(spec, lateral position [m]) of every vehicle of the mixed fleet."""
    from physxvehicle_usd.author import preset_spec

    return [(preset_spec("car", name="Standard"), 24.0),
            (preset_spec("basic_car", name="Basic", driven_axles=(1,)), 8.0),
            (preset_spec("tank", name="Tank"), -8.0),
            (preset_spec("car", name="Raw", drive="none"), -24.0)]


def mixed_fleet(path: Path, up: str = "Z") -> Path:
    """Every vehicle authored by author_vehicle into a stage of its own, then copied into one layer; the
    wizard's collision groups take the colliders of every vehicle (each stage lists only its own)."""
    from physxvehicle_usd.author import author_vehicle

    layer: Sdf.Layer | None = None
    includes: dict[str, list[Sdf.Path]] = {}
    for spec, y in fleet_specs():
        stage = author_vehicle(spec, up=up)  # holds the layer
        part = stage.GetRootLayer()
        if layer is None:
            layer = Sdf.Layer.CreateAnonymous(".usda")
            layer.TransferContent(part)
        else:
            for name in (spec.name, f"{spec.name}Parts"):
                Sdf.CopySpec(part, Sdf.Path(f"/World/{name}"), layer, Sdf.Path(f"/World/{name}"))
        for prim in part.GetPrimAtPath("/World").nameChildren:
            rel = prim.relationships.get("collection:colliders:includes")
            if rel is not None:
                includes.setdefault(prim.name, []).extend(rel.targetPathList.explicitItems)
        translate = layer.GetPrimAtPath(f"/World/{spec.name}").attributes["xformOp:translate"]
        position = list(translate.default)
        position[1 if up == "Z" else 0] = y  # across: Y when Z is up, X when Y is up (+Z forward)
        translate.default = Gf.Vec3d(*position)
    for group, targets in includes.items():
        rel = layer.GetPrimAtPath(f"/World/{group}").relationships["collection:colliders:includes"]
        rel.targetPathList.explicitItems = list(dict.fromkeys(targets))
    layer.documentation = ("One vehicle of every drive type on one ground plane (generated by "
                           "tests/scenarios/roads.py)")
    layer.Export(str(path))
    return path
