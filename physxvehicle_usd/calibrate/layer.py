"""The fitted values written as `fix` writes its repairs: a layer over the asset, or into it.

By default a new layer beside the asset, `<name>.calibrated.usda`, whose one sublayer is the asset (by a relative
path) and which carries its stage metadata; `in_place` authors the values into the asset's root layer and rewrites
it atomically; `dry_run` writes nothing. Only identified values are authored (a value the log does not identify
stays as it was, and `write_layer` says so); each carries a customData note, `physxvehicle_usd:calibrated`, of how
it was fitted: the log, the method, the initial value and the 95 % interval (stage units).
"""
from __future__ import annotations

import os
from pathlib import Path

from pxr import Usd

from ..errors import InputError
from .run import Calibration, FittedValue

CALIBRATED_SUFFIX = ".calibrated"
NOTE_KEY = "physxvehicle_usd:calibrated"


def default_output(path: str) -> str:
    """car.usda -> car.calibrated.usda beside it."""
    p = Path(path)
    return str(p.with_name(p.stem + CALIBRATED_SUFFIX + ".usda"))


def _author(stage: Usd.Stage, value: FittedValue, log: str, method: str) -> None:
    f = value.prop
    attr = stage.GetPrimAtPath(f.prim).GetAttribute(f.attribute)
    attr.Set(f.authored(attr.Get(), value.stage_value))
    to_stage = 1.0 / f.to_si
    attr.SetCustomDataByKey(NOTE_KEY, {
        "log": Path(log).name, "method": method, "element": -1 if f.index is None else f.index,
        "initial": f.initial, "interval95": [value.low * to_stage, value.high * to_stage],
    })


def written_values(calibration: Calibration) -> tuple[list[FittedValue], list[FittedValue]]:
    """(the values a layer authors: the identified ones, those it leaves as they were)."""
    values = [v for c in calibration.vehicles.values() for v in c.fitted]
    return [v for v in values if v.identified], [v for v in values if not v.identified]


def write_layer(calibration: Calibration, output: str | None = None, in_place: bool = False,
                dry_run: bool = False) -> Calibration:
    """Author the identified values (see the module's docstring); sets calibration.output and .status. InputError
    for an output that cannot be written, or -o with in_place."""
    from ..fix.files import layer_over
    from ..stage.io import export_layer_atomic, open_stage

    path = calibration.stage
    if output is not None and in_place:
        raise InputError("-o and --in-place exclude each other: the values go to a new layer or into the asset")
    target = path if in_place else (output or default_output(path))
    if not in_place and Path(target).resolve() == Path(path).resolve():
        raise InputError("the output is the input itself: use --in-place to rewrite it", file=path)
    if in_place and Path(path).suffix.lower() == ".usdz":
        raise InputError("a .usdz package cannot be rewritten in place; leave out --in-place to write the values "
                         "to a layer over it", file=path)
    written, _ = written_values(calibration)
    calibration.output = target if written else None
    if not written:
        calibration.status = "unchanged"
        return calibration
    if dry_run:
        calibration.status = "planned"
        return calibration
    methods = {p: c.method for p, c in calibration.vehicles.items()}
    stage = open_stage(path)
    if in_place:
        for c in calibration.vehicles.values():
            for v in c.fitted:
                if v.identified:
                    _author(stage, v, calibration.log, methods[c.path])
        export_layer_atomic(stage.GetRootLayer(), path)
    else:
        layer = layer_over(stage.GetRootLayer(), path)
        layer.documentation = (f"physxvehicle-usd calibrate: the values fitted to {Path(calibration.log).name} for "
                               f"{Path(path).name}, its sublayer (untouched).")
        over = Usd.Stage.Open(layer)
        for c in calibration.vehicles.values():
            for v in c.fitted:
                if v.identified:
                    _author(over, v, calibration.log, methods[c.path])
        del over  # the relative path below resolves from the file written, not from this anonymous layer
        layer.subLayerPaths[0] = Path(os.path.relpath(Path(path).resolve(), Path(target).resolve().parent)).as_posix()
        export_layer_atomic(layer, target)
    calibration.status = "written"
    return calibration
