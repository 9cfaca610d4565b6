"""``CachedTextSearch``: the same search twice costs one request."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, ClassVar

from textsearch._types import SearchOptions, SearchResults
from textsearch.base import TextSearch
from textsearch.compose._common import (
    Kind,
    Wrapper,
    call,
    call_sync,
    check_seconds,
    provider_name,
)
from textsearch.errors import ConfigurationError

__all__ = ["CacheStats", "CachedTextSearch"]


@dataclass(frozen=True)
class CacheStats:
    """A snapshot of a cache's counters.

    Attributes:
        hits: Calls answered without a request to the wrapped search (from the cache,
            or by sharing a request already under way).
        misses: Calls that sent a request to the wrapped search.
        coalesced: The hits that shared a request under way (included in ``hits``).
        evictions: Entries dropped to stay within ``max_entries``.
        size: Entries held now (expired ones included until they are looked up).
    """

    hits: int = 0
    misses: int = 0
    coalesced: int = 0
    evictions: int = 0
    size: int = 0


class _SyncCall:
    """A blocking request under way, which other threads may wait for."""

    __slots__ = ("done", "error", "result")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: SearchResults[Any] | None = None
        self.error: BaseException | None = None


def _copy(result: SearchResults[Any]) -> SearchResults[Any]:
    # Callers get their own list and metadata, so one caller's edits never reach the cache.
    return SearchResults(list(result.results), result.total_count, dict(result.metadata))


def _retrieve(task: asyncio.Future[Any]) -> None:
    # Every waiter may have been cancelled: mark the outcome as seen so that asyncio does not
    # log "exception was never retrieved" for a failure nobody is waiting for.
    if not task.cancelled():
        task.exception()


class CachedTextSearch(Wrapper):
    """Remember results for ``ttl`` seconds, so an agent that repeats itself costs nothing.

    The key is the wrapped search's identity, the query with its whitespace collapsed
    (``"a  b "`` and ``"a b"`` are one query; case is kept, backends may care), the
    effective options (``top``, ``skip``, ``include_total_count`` and the filter) and the
    shape asked for. Errors are never cached. Identical searches made at the same time
    share one request: concurrent ``await``\\ s (``asyncio.gather``) and concurrent
    threads of the blocking twins alike. Entries expire after ``ttl`` seconds (``None``:
    never) and the least recently used go first beyond ``max_entries``.

    Each caller gets its own ``SearchResults`` (the items themselves, frozen models, are
    shared); a cached answer carries ``metadata["cached"] = True``. The cache is safe to
    share between tasks and threads. It does not close the search it wraps unless
    ``close_wrapped=True``.

    Args:
        search: The search to cache.
        ttl: Seconds an entry stays fresh; ``None`` keeps entries until evicted.
        max_entries: Most entries held (at least 1).
        close_wrapped: Close the wrapped search when this wrapper is closed.
        clock: Monotonic clock in seconds (tests pass a fake one).

    Raises:
        ConfigurationError: ``search`` is not a ``TextSearch``, a negative ``ttl`` or a
            ``max_entries`` below 1.
    """

    provider_name: ClassVar[str] = "cached"

    def __init__(
        self,
        search: TextSearch,
        *,
        ttl: float | None = 300.0,
        max_entries: int = 1024,
        close_wrapped: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not isinstance(search, TextSearch):
            raise ConfigurationError(
                f"CachedTextSearch needs a TextSearch, got {type(search).__name__}"
            )
        if isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries < 1:
            raise ConfigurationError(
                f"max_entries must be a whole number >= 1, got {max_entries!r}"
            )
        super().__init__([search], close_wrapped=close_wrapped)
        self.wrapped = search
        self.ttl = check_seconds(ttl, "ttl", allow_none=True)
        self.max_entries = max_entries
        #: The wrapped search's name: fallback and fusion metadata name it, not the cache.
        self.name = provider_name(search)
        self._identity: Hashable = (type(search).__qualname__, id(search))
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, tuple[float, SearchResults[Any]]] = OrderedDict()
        self._async_calls: dict[Hashable, asyncio.Future[SearchResults[Any]]] = {}
        self._sync_calls: dict[Hashable, _SyncCall] = {}
        self._hits = self._misses = self._coalesced = self._evictions = 0

    def __repr__(self) -> str:
        return f"CachedTextSearch({self.name}, ttl={self.ttl!r}, max_entries={self.max_entries})"

    # -- bookkeeping ----------------------------------------------------------------------

    @property
    def stats(self) -> CacheStats:
        """The counters now (see `CacheStats`)."""
        with self._lock:
            return CacheStats(
                self._hits, self._misses, self._coalesced, self._evictions, len(self._entries)
            )

    def clear(self) -> None:
        """Drop every entry (requests under way still answer their callers)."""
        with self._lock:
            self._entries.clear()

    def _key(self, kind: Kind, query: str, options: SearchOptions) -> Hashable:
        return (
            self._identity,
            kind,
            " ".join(query.split()),
            options.top,
            options.skip,
            options.include_total_count,
            options.filter,
        )

    def _lookup(self, key: Hashable) -> SearchResults[Any] | None:
        """A fresh entry (counted as a hit), else ``None``; call with the lock held."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        expires, result = entry
        if expires <= self._clock():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        self._hits += 1
        return result

    def _store(self, key: Hashable, result: SearchResults[Any]) -> None:
        expires = float("inf") if self.ttl is None else self._clock() + self.ttl
        with self._lock:
            self._entries[key] = (expires, result)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
                self._evictions += 1

    @staticmethod
    def _hit(result: SearchResults[Any]) -> SearchResults[Any]:
        return SearchResults(
            list(result.results), result.total_count, {**result.metadata, "cached": True}
        )

    # -- async ----------------------------------------------------------------------------

    async def _fetch(self, key: Hashable, kind: Kind, query: str, options: SearchOptions) -> Any:
        try:
            result: SearchResults[Any] = await call(self.wrapped, kind, query, options)
            self._store(key, result)
            return result
        finally:
            with self._lock:
                self._async_calls.pop(key, None)

    async def _run(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        key = self._key(kind, query, options)
        loop = asyncio.get_running_loop()
        with self._lock:
            cached = self._lookup(key)
            if cached is not None:
                return self._hit(cached)
            shared = self._async_calls.get(key)
            if shared is not None and shared.get_loop() is loop:
                self._hits += 1
                self._coalesced += 1
            else:
                self._misses += 1
                shared = loop.create_task(self._fetch(key, kind, query, options))
                shared.add_done_callback(_retrieve)
                self._async_calls[key] = shared
        # shield: one caller giving up (cancelled, timed out) does not cancel the request
        # the others are waiting for.
        result: SearchResults[Any] = await asyncio.shield(shared)
        return _copy(result)

    # -- blocking -------------------------------------------------------------------------

    def _run_sync(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        key = self._key(kind, query, options)
        with self._lock:
            cached = self._lookup(key)
            if cached is not None:
                return self._hit(cached)
            shared = self._sync_calls.get(key)
            leader = shared is None
            if shared is None:
                self._misses += 1
                shared = self._sync_calls[key] = _SyncCall()
            else:
                self._hits += 1
                self._coalesced += 1
        if not leader:
            shared.done.wait()
            if isinstance(shared.error, Exception):
                raise shared.error
            if shared.error is not None:
                # The leader was interrupted (KeyboardInterrupt in its thread, say): that is
                # not this caller's to re-raise, so it makes the request itself.
                return self._run_sync(kind, query, options)
            assert shared.result is not None
            return _copy(shared.result)
        try:
            result = call_sync(self.wrapped, kind, query, options)
        except BaseException as exc:
            shared.error = exc
            raise
        else:
            shared.result = result
            self._store(key, result)
            return _copy(result)
        finally:
            with self._lock:
                self._sync_calls.pop(key, None)
            shared.done.set()
