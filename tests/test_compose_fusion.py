from __future__ import annotations

import asyncio
import time

import pytest

from textsearch import (
    AuthenticationError,
    ConfigurationError,
    RateLimitError,
    SearchOptions,
    SearchTimeoutError,
    TextSearch,
    TextSearchFilter,
    TextSearchResult,
    UnsupportedFilterError,
)
from textsearch.compose import AllProvidersFailedError, FusedResult, FusedTextSearch
from textsearch.testing import StaticDocument, StaticTextSearch

from ._compose_support import Meeting, ProtocolOnly, SlowSearch, docs, static

U1, U2, U3, U4 = (f"https://site.example/{n}" for n in ("one", "two", "three", "four"))


def test_public_names() -> None:
    import textsearch

    assert textsearch.FusedTextSearch is FusedTextSearch
    assert textsearch.FusedResult is FusedResult


def test_rrf_order_and_scores_computed_by_hand() -> None:
    fused = FusedTextSearch([static(U1, U2, U3, name="a"), static(U2, U4, U1, name="b")])
    assert isinstance(fused, TextSearch)
    results = fused.get_search_results_sync("q", top=10)
    # u2: 1/(60+2) + 1/(60+1); u1: 1/61 + 1/63; u4: 1/62; u3: 1/63
    assert [r.link for r in results] == [U2, U1, U4, U3]
    expected = {U2: 1 / 62 + 1 / 61, U1: 1 / 61 + 1 / 63, U4: 1 / 62, U3: 1 / 63}
    for item in results:
        assert isinstance(item, FusedResult)
        assert item.score == pytest.approx(expected[item.link or ""])
    assert results[0].sources == [("a", 2), ("b", 1)]
    assert results[1].sources == [("a", 1), ("b", 3)]
    assert results[2].sources == [("b", 2)]
    assert results.total_count is None
    assert results.metadata == {"providers": ["a", "b"], "failed": []}


def test_weights_and_k() -> None:
    a, b = static(U1, U2, U3, name="a"), static(U2, U4, U1, name="b")
    # a weighted 3: u1 = 3/61 + 1/63 beats u2 = 3/62 + 1/61; u3 = 3/63 beats u4 = 1/62
    weighted = FusedTextSearch([a, b], weights=[3, 1]).get_search_results_sync("q", top=10)
    assert [r.link for r in weighted] == [U1, U2, U3, U4]
    assert weighted[0].score == pytest.approx(3 / 61 + 1 / 63)
    # k=0: 1/rank; u1 = 1 + 1/3, u2 = 1/2 + 1, u4 = 1/2, u3 = 1/3
    sharp = FusedTextSearch([a, b], k=0).get_search_results_sync("q", top=10)
    assert [r.link for r in sharp] == [U2, U1, U4, U3]
    assert sharp[0].score == pytest.approx(1.5)


def test_ties_go_to_the_better_rank_then_provider_order() -> None:
    results = FusedTextSearch([static(U1, U3, name="a"), static(U2, U4, name="b")])
    assert [r.link for r in results.get_search_results_sync("q", top=4)] == [U1, U2, U3, U4]


def test_a_link_listed_twice_by_one_provider_is_one_vote() -> None:
    twice = static(U1, U1 + "?utm_source=feed", U2, name="a")
    once = static(U2, U1, name="b")
    results = FusedTextSearch([twice, once]).get_search_results_sync("q", top=10)
    by_link = {r.link: r for r in results}
    # ranks count after the duplicate is removed: u2 is a's 2nd, not 3rd
    assert by_link[U2].sources == [("a", 2), ("b", 1)]
    assert by_link[U1].sources == [("a", 1), ("b", 2)]
    assert by_link[U1].score == pytest.approx(1 / 61 + 1 / 62)
    assert len(results) == 2


def test_merges_across_providers_by_canonical_link_and_keeps_the_first_result() -> None:
    a = StaticTextSearch(
        [
            {
                "name": "From A",
                "value": "a text",
                "link": "https://Site.example:443/one?utm_medium=x#frag",
            }
        ],
        match="always",
        name="a",
    )
    b = StaticTextSearch(
        [{"name": "From B", "value": "b text", "link": "http://site.example/one/"}],
        match="always",
        name="b",
    )
    (only,) = FusedTextSearch([a, b]).get_search_results_sync("q")
    assert only.sources == [("a", 1), ("b", 1)]
    assert isinstance(only.result, StaticDocument)
    assert only.result.name == "From A"
    assert only.text_search_result == TextSearchResult(
        "From A", "a text", "https://Site.example:443/one?utm_medium=x#frag"
    )
    assert (only.name, only.value, only.link) == ("From A", "a text", only.text_search_result.link)


def test_results_without_links_merge_only_when_identical() -> None:
    a = StaticTextSearch(["same text", "only a"], match="always", name="a")
    b = StaticTextSearch(["same text"], match="always", name="b")
    results = FusedTextSearch([a, b]).get_text_search_results_sync("q")
    assert [r.value for r in results] == ["same text", "only a"]


def test_every_shape_async_and_sync_agree() -> None:
    fused = FusedTextSearch([static(U1, U2, name="a"), static(U2, name="b")])
    assert fused.search_sync("q").results == ["text a2", "text a1"]
    assert asyncio.run(fused.search("q")).results == ["text a2", "text a1"]
    texts = asyncio.run(fused.get_text_search_results("q"))
    assert [t.link for t in texts] == [U2, U1]
    assert texts.results == fused.get_text_search_results_sync("q").results
    natives = asyncio.run(fused.get_search_results("q"))
    assert [n.sources for n in natives] == [n.sources for n in fused.get_search_results_sync("q")]


def test_skip_and_top_apply_to_the_fused_list() -> None:
    a = static(U1, U2, U3, U4, name="a")
    b = static(U4, U3, U2, U1, name="b", max_top=3)
    fused = FusedTextSearch([a, b])
    page = fused.get_search_results_sync("q", top=2, skip=1)
    # each provider is asked for top + skip = 3 from the start (b's max_top is 3, too)
    assert a.calls[-1].options == SearchOptions(top=3)
    assert b.calls[-1].options == SearchOptions(top=3)
    full = fused.get_search_results_sync("q", top=3)
    assert [r.link for r in page] == [r.link for r in full][1:3]
    assert fused.max_top == 3


def test_top_plus_skip_is_capped_at_each_providers_maximum() -> None:
    a, b = static(U1, name="a", max_top=3), static(U2, name="b", max_top=50)
    FusedTextSearch([a, b]).get_search_results_sync("q", top=3, skip=5)
    assert a.calls[-1].options.top == 3
    assert b.calls[-1].options.top == 8


def test_filter_reaches_every_provider() -> None:
    a = StaticTextSearch(docs("https://keep.example/1", "https://drop.example/1"), match="always")
    b = StaticTextSearch(docs("https://keep.example/2"), match="always")
    flt = TextSearchFilter().equal_to("site", "keep.example")
    results = FusedTextSearch([a, b]).get_text_search_results_sync("q", filter=flt)
    assert sorted(r.link or "" for r in results) == [
        "https://keep.example/1",
        "https://keep.example/2",
    ]


def test_a_filter_one_provider_cannot_honour_is_an_error_before_any_request() -> None:
    class SiteOnly(StaticTextSearch):
        supported_filter_fields = frozenset({"site"})

    a, b = static(U1, name="a"), SiteOnly(docs(U2), match="always", name="b")
    fused = FusedTextSearch([a, b])
    with pytest.raises(UnsupportedFilterError):
        fused.search_sync("q", filter=TextSearchFilter().equal_to("language", "en"))
    with pytest.raises(UnsupportedFilterError):
        asyncio.run(fused.search("q", filter=TextSearchFilter().equal_to("language", "en")))
    assert a.calls == [] and b.calls == []


def test_a_failed_provider_is_reported_and_left_out() -> None:
    broken = static(U3, name="broken", error=RateLimitError("429 from upstream", retry_after=3))
    fused = FusedTextSearch([static(U1, name="a"), broken, static(U2, name="b")])
    for results in (
        fused.get_text_search_results_sync("q"),
        asyncio.run(fused.get_text_search_results("q")),
    ):
        assert [r.link for r in results] == [U1, U2]
        assert results.metadata["providers"] == ["a", "b"]
        assert results.metadata["failed"] == [
            {"provider": "broken", "error": "RateLimitError", "reason": "429 from upstream"}
        ]


def test_all_failing_raises_with_every_error() -> None:
    errors = [RateLimitError("x", retry_after=7), AuthenticationError("bad key")]
    fused = FusedTextSearch([static(name="a", error=errors[0]), static(name="b", error=errors[1])])
    for run in (lambda: fused.search_sync("q"), lambda: asyncio.run(fused.search("q"))):
        with pytest.raises(AllProvidersFailedError) as caught:
            run()
        assert caught.value.errors == errors
        assert caught.value.retry_after == 7
        assert caught.value.provider == "fused"


def test_a_bug_in_one_provider_is_raised_not_hidden() -> None:
    fused = FusedTextSearch([static(U1, name="a"), static(name="b", error=KeyError("bug"))])
    with pytest.raises(KeyError):
        fused.search_sync("q")
    with pytest.raises(KeyError):
        asyncio.run(fused.search("q"))


# Concurrency is shown by a count, not a time limit (issue #33 item 18): each provider
# waits until all three are in flight, so one after another the first waits alone and the
# meeting never holds more than one.


def _meeting_of_three() -> tuple[Meeting, list[SlowSearch]]:
    meeting = Meeting(3)
    slow = [
        SlowSearch(docs(f"https://s{i}.example/"), delay=0.0, name=f"s{i}", meeting=meeting)
        for i in range(3)
    ]
    return meeting, slow


def test_providers_run_concurrently_async() -> None:
    meeting, slow = _meeting_of_three()
    fused = FusedTextSearch(slow)
    results = asyncio.run(fused.get_text_search_results("q"))
    assert len(results) == 3
    assert meeting.most_in_flight == 3, "one by one"


def test_providers_run_concurrently_sync() -> None:
    meeting, slow = _meeting_of_three()
    with FusedTextSearch(slow) as fused:
        results = fused.get_text_search_results_sync("q")
    assert len(results) == 3
    assert meeting.most_in_flight == 3, "one by one"


@pytest.mark.parametrize("blocking", [False, True])
def test_per_search_timeout_leaves_out_the_slow_provider(blocking: bool) -> None:
    fast = SlowSearch(docs(U1), delay=0.0, name="fast")
    # A minute's delay (a blocking one is released at the end): waiting for it cannot pass
    # under a bound of half that minute, which no load stretches a 0.2 s timeout to.
    slow = SlowSearch(docs(U2), delay=60.0, name="slow")
    fused = FusedTextSearch([fast, slow], per_search_timeout=0.2)
    started = time.perf_counter()
    if blocking:
        results = fused.get_text_search_results_sync("q")
    else:
        results = asyncio.run(fused.get_text_search_results("q"))
    elapsed = time.perf_counter() - started
    slow.release()
    fused.close()
    assert [r.link for r in results] == [U1]
    assert elapsed < 30.0
    (failed,) = results.metadata["failed"]
    assert failed["provider"] == "slow" and failed["error"] == SearchTimeoutError.__name__
    assert "0.2 s" in failed["reason"]


def test_protocol_only_provider_is_fused_through_its_normalized_results() -> None:
    third_party = ProtocolOnly([U2, U1])
    results = FusedTextSearch([static(U1, name="a"), third_party]).get_search_results_sync("q")
    assert [r.link for r in results] == [U1, U2]
    assert third_party.calls == 1
    assert isinstance(results[1].result, TextSearchResult)


def test_fused_result_serializes_with_its_link() -> None:
    (item,) = FusedTextSearch([static(U1, name="a")]).get_search_results_sync("q")
    data = item.model_dump(mode="json")
    assert data["link"] == U1 and data["name"] == "a1"
    assert data["sources"] == [["a", 1]]
    assert data["result"]["link"] == U1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k": -1},
        {"weights": [1]},
        {"weights": [1, -2]},
        {"weights": "ab"},
        {"per_search_timeout": -0.1},
    ],
)
def test_bad_configuration(kwargs: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        FusedTextSearch([static(name="a"), static(name="b")], **kwargs)  # type: ignore[arg-type]


def test_close_releases_threads_and_closes_wrapped_only_when_asked() -> None:
    class Closing(StaticTextSearch):
        closed = 0

        def close(self) -> None:
            self.closed += 1

    a, b = Closing(name="a"), Closing(name="b")
    fused = FusedTextSearch([a, b])
    fused.search_sync("q")
    assert any(pool is not None for pool in fused._executors)
    fused.close()
    assert all(pool is None for pool in fused._executors) and a.closed == b.closed == 0
    fused.search_sync("q")  # usable again: a new pool is made when needed
    fused.close()
    with FusedTextSearch([a, b], close_wrapped=True):
        pass
    assert a.closed == b.closed == 1


def test_fused_result_of_an_unserializable_native_result_still_dumps() -> None:
    class Opaque:
        def __str__(self) -> str:
            return "opaque result"

    text = TextSearchResult("t", "v", U1)
    item = FusedResult(result=Opaque(), text_search_result=text, score=0.5, sources=[("x", 1)])
    assert item.model_dump(mode="json")["result"] == "opaque result"


def test_k_message_does_not_talk_about_seconds() -> None:
    with pytest.raises(ConfigurationError, match=r"k must be a number >= 0"):
        FusedTextSearch([static(name="a")], k=-1)


def test_an_unsupported_filter_found_only_at_call_time_is_raised_not_dropped() -> None:
    class Refusing(ProtocolOnly):
        def get_text_search_results_sync(self, query, options=None, **kwargs):  # type: ignore[no-untyped-def]
            raise UnsupportedFilterError("cannot filter on 'language'")

        async def get_text_search_results(self, query, options=None, **kwargs):  # type: ignore[no-untyped-def]
            raise UnsupportedFilterError("cannot filter on 'language'")

    fused = FusedTextSearch([static(U1, name="a"), Refusing([U2])])
    flt = TextSearchFilter().equal_to("language", "en")
    with pytest.raises(UnsupportedFilterError):
        fused.search_sync("q", filter=flt)
    with pytest.raises(UnsupportedFilterError):
        asyncio.run(fused.search("q", filter=flt))
    fused.close()
