"""Parsing Cypher expressions and patterns (the clauses are in :mod:`.parser`).

A precedence-climbing parser over the tokens of :mod:`.lexer`, with openCypher's levels:
OR, XOR, AND, NOT, comparison, string/list/null predicates, + -, * / %, ^, unary, then
postfix (property, index, slice, label test) and atoms. A chain of operators is a loop (issue
42: 10,000 ORs parse); nesting is bounded by ``LIMITS["depth"]``.
"""

from __future__ import annotations

from collections.abc import Callable

from .errors import syntax_error, unsupported
from .lexer import Token
from .limits import LIMITS
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
    MapProjection,
    NodePattern,
    Param,
    PatternComprehension,
    PatternPart,
    PatternPredicate,
    Prop,
    Quantifier,
    Reduce,
    RelPattern,
    Slice,
    Unary,
    Var,
)
from .values import fits_int64

_COMPARISONS = ("=", "<>", "!=", "<", "<=", ">", ">=", "=~")
#: Precedence levels, loosest first: OR, XOR, AND, NOT (prefix), comparisons, string/list/null
#: predicates, + -, * / %, ^; unary signs and postfix bind tighter still.
_NOT, _COMPARISON = 4, 5
_WORD_LEVELS: dict[str, int] = {
    "OR": 1,
    "XOR": 2,
    "AND": 3,
    "IN": 6,
    "STARTS": 6,
    "ENDS": 6,
    "CONTAINS": 6,
}
_WORD_LEVELS["IS"] = 6
_OP_LEVELS: dict[str, int] = dict.fromkeys(_COMPARISONS, _COMPARISON)
_OP_LEVELS.update({"+": 7, "-": 7, "||": 7, "*": 8, "/": 8, "%": 8, "^": 9})
_QUANTIFIERS = ("ALL", "ANY", "NONE", "SINGLE")


class Backtrack(Exception):
    """A speculative parse (a pattern where an expression may be) did not fit."""


class ExpressionParser:
    def __init__(
        self, query: str, tokens: list[Token], check: Callable[[], None] | None = None
    ) -> None:
        self.source = query
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        #: The query's deadline, called every 4,096 tokens read (a parse of megabytes is long).
        self.check = check

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
            if not self.i & 4095 and self.check is not None:
                self.check()
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
        """One expression; nested ones (brackets, lists, maps, arguments, prefix operators)
        count towards ``LIMITS["depth"]``, past which the query is CypherUnsupported, never a
        RecursionError (issue 42)."""
        self.nest(1, self.tok)
        try:
            return self.binary(1)
        finally:
            self.depth -= 1

    def nest(self, levels: int, tok: Token) -> None:
        """Go ``levels`` deeper (the caller comes back up), or refuse past the bound."""
        self.depth += levels
        if self.depth > LIMITS["depth"]:
            self.depth -= levels
            raise unsupported(
                self.source,
                tok.pos,
                f"an expression nested more than {int(LIMITS['depth'])} levels deep",
                "flatten it: a chain such as a OR b OR c ... is not nesting",
            )

    def binary_op(self) -> int:
        """The precedence of the binary operator at the cursor (0: none)."""
        tok = self.tok
        if tok.kind == "op":
            return _OP_LEVELS.get(tok.text, 0)
        if tok.kind == "ident" and not tok.quoted:
            return _WORD_LEVELS.get(tok.text.upper(), 0)
        return 0

    def binary(self, level: int) -> Expr:
        """Operators binding at ``level`` or tighter, by precedence climbing: a chain of one
        level (10,000 ORs, a long sum) is a loop, not a recursion per operator."""
        left = self.operand(level)
        while True:
            op_level = self.binary_op()
            if not op_level or op_level < level:
                return left
            tok = self.tok
            if op_level == _COMPARISON:
                left = self.comparison(left)
            elif tok.is_word("IS"):
                self.advance()
                negated = self.accept_word("NOT")
                if self.at_op("::", ":") or self.at_word("TYPED", "NORMALIZED"):
                    what = "NORMALIZED" if self.at_word("NORMALIZED") else ":: TYPE"
                    raise unsupported(self.source, tok.pos, f"IS {what}")
                self.expect_word("NULL")
                left = IsNull(tok.pos, left, negated)
            else:
                self.advance()
                op = tok.text if tok.kind == "op" else tok.text.upper()
                if op in ("STARTS", "ENDS"):
                    self.expect_word("WITH")
                left = Binary(tok.pos, op, left, self.binary(op_level + 1))

    def comparison(self, left: Expr) -> Expr:
        """``a < b < c`` means a < b AND b < c."""
        pairs: list[Expr] = []
        while self.at_op(*_COMPARISONS):
            tok = self.advance()
            right = self.binary(_COMPARISON + 1)
            op = "<>" if tok.text == "!=" else tok.text
            pairs.append(Binary(tok.pos, op, left, right))
            left = right
        out = pairs[0]
        for more in pairs[1:]:
            out = Binary(more.pos, "AND", out, more)
        return out

    def operand(self, level: int) -> Expr:
        """Prefix NOTs (below comparisons), then unary signs, then a postfix expression. Each
        prefix nests its operand one level deeper (NOT NOT ... is evaluated recursively)."""
        nots: list[Token] = []
        while level <= _NOT and self.at_word("NOT"):
            nots.append(self.advance())
        signs: list[Token] = []
        if not nots:
            while self.at_op("-", "+"):
                signs.append(self.advance())
        prefixes = nots or signs
        self.nest(len(prefixes), prefixes[0] if prefixes else self.tok)
        try:
            expr = self.binary(_NOT + 1) if nots else self.postfix()
        finally:
            self.depth -= len(prefixes)
        for tok in reversed(prefixes):
            if tok.text == "-" and isinstance(expr, Literal) and _is_number(expr.value):
                expr = Literal(tok.pos, -expr.value)
            else:
                expr = Unary(tok.pos, tok.text.upper() if nots else tok.text, expr)
        if isinstance(expr, Literal) and expr.value.__class__ is int and not fits_int64(expr.value):
            # after the sign: -9223372036854775808 is the lowest integer, its digits alone are not
            raise syntax_error(self.source, expr.pos, "an integer literal past 64 bits")
        return expr

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
        if self.peek().kind == "op" and self.peek().text == "{":
            return self.map_projection()
        self.advance()
        return Var(tok.pos, tok.text)

    def map_projection(self) -> MapProjection:
        """``n {.a, .*, key: expr, v}`` (Neo4j's map projection)."""
        tok = self.advance()
        self.expect_op("{")
        items: list[tuple[str, str, Expr | None]] = []
        while not self.at_op("}"):
            if self.accept_op("."):
                if self.accept_op("*"):
                    items.append(("*", "", None))
                else:
                    items.append((".", self.name("a property name or *"), None))
            elif self.tok.kind == "ident" and self.peek().kind == "op" and self.peek().text == ":":
                key = self.advance().text
                self.advance()
                items.append((":", key, self.expression()))
            elif self.tok.kind == "ident":
                var = self.advance()
                items.append(("var", var.text, Var(var.pos, var.text)))
            else:
                raise self.error("expected .property, .*, key: value or a variable")
            if not self.accept_op(","):
                break
        self.expect_op("}")
        return MapProjection(tok.pos, Var(tok.pos, tok.text), items)

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
        if name == "reduce" and self.tok.kind == "ident" and self.peek().kind == "op":
            if self.peek().text == "=":
                return self.reduce(pos)
        if name == "exists" and self.at_op("("):
            pattern = self.pattern_here()
            if pattern is not None:
                self.expect_op(")")
                return PatternPredicate(pos, pattern)
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

    def pattern_here(self) -> PatternPart | None:
        """The pattern with a relationship at the cursor (read), or None (the cursor back)."""
        saved = self.i
        try:
            pattern = self.pattern_part()
        except Backtrack:
            pattern = None
        if pattern is None or not pattern.rels:
            self.i = saved
            return None
        return pattern

    def parenthesised(self) -> Expr:
        pattern = self.pattern_here()
        if pattern is not None:
            return PatternPredicate(pattern.pos, pattern)
        self.expect_op("(")
        expr = self.expression()
        self.expect_op(")")
        return expr

    def reduce(self, pos: int) -> Reduce:
        """``reduce(acc = init, x IN source | step)``, after ``reduce(``."""
        acc = self.name("an accumulator")
        self.expect_op("=")
        init = self.expression()
        self.expect_op(",")
        var = self.name("a variable")
        self.expect_word("IN")
        source = self.expression()
        self.expect_op("|")
        step = self.expression()
        self.expect_op(")")
        return Reduce(pos, acc, init, var, source, step)

    def list_or_comprehension(self) -> Expr:
        pos = self.expect_op("[").pos
        if self.tok.kind == "ident" and self.peek().kind == "op" and self.peek().text == "=":
            self._refuse_named_path()
        if self.at_op("("):
            comprehension = self.pattern_comprehension(pos)
            if comprehension is not None:
                return comprehension
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

    def _refuse_named_path(self) -> None:
        """``[p = (a)-->(b) | ...]``: a named path, refused by name (``[x = (1)]`` is a list
        holding a comparison: the cursor stays)."""
        saved, at = self.i, self.tok.pos
        self.i += 2
        pattern = self.pattern_here()
        self.i = saved
        if pattern is not None:
            raise unsupported(self.source, at, "a named path (p = ...)")

    def pattern_comprehension(self, pos: int) -> PatternComprehension | None:
        """``[(a)-->(b) WHERE p | e]`` after its ``[``; None (the cursor back) if the
        brackets hold no relationship pattern followed by WHERE or ``|``."""
        saved = self.i
        pattern = self.pattern_here()
        if pattern is None or not (self.at_word("WHERE") or self.at_op("|")):
            self.i = saved
            return None
        where = self.expression() if self.accept_word("WHERE") else None
        self.expect_op("|")
        project = self.expression()
        self.expect_op("]")
        return PatternComprehension(pos, pattern, where, project)

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
            self._refuse_label_expression()
            group = [self.name("a label")]
            while self.accept_op("|"):
                self.accept_op(":")
                self._refuse_label_expression()
                group.append(self.name("a label"))
            self._refuse_label_expression()
            groups.append(group)
        return groups

    def _refuse_label_expression(self, kind: str = "label") -> None:
        """Neo4j 5's dynamic labels and types (``:$label``) and their operators (``:!A``,
        ``:A&B``, ``:%``), refused by name rather than as a syntax error."""
        if self.tok.kind == "param" or self.at_op("$"):
            raise unsupported(self.source, self.tok.pos, f"a dynamic {kind} (:$param)")
        if self.at_op("!", "&", "%", "("):
            what = f"the {kind} expression operator {self.tok.text!r}"
            raise unsupported(self.source, self.tok.pos, what, "use :A|B, or a WHERE")

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
                self._refuse_label_expression("type")
                types.append(self.name("a relationship type"))
                while self.accept_op("|"):
                    self.accept_op(":")
                    self._refuse_label_expression("type")
                    types.append(self.name("a relationship type"))
                self._refuse_label_expression("type")
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
