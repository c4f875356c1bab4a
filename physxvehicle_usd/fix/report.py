"""`fix` reports: text (a line per repair with its edits, a line per finding left) and JSON; and the exit code.

Exit codes as `validate`'s: 2 when a file cannot be read, 1 when errors are left that have no repair (warnings too
with strict), 0 otherwise. A dry run counts what the repairs would leave: the findings without one.
"""
from __future__ import annotations

import json

from ..diagnostics import Diagnostic, Severity
from .files import FileFix

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


def exit_code(results: list[FileFix], strict: bool = False) -> int:
    if any(r.status == "unreadable" for r in results):
        return EXIT_UNREADABLE
    failing = (Severity.ERROR, Severity.WARNING) if strict else (Severity.ERROR,)
    return EXIT_FINDINGS if any(p.finding.severity in failing for r in results for p in r.remaining) else EXIT_OK



def summary(results: list[FileFix]) -> dict:
    return {
        "files": len(results),
        "fixed": sum(r.status == "fixed" for r in results),
        "planned": sum(r.status == "planned" for r in results),
        "unchanged": sum(r.status == "unchanged" for r in results),
        "unreadable": sum(r.status == "unreadable" for r in results),
        "repairs": sum(len(r.repairs) for r in results),
        "edits": sum(r.edits() for r in results),
        "errors_left": sum(r.count(Severity.ERROR) for r in results),
        "warnings_left": sum(r.count(Severity.WARNING) for r in results),
    }


def _outcome(r: FileFix) -> str:
    n = f"{len(r.repairs)} repair{'s' * (len(r.repairs) != 1)}, {r.edits()} edit{'s' * (r.edits() != 1)}"
    if r.status == "fixed":
        return f"wrote {r.output} ({n})"
    if r.status == "planned":
        return f"would write {r.output} ({n}; dry run: nothing written)"
    return "nothing to repair: nothing written"


def _edit_lines(edits) -> list[str]:
    """An edit per line; its why where it differs from the line before's."""
    lines, why = [], None
    for edit in edits:
        line = edit.line()
        lines.append("    " + (line if edit.why != why else line[:-len(edit.why) - 3]))
        why = edit.why
    return lines


def text_report(results: list[FileFix], show_info: bool = False) -> str:
    lines = []
    for r in results:
        if r.status == "unreadable":
            lines.append(f"{r.file}: error UNREADABLE /: {r.message}")
            continue
        for made in r.repairs:
            codes = ", ".join(dict.fromkeys(f"{f.code} {f.where()}" for f in made.findings))
            lines.append(f"{r.file}: repair {codes}: {made.repair.summary}")
            lines.extend(_edit_lines(made.repair.edits))
        lines.append(f"{r.file}: {_outcome(r)}")
        for p in r.remaining:
            f = p.finding
            if f.severity == Severity.INFO and not show_info:
                continue
            why = p.why_not or ("repairable: run fix again" if f.fix is not None else "no repair: the author decides")
            lines.append(f"{r.file}: left {f.severity.value} {f.code} {f.where()}: {f.message} [{why}]")
    s = summary(results)
    lines.append(f"{s['files']} files: {s['fixed']} fixed, {s['planned']} planned, {s['unchanged']} unchanged, "
                 f"{s['unreadable']} unreadable; {s['repairs']} repairs ({s['edits']} edits); left: "
                 f"{s['errors_left']} errors, {s['warnings_left']} warnings")
    return "\n".join(lines) + "\n"


def _finding_json(f: Diagnostic) -> dict:
    return f.model_dump(mode="json", exclude={"file", "fix"})


def json_report(results: list[FileFix]) -> str:
    """{files: [{file, status, output, message, repairs: [{summary, edits, findings}], remaining: [finding + fix,
    why_not]}], summary}."""
    files = []
    for r in results:
        files.append({
            "file": r.file, "status": r.status, "output": r.output, "message": r.message,
            "repairs": [{**made.repair.model_dump(mode="json"), "findings": [_finding_json(f) for f in made.findings]}
                        for made in r.repairs],
            "remaining": [{**p.finding.model_dump(mode="json", exclude={"file"}), "why_not": p.why_not}
                          for p in r.remaining],
        })
    return json.dumps({"files": files, "summary": summary(results)}, indent=2, sort_keys=True) + "\n"


FORMATS = {"text": text_report, "json": json_report}
