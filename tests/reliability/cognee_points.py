"""The Cognee DataPoint type the reliability tests write (importable, so forked writers share it)."""

from __future__ import annotations

from cognee.infrastructure.engine import DataPoint


class Person(DataPoint):
    name: str
    metadata: dict = {"index_fields": ["name"]}


class Team(DataPoint):
    """A team and its members: ``add_data_points`` turns ``members`` into graph edges."""

    name: str
    members: list[Person] = []
    metadata: dict = {"index_fields": ["name"]}
