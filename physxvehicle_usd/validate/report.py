"""Validation reports: text, JSON, JUnit XML and GitHub workflow annotations; and the exit code.

Identical findings on prims that differ only by their vehicle (a fleet of referenced copies of one asset with one
broken wheel) are reported once: a `FindingGroup` holds the first finding, how many there are and on which prims.
The text and GitHub reports name the first few prims and the count; JSON gives the count and every prim; JUnit
puts the group in one test case for all the vehicles it concerns.
"""
from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from ..diagnostics import Diagnostic, Severity
from . import FileResult

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2
SHOWN_PRIMS = 3   # the text and GitHub reports name this many prims of a group, then "and N more"


@dataclass(frozen=True)
class FindingGroup:
    finding: Diagnostic          # the first of the group, as found
    prims: tuple[str, ...]       # every prim it was found on, in the order found (the first is finding.prim)
    vehicles: tuple[str | None, ...]  # the vehicle of each prim (None: the prim belongs to no vehicle)

    @property
    def count(self) -> int:
        return len(self.prims)

    def prims_text(self) -> str:
        """'' for a single finding; else ' (on 50 prims: /A/W, /B/W, /C/W and 47 more)'."""
        if self.count == 1:
            return ""
        shown = ", ".join(self.prims[:SHOWN_PRIMS])
        more = self.count - min(self.count, SHOWN_PRIMS)
        return f" (on {self.count} prims: {shown}{f' and {more} more' if more else ''})"


def _owner(prim: str, vehicles: set[str]) -> str | None:
    """The vehicle that `prim` is, or lies under (None: none)."""
    path = prim
    while path:
        if path in vehicles:
            return path
        cut = path.rfind("/")
        if cut <= 0:
            return None
        path = path[:cut]
    return None


def _without(vehicle: str, message: str) -> str:
    """The message with the vehicle's own path taken out, so that copies of a vehicle say the same thing."""
    if vehicle not in message:
        return message
    return re.sub(re.escape(vehicle) + r"(?![\w])", "\0", message)


def group_findings(result: FileResult) -> list[FindingGroup]:
    """The file's findings grouped: same severity, code, property and message, on prims that are the same prim of
    different vehicles (a vehicle's own path in the message does not count). In the order first found."""
    vehicles = set(result.vehicles)
    groups: dict[tuple, tuple[Diagnostic, list[str], list[str | None]]] = {}
    for f in result.findings:
        owner = _owner(f.prim, vehicles)
        if owner is None:
            key = (f.severity, f.code, f.property, f.prim, f.message)
        else:
            key = (f.severity, f.code, f.property, "\0" + f.prim[len(owner):], _without(owner, f.message))
        group = groups.get(key)
        if group is None:
            groups[key] = (f, [f.prim], [owner])
        else:
            group[1].append(f.prim)
            group[2].append(owner)
    return [FindingGroup(first, tuple(prims), tuple(owners)) for first, prims, owners in groups.values()]


def exit_code(results: list[FileResult], strict: bool = False) -> int:
    if any(r.status == "unreadable" for r in results):
        return EXIT_UNREADABLE
    failing = (Severity.ERROR, Severity.WARNING) if strict else (Severity.ERROR,)
    return EXIT_FINDINGS if any(f.severity in failing for r in results for f in r.findings) else EXIT_OK



def summary(results: list[FileResult]) -> dict:
    return {
        "files": len(results),
        "unreadable": sum(r.status == "unreadable" for r in results),
        "errors": sum(r.count(Severity.ERROR) for r in results),
        "warnings": sum(r.count(Severity.WARNING) for r in results),
        "vehicles": sum(len(r.vehicles) for r in results),
    }


def text_report(results: list[FileResult], show_info: bool = False) -> str:
    """A line per finding (a group of identical findings: one line naming the first few prims and the count) and a
    summary line counting every finding."""
    lines = []
    for r in results:
        if r.status == "unreadable":
            lines.append(f"{r.file}: error UNREADABLE /: {r.message}")
            continue
        for g in group_findings(r):
            f = g.finding
            if f.severity == Severity.INFO and not show_info:
                continue
            lines.append(f"{r.file}: {f.severity.value} {f.code} {f.where()}: {f.message}{g.prims_text()}")
    s = summary(results)
    lines.append(f"{s['files']} files, {s['vehicles']} vehicles: {s['errors']} errors, {s['warnings']} warnings, "
                 f"{s['unreadable']} unreadable")
    return "\n".join(lines) + "\n"


def json_report(results: list[FileResult]) -> str:
    """{findings, files, summary}. A finding is a group: `prim` is its first prim, `prims` all of them, `count`
    how many (1 for a finding of its own); `fix` its repair (physxvehicle_usd.repairs.Repair as JSON: the first
    prim's, every copy's is the same on its own prim), or null."""
    findings = [{"file": r.file, **g.finding.model_dump(mode="json", exclude={"file"}), "count": g.count,
                 "prims": list(g.prims)} for r in results for g in group_findings(r)]
    findings += [{"file": r.file, "severity": "error", "code": "UNREADABLE", "prim": "/", "property": None,
                  "message": r.message, "fix": None, "count": 1, "prims": ["/"]}
                 for r in results if r.status == "unreadable"]
    files = [{"file": r.file, "status": r.status, "vehicles": r.vehicles, "errors": r.count(Severity.ERROR),
              "warnings": r.count(Severity.WARNING), "message": r.message} for r in results]
    return json.dumps({"findings": findings, "files": files, "summary": summary(results)}, indent=2, sort_keys=True) + "\n"


def _junit_cases(r: FileResult) -> dict[str, list[FindingGroup]]:
    """Test case name -> its finding groups: "<stage>" for what belongs to no vehicle, a vehicle's path for what
    concerns that vehicle alone, "V and N more vehicles" for a group found on several (those vehicles get no case
    of their own unless something concerns them alone)."""
    cases: dict[str, list[FindingGroup]] = {"<stage>": []}
    for vehicle in r.vehicles:
        cases[vehicle] = []
    shared: set[str] = set()
    for g in group_findings(r):
        owners = list(dict.fromkeys(g.vehicles))
        if len(owners) == 1:
            cases.setdefault(owners[0] or "<stage>", []).append(g)
            continue
        shared.update(owners)
        cases.setdefault(f"{owners[0]} and {len(owners) - 1} more vehicles", []).append(g)
    return {name: groups for name, groups in cases.items() if groups or name not in shared}


def junit_report(results: list[FileResult]) -> str:
    """One test suite per file; one test case per vehicle (vehicles sharing identical findings: one case for all)
    plus one for the stage; a failure per error (group)."""
    root = ET.Element("testsuites", name="physxvehicle-usd validate")
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=r.file)
        cases = _junit_cases(r)
        failures = 0
        for name, groups in cases.items():
            case = ET.SubElement(suite, "testcase", classname=r.file, name=name)
            if r.status == "unreadable" and name == "<stage>":
                ET.SubElement(case, "error", message=r.message or "unreadable", type="UNREADABLE").text = r.message
                failures += 1
            for g in groups:
                f = g.finding
                if f.severity == Severity.ERROR:
                    failure = ET.SubElement(case, "failure", message=f.message, type=f.code)
                    failure.text = f"{f.where()}: {f.message}{g.prims_text()}"
                    failures += 1
            warnings = [f"{g.finding.code} {g.finding.where()}: {g.finding.message}{g.prims_text()}"
                        for g in groups if g.finding.severity == Severity.WARNING]
            if warnings:
                ET.SubElement(case, "system-out").text = "\n".join(warnings)
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(failures))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_report(results: list[FileResult]) -> str:
    """GitHub Actions workflow commands: ::error / ::warning / ::notice with file and title; one per group."""
    lines = []
    for r in results:
        if r.status == "unreadable":
            lines.append(f"::error file={_escape_property(r.file)},title=UNREADABLE::{_escape_data(r.message or '')}")
        for g in group_findings(r):
            f = g.finding
            level = {"error": "error", "warning": "warning", "info": "notice"}[f.severity.value]
            title = _escape_property(f"{f.code} {f.where()}")
            lines.append(f"::{level} file={_escape_property(r.file)},title={title}::"
                         f"{_escape_data(f.message + g.prims_text())}")
    s = summary(results)
    lines.append(f"{s['files']} files: {s['errors']} errors, {s['warnings']} warnings, {s['unreadable']} unreadable")
    return "\n".join(lines) + "\n"


FORMATS = {"text": text_report, "json": json_report, "junit": junit_report, "github": github_report}
