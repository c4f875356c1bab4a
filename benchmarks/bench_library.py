#!/usr/bin/env python
"""`validate` on a library of vehicle assets: serial, --jobs 2 and --ray on this machine, and what Ray would do for
100,000 assets on a cluster.

    python benchmarks/bench_library.py [--assets 2000] [--repeat 2] [--folder DIR] [--nodes 1 4 16 64]
                                       [--cpus-per-node 16]

The library: --assets stages from the presets with randomised tuning (mass, chassis length, wheel radius, tire
friction and stiffness, suspension damping; each preset in m/cm/mm/in, Z and Y up; a quarter of them .usdc), in
folders of 500; one in BROKEN_EVERY is broken: a NaN wheel radius, a wheel attachment without its tire
relationship, or bytes that are no USD at all. Generated once into --folder and kept (the same seed gives the same
files).

Each run is `python -m physxvehicle_usd validate LIBRARY [--jobs 2 | --ray]` in a fresh interpreter, as a user runs
it (the --ray run starts and stops its own local Ray instance), plus a serial run with USD on one thread
(PXR_WORK_THREAD_LIMIT=1, as in each --jobs worker and Ray task): a CPU's cost per file. Their reports must be
byte-identical. Then, in this process, Ray's fixed costs are measured on a local instance: starting it, a worker's
first task (importing USD and the validator), and the per-task overhead (many empty tasks). From those and the
per-file cost on one CPU, the model

    ray(N, P) = start + warm-up + N * per_file / P + tasks(N) * per_task

(P CPUs in the cluster; the driver submits the tasks one after another, so their overhead is not divided by P) is
printed against the --ray run measured here, then extrapolated to 100,000 files on clusters of --nodes nodes of
--cpus-per-node CPUs, with the crossover: how many files Ray needs before it beats serial (and --jobs on one
machine). Figures from a shared machine are indicative: other work changes them from run to run.
"""
from __future__ import annotations

import argparse
import itertools
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BROKEN_EVERY = 50           # 2 % of the library is broken
BROKEN_KINDS = ("nan", "norel", "unreadable")
# what `fix` repairs, one kind in turn (a library with repairs to make: `repairable_every`; none by default): the scene
# lost its vehicle context (V07, and V142 on a Z-up stage: the sprung masses), the scene itself (A06, V07), sprung
# masses authored that miss the chassis mass (A09: the solve reads the stage again), the wheel shapes taken out of
# their collision group (A03)
REPAIRABLE_KINDS = ("nocontext", "noscene", "sprung", "nogroup")
FOLDER_SIZE = 500           # files per sub-folder, as a real library is split
SEED = 2024


def _tweak(stage, rng: random.Random) -> None:
    """Tire stiffness is not a spec choice: scale what the author API wrote."""
    from physxvehicle_usd import properties as P

    for prim in stage.Traverse():
        if not prim.HasAPI(P.TIRE):
            continue
        for name in ("longitudinalStiffness", "lateralStiffnessGraph"):
            attr = prim.GetAttribute(P.full_name(P.TIRE, name))
            value = attr.Get() if attr else None
            if value is None:
                continue
            scale = rng.uniform(0.8, 1.25)
            attr.Set(type(value)(value[0], value[1] * scale) if name == "lateralStiffnessGraph" else value * scale)


def _break(stage, kind: str) -> None:
    from physxvehicle_usd import properties as P

    if kind == "nan":  # a NaN where a radius belongs: the reader reports it and leaves the vehicle out
        wheel = next(p for p in stage.Traverse() if p.HasAPI(P.WHEEL))
        wheel.GetAttribute(P.full_name(P.WHEEL, "radius")).Set(float("nan"))
    elif kind == "norel":  # a wheel attachment that lost its tire relationship
        attachment = next(p for p in stage.Traverse() if p.HasAPI(P.ATTACHMENT))
        attachment.GetRelationship(P.full_name(P.ATTACHMENT, "tire")).ClearTargets(True)


def _make_repairable(stage, kind: str) -> None:
    from pxr import UsdPhysics

    from physxvehicle_usd import properties as P
    from physxvehicle_usd.read import read_stage

    scene = next(p for p in stage.Traverse() if p.IsA(UsdPhysics.Scene))
    if kind == "nocontext":
        scene.RemoveAppliedSchema(P.CONTEXT)
        for name in P.full_names(P.CONTEXT).values():
            scene.RemoveProperty(name)
    elif kind == "noscene":
        stage.RemovePrim(scene.GetPath())
    elif kind == "sprung":  # as a chassis whose mass was changed after the wizard wrote its sprung masses
        vehicle = next(iter(read_stage(stage).vehicles.values()))
        share = 1.2 * vehicle.rigidBody["mass"] / len(vehicle.wheels)
        for path in {w.suspension.path for w in vehicle.wheels}:
            stage.GetPrimAtPath(path).GetAttribute(P.full_name(P.SUSPENSION, "sprungMass")).Set(share)
    elif kind == "nogroup":
        for prim in stage.Traverse():
            if prim.IsA(UsdPhysics.CollisionGroup):
                includes = UsdPhysics.CollisionGroup(prim).GetCollidersCollectionAPI().GetIncludesRel()
                wheels = [t for t in includes.GetTargets()
                          if stage.GetPrimAtPath(t.GetParentPath()).HasAPI(P.ATTACHMENT)]
                for target in wheels:
                    includes.RemoveTarget(target)


def library_file(folder: Path, index: int, broken_every: int = BROKEN_EVERY, seed: int = SEED,
                 repairable_every: int = 0) -> Path:
    """The index-th asset of the library (written unless it exists): the same file for the same index and seed.
    With `repairable_every`, one file in that many (never a broken one) has something `fix` repairs."""
    from physxvehicle_usd.author import PRESETS, author_vehicle, preset_spec
    from physxvehicle_usd.stage.io import export_layer_atomic

    rng = random.Random(seed * 1_000_003 + index)
    preset, units, up = list(itertools.product(PRESETS, ("m", "cm", "mm", "in"), ("Z", "Y")))[index % 40]
    broken = BROKEN_KINDS[(index // broken_every) % len(BROKEN_KINDS)] if index % broken_every == broken_every - 1 \
        else None
    repairable = REPAIRABLE_KINDS[(index // repairable_every) % len(REPAIRABLE_KINDS)] \
        if repairable_every and not broken and index % repairable_every == repairable_every // 2 else None
    suffix = ".usdc" if index % 4 == 3 and broken != "unreadable" else ".usda"
    kind = broken or repairable
    name = f"{index:05d}_{preset}_{units}_{up}{'_' + kind if kind else ''}{suffix}"
    path = folder / f"{index // FOLDER_SIZE:02d}" / name
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    if broken == "unreadable":
        path.write_bytes(b"#usda 1.0\n(\n" + rng.randbytes(64))
        return path
    base = PRESETS[preset].spec
    changes = {"mass": base.resolved_mass * rng.uniform(0.7, 1.4),
               "chassis_length": base.chassis_length * rng.uniform(0.9, 1.15),
               "tire_friction": rng.uniform(0.6, 1.1), "damping_ratio": rng.uniform(0.2, 0.5)}
    if base.wheel_radius is not None:
        changes["wheel_radius"] = base.wheel_radius * rng.uniform(0.85, 1.0)
    stage = author_vehicle(preset_spec(preset, **changes), units, up)
    _tweak(stage, rng)
    if broken:
        _break(stage, broken)
    if repairable:
        _make_repairable(stage, repairable)
    export_layer_atomic(stage.GetRootLayer(), path)
    return path


def write_library(folder: Path, count: int, broken_every: int = BROKEN_EVERY, seed: int = SEED,
                  repairable_every: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        library_file(folder, index, broken_every, seed, repairable_every)
    return folder


def library_name(count: int, repairable_every: int = 0) -> str:
    """The library's folder name: what sets its files (a library with repairs to make is another library)."""
    return f"library_{count}" + (f"_repairable_{repairable_every}" if repairable_every else "")


def run_validate(folder: Path, extra: list[str], package_root: Path, env: dict | None = None
                 ) -> tuple[float, str, int, str]:
    command = [sys.executable, "-m", "physxvehicle_usd", "validate", str(folder), *extra]
    env = {**os.environ, "PYTHONPATH": str(package_root), **(env or {})}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=package_root, check=False)
    return time.perf_counter() - start, done.stdout, done.returncode, done.stderr


def ray_costs(sample: Path, tasks: int) -> dict[str, float]:
    """Ray's fixed and per-task costs on a local instance of this machine's CPUs, as `validate --ray` starts it."""
    import ray

    from physxvehicle_usd.on_ray import ray_session
    from physxvehicle_usd.validate import validate_file

    costs = {}
    start = time.perf_counter()
    with ray_session("local"):
        costs["start"] = time.perf_counter() - start

        @ray.remote(num_cpus=1)
        def nothing() -> None:
            return None

        check = ray.remote(num_cpus=1)(validate_file)
        start = time.perf_counter()
        # one first task per CPU: each worker imports USD and the validator once (in parallel across workers)
        ray.get([check.remote(str(sample)) for _ in range(os.cpu_count() or 1)])
        costs["warm_up"] = time.perf_counter() - start
        ray.get([nothing.remote() for _ in range(100)])  # the no-op workers started too
        start = time.perf_counter()
        ray.get([nothing.remote() for _ in range(tasks)])
        costs["per_task"] = (time.perf_counter() - start) / tasks
        start = time.perf_counter()
    costs["stop"] = time.perf_counter() - start
    return costs


def chunk_count(files: int, cpus: int) -> int:
    from physxvehicle_usd.on_ray import CHUNKS_PER_CPU, MAX_CHUNK

    size = max(1, min(MAX_CHUNK, files // (cpus * CHUNKS_PER_CPU)))
    return math.ceil(files / size)


def ray_model(files: int, cpus: int, per_file: float, costs: dict[str, float], cli_start: float) -> float:
    fixed = cli_start + costs["start"] + costs["warm_up"] + costs["stop"]
    return fixed + files * per_file / cpus + chunk_count(files, cpus) * costs["per_task"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assets", type=int, default=2000)
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "physxvehicle_usd_library")
    parser.add_argument("--package-root", type=Path, default=REPO)
    parser.add_argument("--target", type=int, default=100_000, help="files in the extrapolation")
    parser.add_argument("--nodes", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--cpus-per-node", type=int, default=16)
    parser.add_argument("--empty-tasks", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2, help="rounds of the four runs; the best of each is shown")
    args = parser.parse_args()
    cpus = os.cpu_count() or 1

    start = time.perf_counter()
    library = write_library(args.folder / f"library_{args.assets}", args.assets)
    print(f"library: {args.assets} assets in {library} ({time.perf_counter() - start:.1f} s to generate or find), "
          f"one in {BROKEN_EVERY} broken; {cpus} CPUs")

    # "1 thread": serial with USD on one thread, as each --jobs worker and each Ray task runs it: a CPU's cost per
    # file, which the model divides among the CPUs (plain serial lets USD spread a file over both cores)
    runs = {"serial": [], "1 thread": [], "--jobs 2": ["--jobs", "2"], "--ray": ["--ray"]}
    timings: dict[str, float] = {}
    reports: dict[str, set[str]] = {name: set() for name in runs}
    for _ in range(max(1, args.repeat)):  # alternating rounds, the best of each: the least disturbed by other work
        for name, extra in runs.items():
            env = {"PXR_WORK_THREAD_LIMIT": "1"} if name == "1 thread" else None
            seconds, report, code, errors = run_validate(library, extra, args.package_root, env)
            assert code in (0, 1, 2) and report, f"validate {name} exited {code}:\n{errors[-2000:]}"
            timings[name] = min(timings.get(name, seconds), seconds)
            reports[name].add(report)
    identical = len(set().union(*reports.values())) == 1
    one_file = next(p for p in sorted(library.rglob("*.usda")) if "_" in p.stem and not p.stem.endswith(BROKEN_KINDS))
    cli_start = min(run_validate(one_file, [], args.package_root)[0] for _ in range(2))  # interpreter, imports, 1 file
    per_file = (timings["1 thread"] - cli_start) / args.assets
    costs = ray_costs(one_file, args.empty_tasks)

    print(f"\nbest of {max(1, args.repeat)}:")
    print(f"{'run':<10} {'wall s':>8} {'files/s':>8} {'vs serial':>10}")
    for name in runs:
        print(f"{name:<10} {timings[name]:8.2f} {args.assets / timings[name]:8.1f} "
              f"{timings['serial'] / timings[name]:9.2f}x")
    print(f"reports byte-identical ({len(runs) * max(1, args.repeat)} runs): {'yes' if identical else 'NO'} "
          f"({next(iter(reports['serial'])).strip().splitlines()[-1]})")
    print(f"\nper file on one CPU (serial on 1 thread, less the {cli_start:.2f} s a one-file run takes): "
          f"{1000 * per_file:.2f} ms")
    print(f"Ray, local instance: start {costs['start']:.2f} s, worker warm-up {costs['warm_up']:.2f} s, "
          f"stop {costs['stop']:.2f} s, per task {1000 * costs['per_task']:.2f} ms "
          f"({args.empty_tasks} empty tasks); {chunk_count(args.assets, cpus)} tasks for {args.assets} files")
    modelled = ray_model(args.assets, cpus, per_file, costs, cli_start)
    print(f"model for the --ray run above: {modelled:.2f} s (measured {timings['--ray']:.2f} s)")

    fixed = cli_start + costs["start"] + costs["warm_up"] + costs["stop"]
    print(f"\n{args.target:,} files (per file {1000 * per_file:.2f} ms; Ray's fixed {fixed:.1f} s from this machine):")
    serial = args.target * per_file
    jobs = args.target * per_file / args.cpus_per_node
    print(f"  serial (1 thread): {serial / 60:.1f} min; --jobs {args.cpus_per_node} on one "
          f"{args.cpus_per_node}-CPU node: {jobs / 60:.1f} min")
    for nodes in args.nodes:
        total = nodes * args.cpus_per_node
        seconds = ray_model(args.target, total, per_file, costs, cli_start)
        bound = chunk_count(args.target, total) * costs["per_task"]
        print(f"  --ray, {nodes:3d} x {args.cpus_per_node} CPUs: {seconds / 60:6.2f} min "
              f"({args.target / seconds:8.0f} files/s; driver's task overhead {bound:.1f} s)")
    # Ray wins once the files' CPU time it saves pays for its fixed cost: N * c * (1/P_other - 1/P_ray) > fixed
    print(f"\ncrossover (files before --ray pays for its {fixed:.1f} s; CPUs at one file each):")
    print(f"  local Ray on {cpus} CPUs vs serial: {fixed / (per_file * (1 - 1 / cpus)):,.0f} files; vs --jobs {cpus}: "
          "never (the same CPUs, plus Ray's costs)")
    for nodes in args.nodes:
        total = nodes * args.cpus_per_node
        if total > args.cpus_per_node:
            saved = per_file * (1 / args.cpus_per_node - 1 / total)
            print(f"  {nodes} x {args.cpus_per_node} CPUs vs --jobs {args.cpus_per_node} on one node: "
                  f"{fixed / saved:,.0f} files")
    if not identical:
        sys.exit("the reports differ between the runs")


if __name__ == "__main__":
    main()
