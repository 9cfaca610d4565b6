"""Bing and Bocha against real provider payloads (../shared/payloads) and their quirks (#9).

Each payload is served byte for byte (byte-order mark and CRLF included) through respx; the
tolerance cases use small bodies of our own shaped like them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import respx

from tests.emulators.web import call
from tests.payloads import payload, payload_names
from textsearch import (
    AuthenticationError,
    BadRequestError,
    BingTextSearch,
    BochaTextSearch,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    ServiceUnavailableError,
)

KEY = "SECRET-payload-key-0123456789"
BING = "https://api.bing.microsoft.com/v7.0/search"
BOCHA = "https://api.bochaai.com/v1/web-search"
MODES = ["async", "sync"]

BING_PAGES = {
    "sk_dotnet_what_is_sk.json": 10,
    "sk_dotnet_site_filter_devblogs.json": 4,  # starts with a UTF-8 byte-order mark
    "bing_docs_quickstart_cognitive_services.json": 1,
    "bingo_search_html_decorated_dyfo.json": 10,  # <b> in displayUrl
    "vue_native_demo_rawjson_nulls.json": 10,  # "deepLinks": null, CRLF
}
BING_ERRORS: dict[str, tuple[int, type[ProviderError]]] = {
    "bing_docs_error_400_parameter_missing.json": (400, BadRequestError),
    "bing_docs_error_401_authorization_missing.json": (401, AuthenticationError),
    "bing_issue_azuredocs36456_401_gateway_error.json": (401, AuthenticationError),
    "bing_issue_nodebingapi44_401_statuscode.json": (401, AuthenticationError),
    "bing_issue_dify2858_403_insufficient_authorization.json": (403, PermissionDeniedError),
    "bing_issue_nodebingapi34_403_out_of_quota.json": (403, QuotaExceededError),
}
BOCHA_ERRORS: dict[str, tuple[int, type[ProviderError]]] = {
    "bocha_docs_error_400_missing_query.json": (400, BadRequestError),
    "bocha_docs_error_400_api_key_missing.json": (400, AuthenticationError),
    "bocha_docs_error_401_invalid_api_key.json": (401, AuthenticationError),
    "bocha_docs_error_403_no_money.json": (403, QuotaExceededError),
    "bocha_docs_error_429_request_limit.json": (429, RateLimitError),
    "bocha_docs_error_500_server_error.json": (500, ServiceUnavailableError),
}


def _bing(mode: str, body: bytes, status: int = 200, **kwargs: Any) -> Any:
    with respx.mock() as mock:
        mock.get(BING).respond(status, content=body, headers={"Content-Type": "application/json"})
        return call(BingTextSearch(KEY, max_retries=0), mode, "get_search_results", "q", **kwargs)


def _bocha(mode: str, body: bytes, status: int = 200, **kwargs: Any) -> Any:
    with respx.mock() as mock:
        mock.post(BOCHA).respond(status, content=body, headers={"Content-Type": "application/json"})
        return call(BochaTextSearch(KEY, max_retries=0), mode, "get_search_results", "q", **kwargs)


def test_the_payload_tables_cover_every_stored_file() -> None:
    stored = set(payload_names("bing"))
    if not stored:
        pytest.skip("the real payloads (../shared/payloads) are not checked out here")
    assert stored == set(BING_PAGES) | set(BING_ERRORS)
    bocha = set(payload_names("bocha")) - {"bocha_docs_ai_search_watermelon.json"}  # AI search
    assert bocha == set(BOCHA_ERRORS) | {"bocha_docs_websearch_alibaba_esg.json"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("name", "count"), sorted(BING_PAGES.items()))
def test_every_real_bing_page_parses(mode: str, name: str, count: int) -> None:
    results = _bing(mode, payload("bing", name), top=50)
    assert len(results) == count
    assert "skipped" not in results.metadata
    for page in results:
        assert page.url and page.name
        for text in (page.name, page.snippet, page.display_url):
            assert text is None or ("<b>" not in text and "</b>" not in text)
        assert all(link.url for link in page.deep_links)


def test_bing_byte_order_mark_and_nulls_are_read_not_refused() -> None:
    bom = _bing("sync", payload("bing", "sk_dotnet_site_filter_devblogs.json"), top=10)
    assert payload("bing", "sk_dotnet_site_filter_devblogs.json").startswith(b"\xef\xbb\xbf")
    assert all("devblogs.microsoft.com" in (p.url or "") for p in bom)
    nulls = _bing("sync", payload("bing", "vue_native_demo_rawjson_nulls.json"), top=10)
    assert [p.deep_links for p in nulls] == [[]] * 10


def test_bing_display_url_has_no_decoration_even_unasked() -> None:
    pages = _bing("sync", payload("bing", "bingo_search_html_decorated_dyfo.json"), top=10)
    raw = json.loads(payload("bing", "bingo_search_html_decorated_dyfo.json"))
    decorated = [p["displayUrl"] for p in raw["webPages"]["value"] if "<b>" in p["displayUrl"]]
    assert decorated  # the payload really has them
    assert pages[0].display_url == "https://www.youtube.com/channel/UC7JLcfjsSfGCFK9D9QOK7xw"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(BING_ERRORS))
def test_every_real_bing_error_maps_to_its_class(mode: str, name: str) -> None:
    status, error = BING_ERRORS[name]
    with pytest.raises(error) as info:
        _bing(mode, payload("bing", name), status)
    assert info.value.status_code == status
    assert info.value.message.split(": ", 2)[-1].strip()  # the provider's words are kept


@pytest.mark.parametrize("mode", MODES)
def test_the_real_bocha_page_parses(mode: str) -> None:
    body = payload("bocha", "bocha_docs_websearch_alibaba_esg.json")
    results = _bocha(mode, body, top=10)
    raw = json.loads(body)["data"]["webPages"]["value"]
    assert len(results) == min(10, len(raw))
    assert results[0].id is None and results[0].name and results[0].url
    assert results.metadata["log_id"] == "d71841ad20095f61"
    assert "web_search_url" not in results.metadata  # "" is no URL


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(BOCHA_ERRORS))
def test_every_real_bocha_error_maps_to_its_class(mode: str, name: str) -> None:
    status, error = BOCHA_ERRORS[name]
    with pytest.raises(error) as info:
        _bocha(mode, payload("bocha", name), status)
    assert info.value.status_code == status


# -- tolerance, with bodies of our own shaped like the real ones --------------------------


def _bing_body(pages: list[Any]) -> bytes:
    return json.dumps({"_type": "SearchResponse", "webPages": {"value": pages}}).encode()


def _page(i: int, **extra: Any) -> dict[str, Any]:
    return {"name": f"t{i}", "url": f"https://e.example/{i}", "snippet": "s", **extra}


@pytest.mark.parametrize("mode", MODES)
def test_bing_empty_dates_are_unknown_and_one_bad_item_is_skipped_and_counted(mode: str) -> None:
    pages = [
        _page(0, datePublished="", dateLastCrawled=" "),
        _page(1, deepLinks=None, searchTags=None),
        {"name": ["not", "text"], "url": "https://e.example/bad"},
        "not an object",
        _page(3, datePublished="2024-11-02T00:00:00.0000000"),
    ]
    results = _bing(mode, _bing_body(pages), top=10)
    assert [p.name for p in results] == ["t0", "t1", "t3"]
    assert results[0].date_published is None and results[0].date_last_crawled is None
    assert results[1].deep_links == []
    assert results.metadata["skipped"] == 2


@pytest.mark.parametrize("mode", MODES)
def test_never_more_results_than_top(mode: str) -> None:
    pages = [_page(i) for i in range(12)]
    assert [p.name for p in _bing(mode, _bing_body(pages), top=3)] == ["t0", "t1", "t2"]
    bocha = {"code": 200, "data": {"webPages": {"value": pages}}}
    assert len(_bocha(mode, json.dumps(bocha).encode(), top=4)) == 4


@pytest.mark.parametrize("mode", MODES)
def test_bocha_byte_order_mark_nulls_blank_dates_and_bad_items(mode: str) -> None:
    pages = [
        {**_page(0), "datePublished": "", "displayUrl": "https://<b>e.example</b>/0"},
        {"name": 5, "url": {}},
        {**_page(2), "dateLastCrawled": "2024-07-22T00:00:00Z"},
    ]
    body = {"code": 200, "log_id": "x", "data": {"webPages": {"value": pages}, "videos": None}}
    results = _bocha(mode, b"\xef\xbb\xbf" + json.dumps(body).encode(), top=10)
    assert [p.name for p in results] == ["t0", "t2"]
    assert results[0].date_published is None
    assert results[0].display_url == "https://e.example/0"
    assert results.metadata["skipped"] == 1
    empty = {"code": 200, "data": {"webPages": {"value": None}}}
    assert len(_bocha(mode, json.dumps(empty).encode())) == 0


@pytest.mark.parametrize("mode", MODES)
def test_a_page_where_every_item_is_broken_is_a_format_error(mode: str) -> None:
    with pytest.raises(ResponseFormatError):
        _bing(mode, _bing_body([{"name": 1}, {"url": []}]))


def test_bing_404_hint_speaks_of_url_length_only_for_long_urls() -> None:
    body = b'{"_type": "ErrorResponse", "errors": [{"code": "NotFound", "message": "no"}]}'
    with pytest.raises(ProviderError) as short:
        _bing("sync", body, 404)
    assert "2,048" not in str(short.value) and "2048" not in str(short.value)
    assert "endpoint" in str(short.value)
    # under Bing's 1,500-character query limit, but percent-encoded past 2,048 in the URL
    with pytest.raises(ProviderError) as long, respx.mock() as mock:
        mock.get(BING).respond(404, content=body)
        BingTextSearch(KEY, max_retries=0).search_sync("é " * 400)
    assert "2048" in str(long.value)


@pytest.mark.parametrize("mode", MODES)
def test_the_text_views_check_only_the_fields_they_use(mode: str) -> None:
    # A bad date drops a result from the native view (its date cannot be typed), not from
    # the text views, which never read it; a title that is not text drops it from both.
    pages = [_page(0), _page(1, datePublished="yesterday"), _page(2, name=["x"]), _page(3)]
    body = _bing_body(pages)
    native = _bing(mode, body, top=10)
    assert [p.name for p in native] == ["t0", "t3"] and native.metadata["skipped"] == 2
    with respx.mock() as mock:
        mock.get(BING).respond(200, content=body)
        text = call(BingTextSearch(KEY), mode, "get_text_search_results", "q", top=10)
        strings = call(BingTextSearch(KEY), mode, "search", "q", top=2)
        custom = call(
            BingTextSearch(KEY, string_mapper=lambda p: f"{p.name}@{p.date_published}"),
            mode,
            "search",
            "q",
        )
    assert [r.name for r in text] == ["t0", "t1", "t3"] and text.metadata["skipped"] == 1
    assert list(strings) == ["s", "s"]
    assert list(custom) == ["t0@None", "t3@None"]  # a custom mapper gets native pages


def test_the_text_view_unescapes_asked_for_decorations() -> None:
    page = _page(0, name="<b>A</b> &amp; B", snippet="x &lt; y <strong>z</strong>")
    with respx.mock() as mock:
        mock.get(BING).respond(200, content=_bing_body([page]))
        search = BingTextSearch(KEY)
        plain = search.get_text_search_results_sync("q")
        html = search.get_text_search_results_sync(
            "q", filter=__import__("textsearch").TextSearchFilter().equal_to("textFormat", "HTML")
        )
    assert plain[0].name == "A &amp; B"  # raw format: entities are text, tags are dropped
    assert html[0].name == "A & B" and html[0].value == "x < y z"
