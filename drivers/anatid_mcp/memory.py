"""``Memory``: one anatid file opened through ``GraphitiDriver``, Graphiti on it, and the queue.

The tools are thin: they check their arguments (:mod:`anatid_mcp.inputs`), call Graphiti or the
driver through this object, and shape the answer (:mod:`anatid_mcp.results`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from anatid_graphiti import GraphitiDriver
from graphiti_core import Graphiti
from pydantic import BaseModel, create_model

from .clients import Clients, build_clients, stand_ins
from .config import Config
from .defaults import MAX_BODY_CHARS, default_path
from .inputs import BadInput
from .queue import EpisodeQueue, Journal

log = logging.getLogger("anatid_mcp")


@dataclass(frozen=True)
class Options:
    """How the server was started (the command line, after the configuration file)."""

    path: str
    read_only: bool = False
    #: Audit mode: the delete tools keep what they delete in history (issue 15: a user's delete
    #: is an erasure unless they ask otherwise).
    keep_deleted: bool = False
    max_body: int = MAX_BODY_CHARS
    #: Graphiti's ``max_coroutines``: concurrent LLM work per episode (``$SEMAPHORE_LIMIT``, as
    #: in Graphiti's server; lower it when a provider answers 429).
    concurrency: int = 10


def _doc_model(name: str, description: str) -> type[BaseModel]:
    # A type with no fields whose docstring guides extraction: the YAML form of a custom type.
    model = create_model(name)
    model.__doc__ = description
    return model


class Memory:
    """The server's state; ``await Memory.open(...)``, then ``await memory.close()``."""

    def __init__(
        self, config: Config, options: Options, driver: GraphitiDriver, clients: Clients
    ) -> None:
        self.config = config
        self.options = options
        self.driver = driver
        self.clients = clients
        self.graphiti = Graphiti(
            graph_driver=driver, max_coroutines=options.concurrency, **stand_ins(clients)
        )
        g = config.graphiti
        self.entity_types = {
            t.name: _doc_model(t.name, t.description) for t in g.entity_types
        } or None
        self.edge_types = {t.name: _doc_model(t.name, t.description) for t in g.edge_types} or None
        self.edge_type_map = {
            (e.source, e.target): list(e.edge_types) for e in g.edge_type_map
        } or None
        # A read-only server writes nothing, not even beside the file: it keeps no journal.
        keep = options.path != ":memory:" and not options.read_only
        journal = Journal(str(Path(options.path).resolve()) if keep else None)
        self.queue = EpisodeQueue(journal)
        self._known: set[str] = set()

    @classmethod
    async def open(cls, config: Config, options: Options) -> Memory:
        path = options.path
        if path != ":memory:":
            if options.read_only and not Path(path).exists():
                raise FileNotFoundError(
                    f"{path} does not exist: --read-only opens an existing memory file"
                )
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # A delete tool erases for good, as every host delete does; --keep-deleted keeps history.
        driver = GraphitiDriver(
            path, read_only=options.read_only, audit_deletes=options.keep_deleted
        )
        memory = cls(config, options, driver, build_clients(config))
        if not options.read_only:
            await memory.graphiti.build_indices_and_constraints()
        return memory

    async def close(self, *, drain: bool = True) -> None:
        """Close the file, after the queued episodes are processed (``drain``) or abandoned."""
        try:
            if drain:
                await self.queue.drain()
        finally:
            await self.queue.cancel()
            await self.driver.close()

    @property
    def default_group(self) -> str:
        return self.config.graphiti.group_id

    def groups_or_default(self, group_ids: list[str] | None) -> list[str]:
        if group_ids is not None:
            return group_ids
        return [self.default_group] if self.default_group else []

    async def known_groups(self, group_ids: list[str]) -> None:
        """Raise :class:`BadInput` naming any group that holds nothing and has nothing queued."""
        unknown = [
            g for g in group_ids if g not in self.queue.groups() and not await self._holds(g)
        ]
        if unknown:
            raise BadInput(
                f"unknown group_id(s) {', '.join(repr(g) for g in unknown)}: nothing was ever "
                "stored in them (get_episodes without group_ids lists the default group)"
            )

    async def _holds(self, group_id: str) -> bool:
        # Ever stored, history included: a cleared group is still one the client knows. Only
        # a purge forgets history, and this server never purges, so a yes is kept.
        if group_id in self._known:
            return True
        store = self.driver.store
        if await asyncio.to_thread(store.versions, "node", groups=[group_id], limit=1):
            self._known.add(group_id)
            return True
        return False

    def at(self, as_of: datetime | None) -> GraphitiDriver:
        """The driver, or a read-only view of what the memory knew at ``as_of``."""
        return self.driver if as_of is None else self.driver.as_of(as_of)

    def add_episode_kwargs(self) -> dict[str, Any]:
        return {
            "entity_types": self.entity_types,
            "edge_types": self.edge_types,
            "edge_type_map": self.edge_type_map,
        }


__all__ = ["Memory", "Options", "default_path"]
