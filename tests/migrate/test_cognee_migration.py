"""A Cognee graph migrated from LadybugDB (cognee 1.6.5) or Kuzu (cognee 1.0.3 schema) reads back
through the anatid Cognee adapter exactly as the old adapter returned it."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from anatid_migrate import migrate_cognee

from anatid_core import Store

SOURCES = [
    pytest.param("cognee-ladybug.lbug", "cognee-ladybug.json", "LadybugDB 0.19", id="ladybug-0.19"),
    pytest.param("cognee-kuzu.kz", "cognee-kuzu.json", "kuzu 0.11", id="kuzu-0.11-cognee-1.0.3"),
    # The same graph after a user upgraded the file to LadybugDB 0.22 (storage version 49, which
    # cognee 1.6.5's ladybug 0.19 cannot open): read by the ladybug 0.22.0 reader venv.
    pytest.param(
        "cognee-ladybug-0.22.lbug", "cognee-ladybug.json", "LadybugDB 0.22", id="ladybug-0.22"
    ),
]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def normal(value: Any) -> Any:
    """The JSON form the generator wrote its expectations in (``default=str``)."""
    return json.loads(json.dumps(value, sort_keys=True, default=str))


async def read_graph(path: Path) -> tuple[list[Any], list[Any]]:
    from anatid_cognee import AnatidGraphAdapter

    adapter = AnatidGraphAdapter(graph_database_url=str(path))
    try:
        nodes, edges = await adapter.get_graph_data()
        by_id = {n[0]: await adapter.get_node(n[0]) for n in nodes}
    finally:
        await adapter.close()
    for node_id, props in nodes:  # get_node agrees with get_graph_data, id included
        assert by_id[node_id] == {"id": node_id, **props}
    return normal(nodes), normal(edges)


@pytest.mark.parametrize(("source", "expected", "engine"), SOURCES)
async def test_cognee_graph_reads_back_identically(
    sources: Path, tmp_path: Path, source: str, expected: str, engine: str
) -> None:
    before = sha256(sources / source)
    target = tmp_path / "memory.duckdb"

    report = migrate_cognee(sources / source, target)

    assert report.verified and target.exists()
    assert engine in report.source_format
    with Store.open(target, read_only=True) as store:
        assert store.check() == []
    want = json.loads((sources / expected).read_text())
    nodes, edges = await read_graph(target)
    assert sorted(nodes, key=lambda n: n[0]) == sorted(want["nodes"], key=lambda n: n[0])
    key = lambda e: (e[0], e[1], e[2])  # noqa: E731
    assert sorted(edges, key=key) == sorted(want["edges"], key=key)
    assert report.tables_read == {"Node": len(want["nodes"]), "EDGE": len(want["edges"])}
    assert sum(n for k, n in report.target_tally.counts.items() if k.startswith("node:")) == len(
        want["nodes"]
    )
    assert sha256(sources / source) == before


def test_dry_run_reports_counts_and_writes_nothing(sources: Path, tmp_path: Path) -> None:
    target = tmp_path / "memory.duckdb"

    report = migrate_cognee(sources / "cognee-ladybug.lbug", target, dry_run=True)

    assert not target.exists()
    assert list(tmp_path.iterdir()) == []
    assert report.dry_run and not report.verified
    assert report.source_tally.counts["node:Entity"] == 8
    assert report.source_tally.counts["edge:knows"] == 1
    assert "would migrate" in report.format()
