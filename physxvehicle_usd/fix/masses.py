"""Sprung masses as the reader's own solve gives them (PxVehicleComputeSprungMasses, read/wheels.py), authored on the
suspensions as the Vehicle Wizard authors them: where PhysX cannot compute them (V142: the wheel positions are
ill-conditioned in the frame the vehicle context gives, which a missing context makes so on a Z-up stage) and where
the authored ones do not add up to the chassis mass (A09).

The solve is the reader's: the stage is read again with the repairs the solve needs (the vehicle context; the
authored sprung masses cleared) in a layer of a scratch stage, and the sprung masses it computes are taken. No
second solver. A suspension shared by wheels that need different sprung masses has no single value: no repair.
"""
from __future__ import annotations

from collections import defaultdict

from pxr import Sdf, Usd

from .. import properties as P
from ..description import Source, StageDescription
from ..repairs import Edit, Repair
from .edits import clear_schema_attribute, set_schema_attribute

_AGREE = 1e-6  # relative: the sprung masses of one shared suspension are one value


def read_with(stage: Usd.Stage, edits: list[Edit]) -> StageDescription:
    """The stage's description with `edits` authored over it, in a scratch stage (the stage itself untouched)."""
    from ..read import read_stage

    session = Sdf.Layer.CreateAnonymous(".usda")
    session.subLayerPaths.append(stage.GetSessionLayer().identifier)
    scratch = Usd.Stage.Open(stage.GetRootLayer(), session, stage.GetPathResolverContext())
    scratch.SetEditTarget(Usd.EditTarget(session))
    for edit in edits:
        edit.apply(scratch)
    return read_stage(scratch)


def clear_sprung_masses(description: StageDescription, vehicle: str) -> list[Edit]:
    """Edits that leave a vehicle's sprung masses to the solve (for `read_with`)."""
    paths = sorted({w.suspension.path for w in description.vehicles[vehicle].wheels})
    return [clear_schema_attribute(path, P.SUSPENSION, "sprungMass", "left to the solve") for path in paths]


def sprung_mass_repair(solved: StageDescription, vehicle: str, why: str) -> tuple[Repair | None, str]:
    """Author the sprung masses `solved` (a description read with the solve's prerequisites) computed for the
    vehicle; None and why not where it computed none or a shared suspension would need two values."""
    found = solved.vehicles.get(vehicle)
    if found is None:
        return None, "the vehicle cannot be read once the other repairs are made"
    if any(d.code == "V142" and d.prim == vehicle for d in solved.diagnostics):
        return None, "the wheel positions are ill-conditioned in the vehicle's own frame too: no solve exists"
    by_suspension: dict[str, list[float]] = defaultdict(list)
    for wheel in found.wheels:
        if wheel.suspension.source("sprungMass") != Source.COMPUTED:
            return None, f"{wheel.suspension.path} keeps an authored sprung mass"
        by_suspension[wheel.suspension.path].append(wheel.suspension["sprungMass"])
    edits = []
    for path, masses in sorted(by_suspension.items()):
        if max(masses) - min(masses) > _AGREE * max(abs(m) for m in masses):
            return None, (f"{path} is shared by wheels that need different sprung masses "
                          f"({', '.join(f'{m:g}' for m in masses)})")
        edits.append(set_schema_attribute(path, P.SUSPENSION, "sprungMass", sum(masses) / len(masses), why))
    total = sum(w.suspension["sprungMass"] for w in found.wheels)
    summary = (f"author the sprung masses the solve gives ({', '.join(f'{e.value:g}' for e in edits)}; "
               f"{total:g} in all, the chassis mass) on {len(edits)} suspension(s), as the Vehicle Wizard does: {why}")
    return Repair(summary=summary, edits=tuple(edits)), ""
