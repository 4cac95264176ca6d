"""Handing the file over between processes: closing the store while the watcher thread hands
the file over (at interpreter exit a daemon thread inside DuckDB aborts the process)."""

from __future__ import annotations

import threading
import time

from anatid_core.storage import turns as turns_module
from anatid_core.storage.turns import FileTurns


class _Lease:
    """A lease some other process waits for."""

    store_path = "fake.duckdb"

    def __init__(self) -> None:
        self.held = True

    def acquire(self, timeout: float | None = None) -> bool:
        self.held = True
        return True

    def release(self) -> None:
        self.held = False

    def others_waiting(self) -> bool:
        return True

    def close(self) -> None:
        self.held = False


def test_stop_waits_for_the_handover_the_watcher_has_under_way(monkeypatch) -> None:
    monkeypatch.setitem(turns_module.WATCH, "min_hold", 0.0)
    in_close, finish = threading.Event(), threading.Event()
    events: list[str] = []

    def close_file() -> None:  # the watcher's handover, inside DuckDB for a while
        in_close.set()
        finish.wait(10)
        events.append("handover closed the file")

    turns = FileTurns(
        _Lease(),  # type: ignore[arg-type]
        open_file=lambda: None,
        close_file=close_file,
        catch_up=lambda: None,
    )
    assert in_close.wait(10), "the watcher never handed the file over"
    stopper = threading.Thread(target=lambda: (turns.stop(), events.append("stop returned")))
    stopper.start()
    time.sleep(0.2)
    assert events == []  # stop() is still waiting for the handover
    finish.set()
    stopper.join(10)
    assert events == ["handover closed the file", "stop returned"]
    turns.close()
