"""``LocalTextSearch``: the embedded default, on SQLite FTS5 from the standard library.

No key, no network, no extra dependency. Documents go in with `LocalTextSearch.add_documents`
or `LocalTextSearch.index_path`, are split into passages (sections by heading, paragraphs in
plain text, each at most ~1,500 characters), and passages are ranked with BM25.

How text is searched:

* A query is BM25 over any of its words, so documents with more of the words (and rarer ones)
  rank first by score; stop words ("how", "do", "I") are left out of the query, not the index.
  ``match="all"`` asks for every word instead.
* The FTS5 ``porter unicode61`` tokenizer folds case and diacritics and stems English words,
  so ``retries`` finds ``retry``.
* Chinese, Japanese and Korean text has no spaces between words, which ``unicode61`` would
  read as one long token. At index time every CJK character is therefore fenced with a
  zero-width space (a separator to the tokenizer, never stored), which makes each character a
  token; a CJK run in a query becomes a phrase of its characters.
* User text is never handed to FTS5 as syntax: each word is quoted, so quotes,
  ``AND``/``OR``/``NOT``, ``*``, ``:``, parentheses, SQL or emoji are just text.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from textsearch._types import (
    SearchOptions,
    SearchResults,
    TextSearchFilter,
    TextSearchResult,
    result_window,
)
from textsearch.base import BaseTextSearch
from textsearch.connectors.local import _engine as _engine
from textsearch.connectors.local._filters import filter_sql, validate_filter
from textsearch.connectors.local._fts import FtsRanker
from textsearch.connectors.local._places import has_place_clause
from textsearch.connectors.local._query import cjk_characters, plan_query, term_word
from textsearch.connectors.local._reads import LocalReads
from textsearch.connectors.local._schema import (
    RESERVED_FILTER_FIELDS,
    SHAPE_INDEX,
    LocalDocument,
    MetadataValue,
    connect,
    documented_errors,
    has_shape_index,
    normalize_document,
    retry_busy,
)
from textsearch.connectors.local._state import (
    HYBRID_DEPTH,
    MODES,
    WHOLE_ROWS,
)
from textsearch.connectors.local._writing import LocalWriting
from textsearch.documents._files import (
    IndexReport,
)
from textsearch.documents._formats import fragment_metadata
from textsearch.documents._links import passage_link
from textsearch.documents._passages import (
    DEFAULT_PASSAGE_CHARS,
    best_window,
    hit_pattern,
)
from textsearch.errors import ConfigurationError

if TYPE_CHECKING:
    from typing_extensions import Self

    from textsearch.connectors.local._vectors import VectorIndex
    from textsearch.embeddings import Embedder

__all__ = ["IndexReport", "LocalDocument", "LocalTextSearch", "MetadataValue", "normalize_document"]


def _result_metadata(stored: str, anchor: str | None) -> dict[str, Any]:
    """A result's metadata: the document's, and the page, slide, sheet or row its anchor
    names (``#page=3`` gives ``{"page": 3}``)."""
    metadata: dict[str, Any] = json.loads(stored) if stored != "{}" else {}
    if anchor and "=" in anchor:
        metadata.update(fragment_metadata(anchor))
    return metadata


def _stored_document(**fields: Any) -> LocalDocument:
    """A result built from stored (already validated) values, without validating again."""
    return LocalDocument.model_construct(**fields)


class LocalTextSearch(LocalReads, LocalWriting, BaseTextSearch[LocalDocument]):
    """Embedded full-text search on SQLite FTS5: works with no key and no network.

    Args:
        path: ``":memory:"`` (default) or a database file, created if missing; an existing
            index is reused and can be updated incrementally.
        engine: What ranks the passages. ``"tantivy"``: a tantivy index (block-max WAND
            top-k pruning, several times faster; needs ``pip install
            "textsearch-sdk[tantivy]"``) kept in a ``<path>.tantivy`` folder beside the file
            (in memory for ``":memory:"``); ``"sqlite"``: SQLite FTS5, no extra package;
            ``"auto"`` (default): tantivy when it is installed, else SQLite. Either way the
            SQLite file stores the documents; opening an index with the other engine
            rebuilds that engine's index from them. The engine used is in `engine`
            and in each result's ``metadata["engine"]``.
        match: ``"any"`` (default): BM25 over any of the query's words, stop words left out;
            ``"all"``: only passages holding every word.
        one_per_document: Collapse results to the best passage of each document.
        highlight: Markers put around matched words in snippets, e.g. ``("**", "**")``;
            ``None`` (default) for none, so that text given to a model carries no markup.
        value_chars: Most characters of a result's value (the passage, or the window of it
            with the most hits), 100..20,000.
        snippet_tokens: Older spelling of the value's size, in words (1..64, about eight
            characters each); prefer ``value_chars``.
        passage_chars: Size bound of the passages ``index_path`` cuts files into, in
            characters (100..100,000; default 1500). Recorded per indexed folder: a change
            reads that folder's files again on the next ``index_path``.
        string_mapper: Custom mapping of a `LocalDocument` to the string that
            `search` returns.
        text_search_result_mapper: Custom mapping of a `LocalDocument` to a
            `TextSearchResult`.
        embedder: An `Embedder`: every passage added is
            embedded, and its vector kept beside the index file (``<path>.vectors``; the
            model's id and dimensions in the file), so that passages can be found by
            meaning. Searching by meaning is
            exact (every vector compared); ``pip install "textsearch-sdk[semantic]"`` (numpy,
            and numkong: an int8 first pass with exact float32 re-scoring from 20,000
            passages) makes it fast on large indexes (~4 ms at 100,000 passages).
        mode: ``"keyword"`` (BM25 over the words), ``"semantic"`` (by meaning: nearest
            vectors) or ``"hybrid"`` (both, fused); ``None`` (default): ``"hybrid"`` with an
            embedder, else ``"keyword"``. In ``"keyword"`` mode the embedder is never called
            at query time (it still embeds what is added).

    Raises:
        ConfigurationError: The database file cannot be opened or is not a textsearch index,
            an argument is out of range, ``engine="tantivy"`` without tantivy installed,
            ``mode="semantic"``/``"hybrid"`` without an embedder, or the index holds vectors
            of another model or dimension count than the embedder's.
        ServiceUnavailableError: Rebuilding the ranking index had to wait more than 30 s
            for another process's write.

    Filters: ``equal_to`` on ``site`` (the host of the link; subdomains match too), ``id``,
    ``link``, or any metadata field present in the index; ``any_tag_equal_to`` on metadata
    fields holding lists. Any other field raises `UnsupportedFilterError`.

    SQLite failures surface as documented errors: a write blocked by another process for
    30 s is a `ServiceUnavailableError` (``code="busy"``), a damaged file a
    `ProviderError` (``code="corrupt"``), use after `close` a
    `ConfigurationError`. A tantivy folder that is missing, damaged or
    behind the SQLite file (a crash between the two commits) is rebuilt when the index is
    opened.

    Each result is one section (passages of one section that both rank are one result, their
    text joined within ``value_chars``), or one document with ``one_per_document``; pages are
    cut after merging, so no section comes back on a later page.

    The async methods run the SQLite work in a worker thread, so the event loop is never
    blocked; one instance may be shared across threads and tasks (calls are serialized).
    """

    provider_name: ClassVar[str] = "local"

    @property
    def _trace_children(self) -> bool:
        # Whether a search may open spans of its own (its embedder's): if not, its retrieval
        # span is never made current (see `textsearch._tracing`).
        return self.embedder is not None

    @classmethod
    def from_env(cls, *, embedder: Embedder | str | None = None, **settings: Any) -> Self:
        """An in-memory index, as the provider registry builds ``local``.

        No environment variable is read: the command line passes ``--path`` and ``--db`` as
        arguments; pass ``path=`` here for an index file.

        Args:
            embedder: An `Embedder`, or a spec for `textsearch.embeddings.from_spec`
                (``None``: keyword search only).
            **settings: Any other constructor keyword.

        Raises:
            ConfigurationError: A bad embedder spec or setting.
        """
        if embedder is not None:
            from textsearch.embeddings import embedder_from_env

            settings["embedder"] = embedder_from_env(embedder)
        return cls(**settings)

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        engine: Literal["auto", "sqlite", "tantivy"] = "auto",
        match: Literal["any", "all"] = "any",
        one_per_document: bool = False,
        highlight: tuple[str, str] | None = None,
        value_chars: int = DEFAULT_PASSAGE_CHARS,
        snippet_tokens: int | None = None,
        string_mapper: Callable[[LocalDocument], str] | None = None,
        text_search_result_mapper: Callable[[LocalDocument], TextSearchResult] | None = None,
        embedder: Embedder | None = None,
        mode: Literal["keyword", "semantic", "hybrid"] | None = None,
        passage_chars: int = DEFAULT_PASSAGE_CHARS,
    ) -> None:
        super().__init__(
            string_mapper=string_mapper, text_search_result_mapper=text_search_result_mapper
        )
        if match not in ("any", "all"):
            raise ConfigurationError(f"match must be 'any' or 'all', not {match!r}")
        if mode is None:
            mode = "hybrid" if embedder is not None else "keyword"
        if mode not in MODES:
            raise ConfigurationError(
                f"mode must be 'keyword', 'semantic' or 'hybrid', not {mode!r}"
            )
        if embedder is not None:
            from textsearch.embeddings import Embedder as _Embedder

            if not isinstance(embedder, _Embedder):
                raise ConfigurationError(
                    "embedder must be an Embedder (model, dimensions, embed_documents, "
                    f"embed_query and their _sync twins), not {type(embedder).__name__}"
                )
        elif mode != "keyword":
            raise ConfigurationError(
                f"mode={mode!r} searches by meaning and needs an embedder: "
                "LocalTextSearch(..., embedder=...)"
            )
        self.embedder = embedder
        self.mode: Literal["keyword", "semantic", "hybrid"] = mode
        #: How hybrid mode fuses its two rankings (see ``_hybrid.fuse``): chosen by
        #: measurement, settable for benchmarks.
        self._fusion: Literal["blend", "rrf"] = "blend"
        self._vector_index: VectorIndex | None = None
        self._vector_store: Any = None  # the _vectorfile.VectorStore, made when first used
        if snippet_tokens is not None:
            if not isinstance(snippet_tokens, int) or not 1 <= snippet_tokens <= 64:
                raise ConfigurationError("snippet_tokens must be an integer from 1 to 64")
            value_chars = max(100, snippet_tokens * 8)
        if not isinstance(value_chars, int) or not 100 <= value_chars <= 20_000:
            raise ConfigurationError("value_chars must be an integer from 100 to 20000")
        if (
            isinstance(passage_chars, bool)
            or not isinstance(passage_chars, int)
            or not 100 <= passage_chars <= 100_000
        ):
            raise ConfigurationError(
                f"passage_chars must be an integer from 100 to 100000, not {passage_chars!r}"
            )
        #: Size bound of one passage ``index_path`` makes; recorded per indexed folder, so
        #: that a change reads that folder's files again on the next run.
        self.passage_chars = passage_chars
        try:
            self.path = os.fspath(path)
        except TypeError:
            raise ConfigurationError(f"path must be a str or os.PathLike, not {path!r}") from None
        self.match = match
        self.one_per_document = one_per_document
        self.highlight = highlight
        self.value_chars = value_chars
        self.engine: Literal["sqlite", "tantivy"] = _engine.choose_engine(engine)
        self._lock = threading.RLock()
        # The filterable fields last read from the file (they only ever grow): what
        # check_filter and the other pre-checks compare with, without waiting for the lock.
        self._known_fields: list[str] | None = None
        self._db = connect(self.path)
        self._shape_index = has_shape_index(self._db)
        self._fts = FtsRanker(self._db)
        self._tv: ModuleType | None = None
        self._ranker: Any = None  # the TantivyRanker when engine == "tantivy"
        try:
            self._open_engine()
            if embedder is not None:
                with documented_errors(self.path):
                    retry_busy(self._open_vectors, self.path)
        except BaseException:
            self._db.close()
            raise

    def __repr__(self) -> str:
        return f"LocalTextSearch(path={self.path!r})"

    # -- vectors -----------------------------------------------------------------------

    # -- writing -----------------------------------------------------------------------

    # -- searching ---------------------------------------------------------------------

    def _check_filter(self, search_filter: TextSearchFilter | None) -> None:
        # The rules of a search itself (validate_filter, then filter_sql for the values), so
        # that check_filter, check_request and prepare_request refuse what search() refuses.
        # The fields come from the last read; the file is read again only for a field not
        # seen yet, and an event loop's thread never waits for the lock to do it.
        if not search_filter:
            return
        known = self._known_fields
        if known is None or any(name not in known for name in search_filter.field_names):
            known = self._fresh_fields()
        validate_filter(search_filter, known)
        filter_sql(search_filter)

    def _fresh_fields(self) -> list[str]:
        if self._lock.acquire(blocking=not _on_event_loop()):
            try:
                with documented_errors(self.path):
                    return self._filter_fields()
            finally:
                self._lock.release()
        # Busy, seen from an event loop: the last read (the search itself reads again).
        return self._known_fields or sorted(RESERVED_FILTER_FIELDS)

    def _fetch_sync(self, query: str, options: SearchOptions) -> SearchResults[LocalDocument]:
        vector = None
        if self.mode != "keyword" and query.strip():
            from textsearch.embeddings import embed_query_sync

            # The filter is checked first: bad input fails before the embedder is called.
            with self._lock, documented_errors(self.path):
                self._validate_filter(options.filter)
                filter_sql(options.filter)
            assert self.embedder is not None
            vector = embed_query_sync(self.embedder, query)
        return self._search(query, options, vector)

    async def _fetch(self, query: str, options: SearchOptions) -> SearchResults[LocalDocument]:
        # A worker thread keeps the event loop free: a broad query on a large index can take
        # a while. asyncio is imported here, not at module level: its import time is one the
        # command line and sync users never need.
        import asyncio

        vector = None
        if self.mode != "keyword" and query.strip():
            from textsearch.embeddings import embed_query

            await asyncio.to_thread(self._checked_filter, options)
            assert self.embedder is not None
            vector = await embed_query(self.embedder, query)
        return await asyncio.to_thread(self._search, query, options, vector)

    def _checked_filter(self, options: SearchOptions) -> None:
        with self._lock, documented_errors(self.path):
            self._validate_filter(options.filter)
            filter_sql(options.filter)

    def _search(
        self, query: str, options: SearchOptions, vector: list[float] | None
    ) -> SearchResults[LocalDocument]:
        from textsearch.connectors.local._hybrid import collapse, fit

        plan = plan_query(query)
        keyword = bool(plan.terms) and self.mode != "semantic"
        if not keyword and vector is None:
            with self._lock, documented_errors(self.path):
                self._validate_filter(options.filter)
            none = 0 if options.include_total_count else None
            return SearchResults([], none, {"match": "none", "engine": self.engine})
        info: dict[str, Any] = {"match": self.match, "engine": self.engine}
        if self.mode != "keyword":
            info["mode"] = self.mode
            if self.mode == "hybrid":
                info["fusion"] = self._fusion
        wanted = result_window(options)
        # Passages of one section are merged into one result: rank a few more than asked,
        # and more again while the merged list is short of the page (rare: only sections
        # split into passages that both rank merge).
        depth = wanted + 2 + wanted // 4
        memo: dict[str, Any] = {}  # this query's vector scores, kept while the depth grows
        total: int | None = None
        rows: dict[int, Any] = {}  # the passages read so far, by rowid
        # (doc, anchor) by rowid; None: deleted by another writer since it was ranked
        shapes: dict[int, tuple[int, str | None] | None] = {}
        with self._lock, documented_errors(self.path):
            self._validate_filter(options.filter)
            filter_sql(options.filter)  # checks values (64-bit numbers) for both engines
            while True:
                ranked, exhausted, counted = self._ranked(
                    plan, keyword, vector, options, depth, info, memo
                )
                if counted is not None:
                    total = counted
                self._fetch_shapes(shapes, rows, ranked)
                groups = collapse(shapes, ranked, self.one_per_document)
                if len(groups) >= wanted or exhausted:
                    page = groups[options.skip : wanted]
                    gone = self._fetch_rows(rows, [r for g in page for r in g.members])
                    if not gone:
                        for group in page:
                            fit(group, lambda rowid: len(rows[rowid][7]), self.value_chars)
                        break
                    # Deleted by another writer since its shape was read: rank without it.
                    for rowid in gone:
                        shapes[rowid] = None
                    continue
                depth *= 4
        pattern = hit_pattern(plan.words)
        docs = []
        build = _stored_document
        for group in page:
            parts = [rows[r] for r in sorted(group.members)]
            _, _, doc_id, title, section, anchor, line, _, link, metadata = parts[0]
            text = parts[0][7] if len(parts) == 1 else "\n\n".join(p[7] for p in parts)
            docs.append(
                build(
                    id=doc_id,
                    title=title,
                    text=text,
                    link=passage_link(link, anchor, line),
                    metadata=_result_metadata(metadata, anchor),
                    section=section,
                    line=line,
                    snippet=best_window(text, pattern, self.value_chars, self.highlight) or None,
                    score=group.score,
                )
            )
        return SearchResults(docs, total, info)

    def _fetch_shapes(
        self,
        shapes: dict[int, tuple[int, str | None] | None],
        rows: dict[int, Any],
        ranked: list[tuple[int, float]],
    ) -> None:
        """Read what grouping needs of the ranked passages not read yet (a passage ranked by
        tantivy but not yet in SQLite, committed by another process in between, is simply
        not found).

        A hybrid or semantic ranking is a few hundred passages deep and only a page of them
        is shown: their text and document are read for the page alone (reading them all
        cost more than ranking at 100k passages). A short list is read whole at once.
        """
        wanted = [rowid for rowid, _ in ranked if rowid not in shapes]
        if len(wanted) <= WHOLE_ROWS:
            self._fetch_rows(rows, wanted)
            for rowid in wanted:
                row = rows.get(rowid)
                if row is not None:
                    shapes[rowid] = (row[1], row[5])
            return
        # From the covering index where the file has it (a few small pages), else from the
        # rows, without touching their text (the last column).
        source = f"INDEXED BY {SHAPE_INDEX} " if self._shape_index else ""
        for rowid, doc, anchor in self._rows_in(
            f"SELECT p.rowid, p.doc, p.anchor FROM passages AS p {source}", wanted
        ):
            shapes[rowid] = (doc, anchor)

    def _fetch_rows(self, rows: dict[int, Any], wanted: list[int]) -> list[int]:
        """Read the passages of ``wanted`` not read yet; returns those not found."""
        wanted = [rowid for rowid in wanted if rowid not in rows]
        if not wanted:
            return []
        for row in self._rows_in(
            "SELECT p.rowid, p.doc, d.id, d.title, p.section, p.anchor, p.line, p.text, "
            "d.link, d.metadata FROM passages AS p JOIN documents AS d ON d.rowid = p.doc ",
            wanted,
        ):
            rows[row[0]] = row
        return [rowid for rowid in wanted if rowid not in rows]

    def _rows_in(self, select: str, rowids: list[int]) -> Any:
        """``select`` (on passages ``p``) restricted to the passages ``rowids``."""
        if len(rowids) <= 500:
            return self._db.execute(
                select + f"WHERE p.rowid IN ({','.join('?' * len(rowids))})", rowids
            )
        return self._db.execute(
            select + "WHERE p.rowid IN (SELECT value FROM json_each(?))", (json.dumps(rowids),)
        )

    def _ranked(
        self,
        plan: Any,
        keyword: bool,
        vector: list[float] | None,
        options: SearchOptions,
        depth: int,
        info: dict[str, Any],
        memo: dict[str, Any],
    ) -> tuple[list[tuple[int, float]], bool, int | None]:
        """The best ``depth`` passages of this mode, whether there are no more, the total."""
        from textsearch.connectors.local._hybrid import fuse

        # Counted once per query, not again each time the depth grows.
        count = options.include_total_count and "counted" not in memo
        memo["counted"] = True
        arm_depth = max(depth, HYBRID_DEPTH) if keyword and vector is not None else depth
        words: list[tuple[int, float]] = []
        total: int | None = None
        if keyword:
            words, total = self._keyword_arm(plan, options, arm_depth, info, count)
            if vector is None:
                return words, len(words) < arm_depth, total
        assert vector is not None
        meaning, cosines_of, admitted, meaning_total = self._semantic_arm(
            vector, options, arm_depth, memo, count
        )
        if count:
            total = max(total or 0, meaning_total or 0)
        if not keyword:
            return meaning, len(meaning) >= admitted, total
        fused = fuse(words, meaning, cosines_of, self._fusion, standard=plan.cjk)
        exhausted = len(words) < arm_depth and len(meaning) >= admitted
        return fused, exhausted, total

    def _keyword_arm(
        self, plan: Any, options: SearchOptions, depth: int, info: dict[str, Any], count: bool
    ) -> tuple[list[tuple[int, float]], int | None]:
        if self._ranker is not None:
            return self._rank_tantivy(plan.ranked, options, depth, count)
        match = plan.match(self.match)
        if self.match == "any" and len(plan.terms) > 1 and not options.include_total_count:
            terms = plan.terms
            if options.filter is None and cjk_characters(plan.words):
                terms = self._fts.rare_cjk(terms, depth)
            # Planned for the page asked for (merging sections rarely shortens it).
            match, left_out = self._fts.plan_any(terms, options)
            if len(terms) < len(plan.terms):  # common CJK characters, left out first
                left_out = [
                    *dict.fromkeys(term_word(t) for t in plan.terms if t not in terms),
                    *left_out,
                ]
            if left_out:
                info["left_out"] = left_out
        ranked = self._fts.rank(match, options, depth, plan.cjk)
        total = self._fts.count(match, options, self.one_per_document) if count else None
        return ranked, total

    def _semantic_arm(
        self,
        vector: list[float],
        options: SearchOptions,
        depth: int,
        memo: dict[str, Any],
        count: bool,
    ) -> tuple[list[tuple[int, float]], Callable[[list[int]], list[float | None]], int, int | None]:
        from textsearch.connectors.local._hybrid import group_count_sql
        from textsearch.connectors.local._vectors import VectorIndex

        index = self._vector_index
        if index is None:
            index = self._vector_index = VectorIndex()
        index.follow(self._db, self._vectors_file())
        allowed = rows = None
        placed = has_place_clause(options.filter)  # a passage's page: passages admitted
        where, params = filter_sql(options.filter, "q" if placed else None)
        if where and "scored" not in memo and "pairs" not in memo:
            if placed:
                rows = [
                    r[0]
                    for r in self._db.execute(
                        "SELECT q.rowid FROM passages AS q JOIN documents AS d "
                        f"ON d.rowid = q.doc WHERE 1{where}",
                        params,
                    )
                ]
            else:
                allowed = index.admitted(self._db, where, params)
        if len(index) and len(vector) != index.dimensions:
            stored = self._vector_meta()
            assert self.embedder is not None
            raise self._mismatch(
                stored.get("embedding_model", "?"),
                str(index.dimensions),
                self.embedder.model,
                len(vector),
            )
        ranked, cosines_of, admitted = index.search(vector, depth, allowed, memo, rows)
        total: int | None = None
        if count:
            source = (
                "SELECT v.rowid FROM passage_vectors AS v JOIN passages AS q ON q.rowid = v.rowid "
                f"JOIN documents AS d ON d.rowid = q.doc WHERE 1{where}"
            )
            total = (
                int(
                    self._db.execute(
                        group_count_sql(source, self.one_per_document), params
                    ).fetchone()[0]
                )
                if len(index)
                else 0
            )
        return ranked, cosines_of, admitted, total

    def _to_text_search_result(self, item: LocalDocument) -> TextSearchResult:
        name = f"{item.title} › {item.section}" if item.title and item.section else item.title
        value = item.snippet if item.snippet else (item.text[: self.value_chars] or None)
        return TextSearchResult(name=name or item.section, value=value, link=item.link)

    #: Same as `get_search_results` (passages with snippet and score), under the name
    #: the other stores' connectors use; and its blocking twin.
    get_documents = BaseTextSearch.get_search_results
    get_documents_sync = BaseTextSearch.get_search_results_sync

    def close(self) -> None:
        """Close the database connection; later calls raise ``ConfigurationError``."""
        with self._lock:
            if self._ranker is not None:
                self._ranker.rollback()
            self._db.close()
            if self._vector_store is not None:
                self._vector_store.close()


def _on_event_loop() -> bool:
    """Whether this thread runs an event loop (asyncio is looked up, never imported)."""
    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
