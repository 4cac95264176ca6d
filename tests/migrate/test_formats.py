"""Header detection: every storage code we measured, and what we say about the others."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from anatid_migrate import UnsupportedSource, detect_format
from anatid_migrate.engines import can_read


def db(tmp_path: Path, magic: bytes, code: int) -> Path:
    path = tmp_path / "graph.db"
    path.write_bytes(magic + struct.pack("<Q", code) + bytes(4084))
    return path


@pytest.mark.parametrize(
    ("code", "written_by", "reader"),
    [
        (40, "LadybugDB 0.15.3-0.16.1", "0.16.1"),
        (41, "LadybugDB 0.17.x", "0.17.1"),
        (42, "LadybugDB 0.18.x", "0.18.3"),
        (43, "LadybugDB 0.19.x", "0.19.1"),
        (47, "LadybugDB 0.20.0-0.21.2", "0.21.2"),
        (49, "LadybugDB 0.22.0", "0.22.0"),
    ],
)
def test_ladybug_codes_name_their_releases(
    tmp_path: Path, code: int, written_by: str, reader: str
) -> None:
    fmt = detect_format(db(tmp_path, b"LBUG", code))
    assert (fmt.engine, fmt.code, fmt.written_by, fmt.reader_version) == (
        "ladybug",
        code,
        written_by,
        reader,
    )


def test_unreleased_ladybug_code_is_read_by_the_next_release(tmp_path: Path) -> None:
    fmt = detect_format(db(tmp_path, b"LBUG", 45))
    assert fmt.reader_version == "0.21.2"


def test_ladybug_newer_than_known_is_explained(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedSource, match="newer than any release"):
        detect_format(db(tmp_path, b"LBUG", 50))


def test_kuzu_0_11_file_is_readable(tmp_path: Path) -> None:
    fmt = detect_format(db(tmp_path, b"KUZU", 39))
    assert (fmt.engine, fmt.reader_version) == ("kuzu", "0.11.3")


@pytest.mark.parametrize(("code", "release"), [(36, "kuzu 0.8.x"), (37, "kuzu 0.9.0")])
def test_older_kuzu_file_names_the_upgrade(tmp_path: Path, code: int, release: str) -> None:
    with pytest.raises(UnsupportedSource) as err:
        detect_format(db(tmp_path, b"KUZU", code))
    assert release in str(err.value) and "kuzu==0.11.3" in str(err.value)


def test_directory_without_catalog_is_not_a_database(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedSource, match="without catalog.kz"):
        detect_format(tmp_path)


def test_missing_source_is_named(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedSource, match="no such file"):
        detect_format(tmp_path / "nope.kz")


@pytest.mark.parametrize(
    ("engine", "version", "code", "ok"),
    [
        ("kuzu", "0.11.3", 39, True),
        ("kuzu", "0.10.1", 39, False),
        ("ladybug", "0.19.0", 43, True),
        ("ladybug", "0.22.0", 43, True),  # newer LadybugDB releases read older files
        ("ladybug", "0.18.3", 43, False),
        ("ladybug", "0.19.0", 39, False),  # no LadybugDB release opens a kuzu file
    ],
)
def test_reader_compatibility_rules(
    tmp_path: Path, engine: str, version: str, code: int, ok: bool
) -> None:
    fmt = detect_format(db(tmp_path, b"KUZU" if code == 39 else b"LBUG", code))
    assert can_read(engine, version, fmt) is ok
