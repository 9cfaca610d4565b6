"""``PostgresTextSearch``: full-text search in PostgreSQL, for when one SQLite file is not enough.

Several app servers, a team, or a database you already run: documents live in a PostgreSQL table
and are searched with the server's own full-text search (``tsvector``, a GIN index,
``websearch_to_tsquery``, ``ts_rank``). Needs the ``postgres`` extra::

    pip install "textsearch-sdk[postgres]"

Two ways to use it:

* **Managed table** - :meth:`PostgresTextSearch.create_schema` makes a table of passages (one
  row each) with a stored, weighted ``tsvector`` (title and section heading above body) and GIN
  indexes; :meth:`add_documents` upserts documents shaped like :class:`~textsearch.LocalDocument`
  (split into passages with ``chunk=True``); :meth:`index_path` indexes a folder, split into
  passages as ``LocalTextSearch`` splits it.
* **Existing table** - :meth:`PostgresTextSearch.from_table` maps your columns to
  name/value/link and searches a ``tsvector`` column you have, or one computed from text columns.

How text is searched: the user's text is handed to ``websearch_to_tsquery`` as a bound parameter,
so quotes, ``or``, ``-word`` and any punctuation are never a syntax error. A document matches when
it holds any of the query's words; documents satisfying the whole query (every word, quoted
phrases) rank first, then the others by ``ts_rank`` over the query's words, which saturates per
word (a second distinct word counts more than repeats of one), title words weighted above body
words. Words in more than 5% of the rows are left out of the partial matches when rarer words
are present, and for a very common word only the first ``max_candidates`` matches of each tier
are ranked, which keeps broad queries fast. Snippets are cut from the returned passages on the
client (the window with the most query words), not by ``ts_headline``.
"""

from __future__ import annotations

import functools
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

from typing_extensions import Self, TypedDict, Unpack

from textsearch._cjk import CJK_RANGES, query_text
from textsearch._types import (
    SearchOptionArgs,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch
from textsearch.connectors.local._passages import best_window, hit_pattern
from textsearch.connectors.postgres._errors import describe, parse_dsn, require_psycopg
from textsearch.connectors.postgres._pool import AsyncPool, PoolSettings, SyncPool
from textsearch.connectors.postgres._rows import (
    DEFAULT_EXTENSIONS,
    IndexReport,
    LocalDocument,
    PostgresDocument,
    batches,
    clean_snippet,
    document_rows,
    index_files,
    last_of_each,
    passage_link,
    passages_of,
    prepare_documents,
    search_texts,
    walk,
)
from textsearch.connectors.postgres._schema import SchemaBuilder
from textsearch.connectors.postgres._sql import (
    _WORD,
    Builder,
    Request,
    TableSpec,
    existing_spec,
    managed_spec,
    split_exclusions,
    vector_text,
)
from textsearch.embeddings import (
    Embedder,
    embed_documents,
    embed_documents_sync,
    embed_query,
    embed_query_sync,
)
from textsearch.errors import ConfigurationError, InvalidRequestError

__all__ = ["PostgresDocument", "PostgresTextSearch"]

Mode = Literal["keyword", "semantic", "hybrid"]
MODES = ("keyword", "semantic", "hybrid")


#: rows to segment when a table from before CJK segmentation is upgraded (a POSIX class)
_CJK_PATTERN = f"[{CJK_RANGES}]"


def _segmented(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``(search_title, search_section, search_text, id, passage)`` of a stored row."""
    doc_id, passage, title, section, text = row
    return (*search_texts(title, section, text or ""), doc_id, passage)


class PostgresSettings(TypedDict, total=False):
    """The constructor's tuning keywords, which :meth:`PostgresTextSearch.from_table` takes too.

    Each is documented with the constructor; type checkers see them on both.
    """

    min_size: int
    max_size: int
    timeout: float
    pool_timeout: float | None
    connect_timeout: float
    max_candidates: int
    one_per_document: bool
    rank_function: Literal["bm25", "ts_rank", "ts_rank_cd"]
    highlight: tuple[str, str] | None
    snippet_words: int
    batch_size: int
    mode: Mode | None
    string_mapper: Callable[[PostgresDocument], str] | None
    text_search_result_mapper: Callable[[PostgresDocument], TextSearchResult] | None


#: environment variable holding the connection string
DSN_ENV = "TEXTSEARCH_POSTGRES_DSN"
#: seconds the list of very common words (from ANALYZE statistics) is reused before re-reading
COMMON_WORDS_TTL = 60.0
#: the same, while the column has no statistics yet (before the first ANALYZE, or a view)
NO_STATISTICS_TTL = 5.0


def _passage_text(title: str | None, section: str | None, text: str | None) -> str:
    """What a passage's vector is made of: its document's title, its heading, its text."""
    return "\n".join(part for part in (title, section, text) if part)


def embedding_text(row: Sequence[Any]) -> str:
    """The text to embed for one managed row (see ``ROW_COLUMNS``: title, section, text)."""
    return _passage_text(row[2], row[3], row[6])


def _embedding_update(
    rows: Sequence[Sequence[Any]], vectors: Sequence[Sequence[float]]
) -> tuple[list[str], list[int], list[str]]:
    return (
        [str(r[0]) for r in rows],
        [int(r[1]) for r in rows],
        [vector_text(v) for v in vectors],
    )


def _execute(statement: Any, params: Any, conn: Any) -> None:
    conn.execute(statement, params)


def _params_of(statement: Any, params: dict[str, Any]) -> dict[str, Any] | None:
    """The parameters of a statement that has placeholders (DDL takes none)."""
    return params if b"%(" in statement.as_bytes(None) else None


def _positive(name: str, value: object, *, integer: bool = False, minimum: float = 0) -> Any:
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or value < minimum:
        raise ConfigurationError(f"{name} must be a number >= {minimum}, got {value!r}")
    if not integer and value <= 0:
        raise ConfigurationError(f"{name} must be greater than 0, got {value!r}")
    return value


class PostgresTextSearch(BaseTextSearch[PostgresDocument]):
    """Full-text search in a PostgreSQL table, with a connection pool; async and blocking.

    Args:
        dsn: libpq connection string or ``postgresql://`` URL. Defaults to the
            ``TEXTSEARCH_POSTGRES_DSN`` environment variable, then to libpq's own ``PG*``
            variables (``PGHOST``, ``PGDATABASE``, ``PGUSER``, ``PGPASSWORD``...).
        table: The managed table (``name`` or ``schema.name``).
        text_search_config: PostgreSQL text-search configuration (``english``, ``simple``,
            ``german``...; ``simple`` does no stemming and suits mixed languages).
        min_size: Connections each pool keeps open.
        max_size: Most connections each pool opens (the async and the blocking methods have
            a pool each, created on first use).
        timeout: Seconds a statement may run (``statement_timeout``) and, unless
            ``pool_timeout`` is set, seconds to wait for a free connection.
        pool_timeout: Seconds to wait for a free pooled connection.
        connect_timeout: Seconds to wait for a new connection (libpq rounds up, minimum 2).
        max_candidates: For very common words, how many matching passages are ranked.
        one_per_document: Collapse results to the best passage of each document.
        rank_function: ``"bm25"`` (the managed table's default: BM25 over term statistics
            the table keeps, title and heading words counted four times, as
            ``LocalTextSearch`` ranks), ``"ts_rank"`` (word frequency without inverse document
            frequency; the default of :meth:`from_table`) or ``"ts_rank_cd"`` (cover density).
            On SciFact BM25 scored nDCG@10 0.69 against 0.60 for ``ts_rank``
            (``docs/performance.md``).
        highlight: Markers put around matched words in snippets; ``None`` (default) for plain
            text, which is what a model should read.
        snippet_words: Half the length of a snippet, in words (a snippet is one window of
            about twice this many words: it used to be two fragments of this length).
        batch_size: Documents per transaction when writing.
        embedder: An :class:`~textsearch.embeddings.Embedder`: :meth:`create_schema` adds a
            pgvector column (HNSW, cosine) and records the model; passages are embedded when
            written (in every mode), queries in ``"semantic"`` and ``"hybrid"`` modes.
        mode: ``"keyword"``, ``"semantic"`` (by meaning only) or ``"hybrid"`` (both, fused by
            reciprocal rank in one statement); default ``"hybrid"`` with an embedder, else
            ``"keyword"``.
        string_mapper: Custom mapping of a :class:`PostgresDocument` to the string that
            :meth:`search` returns.
        text_search_result_mapper: Custom mapping of a :class:`PostgresDocument` to a
            :class:`~textsearch.TextSearchResult`.

    Raises:
        ImportError: psycopg is not installed (``pip install "textsearch-sdk[postgres]"``).
        ConfigurationError: An invalid DSN, identifier or number; a ``mode`` that needs an
            embedder without one; ``embedder`` not an ``Embedder``.

    The total time of one call is bounded by ``pool_timeout + timeout`` (plus
    ``connect_timeout`` for a connection opened on the way); a call retried once after a
    dropped connection or a stalled pool can take that twice. Filters: ``equal_to`` on ``site``
    (host of the link; subdomains match too), ``id``, ``link`` or any metadata key (jsonb
    containment); ``any_tag_equal_to`` on metadata keys holding lists. Values are always bound
    parameters. The password never appears in a message, a ``repr`` or a log line.
    """

    provider_name: ClassVar[str] = "postgres"

    def __init__(
        self,
        dsn: str | None = None,
        *,
        table: str = "textsearch_documents",
        text_search_config: str = "english",
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 10.0,
        pool_timeout: float | None = None,
        connect_timeout: float = 5.0,
        max_candidates: int = 1000,
        one_per_document: bool = False,
        rank_function: Literal["bm25", "ts_rank", "ts_rank_cd"] = "bm25",
        highlight: tuple[str, str] | None = None,
        snippet_words: int = 30,
        batch_size: int = 500,
        embedder: Embedder | None = None,
        mode: Mode | None = None,
        string_mapper: Callable[[PostgresDocument], str] | None = None,
        text_search_result_mapper: Callable[[PostgresDocument], TextSearchResult] | None = None,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        require_psycopg()
        self._setup(
            dsn,
            managed_spec(table, text_search_config, embedding=embedder is not None),
            embedder=embedder,
            mode=mode,
            min_size=min_size,
            max_size=max_size,
            timeout=timeout,
            pool_timeout=pool_timeout,
            connect_timeout=connect_timeout,
            max_candidates=max_candidates,
            one_per_document=one_per_document,
            rank_function=rank_function,
            highlight=highlight,
            snippet_words=snippet_words,
            batch_size=batch_size,
        )

    @classmethod
    def from_table(
        cls,
        dsn: str | None = None,
        *,
        table: str,
        id_column: str = "id",
        name_column: str | None = None,
        value_column: str,
        link_column: str | None = None,
        tsvector_column: str | None = None,
        text_columns: Sequence[str] | None = None,
        metadata_column: str | None = None,
        text_search_config: str = "english",
        vector_column: str | None = None,
        embedder: Embedder | None = None,
        **kwargs: Unpack[PostgresSettings],
    ) -> Self:
        """Search a table you already have (read-only: writing methods refuse it).

        Args:
            dsn: As for the constructor.
            table: The table or view (``name`` or ``schema.name``).
            id_column: Unique id column (any type; returned as text).
            name_column: Title column (the ``name`` of normalized results).
            value_column: Text column (the ``value``; snippets come from it).
            link_column: Link column; enables the ``link`` and ``site`` filters.
            tsvector_column: A ``tsvector`` column to search (fast with a GIN index). Without
                it the vector is computed at query time from ``text_columns``.
            text_columns: Columns to compute the vector from; the first is weighted above the
                others. Defaults to ``name_column`` then ``value_column``.
            metadata_column: A ``jsonb`` column; enables filters on its keys.
            text_search_config: Configuration for queries (and the computed vector); it must
                match the one that built ``tsvector_column``.
            vector_column: A pgvector ``vector`` column of embeddings of ``value_column``'s
                text, made by ``embedder``'s model (its dimensions are checked at the first
                search; the model cannot be, the table does not record it).
            embedder: The embedder of the query for ``"semantic"`` and ``"hybrid"`` modes
                (``mode=``, a keyword; default ``"hybrid"`` with both set).
            **kwargs: The constructor's other keywords (``min_size``, ``timeout``,
                ``highlight``, ``mode``...: see :class:`PostgresSettings`).

        Raises:
            ImportError: psycopg is not installed.
            ConfigurationError: A name is not a valid identifier, or a bad keyword.
        """
        if "table" in kwargs:  # pragma: no cover - a keyword already taken above
            raise ConfigurationError("table is given once")
        spec = existing_spec(
            table=table,
            config=text_search_config,
            id_column=id_column,
            value_column=value_column,
            name_column=name_column,
            link_column=link_column,
            metadata_column=metadata_column,
            tsvector_column=tsvector_column,
            text_columns=text_columns,
            embedding_column=vector_column,
        )
        # Checked again at run time: an unknown keyword is a ConfigurationError, typed or not.
        tuning: dict[str, Any] = dict(kwargs)
        string_mapper = tuning.pop("string_mapper", None)
        result_mapper = tuning.pop("text_search_result_mapper", None)
        require_psycopg()
        self = cls.__new__(cls)
        BaseTextSearch.__init__(
            self, string_mapper=string_mapper, text_search_result_mapper=result_mapper
        )
        try:
            self._setup(dsn, spec, embedder=embedder, **tuning)
        except TypeError as exc:
            raise ConfigurationError(f"from_table: {exc}") from None
        return self

    def _setup(
        self,
        dsn: str | None,
        spec: TableSpec,
        *,
        min_size: int = 1,
        max_size: int = 10,
        timeout: float = 10.0,
        pool_timeout: float | None = None,
        connect_timeout: float = 5.0,
        max_candidates: int = 1000,
        one_per_document: bool = False,
        rank_function: str | None = None,
        highlight: tuple[str, str] | None = None,
        snippet_words: int = 30,
        batch_size: int = 500,
        embedder: Embedder | None = None,
        mode: Mode | None = None,
    ) -> None:
        if embedder is not None and not isinstance(embedder, Embedder):
            raise ConfigurationError(
                "embedder must be an Embedder (see textsearch.embeddings), "
                f"not {type(embedder).__name__}"
            )
        if embedder is not None and not spec.embedding_column:
            raise ConfigurationError(
                "from_table: embedder= needs vector_column=, the table's pgvector column"
            )
        if mode is None:
            mode = "hybrid" if embedder is not None else "keyword"
        if mode not in MODES:
            raise ConfigurationError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if mode != "keyword" and (embedder is None or not spec.embedding_column):
            raise ConfigurationError(
                f"mode={mode!r} needs an embedder (embedder=...)"
                + ("" if spec.managed else " and the table's vector_column=")
            )
        self.embedder = embedder
        self.mode: Mode = mode
        self._dimensions: int | None = None  # the column's, once checked against the embedder
        if dsn is None:
            dsn = os.environ.get(DSN_ENV, "")
        if not isinstance(dsn, str):
            raise ConfigurationError(f"dsn must be a string, not {type(dsn).__name__}")
        params = parse_dsn(dsn)
        _positive("min_size", min_size, integer=True)
        _positive("max_size", max_size, integer=True, minimum=max(1, min_size))
        _positive("timeout", timeout)
        _positive("connect_timeout", connect_timeout)
        if pool_timeout is not None:
            _positive("pool_timeout", pool_timeout)
        _positive("max_candidates", max_candidates, integer=True, minimum=1)
        _positive("snippet_words", snippet_words, integer=True, minimum=3)
        _positive("batch_size", batch_size, integer=True, minimum=1)
        if highlight is not None and (
            not isinstance(highlight, tuple)
            or len(highlight) != 2
            or not all(isinstance(m, str) for m in highlight)
        ):
            raise ConfigurationError("highlight must be None or a (start, end) pair of strings")
        if not isinstance(one_per_document, bool):
            raise ConfigurationError("one_per_document must be True or False")
        if rank_function is None:
            rank_function = "bm25" if spec.managed else "ts_rank"
        self._spec = spec
        self._builder = Builder(
            spec, rank_function=rank_function, one_per_document=one_per_document
        )
        self._schema = SchemaBuilder(spec)
        self.one_per_document = one_per_document
        self.rank_function = rank_function
        self._target = describe(params)
        self.max_candidates = max_candidates
        self.highlight = highlight
        self._snippet_chars = snippet_words * 14  # two fragments of ~7-character words
        self._common: tuple[float, tuple[str, ...]] | None = None
        self._statistics: tuple[float, bool] | None = None
        self.batch_size = batch_size
        secrets = tuple(s for s in (params.get("password"), os.environ.get("PGPASSWORD")) if s)
        settings = PoolSettings(
            dsn=dsn,
            target=self._target,
            table=spec.table_name,
            secrets=secrets,
            min_size=min_size,
            max_size=max_size,
            statement_timeout=float(timeout),
            pool_timeout=float(pool_timeout if pool_timeout is not None else timeout),
            connect_timeout=float(connect_timeout),
            vectors=embedder is not None,
        )
        self._sync = SyncPool(settings)
        self._async = AsyncPool(settings)

    def __repr__(self) -> str:
        return f"PostgresTextSearch({self._target!r}, table={self._spec.table_name!r})"

    # -- embeddings ----------------------------------------------------------------------

    def _embedding_problem(self, row: tuple[Any, ...] | None) -> str | None:
        """Why the stored vectors do not fit this instance's embedder (None: they do)."""
        embedder = self.embedder
        if embedder is None:
            return None
        column = self._spec.embedding_column
        if row is None:
            if self._spec.managed:
                return (
                    f"table {self.table!r} has no {column!r} vector column yet: call "
                    "create_schema() with the embedder set, then embed_missing()"
                )
            return f"table {self.table!r} has no column {column!r}"
        typmod, comment, type_name = row
        if not str(type_name).startswith("vector"):
            return f"column {column!r} of {self.table!r} is {type_name}, not a pgvector vector"
        dimensions = int(typmod) if typmod and int(typmod) > 0 else None
        recorded: dict[str, Any] = {}
        if comment:
            try:
                loaded = json.loads(comment)
            except ValueError:
                loaded = None
            recorded = loaded if isinstance(loaded, dict) else {}
        model = recorded.get("textsearch_embedder")
        how = (
            f"to re-embed with this embedder: ALTER TABLE {self.table} DROP COLUMN {column}; "
            "then create_schema() and embed_missing()"
        )
        if isinstance(model, str) and model != embedder.model:
            return (
                f"table {self.table!r} holds vectors of model {model!r}, but the embedder is "
                f"{embedder.model!r}; {how}"
            )
        if dimensions and embedder.dimensions and dimensions != embedder.dimensions:
            return (
                f"table {self.table!r} holds vectors of {dimensions} dimensions, but the "
                f"embedder ({embedder.model!r}) makes {embedder.dimensions}; {how}"
            )
        self._dimensions = dimensions
        return None

    def _check_length(self, vectors: Sequence[Sequence[float]]) -> None:
        if vectors and self._dimensions and len(vectors[0]) != self._dimensions:
            assert self.embedder is not None
            raise ConfigurationError(
                f"the embedder ({self.embedder.model!r}) made vectors of {len(vectors[0])} "
                f"dimensions; table {self.table!r} holds {self._dimensions}"
            )

    def _check_embedding_sync(self) -> None:
        if self.embedder is None or self._dimensions is not None:
            return
        probe = self._schema.embedding_probe()
        problem = self._embedding_problem(
            self._sync.run(lambda conn: conn.execute(*probe).fetchone())
        )
        if problem:
            raise ConfigurationError(problem)

    async def _check_embedding(self) -> None:
        if self.embedder is None or self._dimensions is not None:
            return
        probe = self._schema.embedding_probe()

        async def work(conn: Any) -> Any:
            cursor = await conn.execute(*probe)
            return await cursor.fetchone()

        problem = self._embedding_problem(await self._async.run(work))
        if problem:
            raise ConfigurationError(problem)

    async def _embedder_dimensions(self) -> int:
        embedder = self.embedder
        assert embedder is not None
        if embedder.dimensions is None:
            await embed_documents(embedder, ["dimensions"])  # learnt from one call
        if not embedder.dimensions:  # pragma: no cover - check_vectors guarantees a length
            raise ConfigurationError("the embedder did not tell its number of dimensions")
        return int(embedder.dimensions)

    def _embedder_dimensions_sync(self) -> int:
        embedder = self.embedder
        assert embedder is not None
        if embedder.dimensions is None:
            embed_documents_sync(embedder, ["dimensions"])
        if not embedder.dimensions:  # pragma: no cover - check_vectors guarantees a length
            raise ConfigurationError("the embedder did not tell its number of dimensions")
        return int(embedder.dimensions)

    @property
    def table(self) -> str:
        """The table searched (``name`` or ``schema.name``)."""
        return self._spec.table_name

    # -- searching ---------------------------------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        self._builder.check_filter(search_filter)

    def _statements(
        self,
        query: str,
        options: SearchOptions,
        common: tuple[str, ...],
        statistics: bool,
        vector: list[float] | None = None,
    ) -> tuple[Any, Any]:
        request = Request(
            query,
            options.filter,
            options.top,
            options.skip,
            max_candidates=self.max_candidates,
            common_words=common,
            statistics=statistics,
        )
        builder = self._builder
        if vector is None:
            count = builder.count(request) if options.include_total_count else None
            return builder.search(request), count
        if options.include_total_count:
            count = builder.vector_count(request, keyword=self.mode == "hybrid")
        else:
            count = None
        if self.mode == "semantic":
            return builder.semantic(request, vector), count
        return builder.hybrid(request, vector), count

    def _cached_statistics(self) -> bool | None:
        """Whether BM25's statistics exist (``None``: ask the server)."""
        if not self._builder.bm25:
            return False
        cached = self._statistics
        if cached is None or cached[0] < time.monotonic():
            return None
        return cached[1]

    def _keep_statistics(self, row: tuple[Any, ...] | None) -> bool:
        # Once built, the statistics stay; a table of an older version is asked again soon
        # (create_schema() may be upgrading it from another process).
        found = bool(row and row[0])
        self._statistics = (math.inf if found else time.monotonic() + NO_STATISTICS_TTL, found)
        return found

    def _cached_common(self) -> tuple[str, ...] | None:
        """The very common words, while fresh; ``None`` when they must be read again."""
        cached = self._common
        if cached is None or cached[0] < time.monotonic():
            return None
        return cached[1]

    def _keep_common(self, row: tuple[Any, ...] | None) -> tuple[str, ...]:
        # No row: no statistics yet (no ANALYZE, or a view); ask again a little sooner.
        words = tuple(row[0]) if row and row[0] else ()
        ttl = COMMON_WORDS_TTL if row is not None else NO_STATISTICS_TTL
        self._common = (time.monotonic() + ttl, words)
        return words

    def _results(
        self, query: str, rows: list[tuple[Any, ...]], total: int | None
    ) -> SearchResults[PostgresDocument]:
        pattern = hit_pattern(_WORD.findall(query_text(split_exclusions(query)[0])))
        docs = []
        for row in rows:
            doc_id, title, text, link, metadata, score, passage, section, anchor, line = row
            text = "" if text is None else str(text)
            link = None if link is None else str(link)
            snippet = best_window(text, pattern, self._snippet_chars, self.highlight)
            docs.append(
                PostgresDocument(
                    id=str(doc_id),
                    title=None if title is None else str(title),
                    text=text,
                    link=passage_link(link, anchor, line) if link else None,
                    metadata=metadata if isinstance(metadata, dict) else {},
                    section=section,
                    line=line,
                    passage=passage,
                    score=None if score is None else float(score),
                    snippet=clean_snippet(snippet),
                )
            )
        return SearchResults(docs, total, {})

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[PostgresDocument]:
        query = query.replace("\x00", " ")  # PostgreSQL text cannot hold NUL
        stats = self._builder.common_words()
        vector = None
        if self.embedder is not None:
            await self._check_embedding()
            if self.mode != "keyword":  # keyword mode never calls the embedder
                vector = await embed_query(self.embedder, query)
                self._check_length([vector])

        async def work(conn: Any) -> tuple[list[tuple[Any, ...]], int | None]:
            statistics = self._cached_statistics()
            if statistics is None:
                cursor = await conn.execute(*self._schema.has_stats())
                statistics = self._keep_statistics(await cursor.fetchone())
            common = () if statistics else self._cached_common()
            if common is None:
                common = ()
                if stats is not None:
                    cursor = await conn.execute(*stats)
                    common = self._keep_common(await cursor.fetchone())
            search, count = self._statements(query, options, common, statistics, vector)
            cursor = await conn.execute(*search)
            rows = await cursor.fetchall()
            total = None
            if count is not None:
                cursor = await conn.execute(*count)
                total = int((await cursor.fetchone())[0])
            return rows, total

        rows, total = await self._async.run(work)
        return self._results(query, rows, total)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[PostgresDocument]:
        query = query.replace("\x00", " ")  # PostgreSQL text cannot hold NUL
        stats = self._builder.common_words()
        vector = None
        if self.embedder is not None:
            self._check_embedding_sync()
            if self.mode != "keyword":  # keyword mode never calls the embedder
                vector = embed_query_sync(self.embedder, query)
                self._check_length([vector])

        def work(conn: Any) -> tuple[list[tuple[Any, ...]], int | None]:
            statistics = self._cached_statistics()
            if statistics is None:
                statistics = self._keep_statistics(
                    conn.execute(*self._schema.has_stats()).fetchone()
                )
            common = () if statistics else self._cached_common()
            if common is None:
                common = self._keep_common(conn.execute(*stats).fetchone()) if stats else ()
            search, count = self._statements(query, options, common, statistics, vector)
            rows = conn.execute(*search).fetchall()
            total = None
            if count is not None:
                total = int(conn.execute(*count).fetchone()[0])
            return rows, total

        rows, total = self._sync.run(work)
        return self._results(query, rows, total)

    def _to_text_search_result(self, item: PostgresDocument) -> TextSearchResult:
        name = f"{item.title} › {item.section}" if item.title and item.section else item.title
        value = item.snippet if item.snippet else (item.text[:300] or None)
        return TextSearchResult(name=name or item.section, value=value, link=item.link)

    async def get_documents(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[PostgresDocument]:
        """Same as :meth:`get_search_results`: documents with snippet and score."""
        return await self.get_search_results(query, options, **kwargs)

    def get_documents_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[PostgresDocument]:
        """Blocking twin of :meth:`get_documents`."""
        return self.get_search_results_sync(query, options, **kwargs)

    # -- managed table -----------------------------------------------------------------

    def _require_managed(self, what: str) -> None:
        if not self._spec.managed:
            raise ConfigurationError(
                f"{what} works on the managed table only; this instance maps an existing "
                f"table ({self._spec.table_name!r}) read-only"
            )

    async def create_schema(self) -> None:
        """Create the managed table and its indexes if missing (safe to call concurrently).

        A table made by the first version of this connector (one row per document) is
        upgraded in place to one row per passage: its rows stay searchable as they are, and
        the next :meth:`index_path` re-reads the files it indexed so they are split into
        passages. The upgrade rewrites the table once (its vector column is rebuilt). The
        term statistics BM25 ranks with are built from the rows there (one scan) when they
        are missing. With an embedder: the pgvector extension, a ``vector(N)`` column with an
        HNSW (cosine) index, and the model recorded on the column (the embedder is called
        once to learn ``N`` if it does not declare it).

        Raises:
            ConfigurationError: An existing-table instance, an unknown text-search config, or
                a table holding another embedding model's (or dimension count's) vectors.
            ProviderError: The server refused (for example no CREATE right, or pgvector is
                not installed), or the embedder failed.
            SearchTransportError: The server could not be reached.
        """
        self._require_managed("create_schema")
        schema = self._schema
        dimensions = await self._embedder_dimensions() if self.embedder else 0

        async def work(conn: Any) -> Any:
            async with conn.transaction():
                await conn.execute(schema.lock())
                cursor = await conn.execute(*schema.probe())
                columns = {row[0] for row in await cursor.fetchall()}
                if not columns:  # a new table: statistics left by a dropped one are stale
                    await conn.execute(schema.drop_stats())
                if schema.needs_upgrade(columns):
                    cursor = await conn.execute(*schema.primary_key())
                    key = await cursor.fetchone()
                    for statement in schema.upgrade(key[0] if key else None):
                        await conn.execute(statement)
                if schema.needs_cjk_upgrade(columns) or schema.needs_upgrade(columns):
                    if schema.needs_cjk_upgrade(columns):
                        for statement in schema.cjk_upgrade():
                            await conn.execute(statement)
                    cursor = await conn.execute(schema.cjk_rows(), (_CJK_PATTERN,))
                    updates = [_segmented(row) for row in await cursor.fetchall()]
                    async with conn.cursor() as cur:
                        await cur.executemany(schema.set_search_text(), updates)
                    await conn.execute(schema.drop_stats())  # rebuilt below from new vectors
                for statement in schema.create():
                    await conn.execute(statement)
                cursor = await conn.execute(*schema.has_stats())
                if not (await cursor.fetchone())[0]:
                    await conn.execute(schema.write_lock())
                    for statement in schema.create_stats():
                        await conn.execute(statement)
                if self.embedder is not None:
                    cursor = await conn.execute(*schema.embedding_probe())
                    row = await cursor.fetchone()
                    if row is None:
                        for statement in schema.add_embedding(dimensions, self.embedder.model):
                            await conn.execute(statement)
                        cursor = await conn.execute(*schema.embedding_probe())
                        row = await cursor.fetchone()
                    return row
                return None

        self._dimensions = None
        row = await self._async.run(work)
        problem = self._embedding_problem(row)
        if problem:
            raise ConfigurationError(problem)
        self._statistics = None

    def create_schema_sync(self) -> None:
        """Blocking twin of :meth:`create_schema`; raises the same errors."""
        self._require_managed("create_schema_sync")
        schema = self._schema
        dimensions = self._embedder_dimensions_sync() if self.embedder else 0

        def work(conn: Any) -> Any:
            with conn.transaction():
                conn.execute(schema.lock())
                columns = {row[0] for row in conn.execute(*schema.probe()).fetchall()}
                if not columns:  # a new table: statistics left by a dropped one are stale
                    conn.execute(schema.drop_stats())
                if schema.needs_upgrade(columns):
                    key = conn.execute(*schema.primary_key()).fetchone()
                    for statement in schema.upgrade(key[0] if key else None):
                        conn.execute(statement)
                if schema.needs_cjk_upgrade(columns) or schema.needs_upgrade(columns):
                    if schema.needs_cjk_upgrade(columns):
                        for statement in schema.cjk_upgrade():
                            conn.execute(statement)
                    rows = conn.execute(schema.cjk_rows(), (_CJK_PATTERN,)).fetchall()
                    with conn.cursor() as cur:
                        cur.executemany(schema.set_search_text(), [_segmented(r) for r in rows])
                    conn.execute(schema.drop_stats())  # rebuilt below from new vectors
                for statement in schema.create():
                    conn.execute(statement)
                if not conn.execute(*schema.has_stats()).fetchone()[0]:
                    conn.execute(schema.write_lock())
                    for statement in schema.create_stats():
                        conn.execute(statement)
                if self.embedder is not None:
                    row = conn.execute(*schema.embedding_probe()).fetchone()
                    if row is None:
                        for statement in schema.add_embedding(dimensions, self.embedder.model):
                            conn.execute(statement)
                        row = conn.execute(*schema.embedding_probe()).fetchone()
                    return row
                return None

        self._dimensions = None
        row = self._sync.run(work)
        problem = self._embedding_problem(row)
        if problem:
            raise ConfigurationError(problem)
        self._statistics = None

    @staticmethod
    def _documents(docs: Iterable[LocalDocument | Mapping[str, Any]]) -> list[LocalDocument]:
        if isinstance(docs, str | bytes | Mapping):
            raise InvalidRequestError("add_documents takes a list of documents, not one document")
        return prepare_documents(docs)

    def _row_batches(
        self, docs: list[LocalDocument], chunk: bool
    ) -> Iterator[list[tuple[Any, ...]]]:
        for batch in batches(docs, self.batch_size):
            yield [
                row
                for doc in last_of_each(batch)
                for row in document_rows(doc, passages_of(doc, chunk))
            ]

    @staticmethod
    def _with_vectors(
        rows: Sequence[tuple[Any, ...]], vectors: Sequence[Sequence[float]]
    ) -> list[tuple[Any, ...]]:
        return [(*row, vector_text(v)) for row, v in zip(rows, vectors, strict=True)]

    def _embedded_sync(self, rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """Rows with their passage's vector last (every vector made before any is written)."""
        if self.embedder is None:
            return list(rows)
        vectors = embed_documents_sync(self.embedder, [embedding_text(r) for r in rows])
        self._check_length(vectors)
        return self._with_vectors(rows, vectors)

    async def _embedded(self, rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        if self.embedder is None:
            return list(rows)
        vectors = await embed_documents(self.embedder, [embedding_text(r) for r in rows])
        self._check_length(vectors)
        return self._with_vectors(rows, vectors)

    async def add_documents(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = False
    ) -> int:
        """Add or replace documents (by ``id``), in transactions of ``batch_size`` documents.

        Each document is a :class:`~textsearch.LocalDocument` or a dict with ``id``, ``title``,
        ``text``, ``link`` and ``metadata`` (the same shape and rules as
        :meth:`LocalTextSearch.add_documents`). All are validated before any is written. A
        document replaces every passage of the one it replaces.

        Args:
            docs: The documents.
            chunk: Split each text into passages (by Markdown headings, then paragraphs, at
                most ~1,500 characters each), as ``LocalTextSearch`` does; results then name and
                link the section. Without it, a document is one passage.

        Returns:
            How many documents were written.

        With an embedder, every passage is embedded (title, section heading and text)
        before anything is written: if embedding fails, nothing is.

        Raises:
            InvalidRequestError: A document or a metadata key is invalid.
            ConfigurationError: An existing-table instance (read-only), or a table without
                the embedder's vector column or with another model's.
            NotFoundError: The table does not exist (call :meth:`create_schema`).
            ProviderError: The embedder failed or returned malformed vectors
                (``ResponseFormatError``).
            SearchTransportError: The server could not be reached.
        """
        self._require_managed("add_documents")
        prepared = self._documents(docs)
        await self._check_embedding()
        schema = self._schema
        create, copy, insert, trim = schema.upsert()
        ids = schema.staged_ids()
        # Every vector is made before anything is written: a failing embedder writes nothing.
        embedded = [await self._embedded(rows) for rows in self._row_batches(prepared, chunk)]
        for rows in embedded:

            async def work(conn: Any, rows: Sequence[Any] = rows) -> None:
                async with conn.transaction():
                    await conn.execute(create)
                    async with conn.cursor() as cursor:
                        async with cursor.copy(copy) as loader:
                            for row in rows:
                                await loader.write_row(row)
                        await cursor.execute(schema.write_lock())
                        await cursor.execute(*schema.has_stats())
                        statistics = bool((await cursor.fetchone())[0])
                        for statement in schema.stats_before(ids) if statistics else ():
                            await cursor.execute(statement)
                        await cursor.execute(insert)
                        await cursor.execute(trim)
                        for statement in schema.stats_after(ids) if statistics else ():
                            await cursor.execute(statement)

            await self._async.run(work)
        return len(prepared)

    def add_documents_sync(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = False
    ) -> int:
        """Blocking twin of :meth:`add_documents`; raises the same errors."""
        self._require_managed("add_documents_sync")
        prepared = self._documents(docs)
        self._check_embedding_sync()
        # Every vector is made before anything is written: a failing embedder writes nothing.
        embedded = [self._embedded_sync(rows) for rows in self._row_batches(prepared, chunk)]
        for rows in embedded:
            self._write_rows(rows, embedded=True)
        return len(prepared)

    def _write_rows(self, rows: Sequence[tuple[Any, ...]], embedded: bool = False) -> None:
        """One transaction: the rows of whole documents (every passage of each)."""
        if not rows:
            return
        if not embedded:  # index_path's files: embedded here, batch by batch
            self._check_embedding_sync()
            rows = self._embedded_sync(rows)
        schema = self._schema
        create, copy, insert, trim = schema.upsert()
        ids = schema.staged_ids()

        def work(conn: Any) -> None:
            with conn.transaction(), conn.cursor() as cursor:
                cursor.execute(create)
                with cursor.copy(copy) as loader:
                    for row in rows:
                        loader.write_row(row)
                # Rows are staged before the lock: writers wait for each other only while
                # the statistics and the rows change.
                cursor.execute(schema.write_lock())
                statistics = bool(cursor.execute(*schema.has_stats()).fetchone()[0])
                for statement in schema.stats_before(ids) if statistics else ():
                    cursor.execute(statement)
                cursor.execute(insert)
                cursor.execute(trim)
                for statement in schema.stats_after(ids) if statistics else ():
                    cursor.execute(statement)

        self._sync.run(work)

    @staticmethod
    def _ids(ids: Iterable[str]) -> list[str]:
        if isinstance(ids, str | bytes):
            raise InvalidRequestError("delete_documents takes a list of ids, not one string")
        result = list(ids)
        if not all(isinstance(i, str) for i in result):
            raise InvalidRequestError("document ids must be strings")
        return result

    async def delete_documents(self, ids: Iterable[str]) -> int:
        """Delete documents (every passage of each) by id; returns how many existed.

        Raises:
            InvalidRequestError: ``ids`` is not a list of strings.
            ConfigurationError: An existing-table instance (read-only).
            SearchTransportError: The server could not be reached.
        """
        self._require_managed("delete_documents")
        params = {"ids": self._ids(ids)}
        schema = self._schema
        gone = schema.deleted_ids()

        async def work(conn: Any) -> int:
            async with conn.transaction():
                await conn.execute(schema.write_lock())
                cursor = await conn.execute(*schema.has_stats())
                statistics = bool((await cursor.fetchone())[0])
                before, after = (
                    (schema.stats_before(gone), schema.stats_after(gone))
                    if statistics
                    else ([], [])
                )
                for statement in before:
                    await conn.execute(statement, _params_of(statement, params))
                cursor = await conn.execute(schema.delete(), params)
                count = int((await cursor.fetchone())[0])
                for statement in after:
                    await conn.execute(statement, _params_of(statement, params))
                return count

        return await self._async.run(work)

    def delete_documents_sync(self, ids: Iterable[str]) -> int:
        """Blocking twin of :meth:`delete_documents`; raises the same errors."""
        self._require_managed("delete_documents_sync")
        params = {"ids": self._ids(ids)}
        schema = self._schema
        gone = schema.deleted_ids()

        def work(conn: Any) -> int:
            with conn.transaction():
                conn.execute(schema.write_lock())
                statistics = bool(conn.execute(*schema.has_stats()).fetchone()[0])
                before, after = (
                    (schema.stats_before(gone), schema.stats_after(gone))
                    if statistics
                    else ([], [])
                )
                for statement in before:
                    conn.execute(statement, _params_of(statement, params))
                count = int(conn.execute(schema.delete(), params).fetchone()[0])
                for statement in after:
                    conn.execute(statement, _params_of(statement, params))
                return count

        return self._sync.run(work)

    async def embed_missing(self) -> int:
        """Embed the passages stored without a vector; returns how many were embedded.

        For a table filled before the embedder was set (after :meth:`create_schema` added
        the vector column). Works ``batch_size`` passages at a time, each batch committed.

        Raises:
            ConfigurationError: No embedder, an existing-table instance, or a table holding
                another model's vectors.
            ProviderError: The embedder failed (that batch is not written).
            SearchTransportError: The server could not be reached.
        """
        self._require_embedder("embed_missing")
        await self._check_embedding()
        select, update = self._schema.missing_embeddings(), self._schema.set_embeddings()
        done = 0
        while True:

            async def read(conn: Any) -> list[tuple[Any, ...]]:
                cursor = await conn.execute(select, (self.batch_size,))
                return list(await cursor.fetchall())

            rows = await self._async.run(read)
            if not rows:
                return done
            assert self.embedder is not None
            vectors = await embed_documents(self.embedder, [_passage_text(*r[2:]) for r in rows])
            self._check_length(vectors)
            params = _embedding_update(rows, vectors)

            async def write(conn: Any, params: Any = params) -> None:
                await conn.execute(update, params)

            await self._async.run(write)
            done += len(rows)

    def embed_missing_sync(self) -> int:
        """Blocking twin of :meth:`embed_missing`; raises the same errors."""
        self._require_embedder("embed_missing_sync")
        self._check_embedding_sync()
        select, update = self._schema.missing_embeddings(), self._schema.set_embeddings()
        done = 0
        while True:
            rows = self._sync.run(lambda conn: conn.execute(select, (self.batch_size,)).fetchall())
            if not rows:
                return done
            assert self.embedder is not None
            vectors = embed_documents_sync(self.embedder, [_passage_text(*r[2:]) for r in rows])
            self._check_length(vectors)
            params = _embedding_update(rows, vectors)
            self._sync.run(functools.partial(_execute, update, params))
            done += len(rows)

    def _require_embedder(self, what: str) -> None:
        self._require_managed(what)
        if self.embedder is None:
            raise ConfigurationError(f"{what} needs an embedder (embedder=...)")

    async def count_documents(self) -> int:
        """Number of documents in the table (not passages).

        Raises:
            NotFoundError: The table does not exist.
            SearchTransportError: The server could not be reached.
        """
        statement = self._builder.count_all()

        async def work(conn: Any) -> int:
            cursor = await conn.execute(statement)
            return int((await cursor.fetchone())[0])

        return await self._async.run(work)

    def count_documents_sync(self) -> int:
        """Blocking twin of :meth:`count_documents`; raises the same errors."""
        statement = self._builder.count_all()
        return self._sync.run(lambda conn: int(conn.execute(statement).fetchone()[0]))

    def get_document(
        self, key: str, *, filter: TextSearchFilter | None = None
    ) -> PostgresDocument | None:
        """The stored document whose id, else whose link, is ``key`` (``None`` if none).

        Blocking, like :meth:`LocalTextSearch.get_document` (the MCP server and
        ``full_pages`` grounding call it from a worker thread to open a whole document from a
        result). From the managed table the text is the whole document, its passages in
        order; a passage link (``file#section``) finds its document. From an existing table,
        the row whose id column (as text) is ``key``.

        Args:
            key: The document's id, its link, or a passage link.
            filter: Only a document that this filter admits is returned (the same clauses
                as a search's filter): how a preset filter also governs direct reads.

        Raises:
            NotFoundError: The table does not exist.
            SearchTransportError: The server could not be reached.
            UnsupportedFilterError: The filter names a field the table cannot filter on.
        """
        if not isinstance(key, str) or not key or "\x00" in key:
            return None
        self._builder.check_filter(filter)
        if not self._spec.managed:
            statement, params = self._builder.document_by_id(key, filter)
            row = self._sync.run(lambda conn: conn.execute(statement, params).fetchone())
            if row is None:
                return None
            return self._results("", [(*row, None, 0, None, None, None)], None)[0]
        candidates = [("id", key), ("link", key)]
        if "#" in key:
            candidates.append(("link", key.split("#", 1)[0]))
        schema = self._schema

        def work(conn: Any) -> list[tuple[Any, ...]]:
            for column, value in candidates:
                rows: list[tuple[Any, ...]] = conn.execute(
                    schema.document(column), (value,)
                ).fetchall()
                if rows:
                    return rows
            return []

        rows = self._sync.run(work)
        if not rows:
            return None
        doc_id, title, _, link, metadata = rows[0]
        if filter:
            allowed, params = self._builder.document_allowed(str(doc_id), filter)
            if self._sync.run(lambda conn: conn.execute(allowed, params).fetchone()) is None:
                return None
        return PostgresDocument(
            id=str(doc_id),
            title=title,
            text="\n\n".join(row[2] for row in rows if row[2]),
            link=link,
            metadata=metadata if isinstance(metadata, dict) else {},
        )

    def list_documents(
        self,
        *,
        filter: TextSearchFilter | None = None,
        after: str | None = None,
        limit: int = 100,
    ) -> list[PostgresDocument]:
        """The stored documents in order of id, a page at a time, without their text.

        Blocking, like :meth:`get_document`. Pages are keyed, not counted: pass the last id
        of a page as ``after`` to get the next one. Ids are compared byte by byte
        (``COLLATE "C"``), the order Python gives them.

        Args:
            filter: Only documents this filter admits (the same clauses as a search's).
            after: Only ids after this one.
            limit: Most documents returned, 1 to 1,000.

        Returns:
            Documents with ``id``, ``title``, ``link`` and ``metadata``; ``text`` is empty.

        Raises:
            InvalidRequestError: ``limit`` is out of range.
            NotFoundError: The table does not exist.
            SearchTransportError: The server could not be reached.
            UnsupportedFilterError: The filter names a field the table cannot filter on.
        """
        from psycopg import sql

        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidRequestError("limit must be a whole number from 1 to 1000")
        self._builder.check_filter(filter)
        builder, spec = self._builder, self._spec
        params: dict[str, Any] = {"after": (after or "").replace("\x00", ""), "limit": limit}
        key = sql.SQL('({}::text COLLATE "C")').format(builder.col(spec.id_column))
        first = sql.SQL(" AND d.passage = 0") if spec.passage_columns else sql.SQL("")
        statement = sql.SQL(
            "SELECT {id}, {title}, {link}, {meta} FROM {table} AS d "
            "WHERE {key} > %(after)s{first}{where} ORDER BY {key} LIMIT %(limit)s"
        ).format(
            id=builder.col(spec.id_column),
            title=builder.col(spec.name_column),
            link=builder.col(spec.link_column),
            meta=builder.col(spec.metadata_column),
            table=builder.table,
            key=key,
            first=first,
            where=builder.filters(filter, params),
        )
        rows = self._sync.run(lambda conn: conn.execute(statement, params).fetchall())
        return [
            PostgresDocument(
                id=str(r[0]),
                title=None if r[1] is None else str(r[1]),
                link=None if r[2] is None else str(r[2]),
                metadata=r[3] if isinstance(r[3], dict) else {},
            )
            for r in rows
        ]

    def get_section(
        self, link: str, *, filter: TextSearchFilter | None = None
    ) -> PostgresDocument | None:
        """The section a passage link (``file#anchor`` or ``file#L12``) points at.

        Blocking, like :meth:`get_document`; managed tables only (an existing table has no
        passages: ``None``). A long section is stored as several passages with the same
        link; the text is all of them, in order.

        Args:
            link: A passage link as search results give it.
            filter: Only a section of a document this filter admits is returned.

        Returns:
            The document's fields with the section's ``text``, ``section``, ``line`` and
            ``link``; ``None`` when ``link`` is not a passage link of a stored document.

        Raises:
            NotFoundError: The table does not exist.
            SearchTransportError: The server could not be reached.
            UnsupportedFilterError: The filter names a field the table cannot filter on.
        """
        from psycopg import sql

        base, hash_, fragment = link.partition("#")
        if not (hash_ and base and fragment) or "\x00" in link or not self._spec.passage_columns:
            return None
        self._builder.check_filter(filter)
        params: dict[str, Any] = {"base": base}
        statement = sql.SQL(
            "SELECT id, title, link, metadata, passage, section, anchor, line, text FROM {table} "
            "WHERE id = (SELECT d.id FROM {table} AS d WHERE d.link = %(base)s "
            "AND d.passage = 0{where} ORDER BY d.id LIMIT 1) ORDER BY passage"
        ).format(table=self._builder.table, where=self._builder.filters(filter, params))
        rows = self._sync.run(lambda conn: conn.execute(statement, params).fetchall())
        found = [i for i, r in enumerate(rows) if passage_link(base, r[6], r[7]) == link]
        if not found:
            return None
        start = end = found[0]
        section, anchor, line = rows[start][5], rows[start][6], rows[start][7]
        if section is not None:  # the run of passages under this heading
            while start > 0 and (rows[start - 1][5], rows[start - 1][6]) == (section, anchor):
                start -= 1
            while end + 1 < len(rows) and (rows[end + 1][5], rows[end + 1][6]) == (section, anchor):
                end += 1
            line = rows[start][7]
        doc_id, title, _, metadata = rows[start][:4]
        return PostgresDocument(
            id=str(doc_id),
            title=title,
            text="\n\n".join(r[8] for r in rows[start : end + 1] if r[8]),
            link=passage_link(base, anchor, line) or link,
            metadata=metadata if isinstance(metadata, dict) else {},
            section=section,
            line=line,
        )

    def index_path(
        self,
        path: str | os.PathLike[str],
        *,
        extensions: Sequence[str] = DEFAULT_EXTENSIONS,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> IndexReport:
        """Index a file or folder of text, Markdown, reStructuredText and HTML (blocking).

        Each file is split into passages as :meth:`LocalTextSearch.index_path` splits it
        (sections by heading, paragraphs in plain text, at most ~1,500 characters each), one
        row per passage; a result names its document and section and links to
        ``file#anchor`` (or ``file#L<line>``). Incremental: unchanged files (same size and
        modification time, or same content) are skipped, changed files are re-indexed as a
        whole, and documents whose file has gone are deleted. Writes are committed every
        ``batch_size`` files, so an interrupted run keeps what it finished.

        Args:
            path: File or folder to index.
            extensions: File name endings to read (case-insensitive).
            progress: Called as ``progress(done, total, file_path)`` after each file.

        Raises:
            ConfigurationError: The path does not exist, or an existing-table instance.
            NotFoundError: The table does not exist (call :meth:`create_schema_sync`).
            SearchTransportError: The server could not be reached.
        """
        self._require_managed("index_path")
        if "\x00" in os.fspath(path):
            raise ConfigurationError("cannot index a path that contains a NUL character")
        root = Path(path).expanduser().resolve()
        if not root.exists():
            raise ConfigurationError(f"cannot index {os.fspath(path)!r}: no such file or folder")
        wanted = tuple(e.lower() for e in extensions)
        files = [root] if root.is_file() else sorted(walk(root, wanted))
        root_key = str(root)
        statement = self._schema.known_files()
        known = {
            row[0]: (row[1], row[2], row[3])
            for row in self._sync.run(lambda conn: conn.execute(statement, (root_key,)).fetchall())
        }
        report = IndexReport()
        touched = index_files(
            files, known, root_key, report, self.batch_size, self._write_rows, progress
        )
        if touched:
            touch = self._schema.touch()
            self._sync.run(lambda conn: conn.cursor().executemany(touch, touched))
        gone = list(known.keys() - {str(f) for f in files})
        if gone:
            report.removed = self.delete_documents_sync(gone)
        return report

    # -- resources ---------------------------------------------------------------------

    def close(self) -> None:
        """Close the blocking pool (use :meth:`aclose` from async code to close both)."""
        self._sync.close()

    async def aclose(self) -> None:
        """Close both pools."""
        await self._async.close()
        self._sync.close()
