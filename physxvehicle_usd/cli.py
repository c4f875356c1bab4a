"""The `physxvehicle-usd` command line.

Exit codes: 0 success, 1 findings (errors, or warnings with --strict), 2 usage error or unreadable input.
"""
from __future__ import annotations

import os
import sys

import click

from . import __version__
from .cli_calibrate import calibrate_command
from .errors import InputError
from .plugin import active_provider, plugin_path

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="physxvehicle-usd")
def cli() -> None:
    """PhysX vehicles in OpenUSD: check, convert, inspect and simulate them with usd-core alone."""


@cli.command("plugin-path")
def plugin_path_command() -> None:
    """Print the folder to put on PXR_PLUGINPATH_NAME so usdview, usdcat or a DCC find the vehicle schemas."""
    click.echo(str(plugin_path()))


@cli.command("provider")
def provider_command() -> None:
    """Say which plugin supplies the vehicle schemas in this process (ours, or NVIDIA's)."""
    provider = active_provider()
    click.echo(provider.describe())


def _console():
    """A rich console for tables: the terminal's width in a terminal; in a pipe or a file, wide enough that no name
    is cut or folded (a reader greps it), and no colour codes."""
    from rich.console import Console

    console = Console()
    if console.is_terminal:
        return console
    return Console(width=100_000, no_color=True, highlight=False)


@cli.command("schemas")
@click.argument("stage_file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: a list of {path, type, schemas, authored}")
def schemas_command(stage_file: str, fmt: str) -> None:
    """List the vehicle schemas a stage applies and the vehicle properties it authors, prim by prim."""
    from rich.table import Table

    from .stage.io import open_stage
    from .stage.schema_usage import vehicle_schema_usage

    stage = open_stage(stage_file)
    usages = vehicle_schema_usage(stage)
    if fmt == "json":
        import json

        click.echo(json.dumps([{"path": u.path, "type": u.type_name, "schemas": u.schemas, "authored": u.authored}
                               for u in usages], indent=1))
        return
    table = Table(title=f"PhysX vehicle schemas in {stage_file}")
    table.add_column("prim", overflow="fold")
    table.add_column("schemas", overflow="fold")
    table.add_column("authored properties", overflow="fold")
    for usage in usages:
        schemas = "\n".join(usage.schemas + ([usage.type_name] if usage.type_name.startswith("PhysxVehicle") else []))
        table.add_row(usage.path, schemas, "\n".join(usage.authored))
    _console().print(table)


_READING_HELP = ("whose reading of the asset: omniverse (what the file means, as Omniverse Kit reads it) or ovphysx "
                 "(as ovphysx 0.7 reads it: frames relative to the centre of mass whatever "
                 "referenceFrameIsCenterOfMass says, no nonlinear command response, controller values read once at "
                 "creation; each change is said, code OVPHYSX_READING)")


def _reading_option(command):
    return click.option("--as", "reading", type=click.Choice(["omniverse", "ovphysx"]), default="omniverse",
                        show_default=True, help=_READING_HELP)(command)


def _streamed(line: str, err: bool = False) -> None:
    """A line of a report printed as its file is done: through sys.stdout or sys.stderr, which the progress bar
    redirects to print it above itself (click.echo would write past it, onto the bar's line), flushed so that a
    pipe gets it then."""
    print(line, file=sys.stderr if err else sys.stdout, flush=True)


def _parallel_options(command):
    """--jobs N and --ray [ADDRESS], for a command over many files."""
    # An option with an optional value: `--ray` alone is "local". Click then reads the word after --ray as its value,
    # so _ray_address refuses one that is a file or folder (`validate --ray assets/`) with a message saying how; as
    # a callback it runs before click misses PATHS (which --ray took), whose message would not say why.
    command = click.option(
        "--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
        callback=lambda _ctx, _param, value: _ray_address(value),
        help="run on Ray (the ray extra): --ray alone starts a local Ray instance; --ray HOST:PORT (or "
             "ray://HOST:PORT, auto) joins that cluster, whose nodes must see the files at the same paths. "
             "Same output as a serial run")(command)
    return click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True,
                        help="parallel worker processes (for several files)")(command)


def _start_parallel(jobs: int, ray_address: str | None, preload: list[str]) -> None:
    """Before any file is read: --jobs with --ray refused, a missing Ray extra said; the workers' fork server
    started, importing `preload` on another core while this process does."""
    if ray_address is not None:
        from .on_ray import import_ray

        if jobs > 1:  # two ways of running in parallel: which one a user meant is not ours to guess
            raise click.UsageError("--jobs runs local worker processes and --ray runs on Ray: give one of them")
        import_ray()  # the extra is missing: say so before reading any file
    elif jobs > 1:
        from .workers import fork_context

        fork_context(preload)


def _many(paths: tuple[str, ...]) -> bool:
    """Whether a command over stages runs file by file (several paths, or a folder) rather than on one file as
    it always has (its output then unchanged: printed, or written where -o says)."""
    return len(paths) > 1 or os.path.isdir(paths[0])


def _one_file(paths: tuple[str, ...], jobs: int, ray_address: str | None) -> str:
    """The one file given. --jobs and --ray share several files out: one runs here (said for --ray, which
    would otherwise start or join Ray for nothing)."""
    if ray_address is not None:
        _start_parallel(jobs, ray_address, [])  # --ray with --jobs, or without Ray installed: refused all the same
        click.echo("note: --ray shares several files out; the one file given runs in this process", err=True)
    return paths[0]


def _collect(paths: tuple[str, ...]):
    """The files of PATH... (validate's collection: folders searched for USD files) and the paths that gave none
    (validate's unreadable results); when no path gives a file there is nothing to do: a usage error naming them."""
    from .validate import collect_files

    files, missing = collect_files(paths)
    if not files:
        raise click.BadParameter("; ".join(m.message for m in missing), param_hint="PATH...")
    return files, missing


def _ray_address(value: str | None) -> str | None:
    if value is None:
        return None
    from .on_ray import check_address

    try:
        return check_address(value)
    except InputError as bad:
        raise click.BadParameter(str(bad).removeprefix("--ray ")) from None


@cli.command("convert")
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
@_reading_option
@_parallel_options
def convert_command(paths: tuple[str, ...], output: str | None, target: str, fmt: str, units: str, provenance: bool,
                    reading: str, jobs: int, ray_address: str | None) -> None:
    """Resolve every vehicle of a stage as the PhysX USD parser does, and print the description (or --target).

    Several files (or folders, searched for .usd/.usda/.usdc/.usdz) are converted one output each into -o DIR,
    with a line per file on stdout, in input order; a file that cannot be converted is its own error line and the
    others still are (--jobs N or --ray share them out: the same outputs and lines).

    Exit code 1 when the stage has errors (the affected vehicles are left out), 2 when a target cannot hold
    the vehicles or a file cannot be read, 0 otherwise (with several files: the worst of them).
    """
    from .outputs.convert_files import check_snippet_has_vehicles, converted_text, stage_problems
    from .read import read_stage

    if target != "description" and (fmt != "json" or provenance):
        raise click.UsageError(f"--format text and --provenance are for --target description, not {target}")
    if _many(paths):
        _convert_many(paths, output, jobs, ray_address, target=target, fmt=fmt, units=units, provenance=provenance,
                      reading=reading)
        return
    stage_file = _one_file(paths, jobs, ray_address)
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
        from .runtime.snippet import write_snippet_folders

        if not check_snippet_has_vehicles(description):
            sys.exit(EXIT_FINDINGS)
        for export in write_snippet_folders(description.in_si_units() if units == "si" else description, output):
            for note in export.notes:
                click.echo(f"note: {export.vehicle_path}: {note}", err=True)
        text = None
    else:
        text = converted_text(description, target, fmt, units, provenance)
    if text is not None and output:
        from .stage.io import write_atomic

        write_atomic(output, text)
    elif text is not None:
        click.echo(text, nl=not text.endswith("\n"))
    if any(d.severity.value == "error" for d in description.diagnostics):
        sys.exit(EXIT_FINDINGS)


def _convert_many(paths: tuple[str, ...], output: str | None, jobs: int, ray_address: str | None, **options) -> None:
    """convert PATH... -o DIR: an output per file, a line per file on stdout (and the problems of a target without
    diagnostics on stderr, each naming its file), the last line a count."""
    import functools

    from .many_files import map_paths, output_base, output_paths
    from .outputs.convert_files import (
        conversion_failed,
        convert_file,
        exit_code,
        output_suffix,
        report_end,
        summary_lines,
    )

    files, missing = _collect(paths)
    if not output:
        raise click.UsageError("several files are converted one output each into a folder: give it with -o DIR")
    if os.path.exists(output) and not os.path.isdir(output):
        raise click.UsageError(f"-o {output} is a file; several files are converted one output each into a folder")
    _start_parallel(jobs, ray_address, ["physxvehicle_usd.outputs.convert_files", "physxvehicle_usd.read"])
    base = output_base(p for p in paths if os.path.exists(p))
    output_paths(files, base, output, output_suffix(options["target"], options["fmt"]))  # refuses a file given twice
    results = [conversion_failed(m.file, m.message) for m in missing]
    for result in results:
        _streamed(summary_lines(result)[0])
    convert = functools.partial(convert_file, base=base, folder=output, **options)

    def run(progress, started):
        for result in map_paths(convert, files, failed=conversion_failed, jobs=jobs, ray=ray_address,
                                progress=progress, started=started):
            for line in result.problems:
                _streamed(line, err=True)
            for line in summary_lines(result):
                _streamed(line)
            results.append(result)

    _with_progress(run, "converting")
    _streamed(report_end(results, output))
    sys.exit(exit_code(results))


@cli.command("json-schema")
@click.option("-o", "--output", type=click.Path(dir_okay=False))
def json_schema_command(output: str | None) -> None:
    """Print the JSON Schema of `convert`'s JSON output."""
    import json

    from .outputs.convert import convert_json_schema

    text = json.dumps(convert_json_schema(), indent=2, sort_keys=True) + "\n"
    if output:
        from .stage.io import write_atomic

        write_atomic(output, text)
    else:
        click.echo(text, nl=False)


@cli.command("import-snippet")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True, help="USD file to write (atomically)")
@click.option("--units", type=click.Choice(["m", "cm"]), default="m", show_default=True, help="stage length unit")
@click.option("--drive", type=click.Choice(["engine", "direct"]),
              help="EngineDrive.json or DirectDrive.json (default: EngineDrive.json when the folder has it)")
def import_snippet_command(folder: str, output: str, units: str, drive: str | None) -> None:
    """Author a USD vehicle (with scene, context and ground plane) from PhysX vehicle snippet files:
    FOLDER/Base.json plus EngineDrive.json or DirectDrive.json."""
    from .author.snippet import import_snippet

    result = import_snippet(folder, output, units=units, drive=drive)
    for note in result.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(f"wrote {output}: vehicle {result.vehicle_path}")


@cli.command("validate")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit", "github"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="warnings fail too (exit 1)")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="write the report here (atomically) instead of stdout")
@_parallel_options
@click.option("--profile", "profiles", multiple=True, metavar="NAME",
              callback=lambda _ctx, _param, value: _profiles(value),
              help="add the checks that matter only in one runtime, each finding saying what will happen there: "
                   "isaac-lab, ovphysx or omniverse (repeat the option, or give several separated by commas)")
def validate_command(paths: tuple[str, ...], fmt: str, strict: bool, jobs: int, output: str | None,
                     ray_address: str | None, profiles: tuple[str, ...]) -> None:
    """Check vehicle assets: files, or folders searched for .usd/.usda/.usdc/.usdz.

    Exit code 0 when no errors (warnings allowed), 1 when any error (or warning with --strict),
    2 when a file cannot be opened (the other files are still checked).
    """
    _start_parallel(jobs, ray_address, ["physxvehicle_usd.validate"])
    from .validate import validate_paths
    from .validate.report import FORMATS, exit_code

    results = _with_progress(lambda progress, started: validate_paths(
        paths, jobs=jobs, progress=progress, ray_address=ray_address, profiles=profiles, started=started),
        "validating")
    text = FORMATS[fmt](results)
    if output:
        from .stage.io import write_atomic

        write_atomic(output, text)
    else:
        click.echo(text, nl=False)
    sys.exit(exit_code(results, strict=strict))


def _profiles(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--profile a --profile b` or `--profile a,b`: the names, each once, in the order given; an unknown one is a
    usage error naming the known ones."""
    from .validate.profiles import profile_checks

    names = tuple(dict.fromkeys(name.strip() for value in values for name in value.split(",") if name.strip()))
    try:
        profile_checks(names)
    except InputError as bad:
        raise click.BadParameter(str(bad)) from None
    return names


@cli.command("fix")
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(),
              help="with one input: the file to write (default: <name>.fixed.usda beside it); with several: a folder")
@click.option("--in-place", is_flag=True, help="author the repairs into the asset itself and rewrite it atomically")
@click.option("--only", metavar="CODE,...", help="only the repairs of these finding codes (V07,A06,...)")
@click.option("--dry-run", is_flag=True, help="list the repairs; write nothing")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="warnings left without a repair fail too (exit 1)")
@_parallel_options
def fix_command(paths: tuple[str, ...], output: str | None, in_place: bool, only: str | None, dry_run: bool,
                fmt: str, strict: bool, jobs: int, ray_address: str | None) -> None:
    """Repair what can be repaired in vehicle assets: files, or folders searched as validate does.

    Each finding with one unambiguous repair gets it (validate --format json lists them): a missing vehicle context
    or physics scene, sprung masses PhysX cannot compute or that miss the chassis mass, deprecated attributes,
    a missing referenceFrameIsCenterOfMass, wheel collision shapes touching the ground. By default the repairs go to
    a new layer, <name>.fixed.usda, that sublayers the asset (untouched); the result is validated again and what is
    left is listed with why it has no repair.

    Exit code 0 when no errors are left, 1 when errors without a repair are left (or warnings with --strict),
    2 when a file cannot be read (the other files are still repaired).
    """
    from .fix import fix_paths
    from .fix.report import FORMATS, exit_code

    if in_place and output:
        raise click.UsageError("-o and --in-place exclude each other: the repairs go to a new layer or into the asset")
    codes = None
    if only is not None:
        codes = [c.strip() for c in only.split(",") if c.strip()]
        if not codes:
            raise click.UsageError("--only needs at least one finding code, e.g. --only V07,A06")
    _start_parallel(jobs, ray_address, ["physxvehicle_usd.fix", "physxvehicle_usd.validate"])
    results = _with_progress(lambda progress, started: fix_paths(
        paths, output=output, in_place=in_place, dry_run=dry_run, only=codes, progress=progress, jobs=jobs,
        ray_address=ray_address, started=started), "fixing")
    click.echo(FORMATS[fmt](results), nl=False)
    sys.exit(exit_code(results, strict=strict))


def _with_progress(run, doing: str):
    """A progress bar where stderr is a terminal, nothing otherwise: `run(progress, started)` calls started(count)
    with the number of files (physxvehicle_usd.many_files.map_paths does), then progress(result) for each file done
    (any result with its `file`); the bar counts them and names the last one (`doing` until the first). It is drawn
    on stderr: a report redirected to a file from a terminal gets the same bytes as through a pipe (a console on
    stdout left a blank line in it). Lines printed through sys.stdout while it runs go where stdout goes, above the
    bar where that is the terminal too."""
    if not sys.stderr.isatty():
        return run(None, None)
    from rich.console import Console
    from rich.progress import MofNCompleteColumn, Progress

    with Progress(*Progress.get_default_columns(), MofNCompleteColumn(), console=Console(stderr=True),
                  transient=True, redirect_stdout=sys.stdout.isatty()) as bar:
        task = bar.add_task(doing, total=None)
        return run(lambda result: bar.update(task, advance=1, description=result.file),
                   lambda total: bar.update(task, total=total))



@cli.command("new")
@click.argument("preset", type=click.Choice(["car", "basic_car", "truck", "tank", "robot_base"]))
@click.argument("output", type=click.Path(dir_okay=False))
@click.option("--units", type=click.Choice(["m", "cm", "mm", "in"]), default="m", show_default=True, help="stage length unit")
@click.option("--up", type=click.Choice(["Y", "Z"]), default="Z", show_default=True, help="stage up axis (forward is +X for Z, +Z for Y)")
@click.option("--mass", type=float, help="chassis mass in kg (default: the preset's)")
@click.option("--wheels", type=int, help="number of wheels, even (default: the preset's)")
@click.option("--length", type=float, help="chassis length in metres")
@click.option("--width", type=float, help="chassis width in metres")
@click.option("--height", type=float, help="chassis height in metres")
@click.option("--wheel-radius", type=float, help="wheel radius in metres (default: scaled with the chassis length)")
@click.option("--name", help="vehicle prim name under /World (default: the preset's)")
def new_command(preset: str, output: str, units: str, up: str, mass: float | None, wheels: int | None,
                length: float | None, width: float | None, height: float | None, wheel_radius: float | None,
                name: str | None) -> None:
    """Write a complete vehicle stage (scene, ground, vehicle) from a preset, scaled like the vehicle wizard.

    Sizes and masses are given in metres and kilograms whatever --units says; the stage gets them in its
    own units. The file is written atomically; its format follows the extension.
    """
    from pathlib import Path

    from pxr import Sdf

    from .author import preset_spec, save_vehicle

    if not Sdf.FileFormat.FindByExtension(Path(output).suffix.lstrip(".") or "x"):
        raise InputError("the output needs a USD extension (.usda, .usdc, .usd)", file=output)
    if name is not None and not Sdf.Path.IsValidIdentifier(name):
        raise InputError(f"--name {name!r} is not a valid prim name")
    spec = preset_spec(preset, mass=mass, wheels=wheels, chassis_length=length, chassis_width=width,
                       chassis_height=height, wheel_radius=wheel_radius, name=name)
    save_vehicle(spec, output, units=units, up=up, command=_new_command_line(preset, output, units, up, mass, wheels))
    click.echo(f"wrote {output}: {preset} /World/{spec.name}, {spec.wheel_count} wheels, "
               f"{spec.resolved_mass:g} kg, units {units}, up {up}")


def _new_command_line(preset: str, output: str, units: str, up: str, mass, wheels) -> str:
    from pathlib import Path

    words = ["physxvehicle-usd new", preset, Path(output).name]
    if units != "m":
        words += ["--units", units]
    if up != "Z":
        words += ["--up", up]
    if mass is not None:
        words += ["--mass", f"{mass:g}"]
    if wheels is not None:
        words += ["--wheels", str(wheels)]
    return " ".join(words)


@cli.command("inspect")
@click.argument("stage_file", type=click.Path(dir_okay=False))
@click.option("--vehicle", help="only this vehicle prim (default: every vehicle, plus scenes and friction tables)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def inspect_command(stage_file: str, vehicle: str | None, fmt: str) -> None:
    """Every value the PhysX parser would use, with its unit in stage units and where it came from.

    Provenance: authored, fallback (schema), default (parser, unit-scaled), deprecated (migrated),
    computed (sprung masses, rest loads). Exit code 1 when the stage has errors.
    """
    import json

    from .outputs.inspect_table import inspect_json, render_text
    from .read import read_stage

    description = read_stage(stage_file)
    if fmt == "json":
        click.echo(json.dumps(inspect_json(description, vehicle), indent=1, sort_keys=True))
    else:
        render_text(description, vehicle, _console())
    if any(d.severity.value == "error" for d in description.diagnostics):
        sys.exit(EXIT_FINDINGS)


@cli.command("plot")
@click.argument("stage_file", type=click.Path(dir_okay=False))
@click.option("--vehicle", help="the vehicle prim (default: the first one)")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="file to write, in the format its extension names: .png, .svg, .pdf, .jpg, .eps, .ps, .tif")
def plot_command(stage_file: str, vehicle: str | None, output: str) -> None:
    """Plot a vehicle's tuning: engine torque and power, gearing, tire friction and lateral stiffness,
    suspension springs and the wheel layout (SI units)."""
    from .outputs.plot import figure_format, plot_vehicle
    from .read import read_stage

    figure_format(output)  # refused before reading the stage
    plot_vehicle(read_stage(stage_file), output, vehicle)
    click.echo(f"wrote {output}")

@cli.command("simulate")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--steps", type=click.IntRange(min=1), required=True, help="number of steps")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True), required=True, help="seconds per step")
@click.option("--trace", type=click.Path(), help="write every step's telemetry here as JSON (several files: a folder)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--plot", type=click.Path(),
              help="write a plot of speed, engine speed, gear and slips (.png, .svg, .pdf, .jpg, ...; several files: "
                   "a folder of .png)")
@click.option("--record", type=click.Path(),
              help="write a USD layer over the stage with the motion as time samples (plays in usdview; several files: "
                   "a folder)")
@click.option("--vehicle", "vehicles", multiple=True, help="simulate only this vehicle prim (repeatable)")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True,
              help="step the vehicles on this many threads (same results; pays on multi-core machines)")
@click.option("--control", "controls", multiple=True, metavar="NAME=VALUE|NAME=A:B",
              help="drive every vehicle: a value held for the whole run (accelerator=1) or a ramp from A at the first "
                   "step to B at the last (steer=0:0.3); over the stage's own controls; repeatable. Names: "
                   "accelerator, brake0, brake1, steer, thrust0, thrust1, targetGear, driveTorque, brakeTorque, "
                   "steerAngle")
@_reading_option
@_parallel_options
def simulate_command(paths: tuple[str, ...], steps: int, dt: float, trace: str | None, fmt: str, plot: str | None,
                     record: str | None, vehicles: tuple[str, ...], threads: int, controls: tuple[str, ...],
                     reading: str, jobs: int, ray_address: str | None) -> None:
    """Step the stage's vehicles with the vehicle2 core (no PhysX needed), driven by their controller attributes
    (time samples on them make a drive cycle over stage time) and the --control options.

    The last line of stdout is a summary (--format json: {vehicles, wheels, steps, dt, load_s, step_s, results},
    results: per vehicle path {distance_m, forward_speed_ms, gear, frozen, frozen_reason}).
    Stage errors go to stderr, and so do a dt longer than a vehicle integrates stably (DT_LIMIT) and, with
    --as ovphysx, what that reading changes (OVPHYSX_READING); exit code 1 when no vehicle can be simulated or the
    numerical guard froze a vehicle (said on stderr: which, why, from which step), 2 for unreadable input.

    Several files (or folders, searched for .usd/.usda/.usdc/.usdz): each file's result in input order, its lines
    starting with its path (--format json: a line per file, {file, status, ...} with the summary or the error),
    without timings, so that --jobs N and --ray (which share the files out) print the same; the text ends with a
    count. Each file's stderr lines start with its path. --trace, --plot and --record then name folders:
    DIR/<file's path>.trace.json, .plot.png, .record.usda. A file that cannot be simulated is its error line; the
    others still run; the exit code is the worst of them.
    """
    import json

    from .outputs.simulation_files import simulate_files
    from .simulate import NoVehicleError, text_summary

    if _many(paths):
        _simulate_many(paths, fmt, jobs, ray_address, steps=steps, dt=dt, trace=trace, plot=plot, record=record,
                       vehicles=vehicles, threads=threads, controls=controls, reading=reading)
        return
    stage_file = _one_file(paths, jobs, ray_address)
    try:
        result = simulate_files(stage_file, steps, dt, vehicles=vehicles, trace=trace, plot=plot, record=record,
                                threads=threads, controls=controls, reading=reading,
                                report=lambda line: click.echo(line, err=True))
    except NoVehicleError as nothing:
        for line in nothing.problems:
            click.echo(line, err=True)
        click.echo(f"error: {nothing}", err=True)
        sys.exit(EXIT_FINDINGS)
    for line in result.frozen_lines():
        click.echo(line, err=True)
    if fmt == "json":
        click.echo(json.dumps(result.summary()))
    else:
        for line in text_summary(result):
            click.echo(line)
    if result.frozen:
        sys.exit(EXIT_FINDINGS)


def _simulate_many(paths: tuple[str, ...], fmt: str, jobs: int, ray_address: str | None, **options) -> None:
    """simulate PATH...: each file's report lines on stdout and its problems on stderr, in input order as they are
    done; the trace, plot and record of each file into the folders those options name."""
    import functools

    from .many_files import map_paths, output_base, output_paths
    from .outputs.simulation_files import OUTPUT_SUFFIXES, exit_code, report_end, simulate_file, simulation_failed
    from .simulate.control_specs import controls_from_specs

    files, missing = _collect(paths)
    controls_from_specs(options["controls"], options["steps"])  # a bad --control is refused before any file runs
    base = output_base(p for p in paths if os.path.exists(p))
    for name in OUTPUT_SUFFIXES:
        folder = options[name]
        if folder is None:
            continue
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise click.UsageError(f"--{name} {folder} is a file; with several files it names a folder, which gets "
                                   f"one {name} per file")
        output_paths(files, base, folder, OUTPUT_SUFFIXES[name])  # refuses a file given twice
    if options["plot"]:
        import matplotlib  # noqa: F401 - the plot extra missing: said once (main), before any file runs
    _start_parallel(jobs, ray_address, ["physxvehicle_usd.outputs.simulation_files"])
    results = [simulation_failed(m.file, m.message) for m in missing]
    for result in results:
        for line in result.report_lines(fmt):
            _streamed(line)
    simulate = functools.partial(simulate_file, base=base, **options)

    def run(progress, started):
        for result in map_paths(simulate, files, failed=simulation_failed, jobs=jobs, ray=ray_address,
                                progress=progress, started=started):
            for line in result.problems:
                _streamed(line, err=True)
            for line in result.report_lines(fmt):
                _streamed(line)
            results.append(result)

    _with_progress(run, "simulating")
    if fmt == "text":
        _streamed(report_end(results))
    sys.exit(exit_code(results))


cli.add_command(calibrate_command(_reading_option, _parallel_options, _start_parallel))


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="physxvehicle-usd", standalone_mode=False)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as usage:
        usage.show()
        sys.exit(EXIT_USAGE)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except InputError as bad_input:
        click.echo(f"error: {bad_input}", err=True)
        sys.exit(EXIT_USAGE)
    except ModuleNotFoundError as missing:  # an optional extra that is not installed (matplotlib for plots)
        extra = " (pip install 'physxvehicle-usd[plot]')" if missing.name == "matplotlib" else ""
        click.echo(f"error: this command needs the Python package {missing.name!r}{extra}", err=True)
        sys.exit(EXIT_USAGE)
    except Exception as exc:  # noqa: BLE001 - a user never sees a traceback
        click.echo(f"internal error: {type(exc).__name__}: {exc} (please report this with the input file)", err=True)
        sys.exit(EXIT_USAGE)
