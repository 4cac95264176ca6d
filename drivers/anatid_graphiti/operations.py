"""The eleven operations objects of one driver, made once and shared by the driver and its hooks.

``GraphitiDriver`` exposes them as Graphiti's ``*_ops`` properties; the legacy hook objects
(:mod:`anatid_graphiti.legacy`) are built from the same bundle, so they delegate to the very
objects Graphiti's new API uses, and need nothing else of the driver.
"""

from __future__ import annotations

from dataclasses import dataclass

from .edge_ops import (
    AnatidCommunityEdgeOperations,
    AnatidEntityEdgeOperations,
    AnatidEpisodicEdgeOperations,
    AnatidHasEpisodeEdgeOperations,
    AnatidNextEpisodeEdgeOperations,
)
from .graph_ops import AnatidGraphMaintenanceOperations
from .node_ops import (
    AnatidCommunityNodeOperations,
    AnatidEntityNodeOperations,
    AnatidEpisodeNodeOperations,
    AnatidSagaNodeOperations,
)
from .runner import StoreRunner
from .search_ops import AnatidSearchOperations


@dataclass(frozen=True)
class Operations:
    """One driver's operations, by kind; ``Operations.over(runner)`` makes them."""

    entity_node: AnatidEntityNodeOperations
    episode_node: AnatidEpisodeNodeOperations
    community_node: AnatidCommunityNodeOperations
    saga_node: AnatidSagaNodeOperations
    entity_edge: AnatidEntityEdgeOperations
    episodic_edge: AnatidEpisodicEdgeOperations
    community_edge: AnatidCommunityEdgeOperations
    has_episode_edge: AnatidHasEpisodeEdgeOperations
    next_episode_edge: AnatidNextEpisodeEdgeOperations
    search: AnatidSearchOperations
    graph: AnatidGraphMaintenanceOperations

    @classmethod
    def over(cls, runner: StoreRunner) -> Operations:
        """Every operations object, each running its store calls through ``runner``."""
        return cls(
            entity_node=AnatidEntityNodeOperations(runner),
            episode_node=AnatidEpisodeNodeOperations(runner),
            community_node=AnatidCommunityNodeOperations(runner),
            saga_node=AnatidSagaNodeOperations(runner),
            entity_edge=AnatidEntityEdgeOperations(runner),
            episodic_edge=AnatidEpisodicEdgeOperations(runner),
            community_edge=AnatidCommunityEdgeOperations(runner),
            has_episode_edge=AnatidHasEpisodeEdgeOperations(runner),
            next_episode_edge=AnatidNextEpisodeEdgeOperations(runner),
            search=AnatidSearchOperations(runner),
            graph=AnatidGraphMaintenanceOperations(runner),
        )


__all__ = ["Operations"]
