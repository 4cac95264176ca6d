"""anatid-migrate: move a Graphiti or Cognee graph from Kuzu / LadybugDB into an anatid file.

    from anatid_migrate import migrate_graphiti, migrate_cognee
    report = migrate_graphiti("graph.kz", "memory.duckdb")
    print(report.format())

The source is read in a subprocess by an interpreter that has the right engine (see
:mod:`anatid_migrate.engines`), loaded through the framework driver's record mapping into a
temporary file, verified against the source, then renamed into place.
"""

from __future__ import annotations

import os
from typing import Any

from .errors import (
    MigrationError,
    ReaderUnavailable,
    SourceReadError,
    TargetExists,
    UnknownSchema,
    UnsafeOutput,
    UnsupportedSource,
    VerificationFailed,
)
from .formats import SourceFormat, detect_format
from .pipeline import migrate
from .report import MigrationReport

PathLike = str | os.PathLike[str]


def migrate_graphiti(source: PathLike, target: PathLike, **options: Any) -> MigrationReport:
    """Migrate a Graphiti-on-Kuzu file; options as :func:`anatid_migrate.pipeline.migrate`."""
    try:
        from .graphiti_plan import GraphitiPlan
    except ImportError as exc:
        raise MigrationError(_missing("graphiti", exc)) from exc
    return migrate(GraphitiPlan, source, target, **options)


def migrate_cognee(source: PathLike, target: PathLike, **options: Any) -> MigrationReport:
    """Migrate a Cognee graph (Kuzu up to cognee 1.0.3, LadybugDB after); same options."""
    try:
        from .cognee_plan import CogneePlan
    except ImportError as exc:
        raise MigrationError(_missing("cognee", exc)) from exc
    return migrate(CogneePlan, source, target, **options)


def _missing(extra: str, exc: ImportError) -> str:
    return (
        f"migrating a {extra} graph loads it through the anatid {extra} driver, which needs "
        f"{extra} installed ({exc}); install it with: pip install 'anatid-drivers[{extra},migrate]'"
    )


__all__ = [
    "MigrationError",
    "MigrationReport",
    "ReaderUnavailable",
    "SourceFormat",
    "SourceReadError",
    "TargetExists",
    "UnknownSchema",
    "UnsafeOutput",
    "UnsupportedSource",
    "VerificationFailed",
    "detect_format",
    "migrate",
    "migrate_cognee",
    "migrate_graphiti",
]
