"""What ``anatid erase``, ``compact`` and ``erasures`` do (issue 15). ``erase`` and ``compact``
are the two commands that open the store for writing."""

from __future__ import annotations

import argparse
from typing import Any

from anatid_core import Erasure

from .files import open_store, open_store_for_writing
from .status import CommandError
from .terminal import fmt_time, human_bytes, one_line, pairs, table, to_json

STATES = {
    "gone": "no byte of the erased records remains in the store's files",
    "pending": "deleted from every read; bytes may remain until compaction",
}

#: Ids shown per receipt in the table (all of them are in --json).
SHOWN_IDS = 3


def receipt_json(e: Erasure) -> dict[str, Any]:
    return {
        "id": e.id,
        "state": e.state,
        "erased_at": fmt_time(e.erased_at),
        "gone_at": fmt_time(e.gone_at, open_end="") or None,
        "node_ids": list(e.node_ids),
        "edge_ids": list(e.edge_ids),
        "versions": e.versions,
        "digest": e.digest,
        "everything": e.everything,
        "kept_neighbour_ids": list(e.kept_neighbour_ids),
    }


def _ids(e: Erasure) -> str:
    if e.everything:
        return "(everything)"
    ids = [f"node {i}" for i in e.node_ids] + [f"edge {i}" for i in e.edge_ids]
    more = f" +{len(ids) - SHOWN_IDS} more" if len(ids) > SHOWN_IDS else ""
    return one_line(", ".join(ids[:SHOWN_IDS]), 60) + more


def _kept(e: Erasure) -> str:
    """The kept neighbours, abbreviated like the ids ("" when there are none)."""
    kept = list(e.kept_neighbour_ids)
    more = f" +{len(kept) - SHOWN_IDS} more" if len(kept) > SHOWN_IDS else ""
    return one_line(", ".join(kept[:SHOWN_IDS]), 40) + more


def cmd_erasures(args: argparse.Namespace) -> int:
    with open_store(args.file) as store:
        found = store.erasures(pending_only=args.pending)
    if args.json:
        print(to_json([receipt_json(e) for e in found], indent=2))
        return 0
    if not found:
        print("no erasures" + (" pending" if args.pending else ""))
        return 0
    rows = [
        [e.id, e.state, fmt_time(e.erased_at), e.versions, e.digest[:16], _ids(e), _kept(e)]
        for e in found
    ]
    headers = ["#", "state", "erased at", "versions", "digest", "records", "kept neighbours"]
    print(table(headers, rows))
    if any(e.kept_neighbour_ids for e in found):
        print("\nkept neighbours: records that stay but were linked to erased ones; text derived")
        print("from what was erased (a summary) may remain in them")
    pending = sum(1 for e in found if not e.physically_gone)
    if pending:
        print(f"\n{pending} pending: their bytes may remain until `anatid compact {args.file}`")
    return 0


def cmd_erase(args: argparse.Namespace) -> int:
    nodes, edges, groups = args.node or [], args.edge or [], args.group or []
    if not (nodes or edges or groups):
        raise CommandError("erase: name what to erase: --node ID, --edge ID or --group G")
    with open_store_for_writing(args.file) as store:
        receipts = []
        if nodes or edges:
            receipts.append(store.erase(nodes=nodes, edges=edges))
        if groups:
            # Nodes first (their edges go with them), so that the edge receipt does not list
            # as kept a node of the group that is erased next.
            receipts.append(store.erase_where("node", groups=groups))
            receipts.append(store.erase_where("edge", groups=groups))
        receipts = [store.erasure(e.id) for e in receipts]  # the last compaction completed all
    if args.json:
        print(to_json([receipt_json(e) for e in receipts], indent=2))
        return 0
    for e in receipts:
        print(_receipt_text(e))
    return 0


def _receipt_text(e: Erasure) -> str:
    return pairs(
        [
            ("erasure", e.id),
            ("state", f"{e.state} ({STATES[e.state]})"),
            ("versions", e.versions),
            ("digest", e.digest),
            ("records", _ids(e) or "(none matched)"),
            ("kept neighbours", _kept(e) or "(none)"),
        ]
    )


def cmd_compact(args: argparse.Namespace) -> int:
    with open_store_for_writing(args.file) as store:
        done = store.compact()
    if args.json:
        print(
            to_json(
                {
                    "bytes_before": done.bytes_before,
                    "bytes_after": done.bytes_after,
                    "completed": [receipt_json(e) for e in done.completed],
                },
                indent=2,
            )
        )
        return 0
    print(
        f"{args.file}: {human_bytes(done.bytes_before)} -> {human_bytes(done.bytes_after)}; "
        f"{len(done.completed)} pending erasure(s) completed"
    )
    return 0
