"""A stage asking another PhysX solver: a copy of a scenario stage whose physics scenes apply PhysxSceneAPI with
physxScene:solverType set, optionally keeping only some of its vehicles (the others' prims removed, so that ovphysx
steps only those)."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from pxr import Sdf, Usd, UsdPhysics

from physxvehicle_usd import properties as P


def with_solver(source: Path, out: Path, solver: str, keep: Iterable[str] | None = None,
                vehicles: Iterable[str] = ()) -> Path:
    """`source` with its scenes' solver `solver` ("PGS" or "TGS"), written to `out`. keep: the paths of `vehicles`
    to keep (None: all of them)."""
    stage = Usd.Stage.Open(str(source))
    if keep is not None:
        for path in set(vehicles) - set(keep):
            stage.RemovePrim(path)
    for prim in stage.Traverse():
        if prim.IsA(UsdPhysics.Scene):
            prim.AddAppliedSchema("PhysxSceneAPI")
            prim.CreateAttribute(P.physx_scene_attribute("solverType"), Sdf.ValueTypeNames.Token).Set(solver)
    stage.GetRootLayer().Export(str(out))
    return out
