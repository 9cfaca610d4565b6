"""The blocking fast path: the engine's blocking requests sent with urllib3's pools.

Imported only when a connector is set to use it (``transport="urllib3"`` or ``"fast"``, or
``"auto"`` with ``TEXTSEARCH_TRANSPORT=urllib3``/``fast``). As on the async fast path,
everything around the send (deadline, retries, redirects, the decompressed size cap, error
mapping, redaction) is the engine's shared code; this module only moves bytes, and reports
failures as the matching ``httpx`` exception so that the engine maps every transport's
errors in one place. urllib3 is told to do none of it itself: ``retries=False``, no
redirects, no decoding, the body streamed into `BodyReader`.

The total deadline reaches the socket, as on the blocking httpx path: urllib3's read timeout
restarts with every ``recv``, so a server that drips one byte a second would never time out.
The connections here read the response through a raw reader that, before each ``recv``,
shrinks the socket's timeout to what is left of the deadline of the search running in the
current context (`textsearch._http._guards.deadline_scope`).
"""

from __future__ import annotations

import http.client
import io
import json
import ssl
import time
import urllib.parse
import urllib.request
from typing import Any, Final

import httpx

from textsearch._http._guards import (
    ACCEPT_ENCODING,
    REDIRECT_STATUSES,
    SPENT,
    BodyReader,
    current_deadline,
    deadline_scope,
)
from textsearch._http._redact import scrub
from textsearch._http._transports._httpx import default_ssl_context, environment_proxy
from textsearch._http._transports.base import Answer, HttpRequest, StatusSink, missing_extra
from textsearch._version import user_agent

try:
    import urllib3
    from urllib3 import exceptions as _errors
    from urllib3.connection import HTTPConnection, HTTPSConnection
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise missing_extra("urllib3") from exc

__all__ = ["Urllib3Transport"]

#: Same pool size as the httpx clients (see ``_transport.DEFAULT_LIMITS``); threads beyond
#: it wait for a free connection (up to the pool timeout), as they do on httpx's pool.
POOL_SIZE: Final = 10
#: Distinct origins kept pooled (a connector talks to one; redirects may add a few).
NUM_POOLS: Final = 10
_CHUNK: Final = 65536
_MAX_ROUTES: Final = 64
#: No retries and no redirects inside urllib3 (built once: urllib3 would build and log one
#: per request from ``retries=False``).
_NO_RETRIES: Final = urllib3.Retry(total=False, redirect=False)


# -- deadline-aware reads ----------------------------------------------------------------


class _DeadlineReader(io.RawIOBase):
    """A socket's raw reader whose every ``recv`` ends by the deadline of this thread's search.

    The socket's own timeout (urllib3's read timeout, set just before the response is read)
    is kept while the deadline is further away than that; closer to it, each read gets only
    the time left. Nothing changes outside a search (no deadline set in this thread).
    """

    def __init__(self, raw: Any, sock: Any) -> None:
        super().__init__()
        self._raw = raw
        self._sock = sock
        self._phase: float | None = sock.gettimeout()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        deadline = current_deadline()
        if deadline is not None:
            left = deadline - time.monotonic()
            phase = self._phase
            if phase is None or left < phase:
                self._sock.settimeout(left if left > SPENT else SPENT)
        return self._raw.readinto(buffer)  # type: ignore[no-any-return]

    def close(self) -> None:
        if not self.closed:
            self._raw.close()  # gives the socket's reference back, as makefile() takes one
        super().close()


class _SocketView:
    """What ``http.client.HTTPResponse`` sees as its socket: only ``makefile`` is used."""

    __slots__ = ("_sock",)

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def makefile(self, mode: str) -> io.BufferedReader:
        raw = self._sock.makefile(mode, buffering=0)  # the unbuffered SocketIO itself
        return io.BufferedReader(_DeadlineReader(raw, self._sock))


class _DeadlineResponse(http.client.HTTPResponse):
    def __init__(
        self, sock: Any, debuglevel: int = 0, method: str | None = None, url: str | None = None
    ) -> None:
        super().__init__(_SocketView(sock), debuglevel, method, url)  # type: ignore[arg-type]


class _Connection(HTTPConnection):
    response_class = _DeadlineResponse


class _TLSConnection(HTTPSConnection):
    response_class = _DeadlineResponse


class _Pool(HTTPConnectionPool):
    ConnectionCls = _Connection


class _TLSPool(HTTPSConnectionPool):
    ConnectionCls = _TLSConnection


class _UnverifiedTLSPool(_TLSPool):
    """For ``verify=False``: the engine warned once; urllib3 would warn on every request."""

    def _validate_conn(self, conn: Any) -> None:
        if conn.is_closed:
            conn.connect()


# -- errors --------------------------------------------------------------------------------


def _as_httpx_error(error: BaseException) -> httpx.TransportError:
    """The httpx exception that means the same, so the engine maps it like any other."""
    text = scrub(str(error)) or type(error).__name__
    # NewConnectionError is a ConnectTimeoutError subclass in urllib3: check it first.
    if isinstance(error, _errors.NewConnectionError):
        return httpx.ConnectError(text)
    if isinstance(error, _errors.ConnectTimeoutError):
        return httpx.ConnectTimeout(text)
    if isinstance(error, (_errors.ReadTimeoutError, TimeoutError)):
        return httpx.ReadTimeout(text)
    if isinstance(error, _errors.EmptyPoolError):
        return httpx.PoolTimeout(text)
    if isinstance(error, _errors.ProxyError):
        return httpx.ProxyError(text)
    if isinstance(error, _errors.SSLError):
        return httpx.ConnectError(text)
    if isinstance(error, _errors.LocationValueError):
        return httpx.UnsupportedProtocol(text)
    if isinstance(error, (_errors.ProtocolError, http.client.HTTPException)):
        return httpx.RemoteProtocolError(text)
    if isinstance(error, OSError):
        return httpx.ReadError(text)
    return httpx.TransportError(text)


_FAILURES: Final = (_errors.HTTPError, http.client.HTTPException, OSError)


# -- TLS and proxies -------------------------------------------------------------------------


def _unverified_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class _Route:
    """How to reach one URL: its manager, and for a direct one its pool and request target."""

    __slots__ = ("manager", "pool", "target")

    def __init__(self, manager: urllib3.PoolManager, pool: Any, target: str) -> None:
        self.manager = manager
        self.pool = pool
        self.target = target


class Urllib3Transport:
    """One urllib3 pool per origin (10 connections each), owned by one engine; thread-safe."""

    def __init__(self, timeout: httpx.Timeout, verify: ssl.SSLContext | bool) -> None:
        self._phases = (timeout.connect, timeout.read, timeout.pool)
        self._timeout = urllib3.Timeout(connect=timeout.connect, read=timeout.read)
        # Past this many seconds before the deadline, the phases apply unchanged.
        self._longest = (
            None
            if timeout.connect is None or timeout.read is None
            else max(timeout.connect, timeout.read)
        )
        if verify is True:
            context = default_ssl_context()  # read once, like httpx's client
        elif verify is False:
            context = _unverified_context()
        else:
            context = verify
        unverified = context.verify_mode == ssl.CERT_NONE
        self._pool_kw: dict[str, Any] = {
            "maxsize": POOL_SIZE,
            "block": True,  # wait for a free connection rather than open extra ones
            "ssl_context": context,
            # urllib3 sets the context's verify_mode from cert_reqs: keep the caller's.
            "cert_reqs": context.verify_mode,
        }
        self._pool_classes = {
            "http": _Pool,
            "https": _UnverifiedTLSPool if unverified else _TLSPool,
        }
        self._direct = self._manager(None)
        self._proxied: dict[str, urllib3.PoolManager] = {}
        self._routes: dict[str, _Route] = {}

    def _manager(self, proxy: str | None) -> urllib3.PoolManager:
        manager: urllib3.PoolManager
        if proxy is None:
            manager = urllib3.PoolManager(NUM_POOLS, **self._pool_kw)
        else:
            parsed = urllib3.util.parse_url(proxy)
            headers = (
                urllib3.util.make_headers(proxy_basic_auth=urllib.parse.unquote(parsed.auth))
                if parsed.auth
                else None
            )
            manager = urllib3.ProxyManager(proxy, NUM_POOLS, proxy_headers=headers, **self._pool_kw)
        manager.pool_classes_by_scheme = self._pool_classes
        return manager

    def _route(self, url: str) -> _Route:
        """The manager for ``url``: direct, or through the environment's proxy for it.

        Read from the environment once per URL (a connector sends to one or two), as httpx
        reads it once per client, not on every request.
        """
        try:
            return self._routes[url]
        except KeyError:
            pass
        split, proxy = environment_proxy(url)
        if not proxy:
            # Direct: the origin's pool and the request target, found once per URL (the
            # manager would parse the URL and look its pool up on every request).
            pool = self._direct.connection_from_url(url)
            target = split.path or "/"
            route = _Route(self._direct, pool, f"{target}?{split.query}" if split.query else target)
        else:
            manager = self._proxied.get(proxy) or self._proxied.setdefault(
                proxy, self._manager(proxy)
            )
            route = _Route(manager, None, "")
        if len(self._routes) >= _MAX_ROUTES:
            self._routes.clear()  # e.g. many redirect targets: stay small
        self._routes[url] = route
        return route

    def _timeouts(self, deadline: float) -> tuple[urllib3.Timeout, float | None]:
        """Connect/read timeouts and the pool wait, none longer than what is left."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise httpx.ReadTimeout("the total deadline of the search has passed")
        connect, read, pool = self._phases
        wait = left if pool is None or pool > left else pool
        longest = self._longest
        if longest is not None and left > longest:
            return self._timeout, wait
        timeout = urllib3.Timeout(
            connect=left if connect is None else min(connect, left),
            read=left if read is None else min(read, left),
        )
        return timeout, wait

    def send(self, request: HttpRequest, deadline: float) -> tuple[Any, str]:
        """Send one request (no redirect followed); the response (body unread) and its URL.

        Raises ``UnicodeEncodeError`` (before anything is sent) for text that cannot be
        encoded, and httpx exceptions for every transport failure. Every response must be
        handed to `release`.
        """
        url = request.url
        try:
            route = self._route(url)
        except (*_FAILURES, ValueError) as exc:  # a URL urllib or urllib3 cannot parse
            raise httpx.UnsupportedProtocol(scrub(str(exc)) or type(exc).__name__) from None
        target = route.target
        if request.params:
            query = urllib.parse.urlencode(request.params)
            url = f"{url}{'&' if '?' in url else '?'}{query}"
            target = f"{target}{'&' if '?' in target else '?'}{query}"
        headers = {"User-Agent": user_agent("urllib3"), "Accept": "*/*", **request.headers}
        headers["Accept-Encoding"] = ACCEPT_ENCODING  # only what BodyReader can bound
        body = None
        if request.json_body is not None:
            body = json.dumps(
                request.json_body, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode("utf-8")
            headers["Content-Type"] = "application/json"
        timeout, pool_timeout = self._timeouts(deadline)
        options: dict[str, Any] = {
            "body": body,
            "headers": headers,
            "retries": _NO_RETRIES,  # the engine retries (max_retries=, logged, counted)
            "redirect": False,  # the engine decides (same origin only)
            "timeout": timeout,
            "pool_timeout": pool_timeout,
            "preload_content": False,
            "decode_content": False,  # BodyReader inflates, bounded by the size cap
        }
        pool = route.pool
        try:
            if pool is not None and pool.pool is not None:
                try:
                    response = pool.urlopen(
                        request.method, target, assert_same_host=False, **options
                    )
                    return response, url
                except _errors.ClosedPoolError:
                    pass  # dropped from the manager meanwhile (more origins than NUM_POOLS)
            if pool is not None:
                self._routes.pop(request.url, None)
            response = route.manager.urlopen(request.method, url, **options)
        except _FAILURES as exc:
            raise _as_httpx_error(exc) from None
        return response, url

    @staticmethod
    def read(response: Any, cap: int, deadline: float) -> bytes:
        """The whole body, decoded and capped (``TooLarge``), read by the deadline."""
        headers = response.headers
        reader = BodyReader(cap, headers.get("Content-Encoding"))
        reader.check_declared(headers.get("Content-Length"))
        try:
            for chunk in response.stream(_CHUNK, decode_content=False):
                reader.feed(chunk)
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("the total deadline of the search has passed")
        except _FAILURES as exc:
            raise _as_httpx_error(exc) from None
        return reader.finish()

    def exchange(
        self, request: HttpRequest, cap: int, deadline: float, outcome: StatusSink
    ) -> Answer:
        """Send one request (no redirect followed); see `SyncTransport`."""
        with deadline_scope(deadline):
            response, url = self.send(request, deadline)
            try:
                status = outcome.status = response.status
                headers = response.headers
                if status in REDIRECT_STATUSES:
                    location = headers.get("location")
                    if location:
                        return Answer(status, headers, b"", url, location)
                return Answer(status, headers, self.read(response, cap, deadline), url)
            finally:
                self.release(response)

    async def aclose(self) -> None:
        """Close every pooled connection (nothing here is bound to an event loop)."""
        self.close()

    @staticmethod
    def release(response: Any) -> None:
        """Give the connection back: kept when its body was read whole, else closed."""
        if not response.closed:
            response.close()  # a body left unread (redirect, cap, failure) spoils it
        response.release_conn()

    def close(self) -> None:
        """Close every pooled connection; the transport stays usable (new pools on demand)."""
        self._direct.clear()
        for manager in list(self._proxied.values()):
            manager.clear()
        self._proxied.clear()
        self._routes.clear()
