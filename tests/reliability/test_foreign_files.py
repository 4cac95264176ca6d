"""Files from elsewhere: a newer schema, a truncated or damaged store, a file that is not DuckDB.

Each is opened in a separate process (so a crash would show as a signal, not kill the suite),
through the core and through both drivers. Each must give a clear anatid error (or, for damage
DuckDB only meets on a later read, a problem from ``check()``), and the file must be left
byte-for-byte as it was: never a crash, never a silent overwrite.
"""

from __future__ import annotations

import gzip
import random
import sqlite3
from pathlib import Path

import duckdb
import pytest

from anatid_core import Node, Store

HOWS = [
    ("core", "core"),
    ("core_read_only", "core"),
    ("graphiti", "graphiti"),
    ("cognee", "cognee"),
]
#: What each opener raises for an anatid error of that kind (Cognee maps them in its error seam).
COGNEE_TYPES = {"StoreCorrupt": "CogneeSystemError", "SchemaVersionError": "CogneeSystemError"}


def _store(path: Path, batches: int = 6) -> bytes:
    rng = random.Random(7)
    with Store.open(path) as store:
        for b in range(batches):
            store.upsert_nodes(
                [
                    Node(
                        f"n{b}-{i}",
                        text=f"word{rng.randrange(999)} " * 20,
                        embedding=[rng.random() for _ in range(16)],
                    )
                    for i in range(150)
                ]
            )
    return path.read_bytes()


def _newer_schema(path: Path) -> None:
    _store(path, 1)
    con = duckdb.connect(str(path))
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'").fetchall()
    con.close()


def _foreign_duckdb(path: Path) -> None:
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE invoices (id INTEGER, total DOUBLE)").fetchall()
    con.execute("INSERT INTO invoices VALUES (1, 9.5)").fetchall()
    con.close()


def _sqlite(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()


def _truncated(fraction: float):
    def make(path: Path) -> None:
        whole = _store(path)
        path.write_bytes(whole[: int(len(whole) * fraction)])

    return make


def _damaged(path: Path) -> None:
    whole = bytearray(_store(path))
    rng = random.Random(3)
    for _ in range(64):  # scribble over data blocks, past the file headers
        at = rng.randrange(3 * 4096, len(whole) - 8)
        whole[at : at + 8] = rng.randbytes(8)
    path.write_bytes(bytes(whole))


FILES = {
    "newer_schema": (_newer_schema, "SchemaVersionError"),
    "foreign_duckdb": (_foreign_duckdb, "SchemaVersionError"),
    "text_file": (lambda p: p.write_text("name,value\nalice,1\n" * 200), "StoreCorrupt"),
    "random_bytes": (lambda p: p.write_bytes(random.Random(1).randbytes(300_000)), "StoreCorrupt"),
    "empty_file": (lambda p: p.write_bytes(b""), "StoreCorrupt"),
    "gzip": (lambda p: p.write_bytes(gzip.compress(b"x" * 10_000)), "StoreCorrupt"),
    "sqlite": (_sqlite, "StoreCorrupt"),
    "truncated_header": (_truncated(0.002), "StoreCorrupt"),
    "truncated_third": (_truncated(0.33), "StoreCorrupt"),
    "truncated_near_end": (_truncated(0.97), "StoreCorrupt"),
    "damaged_blocks": (_damaged, "StoreCorrupt"),
}


@pytest.mark.parametrize("how,server", HOWS, ids=[h for h, _ in HOWS])
@pytest.mark.parametrize("case", sorted(FILES))
def test_a_file_from_elsewhere_gives_a_clear_error_and_stays_untouched(
    case, how, server, servers, tmp_path
):
    make, expected = FILES[case]
    path = tmp_path / "found.duckdb"
    make(path)
    before = path.read_bytes()
    reply = servers[server].send(
        cmd="call",
        func="tests.reliability.scenarios:open_store",
        args={"path": str(path), "how": how},
    )
    assert "signal" not in reply, f"the opener crashed: {reply}"
    assert reply.get("ok"), reply.get("error")
    seen = reply["result"]
    if seen["opened"]:
        # DuckDB reads lazily: damage past what opening reads shows up in check().
        assert expected == "StoreCorrupt" and seen["problems"], seen
        assert "truncated or damaged" in seen["problems"][0]
    else:
        want = COGNEE_TYPES.get(expected, expected) if how == "cognee" else expected
        assert seen["type"] == want, seen
        message = seen["cause_message"] if how == "cognee" else seen["message"]
        assert str(path) in message
        assert any(
            word in message for word in ("restore", "upgrade", "new path", "check the path")
        ), message
    assert path.read_bytes() == before, "the file was modified"
