"""The in-memory view of current records (anatid_core.indexes.current_records) answers exactly what SQL answers.

Each test reads by id (served by the view) and compares with ``find_nodes``/``find_edges`` (SQL)
after every kind of write: updates, deletes, purges, erasures, rollbacks, another process's
commits; ``as_of`` reads and reads inside a transaction keep their own answers.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from anatid_core import SETTINGS, Cond, Edge, InvalidInput, Node, Store, WouldWait
from anatid_core.indexes import current_records
from anatid_core.indexes.current_records import NodeTags

T = datetime(2024, 1, 1, tzinfo=timezone.utc)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "g.duckdb") as s:
        s.upsert_nodes(
            [
                Node(
                    f"n{i}",
                    group="g",
                    labels=("Entity",),
                    name=f"node {i}",
                    props={"at": T, "i": i},
                )
                for i in range(5)
            ]
        )
        s.upsert_edges(
            [Edge(f"e{i}", f"n{i}", f"n{i + 1}", "KNOWS", props={"w": i}) for i in range(4)]
        )
        yield s


def _same_as_sql(s: Store, nodes: list[str], edges: list[str]) -> None:
    sql = s.as_of(tx_time=datetime.now(timezone.utc))  # never from memory
    assert s.get_nodes(nodes) == sql.find_nodes(ids=nodes) == s.find_nodes(ids=nodes)
    assert s.get_edges(edges) == sql.find_edges(ids=edges) == s.find_edges(ids=edges)
    for i in nodes:
        assert s.get_node(i) == next(iter(sql.find_nodes(ids=[i])), None)
    for i in edges:
        assert s.get_edge(i) == next(iter(sql.find_edges(ids=[i])), None)
    _scans_as_sql(s)
    for groups in (None, ["g"], ["g", "h"], ["nowhere"], []):  # the whole-graph bulk reads
        by_sql = sorted(s.find_nodes(groups=groups), key=lambda n: n.id)
        assert s.node_rows(groups=groups) == [(n.id, n.labels, n.name, n.props) for n in by_sql]
        by_sql_e = sorted(s.find_edges(groups=groups), key=lambda e: e.id)
        assert s.edge_rows(groups=groups) == [(e.src, e.dst, e.rel, e.props) for e in by_sql_e]
        some = [*nodes[::2], "missing", nodes[0]]  # and by id, a duplicate and a missing id
        by_sql = sorted(s.find_nodes(ids=some, groups=groups), key=lambda n: n.id)
        got = s.node_rows(ids=some, groups=groups)
        assert got == [(n.id, n.labels, n.name, n.props) for n in by_sql]
        some = [*edges[::2], "missing", edges[0]]
        by_sql_e = sorted(s.find_edges(ids=some, groups=groups), key=lambda e: e.id)
        got_e = s.edge_rows(ids=some, groups=groups)
        assert got_e == [(e.src, e.dst, e.rel, e.props) for e in by_sql_e]
    _filtered_rows_as_sql(s, nodes)


def _filtered_rows_as_sql(s: Store, nodes: list[str]) -> None:
    """The filtered row reads (labels/names index, endpoint index) against SQL: find_nodes,
    edges_of, edges_between, and the same verbs on an as_of view of now (never from memory)."""
    sql = s.as_of(tx_time=datetime.now(timezone.utc))
    names = ["node 0", "node 2", "renamed", "new", "nope"]
    for kw in ({"labels": ["Entity"]}, {"names": names}, {"labels": [], "names": names}):
        for groups in (None, ["g"]):
            want = [(n.id, n.labels, n.name, n.props) for n in s.find_nodes(groups=groups, **kw)]
            assert s.node_rows(groups=groups, **kw) == want == sql.node_rows(groups=groups, **kw)
    some = [*nodes[1::2], "missing"]
    want_e = [(e.src, e.dst, e.rel, e.props) for e in s.edges_of(some, direction="both")]
    assert s.edge_rows(touching=some) == want_e == sql.edge_rows(touching=some)
    want_e = [(e.src, e.dst, e.rel, e.props) for e in s.edges_between(nodes, nodes)]
    assert s.edge_rows(among=nodes) == want_e == sql.edge_rows(among=nodes)
    for direction in ("out", "in", "both"):
        for rels in (None, ["KNOWS"], ["KNOWS", "OTHER"], []):
            kw = {"direction": direction, "rels": rels}
            assert s.edges_of(some, **kw) == sql.edges_of(some, **kw), kw
    pairs = ((nodes, nodes, None), (some, nodes, ["KNOWS"]), (nodes[:2], some, []))
    for a, b, rels in (*pairs, (nodes[1:3], nodes[1:2], None)):  # an edge only one way
        for directed in (True, False):
            kw = {"rels": rels, "directed": directed}
            assert s.edges_between(a, b, **kw) == sql.edges_between(a, b, **kw)
    view = s.indexes.current.loaded("node")
    if view is not None:  # the index holds the current rows, nothing stale (its memory bound)
        rebuilt = NodeTags()
        for row in view.by_id.values():
            rebuilt.add(row)
        assert view.tags is not None
        assert (view.tags.by_label, view.tags.by_name) == (rebuilt.by_label, rebuilt.by_name)


def _scans_as_sql(s: Store) -> None:
    """``find_nodes``/``find_edges`` filtered by columns only (answered from memory where the
    view serves, :meth:`Reader._scan_from_memory`) give what SQL gives, page by page."""
    sql = s.as_of(tx_time=datetime.now(timezone.utc))
    node_filters: list[dict[str, object]] = [
        {},
        {"labels": ["Entity"]},
        {"labels": ["Entity", "Other"], "groups": ["g"]},
        {"groups": ["g", "h"], "where": [[Cond("name", "in", ["node 1", "node 3", "x"])]]},
        {"names": ["node 2", "renamed"], "where": [[Cond("group", "=", "g")]]},
        {"ids": ["n1", "n4", "nope"], "labels": ["Entity"]},
        {"where": [[Cond("id", "in", ["n0", "n2"]), Cond("id", "in", ["n2", "n3"])]]},
        {"labels": []},
        {"groups": ["g"]},
        {"groups": ["h", "g", "nowhere"], "labels": ["Entity"]},
    ]
    edge_filters: list[dict[str, object]] = [
        {},
        {"rels": ["KNOWS"]},
        {"src": ["n1", "n2"], "rels": ["KNOWS", "OTHER"]},
        {"dst": ["n2"], "groups": ["default"]},
        {"where": [[Cond("src", "in", ["n0", "n3"]), Cond("rel", "=", "KNOWS")]]},
        {"groups": [""], "rels": ["KNOWS"]},  # one part of the rows (a group and type)
        {"groups": ["", "h"], "rels": ["KNOWS", "OTHER"]},  # several, merged by id
        {"groups": ["h", ""]},  # every type of each group
        {"groups": ["nowhere"], "rels": ["KNOWS"]},
    ]
    for verb, filters in (("find_nodes", node_filters), ("find_edges", edge_filters)):
        for kw in filters:
            for order_by in (None, "id"):
                for limit, offset in ((None, 0), (2, 0), (2, 2), (3, 1), (0, 0)):
                    page = {"order_by": order_by, "limit": limit, "offset": offset, **kw}
                    assert getattr(s, verb)(**page) == getattr(sql, verb)(**page), page
    for kind, at in (("node", 2), ("edge", 5)):
        view = s.indexes.current.loaded(kind)  # type: ignore[arg-type]
        if view is not None:  # the group index holds the current rows, nothing stale
            rebuilt: dict[str, set[str]] = {}
            for row in view.by_id.values():
                rebuilt.setdefault(row[at], set()).add(row[1])
            assert view.by_group == rebuilt


def test_scans_by_group_stay_right_as_their_parts_change(store: Store) -> None:
    """A scan by group reads the rows of its part (a group; for edges, a group and a type)
    in an order the view keeps: after writes into the part, into another part, out of it
    (a new group or type), and its last row deleted, each scan still gives SQL's answer."""
    _scans_as_sql(store)  # builds every part's order
    store.upsert_edges([Edge("e9", "n4", "n0", "KNOWS", group="h")])  # a new part
    store.upsert_edges([Edge("a1", "n0", "n2", "KNOWS")])  # into a part, first by id
    _scans_as_sql(store)
    store.upsert_edges([Edge("e1", "n1", "n2", "OTHER", group="h")])  # moved to a new part
    store.upsert_nodes([Node("n2", group="h", name="moved", labels=("Entity", "Other"))])
    _scans_as_sql(store)
    store.delete_edges(["e9"])  # a part emptied
    store.upsert_edges([Edge("e0", "n0", "n1", "KNOWS", props={"w": 7})])  # a new version
    _scans_as_sql(store)
    got = store.find_edges(groups=["h"], rels=["KNOWS", "OTHER"])
    assert [e.id for e in got] == ["e1"]
    assert [e.id for e in store.find_edges(groups=[""], rels=["KNOWS"])] == [
        "a1",
        "e0",
        "e2",
        "e3",
    ]


NODES = [f"n{i}" for i in range(7)]
EDGES = [f"e{i}" for i in range(6)]


def test_reads_by_id_come_from_memory_and_match_sql(store: Store) -> None:
    _same_as_sql(store, NODES, EDGES)
    assert store.indexes.current.loaded("node") is not None  # the view served them
    assert store.indexes.current.loaded("edge") is not None


def test_a_process_that_reads_a_few_records_by_id_does_not_load_them_all(
    store: Store, tmp_path: Path
) -> None:
    """Reads by id rent before they buy: the first ``current_records_after_reads`` of a kind in
    a process go to SQL (a CLI command or a restarted server's first search must not load every
    current record for ten rows); the next one loads the view, which answers from then on."""
    rent = SETTINGS["current_records_after_reads"]
    assert rent > 0
    store.close()
    with Store.open(tmp_path / "g.duckdb", read_only=True) as s:
        current = s.indexes.current
        sql = s.as_of(tx_time=datetime.now(timezone.utc))
        for i in range(rent):
            assert s.get_node(NODES[i % 7]) == next(iter(sql.find_nodes(ids=[NODES[i % 7]])), None)
            assert current.loaded("node") is None  # SQL answered
        assert s.get_edges(EDGES) == sql.find_edges(ids=EDGES)  # edges keep their own count
        assert current.loaded("edge") is None
        assert s.get_nodes(NODES) == sql.find_nodes(ids=NODES)  # past the rent: loaded
        assert current.loaded("node") is not None
        assert s.get_nodes(NODES) == sql.find_nodes(ids=NODES)
    with Store.open(tmp_path / "g.duckdb", read_only=True) as s:
        s.find_nodes(labels=["Entity"])  # a scan loads the view at once
        assert s.indexes.current.loaded("node") is not None


def test_updates_new_records_and_deletes_are_seen_at_once(store: Store) -> None:
    _same_as_sql(store, NODES, EDGES)  # build the views first
    store.upsert_nodes([Node("n1", group="g", name="renamed", props={"at": T, "i": 10})])
    store.upsert_nodes([Node("n5", name="new")])
    store.upsert_edges([Edge("e4", "n4", "n5", "KNOWS")])
    store.upsert_edge(Edge("e0", "n0", "n1", "KNOWS", props={"w": 99}))
    assert store.get_node("n1").name == "renamed"  # type: ignore[union-attr]
    assert store.get_edge("e0").props == {"w": 99}  # type: ignore[union-attr]
    _same_as_sql(store, NODES, EDGES)
    store.delete_edges(["e1"])
    store.delete_nodes(["n3"])  # detaches e2 and e3
    assert store.get_edge("e1") is None and store.get_node("n3") is None
    assert store.get_edges(["e2", "e3"]) == []
    _same_as_sql(store, NODES, EDGES)
    store.close_nodes(["n0"], valid_to=T)
    _same_as_sql(store, NODES, EDGES)


def test_views_built_from_the_file_and_grown_by_commits_match_sql(tmp_path: Path) -> None:
    """A view built from a file's rows (groups, label sets, edges sharing ends), then grown by
    a commit of new records only, one that also replaces records and one that writes an id
    twice in a transaction: what memory answers is what SQL answers throughout."""
    path = tmp_path / "big.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes(
            Node(f"m{i}", group=f"g{i % 3}", labels=("A", "B")[: 1 + i % 2], name=f"m {i % 50}")
            for i in range(300)
        )
        s.upsert_edges(
            Edge(f"f{i}", f"m{i % 300}", f"m{(i * 7) % 300}", ("R", "S")[i % 2], group=f"g{i % 2}")
            for i in range(600)
        )
    nodes = sorted(f"m{i}" for i in range(0, 320, 7))  # (the order find_nodes gives)
    edges = sorted(f"f{i}" for i in range(0, 620, 11))
    with Store.open(path) as s:
        _same_as_sql(s, nodes, edges)  # built here, from the file
        s.upsert_nodes([Node(f"m{i}", group="g1", labels=("C",)) for i in range(300, 320)])
        _same_as_sql(s, nodes, edges)
        s.upsert_nodes([Node("m0", group="g9", name="moved"), Node("m301", name="n2")])
        s.upsert_edges([Edge("f0", "m1", "m2", "R"), Edge("f600", "m0", "m301", "S")])
        _same_as_sql(s, nodes, edges)
        with s.transaction():
            s.upsert_nodes([Node("m302", name="first")])
            s.upsert_nodes([Node("m302", name="second"), Node("m303")])
        assert s.get_node("m302").name == "second"  # type: ignore[union-attr]
        _same_as_sql(s, nodes, edges)
        assert s.check() == []


def test_an_unchanged_resave_writes_nothing_and_a_changed_one_a_new_version(store: Store) -> None:
    _same_as_sql(store, NODES, EDGES)
    edge = Edge("e0", "n0", "n1", "KNOWS", props={"w": 0})
    assert store.upsert_edge(edge).unchanged == 1
    assert store.upsert_edge(Edge("e0", "n0", "n1", "KNOWS", props={"w": 5})).written == 1
    assert store.upsert_edge(Edge("e0", "n0", "n1", "KNOWS", props={"w": 5})).unchanged == 1
    assert [e.props["w"] for e in store.history("e0")] == [0, 5]
    assert store.check() == []


def test_an_edge_to_a_deleted_node_is_refused(store: Store) -> None:
    _same_as_sql(store, NODES, EDGES)
    store.delete_nodes(["n4"])
    with pytest.raises(InvalidInput, match="missing node"):
        store.upsert_edge(Edge("x", "n0", "n4", "KNOWS"))
    assert store.upsert_edge(Edge("x", "n0", "n4", "KNOWS"), missing_endpoints="skip").skipped == 1


def test_a_rolled_back_transaction_leaves_the_view_as_it_was(store: Store) -> None:
    before = store.get_node("n1")
    with pytest.raises(RuntimeError), store.transaction():
        store.upsert_nodes([Node("n1", name="never")])
        store.delete_edges(["e0"])
        raise RuntimeError("roll back")
    assert store.get_node("n1") == before
    _same_as_sql(store, NODES, EDGES)


def test_reads_inside_a_transaction_see_its_own_writes(store: Store) -> None:
    store.get_node("n1")
    with store.transaction():
        store.upsert_nodes([Node("n1", name="inside")])
        store.delete_edges(["e0"])
        assert store.get_node("n1").name == "inside"  # type: ignore[union-attr]
        assert store.get_edge("e0") is None
        # a second write in the same transaction sees the first (no stale current version)
        store.upsert_nodes([Node("n1", name="inside again")])
    assert store.get_node("n1").name == "inside again"  # type: ignore[union-attr]
    assert len(store.history("n1")) == 3
    _same_as_sql(store, NODES, EDGES)
    assert store.check() == []


def test_a_transaction_reads_from_memory_until_it_writes(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before its first write, a transaction sees what was committed, so the in-memory view
    answers its reads (a host reading then writing in one transaction: Cognee's vector upsert);
    from its first write on, SQL does, and every later write sees the earlier ones."""
    store.get_nodes(NODES)  # the view is built
    queries: list[str] = []
    query = store.connection.query
    monkeypatch.setattr(
        store.connection, "query", lambda sql, params=(): queries.append(sql) or query(sql, params)
    )
    with store.transaction():
        assert [n.id for n in store.get_nodes(["n2", "n1"])] == ["n2", "n1"]
        assert store.node_rows(ids=["n1"], plain_props=True)[0][3] == {"at": T.isoformat(), "i": 1}
        assert store.get_edge("e0") is not None
        assert queries == []  # what was committed, from memory
        store.upsert_nodes([Node("new", group="g", name="fresh")])
        assert store.get_node("new").name == "fresh"  # type: ignore[union-attr]
        assert queries  # its own write: SQL answers
        store.upsert_edges([Edge("e-new", "new", "n1", "KNOWS")])  # sees the new node
        store.delete_nodes(["n3"])
        assert store.get_node("n3") is None and store.get_edge("e2") is None
        store.upsert_nodes([Node("n3", group="g", name="back")])  # no stale current version
    assert store.get_node("n3").name == "back"  # type: ignore[union-attr]
    assert [v.name for v in store.history("n3")] == ["node 3", "back"]
    _same_as_sql(store, sorted([*NODES, "new"]), sorted([*EDGES, "e-new"]))
    assert store.check() == []


def test_as_of_reads_keep_the_past(store: Store) -> None:
    store.get_node("n1")
    past = datetime.now(timezone.utc)
    store.upsert_nodes([Node("n1", name="later")])
    store.delete_nodes(["n2"])
    view = store.as_of(tx_time=past)
    assert view.get_node("n1").name == "node 1"  # type: ignore[union-attr]
    assert view.get_node("n2") is not None
    assert store.get_node("n2") is None


def test_purges_and_erasures_remove_records(store: Store) -> None:
    _same_as_sql(store, NODES, EDGES)
    store.purge_edges(["e0"])
    store.purge_nodes(["n4"])  # with e3
    assert store.get_edge("e0") is None and store.get_node("n4") is None
    assert store.get_edge("e3") is None
    _same_as_sql(store, NODES, EDGES)
    store.erase_nodes(["n0"])
    assert store.get_node("n0") is None
    _same_as_sql(store, NODES, EDGES)
    store.purge_all()
    assert store.get_nodes(NODES) == [] and store.get_edges(EDGES) == []
    store.upsert_nodes([Node("n1", name="again")])
    assert store.get_node("n1").name == "again"  # type: ignore[union-attr]
    _same_as_sql(store, NODES, EDGES)


def test_changing_returned_props_does_not_change_the_store(store: Store) -> None:
    store.upsert_nodes([Node("p", props={"tags": ["a"], "inner": {"k": 1}})])
    got = store.get_node("p")
    got.props["tags"].append("b")  # type: ignore[union-attr,index]
    got.props["inner"]["k"] = 2  # type: ignore[union-attr,index]
    assert store.get_node("p").props == {"tags": ["a"], "inner": {"k": 1}}  # type: ignore[union-attr]


def test_past_the_limit_sql_answers(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    store.indexes.current.forget()
    monkeypatch.setitem(SETTINGS, "current_records_limit", 3)
    _same_as_sql(store, NODES, EDGES)
    assert store.indexes.current.loaded("node") is None  # 5 nodes: too many to keep
    store.upsert_nodes([Node("n1", name="changed")])
    assert store.get_node("n1").name == "changed"  # type: ignore[union-attr]
    monkeypatch.setitem(SETTINGS, "current_records_limit", 6)
    store.indexes.current.forget()
    _same_as_sql(store, NODES, EDGES)
    store.upsert_nodes([Node("n5"), Node("n6")])  # grows past the limit: dropped, SQL answers
    assert store.indexes.current.loaded("node") is None
    _same_as_sql(store, NODES, EDGES)


def test_a_store_opened_without_records_in_memory_reads_by_sql(store: Store) -> None:
    """``records_in_memory=False`` (the command line's one-shot reads): nothing is loaded, and
    every read answers as from memory (issue 44)."""
    in_memory = (store.get_nodes(NODES), store.get_edges(EDGES))
    path = store.path
    store.close()
    with Store.open(path, read_only=True, records_in_memory=False) as s:
        _same_as_sql(s, NODES, EDGES)
        assert (s.get_nodes(NODES), s.get_edges(EDGES)) == in_memory
        assert s.indexes.current.loaded("node") is None
        assert s.indexes.current.loaded("edge") is None


def _in_another_process(path: str, body: str) -> None:
    code = f"""
        from anatid_core import Edge, Node, Store
        with Store.open({path!r}) as other:
    """
    script = textwrap.dedent(code) + textwrap.indent(textwrap.dedent(body), "    ")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def test_another_process_commits_are_seen(store: Store) -> None:
    _same_as_sql(store, NODES, EDGES)
    _in_another_process(
        store.path,
        """
        other.upsert_nodes([Node("n1", name="from the other process"), Node("n6")])
        other.delete_edges(["e1"])
        """,
    )
    assert store.get_node("n1").name == "from the other process"  # type: ignore[union-attr]
    assert store.get_node("n6") is not None and store.get_edge("e1") is None
    _same_as_sql(store, NODES, EDGES)
    _in_another_process(store.path, 'other.purge_nodes(["n4"])')
    assert store.get_node("n4") is None and store.get_edge("e3") is None
    _same_as_sql(store, NODES, EDGES)
    store.upsert_edge(Edge("e0", "n0", "n1", "KNOWS", props={"w": 7}))  # its version ids go on
    assert store.check() == []


def test_another_processs_commits_update_the_view_without_reading_it_all_again(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading every current record again after each commit of another process cost 0.36 s at
    40k edges (issue 41): the view takes in what was added and drops what was ended."""
    from anatid_core.indexes.current_records import CurrentRecords

    _same_as_sql(store, NODES, EDGES)  # both views built
    builds: list[str] = []
    build = CurrentRecords._build
    monkeypatch.setattr(
        CurrentRecords,
        "_build",
        lambda self, kind, limit: builds.append(kind) or build(self, kind, limit),
    )
    _in_another_process(
        store.path,
        """
        other.upsert_nodes([Node("n2", name="renamed", labels=("Entity", "Person")), Node("n7")])
        other.delete_nodes(["n0"])
        other.upsert_edges([Edge("e9", "n2", "n7", "LIKES"), Edge("e2", "n2", "n3", "KNOWS")])
        """,
    )
    assert store.get_node("n2").name == "renamed"  # type: ignore[union-attr]
    assert store.get_node("n0") is None and store.get_edge("e0") is None  # its edge went with it
    assert [e.id for e in store.edges_of(["n7"])] == ["e9"]
    assert {n.id for n in store.find_nodes(labels=["Person"])} == {"n2"}
    _same_as_sql(store, [*NODES, "n7"], [*EDGES, "e9"])
    assert builds == []


def test_vector_spaces_are_found_again_after_a_purge_of_everything(store: Store) -> None:
    store.upsert_nodes([Node("v1", embedding=[1.0, 0.0])])
    store.upsert_nodes([Node("v2", embedding=[0.0, 1.0])])  # the space is known now
    store.purge_all()  # drops the space's table
    store.upsert_nodes([Node("v3", embedding=[1.0, 0.0])])
    assert [h.id for h in store.search_vector([1.0, 0.0], k=5)] == ["v3"]
    with pytest.raises(InvalidInput, match="dimension"):
        store.upsert_nodes([Node("v4", embedding=[1.0, 0.0, 0.0])])
    assert store.check() == []


def _newest_both_ways(s: Store, kind: str, **kw: object) -> list:
    """From memory, and from SQL (an as_of view of now never uses the in-memory records)."""
    sql = s.as_of(tx_time=datetime.now(timezone.utc))
    fast = (s.find_nodes if kind == "node" else s.find_edges)(order_by="-valid_from", **kw)  # type: ignore[arg-type]
    slow = (sql.find_nodes if kind == "node" else sql.find_edges)(order_by="-valid_from", **kw)  # type: ignore[arg-type]
    return [fast, slow]


def test_newest_first_queries_match_sql(tmp_path: Path) -> None:
    from datetime import timedelta

    from anatid_core import Cond

    with Store.open(tmp_path / "n.duckdb") as s:
        # ties in valid_from (ordered by id), two groups, records without valid_from
        s.upsert_nodes(
            [
                Node(f"ep{i:03d}", group=f"g{i % 2}", valid_from=T + timedelta(minutes=i // 3))
                for i in range(150)  # more than one commit's worth of edits: sorted again
            ]
            + [Node(f"ent{i}", group="g0") for i in range(5)]
        )
        s.upsert_edges(
            [
                Edge(f"x{i}", "ep000", "ent0", "R", group="g0", valid_from=T + timedelta(minutes=i))
                for i in range(5)
            ]
        )

        def check() -> None:
            for groups in (None, ["g0"], ["g1"], [], ["nope"], iter(["g1"])):
                for op in ("<=", "<"):
                    for minutes in (-1, 0, 7, 10, 1000):
                        where = [[Cond("valid_from", op, T + timedelta(minutes=minutes))]]
                        g = list(groups) if groups is not None else None
                        for limit in (1, 4, 200):
                            fast, slow = _newest_both_ways(
                                s, "node", groups=g, where=where, limit=limit
                            )
                            assert fast == slow
                        fast, slow = _newest_both_ways(s, "edge", where=where, limit=3)
                        assert fast == slow

        s.get_node("ep000")  # build the view, then edit it commit by commit
        s.find_nodes(where=[[Cond("valid_from", "<=", T)]], order_by="-valid_from", limit=1)
        check()
        s.upsert_nodes([Node("ep005", group="g1", valid_from=T + timedelta(minutes=500))])
        s.upsert_nodes([Node("ep006", group="g0")])  # loses its valid_from
        s.delete_nodes(["ep007"])
        s.purge_nodes(["ep008"])
        check()
        assert s.indexes.current.loaded("node") is not None  # memory answered throughout
        past = datetime.now(timezone.utc)
        s.delete_nodes(["ep149"])
        where = [[Cond("valid_from", "<=", T + timedelta(minutes=1000))]]
        kept = s.as_of(tx_time=past).find_nodes(where=where, order_by="-valid_from", limit=1)
        assert [n.id for n in kept] == ["ep005"]
        newest = s.find_nodes(where=where, order_by="-valid_from", limit=2)
        assert [n.id for n in newest] == ["ep005", "ep147"]  # ep147 and ep148 tie: by id


def test_expansions_from_memory_match_sql(tmp_path: Path) -> None:
    import random

    rng = random.Random(3)
    with Store.open(tmp_path / "x.duckdb") as s:
        s.upsert_nodes([Node(f"v{i}") for i in range(40)])
        s.upsert_edges(
            [
                Edge(f"x{i}", f"v{rng.randrange(40)}", f"v{rng.randrange(40)}", rng.choice("AB"))
                for i in range(120)
            ]
        )

        def check() -> None:
            sql = s.as_of(tx_time=datetime.now(timezone.utc))  # never from memory
            for seeds in (["v0"], ["v1", "v2", "nope"], []):
                for depth in (1, 2, 3):
                    for direction in ("out", "in", "both"):
                        for rels in (None, ["A"], [], iter(["B"])):
                            kw = {"depth": depth, "direction": direction}
                            r = list(rels) if rels is not None else None
                            assert s.expand(seeds, rels=r, **kw) == sql.expand(seeds, rels=r, **kw)

        s.get_edge("x0")  # the edge view is built
        check()
        s.delete_nodes(["v3"])  # detaches its edges
        s.delete_edges(["x5", "x6"])
        s.upsert_edges([Edge("x7", "v0", "v1", "A"), Edge("new", "v1", "v0", "B")])  # moved
        s.purge_edges(["x8"])
        check()
        assert s.indexes.current.loaded("edge") is not None


def test_searches_fetching_from_memory_match_sql(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.duckdb") as s:
        s.upsert_nodes(
            [
                Node(
                    f"d{i}",
                    group=f"g{i % 3}",
                    labels=("Entity",) if i % 2 else ("Episodic",),
                    name=f"alpha {i}",
                    text="beta gamma" if i % 4 else "alpha",
                    embedding=[1.0, i / 10.0],
                )
                for i in range(30)
            ]
        )
        s.upsert_edges(
            [Edge(f"r{i}", f"d{i}", f"d{i + 1}", "AB"[i % 2], text="alpha") for i in range(9)]
        )

        def check() -> None:
            sql = s.as_of(tx_time=datetime.now(timezone.utc))  # never from memory
            for groups in (None, ["g1"], ["g0", "g2"], []):
                for labels in (None, ["Entity"], ["nope"]):
                    kw = {"groups": groups, "labels": labels, "k": 7}
                    assert s.search_text("alpha", **kw) == sql.search_text("alpha", **kw)
                    # (scores: float32 in memory against DuckDB's cosine, so compare the records)
                    near = [(h.id, h.item) for h in s.search_vector([1.0, 0.5], **kw)]
                    assert near == [(h.id, h.item) for h in sql.search_vector([1.0, 0.5], **kw)]
                for rels in (None, ["A"]):
                    kw = {"groups": groups, "rels": rels, "kind": "edge"}
                    assert s.search_text("alpha", **kw) == sql.search_text("alpha", **kw)

        check()
        assert s.indexes.current.loaded("node") is not None
        s.upsert_nodes([Node("d1", group="g2", labels=("Entity",), name="alpha again")])
        s.delete_nodes(["d3"])
        s.purge_nodes(["d5"])
        check()


def test_reads_without_waiting_answer_from_memory_or_refuse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``without_waiting`` (for callers on an event loop): a read by id answers from the
    in-memory records, or raises WouldWait, never queries or waits, and leaves the store
    as it was: the same read then answers the usual way."""
    monkeypatch.setitem(SETTINGS, "current_records_after_reads", 0)  # the first read loads
    path = tmp_path / "w.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes([Node("a", props={"at": T}, valid_from=T), Node("b")])
    with Store.open(path) as s:
        with pytest.raises(WouldWait), s.without_waiting():
            s.get_node("a")  # the records are not in memory yet: building them reads SQL
        expected = s.get_node("a")  # builds them
        with s.without_waiting():
            assert s.get_node("a") == expected and s.get_nodes(["b", "zz"]) == [s.get_node("b")]
        with s.without_waiting():  # a read filtered by columns only: from memory too
            assert s.find_nodes() == [s.get_node("a"), s.get_node("b")]
        with pytest.raises(WouldWait), s.without_waiting():
            s.find_nodes(where=[[Cond("props.at", "=", T)]])  # answered by SQL
        newest = {
            "where": [[Cond("valid_from", "<=", datetime.now(timezone.utc))]],
            "order_by": "-valid_from",
            "limit": 1,
        }
        with pytest.raises(WouldWait), s.without_waiting():
            s.find_nodes(**newest)  # the recency order is sorted on first use: not on a loop
        expected_newest = s.find_nodes(**newest)
        with s.without_waiting():
            assert s.find_nodes(**newest) == expected_newest != []
        with pytest.raises(WouldWait), s.without_waiting():
            s.as_of(tx_time=datetime.now(timezone.utc)).get_node("a")  # the past: SQL
        _in_another_process(str(path), 'other.upsert_nodes([Node("c")])')
        with pytest.raises(WouldWait), s.without_waiting():
            s.get_node("c")  # the file went to the other process: taking it back waits
        assert s.get_node("c") is not None and len(s.find_nodes()) == 3
        with s.without_waiting():
            assert s.get_node("c") is not None


def test_scans_by_column_come_from_memory_and_others_from_sql(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read filtered by columns only (the Cypher engine's label and group scans, a page
    at a time) reads no SQL once the view is built; a filter on props still does."""
    store.get_nodes(NODES)
    store.get_edges(EDGES)
    queries: list[str] = []
    query = store.connection.query
    monkeypatch.setattr(
        store.connection, "query", lambda sql, params=(): queries.append(sql) or query(sql, params)
    )
    assert [n.id for n in store.find_nodes(labels=iter(["Entity"]), limit=2, offset=1)] == [
        "n1",
        "n2",
    ]
    by_group = store.find_nodes(where=[[Cond("group", "in", ["g"])]], order_by=None)
    assert [n.id for n in by_group] == [f"n{i}" for i in range(5)]
    assert [e.id for e in store.find_edges(src=["n1"], rels=["KNOWS"])] == ["e1"]
    # the edges at a node (Graphiti's facts of an entity): ~1 ms of SQL a call before
    by_sql = store.as_of(tx_time=datetime.now(timezone.utc)).edges_of(["n1"], rels=["KNOWS"])
    queries.clear()
    assert store.edges_of(["n1"], rels=["KNOWS"]) == by_sql and by_sql
    assert queries == []
    assert [n.id for n in store.find_nodes(where=[[Cond("props.i", ">", 2)]])] == ["n3", "n4"]
    assert queries  # props: SQL


def test_readers_scanning_groups_at_once_see_every_row(tmp_path: Path) -> None:
    """Threads scanning by group while the view builds its orders (and counting patterns while
    it counts its tallies) each get the whole answer, never a part built halfway."""
    import threading

    with Store.open(tmp_path / "many.duckdb") as s:
        groups = ["a", "b", "c", "d"]
        s.upsert_nodes(
            [Node(f"{g}{i:05}", group=g, labels=("Entity",)) for g in groups for i in range(3000)]
        )
        s.upsert_edges(
            [Edge(f"e{g}{i}", f"{g}{i:05}", f"{g}{i + 1:05}", "R", group=g) for g in groups for i in range(2999)]
        )  # fmt: skip
        ids = {g: [f"{g}{i:05}" for i in range(3000)] for g in groups}
        for _ in range(10):
            s.indexes.current.forget()  # every view, order and tally built again
            got: dict[str, object] = {}

            def scan(g: str, got: dict[str, object] = got) -> None:
                nodes = [n.id for n in s.find_nodes(groups=[g])]
                edges = len(s.find_edges(groups=[g], rels=["R"]))
                counts = s.neighbour_counts(ids[g][:50], rels=["R"])
                got[g] = (nodes, edges, sum(sum(c.values()) for c in counts.values()))

            threads = [threading.Thread(target=scan, args=(g,)) for g in groups]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert got == {g: (ids[g], 2999, 99) for g in groups}


# ------------------------------------------------------- a big kind loads beside its readers


def _loading_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, nodes: int) -> Path:
    """A file of ``nodes`` nodes (a chain of edges between them), its kinds "big": more
    records than a read waits to load."""
    monkeypatch.setattr(current_records, "LOADED_AT_ONCE", 5)
    monkeypatch.setitem(SETTINGS, "current_records_after_reads", 0)
    path = tmp_path / "big.duckdb"
    with Store.open(path) as s:
        s.upsert_nodes(Node(f"n{i}", labels=("Entity",), name=f"node {i}") for i in range(nodes))
        s.upsert_edges(Edge(f"e{i}", f"n{i}", f"n{i + 1}", "KNOWS") for i in range(nodes - 1))
    return path


def _hold_the_load(monkeypatch: pytest.MonkeyPatch, seconds: float) -> threading.Event:
    """Hold a load at its first row until the event returned is set (or ``seconds`` passed: a
    read or write that waited for the load would then go on, and find it loaded)."""
    gate = threading.Event()
    add = current_records._KindView.add

    def held_add(view: Any, row: Any) -> None:
        if not gate.is_set():
            gate.wait(seconds)
            gate.set()
        add(view, row)

    monkeypatch.setattr(current_records._KindView, "add", held_add)
    return gate


def test_a_big_kind_loads_beside_its_readers_which_sql_answers_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``LOADED_AT_ONCE`` records, no read or write waits for the load (1M nodes took
    7.5 s, and the read that asked waited): reads by id, scans, walks and writes are answered
    by SQL while a thread loads the records; the commits that land meanwhile are applied to
    them before they answer; the same answers throughout."""
    path = _loading_store(tmp_path, monkeypatch, 40)
    gate = _hold_the_load(monkeypatch, 20)
    nodes = sorted([*(f"n{i}" for i in range(40)), "n40"])
    edges = sorted([*(f"e{i}" for i in range(39)), "e40"])
    with Store.open(path) as s:
        current = s.indexes.current
        sql = s.as_of(tx_time=datetime.now(timezone.utc))
        assert s.get_node("n3") == sql.get_node("n3")
        assert s.find_nodes(labels=["Entity"], limit=5) == sql.find_nodes(
            labels=["Entity"], limit=5
        )
        assert [e.id for e in s.edges_of(["n3"])] == ["e2", "e3"]
        assert s.get_edges(["e1", "e2"]) == sql.get_edges(["e1", "e2"])
        # writes of every kind meanwhile: a new version, a new record, an end, a purge
        s.upsert_node(Node("n3", labels=("Entity",), name="renamed"))
        s.upsert_nodes([Node("n40", labels=("Entity",), name="new")])
        s.upsert_edges([Edge("e40", "n40", "n0", "KNOWS"), Edge("e1", "n1", "n9", "KNOWS")])
        s.delete_edges(["e5"])
        s.purge_nodes(["n7"])
        assert current.loaded("node") is None and current.loaded("edge") is None
        assert not gate.is_set()  # none of them waited for the load: it is still held
        gate.set()
        for _ in range(600):  # (until both are loaded, 60 s at most)
            if current.loaded("node") is not None and current.loaded("edge") is not None:
                break
            time.sleep(0.1)
        assert current.loaded("node") is not None and current.loaded("edge") is not None
        assert s.get_node("n3").name == "renamed"  # type: ignore[union-attr]
        assert s.get_node("n7") is None and s.get_edge("e5") is None
        assert s.get_edge("e1").dst == "n9"  # type: ignore[union-attr]
        _same_as_sql(s, nodes, edges)
        assert [e.id for e in s.edges_of(["n40", "n0"])] == ["e0", "e40"]


def test_a_load_beside_the_readers_dropped_meanwhile_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The records dropped while a kind loads (a purge of everything here; compaction and
    another process's commits alike) drop the load too: the next read loads them again."""
    path = _loading_store(tmp_path, monkeypatch, 40)
    gate = _hold_the_load(monkeypatch, 20)
    with Store.open(path) as s:
        current = s.indexes.current
        assert s.get_node("n1") is not None  # sets the load off
        s.purge_all()  # drops every view: the load read the tables before it
        gate.set()
        current.settle()
        assert current.loaded("node") is None
        s.upsert_nodes([Node("n2", labels=("Entity",), name="after"), Node("n50")])
        for _ in range(600):
            if current.loaded("node") is not None:
                break
            s.get_node("n1")
            time.sleep(0.1)
        assert current.loaded("node") is not None
        assert s.get_node("n1") is None and s.get_node("n2").name == "after"  # type: ignore[union-attr]
        _same_as_sql(s, ["n1", "n2", "n50"], ["e1"])


def test_another_process_writes_while_a_big_kind_loads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load reads a range of versions per turn: another process that wants the file has it
    between two of them (at 1M records the load takes seconds) and writes; its commits are
    applied to the records before they answer."""
    path = _loading_store(tmp_path, monkeypatch, 40)
    monkeypatch.setattr(current_records, "LOADED_VIDS", 8)
    gate = _hold_the_load(monkeypatch, 30)  # (between the load's reads: it holds no turn)
    with Store.open(path) as s:
        current = s.indexes.current
        assert s.get_node("n1") is not None  # sets the load off, held at its first rows
        _in_another_process(
            s.path,
            """
            other.upsert_nodes([Node("n5", name="from the other process"), Node("n60")])
            other.delete_nodes(["n6"])
            other.upsert_edges([Edge("e39", "n60", "n0", "KNOWS")])
            """,
        )
        assert not gate.is_set()  # it wrote while the load was held
        gate.set()
        for _ in range(600):
            if current.loaded("node") is not None and current.loaded("edge") is not None:
                break
            s.get_node("n1")
            s.get_edges(["e1"])
            time.sleep(0.1)
        assert current.loaded("node") is not None and current.loaded("edge") is not None
        assert s.get_node("n5").name == "from the other process"  # type: ignore[union-attr]
        assert s.get_node("n6") is None and s.get_edge("e5") is None  # (detached)
        nodes = sorted([*(f"n{i}" for i in range(40)), "n60"])
        _same_as_sql(s, nodes, sorted(f"e{i}" for i in range(40)))


def test_closing_stops_a_load_beside_the_readers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that read a few records and closes does not wait for the load it set off
    (at 1M records, seconds): the load stops at its next rows, nothing is left running."""
    path = _loading_store(tmp_path, monkeypatch, 3000)
    add = current_records._KindView.add

    def slow_add(view: Any, row: Any) -> None:
        time.sleep(0.01)  # 3,000 rows: 30 s, past the bounded wait of closing
        add(view, row)

    monkeypatch.setattr(current_records._KindView, "add", slow_add)
    monkeypatch.setattr(current_records, "SETTLE_SECONDS", 10.0)
    s = Store.open(path)
    assert s.get_node("n1") is not None  # sets the load off
    loads = [t for t in threading.enumerate() if t.name == "anatid-current-nodes"]
    assert loads and loads[0].is_alive()
    s.close()
    assert not loads[0].is_alive()
    with Store.open(path) as again:  # the file is free and whole
        assert again.get_node("n2999") is not None
