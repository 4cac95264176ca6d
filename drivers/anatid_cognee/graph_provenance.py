"""Graph provenance on anatid: Cognee's source-ref contract over the records' properties.

With these methods Cognee marks a fresh anatid graph as carrying its own provenance and deletes
documents, datasets and pipeline runs through the graph (its "graph provenance" delete path)
instead of the relational ledger. Lookups by ref, dataset or run scan only the records that
carry provenance at all.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from cognee.infrastructure.databases.provenance import (
    EdgeDeleteData,
    EdgeIdentity,
    NodeDeleteData,
    get_dataset_id_from_source_ref_key,
    get_pipeline_run_id_from_source_run_ref,
    get_source_ref_key_from_source_run_ref,
)
from cognee.infrastructure.databases.provenance.source_ref_state import ProvenanceColumns

from anatid_core import Cond

from . import provenance
from .adapter_base import StoreBacked
from .records import (
    GRAPH_GROUP,
    PROVENANCE_KEY,
    edge_id,
    node_data,
    returned_props,
    unique_strings,
)

GROUPS = [GRAPH_GROUP]


def _identity(e: Any) -> EdgeIdentity:
    return EdgeIdentity(source_id=e.src, target_id=e.dst, relationship_name=e.rel)


class GraphProvenance(StoreBacked):
    """Provenance part of :class:`~anatid_cognee.AnatidGraphAdapter`."""

    async def _change(self, kind: str, ids: list[str], transition: Any) -> None:
        """Read each record's provenance, apply ``transition``, write it back: one
        transaction, so concurrent attaches and folded writes never lose a ref."""
        if not ids:
            return

        def work(store: Any) -> None:
            with store.transaction():
                get = store.get_nodes if kind == "node" else store.get_edges
                records = [r for r in get(ids) if r.group == GRAPH_GROUP]
                updated = []
                for r in records:
                    before = provenance.read(r.props)
                    after = transition(before)
                    if after != before:
                        updated.append(
                            _replace_props(r, provenance.with_provenance(r.props, after))
                        )
                if not updated:
                    return
                if kind == "node":
                    store.upsert_nodes(updated)
                else:
                    store.upsert_edges(updated, missing_endpoints="skip")

        await self._write(f"{kind} source refs", work)

    async def attach_node_source_refs(
        self, node_ids: list[str], source_ref_keys: list[str], pipeline_run_id: str | None = None
    ) -> None:
        if source_ref_keys:
            keys = list(source_ref_keys)
            await self._change(
                "node",
                unique_strings(node_ids),
                lambda c: provenance.attach(c, keys, pipeline_run_id),
            )

    async def attach_edge_source_refs(
        self,
        edges: list[EdgeIdentity],
        source_ref_keys: list[str],
        pipeline_run_id: str | None = None,
    ) -> None:
        if source_ref_keys:
            keys = list(source_ref_keys)
            await self._change(
                "edge", _edge_ids(edges), lambda c: provenance.attach(c, keys, pipeline_run_id)
            )

    async def remove_node_source_refs(
        self, node_ids: list[str], source_ref_keys: list[str]
    ) -> None:
        if source_ref_keys:
            keys = list(source_ref_keys)
            await self._change(
                "node", unique_strings(node_ids), lambda c: provenance.remove(c, keys)
            )

    async def remove_edge_source_refs(
        self, edges: list[EdgeIdentity], source_ref_keys: list[str]
    ) -> None:
        if source_ref_keys:
            keys = list(source_ref_keys)
            await self._change("edge", _edge_ids(edges), lambda c: provenance.remove(c, keys))

    async def get_node_delete_data(self, node_ids: list[str]) -> dict[str, NodeDeleteData]:
        ids = unique_strings(node_ids)
        if not ids:
            return {}

        def work(r: Any) -> dict[str, NodeDeleteData]:
            out = {}
            for n in r.get_nodes(ids):
                if n.group != GRAPH_GROUP:
                    continue
                data = node_data(n, self.exact_values)
                metadata = data.get("metadata") or {}
                fields = metadata.get("index_fields") if isinstance(metadata, dict) else None
                cols = provenance.read(n.props)
                out[n.id] = NodeDeleteData(
                    node_id=n.id,
                    node_type=str(data.get("type") or ""),
                    indexed_fields=list(fields or []),
                    node_properties=data,
                    **cols._asdict(),
                )
            return out

        return await self._read(work)

    async def get_edge_delete_data(
        self, edges: list[EdgeIdentity]
    ) -> dict[EdgeIdentity, EdgeDeleteData]:
        ids = _edge_ids(edges)
        if not ids:
            return {}
        # Lazy: this module's package imports the graph engine factory (import cycle).
        from cognee.modules.graph.utils.prepare_edges_for_storage import get_edge_retrieval_text

        def work(r: Any) -> dict[EdgeIdentity, EdgeDeleteData]:
            out = {}
            for e in r.get_edges(ids):
                if e.group != GRAPH_GROUP:
                    continue
                props = returned_props(e.props, self.exact_values)
                identity = _identity(e)
                out[identity] = EdgeDeleteData(
                    edge=identity,
                    edge_text=get_edge_retrieval_text(props.get("edge_text"), e.rel),
                    edge_properties=props,
                    **provenance.read(e.props)._asdict(),
                )
            return out

        return await self._read(work)

    async def find_nodes_by_source_ref(self, source_ref_key: str) -> list[str]:
        found = await self._carrying("node", "source_ref_keys", source_ref_key)
        return list(found)

    async def find_edges_by_source_ref(self, source_ref_key: str) -> list[EdgeIdentity]:
        found = await self._carrying("edge", "source_ref_keys", source_ref_key)
        return [_identity(r) for r, _cols in found.values()]

    async def find_node_source_refs_by_dataset(self, dataset_id: str) -> dict[str, list[str]]:
        found = await self._carrying("node", "source_dataset_ids", dataset_id)
        return _owned_by_dataset({i: cols for i, (_r, cols) in found.items()}, dataset_id)

    async def find_edge_source_refs_by_dataset(
        self, dataset_id: str
    ) -> dict[EdgeIdentity, list[str]]:
        found = await self._carrying("edge", "source_dataset_ids", dataset_id)
        return _owned_by_dataset({_identity(r): cols for r, cols in found.values()}, dataset_id)

    async def find_node_source_refs_by_pipeline_run(
        self, pipeline_run_id: str
    ) -> dict[str, list[str]]:
        found = await self._carrying("node", "source_run_ids", pipeline_run_id)
        return _added_by_run({i: cols for i, (_r, cols) in found.items()}, pipeline_run_id)

    async def find_edge_source_refs_by_pipeline_run(
        self, pipeline_run_id: str
    ) -> dict[EdgeIdentity, list[str]]:
        found = await self._carrying("edge", "source_run_ids", pipeline_run_id)
        return _added_by_run({_identity(r): cols for r, cols in found.values()}, pipeline_run_id)

    async def _carrying(
        self, kind: str, field: str, value: str
    ) -> dict[str, tuple[Any, ProvenanceColumns]]:
        """Graph records of ``kind`` whose provenance list ``field`` holds ``value`` (filtered
        in the store), with their four provenance lists."""
        where = [[Cond(f"props.{PROVENANCE_KEY}.{field}", "contains", str(value))]]

        def work(r: Any) -> dict[str, tuple[Any, ProvenanceColumns]]:
            find = r.find_nodes if kind == "node" else r.find_edges
            return {
                rec.id: (rec, provenance.read(rec.props))
                for rec in find(groups=GROUPS, where=where)
            }

        return await self._read(work)


def _edge_ids(edges: list[EdgeIdentity]) -> list[str]:
    return unique_strings(
        edge_id(str(e.source_id), str(e.target_id), str(e.relationship_name)) for e in edges
    )


def _replace_props(record: Any, props: dict[str, Any]) -> Any:
    """A content copy of a stored record with new properties (store-set fields cleared)."""
    return replace(record, props=props, tx_from=None, tx_to=None, version=None)


def _owned_by_dataset(found: dict[Any, ProvenanceColumns], dataset_id: str) -> dict[Any, list]:
    out = {}
    for key, cols in found.items():
        if dataset_id not in cols.source_dataset_ids:
            continue
        owned = [
            ref
            for ref in cols.source_ref_keys
            if str(get_dataset_id_from_source_ref_key(ref)) == dataset_id
        ]
        if owned:
            out[key] = owned
    return out


def _added_by_run(found: dict[Any, ProvenanceColumns], pipeline_run_id: str) -> dict[Any, list]:
    out = {}
    for key, cols in found.items():
        if pipeline_run_id not in cols.source_run_ids:
            continue
        contributed = [
            get_source_ref_key_from_source_run_ref(ref)
            for ref in cols.source_run_refs
            if str(get_pipeline_run_id_from_source_run_ref(ref)) == pipeline_run_id
        ]
        if contributed:
            out[key] = contributed
    return out


__all__ = ["GraphProvenance", "PROVENANCE_KEY"]
