"""The ``anatid-migrate`` command: exit codes, report, dry run, plain progress lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from anatid_migrate.cli import main

REPO = Path(__file__).resolve().parents[2]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "anatid_migrate.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def test_cli_migrates_and_prints_report_with_plain_progress(sources: Path, tmp_path: Path) -> None:
    target = tmp_path / "memory.duckdb"
    done = run("graphiti", str(sources / "graphiti-kuzu.kz"), str(target))
    assert done.returncode == 0, done.stderr
    assert "verified: yes" in done.stdout
    assert "RelatesToNode_" in done.stdout
    assert "read+load: done" in done.stderr  # not a terminal: plain lines, no bars
    assert target.exists()


def test_cli_refuses_existing_target(sources: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "memory.duckdb"
    target.write_text("keep")
    code = main(["cognee", str(sources / "cognee-ladybug.lbug"), str(target)])
    assert code == 1
    assert "already exists" in capsys.readouterr().err
    assert target.read_text() == "keep"


def test_cli_dry_run_json(sources: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "memory.duckdb"
    code = main(["cognee", str(sources / "cognee-kuzu.kz"), str(target), "--dry-run", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dry_run"] is True
    assert report["tables_read"] == {"Node": 14, "EDGE": 21}
    assert not target.exists()


@pytest.mark.parametrize("kind", ["graphiti", "cognee"])
def test_cli_usage_error_without_target(kind: str) -> None:
    done = run(kind, "only-source")
    assert done.returncode == 2
    assert "TARGET" in done.stderr
