"""What the three vector-store connectors share (Chroma, Qdrant, Milvus).

* The records a managed collection holds: one per passage, split as ``LocalTextSearch``
  splits a document, with the document's id, title, link, the link's hosts (for ``site``
  filters) and the document's metadata.
* Filter checking: field names and values are validated here, once, before any store is
  asked; each store then translates the checked clauses to its own filter form.
* Embedding calls go through ``textsearch.embeddings``' validating helpers, so a bad vector
  is never stored and an embedder's own exception becomes a documented error.
* The native result model base and the connector base class (paging by ``top + skip``,
  running blocking client calls in a worker thread, a deadline on every call).
"""

from __future__ import annotations

import asyncio
import importlib
import math
import re
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from textsearch._types import (
    AnyTagEqualTo,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch, trusted_text_search_result
from textsearch.embeddings import Embedder
from textsearch.embeddings import embed_documents as _embed_documents
from textsearch.embeddings import embed_documents_sync as _embed_documents_sync
from textsearch.embeddings import embed_query as _embed_query
from textsearch.embeddings import embed_query_sync as _embed_query_sync
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    SearchTimeoutError,
    UnsupportedFilterError,
)

__all__ = [
    "FIELD_NAME",
    "INT64_MAX",
    "INT64_MIN",
    "Clause",
    "PassageRecord",
    "VectorDocument",
    "VectorStoreTextSearch",
    "check_filter",
    "host_suffixes",
    "passage_records",
    "require",
]

NativeT = TypeVar("NativeT", bound="VectorDocument")
T = TypeVar("T")

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: A filter or metadata field name: what ``LocalTextSearch`` allows as a metadata key. Every
#: store's filter language has its own quoting rules; a name that never needs quoting cannot
#: be used to reach outside the clause it is in.
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,63}")
#: Field names of a store's own schema (Milvus fields, payload keys we write): no hyphen.
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,254}")
#: The passages of one document are records ``<document id>#<n>``; ``n`` below this.
MAX_PASSAGES = 100_000


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


class VectorDocument(BaseModel):
    """One passage found in a vector store (the base of the stores' native models).

    Attributes:
        id: The document's id (the record's own id when the record names no document).
        title: The document's title.
        text: The passage's text.
        link: The passage's link (``file#anchor`` or ``url#L12`` for a passage of a longer
            document, as ``LocalTextSearch`` links them).
        metadata: The record's other fields (filterable metadata).
        score: The store's own similarity or distance, exactly as the store returns it.
    """

    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    title: str | None = None
    text: str = ""
    link: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    score: float | None = None


def _trusted(model: type[NativeT], **fields: Any) -> NativeT:
    # Filled as pydantic fills a model, without validating again: the values come from the
    # store's answer and were converted by our own code to the declared types.
    document = object.__new__(model)
    setattr_ = object.__setattr__
    setattr_(document, "__dict__", fields)
    setattr_(document, "__pydantic_fields_set__", set(fields))
    setattr_(document, "__pydantic_extra__", None)
    setattr_(document, "__pydantic_private__", None)
    return document


def host_suffixes(link: str | None) -> list[str]:
    """The host of ``link`` and each parent domain (``a.b.com``, ``b.com``, ``com``).

    Stored with every record so that ``equal_to("site", "b.com")`` also matches pages of
    ``a.b.com``, as in ``LocalTextSearch``, with one equality test in any store.
    """
    from textsearch.connectors.local._search import _host

    host = _host(link)
    if not host:
        return []
    host = host.rstrip(".")
    parts = host.split(".")
    return [".".join(parts[i:]) for i in range(len(parts)) if parts[i]]


@dataclass(frozen=True, slots=True)
class PassageRecord:
    """One record of a managed collection: a passage and what filters read."""

    record_id: str
    document_id: str
    number: int
    title: str | None
    text: str
    link: str | None
    fragment: str | None  # "#anchor" / "#L12" of the passage within the document's link
    sites: list[str]
    metadata: dict[str, Any] = field(default_factory=dict)


def passage_records(
    docs: Iterable[Any], *, chunk: bool, reserved: Sequence[str]
) -> tuple[list[str], list[PassageRecord]]:
    """Validate documents and split them into records (nothing is written here).

    Returns:
        The document ids (the last of several documents with the same id wins) and the
        records of all their passages, in order.

    Raises:
        InvalidRequestError: A document is not valid, or a metadata key is one of the
            fields the connector writes itself (``reserved``).
    """
    from textsearch.connectors.local import normalize_document
    from textsearch.connectors.local._passages import Passage

    if isinstance(docs, (str, bytes, Mapping)):
        raise InvalidRequestError("add_documents takes a list of documents")
    checked = {}
    for doc in docs:
        normalized = normalize_document(doc)
        checked[normalized.id] = normalized
    records: list[PassageRecord] = []
    for doc in checked.values():
        clash = sorted(set(doc.metadata) & set(reserved))
        if clash:
            raise InvalidRequestError(
                f"document {doc.id!r}: metadata key {clash[0]!r} is a field this connector "
                f"writes itself; reserved: {', '.join(sorted(reserved))}"
            )
        if chunk:
            from textsearch.connectors.local._split import split_text

            passages = split_text(doc.text)
        else:
            passages = [Passage(None, None, 1, doc.text)]
        if len(passages) > MAX_PASSAGES:
            raise InvalidRequestError(f"document {doc.id!r} has more than {MAX_PASSAGES} passages")
        sites = host_suffixes(doc.link)
        metadata = {key: value for key, value in doc.metadata.items() if value is not None}
        for number, passage in enumerate(passages):
            # LocalTextSearch's rules: a section under the document's own title is the top
            # of the document, and the first passage needs no line number.
            section = passage.heading if passage.heading != doc.title else None
            fragment = None
            if doc.link:
                if section and passage.anchor:
                    fragment = f"#{passage.anchor}"
                elif number and passage.line and passage.line > 1:
                    fragment = f"#L{passage.line}"
            records.append(
                PassageRecord(
                    record_id=f"{doc.id}#{number}",
                    document_id=doc.id,
                    number=number,
                    title=doc.title,
                    text=passage.text,
                    link=doc.link,
                    fragment=fragment,
                    sites=sites,
                    metadata=metadata,
                )
            )
    return list(checked), records


def document_ids(ids: Iterable[str]) -> list[str]:
    """Validate the ids given to ``delete_documents``.

    Raises:
        InvalidRequestError: ``ids`` is a single string, or an id is not a non-empty string.
    """
    if isinstance(ids, (str, bytes)):
        raise InvalidRequestError("delete_documents takes a list of ids, not one string")
    out = list(dict.fromkeys(ids))
    for value in out:
        if not isinstance(value, str) or not value:
            raise InvalidRequestError(f"a document id must be a non-empty string, got {value!r}")
    return out


# -- filters ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Clause:
    """A checked filter clause.

    ``target`` is ``"id"``, ``"link"``, ``"site"`` or ``"metadata"``; ``any_tag`` marks an
    ``any_tag_equal_to`` (the field holds a list that must contain the value).
    """

    target: str
    name: str
    value: str | int | float | bool
    any_tag: bool


def check_filter(search_filter: TextSearchFilter | None, *, connector: str) -> list[Clause]:
    """Check every clause before any search; each store then translates the result.

    Raises:
        UnsupportedFilterError: A field name that is not ``id``, ``link``, ``site`` or a
            metadata key (letters, digits, ``_``, ``-``); ``any_tag_equal_to`` on ``id``,
            ``link`` or ``site``; a value the store cannot compare (None, a non-string for
            ``id``/``link``/``site``/``any_tag_equal_to``).
        InvalidRequestError: A number that is not finite or does not fit in 64 bits.
    """
    if search_filter is None:
        return []
    clauses: list[Clause] = []
    for clause in search_filter.clauses:
        name, value = clause.field_name, clause.value
        any_tag = isinstance(clause, AnyTagEqualTo)
        if not isinstance(name, str) or not FIELD_NAME.fullmatch(name):
            raise UnsupportedFilterError(
                f"{connector} cannot filter on {name!r}: filter on id, link, site or a "
                "metadata key (letters, digits, '_' or '-', starting with a letter or '_')",
                field_name=str(name),
                supported_fields=("id", "link", "site"),
            )
        target = name if name in ("id", "link", "site") else "metadata"
        if any_tag and target != "metadata":
            raise UnsupportedFilterError(
                f"{connector}: any_tag_equal_to needs a metadata field holding a list; "
                f"{name!r} holds one value (use equal_to)",
                field_name=name,
                supported_fields=("id", "link", "site"),
            )
        if value is None:
            raise UnsupportedFilterError(
                f"{connector} cannot compare {name!r} with None: a vector store has no "
                "'missing field' test that works the same everywhere",
                field_name=name,
            )
        if (target != "metadata" or any_tag) and not isinstance(value, str):
            kind = "any_tag_equal_to" if any_tag else f"{name!r}"
            raise UnsupportedFilterError(
                f"{connector}: a filter on {kind} takes a string, got {type(value).__name__}",
                field_name=name,
            )
        if target != "metadata" and not str(value).strip():
            # no document has an empty id, link or host (a store may keep "" for "none")
            raise UnsupportedFilterError(
                f"{connector}: a filter on {name!r} needs a non-empty value", field_name=name
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidRequestError(f"filter value for {name!r} must be finite, got {value}")
        if isinstance(value, int) and not isinstance(value, bool):
            if not INT64_MIN <= value <= INT64_MAX:
                raise InvalidRequestError(
                    f"filter value for {name!r} does not fit in 64 bits: {value}"
                )
        if target == "site":
            assert isinstance(value, str)
            value = value.strip().lower().rstrip(".")
        clauses.append(Clause(target, name, value, any_tag))
    return clauses


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


# -- the connector base -------------------------------------------------------------------


class VectorStoreTextSearch(BaseTextSearch[NativeT], Generic[NativeT]):
    """The parts of a vector-store connector that do not depend on the store."""

    max_top: ClassVar[int] = 50
    #: the connector's class name in messages
    connector: ClassVar[str] = "VectorStoreTextSearch"
    #: the extra that installs the store's client
    extra: ClassVar[str] = ""

    def __init__(
        self,
        *,
        collection: str,
        embedder: Embedder | None,
        timeout: float,
        string_mapper: Callable[[NativeT], str] | None,
        text_search_result_mapper: Callable[[NativeT], TextSearchResult] | None,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        if embedder is not None and not isinstance(embedder, Embedder):
            raise ConfigurationError(
                f"embedder must be an Embedder (textsearch.embeddings), got "
                f"{type(embedder).__name__}"
            )
        self.collection = check_collection_name(collection)
        self.embedder = embedder
        self.timeout = check_timeout(timeout)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(collection={self.collection!r})"

    # -- embedding ---------------------------------------------------------------------

    def _need_embedder(self) -> Embedder:
        if self.embedder is None:
            raise ConfigurationError(
                f"{self.connector} needs embedder= to search or add by text: the store "
                "compares vectors, and this connector turns text into vectors with it"
            )
        return self.embedder

    async def _query_vector(self, query: str) -> list[float]:
        return await _embed_query(self._need_embedder(), query)

    def _query_vector_sync(self, query: str) -> list[float]:
        return _embed_query_sync(self._need_embedder(), query)

    async def _document_vectors(self, records: Sequence[PassageRecord]) -> list[list[float]]:
        return await _embed_documents(self._need_embedder(), [r.text for r in records])

    def _document_vectors_sync(self, records: Sequence[PassageRecord]) -> list[list[float]]:
        return _embed_documents_sync(self._need_embedder(), [r.text for r in records])

    # -- calls to the store ------------------------------------------------------------

    async def _in_thread(self, fn: Callable[[], T]) -> T:
        """Run a blocking client call in a worker thread, within ``timeout``.

        The thread itself cannot be stopped; the caller gets ``SearchTimeoutError`` at the
        deadline and the late answer is dropped.
        """
        try:
            return await asyncio.wait_for(asyncio.to_thread(fn), self.timeout)
        except asyncio.TimeoutError:
            pass
        raise self._timeout_error()

    async def _bounded(self, awaitable: Awaitable[T]) -> T:
        """Await a client coroutine within ``timeout``."""
        try:
            return await asyncio.wait_for(awaitable, self.timeout)
        except asyncio.TimeoutError:
            pass
        raise self._timeout_error()

    def _timeout_error(self) -> SearchTimeoutError:
        return SearchTimeoutError(
            f"{self.connector}: no answer from the store within {self.timeout:g} s",
            provider=self.provider_name,
        )

    # -- results -----------------------------------------------------------------------

    def _to_text_search_result(self, item: NativeT) -> TextSearchResult:
        return trusted_text_search_result(item.title, item.text, item.link)

    @staticmethod
    def _page(
        items: list[NativeT], options: SearchOptions, total: int | None
    ) -> SearchResults[NativeT]:
        return SearchResults(items[options.skip : options.skip + options.top], total)
