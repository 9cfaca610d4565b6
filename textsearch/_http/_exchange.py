"""One exchange of the engine: build, send, follow same-origin redirects, read the capped body.

Split from :mod:`textsearch._http._engine` (which holds the retry loop, the deadline and the error
mapping): the transport-facing half, one method per transport (httpx async, httpx blocking,
aiohttp, urllib3), all sharing the redirect decision and the capped
body reader (:class:`~textsearch._http._body.BodyReader`).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlencode

import httpx

from textsearch._http._base import (
    ErrorDetail,
    HttpRequest,
    ResultT,
    _where,
)
from textsearch._http._body import (
    ACCEPT_ENCODING,
    MAX_REDIRECTS,
    REDIRECT_STATUSES,
    BodyReader,
    RedirectRefused,
    TooLarge,
    redirect_target,
)
from textsearch._http._redact import scrub
from textsearch._http._transports._httpx import httpx2_timeout, wants_aiohttp, wants_urllib3
from textsearch.errors import InvalidRequestError, ProviderError

__all__ = ["ExchangeMixin"]


class _Attempt:
    """The outcome of one try, in a form the shared retry logic can judge."""

    __slots__ = ("detail", "error", "result", "retry_after", "status")

    def __init__(self) -> None:
        self.status: int | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.retry_after: float | None = None
        self.detail: ErrorDetail | None = None


_Answer = tuple[int, Mapping[str, str], bytes, object]  # status, headers, body, URL


class _Send:
    """One search's progress: the request being sent (after redirects), tries, deadline."""

    __slots__ = ("attempt", "deadline", "note", "request")

    def __init__(self, request: HttpRequest, deadline: float) -> None:
        self.request = request
        self.deadline = deadline
        self.attempt = 0
        self.note: str | None = None


_Exchange = Callable[[_Send, _Attempt], Awaitable[_Answer]]

if sys.version_info >= (3, 11):

    async def _within(coro: Awaitable[ResultT], deadline: float) -> ResultT:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout_at(loop.time() + (deadline - time.monotonic())):
            return await coro

else:  # pragma: no cover - Python 3.10

    async def _within(coro: Awaitable[ResultT], deadline: float) -> ResultT:
        return await asyncio.wait_for(coro, max(0.0, deadline - time.monotonic()))


class ExchangeMixin:
    """The transport-facing half of :class:`~textsearch._http._engine.HttpEngine`."""

    provider: str
    transport: str
    timeout: httpx.Timeout
    max_response_bytes: int
    _httpx2: bool
    _sync_armed: bool
    _fast: Any
    _fast_checked: bool
    _verify: Any
    deadline: float
    _async_client: Any
    _owns_async: bool
    _sync_client: Any
    _owns_sync: bool
    _blocking: Any
    _blocking_checked: bool
    _lock: Any

    def _timeout_for(self, client: Any) -> httpx.Timeout | None:
        raise NotImplementedError

    def _build(
        self,
        client: httpx.AsyncClient | httpx.Client,
        request: HttpRequest,
        timeout: httpx.Timeout | None,
    ) -> httpx.Request:
        headers = dict(request.headers)
        headers["Accept-Encoding"] = ACCEPT_ENCODING  # only what BodyReader can bound
        default: Any = httpx.USE_CLIENT_DEFAULT
        if self._httpx2:
            default, timeout = httpx2_timeout(timeout)
        url, params = request.url, request.params
        if params and "?" not in url:
            # The query string is encoded here, as httpx would (urllib's urlencode), and sent
            # as part of the URL: httpx's own merge of params into a URL parses and rebuilds
            # the URL twice, about a third of the CPU of building a request.
            url = f"{url}?{urlencode(params)}"
            params = ()
        try:
            return client.build_request(
                request.method,
                url,
                params=params or None,
                json=request.json_body,
                headers=headers,
                timeout=default if timeout is None else timeout,
            )
        except UnicodeEncodeError:
            # A lone surrogate (e.g. from a bad decode) cannot be UTF-8 encoded. Not chained:
            # the UnicodeEncodeError holds the text it failed on, which may be a header.
            raise InvalidRequestError(
                f"{self.provider}: the query or a filter value contains characters that "
                "cannot be sent (e.g. a lone surrogate); clean the text first"
            ) from None

    def _shrunk_timeout(self, client: httpx.Client, deadline: float) -> httpx.Timeout | None:
        """For a blocking client whose sockets cannot be armed: phases capped by the deadline."""
        base = self._timeout_for(client) or client.timeout
        left = max(0.001, deadline - time.monotonic())

        def cap(value: float | None) -> float:
            return left if value is None else min(value, left)

        return httpx.Timeout(
            connect=cap(base.connect), read=cap(base.read), write=cap(base.write),
            pool=cap(base.pool),
        )  # fmt: skip

    def _next_hop(self, state: _Send, status: int, location: str) -> None:
        request = state.request
        try:
            url, method = redirect_target(request.url, status, location, request.method)
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
        body = request.json_body if method == request.method else None
        state.request = HttpRequest(method, url, (), body, request.headers)

    def _reader(self, response: httpx.Response) -> BodyReader | None:
        """A capped reader for the raw body; ``None`` when the body was already read.

        A transport may hand over a response it has read (httpx's ``MockTransport``,
        respx): its content is decoded already and only needs the cap.
        """
        cap = self.max_response_bytes
        if response.is_stream_consumed:
            if len(response.content) > cap:
                raise TooLarge()
            return None
        reader = BodyReader(cap, response.headers.get("content-encoding"))
        reader.check_declared(response.headers.get("content-length"))
        return reader

    async def _exchange_async(
        self, client: httpx.AsyncClient, state: _Send, outcome: _Attempt
    ) -> tuple[int, httpx.Headers, bytes, httpx.URL]:
        timeout = self._timeout_for(client)
        hops = 0
        while True:
            response = await client.send(
                self._build(client, state.request, timeout), stream=True, follow_redirects=False
            )
            try:
                status = outcome.status = response.status_code
                location = response.headers.get("location")
                if status in REDIRECT_STATUSES and location and hops < MAX_REDIRECTS:
                    hops += 1
                    self._next_hop(state, status, location)
                    continue
                reader = self._reader(response)
                if reader is None:
                    return status, response.headers, response.content, response.url
                async for chunk in response.aiter_raw():
                    reader.feed(chunk)
                return status, response.headers, reader.finish(), response.url
            finally:
                await response.aclose()

    def _exchange_sync(
        self, client: httpx.Client, state: _Send, outcome: _Attempt
    ) -> tuple[int, httpx.Headers, bytes, httpx.URL]:
        hops = 0
        while True:
            if self._sync_armed:
                timeout = self._timeout_for(client)
            else:
                timeout = self._shrunk_timeout(client, state.deadline)
            response = client.send(
                self._build(client, state.request, timeout), stream=True, follow_redirects=False
            )
            try:
                status = outcome.status = response.status_code
                location = response.headers.get("location")
                if status in REDIRECT_STATUSES and location and hops < MAX_REDIRECTS:
                    hops += 1
                    self._next_hop(state, status, location)
                    continue
                reader = self._reader(response)
                if reader is None:
                    return status, response.headers, response.content, response.url
                deadline = state.deadline
                for chunk in response.iter_raw():
                    reader.feed(chunk)
                    if time.monotonic() > deadline:  # for clients whose sockets are unarmed
                        raise httpx.ReadTimeout("the total deadline of the search has passed")
                return status, response.headers, reader.finish(), response.url
            finally:
                response.close()

    def _fast_path(self) -> Any:
        """The aiohttp transport when this engine uses it for async sends, else ``None``."""
        if not self._fast_checked:
            self._fast_checked = True
            injected = self._async_client is not None and not self._owns_async
            if not injected and wants_aiohttp(self.transport):
                from textsearch._http._transports._aiohttp import AiohttpTransport

                self._fast = AiohttpTransport(self.timeout, self._verify, self.deadline)
        return self._fast

    async def _exchange_fast(
        self, fast: Any, state: _Send, outcome: _Attempt
    ) -> tuple[int, Mapping[str, str], bytes, object]:
        hops = 0
        while True:
            try:
                status, headers, content, url, location = await fast.exchange(
                    state.request, self.max_response_bytes, state.deadline, outcome
                )
            except UnicodeEncodeError:
                raise InvalidRequestError(
                    f"{self.provider}: the query or a filter value contains characters that "
                    "cannot be sent (e.g. a lone surrogate); clean the text first"
                ) from None
            outcome.status = status
            if location and status in REDIRECT_STATUSES and hops < MAX_REDIRECTS:
                hops += 1
                self._next_hop(state, status, location)
                continue
            return status, headers, content, url

    def _blocking_path(self) -> Any:
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

    def _exchange_blocking(
        self, transport: Any, state: _Send, outcome: _Attempt
    ) -> tuple[int, Mapping[str, str], bytes, object]:
        hops = 0
        while True:
            try:
                response, url = transport.send(state.request, state.deadline)
            except UnicodeEncodeError:
                raise InvalidRequestError(
                    f"{self.provider}: the query or a filter value contains characters that "
                    "cannot be sent (e.g. a lone surrogate); clean the text first"
                ) from None
            try:
                status = outcome.status = response.status
                headers = response.headers
                location = headers.get("location")
                if status in REDIRECT_STATUSES and location and hops < MAX_REDIRECTS:
                    hops += 1
                    self._next_hop(state, status, location)
                    continue
                content = transport.read(response, self.max_response_bytes, state.deadline)
                return status, headers, content, url
            finally:
                transport.release(response)
