"""``FallbackTextSearch``: ask providers in order; cool down the ones that fail."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from textsearch._twins import Plan, drive, drive_sync
from textsearch._types import SearchOptions, SearchResults
from textsearch.base import TextSearch, TextSearchMethods
from textsearch.compose._common import (
    Kind,
    Wrapper,
    call,
    call_sync,
    check_searches,
    check_seconds,
    logger,
    precheck,
    unique_names,
)
from textsearch.errors import (
    AllProvidersFailedError,
    ConfigurationError,
    InvalidRequestError,
    ProviderRetiredError,
    QuotaExceededError,
    RateLimitError,
    SearchTransportError,
    ServiceUnavailableError,
)

__all__ = ["DEFAULT_FALLBACK_ON", "FallbackTextSearch"]

#: Failures another provider can fix: the default of ``FallbackTextSearch(on=...)``.
#: ``SearchTimeoutError`` is a ``SearchTransportError``, so timeouts fall over too.
DEFAULT_FALLBACK_ON: tuple[type[Exception], ...] = (
    RateLimitError,
    QuotaExceededError,
    ServiceUnavailableError,
    SearchTransportError,
    ProviderRetiredError,
)

# A provider's ``_until`` until it first fails: it is never cooling down.
_NEVER = float("-inf")


class FallbackTextSearch(Wrapper):
    """Try providers in order; when one fails in a way another can fix, ask the next.

    A provider that failed with one of the ``on`` errors is skipped for
    ``max(cooldown, retry_after)`` seconds (``retry_after`` when the provider said how
    long to wait), so a rate-limited or exhausted provider is not asked again on every
    call. Other errors (a bad request, a rejected key, a filter the provider cannot
    honour) are raised at once: another provider would not fix them, and hiding them
    would hide a bug. No result is ever made up: when every provider failed or is cooling
    down, `AllProvidersFailedError` carries each failure.

    Every request is validated against every provider before the first is asked (the
    query, ``top`` up to the smallest ``max_top``, the filter), so a filter is honoured by
    whichever provider answers, and a bad request fails before any network call.

    The results carry ``metadata["provider"]`` (the name of the provider that answered)
    and ``metadata["skipped"]``: one ``{"provider", "reason", "error"}`` dict per provider
    passed over, with ``"retry_in"`` (seconds) for one still cooling down.

    Provider names come from each search's ``name`` or ``provider_name`` attribute, else
    its class name; repeats get ``-2``, ``-3``... (see `names`).

    The wrapper is safe to share between tasks and threads. It does not close the
    searches it wraps unless ``close_wrapped=True`` (the caller made them, the caller
    closes them).

    Args:
        searches: The providers, in the order to try them.
        on: The errors that make the wrapper try the next provider.
        cooldown: Seconds a failed provider is skipped (at least; longer when it asked).
        close_wrapped: Close the wrapped searches when this wrapper is closed.
        clock: Monotonic clock in seconds (tests pass a fake one).

    Raises:
        ConfigurationError: No searches, something that is not a ``TextSearch``, ``on``
            that is not a tuple of exception classes, or a negative ``cooldown``.
    """

    provider_name: ClassVar[str] = "fallback"

    def __init__(
        self,
        searches: Sequence[TextSearch],
        *,
        on: tuple[type[BaseException], ...] = DEFAULT_FALLBACK_ON,
        cooldown: float = 60.0,
        close_wrapped: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        items = check_searches(searches, "FallbackTextSearch")
        if isinstance(on, type):
            on = (on,)
        if not isinstance(on, tuple) or not all(
            isinstance(c, type) and issubclass(c, BaseException) for c in on
        ):
            raise ConfigurationError("on must be a tuple of exception classes")
        super().__init__(items, close_wrapped=close_wrapped)
        self.searches: tuple[TextSearch, ...] = tuple(items)
        self.names: tuple[str, ...] = tuple(unique_names(items))
        self.on = on
        self.cooldown = check_seconds(cooldown, "cooldown") or 0.0
        self._clock = clock
        self._lock = threading.Lock()
        self._until: list[float] = [_NEVER] * len(items)
        self._last_error: list[Exception | None] = [None] * len(items)
        # Whether a refused request would fall over (``on`` holds an InvalidRequestError's
        # base): then every provider is checked up front, the one asked first too.
        self._refusal_falls_over = any(issubclass(InvalidRequestError, c) for c in on)
        # Which providers validate every call themselves (built on TextSearchMethods).
        self._self_checking = tuple(isinstance(s, TextSearchMethods) for s in items)

    def __repr__(self) -> str:
        return f"FallbackTextSearch([{', '.join(self.names)}], cooldown={self.cooldown:g})"

    # -- cooldown state -------------------------------------------------------------------

    def cooling_down(self) -> dict[str, float]:
        """Providers skipped right now, with the seconds left until they are asked again."""
        now = self._clock()
        return {
            name: round(until - now, 3)
            for name, until in zip(self.names, self._until, strict=True)
            if until > now
        }

    def reset(self) -> None:
        """Forget every cooldown: the next call asks the first provider again."""
        with self._lock:
            self._until = [_NEVER] * len(self.searches)
            self._last_error = [None] * len(self.searches)

    def _falls_over(self, exc: Exception) -> bool:
        if isinstance(exc, self.on):
            return True
        # A composed provider (fusion) that failed only in ways the next one can fix.
        return (
            isinstance(exc, AllProvidersFailedError)
            and bool(exc.errors)
            and all(self._falls_over(e) for e in exc.errors)
        )

    def _failed(
        self,
        index: int,
        exc: Exception,
        skipped: list[dict[str, Any]],
        errors: list[Exception],
    ) -> None:
        errors.append(exc)
        retry_after = getattr(exc, "retry_after", None)
        wait = self.cooldown
        if isinstance(retry_after, (int, float)) and retry_after > wait:
            wait = float(retry_after)
        with self._lock:
            self._until[index] = self._clock() + wait
            self._last_error[index] = exc
        name = self.names[index]
        logger.warning(
            "fallback: %s failed (%s); skipping it for %.3g s", name, type(exc).__name__, wait
        )
        skipped.append({"provider": name, "reason": str(exc), "error": type(exc).__name__})

    def _cooling(self, index: int, skipped: list[dict[str, Any]]) -> bool:
        # Whether to pass over a provider cooling down (noted in ``skipped``).
        until = self._until[index]
        if until == _NEVER:
            return False  # no clock to read
        now = self._clock()
        if until <= now:
            return False
        last = self._last_error[index]
        skipped.append(
            {
                "provider": self.names[index],
                "reason": "cooling down after " + (type(last).__name__ if last else "a failure"),
                "error": type(last).__name__ if last else None,
                "retry_in": round(until - now, 3),
            }
        )
        return True

    def _answered(
        self, index: int, result: SearchResults[Any], skipped: list[dict[str, Any]]
    ) -> SearchResults[Any]:
        # A new metadata dict: the wrapped search's (perhaps cached) result is not changed.
        metadata = {**result.metadata, "provider": self.names[index], "skipped": skipped}
        return SearchResults(result.results, result.total_count, metadata)

    def _all_failed(self, errors: list[Exception], skipped: list[dict[str, Any]]) -> Exception:
        now = self._clock()
        failures: list[Exception] = list(errors)
        if not failures:  # everyone was cooling down: report what started each cooldown
            failures = [e for e in self._last_error if e is not None]
        waits = [until - now for until in self._until if until > now]
        summary = "; ".join(
            f"{item['provider']}: {item['error'] or 'failed'}"
            + (f" (cooling down, {item['retry_in']:g} s left)" if "retry_in" in item else "")
            for item in skipped
        )
        return AllProvidersFailedError(
            f"all {len(self.searches)} search providers failed: {summary}",
            errors=failures,
            provider=self.provider_name,
            retry_after=round(min(waits), 3) if waits else None,
        )

    # -- the search -----------------------------------------------------------------------

    def _prepare(
        self, query: str, options: SearchOptions | None, kwargs: Mapping[str, Any]
    ) -> tuple[str, SearchOptions]:
        # Every provider accepts the request before any is asked. The one asked first, when
        # it is built on TextSearchMethods, validates the request itself before it sends
        # anything (its public methods prepare every call), so it is not checked twice; the
        # others are checked here. When one refuses, all are checked in order, so the error
        # is the one `check_request` gives.
        query, effective = self._resolve(query, options, kwargs)
        first = self._first_ready()
        if first is None or self._refusal_falls_over or not self._self_checking[first]:
            self._check_wrapped(query, effective)
            return query, effective
        try:
            for index, search in enumerate(self.searches):
                if index != first:
                    precheck(search, query, effective)
        except InvalidRequestError:  # UnsupportedFilterError is one too
            self._check_wrapped(query, effective)
            raise
        return query, effective

    def _first_ready(self) -> int | None:
        # The provider a request would ask first: the first that is not cooling down.
        if self._until[0] == _NEVER:
            return 0
        now = self._clock()
        for index, until in enumerate(self._until):
            if until <= now:
                return index
        return None

    def _attempts(self) -> Plan[TextSearch, SearchResults[Any]]:
        """Ask each provider in turn (a plan: the drivers make the calls) until one answers."""
        skipped: list[dict[str, Any]] = []
        errors: list[Exception] = []
        for index, search in enumerate(self.searches):
            if self._cooling(index, skipped):
                continue
            try:
                return self._answered(index, (yield search), skipped)
            except Exception as exc:
                if not self._falls_over(exc):
                    raise
                self._failed(index, exc, skipped, errors)
        raise self._all_failed(errors, skipped)

    async def _run(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        return await drive(self._attempts(), lambda search: call(search, kind, query, options))

    def _run_sync(self, kind: Kind, query: str, options: SearchOptions) -> SearchResults[Any]:
        return drive_sync(self._attempts(), lambda search: call_sync(search, kind, query, options))
