"""Graphiti's deletes as erasures, and the complete erasure of an episode or a group (issue 15).

When a user deletes through Graphiti (``remove_episode``, ``clear_data``, ``Node.delete`` ...), they
mean it gone. So every host-level delete is, by default, an anatid erasure: every version of the
records, their postings and embeddings are purged with a receipt, and the file is compacted
before the call returns, so no byte of them is left in it. Updates and invalidations that
Graphiti's pipelines make (re-saves, edge invalidation) are writes, not deletes, and keep their
history as before. ``GraphitiDriver(audit_deletes=True)`` is the documented opt-in that turns
deletes back into ends of versions that ``as_of``/``history`` still read.

Everything here runs on a store worker thread (the functions take the :class:`Store`); the driver
awaits them through its runner.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from anatid_core import Cond, Edge, Erasure, Node, NotFound, Store

from . import mapping as m

#: What a host-level delete removes, chosen on the worker thread: node ids (their edges go with
#: them) and edge ids.
Targets = tuple[list[str], list[str]]
Select = Callable[[Store], Targets]


@dataclass(frozen=True)
class Removal:
    """One host-level delete: the records ``select`` names, or every record ever in ``groups``,
    or (``everything``) the whole store."""

    select: Select | None = None
    groups: list[str] | None = None
    everything: bool = False

    @classmethod
    def of(cls, select: Select) -> Removal:
        return cls(select=select)


# ---------------------------------------------------------------------------- host deletes


def end_versions(store: Store, removal: Removal) -> None:
    """The audit opt-in: the current versions end; history keeps them (``as_of`` reads them)."""
    with store.transaction():
        if removal.everything or removal.groups is not None:  # node deletes detach edges
            store.delete_where("node", groups=None if removal.everything else removal.groups)
            return
        assert removal.select is not None
        nodes, edges = removal.select(store)
        store.delete_edges(edges)
        store.delete_nodes(nodes)


def purge_removal(store: Store, removal: Removal) -> list[int]:
    """Purge every version of what the removal names, in one transaction; returns the ids of
    the receipts recorded (pending: the bytes go with the next compaction)."""
    with store.transaction():
        before = max((e.id for e in store.erasures(pending_only=True)), default=0)
        if removal.everything:
            store.purge_all()
        elif removal.groups is not None:
            # Every node ever in the groups, with its edges (Graphiti's clear_data detaches).
            store.purge_where("node", groups=removal.groups)
        else:
            assert removal.select is not None
            nodes, edges = removal.select(store)
            store.purge(nodes=nodes, edges=edges)
        return [e.id for e in store.erasures(pending_only=True) if e.id > before]


def erase_removal(store: Store, removal: Removal) -> list[int]:
    """Purge and compact: when this returns, no byte of the removed records is in the file.

    Nothing removed, nothing recorded and no compaction (``remove_episode`` often deletes an
    empty list of edges or nodes). The free space is checked first (``StorageError``, nothing
    written)."""
    _check_space(store)
    receipts = purge_removal(store, removal)
    if receipts:
        store.compact()
    return receipts


def _check_space(store: Store) -> None:
    """Refuse before writing anything when the compaction's copy might not fit."""
    store.check_compaction_space()


@dataclass
class Deferral:
    """An erasure sequence whose compaction waits for its last delete (``remove_episode``),
    valid in the one task that started it."""

    task: asyncio.Task[Any] | None
    pending: list[int] = field(default_factory=list)


#: Set while a task runs Graphiti's ``remove_episode`` (see :func:`start_episode_removal`).
EPISODE_REMOVAL: contextvars.ContextVar[Deferral | None] = contextvars.ContextVar(
    "anatid_graphiti_episode_removal", default=None
)


def start_episode_removal() -> None:
    """Called when the query only ``remove_episode`` sends arrives (its per-entity mention count,
    before any of its deletes). Its deletes of facts and orphaned entities then purge at once
    (gone from every read, receipt pending) and the episode's own delete, which always comes
    last, compacts once for all of them. The variable lives in the task's context, which
    ``remove_episode`` shares with the driver calls it awaits."""
    if current_deferral() is None:
        EPISODE_REMOVAL.set(Deferral(_task()))


def current_deferral() -> Deferral | None:
    """The deferral of this task (a child task that copied the context does not inherit it)."""
    deferral = EPISODE_REMOVAL.get()
    return deferral if deferral is not None and deferral.task is _task() else None


def end_episode_removal() -> Deferral | None:
    """The deferral in progress, if any, which ends here."""
    deferral = current_deferral()
    if EPISODE_REMOVAL.get() is not None:
        EPISODE_REMOVAL.set(None)
    return deferral


def _task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # no running loop
        return None


# --------------------------------------------------------------------- complete erasures


@dataclass(frozen=True)
class GraphitiErasure:
    """What ``GraphitiDriver.erase_episode`` / ``erase_group`` erased, and what may still mention it.

    ``receipts`` are the store's receipts (ids, number of versions, digest, ``state``: all
    "gone" when the call returns). ``kept_entities`` are entities that stay (mentioned elsewhere)
    but were linked to what was erased: their LLM-written summaries, current and past versions,
    may still mention the erased facts; regenerate them. ``kept_summaries`` are communities and
    sagas in the same position. ``updated_facts`` are facts other episodes also support: they
    stay, with this episode taken out of their ``episodes`` (a new version, as
    ``remove_episode`` does).
    """

    receipts: tuple[Erasure, ...]
    episodes: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    facts: tuple[str, ...] = ()
    kept_entities: tuple[str, ...] = ()
    kept_summaries: tuple[str, ...] = ()
    updated_facts: tuple[str, ...] = ()

    @property
    def physically_gone(self) -> bool:
        return all(r.physically_gone for r in self.receipts)


def _latest(store: Store, uuid: str, kind: str) -> Node | Edge | None:
    versions = store.history(uuid, kind=kind)  # type: ignore[arg-type]
    return versions[-1] if versions else None  # type: ignore[return-value]


def _mentioned(store: Store, episode: str, group: str) -> set[str]:
    """Every entity any version of the episode mentioned (a removed episode's edges included)."""
    current = store.find_edges(src=[episode], rels=[m.MENTIONS])
    found = {e.dst for e in current}
    if not current:  # ended (audit deletes): look through the group's history
        for v in store.versions("edge", groups=[group]):
            if isinstance(v, Edge) and v.rel == m.MENTIONS and v.src == episode:
                found.add(v.dst)
    return found


def _only_here(store: Store, entity: str, episode: str) -> bool:
    """Whether no other episode mentions the entity (Graphiti's orphan test)."""
    node = _latest(store, entity, "node")
    if node is None or m.ENTITY not in getattr(node, "labels", ()):
        return False
    mentions = store.edges_of([entity], direction="in", rels=[m.MENTIONS])
    return all(e.src == episode for e in mentions)


def _facts(store: Store, episode: Node) -> set[str]:
    """Facts that list the episode: in any version of its ``entity_edges``, or currently."""
    candidates = {
        str(u)
        for v in store.history(episode.id, kind="node")
        for u in v.props.get("entity_edges") or []
    }
    listed = store.find_edges(
        rels=[m.RELATES_TO], where=[[Cond("props.episodes", "contains", episode.id)]]
    )
    return candidates | {e.id for e in listed}


def _split_facts(store: Store, episode: str, facts: Iterable[str]) -> tuple[list[str], list[Edge]]:
    """(facts only this episode supports, current facts others support too), judged by each
    fact's latest version listing the episode, as ``remove_episode`` judges them."""
    erase: list[str] = []
    shared: list[Edge] = []
    for uuid in sorted(facts):
        latest = _latest(store, uuid, "edge")
        listed = latest.props.get("episodes") or [] if isinstance(latest, Edge) else []
        if episode not in listed:
            continue
        if all(e == episode for e in listed):
            erase.append(uuid)
        elif store.get_edge(uuid) is not None:
            shared.append(latest)  # type: ignore[arg-type]
    return erase, shared


def _without_episode(store: Store, facts: list[Edge], episode: str) -> None:
    """Re-save shared facts without the episode (as ``remove_episode`` does)."""
    if not facts:
        return
    vectors = store.get_embeddings([f.id for f in facts], kind="edge")
    models = [m.from_edge(f, vectors.get(f.id)) for f in facts]
    for model in models:
        model.episodes = [e for e in model.episodes if e != episode]  # type: ignore[attr-defined]
    store.upsert_edges([m.to_edge(x) for x in models], missing_endpoints="skip")


def _kept(store: Store, receipts: Iterable[Erasure]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The receipts' kept neighbours that hold LLM-written text: (entities, communities+sagas)."""
    ids = sorted({i for r in receipts for i in r.kept_neighbour_ids})
    entities: list[str] = []
    summaries: list[str] = []
    for uuid in ids:
        node = _latest(store, uuid, "node")
        labels = getattr(node, "labels", ())
        if m.ENTITY in labels:
            entities.append(uuid)
        elif m.COMMUNITY in labels or m.SAGA in labels:
            summaries.append(uuid)
    return tuple(entities), tuple(summaries)


def erase_episode(store: Store, uuid: str) -> GraphitiErasure:
    """The episode, the facts only it supports and the entities only it mentions, every version
    and embedding, gone from the file (one purge, one compaction)."""
    _check_space(store)
    with store.transaction():
        episode = _latest(store, uuid, "node")
        if not isinstance(episode, Node) or m.EPISODIC not in episode.labels:
            raise NotFound(f"no episode {uuid!r} in {store.path}", id=uuid)
        entities = sorted(
            e for e in _mentioned(store, uuid, episode.group) if _only_here(store, e, uuid)
        )
        facts, shared = _split_facts(store, uuid, _facts(store, episode))
        _without_episode(store, shared, uuid)
        receipt = store.purge(nodes=[uuid, *entities], edges=facts)
    store.compact()
    done = store.erasure(receipt.id)
    kept_entities, kept_summaries = _kept(store, [done])
    return GraphitiErasure(
        (done,),
        episodes=(uuid,),
        entities=tuple(entities),
        facts=tuple(facts),
        kept_entities=kept_entities,
        kept_summaries=kept_summaries,
        updated_facts=tuple(f.id for f in shared),
    )


def erase_group(store: Store, group_id: str) -> GraphitiErasure:
    """Every node and edge ever in the group, every version and embedding, gone from the file."""
    _check_space(store)
    with store.transaction():
        before = {e.id for e in store.erasures(pending_only=True)}
        nodes = store.versions("node", groups=[group_id])
        episodes = sorted({n.id for n in nodes if m.EPISODIC in getattr(n, "labels", ())})
        entities = sorted({n.id for n in nodes if m.ENTITY in getattr(n, "labels", ())})
        facts = sorted(
            {
                e.id
                for e in store.versions("edge", groups=[group_id])
                if getattr(e, "rel", "") == m.RELATES_TO
            }
        )
        store.purge_where("node", groups=[group_id])
        store.purge_where("edge", groups=[group_id])
        new = [e.id for e in store.erasures(pending_only=True) if e.id not in before]
    if new:
        store.compact()
    done = tuple(store.erasure(i) for i in new)
    kept_entities, kept_summaries = _kept(store, done)
    return GraphitiErasure(
        done,
        episodes=tuple(episodes),
        entities=tuple(entities),
        facts=tuple(facts),
        kept_entities=kept_entities,
        kept_summaries=kept_summaries,
    )


__all__ = [
    "EPISODE_REMOVAL",
    "Deferral",
    "GraphitiErasure",
    "Select",
    "Targets",
    "current_deferral",
    "end_episode_removal",
    "Removal",
    "end_versions",
    "erase_episode",
    "erase_group",
    "erase_removal",
    "purge_removal",
    "start_episode_removal",
]
