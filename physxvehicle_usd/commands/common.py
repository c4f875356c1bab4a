"""What the commands share: the exit codes, the console, the options of commands over many files, the progress bars,
and the lines saying what a command wrote."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Sequence

import click

from ..errors import InputError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def console():
    """A rich console for tables: the terminal's width in a terminal; in a pipe or a file, wide enough that no name
    is cut or folded (a reader greps it), and no colour codes."""
    from rich.console import Console

    console = Console()
    if console.is_terminal:
        return console
    return Console(width=100_000, no_color=True, highlight=False)


_READING_HELP = ("whose reading of the asset: omniverse (what the file means, as Omniverse Kit reads it) or ovphysx "
                 "(as ovphysx 0.7 reads it: frames relative to the centre of mass whatever "
                 "referenceFrameIsCenterOfMass says, no nonlinear command response, controller values read once at "
                 "creation; each change is said, code OVPHYSX_READING)")


def reading_option(command):
    return click.option("--as", "reading", type=click.Choice(["omniverse", "ovphysx"]), default="omniverse",
                        show_default=True, help=_READING_HELP)(command)


def streamed(line: str, err: bool = False) -> None:
    """A line of a report printed as its file is done: through sys.stdout or sys.stderr, which the progress bar
    redirects to print it above itself (click.echo would write past it, onto the bar's line), flushed so that a
    pipe gets it then."""
    print(line, file=sys.stderr if err else sys.stdout, flush=True)


def parallel_options(command):
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


def start_parallel(jobs: int, ray_address: str | None, preload: list[str]) -> None:
    """Before any file is read: --jobs with --ray refused, a missing Ray extra said; the workers' fork server
    started, importing `preload` on another core while this process does."""
    if ray_address is not None:
        from ..on_ray import import_ray

        if jobs > 1:  # two ways of running in parallel: which one a user meant is not ours to guess
            raise click.UsageError("--jobs runs local worker processes and --ray runs on Ray: give one of them")
        import_ray()  # the extra is missing: say so before reading any file
    elif jobs > 1:
        from ..workers import fork_context

        fork_context(preload)


def many(paths: tuple[str, ...]) -> bool:
    """Whether a command over stages runs file by file (several paths, or a folder) rather than on one file as
    it always has (its output then unchanged: printed, or written where -o says)."""
    return len(paths) > 1 or os.path.isdir(paths[0])


def one_file(paths: tuple[str, ...], jobs: int, ray_address: str | None) -> str:
    """The one file given. --jobs and --ray share several files out: one runs here (said for --ray, which
    would otherwise start or join Ray for nothing)."""
    if ray_address is not None:
        start_parallel(jobs, ray_address, [])  # --ray with --jobs, or without Ray installed: refused all the same
        click.echo("note: --ray shares several files out; the one file given runs in this process", err=True)
    return paths[0]


def collect(paths: tuple[str, ...], writes: bool = False):
    """The files of PATH... (validate's collection: folders searched for USD files) and the paths that gave none
    (validate's unreadable results); when no path gives a file there is nothing to do: a usage error naming them.
    A command that writes files (writes=True) refuses any such path before writing anything: an example pasted
    with its [optional parts] must not leave folders behind."""
    from ..validate import collect_files

    files, missing = collect_files(paths)
    if not files or (writes and missing):
        why = "; ".join(m.message for m in missing)
        if any(m.file.startswith("[") or m.file.endswith("]") or m.file == "..." for m in missing):
            why += " ([brackets] in an example mark optional parts: leave them out, or write what they stand for)"
        raise click.BadParameter(why + ("; nothing was written" if writes and files else ""), param_hint="PATH...")
    return files, missing


def _ray_address(value: str | None) -> str | None:
    if value is None:
        return None
    from ..on_ray import check_address

    try:
        return check_address(value)
    except InputError as bad:
        raise click.BadParameter(str(bad).removeprefix("--ray ")) from None


def with_progress(run, doing: str):
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




PROGRESS_AFTER_S = 1.0  # a run shorter than this draws no bar: it would only flash


class StepProgress:
    """A bar for one long run (simulate's steps) where stderr is a terminal, drawn once the run has gone on for
    PROGRESS_AFTER_S and gone when it ends; nothing in a pipe. Call it with the steps done."""

    def __init__(self, total: int, doing: str):
        self.total, self.doing = total, doing
        self.started = time.perf_counter()
        self.shown = 0.0
        self.bar = self.task = None
        self.terminal = sys.stderr.isatty()

    def __call__(self, done: int) -> None:
        if not self.terminal:
            return
        now = time.perf_counter()
        if self.bar is None:
            if now - self.started < PROGRESS_AFTER_S:
                return
            from rich.console import Console
            from rich.progress import MofNCompleteColumn, Progress

            self.bar = Progress(*Progress.get_default_columns(), MofNCompleteColumn(), console=Console(stderr=True),
                                transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.doing, total=self.total)
        elif now - self.shown < 0.05 and done < self.total:  # a step can take 0.1 ms: the bar needs no more
            return
        self.shown = now
        self.bar.update(self.task, completed=done)

    def __enter__(self) -> "StepProgress":
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def folders_to_make(paths: Sequence[str | os.PathLike | None]) -> list[str]:
    """The folders writing `paths` will make (their missing parents, outermost first): asked before writing, so
    that a command can say it made them."""
    missing: list[str] = []
    for path in paths:
        if path is None:
            continue
        folder = Path(path).parent  # as the user gave it (relative stays relative)
        chain = []
        while not folder.exists() and folder != folder.parent:
            chain.append(folder)
            folder = folder.parent
        for made in reversed(chain):
            if str(made) not in missing:
                missing.append(str(made))
    return missing


def say_written(written: Sequence[str], folders: Sequence[str] = (), err: bool = True) -> None:
    """One line saying which files a command wrote (each "PATH (what)"), and the folders it made for them."""
    if written:
        click.echo(f"wrote {', '.join(written)}{made_folders(folders)}", err=err)


def made_folders(folders: Sequence[str], alone: bool = False) -> str:
    """" (made the folder a/)" for the end of a line saying what was written ("made the folder a/" alone); ""
    when none was made."""
    if not folders:
        return ""
    said = f"made the folder{'s' if len(folders) > 1 else ''} {', '.join(f + '/' for f in folders)}"
    return said if alone else f" ({said})"
