#!/usr/bin/env python
"""Reading speed: resolve stages of N referenced cars, beside the floor and ovphysx's own load.

    python benchmarks/bench_read.py [--sizes 10 100 1000 10000] [--repeat 3] [--no-ovphysx] [--full] [--load]

For each N prints: our read_stage seconds and ms per vehicle; the floor (open the stage and Get() every
PhysX vehicle attribute of every prim through pxr); our ratio to the floor; ovphysx's load of the same
stage (parse + create PhysX objects), measured in the same run.

The stages are fleets of one asset (benchmarks/fleet.py): read_stage parses one copy of the asset (and a second,
to check the first) and moves its record to the others (read/copies.py), which is how it gets below the floor,
which Get()s every attribute of every copy. "moved" says how many records were moved rather than parsed.
--full also times the full read (read_stage(share_copies=False): every vehicle parsed, the reader before
copies were shared); --load times simulate.load (open, read and build the simulator, as a training run starts).

Each figure is timed --repeat times, alternating, and the best of each is printed: on a shared machine the
minimum is the figure least disturbed by other work, and alternating exposes all to the same conditions.
The targets: ours <= 2x the floor at every size, and below it for fleets; load <= 5 s at 10,000 cars.
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

from physxvehicle_usd.read import CopyStats, read_stage  # noqa: E402


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


def ours_seconds(path: Path, share_copies: bool = True) -> tuple[float, int, int]:
    """(seconds, vehicles read, records moved from a copy's template)."""
    stats = CopyStats()
    start = time.perf_counter()
    description = read_stage(path, share_copies=share_copies, stats=stats)
    return time.perf_counter() - start, len(description.vehicles), stats.moved


def load_seconds(path: Path) -> float:
    """simulate.load: open the stage, read it and build the simulator for every vehicle."""
    from physxvehicle_usd.simulate import load

    start = time.perf_counter()
    loaded = load(path, 1 / 60)
    seconds = time.perf_counter() - start
    assert len(loaded.paths) > 0
    return seconds


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
    parser.add_argument("--repeat", type=int, default=3, help="timings of each figure; the best of each is kept")
    parser.add_argument("--no-ovphysx", action="store_true")
    parser.add_argument("--full", action="store_true", help="also time the full read (share_copies=False)")
    parser.add_argument("--load", action="store_true", help="also time simulate.load (read + build)")
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "physxvehicle_usd_fleet")
    args = parser.parse_args()
    print(f"{'cars':>6} {'ours s':>8} {'ms/car':>7} {'moved':>6} {'floor s':>8} {'x floor':>8}"
          + (f" {'full s':>8} {'full/ours':>9}" if args.full else "") + (f" {'load s':>7}" if args.load else "")
          + f" {'ovphysx s':>10} {'ours/ovphysx':>12}")
    for n in args.sizes:
        path = fleet_stage(n, args.folder)
        floors, ours_all, fulls, loads = [], [], [], []
        moved = 0
        for _ in range(max(args.repeat, 1)):
            gc.collect()
            floors.append(floor_seconds(path))
            gc.collect()
            seconds, count, moved = ours_seconds(path)
            assert count == n, f"read {count} of {n} vehicles"
            ours_all.append(seconds)
            if args.full:
                gc.collect()
                seconds, count, _ = ours_seconds(path, share_copies=False)
                assert count == n, f"read {count} of {n} vehicles in full"
                fulls.append(seconds)
            if args.load:
                gc.collect()
                loads.append(load_seconds(path))
        floor, ours = min(floors), min(ours_all)
        ov = None if args.no_ovphysx else ovphysx_load_seconds(path)
        ov_text = f"{ov:10.2f}" if ov is not None else f"{'-':>10}"
        ratio = f"{ours / ov:12.2f}" if ov else f"{'-':>12}"
        full = f" {min(fulls):8.3f} {min(fulls) / ours:9.1f}" if args.full else ""
        load = f" {min(loads):7.2f}" if args.load else ""
        print(f"{n:6d} {ours:8.3f} {1000 * ours / n:7.2f} {moved:6d} {floor:8.3f} {ours / floor:8.2f}{full}{load} "
              f"{ov_text} {ratio}", flush=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of this process: {peak:.0f} MiB")


if __name__ == "__main__":
    main()
