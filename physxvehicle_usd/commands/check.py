"""`validate` and `fix`: rule findings for many assets, and the repairs that have one."""
from __future__ import annotations

import os
import sys

import click

from ..errors import InputError
from .common import folders_to_make, made_folders, parallel_options, say_written, start_parallel, with_progress


@click.command("validate")
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "junit", "github"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="warnings fail too (exit 1)")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="write the report here (atomically) instead of stdout")
@parallel_options
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
    start_parallel(jobs, ray_address, ["physxvehicle_usd.validate"])
    from ..validate import validate_paths
    from ..validate.report import FORMATS, exit_code

    results = with_progress(lambda progress, started: validate_paths(
        paths, jobs=jobs, progress=progress, ray_address=ray_address, profiles=profiles, started=started),
        "validating")
    text = FORMATS[fmt](results)
    if output:
        from ..stage.io import write_atomic

        made = folders_to_make([output])
        write_atomic(output, text)
        say_written([f"{output} (the report)"], made)
    else:
        click.echo(text, nl=False)
    sys.exit(exit_code(results, strict=strict))


def _profiles(values: tuple[str, ...]) -> tuple[str, ...]:
    """`--profile a --profile b` or `--profile a,b`: the names, each once, in the order given; an unknown one is a
    usage error naming the known ones."""
    from ..validate.profiles import profile_checks

    names = tuple(dict.fromkeys(name.strip() for value in values for name in value.split(",") if name.strip()))
    try:
        profile_checks(names)
    except InputError as bad:
        raise click.BadParameter(str(bad)) from None
    return names


@click.command("fix")
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output", type=click.Path(),
              help="with one input: the file to write (default: <name>.fixed.usda beside it); with several: a folder")
@click.option("--in-place", is_flag=True, help="author the repairs into the asset itself and rewrite it atomically")
@click.option("--only", metavar="CODE,...", help="only the repairs of these finding codes (V07,A06,...)")
@click.option("--dry-run", is_flag=True, help="list the repairs; write nothing")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="warnings left without a repair fail too (exit 1)")
@parallel_options
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
    from ..fix import fix_paths
    from ..fix.report import FORMATS, exit_code

    if in_place and output:
        raise click.UsageError("-o and --in-place exclude each other: the repairs go to a new layer or into the asset")
    codes = None
    if only is not None:
        codes = [c.strip() for c in only.split(",") if c.strip()]
        if not codes:
            raise click.UsageError("--only needs at least one finding code, e.g. --only V07,A06")
        from ..fix.plan import REPAIRED_CODES

        unknown = [c for c in codes if c not in REPAIRED_CODES]
        if unknown:  # it would repair nothing, silently
            raise click.BadParameter(f"fix has no repair for {', '.join(unknown)}; the codes it repairs: "
                                     f"{', '.join(sorted(REPAIRED_CODES))}", param_hint="--only")
    start_parallel(jobs, ray_address, ["physxvehicle_usd.fix", "physxvehicle_usd.validate"])
    # -o names the file (one input) or the folder (several); each file's report line says what it wrote
    made = folders_to_make([output if len(paths) == 1 and not os.path.isdir(paths[0]) else os.path.join(output, "-")]
                           if output and not dry_run else [])
    results = with_progress(lambda progress, started: fix_paths(
        paths, output=output, in_place=in_place, dry_run=dry_run, only=codes, progress=progress, jobs=jobs,
        ray_address=ray_address, started=started), "fixing")
    click.echo(FORMATS[fmt](results), nl=False)
    made = [folder for folder in made if os.path.isdir(folder)]
    if made:
        click.echo(made_folders(made, alone=True), err=True)
    sys.exit(exit_code(results, strict=strict))

