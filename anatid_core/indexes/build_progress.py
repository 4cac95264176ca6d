"""Reporting how far an index build has got (issue 41): a :class:`Reporter` per build hands
:class:`~anatid_core.base.model.BuildProgress` to the caller's callback, at most
``PROGRESS["per_second"]`` times a second within a phase, plus the first and last report of
each phase. The callback runs on the caller's thread, in the builds that run in the calling
process; an exception it raises ends the build (nothing is published) and propagates.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..base.model import BuildProgress, Kind

#: Reports per second at most, within one phase (a phase's first and last always go out).
PROGRESS: dict[str, float] = {"per_second": 5.0}

Progress = Callable[[BuildProgress], None]


class Reporter:
    """The reports of one build. With no callback, every call is a no-op."""

    def __init__(self, progress: Progress | None, kind: Kind, space: str | None) -> None:
        self.progress = progress
        self.kind: Kind = kind
        self.space = space
        self.started = time.perf_counter()
        self._phase = ""
        self._done = -1
        self._last = float("-inf")

    def __call__(self, phase: str, done: int, total: int, *, final: bool = False) -> None:
        """Report ``done`` of ``total`` rows in ``phase``, unless one went out less than
        ``1 / per_second`` seconds ago in the same phase (``final``: it goes out anyway)."""
        if self.progress is None:
            return
        now = time.perf_counter()
        new_phase = phase != self._phase
        if not (new_phase or final) and now - self._last < 1.0 / PROGRESS["per_second"]:
            return
        if not new_phase and done == self._done:
            return  # already said
        done = max(done, 0 if new_phase else self._done)  # never backwards within a phase
        self._phase, self._done, self._last = phase, done, now
        self.progress(
            BuildProgress(
                kind=self.kind,
                space=self.space,
                phase=phase,
                done=done,
                total=max(total, done),
                seconds=now - self.started,
            )
        )


__all__ = ["PROGRESS", "Progress", "Reporter"]
