"""A PhysX vehicle snippet's JSON files read, and checked access to their values (author/snippet.py turns them into a
stage description): a missing file, key or a value of the wrong shape is a SnippetFormatError naming the file and the
key.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..runtime.snippet import BASE_FILE, DIRECT_DRIVE_FILE, ENGINE_DRIVE_FILE, SnippetFormatError


def read_snippet_files(directory: str | Path, drive: str | None = None) -> dict[str, dict]:
    """Base.json plus the drive file of a snippet vehicle folder, parsed.

    drive: "engine" (EngineDrive.json), "direct" (DirectDrive.json) or None (EngineDrive.json when present)."""
    folder = Path(directory)
    if not folder.is_dir():
        raise SnippetFormatError("not a folder of snippet vehicle files", file=str(folder))
    if drive not in (None, "engine", "direct"):
        raise SnippetFormatError(f"drive must be 'engine' or 'direct', got {drive!r}")
    if drive is None:
        drive = "engine" if (folder / ENGINE_DRIVE_FILE).is_file() else "direct"
    drive_file = ENGINE_DRIVE_FILE if drive == "engine" else DIRECT_DRIVE_FILE
    files = {}
    for name in (BASE_FILE, drive_file):
        path = folder / name
        if not path.is_file():
            raise SnippetFormatError(f"{name} is missing (a snippet vehicle needs {BASE_FILE} and "
                                     f"{ENGINE_DRIVE_FILE} or {DIRECT_DRIVE_FILE})", file=str(folder))
        try:
            data = json.loads(path.read_text())
        except (OSError, UnicodeDecodeError) as exc:
            raise SnippetFormatError(f"cannot be read: {exc}", file=str(path)) from None
        except json.JSONDecodeError as exc:
            raise SnippetFormatError(f"is not JSON: {exc}", file=str(path)) from None
        except RecursionError:
            raise SnippetFormatError("is nested too deeply to be read (no snippet file nests more than a few "
                                     "levels)", file=str(path)) from None
        except ValueError as exc:  # e.g. an integer longer than Python converts (4300 digits)
            raise SnippetFormatError(f"holds a value that cannot be read: {exc}", file=str(path)) from None
        if not isinstance(data, dict):
            raise SnippetFormatError("the top level must be a JSON object", file=str(path))
        files[name] = data
    return files


class SnippetDoc:
    """Checked access to one snippet file: a missing key or a wrong shape names the file and the key."""

    def __init__(self, data: Mapping, file: str):
        self.data, self.file = data, file

    def fail(self, key: str, message: str) -> SnippetFormatError:
        return SnippetFormatError(f"{key}: {message}", file=self.file)

    def get(self, *keys: str | int, node: Any = None) -> Any:
        value = self.data if node is None else node
        path = ""
        for key in keys:
            path += f"[{key}]" if isinstance(key, int) else (f".{key}" if path else key)
            if isinstance(key, int):
                if not isinstance(value, list) or key >= len(value):
                    raise self.fail(path, "missing")
            elif not isinstance(value, Mapping) or key not in value:
                raise self.fail(path, "missing")
            value = value[key]
        return value

    def number(self, *keys: str | int, node: Any = None) -> float:
        value = self.get(*keys, node=node)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self.fail(".".join(map(str, keys)), f"expected a finite number, got {value!r}")
        return float(value)

    def numbers(self, *keys: str | int, node: Any = None, length: int | None = None) -> list[float]:
        value = self.get(*keys, node=node)
        where = ".".join(map(str, keys))
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list of numbers, got {value!r}")
        out = [self.number(i, node=value) for i in range(len(value))]
        if length is not None and len(out) != length:
            raise self.fail(where, f"expected {length} numbers, got {len(out)}")
        return out

    def rows(self, *keys: str | int, node: Any = None, width: int, max_rows: int | None = None) -> list[list[float]]:
        value = self.get(*keys, node=node)
        where = ".".join(map(str, keys))
        if not isinstance(value, list):
            raise self.fail(where, "expected a list")
        if max_rows is not None and len(value) > max_rows:
            raise self.fail(where, f"at most {max_rows} entries, got {len(value)}")
        return [self.numbers(i, node=value, length=width) for i in range(len(value))]

    def per_wheel(self, key: str, n: int) -> dict[int, Mapping]:
        items = self.get(key)
        if not isinstance(items, list) or len(items) != n:
            raise self.fail(key, f"expected one entry per wheel ({n})")
        out: dict[int, Mapping] = {}
        for i, item in enumerate(items):
            wheel_id = int(self.number("WheelId", node=item)) if isinstance(item, Mapping) else -1
            if not 0 <= wheel_id < n or wheel_id in out:
                raise self.fail(f"{key}[{i}].WheelId", f"must be a distinct wheel id in 0..{n - 1}")
            out[wheel_id] = item
        return out
