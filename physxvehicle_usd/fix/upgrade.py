"""Deprecated attributes migrated to their replacements (to be written)."""
from __future__ import annotations

CODES = frozenset({"DEPRECATED", "V18", "V21", "V23", "V37", "V76"})


class Upgrade:
    def __init__(self, stage, description):
        self.stage, self.d = stage, description

    def repair(self, finding):
        return None, "not yet"
