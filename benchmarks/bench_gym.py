#!/usr/bin/env python
"""Agent-steps per second of the Gymnasium environment (physxvehicle_usd.gym) beside the raw Simulator.step.

    python benchmarks/bench_gym.py [--sizes 1 100 1000 10000] [--steps 200] [--episode 100] [--dt 0.016666667]
                                   [--repeat 7] [--threads 1]

N copies of the sample car (`VehicleVectorEnv.from_asset`: the car is read once), full throttle at a slight steer.
For each N, --repeat pairs of runs of --steps steps, each from a reset, taken in turns (env, raw, env, raw, ...: a
change in what else the machine runs hits both alike), of:
  env   VehicleVectorEnv.step(actions): clipping, the controls, the simulator's step, the observation, the default
        reward and terminations, the step limit, and the autoreset of every car once an episode (--episode steps)
        ends (the episodes end together here: the whole batch is reset once per episode);
  raw   Simulator.step(controls) on the same vehicles, the controls being the same actions' columns, with
        Simulator.reset_vehicles where the environment's episodes start over (the same physics, step for step).
Prints agent-steps per second (vehicles x steps / seconds) of the best run of each, the wrapper's overhead (env time
over raw time, minus 1: the median over the pairs, with the lowest and highest pair beside it, which say the noise)
and what it is per step, and the real-time factor per core (simulated vehicle-seconds per wall second on --threads
threads), beside two published references.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from physxvehicle_usd.gym import VehicleVectorEnv  # noqa: E402
from physxvehicle_usd.sim import Simulator  # noqa: E402

SAMPLE = REPO / "samples" / "car" / "car.usda"
FRAME_60HZ = 1.0 / 60.0
REFERENCES = (
    "an Isaac Lab-based PhysX vehicle environment: about 19,250 agent-steps/s (256 worlds x 16 agents, on a GPU)",
    "a CUDA 24-DoF vehicle model: 2,720x real time per CPU core",
)


def in_turns(runs: dict[str, Callable[[], None]], repeat: int) -> dict[str, np.ndarray]:
    """Wall times of `repeat` rounds, each calling every run once, in turns."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            began = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - began)
    return {name: np.array(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 100, 1000, 10000], help="numbers of cars")
    parser.add_argument("--steps", type=int, default=200, help="steps per run (default 200)")
    parser.add_argument("--episode", type=int, default=100, help="the environment's step limit (default 100)")
    parser.add_argument("--dt", type=float, default=FRAME_60HZ, help="seconds per step")
    parser.add_argument("--repeat", type=int, default=7, help="pairs of runs per row (default 7)")
    parser.add_argument("--threads", type=int, default=1, help="threads of the simulator (default 1)")
    args = parser.parse_args()

    print(f"{'cars':>6} {'env agent-steps/s':>18} {'raw agent-steps/s':>18} {'overhead (lowest-highest)':>26} "
          f"{'ms/step':>8} {'x real time/core':>17}", flush=True)
    for n in args.sizes:
        env = VehicleVectorEnv.from_asset(SAMPLE, n, args.dt, threads=args.threads, max_episode_steps=args.episode)
        raw = Simulator(env.simulator.batch, env.simulator.ground, args.dt, threads=args.threads)
        actions = np.tile(np.array([1.0, 0.0, 0.0, 0.1], np.float32), (n, 1))
        controls = {name: actions[:, cols.start] for name, cols in env.action_layout.columns.items()}

        def run_env() -> None:
            env.reset(seed=0)
            for _ in range(args.steps):
                env.step(actions)

        everyone = np.ones(n, bool)

        def run_raw() -> None:
            # the same physics as the environment's: its cars start over on the step after their episode's last
            # (NEXT_STEP autoreset), and a car at rest costs more substeps than one above the substep threshold speed
            raw.reset_vehicles(everyone)
            for k in range(1, args.steps + 1):
                raw.step(controls)
                if k % (args.episode + 1) == 0:
                    raw.reset_vehicles(everyone)

        run_env()  # warm-up: first-call costs (the kernel's parameter struct, numpy's caches)
        run_raw()
        times = in_turns({"env": run_env, "raw": run_raw}, args.repeat)
        env_rate, raw_rate = n * args.steps / times["env"].min(), n * args.steps / times["raw"].min()
        overhead = 100 * (times["env"] / times["raw"] - 1)  # pair by pair
        extra_ms = 1e3 * np.median(times["env"] - times["raw"]) / args.steps
        realtime = env_rate * args.dt / args.threads
        spread = f"{np.median(overhead):.1f}% ({overhead.min():.1f} to {overhead.max():.1f})"
        print(f"{n:>6} {env_rate:>18,.0f} {raw_rate:>18,.0f} {spread:>26} {extra_ms:>8.3f} {realtime:>16,.0f}x",
              flush=True)
    print("references:")
    for line in REFERENCES:
        print(f"  {line}")


if __name__ == "__main__":
    main()
