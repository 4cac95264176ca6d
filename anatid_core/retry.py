"""Bounded retries of a retryable ``WriteConflict``, for every caller of the store.

A write that waited longer than the store's lock timeout (another thread or process held the
store) fails with ``WriteConflict(retryable=True)``: nothing of it was written, so running it again
is safe. Callers retry a bounded number of times with doubling delays, then let the error through.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from .base.errors import WriteConflict

T = TypeVar("T")

#: Attempts in all, and the first delay in seconds (doubling on each further attempt).
RETRY: dict[str, float] = {"attempts": 4, "first_delay": 0.05}


def retry_delay(exc: BaseException, attempt: int) -> float | None:
    """Seconds to wait before try ``attempt + 1`` after ``exc`` failed try ``attempt`` (0-based),
    or None when ``exc`` is not worth retrying or the attempts are used up."""
    if isinstance(exc, WriteConflict) and exc.retryable and attempt + 1 < RETRY["attempts"]:
        return RETRY["first_delay"] * 2**attempt
    return None


def with_retries(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``, run again after a retryable ``WriteConflict`` as :data:`RETRY` allows."""
    attempt = 0
    while True:
        try:
            return work(*args)
        except WriteConflict as exc:
            delay = retry_delay(exc, attempt)
            if delay is None:
                raise
            time.sleep(delay)
            attempt += 1
