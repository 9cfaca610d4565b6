"""Adapters for local embedding libraries: sentence-transformers, fastembed, model2vec.

Each library is imported when its adapter is built (never at ``import textsearch``), and
each has its own extra. A model is named as the library names it (a hub id or a local
folder); the library's own download rules apply and nothing else is fetched here. The model
runs in a worker thread on the async path; everything it returns goes through
:func:`~textsearch.embeddings.check_vectors`, and anything it raises becomes a
:class:`~textsearch.errors.ProviderError` with the original as ``__cause__``.
"""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from textsearch.embeddings._base import _texts, check_vectors
from textsearch.errors import ConfigurationError, ProviderError, TextSearchError

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


class _LibraryEmbedder:
    """What the three adapters share: checks, prefixes, threads, error wrapping."""

    provider_name: ClassVar[str] = "local"

    _model: str
    _dimensions: int | None
    query_prefix: str = ""
    document_prefix: str = ""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self._model!r}, dimensions={self._dimensions!r})"

    @property
    def model(self) -> str:
        """The model id recorded with the vectors."""
        return self._model

    @property
    def dimensions(self) -> int | None:
        """Length of every vector (from the library, else learnt from the first call)."""
        return self._dimensions

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        raise NotImplementedError

    def _embed(self, texts: list[str], *, query: bool) -> list[list[float]]:
        if not texts:
            return []
        try:
            raw = self._encode(texts, query=query)
        except TextSearchError:
            raise
        except Exception as exc:
            raise ProviderError(
                f"{self.provider_name}: the model failed: {type(exc).__name__}: {str(exc)[:200]}",
                provider=self.provider_name,
            ) from exc
        checked = check_vectors(raw, len(texts), self._dimensions, provider=self.provider_name)
        if self._dimensions is None:
            self._dimensions = len(checked[0])
        return checked

    def _documents(self, texts: Sequence[str]) -> list[str]:
        items = _texts(texts)
        return [self.document_prefix + t for t in items] if self.document_prefix else items

    def _query(self, text: str) -> list[str]:
        items = _texts([text])
        return [self.query_prefix + t for t in items] if self.query_prefix else items

    def embed_documents_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in input order.

        Raises:
            InvalidRequestError: ``texts`` is not a list of strings.
            ProviderError: The library raised (the original as ``__cause__``).
            ResponseFormatError: A wrong count, length, or a non-finite value.
        """
        return self._embed(self._documents(texts), query=False)

    def embed_query_sync(self, text: str) -> list[float]:
        """The vector of one query; raises as :meth:`embed_documents_sync`."""
        return self._embed(self._query(text), query=True)[0]

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Async twin of :meth:`embed_documents_sync` (the model runs in a worker thread)."""
        items = self._documents(texts)
        return await asyncio.to_thread(self._embed, items, query=False) if items else []

    async def embed_query(self, text: str) -> list[float]:
        """Async twin of :meth:`embed_query_sync` (the model runs in a worker thread)."""
        items = self._query(text)
        return (await asyncio.to_thread(self._embed, items, query=True))[0]


def _prefixes(owner: str, query_prefix: object, document_prefix: object) -> tuple[str, str]:
    if not isinstance(query_prefix, str) or not isinstance(document_prefix, str):
        raise ConfigurationError(f"{owner}: query_prefix= and document_prefix= are strings")
    return query_prefix, document_prefix


def _positive(owner: str, name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{owner}: {name}= must be a whole number >= 1")


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
        name = _name(model_name_or_path, owner)
        _positive(owner, "batch_size", batch_size)
        self.query_prefix, self.document_prefix = _prefixes(owner, query_prefix, document_prefix)
        library = _import("sentence_transformers", "sentence-transformers", owner)
        self._st = _load(
            owner, name, lambda: library.SentenceTransformer(name, device=device, **model_kwargs)
        )
        self._model = (model or "").strip() or name
        size = getattr(self._st, "get_sentence_embedding_dimension", lambda: None)()
        self._dimensions = size if isinstance(size, int) and size > 0 else None
        self.batch_size = batch_size
        self.normalize = normalize

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        return self._st.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=self.normalize,
            convert_to_numpy=True,
            show_progress_bar=False,
        )


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
        owner = type(self).__name__
        name = _name(model_name, owner)
        _positive(owner, "batch_size", batch_size)
        if threads is not None:
            _positive(owner, "threads", threads)
        library = _import("fastembed", "fastembed", owner)
        kwargs = dict(model_kwargs)
        if model_path is not None:
            kwargs["specific_model_path"] = os.fspath(model_path)
        if cache_dir is not None:
            kwargs["cache_dir"] = os.fspath(cache_dir)
        if threads is not None:
            kwargs["threads"] = threads
        self._fe = _load(owner, name, lambda: library.TextEmbedding(model_name=name, **kwargs))
        self._model = (model or "").strip() or name
        size = getattr(self._fe, "embedding_size", None)
        self._dimensions = size if isinstance(size, int) and size > 0 else None
        self.batch_size = batch_size

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        if query and hasattr(self._fe, "query_embed"):
            return list(self._fe.query_embed(texts))
        return list(self._fe.embed(texts, batch_size=self.batch_size))


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

    def __init__(
        self,
        path_or_name: str | os.PathLike[str],
        *,
        model: str | None = None,
        normalize: bool | None = None,
        batch_size: int = 1024,
    ) -> None:
        owner = type(self).__name__
        name = _name(path_or_name, owner)
        _positive(owner, "batch_size", batch_size)
        library = _import("model2vec", "model2vec", owner)
        self._m2v = _load(
            owner, name, lambda: library.StaticModel.from_pretrained(name, normalize=normalize)
        )
        self._model = (model or "").strip() or name
        size = getattr(self._m2v, "dim", None)
        self._dimensions = size if isinstance(size, int) and size > 0 else None
        self.batch_size = batch_size

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        return self._m2v.encode(texts, batch_size=self.batch_size, show_progress_bar=False)
