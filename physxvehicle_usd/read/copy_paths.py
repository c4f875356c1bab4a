"""A vehicle's description record moved from one copy's root path to another's, and the test of whether a record is
another moved (read/copies.py shares one template among the copies of an asset with these; runtime/vehicle2/copies.py
shares built parameters with the matcher): paths at or below the root re-rooted, every list, dict, block and record
fresh, everything else equal.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable

from ..description import Block, Resolved, Source, VehicleDescription

_resolved = tuple.__new__  # a Resolved made without its constructor's checks (see read/copies.py)
POSE = ("position", "orientation")  # the rigid-body values that a copy takes from where it stands


def path_boundary(root: str) -> re.Pattern:
    """`root` as a whole path in a text: not the start of a longer name, nor the end of a longer path."""
    return re.compile(r"(?<![\w/])" + re.escape(root) + r"(?!\w)")


class Unmovable(Exception):
    """A value the record mover does not know how to copy."""


def _mover(value: Any, root: str, shared: frozenset) -> Callable[[str], Any] | None:
    """A function of a new root path giving `value` moved there (paths at or below `root` re-rooted, lists and
    records fresh), or None where the value is the same object for every copy (numbers, other strings, tuples
    of those, the scene's context block shared by every vehicle of the scene)."""
    kind = type(value)
    if value is None or kind in (bool, int, float) or isinstance(value, Source):
        return None
    if kind is str:
        if value == root or value.startswith((root + "/", root + ".")):
            tail = value[len(root):]
            return lambda new: new + tail
        return None
    if kind is tuple:
        movers = [_mover(item, root, shared) for item in value]
        if not any(movers):
            return None
        parts = [(m, item) for m, item in zip(movers, value)]
        return lambda new: tuple(m(new) if m else item for m, item in parts)
    if kind is list:
        movers = [_mover(item, root, shared) for item in value]
        if not any(movers):
            items = list(value)
            return lambda new: items.copy()
        parts = [(m, item) for m, item in zip(movers, value)]
        return lambda new: [m(new) if m else item for m, item in parts]
    if kind is dict:
        movers = {key: _mover(item, root, shared) for key, item in value.items()}
        items = dict(value)
        fixes = [(key, m) for key, m in movers.items() if m]
        def move_dict(new: str) -> dict:
            out = items.copy()
            for key, m in fixes:
                out[key] = m(new)
            return out
        return move_dict
    if kind is Block:
        if id(value) in shared:
            return None
        values = dict(value.values)
        # the values to renew, by kind: lists of values that stay (copied), paths (re-rooted), others (movers)
        lists, paths, others = [], [], []
        for key, item in values.items():
            m = _mover(item.value, root, shared)
            if m is None:
                continue
            if type(item.value) is list and not any(_mover(x, root, shared) for x in item.value):
                lists.append((key, item.value, item.source))
            elif type(item.value) is str:
                paths.append((key, item.value[len(root):], item.source))
            else:
                others.append((key, m, item.source))
        schema, own_path = value.schema_name, value.path
        tail = own_path[len(root):] if _mover(own_path, root, shared) else None
        new_block = Block.__new__
        if not (lists or paths or others):  # most of a vehicle's blocks: only their own path moves
            def move_plain_block(new: str) -> Block:
                block = new_block(Block)
                block.schema_name = schema
                block.path = own_path if tail is None else new + tail
                block.values = values.copy()
                return block
            return move_plain_block

        def move_block(new: str) -> Block:
            block = new_block(Block)
            block.schema_name = schema
            block.path = own_path if tail is None else new + tail
            out = values.copy()
            for key, items, source in lists:
                out[key] = _resolved(Resolved, (items.copy(), source))
            for key, rest, source in paths:
                out[key] = _resolved(Resolved, (new + rest, source))
            for key, m, source in others:
                out[key] = _resolved(Resolved, (m(new), source))
            block.values = out
            return block
        return move_block
    if dataclasses.is_dataclass(value) and not isinstance(value, type) and not hasattr(value, "__slots__"):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        fixes = [(name, m) for name, item in fields.items() if (m := _mover(item, root, shared))]
        cls, new_record = kind, kind.__new__
        def move_record(new: str) -> Any:
            record = new_record(cls)
            attributes = fields.copy()
            for name, m in fixes:
                attributes[name] = m(new)
            record.__dict__ = attributes
            return record
        return move_record
    raise Unmovable(f"{kind.__name__} value in a vehicle record")


def _names_paths(value: Any, root: str) -> bool:
    """Whether a value may hold a path at or below `root`: such a string, a block or record, or tuples, lists and
    dicts holding one."""
    kind = type(value)
    if kind is str:
        return value == root or value.startswith((root + "/", root + "."))
    if kind in (tuple, list):
        return any(_names_paths(item, root) for item in value)
    if kind is dict:
        return any(_names_paths(item, root) for item in value.values())
    return kind is Block or dataclasses.is_dataclass(value)


def _matcher(value: Any, root: str, ignore: tuple[str, ...] = ()) -> Callable[[Any, str], bool]:
    """A test of whether another value is `value` moved to a new root: what _mover would make of it there, by ==
    (`ignore`: keys of a block not compared). Values compare as Python compares them (1 == 1.0)."""
    kind = type(value)
    if not ignore and not _names_paths(value, root):
        return lambda other, new: type(other) is kind and other == value
    if kind is str:
        tail = value[len(root):]
        return lambda other, new: other == new + tail
    if kind in (tuple, list):
        items = [_matcher(item, root) for item in value]
        size = len(items)

        def match_sequence(other: Any, new: str) -> bool:
            if type(other) is not kind or len(other) != size:
                return False
            for m, item in zip(items, other):
                if not m(item, new):
                    return False
            return True
        return match_sequence
    if kind is dict:
        entries = [(key, _matcher(item, root)) for key, item in value.items()]
        keys = value.keys()

        def match_dict(other: Any, new: str) -> bool:
            if type(other) is not dict or other.keys() != keys:
                return False
            for key, m in entries:
                if not m(other[key], new):
                    return False
            return True
        return match_dict
    if kind is Block:
        return _block_matcher(value, root, ignore)
    return _record_matcher(value, root, {})


def _block_matcher(block: Block, root: str, ignore: tuple[str, ...] = ()) -> Callable[[Any, str], bool]:
    path = _matcher(block.path, root)
    schema, keys = block.schema_name, block.values.keys()
    moving = {key for key, item in block.values.items() if _names_paths(item.value, root)}
    plain = {key: item for key, item in block.values.items() if key not in moving and key not in ignore}
    moved = [(key, _matcher(block.values[key].value, root), block.values[key].source) for key in moving]

    def match_block(other: Any, new: str) -> bool:
        if type(other) is not Block or other.schema_name != schema or not path(other.path, new):
            return False
        values = other.values
        if values.keys() != keys:
            return False
        for key, item in plain.items():
            if values[key] != item:
                return False
        for key, m, source in moved:
            item = values[key]
            if item.source != source or not m(item.value, new):
                return False
        return True
    return match_block


def _record_matcher(record: Any, root: str, ignore: dict[str, tuple[str, ...]]) -> Callable[[Any, str], bool]:
    """_matcher of a record; `ignore`: for a field holding a block, the keys of the block not compared. The blocks
    holding no path but their own are compared in line (most of a vehicle's), the other fields by their matchers."""
    kind = type(record)
    blocks, others = [], []
    for f in dataclasses.fields(record):
        item, skip = getattr(record, f.name), ignore.get(f.name, ())
        if type(item) is Block and not skip and not any(_names_paths(x.value, root) for x in item.values.values()):
            tail = item.path[len(root):] if _names_paths(item.path, root) else None
            blocks.append((f.name, item.schema_name, tail, item.path, item.values))
        else:
            others.append((f.name, _matcher(item, root, skip)))

    def match_record(other: Any, new: str) -> bool:
        if type(other) is not kind:
            return False
        fields = other.__dict__
        for name, schema, tail, path, values in blocks:
            block = fields[name]
            if (type(block) is not Block or block.schema_name != schema
                    or block.path != (path if tail is None else new + tail) or block.values != values):
                return False
        for name, m in others:
            if not m(fields[name], new):
                return False
        return True
    return match_record


def record_mover(record: Any, root: str, shared: frozenset = frozenset()) -> Callable[[str], Any]:
    """A function of a new root path giving a copy of a description record (a VehicleDescription, its blocks and
    records) moved there: its paths at or below `root` re-rooted, every list, dict, block and record fresh, blocks
    in `shared` (by id) kept as they are. Raises Unmovable for a value it cannot copy."""
    move = _mover(record, root, shared)
    return move if move is not None else (lambda new: record)


def vehicle_matcher(record: VehicleDescription, root: str) -> Callable[[Any, str], bool]:
    """A test of whether another vehicle record is `record` moved to a new root (record_mover), whatever the world
    position and orientation of its rigid body."""
    return _record_matcher(record, root, {"rigidBody": POSE})
