"""The simulator's one compiled extension (sim/_substeps, which setup.py builds from every C file of sim/), as the
modules that call into it (every sim/compiled_*.py, and motion.py) open it, check the structs they share with it, and
hand it arrays. Without it every caller runs its numpy twin."""
from __future__ import annotations

import ctypes
import importlib.util
import threading

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
        return _addressof(_from_buffer(array))
    except (TypeError, ValueError):  # read-only, or empty
        return addresses((array,))[0]


def _python_addresses(arrays, empty_null: bool) -> list[int]:
    """`addresses` in Python: an address per array (where the extension's `pvu_buffer_addresses` is not built)."""
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


def _load_buffer_addresses():
    """The extension's pvu_buffer_addresses, called with the GIL held (it reads Python objects), and its output
    words; None where the extension is not built or was built without it."""
    path = extension_path()
    if path is None:
        return None
    lib = ctypes.PyDLL(path)
    if not hasattr(lib, "pvu_buffer_addresses"):
        return None
    function = lib.pvu_buffer_addresses
    function.argtypes = [ctypes.py_object, ctypes.c_int64, ctypes.c_void_p]
    function.restype = ctypes.c_int64
    return function


_BUFFER_ADDRESSES = _load_buffer_addresses()
_WORDS = 256  # the most addresses one call takes in C (a call hands over some dozens)


class _Words(threading.local):
    """Each thread's words for `pvu_buffer_addresses` to write (read back before another call can reuse them)."""

    def __init__(self):
        self.out = (ctypes.c_int64 * _WORDS)()
        self.at = ctypes.addressof(self.out)


_THREAD_WORDS = _Words()


def addresses(arrays, empty_null: bool = False) -> list[int]:
    """`address` of each of `arrays` (any iterable of arrays; with empty_null, 0 for an empty one: C's NULL), in one
    call: a call hands over some dozens, and a Python call per array costs as much again as the address. In C where
    the extension is built (`pvu_buffer_addresses`, the same addresses: every array's first element), else in
    Python."""
    if not isinstance(arrays, (list, tuple)):
        arrays = list(arrays)
    if _BUFFER_ADDRESSES is None or len(arrays) > _WORDS:
        return _python_addresses(arrays, empty_null)
    words = _THREAD_WORDS
    n = _BUFFER_ADDRESSES(arrays, empty_null, words.at)
    if n == len(arrays):
        return words.out[:n]
    return words.out[:n] + _python_addresses(arrays[n:], empty_null)


def write_addresses(arrays: tuple | list, at: int) -> None:
    """Write `address` of each of `arrays` (a tuple or list) as 64-bit words at the address `at` (a kept argument
    block a compiled call reads): as `addresses`, without a list made and copied on the way."""
    if _BUFFER_ADDRESSES is not None and len(arrays) <= _WORDS and _BUFFER_ADDRESSES(arrays, 0, at) == len(arrays):
        return
    words = _python_addresses(arrays, False)
    (ctypes.c_int64 * len(words)).from_address(at)[:] = words
