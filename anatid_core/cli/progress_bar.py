"""The progress line of ``anatid index`` (issue 41): on a terminal, one line on stderr redrawn
with a carriage return as each index builds (its name, phase, rows done of total, rows a second
and the time left), as pip and rich draw theirs; nothing at all when stderr is not a terminal
(a pipe, a file, a log), so scripts see only the command's output."""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from anatid_core import BuildProgress


class ProgressBar:
    """A ``progress`` callback for :meth:`Store.build_indexes` that draws on ``stream``."""

    def __init__(self, stream: TextIO | None = None, *, force: bool = False) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.on = force or _is_terminal(self.stream)
        self.width = 0  # of the line drawn last, to blank what a shorter one leaves
        self.phase: tuple[str, str | None, str] | None = None
        self.phase_started = 0.0  # the build's seconds when this phase began

    def __call__(self, p: BuildProgress) -> None:
        if not self.on:
            return
        if (p.kind, p.space, p.phase) != self.phase:
            self.phase, self.phase_started = (p.kind, p.space, p.phase), p.seconds
        width = shutil.get_terminal_size((100, 20)).columns - 1
        self.draw(line(p, width, since=self.phase_started))

    def close(self) -> None:
        """End the line drawn last (the command's own output starts on a fresh line)."""
        if self.on and self.width:
            self.stream.write("\n")
            self.stream.flush()
            self.width = 0

    def draw(self, text: str) -> None:
        pad = " " * max(0, self.width - len(text))
        self.stream.write(f"\r{text}{pad}")
        self.stream.flush()
        self.width = len(text)


def line(p: BuildProgress, width: int = 100, *, since: float = 0.0) -> str:
    """One progress line: ``node space 'default' adding  12% 12,288/100,000  ...``; the rate
    is over the phase, begun at ``since`` seconds into the build. A phase of one step (saving,
    writing) shows its name and the time only."""
    what = f"{p.kind} text index" if p.space is None else f"{p.kind} space {p.space!r}"
    if p.total <= 1:
        return f"{what} {p.phase}  {_clock(p.seconds)}"[: max(width, 1)]
    spent = p.seconds - since
    rate = p.done / spent if spent > 0 else 0.0
    left = (p.total - p.done) / rate if rate > 0 and p.done < p.total else None
    parts = [
        f"{what} {p.phase}",
        f"{p.done / p.total:4.0%}",
        f"{p.done:,}/{p.total:,}",
        f"{rate:,.0f} rows/s" if rate else "",
        f"ETA {_clock(left)}" if left is not None else _clock(p.seconds),
    ]
    text = "  ".join(x for x in parts if x)
    return text[:width] if width > 0 else text


def _clock(seconds: float) -> str:
    s = int(seconds)
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or not a file
        return False


__all__ = ["ProgressBar", "line"]
