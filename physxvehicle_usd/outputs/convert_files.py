"""The `convert` command's job: a stage read and converted to a target (the description as JSON or text, PhysX 3.4
structs, PhysX vehicle-snippet folders); and, for many stages (`convert PATH... -o DIR`), the same for one file,
its output written (atomically) into the folder, and a line saying what it gave.

Many files: DIR/<the file's path from the folder holding every input><suffix> (many_files.output_paths): .json for
the description as JSON, .txt as text, .physx34.json for physx34, and a folder .snippet for physx-snippet, holding
a folder per vehicle as one file's -o does.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..description import StageDescription
from ..errors import InputError
from ..many_files import output_paths

__all__ = ["ConvertedFile", "check_snippet_has_vehicles", "conversion_failed", "convert_file", "converted_text",
           "exit_code", "output_suffix", "report_end", "stage_problems", "summary_lines"]

EXIT_CODES = {"ok": 0, "errors": 1, "failed": 2}  # the CLI's exit codes (validate's too), by a file's status


def converted_text(description: StageDescription, target: str, fmt: str = "json", units: str = "stage",
                   provenance: bool = False) -> str:
    """The output of a target that is one file: description (fmt json or text) or physx34."""
    from .convert import description_text, description_to_json_text

    si = units == "si"
    if target == "physx34":
        from ..runtime.physx34_convert import physx34_json_text

        return physx34_json_text(description.to_json(si=si))
    if fmt == "json":
        return description_to_json_text(description, provenance=provenance, si=si)
    return description_text(description, si=si)


def stage_problems(description: StageDescription) -> list[str]:
    """For a target whose output carries no diagnostics: the stage's error lines, then, when every vehicle was left
    out, a line saying so (naming them)."""
    from ..simulate.run import no_vehicle_reason

    lines = [d.line() for d in description.diagnostics if d.severity.value == "error"]
    rejected = _rejected(description)
    if rejected and not description.vehicles:
        lines.append(f"error: {description.stage.file}: no vehicle to convert: {no_vehicle_reason(description, rejected)}")
    return lines


def _rejected(description: StageDescription) -> dict[str, str]:
    return {d.prim: d.message for d in description.diagnostics if d.code == "REJECTED"}


def check_snippet_has_vehicles(description: StageDescription) -> bool:
    """physx-snippet writes a folder per vehicle: False when every vehicle was left out (stage_problems says why:
    exit 1), InputError when the stage has no vehicle prim at all (exit 2), True when there is something to write."""
    from ..simulate.run import no_vehicle_reason

    if description.vehicles:
        return True
    if _rejected(description):
        return False
    raise InputError(f"no vehicle to convert: {no_vehicle_reason(description, {})}", file=str(description.stage.file))


def output_suffix(target: str, fmt: str) -> str:
    """What a file's output name adds to the input's (many files into -o DIR)."""
    return {"physx34": ".physx34.json", "physx-snippet": ".snippet"}.get(target, ".txt" if fmt == "text" else ".json")


@dataclass
class ConvertedFile:
    """What converting one of many files gave: small, to come back from a worker."""
    file: str
    status: str                     # "ok"; "errors": the stage has errors (EXIT_CODES); "failed": nothing written
    output: str | None = None       # what was written (None: nothing)
    vehicles: int = 0
    errors: int = 0
    warnings: int = 0
    problems: list[str] = field(default_factory=list)  # for stderr: errors a target without diagnostics cannot hold
    message: str | None = None      # why nothing was written, naming the file


def conversion_failed(file: str, why: str) -> ConvertedFile:
    return ConvertedFile(file=file, status="failed", message=why)


def convert_file(file: str, *, base: str, folder: str, target: str = "description", fmt: str = "json",
                 units: str = "stage", provenance: bool = False, reading: str = "omniverse") -> ConvertedFile:
    """Convert one of many files into `folder` (its output name: output_paths with `base`). Raises InputError for
    a file that cannot be read or converted (many_files.map_paths makes it the file's failure)."""
    from ..read import read_stage

    output = output_paths([file], base, folder, output_suffix(target, fmt))[file]
    description = read_stage(file, reading)
    severities = [d.severity.value for d in description.diagnostics]
    result = ConvertedFile(file=file, status="errors" if "error" in severities else "ok",
                           vehicles=len(description.vehicles), errors=severities.count("error"),
                           warnings=severities.count("warning"))
    if target != "description":
        # prefixed with the file where they do not name it (a diagnostic's line names the prim only)
        result.problems = [line if line.startswith("error: ") else f"{file}: {line}" for line in stage_problems(description)]
        if target == "physx-snippet" and not check_snippet_has_vehicles(description):
            return result  # every vehicle left out: the errors say why; nothing to write
    if target == "physx-snippet":
        from ..runtime.snippet import write_snippet_folders

        exports = write_snippet_folders(description.in_si_units() if units == "si" else description, output)
        result.problems += [f"note: {file}: {export.vehicle_path}: {note}" for export in exports for note in export.notes]
    else:
        from ..stage.io import write_atomic

        write_atomic(output, converted_text(description, target, fmt, units, provenance))
    result.output = output
    return result


def summary_lines(result: ConvertedFile) -> list[str]:
    """The file's line of the report (stdout): what was written, or why nothing was."""
    if result.status == "failed":
        return [f"error: {result.message}"]
    counts = [f"{result.vehicles} vehicle(s)"] + [f"{n} {what}(s)" for n, what in
                                                  ((result.errors, "error"), (result.warnings, "warning")) if n]
    if result.output is None:
        return [f"{result.file}: nothing written: no vehicle to convert ({', '.join(counts)})"]
    return [f"{result.file} -> {result.output}: {', '.join(counts)}"]


def report_end(results: list[ConvertedFile], folder: str) -> str:
    """The report's last line: how many files, written where, how many failed."""
    written = [r for r in results if r.output is not None]
    with_errors = sum(1 for r in written if r.status == "errors")
    not_written = len(results) - len(written)
    return (f"converted {len(results)} file(s) into {os.path.join(folder, '')}: {len(written)} written"
            + (f" ({with_errors} with errors)" if with_errors else "") + (f", {not_written} not" if not_written else ""))


def exit_code(results: list[ConvertedFile]) -> int:
    return max((EXIT_CODES[r.status] for r in results), default=0)
