"""The options and help conventions every ``anatid`` subcommand shares: the one-line usage
error, a subcommand's FILE argument and example, and the --as-of/--valid-at, --group, --json and
graph-verb options (:mod:`.parser` and the modules that add their own subcommands use them)."""

from __future__ import annotations

import argparse
import importlib
import textwrap
from typing import Any, NoReturn, Protocol

TIME_HELP = (
    "ISO 8601 date or date-time; without a zone it is UTC (e.g. 2024-05-01, 2024-05-01T12:30:00Z)"
)


class Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line (which subcommand, what was wrong, where to look)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see: {self.prog} --help)\n")


class Subcommands(Protocol):
    """What ``add_subparsers()`` returns, as far as we use it (argparse's class is private)."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


def subcommand(
    subs: Subcommands,
    name: str,
    summary: str,
    description: str,
    example: str,
    func: str,
) -> argparse.ArgumentParser:
    """A subcommand with its FILE argument; ``func`` is ``"module:function"`` in this package,
    imported when the subcommand runs (only what the command uses is imported)."""
    p = subs.add_parser(
        name,
        help=summary,
        description=textwrap.dedent(description).strip(),
        epilog="example:\n" + textwrap.indent(textwrap.dedent(example).strip(), "  "),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(func=Command(func))
    p.add_argument("file", metavar="FILE", help="an anatid store file (.duckdb)")
    return p


class Command:
    """A subcommand's function, named ``"module:function"``, imported on the first call."""

    def __init__(self, target: str) -> None:
        self.module, _, self.name = target.partition(":")

    def __call__(self, args: argparse.Namespace) -> int:
        module = importlib.import_module(f".{self.module}", __package__)
        return int(getattr(module, self.name)(args))

    def __repr__(self) -> str:
        return f"Command({self.module}:{self.name})"


def time_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--as-of",
        metavar="TIME",
        help=f"read the graph as the store knew it then (transaction time); {TIME_HELP}",
    )
    p.add_argument(
        "--valid-at",
        metavar="TIME",
        help="keep only records valid at that instant (valid time); same format",
    )


def json_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def group_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--group", action="append", metavar="G", help="only records in this group (repeatable)"
    )


def graph_options(p: argparse.ArgumentParser, *, labels: bool = False, rels: bool = True) -> None:
    """--group as a scope (a wall), --rel, --as-of/--valid-at and --json."""
    p.add_argument(
        "--group",
        action="append",
        metavar="G",
        help="see only this group (repeatable): a wall, nothing outside it is crossed",
    )
    if rels:
        p.add_argument(
            "--rel", action="append", metavar="R", help="only edges of this type (repeatable)"
        )
    if labels:
        p.add_argument(
            "--label", action="append", metavar="L", help="only nodes with this label (repeatable)"
        )
    time_options(p)
    json_option(p)


def evidence_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--evidence-rel",
        action="append",
        metavar="R",
        help="edges of this type pointing at a record are its evidence (repeatable; "
        "Graphiti: MENTIONS; Cognee: contains)",
    )
    p.add_argument(
        "--evidence-prop",
        action="append",
        metavar="P",
        help="this property holds the ids of a record's evidence (repeatable; Graphiti: episodes)",
    )


def depth_option(p: argparse.ArgumentParser, default: int) -> None:
    p.add_argument(
        "--max-depth",
        type=int,
        default=default,
        metavar="N",
        help=f"most edges on a chain (default {default})",
    )


def direction_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--direction",
        choices=("both", "out", "in"),
        default="both",
        help="follow edges either way, outgoing or incoming only (default both)",
    )
