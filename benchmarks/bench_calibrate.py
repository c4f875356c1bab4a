#!/usr/bin/env python
"""`calibrate` on a 30-second log and four parameters: the batched fit beside the same fit run one candidate at a time.

    python benchmarks/bench_calibrate.py [--seconds 30] [--threads 2] [--skip-one-at-a-time]

The log: the sample car driven by our simulator for --seconds (tests/scenarios/calibration.py's drive, repeated:
throttle, a steering wave, braking, from 12 m/s, second gear, every 9 s) with four properties changed by 15 to 25 % (engine
peak torque, front spring strength, chassis mass, foot-brake torque); the fit starts from the unchanged car.
  batched        each evaluation runs the candidate and its 2p finite-difference neighbours as 2p + 1 lanes of one
                 fleet (physxvehicle_usd.calibrate's default);
  one at a time  the same evaluations, each lane a run of its own (`batched=False`): the same numbers, checked.
Prints the wall time of each (and this process's CPU time: on a machine others load too, the steadier figure), the evaluations and lanes run, the recovered values against the truth, and the
batched speedup. --threads: the compiled kernel's threads for the lanes (2: both cores of a 2-core machine).
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from scenarios import calibration as C  # noqa: E402

from physxvehicle_usd.calibrate import calibrate  # noqa: E402
from physxvehicle_usd.simulate import run  # noqa: E402


def repeated_drive(seconds: float) -> dict:
    """The scenario's drive, again every 9 s until `seconds`, its brake released at 8 s and some throttle given (the car
    stays above about 6 m/s: below 5 m/s the sample car's wheels may chatter, see tests/scenarios/calibration.py)."""
    cycle: dict[str, list] = {name: [] for name in C.DRIVE}
    start = 0.0
    while start < seconds:
        for name, samples in C.DRIVE.items():
            cycle[name] += [(start + t, v) for t, v in samples if start + t < seconds]
        cycle["brake0"] += [(start + t, v) for t, v in ((7.6, 0.12), (8.0, 0.0)) if start + t < seconds]
        cycle["accelerator"] += [(start + t, v) for t, v in ((7.6, 0.0), (8.0, 0.3)) if start + t < seconds]
        start += 9.0
    return cycle


def fit(stage: Path, log: Path, batched: bool, threads: int) -> tuple[float, float, object]:
    """(wall seconds, this process's CPU seconds, the vehicle's calibration)."""
    began, cpu = time.perf_counter(), time.process_time()
    result = calibrate(stage, log, fit=list(C.HIDDEN_FOUR), batched=batched, threads=threads)
    return time.perf_counter() - began, time.process_time() - cpu, result.vehicles[C.CAR]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--skip-one-at-a-time", action="store_true", help="time the batched fit alone")
    args = parser.parse_args()
    cycle = repeated_drive(args.seconds)
    steps = int(round(args.seconds / C.DT))
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        truth = C.write_drive(folder / "truth.usda", cycle, changes=C.HIDDEN_FOUR)
        stage = C.write_drive(folder / "car.usda", cycle)
        log = folder / "drive.trace.json"
        log.write_text(json.dumps(run(truth, steps, C.DT).trace))
        true = C.true_values(C.HIDDEN_FOUR)
        print(f"log: {args.seconds:g} s ({steps} steps of {C.DT:.6g} s), 4 parameters, kernel threads {args.threads}")
        timings = {}
        for label, batched in (("batched", True), ("one at a time", False)):
            if not batched and args.skip_one_at_a_time:
                continue
            seconds, cpu, car = fit(stage, log, batched, args.threads)
            timings[label] = (seconds, car)
            worst = max(abs(f.value / true[f.name] - 1) for f in car.fitted)
            print(f"{label:>14}: {seconds:7.1f} s wall ({cpu:.1f} s CPU), {car.evaluations} evaluations, "
                  f"{car.lanes} lanes run, worst recovery error {100 * worst:.4f} %", flush=True)
        for f in timings["batched"][1].fitted:
            print(f"    {f.name}: {f.value:.6g} (true {true[f.name]:.6g}, initial {f.initial:.6g}, "
                  f"95 % [{f.low:.6g}, {f.high:.6g}])")
        if len(timings) == 2:
            same = all(a.value == b.value for a, b in zip(timings["batched"][1].fitted, timings["one at a time"][1].fitted))
            print(f"batched speedup: {timings['one at a time'][0] / timings['batched'][0]:.2f}x "
                  f"({'the same values' if same else 'DIFFERENT values'} both ways)")


if __name__ == "__main__":
    main()
