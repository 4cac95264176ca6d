"""The anatid file's full timeline, written beside an export as Parquet.

A Graphiti server holds only the current state. The anatid file also holds every earlier
version of every record, on both time axes (valid time, and transaction time: when the store
learned it). ``Store.versions`` returns that whole timeline; it is written here as
``nodes.parquet`` and ``edges.parquet``, one row per version, with ``props`` in anatid's own
JSON encoding (so datetimes, tuples and bytes keep their types) and its embedding as float32
(an earlier version's as the store returned it as of that version's transaction time). ``read_history`` reads the files back as
:class:`anatid_core.Node` / :class:`anatid_core.Edge` versions.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from anatid_core import Edge, Item, Kind, Node, Store, decode_props, encode_props

#: Versions per Parquet row group (and per read from the store).
ROWS = 10_000
TS = pa.timestamp("us", tz="UTC")
_COMMON = [
    ("version", pa.int64()),
    ("id", pa.string()),
    ("group", pa.string()),
    ("name", pa.string()),
    ("text", pa.string()),
    ("props", pa.string()),
    ("space", pa.string()),
    ("valid_from", TS),
    ("valid_to", TS),
    ("tx_from", TS),
    ("tx_to", TS),
    ("embedding", pa.list_(pa.float32())),
]
SCHEMAS: dict[Kind, pa.Schema] = {
    "node": pa.schema([*_COMMON[:3], ("labels", pa.list_(pa.string())), *_COMMON[3:]]),
    "edge": pa.schema(
        [*_COMMON[:3], ("src", pa.string()), ("dst", pa.string()), ("rel", pa.string()),
         *_COMMON[3:]]
    ),
}  # fmt: skip
FILES: dict[Kind, str] = {"node": "nodes.parquet", "edge": "edges.parquet"}
MANIFEST = "history.json"


def _row(item: Item) -> dict[str, Any]:
    """One version's columns but its embedding (see :func:`_embedding_column`)."""
    row: dict[str, Any] = {
        "version": item.version,
        "id": item.id,
        "group": item.group,
        "name": item.name,
        "text": item.text,
        "props": encode_props(item.props),
        "space": item.space,
        "valid_from": item.valid_from,
        "valid_to": item.valid_to,
        "tx_from": item.tx_from,
        "tx_to": item.tx_to,
    }
    if isinstance(item, Node):
        row["labels"] = list(item.labels)
    else:
        row.update(src=item.src, dst=item.dst, rel=item.rel)
    return row


def _embeddings(store: Store, kind: Kind, page: list[Item]) -> dict[tuple[str, Any], Any]:
    """Each version's embedding, keyed by (id, tx_from): the current versions' from the store,
    an earlier version's from the store as of the instant it was written (one read per
    transaction instant)."""
    out: dict[tuple[str, Any], Any] = {}
    current = [v.id for v in page if v.tx_to is None]
    for id_, vec in store.get_embedding_arrays(current, kind=kind).items():
        out[(id_, None)] = vec
    by_instant: dict[Any, list[str]] = {}
    for v in page:
        if v.tx_to is not None:
            by_instant.setdefault(v.tx_from, []).append(v.id)
    for instant, ids in by_instant.items():
        for id_, vec in store.as_of(tx_time=instant).get_embedding_arrays(ids, kind=kind).items():
            out[(id_, instant)] = vec
    return out


def _embedding_column(vectors: list[Any]) -> pa.Array:
    """A page's embeddings (float32 rows, or None) as one Arrow ``list<float32>`` column,
    built from the rows as they are: a Python float per component was most of the history's
    time with 1024-dim vectors."""
    rows = [np.asarray(v, dtype=np.float32).ravel() for v in vectors if v is not None]
    offsets = np.zeros(len(vectors) + 1, dtype=np.int32)
    np.cumsum([0 if v is None else len(v) for v in vectors], out=offsets[1:])
    flat = np.concatenate(rows) if rows else np.empty(0, dtype=np.float32)
    mask = pa.array([v is None for v in vectors], type=pa.bool_())
    return pa.ListArray.from_arrays(pa.array(offsets), pa.array(flat), mask=mask)


def _table(kind: Kind, page: list[Item], vectors: list[Any]) -> pa.Table:
    schema = SCHEMAS[kind]
    bare = schema.remove(schema.get_field_index("embedding"))
    table = pa.Table.from_pylist([_row(v) for v in page], schema=bare)
    return table.append_column(schema.field("embedding"), _embedding_column(vectors)).select(
        schema.names
    )


def _pages(store: Store, kind: Kind) -> Iterator[list[Item]]:
    offset = 0
    while True:
        page = store.versions(kind, limit=ROWS, offset=offset)
        if not page:
            return
        yield page
        offset += len(page)


def write_history(store: Store, directory: Path, source: str) -> dict[str, int]:
    """Write every version of ``store`` under ``directory``; the number of versions per kind."""
    directory.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for kind in ("node", "edge"):
        tmp = directory / (FILES[kind] + ".tmp")
        n = 0
        with pq.ParquetWriter(tmp, SCHEMAS[kind]) as writer:
            for page in _pages(store, kind):
                vectors = _embeddings(store, kind, page)
                found = [vectors.get((v.id, None if v.tx_to is None else v.tx_from)) for v in page]
                writer.write_table(_table(kind, page, found))
                n += len(page)
        tmp.replace(directory / FILES[kind])  # a file appears only when complete
        counts[kind] = n
    manifest = {"source": source, "versions": counts, "format": "anatid-history/1"}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return counts


def _item(kind: Kind, row: dict[str, Any]) -> Item:
    common: dict[str, Any] = {
        "id": row["id"],
        "group": row["group"],
        "name": row["name"],
        "text": row["text"],
        "props": decode_props(row["props"]),
        "embedding": row["embedding"],
        "space": row["space"],
        "valid_from": row["valid_from"],
        "valid_to": row["valid_to"],
        "tx_from": row["tx_from"],
        "tx_to": row["tx_to"],
        "version": row["version"],
    }
    if kind == "node":
        return Node(labels=tuple(row["labels"]), **common)
    return Edge(src=row["src"], dst=row["dst"], rel=row["rel"], **common)


def read_history(directory: Path, kind: Kind) -> Iterator[Item]:
    """Every version written by :func:`write_history`, in transaction order."""
    for batch in pq.ParquetFile(directory / FILES[kind]).iter_batches(batch_size=ROWS):
        for row in batch.to_pylist():
            yield _item(kind, row)


def history_counts(directory: Path) -> dict[str, int] | None:
    path = directory / MANIFEST
    if not path.exists():
        return None
    return dict(json.loads(path.read_text())["versions"])
