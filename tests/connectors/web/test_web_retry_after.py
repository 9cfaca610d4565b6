"""Web connectors: a rate limit waits what Retry-After says; a spent quota never retries.

The other tests cap max_retry_wait at 0.01 s, so they cannot tell an honoured Retry-After
from a short backoff; here the waits are recorded instead of slept.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from textsearch import (
    BraveTextSearch,
    ExaTextSearch,
    QuotaExceededError,
    SearxngTextSearch,
    TavilyTextSearch,
)

KEY = "key-0123456789-retry-after"
BRAVE = "https://api.search.brave.com/res/v1/web/search"
TAVILY = "https://api.tavily.com/search"
EXA = "https://api.exa.ai/search"
SEARXNG = "http://searx.test/search"


def brave_error(code: str) -> dict[str, Any]:
    return {
        "type": "ErrorResponse",
        "error": {"id": "e-1", "status": 429, "code": code, "detail": code.lower()},
        "time": 1700000000,
    }


CASES: dict[str, Any] = {
    # name: (factory, method, url, rate-limit body, quota status, quota body, ok body)
    "brave": (
        lambda: BraveTextSearch(KEY),
        "GET",
        BRAVE,
        brave_error("RATE_LIMITED"),
        429,
        brave_error("QUOTA_LIMITED"),
        {"type": "search", "web": {"results": [{"title": "t", "url": "https://a.com/"}]}},
    ),
    "tavily": (
        lambda: TavilyTextSearch(KEY),
        "POST",
        TAVILY,
        {"detail": {"error": "Rate limit exceeded"}},
        432,
        {"detail": {"error": "plan limit exceeded"}},
        {"query": "q", "results": [{"title": "t", "url": "https://a.com/", "content": "c"}]},
    ),
    "exa": (
        lambda: ExaTextSearch(KEY),
        "POST",
        EXA,
        {"error": "You've exceeded your rate limit"},  # Exa's 429 body has no tag
        402,
        {"requestId": "r", "error": "No more credits", "tag": "NO_MORE_CREDITS"},
        {"requestId": "r", "results": [{"id": "1", "url": "https://a.com/", "title": "t"}]},
    ),
    "searxng": (
        lambda: SearxngTextSearch("http://searx.test"),
        "GET",
        SEARXNG,
        None,
        None,
        None,
        {"query": "q", "results": [{"url": "https://a.com/", "title": "t", "content": "c"}]},
    ),
}


def make(name: str) -> tuple[Any, list[float]]:
    connector = CASES[name][0]()
    waits: list[float] = []
    connector._engine.sleep = waits.append  # the engine's seam for "how to wait"
    return connector, waits


@pytest.mark.parametrize("name", sorted(CASES))
def test_rate_limit_waits_what_retry_after_says(name: str) -> None:
    _, method, url, limited, _, _, ok = CASES[name]
    connector, waits = make(name)
    first = (
        httpx.Response(429, json=limited, headers={"Retry-After": "3"})
        if limited is not None
        else httpx.Response(429, text="Too Many Requests", headers={"Retry-After": "3"})
    )
    with respx.mock() as mock:
        route = mock.route(method=method, url=url).mock(
            side_effect=[first, httpx.Response(200, json=ok)]
        )
        results = connector.get_search_results_sync("q", top=1)
    assert route.call_count == 2
    assert waits == [3.0]
    assert len(results) == 1


@pytest.mark.parametrize("name", ["brave", "tavily", "exa"])
def test_a_spent_quota_is_never_retried_whatever_retry_after_says(name: str) -> None:
    _, method, url, _, status, body, _ = CASES[name]
    connector, waits = make(name)
    with respx.mock() as mock:
        route = mock.route(method=method, url=url).respond(
            status, json=body, headers={"Retry-After": "1"}
        )
        with pytest.raises(QuotaExceededError):
            connector.get_search_results_sync("q", top=1)
    assert route.call_count == 1 and waits == []
