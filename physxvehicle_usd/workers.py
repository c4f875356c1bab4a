"""The fork server that worker processes (`validate --jobs`) are forked from, started as soon as a command knows
it will use workers; and how files are cut into chunks for workers (here and on Ray).

Starting it means a fresh interpreter importing the validator (pxr, the plugin registry, the reader: most of a
second). Started before this process imports the same modules, that import runs on another core at the same
time instead of after this process's own; on two cores and a folder of small assets that is the difference
between workers that cost more than they gain and workers that gain.

The workers are forked from the server rather than from this process: this process runs USD's thread pool
(registering the plugin already starts it), and a fork does not carry threads or the locks they may hold.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
from typing import Sequence

PRELOAD = ["physxvehicle_usd.validate"]  # what every worker needs, imported once by the server


def file_chunks(files: Sequence[str], workers: int, max_size: int, per_worker: int) -> list[list[str]]:
    """Files in consecutive chunks of at most `max_size`, at least `per_worker` chunks a worker where there are
    enough files: a slow file then leaves the others busy to the end, and handing out a chunk costs little beside
    checking its files."""
    size = max(1, min(max_size, len(files) // (workers * per_worker)))
    return [list(files[i:i + size]) for i in range(0, len(files), size)]


def fork_context() -> multiprocessing.context.BaseContext:
    """The fork-server context, its server started (or already running) with PRELOAD imported."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    multiprocessing.forkserver.ensure_running()
    return context
