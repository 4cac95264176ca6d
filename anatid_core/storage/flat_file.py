"""The file of a flat vector index (issue 41): a space's normalised vectors as one mapped matrix,
row ``i`` the version named by row ``i`` of its keys file. Searched exactly (a product with the
whole matrix), it answers as the HNSW graph does not yet: it is written in a few seconds, where
the graph takes minutes, so the first build of a space publishes it first and the graph after.

Layout (little-endian): a 32-byte header (magic, rows, dimension, zero), then the float32 matrix.
Opening checks the header against the file's size before mapping; the bytes are the seal's
(:mod:`~.index_seal`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

import numpy as np

from .keys_file import mapped

_MAGIC = b"ANATFLT1"
_HEAD = 32


class FlatFile:
    """A mapped flat vector file: ``matrix`` (rows x dim, float32, read-only)."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD)
        if len(head) != _HEAD or head[:8] != _MAGIC:
            raise OSError(f"{path}: not an anatid flat vector file")
        rows = int.from_bytes(head[8:16], "little")
        dim = int.from_bytes(head[16:24], "little")
        if dim <= 0 or os.path.getsize(path) != _HEAD + 4 * rows * dim:
            raise OSError(f"{path}: its size is not that of {rows} vectors of {dim} dimensions")
        self.rows, self.dim = rows, dim
        self.matrix = mapped(path, np.float32, _HEAD, rows * dim).reshape(rows, dim)


def write_flat(path: str, dim: int, batches: Iterable[np.ndarray]) -> int:
    """Write the (normalised) ``batches`` of rows as a flat file, synced; returns the rows."""
    rows = 0
    with open(path, "wb") as fh:
        fh.write(b"\0" * _HEAD)
        for batch in batches:
            fh.write(np.ascontiguousarray(batch, dtype=np.float32).tobytes())
            rows += len(batch)
        fh.seek(0)
        fh.write(_MAGIC + rows.to_bytes(8, "little") + dim.to_bytes(8, "little") + b"\0" * 8)
        fh.flush()
        os.fsync(fh.fileno())
    return rows


__all__ = ["FlatFile", "write_flat"]
