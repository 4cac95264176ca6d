"""The parent side of the reader subprocess: start it, parse its frames, stop it.

See ``reader_worker.py`` for the frame format. Batches arrive as ``pyarrow.Table`` objects of at
most ``batch_rows`` rows, so the whole graph is never held in Python objects.
"""

from __future__ import annotations

import json
import struct
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pyarrow as pa

from .engines import Reader
from .errors import SourceReadError
from .formats import SourceFormat

WORKER = Path(__file__).with_name("reader_worker.py")
DEFAULT_BATCH_ROWS = 8192


@dataclass(frozen=True)
class TableInfo:
    """A source table from the catalog."""

    name: str
    kind: str  # "NODE" | "REL"
    properties: tuple[str, ...]
    types: dict[str, str]
    connections: tuple[tuple[str, str], ...]
    rows: int


@dataclass(frozen=True)
class Batch:
    """Rows of one table (for a relationship: of one FROM/TO pair)."""

    table: str
    data: pa.Table
    src_table: str | None = None
    dst_table: str | None = None


@dataclass
class Catalog:
    engine: str
    version: str
    tables: dict[str, TableInfo] = field(default_factory=dict)


def _parse_catalog(raw: dict[str, Any]) -> Catalog:
    cat = Catalog(engine=raw["engine"], version=raw["version"])
    for t in raw["tables"]:
        cat.tables[t["name"]] = TableInfo(
            name=t["name"],
            kind=t["kind"],
            properties=tuple(p["name"] for p in t["properties"]),
            types={p["name"]: p["type"] for p in t["properties"]},
            connections=tuple((c["src"], c["dst"]) for c in t.get("connections", [])),
            rows=int(t["rows"]),
        )
    return cat


class SourceReader:
    """Runs the reader worker over one source file; use as a context manager."""

    def __init__(
        self,
        fmt: SourceFormat,
        reader: Reader,
        *,
        batch_rows: int = DEFAULT_BATCH_ROWS,
        order: Sequence[str] = (),
        catalog_only: bool = False,
    ) -> None:
        self.fmt = fmt
        self.reader = reader
        args = [reader.python, "-I", str(WORKER), reader.engine, str(fmt.path)]
        args += ["--batch-rows", str(batch_rows)]
        if order:
            args += ["--order", ",".join(order)]
        if catalog_only:
            args.append("--catalog-only")
        self._args = args
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        self.catalog: Catalog | None = None
        self.sent: dict[str, int] = {}

    def __enter__(self) -> SourceReader:
        # stderr goes to a file, not a pipe: a chatty engine must never block on a full pipe.
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(self._args, stdout=subprocess.PIPE, stderr=self._stderr)
        kind, payload = self._next_frame()
        if kind != b"C":
            self._fail(kind, payload)
        self.catalog = _parse_catalog(json.loads(payload))
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait()
            if self._proc.stdout is not None:
                self._proc.stdout.close()
            self._proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def batches(self) -> Iterator[Batch]:
        """Every batch, in the worker's table order, until its end marker."""
        while True:
            kind, payload = self._next_frame()
            if kind == b"E":
                self.sent = json.loads(payload)["sent"]
                return
            if kind != b"B":
                self._fail(kind, payload)
            table = pa.ipc.open_stream(payload).read_all()
            meta = table.schema.metadata or {}
            yield Batch(
                table=meta[b"anatid.table"].decode(),
                data=table.replace_schema_metadata(None),
                src_table=meta[b"anatid.src"].decode() if b"anatid.src" in meta else None,
                dst_table=meta[b"anatid.dst"].decode() if b"anatid.dst" in meta else None,
            )

    def _next_frame(self) -> tuple[bytes, bytes]:
        assert self._proc is not None and self._proc.stdout is not None
        head = self._proc.stdout.read(9)
        if len(head) < 9:
            self._fail(b"", b"")
        kind, size = head[:1], struct.unpack("<Q", head[1:])[0]
        payload = self._proc.stdout.read(size)
        if len(payload) < size:
            self._fail(b"", b"")
        return kind, payload

    def _fail(self, kind: bytes, payload: bytes) -> None:
        detail = ""
        if kind == b"X":
            err = json.loads(payload)
            detail = f"{err['type']}: {err['error']}"
        else:
            if self._proc is not None:
                self._proc.wait()
            if self._stderr is not None:
                self._stderr.seek(0)
                tail = self._stderr.read()[-2000:].decode(errors="replace").strip()
                detail = tail or "the reader exited without output"
        self.close()
        raise SourceReadError(
            f"Reading {self.fmt.path} ({self.fmt.describe()}) with {self.reader.engine} "
            f"{self.reader.version} failed: {detail}. The file may be corrupt or truncated; "
            "the source was opened read-only and is unchanged."
        )
