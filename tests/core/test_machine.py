"""The bounds sized by the machine (anatid_core.base.machine, base.settings): the in-memory
current records take at most a quarter of the memory this process may use, its container's
bound included, and never less than the fixed bound they had before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from anatid_core import SETTINGS
from anatid_core.base import machine
from anatid_core.base.settings import RECORD_BYTES, records_limit

GIB = 2**30


def test_the_records_limit_grows_with_the_memory_and_never_under_the_old_bound() -> None:
    assert records_limit(None) == 500_000  # the system does not say: the old fixed bound
    assert records_limit(4 * GIB) == 500_000
    assert records_limit(16 * GIB) == 1_400_000
    assert records_limit(24 * GIB) == 2_200_000  # 1M Graphiti facts' edges and nodes both fit
    for gib in (8, 16, 24, 64, 256):
        limit = records_limit(gib * GIB)
        # both kinds at the limit, at the measured bytes a record, in a quarter of it
        assert 2 * limit * RECORD_BYTES <= gib * GIB / 4 or limit == 500_000
        assert limit % 100_000 == 0


def test_the_default_limit_is_the_machines() -> None:
    assert SETTINGS["current_records_limit"] == records_limit(machine.memory_bytes())


def test_a_containers_memory_bound_counts_where_lower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A container sees the host's memory in sysconf; its cgroup bound is what it may use."""
    host = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    v2, v1 = tmp_path / "memory.max", tmp_path / "memory.limit_in_bytes"
    monkeypatch.setattr(machine, "_CGROUP_LIMITS", (v2, v1))
    assert machine.memory_bytes() == host  # neither file: the machine's
    v2.write_text("max\n")
    v1.write_text("9223372036854771712\n")  # cgroup v1's "no bound"
    assert machine.memory_bytes() == host
    v1.write_text(f"{2 * GIB}\n")
    assert machine.memory_bytes() == 2 * GIB
    v2.write_text(f"{GIB}\n")
    assert machine.memory_bytes() == GIB  # the lowest bound


def test_a_system_that_does_not_say_keeps_the_fixed_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(name: str) -> int:
        raise ValueError(name)

    monkeypatch.setattr(machine.os, "sysconf", refuse)
    assert machine.memory_bytes() is None
    assert records_limit(machine.memory_bytes()) == 500_000
