"""How the three stores' failures become errors of the documented tree; location checks.

Messages are built from the exception's own text, scrubbed of registered secrets and cut;
the original exception is never chained (it may hold a request and its headers), and the
caller raises the result outside its ``except`` block, so ``__context__`` is empty too.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from textsearch._http._redact import scrub
from textsearch.connectors.vectors._base import dimension_mismatch
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    SearchTimeoutError,
    SearchTransportError,
    ServiceUnavailableError,
    TextSearchError,
)

_CHROMA, _QDRANT, _MILVUS = "chroma", "qdrant", "milvus"
_CHROMA_DIMENSION = re.compile(r"dimension of (\d+), got (\d+)")
_QDRANT_DIMENSION = re.compile(r"expected dim: (\d+), got (\d+)")


# -- Chroma --------------------------------------------------------------------------------


def _close_client(client: Any) -> None:
    """Close a client this connector made; its HTTP session too once Chroma let it go.

    Chroma shares one "system" between the clients of a process that point at the same
    place, counting references; ``close()`` stops it with the last one, but its HTTP
    client keeps its session (and sockets) open. When ours was the last reference, the
    session is closed too; while another client still uses the system, it is left alone.
    """
    client.close()
    from chromadb.api.shared_system_client import SharedSystemClient

    for each in (client, getattr(client, "_admin_client", None)):
        if getattr(each, "_identifier", None) in SharedSystemClient._identifier_to_system:
            continue  # another client still uses this system
        session = getattr(getattr(each, "_server", None), "_session", None)
        if session is not None:
            session.close()


def _is_http_client(client: Any) -> bool:
    server = getattr(client, "_server", None)
    return type(server).__name__ == "FastAPI"


def _parse_url(url: str) -> tuple[str, int, bool]:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise ConfigurationError("the Chroma URL is not a valid http(s) URL") from None
    if parts.username or parts.password:
        raise ConfigurationError("put credentials for a Chroma server in headers=, not in the URL")
    if parts.path not in ("", "/") or parts.query or parts.fragment or not parts.hostname:
        raise ConfigurationError(
            "a Chroma URL is http(s)://host[:port] (no path, query or fragment)"
        )
    ssl = parts.scheme == "https"
    return parts.hostname, port or (443 if ssl else 8000), ssl


def chroma_error(exc: BaseException, collection: str, where: str) -> TextSearchError:
    """A chromadb (or httpx) exception as an error of the documented tree.

    The message is the exception's own text, scrubbed of registered secrets and cut; the
    original is not chained (it may hold the request and its headers).
    """
    import httpx

    if isinstance(exc, TextSearchError):
        return exc
    from chromadb import errors as chroma_errors

    text = scrub(str(exc))[:300]
    if isinstance(exc, chroma_errors.NotFoundError) or (
        "does not exist" in text and "ollection" in text
    ):
        return NotFoundError(
            f"Chroma collection {collection!r} does not exist at {where}",
            provider=_CHROMA,
            hints=(
                "check the collection name (client.list_collections())",
                "add_documents() creates it; a search never does",
            ),
        )
    match = _CHROMA_DIMENSION.search(text)
    if match:
        return dimension_mismatch(collection, int(match.group(1)), int(match.group(2)))
    if isinstance(exc, (chroma_errors.AuthorizationError, chroma_errors.ChromaAuthError)):
        return AuthenticationError(f"Chroma refused the credentials: {text}", provider=_CHROMA)
    if isinstance(exc, chroma_errors.RateLimitError):
        return RateLimitError(f"Chroma: {text}", provider=_CHROMA)
    if isinstance(exc, chroma_errors.QuotaError):
        return QuotaExceededError(f"Chroma: {text}", provider=_CHROMA)
    if isinstance(exc, chroma_errors.InvalidArgumentError):
        return BadRequestError(f"Chroma refused the request: {text}", provider=_CHROMA)
    if isinstance(exc, httpx.TimeoutException):
        return SearchTimeoutError(f"Chroma at {where} did not answer in time", provider=_CHROMA)
    if isinstance(exc, (httpx.TransportError, ConnectionError)) or (
        isinstance(exc, ValueError) and "Could not connect" in text
    ):
        return SearchTransportError(
            f"could not reach the Chroma server at {where}",
            provider=_CHROMA,
            hints=("is the server running (chroma run)?",),
        )
    if isinstance(exc, ValueError):
        return InvalidRequestError(f"Chroma refused the request: {text}")
    return ProviderError(f"Chroma failed: {type(exc).__name__}: {text}", provider=_CHROMA)


# -- Qdrant --------------------------------------------------------------------------------


def _check_url(url: str) -> str:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise ConfigurationError("the Qdrant URL is not a valid http(s) URL") from None
    if parts.username or parts.password:
        raise ConfigurationError("pass a Qdrant key with api_key=, not in the URL")
    if not parts.hostname or parts.query or parts.fragment:
        raise ConfigurationError("a Qdrant URL is http(s)://host[:port][/prefix]")
    return url


def qdrant_error(exc: BaseException, collection: str, where: str) -> TextSearchError:
    """A qdrant-client exception as an error of the documented tree (not chained)."""
    if isinstance(exc, TextSearchError):
        return exc
    import httpx
    from qdrant_client.http import exceptions as qe

    text = scrub(str(exc))[:300]
    status = getattr(exc, "status_code", None)
    if isinstance(exc, qe.ResponseHandlingException):
        source = getattr(exc, "source", None)
        if isinstance(source, httpx.TimeoutException):
            return SearchTimeoutError(f"Qdrant at {where} did not answer in time", provider=_QDRANT)
        return SearchTransportError(
            f"could not reach Qdrant at {where}",
            provider=_QDRANT,
            hints=("is the server running, and the URL right?",),
        )
    if isinstance(exc, (httpx.TimeoutException, TimeoutError)):
        return SearchTimeoutError(f"Qdrant at {where} did not answer in time", provider=_QDRANT)
    if isinstance(exc, (httpx.TransportError, ConnectionError)):
        return SearchTransportError(f"could not reach Qdrant at {where}", provider=_QDRANT)
    if status == 404 or (isinstance(exc, ValueError) and "not found" in text.lower()):
        return NotFoundError(
            f"Qdrant collection {collection!r} does not exist at {where}",
            provider=_QDRANT,
            status_code=status,
            hints=(
                "check the collection name (client.get_collections())",
                "add_documents() creates it; a search never does",
            ),
        )
    match = _QDRANT_DIMENSION.search(text)
    if match:
        return dimension_mismatch(collection, int(match.group(1)), int(match.group(2)))
    if status == 401:
        return AuthenticationError("Qdrant refused the API key", provider=_QDRANT, status_code=401)
    if status == 403:
        return PermissionDeniedError(f"Qdrant: {text}", provider=_QDRANT, status_code=403)
    if status == 429:
        return RateLimitError(f"Qdrant: {text}", provider=_QDRANT, status_code=429)
    if isinstance(status, int) and status >= 500:
        return ServiceUnavailableError(
            f"Qdrant failed: {text}", provider=_QDRANT, status_code=status
        )
    if status == 400 or isinstance(exc, ValueError):
        return BadRequestError(
            f"Qdrant refused the request: {text}", provider=_QDRANT, status_code=status
        )
    return ProviderError(
        f"Qdrant failed: {type(exc).__name__}: {text}", provider=_QDRANT, status_code=status
    )


# -- Milvus --------------------------------------------------------------------------------


def _check_uri(uri: str) -> str:
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise ConfigurationError("the Milvus URI is not a valid URI") from None
    if parts.username or parts.password:
        raise ConfigurationError("pass Milvus credentials with token=, not in the URI")
    if not parts.hostname or parts.query or parts.fragment:
        raise ConfigurationError("a Milvus URI is http(s)://host[:port]")
    return uri


def milvus_error(exc: BaseException, collection: str, where: str) -> TextSearchError:
    """A pymilvus exception as an error of the documented tree (not chained)."""
    if isinstance(exc, TextSearchError):
        return exc
    text = scrub(str(exc))[:300]
    code = getattr(exc, "code", None)
    lowered = text.lower()
    missing = "not exist" in lowered or "not found" in lowered
    if code == 100 or ("collection" in lowered and missing):
        return NotFoundError(
            f"Milvus collection {collection!r} does not exist at {where}",
            provider=_MILVUS,
            code=str(code) if code is not None else None,
            hints=(
                "check the collection name (client.list_collections())",
                "add_documents() creates it; a search never does",
            ),
        )
    if isinstance(exc, TimeoutError) or "deadline" in lowered or "timeout" in lowered:
        return SearchTimeoutError(f"Milvus at {where} did not answer in time", provider=_MILVUS)
    if code == 2 or "fail connecting" in lowered or "unavailable" in lowered:
        return SearchTransportError(
            f"could not reach Milvus at {where}",
            provider=_MILVUS,
            hints=("is the server running, and the URI right?",),
        )
    if code in (1800, 2200) or ("auth" in lowered and "fail" in lowered):
        return AuthenticationError("Milvus refused the token", provider=_MILVUS)
    if code in (1100, 6) or "expression" in lowered:
        return BadRequestError(f"Milvus refused the request: {text}", provider=_MILVUS)
    return ProviderError(
        f"Milvus failed: {type(exc).__name__}: {text}",
        provider=_MILVUS,
        code=str(code) if code is not None else None,
    )
