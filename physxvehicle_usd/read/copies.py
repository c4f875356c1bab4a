"""Fleets: many copies of one asset, parsed once.

A stage that references one vehicle asset N times (benchmarks/fleet.py; a training run's fleet) holds N vehicles
whose composed subtrees are the same opinions at N paths. The reader parses the first such vehicle in full (the
template), parses the second in full as well (the twin) and checks that the template's record and diagnostics,
moved to the twin's path, are exactly the twin's; each further copy is then the template's record moved to its own
path, with its own world pose, and the template's diagnostics said again for it. The description is the one a
full read gives, value for value, provenance for provenance and diagnostic for diagnostic; `read_stage(...,
share_copies=False)` is that full read, and tests/test_read_copies.py compares the two on fleets with and without
per-copy differences.

Two vehicles are copies when
  * (`composition_key`) the prim stacks of their roots are the same specs, except each one's own specs (those at
    its own path in the stage's root layer stack: a reference's `def "Car"`), which must read the same as USD
    writes them (fields and properties) and hold no child prims. Every opinion on the subtree below a root comes
    through a spec of its root's stack (a layer holding a spec below a path holds one at the path), so equal stacks
    compose equal subtrees, with relationship targets mapped to each copy's own path;
  * and (`Fleet.read`) their world transforms give the parse the same scale and the same V69/V70 verdicts, plus,
    for an asset with colliders, the same UsdPhysics mass properties (which depend on the colliders' placement and
    on materials bound from above the copy).
What a copy's record takes from where it stands is its rigid body's world position and orientation, from its own
transform as UsdPhysics derives them (physics.transform_pose).

A template is shared only when its parse looked at nothing outside its own subtree that copies would not see alike
(`Template.parse`): every component it parsed lies in its subtree and was parsed by it (the pass's component cache
had not met it), every diagnostic is about a prim of its subtree and was new to the pass, USD printed nothing
while it was read, its body's simulation owners lie outside it, and its subtree holds no vehicle context, friction
table, scene, point instancer or other vehicle (`Subtree.special`), which the rest of the read finds by traversal.
The traversal skips the subtrees of further copies of such an asset.

The whole stage is read the full way where composition could differ in ways the prim stacks do not show: a
population mask, load rules other than "load all", relocates in the root layer stack.

Copies of an asset whose subtree holds nothing UsdPhysics reports but the body itself (no collider, material or
nested body) are left out of UsdPhysics' parse of the stage, whose per-body work is most of its cost (a moved copy
needs only its pose); should such a copy be parsed in full after all, its body is asked of UsdPhysics then.
"""
from __future__ import annotations

import dataclasses
import os
import struct
from typing import Any, Callable, NamedTuple

from pxr import Gf, Sdf, Usd, UsdPhysics

from ..description import Resolved, Source, VehicleDescription
from ..diagnostics import DiagnosticSink, Severity, SeverityShortcuts
from ..prim_paths import at_and_above, at_or_below
from ..stage.io import captured_stderr
from . import pxr_unchecked as U
from .context import ReadContext
from .copy_paths import POSE, Unmovable, path_boundary, record_mover
from .physics import PhysicsInfo, load_bodies, transform_pose
from .values import ComponentReader
from .wheels import world_frame

_resolved = tuple.__new__


@dataclasses.dataclass
class CopyStats:
    """What one read did with copies (read_stage's `stats`)."""

    moved: int = 0  # vehicle records moved from a template rather than parsed
    # each moved record's path -> its template's: the same record but for paths and pose (the simulator's build
    # takes one's parameters for the other: runtime/vehicle2/copies.py)
    templates: dict[str, str] = dataclasses.field(default_factory=dict)


# -- when two vehicle prims compose the same subtree -----------------------------------------------------

def composition_key(prim: Usd.Prim, root_layers: frozenset, path: Sdf.Path | None = None) -> tuple | None:
    """The prim's own specs (those at its own path in the stage's root layer stack) as (layer, text: the spec as
    USD writes it, its fields and properties), then the other specs of its prim stack. None for an instance proxy
    (its stack is its prototype's, whose path it does not have) and where an own spec holds child prims: opinions
    below the copy (a vehicle authored in place, a copy's own override of a wheel), parsed in full."""
    if prim.IsInstanceProxy():
        return None
    path = U.get_path(prim) if path is None else path
    stack = prim.GetPrimStack()
    own = []
    for spec in stack:  # the root node's specs come first: the prim's own, at its own path
        if spec.path != path:
            break
        layer = spec.layer
        if layer not in root_layers:
            break
        if len(spec.nameChildren):
            return None
        own.append((layer, spec.GetAsText()))
    return tuple(own), tuple(stack[len(own):])


def stage_allows_copies(stage: Usd.Stage) -> bool:
    """Whether prim stacks tell copies apart on this stage: every prim is composed (no population mask, every
    payload loaded) and the root layer stack relocates nothing (a relocation below a copy changes its subtree
    without touching its root's stack)."""
    if stage.GetPopulationMask() != Usd.StagePopulationMask.All():
        return False
    if stage.GetLoadRules() != Usd.StageLoadRules.LoadAll():
        return False
    index = stage.GetPseudoRoot().GetPrimIndex()
    return not index.rootNode.layerStack.relocatesSourceToTarget


class Subtree:
    """What the traversal met below a vehicle root (the root itself excluded)."""

    __slots__ = ("special", "colliders", "physics")

    def __init__(self) -> None:
        self.special = False    # a vehicle context, friction table, scene, point instancer or vehicle: not shared
        self.colliders = False  # UsdPhysics mass properties depend on the colliders' world placement and materials
        self.physics = False    # UsdPhysics reports something below the body (colliders, materials, nested bodies)


class Group:
    """Vehicles whose roots have equal composition keys: copies of one asset."""

    __slots__ = ("members", "subtree", "templates", "posed", "deferred", "framed")

    def __init__(self) -> None:
        self.members: list[str] = []
        self.subtree: Subtree | None = None          # the first member's, once the traversal has left it
        self.templates: dict[tuple, Template] = {}   # by the facts of the parse's world frame (Fleet.read)
        # A verified template by the linear part of a copy's world matrix (its upper 3x3 and its last column), with
        # the orientation that part gives: what a further copy with that part takes without decomposing its matrix
        self.posed: dict[tuple, tuple[Template, tuple]] = {}
        self.deferred: set[str] = set()              # members whose bodies UsdPhysics was not asked about
        # the world frame's facts (scale, V69, V70) and the orientation by the linear part of a copy's world matrix
        self.framed: dict[tuple, tuple[tuple, tuple]] = {}




class _Call(NamedTuple):
    """One diagnostic as the parse said it (before the sink's de-duplication)."""

    severity: Severity
    code: str
    prim: str
    message: str
    prop: str | None


class _Recorder(SeverityShortcuts):
    """A DiagnosticSink's stand-in during a template's parse: says everything on, and remembers what was said and
    whether the sink had heard any of it before."""

    def __init__(self, sink: DiagnosticSink) -> None:
        self.sink, self.items = sink, sink.items
        self.calls: list[_Call] = []
        self.repeated = False

    def add(self, severity: Severity, code: str, prim, message: str, prop: str | None = None) -> None:
        before = len(self.items)
        self.sink.add(severity, code, prim, message, prop)
        self.repeated |= len(self.items) == before
        self.calls.append(_Call(severity, code, str(prim), message, prop))


class Template:
    """The first copy of an asset in one world frame (its scale and V69/V70 verdicts), parsed in full, and how to
    move its record to another copy."""

    PARSED, VERIFIED, REFUSED = range(3)

    def __init__(self, root: str) -> None:
        self.root = root
        self.state = Template.PARSED
        self.record: VehicleDescription | None = None
        self.calls: list[_Call] = []
        self._move: Callable[[str], VehicleDescription | None] | None = None
        self._diagnostics: list[tuple] = []
        self._pose_sources: tuple[Source, Source] | None = None

    def parse(self, prim: Usd.Prim, ctx: ReadContext, parse: Callable[[ReadContext], Any]) -> tuple[Any, bool, list]:
        """Parse a vehicle in full, watched: (its record, whether it qualifies as a template, its diagnostics)."""
        recorder = _Recorder(ctx.sink)
        watch: list = []
        watched = dataclasses.replace(ctx, sink=recorder, watch=watch)
        with captured_stderr() as printed:
            record = parse(watched)
        _say_again(printed)
        root = str(U.get_path(prim))
        parsed_here = set()
        ok = not printed and not recorder.repeated
        for key, seen in watch:  # components: in the subtree, and parsed by this vehicle
            if (seen and key not in parsed_here) or not at_or_below(ComponentReader.prim_info(key[1])[0], root):
                ok = False
            parsed_here.add(key)
        ok &= all(at_or_below(call.prim, root) and call.code != "INTERNAL" for call in recorder.calls)
        body = ctx.body(root)
        ok &= body is not None and not any(at_or_below(str(owner), root) for owner in body.simulationOwners)
        return record, ok, recorder.calls

    def adopt(self, record: VehicleDescription | None, calls: list[_Call], contexts: frozenset) -> None:
        try:
            self._move = record_mover(record, self.root, contexts)
        except Unmovable:
            self.state = Template.REFUSED
            return
        self.record, self.calls = record, calls
        pattern = path_boundary(self.root)
        size = len(self.root)
        self._diagnostics = [(call.severity, call.code, call.prim[size:] if at_or_below(call.prim, self.root) else None,
                              call.prim, pattern.split(call.message) if self.root in call.message else None,
                              call.message, call.prop) for call in calls]
        if record is not None:
            self._pose_sources = tuple(record.rigidBody.source(key) for key in POSE)

    def move(self, root: str, pose: tuple[tuple, tuple]) -> tuple[VehicleDescription | None, list[_Call]]:
        """The template's record and diagnostics at `root`, its body at `pose` (world position, orientation)."""
        record = self._move(root) if self.record is not None else None
        if record is not None:
            values = record.rigidBody.values
            for key, value, source in zip(POSE, pose, self._pose_sources):
                values[key] = _resolved(Resolved, (value, source))
        calls = [_Call(severity, code, root + tail if tail is not None else prim,
                       root.join(pieces) if pieces is not None else message, prop)
                 for severity, code, tail, prim, pieces, message, prop in self._diagnostics]
        return record, calls


def _say_again(lines: list[str]) -> None:
    """Hand what USD printed during a watched parse on to the enclosing capture (read_stage's), in order."""
    if lines:
        os.write(2, ("\n".join(lines) + "\n").encode("utf-8", "replace"))


# -- the fleet of a stage ----------------------------------------------------------------------------------

class Fleet:
    """The vehicles of one read pass grouped into copies, and their parse: full for templates and twins, moved
    from the template for the other copies."""

    def __init__(self, stage: Usd.Stage) -> None:
        self.stage = stage
        self.root_layers = frozenset(stage.GetLayerStack())
        self.groups: dict[tuple, Group] = {}
        self.group_of: dict[str, Group] = {}
        self.entries: list[tuple[str, Group | None]] = []  # each vehicle met by the traversal: path and group, in order
        self.moved_from: dict[str, str] = {}  # each record moved from a template (not parsed): path -> template's

    @classmethod
    def of(cls, stage: Usd.Stage) -> "Fleet | None":
        return cls(stage) if stage_allows_copies(stage) else None

    # -- traversal
    def enter(self, prim: Usd.Prim) -> tuple[Group | None, bool]:
        """A vehicle root met by the traversal: (its group, whether its subtree need not be traversed: the first copy
        showed that it holds nothing the traversal looks for)."""
        sdf_path = U.get_path(prim)
        path = str(sdf_path)
        key = composition_key(prim, self.root_layers, sdf_path)
        group = None if key is None else self.groups.get(key)
        if group is None and key is not None:
            group = self.groups[key] = Group()
        self.entries.append((path, group))
        if group is None:
            return None, False
        group.members.append(path)
        self.group_of[path] = group
        return group, group.subtree is not None and not group.subtree.special

    @staticmethod
    def leave(group: Group | None, subtree: Subtree) -> None:
        if group is not None and group.subtree is None:
            group.subtree = subtree

    def copy_roots(self, path: str) -> tuple[str, str, str] | None:
        """For a prim at or below a copy's root: (that root, its asset's first copy's root, its second's), where the
        copies are shared (three or more, whose first showed nothing special in its subtree); else None."""
        for root in at_and_above(path):
            group = self.group_of.get(root)
            if group is not None:
                if len(group.members) < 3 or group.subtree is None or group.subtree.special:
                    return None
                return root, group.members[0], group.members[1]
        return None

    def shared_copy(self, path: str) -> tuple[str, str] | None:
        """For the root of a third or further copy of an asset whose copies are shared (copy_roots): the roots of its
        first and second copies; else None."""
        group = self.group_of.get(path)
        if group is None or len(group.members) < 3 or group.subtree is None or group.subtree.special:
            return None
        first, second = group.members[0], group.members[1]
        return None if path == first or path == second else (first, second)

    # -- UsdPhysics
    def unparsed_bodies(self) -> list[str]:
        """Copies UsdPhysics need not parse: the third and further copies of a plain asset (no colliders, materials
        or nested bodies, and nothing UsdPhysics prints about the first copy). Asked for later where needed."""
        out = []
        for group in self.groups.values():
            subtree = group.subtree
            if len(group.members) < 3 or subtree is None or subtree.special or subtree.physics:
                continue
            with captured_stderr() as printed:
                load_bodies(self.stage, group.members[:1])
            _say_again(printed)
            if printed:
                continue
            group.deferred.update(group.members[2:])
            out.extend(group.members[2:])
        return out

    def body_lookup(self, physics: PhysicsInfo) -> Callable[[str], object | None]:
        """ReadContext.body: a deferred copy's body is asked of UsdPhysics with those of the rest of its group."""
        def body(path: str) -> object | None:
            desc = physics.bodies.get(path)
            if desc is None:
                group = self.group_of.get(path)
                if group is not None and path in group.deferred:
                    physics.bodies.update(load_bodies(self.stage, sorted(group.deferred)))
                    group.deferred.clear()
                    desc = physics.bodies.get(path)
            return desc
        return body

    # -- parse
    def read(self, prim: Usd.Prim, entry: tuple[str, Group | None], ctx: ReadContext,
             parse: Callable[[ReadContext], Any]) -> Any:
        """A vehicle's record (entry: its path and group, from the traversal): parsed in full, or moved from its
        template."""
        path, group = entry
        # a template pays for itself from the third copy on (the second is parsed in full to check it)
        if group is None or len(group.members) < 3 or group.subtree is None or group.subtree.special:
            return parse(ctx)
        matrix = ctx.xforms.GetLocalToWorldTransform(prim)
        linear = (matrix.ExtractRotationMatrix(), matrix.GetColumn(3))
        if not group.subtree.colliders:
            known = group.posed.get(linear)
            if known is not None:
                # Gf.Transform takes the translation from the matrix's last row as it is (GfMatrix4d::Factor), and
                # its scale, rotation and shear from the linear part alone: the same as the template's
                template, orientation = known
                return self._emit(template, path, (_single(matrix.ExtractTranslation()), orientation), ctx)
        # the parse's facts of the world frame and the body's orientation depend on the linear part alone (as above):
        # known from an earlier copy with that part, the matrix need not be decomposed again
        framed = group.framed.get(linear)
        frame = None
        if framed is None:
            frame = world_frame(prim, ctx.xforms)
            facts: tuple = (frame.scale, frame.collapsed, frame.sheared)
        else:
            facts = framed[0]
        if group.subtree.colliders:
            mass = _mass_facts(prim)
            if mass is None:
                return parse(ctx)
            facts += mass
        template = group.templates.get(facts)
        if template is None:
            template = group.templates[facts] = Template(path)
            record, ok, calls = template.parse(prim, ctx, parse)
            if ok:
                template.adopt(record, calls, frozenset(map(id, ctx.contexts.values())))
            else:
                template.state = Template.REFUSED
            return record
        if template.state == Template.REFUSED:
            return parse(ctx)
        if frame is not None:
            pose = transform_pose(frame.transform)
            group.framed[linear] = ((frame.scale, frame.collapsed, frame.sheared), pose[1])
        else:
            pose = (_single(matrix.ExtractTranslation()), framed[1])
        if template.state == Template.PARSED:  # the twin: moved from the template, it must be what its parse says
            record, ok, calls = template.parse(prim, ctx, parse)
            moved, moved_calls = template.move(path, pose)
            template.state = Template.VERIFIED if ok and moved == record and moved_calls == calls else Template.REFUSED
        else:
            record = self._emit(template, path, pose, ctx)
        if template.state == Template.VERIFIED and not group.subtree.colliders:
            group.posed[linear] = (template, pose[1])
        return record

    def _emit(self, template: "Template", path: str, pose: tuple, ctx: ReadContext) -> VehicleDescription | None:
        """A copy's record moved from its verified template, and the template's diagnostics said for it."""
        record, calls = template.move(path, pose)
        add = ctx.sink.add
        for call in calls:
            add(*call)
        self.moved_from[path] = template.root
        return record


_FLOAT3 = struct.Struct("3f")


def _single(vector: Gf.Vec3d) -> tuple[float, float, float]:
    """tuple(Gf.Vec3f(vector)[:]), a third of the time: packing a float rounds a double as C's cast does, as
    GfVec3f's constructor does; where a component is too large for a float (packing refuses), Gf says what it is."""
    try:
        return _FLOAT3.unpack(_FLOAT3.pack(*vector[:]))
    except OverflowError:
        return tuple(Gf.Vec3f(vector)[:])


def _mass_facts(prim: Usd.Prim) -> tuple | None:
    """UsdPhysics' mass properties of a body with colliders below it (they depend on the colliders' placement and
    bound materials, which may come from above the copy), or None where they cannot be computed."""
    from .physics import shape_mass_information

    try:
        mass, inertia, com, axes = UsdPhysics.RigidBodyAPI(prim).ComputeMassProperties(shape_mass_information)
    except Exception:  # noqa: BLE001 - the full parse reports it
        return None
    # a key of templates only: Gf's vectors and quaternion as they come (they compare and hash by value), not a
    # tuple of floats made of each, which cost a third of this per copy
    return (mass, inertia, com, axes)


__all__ = ["CopyStats", "Fleet", "Subtree", "composition_key", "stage_allows_copies"]
