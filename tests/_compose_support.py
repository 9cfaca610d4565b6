"""Helpers for the composition tests: a slow connector, a fake clock, canned documents."""

from __future__ import annotations

import asyncio
import contextlib
import threading
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

    It counts the requests running at once, so tests can see real concurrency. A blocking
    wait ends early on `release` (so a test can give a long ``delay`` without waiting for
    it); with a shared `Meeting`, a request also waits until all of the meeting are in.
    """

    def __init__(
        self,
        documents: Any = (),
        *,
        delay: float,
        name: str,
        meeting: Meeting | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(documents, match="always", name=name, **kwargs)
        self.delay = delay
        self.meeting = meeting
        self.running = 0
        self.most_running = 0
        self._count_lock = threading.Lock()
        self._released = threading.Event()

    def release(self) -> None:
        """End every blocking wait now (and every later one at once)."""
        self._released.set()

    def _enter(self) -> None:
        with self._count_lock:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
        if self.meeting is not None:
            self.meeting.arrive()

    def _leave(self) -> None:
        with self._count_lock:
            self.running -= 1

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        self._enter()
        try:
            if self.meeting is not None:
                await self.meeting.all_in_async()
            await asyncio.sleep(self.delay)
            return self._fetch_sync_now(query, options)
        finally:
            self._leave()

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        self._enter()
        try:
            if self.meeting is not None:
                self.meeting.all_in()
            self._released.wait(self.delay)
            return self._fetch_sync_now(query, options)
        finally:
            self._leave()

    def _fetch_sync_now(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        return super()._fetch_sync(query, options)


class Meeting:
    """Requests that wait for each other: shows they were in flight at once, by count.

    Each request arrives, then waits until ``size`` have arrived (``wait`` seconds at most,
    far beyond what a loaded machine needs). Run one by one, the first waits out ``wait``
    alone and `most_in_flight` stays 1; run at once, nobody waits and it reaches ``size``.
    """

    def __init__(self, size: int, wait: float = 30.0) -> None:
        self.size = size
        self.wait = wait
        self.arrived = 0
        self.in_flight = 0
        self.most_in_flight = 0
        self._ready = threading.Condition()
        self._all_in: asyncio.Event | None = None  # made in the loop of the async requests

    def arrive(self) -> None:
        with self._ready:
            self.arrived += 1
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            self._ready.notify_all()
            if self._all_in is not None and self.arrived >= self.size:
                self._all_in.set()

    def _leave(self) -> None:
        with self._ready:
            self.in_flight -= 1

    def all_in(self) -> None:
        with self._ready:
            self._ready.wait_for(lambda: self.arrived >= self.size, timeout=self.wait)
        self._leave()

    async def all_in_async(self) -> None:
        if self.arrived < self.size:
            if self._all_in is None:
                self._all_in = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._all_in.wait(), self.wait)
        self._leave()


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
