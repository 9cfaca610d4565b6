"""Search planning of PostgresTextSearch: the statements of a search, and the statistics it uses.

BM25's statistics and the list of very common words are read from the server and kept for a
while (``COMMON_WORDS_TTL``), so a search usually costs one statement.
"""

from __future__ import annotations

import math
import time
from typing import Any

from textsearch._types import SearchOptions, result_window
from textsearch.connectors.postgres._schema import SchemaBuilder
from textsearch.connectors.postgres._sql import Builder, Request
from textsearch.connectors.postgres._work import ConnectionPlan, Sql

__all__ = ["COMMON_WORDS_TTL", "NO_STATISTICS_TTL", "SearchPlanning"]

#: seconds the list of very common words (from ANALYZE statistics) is reused before re-reading
COMMON_WORDS_TTL = 60.0
#: the same, while the column has no statistics yet (before the first ANALYZE, or a view)
NO_STATISTICS_TTL = 5.0


class SearchPlanning:
    """The statements of one search, and the server statistics they depend on."""

    _builder: Builder
    _schema: SchemaBuilder
    mode: Any
    max_candidates: int
    _common: tuple[float, tuple[str, ...]] | None
    _statistics: tuple[float, bool] | None

    def _statements(
        self,
        query: str,
        options: SearchOptions,
        common: tuple[str, ...],
        statistics: bool,
        vector: list[float] | None = None,
    ) -> tuple[Any, Any]:
        request = Request(
            query,
            options.filter,
            options.top,
            result_window(options) - options.top,  # skip, bounded again
            max_candidates=self.max_candidates,
            common_words=common,
            statistics=statistics,
        )
        builder = self._builder
        if vector is None:
            count = builder.count(request) if options.include_total_count else None
            return builder.search(request), count
        if options.include_total_count:
            count = builder.vector_count(request, keyword=self.mode == "hybrid")
        else:
            count = None
        if self.mode == "semantic":
            return builder.semantic(request, vector), count
        return builder.hybrid(request, vector), count

    def _cached_statistics(self) -> bool | None:
        """Whether BM25's statistics exist (``None``: ask the server)."""
        if not self._builder.bm25:
            return False
        cached = self._statistics
        if cached is None or cached[0] < time.monotonic():
            return None
        return cached[1]

    def _keep_statistics(self, row: tuple[Any, ...] | None) -> bool:
        # Once built, the statistics stay; a table of an older version is asked again soon
        # (create_schema() may be upgrading it from another process).
        found = bool(row and row[0])
        self._statistics = (math.inf if found else time.monotonic() + NO_STATISTICS_TTL, found)
        return found

    def _cached_common(self) -> tuple[str, ...] | None:
        """The very common words, while fresh; ``None`` when they must be read again."""
        cached = self._common
        if cached is None or cached[0] < time.monotonic():
            return None
        return cached[1]

    def _keep_common(self, row: tuple[Any, ...] | None) -> tuple[str, ...]:
        # No row: no statistics yet (no ANALYZE, or a view); ask again a little sooner.
        words = tuple(row[0]) if row and row[0] else ()
        ttl = COMMON_WORDS_TTL if row is not None else NO_STATISTICS_TTL
        self._common = (time.monotonic() + ttl, words)
        return words

    def _search_work(
        self, query: str, options: SearchOptions, stats: Any, vector: list[float] | None
    ) -> ConnectionPlan:
        statistics = self._cached_statistics()
        if statistics is None:
            statistics = self._keep_statistics((yield Sql.of(self._schema.has_stats(), "one")))
        common = () if statistics else self._cached_common()
        if common is None:
            common = self._keep_common((yield Sql.of(stats, "one"))) if stats else ()
        search, count = self._statements(query, options, common, statistics, vector)
        rows = yield Sql.of(search, "all")
        total = None
        if count is not None:
            total = int((yield Sql.of(count, "one"))[0])
        return rows, total
