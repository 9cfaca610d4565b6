"""Embedders: text to vectors, for semantic and hybrid search (DESIGN §11.1).

``import textsearch.embeddings`` imports no numpy and no model; an adapter loads its library
when it is built.
"""

from textsearch.embeddings._base import (
    Embedder,
    FunctionEmbedder,
    check_vectors,
    embed_documents,
    embed_documents_sync,
    embed_query,
    embed_query_sync,
)

__all__ = [
    "Embedder",
    "FunctionEmbedder",
    "check_vectors",
    "embed_documents",
    "embed_documents_sync",
    "embed_query",
    "embed_query_sync",
]
