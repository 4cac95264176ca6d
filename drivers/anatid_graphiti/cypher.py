"""Raw Cypher from Graphiti or its users: run by the core's read-only Cypher engine.

``execute_query`` and ``session().run`` send the query to ``Store.cypher`` with Graphiti's record
shape (:mod:`.cypher_shape`), on the driver's store or, for a driver made by ``as_of``, on
that view of the past; ``as_of_=<datetime>`` asks one query of the past without a second
driver. Writes are refused (``CypherWriteRefused``: Graphiti itself writes through the
driver's operation interfaces, never through Cypher). The one query Graphiti sends before a
``remove_episode`` (the per-entity mention count) also tells the erasure that an episode removal
has begun, so that its deletes compact once, at its end.
"""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import datetime
from typing import Any

from anatid_core import InvalidInput

from . import erasure
from .cypher_shape import SHAPE
from .runner import ReadTarget, StoreRunner

Records = list[dict[str, Any]]


def normalise(query: str) -> str:
    return " ".join(query.split())


#: What Graphiti's ``remove_episode`` asks first, for each entity the episode mentions.
MENTION_COUNT = normalise(
    "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity {uuid: $uuid}) RETURN count(*) AS episode_count"
)


def answer(
    db: StoreRunner,
    query: str,
    params: dict[str, Any],
    as_of: datetime | None = None,
    timeout: float | None = None,
) -> Awaitable[Records]:
    """The records of read-only ``query``, as dicts from column to value, within ``timeout``
    seconds (the driver's ``cypher_timeout``; None: the core's default)."""
    if isinstance(query, str) and normalise(query) == MENTION_COUNT:
        erasure.start_episode_removal()
    if as_of is not None and not isinstance(as_of, datetime):
        raise InvalidInput(f"as_of_ takes a datetime, got {type(as_of).__name__}")

    def run(r: ReadTarget, deadline: float | None) -> Records:
        target = r if as_of is None else r.as_of(tx_time=as_of)
        return target.cypher(query, params, shape=SHAPE, timeout=deadline).records()

    return db.query(query, run, timeout)


__all__ = ["MENTION_COUNT", "answer"]
