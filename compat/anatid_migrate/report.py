"""What a migration did: rows read per source table, records written and verified per type."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import orjson

_MASK = (1 << 64) - 1


def digest(fields: Any) -> int:
    """A 64-bit hash of a JSON-able value. Both sides of a verification hand over the same
    serialised forms (e.g. a Graphiti model's ``model_dump(mode="json")``), so equal records give
    equal text; embeddings are replaced by :func:`anatid_migrate.vectors.vector_digest` first.
    orjson writes it 5-10x faster than json; a value it cannot write (an integer beyond 64 bits,
    a non-string key) falls back to json for that record, on both sides alike. orjson writes
    NaN and the infinities as null, so this digest does not tell them from None."""
    try:
        data = orjson.dumps(fields, option=orjson.OPT_SORT_KEYS, default=str)
    except TypeError:
        data = json.dumps(fields, sort_keys=True, ensure_ascii=False, default=str).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


@dataclass
class Tally:
    """Per record type: how many, and an order-independent checksum of ids and key fields."""

    counts: dict[str, int] = field(default_factory=dict)
    sums: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, fields: Any) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.sums[kind] = (self.sums.get(kind, 0) + digest(fields)) & _MASK

    def mismatches(self, other: Tally) -> list[str]:
        out = []
        for kind in sorted(set(self.counts) | set(other.counts)):
            a, b = self.counts.get(kind, 0), other.counts.get(kind, 0)
            if a != b:
                out.append(f"{kind}: {a} in source, {b} in target")
            elif self.sums.get(kind) != other.sums.get(kind):
                out.append(f"{kind}: same count ({a}) but ids/key fields differ")
        return out


@dataclass
class MigrationReport:
    """Returned by :func:`anatid_migrate.migrate`; ``format()`` renders it for people."""

    kind: str
    source: str
    target: str
    source_format: str = ""
    reader: str = ""
    dry_run: bool = False
    tables_read: dict[str, int] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)
    source_tally: Tally = field(default_factory=Tally)
    target_tally: Tally = field(default_factory=Tally)
    not_migrated: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    verified: bool = False
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": self.source,
            "target": self.target,
            "source_format": self.source_format,
            "reader": self.reader,
            "dry_run": self.dry_run,
            "tables_read": dict(self.tables_read),
            "written": dict(self.written),
            "source_counts": dict(self.source_tally.counts),
            "target_counts": dict(self.target_tally.counts),
            "not_migrated": list(self.not_migrated),
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "verified": self.verified,
            "seconds": round(self.seconds, 3),
        }

    def format(self) -> str:
        head = "would migrate" if self.dry_run else "migrated"
        lines = [
            f"{self.kind}: {head} {self.source} ({self.source_format}) -> {self.target}",
            f"reader: {self.reader}",
            "rows read per source table:",
            *(f"  {t:<24} {n:>10}" for t, n in self.tables_read.items()),
            "records per type (source / target):",
        ]
        for kind, n in self.source_tally.counts.items():
            got = "-" if self.dry_run else str(self.target_tally.counts.get(kind, 0))
            lines.append(f"  {kind:<24} {n:>10} / {got}")
        for item in self.not_migrated:
            lines.append(f"not migrated: {item}")
        for item in self.warnings:
            lines.append(f"warning: {item}")
        for item in self.notes:
            lines.append(f"note: {item}")
        if not self.dry_run:
            lines.append("verified: yes" if self.verified else "verified: NO")
        lines.append(f"took {self.seconds:.1f} s")
        return "\n".join(lines)
