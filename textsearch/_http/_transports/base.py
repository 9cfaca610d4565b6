"""What the engine asks of a transport: one exchange, no redirect followed, body capped.

A transport moves bytes and nothing else. The engine owns everything around the send (the
retry decision, the redirect chain and its origin rule, the deadline, error mapping,
redaction), written once for every transport; a transport reports its failures as the
matching ``httpx`` exception, so that the engine maps every transport's errors in one place.

Beside this module: `._httpx` (an ``httpx`` client, injected or owned; the default),
`._aiohttp` (the async fast path) and `._urllib3` (the blocking fast path).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

__all__ = [
    "Answer",
    "AsyncTransport",
    "HttpRequest",
    "StatusSink",
    "SyncTransport",
    "missing_extra",
]


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


class Answer(NamedTuple):
    """One response: status, headers, whole decoded body, URL, and a redirect's target.

    ``location`` is set for a redirect status with a ``Location`` header; its body is then
    not read (``content`` is empty).
    """

    status: int
    headers: Mapping[str, str]
    content: bytes
    url: object
    location: str | None = None


class StatusSink(Protocol):
    """Where a transport reports the status as soon as it is known, before the body."""

    status: int | None


class AsyncTransport(Protocol):
    """An async transport: one request out, one `Answer` back."""

    async def exchange(
        self, request: HttpRequest, cap: int, deadline: float, outcome: StatusSink
    ) -> Answer:
        """Send ``request`` once, by ``deadline`` (``time.monotonic()``), body under ``cap``.

        Raises:
            UnicodeEncodeError: Text that cannot be sent (nothing was sent).
            httpx.TransportError: A transport failure (a subclass that says which).
            TooLarge: The body (encoded or decoded) is past ``cap``.
            UnsupportedEncoding: The body is in an encoding that cannot be bounded.
        """
        ...

    async def aclose(self) -> None:
        """Close what the transport opened (a shared client it was given stays open)."""
        ...

    def close(self) -> None:
        """Close what can be closed outside the event loop."""
        ...


class SyncTransport(Protocol):
    """A blocking transport: one request out, one `Answer` back; thread-safe."""

    def exchange(
        self, request: HttpRequest, cap: int, deadline: float, outcome: StatusSink
    ) -> Answer:
        """Blocking twin of `AsyncTransport.exchange`; raises the same errors."""
        ...

    def close(self) -> None:
        """Close what the transport opened (a shared client it was given stays open)."""
        ...


def missing_extra(module: str) -> ImportError:
    """The error for a fast path whose library is not installed, saying how to get it."""
    return ImportError(f'the {module} fast path needs {module}: pip install "textsearch-sdk[fast]"')
