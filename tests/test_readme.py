"""The README as a user meets it: every Python block runs as written, and the shell commands that are cheap and
self-contained run too, from a folder that holds the samples as the repository root does (so nothing they write
lands in the checkout). A shell command the test does not know fails it, so a new README command is either run here
or skipped with its reason."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from functools import cache
from pathlib import Path

import pytest
from conftest import REPO

README = REPO / "README.md"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.DOTALL | re.MULTILINE)

# Shell commands left out, each with its reason (matched by their first words).
SKIPPED = {
    "python3 -m pytest": "the test suite itself (this test is part of it)",
    "python tools/generate_schema.py": "regenerates the committed resources; test_schema_plugin checks they are fresh",
    "usdview": "a GUI program (not installed with usd-core)",
    "physxvehicle-usd validate assets/ --ray": "starts a Ray instance or needs a cluster (10-20 s to start): "
                                               "tests/test_validate_ray.py runs --ray (soak)",
}


# Shell commands run in the soak step only (matched by their first words), each with its reason.
SOAK = {
    "nvidia_usd_validate": "NVIDIA's validator in a fresh interpreter, about 1.5 s of CPU each; the README's Python "
                           "block runs it (and our rules, found through our entry point) in the default run",
}


def _blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(README.read_text()) if lang == language]


def _commands(block: str) -> list[str]:
    """A shell block's commands: continuation lines joined, comments and the [optional] parts of a synopsis dropped."""
    text = block.replace("\\\n", " ")
    commands = []
    for line in text.splitlines():
        line = re.sub(r"\s+#\s.*$", "", line).strip()
        line = re.sub(r"\s+\[--[^\]]*\]", "", line)  # a synopsis' [--option ...]
        if line:
            commands.extend(part.strip() for part in line.split("&&"))
    return commands


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """A folder where `samples/...` means the repository's samples, as in the README's examples."""
    folder = tmp_path_factory.mktemp("readme")
    (folder / "samples").symlink_to(REPO / "samples")
    return folder


@cache
def _entry_points() -> str:
    """A folder declaring our entry points as `pip install` writes them (an uninstalled checkout has none), so that
    nvidia_usd_validate finds our rules as the README says it does."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from bench_validators import entry_point_site

    return str(entry_point_site(Path(tempfile.mkdtemp(prefix="readme_entry_points_"))))


def _env() -> dict:
    env = dict(os.environ)
    env.pop("PXR_PLUGINPATH_NAME", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), _entry_points(), env.get("PYTHONPATH")]))
    return env


def _ours(words: list[str]) -> list[str]:
    """`physxvehicle-usd ...` as this interpreter's module."""
    assert words[0].endswith("physxvehicle-usd"), words
    return [sys.executable, "-m", "physxvehicle_usd", *words[1:]]


PYTHON_BLOCKS = _blocks("python")


def test_the_readme_has_the_blocks_this_test_runs():
    assert len(PYTHON_BLOCKS) >= 3
    assert sum(len(_commands(b)) for b in _blocks("sh")) >= 10


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_python_block_runs_as_written(workdir, index):
    code = PYTHON_BLOCKS[index]
    result = subprocess.run([sys.executable, "-c", code], cwd=workdir, env=_env(), capture_output=True, text=True,
                            check=False, timeout=600)
    assert result.returncode == 0, f"README Python block {index + 1}:\n{code}\n{result.stderr}"
    assert "Traceback" not in result.stderr, result.stderr


def test_main_job_installs_the_package_alone_and_tests_install_the_test_extra():
    main_job, tests = _commands(_blocks("sh")[0]), _commands(_blocks("sh")[1])
    assert "python3 -m pip install -e ." in main_job  # no extra: the test extra is 1.6 GB
    assert "python3 -m pip install -e '.[test]'" in tests
    assert main_job[-1].startswith("python3 -m physxvehicle_usd simulate ")
    assert tests[-1] == "python3 -m pytest -q"


def _shell_commands() -> list[str]:
    return [c for block in _blocks("sh") for c in _commands(block)
            if not c.startswith("python3 -m pip install")]  # set-up, not run here


@pytest.mark.parametrize("command", [pytest.param(c, marks=pytest.mark.soak) if c.startswith(tuple(SOAK)) else c
                                     for c in _shell_commands()])
def test_shell_command_runs_as_written(workdir, command):
    skipped = next((why for start, why in SKIPPED.items() if command.startswith(start)), None)
    if skipped:
        pytest.skip(skipped)
    if command.startswith("export PXR_PLUGINPATH_NAME="):
        # the plugin path the README exports: a folder whose plugInfo.json a fresh USD program reads
        assert "$(physxvehicle-usd plugin-path)" in command
        path = subprocess.run(_ours(["physxvehicle-usd", "plugin-path"]), env=_env(), capture_output=True,
                              text=True, check=True).stdout.strip()
        assert Path(path, "plugInfo.json").is_file(), path
        return
    words = shlex.split(command)
    if words[0] == "nvidia_usd_validate":  # NVIDIA's validator (the nvidia extra), with our rules: exit 0 is no issue
        pytest.importorskip("usd_validation_nvidia")
        result = subprocess.run([sys.executable, "-m", "usd_validation_nvidia", *words[1:]], cwd=workdir, env=_env(),
                                capture_output=True, text=True, check=False, timeout=600)
        assert result.returncode == 0 and "No issues found." in result.stdout, f"{command}\n{result.stdout}"
        return
    if words[:3] == ["python3", "-m", "physxvehicle_usd"]:  # the command line run as a module: the same thing
        words = ["physxvehicle-usd", *words[3:]]
    assert words[0].endswith("physxvehicle-usd"), f"a README command this test does not know: {command}"
    if words[1] == "validate" and words[2] == "assets/":
        words[2] = "samples/"  # assets/ stands for the user's folder; the samples are one
    result = subprocess.run(_ours(words), cwd=workdir, env=_env(), capture_output=True, text=True, check=False,
                            timeout=600)
    assert result.returncode == 0, f"{command}\n{result.stderr}"
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.stdout.strip() or result.stderr.strip()


def test_sample_car_readme_states_how_far_the_sample_and_the_preset_go(tmp_path):
    """samples/car/README.md explains why `new car` and the sample differ; its two distances are what simulate says."""
    from physxvehicle_usd import simulate
    from physxvehicle_usd.author import author_vehicle, preset_spec

    preset = tmp_path / "new_car.usda"
    author_vehicle(preset_spec("car"), "m").Export(str(preset))
    text = " ".join((REPO / "samples" / "car" / "README.md").read_text().split())
    for path, label in ((REPO / "samples" / "car" / "car.usda", "the sample covers {:.2f} m"),
                        (preset, "the preset {:.2f} m")):
        result = simulate.run(path, 120, 0.016666667, controls={"accelerator": 1.0}, outputs=())
        assert label.format(result.vehicles[0].distance_m) in text, (label, result.vehicles[0].distance_m)
