"""What a step computes from a batch's parameters alone, or from them and a few of the step's inputs, kept from one
step to the next (`LastValue`): a fleet driving straight, or holding its steer, computes its steered geometry once.

An entry belongs to one live SimParams (it leaves with it) and is taken again only while each parameter it was
computed from is the same array (a parameter replaced since makes it anew) and its key equals this step's. The
values are the same arrays step after step: whoever takes one reads it and never writes into it.
"""
from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Hashable
from typing import Any


class LastValue:
    """The last value computed for each SimParams, with the key and the parameters it was computed from."""

    def __init__(self, *sources: str):
        self._sources: Callable[[Any], tuple] = operator.attrgetter(*sources) if len(sources) > 1 else (
            lambda p: (getattr(p, sources[0]),))
        self._entries: dict[int, tuple] = {}  # by id of a live SimParams: (key, sources, value)

    def get(self, p, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The value for `key` of the batch p: the last one where its key and sources are this call's, else
        compute()'s, kept."""
        sources = self._sources(p)
        last = self._entries.get(id(p))
        if last is not None and last[0] == key and all(map(operator.is_, last[1], sources)):
            return last[2]
        if last is None:
            weakref.finalize(p, self._entries.pop, id(p), None)
        value = compute()
        self._entries[id(p)] = (key, sources, value)
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
