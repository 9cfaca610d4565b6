"""From user text and filters to FTS5 MATCH strings and SQL: never FTS5 or SQL syntax."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from textsearch._cjk import bigrams, query_terms
from textsearch.connectors.local._filters import filter_sql
from textsearch.connectors.local._schema import cjk_run, is_cjk

__all__ = [
    "QueryPlan",
    "cjk_characters",
    "filter_sql",
    "fts_term",
    "plan_query",
    "rare_cjk",
    "term_word",
]

_WORD = re.compile(r"\w+")
MAX_QUERY_TERMS = 32
# A CJK run gives about two terms a character (bigrams and characters).
MAX_CJK_TERMS = 96
# A CJK term the query holds more than once weighs that many times (BM25's query term
# frequency: both engines sum a repeated clause), up to this many.
MAX_CJK_REPEAT = 3
# A CJK character held by more passages than this share of the index (and than the floor)
# is left out of an any-word query whose rarer words fill the page: see `rare_cjk`.
CJK_COMMON_SHARE = 0.025
CJK_COMMON_FLOOR = 500

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
    `MAX_CJK_REPEAT`); ``cjk``: whether the query holds a CJK word."""

    __slots__ = ("cjk", "ranked", "terms", "words")

    def __init__(
        self,
        terms: list[str],
        words: list[str],
        ranked: list[str] | None = None,
        cjk: bool = False,
    ) -> None:
        self.terms = terms
        self.words = words
        self.ranked = words if ranked is None else ranked
        self.cjk = cjk

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
    cjk = limit == MAX_CJK_TERMS  # a CJK run was read
    if not repeats:
        return QueryPlan([fts_term(w) for w in chosen], chosen, cjk=cjk)
    ranked = [w for w in chosen for _ in range(min(MAX_CJK_REPEAT, repeats.get(w, 1)))]
    return QueryPlan([fts_term(w) for w in ranked], chosen, ranked, cjk)


def fts_term(word: str) -> str:
    """A query word as FTS5 reads it: quoted (inside ``"..."`` nothing is an operator); a
    single CJK character as a prefix (``"停"*``), which the bigrams it starts and the runs it
    ends match (the SQLite engine indexes no lone characters: `textsearch._cjk.index_tokens`).
    """
    if len(word) == 1 and not word.isascii() and is_cjk().match(word):
        return '"' + word + '"*'
    return '"' + word + '"'


def term_word(term: str) -> str:
    """The word of an FTS5 string made by `fts_term`."""
    return term[1 : term.rindex('"')]


def cjk_characters(words: list[str]) -> bool:
    """Whether a plan's words hold a single CJK character (what `rare_cjk` may leave out)."""
    return any(len(w) == 1 and not w.isascii() and is_cjk().match(w) for w in words)


def cjk_common_limit(passages: int) -> int:
    """Passages past which a CJK character is common in an index of ``passages``."""
    return int(max(CJK_COMMON_FLOOR, CJK_COMMON_SHARE * passages))


def rare_cjk(
    words: list[str], frequency: Callable[[str], int], passages: int, depth: int
) -> list[str]:
    """``words`` less the single CJK characters that most passages hold, when the rest
    find at least ``depth`` passages (``frequency``: passages holding a word).

    A Chinese question gives a dozen single characters besides its bigrams, and the common
    ones (``国``, ``中``, ``时``) are held by a large share of passages: each costs the engine
    a long list of postings and adds next to nothing to BM25 (inverse document frequency
    near zero), while the bigrams holding them carry the meaning. Such a character is left
    out only when a word that stays is held by ``depth`` passages or more, so a page is
    never shorter for it; other words (Latin ones too) are never touched.
    """
    limit = cjk_common_limit(passages)
    characters = {w for w in words if len(w) == 1 and not w.isascii() and is_cjk().match(w)}
    common = {w for w in characters if frequency(w) > limit}
    if not common:
        return words
    # looked up only until one word that stays fills the page
    if not any(frequency(w) >= depth for w in dict.fromkeys(words) if w not in common):
        return words
    return [w for w in words if w not in common]


def id_text(value: Any) -> str:
    """A filter value as SQLite compares it with a TEXT column (``d.id IS ?``)."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:.1f}"
    return str(value)
