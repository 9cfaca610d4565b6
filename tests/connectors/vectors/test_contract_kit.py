"""Vector stores keep the connector contract (``textsearch.testing``): Chroma in-process, and
the smallest store one can write on the base (``_memory_store``, the architecture page's
example of what a new store costs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from tests.connectors.vectors._memory_store import MemoryTextSearch
from tests.connectors.vectors._support import CountingEmbedder, unique_name
from textsearch.testing import ConnectorContract

chromadb = pytest.importorskip("chromadb")


def _client() -> Any:
    return chromadb.EphemeralClient()


class TestChroma(ConnectorContract):
    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        from textsearch.connectors.vectors import ChromaTextSearch

        # one in-process client, as the other Chroma tests make it (Chroma allows one
        # ephemeral instance per settings in a process)
        search = ChromaTextSearch(_client(), unique_name(), embedder=CountingEmbedder())
        search.add_documents_sync(documents)
        return search

    def make_failing_connector(self) -> Any:
        from textsearch.connectors.vectors import ChromaTextSearch

        # a collection that does not exist: every search fails with NotFoundError
        return ChromaTextSearch(_client(), unique_name(), embedder=CountingEmbedder())


class TestMemoryStore(ConnectorContract):
    def make_connector(self, documents: Sequence[Mapping[str, Any]]) -> Any:
        search = MemoryTextSearch(":memory:", "contract", embedder=CountingEmbedder())
        search.add_documents_sync(documents)
        return search

    def make_failing_connector(self) -> Any:
        return MemoryTextSearch(":memory:", "missing", embedder=CountingEmbedder())
