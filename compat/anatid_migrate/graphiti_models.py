"""Graphiti's models of one group, read and written through any Graphiti ``GraphDriver``.

Reading uses Graphiti's own getters (``EntityNode.get_by_group_ids(..., with_embeddings=True)``
and friends, paged by ``uuid_cursor``); writing uses Graphiti's own bulk save
(``add_nodes_and_edges_bulk``) for episodes, entities, facts and MENTIONS edges, and the models'
``save`` for the rest. Both are MERGE by uuid on every Graphiti backend, so writing a page twice
leaves one record: an interrupted copy is completed by running it again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any

from graphiti_core.driver.driver import GraphProvider
from graphiti_core.edges import (
    CommunityEdge,
    EntityEdge,
    EpisodicEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.embedder.client import EmbedderClient
from graphiti_core.errors import EdgeNotFoundError, GroupsEdgesNotFoundError, NodeNotFoundError
from graphiti_core.nodes import CommunityNode, EntityNode, EpisodicNode, SagaNode
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk

from anatid_core import Store

from .errors import UnsupportedValue
from .report import Tally
from .vectors import vector_digest

#: Records per getter call and per bulk save.
PAGE = 500
#: Concurrent ``save`` calls for the types without a bulk path.
SAVE_CONCURRENCY = 16


@dataclass(frozen=True)
class ModelType:
    kind: str  # the name the report uses (as in the Kuzu import)
    cls: Any
    pattern: str  # Graphiti's own pattern for the record, ``x`` bound to it
    embedding: str | None = None  # the model field holding its vector
    bulk: str | None = None  # its argument of add_nodes_and_edges_bulk, if it has one
    # The pattern that finds a page of records by uuid, if not ``pattern``: anchored on
    # labelled end nodes, FalkorDB's planner looks the uuids up once per end node (quadratic).
    by_uuid: str | None = None


#: In write order: nodes before the edges that MATCH them.
TYPES: tuple[ModelType, ...] = (
    ModelType("episode", EpisodicNode, "(x:Episodic)", bulk="episodic_nodes"),
    ModelType("entity", EntityNode, "(x:Entity)", "name_embedding", bulk="entity_nodes"),
    ModelType("community", CommunityNode, "(x:Community)", "name_embedding"),
    ModelType("saga", SagaNode, "(x:Saga)"),
    ModelType("mentions", EpisodicEdge, "(:Episodic)-[x:MENTIONS]->(:Entity)",
              bulk="episodic_edges"),
    ModelType("fact", EntityEdge, "(:Entity)-[x:RELATES_TO]->(:Entity)", "fact_embedding",
              bulk="entity_edges", by_uuid="()-[x:RELATES_TO]->()"),
    ModelType("has_member", CommunityEdge, "(:Community)-[x:HAS_MEMBER]->()"),
    ModelType("has_episode", HasEpisodeEdge, "(:Saga)-[x:HAS_EPISODE]->(:Episodic)"),
    ModelType("next_episode", NextEpisodeEdge, "(:Episodic)-[x:NEXT_EPISODE]->(:Episodic)"),
)  # fmt: skip


#: Servers that cannot hold an entity, community or fact without its vector. Graphiti writes
#: a vector on Neo4j with ``db.create.setNodeVectorProperty`` / ``setRelationshipVectorProperty``
#: in its save and its bulk save alike, and Neo4j's procedures refuse a null one ("'vector' must
#: not be null"); Graphiti never meets it, as its add paths embed every record first. FalkorDB's
#: ``vecf32(null)`` is null, so the record is stored with no vector property.
REFUSES_MISSING_VECTOR = frozenset({GraphProvider.NEO4J})


class NoEmbedder(EmbedderClient):
    """Handed to the bulk save, which embeds a model whose vector is missing before writing it:
    a copy moves embeddings and never computes one, so this embedder gives nothing back and the
    model stays without. The bulk save then writes it as it writes every other model."""

    async def create(self, input_data: Any) -> Any:
        return None

    async def create_batch(self, input_data_list: list[str]) -> Any:
        return [None for _ in input_data_list]


async def read_pages(
    driver: Any, t: ModelType, group: str, *, by_listing: bool = False
) -> AsyncIterator[list[Any]]:
    """Every model of type ``t`` in ``group``, a page at a time, embeddings loaded.

    ``by_listing`` is for server backends: Graphiti's ``uuid_cursor`` paging cannot be trusted
    on FalkorDB (its string ``<`` disagrees with its ``ORDER BY``, so pages overlap), so the
    group's uuids are listed first and read with Graphiti's ``get_by_uuids``, a page at a time.
    """
    pages = _listed_pages(driver, t, group) if by_listing else _cursor_pages(driver, t, group)
    async for page in pages:
        if t.embedding is not None:
            if by_listing:
                await _page_embeddings(driver, t, page)
            else:
                _store_embeddings(driver, t, page)
            await _load_embeddings(driver, t, page)
        yield page


async def _page_embeddings(driver: Any, t: ModelType, page: Sequence[Any]) -> None:
    """A page's vectors in one query, in the shape Graphiti's own getters return them
    (``x.name_embedding AS ...``): one ``load_*_embedding`` per record costs a scan each on
    FalkorDB, whose relationship properties have no index (O(n^2) for the facts). The uuids
    are those Graphiti's getter returned for ``t``, so ``t.by_uuid`` need not repeat its end
    labels."""
    records, _, _ = await driver.execute_query(
        f"MATCH {t.by_uuid or t.pattern} WHERE x.uuid IN $uuids RETURN x.uuid AS uuid, "
        f"x.{t.embedding} AS embedding",
        uuids=[m.uuid for m in page],
        routing_="r",
    )
    found = {str(r["uuid"]): r["embedding"] for r in records}
    for m in page:
        vec = found.get(m.uuid)
        if getattr(m, t.embedding or "") is None and vec is not None:
            setattr(m, t.embedding or "", [float(x) for x in vec])


def _store_embeddings(driver: Any, t: ModelType, page: Sequence[Any]) -> None:
    """On GraphitiDriver, a page's vectors from its store in one read (the getters it answers
    through ``graph_operations_interface`` ignore ``with_embeddings``)."""
    store = getattr(driver, "store", None)
    if not isinstance(store, Store):
        return
    kind = "edge" if t.cls is EntityEdge else "node"
    vectors = store.get_embedding_arrays([m.uuid for m in page], kind=kind)
    for m in page:
        vec = vectors.get(m.uuid)
        if getattr(m, t.embedding or "") is None and vec is not None:
            setattr(m, t.embedding or "", vec.tolist())


async def _cursor_pages(driver: Any, t: ModelType, group: str) -> AsyncIterator[list[Any]]:
    cursor: str | None = None
    while True:
        kwargs: dict[str, Any] = {"limit": PAGE, "uuid_cursor": cursor}
        if t.cls in (EntityNode, EntityEdge):
            kwargs["with_embeddings"] = True
        try:
            page = await t.cls.get_by_group_ids(driver, [group], **kwargs)
        except GroupsEdgesNotFoundError:
            page = []  # EpisodicEdge's getter raises where the others return nothing
        if not page:
            return
        yield page
        if len(page) < PAGE:
            return
        cursor = min(m.uuid for m in page)  # Graphiti pages by uuid, descending


async def _listed_pages(driver: Any, t: ModelType, group: str) -> AsyncIterator[list[Any]]:
    # Graphiti's get_by_uuids of an edge type is anchored on its labelled end nodes, which
    # FalkorDB plans as one lookup per end node per uuid (quadratic): 28 s a page of facts at
    # 10k. The two edge types with many records are read through getters anchored otherwise.
    if t.cls is EntityEdge:
        pages = _facts_by_source(driver, t, group)
    elif t.cls is EpisodicEdge:
        pages = _mentions_at_once(driver, group)
    else:
        pages = _pages_by_uuid(driver, t, group)
    async for page in pages:
        yield page


async def _pages_by_uuid(driver: Any, t: ModelType, group: str) -> AsyncIterator[list[Any]]:
    records, _, _ = await driver.execute_query(
        f"MATCH {t.pattern} WHERE x.group_id = $group_id RETURN x.uuid AS uuid",
        group_id=group,
        routing_="r",
    )
    uuids = sorted({str(r["uuid"]) for r in records})
    for lo in range(0, len(uuids), PAGE):
        page = await t.cls.get_by_uuids(driver, uuids[lo : lo + PAGE])
        if page:
            yield page


async def _facts_by_source(driver: Any, t: ModelType, group: str) -> AsyncIterator[list[Any]]:
    """The group's facts through Graphiti's ``EntityEdge.get_by_node_uuid`` (an index lookup
    of the node, then its edges), once per source entity, a page of sources at a time; each
    call returns the node's facts both ways, so a fact is kept where it is its source's (a
    loop, which may come back twice, once)."""
    records, _, _ = await driver.execute_query(
        f"MATCH {t.pattern} WHERE x.group_id = $group_id "
        "RETURN x.uuid AS uuid, startNode(x).uuid AS source",
        group_id=group,
        routing_="r",
    )
    wanted: dict[str, set[str]] = {}
    for r in records:
        wanted.setdefault(str(r["source"]), set()).add(str(r["uuid"]))
    limit = asyncio.Semaphore(SAVE_CONCURRENCY)

    async def facts_of(node: str) -> list[Any]:
        async with limit:
            found = await EntityEdge.get_by_node_uuid(driver, node)
        out = [e for e in found if e.source_node_uuid == node and e.uuid in wanted[node]]
        loops = {e.uuid: e for e in out if e.target_node_uuid == node}
        return [e for e in out if e.target_node_uuid != node] + list(loops.values())

    sources = sorted(wanted)
    for lo in range(0, len(sources), PAGE):
        found = await asyncio.gather(*(facts_of(n) for n in sources[lo : lo + PAGE]))
        page = [e for facts in found for e in facts]
        if page:
            yield page


async def _mentions_at_once(driver: Any, group: str) -> AsyncIterator[list[Any]]:
    """The group's MENTIONS edges in one call of Graphiti's ``EpisodicEdge.get_by_group_ids``
    (no cursor: its paging cannot be trusted on FalkorDB, see :func:`read_pages`), handed on
    a page at a time. They carry no vector, so the whole group is small."""
    try:
        edges = await EpisodicEdge.get_by_group_ids(driver, [group])
    except GroupsEdgesNotFoundError:
        return
    for lo in range(0, len(edges), PAGE):
        yield edges[lo : lo + PAGE]


async def _load_embeddings(driver: Any, t: ModelType, page: Sequence[Any]) -> None:
    """Fill any vector still missing with Graphiti's own per-record loaders (a record stored
    without one stays without)."""
    missing = [m for m in page if getattr(m, t.embedding or "") is None]
    limit = asyncio.Semaphore(SAVE_CONCURRENCY)

    async def load(model: Any) -> None:
        async with limit:
            try:
                if isinstance(model, EntityEdge):
                    await model.load_fact_embedding(driver)
                else:
                    await model.load_name_embedding(driver)
            except (NodeNotFoundError, EdgeNotFoundError):
                pass  # stored without one: nothing to load

    await asyncio.gather(*(load(m) for m in missing))


async def write_page(
    driver: Any, t: ModelType, page: Sequence[Any], *, keep_label_order: bool = False
) -> None:
    """Save ``page`` through ``driver``: Graphiti's bulk save where it has one (the path
    ``add_episode`` takes), else each model's ``save``. A model without its vector takes the bulk
    save too, given :class:`NoEmbedder`: ``EntityEdge.save`` stores a fact's ends as properties
    ``source_uuid`` and ``target_uuid``, which Graphiti reads back from FalkorDB and Neo4j as
    attributes, and verification failed (issue 32). With ``keep_label_order``, an entity with
    labels besides ``Entity`` goes through ``save``: the bulk save passes labels through a
    ``set``, whose order changes from one process to the next."""

    def bulk_saves(m: Any) -> bool:
        return not (keep_label_order and len(set(getattr(m, "labels", None) or [])) > 1)

    if t.bulk is not None:
        bulk = [m for m in page if bulk_saves(m)]
        lists: dict[str, list[Any]] = {
            "episodic_nodes": [],
            "episodic_edges": [],
            "entity_nodes": [],
            "entity_edges": [],
        }
        lists[t.bulk] = bulk
        if bulk:
            await add_nodes_and_edges_bulk(driver, embedder=NoEmbedder(), **lists)
        if len(bulk) == len(page):
            return
        page = [m for m in page if not bulk_saves(m)]
    limit = asyncio.Semaphore(SAVE_CONCURRENCY)

    async def save(model: Any) -> None:
        async with limit:
            await model.save(driver)

    await asyncio.gather(*(save(m) for m in page))


def _primitive(value: Any) -> bool:
    """A value a server property can hold: None (no property, see :func:`without_nulls`), a
    string, number or boolean, or an array of them (with no null inside: both servers refuse
    one, FalkorDB with "Property values can only be of primitive types")."""
    if isinstance(value, list):
        return all(isinstance(v, str | int | float | bool) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


def check_storable(t: ModelType, page: Sequence[Any], provider: GraphProvider | None) -> None:
    """Raise before writing a page the server (``provider``) cannot hold. Graphiti writes custom
    attributes as properties of the node or edge, and FalkorDB and Neo4j store only primitive
    values and arrays of them there: a map, a list of maps or a list holding None would fail
    mid-write. So would a missing vector on Neo4j (see :data:`REFUSES_MISSING_VECTOR`)."""
    if provider in REFUSES_MISSING_VECTOR:
        _check_vectors(t, page, provider)
    for model in page:
        for key, value in (getattr(model, "attributes", None) or {}).items():
            if not _primitive(value):
                holds_null = isinstance(value, list) and any(v is None for v in value)
                what = "a list holding None" if holds_null else type(value).__name__
                raise UnsupportedValue(
                    f"{t.kind} {model.uuid} ({getattr(model, 'name', '')!r}): attribute {key!r} "
                    f"is {what} {value!r:.80}. Graphiti stores attributes as server "
                    "properties, which hold only strings, numbers, booleans and arrays of them "
                    "(no null inside an array): flatten or JSON-encode it in the source, then "
                    "export again."
                )


def _check_vectors(t: ModelType, page: Sequence[Any], provider: GraphProvider | None) -> None:
    if t.embedding is None:
        return
    for model in page:
        if getattr(model, t.embedding) is None:
            raise UnsupportedValue(
                f"{t.kind} {model.uuid} ({getattr(model, 'name', '')!r}) has no {t.embedding}. "
                f"Graphiti writes it on {getattr(provider, 'value', provider)} with a vector "
                "procedure that refuses a missing vector, and the export never computes one: "
                "embed it in the source (Graphiti's generate_embedding or "
                "generate_name_embedding, then save, on GraphitiDriver), then export again."
            )


def without_nulls(attributes: dict[str, Any]) -> dict[str, Any]:
    """``attributes`` as a server keeps them: FalkorDB and Neo4j store no null property (Graphiti's
    ``SET n = $entity_data`` leaves the key out), so Graphiti reads an attribute that was None back
    from the server as absent (issue 32)."""
    return {k: v for k, v in attributes.items() if v is not None}


def drop_null_attributes(page: Sequence[Any]) -> None:
    """Drop the None attributes of an export's page before it is written: the server would drop
    them anyway (see :func:`without_nulls`); dropping them here makes every backend agree."""
    for model in page:
        attributes = getattr(model, "attributes", None)
        if attributes and any(v is None for v in attributes.values()):
            model.attributes = without_nulls(attributes)


def tally_fields(t: ModelType, model: Any) -> dict[str, Any]:
    """What verification compares: the model as Graphiti serialises it, its vector hashed as
    float32 (the precision every backend stores), its labels as a set (a graph database returns
    a node's labels in its own order, FalkorDB's by label creation), its attributes without the
    None ones (a server keeps no null property: Graphiti reads them back as absent)."""
    fields = model.model_dump(mode="json")
    if isinstance(fields.get("attributes"), dict):  # as a server keeps them: nulls dropped
        fields["attributes"] = without_nulls(fields["attributes"])
    if "labels" in fields:
        fields["labels"] = sorted(fields["labels"])
    if t.embedding is not None:
        vec = getattr(model, t.embedding)
        fields[t.embedding] = None if vec is None else vector_digest(vec)
    return fields


def tally_page(tally: Tally, t: ModelType, page: Sequence[Any]) -> None:
    for model in page:
        tally.add(t.kind, tally_fields(t, model))


async def tally_group(driver: Any, group: str, tally: Tally, *, by_listing: bool) -> None:
    """Tally everything Graphiti's getters return for ``group`` from ``driver``."""
    for t in TYPES:
        async for page in read_pages(driver, t, group, by_listing=by_listing):
            tally_page(tally, t, page)
