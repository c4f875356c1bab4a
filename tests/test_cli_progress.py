"""The progress bar of the commands over many files: drawn on stderr where stderr is a terminal (files done of all),
and the report on stdout the same bytes as without one (a report redirected to a file from a terminal once began
with the blank line the bar's console left on stdout; convert's lines, printed as each file is done, go to stdout
too, not above the bar)."""
from __future__ import annotations

import os
import pty
import shutil
import sys
import threading

import pytest
from conftest import SAMPLES, run_cli


@pytest.mark.parametrize("command", [("validate",), ("fix", "--dry-run"), ("convert", "-o", "{out}")])
def test_a_terminal_gets_a_bar_on_stderr_and_the_report_is_unchanged(tmp_path, capfd, monkeypatch, command):
    assets = tmp_path / "assets"
    assets.mkdir()
    for sample in ("basic_car", "tank"):
        shutil.copy(SAMPLES / sample / f"{sample}.usda", assets)
    command = (*(c.format(out=tmp_path / "out") for c in command), assets)
    piped = run_cli(capfd, *command)  # stderr is pytest's capture, no terminal: no bar

    master, slave = pty.openpty()
    drawn = bytearray()

    def read() -> None:  # drained as it is drawn: a full terminal buffer would block the command
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end closed
                return
            if not chunk:
                return
            drawn.extend(chunk)

    reader = threading.Thread(target=read)
    reader.start()
    for name in ("TTY_COMPATIBLE", "TTY_INTERACTIVE", "FORCE_COLOR"):  # what would tell rich otherwise
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "400")  # the whole bar on one line, the file names included
    with os.fdopen(slave, "w") as terminal:
        monkeypatch.setattr(sys, "stderr", terminal)
        on_terminal = run_cli(capfd, *command)
        monkeypatch.setattr(sys, "stderr", sys.__stderr__)
    reader.join(timeout=10)
    os.close(master)

    assert on_terminal.returncode == piped.returncode
    assert on_terminal.stdout == piped.stdout
    assert "2/2" in drawn.decode("utf-8", "replace")  # the last frame: both files done, of two
