"""Ranking with SQLite FTS5: the engine that needs no extra package.

FTS5 calls ``bm25()`` for every row that matches and has no top-k pruning, so an any-word
query costs in proportion to the rows holding any of its words; `plan_any` keeps that
cost down by leaving very common words out when the rarer ones fill the page.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from textsearch._types import SearchOptions, result_window
from textsearch.connectors.local._filters import filter_sql
from textsearch.connectors.local._query import cjk_common_limit, fts_term, rare_cjk, term_word
from textsearch.connectors.local._schema import FTS_HASH_CONFIG, for_index, index_title

# BM25 with a title (document title + section heading) match worth four body matches:
# the best of 1, 2 and 4 on SciFact and Cranfield (bench_relevance.py). Called directly:
# cheaper than FTS5's configurable ``rank`` column.
_BM25 = "bm25(passages_fts, 4.0, 1.0)"
# BM25 for a query holding CJK words: every match weighs 5/3 as much (title 20/3, body 5/3,
# the same ratio). FTS5 fixes k1 at 1.2; a weight w multiplies a term's frequency, which
# ranks as BM25 with k1 / w does (the score times a constant): k1 0.72 here. A CJK question's
# terms are bigrams and characters; a passage holding one of them again is less often the
# better answer than one holding more of them. XQuAD-R Chinese (one sentence a document)
# 0.838 -> 0.844; weights 4/3, 2, 4, 10 gave 0.843, 0.844, 0.847, 0.850, but on passages of
# four sentences (--scale 20000, 600 questions) 4 ranks lower (0.7101 against 0.7145) and
# 5/3 as before (0.7147) (bench_languages.py). A query without CJK words ranks as before.
_BM25_CJK = "bm25(passages_fts, 6.6667, 1.6667)"

# An any-word query leaves out words held by more than this share of passages (and at least
# _COMMON_FLOOR of them) when its rarer words alone fill the page: see plan_any.
_COMMON_SHARE = 0.05
_COMMON_FLOOR = 2000


class FtsRanker:
    """The FTS5 side of a local index: its writes and its ranked queries."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        # Rows holding each quoted term, for the any-word plan; cleared on every write.
        self.df_cache: dict[str, int] = {}

    def add(self, rowid: int, title: str | None, section: str | None, text: str) -> None:
        self._db.execute(
            "INSERT INTO passages_fts(rowid, title, body) VALUES (?, ?, ?)",
            (rowid, index_title(title, section), for_index(text)),
        )

    def add_many(self, rows: list[tuple[int, str, str]]) -> None:
        """Index passages given as ``(rowid, indexed title, indexed body)`` (see `add`)."""
        self._db.executemany("INSERT INTO passages_fts(rowid, title, body) VALUES (?, ?, ?)", rows)

    def delete_doc(self, docid: int, title: str | None) -> None:
        db = self._db
        # An external-content index forgets a row only when told the exact indexed values.
        db.executemany(
            "INSERT INTO passages_fts(passages_fts, rowid, title, body) VALUES ('delete', ?, ?, ?)",
            [
                (rowid, index_title(title, section), for_index(text))
                for rowid, section, text in db.execute(
                    "SELECT rowid, section, text FROM passages WHERE doc = ?", (docid,)
                ).fetchall()
            ],
        )

    def rare_cjk(self, terms: list[str], depth: int) -> list[str]:
        """Quoted ``terms`` less the CJK characters most passages hold, when the rest fill
        ``depth`` results (`textsearch.connectors.local._query.rare_cjk`)."""
        passages = self._approx_count()
        # plan_any's cap: both read the same cached counts
        cap = max(cjk_common_limit(passages), int(max(_COMMON_FLOOR, _COMMON_SHARE * passages))) + 1
        words = [term_word(t) for t in terms]

        def held(word: str) -> int:
            return self._document_frequency(fts_term(word), cap)

        kept = rare_cjk(words, held, passages, depth)
        return terms if len(kept) == len(words) else [fts_term(w) for w in kept]

    def plan_any(self, terms: list[str], options: SearchOptions) -> tuple[str, list[str]]:
        """Leave very common words out of an any-word query when the rest fill the page.

        Words held by a large share of passages are left out only when the rarer words
        alone still fill the requested page.

        FTS5 calls ``bm25()`` for every row that holds any of the words (~6 µs a row), so one
        word found in most passages makes a query cost in proportion to the whole index. Such a
        word adds little to BM25 (inverse document frequency near zero): dropping it changes
        which rows merely contain it, not the top of the ranking, and never returns fewer
        results than asked for. ``metadata["left_out"]`` names the words left out.
        """
        limit = max(_COMMON_FLOOR, _COMMON_SHARE * self._approx_count())
        counts = [(self._document_frequency(t, int(limit) + 1), t) for t in terms]
        rare = [t for n, t in counts if n <= limit]
        wanted = result_window(options)
        if not rare:
            # Every word is common: passages holding all of them outrank those holding some
            # (each word weighs about the same), so when they fill the page, rank only them.
            every = " AND ".join(terms)
            if self._fills(every, options, wanted):
                return every, []
            return " OR ".join(terms), []
        if len(rare) == len(terms):
            return " OR ".join(terms), []
        rare_match = " OR ".join(rare)
        if max(n for n, t in counts if t in rare) < wanted and not self._fills(
            rare_match, options, wanted
        ):
            return " OR ".join(terms), []
        return rare_match, list(dict.fromkeys(term_word(t) for n, t in counts if n > limit))

    def _fills(self, match: str, options: SearchOptions, wanted: int) -> bool:
        """Whether ``match`` (with the filter) finds at least ``wanted`` passages."""
        join, where, params = _filtered(options)
        found = self._db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM passages_fts AS f{join} "
            f"WHERE passages_fts MATCH ?{where} LIMIT ?)",
            [match, *params, wanted],
        ).fetchone()[0]
        return int(found) >= wanted

    def _document_frequency(self, term: str, cap: int) -> int:
        """Rows holding ``term``, counted up to ``cap`` only.

        Past ``cap`` the word is common, and counting all of its rows would cost as much as
        the query it is meant to spare.
        """
        count = self.df_cache.get(term)
        if count is None:
            count = int(
                self._db.execute(
                    "SELECT count(*) FROM (SELECT 1 FROM passages_fts "
                    "WHERE passages_fts MATCH ? LIMIT ?)",
                    (term, cap),
                ).fetchone()[0]
            )
            if len(self.df_cache) > 50_000:
                self.df_cache.clear()
            self.df_cache[term] = count
        return count

    def _approx_count(self) -> int:
        # max(rowid) bounds the number of passages and is one index seek, unlike count(*)
        return int(self._db.execute("SELECT max(rowid) FROM passages").fetchone()[0] or 0)

    def rank(
        self, match: str, options: SearchOptions, depth: int, cjk: bool = False
    ) -> list[tuple[int, float]]:
        """The best ``depth`` passages as ``(rowid, score)``, best first (higher is better);
        ``cjk``: the query holds CJK words (ranked with `_BM25_CJK`).

        Ties go to the lower rowid, so that a deeper list starts with a shallower one (pages
        are cut from the top of this list after merging sections).
        """
        join, where, params = _filtered(options)
        bm25 = _BM25_CJK if cjk else _BM25
        sql = (
            f"SELECT f.rowid, {bm25} AS score FROM passages_fts AS f{join} "
            f"WHERE passages_fts MATCH ?{where} ORDER BY score, f.rowid LIMIT ?"
        )
        return [
            (rowid, -float(score))
            for rowid, score in self._db.execute(sql, [match, *params, depth]).fetchall()
        ]

    def count(self, match: str, options: SearchOptions, by_document: bool) -> int:
        """How many results match: sections, or documents when ``by_document``."""
        from textsearch.connectors.local._hybrid import group_count_sql

        # "q": group_count_sql's outer query names its passages "p"
        join, where, params = _filtered(options, passages="q")
        source = f"SELECT f.rowid FROM passages_fts AS f{join} WHERE passages_fts MATCH ?{where}"
        return int(
            self._db.execute(group_count_sql(source, by_document), [match, *params]).fetchone()[0]
        )

    def rebuild(self) -> None:
        """Index every stored passage again (after the tantivy engine kept the index)."""
        # a file made by an older release gets the larger pending-terms buffer here
        self._db.execute(FTS_HASH_CONFIG)
        self._db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('rebuild')")
        self.df_cache.clear()

    def drop(self) -> None:
        """Empty the FTS5 index (the tantivy engine ranks instead)."""
        self._db.execute("INSERT INTO passages_fts(passages_fts) VALUES ('delete-all')")
        self.df_cache.clear()


def _filtered(options: SearchOptions, passages: str = "p") -> tuple[str, str, list[Any]]:
    """The joins a filter needs from ``passages_fts AS f`` (none without one), its clause
    and its parameters."""
    where, params = filter_sql(options.filter, passages)
    if not where:
        return "", "", params
    join = (
        f" JOIN passages AS {passages} ON {passages}.rowid = f.rowid "
        f"JOIN documents AS d ON d.rowid = {passages}.doc"
    )
    return join, where, params
