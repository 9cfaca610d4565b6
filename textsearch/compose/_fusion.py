"""``FusedTextSearch``: ask every provider at once and fuse the lists by reciprocal rank."""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, computed_field

from textsearch._links import link_key
from textsearch._types import SearchOptions, SearchResults, TextSearchResult
from textsearch.base import TextSearch
from textsearch.compose._common import (
    Hit,
    Kind,
    Wrapper,
    check_searches,
    check_seconds,
    fetch_hits,
    fetch_hits_sync,
    logger,
    precheck,
    project,
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


def _dedupe_key(text: TextSearchResult) -> str:
    if text.link and text.link.strip():
        return "link:" + link_key(text.link)
    return f"text:{text.name or ''}\x00{text.value or ''}"


class _Entry:
    __slots__ = ("best", "hit", "order", "score", "sources")

    def __init__(self, hit: Hit, order: int) -> None:
        self.hit = hit
        self.score = 0.0
        self.best = math.inf
        self.order = order
        self.sources: list[tuple[str, int]] = []


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
        self.k = check_seconds(k, "k") or 0.0
        if weights is None:
            self.weights: tuple[float, ...] = (1.0,) * len(items)
        else:
            if isinstance(weights, (str, bytes)) or not isinstance(weights, Sequence):
                raise ConfigurationError("weights must be a list of numbers, one per search")
            if len(weights) != len(items):
                raise ConfigurationError(
                    f"weights has {len(weights)} numbers for {len(items)} searches"
                )
            self.weights = tuple(check_seconds(w, "each weight") or 0.0 for w in weights)
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
        self, outcomes: list[SearchResults[Hit] | Exception], options: SearchOptions
    ) -> SearchResults[Hit]:
        failed: list[dict[str, Any]] = []
        answered: list[str] = []
        errors: list[Exception] = []
        entries: dict[str, _Entry] = {}
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
                rank += 1
                entry = entries.get(key)
                if entry is None:
                    entry = entries[key] = _Entry(hit, len(entries))
                entry.score += weight / (k + rank) if k + rank else 0.0
                entry.best = min(entry.best, rank)
                entry.sources.append((name, rank))
        if not answered:
            raise AllProvidersFailedError(
                f"all {len(self.searches)} search providers failed: "
                + "; ".join(f"{f['provider']}: {f['error']}" for f in failed),
                errors=errors,
                provider=self.provider_name,
                retry_after=_shortest_retry(errors),
            )
        ranked = sorted(entries.values(), key=lambda e: (-e.score, e.best, e.order))
        page = ranked[options.skip : options.skip + options.top]
        hits = [
            Hit(
                FusedResult.model_construct(
                    result=e.hit.native,
                    text_search_result=e.hit.text,
                    score=e.score,
                    sources=e.sources,
                ),
                e.hit.text,
                e.hit.string,
            )
            for e in page
        ]
        return SearchResults(hits, None, {"providers": answered, "failed": failed})

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
        tasks = [
            asyncio.ensure_future(self._one(i, query, options)) for i in range(len(self.searches))
        ]
        try:
            outcomes: list[Any] = list(await asyncio.gather(*tasks))
        except BaseException:
            # A mistake or cancellation stops the other requests instead of leaving them running.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return project(self._fuse(outcomes, options), kind)

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
        outcomes: list[Any] = []
        if count == 1 and self.per_search_timeout is None:
            # Nothing to overlap: no thread hand-off.
            try:
                outcomes.append(self._one_sync(0, query, options))
            except Exception as exc:
                if not self._is_partial(exc):
                    raise
                outcomes.append(exc)
            return project(self._fuse(outcomes, options), kind)
        pool = self._pool()
        futures = [pool.submit(self._one_sync, i, query, options) for i in range(count)]
        deadline = (
            None if self.per_search_timeout is None else time.monotonic() + self.per_search_timeout
        )
        pending: set[Future[SearchResults[Hit]]] = set(futures)
        while pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            done, pending = wait(pending, timeout=left, return_when=FIRST_EXCEPTION)
            for future in done:
                problem = future.exception()
                if problem is not None and not self._is_partial(problem):
                    for other in pending:
                        other.cancel()
                    raise problem
            if deadline is not None and time.monotonic() >= deadline:
                break
        for index, future in enumerate(futures):
            if future in pending:
                future.cancel()
                outcomes.append(self._timeout_error(index))
            elif future.exception() is not None:
                outcomes.append(future.exception())
            else:
                outcomes.append(future.result())
        return project(self._fuse(outcomes, options), kind)

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
