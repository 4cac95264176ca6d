"""Read a Kuzu or LadybugDB file and stream its tables to stdout as Arrow batches.

This file runs as a script in a *separate* interpreter that has the engine installed (kuzu and
ladybug cannot share a process: pybind11 type clash; cognee's wheel also ships a ``kuzu`` shim
that is really ladybug). It imports only the standard library, the engine and pyarrow, and
never imports anatid.

    python -I reader_worker.py ENGINE DB_PATH [--batch-rows N] [--order T1,T2] [--catalog-only]

The database is opened read-only. Output is a sequence of frames, each ``kind`` (1 byte),
``length`` (8 bytes, little-endian) and a payload:

- ``C`` JSON catalog: engine, version, tables (name, kind, properties, connections, rows)
- ``B`` one Arrow IPC stream (schema + one record batch); schema metadata names the table and,
  for relationships, the endpoint tables (``anatid.table``, ``anatid.src``, ``anatid.dst``)
- ``E`` JSON end marker with per-table row counts sent
- ``X`` JSON error (``{"error": ..., "type": ...}``), then exit status 2
"""

from __future__ import annotations

import importlib
import json
import struct
import sys
from typing import Any, BinaryIO

DEFAULT_BATCH_ROWS = 8192
BUFFER_POOL_BYTES = 256 * 1024 * 1024


def _frame(out: BinaryIO, kind: bytes, payload: Any) -> None:
    """Write one frame; ``payload`` is bytes or any buffer (an Arrow buffer is written as it
    is: a batch of 1024-dim vectors is 32 MB, and each copy of it counts in peak memory)."""
    view = memoryview(payload)
    out.write(kind + struct.pack("<Q", view.nbytes))
    out.write(view)


def _rows(conn: Any, query: str) -> list[dict[str, Any]]:
    return conn.execute(query).get_as_arrow().to_pylist()


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def catalog(conn: Any) -> list[dict[str, Any]]:
    """Every user table with its properties, relationship connections and row count."""
    tables = []
    for row in sorted(_rows(conn, "CALL show_tables() RETURN *"), key=lambda r: r["id"]):
        name, kind = row["name"], row["type"]
        if kind not in ("NODE", "REL"):
            continue  # RDF graphs and other table kinds are reported by the caller as unknown
        props = [
            {"name": p["name"], "type": p["type"], "pk": bool(p.get("primary key", False))}
            for p in _rows(conn, f"CALL table_info('{name}') RETURN *")
        ]
        entry: dict[str, Any] = {"name": name, "kind": kind, "properties": props}
        if kind == "REL":
            entry["connections"] = [
                {
                    "src": c["source table name"],
                    "dst": c["destination table name"],
                    "src_pk": c["source table primary key"],
                    "dst_pk": c["destination table primary key"],
                }
                for c in _rows(conn, f"CALL show_connection('{name}') RETURN *")
            ]
            pattern = f"()-[r:{_quote(name)}]->()"
        else:
            pattern = f"(r:{_quote(name)})"
        stats = _rows(conn, f"MATCH {pattern} RETURN count(*) AS n, max(offset(ID(r))) AS hi")[0]
        entry["rows"] = int(stats["n"])
        entry["max_offset"] = -1 if stats["hi"] is None else int(stats["hi"])
        tables.append(entry)
    return tables


def _queries(table: dict[str, Any]) -> list[tuple[str, dict[str, str]]]:
    """One query template per (table, connection): ``{lo}``/``{hi}`` bound the internal offset."""
    props = ", ".join(f"r.{_quote(p['name'])} AS {_quote(p['name'])}" for p in table["properties"])
    sep = ", " if props else ""
    if table["kind"] == "NODE":
        where = "offset(ID(r)) >= {lo} AND offset(ID(r)) < {hi}"
        q = f"MATCH (r:{_quote(table['name'])}) WHERE {where} RETURN {props}"
        return [(q, {"anatid.table": table["name"]})]
    out = []
    for c in table["connections"]:
        q = (
            f"MATCH (a:{_quote(c['src'])})-[r:{_quote(table['name'])}]->(b:{_quote(c['dst'])}) "
            "WHERE offset(ID(r)) >= {lo} AND offset(ID(r)) < {hi} "
            f"RETURN a.{_quote(c['src_pk'])} AS _src, b.{_quote(c['dst_pk'])} AS _dst{sep}{props}"
        )
        out.append(
            (q, {"anatid.table": table["name"], "anatid.src": c["src"], "anatid.dst": c["dst"]})
        )
    return out


def stream(
    conn: Any, tables: list[dict[str, Any]], out: BinaryIO, batch_rows: int
) -> dict[str, int]:
    import pyarrow as pa

    sent: dict[str, int] = {}
    for table in tables:
        sent[table["name"]] = 0
        for template, meta in _queries(table):
            lo = 0
            while lo <= table["max_offset"]:
                hi = lo + batch_rows
                result = conn.execute(template.replace("{lo}", str(lo)).replace("{hi}", str(hi)))
                arrow = result.get_as_arrow(chunk_size=batch_rows)
                lo = hi
                if arrow.num_rows == 0:
                    continue
                arrow = arrow.replace_schema_metadata(meta)
                sink = pa.BufferOutputStream()
                with pa.ipc.new_stream(sink, arrow.schema) as writer:
                    writer.write_table(arrow)
                _frame(out, b"B", sink.getvalue())
                sent[table["name"]] += arrow.num_rows
    return sent


def main(argv: list[str]) -> int:
    engine_name, path = argv[0], argv[1]
    batch_rows = DEFAULT_BATCH_ROWS
    if "--batch-rows" in argv:
        batch_rows = int(argv[argv.index("--batch-rows") + 1])
    out = sys.stdout.buffer
    try:
        engine = importlib.import_module(engine_name)
        version = getattr(engine, "__version__", "unknown")
        # A bounded buffer pool: the default (80% of RAM) lets a big file's pages pile up in the
        # reader while it streams. The trade-off, measured on the 893 MB benchmark file: Kuzu
        # rescans a table for each batch (the offset range is not pushed into the scan), so a
        # pool smaller than a 100k x 1024 vector column (410 MB) re-reads it: the reader alone
        # takes 50 s at 256 MB (RSS 0.56 GB) against 22 s at 600 MB (0.9 GB). It runs beside
        # the loading process, which is slower still, so the end-to-end time was the same.
        db = engine.Database(path, read_only=True, buffer_pool_size=BUFFER_POOL_BYTES)
        conn = engine.Connection(db)
        tables = catalog(conn)
        _frame(
            out,
            b"C",
            json.dumps({"engine": engine_name, "version": version, "tables": tables}).encode(),
        )
        out.flush()
        if "--order" in argv:
            # The caller may need some tables before others (e.g. fact endpoints before facts).
            first = argv[argv.index("--order") + 1].split(",")
            rank = {name: i for i, name in enumerate(first)}
            tables = sorted(tables, key=lambda t: rank.get(t["name"], len(rank)))
        sent = {} if "--catalog-only" in argv else stream(conn, tables, out, batch_rows)
        _frame(out, b"E", json.dumps({"sent": sent}).encode())
        out.flush()
        return 0
    except Exception as exc:  # reported to the parent, which maps it to a MigrationError
        _frame(out, b"X", json.dumps({"error": str(exc), "type": type(exc).__name__}).encode())
        out.flush()
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
