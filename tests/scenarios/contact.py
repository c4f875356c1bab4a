"""Stages of tests/test_conformance_contact.py, authored on the fly into a folder the test names: the sample car
(samples/car/car.usda, its chassis a box collider) meeting static colliders.

obstacles(path, units)  copies of the sample car far apart on one ground plane, each with its own obstacle:
    Ridge<speed>  a box 0.7 m high and 0.6 m wide between the wheel tracks, 1 m ahead of the chassis, the car
                  rolling into it at <speed> m/s (the chassis's nose meets the ridge's face; the wheels pass by);
    Curb          a box across the whole track, 0.35 m high (5 cm above the chassis's underside), at 4 m/s;
    Drop          the car upside down, its roof 0.45 m above the ground: it falls onto its chassis box;
    WheelsTouching  full throttle from rest with a collision cylinder on every wheel (Isaac Lab's assets have them),
                  in no group the ground is filtered from: the cylinders, moved with the wheels every step (as
                  omni.physx moves a wheel's collision shape), touch the ground where the tyres do (exact
                  cylinders, as PhysX collides them, not the 30-corner hulls: those touch only at a corner);
    WheelsFiltered  the same cylinders in a group filtered from the ground's: they touch nothing;
    WheelsOnMesh  WheelsTouching on a flat triangle-mesh road (ROAD: two triangles, ROAD_HEIGHT above the ground
                  plane): the cylinders on the triangles' faces, and across their long diagonal;
    WheelsOnBump  the same road with a gentle bump (BUMP: up 3 degrees, flat, down 3 degrees, within PhysX's 8-degree
                  face tolerance; a quad between each two corners of the profile): the cylinders meet the edges
                  between the triangles (speculative contacts on a neighbour's edge, which PhysX keeps);
    WheelsOverBump  that road rolled over at 8 m/s with the accelerator at 0 (no launch);
    WheelsRolling  WheelsOnMesh's flat road rolled over so: the cylinders drag it almost to a stop at about 5 m, the
                  front right one's outer rim reaching the triangles' diagonal from about step 100 (of 150);
    Rollover      released on its right side (rolled 100 degrees), turning on at 150 deg/s, 1 cm above the ground:
                  it pivots on the chassis edge and rolls slowly back onto its wheels (flat ground, not a slope);
    HullOnHump    its chassis a convex-hull mesh (the box with its nose's underside raised 0.2 m), rolling at 6 m/s
                  over a triangle-mesh hump between its wheel tracks (0.45 m high, 1 m ramps) that the hull scrapes;
    CapsuleRidge  its chassis a capsule along the car (radius 0.35, its ends' centres 3.6 m apart, as high as the
                  box's middle), rolling at 6 m/s into a ridge like Ridge<speed>'s: the capsule's round nose meets it;
    SphereOnEdge  its chassis a sphere (radius 0.5), 0.3 m above the edge of a box between the wheel tracks (0.9 m
                  high, from 0.1 to 0.9 m ahead of the sphere's centre), falls onto the edge and glances off it;
    Bounce        Drop's fall with a chassis of restitution 1 (0.5 against the asphalt's 0): it meets the ground at
                  2.8 m/s, faster than the scene's physxScene:bounceThreshold (BOUNCE_THRESHOLD), and bounces;
    NoBounce      the same from lower (its roof 0.1 m above the ground): 1.4 m/s, slower than the threshold, no bounce;
    RolloverSlope  on its right side on a triangle-mesh slope (two triangles) rising 22 degrees to its left, its roof
                  downhill, its side flat on the slope 1 cm above it, turning on at 250 deg/s: the uphill edge strikes
                  the slope in the second step and leaves it rolling slowly (0.5-0.6 rad/s) on the edge between its
                  side and its roof; past the balance point (about step 30) it falls onto its roof (step 90, at
                  2.5 rad/s), slides down the slope on the roof for about 0.4 m and comes to rest by step 140, upside
                  down (ovphysx: the roll goes from 112 to 207 degrees, the car ends 2.1 m from its start);
    Boulder       a static sphere (radius 0.4, on the ground) between the wheel tracks, 1 m ahead of the chassis, the
                  car rolling into it at 5 m/s: the chassis box's nose strikes its equator;
    Log           a static capsule lying across the road (radius 0.12, on the ground, 3 m long), its axis 0.5 m ahead
                  of the chassis, the car rolling into it at 6 m/s: the suspension raycasts meet its round side and
                  top;
    LogSwept      Log with the suspension sweeping the wheel's hull (the 30-corner prism) rather than casting rays;
    LogStrike     a thicker, shorter log (radius 0.2, on the ground, 0.8 m between its ends' centres) between the wheel
                  tracks, 1 m ahead of the chassis, at 4 m/s: the chassis box's nose (its underside 0.1 m below the
                  log's top) strikes the log's round side (capsule-box contacts);
    SphereOnLog   SphereOnEdge's sphere chassis dropped 0.3 m above its spawn height onto a static capsule across its
                  path (radius 0.2, 1 m long, on the ground, its axis 0.25 m ahead of the sphere's centre, between the
                  wheel tracks): the sphere lands on the log and rests on it, its nose held up.
curbs(path, units)  the sample car with a collision cylinder on every wheel, in a group filtered from the ground
                  plane's (they touch only the curb), rolled into a static curb across its track (CURBS):
    CylinderCurb  a box 0.1 m high at 6 m/s: the front cylinders strike its top edge, stopping the car in two steps;
    CylinderStop  a box 0.12 m high at 3 m/s (the car slower when it gets there);
    CylinderWedge  a convex-hull curb (a prism, its front face sloping back at 45 degrees, 0.12 m high) at 6 m/s;
    CylinderLog   a static capsule lying across the road (radius 0.12, 6 m long) at 6 m/s;
    CylinderStone  a static sphere (radius 0.15, on the ground) in the right wheels' track at 6 m/s;
    CylinderPipe  a static cylinder lying across the road (radius 0.12, 6 m long) at 6 m/s: two exact cylinders;
    Bollard       a static upright cylinder (radius 0.15, 1 m high) 0.4 m left of the car's middle, 1 m ahead of its
                  nose, at 5 m/s: the chassis box strikes it off-centre.
    PhysX meets the exact cylinders against a box as its box core, a hull as its points core, a sphere or capsule as
    its point or segment core, a cylinder as its core (convex-core convex contacts; sim/contact/cylinder_faces.py
    `cylinder_convexes`).
Units: metres and kilograms, or centimetres and grams (every length x 100, every mass x 1000: the same motion).
"""
from __future__ import annotations

import math
from pathlib import Path

from pxr import Gf, Sdf, Usd, UsdGeom, UsdPhysics, UsdShade

HERE = Path(__file__).resolve().parent
CHASSIS_FRONT = 2.04  # the chassis box's front face ahead of the car's origin [m]
CHASSIS_BOTTOM = 0.30  # its underside above the ground at the spawn height [m]

# name -> (lateral position, start speed [m/s], obstacle: (centre x, y, z ahead of / beside the car), half extents)
RIDGE_SPEEDS = (3.0, 6.0, 10.0)
CARS = {f"Ridge{int(v)}": (20.0 * k, v, ((CHASSIS_FRONT + 1.0 + 0.2, 0.0, 0.35), (0.2, 0.3, 0.35)))
        for k, v in enumerate(RIDGE_SPEEDS)}
CARS["Curb"] = (-20.0, 4.0, ((CHASSIS_FRONT + 1.0 + 0.5, 0.0, 0.175), (0.5, 3.0, 0.175)))
CARS["Drop"] = (-40.0, 0.0, None)
CARS["WheelsTouching"] = (-60.0, 0.0, None)
CARS["WheelsFiltered"] = (-80.0, 0.0, None)
CARS["HullOnHump"] = (-100.0, 6.0, None)
CARS["Rollover"] = (-120.0, 0.0, None)
CARS["CapsuleRidge"] = (-140.0, 6.0, ((CHASSIS_FRONT + 1.0 + 0.2, 0.0, 0.35), (0.2, 0.3, 0.35)))
CARS["SphereOnEdge"] = (-160.0, 0.0, ((0.5 - 0.16, 0.0, 0.45), (0.4, 0.3, 0.45)))
CARS["Bounce"] = (-180.0, 0.0, None)
CARS["NoBounce"] = (-200.0, 0.0, None)
CARS["RolloverSlope"] = (-220.0, 0.0, None)
CARS["Boulder"] = (-240.0, 5.0, None)
CARS["Log"] = (-260.0, 6.0, None)
CARS["SphereOnLog"] = (-280.0, 0.0, None)
CARS["LogSwept"] = (-300.0, 6.0, None)
CARS["LogStrike"] = (-320.0, 4.0, None)
CARS["WheelsOnMesh"] = (-340.0, 0.0, None)
CARS["WheelsOnBump"] = (-360.0, 0.0, None)
CARS["WheelsOverBump"] = (-380.0, 8.0, None)
CARS["WheelsRolling"] = (-400.0, 8.0, None)
# name -> (kind, centre ahead of / beside / above the car's ground point [m], radius [m], a capsule's height [m]
# (along the lateral axis))
ROUND_OBSTACLES = {"Boulder": ("sphere", (CHASSIS_FRONT + 1.0 + 0.4, 0.0, 0.4), 0.4, 0.0),
                   "Log": ("capsule", (CHASSIS_FRONT + 0.5, 0.0, 0.12), 0.12, 3.0),
                   "SphereOnLog": ("capsule", (-0.16 + 0.25, 0.0, 0.2), 0.2, 1.0)}
ROUND_OBSTACLES["LogSwept"] = ROUND_OBSTACLES["Log"]
ROUND_OBSTACLES["LogStrike"] = ("capsule", (CHASSIS_FRONT + 1.0 + 0.2, 0.0, 0.2), 0.2, 0.8)
SWEPT = ("LogSwept",)  # the cars whose suspension sweeps its wheel's hull (physxVehicle:suspensionLineQueryType)
BOUNCE_THRESHOLD = 2.0  # the scene's physxScene:bounceThreshold [m/s]
SPHERE_DROP = 0.9  # SphereOnEdge's origin above its spawn height [m]: the sphere 0.3 m above the box's edge
DROPS = ("Drop", "SphereOnEdge", "Bounce", "NoBounce", "SphereOnLog")  # the cars that fall onto what they meet
ROLLOVER = (100.0, 150.0)  # its roll about the forward axis [deg] and roll rate [deg/s] at the start
# RolloverSlope: the slope [deg] (rising to the car's left, +y), how far the slope runs below the car and above it
# [m] (across), its half length along the car [m]; the car's roll [deg] and roll rate [deg/s] at the start
SLOPE = (22.0, 8.0, 3.0, 5.0)
SLOPE_ROLL = (112.0, 250.0)
ACCELERATOR = {"WheelsTouching": 1.0, "WheelsFiltered": 1.0, "WheelsOnMesh": 1.0, "WheelsOnBump": 1.0}  # others: 0
WHEELS_ON_ROAD = ("WheelsOnMesh", "WheelsOnBump", "WheelsOverBump", "WheelsRolling")  # the cars with wheel cylinders on a mesh road
# their road: from x0 to x1 ahead of the car's origin, from -half to half across [m], one quad (two triangles) between
# each two of its profile's corners (WheelsOnMesh: none but the ends), its surface ROAD_HEIGHT above the ground plane
# (the plane far below the wheels' cylinders)
ROAD = (-6.0, 30.0, 3.0)
ROAD_HEIGHT = 0.2
# WheelsOnBump's bump: where it starts ahead of the car's origin, the ramps' length, the top's length [m], its slope [deg]
BUMP = (3.0, 2.0, 2.0, 3.0)
WHEELS = ("FrontLeftWheel", "FrontRightWheel", "RearLeftWheel", "RearRightWheel")
WHEEL_RADIUS, WHEEL_WIDTH = 0.343, 0.315  # the sample's wheel [m]
HUMP = (CHASSIS_FRONT + 0.5, 1.0, 0.5, 0.45, 0.3)  # start x ahead of the car, ramp length, top length, height, half width
DROP_HEIGHT = 1.2  # the upside-down car's origin above the ground [m]: its roof (0.75 above the origin) at 0.45
NO_BOUNCE_HEIGHT = DROP_HEIGHT - 0.35  # NoBounce's origin above the ground [m]: its roof 0.1 m up


def obstacle_path(name: str) -> str:
    """The prim of the static obstacle car `name` meets (where it has one: the others meet only the ground plane)."""
    return f"/World/{name}Obstacle"


def obstacles(path: Path, units: str = "m") -> Path:
    """The stage in `units`: "m" (metres, kilograms) or "cm_g" (centimetres, grams: samples/car_cm scaled as
    tests/scenarios/regimes.py scales it)."""
    from scenarios.regimes import UNITS, _sample

    layer = _sample(UNITS[units])
    k = 1.0 / layer.pseudoRoot.GetInfo("metersPerUnit")  # stage units per metre
    car = Sdf.Path("/World/Car")
    for name, (y, speed, _) in CARS.items():
        dest = Sdf.Path(f"/World/{name}")
        Sdf.CopySpec(layer, car, layer, dest)
        spec = layer.GetPrimAtPath(dest)
        if name in ("Drop", "Bounce", "NoBounce"):
            height = NO_BOUNCE_HEIGHT if name == "NoBounce" else DROP_HEIGHT
            spec.attributes["xformOp:translate"].default = (0.0, y * k, height * k)
            spec.attributes["xformOp:orient"].default = Gf.Quatf(0.0, 1.0, 0.0, 0.0)  # upside down about X
        elif name == "SphereOnEdge":
            spec.attributes["xformOp:translate"].default = (0.0, y * k, (0.55 + SPHERE_DROP) * k)
        elif name == "SphereOnLog":  # 0.3 m above its spawn height
            spec.attributes["xformOp:translate"].default = (0.0, y * k, (0.55 + 0.3) * k)
        elif name in ("Rollover", "RolloverSlope"):
            roll, rate = ROLLOVER if name == "Rollover" else SLOPE_ROLL
            half = math.radians(roll) / 2
            height = _rollover_height(roll) if name == "Rollover" else _slope_height(roll)
            spec.attributes["xformOp:translate"].default = (0.0, y * k, height * k)
            spec.attributes["xformOp:orient"].default = Gf.Quatf(math.cos(half), math.sin(half), 0.0, 0.0)
            spin = spec.attributes.get("physics:angularVelocity") or Sdf.AttributeSpec(
                spec, "physics:angularVelocity", Sdf.ValueTypeNames.Vector3f)
            spin.default = (rate, 0.0, 0.0)
        else:
            lift = ROAD_HEIGHT if name in WHEELS_ON_ROAD else 0.0
            spec.attributes["xformOp:translate"].default = (0.0, y * k, (0.55 + lift) * k)
        velocity = spec.attributes.get("physics:velocity") or Sdf.AttributeSpec(spec, "physics:velocity",
                                                                              Sdf.ValueTypeNames.Vector3f)
        velocity.default = (speed * k, 0.0, 0.0)
        if name in SWEPT:
            spec.attributes["physxVehicle:suspensionLineQueryType"].default = "sweep"
    del layer.GetPrimAtPath("/World").nameChildren["Car"]
    stage = Usd.Stage.Open(layer)
    asphalt = UsdShade.Material(stage.GetPrimAtPath("/World/Asphalt"))
    for name, (y, _, obstacle) in CARS.items():
        if obstacle is None:
            continue
        (x, dy, z), half = obstacle
        cube = UsdGeom.Cube.Define(stage, obstacle_path(name))
        cube.CreateSizeAttr(1.0)
        cube.AddTranslateOp().Set(Gf.Vec3d(x * k, (y + dy) * k, z * k))
        cube.AddScaleOp().Set(Gf.Vec3f(*(2.0 * h * k for h in half)))
        UsdPhysics.CollisionAPI.Apply(cube.GetPrim())
        UsdShade.MaterialBindingAPI.Apply(cube.GetPrim()).Bind(asphalt, UsdShade.Tokens.weakerThanDescendants, "physics")
    _wheel_shapes(stage, k)
    _hull_on_hump(stage, k)
    _round_chassis(stage, k)
    _round_obstacles(stage, k, asphalt)
    _bouncing(stage, k)
    _slope(stage, k)
    _roads(stage, k)
    layer.documentation = "The sample car meeting static obstacles (generated by tests/scenarios/contact.py)"
    layer.Export(str(path))
    return path


def _rollover_height(roll: float) -> float:
    """The car's origin height [m] that puts the lowest edge of its chassis box, rolled `roll` degrees, 1 cm above
    the ground."""
    t = math.radians(roll)
    lowest = min(y * math.sin(t) + z * math.cos(t) for y in (-0.9, 0.9) for z in (-0.25, 0.75))
    return 0.01 - lowest


def _slope_height(roll: float) -> float:
    """RolloverSlope's origin height [m] that puts the lowest edge of its chassis box, rolled `roll` degrees, 1 cm
    above the slope (along the slope's normal)."""
    slope, below, _, _ = SLOPE
    a, t = math.radians(slope), math.radians(roll)
    normal = (-math.sin(a), math.cos(a))  # (y, z)
    lowest = min((y * math.cos(t) - z * math.sin(t)) * normal[0] + (y * math.sin(t) + z * math.cos(t)) * normal[1]
                  for y in (-0.9, 0.9) for z in (-0.25, 0.75))
    return below * math.tan(a) + (0.01 - lowest) / math.cos(a)


def _slope(stage: Usd.Stage, k: float) -> None:
    """RolloverSlope's ground: a static triangle mesh (two triangles) rising across the car, to its left."""
    slope, below, above, half = SLOPE
    y, rise = CARS["RolloverSlope"][0], math.tan(math.radians(slope))
    corners = [(x, y + dy, (dy + below) * rise) for dy in (-below, above) for x in (-half, half)]
    mesh = UsdGeom.Mesh.Define(stage, obstacle_path("RolloverSlope"))
    mesh.CreatePointsAttr([Gf.Vec3f(*(c * k for c in p)) for p in corners])
    mesh.CreateFaceVertexCountsAttr([4])
    mesh.CreateFaceVertexIndicesAttr([0, 1, 3, 2])  # counter-clockwise seen from above
    mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    UsdPhysics.MeshCollisionAPI.Apply(mesh.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.none)
    UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(UsdShade.Material(stage.GetPrimAtPath("/World/Asphalt")),
                                                          UsdShade.Tokens.weakerThanDescendants, "physics")


def road_profile(name: str) -> list[tuple[float, float]]:
    """The corners (x ahead of the car's origin, height above the ground plane) [m] of the road of the car `name`
    (WHEELS_ON_ROAD), from its start to its end."""
    x0, x1, _ = ROAD
    corners = [(x0, 0.0)]
    if name in ("WheelsOnBump", "WheelsOverBump"):
        start, ramp, top, slope = BUMP
        rise = ramp * math.tan(math.radians(slope))
        corners += [(start, 0.0), (start + ramp, rise), (start + ramp + top, rise), (start + 2 * ramp + top, 0.0)]
    return [(x, ROAD_HEIGHT + z) for x, z in corners + [(x1, 0.0)]]


def _roads(stage: Usd.Stage, k: float) -> None:
    """WHEELS_ON_ROAD's roads: static triangle-mesh strips through their profiles' corners."""
    half = ROAD[2]
    for name in WHEELS_ON_ROAD:
        _strip_mesh(stage, obstacle_path(name), road_profile(name), CARS[name][0], half, k)


def _strip_mesh(stage: Usd.Stage, path: str, profile: list, y: float, half: float, k: float) -> None:
    """A static triangle-mesh strip along x, `half` either side of y, through the (x, z) corners of `profile`: a
    quad between each two corners (omni.physx cuts it into two triangles from its first corner), counter-clockwise
    seen from above, of the asphalt material, in units of k per metre."""
    points = [(x, y + dy, z) for x, z in profile for dy in (-half, half)]
    faces = [[2 * i, 2 * i + 2, 2 * i + 3, 2 * i + 1] for i in range(len(points) // 2 - 1)]
    mesh = UsdGeom.Mesh.Define(stage, path)
    mesh.CreatePointsAttr([Gf.Vec3f(*(c * k for c in p)) for p in points])
    mesh.CreateFaceVertexCountsAttr([4] * len(faces))
    mesh.CreateFaceVertexIndicesAttr([i for f in faces for i in f])
    mesh.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
    UsdPhysics.CollisionAPI.Apply(mesh.GetPrim())
    UsdPhysics.MeshCollisionAPI.Apply(mesh.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.none)
    UsdShade.MaterialBindingAPI.Apply(mesh.GetPrim()).Bind(
        UsdShade.Material(stage.GetPrimAtPath("/World/Asphalt")), UsdShade.Tokens.weakerThanDescendants, "physics")


def _wheel_shapes(stage: Usd.Stage, k: float) -> None:
    """A collision cylinder under every wheel of WheelsTouching and WheelsFiltered."""
    ground = ground_group(stage)
    for name in ("WheelsTouching", "WheelsFiltered", *WHEELS_ON_ROAD):
        wheel_cylinders(stage, f"/World/{name}", k, [ground.GetPath()] if name == "WheelsFiltered" else [])


def ground_group(stage: Usd.Stage) -> UsdPhysics.CollisionGroup:
    """The ground plane's collision group (/World/GroundGroup), for wheel shapes to filter."""
    ground = UsdPhysics.CollisionGroup.Define(stage, "/World/GroundGroup")
    ground.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets([Sdf.Path("/World/GroundPlane")])
    return ground


def wheel_cylinders(stage: Usd.Stage, car: str, k: float, filtered: list) -> None:
    """A collision cylinder under every wheel of `car` (`wheel_cylinder`), in the car's WheelShapeGroup, which
    filters the car's own suspension queries' group (as Isaac Lab's assets keep them) and the groups `filtered`."""
    group = UsdPhysics.CollisionGroup.Define(stage, f"{car}/WheelShapeGroup")
    group.CreateFilteredGroupsRel().SetTargets([Sdf.Path(f"{car}/WheelQueryGroup"), *filtered])
    group.GetCollidersCollectionAPI().CreateIncludesRel().SetTargets(
        [wheel_cylinder(stage, f"{car}/{wheel}", k).GetPath() for wheel in WHEELS])


def wheel_cylinder(stage: Usd.Stage, wheel: str, k: float) -> UsdGeom.Cylinder:
    """A collision cylinder of the sample's wheel size under the wheel prim `wheel` (its `Collision`), in units of k
    per metre, in no collision group."""
    cylinder = UsdGeom.Cylinder.Define(stage, f"{wheel}/Collision")
    cylinder.CreateRadiusAttr(WHEEL_RADIUS * k)
    cylinder.CreateHeightAttr(WHEEL_WIDTH * k)
    cylinder.CreateAxisAttr(UsdGeom.Tokens.y)
    UsdPhysics.CollisionAPI.Apply(cylinder.GetPrim())
    return cylinder


def _round_chassis(stage: Usd.Stage, k: float) -> None:
    """CapsuleRidge's and SphereOnEdge's chassis in place of the box (in its collision group)."""
    for name in ("CapsuleRidge", "SphereOnEdge", "SphereOnLog"):
        car = f"/World/{name}"
        stage.GetPrimAtPath(f"{car}/ChassisCollision").SetActive(False)
        if name == "CapsuleRidge":
            shape = UsdGeom.Capsule.Define(stage, f"{car}/ChassisCapsule")
            shape.CreateRadiusAttr(0.35 * k)
            shape.CreateHeightAttr(3.6 * k)
            shape.CreateAxisAttr(UsdGeom.Tokens.x)
        else:
            shape = UsdGeom.Sphere.Define(stage, f"{car}/ChassisSphere")
            shape.CreateRadiusAttr(0.5 * k)
        shape.AddTranslateOp().Set(Gf.Vec3d(-0.16 * k, 0.0, 0.25 * k))  # the chassis box's centre
        UsdPhysics.CollisionAPI.Apply(shape.GetPrim())
        group = UsdPhysics.CollisionGroup(stage.GetPrimAtPath(f"{car}/ChassisGroup"))
        group.GetCollidersCollectionAPI().GetIncludesRel().SetTargets([shape.GetPath()])


def _round_obstacles(stage: Usd.Stage, k: float, asphalt: UsdShade.Material) -> None:
    """Boulder's, Log's and SphereOnLog's static sphere and capsules (ROUND_OBSTACLES)."""
    for name, (kind, (x, dy, z), radius, height) in ROUND_OBSTACLES.items():
        y = CARS[name][0]
        if kind == "sphere":
            shape = UsdGeom.Sphere.Define(stage, obstacle_path(name))
        else:
            shape = UsdGeom.Capsule.Define(stage, obstacle_path(name))
            shape.CreateHeightAttr(height * k)
            shape.CreateAxisAttr(UsdGeom.Tokens.y)
        shape.CreateRadiusAttr(radius * k)
        shape.AddTranslateOp().Set(Gf.Vec3d(x * k, (y + dy) * k, z * k))
        UsdPhysics.CollisionAPI.Apply(shape.GetPrim())
        UsdShade.MaterialBindingAPI.Apply(shape.GetPrim()).Bind(asphalt, UsdShade.Tokens.weakerThanDescendants,
                                                               "physics")


def _bouncing(stage: Usd.Stage, k: float) -> None:
    """The scene's bounce threshold, and Bounce's and NoBounce's chassis material of restitution 1."""
    scene = stage.GetPrimAtPath("/World/PhysicsScene")
    scene.AddAppliedSchema("PhysxSceneAPI")
    scene.CreateAttribute("physxScene:bounceThreshold", Sdf.ValueTypeNames.Float).Set(BOUNCE_THRESHOLD * k)
    rubber = UsdShade.Material.Define(stage, "/World/Rubber")
    material = UsdPhysics.MaterialAPI.Apply(rubber.GetPrim())
    material.CreateStaticFrictionAttr(0.5)
    material.CreateDynamicFrictionAttr(0.5)
    material.CreateRestitutionAttr(1.0)
    for name in ("Bounce", "NoBounce"):
        chassis = stage.GetPrimAtPath(f"/World/{name}/ChassisCollision")
        UsdShade.MaterialBindingAPI.Apply(chassis).Bind(rubber, UsdShade.Tokens.weakerThanDescendants, "physics")


def _hull_on_hump(stage: Usd.Stage, k: float) -> None:
    """HullOnHump's chassis as a convex-hull mesh, and its hump as a static triangle mesh."""
    car = "/World/HullOnHump"
    y = CARS["HullOnHump"][0]
    stage.GetPrimAtPath(f"{car}/ChassisCollision").SetActive(False)
    x0, x1, y0, y1, z0, z1 = -2.36, 2.04, -0.9, 0.9, -0.25, 0.75  # the sample's chassis box
    nose = z0 + 0.2
    corners = [(x0, y0, z0), (x1, y0, nose), (x1, y1, nose), (x0, y1, z0),
               (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    hull = UsdGeom.Mesh.Define(stage, f"{car}/ChassisHull")
    hull.CreatePointsAttr([Gf.Vec3f(*(c * k for c in p)) for p in corners])
    hull.CreateFaceVertexCountsAttr([4] * 6)
    hull.CreateFaceVertexIndicesAttr([0, 3, 2, 1, 4, 5, 6, 7, 0, 1, 5, 4, 1, 2, 6, 5, 2, 3, 7, 6, 3, 0, 4, 7])
    UsdPhysics.CollisionAPI.Apply(hull.GetPrim())
    UsdPhysics.MeshCollisionAPI.Apply(hull.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.convexHull)
    group = UsdPhysics.CollisionGroup(stage.GetPrimAtPath(f"{car}/ChassisGroup"))
    group.GetCollidersCollectionAPI().GetIncludesRel().SetTargets([hull.GetPath()])
    start, ramp, top, height, half = HUMP
    xs = [start, start + ramp, start + ramp + top, start + 2 * ramp + top]
    zs = [0.0, height, height, 0.0]
    _strip_mesh(stage, obstacle_path("HullOnHump"), list(zip(xs, zs)), y, half, k)


# name -> (lateral position [m], start speed [m/s], the curb)
# the curb: kind ("box", "hull", "capsule", "sphere", "cylinder" lying across, "bollard" upright), its near face's
# foot (a round's centre) ahead of the car's origin [m], height [m] (a round's radius), y beside the car's origin [m]
# (0: across the whole track)
CURBS = {"CylinderCurb": (0.0, 6.0, ("box", 2.8, 0.10, 0.0)),
         "CylinderStop": (20.0, 3.0, ("box", 2.8, 0.12, 0.0)),
         "CylinderWedge": (40.0, 6.0, ("hull", 2.8, 0.12, 0.0)),
         "CylinderLog": (60.0, 6.0, ("capsule", 3.0, 0.12, 0.0)),
         "CylinderStone": (80.0, 6.0, ("sphere", 3.0, 0.15, -0.8)),
         "CylinderPipe": (100.0, 6.0, ("cylinder", 3.0, 0.12, 0.0)),
         "Bollard": (120.0, 5.0, ("bollard", CHASSIS_FRONT + 1.0 + 0.15, 0.15, 0.4))}
BOLLARD_HEIGHT = 1.0
CURB_DEPTH, CURB_HALF_WIDTH = 0.4, 3.0  # along the road, and across it either side of the car [m]


def curbs(path: Path, units: str = "m") -> Path:
    """The CURBS stage in `units` (as `obstacles`)."""
    from scenarios.regimes import UNITS, _sample

    layer = _sample(UNITS[units])
    k = 1.0 / layer.pseudoRoot.GetInfo("metersPerUnit")
    car = Sdf.Path("/World/Car")
    for name, (y, speed, _) in CURBS.items():
        dest = Sdf.Path(f"/World/{name}")
        Sdf.CopySpec(layer, car, layer, dest)
        spec = layer.GetPrimAtPath(dest)
        spec.attributes["xformOp:translate"].default = (0.0, y * k, 0.55 * k)
        velocity = spec.attributes.get("physics:velocity") or Sdf.AttributeSpec(spec, "physics:velocity",
                                                                              Sdf.ValueTypeNames.Vector3f)
        velocity.default = (speed * k, 0.0, 0.0)
    del layer.GetPrimAtPath("/World").nameChildren["Car"]
    stage = Usd.Stage.Open(layer)
    asphalt = UsdShade.Material(stage.GetPrimAtPath("/World/Asphalt"))
    ground = ground_group(stage)
    for name, (y, _, (kind, x, height, beside)) in CURBS.items():
        wheel_cylinders(stage, f"/World/{name}", k, [ground.GetPath()])
        if kind == "box":
            curb = UsdGeom.Cube.Define(stage, obstacle_path(name))
            curb.CreateSizeAttr(1.0)
            curb.AddTranslateOp().Set(Gf.Vec3d((x + CURB_DEPTH / 2) * k, y * k, height / 2 * k))
            curb.AddScaleOp().Set(Gf.Vec3f(CURB_DEPTH * k, 2 * CURB_HALF_WIDTH * k, height * k))
        elif kind in ("capsule", "sphere", "cylinder"):
            shape = {"capsule": UsdGeom.Capsule, "sphere": UsdGeom.Sphere, "cylinder": UsdGeom.Cylinder}[kind]
            curb = shape.Define(stage, obstacle_path(name))
            curb.CreateRadiusAttr(height * k)
            if kind != "sphere":
                curb.CreateHeightAttr((2 * CURB_HALF_WIDTH - (2 * height if kind == "capsule" else 0.0)) * k)
                curb.CreateAxisAttr(UsdGeom.Tokens.y)
            curb.AddTranslateOp().Set(Gf.Vec3d(x * k, (y + beside) * k, height * k))
        elif kind == "bollard":
            curb = UsdGeom.Cylinder.Define(stage, obstacle_path(name))
            curb.CreateRadiusAttr(height * k)
            curb.CreateHeightAttr(BOLLARD_HEIGHT * k)
            curb.CreateAxisAttr(UsdGeom.Tokens.z)
            curb.AddTranslateOp().Set(Gf.Vec3d(x * k, (y + beside) * k, BOLLARD_HEIGHT / 2 * k))
        else:  # the prism's section: its foot, its top's front edge (45 degrees back), its top's back, its back foot
            section = [(x, 0.0), (x + height, height), (x + CURB_DEPTH, height), (x + CURB_DEPTH, 0.0)]
            points = [(px, y + side, pz) for side in (-CURB_HALF_WIDTH, CURB_HALF_WIDTH) for px, pz in section]
            curb = UsdGeom.Mesh.Define(stage, obstacle_path(name))
            curb.CreatePointsAttr([Gf.Vec3f(*(c * k for c in p)) for p in points])
            curb.CreateFaceVertexCountsAttr([4] * 6)
            curb.CreateFaceVertexIndicesAttr([0, 1, 2, 3, 7, 6, 5, 4, 0, 4, 5, 1, 1, 5, 6, 2, 2, 6, 7, 3, 3, 7, 4, 0])
            curb.CreateSubdivisionSchemeAttr(UsdGeom.Tokens.none)
            UsdPhysics.MeshCollisionAPI.Apply(curb.GetPrim()).CreateApproximationAttr(UsdPhysics.Tokens.convexHull)
        UsdPhysics.CollisionAPI.Apply(curb.GetPrim())
        UsdShade.MaterialBindingAPI.Apply(curb.GetPrim()).Bind(asphalt, UsdShade.Tokens.weakerThanDescendants,
                                                              "physics")
    layer.documentation = "The sample car's wheel cylinders meeting curbs (generated by tests/scenarios/contact.py)"
    layer.Export(str(path))
    return path
