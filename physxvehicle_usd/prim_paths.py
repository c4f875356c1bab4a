"""Prim paths as strings: diagnostics and descriptions carry paths as `str`, and comparing them through Sdf.Path
would build a path object per comparison in loops over thousands of findings or copies."""
from __future__ import annotations

from typing import Iterator


def at_or_below(path: str, root: str) -> bool:
    """Whether `path` is `root` itself or a prim in `root`'s subtree (not a sibling that merely shares a prefix)."""
    return path == root or path.startswith(root + "/")


def at_and_above(path: str) -> Iterator[str]:
    """`path` and its ancestors but the absolute root: every root that `at_or_below(path, root)` holds for."""
    yield path
    cut = path.rfind("/")
    while cut > 0:
        path = path[:cut]
        yield path
        cut = path.rfind("/")
