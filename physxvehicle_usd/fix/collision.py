"""Wheel collision shapes kept off the ground (A03: a shape in no collision group; A07: groups that do not filter
the ground), as the Vehicle Wizard keeps them: the shape goes into a group of wheel shapes that filters the
ground's group.

The wheel group is an existing group holding wheel shapes only that already filters every ground collider, else a
new one (VehicleWheelCollisionGroup beside the default prim's children, the Wizard's name). A ground collider in no
group gets one (GroundSurfaceCollisionGroup) so that it can be filtered. For A07 the shape's own groups are made to
filter the ground where they hold wheel shapes only; a group that also holds other colliders (a chassis) has no
repair: filtering it would keep those off the ground too. Whether two colliders touch is the validator's own
reckoning (validate/checks.py), so a repaired shape is one the check passes.
"""
from __future__ import annotations

from functools import lru_cache

from pxr import Sdf, Usd, UsdPhysics

from ..collision_filter import GroupFilter
from ..description import CollisionGroupDescription, StageDescription
from ..diagnostics import Diagnostic
from ..read.collision import collision_groups, groups_of
from ..repairs import Edit, Repair
from ..validate.checks import wheel_attachment_shapes

WHEEL_GROUP, GROUND_GROUP = "VehicleWheelCollisionGroup", "GroundSurfaceCollisionGroup"


@lru_cache(maxsize=1)
def _names() -> tuple[str, str]:
    """The USD names of a collision group's collider includes and filtered groups, from the schema."""
    stage = Usd.Stage.CreateInMemory()  # held: a prim of a stage no longer held is invalid
    group = UsdPhysics.CollisionGroup.Define(stage, "/G")
    return group.GetCollidersCollectionAPI().GetIncludesRel().GetName(), group.GetFilteredGroupsRel().GetName()


def _free_path(stage: Usd.Stage, name: str, taken: set[str]) -> str:
    default = stage.GetDefaultPrim()
    parent = default.GetPath() if default else Sdf.Path.absoluteRootPath
    path, n = parent.AppendChild(name), 1
    while stage.GetPrimAtPath(path) or str(path) in taken:
        path, n = parent.AppendChild(f"{name}{n}"), n + 1
    return str(path)


class WheelGroups:
    """The A03/A07 repairs of one stage."""

    def __init__(self, stage: Usd.Stage, description: StageDescription):
        self.stage, self.d = stage, description
        self.groups, self.members = collision_groups(stage)
        self._member_of = groups_of(self.members)
        self._filters: dict[str, list[Edit]] = {}
        self.wheel_shapes = {str(s.GetPath()) for v in description.vehicles.values() for w in v.wheels
                             for s in wheel_attachment_shapes(stage.GetPrimAtPath(w.path))}
        self._ground_groups: tuple[dict[str, str], list[Edit]] | None = None
        self._wheel_group: tuple[str, list[Edit]] | None = None

    def _of(self, path: str) -> list[str]:
        """The groups a collider is in, sorted."""
        return self._member_of.get(path, [])

    def ground_groups(self) -> tuple[dict[str, str], list[Edit]]:
        """ground collider -> a group of it (an existing one, else the new ground group), and the edits that make
        the new one."""
        if self._ground_groups is None:
            includes, _ = _names()
            chosen, edits, new = {}, [], None
            for ground in self.d.ground:
                found = self._of(ground.path)
                if found:
                    chosen[ground.path] = found[0]
                    continue
                if new is None:
                    new = _free_path(self.stage, GROUND_GROUP, set())
                    edits.append(Edit(op="define_prim", prim=new, type_name="PhysicsCollisionGroup",
                                      why="a ground collider in no group cannot be filtered from the wheels"))
                edits.append(Edit(op="add_relationship_target", prim=new, property=includes, value=ground.path,
                                  why="the ground collider, so that the wheel group can filter it"))
                chosen[ground.path] = new
            self._ground_groups = (chosen, edits)
        return self._ground_groups

    def _touching(self, group: str) -> list[str]:
        """The ground colliders that colliders of a group touch (the groups as they stand, new ones included)."""
        rule = GroupFilter.of(self.groups)
        return [g.path for g in self.d.ground if rule.colliders_touch([group], self._of(g.path))]

    def _filters_ground(self, group: str) -> bool:
        return not self._touching(group)

    def _filter_edits(self, group: str) -> list[Edit]:
        """Edits that make a group of wheel shapes filter every ground collider it touches (once per group)."""
        if group not in self._filters:
            chosen, edits = self.ground_groups()
            _, filtered = _names()
            touching = self._touching(group)
            targets = dict.fromkeys(chosen[ground] for ground in touching)
            self._filters[group] = edits + [
                Edit(op="add_relationship_target", prim=group, property=filtered, value=target,
                     why="wheel shapes never touch the ground as rigid shapes: the suspension carries the car")
                for target in targets]
        return self._filters[group]

    def wheel_group(self) -> tuple[str, list[Edit]]:
        """The group a wheel shape in no group joins, and the edits that make it filter the ground: an existing
        group of wheel shapes only (one that filters the ground first), else a new one."""
        if self._wheel_group is None:
            existing = sorted((not self._filters_ground(g), g) for g, members in self.members.items()
                              if members and members <= self.wheel_shapes)
            if existing:
                group = existing[0][1]
                self._wheel_group = (group, self._filter_edits(group))
            else:
                _, edits = self.ground_groups()
                group = _free_path(self.stage, WHEEL_GROUP, {e.prim for e in edits})
                # as made: the filter edits are worked out on it
                self.groups[group], self.members[group] = CollisionGroupDescription(group), set()
                define = Edit(op="define_prim", prim=group, type_name="PhysicsCollisionGroup",
                              why="the wheel shapes' own group, as the Vehicle Wizard makes it")
                self._wheel_group = (group, [define] + self._filter_edits(group))
        return self._wheel_group

    def repair(self, f: Diagnostic) -> tuple[Repair | None, str]:
        if not self.d.ground:
            return None, "the stage has no ground collider to keep the wheel from"
        includes, filtered = _names()
        if f.code == "A03":
            group, edits = self.wheel_group()
            edits = edits + [Edit(op="add_relationship_target", prim=group, property=includes, value=f.prim,
                                  why="the wheel shape joins the wheel group, which the ground is filtered from")]
            return Repair(summary=f"move {f.prim} into the collision group {group}, which filters the ground",
                          edits=tuple(edits)), ""
        own = self._of(f.prim)
        mixed = [g for g in own if not self.members[g] <= self.wheel_shapes]
        if mixed:
            others = sorted(self.members[mixed[0]] - self.wheel_shapes)
            return None, (f"{mixed[0]} also holds {', '.join(others[:3])}: filtering it would keep those off the "
                          "ground too; give the wheel shapes a group of their own")
        edits = [e for group in own for e in self._filter_edits(group)]
        return Repair(summary=f"make {', '.join(own)} (wheel shapes only) filter the ground collider(s) it touches",
                      edits=tuple(dict.fromkeys(edits))), ""
