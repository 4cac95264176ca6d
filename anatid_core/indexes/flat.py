"""A flat vector index opened for search (issue 41): the mapped matrix of
:mod:`anatid_core.storage.flat_file`, with the calls of a usearch view that
:class:`~.ann.SpaceIndex` makes, so that the rest of the persistent index (delta, visibility,
rows) is the same whichever of the two answers."""

from __future__ import annotations

import numpy as np

from ..storage.flat_file import FlatFile
from ..storage.keys_file import KeysFile


class FlatView:
    """Every vector of a flat file, scored exactly."""

    def __init__(self, path: str, keys: KeysFile) -> None:
        self.file = FlatFile(path)
        if self.file.rows != len(keys):
            raise OSError(f"{path}: {self.file.rows} vectors, {len(keys)} keys")
        self.keys = keys
        self.ndim = self.file.dim
        self.expansion_search = 0  # set by searches of a graph; nothing to set here

    def __len__(self) -> int:
        return self.file.rows

    def all_scores(self, qn: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(version ids, cosine score) of every vector, in version id order."""
        return np.asarray(self.keys.vids), self.file.matrix @ qn.astype(np.float32)

    def get(self, vids: np.ndarray) -> list[np.ndarray | None]:
        """The vector of each version id (None for one the file does not hold)."""
        ids = np.asarray(vids, dtype=np.int64)
        held = np.asarray(self.keys.vids)
        pos = np.searchsorted(held, ids)
        inside = pos < len(held)
        found = np.zeros(len(ids), dtype=bool)
        found[inside] = held[pos[inside]] == ids[inside]
        matrix = self.file.matrix
        return [
            matrix[p] if ok else None for p, ok in zip(pos.tolist(), found.tolist(), strict=True)
        ]


__all__ = ["FlatView"]
