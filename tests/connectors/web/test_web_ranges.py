"""Web connectors and the new clauses: date bounds become a provider's own date range.

Brave, Tavily, Exa, Bocha and Bing have a native date range (PROVIDERS.md: ``AtoB``,
``start_date``/``end_date``, ``start/endPublishedDate``, ``A..B``); SearXNG has none. Every
other range, ``any_of`` and ``not_equal_to`` (beyond ``site``) is refused before any request.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from typing import Any

import pytest
import respx

from tests.connectors.web import (
    test_bing,
    test_bocha,
    test_brave,
    test_exa,
    test_searxng,
    test_tavily,
)
from textsearch import (
    BingTextSearch,
    BochaTextSearch,
    BraveTextSearch,
    ExaTextSearch,
    InvalidRequestError,
    SearxngTextSearch,
    TavilyTextSearch,
    TextSearchFilter,
    UnsupportedFilterError,
)

F = TextSearchFilter
BOUNDS = F().greater_than_or_equal("freshness", "2024-01-01").less_than("freshness", "2024-03-01")


def _brave_wire(request: Any) -> Any:
    return request.url.params.get("freshness")


def _tavily_wire(request: Any) -> Any:
    body = json.loads(request.content)
    return body.get("start_date"), body.get("end_date")


def _exa_wire(request: Any) -> Any:
    body = json.loads(request.content)
    return body.get("startPublishedDate"), body.get("endPublishedDate")


def _bocha_wire(request: Any) -> Any:
    return json.loads(request.content).get("freshness")


def _bing_wire(request: Any) -> Any:
    return request.url.params.get("freshness")


# name: (make, method, url, payload, read the wire, what BOUNDS become)
PROVIDERS: dict[str, tuple[Callable[[], Any], str, str, Any, Callable[[Any], Any], Any]] = {
    "brave": (
        lambda: BraveTextSearch(test_brave.KEY),
        "GET",
        test_brave.URL,
        test_brave.OK,
        _brave_wire,
        "2024-01-01to2024-02-29",
    ),
    "tavily": (
        lambda: TavilyTextSearch(test_tavily.KEY),
        "POST",
        test_tavily.URL,
        test_tavily.OK,
        _tavily_wire,
        ("2024-01-01", "2024-02-29"),
    ),
    "exa": (
        lambda: ExaTextSearch(test_exa.KEY),
        "POST",
        test_exa.URL,
        test_exa.OK,
        _exa_wire,
        ("2024-01-01T00:00:00.000Z", "2024-02-29T23:59:59.999Z"),
    ),
    "bocha": (
        lambda: BochaTextSearch(test_bocha.KEY),
        "POST",
        test_bocha.URL,
        test_bocha.OK,
        _bocha_wire,
        "2024-01-01..2024-02-29",
    ),
    "bing": (
        lambda: BingTextSearch(test_bing.KEY),
        "GET",
        test_bing.ENDPOINT,
        test_bing.FULL,
        _bing_wire,
        "2024-01-01..2024-02-29",
    ),
}


def _sent(name: str, search_filter: TextSearchFilter) -> Any:
    make, method, url, payload, wire, _ = PROVIDERS[name]
    with respx.mock() as mock:
        route = mock.route(method=method, url=url).respond(200, json=payload)
        with make() as connector:
            connector.search_sync("retry", filter=search_filter)
    assert route.call_count == 1
    return wire(route.calls[0].request)


@pytest.mark.parametrize("name", PROVIDERS)
def test_date_bounds_become_the_providers_date_range(name: str) -> None:
    assert _sent(name, BOUNDS) == PROVIDERS[name][5]


@pytest.mark.parametrize("name", PROVIDERS)
def test_bounds_and_a_freshness_range_intersect_never_widen(name: str) -> None:
    # a preset freshness range AND-ed with a model's wider bound keeps the preset's days
    preset = F().equal_to("freshness", "2024-01-01..2024-02-29")
    wider = preset.and_(F().greater_than_or_equal("freshness", "2023-01-01"))
    assert _sent(name, wider) == PROVIDERS[name][5]
    narrower = (
        F().greater_than("freshness", "2023-12-31").less_than_or_equal("freshness", "2024-02-29")
    )
    assert _sent(name, narrower) == PROVIDERS[name][5]


def test_an_open_bound_ends_today_or_starts_in_1970() -> None:
    today = date.today().isoformat()
    assert _sent("brave", F().greater_than_or_equal("freshness", "2024-01-01")) == (
        f"2024-01-01to{today}"
    )
    assert _sent("bocha", F().less_than_or_equal("freshness", "2020-05-01")) == (
        "1970-01-01..2020-05-01"
    )


def test_site_any_of_and_not_equal_to_are_site_and_exclude_site() -> None:
    with respx.mock() as mock:
        route = mock.get(test_brave.URL).respond(200, json=test_brave.OK)
        with BraveTextSearch(test_brave.KEY) as connector:
            connector.search_sync(
                "retry",
                filter=F()
                .any_of("site", ["a.example", "b.example"])
                .not_equal_to("site", "b.example"),
            )
    query = route.calls[0].request.url.params["q"]
    assert "site:a.example" in query and "-site:b.example" in query


@pytest.mark.parametrize("name", [*PROVIDERS, "searxng"])
@pytest.mark.parametrize(
    ("search_filter", "error"),
    [
        (F().greater_than("year", 2020), UnsupportedFilterError),
        (F().greater_than("freshness", 5), UnsupportedFilterError),
        (F().greater_than("freshness", "2024-01-01T10:00:00Z"), UnsupportedFilterError),
        (F().any_of("language", ["en", "de"]), UnsupportedFilterError),
        (F().not_equal_to("country", "DE"), UnsupportedFilterError),
        (F().any_of("site", [1, 2]), InvalidRequestError),
        (
            F().greater_than("freshness", "2024-03-01").less_than("freshness", "2024-03-02"),
            InvalidRequestError,
        ),
    ],
)
def test_what_a_provider_cannot_honour_is_refused_before_any_request(
    name: str, search_filter: TextSearchFilter, error: type[Exception]
) -> None:
    if name == "searxng":
        make: Callable[[], Any] = lambda: SearxngTextSearch(test_searxng.BASE)  # noqa: E731
    else:
        make = PROVIDERS[name][0]
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route().respond(500)
        with make() as connector, pytest.raises(error):
            connector.search_sync("retry", filter=search_filter)
    assert route.call_count == 0


def test_searxng_has_no_date_range() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route().respond(500)
        with SearxngTextSearch(test_searxng.BASE) as connector:
            with pytest.raises(UnsupportedFilterError):
                connector.search_sync("retry", filter=BOUNDS)
    assert route.call_count == 0
