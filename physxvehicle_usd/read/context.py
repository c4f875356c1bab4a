"""What a read pass shares between vehicles (`ReadContext`) and what one vehicle's parse carries (`VehicleParse`:
its diagnostics and validity), with the component resolution every part of the parse uses (parse rules 1.3).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from pxr import Usd, UsdGeom

from .. import properties as P
from ..description import Block
from ..diagnostics import DiagnosticSink, Severity
from ..units import StageUnits
from . import pxr_unchecked as U
from .physics import PhysicsInfo
from .values import ComponentReader, authored_targets

MAX_WHEELS = 20
# Errors the parser logs while still creating the vehicle ("E~" in the parse rules): torque curve truncated to
# 8 points, sub-step count clamped to 255, sprung masses that fall back to mass / wheel count.
LOGGED_ONLY = frozenset({"V51", "V75", "V142"})
MAX_SUBSTEPS = 255
REFERENCE_FRAME_KEY = "physxVehicle:referenceFrameIsCenterOfMass"


@dataclass
class ReadContext:
    """What one read pass shares between vehicles: the stage, diagnostics, units and a component cache."""

    stage: Usd.Stage
    sink: DiagnosticSink
    units: StageUnits
    physics: PhysicsInfo
    contexts: dict[str, Block]                     # scene path -> parsed vehicle context
    scene_settings: dict[str, Block]               # scene path -> its SceneDescription.settings
    cache: dict[tuple[str, Usd.Prim], Block | None] = field(default_factory=dict)
    xforms: UsdGeom.XformCache = field(default_factory=UsdGeom.XformCache)
    # While a vehicle's parse is watched (read/copies.py: is it a template for its copies?), each component
    # look-up as (key, whether the pass had parsed it already)
    watch: list[tuple[tuple[str, Usd.Prim], bool]] | None = None
    # The rigid-body description of a vehicle prim; read/copies.py replaces it where UsdPhysics was not asked
    # about a copy's body until its parse needs it
    body: Callable[[str], object | None] | None = None

    def __post_init__(self) -> None:
        if self.body is None:
            self.body = self.physics.bodies.get

    def component(self, kind: str, prim: Usd.Prim, parse: Callable[[], Block | None]) -> Block | None:
        """Shared components are parsed once per prim for the whole pass (a Usd.Prim compares by its
        composed prim and instance-proxy path, so equal keys are the same prim of the stage)."""
        key = (kind, prim)
        if self.watch is not None:
            self.watch.append((key, key in self.cache))
        if key not in self.cache:
            self.cache[key] = parse()
        return self.cache[key]


class VehicleParse:
    """Per-vehicle parse state: collects errors so that every problem is reported, not only the first."""

    def __init__(self, prim: Usd.Prim, ctx: ReadContext):
        self.prim, self.ctx, self.path = prim, ctx, str(prim.GetPath())
        self.start = len(ctx.sink.items)
        self.valid = True

    def rejecting_errors(self) -> int:
        """Errors reported since this vehicle's parse began, other than the ones the parser only logs."""
        return sum(1 for d in self.ctx.sink.items[self.start:]
                   if d.severity == Severity.ERROR and d.code not in LOGGED_ONLY)

    def error(self, code: str, message: str, prop: str | None = None, prim: str | None = None) -> None:
        self.ctx.sink.error(code, prim or self.path, message, prop)
        self.valid = False

    def warning(self, code: str, message: str, prop: str | None = None, prim: str | None = None) -> None:
        self.ctx.sink.warning(code, prim or self.path, message, prop)

    def fail_if_none(self, block):
        if block is None:
            self.valid = False
        return block


# -- component resolution: relationship OR API on the owner (parse rules 1.3) ---------------------------

def resolve_component(v: VehicleParse, owner: Usd.Prim, owner_schema: str, rel_base: str, api: str,
                      optional: bool = False, code: str = "V34") -> Usd.Prim | None:
    """code: V34 for a wheel attachment's wheel/tire/suspension, V64 for a standard drive's components."""
    rel_name = P.full_name(owner_schema, rel_base)
    owner_path = ComponentReader.prim_info(owner)[0]
    targets, _ = authored_targets(owner, rel_name)
    if len(targets) > 1:
        v.error(code, f"{rel_base} relationship has {len(targets)} targets; one is allowed", rel_name, owner_path)
        return None
    if targets:
        if U.has_api(owner, api):
            v.warning(code, f"{rel_base} is both referenced and applied; the relationship wins and the applied {api} "
                      "is ignored", rel_name, owner_path)
        target = v.ctx.stage.GetPrimAtPath(targets[0])
        if not target:
            v.error(code, f"{rel_base} target {targets[0]} does not exist", rel_name, owner_path)
            return None
        if not U.has_api(target, api):
            v.error(code, f"{rel_base} target {targets[0]} does not have {api} applied", rel_name, owner_path)
            return None
        return target
    if U.has_api(owner, api):
        return owner
    if not optional:
        v.warning(code, f"needs either a {rel_base} relationship or {api} applied to this prim", rel_name, owner_path)
        v.valid = False
    return None
