"""The keys file of a persistent index (issue 34): the record id of each version it holds, mapped
by every process that searches, so that the winners' rows are fetched through the id index.

Layout (little-endian): a header (magic, count, blob length), the sorted version ids (int64),
``count + 1`` offsets into the blob (int64), the blob of UTF-8 ids. Opening checks the layout
before anything is read through it (issue 41): the size, increasing version ids, offsets that
start at 0, never decrease and end at the blob's length; a file that fails is ``OSError``.
"""

from __future__ import annotations

import mmap
import os

import numpy as np
import pyarrow as pa

_KEYS_MAGIC = b"ANATKEY1"
_HEAD = 24


class KeysFile:
    """A mapped keys file, its layout checked."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD)
        if len(head) != _HEAD or head[:8] != _KEYS_MAGIC:
            raise OSError(f"{path}: not an anatid keys file")
        count = int.from_bytes(head[8:16], "little")
        blob = int.from_bytes(head[16:24], "little")
        if os.path.getsize(path) != _HEAD + 8 * count + 8 * (count + 1) + blob:
            raise OSError(f"{path}: truncated")
        self.vids = mapped(path, np.int64, _HEAD, count)
        self._offsets = mapped(path, np.int64, _HEAD + 8 * count, count + 1)
        self._blob = mapped(path, np.uint8, _HEAD + 16 * count + 8, blob)
        offsets = self._offsets
        if count and not bool(np.all(self.vids[1:] > self.vids[:-1])):
            raise OSError(f"{path}: version ids out of order")
        if (
            int(offsets[0]) != 0
            or int(offsets[-1]) != blob
            or not bool(np.all(offsets[1:] >= offsets[:-1]))
        ):
            raise OSError(f"{path}: offsets outside its ids")

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

    def id_array(self) -> pa.Array:
        """Every record id, as one Arrow array over a copy of the blob (no Python strings: a
        merge of a million writes them again in a few megabytes, issue 41)."""
        count = len(self.vids)
        return pa.LargeStringArray.from_buffers(
            count, pa.py_buffer(np.array(self._offsets)), pa.py_buffer(np.array(self._blob))
        )

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


def write_keys(path: str, vids: np.ndarray, ids: list[str] | pa.Array) -> None:
    """Write a keys file for ``vids`` (sorted) and their record ``ids`` (strings, or an Arrow
    string array: its bytes are written as they are), synced."""
    if isinstance(ids, pa.Array):
        offsets, blob = _arrow_blob(ids)
    else:
        encoded = [i.encode("utf-8", "surrogatepass") for i in ids]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        if encoded:
            np.cumsum([len(e) for e in encoded], out=offsets[1:])
        blob = b"".join(encoded)
    with open(path, "wb") as fh:
        fh.write(_KEYS_MAGIC)
        fh.write((len(offsets) - 1).to_bytes(8, "little"))
        fh.write(len(blob).to_bytes(8, "little"))
        fh.write(np.ascontiguousarray(vids, dtype=np.int64).tobytes())
        fh.write(offsets.tobytes())
        fh.write(blob)
        fh.flush()
        os.fsync(fh.fileno())


def _arrow_blob(ids: pa.Array) -> tuple[np.ndarray, memoryview | bytes]:
    """The offsets (from 0) and bytes of an Arrow string array without nulls."""
    if len(ids) == 0:
        return np.zeros(1, dtype=np.int64), b""
    arr = ids.cast(pa.large_string())
    raw = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    first, last = int(raw[0]), int(raw[-1])
    data = arr.buffers()[2]
    blob = memoryview(data)[first:last] if data is not None else b""
    return raw - first, blob


__all__ = ["KeysFile", "mapped", "write_keys"]
