"""Move a Cognee memory between an anatid file and a Cognee server backend (issue 18).

``export_cognee(FILE, URL)`` reads the file through the anatid Cognee adapters and writes it
through the adapters Cognee's own factories select for ``URL`` (Postgres + pgvector, or
LadybugDB + LanceDB; see :mod:`anatid_migrate.cognee_targets`): every node and edge with its
properties, their provenance, the graph's metadata (Cognee's marker that the graph holds its
provenance) and every vector collection. The file's full timeline is written
beside it as Parquet (:mod:`anatid_migrate.history`): the backend holds only the current state.
``import_cognee(URL, FILE)`` is the reverse, into a new anatid file, optionally restoring that
timeline first.

Verification reads the whole memory back through the receiving adapters and compares counts per
type and checksums (vectors as float32) with what was read. Writes are upserts, so an
interrupted export is completed by running it again; the journal (``export.json`` in the history
directory, shared with the Graphiti export) tells a rerun that the non-empty backend it finds is
its own unfinished work.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any
from uuid import UUID

from anatid_core import AnatidError

from .cognee_records import (
    Memory,
    changed_only,
    close_gone,
    read_memory,
    read_metadata,
    tally_memory,
    write_memory,
)
from .cognee_targets import (
    CogneeTarget,
    check_target,
    close_engines,
    collection_names,
    files_of,
    open_engines,
    parse_cognee_url,
    read_points,
)
from .errors import TargetNotEmpty, UnsupportedSource
from .export_journal import (
    history_for_export,
    import_target,
    is_resuming,
    note_history,
    note_history_written,
    remove_store_files,
    require_verified,
    restore_history,
    run_import,
    write_journal,
)
from .history import write_history
from .outputs import check_file
from .progress import Progress, Silent
from .report import MigrationReport, Tally

PathLike = str | os.PathLike[str]
ADAPTERS = {
    "postgres": "PostgresDemoAdapter + PGVectorAdapter",
    "ladybug": "LadybugAdapter + LanceDBAdapter",
}


def export_cognee(
    source: PathLike,
    url: str,
    *,
    history_dir: PathLike | None = None,
    dry_run: bool = False,
    force: bool = False,
    progress: Progress | None = None,
) -> MigrationReport:
    """Export the anatid file ``source`` to the Cognee backend at ``url``; see the module doc."""
    path = Path(source).resolve()
    target = parse_cognee_url(url)
    history = history_for_export(path, history_dir)
    for name in files_of(target):  # a LadybugDB graph is a file the export writes
        if not name.is_dir():
            check_file(name, reading=[path], what="the LadybugDB graph")
    report = MigrationReport("cognee export", str(path), target.describe(), dry_run=dry_run)
    if not path.is_file():
        raise UnsupportedSource(f"{path} does not exist or is not a file (an anatid file)")
    started = time.monotonic()
    progress = progress or Silent()
    try:
        asyncio.run(_export(path, target, history, report, progress, force=force))
    finally:
        progress.close()
    report.seconds = time.monotonic() - started
    return report


def _open_anatid(path: Path) -> tuple[Any, Any]:
    from anatid_cognee import AnatidGraphAdapter, AnatidVectorAdapter

    try:
        graph = AnatidGraphAdapter(graph_database_url=str(path))
    except AnatidError as exc:
        raise UnsupportedSource(f"{path} is not an anatid file that can be read: {exc}") from exc
    return graph, AnatidVectorAdapter(url=str(path))


async def _close(*adapters: Any) -> None:
    for a in adapters:
        for name in ("close", "dispose"):
            fn = getattr(a, name, None)
            if fn is not None:
                result = fn()
                if asyncio.iscoroutine(result):
                    await result
                break


def _count(memory: Memory) -> int:
    return len(memory[0]) + len(memory[1]) + sum(len(v) for v in memory[4].values())


async def _export(
    path: Path,
    target: CogneeTarget,
    history: Path,
    report: MigrationReport,
    progress: Progress,
    *,
    force: bool,
) -> None:
    src_graph, src_vector = _open_anatid(path)
    graph = vector = None
    try:
        graph, vector = open_engines(target)
        report.source_format = "anatid file"
        report.reader = await check_target(graph, vector, target)
        memory = await read_memory(src_graph, src_vector)
        tally_memory(report.source_tally, memory)
        _tables_read(report, memory)
        if report.dry_run:
            return
        await _claim(graph, vector, target, history, path, memory[5], force=force)
        progress.phase("export", _count(memory))
        report.written = await write_memory(graph, vector, memory, progress.advance,
                                            node_objects=target.provider == "ladybug")  # fmt: skip
        del memory  # its tally is kept: the read-back must not hold a second copy beside it
        await _verify(graph, vector, report, progress)
        counts = write_history(src_graph.store, history, str(path))
        note_history_written(report, counts, history, "backend")
        write_journal(history, path, target, "done")
    finally:
        await _close(src_graph, src_vector)
        if graph is not None:
            await close_engines(graph, vector)


def _tables_read(report: MigrationReport, memory: Memory) -> None:
    report.tables_read["nodes"] = len(memory[0])
    report.tables_read["edges"] = len(memory[1])
    for collection, rows in memory[4].items():
        report.tables_read[f"vector:{collection}"] = len(rows)
    if memory[5]:
        report.tables_read["graph metadata"] = len(memory[5])


async def _is_empty(graph: Any, vector: Any) -> bool:
    if not await graph.is_empty():
        return False
    for collection in await collection_names(vector):
        if await read_points(vector, collection):
            return False
    return True


async def _clear(graph: Any, vector: Any) -> None:
    """Delete every node, edge and vector point, through the adapters' own deletes (not
    ``prune``: PGVectorAdapter's drops every table of the database, Cognee's own included)."""
    await graph.delete_graph()
    for collection in await collection_names(vector):
        ids = [UUID(p.id) for p in await read_points(vector, collection)]
        for start in range(0, len(ids), 1000):
            await vector.delete_data_points(collection, ids[start : start + 1000])


async def _claim(
    graph: Any,
    vector: Any,
    target: CogneeTarget,
    history: Path,
    path: Path,
    metadata: dict[str, str],
    *,
    force: bool,
) -> None:
    """Refuse a backend that holds a memory, unless it is this export's unfinished work (the
    journal says so) or ``force`` (which clears it), or whose graph metadata the file's would not
    replace; then journal that the export is under way."""
    resuming = is_resuming(history, path, target)
    if not resuming and not await _is_empty(graph, vector):
        if not force:
            raise TargetNotEmpty(
                f"{target.describe()} already holds a Cognee memory (graph nodes or vector "
                "collections). Export into an empty backend, or pass --force (force=True) to "
                "delete what it holds and write this file anew."
            )
        await _clear(graph, vector)
    # Metadata is upserted key by key, and no Cognee adapter call removes a key (Postgres's
    # delete_graph keeps them): a key the file lacks would stay and fail the verification
    # after the whole memory was written. Refuse it now, before anything is written.
    kept = sorted(k for k in await read_metadata(graph) if k not in metadata)
    if kept:
        raise TargetNotEmpty(
            f"{target.describe()} holds graph metadata {kept} that {path} does not (Cognee's "
            "marker of where a graph keeps its provenance). Cognee's adapters cannot remove a "
            "metadata key, so the backend would not read back as the file: export into a "
            "fresh database (or directory)."
        )
    write_journal(history, path, target, "writing")


async def _verify(graph: Any, vector: Any, report: MigrationReport, progress: Progress) -> None:
    memory = await read_memory(graph, vector)
    progress.phase("verify", _count(memory))
    report.target_tally = Tally()
    tally_memory(report.target_tally, memory)
    progress.advance(_count(memory))
    require_verified(report, "Cognee's adapters")


# ------------------------------------------------------------------------------ import


def import_cognee(
    url: str,
    target: PathLike,
    *,
    history_dir: PathLike | None = None,
    dry_run: bool = False,
    force: bool = False,
    progress: Progress | None = None,
) -> MigrationReport:
    """Import the Cognee memory at ``url`` into a new anatid file ``target``.

    With ``history_dir`` (the Parquet timeline an export wrote), the file's whole history is
    restored first with its recorded transaction times; the backend's current state is then
    written over it, so what changed on the backend since the export becomes a new version,
    and what the backend no longer holds is deleted as of the import (its history kept).
    The file is written beside ``target`` and renamed into place only once it reads back,
    through the anatid Cognee adapters, equal to what the backend returned.
    """
    backend = parse_cognee_url(url)
    path = import_target(target, history_dir, reading=files_of(backend))
    report = MigrationReport("cognee import", backend.describe(), str(path), dry_run=dry_run)
    progress = progress or Silent()

    async def body(tmp: Path, history: Path | None) -> None:
        await _import(backend, tmp, history, report, progress)

    return run_import(report, path, history_dir, force=force, progress=progress, body=body)


async def _import(
    backend: CogneeTarget,
    tmp: Path,
    history: Path | None,
    report: MigrationReport,
    progress: Progress,
) -> None:
    graph, vector = open_engines(backend)
    try:
        await _import_from(graph, vector, backend, tmp, history, report, progress)
    finally:
        await close_engines(graph, vector)


async def _import_from(
    graph: Any,
    vector: Any,
    backend: CogneeTarget,
    tmp: Path,
    history: Path | None,
    report: MigrationReport,
    progress: Progress,
) -> None:
    report.source_format = await check_target(graph, vector, backend)
    report.reader = "Cognee " + ADAPTERS[backend.provider]
    memory = await read_memory(graph, vector)
    tally_memory(report.source_tally, memory)
    _tables_read(report, memory)
    if report.dry_run:
        return
    remove_store_files(tmp)
    restored = restore_history(tmp, history, report)
    dst_graph, dst_vector = _open_anatid(tmp)
    try:
        todo = memory
        if history is not None:  # only what changed since the export becomes a new version
            todo = changed_only(memory, await read_memory(dst_graph, dst_vector))
        progress.phase("import", _count(todo))
        report.written = await write_memory(dst_graph, dst_vector, todo, progress.advance)
        closed = close_gone(dst_graph.store, memory) if history is not None else 0
        await _verify(dst_graph, dst_vector, report, progress)
        if history is not None:
            note_history(report, dst_graph.store, history, restored, closed, "backend")
    finally:
        await _close(dst_graph, dst_vector)


__all__ = ["export_cognee", "import_cognee"]
