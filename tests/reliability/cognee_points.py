"""The Cognee DataPoint type the reliability tests write (importable, so forked writers share it)."""

from __future__ import annotations

from cognee.infrastructure.engine import DataPoint


class Person(DataPoint):
    name: str
    metadata: dict = {"index_fields": ["name"]}
