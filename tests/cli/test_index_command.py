"""`anatid index` shows its progress on a terminal and nothing elsewhere (issue 41): run as a
user runs it, a fresh interpreter, once with stderr a pipe and once on a pseudo-terminal."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from anatid_core import BuildProgress, Node, Store
from anatid_core.cli.progress_bar import ProgressBar, line

from .conftest import anatid


def small(path: Path, n: int = 800) -> None:
    rng = np.random.default_rng(5)
    with Store.open(path) as s:
        s.upsert_nodes(
            [
                Node(f"n{i}", name=f"node {i}", embedding=rng.standard_normal(8).tolist())
                for i in range(n)
            ]
        )


def test_not_on_a_terminal_nothing_is_drawn(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    small(path)
    done = anatid("index", path, "--min-rows", "100")
    assert done.code == 0, done.err
    assert "\r" not in done.err and "rows/s" not in done.err
    assert "node space 'default': 800 added" in done.out


def on_a_terminal(args: list[str], timeout: float = 120) -> tuple[int, str]:
    """Run ``anatid ARGS`` with stdout and stderr on a pseudo-terminal; (status, all output)."""
    main, side = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "anatid_core.cli", *args],
        stdin=subprocess.DEVNULL,
        stdout=side,
        stderr=side,
        env={**os.environ, "COLUMNS": "120"},
    )
    os.close(side)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    os.close(main)
    return proc.wait(timeout=10), out.decode("utf-8", "replace")


def test_on_a_terminal_one_line_is_redrawn_with_the_progress(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    small(path)
    code, out = on_a_terminal(["index", str(path), "--min-rows", "100"])
    assert code == 0, out
    assert "\rnode space 'default' adding" in out
    assert "800/800" in out and "rows/s" in out
    assert "\rnode text index" in out
    assert "node space 'default': 800 added" in out  # the report after the bar's line


def test_the_line_names_the_index_phase_counts_rate_and_time_left() -> None:
    p = BuildProgress("edge", "facts", "adding", 2_500, 10_000, 5.0)
    assert line(p) == "edge space 'facts' adding   25%  2,500/10,000  500 rows/s  ETA 0:15"
    assert "1,000 rows/s  ETA 0:07" in line(p, since=2.5)  # the rate is the phase's
    assert line(BuildProgress("node", "v", "saving", 0, 1, 75.0)) == "node space 'v' saving  1:15"
    text = BuildProgress("node", None, "reading", 10, 10, 0.0)
    assert line(text).startswith("node text index reading  100%  10/10")


def test_a_bar_off_a_terminal_writes_nothing(tmp_path) -> None:
    with open(tmp_path / "log", "w") as fh:
        bar = ProgressBar(fh)
        bar(BuildProgress("node", "default", "adding", 1, 2, 1.0))
        bar.close()
    assert (tmp_path / "log").read_text() == ""
