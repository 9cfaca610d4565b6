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
Chinese, Japanese and Korean text is cut into character bigrams and characters
(``textsearch._cjk``) for the sparse vector, as every keyword index of this package does.
"""

from __future__ import annotations

import hashlib
import os
import re
import uuid
import zlib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal

from typing_extensions import Unpack

from textsearch._cjk import index_text, question_text
from textsearch._http._redact import register_secret
from textsearch._types import SearchOptions, result_window
from textsearch.connectors.vectors import _base as vs
from textsearch.connectors.vectors._base import Plan, Step, call
from textsearch.connectors.vectors._errors import qdrant_error
from textsearch.connectors.vectors._filters import INSTANT_SUFFIX, companions, visible
from textsearch.connectors.vectors._reads import Keyed, ReadableStore, Scanned
from textsearch.errors import (
    ConfigurationError,
    TextSearchError,
)

__all__ = ["QdrantDocument", "QdrantTextSearch"]

PROVIDER = "qdrant"
API_KEY_ENV = "QDRANT_API_KEY"
#: point ids are UUIDs derived from ``<document id>#<n>`` (Qdrant takes integers or UUIDs)
_POINT_NAMESPACE = uuid.UUID("8f6e2f0a-54a4-4c43-9d1e-7f0b5b3c2a61")
_NAMESPACE_SHA1 = hashlib.sha1(_POINT_NAMESPACE.bytes)
#: the first hex digit of the variant byte: its two top bits set to 10 (RFC 4122)
_VARIANT = {digit: "89ab"[int(digit, 16) & 3] for digit in "0123456789abcdef"}
_WORD = re.compile(r"\w+")
# BM25's document side: term frequency saturated by k1, normalised by length with b against
# a fixed average length (the collection's true average is not known to a writer).
_K1, _B, _AVERAGE_LENGTH = 1.2, 0.75, 256.0
_BATCH = 256


def _words(text: str) -> list[str]:
    """The lower-cased words of ``text``; a CJK run gives its bigrams and characters."""
    lowered = text.lower()
    if not lowered.isascii():
        lowered = index_text(lowered)
    return _WORD.findall(lowered)


def sparse_of_text(text: str) -> tuple[list[int], list[float]]:
    """Indices (crc32 of each lower-cased word) and saturated term frequencies of ``text``."""
    words = _words(text)
    counts = Counter(zlib.crc32(w.encode()) for w in words)
    length = len(words) or 1
    norm = _K1 * (1 - _B + _B * length / _AVERAGE_LENGTH)
    indices = sorted(counts)
    return indices, [counts[i] * (_K1 + 1) / (counts[i] + norm) for i in indices]


def sparse_of_query(text: str) -> tuple[list[int], list[float]]:
    """Each distinct word of a query once (Qdrant's IDF modifier weighs them).

    A CJK run gives its bigrams and characters less the question's grammar (`question_text`).
    """
    lowered = text.lower()
    words = _WORD.findall(lowered if lowered.isascii() else question_text(lowered))
    indices = sorted({zlib.crc32(w.encode()) for w in words})
    return indices, [1.0] * len(indices)


def point_id(record_id: str) -> str:
    """The Qdrant point id of a record: a UUID derived from ``<document id>#<n>``."""
    # uuid.uuid5(_POINT_NAMESPACE, record_id), written out (uuid5 builds a UUID object to
    # format it): the namespace is hashed once, and the version and variant are set on the
    # hex digits (a third of uuid5's time, the same text: tested on many ids)
    digest = _NAMESPACE_SHA1.copy()
    digest.update(record_id.encode())
    h = digest.hexdigest()
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


def _names(keys: list[str], doc_ids: list[str]) -> list[str]:
    """Each point's record id ``<document id>#<n>`` (its own id when it is none of those)."""
    # A point's id is a UUID of "<document id>#<n>": each is named back by its number.
    counts = Counter(doc_ids)
    names = {point_id(f"{d}#{n}"): f"{d}#{n}" for d, count in counts.items() for n in range(count)}
    return [names.get(key, key) for key in keys]


_RANGE_NAMES = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}


class QdrantDocument(vs.VectorDocument):
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


class QdrantTextSearch(ReadableStore[QdrantDocument]):
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
        string_mapper: Custom mapping of a result to the string `search` returns.
        text_search_result_mapper: Custom mapping of a result to a ``TextSearchResult``.

    Raises:
        ImportError: qdrant-client is not installed (``pip install "textsearch-sdk[qdrant]"``).
        ConfigurationError: An invalid argument.

    Filters: ``equal_to``, ``not_equal_to`` and ``any_of`` on ``id``, ``link``, ``site``
    (subdomains match too) and metadata keys, ``any_tag_equal_to`` on metadata keys holding
    lists, ranges on metadata keys: Qdrant ``FieldCondition``s (``MatchValue``; a float
    compares by a closed ``Range``; ``not_equal_to`` a nested ``must_not``, ``any_of`` a
    nested ``should``) under one ``must``. Qdrant compares ranges as float64 (an integer
    bound past 2**53 is rounded). A date range compares the instant written beside each
    ISO-8601 date (``<key>~instant``, hidden from results): records written by an older
    release need adding again for it.
    ``total_count`` is Qdrant's exact count of the points (passages) matching the filter.
    """

    location_hint: ClassVar[str] = "a folder, ':memory:' or the server's URL"
    spec: ClassVar[vs.StoreSpec] = vs.StoreSpec(
        PROVIDER,
        "qdrant_client",
        QdrantDocument,
        ("AsyncQdrantClient", "QdrantClient"),
        vs.UrlRule(
            "Qdrant", "pass a Qdrant key with api_key=", "http(s)://host[:port][/prefix]", path=True
        ),
        "a QdrantClient or AsyncQdrantClient, ':memory:', a folder or an http(s):// URL",
    )

    def __init__(
        self,
        client_or_location: Any,
        collection: str,
        *,
        metadata_field: str | None = "metadata",
        vector_name: str | None = "dense",
        sparse_vector_name: str | None = "sparse",
        mode: Literal["semantic", "hybrid"] | None = None,
        distance: Literal["cosine", "dot", "euclid"] = "cosine",
        api_key: str | None = None,
        **settings: Unpack[vs.StoreSettings[QdrantDocument]],
    ) -> None:
        super().__init__(client_or_location, collection, settings)
        from qdrant_client import models

        self._models = models
        self.metadata_field = self._name_or_none(metadata_field, "metadata_field")
        self.vector_name = self._name_or_none(vector_name, "vector_name")
        self.sparse_vector_name = self._name_or_none(sparse_vector_name, "sparse_vector_name")
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
        self._reserved = sorted(self._own_keys if self.metadata_field is None else ())
        self._api_key = api_key or os.environ.get(API_KEY_ENV) or None
        register_secret(self._api_key)
        # (dense dimension, using, has sparse), learnt once from the collection
        self._layout: tuple[int, str | None, bool] | None = None

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

    def _new_client(self) -> Any:
        if self._url is not None:
            return self._lib.QdrantClient(**self._client_kwargs())
        if self._path == ":memory:":
            return self._lib.QdrantClient(location=":memory:")
        return self._lib.QdrantClient(path=self._path)

    async def _new_async_client(self) -> Any:
        return self._lib.AsyncQdrantClient(**self._client_kwargs())

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

    def _key(self, clause: vs.Clause, suffix: str = "") -> str:
        if clause.target != "metadata":
            return {"id": self.id_field, "link": self.link_field, "site": self.site_field}[
                clause.target
            ]
        # quoted: a companion's "~" is no path syntax
        name = f'"{clause.name}{suffix}"' if suffix else clause.name
        return f"{self.metadata_field}.{name}" if self.metadata_field else name

    def _match(self, key: str, value: Any) -> Any:
        models = self._models
        if isinstance(value, float) or (
            isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 2**53
        ):
            # MatchValue takes no float, and its 1 misses a stored 1.0: a number is equal
            # by a closed range (exact up to 2**53; a range never admits a boolean)
            return models.FieldCondition(key=key, range=models.Range(gte=value, lte=value))
        return models.FieldCondition(key=key, match=models.MatchValue(value=value))

    def _condition(self, clause: vs.Clause) -> Any:
        models = self._models
        key = self._key(clause)
        if clause.op == "eq":
            return self._match(key, clause.value)
        if clause.op == "ne":
            # must_not: a point without the field matches, as not_equal_to says
            return models.Filter(must_not=[self._match(key, clause.value)])
        if clause.op == "any":
            return models.Filter(should=[self._match(key, v) for v in clause.values])
        # A range compares numbers (never booleans) as float64; a date, its instant companion.
        bound = {_RANGE_NAMES[clause.op]: clause.value}
        if clause.date:
            key = self._key(clause, INSTANT_SUFFIX)
        return models.FieldCondition(key=key, range=models.Range(**bound))

    def _filter_of(self, options: SearchOptions) -> Any:
        clauses = self._clauses(options)
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
        limit = result_window(options)
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
            if self.metadata_field is not None:
                metadata = payload.get(self.metadata_field)
                metadata = visible(metadata) if isinstance(metadata, Mapping) else {}
            else:
                metadata = visible({k: v for k, v in payload.items() if k not in self._own_keys})
            out.append(
                self._native(
                    payload,
                    record_id=point.id,
                    text=payload.get(self.text_field),
                    metadata=metadata,
                    score=getattr(point, "score", None),  # a scrolled record has none
                )
            )
        return out

    def _search(
        self, client: Any, vector: list[float], query: str, options: SearchOptions, flt: Any
    ) -> Plan[Step, tuple[Any, int | None]]:
        if self._layout is None:
            self._layout = self._layout_of((yield call(client.get_collection, self.collection)))
        self._check_layout(self._layout, len(vector))
        kwargs = self._query_kwargs(vector, query, options, flt)
        points = yield call(client.query_points, **kwargs)
        if not options.include_total_count:
            return points.points, None
        counted = yield call(client.count, self.collection, count_filter=flt, exact=True)
        return points.points, counted.count

    def _scan(self, client: Any, flt: Any, text: bool) -> Plan[Step, list[Scanned]]:
        payload: Any = True if text else self._without_text()
        points = yield from self._scroll(client, flt, payload, self.scan_batch)
        fragments = [(p.payload or {}).get(vs.FRAGMENT_KEY) for p in points]
        found = self._results(points)
        names = _names([str(p.id) for p in points], [r.id for r in found])
        return list(zip(names, found, fragments, strict=True))

    def _scan_keys(self, client: Any, flt: Any, exact: bool) -> Plan[Step, list[Keyed]]:
        points = yield from self._scroll(client, flt, [self.id_field], self.key_batch)
        doc_ids = [vs.document_id_of((p.payload or {}).get(self.id_field), p.id) for p in points]
        names = _names([str(p.id) for p in points], doc_ids)
        return list(zip((p.id for p in points), names, doc_ids, strict=True))

    def _fetch_records(self, client: Any, keys: list[Any]) -> Plan[Step, list[Scanned]]:
        points = yield call(
            client.retrieve,
            self.collection,
            ids=keys,
            with_payload=self._without_text(),
            with_vectors=False,
        )
        fragments = [(p.payload or {}).get(vs.FRAGMENT_KEY) for p in points]
        return list(zip((str(p.id) for p in points), self._results(points), fragments, strict=True))

    def _without_text(self) -> Any:
        return self._models.PayloadSelectorExclude(exclude=[self.text_field])

    def _scroll(self, client: Any, flt: Any, payload: Any, batch: int) -> Plan[Step, list[Any]]:
        """Every point ``flt`` admits, with ``payload`` (as ``scroll`` takes it), no vector."""
        out: list[Any] = []
        offset: Any = None
        while True:
            points, offset = yield call(
                client.scroll,
                self.collection,
                scroll_filter=flt,
                limit=batch,
                offset=offset,
                with_payload=payload,
                with_vectors=False,
            )
            out.extend(points)
            if offset is None or not points:
                return out

    # -- writing -------------------------------------------------------------------------

    def _payload(self, record: vs.PassageRecord) -> dict[str, Any]:
        payload = self._record_fields(record)
        extra = companions(record.metadata)
        if self.metadata_field is not None:
            payload[self.metadata_field] = {**record.metadata, **extra}
        else:
            payload.update(record.metadata)
            payload.update(extra)
        return payload

    def _points(
        self,
        records: Sequence[vs.PassageRecord],
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
                    named[self.sparse_vector_name] = vs.trusted(
                        models.SparseVector, indices=indices, values=values
                    )
            # Built without validating again: the id is a UUID string, the vector checked
            # floats, the payload JSON values of our own making.
            points.append(
                vs.trusted(
                    models.PointStruct,
                    id=point_id(record.record_id),
                    vector=named,
                    payload=self._payload(record),
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

    def _write(
        self, client: Any, doc_ids: list[str], records: list[vs.PassageRecord], vectors: Any
    ) -> Plan[Step, None]:
        if not (yield call(client.collection_exists, self.collection)):
            yield call(client.create_collection, **self._create_kwargs(len(vectors[0])))
        info = yield call(client.get_collection, self.collection)
        self._check_layout(self._layout_of(info), len(vectors[0]))
        if (
            yield call(client.count, self.collection, exact=False)
        ).count:  # else nothing to replace
            yield from self._delete(client, doc_ids)
        for batch in self._point_batches(records, vectors):
            yield call(client.upsert, self.collection, points=batch, wait=True)

    def _point_batches(self, records: list[vs.PassageRecord], vectors: Any) -> Iterator[list[Any]]:
        # one batch at a time: a large write never holds every point at once
        assert self._layout is not None
        _, using, has_sparse = self._layout
        for start in range(0, len(records), _BATCH):
            end = start + _BATCH
            yield self._points(records[start:end], vectors[start:end], has_sparse, using)

    def _delete(self, client: Any, wanted: list[str]) -> Plan[Step, None]:
        if (yield call(client.collection_exists, self.collection)):
            selector = self._delete_selector(wanted)
            yield call(client.delete, self.collection, points_selector=selector, wait=True)
