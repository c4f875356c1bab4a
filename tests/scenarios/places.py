"""PhysX against itself with the whole world moved: a stage run again in ovphysx with every prim shifted along X, so
that only PhysX's own float32 rounding (which depends on where things are) separates the runs. Unlike copies.py,
which puts copies beside the vehicles in one run, each place is a run of its own of the same stage, so PhysX batches
and orders its constraints the same way in every run.

`self_spread` runs a conformance stage (test_conformance_ovphysx.Stage) at the original place and at each of
`places_m`, moves the traces back, and reports per scenario and per quantity the largest figure of a moved run against
the original one: PhysX's own spread, measured with the figures a conformance test holds ours to.

    python tests/scenarios/places.py STAGE.usda VEHICLE STEPS [--accelerator A] [--steer S]
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
from pxr import Gf, Sdf, Usd, UsdGeom

PLACES_M = (7.3, 30.0, -13.1)  # the whole world moved this far along X [m]
SPREAD_FACTOR = 1.5  # ours is held to max(the gate, SPREAD_FACTOR x PhysX's own spread): issue 32's rule


def spread_gate(own_spread: float, limit: float) -> float:
    """What a figure of ours against PhysX in place must stay within: `limit`, or SPREAD_FACTOR times PhysX's own
    spread (self_spread) where that is wider."""
    return max(limit, SPREAD_FACTOR * own_spread)


def moved(source: Path, out: Path, offset_m: float) -> Path:
    """`source` flattened with every top-most placed prim (its translate or matrix op, or a mesh's points in world coordinates)
    moved `offset_m` metres along X, written to `out`. Prims below a moved one move with it; an infinite plane
    without a translate is the same plane anywhere along X."""
    from scenarios.copies import _move  # one way of moving a prim, shared with the copies

    stage = Usd.Stage.Open(str(source))
    layer, offset = stage.Flatten(), offset_m / UsdGeom.GetStageMetersPerUnit(stage)

    def visit(spec: Sdf.PrimSpec) -> None:
        order = spec.attributes.get("xformOpOrder")
        first = order.default[0] if order is not None and order.default else None
        if "xformOp:transform" in spec.attributes and first == "xformOp:transform":
            matrix = spec.attributes["xformOp:transform"]
            moved_matrix = Gf.Matrix4d(matrix.default)
            moved_matrix.SetTranslateOnly(moved_matrix.ExtractTranslation() + Gf.Vec3d(offset, 0.0, 0.0))
            matrix.default = moved_matrix
            return
        if "xformOp:translate" in spec.attributes or ("points" in spec.attributes and spec.typeName == "Mesh"):
            if first not in (None, "xformOp:translate"):
                raise ValueError(f"{spec.path}: neither its translate nor its matrix is the first op ({list(order.default)})")
            _move(layer, str(spec.path), offset)
            return
        for child in spec.nameChildren:
            visit(child)

    for root in layer.rootPrims:
        visit(root)
    layer.Export(str(out))
    return out


def moved_back(trace: dict, offset_m: float, meters_per_unit: float) -> dict:
    """An oracle trace of a moved stage with its body positions moved back to the original place."""
    shift = np.array([offset_m / meters_per_unit, 0.0, 0.0])
    out = dict(trace)
    out["bodies"] = {path: {k: np.asarray(v, float) - shift if k == "position" else v for k, v in values.items()}
                     for path, values in trace["bodies"].items()}
    return out


def runs_at_places(stage: Any, folder: Path, run: Callable[[Any], dict],
                   places_m: Iterable[float] = PLACES_M) -> tuple[dict, dict[float, dict]]:
    """(the original run, {offset: the run moved `offset` metres along X, its positions moved back}). `stage` is a
    conformance Stage (path, steps, scenarios); `run` steps one in ovphysx (test_conformance_ovphysx.physx_run)."""
    from dataclasses import replace

    metres = UsdGeom.GetStageMetersPerUnit(Usd.Stage.Open(str(stage.path)))
    original = run(stage)
    at = {}
    for k, offset in enumerate(places_m):
        path = moved(stage.path, folder / f"{stage.path.stem}_at{k}.usda", offset)
        at[offset] = moved_back(run(replace(stage, path=path)), offset, metres)
    return original, at


def self_spread(stage: Any, folder: Path, run: Callable[[Any], dict],
                figures_of: Callable[[Any, dict, dict], dict[str, float]],
                places_m: Iterable[float] = PLACES_M) -> dict[str, dict[str, float]]:
    """PhysX's own spread per scenario and quantity: the largest `figures_of(scenario, moved run, original run)` over
    the places (see runs_at_places)."""
    original, at = runs_at_places(stage, folder, run, places_m)
    spread: dict[str, dict[str, float]] = {}
    for scenario in stage.scenarios:
        by_quantity = spread.setdefault(scenario.name, {})
        for trace in at.values():
            for quantity, value in figures_of(scenario, trace, original).items():
                by_quantity[quantity] = max(value, by_quantity.get(quantity, 0.0))
    return spread


def main(argv: list[str]) -> int:
    import argparse
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests folder, as pytest has it
    from test_conformance_ovphysx import MIN_PATH, Scenario, Stage, figures, physx_run

    parser = argparse.ArgumentParser(description="PhysX's own spread of a scenario with the world moved along X.")
    parser.add_argument("stage", type=Path)
    parser.add_argument("vehicle")
    parser.add_argument("steps", type=int)
    parser.add_argument("--accelerator", type=float, default=0.0)
    parser.add_argument("--steer", type=float, default=0.0)
    args = parser.parse_args(argv)
    stage = Stage(args.stage, args.steps, [Scenario(args.vehicle, args.vehicle, {
        args.vehicle: {"accelerator": args.accelerator, "steer": args.steer}})])
    with tempfile.TemporaryDirectory() as folder:
        spread = self_spread(stage, Path(folder), physx_run, lambda sc, a, b: figures(sc, a, b, 0, MIN_PATH))
    for name, by_quantity in spread.items():
        print(name + ": " + ", ".join(f"{q} {100 * v:.3f} %" for q, v in by_quantity.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
