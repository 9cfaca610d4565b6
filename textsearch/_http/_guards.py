"""The one guard kit of every network path: origin rule, capped body, total deadline.

Three places fetch bytes from the network: the HTTP engine (every web connector, on httpx,
aiohttp or urllib3), `textsearch.grounding.fetch_pages` (pages chosen by strangers)
and the Azure AI Search bridge (azure-core's pipeline). They all take their guards from here,
so that a fix to one reaches the others:

* **Credentials stay home.** `origin` / `same_origin` compare scheme, host and
  port; `RedirectChain` follows a redirect hop by hop, refusing another origin
  (`RedirectRefused`, when the request carries a key) or following it with the
  credentials dropped from then on (`drop_credentials`, for public pages), up to a
  limit of hops.
* **Every body has a cap.** `BodyReader` takes the raw (still encoded) body chunk by
  chunk and inflates it itself, never producing more than what is left under the cap, so a
  small gzip "bomb" cannot expand into gigabytes; it either refuses a body past the cap
  (`TooLarge`) or, for a page, keeps its first ``cap`` bytes.
* **Every call has a total deadline.** A read timeout restarts with every byte, so a server
  dripping one byte a second would never time out: the deadline is one monotonic instant,
  set by `deadline_scope` for blocking code (sockets shrink each wait to what is left,
  `cap_timeout`) and enforced by `within` for async code.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
import zlib
from collections.abc import Awaitable, Iterator, MutableMapping
from contextvars import ContextVar
from typing import Final, TypeVar
from urllib.parse import urlsplit

import httpx

__all__ = [
    "ACCEPT_ENCODING",
    "DEFAULT_DEADLINE",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "MAX_REDIRECTS",
    "REDIRECT_STATUSES",
    "BodyReader",
    "RedirectChain",
    "RedirectRefused",
    "TooLarge",
    "UnsupportedEncoding",
    "cap_timeout",
    "content_coding",
    "current_deadline",
    "deadline_scope",
    "drop_credentials",
    "origin",
    "same_origin",
    "time_left",
    "within",
]

T = TypeVar("T")

#: Largest body (after decompression) any response may have, unless a connector is told
#: otherwise (``max_response_bytes=``).
DEFAULT_MAX_RESPONSE_BYTES: Final = 10 * 1024 * 1024
#: Total seconds per call: every attempt, wait, redirect and byte of the body included.
DEFAULT_DEADLINE: Final = 60.0

# -- the origin rule and redirects ----------------------------------------------------------

REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS: Final = 5
_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: Headers that carry nothing of the caller's identity; on a hop to another origin every
#: other header (``Authorization``, ``api-key``, ``Cookie``, a client's default headers) goes.
_HARMLESS_HEADERS: Final = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "connection",
        "content-length",
        "content-type",
        "host",
        "user-agent",
    }
)


def origin(url: str | httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, lower-cased host and port (the scheme's default when absent) of a URL."""
    parts = urlsplit(str(url))
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: no origin anything else shares
        return scheme, "\x00" + parts.netloc, None
    return scheme, (parts.hostname or "").lower(), port or _DEFAULT_PORTS.get(scheme)


def same_origin(a: str | httpx.URL, b: str | httpx.URL) -> bool:
    """Whether two absolute URLs share scheme, host and port."""
    return origin(a) == origin(b)


def drop_credentials(headers: MutableMapping[str, str]) -> None:
    """Remove every header that may identify the caller (kept: content negotiation only)."""
    for name in [n for n in headers if n.lower() not in _HARMLESS_HEADERS]:
        del headers[name]


class RedirectRefused(Exception):
    """A redirect to another origin: following it would send the credentials there."""

    def __init__(self, target: str) -> None:
        super().__init__(target)
        self.origin = target


class RedirectChain:
    """One request's redirects, hop by hop: where the next hop goes and with what.

    Args:
        url: The URL first asked.
        method: Its method.
        limit: Most hops followed; past it `follow` says no and sets ``exhausted``.
        cross_origin: ``False`` (a request carrying a key): a hop to another origin raises
            `RedirectRefused`. ``True`` (a public page): it is followed, and
            ``crossed`` tells the caller to send no credentials from then on.
    """

    __slots__ = ("_home", "cross_origin", "crossed", "exhausted", "hops", "limit", "method", "url")

    def __init__(
        self,
        url: str,
        method: str = "GET",
        *,
        limit: int = MAX_REDIRECTS,
        cross_origin: bool = False,
    ) -> None:
        self.url = url
        self.method = method
        self.limit = limit
        self.cross_origin = cross_origin
        self.hops = 0
        self.crossed = False
        self.exhausted = False
        self._home = origin(url)

    def follow(self, status: int, location: str | None) -> bool:
        """Whether an answer is a redirect to follow; if so, ``url``/``method`` are the next hop.

        A 303 (and a 301/302 to a POST) turns into a GET, as browsers and httpx do; 307/308
        keep method and body.

        Raises:
            RedirectRefused: Another origin, with ``cross_origin=False``.
            httpx.InvalidURL: ``location`` is not a URL (``ValueError`` for some forms).
        """
        if status not in REDIRECT_STATUSES or not location:
            return False
        if self.hops >= self.limit:
            self.exhausted = True
            return False
        target = httpx.URL(self.url).join(location.strip())
        if origin(target) != self._home:
            if not self.cross_origin:
                port = f":{target.port}" if target.port else ""
                raise RedirectRefused(f"{target.scheme}://{target.host}{port}")
            self.crossed = True
        if status == 303 or (status in (301, 302) and self.method == "POST"):
            self.method = "GET"
        self.url = str(target)
        self.hops += 1
        return True


# -- the capped, decompression-safe body -----------------------------------------------------

#: What we ask for: the encodings `BodyReader` can decode with a bounded output.
ACCEPT_ENCODING: Final = "gzip, deflate"
_CODINGS: Final = frozenset({"gzip", "x-gzip", "deflate"})


class TooLarge(Exception):
    """The body (encoded or decoded) is larger than the cap."""


class UnsupportedEncoding(Exception):
    """The body came in a content encoding we did not ask for and cannot decode."""


def content_coding(header: str | None) -> str:
    """The one coding a ``Content-Encoding`` names (``"identity"`` for none).

    Raises:
        UnsupportedEncoding: Another coding, or several stacked.
    """
    if not header:
        return "identity"
    codings = [c for c in (p.strip().lower() for p in header.split(",")) if c and c != "identity"]
    if not codings:
        return "identity"
    if len(codings) > 1 or codings[0] not in _CODINGS:
        raise UnsupportedEncoding(", ".join(codings)[:50])
    return codings[0]


class BodyReader:
    """Collects a raw body chunk by chunk, inflating it with a bounded output, under a cap.

    Neither the encoded bytes received nor the decoded bytes kept may pass ``cap``. Past
    it, `feed` raises `TooLarge`; with ``truncate=True`` it keeps the first
    ``cap`` decoded bytes instead, sets ``cut`` and returns ``True`` (stop reading: the rest
    is never downloaded).

    Raises:
        UnsupportedEncoding: (at construction) an encoding it cannot bound.
    """

    __slots__ = ("_cap", "_chunks", "_decoder", "_first", "_raw", "_size", "_truncate", "cut")

    def __init__(
        self, cap: int, content_encoding: str | None = None, *, truncate: bool = False
    ) -> None:
        self._cap = cap
        self._truncate = truncate
        self._chunks: list[bytes] = []
        self._size = 0
        self._raw = 0
        self.cut = False
        self._decoder: zlib._Decompress | None = None
        self._first = False  # True while a "deflate" body may still turn out to be raw
        coding = content_coding(content_encoding)
        if coding in ("gzip", "x-gzip"):
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif coding == "deflate":
            self._decoder = zlib.decompressobj(zlib.MAX_WBITS)
            self._first = True

    def check_declared(self, content_length: str | None) -> None:
        """Refuse at once a body whose declared (encoded) length is already past the cap."""
        if content_length is not None and content_length.isdigit() and not self._truncate:
            if int(content_length) > self._cap:
                raise TooLarge()

    def feed(self, chunk: bytes) -> bool:
        """Take one raw chunk; ``True`` when the body was cut (``truncate=True``): stop."""
        self._raw += len(chunk)
        if self._decoder is not None:
            chunk = self._inflate(chunk)
        return self._keep(chunk)

    def _keep(self, data: bytes) -> bool:
        size = self._size + len(data)
        if size > self._cap or self._raw > self._cap:
            if not self._truncate:
                raise TooLarge()
            room = self._cap - self._size
            if room > 0 and data:
                self._chunks.append(data[:room])
            self._size = min(size, self._cap)
            self.cut = True
            return True
        self._size = size
        if data:
            self._chunks.append(data)
        return False

    def _inflate(self, chunk: bytes) -> bytes:
        decoder = self._decoder
        assert decoder is not None
        room = self._cap - self._size + 1  # one byte past the cap is enough to know
        try:
            out = decoder.decompress(chunk, room)
        except zlib.error:
            if self._first:
                # "deflate" is sometimes sent raw (no zlib header), as httpx also accepts.
                self._decoder = zlib.decompressobj(-zlib.MAX_WBITS)
                self._first = False
                return self._inflate(chunk)
            raise
        self._first = False
        return out

    def finish(self) -> bytes:
        """The whole decoded body (its first ``cap`` bytes when cut)."""
        if self._decoder is not None and not self.cut:
            tail = self._decoder.flush()  # small: no input was left unconsumed
            if tail:
                self._keep(tail)
        chunks = self._chunks
        if len(chunks) == 1:
            return chunks[0]
        return b"".join(chunks)


# -- the total deadline ------------------------------------------------------------------------

_DEADLINE: ContextVar[float | None] = ContextVar("textsearch_deadline", default=None)
#: The timeout handed to a socket once the deadline has passed: the socket itself then times
#: out, so the error is the transport library's own.
SPENT: Final = 1e-6


def time_left(deadline: float) -> float:
    """Seconds left before ``deadline`` (a ``time.monotonic()`` instant); negative past it."""
    return deadline - time.monotonic()


def current_deadline() -> float | None:
    """The deadline of the call running in this context (thread or task), if any."""
    return _DEADLINE.get()


@contextlib.contextmanager
def deadline_scope(deadline: float) -> Iterator[float]:
    """Within the block, guarded sockets and waits in this context end by ``deadline``."""
    token = _DEADLINE.set(deadline)
    try:
        yield deadline
    finally:
        _DEADLINE.reset(token)


def cap_timeout(timeout: float | None, deadline: float | None = None) -> float | None:
    """``timeout`` shrunk to what is left of ``deadline`` (default: this context's).

    Never zero or negative (a socket would then block forever or refuse): past the deadline
    it is a microsecond, so the wait fails at once with the library's own timeout.
    """
    if deadline is None:
        deadline = _DEADLINE.get()
        if deadline is None:
            return timeout
    left = deadline - time.monotonic()
    if left <= SPENT:
        return SPENT
    return left if timeout is None or timeout > left else timeout


if sys.version_info >= (3, 11):

    async def within(coro: Awaitable[T], deadline: float) -> T:
        """Await ``coro``, cancelled at ``deadline`` (``TimeoutError``)."""
        loop = asyncio.get_running_loop()
        async with asyncio.timeout_at(loop.time() + (deadline - time.monotonic())):
            return await coro

else:  # pragma: no cover - Python 3.10

    async def within(coro: Awaitable[T], deadline: float) -> T:
        """Await ``coro``, cancelled at ``deadline`` (``asyncio.TimeoutError``)."""
        return await asyncio.wait_for(coro, max(0.0, deadline - time.monotonic()))
