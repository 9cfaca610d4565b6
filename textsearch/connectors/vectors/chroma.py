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
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal, TypeVar

from typing_extensions import Unpack

from textsearch._http._redact import register_secret
from textsearch._types import SearchOptions, result_window
from textsearch.connectors.vectors import _base as vs
from textsearch.connectors.vectors._base import Plan, Step, call
from textsearch.connectors.vectors._errors import (
    _close_client,
    _is_http_client,
    chroma_error,
)
from textsearch.connectors.vectors._filters import INSTANT_SUFFIX, companions, visible
from textsearch.connectors.vectors._reads import Keyed, ReadableStore, Scanned
from textsearch.errors import (
    ConfigurationError,
    ResponseFormatError,
    TextSearchError,
)

__all__ = ["ChromaDocument", "ChromaTextSearch"]

PROVIDER = "chroma"
#: Chroma's rule for collection names, checked at construction instead of at the first call
_COLLECTION = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{1,510})[A-Za-z0-9]")
_BLOCKING_POOL: concurrent.futures.ThreadPoolExecutor | None = None
T = TypeVar("T")


def _pool() -> concurrent.futures.ThreadPoolExecutor:
    global _BLOCKING_POOL
    if _BLOCKING_POOL is None:
        _BLOCKING_POOL = concurrent.futures.ThreadPoolExecutor(
            max_workers=8, thread_name_prefix="textsearch-chroma"
        )
    return _BLOCKING_POOL


_RANGE_OPERATORS = {">": "$gt", ">=": "$gte", "<": "$lt", "<=": "$lte"}


class ChromaDocument(vs.VectorDocument):
    """One passage found in a Chroma collection.

    Attributes:
        id: The document's id (``document_id`` metadata; the record's id when absent).
        title: The ``title_field`` metadata.
        text: The record's document (or the ``text_field`` metadata when it has none).
        link: The ``link_field`` metadata, with the passage's ``#anchor`` when it has one.
        metadata: The record's other metadata.
        score: Chroma's distance (lower is closer), as Chroma returns it.
    """


class ChromaTextSearch(ReadableStore[ChromaDocument]):
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
        string_mapper: Custom mapping of a result to the string `search` returns.
        text_search_result_mapper: Custom mapping of a result to a ``TextSearchResult``.

    Raises:
        ImportError: chromadb is not installed (``pip install "textsearch-sdk[chroma]"``).
        ConfigurationError: An invalid argument (a URL with a path or credentials, a
            collection name Chroma does not allow, a field name that is not an identifier, a
            non-positive timeout).

    Filters: ``equal_to``, ``not_equal_to`` and ``any_of`` on ``id``, ``link``, ``site``
    (subdomains match too) and metadata keys, ``any_tag_equal_to`` on metadata keys holding
    lists, ranges on metadata keys; translated to a Chroma ``where`` of ``$eq`` / ``$ne`` /
    ``$contains`` / ``$or`` / ``$gt``... operators (values are data, never parsed). A date
    range compares the instant written beside each ISO-8601 date (``<key>~instant``, hidden
    from results): records written by an older release need adding again for it.
    ``total_count`` counts the records (passages) that match the filter.

    ``get_document`` / ``get_section`` / ``list_documents`` read a collection's documents
    back (whole, by a passage link, a page of ids at a time), as ``LocalTextSearch`` does.
    """

    location_hint: ClassVar[str] = "a folder, ':memory:' or the server's http(s):// URL"
    spec: ClassVar[vs.StoreSpec] = vs.StoreSpec(
        PROVIDER,
        "chromadb",
        ChromaDocument,
        ("api.AsyncClientAPI", "api.ClientAPI"),
        vs.UrlRule(
            "Chroma",
            "put credentials for a Chroma server in headers=",
            "http(s)://host[:port] (no path, query or fragment)",
            path=False,
        ),
        "a chromadb client, ':memory:', a folder or an http(s):// URL",
    )

    def __init__(
        self,
        client_or_location: Any,
        collection: str,
        *,
        distance: Literal["cosine", "l2", "ip"] = "cosine",
        headers: Mapping[str, str] | None = None,
        tenant: str | None = None,
        database: str | None = None,
        **settings: Unpack[vs.StoreSettings[ChromaDocument]],
    ) -> None:
        self._server: tuple[str, int, bool] | None = None
        super().__init__(client_or_location, collection, settings)
        if not _COLLECTION.fullmatch(self.collection):
            raise ConfigurationError(
                f"{self.collection!r} is not a Chroma collection name: 3-512 characters from "
                "letters, digits, '.', '_' and '-', starting and ending with a letter or digit"
            )
        if distance not in ("cosine", "l2", "ip"):
            raise ConfigurationError(f"distance must be 'cosine', 'l2' or 'ip', got {distance!r}")
        self.distance = distance
        self._reserved = sorted(self._own_keys)
        self._headers = dict(headers or {})
        for value in self._headers.values():
            # Header values are credentials ("never shown"): a server that echoes the
            # request's headers in an error body must not put one in a message. The token
            # of "Bearer <token>" is masked on its own too.
            register_secret(str(value).strip())
            register_secret(str(value).strip().rpartition(" ")[2])
        self._tenant = tenant
        self._database = database
        #: the collection as each client opened it (by the client's id; cleared on close)
        self._collections: dict[int, Any] = {}
        self._dimensions: int | None = None
        # a server (by URL or an HTTP client) answers within the deadline of a worker thread
        self._remote = (
            self._url is not None
            or self._given_async
            or (self._sync_client is not None and _is_http_client(self._sync_client))
        )

    def _check_url(self, url: str) -> str:
        parts = vs.check_url(url, self.spec.url)
        ssl = parts.scheme == "https"
        host, port = parts.hostname or "", parts.port or (443 if ssl else 8000)
        self._server = (host, port, ssl)
        return f"{parts.scheme}://{host}:{port}"

    # -- clients -----------------------------------------------------------------------

    def _settings(self) -> Any:
        # Never telemetry from a library; TLS always verified (Chroma's async client turns
        # verification off unless told).
        settings = self._lib.config.Settings(anonymized_telemetry=False)
        if self._server and self._server[2]:
            settings.chroma_server_ssl_verify = True
        return settings

    def _client_kwargs(self) -> dict[str, Any]:
        assert self._server is not None
        host, port, ssl = self._server
        kwargs: dict[str, Any] = {
            "host": host,
            "port": port,
            "ssl": ssl,
            "headers": dict(self._headers) or None,
            "settings": self._settings(),
        }
        return kwargs | vs.present(tenant=self._tenant, database=self._database)

    def _new_client(self) -> Any:
        chromadb = self._lib
        if self._server is not None:
            return chromadb.HttpClient(**self._client_kwargs())
        if self._path == ":memory:":
            return chromadb.EphemeralClient(settings=self._settings())
        return chromadb.PersistentClient(path=self._path, settings=self._settings())

    async def _new_async_client(self) -> Any:
        return await self._lib.AsyncHttpClient(**self._client_kwargs())

    def _blocking(self, fn: Callable[[], T]) -> T:
        """A server's answer is awaited at most ``timeout`` seconds.

        Chroma's HTTP client has no timeout of its own, so a call to a server runs in a
        worker thread that the caller stops waiting for at the deadline.
        """
        if not self._remote:
            return fn()
        future = _pool().submit(fn)
        try:
            return future.result(timeout=self.timeout)
        except concurrent.futures.TimeoutError:
            pass
        raise self._timeout_error()

    def _error(self, exc: BaseException) -> TextSearchError:
        return chroma_error(exc, self.collection, self._where())

    # -- collections ---------------------------------------------------------------------

    def _open_kwargs(self) -> dict[str, Any]:
        return {"name": self.collection, "embedding_function": None}

    def _create_kwargs(self, dimensions: int) -> dict[str, Any]:
        metadata: dict[str, Any] = {"textsearch_dimensions": dimensions}
        if self.embedder is not None:
            metadata["textsearch_model"] = self.embedder.model
        return {
            "name": self.collection,
            "embedding_function": None,
            "configuration": {"hnsw": {"space": self.distance}},
            "metadata": metadata,
        }

    @staticmethod
    def _recorded_dimensions(collection: Any) -> int | None:
        stored = (collection.metadata or {}).get("textsearch_dimensions")
        return stored if isinstance(stored, int) and not isinstance(stored, bool) else None

    @staticmethod
    def _sample_dimensions(sample: Mapping[str, Any]) -> int | None:
        embeddings = sample.get("embeddings")
        if embeddings is not None and len(embeddings):
            return len(embeddings[0])
        return None

    def _check_dimensions(self, found: int | None, vector_length: int) -> None:
        if found is not None:
            self._dimensions = found
        if self._dimensions is not None and self._dimensions != vector_length:
            raise vs.dimension_mismatch(self.collection, self._dimensions, vector_length)

    # -- filters and records -------------------------------------------------------------

    def _field(self, clause: vs.Clause) -> str:
        if clause.target == "metadata":
            return clause.name
        return {"id": self.id_field, "link": self.link_field, "site": self.site_field}[
            clause.target
        ]

    def _equal(self, clause: vs.Clause, value: Any, negate: bool = False) -> dict[str, Any]:
        # "$ne" and "$not_contains" match a record without the field, as not_equal_to must.
        if clause.target == "site" or clause.any_tag:
            return {self._field(clause): {"$not_contains" if negate else "$contains": value}}
        return {self._field(clause): {"$ne" if negate else "$eq": value}}

    def _clause(self, clause: vs.Clause) -> dict[str, Any]:
        if clause.op == "eq":
            return self._equal(clause, clause.value)
        if clause.op == "ne":
            return self._equal(clause, clause.value, negate=True)
        if clause.op == "any":
            options = [self._equal(clause, v) for v in clause.values]
            return options[0] if len(options) == 1 else {"$or": options}
        # A range: Chroma compares numbers (never booleans); a date, its instant companion.
        name = clause.name + INSTANT_SUFFIX if clause.date else clause.name
        return {name: {_RANGE_OPERATORS[clause.op]: clause.value}}

    def _filter_of(self, options: SearchOptions) -> dict[str, Any] | None:
        parts = [self._clause(c) for c in self._clauses(options)]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else {"$and": parts}

    def _metadata_of(self, record: vs.PassageRecord) -> dict[str, Any]:
        # Chroma refuses None values and empty lists: such keys are left out (a filter on
        # them then matches nothing, as a filter on a missing key does).
        metadata: dict[str, Any] = {
            key: value
            for key, value in record.metadata.items()
            if not (isinstance(value, list) and not value)
        }
        metadata.update(companions(metadata))
        metadata.update(self._record_fields(record))
        del metadata[self.text_field]  # the text is the record's document
        if not record.sites:
            del metadata[self.site_field]
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
            fields = dict(metadata or {})
            out.append(
                self._native(
                    fields,
                    record_id=record_id,
                    text=document if isinstance(document, str) else fields.get(self.text_field),
                    metadata=visible({k: v for k, v in fields.items() if k not in self._own_keys}),
                    score=distance,
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
            "n_results": result_window(options),
            "where": where,
            "include": ["documents", "metadatas", "distances"],
        }

    def _collection(self, client: Any, create: dict[str, Any] | None = None) -> Plan[Step, Any]:
        """The collection, opened once per client (created with ``create`` when missing)."""
        kept = self._collections.get(id(client))
        if kept is None or create is not None:
            opener = client.get_or_create_collection if create else client.get_collection
            kept = yield call(opener, **(create or self._open_kwargs()))
            self._collections[id(client)] = kept
        return kept

    def _dimensions_of(self, collection: Any, vector_length: int) -> Plan[Step, None]:
        found = self._recorded_dimensions(collection)
        if found is None and self._dimensions is None:
            sample = yield call(collection.get, limit=1, include=["embeddings"])
            found = self._sample_dimensions(sample)
        self._check_dimensions(found, vector_length)

    def _search(
        self, client: Any, vector: list[float], query: str, options: SearchOptions, flt: Any
    ) -> Plan[Step, tuple[Any, int | None]]:
        collection = yield from self._collection(client)
        if self._dimensions is None:
            yield from self._dimensions_of(collection, len(vector))
        self._check_dimensions(None, len(vector))
        answer = yield call(collection.query, **self._query_kwargs(vector, options, flt))
        if not options.include_total_count:
            return answer, None
        if flt is None:
            return answer, (yield call(collection.count))
        return answer, len((yield call(collection.get, where=flt, include=[]))["ids"])

    def _scan(self, client: Any, flt: Any, text: bool) -> Plan[Step, list[Scanned]]:
        collection = yield from self._collection(client)
        include = ["documents", "metadatas"] if text else ["metadatas"]
        out: list[Scanned] = []
        while True:
            answer = yield call(
                collection.get, where=flt, include=include, limit=self.scan_batch, offset=len(out)
            )
            found = self._scanned(answer)
            out.extend(found)
            if len(found) < self.scan_batch:
                return out

    def _scan_keys(self, client: Any, flt: Any, exact: bool) -> Plan[Step, list[Keyed]]:
        # Chroma gives a record's metadata whole or not at all, and reading it is most of a
        # scan's time (17x the ids alone): a record named "<x>#<n>" is taken for passage n of
        # document x, as add_documents names them; others are read for their document id.
        collection = yield from self._collection(client)
        ids: list[str] = []
        while True:
            answer = yield call(
                collection.get, where=flt, include=[], limit=self.key_batch, offset=len(ids)
            )
            batch = [str(key) for key in answer.get("ids") or []]
            ids.extend(batch)
            if len(batch) < self.key_batch:
                break
        out: list[Keyed] = []
        loose: list[str] = []
        for key in ids:
            head, _, tail = key.rpartition("#")
            if head and tail.isdigit() and not exact:
                out.append((key, key, head))
            else:
                loose.append(key)
        for start in range(0, len(loose), self.scan_batch):
            part = loose[start : start + self.scan_batch]
            answer = yield call(collection.get, ids=part, include=["metadatas"])
            metadatas = answer.get("metadatas") or [None] * len(answer.get("ids") or [])
            for key, metadata in zip(answer.get("ids") or [], metadatas, strict=True):
                doc_id = vs.document_id_of((metadata or {}).get(self.id_field), key)
                out.append((key, str(key), doc_id))
        return out

    def _fetch_records(self, client: Any, keys: list[Any]) -> Plan[Step, list[Scanned]]:
        collection = yield from self._collection(client)
        return self._scanned((yield call(collection.get, ids=keys, include=["metadatas"])))

    def _scanned(self, answer: Mapping[str, Any]) -> list[Scanned]:
        """The records of a ``get`` answer (with their texts when it has them)."""
        ids = list(answer.get("ids") or [])
        metadatas = list(answer.get("metadatas") or [None] * len(ids))
        documents = list(answer.get("documents") or [None] * len(ids))
        found = self._results(
            {
                "ids": [ids],
                "documents": [documents],
                "metadatas": [metadatas],
                "distances": [[None] * len(ids)],
            }
        )
        fragments = [(m or {}).get(vs.FRAGMENT_KEY) for m in metadatas]
        return list(zip(map(str, ids), found, fragments, strict=True))

    # -- writing -------------------------------------------------------------------------

    def _write_batches(
        self, records: Sequence[vs.PassageRecord], vectors: Sequence[Sequence[float]], size: int
    ) -> Iterator[dict[str, Any]]:
        # one batch at a time: a large write never holds every record's metadata at once
        for start in range(0, len(records), size):
            part = records[start : start + size]
            yield {
                "ids": [r.record_id for r in part],
                "embeddings": vectors[start : start + size],
                "documents": [r.text for r in part],
                "metadatas": [self._metadata_of(r) for r in part],
            }

    def _write(
        self, client: Any, doc_ids: list[str], records: list[vs.PassageRecord], vectors: Any
    ) -> Plan[Step, None]:
        create = self._create_kwargs(len(vectors[0]))
        collection = yield from self._collection(client, create)
        yield from self._dimensions_of(collection, len(vectors[0]))
        size = max(1, min(5000, (yield call(client.get_max_batch_size))))
        # an empty collection has no old passages to replace (deleting by filter scans)
        for start in range(0, len(doc_ids) if (yield call(collection.count)) else 0, size):
            where = {self.id_field: {"$in": doc_ids[start : start + size]}}
            yield call(collection.delete, where=where)
        for batch in self._write_batches(records, vectors, size):
            yield call(collection.add, **batch)  # old passages were deleted above

    def _delete(self, client: Any, wanted: list[str]) -> Plan[Step, None]:
        try:
            collection = yield call(client.get_collection, **self._open_kwargs())
        except self._lib.errors.NotFoundError:
            return
        yield call(collection.delete, where={self.id_field: {"$in": wanted}})

    # -- resources -----------------------------------------------------------------------

    def _forget(self) -> None:
        self._collections.clear()

    def _close_client(self, client: Any) -> None:
        if self._path != ":memory:":  # an ephemeral store lives as long as its client
            _close_client(client)

    async def _close_async_client(self, client: Any) -> None:
        # Chroma's async client keeps one httpx client per event loop, in a dict shared by
        # every async client of the process; the one of this loop is closed and removed
        # (the next call of any client on this loop opens a new one).
        server = getattr(client, "_server", None)
        shared = getattr(type(server), "_clients", None)
        if isinstance(shared, dict):
            http = shared.pop(hash(asyncio.get_running_loop()), None)
            if http is not None:
                await http.aclose()
