"""The docs' reference tables are made from the code (tools/docs_hooks.py, run by mkdocs when the site is built):
the property table from physxvehicle_usd/properties.py, the rule codes from the calls that report them
(tools/rule_codes.py). These tests hold the two makers to the code they read; the site's strict build runs in CI
(.ci/run) and in the soak run."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "tools"))

import docs_hooks  # noqa: E402 - tools/ is not a package
import rule_codes  # noqa: E402

from physxvehicle_usd import properties as P  # noqa: E402
from physxvehicle_usd.fix.plan import REPAIRED_CODES  # noqa: E402


def test_every_property_row_is_in_the_property_page():
    page = docs_hooks.properties_markdown()
    for row in P.TABLE_ROWS + P.DERIVED_ROWS:
        assert f"`{docs_hooks._usd_name(row)}`" in page, row.key


def test_the_rule_codes_page_lists_every_code_the_package_reports():
    """The codes a few real stages get, each code fix repairs, the profiles' and the range codes: all in the table."""
    from physxvehicle_usd.author import author_vehicle, preset_spec
    from physxvehicle_usd.validate import validate_stage

    stage = author_vehicle(preset_spec("car"), "m")
    stage.RemovePrim("/World/PhysicsScene")
    reported = {d.code for d in validate_stage(stage, profiles=("isaac-lab", "omniverse"))[0]}
    assert {"V07", "V142", "ISAAC01", "KIT01"} <= reported
    page = docs_hooks.rule_codes_markdown()
    range_codes = {p.range_code for p in P.TABLE_ROWS + P.DERIVED_ROWS if p.range_code}
    for code in reported | set(REPAIRED_CODES) | range_codes | {f"A{n:02d}" for n in range(1, 11)}:
        assert f"| `{code}` |" in page, code


def test_a_reporting_call_is_found_with_its_severity_and_message(tmp_path):
    """The collector reads the three ways the package reports a finding: a sink's method, a module's helper of one
    severity, and a Diagnostic built with a module constant as its code."""
    module = tmp_path / "pkg" / "mod.py"
    module.parent.mkdir()
    module.write_text(
        "from x import Diagnostic, Severity\n"
        "CODE = 'ZZ_CONSTANT'\n"
        "def _finding(code, prim, message):\n"
        "    return Diagnostic(severity=Severity.WARNING, code=code, prim=prim, message=message)\n"
        "def f(sink, v, n):\n"
        "    sink.error('ZZ01', '/A', f'value {n} is wrong')\n"
        "    _finding('ZZ02', '/B', 'a sentence')\n"
        "    Diagnostic(severity=Severity.INFO, code=CODE, prim='/C', message='said ' + str(n))\n")
    found = rule_codes.collect(tmp_path / "pkg")
    assert (found["ZZ01"].severities, found["ZZ01"].messages) == ({"error"}, ["value … is wrong"])
    assert (found["ZZ02"].severities, found["ZZ02"].messages) == ({"warning"}, ["a sentence"])
    assert (found["ZZ_CONSTANT"].severities, found["ZZ_CONSTANT"].messages) == ({"info"}, ["said …"])


@pytest.mark.soak  # about 15 s of CPU: mkdocs renders every page, the API from the docstrings
def test_the_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                            cwd=REPO, capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "site" / "rule-codes" / "index.html").is_file()


# nav entries whose page comes with another branch's work (mkdocs.yml's validation lets them be missing)
PENDING_PAGES = {"calibrate.md"}


def _nav_pages(entries) -> list[str]:
    pages = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_nav_entry_has_its_page_and_every_page_is_in_the_nav():
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load((REPO / "mkdocs.yml").read_text())
    nav = _nav_pages(config["nav"])
    missing = [page for page in nav if not (REPO / "docs" / page).is_file() and page not in PENDING_PAGES]
    assert not missing
    assert sorted(p.name for p in (REPO / "docs").glob("*.md") if p.name not in nav) == []
