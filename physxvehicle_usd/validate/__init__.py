"""Validation of vehicle assets: the reader's parser rules plus asset-level checks, file by file.

    from physxvehicle_usd.validate import validate_paths
    results = validate_paths(["assets/"], jobs=4)
    results = validate_paths(["assets/"], profiles=["isaac-lab"])   # plus that runtime's checks (validate/profiles.py)

A file that cannot be opened is a result with status "unreadable" (exit code 2 at the CLI); the other
files are still checked. Nothing here raises for a bad input.
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Callable, Iterable, Sequence

from pxr import Usd

from ..diagnostics import Diagnostic, Severity
from ..errors import InputError
from ..stage.io import USD_EXTENSIONS
from .checks import asset_findings

__all__ = ["FileResult", "collect_files", "plan_stage", "validate_stage", "validate_file", "validate_paths"]


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


def validate_paths(paths: Iterable[str], jobs: int = 1,
                   progress: Callable[[FileResult], None] | None = None,
                   ray_address: str | None = None, profiles: Sequence[str] = (),
                   started: Callable[[int], None] | None = None) -> list[FileResult]:
    """Validate every file; `jobs` > 1 shares the work with that many processes in all (this one and jobs - 1
    workers); `ray_address` runs it on Ray instead ("local": a local instance; see physxvehicle_usd.on_ray).
    `profiles` adds the checks of those runtimes (validate/profiles.py; an unknown name is an InputError, raised
    before any file is read). Results keep the input order, and are the same whatever `jobs` or `ray_address` is.
    `started` is told how many files will be checked (`progress` then hears of each), before the first is."""
    if profiles:
        from .profiles import profile_checks

        profile_checks(profiles)
    check = partial(validate_file, profiles=tuple(profiles)) if profiles else validate_file
    files, missing = collect_files(paths)
    if started:
        started(len(files))
    results: list[FileResult]
    if ray_address is not None and files:
        results = _validate_on_ray(files, ray_address, progress, check)
    elif jobs > 1 and len(files) > 1:
        results = _validate_shared(files, min(jobs, len(files)), progress, check)
    else:
        results = []
        for file in files:
            result = check(file)
            results.append(result)
            if progress:
                progress(result)
    return missing + results


def _validate_on_ray(files: list[str], address: str, progress, check=validate_file) -> list[FileResult]:
    from ..on_ray import map_files, ray_session

    def unreadable(file: str, why: str) -> FileResult:  # the file's worker crashed: as validate_file's own failures
        return FileResult(file=file, status="unreadable", message=why)

    results = []
    with ray_session(address):
        for result in map_files(check, files, failed=unreadable):
            results.append(result)
            if progress:
                progress(result)
    return results


def _take(counter, claimed=None, slot: int = 0) -> int:
    """The next chunk's index (past the end: no work left); a worker notes which it holds, under the same lock."""
    with counter.get_lock():
        index = counter.value
        counter.value += 1
        if claimed is not None:
            claimed[slot] = index
    return index


def _worker(chunks: list[list[str]], counter, claimed, slot: int, out, check=validate_file) -> None:
    """A worker process: gets ready (USD on one thread, its file-format plugins loaded by a first stage), then takes
    the next chunk until none is left and sends (chunk index, results) back. Getting ready before taking work
    matters: a chunk taken by a worker that is still loading would keep the others waiting for it."""
    from pxr import Work

    Work.SetConcurrencyLimit(1)
    validate_stage(Usd.Stage.CreateInMemory())
    while (index := _take(counter, claimed, slot)) < len(chunks):
        out.put((index, [check(file) for file in chunks[index]]))


def _validate_shared(files: list[str], processes: int, progress, check=validate_file) -> list[FileResult]:
    """This process and `processes - 1` workers take chunks from one counter.

    The workers are forked from a fork server (physxvehicle_usd.workers) that imported the validator once and
    never ran USD's threads: they start in milliseconds (spawned workers spent 1-2 s each importing pxr, more than
    100 small assets take to check on 2 cores), without inheriting the locks or thread pool of this process, which
    may have opened stages already (a library caller, the tests). Each worker limits USD's own threading to one
    thread; the processes are the parallelism. This process works from the first moment, while the workers start;
    when all chunks are done, a worker still getting ready is stopped."""
    from multiprocessing.connection import wait

    from ..workers import file_chunks, fork_context

    context = fork_context()  # the CLI may have started it already (physxvehicle_usd.workers)
    chunks = file_chunks(files, processes, max_size=8, per_worker=6)
    counter = context.Value("i", 0)
    claimed = context.Array("i", [-1] * (processes - 1))
    out = context.SimpleQueue()
    workers = [context.Process(target=_worker, args=(chunks, counter, claimed, slot, out, check), daemon=True)
               for slot in range(processes - 1)]
    # Process.start waits until the fork server has imported the validator (most of a second after the command
    # began): started from a thread, this process checks files meanwhile instead of waiting with it
    starting = threading.Thread(target=lambda: [worker.start() for worker in workers], daemon=True)
    starting.start()
    done: dict[int, list[FileResult]] = {}

    def receive(index: int, chunk_results: list[FileResult]) -> None:
        done[index] = chunk_results
        for result in chunk_results:
            if progress:
                progress(result)

    try:
        while (index := _take(counter)) < len(chunks):
            receive(index, [check(file) for file in chunks[index]])
            while not out.empty():
                receive(*out.get())
        starting.join()
        while len(done) < len(chunks):
            ready = wait([out._reader, *(w.sentinel for w in workers if w.exitcode is None)])
            if out._reader in ready:
                receive(*out.get())
                continue
            for slot, worker in enumerate(workers):
                held = claimed[slot]
                if worker.exitcode not in (None, 0) and 0 <= held < len(chunks) and held not in done:
                    raise RuntimeError(f"a validation worker stopped (exit code {worker.exitcode}) while checking "
                                       f"one of: {', '.join(chunks[held])}")
            if all(w.exitcode is not None for w in workers) and out.empty():
                raise RuntimeError("the validation workers stopped before finishing their work")
    finally:
        starting.join()
        for worker in workers:
            if worker.pid is None:  # its start failed: nothing to stop
                continue
            if worker.is_alive():
                worker.terminate()
            worker.join()
    return [result for index in range(len(chunks)) for result in done[index]]


def default_jobs() -> int:
    return max(1, (os.cpu_count() or 1))
