"""The data table of NVIDIA's tests, the recorded results and the generated docs table agree."""
from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
SUBJECTS = {"parse", "behaviour", "kit"}


def _generator():
    spec = importlib.util.spec_from_file_location("generate_omni_table", REPO / "tools" / "generate_omni_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows() -> list[dict]:
    with (HERE / "nvidia_tests.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def test_data_table_rows_are_well_formed():
    rows = _rows()
    names = [r["test"] for r in rows]
    assert len(names) == len(set(names))
    assert len([r for r in rows if r["source"] == "tests.py"]) == 135  # every test of NVIDIA's tests.py
    for r in rows:
        assert r["subject"] in SUBJECTS, r
        assert bool(r["why_not"]) == (r["subject"] == "kit"), f"{r['test']}: a reason exactly where it does not apply"
        assert not (r["note"] and r["subject"] == "kit"), r["test"]


def test_results_name_rows_of_the_data_table():
    """Every outcome recorded belongs to an applicable NVIDIA test of the data table, against a known backend."""
    rows = {r["test"]: r for r in _rows()}
    results = json.loads((HERE / "results.json").read_text())
    for name, per in results.items():
        assert name in rows and rows[name]["subject"] != "kit", name
        assert set(per) <= {"ours", "ovphysx"}, name
        if rows[name]["subject"] == "parse":
            assert set(per) == {"ours"}, name


def test_omni_table_is_current():
    doc = REPO / "docs" / "omni-vehicle-tests.md"
    assert doc.read_text() == _generator().current(), "run: python tools/generate_omni_table.py"


def test_every_applicable_test_is_ported_or_says_why():
    rows = _rows()
    results = json.loads((HERE / "results.json").read_text())
    for r in rows:
        if r["subject"] != "kit" and r["test"] not in results:
            assert r["note"], f"{r['test']}: applicable, not ported, and no note says why"
