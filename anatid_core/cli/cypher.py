"""``anatid cypher``: a read-only Cypher query against a file, as ``sqlite3 FILE 'SQL'`` is for
SQL (issue 42). The engine is the store's own (docs/cypher.md: the subset, what is refused);
the subcommand's options are in :mod:`.parser`."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from anatid_core import Edge, Node, RecordShape

from .files import open_store, reader_for
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
        except RecursionError:  # json's own stack, before the engine's depth bound can say it
            raise ParamError(f"--param {name}: the value nests too deeply to read") from None
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


__all__ = ["PrintedShape", "cmd_cypher", "params_of"]
