"""The OData ``$filter`` subset of the Azure AI Search emulator: tokenizer, parser, evaluator.

Parsed against the index schema (field names, types, filterability) like the service does; an
invalid filter raises :class:`ODataError` with the text the service puts after
"Invalid expression: ".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.emulators.azure_search import FieldDef, IndexDef

# -- OData $filter --------------------------------------------------------------------------


class ODataError(Exception):
    """An invalid $filter; the message is what the service says after 'Invalid expression: '."""


_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<string>'(?:[^']|'')*')
  | (?P<datetime>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,7})?)?(?:Z|[+-]\d{2}:\d{2}))
  | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<punct>[(),:/])
    """,
    re.VERBOSE,
)
_COMPARISONS = {
    "eq": "Equal",
    "ne": "NotEqual",
    "gt": "GreaterThan",
    "ge": "GreaterThanOrEqual",
    "lt": "LessThan",
    "le": "LessThanOrEqual",
}
_NUMERIC = frozenset({"Edm.Int32", "Edm.Int64", "Edm.Double", "Edm.Single"})


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    pos: int


def _tokenize(text: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ODataError(f"Syntax error at position {pos} in '{text}'.")
        kind = match.lastgroup or ""
        if kind != "ws":
            tokens.append(_Tok(kind, match.group(), pos))
        pos = match.end()
    return tokens


Evaluator = Callable[[Mapping[str, Any], Mapping[str, Any]], Any]


@dataclass(frozen=True)
class _Operand:
    type: str | None  # EDM type; None for the null literal
    evaluate: Evaluator
    collection: bool = False


class ODataFilter:
    """A parsed $filter, type-checked against an index; call :meth:`matches` per document."""

    def __init__(self, text: str, index: IndexDef) -> None:
        self.text = text
        self.index = index
        self.tokens = _tokenize(text)
        self.pos = 0
        self.scopes: list[dict[str, str]] = []
        if not self.tokens:
            raise ODataError(f"Syntax error at position 0 in '{text}'.")
        self._predicate = self._or()
        if self.pos != len(self.tokens):
            self._syntax_error()

    def matches(self, doc: Mapping[str, Any]) -> bool:
        return self._predicate(doc, {}) is True

    # grammar ---------------------------------------------------------------------------

    def _peek(self, offset: int = 0) -> _Tok | None:
        i = self.pos + offset
        return self.tokens[i] if i < len(self.tokens) else None

    def _syntax_error(self) -> None:
        tok = self._peek()
        position = tok.pos if tok else len(self.text)
        raise ODataError(f"Syntax error at position {position} in '{self.text}'.")

    def _expect(self, text: str) -> None:
        tok = self._peek()
        if tok is None or tok.text != text:
            self._syntax_error()
        self.pos += 1

    def _keyword(self, word: str) -> bool:
        tok = self._peek()
        if tok is not None and tok.kind == "ident" and tok.text == word:
            self.pos += 1
            return True
        return False

    def _or(self) -> Evaluator:
        left = self._and()
        while self._keyword("or"):
            right = self._and()
            left = _or_op(left, right)
        return left

    def _and(self) -> Evaluator:
        left = self._unary()
        while self._keyword("and"):
            right = self._unary()
            left = _and_op(left, right)
        return left

    def _unary(self) -> Evaluator:
        if self._keyword("not"):
            inner = self._unary()
            return lambda doc, env: inner(doc, env) is not True
        return self._boolean_primary()

    def _boolean_primary(self) -> Evaluator:
        tok = self._peek()
        if tok is None:
            self._syntax_error()
            raise AssertionError  # unreachable
        if tok.text == "(":
            self.pos += 1
            inner = self._or()
            self._expect(")")
            return inner
        if tok.kind == "ident" and tok.text == "search.in":
            return self._search_in()
        left = self._operand()
        op_tok = self._peek()
        if op_tok is not None and op_tok.kind == "ident" and op_tok.text in _COMPARISONS:
            self.pos += 1
            right = self._operand()
            return self._comparison(op_tok.text, left, right)
        if left.type == "Edm.Boolean" and not left.collection:
            return left.evaluate
        self._syntax_error()
        raise AssertionError  # unreachable

    def _operand(self) -> _Operand:
        tok = self._peek()
        if tok is None:
            self._syntax_error()
            raise AssertionError
        self.pos += 1
        if tok.kind == "string":
            value = tok.text[1:-1].replace("''", "'")
            return _Operand("Edm.String", lambda doc, env: value)
        if tok.kind == "datetime":
            moment = _datetime(tok.text)
            return _Operand("Edm.DateTimeOffset", lambda doc, env: moment)
        if tok.kind == "number":
            num: int | float = (
                float(tok.text) if any(c in tok.text for c in ".eE") else int(tok.text)
            )
            kind = "Edm.Double" if isinstance(num, float) else "Edm.Int32"
            return _Operand(kind, lambda doc, env: num)
        if tok.kind == "ident" and tok.text in ("true", "false"):
            flag = tok.text == "true"
            return _Operand("Edm.Boolean", lambda doc, env: flag)
        if tok.kind == "ident" and tok.text == "null":
            return _Operand(None, lambda doc, env: None)
        if tok.kind == "ident" and "." not in tok.text:
            return self._path(tok)
        self.pos -= 1
        self._syntax_error()
        raise AssertionError

    def _path(self, tok: _Tok) -> _Operand:
        name = tok.text
        for scope in reversed(self.scopes):
            if name in scope:
                etype = scope[name]
                return _Operand(etype, lambda doc, env: env.get(name))
        fdef = self.index.fields.get(name)
        if fdef is None:
            raise ODataError(f"Could not find a property named '{name}' on type 'search.document'.")
        if not fdef.filterable:
            raise ODataError(
                f"The field '{name}' is not filterable. Only filterable fields can be used in "
                "filter expressions."
            )
        nxt, after = self._peek(), self._peek(1)
        if (
            nxt is not None
            and nxt.text == "/"
            and after is not None
            and after.text in ("any", "all")
            and fdef.is_collection
        ):
            self.pos += 2
            return _Operand("Edm.Boolean", self._lambda(fdef, after.text))
        if nxt is not None and nxt.text == "/":
            raise ODataError(
                f"Could not find a property named '{after.text if after else ''}' on type "
                f"'{fdef.type}'."
            )
        if fdef.element_type == "Edm.DateTimeOffset":
            return _Operand(
                fdef.type, lambda doc, env: _datetime(doc.get(name)), fdef.is_collection
            )
        return _Operand(fdef.element_type, lambda doc, env: doc.get(name), fdef.is_collection)

    def _lambda(self, fdef: FieldDef, quantifier: str) -> Evaluator:
        self._expect("(")
        if self._peek() is not None and self._peek().text == ")":  # type: ignore[union-attr]
            self.pos += 1
            return lambda doc, env: bool(doc.get(fdef.name) or [])
        var_tok = self._peek()
        if var_tok is None or var_tok.kind != "ident" or "." in var_tok.text:
            self._syntax_error()
            raise AssertionError
        self.pos += 1
        self._expect(":")
        var = var_tok.text
        self.scopes.append({var: fdef.element_type})
        try:
            body = self._or()
        finally:
            self.scopes.pop()
        self._expect(")")
        name = fdef.name

        def evaluate(doc: Mapping[str, Any], env: Mapping[str, Any]) -> bool:
            items = doc.get(name) or []
            results = (body(doc, {**env, var: item}) is True for item in items)
            return any(results) if quantifier == "any" else all(results)

        return evaluate

    def _search_in(self) -> Evaluator:
        self.pos += 1
        self._expect("(")
        target = self._operand()
        if target.collection or target.type not in ("Edm.String", None):
            raise ODataError("search.in can only be applied to a single string field or variable.")
        self._expect(",")
        values_tok = self._peek()
        if values_tok is None or values_tok.kind != "string":
            self._syntax_error()
            raise AssertionError
        self.pos += 1
        raw = values_tok.text[1:-1].replace("''", "'")
        delimiters = " ,"
        if self._peek() is not None and self._peek().text == ",":  # type: ignore[union-attr]
            self.pos += 1
            delim_tok = self._peek()
            if delim_tok is None or delim_tok.kind != "string":
                self._syntax_error()
                raise AssertionError
            self.pos += 1
            delimiters = delim_tok.text[1:-1].replace("''", "'")
        self._expect(")")
        pattern = "[" + re.escape(delimiters) + "]"
        allowed = frozenset(v for v in re.split(pattern, raw) if v)
        return lambda doc, env: target.evaluate(doc, env) in allowed

    def _comparison(self, op: str, left: _Operand, right: _Operand) -> Evaluator:
        if left.collection or right.collection:
            raise ODataError(
                "The operand for a binary operator is a collection; use any or all to compare "
                "its elements."
            )
        lt, rt = left.type, right.type
        compatible = lt is None or rt is None or lt == rt or (lt in _NUMERIC and rt in _NUMERIC)
        if not compatible:
            raise ODataError(
                "A binary operator with incompatible types was detected. Found operand types "
                f"'{lt}' and '{rt}' for operator kind '{_COMPARISONS[op]}'."
            )
        if op in ("gt", "ge", "lt", "le") and (lt == "Edm.Boolean" or rt == "Edm.Boolean"):
            raise ODataError(
                f"Operator kind '{_COMPARISONS[op]}' is not defined for 'Edm.Boolean'."
            )

        def evaluate(doc: Mapping[str, Any], env: Mapping[str, Any]) -> bool:
            a, b = left.evaluate(doc, env), right.evaluate(doc, env)
            if op == "eq":
                return bool(a == b)
            if op == "ne":
                return bool(a != b)
            if a is None or b is None:
                return False
            if op == "gt":
                return bool(a > b)
            if op == "ge":
                return bool(a >= b)
            if op == "lt":
                return bool(a < b)
            return bool(a <= b)

        return evaluate


def _datetime(text: object) -> datetime | None:
    """An Edm.DateTimeOffset literal or stored value (the service stores them in UTC)."""
    if not isinstance(text, str):
        return None
    head, _, fraction = text.rstrip("Z").partition(".")
    offset = ""
    for sign in "+-":
        if sign in fraction:
            fraction, offset = fraction.split(sign, 1)[0], sign + fraction.split(sign, 1)[1]
    if not fraction and len(head) > 19:  # an offset right after the seconds or minutes
        head, offset = head[:-6], head[-6:]
    moment = datetime.fromisoformat(head + (offset or "+00:00"))
    return moment + timedelta(microseconds=int((fraction or "0")[:6].ljust(6, "0")))


def _and_op(left: Evaluator, right: Evaluator) -> Evaluator:
    return lambda doc, env: left(doc, env) is True and right(doc, env) is True


def _or_op(left: Evaluator, right: Evaluator) -> Evaluator:
    return lambda doc, env: left(doc, env) is True or right(doc, env) is True
