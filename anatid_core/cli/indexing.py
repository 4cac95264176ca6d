"""What ``anatid index`` does (issue 34): build or merge the store's persistent vector indexes,
with a progress line on a terminal (issue 41: :mod:`~.progress_bar`)."""

from __future__ import annotations

import argparse

from .files import open_store_for_writing
from .progress_bar import ProgressBar
from .status import CommandError
from .terminal import human_bytes, to_json


def cmd_index(args: argparse.Namespace) -> int:
    if args.min_rows is not None and args.min_rows < 0:
        raise CommandError(f"--min-rows must be >= 0, got {args.min_rows}")
    bar = ProgressBar()  # on a terminal only
    try:
        with open_store_for_writing(args.file) as store:
            done = store.build_indexes(min_rows=args.min_rows, progress=bar)
    finally:
        bar.close()
    rows = [
        {
            "kind": b.kind,
            "space": b.space,
            "rows_added": b.rows_added,
            "rows_total": b.rows_total,
            "seconds": round(b.seconds, 3),
            "bytes": b.bytes,
            "file": b.file,
        }
        for b in done
    ]
    if args.json:
        print(to_json(rows, indent=2))
        return 0
    if not rows:
        print(f"{args.file}: no vector space to index (none has --min-rows embeddings)")
        return 0
    for r in rows:
        print(
            f"{_what(r)}: {r['rows_added']} added, {r['rows_total']} "
            f"indexed, {r['seconds']} s, {human_bytes(r['bytes'])} ({r['file']})"
        )
    return 0


def _what(r: dict) -> str:
    return f"{r['kind']} text index" if r["space"] is None else f"{r['kind']} space {r['space']!r}"
