"""Every difference the harness accepts, each with its reason and its entry in the docs.

A pattern (``*`` matches anything, all else is literal) names the paths of the comparison it explains; the test fails on a
difference no pattern explains and on a pattern that explains nothing (a stale entry).
The reasons are written out in docs/drivers/cognee.md, section "Known differences".
"""

from __future__ import annotations

from dataclasses import dataclass

DOCS = "docs/drivers/cognee.md#known-differences"


@dataclass(frozen=True)
class Known:
    patterns: tuple[str, ...]
    reason: str
    docs: str = DOCS


KNOWN: dict[str, Known] = {
    "graph-metrics-components": Known(
        (
            "*.get_graph_metrics.num_connected_components",
            "*.get_graph_metrics.sizes_of_connected_components",
        ),
        "LadybugDB's component count is one per node and its sizes overlap (they sum to more "
        "than the node count); anatid returns the real connected components.",
    ),
    "nodeset-subgraph-edges-twice": Known(
        ("*.get_nodeset_subgraph.$tuple[1][*]",),
        "LadybugDB's get_nodeset_subgraph matches edges undirected from each end, so an edge "
        "comes back twice, once reversed; anatid returns each edge once, in its direction.",
    ),
    "feedback-drops-datapoint-times": Known(
        (
            "feedback.edges_after.$tuple[0][*].$tuple[1].created_at",
            "feedback.edges_after.$tuple[0][*].$tuple[1].updated_at",
        ),
        "LadybugDB's set_node_feedback_weights / set_node_truth_state rewrite the property "
        "blob without the DataPoint's created_at/updated_at, so later reads lack them; "
        "anatid keeps every property a feedback write did not name.",
    ),
    "property-key-order": Known(
        (
            "visualize.json.schema_graph.nodes[*].fields[*].name",
            "visualize.json.schema_graph.nodes[*].fields[*].type",
        ),
        "anatid stores properties as canonical JSON (keys sorted); LadybugDB keeps model_dump "
        "order. The dicts are equal; visualize's schema panel lists fields in key order.",
    ),
}

#: Compared, and expected to differ until fixed: strict xfail, so the test turns red the day it
#: passes (docs/drivers/cognee.md, "Known differences", the pending row).
PENDING: dict[str, str] = {}
