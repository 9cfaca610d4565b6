"""Client construction and the blocking path's total deadline.

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
import threading
import time
import urllib.parse
import urllib.request
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Final

import httpx

from textsearch.errors import ConfigurationError

__all__ = [
    "DEFAULT_LIMITS",
    "USER_AGENT",
    "VerifyTypes",
    "arm_sync_client",
    "deadline_scope",
    "make_async_client",
    "make_ssl_context",
    "make_sync_client",
]

#: A pool capped near 10 connections is about 3x cheaper per request at concurrency 50
#: than httpx's default (100): fewer connections to juggle, better keep-alive reuse.
DEFAULT_LIMITS: Final = httpx.Limits(max_connections=10, max_keepalive_connections=10)
USER_AGENT: Final = "textsearch (python-httpx)"

VerifyTypes = bool | str | os.PathLike[str] | ssl.SSLContext

_local = threading.local()


#: The timeout handed to a socket once the deadline has passed: the socket itself then times
#: out, so the error is the transport library's own (httpcore or httpcore2 alike).
_SPENT: Final = 1e-6


def _remaining(timeout: float | None) -> float | None:
    deadline: float | None = getattr(_local, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= _SPENT:
        return _SPENT
    return left if timeout is None or timeout > left else timeout


class _DeadlineStream:
    """A network stream whose every timeout is capped by the deadline of this thread's search."""

    __slots__ = ("_stream",)

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _remaining(timeout))  # type: ignore[no-any-return]

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _remaining(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> _DeadlineStream:
        return _DeadlineStream(
            self._stream.start_tls(ssl_context, server_hostname, _remaining(timeout))
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
            host, port, _remaining(timeout), local_address, socket_options
        )
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> _DeadlineStream:
        return _DeadlineStream(
            self._backend.connect_unix_socket(path, _remaining(timeout), socket_options)
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

    Transparent outside :func:`deadline_scope`, so an injected client's other users see no
    change. Only connections opened afterwards are affected; pooled ones keep their sockets.
    """
    transports: list[object] = [getattr(client, "_transport", None)]
    transports.extend(getattr(client, "_mounts", {}).values())
    armed = True
    for transport in transports:
        if transport is not None and not _arm_transport(transport):
            armed = False
    return armed


def current_deadline() -> float | None:
    """The deadline (``time.monotonic()``) of the search running in this thread, if any."""
    deadline: float | None = getattr(_local, "deadline", None)
    return deadline


@contextmanager
def deadline_scope(deadline: float) -> Iterator[None]:
    """Within the block, sockets of armed clients in this thread respect ``deadline``."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = deadline
    try:
        yield
    finally:
        _local.deadline = previous


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
        headers={"User-Agent": USER_AGENT},
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
        headers={"User-Agent": USER_AGENT},
        follow_redirects=False,
        verify=verify,
    )


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

#: ``auto`` (default): what ``TEXTSEARCH_TRANSPORT`` names (when installed), else httpx.
#: ``httpx``: httpx for both. ``aiohttp``: aiohttp for async sends, httpx for blocking ones.
#: ``urllib3``: urllib3 for blocking sends, httpx for async ones. ``fast``: aiohttp for
#: async and urllib3 for blocking sends. Never chosen behind the caller's back (e.g.
#: because some other module imported aiohttp or urllib3): tests that mock httpx (respx)
#: must keep working, and a short run must not pay aiohttp's import.
TRANSPORTS: Final = ("auto", "httpx", "aiohttp", "urllib3", "fast")


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def aiohttp_installed() -> bool:
    return _installed("aiohttp")


def urllib3_installed() -> bool:
    return _installed("urllib3")


def _from_environment() -> str:
    return os.environ.get("TEXTSEARCH_TRANSPORT", "").strip().lower()


def wants_aiohttp(choice: str) -> bool:
    """Whether an engine set to ``choice`` sends its async requests with aiohttp."""
    if choice == "auto":
        return _from_environment() in ("aiohttp", "fast") and aiohttp_installed()
    return choice in ("aiohttp", "fast")


def wants_urllib3(choice: str) -> bool:
    """Whether an engine set to ``choice`` sends its blocking requests with urllib3."""
    if choice == "auto":
        return _from_environment() in ("urllib3", "fast") and urllib3_installed()
    return choice in ("urllib3", "fast")
