"""How Graphiti's records are stored as anatid nodes and edges, both ways.

This package is public: ``anatid-migrate`` loads migrated data through it so that a migrated file
is byte-for-byte what the driver itself would have written. Import its names from here; they live
in :mod:`.records` (kinds, spaces, payload keys, valid time), :mod:`.nodes` and :mod:`.edges`.

Nodes (``labels`` tell the kinds apart; every Graphiti uuid is the anatid id)::

    EntityNode     labels = its labels + 'Entity'   name = name    text = summary
                   embedding = name_embedding (space 'name')
                   props = {created_at, attributes}
    EpisodicNode   labels = ('Episodic',)           name = name    text = content [+ source_description]
                   valid_from = valid_at
                   props = {created_at, source, source_description, entity_edges, episode_metadata}
    CommunityNode  labels = ('Community',)          name = name    text = summary
                   embedding = name_embedding (space 'name')   props = {created_at}
    SagaNode       labels = ('Saga',)               name = name    text = summary
                   props = {created_at, first_episode_uuid, last_episode_uuid,
                            last_summarized_at, last_summarized_episode_valid_at}

Edges (``rel`` is the Neo4j relationship type)::

    EntityEdge       RELATES_TO    name = name   text = fact
                     embedding = fact_embedding (space 'fact')
                     valid_from = valid_at   valid_to = invalid_at
                     props = {created_at, expired_at, episodes, reference_time, attributes}
    EpisodicEdge     MENTIONS      props = {created_at}
    CommunityEdge    HAS_MEMBER    props = {created_at}
    HasEpisodeEdge   HAS_EPISODE   props = {created_at}
    NextEpisodeEdge  NEXT_EPISODE  props = {created_at}

Why these choices:

* The store's full-text index covers ``name`` + ``text``; Neo4j's Graphiti indexes cover entity
  name + summary, edge name + fact, community name and episode content + source description. So an
  episode's source description is appended to its text after a blank line, and cut off again on
  the way back (its length is known from props), so ``content`` round-trips exactly.
* Attributes are kept nested under ``props['attributes']`` so that no attribute name can collide
  with Graphiti's own fields, and datetimes inside them come back as datetimes.
* Valid time lives in the store's ``valid_from``/``valid_to`` columns, which must be aware and
  ordered. A Graphiti time that the columns cannot hold exactly (a naive datetime, a non-UTC
  offset, or ``invalid_at`` before ``valid_at``) is also kept verbatim in ``props['_exact']`` and
  returned from there, so every value round-trips exactly, ``None`` included.
"""

from .edges import (
    entity_edge,
    entity_payload_edge,
    from_edge,
    plain_payload_edge,
    to_edge,
    to_entity_edge,
    to_plain_edge,
)
from .nodes import (
    community_node,
    entity_node,
    entity_payload_node,
    episode_node,
    episode_payload_node,
    from_node,
    node_kind,
    saga_node,
    to_community,
    to_entity,
    to_episode,
    to_node,
    to_saga,
)
from .records import (
    COMMUNITY,
    EDGE_KINDS,
    EDGE_PAYLOAD_KEYS,
    ENTITY,
    ENTITY_PAYLOAD_KEYS,
    EPISODIC,
    FACT_SPACE,
    HAS_EPISODE,
    HAS_MEMBER,
    MENTIONS,
    NAME_SPACE,
    NEXT_EPISODE,
    NODE_KINDS,
    RELATES_TO,
    SAGA,
    split_attributes,
)

__all__ = [
    "COMMUNITY",
    "EDGE_KINDS",
    "EDGE_PAYLOAD_KEYS",
    "ENTITY",
    "ENTITY_PAYLOAD_KEYS",
    "EPISODIC",
    "FACT_SPACE",
    "HAS_EPISODE",
    "HAS_MEMBER",
    "MENTIONS",
    "NAME_SPACE",
    "NEXT_EPISODE",
    "NODE_KINDS",
    "RELATES_TO",
    "SAGA",
    "community_node",
    "entity_edge",
    "entity_node",
    "entity_payload_edge",
    "entity_payload_node",
    "episode_node",
    "episode_payload_node",
    "from_edge",
    "from_node",
    "node_kind",
    "plain_payload_edge",
    "saga_node",
    "split_attributes",
    "to_community",
    "to_edge",
    "to_entity",
    "to_entity_edge",
    "to_episode",
    "to_node",
    "to_plain_edge",
    "to_saga",
]
