"""Everything Graphiti's own API returns from a graph driver, as JSON-able dicts.

Shared by the source generator (on KuzuDriver) and the migrate tests (on GraphitiDriver), so
both sides are read the same way. Imports only graphiti_core.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from graphiti_core.edges import (
    CommunityEdge,
    EntityEdge,
    EpisodicEdge,
    HasEpisodeEdge,
    NextEpisodeEdge,
)
from graphiti_core.nodes import (
    CommunityNode,
    EntityNode,
    EpisodicNode,
    SagaNode,
    get_saga_node_from_record,
)

GROUPS = ["g1", "g2"]
LATER = datetime(2030, 1, 1, tzinfo=timezone.utc)


async def _sagas(driver: Any) -> list[Any]:
    try:
        return await SagaNode.get_by_group_ids(driver, GROUPS)
    except Exception:
        # KuzuDriver cannot read sagas back (its Saga table lacks the columns Graphiti's query
        # returns: "Cannot find property summary"), so parse the rows it stored the way
        # Graphiti would, with its own record parser.
        records, _, _ = await driver.execute_query(
            "MATCH (s:Saga) RETURN s.uuid AS uuid, s.name AS name, s.group_id AS group_id, "
            "s.created_at AS created_at"
        )
        return [get_saga_node_from_record(r) for r in records]


async def dump(driver: Any) -> dict[str, list[dict]]:
    """Everything Graphiti's own API returns from the Kuzu file, embeddings included."""
    entities = await EntityNode.get_by_group_ids(driver, GROUPS)
    for n in entities:
        await n.load_name_embedding(driver)
    facts = await EntityEdge.get_by_group_ids(driver, GROUPS)
    for e in facts:
        await e.load_fact_embedding(driver)
    communities = await CommunityNode.get_by_group_ids(driver, GROUPS)
    for c in communities:
        await c.load_name_embedding(driver)
    out = {
        "entities": entities,
        "facts": facts,
        "episodes": await EpisodicNode.get_by_group_ids(driver, GROUPS),
        "communities": communities,
        "mentions": await EpisodicEdge.get_by_group_ids(driver, GROUPS),
        "has_member": await CommunityEdge.get_by_group_ids(driver, GROUPS),
        "has_episode": await HasEpisodeEdge.get_by_group_ids(driver, GROUPS),
        "next_episode": await NextEpisodeEdge.get_by_group_ids(driver, GROUPS),
        "sagas": await _sagas(driver),
    }
    # A few of Graphiti's read paths beyond plain gets, over the same records.
    from graphiti_core.search.search_utils import get_communities_by_nodes, get_mentioned_nodes
    from graphiti_core.utils.maintenance.graph_data_operations import retrieve_episodes

    recent = await retrieve_episodes(driver, LATER, last_n=4, group_ids=["g1"])
    out["retrieve_episodes"] = recent
    out["mentioned_nodes"] = await get_mentioned_nodes(driver, recent)
    out["communities_by_nodes"] = await get_communities_by_nodes(driver, entities)
    ordered = {"retrieve_episodes"}  # Graphiti's order is part of the answer
    return {
        k: [m.model_dump(mode="json") for m in v]
        if k in ordered
        else sorted((m.model_dump(mode="json") for m in v), key=lambda d: d["uuid"])
        for k, v in out.items()
    }
