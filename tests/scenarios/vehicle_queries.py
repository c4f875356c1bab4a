"""Stages where one sample car's suspension queries meet another car (samples/car/car.usda, its chassis a box
collider, its WheelQueryGroup filtering only its own ChassisGroup), for tests/test_vehicle_queries.py (a few steps,
in memory) and tests/test_conformance_vehicle_queries.py (against ovphysx).

Each scenario is a pair of cars on the sample's ground plane, LANE_M apart from the next pair: <Name>B stands on the
ground, <Name>A stands on B's chassis box (its origin ROOF_M higher, all four wheels' raycasts on B's roof, A's
chassis box clear of B's), both facing +X:
    Stacked   both at rest: A rests on B's roof (its queries do not reach the ground: without B it would fall);
    Carried<speed>  both rolling at <speed> m/s, the accelerators 0: A's tires take B's velocity off their own
              (PxVehicleRoadGeometryState::velocity), so A rolls with B;
    ...Sweep  the same with both cars sweeping their wheels (physxVehicle:suspensionLineQueryType sweep);
    Ramp<speed>  B's chassis collider is a wedge (a convex hull, RAMP) in place of its box, filtered from the ground
              plane, rising from the ground at B's front; A comes at <speed> m/s nose first towards B's front, its
              front wheels roll up the wedge and along B's top, its chassis clear of it; B's queries filter A's chassis
              (it passes over B's front wheels, whose raycasts would start inside it: no road).
vehicle2 puts no reaction of A's suspension on B: B feels nothing of A.
Units: metres and kilograms, or centimetres and grams (as tests/scenarios/contact.py).
"""
from __future__ import annotations

from pathlib import Path

from pxr import Gf, Sdf, Vt

LANE_M = 20.0  # between pairs
SPAWN_HEIGHT_M = 0.55  # the sample's
ROOF_M = 1.0  # the chassis box's height: A's origin above B's
OFFSET_M = -0.2  # A's origin ahead of B's [m]: its wheels (x 1.27 and -1.59) over B's box (x -2.36 .. 2.04)

# name -> speed [m/s]; names ending in SWEEP sweep their wheels; names starting with RAMP meet the wedge
SCENARIOS = {"Stacked": 0.0, "Carried2": 2.0, "StackedSweep": 0.0, "Carried2Sweep": 2.0, "Ramp6": 6.0,
             "Ramp6Sweep": 6.0}
SWEEP = "Sweep"
RAMP = "Ramp"
# the wedge's profile in B's frame, (x, z) [m] (the ground at z = -0.55): from the ground at the box's front face up
# 0.3 m over 2 m, then level to the box's back face; across y -RAMP_HALF_WIDTH .. RAMP_HALF_WIDTH
RAMP_PROFILE = ((2.04, -0.6), (2.04, -0.55), (0.04, -0.25), (-2.36, -0.25), (-2.36, -0.6))
RAMP_HALF_WIDTH = 1.2
RAMP_GAP_M = 0.5  # between A's front tire and the wedge's foot at the start
FRONT_AXLE_M, TIRE_M = 1.27, 0.343  # the sample's front wheels ahead of its origin; their radius
GROUND_GROUP = "/World/GroundGroup"
TURNED = Gf.Quatf(0.0, 0.0, 0.0, 1.0)  # half a turn about Z: facing -X


def cars(name: str) -> tuple[str, str]:
    return f"/World/{name}A", f"/World/{name}B"


def layer(scenarios: dict[str, float] = SCENARIOS, units: str = "m", filtered: bool = False) -> Sdf.Layer:
    """The stage's layer (anonymous): per scenario its two cars, as the module docstring says. filtered: A's
    WheelQueryGroup also filters B's ChassisGroup (A's queries pass through B)."""
    from scenarios.regimes import UNITS, _sample

    out = _sample(UNITS[units])
    k = 1.0 / out.pseudoRoot.GetInfo("metersPerUnit")  # stage units per metre
    car = Sdf.Path("/World/Car")
    for lane, (name, speed) in enumerate(scenarios.items()):
        y = LANE_M * lane
        a, b = cars(name)
        ramp = name.startswith(RAMP)
        x_a = RAMP_PROFILE[0][0] + RAMP_GAP_M + TIRE_M + FRONT_AXLE_M if ramp else OFFSET_M
        for path, x, z, v in ((a, x_a, SPAWN_HEIGHT_M + (0.0 if ramp else ROOF_M), -speed if ramp else speed),
                              (b, 0.0, SPAWN_HEIGHT_M, 0.0 if ramp else speed)):
            Sdf.CopySpec(out, car, out, Sdf.Path(path))
            spec = out.GetPrimAtPath(path)
            spec.attributes["xformOp:translate"].default = (x * k, y * k, z * k)
            if ramp and path == a:
                spec.attributes["xformOp:orient"].default = TURNED
            motion = spec.attributes.get("physics:velocity") or Sdf.AttributeSpec(spec, "physics:velocity",
                                                                              Sdf.ValueTypeNames.Vector3f)
            motion.default = (v * k, 0.0, 0.0)
            if name.endswith(SWEEP):
                spec.attributes["physxVehicle:suspensionLineQueryType"].default = "sweep"
        if ramp:  # (B's queries also filter A's chassis, which passes over B's wheels while A climbs)
            _wedge(out, b, k)
            out.GetRelationshipAtPath(f"{b}/WheelQueryGroup.physics:filteredGroups").targetPathList.Append(
                Sdf.Path(f"{a}/ChassisGroup"))
        if filtered:
            rel = out.GetRelationshipAtPath(f"{a}/WheelQueryGroup.physics:filteredGroups")
            rel.targetPathList.Append(Sdf.Path(f"{b}/ChassisGroup"))
    del out.GetPrimAtPath("/World").nameChildren["Car"]
    out.documentation = "A sample car standing on another (generated by tests/scenarios/vehicle_queries.py)"
    return out


def _wedge(out: Sdf.Layer, car: str, k: float) -> None:
    """B's chassis collider made the wedge (RAMP_PROFILE), filtered from the ground plane (in GROUND_GROUP)."""
    box = Sdf.Path(f"{car}/ChassisCollision")
    del out.GetPrimAtPath(car).nameChildren["ChassisCollision"]
    mesh = Sdf.CreatePrimInLayer(out, box)
    mesh.specifier, mesh.typeName = Sdf.SpecifierDef, "Mesh"
    mesh.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"]))
    points = [(x * k, side * RAMP_HALF_WIDTH * k, z * k) for side in (-1.0, 1.0) for x, z in RAMP_PROFILE]
    n = len(RAMP_PROFILE)
    faces = [list(range(n))[::-1], list(range(n, 2 * n))] + [[i, (i + 1) % n, n + (i + 1) % n, n + i] for i in range(n)]
    for name, type_, value in (("points", Sdf.ValueTypeNames.Point3fArray, Vt.Vec3fArray(points)),
                               ("faceVertexCounts", Sdf.ValueTypeNames.IntArray, Vt.IntArray([len(f) for f in faces])),
                               ("faceVertexIndices", Sdf.ValueTypeNames.IntArray,
                                Vt.IntArray([i for f in faces for i in f]))):
        Sdf.AttributeSpec(mesh, name, type_).default = value
    Sdf.AttributeSpec(mesh, "physics:approximation", Sdf.ValueTypeNames.Token, variability=Sdf.VariabilityUniform
                      ).default = "convexHull"
    ground = Sdf.Path(GROUND_GROUP)  # one group for every wedge: omni.physx keeps a collider in one group only
    if not out.GetPrimAtPath(ground):
        group = Sdf.CreatePrimInLayer(out, ground)
        group.specifier, group.typeName = Sdf.SpecifierDef, "PhysicsCollisionGroup"
        rel = Sdf.RelationshipSpec(group, "collection:colliders:includes", custom=False)
        rel.targetPathList.Append(Sdf.Path("/World/GroundPlane"))
    filtered = out.GetRelationshipAtPath(f"{car}/ChassisGroup.physics:filteredGroups")
    filtered.targetPathList.Append(ground)


def export(path: Path, units: str = "m") -> Path:
    layer(units=units).Export(str(path))
    return path
