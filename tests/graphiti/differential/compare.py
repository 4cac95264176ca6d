"""Normalise two scenario dumps alike and list every remaining difference, value and type.

Only what legitimately differs between backends is normalised:

* generated uuids: every uuid of a record in the dump becomes a label made of what the scenario
  fixed (``EntityNode:g1:Alice``, ``EntityEdge:g1:<source>-WORKS_AT-><target>:<fact>``), so
  the same record has the same name on both sides;
* order where Graphiti promises none: the model getters' lists (sorted by label), and ties
  between equal reranker scores in search results (results sorted by score, then label);
* timestamps of writes: a datetime at or after the run's start (``created_at``, an
  ``expired_at`` set on invalidation) becomes ``$write-time``, its tz-awareness kept.

Everything else is compared as dumped: model classes, every field, value types (int vs float,
list vs tuple), datetimes and their tz-awareness, embeddings present or absent, attributes,
labels, errors by class. Floats compare to 1e-6 (embeddings go through float32 on some engines).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

NODE_MODELS = {"EntityNode", "EpisodicNode", "CommunityNode", "SagaNode"}
FLOAT_TOLERANCE = 1e-6
# Steps whose model lists Graphiti returns in a promised order (most recent episodes, by time).
ORDERED_STEPS = re.compile(r"retrieve_episodes")
# Steps that take the first N of a list ordered by uuid: which N is arbitrary, only N is compared.
COUNT_ONLY_STEPS = re.compile(r"/limit$")
SEARCH_LIMIT = 10  # DEFAULT_SEARCH_LIMIT: the recipes' and Graphiti.search's page size
# Search steps whose scores are RRF's (the episode-mentions reranker sorts RRF's results by
# mention count and reports RRF's scores; Graphiti.search without a center node is
# EDGE_HYBRID_SEARCH_RRF).
UNRANKED_STEPS = re.compile(r"/search_/[A-Z_]*_(RRF|EPISODE_MENTIONS)[@/]|/search/[^/]*$")
SCORED = {
    "edges": "edge_reranker_scores",
    "nodes": "node_reranker_scores",
    "episodes": "episode_reranker_scores",
    "communities": "community_reranker_scores",
}


@dataclass(frozen=True)
class Difference:
    step: str
    path: str
    reference: Any
    ours: Any

    def __str__(self) -> str:
        return (
            f"{self.step} {self.path}: reference={_short(self.reference)} ours={_short(self.ours)}"
        )


def _short(value: Any, width: int = 160) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= width else text[: width - 3] + "..."


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


# ---------------------------------------------------------------------------------- uuid labels


def _models(value: Any):
    if isinstance(value, dict):
        if "$model" in value:
            yield value
        for v in value.values():
            yield from _models(v)
    elif isinstance(value, list):
        for v in value:
            yield from _models(v)


def uuid_labels(dump: dict[str, Any]) -> dict[str, str]:
    """uuid -> a label built from the record's kind, group and names (unique per dump)."""
    records: dict[str, dict[str, Any]] = {}
    for step in dump["steps"]:
        for model in _models(step["result"]):
            uid = model.get("uuid")
            if isinstance(uid, str):
                records.setdefault(uid, model)
    labels: dict[str, str] = {}
    taken: dict[str, int] = {}

    def put(uid: str, label: str) -> None:
        n = taken.get(label, 0)
        taken[label] = n + 1
        labels[uid] = label if n == 0 else f"{label}#{n}"

    for uid, m in records.items():
        if m["$model"] in NODE_MODELS - {"CommunityNode"}:
            put(uid, f"{m['$model']}:{m.get('group_id')}:{m.get('name')}")
    # A community's name is an LLM summary (the fake gives all the same one): name it by members.
    members: dict[str, list[str]] = {}
    for m in records.values():
        if m["$model"] == "CommunityEdge":
            member = str(labels.get(m["target_node_uuid"], m["target_node_uuid"]))
            members.setdefault(m["source_node_uuid"], []).append(member.rsplit(":", 1)[-1])
    for uid, m in records.items():
        if m["$model"] == "CommunityNode":
            names = "+".join(sorted(members.get(uid, []))) or m.get("name")
            put(uid, f"CommunityNode:{m.get('group_id')}:{names}")
    for uid, m in records.items():
        if m["$model"] not in NODE_MODELS:
            src = labels.get(m.get("source_node_uuid", ""), m.get("source_node_uuid"))
            dst = labels.get(m.get("target_node_uuid", ""), m.get("target_node_uuid"))
            name = m.get("name", "")
            label = f"{m['$model']}:{m.get('group_id')}:{src}-{name}->{dst}"
            put(uid, label + (f":{m['fact']}" if "fact" in m else ""))
    return labels


# ---------------------------------------------------------------------------------- normalising


def _label_of(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("uuid", json.dumps(value, sort_keys=True)))
    return json.dumps(value, sort_keys=True)


def _search_results(model: dict[str, Any], *, ranked: bool) -> dict[str, Any]:
    """SearchResults with each list sorted by (score desc, label): ties have no promised order.

    Unranked (RRF: its scores are sums of 1/rank over the engine's full-text and similarity lists,
    whose BM25 and tie order are the engine's own) the results compare as a set. Ranked, results
    tied with the last one of a full page (``SEARCH_LIMIT``) are cut arbitrarily by the limit:
    only their number is compared.
    """
    out = dict(model)
    for items, scores in SCORED.items():
        got, sc = model.get(items, []), model.get(scores, [])
        if not ranked:
            out[items] = sorted(got, key=_label_of)
            out[scores] = {"$count": len(sc)}
            continue
        if len(got) != len(sc):
            continue  # a reranker that reports no scores: keep the returned order
        pairs = sorted(zip(got, sc, strict=True), key=lambda p: (-round(p[1], 6), _label_of(p[0])))
        if len(pairs) == SEARCH_LIMIT:
            last = round(pairs[-1][1], 6)
            kept = [p for p in pairs if round(p[1], 6) != last]
            cut = len(pairs) - len(kept)
            pairs = kept + [({"$tied-at-the-limit": cut}, last)] if cut else pairs
        out[items] = [p[0] for p in pairs]
        out[scores] = [p[1] for p in pairs]
    return out


class Normaliser:
    def __init__(self, dump: dict[str, Any]) -> None:
        self.labels = uuid_labels(dump)
        # A second's slack: a backend's clock read may round down to the second.
        self.started = datetime.fromisoformat(dump["started"]) - timedelta(seconds=1)
        self.ranked = True

    def step(self, step: dict[str, Any]) -> Any:
        if COUNT_ONLY_STEPS.search(step["step"]) and isinstance(step["result"], list):
            return {"$count": len(step["result"])}
        ordered = bool(ORDERED_STEPS.search(step["step"]))
        self.ranked = not UNRANKED_STEPS.search(step["step"])
        return self.value(step["result"], ordered=ordered)

    def value(self, value: Any, *, ordered: bool) -> Any:
        if isinstance(value, str):
            return self.labels.get(value, value)
        if isinstance(value, list):
            items = [self.value(v, ordered=ordered) for v in value]
            if not ordered and items and all(isinstance(i, dict) and "$model" in i for i in items):
                items.sort(key=_label_of)
            return items
        if not isinstance(value, dict):
            return value
        if "$datetime" in value:
            return self.datetime(value)
        out = {k: self.value(v, ordered=ordered) for k, v in value.items()}
        if out.get("$model") == "SearchResults":
            out = _search_results(out, ranked=self.ranked)
        if isinstance(out.get("labels"), list):
            out["labels"] = sorted(out["labels"])  # a set of labels, in whichever order
        return out

    def datetime(self, value: dict[str, Any]) -> dict[str, Any]:
        moment = datetime.fromisoformat(value["$datetime"])
        probe = moment if moment.tzinfo is not None else moment.replace(tzinfo=self.started.tzinfo)
        if probe >= self.started:
            return {"$datetime": "$write-time", "aware": value["aware"]}
        return value


def normalise(dump: dict[str, Any]) -> dict[str, Any]:
    n = Normaliser(dump)
    return {s["step"]: n.step(s) for s in dump["steps"]}


# ---------------------------------------------------------------------------------- comparing


def _diff(ref: Any, ours: Any, path: str, out: list[tuple[str, Any, Any]]) -> None:
    if isinstance(ref, bool) or isinstance(ours, bool) or type(ref) is not type(ours):
        if not (type(ref) is type(ours) and ref == ours):
            out.append((path, ref, ours))
        return
    if isinstance(ref, float):
        if not math.isclose(ref, ours, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE):
            out.append((path, ref, ours))
    elif isinstance(ref, dict):
        for key in sorted(set(ref) | set(ours)):
            if key not in ref or key not in ours:
                out.append((f"{path}.{key}", ref.get(key, "<absent>"), ours.get(key, "<absent>")))
            else:
                _diff(ref[key], ours[key], f"{path}.{key}", out)
    elif isinstance(ref, list):
        if len(ref) != len(ours):
            out.append((f"{path}.len", len(ref), len(ours)))
            out.append((f"{path}.items", [_label_of(r) for r in ref], [_label_of(o) for o in ours]))
            return
        for i, (r, o) in enumerate(zip(ref, ours, strict=True)):
            _diff(r, o, f"{path}[{i}]", out)
    elif ref != ours:
        out.append((path, ref, ours))


def differences(reference: dict[str, Any], ours: dict[str, Any]) -> list[Difference]:
    ref_n, our_n = normalise(reference), normalise(ours)
    found: list[Difference] = []
    for step in list(dict.fromkeys([*ref_n, *our_n])):
        if step not in ref_n or step not in our_n:
            found.append(Difference(step, "", step in ref_n, step in our_n))
            continue
        raw: list[tuple[str, Any, Any]] = []
        _diff(ref_n[step], our_n[step], "", raw)
        found.extend(Difference(step, p, r, o) for p, r, o in raw)
    return found


# ------------------------------------------------------------------------- explained differences


@dataclass(frozen=True)
class Explained:
    """A difference that must stay, with the docs entry that says why (docs/drivers/graphiti.md,
    "Known differences and limits")."""

    key: str
    references: frozenset[str]
    doc: str
    steps: str  # regex on the step name
    paths: str = ""  # regex on the path inside the step

    def covers(self, reference: str, d: Difference) -> bool:
        return (
            reference in self.references
            and re.search(self.steps, d.step) is not None
            and re.search(self.paths, d.path) is not None
        )


def _naive_copy(d: Difference) -> bool:
    """The reference's datetime is ours without its UTC offset (same instant, naive)."""
    if d.path.endswith(".aware"):
        return d.reference is False and d.ours is True
    if d.path.endswith(".$datetime") and isinstance(d.ours, str):
        return d.ours == f"{d.reference}+00:00"
    return False


KUZU = frozenset({"kuzu"})
FALKORDB = frozenset({"falkordb"})
BOTH = KUZU | FALKORDB
SEARCH_STEP = r"/search_?/"
CANDIDATES = "search-candidates"  # decided against the step's @all counterpart, in explain()
EXPLAINED = [
    Explained(
        "kuzu-naive-datetimes",
        KUZU,
        "Kuzu returns naive datetimes",
        r".",
        r"\.(aware|\$datetime)$",
    ),
    Explained(
        "kuzu-directed-matches",
        KUZU,
        "Kuzu matches RELATES_TO in one direction",
        r"EntityEdge\.get_by_node_uuid|_NODE_DISTANCE|/search/[^/]*/center$",
    ),
    Explained(
        "falkordb-node-distance",
        FALKORDB,
        "FalkorDB's node-distance reranker finds no neighbour",
        r"_NODE_DISTANCE|/search/[^/]*/center$",
    ),
    Explained(
        "falkordb-graph-per-group",
        FALKORDB,
        "FalkorDB keeps each group in a graph of its own",
        r"/many$|^retrieve_episodes/(all|text-only)$| in g1,g2,g3",
    ),
    Explained(
        "falkordb-episodes-time",
        FALKORDB,
        "FalkorDB's retrieve_episodes ignores the reference time",
        r"^retrieve_episodes/before-day2$",
    ),
    Explained(
        CANDIDATES,
        BOTH,
        "Search candidates differ with Graphiti's thresholds",
        SEARCH_STEP + r"(?!.*@all)",
    ),
]
EXPLAINED_BY_KEY = {e.key: e for e in EXPLAINED}


def _counterpart(step: str) -> str:
    """The ``@all`` search step that differs from ``step`` only by threshold and limit."""
    if "/search_/" in step:
        head, name, query = step.rsplit("/", 2)
        return f"{head}/{name}@all/{query}"
    head, _, rest = step.partition("/search/")
    query, _, center = rest.partition("/")
    recipe = "EDGE_HYBRID_SEARCH_NODE_DISTANCE" if center else "EDGE_HYBRID_SEARCH_RRF"
    return f"{head}/search_/{recipe}@all/{query}"


def explain(reference: str, found: list[Difference]) -> tuple[list[Difference], dict[str, int]]:
    """(unexplained differences, how many each explanation covered).

    ``search-candidates`` covers a search step only when the same search with every candidate let
    through (its ``@all`` counterpart) shows no unexplained difference: what the engine's
    threshold and full-text match let through is then the only cause.
    """
    used: dict[str, int] = {}
    rest: list[Difference] = []
    for d in found:
        hit = next((e for e in EXPLAINED if e.covers(reference, d) and _holds(e, d)), None)
        if hit is None:
            rest.append(d)
        else:
            used[hit.key] = used.get(hit.key, 0) + 1
    unexplained_steps = {d.step for d in rest}
    scale = EXPLAINED_BY_KEY[CANDIDATES]
    final: list[Difference] = []
    for d in rest:
        if scale.covers(reference, d) and _counterpart(d.step) not in unexplained_steps:
            used[scale.key] = used.get(scale.key, 0) + 1
        else:
            final.append(d)
    return final, used


def _holds(e: Explained, d: Difference) -> bool:
    if e.key == "kuzu-naive-datetimes":
        return _naive_copy(d)
    return e.key != CANDIDATES
