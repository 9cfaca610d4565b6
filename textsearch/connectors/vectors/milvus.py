"""``MilvusTextSearch``: semantic and hybrid search over a Milvus collection (extra ``milvus``).

Milvus runs in-process for a local file (Milvus Lite: ``MilvusClient("file.db")``) or as a
server or cluster (a URI). A server is reached with ``AsyncMilvusClient`` from the async methods
and ``MilvusClient`` from the blocking ones; a Milvus Lite file is served by one
``MilvusClient`` whose calls run in a worker thread on the async path.

Filters are Milvus boolean expressions, which are text: every value is written as a literal
by `literal` (strings double-quoted with backslash, quote and line breaks escaped; numbers
and booleans from Python's own representation), and field names are checked against a
pattern that needs no quoting. Milvus Lite does not parse expression templates
(``filter_params``), so literals are the one form that works on both.

Hybrid search is Milvus' own: a collection made by ``add_documents`` has a BM25 function that
turns the text into a sparse vector on the server, and a search runs a dense and a full-text
request fused by Milvus' RRF ranker in one ``hybrid_search``. A collection made by
``add_documents`` analyzes its text with Milvus' jieba tokenizer (``ANALYZER``), so Chinese and
Japanese questions find their passages; a collection made before keeps its own analyzer.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Literal

from typing_extensions import Unpack

from textsearch._cjk import question_words
from textsearch._http._redact import register_secret
from textsearch._ranges import number_fault
from textsearch._types import SearchOptions, result_window
from textsearch.connectors.vectors import _base as vs
from textsearch.connectors.vectors._base import Plan, Step, call
from textsearch.connectors.vectors._errors import milvus_error, missing
from textsearch.connectors.vectors._filters import (
    BOOL_SUFFIX,
    INSTANT_SUFFIX,
    companions,
    visible,
)
from textsearch.connectors.vectors._reads import Keyed, ReadableStore, Scanned
from textsearch.errors import (
    ConfigurationError,
    InvalidRequestError,
    TextSearchError,
)

__all__ = ["MilvusDocument", "MilvusTextSearch", "literal"]

PROVIDER = "milvus"
TOKEN_ENV = "MILVUS_TOKEN"
PRIMARY_FIELD = "pk"
_MAX_KEY = 1024  # bytes of a record id / document id (VARCHAR primary key)
_MAX_TEXT = 65535  # bytes of a VARCHAR
_MAX_LINK = 8192
_BATCH = 256
# The BM25 analyzer of a new collection: Milvus' jieba tokenizer (built into Milvus and Milvus
# Lite) cuts Chinese into words and Japanese kana and kanji into runs a question's words match,
# and splits Latin text at spaces and punctuation as the standard one does; lower-cased. The
# standard tokenizer keeps a CJK clause as one token: a question found nothing.
ANALYZER: dict[str, Any] = {"tokenizer": "jieba", "filter": ["lowercase"]}
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
        fault = number_fault(value)
        if fault is not None:
            raise InvalidRequestError(f"filter value {value} {fault}")
        return repr(value)
    return '"' + "".join(_ESCAPES.get(ch, ch) for ch in value) + '"'


def _key(name: str) -> str:
    # A JSON key is written as a string literal inside brackets; names are checked against
    # FIELD_NAME first, so the quoting is belt and braces.
    if not vs.FIELD_NAME.fullmatch(name):
        raise InvalidRequestError(f"{name!r} is not a field name")
    return literal(name)


class MilvusDocument(vs.VectorDocument):
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


class MilvusTextSearch(ReadableStore[MilvusDocument]):
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
        string_mapper: Custom mapping of a result to the string `search` returns.
        text_search_result_mapper: Custom mapping of a result to a ``TextSearchResult``.

    Raises:
        ImportError: pymilvus is not installed (``pip install "textsearch-sdk[milvus]"``).
        ConfigurationError: An invalid argument.

    Filters: ``equal_to``, ``not_equal_to`` and ``any_of`` on ``id``, ``link``, ``site``
    (subdomains match too) and metadata keys, ``any_tag_equal_to`` on metadata keys holding
    lists (``json_contains``), ranges on metadata keys; one boolean expression with escaped
    literals. Milvus compares JSON ``true`` and ``1`` as equal: each boolean is written with
    a ``<key>~bool`` companion that tells them apart, and a date range compares the instant
    written beside each ISO-8601 date (``<key>~instant``); both are hidden from results, and
    records written by an older release need adding again for them. ``total_count`` is
    Milvus' ``count(*)`` of the entities (passages) matching the filter.
    """

    vector_field: str
    sparse_field: str

    location_hint: ClassVar[str] = "a Milvus Lite file (*.db) or the server's URI"
    spec: ClassVar[vs.StoreSpec] = vs.StoreSpec(
        PROVIDER,
        "pymilvus",
        MilvusDocument,
        ("AsyncMilvusClient", "MilvusClient"),
        vs.UrlRule(
            "Milvus", "pass Milvus credentials with token=", "http(s)://host[:port]", path=True
        ),
        "a MilvusClient or AsyncMilvusClient, a .db file or an http(s):// URI",
        schemes=("http://", "https://", "tcp://", "grpc://"),
    )

    def __init__(
        self,
        client_or_location: Any,
        collection: str,
        *,
        metadata_field: str | None = "metadata",
        vector_field: str = "vector",
        sparse_field: str = "sparse",
        mode: Literal["semantic", "hybrid"] | None = None,
        metric: Literal["COSINE", "IP", "L2"] = "COSINE",
        token: str | None = None,
        db_name: str | None = None,
        **settings: Unpack[vs.StoreSettings[MilvusDocument]],
    ) -> None:
        super().__init__(client_or_location, collection, settings)
        self.vector_field = vs.check_field_name(vector_field, "vector_field")
        self.sparse_field = vs.check_field_name(sparse_field, "sparse_field")
        self.metadata_field = self._name_or_none(metadata_field, "metadata_field")
        if mode not in (None, "semantic", "hybrid"):
            raise ConfigurationError(f"mode must be 'semantic', 'hybrid' or None, got {mode!r}")
        self.mode = mode
        if metric not in ("COSINE", "IP", "L2"):
            raise ConfigurationError(f"metric must be 'COSINE', 'IP' or 'L2', got {metric!r}")
        self.metric = metric
        self._token = token or os.environ.get(TOKEN_ENV) or None
        register_secret(self._token)
        self._db_name = db_name
        self._own_keys |= {PRIMARY_FIELD, self.vector_field, self.sparse_field}
        # (dense dimension, hybrid available, output fields), learnt once
        self._layout: tuple[int, bool, list[str]] | None = None
        self._primary = PRIMARY_FIELD

    def _check_path(self, path: str) -> str:
        if not path.endswith(".db"):
            raise ConfigurationError(
                "a Milvus location is a Milvus Lite file ending in .db or an http(s):// URI"
            )
        return path

    # -- clients -----------------------------------------------------------------------

    def _client_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"uri": self._url or self._path, "timeout": self.timeout}
        return kwargs | vs.present(token=self._token, db_name=self._db_name)

    def _new_client(self) -> Any:
        return self._lib.MilvusClient(**self._client_kwargs())

    async def _new_async_client(self) -> Any:
        return self._lib.AsyncMilvusClient(**self._client_kwargs())

    def _error(self, exc: BaseException) -> TextSearchError:
        return milvus_error(exc, self.collection, self._url or self._path or "the client")

    def _missing(self) -> TextSearchError:
        # Asked with has_collection first: describe_collection of a missing collection makes
        # pymilvus log an ERROR with a traceback on stderr before we can map it.
        return missing("Milvus", self.collection, self._url or self._path or "the client")

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
                vs.FRAGMENT_KEY,
                self.metadata_field,
            )
            output = [name for name in wanted if name in fields]
        return int(vector["params"]["dim"]), bm25, output

    def _schema(self, client: Any, dimensions: int) -> tuple[Any, Any]:
        pm = self._lib
        dt = pm.DataType
        schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field(PRIMARY_FIELD, dt.VARCHAR, is_primary=True, max_length=_MAX_KEY)
        schema.add_field(self.id_field, dt.VARCHAR, max_length=_MAX_KEY)
        schema.add_field(
            self.text_field,
            dt.VARCHAR,
            max_length=_MAX_TEXT,
            enable_analyzer=True,
            analyzer_params=ANALYZER,
        )
        schema.add_field(self.title_field, dt.VARCHAR, max_length=_MAX_TEXT)
        schema.add_field(self.link_field, dt.VARCHAR, max_length=_MAX_LINK)
        schema.add_field(vs.FRAGMENT_KEY, dt.VARCHAR, max_length=_MAX_LINK)
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

    def _json_path(self, clause: vs.Clause, suffix: str = "") -> str:
        _key(clause.name)  # checked once more: a field name, nothing to quote
        holder = self.metadata_field or "$meta"
        return f"{holder}[{literal(clause.name + suffix)}]"

    def _equal(self, clause: vs.Clause, value: str | int | float | bool) -> str:
        text = literal(value)
        if clause.target == "id":
            return f"{self.id_field} == {text}"
        if clause.target == "link":
            return f"{self.link_field} == {text}"
        if clause.target == "site":
            return f"array_contains({self.site_field}, {text})"
        path = self._json_path(clause)
        if clause.any_tag:
            return f"json_contains({path}, {text})"
        if isinstance(value, bool) or (isinstance(value, (int, float)) and value in (0, 1)):
            # Milvus reads JSON true as 1 and false as 0: the "~bool" companion, written
            # beside each boolean, tells them apart.
            tag = f"exists {self._json_path(clause, BOOL_SUFFIX)}"
            return f"({path} == {text} and {'' if isinstance(value, bool) else 'not '}{tag})"
        return f"{path} == {text}"

    def _expression(self, clause: vs.Clause) -> str:
        if clause.op == "eq":
            return self._equal(clause, clause.value)
        if clause.op == "ne":
            # Milvus' comparisons are unknown for a missing field: not_equal_to keeps those.
            negated = f"not ({self._equal(clause, clause.value)})"
            if clause.target != "metadata":
                return negated
            return f"(not (exists {self._json_path(clause)}) or {negated})"
        if clause.op == "any":
            return "(" + " or ".join(f"({self._equal(clause, v)})" for v in clause.values) + ")"
        # A range compares numbers (booleans left out by their companion); a date, its
        # instant companion.
        if clause.date:
            return f"{self._json_path(clause, INSTANT_SUFFIX)} {clause.op} {literal(clause.value)}"
        tag = f"exists {self._json_path(clause, BOOL_SUFFIX)}"
        return f"({self._json_path(clause)} {clause.op} {literal(clause.value)} and not {tag})"

    def _filter_of(self, options: SearchOptions) -> str:
        clauses = self._clauses(options)
        return " and ".join(f"({self._expression(c)})" for c in clauses)

    # -- search --------------------------------------------------------------------------

    def _request(self, vector: list[float], query: str, options: SearchOptions, expr: str) -> Any:
        assert self._layout is not None
        _, bm25, output = self._layout
        limit = result_window(options)
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
        pm = self._lib
        depth = max(limit * 4, 40)
        requests = [
            pm.AnnSearchRequest(
                data=[vector], anns_field=self.vector_field, param={}, limit=depth, expr=expr
            ),
            pm.AnnSearchRequest(
                # The server cuts the question into words: its grammar is left out first.
                data=[question_words(query)],
                anns_field=self.sparse_field,
                param={},
                limit=depth,
                expr=expr,
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
            if self.metadata_field is not None:
                metadata = entity.get(self.metadata_field)
                metadata = visible(metadata) if isinstance(metadata, Mapping) else {}
            else:
                own = self._own_keys | {self._primary}
                metadata = visible({k: v for k, v in entity.items() if k not in own})
            out.append(
                self._native(
                    entity,
                    record_id=hit.get("id", entity.get(self._primary)),
                    text=entity.get(self.text_field),
                    metadata=metadata,
                    score=hit.get("distance"),
                )
            )
        return out

    @staticmethod
    def _count(rows: Any) -> int | None:
        try:
            return int(rows[0]["count(*)"])
        except (LookupError, TypeError, ValueError):
            return None

    def _opened(self, client: Any) -> Plan[Step, None]:
        """Learn the collection's layout once, and load it."""
        if self._layout is None:
            if not (yield call(client.has_collection, self.collection)):
                raise self._missing()
            description = yield call(client.describe_collection, self.collection)
            self._layout = self._layout_of(description)
            # A collection written by another process (or before a restart) is "released":
            # Milvus searches only loaded collections. Loading a loaded one does nothing.
            yield call(client.load_collection, self.collection)

    def _scan(self, client: Any, flt: Any, text: bool) -> Plan[Step, list[Scanned]]:
        yield from self._opened(client)
        assert self._layout is not None
        fields = [name for name in self._layout[2] if text or name != self.text_field]
        return self._scanned((yield from self._query_all(client, flt, fields, self.scan_batch)))

    def _scan_keys(self, client: Any, flt: Any, exact: bool) -> Plan[Step, list[Keyed]]:
        yield from self._opened(client)
        assert self._layout is not None
        # the primary key comes with every row; "*" (no metadata field): the id may be dynamic
        own = self._layout[2]
        fields = own if own == ["*"] else [name for name in own if name == self.id_field]
        rows = yield from self._query_all(client, flt, fields, self.key_batch)
        out: list[Keyed] = []
        for row in rows:
            key = row.get(self._primary)
            out.append((key, str(key), vs.document_id_of(row.get(self.id_field), key)))
        return out

    def _fetch_records(self, client: Any, keys: list[Any]) -> Plan[Step, list[Scanned]]:
        assert self._layout is not None  # the key scan opened the collection
        fields = [name for name in self._layout[2] if name != self.text_field]
        rows = yield call(client.get, self.collection, ids=keys, output_fields=fields)
        return self._scanned(rows)

    def _query_all(
        self, client: Any, flt: Any, fields: list[str], size: int
    ) -> Plan[Step, list[Any]]:
        """Every row ``flt`` admits, with these fields."""
        asked = {"filter": flt, "output_fields": fields}
        # One query holds a document's passages; more records than that are iterated over.
        batch = yield call(client.query, self.collection, limit=size, **asked)
        if len(batch) < size:
            return list(batch)
        out: list[Any] = []
        rows = yield call(client.query_iterator, self.collection, batch_size=size, **asked)
        while batch := list((yield call(rows.next))):
            out.extend(batch)
        yield call(rows.close)
        return out

    def _scanned(self, batch: Sequence[Mapping[str, Any]]) -> list[Scanned]:
        hits = [{"id": row.get(self._primary), "entity": row} for row in batch]
        fragments = [row.get(vs.FRAGMENT_KEY) or None for row in batch]
        keys = [str(hit["id"]) for hit in hits]
        return list(zip(keys, self._results(hits), fragments, strict=True))

    def _search(
        self, client: Any, vector: list[float], query: str, options: SearchOptions, flt: Any
    ) -> Plan[Step, tuple[Any, int | None]]:
        yield from self._opened(client)
        assert self._layout is not None
        self._check_layout(self._layout, len(vector))
        method, kwargs = self._request(vector, query, options, flt)
        hits = (yield call(getattr(client, method), **kwargs))[0]
        if not options.include_total_count:
            return list(hits), None
        rows = yield call(client.query, self.collection, filter=flt, output_fields=["count(*)"])
        return list(hits), self._count(rows)

    # -- writing -------------------------------------------------------------------------

    def _rows(
        self, records: Sequence[vs.PassageRecord], vectors: Sequence[list[float]]
    ) -> list[Any]:
        rows = []
        for record, vector in zip(records, vectors, strict=True):
            row = self._record_fields(record, blank="")
            row[PRIMARY_FIELD] = record.record_id
            row[self.site_field] = list(record.sites[:128])
            row[self.metadata_field or "metadata"] = {
                **record.metadata,
                **companions(record.metadata, booleans=True),
            }
            row[self.vector_field] = vector
            rows.append(row)
        return rows

    def _prepare_write(
        self, docs: Iterable[Any], chunk: bool
    ) -> tuple[list[str], list[vs.PassageRecord]]:
        if self.metadata_field is None:
            raise ConfigurationError(
                "add_documents writes a collection with a JSON metadata field: set "
                "metadata_field= (the default is 'metadata')"
            )
        doc_ids, records = super()._prepare_write(docs, chunk)
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

    def _delete_filters(self, wanted: Sequence[str]) -> list[str]:
        return [
            f"{self.id_field} in [{', '.join(literal(i) for i in wanted[start : start + _BATCH])}]"
            for start in range(0, len(wanted), _BATCH)
        ]

    def _row_batches(self, records: list[vs.PassageRecord], vectors: Any) -> Iterator[list[Any]]:
        # one batch at a time: a large write never holds every row at once
        for start in range(0, len(records), _BATCH):
            end = start + _BATCH
            yield self._rows(records[start:end], vectors[start:end])

    def _write(
        self, client: Any, doc_ids: list[str], records: list[vs.PassageRecord], vectors: Any
    ) -> Plan[Step, None]:
        fresh = not (yield call(client.has_collection, self.collection))
        if fresh:
            schema, index = self._schema(client, len(vectors[0]))
            yield call(client.create_collection, self.collection, schema=schema, index_params=index)
        description = yield call(client.describe_collection, self.collection)
        self._check_layout(self._layout_of(description), len(vectors[0]))
        if not fresh:
            yield call(client.load_collection, self.collection)  # replacing passages queries them
        # a collection made just now has no old passages to replace
        for expression in [] if fresh else self._delete_filters(doc_ids):
            yield call(client.delete, self.collection, filter=expression)
        for batch in self._row_batches(records, vectors):
            yield call(client.insert, self.collection, batch)

    def _delete(self, client: Any, wanted: list[str]) -> Plan[Step, None]:
        if (yield call(client.has_collection, self.collection)):
            yield call(client.load_collection, self.collection)  # a delete by filter queries
            for expression in self._delete_filters(wanted):
                yield call(client.delete, self.collection, filter=expression)
