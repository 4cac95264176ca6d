"""What the exports to a server backend and the imports from one share: the journal beside the
history, the history's default place, bringing the history back into a new file, and the frame
of an import (a temporary file renamed into place only once it is complete and verified).

An export writes ``export.json`` into the history directory before it writes to the server and
marks it done at the end, so a rerun that finds a non-empty server can tell its own unfinished
work from somebody else's data.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Protocol

from anatid_core import AnatidError, Store, restore_timeline, store_files

from .closing import closed_note
from .errors import TargetExists, UnsupportedSource, VerificationFailed
from .history import FILES, MANIFEST, history_counts, read_history
from .outputs import check_directory, check_target, refuse_reading
from .progress import Progress
from .report import MigrationReport

JOURNAL = "export.json"
#: What an export writes into its history directory (each file's ``.tmp`` first, then renamed).
HISTORY_FILES = (JOURNAL, *FILES.values(), MANIFEST)


class Described(Protocol):
    """A target that can name itself without its password."""

    def describe(self) -> str: ...


def default_history_dir(file: Path) -> Path:
    return file.with_name(file.name + ".history")


def history_for_export(file: Path, history_dir: str | os.PathLike[str] | None) -> Path:
    """Where an export writes its history and journal (``history_dir``, else FILE.history),
    checked before anything is written: a directory, none of whose files (nor their ``.tmp``)
    is FILE by another name, a store or a store's side file (issue 32)."""
    history = Path(history_dir) if history_dir else default_history_dir(file)
    names = [n for name in HISTORY_FILES for n in (name, name + ".tmp")]
    return check_directory(history, names, reading=[file], what="the history directory")


def history_files(history: Path | None) -> list[Path]:
    """The files an import reads from an export's history (none without one)."""
    return [history / name for name in HISTORY_FILES] if history is not None else []


def read_journal(history: Path) -> dict[str, Any] | None:
    try:
        return dict(json.loads((history / JOURNAL).read_text()))
    except (OSError, ValueError):
        return None


def write_journal(history: Path, path: Path, target: Described, state: str) -> None:
    history.mkdir(parents=True, exist_ok=True)
    tmp = history / (JOURNAL + ".tmp")
    tmp.write_text(json.dumps({"source": str(path), "target": target.describe(), "state": state}))
    tmp.replace(history / JOURNAL)


def is_resuming(history: Path, path: Path, target: Described) -> bool:
    """Whether the journal says an export of ``path`` to ``target`` began and did not finish
    (so a non-empty target is that export's own work, which a rerun completes)."""
    journal = read_journal(history)
    return bool(
        journal
        and journal.get("state") == "writing"
        and journal.get("source") == str(path)
        and journal.get("target") == target.describe()
    )


def note_history_written(
    report: MigrationReport, counts: dict[str, int], history: Path, where: str
) -> None:
    report.notes.append(
        f"history: {counts['node']} node and {counts['edge']} edge versions (every version, "
        f"valid and transaction time) written to {history}; the {where} keeps only the "
        "current state"
    )


def restore_history(tmp: Path, history: Path | None, report: MigrationReport) -> int:
    """Write the exported timeline into ``tmp`` (an empty file); the versions written."""
    if history is None:
        return 0
    try:
        counts = restore_timeline(tmp, read_history(history, "node"), read_history(history, "edge"))  # type: ignore[arg-type]
    except AnatidError as exc:
        raise UnsupportedSource(f"The history in {history} cannot be restored: {exc}") from exc
    return sum(counts.values())


def remove_store_files(path: Path) -> None:
    for name in store_files(str(path)):
        if Path(name).is_dir():  # the index folder
            shutil.rmtree(name, ignore_errors=True)
        else:
            Path(name).unlink(missing_ok=True)


def require_verified(report: MigrationReport, through: str) -> None:
    """Mark the export verified if the target's tally equals the source's, else raise
    ``VerificationFailed`` naming what differs as read back ``through`` the target's code."""
    problems = report.source_tally.mismatches(report.target_tally)
    if problems:
        raise VerificationFailed(
            f"What the target returns through {through} differs from the source "
            "(rerun to complete an interrupted export):\n  " + "\n  ".join(problems),
            report,
        )
    report.verified = True


#: An import's body: given the temporary file to fill and the history directory (or None).
ImportBody = Callable[[Path, "Path | None"], Coroutine[Any, Any, None]]


def import_target(
    target: str | os.PathLike[str],
    history_dir: str | os.PathLike[str] | None,
    reading: list[Path] | None = None,
) -> Path:
    """An import's FILE, checked before anything is written (issue 32): never a file the import
    reads (the history's files, ``reading``: a LadybugDB source's graph file), by any of its
    names, nor a store's side file; an existing store only as ``--force`` allows (see
    :func:`run_import`). The path to write (symlinks followed)."""
    history = Path(history_dir).resolve() if history_dir else None
    sources = [*history_files(history), *(reading or [])]
    path = check_target(target, reading=sources, what="FILE")
    refuse_reading(_import_temp(path), sources, what="the temporary file")
    return path


def _import_temp(path: Path) -> Path:
    return path.with_name(f".{path.name}.anatid-import-{os.getpid()}.tmp")


def run_import(
    report: MigrationReport,
    path: Path,
    history_dir: str | os.PathLike[str] | None,
    *,
    force: bool,
    progress: Progress,
    body: ImportBody,
) -> MigrationReport:
    """Run ``body`` into a temporary file beside ``path`` (checked by :func:`import_target`)
    and rename it into place (not on a dry run); whatever happens, the temporary file goes and
    ``progress`` is closed."""
    if path.exists() and not force and not report.dry_run:
        raise TargetExists(f"{path} already exists; pass --force (force=True) to replace it.")
    history = Path(history_dir).resolve() if history_dir else None
    if history is not None and history_counts(history) is None:
        raise UnsupportedSource(f"{history} holds no history written by an export ({MANIFEST})")
    started = time.monotonic()
    tmp = _import_temp(path)
    try:
        asyncio.run(body(tmp, history))
        if not report.dry_run:
            path.with_name(path.name + ".wal").unlink(missing_ok=True)
            os.replace(tmp, path)
    finally:
        progress.close()
        remove_store_files(tmp)
    report.seconds = time.monotonic() - started
    return report


def note_history(
    report: MigrationReport, store: Store, history: Path, restored: int, closed: int, where: str
) -> None:
    """Say in the report what an import over a restored history wrote (``where``: the
    backend's word for itself, e.g. "server")."""
    stats = store.stats()
    newer = stats["node_versions"] + stats["edge_versions"] - restored
    report.notes.append(
        f"history: {restored} versions restored from {history} with their recorded "
        f"times; {newer} new versions for what changed on the {where} since the export"
    )
    report.notes.append(closed_note(closed, where))
