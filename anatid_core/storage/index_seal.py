"""The seal of a persistent index file (issue 41): a checksum of every byte, kept in its manifest,
so that no damaged or swapped index file is ever mapped.

Lucene puts a CRC in every file's footer and checks it on open; a usearch or postings file has no
room of ours for one, so the manifest holds, per file, its size and the CRC-32 of each
``CHUNK``-byte block (a damaged block is then named by its offset), and the file's *stamp* as it
was published: device, inode, size, modification and status-change times.

Verifying every byte costs a read of the file (about 2 GB/s here: 2 s for the 4.5 GB index of
1M x 1024), too much for each process's first search. So a file whose stamp is the published
one is trusted without reading it: any write to a file changes its status-change time (``ctime``),
which no user call can set back, and a copy or a restore makes another inode. A file with another
stamp is verified in full before it is mapped, and the stamp it was verified at is remembered in
the folder's ``.verified`` (best effort: a read-only folder verifies once per process).
``anatid check`` verifies every byte whatever the stamps (damage of the disk itself changes no
stamp).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import zlib
from dataclasses import dataclass

#: Bytes per checksummed block (a damaged block is named by its offset).
CHUNK = 4 * 1024 * 1024

#: The folder's record of files verified in full since they were published.
VERIFIED = ".verified"

Stamp = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class FileSeal:
    """A file's size and the CRC-32 of each ``chunk``-byte block of it."""

    size: int
    crc32: tuple[int, ...]
    chunk: int = CHUNK

    def to_json(self) -> dict[str, object]:
        return {"size": self.size, "crc32": list(self.crc32), "chunk": self.chunk}

    @staticmethod
    def from_json(raw: object) -> FileSeal:
        if not isinstance(raw, dict):
            raise ValueError("a file seal is an object")
        size, crcs, chunk = raw["size"], raw["crc32"], raw["chunk"]
        if not isinstance(size, int) or not isinstance(chunk, int) or not isinstance(crcs, list):
            raise ValueError("a file seal holds integers")
        if chunk <= 0 or size < 0 or len(crcs) != max(1, -(-size // chunk)):
            raise ValueError("a file seal's blocks do not cover its size")
        return FileSeal(size, tuple(int(c) for c in crcs), chunk)


def seal_of(path: str, chunk: int = CHUNK) -> FileSeal:
    """Read ``path`` whole and seal it."""
    crcs = []
    size = 0
    with open(path, "rb") as fh:
        while True:
            block = fh.read(chunk)
            if not block and crcs:
                break
            crcs.append(zlib.crc32(block))
            size += len(block)
            if len(block) < chunk:
                break
    return FileSeal(size, tuple(crcs), chunk)


def first_damage(path: str, seal: FileSeal) -> str | None:
    """Where ``path`` differs from ``seal`` (None: every byte agrees)."""
    try:
        size = os.path.getsize(path)
        if size != seal.size:
            return f"it holds {size} bytes, its manifest says {seal.size}"
        with open(path, "rb") as fh:
            for i, want in enumerate(seal.crc32):
                block = fh.read(seal.chunk)
                if zlib.crc32(block) != want:
                    start = i * seal.chunk
                    return f"bytes {start}-{start + len(block) - 1} differ from its checksum"
    except OSError as e:
        return f"it cannot be read ({e.strerror or e})"
    return None


def stamp_of(path: str) -> Stamp | None:
    """What changes whenever a file is written, replaced or copied (None: no such file)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_verified_here: set[tuple[str, Stamp]] = set()
_verified_lock = threading.Lock()


def trusted(path: str, published: Stamp | None) -> bool:
    """Whether ``path`` is as it was sealed without reading it: its stamp is the one it was
    published with, or one it was verified at since (by this process, or recorded in the
    folder's ``.verified``)."""
    now = stamp_of(path)
    if now is None:
        return False
    if published is not None and now == tuple(published):
        return True
    with _verified_lock:
        if (path, now) in _verified_here:
            return True
    recorded = _read_verified(os.path.dirname(path)).get(os.path.basename(path))
    return recorded is not None and tuple(recorded) == now


def verify(path: str, seal: FileSeal, published: Stamp | None) -> str | None:
    """Whether ``path`` holds the sealed bytes: trusted by its stamp, or read in full (and its
    stamp remembered when it agrees). Returns where it differs, or None."""
    if trusted(path, published):
        return None
    before = stamp_of(path)
    damage = first_damage(path, seal)
    if damage is None and before is not None and stamp_of(path) == before:
        remember(path, before)
    return damage


def remember(path: str, stamp: Stamp) -> None:
    """Record that ``path`` was verified in full at ``stamp``."""
    with _verified_lock:
        _verified_here.add((path, stamp))
    folder = os.path.dirname(path)
    known = _read_verified(folder)
    names = set(os.listdir(folder)) if os.path.isdir(folder) else set()
    kept = {k: v for k, v in known.items() if k in names}
    kept[os.path.basename(path)] = list(stamp)
    tmp = os.path.join(folder, f".verified-{os.getpid()}-{threading.get_ident()}.tmp")
    with contextlib.suppress(OSError):
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(kept, fh)
        os.replace(tmp, os.path.join(folder, VERIFIED))
    with contextlib.suppress(OSError):
        os.remove(tmp)


def _read_verified(folder: str) -> dict[str, list[int]]:
    try:
        with open(os.path.join(folder, VERIFIED), encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, ValueError):
        return {}
    if not isinstance(raw, dict):
        return {}
    return {
        str(k): v
        for k, v in raw.items()
        if isinstance(v, list) and len(v) == 5 and all(isinstance(x, int) for x in v)
    }


__all__ = [
    "CHUNK",
    "FileSeal",
    "Stamp",
    "VERIFIED",
    "first_damage",
    "remember",
    "seal_of",
    "stamp_of",
    "trusted",
    "verify",
]
