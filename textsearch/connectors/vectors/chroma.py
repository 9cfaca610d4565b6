"""``ChromaTextSearch``: semantic search over a Chroma collection (extra ``chroma``: chromadb).

Chroma runs in-process (``":memory:"`` or a folder) or as a server (an ``http(s)://`` URL).
In-process calls run in a worker thread on the async path; a server is reached with Chroma's
``AsyncHttpClient`` from the async methods and its ``HttpClient`` from the blocking ones.
Chroma compares vectors only (its own full-text operators are substring tests, not a
ranking): search is dense, by the embedder's vector of the query.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from textsearch._types import SearchOptions, SearchResults, TextSearchResult
from textsearch.connectors.local import LocalDocument
from textsearch.connectors.vectors._base import (
    Clause,
    PassageRecord,
    VectorDocument,
    VectorStoreTextSearch,
    _trusted,
    check_field_name,
    check_filter,
    dimension_mismatch,
    document_ids,
    passage_records,
    require,
)
from textsearch.connectors.vectors._errors import (
    _close_client,
    _is_http_client,
    _parse_url,
    chroma_error,
)
from textsearch.embeddings import Embedder
from textsearch.errors import (
    ConfigurationError,
    ResponseFormatError,
    TextSearchError,
)

__all__ = ["ChromaDocument", "ChromaTextSearch"]

PROVIDER = "chroma"
#: metadata key holding ``#anchor`` / ``#L12`` of a passage within its document's link
FRAGMENT_KEY = "link_fragment"
#: Chroma's rule for collection names, checked at construction instead of at the first call
_COLLECTION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{1,510})[A-Za-z0-9]")
_BLOCKING_POOL: concurrent.futures.ThreadPoolExecutor | None = None


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _BLOCKING_POOL
    if _BLOCKING_POOL is None:
        _BLOCKING_POOL = concurrent.futures.ThreadPoolExecutor(
            max_workers=8, thread_name_prefix="textsearch-chroma"
        )
    return _BLOCKING_POOL


class ChromaDocument(VectorDocument):
    """One passage found in a Chroma collection.

    Attributes:
        id: The document's id (``document_id`` metadata; the record's id when absent).
        title: The ``title_field`` metadata.
        text: The record's document (or the ``text_field`` metadata when it has none).
        link: The ``link_field`` metadata, with the passage's ``#anchor`` when it has one.
        metadata: The record's other metadata.
        score: Chroma's distance (lower is closer), as Chroma returns it.
    """


class ChromaTextSearch(VectorStoreTextSearch[ChromaDocument]):
    """Semantic search over a Chroma collection; also manages one (``add_documents``).

    Args:
        client_or_location: A chromadb client (sync or async; never closed by this
            connector), ``":memory:"`` (an in-process ``EphemeralClient``), a folder (a
            ``PersistentClient``) or an ``http(s)://host:port`` URL of a Chroma server.
        collection: The collection's name.
        embedder: Turns the query (and added documents) into vectors; required to search.
        text_field: Metadata key read for the text of a record that has no document.
        title_field: Metadata key of the title.
        link_field: Metadata key of the link.
        id_field: Metadata key of the document id (a managed collection stores one record
            per passage, ``<id>#<n>``; ``id`` filters and ``delete_documents`` read this).
        site_field: Metadata key holding the link's host and its parent domains (a list,
            written by ``add_documents``); ``site`` filters read it.
        distance: Chroma's ``hnsw`` space for a collection this connector creates.
        headers: HTTP headers for a server (for example an auth token); never shown.
        tenant: Chroma tenant (server only).
        database: Chroma database (server only).
        timeout: Seconds one call may take (the server's answer, or a worker thread).
        string_mapper: Custom mapping of a result to the string :meth:`search` returns.
        text_search_result_mapper: Custom mapping of a result to a ``TextSearchResult``.

    Raises:
        ImportError: chromadb is not installed (``pip install "textsearch-sdk[chroma]"``).
        ConfigurationError: An invalid argument (a URL with a path or credentials, a
            collection name Chroma does not allow, a field name that is not an identifier, a
            non-positive timeout).

    Filters: ``equal_to`` on ``id``, ``link``, ``site`` (subdomains match too) and metadata
    keys, ``any_tag_equal_to`` on metadata keys holding lists; translated to a Chroma
    ``where`` of ``$eq`` / ``$contains`` operators (values are data, never parsed).
    ``total_count`` counts the records (passages) that match the filter.
    """

    provider_name: ClassVar[str] = PROVIDER
    connector: ClassVar[str] = "ChromaTextSearch"
    extra: ClassVar[str] = "chroma"

    def __init__(
        self,
        client_or_location: Any,
        collection: str,
        *,
        embedder: Embedder | None = None,
        text_field: str = "text",
        title_field: str = "title",
        link_field: str = "link",
        id_field: str = "document_id",
        site_field: str = "site",
        distance: Literal["cosine", "l2", "ip"] = "cosine",
        headers: Mapping[str, str] | None = None,
        tenant: str | None = None,
        database: str | None = None,
        timeout: float = 10.0,
        string_mapper: Callable[[ChromaDocument], str] | None = None,
        text_search_result_mapper: Callable[[ChromaDocument], TextSearchResult] | None = None,
    ) -> None:
        super().__init__(
            collection=collection,
            embedder=embedder,
            timeout=timeout,
            string_mapper=string_mapper,
            text_search_result_mapper=text_search_result_mapper,
        )
        self._chromadb = require("chromadb", "chroma", self.connector)
        if not _COLLECTION.fullmatch(self.collection):
            raise ConfigurationError(
                f"{self.collection!r} is not a Chroma collection name: 3-512 characters from "
                "letters, digits, '.', '_' and '-', starting and ending with a letter or digit"
            )
        self.text_field = check_field_name(text_field, "text_field")
        self.title_field = check_field_name(title_field, "title_field")
        self.link_field = check_field_name(link_field, "link_field")
        self.id_field = check_field_name(id_field, "id_field")
        self.site_field = check_field_name(site_field, "site_field")
        if distance not in ("cosine", "l2", "ip"):
            raise ConfigurationError(f"distance must be 'cosine', 'l2' or 'ip', got {distance!r}")
        self.distance = distance
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
        self._headers = dict(headers or {})
        self._tenant = tenant
        self._database = database
        self._sync_client: Any = None
        self._async_client: Any = None
        self._url: tuple[str, int, bool] | None = None
        self._path: str | None = None
        self._created: list[Any] = []
        self._collections: dict[bool, Any] = {}
        self._dimensions: int | None = None
        self._remote = False
        self._owns_async = False
        api = self._chromadb.api
        if isinstance(client_or_location, (str, os.PathLike)):
            location = os.fspath(client_or_location)
            if location.startswith(("http://", "https://")):
                self._url = _parse_url(location)
                self._remote = True
            elif not location:
                raise ConfigurationError("client_or_location must not be empty")
            else:
                self._path = location
        elif isinstance(client_or_location, api.AsyncClientAPI):
            self._async_client = client_or_location
            self._remote = True
        elif isinstance(client_or_location, api.ClientAPI):
            self._sync_client = client_or_location
            self._remote = _is_http_client(client_or_location)
        else:
            raise ConfigurationError(
                "client_or_location must be a chromadb client, ':memory:', a folder or an "
                f"http(s):// URL, not {type(client_or_location).__name__}"
            )

    def __repr__(self) -> str:
        where = (
            f"http{'s' if self._url[2] else ''}://{self._url[0]}:{self._url[1]}"
            if self._url
            else (self._path or "client")
        )
        return f"ChromaTextSearch({where!r}, collection={self.collection!r})"

    # -- clients -----------------------------------------------------------------------

    def _settings(self) -> Any:
        # Never telemetry from a library; TLS always verified (Chroma's async client turns
        # verification off unless told).
        settings = self._chromadb.config.Settings(anonymized_telemetry=False)
        if self._url and self._url[2]:
            settings.chroma_server_ssl_verify = True
        return settings

    def _client_kwargs(self) -> dict[str, Any]:
        assert self._url is not None
        host, port, ssl = self._url
        kwargs: dict[str, Any] = {
            "host": host,
            "port": port,
            "ssl": ssl,
            "headers": dict(self._headers) or None,
            "settings": self._settings(),
        }
        if self._tenant:
            kwargs["tenant"] = self._tenant
        if self._database:
            kwargs["database"] = self._database
        return kwargs

    def _client(self) -> Any:
        if self._sync_client is not None:
            return self._sync_client
        if self._async_client is not None:
            raise ConfigurationError(
                "ChromaTextSearch was given an async client: use the async methods, or pass "
                "the server's URL to have both"
            )
        with self._lock:
            if self._sync_client is None:
                chromadb = self._chromadb
                if self._url is not None:
                    client = chromadb.HttpClient(**self._client_kwargs())
                    self._created.append(client)
                elif self._path == ":memory:":
                    client = chromadb.EphemeralClient(settings=self._settings())
                else:
                    client = chromadb.PersistentClient(path=self._path, settings=self._settings())
                    self._created.append(client)  # releases the folder's SQLite file
                self._sync_client = client
        return self._sync_client

    async def _aclient(self) -> Any:
        if self._async_client is not None:
            return self._async_client
        if self._url is None:
            return None  # in-process: the blocking client, in a worker thread
        client = await self._chromadb.AsyncHttpClient(**self._client_kwargs())
        self._async_client = client
        self._owns_async = True
        return client

    # -- calls ---------------------------------------------------------------------------

    def _call(self, fn: Callable[[], Any]) -> Any:
        """A blocking call; a server's answer is awaited at most ``timeout`` seconds.

        Chroma's HTTP client has no timeout of its own, so a call to a server runs in a
        worker thread that the caller stops waiting for at the deadline.
        """
        try:
            if not self._remote:
                return fn()
            future = _pool().submit(fn)
            return future.result(timeout=self.timeout)
        except concurrent.futures.TimeoutError:
            error: TextSearchError = self._timeout_error()
        except Exception as exc:  # every client failure becomes a documented error
            error = self._error(exc)
        raise error

    async def _acall(self, sync_fn: Callable[[Any], Any], async_fn: Callable[[Any], Any]) -> Any:
        try:
            client = await self._bounded(self._aclient())
            if client is None:
                return await self._in_thread(lambda: sync_fn(self._client()))
            return await self._bounded(async_fn(client))
        except TextSearchError:
            raise
        except Exception as exc:
            error = self._error(exc)
        raise error

    def _error(self, exc: BaseException) -> TextSearchError:
        return chroma_error(exc, self.collection, self._where())

    def _where(self) -> str:
        return repr(self).partition("(")[2].partition(",")[0]

    # -- collections ---------------------------------------------------------------------

    def _open(self, client: Any) -> Any:
        return client.get_collection(self.collection, embedding_function=None)

    def _create(self, client: Any, dimensions: int) -> Any:
        return client.get_or_create_collection(
            self.collection,
            embedding_function=None,
            configuration={"hnsw": {"space": self.distance}},
            metadata=self._creation_metadata(dimensions),
        )

    def _learn_dimensions(self, collection: Any) -> int | None:
        """The collection's vector length: recorded when we created it, else from a record."""
        stored = (collection.metadata or {}).get("textsearch_dimensions")
        if isinstance(stored, int) and not isinstance(stored, bool):
            return stored
        sample = collection.get(limit=1, include=["embeddings"])
        embeddings = sample.get("embeddings")
        if embeddings is not None and len(embeddings):
            return len(embeddings[0])
        return None

    async def _alearn_dimensions(self, collection: Any) -> int | None:
        stored = (collection.metadata or {}).get("textsearch_dimensions")
        if isinstance(stored, int) and not isinstance(stored, bool):
            return stored
        sample = await collection.get(limit=1, include=["embeddings"])
        embeddings = sample.get("embeddings")
        if embeddings is not None and len(embeddings):
            return len(embeddings[0])
        return None

    def _check_dimensions(self, found: int | None, vector_length: int) -> None:
        if found is not None:
            self._dimensions = found
        if self._dimensions is not None and self._dimensions != vector_length:
            raise dimension_mismatch(self.collection, self._dimensions, vector_length)

    # -- filters and records -------------------------------------------------------------

    def _clause(self, clause: Clause) -> dict[str, Any]:
        if clause.target == "id":
            return {self.id_field: {"$eq": clause.value}}
        if clause.target == "link":
            return {self.link_field: {"$eq": clause.value}}
        if clause.target == "site":
            return {self.site_field: {"$contains": clause.value}}
        if clause.any_tag:
            return {clause.name: {"$contains": clause.value}}
        return {clause.name: {"$eq": clause.value}}

    def _where_of(self, options: SearchOptions) -> dict[str, Any] | None:
        parts = [self._clause(c) for c in check_filter(options.filter, connector=self.connector)]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"$and": parts}

    def _metadata_of(self, record: PassageRecord) -> dict[str, Any]:
        # Chroma refuses None values and empty lists: such keys are left out (a filter on
        # them then matches nothing, as a filter on a missing key does).
        metadata: dict[str, Any] = {
            key: value
            for key, value in record.metadata.items()
            if not (isinstance(value, list) and not value)
        }
        metadata[self.id_field] = record.document_id
        if record.title is not None:
            metadata[self.title_field] = record.title
        if record.link is not None:
            metadata[self.link_field] = record.link
        if record.fragment:
            metadata[FRAGMENT_KEY] = record.fragment
        if record.sites:
            metadata[self.site_field] = record.sites
        return metadata

    def _results(self, answer: Mapping[str, Any]) -> list[ChromaDocument]:
        ids = (answer.get("ids") or [[]])[0]
        documents = (answer.get("documents") or [[None] * len(ids)])[0]
        metadatas = (answer.get("metadatas") or [[None] * len(ids)])[0]
        distances = (answer.get("distances") or [[None] * len(ids)])[0]
        if not len(ids) == len(documents) == len(metadatas) == len(distances):
            raise ResponseFormatError(
                "Chroma answered with lists of different lengths", provider=PROVIDER
            )
        out = []
        for record_id, document, metadata, distance in zip(
            ids, documents, metadatas, distances, strict=True
        ):
            metadata = dict(metadata or {})
            text = document if isinstance(document, str) else metadata.get(self.text_field)
            doc_id = metadata.get(self.id_field)
            title = metadata.get(self.title_field)
            link = metadata.get(self.link_field)
            fragment = metadata.get(FRAGMENT_KEY)
            if isinstance(link, str) and isinstance(fragment, str):
                link += fragment
            out.append(
                _trusted(
                    ChromaDocument,
                    id=str(doc_id) if doc_id is not None else str(record_id),
                    title=title if isinstance(title, str) else None,
                    text=text if isinstance(text, str) else "",
                    link=link if isinstance(link, str) else None,
                    metadata={k: v for k, v in metadata.items() if k not in self._own_keys},
                    score=float(distance) if distance is not None else None,
                )
            )
        return out

    # -- search --------------------------------------------------------------------------

    @staticmethod
    def _query_kwargs(
        vector: list[float], options: SearchOptions, where: dict[str, Any] | None
    ) -> dict[str, Any]:
        return {
            "query_embeddings": [vector],
            "n_results": options.top + options.skip,
            "where": where,
            "include": ["documents", "metadatas", "distances"],
        }

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[ChromaDocument]:
        where = self._where_of(options)  # bad filters fail before anything else
        vector = await self._query_vector(query)
        kwargs = self._query_kwargs(vector, options, where)

        def run_sync(client: Any) -> tuple[Any, int | None]:
            collection = self._collections.get(False) or self._open(client)
            self._collections[False] = collection
            if self._dimensions is None:
                self._check_dimensions(self._learn_dimensions(collection), len(vector))
            self._check_dimensions(None, len(vector))
            answer = collection.query(**kwargs)
            total = None
            if options.include_total_count:
                total = (
                    collection.count()
                    if where is None
                    else len(collection.get(where=where, include=[])["ids"])
                )
            return answer, total

        async def run_async(client: Any) -> tuple[Any, int | None]:
            collection = self._collections.get(True) or await client.get_collection(
                self.collection, embedding_function=None
            )
            self._collections[True] = collection
            if self._dimensions is None:
                self._check_dimensions(await self._alearn_dimensions(collection), len(vector))
            self._check_dimensions(None, len(vector))
            answer = await collection.query(**kwargs)
            total = None
            if options.include_total_count:
                total = (
                    await collection.count()
                    if where is None
                    else len((await collection.get(where=where, include=[]))["ids"])
                )
            return answer, total

        answer, total = await self._acall(run_sync, run_async)
        return self._page(self._results(answer), options, total)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[ChromaDocument]:
        where = self._where_of(options)
        vector = self._query_vector_sync(query)
        kwargs = self._query_kwargs(vector, options, where)

        def run() -> tuple[Any, int | None]:
            collection = self._collections.get(False) or self._open(self._client())
            self._collections[False] = collection
            if self._dimensions is None:
                self._check_dimensions(self._learn_dimensions(collection), len(vector))
            self._check_dimensions(None, len(vector))
            answer = collection.query(**kwargs)
            total = None
            if options.include_total_count:
                total = (
                    collection.count()
                    if where is None
                    else len(collection.get(where=where, include=[])["ids"])
                )
            return answer, total

        answer, total = self._call(run)
        return self._page(self._results(answer), options, total)

    # -- writing -------------------------------------------------------------------------

    def _prepare_write(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], chunk: bool
    ) -> tuple[list[str], list[PassageRecord]]:
        self._need_embedder()
        return passage_records(docs, chunk=chunk, reserved=sorted(self._own_keys))

    def _write_batches(
        self, records: Sequence[PassageRecord], vectors: Sequence[Sequence[float]], size: int
    ) -> list[dict[str, Any]]:
        batches = []
        for start in range(0, len(records), size):
            part = records[start : start + size]
            batches.append(
                {
                    "ids": [r.record_id for r in part],
                    "embeddings": [list(v) for v in vectors[start : start + size]],
                    "documents": [r.text for r in part],
                    "metadatas": [self._metadata_of(r) for r in part],
                }
            )
        return batches

    def _write_sync(
        self, client: Any, doc_ids: list[str], records: list[PassageRecord], vectors: Any
    ) -> None:
        collection = self._create(client, len(vectors[0]))
        self._check_dimensions(self._learn_dimensions(collection), len(vectors[0]))
        self._collections[False] = collection
        size = max(1, min(5000, client.get_max_batch_size()))
        # an empty collection has no old passages to replace (deleting by filter scans)
        for start in range(0, len(doc_ids) if collection.count() else 0, size):
            collection.delete(where={self.id_field: {"$in": doc_ids[start : start + size]}})
        for batch in self._write_batches(records, vectors, size):
            collection.add(**batch)  # old passages were deleted above

    async def add_documents(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = True
    ) -> int:
        """Add or replace documents (by ``id``); returns how many documents were written.

        Documents have ``LocalTextSearch``'s shape (``id``, ``title``, ``text``, ``link``,
        ``metadata``). Each is stored as one record per passage, split as
        ``LocalTextSearch`` splits it (``chunk=False``: one record per document), with its
        embedding. The collection is created when missing. Everything is validated and
        embedded before anything is written; a document's old passages are replaced.

        Raises:
            InvalidRequestError: A document is invalid, or its metadata uses a key this
                connector writes itself.
            ConfigurationError: No embedder, or its vectors do not fit the collection.
            ProviderError: The embedder or the store failed.
            SearchTransportError: The server could not be reached.
        """
        doc_ids, records = self._prepare_write(docs, chunk)
        if not records:
            return 0
        vectors = await self._document_vectors(records)

        async def run_async(client: Any) -> None:
            collection = await client.get_or_create_collection(
                self.collection,
                embedding_function=None,
                configuration={"hnsw": {"space": self.distance}},
                metadata=self._creation_metadata(len(vectors[0])),
            )
            self._check_dimensions(await self._alearn_dimensions(collection), len(vectors[0]))
            self._collections[True] = collection
            size = max(1, min(5000, await client.get_max_batch_size()))
            for start in range(0, len(doc_ids) if await collection.count() else 0, size):
                await collection.delete(
                    where={self.id_field: {"$in": doc_ids[start : start + size]}}
                )
            for batch in self._write_batches(records, vectors, size):
                await collection.add(**batch)

        await self._acall(lambda c: self._write_sync(c, doc_ids, records, vectors), run_async)
        return len(doc_ids)

    def add_documents_sync(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = True
    ) -> int:
        """Blocking twin of :meth:`add_documents`; raises the same errors."""
        doc_ids, records = self._prepare_write(docs, chunk)
        if not records:
            return 0
        vectors = self._document_vectors_sync(records)
        self._call(lambda: self._write_sync(self._client(), doc_ids, records, vectors))
        return len(doc_ids)

    def _creation_metadata(self, dimensions: int) -> dict[str, Any]:
        metadata: dict[str, Any] = {"textsearch_dimensions": dimensions}
        if self.embedder is not None:
            metadata["textsearch_model"] = self.embedder.model
        return metadata

    async def delete_documents(self, ids: Iterable[str]) -> int:
        """Delete documents (all their passages) by id; returns how many ids were given.

        A missing collection or an unknown id is not an error (nothing to delete).

        Raises:
            InvalidRequestError: ``ids`` is not a list of non-empty strings.
            ProviderError: The store failed.
            SearchTransportError: The server could not be reached.
        """
        wanted = document_ids(ids)
        if not wanted:
            return 0

        def run_sync(client: Any) -> None:
            self._delete_sync(client, wanted)

        async def run_async(client: Any) -> None:
            try:
                collection = await client.get_collection(self.collection, embedding_function=None)
            except self._chromadb.errors.NotFoundError:
                return
            await collection.delete(where={self.id_field: {"$in": wanted}})

        await self._acall(run_sync, run_async)
        return len(wanted)

    def delete_documents_sync(self, ids: Iterable[str]) -> int:
        """Blocking twin of :meth:`delete_documents`; raises the same errors."""
        wanted = document_ids(ids)
        if wanted:
            self._call(lambda: self._delete_sync(self._client(), wanted))
        return len(wanted)

    def _delete_sync(self, client: Any, wanted: list[str]) -> None:
        try:
            collection = self._open(client)
        except self._chromadb.errors.NotFoundError:
            return
        collection.delete(where={self.id_field: {"$in": wanted}})

    # -- resources -----------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release the clients this connector created (never an injected client)."""
        if self._owns_async and self._async_client is not None:
            # Chroma's async client keeps one httpx client per event loop, in a dict shared by
            # every async client of the process; the one of this loop is closed and removed
            # (the next call of any client on this loop opens a new one).
            server = getattr(self._async_client, "_server", None)
            shared = getattr(type(server), "_clients", None)
            if isinstance(shared, dict):
                http = shared.pop(hash(asyncio.get_running_loop()), None)
                if http is not None:
                    try:
                        await http.aclose()
                    except Exception:  # closing is best effort
                        pass
            self._async_client = None
            self._owns_async = False
        self.close()

    def close(self) -> None:
        """Release the HTTP client this connector created (never an injected client)."""
        self._collections.clear()
        for client in self._created:
            try:
                _close_client(client)
            except Exception:  # closing is best effort; nothing to report to a caller
                pass
        self._created.clear()
        self._sync_client = None if self._url or self._path else self._sync_client
