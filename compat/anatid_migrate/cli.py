"""``anatid-migrate graphiti|cognee SOURCE TARGET [options]``: the command-line front end."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from .errors import MigrationError, VerificationFailed
from .progress import for_stream

EXIT_ERROR = 1
EXIT_VERIFY = 3


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="anatid-migrate",
        description="Move a Graphiti or Cognee graph from Kuzu / LadybugDB into an anatid file. "
        "The source is opened read-only; TARGET appears only after it is verified.",
    )
    sub = p.add_subparsers(dest="kind", required=True)
    for kind, what in (
        ("graphiti", "a Graphiti graph written by KuzuDriver (kuzu 0.11)"),
        ("cognee", "a Cognee graph (kuzu 0.11 up to cognee 1.0.3, LadybugDB from 1.0.4)"),
    ):
        s = sub.add_parser(kind, help=f"migrate {what}")
        s.add_argument("source", metavar="SOURCE", help="the Kuzu / LadybugDB database file")
        s.add_argument("target", metavar="TARGET", help="the anatid (DuckDB) file to create")
        s.add_argument(
            "--reader-python",
            metavar="PY",
            help="interpreter with the engine that reads SOURCE (kuzu or ladybug, and pyarrow)",
        )
        s.add_argument(
            "--bootstrap-reader",
            action="store_true",
            help="create a private venv with the exact engine release if none is found "
            "(needs PyPI once; cached under $ANATID_MIGRATE_CACHE or ~/.cache/anatid-migrate)",
        )
        s.add_argument("--dry-run", action="store_true", help="read SOURCE and report only")
        s.add_argument("--force", action="store_true", help="replace an existing TARGET")
        s.add_argument("--json", action="store_true", help="print the report as JSON")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Cognee logs its start-up at INFO when the anatid Cognee adapter is imported; a one-shot
    # command keeps stderr for its own progress and errors.
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    from . import migrate_cognee, migrate_graphiti

    run = migrate_graphiti if args.kind == "graphiti" else migrate_cognee
    try:
        report = run(
            args.source,
            args.target,
            reader_python=args.reader_python,
            bootstrap_reader=args.bootstrap_reader,
            dry_run=args.dry_run,
            force=args.force,
            progress=for_stream(sys.stderr),
        )
    except VerificationFailed as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"anatid-migrate: {exc}", file=sys.stderr)
        return EXIT_VERIFY
    except MigrationError as exc:
        print(f"anatid-migrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(json.dumps(report.to_dict(), indent=1) if args.json else report.format())
    return 0


if __name__ == "__main__":
    sys.exit(main())
