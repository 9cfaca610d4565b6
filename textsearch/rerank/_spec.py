"""``from_spec``: a reranker from a short text, as the command line's ``--rerank`` takes.

Forms:

* ``embedding`` or ``embedding:EMBEDDER`` — `EmbeddingReranker` over the embedder that
  ``EMBEDDER`` names in ``--embedder``'s language (default ``minilm``, the offline model):
  ``embedding:minilm``, ``embedding:onnx:/models/e5``, ``embedding:openai:text-embedding-3-small``.
* ``cross-encoder:PATH`` — `CrossEncoderReranker` on a local ONNX folder.
* ``cohere[:MODEL][@URL]``, ``jina[:MODEL][@URL]``, ``voyage[:MODEL][@URL]`` — the hosted
  APIs (keys from ``CO_API_KEY``, ``JINA_API_KEY``, ``VOYAGE_API_KEY``); ``@URL`` replaces
  the service's origin, e.g. ``jina:BAAI/bge-reranker-v2-m3@http://127.0.0.1:8000`` for a
  vLLM or llama.cpp server.
* ``tei:URL`` — a text-embeddings-inference server, e.g. ``tei:http://127.0.0.1:8080``.
"""

from __future__ import annotations

from typing import Final

from textsearch.embeddings._spec import split_spec
from textsearch.errors import ConfigurationError
from textsearch.rerank._base import Reranker

__all__ = ["RERANK_SPEC_FORMS", "from_spec"]

RERANK_SPEC_FORMS: Final = (
    "embedding[:EMBEDDER]",
    "cross-encoder:PATH",
    "cohere[:MODEL][@URL]",
    "jina[:MODEL][@URL]",
    "voyage[:MODEL][@URL]",
    "tei:URL",
)


def _bad(spec: object, why: str) -> ConfigurationError:
    return ConfigurationError(
        f"rerank spec {str(spec)[:200]!r}: {why}; use one of: {', '.join(RERANK_SPEC_FORMS)}"
    )


def from_spec(spec: str) -> Reranker:
    """Build the reranker a spec names (see the module's forms); marked ``reranker.spec``.

    Raises:
        ConfigurationError: An unknown or incomplete spec, a missing extra, key or file
            (the message says which).
    """
    text, kind, sep, rest = split_spec(spec, _bad)
    reranker: Reranker
    if kind == "embedding":
        from textsearch.embeddings import from_spec as embedder_from_spec
        from textsearch.rerank._embedding import EmbeddingReranker

        if sep and not rest:
            raise _bad(spec, "give an embedder after 'embedding:' (e.g. embedding:minilm)")
        reranker = EmbeddingReranker(embedder_from_spec(rest or "minilm"))
    elif kind == "cross-encoder":
        from textsearch.rerank._cross import CrossEncoderReranker

        if not rest:
            raise _bad(spec, "give the model's folder after 'cross-encoder:'")
        reranker = CrossEncoderReranker(rest)
    elif kind == "tei":
        from textsearch.rerank._hosted import TEIReranker

        if not rest:
            raise _bad(spec, "give the server's URL after 'tei:' (e.g. tei:http://127.0.0.1:8080)")
        reranker = TEIReranker(rest)
    elif kind in ("cohere", "jina", "voyage"):
        from textsearch.rerank import _hosted

        cls = {
            "cohere": _hosted.CohereReranker,
            "jina": _hosted.JinaReranker,
            "voyage": _hosted.VoyageReranker,
        }[kind]
        model, at, url = rest.partition("@")
        if at and not url.strip():
            raise _bad(spec, "give a URL after '@'")
        if sep and not model.strip() and not at:
            raise _bad(spec, f"give a model after '{kind}:'")
        kwargs: dict[str, str] = {}
        if url.strip():
            kwargs["base_url"] = url.strip()
        if model.strip():
            reranker = cls(model.strip(), **kwargs)
        else:
            reranker = cls(**kwargs)
    else:
        raise _bad(spec, f"unknown reranker {kind!r}")
    try:
        reranker.spec = text  # type: ignore[attr-defined]
    except AttributeError:
        pass
    return reranker
