"""What the three vector-store connectors share (Chroma, Qdrant, Milvus).

* The records a managed collection holds (one per passage) and the native result model
  base: `._records`. The settings every store takes and checks: `._settings`.
* Filter checking: field names and values are validated here, once, before any store is
  asked; each store then translates the checked clauses to its own filter form.
* Embedding calls go through ``textsearch.embeddings``' validating helpers, so a bad vector
  is never stored and an embedder's own exception becomes a documented error.
* The connector base class (paging by ``top + skip``, running blocking client calls in a
  worker thread, a deadline on every call).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import threading
from abc import abstractmethod
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Any, ClassVar, Generic, TypeVar

from typing_extensions import Self

from textsearch._http._settings import http_settings
from textsearch._native import is_native_panic, panic_error
from textsearch._twins import Call, Plan, drive, drive_sync, perform, perform_sync
from textsearch._types import (
    SearchOptions,
    SearchResults,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch, trusted_text_search_result
from textsearch.connectors.vectors._filters import FIELD_NAME, Clause, check_filter

# What the stores and the tests import from here: the records and the settings live in
# their own modules (``_records``, ``_settings``) and are re-exported under the same names.
from textsearch.connectors.vectors._records import MAX_PASSAGES as MAX_PASSAGES
from textsearch.connectors.vectors._records import NO_METADATA as NO_METADATA
from textsearch.connectors.vectors._records import (
    PassageRecord,
    VectorDocument,
    document_ids,
    embedding_texts,
    host_suffixes,
    passage_records,
)
from textsearch.connectors.vectors._records import document_id_of as document_id_of
from textsearch.connectors.vectors._records import trusted as trusted
from textsearch.connectors.vectors._settings import (
    _FIELDS,
    STORE_DEFAULTS,
    StoreSettings,
    StoreSpec,
    UrlRule,
    check_collection_name,
    check_timeout,
    check_url,
    require,
)
from textsearch.connectors.vectors._settings import IDENTIFIER as IDENTIFIER
from textsearch.connectors.vectors._settings import check_field_name as check_field_name
from textsearch.connectors.vectors._settings import dimension_mismatch as dimension_mismatch
from textsearch.connectors.vectors._settings import present as present
from textsearch.embeddings import Embedder
from textsearch.embeddings import embed_documents as _embed_documents
from textsearch.embeddings import embed_documents_sync as _embed_documents_sync
from textsearch.embeddings import embed_query as _embed_query
from textsearch.embeddings import embed_query_sync as _embed_query_sync
from textsearch.embeddings._base import embeds_in_a_thread
from textsearch.errors import (
    ConfigurationError,
    SearchTimeoutError,
    TextSearchError,
)

__all__ = [
    "FIELD_NAME",
    "FRAGMENT_KEY",
    "Clause",
    "ClientCall",
    "PassageRecord",
    "StoreSettings",
    "StoreSpec",
    "UrlRule",
    "VectorDocument",
    "VectorStoreTextSearch",
    "call",
    "check_filter",
    "check_url",
    "host_suffixes",
    "passage_records",
    "require",
    "Plan",
    "Step",
]

NativeT = TypeVar("NativeT", bound=VectorDocument)
T = TypeVar("T")

#: The field holding ``#anchor`` / ``#L12`` of a passage within its document's link.
FRAGMENT_KEY = "link_fragment"


# -- steps of a store's plans ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClientCall:
    """One call of a store's client as a step of a plan (made by `call`).

    Driven with a blocking client it is called; with an async client its coroutine is
    awaited. A store's clients name their methods alike, so one plan serves both.
    """

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> ClientCall:
    """A step calling ``fn`` (a method of the client, or of an object it returned)."""
    return ClientCall(fn, args, kwargs)


#: What a store's plan yields: client calls, and (from the base) an embedding `Call`.
Step = ClientCall | Call


def _perform_sync(step: Step) -> Any:
    if isinstance(step, Call):
        return perform_sync(step)
    return step.fn(*step.args, **step.kwargs)


async def _perform(step: Step) -> Any:
    if isinstance(step, Call):
        return await perform(step)
    result = step.fn(*step.args, **step.kwargs)
    return await result if inspect.isawaitable(result) else result


# -- the connector base -------------------------------------------------------------------


class VectorStoreTextSearch(BaseTextSearch[NativeT], Generic[NativeT]):
    """The parts of a vector-store connector that do not depend on the store.

    A store writes seven abstract hooks, each once: its blocking client (`_new_client`), its
    error mapping (`_error`), its filter form (`_filter_of`), its results (`_results`), and
    its three operations as plans (`_search`, `_write`, `_delete`: generators that yield
    each client call as a `call(...)` step). The base drives a plan with the blocking client
    (the `_sync` methods, and a worker thread for an in-process engine) or, where the store
    gives an async client for a server (the optional `_new_async_client`), awaits each step.
    Everything around them is here: where the store is, which clients were made here (and
    are closed here), the deadline of every call, paging, embedding and validating documents.
    """

    max_top: ClassVar[int] = 50
    #: what the store is (its client library, result model, locations); set by each store
    spec: ClassVar[StoreSpec]
    #: the connector's class name in messages, and the extra that installs the store's
    #: client (the store's provider name): both from the spec
    connector: ClassVar[str] = "VectorStoreTextSearch"
    extra: ClassVar[str] = ""
    #: what ``TEXTSEARCH_<STORE>`` may hold, for `from_env`'s message; set by each store
    location_hint: ClassVar[str] = "where the store is"

    text_field: str
    title_field: str
    link_field: str
    id_field: str
    site_field: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls.__dict__.get("spec")
        if spec is not None:
            cls.provider_name = cls.extra = spec.provider
            cls.connector = cls.__name__

    @classmethod
    def from_env(cls, *, embedder: Embedder | str | None = None, **settings: Any) -> Self:
        """Build the connector from the environment.

        Reads ``TEXTSEARCH_<STORE>`` (``TEXTSEARCH_CHROMA``, ``TEXTSEARCH_QDRANT``,
        ``TEXTSEARCH_MILVUS``: where the store is), ``TEXTSEARCH_COLLECTION`` (default
        ``textsearch``) and, unless ``embedder`` is given, ``TEXTSEARCH_EMBEDDER`` (a spec
        such as ``minilm``); a server's key or token comes from the store's own variable
        (``QDRANT_API_KEY``, ``MILVUS_TOKEN``), as the constructor reads it.

        Args:
            embedder: An `Embedder`, or a spec for `textsearch.embeddings.from_spec`.
            **settings: Any other constructor keyword.

        Raises:
            ConfigurationError: The location variable is not set (the message names the
                variables), a bad embedder spec, or an invalid setting.
            ImportError: The store's client library is not installed.
        """
        from textsearch.embeddings import embedder_from_env

        variable = f"TEXTSEARCH_{cls.extra.upper()}"
        location = os.environ.get(variable, "").strip()
        if not location:
            raise ConfigurationError(
                f"set {variable} to {cls.location_hint}, TEXTSEARCH_COLLECTION to the "
                "collection (default: textsearch) and TEXTSEARCH_EMBEDDER to the embedder "
                "(e.g. minilm)"
            )
        collection = os.environ.get("TEXTSEARCH_COLLECTION", "").strip() or "textsearch"
        settings["embedder"] = embedder_from_env(embedder)  # every store's keyword
        return cls(location, collection, **settings)

    def __init__(
        self, client_or_location: Any, collection: str, settings: Mapping[str, Any]
    ) -> None:
        given = http_settings(settings, type(self).__name__, STORE_DEFAULTS)
        super().__init__(
            string_mapper=given["string_mapper"],
            text_search_result_mapper=given["text_search_result_mapper"],
        )
        embedder = given["embedder"]
        if embedder is not None and not isinstance(embedder, Embedder):
            raise ConfigurationError(
                f"embedder must be an Embedder (textsearch.embeddings), got "
                f"{type(embedder).__name__}"
            )
        self.collection = check_collection_name(collection)
        self.embedder = embedder
        self.timeout = check_timeout(given["timeout"])
        self._lock = threading.Lock()
        self._lib: Any = require(self.spec.library, self.extra, self.connector)
        for what in _FIELDS:
            setattr(self, what, check_field_name(given[what], what))
        self._own_keys = frozenset(
            (
                self.text_field,
                self.title_field,
                self.link_field,
                self.id_field,
                self.site_field,
                FRAGMENT_KEY,
            )
        )
        #: metadata keys a document may not use (the fields written next to them)
        self._reserved: Sequence[str] = ()
        #: what was learnt about the collection (its vector length...), once
        self._layout: Any = None
        self._sync_client: Any = None
        self._async_client: Any = None
        self._given_async = False
        self._owned: list[Any] = []
        self._owned_async: list[Any] = []
        self._url: str | None = None
        self._path: str | None = None
        self._take(client_or_location)

    def _take(self, value: object) -> None:
        async_type, sync_type = self._client_types()
        if isinstance(value, (str, os.PathLike)):
            location = os.fspath(value)
            if location.startswith(self.spec.schemes):
                self._url = self._check_url(location)
            elif not location:
                raise ConfigurationError("client_or_location must not be empty")
            else:
                self._path = self._check_path(location)
        elif isinstance(value, async_type):
            self._async_client, self._given_async = value, True
        elif isinstance(value, sync_type):
            self._sync_client = value
        else:
            raise ConfigurationError(
                f"client_or_location must be {self.spec.locations}, not {type(value).__name__}"
            )

    def _where(self) -> str:
        return self._url or self._path or "client"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._where()!r}, collection={self.collection!r})"

    # -- hooks of a store ----------------------------------------------------------------

    def _client_types(self) -> tuple[type, type]:
        async_name, sync_name = self.spec.clients
        return (
            reduce(getattr, async_name.split("."), self._lib),
            reduce(getattr, sync_name.split("."), self._lib),
        )

    def _check_url(self, url: str) -> str:
        check_url(url, self.spec.url)
        return url

    def _check_path(self, path: str) -> str:
        return path

    @abstractmethod
    def _new_client(self) -> Any:
        """A blocking client for the location given (a URL or a path)."""

    async def _new_async_client(self) -> Any:
        """An async client for a server URL; ``None`` (the default): calls run in a thread.

        A store whose library has an async client overrides this; the plans below are then
        driven with it, step by step, instead of with the blocking client in a worker thread.
        """
        return None

    @abstractmethod
    def _error(self, exc: BaseException) -> TextSearchError:
        """The documented error for an exception of the store's client."""

    @abstractmethod
    def _filter_of(self, options: SearchOptions) -> Any:
        """The store's filter form of ``options.filter`` (`_clauses` checks it first)."""

    @abstractmethod
    def _results(self, hits: Any) -> list[NativeT]:
        """Native results from what `_search` returned (`_native` builds one)."""

    @abstractmethod
    def _search(
        self, client: Any, vector: list[float], query: str, options: SearchOptions, flt: Any
    ) -> Plan[Step, tuple[Any, int | None]]:
        """The plan of a search: yields client calls (`call`), returns ``(hits, total)``."""

    @abstractmethod
    def _write(
        self, client: Any, doc_ids: list[str], records: list[PassageRecord], vectors: Any
    ) -> Plan[Step, None]:
        """The plan of a write: replace the documents ``doc_ids`` by ``records``."""

    @abstractmethod
    def _delete(self, client: Any, wanted: list[str]) -> Plan[Step, None]:
        """The plan of a delete: every passage of the documents ``wanted``."""

    def _name_or_none(self, value: str | None, what: str) -> str | None:
        """An optional field name (``None``: the store's layout has no such field)."""
        return None if value is None else check_field_name(value, what)

    def _clauses(self, options: SearchOptions) -> list[Clause]:
        return check_filter(options.filter, connector=self.connector)

    def _record_fields(self, record: PassageRecord, *, blank: str | None = None) -> dict[str, Any]:
        """What a record is written with, under this connector's field names.

        A missing title, link or fragment is left out, or written as ``blank`` for a store
        whose schema needs every field.
        """
        fields: dict[str, Any] = {
            self.id_field: record.document_id,
            self.text_field: record.text,
            self.site_field: list(record.sites),
        }
        for name, value in (
            (self.title_field, record.title),
            (self.link_field, record.link),
            (FRAGMENT_KEY, record.fragment or None),
        ):
            if value is not None:
                fields[name] = value
            elif blank is not None:
                fields[name] = blank
        return fields

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
        return await _embed_documents(self._need_embedder(), embedding_texts(records))

    def _document_vectors_sync(self, records: Sequence[PassageRecord]) -> list[list[float]]:
        return _embed_documents_sync(self._need_embedder(), embedding_texts(records))

    # -- clients -------------------------------------------------------------------------

    def _client(self) -> Any:
        if self._sync_client is not None:
            return self._sync_client
        if self._given_async:
            raise ConfigurationError(
                f"{self.connector} was given an async client: use the async methods, or "
                "pass the store's URL to have both"
            )
        with self._lock:
            if self._sync_client is None:
                client = self._new_client()
                self._owned.append(client)
                self._sync_client = client
        return self._sync_client

    async def _aclient(self) -> Any:
        """The async client, or ``None`` for an in-process engine (a worker thread then)."""
        if self._async_client is not None:
            return self._async_client
        if self._url is None:
            return None
        client = await self._new_async_client()
        if client is None:  # the store has no async client: calls run in a worker thread
            return None
        self._owned_async.append(client)
        self._async_client = client
        return client

    # -- calls to the store ------------------------------------------------------------

    def _blocking(self, fn: Callable[[], T]) -> T:
        """Run a blocking call (a store whose client has no deadline bounds it here)."""
        return fn()

    def _call(self, plan_of: Callable[[Any], Plan[Step, T]]) -> T:
        """Drive a plan with the blocking client; failures become documented errors."""
        try:
            return self._blocking(lambda: drive_sync(plan_of(self._client()), _perform_sync))
        except BaseException as exc:  # a Rust panic (Chroma's core) is a BaseException
            error = self._failure(exc)
        raise error

    async def _acall(self, plan_of: Callable[[Any], Plan[Step, T]]) -> T:
        """Drive a plan with the async client, or with the blocking one in a thread."""
        try:
            client = await self._bounded(self._aclient())
            if client is None:
                return await self._in_thread(
                    lambda: drive_sync(plan_of(self._client()), _perform_sync)
                )
            return await self._bounded(drive(plan_of(client), _perform))
        except BaseException as exc:
            error = self._failure(exc)
        raise error

    def _failure(self, exc: BaseException) -> TextSearchError:
        """The documented error for what a plan raised (re-raises what is not the store's)."""
        if isinstance(exc, TextSearchError):
            raise exc
        if isinstance(exc, Exception):  # every client failure becomes a documented error
            return self._error(exc)
        if not is_native_panic(exc):
            raise exc
        return panic_error(self.provider_name, self.connector)

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

    # -- search --------------------------------------------------------------------------

    def _searching(
        self, client: Any, vector: list[float] | None, query: str, options: SearchOptions, flt: Any
    ) -> Plan[Step, tuple[Any, int | None]]:
        if vector is None:  # embedded here: in the worker thread, or awaited with the client
            vector = yield Call(self._query_vector_sync, self._query_vector, (query,))
        assert vector is not None
        return (yield from self._search(client, vector, query, options, flt))

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        flt = self._filter_of(options)  # bad filters fail before anything else
        # An embedder that only runs its blocking twin in a worker thread is called from the
        # thread an in-process store's search runs in anyway: one hop off the loop, not two
        # (the deadline then covers both).
        early = not embeds_in_a_thread(self._need_embedder())
        vector = await self._query_vector(query) if early else None
        hits, total = await self._acall(lambda c: self._searching(c, vector, query, options, flt))
        return self._page(self._results(hits), options, total)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[NativeT]:
        flt = self._filter_of(options)
        vector = self._query_vector_sync(query)
        hits, total = self._call(lambda c: self._search(c, vector, query, options, flt))
        return self._page(self._results(hits), options, total)

    # -- managing a collection -----------------------------------------------------------

    def _prepare_write(
        self, docs: Iterable[Any], chunk: bool
    ) -> tuple[list[str], list[PassageRecord]]:
        self._need_embedder()
        return passage_records(docs, chunk=chunk, reserved=self._reserved)

    async def add_documents(self, docs: Iterable[Any], *, chunk: bool = True) -> int:
        """Add or replace documents (by ``id``); returns how many documents were written.

        Documents have ``LocalTextSearch``'s shape (``id``, ``title``, ``text``, ``link``,
        ``metadata``; a ``LocalDocument`` or a dict). Each is stored as one record per
        passage, split as ``LocalTextSearch`` splits it (``chunk=False``: one record per
        document), with its vector (and, where the store indexes text, its sparse or
        full-text form). The collection is created when missing. Everything is validated
        and embedded before anything is written; a document's old passages are replaced.

        Raises:
            InvalidRequestError: A document is invalid, too long for a field of the store,
                or its metadata uses a key this connector writes itself.
            ConfigurationError: No embedder, or its vectors do not fit the collection.
            ProviderError: The embedder or the store failed.
            SearchTransportError: The server could not be reached.
            SearchTimeoutError: The store did not answer within ``timeout``.
        """
        doc_ids, records = self._prepare_write(docs, chunk)
        if not records:
            return 0
        vectors = await self._document_vectors(records)
        await self._acall(lambda c: self._write(c, doc_ids, records, vectors))
        return len(doc_ids)

    def add_documents_sync(self, docs: Iterable[Any], *, chunk: bool = True) -> int:
        """Blocking twin of `add_documents`; raises the same errors."""
        doc_ids, records = self._prepare_write(docs, chunk)
        if not records:
            return 0
        vectors = self._document_vectors_sync(records)
        self._call(lambda c: self._write(c, doc_ids, records, vectors))
        return len(doc_ids)

    async def delete_documents(self, ids: Iterable[str]) -> int:
        """Delete documents (all their passages) by id; returns how many ids were given.

        A missing collection or an unknown id is not an error (nothing to delete).

        Raises:
            InvalidRequestError: ``ids`` is not a list of non-empty strings.
            ProviderError: The store failed.
            SearchTransportError: The server could not be reached.
            SearchTimeoutError: The store did not answer within ``timeout``.
        """
        wanted = document_ids(ids)
        if wanted:
            await self._acall(lambda c: self._delete(c, wanted))
        return len(wanted)

    def delete_documents_sync(self, ids: Iterable[str]) -> int:
        """Blocking twin of `delete_documents`; raises the same errors."""
        wanted = document_ids(ids)
        if wanted:
            self._call(lambda c: self._delete(c, wanted))
        return len(wanted)

    def _check_layout(self, layout: Any, length: int) -> None:
        """Keep what was learnt of the collection (its vector length first); check a vector."""
        self._layout = layout
        if layout[0] != length:
            raise dimension_mismatch(self.collection, layout[0], length)

    # -- results -----------------------------------------------------------------------

    def _native(
        self,
        fields: Mapping[str, Any],
        *,
        record_id: object,
        text: object,
        metadata: dict[str, Any],
        score: object,
    ) -> NativeT:
        """One result from a record's stored fields (an empty title or link is none)."""
        doc_id = fields.get(self.id_field)
        title = fields.get(self.title_field)
        link = fields.get(self.link_field)
        fragment = fields.get(FRAGMENT_KEY)
        if isinstance(link, str) and link and isinstance(fragment, str):
            link += fragment
        try:
            number = None if score is None else float(score)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            number = None
        result: NativeT = trusted(
            self.spec.native,
            id=document_id_of(doc_id, record_id),
            title=title if isinstance(title, str) and title else None,
            text=text if isinstance(text, str) else "",
            link=link if isinstance(link, str) and link else None,
            metadata=metadata,
            score=number,
        )
        return result

    def _to_text_search_result(self, item: NativeT) -> TextSearchResult:
        return trusted_text_search_result(item.title, item.text, item.link)

    @staticmethod
    def _page(
        items: list[NativeT], options: SearchOptions, total: int | None
    ) -> SearchResults[NativeT]:
        return SearchResults(items[options.skip : options.skip + options.top], total)

    # -- resources -----------------------------------------------------------------------

    def _forget(self) -> None:
        """Drop what was learnt about the collection (it may change while closed)."""
        self._layout = None

    def _close_client(self, client: Any) -> None:
        client.close()

    async def _close_async_client(self, client: Any) -> None:
        await client.close()

    async def aclose(self) -> None:
        """Release the clients this connector created (never an injected client)."""
        for client in self._owned_async:
            try:
                await self._close_async_client(client)
            except Exception:  # closing is best effort
                pass
        if self._owned_async:
            self._async_client = None
        self._owned_async.clear()
        self.close()

    def close(self) -> None:
        """Release the blocking client this connector created (never an injected client)."""
        self._forget()
        for client in self._owned:
            try:
                self._close_client(client)
            except Exception:  # closing is best effort; nothing to report to a caller
                pass
        if self._owned:
            self._sync_client = None
        self._owned.clear()
