"""Worker processes on this machine (`--jobs N`): the fork server they are forked from, started as soon as a command
knows it will use workers; how files are cut into chunks for workers (here and on Ray); and the pool that runs a
per-file function over files on this process and N - 1 workers, results in input order.

Starting the server means a fresh interpreter importing what the workers need (pxr, the plugin registry, the reader:
most of a second). Started before this process imports the same modules, that import runs on another core at the
same time instead of after this process's own; on two cores and a folder of small assets that is the difference
between workers that cost more than they gain and workers that gain.

The workers are forked from the server rather than from this process: this process runs USD's thread pool
(registering the plugin already starts it), and a fork does not carry threads or the locks they may hold.
"""
from __future__ import annotations

import itertools
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
import site
import threading
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

R = TypeVar("R")

PRELOAD = ("physxvehicle_usd.validate",)  # imported once by the server when the command says nothing else
MAX_CHUNK = 8     # files a worker takes at once at most: taking a chunk costs little beside checking its files
CHUNKS_PER_WORKER = 6  # at least this many chunks a process where there are enough files: an even finish


def file_chunks(files: Sequence[str], workers: int, max_size: int, per_worker: int) -> list[list[str]]:
    """Files in consecutive chunks of at most `max_size`, at least `per_worker` chunks a worker where there are
    enough files: a slow file then leaves the others busy to the end, and handing out a chunk costs little beside
    checking its files."""
    size = max(1, min(max_size, len(files) // (workers * per_worker)))
    return [list(files[i:i + size]) for i in range(0, len(files), size)]


def package_root() -> str:
    """The folder the running physxvehicle_usd is imported from (a checkout, or the editable install's source)."""
    return str(Path(__file__).resolve().parent.parent)


def same_package_pythonpath() -> str | None:
    """The PYTHONPATH under which a fresh interpreter imports this same physxvehicle_usd: its package root first
    (a checkout run as `PYTHONPATH=. python -m ...` would otherwise, from another folder or on a Ray worker, import
    whatever copy is installed); None for a package installed in site-packages, which needs nothing (that folder
    on PYTHONPATH would come before the standard library and could shadow it)."""
    root = package_root()
    site_dirs = {str(Path(d).resolve()) for d in [*site.getsitepackages(), site.getusersitepackages()]}
    if root in site_dirs:
        return None
    return os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)


def fork_context(preload: Sequence[str] = PRELOAD) -> multiprocessing.context.BaseContext:
    """The fork-server context, its server started with the modules `preload` imported (or already running, with
    whatever the first call preloaded: a worker imports the rest itself), importing the same physxvehicle_usd as
    this process (Python 3.11's server takes its import path from its environment, not from this process)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    path, before = same_package_pythonpath(), os.environ.get("PYTHONPATH")
    if path is not None:
        os.environ["PYTHONPATH"] = path  # for the server's start only
    try:
        multiprocessing.forkserver.ensure_running()
    finally:
        if before is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = before
    return context


def _take(counter, claimed=None, slot: int = 0) -> int:
    """The next chunk's index (past the end: no work left); a worker notes which it holds, under the same lock."""
    with counter.get_lock():
        index = counter.value
        counter.value += 1
        if claimed is not None:
            claimed[slot] = index
    return index


def _get_ready() -> None:
    """USD on one thread (the processes are the parallelism), and the plugin, the reader and USD's file formats
    loaded by a first stage."""
    from pxr import Usd, Work

    from .read import read_stage

    Work.SetConcurrencyLimit(1)
    read_stage(Usd.Stage.CreateInMemory())


def _worker(function, chunks: list[list[str]], starts: list[int], counter, claimed, slot: int, out) -> None:
    """A worker process: gets ready, then takes the next chunk until none is left, sending (position in the input,
    result) for each file as soon as it is done: when the worker dies on a file, the files before it are in and the
    file it died on is known. Getting ready before taking work matters: a chunk taken by a worker that is still
    loading would keep the others waiting for it."""
    _get_ready()
    while (index := _take(counter, claimed, slot)) < len(chunks):
        for offset, file in enumerate(chunks[index]):
            out.put((starts[index] + offset, function(file)))


def _how_it_stopped(exitcode: int) -> str:
    return f"killed by signal {-exitcode}" if exitcode < 0 else f"exit code {exitcode}"


def map_on_workers(function: Callable[[str], R], files: Sequence[str], processes: int,
                   failed: Callable[[str, str], R], progress: Callable[[R], None] | None = None,
                   preload: Sequence[str] = PRELOAD) -> Iterator[R]:
    """`function(file)` for every file, shared by this process and `processes - 1` workers taking chunks from one
    counter; yielded in the order of `files` as soon as each one and all before it are done. `progress(result)` is
    called for each result as it comes in (in any order). `function` must never raise for a bad file (see
    many_files.map_paths) and must be picklable (a module's function, or a functools.partial of one).

    A worker that dies (USD brought it down) fails the file it was working on, `failed(file, why)`; this process
    then does the rest of that worker's chunk. The workers are forked from the fork server, which imported `preload`
    and never ran USD's threads: they start in milliseconds (spawned workers spent 1-2 s each importing pxr, more
    than 100 small assets take to check on 2 cores), without inheriting the locks or thread pool of this process,
    which may have opened stages already (a library caller, the tests). This process works from the first moment,
    while the workers start; when all chunks are done, a worker still getting ready is stopped."""
    from multiprocessing.connection import wait

    context = fork_context(preload)  # the CLI may have started it already
    chunks = file_chunks(files, processes, MAX_CHUNK, CHUNKS_PER_WORKER)
    starts = list(itertools.accumulate((len(chunk) for chunk in chunks[:-1]), initial=0))
    counter = context.Value("i", 0)
    claimed = context.Array("i", [-1] * (processes - 1))
    out = context.SimpleQueue()
    workers = [context.Process(target=_worker, args=(function, chunks, starts, counter, claimed, slot, out),
                               daemon=True) for slot in range(processes - 1)]
    # Process.start waits until the fork server has imported `preload` (most of a second after the command began):
    # started from a thread, this process works meanwhile instead of waiting with it
    starting = threading.Thread(target=lambda: [worker.start() for worker in workers], daemon=True)
    starting.start()
    done: dict[int, R] = {}
    emitted = 0
    recovered: set[int] = set()  # chunks of dead workers, finished here

    def receive(position: int, result: R) -> None:
        done[position] = result
        if progress:
            progress(result)

    def in_order() -> Iterator[R]:
        nonlocal emitted
        while emitted in done:
            yield done.pop(emitted)
            emitted += 1

    def recover(index: int, how: str) -> None:
        """A dead worker's chunk: its first file not in yet is the one it died on; this process does the rest."""
        recovered.add(index)
        left = [p for p in range(starts[index], starts[index] + len(chunks[index])) if p >= emitted and p not in done]
        for n, position in enumerate(left):
            file = files[position]
            receive(position, failed(file, f"{file}: the worker process working on it stopped ({how})") if n == 0
                    else function(file))

    try:
        while (index := _take(counter)) < len(chunks):
            for offset, file in enumerate(chunks[index]):
                receive(starts[index] + offset, function(file))
            while not out.empty():
                receive(*out.get())
            yield from in_order()
        starting.join()
        while True:
            # the dead first, then what is in the pipe: everything a dead worker sent is in by then, so the first
            # file of its chunk still missing is the one it died on
            dead = [(slot, worker.exitcode) for slot, worker in enumerate(workers)
                    if worker.pid is not None and worker.exitcode not in (None, 0)]
            while not out.empty():
                receive(*out.get())
            for slot, exitcode in dead:
                held = claimed[slot]
                if 0 <= held < len(chunks) and held not in recovered:
                    recover(held, _how_it_stopped(exitcode))
            yield from in_order()
            if emitted == len(files):
                break
            live = [w.sentinel for w in workers if w.pid is not None and w.exitcode is None]
            if not live:
                raise RuntimeError("the worker processes stopped before finishing their work")
            wait([out._reader, *live])
    finally:
        starting.join()
        for worker in workers:
            if worker.pid is None:  # its start failed: nothing to stop
                continue
            if worker.is_alive():
                worker.terminate()
            worker.join()
