from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "samples"


def run_python(args: list[str], env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a fresh interpreter (the schema plugins of NVIDIA and ours can't share a process)."""
    full_env = dict(os.environ)
    full_env.pop("PXR_PLUGINPATH_NAME", None)
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=full_env, timeout=timeout)


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO
