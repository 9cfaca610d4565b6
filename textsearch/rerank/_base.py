"""The ``Reranker`` protocol, the checks every reranker's output goes through, and
``FunctionReranker``.

A reranker scores texts against a query: one finite number per text, in input order,
higher is better. Nothing here imports numpy, an HTTP client or a model.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from textsearch import _tracing
from textsearch._foreign import (
    IN_LOOP,
    call_async,
    call_blocking,
    foreign_errors,
    one_per_text,
    provider_of,
)
from textsearch._twins import Call, Plan, drive, drive_sync, perform, perform_sync
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    ResponseFormatError,
)

__all__ = [
    "FunctionReranker",
    "Reranker",
    "check_scores",
    "provider_of",
    "rerank",
    "rerank_sync",
]


@runtime_checkable
class Reranker(Protocol):
    """Scores texts against a query: what a second-stage ranking needs from a model.

    ``rerank`` returns one finite score per text, in input order; higher is better. The
    scale is the model's own (a cosine, a logit, a probability): only the order matters,
    and scores of one call are comparable with each other.
    """

    @property
    def model(self) -> str:
        """The model's id (named in results' metadata and traces)."""
        ...

    async def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in input order."""
        ...

    def rerank_sync(self, query: str, texts: Sequence[str]) -> list[float]:
        """Blocking twin of `rerank`."""
        ...


def check_scores(scores: object, count: int, *, provider: str) -> list[float]:
    """Validate a reranker's output: ``count`` finite numbers.

    Returns:
        The scores as a new list of Python floats.

    Raises:
        ResponseFormatError: Not a list, a wrong count, a value that is not a number (a
            bool, a string, None...), NaN or infinity.
    """
    scores = one_per_text(
        scores, count, who=f"{provider}: the reranker", items="scores", provider=provider
    )
    out: list[float] = []
    for i, value in enumerate(scores):
        if type(value).__module__ == "numpy" and hasattr(value, "item"):
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ResponseFormatError(
                f"{provider}: score {i} is a {type(value).__name__}, not a number",
                provider=provider,
            )
        try:
            number = float(value)
        except OverflowError:
            number = math.inf
        if not math.isfinite(number):
            raise ResponseFormatError(
                f"{provider}: score {i} is {number} (not finite)", provider=provider
            )
        out.append(number)
    return out


def check_query_and_texts(query: object, texts: object) -> tuple[str, list[str]]:
    """The query and the texts, or an ``InvalidRequestError`` before any model is called."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidRequestError("the query to rerank against must be a non-empty string")
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence):
        raise InvalidRequestError("texts must be a list of strings")
    items = list(texts)
    if not all(isinstance(t, str) for t in items):
        raise InvalidRequestError("every text to rerank must be a string")
    return query, items


def reranker_errors(provider: str) -> contextlib.AbstractContextManager[None]:
    """What a reranker raises: one of ours unchanged, anything else as a ``ProviderError``.

    The original is kept as ``__cause__`` only with its message scrubbed of known keys.
    """
    return foreign_errors(provider, f"{provider}: the reranker failed")


async def rerank(reranker: Reranker, query: str, texts: Sequence[str]) -> list[float]:
    """Call a reranker and validate what it returns.

    An empty list of texts gives ``[]`` without calling the reranker.

    Raises:
        InvalidRequestError: An empty query, or texts that are not a list of strings.
        TextSearchError: What the reranker raised, if it is one, unchanged.
        ProviderError: Any other exception from the reranker (the original as ``__cause__``).
        ResponseFormatError: Not one finite score per text.
    """
    return await drive(_rerank(reranker, query, texts), perform)


def rerank_sync(reranker: Reranker, query: str, texts: Sequence[str]) -> list[float]:
    """Blocking twin of `rerank`; raises the same errors."""
    return drive_sync(_rerank(reranker, query, texts), perform_sync)


def rerank_span(reranker: Reranker, provider: str, count: int) -> Any:
    """A ``rerank`` span (the GenAI shape: operation, model, provider; the candidates' count)."""
    return _tracing.operation(
        "rerank",
        model=str(getattr(reranker, "model", "") or "") or None,
        provider=provider,
        attributes={"textsearch.rerank.documents": count},
    )


def _rerank(reranker: Reranker, query: str, texts: Sequence[str]) -> Plan[Call, list[float]]:
    """One validated rerank call, for both paths (see `textsearch._twins`)."""
    query, items = check_query_and_texts(query, texts)
    if not items:
        return []
    provider = provider_of(reranker)
    with rerank_span(reranker, provider, len(items)):
        with reranker_errors(provider):
            scores = yield Call(reranker.rerank_sync, reranker.rerank, (query, items))
        return check_scores(scores, len(items), provider=provider)


RerankFunction = Callable[[str, list[str]], "list[float] | Awaitable[list[float]]"]


class FunctionReranker:
    """A `Reranker` from any callable ``fn(query, texts) -> scores`` (sync or async).

    The escape hatch: an LLM asked to grade passages, a model this package has no adapter
    for, a hand-written rule. An async ``fn`` is awaited on the async path and run on a
    private event loop by `rerank_sync` (which then refuses to run inside a running loop);
    a sync ``fn`` runs in a worker thread on the async path, so it never blocks the loop.
    What ``fn`` returns is checked: one finite number per text.

    Args:
        fn: Takes the query and a list of texts, returns one score per text.
        model: The name recorded in results' metadata.

    Raises:
        ConfigurationError: ``fn`` is not callable or ``model`` is empty.
    """

    provider_name = "function"

    def __init__(self, fn: RerankFunction, *, model: str) -> None:
        if not callable(fn):
            raise ConfigurationError("FunctionReranker needs a callable fn(query, texts) -> scores")
        if not isinstance(model, str) or not model.strip():
            raise ConfigurationError("FunctionReranker needs model=, a name for the reranker")
        self._fn = fn
        self._model = model.strip()

    def __repr__(self) -> str:
        return f"FunctionReranker(model={self._model!r})"

    @property
    def model(self) -> str:
        """The name given at construction."""
        return self._model

    async def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in input order.

        Raises:
            InvalidRequestError: An empty query or texts that are not strings.
            ProviderError: ``fn`` raised (the original as ``__cause__``).
            ResponseFormatError: ``fn`` did not return one finite number per text.
        """
        query, items = check_query_and_texts(query, texts)
        if not items:
            return []
        with reranker_errors(self.provider_name):
            result = await call_async(self._fn, query, items)
        return check_scores(result, len(items), provider=self.provider_name)

    def rerank_sync(self, query: str, texts: Sequence[str]) -> list[float]:
        """Blocking twin of `rerank`; raises the same errors.

        Raises:
            RuntimeError: ``fn`` is async and this is called inside a running event loop.
        """
        query, items = check_query_and_texts(query, texts)
        if not items:
            return []
        with reranker_errors(self.provider_name):
            result = call_blocking(self._fn, query, items)
        if result is IN_LOOP:  # raised outside reranker_errors: the caller's mistake
            raise RuntimeError(_IN_LOOP_MESSAGE)
        return check_scores(result, len(items), provider=self.provider_name)


_IN_LOOP_MESSAGE = (
    "FunctionReranker: an async fn cannot run from a blocking call inside a running event "
    "loop; await rerank() instead"
)
