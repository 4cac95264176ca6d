"""Parsing a Cypher query into :mod:`.syntax` clauses.

The read clauses are parsed; write clauses are refused by name before anything runs (a query
is parsed whole before its first read), and every other clause is named as unsupported.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import unsupported, write_refused
from .expression_parser import Backtrack, ExpressionParser
from .lexer import tokenize
from .syntax import (
    Clause,
    Match,
    PatternPart,
    ProcedureCall,
    Projection,
    ProjectionItem,
    Query,
    Return,
    SingleQuery,
    SortItem,
    Unwind,
    With,
)

_WRITES = {
    "CREATE": "CREATE",
    "MERGE": "MERGE",
    "SET": "SET",
    "DELETE": "DELETE",
    "DETACH": "DETACH DELETE",
    "REMOVE": "REMOVE",
    "FOREACH": "FOREACH",
    "LOAD": "LOAD CSV",
    "DROP": "DROP",
}
_OTHERS = ("USE", "EXPLAIN", "PROFILE", "SHOW", "FINISH", "TERMINATE", "GRANT", "START")


class QueryParser(ExpressionParser):
    def query(self) -> Query:
        parts = [self.single_query()]
        union_all: list[bool] = []
        while self.at_word("UNION"):
            self.advance()
            union_all.append(self.accept_word("ALL"))
            parts.append(self.single_query())
        self.accept_op(";")
        if self.tok.kind != "eof":
            raise self.error("expected the end of the query")
        return Query(parts, union_all)

    def single_query(self) -> SingleQuery:
        clauses: list[Clause] = []
        while True:
            clause = self.clause()
            if clause is None:
                break
            clauses.append(clause)
            if isinstance(clause, Return):
                break
        if not clauses:
            raise self.error("expected MATCH, UNWIND, WITH, CALL or RETURN")
        last = clauses[-1]
        if not isinstance(last, (Return, ProcedureCall)):
            raise self.error("a query ends with RETURN")
        if isinstance(last, ProcedureCall) and len(clauses) > 1 and last.yields is not None:
            raise self.error("a query ends with RETURN")
        return SingleQuery(clauses)

    def clause(self) -> Clause | None:
        tok = self.tok
        if tok.kind != "ident" or tok.quoted:
            return None
        word = tok.text.upper()
        if word in _WRITES:
            raise write_refused(self.source, tok.pos, _WRITES[word])
        if word in _OTHERS:
            raise unsupported(self.source, tok.pos, word)
        if word == "OPTIONAL":
            self.advance()
            self.expect_word("MATCH")
            return self.match(tok.pos, optional=True)
        if word == "MATCH":
            self.advance()
            return self.match(tok.pos, optional=False)
        if word == "UNWIND":
            self.advance()
            expr = self.expression()
            self.expect_word("AS")
            return Unwind(tok.pos, expr, self.name("a variable"))
        if word == "WITH":
            self.advance()
            projection = self.projection(tok.pos)
            where = self.expression() if self.accept_word("WHERE") else None
            return With(tok.pos, projection, where)
        if word == "RETURN":
            self.advance()
            return Return(tok.pos, self.projection(tok.pos))
        if word == "CALL":
            self.advance()
            return self.procedure_call(tok.pos)
        return None

    def match(self, pos: int, *, optional: bool) -> Match:
        patterns = [self.pattern()]
        while self.accept_op(","):
            patterns.append(self.pattern())
        self.planner_hints()
        where = self.expression() if self.accept_word("WHERE") else None
        return Match(pos, optional, patterns, where)

    def planner_hints(self) -> None:
        """Neo4j's ``USING [TEXT|RANGE|POINT] INDEX [SEEK] n:L(k, ...)``, ``USING SCAN n:L``
        and ``USING JOIN ON n, ...`` after a MATCH's patterns: read and let go. They choose
        how Neo4j's planner reads, never what a query answers, and anatid plans alone."""
        while self.accept_word("USING"):
            if self.accept_word("JOIN"):
                self.expect_word("ON")
                self.name("a variable")
                while self.accept_op(","):
                    self.name("a variable")
                continue
            self.accept_word("TEXT", "RANGE", "POINT")
            if self.accept_word("INDEX"):
                self.accept_word("SEEK")
                self._hinted_label()
                self.expect_op("(")
                self.name("a property")
                while self.accept_op(","):
                    self.name("a property")
                self.expect_op(")")
            elif self.accept_word("SCAN"):
                self._hinted_label()
            else:
                raise self.error("expected INDEX, SCAN or JOIN after USING")

    def _hinted_label(self) -> None:
        self.name("a variable")
        self.expect_op(":")
        self.name("a label")

    def pattern(self) -> PatternPart:
        path_var = None
        if self.tok.kind == "ident" and self.peek().kind == "op" and self.peek().text == "=":
            path_var = self.advance().text
            self.advance()
        if self.tok.kind == "ident" and self.tok.text.lower() in (
            "shortestpath",
            "allshortestpaths",
        ):
            raise unsupported(self.source, self.tok.pos, self.tok.text)
        start = self.tok
        if self.at_op("(") and self.peek().kind == "op" and self.peek().text == "(":
            raise unsupported(self.source, start.pos, "a quantified path pattern ((...)+)")
        try:
            part = self.pattern_part()
        except Backtrack:
            if self.at_op("{", "+", "*"):  # (a)-[r]->{1,3}(b): Neo4j 5's quantifiers
                raise unsupported(
                    self.source, self.tok.pos, "a quantified relationship", "use -[r*1..3]->"
                ) from None
            raise self.error("expected a pattern such as (n) or (a)-[r]->(b)", start) from None
        part.path_var = path_var
        return part

    def projection(self, pos: int) -> Projection:
        distinct = self.accept_word("DISTINCT")
        star = False
        items: list[ProjectionItem] = []
        if self.accept_op("*"):
            star = True
            if self.accept_op(","):
                items = self.projection_items()
        else:
            items = self.projection_items()
        order: list[SortItem] = []
        if self.at_word("ORDER"):
            self.advance()
            self.expect_word("BY")
            order.append(self.sort_item())
            while self.accept_op(","):
                order.append(self.sort_item())
        skip = self.expression() if self.accept_word("SKIP", "OFFSET") else None
        limit = self.expression() if self.accept_word("LIMIT") else None
        return Projection(pos, distinct, star, items, order, skip, limit)

    def projection_items(self) -> list[ProjectionItem]:
        items = [self.projection_item()]
        while self.accept_op(","):
            items.append(self.projection_item())
        return items

    def projection_item(self) -> ProjectionItem:
        start = self.i
        expr = self.expression()
        text = self.text_since(start)
        alias = self.name("a column name") if self.accept_word("AS") else None
        return ProjectionItem(expr, alias, text)

    def sort_item(self) -> SortItem:
        start = self.i
        expr = self.expression()
        text = self.text_since(start)
        descending = False
        if self.accept_word("DESC", "DESCENDING"):
            descending = True
        else:
            self.accept_word("ASC", "ASCENDING")
        return SortItem(expr, descending, text)

    def procedure_call(self, pos: int) -> ProcedureCall:
        if self.at_op("{"):
            raise unsupported(self.source, pos, "CALL { subquery }")
        parts = [self.name("a procedure name")]
        while self.accept_op("."):
            parts.append(self.name("a procedure name"))
        args = None
        if self.accept_op("("):
            args = []
            if not self.at_op(")"):
                args.append(self.expression())
                while self.accept_op(","):
                    args.append(self.expression())
            self.expect_op(")")
        yields = None
        where = None
        if self.accept_word("YIELD"):
            if self.at_op("*"):
                raise unsupported(self.source, self.tok.pos, "YIELD *", "name the outputs")
            yields = [self.yield_item()]
            while self.accept_op(","):
                yields.append(self.yield_item())
            where = self.expression() if self.accept_word("WHERE") else None
        return ProcedureCall(pos, ".".join(parts), args, yields, where)

    def yield_item(self) -> tuple[str, str]:
        output = self.name("a procedure output")
        alias = self.name("a variable") if self.accept_word("AS") else output
        return output, alias


def parse(query: str, check: Callable[[], None] | None = None) -> Query:
    """The query's syntax tree; raises CypherSyntaxError, CypherWriteRefused or
    CypherUnsupported (each pointing at the place in the query) before anything runs.
    ``check`` (the query's deadline) is called as the text is read."""
    return QueryParser(query, tokenize(query, check), check).query()
