"""A PhysX vehicle snippet's JSON files -> a USD stage with that vehicle, ready to drive.

    from physxvehicle_usd.import_snippet import import_snippet
    result = import_snippet("vehicledata", "car.usda", units="cm")

The description comes from `runtime.snippet.description_from_snippet`; `write.write_stage` authors it. On top of
what the description holds, the vehicle body gets PhysX's rigid-body settings every vehicle needs (gravity off,
because the vehicle applies gravity through its suspensions; no sleeping, which would stop the vehicle update).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from pxr import Sdf, Usd, UsdGeom

from .runtime.snippet import (
    description_from_snippet,
    read_snippet_files,
    vehicle_name_from_folder,
)
from . import properties as P
from .stage_io import export_layer_atomic
from .write import write_stage

UNITS = {"m": 1.0, "cm": 0.01}

# PhysxRigidBodyAPI is NVIDIA's schema, not ours: authored by name so PhysX finds it when it loads the file.
_PHYSX_RIGID_BODY = "PhysxRigidBodyAPI"
_RIGID_BODY_SETTINGS = (
    (P.physx_rigid_body_attribute("disableGravity"), Sdf.ValueTypeNames.Bool, True),
    (P.physx_rigid_body_attribute("sleepThreshold"), Sdf.ValueTypeNames.Float, 0.0),
    (P.physx_rigid_body_attribute("stabilizationThreshold"), Sdf.ValueTypeNames.Float, 0.0),
)


@dataclass
class SnippetImportResult:
    stage: Usd.Stage
    vehicle_path: str
    notes: list[str] = field(default_factory=list)


def stage_from_snippet(directory: str | os.PathLike, units: str = "m", drive: str | None = None,
                       vehicle_name: str | None = None) -> SnippetImportResult:
    """An in-memory stage with the snippet vehicle of `directory` (Base.json + EngineDrive.json/DirectDrive.json)."""
    if units not in UNITS:
        raise ValueError(f"units must be one of {sorted(UNITS)}, got {units!r}")
    files = read_snippet_files(directory, drive)
    name = vehicle_name or vehicle_name_from_folder(directory)
    vehicle_path = f"/World/{name}"
    imported = description_from_snippet(
        files, meters_per_unit=UNITS[units], vehicle_path=vehicle_path,
        file_names={file: os.path.join(str(directory), file) for file in files},
    )
    stage = Usd.Stage.CreateInMemory()
    world = UsdGeom.Xform.Define(stage, "/World")
    stage.SetDefaultPrim(world.GetPrim())
    write_stage(imported.description, stage)
    body = stage.GetPrimAtPath(vehicle_path)
    body.AddAppliedSchema(_PHYSX_RIGID_BODY)
    for attr_name, type_name, value in _RIGID_BODY_SETTINGS:
        body.CreateAttribute(attr_name, type_name, custom=False).Set(value)
    return SnippetImportResult(stage=stage, vehicle_path=vehicle_path, notes=imported.notes)


def import_snippet(directory: str | os.PathLike, output: str | os.PathLike, units: str = "m",
                   drive: str | None = None) -> SnippetImportResult:
    """Write the snippet vehicle of `directory` to the USD file `output` (atomically)."""
    result = stage_from_snippet(directory, units, drive)
    result.stage.GetRootLayer().documentation = f"Imported from the PhysX vehicle snippet files in {os.path.basename(os.path.abspath(directory))}"
    export_layer_atomic(result.stage.GetRootLayer(), output)
    return result


__all__ = ["SnippetImportResult", "UNITS", "import_snippet", "stage_from_snippet"]
