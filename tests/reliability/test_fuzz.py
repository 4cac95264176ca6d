"""Hypothesis drives random sequences of write verbs (valid and invalid) and holds every read verb
against a plain-Python model of the store: a dict of current nodes and a dict of current edges.

Invalid writes (NaN embeddings, NUL text, edges to missing nodes, closing a missing node) must
raise a typed error and leave the model's state unchanged; every other write must do exactly what
the model does. After each step: lookups, filters, counts, neighbours, BM25 and cosine searches
and ``check()`` agree with the model. Examples: ``SIZES["fuzz_examples"]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from anatid_core import Edge, InvalidInput, Node, NotFound, Store

from .conftest import SIZES

IDS = [f"n{i}" for i in range(8)]
GROUPS = ["g1", "g2", "g'; DROP TABLE nodes; --"]
WORDS = ["apple", "river", "Ünïcode", "東京", "robert'); drop", "x"]
RELS = ["KNOWS", "LIKES", "`weird`"]

texts = st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)
# Cosine needs a direction: a vector whose norm underflows float32 (every part below ~1e-19)
# reads as zero and is found by nothing, so the model keeps to norms well above that.
vectors = st.one_of(
    st.none(),
    st.lists(st.floats(-2, 2, allow_nan=False, width=32), min_size=3, max_size=3).filter(
        lambda v: sum(x * x for x in v) > 1e-12
    ),
)
#: Property text the store accepts (NUL and lone surrogates are refused; the poison rule tries them).
clean_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=3
)
props = st.dictionaries(
    st.sampled_from(["a", "b", "when"]),
    st.one_of(st.integers(-5, 5), clean_text, st.booleans(), st.none()),
    max_size=2,
)


@dataclass
class Rec:
    fields: dict[str, Any] = field(default_factory=dict)


def _node_key(n: Node) -> tuple[Any, ...]:
    return (n.group, tuple(n.labels), n.name, n.text, dict(n.props), n.valid_to)


def _f32(values: Any) -> tuple[float, ...]:
    """The store keeps float32: compare both sides at that precision."""
    return tuple(float(np.float32(x)) for x in values)


def _edge_key(e: Edge) -> tuple[Any, ...]:
    return (e.src, e.dst, e.rel, e.group, e.text, dict(e.props))


class StoreMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.store = Store.open(":memory:")
        self.nodes: dict[str, Node] = {}
        self.edges: dict[str, Edge] = {}

    def teardown(self) -> None:
        self.store.close()

    # ------------------------------------------------------------------------------ writes

    @rule(
        batch=st.lists(
            st.tuples(st.sampled_from(IDS), st.sampled_from(GROUPS), texts, texts, props, vectors),
            min_size=1,
            max_size=5,
        ),
        poison=st.sampled_from([None, "nan", "nul", "surrogate", "naive"]),
    )
    def upsert_nodes(self, batch, poison) -> None:
        nodes = [
            Node(
                i,
                group=g,
                labels=(g.title()[:1] or "L",),
                name=name,
                text=text,
                props=p,
                embedding=v,
            )
            for i, g, name, text, p, v in batch
        ]
        if poison is not None:
            bad = {
                "nan": {"embedding": [math.nan, 0.0, 1.0]},
                "nul": {"text": "a\x00b"},
                "surrogate": {"name": "\udc80"},
                "naive": {"valid_from": datetime(2024, 1, 1)},
            }[poison]
            nodes.append(Node("poisoned", **bad))  # type: ignore[arg-type]
            before = self._snapshot()
            try:
                self.store.upsert_nodes(nodes)
            except InvalidInput:
                assert self._snapshot() == before
                return
            raise AssertionError(f"{poison} was accepted")
        self.store.upsert_nodes(nodes)
        for n in nodes:
            self.nodes[n.id] = n

    @rule(
        batch=st.lists(
            st.tuples(
                st.integers(0, 5),
                st.sampled_from(IDS),
                st.sampled_from(IDS),
                st.sampled_from(RELS),
                texts,
            ),
            min_size=1,
            max_size=4,
        ),
        skip=st.booleans(),
    )
    def upsert_edges(self, batch, skip) -> None:
        edges = [Edge(f"e{k}", s, d, r, group="g1", text=t) for k, s, d, r, t in batch]
        last = {e.id: e for e in edges}
        missing = [e for e in last.values() if e.src not in self.nodes or e.dst not in self.nodes]
        if missing and not skip:
            try:
                self.store.upsert_edges(edges)
            except InvalidInput as exc:
                assert "missing node" in str(exc)
                return
            raise AssertionError("an edge to a missing node was accepted")
        result = self.store.upsert_edges(edges, missing_endpoints="skip" if skip else "error")
        assert result.skipped == len(missing)
        for e in last.values():
            if e not in missing:
                self.edges[e.id] = e

    @rule(ids=st.lists(st.sampled_from(IDS), max_size=3))
    def delete_nodes(self, ids) -> None:
        removed = self.store.delete_nodes(ids)
        assert removed == len({i for i in ids if i in self.nodes})
        self._drop_nodes(ids)

    @rule(ids=st.lists(st.sampled_from(IDS), max_size=2))
    def purge_nodes(self, ids) -> None:
        self.store.purge_nodes(ids)
        self._drop_nodes(ids)

    @rule(ks=st.lists(st.integers(0, 5), max_size=3))
    def delete_edges(self, ks) -> None:
        ids = [f"e{k}" for k in ks]
        assert self.store.delete_edges(ids) == len({i for i in ids if i in self.edges})
        for i in ids:
            self.edges.pop(i, None)

    @rule(ids=st.lists(st.sampled_from(IDS), min_size=1, max_size=3), day=st.integers(1, 28))
    def close_nodes(self, ids, day) -> None:
        when = datetime(2030, 1, day, tzinfo=timezone.utc)
        if any(i not in self.nodes for i in ids):
            before = self._snapshot()
            try:
                self.store.close_nodes(ids, when)
            except NotFound:
                assert self._snapshot() == before
                return
            raise AssertionError("closing a missing node was accepted")
        self.store.close_nodes(ids, when)
        for i in ids:
            n = self.nodes[i]
            self.nodes[i] = Node(
                n.id, n.group, n.labels, n.name, n.text, n.props, n.embedding, valid_to=when
            )

    def _drop_nodes(self, ids) -> None:
        for i in ids:
            self.nodes.pop(i, None)
        for k in [k for k, e in self.edges.items() if e.src in ids or e.dst in ids]:
            del self.edges[k]

    def _snapshot(self) -> tuple[Any, ...]:
        return tuple(self.store.versions("node")), tuple(self.store.versions("edge"))

    # -------------------------------------------------------------------------- invariants

    @invariant()
    def reads_agree_with_the_model(self) -> None:
        s = self.store
        got = {n.id: _node_key(n) for n in s.find_nodes()}
        assert got == {i: _node_key(n) for i, n in self.nodes.items()}
        assert {e.id: _edge_key(e) for e in s.find_edges()} == {
            i: _edge_key(e) for i, e in self.edges.items()
        }
        assert [n.id for n in s.get_nodes(IDS)] == [i for i in IDS if i in self.nodes]
        embeddings = {i: _f32(v) for i, v in s.get_embeddings(IDS).items()}
        assert embeddings == {
            i: _f32(n.embedding) for i, n in self.nodes.items() if n.embedding is not None
        }
        for g in GROUPS[:2]:
            assert s.count_nodes(groups=[g]) == sum(1 for n in self.nodes.values() if n.group == g)
        probe = IDS[0]
        want = {e.id for e in self.edges.values() if probe in (e.src, e.dst)}
        assert {e.id for e in s.edges_of([probe])} == want
        near = {
            e.dst if e.src == probe else e.src
            for e in self.edges.values()
            if probe in (e.src, e.dst)
        }
        assert {n.id for n in s.neighbours([probe])} == near & set(self.nodes)

    @invariant()
    def searches_agree_with_the_model(self) -> None:
        s = self.store
        for word in ("apple", "東京"):
            hits = {h.id for h in s.search_text(word, k=50)}
            assert hits == {
                i
                for i, n in self.nodes.items()
                if word.lower() in f"{n.name} {n.text}".lower().split()
            }
        with_vectors = {i: n.embedding for i, n in self.nodes.items() if n.embedding is not None}
        for v in list(with_vectors.values())[:2]:
            top = s.search_vector(v, k=1)
            assert top and top[0].score >= 0.9999  # itself, or a twin with the same direction
        assert (
            all(h.id in with_vectors for h in s.search_vector([1.0, 0.5, 0.25], k=20))
            or not with_vectors
        )

    @invariant()
    def file_is_consistent(self) -> None:
        assert self.store.check() == []


StoreMachine.TestCase.settings = settings(
    max_examples=SIZES["fuzz_examples"],
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_verbs_against_a_plain_python_model = StoreMachine.TestCase
