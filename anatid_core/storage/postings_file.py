"""The file of a kind's persistent text index (issue 34): every posting of the versions up to its
``high`` version id, term by term, memory-mapped by every process that searches.

Layout (little-endian): a 48-byte header (magic, terms, postings, doc-length slots, term blob
bytes), then ``terms + 1`` offsets into the term blob and ``terms + 1`` offsets into the
postings (int64), the postings' version ids (int64, increasing within a term), frequencies and
document lengths (float32: scoring a term reads its postings in one run, never the lengths by
version id), each version's document length by version id (float32, 0 for a version of the
other kind), and the terms, sorted, as UTF-8. A term is found by binary search.

Opening checks the layout before anything is read through it (issue 41): the size, offsets that
start at 0, never decrease and end where their arrays end, version ids within the lengths'
slots; a file that fails is ``OSError``. Bytes that keep the layout but differ are found by the
file's seal (:mod:`~.index_seal`), which is verified before it is opened.
"""

from __future__ import annotations

import os

import numpy as np

from .keys_file import mapped

_MAGIC = b"ANATPST2"
_HEAD = 48


class PostingsFile:
    """A mapped postings file."""

    def __init__(self, path: str) -> None:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD)
        if len(head) != _HEAD or head[:8] != _MAGIC:
            raise OSError(f"{path}: not an anatid postings file")
        terms, postings, slots, blob = (
            int.from_bytes(head[8 + 8 * i : 16 + 8 * i], "little") for i in range(4)
        )
        size = _HEAD + 16 * (terms + 1) + 16 * postings + 4 * slots + blob
        if os.path.getsize(path) != size:
            raise OSError(f"{path}: truncated")
        at = _HEAD

        def take(dtype: type, count: int) -> np.ndarray:
            nonlocal at
            arr = mapped(path, dtype, at, count)
            at += np.dtype(dtype).itemsize * count
            return arr

        self._term_offsets = take(np.int64, terms + 1)
        self._post_offsets = take(np.int64, terms + 1)
        self.vids = take(np.int64, postings)
        self.tfs = take(np.float32, postings)
        self.dls = take(np.float32, postings)
        self.doc_len = take(np.float32, slots)
        self._blob = take(np.uint8, blob)
        self.terms = terms
        self.slots = slots
        _check_offsets(path, self._term_offsets, blob, "term")
        _check_offsets(path, self._post_offsets, postings, "posting")
        if postings and (int(self.vids.min()) < 0 or int(self.vids.max()) >= slots):
            raise OSError(f"{path}: postings of versions outside its lengths")

    def _term(self, i: int) -> bytes:
        return bytes(self._blob[int(self._term_offsets[i]) : int(self._term_offsets[i + 1])])

    def all_terms(self) -> list[str]:
        """Every term, in the file's order (a merge writes them again)."""
        offsets = self._term_offsets.tolist()
        blob = bytes(self._blob)
        return [
            blob[a:b].decode("utf-8", "surrogatepass")
            for a, b in zip(offsets[:-1], offsets[1:], strict=True)
        ]

    def post_offsets(self) -> np.ndarray:
        """Where each term's postings start, and the end of the last (``terms + 1`` values)."""
        return np.asarray(self._post_offsets)

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(version ids, frequencies, document lengths) of ``term``; empty if it has none."""
        want = term.encode("utf-8", "surrogatepass")
        lo, hi = 0, self.terms
        while lo < hi:
            mid = (lo + hi) // 2
            if self._term(mid) < want:
                lo = mid + 1
            else:
                hi = mid
        if lo == self.terms or self._term(lo) != want:
            return self.vids[:0], self.tfs[:0], self.dls[:0]
        a, b = int(self._post_offsets[lo]), int(self._post_offsets[lo + 1])
        return self.vids[a:b], self.tfs[a:b], self.dls[a:b]

    def length_of(self, vids: np.ndarray) -> np.ndarray:
        """Document lengths of these version ids (0 beyond the file's)."""
        out = np.zeros(len(vids), dtype=np.float64)
        inside = vids < len(self.doc_len)
        out[inside] = self.doc_len[vids[inside]]
        return out


def _check_offsets(path: str, offsets: np.ndarray, end: int, what: str) -> None:
    if int(offsets[0]) != 0 or int(offsets[-1]) != end or bool(np.any(offsets[1:] < offsets[:-1])):
        raise OSError(f"{path}: {what} offsets outside the file's layout")


def write_postings(
    path: str,
    terms: list[str],
    starts: np.ndarray,
    vids: np.ndarray,
    tfs: np.ndarray,
    doc_len: np.ndarray,
) -> None:
    """Write a postings file, synced. ``terms`` sorted by their UTF-8 bytes; ``starts`` the
    offset of each term's postings (``len(terms) + 1`` values); ``doc_len`` by version id."""
    encoded = [t.encode("utf-8", "surrogatepass") for t in terms]
    term_offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    if encoded:
        np.cumsum([len(e) for e in encoded], out=term_offsets[1:])
    blob = b"".join(encoded)
    head = _MAGIC + b"".join(
        int(n).to_bytes(8, "little") for n in (len(terms), len(vids), len(doc_len), len(blob))
    )
    head += b"\0" * (_HEAD - len(head))
    with open(path, "wb") as fh:
        fh.write(head)
        fh.write(term_offsets.tobytes())
        fh.write(np.ascontiguousarray(starts, dtype=np.int64).tobytes())
        fh.write(np.ascontiguousarray(vids, dtype=np.int64).tobytes())
        fh.write(np.ascontiguousarray(tfs, dtype=np.float32).tobytes())
        fh.write(np.ascontiguousarray(doc_len[vids], dtype=np.float32).tobytes())
        fh.write(np.ascontiguousarray(doc_len, dtype=np.float32).tobytes())
        fh.write(blob)
        fh.flush()
        os.fsync(fh.fileno())


__all__ = ["PostingsFile", "write_postings"]
