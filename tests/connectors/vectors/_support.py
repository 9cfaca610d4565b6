"""What the vector-store tests share: an offline embedder, documents, store factories."""

from __future__ import annotations

import re
import uuid
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from textsearch.embeddings import FunctionEmbedder

_WORD = re.compile(r"\w+")


def bag_of_words(texts: Sequence[str], dimensions: int = 32) -> list[list[float]]:
    """Each word hashed (crc32, stable across runs) into one of ``dimensions`` buckets."""
    out = []
    for text in texts:
        vector = [0.0] * dimensions
        for word in _WORD.findall(text.lower()):
            vector[zlib.crc32(word.encode()) % dimensions] += 1.0
        vector[0] += 0.001  # never all zeros: cosine needs a length
        out.append(vector)
    return out


class CountingEmbedder(FunctionEmbedder):
    """A bag-of-words embedder that counts its calls (to prove a check came first)."""

    def __init__(self, dimensions: int = 32, model: str = "bag-of-words") -> None:
        self.calls = 0

        def fn(texts: list[str]) -> list[list[float]]:
            self.calls += 1
            return bag_of_words(texts, dimensions)

        super().__init__(fn, model=model, dimensions=dimensions)


DOCS: list[dict[str, Any]] = [
    {
        "id": "retry",
        "title": "Retry policy",
        "text": "# Retry policy\n\nRetry failed calls.\n\n## Backoff\n\n"
        "Exponential backoff with jitter between attempts.",
        "link": "https://docs.example.com/retry",
        "metadata": {
            "tags": ["http", "python"],
            "lang": "en",
            "stars": 5,
            "score": 0.5,
            "draft": False,
        },
    },
    {
        "id": "cache",
        "title": "Caching",
        "text": "Cache responses for five minutes and serve stale pages on errors.",
        "link": "https://example.com/cache",
        "metadata": {"tags": ["http"], "lang": "en", "stars": 3, "draft": True},
    },
    {
        "id": "pasta",
        "title": "Pasta",
        "text": "Boil the pasta in salted water for nine minutes.",
        "link": "https://food.example.org/pasta",
        "metadata": {"tags": ["food"], "lang": "it", "stars": 5, "score": 1.25},
    },
]


def unique_name(prefix: str = "ts") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


StoreFactory = Callable[..., Any]


def chroma_factory(tmp_path: Path) -> StoreFactory:
    import chromadb

    from textsearch.connectors.vectors import ChromaTextSearch

    client = chromadb.EphemeralClient()

    def make(collection: str, **kwargs: Any) -> Any:
        return ChromaTextSearch(client, collection, **kwargs)

    def exists(name: str) -> bool:
        return name in {c.name for c in client.list_collections()}

    def count(name: str) -> int:
        return int(client.get_collection(name).count())

    make.client = client  # type: ignore[attr-defined]
    make.exists = exists  # type: ignore[attr-defined]
    make.count = count  # type: ignore[attr-defined]
    return make


def qdrant_factory(tmp_path: Path) -> StoreFactory:
    from qdrant_client import QdrantClient

    from textsearch.connectors.vectors import QdrantTextSearch

    client = QdrantClient(":memory:")

    def make(collection: str, **kwargs: Any) -> Any:
        return QdrantTextSearch(client, collection, **kwargs)

    def exists(name: str) -> bool:
        return bool(client.collection_exists(name))

    def count(name: str) -> int:
        return int(client.count(name, exact=True).count)

    make.client = client  # type: ignore[attr-defined]
    make.exists = exists  # type: ignore[attr-defined]
    make.count = count  # type: ignore[attr-defined]
    return make


_MILVUS: dict[str, Any] = {}


def milvus_client() -> Any:
    """One Milvus Lite file for the whole test session (each one is an engine process)."""
    if "client" not in _MILVUS:
        import tempfile

        from pymilvus import MilvusClient

        folder = tempfile.mkdtemp(prefix="textsearch-milvus-")
        _MILVUS["client"] = MilvusClient(str(Path(folder) / "tests.db"))
    return _MILVUS["client"]


def milvus_factory(tmp_path: Path) -> StoreFactory:
    from textsearch.connectors.vectors import MilvusTextSearch

    client = milvus_client()

    def make(collection: str, **kwargs: Any) -> Any:
        return MilvusTextSearch(client, collection, **kwargs)

    def exists(name: str) -> bool:
        return bool(client.has_collection(name))

    def count(name: str) -> int:
        return int(client.query(name, filter="", output_fields=["count(*)"])[0]["count(*)"])

    make.client = client  # type: ignore[attr-defined]
    make.exists = exists  # type: ignore[attr-defined]
    make.count = count  # type: ignore[attr-defined]
    return make
