"""Commands that show a stage: `schemas`, `inspect`, `plot`, and where the schema plugin is (`plugin-path`, `provider`)."""
from __future__ import annotations

import sys

import click

from ..plugin import active_provider, plugin_path
from .common import EXIT_FINDINGS, console, folders_to_make, say_written


@click.command("plugin-path")
def plugin_path_command() -> None:
    """Print the folder to put on PXR_PLUGINPATH_NAME so usdview, usdcat or a DCC find the vehicle schemas."""
    click.echo(str(plugin_path()))


@click.command("provider")
def provider_command() -> None:
    """Say which plugin supplies the vehicle schemas in this process (ours, or NVIDIA's)."""
    provider = active_provider()
    click.echo(provider.describe())



@click.command("schemas")
@click.argument("stage_file", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="json: a list of {path, type, schemas, authored}")
def schemas_command(stage_file: str, fmt: str) -> None:
    """List the vehicle schemas a stage applies and the vehicle properties it authors, prim by prim."""
    from rich.table import Table

    from ..stage.io import open_stage
    from ..stage.schema_usage import vehicle_schema_usage

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
    console().print(table)



@click.command("inspect")
@click.argument("stage_file", type=click.Path(dir_okay=False))
@click.option("--vehicle", help="only this vehicle prim (default: every vehicle, plus scenes and friction tables)")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def inspect_command(stage_file: str, vehicle: str | None, fmt: str) -> None:
    """Every value the PhysX parser would use, with its unit in stage units and where it came from.

    Provenance: authored, fallback (schema), default (parser, unit-scaled), deprecated (migrated),
    computed (sprung masses, rest loads). Exit code 1 when the stage has errors.
    """
    import json

    from ..outputs.inspect_table import inspect_json, render_text
    from ..read import read_stage

    description = read_stage(stage_file)
    if fmt == "json":
        click.echo(json.dumps(inspect_json(description, vehicle), indent=1, sort_keys=True))
    else:
        render_text(description, vehicle, console())
    if any(d.severity.value == "error" for d in description.diagnostics):
        sys.exit(EXIT_FINDINGS)


@click.command("plot")
@click.argument("stage_file", type=click.Path(dir_okay=False))
@click.option("--vehicle", help="the vehicle prim (default: the first one)")
@click.option("-o", "--output", type=click.Path(dir_okay=False), required=True,
              help="file to write, in the format its extension names: .png, .svg, .pdf, .jpg, .eps, .ps, .tif")
def plot_command(stage_file: str, vehicle: str | None, output: str) -> None:
    """Plot a vehicle's tuning: engine torque and power, gearing, tire friction and lateral stiffness,
    suspension springs and the wheel layout (SI units)."""
    from ..outputs.plot import figure_format, plot_vehicle
    from ..read import read_stage

    figure_format(output)  # refused before reading the stage
    made = folders_to_make([output])
    plot_vehicle(read_stage(stage_file), output, vehicle)
    say_written([output], made, err=False)
