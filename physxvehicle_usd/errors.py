"""Errors that reach a user as a message (never a traceback)."""
from __future__ import annotations


class InputError(Exception):
    """Input the tool cannot work with: a missing, unreadable or malformed file, or a bad argument.

    The message names the file and, where known, the prim and property.
    """

    def __init__(self, message: str, file: str | None = None, prim: str | None = None, prop: str | None = None):
        self.file, self.prim, self.prop = file, prim, prop
        where = ":".join(x for x in (file, prim and (prim + (f".{prop}" if prop else ""))) if x)
        super().__init__(f"{where}: {message}" if where else message)
