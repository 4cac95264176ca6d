"""The lease: which process may have a store file open right now.

DuckDB lets one process open a file for writing, and while it has it open no other process may
open it at all (not even read-only); several processes may open it read-only together. So the
processes that share a store take turns, and the lease says whose turn it is. It is an advisory
OS lock (``flock``) on a small file beside the store:

* ``FILE.anatid-lease``: held exclusively by the process that has the store open for writing, or
  shared by processes that have it open read-only. It holds the writer's PID, for messages only.
* ``FILE.anatid-wait``: every process waiting for the lease holds it shared while it waits, so the
  holder can tell cheaply (one non-blocking lock attempt) that somebody wants the file.
* ``FILE.anatid-wait-background``: held instead by a process that runs in the background (the
  index builder, :func:`wait_in_background`). A holder hands the file to it only once its own
  operations have paused (``WATCH["background_idle"]``) or the background process has waited
  ``WATCH["background_every"]``: a builder that took the file whenever it asked made every
  operation of a busy writer pay a handover (bench_graphiti at 50k: an edge re-save 9 -> 60 ms).
  Made by the first background process only; holders look for it without making it.

The kernel drops ``flock`` locks when their process exits, however it exits (SIGKILL included), so
a dead holder never blocks the others and leaves nothing to clean up: the two files may stay on
disk, but their presence means nothing. ``flock`` works on Linux and macOS; not on Windows, and
not on network file systems that do not support it (NFS before Linux 2.6.12 emulates it badly).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time

#: Tunables of waiting for the lease, readable at a glance (seconds).
LEASE: dict[str, float] = {
    # How long a process waits for another to hand the file over before giving up.
    "timeout": 30.0,
    # Polling for a free lease: the first pause, doubling up to the longest one.
    "poll_first": 0.0002,
    "poll_max": 0.002,
    # After giving the file up, how long a process lets the waiter take it before taking it back
    # (flock is not fair: without this pause the giver would often win its own next turn).
    "yield_grace": 0.05,
    # A background waiter that has waited this long waits as any other (a holder that does not
    # know the background wait file, or never pauses, would otherwise keep it out for good).
    "background_patience": 10.0,
}

LEASE_SUFFIX = ".anatid-lease"
WAIT_SUFFIX = ".anatid-wait"
BACKGROUND_SUFFIX = ".anatid-wait-background"
#: Whether the leases this process makes wait as a background process (:func:`wait_in_background`).
_BACKGROUND = {"on": False}


def wait_in_background() -> None:
    """From now on, this process waits for a store file behind the other processes' work (the
    index builder calls it): see ``FILE.anatid-wait-background`` above."""
    _BACKGROUND["on"] = True


def _open_lock_file(path: str, *, read_only: bool) -> int | None:
    """The lock file's descriptor; None where it cannot be made (read-only directory)."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError:
        if not read_only:
            raise
    return _open_existing(path)  # a reader on a read-only medium: it may exist already


def _open_existing(path: str) -> int | None:
    """A lock file's descriptor if the file exists (never made here), else None. Opened
    without blocking: a FIFO planted under the name would hold a reading open forever."""
    try:
        return os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None


def _try_lock(fd: int, operation: int) -> bool:
    try:
        fcntl.flock(fd, operation | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _held_shared(fd: int | None) -> bool:
    """Whether some process holds the wait file ``fd`` shared: it waits (one non-blocking
    lock attempt)."""
    if fd is None:
        return False
    if _try_lock(fd, fcntl.LOCK_EX):
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    return True


class Lease:
    """One process's claim on a store file: exclusive for a writer, shared for readers."""

    def __init__(self, store_path: str, *, shared: bool) -> None:
        self.store_path = store_path
        self.shared = shared
        self.held = False
        self._gave_up_at: float | None = None
        self.background = _BACKGROUND["on"]
        self._lease_fd: int | None = None
        self._wait_fd: int | None = None
        self._background_fd: int | None = None
        self._lease_fd = _open_lock_file(store_path + LEASE_SUFFIX, read_only=shared)
        self._wait_fd = _open_lock_file(store_path + WAIT_SUFFIX, read_only=shared)
        if self.background:
            self._background_fd = _open_lock_file(store_path + BACKGROUND_SUFFIX, read_only=True)

    @property
    def enforced(self) -> bool:
        """False where the lock files could not be made (a reader on a read-only medium)."""
        return self._lease_fd is not None and self._wait_fd is not None

    # ------------------------------------------------------------------ taking and giving

    def acquire(self, timeout: float | None = None) -> bool:
        """Take the lease, waiting up to ``timeout`` seconds; False when the time ran out."""
        if self.held:
            return True
        if not self.enforced:
            self.held = True
            return True
        timeout = LEASE["timeout"] if timeout is None else timeout
        operation = fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX
        if not self._just_gave_up() and self._take(operation):
            return True
        return self._wait_for(operation, time.monotonic() + timeout)

    def _just_gave_up(self) -> bool:
        given = self._gave_up_at
        return given is not None and time.monotonic() - given < LEASE["yield_grace"]

    def _take(self, operation: int) -> bool:
        assert self._lease_fd is not None
        if not _try_lock(self._lease_fd, operation):
            return False
        self.held = True
        self._gave_up_at = None
        if not self.shared:
            self._write_holder()
        return True

    def _wait_for(self, operation: int, deadline: float) -> bool:
        assert self._lease_fd is not None and self._wait_fd is not None
        # "somebody waits": the holder hands over (when it pauses, for a background waiter)
        asking = self._background_fd if self.background else None
        patient_until = time.monotonic() + LEASE["background_patience"]
        fcntl.flock(asking if asking is not None else self._wait_fd, fcntl.LOCK_SH)
        try:
            pause = LEASE["poll_first"]
            while True:
                if asking is not None and time.monotonic() >= patient_until:
                    fcntl.flock(asking, fcntl.LOCK_UN)  # waited long enough: as anyone waits
                    asking = None
                    fcntl.flock(self._wait_fd, fcntl.LOCK_SH)
                if self._just_gave_up():
                    if not _try_lock(self._lease_fd, operation):
                        self._gave_up_at = None  # somebody else has it: our turn is next
                    else:
                        fcntl.flock(self._lease_fd, fcntl.LOCK_UN)  # free still: leave it a moment
                elif self._take(operation):
                    return True
                now = time.monotonic()
                if now >= deadline:
                    return False
                time.sleep(min(pause, deadline - now))
                pause = min(pause * 2, LEASE["poll_max"])
        finally:
            fcntl.flock(asking if asking is not None else self._wait_fd, fcntl.LOCK_UN)

    def release(self) -> None:
        """Give the lease up (the caller has closed its DuckDB connection first)."""
        if not self.held:
            return
        self.held = False
        self._gave_up_at = time.monotonic()
        if self._lease_fd is not None:
            fcntl.flock(self._lease_fd, fcntl.LOCK_UN)

    def others_waiting(self) -> bool:
        """Whether another process waits for this file (cheap: one non-blocking lock attempt)."""
        return _held_shared(self._wait_fd)

    def background_waiting(self) -> bool:
        """Whether a background process (the index builder) waits for this file."""
        if self._background_fd is None:  # made by the first background process: never here
            self._background_fd = _open_existing(self.store_path + BACKGROUND_SUFFIX)
        return _held_shared(self._background_fd)

    # ------------------------------------------------------------------ who holds it

    def _write_holder(self) -> None:
        assert self._lease_fd is not None
        with contextlib.suppress(OSError):
            os.ftruncate(self._lease_fd, 0)
            os.pwrite(self._lease_fd, f"{os.getpid()}\n".encode(), 0)

    def holder_pid(self) -> int | None:
        """The PID of the process that last took the lease for writing, if it is still alive."""
        if self._lease_fd is None:
            return None
        try:
            pid = int(os.pread(self._lease_fd, 32, 0).decode().strip() or 0)
            if pid <= 0 or pid == os.getpid():
                return None
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    def describe_holder(self) -> str:
        pid = self.holder_pid()
        return (
            f"process {pid}"
            if pid is not None
            else "another process (a reader, or one that just exited)"
        )

    def __del__(self) -> None:
        # A store dropped without close(): its lock must not outlive it.
        self.close()

    def close(self) -> None:
        self.release()
        for fd in (self._lease_fd, self._wait_fd, self._background_fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._lease_fd = self._wait_fd = self._background_fd = None


def lease_files(store_path: str) -> list[str]:
    """The lock files that sit beside a store file (for tools that copy or remove a store)."""
    return [store_path + s for s in (LEASE_SUFFIX, WAIT_SUFFIX, BACKGROUND_SUFFIX)]


__all__ = ["LEASE", "Lease", "lease_files", "wait_in_background"]
