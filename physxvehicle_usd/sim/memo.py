"""What a step computes from a batch's parameters alone, or from them and a few of the step's inputs, kept from one
step to the next (`LastValue`): a fleet driving straight, or holding its steer, computes its steered geometry once.

An entry belongs to one live SimParams (it leaves with it) and is taken again only while each parameter it was
computed from is the same array (a parameter replaced since makes it anew: SimParams counts the assignments to its
attributes, so one comparison tells) and its key equals this step's. The values are the same arrays step after step:
whoever takes one reads it and never writes into it.

`Blocks` keeps the blocks of arrays a compiled call writes, to be written again by a later call where no one else holds
them.
"""
from __future__ import annotations

import ctypes
import operator
import weakref
from collections.abc import Callable, Hashable
from sys import getrefcount
from typing import Any

import numpy as np

from .extension import open_object_function


class LastValue:
    """The last value computed for each SimParams, with the key and the parameters it was computed from."""

    def __init__(self, *sources: str):
        self._sources: Callable[[Any], tuple] = operator.attrgetter(*sources) if len(sources) > 1 else (
            lambda p: (getattr(p, sources[0]),))
        # by id of a live SimParams: (key, its `edits` count, or None and the sources, value)
        self._entries: dict[int, tuple] = {}

    def get(self, p, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value for `key` of the batch p: the last one where its key and sources are this call's, else
        compute()'s, kept. Where p counts its attribute assignments (SimParams.edits), an unchanged count stands for
        the same sources (any parameter replaced since counts one, the sources' included); else each source is
        compared by identity."""
        last = self._entries.get(id(p))
        try:
            edits = p.edits
        except AttributeError:  # (not a SimParams)
            edits = None
        if last is not None and last[0] == key and (
                last[1] == edits if edits is not None else all(map(operator.is_, last[2], self._sources(p)))):
            return last[3]
        if last is None:
            weakref.finalize(p, self._entries.pop, id(p), None)
        value = compute()
        # (the count after compute: an attribute compute itself sets does not make its value anew at the next call)
        self._entries[id(p)] = ((key, p.edits, None, value) if edits is not None
                                else (key, None, self._sources(p), value))
        return value


class SameInputs:
    """The last value computed for each SimParams from some arrays, taken again while the inputs are the very same
    objects (by identity): for inputs that are either values `LastValue` keeps (the same array step after step, never
    written into) or new arrays. The inputs are kept alive with the value, so no other array takes one's id. The
    values are read-only arrays (or tuples of them): a write into one raises instead of reaching the next step."""

    def __init__(self):
        self._entries: dict[int, tuple] = {}  # by id of a live SimParams: (inputs, value)

    def get(self, p, inputs: tuple, compute: Callable[..., Any]) -> Any:
        """compute(*inputs), or the last one where this call's inputs are the last call's objects."""
        last = self._entries.get(id(p))
        if last is not None and len(last[0]) == len(inputs) and all(map(operator.is_, last[0], inputs)):
            return last[1]
        if last is None:
            weakref.finalize(p, self._entries.pop, id(p), None)
        value = compute(*inputs)
        for array in value if isinstance(value, tuple) else (value,):
            array.flags.writeable = False
        self._entries[id(p)] = (inputs, value)
        return value


_SPARE_BLOCK = open_object_function("pvu_spare_block", [ctypes.py_object])  # (`Blocks.spare`'s test in C)


class Blocks:
    """The blocks of arrays a compiled call writes its results into, kept to be written again where no one else holds
    them: whoever holds a result of one call (the state, the guard's snapshot, a caller's reference, a view of it)
    sees the next call's in other arrays, as if new, while a step of one car is spared a new block and its dozens of
    views. Told by reference counts: a block is spare where its bytes are referred to by its arrays alone (each a view
    whose base is the bytes) and its arrays by what keeps them here alone, as when it was kept."""

    def __init__(self, count: int):
        self.count = count  # the most blocks kept (the state holds the last call's: one more is spare again)
        self.blocks: list[tuple] = []  # (bytes, arrays, their references when kept, what the caller keeps)

    def spare(self) -> tuple | None:
        """A kept block no one else holds: (bytes, arrays, references, the caller's); None where each is held. In one
        C call where the extension is built (sim/_kept_blocks.c: the same counts)."""
        if _SPARE_BLOCK is not None:
            k = _SPARE_BLOCK(self.blocks)
            return self.blocks[k] if k >= 0 else None
        for kept in self.blocks:
            if getrefcount(kept[0]) == 2 + len(kept[1]) and sum(map(getrefcount, kept[1])) == kept[2]:
                return kept
        return None

    def keep(self, raw: np.ndarray, arrays: tuple, extra: Any = None) -> tuple:
        """Keep a new block: its bytes and its arrays (each a view of the bytes, and no other name of the caller's
        referring to one of them), with what the caller keeps with it (`extra`, made before: its references to the
        arrays count as the block's own; it holds no other view of the bytes); the oldest let go where `count` are
        kept. Returns its entry, as `spare` does."""
        kept = (raw, arrays, sum(map(getrefcount, arrays)), extra)
        self.blocks = (self.blocks[1 - self.count:] if self.count > 1 else []) + [kept]
        return kept

    def clear(self) -> None:
        self.blocks = []
