from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from physxvehicle_usd.sim import compiled

# fixtures shared by the test modules of copies of one asset (source, asset); the outcomes of NVIDIA's vehicle tests
# re-expressed in tests/omni_vehicle (the `nvidia` marker and the results file of docs/omni-vehicle-tests.md)
pytest_plugins = ("fleet_factory", "omni_vehicle.results_plugin")

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"

# PhysX's runs are taken from their records where the stage and request are unchanged (physxvehicle_usd.oracle.records):
# the conformance suites then compare with PhysX without starting it. The soak step checks every record against a
# fresh run (PVU_PHYSX_RECORDS_MODE=check in .ci/run); a new or changed scenario is recorded when it first runs.
os.environ.setdefault("PVU_PHYSX_RECORDS", str(REPO / "tests" / "data" / "physx_records"))

# The simulator's C kernel is built by pip install where a C compiler is found, and is optional; CI has one and
# .ci/run fails before the tests if it was not built.
needs_kernel = pytest.mark.skipif(
    not compiled.available(),
    reason="the compiled kernel (physxvehicle_usd/sim/_substeps) is not built: no C compiler when the package was "
           "installed (pip install -e . builds it)")


def run_python(args: list[str], env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a fresh interpreter (the schema plugins of NVIDIA and ours can't share a process)."""
    full_env = dict(os.environ)
    full_env.pop("PXR_PLUGINPATH_NAME", None)
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=full_env, timeout=timeout)


T = TypeVar("T")


def two_at_a_time(calls: dict[str, Callable[[], T]]) -> dict[str, T]:
    """Independent calls that each wait on a subprocess (an ovphysx run), two at once: a core each on two cores."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {key: pool.submit(call) for key, call in calls.items()}
        return {key: future.result() for key, future in futures.items()}


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run_cli(capfd, *args) -> Ran:
    """The command line in this process (a fresh interpreter spends a second on imports), with what it printed,
    USD's own messages included (capfd reads the file descriptors)."""
    from physxvehicle_usd.cli import main

    capfd.readouterr()  # what the test printed before
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as done:
        code = 0 if done.code is None else done.code
    out, err = capfd.readouterr()
    return Ran(code, out, err)


def run_cli_on_terminal(capfd, monkeypatch, *args, columns: int = 400) -> tuple[Ran, str]:
    """run_cli with stderr a terminal (a pseudo-terminal this test reads): what it ran, and what it drew there."""
    import pty
    import threading

    master, slave = pty.openpty()
    drawn = bytearray()

    def read() -> None:  # drained as it is drawn: a full terminal buffer would block the command
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end closed
                return
            if not chunk:
                return
            drawn.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    for name in ("TTY_COMPATIBLE", "TTY_INTERACTIVE", "FORCE_COLOR"):  # what would tell rich otherwise
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", str(columns))  # the whole bar on one line, the file names included
    with os.fdopen(slave, "w") as terminal:
        monkeypatch.setattr(sys, "stderr", terminal)
        ran = run_cli(capfd, *args)
        monkeypatch.setattr(sys, "stderr", sys.__stderr__)
    reader.join(timeout=10)
    os.close(master)
    return ran, drawn.decode("utf-8", "replace")


def stage_over_sample(path: Path, author=None) -> Path:
    """A stage file that sublayers the sample car and overrides what `author(stage)` authors.

    The root layer decides units and axes, so they are set here: a stage that only sublayers the sample
    would otherwise be in centimetres, Y up."""
    from pxr import Usd, UsdGeom, UsdPhysics

    stage = Usd.Stage.CreateNew(str(path))
    stage.GetRootLayer().subLayerPaths.append(str(SAMPLES / "car" / "car.usda"))
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.z)
    UsdPhysics.SetStageKilogramsPerUnit(stage, 1.0)
    if author:
        author(stage)
    stage.GetRootLayer().Save()
    return path


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


def written_values(description) -> dict:
    """A description's JSON as far as the writer authors it: without the diagnostics and the file name, and
    without the collision shapes and their groups, which are the stage's geometry and filtering (cubes and meshes
    under the vehicle, PhysicsCollisionGroups), not vehicle properties the writer of descriptions authors."""
    data = description.to_json()
    data["stage"] = {k: v for k, v in data["stage"].items() if k != "file"}
    data.pop("diagnostics")
    for vehicle in data["vehicles"].values():
        vehicle.pop("collision", None)
    data.pop("collisionGroups", None)
    for ground in data["ground"]:
        ground.pop("groups", None)
    return data


@contextmanager
def local_ray_instance(cpus: int = 2) -> Iterator[None]:
    """One real local Ray instance (the code under test uses it rather than start its own), its workers importing
    this checkout, on `cpus` CPUs with a small object store."""
    import warnings

    import ray

    with warnings.catch_warnings():  # Ray's note on its future GPU defaults
        warnings.simplefilter("ignore", FutureWarning)
        ray.init(address="local", num_cpus=cpus, object_store_memory=200 * 1024**2, include_dashboard=False,
                 log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(autouse=True)
def _samples_left_as_they_are():
    """A test may open a sample and edit its stage in memory (its root layer is the sample file's layer, which USD
    keeps while anything holds it): the edit must not outlive the test, where another test of the same worker would
    read it, or save it into samples/. After each test, a sample layer left with edits is read again from its file."""
    yield
    from pxr import Sdf

    for layer in Sdf.Layer.GetLoadedLayers():
        if layer.dirty and layer.realPath and Path(layer.realPath).is_relative_to(SAMPLES):
            layer.Reload(force=True)
