"""MkDocs hooks (mkdocs.yml `hooks:`): the reference tables the docs show are made from the code when the site is
built, so that they cannot drift from it.

A page asks for a table with a marker line:

    <!-- generated: properties -->     the property table, physxvehicle_usd/properties.py
    <!-- generated: rule-codes -->     every finding code, from the calls that report them (tools/rule_codes.py)
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))

import rule_codes  # noqa: E402 - tools/ is not a package


def _value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "inf" if value == math.inf else f"{value:g}"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(_value(v) for v in value) + ")"
    return str(value)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _usd_name(p) -> str:
    """A row's attribute name: from the registered schema, or PhysxRigidBodyAPI's and PhysxSceneAPI's namespaces for
    the rows read from NVIDIA's schema (which need not be registered), else the row's own key."""
    from physxvehicle_usd import properties as P

    if P.is_schema_property(p.schema, p.base):
        return P.full_name(p.schema, p.base)
    if p.default is not None and p.schema == P.RIGID_BODY:
        return P.physx_rigid_body_attribute(p.base)
    if p.default is not None and p.schema == P.SCENE:
        return P.physx_scene_attribute(p.base)
    return f"{p.schema}:{p.base}"


def properties_markdown() -> str:
    """One section per schema: each property's USD name, SI unit, sentinel, the parser's default (SI), accepted
    range, the code an out-of-range value gets, and what it means."""
    from physxvehicle_usd import properties as P

    sections = []
    for schema in dict.fromkeys(p.schema for p in P.TABLE_ROWS + P.DERIVED_ROWS):
        rows = [p for p in P.TABLE_ROWS + P.DERIVED_ROWS if p.schema == schema]
        lines = [f"### {schema}", "", "| property | unit | sentinel | default | range | code | notes |",
                 "| --- | --- | --- | --- | --- | --- | --- |"]
        for p in rows:
            name = _usd_name(p)
            valid = p.range.describe() if p.range else (" / ".join(p.tokens) if p.tokens else "")
            notes = p.notes + (f" Deprecated: use `{p.deprecated_by}`." if p.deprecated_by else "")
            lines.append(f"| `{name}` | {p.unit} | {_cell(_value(p.sentinel))} | {_cell(_value(p.default))} | "
                         f"{_cell(valid)} | {p.range_code} | {_cell(notes)} |")
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


def rule_codes_markdown() -> str:
    from physxvehicle_usd import properties as P
    from physxvehicle_usd.fix.plan import REPAIRED_CODES

    range_codes: dict[str, list[str]] = {}
    for p in P.TABLE_ROWS + P.DERIVED_ROWS:
        if p.range_code:
            range_codes.setdefault(p.range_code, []).append(_usd_name(p))
    return rule_codes.markdown_tables(range_codes, REPAIRED_CODES)


GENERATED = {"<!-- generated: properties -->": properties_markdown,
             "<!-- generated: rule-codes -->": rule_codes_markdown}


def on_page_markdown(markdown: str, **_) -> str:
    for marker, make in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown
