"""``anatid cypher``: a read-only Cypher query against a file, as ``sqlite3 FILE 'SQL'`` is for
SQL (issue 42). The engine is the store's own (docs/cypher.md: the subset, what is refused)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anatid_core import Edge, Node, RecordShape

from .files import open_store, reader_for
from .options import Subcommands, json_option, subcommand, time_options
from .status import CommandError
from .terminal import one_line, plain, table, to_json

#: The widest a cell is printed in the table (--json prints every value whole).
CELL_WIDTH = 60


@dataclass(frozen=True)
class PrintedNode:
    labels: list[str]
    properties: dict[str, Any]

    def __str__(self) -> str:
        return f"({''.join(':' + label for label in self.labels)} {_props(self.properties)})"


@dataclass(frozen=True)
class PrintedRel:
    type: str
    start: str
    end: str
    properties: dict[str, Any]

    def __str__(self) -> str:
        return f"[:{self.type} {_props(self.properties)}]"


def _props(props: Mapping[str, Any]) -> str:
    """Cypher's map literal, as Neo4j's shell prints it: {id: "alice", age: 30}."""
    inner = ", ".join(
        f"{key}: {json.dumps(plain(value), ensure_ascii=False)}" for key, value in props.items()
    )
    return "{" + inner + "}"


class PrintedShape(RecordShape):
    """The store's own shape, but a returned node or relationship is what a person reads: its
    labels (or type and ends) and its properties, as Neo4j's tools print them, not the record
    with its versions and embedding."""

    def node_value(self, node: Node, props: Mapping[str, Any]) -> Any:
        return PrintedNode(self.node_labels(node), dict(props))

    def rel_value(self, edge: Edge, props: Mapping[str, Any]) -> Any:
        return PrintedRel(self.rel_type(edge), edge.src, edge.dst, dict(props))


class ParamError(ValueError):
    """A --param that is not NAME=VALUE."""


def add_cypher(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "cypher",
        "run a read-only Cypher query",
        """
        Runs one read-only Cypher query (MATCH ... RETURN ...) against the file and prints its
        rows as a table, or as JSON with --json. The graph is the store's: a node has its
        labels and the properties id, name, group and text beside its own props; a
        relationship's type is its rel. Writes (CREATE, MERGE, SET, DELETE, ...) are refused
        before anything is read; a construct outside the subset is named with its place in the
        query (docs/cypher.md). --param NAME=VALUE gives $NAME a value, read as JSON when it is
        JSON (42, true, "text", [1, 2], {"k": 1}) and as text otherwise. --as-of reads the
        graph as the store knew it then.""",
        """
        anatid cypher memory.duckdb 'MATCH (n) RETURN labels(n) AS labels, count(*) AS n'
        anatid cypher memory.duckdb 'MATCH (a)-[r]->(b) WHERE a.name = $who RETURN b.name, type(r)' --param who=Alice
        anatid cypher memory.duckdb 'MATCH (n) RETURN n LIMIT 5' --as-of 2024-05-01 --json""",
        cmd_cypher,
    )
    p.add_argument("query", metavar="QUERY", help="the Cypher query (quote it for the shell)")
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a value for $NAME (repeatable); VALUE is read as JSON when it parses, else text",
    )
    p.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="stop the query after this long (default: $ANATID_CYPHER_TIMEOUT, else 30)",
    )
    time_options(p)
    json_option(p)


def params_of(given: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs as query parameters."""
    out: dict[str, Any] = {}
    for item in given:
        name, sep, raw = item.partition("=")
        name = name.strip().lstrip("$")
        if not sep or not name.isidentifier():
            raise ParamError(f"--param {item!r}: write it as NAME=VALUE (e.g. who=Alice)")
        try:
            out[name] = json.loads(raw)
        except ValueError:
            out[name] = raw
    return out


def cmd_cypher(args: argparse.Namespace) -> int:
    try:
        params = params_of(args.param)
    except ParamError as exc:
        raise CommandError(str(exc)) from None
    with open_store(args.file) as store:
        result = reader_for(store, args).cypher(
            args.query, params, shape=PrintedShape(), timeout=args.timeout
        )
    if args.json:
        print(to_json({"columns": result.columns, "rows": result.records()}, indent=2))
        return 0
    if not result.rows:
        print(f"no rows (columns: {', '.join(result.columns)})" if result.columns else "no rows")
        return 0
    print(table(result.columns, [[_cell(v) for v in row] for row in result.rows]))
    print(f"({len(result.rows)} row{'s' if len(result.rows) != 1 else ''})")
    return 0


def _cell(value: Any) -> Any:
    """A value on one line: numbers as they are, text as it is, the rest as compact JSON."""
    if value is None or isinstance(value, (bool, int, float)):
        return "null" if value is None else value
    if isinstance(value, str):
        return one_line(value, CELL_WIDTH)
    if isinstance(value, (PrintedNode, PrintedRel)):
        return one_line(str(value), CELL_WIDTH)
    return one_line(json.dumps(plain(value), ensure_ascii=False), CELL_WIDTH)


__all__ = ["add_cypher", "cmd_cypher", "params_of"]
