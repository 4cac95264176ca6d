"""Hubs: the most connected nodes of the visible graph (issue 17)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..base.errors import InvalidInput
from ..base.model import Direction, Node
from ..storage.filters import record_filter
from ..storage.rows import NODE_COLS, node_from_row
from ..storage.turns import verbs_take_turns
from .adjacency import AdjacencyReads, sides_of


@dataclass(frozen=True)
class Hub:
    """A node and its degree: the visible edges (of the rels asked) leaving it (``out``),
    entering it (``in``) or both (a self-loop counts twice), as :meth:`degrees` counts them."""

    node: Node
    degree: int


@verbs_take_turns
class HubReads(AdjacencyReads):
    """``hubs`` (mixed into :class:`~anatid_core.reads.Reader`)."""

    def hubs(
        self,
        k: int = 10,
        *,
        direction: Direction = "both",
        rels: Iterable[str] | None = None,
        groups: Iterable[str] | None = None,
        labels: Iterable[str] | None = None,
    ) -> list[Hub]:
        """The ``k`` visible nodes (in ``groups``, carrying one of ``labels``) with the highest
        degree, highest first, ties by id. Nodes without an edge are not hubs."""
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            raise InvalidInput(f"k must be an int >= 0, got {k!r:.40}")
        sides = sides_of(direction)
        ef = record_filter("edge", visible=self.visibility.sql(kind="edge"), rels=_listed(rels))
        nf = record_filter(
            "node",
            visible=self.visibility.sql(kind="node"),
            groups=_listed(groups),
            labels=_listed(labels),
        )
        if k == 0:
            return []
        ends = " UNION ALL ".join(f"SELECT {side} AS id FROM e" for side in sides)
        sql = (
            f"WITH e AS (SELECT r.src, r.dst FROM edges r WHERE {ef.sql()}), "
            f"ends AS ({ends}), c AS (SELECT id, count(*) AS degree FROM ends GROUP BY id) "
            f"SELECT c.degree, {NODE_COLS} FROM c JOIN nodes r ON r.id = c.id "
            f"WHERE {nf.sql()} ORDER BY c.degree DESC, r.id LIMIT ?"
        )
        rows = self._query(sql, [*ef.params, *nf.params, k])
        return [Hub(node_from_row(row[1:]), int(row[0])) for row in rows]


def _listed(values: Iterable[str] | None) -> list[str] | None:
    if values is None or isinstance(values, str):
        return values  # type: ignore[return-value]  # a single string is refused by the filter
    return list(values)


__all__ = ["Hub", "HubReads"]
