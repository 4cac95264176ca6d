"""The migration pipeline: detect, read, load into a temporary file, verify, rename into place.

Guarantees (issue 5):
- the source is only ever opened read-only, by the reader subprocess; we check its size and
  modification time did not change;
- TARGET is written as a temporary file beside it and renamed into place only after the
  target's record counts and checksums (read back through the driver's mapping) equal the
  source's; on any failure or interruption the temporary file is removed or left as an
  obviously named ``.TARGET.anatid-migrate-*.tmp`` (never TARGET itself);
- an existing TARGET is refused unless ``force``; TARGET is never SOURCE, by any of its names
  (symlinks and hard links count), nor a store's side file, even with ``force`` (issue 32).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from anatid_core import Store, lease_files

from .engines import Reader, find_reader
from .errors import MigrationError, SourceReadError, TargetExists, VerificationFailed
from .formats import SourceFormat, detect_format
from .outputs import check_target, refuse_reading
from .plan import Plan
from .progress import Progress, Silent
from .report import MigrationReport
from .source import DEFAULT_BATCH_ROWS, SourceReader


def _fingerprint(path: Path) -> tuple[int, int]:
    total_size, newest = 0, 0
    files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
    for f in files:
        st = f.stat()
        total_size += st.st_size
        newest = max(newest, st.st_mtime_ns)
    return total_size, newest


def _temp_path(target: Path) -> Path:
    return target.with_name(f".{target.name}.anatid-migrate-{os.getpid()}.tmp")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_temps(target: Path, source: Path) -> None:
    """Remove temporary files left by runs that were killed (their process is gone); never
    the source, whatever its name."""
    prefix = f".{target.name}.anatid-migrate-"
    for p in target.parent.glob(prefix + "*.tmp*"):
        pid = p.name[len(prefix) :].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _pid_alive(int(pid)):
            if not (source.exists() and p.exists() and os.path.samefile(p, source)):
                p.unlink(missing_ok=True)


def _remove_db(path: Path) -> None:
    # The temporary file is ours alone, so its lock files can go with it (a shared store's must
    # stay: another process may be waiting on them).
    for p in (path, path.with_name(path.name + ".wal"), *map(Path, lease_files(str(path)))):
        if p.exists():
            p.unlink()


def migrate(
    plan_factory: Callable[[], Plan],
    source: str | os.PathLike[str],
    target: str | os.PathLike[str],
    *,
    reader_python: str | None = None,
    bootstrap_reader: bool = False,
    dry_run: bool = False,
    force: bool = False,
    progress: Progress | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> MigrationReport:
    """Migrate ``source`` into a new anatid file at ``target``; see the module docstring."""
    started = time.monotonic()
    plan = plan_factory()
    source_path = Path(source).resolve()
    # Never SOURCE by another name, nor a store's side file, even with --force (issue 32).
    target_path = check_target(target, reading=[source_path], what="TARGET")
    refuse_reading(_temp_path(target_path), [source_path], what="the temporary file")
    report = MigrationReport(plan.kind, str(source_path), str(target_path), dry_run=dry_run)
    if target_path.exists() and not force and not dry_run:
        raise TargetExists(
            f"{target_path} already exists; pass --force (force=True) to replace it. It is "
            "replaced only after the new file is written and verified."
        )
    fmt = detect_format(source_path)
    report.source_format = fmt.describe()
    reader = find_reader(fmt, reader_python=reader_python, bootstrap=bootstrap_reader)
    report.reader = f"{reader.engine} {reader.version} via {reader.python}"
    progress = progress or Silent()
    before = _fingerprint(source_path)
    try:
        if dry_run:
            _read(plan, fmt, reader, None, report, progress, batch_rows)
        else:
            _load_verify_rename(plan, fmt, reader, source_path, target_path, report, progress,
                                batch_rows)  # fmt: skip
    finally:
        progress.close()
        if _fingerprint(source_path) != before:  # never expected: the reader opens read-only
            report.warnings.append(f"the source {source_path} changed during the migration")
    report.seconds = time.monotonic() - started
    return report


#: Records written between reopenings of the temporary store (see _Target).
REOPEN_ROWS = 40_000
#: DuckDB's memory limit while loading (its default is 80% of RAM; see _Target). Measured on
#: the 100k-entity benchmark (bench_migrate.py): the migrating process peaked at 0.95 GB with
#: 512 MB, at 0.74 GB with 256 MB, and was no slower (a bulk load appends: it needs no large
#: buffers; the verification reads a page at a time).
LOAD_MEMORY_LIMIT = "256MB"


def _open_capped(path: Path, *, read_only: bool = False) -> Store:
    """Open the temporary store with DuckDB's memory capped at ``LOAD_MEMORY_LIMIT``; to be
    written, as a bulk load (checkpointed at each close, no current records in memory)."""
    return Store.open(
        str(path), read_only=read_only, memory_limit=LOAD_MEMORY_LIMIT, bulk_load=not read_only
    )


class _Target:
    """The temporary store being loaded, closed and reopened every ``REOPEN_ROWS`` records.

    DuckDB keeps the blocks it writes in memory up to its memory limit (80% of RAM by default)
    and its allocator keeps freed memory for a while, so a long load grows with the data: 1.8 GB
    peak for 100k entities + 100k facts at 1024 dimensions. A memory limit and closing (which
    checkpoints the file: a bulk-loading store checkpoints at nothing else) keep it bounded.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.store = _open_capped(path)
        self.rows = 0

    def loaded(self, rows: int) -> None:
        self.rows += rows
        if self.rows >= REOPEN_ROWS:
            self.store.close()
            self.store = _open_capped(self.path)
            self.rows = 0

    def close(self) -> None:
        self.store.close()


def _read(
    plan: Plan,
    fmt: SourceFormat,
    reader: Reader,
    target: _Target | None,
    report: MigrationReport,
    progress: Progress,
    batch_rows: int,
) -> None:
    with SourceReader(fmt, reader, batch_rows=batch_rows, order=plan.order) as src:
        assert src.catalog is not None
        plan.check_catalog(src.catalog, report)
        progress.phase(
            "read+load" if target is not None else "read",
            sum(t.rows for t in src.catalog.tables.values()),
        )
        for batch in src.batches():
            report.tables_read[batch.table] = (
                report.tables_read.get(batch.table, 0) + batch.data.num_rows
            )
            written = sum(report.written.values())
            plan.load(target.store if target else None, batch, report)
            progress.advance(batch.data.num_rows)
            if target is not None:
                target.loaded(sum(report.written.values()) - written)
        plan.finish(target.store if target else None, report)
        expected = {t.name: t.rows for t in src.catalog.tables.values()}
        if any(report.tables_read.get(name, 0) != rows for name, rows in expected.items()):
            raise SourceReadError(
                f"Reading {fmt.path} returned {report.tables_read}, but its catalog counts "
                f"{expected}. The file may be damaged; it was not modified."
            )


def _load_verify_rename(
    plan: Plan,
    fmt: SourceFormat,
    reader: Reader,
    source: Path,
    target: Path,
    report: MigrationReport,
    progress: Progress,
    batch_rows: int,
) -> None:
    tmp = _temp_path(target)
    _remove_stale_temps(target, source)
    _remove_db(tmp)
    try:
        loading = _Target(tmp)
        try:
            _read(plan, fmt, reader, loading, report, progress, batch_rows)
        finally:
            loading.close()
        with _open_capped(tmp, read_only=True) as store:
            progress.phase("verify", sum(report.source_tally.counts.values()))
            plan.read_back(store, report)
            progress.advance(sum(report.target_tally.counts.values()))
        problems = report.source_tally.mismatches(report.target_tally)
        if problems:
            raise VerificationFailed(
                "The migrated file does not match the source; TARGET was not written:\n  "
                + "\n  ".join(problems),
                report,
            )
        report.verified = True
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        # A replaced TARGET's write-ahead log would be replayed onto the new file: remove it.
        target.with_name(target.name + ".wal").unlink(missing_ok=True)
        os.replace(tmp, target)
        for lock in lease_files(str(tmp)):
            Path(lock).unlink(missing_ok=True)
        _fsync_dir(target.parent)
    except BaseException:
        _remove_db(tmp)
        raise


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


__all__ = ["MigrationError", "migrate"]
