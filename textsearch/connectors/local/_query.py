"""From user text and filters to FTS5 MATCH strings and SQL: never FTS5 or SQL syntax."""

from __future__ import annotations

import re
from typing import Any

from textsearch._cjk import bigrams, query_terms
from textsearch.connectors.local._filters import filter_sql
from textsearch.connectors.local._schema import cjk_run, is_cjk

__all__ = ["QueryPlan", "filter_sql", "plan_query"]

_WORD = re.compile(r"\w+")
MAX_QUERY_TERMS = 32
# A CJK run gives about two terms a character (bigrams and characters).
MAX_CJK_TERMS = 96
# A CJK term the query holds more than once weighs that many times (BM25's query term
# frequency: both engines sum a repeated clause), up to this many.
MAX_CJK_REPEAT = 3

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
    """The quoted FTS5 terms of a query, the words a snippet highlights, and the words as
    ranked (``ranked``: a CJK term as many times as the query holds it, up to
    `MAX_CJK_REPEAT`)."""

    __slots__ = ("ranked", "terms", "words")

    def __init__(self, terms: list[str], words: list[str], ranked: list[str] | None = None) -> None:
        self.terms = terms
        self.words = words
        self.ranked = words if ranked is None else ranked

    def match(self, mode: str) -> str:
        """``any``: BM25 over any of the words; ``all``: every word must be there."""
        return (" AND " if mode == "all" else " OR ").join(self.terms)


def plan_query(query: str) -> QueryPlan:
    """Turn free text into quoted FTS5 strings (inside ``"..."`` nothing is an operator).

    A run of CJK characters becomes its overlapping bigrams and its characters, less the
    grammar of a question (`textsearch._cjk.query_terms`), each one word of the query, as
    the index holds them.
    """
    # dicts keep first-seen order and look up in constant time; the scan ends once enough
    # words are found, so a huge query costs no more than its first distinct words.
    words: dict[str, None] = {}
    repeats: dict[str, int] = {}  # CJK terms the query holds more than once
    stop: dict[str, None] = {}
    limit = MAX_QUERY_TERMS
    for found in _WORD.finditer(query):
        word = found.group()
        for run in [word] if word.isascii() else cjk_run().findall(word):
            if not run.isascii() and is_cjk().match(run):
                limit = MAX_CJK_TERMS
                kept = query_terms(run)
                if not kept and len(stop) < MAX_QUERY_TERMS:
                    stop.update(dict.fromkeys(bigrams(run)))
                for term in kept:
                    if term in words:
                        repeats[term] = repeats.get(term, 1) + 1
                    else:
                        words[term] = None
                continue
            entry = run.lower()
            if entry in STOP_WORDS:
                if len(stop) < MAX_QUERY_TERMS:
                    stop.setdefault(entry)
                continue
            words.setdefault(entry)
        if len(words) >= limit:
            break
    # A query made only of stop words ("to be or not to be") searches for them after all.
    chosen = list(words or stop)[:limit]
    if not repeats:
        return QueryPlan(['"' + w + '"' for w in chosen], chosen)
    ranked = [w for w in chosen for _ in range(min(MAX_CJK_REPEAT, repeats.get(w, 1)))]
    return QueryPlan(['"' + w + '"' for w in ranked], chosen, ranked)


def id_text(value: Any) -> str:
    """A filter value as SQLite compares it with a TEXT column (``d.id IS ?``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:.1f}"
    return str(value)
