"""Which finding has which repair: `plan_repairs` gives every finding of a stage its one unambiguous repair
(`Diagnostic.fix`), or says why it has none.

    planned = plan_repairs(stage, description, findings)
    [p.finding.fix for p in planned]        # a Repair, or None
    [p.why_not for p in planned]            # "" where there is a repair

Repaired codes: V07 (no vehicle context; V03 and V04, a context PhysX rejects, get the same repair), A06 (no physics scene), V142 and A09 (sprung masses), V81 (reference
frame custom data), the deprecated paths (DEPRECATED, V18, V21, V23, V37, V76; fix/upgrade.py) and A03/A07 (wheel
collision shapes touching the ground; fix/collision.py). A02 (components nothing uses) is left alone: deleting an
author's prim is not ours to decide. Every other finding is a judgement the author makes.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pxr import Usd

from ..description import StageDescription
from ..diagnostics import Diagnostic
from ..repairs import Edit, Repair
from . import collision, upgrade
from .frame import reference_frame_repair
from .masses import clear_sprung_masses, read_with, sprung_mass_repair
from .scene import context_repair, scene_repair

NOT_OURS = {"A02": "left alone: a component nothing uses may be meant for a vehicle still to come; delete it or "
                   "point a relationship at it"}
HAS_CONTEXT = "the vehicle has a vehicle context"
REPAIRED_CODES = frozenset({"V03", "V04", "V07", "A06", "V142", "A09", "V81", "A03", "A07"} | upgrade.CODES)


@dataclass(frozen=True)
class Planned:
    finding: Diagnostic    # with its fix, where it has one
    why_not: str = ""      # why it has none ("" where it has one, or where the code is none we repair)


class _Plan:
    def __init__(self, stage: Usd.Stage, description: StageDescription, findings: list[Diagnostic]):
        self.stage, self.d, self.findings = stage, description, findings
        self.codes = {f.code for f in findings}
        self._contexts: dict[str | None, tuple[Repair | None, str]] | None = None
        self._solved: StageDescription | None = None
        self._upgrade = upgrade.Upgrade(stage, description) if self.codes & upgrade.CODES else None
        self._collision = collision.WheelGroups(stage, description) if self.codes & {"A03", "A07"} else None

    def _vehicles_without_context(self) -> dict[str | None, list[str]]:
        by_scene: dict[str | None, list[str]] = defaultdict(list)
        for f in self.findings:
            if f.code == "V07" and f.prim in self.d.vehicles:
                by_scene[self.d.vehicles[f.prim].scene].append(f.prim)
        return by_scene

    def contexts(self) -> dict[str | None, tuple[Repair | None, str]]:
        """scene path (None: the stage has none) -> the context repair for the vehicles it simulates (or why none)."""
        if self._contexts is None:
            self._contexts = {scene: context_repair(self.stage, self.d, vehicles, scene)
                              for scene, vehicles in self._vehicles_without_context().items()}
        return self._contexts

    def context_for(self, vehicle: str) -> tuple[Repair | None, str]:
        return self.contexts().get(self.d.vehicles[vehicle].scene, (None, HAS_CONTEXT))

    def solved(self) -> StageDescription:
        """The stage read again with every context repair made and the sprung masses of A09's vehicles cleared:
        the solve's sprung masses for all of them in one read."""
        if self._solved is None:
            edits: list[Edit] = [e for repair, _ in self.contexts().values() if repair is not None for e in repair.edits]
            for f in self.findings:
                if f.code == "A09" and f.prim in self.d.vehicles:
                    edits += clear_sprung_masses(self.d, f.prim)
            self._solved = read_with(self.stage, list(dict.fromkeys(edits)))
        return self._solved

    def repair(self, f: Diagnostic) -> tuple[Repair | None, str]:
        code = f.code
        if code in NOT_OURS:
            return None, NOT_OURS[code]
        if code == "A06":
            return scene_repair(self.stage, self.d), ""
        if code in ("V03", "V04"):  # a context PhysX rejects: its scene's vehicles get V07, whose repair this is
            return self.contexts().get(f.prim, (None, "no vehicle of the description is simulated by this scene"))
        if code in ("V07", "V142", "A09", "V81") and f.prim not in self.d.vehicles:
            return None, "the vehicle is left out of the description (errors above): repair those first"
        if code == "V07":
            return self.context_for(f.prim)
        if code == "V142":
            context, why = self.context_for(f.prim)
            if context is None:
                return None, ("the wheel positions are ill-conditioned in the vehicle context PhysX uses" if
                              why == HAS_CONTEXT else f"no vehicle context can be given: {why}")
            axis = next(e.value for e in context.edits if e.property and e.property.endswith("verticalAxis"))
            return sprung_mass_repair(self.solved(), f.prim, f"PhysX cannot compute them with the context it has; "
                                      f"with the vertical axis {axis} (the stage's up axis) the solve succeeds")
        if code == "A09":
            return sprung_mass_repair(self.solved(), f.prim, "the authored ones do not add up to the chassis mass")
        if code == "V81":
            return reference_frame_repair(self.stage, self.d.vehicles[f.prim])
        if self._upgrade is not None and code in upgrade.CODES:
            return self._upgrade.repair(f)
        if self._collision is not None and code in ("A03", "A07"):
            return self._collision.repair(f)
        return None, ""


def plan_repairs(stage: Usd.Stage, description: StageDescription, findings: list[Diagnostic]) -> list[Planned]:
    """Every finding with its repair attached where it has one, in order."""
    if not any(f.code in REPAIRED_CODES or f.code in NOT_OURS for f in findings):
        return [Planned(f) for f in findings]
    out = []
    try:
        plan = _Plan(stage, description, findings)
    except Exception as exc:  # noqa: BLE001 - a repair that trips over a strange stage must not cost the findings
        return [Planned(f, _failed(exc)) for f in findings]
    for f in findings:
        try:
            repair, why = plan.repair(f)
        except Exception as exc:  # noqa: BLE001 - as above, finding by finding
            repair, why = None, _failed(exc)
        out.append(Planned(f.model_copy(update={"fix": repair}) if repair is not None else f, why))
    return out


def _failed(exc: Exception) -> str:
    return f"working out a repair failed unexpectedly ({type(exc).__name__}: {exc}); please report it"


def attach_repairs(stage: Usd.Stage, description: StageDescription, findings: list[Diagnostic]) -> list[Diagnostic]:
    return [p.finding for p in plan_repairs(stage, description, findings)]
