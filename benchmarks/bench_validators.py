#!/usr/bin/env python
"""`validate` and `fix` on a library of assets beside reading them alone, and beside NVIDIA's validator on the same
folder.

    python benchmarks/bench_validators.py [--assets 1000] [--repeat 2] [--folder DIR] [--package-root DIR]
                                          [--repairable-every 10] [--no-nvidia]

The library is benchmarks/bench_library.py's (presets with randomised tuning, a quarter .usdc, one file in 50
broken, one in --repairable-every with something `fix` repairs: a lost vehicle context or scene, sprung masses that
miss the chassis mass, wheel shapes out of their collision group), generated once into --folder and kept. Each run
is a fresh interpreter on the whole folder, as a user runs it, and again on a folder of its first file alone (the
command's start-up: interpreter, imports, one file); the runs alternate, --repeat rounds, and the best of each is
printed (the figure least disturbed by other work on a shared machine) with ms per file and its ratio to reading,
whole and net of the start-up ((whole - one file) / (files - 1): what each further file costs):

    open       Usd.Stage.Open of every file (USD alone)
    read       open and read_stage every file (the reader, no checks): the goal is validate and fix at this cost
    validate   physxvehicle-usd validate FOLDER
    profiles   physxvehicle-usd validate FOLDER --profile isaac-lab,ovphysx,omniverse
    fix plan   physxvehicle-usd fix --dry-run FOLDER: the repairs planned, nothing written
    fix        physxvehicle-usd fix FOLDER -o TMP/: a layer written for each file with repairs, then validated
    nvidia     nvidia_usd_validate FOLDER without our rules (--disable-category "PhysX Vehicles"): its own rules
    nv+ours    nvidia_usd_validate FOLDER: its rules and ours
    nv ours    nvidia_usd_validate --category "PhysX Vehicles" FOLDER: our rules alone in NVIDIA's engine

The nvidia runs need usd-validation-nvidia (the nvidia extra); they find our rules through our entry point, which a
checkout that is not pip-installed lacks: the runs get it from a metadata folder written here from pyproject.toml
(`entry_point_site`), as pip would write it.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_library import library_name, write_library  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CATEGORY = "PhysX Vehicles"  # physxvehicle_usd.validate.nvidia_rules.CATEGORY, not imported: the package under test
                             # may be another checkout (--package-root)

_OPEN = """
import sys
from pxr import Usd
from physxvehicle_usd.validate import collect_files
for file in collect_files([sys.argv[1]])[0]:
    try:
        Usd.Stage.Open(file)
    except Exception:
        pass
"""
_READ = """
import sys
from physxvehicle_usd.errors import InputError
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.validate import collect_files
for file in collect_files([sys.argv[1]])[0]:
    try:
        read_stage(file)
    except InputError:
        pass
"""


def entry_point_site(folder: Path, package_root: Path = REPO) -> Path:
    """A folder holding a distribution's metadata that declares the entry points of `package_root`'s
    pyproject.toml, as `pip install` writes them: on PYTHONPATH, importlib.metadata finds them there."""
    import tomllib

    entry_points = tomllib.loads((package_root / "pyproject.toml").read_text())["project"]["entry-points"]
    dist = folder / "physxvehicle_usd_entry_points-0.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: physxvehicle-usd-entry-points\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in points.items())
        for group, points in entry_points.items()))
    return folder


def runs(folder: Path, nvidia: bool, written: Path) -> dict[str, list[str]]:
    """The commands on `folder`; `fix` writes its layers into `written` (emptied before each run)."""
    python = [sys.executable]
    out = {
        "open": [*python, "-c", _OPEN, str(folder)],
        "read": [*python, "-c", _READ, str(folder)],
        "validate": [*python, "-m", "physxvehicle_usd", "validate", str(folder)],
        "profiles": [*python, "-m", "physxvehicle_usd", "validate", str(folder), "--profile",
                     "isaac-lab,ovphysx,omniverse"],
        "fix plan": [*python, "-m", "physxvehicle_usd", "fix", "--dry-run", str(folder)],
        "fix": [*python, "-m", "physxvehicle_usd", "fix", str(folder), "-o", f"{written}{os.sep}"],
    }
    if nvidia:
        validator = [*python, "-m", "usd_validation_nvidia"]
        out["nvidia"] = [*validator, "--disable-category", CATEGORY, str(folder)]
        out["nv+ours"] = [*validator, str(folder)]
        out["nv ours"] = [*validator, "--category", CATEGORY, str(folder)]
    return out


def timed(command: list[str], env: dict, cwd: Path, written: Path) -> tuple[float, int, str]:
    shutil.rmtree(written, ignore_errors=True)  # fix writes its layers afresh each run
    written.mkdir(parents=True)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    return time.perf_counter() - start, done.returncode, done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--assets", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "physxvehicle_usd_library")
    parser.add_argument("--package-root", type=Path, default=REPO,
                        help="the checkout whose physxvehicle_usd runs (another one: to compare before and after)")
    parser.add_argument("--repairable-every", type=int, default=10,
                        help="one file in this many has something fix repairs (0: none, bench_library's library)")
    parser.add_argument("--no-nvidia", action="store_true", help="leave out the nvidia_usd_validate runs")
    args = parser.parse_args()
    if args.assets < 2:
        parser.error("--assets: at least 2 (the start-up is measured on a folder of one)")
    library = write_library(args.folder / library_name(args.assets, args.repairable_every), args.assets,
                            repairable_every=args.repairable_every)
    first = min(library.rglob("*.usd*"))  # a clean file (the broken ones are the last of each 50)
    one = args.folder / f"one_{first.name}"
    one.mkdir(exist_ok=True)
    shutil.copy(first, one)
    nvidia = not args.no_nvidia and importlib.util.find_spec("usd_validation_nvidia") is not None
    scratch = Path(tempfile.mkdtemp(prefix="physxvehicle_usd_bench_"))
    site = entry_point_site(scratch / "site", args.package_root)
    written = scratch / "fixed"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(args.package_root), str(site)))}
    commands = {"whole": runs(library, nvidia, written), "one": runs(one, nvidia, written)}
    best: dict[tuple[str, str], float] = {}
    try:
        for _ in range(max(args.repeat, 1)):
            for size, named in commands.items():
                for name, command in named.items():
                    seconds, code, output = timed(command, env, args.package_root, written)
                    # validate, fix and nvidia_usd_validate exit 1 on findings (the library has broken files), 2 on
                    # unreadable ones
                    assert code in (0, 1, 2), f"{name} exited {code}:\n{output[-2000:]}"
                    best[size, name] = min(best.get((size, name), seconds), seconds)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{args.assets} assets in {library}, {os.cpu_count()} CPUs, best of {args.repeat}, each run a fresh "
          "interpreter; start-up: the same command on a folder of one file" +
          ("" if nvidia else "; usd-validation-nvidia not installed"))

    def net(name: str) -> float:
        return (best["whole", name] - best["one", name]) / (args.assets - 1)

    print(f"{'run':>9} {'wall s':>8} {'ms/file':>8} {'x read':>7} {'start s':>8} {'net ms/file':>12} {'net x read':>11}")
    for name in commands["whole"]:
        whole = best["whole", name]
        print(f"{name:>9} {whole:8.2f} {1000 * whole / args.assets:8.1f} {whole / best['whole', 'read']:7.2f} "
              f"{best['one', name]:8.2f} {1000 * net(name):12.2f} {net(name) / net('read'):11.2f}")

if __name__ == "__main__":
    main()
