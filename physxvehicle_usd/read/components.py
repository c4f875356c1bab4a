"""Parsing of the vehicle components that do not depend on the vehicle using them.

Each function reads one prim through the property table, records diagnostics (codes V01-V142 of
shared/spec/vehicle_parse_rules.md, section 3), and returns a Block of resolved values, or None when the
component is invalid (an error was reported). Values that need the owning vehicle (rest loads, sprung
masses, stiffness from per-unit-gravity values) are resolved in vehicle.py.
"""
from __future__ import annotations

import math
import operator

from pxr import Usd, UsdPhysics

from .. import properties as P
from ..description import Block, Source
from ..diagnostics import DiagnosticSink
from ..units import StageUnits
from .values import ComponentReader

AXIS_TOKENS = ("posX", "negX", "posY", "negY", "posZ", "negZ")


def _strictly_increasing(xs) -> bool:
    return all(map(operator.lt, xs, xs[1:]))  # a < b for each neighbour pair, without a generator's overhead


def dominant_axis(vector) -> str:
    """The parser's mapping of a deprecated up/forward vector to an axis token."""
    ax, ay, az = (abs(c) for c in vector)
    index = 1 if ay > az else 2
    if not max(ay, az) > ax:
        index = 0
    sign = "pos" if vector[index] >= 0 else "neg"
    return sign + "XYZ"[index]


# -- context and friction tables ------------------------------------------------------------------------

def parse_context(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.CONTEXT, sink, units)
    block, ok = r.new_block(), True
    if not prim.IsA(UsdPhysics.Scene):
        sink.error("V01", r.path, "PhysxVehicleContextAPI must be applied to a PhysicsScene prim")
        return None  # the context is unusable whatever its attributes say: no findings about them
    mode = r.raw("updateMode")
    if mode.value not in ("velocityChange", "acceleration"):
        sink.warning("V02", r.path, f"update mode {mode.value!r} is not a known token; PhysX treats it as acceleration",
                     r.name("updateMode"))
    block.set("updateMode", "velocityChange" if mode.value == "velocityChange" else "acceleration", mode.source)
    axes = {}
    for base, deprecated in (("verticalAxis", "upAxis"), ("longitudinalAxis", "forwardAxis")):
        raw = r.raw(base)
        if raw.value in AXIS_TOKENS:
            block.set(base, raw.value, raw.source)
            axes[base] = raw.value
        elif raw.value in (None, "undefined"):
            old = r.raw(deprecated)
            if not old.has_value:
                sink.error("V04", r.path, f"{base} is undefined and the deprecated {deprecated} has no value", r.name(base))
                ok = False
                continue
            r.deprecated_warning(deprecated, r.name(base))
            axes[base] = dominant_axis(old.value)
            block.set(base, axes[base], Source.DEPRECATED)
        else:
            sink.error("V03", r.path, f"invalid axis token {raw.value!r}", r.name(base))
            ok = False
    if len(axes) == 2 and axes["verticalAxis"][-1] == axes["longitudinalAxis"][-1]:
        sink.warning("V06", r.path, "vertical and longitudinal axes lie on the same axis", r.name("longitudinalAxis"))
    return block if ok else None


DEFAULT_CONTEXT = {"updateMode": "velocityChange", "verticalAxis": "posY", "longitudinalAxis": "posZ"}


def default_context_block(scene_path: str | None) -> Block:
    block = Block(schema_name=P.CONTEXT, path=scene_path)
    for base, value in DEFAULT_CONTEXT.items():
        block.set(base, value, Source.DEFAULT)
    return block


def parse_friction_table(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.TABLE, sink, units)
    block, ok = r.new_block(), True
    ok &= r.copy(block, "defaultFrictionValue")
    targets, authored = r.targets("groundMaterials")
    if authored and not targets:
        sink.error("V09", r.path, "groundMaterials is authored but lists no material", r.name("groundMaterials"))
        ok = False
    materials = []
    for target in targets:
        target_prim = prim.GetStage().GetPrimAtPath(target)
        if not target_prim:
            sink.error("V10", r.path, f"ground material {target} does not exist", r.name("groundMaterials"))
            ok = False
        elif not target_prim.HasAPI(UsdPhysics.MaterialAPI):
            sink.error("V11", r.path, f"ground material {target} has no PhysicsMaterialAPI", r.name("groundMaterials"))
            ok = False
        else:
            materials.append(target)
    values = r.raw("frictionValues")
    friction = list(values.value) if values.authored and values.value is not None else []
    if len(friction) != len(materials):
        sink.error("V12", r.path, f"{len(friction)} friction values for {len(materials)} ground materials",
                   r.name("frictionValues"))
        ok = False
    block.set("groundMaterials", materials, Source.AUTHORED if authored else Source.FALLBACK)
    block.set("frictionValues", friction, values.source)
    return block if ok else None


def default_friction_table(units: StageUnits) -> Block:
    """The friction table omni.physx gives a tire that names none (VehicleGenerator's built-in table): no ground
    material of its own, every ground at its defaultFrictionValue (the schema's fallback, 1)."""
    block = Block(schema_name=P.TABLE, path=None)
    block.set("defaultFrictionValue", P.si_to_stage(P.prop(P.TABLE, "defaultFrictionValue"),
                                                    P.schema_fallback(P.TABLE, "defaultFrictionValue"), units),
              Source.DEFAULT)
    block.set("groundMaterials", [], Source.DEFAULT)
    block.set("frictionValues", [], Source.DEFAULT)
    return block


# -- per-wheel components -------------------------------------------------------------------------------

def parse_wheel(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    """Wheel API. The deprecated brake/steer/toe values are kept as `_deprecated` extras for vehicle.py."""
    r = ComponentReader(prim, P.WHEEL, sink, units)
    block, ok = r.new_block(), True
    for base in ("radius", "width", "mass", "moi", "dampingRate"):
        ok &= r.copy(block, base, code="V14")
    # The parser accepts 0 for these (V14's range is [0, FLT_MAX)); a wheel is then no wheel: the simulation
    # divides by the radius (slip, tire torque) and by the moment of inertia (wheel spin).
    for base, what in (("radius", "a wheel of zero radius cannot roll: slip and tire torque divide by it"),
                       ("moi", ("a wheel with no moment of inertia spins up without limit: its angular "
                                "acceleration divides by it"))):
        if block.get(base) == 0:
            sink.error("WHEEL_ZERO", r.path, f"{base} is 0; PhysX's parser accepts it but {what}", r.name(base))
            ok = False
    for base in ("maxBrakeTorque", "maxHandBrakeTorque", "maxSteerAngle", "toeAngle"):
        raw = r.raw(base)
        if raw.has_value:
            r.deprecated_warning(base, P.prop(P.WHEEL, base).deprecated_by)
            ok &= r.check_range(base, raw.value)
            block.set(base, raw.value, Source.AUTHORED)
    return block if ok else None


def parse_tire(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    """Tire API with the deprecated stiffness paths left as per-unit-gravity values (see vehicle.resolve_tire)."""
    r = ComponentReader(prim, P.TIRE, sink, units)
    block, ok = r.new_block(), True
    graph = r.raw("lateralStiffnessGraph")
    gx, gy = graph.value if graph.has_value else (0.0, 0.0)
    if (gx, gy) != (0.0, 0.0):
        if gx < 0 or gy <= 0:
            sink.error("V17", r.path, f"lateral stiffness graph {(gx, gy)} needs x >= 0 and y > 0", r.name("lateralStiffnessGraph"))
            ok = False
        block.set("lateralStiffnessGraph", (gx, gy), graph.source)
    else:
        sink.warning("V18", r.path, "lateralStiffnessGraph is (0, 0): the deprecated latStiffX/latStiffY are used; "
                     "author lateralStiffnessGraph instead", r.name("lateralStiffnessGraph"))
        lx = r.raw("latStiffX")
        ly = r.raw("latStiffY")
        # V18 fires whether or not anything is authored; an authored deprecated attribute is named as well.
        for base, raw in (("latStiffX", lx), ("latStiffY", ly)):
            if raw.authored:
                r.deprecated_warning(base, r.name("lateralStiffnessGraph"))
        x = lx.value if lx.has_value else r.default("latStiffX")
        y = ly.value if ly.has_value else r.default("latStiffY")
        ok &= r.check_range("latStiffX", x) & r.check_range("latStiffY", y)
        block.set("_latStiffX", x, Source.DEPRECATED if lx.authored else Source.DEFAULT)
        block.set("_latStiffY", y, Source.DEPRECATED if ly.authored else Source.DEFAULT)
    # The parser's V21 message names lateralStiffnessGraph (a copy slip); ours names the right attribute.
    ok &= _stiffness_or_per_gravity(r, block, "longitudinalStiffness", "longitudinalStiffnessPerUnitGravity", "V21")
    ok &= _stiffness_or_per_gravity(r, block, "camberStiffness", "camberStiffnessPerUnitGravity", "V23")
    slip = r.raw("frictionVsSlipGraph")
    if slip.has_value:
        points = [tuple(p) for p in slip.value]
        if len(points) != 3:
            sink.error("V24", r.path, f"frictionVsSlipGraph needs exactly 3 points, has {len(points)}", r.name("frictionVsSlipGraph"))
            ok = False
        elif not _strictly_increasing([p[0] for p in points]):
            sink.error("V25", r.path, "frictionVsSlipGraph slips must be strictly increasing", r.name("frictionVsSlipGraph"))
            ok = False
        block.set("frictionVsSlipGraph", points, slip.source)
    else:
        block.set("frictionVsSlipGraph", [tuple(p) for p in r.default("frictionVsSlipGraph")], Source.DEFAULT)
    targets, authored = r.targets("frictionTable")
    table = None
    if len(targets) > 1:
        sink.error("V26", r.path, "frictionTable may have one target only", r.name("frictionTable"))
        ok = False
    elif targets:
        target = prim.GetStage().GetPrimAtPath(targets[0])
        if not target:
            sink.error("V26", r.path, f"friction table {targets[0]} does not exist", r.name("frictionTable"))
            ok = False
        elif target.GetTypeName() != P.TABLE:
            sink.error("V26", r.path, f"{targets[0]} is not a PhysxVehicleTireFrictionTable", r.name("frictionTable"))
            ok = False
        else:
            table = targets[0]
    block.set("frictionTable", table, Source.AUTHORED if authored else Source.DEFAULT)
    rest = r.raw("restLoad")
    block.set("restLoad", rest.value if rest.has_value else 0.0, rest.source)
    ok &= r.check_range("restLoad", rest.value if rest.has_value else 0.0)
    return block if ok else None


def _stiffness_or_per_gravity(r: ComponentReader, block: Block, base: str, per_g_base: str, code: str) -> bool:
    """A tire stiffness whose sentinel hands over to its deprecated per-unit-gravity twin (multiplied by |g|
    once the vehicle is known). The warning fires whenever the sentinel is in place, as the parser's does."""
    sentinel = P.prop(P.TIRE, base).sentinel
    raw = r.raw(base)
    if raw.has_value and raw.value != sentinel:
        block.set(base, raw.value, raw.source)
        return r.check_range(base, raw.value)
    r.sink.warning(code, r.path, f"{base} is {sentinel:g}: the deprecated {per_g_base} is used; author {base} instead",
                   r.name(base))
    per_g = r.raw(per_g_base)
    if per_g.authored:
        r.deprecated_warning(per_g_base, r.name(base))
    value = per_g.value if per_g.has_value else r.default(per_g_base)
    source = Source.DEPRECATED if per_g.authored else (Source.FALLBACK if per_g.has_value else Source.DEFAULT)
    block.set("_" + per_g_base, value, source)
    return r.check_range(per_g_base, value)


def parse_suspension(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    """Suspension API; travel distance and sprung mass may stay unresolved (`_maxCompression`, `_maxDroop`)."""
    r = ComponentReader(prim, P.SUSPENSION, sink, units)
    block, ok = r.new_block(), True
    ok &= r.copy(block, "springStrength", code="V28")
    ok &= r.copy(block, "springDamperRate", code="V28")
    travel = r.raw("travelDistance")
    if travel.has_value:
        block.set("travelDistance", travel.value, travel.source)
        ok &= r.check_range("travelDistance", travel.value)
    else:
        compression, droop = r.raw("maxCompression"), r.raw("maxDroop")
        if not compression.has_value:
            sink.error("V30", r.path, "neither travelDistance nor the deprecated maxCompression has a value", r.name("travelDistance"))
            ok = False
        else:
            r.deprecated_warning("maxCompression", r.name("travelDistance"))
            ok &= r.check_range("maxCompression", compression.value)
            block.set("_maxCompression", compression.value, Source.DEPRECATED)
        if not droop.has_value:
            sink.error("V31", r.path, "neither travelDistance nor the deprecated maxDroop has a value", r.name("travelDistance"))
            ok = False
        else:
            r.deprecated_warning("maxDroop", r.name("travelDistance"))
            block.set("_maxDroop", droop.value, Source.DEPRECATED)
    sprung = r.raw("sprungMass")
    block.set("sprungMass", sprung.value if sprung.has_value else 0.0, sprung.source)
    ok &= r.check_range("sprungMass", sprung.value if sprung.has_value else 0.0)
    for base in ("camberAtRest", "camberAtMaxCompression", "camberAtMaxDroop"):
        raw = r.raw(base)
        if raw.has_value:
            r.deprecated_warning(base, P.prop(P.SUSPENSION, base).deprecated_by)
            ok &= r.check_range(base, raw.value)
            block.set("_" + base, raw.value, Source.DEPRECATED)
    return block if ok else None


def parse_compliance(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.COMPLIANCE, sink, units)
    block, ok = r.new_block(), True
    for base in ("wheelToeAngle", "wheelCamberAngle", "suspensionForceAppPoint", "tireForceAppPoint"):
        raw = r.raw(base)
        points = [tuple(p) for p in raw.value] if raw.has_value else []
        name = r.name(base)
        if len(points) > 3:
            sink.error("V43", r.path, f"at most 3 points, has {len(points)}", name)
            ok = False
        jounces = [p[0] for p in points]
        if any(not 0.0 <= j <= 1.0 for j in jounces):
            sink.error("V44", r.path, "jounce values must lie in [0, 1]", name)
            ok = False
        if not _strictly_increasing(jounces):
            sink.error("V45", r.path, "jounce values must be strictly increasing", name)
            ok = False
        if base in ("wheelToeAngle", "wheelCamberAngle") and any(abs(p[1]) > math.pi / 2 for p in points):
            # The schema documents [-pi, pi]; the parser checks pi/2, and we follow the parser.
            sink.error("V46", r.path, "angles must lie in [-pi/2, pi/2]", name)
            ok = False
        block.set(base, points, raw.source if raw.has_value else Source.FALLBACK)
    return block if ok else None


def parse_wheel_controller(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.WHEEL_CONTROLLER, sink, units)
    block, ok = r.new_block(), True
    for base in ("driveTorque", "brakeTorque", "steerAngle"):
        ok &= r.copy(block, base)
    return block if ok else None


# -- drive components -----------------------------------------------------------------------------------

def parse_engine(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.ENGINE, sink, units)
    block, ok = r.new_block(), True
    ok &= r.with_default(block, "moi")
    for base in ("peakTorque", "dampingRateFullThrottle", "dampingRateZeroThrottleClutchEngaged",
                 "dampingRateZeroThrottleClutchDisengaged"):
        ok &= r.with_default(block, base)
    ok &= r.copy(block, "maxRotationSpeed")
    ok &= r.copy(block, "idleRotationSpeed")
    curve = r.raw("torqueCurve")
    if curve.has_value:
        points = [tuple(p) for p in curve.value]
        name = r.name("torqueCurve")
        if not points:
            sink.error("V50", r.path, "torque curve has no points", name)
            ok = False
        if len(points) > 8:
            sink.error("V51", r.path, f"torque curve has {len(points)} points; PhysX keeps the first 8", name)
            points = points[:8]
        xs = [p[0] for p in points]
        if points and (xs[0] < 0 or any(b < a for a, b in zip(xs, xs[1:])) or xs[-1] > 1):
            sink.error("V52", r.path, "torque curve speeds must be non-decreasing within [0, 1]", name)
            ok = False
        block.set("torqueCurve", points, curve.source)
    else:
        block.set("torqueCurve", [tuple(p) for p in r.default("torqueCurve")], Source.DEFAULT)
    return block if ok else None


def parse_gears(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.GEARS, sink, units)
    block, ok = r.new_block(), True
    ratios = r.raw("ratios")
    name = r.name("ratios")
    if ratios.has_value:
        values = list(ratios.value)
        if not values:
            sink.error("V53", r.path, "ratios is empty", name)
            ok = False
        elif len(values) > 31:
            sink.error("V54", r.path, f"{len(values)} ratios; at most 31 (1 reverse + 30 forward)", name)
            ok = False
        else:
            if values[0] >= 0:
                sink.error("V55", r.path, "the first ratio (reverse) must be negative", name)
                ok = False
            forward = values[1:]
            if any(x <= 0 for x in forward) or any(b >= a for a, b in zip(forward, forward[1:])):
                sink.error("V56", r.path, "forward ratios must be positive and strictly decreasing", name)
                ok = False
        block.set("ratios", values, ratios.source)
    else:
        block.set("ratios", list(r.default("ratios")), Source.DEFAULT)
    ok &= r.with_default(block, "ratioScale")
    ok &= r.with_default(block, "switchTime")
    return block if ok else None


def parse_autobox(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits, gear_ratio_count: int) -> Block | None:
    r = ComponentReader(prim, P.AUTOBOX, sink, units)
    block, ok = r.new_block(), True
    forward = max(gear_ratio_count - 1, 0)
    expected = max(forward - 1, 0)
    for base in ("upRatios", "downRatios"):
        raw = r.raw(base)
        name = r.name(base)
        if raw.has_value:
            values = list(raw.value)
            if len(values) < expected:
                sink.error("V58", r.path, f"{len(values)} entries, the gears need {expected}", name)
                ok = False
            elif len(values) > expected:
                sink.warning("V59", r.path, f"{len(values)} entries, the gears use only the first {expected}", name)
            if any(v < 0 for v in values[:expected]):
                sink.error("V60", r.path, "ratios must not be negative", name)
                ok = False
            block.set(base, values[:expected], raw.source)
        else:
            block.set(base, [r.default(base)] * expected, Source.DEFAULT)
    ok &= r.with_default(block, "latency")
    return block if ok else None


def parse_clutch(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.CLUTCH, sink, units)
    block = r.new_block()
    return block if r.with_default(block, "strength") else None


def parse_drive_basic(prim: Usd.Prim, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.DRIVE_BASIC, sink, units)
    block = r.new_block()
    return block if r.with_default(block, "peakTorque") else None


def parse_ncr(prim: Usd.Prim, instance: str, sink: DiagnosticSink, units: StageUnits) -> Block | None:
    r = ComponentReader(prim, P.NCR, sink, units, instance=instance)
    block, ok = r.new_block(), True
    commands_raw = r.raw("commandValues")
    commands = list(commands_raw.value) if commands_raw.has_value else []
    starts_raw = r.raw("speedResponsesPerCommandValue")
    starts = list(starts_raw.value) if starts_raw.has_value else []
    responses_raw = r.raw("speedResponses")
    responses = [tuple(p) for p in responses_raw.value] if responses_raw.has_value else []
    if len(commands) > 8:
        sink.error("V120", r.path, f"{len(commands)} command values; at most 8", r.name("commandValues"))
        ok = False
    if any(not 0.0 <= c <= 1.0 for c in commands):
        sink.error("V121", r.path, "command values must lie in [0, 1]", r.name("commandValues"))
        ok = False
    if not _strictly_increasing(commands):
        sink.error("V122", r.path, "command values must be strictly increasing", r.name("commandValues"))
        ok = False
    if starts_raw.authored and len(starts) != len(commands):
        sink.error("V123", r.path, "needs one entry per command value", r.name("speedResponsesPerCommandValue"))
        ok = False
    if len(responses) > 64:
        sink.error("V124", r.path, f"{len(responses)} speed responses; at most 64", r.name("speedResponses"))
        ok = False
    if any(not 0 <= s < len(responses) for s in starts):
        sink.error("V125", r.path, "start indices must point into speedResponses", r.name("speedResponsesPerCommandValue"))
        ok = False
    if not _strictly_increasing(starts):
        sink.error("V126", r.path, "start indices must be strictly increasing", r.name("speedResponsesPerCommandValue"))
        ok = False
    if any(not 0.0 <= p[1] <= 1.0 for p in responses):
        sink.error("V127", r.path, "responses must lie in [0, 1]", r.name("speedResponses"))
        ok = False
    # The parser checks speed order for the first graph only (section 7 of the parse rules); so do we, and we
    # warn about the later graphs the parser leaves unchecked.
    bounds = list(starts) + [len(responses)]
    for k in range(len(starts)):
        speeds = [p[0] for p in responses[bounds[k]:bounds[k + 1]]]
        if not _strictly_increasing(speeds):
            if k == 0:
                sink.error("V128", r.path, "speeds of graph 0 must be strictly increasing", r.name("speedResponses"))
                ok = False
            else:
                sink.warning("V128", r.path, f"speeds of graph {k} are not strictly increasing (PhysX does not check "
                             "graphs after the first)", r.name("speedResponses"))
    block.set("commandValues", commands, commands_raw.source)
    block.set("speedResponsesPerCommandValue", starts, starts_raw.source)
    block.set("speedResponses", responses, responses_raw.source)
    return block if ok else None
