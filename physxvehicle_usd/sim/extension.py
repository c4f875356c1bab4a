"""The simulator's one compiled extension (sim/_substeps, which setup.py builds from every C file of sim/), as the
modules that call into it (every sim/compiled_*.py, motion.py and guard.py) open it, check the structs they share with
it, and hand it arrays: their addresses (`addresses`, `kind_addresses` with their types checked) and copies into the
buffers a call reads (`copy_into`), each in one C call for all of a call's arrays (_addresses.c). Without it every
caller runs its numpy twin."""
from __future__ import annotations

import ctypes
import functools
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


@functools.lru_cache(maxsize=None)
def words_type(n: int) -> type:
    """The ctypes array type of n 64-bit words, made once per length and kept here: ctypes keeps its array types
    weakly, so a type made where it is used becomes cyclic garbage when its last array goes (garbage that read_stage,
    which runs with the collector paused, must not find)."""
    return ctypes.c_int64 * n


@functools.lru_cache(maxsize=None)
def pointers_type(n: int) -> type:
    """The ctypes array type of n pointers, made once per length and kept (`words_type`)."""
    return ctypes.c_void_p * n


class _Words(threading.local):
    """Each thread's words for `pvu_buffer_addresses` to write (read back before another call can reuse them)."""

    def __init__(self):
        self.out = words_type(_WORDS)()
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
    words_type(len(words)).from_address(at)[:] = words


# `copy_into`'s element kinds (_addresses.c's): numpy's dtype of each
_KINDS = {np.dtype(np.bool_): 0, np.dtype(np.int32): 1, np.dtype(np.int64): 2, np.dtype(np.float32): 3,
          np.dtype(np.float64): 4}
_TABLE_COLUMNS = 7  # a target's row: address (past a base), kind, ndim, shape (4)


def open_object_function(name: str, argtypes: list, restype=ctypes.c_int64):
    """One of the extension's functions that read Python objects (arrays through the buffer protocol), called with
    the GIL held (ctypes.PyDLL); None where the extension is not built or was built without it."""
    path = extension_path()
    if path is None:
        return None
    lib = ctypes.PyDLL(path)
    if not hasattr(lib, name):
        return None
    function = getattr(lib, name)
    function.argtypes = argtypes
    function.restype = restype
    return function


_COPY_INTO = open_object_function("pvu_copy_into", [ctypes.py_object, ctypes.c_void_p, ctypes.c_int64,
                                                    ctypes.c_void_p])


class CopyTable:
    """`copy_into`'s rows for some targets: each target's address (or its offset past a base), kind and shape, in an
    int64 array whose address is taken once."""

    def __init__(self, rows: np.ndarray):
        self.rows = rows
        self.at = address(rows)


def copy_table(targets, offsets=None) -> CopyTable | None:
    """`copy_into`'s rows of these target arrays (C-contiguous, writable, of the kinds it converts to, up to 4
    dimensions, at most 64): their addresses, or where `offsets` is given those offsets (in bytes) past the base a
    call gives; None where the extension is not built or a target is not one it writes (numpy's copyto then)."""
    targets = list(targets)
    if _COPY_INTO is None or len(targets) > 64:
        return None
    rows = np.zeros((len(targets), _TABLE_COLUMNS), np.int64)
    for k, target in enumerate(targets):
        kind = _KINDS.get(target.dtype)
        if kind is None or target.ndim > 4 or not target.flags.c_contiguous or not target.flags.writeable:
            return None
        rows[k, :3 + target.ndim] = (address(target) if offsets is None else offsets[k], kind, target.ndim,
                                     *target.shape)
    return CopyTable(rows)


def copy_all(values, table: CopyTable, base: int = 0) -> int | None:
    """`copy_into` where the C call copies every value: its bit mask; None where it does not (some values copied,
    the rest the caller's to copy)."""
    words = _THREAD_WORDS
    done = _COPY_INTO(values, table.at, base, words.at)
    return words.out[0] if done == len(values) else None


def copy_into(values, table: CopyTable | None, targets, base: int = 0) -> int:
    """np.copyto(target, value, casting="unsafe") of each value (a list or tuple) into its target (`table`'s row;
    base: the address the rows' offsets are past, 0 for rows of addresses), in one C call where each value is
    C-contiguous, of its target's shape and of a kind the call converts from (numpy's copyto for the first that is
    not, and those after it; `targets`: the target arrays, or a function of no argument that returns them, called
    only then). Returns a bit mask: bit k set where value k's dtype is not its target's."""
    done, differing = 0, 0
    if table is not None:
        words = _THREAD_WORDS
        done = _COPY_INTO(values, table.at, base, words.at)
        differing = words.out[0]
        if done == len(values):
            return differing
    targets = targets() if callable(targets) else targets  # (the C call copied values 0 .. done - 1)
    for k in range(done, len(values)):
        np.copyto(targets[k], values[k], casting="unsafe")
        if np.asarray(values[k]).dtype != targets[k].dtype:
            differing |= 1 << k
    return differing


_KIND_ADDRESSES = open_object_function("pvu_kind_addresses", [ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p])


_WRITABLE = 8  # (_addresses.c's KIND_WRITABLE)


class Kinds:
    """The element types `kind_addresses` asks of a call's arrays, in order, and which it asks to be writable (an int64
    array, its address taken once)."""

    def __init__(self, dtypes, writable=()):
        self.kinds = np.array([_KINDS[np.dtype(dtype)] + (_WRITABLE if k in writable else 0)
                               for k, dtype in enumerate(dtypes)], np.int64)
        self.at = address(self.kinds)


def write_kind_addresses(arrays, kinds: Kinds, at: int) -> bool:
    """Write the addresses of arrays (a list or tuple) as 64-bit words at `at` (a kept argument block a compiled call
    reads) in one C call where each is as `kind_addresses` asks; False where one is not or the extension is not built
    (words may be written: the caller writes them all its numpy way)."""
    return _KIND_ADDRESSES is not None and _KIND_ADDRESSES(arrays, kinds.at, at) == len(arrays)


def kind_addresses(arrays, kinds: Kinds) -> list[int] | None:
    """The addresses of arrays (a list or tuple, at most 256) in one C call where each is C-contiguous and of its
    dtype in `kinds` (np.ascontiguousarray of each would be itself), and writable where `kinds` asks; None where one
    is not, or the extension is not built (the caller's numpy way)."""
    if _KIND_ADDRESSES is None or len(arrays) > _WORDS:
        return None
    words = _THREAD_WORDS
    n = _KIND_ADDRESSES(arrays, kinds.at, words.at)
    return words.out[:n] if n == len(arrays) else None

