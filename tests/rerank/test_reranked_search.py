"""RerankedTextSearch: candidates, order, paging, filter, errors, diversity, plugins and MCP."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from textsearch import RerankedResult, RerankedTextSearch, TextSearch, TextSearchFilter
from textsearch.embeddings import FunctionEmbedder
from textsearch.errors import (
    ConfigurationError,
    ProviderError,
    RateLimitError,
    ResponseFormatError,
    UnsupportedFilterError,
)
from textsearch.rerank import EmbeddingReranker, FunctionReranker, Reranker, rerank_sync
from textsearch.testing import StaticTextSearch

DOCS = [
    {"name": f"Doc {i}", "value": f"text {i}", "link": f"https://a.example/{i}",
     "metadata": {"lang": "en" if i % 2 else "de"}}
    for i in range(12)
]  # fmt: skip


def by_number(query: str, texts: list[str]) -> list[float]:
    """Higher for a higher document number: the reverse of the first-stage order."""
    return [float(re.findall(r"\d+", t)[0]) for t in texts]


def make(**kwargs: Any) -> tuple[StaticTextSearch, RerankedTextSearch]:
    inner = StaticTextSearch(DOCS, match="always")
    reranker = kwargs.pop("reranker", FunctionReranker(by_number, model="by-number"))
    return inner, RerankedTextSearch(inner, reranker, **kwargs)


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_candidates_are_reordered_then_paged(mode: str) -> None:
    inner, search = make(depth=8)
    assert isinstance(search, TextSearch)
    if mode == "sync":
        page = search.get_search_results_sync("q", top=3, skip=1)
        strings = search.search_sync("q", top=2)
    else:
        page = asyncio.run(search.get_search_results("q", top=3, skip=1))
        strings = asyncio.run(search.search("q", top=2))
    assert inner.calls[0].options.top == 8 and inner.calls[0].options.skip == 0
    assert [r.name for r in page] == ["Doc 6", "Doc 5", "Doc 4"]
    first = page.results[0]
    assert isinstance(first, RerankedResult)
    assert first.score == 6.0 and first.first_rank == 7 and first.link == "https://a.example/6"
    assert first.result.name == "Doc 6"  # the first stage's native result
    assert page.metadata["reranker"] == "by-number" and page.metadata["candidates"] == 8
    assert strings.results == ["text 7", "text 6"]
    json.dumps(first.model_dump())  # serializable for tool output


def test_filter_is_passed_through_unchanged() -> None:
    wanted = TextSearchFilter().equal_to("lang", "en")
    inner, search = make(depth=10)
    page = search.get_text_search_results_sync("q", top=5, filter=wanted)
    assert inner.calls[0].options.filter == wanted
    assert [r.name for r in page] == ["Doc 11", "Doc 9", "Doc 7", "Doc 5", "Doc 3"]


def test_a_filter_the_search_cannot_honour_fails_before_any_search() -> None:
    from textsearch.connectors.brave import BraveTextSearch

    brave = BraveTextSearch(api_key="k")
    search = RerankedTextSearch(brave, FunctionReranker(by_number, model="m"), depth=20)
    with pytest.raises(UnsupportedFilterError):
        search.search_sync("q", filter=TextSearchFilter().equal_to("colour", "red"))


def test_top_plus_skip_beyond_depth_asks_for_more_candidates() -> None:
    inner, search = make(depth=4)
    page = search.get_text_search_results_sync("q", top=3, skip=3)
    assert inner.calls[0].options.top == 6
    # the first 4 reranked (3, 2, 1, 0), then 4 and 5 in the first order, unscored
    assert [r.name for r in page] == ["Doc 0", "Doc 4", "Doc 5"]
    natives = search.get_search_results_sync("q", top=6).results
    assert [r.score for r in natives] == [3.0, 2.0, 1.0, 0.0, None, None]


def test_reranker_failure_raises_or_keeps_the_first_order() -> None:
    def broken(query: str, texts: list[str]) -> list[float]:
        raise RateLimitError("slow down", provider="x", retry_after=3)

    _, strict = make(reranker=FunctionReranker(broken, model="b"))
    with pytest.raises(RateLimitError):
        strict.search_sync("q")
    _, lenient = make(reranker=FunctionReranker(broken, model="b"), keep_order_on_error=True)
    page = lenient.get_search_results_sync("q", top=3)
    assert [r.name for r in page] == ["Doc 0", "Doc 1", "Doc 2"]
    assert all(r.score is None for r in page)
    assert "RateLimitError" in page.metadata["rerank_error"]

    def crash(query: str, texts: list[str]) -> list[float]:
        raise KeyError("boom")

    _, crashing = make(reranker=FunctionReranker(crash, model="c"))
    with pytest.raises(ProviderError) as info:
        asyncio.run(crashing.search("q"))
    assert isinstance(info.value.__cause__, KeyError)


@pytest.mark.parametrize("bad", [[1.0], [float("nan")] * 12, ["x"] * 12, None, [True] * 12])
def test_malformed_scores_are_response_format_errors(bad: Any) -> None:
    _, search = make(reranker=FunctionReranker(lambda q, t: bad, model="bad"))
    with pytest.raises(ResponseFormatError):
        search.search_sync("q")


def test_function_reranker_async_fn_and_its_limits() -> None:
    async def scores(query: str, texts: list[str]) -> list[float]:
        await asyncio.sleep(0)
        return [float(len(t)) for t in texts]

    reranker = FunctionReranker(scores, model="async")
    assert isinstance(reranker, Reranker)
    assert reranker.rerank_sync("q", ["a", "abc"]) == [1.0, 3.0]

    async def inside_a_loop() -> None:
        with pytest.raises(RuntimeError, match="running event loop"):
            reranker.rerank_sync("q", ["a"])
        assert await reranker.rerank("q", ["ab"]) == [2.0]

    asyncio.run(inside_a_loop())
    with pytest.raises(ConfigurationError):
        FunctionReranker("not callable", model="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        FunctionReranker(scores, model=" ")


def bag(texts: list[str]) -> list[list[float]]:
    """Two-dimensional meaning: (mentions of 'cat', mentions of 'dog')."""
    return [[float(t.count("cat")) + 0.01, float(t.count("dog")) + 0.01] for t in texts]


def test_embedding_reranker_is_cosine_with_the_query() -> None:
    embedder = FunctionEmbedder(bag, model="bag", dimensions=2)
    reranker = EmbeddingReranker(embedder)
    got = rerank_sync(reranker, "cat", ["dog dog", "cat", "cat dog"])
    assert got[1] > got[2] > got[0]
    assert got[1] == pytest.approx(1.0, abs=1e-3)
    assert reranker.model == "bag"
    with pytest.raises(ConfigurationError):
        EmbeddingReranker(object())  # type: ignore[arg-type]


def test_diversity_stops_near_duplicates_filling_the_top() -> None:
    docs = ["cat cat cat", "cat cat cat.", "cat cat cat!", "cat dog", "dog"]
    inner = StaticTextSearch(docs, match="always")
    reranker = EmbeddingReranker(FunctionEmbedder(bag, model="bag", dimensions=2))
    plain = RerankedTextSearch(inner, reranker, depth=5)
    diverse = RerankedTextSearch(inner, reranker, depth=5, diversity=0.7)
    assert plain.search_sync("cat", top=3).results[:3] == docs[:3]
    top = diverse.search_sync("cat", top=3).results
    assert top[0] in docs[:3] and "cat dog" in top  # a different meaning climbs up
    assert asyncio.run(diverse.search("cat", top=3)).results == top
    # diversity with another reranker needs an embedder
    with pytest.raises(ConfigurationError, match="diversity"):
        RerankedTextSearch(inner, FunctionReranker(by_number, model="m"), diversity=0.5)
    with_embedder = RerankedTextSearch(
        inner,
        FunctionReranker(lambda q, t: [float(x.count("cat")) for x in t], model="count"),
        depth=5,
        diversity=0.7,
        embedder=FunctionEmbedder(bag, model="bag", dimensions=2),
    )
    assert "cat dog" in with_embedder.search_sync("cat", top=3).results


@pytest.mark.parametrize(
    "kwargs",
    [{"depth": 0}, {"depth": 51}, {"depth": "5"}, {"diversity": -0.1}, {"diversity": 1.5}],
)
def test_bad_settings(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        make(**kwargs)
    with pytest.raises(ConfigurationError):
        RerankedTextSearch("not a search", FunctionReranker(by_number, model="m"))  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        RerankedTextSearch(StaticTextSearch(DOCS), object())  # type: ignore[arg-type]


def test_plugin_and_mcp_over_a_reranked_search() -> None:
    pytest.importorskip("mcp")
    from textsearch.plugins import create_search_plugin

    _, search = make(depth=10)
    plugin = create_search_plugin(search, name="docs")
    name = plugin.functions[0].name
    text = asyncio.run(plugin.invoke(name, {"query": "anything", "top": 2}))
    assert "Doc 9" in text and "Doc 8" in text and "Doc 0" not in text
    tools = plugin.to_openai_tools()
    assert tools[0]["function"]["name"] == name

    from mcp import Client

    async def over_mcp() -> str:
        async with Client(plugin.create_mcp_server()) as client:
            listed = await client.list_tools()
            assert name in [t.name for t in listed.tools]
            result = await client.call_tool(name, {"query": "anything", "top": 1})
            assert result.is_error is False
            return str(result.content[0].text)  # type: ignore[union-attr]

    assert "Doc 9" in asyncio.run(over_mcp())
