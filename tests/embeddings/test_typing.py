"""Every embedder satisfies the Embedder protocol for a type checker (mypy checks this file)."""

from __future__ import annotations

from textsearch.embeddings import (
    Embedder,
    FastEmbedEmbedder,
    FunctionEmbedder,
    Model2VecEmbedder,
    OnnxEmbedder,
    OpenAIEmbedder,
    SentenceTransformersEmbedder,
)


def _as_embedders(
    a: OpenAIEmbedder,
    b: OnnxEmbedder,
    c: Model2VecEmbedder,
    d: FastEmbedEmbedder,
    e: SentenceTransformersEmbedder,
    f: FunctionEmbedder,
) -> list[Embedder]:
    return [a, b, c, d, e, f]


def test_every_embedder_is_an_embedder_at_run_time() -> None:
    for cls in (
        OpenAIEmbedder,
        OnnxEmbedder,
        Model2VecEmbedder,
        FastEmbedEmbedder,
        SentenceTransformersEmbedder,
        FunctionEmbedder,
    ):
        for name in ("model", "dimensions", "embed_documents", "embed_query"):
            assert hasattr(cls, name), (cls, name)
        assert hasattr(cls, "embed_documents_sync") and hasattr(cls, "embed_query_sync")
