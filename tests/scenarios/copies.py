"""PhysX against itself: a scenario stage with a copy of each of some vehicles beside it, so that one ovphysx run
steps each vehicle and its copy with the same inputs, and only the place differs (which changes PhysX's float32
rounding, nothing else). The stage is flattened first, so a copy carries everything its vehicle composes."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from pxr import Sdf, Usd, UsdGeom

OFFSET_M = 30.0  # metres along X between a vehicle and its copy: the same path, never closer than that


def copy_path(vehicle: str) -> str:
    return vehicle + "Copy"


def with_copies(source: Path, out: Path, vehicles: Iterable[str], others: Iterable[str] = ()) -> Path:
    """`source` flattened, with `copy_path(v)` beside each of `vehicles` (its translate moved OFFSET_M along X) and
    the vehicles `others` removed (so that ovphysx steps only these), written to `out`."""
    stage = Usd.Stage.Open(str(source))
    offset = OFFSET_M / UsdGeom.GetStageMetersPerUnit(stage)
    layer = stage.Flatten()
    for path in set(others) - set(vehicles):
        del layer.GetPrimAtPath(path).nameParent.nameChildren[Sdf.Path(path).name]
    for vehicle in vehicles:
        Sdf.CopySpec(layer, vehicle, layer, copy_path(vehicle))  # relationships inside are re-targeted to the copy
        translate = layer.GetAttributeAtPath(f"{copy_path(vehicle)}.xformOp:translate")
        x, y, z = translate.default
        translate.default = type(translate.default)(x + offset, y, z)
    layer.Export(str(out))
    return out


def copy_controls(controls: dict[str, dict], vehicles: Iterable[str]) -> dict[str, dict]:
    """The oracle's {path: {name: value}} controls with each vehicle's (and its wheels') given to its copy too."""
    out = dict(controls)
    for vehicle in vehicles:
        for path, values in controls.items():
            if path == vehicle or path.startswith(vehicle + "/"):
                out[copy_path(vehicle) + path[len(vehicle):]] = values
    return out


def as_original(trace: dict, vehicle: str) -> dict:
    """The copy's recorded quantities (an oracle trace) under the original's paths, for the figures' machinery."""
    copy = copy_path(vehicle)
    return {kind: {vehicle + path[len(copy):]: values for path, values in by_path.items()
                   if path == copy or path.startswith(copy + "/")} for kind, by_path in trace.items()
            if isinstance(by_path, dict)}
