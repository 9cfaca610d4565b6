from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests._protocol_only import ProtocolOnly
from textsearch import (
    BaseTextSearch,
    InvalidRequestError,
    SearchOptions,
    SearchResults,
    TextSearch,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)
from textsearch.testing import StaticDocument, StaticTextSearch


class AsyncOnly(BaseTextSearch[dict[str, str]]):
    """A third-party style connector: only async I/O, built on the base class."""

    supported_filter_fields = frozenset({"lang"})

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.fetched: list[tuple[str, SearchOptions]] = []
        self.closed = False

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[dict[str, str]]:
        self.fetched.append((query, options))
        await asyncio.sleep(0)
        items = [
            {"title": f"{query} {i}", "body": f"body {i}", "url": f"https://e.x/{i}"}
            for i in range(options.skip, options.skip + options.top)
        ]
        return SearchResults(items, 100 if options.include_total_count else None, {"src": "t"})

    def _to_text_search_result(self, item: dict[str, str]) -> TextSearchResult:
        return TextSearchResult(item["title"], item["body"], item["url"])

    def close(self) -> None:
        self.closed = True


def test_base_gives_three_shapes_from_two_hooks() -> None:
    search = AsyncOnly()
    strings = search.search_sync("q", top=2)
    assert strings.results == ["body 0", "body 1"]
    texts = search.get_text_search_results_sync("q", top=1)
    assert texts.results == [TextSearchResult("q 0", "body 0", "https://e.x/0")]
    native = search.get_search_results_sync("q", top=1, skip=4, include_total_count=True)
    assert native.results[0]["url"] == "https://e.x/4"
    assert native.total_count == 100
    assert native.metadata == {"src": "t"}


@pytest.mark.anyio
async def test_async_methods_and_shortcuts_override_options() -> None:
    search = AsyncOnly()
    options = SearchOptions(top=4, skip=2)
    result = await search.get_text_search_results("q", options, top=1)
    assert len(result) == 1
    assert search.fetched[-1][1] == SearchOptions(top=1, skip=2)
    assert (await search.search("q")).results == [f"body {i}" for i in range(5)]
    assert len(await search.get_search_results("q", top=2)) == 2


@pytest.mark.anyio
async def test_sync_twin_refuses_to_run_inside_an_event_loop() -> None:
    with pytest.raises(RuntimeError, match="await the async method"):
        AsyncOnly().search_sync("q")


@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
def test_empty_query_is_rejected_before_fetching(query: str) -> None:
    search = AsyncOnly()
    with pytest.raises(InvalidRequestError, match="empty"):
        search.search_sync(query)
    assert search.fetched == []


def test_non_string_query_and_bad_options_are_rejected_before_fetching() -> None:
    search = AsyncOnly()
    with pytest.raises(InvalidRequestError):
        search.search_sync(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidRequestError):
        search.search_sync("q", options={"top": 3})  # type: ignore[arg-type]
    with pytest.raises(InvalidRequestError, match="unknown search option"):
        search.search_sync("q", colour="red")
    with pytest.raises(InvalidRequestError, match="maximum of 50"):
        search.search_sync("q", top=51)
    assert search.fetched == []


def test_top_at_the_maximum_is_accepted() -> None:
    assert len(AsyncOnly().search_sync("q", top=50)) == 50


def test_unsupported_filter_field_names_the_supported_ones() -> None:
    search = AsyncOnly()
    with pytest.raises(UnsupportedFilterError) as info:
        search.search_sync("q", filter=TextSearchFilter().equal_to("site", "x"))
    assert info.value.supported_fields == ("lang",)
    assert "lang" in str(info.value)
    assert search.fetched == []
    search.search_sync("q", filter=TextSearchFilter().equal_to("lang", "en"))
    assert search.fetched[-1][1].filter == TextSearchFilter().equal_to("lang", "en")


def test_per_instance_mappers() -> None:
    custom = AsyncOnly(
        string_mapper=lambda item: item["url"],
        text_search_result_mapper=lambda item: TextSearchResult(name=item["title"].upper()),
    )
    plain = AsyncOnly()
    assert custom.search_sync("q", top=1).results == ["https://e.x/0"]
    assert custom.get_text_search_results_sync("q", top=1)[0] == TextSearchResult("Q 0")
    assert plain.search_sync("q", top=1).results == ["body 0"]


def test_context_managers_close() -> None:
    with AsyncOnly() as search:
        pass
    assert search.closed

    async def run() -> AsyncOnly:
        async with AsyncOnly() as inner:
            return inner

    assert asyncio.run(run()).closed


def test_protocol_is_runtime_checkable() -> None:
    assert isinstance(ProtocolOnly(), TextSearch)
    assert isinstance(AsyncOnly(), TextSearch)
    assert isinstance(StaticTextSearch(), TextSearch)
    assert not isinstance(object(), TextSearch)


def test_static_text_search_honours_options_filters_and_records_calls() -> None:
    search = StaticTextSearch(
        [
            {
                "name": "Retry",
                "value": "use backoff",
                "link": "https://kb.example/a",
                "metadata": {"tags": ["ops"], "year": 2024},
            },
            {
                "name": "Other",
                "value": "backoff again",
                "link": "https://other.example/b",
                "metadata": {"tags": ["dev"], "year": 2025},
            },
            TextSearchResult("Third", "no match here", None),
            "backoff as plain string",
        ]
    )
    assert len(search.search_sync("backoff")) == 3
    ops = TextSearchFilter().any_tag_equal_to("tags", "ops")
    assert search.search_sync("backoff", filter=ops).results == ["use backoff"]
    site = TextSearchFilter().equal_to("site", "other.example")
    assert search.search_sync("backoff", filter=site).results == ["backoff again"]
    paged = search.get_search_results_sync("backoff", top=1, skip=1, include_total_count=True)
    assert paged.results == [
        StaticDocument(
            name="Other",
            value="backoff again",
            link="https://other.example/b",
            metadata={"tags": ["dev"], "year": 2025},
        )
    ]
    assert paged.total_count == 3
    assert [c.query for c in search.calls] == ["backoff"] * 4
    assert search.calls[1].options.filter == ops


def test_static_text_search_can_fail_on_purpose() -> None:
    from textsearch import RateLimitError

    search = StaticTextSearch(["x"], error=RateLimitError("slow", retry_after=1.0))
    with pytest.raises(RateLimitError):
        search.search_sync("x")
    assert len(search.calls) == 1


def test_query_with_a_lone_surrogate_is_rejected_before_fetching() -> None:
    search = AsyncOnly()
    with pytest.raises(InvalidRequestError, match="Unicode"):
        search.search_sync("hel\ud800lo")
    assert search.fetched == []


def test_kept_plain_options_never_let_a_bad_value_through() -> None:
    # Options from plain shortcuts are kept and reused; True == 1 must not find the kept
    # top=1 entry (a bool is refused as a count), and every refusal stays a refusal.
    from textsearch.base import resolve_options

    _, one = resolve_options("q", None, {"top": 1}, max_top=50)
    _, again = resolve_options("q", None, {"top": 1}, max_top=50)
    assert one == SearchOptions(top=1) and again is one
    for bad in (True, 2.5, 0, -1):
        for _ in range(2):
            with pytest.raises(InvalidRequestError):
                resolve_options("q", None, {"top": bad}, max_top=50)
    with pytest.raises(InvalidRequestError):
        resolve_options("q", None, {"top": 51}, max_top=50)
    with pytest.raises(InvalidRequestError):
        resolve_options("q", None, {"tpo": 3}, max_top=50)
    _, flagged = resolve_options("q", None, {"include_total_count": True, "skip": 3}, max_top=50)
    assert (flagged.include_total_count, flagged.skip, flagged.top) == (True, 3, 5)
    search_filter = TextSearchFilter().equal_to("site", "a.com")
    _, filtered = resolve_options("q", None, {"filter": search_filter, "top": 1}, max_top=50)
    assert filtered.filter is search_filter and filtered is not one


def test_plain_options_are_the_validated_options() -> None:
    # Shortcuts whose values validation accepts unchanged are built without the validator:
    # the same value, fields set and refusals as SearchOptions(**kwargs).
    from textsearch.base import resolve_options

    cases: list[dict[str, Any]] = [
        {"top": 1},
        {"top": 50, "skip": SearchOptions.MAX_SKIP},
        {"skip": 0, "include_total_count": False},
        {"include_total_count": True},
        {"include_total_count": 1},
        {"include_total_count": 0, "top": 7},
    ]
    for kwargs in cases:
        _, got = resolve_options("q", None, kwargs, max_top=50)
        want = SearchOptions(**kwargs)
        assert got == want and got.model_fields_set == want.model_fields_set, kwargs
        assert type(got.include_total_count) is bool
    for bad in ({"skip": SearchOptions.MAX_SKIP + 1}, {"skip": -1}, {"top": 0}, {"skip": True}):
        with pytest.raises(InvalidRequestError):
            resolve_options("q", None, bad, max_top=50)
