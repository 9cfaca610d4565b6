"""The settings every vector-store connector checks at construction.

The keywords they all take (`StoreSettings`, their defaults), what a store is
(`StoreSpec`, `UrlRule`), and the checks of field and collection names, URLs and
the timeout; each raises ``ConfigurationError`` before any store is asked.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar
from urllib.parse import SplitResult, urlsplit

from typing_extensions import TypedDict

from textsearch._types import TextSearchResult
from textsearch.connectors.vectors._records import VectorDocument
from textsearch.embeddings import Embedder
from textsearch.errors import ConfigurationError

NativeT = TypeVar("NativeT", bound=VectorDocument)

#: Field names of a store's own schema (Milvus fields, payload keys we write): no hyphen.
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")


def require(module: str, extra: str, connector: str) -> Any:
    """Import a store's client library, or say which extra installs it.

    Raises:
        ImportError: The library is not installed (the message names the extra).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f'{connector} needs the {extra} extra: pip install "textsearch-sdk[{extra}]"'
        ) from exc


def check_field_name(value: object, what: str) -> str:
    """A configured field name (``text_field=``...), checked at construction.

    Raises:
        ConfigurationError: Not a plain identifier.
    """
    if not isinstance(value, str) or not IDENTIFIER.fullmatch(value):
        raise ConfigurationError(
            f"{what} must be a field name (letters, digits and '_', starting with a letter "
            f"or '_'), got {value!r}"
        )
    return value


def check_collection_name(value: object) -> str:
    """A collection name, checked at construction (the store checks its own rules too).

    Raises:
        ConfigurationError: Not a non-empty string.
    """
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(f"collection must be a non-empty name, got {value!r}")
    return value


def dimension_mismatch(collection: str, stored: int, embedder: int) -> ConfigurationError:
    """The error for an embedder whose vectors do not fit the collection."""
    return ConfigurationError(
        f"collection {collection!r} holds {stored}-dimensional vectors but the embedder "
        f"gives {embedder}-dimensional ones: use the embedder the collection was built "
        "with, or another collection"
    )


@dataclass(frozen=True, slots=True)
class UrlRule:
    """What a store's server URL may hold, and what its messages say."""

    store: str
    #: where credentials go instead ("pass a Qdrant key with api_key=")
    credentials: str
    #: the URL's form, for the message ("http(s)://host[:port]")
    shape: str
    #: whether a path (a prefix) is allowed
    path: bool


def check_url(url: str, rule: UrlRule) -> SplitResult:
    """A server's URL, checked at construction: valid, no credentials, no query.

    Raises:
        ConfigurationError: Not a valid URL, credentials in it (the message says where they
            go), a query, a fragment, or a path where the store takes none.
    """
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        raise ConfigurationError(f"the {rule.store} URL is not a valid URL") from None
    if parts.username or parts.password:
        raise ConfigurationError(f"{rule.credentials}, not in the URL")
    bad_path = not rule.path and parts.path not in ("", "/")
    if not parts.hostname or parts.query or parts.fragment or bad_path:
        raise ConfigurationError(f"a {rule.store} URL is {rule.shape}")
    return parts


@dataclass(frozen=True, slots=True)
class StoreSpec:
    """What a vector store is, for the connector base: one per store class."""

    #: the provider name in errors, also the extra that installs the client
    provider: str
    #: the client library's module
    library: str
    #: the native result model
    native: type[Any]
    #: the library's async and blocking client classes (dotted names within the library)
    clients: tuple[str, str]
    #: what a server's URL may hold
    url: UrlRule
    #: what ``client_or_location`` may be, for the message when it is none of them
    locations: str
    #: a location starting with one of these is a server's URL
    schemes: tuple[str, ...] = ("http://", "https://")


def check_timeout(value: object) -> float:
    """``timeout=``: seconds, greater than 0.

    Raises:
        ConfigurationError: Not a positive number.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ConfigurationError(f"timeout must be a number of seconds > 0, got {value!r}")
    if not math.isfinite(value):
        raise ConfigurationError("timeout must be finite")
    return float(value)


_FIELDS = ("text_field", "title_field", "link_field", "id_field", "site_field")


class StoreSettings(TypedDict, Generic[NativeT], total=False):
    """The keywords every vector-store connector takes, besides its store's own."""

    embedder: Embedder | None
    """Turns the query (and added documents) into vectors; required to search by text."""
    text_field: str
    """Where a record keeps its text (a field, payload or metadata key)."""
    title_field: str
    """Where a record keeps its title."""
    link_field: str
    """Where a record keeps its link."""
    id_field: str
    """Where a record keeps its document's id (``id`` filters, ``delete_documents``)."""
    site_field: str
    """Where a record keeps its link's host and parent domains (``site`` filters)."""
    timeout: float
    """Seconds one call may take."""
    string_mapper: Callable[[NativeT], str] | None
    """Custom mapping of a result to the string ``search`` returns."""
    text_search_result_mapper: Callable[[NativeT], TextSearchResult] | None
    """Custom mapping of a result to a ``TextSearchResult``."""


STORE_DEFAULTS: Final[Mapping[str, Any]] = {
    "embedder": None,
    "text_field": "text",
    "title_field": "title",
    "link_field": "link",
    "id_field": "document_id",
    "site_field": "site",
    "timeout": 10.0,
    "string_mapper": None,
    "text_search_result_mapper": None,
}


def present(**options: Any) -> dict[str, Any]:
    """The options that are set (a client's keywords for what was given)."""
    return {name: value for name, value in options.items() if value}
