"""The ``Embedder`` protocol and the checks every embedder's output goes through.

Nothing here imports numpy or a model: ``import textsearch.embeddings`` stays light. A
vector is a ``list[float]``; stores convert it to their own form.
"""

from __future__ import annotations

import contextlib
import inspect
import math
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from textsearch import _foreign, _tracing
from textsearch._twins import Call, Plan, drive, drive_sync, perform, perform_sync
from textsearch.errors import ProviderError, ResponseFormatError, TextSearchError

T = TypeVar("T")

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
        """Blocking twin of `embed_documents`."""
        ...

    def embed_query_sync(self, text: str) -> list[float]:
        """Blocking twin of `embed_query`."""
        ...


#: The largest magnitude a vector value may have: float32's, the precision vectors are
#: stored and scored in (a larger value becomes infinity there, and its scores NaN).
MAX_VECTOR_VALUE = 3.4028234663852886e38


def _in_range(vector: list[float]) -> bool:
    return max(vector) <= MAX_VECTOR_VALUE and min(vector) >= -MAX_VECTOR_VALUE


def _row_error(i: int, message: str, provider: str) -> ResponseFormatError:
    return ResponseFormatError(f"vector {i} from the embedder {message}", provider=provider)


def _array_rows(vectors: Any, count: int, dimensions: int | None) -> list[list[float]] | None:
    """A well-formed 2-d numpy array as rows of floats, checked in one vectorised pass.

    ``None`` when anything is off (shape, dtype, a non-finite value): the generic path then
    finds the first fault and says what it is.
    """
    np = sys.modules.get("numpy")
    if np is None or not isinstance(vectors, np.ndarray):
        return None
    # "f", "i", "u": floats and integers; bools ("b"), complex and objects go the long way
    if vectors.ndim != 2 or vectors.dtype.kind not in "fiu" or len(vectors) != count:
        return None
    width = vectors.shape[1]
    if not width or (dimensions is not None and width != dimensions):
        return None
    if vectors.dtype.kind == "f" and not (
        bool(np.isfinite(vectors).all()) and float(np.abs(vectors).max()) <= MAX_VECTOR_VALUE
    ):
        return None
    rows: list[list[float]] = vectors.astype(np.float64).tolist()
    return rows


def check_vectors(
    vectors: object, count: int, dimensions: int | None, *, provider: str
) -> list[list[float]]:
    """Validate an embedder's output: ``count`` finite vectors of one (expected) length.

    Returns:
        The vectors as new lists of Python floats.

    Raises:
        ResponseFormatError: Wrong count, wrong or uneven length, an empty vector, a value
            that is not a number (a bool, a string, None...), NaN, infinity or a magnitude
            beyond float32's range (``MAX_VECTOR_VALUE``). Nothing malformed is ever stored.
    """
    return checked_vectors(vectors, count, dimensions, provider=provider, copy=True)


def checked_vectors(
    vectors: object, count: int, dimensions: int | None, *, provider: str, copy: bool
) -> list[list[float]]:
    """`check_vectors`; with ``copy=False`` a row that is a list of floats is kept.

    For rows handed over by their maker (parsed JSON, what an embedding function returned):
    the same checks, without a copy of every row that nobody would change.
    """
    rows = _array_rows(vectors, count, dimensions)
    if rows is not None:
        return rows
    # a 2-d array from a local model becomes one row per text
    vectors = _foreign.one_per_text(
        vectors, count, who="the embedder", items="vectors", provider=provider
    )
    out: list[list[float]] = []
    length = dimensions
    for i, vector in enumerate(vectors):
        # The common row first: a list of Python floats of the known length, checked in
        # two C-level passes: the types, then the Euclidean length, which is NaN or ±inf
        # when a value is and at least every value's magnitude, so a length within float32's
        # range proves every value finite and within it (one pass where a sum, a max and a
        # min took three). Anything else (a tuple, ints, numpy
        # scalars, a length beyond the range, the first row when the length is not known
        # yet) takes the long way.
        if (
            type(vector) is list
            and len(vector) == length
            and list(map(type, vector)).count(float) == length
            and math.hypot(*vector) <= MAX_VECTOR_VALUE
        ):
            out.append(vector.copy() if copy else vector)
            continue
        if hasattr(vector, "tolist") and not isinstance(vector, (list, tuple)):
            vector = vector.tolist()  # a numpy row
        if not isinstance(vector, (list, tuple)) or not vector:
            raise _row_error(i, "is not a non-empty list of numbers", provider)
        if length is None:
            length = len(vector)
        elif len(vector) != length:
            raise _row_error(i, f"has {len(vector)} dimensions, expected {length}", provider)
        plain = (
            list(map(type, vector)).count(float) == length
            and math.isfinite(sum(vector))
            and _in_range(list(vector))
        )
        if plain and not copy and type(vector) is list:
            out.append(vector)
        elif plain:
            out.append(list(vector))
        else:
            out.append(_checked_row(i, vector, provider))
    return out


def _checked_row(i: int, vector: Sequence[object], provider: str) -> list[float]:
    row: list[float] = []
    for value in vector:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            if type(value).__module__ == "numpy" and hasattr(value, "item"):
                value = value.item()
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise _row_error(i, f"holds a {type(value).__name__}, not a number", provider)
        try:
            number = float(value)
        except OverflowError:
            number = math.inf  # an int too large for a float
        if not math.isfinite(number):
            raise _row_error(i, f"holds {number} (not finite)", provider)
        if abs(number) > MAX_VECTOR_VALUE:
            raise _row_error(
                i, f"holds {number:g}, beyond float32's range (vectors are stored so)", provider
            )
        row.append(number)
    return row


def _texts(texts: object) -> list[str]:
    from textsearch.errors import InvalidRequestError

    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InvalidRequestError("texts must be a list of strings")
    if not all(isinstance(t, str) for t in texts):
        raise InvalidRequestError("every text to embed must be a string")
    return list(texts)


def _embedder_errors(provider: str) -> contextlib.AbstractContextManager[None]:
    """What an embedder raises: one of ours unchanged, anything else as a ``ProviderError``."""
    return _foreign.foreign_errors(provider, "the embedder failed")


#: Embedders of this package whose every output already went through ``check_vectors``
#: (exact types: a subclass may override what produces the vectors).
_SELF_CHECKING: set[type] = set()


def _checks_its_output(cls: type[T]) -> type[T]:
    _SELF_CHECKING.add(cls)
    return cls


def _validated(embedder: Embedder, vectors: object, count: int) -> list[list[float]]:
    """``check_vectors`` of an embedder's output, once: not again for one that checked it."""
    dimensions = embedder.dimensions
    if (
        type(embedder) in _SELF_CHECKING
        and type(vectors) is list
        and len(vectors) == count
        and (dimensions is None or not vectors or len(vectors[0]) == dimensions)
    ):
        return vectors
    return check_vectors(vectors, count, dimensions, provider=_foreign.provider_of(embedder))


def embeds_in_a_thread(embedder: Embedder) -> bool:
    """Whether ``embedder``'s async methods only run its blocking ones in a worker thread.

    Such an embedder can be called through its blocking twin from a worker thread that a
    store call runs in anyway: one hop off the event loop instead of two.
    """
    blocking = getattr(embedder, "_blocking", None)
    return type(embedder) in _SELF_CHECKING and callable(blocking) and bool(blocking())


async def embed_documents(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Call an embedder and validate what it returns (for stores: never store a bad vector).

    Raises:
        TextSearchError: What the embedder raised, if it is one, unchanged.
        ProviderError: Any other exception from the embedder (the original as ``__cause__``).
        ResponseFormatError: Malformed output (see `check_vectors`).
    """
    items = _texts(texts)
    return await drive(_embedding(embedder, items, query=False), perform) if items else []


def embed_documents_sync(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Blocking twin of `embed_documents`; raises the same errors."""
    items = _texts(texts)
    return drive_sync(_embedding(embedder, items, query=False), perform_sync) if items else []


async def embed_query(embedder: Embedder, text: str) -> list[float]:
    """The validated vector of one query; raises as `embed_documents`."""
    return (await drive(_embedding(embedder, [text], query=True), perform))[0]


def embed_query_sync(embedder: Embedder, text: str) -> list[float]:
    """Blocking twin of `embed_query`; raises the same errors."""
    return drive_sync(_embedding(embedder, [text], query=True), perform_sync)[0]


def _embedding(
    embedder: Embedder, items: list[str], *, query: bool
) -> Plan[Call, list[list[float]]]:
    """One validated embedder call, for both paths (see `textsearch._twins`)."""
    provider = _foreign.provider_of(embedder)
    span = (
        _tracing.embedding_span(embedder, provider, len(items))
        if _tracing.enabled()
        else contextlib.nullcontext()
    )
    with span:
        with _embedder_errors(provider):
            if query:
                vector = yield Call(embedder.embed_query_sync, embedder.embed_query, (items[0],))
                vectors: object = [vector]
            else:
                vectors = yield Call(
                    embedder.embed_documents_sync, embedder.embed_documents, (items,)
                )
        return _validated(embedder, vectors, len(items))


class _EmbedderBase:
    """What every embedder of this package has: its model id, its length, learning it."""

    _model: str
    _dimensions: int | None

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self._repr_fields())
        return f"{type(self).__name__}({fields})"

    def _repr_fields(self) -> list[tuple[str, object]]:
        return [("model", self._model), ("dimensions", self._dimensions)]

    @property
    def model(self) -> str:
        """The model id recorded with the vectors."""
        return self._model

    @property
    def dimensions(self) -> int | None:
        """Length of every vector: given or known for the model, else learnt from a call."""
        return self._dimensions

    def _learn(self, vectors: object, count: int, provider: str) -> list[list[float]]:
        """Check a model's output (see `check_vectors`); the first learns the length."""
        # a model's or a function's rows are handed over to the caller, not copied
        checked = checked_vectors(vectors, count, self._dimensions, provider=provider, copy=False)
        if checked and self._dimensions is None:
            self._dimensions = len(checked[0])
        return checked


class _ModelEmbedder(_EmbedderBase):
    """A model run in this process: prefixes, a worker thread on the async path, checks.

    Subclasses give ``_encode`` (the texts, prefixed, to the model's raw output).
    """

    provider_name: ClassVar[str] = "local"
    #: how a failure of the model starts its message
    _failure: ClassVar[str] = "the model failed"
    query_prefix: str = ""
    document_prefix: str = ""
    batch_size: int

    def _encode(self, texts: list[str], *, query: bool) -> Any:
        raise NotImplementedError

    def _blocking(self) -> bool:
        return True

    def _embed(self, texts: list[str], *, query: bool) -> list[list[float]]:
        if not texts:
            return []
        try:
            raw = self._encode(texts, query=query)
        except TextSearchError:
            raise
        except Exception as exc:  # the library's own errors become documented ones
            raise ProviderError(
                f"{self.provider_name}: {self._failure}: {type(exc).__name__}: {str(exc)[:200]}",
                provider=self.provider_name,
            ) from exc
        return self._learn(raw, len(texts), self.provider_name)

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
            ProviderError: The model raised (the original as ``__cause__``).
            ResponseFormatError: A wrong count, length, or a non-finite value.
        """
        return self._embed(self._documents(texts), query=False)

    def embed_query_sync(self, text: str) -> list[float]:
        """The vector of one query; raises as `embed_documents_sync`."""
        return self._embed(self._query(text), query=True)[0]

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Async twin of `embed_documents_sync` (the model runs in a worker thread)."""
        import asyncio  # here: a blocking search never needs it

        items = self._documents(texts)
        return await asyncio.to_thread(self._embed, items, query=False) if items else []

    async def embed_query(self, text: str) -> list[float]:
        """Async twin of `embed_query_sync` (the model runs in a worker thread)."""
        import asyncio

        items = self._query(text)
        return (await asyncio.to_thread(self._embed, items, query=True))[0]


EmbedFunction = Callable[[list[str]], "list[list[float]] | Awaitable[list[list[float]]]"]


@_checks_its_output
class FunctionEmbedder(_EmbedderBase):
    """An `Embedder` from any callable ``fn(texts) -> vectors`` (sync or async).

    The escape hatch for a model this package has no adapter for, and what tests use. An
    async ``fn`` is awaited on the async path and run on a private event loop by the blocking
    twins (which then refuse to run inside a running loop); a sync ``fn`` runs in a worker
    thread on the async path, so it never blocks the event loop.

    The rows ``fn`` returns are checked and, when they already are lists of floats, passed
    on as they are (not copied): ``fn`` must not change a list after returning it.

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

    def _blocking(self) -> bool:
        # a coroutine function is awaited on the loop, not run on a private one in a thread
        return not (
            inspect.iscoroutinefunction(self._fn) or inspect.iscoroutinefunction(self._query_fn)
        )

    async def _call_async(self, fn: EmbedFunction, texts: list[str]) -> list[list[float]]:
        return self._learn(await _foreign.call_async(fn, texts), len(texts), self.model)

    def _call_sync(self, fn: EmbedFunction, texts: list[str]) -> list[list[float]]:
        result = _foreign.call_blocking(fn, texts)
        if result is _foreign.IN_LOOP:
            raise RuntimeError(
                "FunctionEmbedder: an async fn cannot run from a blocking call inside a "
                "running event loop; await the async method instead"
            )
        return self._learn(result, len(texts), self.model)

    async def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order."""
        items = _texts(texts)
        return await self._call_async(self._fn, items) if items else []

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one query."""
        return (await self._call_async(self._query_fn, [text]))[0]

    def embed_documents_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Blocking twin of `embed_documents`."""
        items = _texts(texts)
        return self._call_sync(self._fn, items) if items else []

    def embed_query_sync(self, text: str) -> list[float]:
        """Blocking twin of `embed_query`."""
        return self._call_sync(self._query_fn, [text])[0]
