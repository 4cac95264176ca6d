"""Scopes: walls around what a reader may see (issue 17).

A :class:`Scope` is not a filter applied to results: it decides which records exist for a
reader. A node is visible only if its group and labels pass the scope; an edge only if its own
group passes and both its endpoints are visible. Every read verb of a scoped view (lookups,
lists, counts, searches, expansion, paths, degrees) sees that smaller graph and nothing else, so
no traversal can cross a hidden node and no result can name one.

The predicate is compiled to SQL with the names quoted as literals, single quotes doubled (they
are checked names, :mod:`anatid_core.base.identifiers`, and a visibility predicate carries no
parameters); the in-memory fast paths of the current state never answer for a scoped reader
(:attr:`Visibility.is_current` is false for it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..base.errors import InvalidInput
from ..base.identifiers import check_group


@dataclass(frozen=True)
class Scope:
    """Which groups and labels a reader may see.

    * ``groups``: if given, only nodes and edges in one of these groups are visible;
    * ``exclude_groups``: nodes and edges in these groups are hidden;
    * ``labels``: if given, only nodes carrying at least one of these labels are visible;
    * ``exclude_labels``: nodes carrying any of these labels are hidden.

    Edges are visible only between visible nodes. A scope naming nothing is refused
    (``InvalidInput``): pass no scope at all to see everything.
    """

    groups: frozenset[str] | None = None
    exclude_groups: frozenset[str] = frozenset()
    labels: frozenset[str] | None = None
    exclude_labels: frozenset[str] = frozenset()

    @classmethod
    def of(
        cls,
        *,
        groups: Iterable[str] | None = None,
        exclude_groups: Iterable[str] = (),
        labels: Iterable[str] | None = None,
        exclude_labels: Iterable[str] = (),
    ) -> Scope:
        """A validated scope from any iterables of names."""
        return cls(
            groups=None if groups is None else _names(groups, "groups"),
            exclude_groups=_names(exclude_groups, "exclude_groups"),
            labels=None if labels is None else _names(labels, "labels"),
            exclude_labels=_names(exclude_labels, "exclude_labels"),
        )

    def __post_init__(self) -> None:
        for what in ("groups", "exclude_groups", "labels", "exclude_labels"):
            value = getattr(self, what)
            if value is not None:
                object.__setattr__(self, what, _names(value, what))
        if not (self.groups or self.exclude_groups or self.labels or self.exclude_labels):
            raise InvalidInput(
                "a scope must name at least one group or label to include or exclude; "
                "to see everything, pass no scope"
            )
        if self.groups is not None and not self.groups:
            raise InvalidInput("Scope(groups=...) is empty: it would hide everything")
        if self.labels is not None and not self.labels:
            raise InvalidInput("Scope(labels=...) is empty: it would hide everything")

    # ------------------------------------------------------------------ in Python

    def group_visible(self, group: str) -> bool:
        return (self.groups is None or group in self.groups) and group not in self.exclude_groups

    def node_visible(self, group: str, labels: Iterable[str]) -> bool:
        if not self.group_visible(group):
            return False
        have = set(labels)
        if self.labels is not None and have.isdisjoint(self.labels):
            return False
        return have.isdisjoint(self.exclude_labels)

    def narrowed(self, other: Scope | None) -> Scope:
        """What both scopes let through: a view that is scoped stays inside its wall."""
        if other is None or other == self:
            return self
        return Scope(
            groups=_both(self.groups, other.groups),
            exclude_groups=self.exclude_groups | other.exclude_groups,
            labels=_both(self.labels, other.labels),
            exclude_labels=self.exclude_labels | other.exclude_labels,
        )

    # ------------------------------------------------------------------------ SQL

    def group_sql(self, a: str) -> list[str]:
        parts = []
        if self.groups is not None:
            parts.append(f"{a}.grp IN ({_literals(self.groups)})")
        if self.exclude_groups:
            parts.append(f"{a}.grp NOT IN ({_literals(self.exclude_groups)})")
        return parts

    def node_sql(self, a: str) -> list[str]:
        """Predicates over node alias ``a``: its group and labels pass."""
        parts = self.group_sql(a)
        if self.labels is not None:
            parts.append(f"list_has_any({a}.labels, [{_literals(self.labels)}]::VARCHAR[])")
        if self.exclude_labels:
            parts.append(
                f"NOT list_has_any({a}.labels, [{_literals(self.exclude_labels)}]::VARCHAR[])"
            )
        return parts


def _both(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if a is None:
        return b
    if b is None:
        return a
    both = a & b
    if not both:
        raise InvalidInput(
            f"the scopes share no group or label ({sorted(a)} and {sorted(b)}): nothing would be visible"
        )
    return both


def _names(values: Iterable[str], what: str) -> frozenset[str]:
    if isinstance(values, str):
        raise InvalidInput(
            f"Scope {what} must be a list of names, not a single string {values!r:.80}"
        )
    out: set[str] = set()
    for v in values:
        if not isinstance(v, str):
            raise InvalidInput(f"Scope {what} must hold strings, got {type(v).__name__}")
        check_group(v, what=f"a Scope {what} name")  # the identifier rules, "" aside
        if not v.strip():
            raise InvalidInput(f"Scope {what} holds an empty or blank name: {v!r}")
        out.add(v)
    return frozenset(out)


def _literals(names: frozenset[str]) -> str:
    """SQL string literals, sorted (a stable statement text), quotes doubled."""
    return ", ".join("'" + n.replace("'", "''") + "'" for n in sorted(names))


__all__ = ["Scope"]
