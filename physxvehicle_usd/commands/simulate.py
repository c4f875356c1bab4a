"""`simulate`: step the vehicles of one stage or many, and write the trace, plot and record asked for."""
from __future__ import annotations

import os
import sys

import click

from .common import (
    EXIT_FINDINGS,
    StepProgress,
    collect,
    folders_to_make,
    many,
    one_file,
    parallel_options,
    reading_option,
    say_written,
    start_parallel,
    streamed,
    with_progress,
)


@click.command("simulate")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--steps", type=click.IntRange(min=1), required=True, help="number of steps")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True),
              help="seconds per step  [default: the step of the vehicles' physics scene, 1/physxScene:"
                   "timeStepsPerSecond: 1/60 s where the scene authors none; the summary says which]")
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
                   "step to B at the last (steer=0:0.3); over the stage's own controls; repeatable. A vehicle with a "
                   "drive takes accelerator, brake0, brake1, steer, targetGear; a tank accelerator, brake0, brake1, "
                   "thrust0, thrust1, targetGear; one without a drive driveTorque, brakeTorque, steerAngle (another "
                   "name is refused); values in the ranges of the controller attributes (accelerator [0, 1], ...)")
@reading_option
@parallel_options
def simulate_command(paths: tuple[str, ...], steps: int, dt: float | None, trace: str | None, fmt: str, plot: str | None,
                     record: str | None, vehicles: tuple[str, ...], threads: int, controls: tuple[str, ...],
                     reading: str, jobs: int, ray_address: str | None) -> None:
    """Step the stage's vehicles with the vehicle2 core (no PhysX needed), driven by their controller attributes
    (time samples on them make a drive cycle over stage time) and the --control options.

    The last line of stdout is a summary (--format json: {vehicles, wheels, steps, dt, dt_from, load_s, step_s,
    results},
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

    from ..outputs.simulation_files import simulate_files
    from ..simulate import NoVehicleError, text_summary

    if many(paths):
        _simulate_many(paths, fmt, jobs, ray_address, steps=steps, dt=dt, trace=trace, plot=plot, record=record,
                       vehicles=vehicles, threads=threads, controls=controls, reading=reading)
        return
    stage_file = one_file(paths, jobs, ray_address)
    outputs = {"trace": trace, "plot": plot, "record": record}
    folders = folders_to_make(list(outputs.values()))
    try:
        with StepProgress(steps, "simulating") as progress:
            result = simulate_files(stage_file, steps, dt, vehicles=vehicles, threads=threads, controls=controls,
                                    reading=reading, report=lambda line: click.echo(line, err=True), progress=progress,
                                    **outputs)
    except NoVehicleError as nothing:
        for line in nothing.problems:
            click.echo(line, err=True)
        click.echo(f"error: {nothing}", err=True)
        sys.exit(EXIT_FINDINGS)
    for line in result.frozen_lines():
        click.echo(line, err=True)
    say_written([f"{path} ({what})" for what, path in outputs.items() if path], folders)
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

    from ..many_files import map_paths, output_base, output_paths
    from ..outputs.simulation_files import OUTPUT_SUFFIXES, exit_code, report_end, simulate_file, simulation_failed
    from ..simulate.control_specs import controls_from_specs

    files, missing = collect(paths, writes=any(options[name] for name in ("trace", "plot", "record")))
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
    start_parallel(jobs, ray_address, ["physxvehicle_usd.outputs.simulation_files"])
    folders = {name: options[name] for name in OUTPUT_SUFFIXES if options[name]}
    made = folders_to_make([os.path.join(folder, "-") for folder in folders.values()])
    results = [simulation_failed(m.file, m.message) for m in missing]
    for result in results:
        for line in result.report_lines(fmt):
            streamed(line)
    simulate = functools.partial(simulate_file, base=base, **options)

    def run(progress, started):
        for result in map_paths(simulate, files, failed=simulation_failed, jobs=jobs, ray=ray_address,
                                progress=progress, started=started):
            for line in result.problems:
                streamed(line, err=True)
            for line in result.report_lines(fmt):
                streamed(line)
            results.append(result)

    with_progress(run, "simulating")
    ran = sum(1 for r in results if r.summary is not None)  # each wrote what was asked for
    say_written([f"{ran} {name}(s) in {folder}/" for name, folder in folders.items()] if ran else [], made)
    if fmt == "text":
        streamed(report_end(results))
    sys.exit(exit_code(results))

