"""Adapters for local embedding libraries: sentence-transformers, fastembed, model2vec.

Each library is imported when its adapter is built (never at ``import textsearch``), and
each has its own extra. A model is named as the library names it (a hub id or a local
folder); the library's own download rules apply and nothing else is fetched here. The model
runs in a worker thread on the async path; everything it returns goes through
`check_vectors`, and anything it raises becomes a
`ProviderError` with the original as ``__cause__``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any, ClassVar

from textsearch.embeddings._base import _checks_its_output, _ModelEmbedder
from textsearch.errors import ConfigurationError, TextSearchError

__all__ = ["FastEmbedEmbedder", "Model2VecEmbedder", "SentenceTransformersEmbedder"]


def _import(module: str, extra: str, owner: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        error = ConfigurationError(
            f'{owner} needs {module.split(".")[0]}: pip install "textsearch-sdk[{extra}]"'
        )
    raise error


def _name(value: object, owner: str) -> str:
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"{owner}: give a model name or a local folder")
    return value.strip()


def _load(owner: str, what: str, build: Callable[[], Any]) -> Any:
    """Build the library's model; its own exceptions become a ConfigurationError."""
    try:
        return build()
    except TextSearchError:
        raise
    except Exception as exc:
        error = ConfigurationError(
            f"{owner}: cannot load {what!r}: {type(exc).__name__}: {str(exc)[:300]}"
        )
    raise error


class _LibraryEmbedder(_ModelEmbedder):
    """A model loaded by a library this package adapts (imported when the adapter is built)."""

    #: the library's module and the extra that installs it
    _library: ClassVar[tuple[str, str]]

    def _open(
        self, given: object, model: str | None, batch_size: int, build: Callable[[Any, str], Any]
    ) -> Any:
        """Check the settings every adapter has, import the library and load the model with
        ``build(module, name)``; the adapter takes its id, length and batch size."""
        owner = type(self).__name__
        name = _name(given, owner)
        _positive(owner, "batch_size", batch_size)
        module = _import(*self._library, owner)
        loaded = _load(owner, name, lambda: build(module, name))
        self._model = (model or "").strip() or name
        length = self._length(loaded)
        self._dimensions = length if isinstance(length, int) and length > 0 else None
        self.batch_size = batch_size
        return loaded

    def _length(self, loaded: Any) -> object:
        """The vectors' length as the library tells it (anything else: learnt later)."""
        raise NotImplementedError


def _prefixes(owner: str, query_prefix: object, document_prefix: object) -> tuple[str, str]:
    if not isinstance(query_prefix, str) or not isinstance(document_prefix, str):
        raise ConfigurationError(f"{owner}: query_prefix= and document_prefix= are strings")
    return query_prefix, document_prefix


def _positive(owner: str, name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{owner}: {name}= must be a whole number >= 1")


@_checks_its_output
class SentenceTransformersEmbedder(_LibraryEmbedder):
    """An embedder on a ``sentence_transformers.SentenceTransformer`` (extra
    ``sentence-transformers``; brings torch).

    Args:
        model_name_or_path: A hub id (downloaded by the library as it does) or a local
            folder.
        model: The id recorded with the vectors (default: ``model_name_or_path``).
        device: ``"cpu"``, ``"cuda"``...; default: the library's choice.
        batch_size: Texts per forward pass.
        normalize: Unit-length vectors (cosine = dot product).
        query_prefix: Put before each query (e.g. ``"query: "``).
        document_prefix: Put before each document.
        **model_kwargs: Passed to ``SentenceTransformer(...)`` (e.g. ``trust_remote_code``).

    Raises:
        ConfigurationError: sentence-transformers is not installed, or the model cannot
            be loaded.
    """

    provider_name: ClassVar[str] = "sentence-transformers"
    _library: ClassVar[tuple[str, str]] = ("sentence_transformers", "sentence-transformers")

    def __init__(
        self,
        model_name_or_path: str | os.PathLike[str],
        *,
        model: str | None = None,
        device: str | None = None,
        batch_size: int = 32,
        normalize: bool = True,
        query_prefix: str = "",
        document_prefix: str = "",
        **model_kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        self.query_prefix, self.document_prefix = _prefixes(owner, query_prefix, document_prefix)
        self._st = self._open(
            model_name_or_path,
            model,
            batch_size,
            lambda lib, name: lib.SentenceTransformer(name, device=device, **model_kwargs),
        )
        self.normalize = normalize

    def _length(self, loaded: Any) -> object:
        return getattr(loaded, "get_sentence_embedding_dimension", lambda: None)()

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        return self._st.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=self.normalize,
            convert_to_numpy=True,
            show_progress_bar=False,
        )


@_checks_its_output
class FastEmbedEmbedder(_LibraryEmbedder):
    """An embedder on ``fastembed.TextEmbedding`` (extra ``fastembed``; ONNX, no torch).

    Args:
        model_name: A model fastembed knows (``TextEmbedding.list_supported_models()``).
        model: The id recorded with the vectors (default: ``model_name``).
        model_path: A local folder holding the model's ONNX files (fastembed's
            ``specific_model_path``): nothing is downloaded then.
        cache_dir: Where fastembed keeps (and looks for) downloaded models.
        threads: onnxruntime threads.
        batch_size: Texts per inference call.
        **model_kwargs: Passed to ``TextEmbedding(...)``.

    Raises:
        ConfigurationError: fastembed is not installed, or the model cannot be loaded.
    """

    provider_name: ClassVar[str] = "fastembed"
    _library: ClassVar[tuple[str, str]] = ("fastembed", "fastembed")

    def __init__(
        self,
        model_name: str = "BAAI/bge-small-en-v1.5",
        *,
        model: str | None = None,
        model_path: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        batch_size: int = 256,
        **model_kwargs: Any,
    ) -> None:
        if threads is not None:
            _positive(type(self).__name__, "threads", threads)
        kwargs = dict(model_kwargs)
        if model_path is not None:
            kwargs["specific_model_path"] = os.fspath(model_path)
        if cache_dir is not None:
            kwargs["cache_dir"] = os.fspath(cache_dir)
        if threads is not None:
            kwargs["threads"] = threads
        build = lambda lib, name: lib.TextEmbedding(model_name=name, **kwargs)  # noqa: E731
        self._fe = self._open(model_name, model, batch_size, build)

    def _length(self, loaded: Any) -> object:
        return getattr(loaded, "embedding_size", None)

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        if query and hasattr(self._fe, "query_embed"):
            return list(self._fe.query_embed(texts))
        return list(self._fe.embed(texts, batch_size=self.batch_size))


@_checks_its_output
class Model2VecEmbedder(_LibraryEmbedder):
    """An embedder on a model2vec ``StaticModel`` (extra ``model2vec``; numpy only, fast).

    Args:
        path_or_name: A local folder saved by model2vec, or a hub id (downloaded by the
            library as it does).
        model: The id recorded with the vectors (default: ``path_or_name``).
        normalize: Override the model's own normalisation setting (``None``: keep it).
        batch_size: Texts per encode call.

    Raises:
        ConfigurationError: model2vec is not installed, or the model cannot be loaded.
    """

    provider_name: ClassVar[str] = "model2vec"
    _library: ClassVar[tuple[str, str]] = ("model2vec", "model2vec")

    def __init__(
        self,
        path_or_name: str | os.PathLike[str],
        *,
        model: str | None = None,
        normalize: bool | None = None,
        batch_size: int = 1024,
    ) -> None:
        build = lambda lib, name: lib.StaticModel.from_pretrained(name, normalize=normalize)  # noqa: E731
        self._m2v = self._open(path_or_name, model, batch_size, build)

    def _length(self, loaded: Any) -> object:
        return getattr(loaded, "dim", None)

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        return self._m2v.encode(texts, batch_size=self.batch_size, show_progress_bar=False)
