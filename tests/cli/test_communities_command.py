"""``anatid communities`` (issue 17): the store's partition, as JSON or a table, as of a past
instant and within groups."""

from __future__ import annotations

import json

from anatid_core import Store

from .conftest import Seeded, anatid


def test_communities_prints_the_stores_partition_now_and_as_of_then(seeded: Seeded) -> None:
    with Store.open(seeded.path, read_only=True) as s:
        now = s.communities()
        then = s.as_of(tx_time=_instant(seeded)).communities(groups=["g1"])
    r = anatid("communities", seeded.path, "--json")
    assert r.code == 0, r.err
    assert [c["ids"] for c in json.loads(r.out)] == now and now
    r = anatid(
        "communities", seeded.path, "--json", "--as-of", seeded.before_update, "--group", "g1"
    )
    assert [c["ids"] for c in json.loads(r.out)] == then and then != now


def test_communities_refuses_a_bad_resolution_in_one_line(seeded: Seeded) -> None:
    r = anatid("communities", seeded.path, "--resolution", "0")
    assert r.code != 0 and len(r.err.strip().splitlines()) == 1 and "resolution" in r.err
    assert r.out == ""


def _instant(seeded: Seeded):
    from anatid_core.cli.terminal import parse_time

    return parse_time(seeded.before_update, option="--as-of")
