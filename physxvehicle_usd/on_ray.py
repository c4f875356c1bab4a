"""Per-file work on Ray (`validate`, `convert`, `simulate` PATH... `--ray [ADDRESS]`, through many_files.map_paths):
a local Ray instance or a cluster runs a function over many files, and the results come back one per file, in input
order, as they are done.

    with ray_session("local"):            # or "HOST:PORT", "ray://HOST:PORT", "auto"
        for result in map_files(validate_file, files, failed=unreadable):
            ...

Ray is an optional extra (`pip install 'physxvehicle-usd[ray]'`); nothing else in the package imports it.

- Tasks take chunks of files: a Ray task costs about a millisecond of scheduling on a quiet machine (much more on a
  busy one), a small asset about 10 ms to check (benchmarks/bench_library.py); chunks keep that overhead small
  while leaving enough chunks per CPU that the last ones do not leave most of the cluster idle.
- Results are yielded in input order as soon as every earlier chunk is in, so that the report (and a progress bar)
  is the serial run's.
- One file never stops the others: the per-file function is expected to turn a bad file into a result itself
  (validate_file does); a chunk whose task fails anyway (its worker crashed, its node went away) is run again one
  file per task, and a file whose own task fails becomes `failed(file, why)`. A failure that is not the file's
  fault (the workers cannot import this package) ends the run with an InputError instead of failing every file.
- The workers open the files by the paths given, in the caller's working directory: on a cluster the files must be
  on a file system that every node mounts at the same path (the paths in the report are then those of the serial
  run). A node without that directory fails its files with a message saying so.
"""
from __future__ import annotations

import logging
import os
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Sequence, TypeVar

from .errors import InputError
from .workers import file_chunks, package_root, same_package_pythonpath

__all__ = ["LOCAL", "RAY_MISSING", "check_address", "import_ray", "map_files", "package_root", "ray_session",
           "task_error_cause"]

LOCAL = "local"  # `--ray` without an address: Ray's own name for "start a new local instance"
CLI = "--ray"    # what asked for Ray, as its messages name it: the command line's option, or a library's argument
_MISSING = "{caller} needs Ray, an optional extra: pip install 'physxvehicle-usd[ray]'"
RAY_MISSING = _MISSING.format(caller=CLI)
# A local instance only moves small results (a chunk's results are a few kB, passed inline, not through the object
# store): Ray's default store (30 % of the machine's memory) would reserve shared memory for nothing.
LOCAL_OBJECT_STORE_BYTES = 256 * 1024**2
CONNECT_TIMEOUT_S = 10.0  # to reach a cluster's head node before asking Ray to join it
MAX_CHUNK = 32           # files per task at most: beyond this the task overhead is well under 1 % of a chunk
CHUNKS_PER_CPU = 8       # at least this many chunks per CPU where there are enough files: an even finish

R = TypeVar("R")


def import_ray(caller: str = CLI):
    """The ray module, or an InputError saying how to install it (the CLI prints it as one line, exit 2)."""
    try:
        import ray
    except ImportError as missing:
        if missing.name != "ray":  # Ray is there but one of its own dependencies is not: installing it is no answer
            raise InputError(f"{caller}: Ray is installed but does not import: {missing}") from missing
        raise InputError(_MISSING.format(caller=caller)) from missing
    return ray


def check_address(address: str) -> str:
    """`address` when it can be a Ray address (local, auto, HOST:PORT, ray://HOST:PORT), else an InputError.

    `--ray` takes an optional value, so `validate --ray assets/` reads `assets/` as the address; a file or folder
    that exists is said to be one, rather than tried as a cluster (which would fail after a long connection
    timeout, or worse, be validated by nobody)."""
    if address and Path(address).exists():
        raise InputError(f"--ray took {address!r} as the Ray address, but it is a file or folder: put --ray after the "
                         "paths, or give the address with --ray=ADDRESS (--ray=local for a local Ray instance)")
    host, _, port = address.rpartition(":")
    if address in (LOCAL, "auto") or "://" in address or (host and port.isdigit()):
        return address
    raise InputError(f"--ray {address!r} is not a Ray address: give local, auto, HOST:PORT or ray://HOST:PORT")


def _local_runtime_env() -> dict:
    """The workers of a local instance import the same physxvehicle_usd as this process (workers.py says how)."""
    path = same_package_pythonpath()
    return {} if path is None else {"env_vars": {"PYTHONPATH": path}}


def _cluster_runtime_env() -> dict:
    """A cluster's nodes get this package's own code, uploaded by Ray with the job (py_modules): every node checks
    with the code that wrote the serial report, whichever version they have installed. They need its dependencies
    (usd-core, numpy, pydantic) installed."""
    return {"py_modules": [str(Path(__file__).resolve().parent)], "excludes": ["__pycache__"]}


@contextmanager
def ray_session(address: str = LOCAL, caller: str = CLI) -> Iterator[None]:
    """Ray ready for map_files: a new local instance (`address` "local"), or this process joined to the cluster at
    `address`; shut down on leaving. When Ray is already initialised in this process (a caller's own ray.init),
    that instance is used as it is, whatever `address` says, and left running: its runtime_env is the caller's to
    set (see _local_runtime_env for why it matters). `caller` names what asked for Ray in the messages."""
    ray = import_ray(caller)
    if ray.is_initialized():
        yield
        return
    # ERROR: Ray's start-up notes (the local instance's ports, token authentication) would be noise on stderr; the
    # workers' own output stays in Ray's log files (log_to_driver=False): the report is what this command prints.
    options = dict(address=address, logging_level=logging.ERROR, log_to_driver=False)
    if address == LOCAL:
        options.update(include_dashboard=False, object_store_memory=LOCAL_OBJECT_STORE_BYTES,
                       runtime_env=_local_runtime_env())
    else:
        _answers(address, caller)
        options.update(runtime_env=_cluster_runtime_env())
    try:
        with warnings.catch_warnings():  # Ray's notes about its own future defaults (GPU variables) are not the user's
            warnings.simplefilter("ignore", FutureWarning)
            ray.init(**options)
    except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, ValueError, RuntimeError... for a bad address
        what = "start a local Ray instance" if address == LOCAL else f"join the Ray cluster at {address}"
        raise InputError(f"{caller}: could not {what}: {_first_line(exc)}") from exc
    try:
        yield
    finally:
        ray.shutdown()  # a local instance stops with it; a cluster keeps running


def _answers(address: str, caller: str) -> None:
    """An InputError unless something listens at the address's HOST:PORT. Ray itself retries an address where
    nothing answers for as long as the command runs, printing a warning every few seconds; "auto" (the cluster this
    machine is part of) is Ray's to find, and it fails at once when there is none."""
    import socket

    host, _, port = address.split("://")[-1].rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise InputError(f"{caller}: nothing answers at {address} ({exc.strerror or type(exc).__name__}): is the Ray "
                         "cluster's head node running there (ray start --head)?") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class Unreachable(Exception):
    """The caller's working directory does not exist on the node that got the task: no shared file system."""


def _run_chunk(function: Callable[[str], R], cwd: str, files: list[str]) -> list[R]:
    """A task: `function` over the files, in the caller's working directory (relative paths, and messages naming
    the files as given), USD on one thread (Ray runs a task per CPU; USD's own thread pool on top of that would
    oversubscribe the node, as the --jobs workers' limit says too)."""
    from pxr import Work

    Work.SetConcurrencyLimit(1)
    before = os.getcwd()
    try:
        os.chdir(cwd)
    except OSError as exc:
        import socket

        raise Unreachable(f"not reachable from Ray node {socket.gethostname()}: no folder {cwd} there "
                          f"({exc.strerror}); the files must be on a file system every node mounts at the same path"
                          ) from None
    try:
        return [function(file) for file in files]
    finally:
        os.chdir(before)  # a Ray worker runs other tasks after this one


def task_error_cause(ray, error: BaseException) -> BaseException:
    """The exception a task raised (Ray wraps it in a RayTaskError; one raised while the worker unpickled the task,
    such as a module it cannot import, in a RaySystemError too), or Ray's own error (a worker crash)."""
    if isinstance(error, ray.exceptions.RayTaskError) and error.cause is not None:
        error = error.cause
    if isinstance(error, ray.exceptions.RaySystemError) and isinstance(error.client_exc, BaseException):
        error = error.client_exc
    return error


def _not_the_files_fault(cause: BaseException) -> bool:
    """The workers cannot run this package at all (it or a dependency does not import there): every file would fail
    the same way, so the run stops with that one message instead."""
    return isinstance(cause, ImportError)


def map_files(function: Callable[[str], R], files: Sequence[str], failed: Callable[[str, str], R]) -> Iterator[R]:
    """`function(file)` for every file on the Ray this process is connected to (ray_session), yielded in the order
    of `files` as soon as each one and all before it are done. A file whose task fails (its worker crashed) yields
    `failed(file, why)`, `why` starting with the file's path as validate's messages do."""
    ray = import_ray()
    if not files:
        return
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    chunks = file_chunks(files, cpus, MAX_CHUNK, CHUNKS_PER_CPU)
    # max_retries=0: a worker that crashed on a file would crash again on it; the chunk is re-run file by file instead
    # (which also covers a node lost halfway: those tasks go to the nodes left).
    task = ray.remote(num_cpus=1, max_retries=0)(_run_chunk)
    cwd = os.getcwd()
    function_ref = ray.put(function)  # pickled once, not once per task
    window = max(2, 4 * cpus)         # tasks in flight: every CPU busy, without queueing the whole list at once
    done: dict[int, list[R]] = {}
    pending: dict = {}
    submitted = emitted = 0
    try:
        while emitted < len(chunks):
            while submitted < len(chunks) and len(pending) < window:
                pending[task.remote(function_ref, cwd, chunks[submitted])] = submitted
                submitted += 1
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                index = pending.pop(ref)
                try:
                    done[index] = ray.get(ref)
                except ray.exceptions.RayError as error:
                    done[index] = _one_by_one(ray, task, function_ref, cwd, chunks[index], failed, error)
            while emitted in done:
                yield from done.pop(emitted)
                emitted += 1
    finally:
        # stopped early (an error, Ctrl-C, a caller that stopped iterating): the cluster need not finish the rest
        for ref in pending:
            ray.cancel(ref)


def _one_by_one(ray, task, function_ref, cwd: str, files: list[str], failed, chunk_error: BaseException) -> list:
    """A failed chunk again, a task per file, so that only the file that brings its worker down fails."""
    cause = task_error_cause(ray, chunk_error)
    if _not_the_files_fault(cause):
        raise InputError(f"--ray: the Ray workers cannot run physxvehicle_usd: {_first_line(cause)} (the nodes need "
                         "usd-core, numpy and pydantic installed, at the versions of this machine)")
    refs = [task.remote(function_ref, cwd, [file]) for file in files]
    results = []
    for file, ref in zip(files, refs):
        try:
            results.extend(ray.get(ref))
        except ray.exceptions.RayError as error:
            cause = task_error_cause(ray, error)
            if isinstance(cause, Unreachable):
                results.append(failed(file, f"{file}: {cause}"))
            else:
                results.append(failed(file, f"{file}: the Ray worker working on it stopped: {_first_line(cause)}"))
    return results
