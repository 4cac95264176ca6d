"""Graphiti's KuzuDriver schema onto anatid.

Each source row is turned into the Graphiti model that KuzuDriver itself would return, by
Graphiti's own record parsers (``get_entity_node_from_record(record, KUZU)`` and friends), then
stored through the anatid Graphiti driver's public mapping (``anatid_graphiti.mapping``), exactly
as GraphitiDriver stores it. Reading back through GraphitiDriver therefore returns what Graphiti
returned from Kuzu.

KuzuDriver stores each fact ``(a)-[:RELATES_TO {...}]->(b)`` as
``(a:Entity)-[:RELATES_TO]->(f:RelatesToNode_)-[:RELATES_TO]->(b:Entity)`` (Kuzu cannot put a
full-text index on relationship properties). The reader streams ``RELATES_TO`` first, so both
endpoints of every fact are known when its ``RelatesToNode_`` row arrives and each fact is folded
back into one edge without holding the facts in memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from anatid_graphiti import mapping
from graphiti_core.driver.driver import GraphProvider
from graphiti_core.edges import (
    get_community_edge_from_record,
    get_entity_edge_from_record,
    get_episodic_edge_from_record,
    get_has_episode_edge_from_record,
    get_next_episode_edge_from_record,
)
from graphiti_core.nodes import (
    get_community_node_from_record,
    get_entity_node_from_record,
    get_episodic_node_from_record,
    get_saga_node_from_record,
)

from anatid_core import Store

from .errors import UnknownSchema
from .plan import pages
from .report import MigrationReport
from .source import Batch, Catalog
from .vectors import split_vectors, vector_digest

KUZU = GraphProvider.KUZU
FACT = "RelatesToNode_"

#: Kuzu node table -> (record parser, the name the report uses)
NODE_TABLES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "Episodic": (get_episodic_node_from_record, "episode"),
    "Entity": (lambda r: get_entity_node_from_record(r, KUZU), "entity"),
    "Community": (get_community_node_from_record, "community"),
    "Saga": (get_saga_node_from_record, "saga"),
}
#: Kuzu relationship table -> (record parser, report name); RELATES_TO is folded separately.
EDGE_TABLES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "MENTIONS": (get_episodic_edge_from_record, "mentions"),
    "HAS_MEMBER": (get_community_edge_from_record, "has_member"),
    "HAS_EPISODE": (get_has_episode_edge_from_record, "has_episode"),
    "NEXT_EPISODE": (get_next_episode_edge_from_record, "next_episode"),
}
#: Columns each table has in KuzuDriver's SCHEMA_QUERIES (graphiti-core 0.31.2).
KNOWN_COLUMNS: dict[str, set[str]] = {
    "Episodic": {"uuid", "name", "group_id", "created_at", "source", "source_description",
                 "content", "valid_at", "entity_edges"},
    "Entity": {"uuid", "name", "group_id", "labels", "created_at", "name_embedding", "summary",
               "attributes"},
    "Community": {"uuid", "name", "group_id", "created_at", "name_embedding", "summary"},
    "Saga": {"uuid", "name", "group_id", "created_at", "summary", "first_episode_uuid",
             "last_episode_uuid", "last_summarized_at", "last_summarized_episode_valid_at"},
    FACT: {"uuid", "group_id", "created_at", "name", "fact", "fact_embedding", "episodes",
           "expired_at", "valid_at", "invalid_at", "reference_time", "attributes"},
    "RELATES_TO": set(),
    "MENTIONS": {"uuid", "group_id", "created_at"},
    "HAS_MEMBER": {"uuid", "group_id", "created_at"},
    "HAS_EPISODE": {"uuid", "group_id", "created_at"},
    "NEXT_EPISODE": {"uuid", "group_id", "created_at"},
}  # fmt: skip
REQUIRED = ("Episodic", "Entity", FACT, "RELATES_TO")
#: Embedding columns, moved as float32 rows beside the models (see vectors.py).
VECTOR_COLUMNS = {"Entity": "name_embedding", "Community": "name_embedding", FACT: "fact_embedding"}
VECTOR_FIELD = {"entity": "name_embedding", "community": "name_embedding", "fact": "fact_embedding"}


def tally_fields(model: Any) -> dict[str, Any]:
    """What verification compares: the model as Graphiti would serialise it, embeddings included."""
    return model.model_dump(mode="json")


class GraphitiPlan:
    kind: str = "graphiti"
    order: tuple[str, ...] = (
        "RELATES_TO",
        "Episodic",
        "Entity",
        "Community",
        "Saga",
        FACT,
        "MENTIONS",
        "HAS_MEMBER",
        "HAS_EPISODE",
        "NEXT_EPISODE",
    )

    def __init__(self) -> None:
        self.fact_src: dict[str, str] = {}
        self.fact_dst: dict[str, str] = {}
        self.orphans = 0

    def check_catalog(self, catalog: Catalog, report: MigrationReport) -> None:
        missing = [t for t in REQUIRED if t not in catalog.tables]
        if missing:
            raise UnknownSchema(
                f"{report.source} has tables {sorted(catalog.tables)}, not Graphiti's KuzuDriver "
                f"schema (missing {missing}). Is this a Cognee file? Try `anatid-migrate cognee`."
            )
        for name, info in catalog.tables.items():
            if name not in KNOWN_COLUMNS:
                report.not_migrated.append(f"table {name} ({info.rows} rows): not a Graphiti table")
                continue
            extra = sorted(set(info.properties) - KNOWN_COLUMNS[name])
            if extra:
                report.not_migrated.append(
                    f"{name} columns {extra}: not in Graphiti's schema, Graphiti never reads them"
                )

    def load(self, store: Store | None, batch: Batch, report: MigrationReport) -> None:
        vec_col = VECTOR_COLUMNS.get(batch.table)
        data, vecs = split_vectors(batch.data, vec_col) if vec_col else (batch.data, [])
        rows = data.to_pylist()
        if vec_col:
            # Graphiti's parsers see None for a vector; an empty list or null passes as is.
            for r, v in zip(rows, vecs, strict=True):
                r[vec_col] = v if v is None or isinstance(v, list) else None
        if batch.table == "RELATES_TO":
            self._endpoints(batch, rows)
        elif batch.table in NODE_TABLES:
            parse, kind = NODE_TABLES[batch.table]
            models = [parse(r) for r in rows]
            self._write(store, models, vecs or [None] * len(models), kind, report, nodes=True)
        elif batch.table == FACT:
            self._facts(store, rows, vecs, report)
        elif batch.table in EDGE_TABLES:
            parse, kind = EDGE_TABLES[batch.table]
            for r in rows:
                r["source_node_uuid"], r["target_node_uuid"] = r.pop("_src"), r.pop("_dst")
            models = [parse(r) for r in rows]
            self._write(store, models, [None] * len(models), kind, report, nodes=False)

    def _endpoints(self, batch: Batch, rows: list[dict[str, Any]]) -> None:
        if (batch.src_table, batch.dst_table) == ("Entity", FACT):
            self.fact_src.update((r["_dst"], r["_src"]) for r in rows)
        elif (batch.src_table, batch.dst_table) == (FACT, "Entity"):
            self.fact_dst.update((r["_src"], r["_dst"]) for r in rows)

    def _facts(
        self,
        store: Store | None,
        rows: list[dict[str, Any]],
        vecs: list[Any],
        report: MigrationReport,
    ) -> None:
        models, kept = [], []
        for r, v in zip(rows, vecs, strict=True):
            src, dst = self.fact_src.get(r["uuid"]), self.fact_dst.get(r["uuid"])
            if src is None or dst is None:
                self.orphans += 1  # Graphiti's own reads never see a fact without both ends
                continue
            r["source_node_uuid"], r["target_node_uuid"] = src, dst
            models.append(get_entity_edge_from_record(r, KUZU))
            kept.append(v)
        self._write(store, models, kept, "fact", report, nodes=False)

    def _write(
        self,
        store: Store | None,
        models: list[Any],
        vecs: list[Any],
        kind: str,
        report: MigrationReport,
        *,
        nodes: bool,
    ) -> None:
        """Tally and store models through the driver mapping; a float32 row found beside a
        model becomes its embedding exactly where the mapping puts the model's own vector."""
        records = []
        for m, v in zip(models, vecs, strict=True):
            fields = tally_fields(m)
            record = mapping.to_node(m) if nodes else mapping.to_edge(m)
            if v is not None and not isinstance(v, list):
                fields[VECTOR_FIELD[kind]] = vector_digest(v)
                record = replace(record, embedding=v)
            report.source_tally.add(kind, fields)
            records.append(record)
        if store is not None:
            if nodes:
                store.upsert_nodes(records)
            else:
                store.upsert_edges(records)
        report.written[kind] = report.written.get(kind, 0) + len(records)

    def finish(self, store: Store | None, report: MigrationReport) -> None:
        if self.orphans:
            report.not_migrated.append(
                f"{self.orphans} RelatesToNode_ rows without both RELATES_TO halves: facts "
                "Graphiti's own queries on Kuzu never return"
            )
        self.fact_src.clear()
        self.fact_dst.clear()

    def read_back(self, store: Store, report: MigrationReport) -> None:
        names = {v[1]: k for k, v in NODE_TABLES.items()}  # kind -> label
        for kind, label in names.items():
            for page in pages(store.find_nodes, labels=[label]):
                page = [n for n in page if mapping.node_kind(n) == label]
                vectors = (
                    store.get_embedding_arrays([n.id for n in page], kind="node")
                    if kind in VECTOR_FIELD
                    else {}
                )
                for node in page:
                    self._tally_back(report, kind, mapping.from_node(node), vectors.get(node.id))
        rels = {"fact": mapping.RELATES_TO, **{v[1]: k for k, v in EDGE_TABLES.items()}}
        for kind, rel in rels.items():
            for page in pages(store.find_edges, rels=[rel]):
                vectors = (
                    store.get_embedding_arrays([e.id for e in page], kind="edge")
                    if kind == "fact"
                    else {}
                )
                for edge in page:
                    self._tally_back(report, kind, mapping.from_edge(edge), vectors.get(edge.id))

    @staticmethod
    def _tally_back(report: MigrationReport, kind: str, model: Any, vector: Any) -> None:
        """Tally a record read back through the mapping, its embedding as a digest (what
        GraphitiDriver would put in the model's embedding field, hashed like the source's)."""
        fields = tally_fields(model)
        if kind in VECTOR_FIELD:
            fields[VECTOR_FIELD[kind]] = None if vector is None else vector_digest(vector)
        report.target_tally.add(kind, fields)
