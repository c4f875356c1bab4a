"""`new`: a complete vehicle stage from a preset."""
from __future__ import annotations

import click

from ..errors import InputError
from .common import folders_to_make, made_folders


@click.command("new")
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

    from ..author import preset_spec, save_vehicle

    if not Sdf.FileFormat.FindByExtension(Path(output).suffix.lstrip(".") or "x"):
        raise InputError("the output needs a USD extension (.usda, .usdc, .usd)", file=output)
    if name is not None and not Sdf.Path.IsValidIdentifier(name):
        raise InputError(f"--name {name!r} is not a valid prim name")
    spec = preset_spec(preset, mass=mass, wheels=wheels, chassis_length=length, chassis_width=width,
                       chassis_height=height, wheel_radius=wheel_radius, name=name)
    made = folders_to_make([output])
    save_vehicle(spec, output, units=units, up=up, command=_new_command_line(preset, output, units, up, mass, wheels))
    click.echo(f"wrote {output}: {preset} /World/{spec.name}, {spec.wheel_count} wheels, "
               f"{spec.resolved_mass:g} kg, units {units}, up {up}{made_folders(made)}")


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

