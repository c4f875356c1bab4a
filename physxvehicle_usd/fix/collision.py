"""Wheel collision shapes kept off the ground (to be written)."""
from __future__ import annotations


class WheelGroups:
    def __init__(self, stage, description):
        self.stage, self.d = stage, description

    def repair(self, finding):
        return None, "not yet"
