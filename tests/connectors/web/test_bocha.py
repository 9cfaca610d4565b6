"""BochaTextSearch: exact outgoing requests, success shapes, both error envelopes (respx)."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
import respx

from tests.conftest import LIVE_ENV
from tests.emulators.web import Reply, call, serve
from textsearch import (
    AuthenticationError,
    BadRequestError,
    BochaTextSearch,
    BochaWebPage,
    ConfigurationError,
    InvalidRequestError,
    PermissionDeniedError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    ServiceUnavailableError,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)

KEY = "sk-SECRET-bocha-0123456789abcdef"
URL = "https://api.bochaai.com/v1/web-search"
MODES = ["async", "sync"]
CST = timezone(timedelta(hours=8))

PAGE: dict[str, Any] = {
    "id": "https://api.bochaai.com/v1/#WebPages.0",
    "name": "主流向量数据库对比：Milvus、Qdrant 与 pgvector",
    "url": "https://tech.example.cn/posts/vector-db-compare",
    "displayUrl": "https://tech.example.cn/posts/vector-db-compare",
    "snippet": "本文从索引类型、过滤能力与运维成本三方面比较……",
    "summary": "文章比较了三种向量数据库……",
    "siteName": "示例技术社区",
    "siteIcon": "https://th.bochaai.com/favicon?domain_url=https://tech.example.cn/posts/x",
    "datePublished": "2025-03-18T10:20:00+08:00",
    "dateLastCrawled": "2025-03-18T10:20:00Z",
    "cachedPageUrl": None,
    "language": None,
    "isFamilyFriendly": None,
    "isNavigational": None,
}
PAGE_NO_SUMMARY: dict[str, Any] = {
    "id": None,
    "name": "pgvector 入门",
    "url": "https://db.example.cn/pgvector",
    "displayUrl": "db.example.cn/pgvector",
    "snippet": "pgvector 是 PostgreSQL 的向量扩展。",
    "siteName": "DB 示例",
    "dateLastCrawled": "2024-12-01T08:00:00Z",
}
OK: dict[str, Any] = {
    "code": 200,
    "log_id": "7f3c2a91d0e4b655",
    "msg": None,
    "data": {
        "_type": "SearchResponse",
        "queryContext": {"originalQuery": "向量数据库 选型"},
        "webPages": {
            "webSearchUrl": "https://bochaai.com/search?q=向量数据库 选型",
            "totalEstimatedMatches": 1250000,
            "value": [PAGE, PAGE_NO_SUMMARY],
            "someResultsRemoved": True,
        },
        "images": {
            "id": None,
            "readLink": None,
            "webSearchUrl": None,
            "value": [
                {
                    "thumbnailUrl": "https://img.example.cn/a.jpg",
                    "contentUrl": "https://img.example.cn/a.jpg",
                    "hostPageUrl": "https://tech.example.cn/posts/vector-db-compare",
                    "width": 0,
                    "height": 0,
                }
            ],
        },
        "videos": None,
    },
}
EMPTY: dict[str, Any] = {
    "code": 200,
    "log_id": "a1",
    "msg": None,
    "data": {"_type": "SearchResponse", "webPages": None, "images": None, "videos": None},
}


def run(
    mode: str, method: str, *args: Any, connector: BochaTextSearch | None = None, **kw: Any
) -> Any:
    return call(connector or BochaTextSearch(KEY), mode, method, *args, **kw)


def sent_json(route: respx.Route) -> dict[str, Any]:
    assert route.call_count == 1
    return json.loads(route.calls.last.request.content)  # type: ignore[no-any-return]


# -- construction ------------------------------------------------------------------------


def test_missing_key_names_both_ways() -> None:
    with pytest.raises(ConfigurationError) as info:
        BochaTextSearch()
    assert "api_key=" in str(info.value) and "BOCHA_API_KEY" in str(info.value)


def test_key_from_environment_and_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOCHA_API_KEY", KEY)
    connector = BochaTextSearch(base_url="https://api.bocha.cn/")
    assert KEY not in repr(connector)
    with respx.mock() as mock:
        route = mock.post("https://api.bocha.cn/v1/web-search").respond(200, json=OK)
        run("sync", "search", "q", connector=connector)
    assert route.calls.last.request.headers["Authorization"] == f"Bearer {KEY}"


@pytest.mark.parametrize(
    "kwargs", [{"base_url": "api.bochaai.com"}, {"summary": "yes"}, {"max_retry_wait": -2}]
)
def test_bad_settings(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        BochaTextSearch(KEY, **kwargs)


# -- the outgoing request ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_exact_request(mode: str) -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        run(mode, "search", "向量数据库 选型", top=10, skip=20)
    request = route.calls.last.request
    assert request.method == "POST"
    assert str(request.url) == URL
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert request.headers["Content-Type"] == "application/json"
    assert KEY not in str(request.url)
    assert sent_json(route) == {"query": "向量数据库 选型", "count": 10, "summary": True, "page": 3}


def test_summary_off_and_first_page() -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        run("sync", "search", "q", top=50, connector=BochaTextSearch(KEY, summary=False))
    assert sent_json(route) == {"query": "q", "count": 50, "summary": False}


def test_skip_must_be_a_multiple_of_top() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=OK)
        with pytest.raises(InvalidRequestError) as info:
            run("sync", "search", "q", top=10, skip=15)
        with pytest.raises(InvalidRequestError):
            run("sync", "search", "q", top=51)
    assert route.call_count == 0
    assert "multiple of top" in str(info.value)


@pytest.mark.parametrize("mode", MODES)
def test_filters_become_body_fields(mode: str) -> None:
    search_filter = (
        TextSearchFilter()
        .equal_to("freshness", "oneweek")
        .equal_to("site", "qq.com|m.163.com")
        .equal_to("include", "https://m.163.com/")
        .equal_to("exclude", "spam.example, ads.example")
        .equal_to("exclude", "spam.example")
    )
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        run(mode, "search", "q", top=5, filter=search_filter)
    assert sent_json(route) == {
        "query": "q",
        "count": 5,
        "summary": True,
        "freshness": "oneWeek",
        # site AND include: only the domain both allow
        "include": "m.163.com",
        "exclude": "spam.example|ads.example",
    }


def test_freshness_dates_and_range() -> None:
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        connector = BochaTextSearch(KEY)
        for value in ("2025-01-01", "2025-01-01..2025-03-31", "noLimit"):
            connector.search_sync("q", filter=TextSearchFilter().equal_to("freshness", value))
        connector.close()
    assert [json.loads(c.request.content)["freshness"] for c in route.calls] == [
        "2025-01-01",
        "2025-01-01..2025-03-31",
        "noLimit",
    ]


@pytest.mark.parametrize(
    "search_filter",
    [
        TextSearchFilter().equal_to("mkt", "zh-CN"),
        TextSearchFilter().any_tag_equal_to("site", "qq.com"),
        TextSearchFilter().equal_to("freshness", "lastWeek"),
        TextSearchFilter().equal_to("freshness", "2025-13-01"),
        TextSearchFilter().equal_to("freshness", "2025-03-01..2025-01-01"),
        TextSearchFilter().equal_to("freshness", 7),
        TextSearchFilter().equal_to("site", "not a domain"),
        TextSearchFilter().equal_to("site", ""),
        TextSearchFilter().equal_to("site", "a.com").equal_to("site", "b.com"),
        TextSearchFilter().equal_to("include", "|".join(f"d{i}.example" for i in range(21))),
        TextSearchFilter().equal_to("exclude", ",".join(f"d{i}.example" for i in range(21))),
    ],
)
def test_bad_filters_fail_before_any_request(search_filter: TextSearchFilter) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).respond(200, json=OK)
        with pytest.raises(InvalidRequestError):
            run("sync", "search", "q", filter=search_filter)
    assert route.call_count == 0


def test_unsupported_field_names_the_supported_ones() -> None:
    with pytest.raises(UnsupportedFilterError) as info:
        BochaTextSearch(KEY).search_sync("q", filter=TextSearchFilter().equal_to("mkt", "x"))
    assert set(info.value.supported_fields) == {
        "freshness",
        "site",
        "include",
        "exclude",
        "exclude_site",
    }


def test_twenty_domains_are_accepted() -> None:
    domains = "|".join(f"d{i}.example" for i in range(20))
    with respx.mock() as mock:
        route = mock.post(URL).respond(200, json=OK)
        run("sync", "search", "q", filter=TextSearchFilter().equal_to("include", domains))
    assert sent_json(route)["include"] == domains


# -- success shapes ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_web_pages(mode: str) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, json=OK)
        pages = run(mode, "get_web_pages", "向量数据库 选型", include_total_count=True)
    assert pages.total_count == 1250000
    assert pages.metadata == {
        "log_id": "7f3c2a91d0e4b655",
        "web_search_url": "https://bochaai.com/search?q=向量数据库 选型",
        "some_results_removed": True,
    }
    first = pages[0]
    assert isinstance(first, BochaWebPage)
    assert first.site_name == "示例技术社区"
    assert first.site_icon is not None and first.site_icon.startswith("https://th.bochaai.com/")
    assert first.summary == "文章比较了三种向量数据库……"
    assert first.date_published == datetime(2025, 3, 18, 10, 20, tzinfo=CST)
    assert first.date_published.utcoffset() == timedelta(hours=8)
    # "Z" on dateLastCrawled is Beijing time, not UTC
    assert first.date_last_crawled == datetime(2025, 3, 18, 10, 20, tzinfo=CST)
    assert pages[1].id is None and pages[1].summary is None


@pytest.mark.parametrize("mode", MODES)
def test_value_is_summary_when_on_else_snippet(mode: str) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, json=OK)
        on = run(mode, "get_text_search_results", "q")
        off = run(mode, "search", "q", connector=BochaTextSearch(KEY, summary=False))
    assert on[0] == TextSearchResult(name=PAGE["name"], value=PAGE["summary"], link=PAGE["url"])
    assert on[1].value == PAGE_NO_SUMMARY["snippet"]  # no summary: falls back to the snippet
    assert list(off) == [PAGE["snippet"], PAGE_NO_SUMMARY["snippet"]]


@pytest.mark.parametrize("mode", MODES)
def test_no_web_pages_is_empty(mode: str) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, json=EMPTY)
        pages = run(mode, "get_web_pages", "q", include_total_count=True)
    assert len(pages) == 0 and pages.total_count == 0


# -- errors --------------------------------------------------------------------------------

ERRORS: list[tuple[int, dict[str, Any], type[Exception]]] = [
    (400, {"code": "400", "message": "Missing parameter query", "log_id": "l1"}, BadRequestError),
    (
        400,
        {"code": "400", "message": "The API KEY is missing", "log_id": "l2"},
        AuthenticationError,
    ),
    (401, {"code": "401", "message": "Invalid API KEY", "log_id": "l3"}, AuthenticationError),
    # 401 is always AuthenticationError (issue #3), also for "no permission for this API"
    (401, {"code": "401", "message": "无接口调用权限", "log_id": "l4"}, AuthenticationError),
    (
        403,
        {"code": "403", "message": "You do not have enough money", "log_id": "l5"},
        QuotaExceededError,
    ),
    (403, {"code": "403", "message": "Forbidden", "log_id": "l9"}, PermissionDeniedError),
    (
        429,
        {"code": "429", "message": "You have reached the request limit", "log_id": "l6"},
        RateLimitError,
    ),
    (
        500,
        {"code": "500", "message": "internal server error", "log_id": "l7"},
        ServiceUnavailableError,
    ),
    # the other envelope: numeric code, "msg"
    (403, {"code": 403, "msg": "You do not have enough money", "log_id": "l8"}, QuotaExceededError),
    (401, {"code": 401, "msg": "Invalid API KEY", "data": None}, AuthenticationError),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("status", "body", "error"), ERRORS)
@pytest.mark.parametrize("on_200", [False, True])
def test_error_rows_by_status_and_inside_200(
    mode: str,
    status: int,
    body: dict[str, Any],
    error: type[Exception],
    on_200: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    with respx.mock() as mock:
        route = mock.post(URL).respond(200 if on_200 else status, json=body)
        with pytest.raises(error) as info:
            run(mode, "search", "q", connector=BochaTextSearch(KEY, max_retries=0))
    assert route.call_count == 1
    exc: Any = info.value
    assert exc.status_code == status
    assert exc.provider == "bocha"
    message = body.get("message") or body.get("msg")
    assert message in str(exc)
    assert KEY not in str(exc) and KEY not in repr(exc)
    for record in caplog.records:
        assert KEY not in record.getMessage()
    if body.get("log_id"):
        assert any(body["log_id"] in hint for hint in exc.hints)


def test_body_level_429_is_retried() -> None:
    with respx.mock() as mock:
        route = mock.post(URL).mock(
            side_effect=[
                respx.MockResponse(
                    200, json={"code": 429, "msg": "You have reached the request limit"}
                ),
                respx.MockResponse(200, json=OK),
            ]
        )
        connector = BochaTextSearch(KEY, max_retry_wait=0.01)
        assert len(run("sync", "search", "q", connector=connector)) == 2
    assert route.call_count == 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json",
        b"[]",
        b'{"code": 200}',
        b'{"code": 200, "data": {"webPages": {"value": {}}}}',
    ],
)
def test_bad_success_bodies(mode: str, content: bytes) -> None:
    with respx.mock() as mock:
        mock.post(URL).respond(200, content=content)
        with pytest.raises(ResponseFormatError):
            run(mode, "search", "q")


def test_an_empty_date_does_not_sink_the_other_results() -> None:
    # Bocha sends "" for unknown strings (e.g. webSearchUrl); one such date must not turn
    # ten good results into a ResponseFormatError.
    page = {**PAGE_NO_SUMMARY, "datePublished": "", "dateLastCrawled": ""}
    body = {"code": 200, "data": {"webPages": {"value": [PAGE, page]}}}
    with respx.mock() as mock:
        mock.post(URL).respond(200, json=body)
        pages = run("sync", "get_web_pages", "q")
    assert len(pages) == 2
    assert pages[1].date_published is None and pages[1].date_last_crawled is None
    assert pages[1].name == PAGE_NO_SUMMARY["name"]


# -- over real sockets ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_against_the_loopback_server(mode: str) -> None:
    with serve(Reply(200, OK)) as server:
        connector = BochaTextSearch(KEY, base_url=server.url)
        results = call(connector, mode, "get_text_search_results", "向量", top=2)
    assert len(results) == 2
    request = server.requests[0]
    assert (request.method, request.path) == ("POST", "/v1/web-search")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert json.loads(request.body) == {"query": "向量", "count": 2, "summary": True}


@pytest.mark.parametrize("mode", MODES)
def test_rate_limit_over_sockets(mode: str) -> None:
    busy = Reply(429, {"code": "429", "message": "You have reached the request limit"})
    with serve(busy) as server:
        connector = BochaTextSearch(KEY, base_url=server.url, max_retries=1, max_retry_wait=0.05)
        with pytest.raises(RateLimitError) as info:
            call(connector, mode, "search", "q")
    assert len(server.requests) == 2
    assert info.value.retry_after is None


# -- live ------------------------------------------------------------------------------------


@pytest.mark.live
@pytest.mark.skipif("BOCHA_API_KEY" not in LIVE_ENV, reason="needs BOCHA_API_KEY")
def test_live_bocha() -> None:
    with BochaTextSearch(LIVE_ENV["BOCHA_API_KEY"]) as connector:
        results = connector.get_text_search_results_sync("httpx python", top=3)
    assert 0 < len(results) <= 3
    assert all(r.link for r in results)
