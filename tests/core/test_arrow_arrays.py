"""The store's Arrow columns are built without pandas (anatid_core.storage.arrow_arrays).

pyarrow's ``pa.array`` imports pandas where it is installed (it is, beside Cognee and
Graphiti) to ask whether its argument is a pandas object: 170-190 ms and ~48 MB on a
process's first write. The builders give what ``pa.array`` gives, and a process that writes,
searches, walks and queries never imports pandas.
"""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from anatid_core.storage import arrow_arrays as aa


@pytest.mark.parametrize(
    "values",
    [[1, 2, 3], [1, None, -3], [None, None], [], [2**62, -(2**62)], [None] * 9 + [7]],
)
def test_int_columns_equal_pa_array(values: list[int | None]) -> None:
    assert aa.int64s(values).equals(pa.array(values, type=pa.int64()))
    small = [None if v is None else v % 1000 for v in values]
    assert aa.int32s(small).equals(pa.array(small, type=pa.int32()))


def test_numpy_columns_equal_pa_array() -> None:
    ints = np.array([5, -1, 2**40], dtype=np.int64)
    assert aa.int64s(ints).equals(pa.array(ints, type=pa.int64()))
    assert aa.int64s(ints[::2]).to_pylist() == [5, 2**40]  # (a strided view: copied)
    assert aa.int32s(np.arange(4)).equals(pa.array(np.arange(4), type=pa.int32()))
    floats = np.linspace(-1, 1, 7)
    assert aa.float32s(floats).equals(pa.array(floats, type=pa.float32()))


@pytest.mark.parametrize(
    "values",
    [
        ["a", "bc", ""],
        ["é", None, "日本語", "", "x" * 300],
        [None, None, None],
        [],
        ["only"],
        [None, "a"],
        ["emoji \U0001f600", "tab\tnew\nline", "nul \x00 byte"],
    ],
)
def test_string_columns_equal_pa_array(values: list[str | None]) -> None:
    assert aa.strings(values).equals(pa.array(values, type=pa.string()))


@pytest.mark.parametrize("seed", range(5))
def test_random_columns_equal_pa_array(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "ab \t\x00é日😀"
    for _ in range(40):
        n = rng.randrange(0, 60)
        texts = [
            None if rng.random() < 0.2 else "".join(rng.choices(alphabet, k=rng.randrange(0, 9)))
            for _ in range(n)
        ]
        assert aa.strings(texts).equals(pa.array(texts, type=pa.string()))
        ints = [None if rng.random() < 0.3 else rng.randrange(-(2**63), 2**63) for _ in range(n)]
        assert aa.int64s(ints).equals(pa.array(ints, type=pa.int64()))
        lists = [
            [t or "" for t in rng.sample(texts, rng.randrange(0, min(n, 4) + 1))] for _ in texts
        ]
        wanted = pa.array(lists, type=pa.list_(pa.string()))
        assert aa.string_lists(lists).equals(wanted)


def test_a_lone_surrogate_is_refused_as_pa_array_refuses_it() -> None:
    with pytest.raises(UnicodeEncodeError):
        pa.array(["ok", "bad \udc80"], type=pa.string())
    with pytest.raises(UnicodeEncodeError):
        aa.strings(["ok", "bad \udc80"])


def test_label_lists_equal_pa_array() -> None:
    lists = [["Entity", "Person"], [], ["é"], ("Tuple", "Labels"), ["x"] * 40]
    wanted = pa.array([list(x) for x in lists], type=pa.list_(pa.string()))
    assert aa.string_lists(lists).equals(wanted)


def test_a_table_of_columns() -> None:
    table = aa.columns_table({"vid": aa.int64s([1, 2]), "term": aa.strings(["a", None])})
    assert table.column_names == ["vid", "term"]
    assert table.to_pylist() == [{"vid": 1, "term": "a"}, {"vid": 2, "term": None}]


@pytest.mark.parametrize("kind", [pa.int32(), pa.int64(), pa.float32(), pa.float64()])
def test_numbers_read_back_as_to_numpy_reads_them(kind: pa.DataType) -> None:
    rng = random.Random(kind.bit_width)
    values = [rng.randint(-(2**24), 2**24) for _ in range(300)]  # exact in float32 too
    arr = pa.array(values, type=kind)
    wanted = arr.to_numpy()
    got = aa.arrow_numbers(arr)
    assert got.dtype == wanted.dtype and np.array_equal(got, wanted)
    # A slice starts at its offset in the buffer; a chunked column is read whole.
    assert np.array_equal(aa.arrow_numbers(arr.slice(7, 50)), wanted[7:57])
    chunked = pa.chunked_array([arr.slice(0, 100), arr.slice(100)])
    assert np.array_equal(aa.arrow_numbers(chunked), wanted)
    assert len(aa.arrow_numbers(pa.array([], type=kind))) == 0
    assert aa.arrow_numbers(pa.chunked_array([], type=kind)).dtype == wanted.dtype


def test_numbers_with_nulls_or_of_another_type_go_through_to_numpy() -> None:
    got = aa.arrow_numbers(pa.array([1, None, 3], type=pa.int64()))
    assert got[0] == 1 and np.isnan(got[1]) and got[2] == 3
    assert aa.arrow_numbers(pa.array([1, 2], type=pa.int16())).tolist() == [1, 2]


_WORKLOAD = """
import sys
from anatid_core import SETTINGS, Edge, Node, Store

if sys.argv[2] == "sql":  # (the walks then read the graph index: graph_arrays, walk_index)
    SETTINGS["current_records_limit"] = 0
with Store.open(sys.argv[1]) as s:
    nodes = [
        Node(f"n{i}", group="g", labels=("Entity", "Person" if i % 2 else "Org"),
             name=f"node {i} é", text=f"about node {i} and words", props={"i": i},
             embedding=[float(i % 7), 1.0, float(i % 3)])
        for i in range(60)
    ]
    s.upsert_nodes(nodes)  # (past SMALL_BATCH: Arrow batches)
    s.upsert_edges([
        Edge(f"e{i}", f"n{i % 60}", f"n{(i * 7 + 1) % 60}", "KNOWS", text=f"fact {i}",
             embedding=[1.0, float(i % 5), 0.5])
        for i in range(120)
    ])
    s.upsert_node(Node("n0", group="g", labels=("Entity",), name="renamed"))
    assert s.get_node("n0").name == "renamed"
    assert len(s.find_nodes(groups=["g"])) == 60
    assert s.search_text("words", k=5)
    assert s.search_vector([1.0, 1.0, 1.0], k=5)
    assert s.search_vector([1.0, 1.0, 1.0], k=5, kind="edge")
    assert s.recall(text="node", vector=[1.0, 1.0, 1.0], seeds=["n1"], k=5, depth=2)
    assert s.neighbours(["n1"])
    assert s.expand(["n1"], depth=2)
    assert s.shortest_path("n1", "n8") is not None
    assert s.cypher("MATCH (n:Person)-[r:KNOWS]->(m) RETURN n.name, m.name LIMIT 5").rows
    s.delete_edges(["e1"])
    s.build_indexes()
    assert s.search_vector([1.0, 1.0, 1.0], k=5)
print("pandas" in sys.modules)
"""


@pytest.mark.parametrize("records", ["memory", "sql"])
def test_a_store_process_never_imports_pandas(tmp_path: Path, records: str) -> None:
    """Writes in batches, searches of each arm, walks (from the in-memory records, or from
    the graph index where they are off), Cypher, an index build: pandas stays unloaded."""
    pytest.importorskip("pandas")  # (where it is not installed, nothing could import it)
    workload = textwrap.dedent(_WORKLOAD)
    done = subprocess.run(
        [sys.executable, "-c", workload, str(tmp_path / "g.duckdb"), records],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
