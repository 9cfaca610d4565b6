"""The ``Embedder`` protocol and the checks every embedder's output goes through.

Nothing here imports numpy or a model: ``import textsearch.embeddings`` stays light. A
vector is a ``list[float]``; stores convert it to their own form.
"""

from __future__ import annotations

import asyncio
import inspect
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from textsearch.errors import ProviderError, ResponseFormatError, TextSearchError

__all__ = [
    "Embedder",
    "FunctionEmbedder",
    "check_vectors",
    "embed_documents",
    "embed_documents_sync",
    "embed_query",
    "embed_query_sync",
]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors: what semantic and hybrid search need from a model.

    ``model`` is stored with every vector (an index refuses another model's queries);
    ``dimensions`` is known at the latest after the first call. Vectors come back in input
    order, one per text, all of one length, finite.
    """

    @property
    def model(self) -> str:
        """The model's id, recorded with every vector."""
        ...

    @property
    def dimensions(self) -> int | None:
        """Length of every vector; ``None`` until known (after the first call at the latest)."""
        ...

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        ...

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one query (some models embed queries differently from documents)."""
        ...

    def embed_documents_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking twin of :meth:`embed_documents`."""
        ...

    def embed_query_sync(self, text: str) -> list[float]:
        """Blocking twin of :meth:`embed_query`."""
        ...


def check_vectors(
    vectors: object, count: int, dimensions: int | None, *, provider: str
) -> list[list[float]]:
    """Validate an embedder's output: ``count`` finite vectors of one (expected) length.

    Returns:
        The vectors as lists of Python floats.

    Raises:
        ResponseFormatError: Wrong count, wrong or uneven length, an empty vector, a value
            that is not a number, NaN or infinity. Nothing malformed is ever stored.
    """
    if type(vectors).__module__ == "numpy" and hasattr(vectors, "tolist"):
        vectors = vectors.tolist()  # a 2-d array from a local model: one row per text
    if not isinstance(vectors, Sequence) or isinstance(vectors, (str, bytes)):
        raise ResponseFormatError(
            f"the embedder returned {type(vectors).__name__}, not a list of vectors",
            provider=provider,
        )
    if len(vectors) != count:
        raise ResponseFormatError(
            f"the embedder returned {len(vectors)} vectors for {count} texts", provider=provider
        )
    out: list[list[float]] = []
    length = dimensions
    for i, vector in enumerate(vectors):
        if hasattr(vector, "tolist") and not isinstance(vector, (list, tuple)):
            vector = vector.tolist()  # a numpy row
        if not isinstance(vector, (list, tuple)) or not vector:
            raise ResponseFormatError(
                f"vector {i} from the embedder is not a non-empty list of numbers",
                provider=provider,
            )
        if length is None:
            length = len(vector)
        elif len(vector) != length:
            raise ResponseFormatError(
                f"vector {i} from the embedder has {len(vector)} dimensions, expected {length}",
                provider=provider,
            )
        row: list[float] = []
        for value in vector:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                if type(value).__module__ == "numpy" and hasattr(value, "item"):
                    value = value.item()
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise ResponseFormatError(
                        f"vector {i} from the embedder holds a {type(value).__name__}, "
                        "not a number",
                        provider=provider,
                    )
            number = float(value)
            if not math.isfinite(number):
                raise ResponseFormatError(
                    f"vector {i} from the embedder holds {number} (not finite)", provider=provider
                )
            row.append(number)
        out.append(row)
    return out


def _texts(texts: object) -> list[str]:
    from textsearch.errors import InvalidRequestError

    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InvalidRequestError("texts must be a list of strings")
    if not all(isinstance(t, str) for t in texts):
        raise InvalidRequestError("every text to embed must be a string")
    return list(texts)


def _wrap(error: Exception, provider: str) -> ProviderError:
    from textsearch._http._redact import scrub

    return ProviderError(
        f"the embedder failed: {type(error).__name__}: {scrub(str(error))[:300]}",
        provider=provider,
    )


def _provider(embedder: object) -> str:
    return str(getattr(embedder, "provider_name", None) or type(embedder).__name__)


async def embed_documents(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Call an embedder and validate what it returns (for stores: never store a bad vector).

    Raises:
        TextSearchError: What the embedder raised, if it is one, unchanged.
        ProviderError: Any other exception from the embedder (the original as ``__cause__``).
        ResponseFormatError: Malformed output (see :func:`check_vectors`).
    """
    items = _texts(texts)
    if not items:
        return []
    provider = _provider(embedder)
    try:
        vectors = await embedder.embed_documents(items)
    except TextSearchError:
        raise
    except Exception as exc:  # every other failure becomes a documented error
        raise _wrap(exc, provider) from exc
    return check_vectors(vectors, len(items), embedder.dimensions, provider=provider)


def embed_documents_sync(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Blocking twin of :func:`embed_documents`; raises the same errors."""
    items = _texts(texts)
    if not items:
        return []
    provider = _provider(embedder)
    try:
        vectors = embedder.embed_documents_sync(items)
    except TextSearchError:
        raise
    except Exception as exc:
        raise _wrap(exc, provider) from exc
    return check_vectors(vectors, len(items), embedder.dimensions, provider=provider)


async def embed_query(embedder: Embedder, text: str) -> list[float]:
    """The validated vector of one query; raises as :func:`embed_documents`."""
    provider = _provider(embedder)
    try:
        vector = await embedder.embed_query(text)
    except TextSearchError:
        raise
    except Exception as exc:
        raise _wrap(exc, provider) from exc
    return check_vectors([vector], 1, embedder.dimensions, provider=provider)[0]


def embed_query_sync(embedder: Embedder, text: str) -> list[float]:
    """Blocking twin of :func:`embed_query`; raises the same errors."""
    provider = _provider(embedder)
    try:
        vector = embedder.embed_query_sync(text)
    except TextSearchError:
        raise
    except Exception as exc:
        raise _wrap(exc, provider) from exc
    return check_vectors([vector], 1, embedder.dimensions, provider=provider)[0]


EmbedFunction = Callable[[list[str]], "list[list[float]] | Awaitable[list[list[float]]]"]


class FunctionEmbedder:
    """An :class:`Embedder` from any callable ``fn(texts) -> vectors`` (sync or async).

    The escape hatch for a model this package has no adapter for, and what tests use. An
    async ``fn`` is awaited on the async path and run on a private event loop by the blocking
    twins (which then refuse to run inside a running loop); a sync ``fn`` runs in a worker
    thread on the async path, so it never blocks the event loop.

    Args:
        fn: Takes a list of texts, returns one vector per text.
        model: The model's id, recorded with the vectors.
        dimensions: The vectors' length if known; otherwise learnt from the first call.
        query_fn: A different callable for queries (models that prefix queries), else ``fn``.

    Raises:
        ConfigurationError: ``fn`` is not callable, ``model`` is empty, or ``dimensions`` is
            not a positive integer.
    """

    provider_name = "function"

    def __init__(
        self,
        fn: EmbedFunction,
        *,
        model: str,
        dimensions: int | None = None,
        query_fn: EmbedFunction | None = None,
    ) -> None:
        from textsearch.errors import ConfigurationError

        if not callable(fn) or (query_fn is not None and not callable(query_fn)):
            raise ConfigurationError("FunctionEmbedder needs a callable fn(texts) -> vectors")
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError("FunctionEmbedder needs model=, the model's id")
        if dimensions is not None and (
            isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1
        ):
            raise ConfigurationError(f"dimensions must be a positive integer, got {dimensions!r}")
        self._fn = fn
        self._query_fn = query_fn or fn
        self._model = model
        self._dimensions = dimensions

    def __repr__(self) -> str:
        return f"FunctionEmbedder(model={self._model!r}, dimensions={self._dimensions!r})"

    @property
    def model(self) -> str:
        """The model's id."""
        return self._model

    @property
    def dimensions(self) -> int | None:
        """The vectors' length (learnt from the first call when not given)."""
        return self._dimensions

    def _learn(self, vectors: object, count: int) -> list[list[float]]:
        checked = check_vectors(vectors, count, self._dimensions, provider=self.model)
        if checked and self._dimensions is None:
            self._dimensions = len(checked[0])
        return checked

    async def _call_async(self, fn: EmbedFunction, texts: list[str]) -> list[list[float]]:
        if inspect.iscoroutinefunction(fn):
            result: Any = await fn(texts)
        else:
            result = await asyncio.to_thread(fn, texts)
            if inspect.isawaitable(result):
                result = await result
        return self._learn(result, len(texts))

    def _call_sync(self, fn: EmbedFunction, texts: list[str]) -> list[list[float]]:
        result: Any = fn(texts)
        if inspect.isawaitable(result):
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                result = asyncio.run(_awaited(result))
            else:
                if inspect.iscoroutine(result):
                    result.close()
                raise RuntimeError(
                    "FunctionEmbedder: an async fn cannot run from a blocking call inside a "
                    "running event loop; await the async method instead"
                )
        return self._learn(result, len(texts))

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        items = _texts(texts)
        return await self._call_async(self._fn, items) if items else []

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return (await self._call_async(self._query_fn, [text]))[0]

    def embed_documents_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking twin of :meth:`embed_documents`."""
        items = _texts(texts)
        return self._call_sync(self._fn, items) if items else []

    def embed_query_sync(self, text: str) -> list[float]:
        """Blocking twin of :meth:`embed_query`."""
        return self._call_sync(self._query_fn, [text])[0]


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value
