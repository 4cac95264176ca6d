"""The parser of the graph verbs (issue 17): ``anatid path``, ``explain``, ``neighbours``,
``hubs``, ``provenance`` and ``communities`` (what they do is in :mod:`.graph` and
:mod:`.communities`, imported when one of them runs)."""

from __future__ import annotations

from .options import (
    Subcommands,
    depth_option,
    direction_option,
    evidence_options,
    graph_options,
    group_option,
    json_option,
    subcommand,
    time_options,
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
        "graph:cmd_path",
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
        "graph:cmd_explain",
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
        "graph:cmd_neighbours",
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
        "graph:cmd_hubs",
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
        "graph:cmd_provenance",
    )
    p.add_argument("id", metavar="ID", help="the node or edge id")
    p.add_argument("--kind", choices=("node", "edge"), help="only the node or only the edge")
    evidence_options(p)
    graph_options(p, rels=False)


def add_communities(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "communities",
        "a deterministic partition of the graph into communities (modularity)",
        """
        Groups the nodes into communities by modularity over the visible edges (taken as
        undirected; parallel edges weigh more): igraph's Leiden with the graph extra installed,
        else a plain Louvain. The same graph always gives the same
        partition, largest community first. --group restricts the graph to those groups' nodes
        and edges; --rel to those relationship types.""",
        "anatid communities memory.duckdb --group g1 --as-of 2024-06-01",
        "communities:cmd_communities",
    )
    for add in (time_options, group_option, json_option):
        add(p)
    p.add_argument(
        "--rel", action="append", metavar="R", help="only edges of this type (repeatable)"
    )
    p.add_argument(
        "--resolution",
        type=float,
        default=1.0,
        metavar="X",
        help="above 1: more, smaller communities; below 1: fewer, larger ones (default 1.0)",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=20,
        metavar="N",
        help="communities to print (default 20; --json prints them all)",
    )
