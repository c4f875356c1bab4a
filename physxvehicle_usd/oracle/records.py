"""Recorded PhysX runs: the oracle's results kept in a folder, keyed by everything that decides them.

A conformance suite compares our simulator with PhysX on many stages; running PhysX for each costs most of the
suite's time. With a records folder, `run_ovphysx` and `sweep_ovphysx` look their result up there first:

    PVU_PHYSX_RECORDS=tests/data/physx_records      the folder (unset: no records, every run starts ovphysx)
    PVU_PHYSX_RECORDS_MODE=use | check | record     what a run does with it (default use)

- use: a recorded result when there is one; otherwise ovphysx runs and its result is recorded, so that the next
  run finds it (said on stderr, once per record).
- check: ovphysx always runs, and a result that differs from its record (or has none) is an `OracleError` naming
  the record: the records are stale. A result that differs is asked for once more: a record the second run returns
  stands (said on stderr), and two runs that differ from each other are said to be PhysX's variation, not a stale
  record. The soak step runs so.
- record: ovphysx always runs and its result replaces the record (where it differs from it).

A record's key is a SHA-256 over the ovphysx version, the request (steps, dt, controls, telemetry, vehicles, sweeps;
not the stage's file name, which is often a temporary folder) and the stage as USD composes it (`Usd.Stage.Flatten`:
its referenced assets and sublayers included; its
documentation string left out). A record holds the worker's result as it returned it, float arrays
as float32 where that loses nothing (PhysX computes in float32; the worker widens them), compressed; it reads back
as the run returned it.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Callable

import numpy as np

FOLDER_VARIABLE = "PVU_PHYSX_RECORDS"
MODE_VARIABLE = "PVU_PHYSX_RECORDS_MODE"
MODES = ("use", "check", "record")

Result = tuple[dict, dict[str, np.ndarray], str]  # (meta, arrays, what the worker printed)


class StaleRecord(RuntimeError):
    """A recorded PhysX result no longer matches what PhysX returns (check mode)."""


def _folder_and_mode() -> tuple[Path | None, str]:
    folder = os.environ.get(FOLDER_VARIABLE)
    mode = os.environ.get(MODE_VARIABLE, "use")
    if mode not in MODES:
        raise ValueError(f"{MODE_VARIABLE}={mode!r}: expected one of {', '.join(MODES)}")
    return (Path(folder) if folder else None), mode


def _ovphysx_version() -> str:
    try:
        return metadata.version("ovphysx")
    except metadata.PackageNotFoundError:
        return "absent"


def _stage_text(usd_path: str) -> str:
    """The stage as USD composes it: what PhysX is given, whatever file names its layers have."""
    from pxr import Usd

    stage = Usd.Stage.Open(usd_path, Usd.Stage.LoadAll)
    if stage is None:
        raise OSError(f"{usd_path}: not a stage")
    flat = stage.Flatten(addSourceFileComment=False)
    flat.documentation = ""  # a stage flattened before names its source file there, which moves with the checkout
    return flat.ExportToString()


def record_key(request: dict) -> str:
    """The record's name for `request` (the worker's request, `usd_path` among its entries)."""
    described = {key: value for key, value in request.items() if key != "usd_path"}
    digest = hashlib.sha256()
    digest.update(_ovphysx_version().encode())
    digest.update(json.dumps(described, sort_keys=True).encode())
    digest.update(_stage_text(request["usd_path"]).encode())
    return digest.hexdigest()[:24]


def _narrow(value: np.ndarray) -> np.ndarray:
    """float64 values that are float32 ones widened (all of PhysX's) as float32: half the record, nothing lost."""
    if value.dtype != np.float64:
        return value
    narrow = value.astype(np.float32)
    return narrow if np.array_equal(narrow.astype(np.float64), value, equal_nan=True) else value


def _narrowed(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {key: _narrow(value) for key, value in arrays.items()}


def _write(path: Path, result: Result, request: dict) -> None:
    meta, arrays, output = result
    path.parent.mkdir(parents=True, exist_ok=True)
    # a scratch file of this process's own, renamed into place: test workers may record the same run at once
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.stem, suffix=".partial", delete=False) as scratch:
        np.savez_compressed(scratch, meta=np.array(json.dumps(meta)), output=np.array(output),
                            stage=np.array(Path(request["usd_path"]).name), **_narrowed(arrays))
    os.replace(scratch.name, path)


def _read(path: Path) -> Result:
    with np.load(path) as stored:
        meta = json.loads(str(stored["meta"]))
        arrays = {key: stored[key].astype(np.float64) if stored[key].dtype == np.float32 else stored[key]
                  for key in stored.files if key not in ("meta", "output", "stage")}
        return meta, arrays, str(stored["output"])


def _same(recorded: Result, fresh: Result) -> str | None:
    """None when a fresh run returns what was recorded; else the first difference, in words."""
    (meta_a, arrays_a, _), (meta_b, arrays_b, _) = recorded, fresh
    if sorted(arrays_a) != sorted(arrays_b):
        return f"recorded quantities {sorted(set(arrays_a) ^ set(arrays_b))} differ"
    for key, value in arrays_a.items():
        if value.shape != arrays_b[key].shape or not np.array_equal(value, arrays_b[key], equal_nan=True):
            return f"{key} differs"
    timings = ("load_s", "step_s")
    if {k: v for k, v in meta_a.items() if k not in timings} != {k: v for k, v in meta_b.items() if k not in timings}:
        return "the run's description (paths, recorded steps, sweeps) differs"
    return None


def recorded(request: dict, run: Callable[[], Result]) -> Result:
    """`run()` (the worker's result for `request`), or its record, as the records folder and mode say."""
    folder, mode = _folder_and_mode()
    if folder is None:
        return run()
    try:
        path = folder / f"{record_key(request)}.npz"
    except Exception:  # a stage USD cannot open (pxr's Tf.ErrorException among them): the worker says why
        return run()
    if mode == "use" and path.is_file():
        return _read(path)
    result = run()
    if mode == "check":
        if not path.is_file():
            raise StaleRecord(f"no PhysX record {path.name} for {Path(request['usd_path']).name} in {folder}: "
                              f"record it with {MODE_VARIABLE}=record")
        stored = _read(path)
        difference = _same(stored, result)
        if difference is None:
            return result
        # PhysX asked again: a record it still returns is not stale. A run of NVIDIA's setups fleet has come back
        # with other wheel positions in two of six CI checks, and as recorded when run alone: its CPU solver
        # does not always return the same bits for the same request.
        again = run()
        name = Path(request["usd_path"]).name
        if _same(stored, again) is None:
            print(f"PhysX's first run of {name} differed from its record {path.name} ({difference}) and the second "
                  "matched it: the record stands", file=sys.stderr)
            return again
        if _same(result, again) is not None:
            raise StaleRecord(f"PhysX's two runs of {name} differ from each other and from its record {path.name} "
                              f"({difference}): PhysX varies on this request")
        raise StaleRecord(f"the PhysX record {path.name} of {name} is stale ({difference}): record it again with "
                          f"{MODE_VARIABLE}=record")
    if mode == "record" and path.is_file() and _same(_read(path), result) is None:
        return result  # unchanged: the file stays as it is (a rewrite would change its bytes, not its content)
    _write(path, result, request)
    if mode == "use":
        print(f"recorded PhysX's run of {Path(request['usd_path']).name} as {path}", file=sys.stderr)
    return result
