"""The HTTP settings every HTTP connector takes, named and documented once.

A connector's constructor takes them as ``**settings: Unpack[HttpSettings]`` (PEP 692): type
checkers and editors see each keyword and its type. `http_settings` checks the names and fills
in the defaults.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from typing_extensions import TypedDict

from textsearch._http._base import DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_WAIT
from textsearch._http._guards import DEFAULT_DEADLINE, DEFAULT_MAX_RESPONSE_BYTES

if TYPE_CHECKING:
    import httpx

    from textsearch._http._transports._httpx import VerifyTypes

__all__ = ["HTTP_DEFAULTS", "HttpSettings", "http_settings"]


class HttpSettings(TypedDict, total=False):
    """How a connector talks HTTP; every key is an optional constructor keyword.

    Redirects are followed by the connector, to the same origin only (a redirect elsewhere
    is a ``ProviderError`` with ``code="cross_origin_redirect"``: the key never leaves for
    another host). The key is never part of a message, log record or repr.
    """

    http_client: httpx.AsyncClient | httpx.Client | Any | None
    """An ``httpx.AsyncClient`` or ``httpx.Client`` (or an ``httpx2`` one, e.g. the client an
    OpenAI/Anthropic/MCP stack holds) to use; it is never closed by the connector. The other
    kind is created when needed and owned. Its ``follow_redirects`` is not used. Default:
    ``None`` (the connector makes its own pooled clients)."""
    timeout: float | httpx.Timeout | None
    """Seconds or an ``httpx.Timeout``, per phase (default ``None``: 5 s connect, 20 s
    read)."""
    max_retries: int
    """Retries on rate limits, 5xx, timeouts and connection failures (default 2; 0
    disables). A spent quota is never retried."""
    max_retry_wait: float
    """Longest single wait between attempts, in seconds (default 10). A ``Retry-After``
    asking for longer is not waited for: the error is raised at once, ``retry_after`` set."""
    deadline: float
    """Total seconds per search, every attempt, wait and redirect included (default 60);
    past it, ``SearchTimeoutError``. ``timeout=`` stays per phase."""
    max_response_bytes: int
    """Largest body read, after decompression (default 10 MiB); a larger one is a
    ``ResponseFormatError``."""
    verify: VerifyTypes
    """TLS verification for the clients the connector creates: ``True`` (default), a CA
    bundle path, an ``ssl.SSLContext`` (e.g. a corporate CA), or ``False`` (warns). No need
    to inject a client for a private CA."""
    transport: str
    """How searches are sent: ``"httpx"``, or ``"aiohttp"`` (the fast path for long-running
    processes, several times less CPU per search; needs ``textsearch-sdk[fast]``).
    ``"auto"`` (default) is httpx unless the ``TEXTSEARCH_TRANSPORT=aiohttp`` environment
    variable is set. Blocking searches use httpx, or urllib3 with ``"urllib3"`` (async ones
    on httpx) or ``"fast"`` (async ones on aiohttp), also as ``TEXTSEARCH_TRANSPORT``
    values. An injected client is always used as given for its kind."""


#: The default of each setting (what a connector uses for a keyword not given).
HTTP_DEFAULTS: Final[Mapping[str, Any]] = {
    "http_client": None,
    "timeout": None,
    "max_retries": DEFAULT_MAX_RETRIES,
    "max_retry_wait": DEFAULT_MAX_RETRY_WAIT,
    "deadline": DEFAULT_DEADLINE,
    "max_response_bytes": DEFAULT_MAX_RESPONSE_BYTES,
    "verify": True,
    "transport": "auto",
}


def http_settings(
    given: Mapping[str, Any], owner: str, defaults: Mapping[str, Any] = HTTP_DEFAULTS
) -> dict[str, Any]:
    """Every setting, ``given`` over the ``defaults``.

    Raises:
        TypeError: A name that is not a setting (as Python does for an unknown keyword).
    """
    for name in given:
        if name not in defaults:
            raise TypeError(f"{owner}() got an unexpected keyword argument {name!r}")
    return {**defaults, **given}
