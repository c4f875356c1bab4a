"""Stage -> StageDescription: one traversal of the composed stage, as the PhysX USD parser reads it.

    from physxvehicle_usd.read import read_stage
    description = read_stage("samples/car/car.usda")   # or a Usd.Stage
    description = read_stage("samples/car/car.usda", reading="ovphysx")   # as ovphysx 0.7 reads it (readings.py)

Nothing a stage contains makes this raise: problems become diagnostics, a broken vehicle is left out and
the rest of the stage is still read. Only a file that cannot be opened at all raises InputError.

Copies of one asset (many references of a vehicle, as in a training fleet) are parsed once and the record moved
to each copy (copies.py); the description is the one reading every vehicle gives (`share_copies=False`).
"""
from __future__ import annotations

import os

from pxr import Usd, UsdGeom, UsdPhysics

from .. import properties as P
from ..description import Source, StageDescription, StageInfo
from ..diagnostics import DiagnosticSink
from ..stage.bulk import bulk_objects
from ..stage.io import captured_stderr, open_stage_with_warnings, short_usd_message
from ..units import StageUnits
from . import pxr_unchecked as U
from .collision import filtered_targets
from .components import default_friction_table, parse_context, parse_friction_table
from .context import ReadContext
from .copies import CopyStats, Fleet, Subtree
from .physics import gravity_block, load_physics, physx_scene_settings
from .readings import Reading, apply_ovphysx_reading
from .values import ComponentReader
from .vehicle import parse_vehicle

__all__ = ["CopyStats", "Reading", "read_stage"]

_UP = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def read_stage(source: "str | os.PathLike | Usd.Stage", reading: "Reading | str" = Reading.OMNIVERSE, *,
               share_copies: bool = True, stats: CopyStats | None = None) -> StageDescription:
    """The stage's vehicles as Omniverse Kit's PhysX parser reads them (the default), or as ovphysx 0.7 does
    (`reading="ovphysx"`: every value that reading changes is said, code OVPHYSX_READING; see readings.py).

    share_copies: parse one copy of an asset referenced many times and move its record to the other copies
    (read/copies.py); the description is the same either way. False reads every vehicle in full.
    stats: filled with how many vehicle records were moved from a copy's template rather than parsed."""
    reading = Reading.of(reading)
    sink = DiagnosticSink()
    if isinstance(source, Usd.Stage):
        stage, file = source, source.GetRootLayer().identifier
    else:
        file = str(source)
        stage, warnings = open_stage_with_warnings(file)
        for message in warnings:  # an error, as in `validate`: the stage is not the asset its author meant
            sink.error("COMPOSITION", "/", message)
    units, unit_problems = StageUnits.checked(stage)
    for name, message in unit_problems:
        sink.error("STAGE_UNITS", "/", message, name)
    up_axis = str(UsdGeom.GetStageUpAxis(stage))
    if up_axis not in _UP:
        sink.error("STAGE_UP_AXIS", "/", f"stage upAxis {up_axis!r} is not X, Y or Z; it is read as Y (the "
                   "schema's fallback)", "upAxis")
        up_axis = "Y"
    description = StageDescription(stage=StageInfo(file=file, metersPerUnit=units.meters_per_unit,
                                                   kilogramsPerUnit=units.kilograms_per_unit, upAxis=up_axis))
    ComponentReader.clear_cache()
    try:
        with bulk_objects(), captured_stderr() as usd_messages:
            fleet = _read(stage, description, sink, units, up_axis, share_copies)
            if stats is not None and fleet is not None:
                stats.moved, stats.templates = len(fleet.moved_from), fleet.moved_from
            if reading == Reading.OVPHYSX:
                apply_ovphysx_reading(stage, description, sink)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: report, never raise
        sink.error("INTERNAL", "/", f"the reader failed unexpectedly ({type(exc).__name__}: {exc}); please report it")
    finally:
        ComponentReader.clear_cache()
    # USD's own complaints while reading (e.g. relationship targets outside a reference) become diagnostics.
    for line in usd_messages:
        if "Warning" in line or "Error" in line:
            sink.warning("USD", "/", short_usd_message(line))
    description.diagnostics = sink.items
    return description


def _traverse(stage: Usd.Stage, fleet: Fleet | None) -> tuple[list[tuple[str, Usd.Prim]], list[Usd.Prim]]:
    """The prims the reader parses, in traversal order: vehicle contexts and friction tables as ("context" |
    "table", prim), and vehicle prims. With a fleet, each vehicle's subtree is noted for its group of copies (a
    Subtree), and the subtree of a further copy of an asset whose first copy held nothing of the above is skipped."""
    found: list[tuple[str, Usd.Prim]] = []
    vehicles: list[Usd.Prim] = []
    predicate = Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)
    opened: list[tuple[int, object, Subtree]] = []  # vehicle subtrees being traversed: (depth, group, Subtree)
    depth = 0
    for top in stage.GetPseudoRoot().GetFilteredChildren(predicate):
        iterator = iter(Usd.PrimRange.PreAndPostVisit(top, predicate))
        for prim in iterator:
            if iterator.IsPostVisit():
                depth -= 1
                if opened and opened[-1][0] == depth:
                    _, group, subtree = opened.pop()
                    Fleet.leave(group, subtree)
                continue
            depth += 1
            if U.is_a(prim, UsdGeom.PointInstancer):
                iterator.PruneChildren()  # the parser skips point instancer subtrees
                _note(opened, special=True)
                continue
            if U.has_api(prim, P.CONTEXT):
                found.append(("context", prim))
                _note(opened, special=True)
            if U.get_type_name(prim) == P.TABLE:
                found.append(("table", prim))
                _note(opened, special=True)
            if opened:
                _note_physics(opened, prim)
            if U.has_api(prim, P.VEHICLE):
                _note(opened, special=True)
                vehicles.append(prim)
                if fleet is not None:
                    group, skip = fleet.enter(prim)
                    if skip:
                        iterator.PruneChildren()
                    elif group is not None:  # a vehicle that can be no copy's template is not looked into
                        opened.append((depth - 1, group, Subtree()))
    return found, vehicles


def _note(opened: list, special: bool) -> None:
    for _, _, subtree in opened:
        subtree.special |= special


def _note_physics(opened: list, prim: Usd.Prim) -> None:
    """What UsdPhysics makes of a prim below a vehicle root: a scene is found by the reader's own traversal of the
    stage (special); colliders change the body's mass properties; any of these, a material or a nested body is
    reported by UsdPhysics' parse of the stage."""
    scene = U.is_a(prim, UsdPhysics.Scene)
    colliders = U.has_api(prim, UsdPhysics.CollisionAPI)
    physics = scene or colliders or U.has_api(prim, UsdPhysics.MaterialAPI) or U.has_api(prim, UsdPhysics.RigidBodyAPI)
    for _, _, subtree in opened:
        subtree.special |= scene
        subtree.colliders |= colliders
        subtree.physics |= physics


def _read(stage: Usd.Stage, description: StageDescription, sink: DiagnosticSink, units: StageUnits, up_axis: str,
          share_copies: bool) -> Fleet | None:
    fleet = Fleet.of(stage) if share_copies else None
    found, vehicles = _traverse(stage, fleet)
    physics = load_physics(stage, sink, exclude=fleet.unparsed_bodies() if fleet is not None else (), units=units,
                           copies=fleet.copy_roots if fleet is not None else None,
                           shared_copy=fleet.shared_copy if fleet is not None else None)
    description.materials = physics.materials
    description.ground = physics.ground
    description.collisionGroups = physics.groups
    description.colliderGroups = physics.member_of
    contexts, settings = {}, {}
    description.defaultFrictionTable = default_friction_table(units)
    for kind, prim in found:
        if kind == "context":
            block = _guard(sink, prim, lambda: parse_context(prim, sink, units))
            if block is not None:
                contexts[str(prim.GetPath())] = block
        else:
            block = _guard(sink, prim, lambda: parse_friction_table(prim, sink, units))
            if block is not None:
                description.tireFrictionTables[str(prim.GetPath())] = block
    down = tuple(-c for c in _UP.get(up_axis, _UP["Y"]))
    for path, desc in physics.scenes.items():
        block = gravity_block(path, desc, units, stage.GetPrimAtPath(path), sink)
        physx_scene_settings(stage.GetPrimAtPath(path), block, sink, units)
        if block["gravityDirection"] is None:
            block.set("gravityDirection", down, Source.DEFAULT)
        settings[path] = block
    from ..description import SceneDescription

    for path in physics.scenes:
        description.scenes[path] = SceneDescription(path=path, settings=settings[path], context=contexts.get(path))
    if not physics.scenes:  # the scene omni.physx makes for a stage with none: every default, gravity down the up axis
        block = gravity_block(None, None, units)
        physx_scene_settings(None, block, sink, units)
        block.set("gravityDirection", down, Source.DEFAULT)
        description.defaultScene = SceneDescription(path="", settings=block)
    ctx = ReadContext(stage=stage, sink=sink, units=units, physics=physics, contexts=contexts, scene_settings=settings,
                      body=fleet.body_lookup(physics) if fleet is not None else None)
    entries = fleet.entries if fleet is not None else [None] * len(vehicles)
    xforms = UsdGeom.XformCache()
    for prim, entry in zip(vehicles, entries):
        if fleet is not None:
            vehicle = fleet.read(prim, entry, ctx, lambda c: _guard(c.sink, prim, lambda: parse_vehicle(prim, c)))
        else:
            vehicle = _guard(sink, prim, lambda: parse_vehicle(prim, ctx))
        if vehicle is not None:
            vehicle.collision = _vehicle_shapes(vehicle, physics, stage, xforms)
            description.vehicles[vehicle.path] = vehicle
    return fleet


def _vehicle_shapes(vehicle, physics, stage: Usd.Stage, xforms: UsdGeom.XformCache) -> list:
    """The vehicle body's collision shapes, each marked with the wheel attachment it sits under (if any) and that
    attachment prim's transform in the vehicle prim's frame (omni.physx keeps the shape's pose relative to it and
    moves it with the wheel, usdLoad/Vehicle.cpp's eMANAGE_TRANSFORMS: an attachment that is an Xformable). A
    FilteredPairsAPI on the body keeps every one of its shapes from what it names, so its targets join each shape's."""
    shapes = physics.shapes.get(vehicle.path, [])
    body = physics.bodies.get(vehicle.path)
    body_filtered = filtered_targets(body) if body is not None else []
    for shape in shapes:
        shape.filtered += [target for target in body_filtered if target not in shape.filtered]
        shape.wheel = next((w.path for w in vehicle.wheels if shape.path.startswith(w.path + "/")
                            or shape.path == w.path), None)
        wheel = stage.GetPrimAtPath(shape.wheel) if shape.wheel is not None else None
        if wheel is not None and wheel.IsA(UsdGeom.Xformable):
            relative = xforms.GetLocalToWorldTransform(wheel) * xforms.GetLocalToWorldTransform(
                stage.GetPrimAtPath(vehicle.path)).GetInverse()
            shape.wheelFrame = [[float(relative[r][c]) for c in range(4)] for r in range(4)]
    return shapes


def _guard(sink: DiagnosticSink, prim: Usd.Prim, parse):
    try:
        return parse()
    except Exception as exc:  # noqa: BLE001 - one bad prim must not stop the rest of the stage
        sink.error("INTERNAL", str(prim.GetPath()), f"reading this prim failed unexpectedly ({type(exc).__name__}: {exc})")
        return None
