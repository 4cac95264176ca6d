"""Graph provenance state kept in one reserved property of a node or edge.

Cognee's provenance contract (``cognee.infrastructure.databases.provenance``) stores four lists
per artifact: the source refs that own it, the dataset ids and pipeline run ids derived from
them, and the run refs used for rollback. The state transitions are Cognee's own pure functions
(``provenance_after_attach`` / ``provenance_after_remove``); this module only reads and writes
the four lists in the record's properties.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cognee.infrastructure.databases.provenance.source_ref_state import (
    ProvenanceColumns,
    provenance_after_attach,
    provenance_after_remove,
)

from .records import PROVENANCE_KEY

_FIELDS = ProvenanceColumns._fields  # source_ref_keys, source_dataset_ids, ...

EMPTY = ProvenanceColumns([], [], [], [])


def read(props: Mapping[str, Any]) -> ProvenanceColumns:
    """The four provenance lists stored in ``props`` (empty lists when there are none)."""
    stored = props.get(PROVENANCE_KEY)
    if not isinstance(stored, Mapping):
        return EMPTY
    return ProvenanceColumns(*(list(stored.get(field) or []) for field in _FIELDS))


def as_props(columns: ProvenanceColumns) -> dict[str, list[str]] | None:
    """The stored form of ``columns``; None when the artifact has no provenance at all."""
    if not any(columns):
        return None
    return {field: list(value) for field, value in zip(_FIELDS, columns, strict=True)}


def with_provenance(props: Mapping[str, Any], columns: ProvenanceColumns) -> dict[str, Any]:
    """``props`` with its provenance replaced by ``columns``."""
    updated = {k: v for k, v in props.items() if k != PROVENANCE_KEY}
    stored = as_props(columns)
    if stored is not None:
        updated[PROVENANCE_KEY] = stored
    return updated


def attach(
    current: ProvenanceColumns, keys: list[str], pipeline_run_id: str | None
) -> ProvenanceColumns:
    return provenance_after_attach(
        current.source_ref_keys, current.source_run_refs, keys, pipeline_run_id
    )


def remove(current: ProvenanceColumns, keys: list[str]) -> ProvenanceColumns:
    return provenance_after_remove(current.source_ref_keys, current.source_run_refs, keys)
