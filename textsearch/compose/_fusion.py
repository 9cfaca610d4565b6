"""``FusedTextSearch``: ask every provider at once and fuse the lists by reciprocal rank."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeoutError
from operator import itemgetter
from typing import Any, ClassVar

from textsearch._links import link_key
from textsearch._types import SearchOptions, SearchResults
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
    fetch_texts,
    fetch_texts_sync,
    logger,
    precheck,
    strings_from_text,
    unique_names,
)
from textsearch.compose._result import WrappedResult
from textsearch.errors import (
    AllProvidersFailedError,
    ConfigurationError,
    ProviderError,
    SearchTimeoutError,
    SearchTransportError,
)

__all__ = ["FusedResult", "FusedTextSearch"]

#: Threads per provider for the blocking twins: room for a second round of requests while
#: timed-out ones still hold their threads.
_WORKERS_PER_PROVIDER = 4


class FusedResult(WrappedResult):
    """One result of `FusedTextSearch`: a page and the providers that listed it.

    ``name``, ``value`` and ``link`` read through to `text_search_result`, so the
    result formats and cites like any other.

    Attributes:
        result: The first native result seen for this page (in provider order).
        text_search_result: Its normalized form.
        score: The reciprocal rank fusion score, ``Σ weight / (k + rank)``.
        sources: ``(provider_name, rank)`` for each provider that listed the page, in
            provider order; ranks start at 1 and count after duplicates were removed.
    """

    score: float
    sources: list[tuple[str, int]]


# Memoised: fusion sees the same links again and again (an agent's searches overlap). A plain
# dict, emptied when full, costs half of what an LRU cache does per look-up; the GIL keeps its
# single operations atomic, and a lost entry is only computed again.
_LINK_KEYS: dict[str, str] = {}
_LINK_KEYS_MAX = 8192


def _new_link_key(link: str) -> str:
    if len(_LINK_KEYS) >= _LINK_KEYS_MAX:
        _LINK_KEYS.clear()
    key = _LINK_KEYS[link] = link_key(link)
    return key


# A fused page's record, a plain list (the cheapest mutable record; this loop runs for every
# result of every provider): the score negated, so that ascending order of the first three
# fields is the fused order (best score, then the better best rank, then first seen); the
# index of the last provider that listed it, so that a second listing by one provider is
# recognised without a set per provider.
_NEG_SCORE, _BEST, _ORDER, _ITEM, _SOURCES, _LAST = range(6)
_rank_order = itemgetter(_NEG_SCORE, _BEST, _ORDER)


class FusedTextSearch(Wrapper):
    """Ask every provider concurrently and fuse their lists by reciprocal rank fusion.

    Each provider is asked for ``top + skip`` results (capped at its ``max_top``); a link
    it lists twice counts once, at its better rank. A page then scores
    ``Σ weight / (k + rank)`` over the providers that list it, pages are merged across
    providers by `canonical_link` (``http``/``https`` and a
    trailing ``/`` are ignored too), and the fused list is sorted by score (ties: the better
    best rank, then provider order) before ``skip`` and ``top`` are applied.

    ``get_search_results`` returns `FusedResult` items; ``get_text_search_results``
    and ``search`` return the fused pages' normalized results and strings, asking each
    provider only for its normalized results (a web connector's cheaper text path) unless
    its strings need its native results (a ``string_mapper`` of its own).
    ``total_count`` is always ``None``: a fused list has no honest total.

    A provider that fails, or does not answer within ``per_search_timeout``, is left out
    and listed in ``metadata["failed"]`` (``{"provider", "error", "reason"}``);
    ``metadata["providers"]`` names those that answered. Only when every provider fails is
    `AllProvidersFailedError` raised. A request a provider cannot
    serve (invalid options, a filter it cannot honour) is an error before any request:
    dropping that provider would silently change the results.

    The blocking twins run each provider on a small thread pool of its own, owned by the
    wrapper (released by ``close``); a provider past ``per_search_timeout`` is not waited
    for, but its thread finishes in the background, bounded by the connector's own timeout,
    and holds only that provider's threads: a slow provider never starves another. Without
    a timeout the last provider runs in the calling thread, and so does any request that no
    worker has started by the time it is done.
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
        # Each provider's max_top when it declares a usable one: requests ask for no more.
        self._provider_tops: list[int | None] = [
            top if isinstance(top, int) and not isinstance(top, bool) and top >= 1 else None
            for top in (getattr(s, "max_top", None) for s in items)
        ]
        self._all_text = (True,) * len(items)
        self._no_text = (False,) * len(items)
        self._executors: list[ThreadPoolExecutor | None] = [None] * len(self.searches)
        self._executor_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"FusedTextSearch([{', '.join(self.names)}], k={self.k:g})"

    # -- requests -------------------------------------------------------------------------

    def _inner_options(self, index: int, options: SearchOptions) -> SearchOptions:
        limit = self._provider_tops[index]
        top, skip = options.top, options.skip
        if not skip and not options.include_total_count and (limit is None or top <= limit):
            return options  # the common case: the caller's options as they are
        depth = top + skip if limit is None else min(top + skip, limit)
        return options.with_updates(top=depth, skip=0, include_total_count=False)

    def _check_wrapped(self, query: str, options: SearchOptions) -> None:
        for index, search in enumerate(self.searches):
            precheck(search, query, self._inner_options(index, options))

    @staticmethod
    def _is_partial(exc: BaseException) -> bool:
        # What the provider did wrong, or could not reach; everything else (the caller's
        # mistake, a bug) is raised.
        return isinstance(exc, (ProviderError, SearchTransportError))

    def _left_out(self, exc: Exception) -> Exception:
        """A provider's error that leaves it out of the fusion (returned), else ``exc`` raised."""
        if self._is_partial(exc):
            return exc
        raise exc

    def _timeout_error(self, index: int) -> SearchTimeoutError:
        return SearchTimeoutError(
            f"{self.names[index]} did not answer within {self.per_search_timeout:g} s",
            provider=self.names[index],
        )

    # -- fusion ---------------------------------------------------------------------------

    def _plan(self, kind: Kind) -> tuple[bool, ...]:
        """Per provider: ask only for normalized results (its text path) rather than hits."""
        if kind == "text":
            return self._all_text
        if kind == "search":
            return tuple(strings_from_text(s) for s in self.searches)
        return self._no_text

    def _fuse(
        self,
        kind: Kind,
        outcomes: list[Any],
        plain: tuple[bool, ...],
        options: SearchOptions,
    ) -> SearchResults[Any]:
        """Fuse the providers' answers: ``SearchResults`` of ``TextSearchResult`` where
        ``plain[i]``, else of `Hit`, or the exception that left provider ``i`` out."""
        failed: list[dict[str, Any]] = []
        answered: list[str] = []
        errors: list[Exception] = []
        # Link keys are strings and keys of link-less results are tuples: they never collide.
        entries: dict[Hashable, list[Any]] = {}
        k = self.k
        known = _LINK_KEYS.get
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
            items = outcome.results
            texts = items if plain[index] else [hit.text for hit in items]
            rank = 0  # k >= 0 and rank >= 1: never a division by zero
            for item, text in zip(items, texts, strict=True):
                link = text.link
                key: Hashable
                if link and not link.isspace():
                    key = known(link) or _new_link_key(link)
                else:
                    key = (text.name or "", text.value or "")
                entry = entries.get(key)
                if entry is None:
                    rank += 1
                    entries[key] = [
                        -weight / (k + rank),
                        rank,
                        len(entries),
                        item,
                        [(name, rank)],
                        index,
                    ]
                elif entry[_LAST] != index:
                    rank += 1
                    entry[_NEG_SCORE] -= weight / (k + rank)
                    if rank < entry[_BEST]:
                        entry[_BEST] = rank
                    entry[_SOURCES].append((name, rank))
                    entry[_LAST] = index
                # else: one provider listing a page twice is one vote, at its better rank
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
        results: list[Any]
        if kind == "text":  # every provider was asked for text only
            results = [e[_ITEM] for e in page]
        elif kind == "search":
            results = [_string(e[_ITEM]) for e in page]
        else:
            fused = [
                e[_ITEM].rewrapped(FusedResult, score=-e[_NEG_SCORE], sources=e[_SOURCES])
                for e in page
            ]
            results = fused if kind == "hits" else [h.native for h in fused]
        return SearchResults(results, None, metadata)

    # -- async ----------------------------------------------------------------------------

    async def _one(self, index: int, plain: bool, query: str, options: SearchOptions) -> Any:
        """Provider ``index``'s answer, or the error that leaves it out; a fatal error raises."""
        fetch = fetch_texts if plain else fetch_hits
        try:
            return await fetch(self.searches[index], query, self._inner_options(index, options))
        except Exception as exc:
            return self._left_out(exc)

    async def _run(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        plan = self._plan(kind)
        if self.per_search_timeout is not None:
            within = await self._gather_within(self.per_search_timeout, plan, query, options)
            return self._fuse(kind, within, plan, options)
        loop = asyncio.get_running_loop()
        last = len(self.searches) - 1
        # The last provider runs in this task (its first await lets the others start): one
        # task fewer per search.
        tasks = [loop.create_task(self._one(i, plan[i], query, options)) for i in range(last)]
        try:
            mine = await self._one(last, plan[last], query, options)
            outcomes: list[Any] = [await task for task in tasks]
        except BaseException:
            # A mistake or cancellation stops the other requests instead of leaving them running.
            await _stop(tasks)
            raise
        outcomes.append(mine)
        return self._fuse(kind, outcomes, plan, options)

    async def _gather_within(
        self, timeout: float, plan: tuple[bool, ...], query: str, options: SearchOptions
    ) -> list[Any]:
        # One task per provider and one shared deadline (they all start together), rather
        # than a wait_for per provider, which wraps every request in a second task.
        loop = asyncio.get_running_loop()
        tasks = [
            loop.create_task(self._one(i, plan[i], query, options))
            for i in range(len(self.searches))
        ]
        try:
            done, pending = await asyncio.wait(
                tasks, timeout=timeout, return_when=asyncio.FIRST_EXCEPTION
            )
        except BaseException:
            await _stop(tasks)
            raise
        if pending:
            await _stop(pending)
        outcomes: list[Any] = []
        for index, task in enumerate(tasks):
            if task not in done:
                outcomes.append(self._timeout_error(index))
                continue
            problem = task.exception()
            if problem is not None:  # a fatal error: partial failures are returned, not raised
                raise problem
            outcomes.append(task.result())
        return outcomes

    # -- blocking -------------------------------------------------------------------------

    def _pool(self, index: int) -> ThreadPoolExecutor:
        # One pool per provider: requests of a slow provider that outlive the per-search
        # timeout keep only its own threads, so they can never starve another provider.
        executor = self._executors[index]
        if executor is not None:
            return executor
        with self._executor_lock:
            executor = self._executors[index]
            if executor is None:
                executor = self._executors[index] = ThreadPoolExecutor(
                    max_workers=_WORKERS_PER_PROVIDER,
                    thread_name_prefix=f"textsearch-fused-{index}",
                )
            return executor

    def _one_sync(self, index: int, plain: bool, query: str, options: SearchOptions) -> Any:
        """Blocking twin of `_one`."""
        fetch = fetch_texts_sync if plain else fetch_hits_sync
        try:
            return fetch(self.searches[index], query, self._inner_options(index, options))
        except Exception as exc:
            return self._left_out(exc)

    def _run_sync(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        plan = self._plan(kind)
        count = len(self.searches)
        timeout = self.per_search_timeout
        # Without a timeout the last provider runs in the calling thread: one thread
        # hand-off fewer per search (none at all for a single provider).
        pooled = count - 1 if timeout is None else count
        futures: list[Future[Any]] = []
        if pooled:
            futures = [
                self._pool(i).submit(self._one_sync, i, plan[i], query, options)
                for i in range(pooled)
            ]
        try:
            if timeout is not None:
                outcomes = self._wait(futures, timeout)
            else:
                mine = self._one_sync(count - 1, plan[count - 1], query, options)
                outcomes = self._finish(futures, plan, query, options)
                outcomes.append(mine)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        return self._fuse(kind, outcomes, plan, options)

    def _finish(
        self,
        futures: list[Future[Any]],
        plan: tuple[bool, ...],
        query: str,
        options: SearchOptions,
    ) -> list[Any]:
        """The pooled providers' answers, once this thread is done with its own request.

        A request no worker has started yet (the workers were waiting for the interpreter
        lock this thread held, or are busy with other searches) is taken back and run here:
        waiting for a worker to start it would only add a thread hand-off. Only without a
        per-search timeout: this thread cannot give up on a request it runs itself.
        """
        outcomes: list[Any] = [None] * len(futures)
        waiting: list[int] = []
        for index, future in enumerate(futures):
            if future.cancel():
                outcomes[index] = self._one_sync(index, plan[index], query, options)
            else:
                waiting.append(index)
        for index in waiting:
            outcomes[index] = futures[index].result()  # a fatal error raises here
        return outcomes

    def _wait(self, futures: list[Future[Any]], timeout: float) -> list[Any]:
        """The answers within the timeout (a timeout error for a late one); a fatal error raises."""
        deadline = time.monotonic() + timeout
        outcomes: list[Any] = []
        for index, future in enumerate(futures):
            try:
                problem = future.exception(timeout=max(0.0, deadline - time.monotonic()))
            except FutureTimeoutError:
                future.cancel()
                outcomes.append(self._timeout_error(index))
                continue
            if problem is not None:  # partial failures are returned, not raised
                raise problem
            outcomes.append(future.result())
        return outcomes

    def _release(self) -> None:
        with self._executor_lock:
            executors = [e for e in self._executors if e is not None]
            self._executors = [None] * len(self.searches)
        for executor in executors:
            executor.shutdown(wait=False, cancel_futures=True)


def _string(item: Any) -> str:
    # A provider asked for text only gives TextSearchResults; their string is the default one.
    if isinstance(item, Hit):
        return item.string
    return item.value or item.name or item.link or ""


async def _stop(tasks: Any) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _shortest_retry(errors: list[Exception]) -> float | None:
    waits = [
        float(w)
        for w in (getattr(e, "retry_after", None) for e in errors)
        if isinstance(w, (int, float))
    ]
    return min(waits) if waits else None
