"""The lifecycle every persistent index shares (issue 41), whatever its format: whether an index
may answer for the file, what is said when it may not, and what ``anatid check`` reports.

As in Lucene, where each file format is a codec plugged into one commit/check lifecycle, a format
here is a :class:`Format`: the table its versions live in, how the file's versions are
fingerprinted, how its files' layout is checked before they are mapped, and a sample of its
contents compared with the file. The vector format is in :mod:`~.ann`, the text format in
:mod:`~.text_build`; the manifest, seals and ties they share are in
:mod:`anatid_core.storage.index_files`, :mod:`~anatid_core.storage.index_seal` and
:mod:`~anatid_core.storage.index_ties`.

An index is used only when its manifest is whole, it matches the file (store, build token,
counts, fingerprint), its files hold the bytes they were sealed with, and their layout agrees
with the manifest. Otherwise it is skipped, logged once per process with the reason, searches
scan exactly, and a writing process's next build replaces it (never merges into it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import duckdb

from ..base.model import IndexState, Kind
from ..storage import index_files, index_ties
from ..storage.index_files import Manifest
from ..storage.sql import one


@dataclass(frozen=True)
class Format:
    """What one persistent index format plugs into the lifecycle."""

    #: What it is called in messages ("vector index", "text index").
    noun: str
    #: The table of the versions it indexes, and their dimension (None: the space is gone).
    table: Callable[[duckdb.DuckDBPyConnection, Manifest], tuple[str, int] | None]
    fingerprint: index_ties.Fingerprint
    #: Opens its files (the folder, the manifest) and says what disagrees with the manifest.
    structure: Callable[[str, Manifest], str | None]
    #: Compares a sample of its contents with the file's (for ``anatid check``).
    sample: Callable[[duckdb.DuckDBPyConnection, str, Manifest], str | None]


@dataclass(frozen=True)
class Checked:
    """An index's manifest (None: it has none) and why it may not be used (None: it may)."""

    manifest: Manifest | None
    reason: str | None = None

    @property
    def usable(self) -> Manifest | None:
        return self.manifest if self.reason is None else None


def check(
    cur: duckdb.DuckDBPyConnection,
    store_path: str,
    fmt: Format,
    kind: Kind,
    space: str | None,
    *,
    every_byte: bool = False,
) -> Checked:
    """Whether the index of ``(kind, space)`` may answer for the file now (call in a turn)."""
    found = index_files.read_manifest(store_path, kind, space)
    if found is None:
        return Checked(None)
    reason = reason_unused(cur, store_path, fmt, found, every_byte=every_byte)
    return Checked(found, reason)


def reason_unused(
    cur: duckdb.DuckDBPyConnection,
    store_path: str,
    fmt: Format,
    m: Manifest,
    *,
    every_byte: bool = False,
) -> str | None:
    table = fmt.table(cur, m)
    if table is None:
        return "its vector space is gone from the file"
    if table[1] != m.dim:
        return f"it holds {m.dim} dimensions, the file's space {table[1]}"
    reason = index_ties.unused_reason(
        cur, store_path, m, table[0], fmt.fingerprint, every_byte=every_byte
    )
    if reason is None:
        reason = fmt.structure(index_files.folder_of(store_path), m)
    return reason


def usable(
    cur: duckdb.DuckDBPyConnection, store_path: str, fmt: Format, kind: Kind, space: str | None
) -> Manifest | None:
    """The index's manifest if it may answer for the file; when it may not, that is logged
    once and None returned (searches then scan exactly)."""
    got = check(cur, store_path, fmt, kind, space)
    if got.manifest is not None and got.reason is not None:
        index_files.log_unused(store_path, got.manifest, got.reason)
    return got.usable


def state(
    cur: duckdb.DuckDBPyConnection,
    store_path: str,
    fmt: Format,
    kind: Kind,
    space: str | None,
    table: str,
) -> IndexState:
    """How the index of ``(kind, space)`` over ``table`` stands (files trusted by their stamps,
    as a search would: ``anatid check`` reads every byte)."""
    usable_folder = store_path != ":memory:" and index_files.usable_folder(store_path)
    got = check(cur, store_path, fmt, kind, space) if usable_folder else Checked(None)
    m = got.manifest
    if m is None:
        row = one(cur, f"SELECT count(*) FROM {table}")
        return IndexState(kind, space, "none", rows=0, pending=int(row[0]) if row else 0)
    row = one(cur, f"SELECT count(*) FROM {table} WHERE vid > ?", [m.high])
    built = None
    if m.built_at:
        try:
            built = datetime.fromisoformat(m.built_at)
        except ValueError:
            built = None
    folder = index_files.folder_of(store_path)
    return IndexState(
        kind,
        space,
        "ok" if got.reason is None else "unused",
        rows=m.count,
        pending=int(row[0]) if row else 0,
        files=(f"{folder}/{m.file}", f"{folder}/{m.keys}"),
        bytes=m.size + m.keys_size,
        built_at=built,
        reason=got.reason,
        format={"usearch": "hnsw", "flat": "flat"}.get(m.file.rsplit(".", 1)[-1], "postings"),
    )


def problems(
    cur: duckdb.DuckDBPyConnection,
    store_path: str,
    formats: dict[bool, Format],
    every_byte: bool = True,
) -> list[str]:
    """``check()``'s lines for the persistent indexes, every byte of every file read (unless
    ``every_byte`` is False): each manifest that is not whole, each index that does not match
    the file or whose files are damaged (named), each whose contents differ from the file on
    a sample. ``formats``: the format of vector indexes (True) and of text indexes (False)."""
    if store_path == ":memory:":
        return []
    problem = index_files.folder_problem(store_path)
    if problem is not None:
        return [f"{problem}: its indexes are not used; delete it and run `anatid index`"]
    out = []
    for path, m, why in index_files.manifest_files(store_path):
        if m is None:
            out.append(
                f"{path} is not a whole index manifest ({why}): the index is unused; "
                "run `anatid index` to rebuild it"
            )
            continue
        fmt = formats[m.space is not None]
        what = _what(fmt, m)
        reason = reason_unused(cur, store_path, fmt, m, every_byte=every_byte)
        if reason is None:
            sample = fmt.sample(cur, store_path, m)
            if sample is not None:
                out.append(f"{what}: {sample}; delete it and run `anatid index`")
            continue
        out.append(f"{what} is unused: {reason}; run `anatid index` to rebuild it")
    return out


def _what(fmt: Format, m: Manifest) -> str:
    if m.space is None:
        return f"the {m.kind} {fmt.noun}"
    return f"the {m.kind} {fmt.noun} of space {m.space!r}"


__all__ = ["Checked", "Format", "check", "problems", "reason_unused", "state", "usable"]
