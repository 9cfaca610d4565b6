"""The plugin's MCP server over Streamable HTTP (``textsearch mcp ... --http HOST:PORT``).

Stateless (every POST to ``/mcp`` is answered on its own, no session is kept), so several
servers can stand behind a load balancer and the next spec revision costs little. What a
request must get past, in order:

* the path: ``/mcp`` only (404);
* Origin: when a browser sends one, it must be allowed (403): the loopback origins for a
  loopback server, else only those given; DNS rebinding cannot reach a local server;
* the bearer token, when one is set (401 with ``WWW-Authenticate: Bearer``): compared in
  constant time, never logged. A server bound to anything but loopback refuses to start
  without one;
* the size: a body over ``max_body_bytes`` is refused (413);
* concurrency: at most ``max_concurrency`` requests at once; more get 503 at once.

SIGINT and SIGTERM stop it gracefully: no new connection, requests in flight finish (up to
``shutdown_timeout`` seconds).
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textsearch.errors import ConfigurationError

if TYPE_CHECKING:
    from textsearch.plugins._plugin import SearchPlugin

__all__ = ["MCP_PATH", "TOKEN_ENV", "build_app", "is_loopback", "parse_address", "serve_http"]

MCP_PATH = "/mcp"
#: The environment variable read for the bearer token when none is given.
TOKEN_ENV = "TEXTSEARCH_MCP_TOKEN"
DEFAULT_MAX_BODY_BYTES = 1024 * 1024
DEFAULT_MAX_CONCURRENCY = 32
_LOOPBACK_ORIGINS = ("http://127.0.0.1", "http://localhost", "http://[::1]")


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback name or address (only this machine can connect)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_address(address: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8000`` for IPv6) as ``(host, port)``.

    Raises:
        ConfigurationError: Not a host and a port from 1 to 65535.
    """
    host, sep, port_text = address.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ConfigurationError(
            f"--http expects HOST:PORT (for example 127.0.0.1:8000), got {address!r}"
        )
    return host, int(port_text)


def _origin_allowed(origin: str, allowed: Sequence[str], loopback: bool) -> bool:
    origin = origin.rstrip("/").lower()
    if origin in allowed:
        return True
    if loopback:
        for base in _LOOPBACK_ORIGINS:
            port = origin[len(base) + 1 :]
            if origin == base or (origin.startswith(base + ":") and port.isdigit()):
                return True
    return False


class _Guard:
    """The ASGI app in front of the MCP transport: path, Origin, token, size, concurrency."""

    def __init__(
        self,
        inner: Callable[..., Any],
        *,
        token: str | None,
        origins: Sequence[str],
        loopback: bool,
        max_body_bytes: int,
        max_concurrency: int,
    ) -> None:
        self._inner = inner
        self._expected = f"Bearer {token}".encode() if token else None
        self._origins = [o.rstrip("/").lower() for o in origins]
        self._loopback = loopback
        self._max_body = max_body_bytes
        self._max_concurrency = max_concurrency
        self._in_flight = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = {k.lower(): v for k, v in scope.get("headers", ())}
        if scope.get("path") != MCP_PATH:
            await _reply(send, 404, "Not found: the MCP endpoint is /mcp")
            return
        origin = headers.get(b"origin")
        if origin is not None and not _origin_allowed(
            origin.decode("latin-1"), self._origins, self._loopback
        ):
            await _reply(send, 403, "Forbidden origin")
            return
        if self._expected is not None:
            given = headers.get(b"authorization", b"")
            # compare_digest: the time taken does not tell how much of the token was right
            if not hmac.compare_digest(given, self._expected):
                await _reply(send, 401, "Missing or wrong bearer token", bearer=True)
                return
        length = headers.get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self._max_body):
            await _reply(send, 413, "Request body too large")
            return
        if self._in_flight >= self._max_concurrency:
            await _reply(send, 503, "Too many requests at once; retry shortly", retry=True)
            return
        self._in_flight += 1
        try:
            await self._inner(scope, receive, send)
        finally:
            self._in_flight -= 1


async def _reply(
    send: Any, status: int, text: str, *, bearer: bool = False, retry: bool = False
) -> None:
    headers = [(b"content-type", b"text/plain; charset=utf-8")]
    if bearer:
        headers.append((b"www-authenticate", b'Bearer realm="textsearch"'))
    if retry:
        headers.append((b"retry-after", b"1"))
    body = text.encode()
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def build_app(
    plugin: SearchPlugin,
    host: str,
    *,
    token: str | None = None,
    allowed_origins: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
) -> Any:
    """The ASGI app (with its lifespan) serving the plugin's MCP server at ``/mcp``.

    Raises:
        ConfigurationError: ``host`` is not loopback and no token is set.
        ImportError: ``mcp`` (2.x) is not installed.
    """
    loopback = is_loopback(host)
    if not token and not loopback:
        raise ConfigurationError(
            f"serving MCP on {host} (not loopback) needs a bearer token: pass --token "
            f"or set {TOKEN_ENV} (clients then send 'Authorization: Bearer <token>')"
        )
    from contextlib import asynccontextmanager

    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    from textsearch.plugins._mcp import build_server

    server = build_server(plugin)
    # The Origin check is ours (_Guard); the SDK's Host check is kept for loopback, where
    # it is what stops DNS rebinding.
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=loopback,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
    )
    manager = StreamableHTTPSessionManager(
        app=server,
        stateless=True,
        json_response=True,
        security_settings=security,
        max_request_body_size=max_body_bytes,
    )
    guard = _Guard(
        manager.handle_request,
        token=token,
        origins=allowed_origins,
        loopback=loopback,
        max_body_bytes=max_body_bytes,
        max_concurrency=max_concurrency,
    )

    @asynccontextmanager
    async def lifespan(app: Any) -> Any:
        async with manager.run():
            yield

    return Starlette(
        routes=[Route(MCP_PATH, endpoint=guard, methods=["GET", "POST", "DELETE"])],
        lifespan=lifespan,
    )


async def serve_http(
    plugin: SearchPlugin,
    host: str,
    port: int,
    *,
    token: str | None = None,
    allowed_origins: Sequence[str] = (),
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    shutdown_timeout: float = 10.0,
) -> None:
    """Serve the plugin over Streamable HTTP until SIGINT or SIGTERM.

    ``token`` defaults to the ``TEXTSEARCH_MCP_TOKEN`` environment variable.

    Raises:
        ConfigurationError: ``host`` is not loopback and no token is set.
        ImportError: ``mcp`` (2.x) is not installed.
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV) or None
    app = build_app(
        plugin,
        host,
        token=token,
        allowed_origins=allowed_origins,
        max_body_bytes=max_body_bytes,
        max_concurrency=max_concurrency,
    )
    import uvicorn

    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,  # request lines only, but nothing here needs them
        timeout_graceful_shutdown=max(1, round(shutdown_timeout)),
        # the transport's own bound; ours (503) answers before it is reached
        limit_concurrency=max_concurrency * 4,
        h11_max_incomplete_event_size=64 * 1024,
        server_header=False,
    )
    await uvicorn.Server(config).serve()
