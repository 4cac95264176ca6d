"""Graphiti's ``SearchFilters`` as anatid filter conditions.

Every field is honoured, with Neo4j's meaning:

* ``node_labels``: a node has any of the labels (for edges: both endpoints do);
* ``edge_types``: the edge ``name`` is one of them; ``edge_uuids``; source and target uuids;
* ``valid_at`` / ``invalid_at`` / ``created_at`` / ``expired_at``: each is an OR of ANDs of date
  comparisons (``IS NULL`` / ``IS NOT NULL`` included); different fields are ANDed together.

The result is anatid's ``where`` (an OR of ANDs), so the conjunction of several OR-of-AND filters
is expanded into its disjunctive normal form. Each comparison keeps its own value (Graphiti's own
Cypher builder reuses parameter names across OR groups; this does not).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from datetime import datetime, timezone

from graphiti_core.search.search_filters import ComparisonOperator, DateFilter, SearchFilters

from anatid_core import Cond

from .mapping import ENTITY

#: Graphiti date field -> anatid field holding it.
DATE_FIELDS = {
    "valid_at": "valid_from",
    "invalid_at": "valid_to",
    "created_at": "props.created_at",
    "expired_at": "props.expired_at",
}

_OPS = {
    ComparisonOperator.equals: "=",
    ComparisonOperator.not_equals: "!=",
    ComparisonOperator.greater_than: ">",
    ComparisonOperator.less_than: "<",
    ComparisonOperator.greater_than_equal: ">=",
    ComparisonOperator.less_than_equal: "<=",
    ComparisonOperator.is_null: "is null",
    ComparisonOperator.is_not_null: "is not null",
}

Conjunction = list[Cond]


def aware(value: datetime) -> datetime:
    """A naive datetime read as UTC, as Graphiti's ``ensure_utc`` does."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


def _date_cond(field: str, f: DateFilter) -> Cond:
    op = _OPS[f.comparison_operator]
    if op in ("is null", "is not null"):
        return Cond(field, op)  # type: ignore[arg-type]
    if f.date is None:
        # Cypher compares with null as unknown, which filters the row out: so do we.
        return Cond("id", "is null")  # ids are never null: always false
    return Cond(field, op, aware(f.date))  # type: ignore[arg-type]


def _date_dnf(field: str, groups: list[list[DateFilter]]) -> list[Conjunction]:
    return [[_date_cond(field, f) for f in group] for group in groups]


def _and(dnfs: Iterable[list[Conjunction]]) -> list[Conjunction]:
    """The AND of several ORs-of-ANDs, as one OR of ANDs."""
    out: list[Conjunction] = [[]]
    for dnf in dnfs:
        out = [a + b for a, b in itertools.product(out, dnf)]
    return out


def edge_where(
    search_filter: SearchFilters,
    *,
    source_uuid: str | None = None,
    target_uuid: str | None = None,
    endpoint_ids: list[str] | None = None,
) -> list[Conjunction] | None:
    """The ``where`` for an entity-edge search (None when nothing is filtered).

    ``endpoint_ids`` are the nodes carrying one of ``node_labels`` (looked up by the caller, and
    only when the labels can exclude an entity).
    """
    base: Conjunction = []
    f = search_filter
    if f.edge_types is not None:
        base.append(Cond("name", "in", list(f.edge_types)))
    if f.edge_uuids is not None:
        base.append(Cond("id", "in", list(f.edge_uuids)))
    if f.edge_source_node_uuids is not None:
        base.append(Cond("src", "in", list(f.edge_source_node_uuids)))
    if f.edge_target_node_uuids is not None:
        base.append(Cond("dst", "in", list(f.edge_target_node_uuids)))
    if source_uuid is not None:
        base.append(Cond("src", "=", source_uuid))
    if target_uuid is not None:
        base.append(Cond("dst", "=", target_uuid))
    if endpoint_ids is not None:
        base.append(Cond("src", "in", endpoint_ids))
        base.append(Cond("dst", "in", endpoint_ids))
    dnfs = [[base]]
    for name, field in DATE_FIELDS.items():
        groups = getattr(f, name)
        if groups is not None:
            dnfs.append(_date_dnf(field, groups))
    where = _and(dnfs)
    return None if where == [[]] else where


def labels_exclude_entities(node_labels: list[str] | None) -> bool:
    """Whether a node-label filter can drop an entity (every entity carries 'Entity')."""
    return node_labels is not None and ENTITY not in node_labels


__all__ = ["DATE_FIELDS", "aware", "edge_where", "labels_exclude_entities"]
