"""The progress bar of the commands over many files: drawn on stderr where stderr is a terminal (files done of all),
and the report on stdout the same bytes as without one (a report redirected to a file from a terminal once began
with the blank line the bar's console left on stdout; convert's lines, printed as each file is done, go to stdout
too, not above the bar)."""
from __future__ import annotations

import shutil

import pytest
from conftest import SAMPLES, run_cli, run_cli_on_terminal


@pytest.mark.parametrize("command", [("validate",), ("fix", "--dry-run"), ("convert", "-o", "{out}")])
def test_a_terminal_gets_a_bar_on_stderr_and_the_report_is_unchanged(tmp_path, capfd, monkeypatch, command):
    assets = tmp_path / "assets"
    assets.mkdir()
    for sample in ("basic_car", "tank"):
        shutil.copy(SAMPLES / sample / f"{sample}.usda", assets)
    command = (*(c.format(out=tmp_path / "out") for c in command), assets)
    piped = run_cli(capfd, *command)  # stderr is pytest's capture, no terminal: no bar

    on_terminal, drawn = run_cli_on_terminal(capfd, monkeypatch, *command)

    assert on_terminal.returncode == piped.returncode
    assert on_terminal.stdout == piped.stdout
    assert "2/2" in drawn  # the last frame: both files done, of two
