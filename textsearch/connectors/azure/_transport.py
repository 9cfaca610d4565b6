"""Pipeline guards for the Azure SDK: same-origin redirects, a size cap, a total deadline.

azure-core gives a client no total deadline (its read timeout restarts with every byte), reads
a whole body, decompressed, into memory, and its redirect policy follows a 307/308 to any host
with the ``api-key`` header re-added by the authentication policy. The classes here close those
gaps for the clients the connector creates, whatever transport the caller passes:

* `redirect_policy` follows a redirect only to the same origin (scheme, host, port), at
  most `MAX_REDIRECTS` hops; to another origin it stops and
  the 3xx is reported as an error, so no credential leaves.
* `guarded_transport` wraps the real transport: it asks it for a stream and reads the
  raw body into the engine's `BodyReader`, which inflates
  it with a bounded output, so a gzip bomb stops at ``max_response_bytes``; it refuses to
  start an attempt, or to sleep between attempts, past the search's deadline.
* For the blocking path a watchdog (`deadline_watch`) shuts down the sockets a search is
  using when its deadline passes, because a blocked read cannot otherwise be interrupted; the
  async path cancels the search instead.

The deadline and the sockets of the running search travel in context variables, so concurrent
searches never see each other's. The origin rule, the body reader, the cap and deadline
defaults and the deadline itself are the HTTP engine's guard kit
(`textsearch._http._guards`): one policy for every network path.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from textsearch._http._guards import (
    ACCEPT_ENCODING,
    DEFAULT_DEADLINE,
    DEFAULT_MAX_RESPONSE_BYTES,
    MAX_REDIRECTS,
    BodyReader,
    TooLarge,
    UnsupportedEncoding,
    current_deadline,
    same_origin,
    time_left,
)
from textsearch._http._guards import deadline_scope as _deadline_scope

__all__ = [
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DeadlineExceeded",
    "ResponseTooLarge",
    "current_tokens",
    "deadline_scope",
    "deadline_watch",
    "default_transport",
    "guard_injected_client",
    "guarded_transport",
    "in_search",
    "redirect_policy",
    "remaining",
    "same_origin",
]

_IN_FLIGHT: ContextVar[list[Any] | None] = ContextVar("textsearch_azure_in_flight", default=None)
# The size cap of the running search, and where the bearer tokens it sends are recorded (so
# that whatever the service echoes back can be scrubbed). Set per search, so that a transport
# wrapped into a caller's own client applies the cap of the connector using it right now.
_MAX_BYTES: ContextVar[int | None] = ContextVar("textsearch_azure_max_bytes", default=None)
_TOKENS: ContextVar[Any] = ContextVar("textsearch_azure_tokens", default=None)


class ResponseTooLarge(TooLarge):
    """A response body grew past the cap (raised inside the pipeline, mapped by the connector)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"response body larger than {limit} bytes")
        self.limit = limit


class DeadlineExceeded(Exception):
    """The search's deadline passed before an attempt could start or finish."""


def remaining() -> float | None:
    """Seconds left before the current search's deadline (``None``: no deadline set)."""
    deadline = current_deadline()
    return None if deadline is None else time_left(deadline)


@contextlib.contextmanager
def deadline_scope(
    seconds: float, *, max_bytes: int | None = None, tokens: Any = None
) -> Iterator[float]:
    """Set the deadline of the search running in this context; yields the monotonic deadline.

    Args:
        seconds: The search's total deadline.
        max_bytes: Its size cap (applied by any guarded transport, an injected client's too).
        tokens: A collection with an ``append`` method that receives every bearer token the
            search sends (kept by the connector to scrub echoes; never logged).
    """
    cap = _MAX_BYTES.set(max_bytes)
    sink = _TOKENS.set(tokens)
    try:
        with _deadline_scope(time.monotonic() + seconds) as deadline:
            yield deadline
    finally:
        _TOKENS.reset(sink)
        _MAX_BYTES.reset(cap)


def in_search() -> bool:
    """Whether a search of the connector runs in this context."""
    return current_deadline() is not None


def current_tokens() -> Any:
    """The bearer tokens the search in this context sent so far (``None`` outside a search)."""
    return _TOKENS.get()


def _capture_token(request: Any) -> None:
    # The transport sees the request as it leaves, after the bearer-token policy set the
    # Authorization header: whatever token was sent on this attempt is recorded, even one
    # the credential refreshed since the previous attempt.
    sink = _TOKENS.get()
    if sink is None:
        return
    headers = getattr(request, "headers", None)
    value = headers.get("Authorization") if headers is not None else None
    if isinstance(value, str):
        scheme, _, token = value.strip().partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token and token not in sink:
            sink.append(token)


def _check_deadline() -> None:
    left = remaining()
    if left is not None and left <= 0:
        raise DeadlineExceeded("deadline passed")


_REDIRECT_CLASSES: dict[bool, Any] = {}


def redirect_policy(is_async: bool) -> Any:
    """A redirect policy that follows redirects within the request's origin only."""
    cls = _REDIRECT_CLASSES.get(is_async)
    if cls is None:
        from azure.core.pipeline.policies import AsyncRedirectPolicy, RedirectPolicy

        base: Any = AsyncRedirectPolicy if is_async else RedirectPolicy

        class _SameOriginRedirectPolicy(base):  # type: ignore[misc]
            """azure-core's policy, except that another origin's location is not followed.

            The authentication policy sits below the redirect policy and adds the key to
            every request it sends, the redirected one included; stripping headers here
            would not help, so a cross-origin location ends the redirect chain and the
            3xx response is returned as is (the SDK raises it as an HTTP error).
            """

            _textsearch_same_origin = True

            def get_redirect_location(self, response: Any) -> Any:
                location = super().get_redirect_location(response)
                if not location:
                    return location
                current = response.http_request.url
                target = location if urlsplit(location).netloc else current
                if not same_origin(current, target):
                    return False
                return location

        cls = _SameOriginRedirectPolicy
        _REDIRECT_CLASSES[is_async] = cls
    return cls(redirect_max=MAX_REDIRECTS)


def _mark_read(response: Any, data: bytes) -> None:
    # azure-core's rest responses keep the body in ``_content``; the aiohttp one decompresses
    # ``_content`` again unless told that it already holds decompressed bytes.
    response._content = data
    if hasattr(response, "_decompressed_content"):
        response._decompressed_content = True
    if hasattr(response, "_is_stream_consumed"):
        response._is_stream_consumed = True


def _readable_error_body(status: int, data: bytes) -> bytes:
    """An error body the SDK can parse: one nested past the JSON parser's depth is replaced.

    azure-core parses an error body while building its exception and lets the parser's
    ``RecursionError`` escape, which would lose the status; the replacement keeps it.
    """
    if status < 400 or not data:
        return data
    try:
        json.loads(data)
    except RecursionError:
        return b'{"error":{"code":"","message":"(error body nested too deeply to read)"}}'
    except ValueError:
        pass
    return data


def _as_transport_error(exc: BaseException, max_bytes: int) -> BaseException:
    """A broken body read as the transport failure it is (retried, then reported as one).

    While streaming, azure-core reports a connection reset as a bare ``HttpResponseError``
    (requests) or an ``IncompleteReadError`` (aiohttp), which read like answers of the
    service; the retry policy and the error mapping need a ``ServiceResponseError``. The
    body reader's own refusals become what the connector maps: the cap, or a body that
    cannot be decoded.
    """
    from azure.core.exceptions import (
        DecodeError,
        HttpResponseError,
        IncompleteReadError,
        ServiceResponseError,
    )

    if isinstance(exc, TooLarge):
        return exc if isinstance(exc, ResponseTooLarge) else ResponseTooLarge(max_bytes)
    if isinstance(exc, (zlib.error, UnsupportedEncoding)):
        return DecodeError(f"the answer's body could not be decoded ({type(exc).__name__})")

    if isinstance(exc, IncompleteReadError) or (
        isinstance(exc, HttpResponseError)
        and exc.status_code is None
        and not isinstance(exc, DecodeError)
    ):
        return ServiceResponseError(
            f"the connection broke while the answer was read ({type(exc).__name__})"
        )
    return exc


def _ask_bounded_encodings(request: Any) -> None:
    # Only what the body reader can inflate with a bounded output (requests would also
    # offer br or zstd when their packages are installed).
    headers = getattr(request, "headers", None)
    if headers is not None:
        headers["Accept-Encoding"] = ACCEPT_ENCODING


def _body_reader(response: Any, cap: int) -> BodyReader:
    headers = response.headers
    reader = BodyReader(cap, headers.get("Content-Encoding"))
    reader.check_declared(headers.get("Content-Length"))
    return reader


def _attempt_kwargs(inner: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Per-attempt options: no single phase may outlast the deadline either."""
    left = remaining()
    if left is not None:
        config = getattr(inner, "connection_config", None)
        defaults = {
            "connection_timeout": getattr(config, "timeout", None),
            "read_timeout": getattr(config, "read_timeout", None),
        }
        for name, default in defaults.items():
            value = kwargs.get(name, default)
            if isinstance(value, (int, float)) and value > left:
                kwargs[name] = max(left, 0.001)
    return kwargs


def _guarded_transport_classes() -> tuple[type[Any], type[Any]]:
    from azure.core.pipeline.transport import AsyncHttpTransport, HttpTransport

    async_base: Any = AsyncHttpTransport
    sync_base: Any = HttpTransport

    class _GuardedAsync(async_base):  # type: ignore[misc]
        _textsearch_guard = True

        def __init__(self, inner: Any, max_bytes: int | None) -> None:
            self.inner = inner
            self.max_bytes = max_bytes

        async def __aenter__(self) -> Any:
            await self.inner.__aenter__()
            return self

        async def __aexit__(self, *args: Any) -> None:
            await self.inner.__aexit__(*args)

        async def open(self) -> None:
            await self.inner.open()

        async def close(self) -> None:
            await self.inner.close()

        async def sleep(self, duration: float) -> None:
            left = remaining()
            if left is not None and duration >= left:
                raise DeadlineExceeded("the wait before the next attempt outlasts the deadline")
            await self.inner.sleep(duration)

        async def send(self, request: Any, **kwargs: Any) -> Any:
            _capture_token(request)
            max_bytes = _MAX_BYTES.get() or self.max_bytes
            if not in_search() and max_bytes is None:
                # A caller's own client used outside the connector: exactly as before.
                return await self.inner.send(request, **kwargs)
            _check_deadline()
            stream = kwargs.pop("stream", False)
            if not stream:
                _ask_bounded_encodings(request)
            response = await self.inner.send(
                request, stream=True, **_attempt_kwargs(self.inner, kwargs)
            )
            if stream:
                return response
            cap = max_bytes or DEFAULT_MAX_RESPONSE_BYTES
            try:
                reader = _body_reader(response, cap)
                async for chunk in response.iter_raw():
                    reader.feed(chunk)
                body = reader.finish()
            except BaseException as exc:
                await response.close()
                raise _as_transport_error(exc, cap) from None
            _mark_read(response, _readable_error_body(response.status_code, body))
            return response

    class _Guarded(sync_base):  # type: ignore[misc]
        _textsearch_guard = True

        def __init__(self, inner: Any, max_bytes: int | None) -> None:
            self.inner = inner
            self.max_bytes = max_bytes

        def __enter__(self) -> Any:
            self.inner.__enter__()
            return self

        def __exit__(self, *args: Any) -> None:
            self.inner.__exit__(*args)

        def open(self) -> None:
            self.inner.open()

        def close(self) -> None:
            self.inner.close()

        def sleep(self, duration: float) -> None:
            left = remaining()
            if left is not None and duration >= left:
                raise DeadlineExceeded("the wait before the next attempt outlasts the deadline")
            self.inner.sleep(duration)

        def send(self, request: Any, **kwargs: Any) -> Any:
            _capture_token(request)
            max_bytes = _MAX_BYTES.get() or self.max_bytes
            if not in_search() and max_bytes is None:
                return self.inner.send(request, **kwargs)
            _check_deadline()
            if _IN_FLIGHT.get() is not None:
                track_requests_transport(self.inner)
            stream = kwargs.pop("stream", False)
            if not stream:
                _ask_bounded_encodings(request)
            response = self.inner.send(request, stream=True, **_attempt_kwargs(self.inner, kwargs))
            if stream:
                return response
            cap = max_bytes or DEFAULT_MAX_RESPONSE_BYTES
            try:
                reader = _body_reader(response, cap)
                for chunk in response.iter_raw():
                    reader.feed(chunk)
                    _check_deadline()
                body = reader.finish()
            except BaseException as exc:
                response.close()
                raise _as_transport_error(exc, cap) from None
            _mark_read(response, _readable_error_body(response.status_code, body))
            return response

    return _GuardedAsync, _Guarded


_TRANSPORT_CLASSES: list[tuple[type[Any], type[Any]]] = []


def guarded_transport(inner: Any, *, is_async: bool, max_bytes: int | None) -> Any:
    """Wrap ``inner`` (an azure-core transport) with the size cap and the deadline checks.

    ``max_bytes=None``: the cap comes from the running search (`deadline_scope`), and
    outside a search every request passes through untouched (a caller's own client).
    """
    if not _TRANSPORT_CLASSES:
        _TRANSPORT_CLASSES.append(_guarded_transport_classes())
    async_cls, sync_cls = _TRANSPORT_CLASSES[0]
    return (async_cls if is_async else sync_cls)(inner, max_bytes)


def default_transport(*, is_async: bool, timeout: float) -> Any:
    """The transport azure-core would pick (aiohttp / requests), built here so it can be wrapped.

    The blocking one gets a requests session whose connections are registered with the
    running search, so that `deadline_watch` can shut them down.
    """
    if is_async:
        from azure.core.pipeline.transport import AioHttpTransport

        return AioHttpTransport(connection_timeout=timeout, read_timeout=timeout)
    from azure.core.pipeline.transport import RequestsTransport

    return RequestsTransport(
        session=_tracking_session(), connection_timeout=timeout, read_timeout=timeout
    )


def _tracking_session() -> Any:
    import requests
    from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
    from urllib3.util.retry import Retry

    base_adapter: Any
    try:  # the adapter azure-core mounts itself (larger read blocks)
        from azure.core.pipeline.transport._bigger_block_size_http_adapters import (
            BiggerBlockSizeHTTPAdapter,
        )

        base_adapter = BiggerBlockSizeHTTPAdapter
    except ImportError:  # pragma: no cover - another azure-core layout
        from requests.adapters import HTTPAdapter

        base_adapter = HTTPAdapter

    from urllib3.connection import HTTPConnection, HTTPSConnection

    # The sockets themselves are registered: http.client lets go of a connection's socket
    # once it has the headers of an answer that closes the connection, and the body is then
    # read through the socket alone.
    def _register(sock: Any) -> None:
        in_flight = _IN_FLIGHT.get()
        if in_flight is not None and sock is not None:
            in_flight.append(sock)

    class _Conn(HTTPConnection):
        def connect(self) -> None:
            super().connect()
            _register(self.sock)

    class _TlsConn(HTTPSConnection):
        def connect(self) -> None:
            super().connect()
            _register(self.sock)

    class _Pool(HTTPConnectionPool):
        ConnectionCls = _Conn

        def _get_conn(self, timeout: float | None = None) -> Any:
            conn = super()._get_conn(timeout)
            _register(getattr(conn, "sock", None))  # a kept-alive connection, reused
            return conn

    class _TlsPool(HTTPSConnectionPool):
        ConnectionCls = _TlsConn

        def _get_conn(self, timeout: float | None = None) -> Any:
            conn = super()._get_conn(timeout)
            _register(getattr(conn, "sock", None))
            return conn

    class _Adapter(base_adapter):  # type: ignore[misc]
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = {"http": _Pool, "https": _TlsPool}

    session = requests.Session()
    session._textsearch_tracking = True  # type: ignore[attr-defined]  # registers by itself
    # As azure-core configures its own session: retries and redirects belong to the pipeline.
    adapter = _Adapter(max_retries=Retry(total=False, redirect=False, raise_on_status=False))
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def _register_conn(conn: Any) -> None:
    """Register a pooled urllib3 connection with the running search (now or once connected)."""
    in_flight = _IN_FLIGHT.get()
    if in_flight is None:
        return
    sock = getattr(conn, "sock", None)
    if sock is not None:
        in_flight.append(sock)  # a kept-alive connection, reused
        return
    if getattr(conn, "_textsearch_tracked", False):
        return
    connect = conn.connect

    def tracked_connect(*args: Any, **kwargs: Any) -> Any:
        result = connect(*args, **kwargs)
        registered = _IN_FLIGHT.get()
        if registered is not None and getattr(conn, "sock", None) is not None:
            registered.append(conn.sock)
        return result

    conn.connect = tracked_connect
    conn._textsearch_tracked = True


def _track_pool(pool: Any) -> None:
    if getattr(pool, "_textsearch_tracked", False) or not hasattr(pool, "_get_conn"):
        return
    get_conn = pool._get_conn

    def tracked_get_conn(timeout: float | None = None) -> Any:
        conn = get_conn(timeout)
        _register_conn(conn)
        return conn

    pool._get_conn = tracked_get_conn
    pool._textsearch_tracked = True


def track_requests_transport(transport: Any) -> None:
    """Let `deadline_watch` see the sockets of a caller's own ``RequestsTransport``.

    The connector cannot interrupt a blocked read on a socket it does not know. For a
    caller's transport it wraps, on the pool manager and pools of that transport's own
    session (instance attributes, nothing global), the step that hands out a connection:
    during a blocking search of the connector the connection's socket is registered with
    the watchdog; at any other time the wrappers do nothing. Connections through a proxy
    (``ProxyManager``) and transports that are not requests-based are not covered.
    """
    session = getattr(transport, "session", None)
    if session is None and callable(getattr(transport, "open", None)):
        transport.open()
        session = getattr(transport, "session", None)
    adapters = getattr(session, "adapters", None)
    if not adapters or getattr(session, "_textsearch_tracking", False):
        return
    for adapter in list(adapters.values()):
        manager = getattr(adapter, "poolmanager", None)
        if manager is None or getattr(manager, "_textsearch_tracked", False):
            continue
        pool_for = getattr(manager, "connection_from_pool_key", None)
        if pool_for is None:
            continue

        def tracked_pool_for(*args: Any, _pool_for: Any = pool_for, **kwargs: Any) -> Any:
            pool = _pool_for(*args, **kwargs)
            _track_pool(pool)
            return pool

        manager.connection_from_pool_key = tracked_pool_for
        manager._textsearch_tracked = True


@contextlib.contextmanager
def deadline_watch() -> Iterator[None]:
    """Shut down the connections of the blocking search in this context at its deadline."""
    left = remaining()
    if left is None:
        yield
        return
    conns: list[Any] = []
    token = _IN_FLIGHT.set(conns)
    fired = threading.Event()

    def _cut() -> None:
        fired.set()
        for sock in list(conns):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(max(left, 0.0), _cut)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        _IN_FLIGHT.reset(token)


def _find_pipeline(client: Any) -> Any:
    """The azure-core ``Pipeline`` of an SDK client (``SearchClient._client._pipeline``)."""
    node = client
    for _ in range(4):
        pipeline = getattr(node, "_pipeline", None)
        if pipeline is not None and hasattr(pipeline, "_transport"):
            return pipeline
        node = getattr(node, "_client", None)
        if node is None:
            return None
    return None


def guard_injected_client(client: Any, *, is_async: bool) -> bool:
    """Slip the guarded transport under a caller's own SDK client; ``False`` if not possible.

    azure-core takes no per-call transport and reads a body completely before any per-call
    hook runs, so the size cap, the deadline checks and the token capture can only sit in
    the transport. The caller's transport stays inside the wrapper, and outside the
    connector's searches the wrapper passes every request through unchanged, so the client
    behaves for the caller exactly as before. Done once per client (idempotent).
    """
    pipeline = _find_pipeline(client)
    if pipeline is None:
        return False
    current = pipeline._transport
    if getattr(current, "_textsearch_guard", False):
        return True
    runners = [
        p
        for p in getattr(pipeline, "_impl_policies", []) or []
        if getattr(getattr(p, "next", None), "_sender", None) is current
    ]
    wrapped = guarded_transport(current, is_async=is_async, max_bytes=None)
    pipeline._transport = wrapped
    for policy in runners:
        policy.next._sender = wrapped
    return True
