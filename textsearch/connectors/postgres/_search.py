"""``PostgresTextSearch``: full-text search in PostgreSQL, for when one SQLite file is not enough.

Several app servers, a team, or a database you already run: documents live in a PostgreSQL table
and are searched with the server's own full-text search (``tsvector``, a GIN index,
``websearch_to_tsquery``, ``ts_rank``). Needs the ``postgres`` extra::

    pip install "textsearch-sdk[postgres]"

Two ways to use it:

* **Managed table** - `PostgresTextSearch.create_schema` makes a table of passages (one
  row each) with a stored, weighted ``tsvector`` (title and section heading above body) and GIN
  indexes; `add_documents` upserts documents shaped like `LocalDocument`
  (split into passages with ``chunk=True``); `index_path` indexes a folder, split into
  passages as ``LocalTextSearch`` splits it.
* **Existing table** - `PostgresTextSearch.from_table` maps your columns to
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

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, Literal

from typing_extensions import Self, Unpack

from textsearch._twins import Plan, drive, drive_sync
from textsearch._types import (
    SearchOptionArgs,
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
)
from textsearch.base import BaseTextSearch
from textsearch.connectors.postgres._embedding import (
    EmbeddingSupport,
    embedding_text,
    embedding_update,
    passage_text,
)
from textsearch.connectors.postgres._errors import describe, parse_dsn, require_psycopg
from textsearch.connectors.postgres._planning import SearchPlanning
from textsearch.connectors.postgres._pool import AsyncPool, PoolSettings, SyncPool
from textsearch.connectors.postgres._reads import DocumentReads
from textsearch.connectors.postgres._rows import (
    DEFAULT_EXTENSIONS,
    IndexReport,
    LocalDocument,
    PostgresDocument,
    batches,
    document_rows,
    index_files,
    last_of_each,
    passages_of,
    prepare_documents,
)
from textsearch.connectors.postgres._schema import SchemaBuilder
from textsearch.connectors.postgres._settings import (
    DSN_ENV,
    MODES,
    FromEnvironment,
    Mode,
    PostgresSettings,
    Tuning,
)
from textsearch.connectors.postgres._settings import (
    positive as _positive,
)
from textsearch.connectors.postgres._sql import Builder, vector_text
from textsearch.connectors.postgres._tables import TableSpec, existing_spec, managed_spec
from textsearch.connectors.postgres._work import (
    Db,
    Embed,
    Step,
    blocking,
    checked_ids,
    create_schema,
    delete_ids,
    execute,
    fetch_all,
    fetch_one,
    on_connection,
    write_rows,
)
from textsearch.documents._files import files_to_index
from textsearch.embeddings import (
    Embedder,
)
from textsearch.errors import ConfigurationError, InvalidRequestError

__all__ = ["PostgresDocument", "PostgresTextSearch"]


class PostgresTextSearch(
    FromEnvironment,
    DocumentReads,
    SearchPlanning,
    EmbeddingSupport,
    BaseTextSearch[PostgresDocument],
):
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
            frequency; the default of `from_table`) or ``"ts_rank_cd"`` (cover density).
            On SciFact BM25 scored nDCG@10 0.69 against 0.60 for ``ts_rank``
            (``docs/performance.md``).
        highlight: Markers put around matched words in snippets; ``None`` (default) for plain
            text, which is what a model should read.
        snippet_words: Half the length of a snippet, in words (a snippet is one window of
            about twice this many words: it used to be two fragments of this length).
        batch_size: Documents per transaction when writing.
        embedder: An `Embedder`: `create_schema` adds a
            pgvector column (HNSW, cosine) and records the model; passages are embedded when
            written (in every mode), queries in ``"semantic"`` and ``"hybrid"`` modes.
        mode: ``"keyword"``, ``"semantic"`` (by meaning only) or ``"hybrid"`` (both, fused by
            reciprocal rank in one statement); default ``"hybrid"`` with an embedder, else
            ``"keyword"``.
        string_mapper: Custom mapping of a `PostgresDocument` to the string that
            `search` returns.
        text_search_result_mapper: Custom mapping of a `PostgresDocument` to a
            `TextSearchResult`.

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
            Tuning(
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
            ),
            embedder=embedder,
            mode=mode,
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
                ``highlight``, ``mode``...: see `PostgresSettings`).

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
        mode = tuning.pop("mode", None)
        try:
            self._setup(dsn, spec, Tuning(**tuning), embedder=embedder, mode=mode)
        except TypeError as exc:
            raise ConfigurationError(f"from_table: {exc}") from None
        return self

    def _setup(
        self,
        dsn: str | None,
        spec: TableSpec,
        tuning: Tuning,
        *,
        embedder: Embedder | None,
        mode: Mode | None,
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
        _positive("min_size", tuning.min_size, integer=True)
        _positive("max_size", tuning.max_size, integer=True, minimum=max(1, tuning.min_size))
        _positive("timeout", tuning.timeout)
        _positive("connect_timeout", tuning.connect_timeout)
        if tuning.pool_timeout is not None:
            _positive("pool_timeout", tuning.pool_timeout)
        _positive("max_candidates", tuning.max_candidates, integer=True, minimum=1)
        _positive("snippet_words", tuning.snippet_words, integer=True, minimum=3)
        _positive("batch_size", tuning.batch_size, integer=True, minimum=1)
        if tuning.highlight is not None and (
            not isinstance(tuning.highlight, tuple)
            or len(tuning.highlight) != 2
            or not all(isinstance(m, str) for m in tuning.highlight)
        ):
            raise ConfigurationError("highlight must be None or a (start, end) pair of strings")
        if not isinstance(tuning.one_per_document, bool):
            raise ConfigurationError("one_per_document must be True or False")
        rank_function = tuning.rank_function
        if rank_function is None:
            rank_function = "bm25" if spec.managed else "ts_rank"
        self._spec = spec
        self._builder = Builder(
            spec, rank_function=rank_function, one_per_document=tuning.one_per_document
        )
        self._schema = SchemaBuilder(spec)
        self.one_per_document = tuning.one_per_document
        self.rank_function = rank_function
        self._target = describe(params)
        self.max_candidates = tuning.max_candidates
        self.highlight = tuning.highlight
        self._snippet_chars = tuning.snippet_words * 14  # two fragments of ~7-character words
        self._common: tuple[float, tuple[str, ...]] | None = None
        self._statistics: tuple[float, bool] | None = None
        self.batch_size = tuning.batch_size
        secrets = tuple(s for s in (params.get("password"), os.environ.get("PGPASSWORD")) if s)
        settings = PoolSettings(
            dsn=dsn,
            target=self._target,
            table=spec.table_name,
            secrets=secrets,
            min_size=tuning.min_size,
            max_size=tuning.max_size,
            statement_timeout=float(tuning.timeout),
            pool_timeout=float(
                tuning.pool_timeout if tuning.pool_timeout is not None else tuning.timeout
            ),
            connect_timeout=float(tuning.connect_timeout),
            vectors=embedder is not None,
        )
        self._sync = SyncPool(settings)
        self._async = AsyncPool(settings)

    def __repr__(self) -> str:
        return f"PostgresTextSearch({self._target!r}, table={self._spec.table_name!r})"

    # -- searching ---------------------------------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        self._builder.check_filter(search_filter)

    def _search(self, query: str, options: SearchOptions) -> Plan[Step, SearchResults[Any]]:
        query = query.replace("\x00", " ")  # PostgreSQL text cannot hold NUL
        stats = self._builder.common_words()
        vector = None
        if self.embedder is not None:
            yield from self._check_embedding()
            if self.mode != "keyword":  # keyword mode never calls the embedder
                vector = yield Embed(query=query)
                self._check_length([vector])
        work = partial(self._search_work, query, options, stats, vector)
        rows, total = yield Db(work, transaction=False)
        return self._results(query, rows, total)

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[PostgresDocument]:
        return await drive(self._search(query, options), self._perform)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[PostgresDocument]:
        return drive_sync(self._search(query, options), self._perform_sync)

    def _to_text_search_result(self, item: PostgresDocument) -> TextSearchResult:
        name = f"{item.title} › {item.section}" if item.title and item.section else item.title
        value = item.snippet if item.snippet else (item.text[:300] or None)
        return TextSearchResult(name=name or item.section, value=value, link=item.link)

    async def get_documents(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[PostgresDocument]:
        """Same as `get_search_results`: documents with snippet and score."""
        return await self.get_search_results(query, options, **kwargs)

    def get_documents_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[PostgresDocument]:
        """Blocking twin of `get_documents`."""
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
        the next `index_path` re-reads the files it indexed so they are split into
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
        await drive(self._create_schema(), self._perform)

    def _create_schema(self) -> Plan[Step, None]:
        schema = self._schema
        dimensions = (yield from self._embedder_dimensions()) if self.embedder else 0
        self._dimensions = None
        model = self.embedder.model if self.embedder is not None else None
        row = yield Db(partial(create_schema, schema, model, dimensions))
        problem = self._embedding_problem(row)
        if problem:
            raise ConfigurationError(problem)
        self._statistics = None

    def create_schema_sync(self) -> None:
        """Blocking twin of [create_schema][textsearch.PostgresTextSearch.create_schema]."""
        self._require_managed("create_schema_sync")
        drive_sync(self._create_schema(), self._perform_sync)

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

    def _embedded(self, rows: Sequence[tuple[Any, ...]]) -> Plan[Step, list[tuple[Any, ...]]]:
        """Rows with their passage's vector last (every vector made before any is written)."""
        if self.embedder is None:
            return list(rows)
        vectors = yield Embed([embedding_text(r) for r in rows])
        self._check_length(vectors)
        return [(*row, vector_text(v)) for row, v in zip(rows, vectors, strict=True)]

    async def add_documents(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = False
    ) -> int:
        """Add or replace documents (by ``id``), in transactions of ``batch_size`` documents.

        Each document is a `LocalDocument` or a dict with ``id``, ``title``,
        ``text``, ``link`` and ``metadata`` (the same shape and rules as
        `LocalTextSearch.add_documents`). All are validated before any is written. A
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
            NotFoundError: The table does not exist (call `create_schema`).
            ProviderError: The embedder failed or returned malformed vectors
                (``ResponseFormatError``).
            SearchTransportError: The server could not be reached.
        """
        self._require_managed("add_documents")
        return await drive(self._add(docs, chunk), self._perform)

    def _add(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], chunk: bool
    ) -> Plan[Step, int]:
        prepared = self._documents(docs)
        yield from self._check_embedding()
        # Every vector is made before anything is written: a failing embedder writes nothing.
        embedded = []
        for rows in self._row_batches(prepared, chunk):
            embedded.append((yield from self._embedded(rows)))
        for rows in embedded:
            if rows:
                yield Db(partial(write_rows, self._schema, rows))
        return len(prepared)

    def add_documents_sync(
        self, docs: Iterable[LocalDocument | Mapping[str, Any]], *, chunk: bool = False
    ) -> int:
        """Blocking twin of [add_documents][textsearch.PostgresTextSearch.add_documents]."""
        self._require_managed("add_documents_sync")
        return drive_sync(self._add(docs, chunk), self._perform_sync)

    def _write_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """One transaction: the rows of whole documents (``index_path``'s files, embedded here)."""
        if not rows:
            return
        self._check_embedding_sync()
        rows = drive_sync(self._embedded(rows), self._perform_sync)
        self._sync.run(blocking(Db(partial(write_rows, self._schema, rows))))

    async def delete_documents(self, ids: Iterable[str]) -> int:
        """Delete documents (every passage of each) by id; returns how many existed.

        Raises:
            InvalidRequestError: ``ids`` is not a list of strings.
            ConfigurationError: An existing-table instance (read-only).
            SearchTransportError: The server could not be reached.
        """
        self._require_managed("delete_documents")
        work = partial(delete_ids, self._schema, {"ids": checked_ids(ids)})
        return int(await self._async.run(on_connection(Db(work))))

    def delete_documents_sync(self, ids: Iterable[str]) -> int:
        """Blocking twin of [delete_documents][textsearch.PostgresTextSearch.delete_documents]."""
        self._require_managed("delete_documents_sync")
        work = partial(delete_ids, self._schema, {"ids": checked_ids(ids)})
        return int(self._sync.run(blocking(Db(work))))

    async def embed_missing(self) -> int:
        """Embed the passages stored without a vector; returns how many were embedded.

        For a table filled before the embedder was set (after `create_schema` added
        the vector column). Works ``batch_size`` passages at a time, each batch committed.

        Raises:
            ConfigurationError: No embedder, an existing-table instance, or a table holding
                another model's vectors.
            ProviderError: The embedder failed (that batch is not written).
            SearchTransportError: The server could not be reached.
        """
        self._require_embedder("embed_missing")
        return await drive(self._embed_missing(), self._perform)

    def _embed_missing(self) -> Plan[Step, int]:
        yield from self._check_embedding()
        select, update = self._schema.missing_embeddings(), self._schema.set_embeddings()
        done = 0
        while True:
            rows = yield Db(partial(fetch_all, select, (self.batch_size,)), False)
            if not rows:
                return done
            vectors = yield Embed([passage_text(*r[2:]) for r in rows])
            self._check_length(vectors)
            yield Db(partial(execute, update, embedding_update(rows, vectors)), False)
            done += len(rows)

    def embed_missing_sync(self) -> int:
        """Blocking twin of [embed_missing][textsearch.PostgresTextSearch.embed_missing]."""
        self._require_embedder("embed_missing_sync")
        return drive_sync(self._embed_missing(), self._perform_sync)

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
        work = partial(fetch_one, self._builder.count_all())
        return int((await self._async.run(on_connection(Db(work, False))))[0])

    def count_documents_sync(self) -> int:
        """Blocking twin of [count_documents][textsearch.PostgresTextSearch.count_documents]."""
        work = partial(fetch_one, self._builder.count_all())
        return int(self._sync.run(blocking(Db(work, False)))[0])

    def index_path(
        self,
        path: str | os.PathLike[str],
        *,
        extensions: Sequence[str] = DEFAULT_EXTENSIONS,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> IndexReport:
        """Index a file or folder of text, Markdown, reStructuredText and HTML (blocking).

        Each file is split into passages as `LocalTextSearch.index_path` splits it
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
            NotFoundError: The table does not exist (call `create_schema_sync`).
            SearchTransportError: The server could not be reached.
        """
        self._require_managed("index_path")
        root, files = files_to_index(path, extensions)
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
        """Close the blocking pool (use `aclose` from async code to close both)."""
        self._sync.close()

    async def aclose(self) -> None:
        """Close both pools."""
        await self._async.close()
        self._sync.close()
