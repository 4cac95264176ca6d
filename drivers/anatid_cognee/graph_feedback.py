"""Feedback weights and truth state: what Cognee's improve loop reads and writes on a graph.

Plain node/edge properties (``feedback_weight``, ``truth_alignment``, ``truth_epoch``), so each
update is a new version like any other write. Edges are addressed by their ``edge_object_id``
property, stored as a UUID or a string.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from anatid_core import Cond

from . import provenance
from .adapter_base import StoreBacked
from .graph_writes import patch_nodes
from .records import GRAPH_GROUP, graph_edge, unique_strings, visible_props

GROUPS = [GRAPH_GROUP]
DEFAULT_WEIGHT = 0.5


def _weight(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return DEFAULT_WEIGHT


def _valid_ids(ids: Any) -> list[str]:
    return unique_strings(i for i in ids if isinstance(i, str) and i)


def _as_uuid(value: str) -> UUID | None:
    try:
        return UUID(value)
    except ValueError:
        return None


def _edges_by_object_id(r: Any, object_ids: list[str]) -> dict[str, Any]:
    """edge_object_id -> current edge, whether the id is stored as a UUID or a string."""
    where = [[Cond("props.edge_object_id", "in", object_ids)]]
    uuids = [u for u in (_as_uuid(i) for i in object_ids) if u is not None]
    if uuids:
        where.append([Cond("props.edge_object_id", "in", uuids)])
    return {str(e.props.get("edge_object_id")): e for e in r.find_edges(groups=GROUPS, where=where)}


class GraphFeedback(StoreBacked):
    """Feedback-weight and truth-state part of :class:`~anatid_cognee.AnatidGraphAdapter`."""

    async def get_node_feedback_weights(self, node_ids: list[str]) -> dict[str, float]:
        ids = _valid_ids(node_ids or [])
        if not ids:
            return {}

        def work(r: Any) -> dict[str, float]:
            return {
                n.id: _weight(n.props.get("feedback_weight", DEFAULT_WEIGHT))
                for n in r.get_nodes(ids)
                if n.group == GRAPH_GROUP
            }

        return await self._read(work)

    async def set_node_feedback_weights(
        self, node_feedback_weights: dict[str, float]
    ) -> dict[str, bool]:
        weights = node_feedback_weights or {}
        return await self._patch_nodes(
            {k: {"feedback_weight": float(v)} for k, v in weights.items()}
        )

    async def get_node_truth_state(self, node_ids: list[str]) -> dict[str, dict[str, Any]]:
        ids = _valid_ids(node_ids or [])
        if not ids:
            return {}

        def state(props: dict[str, Any]) -> dict[str, Any]:
            alignment = props.get("truth_alignment")
            epoch = props.get("truth_epoch")
            try:
                epoch = int(epoch) if epoch is not None else None
            except (TypeError, ValueError):
                epoch = None
            aligned = list(alignment) if isinstance(alignment, (list, tuple)) else []
            return {"truth_alignment": aligned, "truth_epoch": epoch}

        def work(r: Any) -> dict[str, dict[str, Any]]:
            return {n.id: state(dict(n.props)) for n in r.get_nodes(ids) if n.group == GRAPH_GROUP}

        return await self._read(work)

    async def set_node_truth_state(
        self, node_truth_state: dict[str, dict[str, Any]]
    ) -> dict[str, bool]:
        patches: dict[str, dict[str, Any]] = {}
        for node_id, state in (node_truth_state or {}).items():
            patch: dict[str, Any] = {"truth_alignment": list(state.get("truth_alignment") or [])}
            if state.get("truth_epoch") is not None:
                patch["truth_epoch"] = int(state["truth_epoch"])
            patches[node_id] = patch
        return await self._patch_nodes(patches)

    async def get_edge_feedback_weights(self, edge_object_ids: list[str]) -> dict[str, float]:
        ids = _valid_ids(edge_object_ids or [])
        if not ids:
            return {}

        def work(r: Any) -> dict[str, float]:
            found = _edges_by_object_id(r, ids)
            return {
                i: _weight(found[i].props.get("feedback_weight", DEFAULT_WEIGHT))
                for i in ids
                if i in found
            }

        return await self._read(work)

    async def set_edge_feedback_weights(
        self, edge_feedback_weights: dict[str, float]
    ) -> dict[str, bool]:
        requested = dict(edge_feedback_weights or {})
        ids = _valid_ids(requested)
        if not ids:
            return dict.fromkeys(requested, False)

        def work(store: Any) -> set[str]:
            with store.transaction():
                found = _edges_by_object_id(store, ids)
                updated = [
                    graph_edge(
                        e.src,
                        e.dst,
                        e.rel,
                        {**visible_props(e.props), "feedback_weight": float(requested[i])},
                        provenance.as_props(provenance.read(e.props)),
                    )
                    for i, e in found.items()
                ]
                if updated:
                    store.upsert_edges(updated, missing_endpoints="skip")
                return set(found)

        done = await self._write("set_edge_feedback_weights", work)
        return {i: i in done for i in requested}

    async def _patch_nodes(self, patches: dict[str, dict[str, Any]]) -> dict[str, bool]:
        """Merge each patch into its node's properties; per id, whether the node existed."""
        ids = _valid_ids(patches)
        if not ids:
            return dict.fromkeys(patches, False)
        valid = {i: patches[i] for i in ids}
        done = await self._write("node feedback", lambda store: patch_nodes(store, valid))
        return {i: i in done for i in patches}
