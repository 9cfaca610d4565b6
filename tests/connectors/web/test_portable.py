"""The portable web filter vocabulary (DESIGN 10.3): validation, and its wire form per provider."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
import respx

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
from textsearch.connectors.web._portable import (
    PORTABLE_FIELDS,
    Freshness,
    intersect_domains,
    parse_domains,
    parse_freshness,
    site_operators,
    split_filter,
    url_allowed,
)

OWNER = "TestSearch"

# -- validation --------------------------------------------------------------------------


def test_domains_are_lower_cased_deduplicated_and_stripped_of_a_scheme() -> None:
    assert parse_domains("site", " A.com | https://b.com/ |a.com") == ("a.com", "b.com")


@pytest.mark.parametrize("value", ["", "   ", "|", None, 3, "a.com/path", "not a domain", 'a.com"'])
def test_bad_domains_are_refused(value: object) -> None:
    with pytest.raises(InvalidRequestError):
        parse_domains("site", value)


def test_intersection_keeps_the_narrower_domain() -> None:
    assert intersect_domains(("example.com", "b.org"), ("docs.example.com",)) == (
        "docs.example.com",
    )
    assert intersect_domains(("a.com",), ("b.com",)) == ()


def test_freshness_words_and_ranges() -> None:
    assert parse_freshness("Week") == Freshness(word="week")
    fresh = parse_freshness("2025-01-01..2025-02-01")
    assert fresh.dates() == (date(2025, 1, 1), date(2025, 2, 1))
    today = date(2026, 3, 1)
    assert Freshness(word="month").dates(today) == (today - timedelta(days=31), today)


@pytest.mark.parametrize(
    "value", ["fortnight", "2025-02-01..2025-01-01", "2025-13-01..2025-12-01", "2025-01-01", 7]
)
def test_bad_freshness_is_refused(value: object) -> None:
    with pytest.raises(InvalidRequestError):
        parse_freshness(value)


def test_split_filter_validates_and_combines_clauses() -> None:
    search_filter = (
        TextSearchFilter()
        .equal_to("site", "example.com|b.org")
        .equal_to("site", "docs.example.com")
        .equal_to("exclude_site", "ads.example.com")
        .equal_to("language", "EN")
        .equal_to("country", "de")
        .equal_to("safe_search", "Strict")
        .equal_to("freshness", "day")
        .equal_to("mine", "x")
    )
    portable, rest = split_filter(search_filter, OWNER, PORTABLE_FIELDS, {"mine"})
    assert portable.site == ("docs.example.com",)
    assert portable.exclude_site == ("ads.example.com",)
    assert (portable.language, portable.country, portable.safe_search) == ("en", "DE", "strict")
    assert portable.freshness == Freshness(word="day")
    assert [c.field_name for c in rest] == ["mine"]
    assert portable.used == set(PORTABLE_FIELDS)


@pytest.mark.parametrize(
    ("search_filter", "error"),
    [
        (TextSearchFilter().equal_to("site", "a.com").equal_to("site", "b.com"), "in common"),
        (TextSearchFilter().equal_to("language", "en").equal_to("language", "de"), "twice"),
        (TextSearchFilter().equal_to("language", "eng"), "ISO 639-1"),
        (TextSearchFilter().equal_to("country", "DEU"), "ISO 3166-1"),
        (TextSearchFilter().equal_to("safe_search", "on"), "off, moderate or strict"),
        (
            TextSearchFilter().equal_to("site", "a.com").equal_to("exclude_site", "a.com"),
            "exclude_site",
        ),
    ],
)
def test_contradictions_and_bad_values_are_clear_errors(
    search_filter: TextSearchFilter, error: str
) -> None:
    with pytest.raises(InvalidRequestError) as info:
        split_filter(search_filter, OWNER, PORTABLE_FIELDS)
    assert error in str(info.value)
    assert not isinstance(info.value, UnsupportedFilterError)


def test_unknown_field_and_any_tag_name_the_supported_fields() -> None:
    with pytest.raises(UnsupportedFilterError) as info:
        split_filter(TextSearchFilter().equal_to("author", "x"), OWNER, ("site",), ("mine",))
    assert info.value.field_name == "author"
    assert info.value.supported_fields == ("mine", "site")
    with pytest.raises(UnsupportedFilterError):
        split_filter(TextSearchFilter().any_tag_equal_to("site", "a.com"), OWNER, ("site",))


def test_site_operators() -> None:
    assert site_operators(("a.com",), ()) == "site:a.com"
    assert (
        site_operators(("a.com", "b.com"), ("c.com",)) == "(site:a.com OR site:b.com) -site:c.com"
    )
    assert site_operators(None, ("c.com", "d.com")) == "-site:c.com -site:d.com"


# -- every web connector: the same filter, each provider's wire form ----------------------

BING = "https://api.bing.microsoft.com/v7.0/search"
BOCHA = "https://api.bochaai.com/v1/web-search"
BRAVE = "https://api.search.brave.com/res/v1/web/search"
TAVILY = "https://api.tavily.com/search"
EXA = "https://api.exa.ai/search"
SEARXNG = "http://searx.test/search"
KEY = "key-0123456789-portable"

OK_BODIES: dict[str, Any] = {
    BING: {"_type": "SearchResponse", "webPages": {"value": []}},
    BOCHA: {"code": 200, "data": {"webPages": {"value": []}}},
    BRAVE: {"type": "search", "web": {"type": "search", "results": []}},
    TAVILY: {"query": "q", "results": []},
    EXA: {"requestId": "r", "results": []},
    SEARXNG: {"query": "q", "results": []},
}


# One client for all (a new client costs a TLS context, ~0.1 s); the connectors never close it.
CLIENT = httpx.Client()
FACTORIES: dict[str, Any] = {
    "bing": (lambda: BingTextSearch(KEY, http_client=CLIENT), BING),
    "bocha": (lambda: BochaTextSearch(KEY, http_client=CLIENT), BOCHA),
    "brave": (lambda: BraveTextSearch(KEY, http_client=CLIENT), BRAVE),
    "tavily": (lambda: TavilyTextSearch(KEY, http_client=CLIENT), TAVILY),
    "exa": (lambda: ExaTextSearch(KEY, http_client=CLIENT), EXA),
    "searxng": (lambda: SearxngTextSearch("http://searx.test", http_client=CLIENT), SEARXNG),
}


def make(name: str) -> tuple[Any, str]:
    factory, url = FACTORIES[name]
    return factory(), url


def sent(name: str, search_filter: TextSearchFilter) -> httpx.Request:
    connector, url = make(name)
    with respx.mock() as mock:
        route = mock.route(url=url).respond(200, json=OK_BODIES[url])
        connector.search_sync("q", filter=search_filter)
        connector.close()
    assert route.call_count == 1
    return route.calls.last.request


def params(request: httpx.Request) -> dict[str, str]:
    return dict(request.url.params.multi_items())


def body(request: httpx.Request) -> dict[str, Any]:
    return json.loads(request.content)  # type: ignore[no-any-return]


DOMAINS = TextSearchFilter().equal_to("site", "a.com|b.org").equal_to("exclude_site", "ads.a.com")


def test_domains_on_every_provider() -> None:
    assert params(sent("bing", DOMAINS))["q"] == "(site:a.com OR site:b.org) -site:ads.a.com q"
    assert params(sent("brave", DOMAINS))["q"] == "q (site:a.com OR site:b.org) -site:ads.a.com"
    assert params(sent("searxng", DOMAINS))["q"] == "q (site:a.com OR site:b.org) -site:ads.a.com"
    bocha = body(sent("bocha", DOMAINS))
    assert (bocha["include"], bocha["exclude"]) == ("a.com|b.org", "ads.a.com")
    tavily = body(sent("tavily", DOMAINS))
    assert (tavily["include_domains"], tavily["exclude_domains"]) == (
        ["a.com", "b.org"],
        ["ads.a.com"],
    )
    exa = body(sent("exa", DOMAINS))
    assert (exa["includeDomains"], exa["excludeDomains"]) == (["a.com", "b.org"], ["ads.a.com"])


@pytest.mark.parametrize(
    ("word", "bing", "bocha", "brave"),
    [
        ("day", "Day", "oneDay", "pd"),
        ("week", "Week", "oneWeek", "pw"),
        ("month", "Month", "oneMonth", "pm"),
    ],
)
def test_relative_freshness_on_every_provider(word: str, bing: str, bocha: str, brave: str) -> None:
    fresh = TextSearchFilter().equal_to("freshness", word)
    assert params(sent("bing", fresh))["freshness"] == bing
    assert body(sent("bocha", fresh))["freshness"] == bocha
    assert params(sent("brave", fresh))["freshness"] == brave
    assert body(sent("tavily", fresh))["time_range"] == word
    assert params(sent("searxng", fresh))["time_range"] == word
    span = timedelta(days={"day": 1, "week": 7, "month": 31}[word])
    before = datetime.now(timezone.utc)
    exa = body(sent("exa", fresh))
    after = datetime.now(timezone.utc)
    # An instant, not a calendar day: "day" must not reach back to yesterday's midnight.
    assert exa["startPublishedDate"].endswith("Z")
    start = datetime.fromisoformat(exa["startPublishedDate"].replace("Z", "+00:00"))
    assert before - span - timedelta(seconds=1) <= start <= after - span
    assert "endPublishedDate" not in exa  # nothing is published in the future


def test_year_freshness_where_a_provider_has_no_word_for_it() -> None:
    fresh = TextSearchFilter().equal_to("freshness", "year")
    today = date.today()
    assert params(sent("bing", fresh))["freshness"] == (
        f"{(today - timedelta(days=365)).isoformat()}..{today.isoformat()}"
    )
    assert body(sent("bocha", fresh))["freshness"] == "oneYear"
    assert params(sent("brave", fresh))["freshness"] == "py"
    assert params(sent("searxng", fresh))["time_range"] == "year"


def test_date_range_freshness() -> None:
    fresh = TextSearchFilter().equal_to("freshness", "2025-01-01..2025-03-31")
    assert params(sent("bing", fresh))["freshness"] == "2025-01-01..2025-03-31"
    assert body(sent("bocha", fresh))["freshness"] == "2025-01-01..2025-03-31"
    assert params(sent("brave", fresh))["freshness"] == "2025-01-01to2025-03-31"
    tavily = body(sent("tavily", fresh))
    assert (tavily["start_date"], tavily["end_date"]) == ("2025-01-01", "2025-03-31")
    exa = body(sent("exa", fresh))
    assert exa["startPublishedDate"] == "2025-01-01T00:00:00.000Z"
    assert exa["endPublishedDate"] == "2025-03-31T23:59:59.999Z"


def test_language_country_and_safe_search() -> None:
    bing = params(
        sent(
            "bing",
            TextSearchFilter()
            .equal_to("language", "de")
            .equal_to("country", "de")
            .equal_to("safe_search", "strict"),
        )
    )
    assert (bing["q"], bing["cc"], bing["safeSearch"]) == ("language:de q", "DE", "Strict")
    brave = params(
        sent(
            "brave",
            TextSearchFilter()
            .equal_to("language", "ja")
            .equal_to("country", "JP")
            .equal_to("safe_search", "off"),
        )
    )
    assert (brave["search_lang"], brave["country"], brave["safesearch"]) == ("jp", "JP", "off")
    tavily = body(sent("tavily", TextSearchFilter().equal_to("country", "GB")))
    assert tavily["country"] == "united kingdom"
    exa = body(
        sent(
            "exa", TextSearchFilter().equal_to("country", "fr").equal_to("safe_search", "moderate")
        )
    )
    assert (exa["userLocation"], exa["moderation"]) == ("FR", True)
    assert (
        body(sent("exa", TextSearchFilter().equal_to("safe_search", "off")))["moderation"] is False
    )
    searxng = params(
        sent(
            "searxng",
            TextSearchFilter().equal_to("language", "fr").equal_to("safe_search", "strict"),
        )
    )
    assert (searxng["language"], searxng["safesearch"]) == ("fr", "2")


#: PROVIDERS.md §8: "—" is where a connector must refuse instead of dropping the filter.
UNSUPPORTED = [
    ("bocha", "language", "en"),
    ("bocha", "country", "DE"),
    ("bocha", "safe_search", "strict"),
    ("tavily", "language", "en"),
    ("tavily", "safe_search", "strict"),
    ("exa", "language", "en"),
    ("searxng", "country", "DE"),
    ("searxng", "freshness", "2025-01-01..2025-02-01"),
]


@pytest.mark.parametrize(("name", "field", "value"), UNSUPPORTED)
def test_a_field_a_provider_cannot_honour_is_refused_before_any_request(
    name: str, field: str, value: str
) -> None:
    connector, url = make(name)
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route(url=url).respond(200, json=OK_BODIES[url])
        with pytest.raises(UnsupportedFilterError) as info:
            connector.search_sync("q", filter=TextSearchFilter().equal_to(field, value))
        connector.close()
    assert route.call_count == 0
    assert info.value.field_name == field
    assert info.value.supported_fields  # names what would work


@pytest.mark.parametrize("name", ["bing", "bocha", "brave", "tavily", "exa", "searxng"])
def test_every_web_connector_accepts_site_and_freshness(name: str) -> None:
    connector, _ = make(name)
    supported = connector.supported_filter_fields
    assert {"site", "exclude_site", "freshness"} <= supported
    connector.close()


def test_tavily_country_needs_the_general_topic() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(TAVILY).respond(200, json=OK_BODIES[TAVILY])
        with pytest.raises(UnsupportedFilterError) as info:
            TavilyTextSearch(KEY, topic="news").search_sync(
                "q", filter=TextSearchFilter().equal_to("country", "DE")
            )
    assert route.call_count == 0
    assert "topic='general'" in str(info.value)


def test_url_allowed_checks_hosts_with_subdomains_and_idn() -> None:
    site, exclude = ("a.com", "bücher.de"), ("ads.a.com",)
    assert url_allowed("https://www.A.com/x", site, exclude)
    assert url_allowed("https://xn--bcher-kva.de/buch", site, exclude)  # the same host, IDNA
    assert url_allowed("https://bücher.de/buch", site, exclude)
    assert not url_allowed("https://ads.a.com/x", site, exclude)
    assert not url_allowed("https://nota.com/x", site, exclude)
    assert not url_allowed("https://a.com.evil.test/x", site, exclude)
    assert not url_allowed(None, site, exclude) and not url_allowed("http://[::1", site, ())
    assert url_allowed(None, None, ()) and url_allowed("https://x.org/", None, ("a.com",))
