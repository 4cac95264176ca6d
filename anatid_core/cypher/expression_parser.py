"""Parsing Cypher expressions and patterns (the clauses are in :mod:`.parser`).

A recursive-descent parser over the tokens of :mod:`.lexer`, one method per precedence level
of openCypher's grammar: OR, XOR, AND, NOT, comparison, string/list/null predicates, + -,
* / %, ^, unary, then postfix (property, index, slice, label test) and atoms.
"""

from __future__ import annotations

from .errors import syntax_error, unsupported
from .lexer import Token
from .syntax import (
    Binary,
    Call,
    Case,
    Expr,
    HasLabels,
    Index,
    IsNull,
    ListComprehension,
    ListOf,
    Literal,
    MapOf,
    NodePattern,
    Param,
    PatternPart,
    PatternPredicate,
    Prop,
    Quantifier,
    RelPattern,
    Slice,
    Unary,
    Var,
)

_COMPARISONS = ("=", "<>", "!=", "<", "<=", ">", ">=", "=~")
_QUANTIFIERS = ("ALL", "ANY", "NONE", "SINGLE")


class Backtrack(Exception):
    """A speculative parse (a pattern where an expression may be) did not fit."""


class ExpressionParser:
    def __init__(self, query: str, tokens: list[Token]) -> None:
        self.source = query
        self.tokens = tokens
        self.i = 0

    # ---------------------------------------------------------------------------- the cursor

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def at_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.text in ops

    def at_word(self, *words: str) -> bool:
        return self.tok.is_word(*words)

    def accept_op(self, op: str) -> bool:
        if self.at_op(op):
            self.advance()
            return True
        return False

    def accept_word(self, *words: str) -> bool:
        if self.at_word(*words):
            self.advance()
            return True
        return False

    def expect_op(self, op: str) -> Token:
        if not self.at_op(op):
            raise self.error(f"expected {op!r}")
        return self.advance()

    def expect_word(self, word: str) -> Token:
        if not self.at_word(word):
            raise self.error(f"expected {word}")
        return self.advance()

    def name(self, what: str = "a name") -> str:
        if self.tok.kind != "ident":
            raise self.error(f"expected {what}")
        return self.advance().text

    def error(self, message: str, tok: Token | None = None) -> Exception:
        tok = tok or self.tok
        found = "the end of the query" if tok.kind == "eof" else repr(tok.text)
        return syntax_error(self.source, tok.pos, f"{message}, found {found}")

    def text_since(self, start: int) -> str:
        """The source text of the tokens from index ``start`` to the cursor."""
        return self.source[self.tokens[start].pos : self.tokens[self.i - 1].end]

    # ------------------------------------------------------------------------ expressions

    def expression(self) -> Expr:
        return self.or_expr()

    def or_expr(self) -> Expr:
        left = self.xor_expr()
        while self.at_word("OR"):
            pos = self.advance().pos
            left = Binary(pos, "OR", left, self.xor_expr())
        return left

    def xor_expr(self) -> Expr:
        left = self.and_expr()
        while self.at_word("XOR"):
            pos = self.advance().pos
            left = Binary(pos, "XOR", left, self.and_expr())
        return left

    def and_expr(self) -> Expr:
        left = self.not_expr()
        while self.at_word("AND"):
            pos = self.advance().pos
            left = Binary(pos, "AND", left, self.not_expr())
        return left

    def not_expr(self) -> Expr:
        if self.at_word("NOT"):
            pos = self.advance().pos
            return Unary(pos, "NOT", self.not_expr())
        return self.comparison()

    def comparison(self) -> Expr:
        left = self.predicate_expr()
        pairs: list[Expr] = []
        while self.at_op(*_COMPARISONS):
            tok = self.advance()
            right = self.predicate_expr()
            op = "<>" if tok.text == "!=" else tok.text
            pairs.append(Binary(tok.pos, op, left, right))
            left = right
        if not pairs:
            return left
        # a < b < c means a < b AND b < c
        out = pairs[0]
        for more in pairs[1:]:
            out = Binary(more.pos, "AND", out, more)
        return out

    def predicate_expr(self) -> Expr:
        left = self.additive()
        while True:
            tok = self.tok
            if self.at_word("IN"):
                self.advance()
                left = Binary(tok.pos, "IN", left, self.additive())
            elif self.at_word("STARTS", "ENDS"):
                self.advance()
                self.expect_word("WITH")
                left = Binary(tok.pos, tok.text.upper(), left, self.additive())
            elif self.at_word("CONTAINS"):
                self.advance()
                left = Binary(tok.pos, "CONTAINS", left, self.additive())
            elif self.at_word("IS"):
                self.advance()
                negated = self.accept_word("NOT")
                self.expect_word("NULL")
                left = IsNull(tok.pos, left, negated)
            else:
                return left

    def additive(self) -> Expr:
        left = self.multiplicative()
        while self.at_op("+", "-"):
            tok = self.advance()
            left = Binary(tok.pos, tok.text, left, self.multiplicative())
        return left

    def multiplicative(self) -> Expr:
        left = self.power()
        while self.at_op("*", "/", "%"):
            tok = self.advance()
            left = Binary(tok.pos, tok.text, left, self.power())
        return left

    def power(self) -> Expr:
        left = self.unary()
        while self.at_op("^"):
            tok = self.advance()
            left = Binary(tok.pos, "^", left, self.unary())
        return left

    def unary(self) -> Expr:
        if self.at_op("-", "+"):
            tok = self.advance()
            operand = self.unary()
            if tok.text == "-" and isinstance(operand, Literal) and _is_number(operand.value):
                return Literal(tok.pos, -operand.value)
            return Unary(tok.pos, tok.text, operand)
        return self.postfix()

    def postfix(self) -> Expr:
        expr = self.atom()
        while True:
            if self.at_op("."):
                self.advance()
                expr = Prop(expr.pos, expr, self.name("a property name"))
            elif self.at_op("["):
                pos = self.advance().pos
                start = None if self.at_op("..") else self.expression()
                if self.accept_op(".."):
                    end = None if self.at_op("]") else self.expression()
                    self.expect_op("]")
                    expr = Slice(pos, expr, start, end)
                else:
                    self.expect_op("]")
                    assert start is not None
                    expr = Index(pos, expr, start)
            elif self.at_op(":") and isinstance(expr, Var):
                expr = HasLabels(expr.pos, expr, self.label_expression())
            else:
                return expr

    # ------------------------------------------------------------------------------- atoms

    def atom(self) -> Expr:
        tok = self.tok
        if tok.kind in ("string", "int", "float"):
            self.advance()
            return Literal(tok.pos, tok.value)
        if tok.kind == "param":
            self.advance()
            return Param(tok.pos, tok.text)
        if tok.kind == "op":
            if tok.text == "(":
                return self.parenthesised()
            if tok.text == "[":
                return self.list_or_comprehension()
            if tok.text == "{":
                return self.map_literal()
            raise self.error("expected an expression")
        if tok.kind != "ident":
            raise self.error("expected an expression")
        if not tok.quoted:
            word = tok.text.upper()
            if word in ("TRUE", "FALSE"):
                self.advance()
                return Literal(tok.pos, word == "TRUE")
            if word == "NULL":
                self.advance()
                return Literal(tok.pos, None)
            if word == "CASE":
                return self.case()
            if word in _QUANTIFIERS and self.peek().kind == "op" and self.peek().text == "(":
                return self.quantifier()
            if word == "EXISTS" and self.peek().kind == "op" and self.peek().text == "{":
                raise unsupported(self.source, tok.pos, "EXISTS { subquery }", "use a pattern")
            if word == "COUNT" and self.peek().kind == "op" and self.peek().text == "{":
                raise unsupported(self.source, tok.pos, "COUNT { subquery }")
        if self.peek().kind == "op" and self.peek().text in ("(", "."):
            call = self.maybe_call()
            if call is not None:
                return call
        self.advance()
        return Var(tok.pos, tok.text)

    def maybe_call(self) -> Expr | None:
        """A function call ``name(...)`` or ``ns.name(...)``; None if the name is a variable
        followed by a property access."""
        start = self.i
        parts = [self.advance().text]
        while self.at_op(".") and self.peek().kind == "ident":
            self.advance()
            parts.append(self.advance().text)
        if not self.at_op("("):
            self.i = start
            return None
        pos = self.tokens[start].pos
        self.advance()
        name = ".".join(parts).lower()
        if name == "exists" and self.at_op("("):
            saved = self.i
            try:
                pattern = self.pattern_part()
            except Backtrack:
                self.i = saved
            else:
                if pattern.rels:
                    self.expect_op(")")
                    return PatternPredicate(pos, pattern)
                self.i = saved
        if self.accept_op("*"):
            self.expect_op(")")
            return Call(pos, name, [], star=True)
        distinct = self.accept_word("DISTINCT")
        args: list[Expr] = []
        if not self.at_op(")"):
            args.append(self.expression())
            while self.accept_op(","):
                args.append(self.expression())
        self.expect_op(")")
        return Call(pos, name, args, distinct=distinct)

    def parenthesised(self) -> Expr:
        saved = self.i
        try:
            pattern = self.pattern_part()
        except Backtrack:
            pattern = None
        if pattern is not None and pattern.rels:
            return PatternPredicate(pattern.pos, pattern)
        self.i = saved
        self.expect_op("(")
        expr = self.expression()
        self.expect_op(")")
        return expr

    def list_or_comprehension(self) -> Expr:
        pos = self.expect_op("[").pos
        if self.tok.kind == "ident" and self.peek().is_word("IN"):
            var = self.advance().text
            self.advance()
            source = self.expression()
            where = self.expression() if self.accept_word("WHERE") else None
            project = self.expression() if self.accept_op("|") else None
            self.expect_op("]")
            return ListComprehension(pos, var, source, where, project)
        items: list[Expr] = []
        if not self.at_op("]"):
            items.append(self.expression())
            while self.accept_op(","):
                items.append(self.expression())
        self.expect_op("]")
        return ListOf(pos, items)

    def map_literal(self) -> MapOf:
        pos = self.expect_op("{").pos
        items: list[tuple[str, Expr]] = []
        if not self.at_op("}"):
            while True:
                if self.tok.kind == "string":
                    key = str(self.advance().value)
                else:
                    key = self.name("a map key")
                self.expect_op(":")
                items.append((key, self.expression()))
                if not self.accept_op(","):
                    break
        self.expect_op("}")
        return MapOf(pos, items)

    def case(self) -> Case:
        pos = self.advance().pos
        subject = None if self.at_word("WHEN") else self.expression()
        whens: list[tuple[Expr, Expr]] = []
        while self.accept_word("WHEN"):
            cond = self.expression()
            self.expect_word("THEN")
            whens.append((cond, self.expression()))
        if not whens:
            raise self.error("expected WHEN")
        default = self.expression() if self.accept_word("ELSE") else None
        self.expect_word("END")
        return Case(pos, subject, whens, default)

    def quantifier(self) -> Quantifier:
        tok = self.advance()
        self.expect_op("(")
        var = self.name("a variable")
        self.expect_word("IN")
        source = self.expression()
        self.expect_word("WHERE")
        where = self.expression()
        self.expect_op(")")
        return Quantifier(tok.pos, tok.text.lower(), var, source, where)

    def label_expression(self) -> list[list[str]]:
        """``:A:B|C`` as [[A], [B, C]]: every group must hold, any label within a group."""
        groups: list[list[str]] = []
        while self.accept_op(":"):
            group = [self.name("a label")]
            while self.accept_op("|"):
                self.accept_op(":")
                group.append(self.name("a label"))
            groups.append(group)
        return groups

    # ---------------------------------------------------------------------------- patterns

    def pattern_part(self) -> PatternPart:
        """``(a)-[r:T]->(b)<-(c)``; raises Backtrack if the tokens are not a node pattern."""
        pos = self.tok.pos
        nodes = [self.node_pattern()]
        rels: list[RelPattern] = []
        while self.at_op("-", "<"):
            rels.append(self.rel_pattern())
            nodes.append(self.node_pattern())
        return PatternPart(pos, nodes, rels)

    def node_pattern(self) -> NodePattern:
        if not self.at_op("("):
            raise Backtrack
        pos = self.advance().pos
        var = None
        if self.tok.kind == "ident" and not (self.at_word("WHERE") and not self.tok.quoted):
            var = self.advance().text
        labels = self.label_expression() if self.at_op(":") else []
        props = self.pattern_props()
        if self.at_word("WHERE"):
            raise unsupported(self.source, self.tok.pos, "WHERE inside a node pattern")
        if not self.at_op(")"):
            raise Backtrack
        self.advance()
        return NodePattern(pos, var, labels, props)

    def pattern_props(self) -> Expr | None:
        if self.at_op("{"):
            return self.map_literal()
        if self.tok.kind == "param":
            tok = self.advance()
            return Param(tok.pos, tok.text)
        return None

    def rel_pattern(self) -> RelPattern:
        pos = self.tok.pos
        left = self.accept_op("<")
        if not self.accept_op("-"):
            raise Backtrack
        var, types, props = None, [], None
        min_hops, max_hops, variable = 1, 1, False
        if self.accept_op("["):
            if self.tok.kind == "ident":
                var = self.advance().text
            if self.accept_op(":"):
                types.append(self.name("a relationship type"))
                while self.accept_op("|"):
                    self.accept_op(":")
                    types.append(self.name("a relationship type"))
            if self.at_op("*"):
                variable = True
                min_hops, max_hops = self.hops()
            props = self.pattern_props()
            if not self.accept_op("]"):
                raise self.error("expected ']' closing a relationship pattern")
        if not self.accept_op("-"):
            raise Backtrack
        right = self.accept_op(">")
        if left and right:
            raise self.error("a relationship points one way or none")
        direction = "in" if left else "out" if right else "both"
        return RelPattern(pos, var, types, props, direction, min_hops, max_hops, variable)

    def hops(self) -> tuple[int, int | None]:
        self.expect_op("*")
        low: int | None = None
        high: int | None = None
        if self.tok.kind == "int":
            low = int(self.advance().value)
        if self.accept_op(".."):
            if self.tok.kind == "int":
                high = int(self.advance().value)
            return (1 if low is None else low), high
        if self.tok.kind == "float" and self.tok.text.startswith("."):
            # "*1..3" can lex as 1 then .3 only if written "*1 .3"; "*..3" lexes as ".." 3
            raise self.error("expected '..' in a variable-length relationship")
        if low is None:
            return 1, None
        return low, low


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
