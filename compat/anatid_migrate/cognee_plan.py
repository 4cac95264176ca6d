"""Cognee's graph (Kuzu adapter up to 1.0.3, Ladybug adapter from 1.0.4) onto anatid.

Source schema: ``Node(id, name, type, created_at, updated_at, properties JSON[, 4 provenance
columns])``, ``EDGE(FROM Node TO Node, relationship_name, created_at, updated_at, properties
JSON[, provenance])`` and, from 1.6, ``GraphMetadata(key, value)``. Cognee reads a node as
``{name, type, **json(properties)}`` and an edge as ``json(properties)``; we rebuild exactly
those and hand them to the anatid Cognee adapter's record mapping (``anatid_cognee.records``),
the same functions its ``add_nodes``/``add_edges`` use.

The ``created_at``/``updated_at`` columns are the old adapter's own write times, invisible through
Cognee's API (the DataPoint's timestamps are inside the JSON); anatid keeps its own transaction
time instead, so they are reported as not migrated.
"""

from __future__ import annotations

import json
from typing import Any

from anatid_cognee import provenance, records

from anatid_core import Node, Store

from .errors import UnknownSchema
from .plan import column, pages
from .report import MigrationReport
from .source import Batch, Catalog

PROVENANCE = records.PROVENANCE_FIELDS
NODE_COLUMNS = {"id", "name", "type", "created_at", "updated_at", "properties", *PROVENANCE}
EDGE_COLUMNS = {"relationship_name", "created_at", "updated_at", "properties", *PROVENANCE}
WRITE_TIMES = ("created_at", "updated_at")


def decode_refs(value: Any) -> list[str]:
    """Ladybug's delimiter-wrapped provenance string (``"|a|b|"``, ``"|"`` empty) as a list."""
    if not value:
        return []
    return [item for item in str(value).strip("|").split("|") if item]


def _provenance(batch: Batch) -> list[dict[str, list[str]] | None]:
    cols = [column(batch, name) for name in PROVENANCE]
    out: list[dict[str, list[str]] | None] = []
    for values in zip(*cols, strict=True):
        lists = [decode_refs(v) for v in values]
        out.append(dict(zip(PROVENANCE, lists, strict=True)) if any(lists) else None)
    return out


def _json(raw: Any) -> dict[str, Any]:
    # Cognee's own reads skip a property blob that does not parse; so do we, after a warning.
    if not raw:
        return {}
    value = json.loads(raw)
    return value if isinstance(value, dict) else {}


class CogneePlan:
    kind: str = "cognee"
    order: tuple[str, ...] = ("Node", "EDGE", "GraphMetadata")

    def __init__(self) -> None:
        self.metadata: dict[str, str] = {}

    def check_catalog(self, catalog: Catalog, report: MigrationReport) -> None:
        tables = catalog.tables
        if "Node" not in tables or "EDGE" not in tables:
            raise UnknownSchema(
                f"{report.source} has tables {sorted(tables)}, not Cognee's Node/EDGE graph. "
                "Is this a Graphiti file? Try `anatid-migrate graphiti`."
            )
        for name, info in tables.items():
            known = {"Node": NODE_COLUMNS, "EDGE": EDGE_COLUMNS, "GraphMetadata": {"key", "value"}}
            if name not in known:
                report.not_migrated.append(f"table {name} ({info.rows} rows): not a Cognee table")
                continue
            extra = sorted(set(info.properties) - known[name])
            if extra:
                report.not_migrated.append(f"{name} columns {extra}: not part of Cognee's schema")
            if name != "GraphMetadata" and info.rows:
                report.not_migrated.append(
                    f"{name}.created_at/updated_at: the old adapter's write times, not visible "
                    "through Cognee (anatid records its own transaction time)"
                )
        for name in ("Node", "EDGE"):
            for edge_src, edge_dst in tables[name].connections:
                if (edge_src, edge_dst) != ("Node", "Node"):
                    report.not_migrated.append(f"EDGE connection {edge_src}->{edge_dst}")

    def load(self, store: Store | None, batch: Batch, report: MigrationReport) -> None:
        if batch.table == "Node":
            self._nodes(store, batch, report)
        elif batch.table == "EDGE" and (batch.src_table, batch.dst_table) == ("Node", "Node"):
            self._edges(store, batch, report)
        elif batch.table == "GraphMetadata":
            for key, value in zip(column(batch, "key"), column(batch, "value"), strict=True):
                self.metadata[str(key)] = str(value)

    def _nodes(self, store: Store | None, batch: Batch, report: MigrationReport) -> None:
        out = []
        rows = zip(
            column(batch, "id"),
            column(batch, "name"),
            column(batch, "type"),
            column(batch, "properties"),
            _provenance(batch),
            strict=True,
        )
        for node_id, name, node_type, raw, prov in rows:
            fields = {"name": name, "type": node_type, **_json(raw), "id": node_id}
            report.source_tally.add(f"node:{node_type}", [fields, prov])
            out.append(records.graph_node(fields, prov))
        if store is not None:
            store.upsert_nodes(out)
        report.written["nodes"] = report.written.get("nodes", 0) + len(out)

    def _edges(self, store: Store | None, batch: Batch, report: MigrationReport) -> None:
        out = []
        rows = zip(
            column(batch, "_src"),
            column(batch, "_dst"),
            column(batch, "relationship_name"),
            column(batch, "properties"),
            _provenance(batch),
            strict=True,
        )
        for src, dst, rel, raw, prov in rows:
            props = _json(raw)
            report.source_tally.add(f"edge:{rel}", [src, dst, rel, props, prov])
            out.append(records.graph_edge(src, dst, rel, props, prov))
        if store is not None:
            store.upsert_edges(out)
        report.written["edges"] = report.written.get("edges", 0) + len(out)

    def finish(self, store: Store | None, report: MigrationReport) -> None:
        # Same record as the adapter's set_graph_metadata writes.
        for key, value in self.metadata.items():
            report.source_tally.add("graph_metadata", [key, value])
        if self.metadata and store is not None:
            store.upsert_nodes(
                [Node(id=records.METADATA_NODE_ID, group=records.META_GROUP, props=self.metadata)]
            )

    def read_back(self, store: Store, report: MigrationReport) -> None:
        tally = report.target_tally
        for page in pages(store.find_nodes, groups=[records.GRAPH_GROUP]):
            for node in page:
                fields = records.node_data(node)
                prov = provenance.as_props(provenance.read(node.props))
                tally.add(f"node:{fields.get('type')}", [fields, prov])
        for page in pages(store.find_edges, groups=[records.GRAPH_GROUP]):
            for edge in page:
                src, dst, rel, props = records.edge_tuple(edge)
                prov = provenance.as_props(provenance.read(edge.props))
                tally.add(f"edge:{rel}", [src, dst, rel, props, prov])
        meta = store.get_node(records.METADATA_NODE_ID)
        if meta is not None:
            for key, value in meta.props.items():
                tally.add("graph_metadata", [key, value])
