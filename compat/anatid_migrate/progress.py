"""Progress display: rich bars on a terminal, plain lines otherwise (logs, CI, pipes)."""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol, TextIO


class Progress(Protocol):
    def phase(self, name: str, total: int) -> None: ...
    def advance(self, n: int) -> None: ...
    def close(self) -> None: ...


class Silent:
    def phase(self, name: str, total: int) -> None:
        pass

    def advance(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


class PlainLines:
    """One line per phase start, then one per ~10% and at the end of each phase."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.name, self.total, self.done, self.next_mark = "", 0, 0, 0
        self.started = time.monotonic()

    def phase(self, name: str, total: int) -> None:
        self._finish()
        self.name, self.total, self.done = name, total, 0
        self.next_mark = max(1, total // 10)
        self.started = time.monotonic()
        print(f"{name}: {total} rows", file=self.out, flush=True)

    def advance(self, n: int) -> None:
        self.done += n
        if self.total and self.done >= self.next_mark and self.done < self.total:
            pct = 100 * self.done // self.total
            print(f"{self.name}: {self.done}/{self.total} ({pct}%)", file=self.out, flush=True)
            self.next_mark = self.done + max(1, self.total // 10)

    def _finish(self) -> None:
        if self.name:
            took = time.monotonic() - self.started
            print(f"{self.name}: done, {self.done} rows in {took:.1f} s", file=self.out, flush=True)
            self.name = ""

    def close(self) -> None:
        self._finish()


class RichBars:
    def __init__(self) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import (
            Progress as RichProgress,
        )

        self._bars: Any = RichProgress(
            TextColumn("{task.description:<10}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            transient=False,
        )
        self._bars.start()
        self._task: Any = None

    def phase(self, name: str, total: int) -> None:
        if self._task is not None:
            self._bars.update(self._task, completed=self._bars.tasks[-1].total)
        self._task = self._bars.add_task(name, total=max(total, 1))

    def advance(self, n: int) -> None:
        if self._task is not None:
            self._bars.advance(self._task, n)

    def close(self) -> None:
        self._bars.stop()


def for_stream(out: TextIO = sys.stderr) -> Progress:
    """Rich bars when ``out`` is a terminal and rich is installed, else plain lines."""
    if out.isatty():
        try:
            return RichBars()
        except ImportError:
            pass
    return PlainLines(out)
