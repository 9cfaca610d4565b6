"""The httpx transports (the default), client construction and the blocking path's deadline.

``httpx``'s read timeout restarts with every byte, so a server that drips one byte per
second keeps a blocking call alive forever. The async path cancels at the deadline; a
blocking call cannot be cancelled, so the deadline has to reach the socket itself: each
pool used by a blocking client gets a network backend whose streams shrink every connect,
read and write timeout to the time left before the deadline of the search running in the
current thread (and fail at once past it). Outside a search (``deadline`` unset in this
thread) the wrapper passes the caller's timeouts through unchanged, so arming an injected
client changes nothing for its other users.
"""

from __future__ import annotations

import os
import ssl
import time
import urllib.parse
import urllib.request
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Final, Generic, TypeVar
from urllib.parse import urlencode

import httpx

from textsearch._http._guards import (
    ACCEPT_ENCODING,
    REDIRECT_STATUSES,
    BodyReader,
    TooLarge,
    cap_timeout,
    current_deadline,
    deadline_scope,
)
from textsearch._http._transports.base import Answer, HttpRequest, StatusSink
from textsearch._version import user_agent
from textsearch.errors import ConfigurationError

__all__ = [
    "DEFAULT_LIMITS",
    "HttpxAsyncTransport",
    "HttpxSyncTransport",
    "VerifyTypes",
    "arm_sync_client",
    "current_deadline",
    "deadline_scope",
    "make_async_client",
    "make_ssl_context",
    "make_sync_client",
]

#: A pool capped near 10 connections costs less per request under concurrency than httpx's
#: default (100): fewer connections to juggle, better keep-alive reuse (bench_web.py).
DEFAULT_LIMITS: Final = httpx.Limits(max_connections=10, max_keepalive_connections=10)

VerifyTypes = bool | str | os.PathLike[str] | ssl.SSLContext


class _DeadlineStream:
    """A network stream whose every timeout is capped by the deadline of this thread's search."""

    __slots__ = ("_stream",)

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, cap_timeout(timeout))  # type: ignore[no-any-return]

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, cap_timeout(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> _DeadlineStream:
        return _DeadlineStream(
            self._stream.start_tls(ssl_context, server_hostname, cap_timeout(timeout))
        )

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend:
    """Wraps a pool's network backend (httpcore's or httpcore2's: the interface is the same)."""

    __slots__ = ("_backend",)

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> _DeadlineStream:
        stream = self._backend.connect_tcp(
            host, port, cap_timeout(timeout), local_address, socket_options
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> _DeadlineStream:
        return _DeadlineStream(
            self._backend.connect_unix_socket(path, cap_timeout(timeout), socket_options)
        )

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def _arm_transport(transport: object) -> bool:
    # httpx.HTTPTransport keeps its httpcore pool in ``_pool``; the pool hands its network
    # backend to every connection it opens. Anything else (a MockTransport, a custom
    # transport) is left alone: the engine then checks the deadline between chunks only.
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if backend is None:
        return False
    if not isinstance(backend, _DeadlineBackend):
        pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]
    return True


def arm_sync_client(client: Any) -> bool:
    """Give every pool of ``client`` deadline-aware sockets; ``True`` when all could be armed.

    Transparent outside `deadline_scope`, so an injected client's other users see no
    change. Only connections opened afterwards are affected; pooled ones keep their sockets.
    """
    transports: list[object] = [getattr(client, "_transport", None)]
    transports.extend(getattr(client, "_mounts", {}).values())
    armed = True
    for transport in transports:
        if transport is not None and not _arm_transport(transport):
            armed = False
    return armed


def make_ssl_context(verify: object, owner: str) -> ssl.SSLContext | bool:
    """``verify=`` as httpx and aiohttp take it: an ``SSLContext``, or ``True``/``False``.

    A CA bundle path (file or directory) becomes a default context trusting it; ``False``
    turns verification off and warns (the connection can then be intercepted).
    """
    if isinstance(verify, ssl.SSLContext):
        return verify
    if verify is True:
        return True
    if verify is False:
        warnings.warn(
            f"{owner}: verify=False turns off TLS certificate checks; the key can be "
            "intercepted. Pass a CA bundle path or an ssl.SSLContext instead.",
            stacklevel=4,
        )
        return False
    if isinstance(verify, (str, os.PathLike)):
        path = os.fspath(verify)
        try:
            if os.path.isdir(path):
                return ssl.create_default_context(capath=path)
            return ssl.create_default_context(cafile=path)
        except (OSError, ssl.SSLError) as exc:
            raise ConfigurationError(
                f"{owner}: verify={path!r} is not a readable CA bundle ({type(exc).__name__})"
            ) from None
    raise ConfigurationError(
        f"{owner}: verify= must be True, False, a CA bundle path or an ssl.SSLContext"
    )


def default_ssl_context() -> ssl.SSLContext:
    """The trust httpx uses: ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set, else certifi's."""
    cafile = os.environ.get("SSL_CERT_FILE")
    capath = os.environ.get("SSL_CERT_DIR")
    if cafile or capath:
        return ssl.create_default_context(cafile=cafile or None, capath=capath or None)
    try:
        import certifi

        return ssl.create_default_context(cafile=certifi.where())
    except ImportError:  # pragma: no cover - certifi comes with httpx
        return ssl.create_default_context()


def environment_proxy(url: str) -> tuple[urllib.parse.SplitResult, str | None]:
    """``url`` split, and the proxy the environment names for it (``None``: go direct).

    ``HTTP(S)_PROXY`` / ``ALL_PROXY`` and ``NO_PROXY``, as httpx reads them. The fast
    transports call this once per URL and keep the answer, as httpx reads the environment
    once per client.
    """
    split = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(split.scheme) or proxies.get("all")
    if proxy and urllib.request.proxy_bypass(split.hostname or ""):
        proxy = None
    return split, proxy or None


def make_sync_client(timeout: httpx.Timeout, verify: ssl.SSLContext | bool) -> httpx.Client:
    """The pooled blocking client an engine owns (armed for the deadline)."""
    client = httpx.Client(
        timeout=timeout,
        limits=DEFAULT_LIMITS,
        headers={"User-Agent": user_agent("python-httpx")},
        follow_redirects=False,
        verify=verify,
    )
    arm_sync_client(client)
    return client


def make_async_client(timeout: httpx.Timeout, verify: ssl.SSLContext | bool) -> httpx.AsyncClient:
    """The pooled async client an engine owns (the deadline is an asyncio timeout there)."""
    return httpx.AsyncClient(
        timeout=timeout,
        limits=DEFAULT_LIMITS,
        headers={"User-Agent": user_agent("python-httpx")},
        follow_redirects=False,
        verify=verify,
    )


# -- the transports ---------------------------------------------------------------------


def build_request(
    client: httpx.AsyncClient | httpx.Client,
    request: HttpRequest,
    timeout: httpx.Timeout | None,
    httpx2: bool,
) -> httpx.Request:
    """The ``httpx.Request`` for ``request`` (raises ``UnicodeEncodeError`` for bad text)."""
    headers = dict(request.headers)
    headers["Accept-Encoding"] = ACCEPT_ENCODING  # only what BodyReader can bound
    default: Any = httpx.USE_CLIENT_DEFAULT
    if httpx2:
        default, timeout = httpx2_timeout(timeout)
    url, params = request.url, request.params
    if params and "?" not in url:
        # The query string is encoded here, as httpx would (urllib's urlencode), and sent
        # as part of the URL: httpx's own merge of params into a URL parses and rebuilds
        # the URL twice, about a third of the CPU of building a request.
        url = f"{url}?{urlencode(params)}"
        params = ()
    return client.build_request(
        request.method,
        url,
        params=params or None,
        json=request.json_body,
        headers=headers,
        timeout=default if timeout is None else timeout,
    )


def _start(response: httpx.Response, cap: int, outcome: StatusSink) -> Answer | BodyReader:
    """The whole answer when nothing is left to read (a redirect, a body already read by
    the transport, as httpx's ``MockTransport`` and respx do), else a capped raw reader."""
    status = outcome.status = response.status_code
    headers = response.headers
    if status in REDIRECT_STATUSES:
        location = headers.get("location")
        if location:
            return Answer(status, headers, b"", response.url, location)
    if response.is_stream_consumed:
        if len(response.content) > cap:
            raise TooLarge()
        return Answer(status, headers, response.content, response.url)
    reader = BodyReader(cap, headers.get("content-encoding"))
    reader.check_declared(headers.get("content-length"))
    return reader


def _finish(response: httpx.Response, reader: BodyReader) -> Answer:
    return Answer(response.status_code, response.headers, reader.finish(), response.url)


#: An ``httpx.AsyncClient`` or ``httpx.Client`` (or an httpx2 twin, which shares their API).
ClientT = TypeVar("ClientT", "httpx.AsyncClient", "httpx.Client")


class _ClientTransport(Generic[ClientT]):
    """What both httpx transports hold: a client (not closed here) and how to send with it.

    Args:
        client: The client (its ``follow_redirects`` is overridden: never).
        timeout: Per-request timeout; ``None`` for the client's own.
        httpx2: The client is an httpx2 one.
    """

    __slots__ = ("_httpx2", "_timeout", "client")

    def __init__(
        self, client: ClientT, timeout: httpx.Timeout | None, httpx2: bool = False
    ) -> None:
        self.client: ClientT = client
        self._timeout = timeout
        self._httpx2 = httpx2


class HttpxAsyncTransport(_ClientTransport[httpx.AsyncClient]):
    """Sends with an ``httpx.AsyncClient`` (or its httpx2 twin); the client is not closed here."""

    __slots__ = ()

    async def exchange(
        self, request: HttpRequest, cap: int, deadline: float, outcome: StatusSink
    ) -> Answer:
        client = self.client
        # The deadline is the caller's asyncio timeout on this path (a cancellation).
        built = build_request(client, request, self._timeout, self._httpx2)
        response = await client.send(built, stream=True, follow_redirects=False)
        try:
            reader = _start(response, cap, outcome)
            if isinstance(reader, Answer):
                return reader
            async for chunk in response.aiter_raw():
                reader.feed(chunk)
            return _finish(response, reader)
        finally:
            await response.aclose()

    async def aclose(self) -> None:
        """Nothing to close: the client belongs to whoever made it."""

    def close(self) -> None:
        """Nothing to close: the client belongs to whoever made it."""


class HttpxSyncTransport(_ClientTransport[httpx.Client]):
    """Sends with an ``httpx.Client`` (or its httpx2 twin); the client is not closed here.

    The deadline reaches the sockets of an armed client (`arm_sync_client`); for one
    that could not be armed (a custom transport), each phase's timeout is shrunk to what is
    left and the deadline is checked between chunks of the body.
    """

    __slots__ = ("_armed",)

    def __init__(
        self, client: httpx.Client, timeout: httpx.Timeout | None, httpx2: bool = False,
        armed: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(client, timeout, httpx2)
        self._armed = armed

    def _shrunk(self, deadline: float) -> httpx.Timeout:
        base = self._timeout or self.client.timeout
        return httpx.Timeout(
            connect=cap_timeout(base.connect, deadline), read=cap_timeout(base.read, deadline),
            write=cap_timeout(base.write, deadline), pool=cap_timeout(base.pool, deadline),
        )  # fmt: skip

    def exchange(
        self, request: HttpRequest, cap: int, deadline: float, outcome: StatusSink
    ) -> Answer:
        client = self.client
        timeout = self._timeout if self._armed else self._shrunk(deadline)
        built = build_request(client, request, timeout, self._httpx2)
        with deadline_scope(deadline):
            response = client.send(built, stream=True, follow_redirects=False)
            try:
                reader = _start(response, cap, outcome)
                if isinstance(reader, Answer):
                    return reader
                for chunk in response.iter_raw():
                    reader.feed(chunk)
                    if time.monotonic() > deadline:  # for clients whose sockets are unarmed
                        raise httpx.ReadTimeout("the total deadline of the search has passed")
                return _finish(response, reader)
            finally:
                response.close()

    def close(self) -> None:
        """Nothing to close: the client belongs to whoever made it."""


# -- httpx2 clients (the fork the OpenAI, Anthropic and MCP SDKs use) ----------------------


def is_httpx2(obj: object) -> bool:
    """Whether ``obj`` comes from httpx2 (checked without importing it)."""
    return type(obj).__module__.split(".", 1)[0] == "httpx2"


def httpx2_kind(client: object) -> str | None:
    """``"async"`` or ``"sync"`` for an httpx2 client, else ``None``."""
    if not is_httpx2(client):
        return None
    import httpx2

    if isinstance(client, httpx2.AsyncClient):
        return "async"
    if isinstance(client, httpx2.Client):
        return "sync"
    return None


def httpx2_timeout(timeout: httpx.Timeout | None) -> tuple[Any, Any]:
    """httpx2's "client default" marker, and ``timeout`` as an ``httpx2.Timeout``."""
    import httpx2

    converted = None if timeout is None else httpx2.Timeout(**timeout.as_dict())
    return httpx2.USE_CLIENT_DEFAULT, converted


def as_httpx_error(error: BaseException) -> BaseException:
    """An httpx2 exception as the httpx exception of the same name (the engine maps those)."""
    if not is_httpx2(error):
        return error
    from textsearch._http._redact import scrub

    cls = getattr(httpx, type(error).__name__, None)
    if not (isinstance(cls, type) and issubclass(cls, httpx.RequestError)):
        cls = httpx.TransportError
    return cls(scrub(str(error)))


# -- which transport ---------------------------------------------------------------------

#: ``auto`` (default): what ``TEXTSEARCH_TRANSPORT`` names (when installed), else what a
#: running program chose with `default_transport` (``textsearch mcp`` chooses
#: ``aiohttp`` for its run), else httpx. Nothing else decides: not which modules happen to
#: be imported. ``httpx``: httpx for both. ``aiohttp``: aiohttp for async sends, httpx for
#: blocking ones. ``urllib3``: urllib3 for blocking sends, httpx for async ones. ``fast``:
#: aiohttp for async and urllib3 for blocking sends.
TRANSPORTS: Final = ("auto", "httpx", "aiohttp", "urllib3", "fast")

_chosen_default: str | None = None


@contextmanager
def default_transport(name: str) -> Iterator[None]:
    """Within the block, ``transport="auto"`` means ``name`` unless ``TEXTSEARCH_TRANSPORT``
    names one: how a long-running program (the MCP server) takes the fast paths without
    writing the environment. Engines built inside the block keep the choice.

    Raises:
        ValueError: ``name`` is not one of ``TRANSPORTS`` (``auto`` excepted).
    """
    global _chosen_default
    if name not in TRANSPORTS or name == "auto":
        raise ValueError(f"not a transport: {name!r}")
    before, _chosen_default = _chosen_default, name
    try:
        yield
    finally:
        _chosen_default = before


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def aiohttp_installed() -> bool:
    return _installed("aiohttp")


def urllib3_installed() -> bool:
    return _installed("urllib3")


def _from_environment() -> str:
    return os.environ.get("TEXTSEARCH_TRANSPORT", "").strip().lower() or _chosen_default or ""


def wants_aiohttp(choice: str) -> bool:
    """Whether an engine set to ``choice`` sends its async requests with aiohttp.

    For ``auto``: only when ``TEXTSEARCH_TRANSPORT`` (or `default_transport`) names
    ``aiohttp`` or ``fast`` and aiohttp is installed. Measured (benchmarks/bench_web.py,
    docs/performance.md), the aiohttp path costs less CPU per search than httpx, but
    importing aiohttp costs more than a short run (one CLI search) ever wins back: only a
    program that runs long should choose it, and it says so.
    """
    if choice == "auto":
        named = _from_environment()
        return named in ("aiohttp", "fast") and aiohttp_installed()
    return choice in ("aiohttp", "fast")


def wants_urllib3(choice: str) -> bool:
    """Whether an engine set to ``choice`` sends its blocking requests with urllib3."""
    if choice == "auto":
        return _from_environment() in ("urllib3", "fast") and urllib3_installed()
    return choice in ("urllib3", "fast")
