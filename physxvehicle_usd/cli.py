"""The `physxvehicle-usd` command line.

Exit codes: 0 success, 1 findings (errors, or warnings with --strict), 2 usage error or unreadable input.
"""
from __future__ import annotations

import sys

import click

from . import __version__
from .plugin import active_provider, plugin_path


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
    click.echo(f"{provider.plugin_name} ({'physxvehicle-usd' if provider.ours else 'external'}) at {provider.path}")


def main(argv: list[str] | None = None) -> None:
    try:
        cli.main(args=argv, prog_name="physxvehicle-usd", standalone_mode=True)
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        click.echo("interrupted", err=True)
        sys.exit(130)
