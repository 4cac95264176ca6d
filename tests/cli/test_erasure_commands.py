"""``anatid erase``, ``compact`` and ``erasures`` (issue 15), run as subprocesses on a real file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anatid_core import Store

from .conftest import anatid, build


def _bytes(path: Path, needle: bytes) -> int:
    return sum(f.read_bytes().count(needle) for f in path.parent.iterdir() if f.is_file())


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return build(tmp_path / "memory.duckdb").path


@pytest.mark.parametrize("command", ["erase", "compact", "erasures"])
def test_erasure_commands_have_help_with_an_example(command: str) -> None:
    r = anatid(command, "--help")
    assert r.code == 0 and "example:\n  anatid " + command in r.out


def test_erase_a_node_prints_a_completed_receipt_and_leaves_no_byte(path: Path) -> None:
    needle = b"Alice works at Globex"
    assert _bytes(path, needle) > 0  # the scan sees it before
    r = anatid("erase", path, "--node", "alice", "--json")
    assert r.code == 0, r.err
    [receipt] = json.loads(r.out)
    assert receipt["state"] == "gone" and receipt["node_ids"] == ["alice"]
    assert set(receipt["edge_ids"]) == {"e-knows", "e-acme", "e-globex"}
    # alice: 2 versions; e-knows 1, e-acme 2 (closed in valid time), e-globex 1
    assert receipt["versions"] == 2 + 1 + 2 + 1 and len(receipt["digest"]) == 64
    # the far ends of alice's edges stay (bob deleted but in history): their text may mention her
    assert receipt["kept_neighbour_ids"] == ["acme", "bob", "globex"]
    assert _bytes(path, needle) == 0
    with Store.open(path, read_only=True) as s:
        assert s.history("alice") == [] and s.get_node("acme") is not None and s.check() == []
    listed = anatid("erasures", path)
    assert listed.code == 0, listed.err
    assert "gone" in listed.out and "node alice" in listed.out and "pending" not in listed.out
    assert "kept neighbours" in listed.out and "acme, bob, globex" in listed.out
    listed_json = json.loads(anatid("erasures", path, "--json").out)
    assert listed_json[0]["kept_neighbour_ids"] == ["acme", "bob", "globex"]


def test_erase_a_group_erases_every_record_ever_in_it(path: Path) -> None:
    r = anatid("erase", path, "--group", "g2")
    assert r.code == 0, r.err
    assert "gone (no byte" in r.out and "pending" not in r.out
    # paris goes first, with e-paris: acme stays and is listed; paris is not (it is erased)
    assert "records          node paris, edge e-paris\nkept neighbours  acme\n" in r.out
    with Store.open(path, read_only=True) as s:
        assert s.history("paris") == [] and s.history("e-paris") == []
        assert s.get_node("acme") is not None


def test_a_pending_purge_is_listed_then_completed_by_compact(path: Path) -> None:
    with Store.open(path) as s:
        s.purge_nodes(["paris"])
    pending = json.loads(anatid("erasures", path, "--pending", "--json").out)
    assert [e["state"] for e in pending] == ["pending"] and pending[0]["gone_at"] is None
    assert "1 pending" in anatid("erasures", path).out
    r = anatid("compact", path, "--json")
    assert r.code == 0, r.err
    done = json.loads(r.out)
    assert [e["node_ids"] for e in done["completed"]] == [["paris"]]
    assert done["completed"][0]["state"] == "gone"
    assert anatid("erasures", path, "--pending").out.strip() == "no erasures pending"


def test_erase_without_a_target_or_file_is_refused_and_writes_nothing(path: Path) -> None:
    before = path.read_bytes()
    r = anatid("erase", path)
    assert r.code == 2 and "--node ID, --edge ID or --group G" in r.err
    missing = anatid("erase", path.with_name("nope.duckdb"), "--node", "x")
    assert missing.code == 2 and "no such file" in missing.err
    assert not path.with_name("nope.duckdb").exists()
    assert path.read_bytes() == before
    assert anatid("erasures", path).out.strip() == "no erasures"
