"""The hostile corpus (fuzz/hostile_corpus.py: every vehicle property of the sample car given a wrong type, NaN,
infinity or an out-of-range value; broken stage metadata and mass properties; broken colliders, meshes, materials
and collision groups; unreadable files) through validate, convert, convert --target physx34, inspect and simulate: no traceback, no internal error, no silent acceptance. A fifth of the corpus here;
the whole of it in the soak step (and `python fuzz/hostile_corpus.py`)."""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import hostile_corpus  # noqa: E402

CASES = hostile_corpus.all_cases()
SUBSET = CASES[::5]


def test_the_corpus_is_large_and_covers_every_kind():
    assert len(CASES) >= 150
    assert any(case.said is None for case in SUBSET) and any(case.name.startswith("stage") for case in SUBSET)
    assert len([case for case in CASES if case.name.startswith("contact")]) >= 35
    assert any(case.name.startswith("contact") for case in SUBSET)


@pytest.mark.parametrize("case", SUBSET, ids=[case.name for case in SUBSET])
def test_a_hostile_input_is_said_never_crashes(case):
    with tempfile.TemporaryDirectory() as folder:
        assert hostile_corpus.check(case, Path(folder)) == []


@pytest.mark.soak
def test_the_whole_corpus():
    assert hostile_corpus.run(CASES, report=lambda line: None) == {}
