"""A corpus of hostile inputs, generated from the property table and the sample car, and the run that holds the
command line to them: no traceback, no internal error, and no silent acceptance (exit 0 with nothing said about
the value that was broken).

    python fuzz/hostile_corpus.py            # every case: validate, convert, inspect and simulate; a report
    python fuzz/hostile_corpus.py --every 5  # a fifth of them (tests/test_hostile_corpus.py runs such a subset)

Cases, each a copy of samples/car/car.usda with one thing broken:
- every vehicle property the sample car authors or could author (the property table's rows whose schema the car
  applies), set to a value of the wrong type, to NaN or infinity, and outside the parser's range where it has one;
- the stage's metadata (metersPerUnit, kilogramsPerUnit, upAxis) and the vehicle body's mass properties;
- unreadable files (garbage bytes, an empty file, a truncated crate file, a missing sublayer).
Expectation: a broken value is said (a finding that names its prim and property, or for metadata the stage), an
unreadable file exits 2 with a one-line message; nothing prints a traceback or an INTERNAL finding.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Callable

from pxr import Sdf, Usd, Vt

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from physxvehicle_usd import properties as P  # noqa: E402
from physxvehicle_usd.cli import main  # noqa: E402

CAR = REPO / "samples" / "car" / "car.usda"
COMMANDS = (("validate",), ("convert",), ("inspect",), ("simulate", "--steps", "5", "--dt", "0.016666667"))


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
    return property_cases() + stage_cases() + file_cases()


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
        if "INTERNAL" in text:
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
