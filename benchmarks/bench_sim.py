#!/usr/bin/env python
"""Stepping speed: N four-wheel sample cars on flat ground or a bumpy road, our simulator beside ovphysx, in the
same run.

    python benchmarks/bench_sim.py [--sizes 1 100 1000 10000] [--steps 60] [--dt 0.016666667] [--no-ovphysx]
                                   [--threads 1 2] [--substeps 3 1] [--repeat 3] [--numpy] [--road plane|bumps|obstacles]
                                   [--contact-cost] [--braked] [--numpy-rows]

--road bumps replaces the ground plane by a triangle-mesh road with a 4 cm bump every 3 m under the whole fleet
(benchmarks/fleet.py, `bump_road`): every wheel's suspension query then meets the mesh. --road obstacles adds a box
0.5 m high between each car's wheel tracks, 0.5 m ahead of its nose (`obstacle`): each car's chassis box runs into
it within the first second, and stays against it.

Every car runs at full throttle from rest, with the sample car's own sub-step counts or the --substeps given
(PhysX's defaults are 3 and 1). For each N, each --threads count (threads of the compiled kernel; default 1)
and each path (the compiled kernel, which the simulator uses for these cars, and with --numpy its numpy
kernels too) prints: our milliseconds per step (the simulator's steps alone, as `physxvehicle-usd simulate`
reports step_s; the best of several runs from rest, as this machine's timings vary from run to run),
ovphysx's for the same stage, steps and controls, timed the same way (its own step time, the best of as many runs,
each run alternating with one of ours; it records only the final state: record_every = steps), our time over
ovphysx's, the real-time factor at 60 Hz of each (simulated seconds per wall second, one step = 1/60 s), our load
time (read + build), peak resident memory (this process so far, and the largest ovphysx worker so far), and the runs
each side had: --repeat of them, and more, alternating, until each side has had --min-seconds of timed steps (a
one-car run is a few milliseconds, one sample of the machine's wandering speed; the best of three is still a draw).
--contact-cost adds a line per N: the compiled kernel with the vehicles' contacts and without
(StepOptions(contacts=False)), runs of each alternating as above, the best of each, and what the contacts cost (on
the plane, where nothing touches, what the broad phases' motion bounds cost). --braked adds a line per N: the fleet
braked at rest (brake0 1) against the same fleet rolling at full throttle, alternating. --numpy-rows adds a line per
N: the compiled kernel with its compiled row solver and with the numpy one (StepOptions(compiled_rows=False)),
alternating, the best of each. Each of these three lines ends with its runs and its noise floor: a second series of
the first variant's runs, alternating with the two, set against the first series (the same runs, so any difference
is the machine's): a difference no larger than it says nothing.
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

from fleet import ROADS, fleet_stage  # noqa: E402

from physxvehicle_usd import simulate  # noqa: E402
from physxvehicle_usd.sim import Simulator, compiled  # noqa: E402
from physxvehicle_usd.sim.pipeline import StepOptions  # noqa: E402

FRAME_60HZ = 1.0 / 60.0


FULL_THROTTLE = {"accelerator": 1.0}
BRAKED = {"accelerator": 0.0, "brake0": 1.0}  # the sample car's foot brake on all four wheels


def ours(loaded: simulate.LoadedSimulation, steps: int, dt: float, threads: int, kernel: bool, repeat: int,
         contacts: bool = True, controls: dict = FULL_THROTTLE, compiled_rows: bool = True) -> float:
    """Milliseconds per step, the best of `repeat` runs, each from rest in a fresh simulator."""
    best = float("inf")
    for _ in range(repeat):
        run = with_simulator(loaded, threads, kernel, dt, contacts, compiled_rows)
        result = simulate.run(run, steps, dt, controls=controls, outputs=())
        best = min(best, 1000.0 * result.step_s / steps)
    return best


def paired(loaded: simulate.LoadedSimulation, steps: int, dt: float, threads: int, rounds: tuple[int, float],
           first: dict, second: dict) -> tuple[float, float, float, int]:
    """(ms per step of `first`, of `second`, of `first` again, the rounds run): the compiled kernel's runs with each variant's
    keywords of `ours`, alternating first, second, first again, as many rounds as `more_rounds` asks of `rounds`
    (repeat, seconds), the best of each series (alternating keeps a drift of the machine's speed out of the difference;
    the first variant's second series, set against its first, is the difference the machine alone makes)."""
    best, timed, done = [float("inf")] * 3, [0.0] * 3, 0
    while more_rounds(done, timed, *rounds):
        for k, variant in enumerate((first, second, first)):
            ms = ours(loaded, steps, dt, threads, True, 1, **variant)
            best[k], timed[k] = min(best[k], ms), timed[k] + ms * steps / 1000.0
        done += 1
    return best[0], best[1], best[2], done


def more_rounds(done: int, timed: list[float], repeat: int, seconds: float) -> bool:
    """Whether a comparison runs another alternating round: until `repeat` rounds are done and every series has had
    `seconds` of timed steps (`timed`). One car's second of driving takes a few milliseconds: one sample of a machine
    whose speed wanders from moment to moment, so that the best of three is still a draw; a small fleet gets as many
    runs as a large fleet's few take, on both sides alike."""
    return done < repeat or min(timed) < seconds


def noise_floor(first: float, again: float, runs: int) -> str:
    """The words for the series' length and the difference between two series of the same runs."""
    return f"best of {runs} runs each; the same runs twice differ by {100.0 * (again / first - 1.0):+.1f} %"


def with_simulator(loaded: simulate.LoadedSimulation, threads: int, kernel: bool, dt: float,
                   contacts: bool = True, compiled_rows: bool = True) -> simulate.LoadedSimulation:
    """The same loaded vehicles in a fresh simulator: `threads` threads, compiled kernel or numpy kernels, with the
    vehicles' contacts or without (StepOptions.contacts), the compiled row solver or numpy's
    (StepOptions.compiled_rows)."""
    sim = loaded.simulator
    fresh = Simulator(sim.batch, sim.ground, dt, threads=threads,
                      options=StepOptions(compiled=kernel, contacts=contacts, compiled_rows=compiled_rows),
                      collision=loaded.description)
    return dataclasses.replace(loaded, simulator=fresh)


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
    parser.add_argument("--repeat", type=int, default=3, help="runs of each side per row, alternating; the best of each is printed (default 3)")
    parser.add_argument("--min-seconds", type=float, default=1.0,
                        help="and more runs, alternating, until each side has had this many seconds of timed steps "
                             "(default 1: a one-car row gets dozens of runs, a 1,000-car row --repeat)")
    parser.add_argument("--numpy", action="store_true", help="also time our numpy kernels (rows marked numpy)")
    parser.add_argument("--substeps", type=int, nargs=2, metavar=("LOW", "HIGH"),
                        help="sub-step counts below and above the threshold speed, authored over the sample car's "
                             "own; PhysX's defaults are 3 and 1")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed for one ovphysx run")
    parser.add_argument("--road", choices=ROADS, default="plane", help="what the fleet drives on (default: plane)")
    parser.add_argument("--contact-cost", action="store_true",
                        help="also time the compiled kernel without the vehicles' contacts (StepOptions.contacts off), "
                             "alternating runs with and without, and print what contacts cost")
    parser.add_argument("--braked", action="store_true",
                        help="also time the fleet braked at rest (brake0 1, accelerator 0) against rolling at full "
                             "throttle, alternating runs, and print the difference")
    parser.add_argument("--numpy-rows", action="store_true",
                        help="also time the compiled kernel with the numpy row solver (StepOptions.compiled_rows off), "
                             "alternating runs with the compiled one")
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "physxvehicle_usd_fleet")
    args = parser.parse_args()

    counts = "the sample car's own" if args.substeps is None else f"{args.substeps[0]} / {args.substeps[1]}"
    print(f"{args.steps} steps of {args.dt:g} s on the {args.road} road, full throttle from rest, {counts} sub-steps "
          "below / above the threshold speed; real-time factor = (1/60 s) / (time per step)")
    header = (f"{'cars':>6} {'threads':>7} {'path':>7} {'ours ms/step':>12} {'ovphysx ms/step':>15} {'ours/ovphysx':>12} "
              f"{'RTF ours':>9} {'RTF ovphysx':>11} {'ours load s':>11} {'ovphysx load s':>14} {'RSS MiB':>8} {'ovphysx RSS':>11} {'runs':>5}")
    print(header)
    for n in args.sizes:
        path = fleet_stage(n, args.folder, tuple(args.substeps) if args.substeps else None, args.road)
        gc.collect()
        loaded = simulate.load(path, args.dt)
        assert len(loaded.paths) == n, f"simulated {len(loaded.paths)} of {n} vehicles"
        assert compiled.covers(loaded.simulator.params), "the compiled kernel does not cover the fleet (not built?)"
        # ours and ovphysx alternate, one run each per round, and each keeps its best of --repeat rounds: a drift of
        # the machine's speed then reaches both sides alike
        variants = [(threads, kernel) for kernel in ((True, False) if args.numpy else (True,)) for threads in args.threads]
        best = {variant: float("inf") for variant in variants}
        timed = {variant: 0.0 for variant in variants}
        other, ovphysx_timed, ovphysx_failed = None, 0.0, args.no_ovphysx
        rounds = (args.repeat, args.min_seconds)
        done = 0
        while more_rounds(done, list(timed.values()) + ([] if ovphysx_failed else [ovphysx_timed]), *rounds):
            for threads, kernel in variants:
                ms = ours(loaded, args.steps, args.dt, threads, kernel, 1)
                best[threads, kernel] = min(best[threads, kernel], ms)
                timed[threads, kernel] += ms * args.steps / 1000.0
            if not ovphysx_failed:
                run = ovphysx(path, args.steps, args.dt, args.timeout)
                if run is None:
                    ovphysx_failed = True  # (said by `ovphysx`; no more rounds for its sake)
                else:
                    other = run if other is None else (min(other[0], run[0]), min(other[1], run[1]))
                    ovphysx_timed += run[0] * args.steps / 1000.0
            done += 1
        timings = [(threads, "kernel" if kernel else "numpy", best[threads, kernel]) for threads, kernel in variants]
        ov_ms = f"{other[0]:15.3f}" if other else f"{'-':>15}"
        ov_rtf = f"{1000.0 * FRAME_60HZ / other[0]:11.2f}" if other else f"{'-':>11}"
        ov_load = f"{other[1]:14.2f}" if other else f"{'-':>14}"
        ov_rss = f"{peak_mib(resource.RUSAGE_CHILDREN):11.0f}" if other else f"{'-':>11}"
        for threads, kind, ms in timings:
            ratio = f"{ms / other[0]:12.2f}" if other else f"{'-':>12}"
            print(f"{n:6d} {threads:7d} {kind:>7} {ms:12.3f} {ov_ms} {ratio} {1000.0 * FRAME_60HZ / ms:9.2f} {ov_rtf} "
                  f"{loaded.load_s:11.2f} {ov_load} {peak_mib(resource.RUSAGE_SELF):8.0f} {ov_rss} {done:5d}", flush=True)
        if args.contact_cost:
            on, off, again, runs = paired(loaded, args.steps, args.dt, args.threads[0], rounds, {"contacts": True},
                                    {"contacts": False})
            print(f"{n:6d} cars, compiled kernel on {args.threads[0]} thread(s), alternating runs: {on:.3f} ms/step "
                  f"with contacts, {off:.3f} without: contacts cost {100.0 * (on / off - 1.0):+.1f} % "
                  f"({noise_floor(on, again, runs)})", flush=True)
        if args.braked:
            braked, rolling, again, runs = paired(loaded, args.steps, args.dt, args.threads[0], rounds,
                                            {"controls": BRAKED}, {"controls": FULL_THROTTLE})
            print(f"{n:6d} cars, compiled kernel on {args.threads[0]} thread(s), alternating runs: {braked:.3f} ms/step "
                  f"braked at rest, {rolling:.3f} rolling at full throttle: braked {100.0 * (braked / rolling - 1.0):+.1f} % "
                  f"({noise_floor(braked, again, runs)})", flush=True)
        if args.numpy_rows:
            c_rows, np_rows, again, runs = paired(loaded, args.steps, args.dt, args.threads[0], rounds,
                                            {"compiled_rows": True}, {"compiled_rows": False})
            print(f"{n:6d} cars, compiled kernel on {args.threads[0]} thread(s), alternating runs: {c_rows:.3f} "
                  f"ms/step with the compiled row solver, {np_rows:.3f} with numpy's ({np_rows / c_rows:.2f}x; "
                  f"{noise_floor(c_rows, again, runs)})", flush=True)

if __name__ == "__main__":
    main()
