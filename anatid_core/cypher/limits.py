"""How many rows a query may hold at once.

A cartesian product of two large scans, or an unbounded variable-length relationship over a
dense graph, grows without end; past ``LIMITS["rows"]`` partial matches in one batch, or rows
gathered by one aggregating, DISTINCT or ORDER BY projection, the query stops with a
``CypherError`` instead of filling the memory of the process that holds the store.
"""

from __future__ import annotations

from ..base.errors import CypherError

LIMITS = {"rows": 2_000_000}


def check_size(rows: int) -> None:
    limit = LIMITS["rows"]
    if rows > limit:
        raise CypherError(
            f"the query holds more than {limit:,} rows at once (two unconnected patterns "
            "multiply, and an unbounded variable-length relationship grows with the graph): "
            "connect or narrow the patterns, bound the length (*1..3), or let a LIMIT stop the "
            "reads (a RETURN without ORDER BY, DISTINCT or aggregates streams); "
            "anatid_core.cypher.limits.LIMITS['rows'] sets the bound"
        )
