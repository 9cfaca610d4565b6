"""The one HTTP engine shared by every HTTP connector.

Connectors are sans-I/O: they describe a request with `HttpRequest` and parse a
`HttpResponse` with pure code. `HttpEngine` sends the description through a
transport (`textsearch._http._transports`: httpx by default, aiohttp or urllib3 as fast
paths, all one protocol); everything around the send (the retry decision, backoff,
``Retry-After``, redirects, the size cap, the deadline, error mapping, redaction, logging)
is the same code for all, so the blocking twin can never drift from the async path. The
guards themselves (origin rule, capped body, deadline) are `textsearch._http._guards`,
shared with ``fetch_pages`` and the Azure bridge.

What a connector supplies:

* ``read_error(status, response) -> ErrorDetail``: how to read its own error body (code,
  sub-code, message) and, where the status alone is ambiguous, which error class applies
  (for example HTTP 403 meaning "out of quota" rather than "forbidden").
* a ``parse(response)`` callable per request, which returns the native results or raises
  `BodyStatusError` when a 2xx body carries an error code of its own (Bocha does this);
  the engine then treats the response as if it had that status (retries included).

Keys are never part of the URL: a connector puts them in ``HttpRequest.headers`` only.
The engine scrubs the key from every message, code, hint, chained cause and log record
(`textsearch._http._redact`), and never lets it follow a redirect to another origin: redirects
are followed here, hop by hop, whatever the client's own ``follow_redirects`` says.

Every send has a total deadline (``deadline=``, default 60 s) covering all attempts, waits
and redirects: an asyncio timeout on the async path, deadline-aware sockets on the blocking
path (`textsearch._http._transports._httpx`), since a read timeout restarts with every byte.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, Final

import httpx

from textsearch._http._base import (
    BACKOFF_BASE,
    DEFAULT_MAX_RETRIES,
    DEFAULT_MAX_RETRY_WAIT,
    DEFAULT_TIMEOUT,
    RETRY_EXCEPTIONS,
    RETRY_STATUSES,
    BodyStatusError,
    ErrorDetail,
    HttpResponse,
    ResultT,
    _check_timeout,
    _check_transport,
    _reason,
    _retryable,
    _where,
    bearer_or_plain,
    check_limits,
    error_class_for_status,
    parse_retry_after,
)
from textsearch._http._exchange import ExchangeMixin, _Attempt, _Send
from textsearch._http._guards import (
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RESPONSE_BYTES,
    TooLarge,
    UnsupportedEncoding,
    within,
)
from textsearch._http._loop import LoopCloser
from textsearch._http._redact import register_secret, scrub, scrub_exception
from textsearch._http._transports._httpx import (
    DEFAULT_LIMITS,
    HttpxAsyncTransport,
    HttpxSyncTransport,
    VerifyTypes,
    arm_sync_client,
    as_httpx_error,
    httpx2_kind,
    make_async_client,
    make_ssl_context,
    make_sync_client,
)
from textsearch._http._transports.base import Answer, AsyncTransport, HttpRequest, SyncTransport
from textsearch.errors import (
    ConfigurationError,
    ProviderError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    TextSearchError,
)

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MAX_RETRY_WAIT",
    "DEFAULT_TIMEOUT",
    "BodyStatusError",
    "ErrorDetail",
    "HttpEngine",
    "HttpRequest",
    "HttpResponse",
    "VerifyTypes",
    "bearer_or_plain",
    "parse_retry_after",
]

logger = logging.getLogger("textsearch")
_TIMEOUT_ERRORS: Final = (TimeoutError, asyncio.TimeoutError)
_DEADLINE_SLACK: Final = 0.005


class HttpEngine(ExchangeMixin):
    """Client ownership, deadline, retries, redirects, size cap, error mapping and redaction.

    One engine per connector instance; it lazily creates (and then reuses) one pooled
    ``httpx.AsyncClient`` for the async path and one ``httpx.Client`` for the blocking path
    (or, as ``transport=`` asks, an aiohttp session and urllib3 pools instead).
    An injected client is used for its own kind and never closed here; its own
    ``follow_redirects`` is ignored (redirects are followed here, same origin only).

    Args:
        provider: Short provider name, for errors and logs.
        read_error: Reads the connector's error body.
        http_client: An ``httpx.AsyncClient`` or ``httpx.Client`` to use (not closed here).
        timeout: Seconds or an ``httpx.Timeout`` per phase (connect, each read, ...);
            ``None`` means the default.
        max_retries: Retries after the first attempt (0 disables retrying).
        max_retry_wait: Longest single wait between attempts, in seconds. A
            ``Retry-After`` asking for longer is not waited for: the error is raised at
            once, with ``retry_after`` set.
        max_response_bytes: Larger bodies (after decompression) raise ``ResponseFormatError``.
        secret: The key, so that it can be scrubbed from messages and logs.
        deadline: Total seconds per send, all attempts, waits and redirects included;
            past it, ``SearchTimeoutError``.
        verify: TLS verification for the clients this engine creates: ``True``, a CA
            bundle path, an ``ssl.SSLContext``, or ``False`` (warns).
        transport: ``"httpx"``, ``"aiohttp"`` (async fast path), ``"urllib3"`` (blocking
            fast path), ``"fast"`` (both; extra ``fast`` for all three) or ``"auto"``
            (what ``TEXTSEARCH_TRANSPORT`` names; without it, aiohttp for async sends when
            aiohttp is already imported and no httpx mock library (respx, pytest_httpx,
            vcr) is, else httpx).
    """

    def __init__(
        self,
        *,
        provider: str,
        read_error: Callable[[int, HttpResponse], ErrorDetail],
        http_client: httpx.AsyncClient | httpx.Client | Any | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        secret: str | None = None,
        deadline: float = DEFAULT_DEADLINE,
        verify: VerifyTypes = True,
        transport: str = "auto",
    ) -> None:
        self.provider = provider
        self._read_error = read_error
        self.timeout = _check_timeout(timeout)
        self.max_retries, self.max_retry_wait, self.max_response_bytes, self.deadline = (
            check_limits(max_retries, max_retry_wait, max_response_bytes, deadline)
        )
        self._verify = make_ssl_context(verify, provider)
        self.transport = _check_transport(transport)
        self._fast: AsyncTransport | None = None  # aiohttp, once chosen (see _fast_path)
        self._fast_checked = False
        self._blocking: SyncTransport | None = None  # urllib3, once chosen (_blocking_path)
        self._blocking_checked = False
        self._httpx_async: HttpxAsyncTransport | None = None
        self._httpx_sync: HttpxSyncTransport | None = None
        self._httpx2 = False
        self._secret = register_secret(secret)
        self._async_client: httpx.AsyncClient | None = None
        self._sync_client: httpx.Client | None = None
        self._owns_async = True
        self._async_closer: LoopCloser | None = None  # closes the owned one in its loop
        self._owns_sync = True
        self._sync_armed = True
        self._lock = threading.Lock()
        if http_client is None:
            pass
        elif isinstance(http_client, httpx.AsyncClient):
            self._async_client, self._owns_async = http_client, False
        elif isinstance(http_client, httpx.Client):
            self._sync_client, self._owns_sync = http_client, False
            self._sync_armed = arm_sync_client(http_client)
        elif (kind := httpx2_kind(http_client)) is not None:
            # httpx2 shares httpx's API; its errors are turned into httpx's at the send.
            self._httpx2 = True
            if kind == "async":
                self._async_client, self._owns_async = http_client, False
            else:
                self._sync_client, self._owns_sync = http_client, False
                self._sync_armed = arm_sync_client(http_client)
        else:
            raise ConfigurationError(
                "http_client= must be an httpx.AsyncClient or httpx.Client (or their httpx2 "
                f"twins), not {type(http_client).__name__}"
            )
        # Test seams: how to wait and where jitter comes from.
        self.sleep: Callable[[float], None] = time.sleep
        self.async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self.random: Callable[[], float] = random.random
        # Per-request timeout: ours for owned clients; for an injected client, its own
        # unless it has none at all (every network call must have a timeout).
        self._request_timeout = self.timeout if timeout is not None else None

    # -- clients -----------------------------------------------------------------------

    def _timeout_for(self, client: httpx.AsyncClient | httpx.Client) -> httpx.Timeout | None:
        if self._request_timeout is not None:
            return self._request_timeout
        own = client.timeout
        if (own.connect, own.read, own.write, own.pool) == (None, None, None, None):
            return self.timeout
        return None  # the client's own timeout applies

    def async_client(self) -> httpx.AsyncClient:
        """The pooled async client (created on first use when none was injected).

        An owned client's connections belong to the event loop they were opened in; when
        the connector is used from another loop (``asyncio.run`` called again), a fresh
        client is made for that loop instead of failing with "Event loop is closed".
        """
        client = self._async_client
        if not self._owns_async and client is not None:
            return client
        closer = self._async_closer
        if closer is not None and closer.loop is not asyncio.get_running_loop():
            self._release_async()
            client = None
        if client is None or client.is_closed:
            client = make_async_client(self.timeout, self._verify)
            # Closed in this loop by aclose(), or as the loop ends if nobody calls it: its
            # connections cannot be closed once the loop is gone (see _loop).
            self._async_closer = LoopCloser(client.aclose)
            self._async_client = client
        return client

    def sync_client(self) -> httpx.Client:
        """The pooled blocking client (created on first use when none was injected)."""
        client = self._sync_client
        if client is None or (self._owns_sync and client.is_closed):
            with self._lock:
                client = self._sync_client
                if client is None or (self._owns_sync and client.is_closed):
                    client = make_sync_client(self.timeout, self._verify)
                    self._sync_client = client
        return client

    def _drop_async(self) -> LoopCloser | None:
        """Forget the owned async client (and its transport); return what closes it."""
        self._async_client = None
        self._httpx_async = None  # its transport must not keep the client alive either
        closer, self._async_closer = self._async_closer, None
        return closer

    def _release_async(self) -> None:
        """Close the owned async client from outside its event loop, as far as possible."""
        closer = self._drop_async()
        if closer is not None:
            closer.release()

    def close(self) -> None:
        """Close the clients this engine created (never an injected one).

        Prefer `aclose` after async use: an async client is best closed in its loop.
        """
        client = self._sync_client
        if client is not None and self._owns_sync:
            self._sync_client = None
            self._httpx_sync = None
            client.close()
        if self._owns_async:
            self._release_async()
        if self._fast is not None:
            self._fast.close()
        if self._blocking is not None:
            self._blocking.close()

    async def aclose(self) -> None:
        """Close every client this engine created (never an injected one)."""
        closer = self._drop_async() if self._owns_async else None
        if closer is not None:
            await closer.aclose()
        if self._fast is not None:
            await self._fast.aclose()
        self.close()

    # -- sending -----------------------------------------------------------------------

    async def send(self, request: HttpRequest, parse: Callable[[HttpResponse], ResultT]) -> ResultT:
        """Send ``request`` with retries and return ``parse(response)`` (async).

        Raises:
            InvalidRequestError: The request holds text that cannot be encoded (no send).
            ProviderError: A subclass matching the provider's error; a plain
                ``ProviderError`` (``code="cross_origin_redirect"``) for a redirect to
                another origin, which is never followed.
            SearchTransportError: The service could not be reached after the retries.
            SearchTimeoutError: No answer in time after the retries, or past ``deadline``.
        """
        transport = self._async_transport()
        state = _Send(request, time.monotonic() + self.deadline)
        exchange = partial(self._exchange_async, transport)
        if transport is self._fast:
            # aiohttp bounds each exchange by what is left of the deadline (its per-request
            # total timeout); waits between attempts end before it (_after_attempt) and
            # parsing does not wait: no asyncio.timeout needed, a timer less per search.
            return await self._send_async(exchange, state, parse)
        try:
            return await within(self._send_async(exchange, state, parse), state.deadline)
        except _TIMEOUT_ERRORS as exc:
            if isinstance(exc, TextSearchError):
                raise
            raise self._deadline_error(state) from None

    async def _send_async(
        self,
        exchange: Callable[[_Send, _Attempt], Awaitable[Answer]],
        state: _Send,
        parse: Callable[[HttpResponse], ResultT],
    ) -> ResultT:
        while True:
            outcome = state.next_attempt()
            try:
                answer: Answer | Exception = await exchange(state, outcome)
            except Exception as exc:
                answer = exc
            wait = self._settle(outcome, state, answer, parse)
            if wait is None:
                return outcome.result  # type: ignore[no-any-return]
            await self.async_sleep(wait)

    def _foreign(self, error: Exception) -> BaseException:
        """An httpx2 client's error as httpx's; anything else is not ours to handle."""
        converted = as_httpx_error(error) if self._httpx2 else error
        if converted is error:
            raise error
        return converted

    def send_sync(self, request: HttpRequest, parse: Callable[[HttpResponse], ResultT]) -> ResultT:
        """Blocking twin of `send`; raises the same errors."""
        exchange = partial(self._exchange_sync, self._sync_transport())
        state = _Send(request, time.monotonic() + self.deadline)
        while True:
            outcome = state.next_attempt()
            try:
                answer: Answer | Exception = exchange(state, outcome)
            except Exception as exc:
                answer = exc
            wait = self._settle(outcome, state, answer, parse)
            if wait is None:
                return outcome.result  # type: ignore[no-any-return]
            self.sleep(wait)

    # -- the shared, I/O-free part -----------------------------------------------------

    def _settle(
        self,
        outcome: _Attempt,
        state: _Send,
        answer: Answer | Exception,
        parse: Callable[[HttpResponse], Any],
    ) -> float | None:
        """Judge one attempt's answer (or failure): ``None`` when done, else seconds to wait.

        Raises the final error when there is nothing left to try; an exception that is not
        a transport's or a parser's (a bug) propagates as it is.
        """
        if isinstance(answer, Exception):
            outcome.error = answer if isinstance(answer, _ATTEMPT_ERRORS) else self._foreign(answer)
        else:
            status, headers, content, url, _ = answer
            try:
                self._judge(outcome, status, headers, content, url, parse)
            except _ATTEMPT_ERRORS as exc:
                outcome.error = exc
            except Exception as exc:
                outcome.error = self._foreign(exc)
        return self._after_attempt(outcome, state)

    def _judge(
        self,
        outcome: _Attempt,
        status: int,
        headers: Mapping[str, str],
        content: bytes,
        url: object,
        parse: Callable[[HttpResponse], Any],
    ) -> None:
        outcome.status = status
        if 200 <= status < 300:
            try:
                outcome.result = parse(HttpResponse(status, headers, content))
                return
            except BodyStatusError as exc:
                outcome.status = exc.status_code
                outcome.error = exc
                outcome.detail = exc.detail
        outcome.retry_after = parse_retry_after(headers.get("retry-after"))
        if outcome.detail is None:
            # Read once, before the retry decision: the body may say whether to retry.
            try:
                outcome.detail = self._read_error(
                    status, HttpResponse(status, headers, content, str(url))
                )
            except Exception:  # a reader must never turn an error into a crash
                outcome.detail = ErrorDetail()
        if outcome.retry_after is None and outcome.detail is not None:
            outcome.retry_after = outcome.detail.retry_after

    def _after_attempt(self, outcome: _Attempt, state: _Send) -> float | None:
        """Log the attempt; return ``None`` when done, else seconds to wait; or raise."""
        latency_ms = (time.perf_counter() - outcome.started) * 1000.0
        error = outcome.error
        status = outcome.status
        attempt = state.attempt
        request = state.request
        if error is None and status is not None and 200 <= status < 300:
            if logger.isEnabledFor(logging.INFO):
                self._log(
                    logging.INFO, request, status, attempt, latency_ms, len(outcome.result), None
                )
            return None
        if error is None or isinstance(error, BodyStatusError):
            retryable = _retryable(status, outcome.detail)
        else:
            retryable = isinstance(error, RETRY_EXCEPTIONS)
        now = time.monotonic()
        # A transport's timer armed for the deadline may fire a hair before this clock says
        # it is due: a timeout that close to the deadline is the deadline.
        if isinstance(error, httpx.TimeoutException) and now >= state.deadline - _DEADLINE_SLACK:
            final: TextSearchError = self._deadline_error(state)
        else:
            if retryable and attempt <= self.max_retries:
                retry_after = outcome.retry_after
                if retry_after is not None and retry_after > self.max_retry_wait:
                    # Waiting less than asked would be refused again; waiting longer than
                    # allowed would stall the caller: give the caller the wait instead.
                    state.note = (
                        f"the service asked to wait {retry_after:g} s, longer than "
                        f"max_retry_wait={self.max_retry_wait:g} s"
                    )
                else:
                    wait = self._wait(attempt, retry_after)
                    if now + wait < state.deadline:
                        if logger.isEnabledFor(logging.INFO):
                            self._log(
                                logging.INFO, request, status, attempt, latency_ms, None,
                                error, wait,
                            )  # fmt: skip
                        return wait
                    state.note = "another attempt would end past the deadline"
            final = self._final_error(outcome, state)
        # INFO, not WARNING: the caller gets the exception; a library should not also print.
        if logger.isEnabledFor(logging.INFO):
            self._log(logging.INFO, request, status, attempt, latency_ms, None, final)
        if error is None or error is final or isinstance(error, (BodyStatusError, ProviderError)):
            raise final
        raise final from scrub_exception(error)

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_retry_wait)
        ceiling = min(self.max_retry_wait, BACKOFF_BASE * 2.0 ** (attempt - 1))
        return self.random() * ceiling

    def _deadline_error(self, state: _Send) -> SearchTimeoutError:
        tries = f"{state.attempt} attempt{'s' if state.attempt != 1 else ''}"
        return SearchTimeoutError(
            f"{self.provider}: no complete answer from {_where(state.request.url)} within the "
            f"{self.deadline:g} s deadline ({tries})",
            provider=self.provider,
            hints=("raise deadline= (total seconds per search) or check the endpoint",),
        )

    def _final_error(self, outcome: _Attempt, state: _Send) -> TextSearchError:
        error = outcome.error
        attempt = state.attempt
        tries = f"after {attempt} attempt{'s' if attempt != 1 else ''}"
        where = _where(state.request.url)
        if isinstance(error, httpx.TimeoutException):
            return SearchTimeoutError(
                f"{self.provider}: no answer from {where} within the timeout ({tries})",
                provider=self.provider,
                hints=("raise timeout= or check the endpoint",),
            )
        if isinstance(error, ProviderError):
            return error  # already the documented error (e.g. a parser's ResponseFormatError)
        if isinstance(error, (httpx.DecodingError, UnsupportedEncoding, zlib.error)):
            return ResponseFormatError(
                f"{self.provider}: the response from {where} could not be decoded",
                provider=self.provider,
                status_code=outcome.status,
            )
        if isinstance(error, httpx.RequestError):
            return SearchTransportError(
                f"{self.provider}: could not reach {where}: {type(error).__name__} ({tries})",
                provider=self.provider,
                hints=("check the network and the endpoint/base URL",),
            )
        if isinstance(error, TooLarge):
            return ResponseFormatError(
                f"{self.provider}: the response from {where} is larger than the "
                f"{self.max_response_bytes} byte limit",
                provider=self.provider,
                status_code=outcome.status,
            )
        status = outcome.status or 0
        detail = outcome.detail if outcome.detail is not None else ErrorDetail()
        if state.note:
            detail = ErrorDetail(
                detail.code, detail.sub_code, detail.message, detail.error_class,
                (*detail.hints, state.note), detail.retryable, detail.retry_after,
            )  # fmt: skip
        return self.make_error(status, detail, retry_after=outcome.retry_after, attempts=attempt)

    def make_error(
        self,
        status: int,
        detail: ErrorDetail,
        *,
        retry_after: float | None = None,
        attempts: int = 1,
    ) -> ProviderError:
        """Build the documented error for an error status; the one status->class table."""
        cls = detail.error_class or error_class_for_status(status)
        message = self._redact(detail.message) or _reason(status)
        code = self._redact(detail.code)
        sub_code = self._redact(detail.sub_code)
        label = "/".join(p for p in (code, sub_code) if p and p != str(status))
        text = f"{self.provider}: HTTP {status}"
        if label:
            text += f" {label}"
        text += f": {message}"
        if status in RETRY_STATUSES and attempts > 1:
            text += f" (after {attempts} attempts)"
        return cls(
            text,
            provider=self.provider,
            status_code=status,
            code=code,
            sub_code=sub_code,
            retry_after=retry_after,
            hints=tuple(self._redact(h) or "" for h in detail.hints),
        )

    def _redact(self, text: str | None) -> str | None:
        if text is None:
            return None
        text = scrub(text)
        return text[:500] if len(text) > 500 else text

    def _log(
        self,
        level: int,
        request: HttpRequest,
        status: int | None,
        attempt: int,
        latency_ms: float,
        count: int | None,
        error: BaseException | None,
        wait: float | None = None,
    ) -> None:
        outcome = "ok" if error is None else type(error).__name__
        if wait is not None:
            outcome += f", retrying in {wait:.2f}s"
        logger.log(
            level,
            "%s %s %s status=%s attempt=%d latency_ms=%.1f results=%s (%s)",
            self.provider,
            request.method,
            _where(request.url),
            status,
            attempt,
            latency_ms,
            count,
            outcome,
            extra={
                "provider": self.provider,
                "status": status,
                "attempt": attempt,
                "latency_ms": latency_ms,
                "result_count": count,
            },
        )


_ATTEMPT_ERRORS: Final = (
    httpx.RequestError,
    ProviderError,
    TooLarge,
    UnsupportedEncoding,
    zlib.error,
)
