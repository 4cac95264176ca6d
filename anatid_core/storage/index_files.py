"""The files of a store's persistent vector indexes (issue 34): where they live, what ties each to
the file, and how a new one replaces the old without a reader ever seeing half of it.

A store ``FILE`` keeps them in the folder ``FILE.anatid-index/`` (mode 0700 when the store is
private, no wider than the store otherwise), one pair per vector space:

* ``<kind>-<digest>-<high>.usearch``: an HNSW graph with the space's normalised float32
  vectors, keyed by version id, memory-mapped by every process that searches it;
* ``<kind>-<digest>-<high>.keys``: the record id of each of those versions (sorted version ids,
  offsets, UTF-8 ids; :class:`KeysFile`), mapped too, so that the winners' rows are fetched
  through the id index;
* ``<kind>-<digest>.json``, the manifest: the store it belongs to (``meta.store_id``), the
  space, the highest version id it holds (``high``), how many vectors (``count``: a purge of
  any of them, or an older copy of the file, changes how many the file has up to ``high``), a
  digest of the file's embeddings at its lowest and highest version ids (``fingerprint``: an
  older copy of the file that has written new versions under the same ids since differs
  there) and the index file's name and size.

They are derived data: deleting the folder loses nothing (searches scan exactly until the next
``anatid index``). A manifest that does not match the file (another store's, an older copy of
this one, a purge since, a size that differs) makes its index unused; a purge removes the index
of every space it takes a vector from, before it commits.

A new index is written under a temporary name, synced, renamed to its final name (which
carries ``high``, so it never replaces a file a reader maps), and only then named by a new
manifest (written the same way); the old index file is removed after. A crash at any point
leaves either the old pair or the new one, and at most an orphan file that the next build
removes.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import shutil
import stat
import uuid
from dataclasses import asdict, dataclass

import duckdb
import numpy as np

from ..base.model import Kind
from .filemode import creation_mask, no_wider
from .sql import one, run

FOLDER_SUFFIX = ".anatid-index"
FORMAT = 1


@dataclass(frozen=True)
class Manifest:
    """What one space's index file holds and which store it belongs to."""

    store_id: str
    kind: Kind
    space: str | None  # None: the kind's text index
    dim: int
    high: int
    count: int
    fingerprint: str
    file: str
    size: int
    keys: str
    keys_size: int
    format: int = FORMAT


def folder_of(store_path: str) -> str:
    return store_path + FOLDER_SUFFIX


def _stem(kind: Kind, space: str | None) -> str:
    if space is None:  # the kind's text index
        return f"{kind}-text"
    digest = hashlib.sha256(space.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{kind}-{digest}"


def manifest_path(store_path: str, kind: Kind, space: str | None) -> str:
    return os.path.join(folder_of(store_path), _stem(kind, space) + ".json")


def index_file_name(kind: Kind, space: str | None, high: int) -> str:
    suffix = "postings" if space is None else "usearch"
    return f"{_stem(kind, space)}-{int(high)}.{suffix}"


def keys_file_name(kind: Kind, space: str | None, high: int) -> str:
    return f"{_stem(kind, space)}-{int(high)}.keys"


_KEYS_MAGIC = b"ANATKEY1"


class KeysFile:
    """The record id of each indexed version, mapped: a header (magic, count, blob length),
    the sorted version ids (int64), ``count + 1`` offsets into the blob (int64), the blob of
    UTF-8 ids."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as fh:
            head = fh.read(24)
        if len(head) != 24 or head[:8] != _KEYS_MAGIC:
            raise OSError(f"{path}: not an anatid keys file")
        count = int.from_bytes(head[8:16], "little")
        blob = int.from_bytes(head[16:24], "little")
        if os.path.getsize(path) != 24 + 8 * count + 8 * (count + 1) + blob:
            raise OSError(f"{path}: truncated")
        self.vids = mapped(path, np.int64, 24, count)
        self._offsets = mapped(path, np.int64, 24 + 8 * count, count + 1)
        self._blob = mapped(path, np.uint8, 24 + 16 * count + 8, blob)

    def __len__(self) -> int:
        return len(self.vids)

    def ids_of(self, vids: np.ndarray) -> list[str | None]:
        """The record id of each version id (None for one the file does not hold)."""
        pos = np.searchsorted(self.vids, vids)
        inside = pos < len(self.vids)
        found = np.zeros(len(vids), dtype=bool)
        found[inside] = self.vids[pos[inside]] == vids[inside]
        starts = self._offsets[np.minimum(pos, len(self.vids) - 1)].tolist() if len(pos) else []
        ends = self._offsets[np.minimum(pos + 1, len(self.vids))].tolist() if len(pos) else []
        blob = self._blob
        return [
            bytes(blob[a:b]).decode("utf-8", "surrogatepass") if ok else None
            for ok, a, b in zip(found.tolist(), starts, ends, strict=True)
        ]

    def all_ids(self) -> tuple[np.ndarray, list[str]]:
        """Every (version id, record id), for a merge that writes the file again."""
        return np.asarray(self.vids), self.ids_of(np.asarray(self.vids))  # type: ignore[return-value]


def mapped(path: str, dtype: type, offset: int, count: int) -> np.ndarray:
    """``count`` values of ``dtype`` at ``offset`` of the file, mapped read-only: a plain
    array over the mapping (``np.memmap``'s per-item overhead, ~20 us, cost more than the
    lookups themselves)."""
    if count == 0:  # mmap cannot map nothing
        return np.zeros(0, dtype=dtype)
    with open(path, "rb") as fh:
        view = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    return np.frombuffer(view, dtype=dtype, count=count, offset=offset)


def write_keys(path: str, vids: np.ndarray, ids: list[str]) -> None:
    """Write a keys file for ``vids`` (sorted) and their record ``ids``, synced."""
    encoded = [i.encode("utf-8", "surrogatepass") for i in ids]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    if encoded:
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
    blob = b"".join(encoded)
    with open(path, "wb") as fh:
        fh.write(_KEYS_MAGIC)
        fh.write(len(encoded).to_bytes(8, "little"))
        fh.write(len(blob).to_bytes(8, "little"))
        fh.write(np.ascontiguousarray(vids, dtype=np.int64).tobytes())
        fh.write(offsets.tobytes())
        fh.write(blob)
        fh.flush()
        os.fsync(fh.fileno())


def read_manifest(store_path: str, kind: Kind, space: str | None) -> Manifest | None:
    """The space's manifest, or None if there is none or it cannot be read as one."""
    try:
        with open(manifest_path(store_path, kind, space), encoding="utf-8") as fh:
            raw = json.load(fh)
        found = Manifest(**raw)
    except (OSError, ValueError, TypeError):
        return None
    if found.format != FORMAT or found.kind != kind or found.space != space:
        return None
    return found


def files_whole(store_path: str, manifest: Manifest) -> bool:
    """Whether the index and keys files the manifest names are there, at their sizes."""
    folder = folder_of(store_path)
    try:
        sizes = (
            os.path.getsize(os.path.join(folder, manifest.file)),
            os.path.getsize(os.path.join(folder, manifest.keys)),
        )
    except OSError:
        return False
    return sizes == (manifest.size, manifest.keys_size)


def manifest_stamp(store_path: str, kind: Kind, space: str | None) -> tuple[int, int] | None:
    """(inode, mtime) of the space's manifest: changes when a build publishes a new one."""
    try:
        st = os.stat(manifest_path(store_path, kind, space))
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def make_folder(store_path: str) -> str:
    """The index folder, created if needed: 0700 for a private store, else the store's
    read and execute bits (never wider than the store)."""
    folder = folder_of(store_path)
    mode = stat.S_IMODE(os.stat(store_path).st_mode)
    wanted = 0o700 | ((mode & 0o044) | ((mode & 0o044) >> 2))
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    if stat.S_IMODE(os.stat(folder).st_mode) != wanted:
        os.chmod(folder, wanted)
    return folder


def temp_path(store_path: str, kind: Kind, space: str | None) -> str:
    return os.path.join(folder_of(store_path), f".{_stem(kind, space)}-{uuid.uuid4().hex}.tmp")


def writing(store_path: str) -> contextlib.AbstractContextManager[None]:
    """Hold while creating a file in the folder: it is no wider than the store."""
    return no_wider(creation_mask(store_path))


def sync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(folder: str) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish(store_path: str, written: str, keys: str, manifest: Manifest) -> None:
    """Make ``written`` and ``keys`` (synced temporary index and keys files) the space's index,
    named by ``manifest``, and remove the files it replaces."""
    folder = folder_of(store_path)
    old = read_manifest(store_path, manifest.kind, manifest.space)
    os.replace(keys, os.path.join(folder, manifest.keys))
    os.replace(written, os.path.join(folder, manifest.file))
    tmp = temp_path(store_path, manifest.kind, manifest.space)
    with writing(store_path), open(tmp, "w", encoding="utf-8") as fh:
        json.dump(asdict(manifest), fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, manifest_path(store_path, manifest.kind, manifest.space))
    sync_folder(folder)
    if old is not None and old.file != manifest.file:
        for name in (old.file, old.keys):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(folder, name))


def remove_space(store_path: str, kind: Kind, space: str | None) -> None:
    """Remove a space's index (manifest first: no reader opens the file after)."""
    found = read_manifest(store_path, kind, space)
    with contextlib.suppress(FileNotFoundError):
        os.remove(manifest_path(store_path, kind, space))
    if found is not None:
        for name in (found.file, found.keys):
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(folder_of(store_path), name))


def remove_all(store_path: str) -> list[str]:
    """Remove the whole index folder; returns the paths removed."""
    folder = folder_of(store_path)
    if not os.path.isdir(folder) or os.path.islink(folder):
        return []
    removed = [os.path.join(folder, name) for name in sorted(os.listdir(folder))]
    shutil.rmtree(folder, ignore_errors=True)
    return [*removed, folder]


def remove_orphans(store_path: str) -> None:
    """Remove index files no manifest names, and temporary files of builds that died."""
    folder = folder_of(store_path)
    try:
        names = os.listdir(folder)
    except OSError:
        return
    named = set()
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            with contextlib.suppress(OSError, ValueError, TypeError, AttributeError):
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    raw = json.load(fh)
                named.update({str(raw.get("file")), str(raw.get("keys"))})
    for name in names:
        derived = name.endswith((".usearch", ".keys", ".postings"))
        if name.endswith(".tmp") or (derived and name not in named):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(folder, name))


def manifests(store_path: str) -> list[Manifest]:
    """Every readable manifest in the store's index folder."""
    folder = folder_of(store_path)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    out = []
    for name in names:
        if not name.endswith(".json") or name.startswith("."):
            continue
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as fh:
                out.append(Manifest(**json.load(fh)))
        except (OSError, ValueError, TypeError):
            continue
    return out


# --------------------------------------------------------------------- the store's identity


def store_id(cur: duckdb.DuckDBPyConnection) -> str | None:
    """The store's identity (made by its first index build), or None."""
    row = one(cur, "SELECT value FROM meta WHERE key = 'store_id'")
    return str(row[0]) if row else None


def fingerprint(cur: duckdb.DuckDBPyConnection, table: str, high: int) -> str:
    """A digest of the embeddings of ``table`` at its lowest version id and at ``high``."""
    digest = hashlib.sha256()
    for vid, vector in _ends(cur, table, high, "embedding"):
        digest.update(int(vid).to_bytes(8, "little", signed=True))
        digest.update(np.asarray(vector, dtype=np.float32).tobytes())
    return digest.hexdigest()


def _ends(cur: duckdb.DuckDBPyConnection, table: str, high: int, columns: str) -> list[tuple]:
    """``vid, columns`` of the rows at the table's lowest version id and at ``high``: two
    point reads (an OR with a subquery scans every row, 400 MB of vectors at 100k x 1024)."""
    row = one(cur, f"SELECT min(vid) FROM {table}")
    low = int(row[0]) if row and row[0] is not None else None
    out = []
    for vid in sorted({v for v in (low, int(high)) if v is not None}):
        out += cur.execute(f"SELECT vid, {columns} FROM {table} WHERE vid = {vid}").fetchall()
    return out


def text_fingerprint(cur: duckdb.DuckDBPyConnection, table: str, high: int) -> str:
    """A digest of the versions of ``table`` (a kind's) at its lowest version id and at
    ``high``: id and document length."""
    rows = _ends(cur, table, high, "id, doc_len")
    return hashlib.sha256(repr(rows).encode("utf-8", "surrogatepass")).hexdigest()


def make_store_id(cur: duckdb.DuckDBPyConnection) -> str:
    """The store's identity, made now if it has none (call inside a transaction)."""
    found = store_id(cur)
    if found is not None:
        return found
    made = uuid.uuid4().hex
    run(cur, "INSERT INTO meta VALUES ('store_id', ?)", [made])
    return made


__all__ = [
    "FOLDER_SUFFIX",
    "Manifest",
    "files_whole",
    "fingerprint",
    "folder_of",
    "KeysFile",
    "index_file_name",
    "keys_file_name",
    "make_folder",
    "mapped",
    "make_store_id",
    "manifest_path",
    "manifest_stamp",
    "manifests",
    "publish",
    "read_manifest",
    "remove_all",
    "remove_orphans",
    "remove_space",
    "store_id",
    "text_fingerprint",
    "sync_file",
    "temp_path",
    "write_keys",
    "writing",
]
