"""Recognise a Kuzu or LadybugDB database from its header, and say which engine can read it.

A database file (or, before kuzu 0.11, the ``catalog.kz`` of a database directory) starts with a
4-byte magic and a little-endian uint64 storage version (bytes 4..12). The codes below were read
from files each release wrote (create a table with the wheel installed, read the header):

=====  =======  =========================================
magic  code     written by
=====  =======  =========================================
KUZU   38       kuzu 0.10.x (a directory: catalog.kz, data.kz, ...)
KUZU   39       kuzu 0.11.x (a single file)
LBUG   40       LadybugDB 0.15.3 - 0.16.1
LBUG   41       LadybugDB 0.17.x
LBUG   42       LadybugDB 0.18.x
LBUG   43       LadybugDB 0.19.x
LBUG   47       LadybugDB 0.20.0 - 0.21.2
LBUG   49       LadybugDB 0.22.0
=====  =======  =========================================

A LadybugDB build reads its own code and older LadybugDB codes, never a Kuzu file; kuzu 0.11
refuses a 0.10 directory. We read each file with the newest release that writes its code.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

from .errors import UnsupportedSource

#: storage code -> (engine package, newest release writing that code, releases writing it)
KNOWN_CODES: dict[tuple[bytes, int], tuple[str, str, str]] = {
    (b"KUZU", 34): ("kuzu", "0.7.0", "kuzu 0.7.0"),
    (b"KUZU", 35): ("kuzu", "0.7.1", "kuzu 0.7.1"),
    (b"KUZU", 36): ("kuzu", "0.8.2", "kuzu 0.8.x"),
    (b"KUZU", 37): ("kuzu", "0.9.0", "kuzu 0.9.0"),
    (b"KUZU", 38): ("kuzu", "0.10.1", "kuzu 0.10.x"),
    (b"KUZU", 39): ("kuzu", "0.11.3", "kuzu 0.11.x"),
    (b"LBUG", 40): ("ladybug", "0.16.1", "LadybugDB 0.15.3-0.16.1"),
    (b"LBUG", 41): ("ladybug", "0.17.1", "LadybugDB 0.17.x"),
    (b"LBUG", 42): ("ladybug", "0.18.3", "LadybugDB 0.18.x"),
    (b"LBUG", 43): ("ladybug", "0.19.1", "LadybugDB 0.19.x"),
    (b"LBUG", 47): ("ladybug", "0.21.2", "LadybugDB 0.20.0-0.21.2"),
    (b"LBUG", 49): ("ladybug", "0.22.0", "LadybugDB 0.22.0"),
}

#: The codes this tool reads directly; anything older must be upgraded first.
READABLE_KUZU = {39}
NEWEST_LADYBUG = "0.22.0"


@dataclass(frozen=True)
class SourceFormat:
    """What a source path holds: engine, storage code, and the release we read it with."""

    path: Path
    engine: str  # "kuzu" | "ladybug"
    code: int
    written_by: str  # human description, e.g. "kuzu 0.11.x"
    reader_version: str  # the engine release a reader interpreter must have

    def describe(self) -> str:
        return f"{self.written_by} file (storage version {self.code})"


def _header(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(12)


def detect_format(path: str | os.PathLike[str]) -> SourceFormat:
    """Identify the engine and storage version of ``path``, or raise :class:`UnsupportedSource`.

    The message of the error names the engine release that can read the file and how to upgrade.
    """
    p = Path(path)
    if not p.exists():
        raise UnsupportedSource(f"{p}: no such file or directory")
    if p.is_dir():
        return _directory(p)
    head = _header(p)
    if len(head) < 12:
        raise UnsupportedSource(
            f"{p}: {len(head)} bytes is too short for a Kuzu or LadybugDB file (truncated or "
            "not a database). Point SOURCE at the database file Graphiti/Cognee wrote."
        )
    magic, code = head[:4], struct.unpack("<Q", head[4:12])[0]
    if magic == b"KUZU":
        return _kuzu(p, code)
    if magic == b"LBUG":
        return _ladybug(p, code)
    raise UnsupportedSource(
        f"{p}: not a Kuzu or LadybugDB database (header {head[:4]!r}). The file may be "
        "corrupt, or not the graph file: Graphiti's KuzuDriver writes the path given as db=, "
        "Cognee writes <system root>/databases/cognee_graph_ladybug (or cognee_graph_kuzu)."
    )


def _directory(p: Path) -> SourceFormat:
    catalog = p / "catalog.kz"
    if not catalog.is_file():
        raise UnsupportedSource(f"{p}: a directory without catalog.kz is not a Kuzu database")
    head = _header(catalog)
    code = struct.unpack("<Q", head[4:12])[0] if len(head) >= 12 else -1
    known = KNOWN_CODES.get((head[:4], code))
    wrote = known[2] if known else f"a kuzu release before 0.11 (storage version {code})"
    old = known[1] if known else "0.10.1"
    raise UnsupportedSource(
        f"{p}: a database directory written by {wrote}. kuzu 0.11 and every LadybugDB release "
        "refuse this layout, and so does anatid-migrate. Upgrade it to a kuzu 0.11.3 file "
        "first:\n"
        f"  python -m venv /tmp/kuzu-old && /tmp/kuzu-old/bin/pip install kuzu=={old}\n"
        f"  /tmp/kuzu-old/bin/python -c \"import kuzu; kuzu.Connection(kuzu.Database('{p}'))"
        '.execute(\\"EXPORT DATABASE \'/tmp/kuzu-export\'\\")"\n'
        "  python -m venv /tmp/kuzu-new && /tmp/kuzu-new/bin/pip install kuzu==0.11.3\n"
        '  /tmp/kuzu-new/bin/python -c "import kuzu; kuzu.Connection(kuzu.Database('
        "'upgraded.kz')).execute(\\\"IMPORT DATABASE '/tmp/kuzu-export'\\\")\"\n"
        "then run anatid-migrate on upgraded.kz."
    )


def _kuzu(p: Path, code: int) -> SourceFormat:
    known = KNOWN_CODES.get((b"KUZU", code))
    if code in READABLE_KUZU and known:
        return SourceFormat(p, "kuzu", code, known[2], known[1])
    wrote = known[2] if known else f"an unknown kuzu release (storage version {code})"
    raise UnsupportedSource(
        f"{p}: written by {wrote}; anatid-migrate reads kuzu 0.11.x files (storage version 39). "
        f"Upgrade the file with EXPORT DATABASE in kuzu=={known[1] if known else '<its version>'} "
        "and IMPORT DATABASE in kuzu==0.11.3, then migrate the new file."
    )


def _ladybug(p: Path, code: int) -> SourceFormat:
    known = KNOWN_CODES.get((b"LBUG", code))
    if known:
        return SourceFormat(p, "ladybug", code, known[2], known[1])
    if code > 49:
        raise UnsupportedSource(
            f"{p}: LadybugDB storage version {code} is newer than any release this tool knows "
            f"(newest known: {NEWEST_LADYBUG}, code 49). Pass --reader-python with an "
            "interpreter whose ladybug release wrote the file, or upgrade anatid-drivers."
        )
    # An unreleased build between known codes: the next release up reads older codes.
    newer = min(
        (v[1] for (m, c), v in KNOWN_CODES.items() if m == b"LBUG" and c > code),
        key=lambda v: tuple(int(x) for x in v.split(".")),
    )
    return SourceFormat(p, "ladybug", code, f"a LadybugDB build (storage version {code})", newer)
