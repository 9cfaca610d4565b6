"""The portable web filter through real connectors: boundaries and messages (issue #24).

Written against the survivors of mutation testing of ``connectors/web/_portable.py``
(``tools/mutation.py``). Every test goes through a connector's public search with the HTTP
API mocked by respx, so it holds whatever shape the shared helpers take.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import respx

from textsearch import (
    BraveTextSearch,
    InvalidRequestError,
    SearxngTextSearch,
    TextSearchFilter,
    UnsupportedFilterError,
)

BRAVE = "https://api.search.brave.com/res/v1/web/search"
SEARXNG = "http://searx.test/search"
KEY = "key-0123456789-mutation"
CLIENT = httpx.Client()


def _searx_item(url: str) -> dict[str, Any]:
    return {"url": url, "title": f"Page at {url}", "content": "Some text.", "engine": "bing"}


def _searxng(
    search_filter: TextSearchFilter, urls: tuple[str, ...] = ()
) -> tuple[httpx.Request, list[str]]:
    search = SearxngTextSearch("http://searx.test", http_client=CLIENT)
    payload = {"query": "q", "results": [_searx_item(u) for u in urls]}
    with respx.mock() as mock:
        route = mock.get(SEARXNG).respond(200, json=payload)
        results = search.get_text_search_results_sync("q", filter=search_filter)
    # A page whose results the site check drops may be followed by the next page.
    assert route.call_count >= 1
    return route.calls[0].request, [r.link or "" for r in results.results]


def _brave_params(search_filter: TextSearchFilter) -> dict[str, str]:
    search = BraveTextSearch(KEY, http_client=CLIENT)
    body = {"type": "search", "web": {"type": "search", "results": []}}
    with respx.mock() as mock:
        route = mock.get(BRAVE).respond(200, json=body)
        search.search_sync("q", filter=search_filter)
    return dict(route.calls.last.request.url.params.multi_items())


def _refused(search_filter: TextSearchFilter, error: type[Exception] = InvalidRequestError) -> str:
    """The message of the error a Brave search raises, checked to come before any request."""
    search = BraveTextSearch(KEY, http_client=CLIENT)
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get(BRAVE).respond(200, json={"type": "search", "web": {"results": []}})
        with pytest.raises(error) as info:
            search.search_sync("q", filter=search_filter)
    assert route.call_count == 0
    return str(info.value)


def _site(value: str) -> TextSearchFilter:
    return TextSearchFilter().equal_to("site", value)


def _q(search_filter: TextSearchFilter) -> str:
    return _searxng(search_filter)[0].url.params["q"]


# -- domains ---------------------------------------------------------------------------


def test_an_internationalised_domain_is_accepted() -> None:
    assert _q(_site("bücher.de")) == "q site:bücher.de"
    assert _q(_site("Ελλάδα.gr|b.org")) == "q (site:ελλάδα.gr OR site:b.org)"


@pytest.mark.parametrize(
    "value",
    [
        "a.com\uff5cb.com",  # a full-width bar, which an engine may read as OR
        "a.com\u3000b.com",  # an ideographic space
        "a.com\u200bb.com",  # a zero-width space
    ],
)
def test_look_alike_separators_are_not_part_of_a_domain(value: str) -> None:
    message = _refused(_site(value))
    assert message.startswith("BraveTextSearch: filter 'site': ")
    assert "is not a domain name" in message


def test_a_trailing_dot_and_empty_parts_are_dropped() -> None:
    assert _q(_site("A.com.")) == "q site:a.com"
    assert _q(_site("a.com| |b.com")) == "q (site:a.com OR site:b.com)"
    assert _q(_site("|b.com")) == "q site:b.com"


def test_a_single_label_name_must_be_letters_and_digits() -> None:
    assert _q(_site("localhost")) == "q site:localhost"
    assert "is not a domain name" in _refused(_site("my-intranet"))
    assert "is not a domain name" in _refused(_site("a_b"))


@pytest.mark.parametrize("value", ["https://http://a.com", "https://a.com://"])
def test_a_url_inside_a_url_is_refused(value: str) -> None:
    assert "is not a domain name" in _refused(_site(value))


def test_a_missing_domain_is_a_clear_error() -> None:
    assert _refused(_site(" | ")) == (
        "BraveTextSearch: filter 'site' needs a domain such as 'a.com'"
    )
    assert _refused(TextSearchFilter().equal_to("exclude_site", 3)) == (
        "BraveTextSearch: filter 'exclude_site' needs a domain such as 'a.com'"
    )
    assert _refused(TextSearchFilter().equal_to("exclude_site", "a b")).startswith(
        "BraveTextSearch: filter 'exclude_site': 'a b' is not a domain name"
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [("docs.example.com", "example.com"), ("example.com", "docs.example.com")],
)
def test_two_site_clauses_keep_the_narrower_domain_in_any_order(first: str, second: str) -> None:
    search_filter = _site(first).equal_to("site", second)
    assert _q(search_filter) == "q site:docs.example.com"


def test_result_urls_with_a_trailing_dot_on_the_host_are_kept() -> None:
    _, links = _searxng(
        _site("a.com"),
        ("https://a.com./one", "https://www.a.com/two", "https://b.com/three"),
    )
    assert links == ["https://a.com./one", "https://www.a.com/two"]


# -- other fields ----------------------------------------------------------------------


def test_a_one_day_date_range_is_accepted() -> None:
    fresh = TextSearchFilter().equal_to("freshness", "2025-03-01..2025-03-01")
    assert _brave_params(fresh)["freshness"] == "2025-03-01to2025-03-01"


@pytest.mark.parametrize(
    ("field", "start"),
    [
        ("freshness", "BraveTextSearch: filter 'freshness' must be day, week"),
        ("language", "BraveTextSearch: filter 'language' must be a two-letter"),
        ("country", "BraveTextSearch: filter 'country' must be a two-letter"),
        ("safe_search", "BraveTextSearch: filter 'safe_search' must be off"),
    ],
)
@pytest.mark.parametrize("value", [5, 2.5, True, None])
def test_values_of_every_type_get_a_clear_error(field: str, start: str, value: object) -> None:
    message = _refused(TextSearchFilter().equal_to(field, value))  # type: ignore[arg-type]
    assert message.startswith(start)


# -- fields a connector cannot honour ----------------------------------------------------


def test_any_tag_equal_to_is_refused_with_the_supported_fields() -> None:
    message = _refused(TextSearchFilter().any_tag_equal_to("site", "a.com"), UnsupportedFilterError)
    assert message == (
        "BraveTextSearch cannot filter with any_tag_equal_to on 'site'; supported filter "
        "fields (equal_to): country, exclude_site, freshness, language, safe_search, site"
    )


def test_an_unknown_field_is_refused_with_the_supported_fields() -> None:
    search = SearxngTextSearch("http://searx.test", http_client=CLIENT)
    with pytest.raises(UnsupportedFilterError) as info:
        search.search_sync("q", filter=TextSearchFilter().equal_to("author", "x"))
    assert str(info.value).startswith(
        "SearxngTextSearch cannot filter on 'author'; supported filter fields (equal_to): "
        "categories, engines, exclude_site,"
    )
    assert info.value.field_name == "author"


def test_a_native_clause_does_not_end_the_portable_ones() -> None:
    # SearXNG's own fields (engines) come first here: the site clause after them still holds.
    request, _ = _searxng(TextSearchFilter().equal_to("engines", "bing").equal_to("site", "a.com"))
    assert request.url.params["q"] == "q site:a.com"
    assert request.url.params["engines"] == "bing"
