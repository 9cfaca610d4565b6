"""The wrappers wherever a connector goes: plugins (with the loop guard) and grounding."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest

from textsearch import ConfigurationError, RateLimitError, TextSearchFilter
from textsearch.compose import CachedTextSearch, FallbackTextSearch, FusedTextSearch
from textsearch.grounding import Citations, format_results, ground, ground_sync
from textsearch.plugins import create_search_function, create_search_plugin
from textsearch.testing import StaticTextSearch

from ._compose_support import static

A1, B1 = "https://a.example/1", "https://b.example/1"


def _fused() -> FusedTextSearch:
    return FusedTextSearch([static(A1, B1, name="a"), static(B1, name="b")])


def test_plugin_over_fallback_answers_from_the_next_provider() -> None:
    fallback = FallbackTextSearch(
        [static(name="a", error=RateLimitError("429")), static(B1, name="b")]
    )
    plugin = create_search_plugin(fallback)
    payload = json.loads(plugin.invoke_sync("search", {"query": "q"}))
    assert [r["link"] for r in payload["results"]] == [B1]


def test_plugin_over_fallback_tells_the_model_when_all_failed() -> None:
    fallback = FallbackTextSearch([static(name="a", error=RateLimitError("429"))])
    text = asyncio.run(create_search_plugin(fallback).invoke("search", {"query": "q"}))
    # the only provider cools down for the default 60 s: the model is told when to come back
    assert "retry in about 60 seconds" in text and "429" not in text


@pytest.mark.parametrize("kind", ["search", "text_search_results", "search_results"])
def test_search_function_over_fusion_every_kind(kind: str) -> None:
    function = create_search_function(_fused(), kind=kind)  # type: ignore[arg-type]
    text = function.invoke_sync({"query": "q"})
    # "search" shows strings (the fused texts), the others show links too
    first, second = ("text a2", "text a1") if kind == "search" else ("b.example", "a.example")
    assert text.index(first) < text.index(second)
    if kind == "search_results":
        first = json.loads(text)["results"][0]
        assert first["link"] == B1 and first["sources"] == [["a", 2], ["b", 1]]


def test_preset_filter_reaches_every_fused_provider() -> None:
    a, b = static(A1, name="a"), static(B1, name="b")
    flt = TextSearchFilter().equal_to("site", "b.example")
    function = create_search_function(FusedTextSearch([a, b]), filter=flt)
    function.invoke_sync({"query": "q"})
    assert a.calls[0].options.filter == flt and b.calls[0].options.filter == flt


def test_grounding_over_fusion_and_cache() -> None:
    cache = CachedTextSearch(_fused())
    grounded = asyncio.run(ground(cache, "q"))
    assert grounded.prompt.index(B1) < grounded.prompt.index(A1)
    assert [s.link for s in grounded.citations] == [B1, A1]
    assert grounded.metadata["providers"] == ["a", "b"]
    assert ground_sync(cache, "q").prompt == grounded.prompt
    assert cache.stats.hits == 1
    results = cache.get_search_results_sync("q")
    assert "1. a2" in format_results(results, query="q")
    cites = Citations(results)
    assert cites.number_for("http://B.example/1/?utm_source=x") == 1


# -- the loop guard ---------------------------------------------------------------------


def test_third_identical_call_in_a_row_is_answered_with_a_note() -> None:
    inner = static(A1, name="a")
    function = create_search_function(inner)
    assert function.max_repeats == 3
    function.invoke_sync({"query": "Retry policy"})
    function.invoke_sync({"query": "  retry   POLICY "})
    note = function.invoke_sync({"query": "retry policy"})
    assert len(inner.calls) == 2
    assert "3 times in a row" in note and "different query" in note
    # still repeating: still no search
    function.invoke_sync({"query": "retry policy"})
    assert len(inner.calls) == 2
    # a different query resets the count
    function.invoke_sync({"query": "backoff"})
    function.invoke_sync({"query": "retry policy"})
    assert len(inner.calls) == 4


def test_paging_is_not_repeating() -> None:
    inner = static(A1, name="a")
    function = create_search_function(inner)
    for skip in range(4):
        function.invoke_sync({"query": "q", "skip": skip})
    assert len(inner.calls) == 4


def test_guard_async_and_configurable() -> None:
    inner = static(A1, name="a")
    function = create_search_function(inner, max_repeats=2)

    async def run() -> list[str]:
        return [await function.invoke({"query": "q"}) for _ in range(2)]

    first, second = asyncio.run(run())
    assert len(inner.calls) == 1 and "2 times in a row" in second

    unguarded = create_search_function(inner, max_repeats=None)
    for _ in range(5):
        unguarded.invoke_sync({"query": "q"})
    assert len(inner.calls) == 6


def test_plugin_passes_max_repeats_to_its_default_function() -> None:
    inner = static(A1, name="a")
    plugin = create_search_plugin(inner, max_repeats=None)
    for _ in range(4):
        plugin.invoke_sync("search", {"query": "q"})
    assert len(inner.calls) == 4
    guarded = create_search_plugin(inner)
    for _ in range(4):
        guarded.invoke_sync("search", {"query": "q"})
    assert len(inner.calls) == 6


def test_guard_is_thread_safe() -> None:
    inner = static(A1, name="a")
    function = create_search_function(inner, max_repeats=3)
    barrier = threading.Barrier(6)

    def worker() -> None:
        barrier.wait()
        function.invoke_sync({"query": "q"})

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert len(inner.calls) == 2


@pytest.mark.parametrize("bad", [0, 1, -3, True, 2.5, "3"])
def test_bad_max_repeats(bad: object) -> None:
    with pytest.raises(ConfigurationError):
        create_search_function(static(name="a"), max_repeats=bad)  # type: ignore[arg-type]


def test_wrappers_declare_the_filter_fields_every_wrapped_search_honours() -> None:

    class Narrow(StaticTextSearch):
        supported_filter_fields = frozenset({"site", "freshness"})

    class Wide(StaticTextSearch):
        supported_filter_fields = frozenset({"site", "language", "freshness"})

    narrow, wide = Narrow(["a"], name="n"), Wide(["b"], name="w")
    assert CachedTextSearch(wide).supported_filter_fields == {"site", "language", "freshness"}
    assert FallbackTextSearch([narrow, wide]).supported_filter_fields == {"site", "freshness"}
    assert FusedTextSearch([wide, narrow]).supported_filter_fields == {"site", "freshness"}
    assert FallbackTextSearch([StaticTextSearch(["c"])]).supported_filter_fields is None
