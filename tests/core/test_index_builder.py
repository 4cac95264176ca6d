"""Indexes that keep themselves (issue 41, point 1): a writer that exits leaves a store whose next
process maps the indexes instead of loading the store into memory, with nobody running
``anatid index``. Every process here is a real one: the writer a script that ends, the builder
the process the writer starts, the reader a fresh interpreter that counts what it loads."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from anatid_core.indexes import builder
from anatid_core.storage import index_files

from .test_ann import index_folder, run_child

WRITER = """
    import numpy as np
    from anatid_core import SETTINGS, Node, Store
    SETTINGS["ann_min_rows"] = 500
    rng = np.random.default_rng(1)
    store = Store.open({path!r})
    for start in range(0, {n}, 500):
        store.upsert_nodes([
            Node(f"n{{i}}", name=f"node {{i}}", text=f"apples pears w{{i % 31}}",
                 embedding=rng.standard_normal(32).tolist())
            for i in range(start, min(start + 500, {n}))
        ])
    {ending}
"""

#: Counts the loads of whole matrices and postings (the reader scripts below start with it).
COUNT_LOADS = """
    import json
    from anatid_core import Store
    from anatid_core.indexes.text import TextIndex
    from anatid_core.indexes.vectors import VectorIndex
    loads = {{"matrix": 0, "text": 0}}
    matrix, load = VectorIndex.matrix, TextIndex.load
    def counted_matrix(self, *a, **k):
        loads["matrix"] += 1
        return matrix(self, *a, **k)
    def counted_load(self, *a, **k):
        loads["text"] += 1
        return load(self, *a, **k)
    VectorIndex.matrix, TextIndex.load = counted_matrix, counted_load
"""

READER = (
    COUNT_LOADS
    + """
    with Store.open({path!r}, read_only=True) as s:
        hits = s.search_vector([0.1] * 32, k=5)
        words = s.search_text("apples", k=5)
        print(json.dumps({{**loads, "hits": len(hits), "words": len(words)}}))
"""
)


def wait_for_builder(path: Path, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    time.sleep(0.2)
    while builder.running(str(path)):
        assert time.monotonic() < deadline, "the builder did not finish"
        time.sleep(0.1)


@pytest.mark.parametrize("ending", ["store.close()", "pass  # exits with the store open"])
def test_a_writer_that_exits_leaves_indexes_the_next_process_maps(tmp_path, ending) -> None:
    path = tmp_path / "m.duckdb"
    run_child(WRITER.format(path=str(path), n=3000, ending=ending))
    wait_for_builder(path)
    got = json.loads(run_child(READER.format(path=str(path))))
    assert got == {"matrix": 0, "text": 0, "hits": 5, "words": 5}
    log = (index_folder(path) / ".builder.log").read_text()
    assert "built node default" in log and "built node text" in log


def test_without_the_builder_the_next_process_loads_the_store_whole(tmp_path) -> None:
    """The counting above can fail: with the policy off, the reader loads both."""
    path = tmp_path / "m.duckdb"
    writer = WRITER.replace(
        'SETTINGS["ann_min_rows"] = 500',
        'SETTINGS["ann_min_rows"] = 500\n    from anatid_core.indexes.ann import ANN\n    ANN["auto"] = False',
    )
    run_child(writer.format(path=str(path), n=3000, ending="store.close()"))
    wait_for_builder(path)
    got = json.loads(run_child(READER.format(path=str(path))))
    assert got == {"matrix": 1, "text": 1, "hits": 5, "words": 5}
    assert not index_folder(path).exists()


READ_BOTH = (
    COUNT_LOADS
    + """
    with Store.open({path!r}, read_only=True) as s:
        cosine = [(h.id, round(h.score, 5)) for h in s.search_vector([0.1] * 32, k=5)]
        words = [(h.id, round(h.score, 5)) for h in s.search_text("apples w7", k=5)]
        fused = [h.id for h in s.recall(text="pears w3", vector=[0.2] * 32, k=5)]
        print(json.dumps({{**loads, "cosine": cosine, "words": words, "fused": fused}}))
"""
)


def test_a_reader_beside_a_build_under_way_loads_nothing_and_answers_alike(tmp_path) -> None:
    """The moment a writer exits, its builder is at work and no index is published yet: a
    fresh process searches by SQL (the text index and a flat vector index are seconds away;
    loading the store costs more) and answers as the loaded store does."""
    path = tmp_path / "m.duckdb"
    writer = WRITER.replace(
        'SETTINGS["ann_min_rows"] = 500',
        'SETTINGS["ann_min_rows"] = 500\n    from anatid_core.indexes.ann import ANN\n    ANN["auto"] = False',
    )
    run_child(writer.format(path=str(path), n=3000, ending="store.close()"))
    index_files.make_folder(str(path))
    with builder.builder_lock(str(path)) as held:  # a builder at work, as the writer left one
        assert held and builder.running(str(path))
        beside = json.loads(run_child(READ_BOTH.format(path=str(path))))
    loaded = json.loads(run_child(READ_BOTH.format(path=str(path))))
    assert (beside["matrix"], beside["text"]) == (0, 0)
    assert loaded["matrix"] and loaded["text"]  # with no build under way, the store is loaded
    for answer in ("cosine", "words", "fused"):
        assert beside[answer] == loaded[answer] and len(beside[answer]) == 5


RENTER = """
    import json
    from anatid_core import Store
    from anatid_core.indexes.ann import ANN
    from anatid_core.indexes.vectors import VectorIndex
    loads = []
    matrix = VectorIndex.matrix
    def counted_matrix(self, *a, **k):
        loads.append(1)
        return matrix(self, *a, **k)
    VectorIndex.matrix = counted_matrix
    with Store.open({path!r}, read_only=True) as s:
        answers = []
        for i in range(ANN["sql_while_building"] + 2):
            answers.append([h.id for h in s.search_vector([0.1] * 32, k=5)])
            answers.append(len(loads))
        print(json.dumps(answers))
"""


def test_a_long_lived_reader_beside_a_long_build_loads_the_space_after_a_few_searches(
    tmp_path,
) -> None:
    """SQL answers while a build is under way only ``ANN["sql_while_building"]`` times per
    space: a process that keeps searching beside a build of minutes then loads the space (a
    search by SQL costs a fraction of the load, but every search pays it)."""
    from anatid_core.indexes.ann import ANN

    path = tmp_path / "m.duckdb"
    writer = WRITER.replace(
        'SETTINGS["ann_min_rows"] = 500',
        'SETTINGS["ann_min_rows"] = 500\n    from anatid_core.indexes.ann import ANN\n    ANN["auto"] = False',
    )
    run_child(writer.format(path=str(path), n=1500, ending="store.close()"))
    index_files.make_folder(str(path))
    with builder.builder_lock(str(path)):
        got = json.loads(run_child(RENTER.format(path=str(path))))
    hits, loads = got[0::2], got[1::2]
    rent = ANN["sql_while_building"]
    assert loads == [0] * rent + [1, 2]  # SQL, then the matrix from the next search on
    assert all(h == hits[0] and len(h) == 5 for h in hits)


def test_the_builder_publishes_every_flat_index_before_any_graph(tmp_path) -> None:
    """Two vector spaces, neither indexed: both flat indexes come before either graph."""
    path = tmp_path / "m.duckdb"
    two_spaces = WRITER.replace(
        "    {ending}",
        "    store.upsert_edges([Edge(f'e{{i}}', f'n{{i}}', f'n{{i + 1}}', 'R', "
        "embedding=rng.standard_normal(16).tolist()) for i in range({n} - 1)])\n    {ending}",
    ).replace("import SETTINGS, Node, Store", "import SETTINGS, Edge, Node, Store")
    run_child(two_spaces.format(path=str(path), n=3000, ending="store.close()"))
    wait_for_builder(path)
    log = (index_folder(path) / ".builder.log").read_text()
    built = re.findall(r" built (node|edge) (\S+): IndexBuild\(.*?file='[^']*\.(\w+)'", log)
    order = [(kind, file) for kind, what, file in built if what != "text"]
    assert order == [
        ("node", "flat"),
        ("edge", "flat"),
        ("node", "usearch"),
        ("edge", "usearch"),
    ], log


def test_a_small_store_starts_no_builder(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    run_child(WRITER.format(path=str(path), n=300, ending="store.close()"))
    assert not index_folder(path).exists()


def test_a_writer_that_wrote_more_since_the_build_has_it_merged(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    run_child(WRITER.format(path=str(path), n=3000, ending="store.close()"))
    wait_for_builder(path)
    more = WRITER.replace("range(0, {n}, 500)", "range(3000, {n}, 500)").replace(
        'SETTINGS["ann_min_rows"] = 500',
        'SETTINGS["ann_min_rows"] = 500\n    from anatid_core.indexes.ann import ANN\n    ANN["merge_rows"] = 400',
    )
    run_child(more.format(path=str(path), n=3600, ending="store.close()"))
    wait_for_builder(path)
    states = run_child(f"""
        from anatid_core import Store
        with Store.open({str(path)!r}, read_only=True) as s:
            for i in s.index_states():
                print(i.kind, i.space, i.state, i.rows, i.pending)
    """).splitlines()
    assert states == ["node default ok 3600 0", "node None ok 3600 0", "edge None none 0 0"]


def test_a_first_build_is_searchable_flat_before_its_graph_exists(tmp_path, monkeypatch) -> None:
    """The first build of a space publishes its vectors as one mapped matrix before the graph
    (minutes at a million): searched exactly, by every process, and replaced by the graph."""
    from anatid_core import SETTINGS
    from anatid_core.indexes import ann_build
    from anatid_core.indexes.ann import ANN
    from anatid_core.indexes.flat import FlatView

    from .test_ann import RECALL, Truth, clustered, filled, recall_of

    before = dict(SETTINGS), dict(ANN)
    SETTINGS["ann_min_rows"] = 500
    ANN.update(auto=False, recheck_seconds=0.0, build_threads=1, exact_rows=300)
    try:
        path = tmp_path / "m.duckdb"
        store, truth, rng = filled(path, 21)
        with store:
            t_before = store.get_node("n0").tx_from  # type: ignore[union-attr]

            def no_graph(*_a, **_k):
                raise KeyboardInterrupt("the builder was stopped after the flat index")

            monkeypatch.setattr(ann_build, "_start", no_graph)
            try:
                store.indexes.build("node", "default")
            except KeyboardInterrupt:
                pass
            monkeypatch.undo()
            opened = store.indexes.ann.space("node", "default")
            assert opened is not None and isinstance(opened.view, FlatView)
            queries = clustered(rng, 10)
            assert recall_of(store, truth, queries) == 1.0  # exact, through the mapped matrix
            past = Truth()
            past.vectors = dict(truth.vectors)
            past.groups, past.labels = truth.groups, truth.labels
            assert recall_of(store.as_of(tx_time=t_before), past, queries[:3]) == 1.0
            state = next(s for s in store.index_states() if s.space == "default")
            assert (state.state, state.format, state.rows) == ("ok", "flat", 3000)
            assert ("node", "default") in builder.needed(store.index_states())
            assert store.check() == []
            done = store.indexes.build("node", "default")
            assert done is not None and done.rows_total == 3000
            opened = store.indexes.ann.space("node", "default")
            assert opened is not None and not isinstance(opened.view, FlatView)
            assert recall_of(store, truth, queries) >= RECALL
            assert not list(index_folder(path).glob("*.flat"))
            assert not list(index_folder(path).glob("*-flat.keys"))
    finally:
        SETTINGS.clear()
        SETTINGS.update(before[0])
        ANN.clear()
        ANN.update(before[1])
