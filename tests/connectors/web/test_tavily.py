"""TavilyTextSearch: exact outgoing requests, skip by slicing, quota statuses 432/433."""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
import respx

from tests.conftest import LIVE_ENV
from tests.emulators.web import Reply, call, serve
from textsearch import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    ServiceUnavailableError,
    TavilyResult,
    TavilyTextSearch,
    TextSearchFilter,
    TextSearchResult,
)

KEY = "tvly-dev-SECRET0123456789abcdef"
URL = "https://api.tavily.com/search"
MODES = ["async", "sync"]


def result(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "url": f"https://news.example.com/story-{i}",
        "title": f"Story {i}: grid batteries &amp; the winter peak",
        "content": f"Passage {i} about <b>grid-scale</b> storage.",
        "score": round(0.9 - i * 0.1, 2),
        "raw_content": None,
        **extra,
    }


OK: dict[str, Any] = {
    "query": "grid scale batteries",
    "follow_up_questions": None,
    "answer": None,
    "images": [],
    "results": [
        result(
            0,
            favicon="https://news.example.com/favicon.ico",
            published_date="Mon, 17 Nov 2026 08:00:00 GMT",
        ),
        result(1, published_date=""),
        result(2),
    ],
    "response_time": 1.42,
    "request_id": "123e4567-e89b-12d3-a456-426614174111",
}


def run(mode: str, method: str, *args: Any, connector: Any = None, **kwargs: Any) -> Any:
    return call(
        connector or TavilyTextSearch(KEY, max_retry_wait=0.01), mode, method, *args, **kwargs
    )


def sent(route: respx.Route) -> dict[str, Any]:
    return json.loads(route.calls.last.request.content)  # type: ignore[no-any-return]


def test_missing_key_names_both_ways() -> None:
    with pytest.raises(ConfigurationError) as info:
        TavilyTextSearch()
    assert "api_key=" in str(info.value) and "TAVILY_API_KEY" in str(info.value)


def test_settings_are_checked_and_repr_hides_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", KEY)
    connector = TavilyTextSearch(search_depth="advanced", topic="news")
    assert KEY not in repr(connector) and "advanced" in repr(connector)
    with pytest.raises(ConfigurationError):
        TavilyTextSearch(search_depth="deepest")
    with pytest.raises(ConfigurationError):
        TavilyTextSearch(topic="sports")


@pytest.mark.parametrize("mode", MODES)
def test_exact_request_key_only_in_the_header(mode: str) -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        results = run(mode, "get_web_results", "grid scale batteries", top=3)
    request = route.calls.last.request
    assert route.call_count == 1
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert sent(route) == {
        "query": "grid scale batteries",
        "max_results": 3,
        "search_depth": "basic",
        "topic": "general",
    }
    assert KEY not in request.content.decode() and KEY not in str(request.url)
    first = results.results[0]
    assert isinstance(first, TavilyResult)
    assert first.title == "Story 0: grid batteries & the winter peak"
    assert first.content == "Passage 0 about grid-scale storage."
    assert first.published_date == "Mon, 17 Nov 2026 08:00:00 GMT"
    assert results.results[1].published_date is None
    assert results.metadata == {
        "request_id": "123e4567-e89b-12d3-a456-426614174111",
        "response_time": 1.42,
    }


@pytest.mark.parametrize("mode", MODES)
def test_three_shapes(mode: str) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, json=OK)
        strings = run(mode, "search", "q")
        texts = run(mode, "get_text_search_results", "q")
    assert strings.results[0] == "Passage 0 about grid-scale storage."
    assert texts.results[2] == TextSearchResult(
        name="Story 2: grid batteries & the winter peak",
        value="Passage 2 about grid-scale storage.",
        link="https://news.example.com/story-2",
    )


def test_skip_asks_for_top_plus_skip_and_slices() -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        results = run("sync", "get_search_results", "q", top=1, skip=1)
    assert sent(route)["max_results"] == 2
    assert [r.url for r in results.results] == ["https://news.example.com/story-1"]


def test_never_more_than_top_even_if_tavily_sends_more() -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, json=OK)
        results = run("sync", "search", "q", top=2)
    assert len(results) == 2


@pytest.mark.parametrize(("top", "skip"), [(15, 6), (21, 0)])
def test_beyond_twenty_fails_before_any_request(top: int, skip: int) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=OK)
        with pytest.raises(InvalidRequestError):
            run("sync", "search", "q", top=top, skip=skip)
    assert route.call_count == 0


def test_filters_in_the_body() -> None:
    search_filter = (
        TextSearchFilter()
        .equal_to("site", "example.com|example.org")
        .equal_to("exclude_site", "ads.example.com")
        .equal_to("freshness", "week")
        .equal_to("country", "de")
    )
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        run("sync", "search", "q", filter=search_filter)
    body = sent(route)
    assert body["include_domains"] == ["example.com", "example.org"]
    assert body["exclude_domains"] == ["ads.example.com"]
    assert body["time_range"] == "week"
    assert body["country"] == "germany"


def test_unknown_country_code_fails_before_any_request() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=OK)
        with pytest.raises(InvalidRequestError):
            run("sync", "search", "q", filter=TextSearchFilter().equal_to("country", "XQ"))
    assert route.call_count == 0


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "error"),
    [
        (400, {"detail": {"error": "Query is missing."}}, BadRequestError),
        (
            401,
            {"detail": {"error": "Unauthorized: missing or invalid API key."}},
            AuthenticationError,
        ),
        (403, {"detail": {"error": "Forbidden"}}, PermissionDeniedError),
        (
            432,
            {"detail": {"error": "This request exceeds your plan's set usage limit."}},
            QuotaExceededError,
        ),
        (
            433,
            {"detail": {"error": "This request exceeds the pay-as-you-go limit."}},
            QuotaExceededError,
        ),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_error_rows_are_mapped_and_not_retried(
    mode: str, status: int, body: dict[str, Any], error: type[Exception]
) -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(status, json=body)
        with pytest.raises(error) as info:
            run(mode, "search", "q")
    assert route.call_count == 1
    exc: Any = info.value
    assert exc.status_code == status and exc.provider == "tavily"
    assert body["detail"]["error"] in str(exc)
    if status in (432, 433, 401):
        assert exc.hints


def test_plain_detail_string_is_read() -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(400, json={"detail": "Invalid time_range"})
        with pytest.raises(BadRequestError) as info:
            run("sync", "search", "q")
    assert "Invalid time_range" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
def test_rate_limit_retried_with_retry_after(mode: str) -> None:
    limited = httpx.Response(
        429, json={"detail": {"error": "Rate limit exceeded"}}, headers={"Retry-After": "0"}
    )
    with respx.mock() as mock:
        route = mock.post(URL).mock(side_effect=[limited, httpx.Response(200, json=OK)])
        assert len(run(mode, "search", "q")) == 3
    assert route.call_count == 2
    with respx.mock() as mock:
        route = mock.post(URL).respond(429, json={"detail": {"error": "Rate limit exceeded"}})
        with pytest.raises(RateLimitError):
            run(mode, "search", "q")
    assert route.call_count == 3


def test_5xx_retried_then_service_unavailable() -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(502, text="Bad Gateway")
        with pytest.raises(ServiceUnavailableError):
            run("sync", "search", "q")
    assert route.call_count == 3


@pytest.mark.parametrize(
    "content",
    [
        b"<html>maintenance</html>",
        b"{}",
        b'{"results": {"a": 1}}',
        b"null",
        # A scalar once made the null-dropping validator raise a bare TypeError.
        b'{"results": 5}',
        b'{"results": true}',
    ],
)
def test_a_200_that_is_not_a_tavily_answer_is_a_format_error(content: bytes) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, content=content)
        with pytest.raises(ResponseFormatError):
            run("sync", "search", "q")


def test_key_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with respx.mock() as mock:
        mock.post(URL).respond(401, json={"detail": {"error": f"invalid key {KEY}"}})
        with pytest.raises(AuthenticationError) as info:
            run("sync", "search", "q")
    assert KEY not in caplog.text and KEY not in str(info.value)


# -- real sockets ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_loopback_quota_is_not_retried_rate_limit_is(mode: str) -> None:
    with serve(Reply(200, OK)) as server:
        server.enqueue(Reply(429, {"detail": {"error": "slow"}}, {"Retry-After": "0.05"}))
        connector = TavilyTextSearch(KEY, base_url=server.url)
        assert len(call(connector, mode, "search", "q")) == 3
        assert [r.path for r in server.requests] == ["/search", "/search"]
        assert server.requests[1].at - server.requests[0].at >= 0.05
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
        assert KEY.encode() not in server.requests[0].body

        server.enqueue(Reply(432, {"detail": {"error": "plan limit"}}))
        with pytest.raises(QuotaExceededError):
            call(TavilyTextSearch(KEY, base_url=server.url), mode, "search", "q")
        assert len(server.requests) == 3


@pytest.mark.parametrize("mode", MODES)
def test_loopback_timeout(mode: str) -> None:
    # The reply waits far beyond the timeout (the emulator's stop ends the wait).
    with serve(Reply(200, OK, delay=60.0)) as server:
        connector = TavilyTextSearch(KEY, base_url=server.url, timeout=0.5, max_retries=0)
        with pytest.raises(SearchTimeoutError):
            call(connector, mode, "search", "q")
        assert server.received(1) == 1


@pytest.mark.live
@pytest.mark.skipif("TAVILY_API_KEY" not in LIVE_ENV, reason="needs TAVILY_API_KEY")
def test_live_tavily() -> None:
    connector = TavilyTextSearch(LIVE_ENV["TAVILY_API_KEY"])
    results = connector.get_text_search_results_sync("python httpx connection pool", top=2, skip=1)
    connector.close()
    assert 1 <= len(results) <= 2


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("mode", MODES)
def test_a_bom_before_the_json_is_tolerated(mode: str) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, content=BOM + json.dumps(OK).encode())
        results = run(mode, "get_search_results", "q", top=2)
    assert [r.url for r in results] == [
        "https://news.example.com/story-0",
        "https://news.example.com/story-1",
    ]
