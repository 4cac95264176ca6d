"""The background episode queue: one worker per group, episodes processed in arrival order.

``add_memory`` returns as soon as an episode is queued (as in Graphiti's MCP server); a worker per
group then runs ``Graphiti.add_episode`` for each of that group's episodes in turn, so two
episodes of one group never race while different groups proceed side by side.

Every queued episode is also written to a journal beside the memory file
(``<file>.mcp-queue/<pid>.jsonl``: one line when queued, one when saved or failed). If the
server dies with episodes still queued, the next server on that file finds them (the journal of a
process that no longer runs) and ``get_status`` lists them as ``interrupted``: acknowledged but
never saved, so the client knows to send them again. The journal holds names and groups, not
bodies. Each process writes only its own journal, so several servers on one file never write
the same journal; a journal is claimed with an atomic rename before it is read.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import stat
import sys
import uuid
from collections.abc import Awaitable, Callable
from contextlib import suppress
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from anatid_core import InvalidInput, check_output

from .responses import QueueReport

log = logging.getLogger("anatid_mcp")

#: How many failed / interrupted episodes the report (and the journal) keeps, newest last.
KEEP_FAILED = 100

Job = Callable[[], Awaitable[str | None]]


@dataclass
class Ticket:
    """One acknowledged episode and what became of it."""

    id: str
    group_id: str
    name: str
    queued_at: str
    state: str = "waiting"  # waiting -> processing -> done | failed; or interrupted
    episode_uuid: str | None = None
    error: str | None = None

    def public(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def _alive(pid: int) -> bool:
    if sys.platform == "win32":  # os.kill(pid, 0) would terminate the process on Windows
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return False
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Journal:
    """This process's journal file, and what earlier, dead processes left unfinished."""

    def __init__(self, store_path: str | None) -> None:
        self.dir = None if store_path is None else Path(store_path + ".mcp-queue")
        self.file = None if self.dir is None else self.dir / f"{os.getpid()}.jsonl"
        #: The journal's names and groups are as private as the memory: its files are no more
        #: open than the store file (a 0600 memory gets a 0700 folder of 0600 files).
        self.mode = 0o600 if store_path is None else _file_mode(store_path)
        if self.dir is not None and (self.dir.is_symlink() or self.dir.exists()):
            if not self.dir.is_dir() or self.dir.is_symlink():
                # Never write into a store, another file, or through a link (issue 32).
                check_output(self.dir, what="the episode journal folder")
                raise InvalidInput(
                    f"the episode journal folder {self.dir} is not a folder; move that file away"
                )

    def write(self, op: str, ticket: Ticket) -> None:
        if self.file is None:
            return
        line = json.dumps({"op": op, **ticket.public()}, ensure_ascii=False)
        fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, self.mode)
        with open(fd, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())  # an acknowledged episode must be on disk before the reply

    def recover(self) -> tuple[list[Ticket], list[Ticket]]:
        """Claim the journals of dead processes: (interrupted, failed) tickets, oldest first."""
        if self.dir is None:
            return [], []
        self.dir.mkdir(mode=_folder_mode(self.mode), parents=True, exist_ok=True)
        interrupted: list[Ticket] = []
        failed: list[Ticket] = []
        for path in sorted(self.dir.glob("*.jsonl")):
            stem = path.stem
            if not stem.isdigit() or int(stem) == os.getpid() or _alive(int(stem)):
                continue
            claimed = self.dir / f"{os.getpid()}.claim-{stem}"
            try:
                os.rename(path, claimed)
            except OSError:
                continue  # another server claimed it first
            i, f = _replay(claimed)
            interrupted += i
            failed += f
            claimed.unlink(missing_ok=True)
        interrupted, failed = interrupted[-KEEP_FAILED:], failed[-KEEP_FAILED:]
        for t in interrupted:
            self.write("interrupted", t)
        for t in failed:
            self.write("failed", t)
        return interrupted, failed


def _file_mode(store_path: str) -> int:
    try:
        return stat.S_IMODE(os.stat(store_path).st_mode) & 0o666
    except OSError:
        return 0o600  # the store is made after the journal: private until it exists


def _folder_mode(file_mode: int) -> int:
    """A folder mode that lets in exactly who may read the files (r -> r-x)."""
    return file_mode | ((file_mode & 0o444) >> 2)


def _replay(path: Path) -> tuple[list[Ticket], list[Ticket]]:
    tickets: dict[str, Ticket] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        log.warning("cannot read the episode journal %s: %s", path, exc)
        return [], []
    for line in lines:
        try:
            rec = json.loads(line)
            op = rec.pop("op")
            ticket = Ticket(**{k: v for k, v in rec.items() if k in Ticket.__dataclass_fields__})
        except (ValueError, KeyError, TypeError):
            continue  # a line cut short by the crash
        if op in ("queued", "interrupted"):
            ticket.state = "interrupted"
            tickets[ticket.id] = ticket
        elif op == "failed":
            ticket.state = "failed"
            tickets[ticket.id] = ticket
        elif op == "done":
            tickets.pop(ticket.id, None)
    return (
        [t for t in tickets.values() if t.state == "interrupted"],
        [t for t in tickets.values() if t.state == "failed"],
    )


class EpisodeQueue:
    """Per-group FIFO workers over ``Job`` callables that return the saved episode's uuid."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._queues: dict[str, asyncio.Queue[tuple[Ticket, Job]]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._open: dict[str, Ticket] = {}
        self.interrupted, self.failed = journal.recover()

    def groups(self) -> set[str]:
        """Groups with episodes waiting or being processed."""
        return {t.group_id for t in self._open.values()}

    async def submit(self, group_id: str, name: str, job: Job) -> Ticket:
        now = datetime.now(timezone.utc).isoformat()
        ticket = Ticket(uuid.uuid4().hex, group_id, name, now)
        await asyncio.to_thread(self._journal.write, "queued", ticket)
        self._open[ticket.id] = ticket
        queue = self._queues.setdefault(group_id, asyncio.Queue())
        queue.put_nowait((ticket, job))
        worker = self._workers.get(group_id)
        if worker is None or worker.done():
            self._workers[group_id] = asyncio.create_task(self._work(group_id))
        return ticket

    async def _work(self, group_id: str) -> None:
        queue = self._queues[group_id]
        while not queue.empty():
            ticket, job = queue.get_nowait()
            ticket.state = "processing"
            try:
                try:
                    ticket.episode_uuid = await job()
                    ticket.state = "done"
                except Exception as exc:  # one bad episode must not stop the group's queue
                    ticket.state, ticket.error = "failed", f"{type(exc).__name__}: {exc}"
                    log.error("episode %r of group %r failed: %s", ticket.name, group_id, exc)
                    self.failed = [*self.failed, ticket][-KEEP_FAILED:]
                # recorded before the episode counts as finished, so that drain() covers it
                await asyncio.to_thread(self._journal.write, ticket.state, ticket)
            finally:
                self._open.pop(ticket.id, None)
                queue.task_done()

    async def drain(self) -> None:
        """Wait until every queued episode has been processed (or has failed)."""
        for queue in list(self._queues.values()):
            await queue.join()

    async def cancel(self) -> None:
        """Stop the workers now; what they held stays in the journal as not processed."""
        for task in self._workers.values():
            task.cancel()
        for task in self._workers.values():
            with suppress(asyncio.CancelledError):
                await task

    def report(self) -> QueueReport:
        open_ = list(self._open.values())
        queued: dict[str, int] = {}
        for t in open_:
            queued[t.group_id] = queued.get(t.group_id, 0) + 1
        return QueueReport(
            queued=queued,
            processing=[t.public() for t in open_ if t.state == "processing"],
            waiting=[t.public() for t in open_ if t.state == "waiting"],
            failed=[t.public() for t in self.failed],
            interrupted=[t.public() for t in self.interrupted],
        )


__all__ = ["EpisodeQueue", "Journal", "Ticket"]
