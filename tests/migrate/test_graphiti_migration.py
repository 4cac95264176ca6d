"""A Graphiti graph written by Graphiti's own KuzuDriver (kuzu 0.11.3) and migrated to anatid reads
back through GraphitiDriver exactly as Graphiti read it from Kuzu: every entity, fact (folded
from Kuzu's RelatesToNode_ pair), episode, community, saga and MENTIONS / HAS_MEMBER /
HAS_EPISODE / NEXT_EPISODE edge, with uuids, names, summaries, attributes, timestamps and
embeddings unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from anatid_migrate import migrate_graphiti

from tests.extras import require

require("graphiti")

from tests.migrate.sources.graphiti_dump import dump  # noqa: E402


async def test_graphiti_graph_reads_back_identically(sources: Path, tmp_path: Path) -> None:
    from anatid_graphiti import GraphitiDriver

    source = sources / "graphiti-kuzu.kz"
    before = hashlib.sha256(source.read_bytes()).hexdigest()
    target = tmp_path / "memory.duckdb"

    report = migrate_graphiti(source, target)

    assert report.verified
    from anatid_core import Store

    with Store.open(target, read_only=True) as store:
        assert store.check() == []
    want = json.loads((sources / "graphiti-kuzu.json").read_text())
    driver = GraphitiDriver(str(target))
    try:
        got = await dump(driver)
    finally:
        await driver.close()
    assert sorted(got) == sorted(want)
    for kind in want:
        assert len(got[kind]) == len(want[kind]), kind
        for mine, theirs in zip(got[kind], want[kind], strict=True):
            assert mine == theirs, kind
    # Fields add_episode leaves empty were exercised by the generator and survived.
    alice = next(e for e in got["entities"] if e["name"] == "Alice")
    assert alice["attributes"]["nested"] == {"x": 1.5} and "Person" in alice["labels"]
    assert any(f["invalid_at"] and f["expired_at"] for f in got["facts"])
    assert report.tables_read["RELATES_TO"] == 2 * len(want["facts"])
    assert hashlib.sha256(source.read_bytes()).hexdigest() == before
