"""A pytest plugin (tests/conftest.py loads it) for NVIDIA's vehicle tests re-expressed in tests/omni_vehicle: the
`nvidia` marker, which backend a test ran against, and the results file the docs table is generated from
(tools/generate_omni_table.py). Not a conftest.py: a second module named conftest would shadow tests/conftest.py for
the test modules that import from it.

    OMNI_VEHICLE_RESULTS=tests/omni_vehicle/results.json python3 -m pytest -n 0 -m "soak or not soak" tests/omni_vehicle
    python3 tools/generate_omni_table.py

(one process: -n 0) writes, for every NVIDIA test (the data table's name: the test function's name, or its `nvidia` marker's), the
outcome against each backend: "ours" (our simulator, or our reader for a parsing test) and "ovphysx".
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RESULTS_ENV = "OMNI_VEHICLE_RESULTS"
_outcomes: dict[str, dict[str, str]] = {}


def nvidia_name(item: pytest.Item) -> str:
    marker = item.get_closest_marker("nvidia")
    return marker.args[0] if marker else item.originalname


def backend_of(item: pytest.Item) -> str:
    """"ovphysx" where a parameter of the test (the `run` fixture's) says so, or an unparametrized test is marked
    ovphysx; else "ours"."""
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        return "ovphysx" if "ovphysx" in callspec.params.values() else "ours"
    return "ovphysx" if item.get_closest_marker("ovphysx") else "ours"


def pytest_configure(config):
    config.addinivalue_line("markers", "nvidia(name): the NVIDIA test a test of ours re-expresses (default: its name)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if HERE not in Path(str(item.fspath)).parents or Path(str(item.fspath)).name == "test_table.py":
        return  # only the re-expressed NVIDIA tests (not the checks of the table itself)
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        result = "xfailed" if hasattr(report, "wasxfail") and report.skipped else \
            "xpassed" if hasattr(report, "wasxfail") else report.outcome
        per = _outcomes.setdefault(nvidia_name(item), {})
        backend = backend_of(item)
        # several tests of ours for one NVIDIA test: the worst outcome counts
        order = ["passed", "xpassed", "skipped", "xfailed", "failed"]
        if backend not in per or order.index(result) > order.index(per[backend]["outcome"]):
            per[backend] = {"outcome": result, "reason": getattr(report, "wasxfail", "") or ""}


def pytest_sessionfinish(session):
    target = os.environ.get(RESULTS_ENV)
    if not target or not _outcomes:
        return
    path = Path(target)
    old = json.loads(path.read_text()) if path.is_file() else {}
    old.update(_outcomes)  # a partial run keeps the other tests' outcomes
    path.write_text(json.dumps(dict(sorted(old.items())), indent=1) + "\n")
