"""The one HTTP engine shared by every HTTP connector.

Connectors are sans-I/O: they describe a request with :class:`HttpRequest` and parse a
:class:`HttpResponse` with pure code. :class:`HttpEngine` sends the description with an
``httpx.AsyncClient`` or an ``httpx.Client``; everything around the send (the retry
decision, backoff, ``Retry-After``, the size cap, error mapping, redaction, logging) is the
same code for both, so the blocking twin can never drift from the async path.

What a connector supplies:

* ``read_error(status, response) -> ErrorDetail``: how to read its own error body (code,
  sub-code, message) and, where the status alone is ambiguous, which error class applies
  (for example HTTP 403 meaning "out of quota" rather than "forbidden").
* a ``parse(response)`` callable per request, which returns the native results or raises
  :class:`BodyStatusError` when a 2xx body carries an error code of its own (Bocha does this);
  the engine then treats the response as if it had that status (retries included).

Keys are never part of the URL: a connector puts them in ``HttpRequest.headers`` only.
The engine also scrubs the key from any provider message before it reaches an exception.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sized
from dataclasses import dataclass, field
from datetime import timezone
from typing import Any, Final, TypeVar

import httpx

from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    ProviderRetiredError,
    QuotaExceededError,
    RateLimitError,
    ResponseFormatError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
)

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_MAX_RETRY_WAIT",
    "DEFAULT_TIMEOUT",
    "BodyStatusError",
    "ErrorDetail",
    "HttpEngine",
    "HttpRequest",
    "HttpResponse",
    "parse_retry_after",
]

logger = logging.getLogger("textsearch")

#: Connect 5 s; read, write and pool 20 s.
DEFAULT_TIMEOUT: Final = httpx.Timeout(20.0, connect=5.0)
DEFAULT_MAX_RETRIES: Final = 2
#: Longest single wait between two attempts, whatever ``Retry-After`` or the backoff says.
DEFAULT_MAX_RETRY_WAIT: Final = 10.0
DEFAULT_MAX_RESPONSE_BYTES: Final = 10 * 1024 * 1024
#: First backoff ceiling; doubled at each retry (full jitter picks uniformly below it).
BACKOFF_BASE: Final = 0.5
#: Statuses worth another try: throttling and transient server failures.
RETRY_STATUSES: Final = frozenset({429, 500, 502, 503, 504})
#: Failures worth another try: timeouts, refused/reset connections, a server that hung up.
#: Others (an unsupported scheme, a bad proxy, a broken gzip stream) will not get better.
RETRY_EXCEPTIONS: Final = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
#: A pool capped near 10 connections is about 3x cheaper per request at concurrency 50
#: than httpx's default (100): fewer connections to juggle, better keep-alive reuse.
DEFAULT_LIMITS: Final = httpx.Limits(max_connections=10, max_keepalive_connections=10)
_USER_AGENT: Final = "textsearch (python-httpx)"

ResultT = TypeVar("ResultT", bound=Sized)


@dataclass(frozen=True)
class HttpRequest:
    """A request description built by a connector (pure data, no I/O).

    Attributes:
        method: ``"GET"`` or ``"POST"``.
        url: Full URL without secrets (the key goes in ``headers``).
        params: Query parameters, in order.
        json_body: A JSON-able body for POST requests.
        headers: Request headers, including the auth header (left out of ``repr``, which
            tracebacks with locals print).
    """

    method: str
    url: str
    params: tuple[tuple[str, str], ...] = ()
    json_body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class HttpResponse:
    """What a connector's parser gets: status, headers and the whole (capped) body."""

    status_code: int
    headers: httpx.Headers
    content: bytes


@dataclass(frozen=True)
class ErrorDetail:
    """A provider's error body, as read by the connector.

    Attributes:
        code: The provider's error code, if any.
        sub_code: Its sub-code, if any.
        message: The provider's message (never the raw body of an unknown shape).
        error_class: Overrides the class the status alone would give (e.g. 403 by code).
        hints: Extra actionable hints for the developer.
        retryable: Whether another attempt could succeed, decided from the body (Brave
            answers 429 both for a rate limit and for a spent quota). ``None`` leaves it to
            the status and class: 429/5xx retry, a :class:`QuotaExceededError` never does.
    """

    code: str | None = None
    sub_code: str | None = None
    message: str | None = None
    error_class: type[ProviderError] | None = None
    hints: tuple[str, ...] = ()
    retryable: bool | None = None


class BodyStatusError(Exception):
    """Raised by a parser when a 2xx body reports an error status of its own."""

    def __init__(self, status_code: int, detail: ErrorDetail) -> None:
        super().__init__(status_code)
        self.status_code = status_code
        self.detail = detail


class _TooLarge(Exception):
    pass


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or an HTTP date).

    Returns ``None`` when the header is absent or unreadable; never a negative number.
    """
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if seconds == seconds else None  # NaN is unreadable
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    current = time.time() if now is None else now
    return max(0.0, when.timestamp() - current)


_STATUS_CLASSES: Final[dict[int, type[ProviderError]]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    410: ProviderRetiredError,
    429: RateLimitError,
}


def _retryable(status: int | None, detail: ErrorDetail | None) -> bool:
    """Whether an error answer is worth another attempt (the body may overrule the status)."""
    if detail is not None:
        if detail.retryable is not None:
            return detail.retryable
        if detail.error_class is not None and issubclass(detail.error_class, QuotaExceededError):
            return False  # a spent quota does not come back in a few seconds
    return status in RETRY_STATUSES


def _default_class(status: int) -> type[ProviderError]:
    cls = _STATUS_CLASSES.get(status)
    if cls is not None:
        return cls
    if status >= 500:
        return ServiceUnavailableError
    return ProviderError


class _Attempt:
    """The outcome of one try, in a form the shared retry logic can judge."""

    __slots__ = ("detail", "error", "response", "result", "retry_after", "status")

    def __init__(self) -> None:
        self.status: int | None = None
        self.response: HttpResponse | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.retry_after: float | None = None
        self.detail: ErrorDetail | None = None


class HttpEngine:
    """Client ownership, timeouts, retries, size cap, error mapping and redaction.

    One engine per connector instance; it lazily creates (and then reuses) one pooled
    ``httpx.AsyncClient`` for the async path and one ``httpx.Client`` for the blocking path.
    An injected client is used for its own kind and never closed here.

    Args:
        provider: Short provider name, for errors and logs.
        read_error: Reads the connector's error body.
        http_client: An ``httpx.AsyncClient`` or ``httpx.Client`` to use (not closed here).
        timeout: Seconds or an ``httpx.Timeout``; ``None`` means the default.
        max_retries: Retries after the first attempt (0 disables retrying).
        max_retry_wait: Longest single wait between attempts, in seconds.
        max_response_bytes: Larger bodies raise ``ResponseFormatError``.
        secret: The key, only so that it can be scrubbed from provider messages.
    """

    def __init__(
        self,
        *,
        provider: str,
        read_error: Callable[[int, HttpResponse], ErrorDetail],
        http_client: httpx.AsyncClient | httpx.Client | None = None,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        secret: str | None = None,
    ) -> None:
        self.provider = provider
        self._read_error = read_error
        self.timeout = _check_timeout(timeout)
        self.max_retries = _check_int("max_retries", max_retries, 0)
        self.max_retry_wait = _check_seconds("max_retry_wait", max_retry_wait)
        self.max_response_bytes = _check_int("max_response_bytes", max_response_bytes, 1)
        # Only real keys are scrubbed: a very short "key" would mangle every message.
        self._secret = secret if secret and len(secret) >= 8 else None
        self._async_client: httpx.AsyncClient | None = None
        self._sync_client: httpx.Client | None = None
        self._owns_async = True
        self._async_loop: asyncio.AbstractEventLoop | None = None
        self._closing: set[asyncio.Task[None]] = set()
        self._owns_sync = True
        self._lock = threading.Lock()
        if http_client is None:
            pass
        elif isinstance(http_client, httpx.AsyncClient):
            self._async_client, self._owns_async = http_client, False
        elif isinstance(http_client, httpx.Client):
            self._sync_client, self._owns_sync = http_client, False
        else:
            raise ConfigurationError(
                "http_client= must be an httpx.AsyncClient or httpx.Client, "
                f"not {type(http_client).__name__}"
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
        loop = asyncio.get_running_loop()
        if client is not None and not client.is_closed and self._async_loop is not loop:
            self._release_async(client)
            client = None
        if client is None or client.is_closed:
            self._async_loop = loop
            client = httpx.AsyncClient(
                timeout=self.timeout,
                limits=DEFAULT_LIMITS,
                headers={"User-Agent": _USER_AGENT},
                follow_redirects=False,
            )
            self._async_client = client
        return client

    def sync_client(self) -> httpx.Client:
        """The pooled blocking client (created on first use when none was injected)."""
        client = self._sync_client
        if client is None or (self._owns_sync and client.is_closed):
            with self._lock:
                client = self._sync_client
                if client is None or (self._owns_sync and client.is_closed):
                    client = httpx.Client(
                        timeout=self.timeout,
                        limits=DEFAULT_LIMITS,
                        headers={"User-Agent": _USER_AGENT},
                        follow_redirects=False,
                    )
                    self._sync_client = client
        return client

    def _release_async(self, client: httpx.AsyncClient) -> None:
        """Close an owned async client from outside its event loop, as far as possible."""
        self._async_client = None
        loop, self._async_loop = self._async_loop, None
        if loop is None or loop.is_closed():
            return  # its loop is gone and its sockets with it; nothing can be awaited there
        if loop.is_running():
            task = loop.create_task(client.aclose())
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        else:
            loop.run_until_complete(client.aclose())

    def close(self) -> None:
        """Close the clients this engine created (never an injected one).

        Prefer :meth:`aclose` after async use: an async client is best closed in its loop.
        """
        client = self._sync_client
        if client is not None and self._owns_sync:
            self._sync_client = None
            client.close()
        aclient = self._async_client
        if aclient is not None and self._owns_async and not aclient.is_closed:
            self._release_async(aclient)

    async def aclose(self) -> None:
        """Close every client this engine created (never an injected one)."""
        client = self._async_client
        if client is not None and self._owns_async:
            if self._async_loop is not asyncio.get_running_loop():
                self._release_async(client)  # it belongs to another (maybe closed) loop
            else:
                self._async_client = None
                self._async_loop = None
                await client.aclose()
        self.close()

    # -- sending -----------------------------------------------------------------------

    def _build(
        self, client: httpx.AsyncClient | httpx.Client, request: HttpRequest
    ) -> httpx.Request:
        timeout = self._timeout_for(client)
        try:
            return client.build_request(
                request.method,
                request.url,
                params=request.params or None,
                json=request.json_body,
                headers=request.headers,
                timeout=httpx.USE_CLIENT_DEFAULT if timeout is None else timeout,
            )
        except UnicodeEncodeError:
            # A lone surrogate (e.g. from a bad decode) cannot be UTF-8 encoded. Not chained:
            # the UnicodeEncodeError holds the text it failed on, which may be a header.
            raise InvalidRequestError(
                f"{self.provider}: the query or a filter value contains characters that "
                "cannot be sent (e.g. a lone surrogate); clean the text first"
            ) from None

    async def send(self, request: HttpRequest, parse: Callable[[HttpResponse], ResultT]) -> ResultT:
        """Send ``request`` with retries and return ``parse(response)`` (async).

        Raises:
            InvalidRequestError: The request holds text that cannot be encoded (no send).
            ProviderError: A subclass matching the provider's error.
            SearchTransportError: The service could not be reached after the retries.
            SearchTimeoutError: The service did not answer in time after the retries.
        """
        client = self.async_client()
        attempt = 0
        while True:
            attempt += 1
            outcome = _Attempt()
            started = time.perf_counter()
            try:
                response = await client.send(self._build(client, request), stream=True)
                outcome.status = response.status_code
                try:
                    content = await self._read_async(response)
                finally:
                    await response.aclose()
                self._judge(outcome, response, content, parse)
            except (httpx.RequestError, ProviderError, _TooLarge) as exc:
                outcome.error = exc
            wait = self._after_attempt(outcome, attempt, started, request)
            if wait is None:
                return outcome.result  # type: ignore[no-any-return]
            await self.async_sleep(wait)

    def send_sync(self, request: HttpRequest, parse: Callable[[HttpResponse], ResultT]) -> ResultT:
        """Blocking twin of :meth:`send`; raises the same errors."""
        client = self.sync_client()
        attempt = 0
        while True:
            attempt += 1
            outcome = _Attempt()
            started = time.perf_counter()
            try:
                response = client.send(self._build(client, request), stream=True)
                outcome.status = response.status_code
                try:
                    content = self._read_sync(response)
                finally:
                    response.close()
                self._judge(outcome, response, content, parse)
            except (httpx.RequestError, ProviderError, _TooLarge) as exc:
                outcome.error = exc
            wait = self._after_attempt(outcome, attempt, started, request)
            if wait is None:
                return outcome.result  # type: ignore[no-any-return]
            self.sleep(wait)

    # -- the shared, I/O-free part -----------------------------------------------------

    def _check_length(self, response: httpx.Response) -> None:
        declared = response.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_response_bytes:
            raise _TooLarge()

    async def _read_async(self, response: httpx.Response) -> bytes:
        self._check_length(response)
        chunks: list[bytes] = []
        size, cap = 0, self.max_response_bytes
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > cap:
                raise _TooLarge()
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _read_sync(self, response: httpx.Response) -> bytes:
        self._check_length(response)
        chunks: list[bytes] = []
        size, cap = 0, self.max_response_bytes
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > cap:
                raise _TooLarge()
            chunks.append(chunk)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    def _judge(
        self,
        outcome: _Attempt,
        response: httpx.Response,
        content: bytes,
        parse: Callable[[HttpResponse], Any],
    ) -> None:
        status = response.status_code
        wrapped = HttpResponse(status, response.headers, content)
        outcome.response = wrapped
        outcome.status = status
        if 200 <= status < 300:
            try:
                outcome.result = parse(wrapped)
            except BodyStatusError as exc:
                outcome.status = exc.status_code
                outcome.error = exc
        if outcome.status != status or not 200 <= status < 300:
            outcome.retry_after = parse_retry_after(response.headers.get("retry-after"))
        if isinstance(outcome.error, BodyStatusError):
            outcome.detail = outcome.error.detail
        elif not 200 <= status < 300:
            # Read once, before the retry decision: the body may say whether to retry.
            try:
                outcome.detail = self._read_error(status, wrapped)
            except Exception:  # a reader must never turn an error into a crash
                outcome.detail = ErrorDetail()

    def _after_attempt(
        self, outcome: _Attempt, attempt: int, started: float, request: HttpRequest
    ) -> float | None:
        """Log the attempt; return ``None`` when done, else seconds to wait; or raise."""
        latency_ms = (time.perf_counter() - started) * 1000.0
        error = outcome.error
        status = outcome.status
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
        if retryable and attempt <= self.max_retries:
            wait = self._wait(attempt, outcome.retry_after)
            if logger.isEnabledFor(logging.INFO):
                self._log(logging.INFO, request, status, attempt, latency_ms, None, error, wait)
            return wait
        final = self._final_error(outcome, attempt, request)
        # INFO, not WARNING: the caller gets the exception; a library should not also print.
        if logger.isEnabledFor(logging.INFO):
            self._log(logging.INFO, request, status, attempt, latency_ms, None, final)
        if error is None or error is final or isinstance(error, BodyStatusError):
            raise final
        raise final from _detached(error)

    def _wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self.max_retry_wait)
        ceiling = min(self.max_retry_wait, BACKOFF_BASE * 2.0 ** (attempt - 1))
        return self.random() * ceiling

    def _final_error(
        self, outcome: _Attempt, attempt: int, request: HttpRequest
    ) -> ProviderError | SearchTransportError:
        error = outcome.error
        tries = f"after {attempt} attempt{'s' if attempt != 1 else ''}"
        where = _where(request.url)
        if isinstance(error, httpx.TimeoutException):
            return SearchTimeoutError(
                f"{self.provider}: no answer from {where} within the timeout ({tries})",
                provider=self.provider,
                hints=("raise timeout= or check the endpoint",),
            )
        if isinstance(error, ProviderError):
            return error  # already the documented error (e.g. a parser's ResponseFormatError)
        if isinstance(error, httpx.DecodingError):
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
        if isinstance(error, _TooLarge):
            return ResponseFormatError(
                f"{self.provider}: the response from {where} is larger than the "
                f"{self.max_response_bytes} byte limit",
                provider=self.provider,
                status_code=outcome.status,
            )
        status = outcome.status or 0
        detail = outcome.detail if outcome.detail is not None else ErrorDetail()
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
        cls = detail.error_class or _default_class(status)
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
        secret = self._secret
        if secret and secret in text:
            text = text.replace(secret, "***")
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


def _where(url: str) -> str:
    """Scheme, host and path of a URL: what may appear in logs and messages."""
    cut = url.find("?")
    return url if cut < 0 else url[:cut]


def _reason(status: int) -> str:
    try:
        from http import HTTPStatus

        return HTTPStatus(status).phrase
    except ValueError:
        return "error"


def _check_timeout(timeout: float | httpx.Timeout | None) -> httpx.Timeout:
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, httpx.Timeout):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ConfigurationError(
            f"timeout= must be a positive number of seconds or an httpx.Timeout, got {timeout!r}"
        )
    return httpx.Timeout(float(timeout))


def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigurationError(f"{name}= must be a whole number >= {minimum}, got {value!r}")
    return value


def _check_seconds(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ConfigurationError(f"{name}= must be a number of seconds >= 0, got {value!r}")
    return float(value)


def bearer_or_plain(header: str, key: str) -> str:
    """The header value for ``key``: ``Bearer <key>`` for ``Authorization``, else the key."""
    if header.lower() == "authorization" and not key.lower().startswith("bearer "):
        return f"Bearer {key}"
    return key


def _detached(error: BaseException) -> BaseException:
    """The cause to chain: an httpx error copied without its request and traceback.

    The original holds the request, whose headers carry the key (httpx masks only
    ``Authorization`` in their repr), and its traceback's frames hold it too. The copy keeps
    what helps debugging, the error type and its message.
    """
    if isinstance(error, httpx.RequestError):
        return type(error)(str(error))
    return error
