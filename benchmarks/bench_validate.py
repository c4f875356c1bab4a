#!/usr/bin/env python
"""`validate` on a folder of generated assets: serial against --jobs N, each a fresh command as a user runs it.

    python benchmarks/bench_validate.py [--assets 100] [--jobs 2 4] [--repeat 3] [--folder DIR] [--package-root DIR]

The folder holds --assets stages written by `save_vehicle` from the presets (each preset in turn, in metres,
centimetres, millimetres and inches, Z and Y up), generated once and kept. Each command is
`python -m physxvehicle_usd validate FOLDER [--jobs N]` in a fresh interpreter; serial and the parallel runs are
timed --repeat times, alternating, and the best of each is printed (the figure least disturbed by other work
on a shared machine), with the speed-up over serial and the CPU count. Every run's report must be the same text.
"""
from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def asset_folder(folder: Path, count: int) -> Path:
    from physxvehicle_usd.author import PRESETS, preset_spec, save_vehicle

    target = folder / f"assets_{count}"
    target.mkdir(parents=True, exist_ok=True)
    variants = itertools.cycle(itertools.product(PRESETS, ("m", "cm", "mm", "in"), ("Z", "Y")))
    for i, (preset, units, up) in zip(range(count), variants):
        path = target / f"{i:04d}_{preset}_{units}_{up}.usda"
        if not path.exists():
            save_vehicle(preset_spec(preset), path, units=units, up=up)
    return target


def run_validate(folder: Path, jobs: int, package_root: Path) -> tuple[float, str, int]:
    command = [sys.executable, "-m", "physxvehicle_usd", "validate", str(folder), "--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(package_root)}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=package_root, check=False)
    return time.perf_counter() - start, done.stdout, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assets", type=int, default=100)
    parser.add_argument("--jobs", type=int, nargs="+", default=[2])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "physxvehicle_usd_validate")
    parser.add_argument("--package-root", type=Path, default=REPO,
                        help="the checkout whose physxvehicle_usd runs (another one: to compare before and after)")
    args = parser.parse_args()
    folder = asset_folder(args.folder, args.assets)
    runs = [1, *args.jobs]
    best: dict[int, float] = {}
    reports: set[str] = set()
    for _ in range(max(args.repeat, 1)):
        for jobs in runs:
            seconds, report, code = run_validate(folder, jobs, args.package_root)
            assert code in (0, 1), f"validate --jobs {jobs} exited {code}:\n{report[-2000:]}"
            reports.add(report)
            best[jobs] = min(best.get(jobs, seconds), seconds)
    assert len(reports) == 1, "the reports differ between runs"
    print(f"{args.assets} assets in {folder}, {os.cpu_count()} CPUs, best of {args.repeat}")
    print(f"{'jobs':>5} {'wall s':>8} {'ms/file':>8} {'speed-up':>9}")
    for jobs in runs:
        print(f"{jobs:5d} {best[jobs]:8.2f} {1000 * best[jobs] / args.assets:8.1f} {best[1] / best[jobs]:9.2f}")
    print(f"report: {next(iter(reports)).strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
