"""How Graphiti's records look to Cypher: the properties Graphiti's Neo4j queries store.

Graphiti's reference backend is Neo4j (the provider this driver claims), so a raw query sees a
node or relationship with the property map Graphiti's own Neo4j save queries write: an entity
is ``{uuid, name, group_id, created_at, summary, name_embedding}`` plus its attributes, a
RELATES_TO relationship ``{uuid, source_uuid, target_uuid, name, group_id, fact,
fact_embedding, episodes, created_at, expired_at, valid_at, invalid_at, reference_time}`` plus
its attributes, and so on (the values come from the Graphiti models the driver reads, so they
are what Graphiti's getters return). A node or relationship in a RETURN is its property map (a
dict), as Kuzu's driver gives. Neo4j's full-text procedures run on the store's BM25 over the
same fields Graphiti's Neo4j indexes cover; the Lucene query Graphiti builds is read back into
its group filter and its words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import Any, cast

from graphiti_core.nodes import CommunityNode, EpisodicNode, SagaNode

from anatid_core import (
    CYPHER_WHOLE_MAP,
    CypherProcedure,
    Edge,
    InvalidInput,
    Item,
    Kind,
    Node,
    Store,
    View,
)

from . import mapping as m
from .mapping.records import stored_time

#: Neo4j's full-text index names (graphiti_core.graph_queries) and what each covers here.
NODE_INDEXES = {
    "node_name_and_summary": m.ENTITY,
    "community_name": m.COMMUNITY,
    "episode_content": m.EPISODIC,
}
EDGE_INDEXES = {"edge_name_and_fact": m.RELATES_TO}
_GROUP = re.compile(r'group_id:"((?:[^"\\]|\\.)*)"')
_ESCAPED = re.compile(r"\\(.)")
_NODE_FIELDS = {"uuid": "id", "name": "name", "group_id": "group", "summary": "text"}
_EDGE_FIELDS = {"uuid": "id", "name": "name", "group_id": "group", "fact": "text"}
#: The properties of an entity and of a fact that are a record's column (set before the
#: attributes, which cannot replace them): read without the props (``quick_property``).
_ENTITY_COLUMNS: dict[str, Callable[[Any], Any]] = {
    key: attrgetter(field) for key, field in _NODE_FIELDS.items()
}
#: A fact's times that are null when their column is: ``valid_columns`` keeps an exact time in
#: ``props['_exact']`` only for a time it was given, and then its column is set.
_OPEN_ENDS = {"valid_at": "valid_from", "invalid_at": "valid_to"}
#: A fact's properties held in its props under their own name.
_FACT_PROPS = ("created_at", "expired_at", "reference_time")
_FACT_COLUMNS: dict[str, Callable[[Any], Any]] = {
    **{key: attrgetter(field) for key, field in _EDGE_FIELDS.items()},
    "source_uuid": attrgetter("src"),
    "target_uuid": attrgetter("dst"),
    # held in the props, set before the attributes too: a WHERE on ``r.expired_at IS NULL``
    # read them without building the whole map (a fifth of an entity's current facts)
    **{key: lambda e, key=key: e.props.get(key) for key in _FACT_PROPS},
    **{
        key: lambda e, key=key, at=at: stored_time(e, key, getattr(e, at))
        for key, at in _OPEN_ENDS.items()
    },
}
_ENTITY_COLUMNS["created_at"] = lambda n: n.props.get("created_at")


def node_properties(node: Node) -> dict[str, Any]:
    kind = m.node_kind(node)
    if kind == m.ENTITY:
        return entity_properties(node)
    model = _model(m.from_node, node) if kind else None
    if isinstance(model, EpisodicNode):
        return {
            "uuid": model.uuid,
            "name": model.name,
            "group_id": model.group_id,
            "source": model.source.value,
            "source_description": model.source_description,
            "content": model.content,
            "entity_edges": list(model.entity_edges),
            "created_at": model.created_at,
            "valid_at": model.valid_at,
        }
    if isinstance(model, (CommunityNode, SagaNode)):
        props = model.model_dump(exclude={"labels", "name_embedding"})
        return {k: v for k, v in props.items() if v is not None}
    # a node Graphiti did not write: the store's own fields
    return {"uuid": node.id, "name": node.name, "group_id": node.group, **dict(node.props)}


def _model(convert: Callable[[Any], Any], record: Any) -> Any:
    """The Graphiti model of a record, or None for one Graphiti did not write (the core's
    verbs, another tool: no ``created_at``, no ``source``), which Cypher then shows by the
    store's own fields, as Neo4j shows a node by the properties it has; the model's KeyError
    or ValidationError came out of execute_query untyped."""
    try:
        return convert(record)
    except (KeyError, ValueError, TypeError):  # pydantic's ValidationError is a ValueError
        return None


def entity_properties(node: Node) -> dict[str, Any]:
    """An entity's properties, the values ``to_entity`` puts in its EntityNode, read straight
    from the record: building the model (pydantic's validation) cost ~10 us a node, most of a
    Cypher label scan's time (issue 42). tests/graphiti/test_cypher.py checks it against the model."""
    props: dict[str, Any] = {
        "uuid": node.id,
        "name": node.name,
        "group_id": node.group,
        "summary": node.text,
        # Graphiti always sets it; a record written otherwise (the core's verbs, another
        # tool) has none, and a missing key was an untyped KeyError out of execute_query
        "created_at": node.props.get("created_at"),
    }
    for key, value in (node.props.get("attributes") or {}).items():
        props.setdefault(key, value)
    return props


def fact_properties(edge: Edge) -> dict[str, Any]:
    """A RELATES_TO edge's properties, the values ``to_entity_edge`` puts in its EntityEdge,
    read straight from the record (as :func:`entity_properties`)."""
    p = edge.props
    props: dict[str, Any] = {
        "uuid": edge.id,
        "source_uuid": edge.src,
        "target_uuid": edge.dst,
        "name": edge.name,
        "group_id": edge.group,
        "fact": edge.text,
        "episodes": list(p.get("episodes") or []),
        "created_at": p.get("created_at"),  # as entity_properties'
        "expired_at": p.get("expired_at"),
        "valid_at": stored_time(edge, "valid_at", edge.valid_from),
        "invalid_at": stored_time(edge, "invalid_at", edge.valid_to),
        "reference_time": p.get("reference_time"),
    }
    for key, value in (p.get("attributes") or {}).items():
        props.setdefault(key, value)
    return props


def edge_properties(edge: Edge) -> dict[str, Any]:
    if edge.rel == m.RELATES_TO:
        return fact_properties(edge)
    model = _model(m.from_edge, edge) if edge.rel in _PLAIN else None
    if model is not None:
        return {"uuid": model.uuid, "group_id": model.group_id, "created_at": model.created_at}
    return {"uuid": edge.id, "name": edge.name, "group_id": edge.group, **dict(edge.props)}


_PLAIN = frozenset({m.MENTIONS, m.HAS_MEMBER, m.HAS_EPISODE, m.NEXT_EPISODE})


def read_lucene(query: str) -> tuple[list[str], str]:
    """The group ids and the words of a query Graphiti built for Neo4j's full-text index
    (``group_id:"g" OR group_id:"h" AND (escaped words)``)."""
    groups = [_ESCAPED.sub(r"\1", g) for g in _GROUP.findall(query)]
    rest = _GROUP.sub(" ", query)
    rest = re.sub(r"^\s*(?:(?:OR|AND)\s+)*", "", rest.strip())
    rest = re.sub(r"^\s*(?:(?:OR|AND)\s*)+", "", rest)
    if rest.startswith("(") and rest.endswith(")"):
        rest = rest[1:-1]
    return groups, _ESCAPED.sub(r"\1", rest)


def _limit(options: Any) -> int:
    if isinstance(options, Mapping) and options.get("limit") is not None:
        return int(options["limit"])
    return 10


def _full_text(kind: Kind, indexes: Mapping[str, str], output: str) -> CypherProcedure:
    def run(target: Any, shape: Any, args: list[Any]) -> list[dict[str, Any]]:
        if len(args) < 2:
            raise InvalidInput("db.index.fulltext procedures take an index name and a query")
        index, query = args[0], args[1]
        if index not in indexes:
            raise InvalidInput(f"no full-text index {index!r}; Graphiti's are {sorted(indexes)}")
        if not isinstance(query, str) or not query.strip():
            return []
        groups, words = read_lucene(query)
        if not words.strip():
            return []
        reader = cast("Store | View", target)
        label = indexes[index]
        hits = reader.search_text(
            words,
            kind=kind,
            k=_limit(args[2] if len(args) > 2 else None),
            groups=groups or None,
            labels=[label] if kind == "node" else None,
            rels=[label] if kind == "edge" else None,
        )
        return [{output: hit.item, "score": hit.score} for hit in hits]

    return CypherProcedure([output, "score"], run)


PROCEDURES = {
    "db.index.fulltext.querynodes": _full_text("node", NODE_INDEXES, "node"),
    "db.index.fulltext.queryrelationships": _full_text("edge", EDGE_INDEXES, "relationship"),
}


class GraphitiShape:
    """Records as Graphiti's Neo4j queries stored them (see the module docstring)."""

    procedures: Mapping[str, CypherProcedure] = PROCEDURES

    def node_labels(self, node: Node) -> list[str]:
        return list(node.labels)

    def node_properties(self, node: Node) -> dict[str, Any]:
        return node_properties(node)

    def rel_type(self, edge: Edge) -> str:
        return edge.rel

    def rel_properties(self, edge: Edge) -> dict[str, Any]:
        return edge_properties(edge)

    def quick_property(self, item: Item, key: str) -> Any:
        """An entity's or a fact's column property (see ``entity_properties`` and
        ``fact_properties``), else ``CYPHER_WHOLE_MAP``."""
        if isinstance(item, Edge):
            if item.rel != m.RELATES_TO:
                return CYPHER_WHOLE_MAP
            if key in _OPEN_ENDS and getattr(item, _OPEN_ENDS[key]) is None:
                return None  # an open end: no exact time either (valid_columns keeps none)
            read = _FACT_COLUMNS.get(key)
        else:
            read = _ENTITY_COLUMNS.get(key) if m.ENTITY in item.labels else None
        return CYPHER_WHOLE_MAP if read is None else read(item)

    def embedding_key(self, item: Item) -> str | None:
        if isinstance(item, Edge):
            return "fact_embedding" if item.rel == m.RELATES_TO else None
        return "name_embedding" if m.ENTITY in item.labels or m.COMMUNITY in item.labels else None

    def field_of(self, kind: Kind, key: str) -> str | None:
        return (_EDGE_FIELDS if kind == "edge" else _NODE_FIELDS).get(key)

    def exact_field(self, kind: Kind, key: str, among: Sequence[str] | None) -> bool:
        # an entity's and a fact's fields are their columns (``quick_property``); another
        # record's (an episode's ``summary``, say) comes from its model
        if kind == "edge":
            return key in _EDGE_FIELDS and among is not None and set(among) == {m.RELATES_TO}
        return key in _NODE_FIELDS and among is not None and set(among) == {m.ENTITY}

    def null_field(self, kind: Kind, key: str, among: Sequence[str] | None) -> str | None:
        # a fact's open end has no exact time either (``quick_property``)
        if kind == "edge" and among is not None and set(among) == {m.RELATES_TO}:
            return _OPEN_ENDS.get(key)
        return None

    def store_labels(self, labels: Sequence[str]) -> list[str] | None:
        return list(labels)

    def store_rels(self, types: Sequence[str]) -> list[str] | None:
        return list(types)

    def node_value(self, node: Node, props: Mapping[str, Any]) -> Any:
        return dict(props)

    def rel_value(self, edge: Edge, props: Mapping[str, Any]) -> Any:
        return dict(props)


SHAPE = GraphitiShape()

__all__ = ["SHAPE", "GraphitiShape", "edge_properties", "node_properties", "read_lucene"]
