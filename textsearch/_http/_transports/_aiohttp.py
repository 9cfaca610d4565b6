"""The async fast path: the engine's requests sent with one pooled ``aiohttp.ClientSession``.

Imported only when a connector is set to use it (``transport="aiohttp"``, or ``"auto"`` with
``TEXTSEARCH_TRANSPORT=aiohttp``): ``import aiohttp`` costs several hundred milliseconds,
which a short command-line run must not pay. Everything around the send
(deadline, retries, redirects, the decompressed size cap, error mapping, redaction) is the
engine's shared code; this module only moves bytes, and reports failures as the matching
``httpx`` exception so that the engine maps every transport's errors in one place.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Mapping
from typing import Any, Final

import httpx
from multidict import CIMultiDict

from textsearch._http._guards import ACCEPT_ENCODING, REDIRECT_STATUSES, BodyReader
from textsearch._http._loop import LoopCloser
from textsearch._http._redact import scrub
from textsearch._http._transports._httpx import default_ssl_context, environment_proxy
from textsearch._http._transports.base import Answer, HttpRequest, StatusSink, missing_extra
from textsearch._version import user_agent

try:
    import aiohttp
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra("aiohttp") from exc

__all__ = ["AiohttpTransport"]

#: aiohttp's own default. Unlike httpx's pool (see ``_transport.DEFAULT_LIMITS``), aiohttp's
#: costs nothing more per request with more connections, while a cap below the concurrency
#: makes every excess request wait on a future for a free connection: 40 of 50 concurrent
#: searches did with a cap of 10, about 40,000 more instructions per search (callgrind).
POOL_SIZE: Final = 100
#: aiohttp rounds a timeout above this many seconds up to a whole second of the loop's clock
#: (to batch timers); a deadline must fire when it is due, not up to a second late.
_NO_CEIL: Final = float("inf")
_MAX_PROXY_KEYS: Final = 64
_MAX_HEADER_SETS: Final = 8
#: A request sent this close to the start of its search (a first attempt) uses the session's
#: own timeout, whose total is the whole deadline: it fires at most this late.
_FIRST_ATTEMPT: Final = 0.001


def _as_httpx_error(error: BaseException) -> httpx.TransportError:
    """The httpx exception that means the same, so the engine maps it like any other."""
    text = scrub(str(error)) or type(error).__name__
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(text)
    if isinstance(error, (aiohttp.ServerTimeoutError, asyncio.TimeoutError)):
        return httpx.ReadTimeout(text)
    if isinstance(error, aiohttp.ClientConnectorError):
        return httpx.ConnectError(text)
    if isinstance(error, (aiohttp.ServerDisconnectedError, aiohttp.ClientPayloadError)):
        return httpx.RemoteProtocolError(text)
    if isinstance(error, aiohttp.InvalidURL):
        return httpx.UnsupportedProtocol(text)
    if isinstance(error, (aiohttp.ClientOSError, aiohttp.ClientConnectionError)):
        return httpx.ReadError(text)
    return httpx.TransportError(text)


class AiohttpTransport:
    """One ``aiohttp.ClientSession`` per event loop, owned by one engine."""

    def __init__(
        self, timeout: httpx.Timeout, verify: ssl.SSLContext | bool, deadline: float | None = None
    ) -> None:
        # The session's total is the engine's whole deadline: a first attempt (sent within
        # a millisecond of the search's start) uses it as it is; a later attempt or
        # redirect hop gets a timeout of its own with what is left (see exchange).
        self._deadline = deadline
        self._timeout = aiohttp.ClientTimeout(
            total=deadline,
            connect=timeout.pool,
            sock_connect=timeout.connect,
            sock_read=timeout.read,
            ceil_threshold=_NO_CEIL,
        )
        self._phases = (timeout.pool, timeout.read, timeout.connect)
        self._verify = verify
        self._ssl: ssl.SSLContext | bool | None = None
        self._session: aiohttp.ClientSession | None = None
        self._closer: LoopCloser | None = None  # closes the session in its loop (see _loop)
        self._proxies: dict[str, str | None] = {}
        self._headers: dict[int, tuple[Mapping[str, str], CIMultiDict[str]]] = {}

    def _proxy_for(self, url: str) -> str | None:
        # Keyed by the URL as given (a connector sends to one or two): no parsing per request.
        try:
            return self._proxies[url]
        except KeyError:
            pass
        proxy = environment_proxy(url)[1]
        if len(self._proxies) >= _MAX_PROXY_KEYS:
            self._proxies.clear()  # e.g. many redirect targets: stay small
        self._proxies[url] = proxy
        return proxy

    def _headers_for(self, headers: Mapping[str, str]) -> CIMultiDict[str]:
        """The request's headers with ours added, built once per connector's header set.

        A connector sends the same header mapping with every request (the key, the
        Accept...): merging it with ours once, instead of letting aiohttp merge session
        defaults into every request, spares a few dict copies per search.
        """
        found = self._headers.get(id(headers))
        if found is not None and found[0] is headers:
            return found[1]
        merged = CIMultiDict(headers)
        merged.setdefault("User-Agent", user_agent("aiohttp"))
        merged["Accept-Encoding"] = ACCEPT_ENCODING  # only what BodyReader can bound
        if len(self._headers) >= _MAX_HEADER_SETS:
            self._headers.clear()
        self._headers[id(headers)] = (headers, merged)  # the mapping is kept: ids stay unique
        return merged

    def session(self) -> aiohttp.ClientSession:
        session, closer = self._session, self._closer
        if session is not None and closer is not None:
            if closer.loop is asyncio.get_running_loop() and not session.closed:
                return session
            self.close()
        if self._ssl is None:
            self._ssl = default_ssl_context() if self._verify is True else self._verify
        connector = aiohttp.TCPConnector(limit=POOL_SIZE, ssl=self._ssl)
        self._session = session = aiohttp.ClientSession(
            connector=connector,
            timeout=self._timeout,
            auto_decompress=False,  # BodyReader inflates, bounded by the size cap
            # trust_env=True looks up .netrc and the proxy variables in a worker thread on
            # every request (two thread hops: the largest cost of a search); the proxy is
            # read from the environment once per origin here instead (as httpx does).
            trust_env=False,
        )
        if hasattr(session, "_retry_connection"):
            # aiohttp silently resends an idempotent request once when a connection drops;
            # the engine's own retries (max_retries=, logged, counted) decide that here.
            session._retry_connection = False
        self._closer = LoopCloser(session.close)
        return session

    async def exchange(
        self, request: HttpRequest, cap: int, deadline: float, outcome: StatusSink
    ) -> Answer:
        """Send one request (no redirects followed); see `AsyncTransport`.

        ``outcome.status`` is set as soon as the status is known, before the body is
        read: a body past the cap is then reported with the status it came with.

        ``deadline`` (``time.monotonic()``) bounds the whole exchange, body included: it is
        aiohttp's own ``total`` timeout for this request, the one timer aiohttp arms per
        request anyway, so the engine needs no ``asyncio.timeout`` of its own on this path.
        """
        left = deadline - time.monotonic()
        if left <= 0:
            raise httpx.ReadTimeout("the total deadline of the search has passed")
        session = self.session()
        kwargs: dict[str, Any] = {
            "headers": self._headers_for(request.headers),
            "allow_redirects": False,
        }
        full = self._deadline
        if full is None or left < full - _FIRST_ATTEMPT:
            connect, read, sock_connect = self._phases
            kwargs["timeout"] = aiohttp.ClientTimeout(
                total=left, connect=connect, sock_read=read, sock_connect=sock_connect,
                ceil_threshold=_NO_CEIL,
            )  # fmt: skip
        proxy = self._proxy_for(request.url)
        if proxy is not None:
            kwargs["proxy"] = proxy
        if request.params:
            kwargs["params"] = request.params
        if request.json_body is not None:
            kwargs["json"] = request.json_body
        try:
            async with session.request(request.method, request.url, **kwargs) as response:
                status = outcome.status = response.status
                headers = response.headers
                if status in REDIRECT_STATUSES and "Location" in headers:
                    return Answer(status, headers, b"", response.url, headers["Location"])
                reader = BodyReader(cap, headers.get("Content-Encoding"))
                reader.check_declared(headers.get("Content-Length"))
                async for chunk in response.content.iter_any():
                    reader.feed(chunk)
                return Answer(status, headers, reader.finish(), response.url)
        except aiohttp.ClientError as exc:
            raise _as_httpx_error(exc) from None
        except asyncio.TimeoutError as exc:  # aiohttp's own per-phase timeouts
            raise _as_httpx_error(exc) from None

    async def aclose(self) -> None:
        closer = self._closer
        self._session = self._closer = None
        if closer is not None:
            await closer.aclose()

    def close(self) -> None:
        closer = self._closer
        self._session = self._closer = None
        if closer is not None:
            closer.release()
