"""A corpus of hostile inputs, generated from the property table and the sample car, and the run that holds the
command line to them: no traceback, no internal error, and no silent acceptance (exit 0 with nothing said about
the value that was broken).

    python fuzz/hostile_corpus.py            # every case: validate, convert (and --target physx34), inspect and
                                             # simulate; a report
    python fuzz/hostile_corpus.py --every 5  # a fifth of them (tests/test_hostile_corpus.py runs such a subset)

Cases, each a copy of samples/car/car.usda with one thing broken:
- every vehicle property the sample car authors or could author (the property table's rows whose schema the car
  applies), set to a value of the wrong type, to NaN or infinity, and outside the parser's range where it has one;
- the stage's metadata (metersPerUnit, kilogramsPerUnit, upAxis) and the vehicle body's mass properties;
- contact inputs: a collider added beside the car (a triangle mesh, a convex-hull mesh, a sphere, a capsule, a
  cylinder, a cube) or the car's own chassis box, its ground material and collision groups, with one value broken
  (non-finite or out-of-range mesh points and indices, bad face counts, hulls with no volume, NaN, zero or negative
  sizes, radii, heights and scales, NaN or out-of-range friction and restitution, unknown combine modes, offsets,
  groups filtering what is no group);
- unreadable files (garbage bytes, an empty file, a truncated crate file, a missing sublayer).
Expectation: a broken value is said (a finding that names its prim and property, or for metadata the stage), an
unreadable file exits 2 with a one-line message; nothing prints a traceback or an INTERNAL finding.
"""
from __future__ import annotations

import argparse
import math
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Callable

from pxr import Gf, Sdf, Usd

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from physxvehicle_usd import properties as P  # noqa: E402
from physxvehicle_usd.cli import main  # noqa: E402

CAR = REPO / "samples" / "car" / "car.usda"
COMMANDS = (("validate",), ("convert",), ("convert", "--target", "physx34"), ("inspect",),
            ("simulate", "--steps", "5", "--dt", "0.016666667"))


@dataclass(frozen=True)
class Case:
    name: str
    author: Callable[[Path], Path]   # writes the input into a folder, returns its path
    said: tuple[str, str | None] | None  # (prim, property) a finding must name; None: the file is unreadable (exit 2)


def _copy(folder: Path) -> Sdf.Layer:
    layer = Sdf.Layer.CreateNew(str(folder / "hostile.usda"))
    layer.TransferContent(Sdf.Layer.FindOrOpen(str(CAR)))
    return layer


def _set(layer: Sdf.Layer, prim: str, name: str, type_name: Sdf.ValueTypeName, value) -> None:
    spec = layer.GetPrimAtPath(prim)
    if name in spec.properties:
        spec.RemoveProperty(spec.properties[name])
    Sdf.AttributeSpec(spec, name, type_name).default = value


def _owners() -> dict[str, list[tuple[str, str | None]]]:
    """Schema -> (prim, instance) of the sample car that applies it (or is of that type)."""
    stage = Usd.Stage.Open(str(CAR))
    owners: dict[str, list[tuple[str, str | None]]] = {}
    for prim in stage.Traverse():
        for api in prim.GetAppliedSchemas():
            schema, _, instance = api.partition(":")
            owners.setdefault(schema, []).append((str(prim.GetPath()), instance or None))
        if prim.GetTypeName():
            owners.setdefault(str(prim.GetTypeName()), []).append((str(prim.GetPath()), None))
    return owners


def _hostile_values(row: P.Prop, type_name: Sdf.ValueTypeName) -> list[tuple[str, Sdf.ValueTypeName, object]]:
    """(label, type, value) of the hostile values for one property of this USD type."""
    string = ("string", Sdf.ValueTypeNames.String, "not a value")
    scalar = str(type_name.scalarType)
    if type_name.isArray:
        if scalar in ("float", "double"):
            return [string, ("nan element", type_name, type_name.type.pythonClass([math.nan]))]
        if scalar in ("float2", "float3", "float4", "quatf"):
            return [string]
        return [string]
    if scalar in ("float", "double"):
        values = [string, ("nan", type_name, math.nan), ("inf", type_name, math.inf)]
        if row.range is not None and row.range.lo > -math.inf and row.range.lo not in row.range.sentinels:
            below = row.range.lo - 1.0
            if below not in row.range.sentinels:
                values.append(("below range", type_name, below))
        return values
    if scalar in ("int", "uint", "int64"):
        values = [string]
        if row.range is not None and row.range.hi < math.inf:
            values.append(("above range", type_name, int(row.range.hi) + 1000))
        return values
    if scalar == "token":
        return [("bad token", type_name, "sideways")]
    if scalar == "bool":
        return [string]
    return [string]


def property_cases() -> list[Case]:
    owners, cases = _owners(), []
    for row in P.TABLE_ROWS:
        if row.schema not in owners or not P.is_schema_property(row.schema, row.base) or row.deprecated_by:
            continue
        prim, instance = owners[row.schema][0]
        name = P.full_name(row.schema, row.base, instance)
        definition = Usd.SchemaRegistry().FindAppliedAPIPrimDefinition(row.schema) or \
            Usd.SchemaRegistry().FindConcretePrimDefinition(row.schema)
        attr = definition.GetAttributeDefinition(P.full_name(row.schema, row.base))
        if not attr:
            continue  # a relationship
        for label, type_name, value in _hostile_values(row, attr.GetTypeName()):
            def author(folder: Path, prim=prim, name=name, type_name=type_name, value=value) -> Path:
                layer = _copy(folder)
                _set(layer, prim, name, type_name, value)
                layer.Save()
                return folder / "hostile.usda"
            cases.append(Case(f"{row.schema}.{row.base}: {label}", author, (prim, name)))
    return cases


def stage_cases() -> list[Case]:
    cases = []
    for key in ("metersPerUnit", "kilogramsPerUnit"):
        for label, value in (("zero", 0.0), ("negative", -1.0), ("nan", math.nan), ("inf", math.inf)):
            def author(folder: Path, key=key, value=value) -> Path:
                layer = _copy(folder)
                layer.pseudoRoot.SetInfo(key, value)
                layer.Save()
                return folder / "hostile.usda"
            cases.append(Case(f"stage {key}: {label}", author, ("", None)))

    def up_axis(folder: Path) -> Path:
        layer = _copy(folder)
        layer.pseudoRoot.SetInfo("upAxis", "W")
        layer.Save()
        return folder / "hostile.usda"
    cases.append(Case("stage upAxis: W", up_axis, ("", None)))
    for label, type_name, value in (("nan", Sdf.ValueTypeNames.Float, math.nan), ("-inf", Sdf.ValueTypeNames.Float, -math.inf),
                                    ("negative", Sdf.ValueTypeNames.Float, -1800.0),
                                    ("string", Sdf.ValueTypeNames.String, "heavy")):
        def author(folder: Path, type_name=type_name, value=value) -> Path:
            layer = _copy(folder)
            _set(layer, "/World/Car", "physics:mass", type_name, value)
            layer.Save()
            return folder / "hostile.usda"
        cases.append(Case(f"physics:mass: {label}", author, ("/World/Car", "physics:mass")))

    def inertia(folder: Path) -> Path:
        layer = _copy(folder)
        _set(layer, "/World/Car", "physics:diagonalInertia", Sdf.ValueTypeNames.Float3, (math.nan, 1.0, 1.0))
        layer.Save()
        return folder / "hostile.usda"
    cases.append(Case("physics:diagonalInertia: nan", inertia, ("/World/Car", "physics:diagonalInertia")))
    return cases


# The colliders a contact case adds to the sample car, each well formed but for the one value the case breaks: (kind,
# prim, USD type, attributes). Away from the car (x = 20 m): a static collider it does not reach in a few steps.
_FLOOR_POINTS = [(18.0, -2.0, 0.0), (22.0, -2.0, 0.0), (22.0, 2.0, 0.0), (18.0, 2.0, 0.0)]
_ROCK_POINTS = [(19.0, -1.0, 0.0), (21.0, -1.0, 0.0), (20.0, 1.0, 0.0), (20.0, 0.0, 1.0)]
_F3, _I, _D, _F, _T = (Sdf.ValueTypeNames.Point3fArray, Sdf.ValueTypeNames.IntArray, Sdf.ValueTypeNames.Double,
                       Sdf.ValueTypeNames.Float, Sdf.ValueTypeNames.Token)
_COLLIDERS = {
    # a triangle mesh (no approximation): PhysX's triangle mesh, met by the wheels' queries and the chassis
    "floor": ("/World/Floor", "Mesh", ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"],
              {"points": (_F3, _FLOOR_POINTS), "faceVertexIndices": (_I, [0, 1, 2, 0, 2, 3]),
               "faceVertexCounts": (_I, [3, 3]), "physics:approximation": (_T, "none")}),
    "rock": ("/World/Rock", "Mesh", ["PhysicsCollisionAPI", "PhysicsMeshCollisionAPI"],
             {"points": (_F3, _ROCK_POINTS), "faceVertexIndices": (_I, [0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 3]),
              "faceVertexCounts": (_I, [3, 3, 3, 3]), "physics:approximation": (_T, "convexHull")}),
    "ball": ("/World/Ball", "Sphere", ["PhysicsCollisionAPI"],
             {"radius": (_D, 0.5), "xformOp:translate": (Sdf.ValueTypeNames.Double3, (20.0, 5.0, 0.5)),
              "xformOpOrder": (Sdf.ValueTypeNames.TokenArray, ["xformOp:translate"])}),
    "post": ("/World/Post", "Capsule", ["PhysicsCollisionAPI"],
             {"radius": (_D, 0.2), "height": (_D, 1.0), "axis": (_T, "Z"),
              "xformOp:translate": (Sdf.ValueTypeNames.Double3, (20.0, -5.0, 0.7)),
              "xformOpOrder": (Sdf.ValueTypeNames.TokenArray, ["xformOp:translate"])}),
    "drum": ("/World/Drum", "Cylinder", ["PhysicsCollisionAPI"],
             {"radius": (_D, 0.4), "height": (_D, 1.0), "axis": (_T, "Z"),
              "xformOp:translate": (Sdf.ValueTypeNames.Double3, (24.0, 0.0, 0.5)),
              "xformOpOrder": (Sdf.ValueTypeNames.TokenArray, ["xformOp:translate"])}),
    "crate": ("/World/Crate", "Cube", ["PhysicsCollisionAPI"],
              {"size": (_D, 1.0), "xformOp:translate": (Sdf.ValueTypeNames.Double3, (20.0, 8.0, 0.5)),
               "xformOp:scale": (Sdf.ValueTypeNames.Float3, (1.0, 1.0, 1.0)),
               "xformOpOrder": (Sdf.ValueTypeNames.TokenArray, ["xformOp:translate", "xformOp:scale"])}),
}
CHASSIS = "/World/Car/ChassisCollision"
ASPHALT = "/World/Asphalt"
_NAN3 = (math.nan, 0.0, 0.0)


def _collider(layer: Sdf.Layer, name: str) -> str:
    """Adds one of _COLLIDERS to the layer; its prim path."""
    path, type_name, apis, attributes = _COLLIDERS[name]
    spec = Sdf.CreatePrimInLayer(layer, path)
    spec.specifier, spec.typeName = Sdf.SpecifierDef, type_name
    spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=apis))
    for attribute, (type_, value) in attributes.items():
        _set(layer, path, attribute, type_, value)
    return path


def _contact_case(name: str, collider: str | None, prim: str | None, attribute: str, type_name, value,
                  apis: tuple[str, ...] = ()) -> Case:
    """A case that adds `collider` (one of _COLLIDERS, or None: the sample's own prims) and sets `attribute` of `prim`
    (None: the collider's) to `value`, applying `apis` to that prim first."""
    def author(folder: Path) -> Path:
        layer = _copy(folder)
        target = _collider(layer, collider) if collider else prim
        target = prim or target
        if apis:
            spec = layer.GetPrimAtPath(target)
            listed = spec.GetInfo("apiSchemas").prependedItems if spec.HasInfo("apiSchemas") else []
            spec.SetInfo("apiSchemas", Sdf.TokenListOp.Create(prependedItems=[*listed, *apis]))
        if type_name is None:  # a relationship: its targets
            spec = layer.GetPrimAtPath(target)
            if attribute in spec.properties:
                spec.RemoveProperty(spec.properties[attribute])
            Sdf.RelationshipSpec(spec, attribute).targetPathList.explicitItems = [Sdf.Path(t) for t in value]
        else:
            _set(layer, target, attribute, type_name, value)
        layer.Save()
        return folder / "hostile.usda"
    where = prim or _COLLIDERS[collider][0]
    return Case(f"contact {name}", author, (where, attribute))


def contact_cases() -> list[Case]:
    """Hostile collider, mesh, material and collision-group values: each said with its prim and property."""
    inf, nan = math.inf, math.nan
    F3A, FL3 = Sdf.ValueTypeNames.Point3fArray, Sdf.ValueTypeNames.Float3
    c = _contact_case
    cases = [
        c("floor points: nan", "floor", None, "points", F3A, [_NAN3, *_FLOOR_POINTS[1:]]),
        c("floor points: inf", "floor", None, "points", F3A, [(inf, 0.0, 0.0), *_FLOOR_POINTS[1:]]),
        c("floor indices: negative", "floor", None, "faceVertexIndices", _I, [0, 1, 2, 0, 2, -3]),
        c("floor indices: out of range", "floor", None, "faceVertexIndices", _I, [0, 1, 2, 0, 2, 99]),
        c("floor counts: negative", "floor", None, "faceVertexCounts", _I, [3, -3]),
        c("floor counts: more than the indices", "floor", None, "faceVertexCounts", _I, [3, 3, 3]),
        c("floor counts: fewer than the indices", "floor", None, "faceVertexCounts", _I, [3]),
        c("floor counts: a face of two", "floor", None, "faceVertexCounts", _I, [2, 4]),
        c("floor points: none", "floor", None, "points", F3A, []),
        c("rock points: one point", "rock", None, "points", F3A, [(20.0, 0.0, 0.0)]),
        c("rock points: flat", "rock", None, "points", F3A, [(19.0, -1.0, 0.0), (21.0, -1.0, 0.0),
                                                                (20.0, 1.0, 0.0), (20.0, 0.0, 0.0)]),
        c("rock points: nan", "rock", None, "points", F3A, [_NAN3, *_ROCK_POINTS[1:]]),
        c("rock points: a line", "rock", None, "points", F3A, [(19.0, 0.0, 0.0), (20.0, 0.0, 0.0),
                                                                  (21.0, 0.0, 0.0), (22.0, 0.0, 0.0)]),
        c("rock indices: out of range", "rock", None, "faceVertexIndices", _I, [0, 2, 1, 0, 1, 3, 1, 2, 3, 2, 0, 99]),
        c("chassis size: nan", None, CHASSIS, "size", _D, nan),
        c("chassis size: zero", None, CHASSIS, "size", _D, 0.0),
        c("chassis size: negative", None, CHASSIS, "size", _D, -1.0),
        c("chassis size: inf", None, CHASSIS, "size", _D, inf),
        c("chassis scale: nan", None, CHASSIS, "xformOp:scale", FL3, (nan, 1.8, 1.0)),
        c("chassis scale: zero", None, CHASSIS, "xformOp:scale", FL3, (4.4, 0.0, 1.0)),
        c("chassis scale: negative", None, CHASSIS, "xformOp:scale", FL3, (4.4, -1.8, 1.0)),
        c("chassis translate: nan", None, CHASSIS, "xformOp:translate", FL3, (nan, 0.0, 0.25)),
        c("crate size: nan", "crate", None, "size", _D, nan),
        c("crate scale: inf", "crate", None, "xformOp:scale", FL3, (1.0, inf, 1.0)),
        c("ball radius: nan", "ball", None, "radius", _D, nan),
        c("ball radius: zero", "ball", None, "radius", _D, 0.0),
        c("ball radius: negative", "ball", None, "radius", _D, -0.5),
        c("ball radius: inf", "ball", None, "radius", _D, inf),
        c("post height: nan", "post", None, "height", _D, nan),
        c("post height: negative", "post", None, "height", _D, -1.0),
        c("post radius: nan", "post", None, "radius", _D, nan),
        c("drum radius: nan", "drum", None, "radius", _D, nan),
        c("drum height: zero", "drum", None, "height", _D, 0.0),
        c("asphalt staticFriction: nan", None, ASPHALT, "physics:staticFriction", _F, nan),
        c("asphalt staticFriction: negative", None, ASPHALT, "physics:staticFriction", _F, -0.9),
        c("asphalt staticFriction: inf", None, ASPHALT, "physics:staticFriction", _F, inf),
        c("asphalt dynamicFriction: nan", None, ASPHALT, "physics:dynamicFriction", _F, nan),
        c("asphalt dynamicFriction: negative", None, ASPHALT, "physics:dynamicFriction", _F, -0.8),
        c("asphalt restitution: nan", None, ASPHALT, "physics:restitution", _F, nan),
        c("asphalt restitution: negative", None, ASPHALT, "physics:restitution", _F, -0.5),
        c("asphalt restitution: above one", None, ASPHALT, "physics:restitution", _F, 1.5),
        c("asphalt density: nan", None, ASPHALT, "physics:density", _F, nan),
        c("asphalt frictionCombineMode: unknown", None, ASPHALT, "physxMaterial:frictionCombineMode", _T, "sideways",
          ("PhysxMaterialAPI",)),
        c("asphalt restitutionCombineMode: unknown", None, ASPHALT, "physxMaterial:restitutionCombineMode", _T,
          "sideways", ("PhysxMaterialAPI",)),
        c("chassis contactOffset: nan", None, CHASSIS, "physxCollision:contactOffset", _F, nan, ("PhysxCollisionAPI",)),
        c("chassis restOffset: nan", None, CHASSIS, "physxCollision:restOffset", _F, nan, ("PhysxCollisionAPI",)),
        c("chassis restOffset: inf", None, CHASSIS, "physxCollision:restOffset", _F, inf, ("PhysxCollisionAPI",)),
        c("post axis: W", "post", None, "axis", _T, "W"),
        c("rock approximation: unknown", "rock", None, "physics:approximation", _T, "sideways"),
        c("floor points: string", "floor", None, "points", Sdf.ValueTypeNames.String, "points"),
        c("floor indices: floats", "floor", None, "faceVertexIndices", Sdf.ValueTypeNames.FloatArray,
          [0.0, 1.0, 2.0, 0.0, 2.0, 3.0]),
        c("chassis size: string", None, CHASSIS, "size", Sdf.ValueTypeNames.String, "big"),
        c("asphalt staticFriction: string", None, ASPHALT, "physics:staticFriction", Sdf.ValueTypeNames.String,
          "grippy"),
        c("chassis group: inverted is a string", None, "/World/Car/ChassisGroup", "physics:invertFilteredGroups",
          Sdf.ValueTypeNames.String, "yes"),
        c("chassis group: filters a prim that is no group", None, "/World/Car/ChassisGroup", "physics:filteredGroups",
          None, ["/World/Car/FrontLeftWheel"]),
        c("chassis group: filters a prim that is not there", None, "/World/Car/ChassisGroup",
          "physics:filteredGroups", None, ["/World/Nowhere"]),
    ]

    def mirrored(folder: Path) -> Path:  # a transform op whose matrix mirrors the crate (no scale op says so)
        layer = _copy(folder)
        path = _collider(layer, "crate")
        _set(layer, path, "xformOp:transform", Sdf.ValueTypeNames.Matrix4d,
             Gf.Matrix4d(1, 0, 0, 0, 0, -1, 0, 0, 0, 0, 1, 0, 20, 8, 0.5, 1))
        _set(layer, path, "xformOpOrder", Sdf.ValueTypeNames.TokenArray, ["xformOp:transform"])
        layer.Save()
        return folder / "hostile.usda"
    cases.append(Case("contact crate transform: a mirror", mirrored, (_COLLIDERS["crate"][0], None)))
    return cases


def file_cases() -> list[Case]:
    def garbage(folder: Path) -> Path:
        path = folder / "garbage.usda"
        path.write_bytes(bytes(range(256)) * 16)
        return path

    def empty(folder: Path) -> Path:
        path = folder / "empty.usda"
        path.write_bytes(b"")
        return path

    def truncated(folder: Path) -> Path:
        path = folder / "truncated.usdc"
        Usd.Stage.Open(str(CAR)).Export(str(path))
        path.write_bytes(path.read_bytes()[:1000])
        return path

    def missing_sublayer(folder: Path) -> Path:
        path = folder / "missing_sublayer.usda"
        path.write_text("#usda 1.0\n(\n    subLayers = [@./nowhere/car.usda@]\n)\n")
        return path
    return [Case(f"file: {f.__name__}", f, None) for f in (garbage, empty, truncated, missing_sublayer)]


def all_cases() -> list[Case]:
    return property_cases() + stage_cases() + contact_cases() + file_cases()


def _run(*args: str) -> tuple[int, str]:
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as done:
            code = 0 if done.code is None else (done.code if isinstance(done.code, int) else 1)
        except BaseException as exc:  # noqa: BLE001 - an escaped exception is exactly what this run looks for
            return -1, f"Traceback: {type(exc).__name__}: {exc}"
    return code, out.getvalue() + err.getvalue()


def check(case: Case, folder: Path) -> list[str]:
    """What is wrong with how the command line handled this case (empty: nothing)."""
    path = case.author(folder)
    problems = []
    for command in COMMANDS:
        code, text = _run(*command[:1], str(path), *command[1:])
        if "Traceback" in text or code not in (0, 1, 2):
            problems.append(f"{command[0]}: traceback or exit {code}: {text[-300:]}")
        if "INTERNAL" in text or "internal error" in text.lower():
            problems.append(f"{command[0]}: internal error: {text[-300:]}")
        if command[0] != "validate":
            continue
        if case.said is None:
            if code != 2:
                problems.append(f"validate: exit {code} for an unreadable file (expected 2)")
            continue
        prim, prop = case.said
        said = [line for line in text.splitlines() if (" error " in line or " warning " in line)
                and (not prim or f" {prim}" in line) and (prop is None or prop in line)]
        if not said:
            problems.append(f"validate: exit {code}, nothing said about {prim or 'the stage'} {prop or ''}".rstrip())
    return problems


def run(cases: list[Case], report: Callable[[str], None] = print) -> dict[str, list[str]]:
    failures = {}
    for case in cases:
        with tempfile.TemporaryDirectory() as folder:
            problems = check(case, Path(folder))
        if problems:
            failures[case.name] = problems
            report(f"FAIL {case.name}: " + "; ".join(problems))
    return failures


def main_cli() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=int, default=1, help="run every Nth case (default: all)")
    args = parser.parse_args()
    cases = all_cases()[:: args.every]
    failures = run(cases)
    print(f"{len(cases)} hostile inputs, {len(cases) * len(COMMANDS)} runs: {len(failures)} with problems "
          f"(tracebacks, internal errors, silent acceptances)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main_cli())
