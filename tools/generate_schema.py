#!/usr/bin/env python
"""Regenerate the schema plugin's resources from schema/schema.usda, and the vehicle properties' docs in it.

    python tools/generate_schema.py               # docs into schema/schema.usda, then physxvehicle_usd/resources/
    python tools/generate_schema.py --out DIR     # resources elsewhere, schema.usda untouched (the freshness test)
    python tools/generate_schema.py --check-docs  # exit 1 when schema.usda's property docs are not the table's

Each vehicle property's `doc` in schema.usda is written from its row of the property table
(physxvehicle_usd/properties.py): what it means (the row's notes), its unit, the parser's default, its
sentinel, its valid range and what replaces it when deprecated. usdGenSchema keeps only the first sentence of a
`doc` (as customData userDocBrief in generatedSchema.usda) but copies an authored userDocBrief whole: the same
text is authored as both, so the registered schema carries all of it.

Runs usd-core's own usdGenSchema (it needs jinja2, at generation time only) and then fills in the
plugInfo.json placeholders that a CMake build would normally substitute, so the folder can be
registered as a codeless resource plugin straight from the installed package.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCHEMA = REPO / "schema" / "schema.usda"
RESOURCES = REPO / "physxvehicle_usd" / "resources"
sys.path.insert(0, str(REPO))  # the property table, from this checkout

# What a CMake install would write for a resource-only plugin whose plugInfo.json sits in the
# resource folder itself.
PLUGINFO_SUBSTITUTIONS = {
    "@PLUG_INFO_RESOURCE_PATH@": ".",
    "@PLUG_INFO_ROOT@": ".",
}


def _value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "empty"
        inner = ", ".join(_value(v) for v in value)
        return f"({inner})" if not isinstance(value[0], (list, tuple)) else f"[{inner}]"
    return str(value)


def property_doc(prop) -> str:
    """A property's documentation from its table row."""
    from physxvehicle_usd import properties as P
    from physxvehicle_usd.units import NONE

    dims = P.dims_of(prop)
    scaled = any(d != NONE for d in dims) if isinstance(dims, tuple) and dims and isinstance(dims[0], tuple) \
        else dims != NONE
    notes = prop.notes.strip()  # what it means, then how the parser treats it, where the row says more than below
    parts = [notes]
    if prop.unit:
        unit = {"1": "unitless", "quat": "quaternion"}.get(prop.unit, prop.unit)
        parts.append(f"Unit: {unit}" + (" (SI; authored values are in the stage's units, metersPerUnit and "
                                          "kilogramsPerUnit)" if scaled else "") + ".")
    if prop.default is not None and "Resolves to:" not in notes:
        parts.append(f"Default (the parser's): {_value(prop.default)}"
                     + (" in SI, scaled to the stage's units" if scaled else "") + ".")
    if prop.sentinel is not None and "Sentinel:" not in notes:
        parts.append(f"Sentinel: {_value(prop.sentinel)} means not set (the parser resolves the value itself).")
    if prop.range is not None and "Valid range:" not in notes:
        parts.append(f"Valid range: {prop.range.describe()}.")
    if prop.range_code:
        parts.append(f"Out of range: error {prop.range_code}.")
    if prop.deprecated_by and "Deprecated:" not in notes:
        parts.append(f"Deprecated: use {prop.deprecated_by} instead.")
    return " ".join(p for p in parts if p)


def documented_schema(schema: Path = SCHEMA) -> str:
    """schema.usda's text with every vehicle property's doc (and userDocBrief) written from the property table."""
    from pxr import Sdf

    from physxvehicle_usd import properties as P

    layer = Sdf.Layer.OpenAsAnonymous(str(schema))
    for cls in layer.rootPrims:
        for spec in cls.properties:
            prop = P.TABLE_BY_KEY.get((cls.name, spec.name.rsplit(":", 1)[-1]))
            if prop is None:
                continue
            doc = property_doc(prop)
            spec.documentation = doc
            spec.customData["userDocBrief"] = doc
    return layer.ExportToString()


def generate(out: Path, schema: Path = SCHEMA) -> list[Path]:
    try:
        import jinja2  # noqa: F401 - usdGenSchema's templates; missing, it would end in a bare CalledProcessError
    except ImportError:
        sys.exit("tools/generate_schema.py: usd-core's usdGenSchema needs the Python package jinja2, which is not "
                 "installed here: pip install jinja2 (the dev extra has it: pip install -e '.[dev]')")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        ran = subprocess.run([sys.executable, "-m", "pxr.Usd.usdGenSchema", "--quiet", str(schema), tmp],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if ran.returncode != 0:
            said = ran.stderr.strip().splitlines()
            sys.exit(f"tools/generate_schema.py: usdGenSchema failed on {schema}: "
                     f"{said[-1] if said else f'exit code {ran.returncode}'}")
        written = []
        for name in ("generatedSchema.usda", "plugInfo.json"):
            text = (Path(tmp) / name).read_text()
            if name == "plugInfo.json":
                # A resource plugin has no library: drop that line instead of filling it in.
                lines = [line for line in text.splitlines(keepends=True) if "@PLUG_INFO_LIBRARY_PATH@" not in line]
                text = "".join(lines)
                for placeholder, value in PLUGINFO_SUBSTITUTIONS.items():
                    text = text.replace(placeholder, value)
            (out / name).write_text(text)
            written.append(out / name)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="write the resources here and leave schema.usda as it is")
    parser.add_argument("--check-docs", action="store_true", help="only check that schema.usda's docs are current")
    args = parser.parse_args()
    if args.check_docs:
        if documented_schema() != SCHEMA.read_text():
            sys.exit(f"{SCHEMA}: the property docs are not the property table's: run python tools/generate_schema.py")
        return
    if args.out is None:
        text = documented_schema()
        if text != SCHEMA.read_text():
            SCHEMA.write_text(text)
            print(f"wrote {SCHEMA}")
    for path in generate(args.out or RESOURCES):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
