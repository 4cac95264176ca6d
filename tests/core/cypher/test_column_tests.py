"""A WHERE's simple conjuncts decided on a column tuple decide as the row's check does
(``anatid_core.cypher.column_tests``): on every sure tuple, the same answer as
``matching.may_hold`` of the compiled conjunct on the row holding the same values."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from anatid_core.cypher.column_tests import checks, column_test, sure
from anatid_core.cypher.expressions import Evaluator
from anatid_core.cypher.matching import conjuncts, may_hold
from anatid_core.cypher.parser import parse
from anatid_core.cypher.syntax import Expr, Match

#: a, c: exact columns (a string in a sure tuple); b: a null field's column.
PLACES = {"a": (0, True), "b": (1, False), "c": (2, True)}
PARAMS: dict[str, Any] = {
    "p": "x",
    "e": "",
    "n": 5,
    "none": None,
    "strs": ["x", "yx", ""],
    "mixed": ["x", 1],
    "nulls": ["x", None],
    "notlist": "x",
}
TUPLES = [
    (a, b, c)
    for a, b, c in itertools.product(["x", "xy", "yx", "", "X"], [None, "2024"], ["x", "c"])
]

DECIDED = [
    "a IS NULL",
    "a IS NOT NULL",
    "b IS NULL",
    "b IS NOT NULL",
    "a = 'x'",
    "'x' = a",
    "a = $p",
    "$e = a",
    "a <> 'x'",
    "a <> $e",
    "a STARTS WITH 'x'",
    "a STARTS WITH $p",
    "a STARTS WITH ''",
    "a ENDS WITH $p",
    "c CONTAINS 'x'",
    "a CONTAINS $e",
    "a IN ['x', 'xy']",
    "a IN ['x', $p, $e]",
    "a IN $strs",
    "a IN []",
]
#: Left to the row: not a string constant, a null field read for its value, another form.
ON_ROW = [
    "a = 5",
    "a = $n",
    "a = $none",
    "a STARTS WITH $n",
    "a STARTS WITH $missing",
    "a IN $mixed",
    "a IN $nulls",
    "a IN $notlist",
    "a IN ['x', 5]",
    "b = '2024'",
    "b STARTS WITH '2'",
    "a = c",
    "$p <> a",
    "'x' STARTS WITH a",
    "NOT a IS NULL",
    "a > 'x'",
    "toLower(a) = 'x'",
    "d IS NULL",
    "a =~ 'x.*'",
]


def where_of(condition: str) -> Expr:
    match = parse(f"MATCH (n) WHERE {condition} RETURN 1").parts[0].clauses[0]
    assert isinstance(match, Match) and match.where is not None
    return match.where


@pytest.mark.parametrize("condition", DECIDED)
def test_a_decided_conjunct_answers_as_its_row_check(condition: str) -> None:
    ev = Evaluator(condition, PARAMS, None)  # type: ignore[arg-type]
    expr = where_of(condition)
    decided = column_test(expr, PLACES, PARAMS)
    assert decided is not None
    row_check = ev.compiled.truth(expr)
    for values in TUPLES:
        row = dict(zip("abc", values, strict=True))
        assert decided(values) is may_hold(row_check, row), (condition, values)


@pytest.mark.parametrize("condition", ON_ROW)
def test_other_conjuncts_are_left_to_the_row(condition: str) -> None:
    assert column_test(where_of(condition), PLACES, PARAMS) is None


def test_a_stage_decides_what_it_can_and_checks_the_rest_on_the_row() -> None:
    condition = "a STARTS WITH 'x' AND a = c AND b IS NULL AND toLower(a) = 'x'"
    ev = Evaluator(condition, PARAMS, None)  # type: ignore[arg-type]
    parts = conjuncts(where_of(condition))
    tests = [(e, (lambda t: lambda row: may_hold(t, row))(ev.compiled.truth(e))) for e in parts]
    stage = checks(tests, PLACES, PARAMS)
    assert len(stage.on_row) == 2 and len(stage.every) == 4
    for values in TUPLES:
        row = dict(zip("abc", values, strict=True))
        whole = all(may_hold(ev.compiled.truth(e), row) for e in parts)
        assert (stage.columns_pass(values) and stage.row_passes(row)) is whole, values
        assert stage.all_pass(row) is whole


@pytest.mark.parametrize("places", [[], [0], [0, 2], [0, 1, 2]])
def test_a_tuple_is_sure_where_its_exact_columns_hold_strings(places: list[int]) -> None:
    test = sure(places)
    for values in [("x", None, "c"), (None, "y", "c"), ("x", "y", 3), ("x", "y", "z")]:
        assert test(values) is all(values[i].__class__ is str for i in places)
