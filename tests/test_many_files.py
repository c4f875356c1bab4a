"""`convert` and `simulate` over many files (PATH..., --jobs N, --ray [ADDRESS]) and the one mechanism under them and
`validate` (many_files.map_paths): one output (or report lines) per file, in input order, the same bytes whoever ran
them; a broken file is its own error line and the others still run; a worker that dies fails only its file.

The folder: three samples, a car whose wheel radius is negative (its vehicle left out: no vehicle to simulate), a
stage with no vehicle and bytes that are no USD. The default run compares serial with --jobs 2 (the fork server is
started once for the module); Ray's start-up (10-20 s) puts the --ray comparisons in the soak run, on one real
local instance as tests/test_validate_ray.py does.
"""
from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import SAMPLES, local_ray_instance, run_cli

from physxvehicle_usd.errors import InputError
from physxvehicle_usd.many_files import map_paths, output_base, output_paths

try:
    import ray
except ImportError:
    ray = None
needs_ray = pytest.mark.skipif(ray is None, reason="Ray is not installed (pip install 'physxvehicle-usd[ray]')")

SIMULATE = ("simulate", "--steps", "4", "--dt", "0.0166667", "--control", "accelerator=1")


@pytest.fixture(scope="module")
def assets(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("assets")
    for sample in ("car/car.usda", "tank/tank.usda", "basic_car/basic_car.usda"):
        (folder / sample).parent.mkdir()
        shutil.copy(SAMPLES / sample, folder / sample)
    car = (SAMPLES / "car/car.usda").read_text()
    (folder / "car/broken.usda").write_text(car.replace("physxVehicleWheel:radius = 0.343", "physxVehicleWheel:radius = -1"))
    (folder / "empty.usda").write_text('#usda 1.0\ndef Xform "World"\n{\n}\n')
    (folder / "garbage.usda").write_bytes(b"\x00\x01 this is no USD")
    return folder


def _in(folder: Path, capfd, *args):
    """The command line run in `folder` (relative paths, as a user types them)."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        return run_cli(capfd, *args)
    finally:
        os.chdir(before)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# -- convert ----------------------------------------------------------------------------------------------------------

def test_convert_many_writes_an_output_per_file_the_same_with_jobs(assets, tmp_path, capfd):
    serial = _in(assets, capfd, "convert", ".", "-o", str(tmp_path / "out"))
    written = _tree(tmp_path / "out")
    shutil.rmtree(tmp_path / "out")
    parallel = _in(assets, capfd, "convert", ".", "-o", str(tmp_path / "out"), "--jobs", "2")
    assert (parallel.stdout, parallel.stderr, parallel.returncode) == (serial.stdout, serial.stderr, serial.returncode)
    assert _tree(tmp_path / "out") == written
    assert serial.returncode == 2  # the garbage file; the others are still converted
    assert sorted(written) == ["basic_car/basic_car.usda.json", "car/broken.usda.json", "car/car.usda.json",
                               "empty.usda.json", "tank/tank.usda.json"]
    # each output is what `convert FILE` prints for that file
    one = _in(assets, capfd, "convert", "car/car.usda")
    assert written["car/car.usda.json"].decode() == one.stdout
    out = f"{tmp_path / 'out'}"
    lines = serial.stdout.splitlines()
    assert lines[4].startswith("error: garbage.usda: cannot be opened as USD: ")
    assert lines[:4] + lines[5:] == [
        f"basic_car/basic_car.usda -> {out}/basic_car/basic_car.usda.json: 1 vehicle(s)",
        f"car/broken.usda -> {out}/car/broken.usda.json: 0 vehicle(s), 1 error(s)",
        f"car/car.usda -> {out}/car/car.usda.json: 1 vehicle(s)",
        f"empty.usda -> {out}/empty.usda.json: 0 vehicle(s)",
        f"tank/tank.usda -> {out}/tank/tank.usda.json: 1 vehicle(s)",
        f"converted 6 file(s) into {out}/: 5 written (1 with errors), 1 not"]
    assert serial.stderr == ""
    assert "Traceback" not in serial.stderr


def test_convert_many_to_a_target_without_diagnostics_names_file_prim_and_property_on_stderr(assets, tmp_path, capfd):
    ran = _in(assets, capfd, "convert", "car", "tank", "-o", str(tmp_path), "--target", "physx34")
    assert ran.returncode == 1  # the broken car's errors; nothing unreadable
    assert "car/broken.usda: error V14 /World/CarParts/Wheel.physxVehicleWheel:radius: " in ran.stderr
    assert "error: car/broken.usda: no vehicle to convert: the stage has 1 vehicle(s) and every one was left out" \
        in ran.stderr
    assert sorted(_tree(tmp_path)) == ["car/broken.usda.physx34.json", "car/car.usda.physx34.json",
                                       "tank/tank.usda.physx34.json"]


def test_convert_many_usage(assets, tmp_path, capfd):
    no_folder = _in(assets, capfd, "convert", "car/car.usda", "tank/tank.usda")
    assert no_folder.returncode == 2 and "give it with -o DIR" in no_folder.stderr and no_folder.stdout == ""
    (tmp_path / "file").write_text("")
    onto_a_file = _in(assets, capfd, "convert", "car", "-o", str(tmp_path / "file"))
    assert onto_a_file.returncode == 2 and f"-o {tmp_path / 'file'} is a file" in onto_a_file.stderr
    twice = _in(assets, capfd, "convert", "car", "car/car.usda", "-o", str(tmp_path / "out"))
    assert twice.returncode == 2
    assert twice.stderr.strip() == "error: car/car.usda is given twice: give each file once, as each writes its own output"
    assert not (tmp_path / "out").exists()  # refused before anything is written
    (tmp_path / "nothing").mkdir()
    nothing = run_cli(capfd, "convert", tmp_path / "nothing", tmp_path / "missing.usda", "-o", tmp_path / "out")
    assert nothing.returncode == 2 and "no USD files" in nothing.stderr and "no such file or folder" in nothing.stderr


def test_one_file_with_ray_runs_here_and_says_so(capfd):
    pytest.importorskip("ray")  # only imported, not started
    alone = run_cli(capfd, "convert", SAMPLES / "car/car.usda")
    with_ray = run_cli(capfd, "convert", SAMPLES / "car/car.usda", "--ray")
    assert with_ray.stdout == alone.stdout and with_ray.returncode == alone.returncode == 0
    assert with_ray.stderr == "note: --ray shares several files out; the one file given runs in this process\n"


# -- simulate ---------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["text", "json"])
def test_simulate_many_reports_each_file_in_order_the_same_with_jobs(assets, capfd, fmt):
    serial = _in(assets, capfd, *SIMULATE, ".", "--format", fmt)
    parallel = _in(assets, capfd, *SIMULATE, ".", "--format", fmt, "--jobs", "2")
    assert (parallel.stdout, parallel.stderr, parallel.returncode) == (serial.stdout, serial.stderr, serial.returncode)
    assert serial.returncode == 2
    # the broken car's error, naming its file, prim and property, on stderr as one file's run says it there
    assert "car/broken.usda: error V14 /World/CarParts/Wheel.physxVehicleWheel:radius: " in serial.stderr
    if fmt == "json":
        lines = [json.loads(line) for line in serial.stdout.splitlines()]
        assert [(d["file"], d["status"]) for d in lines] == [
            ("basic_car/basic_car.usda", "ok"), ("car/broken.usda", "no_vehicle"), ("car/car.usda", "ok"),
            ("empty.usda", "no_vehicle"), ("garbage.usda", "failed"), ("tank/tank.usda", "ok")]
        alone = json.loads(_in(assets, capfd, *SIMULATE, "car/car.usda", "--format", "json").stdout)
        assert lines[2]["results"] == alone["results"]  # the same run as the file's own
        assert "load_s" not in lines[2]  # timings differ from run to run: not in a report over many files
    else:
        lines = serial.stdout.splitlines()
        assert lines[0].startswith("basic_car/basic_car.usda:/World/") and " m travelled" in lines[0]
        assert "error: car/broken.usda: no simulable vehicle: the stage has 1 vehicle(s) and every one was left " \
               "out" in serial.stdout
        assert lines[-1] == "simulated 6 file(s): 3 ran, 3 did not"


def test_simulate_many_writes_traces_into_a_folder(assets, tmp_path, capfd):
    ran = _in(assets, capfd, *SIMULATE, "car", "--trace", str(tmp_path / "traces"))
    assert ran.returncode == 1  # the broken car has no vehicle to simulate
    assert sorted(_tree(tmp_path / "traces")) == ["car.usda.trace.json"]
    trace = json.loads((tmp_path / "traces/car.usda.trace.json").read_text())
    assert trace["steps"] == 4 and list(trace["vehicles"]) == ["/World/Car"]
    (tmp_path / "file").write_text("")
    refused = _in(assets, capfd, *SIMULATE, "car", "--record", str(tmp_path / "file"))
    assert refused.returncode == 2 and "names a folder" in refused.stderr and refused.stdout == ""


# -- the mechanism ----------------------------------------------------------------------------------------------------

def _fails_on_b(file: str) -> str:
    if file == "b":
        raise ValueError("no b here")
    if file == "c":
        raise InputError("cannot read it")
    return file.upper()


def _failed(file: str, why: str) -> str:
    return f"failed {why}"


@pytest.mark.soak  # two fix runs of the folder, 6-8 s: the default run compares jobs on validate, convert, simulate
def test_fix_many_is_the_same_with_jobs(assets, tmp_path, capfd):
    folder = tmp_path / "assets"
    shutil.copytree(assets, folder)
    car = (SAMPLES / "car/car.usda").read_text()
    (folder / "car/no_context.usda").write_text(car.replace('prepend apiSchemas = ["PhysxVehicleContextAPI"]', ""))

    def run(*extra):
        out = tmp_path / "fixed"
        result = _in(folder, capfd, "fix", ".", "-o", f"{out}/", "--format", "json", *extra)
        written = _tree(out) if out.exists() else {}
        shutil.rmtree(out, ignore_errors=True)
        return result, written

    (serial, written), (parallel, written_parallel) = run(), run("--jobs", "2")
    assert (parallel.stdout, parallel.stderr, parallel.returncode) == (serial.stdout, serial.stderr, serial.returncode)
    assert written_parallel == written
    report = json.loads(serial.stdout)
    statuses = {r["file"]: r["status"] for r in report["files"]}
    assert statuses["garbage.usda"] == "unreadable" and serial.returncode == 2  # the others are still repaired
    assert len(statuses) == 7 and statuses["car/no_context.usda"] == "fixed"
    assert list(written) == ["no_context.fixed.usda"]


def test_an_exception_for_a_file_is_that_files_result():
    seen = []
    results = list(map_paths(_fails_on_b, ["a", "b", "c", "d"], failed=_failed, progress=seen.append))
    assert results == seen == ["A", "failed b: internal error: ValueError: no b here (please report this with the "
                                    "file)", "failed c: cannot read it", "D"]

    def needs_an_extra(file):
        import not_installed_anywhere  # noqa: F401

    with pytest.raises(ImportError):  # no file's fault: the run ends (the CLI says which package is missing)
        list(map_paths(needs_an_extra, ["a"], failed=_failed))


def _dies_in_a_worker(file: str) -> str:
    """In a worker: dies on the file named `...crash`. In this process: waits until a worker has done a file (its
    marker), then slowly: the worker takes the other chunks, the crashing one included."""
    marker = Path(file).parent / "a worker ran"
    if os.getpid() != int(Path(file).parent.name):
        marker.touch()
        if file.endswith("crash"):
            os._exit(3)
        return file
    deadline = time.monotonic() + 10
    while file.endswith("/0") and not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    return file


def test_a_worker_dying_on_a_file_fails_that_file_only(tmp_path):
    folder = tmp_path / str(os.getpid())  # the files' folder names this process: a worker is any other
    folder.mkdir()
    files = [str(folder / f"{i}") for i in range(11)] + [str(folder / "crash")]
    results = list(map_paths(_dies_in_a_worker, files, failed=_failed, jobs=2))
    assert results[:-1] == files[:-1]
    assert results[-1] == f"failed {files[-1]}: the worker process working on it stopped (exit code 3)"


def test_output_names_keep_the_inputs_paths_from_the_folder_holding_them(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    files = [str(tmp_path / "x/a.usda"), str(tmp_path / "x/a.usdc"), str(tmp_path / "y/a.usda")]
    base = output_base([tmp_path / "x", files[2]])
    assert base == str(tmp_path)
    assert output_paths(files, base, "out", ".json") == {
        files[0]: "out/x/a.usda.json", files[1]: "out/x/a.usdc.json", files[2]: "out/y/a.usda.json"}
    with pytest.raises(InputError, match="would replace the input"):
        output_paths([str(tmp_path / "x/a.usda"), str(tmp_path / "x/a.usda.json")], base, str(tmp_path), ".json")


# -- on a real local Ray instance (soak: Ray's start-up) --------------------------------------------------------------

@pytest.fixture(scope="module")
def local_ray():
    with local_ray_instance(2):
        yield


@needs_ray
@pytest.mark.soak
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_simulate_on_ray_is_the_serial_run_byte_for_byte(assets, local_ray, capfd, fmt):
    serial = _in(assets, capfd, *SIMULATE, ".", "--format", fmt)
    on_ray = _in(assets, capfd, *SIMULATE, ".", "--format", fmt, "--ray")
    assert (on_ray.stdout, on_ray.stderr, on_ray.returncode) == (serial.stdout, serial.stderr, serial.returncode)
    assert "garbage.usda" in serial.stdout and "car/broken.usda" in serial.stderr


@needs_ray
@pytest.mark.soak
def test_convert_on_ray_is_the_serial_run_byte_for_byte(assets, local_ray, tmp_path, capfd):
    serial = _in(assets, capfd, "convert", ".", "-o", str(tmp_path / "out"), "--format", "text")
    written = _tree(tmp_path / "out")
    shutil.rmtree(tmp_path / "out")
    on_ray = _in(assets, capfd, "convert", ".", "-o", str(tmp_path / "out"), "--format", "text", "--ray")
    assert (on_ray.stdout, on_ray.stderr, on_ray.returncode) == (serial.stdout, serial.stderr, serial.returncode)
    assert _tree(tmp_path / "out") == written and len(written) == 5


@needs_ray
@pytest.mark.soak
def test_fix_on_ray_is_the_serial_run_byte_for_byte(assets, local_ray, tmp_path, capfd):
    serial = _in(assets, capfd, "fix", ".", "--dry-run", "--format", "json")
    on_ray = _in(assets, capfd, "fix", ".", "--dry-run", "--format", "json", "--ray")
    assert (on_ray.stdout, on_ray.stderr, on_ray.returncode) == (serial.stdout, serial.stderr, serial.returncode)
    assert "garbage.usda" in serial.stdout
