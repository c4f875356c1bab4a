"""Issue 17, "scale of the messages themselves": a fleet's identical findings reported once with their count and
prims (text, JSON, JUnit, GitHub); `inspect` linear in the number of vehicles; `validate --jobs` giving the
report that a serial run gives.

Fleets come from benchmarks/fleet.py (N referenced copies of one car asset); a broken wheel is authored in the
asset, so that every copy has it.
"""
from __future__ import annotations

import io
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import REPO, SAMPLES, run_cli
from pxr import Usd
from rich.console import Console

from physxvehicle_usd import properties as P
from physxvehicle_usd.outputs.inspect_table import inspect_rows, render_text, rows_by_scope
from physxvehicle_usd.read import read_stage
from physxvehicle_usd.validate import validate_file

sys.path.insert(0, str(REPO / "benchmarks"))
from fleet import VEHICLE, car_asset, fleet_stage

RADIUS = P.full_name(P.WHEEL, "radius")


def _break_first_wheel(asset: Path) -> str:
    """Author a negative radius on the asset's first wheel component; its path relative to the car."""
    stage = Usd.Stage.Open(str(asset))
    wheel = next(p for p in stage.Traverse() if p.HasAPI(P.WHEEL))
    wheel.GetAttribute(RADIUS).Set(-1.0)
    stage.GetRootLayer().Save()
    return str(wheel.GetPath())[len(VEHICLE):]


@pytest.fixture(scope="module")
def broken_fleet(tmp_path_factory) -> tuple[Path, str]:
    """50 copies of a car whose first wheel has a negative radius; the fleet file and the wheel's relative path."""
    folder = tmp_path_factory.mktemp("fleet")
    wheel = _break_first_wheel(car_asset(folder))
    return fleet_stage(50, folder), wheel


def _cars(n: int) -> list[str]:
    return [f"/World/Fleet/Slot_{i}/Car" for i in range(n)]


def test_fleet_with_one_broken_wheel_is_one_text_line_with_count_and_first_prims(broken_fleet, capfd):
    fleet, wheel = broken_fleet
    ran = run_cli(capfd, "validate", fleet)
    assert ran.returncode == 1
    lines = ran.stdout.strip().splitlines()
    radius_lines = [line for line in lines if f".{RADIUS}:" in line]
    assert len(radius_lines) == 1, lines[:5]
    assert re.search(r"\(on 50 prims: (/World/Fleet/Slot_\d+/Car" + re.escape(wheel) + r", ){2}"
                     r"/World/Fleet/Slot_\d+/Car" + re.escape(wheel) + r" and 47 more\)$", radius_lines[0]), \
        radius_lines[0]
    assert sum("/World/Fleet/" in line for line in lines) == 1, lines  # not one line per car
    assert lines[-1].startswith("1 files, 50 vehicles: 50 errors")  # the summary still counts every finding


def test_fleet_json_gives_the_count_and_every_prim(broken_fleet, capfd):
    fleet, wheel = broken_fleet
    report = json.loads(run_cli(capfd, "validate", "--format", "json", fleet).stdout)
    (radius,) = [f for f in report["findings"] if f["property"] == RADIUS]
    assert radius["count"] == 50 and radius["severity"] == "error"
    assert sorted(radius["prims"]) == sorted(car + wheel for car in _cars(50))
    assert radius["prim"] == radius["prims"][0]
    (rejected,) = [f for f in report["findings"] if f["code"] == "REJECTED"]
    assert rejected["count"] == 50 and sorted(rejected["prims"]) == sorted(_cars(50))
    assert [f["code"] for f in report["findings"] if "/World/Fleet/" in f["prim"]] == ["V14", "REJECTED"]
    assert report["summary"]["errors"] == 50


def test_fleet_junit_is_one_failing_case_for_the_fifty_cars(broken_fleet, capfd):
    fleet, _wheel = broken_fleet
    root = ET.fromstring(run_cli(capfd, "validate", "--format", "junit", fleet).stdout)
    (suite,) = root.iter("testsuite")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    (shared,) = [name for name in cases if name.endswith(" and 49 more vehicles")]
    failures = list(cases[shared].iter("failure"))
    assert len(failures) == 1 and "on 50 prims" in failures[0].text
    assert not set(cases) & set(_cars(50))  # no case per car repeating the same failure
    assert suite.get("failures") == "1" and suite.get("tests") == str(len(cases))


def test_fleet_github_is_one_annotation(broken_fleet, capfd):
    fleet, _wheel = broken_fleet
    lines = run_cli(capfd, "validate", "--format", "github", fleet).stdout.strip().splitlines()
    errors = [line for line in lines if line.startswith("::error")]
    assert len(errors) == 1 and "on 50 prims" in errors[0], errors[:3]


def test_a_copy_with_its_own_problem_is_reported_apart(tmp_path):
    """A car whose radius differs from the others' (another message) is its own finding and its own test case."""
    from physxvehicle_usd.validate import FileResult
    from physxvehicle_usd.validate.report import group_findings, junit_report

    wheel = _break_first_wheel(car_asset(tmp_path))
    fleet = fleet_stage(4, tmp_path)
    stage = Usd.Stage.Open(str(fleet))
    stage.GetPrimAtPath(f"/World/Fleet/Slot_2/Car{wheel}").GetAttribute(RADIUS).Set(-2.0)
    stage.GetRootLayer().Save()
    result = validate_file(str(fleet))
    groups = [g for g in group_findings(result) if g.finding.property == RADIUS]
    assert sorted(g.count for g in groups) == [1, 3]
    (alone,) = [g for g in groups if g.count == 1]
    assert alone.prims == (f"/World/Fleet/Slot_2/Car{wheel}",) and alone.finding.message != \
        next(g for g in groups if g.count == 3).finding.message
    names = {c.get("name") for c in ET.fromstring(junit_report([result])).iter("testcase")}
    assert "/World/Fleet/Slot_2/Car" in names and any(n.endswith(" and 2 more vehicles") for n in names)
    assert isinstance(result, FileResult)


def _inspect_counts(n: int, folder: Path) -> tuple[int, dict[str, int], str]:
    description = read_stage(fleet_stage(n, folder))
    rows = inspect_rows(description)
    out = io.StringIO()
    render_text(description, console=Console(file=out, width=100_000, no_color=True, highlight=False))
    return len(rows), {scope: len(r) for scope, r in rows_by_scope(rows).items()}, out.getvalue()


def test_inspect_rows_grow_linearly_with_the_fleet(tmp_path):
    total_2, scopes_2, text_2 = _inspect_counts(2, tmp_path)
    total_20, scopes_20, text_20 = _inspect_counts(20, tmp_path)
    cars_2 = [s for s in scopes_2 if s.startswith("/World/Fleet/")]
    cars_20 = [s for s in scopes_20 if s.startswith("/World/Fleet/")]
    assert len(cars_2) == 2 and len(cars_20) == 20
    per_car = {scopes_20[s] for s in cars_20} | {scopes_2[s] for s in cars_2}
    assert len(per_car) == 1  # every copy: the same rows, however many copies
    shared = total_2 - 2 * per_car.pop()
    assert shared > 0 and total_20 == shared + 10 * (total_2 - shared)
    for scope in scopes_20:  # each scope printed once, as one table
        assert len(re.findall(rf"^{re.escape(scope)} *$", text_20, re.MULTILINE)) == 1, scope
    assert f"{total_20} rows" in text_20 and f"{total_2} rows" in text_2


def _folder_with_broken_files(folder: Path, copies: int) -> Path:
    """Copies of the sample cars, some broken, one that is not USD at all."""
    samples = sorted(p for p in SAMPLES.glob("*/*.usda"))
    for i in range(copies):
        source = samples[i % len(samples)]
        target = folder / f"{i:03d}_{source.name}"
        if i % 5 == 3:  # a broken one: substeps of 0
            stage = Usd.Stage.Open(str(source))
            for prim in stage.Traverse():
                if prim.HasAPI(P.VEHICLE):
                    prim.GetAttribute(P.full_name(P.VEHICLE, "lowForwardSpeedSubStepCount")).Set(0)
            stage.Export(str(target))
        else:
            Usd.Stage.Open(str(source)).Export(str(target))
    (folder / "999_garbage.usda").write_bytes(b"\x00\xffnot usd at all")
    return folder


@pytest.fixture(scope="module")
def jobs_folder(tmp_path_factory) -> Path:
    return _folder_with_broken_files(tmp_path_factory.mktemp("jobs"), 24)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_jobs_2_report_is_byte_identical_to_serial(jobs_folder, capfd, fmt):
    serial = run_cli(capfd, "validate", "--format", fmt, jobs_folder)
    parallel = run_cli(capfd, "validate", "--format", fmt, "--jobs", "2", jobs_folder)
    assert serial.returncode == parallel.returncode == 2  # the garbage file
    assert "V74" in serial.stdout and "UNREADABLE" in serial.stdout
    assert parallel.stdout == serial.stdout
    assert "Traceback" not in parallel.stderr
