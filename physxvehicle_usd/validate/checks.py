"""Asset-level checks beyond the parser's rules: what a physics engineer would flag in review.

Each check takes the stage and its description and yields diagnostics. Codes start with "A" so they
never collide with the parser rules (V01-V142) the reader reports. Findings with a repair get it from
physxvehicle_usd.fix (validate_stage attaches it).
"""
from __future__ import annotations

from typing import Iterator

from pxr import Usd

from .. import properties as P
from ..collision_filter import GroupFilter
from ..description import Source, StageDescription
from ..diagnostics import Diagnostic, Severity
from ..read import pxr_unchecked as U
from ..read.collision import collision_groups, groups_of
from ..read.wheels import attachment_collision_shapes

COMPONENT_SCHEMAS = (P.WHEEL, P.TIRE, P.SUSPENSION, P.ENGINE, P.GEARS, P.AUTOBOX, P.CLUTCH, P.DRIVE_BASIC,
                     P.DRIVE_STANDARD)


def _finding(severity: Severity, code: str, prim, message: str, prop: str | None = None) -> Diagnostic:
    return Diagnostic(severity=severity, code=code, prim=str(prim), property=prop, message=message)


def _targets(prim: Usd.Prim, schema: str, base: str) -> list[str]:
    rel = U.get_relationship(prim, P.full_name(schema, base))
    return [str(t) for t in U.get_targets(rel)] if rel and U.has_authored_targets(rel) else []


def _prims(stage: Usd.Stage) -> Iterator[Usd.Prim]:
    return iter(Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)))


def check_wheels_without_drive(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """A01: a vehicle with no drive and no wheel controllers, whose wheels nothing will ever turn."""
    for path, vehicle in d.vehicles.items():
        if vehicle.drive is None and not any(w.wheelController is not None for w in vehicle.wheels):
            yield _finding(Severity.WARNING, "A01", path, "the vehicle has no drive and no wheel controllers: nothing "
                           "will ever turn its wheels", P.full_name(P.VEHICLE, "drive"))


def check_unreferenced_components(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """A02: component prims that no vehicle, wheel attachment or drive uses (typically a broken relationship)."""
    used: set[str] = set()
    owners: list[tuple[Usd.Prim, str, str, tuple]] = []
    components: list[tuple[str, list[str]]] = []
    # one traversal, each prim's applied schemas and path asked once (a HasAPI per schema and prim was most of this
    # check), pxr called unbound (read/pxr_unchecked.py: the prims come from the traversal)
    for prim in _prims(stage):
        applied = U.get_applied_schemas(prim)
        if not applied:
            continue
        applied = set(applied)
        path = str(U.get_path(prim))
        if P.VEHICLE in applied:
            used.add(path)
            used.update(_targets(prim, P.VEHICLE, "drive"))
        if P.ATTACHMENT in applied:
            used.add(path)
            for base in ("wheel", "tire", "suspension"):
                used.update(_targets(prim, P.ATTACHMENT, base))
        if P.DRIVE_STANDARD in applied:
            owners.append((prim, path, P.DRIVE_STANDARD, ("engine", "gears", "clutch", "autoGearBox")))
        if not applied.isdisjoint(COMPONENT_SCHEMAS):
            components.append((path, [s for s in COMPONENT_SCHEMAS if s in applied]))
    for prim, path, schema, bases in owners:
        if path in used:
            for base in bases:
                used.update(_targets(prim, schema, base))
            used.add(path)
    for path, applied in components:
        if path not in used:
            yield _finding(Severity.WARNING, "A02", path, f"{', '.join(applied)} applied but no vehicle, "
                           "wheel attachment or drive uses this prim")


def wheel_attachment_shapes(attachment: Usd.Prim) -> list[Usd.Prim]:
    """The attachment and its descendants that carry PhysicsCollisionAPI: as the reader finds them (V40, V41)."""
    return attachment_collision_shapes(attachment)


def check_wheel_collision_setup(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """A03, A07: wheel collision shapes must be kept from touching the ground as rigid shapes (the suspension query
    carries the car): a shape in no collision group collides with everything (A03); a shape whose groups do not
    filter a ground collider's touches that ground (A07)."""
    rule = member_of = None
    for vehicle in d.vehicles.values():
        for wheel in vehicle.wheels:
            shapes = wheel_attachment_shapes(stage.GetPrimAtPath(wheel.path))
            if not shapes:
                continue
            if rule is None and d.colliderGroups is not None:  # the reader worked them out
                rule, member_of = GroupFilter.of(d.collisionGroups), d.colliderGroups
            elif rule is None:
                groups, members = collision_groups(stage)
                rule, member_of = GroupFilter.of(groups), groups_of(members)
            for shape in shapes:
                path = str(shape.GetPath())
                of_shape = member_of.get(path, [])
                if not of_shape:
                    yield _finding(Severity.WARNING, "A03", path, "wheel collision shape is in no "
                                   "PhysicsCollisionGroup: it will collide with the ground and fight the suspension")
                    continue
                touching = [ground.path for ground in d.ground
                            if rule.colliders_touch(of_shape, member_of.get(ground.path, []))]
                if touching:
                    yield _finding(Severity.WARNING, "A07", path, f"wheel collision shape's group(s) "
                                   f"{', '.join(of_shape)} do not filter the ground collider(s) {', '.join(touching)}: "
                                   "the wheel will touch the ground as a rigid shape and fight the suspension (the "
                                   "car can stall); filter the wheel group against the ground's group")


def check_ground_materials(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """A04: vehicles but no static ground collider; A05: a ground collider with no physics material bound."""
    if not d.vehicles:
        return
    if not d.ground:
        yield _finding(Severity.WARNING, "A04", "/", "the stage has vehicles but no static ground collider (plane or "
                       "mesh) for the wheels to stand on")
    for ground in d.ground:
        if ground.material is None:
            yield _finding(Severity.WARNING, "A05", ground.path, "ground collider has no physics material bound: "
                           "every tire uses its friction table's default value here", "material:binding:physics")


def check_scene(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """A06: vehicles but no PhysicsScene, which omni.physx and `simulate` replace by a default one."""
    if d.vehicles and not d.scenes:
        yield _finding(Severity.WARNING, "A06", "/", "the stage has vehicles but no PhysicsScene: omni.physx creates a "
                       "default scene when it loads the stage (gravity 9.81 m/s^2 down the stage's up axis), and "
                       "`simulate` does the same; author a PhysicsScene to choose gravity and the vehicle context")


SPRUNG_MASS_TOLERANCE = 0.01  # a share of the chassis mass; the Vehicle Wizard's float32 values are far closer


def check_sprung_masses(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """Authored sprung masses that do not add up to the chassis mass (A09): typically a chassis whose mass was
    changed after the wizard wrote them. PhysX takes them as they are: the springs hold the body at the wrong
    height and the tires' rest loads are wrong, and nothing says so."""
    for path, vehicle in d.vehicles.items():
        wheels = vehicle.wheels
        if not wheels or any(w.suspension.source("sprungMass") != Source.AUTHORED for w in wheels):
            continue
        total, mass = sum(w.suspension["sprungMass"] for w in wheels), vehicle.rigidBody["mass"]
        if abs(total - mass) > SPRUNG_MASS_TOLERANCE * mass:
            yield _finding(Severity.WARNING, "A09", path, f"the wheels' sprung masses add up to {total:g}, the "
                           f"chassis mass is {mass:g} (stage mass units): the suspensions hold the body at another "
                           "height than its springs were tuned for, and the tires' rest loads are off",
                           P.full_name(P.SUSPENSION, "sprungMass"))


def check_ovphysx_portability(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """A08: a vehicle that ovphysx 0.7 will simulate differently from Omniverse Kit (read/readings.py), and how: one
    warning per vehicle."""
    from ..read.readings import ovphysx_divergences

    by_vehicle: dict[str, list] = {}
    for divergence in ovphysx_divergences(stage, d):
        by_vehicle.setdefault(divergence.vehicle, []).append(divergence)
    for path, divergences in by_vehicle.items():
        ways = [x.how for x in divergences if x.kind != "drive cycle"]
        timed = [x for x in divergences if x.kind == "drive cycle"]
        if timed:
            listed = ", ".join(f"{x.property} ({x.samples})" for x in timed)
            ways.append("ovphysx reads the controller attributes once, when it creates the vehicle, and holds those "
                        f"values: the time samples of {listed} are no drive cycle there")
        numbered = "; ".join(f"({i}) {way}" for i, way in enumerate(ways, 1))
        yield _finding(Severity.WARNING, "A08", path, f"ovphysx 0.7 will simulate this vehicle differently from "
                       f"Omniverse Kit: {numbered}. `physxvehicle-usd simulate --as ovphysx` previews its run there")


def check_own_shapes_in_queries(stage: Usd.Stage, d: StageDescription) -> Iterator[Diagnostic]:
    """A10: a vehicle's own collision shape that its wheels' suspension queries are not filtered from. omni.physx's
    query pre-filter has no test of the actor, only of the groups (collision_filter.GroupFilter.meets): PhysX's raycast or
    sweep meets the shape where it lies in the query's way (the car rides on its own wheel, or finds no road at all
    where the query starts inside the chassis, and sinks onto it; `simulate` does the same, sim/vehicle_queries.py).
    One warning per shape, naming the wheels whose queries meet it."""
    attachment_group = P.full_name(P.ATTACHMENT, "collisionGroup")
    rule = GroupFilter.of(d.collisionGroups)
    for vehicle in d.vehicles.values():
        if not vehicle.collision:
            continue
        query_groups = [wheel.attachment["collisionGroup"] or None for wheel in vehicle.wheels]
        # (shapes, wheels): whether each wheel's query meets each shape
        meets = rule.meets(rule.ids(query_groups)[None, :], rule.first(s.groups for s in vehicle.collision)[:, None])
        for shape, meets_shape in zip(vehicle.collision, meets):
            by_group: dict[str | None, list[str]] = {}
            for wheel, group, met in zip(vehicle.wheels, query_groups, meets_shape):
                if met:
                    by_group.setdefault(group, []).append(wheel.path)
            if not by_group:
                continue
            named = lambda group: f"query group {group}" if group else "no query group"  # noqa: E731
            queries = (f"every wheel ({named(next(iter(by_group)))})"
                       if len(by_group) == 1 and sum(map(len, by_group.values())) == len(vehicle.wheels) else
                       "; ".join(f"{', '.join(wheels)} ({named(group)})" for group, wheels in by_group.items()))
            groups = f"its group {shape.groups[0]}" if shape.groups else "it is in no collision group"
            yield _finding(Severity.WARNING, "A10", shape.path, f"the suspension queries of {queries} are "
                           f"not filtered from the vehicle's own collision shape ({groups}): PhysX's suspension query "
                           "meets it (a query that starts inside it finds no road at all); put the shape in a "
                           f"collision group that the wheel attachment's {attachment_group} filters")


ASSET_CHECKS = (check_scene, check_wheels_without_drive, check_unreferenced_components, check_wheel_collision_setup,
                check_ground_materials, check_sprung_masses, check_ovphysx_portability, check_own_shapes_in_queries)


def run_check(check, stage: Usd.Stage, d: StageDescription) -> list[Diagnostic]:
    """One check's findings; a check that trips over a strange stage reports (INTERNAL), never raises."""
    try:
        return list(check(stage, d))
    except Exception as exc:  # noqa: BLE001
        return [_finding(Severity.ERROR, "INTERNAL", "/",
                         f"check {check.__name__} failed: {type(exc).__name__}: {exc}")]


def asset_findings(stage: Usd.Stage, d: StageDescription) -> list[Diagnostic]:
    return [finding for check in ASSET_CHECKS for finding in run_check(check, stage, d)]
