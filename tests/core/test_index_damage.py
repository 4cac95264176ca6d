"""No derived file can give a wrong answer or crash a process (issue 41, point 3).

Each case damages, swaps or misplaces a persistent index file the way a disk, a user or a backup
tool would, then checks what a user relies on: searches answer exactly as with no index at all
(the same ids and scores as an exact scan of the same versions), nothing crashes (the searches
that could crash run in a child process), the damage is logged once, ``check()`` names the file,
and the next build replaces it.
"""

from __future__ import annotations

import logging
import os
import random
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from anatid_core import (
    SETTINGS,
    InvalidInput,
    Node,
    StorageError,
    Store,
    check_output,
    remove_store,
)
from anatid_core.indexes.ann import ANN
from anatid_core.storage import index_files, index_seal

from .test_ann import K, Truth, clustered, index_folder, nodes, run_child, vector_builds

DIM = 24
N = 1200
WORDS = [f"w{i}" for i in range(300)]


@pytest.fixture(autouse=True)
def small_threshold() -> Iterator[None]:
    before = dict(SETTINGS), dict(ANN)
    SETTINGS["ann_min_rows"] = 300
    ANN["auto"] = False  # builds only when a test asks
    ANN["recheck_seconds"] = 0.0
    ANN["build_threads"] = 1
    ANN["exact_rows"] = 100  # the graph answers the searches at these sizes
    yield
    SETTINGS.clear()
    SETTINGS.update(before[0])
    ANN.clear()
    ANN.update(before[1])


def sentence(rng: random.Random) -> str:
    return " ".join(WORDS[min(int(rng.paretovariate(1.0)) - 1, len(WORDS) - 1)] for _ in range(6))


def texts(batch: list[Node], rng: random.Random) -> list[Node]:
    return [
        Node(
            n.id,
            group=n.group,
            labels=n.labels,
            name=n.id,
            text=sentence(rng),
            embedding=n.embedding,
        )
        for n in batch
    ]


def built(path: Path, seed: int = 1) -> tuple[Truth, np.random.Generator]:
    """A store of N nodes (text and vectors) with both persistent indexes built."""
    rng = np.random.default_rng(seed)
    truth = Truth()
    batch = texts(nodes(clustered(rng, N)), random.Random(seed))
    with Store.open(path) as s:
        s.upsert_nodes(batch)
        truth.write(batch)
        done = s.build_indexes()
    assert {(b.kind, b.space) for b in done} >= {("node", "default"), ("node", None)}
    return truth, rng


def vector_file(path: Path) -> Path:
    return next(p for p in index_folder(path).glob("node-*.usearch"))


def postings_file(path: Path) -> Path:
    return next(index_folder(path).glob("node-text-*.postings"))


def exact_vector(path: Path, q: np.ndarray) -> list[tuple[str, float]]:
    """The answer with no index at all: the folder moved aside for the call."""
    folder = index_folder(path)
    aside = folder.with_name(folder.name + ".aside")
    folder.rename(aside)
    try:
        with Store.open(path, read_only=True) as s:
            return [(h.id, round(h.score, 5)) for h in s.search_vector(q.tolist(), k=K)]
    finally:
        aside.rename(folder)


def exact_text(path: Path, query: str) -> list[tuple[str, float]]:
    folder = index_folder(path)
    aside = folder.with_name(folder.name + ".aside")
    folder.rename(aside)
    try:
        with Store.open(path, read_only=True) as s:
            return [(h.id, round(h.score, 6)) for h in s.search_text(query, k=K)]
    finally:
        aside.rename(folder)


def overwrite(file: Path, offset: int, data: bytes) -> None:
    with open(file, "r+b") as fh:
        fh.seek(offset)
        fh.write(data)


def problems_naming(store: Store, file: Path) -> list[str]:
    return [p for p in store.check() if str(file) in p]


# --------------------------------------------------------------------------- damaged bytes


def test_an_altered_vector_in_the_index_file_never_changes_an_answer(tmp_path, caplog) -> None:
    path = tmp_path / "m.duckdb"
    truth, _ = built(path)
    file = vector_file(path)
    with Store.open(path) as s:
        keys = s.indexes.ann.space("node", "default").keys  # type: ignore[union-attr]
        victim = keys.ids_of(np.asarray(keys.vids[5:6]))[0]
        assert victim is not None
        own = truth.vectors[victim]
        # Slot 5's vector (usearch keeps the matrix first: rows and columns as uint32, then the
        # vectors in the order they were added) replaced by its negation.
        start = 8 + 5 * DIM * 4
        raw = np.frombuffer(file.read_bytes()[start : start + DIM * 4], dtype=np.float32)
        overwrite(file, start, (-raw).astype(np.float32).tobytes())
        # The process had the index mapped: the next search sees the file changed.
        with caplog.at_level(logging.WARNING, logger="anatid_core.index"):
            first = s.search_vector(own.tolist(), k=K)
            s.search_vector(own.tolist(), k=K)
        assert (first[0].id, round(first[0].score, 5)) == (victim, 1.0)
        assert s.indexes.ann.space("node", "default") is None
        said = [r.message for r in caplog.records if "not used" in r.message]
        assert len(said) == 1 and str(file) in said[0] and "damaged" in said[0]
        assert problems_naming(s, file)
    with Store.open(path, read_only=True) as s:
        answer = [(h.id, round(h.score, 5)) for h in s.search_vector(own.tolist(), k=K)]
    assert answer == exact_vector(path, own)


def test_an_altered_block_of_the_graph_never_crashes_a_search(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    truth, rng = built(path)
    file = vector_file(path)
    size = file.stat().st_size
    block = (size - 3 * 4096) // 4096 * 4096  # inside the graph, after the vectors
    overwrite(file, block, bytes(random.Random(3).getrandbits(8) for _ in range(4096)))
    q = clustered(rng, 1)[0]
    child = f"""
        from anatid_core import Store
        with Store.open({str(path)!r}, read_only=True) as s:
            print(s.indexes.ann.space("node", "default") is None)
            for h in s.search_vector({q.tolist()!r}, k={K}):
                print(h.id, round(h.score, 5))
    """
    out = run_child(child).splitlines()  # a SIGSEGV or a RuntimeError fails here
    assert out[0] == "True"
    assert [(line.split()[0], float(line.split()[1])) for line in out[1:]] == exact_vector(path, q)
    with Store.open(path, read_only=True) as s:
        found = problems_naming(s, file)
        assert len(found) == 1 and f"bytes {block // (4 << 20) * (4 << 20)}-" in found[0]


def test_altered_postings_never_change_a_text_answer(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    built(path)
    file = postings_file(path)
    overwrite(file, file.stat().st_size // 2, b"\xff" * 64)
    queries = ["w0", "w1 w2", "w7 w40", "w299"]
    with Store.open(path, read_only=True) as s:
        got = [[(h.id, round(h.score, 6)) for h in s.search_text(q, k=K)] for q in queries]
        assert s.indexes.text_files.kind("node") is None
        assert problems_naming(s, file)
    assert got == [exact_text(path, q) for q in queries]


def test_a_damaged_keys_file_or_manifest_is_named_and_unused(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    truth, rng = built(path)
    keys = next(index_folder(path).glob("node-text-*.keys"))
    overwrite(keys, 30, b"\x00\x01")
    manifest = next(p for p in index_folder(path).glob("node-*.json") if "text" not in p.name)
    text = manifest.read_text()
    manifest.write_text(text.replace('"count": ', '"count": 1', 1))
    q = clustered(rng, 1)[0]
    with Store.open(path, read_only=True) as s:
        assert s.indexes.ann.space("node", "default") is None
        assert s.indexes.text_files.kind("node") is None
        problems = s.check()
        assert any(str(keys) in p for p in problems)
        assert any(str(manifest) in p and "digest" in p for p in problems)
        got = [(h.id, round(h.score, 5)) for h in s.search_vector(q.tolist(), k=K)]
    assert got == exact_vector(path, q)


def test_the_next_build_replaces_a_damaged_index_instead_of_merging_into_it(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    truth, rng = built(path)
    file = vector_file(path)
    overwrite(file, 8, b"\x7f" * 64)  # the first vectors
    with Store.open(path) as s:
        more = nodes(clustered(rng, 50), start=N)
        s.upsert_nodes(more)
        truth.write(more)
        rebuilt = vector_builds(s)
        assert (rebuilt[0].rows_added, rebuilt[0].rows_total) == (N + 50, N + 50)
        assert s.check() == []
        for q in clustered(rng, 5):
            best, _ = truth.top(q, K)
            assert len({h.id for h in s.search_vector(q.tolist(), k=K)} & set(best)) >= K - 1


def test_a_check_reads_every_byte_even_when_the_stamps_agree(tmp_path) -> None:
    """Damage below the file system (a bad disk) changes no stamp: check still finds it."""
    path = tmp_path / "m.duckdb"
    built(path)
    file = postings_file(path)
    overwrite(file, file.stat().st_size - 4, b"zzzz")  # a term's letters: the layout holds
    m = index_files.read_manifest(str(path), "node", None)
    assert m is not None
    # The stamp taken after the damage, as it would be for a disk's own.
    now = index_seal.stamp_of(str(file))
    assert now is not None
    index_files.write_manifest(str(path), replace(m, stamps={**m.stamps, m.file: list(now)}))
    with Store.open(path, read_only=True) as s:
        assert s.indexes.text_files.kind("node") is not None  # trusted by its stamp
        assert problems_naming(s, file)


# --------------------------------------------------------------------------- stale indexes


def test_a_restored_older_file_never_uses_the_index_built_after_it(tmp_path) -> None:
    """The backup is taken between two builds; after the restore the same ids are written again,
    the last one exactly as before (same id, text length and vector at the same version id), so
    only the build token tells the index is not this file's."""
    path = tmp_path / "m.duckdb"
    rng = np.random.default_rng(4)
    base = texts(nodes(clustered(rng, N)), random.Random(4))
    vecs = clustered(rng, 100)
    old = [
        Node(f"late{i}", name=f"late{i}", text=f"oldword w{i % 9}", embedding=vecs[i].tolist())
        for i in range(100)
    ]
    new = [
        Node(
            f"late{i}",
            name=f"late{i}",
            text=f"newword w{i % 9}",
            embedding=(vecs[i] if i == 99 else -vecs[i]).tolist(),
        )
        for i in range(100)
    ]
    new[99] = old[99]
    with Store.open(path) as s:
        s.upsert_nodes(base)
        s.build_indexes()
    shutil.copy(path, tmp_path / "backup.duckdb")
    with Store.open(path) as s:
        s.upsert_nodes(old)
        assert len(s.build_indexes()) >= 2
    shutil.copy(tmp_path / "backup.duckdb", path)  # yesterday's file, today's index folder
    with Store.open(path) as s:
        s.upsert_nodes(new)
        assert s.indexes.ann.space("node", "default") is None
        assert s.indexes.text_files.kind("node") is None
        assert [h.id for h in s.search_text("oldword", k=5)] == ["late99"]
        assert {h.id for h in s.search_text("newword", k=200)} == {f"late{i}" for i in range(99)}
        hit = s.search_vector((-vecs[3]).tolist(), k=1)[0]
        assert (hit.id, round(hit.score, 5)) == ("late3", 1.0)
        stale = [p for p in s.check() if "older copy" in p]
        assert len(stale) == 2  # the vector and the text index
        s.build_indexes()
        assert s.check() == []
        assert s.indexes.ann.space("node", "default") is not None


def test_a_store_copied_with_its_folder_keeps_its_index_after_one_verification(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    truth, rng = built(path)
    copy = tmp_path / "copy" / "m.duckdb"
    copy.parent.mkdir()
    shutil.copy2(path, copy)
    shutil.copytree(index_folder(path), index_folder(copy))  # new inodes: verified in full
    with Store.open(copy, read_only=True) as s:
        assert s.indexes.ann.space("node", "default") is not None
        assert s.indexes.text_files.kind("node") is not None
    verified = (index_folder(copy) / ".verified").read_text()
    assert vector_file(copy).name in verified and postings_file(copy).name in verified


# --------------------------------------------------------------------------- the folder's rules


def test_a_symlinked_index_folder_is_followed_guarded_and_removed_with_the_store(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    elsewhere = tmp_path / "fast-disk" / "idx"
    elsewhere.parent.mkdir()
    elsewhere.mkdir(mode=0o700)
    index_folder(path).symlink_to(elsewhere)
    truth, rng = built(path)
    inside = sorted(p.name for p in elsewhere.iterdir())
    assert any(n.endswith(".usearch") for n in inside) and any(
        n.endswith(".postings") for n in inside
    )
    with Store.open(path, read_only=True) as s:
        assert s.indexes.ann.space("node", "default") is not None
    postings = postings_file(path)
    before = postings.read_bytes()
    for target in (
        index_folder(path) / postings.name,
        elsewhere / postings.name,
        elsewhere / "new.html",
        index_folder(path) / "export.jsonl",
    ):
        with pytest.raises(InvalidInput, match="index file"):
            check_output(target)
    for cmd in (
        ["export", str(path), "--out", str(index_folder(path) / postings.name)],
        ["view", str(path), "--out", str(elsewhere / postings.name)],
    ):
        r = subprocess.run(
            [sys.executable, "-m", "anatid_core.cli", *cmd],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert r.returncode != 0 and "index file" in r.stderr
    assert postings.read_bytes() == before
    removed = remove_store(path)
    assert not path.exists() and not index_folder(path).is_symlink()
    assert not elsewhere.exists()  # every word and vector gone from where the link pointed
    assert str(elsewhere / postings.name) in removed


def test_a_symlink_pointing_at_a_folder_with_other_files_removes_only_index_files(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    elsewhere = tmp_path / "shared"
    elsewhere.mkdir(mode=0o700)
    (elsewhere / "notes.txt").write_text("mine")
    index_folder(path).symlink_to(elsewhere)
    built(path)
    remove_store(path)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["notes.txt"]


def test_a_read_only_index_folder_is_a_typed_error_and_keeps_its_mode(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    truth, rng = built(path)
    folder = index_folder(path)
    with Store.open(path) as s:
        s.upsert_nodes(nodes(clustered(rng, 400), start=N))
    os.chmod(folder, 0o500)
    try:
        with Store.open(path) as s:
            with pytest.raises(StorageError, match="not writable"):
                s.build_indexes()
            assert stat.S_IMODE(folder.stat().st_mode) == 0o500
            q = clustered(rng, 1)[0]
            assert s.search_vector(q.tolist(), k=3)  # the old index and the delta answer
    finally:
        os.chmod(folder, 0o700)


def test_an_index_folder_other_users_may_write_is_never_used(tmp_path) -> None:
    path = tmp_path / "m.duckdb"
    truth, rng = built(path)
    folder = index_folder(path)
    os.chmod(folder, 0o777)
    q = clustered(rng, 1)[0]
    with Store.open(path) as s:
        assert s.indexes.ann.space("node", "default") is None
        assert s.indexes.text_files.kind("node") is None
        assert any("writable by other users" in p for p in s.check())
        with pytest.raises(StorageError, match="writable by other users"):
            s.build_indexes()
        got = [(h.id, round(h.score, 5)) for h in s.search_vector(q.tolist(), k=K)]
    os.chmod(folder, 0o700)
    assert got == exact_vector(path, q)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
