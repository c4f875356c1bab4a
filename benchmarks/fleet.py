"""Fleet stages for the benchmarks: N copies of the sample car, by reference, on the sample's ground.

The car asset is the sample car read and written back with every component on its own prims
(`write_stage(shared=False)`), so that one reference brings a complete, self-contained vehicle.
The fleet stage sublayers the sample (scene, ground, material, friction table), deactivates the
sample's own car and references the asset N times on a square grid.
"""
from __future__ import annotations

import math
from pathlib import Path

from pxr import Gf, Sdf, Usd, UsdGeom

from physxvehicle_usd import properties as P
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.write import write_stage

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "car" / "car.usda"
VEHICLE = "/World/Car"
SPACING = 6.0  # metres between cars
SUBSTEP_COUNTS = ("lowForwardSpeedSubStepCount", "highForwardSpeedSubStepCount")


def car_asset(folder: Path) -> Path:
    path = folder / "car_asset.usda"
    if not path.exists():
        description = read_stage(SAMPLE)
        for wheel in description.vehicles[VEHICLE].wheels:
            # the friction table lies outside the car: a reference could not reach it; tires use the default table
            wheel.tire.set("frictionTable", None, wheel.tire.source("frictionTable"))
        single = type(description)(stage=description.stage, vehicles={VEHICLE: description.vehicles[VEHICLE]})
        stage = write_stage(single, shared=False)
        stage.SetDefaultPrim(stage.GetPrimAtPath("/World"))
        stage.GetRootLayer().Export(str(path))
    return path


def fleet_stage(n: int, folder: Path, substeps: tuple[int, int] | None = None) -> Path:
    """substeps: (low, high) sub-step counts authored over every car's own (None: the sample car's)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (f"fleet_{n}.usda" if substeps is None else f"fleet_{n}_substeps_{substeps[0]}_{substeps[1]}.usda")
    if path.exists():
        return path
    asset = car_asset(folder)
    stage = Usd.Stage.CreateInMemory()
    layer = stage.GetRootLayer()
    layer.subLayerPaths.append(str(SAMPLE))
    stage.OverridePrim(VEHICLE).SetActive(False)
    side = math.ceil(math.sqrt(n))
    for i in range(n):
        slot = UsdGeom.Xform.Define(stage, f"/World/Fleet/Slot_{i}")
        slot.AddTranslateOp().Set(Gf.Vec3d((i % side) * SPACING, (i // side) * SPACING, 0.0))
        car = stage.DefinePrim(f"/World/Fleet/Slot_{i}/Car")
        car.GetReferences().AddReference(str(asset), Sdf.Path(VEHICLE))
        if substeps is not None:
            for base, count in zip(SUBSTEP_COUNTS, substeps):
                car.CreateAttribute(P.full_name(P.VEHICLE, base), Sdf.ValueTypeNames.Int).Set(count)
    layer.Export(str(path))
    return path
