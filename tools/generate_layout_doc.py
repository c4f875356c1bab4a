#!/usr/bin/env python
"""Regenerate the layout sketch in docs/description-layout.md from the description's record declarations.

    python tools/generate_layout_doc.py           # rewrites the text between the doc's layout markers
    python tools/generate_layout_doc.py --check   # exit 1 when the doc is stale (tests/test_convert_cli.py checks too)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "description-layout.md"
sys.path.insert(0, str(REPO))

from physxvehicle_usd.outputs.convert import with_layout_sketch  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the doc is current")
    args = parser.parse_args()
    text = DOC.read_text()
    current = with_layout_sketch(text)
    if args.check:
        if current != text:
            print(f"{DOC} is stale: run python tools/generate_layout_doc.py", file=sys.stderr)
            return 1
        return 0
    if current != text:
        DOC.write_text(current)
    return 0


if __name__ == "__main__":
    sys.exit(main())
