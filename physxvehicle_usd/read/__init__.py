"""Stage -> StageDescription: one traversal of the composed stage, as the PhysX USD parser reads it.

    from physxvehicle_usd.read import read_stage
    description = read_stage("samples/car/car.usda")   # or a Usd.Stage
    description = read_stage("samples/car/car.usda", reading="ovphysx")   # as ovphysx 0.7 reads it (readings.py)

Nothing a stage contains makes this raise: problems become diagnostics, a broken vehicle is left out and
the rest of the stage is still read. Only a file that cannot be opened at all raises InputError.
"""
from __future__ import annotations

import os

from pxr import Usd, UsdGeom

from .. import properties as P
from ..description import Source, StageDescription, StageInfo
from ..diagnostics import DiagnosticSink
from ..stage.bulk import bulk_objects
from ..stage.io import captured_stderr, open_stage_with_warnings, short_usd_message
from ..units import StageUnits
from . import pxr_unchecked as U
from .components import parse_context, parse_friction_table
from .context import ReadContext
from .physics import gravity_block, load_physics
from .readings import Reading, apply_ovphysx_reading
from .values import ComponentReader
from .vehicle import parse_vehicle

__all__ = ["Reading", "read_stage"]

_UP = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def read_stage(source: "str | os.PathLike | Usd.Stage", reading: "Reading | str" = Reading.OMNIVERSE) -> StageDescription:
    """The stage's vehicles as Omniverse Kit's PhysX parser reads them (the default), or as ovphysx 0.7 does
    (`reading="ovphysx"`: every value that reading changes is said, code OVPHYSX_READING; see readings.py)."""
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
            _read(stage, description, sink, units, up_axis)
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


def _read(stage: Usd.Stage, description: StageDescription, sink: DiagnosticSink, units: StageUnits, up_axis: str) -> None:
    physics = load_physics(stage, sink)
    description.materials = physics.materials
    description.ground = physics.ground
    contexts, gravity = {}, {}
    vehicles = []
    predicate = Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate)
    iterator = iter(Usd.PrimRange.Stage(stage, predicate))
    for prim in iterator:
        if U.is_a(prim, UsdGeom.PointInstancer):
            iterator.PruneChildren()  # the parser skips point instancer subtrees
            continue
        if U.has_api(prim, P.CONTEXT):
            block = _guard(sink, prim, lambda: parse_context(prim, sink, units))
            if block is not None:
                contexts[str(prim.GetPath())] = block
        if U.get_type_name(prim) == P.TABLE:
            block = _guard(sink, prim, lambda: parse_friction_table(prim, sink, units))
            if block is not None:
                description.tireFrictionTables[str(prim.GetPath())] = block
        if U.has_api(prim, P.VEHICLE):
            vehicles.append(prim)
    down = tuple(-c for c in _UP.get(up_axis, _UP["Y"]))
    for path, desc in physics.scenes.items():
        block = gravity_block(path, desc, units, stage.GetPrimAtPath(path), sink)
        if block["gravityDirection"] is None:
            block.set("gravityDirection", down, Source.DEFAULT)
        gravity[path] = block
    from ..description import SceneDescription

    for path in physics.scenes:
        description.scenes[path] = SceneDescription(path=path, gravity=gravity[path], context=contexts.get(path))
    ctx = ReadContext(stage=stage, sink=sink, units=units, physics=physics, contexts=contexts, gravity=gravity)
    for prim in vehicles:
        vehicle = _guard(sink, prim, lambda: parse_vehicle(prim, ctx))
        if vehicle is not None:
            description.vehicles[vehicle.path] = vehicle


def _guard(sink: DiagnosticSink, prim: Usd.Prim, parse):
    try:
        return parse()
    except Exception as exc:  # noqa: BLE001 - one bad prim must not stop the rest of the stage
        sink.error("INTERNAL", str(prim.GetPath()), f"reading this prim failed unexpectedly ({type(exc).__name__}: {exc})")
        return None
