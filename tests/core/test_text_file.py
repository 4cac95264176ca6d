"""The persistent text index (issue 34): BM25 through a kind's mapped postings file answers what
the in-memory index answers (same records, same order, same scores), before and after writes,
deletes and another process's commits, with filters; erasure takes the file with it."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from anatid_core import SETTINGS, Edge, Node, Store
from anatid_core.indexes.ann import ANN

from .erasure_data import scan
from .test_ann import index_folder, run_child

WORDS = [f"w{i}" for i in range(400)]


def sentence(rng: random.Random, n: int = 8) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(1.0)) - 1, len(WORDS) - 1)] for _ in range(n))


def people(rng: random.Random, start: int, n: int) -> list[Node]:
    return [
        Node(
            f"p{i}",
            group=f"g{i % 3}",
            labels=("Rare",) if i % 50 == 0 else ("Person",),
            name=f"person {i}",
            text=sentence(rng),
        )
        for i in range(start, start + n)
    ]


def facts(rng: random.Random, n: int) -> list[Edge]:
    return [
        Edge(f"f{i}", f"p{i}", f"p{(i + 1) % n}", "KNOWS", group=f"g{i % 3}", text=sentence(rng))
        for i in range(n)
    ]


@pytest.fixture(autouse=True)
def small_threshold() -> Iterator[None]:
    before = dict(SETTINGS), dict(ANN)
    SETTINGS["ann_min_rows"] = 200
    ANN["auto"] = False
    ANN["recheck_seconds"] = 0.0
    ANN["build_threads"] = 1  # the same graph every run: recall is reproducible
    yield
    SETTINGS.clear()
    SETTINGS.update(before[0])
    ANN.clear()
    ANN.update(before[1])


QUERIES = ["w0", "w1 w2", "w3 w17 w250", "w5 w0 w9", "person 7", "w399", "nothing here", "w2"]
FILTERS = [{}, {"groups": ["g1"]}, {"labels": ["Rare"]}, {"groups": ["g0", "g2"], "k": 3}]


def answers(store: Store) -> list:
    out = []
    for q in QUERIES:
        for f in FILTERS:
            k = f.get("k", 10)
            f = {key: v for key, v in f.items() if key != "k"}
            out.append([(h.id, round(h.score, 9)) for h in store.search_text(q, k=k, **f)])
        out.append([(h.id, round(h.score, 9)) for h in store.search_text(q, kind="edge", k=5)])
    return out


def filled(path: Path, n: int = 1500) -> tuple[Store, random.Random]:
    rng = random.Random(5)
    store = Store.open(path)
    store.upsert_nodes(people(rng, 0, n))
    store.upsert_edges(facts(rng, n))
    return store, rng


def test_bm25_through_the_file_answers_as_the_memory_index(tmp_path) -> None:
    store, rng = filled(tmp_path / "m.duckdb")
    with store:
        in_memory = answers(store)
        built = {(b.kind, b.space): b for b in store.build_indexes()}
        assert built[("node", None)].rows_total == 1500
        assert built[("edge", None)].rows_total == 1500
        assert store.indexes.text_files.kind("node") is not None
        assert answers(store) == in_memory
        # Writes after the build: new versions, deletions, new records.
        store.upsert_nodes(people(rng, 100, 300))  # new text for 300 indexed people
        store.delete_nodes([f"p{i}" for i in range(600, 700)])
        store.upsert_nodes(people(rng, 1500, 100))
        through_file = answers(store)
    with Store.open(tmp_path / "m.duckdb") as again:
        again.indexes.text_files.forget()
        for kind in ("node", "edge"):
            again.indexes.text.discard(kind)
        ANN["auto"] = False
        import shutil

        shutil.rmtree(index_folder(tmp_path / "m.duckdb"))  # the memory index alone
        assert answers(again) == through_file


def test_a_merge_writes_the_files_a_first_build_writes(tmp_path) -> None:
    """A merge reads only the versions written since the index (issue 41: rereading every row
    stalled a writer beside it) and joins them to the index's own postings: the files equal
    a first build's over the same versions, byte for byte, new words and ended versions
    included, and the answers are the memory index's."""
    path = tmp_path / "m.duckdb"
    store, rng = filled(path)
    with store:
        store.build_indexes()
        store.upsert_nodes(people(rng, 100, 300))  # re-saves: the old versions end
        store.delete_nodes([f"p{i}" for i in range(600, 700)])
        store.upsert_nodes([Node("new", text="zebra quagga w1 \u00e9t\u00e9 \U0001d11e")])
        store.upsert_nodes(people(rng, 1500, 100))
        merged = {b.kind: b for b in store.build_indexes() if b.space is None}
        # Read from the store: the versions written since the index, not the 1,901 it holds.
        assert merged["node"].rows_added == 300 + 1 + 100 and merged["node"].rows_total == 1901
        through_merge = answers(store)
        merged_files = _text_files(path)
    import shutil

    shutil.rmtree(index_folder(path))
    with Store.open(path) as again:
        first = {b.kind: b for b in again.build_indexes() if b.space is None}
        assert first["node"].rows_added == 1901
        assert _text_files(path) == merged_files
        assert answers(again) == through_merge
        for kind in ("node", "edge"):
            again.indexes.text_files.forget()
            again.indexes.text.discard(kind)
        shutil.rmtree(index_folder(path))
        assert answers(again) == through_merge  # the memory index alone


def _text_files(path: Path) -> dict[str, bytes]:
    """The bytes of the text indexes' postings and keys files, by name."""
    return {
        f.name: f.read_bytes()
        for f in index_folder(path).iterdir()
        if "-text-" in f.name and f.suffix in (".postings", ".keys")
    }


def test_another_processs_writes_reach_the_file_index(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    store, _ = filled(path)
    with store:
        store.build_indexes()
        assert store.search_text("zebra") == []
        run_child(
            f"""
            from anatid_core import Node, Store
            with Store.open({str(path)!r}) as s:
                s.upsert_nodes([Node("z", name="zebra", text="zebra stripes")])
                s.delete_nodes(["p3"])
            """
        )
        assert [h.id for h in store.search_text("zebra")] == ["z"]
        assert "p3" not in {h.id for h in store.search_text("person 3", k=50)}


def test_a_second_process_maps_the_text_index(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    store, _ = filled(path)
    with store:
        store.build_indexes()
        expected = [h.id for h in store.search_text("w1 w2", k=10)]
    out = run_child(
        f"""
        from anatid_core import Store
        with Store.open({str(path)!r}, read_only=True) as s:
            hits = s.search_text("w1 w2", k=10)
            print(s.indexes.text_files.kind("node") is not None,
                  s.indexes.text.load.__self__._kinds.get("node") is None)
            print(" ".join(h.id for h in hits))
        """
    )
    flags, ids = out.splitlines()
    assert flags == "True True"  # mapped, and no posting loaded into memory
    assert ids.split() == expected


def test_erasure_takes_the_text_index_and_its_words(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    store, _ = filled(path)
    with store:
        store.upsert_nodes([Node("victim", name="victim", text="xylophonically secretword")])
        store.build_indexes()
        needles = {"word": b"xylophonically"}
        assert scan(path, needles)["word"] >= 1
        store.erase_nodes(["victim"])
        assert scan(path, needles) == {"word": 0}
        assert store.search_text("xylophonically") == []
        assert store.indexes.text_files.kind("node") is None  # gone with the words
        rebuilt = {(b.kind, b.space): b for b in store.build_indexes()}
        assert rebuilt[("node", None)].rows_total == 1500
        assert store.search_text("xylophonically") == []
        assert store.check() == []


def past_answers(view) -> list:
    return [
        [(h.id, round(h.score, 9)) for h in view.search_text(q, k=k, **f)]
        for q in QUERIES
        for f in ({}, {"groups": ["g1"]}, {"labels": ["Rare"]})
        for k in (3, 10)
    ]


def test_past_views_score_from_the_file_as_sql_does(tmp_path) -> None:
    import shutil
    from datetime import datetime, timezone

    path = tmp_path / "m.duckdb"
    store, rng = filled(path)
    with store:
        early = datetime.now(timezone.utc)
        store.upsert_nodes(people(rng, 0, 400))  # new texts for 400 people
        store.delete_nodes([f"p{i}" for i in range(900, 1000)])
        middle = datetime.now(timezone.utc)
        store.build_indexes()
        store.upsert_nodes(people(rng, 1500, 50))  # after the build: newer than the file
        late = datetime.now(timezone.utc)
        views = [store.as_of(t) for t in (early, middle, late)]
        assert store.indexes.text_files.kind("node") is not None
        through_file = [past_answers(v) for v in views]
        shutil.rmtree(index_folder(path))
        store.indexes.text_files.forget()
        by_sql = [past_answers(v) for v in views]
    assert through_file == by_sql
    assert any(through_file[0]) and through_file[0] != through_file[1]


def test_a_rare_term_prunes_the_common_ones_and_the_answers_stay_the_same(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MaxScore (issue 41, BM25 at 1M facts): with a rare term in the query, the common terms are
    looked up for its candidates only; the k best, their order and their scores are those of
    scoring every posting, with re-saved versions in the file and new ones in the delta."""
    from anatid_core.indexes import text_file

    store, rng = filled(tmp_path / "m.duckdb")
    with store:
        store.build_indexes()
        store.upsert_nodes(people(rng, 100, 300))  # ended versions in the file
        store.upsert_nodes(people(rng, 1500, 200))  # versions in the delta
        proved: list[bool] = []
        pruned = text_file._pruned

        def counted(*args, **kwargs):
            found = pruned(*args, **kwargs)
            proved.append(found is not None)
            return found

        monkeypatch.setattr(text_file, "_pruned", counted)
        with_pruning = answers(store)
        monkeypatch.setitem(text_file.PRUNE, "common", 2.0)  # no term is common: every posting
        assert answers(store) == with_pruning
        assert any(proved)  # "w3 w17 w250" and "w5 w0 w9" were pruned


def test_a_rare_term_that_cannot_prove_the_best_leaves_the_common_ones_scored(tmp_path) -> None:
    """The rare term's matches here are long texts (low scores), and some of the best hold only
    the common terms: pruning must refuse, and the answer is that of the memory index."""
    store = Store.open(tmp_path / "m.duckdb")
    with store:
        filler = " ".join(f"x{i}" for i in range(300))
        store.upsert_nodes(Node(f"p{i}", text=f"plain words {i}") for i in range(1400))
        store.upsert_nodes(Node(f"c{i}", text=f"c1 c2 c{i % 7}") for i in range(120))
        store.upsert_nodes(Node(f"r{i}", text=f"rare c1 {filler}") for i in range(60))
        in_memory = [(h.id, round(h.score, 9)) for h in store.search_text("rare c1 c2", k=10)]
        store.build_indexes()
        assert store.indexes.text_files.kind("node") is not None
        through_file = [(h.id, round(h.score, 9)) for h in store.search_text("rare c1 c2", k=10)]
        assert through_file == in_memory
        assert any(i.startswith("c") for i, _ in through_file)  # matches of no rare term
