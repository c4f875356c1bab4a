"""The `physxvehicle-usd` command line.

Exit codes: 0 success, 1 findings (errors, or warnings with --strict), 2 usage error or unreadable input.
"""
from __future__ import annotations

import sys

import click

from . import __version__
from .commands import check, convert, look, new, simulate
from .commands.common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from .errors import InputError

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="physxvehicle-usd")
def cli() -> None:
    """PhysX vehicles in OpenUSD: check, convert, inspect and simulate them with usd-core alone."""


# every command, from the module of its group (`--help` lists them by name); a new one is one more entry
for command in (look.plugin_path_command, look.provider_command, look.schemas_command, convert.convert_command,
                convert.json_schema_command, convert.import_snippet_command, check.validate_command,
                check.fix_command, new.new_command, look.inspect_command, look.plot_command,
                simulate.simulate_command):
    cli.add_command(command)


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

