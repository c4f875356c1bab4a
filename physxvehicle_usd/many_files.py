"""A per-file function over many files, the way `validate`, `convert` and `simulate` run over PATH...: serially, on
worker processes of this machine (`--jobs N`, physxvehicle_usd.workers) or on Ray (`--ray [ADDRESS]`,
physxvehicle_usd.on_ray); and the names of the files written for many inputs.

    for result in map_paths(validate_file, files, failed=unreadable, jobs=4):
        ...

The results come back one per file, in the order of `files`, as soon as each one and all before it are done, and
they are the same whichever way ran them: a command's report is the serial run's, byte for byte.
"""
from __future__ import annotations

import functools
import os
from typing import Callable, Iterable, Iterator, Sequence, TypeVar

from .errors import InputError

__all__ = ["map_paths", "output_base", "output_paths"]

R = TypeVar("R")


def map_paths(function: Callable[[str], R], files: Sequence[str], *, failed: Callable[[str, str], R], jobs: int = 1,
              ray: str | None = None, progress: Callable[[R], None] | None = None,
              started: Callable[[int], None] | None = None) -> Iterator[R]:
    """`function(file)` for every file, yielded in the order of `files`.

    jobs > 1: shared by this process and jobs - 1 worker processes (at most one process a file); ray: on Ray, "local"
    for a local instance started for the run (see on_ray.ray_session), else a cluster's address. `started(count)` is
    called first with the number of files (a progress bar's total), then `progress(result)` once for every result,
    as it is done.

    One file never stops the others: an exception `function` raises for a file (InputError, or anything else)
    becomes `failed(file, why)`, `why` starting with the file's path; so does a worker that dies on it. An ImportError
    is not the file's fault (a missing extra, a node without usd-core) and ends the run. With jobs > 1 or ray,
    `function` and `failed` are sent to other processes: module functions, or functools.partial of them."""
    if ray is not None and jobs > 1:
        raise ValueError("give jobs or ray, not both: two ways of running in parallel")
    if started:
        started(len(files))
    if not files:
        return
    guarded = functools.partial(_guarded, function, failed)
    if ray is not None:
        from .on_ray import map_files, ray_session

        with ray_session(ray):
            for result in map_files(guarded, files, failed=failed):
                if progress:
                    progress(result)
                yield result
    elif jobs > 1 and len(files) > 1:
        from .workers import map_on_workers

        module = getattr(function, "func", function).__module__  # what the fork server preloads, when it starts here
        yield from map_on_workers(guarded, files, min(jobs, len(files)), failed, progress, preload=[module])
    else:
        for file in files:
            result = guarded(file)
            if progress:
                progress(result)
            yield result


def _guarded(function: Callable[[str], R], failed: Callable[[str, str], R], file: str) -> R:
    try:
        return function(file)
    except ImportError:
        raise
    except InputError as bad:
        why = str(bad)
        return failed(file, why if why.startswith(f"{file}:") else f"{file}: {why}")
    except Exception as exc:  # noqa: BLE001 - a user never sees a traceback, and the other files still run
        return failed(file, f"{file}: internal error: {type(exc).__name__}: {exc} (please report this with the file)")


# -- what many inputs write -------------------------------------------------------------------------------------------

def output_base(paths: Iterable[str]) -> str:
    """The folder the inputs' output names are taken relative to: the deepest one holding every path given (a
    folder as itself, a file as its folder). `convert assets/ -o out/` thus writes out/cars/a.usda.json for
    assets/cars/a.usda, and `convert x/a.usda y/a.usda -o out/` out/x/a.usda.json and out/y/a.usda.json."""
    folders = [path if os.path.isdir(path) else os.path.dirname(path)
               for path in (os.path.abspath(p) for p in paths)]
    return os.path.commonpath(folders) if folders else os.getcwd()


def output_paths(files: Sequence[str], base: str, folder: str, suffix: str) -> dict[str, str]:
    """Where each file's output goes: `folder`/<the file's path from `base`><suffix>, the file's whole name kept
    (a.usda and a.usdc in one folder are two outputs). Distinct files thus get distinct names; a file given twice
    (also through a folder holding it), or an output that would replace an input, is an InputError."""
    inputs: dict[str, str] = {}
    for file in files:
        key = os.path.abspath(file)
        if key in inputs:
            also = f" (also as {inputs[key]})" if inputs[key] != file else ""
            raise InputError(f"{file} is given twice{also}: give each file once, as each writes its own output")
        inputs[key] = file
    names = {file: os.path.join(folder, os.path.relpath(key, base) + suffix) for key, file in inputs.items()}
    for file, name in names.items():
        if os.path.abspath(name) in inputs:
            raise InputError(f"its output {name} would replace the input of that name", file=file)
    return names
