"""Tables and columns the framework never wrote are reported, not dropped silently; the
reader venv is created on request; progress falls back to plain lines off a terminal."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest
from anatid_migrate import migrate_graphiti
from anatid_migrate.engines import find_reader
from anatid_migrate.formats import detect_format
from anatid_migrate.progress import PlainLines, for_stream

from .conftest import cache_root

_ADD_EXTRAS = """
import kuzu, sys
conn = kuzu.Connection(kuzu.Database(sys.argv[1]))
conn.execute("CREATE NODE TABLE Note(id STRING PRIMARY KEY, body STRING)")
conn.execute("CREATE (:Note {id: 'n1', body: 'mine'})")
conn.execute("ALTER TABLE Entity ADD favourite_colour STRING DEFAULT 'blue'")
"""


def test_extra_tables_and_columns_are_reported(source_copy, tmp_path: Path) -> None:
    src = source_copy("graphiti-kuzu.kz")
    kuzu_python = cache_root() / "readers" / "kuzu-0.11.3" / "bin" / "python"
    subprocess.run([str(kuzu_python), "-c", _ADD_EXTRAS, str(src)], check=True)

    report = migrate_graphiti(src, tmp_path / "memory.duckdb")

    assert report.verified
    assert report.tables_read["Note"] == 1
    assert any("table Note (1 rows)" in item for item in report.not_migrated)
    assert any("favourite_colour" in item for item in report.not_migrated)
    assert "not migrated: table Note" in report.format()


def test_bootstrap_reader_creates_the_exact_engine_venv(
    sources: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANATID_MIGRATE_CACHE", str(tmp_path / "cache"))
    fmt = detect_format(sources / "graphiti-kuzu.kz")
    try:
        reader = find_reader(fmt, bootstrap=True)
    except Exception as exc:  # no PyPI here: only CI must be able to build it
        if os.environ.get("CI"):
            raise
        pytest.skip(f"cannot create a reader venv offline: {exc}")
    assert (reader.engine, reader.version) == ("kuzu", "0.11.3")
    assert Path(reader.python).is_relative_to(tmp_path / "cache" / "readers" / "kuzu-0.11.3")
    assert find_reader(fmt).python == reader.python  # found again without bootstrapping


def test_progress_is_plain_lines_off_a_terminal() -> None:
    out = io.StringIO()
    progress = for_stream(out)
    assert isinstance(progress, PlainLines)
    progress.phase("read+load", 100)
    for _ in range(10):
        progress.advance(10)
    progress.phase("verify", 5)
    progress.advance(5)
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "read+load: 100 rows"
    assert "read+load: 50/100 (50%)" in lines
    assert lines[-1].startswith("verify: done, 5 rows in")
