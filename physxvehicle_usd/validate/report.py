"""Validation reports: text, JSON, JUnit XML and GitHub workflow annotations; and the exit code."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from ..diagnostics import Diagnostic, Severity
from . import FileResult

EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2


def exit_code(results: list[FileResult], strict: bool = False) -> int:
    if any(r.status == "unreadable" for r in results):
        return EXIT_UNREADABLE
    failing = (Severity.ERROR, Severity.WARNING) if strict else (Severity.ERROR,)
    return EXIT_FINDINGS if any(f.severity in failing for r in results for f in r.findings) else EXIT_OK


def _where(f: Diagnostic) -> str:
    return f.prim + (f".{f.property}" if f.property else "")


def summary(results: list[FileResult]) -> dict:
    return {
        "files": len(results),
        "unreadable": sum(r.status == "unreadable" for r in results),
        "errors": sum(r.count(Severity.ERROR) for r in results),
        "warnings": sum(r.count(Severity.WARNING) for r in results),
        "vehicles": sum(len(r.vehicles) for r in results),
    }


def text_report(results: list[FileResult], show_info: bool = False) -> str:
    lines = []
    for r in results:
        if r.status == "unreadable":
            lines.append(f"{r.file}: error UNREADABLE /: {r.message}")
            continue
        for f in r.findings:
            if f.severity == Severity.INFO and not show_info:
                continue
            lines.append(f"{r.file}: {f.severity.value} {f.code} {_where(f)}: {f.message}")
    s = summary(results)
    lines.append(f"{s['files']} files, {s['vehicles']} vehicles: {s['errors']} errors, {s['warnings']} warnings, "
                 f"{s['unreadable']} unreadable")
    return "\n".join(lines) + "\n"


def json_report(results: list[FileResult]) -> str:
    findings = [{"file": r.file, **f.model_dump(mode="json", exclude={"file"})} for r in results for f in r.findings]
    findings += [{"file": r.file, "severity": "error", "code": "UNREADABLE", "prim": "/", "property": None,
                  "message": r.message} for r in results if r.status == "unreadable"]
    files = [{"file": r.file, "status": r.status, "vehicles": r.vehicles, "errors": r.count(Severity.ERROR),
              "warnings": r.count(Severity.WARNING), "message": r.message} for r in results]
    return json.dumps({"findings": findings, "files": files, "summary": summary(results)}, indent=2, sort_keys=True) + "\n"


def junit_report(results: list[FileResult]) -> str:
    """One test suite per file; one test case per vehicle plus one for the stage; a failure per error."""
    root = ET.Element("testsuites", name="physxvehicle-usd validate")
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=r.file)
        cases: dict[str, list[Diagnostic]] = {"<stage>": []}
        for vehicle in r.vehicles:
            cases[vehicle] = []
        for f in r.findings:
            owner = next((v for v in r.vehicles if f.prim == v or f.prim.startswith(v + "/")), "<stage>")
            cases[owner].append(f)
        failures = 0
        for name, findings in cases.items():
            case = ET.SubElement(suite, "testcase", classname=r.file, name=name)
            if r.status == "unreadable" and name == "<stage>":
                ET.SubElement(case, "error", message=r.message or "unreadable", type="UNREADABLE").text = r.message
                failures += 1
            for f in findings:
                if f.severity == Severity.ERROR:
                    failure = ET.SubElement(case, "failure", message=f.message, type=f.code)
                    failure.text = f"{_where(f)}: {f.message}"
                    failures += 1
            warnings = [f"{f.code} {_where(f)}: {f.message}" for f in findings if f.severity == Severity.WARNING]
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
    """GitHub Actions workflow commands: ::error / ::warning / ::notice with file and title."""
    lines = []
    for r in results:
        if r.status == "unreadable":
            lines.append(f"::error file={_escape_property(r.file)},title=UNREADABLE::{_escape_data(r.message or '')}")
        for f in r.findings:
            level = {"error": "error", "warning": "warning", "info": "notice"}[f.severity.value]
            title = _escape_property(f"{f.code} {_where(f)}")
            lines.append(f"::{level} file={_escape_property(r.file)},title={title}::{_escape_data(f.message)}")
    s = summary(results)
    lines.append(f"{s['files']} files: {s['errors']} errors, {s['warnings']} warnings, {s['unreadable']} unreadable")
    return "\n".join(lines) + "\n"


FORMATS = {"text": text_report, "json": json_report, "junit": junit_report, "github": github_report}
