"""The plugin's MCP server over Streamable HTTP (stateless), on the official ``mcp`` package.

One endpoint, ``/mcp``, served by uvicorn (installed with ``mcp``). In front of the ``mcp``
transport, a small ASGI guard:

* **Origin**: a browser sends ``Origin`` on cross-origin requests; the MCP specification asks
  servers to check it (DNS rebinding). A request without ``Origin`` (every non-browser
  client) passes; with one, it passes only when it is a loopback origin and the server is
  bound to loopback, or when it is the server's own origin (scheme, host and port of the
  request's ``Host``). Anything else is ``403``.
* **Bearer token**: when a token is set, ``Authorization: Bearer <token>`` must carry it
  (compared in constant time), else ``401`` with ``WWW-Authenticate: Bearer``. The token is
  never logged nor echoed.
* **Bounds**: request bodies above ``max_body_bytes`` are ``413``; a body not received
  within ``body_timeout`` seconds is ``408``; more than ``max_concurrency`` requests in
  flight are ``503``, and so are more than ``max_requests_per_client`` from one address.
* **Connections**: a connection must send its request line and headers within
  ``header_timeout`` seconds (before its first request as between requests), else it is
  closed; one client address holds at most ``max_connections_per_client`` connections
  (more are closed at once). Idle or half-sent connections therefore never lock real
  clients out. On a loopback bind every local client shares one address: the caps bound
  what one local process can hold, the timeouts free what it leaves idle.
* **No standing streams**: ``GET /mcp`` (the optional stream of server-initiated messages)
  is ``405``, as the specification allows: a stateless server has nothing to send on it,
  the official clients open it only for a session, and a stream held open would keep a
  request slot forever.

Stateless means no session is kept between requests: any replica behind a load balancer
can answer any request.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from textsearch.plugins._tool_types import McpPlugin as SearchPlugin

__all__ = [
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_HEADER_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_CONCURRENCY",
    "DEFAULT_MAX_CONNECTIONS_PER_CLIENT",
    "MCP_PATH",
    "HttpGuardSettings",
    "build_http_app",
    "is_loopback",
    "serve_http",
]

#: The one path of the endpoint.
MCP_PATH = "/mcp"
#: Largest request body accepted (a tool call is a few hundred bytes).
DEFAULT_MAX_BODY_BYTES = 1_000_000
#: Requests handled at once; more are answered 503 at once.
DEFAULT_MAX_CONCURRENCY = 32
#: Seconds a connection has to send a request's line and headers (a client sends them at once).
DEFAULT_HEADER_TIMEOUT = 10.0
#: Seconds a request has to send its body once its headers are in.
DEFAULT_BODY_TIMEOUT = 30.0
#: Connections one client address may hold at once.
DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 16


@dataclass(frozen=True)
class HttpGuardSettings:
    """What the guard enforces besides the Origin check (see the module docs).

    Attributes:
        token: The bearer token every request must carry; ``None`` for none (loopback only).
        max_body_bytes: Largest request body accepted.
        max_concurrency: Requests handled at once.
        header_timeout: Seconds a connection has to send a request's line and headers.
        body_timeout: Seconds a request has to send its body.
        max_connections_per_client: Connections one client address may hold.
        max_requests_per_client: Requests of one client address handled at once (``None``:
            half of ``max_concurrency``, at least 1).
    """

    token: str | None = field(default=None, repr=False)
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_connections_per_client: int = DEFAULT_MAX_CONNECTIONS_PER_CLIENT
    max_requests_per_client: int | None = None

    def per_client_requests(self) -> int:
        """The effective ``max_requests_per_client``."""
        if self.max_requests_per_client is not None:
            return self.max_requests_per_client
        return max(1, self.max_concurrency // 2)


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is loopback."""
    name = host.strip().strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


async def _reply(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]]) -> None:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _Guard:
    """Origin, token and concurrency checks in front of the ``mcp`` transport."""

    def __init__(
        self, app: ASGIApp, *, token: str | None, loopback: bool, settings: HttpGuardSettings
    ) -> None:
        self._app = app
        self._token = token.encode() if token else None
        self._loopback = loopback
        self._max = settings.max_concurrency
        self._max_per_client = settings.per_client_requests()
        self._max_body = settings.max_body_bytes
        self._body_timeout = settings.body_timeout
        self._busy = 0
        self._by_client: dict[str, int] = {}

    def _origin_ok(self, scope: Scope) -> bool:
        origin = _header(scope, b"origin")
        if origin is None:
            return True
        try:
            parts = urlsplit(origin)
            host = parts.hostname
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not host:
            return False
        if self._loopback and is_loopback(host):
            return True
        # The server's own origin (a page it served, or a proxy in front of it).
        return parts.netloc.lower() == (_header(scope, b"host") or "").lower()

    def _token_ok(self, scope: Scope) -> bool:
        if self._token is None:
            return True
        given = _header(scope, b"authorization") or ""
        scheme, _, value = given.partition(" ")
        # compare_digest on bytes of any length: no timing hint of the token's prefix.
        return scheme.lower() == "bearer" and hmac.compare_digest(
            value.strip().encode("latin-1", "replace"), self._token
        )

    async def _read_body(self, receive: Receive) -> bytes | int:
        """The whole body within ``body_timeout``, or the status to refuse it with."""
        import anyio

        chunks: list[bytes] = []
        size = 0
        with anyio.move_on_after(self._body_timeout):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return 400
                chunk = bytes(message.get("body", b""))
                size += len(chunk)
                if size > self._max_body:
                    return 413
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
        return 408

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan
            await self._app(scope, receive, send)
            return
        if scope.get("path") not in (MCP_PATH, MCP_PATH + "/"):
            await _reply(send, 404, f"Not found: the MCP endpoint is {MCP_PATH}", [])
            return
        if not self._origin_ok(scope):
            await _reply(send, 403, "Forbidden: this Origin may not use the MCP server", [])
            return
        if not self._token_ok(scope):
            await _reply(
                send,
                401,
                "Unauthorized: send Authorization: Bearer <token>",
                [(b"www-authenticate", b'Bearer realm="textsearch-mcp"')],
            )
            return
        if scope.get("method") == "GET":
            await _reply(
                send,
                405,
                "Method not allowed: this stateless server opens no stream; POST requests",
                [(b"allow", b"POST, DELETE")],
            )
            return
        client = str((scope.get("client") or ("",))[0])
        if self._busy >= self._max or self._by_client.get(client, 0) >= self._max_per_client:
            await _reply(
                send,
                503,
                "Busy: too many requests at once, retry shortly",
                [(b"retry-after", b"1")],
            )
            return
        self._busy += 1
        self._by_client[client] = self._by_client.get(client, 0) + 1
        try:
            body = await self._read_body(receive)
            if isinstance(body, int):
                if body != 400:  # 400: the client went away; nobody reads an answer
                    reason = {408: "the body was not sent in time", 413: "the body is too large"}
                    await _reply(send, body, f"Request refused: {reason[body]}", [])
                return
            if scope.get("path") != MCP_PATH:
                scope = {**scope, "path": MCP_PATH, "raw_path": MCP_PATH.encode()}
            await self._app(scope, _replay(body, receive), send)
        finally:
            self._busy -= 1
            left = self._by_client.pop(client, 1) - 1
            if left:
                self._by_client[client] = left


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read already, then waits for the disconnect."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def build_http_app(
    plugin: SearchPlugin, *, host: str, settings: HttpGuardSettings | None = None
) -> ASGIApp:
    """The ASGI application serving ``plugin`` at ``/mcp``, guarded as the module says.

    Raises:
        ImportError: ``mcp`` (2.x) is not installed.
        ConfigurationError: No token while ``host`` is not loopback, or a bound below 1.
    """
    from textsearch.errors import ConfigurationError
    from textsearch.plugins._mcp import build_server

    settings = settings or HttpGuardSettings()
    loopback = is_loopback(host)
    if not settings.token and not loopback:
        raise ConfigurationError(
            f"serving MCP on {host} (not loopback) needs a bearer token: pass --token or set "
            "TEXTSEARCH_MCP_TOKEN"
        )
    bounds = (
        settings.max_body_bytes,
        settings.max_concurrency,
        settings.max_connections_per_client,
        settings.per_client_requests(),
    )
    if min(bounds) < 1 or not min(settings.header_timeout, settings.body_timeout) > 0:
        raise ConfigurationError(
            "max_body_bytes, max_concurrency and the per-client limits must be at least 1, "
            "the timeouts above 0"
        )
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(plugin)
    # Host checking (DNS rebinding) where the server is reachable only as loopback; on
    # other binds the Host is whatever the proxy or the network calls it, and the token
    # guards the door. Origin is checked by the guard either way.
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=loopback,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost"],
        allowed_origins=[],
    )
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        json_response=True,
        stateless_http=True,
        max_request_body_size=settings.max_body_bytes,
        transport_security=security,
        host=host,
    )
    # The guard has checked Origin; the transport's own check would refuse every Origin
    # left in its empty allow-list, so it sees none.
    strip = _StripOrigin(inner) if loopback else inner
    return _Guard(strip, token=settings.token, loopback=loopback, settings=settings)


class _StripOrigin:
    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = [(k, v) for k, v in scope.get("headers", ()) if k.lower() != b"origin"]
            scope = {**scope, "headers": headers}
        await self._app(scope, receive, send)


def _protocol_class(settings: HttpGuardSettings) -> type[Any]:
    """uvicorn's h11 protocol with a header deadline and a cap of connections per address.

    uvicorn times out a connection only once it has answered a request on it (keep-alive);
    a connection that never finishes its first request line would be held forever, and
    every one held counts against ``limit_concurrency``.
    """
    from uvicorn.protocols.http.h11_impl import H11Protocol

    per_client: dict[str, int] = {}
    limit = settings.max_connections_per_client
    header_timeout = settings.header_timeout

    class Protocol(H11Protocol):
        _address = ""
        _counted = False
        _header_timer: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._address = str(self.client[0]) if self.client else ""
            held = per_client.get(self._address, 0)
            if held >= limit:
                transport.close()  # connection_lost follows: nothing is counted for it
                return
            per_client[self._address] = held + 1
            self._counted = True
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._counted:
                self._counted = False
                left = per_client.pop(self._address, 1) - 1
                if left:
                    per_client[self._address] = left
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            if before is None or before.response_complete:
                self._arm()  # waiting for a request's headers (the first or the next)
            super().data_received(data)
            if self.cycle is not before:
                self._disarm()  # the headers are in: the guard bounds the rest

        def _arm(self) -> None:
            if self._header_timer is None and self._counted:
                self._header_timer = self.loop.call_later(header_timeout, self._too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

    return Protocol


def _server_class() -> type[Any]:
    import contextlib
    import signal
    import threading
    from collections.abc import Iterator

    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, whose SIGINT/SIGTERM stop it gracefully and then return.

        uvicorn raises the signal again once stopped, which kills the process before the
        search is closed (SIGTERM) or prints a traceback (SIGINT); the command line ends
        with its own exit code instead.
        """

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            if threading.current_thread() is not threading.main_thread():
                yield
                return

            def stop(sig: int, frame: Any) -> None:
                if self.should_exit and sig == signal.SIGINT:
                    self.force_exit = True  # a second Ctrl-C: do not wait for requests
                self.should_exit = True

            wanted = (signal.SIGINT, signal.SIGTERM)
            originals = {sig: signal.signal(sig, stop) for sig in wanted}
            try:
                yield
            finally:
                for sig, handler in originals.items():
                    signal.signal(sig, handler)

    return Server


def serve_http(
    plugin: SearchPlugin, host: str, port: int, settings: HttpGuardSettings | None = None
) -> None:
    """Serve the plugin over Streamable HTTP at ``http://host:port/mcp`` until SIGINT/SIGTERM.

    On either signal the server stops accepting connections, lets the requests in flight
    finish (up to 10 seconds) and returns.

    Raises:
        ImportError: ``mcp`` (2.x) is not installed.
        ConfigurationError: No token while ``host`` is not loopback, or a bound below 1.
        OSError: The address cannot be bound.
    """
    settings = settings or HttpGuardSettings()
    app = build_http_app(plugin, host=host, settings=settings)
    import uvicorn

    _Server = _server_class()
    connections = settings.max_concurrency * 2 + 8  # a backstop behind the guard
    config = uvicorn.Config(
        app,
        host=host.strip("[]"),
        port=port,
        lifespan="on",
        access_log=False,  # request lines are not needed, and nothing about callers is kept
        log_level="warning",
        limit_concurrency=connections,
        timeout_graceful_shutdown=10,
        server_header=False,
        http=_protocol_class(settings),
    )
    server = _Server(config)
    server.run()
    if not server.started:
        raise OSError(f"could not serve MCP on {host}:{port}")
