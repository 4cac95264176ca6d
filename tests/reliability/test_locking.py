"""A second process opens a file that a first process has open and writes: it opens it (the
first hands the file over between its operations, issue 11), reads what the first committed, and
the first process goes on writing, reading and searching as if nothing happened. Inside one
process, one writing Store per file; drivers share it."""

from __future__ import annotations

import pytest

from anatid_core import Node, Store
from tests.extras import needs

SECONDS: list[float] = []  # how long the second opener took, printed for docs/reliability.md


def _write_batch(store: Store, tag: str, n: int = 20) -> None:
    store.upsert_nodes([Node(f"{tag}-{i}", text=f"{tag} item {i}") for i in range(n)])


@pytest.mark.parametrize("how", ["core", "core_read_only", "graphiti", "cognee"])
def test_a_second_process_opens_the_file_while_the_first_writes_on(how, servers, tmp_path):
    path = tmp_path / "held.duckdb"
    server = how if how in ("graphiti", "cognee") else "core"
    with Store.open(path) as store:
        _write_batch(store, "before")
        reply = servers[server].send(
            cmd="call",
            func="tests.reliability.scenarios:open_store",
            args={"path": str(path), "how": how},
        )
        assert reply.get("ok"), reply.get("error")
        seen = reply["result"]
        assert seen["opened"] is True, seen
        assert seen["nodes"] == 20 and seen["problems"] == [], seen
        SECONDS.append(seen["seconds"])
        # The first process is unaffected: it writes, reads and searches as before.
        _write_batch(store, "after")
        assert store.count_nodes() == 40
        assert [h.id for h in store.search_text("after item 7", k=1)] == ["after-7"]
        assert store.check() == []
    print(f"\nsecond opener ({how}) in {SECONDS[-1] * 1000:.1f} ms")


def test_read_only_processes_share_a_file_and_a_writer_takes_its_turn(servers, tmp_path):
    path = tmp_path / "shared.duckdb"
    with Store.open(path) as store:
        _write_batch(store, "x")
    with Store.open(path, read_only=True) as reader:
        other = servers["core"].send(
            cmd="call",
            func="tests.reliability.scenarios:open_store",
            args={"path": str(path), "how": "core_read_only"},
        )["result"]
        assert other["opened"] and other["nodes"] == 20 and other["problems"] == []
        writer = servers["core"].send(
            cmd="call",
            func="tests.reliability.scenarios:open_store",
            args={"path": str(path), "how": "core"},
        )["result"]
        assert writer["opened"], writer  # the reader handed the file over for the writer's turn
        assert reader.count_nodes() == 20  # and took it back
    with Store.open(path) as store:
        _write_batch(store, "y")
        assert store.count_nodes() == 40


@needs("graphiti")
async def test_one_writing_store_per_file_in_a_process_and_drivers_can_share_it(tmp_path):
    """Two Stores on one file in one process wrote beside each other (duplicate version ids,
    conflicts); a second opener in the same process is refused, and drivers share one Store."""
    from anatid_graphiti import GraphitiDriver

    from anatid_core import StoreLocked

    path = tmp_path / "shared.duckdb"
    first = GraphitiDriver(path)
    try:
        with pytest.raises(StoreLocked, match="already open for writing in this process"):
            GraphitiDriver(path)
        with pytest.raises(StoreLocked, match="this process"):
            Store.open(path, read_only=True)
        second = GraphitiDriver(store=first.store)  # sharing is the way
        _write_batch(second.store, "shared")
        await second.close()  # leaves the store it was given open
        assert first.store.count_nodes() == 20 and first.store.check() == []
    finally:
        await first.close()
    await GraphitiDriver(path).close()  # released on close: the file opens again
