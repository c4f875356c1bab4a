"""Stages of tests/test_conformance_roads.py, authored on the fly into a folder the test names.

bump_road(path)    the sample car twice, each on a triangle-mesh lane of its own with bumps a few centimetres high:
                   /World/Raycast queries the road with raycasts, /World/Sweep with sweeps (everything else equal).
                   Each lane has a bump across the whole lane and then one under the left wheels only, both skewed,
                   so the wheels meet sloped triangles, their edges and the flat road between them, and the body
                   heaves, pitches and rolls. The cars start rolling at START_SPEED: a launch from rest leaves the
                   two sides some millimetres apart (the launch's wheel chatter is chaotic), and with the road plane
                   of the step's begin used for the whole step, a bump's edge crossed one step apart reads as a
                   jolt of a few millimetres of jounce, in PhysX between its own left and right wheels as well.
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
# wide, so the wheels run at y +- 0.8. Each lane is a mesh of its own.
LANES = {"Raycast": 3.0, "Sweep": -3.0}
QUERY_TYPES = {"Raycast": "raycast", "Sweep": "sweep"}
START_X, START_SPEED = -2.0, 6.0  # where the cars start along X and how fast they roll there [m, m/s]
ROAD_X = (-6.0, 48.0)  # a lane's extent along X (forward) at its centre line [m]
LANE_HALF_WIDTH = 3.0
# The lanes are meshed for PhysX's sweeps, which meet the road with a hull of flat faces whose edges run along the
# axle and along the track; PhysX finds their contact with GJK in single precision. Where a hull edge comes down on a
# road edge parallel to it, or on a long, thin triangle, GJK now and then returns a normal tilted by up to 17
# degrees (a side face's, or a blend) instead of the road's: a one-step glitch of a centimetre of jounce that turns
# on a millimetre of position, which no reimplementation could follow. So: edges across the lane are skewed (at
# atan(SKEW) to the axles), lines along the lane lie between and on the wheels' centre lines (clear of their
# sides), and cells are at most ASPECT times as long as wide. The bumps are skewed with the lane: the two wheels of
# an axle meet a bump at different times (roll as well as pitch).
SKEW = 0.4
ALONG = (0.0, 0.3, 0.8, 1.3, 1.6, LANE_HALF_WIDTH)  # lines along the lane, either side of its centre [m]
CELL_X = 1.0  # width of a cell of the flat road, along X [m]
SPACING = 0.1  # width of a cell over a bump, along X [m]
# Bumps: (centre along X at the lane's centre, length along X, height, lateral band relative to the lane centre or
# None for the whole lane). Along X a raised cosine; across a band it ramps from 0 at the band's outer lines to
# full height at its inner ones.
BUMPS = ((4.0, 2.0, 0.05, None), (12.0, 2.0, 0.04, (0.0, 0.3, 1.3, 1.6)))


def _bump_profile(u: np.ndarray, centre: float, length: float) -> np.ndarray:
    s = np.clip((u - centre) / length + 0.5, 0.0, 1.0)
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * s)


def _lane_heights(u: np.ndarray, y: np.ndarray) -> np.ndarray:
    """z on a lane's grid of u = x - SKEW y (along, from the lane centre) by y (across, from the lane centre)."""
    z = np.zeros((len(u), len(y)))
    for centre, length, height, band in BUMPS:
        along = _bump_profile(u, centre, length)[:, None]
        across = np.ones(len(y)) if band is None else np.interp(y, band, (0.0, 1.0, 1.0, 0.0))
        z = np.maximum(z, height * along * across[None, :])
    return z


def _lane_grid() -> tuple[np.ndarray, np.ndarray]:
    us = set(np.round(np.arange(ROAD_X[0], ROAD_X[1], CELL_X), 6)) | {ROAD_X[1]}
    for centre, length, _, _ in BUMPS:
        n = int(round(length / SPACING))
        us.update(np.round(centre - length / 2 + SPACING * np.arange(n + 1), 6))
    ys = sorted({side * d for d in ALONG for side in (-1.0, 1.0)})
    return np.array(sorted(us)), np.array(ys)


def lane_mesh(lane: float) -> tuple[list[tuple[float, float, float]], list[int], list[int]]:
    """Points, faceVertexIndices and faceVertexCounts of the lane centred at y = lane: quads of the grid, each
    split in two triangles (authored as triangles, so how a reader would triangulate quads does not matter)."""
    u, y = _lane_grid()
    z = _lane_heights(u, y)
    points = [(float(a + SKEW * b), float(lane + b), float(z[i, j])) for i, a in enumerate(u) for j, b in enumerate(y)]
    ny = len(y)
    indices: list[int] = []
    for i in range(len(u) - 1):
        for j in range(ny - 1):
            a, b, c, d = i * ny + j, (i + 1) * ny + j, (i + 1) * ny + j + 1, i * ny + j + 1
            indices += [a, b, c, a, c, d]  # counter-clockwise seen from above: normals up
    return points, indices, [3] * (len(indices) // 3)


def bump_road(path: Path, start_speed: float = START_SPEED) -> Path:
    """The bump road; its cars start rolling at `start_speed` [m/s] (0: from rest)."""
    layer = Sdf.Layer.CreateAnonymous(".usda")
    layer.TransferContent(Sdf.Layer.FindOrOpen(str(SAMPLE_CAR)))
    car = Sdf.Path("/World/Car")
    for name, y in LANES.items():
        dest = Sdf.Path(f"/World/{name}")
        Sdf.CopySpec(layer, car, layer, dest)
        spec = layer.GetPrimAtPath(dest)
        spec.attributes["xformOp:translate"].default = (START_X, y, 0.55)
        spec.attributes["physics:velocity"].default = (start_speed, 0.0, 0.0)
        spec.attributes["physxVehicle:suspensionLineQueryType"].default = QUERY_TYPES[name]
    world = layer.GetPrimAtPath("/World")
    del world.nameChildren["Car"]
    del world.nameChildren["GroundPlane"]
    stage = Usd.Stage.Open(layer)
    for name, y in LANES.items():
        mesh = UsdGeom.Mesh.Define(stage, f"/World/Lane{name}")
        points, indices, counts = lane_mesh(y)
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

# The presets' least sub-step counts raised to the sample car's: with 3 / 1 the direct-drive wheels (basic drive, wheel
# controllers) chatter for over a second after a launch, in PhysX and here alike, on branches no trace can follow.
SUB_STEPS = (8, 4)


def fleet_specs(sub_steps: tuple[int, int] | None = SUB_STEPS):
    """(spec, lateral position [m]) of every vehicle of the mixed fleet; sub_steps: the least sub-step counts (None:
    the presets' own)."""
    from physxvehicle_usd.author import preset_spec

    floor = {} if sub_steps is None else {"sub_step_floor": sub_steps}
    return [(preset_spec("car", name="Standard", **floor), 24.0),
            (preset_spec("basic_car", name="Basic", driven_axles=(1,), **floor), 8.0),
            (preset_spec("tank", name="Tank", **floor), -8.0),
            (preset_spec("car", name="Raw", drive="none", **floor), -24.0)]


def mixed_fleet(path: Path, sub_steps: tuple[int, int] | None = SUB_STEPS) -> Path:
    """Every vehicle authored by author_vehicle into a stage of its own, then copied into one layer; the
    wizard's collision groups take the colliders of every vehicle (each stage lists only its own)."""
    from physxvehicle_usd.author import author_vehicle

    layer: Sdf.Layer | None = None
    includes: dict[str, list[Sdf.Path]] = {}
    for spec, y in fleet_specs(sub_steps):
        stage = author_vehicle(spec)  # holds the layer (Z up, X forward)
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
        x, _, z = translate.default
        translate.default = Gf.Vec3d(x, y, z)
    for group, targets in includes.items():
        rel = layer.GetPrimAtPath(f"/World/{group}").relationships["collection:colliders:includes"]
        rel.targetPathList.explicitItems = list(dict.fromkeys(targets))
    layer.documentation = ("One vehicle of every drive type on one ground plane (generated by "
                           "tests/scenarios/roads.py)")
    layer.Export(str(path))
    return path
