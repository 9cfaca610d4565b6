"""BingTextSearch: exact outgoing requests, every success shape, every error row (respx)."""

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
    BingTextSearch,
    BingWebPage,
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ProviderRetiredError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchOptions,
    ServiceUnavailableError,
    TextSearch,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)

KEY = "SECRET-bing-key-0123456789abcdef"
ENDPOINT = "https://api.bing.microsoft.com/v7.0/search"
MODES = ["async", "sync"]

PAGE_0: dict[str, Any] = {
    "id": "https://api.bing.microsoft.com/api/v7/#WebPages.0",
    "name": "Transports - \ue000HTTPX\ue001",
    "url": "https://www.python-httpx.org/advanced/transports/",
    "displayUrl": "https://www.python-httpx.org/advanced/transports",
    "snippet": "HTTPX's Client also accepts a \ue000transport\ue001 argument ... retries=3 ...",
    "datePublished": "2024-11-02T00:00:00.0000000",
    "dateLastCrawled": "2025-06-30T08:14:00.0000000Z",
    "language": "en",
    "isFamilyFriendly": True,
    "isNavigational": False,
    "deepLinks": [
        {"name": "Async Support", "url": "https://www.python-httpx.org/async/"},
        {
            "name": "Clients",
            "url": "https://www.python-httpx.org/advanced/clients/",
            "snippet": "Using a Client instance",
        },
    ],
    "searchTags": [{"name": "search.category", "content": "docs"}],
}
PAGE_1: dict[str, Any] = {
    "id": "https://api.bing.microsoft.com/api/v7/#WebPages.1",
    "name": "Retries with httpx",
    "url": "https://blog.example/httpx-retries",
    "displayUrl": "blog.example/httpx-retries",
    "snippet": "Use a transport with retries.",
    "dateLastCrawled": "2025-05-01T10:00:00.0000000Z",
}
FULL: dict[str, Any] = {
    "_type": "SearchResponse",
    "queryContext": {"originalQuery": "httpx retry transport"},
    "webPages": {
        "webSearchUrl": "https://www.bing.com/search?q=httpx+retry+transport",
        "totalEstimatedMatches": 48200,
        "value": [PAGE_0, PAGE_1],
    },
    "news": {
        "id": "https://api.bing.microsoft.com/api/v7/#News",
        "readLink": "https://api.bing.microsoft.com/api/v7/news/search?q=httpx",
        "value": [
            {
                "name": "HTTPX 1.0 beta lands",
                "url": "https://news.example/httpx-1-0",
                "description": "The async HTTP client ...",
                "datePublished": "2025-07-01T09:00:00.0000000Z",
                "provider": [{"_type": "Organization", "name": "Example News"}],
            }
        ],
    },
    "rankingResponse": {
        "mainline": {
            "items": [
                {
                    "answerType": "WebPages",
                    "resultIndex": 0,
                    "value": {"id": "https://api.bing.microsoft.com/api/v7/#WebPages.0"},
                }
            ]
        }
    },
}
NO_WEB_PAGES: dict[str, Any] = {
    "_type": "SearchResponse",
    "queryContext": {"originalQuery": "zzqx nothing", "alteredQuery": "zzq nothing"},
    "rankingResponse": {},
}


def run(
    mode: str, method: str, *args: Any, connector: BingTextSearch | None = None, **kw: Any
) -> Any:
    return call(connector or BingTextSearch(KEY), mode, method, *args, **kw)


def only_request(route: respx.Route) -> httpx.Request:
    assert route.call_count == 1
    return route.calls.last.request


# -- construction ------------------------------------------------------------------------


def test_missing_key_names_both_ways() -> None:
    with pytest.raises(ConfigurationError) as info:
        BingTextSearch()
    assert "api_key=" in str(info.value)
    assert "BING_SEARCH_API_KEY" in str(info.value)


def test_key_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BING_SEARCH_API_KEY", KEY)
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        run("sync", "search", "q")
    assert only_request(route).headers["Ocp-Apim-Subscription-Key"] == KEY


@pytest.mark.parametrize(
    "kwargs",
    [
        {"endpoint": "ftp://example.com/search"},
        {"endpoint": "not a url"},
        {"endpoint": ""},
        {"endpoint": "https://user:pw@example.com/v7.0/search"},
        {"auth_header": "bad header"},
        {"custom_config": ""},
        {"max_retries": -1},
        {"timeout": -1},
    ],
)
def test_bad_settings_are_configuration_errors(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        BingTextSearch(KEY, **kwargs)


def test_repr_never_shows_the_key() -> None:
    connector = BingTextSearch(KEY)
    assert KEY not in repr(connector)
    assert "api.bing.microsoft.com" in repr(connector)
    assert isinstance(connector, TextSearch)


# -- the outgoing request ----------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_exact_request_with_top_skip(mode: str) -> None:
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        run(mode, "search", "httpx retry transport", top=7, skip=14)
    request = only_request(route)
    assert request.method == "GET"
    assert request.url.scheme == "https"
    assert request.url.host == "api.bing.microsoft.com"
    assert request.url.path == "/v7.0/search"
    assert request.url.params.multi_items() == [
        ("q", "httpx retry transport"),
        ("count", "7"),
        ("offset", "14"),
    ]
    assert request.headers["Ocp-Apim-Subscription-Key"] == KEY
    assert KEY not in str(request.url)
    assert "authorization" not in request.headers


def test_top_bounds_are_checked_before_any_request() -> None:
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        connector = BingTextSearch(KEY)
        connector.search_sync("q", top=50)
        with pytest.raises(InvalidRequestError):
            connector.search_sync("q", top=51)
        with pytest.raises(InvalidRequestError):
            connector.search_sync("q", top=0)
        with pytest.raises(InvalidRequestError):
            connector.search_sync("   ")
        connector.close()
    assert route.call_count == 1
    assert route.calls.last.request.url.params["count"] == "50"


@pytest.mark.parametrize("mode", MODES)
def test_custom_search_url_uses_a_question_mark(mode: str) -> None:
    with respx.mock() as mock:
        route = mock.get("https://api.bing.microsoft.com/v7.0/custom/search").respond(
            200, json=FULL
        )
        run(mode, "search", "retry", connector=BingTextSearch(KEY, custom_config="abc-123"))
    request = only_request(route)
    assert str(request.url).startswith(
        "https://api.bing.microsoft.com/v7.0/custom/search?customConfig=abc-123&q=retry"
    )
    assert request.url.params["customConfig"] == "abc-123"


def test_endpoint_query_parameters_are_kept() -> None:
    gateway = "https://gw.example/bing/v7.0/search?api-version=2"
    with respx.mock() as mock:
        route = mock.get("https://gw.example/bing/v7.0/search").respond(200, json=FULL)
        run("sync", "search", "q", connector=BingTextSearch(KEY, endpoint=gateway))
    assert only_request(route).url.params.multi_items()[:2] == [("api-version", "2"), ("q", "q")]


def test_authorization_header_sends_bearer() -> None:
    with respx.mock() as mock:
        route = mock.get("https://gw.example/v7.0/search").respond(200, json=FULL)
        connector = BingTextSearch(
            KEY, endpoint="https://gw.example/v7.0/search", auth_header="Authorization"
        )
        run("sync", "search", "q", connector=connector)
    request = only_request(route)
    assert request.headers["Authorization"] == f"Bearer {KEY}"
    assert "ocp-apim-subscription-key" not in request.headers


# -- filters -----------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_operators_go_into_q_and_params_are_sent(mode: str) -> None:
    search_filter = (
        TextSearchFilter()
        .equal_to("site", "docs.python.org")
        .equal_to("intitle", "retry policy")
        .equal_to("filetype", "pdf")
        .equal_to("mkt", "en-US")
        .equal_to("safeSearch", "strict")
        .equal_to("freshness", "2025-01-01..2025-02-01")
        .equal_to("textDecorations", True)
        .equal_to("answerCount", 2)
        .equal_to("responseFilter", "Webpages,News")
    )
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        run(mode, "search", "asyncio timeout", top=3, filter=search_filter)
    assert only_request(route).url.params.multi_items() == [
        ("q", 'site:docs.python.org intitle:"retry policy" filetype:pdf asyncio timeout'),
        ("count", "3"),
        ("mkt", "en-US"),
        ("safeSearch", "Strict"),
        ("freshness", "2025-01-01..2025-02-01"),
        ("textDecorations", "true"),
        ("answerCount", "2"),
        ("responseFilter", "Webpages,News"),
    ]


def test_user_boolean_syntax_cannot_loosen_an_operator() -> None:
    site = TextSearchFilter().equal_to("site", "kb.example")
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        connector = BingTextSearch(KEY)
        connector.search_sync("a OR b", filter=site)
        connector.search_sync('x") OR (y "z', filter=site)
        connector.search_sync('x" OR y', filter=site)
        connector.search_sync("plain words", filter=site)
        connector.close()
    queries = [c.request.url.params["q"] for c in route.calls]
    assert queries == [
        "site:kb.example (a OR b)",
        'site:kb.example (x" OR y "z)',
        "site:kb.example (x OR y)",
        "site:kb.example plain words",
    ]


def test_operator_values_with_boolean_syntax_are_quoted_not_obeyed() -> None:
    # Unquoted, "intitle:a|evil" reads as "intitle:a OR evil": a loosened filter.
    search_filter = (
        TextSearchFilter()
        .equal_to("intitle", "a|evil")
        .equal_to("inbody", "(x)")
        .equal_to("filetype", "a&b")
    )
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        run("sync", "search", "q", filter=search_filter)
    assert only_request(route).url.params["q"] == 'intitle:"a|evil" inbody:"(x)" filetype:"a&b" q'


def test_portable_site_alternatives_are_one_parenthesised_or() -> None:
    # DESIGN 10.3: "a.com|b.com" means either domain; the OR stays inside its parentheses,
    # so it cannot pull the user's words out of the site restriction.
    search_filter = (
        TextSearchFilter()
        .equal_to("site", "kb.example|docs.example")
        .equal_to("exclude_site", "spam.kb.example")
        .equal_to("intitle", "retry")
    )
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        run("sync", "search", "a OR b", filter=search_filter)
    assert only_request(route).url.params["q"] == (
        "(site:kb.example OR site:docs.example) -site:spam.kb.example intitle:retry (a OR b)"
    )


@pytest.mark.parametrize(
    "search_filter",
    [
        TextSearchFilter().equal_to("author", "x"),
        TextSearchFilter().any_tag_equal_to("site", "x.com"),
        TextSearchFilter().equal_to("site", 'a.com" OR site:"evil.com'),
        TextSearchFilter().equal_to("site", ""),
        TextSearchFilter().equal_to("site", None),
        TextSearchFilter().equal_to("safeSearch", "sometimes"),
        TextSearchFilter().equal_to("freshness", "Decade"),
        TextSearchFilter().equal_to("freshness", "2025-02-01..2025-01-01"),
        TextSearchFilter().equal_to("textFormat", "Markdown"),
        TextSearchFilter().equal_to("answerCount", -1),
        TextSearchFilter().equal_to("mkt", "en-US").equal_to("mkt", "de-DE"),
        TextSearchFilter().equal_to("mkt", "en-US").equal_to("cc", "US"),
    ],
)
def test_bad_filters_fail_before_any_request(search_filter: TextSearchFilter) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        connector = BingTextSearch(KEY)
        with pytest.raises(InvalidRequestError):
            connector.search_sync("q", filter=search_filter)
        connector.close()
    assert route.call_count == 0


def test_unsupported_field_names_the_supported_ones() -> None:
    with pytest.raises(UnsupportedFilterError) as info:
        BingTextSearch(KEY).search_sync("q", filter=TextSearchFilter().equal_to("author", "x"))
    assert info.value.field_name == "author"
    assert "site" in info.value.supported_fields
    assert "mkt" in info.value.supported_fields


def test_custom_search_rejects_operators() -> None:
    connector = BingTextSearch(KEY, custom_config="1")
    with pytest.raises(UnsupportedFilterError):
        connector.search_sync("q", filter=TextSearchFilter().equal_to("site", "a.com"))


def test_query_too_long_is_rejected_before_sending() -> None:
    with pytest.raises(InvalidRequestError):
        BingTextSearch(KEY).search_sync("word " * 400)


# -- success shapes ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_web_pages_are_parsed_and_cleaned(mode: str) -> None:
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(
            200, json=FULL, headers={"BingAPIs-TraceId": "trace-1", "BingAPIs-Market": "en-US"}
        )
        pages = run(mode, "get_web_pages", "httpx retry transport", include_total_count=True)
    assert pages.total_count == 48200
    assert pages.metadata["trace_id"] == "trace-1"
    assert pages.metadata["market"] == "en-US"
    assert pages.metadata["web_search_url"].startswith("https://www.bing.com/search")
    first = pages[0]
    assert isinstance(first, BingWebPage)
    assert first.name == "Transports - HTTPX"
    assert first.snippet == "HTTPX's Client also accepts a transport argument ... retries=3 ..."
    assert first.display_url == "https://www.python-httpx.org/advanced/transports"
    assert first.date_published == datetime(2024, 11, 2)
    assert first.date_last_crawled == datetime(2025, 6, 30, 8, 14, tzinfo=timezone.utc)
    assert first.language == "en"
    assert first.is_family_friendly is True and first.is_navigational is False
    assert [d.name for d in first.deep_links] == ["Async Support", "Clients"]
    assert first.deep_links[1].snippet == "Using a Client instance"
    assert pages[1].date_published is None and pages[1].deep_links == []


@pytest.mark.parametrize("mode", MODES)
def test_text_results_and_strings(mode: str) -> None:
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(200, json=FULL)
        texts = run(mode, "get_text_search_results", "q")
        strings = run(mode, "search", "q")
    assert texts[1] == TextSearchResult(
        name="Retries with httpx",
        value="Use a transport with retries.",
        link="https://blog.example/httpx-retries",
    )
    assert texts.total_count is None  # not asked for
    assert list(strings)[1] == "Use a transport with retries."


def test_escaped_highlight_markers_are_removed() -> None:
    escaped = json.dumps(FULL).encode()  # ASCII JSON: the markers arrive as \\ue000 escapes
    assert b"\\ue000" in escaped
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(200, content=escaped)
        pages = run("sync", "get_web_pages", "q")
    assert pages[0].name == "Transports - HTTPX"
    assert "\ue000" not in (pages[0].snippet or "")


@pytest.mark.parametrize("ascii_json", [False, True])
def test_the_text_path_removes_raw_and_escaped_markers(ascii_json: bool) -> None:
    # The text path reads only three fields; raw UTF-8 markers and escaped ones (\\ue000
    # in ASCII JSON) must both be gone from them, as from the native pages.
    content = json.dumps(FULL, ensure_ascii=ascii_json).encode()
    assert (b"\\ue000" in content) is ascii_json
    assert ("\ue000".encode() in content) is not ascii_json
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(200, content=content)
        texts = run("sync", "get_text_search_results", "q")
        pages = run("sync", "get_web_pages", "q")
    assert texts[0] == TextSearchResult(
        name="Transports - HTTPX",
        value="HTTPX's Client also accepts a transport argument ... retries=3 ...",
        link=pages[0].url,
    )
    assert list(texts) == [
        TextSearchResult(name=p.name, value=p.snippet, link=p.url) for p in pages
    ]


def test_html_decorations_are_removed() -> None:
    decorated = {
        "_type": "SearchResponse",
        "webPages": {
            "value": [
                {
                    "name": "<b>Retry</b> &amp; backoff",
                    "url": "https://a.example/",
                    "snippet": "Use <b>exponential</b> backoff &lt;with&gt; jitter",
                    "deepLinks": [{"name": "<b>Jitter</b>", "url": "https://a.example/j"}],
                }
            ]
        },
    }
    html_filter = TextSearchFilter().equal_to("textFormat", "HTML")
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(200, json=decorated)
        pages = run("sync", "get_web_pages", "q", filter=html_filter)
    assert pages[0].name == "Retry & backoff"
    assert pages[0].snippet == "Use exponential backoff <with> jitter"
    assert pages[0].deep_links[0].name == "Jitter"


@pytest.mark.parametrize("mode", MODES)
def test_response_without_web_pages_is_empty(mode: str) -> None:
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(200, json=NO_WEB_PAGES)
        pages = run(mode, "get_web_pages", "zzqx nothing", include_total_count=True)
    assert len(pages) == 0 and not pages
    assert pages.total_count == 0
    assert pages.metadata["altered_query"] == "zzq nothing"


def test_mappers_are_per_instance() -> None:
    connector = BingTextSearch(
        KEY,
        string_mapper=lambda page: f"{page.name} <{page.url}>",
        text_search_result_mapper=lambda page: TextSearchResult(name=page.display_url),
    )
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(200, json=FULL)
        strings = connector.search_sync("q")
        texts = connector.get_text_search_results_sync("q")
    connector.close()
    assert strings[1] == "Retries with httpx <https://blog.example/httpx-retries>"
    assert texts[1].name == "blog.example/httpx-retries"


# -- errors --------------------------------------------------------------------------------


def _error(code: str, sub_code: str | None, message: str, **extra: str) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, **extra}
    if sub_code:
        error["subCode"] = sub_code
    return {"_type": "ErrorResponse", "errors": [error]}


ERROR_ROWS: list[tuple[int, dict[str, Any], dict[str, str], type[Exception], str | None]] = [
    (
        400,
        _error(
            "InvalidRequest",
            "ParameterInvalidValue",
            "Parameter has invalid value.",
            parameter="count",
            value="500",
        ),
        {},
        BadRequestError,
        "ParameterInvalidValue",
    ),
    (
        400,
        _error("InvalidRequest", "ParameterMissing", "Required parameter is missing."),
        {},
        BadRequestError,
        "ParameterMissing",
    ),
    (
        401,
        _error("InvalidAuthorization", "AuthorizationMissing", "Authorization is missing."),
        {},
        AuthenticationError,
        "AuthorizationMissing",
    ),
    (
        401,
        {
            "error": {
                "code": "401",
                "message": "Access denied due to invalid subscription key "
                "or wrong API endpoint. Make sure to provide a valid key for an active "
                "subscription and use a correct regional API endpoint for your resource.",
            }
        },
        {},
        AuthenticationError,
        None,
    ),
    (
        403,
        _error("InsufficientAuthorization", "AuthorizationDisabled", "Authorization disabled."),
        {},
        PermissionDeniedError,
        "AuthorizationDisabled",
    ),
    (
        403,
        _error("InsufficientAuthorization", "AuthorizationExpired", "Authorization expired."),
        {},
        PermissionDeniedError,
        "AuthorizationExpired",
    ),
    (
        403,
        _error("RateLimitExceeded", None, "Monthly quota exceeded."),
        {"Retry-After": "86400"},
        QuotaExceededError,
        None,
    ),
    (
        403,
        {
            "error": {
                "code": "403",
                "message": "Out of call volume quota. Quota will be replenished in 2.12:34:56.",
            }
        },
        {},
        QuotaExceededError,
        None,
    ),
    (
        404,
        {
            "_type": "ErrorResponse",
            "errors": [{"code": "InvalidRequest", "message": "Resource not found"}],
        },
        {},
        NotFoundError,
        None,
    ),
    (
        410,
        _error("InvalidRequest", "HttpNotAllowed", "HTTP is not allowed."),
        {},
        ProviderRetiredError,
        "HttpNotAllowed",
    ),
    (410, {}, {}, ProviderRetiredError, None),
    (
        429,
        _error("RateLimitExceeded", None, "Rate limit is exceeded."),
        {"Retry-After": "2"},
        RateLimitError,
        None,
    ),
    (
        500,
        _error("ServerError", "UnexpectedError", "Unexpected error."),
        {},
        ServiceUnavailableError,
        "UnexpectedError",
    ),
    (
        500,
        _error("ServerError", "ResourceError", "Resource error."),
        {},
        ServiceUnavailableError,
        "ResourceError",
    ),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("status", "body", "headers", "error", "sub_code"), ERROR_ROWS)
def test_error_rows(
    mode: str,
    status: int,
    body: dict[str, Any],
    headers: dict[str, str],
    error: type[Exception],
    sub_code: str | None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(status, json=body, headers=headers)
        with pytest.raises(error) as info:
            run(mode, "search", "q", connector=BingTextSearch(KEY, max_retries=0))
    exc: Any = info.value
    assert exc.status_code == status
    assert exc.provider == "bing"
    assert exc.sub_code == sub_code
    assert KEY not in str(exc) and KEY not in repr(exc)
    for record in caplog.records:
        assert KEY not in record.getMessage()
    if status == 400 and sub_code == "ParameterInvalidValue":
        assert "count" in str(exc) and "'500'" in str(exc)
        assert isinstance(exc, InvalidRequestError)
    if status == 429:
        assert exc.retry_after == 2.0
    if status == 410:
        assert "2025-08-11" in str(exc)
        assert "endpoint=" in str(exc) and "auth_header=" in str(exc)
    if body.get("error"):
        assert body["error"]["message"][:20] in str(exc)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("body", "error", "status"),
    [
        (
            _error("InvalidAuthorization", "AuthorizationMissing", "Authorization is missing."),
            AuthenticationError,
            401,
        ),
        ({"error": {"code": "401", "message": "Access denied."}}, AuthenticationError, 401),
        (
            _error("InsufficientAuthorization", "AuthorizationExpired", "Expired."),
            PermissionDeniedError,
            403,
        ),
        ({"errors": [{"code": "Mystery", "message": "odd"}]}, ResponseFormatError, 200),
    ],
)
def test_error_body_on_200_is_an_error_not_an_empty_result(
    mode: str, body: dict[str, Any], error: type[Exception], status: int
) -> None:
    # A gateway answering 200 with an error body must not pass for "no results".
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=body)
        with pytest.raises(error) as info:
            run(mode, "search", "q", connector=BingTextSearch(KEY, max_retries=0))
    assert route.call_count == 1
    assert getattr(info.value, "status_code", None) == status


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"   \n",
        b"<html>busy</html>",
        b"[1, 2]",
        b'{"webPages": {"value": 3}}',
        b'{"webPages": {"value": [{"name": 5}]}}',
        b'{"webPages": {"value": [{"name": 5}, "x", null]}}',
        b'{"webPages": []}',
        b'{"queryContext": "x", "webPages": {}}',
    ],
)
def test_bad_success_bodies_are_format_errors(
    mode: str, content: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(200, content=content)
        with pytest.raises(ResponseFormatError) as info:
            run(mode, "search", "q")
    assert info.value.status_code == 200
    assert info.value.provider == "bing"
    assert KEY not in str(info.value) and KEY not in repr(info.value)
    assert caplog.records  # the failed request was logged ...
    assert all(KEY not in r.getMessage() for r in caplog.records)  # ... without the key


def test_trace_id_is_a_hint_on_errors() -> None:
    with respx.mock() as mock:
        mock.get(ENDPOINT).respond(
            401,
            json=_error("InvalidAuthorization", None, "bad"),
            headers={"BingAPIs-TraceId": "T1"},
        )
        with pytest.raises(AuthenticationError) as info:
            run("sync", "search", "q")
    assert any("T1" in hint for hint in info.value.hints)


# -- over real sockets ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_against_the_loopback_server(mode: str) -> None:
    with serve(Reply(200, FULL)) as server:
        connector = BingTextSearch(KEY, endpoint=server.url + "/v7.0/search")
        texts = call(connector, mode, "get_text_search_results", "httpx", top=2)
    assert [t.link for t in texts] == [PAGE_0["url"], PAGE_1["url"]]
    request = server.requests[0]
    assert request.path == "/v7.0/search"
    assert request.query == [("q", "httpx"), ("count", "2")]
    assert request.headers["ocp-apim-subscription-key"] == KEY


def test_options_object_and_shortcuts_agree() -> None:
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        connector = BingTextSearch(KEY)
        connector.search_sync("q", SearchOptions(top=4, skip=8))
        connector.search_sync("q", top=4, skip=8)
        connector.close()
    first, second = (c.request.url for c in route.calls)
    assert first == second


# -- live ------------------------------------------------------------------------------------


@pytest.mark.live
@pytest.mark.skipif("BING_SEARCH_API_KEY" not in LIVE_ENV, reason="needs BING_SEARCH_API_KEY")
def test_live_bing() -> None:
    import os

    connector = BingTextSearch(
        LIVE_ENV["BING_SEARCH_API_KEY"],
        endpoint=os.environ.get("BING_SEARCH_ENDPOINT") or ENDPOINT,
        auth_header=os.environ.get("BING_SEARCH_AUTH_HEADER") or "Ocp-Apim-Subscription-Key",
    )
    with connector:
        try:
            results = connector.get_text_search_results_sync("python httpx", top=3)
        except ProviderRetiredError:
            pytest.skip("the public Bing v7 endpoint is retired; set BING_SEARCH_ENDPOINT")
    assert 0 < len(results) <= 3
    assert all(r.link for r in results)


@pytest.mark.parametrize(
    ("query", "sent"),
    [
        ('a OR"b"', '(a OR"b")'),  # OR glued to a quote is still OR
        ("a\u200bOR\u200bb", "(a\u200bOR\u200bb)"),  # zero-width spaces around it
        ("a\u2060OR\ufeffb", "(a\u2060OR\ufeffb)"),  # word joiner, BOM
        ("x\uff5cy", "(x\uff5cy)"),  # the full-width bar
        ("\uff08a\uff09 OR b", "(a OR b)"),  # full-width parentheses are dropped too
        ("ORACLE tuning", "ORACLE tuning"),  # a word that starts with OR is not OR
    ],
)
def test_hidden_or_in_the_query_cannot_widen_a_preset_site(query: str, sent: str) -> None:
    site = TextSearchFilter().equal_to("site", "kb.example")
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        run("sync", "search", query, filter=site)
    assert only_request(route).url.params["q"] == f"site:kb.example {sent}"


@pytest.mark.parametrize(
    "value",
    [
        "kb.example\uff5cevil.example",  # full-width bar
        "kb.example\u200bOR\u200bevil.example",  # zero-width spaces around OR
        "kb.example\u00a0OR\u00a0evil.example",  # no-break spaces
        "kb.example\u3000evil.example",  # ideographic space
        "kb.example\uff06evil.example",  # full-width ampersand
    ],
)
def test_operator_values_with_hidden_separators_are_quoted(value: str) -> None:
    with respx.mock() as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        run("sync", "search", "q", filter=TextSearchFilter().equal_to("intitle", value))
    q = only_request(route).url.params["q"]
    assert q.startswith('intitle:"') and q.endswith('" q')
    assert q.count('"') == 2


@pytest.mark.parametrize(
    "value",
    [
        "kb.example\uff5cevil.example",  # full-width bar
        "kb.example\u200bOR\u200bevil.example",  # zero-width spaces around OR
        "kb.example\u00a0OR\u00a0evil.example",  # no-break spaces
        "kb.example\u3000evil.example",  # ideographic space
        "kb.example\uff06evil.example",  # full-width ampersand
    ],
)
def test_site_values_with_hidden_separators_are_refused_before_any_request(value: str) -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(ENDPOINT).respond(200, json=FULL)
        with pytest.raises(InvalidRequestError, match="not a domain name"):
            run("sync", "search", "q", filter=TextSearchFilter().equal_to("site", value))
    assert route.call_count == 0
