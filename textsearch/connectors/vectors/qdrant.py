"""``QdrantTextSearch``: semantic and hybrid search over a Qdrant collection (extra ``qdrant``).

Qdrant runs in-process (``":memory:"`` or a folder: qdrant-client's local mode) or as a
server or cluster (a URL). A server is reached with ``AsyncQdrantClient`` from the async
methods and ``QdrantClient`` from the blocking ones; the in-process engine is one
``QdrantClient`` whose calls run in a worker thread on the async path (an async local client
would be a second, separate store).

Hybrid search is Qdrant's own: a collection made by ``add_documents`` has a dense vector and
a sparse one with Qdrant's IDF modifier; the sparse vector holds each word's saturated term
frequency (BM25's document side, computed here), Qdrant supplies the inverse document
frequency, and the two rankings are fused by reciprocal rank fusion in one ``query_points``.
"""

from __future__ import annotations

import os
import re
import uuid
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Literal

from textsearch._http._redact import register_secret
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
from textsearch.connectors.vectors._errors import _check_url, qdrant_error
from textsearch.embeddings import Embedder
from textsearch.errors import (
    ConfigurationError,
    TextSearchError,
)

__all__ = ["QdrantDocument", "QdrantTextSearch"]

PROVIDER = "qdrant"
API_KEY_ENV = "QDRANT_API_KEY"
FRAGMENT_KEY = "link_fragment"
#: point ids are UUIDs derived from ``<document id>#<n>`` (Qdrant takes integers or UUIDs)
_POINT_NAMESPACE = uuid.UUID("8f6e2f0a-54a4-4c43-9d1e-7f0b5b3c2a61")
_WORD = re.compile(r"\w+")
# BM25's document side: term frequency saturated by k1, normalised by length with b against
# a fixed average length (the collection's true average is not known to a writer).
_K1, _B, _AVERAGE_LENGTH = 1.2, 0.75, 256.0
_BATCH = 256


def sparse_of_text(text: str) -> tuple[list[int], list[float]]:
    """Indices (crc32 of each lower-cased word) and saturated term frequencies of ``text``."""
    words = _WORD.findall(text.lower())
    counts = Counter(zlib.crc32(w.encode()) for w in words)
    length = len(words) or 1
    norm = _K1 * (1 - _B + _B * length / _AVERAGE_LENGTH)
    indices = sorted(counts)
    return indices, [counts[i] * (_K1 + 1) / (counts[i] + norm) for i in indices]


def sparse_of_query(text: str) -> tuple[list[int], list[float]]:
    """Each distinct word of a query once (Qdrant's IDF modifier weighs them)."""
    indices = sorted({zlib.crc32(w.encode()) for w in _WORD.findall(text.lower())})
    return indices, [1.0] * len(indices)


def point_id(record_id: str) -> str:
    """The Qdrant point id of a record: a UUID derived from ``<document id>#<n>``."""
    return str(uuid.uuid5(_POINT_NAMESPACE, record_id))


class QdrantDocument(VectorDocument):
    """One passage found in a Qdrant collection.

    Attributes:
        id: The document's id (``document_id`` in the payload; the point id when absent).
        title: The ``title_field`` payload value.
        text: The ``text_field`` payload value.
        link: The ``link_field`` payload value, with the passage's ``#anchor`` when it has one.
        metadata: The ``metadata_field`` object (or, with ``metadata_field=None``, the rest
            of the payload).
        score: Qdrant's score: the similarity (higher is closer), or the fused score in
            hybrid mode.
    """


class QdrantTextSearch(VectorStoreTextSearch[QdrantDocument]):
    """Search over a Qdrant collection (dense or hybrid); also manages one (``add_documents``).

    Args:
        client_or_location: A ``QdrantClient`` or ``AsyncQdrantClient`` (never closed by
            this connector), ``":memory:"`` or a folder (Qdrant's local mode, in-process), or
            an ``http(s)://`` URL of a Qdrant server or cluster.
        collection: The collection's name.
        embedder: Turns the query (and added documents) into vectors; required.
        text_field: Payload key of the text.
        title_field: Payload key of the title.
        link_field: Payload key of the link.
        id_field: Payload key of the document id (``id`` filters and ``delete_documents``).
        site_field: Payload key of the link's host and parent domains (``site`` filters).
        metadata_field: Payload key of the metadata object; ``None`` when metadata keys are
            top-level payload keys (a collection you made that way).
        vector_name: Name of the dense vector (``None`` or an unnamed collection: the
            collection's only vector).
        sparse_vector_name: Name of the sparse vector for hybrid search (``None``: none).
        mode: ``"semantic"`` (dense only), ``"hybrid"`` (dense and sparse fused), or
            ``None``: hybrid when the collection has the sparse vector, else semantic.
        distance: Qdrant distance for a collection this connector creates.
        api_key: Key of a Qdrant server (default: the ``QDRANT_API_KEY`` environment
            variable); never shown.
        timeout: Seconds one call may take.
        string_mapper: Custom mapping of a result to the string :meth:`search` returns.
        text_search_result_mapper: Custom mapping of a result to a ``TextSearchResult``.

    Raises:
        ImportError: qdrant-client is not installed (``pip install "textsearch-sdk[qdrant]"``).
        ConfigurationError: An invalid argument.

    Filters: ``equal_to`` on ``id``, ``link``, ``site`` (subdomains match too) and metadata
    keys, ``any_tag_equal_to`` on metadata keys holding lists: Qdrant ``FieldCondition``s
    (``MatchValue``; a float compares by a closed ``Range``) under one ``must``.
    ``total_count`` is Qdrant's exact count of the points (passages) matching the filter.
    """

    provider_name: ClassVar[str] = PROVIDER
    connector: ClassVar[str] = "QdrantTextSearch"
    extra: ClassVar[str] = "qdrant"

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
        vector_name: str | None = "dense",
        sparse_vector_name: str | None = "sparse",
        mode: Literal["semantic", "hybrid"] | None = None,
        distance: Literal["cosine", "dot", "euclid"] = "cosine",
        api_key: str | None = None,
        timeout: float = 10.0,
        string_mapper: Callable[[QdrantDocument], str] | None = None,
        text_search_result_mapper: Callable[[QdrantDocument], TextSearchResult] | None = None,
    ) -> None:
        super().__init__(
            collection=collection,
            embedder=embedder,
            timeout=timeout,
            string_mapper=string_mapper,
            text_search_result_mapper=text_search_result_mapper,
        )
        self._qdrant = require("qdrant_client", "qdrant", self.connector)
        from qdrant_client import models

        self._models = models
        self.text_field = check_field_name(text_field, "text_field")
        self.title_field = check_field_name(title_field, "title_field")
        self.link_field = check_field_name(link_field, "link_field")
        self.id_field = check_field_name(id_field, "id_field")
        self.site_field = check_field_name(site_field, "site_field")
        self.metadata_field = (
            None if metadata_field is None else check_field_name(metadata_field, "metadata_field")
        )
        self.vector_name = (
            None if vector_name is None else check_field_name(vector_name, "vector_name")
        )
        self.sparse_vector_name = (
            None
            if sparse_vector_name is None
            else check_field_name(sparse_vector_name, "sparse_vector_name")
        )
        if mode not in (None, "semantic", "hybrid"):
            raise ConfigurationError(f"mode must be 'semantic', 'hybrid' or None, got {mode!r}")
        if mode == "hybrid" and self.sparse_vector_name is None:
            raise ConfigurationError("mode='hybrid' needs sparse_vector_name=")
        self.mode = mode
        distances = {
            "cosine": models.Distance.COSINE,
            "dot": models.Distance.DOT,
            "euclid": models.Distance.EUCLID,
        }
        if distance not in distances:
            raise ConfigurationError(
                f"distance must be 'cosine', 'dot' or 'euclid', got {distance!r}"
            )
        self._distance = distances[distance]
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
        self._reserved = sorted(self._own_keys if self.metadata_field is None else ())
        self._api_key = api_key or os.environ.get(API_KEY_ENV) or None
        register_secret(self._api_key)
        self._sync_client: Any = None
        self._async_client: Any = None
        self._created: list[Any] = []
        self._created_async: list[Any] = []
        self._url: str | None = None
        self._path: str | None = None
        # (dense dimension, using, has sparse), learnt once from the collection
        self._layout: tuple[int, str | None, bool] | None = None
        if isinstance(client_or_location, (str, os.PathLike)):
            location = os.fspath(client_or_location)
            if location.startswith(("http://", "https://")):
                self._url = _check_url(location)
            elif not location:
                raise ConfigurationError("client_or_location must not be empty")
            else:
                self._path = location
        elif isinstance(client_or_location, self._qdrant.AsyncQdrantClient):
            self._async_client = client_or_location
        elif isinstance(client_or_location, self._qdrant.QdrantClient):
            self._sync_client = client_or_location
        else:
            raise ConfigurationError(
                "client_or_location must be a QdrantClient or AsyncQdrantClient, ':memory:', "
                f"a folder or an http(s):// URL, not {type(client_or_location).__name__}"
            )

    def __repr__(self) -> str:
        where = self._url or self._path or "client"
        return f"QdrantTextSearch({where!r}, collection={self.collection!r})"

    # -- clients -----------------------------------------------------------------------

    def _client_kwargs(self) -> dict[str, Any]:
        # qdrant-client takes whole seconds; its version check would be a request (and a
        # warning) at construction, from a thread of its own
        return {
            "url": self._url,
            "api_key": self._api_key,
            "timeout": max(1, int(self.timeout)),
            "check_compatibility": False,
        }

    def _client(self) -> Any:
        if self._sync_client is not None:
            return self._sync_client
        if self._async_client is not None and self._url is None:
            raise ConfigurationError(
                "QdrantTextSearch was given an async client: use the async methods, or pass "
                "a URL to have both"
            )
        with self._lock:
            if self._sync_client is None:
                if self._url is not None:
                    client = self._qdrant.QdrantClient(**self._client_kwargs())
                elif self._path == ":memory:":
                    client = self._qdrant.QdrantClient(location=":memory:")
                else:
                    client = self._qdrant.QdrantClient(path=self._path)
                self._created.append(client)
                self._sync_client = client
        return self._sync_client

    def _aclient(self) -> Any:
        """The async client, or ``None`` for in-process Qdrant (a worker thread then)."""
        if self._async_client is not None:
            return self._async_client
        if self._url is None:
            return None
        client = self._qdrant.AsyncQdrantClient(**self._client_kwargs())
        self._async_client = client
        self._created_async.append(client)
        return client

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
        return qdrant_error(exc, self.collection, self._url or self._path or "the client")

    # -- collection layout -------------------------------------------------------------

    def _layout_of(self, info: Any) -> tuple[int, str | None, bool]:
        vectors = info.config.params.vectors
        sparse = info.config.params.sparse_vectors or {}
        if isinstance(vectors, Mapping):
            name = self.vector_name
            if name not in vectors:
                if len(vectors) == 1 and name is None:
                    name = next(iter(vectors))
                else:
                    raise ConfigurationError(
                        f"collection {self.collection!r} has no dense vector named {name!r}; "
                        f"it has: {', '.join(sorted(vectors)) or 'none'} (set vector_name=)"
                    )
            size, using = int(vectors[name].size), name
        else:
            size, using = int(vectors.size), None
        has_sparse = self.sparse_vector_name is not None and self.sparse_vector_name in sparse
        if self.mode == "hybrid" and not has_sparse:
            raise ConfigurationError(
                f"collection {self.collection!r} has no sparse vector named "
                f"{self.sparse_vector_name!r}: hybrid search needs one (mode='semantic' "
                "searches the dense vector only)"
            )
        return size, using, has_sparse

    def _check(self, layout: tuple[int, str | None, bool], length: int) -> None:
        self._layout = layout
        if layout[0] != length:
            raise dimension_mismatch(self.collection, layout[0], length)

    def _create_kwargs(self, dimensions: int) -> dict[str, Any]:
        models = self._models
        params = models.VectorParams(size=dimensions, distance=self._distance)
        kwargs: dict[str, Any] = {
            "collection_name": self.collection,
            "vectors_config": {self.vector_name: params} if self.vector_name else params,
        }
        if self.sparse_vector_name:
            kwargs["sparse_vectors_config"] = {
                self.sparse_vector_name: models.SparseVectorParams(modifier=models.Modifier.IDF)
            }
        return kwargs

    # -- filters -----------------------------------------------------------------------

    def _condition(self, clause: Clause) -> Any:
        models = self._models
        if clause.target == "metadata":
            key = f"{self.metadata_field}.{clause.name}" if self.metadata_field else clause.name
        else:
            key = {"id": self.id_field, "link": self.link_field, "site": self.site_field}[
                clause.target
            ]
        value = clause.value
        if isinstance(value, float):
            # MatchValue takes no float: equality as a closed range
            return models.FieldCondition(key=key, range=models.Range(gte=value, lte=value))
        return models.FieldCondition(key=key, match=models.MatchValue(value=value))

    def _filter_of(self, options: SearchOptions) -> Any:
        clauses = check_filter(options.filter, connector=self.connector)
        if not clauses:
            return None
        return self._models.Filter(must=[self._condition(c) for c in clauses])

    # -- search ------------------------------------------------------------------------

    def _query_kwargs(
        self, vector: list[float], query: str, options: SearchOptions, flt: Any
    ) -> dict[str, Any]:
        layout = self._layout
        assert layout is not None
        _, using, has_sparse = layout
        limit = options.top + options.skip
        hybrid = has_sparse if self.mode is None else self.mode == "hybrid"
        models = self._models
        if hybrid:
            indices, values = sparse_of_query(query)
            # Each arm looks at more than the page, so that fusion has overlap to work with.
            depth = max(limit * 4, 40)
            return {
                "collection_name": self.collection,
                "prefetch": [
                    models.Prefetch(query=vector, using=using, limit=depth, filter=flt),
                    models.Prefetch(
                        query=models.SparseVector(indices=indices, values=values),
                        using=self.sparse_vector_name,
                        limit=depth,
                        filter=flt,
                    ),
                ],
                "query": models.FusionQuery(fusion=models.Fusion.RRF),
                "query_filter": flt,
                "limit": limit,
                "with_payload": True,
            }
        return {
            "collection_name": self.collection,
            "query": vector,
            "using": using,
            "query_filter": flt,
            "limit": limit,
            "with_payload": True,
        }

    def _results(self, points: Sequence[Any]) -> list[QdrantDocument]:
        out = []
        for point in points:
            payload = dict(point.payload or {})
            doc_id = payload.get(self.id_field)
            title = payload.get(self.title_field)
            text = payload.get(self.text_field)
            link = payload.get(self.link_field)
            fragment = payload.get(FRAGMENT_KEY)
            if isinstance(link, str) and isinstance(fragment, str):
                link += fragment
            if self.metadata_field is not None:
                metadata = payload.get(self.metadata_field)
                metadata = dict(metadata) if isinstance(metadata, Mapping) else {}
            else:
                metadata = {k: v for k, v in payload.items() if k not in self._own_keys}
            out.append(
                _trusted(
                    QdrantDocument,
                    id=str(doc_id) if doc_id is not None else str(point.id),
                    title=title if isinstance(title, str) else None,
                    text=text if isinstance(text, str) else "",
                    link=link if isinstance(link, str) else None,
                    metadata=metadata,
                    score=float(point.score) if point.score is not None else None,
                )
            )
        return out

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[QdrantDocument]:
        flt = self._filter_of(options)
        vector = await self._query_vector(query)

        def run_sync(client: Any) -> tuple[Any, int | None]:
            if self._layout is None:
                self._layout = self._layout_of(client.get_collection(self.collection))
            self._check(self._layout, len(vector))
            points = client.query_points(**self._query_kwargs(vector, query, options, flt))
            total = None
            if options.include_total_count:
                total = client.count(self.collection, count_filter=flt, exact=True).count
            return points.points, total

        async def run_async(client: Any) -> tuple[Any, int | None]:
            if self._layout is None:
                self._layout = self._layout_of(await client.get_collection(self.collection))
            self._check(self._layout, len(vector))
            points = await client.query_points(**self._query_kwargs(vector, query, options, flt))
            total = None
            if options.include_total_count:
                total = (await client.count(self.collection, count_filter=flt, exact=True)).count
            return points.points, total

        points, total = await self._acall(run_sync, run_async)
        return self._page(self._results(points), options, total)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[QdrantDocument]:
        flt = self._filter_of(options)
        vector = self._query_vector_sync(query)

        def run(client: Any) -> tuple[Any, int | None]:
            if self._layout is None:
                self._layout = self._layout_of(client.get_collection(self.collection))
            self._check(self._layout, len(vector))
            points = client.query_points(**self._query_kwargs(vector, query, options, flt))
            total = None
            if options.include_total_count:
                total = client.count(self.collection, count_filter=flt, exact=True).count
            return points.points, total

        points, total = self._call(run)
        return self._page(self._results(points), options, total)

    # -- writing -------------------------------------------------------------------------

    def _payload(self, record: PassageRecord) -> dict[str, Any]:
        payload: dict[str, Any] = {
            self.id_field: record.document_id,
            self.text_field: record.text,
            self.site_field: record.sites,
        }
        if record.title is not None:
            payload[self.title_field] = record.title
        if record.link is not None:
            payload[self.link_field] = record.link
        if record.fragment:
            payload[FRAGMENT_KEY] = record.fragment
        if self.metadata_field is not None:
            payload[self.metadata_field] = dict(record.metadata)
        else:
            payload.update(record.metadata)
        return payload

    def _points(
        self,
        records: Sequence[PassageRecord],
        vectors: Sequence[list[float]],
        has_sparse: bool,
        using: str | None,
    ) -> list[Any]:
        models = self._models
        points = []
        for record, vector in zip(records, vectors, strict=True):
            named: Any = vector
            if using is not None or has_sparse:
                named = {using or "": vector}
                if has_sparse:
                    indices, values = sparse_of_text(f"{record.title or ''}\n{record.text}")
                    named[self.sparse_vector_name] = models.SparseVector(
                        indices=indices, values=values
                    )
            points.append(
                models.PointStruct(
                    id=point_id(record.record_id), vector=named, payload=self._payload(record)
                )
            )
        return points

    def _delete_selector(self, wanted: list[str]) -> Any:
        models = self._models
        return models.FilterSelector(
            filter=models.Filter(
                must=[models.FieldCondition(key=self.id_field, match=models.MatchAny(any=wanted))]
            )
        )

    def _prepare_write(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], chunk: bool
    ) -> tuple[list[str], list[PassageRecord]]:
        self._need_embedder()
        return passage_records(docs, chunk=chunk, reserved=self._reserved)

    def _write_sync(
        self, client: Any, doc_ids: list[str], records: list[PassageRecord], vectors: Any
    ) -> None:
        if not client.collection_exists(self.collection):
            client.create_collection(**self._create_kwargs(len(vectors[0])))
        self._check(self._layout_of(client.get_collection(self.collection)), len(vectors[0]))
        assert self._layout is not None
        _, using, has_sparse = self._layout
        if client.count(self.collection, exact=False).count:  # nothing to replace when empty
            client.delete(
                self.collection, points_selector=self._delete_selector(doc_ids), wait=True
            )
        points = self._points(records, vectors, has_sparse, using)
        for start in range(0, len(points), _BATCH):
            client.upsert(self.collection, points=points[start : start + _BATCH], wait=True)

    async def add_documents(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = True
    ) -> int:
        """Add or replace documents (by ``id``); returns how many documents were written.

        Documents have ``LocalTextSearch``'s shape; each is stored as one point per passage
        (split as ``LocalTextSearch`` splits it; ``chunk=False``: one point per document)
        with its dense vector and, when the collection has one, its sparse vector. The
        collection is created when missing. Everything is validated and embedded before
        anything is written; a document's old passages are replaced.

        Raises:
            InvalidRequestError: A document is invalid (or, with ``metadata_field=None``, its
                metadata uses a key this connector writes itself).
            ConfigurationError: No embedder, or its vectors do not fit the collection.
            ProviderError: The embedder or the store failed.
            SearchTransportError: The server could not be reached.
        """
        doc_ids, records = self._prepare_write(docs, chunk)
        if not records:
            return 0
        vectors = await self._document_vectors(records)

        async def run_async(client: Any) -> None:
            if not await client.collection_exists(self.collection):
                await client.create_collection(**self._create_kwargs(len(vectors[0])))
            info = await client.get_collection(self.collection)
            self._check(self._layout_of(info), len(vectors[0]))
            assert self._layout is not None
            _, using, has_sparse = self._layout
            if (await client.count(self.collection, exact=False)).count:
                await client.delete(
                    self.collection, points_selector=self._delete_selector(doc_ids), wait=True
                )
            points = self._points(records, vectors, has_sparse, using)
            for start in range(0, len(points), _BATCH):
                await client.upsert(
                    self.collection, points=points[start : start + _BATCH], wait=True
                )

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
            if await client.collection_exists(self.collection):
                await client.delete(
                    self.collection, points_selector=self._delete_selector(wanted), wait=True
                )

        await self._acall(lambda c: self._delete_sync(c, wanted), run_async)
        return len(wanted)

    def delete_documents_sync(self, ids: Iterable[str]) -> int:
        """Blocking twin of :meth:`delete_documents`; raises the same errors."""
        wanted = document_ids(ids)
        if wanted:
            self._call(lambda c: self._delete_sync(c, wanted))
        return len(wanted)

    def _delete_sync(self, client: Any, wanted: list[str]) -> None:
        if client.collection_exists(self.collection):
            client.delete(self.collection, points_selector=self._delete_selector(wanted), wait=True)

    # -- resources -----------------------------------------------------------------------

    async def aclose(self) -> None:
        """Release the clients this connector created (never an injected client)."""
        for client in self._created_async:
            try:
                await client.close()
            except Exception:  # closing is best effort
                pass
        if self._created_async:
            self._async_client = None
        self._created_async.clear()
        self.close()

    def close(self) -> None:
        """Release the blocking client this connector created (never an injected client)."""
        for client in self._created:
            try:
                client.close()
            except Exception:  # closing is best effort
                pass
        if self._created:
            self._sync_client = None
        self._created.clear()
        self._layout = None
