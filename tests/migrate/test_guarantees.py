"""The promises of anatid-migrate: the source is never modified, TARGET appears only complete and
verified, an existing TARGET is kept unless forced, and unreadable sources are explained."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from anatid_migrate import (
    ReaderUnavailable,
    SourceReadError,
    TargetExists,
    UnknownSchema,
    UnsafeOutput,
    UnsupportedSource,
    detect_format,
    migrate_cognee,
    migrate_graphiti,
)

REPO = Path(__file__).resolve().parents[2]


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_existing_target_is_refused_and_kept(sources: Path, tmp_path: Path) -> None:
    target = tmp_path / "memory.duckdb"
    target.write_bytes(b"precious")

    with pytest.raises(TargetExists, match="--force"):
        migrate_cognee(sources / "cognee-ladybug.lbug", target)

    assert target.read_bytes() == b"precious"


def test_target_same_as_source_is_refused_even_with_force(source_copy) -> None:
    src = source_copy("cognee-ladybug.lbug")
    before = sha256(src)
    with pytest.raises(UnsafeOutput, match="is the file being read"):
        migrate_cognee(src, src, force=True)
    assert sha256(src) == before


def test_force_replaces_target_only_after_verification(sources: Path, tmp_path: Path) -> None:
    target = tmp_path / "memory.duckdb"
    target.write_bytes(b"precious")
    # The old file's write-ahead log must not be replayed onto the new one.
    (tmp_path / "memory.duckdb.wal").write_bytes(b"stale log")

    report = migrate_cognee(sources / "cognee-ladybug.lbug", target, force=True)

    assert report.verified
    assert target.read_bytes()[:4] != b"prec"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.duckdb"]


def test_truncated_source_fails_cleanly(source_copy, tmp_path: Path) -> None:
    src = source_copy("cognee-ladybug.lbug")
    data = src.read_bytes()
    src.write_bytes(data[: len(data) // 3])
    before = sha256(src)
    target = tmp_path / "out" / "memory.duckdb"
    target.parent.mkdir()

    with pytest.raises(SourceReadError, match="corrupt or truncated"):
        migrate_cognee(src, target)

    assert list(target.parent.iterdir()) == []
    assert sha256(src) == before


def test_corrupt_source_pages_fail_cleanly(source_copy, tmp_path: Path) -> None:
    src = source_copy("graphiti-kuzu.kz")
    data = bytearray(src.read_bytes())
    # Keep the header (so it is recognised) and scramble everything after the first page.
    data[4096:] = bytes((b * 7 + 13) & 0xFF for b in data[4096:])
    src.write_bytes(bytes(data))
    target = tmp_path / "out" / "memory.duckdb"
    target.parent.mkdir()

    with pytest.raises((SourceReadError, UnknownSchema)):
        migrate_graphiti(src, target)

    assert list(target.parent.iterdir()) == []


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "too short"),
        (b"SQLite format 3\x00" + bytes(100), "not a Kuzu or LadybugDB database"),
    ],
)
def test_not_a_database_is_named(tmp_path: Path, content: bytes, message: str) -> None:
    src = tmp_path / "graph.kz"
    src.write_bytes(content)
    with pytest.raises(UnsupportedSource, match=message):
        migrate_graphiti(src, tmp_path / "memory.duckdb")
    assert not (tmp_path / "memory.duckdb").exists()


def test_kuzu_0_10_directory_is_refused_with_upgrade_steps(sources: Path, tmp_path: Path) -> None:
    with pytest.raises(UnsupportedSource) as err:
        migrate_graphiti(sources / "kuzu-0.10-dir", tmp_path / "memory.duckdb")
    message = str(err.value)
    assert "kuzu 0.10.x" in message
    assert "pip install kuzu==0.10.1" in message and "kuzu==0.11.3" in message
    assert "EXPORT DATABASE" in message and "IMPORT DATABASE" in message


def test_wrong_framework_is_named(sources: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownSchema, match="anatid-migrate cognee"):
        migrate_graphiti(sources / "cognee-kuzu.kz", tmp_path / "a.duckdb")
    with pytest.raises(UnknownSchema, match="anatid-migrate graphiti"):
        migrate_cognee(sources / "graphiti-kuzu.kz", tmp_path / "b.duckdb")


def test_missing_reader_prints_the_fixing_command(
    sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANATID_MIGRATE_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(ReaderUnavailable) as err:
        migrate_graphiti(sources / "graphiti-kuzu.kz", tmp_path / "memory.duckdb")
    message = str(err.value)
    assert "pip install kuzu==0.11.3 pyarrow" in message
    assert "--bootstrap-reader" in message


def test_reader_python_with_the_wrong_engine_is_refused(sources: Path, tmp_path: Path) -> None:
    # This interpreter has ladybug (via cognee), which cannot open a kuzu 0.11 file.
    with pytest.raises(ReaderUnavailable, match="kuzu==0.11.3"):
        migrate_graphiti(
            sources / "graphiti-kuzu.kz", tmp_path / "memory.duckdb", reader_python=sys.executable
        )


_KILLABLE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from anatid_migrate import migrate_graphiti

    class StallMidLoad:
        # Progress hook: after the first loaded batch, announce it and hang until killed.
        def __init__(self): self.seen = 0
        def phase(self, name, total): pass
        def advance(self, n):
            self.seen += 1
            if self.seen == 3:
                Path(sys.argv[3]).write_text("loading")
                time.sleep(600)
        def close(self): pass

    migrate_graphiti(sys.argv[1], sys.argv[2], progress=StallMidLoad(), batch_rows=4)
    """
)


def test_killed_mid_load_leaves_no_target_and_source_intact(sources: Path, tmp_path: Path) -> None:
    src = sources / "graphiti-kuzu.kz"
    before = sha256(src)
    target = tmp_path / "memory.duckdb"
    marker = tmp_path / "loading"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLABLE, str(src), str(target), str(marker)],
        cwd=REPO,
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 120
        while not marker.exists():
            assert proc.poll() is None, "the migration ended before it could be interrupted"
            assert time.monotonic() < deadline, "the migration never started loading"
            time.sleep(0.05)
        assert any(p.name.endswith(".tmp") for p in tmp_path.iterdir())  # mid-load indeed
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()

    assert not target.exists()
    assert sha256(src) == before
    # A rerun is not disturbed by the dead run's temporary file and succeeds.
    report = migrate_graphiti(src, target)
    assert report.verified and target.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_detect_format_names_engine_and_version(sources: Path) -> None:
    kuzu = detect_format(sources / "graphiti-kuzu.kz")
    assert (kuzu.engine, kuzu.code, kuzu.reader_version) == ("kuzu", 39, "0.11.3")
    lbug = detect_format(sources / "cognee-ladybug.lbug")
    assert (lbug.engine, lbug.code) == ("ladybug", 43)
    assert "LadybugDB 0.19" in lbug.describe()


def test_verification_mismatch_fails_and_writes_no_target(
    sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anatid_migrate import VerificationFailed
    from anatid_migrate.cognee_plan import CogneePlan

    read_back = CogneePlan.read_back

    def lossy_read_back(self, store, report) -> None:  # a mapping that loses one edge
        read_back(self, store, report)
        report.target_tally.counts["edge:knows"] -= 1

    monkeypatch.setattr(CogneePlan, "read_back", lossy_read_back)
    target = tmp_path / "memory.duckdb"

    with pytest.raises(VerificationFailed, match="edge:knows: 1 in source, 0 in target") as err:
        migrate_cognee(sources / "cognee-ladybug.lbug", target)

    assert not err.value.report.verified
    assert list(tmp_path.iterdir()) == []


def test_tally_tells_a_changed_field_from_a_missing_record() -> None:
    from anatid_migrate.report import Tally

    source, same, changed, short = Tally(), Tally(), Tally(), Tally()
    for tally, name in ((source, "Alice"), (same, "Alice"), (changed, "Alicia")):
        tally.add("entity", {"uuid": "u1", "name": name})
        tally.add("entity", {"uuid": "u2", "name": "Bob"})
    short.add("entity", {"uuid": "u2", "name": "Bob"})

    assert source.mismatches(same) == []
    assert source.mismatches(changed) == ["entity: same count (2) but ids/key fields differ"]
    assert source.mismatches(short) == ["entity: 2 in source, 1 in target"]
