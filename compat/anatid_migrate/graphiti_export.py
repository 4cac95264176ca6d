"""Move a Graphiti memory between an anatid file and a Graphiti server backend (issue 18).

``export_graphiti(FILE, URL)`` reads every group of the anatid file as Graphiti models through
``anatid_graphiti.GraphitiDriver`` and writes them through Graphiti's own driver of the server
(``FalkorDriver``, ``Neo4jDriver``), group by group as Graphiti routes groups. The file's full
timeline is written beside it as Parquet (see :mod:`anatid_migrate.history`): the server holds
only the current state. ``import_graphiti(URL, FILE)`` is the reverse, into a new anatid file.

Verification reads every group back through the receiving driver with Graphiti's getters and
compares counts per type and checksums of the models (embeddings as float32) with what was read.
Saves are MERGE by uuid, so an interrupted export is completed by running it again: a journal
(``export.json`` in the history directory) tells a rerun that the non-empty server it finds is
its own unfinished work.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

from anatid_core import AnatidError, Store

from .closing import close_absent
from .errors import MigrationError, TargetNotEmpty, UnsupportedSource
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
from .graphiti_models import (
    TYPES,
    check_storable,
    drop_null_attributes,
    read_pages,
    tally_group,
    tally_page,
    write_page,
)
from .history import history_counts, write_history
from .progress import Progress, Silent
from .report import MigrationReport, Tally
from .servers import (
    ServerURL,
    check_server,
    close_routed,
    groups_on,
    open_driver,
    parse_url,
    route,
)

PathLike = str | os.PathLike[str]


def export_graphiti(
    source: PathLike,
    url: str,
    *,
    history_dir: PathLike | None = None,
    dry_run: bool = False,
    force: bool = False,
    progress: Progress | None = None,
) -> MigrationReport:
    """Export the anatid file ``source`` to the Graphiti server at ``url``; see the module doc."""
    path = Path(source).resolve()
    server = parse_url(url)
    history = history_for_export(path, history_dir)
    report = MigrationReport("graphiti export", str(path), server.describe(), dry_run=dry_run)
    started = time.monotonic()
    progress = progress or Silent()
    try:
        asyncio.run(_export(path, server, history, report, progress, force=force))
    finally:
        progress.close()
    report.seconds = time.monotonic() - started
    return report


def _open_source(path: Path) -> Any:
    from anatid_graphiti import GraphitiDriver

    if not path.is_file():
        raise UnsupportedSource(f"{path} does not exist or is not a file (an anatid file)")
    try:
        return GraphitiDriver(str(path), read_only=True)
    except AnatidError as exc:
        raise UnsupportedSource(f"{path} is not an anatid file that can be read: {exc}") from exc


def _source_groups(store: Store) -> tuple[list[str], int]:
    stats = store.stats()
    groups = sorted(set(stats["nodes_by_group"]) | set(stats["edges_by_group"]))
    return groups, int(stats["nodes"]) + int(stats["edges"])


async def _export(
    path: Path,
    server: ServerURL,
    history: Path,
    report: MigrationReport,
    progress: Progress,
    *,
    force: bool,
) -> None:
    src = _open_source(path)
    try:
        target = open_driver(server)
    except BaseException:
        await src.close()
        raise
    try:
        report.source_format = "anatid file"
        report.reader = await check_server(target, server)
        groups, total = _source_groups(src.store)
        if not report.dry_run:
            await _claim(target, server, history, path, groups, force=force)
        progress.phase("read" if report.dry_run else "export", total)
        for group in groups:
            await _copy_group(src, target if report.dry_run else route(target, group), group,
                              report, progress, write=not report.dry_run, check=True,
                              by_listing=False)  # fmt: skip
        if report.dry_run:
            return
        await _verify(target, groups, report, progress, total, by_listing=True)
        counts = write_history(src.store, history, str(path))
        note_history_written(report, counts, history, "server")
        write_journal(history, path, server, "done")
    finally:
        await src.close()
        await close_routed(target)


async def _claim(
    target: Any, server: ServerURL, history: Path, path: Path, groups: list[str], *, force: bool
) -> None:
    """Refuse a server that holds a graph, unless it is this export's unfinished work (the
    journal says so) or ``force``; then record in the journal that the export is under way."""
    found = sorted(await groups_on(target, server))
    resuming = is_resuming(history, path, server)
    if found and not resuming and not force:
        raise TargetNotEmpty(
            f"{server.describe()} already holds groups {found}. Export into an empty server, or "
            "pass --force (force=True) to clear the groups this file holds and write them anew "
            "(other groups are left alone)."
        )
    if found and force and not resuming:
        from graphiti_core.utils.maintenance.graph_data_operations import clear_data

        for group in set(groups) & set(found):
            await clear_data(route(target, group), [group])
    write_journal(history, path, server, "writing")


async def _copy_group(
    src: Any,
    dst: Any,
    group: str,
    report: MigrationReport,
    progress: Progress,
    *,
    write: bool,
    check: bool,
    by_listing: bool,
    seen: set[str] | None = None,
) -> None:
    """Read ``group`` from ``src`` page by page, tally it, and (if ``write``) save it to
    ``dst``. ``check`` (an export) refuses values a server cannot store before that page is
    written, and drops the None attributes a server would drop. ``seen`` (an import over a
    restored history) collects the uuids read."""
    if write:
        await dst.build_indices_and_constraints()
    for t in TYPES:
        async for page in read_pages(src, t, group, by_listing=by_listing):
            tally_page(report.source_tally, t, page)
            if seen is not None:
                seen.update(str(m.uuid) for m in page)
            report.tables_read[t.kind] = report.tables_read.get(t.kind, 0) + len(page)
            if check:
                check_storable(t, page, getattr(dst, "provider", None))
                drop_null_attributes(page)
            if write:
                if seen is not None:
                    _keep_label_order(dst.store, page)
                    _keep_null_attributes(dst.store, page)
                await write_page(dst, t, page, keep_label_order=seen is not None)
                report.written[t.kind] = report.written.get(t.kind, 0) + len(page)
            progress.advance(len(page))


def _keep_label_order(store: Store, page: list[Any]) -> None:
    """Give each entity the label order its restored version has, where the set is the same:
    a server returns a node's labels in its own order, and a reordered list would otherwise
    be saved as a change since the export (a new version of an unchanged record)."""
    labelled = [m for m in page if isinstance(getattr(m, "labels", None), list)]
    if not labelled:
        return
    restored = {n.id: list(n.labels) for n in store.get_nodes([str(m.uuid) for m in labelled])}
    for m in labelled:
        old = restored.get(str(m.uuid))
        if old is not None and old != m.labels and set(old) == set(m.labels):
            m.labels = old


def _keep_null_attributes(store: Store, page: list[Any]) -> None:
    """Give back each record the None attributes its restored version has and the server does
    not: a server keeps no null property, so Graphiti reads such an attribute from it as absent,
    and the import would otherwise save that absence as a change since the export (a new
    version of an unchanged record). As the host reads it, absent and None are the same."""
    with_attributes = [m for m in page if isinstance(getattr(m, "attributes", None), dict)]
    if not with_attributes:
        return
    ids = [str(m.uuid) for m in with_attributes]
    restored = {r.id: r.props.get("attributes") for r in store.get_nodes(ids)}
    restored.update({r.id: r.props.get("attributes") for r in store.get_edges(ids)})
    for m in with_attributes:
        old = restored.get(str(m.uuid))
        if isinstance(old, dict):
            for key, value in old.items():
                if value is None and key not in m.attributes:
                    m.attributes[key] = None


async def _verify(
    target: Any,
    groups: list[str],
    report: MigrationReport,
    progress: Progress,
    total: int,
    *,
    by_listing: bool,
) -> None:
    progress.phase("verify", total)
    report.target_tally = Tally()
    for group in groups:
        await tally_group(route(target, group), group, report.target_tally, by_listing=by_listing)
    progress.advance(sum(report.target_tally.counts.values()))
    require_verified(report, "its driver")


# ------------------------------------------------------------------------------ import


def import_graphiti(
    url: str,
    target: PathLike,
    *,
    history_dir: PathLike | None = None,
    dry_run: bool = False,
    force: bool = False,
    progress: Progress | None = None,
) -> MigrationReport:
    """Import every group of the Graphiti server at ``url`` into a new anatid file ``target``.

    With ``history_dir`` (the Parquet timeline an export wrote), the file's whole history is
    restored first, with its recorded transaction times; the server's current state is then
    saved over it, so whatever changed on the server since the export becomes a new version,
    and whatever the server no longer holds is deleted as of the import (its history kept).
    The file is written as a temporary file beside ``target`` and renamed into place only after
    it reads back, through GraphitiDriver, equal to what the server returned.
    """
    path = import_target(target, history_dir)
    server = parse_url(url)
    report = MigrationReport("graphiti import", server.describe(), str(path), dry_run=dry_run)
    progress = progress or Silent()

    async def body(tmp: Path, history: Path | None) -> None:
        await _import(server, tmp, history, report, progress)

    return run_import(report, path, history_dir, force=force, progress=progress, body=body)


async def _import(
    server: ServerURL,
    tmp: Path,
    history: Path | None,
    report: MigrationReport,
    progress: Progress,
) -> None:
    from anatid_graphiti import GraphitiDriver

    source = open_driver(server)
    try:
        report.source_format = await check_server(source, server)
        report.reader = "Graphiti " + type(source).__name__
        groups = await groups_on(source, server)
        progress.phase("read" if report.dry_run else "import", 0)
        if report.dry_run:
            for group, gdriver in sorted(groups.items()):
                await _copy_group(
                    gdriver,
                    None,
                    group,
                    report,
                    progress,
                    write=False,
                    check=False,
                    by_listing=True,
                )
            return
        remove_store_files(tmp)
        restored = restore_history(tmp, history, report)
        dst = GraphitiDriver(str(tmp))
        seen: set[str] = set()
        try:
            for group, gdriver in sorted(groups.items()):
                await _copy_group(
                    gdriver, dst, group, report, progress,
                    write=True, check=False, by_listing=True, seen=seen,
                )  # fmt: skip
            # Nodes and edges share Graphiti's uuid space (the core id is the uuid).
            closed = close_absent(dst.store, seen, seen) if history is not None else 0
            await _verify(dst, sorted(groups), report, progress, 0, by_listing=False)
            if history is not None:
                note_history(report, dst.store, history, restored, closed, "server")
        finally:
            await dst.close()
    finally:
        await close_routed(source)


__all__ = ["MigrationError", "export_graphiti", "history_counts", "import_graphiti"]
