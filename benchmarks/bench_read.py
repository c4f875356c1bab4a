#!/usr/bin/env python
"""Reading speed: resolve stages of N referenced cars, beside the floor and ovphysx's own load.

    python benchmarks/bench_read.py [--sizes 10 100 1000 10000] [--repeat 3] [--no-ovphysx]

For each N prints: our read_stage seconds and ms per vehicle; the floor (open the stage and Get() every
PhysX vehicle attribute of every prim through pxr); our ratio to the floor; ovphysx's load of the same
stage (parse + create PhysX objects), measured in the same run.

Ours and the floor are each timed --repeat times, alternating, and the best of each is printed: on a
shared machine the minimum is the figure least disturbed by other work, and alternating exposes both to
the same conditions. The issue's target is ours <= 2x the floor at every size.
"""
from __future__ import annotations

import argparse
import gc
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fleet import fleet_stage  # noqa: E402
from pxr import Usd  # noqa: E402

from physxvehicle_usd.read import read_stage  # noqa: E402


def floor_seconds(path: Path) -> float:
    start = time.perf_counter()
    stage = Usd.Stage.Open(str(path))
    for prim in stage.Traverse(Usd.TraverseInstanceProxies()):
        if not any(s.startswith("PhysxVehicle") for s in prim.GetAppliedSchemas()):
            continue
        for attr in prim.GetAttributes():
            if attr.GetName().startswith("physxVehicle"):
                attr.Get()
    return time.perf_counter() - start


def ours_seconds(path: Path) -> tuple[float, int]:
    start = time.perf_counter()
    description = read_stage(path)
    return time.perf_counter() - start, len(description.vehicles)


def ovphysx_load_seconds(path: Path) -> float | None:
    from physxvehicle_usd.oracle import OracleError, run_ovphysx

    try:
        return run_ovphysx(path, steps=1, dt=1 / 60, record_every=1, timeout=1800)["load_s"]
    except OracleError as exc:
        print(f"  ovphysx failed: {str(exc).splitlines()[0]}")
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100, 1000, 10000])
    parser.add_argument("--repeat", type=int, default=3, help="timings of ours and of the floor; the best of each is kept")
    parser.add_argument("--no-ovphysx", action="store_true")
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "physxvehicle_usd_fleet")
    args = parser.parse_args()
    print(f"{'cars':>6} {'ours s':>8} {'ms/car':>7} {'floor s':>8} {'x floor':>8} {'ovphysx s':>10} {'ours/ovphysx':>12}")
    for n in args.sizes:
        path = fleet_stage(n, args.folder)
        floors, ours_all = [], []
        for _ in range(max(args.repeat, 1)):
            gc.collect()
            floors.append(floor_seconds(path))
            gc.collect()
            seconds, count = ours_seconds(path)
            assert count == n, f"read {count} of {n} vehicles"
            ours_all.append(seconds)
        floor, ours = min(floors), min(ours_all)
        ov = None if args.no_ovphysx else ovphysx_load_seconds(path)
        ov_text = f"{ov:10.2f}" if ov is not None else f"{'-':>10}"
        ratio = f"{ours / ov:12.2f}" if ov else f"{'-':>12}"
        print(f"{n:6d} {ours:8.3f} {1000 * ours / n:7.2f} {floor:8.3f} {ours / floor:8.2f} {ov_text} {ratio}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
