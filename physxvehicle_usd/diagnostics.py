"""Diagnostics: every problem the reader or validator finds is a record, never an exception."""
from __future__ import annotations

import re
from enum import Enum

from pydantic import BaseModel, ConfigDict

from .repairs import Repair

_ADDRESS = re.compile(r"\s*<0x[0-9a-fA-F]+>")


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Diagnostic(BaseModel):
    model_config = ConfigDict(frozen=True)

    severity: Severity
    code: str
    prim: str
    property: str | None = None
    message: str
    file: str | None = None
    fix: Repair | None = None  # the finding's one unambiguous repair, where it has one (physxvehicle_usd.repairs)

    def where(self) -> str:
        """The prim, or the prim and property as `/World/Car.physxVehicle:foo`."""
        return self.prim + (f".{self.property}" if self.property else "")

    def line(self) -> str:
        return f"{self.severity.value} {self.code} {self.where()}: {self.message}"


class SeverityShortcuts:
    """error / warning / info for anything with an `add(severity, code, prim, message, prop)`."""

    def add(self, severity: Severity, code: str, prim, message: str, prop: str | None = None) -> None:
        raise NotImplementedError

    def error(self, code: str, prim, message: str, prop: str | None = None) -> None:
        self.add(Severity.ERROR, code, prim, message, prop)

    def warning(self, code: str, prim, message: str, prop: str | None = None) -> None:
        self.add(Severity.WARNING, code, prim, message, prop)

    def info(self, code: str, prim, message: str, prop: str | None = None) -> None:
        self.add(Severity.INFO, code, prim, message, prop)


class DiagnosticSink(SeverityShortcuts):
    """Collects diagnostics in order; `errors_for(prim)` tells whether an object was rejected."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self._seen: set[tuple] = set()

    def add(self, severity: Severity, code: str, prim, message: str, prop: str | None = None) -> None:
        # a pxr object's repr or a USD message may carry a memory address: the text must not change run to run
        message = _ADDRESS.sub("", message)
        record = Diagnostic(severity=severity, code=code, prim=str(prim), property=prop, message=message)
        key = (record.severity, record.code, record.prim, record.property, record.message)  # not the fix
        if key not in self._seen:  # a shared component reports once, not once per user
            self._seen.add(key)
            self.items.append(record)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.items if d.severity == severity)
