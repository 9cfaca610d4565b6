"""One exchange of the engine: pick the transport, send, follow redirects hop by hop.

Split from `textsearch._http._engine` (which holds the retry loop, the deadline and the
error mapping): the transport-facing half. Every transport implements the one protocol of
`textsearch._http._transports.base`; the redirect chain (same origin only, a limit of
hops, the deadline shrinking across them) is `RedirectChain`,
decided in one method (`ExchangeMixin._follow`) for every transport.
"""

from __future__ import annotations

import ssl
import threading
import time
from typing import Any

import httpx

from textsearch._http._base import ErrorDetail, _where
from textsearch._http._guards import RedirectChain, RedirectRefused
from textsearch._http._redact import scrub
from textsearch._http._transports._httpx import (
    HttpxAsyncTransport,
    HttpxSyncTransport,
    wants_aiohttp,
    wants_urllib3,
)
from textsearch._http._transports.base import Answer, AsyncTransport, HttpRequest, SyncTransport
from textsearch.errors import InvalidRequestError, ProviderError

__all__ = ["ExchangeMixin"]


class _Attempt:
    """The outcome of one try, in a form the shared retry logic can judge."""

    __slots__ = ("detail", "error", "result", "retry_after", "started", "status")

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.status: int | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.retry_after: float | None = None
        self.detail: ErrorDetail | None = None


class _Send:
    """One search's progress: the request being sent (after redirects), tries, deadline."""

    __slots__ = ("attempt", "deadline", "note", "request")

    def __init__(self, request: HttpRequest, deadline: float) -> None:
        self.request = request
        self.deadline = deadline
        self.attempt = 0
        self.note: str | None = None

    def next_attempt(self) -> _Attempt:
        """Count one more attempt and start its outcome (and its clock)."""
        self.attempt += 1
        return _Attempt()


class ExchangeMixin:
    """The transport-facing half of `HttpEngine`."""

    provider: str
    transport: str
    timeout: httpx.Timeout
    max_response_bytes: int
    deadline: float
    _httpx2: bool
    _sync_armed: bool
    _verify: ssl.SSLContext | bool
    _async_client: httpx.AsyncClient | None
    _owns_async: bool
    _sync_client: httpx.Client | None
    _owns_sync: bool
    _lock: threading.Lock
    _fast: AsyncTransport | None
    _fast_checked: bool
    _blocking: SyncTransport | None
    _blocking_checked: bool
    _httpx_async: HttpxAsyncTransport | None
    _httpx_sync: HttpxSyncTransport | None

    def _timeout_for(self, client: httpx.AsyncClient | httpx.Client) -> httpx.Timeout | None:
        raise NotImplementedError

    def async_client(self) -> httpx.AsyncClient:
        raise NotImplementedError

    def sync_client(self) -> httpx.Client:
        raise NotImplementedError

    # -- which transport -------------------------------------------------------------------

    def _fast_path(self) -> AsyncTransport | None:
        """The aiohttp transport when this engine uses it for async sends, else ``None``."""
        if not self._fast_checked:
            self._fast_checked = True
            injected = self._async_client is not None and not self._owns_async
            if not injected and wants_aiohttp(self.transport):
                from textsearch._http._transports._aiohttp import AiohttpTransport

                self._fast = AiohttpTransport(self.timeout, self._verify, self.deadline)
        return self._fast

    def _blocking_path(self) -> SyncTransport | None:
        """The urllib3 transport when this engine uses it for blocking sends, else ``None``."""
        if not self._blocking_checked:
            with self._lock:  # many threads may make the first search at once
                if not self._blocking_checked:
                    injected = self._sync_client is not None and not self._owns_sync
                    if not injected and wants_urllib3(self.transport):
                        from textsearch._http._transports._urllib3 import Urllib3Transport

                        self._blocking = Urllib3Transport(self.timeout, self._verify)
                    self._blocking_checked = True
        return self._blocking

    def _async_transport(self) -> AsyncTransport:
        fast = self._fast_path()
        if fast is not None:
            return fast
        client = self.async_client()
        transport = self._httpx_async
        if transport is None or transport.client is not client:
            transport = HttpxAsyncTransport(client, self._timeout_for(client), self._httpx2)
            self._httpx_async = transport
        return transport

    def _sync_transport(self) -> SyncTransport:
        blocking = self._blocking_path()
        if blocking is not None:
            return blocking
        client = self.sync_client()
        transport = self._httpx_sync
        if transport is None or transport.client is not client:
            transport = HttpxSyncTransport(
                client, self._timeout_for(client), self._httpx2, self._sync_armed
            )
            self._httpx_sync = transport
        return transport

    # -- one exchange, redirects followed --------------------------------------------------

    async def _exchange_async(
        self, transport: AsyncTransport, state: _Send, outcome: _Attempt
    ) -> Answer:
        chain: RedirectChain | None = None
        while True:
            try:
                answer = await transport.exchange(
                    state.request, self.max_response_bytes, state.deadline, outcome
                )
            except UnicodeEncodeError:
                raise self._unsendable() from None
            if answer.location is None or (chain := self._follow(chain, state, answer)) is None:
                return answer

    def _exchange_sync(self, transport: SyncTransport, state: _Send, outcome: _Attempt) -> Answer:
        chain: RedirectChain | None = None
        while True:
            try:
                answer = transport.exchange(
                    state.request, self.max_response_bytes, state.deadline, outcome
                )
            except UnicodeEncodeError:
                raise self._unsendable() from None
            if answer.location is None or (chain := self._follow(chain, state, answer)) is None:
                return answer

    def _follow(
        self, chain: RedirectChain | None, state: _Send, answer: Answer
    ) -> RedirectChain | None:
        """The chain to go on with when ``answer`` is a redirect to follow (``state.request``
        is then the next hop), else ``None``.

        The one redirect decision of every transport: same origin only (the key is never
        sent to another host), at most `MAX_REDIRECTS`
        hops, each sent with what is left of the same deadline. The chain is made at the
        first redirect of an attempt: an answer without one costs nothing here.
        """
        request = state.request
        if chain is None:
            chain = RedirectChain(request.url, request.method)
        status = answer.status
        try:
            if not chain.follow(status, answer.location):
                return None
        except RedirectRefused as refused:
            raise ProviderError(
                f"{self.provider}: HTTP {status} redirect from {_where(request.url)} to "
                f"another origin ({scrub(refused.origin)}) refused: the key is never sent "
                "to another host",
                provider=self.provider,
                status_code=status,
                code="cross_origin_redirect",
                hints=(
                    "if that host is the right service, point the connector's endpoint or "
                    "base URL at it directly",
                ),
            ) from None
        except (httpx.InvalidURL, ValueError):
            raise ProviderError(
                f"{self.provider}: HTTP {status} with an unusable Location header",
                provider=self.provider,
                status_code=status,
                code="bad_redirect",
            ) from None
        body = request.json_body if chain.method == request.method else None
        state.request = HttpRequest(chain.method, chain.url, (), body, request.headers)
        return chain

    def _unsendable(self) -> InvalidRequestError:
        # A lone surrogate (e.g. from a bad decode) cannot be UTF-8 encoded. Not chained:
        # the UnicodeEncodeError holds the text it failed on, which may be a header.
        return InvalidRequestError(
            f"{self.provider}: the query or a filter value contains characters that "
            "cannot be sent (e.g. a lone surrogate); clean the text first"
        )
