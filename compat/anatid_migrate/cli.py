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
import textwrap
from collections.abc import Sequence
from typing import Any

from .errors import MigrationError, VerificationFailed
from .progress import for_stream
from .report import MigrationReport

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_VERIFY = 3


DESCRIPTION = """\
Move a Graphiti or Cognee memory into an anatid file, or between an anatid file and a server.

  into anatid, from an embedded database (Kùzu or LadybugDB):
    graphiti SOURCE TARGET    a Graphiti graph written by KuzuDriver (kuzu 0.11)
    cognee SOURCE TARGET      a Cognee graph: Kùzu 0.11 (Cognee up to 1.0.3) or LadybugDB
                              (Cognee 1.0.4 and later, its default)
  from anatid to a server, and back into a new anatid file:
    export graphiti FILE --to URL    to FalkorDB or Neo4j, through Graphiti's own drivers
    import graphiti --from URL FILE
    export cognee FILE --to URL      to PostgreSQL + pgvector, or LadybugDB + LanceDB,
    import cognee --from URL FILE    through Cognee's own adapters

The source is only read. A new anatid file appears only once it is complete and its records
were read back and checked against the source; an export checks the server the same way.
"anatid-migrate COMMAND --help" describes each command's options."""

EPILOG = """\
examples:
  anatid-migrate graphiti graph.kz memory.duckdb
  anatid-migrate cognee cognee_graph_ladybug memory.duckdb --dry-run
  anatid-migrate export graphiti memory.duckdb --to falkor://127.0.0.1:6379
  anatid-migrate export graphiti memory.duckdb --to bolt://neo4j:secret@127.0.0.1:7687
  anatid-migrate import graphiti --from falkor://127.0.0.1:6379 back.duckdb \\
      --history memory.duckdb.history
  anatid-migrate export cognee memory.duckdb --to postgresql://cognee:secret@127.0.0.1:5432/cognee
  anatid-migrate export cognee memory.duckdb --to ladybug:///srv/cognee/databases

exit status: 0 done (or dry run); 1 an error, which says what to do; 2 a usage error;
3 the read-back check failed (a move into anatid or an import then leaves no new file).
More: docs/migrating.md."""

#: The servers each framework's export and import speak to, as URLs.
URLS = {
    "graphiti": "falkor://HOST:PORT (or redis://, rediss://) for FalkorDB; bolt://HOST:PORT "
    "(or neo4j://, neo4j+s://) for Neo4j, user and password in the URL or in "
    "NEO4J_USER / NEO4J_PASSWORD",
    "cognee": "postgresql://USER:PASSWORD@HOST:PORT/DB for PostgreSQL + pgvector; "
    "ladybug://DIR (or a directory) for LadybugDB + LanceDB in Cognee's layout under DIR",
}
SERVERS = {
    "graphiti": "FalkorDB or Neo4j",
    "cognee": "PostgreSQL + pgvector, or LadybugDB + LanceDB",
}


class _Help(argparse.RawDescriptionHelpFormatter):
    """Keeps the hand-laid description and examples as written."""


def _para(text: str) -> str:
    """A description as one wrapped paragraph (the formatter keeps text as given)."""
    return textwrap.fill(text, width=88)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="anatid-migrate",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=_Help,
    )
    sub = p.add_subparsers(dest="kind", metavar="COMMAND", title="commands")
    for kind, what, engine, example in (
        ("graphiti", "a Graphiti graph in Kùzu (KuzuDriver, kuzu 0.11)", "Kùzu", "graph.kz"),
        (
            "cognee",
            "a Cognee graph in Kùzu 0.11 (Cognee up to 1.0.3) or LadybugDB (1.0.4 and later)",
            "Kùzu or LadybugDB",
            "cognee_graph_ladybug",
        ),
    ):
        s = sub.add_parser(
            kind,
            help=f"into a new anatid file, from {what}",
            description=_para(
                f"Move {what} into a new anatid file. SOURCE is opened read-only, by a "
                "separate reader process; TARGET appears only once complete and checked "
                "against SOURCE."
            ),
            epilog=f"examples:\n  anatid-migrate {kind} {example} memory.duckdb\n"
            f"  anatid-migrate {kind} {example} memory.duckdb --dry-run --json",
            formatter_class=_Help,
        )
        s.add_argument("source", metavar="SOURCE", help=f"the {engine} database file")
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


#: Example servers of each framework, for the examples in the help.
EXAMPLE_URLS = {
    "graphiti": ("falkor://127.0.0.1:6379", "bolt://neo4j:secret@127.0.0.1:7687"),
    "cognee": ("postgresql://cognee:secret@127.0.0.1:5432/cognee", "ladybug:///srv/cognee"),
}


def _server_commands(sub: Any) -> None:
    """``export graphiti|cognee FILE --to URL`` and ``import graphiti|cognee --from URL FILE``
    (issue 18)."""
    exp = sub.add_parser(
        "export",
        help="from an anatid file to a server (Graphiti: FalkorDB, Neo4j; Cognee: PostgreSQL "
        "+ pgvector, LadybugDB + LanceDB)",
        description=_para(
            "Write an anatid file's current records to a server through the framework's own "
            "driver (Graphiti) or adapters (Cognee), then read them back and check them. The "
            "file's whole history goes beside it as Parquet (--history), for an import to "
            "restore."
        ),
        epilog="examples:\n  anatid-migrate export graphiti memory.duckdb --to "
        f"{EXAMPLE_URLS['graphiti'][0]}\n  anatid-migrate export cognee memory.duckdb --to "
        f"{EXAMPLE_URLS['cognee'][0]}",
        formatter_class=_Help,
    )
    exp_sub = exp.add_subparsers(dest="framework", metavar="FRAMEWORK", title="frameworks")
    imp = sub.add_parser(
        "import",
        help="from a server back into a new anatid file",
        description=_para(
            "Read every record a server holds into a new anatid file, through the framework's "
            "own driver or adapters. With --history, on top of the timeline an export wrote, so "
            "the file's past is kept."
        ),
        epilog="examples:\n  anatid-migrate import graphiti --from "
        f"{EXAMPLE_URLS['graphiti'][0]} back.duckdb\n  anatid-migrate import cognee --from "
        f"{EXAMPLE_URLS['cognee'][0]} back.duckdb",
        formatter_class=_Help,
    )
    imp_sub = imp.add_subparsers(dest="framework", metavar="FRAMEWORK", title="frameworks")
    for framework, url_help in URLS.items():
        name, servers, urls = framework.capitalize(), SERVERS[framework], EXAMPLE_URLS[framework]
        e = exp_sub.add_parser(
            framework,
            help=f"to {servers}",
            description=_para(
                f"Write FILE's {name} memory to {servers}, read it back and check it; the "
                "file's whole history goes to --history as Parquet. A rerun resumes an "
                "interrupted export."
            ),
            epilog="examples:\n"
            + "".join(f"  anatid-migrate export {framework} memory.duckdb --to {u}\n" for u in urls)
            + f"  anatid-migrate export {framework} memory.duckdb --to {urls[0]} --dry-run",
            formatter_class=_Help,
        )
        e.add_argument("file", metavar="FILE", help="the anatid file (only read)")
        e.add_argument("--to", required=True, metavar="URL", help=f"the server: {url_help}")
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
        i = imp_sub.add_parser(
            framework,
            help=f"from {servers}",
            description=_para(
                f"Read the {name} memory held at URL ({servers}) into a new anatid FILE, which "
                "appears only once complete and checked against the server. With --history, "
                "the timeline an export wrote is restored first, and what changed on the "
                "server since becomes new versions."
            ),
            epilog="examples:\n"
            f"  anatid-migrate import {framework} --from {urls[0]} back.duckdb\n"
            f"  anatid-migrate import {framework} --from {urls[0]} back.duckdb \\\n"
            "      --history memory.duckdb.history",
            formatter_class=_Help,
        )
        i.add_argument(
            "--from", dest="url", required=True, metavar="URL", help=f"the server: {url_help}"
        )
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


def _usage(p: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | None:
    """The parsed arguments, or None when a command or framework is missing: then the help of
    the level that lacks one is printed (argparse would name an internal argument)."""
    args = p.parse_args(argv)
    if args.kind is None:
        p.print_help()
        return None
    if args.kind in ("export", "import") and args.framework is None:
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices[args.kind].print_help()
        return None
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _usage(parser(), argv)
    if args is None:
        return EXIT_USAGE
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
