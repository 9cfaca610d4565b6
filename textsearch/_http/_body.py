"""I/O-free pieces of a send: the capped body reader and the redirect decision.

The body is read raw and decompressed here, with the output of each step bounded by what is
left under the cap: a small gzip "bomb" can never expand into gigabytes of memory, on any
transport (httpx decompresses a whole network chunk at once, which may already be large).
"""

from __future__ import annotations

import zlib
from typing import Final

import httpx

__all__ = [
    "ACCEPT_ENCODING",
    "MAX_REDIRECTS",
    "REDIRECT_STATUSES",
    "BodyReader",
    "RedirectRefused",
    "TooLarge",
    "UnsupportedEncoding",
    "redirect_target",
]

#: What we ask for: the encodings this module can decode with a bounded output.
ACCEPT_ENCODING: Final = "gzip, deflate"
REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS: Final = 5


class TooLarge(Exception):
    """The body (after decompression) is larger than the cap."""


class UnsupportedEncoding(Exception):
    """The body came in a content encoding we did not ask for and cannot decode."""


class RedirectRefused(Exception):
    """A redirect to another origin: following it would send the key there."""

    def __init__(self, origin: str) -> None:
        super().__init__(origin)
        self.origin = origin


class BodyReader:
    """Collects a body chunk by chunk, decoding it, and raises :class:`TooLarge` past ``cap``."""

    __slots__ = ("_cap", "_chunks", "_decoder", "_first", "_size")

    def __init__(self, cap: int, content_encoding: str | None = None) -> None:
        self._cap = cap
        self._chunks: list[bytes] = []
        self._size = 0
        self._decoder: zlib._Decompress | None = None
        self._first = False  # True while a "deflate" body may still turn out to be raw
        if content_encoding:
            coding = content_encoding.strip().lower()
            if coding in ("gzip", "x-gzip"):
                self._decoder = zlib.decompressobj(zlib.MAX_WBITS | 16)
            elif coding == "deflate":
                self._decoder = zlib.decompressobj(zlib.MAX_WBITS)
                self._first = True
            elif coding not in ("identity", ""):
                raise UnsupportedEncoding(coding)

    def check_declared(self, content_length: str | None) -> None:
        """Refuse at once a body whose declared (encoded) length is already past the cap."""
        if content_length is not None and content_length.isdigit():
            if int(content_length) > self._cap:
                raise TooLarge()

    def feed(self, chunk: bytes) -> None:
        if self._decoder is not None:
            chunk = self._inflate(chunk)
        size = self._size + len(chunk)
        if size > self._cap:
            raise TooLarge()
        self._size = size
        if chunk:
            self._chunks.append(chunk)

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
        if decoder.unconsumed_tail:
            raise TooLarge()
        return out

    def finish(self) -> bytes:
        """The whole decoded body."""
        if self._decoder is not None:
            tail = self._decoder.flush()
            if tail:
                self.feed_decoded(tail)
        chunks = self._chunks
        if len(chunks) == 1:
            return chunks[0]
        return b"".join(chunks)

    def feed_decoded(self, data: bytes) -> None:
        size = self._size + len(data)
        if size > self._cap:
            raise TooLarge()
        self._size = size
        self._chunks.append(data)


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    scheme = url.scheme
    port = url.port
    if port is None:
        port = 443 if scheme == "https" else 80 if scheme == "http" else None
    return scheme, url.host.lower(), port


def redirect_target(url: str, status: int, location: str, method: str) -> tuple[str, str]:
    """Where a redirect leads: ``(absolute URL, method)``; same origin only.

    Raises:
        RedirectRefused: The target is another scheme, host or port (the key stays home).
        httpx.InvalidURL: ``Location`` is not a URL.
    """
    base = httpx.URL(url)
    target = base.join(location.strip())
    if _origin(target) != _origin(base):
        port = f":{target.port}" if target.port else ""
        raise RedirectRefused(f"{target.scheme}://{target.host}{port}")
    if status == 303 or (status in (301, 302) and method == "POST"):
        method = "GET"  # what browsers and httpx do; 307/308 keep method and body
    return str(target), method
