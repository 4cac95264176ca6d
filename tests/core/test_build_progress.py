"""Progress of index builds (issue 41): ``Store.build_indexes(progress=...)`` reports each
build's phases with a ``done`` that never goes back and ends at ``total``; a callback that
raises ends the build unpublished (searches stay exact) and propagates; a build with a
callback makes the same index as one without."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from anatid_core import SETTINGS, BuildProgress, Node, Store
from anatid_core.indexes import ann_feed
from anatid_core.indexes.ann import ANN
from anatid_core.indexes.build_progress import PROGRESS

DIM = 16
N = 2400
WORDS = ["apple", "pear", "plum", "fig", "kiwi", "lime"]


@pytest.fixture(autouse=True)
def small_builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    before = dict(SETTINGS), dict(ANN), dict(PROGRESS)
    SETTINGS["ann_min_rows"] = 500
    ANN["auto"] = False
    ANN["recheck_seconds"] = 0.0
    ANN["build_threads"] = 1  # the same graph every run
    ANN["exact_rows"] = 100  # the graph answers
    PROGRESS["per_second"] = 1e9  # every batch reported
    monkeypatch.setattr(ann_feed, "BUILD_BATCH_ROWS", 300)
    monkeypatch.setattr(ann_feed, "ADD_BATCH_ROWS", 100)
    yield
    for live, old in zip((SETTINGS, ANN, PROGRESS), before, strict=True):
        live.clear()
        live.update(old)  # type: ignore[arg-type]


def vectors(seed: int = 7, n: int = N) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


def filled(path: Path) -> Store:
    store = Store.open(path)
    store.upsert_nodes(
        [
            Node(f"n{i}", name=f"{WORDS[i % 6]} {WORDS[i // 6 % 6]}", embedding=v.tolist())
            for i, v in enumerate(vectors())
        ]
    )
    return store


def exact_top(q: np.ndarray, k: int = 10) -> list[str]:
    m = vectors()
    m = m / np.linalg.norm(m, axis=1, keepdims=True)
    scores = m @ (q / np.linalg.norm(q))
    return [f"n{i}" for i in np.argsort(-scores, kind="stable")[:k].tolist()]


def phases(reports: list[BuildProgress]) -> dict[tuple[str, str | None, str], list[int]]:
    out: dict[tuple[str, str | None, str], list[int]] = {}
    for r in reports:
        assert 0 <= r.done <= r.total, r
        assert r.seconds >= 0
        out.setdefault((r.kind, r.space, r.phase), []).append(r.done)
    return out


def test_a_vector_and_a_text_build_report_monotone_progress_to_the_total(tmp_path) -> None:
    reports: list[BuildProgress] = []
    with filled(tmp_path / "s.duckdb") as store:
        built = store.build_indexes(progress=reports.append)
    assert {(b.kind, b.space) for b in built} >= {("node", "default"), ("node", None)}
    seen = phases(reports)
    adding = seen[("node", "default", "adding")]
    assert len(adding) > 3  # per batch, not only at the end
    for key, dones in seen.items():
        assert dones == sorted(dones), key
        last = [r for r in reports if (r.kind, r.space, r.phase) == key][-1]
        assert last.done == last.total, key
    assert adding[-1] == N
    assert seen[("node", "default", "flat")][-1] == N
    assert seen[("node", None, "reading")][-1] == N
    assert ("node", None, "writing") in seen and ("node", "default", "saving") in seen


class Stop(Exception):
    pass


@pytest.mark.parametrize("phase", ["adding", "flat", "reading"])
def test_a_callback_that_raises_ends_the_build_unpublished(tmp_path, phase) -> None:
    def progress(p: BuildProgress) -> None:
        if p.phase == phase and p.done > 0:
            raise Stop(p)

    q = vectors(99, 5)
    with filled(tmp_path / "s.duckdb") as store:
        with pytest.raises(Stop):
            store.build_indexes(progress=progress)
        states = {(s.kind, s.space): s for s in store.index_states()}
        vector_state = states[("node", "default")]
        if phase != "reading":  # the vector build ended: no graph was published
            assert vector_state.format != "hnsw"
        if phase == "flat":
            assert vector_state.state == "none"
        if phase == "reading":  # the vector index was built before; the text one not
            assert vector_state.format == "hnsw"
            assert states[("node", None)].state == "none"
        for row in q:
            hits = store.search_vector(row.tolist(), k=10)
            assert [h.id for h in hits] == exact_top(row)
        assert {h.id for h in store.search_text("kiwi plum", k=50)}
        # nothing is left that stops the next build
        assert {b.space for b in store.build_indexes()} >= {"default", None}
        assert next(s for s in store.index_states() if s.space == "default").format == "hnsw"


def test_the_index_built_with_a_callback_answers_as_without(tmp_path) -> None:
    first = tmp_path / "a.duckdb"
    filled(first).close()
    second = tmp_path / "b.duckdb"
    shutil.copy(first, second)
    answers = []
    for path, progress in ((first, None), (second, lambda p: None)):
        with Store.open(path) as store:
            store.build_indexes(progress=progress)
            answers.append(
                [
                    [(h.id, round(h.score, 5)) for h in store.search_vector(q.tolist(), k=10)]
                    for q in vectors(5, 20)
                ]
            )
    assert answers[0] == answers[1]
