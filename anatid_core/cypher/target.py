"""What the engine reads: a Store or a View, through these read verbs of theirs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ..base.model import Direction, Edge, Kind, Node, Subgraph, Where


class ReadTarget(Protocol):
    """What the engine reads: a Store or a View (their read verbs)."""

    def find_nodes(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        where: Where | None = None,
        order_by: str | Sequence[str] | None = "id",
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Node]: ...

    def find_edges(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        rels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        src: Iterable[str] | None = None,
        dst: Iterable[str] | None = None,
        where: Where | None = None,
        order_by: str | Sequence[str] | None = "id",
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Edge]: ...

    def get_nodes(self, ids: Iterable[str]) -> list[Node]: ...

    def expand(
        self,
        seeds: Iterable[str],
        *,
        depth: int = 1,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
    ) -> Subgraph: ...

    def edge_ends(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> list[tuple[str, str, str, str]]: ...

    def neighbour_counts(
        self,
        node_ids: Iterable[str],
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
    ) -> dict[str, dict[tuple[str, tuple[str, ...]], int]]: ...

    def label_sets(self) -> list[tuple[str, ...]]: ...

    def count_label_sets(
        self,
        *,
        ids: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
        names: Iterable[str] | None = None,
        where: Where | None = None,
    ) -> dict[tuple[str, ...], int]: ...

    def find_node_columns(
        self,
        columns: Sequence[str],
        *,
        labels: Iterable[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> list[tuple[Any, ...]]: ...

    def get_node_columns(
        self, ids: Iterable[str], columns: Sequence[str]
    ) -> list[tuple[Any, ...]]: ...

    def find_edge_columns_lazily(
        self,
        columns: Sequence[str],
        *,
        rels: Iterable[str] | None = None,
        where: Where | None = None,
        limit: int | None = None,
    ) -> Sequence[tuple[Any, ...]]: ...

    def rel_names(self) -> list[str]: ...

    def get_embedding_arrays(
        self, ids: Iterable[str], *, kind: Kind = "node"
    ) -> dict[str, Any]: ...
