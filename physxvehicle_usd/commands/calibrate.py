"""`calibrate`: fit a vehicle's properties to a log of its driving (physxvehicle_usd.calibrate)."""
from __future__ import annotations

import sys

import click

from .common import EXIT_FINDINGS, EXIT_OK, parallel_options, reading_option, start_parallel


@click.command("calibrate")
@click.argument("stage_file", type=click.Path(dir_okay=False))
@click.option("--log", "logs", multiple=True, required=True, type=click.Path(dir_okay=False),
              help="the measured drive: a `simulate --trace` JSON file or a CSV file with `name [unit]` headers; "
                   "repeatable, one per --vehicle")
@click.option("--vehicle", "vehicles", multiple=True, help="the vehicle prim the log is of (default: the stage's first); "
              "repeatable, paired with the --log of the same rank")
@click.option("--fit", "fit", multiple=True, metavar="PRIM.ATTR[i]",
              help="a property to fit, e.g. /World/Engine.physxVehicleEngine:peakTorque or "
                   "/World/Tire.physxVehicleTire:lateralStiffnessGraph[1]; repeatable (default: the default set, "
                   "less what the log does not excite)")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              help="the layer to write (default: <name>.calibrated.usda beside the stage, sublayering it)")
@click.option("--in-place", is_flag=True,
              help="author the fitted values into the stage itself and rewrite it atomically")
@click.option("--dry-run", is_flag=True, help="fit and report; write no layer (a --plot asked for is drawn)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--plot", type=click.Path(dir_okay=False), help="write the log against the simulation before and after "
              "the fit here (PNG; needs the plot extra)")
@click.option("--method", type=click.Choice(["least_squares", "population"]), default="least_squares",
              show_default=True, help="least_squares: trust-region least squares, the Jacobian's finite differences as "
              "lanes of one run; population: differential evolution, a generation per run, for residuals that are "
              "not smooth (gear shifts, sticky tires), then least squares")
@click.option("--seed", type=int, default=0, show_default=True, help="the population method's seed")
@click.option("--dt", type=click.FloatRange(min=0.0, min_open=True),
              help="seconds per simulation step (default: a trace's own, else the physics scene's step, as "
                   "simulate takes it)")
@click.option("--control", "controls", multiple=True, metavar="NAME=VALUE|NAME=A:B",
              help="a control over the stage's own, as simulate takes it (the log's control columns replace both)")
@click.option("--threads", type=click.IntRange(min=1), default=1, show_default=True,
              help="threads of the simulator's compiled kernel for the lanes")
@reading_option
@parallel_options
def calibrate_command(stage_file: str, logs: tuple[str, ...], vehicles: tuple[str, ...], fit: tuple[str, ...],
                      output: str | None, in_place: bool, dry_run: bool, fmt: str, plot: str | None, method: str,
                      seed: int, dt: float | None, controls: tuple[str, ...], threads: int, reading: str, jobs: int,
                      ray_address: str | None) -> None:
    """Fit a vehicle's properties to a log of its driving, the candidates run as lanes of one fleet.

    Says, per fitted property, its value, its initial value, a 95 % interval and whether the log identifies it
    (with a warning for every property or combination it does not), and the residual of each signal before and
    after. Writes the identified values to <name>.calibrated.usda (sublayering the stage), each with a customData
    note of how it was fitted.

    Exit code 0 when every fitted property is identified, 1 when one named with --fit is not (the layer still gets
    the identified ones), 2 for a bad stage, log, property or control, or --vehicle and --log counts that differ
    (nothing is written).
    """
    from ..calibrate import report
    from ..calibrate.layer import write_layer
    from ..calibrate.run import calibrate_many

    if in_place and output:
        raise click.UsageError("-o and --in-place exclude each other: the values go to a new layer or into the asset")
    if vehicles and len(vehicles) != len(logs):
        raise click.UsageError(f"{len(vehicles)} --vehicle for {len(logs)} --log: give one vehicle per log")
    pairs = list(zip(vehicles, logs)) if vehicles else [(None, log) for log in logs]
    if len(pairs) > 1:
        start_parallel(jobs, ray_address, ["physxvehicle_usd.calibrate"])
    result = calibrate_many(stage_file, pairs, jobs=jobs, ray=ray_address, fit=list(fit) or None, controls=controls,
                            dt=dt, method=method, seed=seed, threads=threads, reading=reading)
    if plot:  # before anything is written: a missing matplotlib is said with nothing written
        report.plot(result, plot)
    write_layer(result, output, in_place=in_place, dry_run=dry_run)
    if fmt == "json":
        click.echo(report.as_json(result), nl=False)
    else:
        for line in report.text_lines(result):
            click.echo(line)
        if plot:
            click.echo(f"wrote {plot}")
    named_not_identified = fit and any(not f.identified for c in result.vehicles.values() for f in c.fitted)
    sys.exit(EXIT_FINDINGS if named_not_identified else EXIT_OK)
