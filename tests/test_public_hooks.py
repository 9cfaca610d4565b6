"""The public hooks wrappers use: check a request, map native results, read a document.

A third-party connector that implements the ``TextSearch`` protocol directly (not
``BaseTextSearch``) gets the same fusion, fallback and caching behaviour by offering them;
one without them still works, checked when called and read through its normalized results.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest

from textsearch import (
    InvalidRequestError,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)
from textsearch.base import DocumentReader, RequestChecker, ResultMapper, resolve_options
from textsearch.compose import CachedTextSearch, FallbackTextSearch, FusedTextSearch
from textsearch.grounding import ground_sync
from textsearch.testing import StaticDocument, StaticTextSearch


def _docs(*links: str) -> list[dict[str, str]]:
    return [{"name": f"title {link}", "value": f"text {link}", "link": link} for link in links]


# -- BaseTextSearch offers every hook ---------------------------------------------------------


def test_prepare_request_validates_like_the_search_methods() -> None:
    search = StaticTextSearch(_docs("https://a.example/"), max_top=5)
    query, options = search.prepare_request("q", top=3)
    assert query == "q" and options.top == 3
    with pytest.raises(InvalidRequestError, match="empty"):
        search.prepare_request("  ")
    with pytest.raises(InvalidRequestError, match="maximum of 5"):
        search.prepare_request("q", SearchOptions(top=6))
    assert search.calls == []


class Narrow(StaticTextSearch):
    supported_filter_fields = frozenset({"site"})


def test_check_filter_and_check_request() -> None:
    search = Narrow(_docs("https://a.example/"), max_top=5)
    search.check_filter(TextSearchFilter().equal_to("site", "a.example"))
    with pytest.raises(UnsupportedFilterError, match="'lang'"):
        search.check_filter(TextSearchFilter().equal_to("lang", "en"))
    _, resolved = resolve_options("q", SearchOptions(top=9), {}, max_top=50)
    with pytest.raises(InvalidRequestError, match="maximum of 5"):
        search.check_request("q", resolved)
    search.check_request("q", SearchOptions(top=5))
    assert isinstance(search, RequestChecker) and isinstance(search, ResultMapper)


class ShortQueries(StaticTextSearch):
    """A rule of its own in ``_prepare``, the subclass hook: check_request applies it."""

    def _prepare(
        self, query: str, options: SearchOptions | None, kwargs: dict[str, Any]
    ) -> tuple[str, SearchOptions]:
        if len(query) > 5:
            raise InvalidRequestError("query too long for this backend")
        return super()._prepare(query, options, kwargs)


def test_check_request_applies_an_overridden_prepare() -> None:
    with pytest.raises(InvalidRequestError, match="too long"):
        ShortQueries().check_request("a long query", SearchOptions())
    ShortQueries().check_request("short", SearchOptions())


def test_mapping_hooks_honour_the_mappers() -> None:
    plain = StaticTextSearch(_docs("https://a.example/"), match="always")
    (document,) = plain.get_search_results_sync("q", top=1)
    assert plain.to_text_search_result(document).link == "https://a.example/"
    assert plain.to_string(document) == "text https://a.example/"
    assert plain.strings_are_text()

    mapped = StaticTextSearch(
        _docs("https://a.example/"),
        string_mapper=lambda d: f"mapped:{d.name}",
        text_search_result_mapper=lambda d: TextSearchResult(name="n", value="v", link="l"),
    )
    assert mapped.to_string(document) == "mapped:title https://a.example/"
    assert mapped.to_text_search_result(document) == TextSearchResult(name="n", value="v", link="l")
    assert not mapped.strings_are_text()

    class OwnStrings(StaticTextSearch):
        def _default_string(self, item: StaticDocument) -> str:
            return f"own:{item.name}"

    assert not OwnStrings().strings_are_text()


# -- a third-party connector with the hooks ---------------------------------------------------


@dataclass(frozen=True)
class Page:
    """A third party's own native result."""

    title: str
    url: str
    score: float


class ThirdParty:
    """Implements the TextSearch protocol directly, with the public hooks; counts requests."""

    def __init__(self, *urls: str, name: str, fields: frozenset[str] = frozenset()) -> None:
        self.pages = [Page(f"{name} {u}", u, 1.0 / (i + 1)) for i, u in enumerate(urls)]
        self.name = name
        self.fields = fields
        self.requests: list[str] = []

    # -- hooks
    def check_request(self, query: str, options: SearchOptions) -> None:
        for field_name in options.filter.field_names if options.filter else ():
            if field_name not in self.fields:
                raise UnsupportedFilterError(f"{self.name} cannot filter on {field_name!r}")

    def to_text_search_result(self, item: Page) -> TextSearchResult:
        return TextSearchResult(name=item.title, value=f"about {item.title}", link=item.url)

    def to_string(self, item: Page) -> str:
        return f"{self.name}:{item.title}"

    def strings_are_text(self) -> bool:
        return False

    # -- the protocol
    def _native(self, kind: str, options: SearchOptions | None) -> SearchResults[Page]:
        self.requests.append(kind)
        top = options.top if options else 5
        return SearchResults(self.pages[:top], len(self.pages))

    async def search(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        return self.search_sync(query, options, **kwargs)

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        return self.get_text_search_results_sync(query, options, **kwargs)

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[Page]:
        return self.get_search_results_sync(query, options, **kwargs)

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[str]:
        native = self._native("search", options)
        return SearchResults([self.to_string(p) for p in native], native.total_count)

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[TextSearchResult]:
        native = self._native("text", options)
        return SearchResults([self.to_text_search_result(p) for p in native], native.total_count)

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[Page]:
        return self._native("native", options)


def _bare(*urls: str, name: str) -> Any:
    # A class with no hook at all (not a subclass that hides them).
    pages = ThirdParty(*urls, name=name)

    class Plain:
        def __init__(self) -> None:
            self.name = name
            self.requests = pages.requests

        async def search(self, query: str, options: Any = None, **kw: Any) -> Any:
            return pages.search_sync(query, options)

        async def get_text_search_results(self, query: str, options: Any = None, **kw: Any) -> Any:
            return pages.get_text_search_results_sync(query, options)

        async def get_search_results(self, query: str, options: Any = None, **kw: Any) -> Any:
            return pages.get_search_results_sync(query, options)

        def search_sync(self, query: str, options: Any = None, **kw: Any) -> Any:
            return pages.search_sync(query, options)

        def get_text_search_results_sync(self, query: str, options: Any = None, **kw: Any) -> Any:
            return pages.get_text_search_results_sync(query, options)

        def get_search_results_sync(self, query: str, options: Any = None, **kw: Any) -> Any:
            return pages.get_search_results_sync(query, options)

    return Plain()


U1, U2, U3 = "https://one.example/", "https://two.example/", "https://three.example/"


@pytest.mark.parametrize("blocking", [True, False])
def test_fusion_maps_a_third_partys_native_results_from_one_request(blocking: bool) -> None:
    a = ThirdParty(U1, U2, name="a")
    b = ThirdParty(U2, U3, name="b")
    fused = FusedTextSearch([a, b])

    def run(method: str) -> Any:
        if blocking:
            return getattr(fused, method + "_sync")("q")
        return asyncio.run(getattr(fused, method)("q"))

    natives = run("get_search_results")
    assert a.requests == ["native"] and b.requests == ["native"]
    # The fused results keep the third party's own native models, mapped by its own hook.
    assert [type(n.result) for n in natives] == [Page, Page, Page]
    assert [n.link for n in natives] == [U2, U1, U3]
    assert natives[0].value == "about a https://two.example/"
    # Strings come from its to_string (strings_are_text() is False): one native request.
    strings = run("search")
    assert list(strings) == ["a:a https://two.example/", "a:a https://one.example/", "b:b " + U3]
    assert a.requests == ["native", "native"]


def test_a_third_partys_check_request_runs_before_any_request() -> None:
    narrow = ThirdParty(U1, name="narrow")
    broad = StaticTextSearch(_docs(U2), match="always")
    bad = TextSearchFilter().equal_to("lang", "en")
    for wrapper in (
        FusedTextSearch([broad, narrow]),
        FallbackTextSearch([broad, narrow]),
        CachedTextSearch(narrow),
    ):
        with pytest.raises(UnsupportedFilterError, match="narrow cannot filter on 'lang'"):
            wrapper.search_sync("q", filter=bad)
    assert narrow.requests == [] and broad.calls == []


def test_caching_a_third_party_connector() -> None:
    search = ThirdParty(U1, U2, name="t")
    cached = CachedTextSearch(search)
    first = cached.get_search_results_sync("q")
    again = cached.get_search_results_sync("q")
    assert list(first) == list(again) and search.requests == ["native"]
    assert cached.stats.hits == 1


@pytest.mark.parametrize("blocking", [True, False])
def test_a_connector_without_hooks_still_fuses_through_its_normalized_results(
    blocking: bool,
) -> None:
    a, b = _bare(U1, U2, name="a"), _bare(U2, U3, name="b")
    assert not isinstance(a, RequestChecker) and not isinstance(a, ResultMapper)
    fused = FusedTextSearch([a, b])
    natives = (
        fused.get_search_results_sync("q")
        if blocking
        else asyncio.run(fused.get_search_results("q"))
    )
    # No native mapping offered: its normalized results stand in for the native ones.
    assert [type(n.result) for n in natives] == [TextSearchResult] * 3
    assert [n.link for n in natives] == [U2, U1, U3]
    assert a.requests == ["text"] and b.requests == ["text"]
    # No check_request: a filter is only checked by the search itself, when called.
    fused.search_sync("q", filter=TextSearchFilter().equal_to("lang", "en"))


# -- reading stored documents -----------------------------------------------------------------


@dataclass(frozen=True)
class Stored:
    id: str
    title: str
    url: str
    text: str


class Library(ThirdParty):
    """A third party that stores whole documents and returns passages."""

    def __init__(self) -> None:
        super().__init__(name="library")
        self.docs = {"d1": Stored("d1", "Retry guide", "kb://d1", "The whole retry guide.")}
        self.reads: list[tuple[str, TextSearchFilter | None]] = []

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Any
    ) -> SearchResults[Any]:
        self.requests.append("native")
        return SearchResults([Stored("d1", "Retry guide", "kb://d1", "a passage")], 1)

    def to_text_search_result(self, item: Any) -> TextSearchResult:
        return TextSearchResult(name=item.title, value=item.text, link=item.url)

    def get_document(self, key: str, *, filter: TextSearchFilter | None = None) -> Any:
        self.reads.append((key, filter))
        return self.docs.get(key)


def test_grounding_reads_a_third_partys_stored_document() -> None:
    library = Library()
    assert isinstance(library, DocumentReader)
    grounded = ground_sync(library, "retry", full_pages=True)
    assert "The whole retry guide." in grounded.prompt
    assert "a passage" not in grounded.prompt
    assert library.reads == [("d1", None)]


def test_a_static_check_request_is_called_too() -> None:
    seen: list[str] = []

    class Static(ThirdParty):
        @staticmethod
        def check_request(query: str, options: SearchOptions) -> None:
            seen.append(query)
            raise InvalidRequestError("refused by a static check")

    refusing = Static(U1, name="static")
    with pytest.raises(InvalidRequestError, match="static check"):
        FusedTextSearch([refusing, ThirdParty(U2, name="other")]).search_sync("q")
    assert seen == ["q"] and refusing.requests == []
