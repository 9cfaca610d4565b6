"""BraveTextSearch: exact outgoing requests, paging by pages, markup-free text, every error row."""

from __future__ import annotations

import json
import logging
import os
import re
from datetime import datetime
from typing import Any

import httpx
import pytest
import respx

from tests.conftest import LIVE_ENV
from tests.emulators.web import Reply, call, serve
from textsearch import (
    AuthenticationError,
    BadRequestError,
    BraveTextSearch,
    BraveWebResult,
    ConfigurationError,
    InvalidRequestError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    ServiceUnavailableError,
    TextSearchFilter,
    TextSearchResult,
)

KEY = "BSA-SECRET-brave-0123456789abcdef"
URL = "https://api.search.brave.com/res/v1/web/search"
MODES = ["async", "sync"]

RESULT: dict[str, Any] = {
    "type": "search_result",
    "subtype": "generic",
    "is_live": False,
    "title": "Connection pooling in <strong>httpx</strong> &amp; asyncio",
    "url": "https://www.python-httpx.org/advanced/resource-limits/",
    "is_source_local": False,
    "is_source_both": False,
    "description": "How <strong>httpx</strong> keeps connections alive &#x27;per host&#x27;.",
    "page_age": "2026-10-02T09:15:00",
    "profile": {
        "name": "Python-httpx",
        "url": "https://www.python-httpx.org/advanced/resource-limits/",
        "long_name": "python-httpx.org",
        "img": "https://imgs.search.brave.com/favicon.png",
    },
    "language": "en",
    "family_friendly": True,
    "meta_url": {
        "scheme": "https",
        "netloc": "python-httpx.org",
        "hostname": "www.python-httpx.org",
        "favicon": "https://imgs.search.brave.com/favicon.png",
        "path": "› advanced › resource-limits",
    },
    "thumbnail": {"src": "https://imgs.search.brave.com/t.jpg", "original": None, "logo": False},
    "age": "October 2, 2026",
    "extra_snippets": ["Limits are set with <strong>httpx.Limits</strong>.", None],
    "cluster_type": "some_future_field",
}
SPARSE: dict[str, Any] = {
    "title": "pool timeouts",
    "url": "https://example.org/pool",
    "description": None,
    "page_age": "last Tuesday",
    "meta_url": None,
    "profile": None,
    "extra_snippets": None,
}
OK: dict[str, Any] = {
    "type": "search",
    "query": {
        "original": "httpx connection pool",
        "altered": "httpx connection pooling",
        "show_strict_warning": False,
        "is_navigational": False,
        "spellcheck_off": False,
        "country": "us",
        "more_results_available": True,
    },
    "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}]},
    "web": {"type": "search", "results": [RESULT, None, SPARSE], "family_friendly": True},
}


def error_body(status: int, code: str, detail: str, **meta: Any) -> dict[str, Any]:
    return {
        "type": "ErrorResponse",
        "error": {
            "id": "0c7ab4b1-a2c2-4b1f-9d1e-5a7f3b8e2d10",
            "status": status,
            "code": code,
            "detail": detail,
            "meta": meta,
        },
        "time": 1763900000,
    }


def run(mode: str, method: str, *args: Any, connector: Any = None, **kwargs: Any) -> Any:
    return call(
        connector or BraveTextSearch(KEY, max_retry_wait=0.01), mode, method, *args, **kwargs
    )


# -- construction ------------------------------------------------------------------------


def test_missing_key_names_both_ways() -> None:
    with pytest.raises(ConfigurationError) as info:
        BraveTextSearch()
    assert "api_key=" in str(info.value) and "BRAVE_SEARCH_API_KEY" in str(info.value)


def test_key_from_environment_never_in_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", KEY)
    connector = BraveTextSearch()
    assert KEY not in repr(connector)
    assert repr(connector) == f"BraveTextSearch(endpoint={URL!r})"
    assert connector.open_world is True


@pytest.mark.parametrize("endpoint", ["", "ftp://x", "https://user:pw@api.search.brave.com/"])
def test_bad_endpoint(endpoint: str) -> None:
    with pytest.raises(ConfigurationError):
        BraveTextSearch(KEY, endpoint=endpoint)


@pytest.mark.parametrize(
    "endpoint", ["https://[bad/search", "https://api search/x", "ftp://user:pw@api.test/x", "u:pw@"]
)
def test_a_malformed_endpoint_is_refused_without_showing_a_password(endpoint: str) -> None:
    # httpx escapes a host it cannot hold instead of refusing it; every web connector's URL
    # check (shared) refuses it, and never echoes a value that may carry credentials.
    with pytest.raises(ConfigurationError) as info:
        BraveTextSearch(KEY, endpoint=endpoint)
    assert "pw" not in str(info.value)


# -- success -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_exact_request_and_markup_free_results(mode: str) -> None:
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=OK)
        results = run(mode, "get_web_results", "httpx connection pool", top=5)
    request = route.calls.last.request
    assert route.call_count == 1
    assert request.url.params.multi_items() == [
        ("q", "httpx connection pool"),
        ("count", "5"),
        ("text_decorations", "false"),
    ]
    assert request.headers["X-Subscription-Token"] == KEY
    assert request.headers["Accept"] == "application/json"
    assert KEY not in str(request.url)
    first, second = results.results
    assert isinstance(first, BraveWebResult)
    assert first.title == "Connection pooling in httpx & asyncio"
    assert first.description == "How httpx keeps connections alive 'per host'."
    assert first.extra_snippets == ["Limits are set with httpx.Limits."]
    assert first.page_age == datetime(2026, 10, 2, 9, 15)
    assert first.meta_url is not None and first.meta_url.hostname == "www.python-httpx.org"
    assert first.profile is not None and first.profile.long_name == "python-httpx.org"
    assert first.age == "October 2, 2026"
    assert (second.description, second.page_age, second.extra_snippets) == (None, None, [])
    assert results.total_count is None
    assert results.metadata == {
        "altered_query": "httpx connection pooling",
        "more_results_available": True,
    }


@pytest.mark.parametrize("mode", MODES)
def test_three_result_shapes(mode: str) -> None:
    with respx.mock() as mock:
        mock.get(URL).respond(200, json=OK)
        strings = run(mode, "search", "q")
        texts = run(mode, "get_text_search_results", "q")
    assert list(strings) == ["How httpx keeps connections alive 'per host'.", "pool timeouts"]
    assert texts.results[0] == TextSearchResult(
        name="Connection pooling in httpx & asyncio",
        value="How httpx keeps connections alive 'per host'.",
        link="https://www.python-httpx.org/advanced/resource-limits/",
    )


def test_no_web_key_is_no_results() -> None:
    with respx.mock() as mock:
        mock.get(URL).respond(200, json={"type": "search", "query": {"original": "zzz"}})
        results = run("sync", "search", "zzz", include_total_count=True)
    assert list(results) == []


def test_never_more_than_top() -> None:
    many = {
        "type": "search",
        "web": {"results": [dict(SPARSE, url=f"https://e.org/{i}") for i in range(7)]},
    }
    with respx.mock() as mock:
        mock.get(URL).respond(200, json=many)
        results = run("sync", "get_search_results", "q", top=3)
    assert [r.url for r in results.results] == [f"https://e.org/{i}" for i in range(3)]


def test_extra_snippets_and_endpoint_params_are_sent() -> None:
    connector = BraveTextSearch(KEY, endpoint=URL + "?goggles_id=abc", extra_snippets=True)
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=OK)
        run("sync", "search", "q", connector=connector)
    assert route.calls.last.request.url.params.multi_items() == [
        ("goggles_id", "abc"),
        ("q", "q"),
        ("count", "5"),
        ("text_decorations", "false"),
        ("extra_snippets", "true"),
    ]


GOGGLE_URL = (
    "https://raw.githubusercontent.com/brave/goggles-quickstart/main/goggles/tech_blogs.goggle"
)
INLINE_GOGGLE = "! name: docs first\n$boost=3,site=python-httpx.org\n/ads/$discard"


@pytest.mark.parametrize("mode", MODES)
def test_goggles_are_sent_with_every_search_in_order(mode: str) -> None:
    connector = BraveTextSearch(KEY, goggles=[GOGGLE_URL, f"  {INLINE_GOGGLE}\n"])
    assert connector.goggles == (GOGGLE_URL, INLINE_GOGGLE)
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=OK)
        run(mode, "search", "q", connector=connector)
        run(mode, "get_text_search_results", "q", connector=connector)
    for call_ in route.calls:
        params = call_.request.url.params
        assert params.get_list("goggles") == [GOGGLE_URL, INLINE_GOGGLE]
        assert params["q"] == "q"
    assert BraveTextSearch(KEY, goggles=GOGGLE_URL).goggles == (GOGGLE_URL,)
    assert BraveTextSearch(KEY).goggles == ()


def test_goggles_never_widen_a_site_filter() -> None:
    # A Goggle may boost any host; the site filter still decides what comes back.
    connector = BraveTextSearch(KEY, goggles="$boost=5,site=elsewhere.test")
    rows = [dict(SPARSE, url="https://elsewhere.test/x"), dict(SPARSE, url="https://e.org/y")]
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json={"type": "search", "web": {"results": rows}})
        results = run(
            "sync", "get_search_results", "q", connector=connector,
            filter=TextSearchFilter().equal_to("site", "e.org"),
        )  # fmt: skip
    assert route.calls.last.request.url.params["goggles"] == "$boost=5,site=elsewhere.test"
    assert [r.url for r in results] == ["https://e.org/y"]
    assert results.metadata["filtered_out"] == 1


@pytest.mark.parametrize(
    ("goggles", "words"),
    [
        ("", "non-empty"),
        ("   \n", "non-empty"),
        ([GOGGLE_URL, 3], "non-empty string"),
        (b"$boost=2,site=a.org", "string or a list"),
        ({"a": 1}, "string or a list"),
        ("http://example.org/plain.goggle", "https://"),
        ("https://user:pw@example.org/x.goggle", "must not carry credentials"),
        ("https://[bad/x.goggle", "http(s) URL with a host"),
        ("$boost=2,site=a.org\x00", "control characters"),
        ("/a/$boost=2\n" * 400, "host a long Goggle"),
    ],
)
def test_bad_goggles_are_refused_before_any_request(goggles: Any, words: str) -> None:
    with respx.mock() as mock, pytest.raises(ConfigurationError, match=re.escape(words)) as info:
        BraveTextSearch(KEY, goggles=goggles)
    assert not mock.calls
    assert "pw" not in str(info.value) and KEY not in str(info.value)


# -- paging: offset counts pages -----------------------------------------------------------


def test_skip_becomes_a_page_number() -> None:
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=OK)
        run("sync", "search", "q", top=10, skip=30)
    assert route.calls.last.request.url.params["offset"] == "3"
    assert route.calls.last.request.url.params["count"] == "10"


@pytest.mark.parametrize(
    ("top", "skip", "words"),
    [(10, 5, "multiple of top"), (5, 50, "at most 10 pages"), (21, 0, "maximum of 20")],
)
def test_paging_brave_cannot_serve_fails_before_any_request(
    top: int, skip: int, words: str
) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=OK)
        with pytest.raises(InvalidRequestError) as info:
            run("sync", "search", "q", top=top, skip=skip)
    assert route.call_count == 0
    assert words in str(info.value)


def test_query_longer_than_brave_accepts_fails_before_any_request() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=OK)
        with pytest.raises(InvalidRequestError):
            run("sync", "search", "word " * 51)
        with pytest.raises(InvalidRequestError):
            run("sync", "search", "x" * 395, filter=TextSearchFilter().equal_to("site", "a.com"))
    assert route.call_count == 0


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "error", "code"),
    [
        (
            422,
            error_body(
                422, "SUBSCRIPTION_TOKEN_INVALID", "The provided subscription token is invalid."
            ),
            AuthenticationError,
            "SUBSCRIPTION_TOKEN_INVALID",
        ),
        (
            422,
            error_body(
                422,
                "VALIDATION",
                "Unable to validate request parameter(s)",
                errors=[
                    {
                        "type": "less_than_equal",
                        "loc": ["query", "count"],
                        "msg": "Input should be less than or equal to 20",
                    }
                ],
            ),
            BadRequestError,
            "VALIDATION",
        ),
        (
            422,
            error_body(
                422,
                "VALIDATION",
                "Unable to validate request header(s)",
                errors=[
                    {
                        "type": "missing",
                        "loc": ["header", "x-subscription-token"],
                        "msg": "Field required",
                    }
                ],
            ),
            AuthenticationError,
            "VALIDATION",
        ),
        (
            404,
            error_body(404, "SUBSCRIPTION_NOT_FOUND", "No subscription found for this token."),
            PermissionDeniedError,
            "SUBSCRIPTION_NOT_FOUND",
        ),
        (
            429,
            error_body(
                429,
                "QUOTA_LIMITED",
                "Request quota limit reached",
                plan="Free",
                quota_limit=2000,
                quota_current=2000,
            ),
            QuotaExceededError,
            "QUOTA_LIMITED",
        ),
        (
            403,
            error_body(403, "OPTION_NOT_IN_PLAN", "The option extra_snippets is not in your plan."),
            PermissionDeniedError,
            "OPTION_NOT_IN_PLAN",
        ),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_error_rows_are_mapped_and_not_retried(
    mode: str, status: int, body: dict[str, Any], error: type[Exception], code: str
) -> None:
    with respx.mock() as mock:
        route = mock.get(URL).respond(status, json=body)
        with pytest.raises(error) as info:
            run(mode, "search", "q")
    assert route.call_count == 1  # none of these get better by asking again
    exc: Any = info.value
    assert exc.code == code and exc.status_code == status and exc.provider == "brave"
    assert exc.hints
    assert KEY not in str(exc)


def test_validation_detail_reaches_the_message() -> None:
    body = error_body(
        422,
        "VALIDATION",
        "Unable to validate request parameter(s)",
        errors=[{"loc": ["query", "country"], "msg": "Input should be a supported country"}],
    )
    with respx.mock() as mock:
        mock.get(URL).respond(422, json=body)
        with pytest.raises(BadRequestError) as info:
            run("sync", "search", "q")
    assert "query.country: Input should be a supported country" in str(info.value)


def test_error_list_form_is_read() -> None:
    body = {
        "type": "ErrorResponse",
        "errors": [error_body(422, "SUBSCRIPTION_TOKEN_INVALID", "bad")["error"]],
    }
    with respx.mock() as mock:
        mock.get(URL).respond(422, json=body)
        with pytest.raises(AuthenticationError):
            run("sync", "search", "q")


@pytest.mark.parametrize("mode", MODES)
def test_rate_limit_is_retried_with_retry_after_quota_is_not(mode: str) -> None:
    limited = httpx.Response(
        429,
        json=error_body(429, "RATE_LIMITED", "Request rate limit exceeded for plan", plan="Free"),
        headers={"Retry-After": "0", "X-RateLimit-Reset": "1, 1419704"},
    )
    with respx.mock() as mock:
        route = mock.get(URL).mock(side_effect=[limited, httpx.Response(200, json=OK)])
        results = run(mode, "search", "q")
    assert route.call_count == 2 and len(results) == 2
    with respx.mock() as mock:
        route = mock.get(URL).respond(
            429, json=error_body(429, "RATE_LIMITED", "slow down"), headers={"Retry-After": "0"}
        )
        with pytest.raises(RateLimitError) as info:
            run(mode, "search", "q")
    assert route.call_count == 3  # the first try and two retries
    assert info.value.retry_after == 0


def test_server_error_is_retried_then_service_unavailable() -> None:
    with respx.mock() as mock:
        route = mock.get(URL).respond(503, text="upstream unavailable")
        with pytest.raises(ServiceUnavailableError):
            run("sync", "search", "q")
    assert route.call_count == 3


@pytest.mark.parametrize(
    "content",
    [
        b"<html><body>Just a moment...</body></html>",
        b"[]",
        b'{"status": "ok"}',
        b"",
        b'{"type": "search", "web": {"results": 5}}',
    ],
)
def test_a_200_that_is_not_a_brave_search_is_a_format_error(content: bytes) -> None:
    with respx.mock() as mock:
        mock.get(URL).respond(200, content=content)
        with pytest.raises(ResponseFormatError):
            run("sync", "search", "q")


def test_error_response_inside_a_200_is_mapped() -> None:
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=error_body(429, "QUOTA_LIMITED", "quota"))
        with pytest.raises(QuotaExceededError):
            run("sync", "search", "q")
    assert route.call_count == 1


def test_key_never_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with respx.mock() as mock:
        mock.get(URL).respond(
            422, json=error_body(422, "SUBSCRIPTION_TOKEN_INVALID", f"bad token {KEY}")
        )
        with pytest.raises(AuthenticationError) as info:
            run("sync", "search", "q")
    assert KEY not in caplog.text and KEY not in str(info.value)


# -- real sockets: retries and timeouts ----------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_loopback_rate_limit_then_success_and_quota_stops(mode: str) -> None:
    with serve(Reply(200, OK)) as server:
        server.enqueue(
            Reply(429, error_body(429, "RATE_LIMITED", "slow down"), {"Retry-After": "0.05"})
        )
        connector = BraveTextSearch(KEY, endpoint=server.url + "/res/v1/web/search")
        results = call(connector, mode, "search", "q", top=2)
        assert len(results) == 2
        assert len(server.requests) == 2
        assert server.requests[1].at - server.requests[0].at >= 0.05
        assert server.requests[0].headers["x-subscription-token"] == KEY
        assert dict(server.requests[0].query)["text_decorations"] == "false"

        server.enqueue(Reply(429, error_body(429, "QUOTA_LIMITED", "spent")))
        connector = BraveTextSearch(KEY, endpoint=server.url + "/res/v1/web/search")
        with pytest.raises(QuotaExceededError):
            call(connector, mode, "search", "q")
        assert len(server.requests) == 3


@pytest.mark.parametrize("mode", MODES)
def test_loopback_slow_answer_times_out(mode: str) -> None:
    with serve(Reply(200, OK, delay=60.0)) as server:
        connector = BraveTextSearch(
            KEY,
            endpoint=server.url + "/res/v1/web/search",
            timeout=0.5,
            max_retries=1,
            max_retry_wait=0.01,
        )
        with pytest.raises(SearchTimeoutError):
            call(connector, mode, "search", "q")
        assert server.received(2) == 2


# -- live --------------------------------------------------------------------------------


@pytest.mark.live
@pytest.mark.skipif("BRAVE_SEARCH_API_KEY" not in LIVE_ENV, reason="needs BRAVE_SEARCH_API_KEY")
def test_live_brave() -> None:
    connector = BraveTextSearch(LIVE_ENV["BRAVE_SEARCH_API_KEY"])
    results = connector.get_text_search_results_sync(
        "python httpx", top=3, filter=TextSearchFilter().equal_to("site", "python-httpx.org")
    )
    connector.close()
    assert 1 <= len(results) <= 3
    assert all("<strong>" not in (r.value or "") for r in results)
    assert os.environ.get("BRAVE_SEARCH_API_KEY") is None  # the fixture keeps it out of tests


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("mode", MODES)
def test_a_bom_before_the_json_is_tolerated(mode: str) -> None:
    with respx.mock() as mock:
        mock.get(URL).respond(200, content=BOM + json.dumps(OK).encode())
        results = run(mode, "get_search_results", "q")
    assert [r.url for r in results] == [r["url"] for r in OK["web"]["results"] if r][:20]


def test_rows_outside_the_site_filter_are_dropped() -> None:
    rows = [
        dict(SPARSE, url="https://docs.python-httpx.org/a"),
        dict(SPARSE, url="https://python-httpx.org.mirror.test/b"),
        dict(SPARSE, url="https://ads.python-httpx.org/c"),
        dict(SPARSE, url="https://python-httpx.org/d"),
    ]
    search_filter = (
        TextSearchFilter()
        .equal_to("site", "python-httpx.org")
        .equal_to("exclude_site", "ads.python-httpx.org")
    )
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json={"type": "search", "web": {"results": rows}})
        results = run("sync", "get_search_results", "q", top=5, filter=search_filter)
    assert route.calls.last.request.url.params["q"] == (
        "q site:python-httpx.org -site:ads.python-httpx.org"
    )
    assert [r.url for r in results] == [
        "https://docs.python-httpx.org/a",
        "https://python-httpx.org/d",
    ]
    assert results.metadata["filtered_out"] == 2


# -- X-RateLimit-Reset: Brave's only "how long to wait" --------------------------------------


def _recording(**kwargs: Any) -> tuple[BraveTextSearch, list[float]]:
    connector = BraveTextSearch(KEY, **kwargs)
    waits: list[float] = []
    connector._engine.sleep = waits.append

    async def asleep(seconds: float) -> None:
        waits.append(seconds)

    connector._engine.async_sleep = asleep
    return connector, waits


def _limited(reset: str, **headers: str) -> httpx.Response:
    return httpx.Response(
        429,
        json=error_body(429, "RATE_LIMITED", "Request rate limit exceeded for plan"),
        headers={"X-RateLimit-Limit": "1, 15000", "X-RateLimit-Reset": reset, **headers},
    )


@pytest.mark.parametrize("mode", MODES)
def test_rate_limit_waits_the_first_x_ratelimit_reset(mode: str) -> None:
    connector, waits = _recording()
    with respx.mock() as mock:
        route = mock.get(URL).mock(
            side_effect=[_limited("2, 1419704"), httpx.Response(200, json=OK)]
        )
        results = call(connector, mode, "search", "q")
    assert route.call_count == 2 and len(results) == 2
    assert waits == [2.0]  # the per-second window, not the monthly one (nor a random backoff)


def test_retry_after_wins_over_x_ratelimit_reset() -> None:
    connector, waits = _recording()
    with respx.mock() as mock:
        limited = _limited("1, 1419704", **{"Retry-After": "3"})
        mock.get(URL).mock(side_effect=[limited, httpx.Response(200, json=OK)])
        call(connector, "sync", "search", "q")
    assert waits == [3.0]


@pytest.mark.parametrize("mode", MODES)
def test_a_reset_longer_than_max_retry_wait_raises_at_once_with_retry_after(mode: str) -> None:
    connector, waits = _recording(max_retry_wait=5.0)
    with respx.mock() as mock:
        route = mock.get(URL).mock(return_value=_limited("30, 1419704"))
        with pytest.raises(RateLimitError) as info:
            call(connector, mode, "search", "q")
    assert route.call_count == 1 and waits == []
    assert info.value.retry_after == 30.0
    assert "max_retry_wait" in " ".join(info.value.hints)


def test_a_reset_past_the_deadline_is_not_waited() -> None:
    connector, waits = _recording(deadline=1.0)
    with respx.mock() as mock:
        route = mock.get(URL).mock(return_value=_limited("2, 1419704"))
        with pytest.raises(RateLimitError) as info:
            call(connector, "sync", "search", "q")
    assert route.call_count == 1 and waits == []
    assert info.value.retry_after == 2.0


@pytest.mark.parametrize("reset", ["soon, 1419704", "-1, 5", "nan", ""])
def test_an_unreadable_reset_falls_back_to_the_backoff(reset: str) -> None:
    connector, waits = _recording(max_retry_wait=0.5)
    connector._engine.random = lambda: 1.0  # the top of the jitter window
    with respx.mock() as mock:
        mock.get(URL).mock(side_effect=[_limited(reset), httpx.Response(200, json=OK)])
        call(connector, "sync", "search", "q")
    assert waits == [0.5]


def test_a_spent_quota_takes_no_retry_after_from_the_monthly_reset() -> None:
    connector, waits = _recording()
    spent = httpx.Response(
        429,
        json=error_body(429, "QUOTA_LIMITED", "spent"),
        headers={"X-RateLimit-Reset": "0, 1419704"},
    )
    with respx.mock() as mock:
        route = mock.get(URL).mock(return_value=spent)
        with pytest.raises(QuotaExceededError) as info:
            call(connector, "sync", "search", "q")
    assert route.call_count == 1 and waits == []
    assert info.value.retry_after is None


@pytest.mark.parametrize(("mode", "transport"), [("sync", "httpx"), ("async", "aiohttp")])
def test_loopback_waits_the_reset_for_real(mode: str, transport: str) -> None:
    with serve(Reply(200, OK)) as server:
        server.enqueue(
            Reply(
                429,
                error_body(429, "RATE_LIMITED", "slow down"),
                {"X-RateLimit-Reset": "1, 86400", "X-RateLimit-Remaining": "0, 14999"},
            )
        )
        connector = BraveTextSearch(
            KEY, endpoint=server.url + "/res/v1/web/search", transport=transport
        )
        assert len(call(connector, mode, "search", "q", top=2)) == 2
        first, second = server.requests
    assert second.headers["user-agent"].endswith(f"({transport})") or transport == "httpx"
    assert second.at - first.at >= 1.0


def test_text_shapes_read_only_what_they_use_and_agree_with_the_native_results() -> None:
    """The text path skips validating unused fields, yet maps exactly like the native one."""
    body: dict[str, Any] = {
        "type": "search",
        "query": {"original": "q", "altered": "q2", "more_results_available": True},
        "web": {
            "type": "search",
            "results": [
                {
                    "title": "A &amp; <strong>B</strong>",
                    "url": "https://docs.a.example/x",
                    "description": "The <strong>alpha</strong> &quot;doc&quot;",
                    "page_age": "not a date at all",  # an unknown date, unused here
                },
                None,
                {"title": "Other site", "url": "https://b.example/y", "description": "beta"},
                {"title": "C", "url": "https://a.example/z", "description": "gamma"},
            ],
        },
    }
    only_a = TextSearchFilter().equal_to("site", "a.example")
    brave = BraveTextSearch("k" * 20, max_retries=0)
    with respx.mock() as mock:
        mock.get(URL).respond(200, json=body)
        texts = brave.get_text_search_results_sync("q", top=5, filter=only_a)
        strings = brave.search_sync("q", top=5, filter=only_a)
        natives = brave.get_search_results_sync("q", top=5, filter=only_a)
    assert [(r.name, r.value, r.link) for r in texts] == [
        ("A & B", 'The alpha "doc"', "https://docs.a.example/x"),
        ("C", "gamma", "https://a.example/z"),
    ]
    assert list(strings) == ['The alpha "doc"', "gamma"]
    assert texts.metadata["filtered_out"] == 1 and texts.metadata["altered_query"] == "q2"
    assert [(n.title, n.description, n.url) for n in natives] == [
        (r.name, r.value, r.link) for r in texts
    ]
