"""The upgrade: deprecated attributes migrated to their replacements, as the reader migrates them, now written.

The reader resolves every deprecated path (read/components.py, read/wheels.py, read/systems.py) and the description
holds the result. A repair authors those resolved values on the replacement attributes (`deprecated_by` in the
property table) and clears the deprecated attributes, so that the asset reads with no deprecation warning and
every resolved value is what it was. Where a replacement changes how other values resolve, those are written too:

- suspension travel from maxCompression/maxDroop: the droop the parser then works out differs, and with it the
  estimated force application points and a wheel centre's suspension frame; each wheel's compliance graphs (and a
  migrated suspensionFramePosition) are written as resolved;
- a wheel's toe angle, a suspension's cambers or an attachment's force offsets go to that wheel's
  PhysxVehicleSuspensionComplianceAPI, which once applied is read whole: all its resolved graphs are written;
- wheelCenterOfMassOffset: the sprung masses were solved at the wheel centres; where a suspension frame lies from
  its wheel centre off the vertical (a slanted travel direction) and they were computed, the ones solved are written
  (the all-or-none rule makes that every suspension of the vehicle);
- per-wheel brake and steer angles become the vehicle's PhysxVehicleBrakesAPI:brakes0/brakes1 or
  PhysxVehicleSteeringAPI, and the controller's brake and steer commands, which the parser takes from the
  deprecated controller attributes on that path, are written with them.

No repair where the resolved values of a shared component differ between its users (a tire shared by wheels with
different rest loads), where the deprecated controller attributes are time-sampled (a drive cycle, not one value),
or where applying the replacement would make PhysX read a nonlinear command response it now ignores.
"""
from __future__ import annotations

from collections import defaultdict

from pxr import Gf, Usd

from .. import properties as P
from ..description import Source, StageDescription, VehicleDescription, WheelDescription
from ..diagnostics import Diagnostic
from ..repairs import Edit, Repair
from .edits import apply_api, clear_schema_attribute, set_schema_attribute

CODES = frozenset({"DEPRECATED", "V18", "V21", "V23", "V37", "V76"})
# The deprecated attributes, by USD name, from the property table.
_DEPRECATED = {P.full_name(p.schema, p.base): p for p in P.TABLE_ROWS
               if p.deprecated_by and P.is_schema_property(p.schema, p.base)}
# What each deprecated attribute migrates with (one repair per group and prim).
_GROUPS = {
    (P.CONTEXT, "upAxis"): "axes", (P.CONTEXT, "forwardAxis"): "axes",
    (P.VEHICLE, "minLongitudinalSlipDenominator"): "slip",
    (P.TIRE, "latStiffX"): "lateral", (P.TIRE, "latStiffY"): "lateral",
    (P.TIRE, "longitudinalStiffnessPerUnitGravity"): "longitudinal",
    (P.TIRE, "camberStiffnessPerUnitGravity"): "camberStiffness",
    (P.SUSPENSION, "maxCompression"): "travel", (P.SUSPENSION, "maxDroop"): "travel",
    (P.SUSPENSION, "camberAtRest"): "compliance", (P.SUSPENSION, "camberAtMaxCompression"): "compliance",
    (P.SUSPENSION, "camberAtMaxDroop"): "compliance", (P.WHEEL, "toeAngle"): "compliance",
    (P.ATTACHMENT, "suspensionForceAppPointOffset"): "compliance",
    (P.ATTACHMENT, "tireForceAppPointOffset"): "compliance",
    (P.WHEEL, "maxBrakeTorque"): "brakes", (P.WHEEL, "maxHandBrakeTorque"): "brakes", (P.WHEEL, "maxSteerAngle"): "steer",
    (P.ATTACHMENT, "wheelCenterOfMassOffset"): "position", (P.ATTACHMENT, "driven"): "driven",
    (P.CONTROLLER, "brake"): "controller", (P.CONTROLLER, "handbrake"): "controller",
    (P.CONTROLLER, "steerLeft"): "controller", (P.CONTROLLER, "steerRight"): "controller",
}
# The parser's warnings that a sentinel sends it down a deprecated path, by code.
_SENTINEL_CODES = {"V18": "lateral", "V21": "longitudinal", "V23": "camberStiffness", "V76": "slip", "V37": "driven"}
# The tire stiffnesses that replace deprecated ones: group -> (replacement, deprecated attributes).
_TIRE = {"lateral": ("lateralStiffnessGraph", ("latStiffX", "latStiffY")),
         "longitudinal": ("longitudinalStiffness", ("longitudinalStiffnessPerUnitGravity",)),
         "camberStiffness": ("camberStiffness", ("camberStiffnessPerUnitGravity",))}
_COMPLIANCE_GRAPHS = ("wheelToeAngle", "wheelCamberAngle", "suspensionForceAppPoint", "tireForceAppPoint")
_AGREE = 1e-6
WHY = "deprecated: the same value on its replacement"


class NoRepair(Exception):
    """Why a migration has no unambiguous repair."""


def _same(values: list) -> bool:
    flat = [_flatten(v) for v in values]
    first = flat[0]
    return all(len(f) == len(first) and all(abs(a - b) <= _AGREE * max(abs(a), abs(b), 1e-30) or a == b
                                            for a, b in zip(f, first)) for f in flat[1:])


def _flatten(value) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    return [value]


class Upgrade:
    """The migrations of one stage: each deprecation finding's repair is its migration group's, on its prim."""

    def __init__(self, stage: Usd.Stage, description: StageDescription):
        self.stage, self.d = stage, description
        self.users: dict[str, list[tuple[VehicleDescription, WheelDescription]]] = defaultdict(list)
        for vehicle in description.vehicles.values():
            for wheel in vehicle.wheels:
                for path in {wheel.path, wheel.wheel.path, wheel.tire.path, wheel.suspension.path}:
                    self.users[path].append((vehicle, wheel))
        self._made: dict[tuple[str, str], tuple[Repair | None, str]] = {}

    def repair(self, f: Diagnostic) -> tuple[Repair | None, str]:
        if f.code == "DEPRECATED":
            row = _DEPRECATED.get(f.property or "")
            group = _GROUPS.get((row.schema, row.base)) if row is not None else None
        else:
            group = _SENTINEL_CODES[f.code]
        if group is None:
            return None, "no migration is known for this attribute"
        # the differential is the vehicle's: its attachments' findings and V37 share one repair
        owner = next((v.path for v, w in self.users.get(f.prim, []) if w.path == f.prim), f.prim)
        key = (group, owner if group == "driven" else f.prim)
        if key not in self._made:
            try:
                edits = list(dict.fromkeys(self._group_edits(group, key[1])))
                self._made[key] = (Repair(summary=self._summary(key[1], edits), edits=tuple(edits)), "")
            except NoRepair as why:
                self._made[key] = (None, str(why))
        return self._made[key]

    @staticmethod
    def _summary(prim: str, edits: list[Edit]) -> str:
        cleared = list(dict.fromkeys(e.property for e in edits if e.op == "clear_attribute"))
        written = list(dict.fromkeys(e.property or e.type_name for e in edits if e.op != "clear_attribute"))
        return (f"migrate {', '.join(cleared) or 'the deprecated path'} of {prim} to "
                f"{', '.join(written)} with the values the reader resolves (nothing that resolves changes)")

    def _group_edits(self, group: str, prim: str) -> list[Edit]:
        if group in _TIRE:
            return self._tire(prim, group)
        return {"axes": self._axes, "slip": self._slip, "travel": self._travel, "compliance": self._compliance_group,
                "position": self._position, "brakes": self._brakes, "steer": self._steer, "driven": self._driven,
                "controller": self._controller_group}[group](prim)

    # -- helpers --------------------------------------------------------------------------------------------

    def _authored(self, prim: str, name: str) -> bool:
        found = self.stage.GetPrimAtPath(prim)
        attr = found.GetAttribute(name) if found else None
        return bool(attr) and attr.IsAuthored()

    def _clear(self, prim: str, schema: str, *bases: str) -> list[Edit]:
        return [clear_schema_attribute(prim, schema, base, f"deprecated: replaced by {P.prop(schema, base).deprecated_by}")
                for base in bases if self._authored(prim, P.full_name(schema, base))]

    def _vehicle(self, path: str) -> VehicleDescription:
        vehicle = self.d.vehicles.get(path)
        if vehicle is None:
            raise NoRepair("the vehicle is left out of the description (errors above): repair those first")
        return vehicle

    def _wheel_users(self, prim: str) -> list[tuple[VehicleDescription, WheelDescription]]:
        users = self.users.get(prim)
        if not users:
            raise NoRepair("no vehicle of the description uses this prim (its vehicles have errors, or none uses it)")
        return users

    def _agreed(self, prim: str, values: list, what: str):
        if not _same(values):
            raise NoRepair(f"{prim} is shared by wheels whose {what} resolve to different values; give each its "
                           "own component first")
        return values[0]

    def _compliance(self, wheel: WheelDescription) -> list[Edit]:
        """The wheel's resolved compliance graphs, on its attachment (nothing where it applies the API already)."""
        prim = self.stage.GetPrimAtPath(wheel.path)
        if prim and prim.HasAPI(P.COMPLIANCE):
            return []
        why = "the compliance the reader derives from deprecated attributes, as authored graphs"
        edits = [apply_api(wheel.path, P.COMPLIANCE, why)]
        edits += [set_schema_attribute(wheel.path, P.COMPLIANCE, base, wheel.compliance[base], why)
                  for base in _COMPLIANCE_GRAPHS if wheel.compliance.get(base)]
        return edits

    def _sprung_masses(self, vehicle: VehicleDescription) -> list[Edit]:
        """The vehicle's computed sprung masses, written (a migration moves the points they were solved at)."""
        if all(w.suspension.source("sprungMass") == Source.AUTHORED for w in vehicle.wheels):
            return []
        by_suspension: dict[str, list[float]] = defaultdict(list)
        for w in vehicle.wheels:
            by_suspension[w.suspension.path].append(w.suspension["sprungMass"])
        why = "the sprung masses solved at the deprecated wheel centres, kept"
        return [set_schema_attribute(path, P.SUSPENSION, "sprungMass", self._agreed(path, masses, "sprung masses"), why)
                for path, masses in sorted(by_suspension.items())]

    @staticmethod
    def _moves_solve(vehicle: VehicleDescription, wheel: WheelDescription) -> bool:
        """Whether the suspension frame lies from the wheel centre off the vertical axis the sprung masses are
        solved across: the migrated position lies up the travel direction, and only the other two axes count."""
        direction = Gf.Vec3d(*wheel.attachment["suspensionTravelDirection"])
        if vehicle.vehicle.get("referenceFrameIsCenterOfMass") is False:
            axes = vehicle.rigidBody["principalAxes"]
            direction = Gf.Rotation(Gf.Quatd(axes[0], Gf.Vec3d(*axes[1:]))).GetInverse().TransformDir(direction)
        vertical = "XYZ".index(vehicle.context["verticalAxis"][-1])
        return any(abs(direction[i]) > 1e-6 * direction.GetLength() for i in range(3) if i != vertical)

    def _position_of(self, vehicle: VehicleDescription, wheel: WheelDescription) -> list[Edit]:
        if wheel.attachment.source("suspensionFramePosition") != Source.DEPRECATED:
            return []
        edits = [set_schema_attribute(wheel.path, P.ATTACHMENT, "suspensionFramePosition",
                                      wheel.attachment["suspensionFramePosition"], WHY)]
        edits += self._clear(wheel.path, P.ATTACHMENT, "wheelCenterOfMassOffset")
        if any(self._moves_solve(vehicle, w) for w in vehicle.wheels):
            edits += self._sprung_masses(vehicle)
        return edits

    def _no_response_woken(self, vehicle: VehicleDescription, instance: str, api: str) -> None:
        prim = self.stage.GetPrimAtPath(vehicle.path)
        if prim and prim.HasAPI(P.NCR, instance):
            raise NoRepair(f"applying {api} would make PhysX read the nonlinear command response {instance!r} it now "
                           "ignores")

    def _system(self, vehicle: VehicleDescription, schema: str, block, instance: str | None = None) -> list[Edit]:
        why = "the per-wheel deprecated values, as the vehicle's system the reader makes of them"
        return [apply_api(vehicle.path, schema, why, instance)] + [
            set_schema_attribute(vehicle.path, schema, base, item.value, why, instance)
            for base, item in sorted(block.public().items()) if P.is_schema_property(schema, base)]

    def _controller(self, vehicle: VehicleDescription, *bases: str) -> list[Edit]:
        if vehicle.controller is None:
            return []
        return [set_schema_attribute(vehicle.path, P.CONTROLLER, base, vehicle.controller[base],
                                     "the command the reader takes from the deprecated controller attributes")
                for base in bases if vehicle.controller.source(base) == Source.DEPRECATED]

    def _brake_systems(self, vehicle: VehicleDescription) -> list[Edit]:
        if not vehicle.brakes or any(b.source("maxBrakeTorque") != Source.DEPRECATED for b in vehicle.brakes.values()):
            return []
        edits = []
        for instance, block in sorted(vehicle.brakes.items()):
            self._no_response_woken(vehicle, instance, f"{P.BRAKES}:{instance}")
            edits += self._system(vehicle, P.BRAKES, block, instance)
        return edits + self._controller(vehicle, "brake0", "brake1")

    def _steering_system(self, vehicle: VehicleDescription) -> list[Edit]:
        if vehicle.steering is None or vehicle.steering.source("maxSteerAngle") != Source.DEPRECATED:
            return []
        self._no_response_woken(vehicle, "steer", P.STEERING)
        return self._system(vehicle, P.STEERING, vehicle.steering) + self._controller(vehicle, "steer")

    # -- the groups: prim -> edits ---------------------------------------------------------------------------

    def _axes(self, prim: str) -> list[Edit]:
        scene = self.d.scenes.get(prim)
        if scene is None or scene.context is None:
            raise NoRepair("the vehicle context is rejected (errors above): repair those first")
        edits = [set_schema_attribute(prim, P.CONTEXT, base, scene.context[base], WHY)
                 for base in ("verticalAxis", "longitudinalAxis") if scene.context.source(base) == Source.DEPRECATED]
        return edits + self._clear(prim, P.CONTEXT, "upAxis", "forwardAxis")

    def _slip(self, prim: str) -> list[Edit]:
        vehicle = self._vehicle(prim)
        base = "minPassiveLongitudinalSlipDenominator"
        return [set_schema_attribute(prim, P.VEHICLE, base, vehicle.vehicle[base], WHY)] + \
            self._clear(prim, P.VEHICLE, "minLongitudinalSlipDenominator")

    def _tire(self, prim: str, group: str) -> list[Edit]:
        base, old = _TIRE[group]
        value = self._agreed(prim, [w.tire[base] for _, w in self._wheel_users(prim)], base)
        return [set_schema_attribute(prim, P.TIRE, base, value, WHY)] + self._clear(prim, P.TIRE, *old)

    def _travel(self, prim: str) -> list[Edit]:
        users = self._wheel_users(prim)
        travel = self._agreed(prim, [w.suspension["travelDistance"] for _, w in users], "travel distances")
        edits = [set_schema_attribute(prim, P.SUSPENSION, "travelDistance", travel, WHY)]
        edits += self._clear(prim, P.SUSPENSION, "maxCompression", "maxDroop")
        for vehicle, wheel in users:
            edits += self._compliance(wheel) + self._position_of(vehicle, wheel)
        return edits

    def _compliance_group(self, prim: str) -> list[Edit]:
        edits = []
        for _, wheel in self._wheel_users(prim):
            edits += self._compliance(wheel)
        for schema, bases in ((P.SUSPENSION, ("camberAtRest", "camberAtMaxCompression", "camberAtMaxDroop")),
                              (P.WHEEL, ("toeAngle",)),
                              (P.ATTACHMENT, ("suspensionForceAppPointOffset", "tireForceAppPointOffset"))):
            prim_ = self.stage.GetPrimAtPath(prim)
            if prim_ and prim_.HasAPI(schema):
                edits += self._clear(prim, schema, *bases)
        return edits

    def _position(self, prim: str) -> list[Edit]:
        edits = []
        for vehicle, wheel in self._wheel_users(prim):
            if wheel.path == prim:
                edits += self._position_of(vehicle, wheel)
        return edits or self._clear(prim, P.ATTACHMENT, "wheelCenterOfMassOffset")

    def _brakes(self, prim: str) -> list[Edit]:
        edits = []
        for vehicle in {v.path: v for v, _ in self._wheel_users(prim)}.values():
            edits += self._brake_systems(vehicle)
        return edits + self._clear(prim, P.WHEEL, "maxBrakeTorque", "maxHandBrakeTorque")

    def _steer(self, prim: str) -> list[Edit]:
        edits = []
        for vehicle in {v.path: v for v, _ in self._wheel_users(prim)}.values():
            edits += self._steering_system(vehicle)
        return edits + self._clear(prim, P.WHEEL, "maxSteerAngle")

    def _driven(self, prim: str) -> list[Edit]:
        vehicle = self._vehicle(prim)
        edits = []
        diff = vehicle.multiWheelDifferential
        if diff is not None and diff.source("wheels") == Source.DEPRECATED:
            edits += self._system(vehicle, P.MULTI_DIFF, diff)
        for wheel in vehicle.wheels:
            edits += self._clear(wheel.path, P.ATTACHMENT, "driven")
        return edits

    def _controller_group(self, prim: str) -> list[Edit]:
        vehicle = self._vehicle(prim)
        found = self.stage.GetPrimAtPath(prim)
        for base in ("brake", "handbrake", "steerLeft", "steerRight"):
            attr = found.GetAttribute(P.full_name(P.CONTROLLER, base))
            if attr and attr.GetNumTimeSamples():
                raise NoRepair(f"{attr.GetName()} is time-sampled (a drive cycle): no one value replaces it")
        edits = self._brake_systems(vehicle) + self._steering_system(vehicle)
        return edits + self._clear(prim, P.CONTROLLER, "brake", "handbrake", "steerLeft", "steerRight")

