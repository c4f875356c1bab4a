"""PhysX against itself: a scenario stage with a copy of each of some vehicles beside it, so that one ovphysx run
steps each vehicle and its copy with the same inputs, and only the place differs (which changes PhysX's float32
rounding, nothing else). The stage is flattened first, so a copy carries everything its vehicle composes. Static
obstacles a vehicle meets (other than an infinite ground plane, which its copy meets as well) are copied with it."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

import numpy as np
from pxr import Sdf, Usd, UsdGeom

OFFSET_M = 30.0  # metres along X between a vehicle and its copy: the same path, never closer than that


def copy_path(vehicle: str) -> str:
    return vehicle + "Copy"


def with_copies(source: Path, out: Path, vehicles: Iterable[str], others: Iterable[str] = (),
                obstacles: Iterable[str] = ()) -> Path:
    """`source` flattened, with `copy_path(v)` beside each of `vehicles` and of the static prims `obstacles` (moved
    OFFSET_M along X: its translate, or a mesh without one its points) and the vehicles `others` removed (so that
    ovphysx steps only these), written to `out`."""
    layer, metres = _flattened(source, set(others) - set(vehicles))
    offset = OFFSET_M / metres
    for prim in (*vehicles, *obstacles):
        Sdf.CopySpec(layer, prim, layer, copy_path(prim))  # relationships inside are re-targeted to the copy
        _move(layer, copy_path(prim), offset)
    layer.Export(str(out))
    return out


def placed_path(vehicle: str, k: int) -> str:
    return f"{vehicle}At{k}"


def with_placements(source: Path, out: Path, vehicle: str, offsets_m: Iterable[float], others: Iterable[str] = (),
                    obstacles: Iterable[str] = ()) -> Path:
    """`source` flattened, with `placed_path(vehicle, k)` (and its `obstacles`) moved offsets_m[k] metres along X for
    each k, and the vehicles `others` removed, written to `out`: PhysX at several places in one run."""
    layer, metres = _flattened(source, set(others) - {vehicle})
    for k, offset in enumerate(offsets_m):
        for prim in (vehicle, *obstacles):
            Sdf.CopySpec(layer, prim, layer, placed_path(prim, k))
            _move(layer, placed_path(prim, k), offset / metres)
    layer.Export(str(out))
    return out


def _flattened(source: Path, removed: set[str]) -> tuple[Sdf.Layer, float]:
    """`source` flattened into one layer, the prims `removed` left out, and its metres per unit."""
    stage = Usd.Stage.Open(str(source))
    layer = stage.Flatten()
    for path in removed:
        del layer.GetPrimAtPath(path).nameParent.nameChildren[Sdf.Path(path).name]
    return layer, UsdGeom.GetStageMetersPerUnit(stage)


def _move(layer: Sdf.Layer, prim: str, offset: float) -> None:
    """The prim moved `offset` along X: its translate op's value, or where it has none (a mesh authored in world
    coordinates) its points."""
    translate = layer.GetAttributeAtPath(f"{prim}.xformOp:translate")
    if translate is not None:
        x, y, z = translate.default
        translate.default = type(translate.default)(x + offset, y, z)
        return
    points = layer.GetAttributeAtPath(f"{prim}.points")
    if points is None:
        raise ValueError(f"{prim}: neither a translate op nor points to move it by")
    points.default = type(points.default)([type(p)(p[0] + offset, p[1], p[2]) for p in points.default])


def copy_controls(controls: dict[str, dict], vehicles: Iterable[str]) -> dict[str, dict]:
    """The oracle's {path: {name: value}} controls with each vehicle's (and its wheels') given to its copy too."""
    out = dict(controls)
    for vehicle in vehicles:
        for path, values in controls.items():
            if path == vehicle or path.startswith(vehicle + "/"):
                out[copy_path(vehicle) + path[len(vehicle):]] = values
    return out


def as_original(trace: dict, vehicle: str, meters_per_unit: float, copy: str | None = None,
                offset_m: float = OFFSET_M) -> dict:
    """The copy's recorded quantities (an oracle trace) under the original's paths, its positions moved back to the
    original's place (`offset_m` along X in a stage of `meters_per_unit`), for the figures' machinery. copy: its
    path (copy_path's by default)."""
    copy, offset = copy or copy_path(vehicle), np.array([offset_m / meters_per_unit, 0.0, 0.0])

    def back(values: dict) -> dict:
        return {k: np.asarray(v, float) - offset if k == "position" else v for k, v in values.items()}

    return {kind: {vehicle + path[len(copy):]: back(values) for path, values in by_path.items()
                   if path == copy or path.startswith(copy + "/")} for kind, by_path in trace.items()
            if isinstance(by_path, dict)}
