"""The few fixed Cypher strings Graphiti still sends with both hook interfaces set.

There is no Cypher engine here. Graphiti 0.31 issues exactly two raw queries through
``execute_query`` when the hooks are implemented (the saga lookup by name in
``Graphiti._get_or_create_saga`` and the per-entity mention count in ``remove_episode``), and its
test helpers issue two more (``get_node_count``, ``get_edge_count``). They are recognised after
whitespace normalisation and answered from the store; any other query raises
``UnsupportedOperation`` quoting its first line, so new raw Cypher in a future Graphiti release
fails loudly instead of silently returning nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from anatid_core import UnsupportedOperation

from . import erasure
from . import mapping as m
from .runner import ReadTarget, StoreRunner

Records = list[dict[str, Any]]


def normalise(query: str) -> str:
    return " ".join(query.split())


SAGA_BY_NAME = normalise(
    """
    MATCH (s:Saga {name: $name, group_id: $group_id})
    RETURN s.uuid AS uuid, s.name AS name, s.group_id AS group_id, s.created_at AS created_at,
           s.first_episode_uuid AS first_episode_uuid, s.last_episode_uuid AS last_episode_uuid
    """
)
MENTION_COUNT = normalise(
    "MATCH (e:Episodic)-[:MENTIONS]->(n:Entity {uuid: $uuid}) RETURN count(*) AS episode_count"
)
NODE_COUNT = normalise(
    """
    MATCH (n)
    WHERE n.uuid IN $uuids
    RETURN COUNT(n) as count
    """
)
EDGE_COUNT = normalise(
    """
    MATCH (n)-[e]->(m)
    WHERE e.uuid IN $uuids
    RETURN COUNT(e) as count
    UNION ALL
    MATCH (e:RelatesToNode_)
    WHERE e.uuid IN $uuids
    RETURN COUNT(e) as count
    """
)


def _saga_by_name(r: ReadTarget, params: dict[str, Any]) -> Records:
    sagas = r.find_nodes(names=[params["name"]], groups=[params["group_id"]], labels=[m.SAGA])
    out = []
    for node in sagas:
        saga = m.to_saga(node)
        out.append(
            {
                "uuid": saga.uuid,
                "name": saga.name,
                "group_id": saga.group_id,
                "created_at": saga.created_at,
                "first_episode_uuid": saga.first_episode_uuid,
                "last_episode_uuid": saga.last_episode_uuid,
            }
        )
    return out


def _mention_count(r: ReadTarget, params: dict[str, Any]) -> Records:
    uuid = params["uuid"]
    node = r.get_node(uuid)
    if node is None or m.ENTITY not in node.labels:
        return [{"episode_count": 0}]
    count = r.degrees([uuid], direction="in", rels=[m.MENTIONS])[uuid]
    return [{"episode_count": count}]


def _node_count(r: ReadTarget, params: dict[str, Any]) -> Records:
    uuids = list(params["uuids"])
    return [{"count": r.count_nodes(ids=uuids) if uuids else 0}]


def _edge_count(r: ReadTarget, params: dict[str, Any]) -> Records:
    uuids = list(params["uuids"])
    return [{"count": r.count_edges(ids=uuids) if uuids else 0}, {"count": 0}]


ANSWERS: dict[str, Callable[[ReadTarget, dict[str, Any]], Records]] = {
    SAGA_BY_NAME: _saga_by_name,
    MENTION_COUNT: _mention_count,
    NODE_COUNT: _node_count,
    EDGE_COUNT: _edge_count,
}


def answer(db: StoreRunner, query: str, params: dict[str, Any]) -> Awaitable[Records]:
    """The records for a recognised query; raises UnsupportedOperation for any other."""
    handler = ANSWERS.get(normalise(query))
    if handler is None:
        first = next((line.strip() for line in query.splitlines() if line.strip()), "")
        raise UnsupportedOperation(
            f"GraphitiDriver does not run Cypher; unrecognised query starting {first!r}. "
            "anatid answers Graphiti through its operation interfaces; if a Graphiti release sends "
            "new raw Cypher, please report it"
        )
    if handler is _mention_count:
        # Only remove_episode sends this, before its deletes: they compact once, at its end.
        erasure.start_episode_removal()
    return db.read(lambda r: handler(r, params))


__all__ = ["ANSWERS", "EDGE_COUNT", "MENTION_COUNT", "NODE_COUNT", "SAGA_BY_NAME", "answer"]
