"""What the exports to a server backend share: the journal beside the history, the history's
default place, and bringing the history back into a new file.

An export writes ``export.json`` into the history directory before it writes to the server and
marks it done at the end, so a rerun that finds a non-empty server can tell its own unfinished
work from somebody else's data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Protocol

from anatid_core import AnatidError, restore_timeline, store_files

from .errors import UnsupportedSource, VerificationFailed
from .history import read_history
from .report import MigrationReport

JOURNAL = "export.json"


class Described(Protocol):
    """A target that can name itself without its password."""

    def describe(self) -> str: ...


def default_history_dir(file: Path) -> Path:
    return file.with_name(file.name + ".history")


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
