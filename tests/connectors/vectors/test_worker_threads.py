"""The async path of an in-process store: one worker-thread hop per search, loop never blocked."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.connectors.vectors._support import DOCS, bag_of_words
from textsearch.connectors.vectors import ChromaTextSearch, QdrantTextSearch
from textsearch.embeddings import FunctionEmbedder
from textsearch.errors import ProviderError


def _store(kind: str, embedder: Any, tmp_path: Path) -> Any:
    if kind == "qdrant":
        return QdrantTextSearch(":memory:", "docs", embedder=embedder)
    return ChromaTextSearch(str(tmp_path / "chroma"), "docs", embedder=embedder)


@pytest.mark.parametrize("kind", ["qdrant", "chroma"])
def test_a_blocking_embedder_and_the_search_share_one_worker_thread_call(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_threads: set[int] = set()
    embed_threads: list[int] = []

    def embed(texts: list[str]) -> list[list[float]]:
        embed_threads.append(threading.get_ident())
        return bag_of_words(texts, 32)

    search = _store(kind, FunctionEmbedder(embed, model="bow", dimensions=32), tmp_path)
    search.add_documents_sync(DOCS)
    hops: list[str] = []
    real = asyncio.to_thread

    async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(fn, "__qualname__", "?"))
        return await real(fn, *args, **kwargs)

    monkeypatch.setattr(asyncio, "to_thread", counted)

    async def run() -> Any:
        loop_threads.add(threading.get_ident())
        return await search.get_search_results("exponential backoff", top=2)

    embed_threads.clear()
    results = asyncio.run(run())
    assert [r.id for r in results.results][:1] == ["retry"]
    assert len(hops) == 1  # embedding and search in one call off the loop
    assert embed_threads and not loop_threads & set(embed_threads)
    search.close()


@pytest.mark.parametrize("kind", ["qdrant", "chroma"])
def test_an_embedder_failure_in_the_worker_thread_is_still_a_provider_error(
    kind: str, tmp_path: Path
) -> None:
    calls = {"n": 0}

    def embed(texts: list[str]) -> list[list[float]]:
        calls["n"] += 1
        if calls["n"] > 1:
            raise RuntimeError("model crashed")
        return bag_of_words(texts, 32)

    search = _store(kind, FunctionEmbedder(embed, model="bow", dimensions=32), tmp_path)
    search.add_documents_sync(DOCS[:1])
    with pytest.raises(ProviderError, match="model crashed"):
        asyncio.run(search.get_search_results("backoff"))
    search.close()


@pytest.mark.parametrize("kind", ["qdrant", "chroma"])
def test_a_bad_query_vector_from_the_worker_thread_is_refused(kind: str, tmp_path: Path) -> None:
    def embed(texts: list[str]) -> list[list[float]]:
        if texts == ["q"]:
            return [[float("nan")] * 32]
        return bag_of_words(texts, 32)

    search = _store(kind, FunctionEmbedder(embed, model="bow", dimensions=32), tmp_path)
    search.add_documents_sync(DOCS[:1])
    with pytest.raises(ProviderError, match="not finite"):
        asyncio.run(search.get_search_results("q"))
    search.close()
