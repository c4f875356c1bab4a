"""Repairs of vehicle assets: which finding has which repair (plan.py) and the `fix` command's file handling
(files.py). The repair records themselves are physxvehicle_usd.repairs."""
from __future__ import annotations

from .files import FileFix, RepairMade, default_output, fix_file, fix_paths

__all__ = ["FileFix", "RepairMade", "default_output", "fix_file", "fix_paths"]
