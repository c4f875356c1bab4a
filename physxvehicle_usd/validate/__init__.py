"""Validation of vehicle assets: the reader's parser rules plus asset-level checks, file by file.

    from physxvehicle_usd.validate import validate_paths
    results = validate_paths(["assets/"], jobs=4)
    results = validate_paths(["assets/"], profiles=["isaac-lab"])   # plus that runtime's checks (validate/profiles.py)

A file that cannot be opened is a result with status "unreadable" (exit code 2 at the CLI); the other
files are still checked. Nothing here raises for a bad input.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Sequence

from pxr import Usd

from ..diagnostics import Diagnostic, Severity
from ..errors import InputError
from ..stage.io import USD_EXTENSIONS
from .checks import asset_findings

__all__ = ["FileResult", "collect_files", "plan_stage", "unreadable", "validate_stage", "validate_file",
           "validate_paths"]


@dataclass
class FileResult:
    file: str
    status: str                                   # "ok" | "findings" | "unreadable"
    findings: list[Diagnostic] = field(default_factory=list)
    vehicles: list[str] = field(default_factory=list)
    message: str | None = None                    # why the file is unreadable

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)


def validate_stage(stage: Usd.Stage, profiles: Sequence[str] = ()) -> tuple[list[Diagnostic], list[str]]:
    """All findings for a stage (reader rules, then asset checks), each with its repair where it has one
    (physxvehicle_usd.fix), then the checks of the named profiles (validate/profiles.py), and the paths of every
    vehicle prim."""
    from ..read import read_stage

    description = read_stage(stage)
    findings = [p.finding for p in _planned(stage, description)]
    if profiles:
        from .profiles import with_profiles

        findings = with_profiles(stage, description, findings, profiles)
    return findings, _vehicle_paths(stage)


def plan_stage(stage: Usd.Stage) -> list:
    """validate_stage's findings as physxvehicle_usd.fix.plan.Planned records (each finding with its repair, or why
    it has none)."""
    from ..read import read_stage

    return _planned(stage, read_stage(stage))


def _planned(stage: Usd.Stage, description) -> list:
    from ..fix.plan import plan_repairs

    return plan_repairs(stage, description, list(description.diagnostics) + asset_findings(stage, description))


def _vehicle_paths(stage: Usd.Stage) -> list[str]:
    from .. import properties as P
    from ..read import pxr_unchecked as U  # the prims come from the traversal: no validity check needed

    return sorted(str(U.get_path(p)) for p in Usd.PrimRange.Stage(stage, Usd.TraverseInstanceProxies())
                  if U.has_api(p, P.VEHICLE))


def validate_file(path: str, profiles: Sequence[str] = ()) -> FileResult:
    from ..read import read_stage  # noqa: F401 - registers the plugin in worker processes too
    from ..stage.io import open_stage_with_warnings

    try:
        stage, warnings = open_stage_with_warnings(path)
    except InputError as exc:
        return FileResult(file=path, status="unreadable", message=str(exc))
    except Exception as exc:  # noqa: BLE001
        return FileResult(file=path, status="unreadable", message=f"{path}: {type(exc).__name__}: {exc}")
    unresolved = [Diagnostic(severity=Severity.ERROR, code="COMPOSITION", prim="/", message=w) for w in warnings]
    try:
        findings, vehicles = validate_stage(stage, profiles)
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        findings, vehicles = [Diagnostic(severity=Severity.ERROR, code="INTERNAL", prim="/",
                                         message=f"validation failed unexpectedly: {type(exc).__name__}: {exc}")], []
    findings = unresolved + findings
    status = "findings" if any(f.severity in (Severity.ERROR, Severity.WARNING) for f in findings) else "ok"
    return FileResult(file=path, status=status, findings=findings, vehicles=vehicles)


def collect_files(paths: Iterable[str]) -> tuple[list[str], list[FileResult]]:
    """Files to check (folders searched recursively for USD files, sorted) and results for missing paths and
    for folders holding no USD file."""
    files: list[str] = []
    missing: list[FileResult] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(str(p) for p in path.rglob("*") if p.suffix.lower() in USD_EXTENSIONS and p.is_file())
            if not found:  # a mistyped CI path must not pass as "0 files, no errors"
                missing.append(FileResult(file=str(path), status="unreadable", message=f"{path}: no USD files "
                                          f"({', '.join(sorted(USD_EXTENSIONS))}) in this folder"))
            files.extend(found)
        elif path.exists():
            files.append(str(path))
        else:
            missing.append(FileResult(file=str(path), status="unreadable", message=f"{path}: no such file or folder"))
    return files, missing


def unreadable(file: str, why: str) -> FileResult:
    """A file the per-file run could not check (its worker crashed, or an error validate_file did not expect): as
    validate_file's own failures to open it."""
    return FileResult(file=file, status="unreadable", message=why)


def validate_paths(paths: Iterable[str], jobs: int = 1,
                   progress: Callable[[FileResult], None] | None = None,
                   ray_address: str | None = None, profiles: Sequence[str] = (),
                   started: Callable[[int], None] | None = None) -> list[FileResult]:
    """Validate every file; `jobs` > 1 shares the work with that many processes in all (this one and jobs - 1
    workers); `ray_address` runs it on Ray instead ("local": a local instance; see physxvehicle_usd.on_ray).
    `profiles` adds the checks of those runtimes (validate/profiles.py; an unknown name is an InputError, raised
    before any file is read). Results keep the input order, and are the same whatever `jobs` or `ray_address` is
    (physxvehicle_usd.many_files). `started` is told how many files will be checked (`progress` then hears of each),
    before the first is."""
    from ..many_files import map_paths

    if profiles:
        from .profiles import profile_checks

        profile_checks(profiles)
    check = partial(validate_file, profiles=tuple(profiles)) if profiles else validate_file
    files, missing = collect_files(paths)
    return missing + list(map_paths(check, files, failed=unreadable, jobs=jobs, ray=ray_address, progress=progress,
                                    started=started))


def default_jobs() -> int:
    return max(1, (os.cpu_count() or 1))
