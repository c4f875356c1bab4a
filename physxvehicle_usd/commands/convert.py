"""`convert`, `json-schema` and `import-snippet`: a stage to other formats, and PhysX snippet files to a stage."""
from __future__ import annotations

import os
import sys

import click

from .common import (
    EXIT_FINDINGS,
    collect,
    folders_to_make,
    made_folders,
    many,
    one_file,
    parallel_options,
    reading_option,
    say_written,
    start_parallel,
    streamed,
    with_progress,
)


@click.command("convert")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("-o", "--output", type=click.Path(),
              help="write here instead of stdout (atomically); a folder for --target physx-snippet, and for several "
                   "files (one output each: DIR/<file's path><.json|.txt|.physx34.json|.snippet>)")
@click.option("--target", type=click.Choice(["description", "physx34", "physx-snippet"]), default="description",
              show_default=True, help="description: the resolved stage description; physx34: PhysX 3.4 engine, tire and "
              "friction structs (JSON); physx-snippet: per vehicle, the PhysX vehicle snippets' Base.json plus "
              "EngineDrive.json or DirectDrive.json in OUTPUT/<vehicle name>/")
@click.option("--format", "fmt", type=click.Choice(["json", "text"]), default="json", show_default=True)
@click.option("--units", type=click.Choice(["stage", "si"]), default="stage", show_default=True,
              help="stage: values as the stage means them; si: metres and kilograms")
@click.option("--provenance", is_flag=True, help="each value as {value, source}: authored, fallback, default, deprecated, computed")
@reading_option
@parallel_options
def convert_command(paths: tuple[str, ...], output: str | None, target: str, fmt: str, units: str, provenance: bool,
                    reading: str, jobs: int, ray_address: str | None) -> None:
    """Resolve every vehicle of a stage as the PhysX USD parser does, and print the description (or --target).

    Several files (or folders, searched for .usd/.usda/.usdc/.usdz) are converted one output each into -o DIR,
    with a line per file on stdout, in input order; a file that cannot be converted is its own error line and the
    others still are (--jobs N or --ray share them out: the same outputs and lines).

    Exit code 1 when the stage has errors (the affected vehicles are left out), 2 when a target cannot hold
    the vehicles or a file cannot be read, 0 otherwise (with several files: the worst of them).
    """
    from ..outputs.convert_files import check_snippet_has_vehicles, converted_text, stage_problems
    from ..read import read_stage

    if target != "description" and (fmt != "json" or provenance):
        raise click.UsageError(f"--format text and --provenance are for --target description, not {target}")
    if many(paths):
        _convert_many(paths, output, jobs, ray_address, target=target, fmt=fmt, units=units, provenance=provenance,
                      reading=reading)
        return
    stage_file = one_file(paths, jobs, ray_address)
    if target == "physx-snippet" and not output:
        raise click.UsageError("--target physx-snippet writes a folder per vehicle: give it with -o DIR")
    if output and target != "physx-snippet" and os.path.isdir(output):
        raise click.UsageError(f"-o {output} is a folder; {target} writes one file")
    description = read_stage(stage_file, reading)
    if target != "description":
        # these targets carry no diagnostics: the errors (why a vehicle is missing from the output) go to stderr
        for line in stage_problems(description):
            click.echo(line, err=True)
    if target == "physx-snippet":
        from ..runtime.snippet import snippet_folder_names, write_snippet_folders

        if not check_snippet_has_vehicles(description):
            sys.exit(EXIT_FINDINGS)
        names = snippet_folder_names(sorted(description.vehicles))  # write_snippet_folders' folder per vehicle
        made = folders_to_make([os.path.join(output, name, "-") for name in names.values()])
        exports = write_snippet_folders(description.in_si_units() if units == "si" else description, output)
        for export in exports:
            for note in export.notes:
                click.echo(f"note: {export.vehicle_path}: {note}", err=True)
        say_written([os.path.join(output, names[export.vehicle_path], name) for export in exports
                     for name in export.files], made)
        text = None
    else:
        text = converted_text(description, target, fmt, units, provenance)
    if text is not None and output:
        _write_said(output, text)
    elif text is not None:
        click.echo(text, nl=not text.endswith("\n"))
    if any(d.severity.value == "error" for d in description.diagnostics):
        sys.exit(EXIT_FINDINGS)


def _convert_many(paths: tuple[str, ...], output: str | None, jobs: int, ray_address: str | None, **options) -> None:
    """convert PATH... -o DIR: an output per file, a line per file on stdout (and the problems of a target without
    diagnostics on stderr, each naming its file), the last line a count."""
    import functools

    from ..many_files import map_paths, output_base, output_paths
    from ..outputs.convert_files import (
        conversion_failed,
        convert_file,
        exit_code,
        output_suffix,
        report_end,
        summary_lines,
    )

    files, missing = collect(paths, writes=True)
    if not output:
        raise click.UsageError("several files are converted one output each into a folder: give it with -o DIR")
    if os.path.exists(output) and not os.path.isdir(output):
        raise click.UsageError(f"-o {output} is a file; several files are converted one output each into a folder")
    start_parallel(jobs, ray_address, ["physxvehicle_usd.outputs.convert_files", "physxvehicle_usd.read"])
    base = output_base(p for p in paths if os.path.exists(p))
    output_paths(files, base, output, output_suffix(options["target"], options["fmt"]))  # refuses a file given twice
    results = [conversion_failed(m.file, m.message) for m in missing]
    for result in results:
        streamed(summary_lines(result)[0])
    convert = functools.partial(convert_file, base=base, folder=output, **options)

    def run(progress, started):
        for result in map_paths(convert, files, failed=conversion_failed, jobs=jobs, ray=ray_address,
                                progress=progress, started=started):
            for line in result.problems:
                streamed(line, err=True)
            for line in summary_lines(result):
                streamed(line)
            results.append(result)

    with_progress(run, "converting")
    streamed(report_end(results, output))
    sys.exit(exit_code(results))


@click.command("json-schema")
@click.option("-o", "--output", type=click.Path(dir_okay=False))
def json_schema_command(output: str | None) -> None:
    """Print the JSON Schema of `convert`'s JSON output."""
    import json

    from ..outputs.convert import convert_json_schema

    text = json.dumps(convert_json_schema(), indent=2, sort_keys=True) + "\n"
    if output:
        _write_said(output, text)
    else:
        click.echo(text, nl=False)


@click.command("import-snippet")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, help="USD file to write (atomically)")
@click.option("--units", type=click.Choice(["m", "cm"]), default="m", show_default=True, help="stage length unit")
@click.option("--drive", type=click.Choice(["engine", "direct"]),
              help="EngineDrive.json or DirectDrive.json (default: EngineDrive.json when the folder has it)")
def import_snippet_command(folder: str, output: str, units: str, drive: str | None) -> None:
    """Author a USD vehicle (with scene, context and ground plane) from PhysX vehicle snippet files:
    FOLDER/Base.json plus EngineDrive.json or DirectDrive.json."""
    from ..author.snippet import import_snippet

    made = folders_to_make([output])
    result = import_snippet(folder, output, units=units, drive=drive)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {output}: vehicle {result.vehicle_path}{made_folders(made)}")


def _write_said(output: str, text: str) -> None:
    """Write -o OUTPUT atomically and say so (on stderr: stdout stays what the command prints without -o)."""
    from ..stage.io import write_atomic

    made = folders_to_make([output])
    write_atomic(output, text)
    say_written([output], made)

