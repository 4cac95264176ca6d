"""The graph adapter's write methods.

Writes are idempotent upserts (nodes by id, edges by ``(source, target, relationship_name)``)
done as one core transaction each. The store versions every change in transaction time, so an
unchanged re-save writes nothing and a changed one keeps the old version for ``as_of`` reads.
Graph provenance lives in the records' properties, so each upsert first reads the provenance
already stored for its ids (inside the same transaction, which holds the store's write lock:
concurrent folds and attaches cannot lose each other's source refs).
"""

from __future__ import annotations

from typing import Any

from cognee.infrastructure.engine import DataPoint

from anatid_core import Cond, Node, gc_paused

from . import provenance
from .adapter_base import StoreBacked
from .records import (
    GRAPH_GROUP,
    META_GROUP,
    METADATA_NODE_ID,
    PROVENANCE_KEY,
    edge_id,
    graph_edge,
    graph_node,
    node_fields,
    unique_strings,
    visible_props,
)

GROUPS = [GRAPH_GROUP]


def _fold(store: Any, kind: str, ids: list[str], key: str | None, run_id: str | None) -> dict:
    """id -> provenance props each record must carry after this write (absent: none)."""
    # read by id, the provenance picked here: a filter on the props JSON scanned the table,
    # 3.5 ms a batch of 2,000 on an empty file and growing with it (issue 43)
    get = store.get_nodes if kind == "node" else store.get_edges
    stored = {
        r.id: provenance.read(r.props) for r in get(ids) if r.props.get(PROVENANCE_KEY) is not None
    }
    if key is None:
        return {i: provenance.as_props(cols) for i, cols in stored.items()}
    folded = {}
    for i in ids:
        cols = provenance.attach(stored.get(i, provenance.EMPTY), [key], run_id)
        folded[i] = provenance.as_props(cols)
    return folded


def patch_nodes(store: Any, patches: dict[str, dict[str, Any]]) -> set[str]:
    """Merge each patch into its graph node's properties, every other property and the
    provenance kept, in one transaction; the ids of the nodes found (missing ids are skipped)."""
    with store.transaction():
        nodes = [n for n in store.get_nodes(list(patches)) if n.group == GRAPH_GROUP]
        store.upsert_nodes(
            graph_node(
                {**visible_props(n.props), **patches[n.id], "id": n.id},
                provenance.as_props(provenance.read(n.props)),
            )
            for n in nodes
        )
        return {n.id for n in nodes}


class GraphWrites(StoreBacked):
    """Write half of :class:`~anatid_cognee.AnatidGraphAdapter`."""

    async def add_node(
        self, node: DataPoint | str, properties: dict[str, Any] | None = None
    ) -> None:
        if isinstance(node, str):
            await self.add_nodes([(node, dict(properties or {}))])
        else:
            await self.add_nodes([node])

    async def add_nodes(
        self,
        nodes: list[Any],
        source_ref_key: str | None = None,
        pipeline_run_id: str | None = None,
    ) -> None:
        """Upsert nodes by id (last duplicate wins); ``source_ref_key`` stamps provenance in
        the same transaction."""
        if not nodes:
            return
        with gc_paused():  # a pydantic dump per node: see anatid_core.storage.prepare.prepare_all
            fields = [node_fields(n) for n in nodes]
        by_id = {str(f.get("id", "")): f for f in fields}
        key = str(source_ref_key) if source_ref_key is not None else None
        run_id = str(pipeline_run_id) if pipeline_run_id is not None else None

        def work(store: Any) -> None:
            with store.transaction():
                prov = _fold(store, "node", list(by_id), key, run_id)
                store.upsert_nodes(graph_node(f, prov.get(i)) for i, f in by_id.items())

        await self._write("add_nodes", work)

    async def add_edge(
        self,
        source_id: str,
        target_id: str,
        relationship_name: str,
        properties: dict[str, Any] | None = None,
    ) -> None:
        await self.add_edges([(source_id, target_id, relationship_name, properties or {})])

    async def add_edges(
        self,
        edges: list[Any],
        source_ref_key: str | None = None,
        pipeline_run_id: str | None = None,
    ) -> None:
        """Upsert edges by ``(source, target, relationship_name)``; edges whose endpoints are
        missing are skipped."""
        if not edges:
            return
        rows: dict[str, tuple[str, str, str, Any]] = {}
        for e in edges:
            src, dst, rel = str(e[0]), str(e[1]), str(e[2])
            rows[edge_id(src, dst, rel)] = (src, dst, rel, e[3] if len(e) > 3 else None)
        key = str(source_ref_key) if source_ref_key is not None else None
        run_id = str(pipeline_run_id) if pipeline_run_id is not None else None

        def work(store: Any) -> None:
            with store.transaction():
                prov = _fold(store, "edge", list(rows), key, run_id)
                store.upsert_edges(
                    (graph_edge(*row, provenance=prov.get(i)) for i, row in rows.items()),
                    missing_endpoints="skip",
                )

        await self._write("add_edges", work)

    async def update_chunk_index(self, chunk_indexes: dict[str, int]) -> None:
        """Set only ``chunk_index`` on the given chunk nodes: Cognee's incremental update moves
        a kept chunk this way when an edit before it adds or removes chunks. Every other
        property and the provenance stay; missing ids are skipped."""
        patches = {str(k): {"chunk_index": int(v)} for k, v in (chunk_indexes or {}).items()}
        if patches:
            await self._write("update_chunk_index", lambda store: patch_nodes(store, patches))

    async def delete_node(self, node_id: str) -> None:
        await self.delete_nodes([node_id])

    async def delete_nodes(self, node_ids: list[str]) -> None:
        """Detach-delete; missing ids are ignored. During a Cognee deletion call every version
        goes (an erasure); otherwise history is kept for ``as_of`` reads."""
        ids = unique_strings(node_ids)
        if not ids:
            return

        def graph_ids(store: Any) -> list[str]:
            # Only graph nodes: a vector row or metadata node sharing the file is not ours.
            return [n.id for n in store.find_nodes(ids=ids, groups=GROUPS)]

        def soft(store: Any) -> None:
            with store.transaction():
                if found := graph_ids(store):
                    store.delete_nodes(found, detach=True)

        def hard(store: Any) -> None:
            with store.transaction():
                if found := graph_ids(store):
                    store.purge_nodes(found)

        await self._delete("delete_nodes", soft, hard)

    async def delete_edge_triples(self, edges: list[Any]) -> None:
        """Delete edges by identity, keeping their endpoint nodes (every version of the edges
        during a Cognee deletion call)."""
        ids = [edge_id(str(e.source_id), str(e.target_id), str(e.relationship_name)) for e in edges]
        if ids:
            await self._delete(
                "delete_edge_triples", lambda s: s.delete_edges(ids), lambda s: s.purge_edges(ids)
            )

    async def delete_graph(self) -> None:
        """Erase the graph and its metadata (every version; compacted when Cognee's call
        returns). Vector rows in the same file stay: ``prune()`` on the vector adapter owns
        those. Under the audit setting the records are deleted with their history kept."""

        def hard(store: Any) -> None:
            with store.transaction():
                store.purge_where("node", groups=[GRAPH_GROUP, META_GROUP])
                store.purge_where("edge", groups=[GRAPH_GROUP])

        def soft(store: Any) -> None:
            with store.transaction():
                store.delete_where("edge", groups=[GRAPH_GROUP])
                store.delete_where("node", groups=[GRAPH_GROUP, META_GROUP])

        await self._erase("delete_graph", hard, soft)

    async def purge_nodes(self, node_ids: list[str]) -> None:
        """Erase graph nodes, their edges and every past version of them (erasure requests),
        so that no byte of them is left in the file when this returns (or when the enclosing
        Cognee deletion call returns)."""
        ids = unique_strings(node_ids)
        if not ids:
            return

        def work(store: Any) -> None:
            with store.transaction():
                graph_ids = [n.id for n in store.find_nodes(ids=ids, groups=GROUPS)]
                gone = [
                    h.id
                    for i in ids
                    if i not in graph_ids
                    for h in store.history(i)[:1]
                    if h.group == GRAPH_GROUP
                ]
                if graph_ids or gone:
                    store.purge_nodes([*graph_ids, *gone])

        await self._erase("purge_nodes", work)

    async def update_node(self, node_id: str, values: dict[str, Any]) -> bool:
        """Merge ``values`` into a node's properties; False if it does not exist."""
        if not isinstance(node_id, str) or not node_id or not values:
            return False

        def work(store: Any) -> bool:
            with store.transaction():
                node = store.get_node(node_id)
                if node is None or node.group != GRAPH_GROUP:
                    return False
                fields = {**node.props, **values, "id": node.id}
                store.upsert_nodes([graph_node(fields, node.props.get(PROVENANCE_KEY))])
                return True

        return await self._write("update_node", work)

    async def remove_belongs_to_set_tags(
        self, tags: list[str], node_ids: list[str] | None = None
    ) -> None:
        """Strip ``tags`` from the ``belongs_to_set`` lists of the (given) nodes."""
        if not tags or (node_ids is not None and not node_ids):
            return
        tag_set = set(tags)
        ids = unique_strings(node_ids) if node_ids is not None else None

        def work(store: Any) -> None:
            with store.transaction():
                tagged = [[Cond("props.belongs_to_set", "contains", t)] for t in sorted(tag_set)]
                nodes = store.find_nodes(ids=ids, groups=GROUPS, where=tagged)
                changed = [_without_tags(n, tag_set) for n in nodes]
                updates = [n for n in changed if n is not None]
                if updates:
                    store.upsert_nodes(updates)

        await self._write("remove_belongs_to_set_tags", work)

    async def set_graph_metadata(self, metadata: dict[str, str]) -> None:
        if not metadata:
            return

        def work(store: Any) -> None:
            with store.transaction():
                current = store.get_node(METADATA_NODE_ID)
                props = dict(current.props) if current is not None else {}
                props.update({str(k): str(v) for k, v in metadata.items()})
                store.upsert_nodes([Node(id=METADATA_NODE_ID, group=META_GROUP, props=props)])

        await self._write("set_graph_metadata", work)

    async def get_graph_metadata(self) -> dict[str, str]:
        def work(r: Any) -> dict[str, str]:
            node = r.get_node(METADATA_NODE_ID)
            return {str(k): str(v) for k, v in node.props.items()} if node is not None else {}

        return await self._read(work)


def _without_tags(node: Node, tags: set[str]) -> Node | None:
    current = node.props.get("belongs_to_set")
    if not isinstance(current, list):
        return None
    kept = [t for t in current if not (isinstance(t, str) and t in tags)]
    if len(kept) == len(current):
        return None
    fields = {**node.props, "belongs_to_set": kept, "id": node.id}
    return graph_node(fields, node.props.get(PROVENANCE_KEY))
