"""``FusedTextSearch``: ask every provider at once and fuse the lists by reciprocal rank."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError
from functools import lru_cache
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    computed_field,
    field_serializer,
)
from pydantic_core import PydanticSerializationError

from textsearch._links import link_key
from textsearch._types import SearchOptions, SearchResults, TextSearchResult
from textsearch.base import TextSearch
from textsearch.compose._common import (
    Hit,
    Kind,
    Wrapper,
    check_number,
    check_searches,
    check_seconds,
    fetch_hits,
    fetch_hits_sync,
    logger,
    precheck,
    unique_names,
)
from textsearch.errors import (
    AllProvidersFailedError,
    ConfigurationError,
    ProviderError,
    SearchTimeoutError,
    SearchTransportError,
)

__all__ = ["FusedResult", "FusedTextSearch"]


class FusedResult(BaseModel):
    """One result of :class:`FusedTextSearch`: a page and the providers that listed it.

    ``name``, ``value`` and ``link`` read through to :attr:`text_search_result`, so the
    result formats and cites like any other.

    Attributes:
        result: The first native result seen for this page (in provider order).
        text_search_result: Its normalized form.
        score: The reciprocal rank fusion score, ``Σ weight / (k + rank)``.
        sources: ``(provider_name, rank)`` for each provider that listed the page, in
            provider order; ranks start at 1 and count after duplicates were removed.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    result: Any
    text_search_result: TextSearchResult
    score: float
    sources: list[tuple[str, int]]

    @field_serializer("result", mode="wrap")
    def _dump_result(self, value: Any, handler: SerializerFunctionWrapHandler) -> Any:
        # A third-party native result may be a type pydantic cannot serialize: dumping (for
        # a tool's JSON, say) must not fail because of it.
        try:
            return handler(value)
        except PydanticSerializationError:
            return str(value)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def name(self) -> str | None:
        """The title."""
        return self.text_search_result.name

    @computed_field  # type: ignore[prop-decorator]
    @property
    def value(self) -> str | None:
        """The text."""
        return self.text_search_result.value

    @computed_field  # type: ignore[prop-decorator]
    @property
    def link(self) -> str | None:
        """The link."""
        return self.text_search_result.link


@lru_cache(maxsize=8192)
def _link_dedupe_key(link: str) -> str:
    return "link:" + link_key(link)


def _dedupe_key(text: TextSearchResult) -> str:
    link = text.link
    if link and not link.isspace():
        return _link_dedupe_key(link)
    return f"text:{text.name or ''}\x00{text.value or ''}"


_SCORE, _BEST, _ORDER, _HIT, _SOURCES = range(5)


def _rank_order(entry: list[Any]) -> tuple[float, int, int]:
    # Best score first; ties: the better best rank, then first seen (provider order).
    return (-entry[_SCORE], entry[_BEST], entry[_ORDER])


class FusedTextSearch(Wrapper):
    """Ask every provider concurrently and fuse their lists by reciprocal rank fusion.

    Each provider is asked for ``top + skip`` results (capped at its ``max_top``); a link
    it lists twice counts once, at its better rank. A page then scores
    ``Σ weight / (k + rank)`` over the providers that list it, pages are merged across
    providers by :func:`~textsearch.compose.canonical_link` (``http``/``https`` and a
    trailing ``/`` are ignored too), and the fused list is sorted by score (ties: the better
    best rank, then provider order) before ``skip`` and ``top`` are applied.

    ``get_search_results`` returns :class:`FusedResult` items; ``get_text_search_results``
    and ``search`` return the fused pages' normalized results and strings.
    ``total_count`` is always ``None``: a fused list has no honest total.

    A provider that fails, or does not answer within ``per_search_timeout``, is left out
    and listed in ``metadata["failed"]`` (``{"provider", "error", "reason"}``);
    ``metadata["providers"]`` names those that answered. Only when every provider fails is
    :class:`~textsearch.errors.AllProvidersFailedError` raised. A request a provider cannot
    serve (invalid options, a filter it cannot honour) is an error before any request:
    dropping that provider would silently change the results.

    The blocking twins run the providers on a small thread pool owned by the wrapper
    (released by ``close``); a provider past ``per_search_timeout`` is not waited for, but
    its thread finishes in the background, bounded by the connector's own timeout.
    Wrapped searches are closed only with ``close_wrapped=True``.

    Args:
        searches: The providers to fuse.
        k: The RRF constant (60 in the original paper); larger values flatten the ranks.
        weights: One weight >= 0 per provider (default 1 each).
        per_search_timeout: Seconds to wait for each provider; ``None`` waits for all.
        close_wrapped: Close the wrapped searches when this wrapper is closed.

    Raises:
        ConfigurationError: No searches, something that is not a ``TextSearch``, a
            negative ``k`` or timeout, or weights that do not match the searches.
    """

    provider_name: ClassVar[str] = "fused"

    def __init__(
        self,
        searches: Sequence[TextSearch],
        *,
        k: float = 60,
        weights: Sequence[float] | None = None,
        per_search_timeout: float | None = None,
        close_wrapped: bool = False,
    ) -> None:
        items = check_searches(searches, "FusedTextSearch")
        super().__init__(items, close_wrapped=close_wrapped)
        self.searches: tuple[TextSearch, ...] = tuple(items)
        self.names: tuple[str, ...] = tuple(unique_names(items))
        self.k = check_number(k, "k") or 0.0
        if weights is None:
            self.weights: tuple[float, ...] = (1.0,) * len(items)
        else:
            if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence):
                raise ConfigurationError("weights must be a list of numbers, one per search")
            if len(weights) != len(items):
                raise ConfigurationError(
                    f"weights has {len(weights)} numbers for {len(items)} searches"
                )
            self.weights = tuple(check_number(w, "each weight") or 0.0 for w in weights)
        self.per_search_timeout = check_seconds(
            per_search_timeout, "per_search_timeout", allow_none=True
        )
        self._provider_tops = [getattr(s, "max_top", None) for s in items]
        self._executor: ThreadPoolExecutor | None = None
        self._executor_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FusedTextSearch([{', '.join(self.names)}], k={self.k:g})"

    # -- requests -------------------------------------------------------------------------

    def _inner_options(self, index: int, options: SearchOptions) -> SearchOptions:
        depth = options.top + options.skip
        limit = self._provider_tops[index]
        if isinstance(limit, int) and not isinstance(limit, bool) and limit >= 1:
            depth = min(depth, limit)
        if depth == options.top and not options.skip and not options.include_total_count:
            return options
        return options.with_updates(top=depth, skip=0, include_total_count=False)

    def _check_wrapped(self, query: str, options: SearchOptions) -> None:
        for index, search in enumerate(self.searches):
            precheck(search, query, self._inner_options(index, options))

    @staticmethod
    def _is_partial(exc: BaseException) -> bool:
        # What the provider did wrong, or could not reach; everything else (the caller's
        # mistake, a bug) is raised.
        return isinstance(exc, (ProviderError, SearchTransportError))

    def _timeout_error(self, index: int) -> SearchTimeoutError:
        return SearchTimeoutError(
            f"{self.names[index]} did not answer within {self.per_search_timeout:g} s",
            provider=self.names[index],
        )

    # -- fusion ---------------------------------------------------------------------------

    def _fuse(
        self, kind: Kind, outcomes: list[SearchResults[Hit] | Exception], options: SearchOptions
    ) -> SearchResults[Any]:
        failed: list[dict[str, Any]] = []
        answered: list[str] = []
        errors: list[Exception] = []
        # key -> [score, best rank, first-seen order, first hit, sources]: plain lists are
        # the cheapest mutable records, and this loop runs for every result of every provider.
        entries: dict[str, list[Any]] = {}
        k = self.k
        for index, outcome in enumerate(outcomes):
            name = self.names[index]
            if isinstance(outcome, Exception):
                logger.warning("fusion: %s failed (%s)", name, type(outcome).__name__)
                failed.append(
                    {"provider": name, "error": type(outcome).__name__, "reason": str(outcome)}
                )
                errors.append(outcome)
                continue
            answered.append(name)
            weight = self.weights[index]
            seen: set[str] = set()
            rank = 0
            for hit in outcome.results:
                key = _dedupe_key(hit.text)
                if key in seen:  # one provider listing a page twice is one vote
                    continue
                seen.add(key)
                rank += 1  # k >= 0 and rank >= 1: never a division by zero
                entry = entries.get(key)
                if entry is None:
                    entries[key] = [weight / (k + rank), rank, len(entries), hit, [(name, rank)]]
                else:
                    entry[_SCORE] += weight / (k + rank)
                    if rank < entry[_BEST]:
                        entry[_BEST] = rank
                    entry[_SOURCES].append((name, rank))
        if not answered:
            raise AllProvidersFailedError(
                f"all {len(self.searches)} search providers failed: "
                + "; ".join(f"{f['provider']}: {f['error']}" for f in failed),
                errors=errors,
                provider=self.provider_name,
                retry_after=_shortest_retry(errors),
            )
        ranked = sorted(entries.values(), key=_rank_order)
        page = ranked[options.skip : options.skip + options.top]
        metadata = {"providers": answered, "failed": failed}
        items: list[Any]
        if kind == "text":
            items = [e[_HIT].text for e in page]
        elif kind == "search":
            items = [e[_HIT].string for e in page]
        else:
            fused = [
                Hit(
                    # Plain construction: pydantic-core validates these four fields faster
                    # than model_construct assembles them in Python.
                    FusedResult(
                        result=hit.native,
                        text_search_result=hit.text,
                        score=e[_SCORE],
                        sources=e[_SOURCES],
                    ),
                    hit.text,
                    hit.owner,
                    hit.base,
                )
                for e in page
                for hit in (e[_HIT],)
            ]
            items = fused if kind == "hits" else [h.native for h in fused]
        return SearchResults(items, None, metadata)

    # -- async ----------------------------------------------------------------------------

    async def _one(self, index: int, query: str, options: SearchOptions) -> Any:
        request = fetch_hits(self.searches[index], query, self._inner_options(index, options))
        try:
            if self.per_search_timeout is None:
                return await request
            return await asyncio.wait_for(request, self.per_search_timeout)
        except asyncio.TimeoutError:
            return self._timeout_error(index)
        except Exception as exc:
            if self._is_partial(exc):
                return exc
            raise

    async def _run(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        loop = asyncio.get_running_loop()
        last = len(self.searches) - 1
        # The last provider runs in this task (its first await lets the others start): one
        # task fewer per search.
        tasks = [loop.create_task(self._one(i, query, options)) for i in range(last)]
        try:
            mine = await self._one(last, query, options)
            outcomes: list[Any] = [await task for task in tasks]
        except BaseException:
            # A mistake or cancellation stops the other requests instead of leaving them running.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        outcomes.append(mine)
        return self._fuse(kind, outcomes, options)

    # -- blocking -------------------------------------------------------------------------

    def _pool(self) -> ThreadPoolExecutor:
        with self._executor_lock:
            if self._executor is None:
                # Room for a second round while a timed-out request still holds its thread.
                self._executor = ThreadPoolExecutor(
                    max_workers=2 * len(self.searches), thread_name_prefix="textsearch-fused"
                )
            return self._executor

    def _one_sync(self, index: int, query: str, options: SearchOptions) -> SearchResults[Hit]:
        return fetch_hits_sync(self.searches[index], query, self._inner_options(index, options))

    def _run_sync(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        count = len(self.searches)
        # Without a timeout the last provider runs in the calling thread: one thread
        # hand-off fewer per search (none at all for a single provider).
        inline = self.per_search_timeout is None
        pooled = count - 1 if inline else count
        pool = self._pool() if pooled else None
        futures = (
            [pool.submit(self._one_sync, i, query, options) for i in range(pooled)] if pool else []
        )
        try:
            mine: Any = None
            if inline:
                try:
                    mine = self._one_sync(count - 1, query, options)
                except Exception as exc:
                    if not self._is_partial(exc):
                        raise
                    mine = exc
            pending = self._wait(futures)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        outcomes: list[Any] = []
        for index, future in enumerate(futures):
            if future in pending:
                future.cancel()
                outcomes.append(self._timeout_error(index))
            elif future.exception() is not None:
                outcomes.append(future.exception())
            else:
                outcomes.append(future.result())
        if inline:
            outcomes.append(mine)
        return self._fuse(kind, outcomes, options)

    def _wait(self, futures: list[Future[SearchResults[Hit]]]) -> set[Future[SearchResults[Hit]]]:
        """Wait for the futures within the timeout; raise a fatal error; return the unfinished."""
        timeout = self.per_search_timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        pending: set[Future[SearchResults[Hit]]] = set()
        for future in futures:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                problem = future.exception(timeout=left)
            except FutureTimeoutError:
                pending.add(future)
                continue
            if problem is not None and not self._is_partial(problem):
                raise problem
        return pending

    def _release(self) -> None:
        with self._executor_lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


def _shortest_retry(errors: list[Exception]) -> float | None:
    waits = [
        float(w)
        for w in (getattr(e, "retry_after", None) for e in errors)
        if isinstance(w, (int, float))
    ]
    return min(waits) if waits else None
