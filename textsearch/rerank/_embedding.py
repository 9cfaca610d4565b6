"""``EmbeddingReranker``: the cosine between the query's vector and each text's."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from operator import mul

from textsearch.embeddings._base import (
    Embedder,
    embed_documents,
    embed_documents_sync,
    embed_query,
    embed_query_sync,
)
from textsearch.errors import ConfigurationError
from textsearch.rerank._base import check_query_and_texts

__all__ = ["EmbeddingReranker", "cosine"]


def _norm(vector: Sequence[float]) -> float:
    return math.sqrt(sum(map(mul, vector, vector)))


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The cosine of two vectors of one length (0 when either is all zeros)."""
    denominator = _norm(a) * _norm(b)
    return sum(map(mul, a, b)) / denominator if denominator else 0.0


def _scores(query: list[float], vectors: list[list[float]]) -> list[float]:
    q_norm = _norm(query)
    if not q_norm:
        return [0.0] * len(vectors)
    out: list[float] = []
    for vector in vectors:
        norm = _norm(vector)
        out.append(sum(map(mul, query, vector)) / (q_norm * norm) if norm else 0.0)
    return out


class EmbeddingReranker:
    """A `Reranker` from any `Embedder`: texts ordered by their cosine with the query.

    The cheapest second stage: the embedder embeds the query (with its query prefix, for
    models such as e5) and the candidates (with its document prefix), and each candidate
    scores its cosine with the query, in [-1, 1]. `rerank_with_vectors` also returns the
    candidates' vectors, which `RerankedTextSearch`'s ``diversity`` reuses instead of
    embedding the texts twice.

    Args:
        embedder: Any `Embedder` (the offline ``OnnxEmbedder.default()``, an
            ``OpenAIEmbedder``, a ``FunctionEmbedder``...).

    Raises:
        ConfigurationError: ``embedder`` is not an `Embedder`.
    """

    provider_name = "embedding"

    def __init__(self, embedder: Embedder) -> None:
        if not isinstance(embedder, Embedder):
            raise ConfigurationError(
                "EmbeddingReranker needs an Embedder (model, dimensions, embed_documents, "
                f"embed_query and their _sync twins), got {type(embedder).__name__}"
            )
        self.embedder = embedder

    def __repr__(self) -> str:
        return f"EmbeddingReranker({self.embedder!r})"

    @property
    def model(self) -> str:
        """The embedder's model id."""
        return str(self.embedder.model)

    async def rerank_with_vectors(
        self, query: str, texts: Sequence[str]
    ) -> tuple[list[float], list[list[float]]]:
        """The scores of `rerank` and the texts' vectors (in input order).

        Raises:
            InvalidRequestError: An empty query, or texts that are not strings.
            ProviderError: The embedder failed (what it raised as ``__cause__`` unless it
                already was a `TextSearchError`).
            ResponseFormatError: The embedder returned malformed vectors.
        """
        query, items = check_query_and_texts(query, texts)
        if not items:
            return [], []
        query_vector, vectors = await asyncio.gather(
            embed_query(self.embedder, query), embed_documents(self.embedder, items)
        )
        return _scores(query_vector, vectors), vectors

    def rerank_with_vectors_sync(
        self, query: str, texts: Sequence[str]
    ) -> tuple[list[float], list[list[float]]]:
        """Blocking twin of `rerank_with_vectors`; raises the same errors."""
        query, items = check_query_and_texts(query, texts)
        if not items:
            return [], []
        query_vector = embed_query_sync(self.embedder, query)
        vectors = embed_documents_sync(self.embedder, items)
        return _scores(query_vector, vectors), vectors

    async def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """The cosine of each text with the query, in input order; raises as
        `rerank_with_vectors`."""
        return (await self.rerank_with_vectors(query, texts))[0]

    def rerank_sync(self, query: str, texts: Sequence[str]) -> list[float]:
        """Blocking twin of `rerank`; raises the same errors."""
        return self.rerank_with_vectors_sync(query, texts)[0]
