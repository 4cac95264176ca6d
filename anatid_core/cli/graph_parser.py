"""The parser of the graph verbs (issue 17): ``anatid path``, ``explain``, ``neighbours``,
``hubs`` and ``provenance`` (what they do is in :mod:`.graph`)."""

from __future__ import annotations

from .graph import cmd_explain, cmd_hubs, cmd_neighbours, cmd_path, cmd_provenance
from .options import (
    Subcommands,
    depth_option,
    direction_option,
    evidence_options,
    graph_options,
    subcommand,
)


def add_graph_commands(subs: Subcommands) -> None:
    for add in (_add_path, _add_explain, _add_neighbours, _add_hubs, _add_provenance):
        add(subs)


def _add_path(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "path",
        "the shortest chain of edges between two nodes",
        """
        The shortest paths from SRC to DST (edges followed either way unless --directed),
        each printed as a chain with the direction of every edge.""",
        """
        anatid path memory.duckdb alice paris
        anatid path memory.duckdb alice paris --group g1 --as-of 2024-05-01 --json""",
        cmd_path,
    )
    p.add_argument("src", metavar="SRC", help="the node to start from")
    p.add_argument("dst", metavar="DST", help="the node to reach")
    depth_option(p, 6)
    p.add_argument("--directed", action="store_true", help="follow edges from src to dst only")
    p.add_argument(
        "--limit", type=int, default=10, metavar="N", help="most paths of that length (default 10)"
    )
    graph_options(p)


def _add_explain(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "explain",
        "why two nodes are connected: the linking facts and their evidence",
        """
        Every edge on a chain of at most --max-depth edges between A and B (no node twice), with
        the records it was learned from (see --evidence-rel and --evidence-prop); evidence
        edges themselves are not walked.""",
        """
        anatid explain memory.duckdb alice acme
        anatid explain memory.duckdb alice acme --evidence-rel MENTIONS --evidence-prop episodes""",
        cmd_explain,
    )
    p.add_argument("a", metavar="A", help="a node id")
    p.add_argument("b", metavar="B", help="another node id")
    depth_option(p, 3)
    evidence_options(p)
    graph_options(p)


def _add_neighbours(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "neighbours",
        "the nodes one edge away from a node",
        """
        The nodes at the other end of the node's edges (of --rel), by id.""",
        """
        anatid neighbours memory.duckdb alice --direction out --rel WORKS_AT""",
        cmd_neighbours,
    )
    p.add_argument("id", metavar="ID", help="the node id")
    direction_option(p)
    graph_options(p, labels=True)


def _add_hubs(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "hubs",
        "the most connected nodes",
        """
        The nodes with the most edges (of --rel; --direction counts only outgoing or incoming
        ones; a self-loop counts twice), most first.""",
        """
        anatid hubs memory.duckdb --k 5 --label Entity""",
        cmd_hubs,
    )
    p.add_argument("--k", type=int, default=10, metavar="N", help="how many (default 10)")
    direction_option(p)
    graph_options(p, labels=True)


def _add_provenance(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "provenance",
        "a record's versions and the evidence it came from",
        """
        Every version of the node or edge with this id, oldest first, and its evidence (see
        --evidence-rel and --evidence-prop) as of now or --as-of.""",
        """
        anatid provenance memory.duckdb e-acme --evidence-prop episodes""",
        cmd_provenance,
    )
    p.add_argument("id", metavar="ID", help="the node or edge id")
    p.add_argument("--kind", choices=("node", "edge"), help="only the node or only the edge")
    evidence_options(p)
    graph_options(p, rels=False)
