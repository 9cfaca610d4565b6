"""From user text and filters to FTS5 MATCH strings and SQL: never FTS5 or SQL syntax."""

from __future__ import annotations

import re
from typing import Any

from textsearch._cjk import bigrams
from textsearch._types import EqualTo, TextSearchFilter
from textsearch.connectors.local._schema import INT64_MAX, INT64_MIN, cjk_run, is_cjk
from textsearch.errors import InvalidRequestError

__all__ = ["QueryPlan", "filter_sql", "plan_query"]

_WORD = re.compile(r"\w+")
MAX_QUERY_TERMS = 32
# A CJK run gives about two terms a character (bigrams and characters).
MAX_CJK_TERMS = 96

# Words that carry the grammar of a question, not its topic. They are left out of the query
# (never out of the index), so "How do I retry safely?" ranks by "retry" and "safely".
STOP_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    """.split()
)


class QueryPlan:
    """The quoted FTS5 terms of a query, and the words a snippet highlights."""

    __slots__ = ("terms", "words")

    def __init__(self, terms: list[str], words: list[str]) -> None:
        self.terms = terms
        self.words = words

    def match(self, mode: str) -> str:
        """``any``: BM25 over any of the words; ``all``: every word must be there."""
        return (" AND " if mode == "all" else " OR ").join(self.terms)


def plan_query(query: str) -> QueryPlan:
    """Turn free text into quoted FTS5 strings (inside ``"..."`` nothing is an operator).

    A run of CJK characters becomes its overlapping bigrams and its characters
    (``textsearch._cjk``), each one word of the query, as the index holds them.
    """
    words: dict[str, None] = {}  # insertion-ordered sets: linear in the query's length
    stop: dict[str, None] = {}
    limit = MAX_QUERY_TERMS
    for word in _WORD.findall(query):
        if len(words) >= limit:
            break  # later words would be cut off anyway
        for run in [word] if word.isascii() else cjk_run().findall(word):
            if not run.isascii() and is_cjk().match(run):
                limit = MAX_CJK_TERMS
                words.update(dict.fromkeys(bigrams(run)))
                continue
            entry = run.lower()
            if entry in STOP_WORDS:
                stop[entry] = None
            else:
                words[entry] = None
    # A query made only of stop words ("to be or not to be") searches for them after all.
    chosen = list(words or stop)[:limit]
    return QueryPlan(['"' + w + '"' for w in chosen], chosen)


def _bindable(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            raise InvalidRequestError(f"filter value {value} does not fit in 64 bits")
    return value


def filter_sql(search_filter: TextSearchFilter | None) -> tuple[str, list[Any]]:
    """``" AND ..."`` conditions on ``d`` (the documents table) with bound parameters."""
    if not search_filter:
        return "", []
    parts: list[str] = []
    params: list[Any] = []
    for clause in search_filter.clauses:
        name, value = clause.field_name, _bindable(clause.value)
        if isinstance(clause, EqualTo) and name == "site":
            host = str(value).lower().strip().rstrip(".")
            escaped = host.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            parts.append("(d.site = ? OR d.site LIKE ? ESCAPE '\\')")
            params += [host, "%." + escaped]
        elif isinstance(clause, EqualTo) and name in ("id", "link"):
            parts.append(f"d.{name} IS ?")
            params.append(value)
        elif isinstance(clause, EqualTo):
            if value is None:
                parts.append("json_extract(d.metadata, ?) IS NULL")
                params.append(f'$."{name}"')
            elif isinstance(value, bool):
                parts.append("json_type(d.metadata, ?) = ?")
                params += [f'$."{name}"', _json_bool(value)]
            else:
                # true and false read back as 1 and 0: never equal to a number here, as in
                # JSON and PostgreSQL (a filter on 1 must not admit documents marked true).
                parts.append(
                    "(json_type(d.metadata, ?) NOT IN ('array', 'object', 'true', 'false') "
                    "AND json_extract(d.metadata, ?) = ?)"
                )
                params += [f'$."{name}"', f'$."{name}"', value]
        elif isinstance(value, bool):
            parts.append("EXISTS (SELECT 1 FROM json_each(d.metadata, ?) AS t WHERE t.type = ?)")
            params += [f'$."{name}"', _json_bool(value)]
        else:
            parts.append(
                "EXISTS (SELECT 1 FROM json_each(d.metadata, ?) AS t "
                "WHERE t.value IS ? AND t.type NOT IN ('array', 'object', 'true', 'false'))"
            )
            params += [f'$."{name}"', value]
    return " AND " + " AND ".join(parts), params


def _json_bool(value: bool) -> str:
    return "true" if value else "false"


def id_text(value: Any) -> str:
    """A filter value as SQLite compares it with a TEXT column (``d.id IS ?``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:.1f}"
    return str(value)
