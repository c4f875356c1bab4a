"""The package as pip installs it and as a release ships it: one version, the licence pyproject names, a changelog in
Keep a Changelog form, and metadata that NVIDIA's validator reads without complaint."""
from __future__ import annotations

import ast
import configparser
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]


def _version() -> str:
    """__version__ as physxvehicle_usd/__init__.py assigns it (what setuptools reads, without importing)."""
    tree = ast.parse((REPO / "physxvehicle_usd" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"]:
            return ast.literal_eval(node.value)
    raise AssertionError("physxvehicle_usd/__init__.py assigns no __version__")


def test_one_version_source_and_the_cli_prints_it():
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "physxvehicle_usd.__version__"}
    version = _version()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)
    result = subprocess.run([sys.executable, "-m", "physxvehicle_usd", "--version"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"physxvehicle-usd, version {version}"


def test_the_licence_file_is_the_one_pyproject_names():
    assert PROJECT["license"] == "Apache-2.0" and PROJECT["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text
    assert len(text.splitlines()) == 202  # the standard text, whole


def test_changelog_follows_keep_a_changelog_and_names_this_version():
    text = (REPO / "CHANGELOG.md").read_text()
    headings = re.findall(r"^## (.*)$", text, re.MULTILINE)
    assert headings and headings[0] == "[Unreleased]", headings
    for heading in headings[1:]:
        assert re.fullmatch(r"\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}", heading), heading
    kinds = set(re.findall(r"^### (.*)$", text, re.MULTILINE))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}, kinds
    version = _version()
    released = [h.split("]")[0][1:] for h in headings[1:]]
    # the version in the package is either released (its heading) or the one being prepared (Unreleased names it)
    assert version in released or f"`{version}`" in text.split("\n## ", 2)[1], version


def test_version_pins_in_the_docs_name_this_version():
    """A pre-commit example pins the release tag: it must be the tag of this version (docs/release.md)."""
    version = _version()
    pins = []
    for doc in [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]:
        pins += [(doc.name, pin) for pin in re.findall(r"^\s*rev: (\S+)", doc.read_text(), re.MULTILINE)]
    assert pins, "no pre-commit example pins a release"
    assert all(pin == f"v{version}" for _, pin in pins), pins


def test_no_extra_names_the_package_itself():
    for extra, requirements in PROJECT["optional-dependencies"].items():
        for requirement in requirements:
            name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement).group(0)
            assert re.sub(r"[-_.]+", "-", name).lower() != "physxvehicle-usd", (extra, requirement)


def _dist_info(folder: Path) -> None:
    """The METADATA and entry_points.txt that installing this pyproject gives (the fields usd-validation-nvidia
    reads: the name, the requirements with their extras, the entry points)."""
    info = folder / f"physxvehicle_usd-{_version()}.dist-info"
    info.mkdir()
    lines = ["Metadata-Version: 2.4", f"Name: {PROJECT['name']}", f"Version: {_version()}"]
    lines += [f"Requires-Dist: {r}" for r in PROJECT["dependencies"]]
    for extra, requirements in PROJECT["optional-dependencies"].items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
    (info / "METADATA").write_text("\n".join(lines) + "\n")
    points = configparser.ConfigParser()
    points.optionxform = str
    points["console_scripts"] = PROJECT["scripts"]
    for group, entries in PROJECT["entry-points"].items():
        points[group] = entries
    with open(info / "entry_points.txt", "w") as f:
        points.write(f)


@pytest.mark.skipif(shutil.which("nvidia_usd_validate") is None, reason="needs usd-validation-nvidia (nvidia extra)")
def test_nvidia_validator_loads_our_entry_point_without_an_error_line(tmp_path):
    """usd-validation-nvidia orders its plugins by their distributions' requirements, extra markers ignored: an extra
    naming physxvehicle-usd itself was a cycle it reported on every run (`Circular dependency detected in plugins`),
    on stdout, --help included. Run against this pyproject's metadata, ahead of whatever an older install left."""
    _dist_info(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO)]))
    env.pop("PXR_PLUGINPATH_NAME", None)
    runs = {"help": ["--help"], "sample": [str(REPO / "samples" / "car" / "car.usda")]}
    for what, args in runs.items():
        result = subprocess.run(["nvidia_usd_validate", *args], capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode == 0, (what, result.stdout[-2000:], result.stderr[-2000:])
        assert "Circular dependency" not in result.stdout + result.stderr, what
        assert "ERROR" not in result.stdout + result.stderr, (what, result.stdout[-2000:], result.stderr[-2000:])
        if what == "help":
            assert "PhysxVehicleParserChecker" in result.stdout  # our rules were registered
        else:
            assert result.stdout.strip().endswith("No issues found."), result.stdout
