#!/usr/bin/env python
"""Stepping speed: N four-wheel sample cars on flat ground, numpy core beside ovphysx, in the same run.

    python benchmarks/bench_sim.py [--sizes 1 100 1000 10000] [--steps 60] [--dt 0.016666667] [--no-ovphysx]
                                   [--threads 1 2] [--substeps 3 1]

Every car runs at full throttle from rest, with the sample car's own sub-step counts or the --substeps given
(PhysX's defaults are 3 and 1). For each N (and each --threads count: the ranges of vehicles our simulator
steps in parallel threads, default 1) prints: our milliseconds per step (the simulator's
steps alone, as `physxvehicle-usd simulate` reports step_s), ovphysx's for the same stage, steps and
controls (it records only the final state: record_every = steps), our time over ovphysx's, the real-time
factor at 60 Hz of each (simulated seconds per wall second, one step = 1/60 s), our load time (read +
build), and peak resident memory: this process so far, and the largest ovphysx worker so far.
"""
from __future__ import annotations

import argparse
import dataclasses
import gc
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fleet import fleet_stage  # noqa: E402

from physxvehicle_usd import simulate  # noqa: E402
from physxvehicle_usd.sim import Simulator  # noqa: E402

FRAME_60HZ = 1.0 / 60.0


def ours(loaded: simulate.LoadedSimulation, steps: int, dt: float) -> float:
    """Milliseconds per step."""
    result = simulate.run(loaded, steps, dt, controls={"accelerator": 1.0}, outputs=())
    return 1000.0 * result.step_s / steps


def with_threads(loaded: simulate.LoadedSimulation, threads: int, dt: float) -> simulate.LoadedSimulation:
    """The same loaded vehicles in a fresh simulator stepping `threads` ranges of vehicles in parallel."""
    sim = loaded.simulator
    return dataclasses.replace(loaded, simulator=Simulator(sim.batch, sim.ground, dt, threads=threads))


def ovphysx(path: Path, steps: int, dt: float, timeout: float) -> tuple[float, float] | None:
    """(ms per step, load seconds), or None when ovphysx fails."""
    from physxvehicle_usd.oracle import OracleError, run_ovphysx

    try:
        run = run_ovphysx(path, steps, dt, controls={"*": {"accelerator": 1.0}}, record_every=steps, timeout=timeout)
    except OracleError as exc:
        print(f"  ovphysx failed: {str(exc).splitlines()[0]}", flush=True)
        return None
    return 1000.0 * run["step_s"] / steps, run["load_s"]


def peak_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024.0  # kilobytes on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 100, 1000, 10000], help="fleet sizes")
    parser.add_argument("--steps", type=int, default=60, help="steps per run (default 60: one simulated second)")
    parser.add_argument("--dt", type=float, default=FRAME_60HZ, help="seconds per step")
    parser.add_argument("--no-ovphysx", action="store_true", help="skip the ovphysx side")
    parser.add_argument("--threads", type=int, nargs="+", default=[1],
                        help="thread counts to time ours with (default: 1)")
    parser.add_argument("--substeps", type=int, nargs=2, metavar=("LOW", "HIGH"),
                        help="sub-step counts below and above the threshold speed, authored over the sample car's "
                             "own; PhysX's defaults are 3 and 1")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed for one ovphysx run")
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "physxvehicle_usd_fleet")
    args = parser.parse_args()

    counts = "the sample car's own" if args.substeps is None else f"{args.substeps[0]} / {args.substeps[1]}"
    print(f"{args.steps} steps of {args.dt:g} s, full throttle from rest, {counts} sub-steps below / above the threshold "
          "speed; real-time factor = (1/60 s) / (time per step)")
    header = (f"{'cars':>6} {'threads':>7} {'ours ms/step':>12} {'ovphysx ms/step':>15} {'ours/ovphysx':>12} {'RTF ours':>9} "
              f"{'RTF ovphysx':>11} {'ours load s':>11} {'ovphysx load s':>14} {'RSS MiB':>8} {'ovphysx RSS':>11}")
    print(header)
    for n in args.sizes:
        path = fleet_stage(n, args.folder, tuple(args.substeps) if args.substeps else None)
        gc.collect()
        loaded = simulate.load(path, args.dt)
        assert len(loaded.paths) == n, f"simulated {len(loaded.paths)} of {n} vehicles"
        timings = []
        for threads in args.threads:
            run = with_threads(loaded, threads, args.dt)
            timings.append((run.simulator.threads, ours(run, args.steps, args.dt)))
        other = None if args.no_ovphysx else ovphysx(path, args.steps, args.dt, args.timeout)
        ov_ms = f"{other[0]:15.3f}" if other else f"{'-':>15}"
        ov_rtf = f"{1000.0 * FRAME_60HZ / other[0]:11.2f}" if other else f"{'-':>11}"
        ov_load = f"{other[1]:14.2f}" if other else f"{'-':>14}"
        ov_rss = f"{peak_mib(resource.RUSAGE_CHILDREN):11.0f}" if other else f"{'-':>11}"
        for threads, ms in timings:
            ratio = f"{ms / other[0]:12.2f}" if other else f"{'-':>12}"
            print(f"{n:6d} {threads:7d} {ms:12.3f} {ov_ms} {ratio} {1000.0 * FRAME_60HZ / ms:9.2f} {ov_rtf} "
                  f"{loaded.load_s:11.2f} {ov_load} {peak_mib(resource.RUSAGE_SELF):8.0f} {ov_rss}", flush=True)


if __name__ == "__main__":
    main()
