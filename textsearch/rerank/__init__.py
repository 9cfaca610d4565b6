"""Rerankers: a second look at a search's candidates, by a stronger model (DESIGN §12.3).

``import textsearch.rerank`` imports no numpy, no HTTP client and no model: the rerankers
below load on first use.

* `Reranker`: the protocol (``model``, ``rerank(query, texts) -> list[float]`` and
  ``rerank_sync``): one finite score per text, in input order, higher is better.
* `EmbeddingReranker`: cosine with any `Embedder` (the offline MiniLM, e5, OpenAI...).
* `CrossEncoderReranker`: an ONNX cross-encoder from a local folder (extra ``onnx``).
* `FunctionReranker`: any callable, sync or async (an LLM grading passages, a rule).
* `CohereReranker`, `JinaReranker` (also vLLM and llama.cpp), `VoyageReranker`,
  `TEIReranker`: hosted APIs on the shared HTTP engine.
* `from_spec`: a reranker from a short text (what ``--rerank`` takes).

Put one over any search with `RerankedTextSearch`::

    from textsearch import LocalTextSearch, RerankedTextSearch
    from textsearch.embeddings import OnnxEmbedder
    from textsearch.rerank import EmbeddingReranker

    search = RerankedTextSearch(LocalTextSearch("docs.db"),
                                EmbeddingReranker(OnnxEmbedder.default()), depth=30)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textsearch import _lazy
from textsearch.rerank._base import (
    FunctionReranker,
    Reranker,
    check_scores,
    provider_of,
    rerank,
    rerank_span,
    rerank_sync,
)

if TYPE_CHECKING:
    from textsearch.rerank._cross import CrossEncoderReranker
    from textsearch.rerank._embedding import EmbeddingReranker
    from textsearch.rerank._hosted import (
        CohereReranker,
        JinaReranker,
        TEIReranker,
        VoyageReranker,
    )
    from textsearch.rerank._spec import RERANK_SPEC_FORMS, from_spec

_LAZY = _lazy.by_module(
    {
        "textsearch.rerank._embedding": ("EmbeddingReranker",),
        "textsearch.rerank._cross": ("CrossEncoderReranker",),
        "textsearch.rerank._hosted": (
            "CohereReranker",
            "JinaReranker",
            "TEIReranker",
            "VoyageReranker",
        ),
        "textsearch.rerank._spec": ("RERANK_SPEC_FORMS", "from_spec"),
    }
)

__all__ = [
    "RERANK_SPEC_FORMS",
    "CohereReranker",
    "CrossEncoderReranker",
    "EmbeddingReranker",
    "FunctionReranker",
    "JinaReranker",
    "Reranker",
    "TEIReranker",
    "VoyageReranker",
    "check_scores",
    "from_spec",
    "provider_of",
    "rerank",
    "rerank_span",
    "rerank_sync",
]

__getattr__ = _lazy.lazy_getattr(__name__, globals(), _LAZY)
__dir__ = _lazy.public_dir(globals())
