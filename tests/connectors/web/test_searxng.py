"""SearxngTextSearch: exact requests (respx) and an emulated instance over real sockets.

A SearXNG instance cannot be installed here, so the integration tests use
``tests/emulators/searxng.py``, a loopback server that speaks SearXNG's JSON API.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import httpx
import pytest
import respx

from tests.conftest import LIVE_ENV
from tests.emulators.searxng import make_result, searxng
from tests.emulators.web import call
from textsearch import (
    ConfigurationError,
    PermissionDeniedError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearxngResult,
    SearxngTextSearch,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)

BASE = "https://searx.example.org"
URL = BASE + "/search"
MODES = ["async", "sync"]

OK: dict[str, Any] = {
    "query": "sqlite fts5",
    "number_of_results": 0,
    "results": [make_result(0), make_result(1), None, make_result(2)],
    "answers": [],
    "corrections": [],
    "infoboxes": [],
    "suggestions": ["sqlite fts5 bm25"],
    "unresponsive_engines": [["google", "CAPTCHA"]],
}


def run(mode: str, method: str, *args: Any, connector: Any = None, **kwargs: Any) -> Any:
    return call(
        connector or SearxngTextSearch(BASE, max_retry_wait=0.01), mode, method, *args, **kwargs
    )


# -- construction ------------------------------------------------------------------------


def test_missing_url_names_both_ways() -> None:
    with pytest.raises(ConfigurationError) as info:
        SearxngTextSearch()
    assert "base_url=" in str(info.value) and "SEARXNG_URL" in str(info.value)


def test_url_from_environment_and_no_key_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEARXNG_URL", BASE + "/")
    connector = SearxngTextSearch()
    assert connector.base_url == BASE
    assert repr(connector) == f"SearxngTextSearch(base_url={BASE!r}, auth_header=None)"


def test_optional_proxy_key_goes_in_its_header_only() -> None:
    secret = "proxy-SECRET-0123456789"
    connector = SearxngTextSearch(BASE, api_key=secret, auth_header="X-Token")
    assert secret not in repr(connector)
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=OK)
        run("sync", "search", "q", connector=connector)
    request = route.calls.last.request
    assert request.headers["X-Token"] == secret and secret not in str(request.url)
    bearer = SearxngTextSearch(BASE, api_key=secret)
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=OK)
        run("sync", "search", "q", connector=bearer)
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {secret}"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"base_url": "searx.example.org"},
        {"base_url": BASE, "auth_header": "X-Token"},
        {"base_url": BASE, "auth_header": "bad header"},
        {"base_url": BASE, "max_pages": 0},
    ],
)
def test_bad_settings(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        SearxngTextSearch(**kwargs)


# -- requests and parsing ------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_exact_request_and_markup_free_results(mode: str) -> None:
    search_filter = (
        TextSearchFilter()
        .equal_to("site", "site0.example|site1.example|site2.example")
        .equal_to("freshness", "month")
        .equal_to("language", "en")
        .equal_to("safe_search", "moderate")
        .equal_to("categories", "general,it")
    )
    with respx.mock() as mock:
        route = mock.get(URL).respond(200, json=OK)
        results = run(mode, "get_web_results", "fts5 bm25", top=3, filter=search_filter)
    assert route.call_count == 1
    assert route.calls.last.request.url.params.multi_items() == [
        ("q", "fts5 bm25 (site:site0.example OR site:site1.example OR site:site2.example)"),
        ("format", "json"),
        ("time_range", "month"),
        ("language", "en"),
        ("safesearch", "1"),
        ("categories", "general,it"),
    ]
    first = results.results[0]
    assert isinstance(first, SearxngResult)
    assert first.title == "Result 0 & friends"
    assert first.content == "Snippet 0 of the corpus."
    assert first.engines == ["duckduckgo", "brave"]
    assert first.published_date is not None and results.results[1].published_date is None
    assert len(results.results) == 3  # the null row is skipped
    assert results.metadata["unresponsive_engines"] == [["google", "CAPTCHA"]]
    assert results.metadata["suggestions"] == ["sqlite fts5 bm25"]


def test_three_shapes() -> None:
    with respx.mock() as mock:
        mock.get(URL).respond(200, json=OK)
        strings = run("sync", "search", "q", top=2)
        texts = run("sync", "get_text_search_results", "q", top=1)
    assert list(strings) == ["Snippet 0 of the corpus.", "Snippet 1 of the corpus."]
    assert texts.results == [
        TextSearchResult(
            name="Result 0 & friends",
            value="Snippet 0 of the corpus.",
            link="https://site0.example/page-0",
        )
    ]


def test_date_range_and_country_are_refused_before_any_request() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(URL).respond(200, json=OK)
        for search_filter in (
            TextSearchFilter().equal_to("freshness", "2025-01-01..2025-02-01"),
            TextSearchFilter().equal_to("country", "DE"),
        ):
            with pytest.raises(UnsupportedFilterError):
                run("sync", "search", "q", filter=search_filter)
    assert route.call_count == 0


def test_403_says_how_to_enable_json() -> None:
    with respx.mock() as mock:
        route = mock.get(URL).respond(403, text="<html>403 Forbidden</html>")
        with pytest.raises(PermissionDeniedError) as info:
            run("sync", "search", "q")
    assert route.call_count == 1
    assert any("search.formats" in h for h in info.value.hints)


@pytest.mark.parametrize(
    "content", [b"<!DOCTYPE html><title>SearXNG</title>", b"{}", b'{"results": 3}', b""]
)
def test_a_200_that_is_not_the_json_format_is_a_format_error(content: bytes) -> None:
    with respx.mock() as mock:
        mock.get(URL).respond(200, content=content)
        with pytest.raises(ResponseFormatError):
            run("sync", "search", "q")


def test_rate_limit_is_retried_with_retry_after() -> None:
    limited = httpx.Response(429, text="Too Many Requests", headers={"Retry-After": "0"})
    with respx.mock() as mock:
        route = mock.get(URL).mock(side_effect=[limited, httpx.Response(200, json=OK)])
        assert len(run("sync", "search", "q", top=3)) == 3
    assert route.call_count == 2
    with respx.mock() as mock:
        mock.get(URL).respond(429, text="Too Many Requests")
        with pytest.raises(RateLimitError):
            run("sync", "search", "q")


# -- an emulated instance over real sockets --------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_top_and_skip_are_served_by_fetching_pages(mode: str) -> None:
    with searxng(total=25, page_size=10) as instance:
        results = call(
            SearxngTextSearch(instance.url), mode, "get_search_results", "q", top=5, skip=12
        )
        assert [r.url for r in results.results] == [make_result(i)["url"] for i in range(12, 17)]
        assert [r["query"].get("pageno") for r in instance.requests] == [None, "2"]
        assert results.metadata["pages"] == 2
        assert all(r["query"]["format"] == "json" for r in instance.requests)


@pytest.mark.parametrize("mode", MODES)
def test_overlapping_pages_are_deduplicated_and_the_end_stops_paging(mode: str) -> None:
    with searxng(total=12, page_size=5, overlap=2) as instance:
        results = call(SearxngTextSearch(instance.url), mode, "get_search_results", "q", top=20)
        urls = [r.url for r in results.results]
        assert urls == [make_result(i)["url"] for i in range(12)]
        assert len(set(urls)) == len(urls)
        # pages 1-3 hold everything; page 4 is empty, so paging stops there
        assert len(instance.requests) == 4


def test_max_pages_bounds_the_requests() -> None:
    with searxng(total=100, page_size=3) as instance:
        results = call(SearxngTextSearch(instance.url, max_pages=2), "sync", "search", "q", top=10)
        assert len(results) == 6
        assert len(instance.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_instance_with_json_off_answers_403(mode: str) -> None:
    with searxng(json_enabled=False) as instance:
        with pytest.raises(PermissionDeniedError) as info:
            call(SearxngTextSearch(instance.url), mode, "search", "q")
        assert len(instance.requests) == 1
    assert "403" in str(info.value)


def test_bot_check_page_is_a_format_error() -> None:
    with searxng(bot_check=True) as instance:
        with pytest.raises(ResponseFormatError) as info:
            call(SearxngTextSearch(instance.url), "sync", "search", "q")
    assert any("json" in h for h in info.value.hints)


@pytest.mark.parametrize("mode", MODES)
def test_loopback_429_then_success(mode: str) -> None:
    with searxng(status_script=[429]) as instance:
        results = call(
            SearxngTextSearch(instance.url, max_retry_wait=0.01), mode, "search", "q", top=3
        )
        assert len(results) == 3
        assert len(instance.requests) == 2


def test_loopback_timeout() -> None:
    with searxng(delay=5.0) as instance:
        connector = SearxngTextSearch(instance.url, timeout=0.5, max_retries=0)
        with pytest.raises(SearchTimeoutError):
            call(connector, "sync", "search", "q")


def test_no_query_text_in_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with searxng() as instance:
        call(SearxngTextSearch(instance.url), "sync", "search", "private medical question")
    assert "private medical question" not in caplog.text


@pytest.mark.live
@pytest.mark.skipif("SEARXNG_URL" not in LIVE_ENV, reason="needs SEARXNG_URL")
def test_live_searxng() -> None:
    connector = SearxngTextSearch(LIVE_ENV["SEARXNG_URL"])
    results = connector.get_text_search_results_sync("sqlite fts5", top=3)
    connector.close()
    assert len(results) <= 3


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("mode", MODES)
def test_a_bom_before_the_json_is_tolerated(mode: str) -> None:
    with respx.mock() as mock:
        mock.get(URL).respond(200, content=BOM + json.dumps(OK).encode())
        results = run(mode, "get_search_results", "q", top=3)
    assert [r.url for r in results] == [r["url"] for r in OK["results"] if r][:3]


def page_of(urls: list[str]) -> dict[str, Any]:
    rows = []
    for i, url in enumerate(urls):
        row = make_result(i)
        row["url"] = url
        rows.append(row)
    return {"query": "q", "number_of_results": 0, "results": rows}


@pytest.mark.parametrize("mode", MODES)
def test_site_filters_hold_even_when_an_engine_ignores_the_operators(mode: str) -> None:
    # A metasearch instance forwards site:/-site: to engines that do not all honour them;
    # page 1 here is what such an engine gives back: mostly other domains.
    first = page_of(
        [
            "https://www.sqlite.org/fts5.html",
            "https://example.com/fts5-tutorial",
            "https://ads.sqlite.org/buy",
            "https://notsqlite.org/fts5",
            "not a url",
        ]
    )
    second = page_of(["https://sqlite.org/lang.html", "https://sqlite.org.evil.test/x"])
    search_filter = (
        TextSearchFilter().equal_to("site", "sqlite.org").equal_to("exclude_site", "ads.sqlite.org")
    )
    with respx.mock() as mock:
        route = mock.get(URL).mock(
            side_effect=[httpx.Response(200, json=first), httpx.Response(200, json=second)]
        )
        results = run(mode, "get_web_results", "fts5", top=2, filter=search_filter)
    assert [r.url for r in results] == [
        "https://www.sqlite.org/fts5.html",
        "https://sqlite.org/lang.html",
    ]
    assert route.call_count == 2  # page 1 kept one row, so page 2 was fetched
    assert route.calls[0].request.url.params["q"] == "fts5 site:sqlite.org -site:ads.sqlite.org"
    assert route.calls[1].request.url.params["pageno"] == "2"
    assert results.metadata["filtered_out"] == 5
