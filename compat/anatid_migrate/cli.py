"""The ``anatid-migrate`` command line:

anatid-migrate graphiti|cognee SOURCE TARGET [options]     from Kuzu / LadybugDB
anatid-migrate export graphiti FILE --to URL [options]     to a Graphiti server backend
anatid-migrate import graphiti --from URL FILE [options]   from a Graphiti server backend
anatid-migrate export cognee FILE --to URL [options]       to Postgres+pgvector / LadybugDB+LanceDB
anatid-migrate import cognee --from URL FILE [options]     from either of those
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from .errors import MigrationError, VerificationFailed
from .progress import for_stream
from .report import MigrationReport

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
    _server_commands(sub)
    return p


def _server_commands(sub: Any) -> None:
    """``export graphiti|cognee FILE --to URL`` and ``import graphiti|cognee --from URL FILE``
    (issue 18)."""
    exp = sub.add_parser("export", help="move an anatid file to a host's server backend")
    exp_sub = exp.add_subparsers(dest="framework", required=True)
    imp = sub.add_parser("import", help="move a host's server backend into a new anatid file")
    imp_sub = imp.add_subparsers(dest="framework", required=True)
    urls = {
        "graphiti": "falkor://HOST:PORT (or redis://) for FalkorDB, bolt://HOST:PORT for Neo4j",
        "cognee": "postgresql://USER:PASSWORD@HOST:PORT/DB for Postgres + pgvector, "
        "ladybug://DIR (or a directory) for LadybugDB + LanceDB",
    }
    for framework, url_help in urls.items():
        e = exp_sub.add_parser(framework, help=f"write FILE through {framework}'s own adapters")
        e.add_argument("file", metavar="FILE", help="the anatid file (read only)")
        e.add_argument("--to", required=True, metavar="URL", help=url_help)
        e.add_argument(
            "--history",
            metavar="DIR",
            help="where the Parquet timeline goes (default: FILE.history beside FILE)",
        )
        e.add_argument(
            "--force",
            action="store_true",
            help="replace what a non-empty target holds (Graphiti: this file's groups)",
        )
        i = imp_sub.add_parser(framework, help="read every record of URL into FILE")
        i.add_argument("--from", dest="url", required=True, metavar="URL", help="as for --to")
        i.add_argument("file", metavar="FILE", help="the anatid file to create")
        i.add_argument("--force", action="store_true", help="replace an existing FILE")
        i.add_argument(
            "--history",
            metavar="DIR",
            help="restore the full timeline an export wrote there (every version)",
        )
        for s in (e, i):
            s.add_argument("--dry-run", action="store_true", help="read and report only")
            s.add_argument("--json", action="store_true", help="print the report as JSON")


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Cognee logs its start-up at INFO when the anatid Cognee adapter is imported; a one-shot
    # command keeps stderr for its own progress and errors.
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    try:
        report = _run(args)
    except VerificationFailed as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"anatid-migrate: {exc}", file=sys.stderr)
        return EXIT_VERIFY
    except MigrationError as exc:
        print(f"anatid-migrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    print(json.dumps(report.to_dict(), indent=1) if args.json else report.format())
    return 0


def _run(args: argparse.Namespace) -> MigrationReport:
    progress = for_stream(sys.stderr)
    if args.kind in ("export", "import") and args.framework == "cognee":
        from .cognee_export import export_cognee, import_cognee

        if args.kind == "export":
            return export_cognee(args.file, args.to, history_dir=args.history,
                                 dry_run=args.dry_run, force=args.force, progress=progress)  # fmt: skip
        return import_cognee(args.url, args.file, history_dir=args.history,
                             dry_run=args.dry_run, force=args.force, progress=progress)  # fmt: skip
    if args.kind in ("export", "import"):
        from .graphiti_export import export_graphiti, import_graphiti

        if args.kind == "export":
            return export_graphiti(args.file, args.to, history_dir=args.history,
                                   dry_run=args.dry_run, force=args.force, progress=progress)  # fmt: skip
        return import_graphiti(args.url, args.file, history_dir=args.history,
                               dry_run=args.dry_run, force=args.force, progress=progress)  # fmt: skip
    from . import migrate_cognee, migrate_graphiti

    run = migrate_graphiti if args.kind == "graphiti" else migrate_cognee
    return run(
        args.source,
        args.target,
        reader_python=args.reader_python,
        bootstrap_reader=args.bootstrap_reader,
        dry_run=args.dry_run,
        force=args.force,
        progress=progress,
    )


if __name__ == "__main__":
    sys.exit(main())
