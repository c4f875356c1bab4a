"""`validate --ray [ADDRESS]` on real Ray: the report is the serial run's, byte for byte, in every format; results
come back in input order; a crashed worker fails only its file; a cluster is joined by its address.

The library is benchmarks/bench_library.py's (presets with randomised tuning), 20 files of which one in five is
broken: a NaN radius, a missing tire relationship, bytes that are no USD. Ray takes 10-20 s to start on the
2-core machine: one local instance serves the tests of this module, and those that need Ray are soak tests; the
usage errors (no Ray started) run in the default suite.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import REPO, local_ray_instance, run_cli

sys.path.insert(0, str(REPO / "benchmarks"))
from bench_library import write_library

from physxvehicle_usd.errors import InputError
from physxvehicle_usd.on_ray import RAY_MISSING, map_files
from physxvehicle_usd.validate import FileResult, validate_file, validate_paths

FORMATS = ("text", "json", "junit", "github")
CRASHING = "00007_car_in_Y.usdc"  # the file whose worker the crash test brings down

try:
    import ray
except ImportError:
    ray = None
needs_ray = pytest.mark.skipif(ray is None, reason="Ray is not installed (pip install 'physxvehicle-usd[ray]')")


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Path:
    return write_library(tmp_path_factory.mktemp("library"), 20, broken_every=5)


@pytest.fixture(scope="module")
def local_ray():
    """One real local Ray instance for the module (validate --ray in this process uses it rather than start its own),
    its workers importing this checkout, on the two CPUs with a small object store."""
    with local_ray_instance(2):
        yield


def _summary(result: FileResult) -> tuple:
    return result.file, result.status, result.message, [f.line() for f in result.findings], result.vehicles


# -- the default suite: usage, no Ray started ------------------------------------------------------------------------

def test_ray_without_the_extra_says_how_to_install_it(library, capfd, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # Python's own way of making a package absent: import ray fails
    ran = run_cli(capfd, "validate", library, "--ray")
    assert ran.returncode == 2
    assert ran.stderr.strip() == f"error: {RAY_MISSING}"
    assert ran.stdout == ""


def test_ray_taking_the_folder_for_its_address_says_so(library, capfd):
    ran = run_cli(capfd, "validate", "--ray", library)
    assert ran.returncode == 2
    assert f"took '{library}' as the Ray address, but it is a file or folder: put --ray after the paths" in ran.stderr
    assert "Traceback" not in ran.stderr


@pytest.mark.parametrize("address", ["nonsense", "", "host:port"])
def test_ray_refuses_what_is_no_address(library, capfd, address):
    ran = run_cli(capfd, "validate", library, f"--ray={address}")
    assert ran.returncode == 2
    assert f"{address!r} is not a Ray address: give local, auto, HOST:PORT or ray://HOST:PORT" in ran.stderr


def test_ray_with_jobs_is_refused(library, capfd):
    ran = run_cli(capfd, "validate", library, "--ray", "--jobs", "2")
    assert ran.returncode == 2
    assert "--jobs runs local worker processes and --ray runs on Ray: give one of them" in ran.stderr


@needs_ray
def test_ray_address_where_nothing_listens_fails_at_once(library, capfd):
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.perf_counter()
    ran = run_cli(capfd, "validate", library, "--ray", f"127.0.0.1:{port}")
    assert ran.returncode == 2
    assert f"error: --ray: nothing answers at 127.0.0.1:{port}" in ran.stderr
    assert time.perf_counter() - start < 30  # Ray itself would retry for as long as the command runs


# -- on a real local Ray instance (soak: Ray's start-up) -------------------------------------------------------------

@needs_ray
@pytest.mark.soak
@pytest.mark.parametrize("fmt", FORMATS)
def test_ray_report_is_the_serial_report_byte_for_byte(library, local_ray, capfd, fmt):
    serial = run_cli(capfd, "validate", library, "--format", fmt)
    on_ray = run_cli(capfd, "validate", library, "--format", fmt, "--ray")
    assert on_ray.stdout == serial.stdout
    assert on_ray.returncode == serial.returncode == 2  # the unreadable file
    for broken in ("_nan.usd", "_norel.usda", "_unreadable.usda"):  # the comparison covers every kind of breakage
        assert broken in serial.stdout
    assert "Traceback" not in on_ray.stderr


@needs_ray
@pytest.mark.soak
def test_results_stream_back_in_input_order(library, local_ray):
    serial = validate_paths([str(library)])
    seen: list[FileResult] = []
    results = validate_paths([str(library)], progress=seen.append, ray_address="local")
    assert [_summary(r) for r in seen] == [_summary(r) for r in results] == [_summary(r) for r in serial]
    assert len(results) == 20


@needs_ray
@pytest.mark.soak
def test_a_crashed_worker_fails_only_its_file(library, local_ray):
    files = [str(p) for p in sorted(library.rglob("*.usd*"))]

    # a real crash: the worker process that gets this file exits on the spot, as one brought down by USD would
    def crash_on_one(file: str) -> FileResult:
        if file.endswith(CRASHING):
            os._exit(3)
        return validate_file(file)

    results = list(map_files(crash_on_one, files, failed=lambda file, why: FileResult(file, "unreadable", message=why)))
    assert [r.file for r in results] == files
    crashed = next(r for r in results if r.file.endswith(CRASHING))
    assert crashed.status == "unreadable"
    assert crashed.message.startswith(f"{crashed.file}: the Ray worker working on it stopped: ")
    others = [r for r in results if r is not crashed]
    assert [_summary(r) for r in others] == [_summary(validate_file(r.file)) for r in others]


@needs_ray
@pytest.mark.soak
def test_workers_that_cannot_import_the_code_end_the_run_with_one_message(library, local_ray, tmp_path, monkeypatch):
    # a module this process imports from a folder the workers do not have: as a node without usd-core would fail
    (tmp_path / "only_here.py").write_text("def work(file):\n    return file\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    from only_here import work

    files = [str(p) for p in sorted(library.rglob("*.usd*"))]
    with pytest.raises(InputError, match=r"^--ray: the Ray workers cannot run physxvehicle_usd: ModuleNotFoundError: "
                                         r"No module named 'only_here'"):
        list(map_files(work, files, failed=lambda file, why: why))
    monkeypatch.delitem(sys.modules, "only_here")


# -- fresh command lines: Ray started by the command, and a cluster joined by address (soak) ------------------------

def _cli(args: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run([sys.executable, "-m", "physxvehicle_usd", "validate", *args], capture_output=True,
                          text=True, cwd=cwd, env=full, timeout=300)


@pytest.fixture()
def ray_temp_dir():
    """Where a Ray instance started by a test keeps its session (RAY_TMPDIR): short, as Ray's socket paths live
    under it, and removed afterwards."""
    temp_dir = tempfile.mkdtemp(prefix="pvr", dir="/tmp")
    yield temp_dir
    shutil.rmtree(temp_dir, ignore_errors=True)


def _ray_processes(temp_dir: str) -> list[int]:
    """The processes of the Ray instance that keeps its session under temp_dir (Ray's processes name it)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if temp_dir.encode() in cmdline.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


@needs_ray
@pytest.mark.soak
def test_fresh_command_starts_and_stops_its_own_ray(library, ray_temp_dir):
    temp_dir = ray_temp_dir
    relative = library.name  # relative paths: the workers open them in the command's working directory
    serial = _cli([relative, "--format", "json"], cwd=library.parent)
    on_ray = _cli([relative, "--format", "json", "--ray"], cwd=library.parent, env={"RAY_TMPDIR": temp_dir})
    assert on_ray.stdout == serial.stdout and on_ray.returncode == serial.returncode == 2, on_ray.stderr
    assert "Traceback" not in on_ray.stderr
    assert _ray_processes(temp_dir) == []  # the local instance went with the command


@needs_ray
@pytest.mark.soak
def test_joins_a_cluster_by_its_address(library, ray_temp_dir):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    temp_dir = ray_temp_dir
    env = {**os.environ, "RAY_TMPDIR": temp_dir, "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("PYTHONPATH", None)  # the cluster's own workers know nothing of this checkout: the code goes with the job
    head = subprocess.Popen([sys.executable, "-m", "ray.scripts.scripts", "start", "--head", f"--port={port}",
                             "--num-cpus=1", "--include-dashboard=false", "--object-store-memory=100000000",
                             "--block"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        started = ""
        for line in head.stdout:  # until the head says it runs (with --block it then waits)
            started += line
            if "Ray runtime started" in line:
                break
        assert "Ray runtime started" in started, started
        assert _ray_processes(temp_dir)  # the probe that checks below that they are gone sees them
        serial = _cli([library.name], cwd=library.parent)
        on_ray = _cli([library.name, "--ray", f"127.0.0.1:{port}"], cwd=library.parent, env={"RAY_TMPDIR": temp_dir})
        assert on_ray.stdout == serial.stdout and on_ray.returncode == serial.returncode == 2, on_ray.stderr
    finally:
        os.killpg(head.pid, signal.SIGTERM)  # the head's process group, started above: nothing else
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()
        deadline = time.monotonic() + 30
        while (left := _ray_processes(temp_dir)) and time.monotonic() < deadline:
            time.sleep(0.5)
        for pid in left:  # the head's own processes, named by its temp dir, that outlived it
            os.kill(pid, signal.SIGKILL)
    assert left == []
