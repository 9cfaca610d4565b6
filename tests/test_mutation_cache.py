"""The cache as agents use it: many awaits in one event loop, and loops in several threads.

Written against the survivors of mutation testing (issue #24, ``tools/mutation.py``): each
test pins a promise of :class:`~textsearch.compose.CachedTextSearch` that a changed line of
``compose/_cache.py`` would break.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest

from textsearch import RateLimitError, SearchOptions, SearchResults, TextSearchResult
from textsearch.compose import CachedTextSearch
from textsearch.testing import StaticTextSearch

from ._compose_support import docs

LINKS = [f"https://a.example/{i}" for i in range(1, 6)]


async def _wait_for(flag: Callable[[], bool]) -> None:
    """Poll a flag set from any thread (a threading.Event cannot be awaited), for 20 s at most."""
    for _ in range(4000):
        if flag():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the condition never came true")


class GatedSearch(StaticTextSearch):
    """A static search whose async requests wait for a thread-safe gate to open."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, match="always", **kwargs)
        self.gate = threading.Event()
        self.started = threading.Semaphore(0)
        self.finished = threading.Event()

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        self.started.release()
        try:
            await _wait_for(self.gate.is_set)
            return await super()._fetch(query, options)
        finally:
            self.finished.set()


def test_async_requests_use_the_callers_options() -> None:
    inner = StaticTextSearch(docs(*LINKS), match="always")
    cache = CachedTextSearch(inner)

    async def run() -> tuple[SearchResults[str], SearchResults[str]]:
        first = await cache.search("q", top=2, skip=1)
        second = await cache.search("q", top=2, skip=1)
        return first, second

    first, second = asyncio.run(run())
    assert first.results == ["text doc2", "text doc3"]
    assert second.results == first.results and second.metadata["cached"] is True
    assert len(inner.calls) == 1


def test_a_hit_keeps_the_total_count() -> None:
    inner = StaticTextSearch(docs(*LINKS), match="always")
    cache = CachedTextSearch(inner)

    async def run() -> list[SearchResults[str]]:
        return [await cache.search("q", top=1, include_total_count=True) for _ in range(2)]

    miss, hit = asyncio.run(run())
    assert miss.total_count == 5
    assert hit.total_count == 5 and hit.metadata["cached"] is True
    blocking = cache.search_sync("q", top=1, include_total_count=True)
    assert blocking.total_count == 5 and len(inner.calls) == 1


def test_each_shape_has_its_own_entry_in_one_event_loop() -> None:
    inner = StaticTextSearch(docs(*LINKS[:1]), match="always")
    cache = CachedTextSearch(inner)

    async def run() -> tuple[Any, Any, Any]:
        return (
            await cache.search("q"),
            await cache.get_text_search_results("q"),
            await cache.get_search_results("q"),
        )

    strings, texts, objects = asyncio.run(run())
    assert strings.results == ["text doc1"]
    assert isinstance(texts.results[0], TextSearchResult)
    assert texts.results[0].link == LINKS[0]
    assert not isinstance(objects.results[0], str) and objects.results[0].name == "doc1"
    assert len(inner.calls) == 3


def test_concurrent_shapes_in_one_loop_are_not_shared() -> None:
    inner = GatedSearch(docs(*LINKS[:1]))
    cache = CachedTextSearch(inner)

    async def run() -> tuple[Any, ...]:
        inner.gate.set()
        return await asyncio.gather(cache.search("q"), cache.get_text_search_results("q"))

    strings, texts = asyncio.run(run())
    assert strings.results == ["text doc1"]
    assert isinstance(texts.results[0], TextSearchResult)


def test_event_loops_in_two_threads_each_get_their_answer() -> None:
    # The cache is shared between threads that each run their own event loop: a request
    # under way in one loop cannot be awaited from another, so each loop sends its own.
    inner = GatedSearch(docs(*LINKS[:1]))
    cache = CachedTextSearch(inner)
    outcomes: dict[str, Any] = {}

    def worker(name: str) -> None:
        try:
            outcomes[name] = asyncio.run(cache.search("q"))
        except BaseException as exc:  # reported by the asserts below
            outcomes[name] = exc

    first = threading.Thread(target=worker, args=("first",))
    first.start()
    assert inner.started.acquire(timeout=10)
    second = threading.Thread(target=worker, args=("second",))
    second.start()
    assert inner.started.acquire(timeout=10)
    inner.gate.set()
    first.join(10)
    second.join(10)
    assert [getattr(outcomes.get(n), "results", outcomes.get(n)) for n in ("first", "second")] == [
        ["text doc1"],
        ["text doc1"],
    ]
    assert len(inner.calls) == 2
    # Both finished: the next call in a third loop is a plain hit.
    third = asyncio.run(cache.search("q"))
    assert third.metadata["cached"] is True and len(inner.calls) == 2


def _asyncio_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "asyncio" and r.levelno >= 40]


def test_a_failure_nobody_waits_for_is_not_reported_as_unretrieved(
    caplog: pytest.LogCaptureFixture,
) -> None:
    inner = GatedSearch(docs(), error=RateLimitError("429 too many requests"))
    cache = CachedTextSearch(inner)

    async def run() -> None:
        caller = asyncio.ensure_future(cache.search("q"))
        await _wait_for(lambda: inner.started.acquire(blocking=False))
        caller.cancel()
        with pytest.raises(asyncio.CancelledError):
            await caller
        # The shared request goes on without any waiter, and fails.
        inner.gate.set()
        await _wait_for(inner.finished.is_set)
        for _ in range(5):  # let the shared request's task complete
            await asyncio.sleep(0)

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(run())
        gc.collect()
    assert _asyncio_errors(caplog) == []
    assert cache.stats.size == 0
    # The error was not cached: the next call asks again (and gets the error again).
    with pytest.raises(RateLimitError):
        asyncio.run(cache.search("q"))
    assert len(inner.calls) == 2


def test_a_request_cancelled_with_its_loop_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    inner = GatedSearch(docs(*LINKS[:1]))
    cache = CachedTextSearch(inner)

    async def run() -> None:
        caller = asyncio.ensure_future(cache.search("q"))
        await _wait_for(lambda: inner.started.acquire(blocking=False))
        caller.cancel()
        # Returning leaves the shared request pending: asyncio.run cancels it on the way out.

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(run())
        gc.collect()
    assert _asyncio_errors(caplog) == []
    assert cache.stats.size == 0
    inner.gate.set()
    assert asyncio.run(cache.search("q")).results == ["text doc1"]
