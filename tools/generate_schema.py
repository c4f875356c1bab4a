#!/usr/bin/env python
"""Regenerate the schema plugin's resources from schema/schema.usda.

    python tools/generate_schema.py            # writes physxvehicle_usd/resources/
    python tools/generate_schema.py --out DIR  # writes elsewhere (the freshness test does this)

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

# What a CMake install would write for a resource-only plugin whose plugInfo.json sits in the
# resource folder itself.
PLUGINFO_SUBSTITUTIONS = {
    "@PLUG_INFO_RESOURCE_PATH@": ".",
    "@PLUG_INFO_ROOT@": ".",
}


def generate(out: Path, schema: Path = SCHEMA) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pxr.Usd.usdGenSchema", "--quiet", str(schema), tmp],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
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
    parser.add_argument("--out", type=Path, default=RESOURCES)
    args = parser.parse_args()
    for path in generate(args.out):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
