"""Stages of two sample cars (samples/car/car.usda, its chassis a box collider) meeting each other, for
tests/test_vehicle_contact.py (a few steps, in memory) and tests/test_conformance_vehicle_contact.py (against ovphysx).

Each scenario is a pair of cars on the sample's ground plane, LANE_M apart from the next pair:
    RearEnd<speed>  <Name>A rolls at <speed> m/s into <Name>B, standing in front of it facing the same way: A's
                    nose meets B's tail;
    HeadOn<speed>   <Name>A and <Name>B roll towards each other at <speed> m/s each, nose to nose;
    Push<speed>     as RearEnd, but A holds its accelerator at PUSH_ACCELERATOR: it meets B and pushes it ahead for
                    the rest of the run (a contact lasting seconds: kept friction patches and manifolds matter);
    Sphere<speed>   as RearEnd, A carrying a sphere (BUMPER_RADIUS_M) on its nose, in the chassis box's middle
                    height and BUMPER_AHEAD_M ahead of it: the sphere meets B's tail (a round shape of body 1, the
                    earlier car, against body 0's box);
    Capsule<speed>  likewise with a capsule across A's nose (BUMPER_HALF_HEIGHT_M), parallel to B's tail face;
    TBone<speed>    A rolls into B's left side, B standing across its path with a collision cylinder on every wheel
                    (in a group filtered from the ground's), its front left wheel's cylinder, which stands 5.75 cm
                    out of B's chassis box, in the middle of A's nose: A's box meets the cylinder's cap face (the
                    exact cylinder against another vehicle's box), then B's box;
the gap between the chassis boxes at the start is GAP_M (or `gap`), the accelerators 0 but a pusher's
(`accelerators`). With `filtered`, each car's
chassis group also filters the other car's: they pass through each other.
Units: metres and kilograms, or centimetres and grams (as tests/scenarios/contact.py).
"""
from __future__ import annotations

from pathlib import Path

from pxr import Gf, Sdf

CHASSIS_FRONT = 2.04  # the chassis box's front face ahead of the car's origin [m]
CHASSIS_BACK = 2.36  # its back face behind the origin [m]
GAP_M = 1.0  # between the boxes at the start
LANE_M = 20.0  # between pairs
SPAWN_HEIGHT_M = 0.55  # the sample's
TURNED = Gf.Quatf(0.0, 0.0, 0.0, 1.0)  # half a turn about Z: facing -X

PUSH_ACCELERATOR = 0.5
BUMPER_RADIUS_M = 0.3
BUMPER_AHEAD_M = 0.1  # the bumper's centre ahead of the nose: it reaches 0.4 m beyond it
BUMPER_HALF_HEIGHT_M = 0.6
CHASSIS_MIDDLE_M = 0.25  # the chassis box's middle above the car's origin
WHEEL_WIDTH = 0.315  # the sample's wheel [m]

# name -> (kind, speed [m/s])
SCENARIOS = {"RearEnd4": ("rear", 4.0), "HeadOn3": ("head", 3.0), "HeadOn8": ("head", 8.0), "Push2": ("push", 2.0),
             "Sphere4": ("sphere", 4.0), "Capsule4": ("capsule", 4.0)}
# on a stage of their own (another car in a run changes how PhysX rounds the others': SCENARIOS' figures stay put)
CYLINDER_SCENARIOS = {"TBone4": ("tbone", 4.0), "TBone6": ("tbone", 6.0)}
FRONT_AXLE_M, WHEEL_Y_M = 1.27, 0.8  # the sample's front wheels' suspension frame ahead of and beside its origin
ACROSS = Gf.Quatf(0.70710677, 0.0, 0.0, 0.70710677)  # a quarter turn about Z: facing +Y


def cars(name: str) -> tuple[str, str]:
    return f"/World/{name}A", f"/World/{name}B"


def accelerators(name: str) -> tuple[float, float]:
    """The accelerators of the scenario's cars A and B, held for the whole run."""
    return (PUSH_ACCELERATOR if {**SCENARIOS, **CYLINDER_SCENARIOS}[name][0] == "push" else 0.0), 0.0


def layer(scenarios: dict[str, tuple[str, float]] = SCENARIOS, units: str = "m", gap: float = GAP_M,
          filtered: bool = False) -> Sdf.Layer:
    """The stage's layer (anonymous): per scenario its two cars, as the module docstring says."""
    from scenarios.regimes import UNITS, _sample

    out = _sample(UNITS[units])
    k = 1.0 / out.pseudoRoot.GetInfo("metersPerUnit")  # stage units per metre
    car = Sdf.Path("/World/Car")
    for lane, (name, (kind, speed)) in enumerate(scenarios.items()):
        y = LANE_M * lane
        a, b = cars(name)
        # A's nose at x = CHASSIS_FRONT; B's nose (head-on), tail (rear-end) or front left wheel's cap (T-bone)
        # `gap` ahead of it
        x_b = CHASSIS_FRONT + gap + (CHASSIS_FRONT if kind == "head" else WHEEL_Y_M + WHEEL_WIDTH / 2
                                     if kind == "tbone" else CHASSIS_BACK)
        y_b = y - FRONT_AXLE_M if kind == "tbone" else y
        for path, x, at_y, velocity, turned in ((a, 0.0, y, speed, None),
                                                (b, x_b, y_b, -speed if kind == "head" else 0.0,
                                                 TURNED if kind == "head" else ACROSS if kind == "tbone" else None)):
            Sdf.CopySpec(out, car, out, Sdf.Path(path))
            spec = out.GetPrimAtPath(path)
            spec.attributes["xformOp:translate"].default = (x * k, at_y * k, SPAWN_HEIGHT_M * k)
            if turned is not None:
                spec.attributes["xformOp:orient"].default = turned
            motion = spec.attributes.get("physics:velocity") or Sdf.AttributeSpec(spec, "physics:velocity",
                                                                              Sdf.ValueTypeNames.Vector3f)
            motion.default = (velocity * k, 0.0, 0.0)
        if kind in ("sphere", "capsule"):
            _bumper(out, a, kind, k)
        if filtered:
            for own, other in ((a, b), (b, a)):
                rel = out.GetRelationshipAtPath(f"{own}/ChassisGroup.physics:filteredGroups")
                rel.targetPathList.Append(Sdf.Path(f"{other}/ChassisGroup"))
    del out.GetPrimAtPath("/World").nameChildren["Car"]
    tbones = [cars(name)[1] for name, (kind, _) in scenarios.items() if kind == "tbone"]
    if tbones:
        _wheel_cylinders(out, tbones, k)
    out.documentation = "Two sample cars meeting (generated by tests/scenarios/vehicle_contact.py)"
    return out


def _wheel_cylinders(out: Sdf.Layer, vehicles: list[str], k: float) -> None:
    """A collision cylinder on every wheel of `vehicles`, in a group filtered from the ground plane's and from the
    car's own wheel queries' (tests/scenarios/contact.py's wheel cylinders)."""
    from pxr import Usd
    from scenarios.contact import ground_group, wheel_cylinders

    stage = Usd.Stage.Open(out)
    ground = ground_group(stage)
    for car in vehicles:
        wheel_cylinders(stage, car, k, [ground.GetPath()])


def _bumper(out: Sdf.Layer, car: str, kind: str, k: float) -> None:
    """A sphere or capsule collider (its axis across the car) on the car's nose (see the module docstring)."""
    spec = Sdf.PrimSpec(out.GetPrimAtPath(car), "Bumper", Sdf.SpecifierDef, kind.capitalize())
    spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=["PhysicsCollisionAPI"]))
    Sdf.AttributeSpec(spec, "radius", Sdf.ValueTypeNames.Double).default = BUMPER_RADIUS_M * k
    if kind == "capsule":
        Sdf.AttributeSpec(spec, "height", Sdf.ValueTypeNames.Double).default = 2.0 * BUMPER_HALF_HEIGHT_M * k
        Sdf.AttributeSpec(spec, "axis", Sdf.ValueTypeNames.Token).default = "Y"
    Sdf.AttributeSpec(spec, "xformOp:translate", Sdf.ValueTypeNames.Double3).default = (
        (CHASSIS_FRONT + BUMPER_AHEAD_M) * k, 0.0, CHASSIS_MIDDLE_M * k)
    Sdf.AttributeSpec(spec, "xformOpOrder", Sdf.ValueTypeNames.TokenArray).default = ["xformOp:translate"]


def export(path: Path, units: str = "m") -> Path:
    layer(units=units).Export(str(path))
    return path
