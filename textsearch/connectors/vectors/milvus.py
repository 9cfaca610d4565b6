"""``MilvusTextSearch``: semantic and hybrid search over a Milvus collection (extra ``milvus``).

Milvus runs in-process for a local file (Milvus Lite: ``MilvusClient("file.db")``) or as a
server or cluster (a URI). A server is reached with ``AsyncMilvusClient`` from the async methods
and ``MilvusClient`` from the blocking ones; a Milvus Lite file is served by one
``MilvusClient`` whose calls run in a worker thread on the async path.

Filters are Milvus boolean expressions, which are text: every value is written as a literal
by :func:`literal` (strings double-quoted with backslash, quote and line breaks escaped; numbers
and booleans from Python's own representation), and field names are checked against a
pattern that needs no quoting. Milvus Lite does not parse expression templates
(``filter_params``), so literals are the one form that works on both.

Hybrid search is Milvus' own: a collection made by ``add_documents`` has a BM25 function that
turns the text into a sparse vector on the server, and a search runs a dense and a full-text
request fused by Milvus' RRF ranker in one ``hybrid_search``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from textsearch._http._redact import register_secret
from textsearch._types import SearchOptions, SearchResults, TextSearchResult
from textsearch.connectors.local import LocalDocument
from textsearch.connectors.vectors._base import (
    FIELD_NAME,
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
from textsearch.connectors.vectors._errors import _check_uri, milvus_error
from textsearch.embeddings import Embedder
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    TextSearchError,
)

__all__ = ["MilvusDocument", "MilvusTextSearch", "literal"]

PROVIDER = "milvus"
TOKEN_ENV = "MILVUS_TOKEN"
FRAGMENT_FIELD = "link_fragment"
PRIMARY_FIELD = "pk"
_MAX_KEY = 1024  # bytes of a record id / document id (VARCHAR primary key)
_MAX_TEXT = 65535  # bytes of a VARCHAR
_MAX_LINK = 8192
_BATCH = 256
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def literal(value: str | int | float | bool) -> str:
    """A filter value as a Milvus expression literal.

    Strings are double-quoted with backslash, quote and line breaks escaped (a raw line
    break ends a string in Milvus' parser; other characters stand for themselves); booleans
    are ``true`` / ``false``; numbers are Python's ``repr`` (finite, checked before).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidRequestError(f"filter values must be finite, got {value}")
        return repr(value)
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in value) + '"'


def _key(name: str) -> str:
    # A JSON key is written as a string literal inside brackets; names are checked against
    # FIELD_NAME first, so the quoting is belt and braces.
    if not FIELD_NAME.fullmatch(name):
        raise InvalidRequestError(f"{name!r} is not a field name")
    return literal(name)


class MilvusDocument(VectorDocument):
    """One passage found in a Milvus collection.

    Attributes:
        id: The document's id (``document_id`` field; the primary key when absent).
        title: The ``title_field`` value (``None`` when empty).
        text: The ``text_field`` value.
        link: The ``link_field`` value, with the passage's ``#anchor`` when it has one.
        metadata: The ``metadata_field`` JSON object (or, with ``metadata_field=None``, the
            entity's other fields, dynamic ones included).
        score: Milvus' score: the similarity for COSINE/IP (higher is closer), the distance
            for L2, or the fused score in hybrid mode.
    """


class MilvusTextSearch(VectorStoreTextSearch[MilvusDocument]):
    """Search over a Milvus collection (dense or hybrid); also manages one (``add_documents``).

    Args:
        client_or_location: A ``MilvusClient`` or ``AsyncMilvusClient`` (never closed by
            this connector), a local file ending in ``.db`` (Milvus Lite), or an
            ``http(s)://`` URI of a Milvus server or cluster (Zilliz Cloud included).
        collection: The collection's name.
        embedder: Turns the query (and added documents) into vectors; required.
        text_field: Field of the text (a VARCHAR).
        title_field: Field of the title.
        link_field: Field of the link.
        id_field: Field of the document id (``id`` filters and ``delete_documents``).
        site_field: ARRAY field of the link's host and parent domains (``site`` filters).
        metadata_field: JSON field of the metadata; ``None`` for a collection whose metadata
            keys are fields or dynamic fields.
        vector_field: The dense vector field.
        sparse_field: The BM25 function's sparse output field, for hybrid search.
        mode: ``"semantic"`` (dense only), ``"hybrid"`` (dense and BM25 full text fused by
            Milvus' RRF ranker), or ``None``: hybrid when the collection has the BM25 field.
        metric: Metric of the dense index of a collection this connector creates.
        token: A server's token (``user:password`` or an API key; default: the
            ``MILVUS_TOKEN`` environment variable); never shown.
        db_name: The server's database.
        timeout: Seconds one call may take.
        string_mapper: Custom mapping of a result to the string :meth:`search` returns.
        text_search_result_mapper: Custom mapping of a result to a ``TextSearchResult``.

    Raises:
        ImportError: pymilvus is not installed (``pip install "textsearch-sdk[milvus]"``).
        ConfigurationError: An invalid argument.

    Filters: ``equal_to`` on ``id``, ``link``, ``site`` (subdomains match too) and metadata
    keys, ``any_tag_equal_to`` on metadata keys holding lists (``json_contains``). Milvus
    compares JSON ``true`` and ``1`` as equal. ``total_count`` is Milvus' ``count(*)`` of the
    entities (passages) matching the filter.
    """

    provider_name: ClassVar[str] = PROVIDER
    connector: ClassVar[str] = "MilvusTextSearch"
    extra: ClassVar[str] = "milvus"

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
        metadata_field: str | None = "metadata",
        vector_field: str = "vector",
        sparse_field: str = "sparse",
        mode: Literal["semantic", "hybrid"] | None = None,
        metric: Literal["COSINE", "IP", "L2"] = "COSINE",
        token: str | None = None,
        db_name: str | None = None,
        timeout: float = 10.0,
        string_mapper: Callable[[MilvusDocument], str] | None = None,
        text_search_result_mapper: Callable[[MilvusDocument], TextSearchResult] | None = None,
    ) -> None:
        super().__init__(
            collection=collection,
            embedder=embedder,
            timeout=timeout,
            string_mapper=string_mapper,
            text_search_result_mapper=text_search_result_mapper,
        )
        self._pymilvus = require("pymilvus", "milvus", self.connector)
        names = {}
        for what, value in (
            ("text_field", text_field),
            ("title_field", title_field),
            ("link_field", link_field),
            ("id_field", id_field),
            ("site_field", site_field),
            ("vector_field", vector_field),
            ("sparse_field", sparse_field),
        ):
            names[what] = check_field_name(value, what)
        self.text_field = names["text_field"]
        self.title_field = names["title_field"]
        self.link_field = names["link_field"]
        self.id_field = names["id_field"]
        self.site_field = names["site_field"]
        self.vector_field = names["vector_field"]
        self.sparse_field = names["sparse_field"]
        self.metadata_field = (
            None if metadata_field is None else check_field_name(metadata_field, "metadata_field")
        )
        if mode not in (None, "semantic", "hybrid"):
            raise ConfigurationError(f"mode must be 'semantic', 'hybrid' or None, got {mode!r}")
        self.mode = mode
        if metric not in ("COSINE", "IP", "L2"):
            raise ConfigurationError(f"metric must be 'COSINE', 'IP' or 'L2', got {metric!r}")
        self.metric = metric
        self._token = token or os.environ.get(TOKEN_ENV) or None
        register_secret(self._token)
        self._db_name = db_name
        self._own = frozenset(
            (
                PRIMARY_FIELD,
                self.text_field,
                self.title_field,
                self.link_field,
                self.id_field,
                self.site_field,
                FRAGMENT_FIELD,
                self.vector_field,
                self.sparse_field,
            )
        )
        self._sync_client: Any = None
        self._async_client: Any = None
        self._owns_sync = False
        self._owns_async = False
        self._uri: str | None = None
        self._file: str | None = None
        # (dense dimension, hybrid available, output fields), learnt once
        self._layout: tuple[int, bool, list[str]] | None = None
        self._primary = PRIMARY_FIELD
        if isinstance(client_or_location, (str, os.PathLike)):
            location = os.fspath(client_or_location)
            if location.startswith(("http://", "https://", "tcp://", "grpc://")):
                self._uri = _check_uri(location)
            elif location.endswith(".db"):
                self._file = location
            else:
                raise ConfigurationError(
                    "a Milvus location is a Milvus Lite file ending in .db or an http(s):// URI"
                )
        elif isinstance(client_or_location, self._pymilvus.AsyncMilvusClient):
            self._async_client = client_or_location
        elif isinstance(client_or_location, self._pymilvus.MilvusClient):
            self._sync_client = client_or_location
        else:
            raise ConfigurationError(
                "client_or_location must be a MilvusClient or AsyncMilvusClient, a .db file "
                f"or an http(s):// URI, not {type(client_or_location).__name__}"
            )

    def __repr__(self) -> str:
        where = self._uri or self._file or "client"
        return f"MilvusTextSearch({where!r}, collection={self.collection!r})"

    # -- clients -----------------------------------------------------------------------

    def _client_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"uri": self._uri or self._file, "timeout": self.timeout}
        if self._token:
            kwargs["token"] = self._token
        if self._db_name:
            kwargs["db_name"] = self._db_name
        return kwargs

    def _client(self) -> Any:
        if self._sync_client is not None:
            return self._sync_client
        if self._async_client is not None and self._uri is None and self._file is None:
            raise ConfigurationError(
                "MilvusTextSearch was given an async client: use the async methods, or pass "
                "a URI to have both"
            )
        with self._lock:
            if self._sync_client is None:
                self._sync_client = self._pymilvus.MilvusClient(**self._client_kwargs())
                self._owns_sync = True
        return self._sync_client

    def _aclient(self) -> Any:
        """The async client, or ``None`` for Milvus Lite (a worker thread then)."""
        if self._async_client is not None:
            return self._async_client
        if self._uri is None:
            return None
        self._async_client = self._pymilvus.AsyncMilvusClient(**self._client_kwargs())
        self._owns_async = True
        return self._async_client

    def _call(self, fn: Callable[[Any], Any]) -> Any:
        try:
            return fn(self._client())
        except Exception as exc:  # every client failure becomes a documented error
            error = self._error(exc)
        raise error

    async def _acall(self, sync_fn: Callable[[Any], Any], async_fn: Callable[[Any], Any]) -> Any:
        try:
            client = self._aclient()
            if client is None:
                return await self._in_thread(lambda: sync_fn(self._client()))
            return await self._bounded(async_fn(client))
        except TextSearchError:
            raise
        except Exception as exc:
            error = self._error(exc)
        raise error

    def _error(self, exc: BaseException) -> TextSearchError:
        return milvus_error(exc, self.collection, self._uri or self._file or "the client")

    def _missing(self) -> TextSearchError:
        # Asked with has_collection first: describe_collection of a missing collection makes
        # pymilvus log an ERROR with a traceback on stderr before we can map it.
        return milvus_error(
            LookupError("collection not found"), self.collection, self._uri or self._file or "?"
        )

    # -- collection layout -------------------------------------------------------------

    def _layout_of(self, description: Mapping[str, Any]) -> tuple[int, bool, list[str]]:
        fields = {f["name"]: f for f in description.get("fields", [])}
        primary = [name for name, f in fields.items() if f.get("is_primary")]
        self._primary = primary[0] if primary else PRIMARY_FIELD
        vector = fields.get(self.vector_field)
        if vector is None or "dim" not in (vector.get("params") or {}):
            raise ConfigurationError(
                f"collection {self.collection!r} has no dense vector field "
                f"{self.vector_field!r}; its fields: {', '.join(sorted(fields))} "
                "(set vector_field=)"
            )
        bm25 = any(
            self.sparse_field in (fn.get("output_field_names") or [])
            for fn in description.get("functions", []) or []
        )
        if self.mode == "hybrid" and not bm25:
            raise ConfigurationError(
                f"collection {self.collection!r} has no BM25 function writing "
                f"{self.sparse_field!r}: hybrid search needs one (mode='semantic' searches "
                "the dense vector only)"
            )
        if self.metadata_field is None:
            output = ["*"]
        else:
            wanted = (
                self.id_field,
                self.text_field,
                self.title_field,
                self.link_field,
                FRAGMENT_FIELD,
                self.metadata_field,
            )
            output = [name for name in wanted if name in fields]
        return int(vector["params"]["dim"]), bm25, output

    def _check(self, layout: tuple[int, bool, list[str]], length: int) -> None:
        self._layout = layout
        if layout[0] != length:
            raise dimension_mismatch(self.collection, layout[0], length)

    def _schema(self, client: Any, dimensions: int) -> tuple[Any, Any]:
        pm = self._pymilvus
        dt = pm.DataType
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field(PRIMARY_FIELD, dt.VARCHAR, is_primary=True, max_length=_MAX_KEY)
        schema.add_field(self.id_field, dt.VARCHAR, max_length=_MAX_KEY)
        schema.add_field(self.text_field, dt.VARCHAR, max_length=_MAX_TEXT, enable_analyzer=True)
        schema.add_field(self.title_field, dt.VARCHAR, max_length=_MAX_TEXT)
        schema.add_field(self.link_field, dt.VARCHAR, max_length=_MAX_LINK)
        schema.add_field(FRAGMENT_FIELD, dt.VARCHAR, max_length=_MAX_LINK)
        schema.add_field(
            self.site_field, dt.ARRAY, element_type=dt.VARCHAR, max_capacity=128, max_length=256
        )
        schema.add_field(self.metadata_field or "metadata", dt.JSON)
        schema.add_field(self.vector_field, dt.FLOAT_VECTOR, dim=dimensions)
        schema.add_field(self.sparse_field, dt.SPARSE_FLOAT_VECTOR)
        schema.add_function(
            pm.Function(
                name=f"{self.sparse_field}_bm25",
                function_type=pm.FunctionType.BM25,
                input_field_names=[self.text_field],
                output_field_names=[self.sparse_field],
            )
        )
        index = client.prepare_index_params()
        index.add_index(self.vector_field, index_type="AUTOINDEX", metric_type=self.metric)
        index.add_index(self.sparse_field, index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
        return schema, index

    # -- filters -------------------------------------------------------------------------

    def _expression(self, clause: Clause) -> str:
        value = literal(clause.value)
        if clause.target == "id":
            return f"{self.id_field} == {value}"
        if clause.target == "link":
            return f"{self.link_field} == {value}"
        if clause.target == "site":
            return f"array_contains({self.site_field}, {value})"
        holder = self.metadata_field or "$meta"
        path = f"{holder}[{_key(clause.name)}]"
        if clause.any_tag:
            return f"json_contains({path}, {value})"
        return f"{path} == {value}"

    def _filter_of(self, options: SearchOptions) -> str:
        clauses = check_filter(options.filter, connector=self.connector)
        return " and ".join(f"({self._expression(c)})" for c in clauses)

    # -- search --------------------------------------------------------------------------

    def _request(self, vector: list[float], query: str, options: SearchOptions, expr: str) -> Any:
        assert self._layout is not None
        _, bm25, output = self._layout
        limit = options.top + options.skip
        hybrid = bm25 if self.mode is None else self.mode == "hybrid"
        if not hybrid:
            return "search", {
                "collection_name": self.collection,
                "data": [vector],
                "anns_field": self.vector_field,
                "limit": limit,
                "filter": expr,
                "output_fields": output,
            }
        pm = self._pymilvus
        depth = max(limit * 4, 40)
        requests = [
            pm.AnnSearchRequest(
                data=[vector], anns_field=self.vector_field, param={}, limit=depth, expr=expr
            ),
            pm.AnnSearchRequest(
                data=[query], anns_field=self.sparse_field, param={}, limit=depth, expr=expr
            ),
        ]
        return "hybrid_search", {
            "collection_name": self.collection,
            "reqs": requests,
            "ranker": pm.RRFRanker(60),
            "limit": limit,
            "output_fields": output,
        }

    def _results(self, hits: Sequence[Any]) -> list[MilvusDocument]:
        out = []
        for hit in hits:
            entity = dict(hit.get("entity") or {})
            primary = hit.get("id", entity.get(self._primary))
            doc_id = entity.get(self.id_field)
            title = entity.get(self.title_field)
            text = entity.get(self.text_field)
            link = entity.get(self.link_field)
            fragment = entity.get(FRAGMENT_FIELD)
            if isinstance(link, str) and link and isinstance(fragment, str):
                link += fragment
            if self.metadata_field is not None:
                metadata = entity.get(self.metadata_field)
                metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
            else:
                metadata = {
                    k: v for k, v in entity.items() if k not in self._own and k != self._primary
                }
            score = hit.get("distance")
            out.append(
                _trusted(
                    MilvusDocument,
                    id=str(doc_id) if doc_id not in (None, "") else str(primary),
                    title=title if isinstance(title, str) and title else None,
                    text=text if isinstance(text, str) else "",
                    link=link if isinstance(link, str) and link else None,
                    metadata=metadata,
                    score=float(score) if isinstance(score, (int, float)) else None,
                )
            )
        return out

    @staticmethod
    def _count(rows: Any) -> int | None:
        try:
            return int(rows[0]["count(*)"])
        except (LookupError, TypeError, ValueError):
            return None

    def _search_sync(
        self, client: Any, vector: list[float], query: str, options: SearchOptions, expr: str
    ) -> tuple[Any, int | None]:
        if self._layout is None:
            if not client.has_collection(self.collection):
                raise self._missing()
            self._layout = self._layout_of(client.describe_collection(self.collection))
        self._check(self._layout, len(vector))
        method, kwargs = self._request(vector, query, options, expr)
        hits = getattr(client, method)(**kwargs)[0]
        total = None
        if options.include_total_count:
            rows = client.query(self.collection, filter=expr, output_fields=["count(*)"])
            total = self._count(rows)
        return list(hits), total

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[MilvusDocument]:
        expr = self._filter_of(options)
        vector = await self._query_vector(query)

        async def run_async(client: Any) -> tuple[Any, int | None]:
            if self._layout is None:
                if not await client.has_collection(self.collection):
                    raise self._missing()
                self._layout = self._layout_of(await client.describe_collection(self.collection))
            self._check(self._layout, len(vector))
            method, kwargs = self._request(vector, query, options, expr)
            hits = (await getattr(client, method)(**kwargs))[0]
            total = None
            if options.include_total_count:
                rows = await client.query(self.collection, filter=expr, output_fields=["count(*)"])
                total = self._count(rows)
            return list(hits), total

        hits, total = await self._acall(
            lambda c: self._search_sync(c, vector, query, options, expr), run_async
        )
        return self._page(self._results(hits), options, total)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[MilvusDocument]:
        expr = self._filter_of(options)
        vector = self._query_vector_sync(query)
        hits, total = self._call(lambda c: self._search_sync(c, vector, query, options, expr))
        return self._page(self._results(hits), options, total)

    # -- writing -------------------------------------------------------------------------

    def _rows(self, records: Sequence[PassageRecord], vectors: Sequence[list[float]]) -> list[Any]:
        rows = []
        for record, vector in zip(records, vectors, strict=True):
            rows.append(
                {
                    PRIMARY_FIELD: record.record_id,
                    self.id_field: record.document_id,
                    self.text_field: record.text,
                    self.title_field: record.title or "",
                    self.link_field: record.link or "",
                    FRAGMENT_FIELD: record.fragment or "",
                    self.site_field: record.sites[:128],
                    self.metadata_field or "metadata": dict(record.metadata),
                    self.vector_field: vector,
                }
            )
        return rows

    def _prepare_write(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], chunk: bool
    ) -> tuple[list[str], list[PassageRecord]]:
        self._need_embedder()
        if self.metadata_field is None:
            raise ConfigurationError(
                "add_documents writes a collection with a JSON metadata field: set "
                "metadata_field= (the default is 'metadata')"
            )
        doc_ids, records = passage_records(docs, chunk=chunk, reserved=())
        for record in records:
            for what, text, limit in (
                ("id", record.record_id, _MAX_KEY),
                ("text", record.text, _MAX_TEXT),
                ("title", record.title or "", _MAX_TEXT),
                ("link", record.link or "", _MAX_LINK),
            ):
                if len(text.encode("utf-8", "surrogatepass")) > limit:
                    raise InvalidRequestError(
                        f"document {record.document_id[:80]!r}: its {what} is longer than "
                        f"Milvus' {limit} bytes" + (" (use chunk=True)" if what == "text" else "")
                    )
        return doc_ids, records

    def _delete_filter(self, wanted: Sequence[str]) -> str:
        return f"{self.id_field} in [{', '.join(literal(i) for i in wanted)}]"

    def _write_sync(
        self, client: Any, doc_ids: list[str], records: list[PassageRecord], vectors: Any
    ) -> None:
        fresh = not client.has_collection(self.collection)
        if fresh:
            schema, index = self._schema(client, len(vectors[0]))
            client.create_collection(self.collection, schema=schema, index_params=index)
        self._check(self._layout_of(client.describe_collection(self.collection)), len(vectors[0]))
        # a collection made just now has no old passages to replace
        for start in range(0, 0 if fresh else len(doc_ids), _BATCH):
            part = doc_ids[start : start + _BATCH]
            client.delete(self.collection, filter=self._delete_filter(part))
        rows = self._rows(records, vectors)
        for start in range(0, len(rows), _BATCH):
            client.insert(self.collection, rows[start : start + _BATCH])

    async def add_documents(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = True
    ) -> int:
        """Add or replace documents (by ``id``); returns how many documents were written.

        Documents have ``LocalTextSearch``'s shape; each is stored as one entity per passage
        (split as ``LocalTextSearch`` splits it; ``chunk=False``: one per document) with its
        vector; Milvus' BM25 function indexes the text for hybrid search. The collection is
        created when missing. Everything is validated and embedded before anything is
        written; a document's old passages are replaced.

        Raises:
            InvalidRequestError: A document is invalid or too long for a Milvus field.
            ConfigurationError: No embedder, or its vectors do not fit the collection.
            ProviderError: The embedder or the store failed.
            SearchTransportError: The server could not be reached.
        """
        doc_ids, records = self._prepare_write(docs, chunk)
        if not records:
            return 0
        vectors = await self._document_vectors(records)

        async def run_async(client: Any) -> None:
            fresh = not await client.has_collection(self.collection)
            if fresh:
                schema, index = self._schema(client, len(vectors[0]))
                await client.create_collection(self.collection, schema=schema, index_params=index)
            description = await client.describe_collection(self.collection)
            self._check(self._layout_of(description), len(vectors[0]))
            for start in range(0, 0 if fresh else len(doc_ids), _BATCH):
                part = doc_ids[start : start + _BATCH]
                await client.delete(self.collection, filter=self._delete_filter(part))
            rows = self._rows(records, vectors)
            for start in range(0, len(rows), _BATCH):
                await client.insert(self.collection, rows[start : start + _BATCH])

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
        self._call(lambda c: self._write_sync(c, doc_ids, records, vectors))
        return len(doc_ids)

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

        async def run_async(client: Any) -> None:
            if await client.has_collection(self.collection):
                for start in range(0, len(wanted), _BATCH):
                    part = wanted[start : start + _BATCH]
                    await client.delete(self.collection, filter=self._delete_filter(part))

        await self._acall(lambda c: self._delete_sync(c, wanted), run_async)
        return len(wanted)

    def delete_documents_sync(self, ids: Iterable[str]) -> int:
        """Blocking twin of :meth:`delete_documents`; raises the same errors."""
        wanted = document_ids(ids)
        if wanted:
            self._call(lambda c: self._delete_sync(c, wanted))
        return len(wanted)

    def _delete_sync(self, client: Any, wanted: list[str]) -> None:
        if client.has_collection(self.collection):
            for start in range(0, len(wanted), _BATCH):
                part = wanted[start : start + _BATCH]
                client.delete(self.collection, filter=self._delete_filter(part))

    # -- resources -----------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release the clients this connector created (never an injected client)."""
        if self._owns_async and self._async_client is not None:
            try:
                await self._async_client.close()
            except Exception:  # closing is best effort
                pass
            self._async_client = None
            self._owns_async = False
        self.close()

    def close(self) -> None:
        """Release the blocking client this connector created (never an injected client).

        A Milvus Lite file stays held by its engine until the process exits.
        """
        if self._owns_sync and self._sync_client is not None:
            try:
                self._sync_client.close()
            except Exception:  # closing is best effort
                pass
            self._sync_client = None
            self._owns_sync = False
        self._layout = None
