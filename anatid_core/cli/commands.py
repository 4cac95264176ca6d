"""What the ``anatid`` subcommands do, given their parsed arguments (show and history are in
cli_records.py). Parsing is in cli.py.

Every command opens the file read-only: it never writes, never migrates, and fails with a clear
message (not a wait) when another process holds the file for writing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from .export import current, timeline, with_endpoints, write_graphml, write_jsonl
from .model import Edge, Item, Kind, Node
from .reads import Reader
from .store import Store
from .terminal import human_bytes, one_line, pairs, parse_time, table, to_json
from .viewer import payload, render

#: Exit status when the command ran but found something wrong (check) or nothing (show, history).
EXIT_PROBLEMS = 1
#: Exit status for bad input, a missing or locked file (argparse also uses 2 for usage errors).
EXIT_ERROR = 2

#: Above this many nodes the HTML page still works but lays out slowly (seconds) and is crowded.
VIEW_COMFORTABLE_NODES = 5000

#: Width of free-text columns in tables.
TEXT_WIDTH = 60


class CommandError(Exception):
    """Bad input detected by the command line itself; the message is printed as one line."""

    def __init__(self, message: str, *, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status


# ------------------------------------------------------------------------------------ helpers


def open_store(path: str) -> Store:
    if not os.path.exists(path):
        raise CommandError(f"{path}: no such file")
    return Store.open(path, read_only=True)


def reader_for(store: Store, args: argparse.Namespace) -> Reader:
    """The store, or an ``as_of`` view when --as-of / --valid-at were given."""
    tx = _time(args, "as_of", "--as-of")
    valid = _time(args, "valid_at", "--valid-at")
    if tx is None and valid is None:
        return store
    return store.as_of(tx_time=tx, valid_time=valid)


def _time(args: argparse.Namespace, attr: str, option: str) -> Any:
    raw = getattr(args, attr, None)
    if raw is None:
        return None
    try:
        return parse_time(raw, option=option)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


@contextmanager
def output(path: str | None) -> Iterator[TextIO]:
    """stdout, or a file written completely before it replaces any old one."""
    if path is None or path == "-":
        yield sys.stdout
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CommandError(f"{path}: the folder {folder} does not exist")
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as out:
            yield out
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _describe(item: Item) -> str:
    return item.rel if isinstance(item, Edge) else ",".join(item.labels)


def _summary(item: Item) -> str:
    """Name and text, the fields people recognise a record by (a fact is in an edge's text)."""
    return " — ".join(dict.fromkeys(p for p in (item.name, item.text) if p))


# -------------------------------------------------------------------------------------- stats


def cmd_stats(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        s = store.stats()
        # Index health is the integrity check's verdict (postings against documents, embeddings
        # against versions, ...); --no-check skips it on files too large to scan now.
        problems = None if args.no_check else store.check()
    if args.json:
        print(to_json(s if problems is None else {**s, "problems": problems}, indent=2))
        return 0
    if problems is None:
        health = "not checked (--no-check)"
    elif problems:
        health = f"{len(problems)} problem(s): run anatid check {args.file}"
    else:
        health = "ok (text index, vectors and versions agree)"
    head = [
        ("file", f"{s['path']} ({human_bytes(s['file_bytes'])})"),
        ("schema version", s["schema_version"]),
        ("nodes", f"{s['nodes']} current, {s['node_versions']} versions"),
        ("edges", f"{s['edges']} current, {s['edge_versions']} versions"),
        ("text index", f"{s['postings']} postings"),
        ("health", health),
    ]
    print(pairs(head))
    spaces = s["vector_spaces"]
    if spaces:
        print("\nvector spaces")
        rows = [[v["kind"], v["space"], v["dim"], v["vectors"]] for v in spaces]
        print(table(["kind", "space", "dim", "vectors"], rows, indent="  "))
    for key, title, column in (
        ("nodes_by_group", "nodes by group", "group"),
        ("nodes_by_label", "nodes by label", "label"),
        ("edges_by_group", "edges by group", "group"),
        ("edges_by_rel", "edges by relationship", "rel"),
    ):
        counts: dict[str, int] = s[key]
        if counts:
            print(f"\n{title}")
            rows = [[k if k != "" else '""', n] for k, n in counts.items()]
            print(table([column, "count"], rows, indent="  "))
    return 0


# ------------------------------------------------------------------------------------- search


def _embedding(raw: str) -> list[float]:
    """A JSON array of numbers, given inline or as the path of a file holding one."""
    text = raw
    if not raw.lstrip().startswith("[") and os.path.exists(raw):
        with open(raw, encoding="utf-8") as f:
            text = f.read()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise CommandError(
            "--embedding: expected a JSON array of numbers (e.g. [0.1, 0.2]) or a file holding one"
        ) from None
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in value)
    ):
        raise CommandError("--embedding: expected a non-empty JSON array of numbers")
    return [float(x) for x in value]


def _check_space(store: Store, kind: Kind, space: str) -> None:
    """A query vector for a space the file lacks would silently find nothing: say so, and name
    the spaces there are (Graphiti's files, for one, use 'name' and 'fact', not 'default')."""
    spaces = [(v["kind"], v["space"]) for v in store.stats()["vector_spaces"]]
    if (kind, space) not in spaces:
        have = ", ".join(f"{k}/{s}" for k, s in spaces) or "none"
        raise CommandError(
            f"--space {space!r}: the file has no {kind} vectors in that space "
            f"(spaces: {have}); pick one with --space (and --kind)"
        )


def cmd_search(args: argparse.Namespace) -> int:
    if args.k <= 0:
        raise CommandError(f"--k must be a positive number, got {args.k}")
    if args.depth < 0 or args.seeds < 0:
        raise CommandError("--depth and --seeds must be >= 0")
    vector = _embedding(args.embedding) if args.embedding is not None else None
    if not args.query.strip() and vector is None:
        raise CommandError("the search text is empty; give some words or an --embedding")
    kind: Kind = args.kind
    if (kind == "node" and args.rel) or (kind == "edge" and args.label):
        raise CommandError("--label filters nodes and --rel filters edges (--kind edge)")
    with open_store(args.file) as store:
        if vector is not None:
            _check_space(store, kind, args.space)
        reader = reader_for(store, args)
        # The graph arm starts from the best text matches among nodes and walks --depth hops.
        seeds = (
            [
                h.id
                for h in reader.search_text(
                    args.query, kind="node", k=args.seeds, groups=args.group
                )
            ]
            if args.seeds
            else []
        )
        hits = reader.recall(
            text=args.query,
            vector=vector,
            seeds=seeds or None,
            kind=kind,
            k=args.k,
            depth=args.depth,
            space=args.space,
            groups=args.group,
            labels=args.label,
            rels=args.rel,
        )
    if args.json:
        print(
            to_json(
                [
                    {"rank": i + 1, "score": h.score, "arms": dict(h.arms), "item": h.item}
                    for i, h in enumerate(hits)
                ],
                indent=2,
            )
        )
        return 0
    if not hits:
        print("no matches")
        return 0
    order = {"text": 0, "vector": 1, "graph": 2}
    rows = []
    for i, h in enumerate(hits):
        arms = " ".join(
            f"{a}#{r}" for a, r in sorted(h.arms.items(), key=lambda ar: order.get(ar[0], 9))
        )
        item = h.item
        rows.append(
            [
                i + 1,
                f"{h.score:.4f}",
                arms,
                item.id,
                item.group or '""',
                one_line(_describe(item), 30),
                one_line(_summary(item), TEXT_WIDTH),
            ]
        )
    print(
        table(
            [
                "#",
                "score",
                "found by (arm#rank)",
                "id",
                "group",
                "rel" if kind == "edge" else "labels",
                "name / text",
            ],
            rows,
        )
    )
    print(
        f"\narms: text = BM25 over name and text; vector = cosine to --embedding in space "
        f"{args.space!r}"
        + ("" if vector is not None else " (not used: no --embedding)")
        + f"; graph = within {args.depth} hop(s) of the top {len(seeds)} text match(es) "
        f"{', '.join(seeds) if seeds else ''}".rstrip()
    )
    return 0


# ------------------------------------------------------------------------------------- export


def cmd_export(args: argparse.Namespace) -> int:
    if args.history and (args.as_of or args.valid_at):
        raise CommandError(
            "--history exports every version; it cannot be combined with --as-of/--valid-at"
        )
    if args.format == "graphml" and (args.history or args.embeddings):
        raise CommandError(
            "--history and --embeddings need --format jsonl (GraphML holds one version per id and no vectors)"
        )
    if args.history and args.embeddings:
        raise CommandError("--embeddings exports the vectors of visible versions; drop --history")
    with open_store(args.file) as store, output(args.out) as out:
        reader = reader_for(store, args)
        if args.format == "graphml":
            nodes, edges = with_endpoints(
                reader,
                [n for n in current(reader, "node", args.group) if isinstance(n, Node)],
                [e for e in current(reader, "edge", args.group) if isinstance(e, Edge)],
            )
            n, e = write_graphml(out, nodes, edges)
        else:
            n = e = 0
            for kind in ("node", "edge"):
                source = (timeline if args.history else current)(reader, kind, args.group)  # type: ignore[arg-type]
                for chunk in _chunks(source, 5000):
                    vectors = (
                        reader.get_embeddings([i.id for i in chunk], kind=kind)  # type: ignore[arg-type]
                        if args.embeddings
                        else None
                    )
                    count = write_jsonl(out, chunk, vectors)
                    if kind == "node":
                        n += count
                    else:
                        e += count
    if args.out not in (None, "-"):
        print(f"wrote {n} nodes and {e} edges to {args.out}", file=sys.stderr)
    return 0


# -------------------------------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        problems = store.check()
        s = store.stats()
    summary = (
        f"{s['nodes']} nodes, {s['edges']} edges, "
        f"{s['node_versions'] + s['edge_versions']} versions, schema {s['schema_version']}"
    )
    if not problems:
        print(f"{args.file}: ok ({summary})")
        return 0
    for p in problems:
        print(f"problem: {p}")
    print(f"{args.file}: {len(problems)} problem(s) ({summary})")
    return EXIT_PROBLEMS


# --------------------------------------------------------------------------------------- view


def cmd_view(args: argparse.Namespace) -> int:
    target = args.out or os.path.splitext(os.path.basename(args.file))[0] + ".html"
    with open_store(args.file) as store:
        data = payload(store, title=os.path.basename(args.file), groups=args.group)
    page = render(data)
    with output(target) as out:
        out.write(page)
    ids = len({v["id"] for v in data["nodes"]})
    if target != "-":
        print(
            f"wrote {target}: {ids} nodes, {len(data['nodes'])} node versions, "
            f"{len(data['edges'])} edge versions; open it in a browser",
            file=sys.stderr,
        )
    if ids > VIEW_COMFORTABLE_NODES:
        print(
            f"note: {ids} nodes make a slow, crowded page; --group draws one group at a time",
            file=sys.stderr,
        )
    return 0
