"""Errors raised by anatid-migrate. Every message says what went wrong and what to do.

::

    MigrationError
    ├── UnsupportedSource     the source is not a file we can read (names the engine that can)
    ├── ReaderUnavailable     no interpreter with the right engine (prints the fixing command)
    ├── SourceReadError       the reader subprocess failed (corrupt file, engine error)
    ├── TargetExists          TARGET exists and --force was not given
    ├── UnknownSchema         the source is not a Graphiti / Cognee graph
    ├── VerificationFailed    source and target disagree after loading (carries the report)
    ├── TargetUnreachable     the server of an export / import URL does not answer
    ├── TargetNotEmpty        the export's server already holds a graph (pass --force)
    ├── UnsupportedTarget     a URL scheme or server version the export does not handle
    ├── UnsupportedValue      a record holds a value the server cannot store (names it)
    └── UnsafeOutput          an output path is a file being read, a store or a store's side
                              file (anatid_core.check_output's InvalidInput, mapped in outputs.py)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .report import MigrationReport


class MigrationError(Exception):
    """Base class of every anatid-migrate error."""


class UnsupportedSource(MigrationError):
    pass


class ReaderUnavailable(MigrationError):
    pass


class SourceReadError(MigrationError):
    pass


class TargetExists(MigrationError):
    pass


class UnknownSchema(MigrationError):
    pass


class VerificationFailed(MigrationError):
    def __init__(self, message: str, report: MigrationReport) -> None:
        super().__init__(message)
        self.report = report


class TargetUnreachable(MigrationError):
    pass


class TargetNotEmpty(MigrationError):
    pass


class UnsupportedTarget(MigrationError):
    pass


class UnsupportedValue(MigrationError):
    pass


class UnsafeOutput(MigrationError):
    pass
