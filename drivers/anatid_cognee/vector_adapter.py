"""``AnatidVectorAdapter``: Cognee's ``VectorDBInterface`` in the same anatid file as the graph.

A collection (``<Type>_<field>``) is a core group ``cognee.vector:<collection>`` with its own
vector space (so each collection fixes its own dimension); a row is a core node with id
``<collection>:<data point id>`` (never clashing with the graph node of the same data point),
its embedding, and the JSON-safe payload Cognee's other adapters return. ``belongs_to_set``
tags are also labels ``set:<tag>``, so node-set filters run inside the vector search. Each
collection has a registry node, so empty collections exist and ``prune`` finds them all.
"""

from __future__ import annotations

import asyncio
import functools
from datetime import datetime
from typing import Any, get_args

from cognee.infrastructure.databases.exceptions import MissingQueryParameterError
from cognee.infrastructure.databases.vector.models.ScoredResult import ScoredResult
from cognee.infrastructure.databases.vector.pgvector.serialize_data import serialize_data
from cognee.infrastructure.databases.vector.vector_db_interface import VectorDBInterface
from cognee.infrastructure.engine import DataPoint
from cognee.infrastructure.engine.utils import parse_id

from anatid_core import Node

from .adapter_base import StoreBacked
from .erasures import erasing, note_purged
from .errors import collection_not_found
from .paths import vector_path

COLLECTIONS_GROUP = "cognee.vector.collections"
ROW_GROUP_PREFIX = "cognee.vector:"
TAG_PREFIX = "set:"


class IndexSchema(DataPoint):
    """The row ``index_data_points`` writes (same fields as Cognee's LanceDB/Turso rows)."""

    text: str
    document_id: str | None = None
    document_name: str | None = None
    chunk_index: int | None = None
    source_chunk_id: str | None = None
    importance_weight: float | None = 0.5
    external_metadata: str | None = None
    metadata: dict = {"index_fields": ["text"]}  # pyright: ignore[reportIncompatibleVariableOverride]
    belongs_to_set: list[str] = []  # pyright: ignore[reportIncompatibleVariableOverride]


def row_group(collection: str) -> str:
    return ROW_GROUP_PREFIX + collection


def row_id(collection: str, point_id: Any) -> str:
    return f"{collection}:{point_id}"


def space_of(collection: str) -> str:
    return "cognee:" + collection


def registry_id(collection: str) -> str:
    return "collection:" + collection


def _payload(data: Any) -> dict[str, Any]:
    """A JSON-safe payload (UUIDs and datetimes as strings), as Cognee's other adapters keep."""
    payload = serialize_data(data)
    return dict(payload) if isinstance(payload, dict) else {}


def _mentions_model(annotation: Any) -> bool:
    """Whether a field's type is (or contains, in a union or list) a pydantic model."""
    if hasattr(annotation, "model_fields"):
        return True
    return any(_mentions_model(arg) for arg in get_args(annotation))


@functools.lru_cache(maxsize=256)
def _payload_fields(model: type[DataPoint]) -> frozenset[str]:
    """The fields LanceDB (Cognee's default vector store) leaves out of a payload: ``metadata``
    and the relationship fields (typed as DataPoints); ``belongs_to_set`` stays, as tags.
    Once per model class: walking the annotations took a quarter of ``index_data_points``
    (issue 16)."""
    left_out = {
        name
        for name, field in model.model_fields.items()
        if name != "belongs_to_set" and _mentions_model(field.annotation)
    }
    return frozenset({"metadata", *left_out})


def _data_point_payload(dp: DataPoint) -> dict[str, Any]:
    payload = _payload(dp.model_dump(exclude=set(_payload_fields(type(dp)))))
    payload["id"] = str(dp.id)
    return payload


def _embeddable(dp: DataPoint) -> str:
    text = DataPoint.get_embeddable_data(dp)
    return text if isinstance(text, str) else "" if text is None else str(text)


def _tags(payload: dict[str, Any]) -> list[str]:
    tags = payload.get("belongs_to_set") or []
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def _row(collection: str, payload: dict[str, Any], vector: Any) -> Node:
    return Node(
        id=row_id(collection, payload["id"]),
        group=row_group(collection),
        labels=tuple(TAG_PREFIX + t for t in _tags(payload)),
        props=payload,
        # Handed over as is: the store validates and converts it in one numpy step.
        embedding=vector,
        space=space_of(collection),
    )


def _union(*lists: list[str]) -> list[str]:
    return list(dict.fromkeys(t for tags in lists for t in tags))


class AnatidVectorAdapter(StoreBacked, VectorDBInterface):
    """Cognee's vector store on anatid (cosine distance, exact search, ascending scores)."""

    name = "anatid"
    supports_payload_update = True

    def __init__(
        self,
        url: str = "",
        api_key: str | None = None,
        embedding_engine: Any = None,
        database_name: str | None = None,
        **_ignored: Any,
    ) -> None:
        # Host, port and credentials are part of the factory's call; a local file needs none.
        super().__init__(vector_path(url or ""))
        self.url = url
        self.embedding_engine = embedding_engine
        self.database_name = database_name

    def as_of(
        self, tx_time: datetime | None = None, valid_time: datetime | None = None
    ) -> AnatidVectorAdapter:
        """A read-only adapter whose searches see the vectors as they were at ``tx_time``."""
        self._check_open()
        return self._historical_copy(tx_time, valid_time)

    # ------------------------------------------------------------------ collections

    async def embed_data(self, data: list[str]) -> list[list[float]]:
        return await self.embedding_engine.embed_text(data)

    async def has_collection(self, collection_name: str) -> bool:
        return await self._read(lambda r: r.get_node(registry_id(collection_name)) is not None)

    async def create_collection(self, collection_name: str, payload_schema: Any = None) -> None:
        def work(store: Any) -> None:
            if store.get_node(registry_id(collection_name)) is None:
                store.upsert_nodes(
                    [
                        Node(
                            id=registry_id(collection_name),
                            group=COLLECTIONS_GROUP,
                            name=collection_name,
                            props={"collection": collection_name},
                        )
                    ]
                )

        await self._write("create_collection", work)

    async def get_collection_names(self) -> list[str]:
        return await self._read(
            lambda r: [n.name for n in r.find_nodes(groups=[COLLECTIONS_GROUP])]
        )

    async def get_stored_vector_size(self) -> int | None:
        """Width of the stored vectors (None when nothing is stored yet)."""

        def work(r: Any) -> int | None:
            for n in r.find_nodes(groups=[COLLECTIONS_GROUP]):
                if n.props.get("dimension"):
                    return int(n.props["dimension"])
            return None

        return await self._read(work)

    async def create_vector_index(self, index_name: str, index_property_name: str) -> None:
        await self.create_collection(f"{index_name}_{index_property_name}")

    # ------------------------------------------------------------------ writes

    async def create_data_points(self, collection_name: str, data_points: list[DataPoint]) -> None:
        """Upsert by id, embedding ``get_embeddable_data``; ``belongs_to_set`` tags merge with
        the stored row's (as Cognee's LanceDB, PGVector and Turso adapters do)."""
        if not data_points:
            return
        vectors = await self.embed_data([_embeddable(dp) for dp in data_points])
        payloads: dict[str, dict[str, Any]] = {}
        rows: dict[str, tuple[dict[str, Any], Any]] = {}
        for dp, vector in zip(data_points, vectors, strict=True):
            payload = _data_point_payload(dp)
            earlier = payloads.get(payload["id"])
            if earlier is not None:
                payload["belongs_to_set"] = _union(_tags(earlier), _tags(payload))
            payloads[payload["id"]] = payload
            rows[payload["id"]] = (payload, vector)
        await self._write("create_data_points", _upsert_rows, collection_name, list(rows.values()))

    async def upsert_raw_vectors(
        self, collection_name: str, points: list[dict], payload_schema: Any = None
    ) -> None:
        """Upsert precomputed vectors: ``{"id", "vector", "payload"}`` per point."""
        rows = [
            ({**_payload(dict(p.get("payload") or {})), "id": str(p["id"])}, p["vector"])
            for p in points
        ]
        if rows:
            await self._write("upsert_raw_vectors", _upsert_rows, collection_name, rows)

    async def index_data_points(
        self, index_name: str, index_property_name: str, data_points: list[DataPoint]
    ) -> None:
        rows: list[DataPoint] = [
            IndexSchema(
                id=dp.id,
                text=_embeddable(dp),
                document_id=getattr(dp, "document_id", None),
                document_name=getattr(dp, "document_name", None),
                chunk_index=getattr(dp, "chunk_index", None),
                source_chunk_id=getattr(dp, "source_chunk_id", None),
                importance_weight=getattr(dp, "importance_weight", None),
                external_metadata=getattr(dp, "external_metadata", None),
                belongs_to_set=[t for t in (dp.belongs_to_set or []) if isinstance(t, str)],
            )
            for dp in data_points
        ]
        await self.create_data_points(f"{index_name}_{index_property_name}", rows)

    async def update_payload(
        self, collection_name: str, payload_updates: dict[str, dict[str, Any]]
    ) -> None:
        """Overwrite payload fields without re-embedding; missing ids are skipped."""
        if not payload_updates:
            return
        updates = {str(k): v for k, v in payload_updates.items()}

        def work(store: Any) -> None:
            with store.transaction():
                ids = [row_id(collection_name, k) for k in updates]
                rows = [n for n in store.get_nodes(ids) if n.group == row_group(collection_name)]
                vectors = store.get_embeddings([n.id for n in rows])
                fresh = []
                for n in rows:
                    fields = updates[str(n.props["id"])]
                    unknown = set(fields) - set(n.props)
                    if unknown:
                        raise ValueError(
                            f"update_payload: fields {sorted(unknown)} do not exist in the "
                            f"payload of {collection_name!r} row {n.props['id']}"
                        )
                    fresh.append(_row(collection_name, {**n.props, **fields}, vectors[n.id]))
                if fresh:
                    store.upsert_nodes(fresh)

        await self._write("update_payload", work)

    async def delete_data_points(self, collection_name: str, data_point_ids: list[Any]) -> None:
        """Idempotent. During a Cognee deletion call every version and embedding goes (an
        erasure); otherwise history is kept for ``as_of`` searches."""
        ids = [row_id(collection_name, i) for i in data_point_ids]
        if ids:
            await self._delete(
                "delete_data_points",
                lambda s: s.delete_nodes(ids, detach=False),
                lambda s: s.purge_nodes(ids),
            )

    async def purge_data_points(self, collection_name: str, data_point_ids: list[Any]) -> None:
        """Erase rows with every past version and embedding (erasure requests), so that no
        byte of them is left in the file when this returns (or when the enclosing Cognee
        deletion call returns)."""
        ids = [row_id(collection_name, i) for i in data_point_ids]
        if ids:
            await self._erase("purge_data_points", lambda s: s.purge_nodes(ids))

    async def remove_belongs_to_set_tags(
        self, tags: list[str], node_ids: list[str] | None = None
    ) -> None:
        """Strip ``tags`` from every row's ``belongs_to_set``; delete rows left with none."""
        if not tags or (node_ids is not None and not node_ids):
            return
        tag_set = set(tags)
        scope = {str(i) for i in node_ids} if node_ids is not None else None
        erase = erasing()

        def work(store: Any) -> None:
            with store.transaction():
                tagged = [
                    n
                    for n in store.find_nodes(labels=[TAG_PREFIX + t for t in tags])
                    if n.group.startswith(ROW_GROUP_PREFIX)
                    and (scope is None or str(n.props.get("id")) in scope)
                ]
                vectors = store.get_embeddings([n.id for n in tagged]) if tagged else {}
                emptied, rewritten = [], []
                for n in tagged:
                    kept = [t for t in _tags(n.props) if t not in tag_set]
                    if not kept:
                        emptied.append(n.id)
                        continue
                    collection = n.group[len(ROW_GROUP_PREFIX) :]
                    rewritten.append(
                        _row(collection, {**n.props, "belongs_to_set": kept}, vectors[n.id])
                    )
                if rewritten:
                    store.upsert_nodes(rewritten)
                if emptied and erase:
                    store.purge_nodes(emptied)
                elif emptied:
                    store.delete_nodes(emptied, detach=False)

        await self._write("remove_belongs_to_set_tags", work)
        if erase:
            note_purged(self.path)

    async def prune(self) -> None:
        """Erase every collection (all versions; compacted when Cognee's call returns). The
        graph in the same file is untouched: Cognee prunes vectors before it deletes the
        graph. Under the audit setting the rows are deleted with their history kept."""

        def groups(store: Any) -> list[str]:
            names = [n.name for n in store.find_nodes(groups=[COLLECTIONS_GROUP])]
            return [COLLECTIONS_GROUP, *(row_group(n) for n in names)]

        def hard(store: Any) -> None:
            with store.transaction():
                store.purge_where("node", groups=groups(store))

        def soft(store: Any) -> None:
            with store.transaction():
                store.delete_where("node", groups=groups(store))

        await self._erase("prune", hard, soft)

    # ------------------------------------------------------------------ reads

    async def retrieve(self, collection_name: str, data_point_ids: list[str]) -> list[ScoredResult]:
        ids = [row_id(collection_name, i) for i in data_point_ids]
        if not ids:
            return []

        def work(r: Any) -> list[ScoredResult]:
            group = row_group(collection_name)
            return [
                ScoredResult(id=parse_id(n.props["id"]), payload=dict(n.props), score=0)
                for n in r.get_nodes(ids)
                if n.group == group
            ]

        return await self._read(work)

    async def score_by_ids(
        self, collection_name: str, data_point_ids: list[str], query_vector: list[float]
    ) -> list[ScoredResult]:
        ids = list(dict.fromkeys(row_id(collection_name, i) for i in data_point_ids))
        if not ids:
            return []
        await self._require(collection_name)

        def work(r: Any) -> list[ScoredResult]:
            hits = r.search_vector(
                list(query_vector),
                space=space_of(collection_name),
                k=len(ids),
                ids=ids,
                groups=[row_group(collection_name)],
            )
            return [
                ScoredResult(id=parse_id(h.item.props["id"]), score=1.0 - h.score, payload=None)
                for h in hits
            ]

        return await self._read(work)

    async def search(
        self,
        collection_name: str,
        query_text: str | None = None,
        query_vector: list[float] | None = None,
        limit: int | None = 15,
        with_vector: bool = False,
        include_payload: bool = False,
        node_name: list[str] | None = None,
        node_name_filter_operator: str = "OR",
    ) -> list[ScoredResult]:
        """Exact cosine search: ``score`` is the cosine distance, ascending; ``limit=None``
        returns every row, ``limit <= 0`` none. ``node_name`` keeps rows tagged with any
        (or, with "AND", all) of the names."""
        if query_text is None and query_vector is None:
            raise MissingQueryParameterError()
        if query_text and not query_vector:
            query_vector = (await self.embedding_engine.embed_text([query_text]))[0]
        if limit is not None and limit <= 0:
            return []
        names = [str(n) for n in node_name or []]
        need_all = bool(names) and node_name_filter_operator == "AND"
        vector = query_vector if query_vector is not None else []

        def work(r: Any) -> list[ScoredResult] | None:
            group = row_group(collection_name)
            k = limit
            if k is None or need_all:
                k = r.count_nodes(groups=[group])
            if not k:
                return None
            hits = r.search_vector(
                vector,
                space=space_of(collection_name),
                k=k,
                groups=[group],
                labels=[TAG_PREFIX + n for n in names] if names else None,
            )
            if not hits:
                return None
            if need_all:
                hits = [h for h in hits if set(names) <= set(_tags(h.item.props))]
                hits = hits[:limit] if limit is not None else hits
            return [
                ScoredResult(
                    id=parse_id(h.item.props["id"]),
                    payload=dict(h.item.props) if include_payload else None,
                    score=1.0 - h.score,
                )
                for h in hits
            ]

        results = await self._read(work)
        if results is None:
            # Nothing found: only now tell an empty collection from a missing one.
            await self._require(collection_name)
            return []
        return results

    async def batch_search(
        self,
        collection_name: str,
        query_texts: list[str],
        limit: int | None = None,
        with_vectors: bool = False,
        include_payload: bool = False,
        node_name: list[str] | None = None,
    ) -> list[list[ScoredResult]]:
        vectors = await self.embedding_engine.embed_text(query_texts)
        return list(
            await asyncio.gather(
                *[
                    self.search(
                        collection_name,
                        query_vector=v,
                        limit=limit,
                        with_vector=with_vectors,
                        include_payload=include_payload,
                        node_name=node_name,
                    )
                    for v in vectors
                ]
            )
        )

    async def _require(self, collection_name: str) -> None:
        if not await self.has_collection(collection_name):
            raise collection_not_found(collection_name)

    def get_data_point_schema(self, model_type: Any) -> Any:
        return model_type


def _upsert_rows(store: Any, collection: str, rows: list[tuple[dict[str, Any], Any]]) -> None:
    """Upsert rows, merging tags with stored rows, and register the collection (one
    transaction, so a concurrent tag change is never lost)."""
    with store.transaction():
        ids = [row_id(collection, p["id"]) for p, _v in rows]
        stored = {n.id: n for n in store.get_nodes(ids) if n.group == row_group(collection)}
        nodes = []
        for payload, vector in rows:
            before = stored.get(row_id(collection, payload["id"]))
            if before is not None and _tags(before.props):
                payload = {**payload, "belongs_to_set": _union(_tags(before.props), _tags(payload))}
            nodes.append(_row(collection, payload, vector))
        registry = store.get_node(registry_id(collection))
        dimension = len(nodes[0].embedding or []) if nodes else 0
        if registry is None or not registry.props.get("dimension"):
            store.upsert_nodes(
                [
                    Node(
                        id=registry_id(collection),
                        group=COLLECTIONS_GROUP,
                        name=collection,
                        props={"collection": collection, "dimension": dimension},
                    )
                ]
            )
        store.upsert_nodes(nodes)


__all__ = ["AnatidVectorAdapter", "IndexSchema"]
