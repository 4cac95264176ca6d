"""What ``anatid stats`` and ``check`` do, given their parsed arguments (``export`` is in
:mod:`.export`, ``view`` in :mod:`.viewer`, ``search`` in :mod:`.search`, ``show`` and ``history``
in :mod:`.records`; the parser is in :mod:`.parser`)."""

from __future__ import annotations

import argparse
from typing import Any

from anatid_core import IndexState, StoreCorrupt

from .files import open_store
from .status import EXIT_PROBLEMS
from .terminal import human_bytes, pairs, table, to_json

# -------------------------------------------------------------------------------------- stats


def cmd_stats(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        s = {**store.stats(), "indexes": [_index_json(i) for i in store.index_states()]}
        # Index health is the integrity check's verdict (postings against documents, embeddings
        # against versions, ...); --no-check skips it on files too large to scan now. Index
        # files are trusted by their stamps here, as searches trust them: `anatid check` reads
        # every byte of them.
        problems = None if args.no_check else store.check(index_bytes=False)
    damage = _damage(problems or [])
    if damage is not None:  # counts read from a damaged file are no statistics of it
        raise StoreCorrupt(f"{args.file}: {damage}", damaged=True)
    if args.json:
        print(to_json(s if problems is None else {**s, "problems": problems}, indent=2))
        return 0
    if problems is None:
        health = "not checked (--no-check)"
    elif problems:
        health = f"{len(problems)} problem(s): run anatid check {args.file}"
    else:
        health = "ok (text index, vectors and versions agree)"
    _print_stats(s, health)
    return 0


def _print_stats(s: dict[str, Any], health: str) -> None:
    head = [
        ("file", f"{s['path']} ({human_bytes(s['file_bytes'])})"),
        ("schema version", s["schema_version"]),
        ("nodes", f"{s['nodes']} current, {s['node_versions']} versions"),
        ("edges", f"{s['edges']} current, {s['edge_versions']} versions"),
        ("text index", f"{s['postings']} postings"),
        ("health", health),
    ]
    print(pairs(head))
    indexes = s["indexes"]
    if indexes:
        print(
            "\nsearch indexes (beside the file, rebuilt by writers; rows written since are searched exactly)"
        )
        rows = [
            [
                i["kind"],
                "text" if i["space"] is None else i["space"],
                _state_word(i),
                i["rows"],
                i["pending"],
                human_bytes(i["bytes"]) if i["files"] else "-",
                (i["built_at"] or "-")[:19].replace("T", " "),
            ]
            for i in indexes
        ]
        print(
            table(
                ["kind", "index", "state", "indexed", "since build", "size", "built (UTC)"],
                rows,
                indent="  ",
            )
        )
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


def _state_word(i: dict[str, Any]) -> str:
    if i["reason"] is not None:
        return f"unused: {i['reason']}"
    return "ok (flat: graph being built)" if i["format"] == "flat" else i["state"]


def _index_json(i: IndexState) -> dict[str, Any]:
    return {
        "kind": i.kind,
        "space": i.space,
        "state": i.state,
        "reason": i.reason,
        "rows": i.rows,
        "pending": i.pending,
        "files": list(i.files),
        "bytes": i.bytes,
        "built_at": i.built_at.isoformat() if i.built_at else None,
        "format": i.format or None,
    }


# -------------------------------------------------------------------------------------- check


def cmd_check(args: argparse.Namespace) -> int:
    try:
        with open_store(args.file) as store:
            problems = store.check()
            summary = None if _damage(problems) else _summary(store.stats())
    except StoreCorrupt as exc:
        # Damage met while opening is a problem of this file like damage met by the check
        # (which one meets it depends on where the damage lies); a file of another kind is not
        # a store to check (exit 2, from main).
        if not exc.damaged:
            raise
        problems, summary = [str(exc)], None
    if not problems:
        print(f"{args.file}: ok ({summary})")
        return 0
    for p in problems:
        print(f"problem: {p}")
    counts = f" ({summary})" if summary else " (the file cannot be read whole)"
    print(f"{args.file}: {len(problems)} problem(s){counts}")
    return EXIT_PROBLEMS


def _summary(s: dict[str, Any]) -> str:
    return (
        f"{s['nodes']} nodes, {s['edges']} edges, "
        f"{s['node_versions'] + s['edge_versions']} versions, schema {s['schema_version']}"
    )


def _damage(problems: list[str]) -> str | None:
    """The problem of ``Store.check()`` that says the file cannot be read whole, if any (the
    check words it "... the file is truncated or damaged; restore it from a backup")."""
    return next((p for p in problems if "truncated or damaged" in p), None)
