"""Opening stages and writing files safely.

USD reports composition problems (missing sublayers, unresolvable references) as warnings printed to
stderr by its default diagnostic delegate; we capture them so that they become our diagnostics instead
of noise, and turn open failures into InputError.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Iterator

from pxr import Pcp, Sdf, Tf, Usd

from ..errors import InputError

USD_EXTENSIONS = (".usd", ".usda", ".usdc", ".usdz")


@contextlib.contextmanager
def captured_stderr() -> Iterator[list[str]]:
    """Redirect the process's stderr (fd 2, where USD's C++ diagnostics go) and collect its lines."""
    lines: list[str] = []
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lines
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines.extend(line for line in sink.read().decode("utf-8", "replace").splitlines() if line.strip())


_PRIM_PREFIX = re.compile(r"^In <[^>]*>: ")
_STAGE_CONTEXT = re.compile(r"\s*\((?:instantiating|recomposing) stage on stage @[^@]*@ <0x[0-9a-fA-F]+>\)")
_ADDRESS = re.compile(r"\s*<0x[0-9a-fA-F]+>")


def short_usd_message(text: str) -> str:
    """One of USD's messages as a finding's text: without the C++ location (the sentence after the last ' -- '
    or ' : '), the "In </prim>:" prefix a composition error repeats, and the stage's memory address, so that
    one problem reads the same from the diagnostic stream and from the composition errors, run after run."""
    for sep in (" -- ", " : "):
        if sep in text:
            text = text.rsplit(sep, 1)[1]
    text = _PRIM_PREFIX.sub("", text.strip().strip("'"))
    return _ADDRESS.sub("", _STAGE_CONTEXT.sub("", text)).strip()


def _error_text(exc: Tf.ErrorException) -> str:
    """The first readable sentence of a USD error; its text may hold undecodable bytes from the file."""
    parts = []
    for arg in exc.args:
        try:
            parts.append(str(arg))
        except UnicodeDecodeError:  # USD quoted bytes of the file that are not UTF-8
            parts.append("the file is not valid USD text")
    details = [short_usd_message(line) for text in parts for line in text.splitlines() if line.strip()]
    return next((d for d in details if d), "not a valid USD file")


def open_stage(path: str | os.PathLike, load_all: bool = True) -> Usd.Stage:
    """Open a USD file as a stage, or raise InputError naming the file."""
    stage, _ = open_stage_with_warnings(path, load_all)
    return stage


def open_stage_with_warnings(path: str | os.PathLike, load_all: bool = True) -> tuple[Usd.Stage, list[str]]:
    """Open a stage; return it with USD's composition warnings as short messages."""
    file = str(path)
    p = Path(file)
    if not p.exists():
        raise InputError("no such file", file=file)
    if p.is_dir():
        raise InputError("is a folder, not a USD file", file=file)
    if not os.access(p, os.R_OK):
        raise InputError("file is not readable (permission denied)", file=file)
    if not Sdf.FileFormat.FindByExtension(p.suffix.lstrip(".") or "x"):
        raise InputError(f"not a USD file (unknown extension {p.suffix!r})", file=file)
    load = Usd.Stage.LoadAll if load_all else Usd.Stage.LoadNone
    with captured_stderr() as noise:
        try:
            stage = Usd.Stage.Open(file, load)
        except Tf.ErrorException as exc:
            stage, message = None, _error_text(exc)
        except Exception as exc:  # noqa: BLE001 - any failure of the USD reader is the file's fault here
            stage, message = None, str(exc) or type(exc).__name__
    if stage is None:
        raise InputError(f"cannot be opened as USD: {message}", file=file)
    missing_layers = [e for e in stage.GetCompositionErrors() if isinstance(e, Pcp.ErrorInvalidSublayerPath)]
    if missing_layers:
        # without one of its layers the stage is not the asset its author meant: refuse it rather than guess
        reasons = "; ".join(short_usd_message(str(e)) for e in missing_layers)
        raise InputError(f"unresolvable sublayer: {reasons}", file=file)
    warnings = list(dict.fromkeys(short_usd_message(line) for line in noise if "Warning" in line or "Error" in line))
    for error in stage.GetCompositionErrors():
        text = short_usd_message(str(error))
        if text not in warnings:
            warnings.append(text)
    return stage, warnings


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _output_folder(target: Path) -> None:
    """Make the output's folder, or raise InputError saying why it cannot be (a file in the way, no permission)."""
    for folder in (target.parent, *target.parent.parents):
        if folder.exists():
            if not folder.is_dir():
                raise InputError(f"cannot write here: {folder} is a file, not a folder", file=str(target))
            break
    if target.is_dir():
        raise InputError("is a folder; give a file name", file=str(target))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot make the folder {target.parent}: {exc.strerror or exc}", file=str(target)) from None


def write_atomic(path: str | os.PathLike, data: str | bytes) -> None:
    """Write a file through a temporary sibling and a rename, so readers never see half a file."""
    target = Path(path)
    _output_folder(target)
    mode = "wb" if isinstance(data, bytes) else "w"
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=str(target)) from None
    try:
        with os.fdopen(fd, mode) as handle:
            handle.write(data)
        os.chmod(tmp, _umask_mode())  # mkstemp makes 0600; the result should look like any new file
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def export_layer_atomic(layer: Sdf.Layer, path: str | os.PathLike) -> None:
    """Export a layer to `path` via a temporary file in the same folder (keeps the file format by extension)."""
    target = Path(path)
    if target.suffix.lower() == ".usdz":
        raise InputError("USD writes no .usdz package from a layer: write .usda or .usdc (and package it with "
                         "usdzip if you need a .usdz)", file=str(target))
    _output_folder(target)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=target.suffix, dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=str(target)) from None
    os.close(fd)
    try:
        try:
            written = layer.Export(tmp)
        except Tf.ErrorException as exc:
            raise InputError(f"USD could not write the file: {_error_text(exc)}", file=str(target)) from None
        if not written:
            raise InputError("USD could not write the file", file=str(target))
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
