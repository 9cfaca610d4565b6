"""Composition promises found unguarded by an attack (issue #24, items 4, 5 and 7).

- A cache keyed on filters must keep ``True`` apart from ``1`` and ``1.0`` (JSON and the
  backends do), or it answers one filter with another filter's documents.
- The cache, used in one event loop as agents use it: hits, sharing, errors never cached.
- The blocking fusion must never starve a healthy provider with a slow one's requests.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from textsearch import RateLimitError, SearchOptions, SearchResults, TextSearchFilter
from textsearch.compose import CachedTextSearch, FusedTextSearch
from textsearch.testing import StaticTextSearch

from ._compose_support import SlowSearch, static

DOCS = [
    {
        "name": "True doc",
        "value": "access note",
        "link": "https://a.example/t",
        "metadata": {"public": True},
    },
    {
        "name": "One doc",
        "value": "access note",
        "link": "https://a.example/1",
        "metadata": {"public": 1},
    },
    {
        "name": "Zero doc",
        "value": "access note",
        "link": "https://a.example/0",
        "metadata": {"public": 0},
    },
    {
        "name": "False doc",
        "value": "access note",
        "link": "https://a.example/f",
        "metadata": {"public": False},
    },
]


def test_filters_with_true_and_one_are_different_filters() -> None:
    assert TextSearchFilter().equal_to("x", True) != TextSearchFilter().equal_to("x", 1)
    assert TextSearchFilter().equal_to("x", 1) != TextSearchFilter().equal_to("x", 1.0)
    assert TextSearchFilter().equal_to("x", False) != TextSearchFilter().equal_to("x", 0)
    same = TextSearchFilter().equal_to("x", 1).any_tag_equal_to("t", "a")
    assert same == TextSearchFilter().equal_to("x", 1).any_tag_equal_to("t", "a")
    assert hash(same) == hash(TextSearchFilter().equal_to("x", 1).any_tag_equal_to("t", "a"))
    assert SearchOptions(filter=TextSearchFilter().equal_to("x", True)) != SearchOptions(
        filter=TextSearchFilter().equal_to("x", 1)
    )


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (1, True, ["True doc"]),
        (True, 1, ["One doc"]),
        (1.0, True, ["True doc"]),
        (0, False, ["False doc"]),
        (False, 0, ["Zero doc"]),
    ],
)
def test_the_cache_never_answers_one_filter_with_anothers_documents(
    first: Any, second: Any, expected: list[str]
) -> None:
    inner = StaticTextSearch(DOCS, match="any")
    cache = CachedTextSearch(inner)
    cache.get_text_search_results_sync(
        "access", filter=TextSearchFilter().equal_to("public", first)
    )
    again = cache.get_text_search_results_sync(
        "access", filter=TextSearchFilter().equal_to("public", second)
    )
    assert [r.name for r in again] == expected
    assert len(inner.calls) == 2


class _Counting(StaticTextSearch):
    """Counts requests; can fail the next N of them; answers after a pause (same loop)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(DOCS, match="any", **kwargs)
        self.requests = 0
        self.fail_next = 0

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[Any]:
        self.requests += 1
        await asyncio.sleep(0.01)
        if self.fail_next:
            self.fail_next -= 1
            raise RateLimitError("slow down", provider="counting", retry_after=1.0)
        return self._fetch_sync(query, options)


def test_cache_in_one_event_loop_hits_shares_and_never_keeps_errors() -> None:
    async def scenario() -> None:
        inner = _Counting()
        cache = CachedTextSearch(inner)
        # ten identical searches at once: one request, everyone answered
        answers = await asyncio.gather(*(cache.search("access") for _ in range(10)))
        assert inner.requests == 1
        assert all(list(a) == list(answers[0]) for a in answers) and len(answers[0]) == 4
        # the finished request is gone: the next call is a hit, not a second request
        hit = await cache.search("access")
        assert inner.requests == 1 and hit.metadata.get("cached") is True
        assert list(hit) == list(answers[0])
        # waiters share one error: one request, every caller gets it
        inner.fail_next = 1
        outcomes = await asyncio.gather(
            *(cache.search("note") for _ in range(5)), return_exceptions=True
        )
        assert inner.requests == 2
        assert all(isinstance(o, RateLimitError) for o in outcomes)
        # and the error is not cached: the next call asks again and succeeds
        fresh = await cache.search("note")
        assert inner.requests == 3 and len(fresh) == 4
        # clear() drops the entries: a request again
        cache.clear()
        await cache.search("access")
        assert inner.requests == 4

    asyncio.run(scenario())


def test_blocking_fusion_never_starves_a_healthy_provider() -> None:
    slow = SlowSearch(
        [{"name": "slow", "value": "x", "link": "https://slow.example/1"}], delay=1.5, name="slow"
    )
    healthy = static("https://fast.example/1", name="healthy")
    fused = FusedTextSearch([healthy, slow], per_search_timeout=0.1)
    try:
        for _ in range(12):  # more calls than the old shared pool had threads
            result = fused.get_text_search_results_sync("anything")
            assert [r.link for r in result] == ["https://fast.example/1"]
            assert result.metadata["providers"] == ["healthy"]
    finally:
        fused.close()


def test_static_search_name_defaults_to_the_subclass_provider_name() -> None:
    class Mine(StaticTextSearch):
        provider_name = "mine"

    assert Mine().name == "mine"
    assert StaticTextSearch().name == "static"
    assert Mine(name="given").name == "given"
    fused = FusedTextSearch([Mine([{"value": "a", "link": "https://m.example/"}], match="always")])
    result = fused.get_search_results_sync("q")
    assert result.results[0].sources[0][0] == "mine"
