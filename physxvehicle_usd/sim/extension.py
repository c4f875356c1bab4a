"""The simulator's one compiled extension (sim/_substeps, which setup.py builds from every C file of sim/), as the
modules that call into it (every sim/compiled_*.py, and motion.py) open it, check the structs they share with it, and
hand it arrays. Without it every caller runs its numpy twin."""
from __future__ import annotations

import ctypes
import importlib.util

import numpy as np


def extension_path() -> str | None:
    """Where the built extension is (None: not built)."""
    spec = importlib.util.find_spec(f"{__package__}._substeps")
    return spec.origin if spec is not None and spec.origin else None


def open_extension(function: str | None = None) -> ctypes.CDLL | None:
    """The extension where it is built and, with `function`, built with that function (an older build without it:
    None, and the caller's numpy path runs)."""
    path = extension_path()
    if path is None:
        return None
    lib = ctypes.CDLL(path)
    return lib if function is None or hasattr(lib, function) else None


def check_struct_size(lib: ctypes.CDLL, size_function: str, mirror: type[ctypes.Structure], module: str) -> None:
    """An ImportError where the extension's struct (the size its `size_function` returns) is not the size of its
    Python mirror: the extension was built from other sources."""
    size = getattr(lib, size_function)
    size.restype = ctypes.c_int64
    if size() != ctypes.sizeof(mirror):
        raise ImportError(f"{extension_path()} was built from another {mirror.__name__.lstrip('_')} ({size()} bytes, "
                          f"{module}'s mirror {ctypes.sizeof(mirror)}): rebuild (pip install -e .)")


_from_buffer, _addressof = ctypes.c_char.from_buffer, ctypes.addressof


def address(array: np.ndarray) -> int:
    """The address of a contiguous array's data: through the buffer protocol where the array is writable (a third of
    the time `array.ctypes.data` takes, and a step hands over dozens), else numpy's."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):  # read-only, or empty
        return array.ctypes.data


def addresses(arrays, empty_null: bool = False) -> list[int]:
    """`address` of each of `arrays` (with empty_null, 0 for an empty one: C's NULL), in one call: a call hands over
    some dozens, and a Python call per array costs as much again as the address."""
    out = []
    for array in arrays:
        if empty_null and not array.size:
            out.append(0)
            continue
        try:
            out.append(_addressof(_from_buffer(array)))
        except (TypeError, ValueError):  # read-only, or empty
            out.append(array.ctypes.data)
    return out
