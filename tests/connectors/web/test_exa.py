"""ExaTextSearch: exact outgoing requests, contents, skip by slicing, 402 and the bare 429 body."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone
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
    ExaResult,
    ExaTextSearch,
    InvalidRequestError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    ServiceUnavailableError,
    TextSearchResult,
)

KEY = "exa-SECRET-0123456789abcdef0123"
URL = "https://api.exa.ai/search"
MODES = ["async", "sync"]

OK: dict[str, Any] = {
    "requestId": "b5947044c4b78efa9552a7c89b306d95",
    "resolvedSearchType": "neural",
    "results": [
        {
            "id": "https://arxiv.org/abs/2307.06435",
            "url": "https://arxiv.org/abs/2307.06435",
            "title": "A Survey of Retrieval-Augmented Generation",
            "publishedDate": "2023-07-12T00:00:00.000Z",
            "author": "Doe, Jane and Roe, Richard",
            "score": 0.4386,
            "highlights": [
                "RAG combines a retriever &amp; a generator.",
                "  ",
                "Dense retrievers help.",
            ],
            "highlightScores": [0.51, 0.1, 0.47],
            "image": None,
            "favicon": "https://arxiv.org/favicon.ico",
        },
        {
            "id": "https://example.org/notes",
            "url": "https://example.org/notes",
            "title": None,
            "publishedDate": None,
            "author": None,
            "summary": "Notes on chunking for retrieval.",
            "highlights": None,
            "extras": {"links": []},
        },
        {
            "id": "https://blog.example.com/rag",
            "url": "https://blog.example.com/rag",
            "title": "RAG in practice",
            "publishedDate": "sometime in 2024",
            "text": "Start of the page text.",
        },
    ],
    "costDollars": {"total": 0.005, "search": {"neural": 0.005}},
}


def run(mode: str, method: str, *args: Any, connector: Any = None, **kwargs: Any) -> Any:
    return call(connector or ExaTextSearch(KEY, max_retry_wait=0.01), mode, method, *args, **kwargs)


def sent(route: respx.Route) -> dict[str, Any]:
    return json.loads(route.calls.last.request.content)  # type: ignore[no-any-return]


def test_missing_key_names_both_ways() -> None:
    with pytest.raises(ConfigurationError) as info:
        ExaTextSearch()
    assert "api_key=" in str(info.value) and "EXA_API_KEY" in str(info.value)


def test_settings_are_checked_and_repr_hides_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXA_API_KEY", KEY)
    assert KEY not in repr(ExaTextSearch())
    with pytest.raises(ConfigurationError):
        ExaTextSearch(search_type="magic")
    with pytest.raises(ConfigurationError):
        ExaTextSearch(contents="everything")


@pytest.mark.parametrize("mode", MODES)
def test_exact_request_and_parsed_results(mode: str) -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        results = run(mode, "get_web_results", "retrieval augmented generation survey", top=3)
    request = route.calls.last.request
    assert request.headers["x-api-key"] == KEY
    assert "authorization" not in request.headers
    assert sent(route) == {
        "query": "retrieval augmented generation survey",
        "type": "auto",
        "numResults": 3,
        "contents": {"highlights": True},
    }
    first, second, third = results.results
    assert isinstance(first, ExaResult)
    assert first.published_date == datetime(2023, 7, 12, tzinfo=timezone.utc)
    assert first.highlights[0] == "RAG combines a retriever & a generator."
    assert first.highlight_scores == [0.51, 0.1, 0.47]
    assert (second.title, second.highlights, second.published_date) == (None, [], None)
    assert third.published_date is None  # an unreadable date is unknown, not an error
    assert results.metadata == {
        "request_id": "b5947044c4b78efa9552a7c89b306d95",
        "resolved_search_type": "neural",
        "cost_dollars": 0.005,
    }


def test_value_is_highlights_then_summary_then_text() -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, json=OK)
        texts = run("sync", "get_text_search_results", "q", top=3)
    assert texts.results == [
        TextSearchResult(
            name="A Survey of Retrieval-Augmented Generation",
            value="RAG combines a retriever & a generator. … Dense retrievers help.",
            link="https://arxiv.org/abs/2307.06435",
        ),
        TextSearchResult(
            name=None, value="Notes on chunking for retrieval.", link="https://example.org/notes"
        ),
        TextSearchResult(
            name="RAG in practice",
            value="Start of the page text.",
            link="https://blog.example.com/rag",
        ),
    ]


@pytest.mark.parametrize(
    ("contents", "wire"),
    [("summary", {"summary": True}), ("text", {"text": {"maxCharacters": 2000}}), ("none", None)],
)
def test_contents_setting(contents: str, wire: Any) -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        run(
            "sync",
            "search",
            "q",
            connector=ExaTextSearch(KEY, contents=contents, search_type="fast"),
        )
    body = sent(route)
    assert body.get("contents") == wire
    assert body["type"] == "fast"


def test_skip_by_slicing_and_never_more_than_top() -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        results = run("sync", "get_search_results", "q", top=1, skip=2)
    assert sent(route)["numResults"] == 3
    assert [r.url for r in results.results] == ["https://blog.example.com/rag"]


def test_beyond_one_hundred_fails_before_any_request() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=OK)
        with pytest.raises(InvalidRequestError):
            run("sync", "search", "q", top=50, skip=51)
    assert route.call_count == 0


# -- errors --------------------------------------------------------------------------------


def err(message: str, tag: str) -> dict[str, Any]:
    return {"requestId": "ab12cd34", "error": message, "tag": tag}


@pytest.mark.parametrize(
    ("status", "body", "error", "code"),
    [
        (
            400,
            err("Invalid request body: numResults must be a number", "INVALID_REQUEST_BODY"),
            BadRequestError,
            "INVALID_REQUEST_BODY",
        ),
        (401, err("Invalid API key", "INVALID_API_KEY"), AuthenticationError, "INVALID_API_KEY"),
        (
            402,
            err("You have run out of credits", "NO_MORE_CREDITS"),
            QuotaExceededError,
            "NO_MORE_CREDITS",
        ),
        (
            402,
            err("API key budget exceeded", "API_KEY_BUDGET_EXCEEDED"),
            QuotaExceededError,
            "API_KEY_BUDGET_EXCEEDED",
        ),
        (
            403,
            err("This feature is not enabled", "FEATURE_DISABLED"),
            PermissionDeniedError,
            "FEATURE_DISABLED",
        ),
        (
            403,
            err("Query contains prohibited content", "PROHIBITED_CONTENT"),
            PermissionDeniedError,
            "PROHIBITED_CONTENT",
        ),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_error_rows_are_mapped_and_not_retried(
    mode: str, status: int, body: dict[str, Any], error: type[Exception], code: str
) -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(status, json=body)
        with pytest.raises(error) as info:
            run(mode, "search", "q")
    assert route.call_count == 1
    exc: Any = info.value
    assert (exc.status_code, exc.code, exc.provider) == (status, code, "exa")
    assert body["error"] in str(exc)
    assert "requestId: ab12cd34" in exc.hints


@pytest.mark.parametrize("mode", MODES)
def test_bare_429_body_is_a_retried_rate_limit(mode: str) -> None:
    limited = httpx.Response(
        429, json={"error": "You've exceeded your rate limit"}, headers={"Retry-After": "0"}
    )
    with respx.mock() as mock:
        route = mock.post(URL).mock(side_effect=[limited, httpx.Response(200, json=OK)])
        assert len(run(mode, "search", "q", top=3)) == 3
    assert route.call_count == 2
    with respx.mock() as mock:
        mock.post(URL).respond(429, json={"error": "You've exceeded your rate limit"})
        with pytest.raises(RateLimitError) as info:
            run(mode, "search", "q")
    assert "exceeded your rate limit" in str(info.value)
    assert info.value.code is None


def test_overloaded_503_is_retried() -> None:
    overloaded = httpx.Response(503, json=err("Service overloaded", "SERVICE_OVERLOADED"))
    with respx.mock() as mock:
        route = mock.post(URL).mock(side_effect=[overloaded, httpx.Response(200, json=OK)])
        assert len(run("sync", "search", "q", top=3)) == 3
    assert route.call_count == 2
    with respx.mock() as mock:
        route = mock.post(URL).respond(504, text="Gateway Timeout")
        with pytest.raises(ServiceUnavailableError):
            run("sync", "search", "q")
    assert route.call_count == 3


@pytest.mark.parametrize(
    "content", [b"<!doctype html><p>oops</p>", b'{"requestId": "x"}', b'{"results": "none"}']
)
def test_a_200_that_is_not_an_exa_answer_is_a_format_error(content: bytes) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, content=content)
        with pytest.raises(ResponseFormatError):
            run("sync", "search", "q")


def test_key_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with respx.mock() as mock:
        mock.post(URL).respond(401, json=err(f"Invalid API key {KEY}", "INVALID_API_KEY"))
        with pytest.raises(AuthenticationError) as info:
            run("sync", "search", "q")
    assert KEY not in caplog.text and KEY not in str(info.value)


# -- real sockets ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_loopback_credits_spent_is_not_retried(mode: str) -> None:
    with serve(Reply(402, err("no credits", "NO_MORE_CREDITS"))) as server:
        with pytest.raises(QuotaExceededError):
            call(ExaTextSearch(KEY, base_url=server.url), mode, "search", "q")
        assert len(server.requests) == 1
        assert server.requests[0].path == "/search"
        assert server.requests[0].headers["x-api-key"] == KEY


@pytest.mark.parametrize("mode", MODES)
def test_loopback_dropped_connection_then_success(mode: str) -> None:
    with serve(Reply(200, OK)) as server:
        server.enqueue(Reply(drop=True))
        results = call(
            ExaTextSearch(KEY, base_url=server.url, max_retry_wait=0.01), mode, "search", "q", top=3
        )
        assert len(results) == 3
        assert len(server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_loopback_timeout(mode: str) -> None:
    with serve(Reply(200, OK, delay=60.0)) as server:
        connector = ExaTextSearch(KEY, base_url=server.url, timeout=0.5, max_retries=0)
        with pytest.raises(SearchTimeoutError):
            call(connector, mode, "search", "q")


@pytest.mark.live
@pytest.mark.skipif("EXA_API_KEY" not in LIVE_ENV, reason="needs EXA_API_KEY")
def test_live_exa() -> None:
    connector = ExaTextSearch(LIVE_ENV["EXA_API_KEY"])
    results = connector.get_text_search_results_sync("retrieval augmented generation survey", top=2)
    connector.close()
    assert 1 <= len(results) <= 2


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("mode", MODES)
def test_a_bom_before_the_json_is_tolerated(mode: str) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, content=BOM + json.dumps(OK).encode())
        results = run(mode, "get_search_results", "q")
    assert [r.url for r in results] == [r["url"] for r in OK["results"] if r]
