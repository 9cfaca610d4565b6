"""Helpers for the composition tests: a slow connector, a fake clock, canned documents."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any, ClassVar

from textsearch import SearchOptions, SearchResults, TextSearchResult
from textsearch.testing import StaticTextSearch


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SlowSearch(StaticTextSearch):
    """A static search that takes ``delay`` seconds (asyncio.sleep, or time.sleep when blocking).

    It counts the requests running at once, so tests can see real concurrency.
    """

    def __init__(self, documents: Any = (), *, delay: float, name: str, **kwargs: Any) -> None:
        super().__init__(documents, match="always", name=name, **kwargs)
        self.delay = delay
        self.running = 0
        self.most_running = 0
        self._count_lock = threading.Lock()

    def _enter(self) -> None:
        with self._count_lock:
            self.running += 1
            self.most_running = max(self.most_running, self.running)

    def _leave(self) -> None:
        with self._count_lock:
            self.running -= 1

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        self._enter()
        try:
            await asyncio.sleep(self.delay)
            return self._fetch_sync_now(query, options)
        finally:
            self._leave()

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        self._enter()
        try:
            time.sleep(self.delay)
            return self._fetch_sync_now(query, options)
        finally:
            self._leave()

    def _fetch_sync_now(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        return super()._fetch_sync(query, options)


class ProtocolOnly:
    """A third-party TextSearch that implements the protocol directly (no BaseTextSearch)."""

    max_top: ClassVar[int] = 10

    def __init__(self, links: list[str]) -> None:
        self.links = links
        self.calls = 0

    def _results(self) -> SearchResults[TextSearchResult]:
        self.calls += 1
        return SearchResults(
            [TextSearchResult(f"t{i}", f"v{i}", x) for i, x in enumerate(self.links)]
        )

    async def search(self, query: str, options: Any = None, **kwargs: Any) -> SearchResults[str]:
        return SearchResults([r.value or "" for r in self._results()])

    async def get_text_search_results(
        self, query: str, options: Any = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        return self._results()

    async def get_search_results(
        self, query: str, options: Any = None, **kwargs: Any
    ) -> SearchResults[Any]:
        return self._results()

    def search_sync(self, query: str, options: Any = None, **kwargs: Any) -> SearchResults[str]:
        return SearchResults([r.value or "" for r in self._results()])

    def get_text_search_results_sync(
        self, query: str, options: Any = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        return self._results()

    def get_search_results_sync(
        self, query: str, options: Any = None, **kwargs: Any
    ) -> SearchResults[Any]:
        return self._results()


def docs(*links: str, prefix: str = "doc") -> list[dict[str, Any]]:
    """One document per link, titled ``<prefix><n>``."""
    return [
        {"name": f"{prefix}{i}", "value": f"text {prefix}{i}", "link": link}
        for i, link in enumerate(links, start=1)
    ]


def static(*links: str, name: str | None = None, **kwargs: Any) -> StaticTextSearch:
    """A static search that lists ``links`` in this order for every query."""
    return StaticTextSearch(
        docs(*links, prefix=name or "doc"), match="always", name=name or "static", **kwargs
    )
