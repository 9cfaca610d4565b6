"""AzureAISearchTextSearch(embedding_function=<an Embedder>) against the Azure Search emulator."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("azure.search.documents")

from tests.embeddings.fake_openai import bag_of_words, fake_openai
from tests.emulators.azure_search import AzureSearchEmulator, toy_embedding
from textsearch import AzureAISearchTextSearch
from textsearch.embeddings import FunctionEmbedder, OpenAIEmbedder
from textsearch.errors import ProviderError, ResponseFormatError

KEY = "test-admin-key"


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


def make(emulator: AzureSearchEmulator, embedder: Any, **kwargs: Any) -> AzureAISearchTextSearch:
    return AzureAISearchTextSearch(
        endpoint=emulator.endpoint,
        index_name="kb-docs",
        api_key=KEY,
        max_retries=0,
        vector_fields="contentVector",
        embedding_function=embedder,
        **kwargs,
    )


def run(search: AzureAISearchTextSearch, mode: str, query: str, **options: Any) -> Any:
    if mode == "sync":
        with search:
            return search.get_search_results_sync(query, **options)

    async def go() -> Any:
        async with search:
            return await search.get_search_results(query, **options)

    return asyncio.run(go())


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_an_embedder_builds_the_vector_query(emulator: AzureSearchEmulator, mode: str) -> None:
    seen: list[list[str]] = []

    def toy(texts: list[str]) -> list[list[float]]:
        seen.append(texts)
        return [toy_embedding(t) for t in texts]

    embedder = FunctionEmbedder(toy, model="toy-16", dimensions=16)
    query = "vector search finds passages by meaning"
    results = run(make(emulator, embedder, hybrid=False), mode, query, top=2)
    body = emulator.bodies()[-1]
    assert "search" not in body
    (vector_query,) = body["vectorQueries"]
    assert vector_query["kind"] == "vector" and vector_query["fields"] == "contentVector"
    assert vector_query["vector"] == pytest.approx(toy_embedding(query))
    assert seen == [[query]]
    assert [d.fields["id"] for d in results][0] == "doc-9"


def test_an_async_embedder_works_on_both_paths(emulator: AzureSearchEmulator) -> None:
    async def toy(texts: list[str]) -> list[list[float]]:
        return [toy_embedding(t) for t in texts]

    embedder = FunctionEmbedder(toy, model="toy-16")
    assert [d.fields["id"] for d in run(make(emulator, embedder), "async", "vector meaning", top=1)]
    # unlike a bare async function, an async Embedder also serves the blocking methods
    assert run(make(emulator, embedder), "sync", "vector meaning", top=1)
    assert len(emulator.bodies()) == 2
    assert all(len(b["vectorQueries"][0]["vector"]) == 16 for b in emulator.bodies())


def test_openai_embedder_over_real_sockets(emulator: AzureSearchEmulator) -> None:
    with fake_openai() as server:
        embedder = OpenAIEmbedder(
            "fake-embed-small", base_url=server.base_url, dimensions=16, max_retries=0
        )
        with embedder:
            run(make(emulator, embedder, hybrid=True), "sync", "retry with backoff", top=3)
    body = emulator.bodies()[-1]
    assert body["search"] == "retry with backoff"  # hybrid: the keyword part too
    assert body["vectorQueries"][0]["vector"] == pytest.approx(
        bag_of_words("retry with backoff", 16), abs=1e-6
    )
    assert server.bodies()[0]["input"] == ["retry with backoff"]


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ([[math.nan] * 16], ResponseFormatError),
        ([[0.1] * 16, [0.2] * 16], ResponseFormatError),
        (RuntimeError("model crashed"), ProviderError),
    ],
)
def test_bad_embedder_output_sends_nothing(
    emulator: AzureSearchEmulator, output: Any, error: type[Exception]
) -> None:
    def broken(texts: list[str]) -> Any:
        if isinstance(output, Exception):
            raise output
        return output

    search = make(emulator, FunctionEmbedder(broken, model="broken"))
    with pytest.raises(error):
        search.search_sync("anything")
    with pytest.raises(error):
        asyncio.run(search.search("anything"))
    assert emulator.requests == []
