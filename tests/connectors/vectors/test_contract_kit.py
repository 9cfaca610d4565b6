"""Vector stores keep the connector contract (``textsearch.testing``): Chroma in-process, and
the smallest store one can write on the base (``_memory_store``, the architecture page's
example of what a new store costs)."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tests.connectors.vectors._memory_store import MemoryTextSearch
from tests.connectors.vectors._support import bag_of_words, unique_name
from tests.connectors.vectors.test_chroma import chroma_server  # noqa: F401  (the fixture)
from textsearch.embeddings import FunctionEmbedder
from textsearch.testing import ConnectorContract

chromadb = pytest.importorskip("chromadb")


def _distinct(texts: list[str]) -> list[list[float]]:
    """Bag of words plus a dimension of each text's own: no two documents tie for a query
    (a tie may be broken either way by an approximate index, and paging compares orders)."""
    return [
        [*vector, 0.1 + zlib.crc32(text.encode()) % 997 / 997]
        for vector, text in zip(bag_of_words(texts), texts, strict=True)
    ]


def embedder() -> FunctionEmbedder:
    return FunctionEmbedder(_distinct, model="distinct-words", dimensions=33)


def _client() -> Any:
    return chromadb.EphemeralClient()


class TestChroma(ConnectorContract):
    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        from textsearch.connectors.vectors import ChromaTextSearch

        # one in-process client, as the other Chroma tests make it (Chroma allows one
        # ephemeral instance per settings in a process)
        search = ChromaTextSearch(_client(), unique_name(), embedder=embedder())
        search.add_documents_sync(documents)
        return search

    def make_failing_connector(self) -> Any:
        from textsearch.connectors.vectors import ChromaTextSearch

        # a collection that does not exist: every search fails with NotFoundError
        return ChromaTextSearch(_client(), unique_name(), embedder=embedder())


class TestMemoryStore(ConnectorContract):
    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        search = MemoryTextSearch(":memory:", "contract", embedder=embedder())
        search.add_documents_sync(documents)
        return search

    def make_failing_connector(self) -> Any:
        return MemoryTextSearch(":memory:", "missing", embedder=embedder())


class TestChromaServer(ConnectorContract):
    """The same contract through Chroma's HTTP clients: the plans awaited with the async
    client, and driven with the blocking one, against ``chroma run`` on 127.0.0.1."""

    @pytest.fixture(autouse=True)
    def _server(self, chroma_server: str) -> None:  # noqa: F811  (the imported fixture)
        self.url = chroma_server

    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        from textsearch.connectors.vectors import ChromaTextSearch

        search = ChromaTextSearch(self.url, unique_name(), embedder=embedder())
        search.add_documents_sync(documents)
        return search

    def make_failing_connector(self) -> Any:
        from textsearch.connectors.vectors import ChromaTextSearch

        return ChromaTextSearch(self.url, unique_name(), embedder=embedder())


class TestQdrantLocal(ConnectorContract):
    """Qdrant's local mode (in-process): the blocking client, in a worker thread when async."""

    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        from qdrant_client import QdrantClient

        from textsearch.connectors.vectors import QdrantTextSearch

        search = QdrantTextSearch(QdrantClient(":memory:"), unique_name(), embedder=embedder())
        search.add_documents_sync(documents)
        return search

    def make_failing_connector(self) -> Any:
        from qdrant_client import QdrantClient

        from textsearch.connectors.vectors import QdrantTextSearch

        return QdrantTextSearch(QdrantClient(":memory:"), unique_name(), embedder=embedder())
