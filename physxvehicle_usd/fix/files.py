"""`physxvehicle-usd fix`: each file's repairs written to a new layer over it (or into it), then checked.

    from physxvehicle_usd.fix import fix_paths
    results = fix_paths(["car.usda"])            # writes car.fixed.usda, which sublayers car.usda
    results[0].output, results[0].repairs, results[0].remaining

By default the repairs go to a new layer beside the input, `<name>.fixed.usda`, whose only sublayer is the input (by
a relative path, so the two move together) and which carries the input's stage metadata (up axis, units, default
prim: USD reads those from the root layer only). The asset itself is untouched and the layer holds exactly what
changed. `in_place` authors the repairs into the asset's own root layer and rewrites it atomically. `dry_run` plans
and writes nothing. A file with nothing to repair gets no layer.

After writing, the result is validated again: `remaining` is what it still has (each with why it has no repair).
"""
from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from pxr import Sdf, Usd

from ..diagnostics import Diagnostic, Severity
from ..errors import InputError
from ..repairs import Repair
from .plan import Planned

FIXED_SUFFIX = ".fixed"
# Stage metadata USD takes from the root layer alone: the new layer carries the input's.
_NOT_COPIED = {"subLayers", "subLayerOffsets", "documentation", "primChildren"}


@dataclass
class RepairMade:
    """One repair and the findings it fixes (a repair shared by several findings is made once)."""

    repair: Repair
    findings: list[Diagnostic]


@dataclass
class FileFix:
    file: str
    status: str                          # "fixed" | "planned" (dry run) | "unchanged" (nothing to repair) | "unreadable"
    output: str | None = None            # the file written (None: none)
    repairs: list[RepairMade] = field(default_factory=list)
    remaining: list[Planned] = field(default_factory=list)  # the result's findings (dry run: those not repaired)
    message: str | None = None           # why the file is unreadable

    def edits(self) -> int:
        return sum(len(r.repair.edits) for r in self.repairs)

    def count(self, severity: Severity) -> int:
        return sum(1 for p in self.remaining if p.finding.severity == severity)


def default_output(path: str) -> str:
    """car.usda -> car.fixed.usda beside it (a text layer whatever the input's format: it is read as a diff)."""
    p = Path(path)
    return str(p.with_name(p.stem + FIXED_SUFFIX + ".usda"))


def _selected(planned: list[Planned], only: frozenset[str] | None) -> list[RepairMade]:
    made: dict[Repair, RepairMade] = {}
    for p in planned:
        fix = p.finding.fix
        if fix is None or (only is not None and p.finding.code not in only):
            continue
        if fix in made:
            made[fix].findings.append(p.finding)
        else:
            made[fix] = RepairMade(fix, [p.finding])
    return list(made.values())


def layer_over(source: Sdf.Layer, input_path: str) -> Sdf.Layer:
    """A new layer whose one sublayer is the input (absolute until written), with the input's stage metadata."""
    layer = Sdf.Layer.CreateAnonymous(".usda")
    for key in source.pseudoRoot.ListInfoKeys():
        if key not in _NOT_COPIED:
            layer.pseudoRoot.SetInfo(key, source.pseudoRoot.GetInfo(key))
    layer.documentation = (f"physxvehicle-usd fix: the repairs of {Path(input_path).name}, its sublayer (untouched); "
                           "`physxvehicle-usd fix --dry-run` on it says why each was made.")
    layer.subLayerPaths.append(str(Path(input_path).resolve()))
    return layer


def _remaining(path: str) -> list[Planned]:
    """The findings of the file written, planned again (a repair not selected still shows as one)."""
    from ..stage.io import open_stage_with_warnings
    from ..validate import plan_stage

    stage, warnings = open_stage_with_warnings(path)
    planned = plan_stage(stage)
    composition = [Planned(Diagnostic(severity=Severity.ERROR, code="COMPOSITION", prim="/", message=w)) for w in warnings]
    return composition + planned


def fix_file(path: str, output: str | None = None, in_place: bool = False, dry_run: bool = False,
             only: Iterable[str] | None = None) -> FileFix:
    """Repair one file (see the module's doc). Raises nothing for a bad input file: it is an "unreadable" result;
    InputError only for an output that cannot be written."""
    from ..stage.io import export_layer_atomic, open_stage_with_warnings
    from ..validate import plan_stage

    codes = frozenset(only) if only is not None else None
    try:
        stage, warnings = open_stage_with_warnings(path)
    except InputError as exc:
        return FileFix(file=path, status="unreadable", message=str(exc))
    planned = plan_stage(stage)
    planned = [Planned(Diagnostic(severity=Severity.ERROR, code="COMPOSITION", prim="/", message=w))
               for w in warnings] + planned
    made = _selected(planned, codes)
    repaired = {id(f) for r in made for f in r.findings}
    not_made = [p for p in planned if id(p.finding) not in repaired]
    if not made:
        return FileFix(file=path, status="unchanged", remaining=not_made)
    target = path if in_place else (output or default_output(path))
    if dry_run:
        return FileFix(file=path, status="planned", output=target, repairs=made, remaining=not_made)
    if in_place:
        if Path(path).suffix.lower() == ".usdz":
            raise InputError("a .usdz package cannot be rewritten in place; leave out --in-place to write the "
                             "repairs to a layer over it", file=path)
        for r in made:
            r.repair.apply(stage)
        export_layer_atomic(stage.GetRootLayer(), path)
    else:
        if Path(target).resolve() == Path(path).resolve():
            raise InputError("the output is the input itself: use --in-place to rewrite it", file=path)
        layer = layer_over(stage.GetRootLayer(), path)
        over = Usd.Stage.Open(layer)
        for r in made:
            r.repair.apply(over)
        del over  # the relative path below resolves from the file written, not from this anonymous layer
        layer.subLayerPaths[0] = Path(os.path.relpath(Path(path).resolve(), Path(target).resolve().parent)).as_posix()
        export_layer_atomic(layer, target)
    return FileFix(file=path, status="fixed", output=target, repairs=made, remaining=_remaining(target))


def fix_paths(paths: Iterable[str], output: str | None = None, in_place: bool = False, dry_run: bool = False,
              only: Iterable[str] | None = None, progress: Callable[[FileFix], None] | None = None,
              jobs: int = 1, ray_address: str | None = None,
              started: Callable[[int], None] | None = None) -> list[FileFix]:
    """Repair every file (folders searched as `validate` does, leaving out earlier `*.fixed.*` outputs). `output`: a
    file for one input, a folder (existing, or ending in a separator) for several. `jobs` / `ray_address` share the
    files out as validate's do (physxvehicle_usd.many_files): the same results, in input order. `started` is told
    how many files will be repaired (`progress` then hears of each), before the first is."""
    from ..many_files import map_paths
    from ..validate import collect_files

    paths = list(paths)
    files, missing = collect_files(paths)
    explicit = {str(Path(p)) for p in paths}
    files = [f for f in files if f in explicit or FIXED_SUFFIX + "." not in Path(f).name]
    outputs = _outputs(files, output, in_place)
    results = [_unreadable(m.file, m.message) for m in missing]
    one = functools.partial(_fix_one, outputs=outputs, in_place=in_place, dry_run=dry_run,
                            only=tuple(only) if only is not None else None)
    results += map_paths(one, files, failed=_unreadable, jobs=jobs, ray=ray_address, progress=progress,
                         started=started)
    return results


def _fix_one(file: str, outputs: dict[str, str], in_place: bool, dry_run: bool, only: tuple[str, ...] | None) -> FileFix:
    return fix_file(file, outputs.get(file), in_place=in_place, dry_run=dry_run, only=only)


def _unreadable(file: str, why: str) -> FileFix:
    """A file that could not be repaired (its output cannot be written, its worker crashed): as an unreadable one."""
    return FileFix(file=file, status="unreadable", message=why)


def _outputs(files: list[str], output: str | None, in_place: bool) -> dict[str, str]:
    if output is None:
        return {}
    if in_place:
        raise InputError("-o and --in-place exclude each other: the repairs go to a new layer or into the asset")
    folder = Path(output).is_dir() or output.endswith(("/", os.sep))
    if not folder:
        if len(files) > 1:
            raise InputError(f"-o {output} names one file but there are {len(files)} inputs: give a folder")
        return {f: output for f in files}
    outputs = {f: str(Path(output) / Path(default_output(f)).name) for f in files}
    clashes = sorted({o for o in outputs.values() if list(outputs.values()).count(o) > 1})
    if clashes:
        raise InputError(f"inputs of the same name would write the same output in {output}: {', '.join(clashes)}")
    return outputs
