"""How the three stores' failures become errors of the documented tree.

Messages are built from the exception's own text, scrubbed of registered secrets and cut;
the original exception is never chained (it may hold a request and its headers), and the
caller raises the result outside its ``except`` block, so ``__context__`` is empty too.
The errors every store has (a missing collection, an unreachable server, no answer in time)
are made by one function each; what tells them apart is the store's own.
"""

from __future__ import annotations

import re
from typing import Any

from textsearch._http._base import error_class_for_status
from textsearch._http._redact import scrub
from textsearch.connectors.vectors._base import dimension_mismatch
from textsearch.errors import (
    AuthenticationError,
    BadRequestError,
    InvalidRequestError,
    NotFoundError,
    ProviderError,
    QuotaExceededError,
    RateLimitError,
    SearchTimeoutError,
    SearchTransportError,
    TextSearchError,
)

_CHROMA_DIMENSION = re.compile(r"dimension of (\d+), got (\d+)")
_QDRANT_DIMENSION = re.compile(r"expected dim: (\d+), got (\d+)")
#: how each store lists its collections, for the hint of a missing one
_LISTING = {
    "Chroma": "client.list_collections()",
    "Qdrant": "client.get_collections()",
    "Milvus": "client.list_collections()",
}


def missing(store: str, collection: str, where: str, **details: Any) -> NotFoundError:
    """The error of a collection that does not exist (a search never creates one)."""
    return NotFoundError(
        f"{store} collection {collection!r} does not exist at {where}",
        provider=store.lower(),
        hints=(
            f"check the collection name ({_LISTING[store]})",
            "add_documents() creates it; a search never does",
        ),
        **details,
    )


def unreachable(store: str, where: str, hint: str) -> SearchTransportError:
    """The error of a server that could not be reached."""
    return SearchTransportError(
        f"could not reach {store} at {where}", provider=store.lower(), hints=(hint,)
    )


def late(store: str, where: str) -> SearchTimeoutError:
    """The error of a server that did not answer within its client's deadline."""
    return SearchTimeoutError(f"{store} at {where} did not answer in time", provider=store.lower())


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
        return missing("Chroma", collection, where)
    match = _CHROMA_DIMENSION.search(text)
    if match:
        return dimension_mismatch(collection, int(match.group(1)), int(match.group(2)))
    if isinstance(exc, (chroma_errors.AuthorizationError, chroma_errors.ChromaAuthError)):
        return AuthenticationError(f"Chroma refused the credentials: {text}", provider="chroma")
    if isinstance(exc, chroma_errors.RateLimitError):
        return RateLimitError(f"Chroma: {text}", provider="chroma")
    if isinstance(exc, chroma_errors.QuotaError):
        return QuotaExceededError(f"Chroma: {text}", provider="chroma")
    if isinstance(exc, chroma_errors.InvalidArgumentError):
        return BadRequestError(f"Chroma refused the request: {text}", provider="chroma")
    if isinstance(exc, httpx.TimeoutException):
        return late("Chroma", where)
    if isinstance(exc, (httpx.TransportError, ConnectionError)) or (
        isinstance(exc, ValueError) and "Could not connect" in text
    ):
        return unreachable("Chroma", where, "is the server running (chroma run)?")
    if isinstance(exc, ValueError):
        return InvalidRequestError(f"Chroma refused the request: {text}")
    return ProviderError(f"Chroma failed: {type(exc).__name__}: {text}", provider="chroma")


# -- Qdrant --------------------------------------------------------------------------------


def qdrant_error(exc: BaseException, collection: str, where: str) -> TextSearchError:
    """A qdrant-client exception as an error of the documented tree (not chained)."""
    if isinstance(exc, TextSearchError):
        return exc
    import httpx
    from qdrant_client.http import exceptions as qe

    text = scrub(str(exc))[:300]
    status = getattr(exc, "status_code", None)
    if isinstance(exc, qe.ResponseHandlingException):
        if isinstance(getattr(exc, "source", None), httpx.TimeoutException):
            return late("Qdrant", where)
        return unreachable("Qdrant", where, "is the server running, and the URL right?")
    if isinstance(exc, (httpx.TimeoutException, TimeoutError)):
        return late("Qdrant", where)
    if isinstance(exc, (httpx.TransportError, ConnectionError)):
        return unreachable("Qdrant", where, "is the server running, and the URL right?")
    if status == 404 or (isinstance(exc, ValueError) and "not found" in text.lower()):
        return missing("Qdrant", collection, where, status_code=status)
    match = _QDRANT_DIMENSION.search(text)
    if match:
        return dimension_mismatch(collection, int(match.group(1)), int(match.group(2)))
    if status == 401:
        return AuthenticationError("Qdrant refused the API key", provider="qdrant", status_code=401)
    if isinstance(status, int) and status >= 400:
        # the HTTP engine's own table: 400 bad request, 403, 429, 5xx...
        cls = error_class_for_status(status)
        return cls(f"Qdrant: {text}", provider="qdrant", status_code=status)
    if isinstance(exc, ValueError):
        return BadRequestError(f"Qdrant refused the request: {text}", provider="qdrant")
    return ProviderError(
        f"Qdrant failed: {type(exc).__name__}: {text}", provider="qdrant", status_code=status
    )


# -- Milvus --------------------------------------------------------------------------------


def milvus_error(exc: BaseException, collection: str, where: str) -> TextSearchError:
    """A pymilvus exception as an error of the documented tree (not chained)."""
    if isinstance(exc, TextSearchError):
        return exc
    text = scrub(str(exc))[:300]
    code = getattr(exc, "code", None)
    code_text = str(code) if code is not None else None
    lowered = text.lower()
    absent = "not exist" in lowered or "not found" in lowered
    if code == 100 or ("collection" in lowered and absent):
        return missing("Milvus", collection, where, code=code_text)
    if isinstance(exc, TimeoutError) or "deadline" in lowered or "timeout" in lowered:
        return late("Milvus", where)
    if code == 2 or "fail connecting" in lowered or "unavailable" in lowered:
        return unreachable("Milvus", where, "is the server running, and the URI right?")
    if code in (1800, 2200) or ("auth" in lowered and "fail" in lowered):
        return AuthenticationError("Milvus refused the token", provider="milvus")
    if code in (1100, 6) or "expression" in lowered:
        return BadRequestError(f"Milvus refused the request: {text}", provider="milvus")
    return ProviderError(
        f"Milvus failed: {type(exc).__name__}: {text}", provider="milvus", code=code_text
    )
