"""``anatid``'s parser: the subcommands, their options and help texts (docs/cli.md is generated
from them). What each subcommand does is in :mod:`.commands`, :mod:`.search`, :mod:`.records` and
the others, named ``"module:function"`` and imported only when that subcommand runs (issue 44:
``anatid --help`` and ``anatid stats`` paid for every command's imports); running one and
reporting its failure is :func:`anatid_core.cli.main`.
"""

from __future__ import annotations

import argparse

from anatid_core import LEASE, SETTINGS, __version__

from .graph_parser import add_communities, add_graph_commands
from .options import Parser, Subcommands, group_option, json_option, subcommand, time_options

PROG = "anatid"

#: How long a command waits for its turn on a file another process is using, in words.
WAIT = f"{LEASE['timeout']:g} seconds"

EPILOG = f"""\
exit status: 0 success; 1 the file has problems (check) or the id is unknown (show, history,
path, explain, neighbours, provenance);
2 bad input, or the file is missing, damaged (anatid check FILE says how), not an anatid store,
or another process kept it busy for more than {WAIT}.

Every command but erase, compact and index opens the file read-only. Other processes that share the
file hand it over between their operations; a command that got no turn within {WAIT} says so
and exits 2: run it again later."""


def build_parser() -> Parser:
    parser = Parser(
        prog=PROG,
        description="Inspect an anatid store: one DuckDB file holding a bitemporal graph "
        "(the memory of Graphiti or Cognee).",
        epilog='example:\n  anatid stats memory.duckdb\n  anatid search memory.duckdb "Alice"\n\n'
        + EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="on an unexpected error, show the Python traceback (for bug reports)",
    )
    subs = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for add in (
        _add_stats,
        _add_search,
        _add_show,
        _add_history,
        _add_export,
        _add_check,
        _add_view,
        add_graph_commands,
        _add_erasures,
        _add_erase,
        _add_compact,
        _add_index,
        add_communities,
        _add_cypher,
    ):
        add(subs)
    return parser


def _add_stats(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "stats",
        "counts, versions, sizes and indexes of a file",
        """
        Counts of current nodes and edges (by group, label and relationship), versions kept for
        time travel, file size, schema version, text-index postings, vector spaces, the search
        indexes kept beside the file (each one's state, rows indexed, rows written since its
        build, size and age), and index health (the verdict of anatid check, with index files
        trusted by their stamps: anatid check reads every byte of them).""",
        "anatid stats memory.duckdb",
        "commands:cmd_stats",
    )
    p.add_argument(
        "--no-check", action="store_true", help="skip the health check (faster on huge files)"
    )
    json_option(p)


def _add_search(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "search",
        "hybrid search; shows which arm found each hit",
        """
        Finds records three ways ("arms") and merges their rankings (reciprocal rank fusion):
        the words of TEXT in names and texts (arm "text", BM25), the records near the best text
        matches in the graph (arm "graph"), and, when --embedding is given, similarity to a
        query vector (arm "vector"; it must come from the same model and dimension as the
        file's vectors in --space). A record that matches TEXT or the embedding always ranks
        above one that only the graph arm found, unless --graph-weight is raised. Records an
        arm cannot tell apart (all the neighbours one hop away) share its rank. Each hit lists
        the arms that found it and its rank in each.""",
        """
        anatid search memory.duckdb "where does Alice work" --k 5
        anatid search memory.duckdb "Alice" --graph-weight 2
        anatid search memory.duckdb "Acme" --kind edge --as-of 2024-05-01T12:00:00Z
        anatid search memory.duckdb "Acme" --embedding query.json --space default""",
        "search:cmd_search",
    )
    p.add_argument("query", metavar="TEXT", help="words to search for")
    group_option(p)
    p.add_argument(
        "--label", action="append", metavar="L", help="only nodes with this label (repeatable)"
    )
    p.add_argument(
        "--rel", action="append", metavar="R", help="only edges of this type (repeatable)"
    )
    p.add_argument("--k", type=int, default=10, metavar="N", help="number of hits (default 10)")
    p.add_argument(
        "--kind",
        choices=("node", "edge"),
        default="node",
        help="search nodes or edges (default node)",
    )
    _search_arm_options(p)
    time_options(p)
    json_option(p)


def _search_arm_options(p: argparse.ArgumentParser) -> None:
    """The options of the vector and graph arms."""
    p.add_argument(
        "--embedding",
        metavar="JSON_OR_FILE",
        help="query vector: a JSON array of numbers, or a file holding one",
    )
    p.add_argument(
        "--space",
        default="default",
        metavar="S",
        help="vector space of --embedding (default 'default')",
    )
    p.add_argument(
        "--seeds",
        type=int,
        default=3,
        metavar="N",
        help="text matches the graph arm starts from (default 3; 0 turns it off)",
    )
    p.add_argument(
        "--depth", type=int, default=1, metavar="N", help="hops the graph arm walks (default 1)"
    )
    p.add_argument(
        "--graph-weight",
        type=float,
        default=1.0,
        metavar="W",
        help="weight of the graph arm in the merge (default 1: what only the graph arm found "
        "comes after every match; with --k up to 10, 1.4 puts the nearest records above the "
        "best match)",
    )


def _add_show(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "show",
        "one node or edge, as it is now or was then",
        """
        Every field of the node or edge with this id (both, if a node and an edge share it),
        its embedding's size, and a node's edges. When no id matches, the node of that name
        (in any case), else the one node whose name or id starts with it; when several match,
        they are listed (ids and names) and the exit status is 1.""",
        """
        anatid show memory.duckdb alice
        anatid show memory.duckdb "Alice Smith"
        anatid show memory.duckdb alice --as-of 2024-05-01""",
        "records:cmd_show",
    )
    p.add_argument("id", metavar="ID", help="the node or edge id; or a node's name, or its start")
    p.add_argument("--kind", choices=("node", "edge"), help="look only among nodes or edges")
    p.add_argument(
        "--limit", type=int, default=50, metavar="N", help="edges of a node to list (default 50)"
    )
    time_options(p)
    json_option(p)


def _add_history(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "history",
        "every version of an id, in valid and transaction time",
        """
        Every version ever written of the node or edge with this id, oldest first: when the
        store knew it (transaction time), when it was true (valid time), what changed, and
        its text (a fact's sentence; the name where there is no text). Column "#" counts this
        record's versions (1 is its first); "version id" numbers the versions of every record
        in the file together, so one record's version ids rise with gaps between them.""",
        "anatid history memory.duckdb alice",
        "records:cmd_history",
    )
    p.add_argument("id", metavar="ID", help="the node or edge id")
    p.add_argument("--kind", choices=("node", "edge"), help="only the node or only the edge")
    json_option(p)


def _add_export(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "export",
        "the graph, or the graph as it was, as JSONL or GraphML",
        """
        Writes the current nodes and edges (or those of --as-of/--valid-at) to stdout or --out.
        jsonl (the default): one JSON object per line, nodes first, with "kind" set; --history
        writes every version instead. graphml: GraphML 1.0 for Gephi, yEd, networkx (props as a
        JSON string). Times are ISO 8601; the export is for reading, the store file itself is
        the backup.""",
        """
        anatid export memory.duckdb > graph.jsonl
        anatid export memory.duckdb --format graphml --as-of 2024-05-01 --out may.graphml""",
        "export:cmd_export",
    )
    p.add_argument(
        "--format",
        choices=("jsonl", "graphml"),
        default="jsonl",
        help="jsonl: JSON Lines, one record a line (default); graphml: GraphML 1.0",
    )
    p.add_argument(
        "--out",
        metavar="PATH",
        help="write here instead of stdout (an existing plain file is replaced; a store, its "
        "WAL or lock files, or FILE itself by any name is refused)",
    )
    group_option(p)
    p.add_argument(
        "--history",
        action="store_true",
        help="jsonl: every version, in the order they were written",
    )
    p.add_argument("--embeddings", action="store_true", help="jsonl: include the vectors")
    time_options(p)


def _add_check(subs: Subcommands) -> None:
    subcommand(
        subs,
        "check",
        "integrity check; exit status 1 on a problem",
        """
        Verifies the file: every block of every table and index reads (damage: a file cut
        short or overwritten, a write-ahead log that another file wrote), one current version
        per id, well-ordered transaction and valid intervals, full-text postings against
        documents, embeddings against versions, edges whose endpoints exist, and every byte of
        the search index files beside it against their checksums (a damaged one is named, and
        unused until a writer's builder replaces it). Prints "ok" and exits 0, or lists the
        problems and exits 1; a file that is not an anatid store exits 2. Never writes: a
        damaged file is left as it was, for a backup or a salvage.""",
        "anatid check memory.duckdb && echo healthy",
        "commands:cmd_check",
    )


def _add_view(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "view",
        "an HTML page drawing the graph, with a time slider",
        """
        Writes one self-contained HTML page (no network, no library) that draws the graph and
        has a slider over transaction time: drag it to see the graph as the store knew it at
        each instant. Open it in any browser. An edge is labelled by its name, or by its
        relationship type when it has no name. The URL may select an instant: page.html?step=3
        (the 4th change), ?step=-1 (the last) or ?t=2024-05-01T12:00:00Z.""",
        """
        anatid view memory.duckdb --out memory.html""",
        "viewer:cmd_view",
    )
    p.add_argument(
        "--out",
        metavar="PATH",
        help="where to write the page (default: FILE's name with .html, here; a store, its "
        "WAL or lock files, or FILE itself by any name is refused)",
    )
    group_option(p)


def _add_erasures(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "erasures",
        "the receipts of erasures: what was erased, and whether it is gone",
        """
        One receipt per erasure or purge: the ids and kinds of the records erased, how many
        versions, a SHA-256 digest of the erased content (never the content), when, and its
        state: "pending" (deleted from every read, but the bytes may still be in the file's
        free blocks) or "gone" (compacted: no byte of it remains in the store's files).""",
        """
        anatid erasures memory.duckdb
        anatid erasures memory.duckdb --pending --json""",
        "erasures:cmd_erasures",
    )
    p.add_argument("--pending", action="store_true", help="only erasures not yet compacted")
    json_option(p)


def _add_erase(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "erase",
        "erase records for good: every version, then compact (writes the file)",
        """
        Erases every version of the named nodes (with their edges), edges, or of every record
        that was ever in --group: rows, full-text postings and embeddings, then compacts the file
        so that no byte of them remains, and prints the receipt. Irreversible. Needs free disk
        space about the size of the file (it writes a compacted copy, then swaps it in); without
        it the command fails and writes nothing. Interrupted, the file is either the old one
        (the erasure still pending: run anatid compact) or the new one.""",
        """
        anatid erase memory.duckdb --node alice
        anatid erase memory.duckdb --group user-42 --json""",
        "erasures:cmd_erase",
    )
    p.add_argument("--node", action="append", metavar="ID", help="a node id (repeatable)")
    p.add_argument("--edge", action="append", metavar="ID", help="an edge id (repeatable)")
    p.add_argument(
        "--group",
        action="append",
        metavar="G",
        help="every node and edge that was ever in this group (repeatable)",
    )
    json_option(p)


def _add_compact(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "compact",
        "rewrite the file so purged records leave no byte behind (writes the file)",
        """
        Copies the live data into a fresh file and swaps it in (fsync, atomic rename), so that
        records purged earlier (erasures listed as pending) are physically gone; marks their
        receipts gone. Also returns the space deleted rows took. Needs free disk space about the
        size of the file.""",
        "anatid compact memory.duckdb",
        "erasures:cmd_compact",
    )
    json_option(p)


def _add_index(subs: Subcommands) -> None:
    p = subcommand(
        subs,
        "index",
        "build or update the persistent vector indexes (writes beside the file)",
        """
        Builds, for every vector space with at least --min-rows embeddings, an HNSW index saved
        in the folder FILE.anatid-index/ beside the file, or merges into it the embeddings
        written since it was built. Every process that searches the store maps it (opening costs
        milliseconds and no memory of its own) instead of loading the space's vectors; what was
        written after the last build is searched exactly until the next one. The folder is
        derived data: deleting it loses nothing. Other processes may keep writing meanwhile.
        On a terminal, one line on stderr shows each index's progress (phase, rows done of
        total, rows a second, time left); nothing is drawn when stderr is not a terminal.""",
        """
        anatid index memory.duckdb
        anatid index memory.duckdb --min-rows 5000""",
        "indexing:cmd_index",
    )
    p.add_argument(
        "--min-rows",
        type=int,
        default=None,
        metavar="N",
        help=f"smallest space to index, in embeddings (default {SETTINGS['ann_min_rows']})",
    )
    json_option(p)


def _add_cypher(subs: Subcommands) -> None:
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
        "cypher:cmd_cypher",
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
